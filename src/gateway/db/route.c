/*
 * route.c - one-partition calls straight to the node that holds the partition (route.h).
 *
 * A distributed table's shard map (tablestore.table_shards on the coordinator: shard -> server)
 * is kept per account and table for ROUTE_TTL seconds in a small direct-mapped cache. When a node
 * refuses the call's own shard with TSX03 (the shard is fenced there: a move is filling it or has
 * switched it away; or the node no longer has it), that shard goes to the coordinator, and the map
 * is read again ROUTE_DETOUR seconds later: for a few milliseconds after a switch the
 * coordinator's map still names a node that is fenced, and every call would otherwise read the map
 * again. Any other TSX03 (a query across partitions, a key the call does not route by) leaves the
 * map alone. When the map cannot be read again (the coordinator is down, or hung: a read of the
 * map gets ROUTE_FETCH_MS), the last one keeps routing, and the map is asked for again every
 * ROUTE_RETRY seconds, by one request at a time per table (the others route by the last map
 * meanwhile): the fences make an old map safe (a node that no longer holds a shard, or holds a
 * fenced copy, refuses with TSX03 and the call goes to the coordinator), so nodes that are up keep
 * serving their partitions through a coordinator's outage. A call's PartitionKey is read by the
 * core (route_key.c: an entity body with the JSON tokenizer, a $filter with the OData parser, as
 * the extension reads them) and its shard computed by the core (shard_hash.c, as
 * tablestore.shard_of).
 */
#include "route.h"
#include "gateway.h"
#include "pgalloc.h"
#include "pool.h"
#include "route_key.h"
#include "shard_hash.h"
#include "util.h"

#include <errno.h>
#include <libpq-fe.h>
#include <poll.h>
#include <strings.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ROUTE_SLOTS 128
#define ROUTE_TTL 10
#define ROUTE_DETOUR 1			/* seconds a shard a node refused goes to the coordinator before the map is read again */
#define ROUTE_RETRY 1			/* seconds between attempts to read a map again while the coordinator does not answer */
#define ROUTE_MAX_SHARDS 1024
#define ROUTE_FETCH_MS 2000		/* a read of the map answered within this, else the last map routes */

typedef struct RouteEntry
{
	bool		used;
	int			account;
	char		table[64];		/* lower case */
	time_t		fetched;
	time_t		retry_at;		/* the map could not be read again: the next attempt, meanwhile the last map routes */
	bool		refreshing;		/* a request reads the map again: the others route by this one meanwhile */
	int			count;			/* 0: not distributed (the coordinator answers) */
	short		node[ROUTE_MAX_SHARDS];	/* index into the account's nodes, -1: not a configured node */
} RouteEntry;

static RouteEntry cache[ROUTE_SLOTS];
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

/* A key the core reads (route_key.c), copied into the request's arena before its region goes. */
static char *
key_of(Req *r, bool (*reader) (const char *, size_t, const char **, uint32 *), const char *text, size_t len)
{
	PgRegion	region;
	const char *key;
	uint32		key_len;
	char	   *out = NULL;

	pg_region_begin(&region);
	if (reader(text, len, &key, &key_len))
		out = arena_strndup(&r->arena, key, key_len);
	pg_region_end(&region);
	return out;
}

char *
route_body_partition_key(Req *r, const char *json, size_t len)
{
	return json ? key_of(r, route_key_of_entity, json, len) : NULL;
}

char *
route_filter_partition_key(Req *r, const char *filter)
{
	return filter ? key_of(r, route_key_of_filter, filter, strlen(filter)) : NULL;
}

static int
account_index(const Req *r)
{
	return (int) (r->account - gw_config.accounts);
}

static void
lower_name(char *dst, const char *src)
{
	size_t		n = 0;

	for (; src[n] && n + 1 < 64; n++)
		dst[n] = (src[n] >= 'A' && src[n] <= 'Z') ? src[n] + 32 : src[n];
	dst[n] = '\0';
}

static unsigned
slot_of(int account, const char *table)
{
	unsigned	h = 2166136261u ^ (unsigned) account;

	for (const char *c = table; *c; c++)
		h = (h ^ (unsigned char) *c) * 16777619u;
	return h % ROUTE_SLOTS;
}

