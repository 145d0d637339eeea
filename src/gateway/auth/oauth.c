/*
 * oauth.c - bearer tokens (see oauth.h): base64url over the core's base64, the claims read with
 * the core's JSON tokenizer (json_lex.h; bounded depth and size, escapes decoded), the claims'
 * rules, RS256 with libcrypto.
 */
#include "oauth.h"
#include "util.h"
#include "json_lex.h"

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

/* A string token's decoded text, copied into the arena; NULL when it cannot be decoded or holds NUL. */
static char *
string_of(JsonLex *lx, JsonToken *t, Arena *a)
{
	bool		was_escaped;
	char	   *out = NULL;

	if (t->kind != JT_STRING)
		return NULL;
	was_escaped = t->escaped;
	if (!json_decode_string(lx, t))
		return NULL;
	if (memchr(t->p, '\0', t->len) == NULL)
		out = arena_strndup(a, t->p, t->len);
	if (was_escaped)
		pfree((void *) t->p);	/* json_decode_string's copy */
	return out;
}

static bool
number_of(const JsonToken *t, double *out)
{
	return t->kind == JT_NUMBER && edm_parse_double(t->p, t->len, false, out) == EDM_OK;
}

/* The next token must be a string: its text into *out. */
static bool
next_string(JsonLex *lx, Arena *a, char **out)
{
	JsonToken	t;

	return json_next(lx, &t) && (*out = string_of(lx, &t, a)) != NULL;
}

/* After a member or an element: true with *more when ',' follows, false unless close does. */
static bool
next_or_close(JsonLex *lx, JsonTok close, bool *more)
{
	JsonToken	t;

	if (!json_next(lx, &t) || (t.kind != JT_COMMA && t.kind != close))
		return false;
	*more = t.kind == JT_COMMA;
	return true;
}

/* "aud": one string, or an array of at most MAX_AUD strings */
static bool
audiences(JsonLex *lx, Arena *a, Claims *c)
{
	JsonToken	t;
	bool		more = true;

	c->naud = 0;
	if (json_peek(lx) == '"')
	{
		c->naud = 1;
		return next_string(lx, a, &c->aud[0]);
	}
	if (!json_expect(lx, &t, JT_LBRACKET, "an audience"))
		return false;
	if (json_peek(lx) == ']')
		return json_next(lx, &t);
	while (more)
		if (c->naud >= MAX_AUD || !next_string(lx, a, &c->aud[c->naud++]) || !next_or_close(lx, JT_RBRACKET, &more))
			return false;
	return true;
}

/*
 * The members the checks read of a token part's top-level object (the core's JSON tokenizer reads
 * it: json_lex.h); the other members are stepped over.
 */
static bool
claims(JsonLex *lx, Arena *a, Claims *c)
{
	JsonToken	t;

	if (!json_expect(lx, &t, JT_LBRACE, "an object"))
		return false;
	for (bool first = true;;)
	{
		JsonToken	member;
		char	   *name;

		/* (the name is decoded by string_of, into the arena) */
		if (!json_next_member(lx, &first, &member, false))
			return false;
		if (member.kind == JT_RBRACE)
			break;
		if ((name = string_of(lx, &member, a)) == NULL)
			return false;
		if (strcmp(name, "alg") == 0 || strcmp(name, "iss") == 0)
		{
			if (!next_string(lx, a, name[0] == 'a' ? &c->alg : &c->iss))
				return false;
		}
		else if (strcmp(name, "aud") == 0)
		{
			if (!audiences(lx, a, c))
				return false;
		}
		else if (strcmp(name, "nbf") == 0 || strcmp(name, "exp") == 0 || strcmp(name, "iat") == 0)
		{
			double	   *d = name[0] == 'n' ? &c->nbf : name[0] == 'e' ? &c->exp : &c->iat;
			bool	   *has = name[0] == 'n' ? &c->has_nbf : name[0] == 'e' ? &c->has_exp : &c->has_iat;

			if (!json_next(lx, &t) || !number_of(&t, d))
				return false;
			*has = true;
		}
		else if (!json_skip_value(lx, MAX_DEPTH, NULL))
			return false;
	}
	return json_next(lx, &t) && t.kind == JT_END;
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

/*
 * Azure Storage (https://storage.azure.com, its application id) or this account's table endpoint
 * in one of the clouds (a token for an account of the national clouds names its cloud's suffix),
 * with or without a trailing '/' (a v1 token's aud is the resource as the client asked for it).
 */
static bool
audience_ok(const char *aud, const char *account)
{
	static const char *const suffixes[] = {"core.windows.net", "core.chinacloudapi.cn", "core.usgovcloudapi.net",
	"core.cloudapi.de", NULL};
	char		own[160];
	size_t		n = strlen(aud);

	if (n > 0 && aud[n - 1] == '/')
		n--;
	if ((n == 25 && strncmp(aud, "https://storage.azure.com", 25) == 0) ||
		strcmp(aud, "e406a681-f3d4-42a8-90b6-c2b029497af1") == 0)
		return true;
	for (int i = 0; suffixes[i]; i++)
	{
		snprintf(own, sizeof(own), "https://%s.table.%s", account, suffixes[i]);
		if (n == strlen(own) && strncmp(aud, own, n) == 0)
			return true;
	}
	return false;
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
	TsError		err = {0};
	JsonLex		lx;
	bool		ok;

	if (raw == NULL)
		return false;
	json_lex_init(&lx, (const char *) raw, len, &err, TSE_INVALID_INPUT, "the token's JSON");
	ok = claims(&lx, a, c);
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
/* The token of a bearer header without the spaces around it; NULL when it is not one. */
static const char *
token_of(const char *authorization, size_t *n)
{
	const char *tok;

	if (!oauth_is_bearer(authorization))
		return NULL;
	tok = authorization + 7;
	while (*tok == ' ')
		tok++;
	*n = strlen(tok);
	while (*n > 0 && tok[*n - 1] == ' ')
		(*n)--;
	return tok;
}

bool
oauth_token_identity(const char *authorization, unsigned char **out, size_t *len)
{
	size_t		n = 0;
	const char *tok = token_of(authorization, &n);
	const char *sig = NULL;

	*out = NULL;
	if (tok == NULL)
		return false;
	for (size_t i = 0; i < n; i++)
		if (tok[i] == '.')
			sig = tok + i;
	if (sig != NULL && sig + 1 < tok + n && (*out = b64url(sig + 1, (size_t) (tok + n - sig - 1), len)) != NULL)
		return true;
	if ((*out = malloc(n + 1)) == NULL)
		return false;
	memcpy(*out, tok, n);
	*len = n;
	return true;
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

	if ((tok = token_of(authorization, &n)) == NULL)
		return OAUTH_MALFORMED;
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
