/*
 * query_page.c - tablestore.query_page: one page of a query in the service's JSON shape, with a
 * continuation (contract §5), and the page writer.
 *
 * A continuation is the key pair of the next entity; a page resumes with the row comparison
 * (partition_key, row_key) >= (next), an index condition. A page bounds its time
 * (tablestore.query_time_budget, and below statement_timeout): a filter whose matches are not
 * simply a key range is scanned in chunks of the key order, each ended by a probe of the primary
 * key, so that when time runs out the page stops at a real entity with a continuation - a partial
 * page, never a timeout error.
 */
#include "query.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fast_path.h"
#include "plan_cache.h"
#include "ts_support.h"
#include "storage/proc.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/jsonb.h"
#include "utils/timestamp.h"

int			ts_query_time_budget_ms = 5000;

void
ts_query_page_init(void)
{
	DefineCustomIntVariable("tablestore.query_time_budget",
							"How long query_page may scan before it returns a partial page with a continuation.",
							"A page also stops before 80% of statement_timeout.",
							&ts_query_time_budget_ms, 5000, 0, PG_INT32_MAX, PGC_USERSET, GUC_UNIT_MS, NULL, NULL, NULL);
}

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
append_page_entity(ResultPage *pg, const Datum *values)
{
	StringInfo	out = &pg->json;
	EntityView	v;
	text	   *pk,
			   *rk,
			   *etag;

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
			Datum		values[5];
			bool		nulls[5];

			heap_deform_tuple(tup, SPI_tuptable->tupdesc, values, nulls);
			append_page_entity(pg, values);
			continue;
		}
		pg->next_pk = spi_text_column(pg, tup, SPI_tuptable->tupdesc, 1);
		pg->next_rk = spi_text_column(pg, tup, SPI_tuptable->tupdesc, 2);
		break;
	}
	SPI_freetuptable(SPI_tuptable);
}

/* The direct range scan's rows: top of them into the page, the next one as the continuation. */
typedef struct PageRows
{
	ResultPage *pg;
	int			top;
} PageRows;

static bool
page_row(void *arg, Datum *values, bool *nulls)
{
	PageRows   *pr = arg;

	CHECK_FOR_INTERRUPTS();
	if (pr->pg->count < pr->top)
	{
		append_page_entity(pr->pg, values);
		return true;
	}
	pr->pg->next_pk = DatumGetTextPCopy(values[0]);
	pr->pg->next_rk = DatumGetTextPCopy(values[1]);
	return false;
}

/*
 * A dense filter's page straight from the primary key, from the continuation (pos) on. Returns
 * false when the direct path does not apply.
 */
static bool
page_from_range(ResultPage *pg, const TsTable *t, const OdFilter *f, int top, text *pos_pk, text *pos_rk)
{
	PageRows	pr = {pg, top};
	text	   *pk = ts_literal_text(f->range_pk);
	text	   *lo = ts_literal_text(f->range_lo);
	bool		lo_incl = f->range_lo_incl;
	int			c = ts_key_cmp(pos_pk, pk);

	if (f->range_empty || c > 0)
	{
		ts_table_check_select(t);	/* an empty answer reads no row: check the right itself */
		return true;			/* nothing in the range, or all of it before the continuation */
	}
	if (c == 0 && (lo == NULL || ts_key_cmp(pos_rk, lo) >= 0))
	{
		/* resume at the continuation, inside the partition */
		lo_incl = lo == NULL || ts_key_cmp(pos_rk, lo) > 0 || lo_incl;
		lo = pos_rk;
	}
	return fast_scan_range(t, pk, lo, lo_incl, ts_literal_text(f->range_hi), f->range_hi_incl,
						   page_row, &pr) == FAST_OK;
}

