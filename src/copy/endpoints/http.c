/*
 * http.c - libcurl requests to a Table endpoint (http.h).
 */
#include "http.h"
#include "copy.h"
#include "jsonl.h"
#include "mem.h"
#include "retry.h"
#include "sign.h"

#include <curl/curl.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

struct Http
{
	const EndpointSpec *spec;
	CURL	   *curl;
	char	   *base_path;		/* the endpoint URL's path ("" or "/devstoreaccount1") */
	StringInfoData body;		/* the response body (malloc'd) */
	HttpResponse *cur;
	bool		too_large;		/* the body went over HTTP_MAX_BODY: cut */
};

Http *
http_new(const EndpointSpec *spec, CopyError *e)
{
	Http	   *h = mem_alloc(sizeof(Http));
	const char *host = strstr(spec->endpoint, "://");
	const char *path = host ? strchr(host + 3, '/') : NULL;

	memset(h, 0, sizeof(*h));
	h->spec = spec;
	h->curl = curl_easy_init();
	if (h->curl == NULL)
	{
		free(h);
		return copy_fail(e, "libcurl could not start"), NULL;
	}
	h->base_path = mem_strdup(path ? path : "");
	mem_string_init(&h->body);
	return h;
}

void
http_free(Http *h)
{
	if (h == NULL)
		return;
	curl_easy_cleanup(h->curl);
	free(h->base_path);
	pfree(h->body.data);
	free(h);
}

const char *
http_base(const Http *h)
{
	return h->spec->endpoint;
}

void
http_append_encoded(StringInfo out, const char *s, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";

	for (size_t i = 0; i < len; i++)
	{
		unsigned char c = (unsigned char) s[i];

		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
			c == '_' || c == '~')
			appendStringInfoChar(out, (char) c);
		else
		{
			appendStringInfoChar(out, '%');
			appendStringInfoChar(out, hex[c >> 4]);
			appendStringInfoChar(out, hex[c & 15]);
		}
	}
}

static size_t
on_body(char *p, size_t size, size_t n, void *arg)
{
	Http	   *h = arg;

	if ((size_t) h->body.len + size * n > HTTP_MAX_BODY)
	{
		h->too_large = true;
		return 0;				/* libcurl ends the transfer (CURLE_WRITE_ERROR) */
	}
	appendBinaryStringInfo(&h->body, p, (int) (size * n));
	return size * n;
}

/* libcurl asks now and then during a transfer: non-zero abandons it (SIGINT, SIGTERM) */
static int
on_progress(void *arg, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
	return atomic_load(&copy_abort) ? 1 : 0;
}

static char *
header_value(const char *line, size_t len, const char *name)
{
	size_t		n = strlen(name);
	const char *v;
	const char *end = line + len;

	if (len <= n || strncasecmp(line, name, n) != 0 || line[n] != ':')
		return NULL;
	v = line + n + 1;
	while (v < end && *v == ' ')
		v++;
	while (end > v && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' '))
		end--;
	return mem_strndup(v, (size_t) (end - v));
}

static size_t
on_header(char *p, size_t size, size_t n, void *arg)
{
	Http	   *h = arg;
	HttpResponse *r = h->cur;
	size_t		len = size * n;
	char	   *v;

	if ((v = header_value(p, len, "x-ms-continuation-NextPartitionKey")) != NULL)
	{
		free(r->next_pk);
		r->next_pk = v;
	}
	else if ((v = header_value(p, len, "x-ms-continuation-NextRowKey")) != NULL)
	{
		free(r->next_rk);
		r->next_rk = v;
	}
	else if ((v = header_value(p, len, "x-ms-continuation-NextTableName")) != NULL)
	{
		free(r->next_table);
		r->next_table = v;
	}
	else if ((v = header_value(p, len, "x-ms-error-code")) != NULL)
	{
		snprintf(r->error_code, sizeof(r->error_code), "%s", v);
		free(v);
	}
	else if ((v = header_value(p, len, "Content-Type")) != NULL)
	{
		snprintf(r->content_type, sizeof(r->content_type), "%s", v);
		free(v);
	}
	else if ((v = header_value(p, len, "Retry-After")) != NULL)
	{
		/* kept in error_message's place until the status is known */
		snprintf(r->error_message, sizeof(r->error_message), "retry-after:%s", v);
		free(v);
	}
	return len;
}

static void
put_sink(void *sink, const char *s, size_t len)
{
	appendBinaryStringInfo((StringInfo) sink, s, (int) len);
}

