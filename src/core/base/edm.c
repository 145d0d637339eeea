/*
 * edm.c - codecs for EDM values and the character rules for keys and property names.
 * Backend-free: used by the entity parsers, the OData lexer and the fuzz targets.
 */
#include "edm.h"

#include <errno.h>
#include <math.h>

#include "common/shortest_dec.h"
#include "unicode_ident_table.h"

static const char *const type_names[EDM_TYPE_MAX + 1] = {
	NULL, "Edm.String", "Edm.Int32", "Edm.Int64", "Edm.Double",
	"Edm.Boolean", "Edm.DateTime", "Edm.Guid", "Edm.Binary"
};

const char *
edm_type_name(EdmType t)
{
	return (t >= EDM_STRING && t <= EDM_TYPE_MAX) ? type_names[t] : "unknown";
}

EdmType
edm_type_from_name(const char *s, size_t len)
{
	for (int t = EDM_STRING; t <= EDM_TYPE_MAX; t++)
	{
		if (strlen(type_names[t]) == len && memcmp(type_names[t], s, len) == 0)
			return (EdmType) t;
	}
	return EDM_NONE;
}

int
edm_fixed_size(EdmType t)
{
	switch (t)
	{
		case EDM_INT32:
			return 4;
		case EDM_INT64:
		case EDM_DOUBLE:
		case EDM_DATETIME:
			return 8;
		case EDM_BOOLEAN:
			return 1;
		case EDM_GUID:
			return 16;
		default:
			return -1;
	}
}

/* ---------- integers ---------- */

static EdmParse
parse_integer(const char *s, size_t len, uint64 pos_limit, int64 *out)
{
	size_t		i = 0;
	bool		neg = false;
	uint64		limit;
	uint64		acc = 0;
	bool		overflow = false;

	if (len > 0 && s[0] == '-')
	{
		neg = true;
		i = 1;
	}
	if (i >= len)
		return EDM_BAD_SYNTAX;
	limit = neg ? pos_limit + 1 : pos_limit;
	for (; i < len; i++)
	{
		unsigned	d = (unsigned char) s[i] - '0';

		if (d > 9)
			return EDM_BAD_SYNTAX;
		if (!overflow)
		{
			if (acc > (limit - d) / 10)
				overflow = true;
			else
				acc = acc * 10 + d;
		}
	}
	if (overflow)
		return EDM_BAD_RANGE;
	if (!neg)
		*out = (int64) acc;
	else if (acc == (uint64) PG_INT64_MAX + 1)
		*out = PG_INT64_MIN;
	else
		*out = -(int64) acc;
	return EDM_OK;
}

EdmParse
edm_parse_int32(const char *s, size_t len, int32 *out)
{
	int64		v;
	EdmParse	r = parse_integer(s, len, PG_INT32_MAX, &v);

	if (r == EDM_OK)
		*out = (int32) v;
	return r;
}

EdmParse
edm_parse_int64(const char *s, size_t len, int64 *out)
{
	return parse_integer(s, len, PG_INT64_MAX, out);
}

int
edm_format_int64(int64 v, char *buf)
{
	char		tmp[24];
	int			n = 0;
	int			out = 0;
	uint64		u = v < 0 ? (uint64) 0 - (uint64) v : (uint64) v;

	do
	{
		tmp[n++] = (char) ('0' + u % 10);
		u /= 10;
	} while (u > 0);
	if (v < 0)
		buf[out++] = '-';
	while (n > 0)
		buf[out++] = tmp[--n];
	buf[out] = '\0';
	return out;
}

/* ---------- doubles ---------- */

EdmNumberScan
edm_scan_number(const char *s, size_t len, size_t *end, bool *integer)
{
	size_t		i = 0;

	*integer = true;
	if (i < len && s[i] == '-')
		i++;
	if (i < len && s[i] == '0')
		i++;
	else if (i < len && s[i] >= '1' && s[i] <= '9')
		while (i < len && s[i] >= '0' && s[i] <= '9')
			i++;
	else
		return EDM_NUMBER_INVALID;
	if (i < len && s[i] == '.')
	{
		size_t		start = ++i;

		*integer = false;
		while (i < len && s[i] >= '0' && s[i] <= '9')
			i++;
		if (i == start)
			return EDM_NUMBER_NO_FRACTION;
	}
	if (i < len && (s[i] == 'e' || s[i] == 'E'))
	{
		size_t		start;

		*integer = false;
		i++;
		if (i < len && (s[i] == '+' || s[i] == '-'))
			i++;
		start = i;
		while (i < len && s[i] >= '0' && s[i] <= '9')
			i++;
		if (i == start)
			return EDM_NUMBER_NO_EXPONENT;
	}
	*end = i;
	return EDM_NUMBER_OK;
}

