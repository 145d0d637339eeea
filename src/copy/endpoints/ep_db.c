/*
 * ep_db.c - a tablestore database as an endpoint, over libpq (endpoint.h).
 *
 * Reading: one COPY (SELECT ... ORDER BY partition_key, row_key) TO STDOUT (FORMAT binary) per
 * table or key range, streamed row by row: the properties arrive in the entity's binary form
 * (entity_send), the Timestamp as tablestore.timestamp_ticks (the ticks the row shows).
 * Writing: a batch of one partition is one transaction, through the extension's own rules (the
 * stamp trigger stamps, checks keys and sizes): [tablestore.import_timestamps(tbl) with
 * --keep-timestamps] [DELETE of the batch's keys when they may exist] COPY ... FROM STDIN (FORMAT
 * binary), properties in the binary form (entity_recv checks them as strictly as JSON input).
 * The session commits asynchronously except for the batch a checkpoint follows, whose commit
 * flushes the WAL for every earlier one too: a checkpoint never records a batch a crash of the
 * server could lose.
 */
#include "copy.h"
#include "etag_text.h"
#include "mem.h"
#include "retry.h"

#include <arpa/inet.h>
#include <libpq-fe.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct DbEndpoint
{
	Endpoint	base;
	PGconn	   *conn;
	char	   *rel_table;		/* the table whose relation rel names */
	char	   *rel;			/* its qualified relation name, quoted */
} DbEndpoint;

struct Reader
{
	DbEndpoint *ep;
	bool		keys_only;
	bool		header_done;
	bool		finished;
	char	   *buf;
	size_t		len;			/* bytes in buf */
	size_t		pos;			/* parsed up to here */
	size_t		cap;
};

static const EndpointOps db_ops;

static bool
pg_fail(CopyError *e, PGconn *conn, const PGresult *res, const char *what)
{
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	const char *msg = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;

	if (msg == NULL)
		msg = PQerrorMessage(conn);
	copy_fail(e, "%s: %s", what, msg);
	snprintf(e->code, sizeof(e->code), "%s", state ? state : "");
	/* messages of libpq end with a newline */
	for (size_t n = strlen(e->msg); n > 0 && (e->msg[n - 1] == '\n' || e->msg[n - 1] == ' '); n--)
		e->msg[n - 1] = '\0';
	return false;
}

static bool
db_connect(DbEndpoint *ep, CopyError *e)
{
	PGresult   *res;

	if (ep->conn)
		PQfinish(ep->conn);
	ep->conn = PQconnectdb(ep->base.spec->conninfo);
	if (PQstatus(ep->conn) != CONNECTION_OK)
		return pg_fail(e, ep->conn, NULL, "cannot connect to the database");
	res = PQexec(ep->conn, "SET application_name = 'tablestore-copy'; SET synchronous_commit = off; "
				 "SET statement_timeout = 0; SET idle_in_transaction_session_timeout = 0; "
				 "SET client_min_messages = warning");
	if (PQresultStatus(res) != PGRES_COMMAND_OK)
	{
		pg_fail(e, ep->conn, res, "cannot set up the session");
		PQclear(res);
		return false;
	}
	PQclear(res);
	res = PQexec(ep->conn, "SELECT extversion FROM pg_extension WHERE extname = 'tablestore'");
	if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1)
	{
		if (PQresultStatus(res) == PGRES_TUPLES_OK)
			copy_fail(e, "the database has no tablestore extension (CREATE EXTENSION tablestore)");
		else
			pg_fail(e, ep->conn, res, "cannot read the extension's version");
		PQclear(res);
		return false;
	}
	PQclear(res);
	return true;
}

Endpoint *
ep_db_open(const EndpointSpec *spec, CopyError *e)
{
	DbEndpoint *ep = mem_alloc(sizeof(DbEndpoint));

	memset(ep, 0, sizeof(*ep));
	ep->base.ops = &db_ops;
	ep->base.spec = spec;
	if (!db_connect(ep, e))
	{
		PQfinish(ep->conn);
		free(ep);
		return NULL;
	}
	return &ep->base;
}

