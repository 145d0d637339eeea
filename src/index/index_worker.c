/*
 * index_worker.c - the background workers that apply tables' registered indexing policies
 * online (index_worker.h), from the durable queue tablestore_internal.index_queue
 * (index_queue.c).
 *
 * Slots. At most tablestore.max_index_builds workers run in a database, and at most
 * tablestore.max_index_builds_total (and half of max_worker_processes) in the server: a worker
 * holds the advisory lock of its database's slot (1..max) and of a server slot for its life. A
 * database takes at most half of the server's slots (at least one), so that one database never
 * takes them all, and half of max_worker_processes is left to parallel queries and the rest. A
 * launcher (set_indexing_policy, or a look at a table whose work no worker does) takes a free
 * database slot's lock for its transaction, checks that a server slot is free, registers the
 * worker, and returns once the worker waits for that lock: nobody else sees the slot free in
 * between, and the worker starts when the change it was launched for has committed. The worker
 * then takes a free server slot, or leaves at once (the change stays queued for the next
 * launch). Changes also hold a "pending" lock (shared) until they end; a worker leaves only once
 * it can take that lock alone and then finds nothing queued that no other worker holds, and it
 * frees its slot before the pending lock, so a change either finds a free slot or is seen by a
 * running worker. While a change is being made a worker waits for its transaction to end (as
 * CREATE INDEX CONCURRENTLY waits for older transactions), not polling.
 *
 * Work. A worker claims a queued row whose retry time has come and whose table no other worker
 * holds (a session advisory lock per table), counts the attempt, and repeats: read the table's
 * entity indexes against its registered policy, in a transaction of its own, and run the one
 * statement that brings them closer, as a top-level statement in its own transactions, as a
 * client's would run:
 *
 *   1. drop an index left invalid by an interrupted build (DROP INDEX CONCURRENTLY);
 *   2. on a node's partitioned table, drop a partition's entity index that no partitioned index
 *      owns and that is not the one to attach (left by a change made during its build, or a
 *      killed build);
 *   3. a change made while another was being applied: drop the newer indexes of earlier
 *      policies, keeping the oldest (what the table had), so that writes maintain at most two;
 *   4. with mode consistent and no valid index of the policy: build it (CREATE INDEX
 *      CONCURRENTLY, under the first free name of "<table>_entities[_<generation>]", in the
 *      table's tablespace); for a node's hash-partitioned table, where PostgreSQL 15 builds no
 *      index concurrently, the partitioned index is created ON ONLY the parent (a catalog
 *      entry), each partition's index concurrently, and each attached to it, which makes it
 *      valid;
 *   5. drop every other entity index (DROP INDEX CONCURRENTLY; a partitioned one with DROP
 *      INDEX, which holds its locks only for the catalog update).
 *
 * until none is needed; then the row is removed (unless a newer change came meanwhile, which is
 * then applied too). Every statement first takes the relation locks it needs, each waited for
 * at most tablestore.index_lock_timeout, so that a worker queued behind someone's lock never
 * stalls the sessions queued behind it; the waits of a concurrent build or drop for older
 * transactions (which block nobody) are bounded by STATEMENT_WAIT_MS. An error (a lock not
 * available, a deadlock, a cancel) ends the attempt: it is logged and kept in the row, what the
 * failed build left is dropped, and the row is retried after a backoff, up to
 * TS_INDEX_MAX_ATTEMPTS attempts. A worker that dies leaves its row queued (the attempt
 * counted); the next launch (any tablestore call on one of the database's tables by its owner
 * looks, indexing_policy.c), or another worker, takes it over, dropping the invalid index first.
 *
 * Roles. The worker connects as the database's owner (as the bootstrap superuser when that role
 * may not log in), so that the owner may terminate it or drop the database WITH (FORCE); it
 * reads and writes the queue as the extension's owner, and runs each statement of a build as the
 * owner of the table (a security-restricted operation), whose rights (the tablespace's CREATE)
 * apply, as they would to the owner's own CREATE INDEX.
 */
#include "index_worker.h"

#include "entity_index.h"
#include "index_queue.h"
#include "ts_report.h"
#include "ts_support.h"
#include "ts_table.h"

#include "access/htup_details.h"
#include "access/parallel.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/namespace.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_class.h"
#include "catalog/pg_database.h"
#include "catalog/pg_inherits.h"
#include "commands/tablespace.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/ipc.h"
#include "storage/proc.h"
#include "storage/procarray.h"
#include "storage/latch.h"
#include "storage/lmgr.h"
#include "storage/lock.h"
#include "tcop/pquery.h"
#include "tcop/tcopprot.h"
#include "tcop/utility.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/portal.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
#include "utils/acl.h"
#include "utils/wait_event.h"

PGDLLEXPORT void tablestore_index_worker_main(Datum arg);

#define MAX_STEPS 4096

/*
 * The protocol's advisory locks: (database, kind, number, LOCK_SPACE). pg_advisory_lock's keys
 * always have 1 or 2 where LOCK_SPACE is, so no SQL caller can take them.
 */
#define LOCK_SPACE 0x5453		/* 21587 */
#define LOCK_SLOT 1				/* number: the slot, 1..max_index_builds */
#define LOCK_PENDING 2			/* number 0: shared by changes until they end */
#define LOCK_TABLE 3			/* number: the relation a worker applies the policy of */
#define LOCK_SERVER_SLOT 4		/* database InvalidOid, number: the server's slot, 1..builds_total() */

