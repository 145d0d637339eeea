/*
 * rest_common.c - what the REST functions share (rest.h).
 */
#include "rest.h"

#include "access/htup_details.h"
#include "entity.h"
#include "etag.h"
#include "funcapi.h"
#include "table_layout.h"
#include "ts_report.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

void
rest_target_from_args(FunctionCallInfo fcinfo, int arg, RestTarget *r)
{
	r->metadata = JSON_META_MINIMAL;
	if (!PG_ARGISNULL(arg))
	{
		text	   *m = PG_GETARG_TEXT_PP(arg);

		if (!row_json_metadata_from_name(VARDATA_ANY(m), VARSIZE_ANY_EXHDR(m), &r->metadata))
			ts_raisef(TSE_INVALID_INPUT, "the metadata level is nometadata, minimalmetadata or fullmetadata");
	}
	r->base = PG_ARGISNULL(arg + 1) ? "" : text_to_cstring(PG_GETARG_TEXT_PP(arg + 1));
	r->account = PG_ARGISNULL(arg + 2) ? "" : text_to_cstring(PG_GETARG_TEXT_PP(arg + 2));
}

Datum
rest_result(FunctionCallInfo fcinfo, Datum *values, bool *nulls)
{
	TupleDesc	desc;

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "tablestore: a REST function must return a composite type");
	return HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls));
}

void
rest_row_of(const Datum *values, RowJson *r, EntityView *v, RowStamp *rs)
{
	text	   *pk = DatumGetTextPP(values[TS_COL_PK]);
	text	   *rk = DatumGetTextPP(values[TS_COL_RK]);

	entity_view_of(v, DatumGetEntityPP(values[TS_COL_PROPS]));
	etag_row_stamp(DatumGetTimestampTz(values[TS_COL_TS]), DatumGetTextPP(values[TS_COL_ETAG]), rs);
	r->pk = VARDATA_ANY(pk);
	r->pk_len = VARSIZE_ANY_EXHDR(pk);
	r->rk = VARDATA_ANY(rk);
	r->rk_len = VARSIZE_ANY_EXHDR(rk);
	r->ts_ticks = rs->ticks;
	r->etag = rs->etag;
	r->etag_len = rs->etag_len;
	r->props = v;
}

void
rest_written_row(text *pk, text *rk, const WriteStamp *w, Entity *props, RowJson *r, EntityView *v)
{
	entity_view_of(v, props);
	r->pk = VARDATA_ANY(pk);
	r->pk_len = VARSIZE_ANY_EXHDR(pk);
	r->rk = VARDATA_ANY(rk);
	r->rk_len = VARSIZE_ANY_EXHDR(rk);
	r->ts_ticks = w->ticks;
	r->etag = VARDATA_ANY(w->etag);
	r->etag_len = VARSIZE_ANY_EXHDR(w->etag);
	r->props = v;
}

text *
rest_entity_body(const RestTarget *rt, const char *table, const RowJson *r, const SelectList *sel)
{
	StringInfoData out;
	JsonTextSink sink;
	RowJsonContext c = {0};
	char	   *metadata_url = psprintf("%s/$metadata#%s/@Element", rt->base, table);

	c.metadata = rt->metadata;
	c.sel = sel;
	c.base = rt->base;
	c.account = rt->account;
	c.table = table;
	initStringInfo(&out);
	json_text_sink_init(&sink, &out);
	row_json_write(&sink.pub, &c, r, metadata_url);
	return cstring_to_text_with_len(out.data, out.len);
}

const char *
rest_table_name(FunctionCallInfo fcinfo, int arg)
{
	return text_to_cstring(PG_GETARG_TEXT_PP(arg));
}
