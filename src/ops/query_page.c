/*
 * query_page.c - pages: tablestore.query_page (jsonb) and query_page_json (json text), one page
 * of a query in the service's JSON shape with a continuation (contract §5), and the page
 * collector that the REST functions use too.
 *
 * A continuation is the key pair of the next entity; a page resumes with the row comparison
 * (partition_key, row_key) >= (next), an index condition. A page stops, with a continuation,
 * when it holds $top entities, when it has run for its time budget (tablestore.query_time_budget,
 * and never past 80% of statement_timeout) and when its rendering reaches its byte budget
 * (tablestore.page_byte_budget); both budgets are checked after every row, and a page holds at
 * least one entity unless the time ran out before any matched. A filter whose matches are not
 * simply a key range walks the primary key once, in chunks of growing size (a LIMIT keeps the
 * planner on the index), with the filter's value as the first column instead of a WHERE clause:
 * every row passes the collector, which renders the matches and checks the time while rows that
 * do not match go by, so the page stops at a real entity position: a partial page, never a
 * timeout error.
 *
 * Rows arrive through a DestReceiver (or the direct range scan's callback) and are rendered at
 * once by row_json.c into the page's sink: JSON text for query_page_json and the REST protocol,
 * jsonb built directly (no JSON text parsed again) for query_page.
 */
#include "remote_call.h"
#include "query_page.h"

#include "access/htup_details.h"
#include "catalog/pg_am.h"
#include "catalog/pg_type.h"
#include "etag.h"
#include "executor/spi.h"
#include "nodes/plannodes.h"
#include "catalog/pg_class.h"
#include "utils/portal.h"
#include "utils/syscache.h"
#include "fast_path.h"
#include "jsonb_sink.h"
#include "plan_cache.h"
#include "storage/proc.h"
#include "table_layout.h"
#include "ts_support.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

int			ts_query_time_budget_ms = 5000;
int			ts_page_byte_budget_kb = 16 * 1024;

