/*
 * entity_dml.c - the single-entity operations of contract §4 (entity_dml.h), and their SQL
 * functions insert_entity, update_entity, merge_entity, upsert_entity, delete_entity, get_entity.
 *
 * Each runs on the direct path where it applies (fast_path.c) and otherwise as one prepared
 * statement (entity_sql.c) as the calling user, so table privileges and row-level security apply
 * and the trigger stamps Timestamp and ETag. When a conditional statement touches no row, one
 * more lookup tells ResourceNotFound from UpdateConditionNotSatisfied (and a lost race, which is
 * run again, from a write a trigger of the user's cancelled).
 */
#include "entity_dml.h"

#include "access/htup_details.h"
#include "entity_sql.h"
#include "etag.h"
#include "fast_path.h"
#include "funcapi.h"
#include "select_list.h"
#include "table_layout.h"
#include "ts_support.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/rls.h"
#include "utils/timestamp.h"
#include "remote_call.h"

void
entity_dml_split(Entity *e, EntityArg *out)
{
	EntityView	v;
	TsError		err = {0};

	entity_view_of(&v, e);
	if (!v.keys.has_pk || !v.keys.has_rk)
		ts_raisef(TSE_MISSING_KEY, "the entity has no %s", v.keys.has_pk ? "RowKey" : "PartitionKey");
	out->pk = cstring_to_text_with_len(v.keys.pk, v.keys.pk_len);
	out->rk = cstring_to_text_with_len(v.keys.rk, v.keys.rk_len);
	out->props = entity_without_keys(&v, &err);
	if (out->props == NULL)
		ts_raise(&err);
}

/*
 * Run a write statement; returns false when it touched no row, else the stamp of the row it
 * returned (etag, timestamp), copied out of SPI. The statement runs to its end (no row count limit): a
 * ModifyTable stopped after its first RETURNING row never fires the AFTER STATEMENT triggers.
 */
static bool
run_write(const TsTable *t, TsPlanKind kind, Datum *args, int nargs, WriteStamp *out)
{
	SPIPlanPtr	plan = ts_plan_get(t, kind);
	int			rc = SPI_execute_plan(plan, args, NULL, false, 0);
	bool		isnull,
				ts_null;
	Datum		d,
				ts;

	if (rc < 0)
		elog(ERROR, "tablestore: SPI_execute_plan failed: %s", SPI_result_code_string(rc));
	if (SPI_processed == 0)
		return false;
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	ts = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &ts_null);
	stamp_written(ts_null ? 0 : DatumGetTimestampTz(ts), isnull ? NULL : DatumGetTextPP(d), out);
	/* the ETag out of SPI's memory, which SPI_finish frees */
	out->etag = (text *) DatumGetPointer(SPI_datumTransfer(PointerGetDatum(out->etag), false, -1));
	return true;
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
text *
entity_dml_current_etag(const TsTable *t, text *pk, text *rk)
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

void
entity_dml_raise_if_rls(const TsTable *t, text *pk, text *rk, const char *verb, const char *detail,
						const char *prefix)
{
	TsError		err = {0};

	if (check_enable_rls(t->relid, InvalidOid, true) != RLS_ENABLED)
		return;
	ts_fail(&err, TSE_KEY_SCOPE, "row-level security does not let role %s %s the entity %s",
			GetUserNameFromId(GetUserId(), false), verb, ts_keys_excerpt(pk, rk));
	if (detail != NULL)
		ts_fail_detail(&err, "%s", detail);
	if (prefix != NULL)
		ts_raise_prefixed(&err, prefix);
	ts_raise(&err);
}

/* How often a conditional statement is run again after losing a race (see below). */
#define LOST_RACE_RETRIES 3

/*
 * A conditional SQL write (kind) touched nothing: run it again while the entity exists, matches,
 * and no trigger of the user's could have cancelled the write - the statement then only lost a
 * race (it ran on a snapshot without the entity, or the version it found was deleted and the
 * entity inserted again). Otherwise raise what is true: ResourceNotFound, UpdateConditionNotSatisfied,
 * or "a trigger cancelled the write".
 */
