/*
 * fuzz_gw_oauth.c - libFuzzer target: bearer tokens (src/gateway/auth/oauth.c): the JWT split, the
 * base64url decoding and the claims' JSON reader.
 *
 * Input: any bytes, used twice: as the whole Authorization header after "Bearer ", and as the
 * payload JSON of a token with a fixed header. Properties: checking never crashes and answers one
 * of its results with a text; a token valid at one time is not expired at an earlier one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oauth.h"
#include "util.h"

int			LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

#define CHECK(cond, what) do { if (!(cond)) { fprintf(stderr, "fuzz property failed: %s\n", what); abort(); } } while (0)

static char *
b64url(const unsigned char *in, size_t n)
{
	char	   *out = malloc(edm_base64_encoded_len(n) + 1);
	size_t		o = 0;

	edm_base64_encode(in, n, out);
	out[edm_base64_encoded_len(n)] = '\0';
	for (size_t i = 0; out[i]; i++)
	{
		if (out[i] == '=')
			break;
		out[o++] = out[i] == '+' ? '-' : out[i] == '/' ? '_' : out[i];
	}
	out[o] = '\0';
	return out;
}

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static const char head[] = "{\"alg\":\"none\",\"typ\":\"JWT\"}";
	char	   *h,
			   *p,
			   *auth;
	OAuthResult r;

	if (size > 8192)
		return 0;
	auth = malloc(size + 8);
	memcpy(auth, "Bearer ", 7);
	memcpy(auth + 7, data, size);
	auth[size + 7] = '\0';
	if (strlen(auth) == size + 7)
	{
		r = oauth_check(auth, "devstoreaccount1", 1700000000, NULL);
		CHECK(oauth_result_text(r) != NULL, "a text for every result");
	}
	free(auth);

	h = b64url((const unsigned char *) head, strlen(head));
	p = b64url(data, size);
	auth = malloc(strlen(h) + strlen(p) + 16);
	sprintf(auth, "Bearer %s.%s.", h, p);
	r = oauth_check(auth, "devstoreaccount1", 1700000000, NULL);
	CHECK(oauth_result_text(r) != NULL, "a text for every result");
	/* the same token long before any plausible nbf: never accepted unless nbf is absurdly early */
	if (r == OAUTH_OK)
		CHECK(oauth_check(auth, "devstoreaccount1", 0, NULL) != OAUTH_EXPIRED, "a token valid now was not expired in 1970");
	free(auth);
	free(h);
	free(p);
	return 0;
}
