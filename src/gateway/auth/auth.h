/*
 * auth.h - request authentication: Shared Key and Shared Key Lite (Table service flavours) over the
 * raw path, HMAC-SHA256 with OpenSSL's libcrypto, either of an account's two keys.
 *
 * auth_check checks the Authorization header; shared access signatures (a "sig" query parameter
 * without an Authorization header) are sas.c's.
 */
#ifndef GW_AUTH_H
#define GW_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#define AUTH_MAX_KEY 128		/* decoded key bytes */
#define AUTH_MAX_SKEW 900		/* seconds a request's date may be from the server's clock (15 minutes, as the service) */

typedef struct AccountKeys
{
	unsigned char key[2][AUTH_MAX_KEY];
	size_t		key_len[2];		/* 0 = no such key */
} AccountKeys;

typedef enum AuthScheme
{
	AUTH_SHARED_KEY,
	AUTH_SHARED_KEY_LITE
} AuthScheme;

typedef struct AuthHeader
{
	AuthScheme	scheme;
	char		account[64];
	unsigned char sig[32];
} AuthHeader;

typedef struct AuthInput
{
	const char *method;			/* the verb as sent (after no tunnelling: signatures cover the wire verb) */
	const char *authorization;
	const char *content_md5;
	const char *content_type;
	const char *x_ms_date;
	const char *date;
	const char *account;		/* from the target */
	const char *raw_path;		/* as sent */
	const char *comp;			/* decoded ?comp= value, or NULL */
	time_t		now;			/* the server's clock: the request's date must be within AUTH_MAX_SKEW of it */
} AuthInput;

typedef enum AuthResult
{
	AUTH_OK,
	AUTH_NONE,					/* no credentials at all */
	AUTH_MALFORMED,				/* Authorization header not parseable */
	AUTH_WRONG_ACCOUNT,			/* header names another account */
	AUTH_NO_DATE,				/* neither x-ms-date nor Date */
	AUTH_BAD_DATE,				/* the date is not an RFC 1123 date ("Sun, 06 Nov 1994 08:49:37 GMT") */
	AUTH_STALE_DATE,			/* the date is more than AUTH_MAX_SKEW from now */
	AUTH_BAD_SIGNATURE
} AuthResult;

/* "SharedKey acct:base64sig" / "SharedKeyLite acct:base64sig". */
extern bool auth_parse_header(const char *h, size_t n, AuthHeader *out);

/* Decode a base64 account key; false if it is not valid base64 or too long. */
extern bool auth_decode_key(const char *b64, unsigned char *out, size_t *outlen);

/* An RFC 1123 date in GMT, as HTTP and the service write it, to seconds since 1970. */
extern bool auth_parse_date(const char *s, time_t *out);

/* Does HMAC-SHA256(key, msg) equal sig (compared in constant time)? */
extern bool auth_hmac_matches(const unsigned char *key, size_t key_len, const char *msg, const unsigned char sig[32]);

/* The string to sign for a scheme (malloc'd; the caller frees). */
extern char *auth_string_to_sign(AuthScheme scheme, const AuthInput *in);

extern AuthResult auth_check(const AuthInput *in, const AccountKeys *keys);
extern const char *auth_result_text(AuthResult r);

#endif
