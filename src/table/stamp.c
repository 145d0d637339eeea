/*
 * stamp.c - the stamp policy (stamp.h): keys, size, Timestamp and ETag of every row written.
 */
#include "stamp.h"
#include "stamp_import.h"

#include <time.h>

#include "access/genam.h"
#include "access/heapam.h"
#include "access/relation.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "executor/tuptable.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "utils/fmgroids.h"
#include "utils/snapmgr.h"
#include "catalog/namespace.h"
#include "catalog/pg_trigger.h"
#include "commands/trigger.h"
#include "edm.h"
#include "entity.h"
#include "etag.h"
#include "table_layout.h"
#include "ts_table.h"
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

/*
 * Now in ticks: the system clock at 100 ns, as the service's Timestamps carry them (seven
 * fractional digits), where PostgreSQL's clock (GetCurrentTimestamp) stops at the microsecond.
 */
static int64
stamp_clock_ticks(void)
{
	struct timespec now;

	if (clock_gettime(CLOCK_REALTIME, &now) != 0)
		return edm_ticks_from_pg_usec(GetCurrentTimestamp());
	return edm_ticks_from_unix((int64) now.tv_sec, (int64) now.tv_nsec);
}

/*
 * The Timestamp of a write in ticks: now, but strictly later than prev (the replaced version's, or
 * the latest deleted version's, if any): one tick later when the clock has not moved past it. (A
 * Timestamp at the end of the DateTime range, which only a row written with the trigger disabled
 * can have, stays there.)
 */
static int64
stamp_ticks(const int64 *prev)
{
	int64		now = stamp_clock_ticks();

	if (prev == NULL || *prev < now)
		return now;
	return *prev < EDM_TICKS_MAX ? *prev + 1 : EDM_TICKS_MAX;
}

/* The Timestamp in ticks of a row version (etag_row_stamp's, the one reading of the two columns). */
static int64
version_ticks(Datum ts, Datum etag, bool etag_null)
{
	RowStamp	rs;

	etag_row_stamp(DatumGetTimestampTz(ts), etag_null ? NULL : DatumGetTextPP(etag), &rs);
	return rs.ticks;
}

void
stamp_written(TimestampTz ts, text *etag, WriteStamp *out)
{
	RowStamp	rs;

	etag_row_stamp(ts, etag, &rs);
	out->etag = etag_row_stamp_text(&rs);
	out->ticks = rs.ticks;
}

/*
 * The transaction other than ours still writing the version the slot holds (inserting or deleting
 * it), or InvalidTransactionId: what a dirty snapshot says of it (dirty), read for a version that
 * an index scan under SnapshotAny returned (any) as the dirty scan would have read it, under the
 * buffer's share lock. A version dead to the dirty snapshot has no writer left. *token: the
 * speculative insertion token of a version INSERT ... ON CONFLICT is still deciding on, else 0.
 */
static TransactionId
version_writer(TupleTableSlot *slot, bool any, SnapshotData *dirty, uint32 *token)
{
	TransactionId x;

	if (any)
	{
		BufferHeapTupleTableSlot *bslot = (BufferHeapTupleTableSlot *) slot;
		bool		visible;

		LockBuffer(bslot->buffer, BUFFER_LOCK_SHARE);
		visible = HeapTupleSatisfiesVisibility(bslot->base.tuple, dirty, bslot->buffer);
		LockBuffer(bslot->buffer, BUFFER_LOCK_UNLOCK);
		if (!visible)
			return InvalidTransactionId;
	}
	x = TransactionIdIsValid(dirty->xmin) ? dirty->xmin : dirty->xmax;
	*token = TransactionIdIsValid(dirty->xmin) ? dirty->speculativeToken : 0;
	return (TransactionIdIsValid(x) && !TransactionIdIsCurrentTransactionId(x)) ? x : InvalidTransactionId;
}

/*
 * (stamp.h) One scan of the primary key over [rks[0], rks[n - 1]] in partition pk: wait for a
 * transaction still writing a version of one of the keys (why: wait_for_key_writers), then scan
 * again; remember each key's latest Timestamp among all its versions still in the table - dead
 * ones too: a version deleted by this transaction, or by one that committed, which a dirty
 * snapshot no longer shows, so that a re-inserted entity's Timestamp (and so its ETag) is later
 * than its deleted version's even when the clock has not moved past it. A heap table is read
 * under SnapshotAny for that (every version its index still points to; one that every
 * transaction sees as dead may have been removed, and is then older than the clock); another
 * table access method under a dirty snapshot. The range may hold other keys; past a few more of
 * them than keys it is not worth it, and the caller's rows look for themselves.
 */
