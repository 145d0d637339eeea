/*
 * unit.c - the gateway's C unit tests: the table of operations (ops.h), the error mapping
 * (errors.c over the extension's error table), URL and SAS parsing, the changeset parser, the
 * XML reader, CORS exposed headers and allowed origins, x-ms-version, the CRC64 of
 * x-ms-content-crc64, base64 capacity; route_test.c: the routed mode's shard hash and PartitionKeys;
 * the table of settings (every setting has a flag, a help line, a default that passes its own
 * check; --help lists them; a config-file key and its flag give the same value); the core's rules
 * the gateway calls (system property names, the calendar, Guids, entity URLs, the member loop).
 * Built by `make gateway-unit` (linked with every gateway object but main's); run by
 * test/gateway/run.sh. Prints one line per check and "N passed, N failed"; exits non-zero on a
 * failure.
 */
#include "budget.h"
#include "edm.h"
#include "json_lex.h"
#include "framing.h"
#include "gateway.h"
#include "multipart.h"
#include "props.h"
#include "config.h"
#include "sas.h"
#include "settings.h"
#include "slots.h"
#include "ts_error.h"
#include "unit.h"
#include "version.h"
#include "xml.h"

#include <openssl/hmac.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

	/* X-HTTP-Method (ops_verb): a POST tunnels MERGE, PATCH, PUT or DELETE; other verbs ignore it */
	CHECK(strcmp(ops_verb("POST", NULL), "POST") == 0, "POST without X-HTTP-Method is POST");
	CHECK(strcmp(ops_verb("POST", "MERGE"), "MERGE") == 0 && strcmp(ops_verb("POST", "PATCH"), "PATCH") == 0 &&
		  strcmp(ops_verb("POST", "PUT"), "PUT") == 0 && strcmp(ops_verb("POST", "DELETE"), "DELETE") == 0,
		  "POST tunnels MERGE, PATCH, PUT and DELETE");
	CHECK(ops_verb("POST", "GET") == NULL && ops_verb("POST", "POST") == NULL && ops_verb("POST", "merge") == NULL &&
		  ops_verb("POST", "") == NULL && ops_verb("POST", "MERGE ") == NULL && ops_verb("POST", "OPTIONS") == NULL,
		  "POST tunnels nothing else (case counts)");
	CHECK(strcmp(ops_verb("GET", "DELETE"), "GET") == 0 && strcmp(ops_verb("PUT", "bogus"), "PUT") == 0,
		  "X-HTTP-Method is ignored on other verbs");
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

/* ---------------------------------------------------------------- the table of settings (settings.c) */

/* A value for s other than its default, inside its check. */
static void
other_value(const Setting *s, char *buf, size_t len)
{
	switch (s->type)
	{
		case SET_INT:
		case SET_BYTES:
		case SET_MB:
			snprintf(buf, len, "%d", s->def && atoi(s->def) == s->hi ? s->lo : s->hi);
			break;
		case SET_STRING:
			snprintf(buf, len, "x-%s", s->key);
			break;
		case SET_CHOICE:
		case SET_SWITCH:
			for (int i = 0; s->choices[i]; i++)
				if (s->def == NULL || strcmp(s->choices[i], s->def) != 0)
					snprintf(buf, len, "%s", s->choices[i]);
			break;
		case SET_NODE:
			snprintf(buf, len, "n1=dbname=%s", s->key);
			break;
	}
}

static void
free_config(Config *c)
{
	for (int i = 0; i < gw_nsettings; i++)
		if (gw_settings[i].type == SET_STRING)
			free(*(char **) ((char *) c + gw_settings[i].offset));
	for (int i = 0; i < c->nnodes; i++)
		free(c->nodes[i].dsn);
}

