/*
 * query.h - what the query entry points (query.c) and pages (query_page.c) share: their settings,
 * the checked arguments, the filter's translation and parameters, and the statement settings.
 */
#ifndef QUERY_H
#define QUERY_H

#include "entity.h"

#include "fmgr.h"
#include "odata.h"
#include "select_list.h"
#include "ts_protocol.h"
#include "ts_table.h"

#define TS_KEY_ORDER "ORDER BY partition_key, row_key"

extern int	ts_max_filter_comparisons;	/* tablestore.max_filter_comparisons */
extern int	ts_query_time_budget_ms;	/* tablestore.query_time_budget */

/* The settings of each file, defined from _PG_init. */
extern void ts_query_init(void);
extern void ts_query_page_init(void);

/*
 * Translate a $filter (NULL: everything) for a table (NULL: none) by its indexing policy;
 * param_base as for odata_translate.
 */
extern void ts_query_translate(text *filter, OdFilter *f, int param_base, const TsTable *t);

/* The cursor options of a filter's statement: a custom plan when the entity index may serve it. */
extern int	ts_query_cursor_options(const OdFilter *f, int options);

/*
 * The same filter with its literals written into the SQL (no parameters): a filter the entity
 * index may serve is planned for its values, and such a plan is kept by the plan cache for the
 * next query with the same filter.
 */
extern void ts_query_inline(const OdFilter *f, OdFilter *out);

/*
 * The condition "(partition_key, row_key) >= (pk, rk)" (SQL expressions) into sql. On a
 * distributed table it is written out as partition_key >= pk AND (partition_key > pk OR row_key
 * >= rk), which postgres_fdw sends to the nodes (a row comparison it does not).
 */
extern void ts_append_key_position(StringInfo sql, const TsTable *t, const char *pk, const char *rk);

/* The SQL type and value of each recorded parameter, after the first `base` slots. */
extern void ts_query_bind_params(const OdFilter *f, int base, Oid *types, Datum *values);

/*
 * $top in argument argno: 0 to 1000 (0, which Storage Explorer sends, is an empty page: a page's
 * continuation is then the first entity that would come); -1 when NULL and allow_null.
 */
extern int	ts_query_top(FunctionCallInfo fcinfo, int argno, bool allow_null);

/*
 * The arguments (tbl, filter, "select", top) that query_entities and query_page share, checked:
 * the table, the filter translated with its parameters numbered after param_base, the $select
 * list; returns $top (-1 when NULL and top_optional).
 */
extern int	ts_query_args(FunctionCallInfo fcinfo, int param_base, bool top_optional, TsTable *t,
						  OdFilter *f, SelectList **sel);

/* The continuation in arguments arg (NextPartitionKey) and arg + 1 (NextRowKey), checked. */
extern void ts_query_check_continuation(FunctionCallInfo fcinfo, int arg);

/*
 * Settings for the statements of one call, undone by AtEOXact_GUC(true, level) or on error:
 * search_path = pg_catalog, pg_temp, jit = off, and, for a dense filter, no bitmap scan and no sort.
 */
extern int	ts_query_settings_begin(const OdFilter *f);

/* A literal's string as text (NULL for NULL). */
extern text *ts_literal_text(const OdLiteral *lit);

#endif							/* QUERY_H */
