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
#include "fast_path.h"
#include "funcapi.h"
#include "tcop/dest.h"
#include "odata.h"
#include "query.h"
#include "select_list.h"
#include "ts_table.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "storage/proc.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

#include <xxhash.h>

int			ts_max_filter_comparisons = ODATA_DEFAULT_MAX_COMPARISONS;
int			ts_query_time_budget_ms = 5000;


#define KEY_ORDER "ORDER BY partition_key, row_key"
#define PAGE_MAX 1000

#define INLINE_LITERALS (-1)

/* Translate a $filter (NULL: everything); param_base as for odata_translate. */
static void
translate_or_raise(text *filter, OdFilter *f, int param_base)
{
	TsError		err = {0};

	if (!odata_translate(filter ? VARDATA_ANY(filter) : "", filter ? VARSIZE_ANY_EXHDR(filter) : 0,
						 ts_max_filter_comparisons, param_base, f, &err))
		ts_raise(&err);
}

/* The SQL type and value of each recorded parameter, after the first `base` slots. */
static void
bind_params(const OdFilter *f, int base, Oid *types, Datum *values)
{
	for (int k = 0; k < f->nparams; k++)
	{
		const OdParam *p = &f->params[k];
		Oid		   *t = &types[base + k];
		Datum	   *v = &values[base + k];

		switch (p->kind)
		{
			case PK_TEXT:
				*t = TEXTOID;
				*v = PointerGetDatum(cstring_to_text_with_len(p->str, p->len));
				break;
			case PK_FLOAT8:
				*t = FLOAT8OID;
				*v = Float8GetDatum(p->f8);
				break;
			case PK_NUMERIC:
				*t = NUMERICOID;
				*v = NumericGetDatum(int64_to_numeric(p->i8));
				break;
			case PK_INT8:
				*t = INT8OID;
				*v = Int64GetDatum(p->i8);
				break;
			case PK_INT4:
				*t = INT4OID;
				*v = Int32GetDatum((int32) p->i8);
				break;
			case PK_TIMESTAMPTZ:
				*t = TIMESTAMPTZOID;
				*v = TimestampTzGetDatum((TimestampTz) p->i8);
				break;
			case PK_UUID:
				{
					pg_uuid_t  *u = palloc(sizeof(pg_uuid_t));

					memcpy(u->data, p->bytes, UUID_LEN);
					*t = UUIDOID;
					*v = UUIDPGetDatum(u);
					break;
				}
			case PK_BYTEA:
				{
					bytea	   *b = palloc(VARHDRSZ + p->len);

					SET_VARSIZE(b, VARHDRSZ + p->len);
					memcpy(VARDATA(b), p->bytes, p->len);
					*t = BYTEAOID;
					*v = PointerGetDatum(b);
					break;
				}
		}
	}
}

/*
 * Prepared query statements, kept for the backend's life and shared by all calls whose filters
 * have the same shape (literal values are parameters). Keyed by a hash of the text and argument
 * types; the text is compared on a hit. Bounded: when full, all are forgotten - but only at the
 * start of a call that no other call encloses, so that no plan a running call holds is freed.
 */
#define QUERY_PLAN_CACHE_MAX 256

typedef struct QueryPlanEntry
{
	uint64		hash;			/* the key */
	char	   *sql;
	int			nargs;
	Oid		   *types;
	SPIPlanPtr	plan;
} QueryPlanEntry;

static HTAB *query_plans = NULL;

/* How many calls of this transaction hold cached plans now (an error leaves it high until the
 * transaction ends, which only delays forgetting). */
static int	query_plan_users = 0;
static LocalTransactionId query_plan_users_lxid = InvalidLocalTransactionId;

static void
forget_query_plans(void)
{
	HASH_SEQ_STATUS seq;
	QueryPlanEntry *e;

	hash_seq_init(&seq, query_plans);
	while ((e = hash_seq_search(&seq)) != NULL)
	{
		SPI_freeplan(e->plan);
		pfree(e->sql);
		pfree(e->types);
	}
	hash_destroy(query_plans);
	query_plans = NULL;
}

/* Before a call takes up to n cached plans: make room if no enclosing call holds any. */
static void
query_plans_begin(int n)
{
	if (query_plan_users_lxid != MyProc->lxid)
	{
		query_plan_users = 0;
		query_plan_users_lxid = MyProc->lxid;
	}
	if (query_plan_users == 0 && query_plans != NULL &&
		hash_get_num_entries(query_plans) + n > QUERY_PLAN_CACHE_MAX)
		forget_query_plans();
	query_plan_users++;
}

/* After the call's last use of its cached plans. */
static void
query_plans_end(void)
{
	if (query_plan_users > 0)
		query_plan_users--;
}