/* How long a statement waits for older transactions once it holds its locks (they block no one). */
#define STATEMENT_WAIT_MS (10 * 60 * 1000)

/* How long a launcher waits for its worker to queue for its slot. */
#define LAUNCH_WAIT_MS 30000

/* How long a worker waits before looking again at a due row a caller's transaction has locked. */
#define LOCKED_ROW_WAIT_MS 10

/* How often a worker waiting for a retry looks for changes queued meanwhile. */
#define BUSY_POLL_MS 1000

/* How long the worker waits for each lock a statement needs (tablestore.index_lock_timeout). */
static int	index_lock_timeout = 1000;

/* The most index workers of one database running at once (tablestore.max_index_builds). */
static int	max_index_builds = 2;

/* The most index workers of the server at once (tablestore.max_index_builds_total). */
static int	max_index_builds_total = 4;

/* How often a session looks for queued work that no worker does (ts_index_relaunch_check). */
#define RELAUNCH_LOOK_S 10

/* What a launcher tells its worker. */
typedef struct WorkerArgs
{
	Oid			database;
	Oid			role;			/* the database's owner; InvalidOid: the bootstrap superuser */
} WorkerArgs;

/* The role the worker connects as (its session's), to which it comes back after each statement. */
static Oid	worker_user = InvalidOid;

/* The server slot the worker holds (0: none yet). */
static int	server_slot = 0;

