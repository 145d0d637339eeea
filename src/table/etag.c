/*
 * etag.c - making ETags, the Timestamp and ETag a stored row shows, and If-Match values (etag.h),
 * with their SQL functions tablestore.timestamp_ticks and tablestore.etag_matches.
 */
#include "etag.h"

#include "edm.h"
#include "fmgr.h"
#include "table_layout.h"
#include "ts_report.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

text *
etag_make(int64 ticks)
{
	char		buf[ETAG_TEXT_MAX];
	int			n = etag_text_format(ticks, buf);

	return cstring_to_text_with_len(buf, n);
}

void
etag_row_stamp(TimestampTz ts, text *etag, RowStamp *out)
{
	const char *s = etag ? VARDATA_ANY(etag) : "";
	int			len = etag ? VARSIZE_ANY_EXHDR(etag) : 0;
	int64		ticks;

	if (etag_text_parse(s, len, &ticks) != ETAG_TEXT_OTHER && edm_pg_usec_from_ticks(ticks) == ts)
	{
		out->ticks = ticks;
		out->etag_len = etag_text_format(ticks, out->buf);
		out->etag = out->buf;
		return;
	}
	out->ticks = edm_ticks_from_pg_usec(ts);
	out->etag = s;
	out->etag_len = len;
}

text *
etag_row_stamp_text(const RowStamp *rs)
{
	return cstring_to_text_with_len(rs->etag, rs->etag_len);
}

void
etag_show_row(Datum *values, const bool *nulls)
{
	RowStamp	rs;

	if (nulls[TS_COL_TS] || nulls[TS_COL_ETAG])
		return;
	etag_row_stamp(DatumGetTimestampTz(values[TS_COL_TS]), DatumGetTextPP(values[TS_COL_ETAG]), &rs);
	values[TS_COL_ETAG] = PointerGetDatum(etag_row_stamp_text(&rs));
}

bool
etag_if_match_valid(text *if_match)
{
	const char *s = VARDATA_ANY(if_match);
	int			len = VARSIZE_ANY_EXHDR(if_match);

	if (len == 1 && s[0] == '*')
		return true;
	if (len < 5 || len > ETAG_MAX_LEN || !etag_text_weak(s, len) || s[len - 1] != '"')
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

bool
etag_matches(text *stored, text *if_match)
{
	const char *s = VARDATA_ANY(stored);
	int			len = VARSIZE_ANY_EXHDR(stored);
	int			ilen = VARSIZE_ANY_EXHDR(if_match);
	int64		ticks;
	char		buf[ETAG_TEXT_MAX];

	if (etag_text_same(s, len, VARDATA_ANY(if_match), ilen))
		return true;
	if (etag_text_parse(s, len, &ticks) != ETAG_TEXT_LEGACY)
		return false;
	len = etag_text_format(ticks, buf);
	return etag_text_same(buf, len, VARDATA_ANY(if_match), ilen);
}

/* tablestore.timestamp_ticks("timestamp" timestamptz, etag text) -> int8: a row's exact Timestamp */
PG_FUNCTION_INFO_V1(tablestore_timestamp_ticks);
Datum
tablestore_timestamp_ticks(PG_FUNCTION_ARGS)
{
	RowStamp	rs;

	etag_row_stamp(PG_GETARG_TIMESTAMPTZ(0), PG_GETARG_TEXT_PP(1), &rs);
	PG_RETURN_INT64(rs.ticks);
}

/* tablestore.etag_matches(etag text, if_match text) -> bool: etag_matches */
PG_FUNCTION_INFO_V1(tablestore_etag_matches);
Datum
tablestore_etag_matches(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(etag_matches(PG_GETARG_TEXT_PP(0), PG_GETARG_TEXT_PP(1)));
}
