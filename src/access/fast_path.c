/*
 * fast_path.c - the direct path for single-entity operations (see fast_path.h for when it runs).
 *
 * Writes find the entity the way READ COMMITTED's UPDATE does (see find_and_lock) and compare
 * the If-Match ETag on the locked latest version, so the check cannot race with another writer.
 */
#include "fast_path.h"

#include "entity.h"
#include "etag.h"
#include "stamp.h"

#include "access/genam.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "utils/lsyscache.h"
#include "commands/trigger.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"
#include "utils/guc.h"
#include "utils/timestamp.h"

bool		ts_fast_path_enabled = true;

void
ts_fast_path_init(void)
{
	DefineCustomBoolVariable("tablestore.fast_path",
							 "Runs single-entity operations directly on the primary key where that keeps SQL's semantics.",
							 "When off, every operation runs as a prepared SQL statement. Both give the same results.",
							 &ts_fast_path_enabled, true, PGC_USERSET, 0, NULL, NULL, NULL);
}

/* Row-level triggers only: the executor routines used here do not fire statement triggers. */
static bool
triggers_ok(Relation rel, CmdType cmd)
{
	TriggerDesc *td = rel->trigdesc;

	if (td == NULL)
		return true;
	switch (cmd)
	{
		case CMD_INSERT:
			return !td->trig_insert_before_statement && !td->trig_insert_after_statement &&
				!td->trig_insert_new_table;
		case CMD_UPDATE:
			return !td->trig_update_before_statement && !td->trig_update_after_statement &&
				!td->trig_update_old_table && !td->trig_update_new_table;
		case CMD_DELETE:
			/* (a BEFORE ROW delete trigger could cancel the delete unseen: the SQL path sees it) */
			return !td->trig_delete_before_statement && !td->trig_delete_after_statement &&
				!td->trig_delete_old_table && !td->trig_delete_before_row;
		default:
			return true;
	}
}

/* Checks that need no relation; for writes they come before any lock is taken. */
static bool
context_ok(CmdType cmd)
{
	if (!ts_fast_path_enabled)
		return false;
	return cmd == CMD_SELECT ||
		!(XactReadOnly || IsInParallelMode() || IsolationUsesXactSnapshot());
}

/*
 * Inheritance children: SQL reads them with their parent, the primary key does not; the direct
 * path declines such a table. (relhassubclass may be left set after the last child is gone.)
 */
static bool
has_children(Relation rel)
{
	return rel->rd_rel->relhassubclass && find_inheritance_children(RelationGetRelid(rel), NoLock) != NIL;
}

/*
 * Citus keeps a distributed or reference table's rows in shards on its workers; the relation here
 * is an empty placeholder that only Citus's planner reads right. Such a table is in Citus's
 * catalog pg_dist_partition (logicalrelid, its first column); without Citus there is no such
 * catalog and the check is one cache lookup.
 */
static bool
citus_table(Oid relid)
{
	Oid			catalog = get_relname_relid("pg_dist_partition", PG_CATALOG_NAMESPACE);
	Relation	rel;
	SysScanDesc scan;
	ScanKeyData key;
	bool		found;

	if (!OidIsValid(catalog))
		return false;
	rel = table_open(catalog, AccessShareLock);
	ScanKeyInit(&key, 1, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(relid));
	scan = systable_beginscan(rel, InvalidOid, false, NULL, 1, &key);
	found = HeapTupleIsValid(systable_getnext(scan));
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return found;
}

/*
 * The caller resolved the table with ts_table_resolve, which checked its layout and holds a lock
 * that keeps it: what remains is what the direct path cannot do as SQL does.
 */
static bool
usable(Relation rel, AclMode needed, CmdType cmd)
{
	Oid			relid = RelationGetRelid(rel);

	return rel->rd_rel->relkind == RELKIND_RELATION &&
		rel->rd_rules == NULL &&
		check_enable_rls(relid, InvalidOid, true) != RLS_ENABLED &&
		pg_class_aclmask(relid, GetUserId(), needed, ACLMASK_ALL) == needed &&
		!has_children(rel) &&
		triggers_ok(rel, cmd) &&
		!citus_table(relid);
}

