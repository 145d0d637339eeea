/*
 * util.c - arena, growable buffer, base64, JSON/XML escaping, dates and request ids (see util.h).
 */
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

struct ArenaBlock
{
	ArenaBlock *next;
	size_t		used;
	size_t		cap;
	max_align_t data[];
};

#define ARENA_BLOCK 8192

void
arena_init(Arena *a, size_t limit)
{
	a->head = NULL;
	a->total = 0;
	a->limit = limit;
}

void *
arena_alloc(Arena *a, size_t n)
{
	ArenaBlock *b = a->head;
	size_t		need = (n + 15) & ~(size_t) 15;
	void	   *p;

	if (n > SIZE_MAX / 2)
		return NULL;
	if (a->limit && a->total + need > a->limit)
		return NULL;
	if (b == NULL || b->cap - b->used < need)
	{
		size_t		cap = need > ARENA_BLOCK ? need : ARENA_BLOCK;

		b = malloc(sizeof(ArenaBlock) + cap);
		if (b == NULL)
			return NULL;
		b->cap = cap;
		b->used = 0;
		/* a big block goes behind the current one so that its free space stays usable */
		if (a->head != NULL && cap > ARENA_BLOCK)
		{
			b->next = a->head->next;
			a->head->next = b;
		}
		else
		{
			b->next = a->head;
			a->head = b;
		}
	}
	p = (char *) b->data + b->used;
	b->used += need;
	a->total += need;
	memset(p, 0, n);
	return p;
}

char *
arena_strndup(Arena *a, const char *s, size_t n)
{
	char	   *p = arena_alloc(a, n + 1);

	if (p == NULL)
		return NULL;
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *
arena_strdup(Arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

char *
arena_printf(Arena *a, const char *fmt,...)
{
	va_list		ap;
	int			n;
	char	   *p;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || (p = arena_alloc(a, (size_t) n + 1)) == NULL)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(p, (size_t) n + 1, fmt, ap);
	va_end(ap);
	return p;
}

void
arena_free(Arena *a)
{
	ArenaBlock *b = a->head;

	while (b)
	{
		ArenaBlock *next = b->next;

		free(b);
		b = next;
	}
	a->head = NULL;
	a->total = 0;
}

/* ---- Buf ---- */

void
buf_init(Buf *b)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
	b->failed = false;
}

void
buf_reserve(Buf *b, size_t extra)
{
	size_t		want;
	char	   *p;

	if (b->failed)
		return;
	if (extra > SIZE_MAX / 4 - b->len)
	{
		b->failed = true;
		return;
	}
	want = b->len + extra + 1;
	if (want <= b->cap)
		return;
	if (want < b->cap * 2)
		want = b->cap * 2;
	if (want < 256)
		want = 256;
	p = realloc(b->data, want);
	if (p == NULL)
	{
		b->failed = true;
		return;
	}
	b->data = p;
	b->cap = want;
}

void
buf_append(Buf *b, const void *p, size_t n)
{
	buf_reserve(b, n);
	if (b->failed)
		return;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void
buf_puts(Buf *b, const char *s)
{
	buf_append(b, s, strlen(s));
}

void
buf_printf(Buf *b, const char *fmt,...)
{
	va_list		ap;
	int			n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	buf_reserve(b, (size_t) n);
	if (b->failed)
		return;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t) n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t) n;
}

void
buf_json_string(Buf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";

	buf_reserve(b, n + 2);
	buf_append(b, "\"", 1);
	for (size_t i = 0; i < n; i++)
	{
		unsigned char c = (unsigned char) s[i];

		if (c == '"' || c == '\\')
		{
			char		e[2] = {'\\', (char) c};

			buf_append(b, e, 2);
		}
		else if (c == '\n')
			buf_append(b, "\\n", 2);
		else if (c == '\r')
			buf_append(b, "\\r", 2);
		else if (c == '\t')
			buf_append(b, "\\t", 2);
		else if (c < 0x20 || c == 0x7f)
		{
			char		e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};

			buf_append(b, e, 6);
		}
		else
			buf_append(b, &s[i], 1);
	}
	buf_append(b, "\"", 1);
}

void
buf_xml_text(Buf *b, const char *s)
{
	for (; *s; s++)
	{
		switch (*s)
		{
			case '&':
				buf_puts(b, "&amp;");
				break;
			case '<':
				buf_puts(b, "&lt;");
				break;
			case '>':
				buf_puts(b, "&gt;");
				break;
			case '"':
				buf_puts(b, "&quot;");
				break;
			case '\'':
				buf_puts(b, "&apos;");
				break;
			default:
				if ((unsigned char) *s >= 0x20 || *s == '\n' || *s == '\t')
					buf_append(b, s, 1);
		}
	}
}

char *
buf_steal(Buf *b)
{
	char	   *p = b->data;

	if (p == NULL)
		p = calloc(1, 1);
	buf_init(b);
	return p;
}

void
buf_free(Buf *b)
{
	free(b->data);
	buf_init(b);
}

/* ---- base64 ---- */

static const char b64chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t
b64_encoded_len(size_t n)
{
	return (n + 2) / 3 * 4;
}

void
b64_encode(const unsigned char *in, size_t n, char *out)
{
	size_t		i,
				o = 0;

	for (i = 0; i + 2 < n; i += 3)
	{
		uint32_t	v = (uint32_t) in[i] << 16 | (uint32_t) in[i + 1] << 8 | in[i + 2];

		out[o++] = b64chars[v >> 18];
		out[o++] = b64chars[(v >> 12) & 63];
		out[o++] = b64chars[(v >> 6) & 63];
		out[o++] = b64chars[v & 63];
	}
	if (i < n)
	{
		uint32_t	v = (uint32_t) in[i] << 16 | (i + 1 < n ? (uint32_t) in[i + 1] << 8 : 0);

		out[o++] = b64chars[v >> 18];
		out[o++] = b64chars[(v >> 12) & 63];
		out[o++] = i + 1 < n ? b64chars[(v >> 6) & 63] : '=';
		out[o++] = '=';
	}
	out[o] = '\0';
}

