/*
 * acl.c - Get and Set Table ACL (t?comp=acl): the table's stored access policies, kept by the
 * extension (tablestore.get_table_acl / set_table_acl); the XML is acl_xml.c's. Set answers 204.
 * A shared access signature never reaches here (ops.h: with the account key only).
 */
#include "acl_xml.h"
#include "gateway.h"
#include "sqlapi.h"

#include <string.h>

void
acl_get(Req *r)
{
	const char *params[1] = {r->target.table};
	AclPolicy	p[ACL_MAX_POLICIES];
	SqlError	err;
	PGresult   *res = sql_call(r, SQL_GET_ACL, params, &err);
	int			n;
	Buf			doc;

	if (res == NULL)
	{
		sql_error_respond(r, &err);
		return;
	}
	n = PQntuples(res) < ACL_MAX_POLICIES ? PQntuples(res) : ACL_MAX_POLICIES;
	for (int i = 0; i < n; i++)
	{
		p[i].id = sql_field(r, res, i, 0);
		p[i].start = sql_field(r, res, i, 1);
		p[i].expiry = sql_field(r, res, i, 2);
		p[i].permission = sql_field(r, res, i, 3);
	}
	PQclear(res);
	buf_init(&doc);
	acl_xml_render(&doc, p, n);
	resp_xml(r, 200, &doc);
}

void
acl_set(Req *r)
{
	AclPolicy	p[ACL_MAX_POLICIES];
	int			n;
	const char *why = NULL;
	const char *params[2];
	Buf			json;
	bool		stored;

	if (!acl_xml_parse(&r->arena, r->body.data ? r->body.data : "", r->body.len, p, &n, &why))
	{
		resp_error(r, "InvalidXmlDocument", "%s.", why);
		return;
	}
	for (int i = 0; i < n; i++)
	{
		time_t		t;
		unsigned	perms;

		if ((p[i].start && !sas_parse_time(p[i].start, &t)) || (p[i].expiry && !sas_parse_time(p[i].expiry, &t)))
		{
			resp_error(r, "InvalidXmlDocument", "A Start or Expiry is not a UTC time such as 2024-01-02T03:04:05Z.");
			return;
		}
		if (p[i].permission && !sas_table_permissions(p[i].permission, &perms))
		{
			resp_error(r, "InvalidXmlDocument", "A Permission is letters of raud, each once.");
			return;
		}
	}
	buf_init(&json);
	acl_json(&json, p, n);
	if (json.failed)
	{
		buf_free(&json);
		resp_error(r, "ServerBusy", "out of memory");
		return;
	}
	params[0] = r->target.table;
	params[1] = json.data;
	stored = sql_run(r, SQL_SET_ACL, params);
	buf_free(&json);
	if (stored)
		resp_empty(r, 204);
}
