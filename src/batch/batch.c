/*
 * batch.c - tablestore.execute_batch: entity group transactions (contract §6).
 *
 * 1. batch_parse.c reads and checks the whole operations document before anything is written:
 *    at most 4 MiB of JSON, at most 100 operations, each well formed, one PartitionKey. Then
 *    each (PartitionKey, RowKey) must appear once. Errors name the operation's 0-based index.
 *    Every key of the batch, present or absent, is then locked in one fixed order (lock_keys),
 *    so that batches over the same keys queue and never deadlock.
 * 2. In an internal subtransaction of the caller's transaction, one statement locks the rows
 *    that exist, in key order (FOR UPDATE), and returns their ETags. An insert-only batch skips
 *    this: the primary key finds an entity that exists.
 * 3. Insert, If-Match and existence conditions are checked against those locked rows in
 *    request order, so the first failing operation is the one reported; before its error, the
 *    earlier operations that could fail while writing run (run_earlier_writes), so that one of
 *    them that fails is named instead, as the service names the first failure.
 * 4. The operations run in key order: on the direct path with one executor state for the whole
 *    batch where it applies, else each through its kind's prepared statement. Every wait is thus
 *    in ascending key order, and overlapping batches queue instead of deadlocking.
 * Any error rolls the subtransaction back (nothing of the batch remains) and is raised again as
 * "operation N: ...", keeping its SQLSTATE (so 40001 and 40P01 stay retryable). When a write
 * fails, the operations are run again in request order (and rolled back) to name the first that
 * fails, as the service does: the writes ran in key order.
 */
#include "remote_call.h"
#include "batch.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "entity.h"
#include "entity_dml.h"
#include "etag.h"
#include "fast_path.h"
#include "entity_index.h"
#include "key_scope.h"
#include "entity_sql.h"
#include "ts_support.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/timestamp.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "access/table.h"
#include "stamp.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "storage/lock.h"

#include <xxhash.h>

/* Sort by RowKey (one PartitionKey), then by request order. */
static int
op_key_cmp(const void *a, const void *b)
{
	const BatchOp *x = *(BatchOp *const *) a;
	const BatchOp *y = *(BatchOp *const *) b;
	int			c = ts_key_cmp(x->rk, y->rk);

	return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* The lock statement over the sorted row keys rks of partition pk: its rows in SPI_tuptable. */
static void
run_lock_statement(const TsTable *t, text *pk, Datum *rks, int n)
{
	Datum		args[2] = {PointerGetDatum(pk),
	PointerGetDatum(construct_array(rks, n, TEXTOID, -1, false, TYPALIGN_INT))};

	if (SPI_execute_plan(ts_plan_get(t, PLAN_LOCK_KEYS), args, NULL, false, 0) < 0)
		elog(ERROR, "tablestore: locking the batch's entities failed");
}

/* Step 2: lock the rows that exist, in key order, and learn their ETags. */
static void
lock_existing(const TsTable *t, BatchOp **sorted, int n, MemoryContext keep)
{
	Datum	   *rks = palloc(sizeof(Datum) * n);
	int			k = 0;

	for (int i = 0; i < n; i++)
		rks[i] = PointerGetDatum(sorted[i]->rk);
	ts_spi_begin();
	run_lock_statement(t, sorted[0]->pk, rks, n);
	/* both lists are in key order: walk them together */
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		bool		isnull;
		text	   *rk = DatumGetTextPP(SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 1, &isnull));
		Datum		etag = SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 2, &isnull);

		while (k < n && ts_key_cmp(sorted[k]->rk, rk) < 0)
			k++;
		if (k < n && ts_key_cmp(sorted[k]->rk, rk) == 0)
		{
			MemoryContext old = MemoryContextSwitchTo(keep);

			sorted[k]->exists = true;
			sorted[k]->current_etag = DatumGetTextPCopy(etag);
			MemoryContextSwitchTo(old);
		}
	}
	ts_spi_end();
}

/*
 * An update, merge or delete whose row the lock step did not find: an AuthorizationFailure when
 * row-level security lets the role read the row but not change it (the lock takes the UPDATE
 * policies), else ResourceNotFound.
 */
