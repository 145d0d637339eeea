/*
 * acl_xml.h - the XML of Get/Set Table ACL: a SignedIdentifiers document of at most 5
 * SignedIdentifier elements (Id, AccessPolicy: Start, Expiry, Permission), parsed strictly and
 * rendered. Pure: no libmicrohttpd, no libpq (fuzzed).
 */
#ifndef GW_ACL_XML_H
#define GW_ACL_XML_H

#include "util.h"

#define ACL_MAX_POLICIES 5
#define ACL_MAX_FIELD 256		/* decoded bytes of one element's text */

typedef struct AclPolicy
{
	char	   *id;
	char	   *start;			/* NULL when absent (or empty) */
	char	   *expiry;
	char	   *permission;
} AclPolicy;

/*
 * Parse a SignedIdentifiers document (an empty body is no policies; xml.h says what XML is
 * read). false: *err is a fixed reason, also for more than ACL_MAX_POLICIES policies, a policy
 * without an Id, an unknown or repeated element, a text over ACL_MAX_FIELD bytes.
 */
extern bool acl_xml_parse(Arena *a, const char *xml, size_t n, AclPolicy *out, int *count, const char **err);

/* The policies as set_table_acl's JSON array. */
extern void acl_json(Buf *b, const AclPolicy *p, int n);

/* The Get Table ACL answer. */
extern void acl_xml_render(Buf *b, const AclPolicy *p, int n);

#endif
