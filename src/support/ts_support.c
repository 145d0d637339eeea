/*
 * ts_support.c - helpers shared by the SQL-callable functions (ts_support.h).
 */
#include "ts_support.h"

#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "plan_cache.h"
#include "ts_report.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/syscache.h"

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

/* ---------- the OIDs of the extension's types ---------- */

static const char *const type_names[TS_TYPE__COUNT] = {"entity", "property_filter"};
static Oid	type_oids[TS_TYPE__COUNT];

static void
forget_type_oids(Datum arg, int cacheid, uint32 hashvalue)
{
	memset(type_oids, 0, sizeof(type_oids));
}

Oid
ts_type_oid(TsType t)
{
	static bool callback_registered = false;

	Assert(t >= 0 && t < TS_TYPE__COUNT);
	if (!OidIsValid(type_oids[t]))
	{
		Oid			nsp = get_namespace_oid("tablestore", false);
		Oid			oid;

		if (!callback_registered)
		{
			CacheRegisterSyscacheCallback(TYPEOID, forget_type_oids, (Datum) 0);
			callback_registered = true;
		}
		oid = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid, CStringGetDatum(type_names[t]), ObjectIdGetDatum(nsp));
		if (!OidIsValid(oid))
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_OBJECT),
					 errmsg("type tablestore.%s does not exist", type_names[t]),
					 errhint("The extension's SQL objects do not match its library: ALTER EXTENSION tablestore UPDATE.")));
		type_oids[t] = oid;
	}
	return type_oids[t];
}
