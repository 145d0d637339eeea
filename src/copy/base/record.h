/*
 * record.h - one entity on its way from a source to a destination (record.c): its keys, its
 * Timestamp in ticks and its properties in the core's canonical binary form (entity_format.h),
 * whatever the endpoint; its JSON text and its checksum.
 *
 * The checksum (what --verify and the manifest compare) is defined over a canonical form, so that
 * it is the same from every endpoint: XXH3-128 of the keys and of the properties in name order
 * (each its name, EDM type and value bytes as the core stores them: Int64 and DateTime ticks
 * little-endian, Doubles with one NaN, Guid in text order, Strings as UTF-8), and - with
 * keep_timestamps - the Timestamp's ticks. The order properties were written in is not part of
 * it (the service does not keep it either); without --keep-timestamps the Timestamp is not part
 * of it, since the destination stamps its own. A partition's checksum is the sum (mod 2^64, each
 * half) of its entities' checksums: independent of the order entities are read in.
 */
#ifndef COPY_RECORD_H
#define COPY_RECORD_H

#include "entity_format.h"

typedef struct Record
{
	const char *pk;
	uint32		pk_len;
	const char *rk;
	uint32		rk_len;
	int64		ticks;			/* the source's Timestamp; 0 when it has none */
	const uint8 *body;			/* the properties' canonical body (keys apart), or NULL (keys only) */
	uint32		body_len;
} Record;

typedef struct Sum128
{
	uint64		lo;
	uint64		hi;
} Sum128;

/*
 * A Table service entity object (the service's JSON: PartitionKey, RowKey, Timestamp, properties
 * with @odata.type annotations; odata.* members ignored) into r, in the current palloc arena.
 */
extern bool record_from_json(const char *json, size_t len, Record *r, TsError *err);

/* A binary body (as COPY BINARY gives the properties column) checked as strictly as entity_recv. */
extern bool record_set_body(Record *r, const uint8 *body, uint32 len, TsError *err);

#define REC_JSON_TIMESTAMP	0x01	/* "Timestamp" with its annotation */
#define REC_JSON_KEYS		0x02	/* PartitionKey and RowKey */

/*
 * The entity's JSON, every non-String property annotated (so that no reader - the service,
 * Azurite, a JavaScript client - takes a whole-number Double for an Int32 or drops a type).
 */
extern void record_append_json(StringInfo out, const Record *r, int flags);

/* XXH3-128 of the canonical form (see above). */
extern Sum128 record_checksum(const Record *r, bool with_timestamp);

static inline void
sum128_add(Sum128 *a, Sum128 b)
{
	a->lo += b.lo;
	a->hi += b.hi;
}

/* 32 hex digits into buf[33] */
extern void sum128_hex(Sum128 s, char *buf);
extern bool sum128_parse(const char *s, size_t len, Sum128 *out);

/* Keys in the order of every store: byte-wise, shorter first on a common prefix. */
static inline int
record_key_cmp(const char *a, uint32 alen, const char *b, uint32 blen)
{
	int			c = memcmp(a, b, alen < blen ? alen : blen);

	return c != 0 ? c : (alen > blen) - (alen < blen);
}

/*
 * A table name as the service allows it: a letter, then 2 to 62 letters or digits. Every name a
 * source lists goes through it before it names a file, a resource or a SQL object (a hostile
 * endpoint's "../x" must not).
 */
extern bool record_table_name_ok(const char *s, size_t n);

/*
 * Keys in the order of the service and Azurite: UTF-16 code units (for the UTF-8 keys here: code
 * points, except that one above U+FFFF sorts as its high surrogate, below U+E000-U+FFFF).
 */
extern int	record_key_cmp_utf16(const char *a, uint32 alen, const char *b, uint32 blen);

/*
 * The key order of a stream of records (a page after page of a Table endpoint, a directory's
 * file): each key must come after the one before in byte order (a database, the gateway) or in
 * UTF-16 order (the service, Azurite), the same one all along: a key again, or out of both
 * orders, is an error (a source that repeats itself, a damaged file).
 */
typedef struct KeyOrder
{
	bool		have_last;
	bool		bytes_ok;
	bool		utf16_ok;
	char	   *last_pk;		/* malloc'd */
	char	   *last_rk;
	uint32		last_pk_len;
	uint32		last_rk_len;
} KeyOrder;

/* false when r breaks the order (o is left as it was) */
extern bool key_order_next(KeyOrder *o, const Record *r);
extern void key_order_free(KeyOrder *o);

#endif
