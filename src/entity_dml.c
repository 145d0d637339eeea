/*
 * entity_dml.c - the single-entity operations of contract §4: insert_entity, update_entity,
 * merge_entity, upsert_entity, delete_entity, get_entity.
 *
 * Each runs one prepared statement (ts_plans.c) as the calling user, so table privileges and
 * row-level security apply; the trigger stamps Timestamp and ETag. When a conditional statement
 * touches no row, one more lookup tells ResourceNotFound from UpdateConditionNotSatisfied.
 */
#include "entity.h"

#include "access/htup_details.h"
#include "etag.h"
#include "fast_path.h"
#include "funcapi.h"
#include "select_list.h"
#include "stamp.h"
#include "entity_sql.h"
#include "ts_support.h"
#include "access/relation.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/relcache.h"

/* The entity argument split into its keys (required) and its properties without keys. */
typedef struct EntityArg
{
	text	   *pk;
	text	   *rk;
	Entity	   *props;
} EntityArg;

static void
split_entity(Entity *e, EntityArg *out)
{
	EntityView	v;
	PropRef    *props;
	TsError		err = {0};

	entity_view_of(&v, e);
	if (!v.keys.has_pk || !v.keys.has_rk)
		ts_raisef(TSE_MISSING_KEY, "the entity has no %s", v.keys.has_pk ? "RowKey" : "PartitionKey");
	out->pk = cstring_to_text_with_len(v.keys.pk, v.keys.pk_len);
	out->rk = cstring_to_text_with_len(v.keys.rk, v.keys.rk_len);
	props = palloc(sizeof(PropRef) * (v.nprops + 1));
	for (uint32 i = 0; i < v.nprops; i++)
		entity_view_prop(&v, i, &props[i]);
	out->props = entity_build(props, (int) v.nprops, NULL, 0, &err);
	if (out->props == NULL)
		ts_raise(&err);
}

/* Run a prepared statement; returns the first column of the first row (copied out), or NULL. */
static text *
run_returning_text(const TsTable *t, TsPlanKind kind, Datum *args, int nargs)
{
	SPIPlanPtr	plan = ts_plan_get(t, kind);
	char		nulls[4] = {' ', ' ', ' ', ' '};
	int			rc = SPI_execute_plan(plan, args, nulls, false, 1);
	bool		isnull;
	Datum		d;

	if (rc < 0)
		elog(ERROR, "tablestore: SPI_execute_plan failed: %s", SPI_result_code_string(rc));
	if (SPI_processed == 0)
		return NULL;
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	return isnull ? NULL : (text *) DatumGetPointer(SPI_datumTransfer(d, false, -1));
}

static void
raise_not_found(text *pk, text *rk)
{
	ts_raisef(TSE_RESOURCE_NOT_FOUND, "the entity %s does not exist",
			  ts_keys_excerpt(pk, rk));
}

static void
raise_condition_failed(text *pk, text *rk)
{
	ts_raisef(TSE_CONDITION_FAILED, "the entity %s has changed: its ETag is not the If-Match value",
			  ts_keys_excerpt(pk, rk));
}

/*
 * The entity's current ETag (copied out), or NULL when it does not exist: read with a new
 * snapshot (read_only false), so that a write committed since the statement began is seen, as the
 * UPDATE that found nothing saw it.
 */
static text *
current_etag(const TsTable *t, text *pk, text *rk)
{
	Datum		args[2] = {PointerGetDatum(pk), PointerGetDatum(rk)};
	bool		isnull;
	Datum		d;

	if (SPI_execute_plan(ts_plan_get(t, PLAN_GET), args, NULL, false, 1) < 0)
		elog(ERROR, "tablestore: SPI_execute_plan failed");
	if (SPI_processed == 0)
		return NULL;
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 4, &isnull);
	return isnull ? NULL : (text *) DatumGetPointer(SPI_datumTransfer(d, false, -1));
}

/* How often a conditional statement is run again after losing a race (see below). */
#define LOST_RACE_RETRIES 3