bool
stamp_probe_keys(Relation rel, Relation pk_index, text *pk, text *const *rks, int n, KeyHistory *out)
{
	TupleTableSlot *slot;
	SnapshotData dirty;
	ScanKeyData sk[3];
	bool		done = true;
	bool		any;

	if (n < 1)
		return false;
	slot = table_slot_create(rel, NULL);
	any = TTS_IS_BUFFERTUPLE(slot) && rel->rd_tableam == GetHeapamTableAmRoutine();
	InitDirtySnapshot(dirty);
	ScanKeyEntryInitialize(&sk[0], 0, 1, BTEqualStrategyNumber, InvalidOid, pk_index->rd_indcollation[0],
						   F_TEXTEQ, PointerGetDatum(pk));
	ScanKeyEntryInitialize(&sk[1], 0, 2, BTGreaterEqualStrategyNumber, InvalidOid, pk_index->rd_indcollation[1],
						   F_TEXT_GE, PointerGetDatum(rks[0]));
	ScanKeyEntryInitialize(&sk[2], 0, 2, BTLessEqualStrategyNumber, InvalidOid, pk_index->rd_indcollation[1],
						   F_TEXT_LE, PointerGetDatum(rks[n - 1]));
	for (;;)
	{
		IndexScanDesc scan = index_beginscan(rel, pk_index, any ? SnapshotAny : &dirty, 3, 0);
		TransactionId xwait = InvalidTransactionId;
		uint32		token = 0;
		int			next = 0;	/* the scan is in key order: rks[next] is the first not passed */
		int			budget = n + 32;	/* other keys' entries this pass visits before giving up */

		for (int k = 0; k < n; k++)
			out[k] = (KeyHistory) {.known = true};
		index_rescan(scan, sk, 3, NULL, 0);
		while (index_getnext_slot(scan, ForwardScanDirection, slot))
		{
			bool		isnull;
			Datum		d = slot_getattr(slot, Anum_tablestore_row_key, &isnull);
			int			k;
			TransactionId x;

			CHECK_FOR_INTERRUPTS();
			while (!isnull && next < n && ts_key_cmp(rks[next], DatumGetTextPP(d)) < 0)
				next++;
			if (isnull || next == n || ts_key_cmp(rks[next], DatumGetTextPP(d)) != 0)
			{
				/* a key the caller does not insert */
				if (--budget < 0)
				{
					done = false;
					break;
				}
				continue;
			}
			k = next;
			x = version_writer(slot, any, &dirty, &token);
			if (TransactionIdIsValid(x))
			{
				xwait = x;
				break;
			}
			d = slot_getattr(slot, Anum_tablestore_timestamp, &isnull);
			if (!isnull)
			{
				bool		etag_null;
				Datum		etag = slot_getattr(slot, Anum_tablestore_etag, &etag_null);
				int64		t = version_ticks(d, etag, etag_null);

				if (!out[k].found || t > out[k].latest)
					out[k].latest = t;
				out[k].found = true;
			}
		}
		index_endscan(scan);
		if (!done || !TransactionIdIsValid(xwait))
			break;

		/*
		 * A speculative insertion (INSERT ... ON CONFLICT, before it knows whether it conflicts) is
		 * waited for on its token, as PostgreSQL's own ON CONFLICT and unique checks wait for one,
		 * never on its transaction: when it finds a conflict it kills its row, releases the token
		 * and waits in turn for the conflicting row's lock. Waiting for its transaction deadlocked
		 * a batch on the SQL path (issue 31): the batch locks an existing row of key K (FOR
		 * UPDATE), then its INSERT ... ON CONFLICT for K fires the stamp trigger, whose scan here
		 * met the speculative row of a single upsert of K that had passed its own pre-check before
		 * K's row was inserted; that upsert then killed its row and waited for the batch's lock on
		 * K while the batch waited for its transaction. Waiting on the token ends as the row dies
		 * (the next pass skips it) or is confirmed (the next pass waits for its writer: a single
		 * operation, whose statement waits for nothing once its row is in, since a batch would
		 * hold K's key lock). test/scenario/batch_deadlock_interleaving.sh forces that interleaving.
		 */
		if (token != 0)
			SpeculativeInsertionWait(xwait, token);
		else
			XactLockTableWait(xwait, rel, &slot->tts_tid, XLTW_InsertIndex);
	}
	ExecDropSingleTupleTableSlot(slot);
	if (!done)
		for (int k = 0; k < n; k++)
			out[k].known = false;
	return done;
}

