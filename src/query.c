/*
 * query.c - odata_to_sql, query_entities and query_page (SPEC §5, §11).
 *
 * Results are always in (PartitionKey, RowKey) order: every query orders by the primary key, so
 * $top stops after n rows of an index scan. A continuation is the key pair of the next entity;
 * a page resumes with the row comparison (partition_key, row_key) >= (next), an index condition.
 *
 * query_page bounds its time (tablestore.query_time_budget, and below statement_timeout): a
 * filter whose matches are not simply a key range is scanned in chunks of the key order, each
 * ended by a probe of the primary key, so that when time runs out the page stops at a real
 * entity with a continuation - a partial page, never a timeout error.
 */
#include "entity.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "odata.h"
#include "query.h"
#include "select_list.h"
#include "ts_table.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "storage/proc.h"
#include "utils/timestamp.h"

int			ts_max_filter_comparisons = ODATA_DEFAULT_MAX_COMPARISONS;
int			ts_query_time_budget_ms = 5000;

#define ROW_COLUMNS "partition_key, row_key, \"timestamp\", etag, properties"
#define KEY_ORDER "ORDER BY partition_key, row_key"
#define PAGE_MAX 1000

static void
translate_or_raise(text *filter, OdFilter *f)
{
	TsError		err = {0};

	if (!odata_translate(filter ? VARDATA_ANY(filter) : "", filter ? VARSIZE_ANY_EXHDR(filter) : 0,
						 ts_max_filter_comparisons, f, &err))
		ts_raise(&err);
}

static int
check_top(FunctionCallInfo fcinfo, int argno, bool allow_null)
{
	int			top;

	if (PG_ARGISNULL(argno))
	{
		if (!allow_null)
			ts_raisef(TSE_QUERY_ARG, "$top must not be NULL");
		return -1;
	}
	top = PG_GETARG_INT32(argno);
	if (top < 1 || top > PAGE_MAX)
		ts_raisef(TSE_QUERY_ARG, "$top must be between 1 and %d, not %d", PAGE_MAX, top);
	return top;
}

