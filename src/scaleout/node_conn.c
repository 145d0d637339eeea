/*
 * node_conn.c - connections of tablestore's own to the nodes (node_conn.h): libpq's asynchronous
 * connections, never postgres_fdw's, for what a move or distribute_table runs outside the local
 * transaction, and for a move's leases and its switch.
 *
 * Every wait here is bounded on this side and interruptible: connecting takes at most the server's
 * connect_timeout option (at least libpq's 2 s) or TS_NODE_CONNECT_TIMEOUT seconds (libpq's own
 * connect_timeout does not apply to PQconnectPoll); a statement at most its deadline; and all of
 * them at most the session's node deadline (tablestore_internal.node_deadline: a move's time limit
 * plus a little), so that a node that accepts TCP and never answers, or a backend that stops
 * (SIGSTOP), ends a move within its time limit and a cancel or a terminate ends it at once. A
 * connection that did not answer in time is closed, not cancelled: PQcancel connects and waits for
 * the postmaster with no timeout of its own, so a hung postmaster would hold it for ever. Every
 * connection asks its backend to check for a closed client each second
 * (client_connection_check_interval), so the node ends the statement, and releases its locks, as
 * soon as it runs again.
 *
 * A move's connections (ts_move_exec) are kept for the session until the move releases them: its
 * leases are session advisory locks on them (they end when the connection ends, not when
 * postgres_fdw drops its cached connection after an ALTER SERVER, with keep_connections off or at
 * idle_session_timeout, which is off on them), and its switch runs the source's part there in a
 * transaction of its own, which the switch commits itself (before the coordinator commits its
 * map) and which any abort here rolls back, in 2 s at most (else the connection is closed).
 */
#include "node_conn.h"

#include "access/xact.h"
#include "commands/defrem.h"
#include "foreign/foreign.h"
#include "libpq-fe.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "remote_call.h"
#include "storage/latch.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

/* Seconds a connection of its own, or a move's subscription, waits for a node to answer at most. */
#define TS_NODE_CONNECT_TIMEOUT 10

/* Milliseconds a statement may take past the node's own statement_timeout before it is given up here. */
#define TS_NODE_GRACE_MS 1000

/* Milliseconds an abort waits for a move's connection to roll its transaction back. */
#define TS_NODE_ROLLBACK_MS 2000

/* What every connection of its own sets first: the node ends its statement soon after we close. */
#define TS_NODE_SESSION_SQL "SET client_connection_check_interval = 1000"

/* the session's node deadline (0: none) */
static TimestampTz node_deadline = 0;

/* postgres_fdw's options, which are not libpq's */
static bool
fdw_only_option(const char *name)
{
	static const char *const names[] = {
		"extensions", "fetch_size", "batch_size", "use_remote_estimate", "fdw_startup_cost",
		"fdw_tuple_cost", "updatable", "truncatable", "keep_connections", "async_capable",
		"parallel_commit", "password_required", "analyze_sampling", "application_name"
	};

	for (int i = 0; i < lengthof(names); i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

static void
append_options(StringInfo out, List *options)
{
	ListCell   *lc;

	foreach(lc, options)
	{
		DefElem    *opt = lfirst(lc);
		const char *v = defGetString(opt);

		if (fdw_only_option(opt->defname))
			continue;
		appendStringInfo(out, "%s%s='", out->len ? " " : "", opt->defname);
		for (const char *c = v; *c; c++)
		{
			if (*c == '\\' || *c == '\'')
				appendStringInfoChar(out, '\\');
			appendStringInfoChar(out, *c);
		}
		appendStringInfoChar(out, '\'');
	}
}

/* The server's connect_timeout option in seconds, or 0. */
static int
server_connect_timeout(Oid server)
{
	ListCell   *lc;

	foreach(lc, GetForeignServer(server)->options)
	{
		DefElem    *opt = lfirst(lc);

		if (strcmp(opt->defname, "connect_timeout") == 0)
			return Max(atoi(defGetString(opt)), 0);
	}
	return 0;
}

char *
ts_server_conninfo(Oid server)
{
	StringInfoData s;

	initStringInfo(&s);
	append_options(&s, GetForeignServer(server)->options);
	append_options(&s, GetUserMapping(GetUserId(), server)->options);
	/* a subscription made with it gives up on a node that does not answer (node_conn.h) */
	if (server_connect_timeout(server) == 0)
		appendStringInfo(&s, " connect_timeout=%d", TS_NODE_CONNECT_TIMEOUT);
	return s.data;
}

void
ts_node_set_deadline(TimestampTz deadline)
{
	node_deadline = deadline;
}

/* The earlier of a deadline (0: none) and the session's node deadline. */
static TimestampTz
capped(TimestampTz deadline)
{
	if (node_deadline != 0 && (deadline == 0 || node_deadline < deadline))
		return node_deadline;
	return deadline;
}

/* A deadline timeout_ms from now (0: none), and TS_NODE_GRACE_MS more, capped. */
static TimestampTz
statement_deadline(int timeout_ms)
{
	return capped(timeout_ms > 0 ? TimestampTzPlusMilliseconds(GetCurrentTimestamp(), timeout_ms + TS_NODE_GRACE_MS) : 0);
}

/*
 * Wait for the socket, or until the deadline (0: none); false when the deadline passed. Through
 * the latch, so a cancel or a terminate interrupts it (unless !interruptible: in an abort).
 */
static bool
wait_socket(PGconn *conn, int events, TimestampTz deadline, bool interruptible)
{
	pgsocket	sock = PQsocket(conn);
	long		timeout = -1L;
	int			rc;

	if (sock == PGINVALID_SOCKET)
		return true;			/* libpq reports the failure */
	if (deadline != 0)
	{
		timeout = TimestampDifferenceMilliseconds(GetCurrentTimestamp(), deadline);
		if (timeout <= 0)
			return false;
		events |= WL_TIMEOUT;
	}
	rc = WaitLatchOrSocket(MyLatch, WL_LATCH_SET | WL_EXIT_ON_PM_DEATH | events, sock, timeout, PG_WAIT_EXTENSION);
	ResetLatch(MyLatch);
	if (interruptible)
		CHECK_FOR_INTERRUPTS();
	return !(rc & WL_TIMEOUT) || (rc & (WL_SOCKET_READABLE | WL_SOCKET_WRITEABLE));
}

static void
raise_no_answer(Oid server, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_CONNECTION_FAILURE),
			 errmsg("the node \"%s\" did not answer in time", GetForeignServer(server)->servername),
			 errdetail_internal("%s", what)));
}