static void
raise_absent(const TsTable *t, BatchOp *op)
{
	char		prefix[TS_OPERATION_PREFIX_BUF];
	Datum		rk = PointerGetDatum(op->rk);

	ts_spi_begin();
	/* (found by the lock now: written meanwhile, not hidden; the batch reports what it saw) */
	run_lock_statement(t, op->pk, &rk, 1);
	if (SPI_processed == 0 && entity_dml_current_etag(t, op->pk, op->rk) != NULL)
		entity_dml_raise_if_rls(t, op->pk, op->rk, op->kind == OP_DELETE ? "lock" : "update",
								op->kind == OP_DELETE ? "A batch locks the entities it deletes, which takes an UPDATE "
								"policy (the d permission of grant_scoped_access makes one)." : NULL,
								ts_operation_prefix(prefix, op->index));
	ts_spi_end();
	batch_op_error(op->index, TSE_RESOURCE_NOT_FOUND, "the entity %s does not exist", ts_keys_excerpt(op->pk, op->rk));
}

/* Step 3: the conditions, in request order: the index of the first that fails, or -1. */
static int
first_failed_condition(BatchOp *ops, int n)
{
	for (int i = 0; i < n; i++)
	{
		BatchOp    *op = &ops[i];

		switch (op->kind)
		{
			case OP_INSERT:
				if (op->exists)
					return i;
				break;
			case OP_UPDATE:
			case OP_MERGE:
			case OP_DELETE:
				if (!op->exists || (op->if_match && !etag_matches(op->current_etag, op->if_match)))
					return i;
				break;
			default:
				break;
		}
	}
	return -1;
}

/* Raise the error of an operation whose condition failed. */
static void
raise_condition(const TsTable *t, BatchOp *op)
{
	if (op->kind == OP_INSERT)
		batch_op_error(op->index, TSE_ENTITY_EXISTS, "the entity %s already exists", ts_keys_excerpt(op->pk, op->rk));
	if (!op->exists)
		raise_absent(t, op);
	batch_op_error(op->index, TSE_CONDITION_FAILED, "the entity %s has changed: its ETag is not the If-Match value",
				   ts_keys_excerpt(op->pk, op->rk));
}

/*
 * An operation wrote nothing. Updates, merges and deletes found their rows locked (step 2), so
 * as inserts and upserts (a conflict raises) a BEFORE ROW trigger of the user's cancelled it.
 */
static void
raise_nothing_written(BatchOp *op)
{
	char		prefix[TS_OPERATION_PREFIX_BUF];

	if ((op->kind == OP_UPDATE || op->kind == OP_MERGE || op->kind == OP_DELETE) && !op->exists)
		batch_op_error(op->index, TSE_RESOURCE_NOT_FOUND, "the entity %s does not exist", ts_keys_excerpt(op->pk, op->rk));
	ts_raise_write_cancelled(ts_operation_prefix(prefix, op->index));
}

/*
 * Run one operation through its kind's prepared statement; its result goes to op->result. The
 * statement runs to its end, so that its AFTER STATEMENT triggers fire (as run_write's do).
 */
static void
run_statement(const TsTable *t, BatchOp *op)
{
	static const TsPlanKind kinds[] = {
		[OP_INSERT] = PLAN_INSERT, [OP_UPDATE] = PLAN_UPDATE_ANY, [OP_MERGE] = PLAN_MERGE_ANY,
		[OP_UPSERT_REPLACE] = PLAN_UPSERT_REPLACE, [OP_UPSERT_MERGE] = PLAN_UPSERT_MERGE,
		[OP_DELETE] = PLAN_DELETE_ANY
	};
	Datum		args[3] = {PointerGetDatum(op->pk), PointerGetDatum(op->rk), EntityPGetDatum(op->props)};
	bool		isnull,
				etag_null;
	Datum		etag,
				ts;

	if (SPI_execute_plan(ts_plan_get(t, kinds[op->kind]), args, NULL, false, 0) < 0)
		elog(ERROR, "tablestore: a batch operation failed");
	if (SPI_processed == 0)
		raise_nothing_written(op);
	if (op->kind == OP_DELETE)
		return;
	etag = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &etag_null);
	ts = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull);
	stamp_written(isnull ? 0 : DatumGetTimestampTz(ts), etag_null ? NULL : DatumGetTextPP(etag), &op->result);
	/* the ETag out of SPI's memory, which SPI_finish frees */
	op->result.etag = (text *) DatumGetPointer(SPI_datumTransfer(PointerGetDatum(op->result.etag), false, -1));
}

