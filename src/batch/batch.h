/*
 * batch.h - an entity group transaction's operations, as batch_parse.c reads them from the
 * operations document and batch.c runs them.
 */
#ifndef TS_BATCH_H
#define TS_BATCH_H

#include "postgres.h"

#include "entity.h"
#include "row_json.h"
#include "stamp.h"
#include "ts_protocol.h"
#include "ts_table.h"


typedef enum BatchOpKind
{
	OP_INSERT,
	OP_UPDATE,
	OP_MERGE,
	OP_UPSERT_REPLACE,
	OP_UPSERT_MERGE,
	OP_DELETE
} BatchOpKind;

typedef struct BatchOp
{
	int			index;			/* in the request, 0-based */
	BatchOpKind kind;
	text	   *pk;
	text	   *rk;
	Entity	   *props;			/* the entity without its keys */
	text	   *if_match;		/* NULL: none or "*" */
	bool		echo;			/* an insert whose entity the REST answer returns (rest_batch) */
	bool		echo_at_level;	/* returned at echo_level, not at the call's metadata level */
	JsonMetadata echo_level;
	bool		exists;			/* found and locked before the writes */
	text	   *current_etag;
	WriteStamp	result;			/* the new ETag and Timestamp; no ETag for a delete */
	KeyHistory	history;		/* an insert's key history, when learnt for the whole batch */
} BatchOp;

/*
 * Read the operations document (JSON text, len bytes, at most max_bytes): an array of
 *   {"op": ..., "entity": {...}, "if_match": ..., "PartitionKey": ..., "RowKey": ..., "echo": ...}
 * where the entity may instead be given as its JSON text in a string, "entity_json" (a REST
 * sub-request's body as it came), the keys may be given beside the entity (a REST sub-request's
 * URL) and must then agree with the entity's, a delete needs no entity when both keys are given,
 * and echo marks an insert whose stored entity the answer returns (true, or the metadata level
 * to return it at, "nometadata" | "minimalmetadata" | "fullmetadata"). Allocated in the current
 * memory context, checking in this order: the payload size, the document's shape, the number of operations, then each
 * operation in request order (well formed, a valid entity, the batch's one PartitionKey). The
 * first failure is raised; operation errors begin "operation N: ".
 */
extern BatchOp *batch_parse(const char *doc, size_t len, size_t max_bytes, int *n);

struct KeyScope;

/*
 * Run a batch on a resolved table (batch.c): the document read by batch_parse, every operation's
 * keys inside scope (NULL: not scoped), every key locked, conditions checked, the writes made in
 * one subtransaction; returns the operations in request order with their results, or raises
 * (nothing written) naming the failing operation. On a distributed table whose partition is on
 * another node, nothing runs here: NULL is returned with that node's server in *remote, and the
 * caller forwards the call (remote_call.h); else *remote is InvalidOid.
 */
extern BatchOp *batch_run(const TsTable *t, const char *doc, size_t len, size_t max_bytes,
						  const struct KeyScope *scope, int *n, Oid *remote);

/* Raise an error about operation index. */
extern void batch_op_error(int index, TsErrorCode code, const char *fmt,...) pg_attribute_printf(3, 4) pg_attribute_noreturn();

#endif							/* TS_BATCH_H */