static void
db_close(Endpoint *base)
{
	DbEndpoint *ep = (DbEndpoint *) base;

	PQfinish(ep->conn);
	free(ep->rel);
	free(ep->rel_table);
	free(ep);
}

/* A statement with text parameters; the result (the caller clears it) or NULL with e set. */
static PGresult *
run(DbEndpoint *ep, const char *sql, int n, const char *const *params, ExecStatusType want, CopyError *e,
	const char *what)
{
	PGresult   *res = PQexecParams(ep->conn, sql, n, NULL, params, NULL, NULL, 0);

	if (PQresultStatus(res) != want)
	{
		pg_fail(e, ep->conn, res, what);
		PQclear(res);
		return NULL;
	}
	return res;
}

/* Is this failure worth trying again (the connection, the server busy, a conflict)? */
static bool
retryable(DbEndpoint *ep, const CopyError *e)
{
	if (PQstatus(ep->conn) != CONNECTION_OK)
		return true;
	return strncmp(e->code, "08", 2) == 0 || strncmp(e->code, "53", 2) == 0 ||
		strcmp(e->code, "40001") == 0 || strcmp(e->code, "40P01") == 0 || strcmp(e->code, "55P03") == 0 ||
		strcmp(e->code, "57P01") == 0 || strcmp(e->code, "57P03") == 0 || strcmp(e->code, "TSI02") == 0 ||
		strcmp(e->code, "TSI03") == 0 || strcmp(e->code, "57014") == 0;
}

/* Wait and reconnect when needed; false when the retries are spent (e keeps the last error). */
static bool
recover(DbEndpoint *ep, Retry *r, CopyError *e)
{
	for (;;)
	{
		CopyError	ce = {{0}};

		if (!retry_wait(r, -1))
			return false;
		if (PQstatus(ep->conn) == CONNECTION_OK)
		{
			PQclear(PQexec(ep->conn, "ROLLBACK"));
			return true;
		}
		if (db_connect(ep, &ce))
			return true;
		*e = ce;
	}
}

static bool
db_list_tables(Endpoint *base, void (*add) (void *, const char *), void *arg, CopyError *e)
{
	DbEndpoint *ep = (DbEndpoint *) base;
	PGresult   *res = run(ep, "SELECT t FROM tablestore.list_tables() t ORDER BY lower(t)", 0, NULL,
						  PGRES_TUPLES_OK, e, "cannot list the tables");

	if (res == NULL)
		return false;
	for (int i = 0; i < PQntuples(res); i++)
		add(arg, PQgetvalue(res, i, 0));
	PQclear(res);
	return true;
}

/* The relation of a table (cached for the last table asked); false with e set. */
static bool
relation(DbEndpoint *ep, const char *table, CopyError *e)
{
	const char *params[1] = {table};
	PGresult   *res;

	if (ep->rel_table && strcmp(ep->rel_table, table) == 0)
		return true;
	res = run(ep, "SELECT tablestore.table_relation($1)::text", 1, params, PGRES_TUPLES_OK, e,
			  "cannot find the table");
	if (res == NULL)
		return false;
	free(ep->rel);
	free(ep->rel_table);
	ep->rel = mem_strdup(PQgetvalue(res, 0, 0));
	ep->rel_table = mem_strdup(table);
	PQclear(res);
	return true;
}

static int
db_table_exists(Endpoint *base, const char *table, CopyError *e)
{
	DbEndpoint *ep = (DbEndpoint *) base;

	if (relation(ep, table, e))
		return 1;
	return strcmp(e->code, "TSN02") == 0 ? 0 : -1;
}

static bool
db_create_table(Endpoint *base, const char *table, CopyError *e)
{
	DbEndpoint *ep = (DbEndpoint *) base;
	const char *params[1] = {table};
	PGresult   *res = run(ep, "SELECT tablestore.create_table($1)", 1, params, PGRES_TUPLES_OK, e,
						  "cannot create the table");

	if (res == NULL)
		return strcmp(e->code, "TSC02") == 0;	/* TableAlreadyExists: someone made it meanwhile */
	PQclear(res);
	return true;
}

