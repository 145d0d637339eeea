/*
 * listener.c - libmicrohttpd set-up and the per-request life cycle.
 *
 * - Thread pool of epoll workers (MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL with
 *   MHD_OPTION_THREAD_POOL_SIZE); idle connections time out (slow clients): a new connection
 *   after FIRST_HEADER_TIMEOUT_S without a whole header block, then connection_timeout_s; the
 *   request line and headers must fit in MHD_OPTION_CONNECTION_MEMORY_LIMIT (libmicrohttpd
 *   answers 431 itself); at most per_ip_connections connections from one address, and near
 *   max_connections only addresses holding few get one (slots.c).
 * - The raw request target is taken from the URI log callback, before libmicrohttpd unescapes
 *   anything: signatures cover the raw path, and url.c decodes exactly once.
 * - As soon as the headers are in, the request is routed and authenticated (router_headers):
 *   a request refused then is answered without reading its body, and its connection closed.
 * - Framing that two parsers could read two ways, and a header that may appear once given twice,
 *   are refused (400, connection closed; framing.c says which).
 * - Bodies: at most 4 MiB each; past that the rest is read and discarded, and the 413
 *   RequestBodyTooLarge is answered after the body (or at once when the client waits for
 *   100-continue), so the client always receives it; past 64 MiB of discarded body the 413 is
 *   sent at once and the connection closed.
 * - Memory (budget.h): bodies held take from the body budget (body_memory) as their buffers grow
 *   with the bytes received - never by what Content-Length announces, so a request that stalls
 *   holds what it sent - until a database worker takes them; answers take from the answer budget
 *   (response_memory) their largest possible size when a worker admits them, then their own size
 *   until they are sent or dropped. Each budget keeps a room for every account and, within an
 *   account, one for its key: a body with no room is refused (the rest read and discarded, then
 *   503 ServerBusy and closed; at once to a client waiting for 100-continue), and a request with
 *   no room for its answer is answered 503 ServerBusy before its operation runs. An answer of
 *   which the client reads nothing for send_timeout_s is dropped. A CORS preflight (nobody
 *   signs it) with a body is refused before the body is read.
 * - A request that needs the database is handed to its account's workers (worker.c) and its
 *   connection suspended until the answer is ready; so no HTTP thread waits on the database.
 * - Each request has its own arena, freed when libmicrohttpd reports the request complete.
 */
#include "listener.h"
#include "framing.h"
#include "gateway.h"
#include "slots.h"
#include "worker.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DRAIN_MAX (64u * 1024 * 1024)
#define BODY_MIN_CAP (4u * 1024)	/* a body's first buffer (or its Content-Length, when smaller) */
#define BODY_UNIT ((size_t) TS_BODY_MAX_BYTES + 64 * 1024)	/* the most one body holds */
#define SEND_TIMEOUT_MIN_BYTES (64u * 1024)	/* smaller answers go to the socket's buffer at once */
#define FIRST_HEADER_TIMEOUT_S 10	/* a connection's idle limit until its first header block is in */
#define ANONYMOUS_MAX (64u * 1024)	/* what an account's CORS preflights may hold (their answers) */

/*
 * The most an answer is taken to hold at its admission (corrected when it is built): one
 * entity's JSON (1 MiB stored, up to about three times that escaped), a page (the extension's
 * tablestore.page_byte_budget, 16 MiB, plus the entity that crosses it - or the largest page
 * answered so far, when a larger budget was set), a page of table names, anything else.
 */
#define ENTITY_ANSWER_MAX (3u * 1024 * 1024 + 64 * 1024)
#define PAGE_ANSWER_MIN (16u * 1024 * 1024 + ENTITY_ANSWER_MAX)
#define TABLES_ANSWER_MAX (1024u * 1024)
#define SMALL_ANSWER_MAX (64u * 1024)
/* how long a request may wait for answers being sent to make room for its own (at most queue_timeout_ms) */
#define ANSWER_WAIT_MS 2000

_Static_assert(GW_MAX_ACCOUNTS <= BUDGET_MAX_ACCOUNTS, "the budgets count every account");

static struct MHD_Daemon *daemon_handle;
static Budget *body_budget;		/* request bodies being received */
static Budget *answer_budget;	/* answers built and not yet sent */

size_t
listener_body_in_flight(void)
{
	return body_budget ? budget_used(body_budget) : 0;
}

