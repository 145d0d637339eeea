/*
 * oauth.h - bearer tokens (Microsoft Entra ID access tokens for Azure Storage), in the mode
 * Azurite calls "--oauth basic": the JWT is decoded and its claims checked - aud (Azure Storage,
 * or this account's table endpoint), iss (an Entra ID issuer), nbf and exp (5 minutes of clock
 * skew) - and, when public keys are configured, its RS256 signature is verified with them.
 * A token that passes grants what the account key grants. Pure: no libmicrohttpd, no libpq
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

typedef struct OAuthKeys
{
	void	   *keys[OAUTH_MAX_KEYS];	/* EVP_PKEY * */
	int			n;
} OAuthKeys;

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

/* Check the token for the account at now; keys NULL or empty: signatures are not checked. */
extern OAuthResult oauth_check(const char *authorization, const char *account, time_t now, const OAuthKeys *keys);

extern const char *oauth_result_text(OAuthResult r);

/* Load the PEM public keys or certificates of a file; false with err set. */
extern bool oauth_load_keys(const char *path, OAuthKeys *out, char *err, size_t errlen);

#endif
