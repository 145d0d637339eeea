/*
 * listener.c - libmicrohttpd set-up and the per-request life cycle.
 *
 * - Thread pool of epoll workers (MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL with
 *   MHD_OPTION_THREAD_POOL_SIZE); idle connections time out (slow clients); the request line and
 *   headers must fit in MHD_OPTION_CONNECTION_MEMORY_LIMIT (libmicrohttpd answers 431 itself).
 * - The raw request target is taken from the URI log callback, before libmicrohttpd unescapes
 *   anything: signatures cover the raw path, and url.c decodes exactly once.
 * - The body is accumulated up to 4 MiB. Past that the rest is read and discarded, and the
 *   413 RequestBodyTooLarge is answered after the body (or at once when the client waits for
 *   100-continue), so the client always receives it; past 64 MiB of discarded body the 413 is
 *   sent at once and the connection closed.
 * - Each request has its own arena, freed when libmicrohttpd reports the request complete.
 */
#include "listener.h"
#include "gateway.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DRAIN_MAX (64u * 1024 * 1024)

static struct MHD_Daemon *daemon_handle;

static void *
on_uri(void *cls, const char *uri, struct MHD_Connection *con)
{
	Req		   *r = calloc(1, sizeof(Req));

	(void) cls;
	(void) con;
	if (r == NULL)
		return NULL;
	arena_init(&r->arena, GW_ARENA_LIMIT);
	r->meta = META_MINIMAL;
	r->start_ms = now_ms();
	r->raw_uri = arena_strdup(&r->arena, uri ? uri : "");
	uuid_v4(r->request_id);
	buf_init(&r->body);
	buf_init(&r->resp.body);
	return r;
}

static void
on_completed(void *cls, struct MHD_Connection *con, void **con_cls, enum MHD_RequestTerminationCode toe)
{
	Req		   *r = *con_cls;

	(void) cls;
	(void) con;
	if (r == NULL)
		return;
	if (r->resp.status == 0 || toe != MHD_REQUEST_TERMINATED_COMPLETED_OK)
	{
		if (r->resp.status == 0)
			r->resp.error_code = toe == MHD_REQUEST_TERMINATED_TIMEOUT_REACHED ? "(timed out)" : "(aborted)";
	}
	if (r->method)
		log_request(r);
	buf_free(&r->body);
	buf_free(&r->resp.body);
	arena_free(&r->arena);
	free(r);
	*con_cls = NULL;
}

static const char *
hdr(struct MHD_Connection *con, const char *name)
{
	return MHD_lookup_connection_value(con, MHD_HEADER_KIND, name);
}

static void
collect_headers(Req *r, struct MHD_Connection *con)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(con, MHD_CONNECTION_INFO_CLIENT_ADDRESS);

	r->client_ip[0] = '\0';
	if (ci && ci->client_addr)
	{
		const struct sockaddr *sa = ci->client_addr;

		if (sa->sa_family == AF_INET)
			inet_ntop(AF_INET, &((const struct sockaddr_in *) sa)->sin_addr, r->client_ip, sizeof(r->client_ip));
		else if (sa->sa_family == AF_INET6)
			inet_ntop(AF_INET6, &((const struct sockaddr_in6 *) sa)->sin6_addr, r->client_ip, sizeof(r->client_ip));
	}
	r->host = hdr(con, "Host");
	r->authorization = hdr(con, "Authorization");
	r->x_ms_date = hdr(con, "x-ms-date");
	r->date = hdr(con, "Date");
	r->content_md5 = hdr(con, "Content-MD5");
	r->content_type = hdr(con, "Content-Type");
	r->accept = hdr(con, "Accept");
	r->if_match = hdr(con, "If-Match");
	r->prefer = hdr(con, "Prefer");
	r->x_ms_version = hdr(con, "x-ms-version");
	r->client_request_id = hdr(con, "x-ms-client-request-id");
	r->x_http_method = hdr(con, "X-HTTP-Method");
	r->content_length = hdr(con, "Content-Length");
	r->expect = hdr(con, "Expect");
	r->origin = hdr(con, "Origin");
	r->ac_request_method = hdr(con, "Access-Control-Request-Method");
	r->ac_request_headers = hdr(con, "Access-Control-Request-Headers");
}

