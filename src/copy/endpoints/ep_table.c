/*
 * ep_table.c - a Table service endpoint (the service, Cosmos DB's Table API, Azurite,
 * tablestore-gateway) as an endpoint, over http.c (endpoint.h).
 *
 * Reading: GET /<table>() pages of up to 1000 entities with full metadata (an annotation for
 * every typed property, so nothing is left to guessing), their continuation headers followed to
 * the end; a resumed read starts after its key with a $filter
 * ((PartitionKey eq 'p' and RowKey gt 'r') or PartitionKey gt 'p'), which every endpoint
 * understands (continuation tokens are opaque to clients). Writing: one $batch per batch of one
 * partition (at most 100 InsertOrReplace operations), so a batch written again after a crash
 * leaves the same entities; a single entity is a PUT of its own.
 */
#include "copy.h"
#include "http.h"
#include "jsonl.h"
#include "mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAGE_ACCEPT "application/json;odata=fullmetadata"

typedef struct TableEndpoint
{
	Endpoint	base;
	Http	   *http;
	HttpResponse resp;
	StringInfoData body;		/* request bodies (malloc'd) */
	StringInfoData entity;		/* one entity's JSON */
	unsigned	boundary;
} TableEndpoint;

struct Reader
{
	TableEndpoint *ep;
	char	   *table;
	char	   *filter;			/* the whole $filter, or NULL */
	bool		keys_only;
	char	   *page;			/* the current page's body (malloc'd) */
	size_t		page_len;
	JsonLex		lx;				/* inside the page's "value" array */
	TsError		lx_err;
	bool		in_array;
	char	   *next_pk;		/* continuation of the next page, NULL: none */
	char	   *next_rk;
	bool		last_page;
	int			top;			/* entities asked per page: 1000, fewer after an answer too large */
	KeyOrder	order;			/* the entities must come in key order, each once */
};

#define PAGE_TOP 1000

static const EndpointOps table_ops;

Endpoint *
ep_table_open(const EndpointSpec *spec, CopyError *e)
{
	TableEndpoint *ep = mem_alloc(sizeof(TableEndpoint));

	memset(ep, 0, sizeof(*ep));
	ep->base.ops = &table_ops;
	ep->base.spec = spec;
	ep->http = http_new(spec, e);
	if (ep->http == NULL)
	{
		free(ep);
		return NULL;
	}
	mem_string_init(&ep->body);
	mem_string_init(&ep->entity);
	ep->boundary = (unsigned) random();
	return &ep->base;
}

static void
table_close(Endpoint *base)
{
	TableEndpoint *ep = (TableEndpoint *) base;

	http_free(ep->http);
	free(ep->resp.next_pk);
	free(ep->resp.next_rk);
	free(ep->resp.next_table);
	pfree(ep->body.data);
	pfree(ep->entity.data);
	free(ep);
}

/* OData string literal: 'it''s' */
static void
append_odata_string(StringInfo s, const char *v, size_t len)
{
	appendStringInfoChar(s, '\'');
	for (size_t i = 0; i < len; i++)
	{
		if (v[i] == '\'')
			appendStringInfoChar(s, '\'');
		appendStringInfoChar(s, v[i]);
	}
	appendStringInfoChar(s, '\'');
}

/* the resource of one entity: /t(PartitionKey='..',RowKey='..'), keys quoted then encoded */
static void
append_entity_resource(StringInfo s, const char *table, const char *pk, size_t pk_len, const char *rk, size_t rk_len)
{
	StringInfoData q;

	mem_string_init(&q);
	appendStringInfo(s, "/%s(PartitionKey=%%27", table);
	for (size_t i = 0; i < pk_len; i++)
	{
		if (pk[i] == '\'')
			appendStringInfoChar(&q, '\'');
		appendStringInfoChar(&q, pk[i]);
	}
	http_append_encoded(s, q.data, q.len);
	appendStringInfoString(s, "%27,RowKey=%27");
	resetStringInfo(&q);
	for (size_t i = 0; i < rk_len; i++)
	{
		if (rk[i] == '\'')
			appendStringInfoChar(&q, '\'');
		appendStringInfoChar(&q, rk[i]);
	}
	http_append_encoded(s, q.data, q.len);
	appendStringInfoString(s, "%27)");
	pfree(q.data);
}

