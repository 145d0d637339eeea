/*
 * remote_call.c - calls on the node that holds a distributed table's partition (remote_call.h).
 *
 * The connection is postgres_fdw's own (GetConnection, looked up in its library): one connection
 * per server and user mapping, a remote transaction begun at the first use in a local transaction
 * (REPEATABLE READ, or SERIALIZABLE under a serializable local one), savepoints matching local
 * subtransactions, commit in the local pre-commit and rollback on abort. postgres_fdw has no
 * two-phase commit: a transaction writing on two nodes could commit on one and fail on the other,
 * so tablestore refuses it unless tablestore.allow_multi_node_writes is on.
 */
#include "remote_call.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/partition.h"
#include "catalog/pg_class.h"
#include "catalog/pg_proc.h"
#include "commands/trigger.h"
#include "commands/defrem.h"
#include "catalog/pg_type.h"
#include "foreign/foreign.h"
#include "funcapi.h"
#include "libpq-fe.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "partitioning/partdesc.h"
#include "stamp_import.h"
#include "storage/latch.h"
#include "table_layout.h"
#include "utils/rel.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"
#include "ts_report.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/tuplestore.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"

bool		ts_allow_multi_node_writes = false;

/* the server this transaction wrote on through tablestore's calls, if any */
static Oid	write_server = InvalidOid;

/* the servers whose remote transaction this one marked as the coordinator's (mark_as_coordinator) */
#define MARKED_MAX 16
static Oid	marked[MARKED_MAX];
static int	nmarked = 0;

/* a subtransaction of this transaction was rolled back */
static bool subxact_aborted = false;

/* the user mappings whose remote transaction imports Timestamps (import_row), in TopTransactionContext */
static List *import_mappings = NIL;

static void forget_prepared(void);
static PGresult *remote_exec(Oid server, const char *sql, int nparams, const char *const *params);

/*
 * At the end of a transaction: the server written on is forgotten, and the statements prepared on
 * the nodes are no longer taken for granted when postgres_fdw may have dropped them. Its
 * transaction callback sends DEALLOCATE ALL to a node at the end of a transaction that had an
 * error, when it prepared statements of its own there (plain SQL INSERT, UPDATE and DELETE on
 * foreign tables).
 */
static void
end_of_transaction(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT ||
		((event == XACT_EVENT_COMMIT || event == XACT_EVENT_PARALLEL_COMMIT || event == XACT_EVENT_PREPARE) && subxact_aborted))
		forget_prepared();
	if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT || event == XACT_EVENT_PREPARE ||
		event == XACT_EVENT_PARALLEL_COMMIT || event == XACT_EVENT_PARALLEL_ABORT)
	{
		write_server = InvalidOid;
		subxact_aborted = false;
		import_mappings = NIL;
		nmarked = 0;
	}
}

static void
note_subxact_abort(SubXactEvent event, SubTransactionId mySubid, SubTransactionId parentSubid, void *arg)
{
	if (event == SUBXACT_EVENT_ABORT_SUB)
		subxact_aborted = true;
}

void
ts_remote_call_init(void)
{
	DefineCustomBoolVariable("tablestore.allow_multi_node_writes",
							 "Lets one transaction write to a distributed table on more than one node.",
							 "postgres_fdw has no two-phase commit: such a transaction can commit on one node "
							 "and fail on another. Off by default.",
							 &ts_allow_multi_node_writes, false, PGC_USERSET, 0, NULL, NULL, NULL);
	RegisterXactCallback(end_of_transaction, NULL);
	RegisterSubXactCallback(note_subxact_abort, NULL);
}

