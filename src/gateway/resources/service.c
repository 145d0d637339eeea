/*
 * service.c - the account's service resources:
 *   GET  ?restype=service&comp=properties  the stored properties (logging, metrics, CORS), or all off
 *   PUT  ?restype=service&comp=properties  merged into the stored ones (202): the elements the
 *        document names replace those stored, in tablestore.service_properties
 *   GET  ?restype=service&comp=stats       on the -secondary endpoint, geo-replication "live" (the
 *        secondary is this same store); on the primary 400 InvalidQueryParameterValue, as the service
 * and the per-account cache of the properties that CORS reads on every request with an Origin
 * (cors.c): read at start-up, reloaded when older than PROPS_CACHE_MS by a request running on
 * the account's database workers (an answer given without the database uses what is cached),
 * refreshed at once by a Set through this gateway. A CORS preflight, which nobody signs, is
 * answered from the cache without waiting on the database; when the cache is stale, one
 * preflight at a time (service_props_claim) goes through the account's workers to reload it.
 */
#include "gateway.h"
#include "props.h"
#include "sqlapi.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define PROPS_CACHE_MS 5000.0

struct PropsCache
{
	pthread_mutex_t mu;
	Arena		arena;
	ServiceProps props;
	bool		loaded;
	bool		loading;		/* one request reads the database at a time */
	double		loaded_ms;		/* also set by a failed read: retried after PROPS_CACHE_MS */
	unsigned long generation;	/* bumped by every store: a read older than a store is dropped */
};

PropsCache *
props_cache_create(void)
{
	PropsCache *c = calloc(1, sizeof(PropsCache));

	if (c == NULL)
		return NULL;
	pthread_mutex_init(&c->mu, NULL);
	arena_init(&c->arena, 1024 * 1024);
	props_default(&c->props);
	return c;
}

/*
 * The stored properties from the database into *out (allocated in r's arena); all off before the
 * first Set. false: the database could not be read (err set).
 */
static bool
props_read(Req *r, ServiceProps *out, SqlError *err)
{
	PGresult   *res = sql_call(r, SQL_GET_PROPS, NULL, err);
	const char *why = NULL;

	if (res == NULL)
		return false;
	props_default(out);
	if (PQntuples(res) == 1 && !PQgetisnull(res, 0, 0))
	{
		const char *doc = PQgetvalue(res, 0, 0);
		ServiceProps stored;

		/* the gateway wrote it; a document it cannot read (edited by hand) counts as all off */
		if (props_parse(&r->arena, doc, strlen(doc), &stored, &why))
			props_merge(out, &stored);
		else
			log_msg("account %s: the stored service properties do not parse (%s); using defaults", r->account->name, why);
	}
	PQclear(res);
	return true;
}

static unsigned long
cache_generation(PropsCache *c)
{
	unsigned long g;

	pthread_mutex_lock(&c->mu);
	g = c->generation;
	pthread_mutex_unlock(&c->mu);
	return g;
}

/*
 * Put props into the account's cache (its own copy), unless another store came after the read
 * that produced them (read_generation: the generation when that read began).
 */
static void
cache_store(PropsCache *c, const ServiceProps *props, unsigned long read_generation)
{
	Arena		fresh;
	ServiceProps copy;

	arena_init(&fresh, 1024 * 1024);
	if (!props_copy(&fresh, props, &copy))
	{
		arena_free(&fresh);
		return;
	}
	pthread_mutex_lock(&c->mu);
	if (c->generation == read_generation)
	{
		arena_free(&c->arena);
		c->arena = fresh;
		c->props = copy;
		c->loaded = true;
		c->loaded_ms = now_ms();
		c->generation++;
	}
	else
		arena_free(&fresh);
	pthread_mutex_unlock(&c->mu);
}

bool
service_props_claim(Account *a)
{
	PropsCache *c = a->props;
	bool		claimed = false;

	pthread_mutex_lock(&c->mu);
	if ((!c->loaded || now_ms() - c->loaded_ms >= PROPS_CACHE_MS) && !c->loading)
		c->loading = claimed = true;
	pthread_mutex_unlock(&c->mu);
	return claimed;
}