size_t
listener_answers_in_flight(void)
{
	return answer_budget ? budget_used(answer_budget) : 0;
}

static size_t largest_page = PAGE_ANSWER_MIN;	/* the page bound: grows with what is answered */

/*
 * The two budgets and their rules (doc/gateway.md, "Memory budgets"): a credential alone always
 * has room for two whole bodies and one page.
 */
static bool
budgets_create(void)
{
	BudgetRules rules;

	budget_rules(gw_config.body_memory, gw_config.naccounts, gw_config.account_share_pct,
				 gw_config.credential_share_pct, BODY_UNIT, 2, 0, &rules);
	body_budget = budget_create(&rules);
	log_debug("body budget: %zu bytes, %zu guaranteed per account, %zu kept for other credentials",
			  rules.limit, rules.guaranteed, rules.kept);
	budget_rules(gw_config.response_memory, gw_config.naccounts, gw_config.account_share_pct,
				 gw_config.credential_share_pct, PAGE_ANSWER_MIN, 1, ANONYMOUS_MAX, &rules);
	answer_budget = budget_create(&rules);
	log_debug("answer budget: %zu bytes, %zu guaranteed per account, %zu kept for other credentials",
			  rules.limit, rules.guaranteed, rules.kept);
	return body_budget != NULL && answer_budget != NULL;
}

/* The most r's answer may hold, taken at its admission. */
static size_t
answer_bound(const Req *r)
{
	size_t		page = __atomic_load_n(&largest_page, __ATOMIC_RELAXED);
	const char *top = query_get(&r->target.query, "$top");

	switch (r->op->statement)
	{
		case SQL_QUERY_ENTITIES:
			if (top != NULL && strspn(top, "0123456789") == strlen(top) && strlen(top) > 0 && strlen(top) <= 4 &&
				(size_t) atoi(top) * ENTITY_ANSWER_MAX + SMALL_ANSWER_MAX < page)
				return (size_t) atoi(top) * ENTITY_ANSWER_MAX + SMALL_ANSWER_MAX;
			return page;
		case SQL_BATCH:
			return page;		/* a query alone in a batch answers a page */
		case SQL_GET_ENTITY:
		case SQL_INSERT_ENTITY:
			return ENTITY_ANSWER_MAX;
		case SQL_QUERY_TABLES:
			return TABLES_ANSWER_MAX;
		default:
			return SMALL_ANSWER_MAX;
	}
}

/*
 * Who the request's memory is counted for: its account, and the credential it came with - the
 * account's key (either of its two), a shared access signature (by its signature), a bearer token
 * (by its decoded signature), or nobody (a CORS preflight, which carries none).
 */
static void
set_holder(Req *r)
{
	int			account = (int) (r->account - gw_config.accounts);
	const char *sig = query_get(&r->target.query, "sig");

	unsigned char *token = NULL;
	size_t		len = 0;

	if (r->op->flags & OPF_NO_AUTH)
		budget_key(&r->holder, account, "anonymous", NULL, 0);
	else if ((r->sas != NULL || r->sas_policy_pending) && sig != NULL)
		budget_key(&r->holder, account, "sas", sig, strlen(sig));
	else if (r->authorization != NULL && oauth_token_identity(r->authorization, &token, &len))
		budget_key(&r->holder, account, "bearer", token, len);	/* one token, however it is spelled */
	else if (r->authorization != NULL && oauth_is_bearer(r->authorization))
		budget_key(&r->holder, account, "bearer", NULL, 0);	/* out of memory: all tokens as one */
	else
		budget_key(&r->holder, account, "key", NULL, 0);
	free(token);
	r->holder_set = true;
}

/*
 * Room in r's body for need bytes (its NUL included): the buffer grows by doubling, never past
 * the announced length nor the 4 MiB limit, and the body budget is taken for what it grows by.
 * BUDGET_OK, or the limit that has no room (nothing changed then).
 */
