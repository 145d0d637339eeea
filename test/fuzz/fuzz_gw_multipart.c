/*
 * fuzz_gw_multipart.c - libFuzzer target: the $batch multipart/mixed changeset parser
 * (src/gateway/parse/multipart.c), and the JSON string escaping that passes each sub-request's body
 * to the extension (util.c).
 *
 * Input: "<Content-Type>\n<body>". Properties: accepted batches have 0..BATCH_MAX_PARTS
 * operations, each with a method, a URL, and a body lying inside the input; every body escapes
 * to one JSON string (quoted, no control byte, no unescaped quote, at most 6 bytes per byte).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "multipart.h"

int			LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

#define CHECK(cond, what) do { if (!(cond)) { fprintf(stderr, "fuzz property failed: %s\n", what); abort(); } } while (0)

/* buf_json_string(s) is one JSON string: what rest_batch's entity_json member needs */
static void
check_escaped(const char *s, size_t n)
{
	Buf			b;
	bool		escaped = false;

	buf_init(&b);
	buf_json_string(&b, s, n);
	CHECK(!b.failed && b.len >= 2 && b.len <= 6 * n + 2, "escaped length");
	CHECK(b.data[0] == '"' && b.data[b.len - 1] == '"', "quoted");
	for (size_t i = 1; i + 1 < b.len; i++)
	{
		unsigned char c = (unsigned char) b.data[i];

		CHECK(c >= 0x20, "no control byte below 0x20 (JSON's rule, json_escape_byte)");
		CHECK(escaped || c != '"', "no unescaped quote");
		escaped = !escaped && c == '\\';
	}
	CHECK(!escaped, "no dangling backslash");
	buf_free(&b);
}

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	Arena		a;
	BatchRequest br;
	const char *err = NULL;
	const char *nl = memchr(data, '\n', size);
	char	   *ct;
	const char *body;
	size_t		body_len;

	if (size > 1024 * 1024 || nl == NULL)
		return 0;
	arena_init(&a, 256 * 1024 * 1024);
	ct = arena_strndup(&a, (const char *) data, (size_t) (nl - (const char *) data));
	body = nl + 1;
	body_len = size - (size_t) (body - (const char *) data);
	if (batch_parse(&a, ct, body, body_len, &br, &err))
	{
		CHECK(br.n >= 0 && br.n <= BATCH_MAX_PARTS && (br.n == 0) == (br.ops == NULL), "operation count in range (an empty changeset has none)");
		for (int i = 0; i < br.n; i++)
		{
			SubRequest *s = &br.ops[i];
			CHECK(s->method && s->method[0] && s->url && s->url_len > 0, "method and URL");
			CHECK(s->body >= body && s->body + s->body_len <= body + body_len, "the body lies inside the input");
			check_escaped(s->body, s->body_len);
		}
	}
	else
		CHECK(err && err[0], "a refused batch has a reason");
	check_escaped(body, body_len);
	arena_free(&a);
	return 0;
}
