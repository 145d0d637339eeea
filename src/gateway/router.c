/*
 * router.c - from method and target to a handler: X-HTTP-Method tunnelling, the addressed account,
 * the metadata level (Accept or $format; Atom refused), authentication, the base URL used in
 * odata.metadata, and the route table.
 */
#include "gateway.h"

#include <string.h>
#include <time.h>

static bool
is_account_cb(const char *name, size_t len, void *cls)
{
	(void) cls;
	return config_find_account(name, len) != NULL;
}

static bool
verb_is(const Req *r, const char *v)
{
	return strcmp(r->verb, v) == 0;
}

/* Metadata level from $format, else Accept. false: 415 answered. */
static bool
negotiate(Req *r)
{
	const char *f = query_get(&r->target.query, "$format");
	const char *a = f ? f : r->accept;

	r->meta = META_MINIMAL;
	if (f && (strcmp(f, "json") == 0))
		return true;
	if (a == NULL)
		return true;
	if (strstr(a, "odata=nometadata"))
		r->meta = META_NONE;
	else if (strstr(a, "odata=fullmetadata"))
		r->meta = META_FULL;
	else if (strstr(a, "odata=minimalmetadata"))
		r->meta = META_MINIMAL;
	else if ((strstr(a, "application/atom+xml") || strstr(a, "application/xml")) && !strstr(a, "json") &&
			 !strstr(a, "*/*"))
	{
		resp_error(r, "AtomFormatNotSupported", "Atom format is not supported; use application/json.");
		return false;
	}
	return true;
}

static bool
content_is_atom(const Req *r)
{
	return r->content_type && (strstr(r->content_type, "atom+xml") != NULL);
}

static bool
authenticate(Req *r)
{
	AuthInput	in = {0};
	AuthResult	res;

	in.method = r->method;
	in.authorization = r->authorization;
	in.content_md5 = r->content_md5;
	in.content_type = r->content_type;
	in.x_ms_date = r->x_ms_date;
	in.date = r->date;
	in.account = r->account->name;
	in.raw_path = r->target.raw_path;
	in.comp = query_get(&r->target.query, "comp");
	in.has_sig_param = query_has(&r->target.query, "sig");
	in.now = time(NULL);
	res = auth_check(&in, &r->account->keys);
	if (res == AUTH_OK)
		return true;
	resp_error(r, "AuthenticationFailed",
			   "Server failed to authenticate the request. Make sure the value of the Authorization header is formed correctly including the signature. (%s)",
			   auth_result_text(res));
	return false;
}

static void
set_base(Req *r)
{
	const char *host = r->host;

	if (host == NULL || strlen(host) > 255 || strpbrk(host, " \"'<>\\/") != NULL)
		host = arena_printf(&r->arena, "%s:%d", gw_config.listen_addr, gw_config.port);
	if (r->target.host_style)
		r->base = arena_printf(&r->arena, "http://%s", host);
	else
		r->base = arena_printf(&r->arena, "http://%s/%s", host, r->account->name);
}

static void
unsupported_verb(Req *r)
{
	resp_error(r, "UnsupportedHttpVerb", "The resource doesn't support the specified HTTP verb %s.", r->verb);
	resp_header(r, "Allow", r->target.kind == RES_ENTITY ? "GET, PUT, MERGE, PATCH, DELETE" :
				r->target.kind == RES_TABLE ? "GET, POST" :
				r->target.kind == RES_TABLES ? "GET, POST" :
				r->target.kind == RES_TABLES_ONE ? "GET, DELETE" : "POST");
}

void
router_dispatch(Req *r)
{
	const char *err = NULL;
	const char *comp;

	r->verb = r->method;
	r->meta = META_MINIMAL;
	if (r->x_http_method && strcmp(r->method, "POST") == 0)
	{
		if (strcmp(r->x_http_method, "MERGE") == 0 || strcmp(r->x_http_method, "DELETE") == 0 ||
			strcmp(r->x_http_method, "PUT") == 0 || strcmp(r->x_http_method, "PATCH") == 0)
			r->verb = arena_strdup(&r->arena, r->x_http_method);
		else
		{
			resp_error(r, "XHttpVerbNotSupported", "X-HTTP-Method must be MERGE, PATCH, PUT or DELETE.");
			return;
		}
	}
	r->target_ok = target_parse(&r->arena, r->raw_uri, strlen(r->raw_uri), r->host, is_account_cb, NULL,
								&r->target, &err);
	if (!r->target_ok)
	{
		resp_error(r, "InvalidUri", "The requested URI does not represent any resource on the server: %s.", err);
		return;
	}
	r->account = config_find_account(r->target.account, strlen(r->target.account));
	comp = query_get(&r->target.query, "comp");
	r->xml = r->target.kind == RES_SERVICE || (comp && strcmp(comp, "acl") == 0);
	if (r->account == NULL)
	{
		resp_error(r, "AuthenticationFailed", "The account addressed by the request does not exist on this server.");
		return;
	}
	if (!r->xml && !negotiate(r))
		return;
	if (!authenticate(r))
		return;
	set_base(r);
	if (!r->xml && content_is_atom(r))
	{
		resp_error(r, "AtomFormatNotSupported", "Atom format is not supported; use application/json.");
		return;
	}

	switch (r->target.kind)
	{
		case RES_SERVICE:
			service_handle(r);
			return;
		case RES_TABLES:
			if (verb_is(r, "GET") || verb_is(r, "POST"))
				tables_handle(r);
			else
				unsupported_verb(r);
			return;
		case RES_TABLES_ONE:
			if (verb_is(r, "GET") || verb_is(r, "DELETE"))
				tables_handle(r);
			else
				unsupported_verb(r);
			return;
		case RES_TABLE:
			if (r->xml)
				service_handle(r);	/* ?comp=acl */
			else if (verb_is(r, "GET") || (verb_is(r, "POST") && !r->target.table_parens))
				entities_handle(r);
			else
				unsupported_verb(r);
			return;
		case RES_ENTITY:
			if (verb_is(r, "GET") || verb_is(r, "PUT") || verb_is(r, "MERGE") || verb_is(r, "PATCH") ||
				verb_is(r, "DELETE"))
				entities_handle(r);
			else
				unsupported_verb(r);
			return;
		case RES_BATCH:
			if (verb_is(r, "POST"))
				batch_handle(r);
			else
				unsupported_verb(r);
			return;
	}
}
