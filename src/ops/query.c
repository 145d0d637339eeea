/*
 * query.c - the query entry points: odata_to_sql, query_sql, explain_query and query_entities,
 * and the argument checks, filter translation and statement settings that query_page shares.
 *
 * Results are always in (PartitionKey, RowKey) order: every query orders by the primary key, so
 * $top stops after n rows of an index scan. A partition's RowKey range is read straight from the
 * primary key (fast_path.c); other filters run as cached, parameterised statements.
 */
#include "query.h"
#include "remote_call.h"

#include "entity_index.h"
#include "property_filter.h"

#include "catalog/pg_type.h"
#include "etag.h"
#include "executor/spi.h"
#include "fast_path.h"
#include "funcapi.h"
#include "plan_cache.h"
#include "tcop/dest.h"
#include "ts_support.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

int			ts_max_filter_comparisons = ODATA_DEFAULT_MAX_COMPARISONS;

#define INLINE_LITERALS (-1)

void
ts_query_init(void)
{
	DefineCustomIntVariable("tablestore.max_filter_comparisons",
							"The most comparisons a $filter may hold.",
							"Azure Table storage allows 15.",
							&ts_max_filter_comparisons, ODATA_DEFAULT_MAX_COMPARISONS, 1, 10000,
							PGC_USERSET, 0, NULL, NULL, NULL);
}

void
ts_query_translate(text *filter, OdFilter *f, int param_base, const TsTable *t)
{
	TsError		err = {0};
	const IndexPolicy *indexed = t ? ts_index_policy_cached(t->relid, t->key) : NULL;

	if (!odata_translate_indexed(filter ? VARDATA_ANY(filter) : "", filter ? VARSIZE_ANY_EXHDR(filter) : 0,
								 ts_max_filter_comparisons, param_base, t && t->partitioned ? ODATA_SHIPPABLE : 0,
								 indexed, f, &err))
		ts_raise(&err);
}

void
ts_query_inline(const OdFilter *f, OdFilter *out)
{
	odata_translate_again(f, INLINE_LITERALS, out);
}

int
ts_query_cursor_options(const OdFilter *f, int options)
{
	/* a filter the entity index may serve: planned for its literals, whose selectivity decides */
	return f->uses_index ? options | CURSOR_OPT_CUSTOM_PLAN : options;
}

void
ts_query_bind_params(const OdFilter *f, int base, Oid *types, Datum *values)
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
			case PK_PROPERTY_FILTER:
				*t = ts_type_oid(TS_TYPE_PROPERTY_FILTER);
				*v = PointerGetDatum(p->bytes);
				break;
		}
	}
}

int
ts_query_top(FunctionCallInfo fcinfo, int argno, bool allow_null)
{
	int			top;

	if (PG_ARGISNULL(argno))
	{
		if (!allow_null)
			ts_raisef(TSE_QUERY_ARG, "$top must not be NULL");
		return -1;
	}
	top = PG_GETARG_INT32(argno);
	if (top < 0 || top > TS_PAGE_MAX)
		ts_raisef(TSE_QUERY_ARG, "$top must be between 0 and %d, not %d", TS_PAGE_MAX, top);
	return top;
}

