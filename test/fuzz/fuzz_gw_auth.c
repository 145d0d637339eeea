/*
 * fuzz_gw_auth.c - libFuzzer target: Authorization header parsing and Shared Key checking
 * (src/gateway/auth/auth.c), and the x-ms-version rule (src/gateway/protocol/version.c) over the date line.
 *
 * Input: "<Authorization>\n<x-ms-date>\n<raw path>". Properties: a parsed header names an
 * account of 1..63 characters; checking never crashes and accepts only a signature computed
 * with the key; a signature computed here over the same input is accepted.
 */
#include <openssl/hmac.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "util.h"
#include "version.h"

int			LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

#define CHECK(cond, what) do { if (!(cond)) { fprintf(stderr, "fuzz property failed: %s\n", what); abort(); } } while (0)

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	Arena		a;
	char	   *parts[3] = {NULL, NULL, NULL};
	const char *p = (const char *) data;
	size_t		left = size;
	AuthHeader	h;
	AccountKeys keys = {0};
	AuthInput	in = {0};
	AuthResult	r;

	if (size > 65536)
		return 0;
	arena_init(&a, 16 * 1024 * 1024);
	for (int i = 0; i < 3; i++)
	{
		const char *nl = memchr(p, '\n', left);
		size_t		n = nl ? (size_t) (nl - p) : left;

		parts[i] = arena_strndup(&a, p, n);
		p += n + (nl ? 1 : 0);
		left -= n + (nl ? 1 : 0);
		if (!nl)
			break;
	}
	if (auth_parse_header(parts[0], strlen(parts[0]), &h))
		CHECK(h.account[0] != '\0' && strlen(h.account) < sizeof(h.account), "a parsed header names an account");

	auth_decode_key("Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
					keys.key[0], &keys.key_len[0]);
	in.method = "GET";
	in.authorization = parts[0];
	in.x_ms_date = parts[1];
	in.account = "devstoreaccount1";
	in.raw_path = parts[2] ? parts[2] : "/";
	in.now = 0;
	{
		time_t		when;
		bool		dated = auth_parse_date(parts[1], &when);

		/* a parsed date is a real calendar second at or after 1970, fixed width */
		CHECK(!dated || (when >= 0 && strlen(parts[1]) == 29), "a parsed date is well-formed");
		/* the same line as an x-ms-version (version.c): an accepted version is a YYYY-MM-DD date */
		if (parts[1] && version_accepted(parts[1], strlen(parts[1])))
			CHECK(strlen(parts[1]) == 10 && parts[1][4] == '-' && parts[1][7] == '-' && parts[1][0] >= '0' && parts[1][0] <= '9',
				  "an accepted version is a date");
		if (dated)
			in.now = when + (time_t) (size % (2 * AUTH_MAX_SKEW + 1)) - AUTH_MAX_SKEW;
	}
	r = auth_check(&in, &keys);
	CHECK(r != AUTH_OK || auth_parse_header(parts[0], strlen(parts[0]), &h), "accepted only with a parseable header");

	/* sign it properly: must be accepted */
	{
		char	   *sts;
		unsigned char mac[32];
		unsigned int ml = 0;
		char		b64[64],
					hdr[128];

		in.authorization = NULL;
		if (in.x_ms_date == NULL)
			in.x_ms_date = "";
		sts = auth_string_to_sign(AUTH_SHARED_KEY, &in);
		CHECK(sts != NULL, "a string to sign");
		HMAC(EVP_sha256(), keys.key[0], (int) keys.key_len[0], (unsigned char *) sts, strlen(sts), mac, &ml);
		edm_base64_encode(mac, 32, b64);
		b64[44] = '\0';
		snprintf(hdr, sizeof(hdr), "SharedKey devstoreaccount1:%s", b64);
		in.authorization = hdr;
		r = auth_check(&in, &keys);
		if (auth_parse_date(in.x_ms_date, &(time_t) {0}))
			CHECK(r == AUTH_OK, "a correct signature with a date within 15 minutes is accepted");
		else
			CHECK(r == AUTH_BAD_DATE, "a correct signature with no valid date is refused");
		free(sts);
	}
	arena_free(&a);
	return 0;
}
