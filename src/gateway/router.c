/*
 * router.c - from method and target to a handler: X-HTTP-Method tunnelling, the addressed account,
 * the metadata level (Accept or $format; Atom refused), authentication (Shared Key, or a shared
 * access signature and what it allows the request to do), the base URL used in odata.metadata,
 * and the route table.
 */
#include "gateway.h"
#include "sqlapi.h"

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

/* Metadata level from $format, else Accept. false: 400 (an unknown $format) or 415 answered. */
static bool
negotiate(Req *r)
{
	const char *f = query_get(&r->target.query, "$format");
	bool		atom = false;

	r->meta = META_MINIMAL;
	if (f && *f == '\0')
		f = NULL;				/* $format= says nothing */
	if (f && ascii_ieq(f, "json"))
		return true;
	/* $format names a JSON level (read as an Accept is), or Atom, which is refused; nothing else */
	if (f && (ascii_ieq(f, "atom") || ascii_ieq(f, "xml")))
		atom = true;
	else if (f && !ascii_nieq(f, "application/json", 16) && !ascii_nieq(f, "application/atom+xml", 20) &&
			 !ascii_nieq(f, "application/xml", 15))
	{
		resp_error(r, "InvalidQueryParameterValue",
				   "Value for one of the query parameters specified in the request URI is invalid: $format must be json or application/json;odata=nometadata, minimalmetadata or fullmetadata.");
		return false;
	}
	if (atom || !meta_of_accept(f ? f : r->accept, &r->meta))
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

/* The SAS's key range as a text[] literal: {"spk","srk",NULL,NULL}, elements quoted and escaped. */
static const char *
scope_literal(Req *r, const Sas *sas)
{
	const char *b[4] = {sas->spk, sas->srk, sas->epk, sas->erk};
	Buf			lit;
	char	   *out;

	if (!b[0] && !b[1] && !b[2] && !b[3])
		return NULL;
	buf_init(&lit);
	buf_puts(&lit, "{");
	for (int i = 0; i < 4; i++)
	{
		if (i > 0)
			buf_puts(&lit, ",");
		if (b[i] == NULL)
		{
			buf_puts(&lit, "NULL");
			continue;
		}
		buf_puts(&lit, "\"");
		for (const char *p = b[i]; *p; p++)
		{
			if (*p == '"' || *p == '\\')
				buf_puts(&lit, "\\");
			buf_append(&lit, p, 1);
		}
		buf_puts(&lit, "\"");
	}
	buf_puts(&lit, "}");
	out = lit.failed ? NULL : arena_strdup(&r->arena, lit.data);
	buf_free(&lit);
	return out;
}

static void
sas_refuse(Req *r, SasResult res)
{
	resp_error(r, sas_result_code(res),
			   "Server failed to authenticate the request. Make sure the value of Authorization header is formed correctly including the signature. (%s)",
			   sas_result_text(res));
}

/*
 * The stored access policy a verified SAS names (si), read for every request, so that deleting
 * the policy revokes its tokens at once. false: answered.
 */
static bool
sas_with_policy(Req *r, const SasInput *in)
{
	const char *params[2] = {query_get(in->query, "tn"), query_get(in->query, "si")};
	SqlError	err;
	PGresult   *res = sql_call(r, SQL_GET_POLICY, params, &err);
	SasPolicy	policy = {0};
	SasResult	sr;

	if (res == NULL)
	{
		if (err.status == 404 || err.status == 400)
			sas_refuse(r, SAS_POLICY_NOT_FOUND);	/* no such table: nothing to authorize */
		else
			sql_error_respond(r, &err);
		return false;
	}
	if (PQntuples(res) != 1)
	{
		PQclear(res);
		sas_refuse(r, SAS_POLICY_NOT_FOUND);
		return false;
	}
	policy.start = sql_field(r, res, 0, 0);
	policy.expiry = sql_field(r, res, 0, 1);
	policy.permission = sql_field(r, res, 0, 2);
	PQclear(res);
	sr = sas_verify(in, &r->account->keys, &policy, &r->sas_storage);
	if (sr != SAS_OK)
	{
		sas_refuse(r, sr);
		return false;
	}
	return true;
}

static bool
authenticate_sas(Req *r)
{
	SasInput	in = {0};
	SasResult	res;

	in.query = &r->target.query;
	in.account = r->account->name;
	in.client_ip = r->client_ip[0] ? r->client_ip : NULL;
	in.https = gw_config.tls_cert != NULL;	/* the listener speaks one protocol */
	in.now = time(NULL);
	res = sas_verify(&in, &r->account->keys, NULL, &r->sas_storage);
	if (res == SAS_POLICY_NEEDED)
	{
		if (!sas_with_policy(r, &in))
			return false;
	}
	else if (res != SAS_OK)
	{
		sas_refuse(r, res);
		return false;
	}
	r->sas = &r->sas_storage;
	r->key_scope = scope_literal(r, r->sas);
	if (r->sas->kind == SAS_SERVICE && r->key_scope == NULL && (r->sas->spk || r->sas->epk))
	{
		resp_error(r, "ServerBusy", "out of memory");
		return false;
	}
	return true;
}

/* A bearer token (--oauth basic, HTTPS only); one that passes grants what the account key grants. */
static bool
authenticate_bearer(Req *r)
{
	OAuthResult res;

	if (!gw_config.oauth)
	{
		resp_error(r, "AuthenticationFailed",
				   "Server failed to authenticate the request. Bearer tokens are not accepted by this gateway (start it with --oauth basic and HTTPS).");
		return false;
	}
	res = oauth_check(r->authorization, r->account->name, time(NULL), &gw_config.token_trust);
	if (res == OAUTH_OK)
		return true;
	resp_error(r, "InvalidAuthenticationInfo", "Server failed to authenticate the request. %s.", oauth_result_text(res));
	resp_header(r, "WWW-Authenticate",
				"Bearer authorization_uri=https://login.microsoftonline.com/common/oauth2/authorize resource_id=https://storage.azure.com");
	return false;
}

static bool
authenticate(Req *r)
{
	AuthInput	in = {0};
	AuthResult	res;

	r->sas = NULL;
	r->key_scope = NULL;
	if (r->authorization == NULL && query_has(&r->target.query, "sig"))
		return authenticate_sas(r);
	if (oauth_is_bearer(r->authorization))
		return authenticate_bearer(r);
	in.method = r->method;
	in.authorization = r->authorization;
	in.content_md5 = r->content_md5;
	in.content_type = r->content_type;
	in.x_ms_date = r->x_ms_date;
	in.date = r->date;
	in.account = r->account->name;
	in.raw_path = r->target.raw_path;
	in.comp = query_get(&r->target.query, "comp");
	in.now = time(NULL);
	res = auth_check(&in, &r->account->keys);
	if (res == AUTH_OK)
		return true;
	resp_error(r, "AuthenticationFailed",
			   "Server failed to authenticate the request. Make sure the value of the Authorization header is formed correctly including the signature. (%s)",
			   auth_result_text(res));
	return false;
}

bool
router_sas_allows(Req *r, SasOp op, const char *table)
{
	const char *why = NULL;
	const char *code;

	if (r->sas == NULL)
		return true;
	code = sas_allows(r->sas, op, table, &why);
	if (code == NULL)
		return true;
	resp_error(r, code, "%s", why);
	return false;
}

/* What the request does, for a SAS's permission check; false when no route takes it. */
static bool
sas_op_of(const Req *r, SasOp *op)
{
	bool		get = verb_is(r, "GET");

	switch (r->target.kind)
	{
		case RES_SERVICE:
			*op = get ? SOP_SERVICE_READ : SOP_SERVICE_WRITE;
			return true;
		case RES_TABLES:
			*op = get ? SOP_QUERY_TABLES : SOP_CREATE_TABLE;
			return true;
		case RES_TABLES_ONE:
			*op = get ? SOP_QUERY_TABLES : SOP_DELETE_TABLE;
			return true;
		case RES_TABLE:
			*op = r->xml ? SOP_TABLE_ACL : get ? SOP_QUERY_ENTITIES : SOP_INSERT;
			return true;
		case RES_ENTITY:
			if (get)
				*op = SOP_GET_ENTITY;
			else if (verb_is(r, "DELETE"))
				*op = SOP_DELETE_ENTITY;
			else
				*op = r->if_match ? SOP_UPDATE : SOP_UPSERT;
			return true;
		case RES_BATCH:
			*op = SOP_BATCH;
			return true;
	}
	return false;
}

static void
set_base(Req *r)
{
	const char *host = r->host;

	if (host == NULL || strlen(host) > 255 || strpbrk(host, " \"'<>\\/") != NULL)
		host = arena_printf(&r->arena, "%s:%d", gw_config.listen_addr, gw_config.port);
	if (r->target.host_style)
		r->base = arena_printf(&r->arena, "%s://%s", gw_config.tls_cert ? "https" : "http", host);
	else
		r->base = arena_printf(&r->arena, "%s://%s/%s", gw_config.tls_cert ? "https" : "http", host, r->account->name);
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

static void route(Req *r);

void
router_dispatch(Req *r)
{
	route(r);
	/* CORS headers on every answer to a request with Origin, errors included */
	if (r->origin != NULL && r->account != NULL && strcmp(r->method, "OPTIONS") != 0)
		cors_actual(r);
}

static void
route(Req *r)
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
	r->xml = r->target.kind == RES_SERVICE ||
		(comp && strcmp(comp, "acl") == 0 && r->target.kind == RES_TABLE && !r->target.table_parens);
	if (r->account == NULL)
	{
		resp_error(r, "AuthenticationFailed", "The account addressed by the request does not exist on this server.");
		return;
	}
	/* ?comp= names a sub-resource: a table's acl, or the account's (service.c); nothing else has one */
	if (comp && r->target.kind != RES_SERVICE && !r->xml)
	{
		resp_error(r, "InvalidQueryParameterValue",
				   "Value for one of the query parameters specified in the request URI is invalid: comp (only a table has ?comp=acl).");
		return;
	}
	if (strcmp(r->method, "OPTIONS") == 0)
	{
		cors_preflight(r);		/* before authentication: browsers send no credentials */
		return;
	}
	if (!r->xml && !negotiate(r))
		return;
	if (!authenticate(r))
		return;
	if (r->sas != NULL)
	{
		SasOp		op;

		if (sas_op_of(r, &op) &&
			!router_sas_allows(r, op, (r->target.kind == RES_TABLES_ONE || r->target.kind == RES_TABLE ||
									   r->target.kind == RES_ENTITY) ? r->target.table : NULL))
			return;
	}
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
				acl_handle(r);	/* ?comp=acl */
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
