/*
 * entities.c - the entity operations' handlers (ops.h names which request is which): Insert,
 * Update/Merge and the upserts, Delete, point Get, and Query Entities ($filter, $select, $top,
 * NextPartitionKey/NextRowKey).
 */
#include "gateway.h"
#include "sqlapi.h"

#include <string.h>

void
entities_insert(Req *r)
{
	const char *body;
	const char *params[7];
	bool		echo = !prefer_no_content(r->prefer);
	PGresult   *res;
	char	   *loc;

	if (!body_text(r, &body))
		return;
	params[0] = r->target.table;
	params[1] = body;
	params[2] = echo ? "true" : "false";
	params[3] = meta_name(r->meta);
	params[4] = r->base;
	params[5] = r->account->name;
	params[6] = r->key_scope;
	res = sql_call_row(r, SQL_INSERT_ENTITY, params);
	if (res == NULL)
		return;
	loc = entity_url(r, r->target.table, PQgetvalue(res, 0, 1), (size_t) PQgetlength(res, 0, 1),
					 PQgetvalue(res, 0, 2), (size_t) PQgetlength(res, 0, 2));
	if (echo && !PQgetisnull(res, 0, 3))
	{
		resp_json(r, 201, PQgetvalue(res, 0, 3), (size_t) PQgetlength(res, 0, 3));
		if (r->prefer && strstr(r->prefer, "return-content"))
			resp_header(r, "Preference-Applied", "return-content");
	}
	else
	{
		resp_empty(r, 204);
		resp_header(r, "Preference-Applied", "return-no-content");
	}
	resp_header(r, "ETag", arena_strdup(&r->arena, PQgetvalue(res, 0, 0)));
	resp_header(r, "Location", loc);
	resp_header(r, "DataServiceId", loc);
	PQclear(res);
}

void
entities_write(Req *r)
{
	const char *body;
	const char *params[7];
	bool		merge = r->op->id == OP_MERGE_ENTITY || r->op->id == OP_INSERT_OR_MERGE;
	PGresult   *res;

	if (!body_text(r, &body))
		return;
	params[0] = r->target.table;
	params[1] = r->target.pk;
	params[2] = r->target.rk;
	params[3] = body;
	params[4] = merge ? "true" : "false";
	params[5] = r->if_match;
	params[6] = r->key_scope;
	res = sql_call_row(r, SQL_WRITE_ENTITY, params);
	if (res == NULL)
		return;
	resp_empty(r, 204);
	resp_header(r, "ETag", arena_strdup(&r->arena, PQgetvalue(res, 0, 0)));
	PQclear(res);
}

void
entities_delete(Req *r)
{
	const char *params[5];
	SqlError	err;
	PGresult   *res;

	params[0] = r->target.table;
	params[1] = r->target.pk;
	params[2] = r->target.rk;
	params[3] = r->if_match;
	params[4] = r->key_scope;
	res = sql_call(r, SQL_DELETE_ENTITY, params, &err);
	if (res == NULL)
	{
		sql_error_respond(r, &err);
		return;
	}
	PQclear(res);
	resp_empty(r, 204);
}

static const char *
select_param(Req *r)
{
	const char *s = query_get(&r->target.query, "$select");

	return s && s[0] ? s : NULL;	/* "$select=" means every property */
}

void
entities_get(Req *r)
{
	const char *params[8];
	PGresult   *res;

	params[0] = r->target.table;
	params[1] = r->target.pk;
	params[2] = r->target.rk;
	params[3] = select_param(r);
	params[4] = meta_name(r->meta);
	params[5] = r->base;
	params[6] = r->account->name;
	params[7] = r->key_scope;
	res = sql_call_row(r, SQL_GET_ENTITY, params);
	if (res == NULL)
		return;
	resp_json(r, 200, PQgetvalue(res, 0, 1), (size_t) PQgetlength(res, 0, 1));
	resp_header(r, "ETag", arena_strdup(&r->arena, PQgetvalue(res, 0, 0)));
	PQclear(res);
}

void
entities_query(Req *r)
{
	const char *params[10];
	PGresult   *res;
	const char *filter = query_get(&r->target.query, "$filter");

	params[0] = r->target.table;
	params[1] = filter && filter[0] ? filter : NULL;
	params[2] = select_param(r);
	if (!parse_top(r, &params[3]) || !decode_token(r, "NextPartitionKey", &params[4]) ||
		!decode_token(r, "NextRowKey", &params[5]))
		return;
	params[6] = meta_name(r->meta);
	params[7] = r->base;
	params[8] = r->account->name;
	params[9] = r->key_scope;
	res = sql_call_row(r, SQL_QUERY_ENTITIES, params);
	if (res == NULL)
		return;
	resp_json(r, 200, PQgetvalue(res, 0, 0), (size_t) PQgetlength(res, 0, 0));
	if (!PQgetisnull(res, 0, 1))
		set_token_header(r, "x-ms-continuation-NextPartitionKey", PQgetvalue(res, 0, 1));
	if (!PQgetisnull(res, 0, 2))
		set_token_header(r, "x-ms-continuation-NextRowKey", PQgetvalue(res, 0, 2));
	PQclear(res);
}
