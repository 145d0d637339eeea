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
 * target's unfencing, and after a failure there, the map names a fenced node); its plain SQL
 * through postgres_fdw marks the transaction the same way before its first row (one_writing_node).
 * The mark counts only when the role that set it and the current role both have the privileges of
 * the owner of the node's table, which the coordinator's user mapping created (distribute_table):
 * any other role calling routed_by_coordinator() (anyone may) still meets the fence, and so does a
 * SECURITY DEFINER function of the owner that such a role calls after marking.
 *
 * Plain SQL meets the fence too (tablestore_internal.fence_shard adds it with the fence and
 * unfence_shard removes it): row triggers refuse INSERT, UPDATE, DELETE and COPY and a statement
 * trigger TRUNCATE (tablestore.shard_fence(), fired before the stamp trigger); logical
 * replication's workers run with session_replication_role = replica, where these triggers do not
 * fire, so a move's own copy is unaffected. A copy a move switched away from also refuses reads:
 * row-level security (forced, so its owner too) whose policy calls tablestore.shard_fence_read().
 * What PostgreSQL leaves open is documented (doc/scale-out.md): a SELECT of the node's partitioned
 * table applies only that table's policies, so until the move drops the copy such a read can
 * include its rows (frozen at the switch: no write reaches them); superusers and roles with
 * BYPASSRLS pass.
 */
#include "shard_fence.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "commands/trigger.h"
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

/* this transaction's calls come from a coordinator (tablestore.routed_by_coordinator), marked by routed_role */
static bool routed_by_coordinator = false;
static Oid	routed_role = InvalidOid;

static void
forget_routed(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT || event == XACT_EVENT_PREPARE ||
		event == XACT_EVENT_PARALLEL_COMMIT || event == XACT_EVENT_PARALLEL_ABORT)
	{
		routed_by_coordinator = false;
		routed_role = InvalidOid;
	}
}

void
ts_shard_fence_init(void)
{
	RegisterXactCallback(forget_routed, NULL);
}

/*
 * Whether this transaction's calls pass fences on the table: marked as the coordinator's by a role
 * with the privileges of the owner of the node's table, and run by such a role now.
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
	return has_privs_of_role(routed_role, owner) && has_privs_of_role(GetUserId(), owner);
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

/*
 * The fence of a shard table, read in a snapshot taken now (the latest committed fences, not the
 * statement's: the call may have waited for a switch): false when it has none. state and key are
 * buffers of 16 and NAMEDATALEN bytes.
 */
static bool
fence_of(Oid shard_table, int *shard, char *state, char *key)
{
	Relation	rel;
	Snapshot	snap;
	SysScanDesc scan;
	ScanKeyData sk;
	HeapTuple	tup;

	*shard = -1;
	state[0] = key[0] = '\0';
	if ((rel = open_fences()) == NULL)
		return false;
	snap = RegisterSnapshot(GetLatestSnapshot());
	ScanKeyInit(&sk, Anum_fence_shard_table, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(shard_table));
	scan = systable_beginscan(rel, RelationGetPrimaryKeyIndex(rel), true, snap, 1, &sk);
	if (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		bool		isnull;
		Datum		d;

		d = heap_getattr(tup, Anum_fence_shard, RelationGetDescr(rel), &isnull);
		*shard = isnull ? -1 : DatumGetInt32(d);
		d = heap_getattr(tup, Anum_fence_table_key, RelationGetDescr(rel), &isnull);
		if (!isnull)
			text_to_cstring_buffer(DatumGetTextPP(d), key, NAMEDATALEN);
		d = heap_getattr(tup, Anum_fence_state, RelationGetDescr(rel), &isnull);
		if (!isnull)
			text_to_cstring_buffer(DatumGetTextPP(d), state, 16);
	}
	systable_endscan(scan);
	UnregisterSnapshot(snap);
	table_close(rel, AccessShareLock);
	return state[0] != '\0';
}

/* TSX03 for a fenced shard (what a direct call, plain SQL or a read of a moved-away copy meets). */
static void
raise_fenced(int shard, const char *key, const char *state)
{
	TsError		err = {0};

	ts_fail(&err, TSE_SHARD_NOT_HERE, "shard %d of the table \"%s\" is %s this node: the coordinator's shard map "
			"does not name it", shard, key, strcmp(state, "filling") == 0 ? "being copied to" : "moved away from");
	ts_fail_detail(&err, "A node answers a direct call for a shard only while the coordinator's shard map names the "
				   "node. Read the map again (tablestore.table_shards) or call the coordinator.");
	ts_raise(&err);
}

void
ts_shard_fence_check(Oid shard_table, Oid table, const char *key)
{
	int			shard;
	char		state[16];
	char		fkey[NAMEDATALEN];

	if (coordinator_passes(table))
		return;
	if (fence_of(shard_table, &shard, state, fkey))
		raise_fenced(shard, key, state);
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
 * argument of every forwarded call in it), which a shard fence does not refuse when the role that
 * marked and the current role have the privileges of the table's owner (coordinator_passes).
 */
PG_FUNCTION_INFO_V1(tablestore_routed_by_coordinator);
Datum
tablestore_routed_by_coordinator(PG_FUNCTION_ARGS)
{
	/* the role that marks: the mark counts only while it has the owner's privileges (coordinator_passes) */
	routed_by_coordinator = true;
	routed_role = GetUserId();
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	PG_RETURN_DATUM(PG_GETARG_DATUM(0));
}

/*
 * tablestore.shard_fence(): the trigger of a fenced shard table (fence_shard adds it): BEFORE
 * INSERT OR UPDATE OR DELETE FOR EACH ROW, and BEFORE TRUNCATE. Plain SQL on a fenced shard table
 * is refused (TSX03) unless it is the coordinator's (coordinator_passes); without a fence (a
 * trigger left behind) it lets everything pass.
 */
PG_FUNCTION_INFO_V1(tablestore_shard_fence);
Datum
tablestore_shard_fence(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	Oid			relid;
	int			shard;
	char		state[16];
	char		key[NAMEDATALEN];

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_BEFORE(td->tg_event))
		elog(ERROR, "tablestore.shard_fence() is a BEFORE trigger");
	relid = RelationGetRelid(td->tg_relation);
	if (!coordinator_passes(relid) && fence_of(relid, &shard, state, key))
		raise_fenced(shard, key, state);
	if (!TRIGGER_FIRED_FOR_ROW(td->tg_event))
		return PointerGetDatum(NULL);
	return PointerGetDatum(TRIGGER_FIRED_BY_UPDATE(td->tg_event) ? td->tg_newtuple : td->tg_trigtuple);
}

/*
 * tablestore.shard_fence_read(shard_table oid) -> bool: the row-level security policy of a shard
 * table a move switched away from (fence_shard adds it, forced): true for the coordinator's calls
 * and while the table has no fence, else TSX03: a read of the copy is refused at its first row.
 */
PG_FUNCTION_INFO_V1(tablestore_shard_fence_read);
Datum
tablestore_shard_fence_read(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	int			shard;
	char		state[16];
	char		key[NAMEDATALEN];

	if (!coordinator_passes(relid) && fence_of(relid, &shard, state, key))
		raise_fenced(shard, key, state);
	PG_RETURN_BOOL(true);
}