static void
append_literal(DbEndpoint *ep, StringInfo sql, const char *s)
{
	char	   *lit = PQescapeLiteral(ep->conn, s, strlen(s));

	appendStringInfoString(sql, lit);
	PQfreemem(lit);
}

static Reader *
db_open_reader(Endpoint *base, const ReadSpec *spec, CopyError *e)
{
	DbEndpoint *ep = (DbEndpoint *) base;
	StringInfoData sql;
	const char *and = " WHERE ";
	PGresult   *res;
	Reader	   *r;

	if (!relation(ep, spec->table, e))
		return NULL;
	initStringInfo(&sql);
	appendStringInfo(&sql, "COPY (SELECT partition_key, row_key%s FROM %s",
					 spec->keys_only ? "" : ", tablestore.timestamp_ticks(\"timestamp\", etag), properties", ep->rel);
	if (spec->has_after)
	{
		appendStringInfo(&sql, "%s(partition_key, row_key) > (", and);
		append_literal(ep, &sql, spec->after_pk);
		appendStringInfoString(&sql, ", ");
		append_literal(ep, &sql, spec->after_rk);
		appendStringInfoChar(&sql, ')');
		and = " AND ";
	}
	if (spec->lo_pk)
	{
		appendStringInfo(&sql, "%spartition_key >= ", and);
		append_literal(ep, &sql, spec->lo_pk);
		and = " AND ";
	}
	if (spec->hi_pk)
	{
		appendStringInfo(&sql, "%spartition_key < ", and);
		append_literal(ep, &sql, spec->hi_pk);
		and = " AND ";
	}
	if (spec->since_ticks > 0)
	{
		/* the microsecond column first (it may use an index), then the exact ticks */
		appendStringInfo(&sql, "%s\"timestamp\" >= timestamptz '2000-01-01 00:00:00+00' + "
						 "interval '1 microsecond' * " INT64_FORMAT " AND tablestore.timestamp_ticks(\"timestamp\", etag) >= " INT64_FORMAT,
						 and, (spec->since_ticks - EDM_TICKS_PG_EPOCH) / 10 - 1, spec->since_ticks);
		and = " AND ";
	}
	if (spec->filter)
	{
		const char *params[1] = {spec->filter};

		res = run(ep, "SELECT tablestore.odata_to_sql($1)", 1, params, PGRES_TUPLES_OK, e, "the --filter");
		if (res == NULL)
		{
			pfree(sql.data);
			return NULL;
		}
		appendStringInfo(&sql, "%s(%s)", and, PQgetvalue(res, 0, 0));
		PQclear(res);
	}
	appendStringInfoString(&sql, " ORDER BY partition_key, row_key) TO STDOUT (FORMAT binary)");
	res = PQexec(ep->conn, sql.data);
	pfree(sql.data);
	if (PQresultStatus(res) != PGRES_COPY_OUT)
	{
		pg_fail(e, ep->conn, res, "cannot read the table");
		PQclear(res);
		return NULL;
	}
	PQclear(res);
	r = mem_alloc(sizeof(Reader));
	memset(r, 0, sizeof(*r));
	r->ep = ep;
	r->keys_only = spec->keys_only;
	r->cap = 1 << 16;
	r->buf = mem_alloc(r->cap);
	return r;
}