/* Step the lexer into the page's "value" array (members before it are skipped). */
static bool
enter_value_array(Reader *r, CopyError *e)
{
	JsonToken	t,
				name;

	memset(&r->lx_err, 0, sizeof(r->lx_err));
	json_lex_init(&r->lx, r->page, r->page_len, &r->lx_err, TSE_INVALID_JSON, "the endpoint's page");
	if (!json_expect(&r->lx, &t, JT_LBRACE, "a JSON object was expected"))
		return copy_fail(e, "%s", r->lx_err.msg);
	for (bool first = true;;)
	{
		if (!json_next_member(&r->lx, &first, &name, false))
			return copy_fail(e, "%s", r->lx_err.msg);
		if (name.kind == JT_RBRACE)
			return copy_fail(e, "the endpoint's page has no \"value\" array");
		if (name.len == 5 && memcmp(name.p, "value", 5) == 0)
		{
			if (!json_expect(&r->lx, &t, JT_LBRACKET, "an array was expected"))
				return copy_fail(e, "%s", r->lx_err.msg);
			r->in_array = true;
			return true;
		}
		if (!json_skip_value(&r->lx, JSON_MAX_DEPTH, NULL))
			return copy_fail(e, "%s", r->lx_err.msg);
	}
}

/* GET the next page */
static bool
fetch_page(Reader *r, CopyError *e)
{
	StringInfoData query,
				res;
	bool		ok;

again:
	mem_string_init(&query);
	mem_string_init(&res);
	appendStringInfo(&res, "/%s()", r->table);
	appendStringInfo(&query, "%%24top=%d", r->top);
	if (r->filter)
	{
		appendStringInfoString(&query, "&%24filter=");
		http_append_encoded(&query, r->filter, strlen(r->filter));
	}
	if (r->keys_only)
		appendStringInfoString(&query, "&%24select=PartitionKey%2CRowKey");
	if (r->next_pk)
	{
		appendStringInfoString(&query, "&NextPartitionKey=");
		http_append_encoded(&query, r->next_pk, strlen(r->next_pk));
		if (r->next_rk)
		{
			appendStringInfoString(&query, "&NextRowKey=");
			http_append_encoded(&query, r->next_rk, strlen(r->next_rk));
		}
	}
	ok = http_request(r->ep->http, "GET", res.data, query.data, NULL, NULL, PAGE_ACCEPT, NULL, 0, &r->ep->resp, e);
	pfree(query.data);
	pfree(res.data);
	if (!ok && r->ep->resp.too_large && r->top > 1)
	{
		/* a page of large entities: ask for fewer (an answer is read whole, HTTP_MAX_BODY at most) */
		r->top = r->top / 4 > 1 ? r->top / 4 : 1;
		goto again;
	}
	if (!ok)
		return false;
	if (r->ep->resp.status != 200)
		return http_fail(e, &r->ep->resp, "cannot read the table");
	/* the same continuation again would read the same page for ever */
	if (r->ep->resp.next_pk != NULL && r->next_pk != NULL && strcmp(r->ep->resp.next_pk, r->next_pk) == 0 &&
		((r->ep->resp.next_rk == NULL && r->next_rk == NULL) ||
		 (r->ep->resp.next_rk != NULL && r->next_rk != NULL && strcmp(r->ep->resp.next_rk, r->next_rk) == 0)))
		return copy_fail(e, "the endpoint answers the continuation it was given: it would read the same page for ever");
	free(r->page);
	r->page = mem_strndup(r->ep->resp.body, r->ep->resp.len);
	r->page_len = r->ep->resp.len;
	free(r->next_pk);
	free(r->next_rk);
	r->next_pk = r->ep->resp.next_pk;
	r->next_rk = r->ep->resp.next_rk;
	r->ep->resp.next_pk = r->ep->resp.next_rk = NULL;
	r->last_page = r->next_pk == NULL;
	return enter_value_array(r, e);
}

