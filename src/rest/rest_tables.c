/*
 * rest_tables.c - the REST functions of table calls (doc/gateway.md): rest_create_table and
 * rest_query_tables. Delete Table is drop_table itself.
 */
#include "rest.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "json_lex.h"
#include "odata.h"
#include "entity_index.h"
#include "query.h"
#include "table_commands.h"
#include "ts_report.h"
#include "ts_support.h"
#include "utils/builtins.h"


/* A table as an element of a Tables answer: {"TableName": ...} with full metadata's links. */
static void
write_table(JsonSink *s, const RestTarget *rt, const char *name, const char *metadata_url)
{
	s->begin(s, true);
	if (metadata_url != NULL && rt->metadata != JSON_META_NONE)
		json_sink_member(s, "odata.metadata", JSON_VALUE_STRING, metadata_url, strlen(metadata_url));
	if (rt->metadata == JSON_META_FULL)
	{
		char	   *type = psprintf("%s.Tables", rt->account);
		char	   *id = psprintf("%s/Tables('%s')", rt->base, name);
		char	   *edit = psprintf("Tables('%s')", name);

		json_sink_member(s, "odata.type", JSON_VALUE_STRING, type, strlen(type));
		json_sink_member(s, "odata.id", JSON_VALUE_STRING, id, strlen(id));
		json_sink_member(s, "odata.editLink", JSON_VALUE_STRING, edit, strlen(edit));
	}
	json_sink_member(s, "TableName", JSON_VALUE_STRING, name, strlen(name));
	s->end(s, true);
}

/* The TableName of a Create Table body {"TableName":"..."} (other members are ignored). */
static char *
table_name_of(text *body)
{
	JsonLex		lx;
	JsonToken	t;
	TsError		err = {0};
	char	   *name = NULL;

	json_lex_init(&lx, VARDATA_ANY(body), VARSIZE_ANY_EXHDR(body), &err, TSE_INVALID_INPUT,
				  "the request body is not valid JSON");
	if (!json_expect(&lx, &t, JT_LBRACE, "a JSON object {\"TableName\": ...} was expected"))
		ts_raise(&err);
	for (bool first = true;;)
	{
		JsonToken	key;
		bool		is_name;

		if (!json_next_member(&lx, &first, &key, true))
			ts_raise(&err);
		if (key.kind == JT_RBRACE)
			break;
		is_name = key.len == 9 && memcmp(key.p, "TableName", 9) == 0;
		if (is_name && name != NULL)
			ts_raisef(TSE_DUPLICATE_PROPERTY, "the request body gives TableName twice");
		if (is_name)
		{
			if (!json_next(&lx, &t) || (t.kind != JT_STRING && !json_error(&lx, t.pos, "TableName must be a string")) ||
				!json_decode_string(&lx, &t))
				ts_raise(&err);
			/* the naming rule on every decoded byte: a "\u0000" inside would end a C string early */
			ts_table_check_name(t.p, (int) t.len);
			name = pnstrdup(t.p, t.len);
		}
		else if (!json_skip_value(&lx, JSON_MAX_DEPTH, NULL))
			ts_raise(&err);
	}
	if (json_peek(&lx) != '\0')
	{
		json_error(&lx, lx.i, "unexpected text after the object");
		ts_raise(&err);
	}
	if (name == NULL)
		ts_raisef(TSE_INVALID_INPUT, "the request body names no TableName");
	return name;
}

/*
 * tablestore.rest_create_table(body, metadata, base, account, indexing_policy) -> (table_name,
 * body): Create Table from its request body, with an indexing policy (JSON text; NULL or absent,
 * as in the 4-argument form of 0.1.0 and 0.2.0: the default); the answer's body names the table
 */
PG_FUNCTION_INFO_V1(tablestore_rest_create_table);
Datum
tablestore_rest_create_table(PG_FUNCTION_ARGS)
{
	RestTarget	rt;
	char	   *name;
	StringInfoData out;
	JsonTextSink sink;
	Datum		values[2];
	bool		nulls[2] = {false, false};
	IndexPolicy policy;
	bool		has_policy = PG_NARGS() > 4 && !PG_ARGISNULL(4);

	ts_require_arg(fcinfo, 0, "body");
	rest_target_from_args(fcinfo, 1, &rt);
	name = table_name_of(PG_GETARG_TEXT_PP(0));
	if (has_policy)
		ts_index_policy_parse(VARDATA_ANY(PG_GETARG_TEXT_PP(4)), VARSIZE_ANY_EXHDR(PG_GETARG_TEXT_PP(4)), &policy);
	(void) ts_create_table(cstring_to_text(name), has_policy ? &policy : NULL);
	initStringInfo(&out);
	json_text_sink_init(&sink, &out);
	write_table(&sink.pub, &rt, name, psprintf("%s/$metadata#Tables/@Element", rt.base));
	values[0] = CStringGetTextDatum(name);
	values[1] = PointerGetDatum(cstring_to_text_with_len(out.data, out.len));
	PG_RETURN_DATUM(rest_result(fcinfo, values, nulls));
}

