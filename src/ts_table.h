/*
 * ts_table.h - table names and where tables live.
 *
 * A table named N (case-insensitive, case-preserving) is the relation tablestore_data.lower(N);
 * the registry tablestore.tables keeps N as it was created.
 */
#ifndef TS_TABLE_H
#define TS_TABLE_H

#include "postgres.h"
#include "access/tupdesc.h"

#define TS_DATA_SCHEMA "tablestore_data"
#define TS_TABLE_NAME_MAX 63

typedef struct TsTable
{
	Oid			relid;
	char		key[TS_TABLE_NAME_MAX + 1];	/* lower-case relation name */
	char		qualified[2 * NAMEDATALEN + 8];	/* "tablestore_data.<key>", ready for SQL */
} TsTable;

/* The table-name rules of SPEC §2: ^[A-Za-z][A-Za-z0-9]{2,62}$, and not "tables". */
extern bool ts_table_name_valid(const char *s, int len, const char **why);

/* Resolve a table name; raises InvalidResourceName (TSB14) or TableNotFound (TSN02). */
extern void ts_table_resolve(text *name, TsTable *t);

/* Is the named index (an error's constraint name) the table's primary key? */
extern bool ts_table_is_primary_key(const TsTable *t, const char *index_name);

/* Raise 42501 unless the caller may SELECT from the table (for answers that read no row). */
extern void ts_table_check_select(const TsTable *t);

/* The OID of tablestore.entity (cached; any change to pg_type, e.g. the extension re-created, resets it). */
extern Oid	ts_entity_type_oid(void);

/* True when the relation's columns are create_table's five, with their types, in any order. */
extern bool ts_table_columns_ok(TupleDesc desc, const int *att);

/* Keys compare byte by byte (COLLATE "C", SPEC §3): <0, 0, >0. */
static inline int
ts_key_cmp(const text *a, const text *b)
{
	int			la = VARSIZE_ANY_EXHDR(a),
				lb = VARSIZE_ANY_EXHDR(b);
	int			c = memcmp(VARDATA_ANY(a), VARDATA_ANY(b), Min(la, lb));

	return c ? c : (la > lb) - (la < lb);
}

#endif							/* TS_TABLE_H */