static void
init_pk_scankeys(ScanKey sk, Relation idx, text *pk, text *rk)
{
	ScanKeyEntryInitialize(&sk[0], 0, 1, BTEqualStrategyNumber, InvalidOid,
						   idx->rd_indcollation[0], F_TEXTEQ, PointerGetDatum(pk));
	ScanKeyEntryInitialize(&sk[1], 0, 2, BTEqualStrategyNumber, InvalidOid,
						   idx->rd_indcollation[1], F_TEXTEQ, PointerGetDatum(rk));
}

static Relation
open_pk_index(Relation rel, LOCKMODE lockmode)
{
	Oid			idx = RelationGetPrimaryKeyIndex(rel);

	if (!OidIsValid(idx))
		return NULL;
	return index_open(idx, lockmode);
}

/* Open the table and its primary key for a read on the direct path; false when it does not apply. */
static bool
open_for_read(const TsTable *t, Relation *rel, Relation *idx)
{
	if (!context_ok(CMD_SELECT))
		return false;
	*rel = table_open(t->relid, AccessShareLock);
	if (!usable(*rel, ACL_SELECT, CMD_SELECT) || (*idx = open_pk_index(*rel, AccessShareLock)) == NULL)
	{
		table_close(*rel, NoLock);
		return false;
	}
	return true;
}

FastResult
fast_get(const TsTable *t, text *pk, text *rk, Datum *values, bool *nulls)
{
	Relation	rel;
	Relation	idx;
	TupleTableSlot *slot;
	IndexScanDesc scan;
	ScanKeyData sk[2];
	FastResult	result = FAST_NOT_FOUND;

	if (!open_for_read(t, &rel, &idx))
		return FAST_NOT_USED;
	slot = table_slot_create(rel, NULL);
	init_pk_scankeys(sk, idx, pk, rk);
	scan = index_beginscan(rel, idx, GetActiveSnapshot(), 2, 0);
	index_rescan(scan, sk, 2, NULL, 0);
	if (index_getnext_slot(scan, ForwardScanDirection, slot))
	{
		HeapTuple	tup = ExecCopySlotHeapTuple(slot);

		heap_deform_tuple(tup, RelationGetDescr(rel), values, nulls);
		result = FAST_OK;
	}
	index_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
	index_close(idx, NoLock);
	table_close(rel, NoLock);
	return result;
}

/*
 * Find the entity and lock its latest version in lockmode, as READ COMMITTED's UPDATE does: look
 * it up with a fresh MVCC snapshot (what a new statement would see), then lock it following its
 * update chain to the newest version (what EvalPlanQual does). Returns false when the entity is
 * not there, or was deleted before it could be locked.
 *
 * (A dirty-snapshot probe, as logical replication uses, is not enough with concurrent writers: a
 * B-tree scan reads a leaf page's matching items once, so the index entry of a concurrent non-HOT
 * update can be missed while the version it replaced is already dead.)
 */
static bool
find_and_lock(Relation rel, Relation idx, text *pk, text *rk, LockTupleMode lockmode,
			  TupleTableSlot *slot)
{
	/*
	 * A version deleted while we waited for its lock may have been followed by a new insert of
	 * the entity: look again with a newer snapshot, a bounded number of times.
	 */
	for (int attempt = 0;; attempt++)
	{
		Snapshot	snap = RegisterSnapshot(GetLatestSnapshot());
		IndexScanDesc scan;
		ScanKeyData sk[2];
		bool		found;
		TM_FailureData tmfd;
		TM_Result	res = TM_Ok;

		init_pk_scankeys(sk, idx, pk, rk);
		scan = index_beginscan(rel, idx, snap, 2, 0);
		index_rescan(scan, sk, 2, NULL, 0);
		found = index_getnext_slot(scan, ForwardScanDirection, slot);
		index_endscan(scan);
		if (found)
			res = table_tuple_lock(rel, &slot->tts_tid, snap, slot, GetCurrentCommandId(false),
								   lockmode, LockWaitBlock, TUPLE_LOCK_FLAG_FIND_LAST_VERSION, &tmfd);
		UnregisterSnapshot(snap);
		if (!found)
			return false;
		if (res == TM_Ok)
			return true;
		if (res != TM_Deleted)
			elog(ERROR, "tablestore: unexpected result %d locking an entity", (int) res);
		if (attempt == 3)
			ereport(ERROR,
					(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
					 errmsg("could not lock the entity: it changed concurrently"),
					 errhint("Retry the operation.")));
	}
}