/* "SharedKey account:signature" for this request */
static void
authorization(Http *h, const char *method, const char *resource, const char *comp, const char *content_type,
			  const char *date, char *out, size_t outlen)
{
	StringInfoData sts,
				path;
	unsigned char mac[EVP_MAX_MD_SIZE];
	unsigned int mac_len = 0;
	char		b64[64];
	SignRequest r = {0};

	mem_string_init(&sts);
	mem_string_init(&path);
	appendStringInfoString(&path, h->base_path);
	appendStringInfoString(&path, resource);
	r.method = method;
	r.content_type = content_type;
	r.date = date;
	r.account = h->spec->account;
	r.raw_path = path.data;
	r.comp = comp;
	sign_shared_key(put_sink, &sts, SIGN_SHARED_KEY, &r);
	HMAC(EVP_sha256(), h->spec->key, (int) h->spec->key_len, (const unsigned char *) sts.data, sts.len, mac, &mac_len);
	edm_base64_encode(mac, mac_len, b64);
	b64[edm_base64_encoded_len(mac_len)] = '\0';
	snprintf(out, outlen, "Authorization: SharedKey %s:%s", h->spec->account, b64);
	pfree(sts.data);
	pfree(path.data);
}

/*
 * An endpoint's text may echo the request's URL, SAS and all: every sig= value goes (cut short
 * at the message's end too, so that not even a prefix of a signature is written).
 */
void
http_strip_signatures(char *msg)
{
	char	   *p = msg;

	while ((p = strcasestr(p, "sig=")) != NULL)
	{
		size_t		n = strcspn(p + 4, "&\" \t\r\n<");

		p += 4;
		if (n < 3)
			memset(p, '*', n);	/* never longer than it was */
		else
		{
			memmove(p + 3, p + n, strlen(p + n) + 1);
			memcpy(p, "***", 3);
		}
		p += n < 3 ? n : 3;
	}
}

/* the service's error body: {"odata.error":{"code":"...","message":{"value":"..."}}} (or XML) */
static void
read_error_body(HttpResponse *r)
{
	const char *p;

	if (r->body == NULL)
		return;
	if ((p = strstr(r->body, "\"code\"")) != NULL || (p = strstr(r->body, "<Code>")) != NULL)
	{
		const char *v = strchr(p + 6, p[0] == '<' ? '>' : '"');

		if (p[0] == '<')
			v = p + 6;
		else if (v != NULL)
			v++;
		if (v != NULL && r->error_code[0] == '\0')
		{
			size_t		n = strcspn(v, "\"<");

			snprintf(r->error_code, sizeof(r->error_code), "%.*s", (int) (n < 63 ? n : 63), v);
		}
	}
	if ((p = strstr(r->body, "\"value\"")) != NULL || (p = strstr(r->body, "<Message>")) != NULL)
	{
		const char *v = p[0] == '<' ? p + 9 : strchr(p + 7, '"');

		if (v != NULL)
		{
			size_t		n;

			if (p[0] != '<')
				v++;
			n = strcspn(v, p[0] == '<' ? "<" : "\"");
			snprintf(r->error_message, sizeof(r->error_message), "%.*s", (int) (n < 500 ? n : 500), v);
			http_strip_signatures(r->error_message);
		}
	}
}

bool
http_fail(CopyError *e, const HttpResponse *r, const char *what)
{
	copy_fail(e, "%s: HTTP %ld%s%s%s%s", what, r->status, r->error_code[0] ? " " : "", r->error_code,
			  r->error_message[0] ? ": " : "", r->error_message);
	e->status = (int) r->status;
	snprintf(e->code, sizeof(e->code), "%s", r->error_code);
	return false;
}

static bool
retry_status(long s)
{
	return s == 408 || s == 429 || s == 500 || s == 502 || s == 503 || s == 504;
}

