/*
 * util.c - arena, growable buffer, JSON/XML escaping, dates and request ids (see util.h); base64
 * through the core's codec.
 */
#include "util.h"
#include "json_lex.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
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
buf_put(void *b, const char *s, size_t len)
{
	buf_append((Buf *) b, s, len);
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
	size_t		run = 0;

	buf_reserve(b, n + 2);
	buf_append(b, "\"", 1);
	for (size_t i = 0; i < n; i++)
	{
		char		esc[6];
		int			k = json_escape_byte((unsigned char) s[i], esc);

		if (k == 0)
			continue;
		buf_append(b, s + run, i - run);
		buf_append(b, esc, (size_t) k);
		run = i + 1;
	}
	buf_append(b, s + run, n - run);
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

/* ---- base64: the core's codec (edm.h), with the caller's capacity ---- */

long
b64_decode(const char *in, size_t n, unsigned char *out, size_t outcap)
{
	size_t		max = n / 4 * 3;
	size_t		len = 0;
	unsigned char *tmp;
	long		res = -1;

	if (n % 4 != 0 || max > outcap + 2)
		return -1;
	tmp = malloc(max + 1);
	if (tmp == NULL)
		return -1;
	if (edm_base64_decode(in, n, tmp, &len) == EDM_OK && len <= outcap)
	{
		memcpy(out, tmp, len);
		res = (long) len;
	}
	free(tmp);
	return res;
}

/* ---- CRC64 ---- */

static uint64_t crc64_table[256];
static pthread_once_t crc64_once = PTHREAD_ONCE_INIT;

static void
crc64_build(void)
{
	for (int i = 0; i < 256; i++)
	{
		uint64_t	c = (uint64_t) i;

		for (int k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ UINT64_C(0x9A6C9329AC4BC9B5) : c >> 1;
		crc64_table[i] = c;
	}
}

uint64_t
crc64_azure(const unsigned char *p, size_t n)
{
	uint64_t	c = ~UINT64_C(0);

	pthread_once(&crc64_once, crc64_build);
	for (size_t i = 0; i < n; i++)
		c = crc64_table[(c ^ p[i]) & 0xff] ^ (c >> 8);
	return ~c;
}

/* ---- misc ---- */

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

	if (getrandom(r, sizeof(r), 0) != (ssize_t) sizeof(r))
	{
		/* never expected; still produce something unique enough for a request id */
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		memcpy(r, &ts, sizeof(r) < sizeof(ts) ? sizeof(r) : sizeof(ts));
	}
	r[6] = (r[6] & 0x0F) | 0x40;
	r[8] = (r[8] & 0x3F) | 0x80;
	edm_format_guid(r, out);	/* the Guid's text: lower case, 8-4-4-4-12 */
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

double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