/* Executor state for one write, as logical replication's apply worker builds it. */
typedef struct WriteState
{
	Relation	rel;
	Relation	idx;
	EState	   *estate;
	ResultRelInfo *rri;
	bool		self_stamp;		/* the stamp trigger is left out: set the stamps here */
} WriteState;

static bool
begin_write(WriteState *ws, const TsTable *t, AclMode needed, CmdType cmd, bool need_index)
{
	RangeTblEntry *rte;

	if (!context_ok(cmd))
		return false;
	ws->rel = table_open(t->relid, RowExclusiveLock);
	ws->idx = NULL;
	if (!usable(ws->rel, needed, cmd) ||
		(need_index && (ws->idx = open_pk_index(ws->rel, RowExclusiveLock)) == NULL))
	{
		table_close(ws->rel, NoLock);
		return false;
	}
	ws->estate = CreateExecutorState();
	rte = makeNode(RangeTblEntry);
	rte->rtekind = RTE_RELATION;
	rte->relid = t->relid;
	rte->relkind = RELKIND_RELATION;
	rte->rellockmode = RowExclusiveLock;
	/* an update sets properties, as the SQL path's UPDATE does (for UPDATE OF triggers) */
	rte->updatedCols = bms_make_singleton(Anum_tablestore_properties - FirstLowInvalidHeapAttributeNumber);
	ExecInitRangeTable(ws->estate, list_make1(rte));
	ws->estate->es_output_cid = GetCurrentCommandId(true);
	ws->estate->es_snapshot = GetActiveSnapshot();
	ws->rri = makeNode(ResultRelInfo);
	InitResultRelInfo(ws->rri, ws->rel, 1, NULL, 0);
	ws->self_stamp = stamp_trigger_only(ws->rel);
	if (ws->self_stamp)
		ws->rri->ri_TrigDesc = NULL;
	/* the AFTER triggers' queue finds the table here rather than opening it again unclosed */
	ws->estate->es_opened_result_relations = list_make1(ws->rri);
	CheckValidResultRel(ws->rri, cmd);
	ExecOpenIndices(ws->rri, false);
	AfterTriggerBeginQuery();
	return true;
}

static void
end_write(WriteState *ws)
{
	AfterTriggerEndQuery(ws->estate);
	ExecCloseResultRelations(ws->estate);
	ExecResetTupleTable(ws->estate->es_tupleTable, false);
	FreeExecutorState(ws->estate);
	if (ws->idx)
		index_close(ws->idx, NoLock);
	table_close(ws->rel, NoLock);
	/* later commands of this transaction see the write, as after a SQL statement */
	CommandCounterIncrement();
}

/* The stamps of the row a slot holds after a write (copied). */
static void
slot_stamp(TupleTableSlot *slot, WriteStamp *out)
{
	bool		etag_null,
				ts_null;
	Datum		etag = slot_getattr(slot, Anum_tablestore_etag, &etag_null);
	Datum		ts = slot_getattr(slot, Anum_tablestore_timestamp, &ts_null);

	stamp_written(ts_null ? 0 : DatumGetTimestampTz(ts), etag_null ? NULL : DatumGetTextPP(etag), out);
}

/* Does the If-Match value (NULL: "*") match the version the slot holds? */
static bool
slot_etag_matches(TupleTableSlot *slot, text *if_match)
{
	bool		isnull;
	Datum		d;

	if (if_match == NULL)
		return true;
	d = slot_getattr(slot, Anum_tablestore_etag, &isnull);
	return !isnull && etag_matches(DatumGetTextPP(d), if_match);
}

/*
 * Insert one row through the executor's replication routines; returns false when a BEFORE ROW
 * trigger cancelled the insert (the slot then holds no stored row).
 */