static WriteStamp
rerun_or_raise(const TsTable *t, TsPlanKind kind, Datum *args, int nargs, text *pk, text *rk,
			   IfMatch im, text *if_match, CmdType cmd)
{
	WriteStamp	w;
	text	   *seen = NULL;

	for (int attempt = 0;; attempt++)
	{
		text	   *etag = entity_dml_current_etag(t, pk, rk);

		if (etag == NULL)
			raise_not_found(pk, rk);
		if (im == IF_MATCH_ETAG && !etag_matches(etag, if_match))
			raise_condition_failed(pk, rk);
		if (stamp_user_row_trigger(t->relid, cmd))
			ts_raise_write_cancelled(NULL);

		/*
		 * The same version readable before and after a write that touched nothing did not change
		 * meanwhile: a row-level security policy of the command hides it from this role (one that
		 * lets the role read the entity but not update or delete it). Retrying cannot help.
		 */
		if (seen != NULL && ts_key_cmp(etag, seen) == 0)
			entity_dml_raise_if_rls(t, pk, rk, cmd == CMD_DELETE ? "delete" : "update", NULL, NULL);
		seen = etag;
		if (attempt == LOST_RACE_RETRIES)
			ereport(ERROR,
					(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
					 errmsg("could not write the entity %s: it changed concurrently", ts_keys_excerpt(pk, rk)),
					 errhint("Retry the operation.")));
		if (run_write(t, kind, args, nargs, &w))
			return w;
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

void
entity_dml_check_keys(text *pk, text *rk)
{
	TsError		err = {0};

	if (!entity_check_key(VARDATA_ANY(pk), VARSIZE_ANY_EXHDR(pk), "PartitionKey", &err) ||
		!entity_check_key(VARDATA_ANY(rk), VARSIZE_ANY_EXHDR(rk), "RowKey", &err))
		ts_raise(&err);
}

/* ---------- the operations ---------- */

WriteStamp
entity_dml_insert(const TsTable *t, const EntityArg *ea)
{
	WriteStamp	w = {0};
	volatile bool written = false;
	MemoryContext outer = CurrentMemoryContext;

	/*
	 * A plain INSERT (ON CONFLICT's extra index probe costs more than it saves); a violation of
	 * the table's primary key becomes EntityAlreadyExists. The error is re-thrown at once, so no
	 * subtransaction is needed: nothing runs between catching and raising.
	 */
	PG_TRY();
	{
		FastResult	r = fast_insert(t, ea->pk, ea->rk, ea->props, &w);

		if (r == FAST_OK)
			written = true;
		else if (r == FAST_NOT_USED)
		{
			Datum		args[3] = {PointerGetDatum(ea->pk), PointerGetDatum(ea->rk), EntityPGetDatum(ea->props)};

			ts_spi_begin();
			written = run_write(t, PLAN_INSERT, args, 3, &w);
			ts_spi_end();
		}
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(outer);
		edata = CopyErrorData();
		if (edata->sqlerrcode == ERRCODE_UNIQUE_VIOLATION && ts_table_is_primary_key(t, edata->constraint_name))
		{
			FlushErrorState();
			ts_raisef(TSE_ENTITY_EXISTS, "the entity %s already exists", ts_keys_excerpt(ea->pk, ea->rk));
		}
		PG_RE_THROW();
	}
	PG_END_TRY();
	if (!written)
		ts_raise_write_cancelled(NULL);
	return w;
}

WriteStamp
entity_dml_update(const TsTable *t, const EntityArg *ea, bool merge, text *if_match)
{
	IfMatch		im = etag_parse_if_match(if_match);
	Datum		args[4] = {PointerGetDatum(ea->pk), PointerGetDatum(ea->rk), EntityPGetDatum(ea->props),
	PointerGetDatum(if_match)};
	WriteStamp	w = {0};
	FastResult	r;
	TsPlanKind	kind;
	int			nargs;

	r = fast_update(t, ea->pk, ea->rk, ea->props, merge, im == IF_MATCH_ANY ? NULL : if_match, &w);
	if (r != FAST_NOT_USED)
	{
		raise_fast_failure(r, ea->pk, ea->rk);
		return w;
	}
	kind = merge ? (im == IF_MATCH_ANY ? PLAN_MERGE_ANY : PLAN_MERGE_IF) :
		(im == IF_MATCH_ANY ? PLAN_UPDATE_ANY : PLAN_UPDATE_IF);
	nargs = im == IF_MATCH_ANY ? 3 : 4;
	ts_spi_begin();
	if (!run_write(t, kind, args, nargs, &w))
		w = rerun_or_raise(t, kind, args, nargs, ea->pk, ea->rk, im, if_match, CMD_UPDATE);
	ts_spi_end();
	return w;
}

WriteStamp
entity_dml_upsert(const TsTable *t, const EntityArg *ea, bool merge)
{
	Datum		args[3] = {PointerGetDatum(ea->pk), PointerGetDatum(ea->rk), EntityPGetDatum(ea->props)};
	WriteStamp	w = {0};
	bool		written;

	ts_spi_begin();
	written = run_write(t, merge ? PLAN_UPSERT_MERGE : PLAN_UPSERT_REPLACE, args, 3, &w);
	ts_spi_end();
	if (!written)
		ts_raise_write_cancelled(NULL);
	return w;
}

void
entity_dml_delete(const TsTable *t, text *pk, text *rk, text *if_match)
{
	IfMatch		im = etag_parse_if_match(if_match);
	Datum		args[3] = {PointerGetDatum(pk), PointerGetDatum(rk), PointerGetDatum(if_match)};
	TsPlanKind	kind = im == IF_MATCH_ANY ? PLAN_DELETE_ANY : PLAN_DELETE_IF;
	FastResult	r;
	WriteStamp	w;

	entity_dml_check_keys(pk, rk);
	r = fast_delete(t, pk, rk, im == IF_MATCH_ANY ? NULL : if_match);
	if (r != FAST_NOT_USED)
	{
		raise_fast_failure(r, pk, rk);
		return;
	}
	ts_spi_begin();
	if (!run_write(t, kind, args, im == IF_MATCH_ANY ? 2 : 3, &w))
		(void) rerun_or_raise(t, kind, args, im == IF_MATCH_ANY ? 2 : 3, pk, rk, im, if_match, CMD_DELETE);
	ts_spi_end();
}

void
entity_dml_get(const TsTable *t, text *pk, text *rk, Datum *values, bool *nulls)
{
	Datum		args[2] = {PointerGetDatum(pk), PointerGetDatum(rk)};
	FastResult	r;

	entity_dml_check_keys(pk, rk);
	r = fast_get(t, pk, rk, values, nulls);
	if (r == FAST_NOT_FOUND)
		raise_not_found(pk, rk);
	if (r == FAST_NOT_USED)
	{
		ts_spi_begin();
		if (SPI_execute_plan(ts_plan_get(t, PLAN_GET), args, NULL, true, 1) < 0)
			elog(ERROR, "tablestore: SPI_execute_plan failed");
		if (SPI_processed == 0)
			raise_not_found(pk, rk);
		/* SPI_copytuple allocates in the caller's context, so the values outlive SPI_finish */
		heap_deform_tuple(SPI_copytuple(SPI_tuptable->vals[0]), SPI_tuptable->tupdesc, values, nulls);
		ts_spi_end();
	}
}

/* ---------- the SQL functions ---------- */

/* The table and entity arguments of the writers: (tbl, entity, ...) */
static void
table_and_entity(FunctionCallInfo fcinfo, TsTable *t, EntityArg *ea)
{
	ts_require_arg(fcinfo, 0, "tbl");
	ts_require_arg(fcinfo, 1, "entity");
	ts_table_resolve(PG_GETARG_TEXT_PP(0), t);
	entity_dml_split(PG_GETARG_ENTITY_PP(1), ea);
}

PG_FUNCTION_INFO_V1(tablestore_insert_entity);
Datum
tablestore_insert_entity(PG_FUNCTION_ARGS)
{
	TsTable		t;
	EntityArg	ea;

	table_and_entity(fcinfo, &t, &ea);
	TS_FORWARD_IF_REMOTE(fcinfo, &t, ea.pk, ACL_INSERT, true);
	PG_RETURN_TEXT_P(entity_dml_insert(&t, &ea).etag);
}

/* update_entity and merge_entity: (tbl, entity, if_match) */
static Datum
conditional_update(FunctionCallInfo fcinfo, bool merge)
{
	TsTable		t;
	EntityArg	ea;

	ts_require_arg(fcinfo, 2, "if_match");
	table_and_entity(fcinfo, &t, &ea);
	TS_FORWARD_IF_REMOTE(fcinfo, &t, ea.pk, ACL_UPDATE | ACL_SELECT, true);
	PG_RETURN_TEXT_P(entity_dml_update(&t, &ea, merge, PG_GETARG_TEXT_PP(2)).etag);
}

PG_FUNCTION_INFO_V1(tablestore_update_entity);
Datum
tablestore_update_entity(PG_FUNCTION_ARGS)
{
	return conditional_update(fcinfo, false);
}

PG_FUNCTION_INFO_V1(tablestore_merge_entity);
Datum
tablestore_merge_entity(PG_FUNCTION_ARGS)
{
	return conditional_update(fcinfo, true);
}

PG_FUNCTION_INFO_V1(tablestore_upsert_entity);
Datum
tablestore_upsert_entity(PG_FUNCTION_ARGS)
{
	TsTable		t;
	EntityArg	ea;
	text	   *mode;
	bool		merge;

	ts_require_arg(fcinfo, 2, "mode");
	mode = PG_GETARG_TEXT_PP(2);
	if (VARSIZE_ANY_EXHDR(mode) == 5 && memcmp(VARDATA_ANY(mode), "merge", 5) == 0)
		merge = true;
	else if (VARSIZE_ANY_EXHDR(mode) == 7 && memcmp(VARDATA_ANY(mode), "replace", 7) == 0)
		merge = false;
	else
		ts_raisef(TSE_INVALID_INPUT, "upsert mode must be 'merge' or 'replace'");
	table_and_entity(fcinfo, &t, &ea);
	TS_FORWARD_IF_REMOTE(fcinfo, &t, ea.pk, ACL_INSERT | ACL_UPDATE, true);
	PG_RETURN_TEXT_P(entity_dml_upsert(&t, &ea, merge).etag);
}

void
entity_dml_delete_args(FunctionCallInfo fcinfo, TsTable *t)
{
	ts_require_arg(fcinfo, 0, "tbl");
	ts_require_arg(fcinfo, 1, "partition_key");
	ts_require_arg(fcinfo, 2, "row_key");
	ts_require_arg(fcinfo, 3, "if_match");
	ts_table_resolve(PG_GETARG_TEXT_PP(0), t);
}

PG_FUNCTION_INFO_V1(tablestore_delete_entity);
Datum
tablestore_delete_entity(PG_FUNCTION_ARGS)
{
	TsTable		t;

	entity_dml_delete_args(fcinfo, &t);
	TS_FORWARD_IF_REMOTE(fcinfo, &t, PG_GETARG_TEXT_PP(1), ACL_DELETE | ACL_SELECT, true);
	entity_dml_delete(&t, PG_GETARG_TEXT_PP(1), PG_GETARG_TEXT_PP(2), PG_GETARG_TEXT_PP(3));
	PG_RETURN_VOID();
}

PG_FUNCTION_INFO_V1(tablestore_get_entity);
Datum
tablestore_get_entity(PG_FUNCTION_ARGS)
{
	TsTable		t;
	SelectList *sel;
	TupleDesc	rowdesc;
	Datum		values[Natts_tablestore_table];
	bool		nulls[Natts_tablestore_table];

	ts_require_arg(fcinfo, 0, "tbl");
	ts_require_arg(fcinfo, 1, "partition_key");
	ts_require_arg(fcinfo, 2, "row_key");
	ts_table_resolve(PG_GETARG_TEXT_PP(0), &t);
	sel = select_list_parse(PG_ARGISNULL(3) ? NULL : PG_GETARG_TEXT_PP(3));
	if (get_call_result_type(fcinfo, NULL, &rowdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "tablestore.get_entity must return a composite type");
	TS_FORWARD_IF_REMOTE(fcinfo, &t, PG_GETARG_TEXT_PP(1), ACL_SELECT, false);
	entity_dml_get(&t, PG_GETARG_TEXT_PP(1), PG_GETARG_TEXT_PP(2), values, nulls);
	etag_show_row(values, nulls);
	if (sel != NULL)
	{
		EntityView	v;

		entity_view_of(&v, DatumGetEntityPP(values[TS_COL_PROPS]));
		values[TS_COL_PROPS] = EntityPGetDatum(entity_project(&v, sel));
	}
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(rowdesc), values, nulls)));
}
