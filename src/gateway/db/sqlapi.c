/*
 * sqlapi.c - the table of prepared statements and the call wrapper (see sqlapi.h): every REST
 * call is one execution of one of these, each calling one function of the extension
 * (doc/gateway.md).
 */
#include "gateway.h"
#include "pool.h"
#include "route.h"
#include "sqlapi.h"
#include "ts_error.h"

#include <stdio.h>
#include <string.h>

typedef struct SqlDef
{
	const char *name;
	const char *sql;
	int			nparams;
	bool		read_only;
} SqlDef;

/* a timestamptz as the service writes times: 2024-01-02T03:04:05.0000000Z */
#define ISO_UTC(col) "to_char(" col " AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"0Z\"')"

static const SqlDef defs[SQL__COUNT] = {
	[SQL_CREATE_TABLE] = {"gw_create_table",
		"SELECT table_name, body FROM tablestore.rest_create_table($1::text, $2::text, $3::text, $4::text, $5::text)", 5, false},
	[SQL_DROP_TABLE] = {"gw_drop_table",
		"SELECT tablestore.drop_table($1::text)", 1, false},
	[SQL_QUERY_TABLES] = {"gw_query_tables",
		"SELECT body, next_table_name FROM tablestore.rest_query_tables($1::text, $2::int, $3::text, $4::text, $5::text, $6::text)", 6, true},
	[SQL_GET_TABLE] = {"gw_get_table",
		"SELECT tablestore.rest_get_table($1::text, $2::text, $3::text, $4::text)", 4, true},
	[SQL_INSERT_ENTITY] = {"gw_insert_entity",
		"SELECT etag, partition_key, row_key, body FROM tablestore.rest_insert_entity($1::text, $2::text, $3::bool, $4::text, $5::text, $6::text, $7::text[])", 7, false},
	[SQL_WRITE_ENTITY] = {"gw_write_entity",
		"SELECT tablestore.rest_write_entity($1::text, $2::text, $3::text, $4::text, $5::bool, $6::text, $7::text[])", 7, false},
	[SQL_DELETE_ENTITY] = {"gw_delete_entity",
		"SELECT tablestore.rest_delete_entity($1::text, $2::text, $3::text, $4::text, $5::text[])", 5, false},
	[SQL_GET_ENTITY] = {"gw_get_entity",
		"SELECT etag, body FROM tablestore.rest_get_entity($1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::text, $8::text[])", 8, true},
	[SQL_QUERY_ENTITIES] = {"gw_query_entities",
		"SELECT body, next_partition_key, next_row_key FROM tablestore.rest_query_entities($1::text, $2::text, $3::text, $4::int, $5::text, $6::text, $7::text, $8::text, $9::text, $10::text[])", 10, true},
	[SQL_BATCH] = {"gw_batch",
		"SELECT etag, partition_key, row_key, body FROM tablestore.rest_batch($1::text, $2::text, $3::text, $4::text, $5::text, $6::text[])", 6, false},
	[SQL_GET_ACL] = {"gw_get_acl",
		"SELECT id, " ISO_UTC("start") ", " ISO_UTC("expiry") ", permission FROM tablestore.get_table_acl($1::text)", 1, true},
	[SQL_SET_ACL] = {"gw_set_acl",
		"SELECT tablestore.set_table_acl($1::text, $2::jsonb)", 2, false},
	[SQL_GET_POLICY] = {"gw_get_policy",
		"SELECT " ISO_UTC("start") ", " ISO_UTC("expiry") ", permission FROM tablestore.get_table_acl($1::text) WHERE id = $2::text", 2, true},
	[SQL_GET_PROPS] = {"gw_get_props",
		"SELECT tablestore.get_service_properties()", 0, true},
	[SQL_SET_PROPS] = {"gw_set_props",
		"SELECT tablestore.set_service_properties($1::text)", 1, false},
	[SQL_GET_INDEXING] = {"gw_get_indexing",
		"SELECT tablestore.get_indexing_policy($1::text)::text, tablestore.indexing_progress($1::text)", 1, true},
	[SQL_SET_INDEXING] = {"gw_set_indexing",
		"SELECT tablestore.rest_set_indexing_policy($1::text, $2::text)::text", 2, false},
};

