/*
 * util.h - small building blocks shared by every gateway file: a per-request arena, a growable
 * byte buffer, JSON string escaping into it, HTTP dates and request ids. The codecs (base64, hex
 * digits, UTF-8, the JSON tokenizer) are the core's (src/core: edm.h, json_lex.h), which the
 * gateway is built with. libmicrohttpd-free and libpq-free, so the fuzz targets link it.
 */
#ifndef GW_UTIL_H
#define GW_UTIL_H

/* the core's base include first: the gateway is compiled as the core's frontend (TS_FRONTEND) */
#include "ts_core.h"
#include "edm.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* ---- arena: many small allocations, one free at the end of a request ---- */
typedef struct ArenaBlock ArenaBlock;
typedef struct Arena
{
	ArenaBlock *head;
	size_t		total;			/* bytes handed out, for the per-request cap */
	size_t		limit;			/* 0 = no limit; over it arena_alloc aborts the request (returns NULL) */
} Arena;

extern void arena_init(Arena *a, size_t limit);
extern void *arena_alloc(Arena *a, size_t n);	/* zeroed; NULL only when over the limit or out of memory */
extern char *arena_strndup(Arena *a, const char *s, size_t n);
extern char *arena_strdup(Arena *a, const char *s);
extern char *arena_printf(Arena *a, const char *fmt,...) __attribute__((format(printf, 2, 3)));
extern void arena_free(Arena *a);

/* ---- growable buffer (malloc'd), always NUL-terminated ---- */
typedef struct Buf
{
	char	   *data;
	size_t		len;
	size_t		cap;
	bool		failed;			/* out of memory: later appends are ignored */
} Buf;

extern void buf_init(Buf *b);
extern void buf_reserve(Buf *b, size_t extra);
extern void buf_append(Buf *b, const void *p, size_t n);
/* buf_append as the core's TsPut: for the core's writers (sign.h, edm_put_key_path) */
extern void buf_put(void *b, const char *s, size_t len);
extern void buf_puts(Buf *b, const char *s);
extern void buf_printf(Buf *b, const char *fmt,...) __attribute__((format(printf, 2, 3)));
extern void buf_json_string(Buf *b, const char *s, size_t n);	/* "..." escaped as json_escape_byte says */
extern void buf_xml_text(Buf *b, const char *s);	/* &amp; &lt; &gt; &quot; &apos; */
extern char *buf_steal(Buf *b);	/* the malloc'd data; the buffer is reset */
extern void buf_free(Buf *b);

/* Strict base64 (padded, canonical) into out, at most outcap bytes: the decoded length, or -1. */
extern long b64_decode(const char *in, size_t n, unsigned char *out, size_t outcap);

/*
 * The CRC64 of x-ms-content-crc64, as Azure Storage computes it: CRC-64 with the reflected
 * polynomial 0x9A6C9329AC4BC9B5, initial value and final xor all ones (sent as the 8 bytes
 * little-endian, base64).
 */
extern uint64_t crc64_azure(const unsigned char *p, size_t n);

/* ---- misc ---- */
extern void http_date(char out[64], time_t t);	/* "Mon, 02 Jan 2006 15:04:05 GMT" */
extern void iso_now(char out[40]);	/* "2024-01-02T03:04:05.1234567Z" */
extern void uuid_v4(char out[37]);
extern bool ascii_ieq(const char *a, const char *b);
extern bool ascii_nieq(const char *a, const char *b, size_t n);
extern double now_ms(void);		/* monotonic */

#endif
