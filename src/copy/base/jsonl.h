/*
 * jsonl.h - JSON Lines files, plain or gzip-compressed (jsonl.c, over zlib), and the flat JSON
 * objects their lines hold (the entities, the manifest, the checkpoint state, the rejects).
 *
 * A writer ends a gzip member at every sync point (jsonl_sync), so that a killed run leaves a
 * file that is whole up to the offset the checkpoint recorded: resuming truncates it there and
 * appends a new member (zlib reads concatenated members as one stream).
 */
#ifndef COPY_JSONL_H
#define COPY_JSONL_H

#include "json_lex.h"

#include <stdio.h>

#define JSONL_MAX_LINE (16 * 1024 * 1024)	/* an entity of 1 MiB is at most ~6 MiB of JSON */

typedef struct JsonlReader JsonlReader;
typedef struct JsonlWriter JsonlWriter;

/* Open a file for reading (gzip or plain, found by its content); NULL with errno set. */
extern JsonlReader *jsonl_open_read(const char *path);

/*
 * The next line (without its newline; *line valid until the next call): 1, 0 at the end, -1 on
 * an error (a line over JSONL_MAX_LINE, a damaged gzip stream, a last line without its newline),
 * with *why set.
 */
extern int	jsonl_next(JsonlReader *r, const char **line, size_t *len, const char **why);
extern void jsonl_close_read(JsonlReader *r);

/* Read lines from memory (the fuzz target): the same splitting rules as a file. */
extern JsonlReader *jsonl_open_mem(const char *data, size_t len);

/*
 * Open path for writing, gzip-compressed or not; truncate_at >= 0: keep its first truncate_at
 * bytes and append (a resume), < 0: start it afresh. NULL with errno set.
 */
extern JsonlWriter *jsonl_open_write(const char *path, bool gzip, long long truncate_at);
extern bool jsonl_write(JsonlWriter *w, const char *data, size_t len);	/* a line, newline added */
/* Make everything written durable (gzip: end the member); *offset: the file's length now. */
extern bool jsonl_sync(JsonlWriter *w, long long *offset);
extern bool jsonl_close_write(JsonlWriter *w);

/* A flat JSON object's members (strings decoded), in the order written. */
#define JFLAT_MAX 32

typedef struct JFlat
{
	int			n;
	struct
	{
		const char *name;
		uint32		name_len;
		JsonToken	val;		/* JT_STRING (decoded), JT_NUMBER, JT_TRUE, JT_FALSE, JT_NULL */
	}			m[JFLAT_MAX];
} JFlat;

/* Parse a flat object (members with scalar values, at most JFLAT_MAX); false with err set. */
extern bool jflat_parse(const char *s, size_t len, JFlat *out, TsError *err);

/* A member's value (NULL when absent) */
extern const JsonToken *jflat_get(const JFlat *f, const char *name);
/* A string member as a malloc'd C string (NULL when absent, not a string, or holding NUL). */
extern char *jflat_str(const JFlat *f, const char *name);
/* An integer member; false when absent or not an integer. */
extern bool jflat_int(const JFlat *f, const char *name, long long *out);
extern bool jflat_bool(const JFlat *f, const char *name, bool *out);

/* Append s as a JSON string to a malloc'd StringInfo (json_escape_byte's rule) */
extern void jsonl_append_string(StringInfo out, const char *s, size_t len);

#endif
