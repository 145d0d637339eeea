/*
 * url.c - request targets: addressing style, account, resource form, keys and query strings.
 *
 * The path is percent-decoded exactly once, after the account segment is split off; keys are then
 * parsed strictly from the decoded text: 'value' with a quote inside doubled. Nothing here echoes
 * input in an error (the errors are fixed strings).
 */
#include "url.h"

#include <string.h>

/* plus_is_space: a query string's '+' is a space (form encoding: the SDKs' URLSearchParams) */
static char *
decode(Arena *a, const char *s, size_t n, size_t *outlen, bool plus_is_space)
{
	char	   *out = arena_alloc(a, n + 1);
	size_t		o = 0;

	if (out == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++)
	{
		char		c = s[i];

		if (c == '+' && plus_is_space)
			c = ' ';
		else if (c == '%')
		{
			int			h,
						l;

			if (i + 2 >= n)
				return NULL;
			h = edm_hexval(s[i + 1]);
			l = edm_hexval(s[i + 2]);
			if (h < 0 || l < 0)
				return NULL;
			c = (char) (h << 4 | l);
			i += 2;
		}
		if (c == '\0')
			return NULL;
		out[o++] = c;
	}
	out[o] = '\0';
	if (outlen)
		*outlen = o;
	return out;
}

char *
pct_decode(Arena *a, const char *s, size_t n, size_t *outlen)
{
	return decode(a, s, n, outlen, false);
}

bool
query_parse(Arena *a, const char *qs, size_t n, Query *out, const char **err)
{
	int			count = 1;
	size_t		i = 0;

	out->items = NULL;
	out->n = 0;
	if (n == 0)
		return true;
	for (size_t k = 0; k < n; k++)
		if (qs[k] == '&')
			count++;
	if (count > 64)
	{
		*err = "too many query parameters";
		return false;
	}
	out->items = arena_alloc(a, sizeof(QueryParam) * (size_t) count);
	if (out->items == NULL)
	{
		*err = "out of memory";
		return false;
	}
	while (i <= n)
	{
		size_t		start = i,
					end,
					eq;
		QueryParam *p;

		while (i < n && qs[i] != '&')
			i++;
		end = i;
		i++;					/* past '&' (or past the end) */
		if (end == start)
			continue;			/* "a=1&&b=2" */
		for (eq = start; eq < end && qs[eq] != '='; eq++)
			;
		p = &out->items[out->n];
		p->name = decode(a, qs + start, eq - start, NULL, true);
		if (eq < end)
			p->value = decode(a, qs + eq + 1, end - eq - 1, &p->value_len, true);
		else
		{
			p->value = arena_strdup(a, "");
			p->value_len = 0;
		}
		if (p->name == NULL || p->value == NULL)
		{
			*err = "a query parameter has a malformed percent-escape";
			return false;
		}
		if (!edm_utf8_valid(p->value, p->value_len))
		{
			*err = "a query parameter is not valid UTF-8";
			return false;
		}
		out->n++;
	}
	return true;
}

const char *
query_get(const Query *q, const char *name)
{
	for (int i = 0; i < q->n; i++)
		if (strcmp(q->items[i].name, name) == 0)
			return q->items[i].value;
	return NULL;
}

bool
query_has(const Query *q, const char *name)
{
	return query_get(q, name) != NULL;
}

const char *
url_origin_form(const char *url, size_t n, size_t *outlen)
{
	size_t		i = 0;

	if (n >= 7 && ascii_nieq(url, "http://", 7))
		i = 7;
	else if (n >= 8 && ascii_nieq(url, "https://", 8))
		i = 8;
	if (i == 0)
	{
		*outlen = n;
		return url;
	}
	while (i < n && url[i] != '/' && url[i] != '?')
		i++;
	if (i == n || url[i] == '?')
	{
		/* "http://host" or "http://host?q": the root */
		*outlen = 1;
		return "/";
	}
	*outlen = n - i;
	return url + i;
}

/* 'value' with doubled quotes; s[*i] is the opening quote. */
static bool
parse_quoted(Arena *a, const char *s, size_t n, size_t *i, char **out, size_t *outlen)
{
	size_t		k = *i + 1,
				o = 0;
	char	   *v;

	if (*i >= n || s[*i] != '\'')
		return false;
	v = arena_alloc(a, n - *i + 1);
	if (v == NULL)
		return false;
	for (;;)
	{
		if (k >= n)
			return false;		/* unterminated */
		if (s[k] == '\'')
		{
			if (k + 1 < n && s[k + 1] == '\'')
			{
				v[o++] = '\'';
				k += 2;
				continue;
			}
			k++;
			break;
		}
		v[o++] = s[k++];
	}
	v[o] = '\0';
	*out = v;
	*outlen = o;
	*i = k;
	return true;
}

static bool
match_word(const char *s, size_t n, size_t *i, const char *w)
{
	size_t		l = strlen(w);

	if (*i + l > n || memcmp(s + *i, w, l) != 0)
		return false;
	*i += l;
	return true;
}

static bool
is_name_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