static bool
write_insert(WriteState *ws, text *pk, text *rk, Entity *props, const KeyHistory *history, WriteStamp *out)
{
	TupleTableSlot *slot = ExecInitExtraTupleSlot(ws->estate, RelationGetDescr(ws->rel), &TTSOpsVirtual);

	ExecClearTuple(slot);
	memset(slot->tts_isnull, true, sizeof(bool) * Natts_tablestore_table);
	slot->tts_values[TS_COL_PK] = PointerGetDatum(pk);
	slot->tts_isnull[TS_COL_PK] = false;
	slot->tts_values[TS_COL_RK] = PointerGetDatum(rk);
	slot->tts_isnull[TS_COL_RK] = false;
	slot->tts_values[TS_COL_PROPS] = EntityPGetDatum(props);
	slot->tts_isnull[TS_COL_PROPS] = false;
	if (ws->self_stamp)			/* the entity was checked with its keys when it was read */
		stamp_row(ws->rel, slot->tts_values, slot->tts_isnull, NULL, NULL, true, history);
	ExecStoreVirtualTuple(slot);
	ExecSimpleRelationInsert(ws->rri, ws->estate, slot);	/* else the stamp trigger fills them */
	if (!ItemPointerIsValid(&slot->tts_tid))
		return false;
	slot_stamp(slot, out);
	return true;
}

FastResult
fast_insert(const TsTable *t, text *pk, text *rk, Entity *props, WriteStamp *out)
{
	WriteState	ws;
	bool		written;

	if (!begin_write(&ws, t, ACL_INSERT | ACL_SELECT, CMD_INSERT, false))
		return FAST_NOT_USED;
	written = write_insert(&ws, pk, rk, props, NULL, out);
	end_write(&ws);
	return written ? FAST_OK : FAST_CANCELLED;
}

/* stored || props, as the SQL path's merge computes it */
static Entity *
merge_props(Entity *stored, Entity *props)
{
	EntityView	a,
				b;
	TsError		err = {0};
	Entity	   *r;

	entity_view_of(&a, stored);
	entity_view_of(&b, props);
	if ((r = entity_merge(&a, &b, &err)) == NULL)
		ts_raise(&err);
	return r;
}

/* Find, lock, check and update one row. */
static FastResult
write_update(WriteState *ws, text *pk, text *rk, Entity *props, bool merge, text *if_match, WriteStamp *out)
{
	TupleTableSlot *oldslot,
			   *newslot;
	EPQState	epq;

	oldslot = table_slot_create(ws->rel, &ws->estate->es_tupleTable);
	if (!find_and_lock(ws->rel, ws->idx, pk, rk, LockTupleNoKeyExclusive, oldslot))
		return FAST_NOT_FOUND;
	if (!slot_etag_matches(oldslot, if_match))
		return FAST_CONDITION_FAILED;
	newslot = ExecInitExtraTupleSlot(ws->estate, RelationGetDescr(ws->rel), &TTSOpsVirtual);
	ExecClearTuple(newslot);
	slot_getallattrs(oldslot);
	memcpy(newslot->tts_values, oldslot->tts_values, sizeof(Datum) * Natts_tablestore_table);
	memcpy(newslot->tts_isnull, oldslot->tts_isnull, sizeof(bool) * Natts_tablestore_table);
	newslot->tts_values[TS_COL_PROPS] = EntityPGetDatum(merge && !oldslot->tts_isnull[TS_COL_PROPS] ?
		merge_props(DatumGetEntityPP(oldslot->tts_values[TS_COL_PROPS]), props) : props);
	newslot->tts_isnull[TS_COL_PROPS] = false;
	if (ws->self_stamp)			/* a merged entity is checked again (its size may have grown) */
		stamp_row(ws->rel, newslot->tts_values, newslot->tts_isnull, oldslot->tts_values,
				  oldslot->tts_isnull, !merge, NULL);
	ExecStoreVirtualTuple(newslot);
	EvalPlanQualInit(&epq, ws->estate, NULL, NIL, -1);
	ExecSimpleRelationUpdate(ws->rri, ws->estate, &epq, oldslot, newslot);
	EvalPlanQualEnd(&epq);
	if (!ItemPointerIsValid(&newslot->tts_tid))
		return FAST_CANCELLED;	/* a BEFORE ROW trigger returned NULL */
	slot_stamp(newslot, out);
	return FAST_OK;
}

