/*
 * route_test.c - the gateway's routed mode (route.c) in unit tests: the shard of a PartitionKey
 * (the core's shard_hash.c, built for the frontend) over the 10 000 keys test/sql/shard_of.sql checks
 * against PostgreSQL's hash partitioning, digest for digest; and the PartitionKey of an entity
 * body and of a $filter (core/protocol/route_key.c), on good and hostile input.
 */
#include "gateway.h"
#include "pgalloc.h"
#include "route.h"
#include "shard_hash.h"
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- the shard hash */

static size_t
put_utf8(char *out, unsigned cp)
{
	if (cp < 0x80)
		return out[0] = (char) cp, 1;
	if (cp < 0x800)
		return out[0] = (char) (0xC0 | cp >> 6), out[1] = (char) (0x80 | (cp & 0x3F)), 2;
	if (cp < 0x10000)
		return out[0] = (char) (0xE0 | cp >> 12), out[1] = (char) (0x80 | ((cp >> 6) & 0x3F)),
			out[2] = (char) (0x80 | (cp & 0x3F)), 3;
	out[0] = (char) (0xF0 | cp >> 18);
	out[1] = (char) (0x80 | ((cp >> 12) & 0x3F));
	out[2] = (char) (0x80 | ((cp >> 6) & 0x3F));
	out[3] = (char) (0x80 | (cp & 0x3F));
	return 4;
}

/* Key i of test/sql/shard_of.sql's regress_keys, into buf; its length. */
static size_t
regress_key(int i, char *buf)
{
	size_t		n = 0;

	if (i == 0)
		return 0;
	switch (i % 5)
	{
		case 0:
			return (size_t) sprintf(buf, "k%d", i);
		case 1:
			for (int k = 0; k < i % 300; k++)
				n += put_utf8(buf + n, 233);
			return n;
		case 2:
			n += put_utf8(buf + n, 19968 + i % 20000);
			n += put_utf8(buf + n, 128512 + i % 80);
			return n + (size_t) sprintf(buf + n, "%d", i);
		case 3:
			memset(buf, 'a' + i % 26, i % 4096);
			return (size_t) (i % 4096);
		default:
			n = (size_t) sprintf(buf, "p%d", i);
			buf[n++] = (char) (1 + i % 31);
			return n;
	}
}

static void
test_shard_hash(void)
{
	/* test/sql/shard_of.sql's digests: sum((i + 1) * shard_of(key i, m)), PostgreSQL's own placement */
	static const struct
	{
		int			m;
		long long	digest;
	}			want[] = {
		{1, 0}, {2, 25466289}, {7, 149753977}, {32, 745647373}, {1000, 24965813741LL}, {1024, 25195387341LL}
	};
	char	   *buf = malloc(8192);

	for (size_t w = 0; w < sizeof(want) / sizeof(want[0]); w++)
	{
		long long	digest = 0;
		bool		in_range = true;

		for (int i = 0; i < 10000; i++)
		{
			size_t		len = regress_key(i, buf);
			int			s = ts_shard_of_key(buf, len, want[w].m);

			in_range &= s >= 0 && s < want[w].m;
			digest += (long long) (i + 1) * s;
		}
		CHECK(in_range && digest == want[w].digest, "shard_of over 10 000 keys at modulus %d: digest %lld (PostgreSQL: %lld)",
			  want[w].m, digest, want[w].digest);
	}
	CHECK(ts_shard_of_key("", 0, 32) == ts_shard_of_key("x", 0, 32), "the empty key is the bytes' (none), not the pointer");
	free(buf);
}

/* ---------------------------------------------------------------- the routing key */

static Req	req;

/* the key route.c reads in body (NULL: none), compared with want */
static bool
body_key_is(const char *body, size_t len, const char *want)
{
	char	   *got = route_body_partition_key(&req, body, len);

	return want == NULL ? got == NULL : got != NULL && strcmp(got, want) == 0;
}

