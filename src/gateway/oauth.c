/*
 * oauth.c - bearer tokens (see oauth.h): base64url, a small strict JSON reader for the claims
 * (bounded depth and size; escapes decoded), the claims' rules, RS256 with libcrypto.
 */
#include "oauth.h"
#include "util.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_AUD 8
#define MAX_DEPTH 16

typedef struct Claims
{
	char	   *alg;			/* header */
	char	   *iss;
	char	   *aud[MAX_AUD];
	int			naud;
	bool		has_nbf,
				has_exp,
				has_iat;
	double		nbf,
				exp,
				iat;
} Claims;

typedef struct Json
{
	Arena	   *a;
	const char *s;
	size_t		n;
	size_t		i;
} Json;

static void
ws(Json *j)
{
	while (j->i < j->n && (j->s[j->i] == ' ' || j->s[j->i] == '\t' || j->s[j->i] == '\n' || j->s[j->i] == '\r'))
		j->i++;
}

static bool
hex4(Json *j, unsigned long *out)
{
	*out = 0;
	if (j->n - j->i < 4)
		return false;
	for (int k = 0; k < 4; k++)
	{
		int			h = hexval((unsigned char) j->s[j->i + k]);

		if (h < 0)
			return false;
		*out = *out * 16 + (unsigned long) h;
	}
	j->i += 4;
	return true;
}

/* a string at j->i ('"' expected); *out NULL when only skipping */
static bool
string(Json *j, char **out)
{
	Buf			b;
	bool		ok = false;

	if (j->i >= j->n || j->s[j->i] != '"')
		return false;
	j->i++;
	buf_init(&b);
	while (j->i < j->n)
	{
		unsigned char c = (unsigned char) j->s[j->i++];

		if (c == '"')
		{
			ok = !b.failed && utf8_valid((const unsigned char *) (b.data ? b.data : ""), b.len);
			break;
		}
		if (c < 0x20)
			break;
		if (c != '\\')
		{
			buf_append(&b, &c, 1);
			continue;
		}
		if (j->i >= j->n)
			break;
		c = (unsigned char) j->s[j->i++];
		if (c == 'u')
		{
			unsigned long cp,
						lo;

			if (!hex4(j, &cp))
				break;
			if (cp >= 0xD800 && cp <= 0xDBFF)
			{
				if (j->n - j->i < 2 || j->s[j->i] != '\\' || j->s[j->i + 1] != 'u')
					break;
				j->i += 2;
				if (!hex4(j, &lo) || lo < 0xDC00 || lo > 0xDFFF)
					break;
				cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
			}
			else if ((cp >= 0xDC00 && cp <= 0xDFFF) || cp == 0)
				break;
			{
				char		u[4];

				buf_append(&b, u, utf8_encode(cp, u));
			}
			continue;
		}
		{
			const char *from = "\"\\/bfnrt";
			const char *to = "\"\\/\b\f\n\r\t";
			const char *at = strchr(from, c);

			if (at == NULL || c == '\0')
				break;
			buf_append(&b, to + (at - from), 1);
		}
	}
	if (ok && out)
		*out = arena_strndup(j->a, b.data ? b.data : "", b.len);
	buf_free(&b);
	return ok && (out == NULL || *out != NULL);
}

static bool
number(Json *j, double *out)
{
	char		tmp[64];
	size_t		k = 0;
	char	   *end;

	while (j->i < j->n && k < sizeof(tmp) - 1 &&
		   ((j->s[j->i] != '\0' && strchr("+-.eE", j->s[j->i]) != NULL) || (j->s[j->i] >= '0' && j->s[j->i] <= '9')))
		tmp[k++] = j->s[j->i++];
	tmp[k] = '\0';
	if (k == 0 || (tmp[0] != '-' && (tmp[0] < '0' || tmp[0] > '9')))
		return false;
	*out = strtod(tmp, &end);
	return *end == '\0';
}

static bool value(Json *j, int depth);

/* After a member or element: ',' (*more = true) or the closing character (*more = false). */
static bool
next_or_close(Json *j, char close, bool *more)
{
	ws(j);
	if (j->i >= j->n || (j->s[j->i] != ',' && j->s[j->i] != close))
		return false;
	*more = j->s[j->i++] == ',';
	return true;
}

static bool
literal(Json *j, const char *lit)
{
	size_t		l = strlen(lit);

	if (j->n - j->i < l || memcmp(j->s + j->i, lit, l) != 0)
		return false;
	j->i += l;
	return true;
}

