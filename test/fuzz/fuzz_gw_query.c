/*
 * fuzz_gw_query.c - libFuzzer target: query-string parsing and percent-decoding (src/gateway/parse/url.c).
 *
 * Properties: decoding never grows the text and never yields NUL; accepted values are UTF-8;
 * every decoded value, re-encoded as %XX, decodes back to itself (decode is exactly once).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "url.h"

int			LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

#define CHECK(cond, what) do { if (!(cond)) { fprintf(stderr, "fuzz property failed: %s\n", what); abort(); } } while (0)

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	Arena		a;
	Query		q;
	const char *err = NULL;
	size_t		n;
	char	   *d;

	if (size > 65536)
		return 0;
	arena_init(&a, 64 * 1024 * 1024);
	d = pct_decode(&a, (const char *) data, size, &n);
	if (d)
	{
		CHECK(n <= size, "decoding never grows the text");
		CHECK(strlen(d) == n, "decoded text holds no NUL");
	}
	if (query_parse(&a, (const char *) data, size, &q, &err))
	{
		for (int i = 0; i < q.n; i++)
		{
			QueryParam *p = &q.items[i];
			Buf			b;
			size_t		n2;
			char	   *again;

			CHECK(strlen(p->value) == p->value_len, "values hold no NUL");
			CHECK(edm_utf8_valid((const char *) p->value, p->value_len), "values are UTF-8");
			CHECK(query_get(&q, p->name) != NULL, "a parsed name is found");
			buf_init(&b);
			for (size_t k = 0; k < p->value_len; k++)
				buf_printf(&b, "%%%02X", (unsigned char) p->value[k]);
			again = pct_decode(&a, b.data ? b.data : "", b.len, &n2);
			CHECK(again && n2 == p->value_len && memcmp(again, p->value, n2) == 0, "re-encoding round-trips");
			buf_free(&b);
		}
	}
	else
		CHECK(err && err[0], "a refused query has a reason");
	arena_free(&a);
	return 0;
}