static BudgetLimit
body_grow(Req *r, size_t need)
{
	size_t		want = r->body.cap * 2;
	size_t		most = r->body_announced > 0 ? r->body_announced + 1 : (size_t) TS_BODY_MAX_BYTES + 1;
	BudgetLimit l;
	char	   *p;

	if (need <= r->body.cap || r->body.failed)
		return BUDGET_OK;
	if (want < BODY_MIN_CAP)
		want = BODY_MIN_CAP;
	if (want > most)
		want = most;
	if (want < need)
		want = need;
	if ((l = budget_take(body_budget, &r->holder, want - r->body_reserved)) != BUDGET_OK)
		return l;
	r->body_reserved = want;
	p = realloc(r->body.data, want);
	if (p == NULL)
		r->body.failed = true;	/* on_complete answers 503 */
	else
	{
		r->body.data = p;
		r->body.cap = want;
	}
	return BUDGET_OK;
}

static void
body_release(Req *r)
{
	buf_free(&r->body);
	if (r->body_reserved > 0)
		budget_give(body_budget, &r->holder, r->body_reserved);
	r->body_reserved = 0;
}

/* A connection given the send timeout for its last answer gets the idle timeout back. */
static void
restore_timeout(struct MHD_Connection *con)
{
	const union MHD_ConnectionInfo *ci = con ? MHD_get_connection_info(con, MHD_CONNECTION_INFO_CONNECTION_TIMEOUT) : NULL;

	if (ci != NULL && ci->connection_timeout != (unsigned int) gw_config.conn_timeout_s)
		MHD_set_connection_option(con, MHD_CONNECTION_OPTION_TIMEOUT, (unsigned int) gw_config.conn_timeout_s);
}

/* Until its first header block is in, a connection's idle limit (the daemon's timeout). */
static unsigned int
first_header_timeout(void)
{
	return gw_config.conn_timeout_s < FIRST_HEADER_TIMEOUT_S ? (unsigned int) gw_config.conn_timeout_s : FIRST_HEADER_TIMEOUT_S;
}

/* libmicrohttpd's accept policy: the reserve near max_connections (slots.c). */
static enum MHD_Result
on_accept(void *cls, const struct sockaddr *addr, socklen_t addrlen)
{
	(void) cls;
	(void) addrlen;
	return slots_admit(addr) ? MHD_YES : MHD_NO;
}