void
ts_index_worker_init(void)
{
	DefineCustomIntVariable("tablestore.max_index_builds",
							"The most index builds (indexing policy changes being applied) that run at once in a database.",
							"Each is a background worker; a change past them waits in the queue (tablestore.index_builds) for one of them.",
							&max_index_builds, 2, 1, 64, PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("tablestore.index_lock_timeout",
							"How long the index worker waits for each lock a statement of a build needs.",
							"Past it the attempt ends and is retried later, so that the worker never stalls the sessions queued behind it.",
							&index_lock_timeout, 1000, 1, 3600 * 1000, PGC_SUSET, GUC_UNIT_MS, NULL, NULL, NULL);
	DefineCustomIntVariable("tablestore.max_index_builds_total",
							"The most index builds that run at once in the server, all databases together.",
							"At most half of max_worker_processes is used whatever its value, and one database takes at most half of it (at least one).",
							&max_index_builds_total, 4, 1, 1024, PGC_SIGHUP, 0, NULL, NULL, NULL);
}

/* The server's slots: tablestore.max_index_builds_total, at most half of max_worker_processes. */
static int
builds_total(void)
{
	return Min(max_index_builds_total, Max(1, max_worker_processes / 2));
}

/* The database's slots: tablestore.max_index_builds, at most half of the server's (at least one). */
static int
database_slots(void)
{
	return Min(max_index_builds, Max(1, builds_total() / 2));
}

static void
protocol_lock(LOCKTAG *tag, Oid db, uint32 kind, uint32 number)
{
	SET_LOCKTAG_ADVISORY(*tag, db, kind, number, LOCK_SPACE);
}

/* ---------- launching ---------- */

void
ts_index_worker_note_change(void)
{
	LOCKTAG		tag;

	protocol_lock(&tag, MyDatabaseId, LOCK_PENDING, 0);
	(void) LockAcquire(&tag, ShareLock, false, false);
}

/*
 * A free slot of the server: its number, 0 when none is free. keep: held for the session (the
 * worker's life); else released at once (a look whether one is free now).
 */
static int
find_server_slot(bool keep)
{
	int			total = builds_total();

	for (int i = 1; i <= total; i++)
	{
		LOCKTAG		tag;

		protocol_lock(&tag, InvalidOid, LOCK_SERVER_SLOT, i);
		if (LockAcquire(&tag, ExclusiveLock, keep, true) == LOCKACQUIRE_OK)
		{
			if (!keep)
				LockRelease(&tag, ExclusiveLock, false);
			return i;
		}
	}
	return 0;
}

/* The role a worker of this database connects as: its owner, if that role may log in. */
static Oid
worker_role(void)
{
	HeapTuple	tup = SearchSysCache1(DATABASEOID, ObjectIdGetDatum(MyDatabaseId));
	Oid			owner;
	bool		login = false;

	if (!HeapTupleIsValid(tup))
		return InvalidOid;
	owner = ((Form_pg_database) GETSTRUCT(tup))->datdba;
	ReleaseSysCache(tup);
	tup = SearchSysCache1(AUTHOID, ObjectIdGetDatum(owner));
	if (HeapTupleIsValid(tup))
	{
		login = ((Form_pg_authid) GETSTRUCT(tup))->rolcanlogin;
		ReleaseSysCache(tup);
	}
	/* a role that may not log in cannot be a background worker's either (PostgreSQL 15) */
	return login ? owner : InvalidOid;
}

bool
ts_index_worker_running(void)
{
	int			slots = database_slots();

	for (int i = 1; i <= slots; i++)
	{
		LOCKTAG		tag;
		LockAcquireResult r;

		protocol_lock(&tag, MyDatabaseId, LOCK_SLOT, i);
		r = LockAcquire(&tag, ExclusiveLock, false, true);
		if (r == LOCKACQUIRE_NOT_AVAIL)
			return true;
		LockRelease(&tag, ExclusiveLock, false);
		if (r == LOCKACQUIRE_ALREADY_HELD)
			return true;		/* this transaction launched one */
	}
	return false;
}

bool
ts_index_worker_launch(bool only_if_idle)
{
	LOCKTAG		tag;
	int			slot = 0,
				nfree = 0;
	int			slots = database_slots();
	BackgroundWorker w;
	BackgroundWorkerHandle *handle;
	WorkerArgs	args;

	for (int i = 1; i <= slots; i++)
	{
		LockAcquireResult r;

		protocol_lock(&tag, MyDatabaseId, LOCK_SLOT, i);
		r = LockAcquire(&tag, ExclusiveLock, false, true);
		if (r == LOCKACQUIRE_NOT_AVAIL)
			continue;
		if (r == LOCKACQUIRE_ALREADY_HELD)
		{
			/* this transaction launched a worker already: it takes this change too */
			LockRelease(&tag, ExclusiveLock, false);
			if (slot > 0)
			{
				protocol_lock(&tag, MyDatabaseId, LOCK_SLOT, slot);
				LockRelease(&tag, ExclusiveLock, false);
			}
			return false;
		}
		nfree++;
		if (slot == 0)
			slot = i;
		else
			LockRelease(&tag, ExclusiveLock, false);
	}
	if (slot == 0)
		return false;
	protocol_lock(&tag, MyDatabaseId, LOCK_SLOT, slot);
	if ((only_if_idle && nfree < slots) || find_server_slot(false) == 0)
	{
		/* a worker of this database takes the work, or the next launch once a server slot is free */
		LockRelease(&tag, ExclusiveLock, false);
		if (!only_if_idle || nfree == slots)
			ereport(DEBUG1,
					(errmsg("tablestore: every index build slot of the server is taken (tablestore.max_index_builds_total); the change stays queued")));
		return false;
	}

	memset(&w, 0, sizeof(w));
	w.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	w.bgw_start_time = BgWorkerStart_RecoveryFinished;
	w.bgw_restart_time = BGW_NEVER_RESTART;
	snprintf(w.bgw_library_name, BGW_MAXLEN, "tablestore");
	snprintf(w.bgw_function_name, BGW_MAXLEN, "tablestore_index_worker_main");
	snprintf(w.bgw_name, BGW_MAXLEN, "tablestore index worker %d of database %u", slot, MyDatabaseId);
	snprintf(w.bgw_type, BGW_MAXLEN, "tablestore index worker");
	w.bgw_main_arg = Int32GetDatum(slot);
	args.database = MyDatabaseId;
	args.role = worker_role();
	StaticAssertStmt(sizeof(WorkerArgs) <= BGW_EXTRALEN, "the worker's arguments fit bgw_extra");
	memcpy(w.bgw_extra, &args, sizeof(args));
	w.bgw_notify_pid = 0;
	if (!RegisterDynamicBackgroundWorker(&w, &handle))
	{
		LockRelease(&tag, ExclusiveLock, false);
		ereport(LOG,
				(errmsg("tablestore: no background worker slot is free for an index worker; the change stays queued"),
				 errhint("Raise max_worker_processes; the next call on one of the database's tables by its owner launches it.")));
		return false;
	}
	/* the slot is the worker's once it waits for it: until then nobody may see it free */
	for (int waited = 0; waited < LAUNCH_WAIT_MS; waited += 5)
	{
		pid_t		pid;

		if (LockHasWaiters(&tag, ExclusiveLock, false) || GetBackgroundWorkerPid(handle, &pid) == BGWH_STOPPED)
			break;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 5, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
	pfree(handle);
	return true;
}

void
ts_index_relaunch_check(Oid relid)
{
	static TimestampTz last_look = 0;
	TimestampTz now = GetCurrentStatementStartTimestamp();
	bool		any;

	if (last_look != 0 && !TimestampDifferenceExceeds(last_look, now, RELAUNCH_LOOK_S * 1000))
		return;
	if (!IsTransactionState() || IsParallelWorker() || RecoveryInProgress() || !pg_class_ownercheck(relid, GetUserId()))
		return;
	last_look = now;
	if (!ts_index_queue_installed() || ts_index_worker_running())
		return;
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "tablestore: SPI_connect failed");
	any = ts_index_queue_any();
	SPI_finish();
	if (any)
		(void) ts_index_worker_launch(true);
}

void
ts_index_worker_cancel_build(Oid relid)
{
	const char *args[2] = {psprintf("%u", MyDatabaseId), psprintf("%u", relid)};
	List	   *pids = NIL;
	ListCell   *lc;

	/* the worker holding the table's lock (kind 3, LOCK_SPACE in the fourth field) */
	ts_run_sql("SELECT l.pid FROM pg_catalog.pg_locks l WHERE l.locktype = 'advisory' AND l.granted "
			   "AND l.database = $1::oid AND l.classid = " CppAsString2(LOCK_TABLE) "::oid AND l.objid = $2::oid "
			   "AND l.objsubid = 21587", 2, args, SPI_OK_SELECT);
	for (uint64 i = 0; i < SPI_processed; i++)
		pids = lappend_int(pids, atoi(SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1)));
	foreach(lc, pids)
	{
		PGPROC	   *proc = BackendPidGetProc(lfirst_int(lc));

		/* a cancel (its statement ends with an error, the attempt is retried later), as pg_cancel_backend */
		if (proc != NULL && proc->isBackgroundWorker && proc->databaseId == MyDatabaseId)
			(void) kill(lfirst_int(lc), SIGINT);
	}
}

/* ---------- running statements as a client would ---------- */