static int
node_index(const Account *a, const char *server)
{
	for (int i = 0; i < a->nnodes; i++)
		if (strcmp(a->nodes[i].name, server) == 0)
			return i;
	return -1;
}

static long
ms_since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (long) (now.tv_sec - t0->tv_sec) * 1000 + (now.tv_nsec - t0->tv_nsec) / 1000000;
}

/*
 * A query's result within timeout_ms, or NULL (*late: the time passed; the connection is then
 * unusable): a coordinator that is hung, not down, keeps no worker thread.
 */
static PGresult *
exec_in_time(PGconn *conn, const char *sql, int nparams, const char *const *params, int timeout_ms, bool *late)
{
	struct timespec t0;
	PGresult   *res,
			   *more;

	*late = false;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!PQsendQueryParams(conn, sql, nparams, NULL, params, NULL, NULL, 0))
		return NULL;
	while (PQisBusy(conn))
	{
		struct pollfd pfd = {.fd = PQsocket(conn), .events = POLLIN};
		long		left = timeout_ms - ms_since(&t0);
		int			rc;

		if (left <= 0 || (rc = poll(&pfd, 1, (int) left)) == 0)
		{
			*late = true;
			return NULL;
		}
		if ((rc < 0 && errno != EINTR) || (rc > 0 && !PQconsumeInput(conn)))
			return NULL;
	}
	res = PQgetResult(conn);
	while ((more = PQgetResult(conn)) != NULL)
		PQclear(more);
	return res;
}

/* The table's shard map from the coordinator; false when it cannot be read (then: no routing). */
static bool
fetch(Req *r, const char *table, RouteEntry *e)
{
	PoolConn   *c;
	PGresult   *res;
	char		why[256];
	const char *params[1] = {table};
	bool		ok,
				late;

	if (pool_acquire(r->account->pool, &c, why, sizeof(why)) != POOL_OK)
		return false;
	res = exec_in_time(c->conn, "SELECT shard, server, shard_count FROM tablestore.table_shards($1::text)", 1, params,
					   ROUTE_FETCH_MS, &late);
	ok = PQresultStatus(res) == PGRES_TUPLES_OK;
	/* no answer in time: the connection is dropped (its query may still be running) */
	pool_release(r->account->pool, c, late || (!ok && PQstatus(c->conn) != CONNECTION_OK));
	if (ok)
	{
		e->count = 0;
		for (int i = 0; i < PQntuples(res); i++)
		{
			int			shard = atoi(PQgetvalue(res, i, 0));
			int			count = atoi(PQgetvalue(res, i, 2));

			if (count < 1 || count > ROUTE_MAX_SHARDS || shard < 0 || shard >= count)
			{
				e->count = 0;
				break;
			}
			if (e->count == 0)
			{
				e->count = count;
				for (int k = 0; k < count; k++)
					e->node[k] = -1;
			}
			e->node[shard] = PQgetisnull(res, i, 1) ? -1 : node_index(r->account, PQgetvalue(res, i, 1));
		}
	}
	PQclear(res);
	return ok;
}

/*
 * The table and PartitionKey the request's operation names (ops.h: where its PartitionKey is), or
 * false. A body's or filter's key is the one the extension reads there (route_key.c), and names no
 * partition where the extension would refuse the call or run it across partitions. Were a key
 * wrong all the same, it would be harmless: a node that does not hold the partition the call
 * really names answers TSX03, and the coordinator runs the call (sqlapi.c).
 */
static bool
partition_of(Req *r, const char **table, const char **pk)
{
	*pk = NULL;
	*table = r->route_table ? r->route_table : r->target.table;
	switch (r->op->pk)
	{
		case PK_URL:
			*pk = r->target.pk;
			break;
		case PK_BODY:
			*pk = r->route_pk ? r->route_pk : route_body_partition_key(r, r->body.data, r->body.len);
			break;
		case PK_FILTER:
			*pk = route_filter_partition_key(r, query_get(&r->target.query, "$filter"));
			break;
		case PK_CHANGESET:
			*pk = r->route_pk;
			break;
		case PK_NONE:
			*pk = NULL;
			break;
	}
	return *table != NULL && *pk != NULL;
}