static Reader *
table_open_reader(Endpoint *base, const ReadSpec *spec, CopyError *e)
{
	TableEndpoint *ep = (TableEndpoint *) base;
	Reader	   *r = mem_alloc(sizeof(Reader));
	StringInfoData f;
	const char *and = "";

	memset(r, 0, sizeof(*r));
	r->ep = ep;
	r->top = PAGE_TOP;
	r->table = mem_strdup(spec->table);
	r->keys_only = spec->keys_only;
	mem_string_init(&f);
	if (spec->filter)
	{
		appendStringInfo(&f, "(%s)", spec->filter);
		and = " and ";
	}
	if (spec->has_after)
	{
		appendStringInfo(&f, "%s((PartitionKey eq ", and);
		append_odata_string(&f, spec->after_pk, spec->after_pk_len);
		appendStringInfoString(&f, " and RowKey gt ");
		append_odata_string(&f, spec->after_rk, spec->after_rk_len);
		appendStringInfoString(&f, ") or PartitionKey gt ");
		append_odata_string(&f, spec->after_pk, spec->after_pk_len);
		appendStringInfoChar(&f, ')');
		and = " and ";
	}
	if (spec->lo_pk)
	{
		appendStringInfo(&f, "%sPartitionKey ge ", and);
		append_odata_string(&f, spec->lo_pk, strlen(spec->lo_pk));
		and = " and ";
	}
	if (spec->hi_pk)
	{
		appendStringInfo(&f, "%sPartitionKey lt ", and);
		append_odata_string(&f, spec->hi_pk, strlen(spec->hi_pk));
		and = " and ";
	}
	if (spec->since_ticks > 0)
	{
		char		dt[EDM_DATETIME_TEXT_LEN + 1];

		edm_format_datetime_trimmed(spec->since_ticks, dt);
		appendStringInfo(&f, "%sTimestamp ge datetime'%s'", and, dt);
	}
	r->filter = f.len > 0 ? mem_strdup(f.data) : NULL;
	pfree(f.data);
	if (!fetch_page(r, e))
	{
		free(r->table);
		free(r->filter);
		free(r->page);
		free(r->next_pk);
		free(r->next_rk);
		free(r);
		return NULL;
	}
	return r;
}

static int
table_read(Reader *r, Record *out, CopyError *e)
{
	for (;;)
	{
		JsonToken	t;
		size_t		start;
		char		c;

		if (!r->in_array)
		{
			if (r->last_page)
				return 0;
			if (!fetch_page(r, e))
				return -1;
		}
		c = json_peek(&r->lx);
		if (c == ']')
		{
			r->in_array = false;
			continue;
		}
		if (c == ',')
			r->lx.i++;
		start = r->lx.i;
		json_skip_ws(&r->lx);
		start = r->lx.i;
		if (!json_skip_value(&r->lx, 2, NULL))
			return copy_fail(e, "the endpoint's page is not JSON: %s", r->lx_err.msg), -1;
		{
			TsError		err = {0};
			const char *obj = r->page + start;
			size_t		len = r->lx.i - start;

			if (!record_from_json(obj, len, out, &err))
			{
				copy_fail(e, "an entity of the table cannot be read: %s", err.msg);
				snprintf(e->code, sizeof(e->code), "%s", ts_error_service_code(err.code));
				e->raw = obj;
				e->raw_len = len;
				return READ_BAD_RECORD;
			}
		}
		(void) t;
		if (!key_order_next(&r->order, out))
			return copy_fail(e, "the endpoint's entities are not in key order (PartitionKey \"%.*s\", RowKey \"%.*s\" again or out of order): it repeats itself or skips back",
							 (int) Min(out->pk_len, 100), out->pk, (int) Min(out->rk_len, 100), out->rk), -1;
		if (r->keys_only)
			out->body = NULL;
		return 1;
	}
}

static void
table_close_reader(Reader *r)
{
	if (r == NULL)
		return;
	free(r->table);
	free(r->filter);
	free(r->page);
	free(r->next_pk);
	free(r->next_rk);
	key_order_free(&r->order);
	free(r);
}

