/*
 * auth.c - Shared Key / Shared Key Lite verification (see auth.h).
 *
 * Table service string to sign:
 *   Shared Key:      VERB \n Content-MD5 \n Content-Type \n Date \n CanonicalizedResource
 *   Shared Key Lite: Date \n CanonicalizedResource
 * Date is x-ms-date when present, else Date. CanonicalizedResource is "/" account + the raw path
 * (so path-style URLs name the account twice) + "?comp=" value when the query has comp.
 */
#include "auth.h"
#include "util.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdlib.h>
#include <string.h>

bool
auth_parse_header(const char *h, size_t n, AuthHeader *out)
{
	size_t		i,
				colon,
				acct_start;
	unsigned char sig[48];
	long		len;

	memset(out, 0, sizeof(*out));
	if (n >= 14 && memcmp(h, "SharedKeyLite ", 14) == 0)
	{
		out->scheme = AUTH_SHARED_KEY_LITE;
		i = 14;
	}
	else if (n >= 10 && memcmp(h, "SharedKey ", 10) == 0)
	{
		out->scheme = AUTH_SHARED_KEY;
		i = 10;
	}
	else
		return false;
	while (i < n && h[i] == ' ')
		i++;
	acct_start = i;
	for (colon = i; colon < n && h[colon] != ':'; colon++)
		;
	if (colon == n || colon == acct_start || colon - acct_start >= sizeof(out->account))
		return false;
	memcpy(out->account, h + acct_start, colon - acct_start);
	out->account[colon - acct_start] = '\0';
	i = colon + 1;
	/* trailing spaces are tolerated */
	while (n > i && h[n - 1] == ' ')
		n--;
	if (n - i != 44)			/* base64 of 32 bytes */
		return false;
	len = b64_decode(h + i, n - i, sig, sizeof(sig));
	if (len != 32)
		return false;
	memcpy(out->sig, sig, 32);
	return true;
}

bool
auth_decode_key(const char *b64, unsigned char *out, size_t *outlen)
{
	long		len = b64_decode(b64, strlen(b64), out, AUTH_MAX_KEY);

	if (len <= 0)
		return false;
	*outlen = (size_t) len;
	return true;
}

static const char *
nz(const char *s)
{
	return s ? s : "";
}

char *
auth_string_to_sign(AuthScheme scheme, const AuthInput *in)
{
	Buf			b;
	const char *date = in->x_ms_date ? in->x_ms_date : in->date;

	buf_init(&b);
	if (scheme == AUTH_SHARED_KEY)
	{
		buf_puts(&b, nz(in->method));
		buf_puts(&b, "\n");
		buf_puts(&b, nz(in->content_md5));
		buf_puts(&b, "\n");
		buf_puts(&b, nz(in->content_type));
		buf_puts(&b, "\n");
	}
	buf_puts(&b, nz(date));
	buf_puts(&b, "\n/");
	buf_puts(&b, nz(in->account));
	buf_puts(&b, nz(in->raw_path));
	if (in->comp)
	{
		buf_puts(&b, "?comp=");
		buf_puts(&b, in->comp);
	}
	if (b.failed)
	{
		buf_free(&b);
		return NULL;
	}
	return buf_steal(&b);
}

static bool
hmac_matches(const unsigned char *key, size_t key_len, const char *msg, const unsigned char sig[32])
{
	unsigned char mac[EVP_MAX_MD_SIZE];
	unsigned int mac_len = 0;

	if (HMAC(EVP_sha256(), key, (int) key_len, (const unsigned char *) msg, strlen(msg), mac, &mac_len) == NULL ||
		mac_len != 32)
		return false;
	return CRYPTO_memcmp(mac, sig, 32) == 0;
}

AuthResult
auth_check(const AuthInput *in, const AccountKeys *keys)
{
	AuthHeader	h;
	char	   *sts;
	bool		ok = false;

	if (in->authorization == NULL)
		return in->has_sig_param ? AUTH_SAS_UNSUPPORTED : AUTH_NONE;
	if (!auth_parse_header(in->authorization, strlen(in->authorization), &h))
		return AUTH_MALFORMED;
	if (in->account == NULL || strcmp(h.account, in->account) != 0)
		return AUTH_WRONG_ACCOUNT;
	if (in->x_ms_date == NULL && in->date == NULL)
		return AUTH_NO_DATE;
	sts = auth_string_to_sign(h.scheme, in);
	if (sts == NULL)
		return AUTH_BAD_SIGNATURE;
	for (int k = 0; k < 2 && !ok; k++)
		if (keys->key_len[k] > 0)
			ok = hmac_matches(keys->key[k], keys->key_len[k], sts, h.sig);
	free(sts);
	return ok ? AUTH_OK : AUTH_BAD_SIGNATURE;
}

const char *
auth_result_text(AuthResult r)
{
	switch (r)
	{
		case AUTH_OK:
			return "authenticated";
		case AUTH_NONE:
			return "the request carries no Authorization header";
		case AUTH_MALFORMED:
			return "the Authorization header is malformed (expected SharedKey or SharedKeyLite account:signature)";
		case AUTH_WRONG_ACCOUNT:
			return "the Authorization header names another account";
		case AUTH_NO_DATE:
			return "the request has neither an x-ms-date nor a Date header";
		case AUTH_BAD_SIGNATURE:
			return "the MAC signature found in the request is not the same as any computed signature";
		case AUTH_SAS_UNSUPPORTED:
			return "shared access signatures are not supported by this gateway yet";
	}
	return "authentication failed";
}