void
ts_query_page_init(void)
{
	DefineCustomIntVariable("tablestore.query_time_budget",
							"How long a page may scan before it returns what it has with a continuation.",
							"A page also stops before 80% of statement_timeout.",
							&ts_query_time_budget_ms, 5000, 0, PG_INT32_MAX, PGC_USERSET, GUC_UNIT_MS, NULL, NULL, NULL);
	DefineCustomIntVariable("tablestore.page_byte_budget",
							"How much JSON a page may hold before it returns what it has with a continuation.",
							"Checked after each entity; a page holds at least one entity.",
							&ts_page_byte_budget_kb, 16 * 1024, 64, 256 * 1024, PGC_USERSET, GUC_UNIT_KB, NULL, NULL, NULL);
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

/* ---------- the collector: rows into the page ---------- */

/*
 * One row of the page statements: rendered while the page has room, else (the first row past
 * the page) kept as the continuation. Returns false when no more rows are wanted.
 */
static bool
page_take_row(PageCollector *pc, const Datum *values, const bool *nulls)
{
	MemoryContext old;
	RowJson		r;
	EntityView	v;
	RowStamp	rs;
	text	   *pk,
			   *rk;

	CHECK_FOR_INTERRUPTS();
	if (pc->full)
	{
		old = MemoryContextSwitchTo(pc->outer);
		pc->next_pk = DatumGetTextPCopy(values[TS_COL_PK]);
		pc->next_rk = DatumGetTextPCopy(values[TS_COL_RK]);
		MemoryContextSwitchTo(old);
		return false;
	}
	old = MemoryContextSwitchTo(pc->row_cxt);
	pk = DatumGetTextPP(values[TS_COL_PK]);
	rk = DatumGetTextPP(values[TS_COL_RK]);
	entity_view_of(&v, DatumGetEntityPP(values[TS_COL_PROPS]));
	etag_row_stamp(DatumGetTimestampTz(values[TS_COL_TS]), DatumGetTextPP(values[TS_COL_ETAG]), &rs);
	r.pk = VARDATA_ANY(pk);
	r.pk_len = VARSIZE_ANY_EXHDR(pk);
	r.rk = VARDATA_ANY(rk);
	r.rk_len = VARSIZE_ANY_EXHDR(rk);
	r.ts_ticks = rs.ticks;
	r.etag = rs.etag;
	r.etag_len = rs.etag_len;
	r.props = &v;
	row_json_write(pc->sink, &pc->ctx, &r, NULL);
	MemoryContextSwitchTo(old);
	MemoryContextReset(pc->row_cxt);
	pc->count++;
	/* the budgets, after every row: the next row, if any, becomes the continuation */
	if (pc->count >= pc->top || pc->sink->bytes >= pc->byte_budget || GetCurrentTimestamp() >= pc->deadline)
		pc->full = true;
	return true;
}

static bool
collector_receive(TupleTableSlot *slot, DestReceiver *self)
{
	PageCollector *pc = (PageCollector *) self;

	slot_getallattrs(slot);
	return page_take_row(pc, slot->tts_values, slot->tts_isnull);
}

/*
 * A row of a sparse filter's walk: the filter's value, then the row's columns. The first row of
 * a chunk after the first is the previous chunk's last (the walk resumes at it) and is skipped.
 */
static bool
collector_receive_walk(TupleTableSlot *slot, DestReceiver *self)
{
	PageCollector *pc = (PageCollector *) self;
	Datum	   *values;
	bool	   *nulls;

	slot_getallattrs(slot);
	values = slot->tts_values + 1;
	nulls = slot->tts_isnull + 1;
	if (++pc->chunk_rows == 1 && pc->last_pk != NULL &&
		ts_key_cmp(DatumGetTextPP(values[TS_COL_PK]), pc->last_pk) == 0 &&
		ts_key_cmp(DatumGetTextPP(values[TS_COL_RK]), pc->last_rk) == 0)
		return true;
	if (pc->take_next)
	{
		/* the time ran out at the row before: resume here, the first entity not examined */
		MemoryContext old = MemoryContextSwitchTo(pc->outer);

		pc->next_pk = DatumGetTextPCopy(values[TS_COL_PK]);
		pc->next_rk = DatumGetTextPCopy(values[TS_COL_RK]);
		MemoryContextSwitchTo(old);
		return false;
	}
	if (!slot->tts_isnull[0] && DatumGetBool(slot->tts_values[0]))
	{
		if (!page_take_row(pc, values, nulls))
			return false;
	}
	else if ((pc->chunk_rows & 255) == 0)
	{
		CHECK_FOR_INTERRUPTS();
		if (GetCurrentTimestamp() >= pc->deadline)
			pc->take_next = true;
	}
	if (pc->chunk_rows == pc->chunk_limit)
	{
		MemoryContext old = MemoryContextSwitchTo(pc->outer);

		pc->last_pk = DatumGetTextPCopy(values[TS_COL_PK]);
		pc->last_rk = DatumGetTextPCopy(values[TS_COL_RK]);
		MemoryContextSwitchTo(old);
	}
	return true;
}

static bool
collector_row(void *arg, Datum *values, bool *nulls)
{
	return page_take_row((PageCollector *) arg, values, nulls);
}

static void
collector_startup(DestReceiver *self, int operation, TupleDesc typeinfo)
{
}

static void
collector_nothing(DestReceiver *self)
{
}

void
page_collector_init(PageCollector *pc, JsonSink *sink, int top)
{
	memset(pc, 0, sizeof(PageCollector));
	pc->pub.receiveSlot = collector_receive;
	pc->pub.rStartup = collector_startup;
	pc->pub.rShutdown = collector_nothing;
	pc->pub.rDestroy = collector_nothing;
	pc->pub.mydest = DestNone;
	pc->sink = sink;
	pc->top = top;
	pc->full = top == 0;		/* $top=0: no entity, the first that would come is the continuation */
	pc->ctx.metadata = JSON_META_MINIMAL;
	pc->byte_budget = (size_t) ts_page_byte_budget_kb * 1024;
	pc->deadline = page_deadline();
	pc->outer = CurrentMemoryContext;
	pc->row_cxt = AllocSetContextCreate(CurrentMemoryContext, "tablestore page row", ALLOCSET_DEFAULT_SIZES);
}

/* ---------- the scans ---------- */

/*
 * A dense filter's page straight from the primary key, from the continuation (pos) on. Returns
 * false when the direct path does not apply.
 */
static bool
page_from_range(PageCollector *pc, const TsTable *t, const OdFilter *f, text *pos_pk, text *pos_rk)
{
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
						   collector_row, pc) == FAST_OK;
}