const char *
sql_text(SqlStmt st)
{
	return defs[st].sql;
}

static void
copy_bounded(char *dst, size_t cap, const char *src)
{
	size_t		n = 0;

	/* one line, bounded; the extension already bounds what it quotes */
	while (src[n] && n + 1 < cap)
	{
		dst[n] = src[n];
		n++;
	}
	dst[n] = '\0';
	while (n > 0 && (dst[n - 1] == '\n' || dst[n - 1] == ' '))
		dst[--n] = '\0';
}

/*
 * Fill err from a failed result. The code is the SQLSTATE's (errors.c, through the extension's
 * error table); the message is "[operation N: ]<Code>: <text>" for tablestore's errors, of which
 * N and the text are kept; a message of PostgreSQL's own is kept whole.
 */
static void
error_from_result(const PGresult *res, const PGconn *conn, SqlError *err)
{
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	const char *msg = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
	size_t		prefix = strlen(TS_OPERATION_PREFIX);
	size_t		n;

	err->op_index = -1;
	err->code = sqlstate_code(state);
	err->status = error_status(err->code);
	if (msg == NULL)
		msg = conn ? PQerrorMessage(conn) : "unknown error";
	if (strncmp(msg, TS_OPERATION_PREFIX, prefix) == 0 && msg[prefix] >= '0' && msg[prefix] <= '9')
	{
		int			idx = 0;
		const char *q = msg + prefix;

		while (*q >= '0' && *q <= '9' && idx < 100000)
			idx = idx * 10 + (*q++ - '0');
		if (q[0] == ':' && q[1] == ' ')
		{
			err->op_index = idx;
			msg = q + 2;
		}
	}
	n = strlen(err->code);
	if (strncmp(msg, err->code, n) == 0 && msg[n] == ':')
		for (msg += n + 1; *msg == ' '; msg++)
			;
	copy_bounded(err->message, sizeof(err->message), msg);
}

/* TSE_SHARD_NOT_HERE: a node does not hold the shard (it moved since the gateway read the shard map) */
static bool
shard_not_here(const PGresult *res)
{
	return ts_error_of_sqlstate(PQresultErrorField(res, PG_DIAG_SQLSTATE)) == TSE_SHARD_NOT_HERE;
}

/*
 * Is the connection gone? libpq does not always say so at once: a server that was killed between
 * two calls leaves the connection "OK" with a failed result that no server wrote (no SQLSTATE:
 * "server closed the connection unexpectedly"). Either way the connection is dropped, and the
 * call is answered 503 (a read is tried once more on a new connection first).
 */
static bool
connection_lost(const PGconn *conn, const PGresult *res)
{
	return PQstatus(conn) != CONNECTION_OK || PQresultErrorField(res, PG_DIAG_SQLSTATE) == NULL;
}

static bool
retryable_state(const PGresult *res)
{
	const char *state = PQresultErrorField(res, PG_DIAG_SQLSTATE);

	return state && (strcmp(state, "40001") == 0 || strcmp(state, "40P01") == 0);
}

/*
 * A connection that received a result over this many bytes is closed after it (and made again on
 * the next borrow): libpq grows a connection's input buffer to hold the largest message it read
 * and never shrinks it, so a 16.8 MB page would keep up to 32 MB per connection for good.
 */
#define SQL_RENEW_AFTER_BYTES (4u * 1024 * 1024)

static size_t
result_bytes(const PGresult *res)
{
	size_t		n = 0;
	int			rows = PQntuples(res),
				cols = PQnfields(res);

	for (int i = 0; i < rows; i++)
		for (int j = 0; j < cols; j++)
			n += (size_t) PQgetlength(res, i, j);
	return n;
}

