/*
 * tables.c - the table operations' handlers (ops.h names which request is which): Create Table,
 * Query Tables ($filter/$top/NextTableName), Query Tables of one table (Tables('name')), Delete
 * Table. Create Table takes the table's indexing policy from x-ms-tablestore-indexing-policy.
 */
#include "gateway.h"
#include "sqlapi.h"

#include <string.h>

void
tables_create(Req *r)
{
	const char *body;
	const char *params[5];
	PGresult   *res;
	const char *name;
	char	   *loc;

	if (!body_text(r, &body))
		return;
	if (r->indexing_policy && !header_text_ok(r->indexing_policy))
	{
		resp_error(r, "InvalidHeaderValue", "x-ms-tablestore-indexing-policy is a policy's JSON in UTF-8, at most 1 KiB (a longer one: PUT ?comp=indexingpolicy).");
		return;
	}
	params[0] = body;
	params[1] = meta_name(r->meta);
	params[2] = r->base;
	params[3] = r->account->name;
	params[4] = r->indexing_policy;	/* NULL: the default policy (every property indexed) */
	res = sql_call_row(r, SQL_CREATE_TABLE, params);
	if (res == NULL)
		return;
	name = PQgetvalue(res, 0, 0);
	loc = arena_printf(&r->arena, "%s/Tables('%s')", r->base, name);
	resp_header(r, "Location", loc);
	resp_header(r, "DataServiceId", loc);
	if (prefer_no_content(r->prefer))
	{
		resp_empty(r, 204);
		resp_header(r, "Preference-Applied", "return-no-content");
	}
	else
	{
		resp_json(r, 201, PQgetvalue(res, 0, 1), (size_t) PQgetlength(res, 0, 1));
		if (r->prefer && strstr(r->prefer, "return-content"))
			resp_header(r, "Preference-Applied", "return-content");
	}
	PQclear(res);
}

void
tables_query(Req *r)
{
	const char *params[6];
	PGresult   *res;
	const char *filter = query_get(&r->target.query, "$filter");

	params[0] = filter && filter[0] ? filter : NULL;
	if (!parse_top(r, &params[1]) || !decode_token(r, "NextTableName", &params[2]))
		return;
	params[3] = meta_name(r->meta);
	params[4] = r->base;
	params[5] = r->account->name;
	res = sql_call_row(r, SQL_QUERY_TABLES, params);
	if (res == NULL)
		return;
	resp_json(r, 200, PQgetvalue(res, 0, 0), (size_t) PQgetlength(res, 0, 0));
	if (!PQgetisnull(res, 0, 1))
		set_token_header(r, "x-ms-continuation-NextTableName", PQgetvalue(res, 0, 1));
	PQclear(res);
}

void
tables_get(Req *r)
{
	const char *params[4] = {r->target.table, meta_name(r->meta), r->base, r->account->name};
	SqlError	err;
	PGresult   *res = sql_call(r, SQL_GET_TABLE, params, &err);

	if (res == NULL)
	{
		if (strcmp(err.code, "TableNotFound") == 0)
			err.code = "ResourceNotFound";
		sql_error_respond(r, &err);
		return;
	}
	if (PQntuples(res) < 1)
	{
		PQclear(res);
		resp_error(r, "InternalError", "The database function returned no row.");
		return;
	}
	resp_json(r, 200, PQgetvalue(res, 0, 0), (size_t) PQgetlength(res, 0, 0));
	PQclear(res);
}

void
tables_delete(Req *r)
{
	const char *params[1] = {r->target.table};
	SqlError	err;
	PGresult   *res = sql_call(r, SQL_DROP_TABLE, params, &err);

	if (res == NULL)
	{
		/* the live service answers ResourceNotFound for a table that does not exist */
		if (strcmp(err.code, "TableNotFound") == 0)
			err.code = "ResourceNotFound";
		sql_error_respond(r, &err);
		return;
	}
	PQclear(res);
	resp_empty(r, 204);
}