static void
set_local(const char *name, const char *value)
{
	(void) set_config_option(name, value, PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
}

/* (query.h) plus: the rows then come from one ordered primary-key range scan. */
int
ts_query_settings_begin(const OdFilter *f)
{
	int			level = NewGUCNestLevel();

	set_local("search_path", "pg_catalog, pg_temp");
	/*
	 * No JIT: a query's per-row work is the extension's C functions, which JIT cannot speed up,
	 * while compiling costs every execution 10-200 ms and 10-30 MB of backend memory, both growing
	 * with the table's size (bench/RESULTS.md, "Cost against size").
	 */
	set_local("jit", "off");
	if (f->dense && f->root != NULL)
	{
		set_local("enable_bitmapscan", "off");
		set_local("enable_sort", "off");
	}
	return level;
}

/* NextRowKey needs NextPartitionKey, and each must be a key an entity can have. */
void
ts_query_check_continuation(FunctionCallInfo fcinfo, int arg)
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

void
ts_append_key_position(StringInfo sql, const TsTable *t, const char *pk, const char *rk)
{
	if (t->partitioned)
		appendStringInfo(sql, "partition_key >= %1$s AND (partition_key > %1$s OR row_key >= %2$s)", pk, rk);
	else
		appendStringInfo(sql, "(partition_key, row_key) >= (%s, %s)", pk, rk);
}

/* The statement query_entities runs (continuation, when given, as literals). */
static void
build_select(StringInfo sql, const TsTable *t, const OdFilter *f, int top, text *npk, text *nrk)
{
	appendStringInfo(sql, "SELECT " TS_ROW_COLUMNS " FROM %s WHERE %s", t->qualified, f->sql->data);
	if (npk != NULL)
	{
		StringInfoData pk,
					rk;

		initStringInfo(&pk);
		initStringInfo(&rk);
		odata_append_sql_literal(&pk, VARDATA_ANY(npk), VARSIZE_ANY_EXHDR(npk));
		if (nrk)
			odata_append_sql_literal(&rk, VARDATA_ANY(nrk), VARSIZE_ANY_EXHDR(nrk));
		else
			appendStringInfoString(&rk, "''");
		appendStringInfoString(sql, " AND ");
		ts_append_key_position(sql, t, pk.data, rk.data);
	}
	appendStringInfoString(sql, " " TS_KEY_ORDER);
	if (top >= 0)
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

	ts_require_arg(fcinfo, 0, "tbl");
	ts_table_resolve(PG_GETARG_TEXT_PP(0), &t);
	ts_query_translate(PG_ARGISNULL(1) ? NULL : PG_GETARG_TEXT_PP(1), f, INLINE_LITERALS, &t);
	top = ts_query_top(fcinfo, 2, true);
	ts_query_check_continuation(fcinfo, 3);
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
	guc_level = ts_query_settings_begin(&f);
	ts_spi_begin();
	if (SPI_execute(sql.data, false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "tablestore: EXPLAIN failed");
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		bool		isnull;
		Datum		line = SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 1, &isnull);

		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, &line, &isnull);
	}
	ts_spi_end();
	AtEOXact_GUC(true, guc_level);
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(tablestore_odata_to_sql);
Datum
tablestore_odata_to_sql(PG_FUNCTION_ARGS)
{
	OdFilter	f;

	ts_query_translate(PG_GETARG_TEXT_PP(0), &f, INLINE_LITERALS, NULL);
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
	etag_show_row(values, nulls);
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

text *
ts_literal_text(const OdLiteral *lit)
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

int
ts_query_args(FunctionCallInfo fcinfo, int param_base, bool top_optional, TsTable *t, OdFilter *f,
		   SelectList **sel)
{
	int			top;

	ts_require_arg(fcinfo, 0, "tbl");
	ts_table_resolve(PG_GETARG_TEXT_PP(0), t);
	ts_query_translate(PG_ARGISNULL(1) ? NULL : PG_GETARG_TEXT_PP(1), f, param_base, t);
	*sel = select_list_parse(PG_ARGISNULL(2) ? NULL : PG_GETARG_TEXT_PP(2));
	top = ts_query_top(fcinfo, 3, top_optional);
	/* a distributed table's one partition: the node that holds it answers the whole call */
	if (t->partitioned && f->range_pk != NULL)
		t->remote = ts_table_route(t, ts_literal_text(f->range_pk), ACL_SELECT);
	else if (ts_table_partial(t))
		ts_raisef(TSE_SHARD_NOT_HERE, "this node holds only some shards of the table \"%s\": a query across "
				  "partitions runs on the coordinator", t->key);
	return top;
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

	top = ts_query_args(fcinfo, 0, true, &t, &f, &receiver.sel);
	if (OidIsValid(t.remote))
		return ts_forward_call(fcinfo, t.remote, false);

	InitMaterializedSRF(fcinfo, 0);
	if (top == 0)
	{
		ts_table_check_select(&t);	/* an empty answer reads no row: check the right itself */
		return (Datum) 0;
	}
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
			fast_scan_range(&t, ts_literal_text(f.range_pk), ts_literal_text(f.range_lo), f.range_lo_incl,
							ts_literal_text(f.range_hi), f.range_hi_incl, range_row, &rr) == FAST_OK)
		{
			MemoryContextDelete(receiver.row_cxt);
			return (Datum) 0;
		}
	}

	/* a filter the entity index may serve: planned for its values, the plan kept for the same filter */
	if (f.uses_index)
	{
		OdFilter	inl;

		ts_query_inline(&f, &inl);
		f = inl;
	}
	initStringInfo(&sql);
	build_select(&sql, &t, &f, top, NULL, NULL);

	guc_level = ts_query_settings_begin(&f);
	ts_spi_begin();
	types = palloc(sizeof(Oid) * (f.nparams + 1));
	values = palloc(sizeof(Datum) * (f.nparams + 1));
	ts_query_bind_params(&f, 0, types, values);
	plan = ts_plan_cache_get(sql.data, f.nparams, types, CURSOR_OPT_PARALLEL_OK);
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
	ts_spi_end();
	AtEOXact_GUC(true, guc_level);
	MemoryContextDelete(receiver.row_cxt);
	return (Datum) 0;
}