/* A lock a statement needs, taken before it runs. */
typedef struct StepLock
{
	Oid			relid;
	LOCKMODE	mode;
	bool		partitions;		/* and every partition of it, in the same mode */
} StepLock;

#define MAX_STEP_LOCKS 4

/* The next statement, the locks it takes, and the role it runs as. */
typedef struct Step
{
	char	   *sql;
	Oid			owner;			/* the owner of the table it concerns */
	int			nlocks;
	StepLock	locks[MAX_STEP_LOCKS];
} Step;

static void
step_lock(Step *s, Oid relid, LOCKMODE mode, bool partitions)
{
	Assert(s->nlocks < MAX_STEP_LOCKS);
	s->locks[s->nlocks].relid = relid;
	s->locks[s->nlocks].mode = mode;
	s->locks[s->nlocks].partitions = partitions;
	s->nlocks++;
}

static void
set_lock_timeout(int ms)
{
	char		value[32];

	snprintf(value, sizeof(value), "%d", ms);
	SetConfigOption("lock_timeout", value, PGC_SUSET, PGC_S_SESSION);
}

/*
 * The memory of the statement being run: not a transaction's, since CREATE and DROP INDEX
 * CONCURRENTLY commit and start transactions inside (the context current when PortalRun starts
 * is the one it returns to).
 */
static MemoryContext statement_cxt = NULL;

/*
 * One statement at top level, in transactions of its own, as the owner of its table (a
 * security-restricted operation, as PostgreSQL runs an index build). Its locks are taken first,
 * each waited for at most index_lock_timeout (an error past it); then the statement's own waits
 * for older transactions are bounded by STATEMENT_WAIT_MS. On an error, recover() comes back to
 * the worker's role and lock timeout (the statement's transactions may have committed them).
 */
static void
run_step(const Step *step)
{
	List	   *parsed;
	RawStmt    *raw;
	List	   *queries,
			   *plans;
	Portal		portal;
	DestReceiver *dest;
	QueryCompletion qc;

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	pgstat_report_activity(STATE_RUNNING, step->sql);
	set_lock_timeout(index_lock_timeout);
	for (int i = 0; i < step->nlocks; i++)
	{
		LockRelationOid(step->locks[i].relid, step->locks[i].mode);
		if (step->locks[i].partitions)
			(void) find_all_inheritors(step->locks[i].relid, step->locks[i].mode, NULL);
	}
	set_lock_timeout(STATEMENT_WAIT_MS);
	if (!OidIsValid(step->owner))
		elog(ERROR, "tablestore index worker: no owner for \"%s\"", step->sql);
	SetUserIdAndSecContext(step->owner, SECURITY_LOCAL_USERID_CHANGE | SECURITY_RESTRICTED_OPERATION);
	MemoryContextSwitchTo(statement_cxt);
	parsed = pg_parse_query(step->sql);
	if (list_length(parsed) != 1)
		elog(ERROR, "tablestore index worker: one statement expected");
	raw = linitial_node(RawStmt, parsed);
	queries = pg_analyze_and_rewrite_fixedparams(raw, step->sql, NULL, 0, NULL);
	plans = pg_plan_queries(queries, step->sql, CURSOR_OPT_PARALLEL_OK, NULL);
	portal = CreatePortal("", true, true);
	portal->visible = false;
	PortalDefineQuery(portal, NULL, step->sql, CreateCommandTag(raw->stmt), plans, NULL);
	PortalStart(portal, NULL, 0, InvalidSnapshot);
	dest = CreateDestReceiver(DestNone);
	(void) PortalRun(portal, FETCH_ALL, true, true, dest, dest, &qc);
	dest->rDestroy(dest);
	PortalDrop(portal, false);
	CommitTransactionCommand();
	SetUserIdAndSecContext(worker_user, 0);
	MemoryContextSwitchTo(TopMemoryContext);
	MemoryContextReset(statement_cxt);
	set_lock_timeout(index_lock_timeout);
	pgstat_report_activity(STATE_IDLE, NULL);
}

/* ---------- deciding the next step ---------- */

static char *
qualified(const char *schema, const char *name)
{
	return quote_qualified_identifier(schema, name);
}

/* The owner of a relation (InvalidOid when it is gone). */
static Oid
rel_owner(Oid relid)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	Oid			owner = InvalidOid;

	if (HeapTupleIsValid(tup))
	{
		owner = ((Form_pg_class) GETSTRUCT(tup))->relowner;
		ReleaseSysCache(tup);
	}
	return owner;
}

/*
 * The drop of an index of the relation heap: concurrent (the locks that a concurrent drop takes
 * first), except a partitioned index's, which PostgreSQL drops only with ACCESS EXCLUSIVE on the
 * table and every partition.
 */
static void
step_drop(Step *s, const TsEntityIndex *x, Oid heap)
{
	s->owner = rel_owner(heap);
	if (x->partitioned)
	{
		s->sql = psprintf("DROP INDEX IF EXISTS %s", qualified(x->schema, x->name));
		step_lock(s, heap, AccessExclusiveLock, true);
		step_lock(s, x->oid, AccessExclusiveLock, false);
	}
	else
	{
		s->sql = psprintf("DROP INDEX CONCURRENTLY IF EXISTS %s", qualified(x->schema, x->name));
		step_lock(s, heap, ShareUpdateExclusiveLock, false);
		step_lock(s, x->oid, ShareUpdateExclusiveLock, false);
	}
}