/*
 * A conditional SQL write (kind) touched nothing: run it again while the entity exists, matches,
 * and no trigger of the user's could have cancelled the write - the statement then only lost a
 * race (it ran on a snapshot without the entity, or the version it found was deleted and the
 * entity inserted again). Otherwise raise what is true: ResourceNotFound, UpdateConditionNotSatisfied,
 * or "a trigger cancelled the write". Returns the new ETag (NULL for a delete that succeeded).
 */
static text *
rerun_or_raise(const TsTable *t, TsPlanKind kind, Datum *args, int nargs, text *pk, text *rk,
			   IfMatch im, text *if_match, CmdType cmd)
{
	for (int attempt = 0;; attempt++)
	{
		text	   *etag = current_etag(t, pk, rk);

		if (etag == NULL)
			raise_not_found(pk, rk);
		if (im == IF_MATCH_ETAG && ts_key_cmp(etag, if_match) != 0)
			raise_condition_failed(pk, rk);
		if (stamp_user_row_trigger(t->relid, cmd))
			ts_raise_write_cancelled(NULL);
		if (attempt == LOST_RACE_RETRIES)
			ereport(ERROR,
					(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
					 errmsg("could not write the entity %s: it changed concurrently", ts_keys_excerpt(pk, rk)),
					 errhint("Retry the operation.")));
		etag = run_returning_text(t, kind, args, nargs);
		if (etag != NULL)		/* (a delete returns the deleted row's ETag) */
			return etag;
	}
}

/* The outcome of a fast-path write that did not succeed. */
static void
raise_fast_failure(FastResult r, text *pk, text *rk)
{
	if (r == FAST_NOT_FOUND)
		raise_not_found(pk, rk);
	if (r == FAST_CONDITION_FAILED)
		raise_condition_failed(pk, rk);
	if (r == FAST_CANCELLED)
		ts_raise_write_cancelled(NULL);
}

/* Keys given as arguments follow the key rules: a key that no entity can have is bad input. */
static void
check_key_args(text *pk, text *rk)
{
	TsError		err = {0};

	if (!entity_check_key(VARDATA_ANY(pk), VARSIZE_ANY_EXHDR(pk), "PartitionKey", &err) ||
		!entity_check_key(VARDATA_ANY(rk), VARSIZE_ANY_EXHDR(rk), "RowKey", &err))
		ts_raise(&err);
}

PG_FUNCTION_INFO_V1(tablestore_insert_entity);
Datum
tablestore_insert_entity(PG_FUNCTION_ARGS)
{
	TsTable		t;
	EntityArg	ea;
	Datum		args[3];
	text	   *volatile etag = NULL;
	MemoryContext outer = CurrentMemoryContext;

	ts_require_arg(fcinfo, 0, "tbl");
	ts_require_arg(fcinfo, 1, "entity");
	ts_table_resolve(PG_GETARG_TEXT_PP(0), &t);
	split_entity(PG_GETARG_ENTITY_PP(1), &ea);
	args[0] = PointerGetDatum(ea.pk);
	args[1] = PointerGetDatum(ea.rk);
	args[2] = EntityPGetDatum(ea.props);
	/*
	 * A plain INSERT (ON CONFLICT's extra index probe costs more than it saves); a violation of
	 * the table's primary key becomes EntityAlreadyExists. The error is re-thrown at once, so no
	 * subtransaction is needed: nothing runs between catching and raising.
	 */
	PG_TRY();
	{
		text	   *fast_etag;
		FastResult	r = fast_insert(&t, ea.pk, ea.rk, ea.props, &fast_etag);

		if (r == FAST_OK)
			etag = fast_etag;
		else if (r == FAST_CANCELLED)
			ts_raise_write_cancelled(NULL);
		else
		{
			ts_spi_begin();
			etag = run_returning_text(&t, PLAN_INSERT, args, 3);
			ts_spi_end();
			if (etag == NULL)
				ts_raise_write_cancelled(NULL);
		}
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(outer);
		edata = CopyErrorData();
		if (edata->sqlerrcode == ERRCODE_UNIQUE_VIOLATION && ts_table_is_primary_key(&t, edata->constraint_name))
		{
			FlushErrorState();
			ts_raisef(TSE_ENTITY_EXISTS, "the entity %s already exists",
					  ts_keys_excerpt(ea.pk, ea.rk));
		}
		PG_RE_THROW();
	}
	PG_END_TRY();
	PG_RETURN_TEXT_P(etag);
}