/*
 * Before an INSERT is stamped: wait for every transaction still writing a version of its keys (an
 * insert or a delete in progress), then return the latest Timestamp (ticks) of a version still
 * there (the insert will then fail on the key). Stamping after the wait keeps a re-inserted
 * entity's Timestamp later than its deleted version's, which a reader that syncs on "Timestamp gt ..."
 * relies on; stamped before it, the Timestamp would be taken before the key was free. The scan of
 * stamp_probe_keys over one key: its range holds no other key, so it is never given up.
 */
static bool
wait_for_key_writers(Relation rel, Datum pk, Datum rk, int64 *latest)
{
	Oid			pk_index = RelationGetPrimaryKeyIndex(rel);
	Relation	idx;
	text	   *key = DatumGetTextPP(rk);
	KeyHistory	h;

	if (!OidIsValid(pk_index))
		return false;
	idx = index_open(pk_index, AccessShareLock);
	(void) stamp_probe_keys(rel, idx, DatumGetTextPP(pk), &key, 1, &h);
	index_close(idx, AccessShareLock);
	*latest = h.latest;
	return h.found;
}

void
stamp_row(Relation rel, Datum *values, bool *nulls, const Datum *old_values, const bool *old_nulls,
		  bool checked, const KeyHistory *history)
{
	int64		ticks;

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

	if (old_values == NULL && stamp_import_kept(rel, values[TS_COL_ETAG], nulls[TS_COL_ETAG], &ticks))
		;						/* an insert of the owner's import keeps the source's Timestamp */
	else if (old_values != NULL && !old_nulls[TS_COL_TS])
	{
		int64		prev = version_ticks(old_values[TS_COL_TS], old_values[TS_COL_ETAG], old_nulls[TS_COL_ETAG]);

		ticks = stamp_ticks(&prev);
	}
	else if (history != NULL && history->known)
		ticks = history->found ? stamp_ticks(&history->latest) : stamp_ticks(NULL);
	else
	{
		int64		latest;

		ticks = wait_for_key_writers(rel, values[TS_COL_PK], values[TS_COL_RK], &latest) ?
			stamp_ticks(&latest) : stamp_ticks(NULL);
	}
	values[TS_COL_TS] = TimestampTzGetDatum(edm_pg_usec_from_ticks(ticks));
	nulls[TS_COL_TS] = false;
	values[TS_COL_ETAG] = PointerGetDatum(etag_make(ticks));
	nulls[TS_COL_ETAG] = false;
}

/* The OID of tablestore.stamp(), learnt from the first trigger that has it. */
static Oid	stamp_fn_oid = InvalidOid;

static bool
is_stamp_function(Oid fn)
{
	char	   *name;

	if (fn == stamp_fn_oid)
		return true;
	name = get_func_name(fn);
	if (name == NULL || strcmp(name, "stamp") != 0 ||
		get_func_namespace(fn) != get_namespace_oid("tablestore", true))
		return false;
	stamp_fn_oid = fn;
	return true;
}

bool
stamp_user_row_trigger(Oid relid, CmdType cmd)
{
	Relation	rel = relation_open(relid, AccessShareLock);
	TriggerDesc *td = rel->trigdesc;
	bool		found = false;

	for (int i = 0; td != NULL && i < td->numtriggers && !found; i++)
	{
		Trigger    *tg = &td->triggers[i];

		found = TRIGGER_FOR_ROW(tg->tgtype) && TRIGGER_FOR_BEFORE(tg->tgtype) &&
			(cmd == CMD_DELETE ? TRIGGER_FOR_DELETE(tg->tgtype) : TRIGGER_FOR_UPDATE(tg->tgtype)) &&
			!is_stamp_function(tg->tgfoid);
	}
	relation_close(rel, AccessShareLock);
	return found;
}

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
	return is_stamp_function(tg->tgfoid);
}
