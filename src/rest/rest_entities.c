/*
 * rest_entities.c - the REST functions of entity calls (doc/gateway.md): rest_insert_entity,
 * rest_write_entity (Update, Merge and the two upserts), rest_get_entity and rest_query_entities.
 * The operations themselves are entity_dml.c's and query_page.c's; these take the request's
 * parts (keys from the URL, the body's text) and render the answer's body.
 */
#include "rest.h"
#include "remote_call.h"

#include "entity_dml.h"
#include "key_scope.h"
#include "query.h"
#include "query_page.h"
#include "select_list.h"
#include "table_layout.h"
#include "ts_report.h"
#include "ts_support.h"
#include "utils/builtins.h"

/* A request body as an entity (the service's JSON); raises the entity's errors. */
static Entity *
body_entity(text *body)
{
	TsError		err = {0};
	Entity	   *e;

	ts_require_utf8();
	e = entity_from_json(VARDATA_ANY(body), VARSIZE_ANY_EXHDR(body), &err);
	if (e == NULL)
		ts_raise(&err);
	return e;
}

/* An entity's properties and the keys of its URL: keys in the body must be the URL's. */
static void
url_entity(text *pk, text *rk, text *body, EntityArg *ea)
{
	EntityView	v;
	EntityKeys	keys = {.has_pk = true, .has_rk = true};
	TsError		err = {0};
	Entity	   *e;

	entity_dml_check_keys(pk, rk);
	e = body_entity(body);
	entity_view_of(&v, e);
	if ((v.keys.has_pk && (v.keys.pk_len != VARSIZE_ANY_EXHDR(pk) || memcmp(v.keys.pk, VARDATA_ANY(pk), v.keys.pk_len) != 0)) ||
		(v.keys.has_rk && (v.keys.rk_len != VARSIZE_ANY_EXHDR(rk) || memcmp(v.keys.rk, VARDATA_ANY(rk), v.keys.rk_len) != 0)))
		ts_raisef(TSE_INVALID_KEY, "the keys in the body are not the keys in the URL");
	ea->pk = pk;
	ea->rk = rk;
	ea->props = (v.keys.has_pk || v.keys.has_rk) ? entity_without_keys(&v, &err) : e;
	if (ea->props == NULL)
		ts_raise(&err);
	/* the size counts the keys, which may not have been in the body */
	entity_view_of(&v, ea->props);
	keys.pk = VARDATA_ANY(pk);
	keys.pk_len = VARSIZE_ANY_EXHDR(pk);
	keys.rk = VARDATA_ANY(rk);
	keys.rk_len = VARSIZE_ANY_EXHDR(rk);
	if (!entity_check_size(&v, &keys, &err))
		ts_raise(&err);
}

/* Raise AuthorizationFailure unless the keys are inside the call's key_scope (argument argno). */
static void
check_scope(FunctionCallInfo fcinfo, int argno, const text *pk, const text *rk)
{
	KeyScope	ks;

	if (key_scope_from_arg(fcinfo, argno, &ks))
		key_scope_check(&ks, pk, rk);
}

/*
 * tablestore.rest_insert_entity(tbl, body, echo, metadata, base, account, key_scope)
 *   -> (etag, partition_key, row_key, body): Insert Entity; body is the entity when echo
 */
PG_FUNCTION_INFO_V1(tablestore_rest_insert_entity);
Datum
tablestore_rest_insert_entity(PG_FUNCTION_ARGS)
{
	TsTable		t;
	EntityArg	ea;
	WriteStamp	w;
	RestTarget	rt;
	Datum		values[4];
	bool		nulls[4] = {false, false, false, true};

	ts_require_arg(fcinfo, 0, "tbl");
	ts_require_arg(fcinfo, 1, "body");
	ts_table_resolve(PG_GETARG_TEXT_PP(0), &t);
	rest_target_from_args(fcinfo, 3, &rt);
	entity_dml_split(body_entity(PG_GETARG_TEXT_PP(1)), &ea);
	check_scope(fcinfo, 6, ea.pk, ea.rk);
	TS_FORWARD_IF_REMOTE(fcinfo, &t, ea.pk, ACL_INSERT, true);
	w = entity_dml_insert(&t, &ea);
	values[0] = PointerGetDatum(w.etag);
	values[1] = PointerGetDatum(ea.pk);
	values[2] = PointerGetDatum(ea.rk);
	if (!PG_ARGISNULL(2) && PG_GETARG_BOOL(2))
	{
		RowJson		r;
		EntityView	v;

		rest_written_row(ea.pk, ea.rk, &w, ea.props, &r, &v);
		values[3] = PointerGetDatum(rest_entity_body(&rt, rest_table_name(fcinfo, 0), &r, NULL));
		nulls[3] = false;
	}
	PG_RETURN_DATUM(rest_result(fcinfo, values, nulls));
}