static void
set_local(const char *name, const char *value)
{
	(void) set_config_option(name, value, PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
}

/*
 * Settings for the statements of one call, undone by AtEOXact_GUC(true, level) or on error:
 * search_path = pg_catalog, pg_temp, so that no schema of the caller's search_path can redirect
 * an operator or function of the generated SQL; and, for a dense filter (a partition and a RowKey
 * range), no bitmap scan and no sort, so the rows come from one ordered primary-key range scan.
 */
static int
begin_query_settings(const OdFilter *f)
{
	int			level = NewGUCNestLevel();

	set_local("search_path", "pg_catalog, pg_temp");
	if (f->dense && f->root != NULL)
	{
		set_local("enable_bitmapscan", "off");
		set_local("enable_sort", "off");
	}
	return level;
}

/* The statement query_entities runs (continuation, when given, as literals). */
static void
build_select(StringInfo sql, const TsTable *t, const OdFilter *f, int top, text *npk, text *nrk)
{
	appendStringInfo(sql, "SELECT " ROW_COLUMNS " FROM %s WHERE %s", t->qualified, f->sql->data);
	if (npk != NULL)
	{
		appendStringInfoString(sql, " AND (partition_key, row_key) >= (");
		odata_append_sql_literal(sql, VARDATA_ANY(npk), VARSIZE_ANY_EXHDR(npk));
		appendStringInfoString(sql, " COLLATE \"C\", ");
		if (nrk)
			odata_append_sql_literal(sql, VARDATA_ANY(nrk), VARSIZE_ANY_EXHDR(nrk));
		else
			appendStringInfoString(sql, "''");
		appendStringInfoString(sql, " COLLATE \"C\")");
	}
	appendStringInfoString(sql, " " KEY_ORDER);
	if (top > 0)
		appendStringInfo(sql, " LIMIT %d", top);
}

/* tablestore.query_sql(tbl, filter, top, next_partition_key, next_row_key): the SELECT a query runs. */
PG_FUNCTION_INFO_V1(tablestore_query_sql);
Datum
tablestore_query_sql(PG_FUNCTION_ARGS)
{
	TsTable		t;
	OdFilter	f;
	StringInfoData sql;
	int			top;

	if (PG_ARGISNULL(0))
		ts_raisef(TSE_INVALID_INPUT, "tbl must not be NULL");
	ts_table_resolve(PG_GETARG_TEXT_PP(0), &t);
	translate_or_raise(PG_ARGISNULL(1) ? NULL : PG_GETARG_TEXT_PP(1), &f);
	top = check_top(fcinfo, 2, true);
	if (PG_ARGISNULL(3) && !PG_ARGISNULL(4))
		ts_raisef(TSE_QUERY_ARG, "a continuation with NextRowKey needs NextPartitionKey");
	initStringInfo(&sql);
	build_select(&sql, &t, &f, top, PG_ARGISNULL(3) ? NULL : PG_GETARG_TEXT_PP(3),
				 PG_ARGISNULL(4) ? NULL : PG_GETARG_TEXT_PP(4));
	PG_RETURN_TEXT_P(cstring_to_text(sql.data));
}

/*
 * tablestore.explain_query(tbl, filter, top, next_partition_key, next_row_key): EXPLAIN (COSTS OFF)
 * of the statement a query runs, under the settings the query functions use.
 */
PG_FUNCTION_INFO_V1(tablestore_explain_query);
Datum
tablestore_explain_query(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	TsTable		t;
	OdFilter	f;
	StringInfoData sql;
	int			top;
	int			guc_level;

	if (PG_ARGISNULL(0))
		ts_raisef(TSE_INVALID_INPUT, "tbl must not be NULL");
	ts_table_resolve(PG_GETARG_TEXT_PP(0), &t);
	translate_or_raise(PG_ARGISNULL(1) ? NULL : PG_GETARG_TEXT_PP(1), &f);
	top = check_top(fcinfo, 2, true);
	if (PG_ARGISNULL(3) && !PG_ARGISNULL(4))
		ts_raisef(TSE_QUERY_ARG, "a continuation with NextRowKey needs NextPartitionKey");
	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	initStringInfo(&sql);
	appendStringInfoString(&sql, "EXPLAIN (COSTS OFF) ");
	build_select(&sql, &t, &f, top, PG_ARGISNULL(3) ? NULL : PG_GETARG_TEXT_PP(3),
				 PG_ARGISNULL(4) ? NULL : PG_GETARG_TEXT_PP(4));
	guc_level = begin_query_settings(&f);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "tablestore: SPI_connect failed");
	if (SPI_execute(sql.data, false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "tablestore: EXPLAIN failed");
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		bool		isnull;
		Datum		line = SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 1, &isnull);

		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, &line, &isnull);
	}
	SPI_finish();
	AtEOXact_GUC(true, guc_level);
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(tablestore_odata_to_sql);
Datum
tablestore_odata_to_sql(PG_FUNCTION_ARGS)
{
	OdFilter	f;

	translate_or_raise(PG_GETARG_TEXT_PP(0), &f);
	PG_RETURN_TEXT_P(cstring_to_text(f.sql->data));
}

/* ------------------------------------------------------------------ query_entities */

PG_FUNCTION_INFO_V1(tablestore_query_entities);
Datum
tablestore_query_entities(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	TsTable		t;
	OdFilter	f;
	SelectList *sel;
	int			top;
	StringInfoData sql;
	Portal		portal;
	SPIPlanPtr	plan;
	MemoryContext batch_cxt;
	int			guc_level;

	if (PG_ARGISNULL(0))
		ts_raisef(TSE_INVALID_INPUT, "tbl must not be NULL");
	ts_table_resolve(PG_GETARG_TEXT_PP(0), &t);
	translate_or_raise(PG_ARGISNULL(1) ? NULL : PG_GETARG_TEXT_PP(1), &f);
	sel = select_list_parse(PG_ARGISNULL(2) ? NULL : PG_GETARG_TEXT_PP(2));
	top = check_top(fcinfo, 3, true);

	InitMaterializedSRF(fcinfo, 0);
	initStringInfo(&sql);
	build_select(&sql, &t, &f, top, NULL, NULL);

	batch_cxt = AllocSetContextCreate(CurrentMemoryContext, "tablestore query batch", ALLOCSET_DEFAULT_SIZES);
	guc_level = begin_query_settings(&f);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "tablestore: SPI_connect failed");
	plan = SPI_prepare(sql.data, 0, NULL);
	if (plan == NULL)
		elog(ERROR, "tablestore: could not prepare the query: %s", SPI_result_code_string(SPI_result));
	portal = SPI_cursor_open(NULL, plan, NULL, NULL, true);
	for (;;)
	{
		SPI_cursor_fetch(portal, true, 1000);
		if (SPI_processed == 0)
			break;
		for (uint64 r = 0; r < SPI_processed; r++)
		{
			Datum		values[5];
			bool		nulls[5];
			MemoryContext old = MemoryContextSwitchTo(batch_cxt);

			CHECK_FOR_INTERRUPTS();
			heap_deform_tuple(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, values, nulls);
			if (sel != NULL && !nulls[4])
			{
				EntityView	v;

				entity_view_of(&v, DatumGetEntityPP(values[4]));
				values[4] = PointerGetDatum(entity_project(&v, sel));
			}
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
			MemoryContextSwitchTo(old);
			MemoryContextReset(batch_cxt);
		}
		SPI_freetuptable(SPI_tuptable);
	}
	SPI_cursor_close(portal);
	SPI_finish();
	AtEOXact_GUC(true, guc_level);
	MemoryContextDelete(batch_cxt);
	return (Datum) 0;
}

