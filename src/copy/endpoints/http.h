/*
 * http.h - requests to a Table endpoint over libcurl (http.c): keep-alive connections, TLS,
 * Shared Key signatures (the string to sign from core/protocol/sign.c, HMAC-SHA256 with OpenSSL) or a
 * SAS appended to the query, and the retry rule: a connection that fails, 408, 429, 500, 502,
 * 503 and 504 are tried again after the server's Retry-After or an exponential back-off with
 * jitter (retry.h), until the limits.
 */
#ifndef COPY_HTTP_H
#define COPY_HTTP_H

#include "endpoint.h"

typedef struct Http Http;

typedef struct HttpResponse
{
	long		status;
	char	   *body;			/* NUL-terminated; valid until the next request */
	size_t		len;
	char		error_code[64];	/* x-ms-error-code, or the body's odata.error code */
	char		error_message[512];
	char	   *next_pk;		/* x-ms-continuation-NextPartitionKey (malloc'd or NULL) */
	char	   *next_rk;
	char	   *next_table;
	char		content_type[256];
	bool		too_large;		/* the answer was cut at HTTP_MAX_BODY (http_request failed) */
} HttpResponse;

/*
 * The most an answer may hold: a page of entities is read whole, so a hostile or broken endpoint
 * must not make it grow without end. A page the service gives is far smaller (ep_table.c asks for
 * fewer entities per page when one is not).
 */
#define HTTP_MAX_BODY (32 * 1024 * 1024)

extern Http *http_new(const EndpointSpec *spec, CopyError *e);
extern void http_free(Http *h);

/*
 * One request: resource is the path after the endpoint's base ("/Tables", "/t()") already
 * percent-encoded, query the query string without '?' (or NULL), comp the ?comp= value the
 * signature covers. The response's status may be any; false only when the request could not be
 * made to succeed or fail cleanly within the retry limits (e set), when the answer is larger than
 * HTTP_MAX_BODY (out->too_large, not retried) or when the run is stopped (copy_abort: a request
 * under way is abandoned, a wait ends).
 */
extern bool http_request(Http *h, const char *method, const char *resource, const char *query, const char *comp,
						 const char *content_type, const char *accept, const char *body, size_t body_len,
						 HttpResponse *out, CopyError *e);

/* the endpoint's base URL (for the absolute URLs inside a $batch) */
extern const char *http_base(const Http *h);

/* Percent-encode s (every byte but A-Z a-z 0-9 - . _ ~) onto out. */
extern void http_append_encoded(StringInfo out, const char *s, size_t len);

/*
 * Every sig= value in msg (an endpoint's error text may echo the request's URL, its SAS too)
 * replaced by ***, in place (never longer).
 */
extern void http_strip_signatures(char *msg);

/* Fill e from a failed response: status, the service's code and message. */
extern bool http_fail(CopyError *e, const HttpResponse *r, const char *what);

#endif
