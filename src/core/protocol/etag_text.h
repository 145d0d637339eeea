/*
 * etag_text.h - the text of an ETag (etag_text.c), backend-free.
 *
 * The service's form, exactly: W/"datetime'<Timestamp>'" where <Timestamp> is the entity's
 * Timestamp as every output writes it (edm_format_datetime_trimmed: up to seven fractional digits,
 * trailing zeros dropped) with each ':' written %3A, e.g.
 *   W/"datetime'2014-08-22T00%3A50%3A44.1234567Z'"
 * Clients (azure-cosmosdb-table) build the ETag from the Timestamp, so the two agree character
 * for character. Before 0.3.0 an ETag had seven digits always and a suffix that made it unique:
 *   W/"datetime'2014-08-22T00%3A50%3A44.1234560Z'-<xid>.<n>"
 * which rows not written since still hold; it is read here too (its Timestamp is the datetime part).
 */
#ifndef ETAG_TEXT_H
#define ETAG_TEXT_H

#include "ts_core.h"

#define ETAG_TEXT_MAX 64		/* W/"datetime'…'" of the longest Timestamp, with the NUL */

typedef enum EtagTextForm
{
	ETAG_TEXT_OTHER,			/* neither form: no Timestamp can be read from it */
	ETAG_TEXT_SERVICE,			/* W/"datetime'<datetime>'" */
	ETAG_TEXT_LEGACY			/* W/"datetime'<datetime>'-<hex>.<hex>" (before 0.3.0) */
} EtagTextForm;

/* The ETag of a Timestamp in ticks, NUL-terminated into buf[ETAG_TEXT_MAX]; returns its length. */
extern int	etag_text_format(int64 ticks, char *buf);

/* Which form s has; for the two forms, the Timestamp it carries in *ticks. */
extern EtagTextForm etag_text_parse(const char *s, size_t len, int64 *ticks);

/* Does s start with the weak prefix, W/" or w/" (HTTP's "W/" is case-sensitive; the service's is not)? */
extern bool etag_text_weak(const char *s, size_t len);

/*
 * Are a and b the same ETag, a colon written ':', %3A or %3a alike, the weak prefix W/ or w/, and the fraction of a second
 * with or without trailing zeros (an ETag ending in .<1 to 7 digits>Z'" names the same instant
 * without the zeros at the end of those digits, and without the '.' when all are zeros)? Clients
 * that build the ETag from the Timestamp (azure-storage 2.x with nometadata) write its colons as
 * they are; Azurite (and the service for some Timestamps) writes seven digits always, so an ETag
 * it issued, its Timestamp kept by tablestore-copy --keep-timestamps, still matches.
 */
extern bool etag_text_same(const char *a, size_t alen, const char *b, size_t blen);

#endif							/* ETAG_TEXT_H */