static bool
filter_key_is(const char *filter, const char *want)
{
	char	   *got = route_filter_partition_key(&req, filter);

	return want == NULL ? got == NULL : got != NULL && strcmp(got, want) == 0;
}

static void
test_body_key(void)
{
	static const struct
	{
		const char *body;
		const char *want;
		const char *what;
	}			cases[] = {
		{"{\"PartitionKey\":\"a\",\"RowKey\":\"b\"}", "a", "a plain entity"},
		{" {\n\t\"RowKey\" : \"b\" ,\r\n \"PartitionKey\" : \"a\" } \n", "a", "white space anywhere JSON has it"},
		{"{\"PartitionKey\":\"\",\"RowKey\":\"b\"}", "", "the empty PartitionKey"},
		{"{\"PartitionKey\":\"a\\\"b\\\\c\"}", "a\"b\\c", "escaped quote and backslash"},
		{"{\"PartitionKey\":\"\\u0027x\\u00e9\"}", "'x\xc3\xa9", "unicode escapes \\u0027 and \\u00e9"},
		{"{\"PartitionKey\":\"\\ud83d\\ude00\"}", "\xf0\x9f\x98\x80", "a surrogate pair"},
		{"{\"Partition\\u004bey\":\"k\"}", "k", "the member name escaped"},
		{"{\"PartitionKey@odata.type\":\"Edm.String\",\"PartitionKey\":\"a\"}", "a", "the key's type annotation first"},
		{"{\"Note\":\"\\\"PartitionKey\\\":\\\"x\\\"\",\"PartitionKey\":\"y\"}", "y", "PartitionKey inside another member's string"},
		{"{\"Note\":\"\\\"PartitionKey\\\":\\\"x\\\"\"}", NULL, "PartitionKey only inside a string"},
		{"{\"Other\":{\"PartitionKey\":\"x\"},\"PartitionKey\":\"y\"}", "y", "PartitionKey in a nested object"},
		{"{\"Other\":[{\"PartitionKey\":\"x\"}]}", NULL, "PartitionKey only nested"},
		{"{\"PartitionKey\":\"a\",\"PartitionKey\":\"b\"}", NULL, "PartitionKey twice"},
		{"{\"PartitionKey\":\"a\",\"PartitionKey\":\"a\"}", NULL, "PartitionKey twice, the same"},
		{"{\"PartitionKey\":null,\"PartitionKey\":\"b\"}", NULL, "PartitionKey null, then again"},
		{"{\"PartitionKey\":null}", NULL, "PartitionKey null (absent)"},
		{"{\"PartitionKey\":1}", NULL, "PartitionKey a number"},
		{"{\"PartitionKey\":[\"a\"]}", NULL, "PartitionKey an array"},
		{"{\"partitionkey\":\"a\"}", NULL, "names are case-sensitive"},
		{"{\"RowKey\":\"b\"}", NULL, "no PartitionKey"},
		{"{}", NULL, "an empty object"},
		{"[{\"PartitionKey\":\"a\"}]", NULL, "an array"},
		{"\"PartitionKey\"", NULL, "a string"},
		{"", NULL, "an empty body"},
		{"{\"PartitionKey\":\"a\"", NULL, "the object not closed"},
		{"{\"PartitionKey\":\"a}", NULL, "the string not closed"},
		{"{\"PartitionKey\":\"a\"} x", NULL, "something after the object"},
		{"{\"PartitionKey\":\"a\"}{}", NULL, "two objects"},
		{"{\"PartitionKey\":\"a\",}", NULL, "a trailing comma"},
		{"{\"PartitionKey\" \"a\"}", NULL, "no colon"},
		{"{'PartitionKey':'a'}", NULL, "single quotes"},
		{"{\"PartitionKey\":\"a\\u0000b\"}", NULL, "U+0000 in the key"},
		{"{\"PartitionKey\":\"a\\x\"}", NULL, "an unknown escape"},
		{"{\"PartitionKey\":\"\\ud83d\"}", NULL, "a lone surrogate"},
		{"{\"PartitionKey\":\"a\xff\"}", NULL, "invalid UTF-8"},
		{"{\"PartitionKey\":\"a\tb\"}", NULL, "a raw control character"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK(body_key_is(cases[i].body, strlen(cases[i].body), cases[i].want), "body key: %s", cases[i].what);
	CHECK(body_key_is("{\"PartitionKey\":\"a\"}\0garbage", 28, NULL), "a NUL after the object");
	CHECK(body_key_is("{\"PartitionKey\":\"a\"}xx", 20, "a"), "the body's length, not its NUL, ends it");
	CHECK(route_body_partition_key(&req, NULL, 0) == NULL, "no body");

	/* huge: 200 000 members before the key, a 1 MiB string, nesting past the tokenizer's depth */
	{
		size_t		cap = 8 << 20,
					n = 0;
		char	   *big = malloc(cap);

		n += (size_t) sprintf(big + n, "{");
		for (int k = 0; k < 200000; k++)
			n += (size_t) sprintf(big + n, "\"P%d\":%d,", k, k);
		n += (size_t) sprintf(big + n, "\"Blob\":\"");
		memset(big + n, 'x', 1 << 20);
		n += 1 << 20;
		n += (size_t) sprintf(big + n, "\",\"PartitionKey\":\"last\"}");
		CHECK(body_key_is(big, n, "last"), "a key after 200 000 members and a 1 MiB string (%zu bytes)", n);
		n = 0;
		n += (size_t) sprintf(big + n, "{\"Deep\":");
		for (int k = 0; k < 100000; k++)
			big[n++] = '[';
		for (int k = 0; k < 100000; k++)
			big[n++] = ']';
		n += (size_t) sprintf(big + n, ",\"PartitionKey\":\"a\"}");
		CHECK(body_key_is(big, n, NULL), "arrays nested 100 000 deep: refused, no crash");
		n = 0;
		n += (size_t) sprintf(big + n, "{\"PartitionKey\":\"");
		for (int k = 0; k < 100000; k++)
			n += (size_t) sprintf(big + n, "\\u0027");
		n += (size_t) sprintf(big + n, "\"}");
		{
			char	   *got = route_body_partition_key(&req, big, n);

			CHECK(got != NULL && strlen(got) == 100000 && strspn(got, "'") == 100000, "a key of 100 000 escapes decoded");
		}
		free(big);
	}
}

static void
test_filter_key(void)
{
	static const struct
	{
		const char *filter;
		const char *want;
	}			cases[] = {
		{"PartitionKey eq 'a'", "a"},
		{"PartitionKey eq 'a''b'", "a'b"},
		{"PartitionKey eq ''''", "'"},
		{"PartitionKey eq ''", ""},
		{"PartitionKey eq '\xc3\xa9\xf0\x9f\x98\x80'", "\xc3\xa9\xf0\x9f\x98\x80"},
		{"  PartitionKey   eq\t'a'  ", "a"},
		{"'a' eq PartitionKey", "a"},
		{"PartitionKey eq 'a' and RowKey ge 'x'", "a"},
		{"RowKey lt 'z' and PartitionKey eq 'a' and RowKey gt 'b'", "a"},
		{"(PartitionKey eq 'a')", "a"},
		{"((((PartitionKey eq 'a'))) and ((RowKey eq 'b')))", "a"},
		{"PartitionKey eq 'a' and (RowKey ge 'b' and RowKey lt 'c')", "a"},
		{"not (PartitionKey ne 'a')", "a"},
		{"not (PartitionKey ne 'a' or RowKey lt 'b')", "a"},
		{"PartitionKey eq 'a' and true", "a"},
		{"true and PartitionKey eq 'a'", "a"},
		{"PartitionKey eq 'a' or false", "a"},
		{"not false and PartitionKey eq 'a'", "a"},
		{"PartitionKey eq 'a' and PartitionKey eq 'b'", "b"},	/* nothing matches: the extension routes to the last */
		{"PartitionKey eq 'a' or PartitionKey eq 'b'", NULL},
		{"PartitionKey eq 'a' or PartitionKey eq 'a'", NULL},
		{"PartitionKey eq 'a' or RowKey eq 'b'", NULL},
		{"PartitionKey eq 'a' and (RowKey eq 'b' or RowKey eq 'c')", NULL},
		{"not (PartitionKey eq 'a')", NULL},
		{"not PartitionKey eq 'a'", NULL},
		{"PartitionKey ne 'a'", NULL},
		{"PartitionKey ge 'a' and PartitionKey le 'a'", NULL},
		{"PartitionKey eq 'a' and PartitionKey ge 'a'", NULL},
		{"PartitionKey eq 'a' and RowKey ne 'b'", NULL},
		{"PartitionKey eq 'a' and Age gt 3", NULL},
		{"PartitionKey eq 'a' and false", NULL},
		{"PartitionKey eq 'a' or true", NULL},
		{"PartitionKey eq 1", NULL},
		{"PartitionKey eq guid'68260b3f-beab-45e2-b900-33e2b442e724'", NULL},
		{"partitionkey eq 'a'", NULL},
		{"PartitionKey eq 'a", NULL},
		{"PartitionKey eq 'a' and", NULL},
		{"(PartitionKey eq 'a'", NULL},
		{"PartitionKey eq 'a')", NULL},
		{"PartitionKey eq null", NULL},
		{"Name eq 'PartitionKey eq ''x'''", NULL},
		{"Name eq 'x or PartitionKey eq ''y'' and '", NULL},
		{"PartitionKey eq 'x' or Name eq 'not '", NULL},
		{"", NULL},
		{"true", NULL},
		{"false", NULL},
		{"RowKey eq 'a'", NULL},
		{"PartitionKey eq 'a\xff'", NULL},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK(filter_key_is(cases[i].filter, cases[i].want), "filter key of \"%s\": %s", cases[i].filter,
			  cases[i].want ? cases[i].want : "none");
	CHECK(route_filter_partition_key(&req, NULL) == NULL, "no filter");

	/* huge: parentheses 100 000 deep; 20 000 conjuncts (past any comparison limit the nodes may set) */
	{
		size_t		n = 0;
		char	   *big = malloc(1 << 20);

		for (int k = 0; k < 100000; k++)
			big[n++] = '(';
		n += (size_t) sprintf(big + n, "PartitionKey eq 'deep'");
		for (int k = 0; k < 100000; k++)
			big[n++] = ')';
		big[n] = '\0';
		CHECK(filter_key_is(big, "deep"), "parentheses 100 000 deep");
		n = (size_t) sprintf(big, "PartitionKey eq 'a'");
		for (int k = 0; k < 20000; k++)
			n += (size_t) sprintf(big + n, " and RowKey ge 'r%d'", k);
		CHECK(filter_key_is(big, NULL), "20 000 conjuncts: more than any node allows, so not routed");
		free(big);
	}
}

/* Regions: what the core allocates in one is freed with it; blocks from outside survive it. */
static void
test_regions(void)
{
	PgRegion	outer,
				inner;
	char	   *before = palloc(16);
	char	   *in_outer;
	char	   *grown;

	strcpy(before, "before");
	pg_region_begin(&outer);
	in_outer = palloc(32);
	strcpy(in_outer, "outer");
	pg_region_begin(&inner);
	grown = repalloc(before, 64);	/* a block from outside any region stays outside */
	pfree(palloc0(100));
	pg_region_end(&inner);
	CHECK(strcmp(in_outer, "outer") == 0 && strcmp(grown, "before") == 0, "an inner region leaves the outer's blocks");
	pfree(in_outer);			/* a region's block: freed with the region */
	pg_region_end(&outer);
	pfree(grown);
	CHECK(true, "regions nest and end");
}

void
test_route(void)
{
	arena_init(&req.arena, 0);
	test_shard_hash();
	test_body_key();
	test_filter_key();
	test_regions();
	arena_free(&req.arena);
}