/* ------------------------------------------------------------------ query_page */

/* The page being built, as JSON text turned into jsonb at the end. */
typedef struct ResultPage
{
	StringInfoData json;
	int			count;
	SelectList *sel;
	MemoryContext outer;		/* the caller's context: what must outlive SPI_finish goes here */
	text	   *next_pk;		/* the continuation, when there is one */
	text	   *next_rk;
} ResultPage;

/* Copy a text column of an SPI result row into the caller's context. */
static text *
spi_text_column(ResultPage *pg, HeapTuple tup, TupleDesc desc, int col)
{
	bool		isnull;
	Datum		d = SPI_getbinval(tup, desc, col, &isnull);
	MemoryContext old = MemoryContextSwitchTo(pg->outer);
	text	   *t = DatumGetTextPCopy(d);

	MemoryContextSwitchTo(old);
	return t;
}

static void
append_timestamp(StringInfo out, TimestampTz ts)
{
	char		buf[EDM_DATETIME_TEXT_LEN + 1];

	edm_format_datetime((int64) ts * 10 + EDM_TICKS_PG_EPOCH, buf);
	entity_append_json_string(out, buf, EDM_DATETIME_TEXT_LEN);
}

/* One entity of a page: odata.etag, the keys, Timestamp, then the (selected) properties. */
static void
append_page_entity(ResultPage *pg, HeapTuple tup, TupleDesc desc)
{
	StringInfo	out = &pg->json;
	Datum		values[5];
	bool		nulls[5];
	EntityView	v;
	text	   *pk,
			   *rk,
			   *etag;

	heap_deform_tuple(tup, desc, values, nulls);
	pk = DatumGetTextPP(values[0]);
	rk = DatumGetTextPP(values[1]);
	etag = DatumGetTextPP(values[3]);
	entity_view_of(&v, DatumGetEntityPP(values[4]));
	entity_check_jsonb_safe(&v);

	appendStringInfoString(out, pg->count++ ? ",{\"odata.etag\":" : "{\"odata.etag\":");
	entity_append_json_string(out, VARDATA_ANY(etag), VARSIZE_ANY_EXHDR(etag));
	appendStringInfoString(out, ",\"PartitionKey\":");
	entity_append_json_string(out, VARDATA_ANY(pk), VARSIZE_ANY_EXHDR(pk));
	appendStringInfoString(out, ",\"RowKey\":");
	entity_append_json_string(out, VARDATA_ANY(rk), VARSIZE_ANY_EXHDR(rk));
	appendStringInfoString(out, ",\"Timestamp@odata.type\":\"Edm.DateTime\",\"Timestamp\":");
	append_timestamp(out, DatumGetTimestampTz(values[2]));
	if (pg->sel == NULL)
	{
		for (uint32 i = 0; i < v.nprops; i++)
		{
			PropRef		p;

			entity_view_prop(&v, i, &p);
			appendStringInfoChar(out, ',');
			entity_append_prop_json(out, &p, ENTITY_JSON_FOR_JSONB);
		}
	}
	else
	{
		/* $select: listed properties in the order given; an absent one is null */
		for (int k = 0; k < pg->sel->n; k++)
		{
			int			i = entity_view_find(&v, pg->sel->names[k], pg->sel->lens[k]);
			bool		dup = false;

			for (int j = 0; j < k; j++)
				dup |= pg->sel->lens[j] == pg->sel->lens[k] &&
					memcmp(pg->sel->names[j], pg->sel->names[k], pg->sel->lens[k]) == 0;
			if (dup)
				continue;
			appendStringInfoChar(out, ',');
			if (i < 0)
			{
				entity_append_json_string(out, pg->sel->names[k], pg->sel->lens[k]);
				appendStringInfoString(out, ":null");
			}
			else
			{
				PropRef		p;

				entity_view_prop(&v, i, &p);
				entity_append_prop_json(out, &p, ENTITY_JSON_FOR_JSONB);
			}
		}
	}
	appendStringInfoChar(out, '}');
}

