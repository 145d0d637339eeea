/*
 * jsonl.c - JSON Lines over zlib, and flat JSON objects (jsonl.h).
 */
#include "jsonl.h"
#include "entity_format.h"
#include "mem.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

struct JsonlReader
{
	gzFile		gz;				/* NULL: reading from memory */
	const char *mem;
	size_t		mem_len;
	size_t		mem_pos;
	char	   *buf;
	size_t		cap;
	size_t		start;			/* the next line starts here */
	size_t		end;			/* bytes in buf */
	bool		eof;
};

struct JsonlWriter
{
	int			fd;
	gzFile		gz;
	bool		gzip;
};

static JsonlReader *
reader_new(void)
{
	JsonlReader *r = mem_alloc(sizeof(JsonlReader));

	memset(r, 0, sizeof(*r));
	r->cap = 1 << 16;
	r->buf = mem_alloc(r->cap);
	return r;
}

JsonlReader *
jsonl_open_read(const char *path)
{
	gzFile		gz = gzopen(path, "rb");
	JsonlReader *r;

	if (gz == NULL)
		return NULL;
	gzbuffer(gz, 1 << 17);
	r = reader_new();
	r->gz = gz;
	return r;
}

JsonlReader *
jsonl_open_mem(const char *data, size_t len)
{
	JsonlReader *r = reader_new();

	r->mem = data;
	r->mem_len = len;
	return r;
}

/* more bytes into buf after end; false on a read error */
static bool
fill(JsonlReader *r, const char **why)
{
	size_t		room;

	if (r->start > 0)
	{
		memmove(r->buf, r->buf + r->start, r->end - r->start);
		r->end -= r->start;
		r->start = 0;
	}
	if (r->end == r->cap)
	{
		if (r->cap >= JSONL_MAX_LINE + 1)
		{
			*why = "a line is longer than 16 MiB";
			return false;
		}
		r->cap *= 2;
		r->buf = mem_realloc(r->buf, r->cap);
	}
	room = r->cap - r->end;
	if (r->gz != NULL)
	{
		int			n = gzread(r->gz, r->buf + r->end, (unsigned) (room > (1u << 30) ? (1u << 30) : room));
		int			errnum;

		if (n < 0)
		{
			const char *m = gzerror(r->gz, &errnum);

			*why = errnum == Z_ERRNO ? strerror(errno) : m;
			return false;
		}
		if (n == 0)
		{
			gzerror(r->gz, &errnum);
			/* a gzip stream cut short reads as the end with Z_BUF_ERROR */
			if (errnum == Z_BUF_ERROR)
			{
				*why = "the gzip stream ends early (a truncated file)";
				return false;
			}
			r->eof = true;
		}
		r->end += (size_t) n;
	}
	else
	{
		size_t		n = r->mem_len - r->mem_pos < room ? r->mem_len - r->mem_pos : room;

		memcpy(r->buf + r->end, r->mem + r->mem_pos, n);
		r->mem_pos += n;
		r->end += n;
		if (n == 0)
			r->eof = true;
	}
	return true;
}

int
jsonl_next(JsonlReader *r, const char **line, size_t *len, const char **why)
{
	size_t		scanned = 0;

	for (;;)
	{
		char	   *nl = memchr(r->buf + r->start + scanned, '\n', r->end - r->start - scanned);

		if (nl != NULL)
		{
			size_t		n = (size_t) (nl - (r->buf + r->start));

			*line = r->buf + r->start;
			*len = n;
			if (n > 0 && (*line)[n - 1] == '\r')
				(*len)--;
			r->start += n + 1;
			if (*len > JSONL_MAX_LINE)
			{
				*why = "a line is longer than 16 MiB";
				return -1;
			}
			return 1;
		}
		scanned = r->end - r->start;
		if (r->eof)
		{
			if (scanned == 0)
				return 0;
			*why = "the last line has no newline (a truncated file)";
			return -1;
		}
		if (!fill(r, why))
			return -1;
	}
}

void
jsonl_close_read(JsonlReader *r)
{
	if (r == NULL)
		return;
	if (r->gz)
		gzclose(r->gz);
	free(r->buf);
	free(r);
}