/*
 * tablestore.rest_write_entity(tbl, partition_key, row_key, body, merge, if_match, key_scope) -> etag:
 * Update or Merge Entity under if_match, or without one Insert Or Replace / Insert Or Merge.
 */
PG_FUNCTION_INFO_V1(tablestore_rest_write_entity);
Datum
tablestore_rest_write_entity(PG_FUNCTION_ARGS)
{
	TsTable		t;
	EntityArg	ea;
	bool		merge;

	ts_require_arg(fcinfo, 0, "tbl");
	ts_require_arg(fcinfo, 1, "partition_key");
	ts_require_arg(fcinfo, 2, "row_key");
	ts_require_arg(fcinfo, 3, "body");
	ts_require_arg(fcinfo, 4, "merge");
	ts_table_resolve(PG_GETARG_TEXT_PP(0), &t);
	url_entity(PG_GETARG_TEXT_PP(1), PG_GETARG_TEXT_PP(2), PG_GETARG_TEXT_PP(3), &ea);
	check_scope(fcinfo, 6, ea.pk, ea.rk);
	merge = PG_GETARG_BOOL(4);
	TS_FORWARD_IF_REMOTE(fcinfo, &t, ea.pk, PG_ARGISNULL(5) ? ACL_INSERT | ACL_UPDATE : ACL_UPDATE | ACL_SELECT, true);
	if (PG_ARGISNULL(5))
		PG_RETURN_TEXT_P(entity_dml_upsert(&t, &ea, merge).etag);
	PG_RETURN_TEXT_P(entity_dml_update(&t, &ea, merge, PG_GETARG_TEXT_PP(5)).etag);
}

/*
 * tablestore.rest_get_entity(tbl, partition_key, row_key, "select", metadata, base, account, key_scope)
 *   -> (etag, body): Query Entities by its keys (a point read)
 */
PG_FUNCTION_INFO_V1(tablestore_rest_get_entity);
Datum
tablestore_rest_get_entity(PG_FUNCTION_ARGS)
{
	TsTable		t;
	RestTarget	rt;
	SelectList *sel;
	Datum		row[Natts_tablestore_table];
	bool		row_nulls[Natts_tablestore_table];
	RowJson		r;
	EntityView	v;
	RowStamp	rs;
	Datum		values[2];
	bool		nulls[2] = {false, false};

	ts_require_arg(fcinfo, 0, "tbl");
	ts_require_arg(fcinfo, 1, "partition_key");
	ts_require_arg(fcinfo, 2, "row_key");
	ts_table_resolve(PG_GETARG_TEXT_PP(0), &t);
	sel = select_list_parse(PG_ARGISNULL(3) ? NULL : PG_GETARG_TEXT_PP(3));
	rest_target_from_args(fcinfo, 4, &rt);
	check_scope(fcinfo, 7, PG_GETARG_TEXT_PP(1), PG_GETARG_TEXT_PP(2));
	TS_FORWARD_IF_REMOTE(fcinfo, &t, PG_GETARG_TEXT_PP(1), ACL_SELECT, false);
	entity_dml_get(&t, PG_GETARG_TEXT_PP(1), PG_GETARG_TEXT_PP(2), row, row_nulls);
	rest_row_of(row, &r, &v, &rs);
	values[0] = PointerGetDatum(etag_row_stamp_text(&rs));
	values[1] = PointerGetDatum(rest_entity_body(&rt, rest_table_name(fcinfo, 0), &r, sel));
	PG_RETURN_DATUM(rest_result(fcinfo, values, nulls));
}

