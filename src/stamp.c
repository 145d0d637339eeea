/*
 * stamp.c - the stamp policy (stamp.h): keys, size, Timestamp and ETag of every row written.
 */
#include "stamp.h"

#include "catalog/namespace.h"
#include "catalog/pg_trigger.h"
#include "commands/trigger.h"
#include "entity.h"
#include "etag.h"
#include "table_layout.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/timestamp.h"

static bool
text_equal_bytes(text *t, const char *s, uint32 len)
{
	return VARSIZE_ANY_EXHDR(t) == len && memcmp(VARDATA_ANY(t), s, len) == 0;
}

/* Reconcile a key column with the same key found inside properties. */
static void
take_key_from_entity(Datum *values, bool *nulls, int col, const char *ek, uint32 eklen)
{
	if (nulls[col])
	{
		values[col] = PointerGetDatum(cstring_to_text_with_len(ek, eklen));
		nulls[col] = false;
	}
	else if (!text_equal_bytes(DatumGetTextPP(values[col]), ek, eklen))
		ts_raisef(TSE_INVALID_KEY, "the %s inside properties differs from the %s column",
				  col == TS_COL_PK ? "PartitionKey" : "RowKey", ts_column_names[col]);
}

/* The Timestamp of a write: now, but never earlier than the replaced version's (prev, if any). */
static TimestampTz
stamp_time(const TimestampTz *prev)
{
	TimestampTz now = GetCurrentTimestamp();

	return (prev && *prev > now) ? *prev : now;
}

void
stamp_row(Relation rel, Datum *values, bool *nulls, const Datum *old_values, const bool *old_nulls,
		  bool checked)
{
	TimestampTz ts;

	if (!checked)
	{
		Entity	   *props;
		bool		rebuilt = nulls[TS_COL_PROPS];
		EntityView	v;
		EntityKeys	keys = {.has_pk = true, .has_rk = true};
		text	   *pk,
				   *rk;
		TsError		err = {0};

		props = nulls[TS_COL_PROPS] ? entity_build(NULL, 0, NULL, 0, &err) :
			DatumGetEntityPP(values[TS_COL_PROPS]);
		entity_view_of(&v, props);
		if (v.keys.has_pk || v.keys.has_rk)
		{
			/* keys given inside properties move to the key columns */
			if (v.keys.has_pk)
				take_key_from_entity(values, nulls, TS_COL_PK, v.keys.pk, v.keys.pk_len);
			if (v.keys.has_rk)
				take_key_from_entity(values, nulls, TS_COL_RK, v.keys.rk, v.keys.rk_len);
			props = entity_without_keys(&v, &err);
			if (props == NULL)
				ts_raise(&err);
			entity_view_of(&v, props);
			rebuilt = true;
		}
		if (rebuilt)
		{
			/* (else the stored datum stays as it came, toasted or not) */
			values[TS_COL_PROPS] = EntityPGetDatum(props);
			nulls[TS_COL_PROPS] = false;
		}
		if (nulls[TS_COL_PK] || nulls[TS_COL_RK])
			ts_raisef(TSE_MISSING_KEY, "an entity needs a %s", nulls[TS_COL_PK] ? "PartitionKey" : "RowKey");

		pk = DatumGetTextPP(values[TS_COL_PK]);
		rk = DatumGetTextPP(values[TS_COL_RK]);
		keys.pk = VARDATA_ANY(pk);
		keys.pk_len = VARSIZE_ANY_EXHDR(pk);
		keys.rk = VARDATA_ANY(rk);
		keys.rk_len = VARSIZE_ANY_EXHDR(rk);
		if (!entity_check_key(keys.pk, keys.pk_len, "PartitionKey", &err) ||
			!entity_check_key(keys.rk, keys.rk_len, "RowKey", &err) ||
			!entity_check_size(&v, &keys, &err))
			ts_raise(&err);
		if (old_values != NULL &&
			(old_nulls[TS_COL_PK] || old_nulls[TS_COL_RK] ||
			 !text_equal_bytes(DatumGetTextPP(old_values[TS_COL_PK]), keys.pk, keys.pk_len) ||
			 !text_equal_bytes(DatumGetTextPP(old_values[TS_COL_RK]), keys.rk, keys.rk_len)))
			ts_raisef(TSE_KEY_CHANGED, "the keys of an entity cannot change; delete it and insert a new one");
	}

	if (old_values != NULL && !old_nulls[TS_COL_TS])
	{
		TimestampTz prev = DatumGetTimestampTz(old_values[TS_COL_TS]);

		ts = stamp_time(&prev);
	}
	else
		ts = stamp_time(NULL);
	values[TS_COL_TS] = TimestampTzGetDatum(ts);
	nulls[TS_COL_TS] = false;
	values[TS_COL_ETAG] = PointerGetDatum(etag_make(ts));
	nulls[TS_COL_ETAG] = false;
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
