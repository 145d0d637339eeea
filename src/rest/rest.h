/*
 * rest.h - what the REST functions share (rest_*.c): the functions that tablestore-gateway calls,
 * one per REST call, each rendering the service's JSON body at the request's metadata level.
 * The contract between the gateway and the extension is doc/gateway.md.
 */
#ifndef REST_H
#define REST_H

#include "postgres.h"

#include "entity.h"
#include "etag.h"
#include "fmgr.h"
#include "stamp.h"
#include "row_json.h"
#include "ts_table.h"

/* The request's metadata level and the names that full metadata's links use. */
typedef struct RestTarget
{
	JsonMetadata metadata;
	const char *base;			/* the account's base URL as the client addressed it, no trailing '/' */
	const char *account;
} RestTarget;

/* (metadata, base, account) from arguments arg .. arg + 2; NULLs mean minimal metadata, "". */
extern void rest_target_from_args(FunctionCallInfo fcinfo, int arg, RestTarget *r);

/* The function's composite result from values (in the OUT parameters' order). */
extern Datum rest_result(FunctionCallInfo fcinfo, Datum *values, bool *nulls);

/*
 * A stored row, its five columns in layout order, as a RowJson (views into the datums and into
 * *rs, which holds the Timestamp and ETag the row shows: etag_row_stamp's).
 */
extern void rest_row_of(const Datum *values, RowJson *r, EntityView *v, RowStamp *rs);

/* The row a write made (keys, the write's stamp, the properties written) as a RowJson. */
extern void rest_written_row(text *pk, text *rk, const WriteStamp *w, Entity *props, RowJson *r,
							 EntityView *v);

/* One entity as the body of a single-entity answer: odata.metadata is <base>/$metadata#<table>/@Element. */
extern text *rest_entity_body(const RestTarget *rt, const char *table, const RowJson *r, const SelectList *sel);

/* The table name as the client wrote it (argument arg), for the links of the answer. */
extern const char *rest_table_name(FunctionCallInfo fcinfo, int arg);

#endif							/* REST_H */
