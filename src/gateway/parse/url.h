/*
 * url.h - request-target parsing: path-style and host-style addressing, percent-decoding (once),
 * the resource forms of the Table service (Tables, Tables('t'), t, t(), t(PartitionKey='..',
 * RowKey='..'), $batch, the service root) and query strings.
 * Pure functions over an arena; no libmicrohttpd, no libpq (linked by the fuzz targets).
 */
#ifndef GW_URL_H
#define GW_URL_H

#include "util.h"

typedef struct QueryParam
{
	char	   *name;			/* decoded */
	char	   *value;			/* decoded */
	size_t		value_len;
} QueryParam;

typedef struct Query
{
	QueryParam *items;
	int			n;
} Query;

typedef enum ResKind
{
	RES_SERVICE,				/* the account root: ?restype=service&comp=... */
	RES_TABLES,					/* Tables */
	RES_TABLES_ONE,				/* Tables('name') */
	RES_TABLE,					/* name or name() */
	RES_ENTITY,					/* name(PartitionKey='..',RowKey='..') */
	RES_BATCH					/* $batch */
} ResKind;

typedef struct Target
{
	char	   *account;		/* NULL until known */
	bool		host_style;
	bool		secondary;		/* "<account>-secondary" (path or host): the read-only secondary endpoint */
	char	   *raw_path;		/* the path as sent (no query), what signatures cover */
	ResKind		kind;
	char	   *table;			/* TABLES_ONE, TABLE, ENTITY */
	bool		table_parens;	/* "t()" */
	char	   *pk;				/* ENTITY */
	size_t		pk_len;
	char	   *rk;
	size_t		rk_len;
	Query		query;
} Target;

/* Callback telling whether a name is a configured account. */
typedef bool (*AccountCheck) (const char *name, size_t len, void *cls);

/*
 * Percent-decode s[0..n) once into a NUL-terminated arena string. Returns NULL on a malformed
 * escape or a decoded NUL byte (the caller answers 400). A '+' stays a '+' here (paths); in a
 * query string (query_parse) it is a space, as form encoding writes it: the SDKs send %20, but
 * with a shared access signature the JS SDK rebuilds the query with URLSearchParams, which writes
 * '+' (and a real '+' as %2B).
 */
extern char *pct_decode(Arena *a, const char *s, size_t n, size_t *outlen);

/* Parse "a=b&c=d" (decoded once, '+' as a space). false: malformed escape (err set). */
extern bool query_parse(Arena *a, const char *qs, size_t n, Query *out, const char **err);
extern const char *query_get(const Query *q, const char *name);	/* first match, exact name; NULL if absent */
extern bool query_has(const Query *q, const char *name);

/*
 * Parse a request target (origin-form "/p?q" or absolute-form "http://h/p?q") with its Host header.
 * One trailing '/' after the resource is no part of it (Tables/, t()/); raw_path keeps it.
 * The account is the first path segment if that names an account (path-style), else the Host's
 * first label if that does (host-style), else the first path segment (unknown account: the caller
 * refuses it). On failure returns false with *err a short reason (never echoing the input).
 */
extern bool target_parse(Arena *a, const char *raw, size_t raw_len, const char *host,
						 AccountCheck is_account, void *cls, Target *t, const char **err);

/*
 * Parse the resource part (decoded, after the account) into t->kind/table/pk/rk.
 */
extern bool resource_parse(Arena *a, const char *res, size_t n, Target *t, const char **err);

/* Strip "scheme://authority" from an absolute URL; returns the origin-form start ("/" if none). */
extern const char *url_origin_form(const char *url, size_t n, size_t *outlen);

#endif