/*
 * The saved plan of sql with these argument types; call between SPI_connect and SPI_finish,
 * inside query_plans_begin/query_plans_end. The statement is prepared before the cache is
 * touched, so a failed prepare (a lock timeout, a cancel) leaves the cache as it was.
 */
static SPIPlanPtr
cached_plan(const char *sql, int nargs, Oid *types, int cursor_options)
{
	uint64		hash = XXH3_64bits_withSeed(sql, strlen(sql), (uint64) cursor_options);
	QueryPlanEntry *e;
	bool		found;
	SPIPlanPtr	plan;
	char	   *sql_copy;
	Oid		   *types_copy;

	hash = XXH3_64bits_withSeed(types, sizeof(Oid) * nargs, hash);
	if (query_plans == NULL)
	{
		HASHCTL		ctl = {0};

		ctl.keysize = sizeof(uint64);
		ctl.entrysize = sizeof(QueryPlanEntry);
		query_plans = hash_create("tablestore query plans", 64, &ctl, HASH_ELEM | HASH_BLOBS);
	}
	e = hash_search(query_plans, &hash, HASH_FIND, NULL);
	if (e != NULL && e->nargs == nargs && strcmp(e->sql, sql) == 0 &&
		memcmp(e->types, types, sizeof(Oid) * nargs) == 0)
		return e->plan;

	plan = SPI_prepare_cursor(sql, nargs, types, cursor_options);
	if (plan == NULL)
		elog(ERROR, "tablestore: could not prepare a query: %s", SPI_result_code_string(SPI_result));
	sql_copy = MemoryContextStrdup(TopMemoryContext, sql);
	types_copy = MemoryContextAlloc(TopMemoryContext, sizeof(Oid) * Max(nargs, 1));
	memcpy(types_copy, types, sizeof(Oid) * nargs);
	SPI_keepplan(plan);

	/* nothing below raises: the entry is complete whenever it exists */
	e = hash_search(query_plans, &hash, HASH_ENTER, &found);
	if (found)
	{
		/* a hash collision: the entry's plan belongs to no running call (shapes differ) */
		SPI_freeplan(e->plan);
		pfree(e->sql);
		pfree(e->types);
	}
	e->hash = hash;
	e->plan = plan;
	e->nargs = nargs;
	e->sql = sql_copy;
	e->types = types_copy;
	return plan;
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

/*
 * The continuation in arguments arg (NextPartitionKey) and arg + 1 (NextRowKey): NextRowKey
 * needs NextPartitionKey, and each must be a key an entity can have.
 */
static void
check_continuation(FunctionCallInfo fcinfo, int arg)
{
	static const char *const names[] = {"NextPartitionKey", "NextRowKey"};

	if (PG_ARGISNULL(arg) && !PG_ARGISNULL(arg + 1))
		ts_raisef(TSE_QUERY_ARG, "a continuation with NextRowKey needs NextPartitionKey");
	for (int k = 0; k < 2; k++)
	{
		text	   *key;
		char		ex[TS_EXCERPT_BUF];

		if (PG_ARGISNULL(arg + k))
			continue;
		key = PG_GETARG_TEXT_PP(arg + k);
		if (edm_check_key(VARDATA_ANY(key), VARSIZE_ANY_EXHDR(key)) != EDM_CHECK_OK)
			ts_raisef(TSE_QUERY_ARG, "the continuation's %s \"%s\" is not a valid key", names[k],
					  ts_excerpt(ex, sizeof(ex), VARDATA_ANY(key), VARSIZE_ANY_EXHDR(key)));
	}
}

/* The statement query_entities runs (continuation, when given, as literals). */
static void
build_select(StringInfo sql, const TsTable *t, const OdFilter *f, int top, text *npk, text *nrk)
{
	appendStringInfo(sql, "SELECT " TS_ROW_COLUMNS " FROM %s WHERE %s", t->qualified, f->sql->data);
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

/*
 * The arguments (tbl, filter, top, next_partition_key, next_row_key) of query_sql and
 * explain_query, checked, as the SELECT a query runs with its literals inline, after prefix.
 */
static void
inline_query_from_args(FunctionCallInfo fcinfo, const char *prefix, OdFilter *f, StringInfo sql)
{
	TsTable		t;
	int			top;

	if (PG_ARGISNULL(0))
		ts_raisef(TSE_INVALID_INPUT, "tbl must not be NULL");
	ts_table_resolve(PG_GETARG_TEXT_PP(0), &t);
	translate_or_raise(PG_ARGISNULL(1) ? NULL : PG_GETARG_TEXT_PP(1), f, INLINE_LITERALS);
	top = check_top(fcinfo, 2, true);
	check_continuation(fcinfo, 3);
	initStringInfo(sql);
	appendStringInfoString(sql, prefix);
	build_select(sql, &t, f, top, PG_ARGISNULL(3) ? NULL : PG_GETARG_TEXT_PP(3),
				 PG_ARGISNULL(4) ? NULL : PG_GETARG_TEXT_PP(4));
}

/* tablestore.query_sql(tbl, filter, top, next_partition_key, next_row_key): the SELECT a query runs. */
PG_FUNCTION_INFO_V1(tablestore_query_sql);
Datum
tablestore_query_sql(PG_FUNCTION_ARGS)
{
	OdFilter	f;
	StringInfoData sql;

	inline_query_from_args(fcinfo, "", &f, &sql);
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
	OdFilter	f;
	StringInfoData sql;
	int			guc_level;

	inline_query_from_args(fcinfo, "EXPLAIN (COSTS OFF) ", &f, &sql);
	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
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

	translate_or_raise(PG_GETARG_TEXT_PP(0), &f, INLINE_LITERALS);
	PG_RETURN_TEXT_P(cstring_to_text(f.sql->data));
}

/* ------------------------------------------------------------------ query_entities */

/*
 * Rows of the query go straight into the function's result tuplestore through this receiver,
 * projected onto $select, so that the query runs to completion in one go (and may use parallel
 * workers, which a cursor may not) without holding all rows in SPI's memory.
 */
typedef struct ResultReceiver
{
	DestReceiver pub;
	Tuplestorestate *store;
	TupleDesc	desc;
	SelectList *sel;
	MemoryContext row_cxt;		/* reset after each row */
} ResultReceiver;

/* One result row: projected onto $select and stored. */
static void
put_result_row(ResultReceiver *r, const Datum *in_values, const bool *in_nulls)
{
	MemoryContext old = MemoryContextSwitchTo(r->row_cxt);
	Datum		values[5];
	bool		nulls[5];

	CHECK_FOR_INTERRUPTS();
	memcpy(values, in_values, sizeof(values));
	memcpy(nulls, in_nulls, sizeof(nulls));
	if (r->sel != NULL && !nulls[4])
	{
		EntityView	v;

		entity_view_of(&v, DatumGetEntityPP(values[4]));
		values[4] = PointerGetDatum(entity_project(&v, r->sel));
	}
	tuplestore_putvalues(r->store, r->desc, values, nulls);
	MemoryContextSwitchTo(old);
	MemoryContextReset(r->row_cxt);
}

static bool
result_receive(TupleTableSlot *slot, DestReceiver *self)
{
	slot_getallattrs(slot);
	put_result_row((ResultReceiver *) self, slot->tts_values, slot->tts_isnull);
	return true;
}

/* The direct range scan's rows, up to $top. */
typedef struct RangeRows
{
	ResultReceiver *receiver;
	int64		remaining;		/* -1: no $top */
} RangeRows;

static bool
range_row(void *arg, Datum *values, bool *nulls)
{
	RangeRows  *rr = arg;

	if (rr->remaining == 0)
		return false;
	put_result_row(rr->receiver, values, nulls);
	if (rr->remaining > 0)
		rr->remaining--;
	return rr->remaining != 0;
}

static text *
literal_text(const OdLiteral *lit)
{
	return lit ? cstring_to_text_with_len(lit->str, lit->len) : NULL;
}

static void
result_startup(DestReceiver *self, int operation, TupleDesc typeinfo)
{
}

static void
result_shutdown(DestReceiver *self)
{
}

static void
result_destroy(DestReceiver *self)
{
}

/*
 * The arguments (tbl, filter, "select", top) that query_entities and query_page share, checked:
 * the table, the filter translated with its parameters numbered after param_base, the $select
 * list; returns $top (0 when NULL and top_optional).
 */
static int
query_args(FunctionCallInfo fcinfo, int param_base, bool top_optional, TsTable *t, OdFilter *f,
		   SelectList **sel)
{
	if (PG_ARGISNULL(0))
		ts_raisef(TSE_INVALID_INPUT, "tbl must not be NULL");
	ts_table_resolve(PG_GETARG_TEXT_PP(0), t);
	translate_or_raise(PG_ARGISNULL(1) ? NULL : PG_GETARG_TEXT_PP(1), f, param_base);
	*sel = select_list_parse(PG_ARGISNULL(2) ? NULL : PG_GETARG_TEXT_PP(2));
	return check_top(fcinfo, 3, top_optional);
}

PG_FUNCTION_INFO_V1(tablestore_query_entities);
Datum
tablestore_query_entities(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	TsTable		t;
	OdFilter	f;
	int			top;
	StringInfoData sql;
	SPIPlanPtr	plan;
	SPIExecuteOptions options = {0};
	ResultReceiver receiver = {0};
	int			guc_level;
	Oid		   *types;
	Datum	   *values;

	top = query_args(fcinfo, 0, true, &t, &f, &receiver.sel);

	InitMaterializedSRF(fcinfo, 0);
	receiver.pub.receiveSlot = result_receive;
	receiver.pub.rStartup = result_startup;
	receiver.pub.rShutdown = result_shutdown;
	receiver.pub.rDestroy = result_destroy;
	receiver.pub.mydest = DestNone;
	receiver.store = rsinfo->setResult;
	receiver.desc = rsinfo->setDesc;
	receiver.row_cxt = AllocSetContextCreate(CurrentMemoryContext, "tablestore query row", ALLOCSET_DEFAULT_SIZES);
	/* a partition's RowKey range: straight from the primary key */
	if (f.range_pk != NULL)
	{
		RangeRows	rr = {&receiver, top > 0 ? top : -1};

		if (f.range_empty)
			ts_table_check_select(&t);	/* an empty answer reads no row: check the right itself */
		if (f.range_empty ||
			fast_scan_range(&t, literal_text(f.range_pk), literal_text(f.range_lo), f.range_lo_incl,
							literal_text(f.range_hi), f.range_hi_incl, range_row, &rr) == FAST_OK)
		{
			MemoryContextDelete(receiver.row_cxt);
			return (Datum) 0;
		}
	}

	initStringInfo(&sql);
	build_select(&sql, &t, &f, top, NULL, NULL);

	guc_level = begin_query_settings(&f);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "tablestore: SPI_connect failed");
	types = palloc(sizeof(Oid) * (f.nparams + 1));
	values = palloc(sizeof(Datum) * (f.nparams + 1));
	bind_params(&f, 0, types, values);
	query_plans_begin(1);
	plan = cached_plan(sql.data, f.nparams, types, CURSOR_OPT_PARALLEL_OK);
	options.params = makeParamList(f.nparams);
	for (int k = 0; k < f.nparams; k++)
	{
		options.params->params[k].value = values[k];
		options.params->params[k].isnull = false;
		options.params->params[k].pflags = PARAM_FLAG_CONST;
		options.params->params[k].ptype = types[k];
	}
	options.read_only = true;
	options.dest = &receiver.pub;
	if (SPI_execute_plan_extended(plan, &options) < 0)
		elog(ERROR, "tablestore: the query failed");
	query_plans_end();
	SPI_finish();
	AtEOXact_GUC(true, guc_level);
	MemoryContextDelete(receiver.row_cxt);
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
	text	   *pk = literal_text(f->range_pk);
	text	   *lo = literal_text(f->range_lo);
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
	return fast_scan_range(t, pk, lo, lo_incl, literal_text(f->range_hi), f->range_hi_incl,
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

	top = query_args(fcinfo, 5, false, &t, &f, &pg.sel);
	check_continuation(fcinfo, 4);
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
	bind_params(&f, 5, types, args);

	if (f.range_pk != NULL && page_from_range(&pg, &t, &f, top, pos_pk, pos_rk))
		goto done;

	guc_level = begin_query_settings(&f);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "tablestore: SPI_connect failed");
	query_plans_begin(3);		/* a probe, a bounded and an open plan at most */
	initStringInfo(&sql);
	if (f.dense)
	{
		/* a key range: every row the index scan visits matches, so top + 1 rows bound the work */
		appendStringInfo(&sql, "SELECT " TS_ROW_COLUMNS " FROM %s WHERE %s AND (partition_key, row_key) >= ($1, $2) "
						 KEY_ORDER " LIMIT $5", t.qualified, f.sql->data);
		args[0] = PointerGetDatum(pos_pk);
		args[1] = PointerGetDatum(pos_rk);
		args[4] = Int64GetDatum(top + 1);
		exec_plan(cached_plan(sql.data, nargs, types, 0), args, nulls);
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
		probe = cached_plan(sql.data, nargs, types, 0);
		resetStringInfo(&sql);
		appendStringInfo(&sql, "SELECT " TS_ROW_COLUMNS " FROM %s WHERE %s AND (partition_key, row_key) >= ($1, $2) "
						 "AND (partition_key, row_key) < ($3, $4) " KEY_ORDER " LIMIT $5", t.qualified, f.sql->data);
		bounded = cached_plan(sql.data, nargs, types, 0);
		resetStringInfo(&sql);
		appendStringInfo(&sql, "SELECT " TS_ROW_COLUMNS " FROM %s WHERE %s AND (partition_key, row_key) >= ($1, $2) "
						 KEY_ORDER " LIMIT $5", t.qualified, f.sql->data);
		open = cached_plan(sql.data, nargs, types, 0);

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
	query_plans_end();
	SPI_finish();
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
