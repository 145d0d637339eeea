/*
 * gateway.h - the types every request handler shares: configuration and accounts, the request
 * (its arena, target, headers, body, operation) and the response being built. Handlers never see
 * libmicrohttpd; listener.c copies what they need into a Req and turns the Resp into an answer.
 */
#ifndef GW_GATEWAY_H
#define GW_GATEWAY_H

#include "util.h"
#include "auth.h"
#include "budget.h"
#include "oauth.h"
#include "ops.h"
#include "sas.h"
#include "url.h"
#include "ts_protocol.h"

#define GW_MAX_ACCOUNTS 32
#define GW_MAX_NODES 64
#define GW_ARENA_LIMIT (64u * 1024 * 1024)	/* per-request arena cap */

struct Pool;
struct Workers;
typedef struct PropsCache PropsCache;
struct ServiceProps;

/* A node of distributed tables: the coordinator's foreign server name and how to reach it (route.c). */
typedef struct Node
{
	char		name[64];
	char	   *dsn;
	struct Pool *pool;
} Node;

/*
 * An account: its keys and its own database (config.c: an account's data is reachable only
 * through its own credentials), the database workers that run its requests (worker.c), its
 * nodes when its tables are distributed, and its cached service properties.
 */
typedef struct Account
{
	char		name[64];
	AccountKeys keys;
	char	   *dsn;			/* libpq connection string of the account's database */
	bool		dsn_derived;	/* <--dsn database>_<account> (config.c): created when missing */
	bool		dev_key;		/* one of its keys is the public development key */
	struct Pool *pool;
	struct Workers *workers;
	PropsCache *props;			/* the service properties, cached for CORS (service.c) */
	Node		nodes[GW_MAX_NODES];	/* --node / node = NAME=DSN: one-partition calls go straight there */
	int			nnodes;
} Account;

typedef enum LogLevel
{
	LOG_QUIET,					/* errors only */
	LOG_REQUESTS,				/* one line per request (default) */
	LOG_DEBUG
} LogLevel;

typedef struct Config
{
	char	   *listen_addr;	/* default 127.0.0.1 */
	int			port;			/* default 10002 */
	int			threads;		/* libmicrohttpd worker threads */
	int			pool_size;		/* PostgreSQL connections (and database workers) per account */
	int			queue_max;		/* requests that may wait for an account's workers before 503 ServerBusy */
	int			queue_timeout_ms;	/* longest wait for a worker before 503 ServerBusy */
	int			conn_timeout_s;	/* idle client connection timeout */
	int			request_timeout_s;	/* longest time to receive one request body */
	int			statement_timeout_ms;	/* per SQL call */
	int			max_connections;	/* client connections */
	int			per_ip_connections;
	size_t		header_limit;	/* per-connection memory for the request line and headers */
	size_t		body_memory;	/* request bodies held at once, all connections together */
	size_t		response_memory;	/* answers not yet sent, all connections together */
	int			account_share_pct;	/* of each memory budget, what one account may hold */
	int			credential_share_pct;	/* of an account's share, what one credential may hold */
	int			send_timeout_s;	/* an answer the client takes nothing of for this long: dropped */
	char	   *default_dsn;	/* for accounts without their own dsn */
	LogLevel	log_level;
	char	   *tls_cert;		/* PEM files: with both, the listener speaks HTTPS only */
	char	   *tls_key;
	bool		oauth;			/* bearer tokens (HTTPS only): "--oauth basic" */
	char	   *oauth_keys;		/* PEM file of public keys or certificates: RS256 signatures required */
	char	   *oauth_issuers;	/* comma-separated: the only issuers (tenants) accepted */
	OAuthTrust	token_trust;	/* loaded from oauth_keys and oauth_issuers at start-up */
	bool		allow_dev_account;	/* the public development key off loopback or with TLS/tokens */
	Account		accounts[GW_MAX_ACCOUNTS];
	int			naccounts;
	bool		accounts_configured;	/* AZURITE_ACCOUNTS or [account] sections: no development account */
	Node		nodes[GW_MAX_NODES];	/* --node: the nodes of the account that uses --dsn's database */
	int			nnodes;
} Config;

