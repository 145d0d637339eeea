/*
 * fuzz_gw_sas.c - libFuzzer target: shared access signature parsing and verification
 * (src/gateway/auth/sas.c) over arbitrary query strings and client addresses.
 *
 * Input: "<client address>\n<query string>". Properties: verification never crashes; a SAS is
 * accepted only when its sig is the HMAC of its string to sign with the key; the same query
 * signed here is never refused for its signature; a parsed time is a second at or after 1970;
 * what an accepted SAS allows is decided for every operation without crashing.
 */
#include <openssl/hmac.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"
#include "sas.h"
#include "util.h"

int			LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

#define CHECK(cond, what) do { if (!(cond)) { fprintf(stderr, "fuzz property failed: %s\n", what); abort(); } } while (0)

static bool
signed_by(const AccountKeys *keys, const char *sts, const char *sig)
{
	unsigned char mac[32],
				want[48];
	unsigned int ml = 0;

	if (sig == NULL || strlen(sig) != 44 || b64_decode(sig, 44, want, sizeof(want)) != 32)
		return false;
	HMAC(EVP_sha256(), keys->key[0], (int) keys->key_len[0], (const unsigned char *) sts, strlen(sts), mac, &ml);
	return memcmp(mac, want, 32) == 0;
}

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	Arena		a;
	const char *nl;
	char	   *ip,
			   *qs;
	Query		q = {0};
	const char *err = NULL;
	AccountKeys keys = {0};
	SasInput	in = {0};
	Sas			sas;
	SasResult	r;
	time_t		t;

	if (size > 65536)
		return 0;
	arena_init(&a, 16 * 1024 * 1024);
	nl = memchr(data, '\n', size);
	ip = arena_strndup(&a, (const char *) data, nl ? (size_t) (nl - (const char *) data) : 0);
	qs = nl ? arena_strndup(&a, nl + 1, size - (size_t) (nl + 1 - (const char *) data))
		: arena_strndup(&a, (const char *) data, size);
	if (ip == NULL || qs == NULL || !query_parse(&a, qs, strlen(qs), &q, &err))
	{
		arena_free(&a);
		return 0;
	}
	auth_decode_key("Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
					keys.key[0], &keys.key_len[0]);
	in.query = &q;
	in.account = "devstoreaccount1";
	in.client_ip = ip[0] ? ip : NULL;
	in.https = size % 2 == 0;
	in.now = 1700000000;

	r = sas_verify(&in, &keys, NULL, &sas);
	CHECK(sas_result_code(r) != NULL && sas_result_text(r) != NULL, "every result has a code and a text");
	if (r == SAS_OK)
	{
		char	   *sts = sas_string_to_sign(&in, sas.kind);

		CHECK(sts != NULL && signed_by(&keys, sts, query_get(&q, "sig")), "accepted only with the key's signature");
		free(sts);
		for (int op = 0; op < OP__COUNT; op++)
		{
			const char *why = NULL;
			const char *code = sas_allows(&sas, &ops_def((OpId) op)->sas, query_get(&q, "tn"), &why);

			CHECK(code == NULL || why != NULL, "a refusal says why");
		}
	}
	if (sas_parse_time(query_get(&q, "se"), &t))
		CHECK(t >= 0, "a parsed time is at or after 1970");

	/* sign the same query properly: the signature is then never what is refused */
	for (int kind = SAS_SERVICE; kind <= SAS_ACCOUNT; kind++)
	{
		char	   *sts = sas_string_to_sign(&in, (SasKind) kind);
		unsigned char mac[32];
		unsigned int ml = 0;
		char		b64[64];

		if (sts == NULL)
			continue;
		HMAC(EVP_sha256(), keys.key[0], (int) keys.key_len[0], (unsigned char *) sts, strlen(sts), mac, &ml);
		edm_base64_encode(mac, 32, b64);
		b64[44] = '\0';
		free(sts);
		for (int i = 0; i < q.n; i++)
			if (strcmp(q.items[i].name, "sig") == 0)
			{
				q.items[i].value = arena_strdup(&a, b64);
				q.items[i].value_len = strlen(b64);
			}
		if (query_get(&q, "sig") != NULL && (kind == SAS_SERVICE) == (query_get(&q, "tn") != NULL) &&
			strcmp(query_get(&q, "sig"), b64) == 0)
			CHECK(sas_verify(&in, &keys, NULL, &sas) != SAS_BAD_SIGNATURE, "a correct signature is not refused as a signature");
	}
	arena_free(&a);
	return 0;
}