/*
 * Framing that two HTTP parsers could read two ways (request smuggling, RFC 9112 §6.3): two
 * Content-Length headers, or Content-Length beside Transfer-Encoding. libmicrohttpd takes the
 * first Content-Length; a proxy in front may take the last. Such a request is refused and its
 * connection closed.
 */
typedef struct Framing
{
	int			content_lengths;
	bool		transfer_encoding;
} Framing;

static enum MHD_Result
count_framing(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	Framing    *f = cls;

	(void) kind;
	(void) value;
	if (ascii_ieq(key, "Content-Length"))
		f->content_lengths++;
	else if (ascii_ieq(key, "Transfer-Encoding"))
		f->transfer_encoding = true;
	return MHD_YES;
}

/* The request's framing and Host header are unambiguous; else answered (400, connection closed). */
static bool
framing_ok(Req *r, struct MHD_Connection *con, const char *version)
{
	Framing		f = {0};
	const char *why = NULL;

	MHD_get_connection_values(con, MHD_HEADER_KIND, count_framing, &f);
	if (f.content_lengths > 1)
		why = "The request has more than one Content-Length header.";
	else if (f.content_lengths == 1 && f.transfer_encoding)
		why = "The request has both Content-Length and Transfer-Encoding headers.";
	else if (r->host == NULL && version != NULL && strcmp(version, "HTTP/1.0") != 0)
		why = "An HTTP/1.1 request must have a Host header.";
	if (why == NULL)
		return true;
	r->meta = META_MINIMAL;
	resp_error(r, "InvalidHeaderValue", "%s", why);
	resp_header(r, "Connection", "close");
	return false;
}

/* a header value we echo must be short and printable */
static const char *
echo_safe(Arena *a, const char *v)
{
	size_t		n;

	if (v == NULL)
		return NULL;
	n = strlen(v);
	if (n > 1024)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char) v[i] < 0x20 || (unsigned char) v[i] >= 0x7f)
			return NULL;
	return arena_strndup(a, v, n);
}

