/*
 * gateway.h - the types every request handler shares: configuration and accounts, the request
 * (its arena, target, headers, body) and the response being built. Handlers never see
 * libmicrohttpd; listener.c copies what they need into a Req and turns the Resp into an answer.
 */
#ifndef GW_GATEWAY_H
#define GW_GATEWAY_H

#include "auth.h"
#include "oauth.h"
#include "sas.h"
#include "url.h"
#include "util.h"

#define GW_VERSION "0.1.0"
#define GW_MAX_ACCOUNTS 32
#define GW_MAX_NODES 64
#define GW_MAX_BODY (4u * 1024 * 1024)		/* request body cap: 4 MiB, as the service */
#define GW_ARENA_LIMIT (64u * 1024 * 1024)	/* per-request arena cap */

struct Pool;
typedef struct PropsCache PropsCache;
struct ServiceProps;

typedef struct Account
{
	char		name[64];
	AccountKeys keys;
	char	   *dsn;			/* libpq connection string */
	struct Pool *pool;
	PropsCache *props;			/* the service properties, cached for CORS (service.c) */
} Account;

/* A node of distributed tables: the coordinator's foreign server name and how to reach it (route.c). */
typedef struct Node
{
	char		name[64];
	char	   *dsn;
	struct Pool *pool;
} Node;

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
	int			pool_size;		/* PostgreSQL connections per account */
	int			queue_max;		/* requests waiting for a connection before 503 ServerBusy */
	int			queue_timeout_ms;	/* longest wait for a connection before 503 ServerBusy */
	int			conn_timeout_s;	/* idle client connection timeout */
	int			request_timeout_s;	/* longest time to receive one request body */
	int			statement_timeout_ms;	/* per SQL call */
	int			max_connections;	/* client connections */
	int			per_ip_connections;
	size_t		header_limit;	/* per-connection memory for the request line and headers */
	char	   *default_dsn;	/* for accounts without their own dsn */
	LogLevel	log_level;
	char	   *tls_cert;		/* PEM files: with both, the listener speaks HTTPS only */
	char	   *tls_key;
	bool		oauth;			/* bearer tokens (HTTPS only): "--oauth basic" */
	char	   *oauth_keys;		/* PEM file of public keys or certificates: RS256 signatures required */
	char	   *oauth_issuers;	/* comma-separated: the only issuers (tenants) accepted */
	OAuthTrust	token_trust;	/* loaded from oauth_keys and oauth_issuers at start-up */
	Account		accounts[GW_MAX_ACCOUNTS];
	int			naccounts;
	Node		nodes[GW_MAX_NODES];	/* --node NAME=DSN: one-partition calls go straight there */
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
} Resp;

typedef struct Req
{
	Arena		arena;
	double		start_ms;
	char	   *raw_uri;		/* request target as sent */
	const char *method;			/* wire verb */
	const char *verb;			/* effective verb (after X-HTTP-Method) */
	char		request_id[37];

	/* headers the handlers use (NULL when absent) */
	const char *host;
	const char *authorization;
	const char *x_ms_date;
	const char *date;
	const char *content_md5;
	const char *content_type;
	const char *accept;
	const char *if_match;
	const char *prefer;
	const char *x_ms_version;
	const char *client_request_id;
	const char *x_http_method;
	const char *content_length;
	const char *expect;
	const char *origin;			/* CORS */
	const char *ac_request_method;
	const char *ac_request_headers;

	Buf			body;			/* request body (at most GW_MAX_BODY) */
	bool		body_too_large;
	size_t		body_seen;		/* bytes received (also when discarded) */
	bool		headers_seen;

	char		client_ip[64];	/* the peer's address as text ("" if unknown) */

	Target		target;
	bool		target_ok;
	Account    *account;
	const Sas  *sas;			/* the verified shared access signature, NULL with Shared Key */
	Sas			sas_storage;
	const char *key_scope;		/* the SAS's key range as a text[] literal for the REST functions, or NULL */
	MetaLevel	meta;
	bool		xml;			/* errors in XML (service resources) */
	char	   *base;			/* base URL as addressed, for odata.metadata */

	Resp		resp;
} Req;

/* response.c */
extern void resp_header(Req *r, const char *name, const char *value);
extern void resp_json(Req *r, int status, const char *json, size_t len);
extern void resp_empty(Req *r, int status);
extern void resp_xml(Req *r, int status, Buf *doc);	/* takes the document's buffer */
extern void resp_error(Req *r, const char *code, const char *fmt,...) __attribute__((format(printf, 3, 4)));
extern void resp_error_status(Req *r, int status, const char *code, const char *message);
extern const char *meta_content_type(MetaLevel m);
extern void resp_common_headers(Req *r);
extern void error_body_json(Buf *b, const char *code, const char *message, const char *request_id);

/* errors.c */
extern int	error_status(const char *code);
extern const char *http_reason(int status);
extern const char *error_code_lookup(const char *code, size_t n, int *status);	/* static name or NULL */
extern const char *sqlstate_code(const char *sqlstate, int *status);

/* router.c */
extern void router_dispatch(Req *r);
/* With a SAS: may it do op on table? false: answered 403. */
extern bool router_sas_allows(Req *r, SasOp op, const char *table);

/* handlers */
extern void tables_handle(Req *r);
extern void entities_handle(Req *r);
extern void batch_handle(Req *r);
extern void service_handle(Req *r);
extern PropsCache *props_cache_create(void);
/* The account's service properties (cached; allocated in r's arena). false: out of memory. */
extern bool service_props_current(Req *r, struct ServiceProps *out);

/* cors.c */
extern void cors_preflight(Req *r);
extern void cors_actual(Req *r);
extern void acl_handle(Req *r);

/* log.c */
extern void log_request(Req *r);
extern void log_msg(const char *fmt,...) __attribute__((format(printf, 1, 2)));
extern void log_debug(const char *fmt,...) __attribute__((format(printf, 1, 2)));

/* common.c: helpers shared by the handlers */
extern const char *meta_name(MetaLevel m);	/* 'nometadata' | 'minimalmetadata' | 'fullmetadata' */
/* The level an Accept header asks for, into *m (left as it is when it names none); false: Atom only. */
extern bool meta_of_accept(const char *accept, MetaLevel *m);
extern bool body_text(Req *r, const char **out);	/* UTF-8, no NUL; false: 400 answered */
extern bool parse_top(Req *r, const char **out);	/* $top 1..1000 or NULL; false: 400 answered */
extern bool decode_token(Req *r, const char *param, const char **out);	/* false: 400 answered */
extern void set_token_header(Req *r, const char *header, const char *key);
extern char *entity_url(Req *r, const char *table, const char *pk, size_t pk_len, const char *rk, size_t rk_len);
extern bool prefer_no_content(const char *prefer);
extern bool header_text_ok(const char *v);	/* printable, bounded: usable as a SQL text parameter */

#endif
