/*
 * etag.h - ETags and If-Match values.
 */
#ifndef ETAG_H
#define ETAG_H

#include "postgres.h"

#include "datatype/timestamp.h"

#define ETAG_MAX_LEN 256

/*
 * A new ETag for a write stamped at ts:
 *   W/"datetime'2014-08-22T00%3A50%3A44.1234560Z'-<xid>.<n>"
 * The datetime part is the service's form (the Timestamp, 7 digits); the suffix - the full
 * transaction id in hex and a per-backend write counter - makes it unique among all writes of
 * the cluster, including several writes in one transaction or one microsecond.
 */
extern text *etag_make(TimestampTz ts);

typedef enum IfMatch
{
	IF_MATCH_ANY,				/* "*" */
	IF_MATCH_ETAG				/* a specific, well-formed ETag */
} IfMatch;

/* Is it * or a well-formed ETag: W/"..." of at most ETAG_MAX_LEN printable characters? */
extern bool etag_if_match_valid(text *if_match);

/* Classify an If-Match value; raises InvalidInput (TSB15) when it is neither * nor an ETag. */
extern IfMatch etag_parse_if_match(text *if_match);

#endif							/* ETAG_H */
