/*
 * table_layout.h - the one owner of a tablestore table's layout (as pg_cron's cron_job.h owns
 * its table).
 *
 * Every table is an ordinary relation tablestore_data.<lower-case name> with exactly these five
 * columns, in this order, all NOT NULL, the keys COLLATE "C", and the primary key
 * (partition_key, row_key). create_table's DDL (tablestore.sql) writes this layout; every path
 * that reads or writes a table - the functions' SQL statements, the direct path, queries,
 * batches and the stamp trigger - checks a relation against it with ts_layout_problem() before
 * it reads a column, so a view, a table altered by hand or a planted relation is an error, never
 * a wrong read.
 */
#ifndef TABLE_LAYOUT_H
#define TABLE_LAYOUT_H

#include "postgres.h"

#include "utils/relcache.h"

#define Natts_tablestore_table			5
#define Anum_tablestore_partition_key	1
#define Anum_tablestore_row_key			2
#define Anum_tablestore_timestamp		3
#define Anum_tablestore_etag			4
#define Anum_tablestore_properties		5

/* 0-based positions in a row's values[] and nulls[] */
#define TS_COL_PK		(Anum_tablestore_partition_key - 1)
#define TS_COL_RK		(Anum_tablestore_row_key - 1)
#define TS_COL_TS		(Anum_tablestore_timestamp - 1)
#define TS_COL_ETAG		(Anum_tablestore_etag - 1)
#define TS_COL_PROPS	(Anum_tablestore_properties - 1)

/* The five columns in layout order, for the SQL statements that read whole rows. */
#define TS_ROW_COLUMNS "partition_key, row_key, \"timestamp\", etag, properties"

/* Column names in layout order. */
extern const char *const ts_column_names[Natts_tablestore_table];

/*
 * NULL when the relation has the layout; else what differs, in a short sentence for an error
 * detail. The answer is kept per relation until its relcache entry is invalidated, so the check
 * costs one hash lookup per call. The caller holds a lock on the relation.
 */
extern const char *ts_layout_problem(Relation rel);

/* Raise TSX02 ("the relation is not a tablestore table") when the relation fails the check. */
extern void ts_layout_require(Relation rel);

#endif							/* TABLE_LAYOUT_H */