/*
 * An insert-only batch on the direct path: what each insert's Timestamp depends on (its key's
 * versions still in the table, and transactions still writing one, stamp.h) learnt in one scan of
 * the partition's key range for the n inserts still to run, instead of one lookup per insert.
 * False, with their histories unknown (each insert then looks itself), when the range is not
 * worth scanning.
 *
 * What is learnt ages: a transaction that starts writing one of the keys after the scan is not
 * waited for. One insert's own lookup leaves that window open for the microseconds between the
 * lookup and the insert; the batch learns again when what it knows is older than
 * KEY_HISTORY_MAX_AGE_US, so that the window stays of that order however long the earlier inserts
 * took (waiting on another transaction's key, for one).
 */
#define KEY_HISTORY_MAX_AGE_US 100

static bool
learn_key_histories(FastBatch *fb, BatchOp **sorted, int n)
{
	text	  **rks = palloc(sizeof(text *) * n);
	KeyHistory *h = palloc(sizeof(KeyHistory) * n);
	bool		learnt;

	for (int i = 0; i < n; i++)
		rks[i] = sorted[i]->rk;
	learnt = fast_batch_probe_inserts(fb, sorted[0]->pk, rks, n, h);
	for (int i = 0; i < n; i++)
		sorted[i]->history = learnt ? h[i] : (KeyHistory) {0};
	pfree(rks);
	pfree(h);
	return learnt;
}

/*
 * Run one operation on the direct path. An upsert takes its statement when its row did not exist
 * (it may race with a concurrent insert of the same key: ON CONFLICT decides), and whenever the
 * table has triggers of its own: INSERT ... ON CONFLICT fires the BEFORE INSERT triggers even
 * when it updates.
 */
static void
run_direct(const TsTable *t, FastBatch *fb, BatchOp *op, bool *spi_connected)
{
	bool		merge = op->kind == OP_MERGE || op->kind == OP_UPSERT_MERGE;
	FastResult	r = FAST_OK;

	switch (op->kind)
	{
		case OP_INSERT:
			if (!fast_batch_insert(fb, op->pk, op->rk, op->props, &op->history, &op->result))
				raise_nothing_written(op);
			return;
		case OP_DELETE:
			r = fast_batch_delete(fb, op->pk, op->rk);
			break;
		case OP_UPSERT_REPLACE:
		case OP_UPSERT_MERGE:
			if (!op->exists || !fast_batch_self_stamps(fb))
			{
				if (!*spi_connected)
				{
					ts_spi_begin();
					*spi_connected = true;
				}
				run_statement(t, op);
				return;
			}
			/* FALLTHROUGH */
		default:
			r = fast_batch_update(fb, op->pk, op->rk, op->props, merge, &op->result);
	}
	if (r == FAST_NOT_FOUND)
		batch_op_error(op->index, TSE_RESOURCE_NOT_FOUND, "the entity %s does not exist", ts_keys_excerpt(op->pk, op->rk));
	if (r == FAST_CANCELLED)
		raise_nothing_written(op);
}

/*
 * Step 0: every key of the batch, present or absent, is locked before anything else, in one
 * fixed order, so that concurrent batches over overlapping keys queue instead of deadlocking
 * (a batch could otherwise hold rows that exist and wait for a key another batch has just
 * inserted). The locks are transaction-level locks in the advisory lock space of the database,
 * with a class of their own (pg_locks: locktype advisory, objsubid TS_KEY_LOCK_CLASS) and the
 * 64-bit hash of (table, PartitionKey, RowKey) as their id; they are taken outside the batch's
 * subtransaction and held until the transaction ends. Ordering by that id rather than by key
 * also keeps two keys that share an id (a hash collision) from being taken in two orders.
 */
#define TS_KEY_LOCK_CLASS 0x7473

static int
lock_id_cmp(const void *a, const void *b)
{
	uint64		x = *(const uint64 *) a;
	uint64		y = *(const uint64 *) b;

	return (x > y) - (x < y);
}

static void
lock_keys(const TsTable *t, BatchOp *ops, int n)
{
	uint64	   *ids = palloc(sizeof(uint64) * n);

	for (int i = 0; i < n; i++)
	{
		uint64		h = XXH3_64bits_withSeed(VARDATA_ANY(ops[i].pk), VARSIZE_ANY_EXHDR(ops[i].pk), t->relid);

		ids[i] = XXH3_64bits_withSeed(VARDATA_ANY(ops[i].rk), VARSIZE_ANY_EXHDR(ops[i].rk), h);
	}
	qsort(ids, n, sizeof(uint64), lock_id_cmp);
	for (int i = 0; i < n; i++)
	{
		LOCKTAG		tag;

		if (i > 0 && ids[i] == ids[i - 1])
			continue;
		SET_LOCKTAG_ADVISORY(tag, MyDatabaseId, (uint32) (ids[i] >> 32), (uint32) ids[i], TS_KEY_LOCK_CLASS);
		(void) LockAcquire(&tag, ExclusiveLock, false, false);
	}
	pfree(ids);
}

