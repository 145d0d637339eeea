/*
 * indexing.c - a table's indexing policy (t?comp=indexingpolicy), tablestore's own resource: the
 * service has no indexing policy, Cosmos DB's Table API sets one outside the table protocol. GET
 * answers the policy in its normal form with x-ms-tablestore-indexing-progress (100: applied);
 * PUT takes a policy as JSON, records it and answers it in its normal form (202: the index is
 * rebuilt online after the answer; GET's progress header says how far). The extension owns the
 * policy, its checks and its normal form (tablestore.get/set_indexing_policy); a shared access
 * signature never reaches here (ops.h: the account key or a bearer token only).
 */
#include "gateway.h"
#include "sqlapi.h"

/* The policy in the result's first column, as JSON (not an OData resource). */
static void
respond_policy(Req *r, int status, PGresult *res)
{
	resp_json(r, status, PQgetvalue(res, 0, 0), (size_t) PQgetlength(res, 0, 0));
	r->resp.content_type = "application/json";
}

void
indexing_get(Req *r)
{
	const char *params[1] = {r->target.table};
	PGresult   *res = sql_call_row(r, SQL_GET_INDEXING, params);

	if (res == NULL)
		return;
	respond_policy(r, 200, res);
	if (!PQgetisnull(res, 0, 1))
		resp_header(r, "x-ms-tablestore-indexing-progress", sql_field(r, res, 0, 1));
	PQclear(res);
}

void
indexing_set(Req *r)
{
	const char *params[2];
	const char *body;
	PGresult   *res;

	if (!body_text(r, &body))
		return;
	params[0] = r->target.table;
	params[1] = body;
	res = sql_call_row(r, SQL_SET_INDEXING, params);
	if (res == NULL)
		return;
	respond_policy(r, 202, res);
	PQclear(res);
}