/* at least need unparsed bytes in buf; 0 at the end of the COPY data, -1 on error */
static int
want(Reader *r, size_t need, CopyError *e)
{
	while (r->len - r->pos < need)
	{
		char	   *chunk = NULL;
		int			n;

		if (r->pos > 0)
		{
			memmove(r->buf, r->buf + r->pos, r->len - r->pos);
			r->len -= r->pos;
			r->pos = 0;
		}
		n = PQgetCopyData(r->ep->conn, &chunk, 0);
		if (n == -1)
			return 0;
		if (n < 0)
		{
			pg_fail(e, r->ep->conn, NULL, "reading the table failed");
			return -1;
		}
		if (r->len + (size_t) n > r->cap)
		{
			while (r->len + (size_t) n > r->cap)
				r->cap *= 2;
			r->buf = mem_realloc(r->buf, r->cap);
		}
		memcpy(r->buf + r->len, chunk, n);
		r->len += (size_t) n;
		PQfreemem(chunk);
	}
	return 1;
}

static int32_t
rd32(const char *p)
{
	uint32_t	v;

	memcpy(&v, p, 4);
	return (int32_t) ntohl(v);
}

/* the end of the COPY: its result must be a success */
static int
finish(Reader *r, CopyError *e)
{
	PGresult   *res;
	int			rc = 0;
	char	   *chunk;
	int			n;

	r->finished = true;
	/* past the trailer: the COPY's end (-1), then its result */
	while ((n = PQgetCopyData(r->ep->conn, &chunk, 0)) > 0)
		PQfreemem(chunk);
	if (n == -2)
		rc = pg_fail(e, r->ep->conn, NULL, "reading the table failed") ? 0 : -1;
	while ((res = PQgetResult(r->ep->conn)) != NULL)
	{
		if (PQresultStatus(res) != PGRES_COMMAND_OK && rc == 0)
		{
			pg_fail(e, r->ep->conn, res, "reading the table failed");
			rc = -1;
		}
		PQclear(res);
	}
	return rc;
}

static int
db_read(Reader *r, Record *out, CopyError *e)
{
	int			rc;
	int16_t		nfields;
	int			expect = r->keys_only ? 2 : 4;
	const char *f[4];
	int32_t		flen[4];

	if (r->finished)
		return 0;
	if (!r->header_done)
	{
		if ((rc = want(r, 19, e)) <= 0)
			return rc == 0 ? finish(r, e) : -1;
		if (memcmp(r->buf, "PGCOPY\n\377\r\n\0", 11) != 0)
			return copy_fail(e, "the database's COPY data has no binary header") ? 0 : -1;
		r->pos = 19 + (size_t) rd32(r->buf + 15);
		r->header_done = true;
	}
	if ((rc = want(r, 2, e)) <= 0)
		return rc == 0 ? finish(r, e) : -1;
	nfields = (int16_t) ntohs(*(uint16_t *) (r->buf + r->pos));
	if (nfields == -1)
	{
		r->pos += 2;
		return finish(r, e);
	}
	if (nfields != expect)
		return copy_fail(e, "the database's COPY data has %d columns, not %d", nfields, expect) ? 0 : -1;
	/* the whole tuple in the buffer: field by field */
	{
		size_t		off = 2;

		for (int i = 0; i < expect; i++)
		{
			if ((rc = want(r, off + 4, e)) <= 0)
				return rc == 0 ? (copy_fail(e, "the database's COPY data ends inside a row"), -1) : -1;
			flen[i] = rd32(r->buf + r->pos + off);
			off += 4;
			if (flen[i] > 0 && (rc = want(r, off + (size_t) flen[i], e)) <= 0)
				return rc == 0 ? (copy_fail(e, "the database's COPY data ends inside a row"), -1) : -1;
			off += flen[i] > 0 ? (size_t) flen[i] : 0;
		}
		off = 2;
		for (int i = 0; i < expect; i++)
		{
			off += 4;
			f[i] = r->buf + r->pos + off;
			off += flen[i] > 0 ? (size_t) flen[i] : 0;
		}
		r->pos += off;
	}
	memset(out, 0, sizeof(*out));
	if (flen[0] < 0 || flen[1] < 0)
		return copy_fail(e, "a row of the table has no key"), -1;
	out->pk = f[0];
	out->pk_len = (uint32) flen[0];
	out->rk = f[1];
	out->rk_len = (uint32) flen[1];
	if (!r->keys_only)
	{
		TsError		err = {0};

		if (flen[2] == 8)
		{
			uint64		hi = (uint32) rd32(f[2]),
						lo = (uint32) rd32(f[2] + 4);

			out->ticks = (int64) ((hi << 32) | lo);
		}
		if (flen[3] < 0)
		{
			static const uint8 empty[4] = {ENTITY_FORMAT_VERSION, 0, 0, 0};

			out->body = empty;
			out->body_len = 4;
		}
		else if (!record_set_body(out, (const uint8 *) f[3], (uint32) flen[3], &err))
		{
			copy_fail(e, "%s", err.msg);
			snprintf(e->code, sizeof(e->code), "%s", ts_error_service_code(err.code));
			e->raw = NULL;
			return READ_BAD_RECORD;
		}
	}
	return 1;
}