/*
 * Whether an error from the writes (step 4) may depend on the order the writes ran in (a
 * constraint, a trigger, a merged size): then the operations are run again in request order to
 * find the first that fails, as the service would report it. Cancels, resource and system
 * errors, serialization failures and deadlocks are raised as they are.
 */
static bool
order_dependent(const ErrorData *edata)
{
	int			class = ERRCODE_TO_CATEGORY(edata->sqlerrcode);

	return class != ERRCODE_TO_CATEGORY(ERRCODE_T_R_SERIALIZATION_FAILURE) &&
		class != ERRCODE_TO_CATEGORY(ERRCODE_INSUFFICIENT_RESOURCES) &&
		class != ERRCODE_TO_CATEGORY(ERRCODE_PROGRAM_LIMIT_EXCEEDED) &&
		class != ERRCODE_TO_CATEGORY(ERRCODE_OPERATOR_INTERVENTION) &&
		class != ERRCODE_TO_CATEGORY(ERRCODE_SYSTEM_ERROR) &&
		class != ERRCODE_TO_CATEGORY(ERRCODE_INTERNAL_ERROR);
}

/*
 * The writes failed (in key order) at operation fallback: run every operation again, in request
 * order, in a subtransaction that is always rolled back, and return the index of the first that
 * fails, with its error in *edata. When none fails this way, fallback and its error stand.
 */
static int
first_failing_in_request_order(const TsTable *t, BatchOp *ops, int n, int fallback, ErrorData **edata)
{
	MemoryContext outer = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	volatile int failed = fallback;
	volatile int i = 0;

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(outer);
	PG_TRY();
	{
		ts_spi_begin();
		for (i = 0; i < n; i++)
		{
			CHECK_FOR_INTERRUPTS();
			run_statement(t, &ops[i]);
		}
		ts_spi_end();
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(outer);
		*edata = CopyErrorData();
		FlushErrorState();
		failed = i;
	}
	PG_END_TRY();
	RollbackAndReleaseCurrentSubTransaction();
	MemoryContextSwitchTo(outer);
	CurrentResourceOwner = owner;
	return failed;
}

/*
 * Whether a write to the table can fail only by the entity rules, which the parser checked for
 * every operation but a merge (the merged entity may pass 252 properties or 1 MiB): no trigger but
 * the stamp (a foreign key is one), no CHECK constraint, no index but the primary key and the
 * entity index (whose keys always fit), no row level security.
 */
static bool
writes_fail_by_entity_rules_only(const TsTable *t)
{
	Relation	rel = table_open(t->relid, AccessShareLock);
	List	   *indexes = RelationGetIndexList(rel);
	int			others = 0;
	ListCell   *lc;
	bool		only;

	foreach(lc, indexes)
		others += !ts_index_is_entity_index(lfirst_oid(lc));
	only = stamp_trigger_only(rel) && others == 1 && !rel->rd_rel->relrowsecurity &&
		(rel->rd_att->constr == NULL || rel->rd_att->constr->num_check == 0);
	list_free(indexes);
	table_close(rel, AccessShareLock);
	return only;
}

/*
 * Operation k failed its condition (step 3, before any write). An earlier operation whose write
 * would fail (a merge past 252 properties or 1 MiB, a constraint, a trigger) fails first, in
 * request order, as the service names it: run the earlier operations that could, here, in the
 * batch's subtransaction, where the lock step holds their rows (their writes go with the
 * subtransaction's rollback). *current is the one running, so that its error names it. On a table
 * of the entity rules alone only merges of existing entities can fail, and only they run: all
 * their rows are locked already, so they wait for nothing.
 */
static void
run_earlier_writes(const TsTable *t, BatchOp *ops, int k, volatile int *current)
{
	bool		merges_only = writes_fail_by_entity_rules_only(t);
	bool		spi = false;

	for (int i = 0; i < k; i++)
	{
		/* (an upsert_merge of an absent entity inserts what the parser checked: it cannot fail) */
		if (merges_only && ops[i].kind != OP_MERGE && !(ops[i].kind == OP_UPSERT_MERGE && ops[i].exists))
			continue;
		if (!spi)
			ts_spi_begin();
		spi = true;
		*current = i;
		CHECK_FOR_INTERRUPTS();
		run_statement(t, &ops[i]);
	}
	*current = -1;
	if (spi)
		ts_spi_end();
}

