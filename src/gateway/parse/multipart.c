/*
 * multipart.c - multipart/mixed $batch parsing (see multipart.h).
 *
 * A part runs from the line after "--boundary" to the line break before the next "--boundary"
 * that starts a line. Part headers end at the first empty line. The batch holds exactly one
 * part: a changeset (Content-Type multipart/mixed; boundary=...), whose parts are application/http
 * sub-requests; a changeset may hold none (the service answers it with an empty changeset); or
 * one application/http sub-request alone (what it may be - a query - is changeset.c's to say).
 */
#include "multipart.h"

#include <string.h>

char *
multipart_boundary(Arena *a, const char *ct)
{
	const char *p;
	size_t		n = 0;

	if (ct == NULL)
		return NULL;
	while (*ct == ' ')
		ct++;
	if (!ascii_nieq(ct, "multipart/mixed", 15))
		return NULL;
	for (p = ct; *p; p++)
		if ((p == ct || p[-1] == ';' || p[-1] == ' ') && ascii_nieq(p, "boundary=", 9))
			break;
	if (*p == '\0')
		return NULL;
	p += 9;
	if (*p == '"')
	{
		p++;
		while (p[n] && p[n] != '"')
			n++;
		if (p[n] != '"')
			return NULL;
	}
	else
		while (p[n] && p[n] != ';' && p[n] != ' ')
			n++;
	/* RFC 2046: 1 to 70 characters */
	if (n == 0 || n > 70)
		return NULL;
	return arena_strndup(a, p, n);
}

typedef struct Part
{
	const char *start;
	size_t		len;
} Part;

/* Is there a delimiter line "--b" at s+i (i at a line start)? */
static bool
delim_at(const char *s, size_t n, size_t i, const char *b, size_t bl)
{
	size_t		e = i + 2 + bl;

	if (e > n || s[i] != '-' || s[i + 1] != '-' || memcmp(s + i + 2, b, bl) != 0)
		return false;
	/* the boundary must not be a prefix of a longer word on that line */
	return e == n || s[e] == '-' || s[e] == ' ' || s[e] == '\t' || s[e] == '\r' || s[e] == '\n';
}

/* Next line start after i (past LF), or n. */
static size_t
next_line(const char *s, size_t n, size_t i)
{
	const char *nl = memchr(s + i, '\n', n - i);

	return nl ? (size_t) (nl - s) + 1 : n;
}

/* Split a multipart body into parts. */
static bool
split_parts(Arena *a, const char *s, size_t n, const char *b, Part **parts, int *nparts, const char **err)
{
	size_t		bl = strlen(b);
	size_t		i = 0;
	int			cap = 8,
				count = 0;
	Part	   *out = arena_alloc(a, sizeof(Part) * (size_t) cap);

	if (out == NULL)
	{
		*err = "out of memory";
		return false;
	}
	/* preamble: skip to the first delimiter at a line start */
	while (i < n && !delim_at(s, n, i, b, bl))
		i = next_line(s, n, i);
	if (i >= n)
	{
		*err = "the multipart body has no boundary line";
		return false;
	}
	for (;;)
	{
		size_t		start,
					j;

		/* s+i is "--b" */
		i += 2 + bl;
		if (i + 2 <= n && s[i] == '-' && s[i + 1] == '-')
			break;				/* closing delimiter */
		/* rest of the delimiter line may hold only whitespace */
		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i < n && s[i] == '\r')
			i++;
		if (i >= n || s[i] != '\n')
		{
			*err = "a boundary line is malformed";
			return false;
		}
		start = ++i;
		j = start;
		while (j < n && !delim_at(s, n, j, b, bl))
			j = next_line(s, n, j);
		if (j >= n)
		{
			*err = "the multipart body is not closed by its boundary";
			return false;
		}
		if (count == cap)
		{
			Part	   *bigger;

			if (cap >= BATCH_MAX_PARTS)
			{
				*err = "too many parts in the batch";
				return false;
			}
			bigger = arena_alloc(a, sizeof(Part) * (size_t) cap * 2);
			if (bigger == NULL)
			{
				*err = "out of memory";
				return false;
			}
			memcpy(bigger, out, sizeof(Part) * (size_t) cap);
			out = bigger;
			cap *= 2;
		}
		/* the line break before the delimiter belongs to the delimiter */
		{
			size_t		end = j;

			if (end > start && s[end - 1] == '\n')
				end--;
			if (end > start && s[end - 1] == '\r')
				end--;
			out[count].start = s + start;
			out[count].len = end >= start ? end - start : 0;
			count++;
		}
		i = j;
	}
	*parts = out;
	*nparts = count;
	return true;
}

