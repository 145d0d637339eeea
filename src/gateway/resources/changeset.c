/*
 * changeset.c - $batch: read the changeset (multipart.c), make each sub-request an operation of
 * ops.h's table (its resource, verb and If-Match; only the operations that have a changeset name
 * may appear), check it (one table, this request's account, what a shared access signature
 * allows it), build the operations document for tablestore.rest_batch (each body passed on
 * unread as a JSON string: the extension reads entities), and render the 202 multipart answer:
 *   success: a changesetresponse part per operation (204 with ETag; an insert 201 with its entity
 *            or 204 + Preference-Applied, both with Location and DataServiceId);
 *   failure: one part with the failing operation's status and an error whose message value
 *            starts with "N:" (0-based index), except for a 412, as the service answers;
 *   no operation: an empty changesetresponse.
 * A batch may instead hold one query alone, outside a changeset (the service's rule: a query is
 * submitted singly): its answer is the batch's one part, no changeset (query_alone).
 * Each part's inner HTTP response ends with its blank line and (possibly empty) body; the CRLF
 * before the next "--" belongs to the boundary (RFC 2046 §5.1.1), as the service writes it.
 * The metadata level of a part's answer is the part's Accept; the $batch request's own Accept
 * does not refuse anything (older clients send Atom there while every part accepts JSON).
 */
#include "gateway.h"
#include "multipart.h"
#include "route.h"
#include "sqlapi.h"

#include <string.h>

typedef struct OpInfo
{
	const OpDef *op;
	bool		echo;
	MetaLevel	meta;			/* the part's Accept, else the $batch request's */
	const char *content_id;
} OpInfo;

static bool
is_account_cb(const char *name, size_t len, void *cls)
{
	(void) cls;
	return config_find_account(name, len) != NULL;
}

/* echoed into a part header: printable ASCII only, bounded */
static bool
printable(const char *v)
{
	size_t		n = 0;

	if (v == NULL)
		return false;
	for (; v[n]; n++)
		if ((unsigned char) v[n] < 0x20 || (unsigned char) v[n] > 0x7e || n > 200)
			return false;
	return true;
}

/* The multipart answer being written: its two boundaries and its parts. */
typedef struct Answer
{
	char		bs[64];			/* batchresponse_<uuid> */
	char		cs[64];			/* changesetresponse_<uuid> */
	Buf			parts;
} Answer;

static void
answer_init(Answer *a)
{
	char		id[37];

	uuid_v4(id);
	snprintf(a->bs, sizeof(a->bs), "batchresponse_%s", id);
	uuid_v4(id);
	snprintf(a->cs, sizeof(a->cs), "changesetresponse_%s", id);
	buf_init(&a->parts);
}

/* A part's boundary, its MIME headers, and the inner response's status line and first headers. */
static void
part_open(Buf *b, const char *boundary, int status)
{
	buf_printf(b, "--%s\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n", boundary);
	buf_printf(b, "HTTP/1.1 %d %s\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-cache\r\nDataServiceVersion: 3.0;\r\n",
			   status, http_reason(status));
}

/* The end of a part: its headers' blank line, its body, and the CRLF of the boundary that follows. */
static void
part_close(Buf *b, const char *body, size_t len)
{
	buf_puts(b, "\r\n");
	buf_append(b, body, len);
	buf_puts(b, "\r\n");
}

static void
part_begin(Answer *a, int status)
{
	part_open(&a->parts, a->cs, status);
}

static void
part_end(Answer *a, const char *body, size_t len)
{
	part_close(&a->parts, body, len);
}

/* The answer: 202 with the batch response holding the changeset response. Frees the parts. */
static void
render(Req *r, Answer *a)
{
	Buf		   *b = &r->resp.body;

	buf_free(b);
	buf_printf(b, "--%s\r\nContent-Type: multipart/mixed; boundary=%s\r\n\r\n", a->bs, a->cs);
	buf_append(b, a->parts.data ? a->parts.data : "", a->parts.len);
	buf_printf(b, "--%s--\r\n--%s--\r\n", a->cs, a->bs);
	if (a->parts.failed)
		b->failed = true;
	buf_free(&a->parts);
	r->resp.status = 202;
	r->resp.content_type = arena_printf(&r->arena, "multipart/mixed; boundary=%s", a->bs);
}

