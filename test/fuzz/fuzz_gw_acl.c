/*
 * fuzz_gw_acl.c - libFuzzer target: the Set Table ACL document (src/gateway/parse/acl_xml.c).
 *
 * Input: any bytes as the request body. Properties: parsing never crashes and accepts at most 5
 * policies, each with an Id; a parsed document rendered (as Get Table ACL answers) parses again
 * to the same policies; the JSON for set_table_acl is produced without failing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl_xml.h"

int			LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

#define CHECK(cond, what) do { if (!(cond)) { fprintf(stderr, "fuzz property failed: %s\n", what); abort(); } } while (0)

static bool
same(const char *a, const char *b)
{
	return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	Arena		a;
	AclPolicy	p[ACL_MAX_POLICIES],
				q[ACL_MAX_POLICIES];
	int			n = 0,
				m = 0;
	const char *err = NULL;
	Buf			b;

	if (size > 65536)
		return 0;
	arena_init(&a, 16 * 1024 * 1024);
	if (!acl_xml_parse(&a, (const char *) data, size, p, &n, &err))
	{
		CHECK(err != NULL, "a refusal says why");
		arena_free(&a);
		return 0;
	}
	CHECK(n >= 0 && n <= ACL_MAX_POLICIES, "at most 5 policies");
	for (int i = 0; i < n; i++)
		CHECK(p[i].id != NULL, "every policy has an Id");

	buf_init(&b);
	acl_json(&b, p, n);
	CHECK(!b.failed, "the JSON is produced");
	buf_free(&b);

	buf_init(&b);
	acl_xml_render(&b, p, n);
	CHECK(!b.failed, "the XML is produced");
	CHECK(acl_xml_parse(&a, b.data, b.len, q, &m, &err), "a rendered document parses");
	CHECK(m == n, "the same number of policies");
	for (int i = 0; i < n; i++)
		CHECK(same(p[i].id, q[i].id) && same(p[i].start, q[i].start) && same(p[i].expiry, q[i].expiry) &&
			  same(p[i].permission, q[i].permission), "the same policies");
	buf_free(&b);
	arena_free(&a);
	return 0;
}