/* Poll a connection being made until it is made, fails or the deadline passes (false). */
static bool
connect_poll(PGconn *conn, TimestampTz deadline)
{
	PostgresPollingStatusType st = PGRES_POLLING_WRITING;

	while (PQstatus(conn) != CONNECTION_BAD && st != PGRES_POLLING_OK && st != PGRES_POLLING_FAILED)
	{
		if (!wait_socket(conn, st == PGRES_POLLING_READING ? WL_SOCKET_READABLE : WL_SOCKET_WRITEABLE, deadline, true))
			return false;
		st = PQconnectPoll(conn);
	}
	return true;
}

/* connect_poll, the connection finished on an error (a cancel) */
static bool
connect_in_time(PGconn *conn, TimestampTz deadline)
{
	bool		in_time = false;

	PG_TRY();
	{
		in_time = connect_poll(conn, deadline);
	}
	PG_CATCH();
	{
		PQfinish(conn);
		PG_RE_THROW();
	}
	PG_END_TRY();
	return in_time;
}

/* A connection of its own to the server, made by the statement's deadline (0: none) at the latest. */
static PGconn *
own_connect(Oid server, TimestampTz stmt_deadline)
{
	int			seconds = server_connect_timeout(server) > 0 ? Max(server_connect_timeout(server), 2) : TS_NODE_CONNECT_TIMEOUT;
	TimestampTz deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), seconds * 1000);
	PGconn	   *conn;
	bool		in_time;

	if (stmt_deadline != 0 && stmt_deadline < deadline)
		deadline = stmt_deadline;
	deadline = capped(deadline);
	if (deadline <= GetCurrentTimestamp())
		ereport(ERROR,
				(errcode(ERRCODE_QUERY_CANCELED),
				 errmsg("the node \"%s\" was not asked: its time (a move's time limit, or its switch's) passed", GetForeignServer(server)->servername)));
	conn = PQconnectStart(ts_server_conninfo(server));
	if (conn == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	in_time = connect_in_time(conn, deadline);
	if (!in_time || PQstatus(conn) != CONNECTION_OK)
	{
		char	   *msg = in_time ? pstrdup(PQerrorMessage(conn)) :
			psprintf("no answer in %d s (connect_timeout, or the move's time limit)", seconds);

		PQfinish(conn);
		ereport(ERROR,
				(errcode(ERRCODE_SQLCLIENT_UNABLE_TO_ESTABLISH_SQLCONNECTION),
				 errmsg("could not connect to the node \"%s\"", GetForeignServer(server)->servername),
				 errdetail_internal("%s", msg)));
	}
	/* sending never waits for the node (a full socket buffer included): the waits are ours */
	(void) PQsetnonblocking(conn, 1);
	return conn;
}