/* Take rows of the SPI result into the page; the row after the last one wanted gives the continuation. */
static void
take_rows(ResultPage *pg, int top)
{
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		HeapTuple	tup = SPI_tuptable->vals[r];

		CHECK_FOR_INTERRUPTS();
		if (pg->count < top)
		{
			append_page_entity(pg, tup, SPI_tuptable->tupdesc);
			continue;
		}
		pg->next_pk = spi_text_column(pg, tup, SPI_tuptable->tupdesc, 1);
		pg->next_rk = spi_text_column(pg, tup, SPI_tuptable->tupdesc, 2);
		break;
	}
	SPI_freetuptable(SPI_tuptable);
}

static SPIPlanPtr
prepare(const char *sql, int nargs, Oid *types)
{
	SPIPlanPtr	p = SPI_prepare(sql, nargs, types);

	if (p == NULL)
		elog(ERROR, "tablestore: could not prepare a page query: %s", SPI_result_code_string(SPI_result));
	return p;
}

static void
exec_plan(SPIPlanPtr plan, Datum *args)
{
	if (SPI_execute_plan(plan, args, NULL, true, 0) < 0)
		elog(ERROR, "tablestore: a page query failed");
}

/* When the page must stop: the budget, and never later than 80% of statement_timeout. */
static TimestampTz
page_deadline(void)
{
	TimestampTz now = GetCurrentTimestamp();
	TimestampTz deadline = TimestampTzPlusMilliseconds(now, ts_query_time_budget_ms);

	if (StatementTimeout > 0)
	{
		TimestampTz limit = TimestampTzPlusMilliseconds(GetCurrentStatementStartTimestamp(),
														(int) (StatementTimeout * 0.8));

		if (limit < deadline)
			deadline = limit;
	}
	return deadline;
}

