/*
 * props.h - the service properties document (Get/Set Table Service Properties): logging, hour and
 * minute metrics, CORS rules; parsed strictly with xml.c, merged (a Set replaces only the
 * elements it names), rendered; and the CORS rules' matching of an origin, a method and
 * request headers. Pure: no libmicrohttpd, no libpq (fuzzed).
 */
#ifndef GW_PROPS_H
#define GW_PROPS_H

#include "util.h"

#define PROPS_MAX_CORS 5
#define PROPS_MAX_LIST 64		/* origins or headers in one rule */
#define PROPS_MAX_ORIGIN 1024	/* a longer Origin matches no wildcard (no host name is that long) */
#define PROPS_MAX_DOCUMENT 65536	/* the stored document's cap (tablestore.service_properties) */

typedef struct Retention
{
	bool		enabled;
	int			days;			/* 1-365 when enabled */
} Retention;

typedef struct LoggingProps
{
	bool		set;
	char	   *version;
	bool		del,
				read,
				write;
	Retention	retention;
} LoggingProps;

typedef struct MetricsProps
{
	bool		set;
	char	   *version;
	bool		enabled;
	bool		include_apis;	/* only when enabled */
	Retention	retention;
} MetricsProps;

typedef struct CorsRule
{
	char	   *origins;		/* comma-separated, or "*" */
	char	   *methods;
	char	   *allowed_headers;
	char	   *exposed_headers;
	int			max_age;
} CorsRule;

typedef struct ServiceProps
{
	LoggingProps logging;
	MetricsProps hour;
	MetricsProps minute;
	bool		cors_set;
	CorsRule	cors[PROPS_MAX_CORS];
	int			ncors;
} ServiceProps;

/* Logging, metrics and CORS off: what an account has before its first Set. */
extern void props_default(ServiceProps *p);

/* Parse a StorageServiceProperties document; false: *err a fixed reason. */
extern bool props_parse(Arena *a, const char *xml, size_t n, ServiceProps *out, const char **err);

/* The elements update names replace base's. */
extern void props_merge(ServiceProps *base, const ServiceProps *update);

extern void props_render(Buf *b, const ServiceProps *p);

/* A deep copy into an arena; false when the arena is full. */
extern bool props_copy(Arena *a, const ServiceProps *src, ServiceProps *dst);

/*
 * The first CORS rule allowing origin, method and every header of request_headers (a
 * comma-separated list, or NULL); NULL when none does. An allowed origin is "*", an origin, or an
 * origin with wildcards ('*': one or more characters; a path after the host is ignored), all
 * compared ignoring ASCII case.
 */
extern const CorsRule *props_cors_match(const ServiceProps *p, const char *origin, const char *method,
										const char *request_headers);

/*
 * The rule's exposed headers as Access-Control-Expose-Headers lists them, appended to out: each
 * entry as written, except that an entry ending in '*' (x-ms-*) becomes the names among
 * names[0..n) (the response's headers) that start with it - browsers take no wildcard there.
 */
extern void props_cors_expose(const CorsRule *c, const char *const *names, int n, Buf *out);

#endif