/* Send what libpq holds, waiting for the socket until the deadline; false when the deadline passed. */
static bool
flush_in_time(PGconn *conn, Oid server, TimestampTz deadline, bool interruptible)
{
	int			rc;

	while ((rc = PQflush(conn)) > 0)
	{
		if (!wait_socket(conn, WL_SOCKET_READABLE | WL_SOCKET_WRITEABLE, deadline, interruptible))
			return false;
		if (!PQconsumeInput(conn))
			break;
	}
	return true;
}

/*
 * Run a query string; its last result, or its first error (raised), by the deadline (0: none, but
 * capped), else a connection failure (raised). The caller closes conn on error.
 */
static PGresult *
own_exec(PGconn *conn, const char *sql, Oid server, TimestampTz deadline)
{
	PGresult   *last = NULL;
	PGresult   *res;

	deadline = capped(deadline);
	if (!PQsendQuery(conn, sql))
		ts_raise_node_error(NULL, conn, server);
	if (!flush_in_time(conn, server, deadline, true))
		raise_no_answer(server, "the statement could not be sent");
	for (;;)
	{
		while (PQisBusy(conn))
		{
			if (!wait_socket(conn, WL_SOCKET_READABLE, deadline, true))
			{
				PQclear(last);
				raise_no_answer(server, "no answer to a statement within its deadline");
			}
			if (!PQconsumeInput(conn))
			{
				PQclear(last);
				ts_raise_node_error(NULL, conn, server);
			}
		}
		if ((res = PQgetResult(conn)) == NULL)
			break;
		if (last != NULL && PQresultStatus(last) == PGRES_FATAL_ERROR)
			PQclear(res);		/* the first error is the one */
		else
		{
			PQclear(last);
			last = res;
		}
	}
	if (last == NULL || (PQresultStatus(last) != PGRES_TUPLES_OK && PQresultStatus(last) != PGRES_COMMAND_OK))
		ts_raise_node_error(last, conn, server);
	return last;
}

/* The first column of the first row (palloc'd), or NULL; the result is freed. */
static char *
first_value(PGresult *res)
{
	char	   *out = NULL;

	if (PQntuples(res) > 0 && PQnfields(res) > 0 && !PQgetisnull(res, 0, 0))
		out = pstrdup(PQgetvalue(res, 0, 0));
	PQclear(res);
	return out;
}

char *
ts_node_command(Oid server, const char *sql, int timeout_ms)
{
	TimestampTz deadline = statement_deadline(timeout_ms);
	PGconn	   *conn = own_connect(server, deadline);
	char	   *out = NULL;

	PG_TRY();
	{
		PQclear(own_exec(conn, timeout_ms > 0 ? psprintf(TS_NODE_SESSION_SQL "; SET statement_timeout = %d", timeout_ms) :
						 TS_NODE_SESSION_SQL, server, deadline));
		out = first_value(own_exec(conn, sql, server, deadline));
	}
	PG_CATCH();
	{
		PQfinish(conn);
		PG_RE_THROW();
	}
	PG_END_TRY();
	PQfinish(conn);
	return out;
}

bool
ts_node_wait(Oid server, const char *sql, int timeout_ms)
{
	TimestampTz end = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), timeout_ms);
	TimestampTz deadline = statement_deadline(Max(timeout_ms, 1));
	PGconn	   *conn = own_connect(server, deadline);
	bool		done = false;

	PG_TRY();
	{
		PQclear(own_exec(conn, TS_NODE_SESSION_SQL, server, deadline));
		for (;;)
		{
			char	   *v = first_value(own_exec(conn, sql, server, deadline));

			done = v != NULL && strcmp(v, "t") == 0;
			if (done || GetCurrentTimestamp() >= end)
				break;
			(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 10L, PG_WAIT_EXTENSION);
			ResetLatch(MyLatch);
			CHECK_FOR_INTERRUPTS();
		}
	}
	PG_CATCH();
	{
		PQfinish(conn);
		PG_RE_THROW();
	}
	PG_END_TRY();
	PQfinish(conn);
	return done;
}

/* ---------- a move's connections ---------- */

typedef struct MoveConn
{
	Oid			server;			/* key */
	PGconn	   *conn;
} MoveConn;

static HTAB *move_conns = NULL;

static void
move_conn_drop(MoveConn *mc)
{
	PGconn	   *conn = mc->conn;

	(void) hash_search(move_conns, &mc->server, HASH_REMOVE, NULL);
	PQfinish(conn);				/* its leases end with its session on the node */
}