PG_FUNCTION_INFO_V1(tablestore_query_page);
Datum
tablestore_query_page(PG_FUNCTION_ARGS)
{
	TsTable		t;
	OdFilter	f;
	ResultPage		pg = {0};
	int			top;
	text	   *pos_pk,
			   *pos_rk;
	StringInfoData sql;
	Oid			types[5] = {TEXTOID, TEXTOID, TEXTOID, TEXTOID, INT8OID};
	Datum		args[5];
	int			guc_level;
	TimestampTz deadline = page_deadline();

	if (PG_ARGISNULL(0))
		ts_raisef(TSE_INVALID_INPUT, "tbl must not be NULL");
	ts_table_resolve(PG_GETARG_TEXT_PP(0), &t);
	translate_or_raise(PG_ARGISNULL(1) ? NULL : PG_GETARG_TEXT_PP(1), &f);
	pg.sel = select_list_parse(PG_ARGISNULL(2) ? NULL : PG_GETARG_TEXT_PP(2));
	top = check_top(fcinfo, 3, false);
	if (PG_ARGISNULL(4) && !PG_ARGISNULL(5))
		ts_raisef(TSE_QUERY_ARG, "a continuation with NextRowKey needs NextPartitionKey");
	pos_pk = PG_ARGISNULL(4) ? cstring_to_text("") : PG_GETARG_TEXT_PP(4);
	pos_rk = PG_ARGISNULL(5) ? cstring_to_text("") : PG_GETARG_TEXT_PP(5);
	initStringInfo(&pg.json);
	appendStringInfoString(&pg.json, "{\"value\":[");
	pg.outer = CurrentMemoryContext;

	guc_level = begin_query_settings(&f);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "tablestore: SPI_connect failed");
	initStringInfo(&sql);
	if (f.dense)
	{
		/* a key range: every row the index scan visits matches, so top + 1 rows bound the work */
		appendStringInfo(&sql, "SELECT " ROW_COLUMNS " FROM %s WHERE %s AND (partition_key, row_key) >= ($1, $2) "
						 KEY_ORDER " LIMIT $5", t.qualified, f.sql->data);
		args[0] = PointerGetDatum(pos_pk);
		args[1] = PointerGetDatum(pos_rk);
		args[2] = args[3] = (Datum) 0;
		args[4] = Int64GetDatum(top + 1);
		exec_plan(prepare(sql.data, 5, types), args);
		take_rows(&pg, top);
	}
	else
	{
		SPIPlanPtr	probe,
					bounded,
					open;
		int64		chunk = 1000;

		appendStringInfo(&sql, "SELECT partition_key, row_key FROM %s WHERE %s AND (partition_key, row_key) >= ($1, $2) "
						 KEY_ORDER " OFFSET $5 LIMIT 1", t.qualified, f.key_bounds->data);
		probe = prepare(sql.data, 5, types);
		resetStringInfo(&sql);
		appendStringInfo(&sql, "SELECT " ROW_COLUMNS " FROM %s WHERE %s AND (partition_key, row_key) >= ($1, $2) "
						 "AND (partition_key, row_key) < ($3, $4) " KEY_ORDER " LIMIT $5", t.qualified, f.sql->data);
		bounded = prepare(sql.data, 5, types);
		resetStringInfo(&sql);
		appendStringInfo(&sql, "SELECT " ROW_COLUMNS " FROM %s WHERE %s AND (partition_key, row_key) >= ($1, $2) "
						 KEY_ORDER " LIMIT $5", t.qualified, f.sql->data);
		open = prepare(sql.data, 5, types);

		for (;;)
		{
			TimestampTz started = GetCurrentTimestamp();
			text	   *end_pk = NULL,
					   *end_rk = NULL;

			CHECK_FOR_INTERRUPTS();
			/* where this chunk of the key order ends: the entity `chunk` rows ahead, if any */
			args[0] = PointerGetDatum(pos_pk);
			args[1] = PointerGetDatum(pos_rk);
			args[2] = args[3] = (Datum) 0;
			args[4] = Int64GetDatum(chunk);
			exec_plan(probe, args);
			if (SPI_processed > 0)
			{
				end_pk = spi_text_column(&pg, SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
				end_rk = spi_text_column(&pg, SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2);
			}
			SPI_freetuptable(SPI_tuptable);
			args[2] = PointerGetDatum(end_pk);
			args[3] = PointerGetDatum(end_rk);
			args[4] = Int64GetDatum(top + 1 - pg.count);
			exec_plan(end_pk ? bounded : open, args);
			take_rows(&pg, top);
			if (pg.next_pk != NULL || end_pk == NULL)
				break;			/* page full with a known next entity, or the scan reached the end */
			pos_pk = end_pk;
			pos_rk = end_rk;
			if (GetCurrentTimestamp() >= deadline)
			{
				/* out of time: stop at the next unexamined entity */
				pg.next_pk = pos_pk;
				pg.next_rk = pos_rk;
				break;
			}
			/* quick chunks grow, so that sparse matches do not cost a probe per thousand rows */
			if (TimestampDifferenceExceeds(started, GetCurrentTimestamp(), 50) == false && chunk < 100000)
				chunk *= 2;
		}
	}
	SPI_finish();
	AtEOXact_GUC(true, guc_level);

	appendStringInfoChar(&pg.json, ']');
	if (pg.next_pk != NULL)
	{
		appendStringInfoString(&pg.json, ",\"NextPartitionKey\":");
		entity_append_json_string(&pg.json, VARDATA_ANY(pg.next_pk), VARSIZE_ANY_EXHDR(pg.next_pk));
		appendStringInfoString(&pg.json, ",\"NextRowKey\":");
		entity_append_json_string(&pg.json, VARDATA_ANY(pg.next_rk), VARSIZE_ANY_EXHDR(pg.next_rk));
	}
	appendStringInfoChar(&pg.json, '}');
	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(pg.json.data)));
}
