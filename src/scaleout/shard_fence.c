/*
 * shard_fence.c - a node's shard fences (shard_fence.h, doc/scale-out.md).
 *
 * tablestore_internal.shard_fences lists the shard tables of this node that it must not serve to
 * direct calls: a move's target while it is filled ('filling'), and a move's source from the
 * switch on ('moved') until the move drops it. move_shard writes the rows: the target's with the
 * shard table, in one transaction; the source's in the switch's transaction, under its lock on the
 * shard table; the target's is deleted once the coordinator's map names the target. So a node
 * answers a direct call for a shard only while the coordinator's committed map names it.
 *
 * A call the coordinator forwards (remote_call.c) wraps its first argument in
 * tablestore.routed_by_coordinator(), which marks the node's transaction: the coordinator routes by
 * its map, which is the truth, so its calls pass a fence (between the switch's commit and the
 * target's unfencing, and after a failure there, the map names a fenced node). The mark counts only
 * for a role with the privileges of the owner of the node's table, which the coordinator's user
 * mapping created (distribute_table) and which could write the shard table with plain SQL anyway:
 * any other role calling routed_by_coordinator() (anyone may) still meets the fence.
 */
#include "shard_fence.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "fmgr.h"
#include "storage/bufmgr.h"
#include "ts_report.h"
#include "catalog/pg_class.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

/* tablestore_internal.shard_fences: its columns */
#define Anum_fence_shard_table 1
#define Anum_fence_table_key 2
#define Anum_fence_shard 3
#define Anum_fence_state 4

/* this transaction's calls come from a coordinator (tablestore.routed_by_coordinator) */
static bool routed_by_coordinator = false;

static void
forget_routed(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT || event == XACT_EVENT_PREPARE ||
		event == XACT_EVENT_PARALLEL_COMMIT || event == XACT_EVENT_PARALLEL_ABORT)
		routed_by_coordinator = false;
}

void
ts_shard_fence_init(void)
{
	RegisterXactCallback(forget_routed, NULL);
}

/*
 * Whether this transaction's calls pass fences on the table: marked as the coordinator's, by a
 * role with the privileges of the owner of the node's table.
 */
static bool
coordinator_passes(Oid table)
{
	HeapTuple	tup;
	Oid			owner;

	if (!routed_by_coordinator)
		return false;
	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(table));
	if (!HeapTupleIsValid(tup))
		return false;
	owner = ((Form_pg_class) GETSTRUCT(tup))->relowner;
	ReleaseSysCache(tup);
	return has_privs_of_role(GetUserId(), owner);
}

/* The fence table, opened (AccessShareLock), or NULL when it is missing or empty. */
static Relation
open_fences(void)
{
	Oid			nsp = get_namespace_oid("tablestore_internal", true);
	Oid			relid = OidIsValid(nsp) ? get_relname_relid("shard_fences", nsp) : InvalidOid;
	Relation	rel;

	if (!OidIsValid(relid))
		return NULL;
	rel = table_open(relid, AccessShareLock);
	if (RelationGetNumberOfBlocks(rel) == 0)
	{
		table_close(rel, AccessShareLock);
		return NULL;
	}
	return rel;
}

void
ts_shard_fence_check(Oid shard_table, Oid table, const char *key)
{
	Relation	rel;
	Snapshot	snap;
	SysScanDesc scan;
	ScanKeyData sk;
	HeapTuple	tup;
	int			shard = -1;
	char		state[16] = "";

	if (coordinator_passes(table) || (rel = open_fences()) == NULL)
		return;
	/* the latest committed fences, not the statement's snapshot: the call may have waited for a switch */
	snap = RegisterSnapshot(GetLatestSnapshot());
	ScanKeyInit(&sk, Anum_fence_shard_table, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(shard_table));
	scan = systable_beginscan(rel, RelationGetPrimaryKeyIndex(rel), true, snap, 1, &sk);
	if (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		bool		isnull;
		Datum		d;

		d = heap_getattr(tup, Anum_fence_shard, RelationGetDescr(rel), &isnull);
		shard = isnull ? -1 : DatumGetInt32(d);
		d = heap_getattr(tup, Anum_fence_state, RelationGetDescr(rel), &isnull);
		if (!isnull)
			text_to_cstring_buffer(DatumGetTextPP(d), state, sizeof(state));
	}
	systable_endscan(scan);
	UnregisterSnapshot(snap);
	table_close(rel, AccessShareLock);
	if (state[0] != '\0')
	{
		TsError		err = {0};

		ts_fail(&err, TSE_SHARD_NOT_HERE, "shard %d of the table \"%s\" is %s this node: the coordinator's shard map "
				"does not name it", shard, key, strcmp(state, "filling") == 0 ? "being copied to" : "moved away from");
		ts_fail_detail(&err, "A node answers a direct call for a shard only while the coordinator's shard map names the "
					   "node. Read the map again (tablestore.table_shards) or call the coordinator.");
		ts_raise(&err);
	}
}

bool
ts_shard_fence_any(Oid table, const Oid *shard_tables, int n)
{
	Relation	rel;
	Snapshot	snap;
	SysScanDesc scan;
	HeapTuple	tup;
	bool		found = false;

	if (n == 0 || coordinator_passes(table) || (rel = open_fences()) == NULL)
		return false;
	snap = RegisterSnapshot(GetLatestSnapshot());
	scan = systable_beginscan(rel, InvalidOid, false, snap, 0, NULL);
	while (!found && HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		bool		isnull;
		Oid			fenced = DatumGetObjectId(heap_getattr(tup, Anum_fence_shard_table, RelationGetDescr(rel), &isnull));

		for (int i = 0; i < n && !found; i++)
			found = !isnull && shard_tables[i] == fenced;
	}
	systable_endscan(scan);
	UnregisterSnapshot(snap);
	table_close(rel, AccessShareLock);
	return found;
}

/*
 * tablestore.routed_by_coordinator(value anyelement) -> anyelement: returns its argument and marks
 * the calls of this transaction as forwarded by a coordinator (remote_call.c wraps the first
 * argument of every forwarded call in it), which a shard fence does not refuse when the role has
 * the privileges of the table's owner (coordinator_passes).
 */
PG_FUNCTION_INFO_V1(tablestore_routed_by_coordinator);
Datum
tablestore_routed_by_coordinator(PG_FUNCTION_ARGS)
{
	routed_by_coordinator = true;
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	PG_RETURN_DATUM(PG_GETARG_DATUM(0));
}
