/*
 * etag.c - making ETags and checking If-Match values.
 */
#include "etag.h"

#include "access/xact.h"
#include "edm.h"
#include "ts_report.h"
#include "utils/builtins.h"

static uint64 etag_counter = 0;

text *
etag_make(TimestampTz ts)
{
	char		dt[EDM_DATETIME_TEXT_LEN + 1];
	char		buf[ETAG_MAX_LEN];
	char	   *o = buf;
	uint64		xid = U64FromFullTransactionId(GetTopFullTransactionId());
	int64		ticks = (int64) ts * 10 + EDM_TICKS_PG_EPOCH;

	edm_format_datetime(ticks, dt);
	o += sprintf(o, "W/\"datetime'");
	for (const char *p = dt; *p; p++)
	{
		if (*p == ':')
		{
			memcpy(o, "%3A", 3);
			o += 3;
		}
		else
			*o++ = *p;
	}
	o += sprintf(o, "'-%llx.%llx\"", (unsigned long long) xid, (unsigned long long) ++etag_counter);
	return cstring_to_text_with_len(buf, (int) (o - buf));
}

bool
etag_if_match_valid(text *if_match)
{
	const char *s = VARDATA_ANY(if_match);
	int			len = VARSIZE_ANY_EXHDR(if_match);

	if (len == 1 && s[0] == '*')
		return true;
	if (len < 5 || len > ETAG_MAX_LEN || memcmp(s, "W/\"", 3) != 0 || s[len - 1] != '"')
		return false;
	for (int i = 3; i < len - 1; i++)
	{
		unsigned char c = (unsigned char) s[i];

		if (c < 0x21 || c == '"' || c == 0x7F)
			return false;
	}
	return true;
}

IfMatch
etag_parse_if_match(text *if_match)
{
	if (!etag_if_match_valid(if_match))
		ts_raisef(TSE_INVALID_ETAG, "the If-Match value is neither * nor an ETag of the form W/\"...\"");
	return VARSIZE_ANY_EXHDR(if_match) == 1 ? IF_MATCH_ANY : IF_MATCH_ETAG;
}