bool
http_request(Http *h, const char *method, const char *resource, const char *query, const char *comp,
			 const char *content_type, const char *accept, const char *body, size_t body_len,
			 HttpResponse *out, CopyError *e)
{
	Retry		r = {0};
	StringInfoData url;

	mem_string_init(&url);
	appendStringInfoString(&url, h->spec->endpoint);
	appendStringInfoString(&url, resource);
	if (query || h->spec->sas)
		appendStringInfoChar(&url, '?');
	if (query)
		appendStringInfoString(&url, query);
	if (h->spec->sas)
	{
		if (query)
			appendStringInfoChar(&url, '&');
		appendStringInfoString(&url, h->spec->sas);
	}
	for (;;)
	{
		struct curl_slist *hdrs = NULL;
		char		date[64],
					line[512];
		time_t		now = time(NULL);
		struct tm	tm;
		CURLcode	rc;
		double		retry_after = -1;

		free(out->next_pk);
		free(out->next_rk);
		free(out->next_table);
		memset(out, 0, sizeof(*out));
		h->cur = out;
		h->too_large = false;
		resetStringInfo(&h->body);
		gmtime_r(&now, &tm);
		strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S GMT", &tm);
		snprintf(line, sizeof(line), "x-ms-date: %s", date);
		hdrs = curl_slist_append(hdrs, line);
		hdrs = curl_slist_append(hdrs, "x-ms-version: 2019-02-02");
		hdrs = curl_slist_append(hdrs, "DataServiceVersion: 3.0;NetFx");
		hdrs = curl_slist_append(hdrs, "MaxDataServiceVersion: 3.0;NetFx");
		hdrs = curl_slist_append(hdrs, "Expect:");
		snprintf(line, sizeof(line), "Accept: %s", accept ? accept : "application/json;odata=nometadata");
		hdrs = curl_slist_append(hdrs, line);
		if (content_type)
		{
			snprintf(line, sizeof(line), "Content-Type: %s", content_type);
			hdrs = curl_slist_append(hdrs, line);
		}
		if (h->spec->key_len > 0 && h->spec->sas == NULL)
		{
			authorization(h, method, resource, comp, content_type, date, line, sizeof(line));
			hdrs = curl_slist_append(hdrs, line);
		}
		curl_easy_reset(h->curl);
		curl_easy_setopt(h->curl, CURLOPT_URL, url.data);
		curl_easy_setopt(h->curl, CURLOPT_CUSTOMREQUEST, method);
		curl_easy_setopt(h->curl, CURLOPT_HTTPHEADER, hdrs);
		curl_easy_setopt(h->curl, CURLOPT_WRITEFUNCTION, on_body);
		curl_easy_setopt(h->curl, CURLOPT_WRITEDATA, h);
		curl_easy_setopt(h->curl, CURLOPT_HEADERFUNCTION, on_header);
		curl_easy_setopt(h->curl, CURLOPT_HEADERDATA, h);
		curl_easy_setopt(h->curl, CURLOPT_NOSIGNAL, 1L);
		curl_easy_setopt(h->curl, CURLOPT_CONNECTTIMEOUT, 30L);
		curl_easy_setopt(h->curl, CURLOPT_TIMEOUT, 300L);
		curl_easy_setopt(h->curl, CURLOPT_TCP_KEEPALIVE, 1L);
		curl_easy_setopt(h->curl, CURLOPT_XFERINFOFUNCTION, on_progress);
		curl_easy_setopt(h->curl, CURLOPT_XFERINFODATA, h);
		curl_easy_setopt(h->curl, CURLOPT_NOPROGRESS, 0L);
		if (strcmp(method, "GET") == 0)
			curl_easy_setopt(h->curl, CURLOPT_HTTPGET, 1L);
		else if (strcmp(method, "HEAD") == 0)
			curl_easy_setopt(h->curl, CURLOPT_NOBODY, 1L);
		else
		{
			curl_easy_setopt(h->curl, CURLOPT_POSTFIELDS, body ? body : "");
			curl_easy_setopt(h->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t) (body ? body_len : 0));
		}
		rc = curl_easy_perform(h->curl);
		curl_slist_free_all(hdrs);
		if (rc == CURLE_WRITE_ERROR && h->too_large)
		{
			out->too_large = true;
			pfree(url.data);
			return copy_fail(e, "the endpoint's answer is larger than %d MiB", HTTP_MAX_BODY >> 20);
		}
		if (rc == CURLE_ABORTED_BY_CALLBACK || atomic_load(&copy_abort))
		{
			pfree(url.data);
			return copy_fail(e, "stopped");
		}
		if (rc == CURLE_OK)
		{
			curl_easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, &out->status);
			if (strncmp(out->error_message, "retry-after:", 12) == 0)
				retry_after = retry_after_parse(out->error_message + 12);
			out->error_message[0] = '\0';
			out->body = h->body.data;
			out->len = (size_t) h->body.len;
			if (out->status >= 300)
				read_error_body(out);
			if (!retry_status(out->status))
				break;
			http_fail(e, out, "the endpoint is busy or failing");
		}
		else
			copy_fail(e, "cannot reach %s: %s", h->spec->endpoint, curl_easy_strerror(rc));
		if (!retry_wait(&r, retry_after))
		{
			char		msg[sizeof(e->msg)];

			snprintf(msg, sizeof(msg), "%s (gave up after %d attempts, %.0f s)", e->msg, r.attempt, r.waited);
			snprintf(e->msg, sizeof(e->msg), "%s", msg);
			pfree(url.data);
			return false;
		}
	}
	pfree(url.data);
	return true;
}
