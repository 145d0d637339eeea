/*
 * stamp_trigger.c - tablestore.stamp(): the BEFORE INSERT OR UPDATE row trigger of every table.
 *
 * On every write, from the extension's functions or from plain SQL, it:
 *   - takes PartitionKey/RowKey found inside properties into the key columns (they must agree when
 *     both are given) and removes them from properties; a NULL properties becomes {};
 *   - rejects a missing key, invalid keys, an entity over 1 MiB counting the keys, and an UPDATE
 *     that changes the keys (Azure keys are immutable: delete and insert instead);
 *   - sets timestamp (never earlier than the row's previous one) and a new ETag, ignoring any
 *     value the client supplied.
 * Logical replication applies rows with session_replication_role = replica, where this trigger
 * does not fire, so a subscriber keeps the publisher's Timestamps and ETags.
 */
#include "entity.h"

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_trigger.h"
#include "commands/trigger.h"
#include "etag.h"
#include "executor/spi.h"
#include "stamp.h"
#include "ts_table.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/timestamp.h"

enum
{
	COL_PK, COL_RK, COL_TS, COL_ETAG, COL_PROPS, NCOLS
};

static const char *const col_names[NCOLS] = {"partition_key", "row_key", "timestamp", "etag", "properties"};

static bool
text_equal_bytes(text *t, const char *s, uint32 len)
{
	return VARSIZE_ANY_EXHDR(t) == len && memcmp(VARDATA_ANY(t), s, len) == 0;
}

/* Reconcile a key column with the same key inside properties. */
static text *
merge_key(bool col_null, text *col, bool in_entity, const char *ek, uint32 eklen, const char *which)
{
	if (!in_entity)
		return col_null ? NULL : col;
	if (col_null)
		return cstring_to_text_with_len(ek, eklen);
	if (!text_equal_bytes(col, ek, eklen))
		ts_raisef(TSE_INVALID_KEY, "the %s inside properties differs from the %s column", which,
				  strcmp(which, "PartitionKey") == 0 ? "partition_key" : "row_key");
	return col;
}

