/*
 * jsonscan.c - a bounded JSON syntax checker and a top-level string member reader (see jsonscan.h).
 */
#include "jsonscan.h"

#include <string.h>

typedef struct Scan
{
	const char *s;
	size_t		n;
	size_t		i;
} Scan;

static void
ws(Scan *c)
{
	while (c->i < c->n && (c->s[c->i] == ' ' || c->s[c->i] == '\t' || c->s[c->i] == '\n' || c->s[c->i] == '\r'))
		c->i++;
}

/* Scan a string starting at '"'; if out is given, decode it (UTF-8) into out (capacity >= raw length). */
static bool
str(Scan *c, char *out, size_t *outlen)
{
	size_t		o = 0;

	if (c->i >= c->n || c->s[c->i] != '"')
		return false;
	c->i++;
	while (c->i < c->n)
	{
		unsigned char ch = (unsigned char) c->s[c->i];

		if (ch == '"')
		{
			c->i++;
			if (outlen)
				*outlen = o;
			return true;
		}
		if (ch < 0x20)
			return false;
		if (ch == '\\')
		{
			unsigned int cp = 0;

			if (++c->i >= c->n)
				return false;
			ch = (unsigned char) c->s[c->i];
			switch (ch)
			{
				case '"':
				case '\\':
				case '/':
					cp = ch;
					break;
				case 'b':
					cp = '\b';
					break;
				case 'f':
					cp = '\f';
					break;
				case 'n':
					cp = '\n';
					break;
				case 'r':
					cp = '\r';
					break;
				case 't':
					cp = '\t';
					break;
				case 'u':
					{
						for (int k = 0; k < 4; k++)
						{
							int			h;

							if (++c->i >= c->n || (h = hexval((unsigned char) c->s[c->i])) < 0)
								return false;
							cp = cp << 4 | (unsigned int) h;
						}
						if (cp >= 0xD800 && cp <= 0xDBFF)
						{
							unsigned int lo = 0;

							if (c->i + 6 >= c->n || c->s[c->i + 1] != '\\' || c->s[c->i + 2] != 'u')
								return false;
							c->i += 2;
							for (int k = 0; k < 4; k++)
							{
								int			h;

								if (++c->i >= c->n || (h = hexval((unsigned char) c->s[c->i])) < 0)
									return false;
								lo = lo << 4 | (unsigned int) h;
							}
							if (lo < 0xDC00 || lo > 0xDFFF)
								return false;
							cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
						}
						else if (cp >= 0xDC00 && cp <= 0xDFFF)
							return false;
						break;
					}
				default:
					return false;
			}
			c->i++;
			if (out)
			{
				if (cp == 0)
					return false;
				if (cp < 0x80)
					out[o++] = (char) cp;
				else if (cp < 0x800)
				{
					out[o++] = (char) (0xC0 | cp >> 6);
					out[o++] = (char) (0x80 | (cp & 0x3F));
				}
				else if (cp < 0x10000)
				{
					out[o++] = (char) (0xE0 | cp >> 12);
					out[o++] = (char) (0x80 | ((cp >> 6) & 0x3F));
					out[o++] = (char) (0x80 | (cp & 0x3F));
				}
				else
				{
					out[o++] = (char) (0xF0 | cp >> 18);
					out[o++] = (char) (0x80 | ((cp >> 12) & 0x3F));
					out[o++] = (char) (0x80 | ((cp >> 6) & 0x3F));
					out[o++] = (char) (0x80 | (cp & 0x3F));
				}
			}
			continue;
		}
		if (out)
			out[o++] = (char) ch;
		c->i++;
	}
	return false;
}

