/*
 * framing.h - what a request's header lines say about its framing, before anything reads them:
 * refused when two HTTP parsers (a proxy's and the gateway's) could read the request two ways
 * (RFC 9112 §6 on smuggling, §3.2 on Host), or when a header that may be given once is given
 * twice and the gateway would use one of the two while a proxy, a log or the signer used the
 * other. Pure: listener.c feeds it every header line libmicrohttpd parsed.
 */
#ifndef GW_FRAMING_H
#define GW_FRAMING_H

#include <stdbool.h>
#include <stddef.h>

#define FRAMING_SINGLETONS 16

typedef struct Framing
{
	int			transfer_encodings;
	bool		te_not_chunked;	/* a transfer coding other than chunked alone */
	bool		hidden;			/* a header name that is not a token, or a framing header's name with more to it */
	bool		nul;			/* a NUL byte inside a header's name or value */
	int			count[FRAMING_SINGLETONS];	/* each singleton header's lines, as framing_singleton lists them */
} Framing;

extern void framing_init(Framing *f);
/* One header line as libmicrohttpd parsed it (value may be NULL). */
extern void framing_add(Framing *f, const char *name, const char *value);
/* The same with the lengths the parser measured (a NUL inside shows as a string shorter than them). */
extern void framing_add_n(Framing *f, const char *name, size_t name_len, const char *value, size_t value_len);
/*
 * Why the request must be refused (400 InvalidHeaderValue, connection closed), into why; false
 * when it may go on. http10: the request line said HTTP/1.0 (which may omit Host, and has no
 * Transfer-Encoding: one there is faulty framing, RFC 9112 §6.1).
 */
extern bool framing_refused(const Framing *f, bool http10, char *why, size_t whylen);

/* The i-th header that may appear once (NULL past the last): for the tests and the docs. */
extern const char *framing_singleton(int i);

#endif
