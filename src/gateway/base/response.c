/*
 * response.c - building answers: headers, JSON bodies, and the service's error bodies
 *   JSON: {"odata.error":{"code":"...","message":{"lang":"en-US","value":"<text>\nRequestId:...\nTime:...[\n<detail>]"}}}
 *   XML (service resources): <Error><Code>...</Code><Message>...</Message>[<HeaderName>...]</Error>
 * with the x-ms-error-code header (and Retry-After on a 503). The message starts with the
 * service's own text for the code (errors.c); tablestore's explanation follows the Time line.
 */
#include "gateway.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void
resp_header(Req *r, const char *name, const char *value)
{
	if (r->resp.nheaders < RESP_MAX_HEADERS && value != NULL)
	{
		r->resp.headers[r->resp.nheaders].name = name;
		r->resp.headers[r->resp.nheaders].value = value;
		r->resp.nheaders++;
	}
}

const char *
meta_content_type(MetaLevel m)
{
	switch (m)
	{
		case META_NONE:
			return "application/json;odata=nometadata;streaming=true;charset=utf-8";
		case META_FULL:
			return "application/json;odata=fullmetadata;streaming=true;charset=utf-8";
		default:
			return "application/json;odata=minimalmetadata;streaming=true;charset=utf-8";
	}
}

void
resp_json(Req *r, int status, const char *json, size_t len)
{
	r->resp.status = status;
	buf_free(&r->resp.body);
	buf_append(&r->resp.body, json, len);
	r->resp.content_type = meta_content_type(r->meta);
}

void
resp_empty(Req *r, int status)
{
	r->resp.status = status;
	buf_free(&r->resp.body);
	r->resp.content_type = NULL;
}

void
resp_xml(Req *r, int status, Buf *doc)
{
	r->resp.status = status;
	buf_free(&r->resp.body);
	r->resp.body = *doc;
	buf_init(doc);
	r->resp.content_type = "application/xml";
}

/*
 * An error's message value, as the service writes it: [N:]<the service's text>, the RequestId
 * and Time lines, then what tablestore adds (a bounded explanation), when it has anything.
 */
static void
message_value(Buf *b, const char *code, const char *text, int op_index, const char *detail, const char *request_id)
{
	char		t[40];

	iso_now(t);
	if (op_index >= 0)
		buf_printf(b, "%d:", op_index);
	buf_puts(b, text ? text : error_text(code));
	buf_printf(b, "\nRequestId:%s\nTime:%s", request_id, t);
	if (detail != NULL && detail[0] != '\0')
		buf_printf(b, "\n%s", detail);
}

static void
json_error(Buf *b, const char *code, const char *text, int op_index, const char *detail, const char *request_id)
{
	Buf			v;

	buf_init(&v);
	message_value(&v, code, text, op_index, detail, request_id);
	buf_puts(b, "{\"odata.error\":{\"code\":");
	buf_json_string(b, code, strlen(code));
	buf_puts(b, ",\"message\":{\"lang\":\"en-US\",\"value\":");
	buf_json_string(b, v.data ? v.data : "", v.len);
	buf_puts(b, "}}}");
	buf_free(&v);
}

void
error_body_json(Buf *b, const char *code, int op_index, const char *detail, const char *request_id)
{
	json_error(b, code, NULL, op_index, detail, request_id);
}

/* The error answer; text and fields as resp_error_fields takes them. */
static void
error_answer(Req *r, int status, const char *code, const char *text, const char *const *fields, int nfields,
			 const char *detail)
{
	r->resp.status = status;
	r->resp.error_code = code;
	buf_free(&r->resp.body);
	if (r->xml)
	{
		Buf			v;

		buf_init(&v);
		message_value(&v, code, text, -1, detail, r->request_id);
		buf_puts(&r->resp.body, "<?xml version=\"1.0\" encoding=\"utf-8\"?><Error><Code>");
		buf_xml_text(&r->resp.body, code);
		buf_puts(&r->resp.body, "</Code><Message>");
		buf_xml_text(&r->resp.body, v.data ? v.data : "");
		buf_puts(&r->resp.body, "</Message>");
		for (int i = 0; i + 1 < nfields; i += 2)
		{
			buf_printf(&r->resp.body, "<%s>", fields[i]);
			buf_xml_text(&r->resp.body, fields[i + 1] ? fields[i + 1] : "");
			buf_printf(&r->resp.body, "</%s>", fields[i]);
		}
		buf_puts(&r->resp.body, "</Error>");
		buf_free(&v);
		r->resp.content_type = "application/xml";
	}
	else
	{
		json_error(&r->resp.body, code, text, -1, detail, r->request_id);
		/* errors are answered in minimal metadata unless no metadata was asked for */
		r->resp.content_type = meta_content_type(r->meta == META_NONE ? META_NONE : META_MINIMAL);
	}
	resp_header(r, "x-ms-error-code", code);
	if (status == 503)
		resp_header(r, "Retry-After", "1");
}

void
resp_error_status(Req *r, int status, const char *code, const char *detail)
{
	error_answer(r, status, code, NULL, NULL, 0, detail);
}

void
resp_error_fields(Req *r, const char *code, const char *text, const char *const *fields, int nfields)
{
	error_answer(r, error_status(code), code, text, fields, nfields, NULL);
}

void
resp_error(Req *r, const char *code, const char *fmt,...)
{
	char		msg[512];
	va_list		ap;

	msg[0] = '\0';
	if (fmt != NULL)
	{
		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
	}
	resp_error_status(r, error_status(code), code, msg);
}
