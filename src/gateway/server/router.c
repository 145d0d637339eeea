/*
 * router.c - a request's way through the gateway, in the order listener.c calls it:
 *
 *   router_headers  as soon as the headers are in, before any of the body is read: x-ms-version,
 *                   X-HTTP-Method tunnelling, the addressed account and resource, the operation (ops.h's
 *                   table), the metadata level (Accept or $format), authentication (Shared Key,
 *                   a shared access signature's signature, a bearer token: all from the headers)
 *                   and authorization (what the SAS allows, the read-only -secondary endpoint).
 *                   A request refused here is answered without its body being read.
 *   router_body     once the body is in: Content-MD5 / x-ms-content-crc64 against it.
 *   router_run      the operation's handler, on one of the account's database workers when it
 *                   needs the database (worker.c); a SAS naming a stored access policy is checked
 *                   against the policy first.
 *   router_finish   the CORS headers of the answer.
 */
#include "gateway.h"
#include "props.h"
#include "version.h"

#include <openssl/evp.h>
#include <string.h>
#include <time.h>

/* the handlers, by operation: ops.h's table expanded with its handler column */
static void (*const handlers[OP__COUNT]) (Req *r) = {
#define GW_OP_HANDLER(id, name, res, verbs, ifm, handler, st, srt, any, all, tsas, batch, flags, pk) [id] = handler,
	GW_OPERATIONS(GW_OP_HANDLER)
#undef GW_OP_HANDLER
};

static bool
is_account_cb(const char *name, size_t len, void *cls)
{
	(void) cls;
	return config_find_account(name, len) != NULL;
}

/* Metadata level from $format, else Accept. false: 400 (an unknown $format) or 415 answered. */
static bool
negotiate(Req *r)
{
	const char *f = query_get(&r->target.query, "$format");
	const char *refused;

	r->meta = META_MINIMAL;
	if (f && *f == '\0')
		f = NULL;				/* $format= says nothing */
	if (f && ascii_ieq(f, "json"))
		return true;
	/* $format names a JSON level (read as an Accept is), or Atom, which is refused; nothing else */
	if (f && (ascii_ieq(f, "atom") || ascii_ieq(f, "xml")))
		refused = "AtomFormatNotSupported";
	else if (f && !ascii_nieq(f, "application/json", 16) && !ascii_nieq(f, "application/atom+xml", 20) &&
			 !ascii_nieq(f, "application/xml", 15))
	{
		resp_error(r, "InvalidQueryParameterValue",
				   "$format must be json or application/json;odata=nometadata, minimalmetadata or fullmetadata.");
		return false;
	}
	else
		refused = meta_of_accept(f ? f : r->accept, &r->meta);
	if (refused == NULL || (f == NULL && (r->op->flags & OPF_PART_ACCEPT)))
	{
		/* a $batch's own Accept (azure-storage 2.x sends Atom there): its parts' Accepts decide */
		if (refused != NULL)
			r->meta = META_MINIMAL;
		return true;
	}
	resp_error(r, refused, "Use application/json;odata=nometadata, minimalmetadata or fullmetadata.");
	return false;
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
	resp_error(r, sas_result_code(res), "%s.", sas_result_text(res));
}

static void
sas_input(Req *r, SasInput *in)
{
	memset(in, 0, sizeof(*in));
	in->query = &r->target.query;
	in->account = r->account->name;
	in->client_ip = r->client_ip[0] ? r->client_ip : NULL;
	in->https = gw_config.tls_cert != NULL;	/* the listener speaks one protocol */
	in->now = time(NULL);
}

/* What the verified SAS allows the operation; false: answered 403. */
static bool
sas_authorize(Req *r)
{
	const char *why = NULL;
	const char *code;
	unsigned	res = r->op->resources;
	const char *table = (res & (OPR_TABLES_ONE | OPR_TABLE | OPR_TABLE_PARENS | OPR_TABLE_ACL | OPR_TABLE_INDEXING | OPR_ENTITY)) ?
		r->target.table : NULL;

	r->key_scope = scope_literal(r, r->sas);
	if (r->sas->kind == SAS_SERVICE && r->key_scope == NULL && (r->sas->spk || r->sas->epk))
	{
		resp_error(r, "ServerBusy", "out of memory");
		return false;
	}
	code = sas_allows(r->sas, &r->op->sas, table, &why);
	if (code == NULL)
		return true;
	resp_error(r, code, "%s", why);
	return false;
}

