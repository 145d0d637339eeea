/*
 * index_queue.c - the durable queue of index builds (index_queue.h): the SQL of
 * tablestore_internal.index_queue. A row is a table whose registered indexing policy is not
 * applied yet; `request` grows with every change, so that a worker removes only the request it
 * applied, and `attempts`, `next_attempt`, `last_error` and `failed` say how its builds went.
 * Every statement runs as the extension's owner (the queue's): callers and workers of any role
 * read and write it only through these functions, which their callers guard.
 */
#include "index_queue.h"

#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/namespace.h"
#include "executor/spi.h"
#include "mb/pg_wchar.h"
#include "registry.h"
#include "ts_support.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#define QUEUE "tablestore_internal.index_queue"

/* The longest error kept (a message, its detail): the rest is in the server log. */
#define MAX_ERROR_LEN 1000

bool
ts_index_queue_installed(void)
{
	Oid			nsp = get_namespace_oid("tablestore_internal", true);

	return OidIsValid(nsp) && OidIsValid(get_relname_relid("index_queue", nsp));
}

void
ts_index_queue_request(const char *key)
{
	const char *args[1] = {key};

	ts_registry_write("INSERT INTO " QUEUE " AS q (table_key) VALUES ($1) ON CONFLICT (table_key) DO UPDATE "
					  "SET request = q.request OPERATOR(pg_catalog.+) 1, requested = pg_catalog.now(), attempts = 0, "
					  "next_attempt = '-infinity', last_error = NULL, failed = false",
					  1, args, SPI_OK_INSERT);
}

bool
ts_index_queue_pending(const char *key, bool heal)
{
	const char *args[1] = {key};

	ts_registry_write("SELECT NOT q.failed FROM " QUEUE " q WHERE q.table_key OPERATOR(pg_catalog.=) $1", 1, args, SPI_OK_SELECT);
	if (SPI_processed > 0)
		return strcmp(SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1), "t") == 0;
	if (!heal || XactReadOnly || RecoveryInProgress())
		return false;
	ts_registry_write("INSERT INTO " QUEUE " (table_key) VALUES ($1) ON CONFLICT (table_key) DO NOTHING",
					  1, args, SPI_OK_INSERT);
	return true;
}

bool
ts_index_queue_any(void)
{
	ts_registry_write("SELECT 1 FROM " QUEUE " q WHERE NOT q.failed LIMIT 1", 0, NULL, SPI_OK_SELECT);
	return SPI_processed > 0;
}

/* The rows of the last SELECT (key, request, attempts, wait_ms), in cxt. */
static int
read_rows(MemoryContext cxt, TsIndexWork **out)
{
	int			n = (int) SPI_processed;
	TsIndexWork *rows = MemoryContextAllocZero(cxt, sizeof(TsIndexWork) * Max(n, 1));

	for (int i = 0; i < n; i++)
	{
		HeapTuple	row = SPI_tuptable->vals[i];
		TupleDesc	desc = SPI_tuptable->tupdesc;

		rows[i].key = MemoryContextStrdup(cxt, SPI_getvalue(row, desc, 1));
		rows[i].request = strtoll(SPI_getvalue(row, desc, 2), NULL, 10);
		rows[i].attempts = atoi(SPI_getvalue(row, desc, 3));
		rows[i].wait_ms = atoi(SPI_getvalue(row, desc, 4));
	}
	*out = rows;
	return n;
}

#define ROW_COLUMNS "q.table_key, q.request, q.attempts, " \
	"LEAST(GREATEST(pg_catalog.ceil(EXTRACT(epoch FROM GREATEST(q.next_attempt, pg_catalog.clock_timestamp()) OPERATOR(pg_catalog.-) pg_catalog.clock_timestamp()) " \
	"OPERATOR(pg_catalog.*) 1000), 0), 3600000)::int4"

int
ts_index_queue_runnable(MemoryContext cxt, TsIndexWork **out)
{
	ts_registry_write("SELECT " ROW_COLUMNS " FROM " QUEUE " q "
			   "WHERE NOT q.failed AND q.next_attempt OPERATOR(pg_catalog.<=) pg_catalog.clock_timestamp() "
			   "ORDER BY q.next_attempt, q.requested, q.table_key FOR UPDATE SKIP LOCKED", 0, NULL, SPI_OK_SELECT);
	return read_rows(cxt, out);
}

int
ts_index_queue_waiting(MemoryContext cxt, TsIndexWork **out)
{
	ts_registry_write("SELECT " ROW_COLUMNS " FROM " QUEUE " q WHERE NOT q.failed ORDER BY q.next_attempt", 0, NULL, SPI_OK_SELECT);
	return read_rows(cxt, out);
}

void
ts_index_queue_attempt(const TsIndexWork *w)
{
	/* the wait before the next attempt: 1 s after the first, doubling up to TS_INDEX_MAX_BACKOFF_S */
	int			backoff = w->attempts >= 6 ? TS_INDEX_MAX_BACKOFF_S : Min(1 << w->attempts, TS_INDEX_MAX_BACKOFF_S);
	const char *args[2] = {w->key, psprintf("%d", backoff)};

	ts_registry_write("UPDATE " QUEUE " SET attempts = attempts OPERATOR(pg_catalog.+) 1, last_attempt = pg_catalog.clock_timestamp(), "
			   "next_attempt = pg_catalog.clock_timestamp() OPERATOR(pg_catalog.+) pg_catalog.make_interval(secs => $2::float8) "
			   "WHERE table_key OPERATOR(pg_catalog.=) $1", 2, args, SPI_OK_UPDATE);
}

void
ts_index_queue_forget(const char *key)
{
	const char *args[1] = {key};

	ts_registry_write("DELETE FROM " QUEUE " WHERE table_key OPERATOR(pg_catalog.=) $1", 1, args, SPI_OK_DELETE);
}

/* Is the row still the attempt's request, and not being written by a caller (locked FOR UPDATE)? */
static bool
still_ours(const TsIndexWork *w)
{
	const char *args[1] = {w->key};

	ts_registry_write("SELECT q.request FROM " QUEUE " q WHERE q.table_key OPERATOR(pg_catalog.=) $1 FOR UPDATE SKIP LOCKED",
			   1, args, SPI_OK_SELECT);
	return SPI_processed > 0 &&
		strtoll(SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1), NULL, 10) == w->request;
}

void
ts_index_queue_settle(const TsIndexWork *w)
{
	if (still_ours(w))
		ts_index_queue_forget(w->key);
}

void
ts_index_queue_fail(const TsIndexWork *w, const char *error)
{
	const char *args[2] = {w->key, pnstrdup(error, pg_mbcliplen(error, (int) strlen(error), MAX_ERROR_LEN))};

	if (!still_ours(w))
		return;
	ts_registry_write("UPDATE " QUEUE " SET last_error = $2, failed = attempts OPERATOR(pg_catalog.>=) " CppAsString2(TS_INDEX_MAX_ATTEMPTS)
			   " WHERE table_key OPERATOR(pg_catalog.=) $1", 2, args, SPI_OK_UPDATE);
}