/* An error from step 2 on, raised again for the operation it belongs to. */
static void
rethrow_for_operation(ErrorData *edata, const TsTable *t, BatchOp *ops, int index)
{
	char		prefix[TS_OPERATION_PREFIX_BUF];

	if (index < 0 || strncmp(edata->message, "operation ", 10) == 0)
		ReThrowError(edata);
	if (edata->sqlerrcode == ERRCODE_UNIQUE_VIOLATION && ops[index].kind == OP_INSERT &&
		ts_table_is_primary_key(t, edata->constraint_name))
		batch_op_error(index, TSE_ENTITY_EXISTS, "the entity %s already exists", ts_keys_excerpt(ops[index].pk, ops[index].rk));
	ereport(ERROR,
			(errcode(edata->sqlerrcode),
			 errmsg("%s%s", ts_operation_prefix(prefix, index), edata->message),
			 edata->detail ? errdetail("%s", edata->detail) : 0,
			 edata->hint ? errhint("%s", edata->hint) : 0));
}

/* The result: per operation, in request order, {"etag": its new ETag} ({} for a delete). */
static Datum
result_document(BatchOp *ops, int n)
{
	JsonbParseState *state = NULL;
	JsonbValue	key = {.type = jbvString, .val.string = {.len = 4, .val = "etag"}};

	pushJsonbValue(&state, WJB_BEGIN_ARRAY, NULL);
	for (int i = 0; i < n; i++)
	{
		pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
		if (ops[i].result.etag != NULL)
		{
			JsonbValue	v = {.type = jbvString};

			v.val.string.len = VARSIZE_ANY_EXHDR(ops[i].result.etag);
			v.val.string.val = VARDATA_ANY(ops[i].result.etag);
			pushJsonbValue(&state, WJB_KEY, &key);
			pushJsonbValue(&state, WJB_VALUE, &v);
		}
		pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	}
	return JsonbPGetDatum(JsonbValueToJsonb(pushJsonbValue(&state, WJB_END_ARRAY, NULL)));
}

