/*
 * tablestore.c - the module's entry point: the magic block and _PG_init (settings).
 */
#include "postgres.h"

#include "fast_path.h"
#include "fmgr.h"
#include "query.h"
#include "utils/guc.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

void
_PG_init(void)
{
	DefineCustomBoolVariable("tablestore.fast_path",
							 "Runs single-entity operations directly on the primary key where that keeps SQL's semantics.",
							 "When off, every operation runs as a prepared SQL statement. Both give the same results.",
							 &ts_fast_path_enabled, true, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("tablestore.max_filter_comparisons",
							"The most comparisons a $filter may hold.",
							"Azure Table storage allows 15.",
							&ts_max_filter_comparisons, 15, 1, 10000, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("tablestore.query_time_budget",
							"How long query_page may scan before it returns a partial page with a continuation.",
							"A page also stops before 80% of statement_timeout.",
							&ts_query_time_budget_ms, 5000, 0, PG_INT32_MAX, PGC_USERSET, GUC_UNIT_MS, NULL, NULL, NULL);
	MarkGUCPrefixReserved("tablestore");
}
