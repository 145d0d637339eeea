/*
 * fuzz_gw_framing.c - libFuzzer target: a request's framing and singleton headers
 * (src/gateway/protocol/framing.c), the pure rule listener.c applies to every header block.
 *
 * Input: a first byte (bit 0: HTTP/1.0; bit 1: give the parser's measured lengths as if a NUL cut
 * one value), then header lines as "name\0value\0" pairs (at most 64). Properties: the rule never
 * crashes; a refusal always says why; and what must be refused is: two Content-Length, both
 * Content-Length and Transfer-Encoding, two Transfer-Encoding, a name that is not a token, a
 * singleton header twice (any case), HTTP/1.1 without Host, Transfer-Encoding in HTTP/1.0, a NUL
 * inside a value. The singleton list ends where it says.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "framing.h"

int			LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

#define CHECK(cond, what) do { if (!(cond)) { fprintf(stderr, "fuzz property failed: %s\n", what); abort(); } } while (0)

static int
is_token(const char *s)
{
	if (*s == '\0')
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || strchr("!#$%&'*+-.^_`|~", *s)))
			return 0;
	return 1;
}

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char	   *buf,
			   *names[64],
			   *vals[64];
	int			n = 0,
				cl = 0,
				te = 0,
				host = 0,
				must = 0;
	bool		http10,
				nul,
				refused;
	Framing		f;
	char		why[160];

	if (size < 1)
		return 0;
	http10 = data[0] & 1;
	nul = (data[0] & 2) != 0;
	buf = malloc(size + 2);
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = '\0';
	buf[size] = '\0';
	buf[size + 1] = '\0';
	for (char *p = buf; p < buf + size - 1 && n < 64;)
	{
		names[n] = p;
		p += strlen(p) + 1;
		vals[n] = p < buf + size ? p : NULL;
		if (p < buf + size)
			p += strlen(p) + 1;
		n++;
	}
	framing_init(&f);
	for (int i = 0; i < n; i++)
	{
		const char *v = (i % 3 == 2) ? NULL : vals[i];

		if (nul && i == 0 && v != NULL)
			framing_add_n(&f, names[i], strlen(names[i]), v, strlen(v) + 3);	/* a value cut by a NUL */
		else
			framing_add_n(&f, names[i], strlen(names[i]), v, v ? strlen(v) : 0);
		cl += strcasecmp(names[i], "Content-Length") == 0;
		te += strcasecmp(names[i], "Transfer-Encoding") == 0;
		host += strcasecmp(names[i], "Host") == 0;
		must |= !is_token(names[i]);
		for (int j = 0; j < i; j++)
			for (int k = 1; framing_singleton(k); k++)
				if (strcasecmp(names[i], framing_singleton(k)) == 0 && strcasecmp(names[j], names[i]) == 0)
					must = 1;
	}
	memset(why, 'X', sizeof(why));
	refused = framing_refused(&f, http10, why, sizeof(why));
	if (refused)
		CHECK(memchr(why, '\0', sizeof(why)) != NULL && why[0] != '\0', "a refusal says why");
	if (cl > 1 || (cl && te) || te > 1 || must || (!http10 && host == 0) || (http10 && te) || (nul && n > 0 && vals[0] != NULL))
		CHECK(refused, "what must be refused is refused");
	CHECK(framing_singleton(FRAMING_SINGLETONS - 1) == NULL && framing_singleton(-1) == NULL && framing_singleton(99) == NULL, "the list's bounds");
	free(buf);
	return 0;
}