bool
resource_parse(Arena *a, const char *s, size_t n, Target *t, const char **err)
{
	size_t		i = 0;

	t->table = NULL;
	t->pk = t->rk = NULL;
	t->table_parens = false;
	if (n == 0)
	{
		t->kind = RES_SERVICE;
		return true;
	}
	if (n == 6 && memcmp(s, "$batch", 6) == 0)
	{
		t->kind = RES_BATCH;
		return true;
	}
	while (i < n && is_name_char(s[i]))
		i++;
	if (i == 0 || i > 255)
	{
		*err = "the resource is not a table, an entity or a known service resource";
		return false;
	}
	t->table = arena_strndup(a, s, i);
	if (t->table == NULL)
	{
		*err = "out of memory";
		return false;
	}
	if (i == 6 && ascii_nieq(s, "Tables", 6))
	{
		if (i == n || (i + 2 == n && s[i] == '(' && s[i + 1] == ')'))
		{
			t->kind = RES_TABLES;
			t->table = NULL;
			return true;
		}
		if (s[i] == '(')
		{
			size_t		len;

			i++;
			if (i < n && s[i] == '\'' && parse_quoted(a, s, n, &i, &t->table, &len) &&
				i + 1 == n && s[i] == ')' && len > 0)
			{
				t->kind = RES_TABLES_ONE;
				return true;
			}
			*err = "Tables('name') is malformed";
			return false;
		}
	}
	if (i == n)
	{
		t->kind = RES_TABLE;
		return true;
	}
	if (s[i] != '(')
	{
		*err = "the resource is not a table, an entity or a known service resource";
		return false;
	}
	i++;
	if (i < n && s[i] == ')' && i + 1 == n)
	{
		t->kind = RES_TABLE;
		t->table_parens = true;
		return true;
	}
	/* PartitionKey='..',RowKey='..' in either order */
	for (int k = 0; k < 2; k++)
	{
		if (k == 1 && !match_word(s, n, &i, ","))
			goto bad_keys;
		if (t->pk == NULL && match_word(s, n, &i, "PartitionKey="))
		{
			if (!parse_quoted(a, s, n, &i, &t->pk, &t->pk_len))
				goto bad_keys;
		}
		else if (t->rk == NULL && match_word(s, n, &i, "RowKey="))
		{
			if (!parse_quoted(a, s, n, &i, &t->rk, &t->rk_len))
				goto bad_keys;
		}
		else
			goto bad_keys;
	}
	if (i + 1 != n || s[i] != ')')
		goto bad_keys;
	t->kind = RES_ENTITY;
	return true;

bad_keys:
	*err = "the entity address is malformed: expected (PartitionKey='...',RowKey='...')";
	return false;
}

bool
target_parse(Arena *a, const char *raw, size_t raw_len, const char *host,
			 AccountCheck is_account, void *cls, Target *t, const char **err)
{
	size_t		n,
				plen,
				seg;
	const char *p = url_origin_form(raw, raw_len, &n);
	const char *q;
	const char *rest;
	size_t		rest_len,
				dec_len;
	char	   *dec;

	memset(t, 0, sizeof(*t));
	if (n == 0 || p[0] != '/')
	{
		*err = "the request target is not a path";
		return false;
	}
	q = memchr(p, '?', n);
	plen = q ? (size_t) (q - p) : n;
	if (memchr(p, '#', plen) != NULL)
	{
		*err = "the request target holds a fragment";
		return false;
	}
	t->raw_path = arena_strndup(a, p, plen);
	if (t->raw_path == NULL)
	{
		*err = "out of memory";
		return false;
	}
	if (q && !query_parse(a, q + 1, n - plen - 1, &t->query, err))
		return false;

	for (seg = 1; seg < plen && p[seg] != '/'; seg++)
		;
	if (seg > 1 && is_account(p + 1, seg - 1, cls))
	{
		t->account = arena_strndup(a, p + 1, seg - 1);
		rest = p + seg;
		rest_len = plen - seg;
	}
	else if (seg > 11 && memcmp(p + seg - 10, "-secondary", 10) == 0 && is_account(p + 1, seg - 11, cls))
	{
		/* "<account>-secondary": the read-only secondary endpoint; the same data here */
		t->account = arena_strndup(a, p + 1, seg - 11);
		t->secondary = true;
		rest = p + seg;
		rest_len = plen - seg;
	}
	else
	{
		size_t		hl = 0;

		if (host)
			while (host[hl] && host[hl] != '.' && host[hl] != ':')
				hl++;
		if (host && host[hl] == '.' && hl > 0 && is_account(host, hl, cls))
		{
			t->account = arena_strndup(a, host, hl);
			t->host_style = true;
			rest = p;
			rest_len = plen;
		}
		else if (host && host[hl] == '.' && hl > 10 && memcmp(host + hl - 10, "-secondary", 10) == 0 &&
				 is_account(host, hl - 10, cls))
		{
			/* <account>-secondary.table.core.windows.net: the read-only secondary endpoint */
			t->account = arena_strndup(a, host, hl - 10);
			t->host_style = true;
			t->secondary = true;
			rest = p;
			rest_len = plen;
		}
		else
		{
			/* unknown account: keep the segment (bounded) so that the caller can refuse it */
			t->account = arena_strndup(a, p + 1, seg - 1 > 64 ? 64 : seg - 1);
			rest = p + seg;
			rest_len = plen - seg;
		}
	}
	if (t->account == NULL)
	{
		*err = "out of memory";
		return false;
	}
	/* rest is "" or "/..." */
	if (rest_len > 0)
	{
		rest++;
		rest_len--;
	}
	/* one trailing '/' is no part of the resource (Tables/, t()/, $batch/), as the service reads it */
	if (rest_len > 1 && rest[rest_len - 1] == '/')
		rest_len--;
	dec = pct_decode(a, rest, rest_len, &dec_len);
	if (dec == NULL)
	{
		*err = "the path has a malformed percent-escape or an encoded NUL";
		return false;
	}
	if (!edm_utf8_valid(dec, dec_len))
	{
		*err = "the path is not valid UTF-8";
		return false;
	}
	return resource_parse(a, dec, dec_len, t, err);
}