static enum MHD_Result
send_response(struct MHD_Connection *con, Req *r)
{
	struct MHD_Response *mr;
	enum MHD_Result ret;
	size_t		len = r->resp.body.len;

	if (r->resp.body.failed)
	{
		buf_free(&r->resp.body);
		resp_error(r, "InternalError", "out of memory while building the response");
		len = r->resp.body.len;
	}
	if (len > 0)
		mr = MHD_create_response_from_buffer(len, buf_steal(&r->resp.body), MHD_RESPMEM_MUST_FREE);
	else
		mr = MHD_create_response_from_buffer(0, (void *) "", MHD_RESPMEM_PERSISTENT);
	if (mr == NULL)
		return MHD_NO;
	MHD_add_response_header(mr, "x-ms-request-id", r->request_id);
	MHD_add_response_header(mr, "x-ms-version", echo_safe(&r->arena, r->x_ms_version) ?: "2019-02-02");
	if (echo_safe(&r->arena, r->client_request_id))
		MHD_add_response_header(mr, "x-ms-client-request-id", echo_safe(&r->arena, r->client_request_id));
	MHD_add_response_header(mr, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(mr, "Cache-Control", "no-cache");
	MHD_add_response_header(mr, "Server", "tablestore-gateway/" GW_VERSION);
	if (r->resp.content_type && strncmp(r->resp.content_type, "application/json", 16) == 0)
		MHD_add_response_header(mr, "DataServiceVersion", "3.0;");
	if (r->resp.content_type && r->resp.status != 204)
		MHD_add_response_header(mr, "Content-Type", r->resp.content_type);
	for (int i = 0; i < r->resp.nheaders; i++)
		MHD_add_response_header(mr, r->resp.headers[i].name, r->resp.headers[i].value);
	ret = MHD_queue_response(con, (unsigned int) r->resp.status, mr);
	MHD_destroy_response(mr);
	return ret;
}

static void
answer_too_large(Req *r)
{
	r->meta = META_MINIMAL;
	resp_error(r, "RequestBodyTooLarge", "The request body is too large and exceeds the maximum permissible limit of %u bytes.", GW_MAX_BODY);
}

static enum MHD_Result
on_request(void *cls, struct MHD_Connection *con, const char *url, const char *method,
		   const char *version, const char *upload_data, size_t *upload_data_size, void **con_cls)
{
	Req		   *r = *con_cls;

	(void) cls;
	(void) url;
	if (r == NULL)
		return MHD_NO;			/* out of memory in on_uri: drop the connection */
	if (!r->headers_seen)
	{
		r->headers_seen = true;
		r->method = arena_strdup(&r->arena, method);
		collect_headers(r, con);
		if (!framing_ok(r, con, version))
			return send_response(con, r);
		if (r->content_length)
		{
			char	   *end;
			unsigned long long cl = strtoull(r->content_length, &end, 10);

			if (*end == '\0' && cl > GW_MAX_BODY)
			{
				r->body_too_large = true;
				/* a client waiting for 100-continue gets the 413 instead and sends nothing */
				if (r->expect && ascii_ieq(r->expect, "100-continue"))
				{
					answer_too_large(r);
					return send_response(con, r);
				}
			}
		}
		return MHD_YES;
	}
	if (*upload_data_size > 0)
	{
		size_t		n = *upload_data_size;

		r->body_seen += n;
		if (!r->body_too_large && r->body.len + n > GW_MAX_BODY)
		{
			r->body_too_large = true;
			buf_free(&r->body);
		}
		if (!r->body_too_large)
			buf_append(&r->body, upload_data, n);
		*upload_data_size = 0;
		if (r->resp.status != 0)
			return MHD_YES;		/* answered already; the rest is discarded */
		if (r->body_too_large && r->body_seen > DRAIN_MAX)
		{
			answer_too_large(r);
			return send_response(con, r);
		}
		if (now_ms() - r->start_ms > gw_config.request_timeout_s * 1000.0)
		{
			/* a client trickling its body: answer and close rather than wait forever */
			r->meta = META_MINIMAL;
			resp_error(r, "OperationTimedOut", "The request body was not received within %d seconds.", gw_config.request_timeout_s);
			return send_response(con, r);
		}
		return MHD_YES;
	}
	if (r->resp.status != 0)
		return MHD_YES;			/* already answered (413 above) */
	if (r->body_too_large)
		answer_too_large(r);
	else if (r->body.failed)
		resp_error(r, "ServerBusy", "out of memory while reading the request body");
	else
		router_dispatch(r);
	return send_response(con, r);
}

/* A whole (small) file into memory, NUL-terminated; NULL with err set. */
static char *
read_file(const char *path, const char *what, char *err, size_t errlen)
{
	FILE	   *f = fopen(path, "rb");
	char	   *data;
	long		n;

	if (f == NULL)
	{
		snprintf(err, errlen, "cannot open the %s %s", what, path);
		return NULL;
	}
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || n > 1024 * 1024 || fseek(f, 0, SEEK_SET) != 0 ||
		(data = malloc((size_t) n + 1)) == NULL)
	{
		fclose(f);
		snprintf(err, errlen, "cannot read the %s %s (at most 1 MiB)", what, path);
		return NULL;
	}
	if (fread(data, 1, (size_t) n, f) != (size_t) n)
	{
		fclose(f);
		free(data);
		snprintf(err, errlen, "cannot read the %s %s", what, path);
		return NULL;
	}
	fclose(f);
	data[n] = '\0';
	return data;
}