PGresult *
sql_call(Req *r, SqlStmt st, const char *const *params, SqlError *err)
{
	const SqlDef *d = &defs[st];
	Pool	   *routed = st == r->op->statement ? route_pool(r) : NULL;	/* a distributed table's node */
	Pool	   *pool = routed ? routed : r->account->pool;

	for (int attempt = 0; attempt < 2; attempt++)
	{
		PoolConn   *c;
		PGresult   *res;
		PoolStatus	ps;
		bool		lost;

		ps = pool_acquire(pool, &c, err->message, sizeof(err->message));
		if (ps != POOL_OK)
		{
			err->op_index = -1;
			err->code = "ServerBusy";
			err->status = 503;
			return NULL;
		}
		if (!c->prepared[st])
		{
			res = PQprepare(c->conn, d->name, d->sql, d->nparams, NULL);
			if (PQresultStatus(res) != PGRES_COMMAND_OK)
			{
				lost = connection_lost(c->conn, res);
				error_from_result(res, c->conn, err);
				PQclear(res);
				pool_release(pool, c, lost);
				if (lost)
				{
					err->code = "ServerBusy";
					err->status = 503;
					snprintf(err->message, sizeof(err->message), "the database connection was lost");
					if (attempt == 0)
						continue;	/* nothing ran yet: try once on a new connection */
				}
				else
					log_msg("cannot prepare %s: %s (is the extension installed, at " TS_VERSION "?)", d->name, err->message);
				return NULL;
			}
			PQclear(res);
			c->prepared[st] = true;
		}
		res = PQexecPrepared(c->conn, d->name, d->nparams, params, NULL, NULL, 0);
		if (PQresultStatus(res) == PGRES_TUPLES_OK)
		{
			/* libpq keeps its input buffer as large as the largest result: renew after a large one */
			pool_release(pool, c, result_bytes(res) > SQL_RENEW_AFTER_BYTES);
			return res;
		}
		lost = connection_lost(c->conn, res);
		if (routed && pool == routed && !lost && shard_not_here(res))
		{
			/* the shard is fenced on the node (a move): the coordinator answers (and serves the shard until the map is read again) */
			pool_release(pool, c, false);
			route_detour(r, PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY));
			PQclear(res);
			pool = r->account->pool;
			attempt--;
			routed = NULL;
			continue;
		}
		error_from_result(res, c->conn, err);
		if (lost)
		{
			err->op_index = -1;
			err->code = "ServerBusy";
			err->status = 503;
			snprintf(err->message, sizeof(err->message), "the database connection was lost");
		}
		pool_release(pool, c, lost);
		if (attempt == 0 && ((lost && d->read_only) || (!lost && retryable_state(res))))
		{
			PQclear(res);
			continue;
		}
		PQclear(res);
		return NULL;
	}
	return NULL;
}

void
sql_error_respond(Req *r, const SqlError *err)
{
	resp_error_status(r, err->status, err->code, err->message);
}

bool
sql_run(Req *r, SqlStmt st, const char *const *params)
{
	SqlError	err;
	PGresult   *res = sql_call(r, st, params, &err);

	if (res == NULL)
	{
		sql_error_respond(r, &err);
		return false;
	}
	PQclear(res);
	return true;
}

char *
sql_field(Req *r, const PGresult *res, int row, int col)
{
	return PQgetisnull(res, row, col) ? NULL : arena_strdup(&r->arena, PQgetvalue(res, row, col));
}

PGresult *
sql_call_row(Req *r, SqlStmt st, const char *const *params)
{
	SqlError	err;
	PGresult   *res = sql_call(r, st, params, &err);

	if (res == NULL)
	{
		sql_error_respond(r, &err);
		return NULL;
	}
	if (PQntuples(res) < 1)
	{
		PQclear(res);
		resp_error(r, "InternalError", "The database function returned no row.");
		return NULL;
	}
	return res;
}
