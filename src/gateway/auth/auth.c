/*
 * auth.c - Shared Key / Shared Key Lite verification (see auth.h).
 *
 * The string to sign is core/protocol/sign.c's (sign_shared_key), which tablestore-copy signs with too;
 * Date is x-ms-date when present, else Date.
 * The date must be an RFC 1123 date within 15 minutes of the server's clock, as the service
 * requires, so that a captured request cannot be replayed later.
 */
#include "auth.h"
#include "sign.h"
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

char *
auth_string_to_sign(AuthScheme scheme, const AuthInput *in)
{
	Buf			b;
	SignRequest r = {
		.method = in->method,
		.content_md5 = in->content_md5,
		.content_type = in->content_type,
		.date = in->x_ms_date ? in->x_ms_date : in->date,
		.account = in->account,
		.raw_path = in->raw_path,
		.comp = in->comp,
	};

	buf_init(&b);
	sign_shared_key(buf_put, &b, scheme == AUTH_SHARED_KEY ? SIGN_SHARED_KEY : SIGN_SHARED_KEY_LITE, &r);
	if (b.failed)
	{
		buf_free(&b);
		return NULL;
	}
	return buf_steal(&b);
}

bool
auth_hmac_matches(const unsigned char *key, size_t key_len, const char *msg, const unsigned char sig[32])
{
	unsigned char mac[EVP_MAX_MD_SIZE];
	unsigned int mac_len = 0;

	if (HMAC(EVP_sha256(), key, (int) key_len, (const unsigned char *) msg, strlen(msg), mac, &mac_len) == NULL ||
		mac_len != 32)
		return false;
	return CRYPTO_memcmp(mac, sig, 32) == 0;
}

bool
auth_parse_date(const char *s, time_t *out)
{
	static const char *const wdays = "Mon,Tue,Wed,Thu,Fri,Sat,Sun,";
	static const char *const months = "JanFebMarAprMayJunJulAugSepOctNovDec";
	int			day,
				mon = -1,
				year,
				hh,
				mm,
				ss;
	const char *p = s;

	/* "Www, DD Mon YYYY HH:MM:SS GMT", exactly 29 characters */
	if (s == NULL || strlen(s) != 29 || p[3] != ',' || p[4] != ' ' || p[7] != ' ' || p[11] != ' ' ||
		p[16] != ' ' || p[19] != ':' || p[22] != ':' || p[25] != ' ' || memcmp(p + 26, "GMT", 3) != 0)
		return false;
	for (int i = 0; i < 7 && mon < 0; i++)
		if (memcmp(wdays + i * 4, p, 4) == 0)
			mon = 0;
	if (mon < 0)
		return false;
	mon = -1;
	for (int i = 0; i < 12; i++)
		if (memcmp(months + i * 3, p + 8, 3) == 0)
			mon = i;
	if (mon < 0 || !edm_parse_digits(p + 5, 2, &day) || !edm_parse_digits(p + 12, 4, &year) || !edm_parse_digits(p + 17, 2, &hh) ||
		!edm_parse_digits(p + 20, 2, &mm) || !edm_parse_digits(p + 23, 2, &ss) || day < 1 || day > edm_days_in_month(year, mon + 1) ||
		year < 1970 || hh > 23 || mm > 59 || ss > 60)
		return false;
	*out = (time_t) edm_unix_from_civil(year, mon + 1, day, hh, mm, ss);
	return true;
}

AuthResult
auth_check(const AuthInput *in, const AccountKeys *keys)
{
	AuthHeader	h;
	char	   *sts;
	bool		ok = false;
	time_t		when;

	if (in->authorization == NULL)
		return AUTH_NONE;
	if (!auth_parse_header(in->authorization, strlen(in->authorization), &h))
		return AUTH_MALFORMED;
	if (in->account == NULL || strcmp(h.account, in->account) != 0)
		return AUTH_WRONG_ACCOUNT;
	if (in->x_ms_date == NULL && in->date == NULL)
		return AUTH_NO_DATE;
	if (!auth_parse_date(in->x_ms_date ? in->x_ms_date : in->date, &when))
		return AUTH_BAD_DATE;
	if (when < in->now - AUTH_MAX_SKEW || when > in->now + AUTH_MAX_SKEW)
		return AUTH_STALE_DATE;
	sts = auth_string_to_sign(h.scheme, in);
	if (sts == NULL)
		return AUTH_BAD_SIGNATURE;
	for (int k = 0; k < 2 && !ok; k++)
		if (keys->key_len[k] > 0)
			ok = auth_hmac_matches(keys->key[k], keys->key_len[k], sts, h.sig);
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
		case AUTH_BAD_DATE:
			return "the request's date (x-ms-date, else Date) is not an RFC 1123 date such as \"Sun, 06 Nov 1994 08:49:37 GMT\"";
		case AUTH_STALE_DATE:
			return "the request's date (x-ms-date, else Date) is more than 15 minutes from the server's clock";
		case AUTH_BAD_SIGNATURE:
			return "the MAC signature found in the request is not the same as any computed signature";
	}
	return "authentication failed";
}