/*
 * CREATE INDEX [CONCURRENTLY] <a free name> ON [ONLY] schema.relname ... of the policy, in the
 * relation's tablespace (tablespace 0: the database's, where the worker's default_tablespace ''
 * puts it, as a table without one has its indexes).
 */
static char *
create_sql(const char *schema, const char *relname, Oid tablespace, bool concurrently, bool only,
		   const IndexPolicy *policy)
{
	StringInfoData sql;
	const char *name = ts_index_free_name(get_namespace_oid(schema, false), relname);

	initStringInfo(&sql);
	appendStringInfo(&sql, "CREATE INDEX %s%s ON %s%s", concurrently ? "CONCURRENTLY " : "", quote_identifier(name),
					 only ? "ONLY " : "", qualified(schema, relname));
	ts_index_append_definition(&sql, policy);
	if (OidIsValid(tablespace))
	{
		char	   *spc = get_tablespace_name(tablespace);

		if (spc == NULL)
			elog(ERROR, "tablestore index worker: tablespace %u of %s does not exist", tablespace, relname);
		appendStringInfo(&sql, " TABLESPACE %s", quote_identifier(spc));
	}
	return sql.data;
}

static bool
has_partitions(Oid relid)
{
	const char *args[1] = {psprintf("%u", relid)};

	ts_run_sql("SELECT 1 FROM pg_catalog.pg_inherits WHERE inhparent = $1::oid", 1, args, SPI_OK_SELECT);
	return SPI_processed > 0;
}

/* Has the partition (heap) a part of the partitioned index target? */
static bool
has_part(const TsIndexState *st, Oid heap, const TsEntityIndex *target)
{
	for (int i = 0; i < st->nparts; i++)
		if (st->parts[i].heap == heap && target != NULL && st->parts[i].part_of == target->oid)
			return true;
	return false;
}

/* Is the partition's index x the one to attach to the policy's partitioned index? */
static bool
to_attach(const TsIndexState *st, const TsEntityIndex *x, const TsEntityIndex *target)
{
	if (!st->policy.consistent || x->part_of != InvalidOid || !x->valid || !x->matches || has_part(st, x->heap, target))
		return false;
	/* the first such index of its partition */
	for (const TsEntityIndex *y = st->parts; y < x; y++)
		if (y->heap == x->heap && y->part_of == InvalidOid && y->valid && y->matches)
			return false;
	return true;
}

/*
 * A partition's entity index that is nobody's part and no part to be (an interrupted build's,
 * one built for a policy changed meanwhile): its drop. The parts of another partitioned index go
 * with it.
 */
static bool
partition_leftover_step(const TsIndexState *st, const TsEntityIndex *target, Step *s)
{
	for (int i = 0; i < st->nparts; i++)
	{
		const TsEntityIndex *x = &st->parts[i];

		if (x->part_of != InvalidOid || to_attach(st, x, target))
			continue;
		step_drop(s, x, x->heap);
		return true;
	}
	return false;
}

/*
 * The next step of a partitioned table whose partitioned index of the policy (parent) is not
 * valid yet: for the first partition without a part of it, attach its index of the policy, or
 * build that index concurrently. False when every partition has its part.
 */
static bool
partition_step(Oid relid, const TsIndexState *st, const TsEntityIndex *parent, Step *s)
{
	const char *args[2] = {psprintf("%u", parent->oid), psprintf("%u", relid)};
	Oid			part;
	char	   *part_schema,
			   *part_name;
	Oid			part_space;

	ts_run_sql("SELECT c.oid::text, n.nspname::text, c.relname::text, c.reltablespace::text FROM pg_catalog.pg_inherits i "
			   "JOIN pg_catalog.pg_class c ON c.oid = i.inhrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
			   "WHERE i.inhparent = $2::oid AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_inherits ih "
			   "JOIN pg_catalog.pg_index ci ON ci.indexrelid = ih.inhrelid WHERE ih.inhparent = $1::oid AND ci.indrelid = c.oid) "
			   "ORDER BY c.relname LIMIT 1", 2, args, SPI_OK_SELECT);
	if (SPI_processed == 0)
		return false;			/* every partition has its part: the index is valid (or about to be) */
	part = (Oid) strtoul(SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1), NULL, 10);
	part_schema = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2);
	part_name = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3);
	part_space = (Oid) strtoul(SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 4), NULL, 10);
	for (int i = 0; i < st->nparts; i++)
		if (st->parts[i].heap == part && to_attach(st, &st->parts[i], parent))
		{
			/* the locks ALTER INDEX ... ATTACH PARTITION takes */
			s->sql = psprintf("ALTER INDEX %s ATTACH PARTITION %s", qualified(parent->schema, parent->name),
							  qualified(st->parts[i].schema, st->parts[i].name));
			s->owner = st->owner;
			step_lock(s, relid, AccessShareLock, false);
			step_lock(s, part, AccessShareLock, false);
			step_lock(s, parent->oid, ShareUpdateExclusiveLock, false);
			step_lock(s, st->parts[i].oid, AccessExclusiveLock, false);
			return true;
		}
	s->sql = create_sql(part_schema, part_name, part_space, true, false, &st->policy);
	s->owner = rel_owner(part);
	step_lock(s, part, ShareUpdateExclusiveLock, false);
	return true;
}

/*
 * The statement that brings the table's indexes closer to its policy, and its locks; false when
 * they are where it wants them. In SPI; the step in the current memory context.
 */