/* table names from GET /Tables pages */
static bool
table_list_tables(Endpoint *base, void (*add) (void *, const char *), void *arg, CopyError *e)
{
	TableEndpoint *ep = (TableEndpoint *) base;
	char	   *next = NULL;

	do
	{
		StringInfoData q;
		JsonLex		lx;
		TsError		err = {0};
		JsonToken	t;
		bool		ok;

		mem_string_init(&q);
		if (next)
		{
			appendStringInfoString(&q, "NextTableName=");
			http_append_encoded(&q, next, strlen(next));
		}
		ok = http_request(ep->http, "GET", "/Tables", next ? q.data : NULL, NULL, NULL,
						  "application/json;odata=nometadata", NULL, 0, &ep->resp, e);
		pfree(q.data);
		if (!ok || ep->resp.status != 200)
		{
			free(next);
			return ok ? http_fail(e, &ep->resp, "cannot list the tables") : false;
		}
		if (next != NULL && ep->resp.next_table != NULL && strcmp(next, ep->resp.next_table) == 0)
		{
			free(next);
			return copy_fail(e, "the endpoint answers the table list's continuation it was given: it would list the same tables for ever");
		}
		free(next);
		next = ep->resp.next_table;
		ep->resp.next_table = NULL;
		/* {"value":[{"TableName":"a"},...]} */
		json_lex_init(&lx, ep->resp.body, ep->resp.len, &err, TSE_INVALID_JSON, "the table list");
		{
			const char *v = strstr(ep->resp.body, "\"value\"");

			if (v == NULL || (v = strchr(v, '[')) == NULL)
			{
				free(next);
				return copy_fail(e, "the endpoint's table list has no \"value\" array");
			}
			lx.i = (size_t) (v - ep->resp.body) + 1;
		}
		for (;;)
		{
			size_t		start;
			JFlat		f;
			char	   *name;

			if (json_peek(&lx) == ',')
				lx.i++;
			if (json_peek(&lx) == ']' || json_peek(&lx) == '\0')
				break;
			json_skip_ws(&lx);
			start = lx.i;
			if (!json_skip_value(&lx, 2, NULL) || !jflat_parse(ep->resp.body + start, lx.i - start, &f, &err) ||
				(name = jflat_str(&f, "TableName")) == NULL)
			{
				free(next);
				return copy_fail(e, "the endpoint's table list cannot be read: %s", err.msg);
			}
			add(arg, name);
			free(name);
		}
		(void) t;
	} while (next != NULL);
	return true;
}

static int
table_table_exists(Endpoint *base, const char *table, CopyError *e)
{
	TableEndpoint *ep = (TableEndpoint *) base;
	char		res[128];

	snprintf(res, sizeof(res), "/Tables(%%27%s%%27)", table);
	if (!http_request(ep->http, "GET", res, NULL, NULL, NULL, "application/json;odata=nometadata", NULL, 0, &ep->resp, e))
		return -1;
	if (ep->resp.status == 200)
		return 1;
	if (ep->resp.status == 404)
		return 0;
	/* a SAS for one table's entities cannot ask: take it as there */
	if (ep->resp.status == 403 && base->spec->sas)
		return 1;
	http_fail(e, &ep->resp, "cannot look the table up");
	return -1;
}

static bool
table_create_table(Endpoint *base, const char *table, CopyError *e)
{
	TableEndpoint *ep = (TableEndpoint *) base;
	char		body[128];

	snprintf(body, sizeof(body), "{\"TableName\":\"%s\"}", table);
	if (!http_request(ep->http, "POST", "/Tables", NULL, NULL, "application/json", "application/json;odata=nometadata",
					  body, strlen(body), &ep->resp, e))
		return false;
	if (ep->resp.status == 201 || ep->resp.status == 204 || ep->resp.status == 409)
		return true;
	return http_fail(e, &ep->resp, "cannot create the table");
}

/* one entity's body: every typed property annotated */
static void
entity_body(TableEndpoint *ep, const Record *r)
{
	resetStringInfo(&ep->entity);
	record_append_json(&ep->entity, r, REC_JSON_KEYS);
}