static void
test_settings(void)
{
	static Config d,
				byfile,
				byflag;
	char		err[400],
				v[200],
				w[200];
	char		path[] = "/tmp/tablestore-gateway-unit-XXXXXX";
	char	   *argv[2 * 40 + 2];
	int			argc = 0;
	char		values[40][200];
	char		flags[40][64];
	char	   *help = NULL;
	size_t		help_len = 0;
	FILE	   *f;
	int			fd;
	GwArgs		args;

	CHECK(gw_nsettings > 20 && gw_nsettings <= 40, "the table has the gateway's settings (%d)", gw_nsettings);
	CHECK(settings_defaults(&d, err, sizeof(err)), "every default passes its own check (%s)", err);
	for (int i = 0; i < gw_nsettings; i++)
	{
		const Setting *s = &gw_settings[i];
		Config		one;

		CHECK(s->key && s->key[0] && s->flag && s->flag[0] && s->help && s->help[0],
			  "%s has a config key, a flag and a help line", s->key);
		CHECK(setting_by_key(s->key) == s && setting_by_flag(s->flag) == s, "%s: its key and flag name it alone", s->key);
		for (int k = 0; k < i; k++)
			CHECK(gw_settings[k].offset != s->offset, "%s and %s set different fields", gw_settings[k].key, s->key);
		CHECK(s->arg != NULL || s->type == SET_SWITCH, "%s: a flag without an argument is a switch", s->key);
		CHECK(strncmp(s->flag, "config", 7) != 0 && strcmp(s->flag, "help") != 0 && strcmp(s->flag, "version") != 0 &&
			  strcmp(s->flag, "print-sql") != 0, "%s: its flag is not one of the flags that act", s->key);
		if (s->def)
		{
			memset(&one, 0, sizeof(one));
			CHECK(setting_set(&one, s, s->def, err, sizeof(err)), "%s: its default %s passes its check (%s)", s->key, s->def, err);
			setting_format(&one, s, v, sizeof(v));
			setting_format(&d, s, w, sizeof(w));
			CHECK(strcmp(v, s->def) == 0 && strcmp(w, s->def) == 0, "%s: the default reads back as %s (%s, %s)", s->key, s->def, v, w);
			free_config(&one);
		}
		if (s->type == SET_INT || s->type == SET_BYTES || s->type == SET_MB)
		{
			char		below[32],
						above[32];

			memset(&one, 0, sizeof(one));
			snprintf(below, sizeof(below), "%d", s->lo - 1);
			snprintf(above, sizeof(above), "%lld", (long long) s->hi + 1);
			CHECK(!setting_set(&one, s, below, err, sizeof(err)) && strstr(err, s->key) != NULL &&
				  !setting_set(&one, s, above, err, sizeof(err)) && !setting_set(&one, s, "", err, sizeof(err)) &&
				  !setting_set(&one, s, "1x", err, sizeof(err)) && !setting_set(&one, s, "99999999999999999999", err, sizeof(err)),
				  "%s: out of range or not a number is refused, named (%s)", s->key, err);
		}
		if (s->type == SET_CHOICE || s->type == SET_SWITCH)
		{
			memset(&one, 0, sizeof(one));
			CHECK(!setting_set(&one, s, "bogus", err, sizeof(err)) && strstr(err, s->choices[0]) != NULL &&
				  !setting_set(&one, s, "", err, sizeof(err)), "%s: a word it does not know is refused (%s)", s->key, err);
		}
	}
	/* the defaults the gateway had before the table (doc/gateway.md's) */
	CHECK(d.port == 10002 && d.threads == 4 && d.pool_size == 4 && d.queue_max == 256 && d.queue_timeout_ms == 10000 &&
		  d.conn_timeout_s == 30 && d.request_timeout_s == 60 && d.statement_timeout_ms == 30000 &&
		  d.max_connections == 1000 && d.per_ip_connections == 128 && d.header_limit == 32768 &&
		  d.body_memory == 64u * 1024 * 1024 && d.response_memory == 256u * 1024 * 1024 && d.account_share_pct == 10 &&
		  d.credential_share_pct == 50 && d.send_timeout_s == 10 && d.log_level == LOG_REQUESTS &&
		  strcmp(d.listen_addr, "127.0.0.1") == 0 && d.default_dsn == NULL && d.tls_cert == NULL && !d.oauth &&
		  !d.allow_dev_account && d.nnodes == 0, "the defaults are the documented ones");

	/* --help names every flag with its argument and default */
	f = open_memstream(&help, &help_len);
	settings_usage(f);
	fclose(f);
	for (int i = 0; i < gw_nsettings; i++)
	{
		const Setting *s = &gw_settings[i];
		char		want[128];
		const char *at;

		snprintf(want, sizeof(want), "  --%s%s%s ", s->flag, s->arg ? " " : "", s->arg ? s->arg : "");
		at = strstr(help, want);
		snprintf(want, sizeof(want), "(default %s", s->def ? s->def : "");
		CHECK(at != NULL && (s->def == NULL || strstr(at, want) != NULL), "--help lists --%s%s", s->flag,
			  s->def ? " with its default" : "");
	}
	CHECK(strstr(help, "--config FILE") && strstr(help, "--print-sql") && strstr(help, "--version") && strstr(help, "AZURITE_ACCOUNTS"),
		  "--help lists the flags that act and the accounts");
	free(help);

	/* every setting set by its config-file key and by its flag: the same value, not the default */
	fd = mkstemp(path);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	argv[argc++] = "tablestore-gateway";
	for (int i = 0; i < gw_nsettings && f; i++)
	{
		const Setting *s = &gw_settings[i];

		other_value(s, values[i], sizeof(values[i]));
		fprintf(f, "%s = %s\n", s->key, values[i]);
		snprintf(flags[i], sizeof(flags[i]), "--%s", s->flag);
		argv[argc++] = flags[i];
		if (s->arg)
			argv[argc++] = values[i];
	}
	argv[argc] = NULL;
	if (f)
		fclose(f);
	CHECK(settings_defaults(&byfile, err, sizeof(err)) && config_load_file(&byfile, path, err, sizeof(err)),
		  "a config file with every key loads (%s)", err);
	CHECK(settings_defaults(&byflag, err, sizeof(err)) && settings_parse_args(argc, argv, &args, err, sizeof(err)) &&
		  settings_apply_args(&byflag, &args, err, sizeof(err)), "a command line with every flag applies (%s)", err);
	CHECK(args.n == gw_nsettings && args.config_file == NULL && !args.help, "every flag is read as its setting (%d)", args.n);
	for (int i = 0; i < gw_nsettings; i++)
	{
		const Setting *s = &gw_settings[i];

		setting_format(&byfile, s, v, sizeof(v));
		setting_format(&byflag, s, w, sizeof(w));
		setting_format(&d, s, err, sizeof(err));
		CHECK(strcmp(v, w) == 0 && strcmp(v, err) != 0, "%s = %s and --%s give the same value (%s, %s; default %s)",
			  s->key, values[i], s->flag, v, w, err);
	}
	unlink(path);
	free_config(&byfile);
	free_config(&byflag);
	free_config(&d);

	/* the flags that act, and bad command lines */
	{
		char	   *acts[] = {"gw", "--config", "/x.conf", "--print-sql", "--help", "--version", NULL};
		char	   *extra[] = {"gw", "--port", "1", "stray", NULL};
		char	   *bad[] = {"gw", "--port", "x", NULL};

		CHECK(settings_parse_args(6, acts, &args, err, sizeof(err)) && strcmp(args.config_file, "/x.conf") == 0 &&
			  args.print_sql && args.help && args.version && args.n == 0, "--config, --print-sql, --help, --version");
		CHECK(!settings_parse_args(4, extra, &args, err, sizeof(err)) && strstr(err, "stray") != NULL,
			  "an argument that is no flag is refused (%s)", err);
		CHECK(settings_defaults(&d, err, sizeof(err)) && settings_parse_args(3, bad, &args, err, sizeof(err)) &&
			  !settings_apply_args(&d, &args, err, sizeof(err)) && strstr(err, "--port") != NULL,
			  "a bad value is refused with its flag named (%s)", err);
		free_config(&d);
	}
}

