/*
 * fuzz_gw_url.c - libFuzzer target: the gateway's request-target parser (src/gateway/parse/url.c):
 * addressing style, account, percent-decoding, Tables('x'), t(), t(PartitionKey='..',RowKey='..').
 *
 * Input: "<host>\n<request target>". Properties: an accepted target has a raw path starting with
 * '/', an account, and the fields its kind needs; decoded keys hold no NUL and are valid UTF-8;
 * an entity address rebuilt from the keys (quotes doubled) parses back to the same keys.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "url.h"

int			LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

#define CHECK(cond, what) do { if (!(cond)) { fprintf(stderr, "fuzz property failed: %s\n", what); abort(); } } while (0)

static bool
is_account(const char *name, size_t len, void *cls)
{
	(void) cls;
	return (len == 16 && memcmp(name, "devstoreaccount1", 16) == 0) || (len == 4 && memcmp(name, "acct", 4) == 0);
}

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	Arena		a;
	Target		t;
	const char *err = NULL;
	const char *nl = memchr(data, '\n', size);
	char	   *host = NULL;
	const char *raw = (const char *) data;
	size_t		raw_len = size;

	if (size > 65536)
		return 0;
	arena_init(&a, 64 * 1024 * 1024);
	if (nl)
	{
		host = arena_strndup(&a, (const char *) data, (size_t) (nl - (const char *) data));
		raw = nl + 1;
		raw_len = size - (size_t) (nl - (const char *) data) - 1;
	}
	if (target_parse(&a, raw, raw_len, host, is_account, NULL, &t, &err))
	{
		CHECK(t.raw_path && t.raw_path[0] == '/', "the raw path starts with /");
		CHECK(t.account != NULL, "an account");
		if (t.kind == RES_TABLE || t.kind == RES_TABLES_ONE || t.kind == RES_ENTITY)
			CHECK(t.table && t.table[0], "a table name");
		if (t.kind == RES_ENTITY)
		{
			Target		t2;
			Buf			b;
			const char *err2 = NULL;

			CHECK(t.pk && t.rk, "both keys");
			CHECK(strlen(t.pk) == t.pk_len && strlen(t.rk) == t.rk_len, "keys hold no NUL");
			CHECK(edm_utf8_valid((const char *) t.pk, t.pk_len), "keys are UTF-8");
			/* rebuild the decoded resource with doubled quotes: it parses back to the same keys */
			buf_init(&b);
			buf_printf(&b, "%s(PartitionKey='", t.table);
			for (size_t i = 0; i < t.pk_len; i++)
				buf_append(&b, t.pk[i] == '\'' ? "''" : &t.pk[i], t.pk[i] == '\'' ? 2 : 1);
			buf_puts(&b, "',RowKey='");
			for (size_t i = 0; i < t.rk_len; i++)
				buf_append(&b, t.rk[i] == '\'' ? "''" : &t.rk[i], t.rk[i] == '\'' ? 2 : 1);
			buf_puts(&b, "')");
			CHECK(resource_parse(&a, b.data, b.len, &t2, &err2), "a rebuilt entity address parses");
			CHECK(t2.kind == RES_ENTITY && t2.pk_len == t.pk_len && memcmp(t2.pk, t.pk, t.pk_len) == 0 &&
				  t2.rk_len == t.rk_len && memcmp(t2.rk, t.rk, t.rk_len) == 0, "the rebuilt address has the same keys");
			buf_free(&b);
		}
		for (int i = 0; i < t.query.n; i++)
			CHECK(t.query.items[i].name && t.query.items[i].value, "query parameters are complete");
	}
	else
		CHECK(err != NULL && err[0], "a refused target has a reason");
	arena_free(&a);
	return 0;
}
