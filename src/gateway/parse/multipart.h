/*
 * multipart.h - the multipart/mixed parser of a $batch request: one changeset, each part an
 * application/http sub-request (request line with an absolute or origin-form URL, headers, body),
 * or one application/http sub-request alone, outside any changeset (a query, as the service
 * allows one singly in a batch). CRLF and LF-only line endings are both accepted. Pure: no
 * libmicrohttpd, no libpq (fuzzed).
 */
#ifndef GW_MULTIPART_H
#define GW_MULTIPART_H

#include "util.h"

#define BATCH_MAX_PARTS 1000	/* parsing bound; the 100-operation rule is checked after */

typedef struct SubRequest
{
	char	   *method;
	char	   *url;			/* as written in the request line */
	size_t		url_len;
	char	   *content_type;
	char	   *if_match;
	char	   *prefer;
	char	   *content_id;
	char	   *x_http_method;
	char	   *accept;
	const char *body;			/* points into the request body */
	size_t		body_len;
} SubRequest;

typedef struct BatchRequest
{
	SubRequest *ops;
	int			n;
	bool		alone;			/* ops[0] is the batch's one part, outside a changeset (n = 1) */
} BatchRequest;

/* The boundary parameter of a multipart Content-Type (quotes removed); NULL if absent/invalid. */
extern char *multipart_boundary(Arena *a, const char *content_type);

/*
 * Parse body (with the request's Content-Type) into sub-requests. false: *err is a fixed reason.
 */
extern bool batch_parse(Arena *a, const char *content_type, const char *body, size_t len,
						BatchRequest *out, const char **err);

#endif