/*
 * tablestore.rest_query_tables(filter, top, next_table_name, metadata, base, account)
 *   -> (body, next_table_name): one page of Query Tables, in the order of the names ignoring
 *   case; the filter is on TableName (any other property is absent); top NULL is 1000
 */
PG_FUNCTION_INFO_V1(tablestore_rest_query_tables);
Datum
tablestore_rest_query_tables(PG_FUNCTION_ARGS)
{
	RestTarget	rt;
	OdNode	   *filter = NULL;
	int			top;
	StringInfoData out;
	JsonTextSink sink;
	Datum		values[2];
	bool		nulls[2] = {false, true};
	Datum		from;
	int			count = 0;
	MemoryContext outer = CurrentMemoryContext;

	if (!PG_ARGISNULL(0))
	{
		text	   *ft = PG_GETARG_TEXT_PP(0);
		TsError		err = {0};
		int			ncmp;

		if (VARSIZE_ANY_EXHDR(ft) > 0 &&
			(filter = odata_parse(VARDATA_ANY(ft), VARSIZE_ANY_EXHDR(ft), ts_max_filter_comparisons, &ncmp, &err)) == NULL)
			ts_raise(&err);
	}
	top = ts_query_top(fcinfo, 1, true);
	if (top < 0)
		top = TS_PAGE_MAX;
	rest_target_from_args(fcinfo, 3, &rt);
	from = PG_ARGISNULL(2) ? CStringGetTextDatum("") : PointerGetDatum(PG_GETARG_TEXT_PP(2));

	initStringInfo(&out);
	json_text_sink_init(&sink, &out);
	sink.pub.begin(&sink.pub, true);
	if (rt.metadata != JSON_META_NONE)
	{
		char	   *url = psprintf("%s/$metadata#Tables", rt.base);

		json_sink_member(&sink.pub, "odata.metadata", JSON_VALUE_STRING, url, strlen(url));
	}
	sink.pub.key(&sink.pub, "value", 5);
	sink.pub.begin(&sink.pub, false);
	ts_spi_begin();
	/* the registry, from the continuation on, in the order of the names ignoring case */
	if (SPI_execute_with_args("SELECT r.name FROM tablestore.tables r "
							  "WHERE r.key OPERATOR(pg_catalog.>=) pg_catalog.lower($1) "
							  "AND pg_catalog.to_regclass('tablestore_data.' OPERATOR(pg_catalog.||) pg_catalog.quote_ident(r.key)) IS NOT NULL "
							  "ORDER BY r.key, r.name",
							  1, (Oid[]) {TEXTOID}, &from, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "tablestore: reading the table registry failed");
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		char	   *name = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1);

		CHECK_FOR_INTERRUPTS();
		if (filter != NULL && !odata_eval_string(filter, "TableName", 9, name, strlen(name)))
			continue;
		if (count == top)
		{
			MemoryContext old = MemoryContextSwitchTo(outer);	/* (it outlives SPI) */

			values[1] = CStringGetTextDatum(name);
			nulls[1] = false;
			MemoryContextSwitchTo(old);
			break;
		}
		write_table(&sink.pub, &rt, name, NULL);
		count++;
	}
	ts_spi_end();
	sink.pub.end(&sink.pub, false);
	sink.pub.end(&sink.pub, true);
	values[0] = PointerGetDatum(cstring_to_text_with_len(out.data, out.len));
	PG_RETURN_DATUM(rest_result(fcinfo, values, nulls));
}

/*
 * tablestore.rest_get_table(table_name, metadata, base, account) -> body: GET Tables('name'), the
 * one table under the name it was created with; TableNotFound when there is none
 */
PG_FUNCTION_INFO_V1(tablestore_rest_get_table);
Datum
tablestore_rest_get_table(PG_FUNCTION_ARGS)
{
	RestTarget	rt;
	TsTable		t;
	const char *name;
	StringInfoData out;
	JsonTextSink sink;
	Datum		key;
	MemoryContext outer = CurrentMemoryContext;

	ts_require_arg(fcinfo, 0, "table_name");
	rest_target_from_args(fcinfo, 1, &rt);
	ts_table_resolve(PG_GETARG_TEXT_PP(0), &t);
	name = text_to_cstring(PG_GETARG_TEXT_PP(0));
	key = CStringGetTextDatum(t.key);
	ts_spi_begin();
	if (SPI_execute_with_args("SELECT r.name FROM tablestore.tables r WHERE r.key OPERATOR(pg_catalog.=) $1",
							  1, (Oid[]) {TEXTOID}, &key, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "tablestore: reading the table registry failed");
	if (SPI_processed == 1)
		name = MemoryContextStrdup(outer, SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1));
	ts_spi_end();
	initStringInfo(&out);
	json_text_sink_init(&sink, &out);
	write_table(&sink.pub, &rt, name, psprintf("%s/$metadata#Tables/@Element", rt.base));
	PG_RETURN_TEXT_P(cstring_to_text_with_len(out.data, out.len));
}
