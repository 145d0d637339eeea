/*
 * framing.c - the request's framing and its singleton headers (see framing.h).
 *
 * Refused (each 400 InvalidHeaderValue, the connection closed): two Content-Length headers, or
 * Content-Length beside Transfer-Encoding; a transfer coding other than chunked alone; a header
 * name that is not a token (libmicrohttpd keeps a space before the colon in the name, and runs an
 * obs-folded line into it: neither may pass for another header); HTTP/1.1 without Host; and any
 * header of the singleton list given more than once, whatever its case - the headers the gateway
 * reads one value of; Transfer-Encoding in an HTTP/1.0 request (RFC 9112 §6.1: faulty framing);
 * a NUL byte inside a header (the gateway would read the value up to it, a proxy all of it). List-valued headers (Accept, Prefer, Expect, Access-Control-Request-Headers)
 * may be split over lines, as RFC 9110 §5.3 allows.
 */
#include "framing.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static const char *const singletons[FRAMING_SINGLETONS] = {
	"Content-Length",			/* first: its own message; framing */
	"Host",
	"Authorization",
	"Content-MD5",
	"x-ms-content-crc64",
	"Content-Type",
	"Date",
	"x-ms-date",
	"x-ms-version",
	"x-ms-client-request-id",
	"If-Match",
	"X-HTTP-Method",
	"x-ms-tablestore-indexing-policy",
	"Origin",
	"Access-Control-Request-Method",
	NULL
};

const char *
framing_singleton(int i)
{
	return i >= 0 && i < FRAMING_SINGLETONS ? singletons[i] : NULL;
}

void
framing_init(Framing *f)
{
	memset(f, 0, sizeof(*f));
}

/* Is the header name an HTTP token (RFC 9110 §5.6.2)? */
static bool
name_is_token(const char *key)
{
	if (*key == '\0')
		return false;
	for (const char *p = key; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
			  strchr("!#$%&'*+-.^_`|~", *p) != NULL))
			return false;
	return true;
}

void
framing_add(Framing *f, const char *name, const char *value)
{
	if (name == NULL || !name_is_token(name) ||
		(strlen(name) > 14 && strncasecmp(name, "Content-Length", 14) == 0) ||
		(strlen(name) > 17 && strncasecmp(name, "Transfer-Encoding", 17) == 0))
	{
		f->hidden = true;
		return;
	}
	if (strcasecmp(name, "Transfer-Encoding") == 0)
	{
		const char *v = value ? value : "";
		size_t		n;

		f->transfer_encodings++;
		while (*v == ' ' || *v == '\t')
			v++;
		n = strlen(v);
		while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t'))
			n--;
		f->te_not_chunked |= !(n == 7 && strncasecmp(v, "chunked", 7) == 0);
		return;
	}
	for (int i = 0; singletons[i]; i++)
		if (strcasecmp(name, singletons[i]) == 0)
		{
			f->count[i]++;
			return;
		}
}

void
framing_add_n(Framing *f, const char *name, size_t name_len, const char *value, size_t value_len)
{
	if ((name != NULL && strlen(name) != name_len) || (value != NULL && strlen(value) != value_len))
		f->nul = true;
	framing_add(f, name, value);
}

bool
framing_refused(const Framing *f, bool http10, char *why, size_t whylen)
{
	const int	content_lengths = f->count[0];

	if (content_lengths > 1)
		snprintf(why, whylen, "The request has more than one Content-Length header.");
	else if (content_lengths == 1 && f->transfer_encodings > 0)
		snprintf(why, whylen, "The request has both Content-Length and Transfer-Encoding headers.");
	else if (f->hidden)
		snprintf(why, whylen, "A header name is malformed (whitespace before its colon, or a folded line).");
	else if (f->nul)
		snprintf(why, whylen, "A header holds a NUL byte.");
	else if (http10 && f->transfer_encodings > 0)
		snprintf(why, whylen, "An HTTP/1.0 request cannot have a Transfer-Encoding header.");
	else if (f->transfer_encodings > 1 || f->te_not_chunked)
		snprintf(why, whylen, "The only transfer coding accepted is chunked, alone.");
	else if (f->count[1] == 0 && !http10)
		snprintf(why, whylen, "An HTTP/1.1 request must have a Host header.");
	else
	{
		for (int i = 1; singletons[i]; i++)
			if (f->count[i] > 1)
			{
				snprintf(why, whylen, "The request has more than one %s header.", singletons[i]);
				return true;
			}
		return false;
	}
	return true;
}
