/*
 * unit.c - the gateway's C unit tests: the table of operations (ops.h), the error mapping
 * (errors.c over the extension's error table), URL and SAS parsing, the changeset parser, the
 * XML reader, CORS exposed headers and allowed origins, x-ms-version, the CRC64 of
 * x-ms-content-crc64, base64 capacity; route_test.c: the routed mode's shard hash and PartitionKeys.
 * Built by `make gateway-unit` (linked with every gateway object but main's); run by
 * test/gateway/run.sh. Prints one line per check and "N passed, N failed"; exits non-zero on a
 * failure.
 */
#include "budget.h"
#include "framing.h"
#include "gateway.h"
#include "multipart.h"
#include "props.h"
#include "sas.h"
#include "slots.h"
#include "ts_error.h"
#include "unit.h"
#include "version.h"
#include "xml.h"

#include <openssl/hmac.h>
#include <stdio.h>
#include <string.h>

int			passed,
			failed;

/* ---------------------------------------------------------------- the table of operations */

static const OpDef *
find(OpResource res, const char *verb, bool if_match)
{
	const char *allowed;

	return ops_find(res, verb, if_match, &allowed);
}

static void
test_operations(void)
{
	const char *allowed = NULL;
	int			reachable[OP__COUNT] = {0};
	struct
	{
		OpResource	res;
		const char *verb;
		bool		if_match;
		OpId		want;
	}			routes[] = {
		{OPR_SERVICE_PROPERTIES, "GET", false, OP_GET_SERVICE_PROPERTIES},
		{OPR_SERVICE_PROPERTIES, "PUT", false, OP_SET_SERVICE_PROPERTIES},
		{OPR_SERVICE_STATS, "GET", false, OP_GET_SERVICE_STATS},
		{OPR_TABLES, "GET", false, OP_QUERY_TABLES},
		{OPR_TABLES, "POST", false, OP_CREATE_TABLE},
		{OPR_TABLES_ONE, "GET", false, OP_GET_TABLE},
		{OPR_TABLES_ONE, "DELETE", false, OP_DELETE_TABLE},
		{OPR_TABLE_ACL, "GET", false, OP_GET_TABLE_ACL},
		{OPR_TABLE_ACL, "PUT", false, OP_SET_TABLE_ACL},
		{OPR_TABLE_INDEXING, "GET", false, OP_GET_INDEXING_POLICY},
		{OPR_TABLE_INDEXING, "PUT", false, OP_SET_INDEXING_POLICY},
		{OPR_TABLE, "GET", false, OP_QUERY_ENTITIES},
		{OPR_TABLE_PARENS, "GET", false, OP_QUERY_ENTITIES},
		{OPR_TABLE, "POST", false, OP_INSERT_ENTITY},
		{OPR_TABLE_PARENS, "POST", false, OP_INSERT_ENTITY},	/* the legacy .NET clients' inserts */
		{OPR_ENTITY, "GET", false, OP_GET_ENTITY},
		{OPR_ENTITY, "PUT", true, OP_UPDATE_ENTITY},
		{OPR_ENTITY, "PUT", false, OP_INSERT_OR_REPLACE},
		{OPR_ENTITY, "MERGE", true, OP_MERGE_ENTITY},
		{OPR_ENTITY, "PATCH", true, OP_MERGE_ENTITY},
		{OPR_ENTITY, "MERGE", false, OP_INSERT_OR_MERGE},
		{OPR_ENTITY, "PATCH", false, OP_INSERT_OR_MERGE},
		{OPR_ENTITY, "DELETE", true, OP_DELETE_ENTITY},
		{OPR_ENTITY, "DELETE", false, OP_DELETE_ENTITY},	/* then 400 MissingRequiredHeader */
		{OPR_BATCH, "POST", false, OP_BATCH},
		{OPR_TABLE, "OPTIONS", false, OP_PREFLIGHT},
		{OPR_SERVICE_PROPERTIES, "OPTIONS", false, OP_PREFLIGHT},
	};

	for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++)
	{
		const OpDef *d = find(routes[i].res, routes[i].verb, routes[i].if_match);

		CHECK(d != NULL && d->id == routes[i].want, "route %zu (%s) names %s", i, routes[i].verb,
			  d ? d->name : "nothing");
		if (d)
			reachable[d->id] = 1;
	}
	for (int i = 0; i < OP__COUNT; i++)
		CHECK(reachable[i], "operation %s is reachable", ops_def((OpId) i)->name);

	/* verbs no operation has: 405 with the resource's Allow list */
	CHECK(ops_find(OPR_ENTITY, "POST", false, &allowed) == NULL && allowed &&
		  strcmp(allowed, "GET, PUT, MERGE, PATCH, DELETE") == 0, "entity Allow: %s", allowed ? allowed : "-");
	CHECK(ops_find(OPR_TABLE_PARENS, "PUT", false, &allowed) == NULL && allowed && strcmp(allowed, "GET, POST") == 0,
		  "t() Allow: %s", allowed ? allowed : "-");
	CHECK(ops_find(OPR_TABLES_ONE, "PUT", false, &allowed) == NULL && allowed && strcmp(allowed, "GET, DELETE") == 0,
		  "Tables('t') Allow: %s", allowed ? allowed : "-");
	CHECK(ops_find(OPR_BATCH, "GET", false, &allowed) == NULL && allowed && strcmp(allowed, "POST") == 0,
		  "$batch Allow: %s", allowed ? allowed : "-");
	CHECK(ops_find(OPR_ENTITY, "get", false, &allowed) == NULL, "verbs are case-sensitive");

	/* every operation that writes is refused on the secondary; every changeset one writes but none reads */
	for (int i = 0; i < OP__COUNT; i++)
	{
		const OpDef *d = ops_def((OpId) i);

		CHECK(d->batch_op == NULL || (d->flags & OPF_WRITE), "%s in a changeset writes", d->name);
		CHECK(!(d->flags & OPF_WRITE) || strcmp(d->verbs, "GET") != 0, "%s: a GET that writes", d->name);
		CHECK(d->pk == PK_NONE || d->sas.table_sas, "%s: routed operations are the entity ones", d->name);
	}
}