/* update_entity and merge_entity: a conditional UPDATE by key. */
static Datum
conditional_update(FunctionCallInfo fcinfo, TsPlanKind any_kind, TsPlanKind if_kind)
{
	TsTable		t;
	EntityArg	ea;
	IfMatch		im;
	Datum		args[4];
	text	   *etag;
	FastResult	r;
	TsPlanKind	kind;
	int			nargs;

	ts_require_arg(fcinfo, 0, "tbl");
	ts_require_arg(fcinfo, 1, "entity");
	ts_require_arg(fcinfo, 2, "if_match");
	ts_table_resolve(PG_GETARG_TEXT_PP(0), &t);
	im = etag_parse_if_match(PG_GETARG_TEXT_PP(2));
	split_entity(PG_GETARG_ENTITY_PP(1), &ea);
	args[0] = PointerGetDatum(ea.pk);
	args[1] = PointerGetDatum(ea.rk);
	args[2] = EntityPGetDatum(ea.props);
	args[3] = PointerGetDatum(PG_GETARG_TEXT_PP(2));
	r = fast_update(&t, ea.pk, ea.rk, ea.props, any_kind == PLAN_MERGE_ANY,
					im == IF_MATCH_ANY ? NULL : PG_GETARG_TEXT_PP(2), &etag);
	if (r != FAST_NOT_USED)
	{
		raise_fast_failure(r, ea.pk, ea.rk);
		PG_RETURN_TEXT_P(etag);
	}
	ts_spi_begin();
	kind = im == IF_MATCH_ANY ? any_kind : if_kind;
	nargs = im == IF_MATCH_ANY ? 3 : 4;
	etag = run_returning_text(&t, kind, args, nargs);
	if (etag == NULL)
		etag = rerun_or_raise(&t, kind, args, nargs, ea.pk, ea.rk, im, PG_GETARG_TEXT_PP(2), CMD_UPDATE);
	ts_spi_end();
	PG_RETURN_TEXT_P(etag);
}

PG_FUNCTION_INFO_V1(tablestore_update_entity);
Datum
tablestore_update_entity(PG_FUNCTION_ARGS)
{
	return conditional_update(fcinfo, PLAN_UPDATE_ANY, PLAN_UPDATE_IF);
}

PG_FUNCTION_INFO_V1(tablestore_merge_entity);
Datum
tablestore_merge_entity(PG_FUNCTION_ARGS)
{
	return conditional_update(fcinfo, PLAN_MERGE_ANY, PLAN_MERGE_IF);
}

PG_FUNCTION_INFO_V1(tablestore_upsert_entity);
Datum
tablestore_upsert_entity(PG_FUNCTION_ARGS)
{
	TsTable		t;
	EntityArg	ea;
	Datum		args[3];
	text	   *mode;
	TsPlanKind	kind;
	text	   *etag;

	ts_require_arg(fcinfo, 0, "tbl");
	ts_require_arg(fcinfo, 1, "entity");
	ts_require_arg(fcinfo, 2, "mode");
	ts_table_resolve(PG_GETARG_TEXT_PP(0), &t);
	mode = PG_GETARG_TEXT_PP(2);
	if (VARSIZE_ANY_EXHDR(mode) == 5 && memcmp(VARDATA_ANY(mode), "merge", 5) == 0)
		kind = PLAN_UPSERT_MERGE;
	else if (VARSIZE_ANY_EXHDR(mode) == 7 && memcmp(VARDATA_ANY(mode), "replace", 7) == 0)
		kind = PLAN_UPSERT_REPLACE;
	else
		ts_raisef(TSE_INVALID_INPUT, "upsert mode must be 'merge' or 'replace'");
	split_entity(PG_GETARG_ENTITY_PP(1), &ea);
	args[0] = PointerGetDatum(ea.pk);
	args[1] = PointerGetDatum(ea.rk);
	args[2] = EntityPGetDatum(ea.props);
	ts_spi_begin();
	etag = run_returning_text(&t, kind, args, 3);
	ts_spi_end();
	if (etag == NULL)
		ts_raise_write_cancelled(NULL);
	PG_RETURN_TEXT_P(etag);
}

