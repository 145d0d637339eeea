/*
 * ts_table.h - table names and where tables live.
 *
 * A table named N (case-insensitive, case-preserving) is the relation tablestore_data.lower(N);
 * the registry tablestore.tables keeps N as it was created.
 */
#ifndef TS_TABLE_H
#define TS_TABLE_H

#include "postgres.h"
#include "table_layout.h"
#include "nodes/parsenodes.h"

#define TS_DATA_SCHEMA "tablestore_data"
#define TS_TABLE_NAME_MAX 63

typedef struct TsTable
{
	Oid			relid;
	bool		partitioned;	/* hash-partitioned by partition_key: distributed (doc/scale-out.md) */
	Oid			remote;			/* a query's server when its one partition is on another node */
	char		key[TS_TABLE_NAME_MAX + 1];	/* lower-case relation name */
	char		qualified[2 * NAMEDATALEN + 8];	/* "tablestore_data.<key>", ready for SQL */
} TsTable;

/* The table-name rules of contract §2: ^[A-Za-z][A-Za-z0-9]{2,62}$, and not "tables". */
extern bool ts_table_name_valid(const char *s, int len, const char **why);

/* Raise InvalidResourceName (TSB14) unless s is a valid table name. */
extern void ts_table_check_name(const char *s, int len);

/* The lower-case relation name of a valid table name (raises InvalidResourceName). */
extern void ts_table_key(text *name, char *key);

/*
 * Resolve a table name: the relation is locked (AccessShareLock, to the end of the transaction,
 * so that it cannot be dropped or altered under the call) and checked against the layout of
 * table_layout.h. Raises InvalidResourceName (TSB14), TableNotFound (TSN02, also when the table
 * was dropped while the call waited for it) or TSX02 (not a tablestore table).
 */
extern void ts_table_resolve(text *name, TsTable *t);

/*
 * A partitioned table's partition for one PartitionKey (contract §9). A local partition becomes the
 * table's relation (t->relid, t->qualified), so the call then runs as on any table, on the direct
 * path where it applies; InvalidOid is returned. A foreign partition (postgres_fdw) returns its
 * server: the caller forwards the whole call there (remote_call.h). needed: the privileges the
 * call needs on the table as the caller named it, checked here since the node checks only those
 * of the user mapping's role. Raises TSX03 when no partition takes the key, or when the local
 * partition is fenced (a move is copying it here, or has switched it away: shard_fence.h) and the
 * call was not forwarded by a coordinator. Does nothing (returns InvalidOid) for a table that is
 * not partitioned.
 */
extern Oid	ts_table_route(TsTable *t, text *pk, AclMode needed);

/*
 * A node's part of a distributed table: partitioned, and some shards are not here (or are fenced).
 * A query across partitions on it would see only some of the table (it belongs on the coordinator).
 */
extern bool ts_table_partial(const TsTable *t);

/* The shard (0 .. shards - 1) PostgreSQL's hash partitioning puts a PartitionKey in. */
extern int	ts_shard_of(text *pk, int shards);

/* Is the named index (an error's constraint name) the table's primary key? */
extern bool ts_table_is_primary_key(const TsTable *t, const char *index_name);

/* Raise 42501 unless the caller may SELECT from the table (for answers that read no row). */
extern void ts_table_check_select(const TsTable *t);


/* Keys compare byte by byte (COLLATE "C", contract §3): <0, 0, >0. */
static inline int
ts_key_cmp(const text *a, const text *b)
{
	int			la = VARSIZE_ANY_EXHDR(a),
				lb = VARSIZE_ANY_EXHDR(b);
	int			c = memcmp(VARDATA_ANY(a), VARDATA_ANY(b), Min(la, lb));

	return c ? c : (la > lb) - (la < lb);
}

#endif							/* TS_TABLE_H */