PG_FUNCTION_INFO_V1(tablestore_stamp);
Datum
tablestore_stamp(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	TupleDesc	desc;
	HeapTuple	tuple;
	bool		is_update;
	int			att[NCOLS];
	Datum		d;
	bool		isnull;
	text	   *pk,
			   *rk;
	bool		pk_null,
				rk_null;
	Entity	   *props;
	EntityView	v;
	EntityKeys	keys = {0};
	TimestampTz now;
	int			cols[NCOLS];
	Datum		values[NCOLS];
	bool		nulls[NCOLS] = {0};
	int			n = 0;
	bool		write_props;
	TsError		err = {0};

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_BEFORE(td->tg_event) ||
		!TRIGGER_FIRED_FOR_ROW(td->tg_event) || TRIGGER_FIRED_BY_DELETE(td->tg_event) ||
		TRIGGER_FIRED_BY_TRUNCATE(td->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("tablestore.stamp() must run as a BEFORE INSERT OR UPDATE FOR EACH ROW trigger")));

	desc = RelationGetDescr(td->tg_relation);
	is_update = TRIGGER_FIRED_BY_UPDATE(td->tg_event);
	tuple = is_update ? td->tg_newtuple : td->tg_trigtuple;
	for (int c = 0; c < NCOLS; c++)
	{
		att[c] = SPI_fnumber(desc, col_names[c]);
		if (att[c] <= 0)
			ereport(ERROR,
					(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
					 errmsg("tablestore.stamp() fired on \"%s\", which has no column \"%s\"",
							RelationGetRelationName(td->tg_relation), col_names[c])));
	}
	if (!ts_table_columns_ok(desc, att))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("tablestore.stamp() fired on \"%s\", whose columns are not those of a tablestore table",
						RelationGetRelationName(td->tg_relation)),
				 errdetail("partition_key, row_key and etag must be text, timestamp timestamptz, properties tablestore.entity.")));

	d = heap_getattr(tuple, att[COL_PK], desc, &pk_null);
	pk = pk_null ? NULL : DatumGetTextPP(d);
	d = heap_getattr(tuple, att[COL_RK], desc, &rk_null);
	rk = rk_null ? NULL : DatumGetTextPP(d);
	d = heap_getattr(tuple, att[COL_PROPS], desc, &isnull);
	write_props = isnull;		/* NULL properties become {} */
	if (isnull)
		props = entity_build(NULL, 0, NULL, 0, &err);
	else
		props = DatumGetEntityPP(d);
	entity_view_of(&v, props);

	/* Keys given inside properties move to the key columns. */
	if (v.keys.has_pk || v.keys.has_rk)
	{
		PropRef    *all = palloc(sizeof(PropRef) * (v.nprops + 1));

		pk = merge_key(pk_null, pk, v.keys.has_pk, v.keys.pk, v.keys.pk_len, "PartitionKey");
		rk = merge_key(rk_null, rk, v.keys.has_rk, v.keys.rk, v.keys.rk_len, "RowKey");
		pk_null = (pk == NULL);
		rk_null = (rk == NULL);
		for (uint32 i = 0; i < v.nprops; i++)
			entity_view_prop(&v, i, &all[i]);
		props = entity_build(all, (int) v.nprops, NULL, 0, &err);
		if (props == NULL)
			ts_raise(&err);
		entity_view_of(&v, props);
		cols[n] = att[COL_PK];
		values[n] = PointerGetDatum(pk);
		nulls[n++] = pk_null;
		cols[n] = att[COL_RK];
		values[n] = PointerGetDatum(rk);
		nulls[n++] = rk_null;
		write_props = true;
	}
	if (pk_null || rk_null)
		ts_raisef(TSE_MISSING_KEY, "an entity needs a %s", pk_null ? "PartitionKey" : "RowKey");

	keys.has_pk = keys.has_rk = true;
	keys.pk = VARDATA_ANY(pk);
	keys.pk_len = VARSIZE_ANY_EXHDR(pk);
	keys.rk = VARDATA_ANY(rk);
	keys.rk_len = VARSIZE_ANY_EXHDR(rk);
	if (!entity_check_key(keys.pk, keys.pk_len, "PartitionKey", &err) ||
		!entity_check_key(keys.rk, keys.rk_len, "RowKey", &err) ||
		!entity_check_size(&v, &keys, &err))
		ts_raise(&err);

	if (is_update)
	{
		HeapTuple	old = td->tg_trigtuple;
		bool		old_null;
		Datum		old_ts;
		TimestampTz prev;

		d = heap_getattr(old, att[COL_PK], desc, &old_null);
		if (old_null || !text_equal_bytes(DatumGetTextPP(d), keys.pk, keys.pk_len))
			ts_raisef(TSE_KEY_CHANGED, "the keys of an entity cannot change; delete it and insert a new one");
		d = heap_getattr(old, att[COL_RK], desc, &old_null);
		if (old_null || !text_equal_bytes(DatumGetTextPP(d), keys.rk, keys.rk_len))
			ts_raisef(TSE_KEY_CHANGED, "the keys of an entity cannot change; delete it and insert a new one");
		old_ts = heap_getattr(old, att[COL_TS], desc, &old_null);
		prev = old_null ? 0 : DatumGetTimestampTz(old_ts);
		now = stamp_time(old_null ? NULL : &prev);
	}
	else
		now = stamp_time(NULL);

	if (write_props)
	{
		cols[n] = att[COL_PROPS];
		values[n] = PointerGetDatum(props);
		nulls[n++] = false;
	}
	cols[n] = att[COL_TS];
	values[n] = TimestampTzGetDatum(now);
	nulls[n++] = false;
	cols[n] = att[COL_ETAG];
	values[n] = PointerGetDatum(etag_make(now));
	nulls[n++] = false;

	return PointerGetDatum(heap_modify_tuple_by_cols(tuple, desc, n, cols, values, nulls));
}

TimestampTz
stamp_time(const TimestampTz *prev)
{
	TimestampTz now = GetCurrentTimestamp();

	return (prev && *prev > now) ? *prev : now;
}

/* The OID of tablestore.stamp(), learnt from the first trigger that has it. */
static Oid	stamp_fn_oid = InvalidOid;

bool
stamp_trigger_only(Relation rel)
{
	TriggerDesc *td = rel->trigdesc;
	Trigger    *tg;
	int16		type = TRIGGER_TYPE_ROW | TRIGGER_TYPE_BEFORE | TRIGGER_TYPE_INSERT | TRIGGER_TYPE_UPDATE;

	if (td == NULL || td->numtriggers != 1 || SessionReplicationRole != SESSION_REPLICATION_ROLE_ORIGIN)
		return false;
	tg = &td->triggers[0];
	if (tg->tgenabled != TRIGGER_FIRES_ON_ORIGIN || tg->tgtype != type || tg->tgnargs != 0 ||
		tg->tgqual != NULL || tg->tgisinternal)
		return false;
	if (tg->tgfoid != stamp_fn_oid)
	{
		char	   *name = get_func_name(tg->tgfoid);

		if (name == NULL || strcmp(name, "stamp") != 0 ||
			get_func_namespace(tg->tgfoid) != get_namespace_oid("tablestore", true))
			return false;
		stamp_fn_oid = tg->tgfoid;
	}
	return true;
}