/*
 * The stored access policy a verified SAS names (si), read for every request, so that deleting
 * the policy revokes its tokens at once. false: answered.
 */
static bool
sas_with_policy(Req *r)
{
	SasInput	in;
	const char *params[2];
	SqlError	err;
	PGresult   *res;
	SasPolicy	policy = {0};
	SasResult	sr;

	sas_input(r, &in);
	params[0] = query_get(in.query, "tn");
	params[1] = query_get(in.query, "si");
	res = sql_call(r, SQL_GET_POLICY, params, &err);
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
	sr = sas_verify(&in, &r->account->keys, &policy, &r->sas_storage);
	if (sr != SAS_OK)
	{
		sas_refuse(r, sr);
		return false;
	}
	r->sas = &r->sas_storage;
	r->sas_policy_pending = false;
	return sas_authorize(r);
}

/* A shared access signature, checked from the query alone (its policy, if any, later). */
static bool
authenticate_sas(Req *r)
{
	SasInput	in;
	SasResult	res;

	sas_input(r, &in);
	res = sas_verify(&in, &r->account->keys, NULL, &r->sas_storage);
	if (res == SAS_POLICY_NEEDED)
	{
		/* the signature is the account's: the policy's permissions and times come with the database */
		r->sas_policy_pending = true;
		return true;
	}
	if (res != SAS_OK)
	{
		sas_refuse(r, res);
		return false;
	}
	r->sas = &r->sas_storage;
	return sas_authorize(r);
}