/* Read the properties into the cache (the caller claimed the load), then release the claim. */
static void
reload_claimed(Req *r, unsigned long gen)
{
	PropsCache *c = r->account->props;
	ServiceProps loaded;
	SqlError	err;

	if (props_read(r, &loaded, &err))
		cache_store(c, &loaded, gen);
	pthread_mutex_lock(&c->mu);
	c->loading = false;
	/* a database that cannot be read: the last rules known (or none) stay for another period */
	if (!c->loaded || now_ms() - c->loaded_ms >= PROPS_CACHE_MS)
	{
		c->loaded = true;
		c->loaded_ms = now_ms();
	}
	pthread_mutex_unlock(&c->mu);
}

void
service_props_reload(Req *r)
{
	reload_claimed(r, cache_generation(r->account->props));
}

void
service_props_unclaim(Account *a)
{
	pthread_mutex_lock(&a->props->mu);
	a->props->loading = false;
	pthread_mutex_unlock(&a->props->mu);
}

bool
service_props_preload(Account *a)
{
	Req			r;
	ServiceProps p;
	SqlError	err;
	bool		ok;
	unsigned long gen = cache_generation(a->props);

	memset(&r, 0, sizeof(r));
	arena_init(&r.arena, 1024 * 1024);
	r.account = a;
	r.op = ops_def(OP_PREFLIGHT);	/* runs no statement of its own: no routing */
	ok = props_read(&r, &p, &err);
	if (ok)
		cache_store(a->props, &p, gen);
	arena_free(&r.arena);
	return ok;
}

bool
service_props_current(Req *r, ServiceProps *out, bool may_load)
{
	PropsCache *c = r->account->props;
	bool		load = false,
				ok;
	unsigned long gen = 0;

	pthread_mutex_lock(&c->mu);
	if (may_load && (!c->loaded || now_ms() - c->loaded_ms >= PROPS_CACHE_MS) && !c->loading)
	{
		c->loading = load = true;
		gen = c->generation;
	}
	pthread_mutex_unlock(&c->mu);
	if (load)
		reload_claimed(r, gen);
	pthread_mutex_lock(&c->mu);
	ok = props_copy(&r->arena, &c->props, out);
	pthread_mutex_unlock(&c->mu);
	return ok;
}

void
service_get_properties(Req *r)
{
	ServiceProps p;
	SqlError	err;
	Buf			doc;
	unsigned long gen = cache_generation(r->account->props);

	if (!props_read(r, &p, &err))
	{
		sql_error_respond(r, &err);
		return;
	}
	cache_store(r->account->props, &p, gen);
	buf_init(&doc);
	props_render(&doc, &p);
	resp_xml(r, 200, &doc);
}

void
service_set_properties(Req *r)
{
	ServiceProps update,
				merged;
	SqlError	err;
	const char *why = NULL;
	const char *params[1];
	bool		stored;
	Buf			doc;

	if (!props_parse(&r->arena, r->body.data ? r->body.data : "", r->body.len, &update, &why))
	{
		resp_error(r, "InvalidXmlDocument", "%s.", why);
		return;
	}
	if (!props_read(r, &merged, &err))
	{
		sql_error_respond(r, &err);
		return;
	}
	props_merge(&merged, &update);
	buf_init(&doc);
	props_render(&doc, &merged);
	if (doc.failed)
	{
		buf_free(&doc);
		resp_error(r, "ServerBusy", "out of memory");
		return;
	}
	if (doc.len > PROPS_MAX_DOCUMENT)
	{
		buf_free(&doc);
		resp_error(r, "InvalidXmlDocument", "The service properties would be over %d bytes stored.", PROPS_MAX_DOCUMENT);
		return;
	}
	params[0] = doc.data;
	stored = sql_run(r, SQL_SET_PROPS, params);
	buf_free(&doc);
	if (!stored)
		return;
	cache_store(r->account->props, &merged, cache_generation(r->account->props));
	resp_empty(r, 202);
}

void
service_get_stats(Req *r)
{
	static const char *const not_here[] = {"QueryParameterName", "comp", "QueryParameterValue", "stats", "Reason", ""};
	char		t[64];
	Buf			doc;

	if (!r->target.secondary)
	{
		/* the service answers it on the secondary location endpoint only */
		resp_error_fields(r, "InvalidQueryParameterValue", NULL, not_here, 6);
		return;
	}
	http_date(t, time(NULL));
	buf_init(&doc);
	buf_printf(&doc, "<?xml version=\"1.0\" encoding=\"utf-8\"?><StorageServiceStats><GeoReplication>"
			   "<Status>live</Status><LastSyncTime>%s</LastSyncTime></GeoReplication></StorageServiceStats>", t);
	resp_xml(r, 200, &doc);
}