/* ---------------------------------------------------------------- what a SAS allows */

static void
test_sas_needs(void)
{
	/* (ss=t assumed) srt and sp of an account SAS for each operation: the service's table */
	struct
	{
		OpId		op;
		const char *srt;
		const char *sp;
		bool		allowed;
	}			cases[] = {
		{OP_GET_SERVICE_PROPERTIES, "s", "r", true},
		{OP_GET_SERVICE_PROPERTIES, "co", "rwdlacu", false},
		{OP_SET_SERVICE_PROPERTIES, "s", "w", true},
		{OP_SET_SERVICE_PROPERTIES, "s", "r", false},
		{OP_GET_SERVICE_STATS, "s", "r", true},
		{OP_QUERY_TABLES, "c", "l", true},
		{OP_QUERY_TABLES, "c", "r", false},
		{OP_QUERY_TABLES, "so", "l", false},
		{OP_CREATE_TABLE, "c", "c", true},
		{OP_CREATE_TABLE, "c", "w", true},
		{OP_CREATE_TABLE, "c", "a", false},
		{OP_CREATE_TABLE, "o", "wc", false},
		{OP_DELETE_TABLE, "c", "d", true},
		{OP_DELETE_TABLE, "o", "d", false},
		{OP_GET_TABLE_ACL, "sco", "rwdlacup", false},
		{OP_SET_TABLE_ACL, "sco", "rwdlacup", false},
		{OP_GET_INDEXING_POLICY, "sco", "rwdlacup", false},
		{OP_SET_INDEXING_POLICY, "sco", "rwdlacup", false},
		/* entities need o: srt=c or sc lists nothing (the high finding) */
		{OP_QUERY_ENTITIES, "o", "r", true},
		{OP_QUERY_ENTITIES, "c", "r", false},
		{OP_QUERY_ENTITIES, "sc", "rl", false},
		{OP_GET_ENTITY, "o", "r", true},
		{OP_GET_ENTITY, "c", "r", false},
		{OP_INSERT_ENTITY, "o", "a", true},
		{OP_INSERT_ENTITY, "o", "w", false},
		{OP_INSERT_ENTITY, "c", "a", false},
		{OP_UPDATE_ENTITY, "o", "u", true},
		{OP_MERGE_ENTITY, "o", "u", true},
		{OP_MERGE_ENTITY, "o", "a", false},
		{OP_INSERT_OR_REPLACE, "o", "au", true},
		{OP_INSERT_OR_REPLACE, "o", "u", false},
		{OP_INSERT_OR_MERGE, "o", "a", false},
		{OP_DELETE_ENTITY, "o", "d", true},
		{OP_DELETE_ENTITY, "c", "d", false},
		{OP_BATCH, "o", "a", true},
		{OP_BATCH, "c", "rwdlacu", false},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		Sas			sas = {0};
		unsigned	bits = 0;
		const char *why = NULL;
		const char *code;

		sas.kind = SAS_ACCOUNT;
		for (const char *p = cases[i].srt; *p; p++)
			sas.types |= *p == 's' ? SAS_T_SERVICE : *p == 'c' ? SAS_T_CONTAINER : SAS_T_OBJECT;
		for (const char *p = cases[i].sp; *p; p++)
			bits |= 1u << (strchr("raudwlcp", *p) - "raudwlcp");
		sas.perms = bits;
		code = sas_allows(&sas, &ops_def(cases[i].op)->sas, "t", &why);
		CHECK((code == NULL) == cases[i].allowed, "account SAS srt=%s sp=%s for %s: %s", cases[i].srt, cases[i].sp,
			  ops_def(cases[i].op)->name, code ? code : "allowed");
		if (!cases[i].allowed && strchr(cases[i].srt, 'o') == NULL && cases[i].op >= OP_QUERY_ENTITIES &&
			cases[i].op <= OP_BATCH)
			CHECK(code && strcmp(code, "AuthorizationResourceTypeMismatch") == 0, "an entity operation without o: %s",
				  code ? code : "allowed");
	}
	/* a table's SAS: its own table's entities only */
	{
		Sas			sas = {0};
		const char *why = NULL;

		sas.kind = SAS_SERVICE;
		sas.table = "Orders";
		sas.perms = SAS_P_READ | SAS_P_ADD | SAS_P_UPDATE | SAS_P_DELETE;
		CHECK(sas_allows(&sas, &ops_def(OP_QUERY_ENTITIES)->sas, "orders", &why) == NULL, "table SAS: its table (any case)");
		CHECK(sas_allows(&sas, &ops_def(OP_QUERY_ENTITIES)->sas, "other", &why) != NULL, "table SAS: another table");
		CHECK(sas_allows(&sas, &ops_def(OP_QUERY_TABLES)->sas, NULL, &why) != NULL, "table SAS: Query Tables");
		CHECK(sas_allows(&sas, &ops_def(OP_CREATE_TABLE)->sas, NULL, &why) != NULL, "table SAS: Create Table");
		CHECK(sas_allows(&sas, &ops_def(OP_GET_TABLE_ACL)->sas, "orders", &why) != NULL, "table SAS: its ACL");
		CHECK(sas_allows(&sas, &ops_def(OP_GET_INDEXING_POLICY)->sas, "orders", &why) != NULL, "table SAS: its indexing policy");
		CHECK(sas_allows(&sas, &ops_def(OP_SET_INDEXING_POLICY)->sas, "orders", &why) != NULL, "table SAS: setting its indexing policy");
		sas.perms = SAS_P_ADD;
		CHECK(sas_allows(&sas, &ops_def(OP_INSERT_OR_MERGE)->sas, "orders", &why) != NULL, "table SAS: upsert needs a and u");
	}
}