static void
db_close_reader(Reader *r)
{
	if (r == NULL)
		return;
	if (!r->finished)
	{
		/* stop the COPY: cancel it and drain what is left */
		PGcancel   *c = PQgetCancel(r->ep->conn);
		char		errbuf[256];
		char	   *chunk;
		PGresult   *res;

		if (c)
		{
			PQcancel(c, errbuf, sizeof(errbuf));
			PQfreeCancel(c);
		}
		while (PQgetCopyData(r->ep->conn, &chunk, 0) > 0)
			PQfreemem(chunk);
		while ((res = PQgetResult(r->ep->conn)) != NULL)
			PQclear(res);
	}
	free(r->buf);
	free(r);
}

/* COPY binary: one tuple */
static void
put16(StringInfo s, int16_t v)
{
	uint16_t	n = htons((uint16_t) v);

	appendBinaryStringInfo(s, (const char *) &n, 2);
}

static void
put_field(StringInfo s, const void *p, int32_t len)
{
	uint32_t	n = htonl((uint32_t) len);

	appendBinaryStringInfo(s, (const char *) &n, 4);
	if (len > 0)
		appendBinaryStringInfo(s, p, len);
}

/* text[] literal of the keys: {"a","b"} with " and \ escaped */
static void
append_key_array(StringInfo s, const Record *recs, int n)
{
	appendStringInfoChar(s, '{');
	for (int i = 0; i < n; i++)
	{
		if (i > 0)
			appendStringInfoChar(s, ',');
		appendStringInfoChar(s, '"');
		for (uint32 k = 0; k < recs[i].rk_len; k++)
		{
			char		c = recs[i].rk[k];

			if (c == '"' || c == '\\')
				appendStringInfoChar(s, '\\');
			appendStringInfoChar(s, c);
		}
		appendStringInfoChar(s, '"');
	}
	appendStringInfoChar(s, '}');
}

