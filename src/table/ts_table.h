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
