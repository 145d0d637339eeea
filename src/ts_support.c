/*
 * ts_support.c - helpers shared by the SQL-callable functions (ts_support.h).
 */
#include "ts_support.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "plan_cache.h"
#include "ts_report.h"
#include "utils/builtins.h"

void
ts_require_arg(FunctionCallInfo fcinfo, int n, const char *name)
{
	if (PG_ARGISNULL(n))
		ts_raisef(TSE_INVALID_INPUT, "%s must not be NULL", name);
}

const char *
ts_keys_excerpt(const text *pk, const text *rk)
{
	char		a[TS_EXCERPT_BUF],
				b[TS_EXCERPT_BUF];

	return psprintf("(\"%s\", \"%s\")",
					ts_excerpt(a, sizeof(a), VARDATA_ANY(pk), VARSIZE_ANY_EXHDR(pk)),
					ts_excerpt(b, sizeof(b), VARDATA_ANY(rk), VARSIZE_ANY_EXHDR(rk)));
}

const char *
ts_operation_prefix(char *buf, int index)
{
	snprintf(buf, TS_OPERATION_PREFIX_BUF, TS_OPERATION_PREFIX "%d: ", index);
	return buf;
}

void
ts_spi_begin(void)
{
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "tablestore: SPI_connect failed");
	ts_plan_cache_begin();
}

void
ts_spi_end(void)
{
	ts_plan_cache_end();
	SPI_finish();
}

void
ts_run_sql(const char *sql, int nargs, const char *const *args, int expect)
{
	Oid			types[2] = {TEXTOID, TEXTOID};
	Datum		values[2];

	for (int i = 0; i < nargs; i++)
		values[i] = CStringGetTextDatum(args[i]);
	if (SPI_execute_with_args(sql, nargs, types, values, NULL, false, 0) != expect)
		elog(ERROR, "tablestore: \"%s\" failed", sql);
}