/* skip any value */
static bool
value(Json *j, int depth)
{
	double		d;

	if (depth > MAX_DEPTH)
		return false;
	ws(j);
	if (j->i >= j->n)
		return false;
	switch (j->s[j->i])
	{
		case '"':
			return string(j, NULL);
		case '{':
		case '[':
			{
				char		close = j->s[j->i] == '{' ? '}' : ']';
				bool		obj = close == '}';

				j->i++;
				ws(j);
				if (j->i < j->n && j->s[j->i] == close)
				{
					j->i++;
					return true;
				}
				for (;;)
				{
					if (obj)
					{
						ws(j);
						if (!string(j, NULL))
							return false;
						ws(j);
						if (j->i >= j->n || j->s[j->i++] != ':')
							return false;
					}
					bool		more;

					if (!value(j, depth + 1) || !next_or_close(j, close, &more))
						return false;
					if (!more)
						return true;
				}
			}
		case 't':
			return literal(j, "true");
		case 'f':
			return literal(j, "false");
		case 'n':
			return literal(j, "null");
		default:
			return number(j, &d);
	}
}

/* the top-level object's members the checks read; others skipped */
static bool
claims(Json *j, Claims *c)
{
	ws(j);
	if (j->i >= j->n || j->s[j->i++] != '{')
		return false;
	ws(j);
	if (j->i < j->n && j->s[j->i] == '}')
	{
		j->i++;
		goto done;
	}
	for (;;)
	{
		char	   *name;
		bool		more;

		ws(j);
		if (!string(j, &name))
			return false;
		ws(j);
		if (j->i >= j->n || j->s[j->i++] != ':')
			return false;
		ws(j);
		if (strcmp(name, "alg") == 0 || strcmp(name, "iss") == 0)
		{
			if (!string(j, strcmp(name, "alg") == 0 ? &c->alg : &c->iss))
				return false;
		}
		else if (strcmp(name, "aud") == 0 && j->i < j->n && j->s[j->i] == '"')
		{
			if (!string(j, &c->aud[0]))
				return false;
			c->naud = 1;
		}
		else if (strcmp(name, "aud") == 0 && j->i < j->n && j->s[j->i] == '[')
		{
			j->i++;
			c->naud = 0;
			ws(j);
			if (j->i < j->n && j->s[j->i] == ']')
				j->i++;
			else
				for (bool more = true; more;)
				{
					ws(j);
					if (c->naud >= MAX_AUD || !string(j, &c->aud[c->naud++]) || !next_or_close(j, ']', &more))
						return false;
				}
		}
		else if (strcmp(name, "nbf") == 0 || strcmp(name, "exp") == 0 || strcmp(name, "iat") == 0)
		{
			double	   *d = name[0] == 'n' ? &c->nbf : name[0] == 'e' ? &c->exp : &c->iat;
			bool	   *has = name[0] == 'n' ? &c->has_nbf : name[0] == 'e' ? &c->has_exp : &c->has_iat;

			if (!number(j, d))
				return false;
			*has = true;
		}
		else if (!value(j, 1))
			return false;
		if (!next_or_close(j, '}', &more))
			return false;
		if (!more)
			break;
	}
done:
	ws(j);
	return j->i == j->n;
}