static bool
next_step(Oid relid, Step *s)
{
	TsIndexState st;
	const TsEntityIndex *target;
	const TsEntityIndex *kept = NULL;

	memset(s, 0, sizeof(*s));
	ts_index_state_read(relid, &st);
	target = ts_index_target(&st);
	/* 1. what an interrupted build left */
	for (int i = 0; i < st.nindexes; i++)
		if (!st.indexes[i].valid && &st.indexes[i] != target)
		{
			step_drop(s, &st.indexes[i], relid);
			return true;
		}
	/* 2. a partition's index that nothing owns */
	if (st.partitioned && partition_leftover_step(&st, target, s))
		return true;
	/* 3. the indexes of earlier policies: the oldest kept until the policy's is built */
	for (int i = 0; i < st.nindexes; i++)
		if (&st.indexes[i] != target)
		{
			if (kept == NULL)
				kept = &st.indexes[i];
			else
			{
				step_drop(s, &st.indexes[i], relid);
				return true;
			}
		}
	/* 4. the index of the policy */
	if (st.policy.consistent)
	{
		if (target == NULL)
		{
			bool		only = st.partitioned && has_partitions(relid);

			/* a partitioned table's index is a catalog entry (its parts come next), made at once */
			s->sql = create_sql(st.schema, st.relname, st.tablespace, !st.partitioned, only, &st.policy);
			s->owner = st.owner;
			step_lock(s, relid, st.partitioned ? ShareLock : ShareUpdateExclusiveLock, false);
			return true;
		}
		if (!target->valid && partition_step(relid, &st, target, s))
			return true;
	}
	/* 5. every other entity index */
	if (kept != NULL)
	{
		step_drop(s, kept, relid);
		return true;
	}
	return false;
}

/* ---------- the worker ---------- */

/* Memory of the worker's current work (reset per claim). */
static MemoryContext work_cxt = NULL;

/* The relation whose table lock this worker holds, if any. */
static Oid	held_table = InvalidOid;

static void
table_lock(LOCKTAG *tag, Oid relid)
{
	protocol_lock(tag, MyDatabaseId, LOCK_TABLE, relid);
}

static void
release_table(void)
{
	LOCKTAG		tag;

	if (!OidIsValid(held_table))
		return;
	table_lock(&tag, held_table);
	LockRelease(&tag, ExclusiveLock, true);
	held_table = InvalidOid;
}

/* The relation of a table key (InvalidOid when it is gone). In a transaction. */
static Oid
table_relid(const char *key)
{
	Oid			nsp = get_namespace_oid(TS_DATA_SCHEMA, true);

	return OidIsValid(nsp) ? get_relname_relid(key, nsp) : InvalidOid;
}

/* In a transaction of its own, with SPI and a snapshot. */
static void
begin_work_transaction(void)
{
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	set_lock_timeout(index_lock_timeout);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "tablestore index worker: SPI_connect failed");
	PushActiveSnapshot(GetTransactionSnapshot());
}

static void
end_work_transaction(void)
{
	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
	MemoryContextSwitchTo(TopMemoryContext);
}

/*
 * The error being handled: into the server log, its transaction aborted, the worker's state
 * back to where it is between two statements (postgres.c's recovery). Its message, in work_cxt.
 */
static char *
recover(void)
{
	ErrorData  *e;
	char	   *msg;

	HOLD_INTERRUPTS();
	MemoryContextSwitchTo(work_cxt);
	e = CopyErrorData();
	EmitErrorReport();
	FlushErrorState();
	AbortOutOfAnyTransaction();
	/* a failed statement's committed transactions left its role and lock timeout: back to the worker's */
	SetUserIdAndSecContext(worker_user, 0);
	set_lock_timeout(index_lock_timeout);
	MemoryContextSwitchTo(TopMemoryContext);
	MemoryContextReset(statement_cxt);
	pgstat_report_activity(STATE_IDLE, NULL);
	RESUME_INTERRUPTS();
	msg = MemoryContextStrdup(work_cxt, psprintf("%s (SQLSTATE %s)", e->message ? e->message : "unknown error",
												 unpack_sql_state(e->sqlerrcode)));
	FreeErrorData(e);
	return msg;
}

/*
 * Take the worker's lock on a queued row's table (without waiting): false when another worker
 * holds it, or when the table is gone (its row is then forgotten).
 */
static bool
lock_queued_table(TsIndexWork *row, LOCKTAG *tag, Oid *relid)
{
	Oid			rel = table_relid(row->key);

	if (!OidIsValid(rel))
	{
		ts_index_queue_forget(row->key);	/* the table is gone */
		return false;
	}
	table_lock(tag, rel);
	if (LockAcquire(tag, ExclusiveLock, true, true) == LOCKACQUIRE_NOT_AVAIL)
		return false;			/* another worker's */
	*relid = rel;
	return true;
}

/* Claim a queued row that may run now and that no other worker holds; false when none. */
static bool
claim(TsIndexWork *w, Oid *relid)
{
	TsIndexWork *rows;
	int			n;
	bool		found = false;

	begin_work_transaction();
	n = ts_index_queue_runnable(work_cxt, &rows);
	for (int i = 0; i < n && !found; i++)
	{
		Oid			rel;
		LOCKTAG		tag;

		if (!lock_queued_table(&rows[i], &tag, &rel))
			continue;
		held_table = rel;
		ts_index_queue_attempt(&rows[i]);
		*w = rows[i];
		*relid = rel;
		found = true;
	}
	end_work_transaction();
	return found;
}

/*
 * How long to wait before looking at the queue again: the time to the next retry of a row no
 * other worker holds, or -1 when there is none.
 */
