/*
 * fuzz_copy_connstr.c - libFuzzer target: tablestore-copy's FROM and TO (src/copy/endpoints/connstr.c):
 * connection strings, database URIs and conninfo, directories.
 *
 * Properties: parsing never crashes or leaks (connstr_free frees what it made); an accepted Table
 * endpoint has an http(s) URL and a key or a SAS; the text shown to people (display) never holds
 * the account key or the SAS signature, nor a database's password (a password= parameter of a
 * conninfo or a URI's query, user:password@ of a URI); a rejected input says why.
 */
#include "postgres_fe.h"

#include "connstr.h"
#include "edm.h"
#include "fuzz.h"

#include <ctype.h>

int			LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char	   *s;
	char		err[256] = "";
	EndpointSpec spec;

	if (size > 9000)
		return 0;
	s = malloc(size + 1);
	memcpy(s, data, size);
	s[size] = '\0';
	if (connstr_parse(s, &spec, err, sizeof(err)))
	{
		FUZZ_CHECK(spec.display != NULL, "an accepted spec has a display text");
		if (spec.kind == EP_TABLE)
		{
			FUZZ_CHECK(strncmp(spec.endpoint, "http://", 7) == 0 || strncmp(spec.endpoint, "https://", 8) == 0,
					   "a Table endpoint is an http(s) URL");
			FUZZ_CHECK(spec.key_len > 0 || spec.sas != NULL, "a Table endpoint has a key or a SAS");
			FUZZ_CHECK(spec.sas == NULL || strstr(spec.endpoint, spec.sas) != NULL || strstr(spec.display, spec.sas) == NULL,
					   "the display never shows the SAS");
			if (spec.key_len >= 8)
			{
				char		b64[200];

				edm_base64_encode(spec.key, spec.key_len, b64);
				b64[edm_base64_encoded_len(spec.key_len)] = '\0';
				/* (unless the endpoint's URL itself holds the same text) */
				FUZZ_CHECK(strstr(spec.endpoint, b64) != NULL || strstr(spec.display, b64) == NULL,
						   "the display never shows the key");
			}
		}
		else if (spec.kind == EP_DB)
		{
			FUZZ_CHECK(spec.conninfo != NULL, "a database has its conninfo");
			/* every password=<value> that starts a parameter: its value is not in the display */
			for (const char *p = s; (p = strstr(p, "password=")) != NULL; p++)
			{
				size_t		n = 0;
				char		shown[64];

				if (p != s && p[-1] != ' ' && p[-1] != '?' && p[-1] != '&')
					continue;
				while (n < 40 && isalnum((unsigned char) p[9 + n]))
					n++;
				if (n < 4)
					continue;
				snprintf(shown, sizeof(shown), "password=%.*s", (int) n, p + 9);
				if (strstr(strstr(s, shown) + 1, shown) != NULL)
					continue;	/* the same text twice: the other may be a value of another parameter */
				FUZZ_CHECK(strstr(spec.display, shown) == NULL, "the display never shows a password= value");
			}
			/* postgres://user:password@host: the password is not in the display */
			if (strncmp(s, "postgres", 8) == 0 && strstr(s, "://") != NULL)
			{
				const char *auth = strstr(s, "://") + 3;
				size_t		alen = strcspn(auth, "/?");
				const char *at = memchr(auth, '@', alen);
				const char *colon = at ? memchr(auth, ':', at - auth) : NULL;

				if (colon != NULL && at - colon > 4)
				{
					char		pw[64];

					snprintf(pw, sizeof(pw), ":%.*s@", (int) Min(at - colon - 1, 40), colon + 1);
					/* (when the input holds that text once: elsewhere it is not a password) */
					if (at - colon - 1 <= 40 && strstr(strstr(s, pw) + 1, pw) == NULL)
						FUZZ_CHECK(strstr(spec.display, pw) == NULL, "the display never shows user:password@'s password");
				}
			}
		}
		else
			FUZZ_CHECK(spec.path != NULL, "a directory has its path");
		connstr_free(&spec);
	}
	else
		FUZZ_CHECK(err[0] != '\0', "a refused spec says why");
	free(s);
	fuzz_reset();
	return 0;
}

/* report.c's, which the parsers do not call but the files they share with the program do */
#include "endpoint.h"
bool
copy_fail(CopyError *e, const char *fmt,...)
{
	e->msg[0] = '\0';
	return false;
}

int64
copy_now_ticks(void)
{
	return EDM_TICKS_PG_EPOCH;
}