/* ---------------------------------------------------------------- errors */

static void
test_errors(void)
{
	struct
	{
		const char *state;
		const char *code;
		int			status;
	}			states[] = {
		{"TSA01", "AuthorizationFailure", 403},
		{"TSA02", "AuthorizationFailure", 403},
		{"TSX02", "InternalError", 500},
		{"TSX03", "InternalError", 500},
		{"TSX04", "NotSupported", 400},
		{"TSN02", "TableNotFound", 404},
		{"TSC01", "EntityAlreadyExists", 409},
		{"TSP01", "UpdateConditionNotSatisfied", 412},
		{"TSB18", "RequestBodyTooLarge", 413},
		{"42501", "AuthorizationFailure", 403},
		{"40001", "ServerBusy", 503},
		{"08006", "ServerBusy", 503},
		{"57014", "OperationTimedOut", 500},
		{"22P02", "InvalidInput", 400},
		{"XX000", "InternalError", 500},
		{NULL, "InternalError", 500},
	};

	/* every code of the extension's error table has a status and the service's text */
	for (int c = TSE_NONE + 1; c < TSE__COUNT; c++)
	{
		const char *code = ts_error_service_code((TsErrorCode) c);

		CHECK(error_code_known(code), "%s (%s) has an HTTP status and a text", code, ts_error_sqlstate((TsErrorCode) c));
		CHECK(strcmp(sqlstate_code(ts_error_sqlstate((TsErrorCode) c)), code) == 0, "%s maps to %s",
			  ts_error_sqlstate((TsErrorCode) c), code);
	}
	for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++)
	{
		const char *code = sqlstate_code(states[i].state);

		CHECK(strcmp(code, states[i].code) == 0 && error_status(code) == states[i].status, "SQLSTATE %s: %s %d",
			  states[i].state ? states[i].state : "(none)", code, error_status(code));
	}
	CHECK(strcmp(error_text("UpdateConditionNotSatisfied"), "The update condition specified in the request was not satisfied.") == 0,
		  "the 412's text is the service's");
	CHECK(strcmp(error_text("PropertiesNeedValue"), "The values are not specified for all properties in the entity.") == 0,
		  "PropertiesNeedValue's text");
	CHECK(error_status("Md5Mismatch") == 400 && error_status("InsufficientAccountPermissions") == 403 &&
		  error_status("JsonVerboseFormatNotSupported") == 415, "statuses of the gateway's own codes");
}

/* ---------------------------------------------------------------- URLs */

static bool
accounts_cb(const char *name, size_t len, void *cls)
{
	(void) cls;
	return (len == 4 && memcmp(name, "acct", 4) == 0) || (len == 5 && memcmp(name, "other", 5) == 0);
}

static void
test_urls(void)
{
	Arena		a;
	Target		t;
	const char *err = NULL;
	const char *why = NULL;

	arena_init(&a, 1 << 20);
	CHECK(target_parse(&a, "/acct-secondary/t()", 19, NULL, accounts_cb, NULL, &t, &err) && t.secondary &&
		  strcmp(t.account, "acct") == 0 && t.kind == RES_TABLE && t.table_parens, "path-style secondary");
	CHECK(target_parse(&a, "/t()", 4, "acct-secondary.table.core.windows.net", accounts_cb, NULL, &t, &err) &&
		  t.secondary && t.host_style && strcmp(t.account, "acct") == 0, "host-style secondary");
	CHECK(target_parse(&a, "/t(PartitionKey='a''b',RowKey='%27')", 36, NULL, accounts_cb, NULL, &t, &err) == false ||
		  true, "keys parse or are refused");
	CHECK(target_parse(&a, "/acct/t(PartitionKey='a''b',RowKey='c%20d')", 43, NULL, accounts_cb, NULL, &t, &err) &&
		  t.kind == RES_ENTITY && strcmp(t.pk, "a'b") == 0 && strcmp(t.rk, "c d") == 0, "entity keys: quotes doubled, decoded once");
	CHECK(target_parse(&a, "/acct/t?comp=acl", 16, NULL, accounts_cb, NULL, &t, &err) &&
		  ops_resource(&t, NULL, query_get(&t.query, "comp"), &why) == OPR_TABLE_ACL, "?comp=acl");
	CHECK(target_parse(&a, "/acct/t?comp=indexingpolicy", 27, NULL, accounts_cb, NULL, &t, &err) &&
		  ops_resource(&t, NULL, query_get(&t.query, "comp"), &why) == OPR_TABLE_INDEXING, "?comp=indexingpolicy");
	CHECK(target_parse(&a, "/acct/Tables?comp=indexingpolicy", 32, NULL, accounts_cb, NULL, &t, &err) &&
		  ops_resource(&t, NULL, query_get(&t.query, "comp"), &why) == OPR_NONE, "Tables?comp=indexingpolicy is no resource");
	CHECK(target_parse(&a, "/acct/t()?comp=acl", 18, NULL, accounts_cb, NULL, &t, &err) &&
		  ops_resource(&t, NULL, query_get(&t.query, "comp"), &why) == OPR_NONE, "t()?comp=acl is no resource");
	CHECK(target_parse(&a, "/acct/t(PartitionKey='a',RowKey='b')?comp=acl", 45, NULL, accounts_cb, NULL, &t, &err) &&
		  ops_resource(&t, NULL, query_get(&t.query, "comp"), &why) == OPR_NONE, "?comp=acl on an entity is no resource");
	CHECK(target_parse(&a, "/acct/?restype=service&comp=stats", 33, NULL, accounts_cb, NULL, &t, &err) &&
		  ops_resource(&t, query_get(&t.query, "restype"), query_get(&t.query, "comp"), &why) == OPR_SERVICE_STATS,
		  "service stats");
	CHECK(!target_parse(&a, "/acct/t(PartitionKey='%00',RowKey='b')", 38, NULL, accounts_cb, NULL, &t, &err),
		  "an encoded NUL is refused");
	/* one trailing '/' is no part of the resource */
	CHECK(target_parse(&a, "/acct/Tables/", 13, NULL, accounts_cb, NULL, &t, &err) && t.kind == RES_TABLES &&
		  strcmp(t.raw_path, "/acct/Tables/") == 0, "Tables/ (the raw path kept for signatures)");
	CHECK(target_parse(&a, "/acct/t()/?$top=1", 17, NULL, accounts_cb, NULL, &t, &err) && t.kind == RES_TABLE && t.table_parens,
		  "t()/");
	CHECK(target_parse(&a, "/acct/$batch/", 13, NULL, accounts_cb, NULL, &t, &err) && t.kind == RES_BATCH, "$batch/");
	CHECK(target_parse(&a, "/acct/t(PartitionKey='a/',RowKey='b')/", 38, NULL, accounts_cb, NULL, &t, &err) &&
		  t.kind == RES_ENTITY && strcmp(t.pk, "a/") == 0, "an entity's address with a trailing / (a / in a key kept)");
	CHECK(target_parse(&a, "/acct/", 6, NULL, accounts_cb, NULL, &t, &err) && t.kind == RES_SERVICE, "/acct/ is the account");
	CHECK(!target_parse(&a, "/acct/Tables//", 14, NULL, accounts_cb, NULL, &t, &err), "Tables// is no resource");
	CHECK(!target_parse(&a, "/acct//", 7, NULL, accounts_cb, NULL, &t, &err), "/acct// is no resource");
	arena_free(&a);
}

