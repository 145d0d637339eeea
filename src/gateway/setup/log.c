/*
 * log.c - one line per request on stderr: time, request id, method, path (query secrets such as
 * sig= redacted, however the name is percent-encoded; control characters escaped; bounded
 * length), status, milliseconds, error code.
 * Each line is written with one write(2), so lines from worker threads never interleave.
 */
#include "gateway.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define LOG_PATH_MAX 300

static void
write_line(Buf *b)
{
	buf_puts(b, "\n");
	if (!b->failed)
	{
		ssize_t		w = write(STDERR_FILENO, b->data, b->len);

		(void) w;
	}
}

/* Is the raw (still percent-encoded) query parameter name sig? "s%69g" decodes to it too. */
static bool
is_secret_param(const char *name, size_t n)
{
	char		dec[8];
	size_t		k = 0;

	for (size_t i = 0; i < n; i++)
	{
		int			c = (unsigned char) name[i];

		if (c == '%' && i + 2 < n && edm_hexval(name[i + 1]) >= 0 && edm_hexval(name[i + 2]) >= 0)
		{
			c = edm_hexval(name[i + 1]) << 4 | edm_hexval(name[i + 2]);
			i += 2;
		}
		else if (c == '+')
			c = ' ';
		if (k == sizeof(dec))
			return false;
		dec[k++] = (char) c;
	}
	return k == 3 && ascii_nieq(dec, "sig", 3);
}

/* The target with secret query values replaced by REDACTED; bytes outside printable ASCII as %XX. */
static void
append_safe_target(Buf *b, const char *uri)
{
	size_t		out = 0;
	const char *q = strchr(uri, '?');
	size_t		plen = q ? (size_t) (q - uri) : strlen(uri);

	for (size_t i = 0; i < plen && out < LOG_PATH_MAX; i++, out++)
	{
		unsigned char c = (unsigned char) uri[i];

		if (c <= 0x20 || c >= 0x7f)
			buf_printf(b, "%%%02X", c);
		else
			buf_append(b, &uri[i], 1);
	}
	if (q && out < LOG_PATH_MAX)
	{
		const char *p = q + 1;

		buf_puts(b, "?");
		while (*p && out < LOG_PATH_MAX)
		{
			const char *amp = strchr(p, '&');
			size_t		len = amp ? (size_t) (amp - p) : strlen(p);
			const char *eq = memchr(p, '=', len);
			size_t		nlen = eq ? (size_t) (eq - p) : len;

			for (size_t i = 0; i < (is_secret_param(p, nlen) ? nlen : len) && out < LOG_PATH_MAX; i++, out++)
			{
				unsigned char c = (unsigned char) p[i];

				if (c <= 0x20 || c >= 0x7f)
					buf_printf(b, "%%%02X", c);
				else
					buf_append(b, &p[i], 1);
			}
			if (is_secret_param(p, nlen) && eq)
				buf_puts(b, "=REDACTED");
			if (!amp)
				break;
			buf_puts(b, "&");
			p = amp + 1;
		}
	}
	if (out >= LOG_PATH_MAX)
		buf_puts(b, "...");
}

void
log_request(Req *r)
{
	Buf			b;
	char		t[40];

	if (gw_config.log_level == LOG_QUIET && r->resp.status < 500)
		return;
	buf_init(&b);
	iso_now(t);
	buf_printf(&b, "%s %s %s ", t, r->request_id, r->method ? r->method : "-");
	if (r->verb && r->method && strcmp(r->verb, r->method) != 0)
		buf_printf(&b, "(%s) ", r->verb);
	append_safe_target(&b, r->raw_uri ? r->raw_uri : "-");
	buf_printf(&b, " %d %.2fms", r->resp.status, now_ms() - r->start_ms);
	if (r->resp.error_code)
		buf_printf(&b, " %s", r->resp.error_code);
	write_line(&b);
	buf_free(&b);
}

static void
vlog(const char *fmt, va_list ap)
{
	Buf			b;
	char		t[40];
	char		msg[1024];

	iso_now(t);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	buf_init(&b);
	buf_printf(&b, "%s %s", t, msg);
	write_line(&b);
	buf_free(&b);
}

void
log_msg(const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	vlog(fmt, ap);
	va_end(ap);
}

void
log_debug(const char *fmt,...)
{
	va_list		ap;

	if (gw_config.log_level < LOG_DEBUG)
		return;
	va_start(ap, fmt);
	vlog(fmt, ap);
	va_end(ap);
}