/* One attempt at the batch's transaction; true on commit. */
static bool
write_once(DbEndpoint *ep, const WriteSpec *spec, const Record *recs, int n, bool replace, CopyError *e)
{
	StringInfoData data;
	PGresult   *res;
	char	   *pk = mem_strndup(recs[0].pk, recs[0].pk_len);
	bool		ok = false;
	char		etag[ETAG_TEXT_MAX];

	res = PQexec(ep->conn, spec->durable ? "BEGIN; SET LOCAL synchronous_commit = on" : "BEGIN");
	if (PQresultStatus(res) != PGRES_COMMAND_OK)
		goto fail;
	PQclear(res);
	if (spec->keep_timestamps)
	{
		const char *params[1] = {spec->table};

		res = PQexecParams(ep->conn, "SELECT tablestore.import_timestamps($1)", 1, NULL, params, NULL, NULL, 0);
		if (PQresultStatus(res) != PGRES_TUPLES_OK)
			goto fail;
		PQclear(res);
	}
	if (replace)
	{
		StringInfoData keys,
					sql;
		const char *params[2];

		initStringInfo(&keys);
		initStringInfo(&sql);
		append_key_array(&keys, recs, n);
		params[0] = pk;
		params[1] = keys.data;
		appendStringInfo(&sql, "DELETE FROM %s WHERE partition_key = $1 AND row_key = ANY ($2::text[])", ep->rel);
		res = PQexecParams(ep->conn, sql.data, 2, NULL, params, NULL, NULL, 0);
		pfree(sql.data);
		pfree(keys.data);
		if (PQresultStatus(res) != PGRES_COMMAND_OK)
			goto fail;
		PQclear(res);
	}
	initStringInfo(&data);
	{
		StringInfoData sql;

		initStringInfo(&sql);
		appendStringInfo(&sql, "COPY %s (partition_key, row_key%s, properties) FROM STDIN (FORMAT binary)", ep->rel,
						 spec->keep_timestamps ? ", etag" : "");
		res = PQexec(ep->conn, sql.data);
		pfree(sql.data);
	}
	if (PQresultStatus(res) != PGRES_COPY_IN)
	{
		pfree(data.data);
		goto fail;
	}
	PQclear(res);
	resetStringInfo(&data);
	appendBinaryStringInfo(&data, "PGCOPY\n\377\r\n\0\0\0\0\0\0\0\0\0", 19);
	for (int i = 0; i < n; i++)
	{
		put16(&data, spec->keep_timestamps ? 4 : 3);
		put_field(&data, recs[i].pk, (int32_t) recs[i].pk_len);
		put_field(&data, recs[i].rk, (int32_t) recs[i].rk_len);
		if (spec->keep_timestamps)
		{
			if (recs[i].ticks > 0)
				put_field(&data, etag, etag_text_format(recs[i].ticks, etag));
			else
				put_field(&data, NULL, -1);
		}
		put_field(&data, recs[i].body, (int32_t) recs[i].body_len);
		if (data.len > (1 << 20) && PQputCopyData(ep->conn, data.data, data.len) == 1)
			resetStringInfo(&data);
	}
	put16(&data, -1);
	if (PQputCopyData(ep->conn, data.data, data.len) != 1 || PQputCopyEnd(ep->conn, NULL) != 1)
	{
		pfree(data.data);
		pg_fail(e, ep->conn, NULL, "writing the batch failed");
		goto out;
	}
	pfree(data.data);
	res = PQgetResult(ep->conn);
	if (PQresultStatus(res) != PGRES_COMMAND_OK)
		goto fail;
	PQclear(res);
	while ((res = PQgetResult(ep->conn)) != NULL)
		PQclear(res);
	res = PQexec(ep->conn, "COMMIT");
	if (PQresultStatus(res) != PGRES_COMMAND_OK)
		goto fail;
	PQclear(res);
	ok = true;
	goto out;
fail:
	pg_fail(e, ep->conn, res, "writing the batch failed");
	PQclear(res);
	while ((res = PQgetResult(ep->conn)) != NULL)
		PQclear(res);
out:
	if (!ok && PQstatus(ep->conn) == CONNECTION_OK)
		PQclear(PQexec(ep->conn, "ROLLBACK"));
	free(pk);
	return ok;
}

static WriteResult
db_write_batch(Endpoint *base, const WriteSpec *spec, const Record *recs, int n, CopyError *e)
{
	DbEndpoint *ep = (DbEndpoint *) base;
	Retry		r = {0};
	bool		replace = spec->replace_expected;

	if (!relation(ep, spec->table, e))
		return WRITE_FAILED;
	for (;;)
	{
		if (write_once(ep, spec, recs, n, replace, e))
			return WRITE_OK;
		if (strcmp(e->code, "23505") == 0 && !replace)
		{
			replace = true;		/* keys written before (a resumed run): replace them */
			continue;
		}
		if (retryable(ep, e))
		{
			if (!recover(ep, &r, e))
				return WRITE_FAILED;
			continue;
		}
		/* an entity the destination will not take: the data's fault, not the connection's */
		if (strncmp(e->code, "TSB", 3) == 0 || strncmp(e->code, "22", 2) == 0 ||
			strncmp(e->code, "23", 2) == 0 || strcmp(e->code, "P0001") == 0)
			return WRITE_REFUSED;
		return WRITE_FAILED;
	}
}