/* Execute a page statement: args 0-4 are the positions and the limit, the filter's follow. */
static void
exec_plan(SPIPlanPtr plan, Datum *args, const char *nulls)
{
	if (SPI_execute_plan(plan, args, nulls, true, 0) < 0)
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
	Oid		   *types;
	Datum	   *args;
	char	   *nulls;
	int			nargs;
	int			guc_level;
	TimestampTz deadline = page_deadline();

	top = ts_query_args(fcinfo, 5, false, &t, &f, &pg.sel);
	ts_query_check_continuation(fcinfo, 4);
	pos_pk = PG_ARGISNULL(4) ? cstring_to_text("") : PG_GETARG_TEXT_PP(4);
	pos_rk = PG_ARGISNULL(5) ? cstring_to_text("") : PG_GETARG_TEXT_PP(5);
	initStringInfo(&pg.json);
	appendStringInfoString(&pg.json, "{\"value\":[");
	pg.outer = CurrentMemoryContext;

	/* $1, $2: the position; $3, $4: the end of a chunk; $5: a limit or offset; then the filter's */
	nargs = 5 + f.nparams;
	types = palloc(sizeof(Oid) * nargs);
	args = palloc0(sizeof(Datum) * nargs);
	nulls = palloc(nargs + 1);
	memset(nulls, ' ', nargs);
	nulls[nargs] = '\0';
	types[0] = types[1] = types[2] = types[3] = TEXTOID;
	types[4] = INT8OID;
	nulls[2] = nulls[3] = 'n';
	ts_query_bind_params(&f, 5, types, args);

	if (f.range_pk != NULL && page_from_range(&pg, &t, &f, top, pos_pk, pos_rk))
		goto done;

	guc_level = ts_query_settings_begin(&f);
	ts_spi_begin();				/* a probe, a bounded and an open plan at most */
	initStringInfo(&sql);
	if (f.dense)
	{
		/* a key range: every row the index scan visits matches, so top + 1 rows bound the work */
		appendStringInfo(&sql, "SELECT " TS_ROW_COLUMNS " FROM %s WHERE %s AND (partition_key, row_key) >= ($1, $2) "
						 TS_KEY_ORDER " LIMIT $5", t.qualified, f.sql->data);
		args[0] = PointerGetDatum(pos_pk);
		args[1] = PointerGetDatum(pos_rk);
		args[4] = Int64GetDatum(top + 1);
		exec_plan(ts_plan_cache_get(sql.data, nargs, types, 0), args, nulls);
		take_rows(&pg, top);
	}
	else
	{
		SPIPlanPtr	probe,
					bounded,
					open;
		int64		chunk = 1000;

		appendStringInfo(&sql, "SELECT partition_key, row_key FROM %s WHERE %s AND (partition_key, row_key) >= ($1, $2) "
						 TS_KEY_ORDER " OFFSET $5 LIMIT 1", t.qualified, f.key_bounds->data);
		probe = ts_plan_cache_get(sql.data, nargs, types, 0);
		resetStringInfo(&sql);
		appendStringInfo(&sql, "SELECT " TS_ROW_COLUMNS " FROM %s WHERE %s AND (partition_key, row_key) >= ($1, $2) "
						 "AND (partition_key, row_key) < ($3, $4) " TS_KEY_ORDER " LIMIT $5", t.qualified, f.sql->data);
		bounded = ts_plan_cache_get(sql.data, nargs, types, 0);
		resetStringInfo(&sql);
		appendStringInfo(&sql, "SELECT " TS_ROW_COLUMNS " FROM %s WHERE %s AND (partition_key, row_key) >= ($1, $2) "
						 TS_KEY_ORDER " LIMIT $5", t.qualified, f.sql->data);
		open = ts_plan_cache_get(sql.data, nargs, types, 0);

		for (;;)
		{
			TimestampTz started = GetCurrentTimestamp();
			text	   *end_pk = NULL,
					   *end_rk = NULL;

			CHECK_FOR_INTERRUPTS();
			/* where this chunk of the key order ends: the entity `chunk` rows ahead, if any */
			args[0] = PointerGetDatum(pos_pk);
			args[1] = PointerGetDatum(pos_rk);
			args[4] = Int64GetDatum(chunk);
			nulls[2] = nulls[3] = 'n';
			exec_plan(probe, args, nulls);
			if (SPI_processed > 0)
			{
				end_pk = spi_text_column(&pg, SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
				end_rk = spi_text_column(&pg, SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2);
			}
			SPI_freetuptable(SPI_tuptable);
			args[2] = PointerGetDatum(end_pk);
			args[3] = PointerGetDatum(end_rk);
			nulls[2] = nulls[3] = end_pk ? ' ' : 'n';
			args[4] = Int64GetDatum(top + 1 - pg.count);
			exec_plan(end_pk ? bounded : open, args, nulls);
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
	ts_spi_end();
	AtEOXact_GUC(true, guc_level);

done:
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