/* The whole slice is one number of the JSON grammar. */
static bool
json_number_syntax(const char *s, size_t len)
{
	size_t		end;
	bool		integer;

	return edm_scan_number(s, len, &end, &integer) == EDM_NUMBER_OK && end == len;
}

EdmParse
edm_parse_double(const char *s, size_t len, bool allow_special, double *out)
{
	char		local[64];
	char	   *buf = local;
	char	   *end;
	double		v;
	EdmParse	r = EDM_OK;

	if (allow_special)
	{
		if (len == 3 && memcmp(s, "NaN", 3) == 0)
		{
			*out = NAN;
			return EDM_OK;
		}
		if (len == 8 && memcmp(s, "Infinity", 8) == 0)
		{
			*out = INFINITY;
			return EDM_OK;
		}
		if (len == 9 && memcmp(s, "-Infinity", 9) == 0)
		{
			*out = -INFINITY;
			return EDM_OK;
		}
	}
	if (!json_number_syntax(s, len))
		return EDM_BAD_SYNTAX;
	if (len >= sizeof(local))
		buf = palloc(len + 1);
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	v = strtod(buf, &end);
	if (end != buf + len)
		r = EDM_BAD_SYNTAX;
	else if (errno == ERANGE && (v == 0.0 || isinf(v)))
		r = EDM_BAD_RANGE;	/* overflow, or underflow to zero: as float8in */
	else if (isinf(v))
		r = EDM_BAD_RANGE;
	if (buf != local)
		pfree(buf);
	if (r == EDM_OK)
		*out = v;
	return r;
}

/*
 * Format a double for the JSON form. NaN and the infinities are JSON strings; a whole number
 * (including -0) is written with a ".0" and must carry an Edm.Double annotation so that it is not
 * read back as an Int32. Returns the length written to buf (at least EDM_DOUBLE_TEXT_MAX bytes).
 */
int
edm_format_double(double d, char *buf, bool *is_string)
{
	int			n;

	*is_string = false;
	if (isnan(d))
	{
		*is_string = true;
		strcpy(buf, "NaN");
		return 3;
	}
	if (isinf(d))
	{
		*is_string = true;
		strcpy(buf, d > 0 ? "Infinity" : "-Infinity");
		return d > 0 ? 8 : 9;
	}
	n = double_to_shortest_decimal_buf(d, buf);
	if (d == floor(d))
	{
		/* a whole number gets ".0", so that a JSON reader keeps it a Double (as the service writes it) */
		if (memchr(buf, '.', n) == NULL && memchr(buf, 'e', n) == NULL)
		{
			buf[n++] = '.';
			buf[n++] = '0';
			buf[n] = '\0';
		}
	}
	return n;
}

/* ---------- DateTime ---------- */

/* Days from 0001-01-01 to the given proleptic Gregorian date (counting from a March-based year). */
int64
edm_days_from_civil(int64 y, int m, int d)
{
	int64		era,
				yoe,
				doy,
				doe;

	y -= (m <= 2);
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 306;
}

static void
civil_from_days(int64 days, int *y, int *m, int *d)
{
	int64		z = days + 306;
	int64		era = (z >= 0 ? z : z - 146096) / 146097;
	int64		doe = z - era * 146097;
	int64		yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64		doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64		mp = (5 * doy + 2) / 153;

	*d = (int) (doy - (153 * mp + 2) / 5 + 1);
	*m = (int) (mp < 10 ? mp + 3 : mp - 9);
	*y = (int) (yoe + era * 400 + (*m <= 2));
}

