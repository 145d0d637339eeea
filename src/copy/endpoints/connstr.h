/*
 * connstr.h - what FROM and TO name (connstr.c): a Table endpoint by its connection string, a
 * tablestore database by a postgres:// URI or a libpq conninfo, or a directory. Pure: no I/O, so
 * that the fuzz target (test/fuzz/fuzz_copy_connstr.c) can drive it.
 *
 * Table endpoint connection strings are Key=Value pairs separated by ';' (keys in any letter case,
 * values may hold '='):
 *   DefaultEndpointsProtocol=https;AccountName=a;AccountKey=<base64>;EndpointSuffix=core.windows.net
 *   AccountName=a;AccountKey=<base64>;TableEndpoint=http://127.0.0.1:10002/a
 *   TableEndpoint=https://a.table.core.windows.net/;SharedAccessSignature=sv=...&sig=...
 *   UseDevelopmentStorage=true[;DevelopmentStorageProxyUri=http://127.0.0.1]
 */
#ifndef COPY_CONNSTR_H
#define COPY_CONNSTR_H

#include <stdbool.h>
#include <stddef.h>

#define CONNSTR_MAX_KEY 128		/* decoded account key bytes */

typedef enum EndpointKind
{
	EP_TABLE,					/* a Table service endpoint (the service, Cosmos DB, Azurite, the gateway) */
	EP_DB,						/* a PostgreSQL database with the tablestore extension */
	EP_DIR						/* a directory of JSON Lines files and a manifest */
} EndpointKind;

typedef struct EndpointSpec
{
	EndpointKind kind;
	/* EP_TABLE */
	char	   *endpoint;		/* base URL without a trailing '/', e.g. http://127.0.0.1:10002/devstoreaccount1 */
	char	   *account;		/* account name (for Shared Key), or NULL with a SAS */
	unsigned char key[CONNSTR_MAX_KEY];
	size_t		key_len;		/* 0: no key */
	char	   *sas;			/* the SAS query string without '?', or NULL */
	/* EP_DB */
	char	   *conninfo;
	/* EP_DIR */
	char	   *path;
	/* for messages and the manifest: the spec without secrets */
	char	   *display;
} EndpointSpec;

/*
 * Parse s into *out (strings malloc'd). False with a message in err (at most errlen bytes, never
 * echoing a secret) when s is a connection string that does not make sense.
 */
extern bool connstr_parse(const char *s, EndpointSpec *out, char *err, size_t errlen);
extern void connstr_free(EndpointSpec *spec);

/* The account a Table endpoint's URL names when no AccountName is given (its first host label, or
 * its path's first segment for path-style URLs); NULL when none. malloc'd. */
extern char *connstr_account_from_url(const char *url);

#endif