/* ---------------------------------------------------------------- SAS parsing */

static void
test_sas_parse(void)
{
	Arena		a;
	Query		q;
	const char *err = NULL;
	AccountKeys keys = {0};
	SasInput	in = {0};
	Sas			out;
	char	   *sts;
	unsigned char mac[32];
	unsigned int ml = 0;
	char		sig[64],
				qs[512],
				enc[128];
	size_t		o = 0;

	arena_init(&a, 1 << 20);
	keys.key_len[0] = 16;
	memset(keys.key[0], 7, 16);
	/* an account SAS with srt=c, signed: verifies, and grants the container type only */
	snprintf(qs, sizeof(qs), "sv=2019-02-02&ss=t&srt=c&sp=rl&se=2999-01-01T00:00:00Z");
	CHECK(query_parse(&a, qs, strlen(qs), &q, &err), "SAS query parses");
	in.query = &q;
	in.account = "acct";
	in.now = 1700000000;
	sts = sas_string_to_sign(&in, SAS_ACCOUNT);
	HMAC(EVP_sha256(), keys.key[0], 16, (const unsigned char *) sts, strlen(sts), mac, &ml);
	free(sts);
	edm_base64_encode(mac, 32, sig);
	sig[44] = '\0';
	for (const char *p = sig; *p; p++)
		o += (size_t) snprintf(enc + o, sizeof(enc) - o, (*p == '+' || *p == '/' || *p == '=') ? "%%%02X" : "%c", *p);
	snprintf(qs + strlen(qs), sizeof(qs) - strlen(qs), "&sig=%s", enc);
	CHECK(query_parse(&a, qs, strlen(qs), &q, &err), "signed SAS query parses");
	in.query = &q;
	CHECK(sas_verify(&in, &keys, NULL, &out) == SAS_OK && out.kind == SAS_ACCOUNT && out.types == SAS_T_CONTAINER,
		  "an srt=c account SAS verifies with the container type only");
	{
		const char *why = NULL;

		CHECK(sas_allows(&out, &ops_def(OP_QUERY_ENTITIES)->sas, "t", &why) != NULL, "... and lists no entity");
		CHECK(sas_allows(&out, &ops_def(OP_QUERY_TABLES)->sas, NULL, &why) == NULL, "... and lists tables");
	}
	snprintf(qs, sizeof(qs), "sv=2019-02-02&ss=t&srt=x&sp=r&se=2999-01-01&sig=%s", enc);
	CHECK(query_parse(&a, qs, strlen(qs), &q, &err), "query parses");
	in.query = &q;
	CHECK(sas_verify(&in, &keys, NULL, &out) != SAS_OK, "srt with an unknown letter is refused");
	arena_free(&a);
}

/* ---------------------------------------------------------------- bodies, XML, CORS, codecs */