/* Answer 202 with one error part for operation idx. */
static void
fail_part(Req *r, int idx, int status, const char *code, const char *detail, const char *content_id)
{
	Answer		a;
	Buf			err;

	answer_init(&a);
	buf_init(&err);
	part_begin(&a, status);
	if (printable(content_id))
		buf_printf(&a.parts, "Content-ID: %s\r\n", content_id);
	buf_printf(&a.parts, "Content-Type: %s\r\n", meta_content_type(r->meta == META_NONE ? META_NONE : META_MINIMAL));
	/* the service gives no index for a 412 in a changeset */
	error_body_json(&err, code, status == 412 ? -1 : idx, detail, r->request_id);
	part_end(&a, err.data ? err.data : "", err.len);
	buf_free(&err);
	render(r, &a);
	r->resp.error_code = code;
}

static const char *
authority_of(Arena *a, const char *url)
{
	const char *p = NULL;
	size_t		n = 0;

	if (ascii_nieq(url, "http://", 7))
		p = url + 7;
	else if (ascii_nieq(url, "https://", 8))
		p = url + 8;
	if (p == NULL)
		return NULL;
	while (p[n] && p[n] != '/' && p[n] != '?')
		n++;
	return arena_strndup(a, p, n);
}

/* The sub-request's operation, from ops.h's table. NULL: answered. */
static const OpDef *
sub_operation(Req *r, int k, const SubRequest *s, const Target *t)
{
	const char *verb = ops_verb(s->method, s->x_http_method);
	const char *why = NULL;
	const char *allowed = NULL;
	OpResource	res;
	const OpDef *op;

	res = ops_resource(t, query_get(&t->query, "restype"), query_get(&t->query, "comp"), &why);
	op = res == OPR_NONE || verb == NULL ? NULL : ops_find(res, verb, s->if_match != NULL, &allowed);
	if (op == NULL || op->batch_op == NULL)
	{
		fail_part(r, k, 400, "InvalidInput",
				  "A changeset may only insert (POST table), update, merge or delete (PUT, MERGE, PATCH, DELETE entity).",
				  s->content_id);
		return NULL;
	}
	if (op->if_match == IFM_REQUIRED && s->if_match == NULL)
	{
		fail_part(r, k, 400, "MissingRequiredHeader", "If-Match.", s->content_id);
		return NULL;
	}
	return op;
}

/* Check sub-request k and append its operation to doc. false: answered. */
static bool
add_op(Req *r, int k, const SubRequest *s, Buf *doc, OpInfo *info)
{
	Target		t;
	const char *err = NULL;
	const char *host = authority_of(&r->arena, s->url);
	const char *denied;
	const char *why = NULL;
	const char *refused;

	info->content_id = printable(s->content_id) ? s->content_id : NULL;
	if (!target_parse(&r->arena, s->url, s->url_len, host ? host : r->host, is_account_cb, NULL, &t, &err))
	{
		fail_part(r, k, 400, "InvalidInput", err, s->content_id);
		return false;
	}
	if (strcmp(t.account, r->account->name) != 0)
	{
		fail_part(r, k, 400, "InvalidInput", "A batch operation addresses another account.", s->content_id);
		return false;
	}
	if ((info->op = sub_operation(r, k, s, &t)) == NULL)
		return false;
	if (r->route_table == NULL)
		r->route_table = t.table;
	else if (!ascii_ieq(r->route_table, t.table))
	{
		fail_part(r, k, 400, "InvalidInput", "All operations of a batch must address one table.", s->content_id);
		return false;
	}
	info->meta = r->meta;
	refused = (s->content_type && strstr(s->content_type, "atom+xml")) ? "AtomFormatNotSupported" :
		meta_of_accept(s->accept, &info->meta);
	if (refused != NULL)
	{
		fail_part(r, k, 415, refused, "Use application/json.", s->content_id);
		return false;
	}
	if (s->if_match && !header_text_ok(s->if_match))
	{
		fail_part(r, k, 400, "InvalidInput", "The If-Match header is not a valid ETag.", s->content_id);
		return false;
	}
	if (r->sas != NULL && (denied = sas_allows(r->sas, &info->op->sas, t.table, &why)) != NULL)
	{
		/* a table's SAS authorizes the batch of its table only: the table is the sub-requests' */
		fail_part(r, k, 403, denied, why, s->content_id);
		return false;
	}
	info->echo = info->op->id == OP_INSERT_ENTITY && !prefer_no_content(s->prefer);
	if (r->route_pk == NULL && t.kind == RES_ENTITY)
		r->route_pk = t.pk;		/* a changeset names one partition: the first address names it */

	buf_puts(doc, k == 0 ? "[" : ",");
	buf_printf(doc, "{\"op\":\"%s\"", info->op->batch_op);
	if (t.kind == RES_ENTITY)
	{
		buf_puts(doc, ",\"PartitionKey\":");
		buf_json_string(doc, t.pk, t.pk_len);
		buf_puts(doc, ",\"RowKey\":");
		buf_json_string(doc, t.rk, t.rk_len);
	}
	if (info->op->id != OP_DELETE_ENTITY)
	{
		buf_puts(doc, ",\"entity_json\":");
		buf_json_string(doc, s->body, s->body_len);
	}
	if (info->op->if_match == IFM_PRESENT || info->op->if_match == IFM_REQUIRED)
	{
		buf_puts(doc, ",\"if_match\":");
		buf_json_string(doc, s->if_match, strlen(s->if_match));
	}
	if (info->echo && info->meta == r->meta)
		buf_puts(doc, ",\"echo\":true");
	else if (info->echo)
		buf_printf(doc, ",\"echo\":\"%s\"", meta_name(info->meta));
	buf_puts(doc, "}");
	return true;
}

