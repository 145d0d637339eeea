/*
 * edm.h - the EDM property types and codecs for their values: DateTime as 100-ns ticks, Guid,
 * base64 Binary, Int32/Int64/Double text forms, and the character rules for keys and names.
 * Backend-free.
 */
#ifndef EDM_H
#define EDM_H

#include "ts_core.h"

typedef enum EdmType
{
	EDM_NONE = 0,
	EDM_STRING = 1,
	EDM_INT32 = 2,
	EDM_INT64 = 3,
	EDM_DOUBLE = 4,
	EDM_BOOLEAN = 5,
	EDM_DATETIME = 6,
	EDM_GUID = 7,
	EDM_BINARY = 8
} EdmType;

#define EDM_TYPE_MAX EDM_BINARY

/* The limits of contract §2. */
#define TS_MAX_PROPERTIES		252
#define TS_MAX_ENTITY_SIZE		(1024 * 1024)
#define TS_MAX_STRING_UTF16		32768
#define TS_MAX_BINARY_BYTES		65536
#define TS_MAX_KEY_UTF16		512
#define TS_MAX_NAME_UTF16		255

/* .NET ticks: 100 ns since 0001-01-01T00:00:00Z. */
#define EDM_TICKS_PER_SECOND	INT64CONST(10000000)
#define EDM_TICKS_PER_DAY		(INT64CONST(86400) * EDM_TICKS_PER_SECOND)
#define EDM_TICKS_MIN			INT64CONST(504911232000000000)	/* 1601-01-01T00:00:00Z */
#define EDM_TICKS_MAX			INT64CONST(3155378975999999999)	/* 9999-12-31T23:59:59.9999999Z */
#define EDM_TICKS_PG_EPOCH		INT64CONST(630822816000000000)	/* 2000-01-01T00:00:00Z */
#define EDM_TICKS_UNIX_EPOCH	INT64CONST(621355968000000000)	/* 1970-01-01T00:00:00Z */

#define EDM_DATETIME_TEXT_LEN	28	/* YYYY-MM-DDTHH:MM:SS.fffffffZ */
#define EDM_GUID_TEXT_LEN		36
#define EDM_DOUBLE_TEXT_MAX		40

typedef enum EdmParse
{
	EDM_OK = 0,
	EDM_BAD_SYNTAX,
	EDM_BAD_RANGE
} EdmParse;

typedef enum EdmCheck
{
	EDM_CHECK_OK = 0,
	EDM_CHECK_INVALID,			/* breaks the character rules */
	EDM_CHECK_TOO_LONG,
	EDM_CHECK_RESERVED			/* PartitionKey, RowKey or Timestamp used as a property name */
} EdmCheck;

extern const char *edm_type_name(EdmType t);
extern EdmType edm_type_from_name(const char *s, size_t len);
extern int	edm_fixed_size(EdmType t);	/* bytes, or -1 for String and Binary */

extern EdmParse edm_parse_int32(const char *s, size_t len, int32 *out);
extern EdmParse edm_parse_int64(const char *s, size_t len, int64 *out);
/*
 * The longest prefix of s that is a number of the JSON grammar
 * (-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?): *end is its length, *integer whether it has
 * neither fraction nor exponent. The JSON tokenizer and Double values share this one grammar.
 */
typedef enum EdmNumberScan
{
	EDM_NUMBER_OK = 0,
	EDM_NUMBER_INVALID,
	EDM_NUMBER_NO_FRACTION,		/* no digits after the decimal point */
	EDM_NUMBER_NO_EXPONENT		/* no digits in the exponent */
} EdmNumberScan;

extern EdmNumberScan edm_scan_number(const char *s, size_t len, size_t *end, bool *integer);

extern EdmParse edm_parse_double(const char *s, size_t len, bool allow_special, double *out);
extern int	edm_format_int64(int64 v, char *buf);
/* Shortest round-trip text, whole numbers with ".0"; NaN and the infinities as the strings of the
 * JSON form (*is_string). */
extern int	edm_format_double(double d, char *buf, bool *is_string);