Pool *
route_pool(Req *r)
{
	RouteEntry *e;
	RouteEntry	fresh;
	char		table[64];
	int			account = account_index(r);
	int			node = -1;
	time_t		now = time(NULL);
	const char *name;
	const char *pk;

	if (r->account->nnodes == 0 || !partition_of(r, &name, &pk))
		return NULL;
	lower_name(table, name);
	pthread_mutex_lock(&cache_lock);
	e = &cache[slot_of(account, table)];
	if (e->used && e->account == account && strcmp(e->table, table) == 0 &&
		(now - e->fetched < ROUTE_TTL || now < e->retry_at || e->refreshing))
	{
		/* a fresh map, or another request reads it again: this one routes */
		if (e->count > 0)
			node = e->node[ts_shard_of_key(pk, strlen(pk), e->count)];
		pthread_mutex_unlock(&cache_lock);
		return node >= 0 ? r->account->nodes[node].pool : NULL;
	}
	if (e->used && e->account == account && strcmp(e->table, table) == 0)
		e->refreshing = true;
	pthread_mutex_unlock(&cache_lock);

	/* read outside the lock (bounded: ROUTE_FETCH_MS); a concurrent reader of another map may store the same slot */
	memset(&fresh, 0, sizeof(fresh));
	if (!fetch(r, name, &fresh))
	{
		/* the coordinator does not answer: the last map, if any, routes until it does */
		pthread_mutex_lock(&cache_lock);
		e = &cache[slot_of(account, table)];
		if (e->used && e->account == account && strcmp(e->table, table) == 0)
		{
			e->refreshing = false;
			e->retry_at = time(NULL) + ROUTE_RETRY;
			if (e->count > 0)
				node = e->node[ts_shard_of_key(pk, strlen(pk), e->count)];
		}
		pthread_mutex_unlock(&cache_lock);
		return node >= 0 ? r->account->nodes[node].pool : NULL;
	}
	fresh.used = true;
	fresh.account = account;
	strcpy(fresh.table, table);
	fresh.fetched = now;
	if (fresh.count > 0)
		node = fresh.node[ts_shard_of_key(pk, strlen(pk), fresh.count)];
	pthread_mutex_lock(&cache_lock);
	cache[slot_of(account, table)] = fresh;
	pthread_mutex_unlock(&cache_lock);
	return node >= 0 ? r->account->nodes[node].pool : NULL;
}

/*
 * Whether a node's TSX03 message refuses the shard this call routes by: a fence's ("shard N of the
 * table "t" is ...") for that shard, or a node that has no partition for the call's PartitionKey.
 */
static bool
refuses_shard(const char *msg, const char *table, const char *pk, int shard)
{
	const char *p;
	char		named[64];
	char		tail[300];
	int			n;

	if (msg == NULL)
		return false;
	for (p = strstr(msg, "shard "); p != NULL; p = strstr(p + 1, "shard "))
		if ((p == msg || p[-1] == ' ') &&
			sscanf(p, "shard %d of the table \"%63[^\"]\"", &n, named) == 2 && n == shard && strcasecmp(named, table) == 0)
			return true;
	snprintf(tail, sizeof(tail), "here takes the PartitionKey \"%s\"", pk);
	return strlen(pk) < 200 && strstr(msg, tail) != NULL;
}

void
route_detour(Req *r, const char *message)
{
	char		lower[64];
	RouteEntry *e;
	int			account = account_index(r);
	const char *name;
	const char *pk;

	if (!partition_of(r, &name, &pk))
		return;
	lower_name(lower, name);
	pthread_mutex_lock(&cache_lock);
	e = &cache[slot_of(account, lower)];
	if (e->used && e->account == account && strcmp(e->table, lower) == 0 && e->count > 0)
	{
		time_t		now = time(NULL);
		int			shard = ts_shard_of_key(pk, strlen(pk), e->count);

		/* the node refused this very shard (fenced by a move): the coordinator serves it until the map is read again */
		if (refuses_shard(message, lower, pk, shard))
		{
			e->node[shard] = -1;
			if (e->fetched > now - ROUTE_TTL + ROUTE_DETOUR)
				e->fetched = now - ROUTE_TTL + ROUTE_DETOUR;
		}
	}
	pthread_mutex_unlock(&cache_lock);
}