static void
test_parsers(void)
{
	Arena		a;
	BatchRequest br;
	const char *err = NULL;
	const char *empty = "--batch_1\r\nContent-Type: multipart/mixed; boundary=changeset_2\r\n\r\n--changeset_2--\r\n--batch_1--\r\n";
	const char *pi = "<?xml version=\"1.0\"?><SignedIdentifiers><?evil x?></SignedIdentifiers>";
	const char *decl = "<?xml version=\"1.0\" encoding=\"utf-8\"?><SignedIdentifiers/>";
	const char *late = " <?xml version=\"1.0\"?><SignedIdentifiers/>";
	bool		e;
	unsigned char out[16];

	arena_init(&a, 1 << 20);
	CHECK(batch_parse(&a, "multipart/mixed; boundary=batch_1", empty, strlen(empty), &br, &err) && br.n == 0,
		  "an empty changeset parses to no operation (%s)", err ? err : "");
	{
		const char *blank = "--batch_1\r\nContent-Type: multipart/mixed; boundary=changeset_2\r\n\r\n--changeset_2\r\n\r\n--changeset_2--\r\n\r\n--batch_1--";

		CHECK(batch_parse(&a, "multipart/mixed; boundary=batch_1", blank, strlen(blank), &br, &err) && br.n == 0,
			  "a changeset of one blank part (azure-data-tables' empty transaction) has no operation (%s)", err ? err : "");
	}
	/* one query alone, outside a changeset (LF-only too); two parts, or a query beside a changeset, are not a batch */
	{
		const char *alone = "--batch_1\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n"
			"GET http://h/acct/t(PartitionKey='a',RowKey='b') HTTP/1.1\r\nAccept: application/json;odata=nometadata\r\n\r\n--batch_1--\r\n";
		const char *lf = "--batch_1\nContent-Type: application/http\n\nGET /acct/t() HTTP/1.1\n\n--batch_1--\n";
		const char *two = "--batch_1\r\nContent-Type: application/http\r\n\r\nGET /acct/t() HTTP/1.1\r\n\r\n"
			"--batch_1\r\nContent-Type: application/http\r\n\r\nGET /acct/t() HTTP/1.1\r\n\r\n--batch_1--\r\n";
		const char *beside = "--batch_1\r\nContent-Type: multipart/mixed; boundary=changeset_2\r\n\r\n--changeset_2--\r\n"
			"--batch_1\r\nContent-Type: application/http\r\n\r\nGET /acct/t() HTTP/1.1\r\n\r\n--batch_1--\r\n";
		const char *text = "--batch_1\r\nContent-Type: text/plain\r\n\r\nGET /acct/t() HTTP/1.1\r\n\r\n--batch_1--\r\n";

		err = NULL;
		CHECK(batch_parse(&a, "multipart/mixed; boundary=batch_1", alone, strlen(alone), &br, &err) && br.n == 1 && br.alone &&
			  strcmp(br.ops[0].method, "GET") == 0 && strcmp(br.ops[0].accept, "application/json;odata=nometadata") == 0,
			  "a query alone parses to one operation outside a changeset (%s)", err ? err : "");
		CHECK(batch_parse(&a, "multipart/mixed; boundary=batch_1", lf, strlen(lf), &br, &err) && br.n == 1 && br.alone &&
			  strcmp(br.ops[0].url, "/acct/t()") == 0, "... with LF-only line endings (%s)", err ? err : "");
		{
			/* the headers run to the boundary, no blank line (as Azurite's REST tests write it) */
			const char *bare = "--batch_1\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n"
				"GET http://h/acct/t(PartitionKey='a',RowKey='2')? HTTP/1.1\r\nAccept: application/json\r\n--batch_1--\r\n";

			CHECK(batch_parse(&a, "multipart/mixed; boundary=batch_1", bare, strlen(bare), &br, &err) && br.n == 1 && br.alone &&
				  br.ops[0].body_len == 0 && strcmp(br.ops[0].accept, "application/json") == 0,
				  "a query alone whose headers end at the boundary (%s)", err ? err : "");
		}
		CHECK(!batch_parse(&a, "multipart/mixed; boundary=batch_1", two, strlen(two), &br, &err), "two queries are refused");
		CHECK(!batch_parse(&a, "multipart/mixed; boundary=batch_1", beside, strlen(beside), &br, &err), "a query beside a changeset is refused");
		CHECK(!batch_parse(&a, "multipart/mixed; boundary=batch_1", text, strlen(text), &br, &err), "a part neither a changeset nor a request is refused");
		CHECK(batch_parse(&a, "multipart/mixed; boundary=batch_1", empty, strlen(empty), &br, &err) && !br.alone, "a changeset is not alone");
	}
	CHECK(xml_parse(&a, decl, strlen(decl), &e, &err) != NULL, "the XML declaration is read");
	CHECK(xml_parse(&a, pi, strlen(pi), &e, &err) == NULL, "a processing instruction is refused");
	CHECK(xml_parse(&a, late, strlen(late), &e, &err) == NULL, "a declaration after whitespace is refused");

	/* the CRC-64/NVME check value: "123456789" */
	CHECK(crc64_azure((const unsigned char *) "123456789", 9) == UINT64_C(0xAE8B14860A799888), "crc64 check value");
	CHECK(b64_decode("AAAAAAAAAAAAAAAAAAAAAAAAAAAA", 28, out, sizeof(out)) == -1, "base64 past the capacity is refused");
	CHECK(b64_decode("AAAAAAAAAAAAAAAAAAAAAA==", 24, out, sizeof(out)) == 16, "base64 of 16 bytes");
	CHECK(b64_decode("AAAAAAAAAAAAAAAAAAAAAB==", 24, out, sizeof(out)) == -1, "non-canonical base64 is refused");

	/* exposed headers: a prefix becomes the response's headers that have it */
	{
		CorsRule	rule = {0};
		const char *names[] = {"x-ms-request-id", "x-ms-continuation-NextPartitionKey", "ETag", "X-MS-version"};
		Buf			b;

		rule.exposed_headers = "x-ms-*,ETag";
		buf_init(&b);
		props_cors_expose(&rule, names, 4, &b);
		CHECK(b.data && strcmp(b.data, "x-ms-request-id,x-ms-continuation-NextPartitionKey,X-MS-version,ETag") == 0,
			  "x-ms-* expanded: %s", b.data ? b.data : "");
		buf_free(&b);
	}
	{
		ServiceProps p;
		const char *doc = "<?xml version=\"1.0\"?><StorageServiceProperties><Cors><CorsRule><AllowedOrigins>*</AllowedOrigins>"
			"<AllowedMethods>GET,PUT</AllowedMethods><AllowedHeaders>*</AllowedHeaders><ExposedHeaders>*</ExposedHeaders>"
			"<MaxAgeInSeconds>5</MaxAgeInSeconds></CorsRule></Cors></StorageServiceProperties>";

		CHECK(props_parse(&a, doc, strlen(doc), &p, &err), "CORS rules parse (%s)", err ? err : "");
		CHECK(props_cors_match(&p, "http://x", "GET", NULL) != NULL, "a listed method matches");
		CHECK(props_cors_match(&p, "http://x", "get", NULL) == NULL, "methods compare case-sensitively");
	}
	/* allowed origins with wildcards: '*' stands for one or more characters, a path is dropped */
	{
		ServiceProps p;
		const char *doc = "<?xml version=\"1.0\"?><StorageServiceProperties><Cors><CorsRule>"
			"<AllowedOrigins>https://www.fabrikam.com/*, http://*.contoso.com,http://exact.example,http://a*b*c.example</AllowedOrigins>"
			"<AllowedMethods>GET</AllowedMethods><MaxAgeInSeconds>5</MaxAgeInSeconds></CorsRule></Cors></StorageServiceProperties>";
		const char *const yes[] = {"https://www.fabrikam.com", "http://app.contoso.com", "http://a.b.contoso.com", "HTTP://App.Contoso.COM",
		"http://exact.example", "http://aXbYc.example", "http://abbbbbbc.example", "http://a-b-c-b-c.example", NULL};
		const char *const no[] = {"http://www.fabrikam.com", "https://www.fabrikam.com.evil", "https://app.contoso.com", "http://contoso.com",
			"http://.contoso.com.evil", "http://evilcontoso.com", "http://app.contoso.com:80x", "http://exact.example.evil", "http://ac.example", "http://abc.example",
		"http://abc.example.x", "", NULL};
		char		longer[PROPS_MAX_ORIGIN + 32];

		CHECK(props_parse(&a, doc, strlen(doc), &p, &err), "origins with wildcards parse (%s)", err ? err : "");
		for (int i = 0; yes[i]; i++)
			CHECK(props_cors_match(&p, yes[i], "GET", NULL) != NULL, "origin %s is allowed", yes[i]);
		for (int i = 0; no[i]; i++)
			CHECK(props_cors_match(&p, no[i], "GET", NULL) == NULL, "origin %s is not allowed", no[i]);
		snprintf(longer, sizeof(longer), "http://%0*d.contoso.com", PROPS_MAX_ORIGIN, 0);
		CHECK(props_cors_match(&p, longer, "GET", NULL) == NULL, "an origin over %d characters matches no wildcard", PROPS_MAX_ORIGIN);
		doc = "<?xml version=\"1.0\"?><StorageServiceProperties><Cors><CorsRule><AllowedOrigins>http://a b</AllowedOrigins>"
			"<AllowedMethods>GET</AllowedMethods><MaxAgeInSeconds>5</MaxAgeInSeconds></CorsRule></Cors></StorageServiceProperties>";
		CHECK(!props_parse(&a, doc, strlen(doc), &p, &err), "an origin with a space is refused");
	}
	arena_free(&a);
}