/*
 * tablestore.rest_query_entities(tbl, filter, "select", top, next_partition_key, next_row_key,
 *   metadata, base, account, key_scope) -> (body, next_partition_key, next_row_key): one page of
 *   Query Entities; top NULL is 1000; the continuation is NULL on the last page; a key_scope
 *   joins the filter, so the page and its continuation stay inside the range
 */
PG_FUNCTION_INFO_V1(tablestore_rest_query_entities);
Datum
tablestore_rest_query_entities(PG_FUNCTION_ARGS)
{
	TsTable		t;
	OdFilter	f;
	SelectList *sel;
	RestTarget	rt;
	PageCollector pc;
	JsonTextSink sink;
	StringInfoData out;
	const char *table;
	int			top;
	Datum		values[3];
	bool		nulls[3] = {false, true, true};

	KeyScope	ks;

	top = ts_query_args(fcinfo, 5, true, &t, &f, &sel);
	if (OidIsValid(t.remote))
		return ts_forward_call(fcinfo, t.remote, false);
	if (key_scope_from_arg(fcinfo, 9, &ks))
		key_scope_translate(&ks, PG_ARGISNULL(1) ? NULL : PG_GETARG_TEXT_PP(1), &f, 5);
	ts_query_check_continuation(fcinfo, 4);
	rest_target_from_args(fcinfo, 6, &rt);
	table = rest_table_name(fcinfo, 0);
	initStringInfo(&out);
	json_text_sink_init(&sink, &out);
	page_collector_init(&pc, &sink.pub, top < 0 ? TS_PAGE_MAX : top);
	pc.ctx.metadata = rt.metadata;
	pc.ctx.sel = sel;
	pc.ctx.base = rt.base;
	pc.ctx.account = rt.account;
	pc.ctx.table = table;

	sink.pub.begin(&sink.pub, true);
	if (rt.metadata != JSON_META_NONE)
	{
		char	   *url = psprintf("%s/$metadata#%s", rt.base, table);

		json_sink_member(&sink.pub, "odata.metadata", JSON_VALUE_STRING, url, strlen(url));
	}
	sink.pub.key(&sink.pub, "value", 5);
	sink.pub.begin(&sink.pub, false);
	page_collect(&pc, &t, &f, PG_ARGISNULL(4) ? cstring_to_text("") : PG_GETARG_TEXT_PP(4),
				 PG_ARGISNULL(5) ? cstring_to_text("") : PG_GETARG_TEXT_PP(5));
	sink.pub.end(&sink.pub, false);
	sink.pub.end(&sink.pub, true);

	values[0] = PointerGetDatum(cstring_to_text_with_len(out.data, out.len));
	if (pc.next_pk != NULL)
	{
		values[1] = PointerGetDatum(pc.next_pk);
		values[2] = PointerGetDatum(pc.next_rk);
		nulls[1] = nulls[2] = false;
	}
	PG_RETURN_DATUM(rest_result(fcinfo, values, nulls));
}

/*
 * tablestore.rest_delete_entity(tbl, partition_key, row_key, if_match, key_scope): Delete Entity
 * (delete_entity with the call's key range)
 */
PG_FUNCTION_INFO_V1(tablestore_rest_delete_entity);
Datum
tablestore_rest_delete_entity(PG_FUNCTION_ARGS)
{
	TsTable		t;

	entity_dml_delete_args(fcinfo, &t);
	check_scope(fcinfo, 4, PG_GETARG_TEXT_PP(1), PG_GETARG_TEXT_PP(2));
	TS_FORWARD_IF_REMOTE(fcinfo, &t, PG_GETARG_TEXT_PP(1), ACL_DELETE | ACL_SELECT, true);
	entity_dml_delete(&t, PG_GETARG_TEXT_PP(1), PG_GETARG_TEXT_PP(2), PG_GETARG_TEXT_PP(3));
	PG_RETURN_VOID();
}