/* ---------------------------------------------------------------- the core rules the gateway calls */

static void
test_core_rules(void)
{
	const struct
	{
		const char *name;
		EdmSystemProp want;
	}			names[] = {
		{"PartitionKey", EDM_SYS_PARTITION_KEY}, {"RowKey", EDM_SYS_ROW_KEY}, {"Timestamp", EDM_SYS_TIMESTAMP},
		{"partitionkey", EDM_SYS_NONE}, {"PartitionKe", EDM_SYS_NONE}, {"PartitionKeys", EDM_SYS_NONE},
		{"ROWKEY", EDM_SYS_NONE}, {"RowKez", EDM_SYS_NONE}, {"Timestamps", EDM_SYS_NONE}, {"", EDM_SYS_NONE},
		{"AbcdefRowKey", EDM_SYS_NONE}, {"Row Key", EDM_SYS_NONE},
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		CHECK(edm_system_prop(names[i].name, strlen(names[i].name)) == names[i].want, "system property name \"%s\"", names[i].name);
	CHECK(edm_system_prop("PartitionKeyX", 12) == EDM_SYS_PARTITION_KEY, "the length given counts, not the NUL");
	CHECK(edm_system_prop("RowKey", 5) == EDM_SYS_NONE, "a cut name is none");
	CHECK(edm_system_prop("RowKey\0", 7) == EDM_SYS_NONE, "a name with a NUL after RowKey is none");
	{
		char		a[40],
					b[40];
		bool		shape = true;

		uuid_v4(a);
		uuid_v4(b);
		for (int i = 0; i < 36; i++)
			shape &= (i == 8 || i == 13 || i == 18 || i == 23) ? a[i] == '-' :
				((a[i] >= '0' && a[i] <= '9') || (a[i] >= 'a' && a[i] <= 'f'));
		CHECK(strlen(a) == 36 && shape && a[14] == '4' && strchr("89ab", a[19]) != NULL && strcmp(a, b) != 0,
			  "a request id is a version 4 UUID in the Guid's text: %s", a);
	}
	{
		/* the calendar: RFC 1123 dates (Shared Key) and SAS times read through the core's */
		const struct
		{
			const char *text;
			long long	secs;		/* -1: refused */
		}			dates[] = {
			{"Thu, 01 Jan 1970 00:00:00 GMT", 0},
			{"Sun, 06 Nov 1994 08:49:37 GMT", 784111777},
			{"Tue, 29 Feb 2000 12:00:00 GMT", 951825600},
			{"Thu, 29 Feb 2024 23:59:59 GMT", 1709251199},
			{"Fri, 31 Dec 2099 23:59:60 GMT", 4102444800LL},
			{"Sat, 29 Feb 2100 00:00:00 GMT", -1},
			{"Wed, 29 Feb 2023 00:00:00 GMT", -1},
			{"Mon, 31 Apr 2024 00:00:00 GMT", -1},
			{"Mon, 00 Jan 2024 00:00:00 GMT", -1},
			{"Wed, 31 Dec 1969 23:59:59 GMT", -1},
			{"Xyz, 01 Jan 2024 00:00:00 GMT", -1},
			{"Mon, 01 Foo 2024 00:00:00 GMT", -1},
			{"Mon, 01 Jan 2024 24:00:00 GMT", -1},
		}, sas_times[] = {
			{"1970-01-01", 0},
			{"2024-02-29", 1709164800},
			{"2000-02-29T01:02Z", 951786120},
			{"2024-12-31T23:59:59.1234567Z", 1735689599},
			{"2100-02-29", -1},
			{"2023-02-29", -1},
			{"2024-04-31", -1},
			{"2024-13-01", -1},
			{"2024-00-01", -1},
			{"1969-12-31", -1},
			{"2024-01-01T24:00Z", -1},
		};

		for (size_t i = 0; i < sizeof(dates) / sizeof(dates[0]); i++)
		{
			time_t		t = 0;
			bool		ok = auth_parse_date(dates[i].text, &t);

			CHECK(dates[i].secs < 0 ? !ok : ok && (long long) t == dates[i].secs, "Date %s: %s %lld", dates[i].text,
				  ok ? "accepted" : "refused", (long long) t);
		}
		for (size_t i = 0; i < sizeof(sas_times) / sizeof(sas_times[0]); i++)
		{
			time_t		t = 0;
			bool		ok = sas_parse_time(sas_times[i].text, &t);

			CHECK(sas_times[i].secs < 0 ? !ok : ok && (long long) t == sas_times[i].secs, "SAS time %s: %s %lld",
				  sas_times[i].text, ok ? "accepted" : "refused", (long long) t);
		}
	}
	{
		/* entity URLs: the Location header's keys (the extension writes odata.id with the same code) */
		const struct
		{
			const char *pk,
					   *rk,
					   *want;
		}			keys[] = {
			{"p1", "r1", "(PartitionKey='p1',RowKey='r1')"},
			{"", "", "(PartitionKey='',RowKey='')"},
			{"it's", "a''b", "(PartitionKey='it''s',RowKey='a''''b')"},
			{"a b/c?d#e", "%2F", "(PartitionKey='a%20b%2Fc%3Fd%23e',RowKey='%252F')"},
			{"-._~AZaz09", "\xc3\xa9\xe2\x82\xac", "(PartitionKey='-._~AZaz09',RowKey='%C3%A9%E2%82%AC')"},
			{"(x,y)=", "\x01\x7f", "(PartitionKey='%28x%2Cy%29%3D',RowKey='%01%7F')"},
		};

		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		{
			Buf			b;

			buf_init(&b);
			edm_put_key_path(buf_put, &b, keys[i].pk, strlen(keys[i].pk), keys[i].rk, strlen(keys[i].rk));
			CHECK(!b.failed && strcmp(b.data, keys[i].want) == 0, "entity URL keys %s", b.data ? b.data : "(none)");
			buf_free(&b);
		}
	}
	{
		/* the member loop of every JSON object reader (json_lex.h) */
		const struct
		{
			const char *json;
			const char *names;	/* the names read, joined by ','; NULL: refused */
		}			objects[] = {
			{"{}", ""}, {" { } ", ""}, {"{\"a\":1}", "a"}, {"{\"a\":{\"x\":[1,{}]},\"b\":null}", "a,b"},
			{"{\"\\u0041\\n\":true , \"\":\"\"}", "A\n,"},
			{"{", NULL}, {"{\"a\":1,}", NULL}, {"{,}", NULL}, {"{\"a\" 1}", NULL}, {"{\"a\":1 \"b\":2}", NULL},
			{"{a:1}", NULL}, {"{\"a\":1", NULL}, {"{\"a\":1,,\"b\":2}", NULL}, {"{\"\\ud800\":1}", NULL},
		};

		for (size_t i = 0; i < sizeof(objects) / sizeof(objects[0]); i++)
		{
			JsonLex		lx;
			JsonToken	t;
			TsError		err = {0};
			char		names[64] = "";
			bool		ok = true;

			json_lex_init(&lx, objects[i].json, strlen(objects[i].json), &err, TSE_INVALID_JSON, "test");
			ok = json_expect(&lx, &t, JT_LBRACE, "an object");
			for (bool first = true; ok;)
			{
				ok = json_next_member(&lx, &first, &t, true);
				if (!ok || t.kind == JT_RBRACE)
					break;
				snprintf(names + strlen(names), sizeof(names) - strlen(names), "%.*s,", (int) t.len, t.p);
				ok = json_skip_value(&lx, 8, NULL);
			}
			if (ok && names[0])
				names[strlen(names) - 1] = '\0';
			CHECK(objects[i].names ? ok && strcmp(names, objects[i].names) == 0 : !ok && err.msg[0] != '\0',
				  "JSON object %s: %s (%s)", objects[i].json, ok ? names : "refused", err.msg);
		}
	}
	CHECK(edm_is_key_name("RowKey", 6) && edm_is_key_name("PartitionKey", 12) && !edm_is_key_name("Timestamp", 9),
		  "the keys are PartitionKey and RowKey");
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
	test_core_rules();
	test_settings();
	test_route();
	printf("%d passed, %d failed\n", passed, failed);
	return failed == 0 ? 0 : 1;
}