/*
 * A DateTime's text, normalised to UTC ticks: YYYY-MM-DDTHH:MM:SS, up to 7 fractional digits, then
 * Z or an offset +HH:MM / -HH:MM (edm_parse_datetime: the form the service writes, which ETags
 * carry). A value (a property's, a $filter literal's) may also come without an offset, and is then
 * UTC, as the service takes it (edm_parse_datetime_value): "2023-01-01T23:00:00" is
 * 2023-01-01T23:00:00Z. Nothing else: no lower-case z or t, no date alone, no offset without its
 * colon, no more than 7 fractional digits.
 */
extern EdmParse edm_parse_datetime(const char *s, size_t len, int64 *ticks);
extern EdmParse edm_parse_datetime_value(const char *s, size_t len, int64 *ticks);
extern void edm_format_datetime(int64 ticks, char *buf);	/* 28 chars + NUL */
/* The service's text: trailing fractional zeros dropped (…44Z, …44.123Z); returns the length. */
extern int	edm_format_datetime_trimmed(int64 ticks, char *buf);
extern int64 edm_ticks_from_civil(int year, int month, int day, int hour, int min, int sec, int64 frac_ticks);

/* Exactly n decimal digits at s (no sign, no space) into *out: the fields of every date form. */
static inline bool
edm_parse_digits(const char *s, int n, int *out)
{
	int			v = 0;

	for (int i = 0; i < n; i++)
	{
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return true;
}

/*
 * The calendar (proleptic Gregorian), the one owner of its rules for both programs: days since
 * 0001-01-01 of a date, leap years, the days of a month (m from 1 to 12).
 */
extern int64 edm_days_from_civil(int64 y, int m, int d);
extern bool edm_is_leap_year(int y);
extern int	edm_days_in_month(int y, int m);

/* Seconds since 1970-01-01T00:00:00Z of a civil date and time in UTC (no range check). */
static inline int64
edm_unix_from_civil(int year, int month, int day, int hour, int min, int sec)
{
	return (edm_ticks_from_civil(year, month, day, hour, min, sec, 0) - EDM_TICKS_UNIX_EPOCH) / EDM_TICKS_PER_SECOND;
}

/*
 * The one pair of conversions between PostgreSQL's timestamptz (microseconds since
 * 2000-01-01T00:00:00Z) and ticks. To ticks exactly, saturated to the DateTime range (a
 * timestamptz may lie far beyond it, 'infinity' included); back rounded down (towards the past),
 * so that order is kept: a Timestamp of u microseconds and r ticks (0 <= r < 10) is u.
 */
static inline int64
edm_ticks_from_pg_usec(int64 usec)
{
	if (usec > (EDM_TICKS_MAX - EDM_TICKS_PG_EPOCH) / 10)
		return EDM_TICKS_MAX;
	if (usec < (EDM_TICKS_MIN - EDM_TICKS_PG_EPOCH) / 10)
		return EDM_TICKS_MIN;
	return usec * 10 + EDM_TICKS_PG_EPOCH;
}

static inline int64
edm_pg_usec_from_ticks(int64 ticks)
{
	int64		rel = ticks - EDM_TICKS_PG_EPOCH;

	return rel >= 0 ? rel / 10 : -((-rel + 9) / 10);
}

/*
 * A clock reading since 1970-01-01T00:00:00Z (a struct timespec's fields) as ticks: its 100 ns,
 * rounded down, saturated to the DateTime range.
 */
static inline int64
edm_ticks_from_unix(int64 sec, int64 nsec)
{
	if (sec > (EDM_TICKS_MAX - EDM_TICKS_UNIX_EPOCH) / EDM_TICKS_PER_SECOND - 1)
		return EDM_TICKS_MAX;
	if (sec < (EDM_TICKS_MIN - EDM_TICKS_UNIX_EPOCH) / EDM_TICKS_PER_SECOND + 1)
		return EDM_TICKS_MIN;
	return EDM_TICKS_UNIX_EPOCH + sec * EDM_TICKS_PER_SECOND + nsec / 100;
}

extern int	edm_hexval(char c);	/* value of a hex digit, or -1 */
extern EdmParse edm_parse_guid(const char *s, size_t len, uint8 *out);
extern void edm_format_guid(const uint8 *g, char *buf);	/* 36 chars + NUL */

extern size_t edm_base64_encoded_len(size_t nbytes);
extern void edm_base64_encode(const uint8 *in, size_t n, char *out);
extern EdmParse edm_base64_decode(const char *s, size_t len, uint8 *out, size_t *outlen);

/*
 * Eight bytes at a time (SWAR): the word at p, and whether any of its bytes is >= 0x80, is < 0x20,
 * or equals b. Each test is exact for the word as a whole (the borrow of a subtraction only spills
 * above a byte that already matches), which is all the fast paths below ask.
 */
#define EDM_ONES8	UINT64CONST(0x0101010101010101)
#define EDM_HIGHS8	UINT64CONST(0x8080808080808080)

static inline uint64
edm_word8(const char *p)
{
	uint64		w;

	memcpy(&w, p, sizeof(w));
	return w;
}

static inline bool
edm_word8_has_high(uint64 w)
{
	return (w & EDM_HIGHS8) != 0;
}

static inline bool
edm_word8_has_control(uint64 w)
{
	return ((w - 0x20 * EDM_ONES8) & ~w & EDM_HIGHS8) != 0;
}

static inline bool
edm_word8_has_byte(uint64 w, unsigned char b)
{
	uint64		x = w ^ (b * EDM_ONES8);

	return ((x - EDM_ONES8) & ~x & EDM_HIGHS8) != 0;
}

/*
 * The system properties by name: the one test of a name against PartitionKey, RowKey and
 * Timestamp (exact, case-sensitive), for every reader of names in both programs.
 */
typedef enum EdmSystemProp
{
	EDM_SYS_NONE = 0,
	EDM_SYS_PARTITION_KEY,
	EDM_SYS_ROW_KEY,
	EDM_SYS_TIMESTAMP
} EdmSystemProp;

static inline EdmSystemProp
edm_system_prop(const char *s, size_t len)
{
	switch (len)
	{
		case 12:
			return memcmp(s, "PartitionKey", 12) == 0 ? EDM_SYS_PARTITION_KEY : EDM_SYS_NONE;
		case 6:
			return memcmp(s, "RowKey", 6) == 0 ? EDM_SYS_ROW_KEY : EDM_SYS_NONE;
		case 9:
			return memcmp(s, "Timestamp", 9) == 0 ? EDM_SYS_TIMESTAMP : EDM_SYS_NONE;
		default:
			return EDM_SYS_NONE;
	}
}

/* PartitionKey or RowKey */
static inline bool
edm_is_key_name(const char *s, size_t len)
{
	EdmSystemProp p = edm_system_prop(s, len);

	return p == EDM_SYS_PARTITION_KEY || p == EDM_SYS_ROW_KEY;
}

/*
 * An entity's keys as they stand in its URL: (PartitionKey='…',RowKey='…'), each key with its
 * quotes doubled (an OData string literal), then percent-encoded: every byte but RFC 3986's
 * unreserved characters and the quote as %XX (upper-case hex). The one writer of entity URLs:
 * odata.id and odata.editLink (row_json.c), the gateway's Location header (gateway/resources/common.c).
 */
extern void edm_put_key_path(TsPut put, void *sink, const char *pk, size_t pk_len, const char *rk, size_t rk_len);

extern uint32 edm_utf16_len(const char *s, size_t len);
extern bool edm_utf8_valid(const char *s, size_t len);
/* The UTF-8 bytes of a code point (at most U+10FFFF) into out[4]; returns how many. */
extern int	edm_utf8_encode(uint32 cp, char *out);
extern EdmCheck edm_check_name(const char *s, size_t len);
extern EdmCheck edm_check_key(const char *s, size_t len);
extern bool edm_is_reserved_name(const char *s, size_t len);

#endif							/* EDM_H */