/* A part of nothing but line breaks. */
static bool
part_is_blank(const Part *p)
{
	for (size_t i = 0; i < p->len; i++)
		if (p->start[i] != '\r' && p->start[i] != '\n')
			return false;
	return true;
}

/*
 * Read header lines from s[*i..n) until an empty line. For each header, call back with name/value.
 * Returns false on a malformed line.
 */
typedef void (*HeaderFn) (Arena *a, const char *name, size_t nl, const char *val, size_t vl, void *cls);

static bool
read_headers(Arena *a, const char *s, size_t n, size_t *i, HeaderFn fn, void *cls)
{
	int			count = 0;

	while (*i < n)
	{
		size_t		ls = *i,
					le = next_line(s, n, ls),
					e = le,
					colon;

		*i = le;
		if (e > ls && s[e - 1] == '\n')
			e--;
		if (e > ls && s[e - 1] == '\r')
			e--;
		if (e == ls)
			return true;		/* empty line: end of headers */
		if (++count > 100)
			return false;
		for (colon = ls; colon < e && s[colon] != ':'; colon++)
			;
		if (colon == e || colon == ls)
			return false;
		for (size_t k = ls; k < e; k++)
			if (((unsigned char) s[k] < 0x20 && s[k] != '\t') || s[k] == 0x7f)
				return false;
		{
			size_t		vs = colon + 1;

			while (vs < e && (s[vs] == ' ' || s[vs] == '\t'))
				vs++;
			fn(a, s + ls, colon - ls, s + vs, e - vs, cls);
		}
	}
	return true;				/* headers ran to the end: no body */
}

static void
part_header(Arena *a, const char *name, size_t nl, const char *val, size_t vl, void *cls)
{
	char	  **ct = cls;

	if (nl == 12 && ascii_nieq(name, "Content-Type", 12))
		*ct = arena_strndup(a, val, vl);
}

static void
sub_header(Arena *a, const char *name, size_t nl, const char *val, size_t vl, void *cls)
{
	SubRequest *r = cls;
	char	  **slot = NULL;

	if (nl == 12 && ascii_nieq(name, "Content-Type", 12))
		slot = &r->content_type;
	else if (nl == 8 && ascii_nieq(name, "If-Match", 8))
		slot = &r->if_match;
	else if (nl == 6 && ascii_nieq(name, "Prefer", 6))
		slot = &r->prefer;
	else if (nl == 10 && ascii_nieq(name, "Content-ID", 10))
		slot = &r->content_id;
	else if (nl == 13 && ascii_nieq(name, "X-HTTP-Method", 13))
		slot = &r->x_http_method;
	else if (nl == 6 && ascii_nieq(name, "Accept", 6))
		slot = &r->accept;
	if (slot && *slot == NULL)
		*slot = arena_strndup(a, val, vl);
}