bool
listener_start(char *err, size_t errlen)
{
	static char *tls_cert;
	static char *tls_key;
	static struct sockaddr_in6 sa6;
	static struct sockaddr_in sa4;
	struct sockaddr *sa;
	/* threads = 0: a thread per connection (poll); otherwise a pool of epoll workers */
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG |
		(gw_config.threads == 0 ? MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL : MHD_USE_EPOLL);

	if (gw_config.tls_cert)
	{
		if (!MHD_is_feature_supported(MHD_FEATURE_TLS))
		{
			snprintf(err, errlen, "this libmicrohttpd was built without TLS");
			return false;
		}
		if ((tls_cert = read_file(gw_config.tls_cert, "certificate", err, errlen)) == NULL ||
			(tls_key = read_file(gw_config.tls_key, "private key", err, errlen)) == NULL)
			return false;
		flags |= MHD_USE_TLS;
	}
	memset(&sa4, 0, sizeof(sa4));
	memset(&sa6, 0, sizeof(sa6));
	if (inet_pton(AF_INET, gw_config.listen_addr, &sa4.sin_addr) == 1)
	{
		sa4.sin_family = AF_INET;
		sa4.sin_port = htons((uint16_t) gw_config.port);
		sa = (struct sockaddr *) &sa4;
	}
	else if (inet_pton(AF_INET6, gw_config.listen_addr, &sa6.sin6_addr) == 1)
	{
		sa6.sin6_family = AF_INET6;
		sa6.sin6_port = htons((uint16_t) gw_config.port);
		sa = (struct sockaddr *) &sa6;
		flags |= MHD_USE_IPv6;
	}
	else
	{
		snprintf(err, errlen, "listen address %s is not an IPv4 or IPv6 address", gw_config.listen_addr);
		return false;
	}
	{
		struct MHD_OptionItem ops[20];
		int			n = 0;

#define OPT(o, v, p) ops[n++] = (struct MHD_OptionItem) {(o), (intptr_t) (v), (p)}
		OPT(MHD_OPTION_SOCK_ADDR, 0, sa);
		if (gw_config.threads > 0)
			OPT(MHD_OPTION_THREAD_POOL_SIZE, gw_config.threads, NULL);
		OPT(MHD_OPTION_CONNECTION_TIMEOUT, gw_config.conn_timeout_s, NULL);
		OPT(MHD_OPTION_CONNECTION_MEMORY_LIMIT, gw_config.header_limit, NULL);
		OPT(MHD_OPTION_CONNECTION_LIMIT, gw_config.max_connections, NULL);
		if (gw_config.per_ip_connections > 0)
			OPT(MHD_OPTION_PER_IP_CONNECTION_LIMIT, gw_config.per_ip_connections, NULL);
		OPT(MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024, NULL);
		OPT(MHD_OPTION_URI_LOG_CALLBACK, on_uri, NULL);
		OPT(MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL);
		if (tls_cert)
		{
			OPT(MHD_OPTION_HTTPS_MEM_CERT, 0, tls_cert);
			OPT(MHD_OPTION_HTTPS_MEM_KEY, 0, tls_key);
		}
		OPT(MHD_OPTION_END, 0, NULL);
#undef OPT
		daemon_handle = MHD_start_daemon(flags, (uint16_t) gw_config.port, NULL, NULL, on_request, NULL,
										 MHD_OPTION_ARRAY, ops, MHD_OPTION_END);
	}
	if (daemon_handle == NULL)
	{
		snprintf(err, errlen, "cannot listen on %s:%d (in use, not allowed%s)", gw_config.listen_addr, gw_config.port,
				 tls_cert ? ", or the certificate and key are not a PEM pair" : "");
		return false;
	}
	return true;
}

void
listener_stop(void)
{
	if (daemon_handle)
		MHD_stop_daemon(daemon_handle);
	daemon_handle = NULL;
}