static int
db_exists(Endpoint *base, const char *table, const char *pk, const char *rk, CopyError *e)
{
	DbEndpoint *ep = (DbEndpoint *) base;
	StringInfoData sql;
	const char *params[2] = {pk, rk};
	PGresult   *res;
	int			found;

	if (!relation(ep, table, e))
		return -1;
	initStringInfo(&sql);
	appendStringInfo(&sql, "SELECT 1 FROM %s WHERE partition_key = $1 AND row_key = $2", ep->rel);
	res = run(ep, sql.data, 2, params, PGRES_TUPLES_OK, e, "cannot read an entity");
	pfree(sql.data);
	if (res == NULL)
		return -1;
	found = PQntuples(res) > 0;
	PQclear(res);
	return found;
}

static bool
db_delete_keys(Endpoint *base, const char *table, const Record *recs, int n, CopyError *e)
{
	DbEndpoint *ep = (DbEndpoint *) base;
	StringInfoData sql,
				keys;
	char	   *pk;
	const char *params[2];
	PGresult   *res;
	Retry		r = {0};

	if (!relation(ep, table, e))
		return false;
	pk = mem_strndup(recs[0].pk, recs[0].pk_len);
	initStringInfo(&sql);
	initStringInfo(&keys);
	appendStringInfo(&sql, "DELETE FROM %s WHERE partition_key = $1 AND row_key = ANY ($2::text[])", ep->rel);
	append_key_array(&keys, recs, n);
	params[0] = pk;
	params[1] = keys.data;
	while ((res = run(ep, sql.data, 2, params, PGRES_COMMAND_OK, e, "cannot delete entities")) == NULL &&
		   retryable(ep, e) && recover(ep, &r, e))
		;
	PQclear(res);
	pfree(sql.data);
	pfree(keys.data);
	free(pk);
	return res != NULL;
}

static bool
db_load_begin(Endpoint *base, const char *table, char **saved, CopyError *e)
{
	DbEndpoint *ep = (DbEndpoint *) base;
	const char *params[1] = {table};
	PGresult   *res;

	*saved = NULL;
	res = run(ep, "SELECT p::text, p->>'indexingMode' FROM tablestore.get_indexing_policy($1) p", 1, params,
			  PGRES_TUPLES_OK, e, "cannot read the table's indexing policy");
	if (res == NULL)
		return false;
	if (PQntuples(res) == 1 && !PQgetisnull(res, 0, 0) && strcmp(PQgetvalue(res, 0, 1), "none") != 0)
		*saved = mem_strdup(PQgetvalue(res, 0, 0));
	PQclear(res);
	if (*saved == NULL)
		return true;
	res = run(ep, "SELECT tablestore.set_indexing_policy($1, '{\"indexingMode\":\"none\"}')", 1, params,
			  PGRES_TUPLES_OK, e, "cannot set the table's indexing policy to none for the load");
	if (res == NULL)
	{
		free(*saved);
		*saved = NULL;
		return false;
	}
	PQclear(res);
	return true;
}

static bool
db_load_end(Endpoint *base, const char *table, const char *saved, CopyError *e)
{
	DbEndpoint *ep = (DbEndpoint *) base;
	const char *params[2] = {table, saved};
	PGresult   *res;
	Retry		r = {0};

	if (saved == NULL)
		return true;
	/* the database builds a few indexes at a time (tablestore.max_index_builds): wait for a turn */
	while ((res = run(ep, "SELECT tablestore.set_indexing_policy($1, $2::jsonb)", 2, params, PGRES_TUPLES_OK, e,
					  "cannot restore the table's indexing policy")) == NULL)
		if (!retryable(ep, e) || !recover(ep, &r, e))
			return false;
	PQclear(res);
	return true;
}

