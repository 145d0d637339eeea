/*
 * continuation.c - encode and strictly decode continuation tokens (see continuation.h).
 */
#include "continuation.h"

#include <stdio.h>
#include <string.h>

/* URL-safe spelling of the standard alphabet: '+' -> '.', '/' -> '_', '=' -> '-' */
static char
to_url(char c)
{
	return c == '+' ? '.' : c == '/' ? '_' : c == '=' ? '-' : c;
}

static int
from_url(char c)
{
	if (c == '.')
		return '+';
	if (c == '_')
		return '/';
	if (c == '-')
		return '=';
	if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
		return c;
	return -1;
}

char *
cont_encode(Arena *a, const char *key, size_t n)
{
	size_t		blen = edm_base64_encoded_len(n);
	char	   *b64 = arena_alloc(a, blen + 1);
	char	   *out;

	if (b64 == NULL)
		return NULL;
	edm_base64_encode((const uint8 *) key, n, b64);
	b64[blen] = '\0';
	for (size_t i = 0; i < blen; i++)
		b64[i] = to_url(b64[i]);
	out = arena_printf(a, "1!%zu!%s", blen, b64);
	return out;
}

bool
cont_decode(Arena *a, const char *tok, size_t n, char **key, size_t *keylen)
{
	size_t		i = 2,
				len = 0;
	char	   *std;
	unsigned char *out;
	long		dlen;

	if (n < 4 || tok[0] != '1' || tok[1] != '!')
		return false;
	/* decimal length, no leading zeros except "0" itself, at most 5 digits */
	if (tok[i] < '0' || tok[i] > '9' || (tok[i] == '0' && i + 1 < n && tok[i + 1] != '!'))
		return false;
	while (i < n && tok[i] >= '0' && tok[i] <= '9')
	{
		if (i - 2 >= 5)
			return false;
		len = len * 10 + (size_t) (tok[i] - '0');
		i++;
	}
	if (i >= n || tok[i] != '!')
		return false;
	i++;
	if (n - i != len || len % 4 != 0 || len / 4 * 3 > CONT_MAX_KEY + 2)
		return false;
	std = arena_alloc(a, len + 1);
	out = arena_alloc(a, len / 4 * 3 + 1);
	if (std == NULL || out == NULL)
		return false;
	for (size_t k = 0; k < len; k++)
	{
		int			c = from_url(tok[i + k]);

		if (c < 0)
			return false;
		std[k] = (char) c;
	}
	dlen = b64_decode(std, len, out, len / 4 * 3);
	if (dlen < 0 || (size_t) dlen > CONT_MAX_KEY)
		return false;
	if (memchr(out, '\0', (size_t) dlen) != NULL || !edm_utf8_valid((const char *) out, (size_t) dlen))
		return false;
	out[dlen] = '\0';
	*key = (char *) out;
	*keylen = (size_t) dlen;
	return true;
}