/* base64url (no padding) into a malloc'd buffer */
static unsigned char *
b64url(const char *s, size_t n, size_t *outlen)
{
	char	   *std = malloc(n + 4);
	unsigned char *out;
	size_t		m = n;
	long		len;

	if (std == NULL || n % 4 == 1)
	{
		free(std);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
	{
		char		c = s[i];

		if (c == '+' || c == '/' || c == '=')
		{
			free(std);
			return NULL;		/* the URL-safe alphabet only, unpadded */
		}
		std[i] = c == '-' ? '+' : c == '_' ? '/' : c;
	}
	while (m % 4)
		std[m++] = '=';
	out = malloc(m / 4 * 3 + 1);
	if (out == NULL || (len = b64_decode(std, m, out, m / 4 * 3 + 1)) < 0)
	{
		free(std);
		free(out);
		return NULL;
	}
	free(std);
	*outlen = (size_t) len;
	return out;
}

bool
oauth_is_bearer(const char *h)
{
	return h != NULL && ascii_nieq(h, "Bearer ", 7);
}

static bool
issuer_ok(const char *iss)
{
	static const char *const prefixes[] = {
		"https://sts.windows.net/", "https://login.microsoftonline.com/", "https://sts.chinacloudapi.cn/",
		"https://login.chinacloudapi.cn/", "https://login.microsoftonline.us/", "https://sts.windows-ppe.net/",
		NULL
	};

	for (int i = 0; prefixes[i]; i++)
		if (strncmp(iss, prefixes[i], strlen(prefixes[i])) == 0 && strlen(iss) > strlen(prefixes[i]))
			return true;
	return false;
}

static bool
audience_ok(const char *aud, const char *account)
{
	char		own[160];
	size_t		n = strlen(aud);

	if (n > 0 && aud[n - 1] == '/')
		n--;
	if ((n == 25 && strncmp(aud, "https://storage.azure.com", 25) == 0) ||
		strcmp(aud, "e406a681-f3d4-42a8-90b6-c2b029497af1") == 0)
		return true;
	snprintf(own, sizeof(own), "https://%s.table.core.windows.net", account);
	return n == strlen(own) && strncmp(aud, own, n) == 0;
}

static bool
signature_ok(const char *signed_part, size_t signed_len, const char *sig64, size_t sig64_len, const OAuthTrust *keys)
{
	size_t		siglen;
	unsigned char *sig = b64url(sig64, sig64_len, &siglen);
	bool		ok = false;

	if (sig == NULL)
		return false;
	for (int k = 0; k < keys->n && !ok; k++)
	{
		EVP_MD_CTX *ctx = EVP_MD_CTX_new();

		ok = ctx != NULL && EVP_DigestVerifyInit(ctx, NULL, EVP_sha256(), NULL, (EVP_PKEY *) keys->keys[k]) == 1 &&
			EVP_PKEY_base_id((EVP_PKEY *) keys->keys[k]) == EVP_PKEY_RSA &&
			EVP_DigestVerify(ctx, sig, siglen, (const unsigned char *) signed_part, signed_len) == 1;
		EVP_MD_CTX_free(ctx);
	}
	free(sig);
	return ok;
}

/* decode and read one JSON part of the token */
static bool
part(Arena *a, const char *s, size_t n, Claims *c)
{
	size_t		len;
	unsigned char *raw = b64url(s, n, &len);
	Json		j;
	bool		ok;

	if (raw == NULL)
		return false;
	j = (Json) {a, (const char *) raw, len, 0};
	ok = claims(&j, c);
	free(raw);
	return ok;
}

static bool
issuer_trusted(const char *iss, const OAuthTrust *trust)
{
	if (trust == NULL || trust->nissuers == 0)
		return issuer_ok(iss);
	for (int i = 0; i < trust->nissuers; i++)
		if (strcmp(iss, trust->issuers[i]) == 0)
			return true;
	return false;
}

OAuthResult
oauth_check(const char *authorization, const char *account, time_t now, const OAuthTrust *keys)
{
	const char *tok,
			   *dot1,
			   *dot2;
	size_t		n;
	Arena		a;
	Claims		head = {0},
				c = {0};
	OAuthResult res = OAUTH_OK;
	bool		aud_ok = false;

	if (!oauth_is_bearer(authorization))
		return OAUTH_MALFORMED;
	tok = authorization + 7;
	while (*tok == ' ')
		tok++;
	n = strlen(tok);
	while (n > 0 && tok[n - 1] == ' ')
		n--;
	if (n == 0 || n > OAUTH_MAX_TOKEN || (dot1 = memchr(tok, '.', n)) == NULL ||
		(dot2 = memchr(dot1 + 1, '.', n - (size_t) (dot1 + 1 - tok))) == NULL ||
		memchr(dot2 + 1, '.', n - (size_t) (dot2 + 1 - tok)) != NULL)
		return OAUTH_MALFORMED;
	arena_init(&a, 1024 * 1024);
	if (!part(&a, tok, (size_t) (dot1 - tok), &head) || !part(&a, dot1 + 1, (size_t) (dot2 - dot1 - 1), &c))
		res = OAUTH_MALFORMED;
	else if (keys && keys->n > 0 &&
			 (head.alg == NULL || strcmp(head.alg, "RS256") != 0 ||
			  !signature_ok(tok, (size_t) (dot2 - tok), dot2 + 1, n - (size_t) (dot2 + 1 - tok), keys)))
		res = OAUTH_SIGNATURE;
	else if (!c.has_exp || !c.has_nbf || !c.has_iat)
		res = OAUTH_CLAIMS;
	else if ((double) now + OAUTH_SKEW < c.nbf)
		res = OAUTH_NOT_YET;
	else if ((double) now - OAUTH_SKEW > c.exp)
		res = OAUTH_EXPIRED;
	else if (c.iss == NULL || !issuer_trusted(c.iss, keys))
		res = OAUTH_ISSUER;
	else
	{
		for (int i = 0; i < c.naud && !aud_ok; i++)
			aud_ok = audience_ok(c.aud[i], account);
		if (!aud_ok)
			res = OAUTH_AUDIENCE;
	}
	arena_free(&a);
	return res;
}

const char *
oauth_result_text(OAuthResult r)
{
	switch (r)
	{
		case OAUTH_OK:
			return "authenticated";
		case OAUTH_MALFORMED:
			return "the bearer token is not a JWT (header.payload.signature, base64url JSON)";
		case OAUTH_NOT_YET:
			return "Lifetime validation failed. The token is not yet valid (nbf)";
		case OAUTH_EXPIRED:
			return "Lifetime validation failed. The token is expired";
		case OAUTH_ISSUER:
			return "Issuer validation failed (iss is not a trusted Microsoft Entra ID issuer)";
		case OAUTH_AUDIENCE:
			return "Audience validation failed (aud is neither https://storage.azure.com nor this account's table endpoint)";
		case OAUTH_SIGNATURE:
			return "Signature validation failed (RS256 with a configured key)";
		case OAUTH_CLAIMS:
			return "the token lacks exp, nbf or iat";
	}
	return "authentication failed";
}

bool
oauth_load_keys(const char *path, OAuthTrust *out, char *err, size_t errlen)
{
	FILE	   *f = fopen(path, "r");

	out->n = 0;
	if (f == NULL)
	{
		snprintf(err, errlen, "cannot open the token keys %s", path);
		return false;
	}
	for (;;)
	{
		char	   *name = NULL,
				   *header = NULL;
		unsigned char *data = NULL;
		long		len = 0;
		const unsigned char *p;
		EVP_PKEY   *key = NULL;

		if (!PEM_read(f, &name, &header, &data, &len))
			break;
		p = data;
		if (strcmp(name, "PUBLIC KEY") == 0)
			key = d2i_PUBKEY(NULL, &p, len);
		else if (strcmp(name, "CERTIFICATE") == 0)
		{
			X509	   *x = d2i_X509(NULL, &p, len);

			if (x)
			{
				key = X509_get_pubkey(x);
				X509_free(x);
			}
		}
		OPENSSL_free(name);
		OPENSSL_free(header);
		OPENSSL_free(data);
		if (key == NULL)
			continue;
		if (out->n >= OAUTH_MAX_KEYS || EVP_PKEY_base_id(key) != EVP_PKEY_RSA)
		{
			EVP_PKEY_free(key);
			continue;
		}
		out->keys[out->n++] = key;
	}
	fclose(f);
	if (out->n == 0)
	{
		snprintf(err, errlen, "%s holds no RSA public key or certificate (PEM)", path);
		return false;
	}
	return true;
}

bool
oauth_set_issuers(const char *list, OAuthTrust *out, char *err, size_t errlen)
{
	const char *p = list;

	out->nissuers = 0;
	while (*p)
	{
		const char *comma = strchr(p, ',');
		size_t		n = comma ? (size_t) (comma - p) : strlen(p);

		while (n > 0 && *p == ' ')
			p++, n--;
		while (n > 0 && p[n - 1] == ' ')
			n--;
		if (n == 0 || n > 512 || strncmp(p, "https://", 8) != 0)
		{
			snprintf(err, errlen, "an issuer is an https:// URL (e.g. https://sts.windows.net/<tenant id>/)");
			return false;
		}
		if (out->nissuers >= OAUTH_MAX_ISSUERS)
		{
			snprintf(err, errlen, "at most %d issuers", OAUTH_MAX_ISSUERS);
			return false;
		}
		out->issuers[out->nissuers] = strndup(p, n);
		if (out->issuers[out->nissuers] == NULL)
		{
			snprintf(err, errlen, "out of memory");
			return false;
		}
		out->nissuers++;
		p = comma ? comma + 1 : p + strlen(p);
	}
	if (out->nissuers == 0)
	{
		snprintf(err, errlen, "no issuer given");
		return false;
	}
	return true;
}