static bool
is_gin_index(Oid index)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(index));
	bool		gin;

	if (!HeapTupleIsValid(tup))
		return false;
	gin = ((Form_pg_class) GETSTRUCT(tup))->relam == GIN_AM_OID;
	ReleaseSysCache(tup);
	return gin;
}

/* Does the plan read the table through a GIN index (the entity index) into a bitmap? */
static bool
plan_uses_gin(Plan *plan)
{
	if (plan == NULL)
		return false;
	if (IsA(plan, BitmapIndexScan))
		return is_gin_index(((BitmapIndexScan *) plan)->indexid);
	if (IsA(plan, BitmapAnd) || IsA(plan, BitmapOr))
	{
		ListCell   *lc;
		List	   *kids = IsA(plan, BitmapAnd) ? ((BitmapAnd *) plan)->bitmapplans : ((BitmapOr *) plan)->bitmapplans;

		foreach(lc, kids)
			if (plan_uses_gin(lfirst(lc)))
				return true;
		return false;
	}
	return plan_uses_gin(plan->lefttree) || plan_uses_gin(plan->righttree);
}

/*
 * A page of a filter the entity index may serve, when the planner (planning for the filter's
 * literals and $top) reads the matches from the index rather than walking the primary key: the
 * matching rows from the index, sorted (top + 1 of them: the last is the continuation). Returns
 * false, having read nothing, when the planner walks the primary key: the caller's walk then
 * keeps the page's time budget.
 */
static bool
page_from_index(PageCollector *pc, const TsTable *t, const OdFilter *f, text *pos_pk, text *pos_rk, Datum *args,
				const char *nulls, const Oid *types, int nargs)
{
	StringInfoData sql;
	SPIPlanPtr	plan;
	ParamListInfo params = NULL;
	Portal		portal;
	ListCell   *lc;
	bool		indexed = false;

	if (!f->uses_index)
		return false;
	initStringInfo(&sql);
	if (VARSIZE_ANY_EXHDR(pos_pk) == 0 && VARSIZE_ANY_EXHDR(pos_rk) == 0)
	{
		/* a first page: planned for its literals, and the plan kept for the next first page of the filter */
		OdFilter	inl;

		ts_query_inline(f, &inl);
		appendStringInfo(&sql, "SELECT " TS_ROW_COLUMNS " FROM %s WHERE %s " TS_KEY_ORDER " LIMIT %d", t->qualified,
						 inl.sql->data, pc->top + 1);
		plan = ts_plan_cache_get(sql.data, 0, types, 0);
	}
	else
	{
		/* a continuation: planned for the position and the literals each time */
		args[0] = PointerGetDatum(pos_pk);
		args[1] = PointerGetDatum(pos_rk);
		args[4] = Int64GetDatum(pc->top + 1);
		params = makeParamList(nargs);
		for (int k = 0; k < nargs; k++)
		{
			params->params[k].value = args[k];
			params->params[k].isnull = nulls[k] == 'n';
			params->params[k].pflags = PARAM_FLAG_CONST;
			params->params[k].ptype = types[k];
		}
		appendStringInfo(&sql, "SELECT " TS_ROW_COLUMNS " FROM %s WHERE %s AND ", t->qualified, f->sql->data);
		ts_append_key_position(&sql, t, "$1", "$2");
		appendStringInfoString(&sql, " " TS_KEY_ORDER " LIMIT $5");
		plan = ts_plan_cache_get(sql.data, nargs, types, ts_query_cursor_options(f, 0));
	}
	portal = SPI_cursor_open_with_paramlist(NULL, plan, params, true);
	foreach(lc, portal->stmts)
	{
		PlannedStmt *ps = lfirst_node(PlannedStmt, lc);

		indexed |= plan_uses_gin(ps->planTree);
	}
	if (!indexed)
	{
		SPI_cursor_close(portal);
		return false;
	}
	for (;;)
	{
		bool		more = true;

		SPI_cursor_fetch(portal, true, 64);
		if (SPI_processed == 0)
			break;
		for (uint64 r = 0; r < SPI_processed && more; r++)
		{
			Datum		values[Natts_tablestore_table];
			bool		isnull[Natts_tablestore_table];

			heap_deform_tuple(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, values, isnull);
			more = page_take_row(pc, values, isnull);
		}
		SPI_freetuptable(SPI_tuptable);
		if (!more)
			break;
	}
	SPI_cursor_close(portal);
	return true;
}

