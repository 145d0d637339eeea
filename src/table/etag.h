/*
 * etag.h - ETags, If-Match values, and the Timestamp and ETag a stored row shows (etag.c).
 *
 * Where the 100 ns precision lives: a row's etag column holds the exact Timestamp (the ETag is the
 * service's form, W/"datetime'<Timestamp>'", core/protocol/etag_text.h) and its "timestamp" column the
 * Timestamp rounded down to the microsecond (timestamptz holds no more). Every output of a row's
 * Timestamp and ETag - the functions' rows, pages, REST bodies, batch results - comes from
 * etag_row_stamp, and nothing else reads the two columns for it.
 */
#ifndef ETAG_H
#define ETAG_H

#include "postgres.h"

#include "datatype/timestamp.h"
#include "etag_text.h"

#define ETAG_MAX_LEN 256

/* The ETag of a write stamped at ticks (stamp.c): W/"datetime'2014-08-22T00%3A50%3A44.1234567Z'". */
extern text *etag_make(int64 ticks);

/*
 * What a stored row shows: its Timestamp in ticks and its ETag. The ticks are those its etag
 * carries when that is one of the two forms of etag_text.h and agrees with the "timestamp"
 * column (ticks rounded down to the microsecond are the column); the ETag is then the service's
 * form of those ticks, the same text for a row written before 0.3.0 (whose stored etag has the
 * old suffix) as for one written since. A row whose etag is neither (written with the stamp
 * trigger disabled, say) shows the column's microseconds and its etag as stored.
 */
typedef struct RowStamp
{
	int64		ticks;
	const char *etag;			/* into buf, or into the stored etag */
	int			etag_len;
	char		buf[ETAG_TEXT_MAX];
} RowStamp;

extern void etag_row_stamp(TimestampTz ts, text *etag, RowStamp *out);	/* etag may be NULL */

/* The ETag of a RowStamp as a new text. */
extern text *etag_row_stamp_text(const RowStamp *rs);

/*
 * A row's five columns (layout order) as the SQL row forms return them: the etag column becomes
 * the ETag the row shows (a new text in the current memory context).
 */
extern void etag_show_row(Datum *values, const bool *nulls);

typedef enum IfMatch
{
	IF_MATCH_ANY,				/* "*" */
	IF_MATCH_ETAG				/* a specific, well-formed ETag */
} IfMatch;

/* Is it * or a well-formed ETag: W/"..." of at most ETAG_MAX_LEN printable characters? */
extern bool etag_if_match_valid(text *if_match);

/* Classify an If-Match value; raises InvalidInput (TSB15) when it is neither * nor an ETag. */
extern IfMatch etag_parse_if_match(text *if_match);

/*
 * Does an If-Match ETag match a row's stored etag? When it is the same text, or when the stored
 * etag has the form before 0.3.0 and if_match is the ETag the row shows (the service's form of its
 * Timestamp): a client that read the row since the upgrade, or built the ETag from its Timestamp.
 */
extern bool etag_matches(text *stored, text *if_match);

#endif							/* ETAG_H */