BatchOp *
batch_run(const TsTable *tp, const char *doc, size_t len, size_t max_bytes, const KeyScope *scope, int *nops,
		  Oid *remote)
{
	TsTable		t = *tp;
	int			n;
	BatchOp    *ops;
	BatchOp   **sorted;
	volatile AclMode needed = 0;
	volatile bool inserts_only = true;
	MemoryContext outer = CurrentMemoryContext;
	MemoryContext op_cxt;
	ResourceOwner owner = CurrentResourceOwner;
	volatile int current = -1;
	volatile bool in_request_order = false;

	/* Step 1: everything checked before anything is written. */
	ops = batch_parse(doc, len, max_bytes, &n);
	sorted = palloc(sizeof(BatchOp *) * n);
	for (int i = 0; i < n; i++)
	{
		if (scope != NULL && !key_scope_contains(scope, ops[i].pk, ops[i].rk))
			batch_op_error(i, TSE_KEY_SCOPE, KEY_SCOPE_MESSAGE,
						   ts_keys_excerpt(ops[i].pk, ops[i].rk));
		inserts_only &= ops[i].kind == OP_INSERT;
		needed |= ops[i].kind == OP_INSERT ? ACL_INSERT :
			ops[i].kind == OP_DELETE ? ACL_DELETE :
			(ops[i].kind == OP_UPDATE || ops[i].kind == OP_MERGE) ? ACL_UPDATE : (ACL_INSERT | ACL_UPDATE);
		sorted[i] = &ops[i];
	}
	qsort(sorted, n, sizeof(BatchOp *), op_key_cmp);
	for (int i = 1; i < n; i++)
	{
		if (ts_key_cmp(sorted[i - 1]->rk, sorted[i]->rk) == 0)
			batch_op_error(sorted[i]->index, TSE_BATCH_DUPLICATE, "the entity %s is already operation %d of the batch",
					 ts_keys_excerpt(sorted[i]->pk, sorted[i]->rk), sorted[i - 1]->index);
	}

	/* a distributed table: the partition's node runs the whole batch (one remote call) */
	*remote = n > 0 ? ts_table_route(&t, ops[0].pk, needed) : InvalidOid;
	if (OidIsValid(*remote))
		return NULL;

	lock_keys(&t, ops, n);		/* step 0 */
	op_cxt = AllocSetContextCreate(outer, "tablestore batch operation", ALLOCSET_DEFAULT_SIZES);
	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(outer);
	PG_TRY();
	{
		FastBatch  *fb;
		bool		spi_connected = false;
		bool		learn;
		TimestampTz learnt_at = 0;

		if (!inserts_only)
		{
			int			k;

			lock_existing(&t, sorted, n, outer);	/* step 2 */
			if ((k = first_failed_condition(ops, n)) >= 0)	/* step 3 */
			{
				in_request_order = true;
				run_earlier_writes(&t, ops, k, &current);
				raise_condition(&t, &ops[k]);
			}
		}
		fb = fast_batch_begin(&t, needed);	/* step 4 */
		if (fb == NULL)
		{
			ts_spi_begin();
			spi_connected = true;
		}
		learn = fb != NULL && inserts_only && n > 1;
		for (int i = 0; i < n; i++)
		{
			BatchOp    *op = sorted[i];
			MemoryContext old;

			CHECK_FOR_INTERRUPTS();
			current = op->index;
			old = MemoryContextSwitchTo(op_cxt);
			if (learn && GetCurrentTimestamp() - learnt_at > KEY_HISTORY_MAX_AGE_US)
			{
				learn = learn_key_histories(fb, sorted + i, n - i);
				learnt_at = GetCurrentTimestamp();
			}
			if (fb)
				run_direct(&t, fb, op, &spi_connected);
			else
				run_statement(&t, op);
			MemoryContextSwitchTo(outer);
			if (op->result.etag)
				op->result.etag = DatumGetTextPCopy(PointerGetDatum(op->result.etag));
			MemoryContextSwitchTo(old);
			MemoryContextReset(op_cxt);
		}
		current = -1;
		if (fb)
			fast_batch_end(fb);
		if (spi_connected)
			ts_spi_end();
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(outer);
		CurrentResourceOwner = owner;
	}
	PG_CATCH();
	{
		ErrorData  *edata;
		int			failed = current;

		MemoryContextSwitchTo(outer);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(outer);
		CurrentResourceOwner = owner;
		/*
		 * a write in key order failed: name the first operation that fails in request order, as the
		 * service does (the writes run_earlier_writes ran were in request order already)
		 */
		if (failed >= 0 && !in_request_order && order_dependent(edata))
			failed = first_failing_in_request_order(&t, ops, n, failed, &edata);
		rethrow_for_operation(edata, &t, ops, failed);
	}
	PG_END_TRY();
	MemoryContextDelete(op_cxt);
	*nops = n;
	return ops;
}

/* Run the batch of the SQL function: the table by name, the result as jsonb. */
static Datum
execute_batch(FunctionCallInfo fcinfo, text *tbl, const char *doc, size_t len)
{
	TsTable		t;
	BatchOp    *ops;
	int			n;
	Oid			remote;

	ts_table_resolve(tbl, &t);
	ops = batch_run(&t, doc, len, TS_BODY_MAX_BYTES, NULL, &n, &remote);
	if (OidIsValid(remote))
		return ts_forward_call(fcinfo, remote, true);
	return result_document(ops, n);
}

static void
check_args(FunctionCallInfo fcinfo)
{
	ts_require_arg(fcinfo, 0, "tbl");
	if (PG_ARGISNULL(1))
		ts_raisef(TSE_BATCH_MALFORMED, "operations must not be NULL");
}

/* execute_batch(tbl text, operations jsonb): the document as jsonb writes it. */
PG_FUNCTION_INFO_V1(tablestore_execute_batch);
Datum
tablestore_execute_batch(PG_FUNCTION_ARGS)
{
	Jsonb	   *ops;
	char	   *doc;

	check_args(fcinfo);
	ts_require_utf8();
	ops = PG_GETARG_JSONB_P(1);
	doc = JsonbToCString(NULL, &ops->root, VARSIZE(ops));
	PG_RETURN_DATUM(execute_batch(fcinfo, PG_GETARG_TEXT_PP(0), doc, strlen(doc)));
}

/* execute_batch(tbl text, operations text): the document exactly as sent. */
PG_FUNCTION_INFO_V1(tablestore_execute_batch_text);
Datum
tablestore_execute_batch_text(PG_FUNCTION_ARGS)
{
	text	   *ops;

	check_args(fcinfo);
	ts_require_utf8();
	ops = PG_GETARG_TEXT_PP(1);
	PG_RETURN_DATUM(execute_batch(fcinfo, PG_GETARG_TEXT_PP(0), VARDATA_ANY(ops), VARSIZE_ANY_EXHDR(ops)));
}
