/*
 * fuzz_gw_props.c - libFuzzer target: the service properties document and CORS matching
 * (src/gateway/parse/props.c over src/gateway/parse/xml.c).
 *
 * Input: "<origin>\n<method>\n<request headers>\n<document>". Properties: parsing never crashes;
 * a parsed document merged into the defaults renders to a document that parses and renders the
 * same again (the stored form is a fixed point); matching any origin, method and headers against
 * its rules never crashes and only returns one of its rules.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "props.h"

int			LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

#define CHECK(cond, what) do { if (!(cond)) { fprintf(stderr, "fuzz property failed: %s\n", what); abort(); } } while (0)

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	Arena		a;
	char	   *parts[4] = {NULL, NULL, NULL, NULL};
	const char *p = (const char *) data;
	size_t		left = size;
	ServiceProps doc,
				merged,
				again;
	const char *err = NULL;
	Buf			b1,
				b2;
	const CorsRule *rule;

	if (size > 65536)
		return 0;
	arena_init(&a, 16 * 1024 * 1024);
	for (int i = 0; i < 4; i++)
	{
		const char *nl = i < 3 ? memchr(p, '\n', left) : NULL;
		size_t		n = nl ? (size_t) (nl - p) : left;

		parts[i] = arena_strndup(&a, p, n);
		p += n + (nl ? 1 : 0);
		left -= n + (nl ? 1 : 0);
		if (!nl)
			break;
	}
	for (int i = 0; i < 4; i++)
		if (parts[i] == NULL)
			parts[i] = arena_strdup(&a, "");
	if (!props_parse(&a, parts[3], strlen(parts[3]), &doc, &err))
	{
		CHECK(err != NULL, "a refusal says why");
		arena_free(&a);
		return 0;
	}
	CHECK(doc.ncors >= 0 && doc.ncors <= PROPS_MAX_CORS, "at most 5 CORS rules");
	props_default(&merged);
	props_merge(&merged, &doc);
	buf_init(&b1);
	props_render(&b1, &merged);
	CHECK(!b1.failed, "the document renders");
	CHECK(props_parse(&a, b1.data, b1.len, &again, &err), "a rendered document parses");
	buf_init(&b2);
	props_render(&b2, &again);
	CHECK(b1.len == b2.len && memcmp(b1.data, b2.data, b1.len) == 0, "the rendered form is a fixed point");
	rule = props_cors_match(&merged, parts[0], parts[1], parts[2][0] ? parts[2] : NULL);
	CHECK(rule == NULL || (rule >= merged.cors && rule < merged.cors + merged.ncors), "a match is one of the rules");
	buf_free(&b1);
	buf_free(&b2);
	arena_free(&a);
	return 0;
}