/* ---------------------------------------------------------------- memory budgets (budget.c) */

static void
test_budget(void)
{
	const size_t MiB = 1024 * 1024;
	const size_t U = 4 * MiB + 64 * 1024;	/* one whole body */
	BudgetRules rules = {.limit = 64 * MiB, .guaranteed = 8 * MiB, .kept = 4 * MiB, .anonymous = 64 * 1024, .naccounts = 3};
	Budget	   *b = budget_create(&rules);
	BudgetKey	key_a,
				sas_a,
				sas_a2,
				key_b,
				key_c,
				anon_a,
				same;

	budget_key(&key_a, 0, "key", NULL, 0);
	budget_key(&sas_a, 0, "sas", "sig1", 4);
	budget_key(&sas_a2, 0, "sas", "sig2", 4);
	budget_key(&key_b, 1, "key", NULL, 0);
	budget_key(&key_c, 2, "key", NULL, 0);
	budget_key(&anon_a, 0, "anonymous", NULL, 0);
	budget_key(&same, 0, "sas", "sig1", 4);
	CHECK(memcmp(sas_a.cred, same.cred, BUDGET_DIGEST) == 0, "one SAS signature is one credential");
	CHECK(memcmp(sas_a.cred, sas_a2.cred, BUDGET_DIGEST) != 0, "two signatures are two credentials");
	CHECK(memcmp(sas_a.cred, key_a.cred, BUDGET_DIGEST) != 0, "a SAS is not the key");
	CHECK(anon_a.anonymous && !key_a.anonymous, "the anonymous holder is marked");

	/* alone, a credential may take all but the others' guaranteed room and its account's kept room */
	CHECK(budget_reach(b, &sas_a) == 64 * MiB - 2 * 8 * MiB - 4 * MiB, "a credential alone reaches 44 MiB (%zu)", budget_reach(b, &sas_a));
	CHECK(budget_take(b, &sas_a, 44 * MiB) == BUDGET_OK, "a credential takes what is free beyond its account's guarantee");
	CHECK(budget_take(b, &sas_a, 1) == BUDGET_CREDENTIAL, "one byte more would take the room kept for the account's key");
	CHECK(budget_credential_used(b, &sas_a) == 44 * MiB && budget_account_used(b, 0) == 44 * MiB, "counted for the credential and the account");
	/* the account's key has the kept room; other SASes do not */
	CHECK(budget_take(b, &sas_a2, 1) == BUDGET_CREDENTIAL, "another SAS of the account does not take the key's room");
	CHECK(budget_take(b, &key_a, 4 * MiB) == BUDGET_OK, "the account's key takes the room kept for it");
	CHECK(budget_take(b, &sas_a2, 1) == BUDGET_ACCOUNT, "then the account reaches the other accounts' guaranteed room");
	/* the other accounts: their guaranteed room is free */
	CHECK(budget_check(b, &key_b, 8 * MiB) == BUDGET_OK && budget_used(b) == 48 * MiB, "another account has its guaranteed room (check takes nothing)");
	CHECK(budget_take(b, &key_b, 8 * MiB + 1) == BUDGET_ACCOUNT, "but not more while the third account's is unused");
	CHECK(budget_take(b, &key_b, 8 * MiB) == BUDGET_OK && budget_take(b, &key_c, 8 * MiB) == BUDGET_OK, "each takes its guaranteed room");
	CHECK(budget_take(b, &key_c, 1) == BUDGET_GLOBAL, "then the whole budget is held");
	/* giving back frees room for whoever comes */
	budget_give(b, &sas_a, 44 * MiB);
	CHECK(budget_credential_used(b, &sas_a) == 0 && budget_account_used(b, 0) == 4 * MiB, "given back");
	CHECK(budget_take(b, &key_b, 20 * MiB) == BUDGET_OK, "another account borrows what is free");
	CHECK(budget_reach(b, &key_a) == 4 * MiB + 24 * MiB, "the key of the first reaches the rest (%zu)", budget_reach(b, &key_a));
	/* an anonymous holder: a small fixed amount */
	CHECK(budget_take(b, &anon_a, 64 * 1024) == BUDGET_OK && budget_take(b, &anon_a, 1) == BUDGET_CREDENTIAL, "an anonymous holder holds at most 64 KiB");
	budget_give(b, &anon_a, 64 * 1024);
	/* charge: past the limits (an answer built already), then room is refused */
	budget_charge(b, &key_b, 100 * MiB);
	CHECK(budget_check(b, &key_b, 1) == BUDGET_GLOBAL && budget_check(b, &key_a, 1) == BUDGET_GLOBAL, "a charge past the global limit leaves no room for anyone");
	CHECK(budget_take(b, &key_a, 1) == BUDGET_GLOBAL, "and nothing can be taken");
	budget_give(b, &key_b, 128 * MiB);
	budget_give(b, &key_a, 4 * MiB);
	budget_give(b, &key_c, 8 * MiB);
	CHECK(budget_used(b) == 0 && budget_account_used(b, 0) == 0 && budget_account_used(b, 1) == 0, "everything given back");
	CHECK(budget_take(b, &key_a, SIZE_MAX) != BUDGET_OK && budget_used(b) == 0, "a huge take does not overflow");
	budget_destroy(b);

	/* the rules from the settings */
	budget_rules(64 * MiB, 2, 10, 50, U, 2, 0, &rules);
	CHECK(rules.limit == 64 * MiB && rules.guaranteed == 64 * MiB / 10 && rules.kept == U,
		  "bodies, 2 accounts: 6.4 MiB guaranteed, one body kept (%zu %zu)", rules.guaranteed, rules.kept);
	CHECK(rules.limit - rules.guaranteed - rules.kept >= 2 * (4 * MiB + 1) + 10 * 4 * MiB,
		  "a SAS alone holds two whole bodies and ten more; the key a further one");
	budget_rules(64 * MiB, 1, 10, 50, U, 2, 0, &rules);
	CHECK(rules.limit - rules.kept == 64 * MiB - U, "one account: all but the kept room");
	budget_rules(64 * MiB, 32, 10, 50, U, 2, 0, &rules);
	CHECK(rules.guaranteed == MiB && rules.guaranteed * 31 <= 32 * MiB, "32 accounts: half the budget promised at most (%zu)", rules.guaranteed);
	budget_rules(4 * MiB, 3, 100, 100, U, 2, 0, &rules);
	CHECK(rules.limit == 3 * U && rules.limit - 2 * rules.guaranteed - rules.kept >= 2 * U,
		  "a small budget is raised so that two whole bodies fit for a credential alone (%zu %zu %zu)", rules.limit, rules.guaranteed, rules.kept);
	budget_rules(256 * MiB, 2, 10, 50, 19 * MiB, 1, 64 * 1024, &rules);
	CHECK(rules.guaranteed == 256 * MiB / 10 && rules.kept == 19 * MiB && rules.anonymous == 64 * 1024,
		  "answers: 25.6 MiB guaranteed, one page kept (%zu %zu)", rules.guaranteed, rules.kept);
}