/* The answer to a committed changeset: a part per operation. */
static void
success_parts(Req *r, PGresult *res, const OpInfo *info, int n)
{
	Answer		a;

	answer_init(&a);
	for (int k = 0; k < n; k++)
	{
		bool		insert = info[k].op->id == OP_INSERT_ENTITY;
		bool		echo = insert && info[k].echo && !PQgetisnull(res, k, 3);

		part_begin(&a, echo ? 201 : 204);
		if (info[k].content_id)
			buf_printf(&a.parts, "Content-ID: %s\r\n", info[k].content_id);
		if (insert && !echo)
			buf_puts(&a.parts, "Preference-Applied: return-no-content\r\n");
		if (insert && !PQgetisnull(res, k, 1) && !PQgetisnull(res, k, 2))
		{
			char	   *loc = entity_url(r, r->route_table, PQgetvalue(res, k, 1), (size_t) PQgetlength(res, k, 1),
										 PQgetvalue(res, k, 2), (size_t) PQgetlength(res, k, 2));

			buf_printf(&a.parts, "Location: %s\r\nDataServiceId: %s\r\n", loc, loc);
		}
		if (!PQgetisnull(res, k, 0))
			buf_printf(&a.parts, "ETag: %s\r\n", PQgetvalue(res, k, 0));
		if (echo)
		{
			buf_printf(&a.parts, "Content-Type: %s\r\n", meta_content_type(info[k].meta));
			part_end(&a, PQgetvalue(res, k, 3), (size_t) PQgetlength(res, k, 3));
		}
		else
			part_end(&a, "", 0);
	}
	render(r, &a);
}

/*
 * The answer the handler left in r->resp, made the batch's one part: 202 with a batchresponse
 * holding that response (its status, headers but x-ms-error-code, body), no changeset.
 */
static void
wrap_alone(Req *r)
{
	Buf			out;
	char		bs[64],
				id[37];

	uuid_v4(id);
	snprintf(bs, sizeof(bs), "batchresponse_%s", id);
	buf_init(&out);
	part_open(&out, bs, r->resp.status);
	if (r->resp.content_type)
		buf_printf(&out, "Content-Type: %s\r\n", r->resp.content_type);
	for (int i = 0; i < r->resp.nheaders; i++)
		if (!ascii_ieq(r->resp.headers[i].name, "x-ms-error-code"))
			buf_printf(&out, "%s: %s\r\n", r->resp.headers[i].name, r->resp.headers[i].value);
	part_close(&out, r->resp.body.data ? r->resp.body.data : "", r->resp.body.len);
	buf_printf(&out, "--%s--\r\n", bs);
	if (r->resp.body.failed)
		out.failed = true;
	buf_free(&r->resp.body);
	r->resp.body = out;
	r->resp.nheaders = 0;
	r->resp.error_code = NULL;
	r->resp.status = 202;
	r->resp.content_type = arena_printf(&r->arena, "multipart/mixed; boundary=%s", bs);
}

/*
 * A batch of one query alone, outside a changeset (the service allows a query only so): a point
 * read or a query of the table, answered by the handler that answers it at top level (its SAS
 * permission, metadata level by the part's Accept, routing), then wrapped as the batch's part.
 * Anything else alone is 400 InvalidInput: writes belong in the changeset.
 */