/* A bearer token (--oauth basic, HTTPS only); one that passes grants what the account key grants. */
static bool
authenticate_bearer(Req *r)
{
	OAuthResult res;

	if (!gw_config.oauth)
	{
		resp_error(r, "AuthenticationFailed",
				   "Bearer tokens are not accepted by this gateway (start it with --oauth basic and HTTPS).");
		return false;
	}
	res = oauth_check(r->authorization, r->account->name, time(NULL), &gw_config.token_trust);
	if (res == OAUTH_OK)
		return true;
	resp_error(r, "InvalidAuthenticationInfo", "%s.", oauth_result_text(res));
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
	resp_error(r, "AuthenticationFailed", "%s.", auth_result_text(res));
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

/* X-HTTP-Method (ops_verb): POST tunnels MERGE, PATCH, PUT or DELETE. false: answered. */
static bool
tunnel(Req *r)
{
	const char *verb = ops_verb(r->method, r->x_http_method);

	if (verb == NULL)
	{
		r->verb = r->method;
		resp_error(r, "XHttpVerbNotSupported", "X-HTTP-Method must be MERGE, PATCH, PUT or DELETE.");
		return false;
	}
	r->verb = verb == r->method ? verb : arena_strdup(&r->arena, verb);
	return true;
}

/* The operation the verb names on the addressed resource. false: answered. */
static bool
find_operation(Req *r)
{
	const char *why = NULL;
	const char *allowed = NULL;
	OpResource	res = ops_resource(&r->target, query_get(&r->target.query, "restype"),
								   query_get(&r->target.query, "comp"), &why);

	if (res == OPR_NONE)
	{
		r->xml = r->target.kind == RES_SERVICE;
		resp_error(r, "InvalidQueryParameterValue", "%s", why);
		return false;
	}
	r->xml = (res & (OPR_SERVICE_PROPERTIES | OPR_SERVICE_STATS | OPR_TABLE_ACL)) != 0;
	r->op = ops_find(res, r->verb, r->if_match != NULL, &allowed);
	if (r->op != NULL)
		return true;
	resp_error(r, "UnsupportedHttpVerb", "The resource doesn't support the HTTP verb %s.", r->verb);
	if (allowed)
		resp_header(r, "Allow", allowed);
	return false;
}

/* Headers the operation requires or refuses. false: answered. */
static bool
operation_headers(Req *r)
{
	if (r->op->if_match == IFM_REQUIRED && r->if_match == NULL)
	{
		/* as the service: a delete says which version it removes, or '*' for any */
		resp_error(r, "MissingRequiredHeader", "If-Match.");
		return false;
	}
	if (r->if_match && !header_text_ok(r->if_match))
	{
		resp_error(r, "InvalidInput", "The If-Match header is not a valid ETag.");
		return false;
	}
	return true;
}

/*
 * x-ms-version, when sent, names a version the gateway accepts (version.h). false: answered 400
 * InvalidHeaderValue in XML with the header's name and (when short and printable) its value, as
 * the service answers before it reads anything else of the request.
 */
static bool
version_ok(Req *r)
{
	const char *v = r->x_ms_version;
	const char *fields[4] = {"HeaderName", "x-ms-version", "HeaderValue", v};
	bool		echo = v != NULL && strlen(v) <= 64;

	if (v == NULL || version_accepted(v, strlen(v)))
		return true;
	for (const char *p = v; echo && *p; p++)
		echo = *p >= 0x20 && *p < 0x7f;
	r->x_ms_version = NULL;		/* not echoed: the answer names the gateway's default */
	r->xml = true;
	resp_error_fields(r, "InvalidHeaderValue", NULL, fields, echo ? 4 : 2);
	return false;
}

bool
router_headers(Req *r)
{
	const char *err = NULL;

	r->meta = META_MINIMAL;
	if (!version_ok(r) || !tunnel(r))
		return false;
	r->target_ok = target_parse(&r->arena, r->raw_uri, strlen(r->raw_uri), r->host, is_account_cb, NULL,
								&r->target, &err);
	if (!r->target_ok)
	{
		resp_error(r, "InvalidUri", "%s.", err);
		return false;
	}
	r->account = config_find_account(r->target.account, strlen(r->target.account));
	if (r->account == NULL)
	{
		resp_error(r, "AuthenticationFailed", "The account addressed by the request does not exist on this server.");
		return false;
	}
	if (!find_operation(r))
		return false;
	if (r->op->flags & OPF_NO_AUTH)
	{
		/* a CORS preflight: browsers send no credentials; answered from the cached rules, one at a time reloads them */
		r->props_reload = service_props_claim(r->account);
		return true;
	}
	if (!(r->op->flags & OPF_XML) && !negotiate(r))
		return false;
	if (!(r->op->flags & OPF_XML) && content_is_atom(r))
	{
		resp_error(r, "AtomFormatNotSupported", "Use application/json.");
		return false;
	}
	if (!authenticate(r))
		return false;
	if (r->target.secondary && (r->op->flags & OPF_WRITE))
	{
		/* the read-access secondary endpoint, as the service's answers writes on it */
		resp_error(r, "InsufficientAccountPermissions", "The -secondary endpoint is read-only.");
		return false;
	}
	if (!operation_headers(r))
		return false;
	set_base(r);
	return true;
}

/* Content-MD5 or x-ms-content-crc64 (base64 of the digest) against the body. false: answered. */
bool
router_body(Req *r)
{
	unsigned char want[16],
				got[EVP_MAX_MD_SIZE];
	unsigned int glen = 0;
	const char *b = r->body.data ? r->body.data : "";

	if (r->content_md5 && r->content_crc64)
	{
		resp_error(r, "BothCrc64AndMd5HeaderPresent", NULL);
		return false;
	}
	if (r->content_md5)
	{
		if (b64_decode(r->content_md5, strlen(r->content_md5), want, sizeof(want)) != 16)
		{
			resp_error(r, "InvalidMd5", NULL);
			return false;
		}
		if (!EVP_Digest(b, r->body.len, got, &glen, EVP_md5(), NULL) || glen != 16 || memcmp(got, want, 16) != 0)
		{
			resp_error(r, "Md5Mismatch", NULL);
			return false;
		}
	}
	if (r->content_crc64)
	{
		uint64		crc = crc64_azure((const unsigned char *) b, r->body.len);
		unsigned char le[8];

		if (b64_decode(r->content_crc64, strlen(r->content_crc64), want, sizeof(want)) != 8)
		{
			resp_error(r, "InvalidCrc64", NULL);
			return false;
		}
		for (int i = 0; i < 8; i++)
			le[i] = (unsigned char) (crc >> (8 * i));
		if (memcmp(le, want, 8) != 0)
		{
			resp_error(r, "Crc64Mismatch", NULL);
			return false;
		}
	}
	return true;
}

bool
router_needs_database(const Req *r)
{
	return (r->op->flags & OPF_DB) || r->sas_policy_pending || r->props_reload;
}

void
router_run(Req *r)
{
	if (r->sas_policy_pending && !sas_with_policy(r))
		return;
	handlers[r->op->id] (r);
}

void
router_finish(Req *r, bool may_use_database)
{
	/* CORS headers on every answer to a request with Origin, errors included (not the preflight's) */
	if (r->origin != NULL && r->account != NULL && strcmp(r->method, "OPTIONS") != 0)
		cors_actual(r, may_use_database);
}