/* Run a page statement into the collector: args 0-4 are the positions and the limit. */
static void
exec_into(PageCollector *pc, SPIPlanPtr plan, Datum *args, const char *nulls, const Oid *types, int nargs)
{
	SPIExecuteOptions options = {0};

	options.params = makeParamList(nargs);
	for (int k = 0; k < nargs; k++)
	{
		options.params->params[k].value = args[k];
		options.params->params[k].isnull = nulls[k] == 'n';
		options.params->params[k].pflags = PARAM_FLAG_CONST;
		options.params->params[k].ptype = types[k];
	}
	options.read_only = true;
	options.dest = &pc->pub;
	if (SPI_execute_plan_extended(plan, &options) < 0)
		elog(ERROR, "tablestore: a page query failed");
}

void
page_collect(PageCollector *pc, const TsTable *t, const OdFilter *f, text *pos_pk, text *pos_rk)
{
	StringInfoData sql;
	Oid		   *types;
	Datum	   *args;
	char	   *nulls;
	int			nargs;
	int			guc_level;

	if (f->range_pk != NULL && page_from_range(pc, t, f, pos_pk, pos_rk))
		return;

	/* $1, $2: the position; $3, $4: unused, NULL (the filter's parameters are numbered from $6); $5: the limit */
	nargs = 5 + f->nparams;
	types = palloc(sizeof(Oid) * nargs);
	args = palloc0(sizeof(Datum) * nargs);
	nulls = palloc(nargs + 1);
	memset(nulls, ' ', nargs);
	nulls[nargs] = '\0';
	types[0] = types[1] = types[2] = types[3] = TEXTOID;
	types[4] = INT8OID;
	nulls[2] = nulls[3] = 'n';
	ts_query_bind_params(f, 5, types, args);

	guc_level = ts_query_settings_begin(f);
	ts_spi_begin();
	initStringInfo(&sql);
	if (f->dense || t->partitioned)
	{
		/*
		 * A key range: every row the index scan visits matches, so top + 1 rows bound the work. A
		 * distributed table's filter is a condition of the nodes' scans (postgres_fdw sends it),
		 * not a column the coordinator computes, so its page is read this way too.
		 */
		appendStringInfo(&sql, "SELECT " TS_ROW_COLUMNS " FROM %s WHERE %s AND ", t->qualified, f->sql->data);
		ts_append_key_position(&sql, t, "$1", "$2");
		appendStringInfoString(&sql, " " TS_KEY_ORDER " LIMIT $5");
		args[0] = PointerGetDatum(pos_pk);
		args[1] = PointerGetDatum(pos_rk);
		args[4] = Int64GetDatum(pc->top + 1);
		exec_into(pc, ts_plan_cache_get(sql.data, nargs, types, ts_query_cursor_options(f, 0)), args, nulls, types, nargs);
	}
	else if (!page_from_index(pc, t, f, pos_pk, pos_rk, args, nulls, types, nargs))
	{
		SPIPlanPtr	plan;
		int64		chunk = 1024;

		appendStringInfo(&sql, "SELECT (%s), " TS_ROW_COLUMNS " FROM %s WHERE %s AND ", f->sql->data, t->qualified,
						 f->key_bounds->data);
		ts_append_key_position(&sql, t, "$1", "$2");
		appendStringInfoString(&sql, " " TS_KEY_ORDER " LIMIT $5");
		plan = ts_plan_cache_get(sql.data, nargs, types, 0);
		pc->pub.receiveSlot = collector_receive_walk;
		for (;;)
		{
			args[0] = PointerGetDatum(pos_pk);
			args[1] = PointerGetDatum(pos_rk);
			args[4] = Int64GetDatum(chunk);
			pc->chunk_rows = 0;
			pc->chunk_limit = chunk;
			exec_into(pc, plan, args, nulls, types, nargs);
			if (pc->next_pk != NULL || pc->chunk_rows < chunk)
				break;			/* a continuation is known, or the walk reached the end */
			if (pc->take_next || pc->full)
			{
				/* the time or the page ended and the chunk with it: resume after its last row */
				pc->take_next = true;
			}
			pos_pk = pc->last_pk;
			pos_rk = pc->last_rk;
			if (chunk < 65536)
				chunk *= 2;
		}
		pc->pub.receiveSlot = collector_receive;
	}
	ts_spi_end();
	AtEOXact_GUC(true, guc_level);
}