/* Roll back a move's transaction on its node, in TS_NODE_ROLLBACK_MS at most, else close the connection. */
static void
move_conn_rollback(MoveConn *mc)
{
	PGconn	   *conn = mc->conn;
	TimestampTz deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), TS_NODE_ROLLBACK_MS);
	PGTransactionStatusType st = PQtransactionStatus(conn);
	PGresult   *res;
	bool		ok = true;

	if (st == PQTRANS_IDLE)
		return;
	if (st != PQTRANS_INTRANS && st != PQTRANS_INERROR)
	{
		move_conn_drop(mc);		/* a statement still runs (or the connection is gone) */
		return;
	}
	if (!PQsendQuery(conn, "ROLLBACK") || !flush_in_time(conn, mc->server, deadline, false))
		ok = false;
	while (ok && PQisBusy(conn))
		ok = wait_socket(conn, WL_SOCKET_READABLE, deadline, false) && PQconsumeInput(conn);
	while (ok && (res = PQgetResult(conn)) != NULL)
		PQclear(res);
	if (!ok || PQtransactionStatus(conn) != PQTRANS_IDLE)
		move_conn_drop(mc);
}

/* At an abort (of the transaction or a subtransaction), no move's transaction stays open on a node. */
static void
move_conns_abort(void)
{
	HASH_SEQ_STATUS seq;
	MoveConn   *mc;

	if (move_conns == NULL)
		return;
	hash_seq_init(&seq, move_conns);
	while ((mc = hash_seq_search(&seq)) != NULL)
		move_conn_rollback(mc);
}

static void
move_conns_xact(XactEvent event, void *arg)
{
	HASH_SEQ_STATUS seq;
	MoveConn   *mc;

	if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT)
		move_conns_abort();
	else if ((event == XACT_EVENT_PRE_COMMIT || event == XACT_EVENT_PARALLEL_PRE_COMMIT) && move_conns != NULL)
	{
		/* the switch commits the source's part itself, before the coordinator's map: nothing may be left open */
		hash_seq_init(&seq, move_conns);
		while ((mc = hash_seq_search(&seq)) != NULL)
			if (PQtransactionStatus(mc->conn) != PQTRANS_IDLE)
			{
				hash_seq_term(&seq);
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_TRANSACTION_STATE),
						 errmsg("a move's transaction on the node \"%s\" is still open", GetForeignServer(mc->server)->servername)));
			}
	}
}

static void
move_conns_subxact(SubXactEvent event, SubTransactionId mySubid, SubTransactionId parentSubid, void *arg)
{
	if (event == SUBXACT_EVENT_ABORT_SUB)
		move_conns_abort();
}

void
ts_node_conn_init(void)
{
	RegisterXactCallback(move_conns_xact, NULL);
	RegisterSubXactCallback(move_conns_subxact, NULL);
}

char *
ts_move_exec(Oid server, const char *sql, int timeout_ms)
{
	TimestampTz deadline = capped(TimestampTzPlusMilliseconds(GetCurrentTimestamp(), Max(timeout_ms, 1)));
	MoveConn   *mc;
	bool		found;
	char	   *out = NULL;

	if (move_conns == NULL)
	{
		HASHCTL		ctl = {0};

		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(MoveConn);
		ctl.hcxt = TopMemoryContext;
		move_conns = hash_create("tablestore move connections", 8, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	mc = hash_search(move_conns, &server, HASH_FIND, &found);
	if (!found)
	{
		PGconn	   *conn = own_connect(server, deadline);

		PG_TRY();
		{
			/* the leases live as long as this session: no idle timeout ends it */
			PQclear(own_exec(conn, TS_NODE_SESSION_SQL "; SET idle_session_timeout = 0; SET statement_timeout = 0", server, deadline));
		}
		PG_CATCH();
		{
			PQfinish(conn);
			PG_RE_THROW();
		}
		PG_END_TRY();
		mc = hash_search(move_conns, &server, HASH_ENTER, NULL);
		mc->conn = conn;
	}
	PG_TRY();
	{
		out = first_value(own_exec(mc->conn, sql, server, deadline));
	}
	PG_CATCH();
	{
		/* an error of the node's leaves the connection as it was; no answer (or a cancel here) closes it */
		mc = hash_search(move_conns, &server, HASH_FIND, NULL);
		if (mc != NULL && (PQstatus(mc->conn) != CONNECTION_OK || PQtransactionStatus(mc->conn) == PQTRANS_ACTIVE))
			move_conn_drop(mc);
		PG_RE_THROW();
	}
	PG_END_TRY();
	return out;
}

void
ts_move_close(Oid server)
{
	MoveConn   *mc;

	if (move_conns != NULL && (mc = hash_search(move_conns, &server, HASH_FIND, NULL)) != NULL)
		move_conn_drop(mc);
}