static bool
number(Scan *c)
{
	size_t		start;

	if (c->i < c->n && c->s[c->i] == '-')
		c->i++;
	if (c->i >= c->n)
		return false;
	if (c->s[c->i] == '0')
		c->i++;
	else if (c->s[c->i] >= '1' && c->s[c->i] <= '9')
		while (c->i < c->n && c->s[c->i] >= '0' && c->s[c->i] <= '9')
			c->i++;
	else
		return false;
	if (c->i < c->n && c->s[c->i] == '.')
	{
		start = ++c->i;
		while (c->i < c->n && c->s[c->i] >= '0' && c->s[c->i] <= '9')
			c->i++;
		if (c->i == start)
			return false;
	}
	if (c->i < c->n && (c->s[c->i] == 'e' || c->s[c->i] == 'E'))
	{
		c->i++;
		if (c->i < c->n && (c->s[c->i] == '+' || c->s[c->i] == '-'))
			c->i++;
		start = c->i;
		while (c->i < c->n && c->s[c->i] >= '0' && c->s[c->i] <= '9')
			c->i++;
		if (c->i == start)
			return false;
	}
	return true;
}

static bool
word(Scan *c, const char *w)
{
	size_t		l = strlen(w);

	if (c->n - c->i < l || memcmp(c->s + c->i, w, l) != 0)
		return false;
	c->i += l;
	return true;
}

static bool
value(Scan *c, int depth)
{
	char		ch;

	if (depth > JSON_MAX_DEPTH)
		return false;
	ws(c);
	if (c->i >= c->n)
		return false;
	ch = c->s[c->i];
	if (ch == '{' || ch == '[')
	{
		char		close = ch == '{' ? '}' : ']';

		c->i++;
		ws(c);
		if (c->i < c->n && c->s[c->i] == close)
		{
			c->i++;
			return true;
		}
		for (;;)
		{
			if (ch == '{')
			{
				ws(c);
				if (!str(c, NULL, NULL))
					return false;
				ws(c);
				if (c->i >= c->n || c->s[c->i] != ':')
					return false;
				c->i++;
			}
			if (!value(c, depth + 1))
				return false;
			ws(c);
			if (c->i >= c->n)
				return false;
			if (c->s[c->i] == ',')
			{
				c->i++;
				continue;
			}
			if (c->s[c->i] == close)
			{
				c->i++;
				return true;
			}
			return false;
		}
	}
	if (ch == '"')
		return str(c, NULL, NULL);
	if (ch == 't')
		return word(c, "true");
	if (ch == 'f')
		return word(c, "false");
	if (ch == 'n')
		return word(c, "null");
	return number(c);
}

bool
json_is_object(const char *s, size_t n)
{
	Scan		c = {s, n, 0};

	if (!utf8_valid((const unsigned char *) s, n))
		return false;
	ws(&c);
	if (c.i >= n || s[c.i] != '{')
		return false;
	if (!value(&c, 0))
		return false;
	ws(&c);
	return c.i == n;
}

bool
json_top_string(Arena *a, const char *s, size_t n, const char *name, char **out, size_t *outlen)
{
	Scan		c = {s, n, 0};
	size_t		name_len = strlen(name);
	char	   *buf;

	if (!json_is_object(s, n))
		return false;
	buf = arena_alloc(a, n + 1);
	if (buf == NULL)
		return false;
	ws(&c);
	c.i++;						/* '{' */
	ws(&c);
	if (s[c.i] == '}')
		return false;
	for (;;)
	{
		size_t		klen;
		Scan		key = c;

		ws(&c);
		/* member names are decoded only to compare them */
		if (!str(&c, buf, &klen))
		{
			/* a name holding \u0000 cannot be ours; skip it undecoded */
			c = key;
			ws(&c);
			if (!str(&c, NULL, NULL))
				return false;
			klen = (size_t) -1;
		}
		ws(&c);
		c.i++;					/* ':' */
		ws(&c);
		if (klen == name_len && memcmp(buf, name, name_len) == 0)
		{
			size_t		vlen;

			if (s[c.i] != '"' || !str(&c, buf, &vlen))
				return false;
			buf[vlen] = '\0';
			*out = buf;
			*outlen = vlen;
			return true;
		}
		if (!value(&c, 1))
			return false;
		ws(&c);
		if (s[c.i] == '}')
			return false;
		c.i++;					/* ',' */
	}
}