static int
b64val(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

long
b64_decode(const char *in, size_t n, unsigned char *out, size_t outcap)
{
	size_t		o = 0;

	if (n % 4 != 0)
		return -1;
	for (size_t i = 0; i < n; i += 4)
	{
		int			v[4];
		int			pad = 0;

		for (int k = 0; k < 4; k++)
		{
			if (in[i + k] == '=' && i + 4 == n && k >= 2)
			{
				v[k] = 0;
				pad++;
			}
			else if (pad)
				return -1;		/* data after padding */
			else if ((v[k] = b64val((unsigned char) in[i + k])) < 0)
				return -1;
		}
		if (pad == 2 && (v[1] & 15))
			return -1;			/* non-canonical: unused bits set */
		if (pad == 1 && (v[2] & 3))
			return -1;
		if (o + 3 - (size_t) pad > outcap)
			return -1;
		out[o++] = (unsigned char) (v[0] << 2 | v[1] >> 4);
		if (pad < 2)
			out[o++] = (unsigned char) ((v[1] & 15) << 4 | v[2] >> 2);
		if (pad < 1)
			out[o++] = (unsigned char) ((v[2] & 3) << 6 | v[3]);
	}
	return (long) o;
}

/* ---- misc ---- */

bool
utf8_valid(const unsigned char *s, size_t n)
{
	size_t		i = 0;

	while (i < n)
	{
		unsigned char c = s[i];
		size_t		len;
		uint32_t	cp;

		if (c < 0x80)
		{
			i++;
			continue;
		}
		if (c >= 0xC2 && c <= 0xDF)
		{
			len = 2;
			cp = c & 0x1F;
		}
		else if (c >= 0xE0 && c <= 0xEF)
		{
			len = 3;
			cp = c & 0x0F;
		}
		else if (c >= 0xF0 && c <= 0xF4)
		{
			len = 4;
			cp = c & 0x07;
		}
		else
			return false;
		if (i + len > n)
			return false;
		for (size_t k = 1; k < len; k++)
		{
			if ((s[i + k] & 0xC0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + k] & 0x3F);
		}
		if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
			(cp >= 0xD800 && cp <= 0xDFFF))
			return false;
		i += len;
	}
	return true;
}

void
http_date(char out[64], time_t t)
{
	struct tm	tm;

	gmtime_r(&t, &tm);
	strftime(out, 64, "%a, %d %b %Y %H:%M:%S GMT", &tm);
}

void
iso_now(char out[40])
{
	struct timespec ts;
	struct tm	tm;
	size_t		n;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = strftime(out, 40, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out + n, 40 - n, ".%07dZ", (int) (ts.tv_nsec / 100) % 10000000);
}

void
uuid_v4(char out[37])
{
	unsigned char r[16];
	static const char hex[] = "0123456789abcdef";
	int			o = 0;

	if (getrandom(r, sizeof(r), 0) != (ssize_t) sizeof(r))
	{
		/* never expected; still produce something unique enough for a request id */
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		memcpy(r, &ts, sizeof(r) < sizeof(ts) ? sizeof(r) : sizeof(ts));
	}
	r[6] = (r[6] & 0x0F) | 0x40;
	r[8] = (r[8] & 0x3F) | 0x80;
	for (int i = 0; i < 16; i++)
	{
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[o++] = '-';
		out[o++] = hex[r[i] >> 4];
		out[o++] = hex[r[i] & 15];
	}
	out[o] = '\0';
}

bool
ascii_ieq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
	{
		int			x = (unsigned char) *a,
					y = (unsigned char) *b;

		if (x >= 'A' && x <= 'Z')
			x += 32;
		if (y >= 'A' && y <= 'Z')
			y += 32;
		if (x != y)
			return false;
	}
	return *a == *b;
}

bool
ascii_nieq(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
	{
		int			x = (unsigned char) a[i],
					y = (unsigned char) b[i];

		if (x >= 'A' && x <= 'Z')
			x += 32;
		if (y >= 'A' && y <= 'Z')
			y += 32;
		if (x != y)
			return false;
		if (x == 0)
			return true;
	}
	return true;
}

int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

bool
parse_digits(const char *s, int n, int *out)
{
	*out = 0;
	for (int i = 0; i < n; i++)
	{
		if (s[i] < '0' || s[i] > '9')
			return false;
		*out = *out * 10 + (s[i] - '0');
	}
	return true;
}

size_t
utf8_encode(unsigned long cp, char out[4])
{
	if (cp < 0x80)
	{
		out[0] = (char) cp;
		return 1;
	}
	if (cp < 0x800)
	{
		out[0] = (char) (0xC0 | (cp >> 6));
		out[1] = (char) (0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000)
	{
		out[0] = (char) (0xE0 | (cp >> 12));
		out[1] = (char) (0x80 | ((cp >> 6) & 0x3F));
		out[2] = (char) (0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char) (0xF0 | (cp >> 18));
	out[1] = (char) (0x80 | ((cp >> 12) & 0x3F));
	out[2] = (char) (0x80 | ((cp >> 6) & 0x3F));
	out[3] = (char) (0x80 | (cp & 0x3F));
	return 4;
}