FastResult
fast_update(const TsTable *t, text *pk, text *rk, Entity *props, bool merge, text *if_match, WriteStamp *out)
{
	WriteState	ws;
	FastResult	r;

	if (!begin_write(&ws, t, ACL_UPDATE | ACL_SELECT, CMD_UPDATE, true))
		return FAST_NOT_USED;
	r = write_update(&ws, pk, rk, props, merge, if_match, out);
	end_write(&ws);
	return r;
}

/* Find, lock, check and delete one row. */
static FastResult
write_delete(WriteState *ws, text *pk, text *rk, text *if_match)
{
	TupleTableSlot *oldslot = table_slot_create(ws->rel, &ws->estate->es_tupleTable);
	EPQState	epq;

	if (!find_and_lock(ws->rel, ws->idx, pk, rk, LockTupleExclusive, oldslot))
		return FAST_NOT_FOUND;
	if (!slot_etag_matches(oldslot, if_match))
		return FAST_CONDITION_FAILED;
	EvalPlanQualInit(&epq, ws->estate, NULL, NIL, -1);
	ExecSimpleRelationDelete(ws->rri, ws->estate, &epq, oldslot);
	EvalPlanQualEnd(&epq);
	return FAST_OK;
}

FastResult
fast_delete(const TsTable *t, text *pk, text *rk, text *if_match)
{
	WriteState	ws;
	FastResult	r;

	if (!begin_write(&ws, t, ACL_DELETE | ACL_SELECT, CMD_DELETE, true))
		return FAST_NOT_USED;
	r = write_delete(&ws, pk, rk, if_match);
	end_write(&ws);
	return r;
}

/* ---------- batches ---------- */

/*
 * The caller runs each operation in a memory context of its own and resets it afterwards; the
 * slots an operation creates live there and are dropped from the executor state here.
 */
struct FastBatch
{
	WriteState	ws;
};

FastBatch *
fast_batch_begin(const TsTable *t, AclMode needed)
{
	FastBatch  *b = palloc0(sizeof(FastBatch));

	/*
	 * Checked as the commands the batch holds (a table without a replica identity takes inserts; a
	 * publication of updates only, with a row filter, takes inserts and deletes)
	 */
	CmdType		cmd = (needed & ACL_UPDATE) ? CMD_UPDATE : (needed & ACL_DELETE) ? CMD_DELETE : CMD_INSERT;

	if (!begin_write(&b->ws, t, needed | ACL_SELECT, cmd, true))
	{
		pfree(b);
		return NULL;
	}
	if ((needed & ACL_UPDATE) && (needed & ACL_DELETE))
		CheckValidResultRel(b->ws.rri, CMD_DELETE);
	if (!triggers_ok(b->ws.rel, CMD_INSERT) || !triggers_ok(b->ws.rel, CMD_UPDATE) ||
		!triggers_ok(b->ws.rel, CMD_DELETE))
	{
		end_write(&b->ws);
		pfree(b);
		return NULL;
	}

	/*
	 * The trigger functions are looked up now, in the executor state's memory: looked up when
	 * first called, they would live in that call's memory (an operation's, or the AFTER trigger
	 * queue's), and what a function keeps there (a SECURITY DEFINER or SET function's settings)
	 * would be freed before the next operation called it again.
	 */
	if (b->ws.rri->ri_TrigDesc != NULL)
	{
		for (int i = 0; i < b->ws.rri->ri_TrigDesc->numtriggers; i++)
			fmgr_info_cxt(b->ws.rri->ri_TrigDesc->triggers[i].tgfoid, &b->ws.rri->ri_TrigFunctions[i],
						  b->ws.estate->es_query_cxt);
	}
	return b;
}

/*
 * After each operation: fire its AFTER row triggers, then drop its slots (and their buffer pins)
 * and per-tuple memory. The slots the trigger machinery keeps in the ResultRelInfo are among them:
 * forgotten too, so that the next operation makes new ones (a dropped slot has no tuple
 * descriptor: a foreign key's check or a WHEN clause reading it would crash).
 */
