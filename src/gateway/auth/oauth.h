/*
 * oauth.h - bearer tokens (Microsoft Entra ID access tokens for Azure Storage), in the mode
 * Azurite calls "--oauth basic": the JWT is decoded and its claims checked - aud (Azure Storage,
 * or this account's table endpoint), iss (an Entra ID issuer), nbf and exp (5 minutes of clock
 * skew) - and, when public keys are configured, its RS256 signature is verified with them.
 * With configured issuers (tenants), iss must be one of them exactly: Entra ID signs the tokens
 * of every tenant with the same keys. A token that passes grants what the account key grants. Pure: no libmicrohttpd, no libpq
 * (fuzzed); OpenSSL's libcrypto verifies signatures.
 */
#ifndef GW_OAUTH_H
#define GW_OAUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#define OAUTH_MAX_TOKEN 16384
#define OAUTH_MAX_KEYS 16
#define OAUTH_SKEW 300			/* seconds */

#define OAUTH_MAX_ISSUERS 16

/* What a token must match beyond its claims' own rules. */
typedef struct OAuthTrust
{
	void	   *keys[OAUTH_MAX_KEYS];	/* EVP_PKEY *: RS256 signatures required when n > 0 */
	int			n;
	char	   *issuers[OAUTH_MAX_ISSUERS];	/* iss must be one of them exactly when nissuers > 0 */
	int			nissuers;
} OAuthTrust;

typedef enum OAuthResult
{
	OAUTH_OK,
	OAUTH_MALFORMED,			/* not "Bearer <header>.<payload>.<signature>", or its JSON */
	OAUTH_NOT_YET,				/* nbf in the future */
	OAUTH_EXPIRED,
	OAUTH_ISSUER,
	OAUTH_AUDIENCE,
	OAUTH_SIGNATURE,			/* keys configured: not RS256, or no key verifies it */
	OAUTH_CLAIMS				/* exp, nbf or iat missing */
} OAuthResult;

/* Is the Authorization header a bearer token ("Bearer ...", any case)? */
extern bool oauth_is_bearer(const char *authorization);

/*
 * Check the token for the account at now. trust NULL or without keys: signatures are not checked
 * (development only); without issuers: any Entra ID issuer (any tenant) passes.
 */
extern OAuthResult oauth_check(const char *authorization, const char *account, time_t now, const OAuthTrust *keys);

extern const char *oauth_result_text(OAuthResult r);

/*
 * What identifies a bearer token whatever its spelling (the scheme's case, the spaces around it,
 * a signature's unused base64url bits): its decoded signature, else (no signature, or one that
 * does not decode: a token that cannot pass --oauth-keys) the token without the spaces around it.
 * malloc'd into *out with its length; false when it is not a bearer header or out of memory.
 */
extern bool oauth_token_identity(const char *authorization, unsigned char **out, size_t *len);

/* The issuers of a comma-separated list; false with err set. */
extern bool oauth_set_issuers(const char *list, OAuthTrust *out, char *err, size_t errlen);

/* Load the PEM public keys or certificates of a file; false with err set. */
extern bool oauth_load_keys(const char *path, OAuthTrust *out, char *err, size_t errlen);

#endif