bool
edm_is_leap_year(int y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

int
edm_days_in_month(int y, int m)
{
	static const int dim[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

	Assert(m >= 1 && m <= 12);
	return (m == 2 && edm_is_leap_year(y)) ? 29 : dim[m - 1];
}

int64
edm_ticks_from_civil(int year, int month, int day, int hour, int min, int sec, int64 frac_ticks)
{
	return edm_days_from_civil(year, month, day) * EDM_TICKS_PER_DAY +
		((int64) hour * 3600 + min * 60 + sec) * EDM_TICKS_PER_SECOND + frac_ticks;
}

/*
 * YYYY-MM-DDTHH:MM:SS[.f{1,7}](Z|+HH:MM|-HH:MM), normalised to UTC ticks; with offset_optional,
 * no offset at all is UTC as well (edm.h).
 */
static EdmParse
parse_datetime(const char *s, size_t len, bool offset_optional, int64 *ticks)
{
	int			year,
				mon,
				day,
				hour,
				min,
				sec;
	int64		frac = 0;
	size_t		i = 19;
	int64		t;

	if (len < 19 ||
		!edm_parse_digits(s, 4, &year) || s[4] != '-' || !edm_parse_digits(s + 5, 2, &mon) || s[7] != '-' ||
		!edm_parse_digits(s + 8, 2, &day) || s[10] != 'T' || !edm_parse_digits(s + 11, 2, &hour) || s[13] != ':' ||
		!edm_parse_digits(s + 14, 2, &min) || s[16] != ':' || !edm_parse_digits(s + 17, 2, &sec))
		return EDM_BAD_SYNTAX;
	if (i < len && s[i] == '.')
	{
		int			nd = 0;

		i++;
		while (i < len && s[i] >= '0' && s[i] <= '9')
		{
			if (++nd > 7)
				return EDM_BAD_SYNTAX;
			frac = frac * 10 + (s[i] - '0');
			i++;
		}
		if (nd == 0)
			return EDM_BAD_SYNTAX;
		for (; nd < 7; nd++)
			frac *= 10;
	}
	if (mon < 1 || mon > 12 || day < 1 || day > edm_days_in_month(year, mon) ||
		hour > 23 || min > 59 || sec > 59)
		return EDM_BAD_SYNTAX;
	t = edm_ticks_from_civil(year, mon, day, hour, min, sec, frac);
	if (i == len && offset_optional)
		;						/* no offset: UTC, as the service reads it */
	else if (i < len && s[i] == 'Z')
		i++;
	else if (i + 6 == len && (s[i] == '+' || s[i] == '-') && s[i + 3] == ':')
	{
		int			oh,
					om;

		if (!edm_parse_digits(s + i + 1, 2, &oh) || !edm_parse_digits(s + i + 4, 2, &om) || oh > 23 || om > 59)
			return EDM_BAD_SYNTAX;
		/* local = UTC + offset, so UTC = local - offset */
		t += (s[i] == '+' ? -1 : 1) * ((int64) oh * 3600 + om * 60) * EDM_TICKS_PER_SECOND;
		i += 6;
	}
	else
		return EDM_BAD_SYNTAX;
	if (i != len)
		return EDM_BAD_SYNTAX;
	if (t < EDM_TICKS_MIN || t > EDM_TICKS_MAX)
		return EDM_BAD_RANGE;
	*ticks = t;
	return EDM_OK;
}

EdmParse
edm_parse_datetime(const char *s, size_t len, int64 *ticks)
{
	return parse_datetime(s, len, false, ticks);
}

EdmParse
edm_parse_datetime_value(const char *s, size_t len, int64 *ticks)
{
	return parse_datetime(s, len, true, ticks);
}

static char *
put_digits(char *p, int64 v, int n)
{
	for (int i = n - 1; i >= 0; i--)
	{
		p[i] = (char) ('0' + v % 10);
		v /= 10;
	}
	return p + n;
}

void
edm_format_datetime(int64 ticks, char *buf)
{
	int64		days = ticks / EDM_TICKS_PER_DAY;
	int64		rem = ticks % EDM_TICKS_PER_DAY;
	int64		secs = rem / EDM_TICKS_PER_SECOND;
	int			y,
				m,
				d;
	char	   *p = buf;

	civil_from_days(days, &y, &m, &d);
	p = put_digits(p, y, 4);
	*p++ = '-';
	p = put_digits(p, m, 2);
	*p++ = '-';
	p = put_digits(p, d, 2);
	*p++ = 'T';
	p = put_digits(p, secs / 3600, 2);
	*p++ = ':';
	p = put_digits(p, (secs / 60) % 60, 2);
	*p++ = ':';
	p = put_digits(p, secs % 60, 2);
	*p++ = '.';
	p = put_digits(p, rem % EDM_TICKS_PER_SECOND, 7);
	*p++ = 'Z';
	*p = '\0';
}

int
edm_format_datetime_trimmed(int64 ticks, char *buf)
{
	int			n = EDM_DATETIME_TEXT_LEN - 1;	/* at the Z */

	edm_format_datetime(ticks, buf);
	while (buf[n - 1] == '0')
		n--;
	if (buf[n - 1] == '.')
		n--;
	buf[n] = 'Z';
	buf[n + 1] = '\0';
	return n + 1;
}

/* ---------- Guid ---------- */

/* The value of one hexadecimal digit, or -1 (Guid and binary literals). */
int
edm_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

EdmParse
edm_parse_guid(const char *s, size_t len, uint8 *out)
{
	int			b = 0;

	if (len != EDM_GUID_TEXT_LEN)
		return EDM_BAD_SYNTAX;
	for (size_t i = 0; i < len;)
	{
		int			hi,
					lo;

		if (i == 8 || i == 13 || i == 18 || i == 23)
		{
			if (s[i] != '-')
				return EDM_BAD_SYNTAX;
			i++;
			continue;
		}
		hi = edm_hexval(s[i]);
		lo = edm_hexval(s[i + 1]);
		if (hi < 0 || lo < 0)
			return EDM_BAD_SYNTAX;
		out[b++] = (uint8) (hi << 4 | lo);
		i += 2;
	}
	return EDM_OK;
}

void
edm_format_guid(const uint8 *g, char *buf)
{
	static const char hex[] = "0123456789abcdef";
	char	   *p = buf;

	for (int i = 0; i < 16; i++)
	{
		if (i == 4 || i == 6 || i == 8 || i == 10)
			*p++ = '-';
		*p++ = hex[g[i] >> 4];
		*p++ = hex[g[i] & 15];
	}
	*p = '\0';
}

/* ---------- base64 (RFC 4648 standard alphabet, padded, canonical) ---------- */

static const char b64chars[] =
"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int
b64val(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

size_t
edm_base64_encoded_len(size_t nbytes)
{
	return (nbytes + 2) / 3 * 4;
}

void
edm_base64_encode(const uint8 *in, size_t n, char *out)
{
	size_t		i = 0;

	for (; i + 3 <= n; i += 3)
	{
		uint32		v = (uint32) in[i] << 16 | (uint32) in[i + 1] << 8 | in[i + 2];

		*out++ = b64chars[v >> 18];
		*out++ = b64chars[(v >> 12) & 63];
		*out++ = b64chars[(v >> 6) & 63];
		*out++ = b64chars[v & 63];
	}
	if (n - i == 1)
	{
		uint32		v = (uint32) in[i] << 16;

		*out++ = b64chars[v >> 18];
		*out++ = b64chars[(v >> 12) & 63];
		*out++ = '=';
		*out++ = '=';
	}
	else if (n - i == 2)
	{
		uint32		v = (uint32) in[i] << 16 | (uint32) in[i + 1] << 8;

		*out++ = b64chars[v >> 18];
		*out++ = b64chars[(v >> 12) & 63];
		*out++ = b64chars[(v >> 6) & 63];
		*out++ = '=';
	}
}

/* out needs len / 4 * 3 bytes. Rejects bad characters, bad padding and non-zero pad bits. */
EdmParse
edm_base64_decode(const char *s, size_t len, uint8 *out, size_t *outlen)
{
	size_t		o = 0;

	if (len % 4 != 0)
		return EDM_BAD_SYNTAX;
	for (size_t i = 0; i < len; i += 4)
	{
		int			a = b64val(s[i]),
					b = b64val(s[i + 1]),
					c = b64val(s[i + 2]),
					d = b64val(s[i + 3]);
		bool		last = (i + 4 == len);

		if (a < 0 || b < 0)
			return EDM_BAD_SYNTAX;
		if (last && s[i + 2] == '=' && s[i + 3] == '=')
		{
			if (b & 15)
				return EDM_BAD_SYNTAX;
			out[o++] = (uint8) (a << 2 | b >> 4);
			break;
		}
		if (last && c >= 0 && s[i + 3] == '=')
		{
			if (c & 3)
				return EDM_BAD_SYNTAX;
			out[o++] = (uint8) (a << 2 | b >> 4);
			out[o++] = (uint8) ((b & 15) << 4 | c >> 2);
			break;
		}
		if (c < 0 || d < 0)
			return EDM_BAD_SYNTAX;
		out[o++] = (uint8) (a << 2 | b >> 4);
		out[o++] = (uint8) ((b & 15) << 4 | c >> 2);
		out[o++] = (uint8) ((c & 3) << 6 | d);
	}
	*outlen = o;
	return EDM_OK;
}

/* ---------- UTF-8, UTF-16 lengths, keys and names ---------- */

int
edm_utf8_encode(uint32 cp, char *out)
{
	if (cp < 0x80)
	{
		out[0] = (char) cp;
		return 1;
	}
	if (cp < 0x800)
	{
		out[0] = (char) (0xC0 | (cp >> 6));
		out[1] = (char) (0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000)
	{
		out[0] = (char) (0xE0 | (cp >> 12));
		out[1] = (char) (0x80 | ((cp >> 6) & 0x3F));
		out[2] = (char) (0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char) (0xF0 | (cp >> 18));
	out[1] = (char) (0x80 | ((cp >> 12) & 0x3F));
	out[2] = (char) (0x80 | ((cp >> 6) & 0x3F));
	out[3] = (char) (0x80 | (cp & 0x3F));
	return 4;
}

uint32
edm_utf16_len(const char *s, size_t len)
{
	uint32		n = 0;
	size_t		i = 0;

	/* ASCII, eight bytes at a time: a unit each */
	while (i + 8 <= len && !edm_word8_has_high(edm_word8(s + i)))
		i += 8;
	n = (uint32) i;
	for (; i < len; i++)
	{
		unsigned char c = (unsigned char) s[i];

		n += (c & 0xC0) != 0x80;	/* one unit per code point ... */
		n += c >= 0xF0;			/* ... two above U+FFFF */
	}
	return n;
}

/* Strict UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing above U+10FFFF. */
bool
edm_utf8_valid(const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *) str;
	size_t		i = 0;

	while (i < len)
	{
		unsigned char c = s[i];

		if (c < 0x80)
		{
			i++;
			continue;
		}
		if (c >= 0xC2 && c <= 0xDF)
		{
			if (i + 1 >= len || (s[i + 1] & 0xC0) != 0x80)
				return false;
			i += 2;
		}
		else if (c >= 0xE0 && c <= 0xEF)
		{
			unsigned char lo = c == 0xE0 ? 0xA0 : 0x80;
			unsigned char hi = c == 0xED ? 0x9F : 0xBF;

			if (i + 2 >= len || s[i + 1] < lo || s[i + 1] > hi || (s[i + 2] & 0xC0) != 0x80)
				return false;
			i += 3;
		}
		else if (c >= 0xF0 && c <= 0xF4)
		{
			unsigned char lo = c == 0xF0 ? 0x90 : 0x80;
			unsigned char hi = c == 0xF4 ? 0x8F : 0xBF;

			if (i + 3 >= len || s[i + 1] < lo || s[i + 1] > hi ||
				(s[i + 2] & 0xC0) != 0x80 || (s[i + 3] & 0xC0) != 0x80)
				return false;
			i += 4;
		}
		else
			return false;
	}
	return true;
}

/* Decode one code point of valid UTF-8 at s[*i], advancing *i. */
static uint32
utf8_next(const unsigned char *s, size_t *i)
{
	unsigned char c = s[*i];

	if (c < 0x80)
	{
		(*i)++;
		return c;
	}
	if (c < 0xE0)
	{
		*i += 2;
		return ((uint32) (c & 0x1F) << 6) | (s[*i - 1] & 0x3F);
	}
	if (c < 0xF0)
	{
		*i += 3;
		return ((uint32) (c & 0x0F) << 12) | ((uint32) (s[*i - 2] & 0x3F) << 6) | (s[*i - 1] & 0x3F);
	}
	*i += 4;
	return ((uint32) (c & 0x07) << 18) | ((uint32) (s[*i - 3] & 0x3F) << 12) |
		((uint32) (s[*i - 2] & 0x3F) << 6) | (s[*i - 1] & 0x3F);
}

static bool
in_ranges(uint32 cp, const IdentRange *r, int n)
{
	int			lo = 0,
				hi = n - 1;

	while (lo <= hi)
	{
		int			mid = (lo + hi) / 2;

		if (cp < r[mid].lo)
			hi = mid - 1;
		else if (cp > r[mid].hi)
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

/* ---------- keys in URLs ---------- */

static void
put_url_key(TsPut put, void *sink, const char *k, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t		run = 0;		/* the start of the bytes that stand for themselves */

	for (size_t i = 0; i < n; i++)
	{
		unsigned char c = (unsigned char) k[i];

		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
			c == '-' || c == '.' || c == '_' || c == '~')
			continue;
		if (i > run)
			put(sink, k + run, i - run);
		if (c == '\'')
			put(sink, "''", 2);	/* a quote inside a key is doubled */
		else
		{
			char		e[3] = {'%', hex[c >> 4], hex[c & 15]};

			put(sink, e, 3);
		}
		run = i + 1;
	}
	if (n > run)
		put(sink, k + run, n - run);
}

void
edm_put_key_path(TsPut put, void *sink, const char *pk, size_t pk_len, const char *rk, size_t rk_len)
{
	put(sink, "(PartitionKey='", 15);
	put_url_key(put, sink, pk, pk_len);
	put(sink, "',RowKey='", 10);
	put_url_key(put, sink, rk, rk_len);
	put(sink, "')", 2);
}

bool
edm_is_reserved_name(const char *s, size_t len)
{
	return edm_system_prop(s, len) != EDM_SYS_NONE;
}

/* C# identifier rules (invalid UTF-8 is an invalid name); at most 255 UTF-16 code units. */
EdmCheck
edm_check_name(const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *) str;
	size_t		i = 0;
	bool		first = true;

	if (len == 0 || !edm_utf8_valid(str, len))
		return EDM_CHECK_INVALID;
	if (edm_utf16_len(str, len) > TS_MAX_NAME_UTF16)
		return EDM_CHECK_TOO_LONG;
	while (i < len)
	{
		uint32		cp = utf8_next(s, &i);
		bool		ok;

		if (cp < 0x80)
			ok = (cp >= 'A' && cp <= 'Z') || (cp >= 'a' && cp <= 'z') || cp == '_' ||
				(!first && cp >= '0' && cp <= '9');
		else if (first)
			ok = in_ranges(cp, ident_start_ranges, lengthof(ident_start_ranges));
		else
			ok = in_ranges(cp, ident_part_ranges, lengthof(ident_part_ranges));
		if (!ok)
			return EDM_CHECK_INVALID;
		first = false;
	}
	if (edm_is_reserved_name(str, len))
		return EDM_CHECK_RESERVED;
	return EDM_CHECK_OK;
}

/* Keys: no / \ # ?, no U+0000-U+001F, no U+007F-U+009F; at most 512 UTF-16 code units. */
EdmCheck
edm_check_key(const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *) str;

	for (size_t i = 0; i < len; i++)
	{
		unsigned char c = s[i];

		if (c < 0x20 || c == 0x7F || c == '/' || c == '\\' || c == '#' || c == '?')
			return EDM_CHECK_INVALID;
		if (c == 0xC2 && i + 1 < len && s[i + 1] >= 0x80 && s[i + 1] <= 0x9F)
			return EDM_CHECK_INVALID;
	}
	if (edm_utf16_len(str, len) > TS_MAX_KEY_UTF16)
		return EDM_CHECK_TOO_LONG;
	return EDM_CHECK_OK;
}