static int
wait_for_queue(void)
{
	TsIndexWork *rows;
	int			n;
	int			wait = -1;

	begin_work_transaction();
	n = ts_index_queue_waiting(work_cxt, &rows);
	for (int i = 0; i < n; i++)
	{
		Oid			rel;
		LOCKTAG		tag;

		if (!lock_queued_table(&rows[i], &tag, &rel))
			continue;
		LockRelease(&tag, ExclusiveLock, true);
		if (wait < 0 || rows[i].wait_ms < wait)
			wait = rows[i].wait_ms;
	}
	end_work_transaction();
	return wait;
}

/* Apply the registered policy of the table, step by step. */
static void
apply_policy(Oid relid, const char *name)
{
	int			steps = 0;

	for (;;)
	{
		Step		step;
		bool		more;

		CHECK_FOR_INTERRUPTS();
		SetCurrentStatementStartTimestamp();
		StartTransactionCommand();
		if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)))
		{
			CommitTransactionCommand();
			return;				/* the table was dropped */
		}
		SPI_connect();
		PushActiveSnapshot(GetTransactionSnapshot());
		{
			MemoryContext old = MemoryContextSwitchTo(work_cxt);

			more = next_step(relid, &step);
			if (more)
				step.sql = MemoryContextStrdup(work_cxt, step.sql);
			MemoryContextSwitchTo(old);
		}
		SPI_finish();
		PopActiveSnapshot();
		CommitTransactionCommand();
		MemoryContextSwitchTo(TopMemoryContext);
		if (!more)
			break;
		if (++steps > MAX_STEPS)
			elog(ERROR, "tablestore index worker: the entity index of %s does not settle", name);
		elog(DEBUG1, "tablestore index worker: %s", step.sql);
		run_step(&step);
	}
	if (steps > 0)
		ereport(LOG, (errmsg("tablestore: the indexing policy of %s is applied (%d steps)", name, steps)));
}

/* After a failed attempt: drop the invalid indexes a concurrent build left (they slow writes down). */
static void
drop_leftovers(Oid relid)
{
	List	   *drops = NIL;
	ListCell   *lc;

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	if (SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)))
	{
		TsIndexState st;
		MemoryContext old;

		SPI_connect();
		PushActiveSnapshot(GetTransactionSnapshot());
		ts_index_state_read(relid, &st);
		/* the steps outlive SPI and this transaction */
		old = MemoryContextSwitchTo(work_cxt);
		for (int i = 0; i < st.nindexes; i++)
			if (!st.indexes[i].valid && !st.indexes[i].partitioned)
			{
				Step	   *s = palloc0(sizeof(Step));

				step_drop(s, &st.indexes[i], relid);
				drops = lappend(drops, s);
			}
		/* and a partition's, which no partitioned index owns (an interrupted build of its part) */
		for (int i = 0; i < st.nparts; i++)
			if (!st.parts[i].valid && st.parts[i].part_of == InvalidOid)
			{
				Step	   *s = palloc0(sizeof(Step));

				step_drop(s, &st.parts[i], st.parts[i].heap);
				drops = lappend(drops, s);
			}
		MemoryContextSwitchTo(old);
		SPI_finish();
		PopActiveSnapshot();
	}
	CommitTransactionCommand();
	MemoryContextSwitchTo(TopMemoryContext);
	foreach(lc, drops)
		run_step(lfirst(lc));
}

/* For errors of an attempt: which table, which attempt. */
typedef struct AttemptContext
{
	const char *name;
	int			attempt;
} AttemptContext;

static void
attempt_context(void *arg)
{
	AttemptContext *a = arg;

	errcontext("tablestore index worker: applying the indexing policy of table %s (attempt %d of %d)",
			   a->name, a->attempt, TS_INDEX_MAX_ATTEMPTS);
}

/* One claimed row: apply its policy; settle it, or keep its error and drop what the attempt left. */
static void
run_work(const TsIndexWork *w, Oid relid)
{
	AttemptContext actx = {w->key, w->attempts + 1};
	ErrorContextCallback cb = {error_context_stack, attempt_context, &actx};
	char	   *volatile error = NULL;

	error_context_stack = &cb;
	PG_TRY();
	{
		apply_policy(relid, w->key);
		begin_work_transaction();
		ts_index_queue_settle(w);
		end_work_transaction();
	}
	PG_CATCH();
	{
		error_context_stack = cb.previous;
		error = recover();
	}
	PG_END_TRY();
	error_context_stack = cb.previous;
	if (error == NULL)
		return;
	PG_TRY();
	{
		begin_work_transaction();
		ts_index_queue_fail(w, error);
		end_work_transaction();
		if (w->attempts + 1 >= TS_INDEX_MAX_ATTEMPTS)
			ereport(WARNING,
					(errmsg("tablestore: the indexing policy of table %s is not applied after %d attempts", w->key, TS_INDEX_MAX_ATTEMPTS),
					 errdetail("The last error: %s", error),
					 errhint("tablestore.index_builds shows it; set the policy again to retry.")));
		drop_leftovers(relid);
	}
	PG_CATCH();
	{
		(void) recover();
	}
	PG_END_TRY();
}

/*
 * Wait until the changes being made now end (their transactions hold the pending lock), as
 * CREATE INDEX CONCURRENTLY waits for older transactions: no polling, however long they stay
 * open.
 */