/* a single InsertOrReplace */
static WriteResult
put_one(TableEndpoint *ep, const char *table, const Record *r, CopyError *e)
{
	StringInfoData res;
	bool		ok;

	mem_string_init(&res);
	append_entity_resource(&res, table, r->pk, r->pk_len, r->rk, r->rk_len);
	entity_body(ep, r);
	ok = http_request(ep->http, "PUT", res.data, NULL, NULL, "application/json", "application/json;odata=nometadata",
					  ep->entity.data, ep->entity.len, &ep->resp, e);
	pfree(res.data);
	if (!ok)
		return WRITE_FAILED;
	if (ep->resp.status == 204 || ep->resp.status == 200 || ep->resp.status == 201)
		return WRITE_OK;
	http_fail(e, &ep->resp, "the destination refused the entity");
	/* an error of the request itself (credentials, the table gone) stops the run */
	return ep->resp.status == 400 || ep->resp.status == 409 || ep->resp.status == 413 || ep->resp.status == 412 ?
		WRITE_REFUSED : WRITE_FAILED;
}

/* the status of each part of a $batch answer: the first failing one into e; true when all 2xx */
static bool
batch_answer_ok(TableEndpoint *ep, CopyError *e)
{
	const char *p = ep->resp.body;
	bool		ok = true;

	while ((p = strstr(p, "HTTP/1.1 ")) != NULL)
	{
		long		status = strtol(p + 9, NULL, 10);

		p += 9;
		if (status >= 300 && ok)
		{
			HttpResponse part = {0};

			part.status = status;
			part.body = (char *) p;
			{
				/* the part's error body follows its headers */
				const char *code = strstr(p, "\"code\"");
				const char *msg = strstr(p, "\"value\"");

				if (code)
				{
					code = strchr(code + 6, '"');
					if (code)
						snprintf(part.error_code, sizeof(part.error_code), "%.*s", (int) strcspn(code + 1, "\""), code + 1);
				}
				if (msg)
				{
					msg = strchr(msg + 7, '"');
					if (msg)
						snprintf(part.error_message, sizeof(part.error_message), "%.*s",
								 (int) (strcspn(msg + 1, "\"") < 500 ? strcspn(msg + 1, "\"") : 500), msg + 1);
					http_strip_signatures(part.error_message);
				}
			}
			http_fail(e, &part, "the destination refused the batch");
			ok = false;
		}
	}
	return ok;
}

static WriteResult
table_write_batch(Endpoint *base, const WriteSpec *spec, const Record *recs, int n, CopyError *e)
{
	TableEndpoint *ep = (TableEndpoint *) base;
	char		batch[64],
				changeset[64],
				ctype[128];
	StringInfo	b = &ep->body;

	if (n == 1)
		return put_one(ep, spec->table, &recs[0], e);
	ep->boundary++;
	snprintf(batch, sizeof(batch), "batch_%08x-copy", ep->boundary);
	snprintf(changeset, sizeof(changeset), "changeset_%08x-copy", ep->boundary);
	resetStringInfo(b);
	appendStringInfo(b, "--%s\r\nContent-Type: multipart/mixed; boundary=%s\r\n\r\n", batch, changeset);
	for (int i = 0; i < n; i++)
	{
		appendStringInfo(b, "--%s\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\nPUT %s",
						 changeset, http_base(ep->http));
		append_entity_resource(b, spec->table, recs[i].pk, recs[i].pk_len, recs[i].rk, recs[i].rk_len);
		appendStringInfoString(b, " HTTP/1.1\r\nContent-Type: application/json\r\nAccept: application/json;odata=nometadata\r\n"
							   "DataServiceVersion: 3.0;\r\n\r\n");
		entity_body(ep, &recs[i]);
		appendBinaryStringInfo(b, ep->entity.data, ep->entity.len);
		appendStringInfoString(b, "\r\n");
	}
	appendStringInfo(b, "--%s--\r\n\r\n--%s--\r\n", changeset, batch);
	snprintf(ctype, sizeof(ctype), "multipart/mixed; boundary=%s", batch);
	if (!http_request(ep->http, "POST", "/$batch", NULL, NULL, ctype, "application/json;odata=nometadata", b->data, b->len,
					  &ep->resp, e))
		return WRITE_FAILED;
	if (ep->resp.status == 202)
		return batch_answer_ok(ep, e) ? WRITE_OK : WRITE_REFUSED;
	http_fail(e, &ep->resp, "the destination refused the batch");
	return ep->resp.status == 400 || ep->resp.status == 413 || ep->resp.status == 409 ? WRITE_REFUSED : WRITE_FAILED;
}

