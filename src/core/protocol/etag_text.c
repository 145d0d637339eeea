/*
 * etag_text.c - writing and reading the text of an ETag (etag_text.h). Backend-free.
 */
#include "etag_text.h"

#include "edm.h"

#define ETAG_PREFIX		"W/\"datetime'"
#define ETAG_PREFIX_LEN	12

int
etag_text_format(int64 ticks, char *buf)
{
	char		dt[EDM_DATETIME_TEXT_LEN + 1];
	int			n = edm_format_datetime_trimmed(ticks, dt);
	char	   *o = buf;

	memcpy(o, ETAG_PREFIX, ETAG_PREFIX_LEN);
	o += ETAG_PREFIX_LEN;
	for (int i = 0; i < n; i++)
	{
		if (dt[i] == ':')
		{
			memcpy(o, "%3A", 3);
			o += 3;
		}
		else
			*o++ = dt[i];
	}
	*o++ = '\'';
	*o++ = '"';
	*o = '\0';
	Assert(o - buf < ETAG_TEXT_MAX);
	return (int) (o - buf);
}

/* The character at s[*i] with %3A read as ':', advancing *i past it. */
static char
next_char(const char *s, size_t len, size_t *i)
{
	if (s[*i] == '%' && len - *i >= 3 && s[*i + 1] == '3' && (s[*i + 2] == 'A' || s[*i + 2] == 'a'))
	{
		*i += 3;
		return ':';
	}
	return s[(*i)++];
}

/*
 * Where the trailing zeros of s's fraction of a second start, when s ends in .<1 to 7 digits>Z'"
 * (Azurite, and the service for some Timestamps, write seven digits always): [*from, *to) is to
 * be read past, the '.' too when every digit is a zero. Otherwise an empty range at the end.
 */
static void
trailing_zeros(const char *s, size_t len, size_t *from, size_t *to)
{
	size_t		end,
				d;

	*from = *to = len;
	if (len < 5 || memcmp(s + len - 3, "Z'\"", 3) != 0)
		return;
	end = len - 3;
	for (d = 0; d < end && d <= 7 && s[end - 1 - d] >= '0' && s[end - 1 - d] <= '9'; d++)
		;
	if (d == 0 || d > 7 || d == end || s[end - 1 - d] != '.')
		return;
	*from = *to = end;
	while (*from > end - d && s[*from - 1] == '0')
		(*from)--;
	if (*from == end - d)
		(*from)--;				/* no digit left: the '.' goes too */
}

/* The next character of s (%3A read as ':', the range [skip_from, skip_to) read past): false at the end. */
static bool
next_same_char(const char *s, size_t len, size_t *i, size_t skip_from, size_t skip_to, char *c)
{
	if (*i == skip_from)
		*i = skip_to;
	if (*i >= len)
		return false;
	*c = next_char(s, len, i);
	return true;
}

bool
etag_text_weak(const char *s, size_t len)
{
	return len >= 3 && (s[0] == 'W' || s[0] == 'w') && s[1] == '/' && s[2] == '"';
}

bool
etag_text_same(const char *a, size_t alen, const char *b, size_t blen)
{
	size_t		i = 0,
				j = 0,
				af,
				at,
				bf,
				bt;
	char		ca = 0,
				cb = 0;

	/* the weak prefix in either case (If-Match: w/"..." is the same ETag) */
	if (etag_text_weak(a, alen) && etag_text_weak(b, blen))
		i = j = 1;
	trailing_zeros(a, alen, &af, &at);
	trailing_zeros(b, blen, &bf, &bt);
	for (;;)
	{
		bool		more_a = next_same_char(a, alen, &i, af, at, &ca);
		bool		more_b = next_same_char(b, blen, &j, bf, bt, &cb);

		if (more_a != more_b)
			return false;
		if (!more_a)
			return true;
		if (ca != cb)
			return false;
	}
}

/* Hex digits up to stop; false when there are none or another character comes first. */
static bool
skip_hex(const char *s, size_t len, size_t *i, char stop)
{
	size_t		start = *i;

	while (*i < len && edm_hexval(s[*i]) >= 0)
		(*i)++;
	return *i > start && *i < len && s[*i] == stop;
}

EtagTextForm
etag_text_parse(const char *s, size_t len, int64 *ticks)
{
	char		dt[ETAG_TEXT_MAX];
	size_t		n = 0,
				i = ETAG_PREFIX_LEN;

	if (len < ETAG_PREFIX_LEN + 2 || memcmp(s, ETAG_PREFIX, ETAG_PREFIX_LEN) != 0)
		return ETAG_TEXT_OTHER;
	/* the datetime, its colons written %3A, up to the closing quote */
	while (i < len && s[i] != '\'')
	{
		if (n + 1 >= sizeof(dt))
			return ETAG_TEXT_OTHER;
		if (s[i] == '%' && len - i >= 3 && s[i + 1] == '3' && s[i + 2] == 'A')
		{
			dt[n++] = ':';
			i += 3;
		}
		else
			dt[n++] = s[i++];
	}
	if (i == len || edm_parse_datetime(dt, n, ticks) != EDM_OK)
		return ETAG_TEXT_OTHER;
	i++;						/* the closing quote of the datetime */
	if (len - i == 1 && s[i] == '"')
		return ETAG_TEXT_SERVICE;
	/* the suffix before 0.3.0: -<transaction id>.<counter> in hex */
	if (i < len && s[i] == '-')
	{
		i++;
		if (skip_hex(s, len, &i, '.'))
		{
			i++;
			if (skip_hex(s, len, &i, '"') && i + 1 == len)
				return ETAG_TEXT_LEGACY;
		}
	}
	return ETAG_TEXT_OTHER;
}