extern Config gw_config;

extern Account *config_find_account(const char *name, size_t len);

typedef enum MetaLevel
{
	META_NONE,
	META_MINIMAL,
	META_FULL
} MetaLevel;

typedef struct RespHeader
{
	const char *name;
	const char *value;
} RespHeader;

#define RESP_MAX_HEADERS 32

typedef struct Resp
{
	int			status;			/* 0 = not answered yet */
	Buf			body;
	const char *content_type;
	RespHeader	headers[RESP_MAX_HEADERS];
	int			nheaders;
	const char *error_code;		/* for the log */
	bool		close;			/* close the connection after the answer */
	bool		queued;			/* handed to libmicrohttpd (listener.c) */
} Resp;

typedef struct Req
{
	Arena		arena;
	double		start_ms;
	char	   *raw_uri;		/* request target as sent */
	const char *method;			/* wire verb */
	const char *verb;			/* effective verb (after X-HTTP-Method) */
	char		request_id[37];
	void	   *connection;		/* the listener's (an MHD_Connection), for resuming after the database work */

	/* headers the handlers use (NULL when absent) */
	const char *host;
	const char *authorization;
	const char *x_ms_date;
	const char *date;
	const char *content_md5;
	const char *content_crc64;
	const char *content_type;
	const char *accept;
	const char *if_match;
	const char *prefer;
	const char *indexing_policy;	/* x-ms-tablestore-indexing-policy (Create Table) */
	const char *x_ms_version;
	const char *client_request_id;
	const char *x_http_method;
	const char *content_length;
	const char *expect;
	const char *origin;			/* CORS */
	const char *ac_request_method;
	const char *ac_request_headers;

	Buf			body;			/* request body (at most TS_BODY_MAX_BYTES) */
	bool		body_too_large;
	size_t		body_seen;		/* bytes received (also when discarded) */
	size_t		body_announced;	/* Content-Length (0: none, or chunked) */
	size_t		body_reserved;	/* bytes of the body budget this request holds (its buffer's capacity) */
	size_t		resp_reserved;	/* bytes of the answer budget its answer holds */
	BudgetKey	holder;			/* its account and credential, for the memory budgets (budget.h) */
	bool		holder_set;		/* once authenticated (or a CORS preflight) */
	bool		headers_seen;

	char		client_ip[64];	/* the peer's address as text ("" if unknown) */

	Target		target;
	bool		target_ok;
	const OpDef *op;			/* the operation (ops.h), once routed */
	Account    *account;
	const Sas  *sas;			/* the verified shared access signature, NULL with Shared Key */
	Sas			sas_storage;
	bool		sas_policy_pending;	/* the SAS names a stored access policy: checked with the database */
	bool		props_reload;	/* a preflight that claimed the reload of its account's CORS rules */
	const char *key_scope;		/* the SAS's key range as a text[] literal for the REST functions, or NULL */
	MetaLevel	meta;
	bool		xml;			/* errors in XML (service resources) */
	char	   *base;			/* base URL as addressed, for odata.metadata */

	/* a distributed table's routing: the table and PartitionKey of the call (route.c), or NULL */
	const char *route_table;
	const char *route_pk;

	Resp		resp;
} Req;

/* response.c */
extern void resp_header(Req *r, const char *name, const char *value);
extern void resp_json(Req *r, int status, const char *json, size_t len);
extern void resp_empty(Req *r, int status);
extern void resp_xml(Req *r, int status, Buf *doc);	/* takes the document's buffer */
/* An error: the service's text for code, then tablestore's detail (fmt may be NULL: none). */
extern void resp_error(Req *r, const char *code, const char *fmt,...) __attribute__((format(printf, 3, 4)));
extern void resp_error_status(Req *r, int status, const char *code, const char *detail);
/*
 * An error as the service writes some: text its own message for this condition (NULL: the code's),
 * and in an XML body detail elements after <Message> (fields: element, value, element, value...;
 * <HeaderName>x-ms-version</HeaderName>); a JSON body has no place for them.
 */