/* ---------- the SQL functions ---------- */

/*
 * The arguments of query_page and query_page_json, checked, into a collector whose sink is
 * set: (tbl, filter, "select", top, next_partition_key, next_row_key).
 */
static void
page_from_args(FunctionCallInfo fcinfo, PageCollector *pc, JsonSink *sink, TsTable *t, OdFilter *f,
			   text **pos_pk, text **pos_rk)
{
	SelectList *sel;
	int			top = ts_query_args(fcinfo, 5, false, t, f, &sel);

	ts_query_check_continuation(fcinfo, 4);
	*pos_pk = PG_ARGISNULL(4) ? cstring_to_text("") : PG_GETARG_TEXT_PP(4);
	*pos_rk = PG_ARGISNULL(5) ? cstring_to_text("") : PG_GETARG_TEXT_PP(5);
	page_collector_init(pc, sink, top);
	pc->ctx.sel = sel;
}

/* {"value":[...], "NextPartitionKey":..., "NextRowKey":...}: the continuation members when more remain */
static void
write_page(PageCollector *pc, JsonSink *sink, const TsTable *t, const OdFilter *f, text *pos_pk, text *pos_rk)
{
	sink->begin(sink, true);
	sink->key(sink, "value", 5);
	sink->begin(sink, false);
	page_collect(pc, t, f, pos_pk, pos_rk);
	sink->end(sink, false);
	if (pc->next_pk != NULL)
	{
		json_sink_member(sink, "NextPartitionKey", JSON_VALUE_STRING, VARDATA_ANY(pc->next_pk), VARSIZE_ANY_EXHDR(pc->next_pk));
		json_sink_member(sink, "NextRowKey", JSON_VALUE_STRING, VARDATA_ANY(pc->next_rk), VARSIZE_ANY_EXHDR(pc->next_rk));
	}
	sink->end(sink, true);
}

PG_FUNCTION_INFO_V1(tablestore_query_page);
Datum
tablestore_query_page(PG_FUNCTION_ARGS)
{
	PageCollector pc;
	JsonbSinkState sink;
	TsTable		t;
	OdFilter	f;
	text	   *pos_pk,
			   *pos_rk;

	jsonb_sink_init(&sink, CurrentMemoryContext);
	page_from_args(fcinfo, &pc, &sink.pub, &t, &f, &pos_pk, &pos_rk);
	if (OidIsValid(t.remote))
		return ts_forward_call(fcinfo, t.remote, false);
	pc.ctx.options = ENTITY_JSON_FOR_JSONB;
	write_page(&pc, &sink.pub, &t, &f, pos_pk, pos_rk);
	PG_RETURN_JSONB_P(jsonb_sink_result(&sink));
}

PG_FUNCTION_INFO_V1(tablestore_query_page_json);
Datum
tablestore_query_page_json(PG_FUNCTION_ARGS)
{
	PageCollector pc;
	JsonTextSink sink;
	StringInfoData out;
	TsTable		t;
	OdFilter	f;
	text	   *pos_pk,
			   *pos_rk;

	/* the text is written after room for its varlena header, so it is returned without a copy */
	initStringInfo(&out);
	appendStringInfoSpaces(&out, VARHDRSZ);
	json_text_sink_init(&sink, &out);
	page_from_args(fcinfo, &pc, &sink.pub, &t, &f, &pos_pk, &pos_rk);
	if (OidIsValid(t.remote))
		return ts_forward_call(fcinfo, t.remote, false);
	write_page(&pc, &sink.pub, &t, &f, pos_pk, pos_rk);
	SET_VARSIZE(out.data, out.len);
	PG_RETURN_TEXT_P((text *) out.data);
}