static bool
parse_sub_request(Arena *a, const Part *p, SubRequest *r, const char **err)
{
	const char *s = p->start;
	size_t		n = p->len,
				i = 0,
				le,
				e,
				sp1,
				sp2;
	char	   *ct = NULL;

	memset(r, 0, sizeof(*r));
	/* MIME headers of the part: Content-Type: application/http */
	if (!read_headers(a, s, n, &i, part_header, &ct))
	{
		*err = "a changeset part has a malformed header";
		return false;
	}
	if (ct == NULL || !ascii_nieq(ct, "application/http", 16))
	{
		*err = "a changeset part is not application/http";
		return false;
	}
	/* request line */
	le = next_line(s, n, i);
	e = le;
	if (e > i && s[e - 1] == '\n')
		e--;
	if (e > i && s[e - 1] == '\r')
		e--;
	for (sp1 = i; sp1 < e && s[sp1] != ' '; sp1++)
		;
	for (sp2 = sp1 + 1; sp2 < e && s[sp2] != ' '; sp2++)
		;
	if (sp1 == i || sp1 >= e || sp2 <= sp1 + 1 || sp2 >= e || sp1 - i > 16 ||
		!(e - sp2 - 1 == 8 && memcmp(s + sp2 + 1, "HTTP/1.", 7) == 0))
	{
		*err = "a sub-request line is not METHOD URL HTTP/1.1";
		return false;
	}
	for (size_t k = i; k < sp1; k++)
		if (s[k] < 'A' || s[k] > 'Z')
		{
			*err = "a sub-request method is not an upper-case word";
			return false;
		}
	for (size_t k = sp1 + 1; k < sp2; k++)
		if ((unsigned char) s[k] <= 0x20 || (unsigned char) s[k] >= 0x7f)
		{
			*err = "a sub-request URL holds a control character, a space or a non-ASCII byte";
			return false;
		}
	r->method = arena_strndup(a, s + i, sp1 - i);
	r->url = arena_strndup(a, s + sp1 + 1, sp2 - sp1 - 1);
	r->url_len = sp2 - sp1 - 1;
	if (r->method == NULL || r->url == NULL)
	{
		*err = "out of memory";
		return false;
	}
	i = le;
	if (!read_headers(a, s, n, &i, sub_header, r))
	{
		*err = "a sub-request has a malformed header";
		return false;
	}
	r->body = s + i;
	r->body_len = n - i;
	/* trailing line breaks are not part of the body */
	while (r->body_len > 0 && (r->body[r->body_len - 1] == '\n' || r->body[r->body_len - 1] == '\r'))
		r->body_len--;
	return true;
}

bool
batch_parse(Arena *a, const char *content_type, const char *body, size_t len, BatchRequest *out, const char **err)
{
	char	   *b = multipart_boundary(a, content_type);
	Part	   *outer,
			   *inner;
	int			nouter,
				ninner;
	size_t		i = 0;
	char	   *cs_ct = NULL;
	char	   *cs_b;

	out->ops = NULL;
	out->n = 0;
	out->alone = false;
	if (b == NULL)
	{
		*err = "the batch Content-Type is not multipart/mixed with a boundary";
		return false;
	}
	if (!split_parts(a, body, len, b, &outer, &nouter, err))
		return false;
	if (nouter != 1)
	{
		*err = nouter == 0 ? "the batch holds no changeset" :
			"the batch must hold exactly one changeset, or one query alone";
		return false;
	}
	if (!read_headers(a, outer[0].start, outer[0].len, &i, part_header, &cs_ct))
	{
		*err = "the changeset has a malformed header";
		return false;
	}
	if (cs_ct != NULL && ascii_nieq(cs_ct, "application/http", 16))
	{
		/* one sub-request outside a changeset */
		out->ops = arena_alloc(a, sizeof(SubRequest));
		if (out->ops == NULL)
		{
			*err = "out of memory";
			return false;
		}
		if (!parse_sub_request(a, &outer[0], &out->ops[0], err))
			return false;
		out->n = 1;
		out->alone = true;
		return true;
	}
	cs_b = multipart_boundary(a, cs_ct);
	if (cs_b == NULL)
	{
		*err = "the batch part is not a changeset (multipart/mixed with a boundary)";
		return false;
	}
	if (!split_parts(a, outer[0].start + i, outer[0].len - i, cs_b, &inner, &ninner, err))
		return false;
	if (ninner == 0)
		return true;			/* an empty changeset: the service answers it (202, no part) */
	out->ops = arena_alloc(a, sizeof(SubRequest) * (size_t) ninner);
	if (out->ops == NULL)
	{
		*err = "out of memory";
		return false;
	}
	for (int k = 0; k < ninner; k++)
	{
		/* azure-data-tables writes an empty transaction as one empty part: no operation */
		if (part_is_blank(&inner[k]))
			continue;
		if (!parse_sub_request(a, &inner[k], &out->ops[out->n], err))
			return false;
		out->n++;
	}
	if (out->n == 0)
		out->ops = NULL;
	return true;
}