/* ---------------------------------------------------------------- framing and singleton headers (framing.c) */

static bool
refused(const char *const *headers, bool http10, char *why, size_t whylen)
{
	Framing		f;

	framing_init(&f);
	for (int i = 0; headers[i]; i += 2)
		framing_add(&f, headers[i], headers[i + 1]);
	why[0] = '\0';
	return framing_refused(&f, http10, why, whylen);
}

static void
test_framing(void)
{
	char		why[160];
	const char *ok_req[] = {"Host", "x", "Content-Length", "5", "Accept", "a", "accept", "b", "Prefer", "p", "Prefer", "q", NULL};
	const char *no_host[] = {"Content-Length", "5", NULL};
	const char *cl_te[] = {"Host", "x", "Content-Length", "5", "Transfer-Encoding", "chunked", NULL};
	const char *te_gzip[] = {"Host", "x", "Transfer-Encoding", "gzip, chunked", NULL};
	const char *te_ok[] = {"Host", "x", "Transfer-Encoding", " Chunked ", NULL};
	const char *space[] = {"Host", "x", "Transfer-Encoding ", "chunked", NULL};
	const char *folded[] = {"Host", "x", "Content-Lengthchunked", "5", NULL};

	CHECK(!refused(ok_req, false, why, sizeof(why)), "one of each singleton, list headers repeated: accepted (%s)", why);
	CHECK(refused(no_host, false, why, sizeof(why)) && strstr(why, "Host") != NULL, "HTTP/1.1 without Host (%s)", why);
	CHECK(!refused(no_host, true, why, sizeof(why)), "HTTP/1.0 without Host: accepted (%s)", why);
	CHECK(refused(cl_te, false, why, sizeof(why)) && strstr(why, "both") != NULL, "Content-Length beside Transfer-Encoding (%s)", why);
	CHECK(refused(te_gzip, false, why, sizeof(why)), "a transfer coding other than chunked (%s)", why);
	CHECK(!refused(te_ok, false, why, sizeof(why)), "chunked, any case, spaces around: accepted (%s)", why);
	CHECK(refused(space, false, why, sizeof(why)) && strstr(why, "malformed") != NULL, "a space before the colon (%s)", why);
	CHECK(refused(folded, false, why, sizeof(why)), "a folded line run into Content-Length (%s)", why);
	CHECK(refused(te_ok, true, why, sizeof(why)) && strstr(why, "HTTP/1.0") != NULL, "HTTP/1.0 with Transfer-Encoding: faulty framing (%s)", why);
	{
		Framing		f;
		const char	v[] = "SharedKey a:b\0junk";

		framing_init(&f);
		framing_add_n(&f, "Host", 4, "x", 1);
		framing_add_n(&f, "Authorization", 13, v, sizeof(v) - 1);
		CHECK(framing_refused(&f, false, why, sizeof(why)) && strstr(why, "NUL") != NULL, "a NUL inside a header value (%s)", why);
		framing_init(&f);
		framing_add_n(&f, "Host", 4, "x", 1);
		framing_add_n(&f, "Authorization", 13, v, strlen(v));
		CHECK(!framing_refused(&f, false, why, sizeof(why)), "the lengths as measured: accepted (%s)", why);
	}

	/* every singleton, twice, in two cases: refused and named */
	for (int i = 0; framing_singleton(i); i++)
	{
		const char *name = framing_singleton(i);
		char		lower[64];
		const char *twice[] = {"Host", "x", name, "1", lower, "2", NULL};
		const char *once[] = {"Host", "x", name, "1", NULL};
		size_t		n = strlen(name);

		for (size_t k = 0; k <= n && k < sizeof(lower); k++)
			lower[k] = (char) ((name[k] >= 'A' && name[k] <= 'Z') ? name[k] + 32 : name[k]);
		if (strcmp(name, "Host") == 0)
			twice[0] = "X-Other";	/* Host is the header given twice */
		CHECK(refused(twice, false, why, sizeof(why)) && strstr(why, name) != NULL, "%s twice: refused, named (%s)", name, why);
		CHECK(strcmp(name, "Host") == 0 || !refused(once, false, why, sizeof(why)), "%s once: accepted (%s)", name, why);
	}
	{
		int			n = 0;

		while (framing_singleton(n))
			n++;
		CHECK(n >= 14, "the singleton list holds Host, Authorization, Content-MD5, the indexing policy and the others (%d)", n);
	}
}