static void
wait_for_changes(void)
{
	LOCKTAG		pending;

	protocol_lock(&pending, MyDatabaseId, LOCK_PENDING, 0);
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	set_lock_timeout(0);
	pgstat_report_activity(STATE_RUNNING, "waiting for the policy changes being made");
	WaitForLockers(pending, ExclusiveLock, false);
	CommitTransactionCommand();
	set_lock_timeout(index_lock_timeout);
	pgstat_report_activity(STATE_IDLE, NULL);
}

/*
 * May the worker leave? Only when nothing is queued that no other worker holds, looked at
 * while no change is being made (the pending lock taken alone); then its slot is freed before
 * the pending lock. Otherwise, how long to wait before looking again (0: at once).
 */
static int
leave_or_wait(int slot)
{
	LOCKTAG		pending,
				slot_tag;
	int			wait = wait_for_queue();

	if (wait == 0)
	{
		/* a due row claim skipped: a change being made has locked it */
		wait_for_changes();
		return LOCKED_ROW_WAIT_MS;
	}
	if (wait > 0)
		return wait;
	protocol_lock(&pending, MyDatabaseId, LOCK_PENDING, 0);
	if (LockAcquire(&pending, ExclusiveLock, true, true) == LOCKACQUIRE_NOT_AVAIL)
	{
		/* a change is being made: it may need this worker */
		wait_for_changes();
		return 0;
	}
	wait = wait_for_queue();
	if (wait < 0)
	{
		/* the server's slot first: a launcher that finds the database's slot free finds it too */
		protocol_lock(&slot_tag, InvalidOid, LOCK_SERVER_SLOT, server_slot);
		LockRelease(&slot_tag, ExclusiveLock, true);
		protocol_lock(&slot_tag, MyDatabaseId, LOCK_SLOT, slot);
		LockRelease(&slot_tag, ExclusiveLock, true);
	}
	LockRelease(&pending, ExclusiveLock, true);
	return wait;
}

static void
work_off_queue(int slot)
{
	for (;;)
	{
		TsIndexWork w;
		Oid			relid;
		int			wait;

		/* a cancel is for a build's statement (drop_table's): between two, there is none to cancel */
		QueryCancelPending = false;
		CHECK_FOR_INTERRUPTS();
		MemoryContextReset(work_cxt);
		if (claim(&w, &relid))
		{
			run_work(&w, relid);
			release_table();
			continue;
		}
		wait = leave_or_wait(slot);
		if (wait < 0)
			return;
		if (wait == 0)
			continue;
		/* at most a second: a change queued meanwhile for want of a slot is taken soon */
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 Min(wait, BUSY_POLL_MS), PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
}

void
tablestore_index_worker_main(Datum arg)
{
	int			slot = DatumGetInt32(arg);
	WorkerArgs	args;
	LOCKTAG		tag;
	bool		installed;

	memcpy(&args, MyBgworkerEntry->bgw_extra, sizeof(args));
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	/* the database's owner, so that it may end the worker; InvalidOid: the bootstrap superuser */
	BackgroundWorkerInitializeConnectionByOid(args.database, args.role, 0);
	worker_user = GetUserId();
	pgstat_report_appname("tablestore index worker");
	/* every name it writes is qualified; nothing of a user's is looked up first */
	SetConfigOption("search_path", "pg_catalog, pg_temp", PGC_SUSET, PGC_S_OVERRIDE);
	/* a build is bounded by its own waits, not by a timeout set for the database's clients */
	SetConfigOption("statement_timeout", "0", PGC_SUSET, PGC_S_OVERRIDE);
	SetConfigOption("idle_in_transaction_session_timeout", "0", PGC_SUSET, PGC_S_OVERRIDE);
	/* an index goes where its table is (create_sql), never where a database setting says */
	SetConfigOption("default_tablespace", "", PGC_SUSET, PGC_S_OVERRIDE);
	work_cxt = AllocSetContextCreate(TopMemoryContext, "tablestore index worker", ALLOCSET_DEFAULT_SIZES);
	statement_cxt = AllocSetContextCreate(TopMemoryContext, "tablestore index worker statement", ALLOCSET_DEFAULT_SIZES);

	/* the slot: its launcher holds it until the change it was launched for commits */
	StartTransactionCommand();
	set_lock_timeout(0);
	protocol_lock(&tag, args.database, LOCK_SLOT, slot);
	(void) LockAcquire(&tag, ExclusiveLock, true, false);
	set_lock_timeout(index_lock_timeout);
	installed = ts_index_queue_installed();
	CommitTransactionCommand();
	if (!installed)
		proc_exit(0);			/* the extension was dropped, or is older than its library */
	server_slot = find_server_slot(true);
	if (server_slot == 0)
	{
		/* other databases' builds take the server's slots: the next launch takes the work */
		ereport(LOG,
				(errmsg("tablestore: every index build slot of the server is taken (tablestore.max_index_builds_total); the changes stay queued")));
		LockRelease(&tag, ExclusiveLock, true);
		proc_exit(0);
	}

	PG_TRY();
	{
		work_off_queue(slot);
	}
	PG_CATCH();
	{
		/* the queue itself failed (the extension dropped meanwhile?): what is queued stays so */
		(void) recover();
		release_table();
		/* the slot before the pending lock (leave_or_wait may hold it), as when leaving */
		LockRelease(&tag, ExclusiveLock, true);
		LockReleaseAll(USER_LOCKMETHOD, true);
		proc_exit(1);
	}
	PG_END_TRY();
	proc_exit(0);
}
