/*
 * ts_error.c - recording errors without throwing, and bounded excerpts of user input.
 * Backend-free: also linked into the fuzz targets.
 */
#include "ts_error.h"

#include <stdarg.h>

typedef struct TsErrorInfo
{
	const char *sqlstate;
	const char *service_code;
	const char *description;
} TsErrorInfo;

static const TsErrorInfo error_info[TSE__COUNT] = {
	[TSE_NONE] = {"00000", "", ""},
#define TS_ERROR_INFO(e, s, c, d) [e] = {s, c, d},
	TS_ERROR_TABLE(TS_ERROR_INFO)
#undef TS_ERROR_INFO
};

const char *
ts_error_sqlstate(TsErrorCode code)
{
	return error_info[code].sqlstate;
}

const char *
ts_error_service_code(TsErrorCode code)
{
	return error_info[code].service_code;
}

TsErrorCode
ts_error_of_sqlstate(const char *sqlstate)
{
	if (sqlstate == NULL)
		return TSE_NONE;
	for (int c = TSE_NONE + 1; c < TSE__COUNT; c++)
		if (strcmp(error_info[c].sqlstate, sqlstate) == 0)
			return (TsErrorCode) c;
	return TSE_NONE;
}

const char *
ts_error_description(TsErrorCode code)
{
	return error_info[code].description;
}

void
ts_vformat(char *buf, size_t size, const char *fmt, va_list ap)
{
	int			n = vsnprintf(buf, size, fmt, ap);

	if (n >= 0 && (size_t) n < size)
		return;
	/* cut: end on a character boundary, never inside a UTF-8 sequence, and say so */
	{
		size_t		end = size - 4;

		while (end > 0 && ((unsigned char) buf[end] & 0xC0) == 0x80)
			end--;
		memcpy(buf + end, "...", 4);
	}
}

bool
ts_fail(TsError *err, TsErrorCode code, const char *fmt,...)
{
	va_list		ap;

	if (err->code != TSE_NONE)
		return false;
	err->code = code;
	err->detail[0] = '\0';
	va_start(ap, fmt);
	ts_vformat(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return false;
}

void
ts_fail_detail(TsError *err, const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	ts_vformat(err->detail, sizeof(err->detail), fmt, ap);
	va_end(ap);
}

const char *
ts_excerpt(char *buf, size_t bufsize, const char *s, size_t len)
{
	size_t		out = 0;
	size_t		i = 0;
	int			chars = 0;

	Assert(bufsize >= 64);
	while (i < len && chars < 40 && out + 8 < bufsize)
	{
		unsigned char c = (unsigned char) s[i];
		size_t		n = 1;

		if (c >= 0xF0)
			n = 4;
		else if (c >= 0xE0)
			n = 3;
		else if (c >= 0xC0)
			n = 2;
		if (i + n > len || c < 0x20 || c == 0x7F || (c >= 0x80 && c < 0xC0))
		{
			buf[out++] = '?';
			i++;
		}
		else if (c == 0xC2 && (unsigned char) s[i + 1] < 0xA0)
		{
			buf[out++] = '?';	/* a C1 control: one character, one '?' */
			i += 2;
		}
		else
		{
			memcpy(buf + out, s + i, n);
			out += n;
			i += n;
		}
		chars++;
	}
	if (i < len)
	{
		memcpy(buf + out, "...", 3);
		out += 3;
	}
	buf[out] = '\0';
	return buf;
}

int
ts_char_pos(const char *s, size_t off)
{
	int			n = 1;

	for (size_t k = 0; k < off; k++)
		n += ((unsigned char) s[k] & 0xC0) != 0x80;
	return n;
}
