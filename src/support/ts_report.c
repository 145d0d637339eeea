/*
 * ts_report.c - turning a TsError into ereport(ERROR), and tablestore.error_codes().
 */
#include "ts_report.h"

#include "fmgr.h"
#include "funcapi.h"
#include "utils/builtins.h"

int
ts_error_sqlstate_int(TsErrorCode code)
{
	const char *s = ts_error_sqlstate(code);

	return MAKE_SQLSTATE(s[0], s[1], s[2], s[3], s[4]);
}

void
ts_raise_prefixed(const TsError *err, const char *prefix)
{
	TsErrorCode code = err->code == TSE_NONE ? TSE_INVALID_INPUT : err->code;

	ereport(ERROR,
			(errcode(ts_error_sqlstate_int(code)),
			 errmsg("%s%s: %s", prefix ? prefix : "", ts_error_service_code(code), err->msg),
			 err->detail[0] ? errdetail("%s", err->detail) : 0));
	pg_unreachable();
}

/*
 * A BEFORE ROW trigger of the user's returned NULL, so the row was not written: not a condition
 * of the service, so PostgreSQL's own SQLSTATE for trigger outcomes.
 */
void
ts_raise_write_cancelled(const char *prefix)
{
	ereport(ERROR,
			(errcode(ERRCODE_TRIGGERED_ACTION_EXCEPTION),
			 errmsg("%sa trigger cancelled the write", prefix ? prefix : ""),
			 errdetail("A BEFORE ROW trigger on the table returned NULL, so the entity was not written.")));
	pg_unreachable();
}

void
ts_raise(const TsError *err)
{
	ts_raise_prefixed(err, NULL);
}

void
ts_raisef(TsErrorCode code, const char *fmt,...)
{
	TsError		err = {0};
	va_list		ap;

	err.code = code;
	va_start(ap, fmt);
	ts_vformat(err.msg, sizeof(err.msg), fmt, ap);
	va_end(ap);
	ts_raise(&err);
}

PG_FUNCTION_INFO_V1(tablestore_error_codes);

/* tablestore.error_codes() -> setof (sqlstate text, code text, description text) */
Datum
tablestore_error_codes(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, 0);
	for (int c = TSE_NONE + 1; c < TSE__COUNT; c++)
	{
		Datum		values[3];
		bool		nulls[3] = {false, false, false};

		values[0] = CStringGetTextDatum(ts_error_sqlstate(c));
		values[1] = CStringGetTextDatum(ts_error_service_code(c));
		values[2] = CStringGetTextDatum(ts_error_description(c));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