static void
query_alone(Req *r, const SubRequest *s)
{
	Target		t;
	const char *err = NULL;
	const char *host = authority_of(&r->arena, s->url);
	const char *why = NULL;
	const char *allowed = NULL;
	const char *refused;
	const OpDef *op;
	OpResource	res;
	MetaLevel	meta = r->meta;

	if (!target_parse(&r->arena, s->url, s->url_len, host ? host : r->host, is_account_cb, NULL, &t, &err))
	{
		resp_error(r, "InvalidInput", "The batch's operation: %s.", err);
		return;
	}
	res = ops_resource(&t, query_get(&t.query, "restype"), query_get(&t.query, "comp"), &why);
	/* a query alone is a plain GET: any X-HTTP-Method makes it something else */
	op = res == OPR_NONE || s->x_http_method ? NULL : ops_find(res, s->method, s->if_match != NULL, &allowed);
	if (op == NULL || (op->id != OP_GET_ENTITY && op->id != OP_QUERY_ENTITIES))
	{
		resp_error(r, "InvalidInput",
				   "An operation outside the changeset must be a query (GET of an entity or of the table); writes belong in the changeset.");
		return;
	}
	if (strcmp(t.account, r->account->name) != 0)
	{
		resp_error(r, "InvalidInput", "A batch operation addresses another account.");
		return;
	}
	refused = meta_of_accept(s->accept, &meta);
	if (refused == NULL && r->sas != NULL && (refused = sas_allows(r->sas, &op->sas, t.table, &why)) != NULL)
	{
		resp_error(r, refused, "%s", why);
		wrap_alone(r);
		return;
	}
	r->target = t;
	r->op = op;
	if (refused != NULL)
		resp_error(r, refused, "Use application/json.");
	else
	{
		r->meta = meta;
		(op->id == OP_GET_ENTITY ? entities_get : entities_query) (r);
		if (r->resp.status >= 500)
			return;				/* the database is unavailable: a plain 503, as for a changeset */
	}
	wrap_alone(r);
}

void
changeset_handle(Req *r)
{
	const char *body;
	BatchRequest br;
	const char *err = NULL;
	OpInfo	   *info;
	Buf			doc;
	const char *params[6];
	SqlError	serr;
	PGresult   *res;

	if (!body_text(r, &body))
		return;
	if (!batch_parse(&r->arena, r->content_type, body, r->body.len, &br, &err))
	{
		resp_error(r, "InvalidInput", "The batch request body is malformed: %s.", err);
		return;
	}
	if (br.alone)
	{
		query_alone(r, &br.ops[0]);
		return;
	}
	if (br.n > TS_BATCH_MAX_OPERATIONS)
	{
		fail_part(r, TS_BATCH_MAX_OPERATIONS - 1, 400, "InvalidInput",
				  "The batch request operation exceeds the maximum 100 changes per change set.", NULL);
		return;
	}
	if (br.n == 0)
	{
		Answer		none;

		answer_init(&none);
		render(r, &none);		/* an empty changeset changes nothing */
		return;
	}
	info = arena_alloc(&r->arena, sizeof(OpInfo) * (size_t) br.n);
	if (info == NULL)
	{
		resp_error(r, "ServerBusy", "out of memory");
		return;
	}
	buf_init(&doc);
	for (int k = 0; k < br.n; k++)
		if (!add_op(r, k, &br.ops[k], &doc, &info[k]))
		{
			buf_free(&doc);
			return;
		}
	buf_puts(&doc, "]");
	if (doc.failed)
	{
		buf_free(&doc);
		resp_error(r, "ServerBusy", "out of memory");
		return;
	}
	if (r->route_pk == NULL)
		r->route_pk = route_body_partition_key(r, br.ops[0].body, br.ops[0].body_len);
	params[0] = r->route_table;
	params[1] = doc.data;
	params[2] = meta_name(r->meta);
	params[3] = r->base;
	params[4] = r->account->name;
	params[5] = r->key_scope;
	res = sql_call(r, SQL_BATCH, params, &serr);
	buf_free(&doc);
	if (res == NULL)
	{
		/* an operation's refusal (its index known) is its part, as add_op answers a SAS's */
		if (serr.status >= 500 || (serr.status == 403 && serr.op_index < 0))
			sql_error_respond(r, &serr);
		else
		{
			int			idx = serr.op_index >= 0 && serr.op_index < br.n ? serr.op_index : 0;

			fail_part(r, idx, serr.status, serr.code, serr.message, info[idx].content_id);
		}
		return;
	}
	if (PQntuples(res) != br.n)
	{
		int			got = PQntuples(res);

		PQclear(res);
		resp_error(r, "InternalError", "The database returned %d results for %d operations.", got, br.n);
		return;
	}
	success_parts(r, res, info, br.n);
	PQclear(res);
}