static void
batch_op_done(FastBatch *b)
{
	ResultRelInfo *rri = b->ws.rri;

	/*
	 * Each operation's AFTER row triggers (a foreign key's checks among them) fire at its end, as
	 * at the end of the operation's statement on the SQL path: an error they raise is the
	 * operation's.
	 */
	if (rri->ri_TrigDesc != NULL)
	{
		AfterTriggerEndQuery(b->ws.estate);
		AfterTriggerBeginQuery();

		/*
		 * And the next operation sees what its triggers wrote, as the next statement would: a
		 * row they changed is updated with a command id of its own, not the batch's first.
		 */
		CommandCounterIncrement();
		b->ws.estate->es_output_cid = GetCurrentCommandId(true);
	}
	ExecResetTupleTable(b->ws.estate->es_tupleTable, false);
	b->ws.estate->es_tupleTable = NIL;
	rri->ri_TrigOldSlot = NULL;
	rri->ri_TrigNewSlot = NULL;
	rri->ri_ReturningSlot = NULL;
	ResetPerTupleExprContext(b->ws.estate);
}

bool
fast_batch_self_stamps(FastBatch *b)
{
	return b->ws.self_stamp;
}

bool
fast_batch_probe_inserts(FastBatch *b, text *pk, text *const *rks, int n, KeyHistory *out)
{
	/* with other triggers the stamp trigger stamps each row, and looks for itself */
	return b->ws.self_stamp && stamp_probe_keys(b->ws.rel, b->ws.idx, pk, rks, n, out);
}

bool
fast_batch_insert(FastBatch *b, text *pk, text *rk, Entity *props, const KeyHistory *history, WriteStamp *out)
{
	bool		written = write_insert(&b->ws, pk, rk, props, history, out);

	batch_op_done(b);
	return written;
}

FastResult
fast_batch_update(FastBatch *b, text *pk, text *rk, Entity *props, bool merge, WriteStamp *out)
{
	FastResult	r = write_update(&b->ws, pk, rk, props, merge, NULL, out);

	batch_op_done(b);
	return r;
}

FastResult
fast_batch_delete(FastBatch *b, text *pk, text *rk)
{
	FastResult	r = write_delete(&b->ws, pk, rk, NULL);

	batch_op_done(b);
	return r;
}

void
fast_batch_end(FastBatch *b)
{
	end_write(&b->ws);
	pfree(b);
}

FastResult
fast_scan_range(const TsTable *t, text *pk, text *lo, bool lo_incl, text *hi, bool hi_incl,
				FastRowFn fn, void *arg)
{
	Relation	rel;
	Relation	idx;
	TupleTableSlot *slot;
	IndexScanDesc scan;
	ScanKeyData sk[3];
	int			n = 0;

	if (!open_for_read(t, &rel, &idx))
		return FAST_NOT_USED;
	ScanKeyEntryInitialize(&sk[n++], 0, 1, BTEqualStrategyNumber, InvalidOid,
						   idx->rd_indcollation[0], F_TEXTEQ, PointerGetDatum(pk));
	if (lo)
		ScanKeyEntryInitialize(&sk[n++], 0, 2, lo_incl ? BTGreaterEqualStrategyNumber : BTGreaterStrategyNumber,
							   InvalidOid, idx->rd_indcollation[1], lo_incl ? F_TEXT_GE : F_TEXT_GT,
							   PointerGetDatum(lo));
	if (hi)
		ScanKeyEntryInitialize(&sk[n++], 0, 2, hi_incl ? BTLessEqualStrategyNumber : BTLessStrategyNumber,
							   InvalidOid, idx->rd_indcollation[1], hi_incl ? F_TEXT_LE : F_TEXT_LT,
							   PointerGetDatum(hi));
	slot = table_slot_create(rel, NULL);
	scan = index_beginscan(rel, idx, GetActiveSnapshot(), n, 0);
	index_rescan(scan, sk, n, NULL, 0);
	while (index_getnext_slot(scan, ForwardScanDirection, slot))
	{
		CHECK_FOR_INTERRUPTS();
		slot_getallattrs(slot);
		if (!fn(arg, slot->tts_values, slot->tts_isnull))
			break;
	}
	index_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
	index_close(idx, NoLock);
	table_close(rel, NoLock);
	return FAST_OK;
}
