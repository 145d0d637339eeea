/*
 * common.c - helpers the handlers share: metadata names, body and $top checks, continuation
 * tokens in and out, entity URLs for Location headers, Prefer.
 */
#include "continuation.h"
#include "gateway.h"

#include <stdlib.h>
#include <string.h>

const char *
meta_name(MetaLevel m)
{
	return m == META_NONE ? "nometadata" : m == META_FULL ? "fullmetadata" : "minimalmetadata";
}

const char *
meta_of_accept(const char *a, MetaLevel *m)
{
	if (a == NULL)
		return NULL;
	if (strstr(a, "odata=nometadata"))
		*m = META_NONE;
	else if (strstr(a, "odata=fullmetadata"))
		*m = META_FULL;
	else if (strstr(a, "odata=minimalmetadata"))
		*m = META_MINIMAL;
	else if (strstr(a, "odata=verbose"))
		return "JsonVerboseFormatNotSupported";
	else if ((strstr(a, "application/atom+xml") || strstr(a, "application/xml")) && !strstr(a, "json") &&
			 !strstr(a, "*/*"))
		return "AtomFormatNotSupported";
	return NULL;
}

bool
body_text(Req *r, const char **out)
{
	const char *b = r->body.data ? r->body.data : "";

	if (memchr(b, '\0', r->body.len) != NULL || !edm_utf8_valid(b, r->body.len))
	{
		resp_error(r, "InvalidInput", "The request body is not valid UTF-8 JSON.");
		return false;
	}
	*out = b;
	return true;
}

bool
parse_top(Req *r, const char **out)
{
	const char *t = query_get(&r->target.query, "$top");
	char	   *end;
	long		v;

	*out = NULL;
	if (t == NULL)
		return true;
	v = strtol(t, &end, 10);
	if (end == t || *end != '\0' || v < 0 || v > TS_PAGE_MAX || t[0] == '+' || t[0] == ' ')
	{
		resp_error(r, "InvalidInput", "The value of $top must be an integer from 0 to %d.", TS_PAGE_MAX);
		return false;
	}
	*out = arena_printf(&r->arena, "%ld", v);
	return true;
}

bool
decode_token(Req *r, const char *param, const char **out)
{
	const char *t = query_get(&r->target.query, param);
	char	   *key;
	size_t		len;

	*out = NULL;
	if (t == NULL)
		return true;
	if (!cont_decode(&r->arena, t, strlen(t), &key, &len))
	{
		resp_error(r, "InvalidInput", "The continuation token in %s is not one this server wrote.", param);
		return false;
	}
	*out = key;
	return true;
}

void
set_token_header(Req *r, const char *header, const char *key)
{
	if (key != NULL)
		resp_header(r, header, cont_encode(&r->arena, key, strlen(key)));
}

bool
prefer_no_content(const char *prefer)
{
	return prefer && strstr(prefer, "return-no-content") != NULL;
}

bool
header_text_ok(const char *v)
{
	size_t		n = strlen(v);

	if (n > 1024)
		return false;
	return edm_utf8_valid(v, n);
}

char *
entity_url(Req *r, const char *table, const char *pk, size_t pk_len, const char *rk, size_t rk_len)
{
	Buf			b;
	char	   *out;

	buf_init(&b);
	buf_printf(&b, "%s/%s", r->base, table);
	edm_put_key_path(buf_put, &b, pk, pk_len, rk, rk_len);
	out = b.failed ? NULL : arena_strndup(&r->arena, b.data, b.len);
	buf_free(&b);
	return out;
}