PG_FUNCTION_INFO_V1(tablestore_delete_entity);
Datum
tablestore_delete_entity(PG_FUNCTION_ARGS)
{
	TsTable		t;
	IfMatch		im;
	Datum		args[3];
	text	   *pk,
			   *rk;
	FastResult	r;

	ts_require_arg(fcinfo, 0, "tbl");
	ts_require_arg(fcinfo, 1, "partition_key");
	ts_require_arg(fcinfo, 2, "row_key");
	ts_require_arg(fcinfo, 3, "if_match");
	ts_table_resolve(PG_GETARG_TEXT_PP(0), &t);
	im = etag_parse_if_match(PG_GETARG_TEXT_PP(3));
	pk = PG_GETARG_TEXT_PP(1);
	rk = PG_GETARG_TEXT_PP(2);
	check_key_args(pk, rk);
	args[0] = PointerGetDatum(pk);
	args[1] = PointerGetDatum(rk);
	args[2] = PointerGetDatum(PG_GETARG_TEXT_PP(3));
	r = fast_delete(&t, pk, rk, im == IF_MATCH_ANY ? NULL : PG_GETARG_TEXT_PP(3));
	if (r != FAST_NOT_USED)
	{
		raise_fast_failure(r, pk, rk);
		PG_RETURN_VOID();
	}
	ts_spi_begin();
	if (run_returning_text(&t, im == IF_MATCH_ANY ? PLAN_DELETE_ANY : PLAN_DELETE_IF, args,
						   im == IF_MATCH_ANY ? 2 : 3) == NULL)
		(void) rerun_or_raise(&t, im == IF_MATCH_ANY ? PLAN_DELETE_ANY : PLAN_DELETE_IF, args,
							  im == IF_MATCH_ANY ? 2 : 3, pk, rk, im, PG_GETARG_TEXT_PP(3), CMD_DELETE);
	ts_spi_end();
	PG_RETURN_VOID();
}

PG_FUNCTION_INFO_V1(tablestore_get_entity);
Datum
tablestore_get_entity(PG_FUNCTION_ARGS)
{
	TsTable		t;
	Datum		args[2];
	text	   *pk,
			   *rk;
	SelectList *sel;
	TupleDesc	rowdesc;
	Datum		values[5];
	bool		nulls[5];
	HeapTuple	row;
	FastResult	r;

	ts_require_arg(fcinfo, 0, "tbl");
	ts_require_arg(fcinfo, 1, "partition_key");
	ts_require_arg(fcinfo, 2, "row_key");
	ts_table_resolve(PG_GETARG_TEXT_PP(0), &t);
	pk = PG_GETARG_TEXT_PP(1);
	rk = PG_GETARG_TEXT_PP(2);
	check_key_args(pk, rk);
	sel = select_list_parse(PG_ARGISNULL(3) ? NULL : PG_GETARG_TEXT_PP(3));
	if (get_call_result_type(fcinfo, NULL, &rowdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "tablestore.get_entity must return a composite type");
	args[0] = PointerGetDatum(pk);
	args[1] = PointerGetDatum(rk);
	r = fast_get(&t, pk, rk, values, nulls);
	if (r == FAST_NOT_FOUND)
		raise_not_found(pk, rk);
	if (r == FAST_NOT_USED)
	{
		ts_spi_begin();
		if (SPI_execute_plan(ts_plan_get(&t, PLAN_GET), args, NULL, true, 1) < 0)
			elog(ERROR, "tablestore: SPI_execute_plan failed");
		if (SPI_processed == 0)
			raise_not_found(pk, rk);
		/* SPI_copytuple allocates in the caller's context, so the values outlive SPI_finish */
		heap_deform_tuple(SPI_copytuple(SPI_tuptable->vals[0]), SPI_tuptable->tupdesc, values, nulls);
		ts_spi_end();
	}
	if (sel != NULL)
	{
		EntityView	v;

		entity_view_of(&v, DatumGetEntityPP(values[4]));
		values[4] = PointerGetDatum(entity_project(&v, sel));
	}
	rowdesc = BlessTupleDesc(rowdesc);
	row = heap_form_tuple(rowdesc, values, nulls);
	PG_RETURN_DATUM(HeapTupleGetDatum(row));
}
