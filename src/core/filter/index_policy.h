/*
 * index_policy.h - a table's indexing policy (contract §1), in the shape of Cosmos DB's:
 *
 *   {"indexingMode": "consistent" | "none", "automatic": true,
 *    "includedPaths": [{"path": <the root path>}], "excludedPaths": [{"path": "/Description/?"}]}
 *
 * (the root path is a slash and a star). Which custom properties the table's entity index holds:
 * every one but the excluded (the root included), or only the included (the root excluded); none
 * at all with indexingMode "none". Parsed
 * strictly from JSON text, written back in one normal form, and carried by the index itself as
 * its operator class's options (included = '*' | 'A,B', excluded = '' | 'A,B' | '*').
 * Backend-free.
 */
#ifndef INDEX_POLICY_H
#define INDEX_POLICY_H

#include "ts_error.h"

#define INDEX_POLICY_MAX_PATHS 1000
/*
 * The property names a policy lists take at most this many bytes together (with a comma
 * between two): the index carries them as its operator class options, in its pg_attribute row,
 * which must stay under PostgreSQL's TOAST threshold (about 2 kB: pg_attribute has no TOAST
 * table, and a build whose row is larger fails with "pg_attribute catalog is missing 1
 * attribute(s)"; measured: 1791 bytes of names build, 1919 fail).
 */
#define INDEX_POLICY_MAX_NAME_BYTES 1500

typedef struct IndexPolicy
{
	bool		consistent;		/* indexingMode consistent (else none: no index) */
	bool		all;			/* every property but names (else only names) */
	int			nnames;
	const char **names;			/* sorted bytewise, no duplicates */
	uint32	   *lens;
} IndexPolicy;

/* The default of new tables: consistent, every property. */
extern void index_policy_default(IndexPolicy *p);

/* Parse a policy's JSON text; false and *err (TSE_INDEX_POLICY) when it is not a valid policy. */
extern bool index_policy_parse(const char *json, size_t len, IndexPolicy *p, TsError *err);

/* The policy's normal form as JSON text. */
extern void index_policy_append_json(StringInfo out, const IndexPolicy *p);

/* Is a custom property in the index under the policy? */
extern bool index_policy_includes(const IndexPolicy *p, const char *name, uint32 len);

/* The operator class options of a consistent policy's index, and the policy they give back. */
extern void index_policy_options(const IndexPolicy *p, StringInfo included, StringInfo excluded);
extern bool index_policy_from_options(const char *included, const char *excluded, IndexPolicy *p, TsError *err);

/* Do two policies index the same properties? */
extern bool index_policy_equal(const IndexPolicy *a, const IndexPolicy *b);

#endif							/* INDEX_POLICY_H */
