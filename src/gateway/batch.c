/*
 * batch.c - $batch: parse the changeset (batch_parse.c), check each sub-request (one table, an
 * account of this request), build the operations document for tablestore.rest_batch (each body
 * passed on unread as a JSON string: the extension reads entities), and render the 202 multipart
 * answer:
 *   success: a changesetresponse part per operation (204 with ETag; an insert 201 with its entity
 *            or 204 + Preference-Applied, both with Location and DataServiceId);
 *   failure: one part with the failing operation's status and an error whose message value
 *            starts with "N:" (0-based index), except for a 412, as the service answers.
 */
#include "batch_parse.h"
#include "gateway.h"
#include "sqlapi.h"

#include <string.h>

#define BATCH_MAX_OPS 100

typedef struct OpInfo
{
	const char *op;				/* insert, update, merge, upsert_replace, upsert_merge, delete */
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

static void
part_begin(Buf *b, const char *cs)
{
	buf_printf(b, "--%s\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n", cs);
}

static void
render(Req *r, const char *bs, const char *cs, Buf *parts)
{
	Buf		   *b = &r->resp.body;

	buf_free(b);
	buf_printf(b, "--%s\r\nContent-Type: multipart/mixed; boundary=%s\r\n\r\n", bs, cs);
	buf_append(b, parts->data ? parts->data : "", parts->len);
	buf_printf(b, "--%s--\r\n--%s--\r\n", cs, bs);
	r->resp.status = 202;
	r->resp.content_type = arena_printf(&r->arena, "multipart/mixed; boundary=%s", bs);
}

/* Answer 202 with one error part for operation idx. */
static void
fail_part(Req *r, int idx, int status, const char *code, const char *message, const char *content_id)
{
	char		id[37],
				bs[64],
				cs[64];
	Buf			parts,
				msg;

	uuid_v4(id);
	snprintf(bs, sizeof(bs), "batchresponse_%s", id);
	uuid_v4(id);
	snprintf(cs, sizeof(cs), "changesetresponse_%s", id);
	buf_init(&parts);
	buf_init(&msg);
	if (status == 412)
		buf_puts(&msg, message);	/* the service gives no index for a 412 in a changeset */
	else
		buf_printf(&msg, "%d:%s", idx, message);
	part_begin(&parts, cs);
	buf_printf(&parts, "HTTP/1.1 %d %s\r\nX-Content-Type-Options: nosniff\r\nDataServiceVersion: 3.0;\r\n", status, http_reason(status));
	if (printable(content_id))
		buf_printf(&parts, "Content-ID: %s\r\n", content_id);
	buf_printf(&parts, "Content-Type: %s\r\n\r\n", meta_content_type(r->meta == META_NONE ? META_NONE : META_MINIMAL));
	error_body_json(&parts, code, msg.data ? msg.data : "", r->request_id);
	buf_puts(&parts, "\r\n");
	render(r, bs, cs, &parts);
	r->resp.error_code = code;
	buf_free(&parts);
	buf_free(&msg);
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

/* Check sub-request k and append its operation to doc. false: answered. */
static bool
add_op(Req *r, int k, const SubRequest *s, Buf *doc, const char **table, OpInfo *info)
{
	Target		t;
	const char *err = NULL;
	const char *verb = s->method;
	const char *host = authority_of(&r->arena, s->url);
	bool		has_body;
	SasOp		sop = s->if_match ? SOP_UPDATE : SOP_UPSERT;
	const char *denied;
	const char *why = NULL;

	info->content_id = printable(s->content_id) ? s->content_id : NULL;
	if (s->x_http_method && strcmp(verb, "POST") == 0)
		verb = s->x_http_method;
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
	if (!(t.kind == RES_TABLE && !t.table_parens && strcmp(verb, "POST") == 0) &&
		!(t.kind == RES_ENTITY && (strcmp(verb, "PUT") == 0 || strcmp(verb, "MERGE") == 0 ||
								   strcmp(verb, "PATCH") == 0 || strcmp(verb, "DELETE") == 0)))
	{
		fail_part(r, k, 400, "InvalidInput",
				  "A changeset may only insert (POST table), update, merge or delete (PUT, MERGE, PATCH, DELETE entity).",
				  s->content_id);
		return false;
	}
	if (*table == NULL)
		*table = t.table;
	else if (!ascii_ieq(*table, t.table))
	{
		fail_part(r, k, 400, "InvalidInput", "All operations of a batch must address one table.", s->content_id);
		return false;
	}
	info->meta = r->meta;
	if ((s->content_type && strstr(s->content_type, "atom+xml")) || !meta_of_accept(s->accept, &info->meta))
	{
		fail_part(r, k, 415, "AtomFormatNotSupported", "Atom format is not supported; use application/json.", s->content_id);
		return false;
	}
	if (s->if_match && !header_text_ok(s->if_match))
	{
		fail_part(r, k, 400, "InvalidInput", "The If-Match header is not a valid ETag.", s->content_id);
		return false;
	}
	has_body = strcmp(verb, "DELETE") != 0;
	if (!has_body && s->if_match == NULL)
	{
		fail_part(r, k, 400, "MissingRequiredHeader", "An HTTP header that's mandatory for this request is not specified: If-Match.", s->content_id);
		return false;
	}
	if (strcmp(verb, "POST") == 0)
	{
		info->op = "insert";
		info->echo = !prefer_no_content(s->prefer);
		sop = SOP_INSERT;
	}
	else if (strcmp(verb, "PUT") == 0)
		info->op = s->if_match ? "update" : "upsert_replace";
	else if (strcmp(verb, "DELETE") == 0)
	{
		info->op = "delete";
		sop = SOP_DELETE_ENTITY;
	}
	else
		info->op = s->if_match ? "merge" : "upsert_merge";
	if (r->sas != NULL && (denied = sas_allows(r->sas, sop, t.table, &why)) != NULL)
	{
		/* a table's SAS authorizes the batch of its table only: the table is the sub-requests' */
		fail_part(r, k, 403, denied, why, s->content_id);
		return false;
	}

	buf_puts(doc, k == 0 ? "[" : ",");
	buf_printf(doc, "{\"op\":\"%s\"", info->op);
	if (t.kind == RES_ENTITY)
	{
		buf_puts(doc, ",\"PartitionKey\":");
		buf_json_string(doc, t.pk, t.pk_len);
		buf_puts(doc, ",\"RowKey\":");
		buf_json_string(doc, t.rk, t.rk_len);
	}
	if (has_body)
	{
		buf_puts(doc, ",\"entity_json\":");
		buf_json_string(doc, s->body, s->body_len);
	}
	if (strcmp(info->op, "update") == 0 || strcmp(info->op, "merge") == 0 || strcmp(info->op, "delete") == 0)
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

void
batch_handle(Req *r)
{
	const char *body;
	BatchRequest br;
	const char *err = NULL;
	const char *table = NULL;
	OpInfo	   *info;
	Buf			doc,
				parts;
	const char *params[6];
	SqlError	serr;
	PGresult   *res;
	char		id[37],
				bs[64],
				cs[64];

	if (!body_text(r, &body))
		return;
	if (!batch_parse(&r->arena, r->content_type, body, r->body.len, &br, &err))
	{
		resp_error(r, "InvalidInput", "The batch request body is malformed: %s.", err);
		return;
	}
	if (br.n > BATCH_MAX_OPS)
	{
		fail_part(r, BATCH_MAX_OPS - 1, 400, "InvalidInput",
				  "The batch request operation exceeds the maximum 100 changes per change set.", NULL);
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
		if (!add_op(r, k, &br.ops[k], &doc, &table, &info[k]))
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
	params[0] = table;
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

	uuid_v4(id);
	snprintf(bs, sizeof(bs), "batchresponse_%s", id);
	uuid_v4(id);
	snprintf(cs, sizeof(cs), "changesetresponse_%s", id);
	buf_init(&parts);
	for (int k = 0; k < br.n; k++)
	{
		bool		insert = strcmp(info[k].op, "insert") == 0;
		bool		echo = insert && info[k].echo && !PQgetisnull(res, k, 3);

		part_begin(&parts, cs);
		buf_printf(&parts, "HTTP/1.1 %s\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-cache\r\nDataServiceVersion: 3.0;\r\n",
				   echo ? "201 Created" : "204 No Content");
		if (info[k].content_id)
			buf_printf(&parts, "Content-ID: %s\r\n", info[k].content_id);
		if (insert && !echo)
			buf_puts(&parts, "Preference-Applied: return-no-content\r\n");
		if (insert && !PQgetisnull(res, k, 1) && !PQgetisnull(res, k, 2))
		{
			char	   *loc = entity_url(r, table, PQgetvalue(res, k, 1), (size_t) PQgetlength(res, k, 1),
										 PQgetvalue(res, k, 2), (size_t) PQgetlength(res, k, 2));

			buf_printf(&parts, "Location: %s\r\nDataServiceId: %s\r\n", loc, loc);
		}
		if (!PQgetisnull(res, k, 0))
			buf_printf(&parts, "ETag: %s\r\n", PQgetvalue(res, k, 0));
		if (echo)
		{
			buf_printf(&parts, "Content-Type: %s\r\n\r\n", meta_content_type(info[k].meta));
			buf_append(&parts, PQgetvalue(res, k, 3), (size_t) PQgetlength(res, k, 3));
			buf_puts(&parts, "\r\n");
		}
		else
			buf_puts(&parts, "\r\n");
	}
	PQclear(res);
	render(r, bs, cs, &parts);
	buf_free(&parts);
}