/* Raise TSX04 when this transaction wrote on another server than this one. */
static void
check_one_writing_node(Oid server)
{
	if (OidIsValid(write_server) && write_server != server && !ts_allow_multi_node_writes)
	{
		ForeignServer *a = GetForeignServer(write_server);
		ForeignServer *b = GetForeignServer(server);
		TsError		err = {0};

		ts_fail(&err, TSE_TWO_NODES, "this transaction wrote on the node \"%s\" and would now write on \"%s\"",
				a->servername, b->servername);
		ts_fail_detail(&err, "Writes to a distributed table commit on each node separately (there is no two-phase "
					   "commit), so a transaction writes on one node only.");
		ts_raise(&err);
	}
}

/*
 * Plain SQL through postgres_fdw writes on the node's shard table, whose fence (during a move) lets
 * only the coordinator's writes pass (shard_fence.c): its remote transaction is marked as the
 * coordinator's, as forwarded calls are, once per transaction and server, before its first row.
 */
static void
mark_as_coordinator(Oid server)
{
	for (int i = 0; i < nmarked; i++)
		if (marked[i] == server)
			return;
	PQclear(remote_exec(server, "SELECT tablestore.routed_by_coordinator(true)", 0, NULL));
	if (nmarked < MARKED_MAX)
		marked[nmarked++] = server;
}

void
ts_note_remote_write(Oid server)
{
	check_one_writing_node(server);
	write_server = server;
	mark_as_coordinator(server);
}

/* ---------- the connection ---------- */

typedef PGconn *(*GetConnection_fn) (UserMapping *user, bool will_prep_stmt, void **state);
typedef PGresult *(*get_result_fn) (PGconn *conn, const char *query);

static GetConnection_fn get_connection;
static get_result_fn get_result;

static PGconn *
connection_for(Oid server)
{
	if (get_connection == NULL)
	{
		get_connection = (GetConnection_fn) load_external_function("$libdir/postgres_fdw", "GetConnection", true, NULL);
		get_result = (get_result_fn) load_external_function("$libdir/postgres_fdw", "pgfdw_get_result", true, NULL);
	}
	return get_connection(GetUserMapping(GetUserId(), server), false, NULL);
}

/* Raise the node's error as the node raised it: SQLSTATE, message, detail and hint. */
void
ts_raise_node_error(PGresult *res, PGconn *conn, Oid server)
{
	const char *state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
	const char *msg = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
	const char *detail = PQresultErrorField(res, PG_DIAG_MESSAGE_DETAIL);
	const char *hint = PQresultErrorField(res, PG_DIAG_MESSAGE_HINT);
	int			code = state && strlen(state) == 5 ?
		MAKE_SQLSTATE(state[0], state[1], state[2], state[3], state[4]) : ERRCODE_CONNECTION_FAILURE;
	char	   *m = pstrdup(msg ? msg : conn ? PQerrorMessage(conn) : "the node did not answer");
	char	   *d = detail ? pstrdup(detail) : NULL;
	char	   *h = hint ? pstrdup(hint) : NULL;

	PQclear(res);
	ereport(ERROR,
			(errcode(code),
			 errmsg_internal("%s", m),
			 d ? errdetail_internal("%s", d) : 0,
			 h ? errhint("%s", h) : 0,
			 state == NULL ? errcontext("on the node \"%s\"", GetForeignServer(server)->servername) : 0));
}

/* A result that is not rows or a command's success is raised. */
static PGresult *
check_result(PGresult *res, PGconn *conn, Oid server)
{
	ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;

	if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK)
		ts_raise_node_error(res, conn, server);
	return res;
}

/* Send and wait (interruptibly). */
static PGresult *
remote_exec(Oid server, const char *sql, int nparams, const char *const *params)
{
	PGconn	   *conn = connection_for(server);

	if (!PQsendQueryParams(conn, sql, nparams, NULL, params, NULL, NULL, 0))
		ts_raise_node_error(NULL, conn, server);
	return check_result(get_result(conn, sql), conn, server);
}

/*
 * The statements that forward calls are prepared once per remote session and function, so the
 * node parses and plans them once. A session is its connection and its backend's PID (a new
 * connection at a freed connection's address has another backend).
 */