static int
table_exists_entity(Endpoint *base, const char *table, const char *pk, const char *rk, CopyError *e)
{
	TableEndpoint *ep = (TableEndpoint *) base;
	StringInfoData res;
	bool		ok;

	mem_string_init(&res);
	append_entity_resource(&res, table, pk, strlen(pk), rk, strlen(rk));
	ok = http_request(ep->http, "GET", res.data, "%24select=RowKey", NULL, NULL, "application/json;odata=nometadata", NULL, 0,
					  &ep->resp, e);
	pfree(res.data);
	if (!ok)
		return -1;
	if (ep->resp.status == 200)
		return 1;
	if (ep->resp.status == 404)
		return 0;
	http_fail(e, &ep->resp, "cannot read an entity");
	return -1;
}

static bool
table_delete_keys(Endpoint *base, const char *table, const Record *recs, int n, CopyError *e)
{
	TableEndpoint *ep = (TableEndpoint *) base;

	/* one DELETE each: a key deleted meanwhile (404) must not fail the others, as in a batch */
	for (int i = 0; i < n; i++)
	{
		StringInfoData res;
		bool		ok;
		struct curl_slist;

		mem_string_init(&res);
		append_entity_resource(&res, table, recs[i].pk, recs[i].pk_len, recs[i].rk, recs[i].rk_len);
		ok = http_request(ep->http, "DELETE", res.data, NULL, NULL, NULL, "application/json;odata=nometadata", NULL, 0,
						  &ep->resp, e);
		pfree(res.data);
		if (!ok)
			return false;
		if (ep->resp.status != 204 && ep->resp.status != 404)
			return http_fail(e, &ep->resp, "cannot delete an entity");
	}
	return true;
}

static bool
table_get_acl(Endpoint *base, const char *table, char **xml, CopyError *e)
{
	TableEndpoint *ep = (TableEndpoint *) base;
	char		res[128];

	*xml = NULL;
	snprintf(res, sizeof(res), "/%s", table);
	if (!http_request(ep->http, "GET", res, "comp=acl", "acl", NULL, "application/xml", NULL, 0, &ep->resp, e))
		return false;
	if (ep->resp.status != 200)
		return http_fail(e, &ep->resp, "cannot read the table's access policies");
	*xml = mem_strndup(ep->resp.body, ep->resp.len);
	return true;
}

static bool
table_set_acl(Endpoint *base, const char *table, const char *xml, CopyError *e)
{
	TableEndpoint *ep = (TableEndpoint *) base;
	char		res[128];

	snprintf(res, sizeof(res), "/%s", table);
	if (!http_request(ep->http, "PUT", res, "comp=acl", "acl", "application/xml", "application/xml", xml, strlen(xml),
					  &ep->resp, e))
		return false;
	if (ep->resp.status != 204 && ep->resp.status != 200)
		return http_fail(e, &ep->resp, "cannot set the table's access policies");
	return true;
}

static const EndpointOps table_ops = {
	.kind = "table endpoint",
	.list_tables = table_list_tables,
	.table_exists = table_table_exists,
	.create_table = table_create_table,
	.open_reader = table_open_reader,
	.read = table_read,
	.close_reader = table_close_reader,
	.write_batch = table_write_batch,
	.exists = table_exists_entity,
	.delete_keys = table_delete_keys,
	.get_acl = table_get_acl,
	.set_acl = table_set_acl,
	.close = table_close,
};
