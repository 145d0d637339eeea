/*
 * fuzz_gw_multipart.c - libFuzzer target: the $batch multipart/mixed changeset parser
 * (src/gateway/batch_parse.c) and the JSON scanner used on sub-request bodies (jsonscan.c).
 *
 * Input: "<Content-Type>\n<body>". Properties: accepted batches have 1..BATCH_MAX_PARTS
 * operations, each with a method, a URL, and a body lying inside the input; the JSON scanner
 * agrees with itself (a member found means the text is an object) on every sub-request body.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch_parse.h"
#include "jsonscan.h"

int			LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

#define CHECK(cond, what) do { if (!(cond)) { fprintf(stderr, "fuzz property failed: %s\n", what); abort(); } } while (0)

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
		CHECK(br.n >= 1 && br.n <= BATCH_MAX_PARTS, "operation count in range");
		for (int i = 0; i < br.n; i++)
		{
			SubRequest *s = &br.ops[i];
			char	   *v;
			size_t		vl;

			CHECK(s->method && s->method[0] && s->url && s->url_len > 0, "method and URL");
			CHECK(s->body >= body && s->body + s->body_len <= body + body_len, "the body lies inside the input");
			if (json_top_string(&a, s->body, s->body_len, "PartitionKey", &v, &vl))
			{
				CHECK(json_is_object(s->body, s->body_len), "a member was found in an object");
				CHECK(strlen(v) == vl, "a decoded member holds no NUL");
				CHECK(utf8_valid((const unsigned char *) v, vl), "a decoded member is UTF-8");
			}
		}
	}
	else
		CHECK(err && err[0], "a refused batch has a reason");
	/* the scanner on the raw body too (any bytes) */
	(void) json_is_object(body, body_len);
	arena_free(&a);
	return 0;
}