/* Stored access policies, as the service's SignedIdentifiers XML. */
static bool
db_get_acl(Endpoint *base, const char *table, char **xml, CopyError *e)
{
	DbEndpoint *ep = (DbEndpoint *) base;
	const char *params[1] = {table};
	PGresult   *res = run(ep,
						  "SELECT '<?xml version=\"1.0\" encoding=\"utf-8\"?><SignedIdentifiers>' || "
						  "coalesce(string_agg(xmlelement(name \"SignedIdentifier\", xmlelement(name \"Id\", id), "
						  "xmlelement(name \"AccessPolicy\", xmlforest("
						  "to_char(start AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US0\"Z\"') AS \"Start\", "
						  "to_char(expiry AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US0\"Z\"') AS \"Expiry\", "
						  "permission AS \"Permission\")))::text, ''), '') "
						  "|| '</SignedIdentifiers>' FROM tablestore.get_table_acl($1)",
						  1, params, PGRES_TUPLES_OK, e, "cannot read the table's access policies");

	if (res == NULL)
		return false;
	*xml = mem_strdup(PQgetvalue(res, 0, 0));
	PQclear(res);
	return true;
}

static bool
db_set_acl(Endpoint *base, const char *table, const char *xml, CopyError *e)
{
	DbEndpoint *ep = (DbEndpoint *) base;
	const char *params[2] = {table, xml};
	PGresult   *res = run(ep,
						  "SELECT tablestore.set_table_acl($1, coalesce((SELECT jsonb_agg(jsonb_strip_nulls(jsonb_build_object("
						  "'Id', (xpath('/SignedIdentifier/Id/text()', s))[1]::text, "
						  "'Start', (xpath('/SignedIdentifier/AccessPolicy/Start/text()', s))[1]::text, "
						  "'Expiry', (xpath('/SignedIdentifier/AccessPolicy/Expiry/text()', s))[1]::text, "
						  "'Permission', (xpath('/SignedIdentifier/AccessPolicy/Permission/text()', s))[1]::text))) "
						  "FROM unnest(xpath('/SignedIdentifiers/SignedIdentifier', $2::xml)) s), '[]'))",
						  2, params, PGRES_TUPLES_OK, e, "cannot set the table's access policies");

	if (res == NULL)
		return false;
	PQclear(res);
	return true;
}

static int
db_split_points(Endpoint *base, const char *table, int n, char ***points, CopyError *e)
{
	DbEndpoint *ep = (DbEndpoint *) base;
	StringInfoData sql;
	PGresult   *res;
	int			k;

	*points = NULL;
	if (!relation(ep, table, e))
		return -1;
	initStringInfo(&sql);
	/* the partition keys that start each of n runs of about equal entity counts */
	appendStringInfo(&sql,
					 "SELECT min(partition_key) FROM (SELECT partition_key, ntile(%d) OVER (ORDER BY partition_key) t "
					 "FROM %s) x GROUP BY t HAVING t > 1 ORDER BY 1", n, ep->rel);
	res = run(ep, sql.data, 0, NULL, PGRES_TUPLES_OK, e, "cannot split the table");
	pfree(sql.data);
	if (res == NULL)
		return -1;
	*points = mem_alloc(sizeof(char *) * (PQntuples(res) + 1));
	k = 0;
	for (int i = 0; i < PQntuples(res); i++)
		if (k == 0 || strcmp((*points)[k - 1], PQgetvalue(res, i, 0)) != 0)
			(*points)[k++] = mem_strdup(PQgetvalue(res, i, 0));
	PQclear(res);
	return k;
}

static const EndpointOps db_ops = {
	.kind = "database",
	.list_tables = db_list_tables,
	.table_exists = db_table_exists,
	.create_table = db_create_table,
	.open_reader = db_open_reader,
	.read = db_read,
	.close_reader = db_close_reader,
	.write_batch = db_write_batch,
	.exists = db_exists,
	.delete_keys = db_delete_keys,
	.load_begin = db_load_begin,
	.load_end = db_load_end,
	.get_acl = db_get_acl,
	.set_acl = db_set_acl,
	.split_points = db_split_points,
	.close = db_close,
};