extern void resp_error_fields(Req *r, const char *code, const char *text, const char *const *fields, int nfields);
extern const char *meta_content_type(MetaLevel m);
extern void error_body_json(Buf *b, const char *code, int op_index, const char *detail, const char *request_id);

/* errors.c */
extern int	error_status(const char *code);
extern const char *error_text(const char *code);	/* the service's message for the code */
extern bool error_code_known(const char *code);
extern const char *http_reason(int status);
extern const char *sqlstate_code(const char *sqlstate);	/* the service code of a PostgreSQL error */

/* router.c: the request's way through the gateway (listener.c calls these in turn) */
/* Once the headers are in: route, negotiate, authenticate, authorize. false: answered. */
extern bool router_headers(Req *r);
/* Once the body is in: its checks (Content-MD5). false: answered. */
extern bool router_body(Req *r);
/* Does the rest need the database (so it runs on the account's workers)? */
extern bool router_needs_database(const Req *r);
/* The operation's work: its handler (on a database worker when router_needs_database). */
extern void router_run(Req *r);
/* The CORS headers of an answer to a request with Origin (after router_run or a refusal). */
extern void router_finish(Req *r, bool may_use_database);

/* handlers (the table of operations names them) */
extern void tables_query(Req *r);
extern void tables_create(Req *r);
extern void tables_get(Req *r);
extern void tables_delete(Req *r);
extern void entities_query(Req *r);
extern void entities_insert(Req *r);
extern void entities_get(Req *r);
extern void entities_write(Req *r);
extern void entities_delete(Req *r);
extern void changeset_handle(Req *r);
extern void acl_get(Req *r);
extern void acl_set(Req *r);
/* indexing.c */
extern void indexing_get(Req *r);
extern void indexing_set(Req *r);
extern void service_get_properties(Req *r);
extern void service_set_properties(Req *r);
extern void service_get_stats(Req *r);
extern void cors_preflight(Req *r);

/* service.c: the account's service properties, cached for CORS */
extern PropsCache *props_cache_create(void);
/*
 * The account's service properties (allocated in r's arena): read from the database when the
 * cache is stale and may_load, else the cached ones (defaults before the first read). false: out
 * of memory.
 */
extern bool service_props_current(Req *r, struct ServiceProps *out, bool may_load);
/* Claim the reload of a stale cache (true: the caller must reload, or unclaim). */
extern bool service_props_claim(Account *a);
/* Reload the cache now (on a database worker; the caller claimed it), releasing the claim. */
extern void service_props_reload(Req *r);
extern void service_props_unclaim(Account *a);
/* At start-up: read the properties into the cache (false: not read; the first preflight will). */
extern bool service_props_preload(Account *a);

/* cors.c */
extern void cors_actual(Req *r, bool may_load);

/* log.c */
extern void log_request(Req *r);
extern void log_msg(const char *fmt,...) __attribute__((format(printf, 1, 2)));
extern void log_debug(const char *fmt,...) __attribute__((format(printf, 1, 2)));

/* common.c: helpers shared by the handlers */
extern const char *meta_name(MetaLevel m);	/* 'nometadata' | 'minimalmetadata' | 'fullmetadata' */
/*
 * The level an Accept header (or $format) asks for, into *m (left as it is when it names none);
 * otherwise the code of the 415 to answer: AtomFormatNotSupported for Atom/XML only,
 * JsonVerboseFormatNotSupported for odata=verbose. NULL: served.
 */
extern const char *meta_of_accept(const char *accept, MetaLevel *m);
extern bool body_text(Req *r, const char **out);	/* UTF-8, no NUL; false: 400 answered */
extern bool parse_top(Req *r, const char **out);	/* $top 1..TS_PAGE_MAX or NULL; false: 400 answered */
extern bool decode_token(Req *r, const char *param, const char **out);	/* false: 400 answered */
extern void set_token_header(Req *r, const char *header, const char *key);
extern char *entity_url(Req *r, const char *table, const char *pk, size_t pk_len, const char *rk, size_t rk_len);
extern bool prefer_no_content(const char *prefer);
extern bool header_text_ok(const char *v);	/* printable, bounded: usable as a SQL text parameter */

#endif