/* A connection opened or closed: counted by address (slots.c); its key is its socket context. */
static void
on_connection(void *cls, struct MHD_Connection *con, void **socket_context, enum MHD_ConnectionNotificationCode code)
{
	(void) cls;
	if (code == MHD_CONNECTION_NOTIFY_STARTED)
	{
		const union MHD_ConnectionInfo *ci = MHD_get_connection_info(con, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
		unsigned char *key = malloc(16);

		if (key != NULL && ci != NULL && slots_key(ci->client_addr, key))
		{
			slots_opened(key);
			*socket_context = key;
		}
		else
			free(key);
	}
	else if (code == MHD_CONNECTION_NOTIFY_CLOSED && *socket_context != NULL)
	{
		slots_closed(*socket_context);
		free(*socket_context);
		*socket_context = NULL;
	}
}

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
	r->connection = con;
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
	if (r->props_reload)
		service_props_unclaim(r->account);	/* a preflight that never ran: another one reloads */
	body_release(r);
	if (r->resp_reserved > 0)
		budget_give(answer_budget, &r->holder, r->resp_reserved);
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
	r->content_crc64 = hdr(con, "x-ms-content-crc64");
	r->content_type = hdr(con, "Content-Type");
	r->accept = hdr(con, "Accept");
	r->if_match = hdr(con, "If-Match");
	r->prefer = hdr(con, "Prefer");
	r->indexing_policy = hdr(con, "x-ms-tablestore-indexing-policy");
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
 * The header lines in the order received, and where each value ends. libmicrohttpd parses the
 * header block in place (each line's CR LF overwritten with NULs) and measures a value with
 * strlen: a NUL byte inside a value cuts it there and hides the rest. So the bytes between a
 * value's end and the next name (or the end of the block) must be the NULs of its line end only.
 */
typedef struct HeaderWalk
{
	Framing    *f;
	const char *value_end;		/* the last value's end (NULL: none yet) */
} HeaderWalk;

/* Only line-end NULs (at most max of them) from p to end? */
static bool
only_line_end(const char *p, const char *end, size_t max)
{
	if (end < p || (size_t) (end - p) > max)
		return false;
	for (; p < end; p++)
		if (*p != '\0')
			return false;
	return true;
}

static enum MHD_Result
add_framing(void *cls, enum MHD_ValueKind kind, const char *key, size_t key_size, const char *value, size_t value_size)
{
	HeaderWalk *w = cls;

	(void) kind;
	if (w->value_end && !only_line_end(w->value_end, key, 2))
		w->f->nul = true;
	w->value_end = value ? value + value_size : key + key_size + 1;
	framing_add(w->f, key, value);
	return MHD_YES;
}

/* The request's framing and singleton headers are unambiguous; else answered (400, connection closed). */
static bool
framing_ok(Req *r, struct MHD_Connection *con, const char *method, const char *version)
{
	Framing		f;
	char		why[160];
	HeaderWalk	w = {&f, NULL};
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(con, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);

	framing_init(&f);
	MHD_get_connection_values_n(con, MHD_HEADER_KIND, add_framing, &w);
	/* the last value: its line end, then the empty line's, end the block (method: its start) */
	if (w.value_end && ci &&
		!only_line_end(w.value_end, method + ci->header_size, 4))
		f.nul = true;
	if (!framing_refused(&f, version == NULL || strcmp(version, "HTTP/1.0") == 0, why, sizeof(why)))
		return true;
	r->meta = META_MINIMAL;
	resp_error(r, "InvalidHeaderValue", "%s", why);
	r->resp.close = true;
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
	MHD_add_response_header(mr, "Server", "tablestore-gateway/" TS_VERSION);
	if (r->resp.content_type && strncmp(r->resp.content_type, "application/json", 16) == 0)
		MHD_add_response_header(mr, "DataServiceVersion", "3.0;");
	if (r->resp.content_type && r->resp.status != 204)
		MHD_add_response_header(mr, "Content-Type", r->resp.content_type);
	for (int i = 0; i < r->resp.nheaders; i++)
		MHD_add_response_header(mr, r->resp.headers[i].name, r->resp.headers[i].value);
	if (r->resp.close)
		MHD_add_response_header(mr, "Connection", "close");
	ret = MHD_queue_response(con, (unsigned int) r->resp.status, mr);
	MHD_destroy_response(mr);
	r->resp.queued = ret == MHD_YES;
	if (r->resp.queued && r->holder_set)
	{
		/* held until on_completed (sent, or the connection dropped): what was reserved becomes len */
		if (len > r->resp_reserved)
			budget_charge(answer_budget, &r->holder, len - r->resp_reserved);
		else
			budget_give(answer_budget, &r->holder, r->resp_reserved - len);
		r->resp_reserved = len;
	}
	if (r->op != NULL && (r->op->statement == SQL_QUERY_ENTITIES || r->op->statement == SQL_BATCH))
	{
		size_t		seen = __atomic_load_n(&largest_page, __ATOMIC_RELAXED);

		/* a page larger than the bound (a larger tablestore.page_byte_budget): the bound follows */
		while (len + ENTITY_ANSWER_MAX > seen &&
			   !__atomic_compare_exchange_n(&largest_page, &seen, len + ENTITY_ANSWER_MAX, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			;
	}
	if (r->resp.queued && len >= SEND_TIMEOUT_MIN_BYTES && gw_config.send_timeout_s < gw_config.conn_timeout_s)
		MHD_set_connection_option(con, MHD_CONNECTION_OPTION_TIMEOUT, (unsigned int) gw_config.send_timeout_s);
	return ret;
}

/* An answer given before the body was read: the body will not be read, so the connection closes. */
static enum MHD_Result
refuse_early(struct MHD_Connection *con, Req *r)
{
	r->resp.close = true;
	router_finish(r, false);
	return send_response(con, r);
}

static void
answer_too_large(Req *r)
{
	r->meta = META_MINIMAL;
	resp_error(r, "RequestBodyTooLarge", "The limit is %d bytes.", TS_BODY_MAX_BYTES);
}

/*
 * On a database worker: the request's operation, unless the answer budget has no room for the
 * largest answer it may produce, nor gets it within ANSWER_WAIT_MS as answers are sent (then 503
 * ServerBusy, before anything runs). The room is taken at admission, so no holder passes its
 * limits by answers being built, whatever pool_size is; it becomes the answer's own size when the
 * answer is sent (send_response). The body is handed to the worker: its budget is given back at
 * once (bodies on the workers are bounded by their number, pool_size per account), and its
 * buffer freed once the operation has run.
 */
static void
work_run(Req *r)
{
	BudgetLimit l = BUDGET_OK;

	if (r->body_reserved > 0)
	{
		budget_give(body_budget, &r->holder, r->body_reserved);
		r->body_reserved = 0;
	}
	if (r->holder_set && router_needs_database(r) && !(r->op->flags & OPF_NO_AUTH))
	{
		size_t		bound = answer_bound(r);

		/* answers being sent are given back as their clients read them: worth a short wait */
		l = budget_take_wait(answer_budget, &r->holder, bound,
							 gw_config.queue_timeout_ms < ANSWER_WAIT_MS ? gw_config.queue_timeout_ms : ANSWER_WAIT_MS);
		if (l == BUDGET_OK)
			r->resp_reserved = bound;
	}
	if (l != BUDGET_OK)
		resp_error(r, "ServerBusy", "Answers not yet read by their clients, and those being built, hold %s (response_memory_mb).",
				   budget_limit_text(l));
	else
		router_run(r);
	buf_free(&r->body);
	router_finish(r, true);
}

/* A worker has the answer ready: let libmicrohttpd call on_request again to send it. */
static void
work_done(Req *r)
{
	MHD_resume_connection((struct MHD_Connection *) r->connection);
}

/* The answer to a body the budget has no room for (sent after the body, or before it: Expect). */
static void
answer_no_room(Req *r, BudgetLimit l)
{
	resp_error(r, "ServerBusy", "Request bodies being received hold %s for them (body_memory_mb).", budget_limit_text(l));
	r->resp.close = true;
}

/* The request's headers are in: route and authenticate it, and reserve its body. */
static enum MHD_Result
on_headers(struct MHD_Connection *con, Req *r, const char *method, const char *version)
{
	bool		expects_100;

	r->headers_seen = true;
	r->method = arena_strdup(&r->arena, method);
	restore_timeout(con);		/* a whole header block is in: the idle timeout (also after a send timeout) */
	collect_headers(r, con);
	if (!framing_ok(r, con, method, version) || !router_headers(r))
		return refuse_early(con, r);
	set_holder(r);
	if ((r->op->flags & OPF_NO_AUTH) &&
		((r->content_length && strcmp(r->content_length, "0") != 0) || hdr(con, "Transfer-Encoding") != NULL))
	{
		/* a CORS preflight carries no body: none is read (nor held) for a request nobody signed */
		r->meta = META_MINIMAL;
		resp_error(r, "InvalidInput", "A CORS preflight request has no body.");
		return refuse_early(con, r);
	}
	expects_100 = r->expect && ascii_ieq(r->expect, "100-continue");
	if (r->content_length)
	{
		char	   *end;
		unsigned long long cl = strtoull(r->content_length, &end, 10);
		BudgetLimit l;

		if (*end == '\0' && cl > TS_BODY_MAX_BYTES)
		{
			r->body_too_large = true;
			/* a client waiting for 100-continue gets the 413 instead and sends nothing */
			if (expects_100)
			{
				answer_too_large(r);
				return refuse_early(con, r);
			}
		}
		else if (*end == '\0')
		{
			r->body_announced = (size_t) cl;	/* the buffer grows up to it, with the bytes received */
			/* a client waiting for 100-continue sends its body at once: refused now if it cannot be held */
			if (expects_100 && cl > 0 && (l = budget_check(body_budget, &r->holder, (size_t) cl + 1)) != BUDGET_OK)
			{
				answer_no_room(r, l);
				return refuse_early(con, r);
			}
		}
	}
	return MHD_YES;
}

/*
 * A piece of the body. A body refused on the way (its answer waits for the rest, which is
 * discarded) is still bound by the drain limit and the request timeout.
 */
static enum MHD_Result
on_body(struct MHD_Connection *con, Req *r, const char *data, size_t n)
{
	r->body_seen += n;
	if (!r->body_too_large && r->body.len + n > TS_BODY_MAX_BYTES)
	{
		r->body_too_large = true;
		body_release(r);
	}
	if (!r->body_too_large && r->resp.status == 0)
	{
		BudgetLimit l = body_grow(r, r->body.len + n + 1);

		if (l != BUDGET_OK)
		{
			/*
			 * answered now, sent once the body is in (libmicrohttpd queues no answer in the middle
			 * of a body): the rest is read and discarded, holding nothing
			 */
			body_release(r);
			answer_no_room(r, l);
			router_finish(r, false);
			return MHD_YES;
		}
		buf_append(&r->body, data, n);
	}
	if (r->resp.queued)
		return MHD_YES;			/* sent already; the rest is discarded */
	if (r->resp.status != 0)
	{
		/* answered already (a refused body): sent after the rest, unless that takes too long */
		if (r->body_seen > DRAIN_MAX || now_ms() - r->start_ms > gw_config.request_timeout_s * 1000.0)
			return send_response(con, r);
		return MHD_YES;
	}
	if (r->body_too_large && r->body_seen > DRAIN_MAX)
	{
		answer_too_large(r);
		r->resp.close = true;
		return send_response(con, r);
	}
	if (now_ms() - r->start_ms > gw_config.request_timeout_s * 1000.0)
	{
		/* a client trickling its body: answer and close rather than wait forever */
		r->meta = META_MINIMAL;
		resp_error(r, "OperationTimedOut", "The request body was not received within %d seconds.", gw_config.request_timeout_s);
		r->resp.close = true;
		return send_response(con, r);
	}
	return MHD_YES;
}

/* The whole request is in: check the body, then answer here or hand it to the database workers. */
static enum MHD_Result
on_complete(struct MHD_Connection *con, Req *r)
{
	if (r->body_too_large)
		answer_too_large(r);
	else if (r->body.failed)
		resp_error(r, "ServerBusy", "out of memory while reading the request body");
	else if (router_body(r) && router_needs_database(r) && gw_config.threads > 0)
	{
		MHD_suspend_connection(con);
		if (!workers_submit(r->account->workers, r))
		{
			/* answered as a worker would answer it: resumed, and on_request sends it */
			resp_error(r, "ServerBusy", "%d requests of the account are already waiting for the database.",
					   gw_config.queue_max);
			router_finish(r, false);
			work_done(r);
		}
		return MHD_YES;			/* work_done resumes the connection, and on_request answers */
	}
	else if (r->resp.status == 0)
	{
		/* no database needed (or a thread per connection, which may wait for it itself) */
		work_run(r);
		return send_response(con, r);
	}
	router_finish(r, false);
	return send_response(con, r);
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
		return on_headers(con, r, method, version);
	if (*upload_data_size > 0)
	{
		size_t		n = *upload_data_size;

		*upload_data_size = 0;
		return on_body(con, r, upload_data, n);
	}
	if (r->resp.status != 0)
		return r->resp.queued ? MHD_YES : send_response(con, r);	/* answered (by a worker, or above) */
	return on_complete(con, r);
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
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG | MHD_ALLOW_SUSPEND_RESUME |
		(gw_config.threads == 0 ? MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL : MHD_USE_EPOLL);

	if (!budgets_create())
	{
		snprintf(err, errlen, "out of memory");
		return false;
	}

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
		OPT(MHD_OPTION_CONNECTION_TIMEOUT, first_header_timeout(), NULL);
		OPT(MHD_OPTION_CONNECTION_MEMORY_LIMIT, gw_config.header_limit, NULL);
		OPT(MHD_OPTION_CONNECTION_LIMIT, gw_config.max_connections, NULL);
		if (gw_config.per_ip_connections > 0)
			OPT(MHD_OPTION_PER_IP_CONNECTION_LIMIT, gw_config.per_ip_connections, NULL);
		OPT(MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024, NULL);
		OPT(MHD_OPTION_URI_LOG_CALLBACK, on_uri, NULL);
		OPT(MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL);
		OPT(MHD_OPTION_NOTIFY_CONNECTION, on_connection, NULL);
		if (tls_cert)
		{
			OPT(MHD_OPTION_HTTPS_MEM_CERT, 0, tls_cert);
			OPT(MHD_OPTION_HTTPS_MEM_KEY, 0, tls_key);
		}
		OPT(MHD_OPTION_END, 0, NULL);
#undef OPT
		slots_init(gw_config.max_connections);
		daemon_handle = MHD_start_daemon(flags, (uint16_t) gw_config.port, on_accept, NULL, on_request, NULL,
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

WorkRun
listener_work_run(void)
{
	return work_run;
}

WorkDone
listener_work_done(void)
{
	return work_done;
}

void
listener_quiesce(void)
{
	if (daemon_handle)
		MHD_quiesce_daemon(daemon_handle);
}

void
listener_stop(void)
{
	if (daemon_handle)
		MHD_stop_daemon(daemon_handle);
	daemon_handle = NULL;
}
