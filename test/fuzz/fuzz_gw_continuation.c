/*
 * fuzz_gw_continuation.c - libFuzzer target: continuation tokens (src/gateway/parse/continuation.c).
 *
 * Properties: an accepted token decodes to UTF-8 without NUL and re-encodes to exactly the same
 * token (one spelling per key, so a tampered token is refused); any UTF-8 key without NUL
 * encodes to a URL-safe token that decodes back to it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "continuation.h"

int			LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

#define CHECK(cond, what) do { if (!(cond)) { fprintf(stderr, "fuzz property failed: %s\n", what); abort(); } } while (0)

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	Arena		a;
	char	   *key;
	size_t		len;

	if (size > 16384)
		return 0;
	arena_init(&a, 16 * 1024 * 1024);
	if (cont_decode(&a, (const char *) data, size, &key, &len))
	{
		char	   *again = cont_encode(&a, key, len);

		CHECK(edm_utf8_valid((const char *) key, len) && strlen(key) == len, "a decoded key is UTF-8 without NUL");
		CHECK(again && strlen(again) == size && memcmp(again, data, size) == 0, "decode then encode gives the same token");
	}
	if (size <= CONT_MAX_KEY && edm_utf8_valid((const char *) data, size) && memchr(data, '\0', size) == NULL)
	{
		char	   *tok = cont_encode(&a, (const char *) data, size);

		CHECK(tok != NULL, "a token");
		for (const char *p = tok; *p; p++)
			CHECK((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
				  *p == '!' || *p == '.' || *p == '_' || *p == '-', "the token is URL-safe");
		CHECK(cont_decode(&a, tok, strlen(tok), &key, &len), "an encoded key decodes");
		CHECK(len == size && memcmp(key, data, size) == 0, "and gives the key back");
	}
	arena_free(&a);
	return 0;
}