typedef struct PreparedKey
{
	PGconn	   *conn;
	int			pid;
	Oid			fn;
} PreparedKey;

typedef struct PreparedEntry
{
	PreparedKey key;
	bool		certain;		/* false: postgres_fdw may have deallocated it since */
} PreparedEntry;

static HTAB *prepared = NULL;

/* whether a statement is still prepared on the node (also the text its errors name) */
#define PREPARED_CHECK_SQL "SELECT 1 FROM pg_catalog.pg_prepared_statements WHERE name = $1"

/* After a transaction with an error: each statement is looked for on its node before its next use. */
static void
forget_prepared(void)
{
	HASH_SEQ_STATUS seq;
	PreparedEntry *e;

	if (prepared == NULL)
		return;
	hash_seq_init(&seq, prepared);
	while ((e = hash_seq_search(&seq)) != NULL)
		e->certain = false;
}

/* A hash table of this session (TopMemoryContext), made at its first use. */
static HTAB *
session_hash(HTAB **h, const char *name, Size keysize, Size entrysize)
{
	if (*h == NULL)
	{
		HASHCTL		ctl = {0};

		ctl.keysize = keysize;
		ctl.entrysize = entrysize;
		ctl.hcxt = TopMemoryContext;
		*h = hash_create(name, 32, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	return *h;
}

static PGresult *
remote_exec_prepared(Oid server, Oid fn, const char *sql, int nparams, const char *const *params)
{
	PGconn	   *conn = connection_for(server);
	PreparedKey key;
	PreparedEntry *e;
	char		name[32];
	bool		found;


	session_hash(&prepared, "tablestore forwarded statements", sizeof(PreparedKey), sizeof(PreparedEntry));
	memset(&key, 0, sizeof(key));
	key.conn = conn;
	key.pid = PQbackendPID(conn);
	key.fn = fn;
	snprintf(name, sizeof(name), "tablestore_fwd_%u", fn);
	e = hash_search(prepared, &key, HASH_FIND, &found);
	if (found && !e->certain)
	{
		/* still there? (an error here would end the node's transaction: ask, do not try) */
		const char *args[1] = {name};
		PGresult   *res;

		if (!PQsendQueryParams(conn, PREPARED_CHECK_SQL, 1, NULL, args, NULL, NULL, 0))
			ts_raise_node_error(NULL, conn, server);
		res = check_result(get_result(conn, PREPARED_CHECK_SQL), conn, server);
		found = PQntuples(res) > 0;
		PQclear(res);
		if (found)
			e->certain = true;
		else
			(void) hash_search(prepared, &key, HASH_REMOVE, NULL);
	}
	if (!found)
	{
		if (!PQsendPrepare(conn, name, sql, nparams, NULL))
			ts_raise_node_error(NULL, conn, server);
		PQclear(check_result(get_result(conn, sql), conn, server));
		e = hash_search(prepared, &key, HASH_ENTER, NULL);
		e->certain = true;
	}
	if (!PQsendQueryPrepared(conn, name, nparams, params, NULL, NULL, 0))
		ts_raise_node_error(NULL, conn, server);
	return check_result(get_result(conn, sql), conn, server);
}

char *
ts_remote_query(Oid server, const char *sql, int nparams, const char *const *params, bool writes)
{
	PGresult   *res;
	char	   *out = NULL;

	if (writes)
		check_one_writing_node(server);
	res = remote_exec(server, sql, nparams, params);
	if (writes)
		write_server = server;	/* once the node did the write */
	if (PQntuples(res) > 0 && PQnfields(res) > 0 && !PQgetisnull(res, 0, 0))
		out = pstrdup(PQgetvalue(res, 0, 0));
	PQclear(res);
	return out;
}

/* ---------- plain SQL on a distributed table: the one-writing-node rule ---------- */

/*
 * A row inserted through a coordinator's foreign partition keeps its etag only under an import of
 * this transaction (stamp_import.h: tablestore-copy --keep-timestamps), whose rule is applied
 * here, where the caller's role is known (the node sees only the user mapping's role). A row the
 * import keeps makes the node's remote transaction import into its part of the table too, once
 * per user mapping (postgres_fdw's connection) in a transaction; any other row goes on without
 * its etag, so that the node's stamp trigger stamps it by the clock, as one table's would.
 */
static HeapTuple
import_row(Relation rel, HeapTuple tuple, Oid server)
{
	TupleDesc	desc = RelationGetDescr(rel);
	bool		isnull;
	Datum		etag = heap_getattr(tuple, Anum_tablestore_etag, desc, &isnull);
	int64		ticks;
	Oid			umid;

	if (isnull)
		return tuple;
	if (!stamp_import_kept(rel, etag, false, &ticks))
	{
		int			att = Anum_tablestore_etag;
		Datum		none = (Datum) 0;
		bool		null = true;

		return heap_modify_tuple_by_cols(tuple, desc, 1, &att, &none, &null);
	}
	umid = GetUserMapping(GetUserId(), server)->umid;
	if (!list_member_oid(import_mappings, umid))
	{
		/* the node's table has the coordinator's relation name (distribute.c) */
		const char *args[1] = {get_rel_name(get_partition_parent(RelationGetRelid(rel), false))};
		MemoryContext old;

		(void) ts_remote_query(server, "SELECT tablestore.import_timestamps($1)", 1, args, false);
		old = MemoryContextSwitchTo(TopTransactionContext);
		import_mappings = lappend_oid(import_mappings, umid);
		MemoryContextSwitchTo(old);
	}
	return tuple;
}

/*
 * tablestore_internal.one_writing_node(): the trigger of a coordinator's distributed table
 * (distribute.c creates it): BEFORE INSERT OR UPDATE OR DELETE FOR EACH ROW, which PostgreSQL
 * clones onto every foreign partition, so a row written through plain SQL or COPY notes its node;
 * BEFORE TRUNCATE FOR EACH STATEMENT on the partitioned table, which notes every node. A second
 * node is refused (TSX04) as the functions' writes are. An inserted row's etag goes on to the node
 * only when an import keeps it (import_row).
 */
PG_FUNCTION_INFO_V1(tablestore_one_writing_node);
Datum
tablestore_one_writing_node(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	Relation	rel;

	if (!CALLED_AS_TRIGGER(fcinfo))
		elog(ERROR, "tablestore_internal.one_writing_node() is a trigger");
	rel = td->tg_relation;
	if (TRIGGER_FIRED_BY_TRUNCATE(td->tg_event))
	{
		PartitionDesc pd = rel->rd_rel->relkind == RELKIND_PARTITIONED_TABLE ? RelationGetPartitionDesc(rel, false) : NULL;

		for (int i = 0; pd != NULL && i < pd->nparts; i++)
			if (get_rel_relkind(pd->oids[i]) == RELKIND_FOREIGN_TABLE)
				ts_note_remote_write(GetForeignTable(pd->oids[i])->serverid);
		return PointerGetDatum(NULL);
	}
	if (rel->rd_rel->relkind == RELKIND_FOREIGN_TABLE)
		ts_note_remote_write(GetForeignTable(RelationGetRelid(rel))->serverid);
	if (!TRIGGER_FIRED_FOR_ROW(td->tg_event))
		return PointerGetDatum(NULL);
	if (TRIGGER_FIRED_BY_INSERT(td->tg_event) && rel->rd_rel->relkind == RELKIND_FOREIGN_TABLE)
		return PointerGetDatum(import_row(rel, td->tg_trigtuple, GetForeignTable(RelationGetRelid(rel))->serverid));
	return PointerGetDatum(TRIGGER_FIRED_BY_UPDATE(td->tg_event) ? td->tg_newtuple : td->tg_trigtuple);
}

/* ---------- forwarding a call ---------- */

/* The rows into the call's materialized result (raises when they do not fit it). */
static void
put_rows(FunctionCallInfo fcinfo, PGresult *res)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	AttInMetadata *meta;
	int			natts;
	char	  **values;

	InitMaterializedSRF(fcinfo, 0);
	natts = rsinfo->setDesc->natts;
	if (PQnfields(res) != natts)
		elog(ERROR, "tablestore: the node answered with another row type");
	meta = TupleDescGetAttInMetadata(rsinfo->setDesc);
	values = palloc(sizeof(char *) * natts);
	for (int r = 0; r < PQntuples(res); r++)
	{
		for (int c = 0; c < natts; c++)
			values[c] = PQgetisnull(res, r, c) ? NULL : PQgetvalue(res, r, c);
		tuplestore_puttuple(rsinfo->setResult, BuildTupleFromCStrings(meta, values));
	}
}

/* A set-returning call's rows; the result is freed whatever happens. */
static void
forward_rows(FunctionCallInfo fcinfo, PGresult *res)
{
	PG_TRY();
	{
		put_rows(fcinfo, res);
	}
	PG_CATCH();
	{
		PQclear(res);
		PG_RE_THROW();
	}
	PG_END_TRY();
	PQclear(res);
}

/*
 * What forwarding a function needs, worked out at its first forward and kept for the session: the
 * statement (whose text names the argument types, so that it is one on every node), the
 * arguments' output functions and how to read the answer.
 */
typedef struct ForwardCall
{
	Oid			fn;				/* key */
	char	   *sql;			/* SELECT * FROM schema.name($1::type, ...) */
	int			nargs;
	FmgrInfo   *out;			/* the arguments' output functions */
	bool		retset;
	TypeFuncClass kind;
	Oid			rettype;
	AttInMetadata *meta;		/* a composite result's input functions */
	FmgrInfo	in;				/* a scalar result's input function */
	Oid			ioparam;
} ForwardCall;

static HTAB *forward_calls = NULL;

/* A function's ForwardCall, what it keeps allocated in cxt (the lookups' garbage in the caller's context). */
static void
forward_call_build(FunctionCallInfo fcinfo, Oid fn, MemoryContext cxt, ForwardCall *fc)
{
	HeapTuple	proc;
	Form_pg_proc p;
	StringInfoData sql;
	MemoryContext old;
	TupleDesc	desc;

	fc->fn = fn;
	proc = SearchSysCache1(PROCOID, ObjectIdGetDatum(fn));
	if (!HeapTupleIsValid(proc))
		elog(ERROR, "tablestore: cache lookup failed for function %u", fn);
	p = (Form_pg_proc) GETSTRUCT(proc);
	old = MemoryContextSwitchTo(cxt);
	initStringInfo(&sql);		/* its buffer grows in cxt */
	fc->out = palloc0(sizeof(FmgrInfo) * Max(p->pronargs, 1));
	MemoryContextSwitchTo(old);
	appendStringInfo(&sql, "SELECT * FROM %s(",
					 quote_qualified_identifier(get_namespace_name(p->pronamespace), NameStr(p->proname)));
	fc->nargs = p->pronargs;
	for (int i = 0; i < p->pronargs; i++)
	{
		Oid			type = p->proargtypes.values[i];
		Oid			out;
		bool		varlena;

		/* the first argument says the call is the coordinator's (shard_fence.h) */
		appendStringInfo(&sql, i == 0 ? "tablestore.routed_by_coordinator($%d::%s)" : ", $%d::%s", i + 1,
						 format_type_extended(type, -1, FORMAT_TYPE_FORCE_QUALIFY));
		getTypeOutputInfo(type, &out, &varlena);
		fmgr_info_cxt(out, &fc->out[i], cxt);
	}
	appendStringInfoChar(&sql, ')');
	fc->sql = sql.data;
	fc->retset = p->proretset;
	ReleaseSysCache(proc);
	fc->kind = get_call_result_type(fcinfo, &fc->rettype, &desc);
	if (fc->kind == TYPEFUNC_COMPOSITE)
	{
		old = MemoryContextSwitchTo(cxt);
		fc->meta = TupleDescGetAttInMetadata(BlessTupleDesc(CreateTupleDescCopy(desc)));
		MemoryContextSwitchTo(old);
	}
	else if (fc->kind == TYPEFUNC_SCALAR && fc->rettype != VOIDOID)
	{
		Oid			in;

		getTypeInputInfo(fc->rettype, &in, &fc->ioparam);
		fmgr_info_cxt(in, &fc->in, cxt);
	}
	else if (fc->kind != TYPEFUNC_SCALAR)
		elog(ERROR, "tablestore: a call of this result type cannot be forwarded");
}

static ForwardCall *
forward_call_of(FunctionCallInfo fcinfo)
{
	Oid			fn = fcinfo->flinfo->fn_oid;
	ForwardCall *fc;
	ForwardCall new = {0};
	MemoryContext cxt;

	session_hash(&forward_calls, "tablestore forwarded functions", sizeof(Oid), sizeof(ForwardCall));
	fc = hash_search(forward_calls, &fn, HASH_FIND, NULL);
	if (fc != NULL)
		return fc;

	/*
	 * Worked out in full first, what is kept in a context of its own and the lookups in the
	 * caller's: an error leaves no half-made entry, and nothing of it behind in TopMemoryContext.
	 */
	cxt = AllocSetContextCreate(TopMemoryContext, "tablestore forwarded call", ALLOCSET_SMALL_SIZES);
	PG_TRY();
	{
		forward_call_build(fcinfo, fn, cxt, &new);
	}
	PG_CATCH();
	{
		MemoryContextDelete(cxt);
		PG_RE_THROW();
	}
	PG_END_TRY();
	fc = hash_search(forward_calls, &fn, HASH_ENTER, NULL);
	*fc = new;
	return fc;
}

Datum
ts_forward_call(FunctionCallInfo fcinfo, Oid server, bool writes)
{
	ForwardCall *fc = forward_call_of(fcinfo);
	const char **params = palloc0(sizeof(char *) * Max(fc->nargs, 1));
	PGresult   *res;
	Datum		result = (Datum) 0;

	for (int i = 0; i < fc->nargs; i++)
		if (!fcinfo->args[i].isnull)
			params[i] = OutputFunctionCall(&fc->out[i], fcinfo->args[i].value);
	if (writes)
		check_one_writing_node(server);
	res = remote_exec_prepared(server, fc->fn, fc->sql, fc->nargs, params);
	if (writes)
		write_server = server;	/* once the node did the write */
	if (fc->retset)
	{
		forward_rows(fcinfo, res);
		return (Datum) 0;
	}
	if (PQntuples(res) != 1 || (fc->kind == TYPEFUNC_COMPOSITE && PQnfields(res) != fc->meta->tupdesc->natts))
	{
		int			rows = PQntuples(res);

		PQclear(res);
		elog(ERROR, "tablestore: the node answered a call with %d rows of another shape", rows);
	}
	if (fc->kind == TYPEFUNC_COMPOSITE)
	{
		int			natts = fc->meta->tupdesc->natts;
		char	  **values = palloc(sizeof(char *) * natts);

		for (int c = 0; c < natts; c++)
			values[c] = PQgetisnull(res, 0, c) ? NULL : pstrdup(PQgetvalue(res, 0, c));
		PQclear(res);
		result = HeapTupleGetDatum(BuildTupleFromCStrings(fc->meta, values));
	}
	else if (fc->rettype == VOIDOID || PQgetisnull(res, 0, 0))
	{
		fcinfo->isnull = fc->rettype != VOIDOID;
		PQclear(res);
	}
	else
	{
		char	   *value = pstrdup(PQgetvalue(res, 0, 0));

		PQclear(res);
		result = InputFunctionCall(&fc->in, value, fc->ioparam, -1);
	}
	return result;
}