/* ---------------------------------------------------------------- connection slots (slots.c) and bearer identity */

static void
test_slots_and_tokens(void)
{
	/* (a signature with other unused bits in its last character does not decode: no key verifies it) */
	const char *const spellings[] = {"Bearer h.p.c2lnbmF0dXI", "bearer h.p.c2lnbmF0dXI", "BEARER    h.p.c2lnbmF0dXI  ", NULL};
	unsigned char *first = NULL,
			   *id;
	size_t		first_len = 0,
				len;

	CHECK(slots_reserve(1000) == 100 && slots_reserve(100) == 16 && slots_reserve(10) == 5, "the reserve: a tenth, at least 16, half of a tiny limit");
	CHECK(slots_admit_counts(899, 126, 1000), "below the reserve anyone gets a connection");
	CHECK(!slots_admit_counts(900, 126, 1000) && !slots_admit_counts(999, SLOTS_LIGHT, 1000), "in the reserve, an address holding many does not");
	CHECK(slots_admit_counts(999, 0, 1000) && slots_admit_counts(950, SLOTS_LIGHT - 1, 1000), "but one holding few does");
	for (int i = 0; spellings[i]; i++)
	{
		CHECK(oauth_token_identity(spellings[i], &id, &len), "a bearer header has an identity (%s)", spellings[i]);
		if (i == 0)
		{
			first = id;
			first_len = len;
			continue;
		}
		CHECK(len == first_len && memcmp(id, first, len) == 0, "one token however it is spelled: %s", spellings[i]);
		free(id);
	}
	CHECK(oauth_token_identity("Bearer h.p.b3RoZXI", &id, &len) && (len != first_len || memcmp(id, first, len) != 0), "another signature, another identity");
	free(id);
	free(first);
	CHECK(!oauth_token_identity("SharedKey a:b", &id, &len) && id == NULL, "a key is not a token");
}

/* ---------------------------------------------------------------- x-ms-version */

static void
test_versions(void)
{
	const char *const yes[] = {"2009-04-14", "2015-04-05", "2019-02-02", "2020-12-06", "2026-06-06", "2026-06-07", "2099-12-31",
	"2400-02-29", "9999-12-31", NULL};
	const char *const no[] = {"", "invalid", "2019-02-03", "2020-01-01", "2009-04-13", "2008-10-27", "1999-12-31", "2099-02-29",
		"2100-02-29", "2099-13-01", "2099-00-10", "2099-04-31", "2099-4-01", "2019-02-02 ", " 2019-02-02", "2019-02-02x",
	"2019/02/02", "20190202", "+2019-02-02", NULL};

	for (int i = 0; yes[i]; i++)
		CHECK(version_accepted(yes[i], strlen(yes[i])), "x-ms-version %s is accepted", yes[i]);
	for (int i = 0; no[i]; i++)
		CHECK(!version_accepted(no[i], strlen(no[i])), "x-ms-version '%s' is refused", no[i]);
	CHECK(!version_accepted("2019-02-02", 9), "a cut version is refused");
	CHECK(!version_accepted(NULL, 0), "no version text: refused here (the router accepts a request without the header)");
	CHECK(strcmp(version_newest(), "2026-06-06") == 0, "the newest published version: %s", version_newest());
}

int
main(void)
{
	test_operations();
	test_sas_needs();
	test_errors();
	test_urls();
	test_sas_parse();
	test_parsers();
	test_budget();
	test_framing();
	test_slots_and_tokens();
	test_versions();
	test_route();
	printf("%d passed, %d failed\n", passed, failed);
	return failed == 0 ? 0 : 1;
}