JsonlWriter *
jsonl_open_write(const char *path, bool gzip, long long truncate_at)
{
	int			fd = open(path, O_WRONLY | O_CREAT | (truncate_at < 0 ? O_TRUNC : 0), 0600);	/* the owner's data */
	JsonlWriter *w;
	int			dup_fd;

	if (fd < 0)
		return NULL;
	if (truncate_at >= 0 && (ftruncate(fd, (off_t) truncate_at) != 0 || lseek(fd, 0, SEEK_END) < 0))
	{
		int			e = errno;

		close(fd);
		errno = e;
		return NULL;
	}
	/* zlib owns (and closes) a duplicate; fd stays ours for fsync */
	dup_fd = dup(fd);
	w = mem_alloc(sizeof(JsonlWriter));
	w->fd = fd;
	w->gzip = gzip;
	w->gz = dup_fd < 0 ? NULL : gzdopen(dup_fd, gzip ? "ab6" : "abT");
	if (w->gz == NULL)
	{
		if (dup_fd >= 0)
			close(dup_fd);
		close(fd);
		free(w);
		errno = ENOMEM;
		return NULL;
	}
	gzbuffer(w->gz, 1 << 17);
	return w;
}

bool
jsonl_write(JsonlWriter *w, const char *data, size_t len)
{
	while (len > 0)
	{
		unsigned	chunk = len > (1u << 30) ? (1u << 30) : (unsigned) len;

		if (gzwrite(w->gz, data, chunk) != (int) chunk)
			return false;
		data += chunk;
		len -= chunk;
	}
	return gzputc(w->gz, '\n') == '\n';
}

bool
jsonl_sync(JsonlWriter *w, long long *offset)
{
	off_t		end;

	if (gzflush(w->gz, w->gzip ? Z_FINISH : Z_SYNC_FLUSH) != Z_OK || fsync(w->fd) != 0)
		return false;
	end = lseek(w->fd, 0, SEEK_END);
	if (end < 0)
		return false;
	*offset = (long long) end;
	return true;
}

bool
jsonl_close_write(JsonlWriter *w)
{
	bool		ok = true;
	long long	offset;

	if (w == NULL)
		return true;
	ok = jsonl_sync(w, &offset);
	if (gzclose(w->gz) != Z_OK)
		ok = false;
	if (close(w->fd) != 0)
		ok = false;
	free(w);
	return ok;
}

bool
jflat_parse(const char *s, size_t len, JFlat *out, TsError *err)
{
	JsonLex		lx;
	JsonToken	t;

	out->n = 0;
	json_lex_init(&lx, s, len, err, TSE_INVALID_JSON, "invalid JSON line");
	if (!json_expect(&lx, &t, JT_LBRACE, "a JSON object was expected"))
		return false;
	for (bool first = true;;)
	{
		JsonToken	name;

		if (!json_next_member(&lx, &first, &name, true))
			return false;
		if (name.kind == JT_RBRACE)
			break;
		if (out->n == JFLAT_MAX)
			return json_error(&lx, name.pos, "too many members");
		if (json_peek(&lx) == '{' || json_peek(&lx) == '[')
			return json_error(&lx, lx.i, "nested values are not expected here");
		if (!json_next(&lx, &out->m[out->n].val))
			return false;
		if (out->m[out->n].val.kind < JT_STRING)
			return json_error(&lx, out->m[out->n].val.pos, "a value was expected");
		if (out->m[out->n].val.kind == JT_STRING && !json_decode_string(&lx, &out->m[out->n].val))
			return false;
		out->m[out->n].name = name.p;
		out->m[out->n].name_len = name.len;
		out->n++;
	}
	if (json_peek(&lx) != '\0')
		return json_error(&lx, lx.i, "text after the object");
	return true;
}

const JsonToken *
jflat_get(const JFlat *f, const char *name)
{
	size_t		n = strlen(name);

	for (int i = 0; i < f->n; i++)
		if (f->m[i].name_len == n && memcmp(f->m[i].name, name, n) == 0)
			return &f->m[i].val;
	return NULL;
}

char *
jflat_str(const JFlat *f, const char *name)
{
	const JsonToken *t = jflat_get(f, name);

	if (t == NULL || t->kind != JT_STRING || memchr(t->p, '\0', t->len) != NULL)
		return NULL;
	return mem_strndup(t->p, t->len);
}

bool
jflat_int(const JFlat *f, const char *name, long long *out)
{
	const JsonToken *t = jflat_get(f, name);
	int64		v;

	if (t == NULL || t->kind != JT_NUMBER || !t->integer || edm_parse_int64(t->p, t->len, &v) != EDM_OK)
		return false;
	*out = (long long) v;
	return true;
}

bool
jflat_bool(const JFlat *f, const char *name, bool *out)
{
	const JsonToken *t = jflat_get(f, name);

	if (t == NULL || (t->kind != JT_TRUE && t->kind != JT_FALSE))
		return false;
	*out = t->kind == JT_TRUE;
	return true;
}

void
jsonl_append_string(StringInfo out, const char *s, size_t len)
{
	entity_append_json_string(out, s, len);
}
