/*
 * connstr.c - FROM and TO: connection strings, database URIs and conninfo, directories
 * (connstr.h).
 */
#include "connstr.h"
#include "edm.h"
#include "mem.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#define DEV_ACCOUNT "devstoreaccount1"
#define DEV_KEY "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="

typedef struct Pair
{
	const char *key;
	size_t		key_len;
	const char *val;
	size_t		val_len;
} Pair;

#define MAX_PAIRS 16

static bool
fail(char *err, size_t errlen, const char *msg)
{
	snprintf(err, errlen, "%s", msg);
	return false;
}

static bool
key_is(const Pair *p, const char *name)
{
	return p->key_len == strlen(name) && strncasecmp(p->key, name, p->key_len) == 0;
}

static const Pair *
find(const Pair *pairs, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (key_is(&pairs[i], name))
			return &pairs[i];
	return NULL;
}

static bool
looks_like_table_connstr(const char *s)
{
	static const char *const keys[] = {"AccountName=", "AccountKey=", "TableEndpoint=", "SharedAccessSignature=",
	"UseDevelopmentStorage=", "DefaultEndpointsProtocol=", "EndpointSuffix="};

	for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++)
		for (const char *p = s; (p = strcasestr(p, keys[i])) != NULL; p++)
			if (p == s || p[-1] == ';' || p[-1] == ' ')
				return true;
	return false;
}

/* libpq's keywords that start a conninfo ("host=... dbname=...") */
static bool
looks_like_conninfo(const char *s)
{
	static const char *const keys[] = {"host", "hostaddr", "port", "dbname", "user", "service", "password",
	"sslmode", "application_name", "options", "connect_timeout"};

	while (*s == ' ')
		s++;
	for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++)
	{
		size_t		n = strlen(keys[i]);
		const char *p = s + n;

		if (strncmp(s, keys[i], n) != 0)
			continue;
		while (*p == ' ')
			p++;
		if (*p == '=')
			return true;
	}
	return false;
}

/* split on ';' into pairs; empty segments (a trailing ';') are skipped */
static bool
split_pairs(const char *s, Pair *pairs, int *n, char *err, size_t errlen)
{
	*n = 0;
	while (*s)
	{
		const char *end = strchr(s, ';');
		size_t		len = end ? (size_t) (end - s) : strlen(s);
		const char *eq = memchr(s, '=', len);

		/* trim spaces around the pair */
		while (len > 0 && *s == ' ')
			s++, len--;
		while (len > 0 && s[len - 1] == ' ')
			len--;
		if (len > 0)
		{
			Pair	   *p;

			eq = memchr(s, '=', len);
			if (eq == NULL || eq == s)
				return fail(err, errlen, "a connection string is Key=Value pairs separated by ';'");
			if (*n == MAX_PAIRS)
				return fail(err, errlen, "the connection string has too many Key=Value pairs");
			for (int i = 0; i < *n; i++)
				if (pairs[i].key_len == (size_t) (eq - s) && strncasecmp(pairs[i].key, s, eq - s) == 0)
					return fail(err, errlen, "the connection string gives a key twice");
			p = &pairs[(*n)++];
			p->key = s;
			p->key_len = (size_t) (eq - s);
			while (p->key_len > 0 && s[p->key_len - 1] == ' ')
				p->key_len--;
			p->val = eq + 1;
			p->val_len = len - (size_t) (eq + 1 - s);
			while (p->val_len > 0 && *p->val == ' ')
				p->val++, p->val_len--;
		}
		if (end == NULL)
			break;
		s = end + 1;
	}
	return true;
}

static char *
dup_pair(const Pair *p)
{
	return p ? mem_strndup(p->val, p->val_len) : NULL;
}

/* a printable URL: scheme http or https, a host, no spaces or control characters */
static bool
url_ok(const char *u)
{
	const char *host;

	if (strncmp(u, "http://", 7) == 0)
		host = u + 7;
	else if (strncmp(u, "https://", 8) == 0)
		host = u + 8;
	else
		return false;
	if (*host == '\0' || *host == '/' || *host == '?')
		return false;
	/* credentials in the URL (user:password@host) would be written wherever the endpoint is named */
	if (memchr(host, '@', strcspn(host, "/")) != NULL)
		return false;
	for (const char *p = u; *p; p++)
		if ((unsigned char) *p <= ' ' || *p == 0x7f || *p == '?' || *p == '#')
			return false;
	return true;
}

char *
connstr_account_from_url(const char *url)
{
	const char *host = strstr(url, "://");
	const char *end,
			   *path;

	if (host == NULL)
		return NULL;
	host += 3;
	path = strchr(host, '/');
	end = host + strcspn(host, ".:/");
	/* path-style (http://127.0.0.1:10002/account): the first path segment */
	if (path != NULL && path[1] != '\0')
	{
		const char *seg = path + 1;
		size_t		n = strcspn(seg, "/");

		if (n > 0 && (strspn(host, "0123456789.:[]") >= (size_t) (path - host) || strncmp(host, "localhost", 9) == 0))
			return mem_strndup(seg, n);
	}
	if (end > host && strspn(host, "0123456789") < (size_t) (end - host))
		return mem_strndup(host, (size_t) (end - host));
	return NULL;
}

static bool
parse_table(const char *s, EndpointSpec *out, char *err, size_t errlen)
{
	Pair		pairs[MAX_PAIRS];
	int			n;
	const Pair *dev,
			   *name,
			   *key,
			   *endpoint,
			   *sas,
			   *proto,
			   *suffix;
	char		buf[512];
	const char *key_b64 = NULL;
	size_t		key_b64_len = 0;

	if (!split_pairs(s, pairs, &n, err, errlen))
		return false;
	for (int i = 0; i < n; i++)
	{
		static const char *const known[] = {"DefaultEndpointsProtocol", "AccountName", "AccountKey", "TableEndpoint",
			"EndpointSuffix", "SharedAccessSignature", "UseDevelopmentStorage", "DevelopmentStorageProxyUri",
		"BlobEndpoint", "QueueEndpoint", "FileEndpoint"};
		bool		ok = false;

		for (size_t k = 0; k < sizeof(known) / sizeof(*known) && !ok; k++)
			ok = key_is(&pairs[i], known[k]);
		if (!ok)
			return fail(err, errlen, "the connection string has a key this program does not know (known: DefaultEndpointsProtocol, AccountName, AccountKey, TableEndpoint, EndpointSuffix, SharedAccessSignature, UseDevelopmentStorage)");
	}
	dev = find(pairs, n, "UseDevelopmentStorage");
	name = find(pairs, n, "AccountName");
	key = find(pairs, n, "AccountKey");
	endpoint = find(pairs, n, "TableEndpoint");
	sas = find(pairs, n, "SharedAccessSignature");
	proto = find(pairs, n, "DefaultEndpointsProtocol");
	suffix = find(pairs, n, "EndpointSuffix");

	if (dev != NULL)
	{
		const Pair *proxy = find(pairs, n, "DevelopmentStorageProxyUri");

		if (dev->val_len != 4 || strncasecmp(dev->val, "true", 4) != 0)
			return fail(err, errlen, "UseDevelopmentStorage must be true");
		if (name || key || endpoint || sas)
			return fail(err, errlen, "UseDevelopmentStorage=true takes no AccountName, AccountKey, TableEndpoint or SharedAccessSignature");
		if (proxy != NULL)
		{
			if (proxy->val_len > 200)
				return fail(err, errlen, "DevelopmentStorageProxyUri is too long");
			snprintf(buf, sizeof(buf), "%.*s:10002/%s", (int) proxy->val_len, proxy->val, DEV_ACCOUNT);
		}
		else
			snprintf(buf, sizeof(buf), "http://127.0.0.1:10002/%s", DEV_ACCOUNT);
		out->endpoint = mem_strdup(buf);
		out->account = mem_strdup(DEV_ACCOUNT);
		key_b64 = DEV_KEY;
		key_b64_len = strlen(DEV_KEY);
	}
	else
	{
		if (key != NULL && sas != NULL)
			return fail(err, errlen, "give AccountKey or SharedAccessSignature, not both");
		if (key == NULL && sas == NULL)
			return fail(err, errlen, "a Table connection string needs AccountKey (with AccountName) or SharedAccessSignature");
		if (key != NULL && name == NULL)
			return fail(err, errlen, "AccountKey needs AccountName");
		if (endpoint != NULL)
		{
			size_t		len = endpoint->val_len;

			while (len > 0 && endpoint->val[len - 1] == '/')
				len--;
			out->endpoint = mem_strndup(endpoint->val, len);
		}
		else
		{
			if (name == NULL)
				return fail(err, errlen, "without TableEndpoint, the connection string needs AccountName");
			if (proto != NULL && !(proto->val_len == 4 && strncasecmp(proto->val, "http", 4) == 0) &&
				!(proto->val_len == 5 && strncasecmp(proto->val, "https", 5) == 0))
				return fail(err, errlen, "DefaultEndpointsProtocol must be http or https");
			if (name->val_len + (suffix ? suffix->val_len : 0) > 400)
				return fail(err, errlen, "AccountName or EndpointSuffix is too long");
			snprintf(buf, sizeof(buf), "%s://%.*s.table.%.*s",
					 proto && proto->val_len == 4 ? "http" : "https",
					 (int) name->val_len, name->val,
					 suffix ? (int) suffix->val_len : 16, suffix ? suffix->val : "core.windows.net");
			out->endpoint = mem_strdup(buf);
		}
		if (!url_ok(out->endpoint))
			return fail(err, errlen, "the Table endpoint is not an http:// or https:// URL with a host");
		out->account = name ? dup_pair(name) : connstr_account_from_url(out->endpoint);
		if (key != NULL)
		{
			key_b64 = key->val;
			key_b64_len = key->val_len;
		}
		if (sas != NULL)
		{
			const char *v = sas->val;
			size_t		len = sas->val_len;

			if (len > 0 && *v == '?')
				v++, len--;
			if (len == 0 || memchr(v, ' ', len) || memchr(v, '#', len))
				return fail(err, errlen, "SharedAccessSignature is empty or holds a space or '#'");
			out->sas = mem_strndup(v, len);
			if (strstr(out->sas, "sig=") == NULL)
				return fail(err, errlen, "SharedAccessSignature has no sig");
		}
	}
	if (out->account != NULL)
		for (const char *p = out->account; *p; p++)
			if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '-'))
				return fail(err, errlen, "the account name holds a character other than letters, digits and '-'");
	if (key_b64 != NULL)
	{
		size_t		len = 0;

		if (key_b64_len == 0 || key_b64_len / 4 * 3 > CONNSTR_MAX_KEY ||
			edm_base64_decode(key_b64, key_b64_len, out->key, &len) != EDM_OK || len == 0)
			return fail(err, errlen, "AccountKey is not base64 (of at most 96 bytes)");
		out->key_len = len;
	}
	snprintf(buf, sizeof(buf), "%.300s (%s)", out->endpoint, out->sas ? "SAS" : "account key");
	out->display = mem_strdup(buf);
	return true;
}

/*
 * A database spec with its secrets replaced by ***: a URI's user:password@, and the value of every
 * parameter whose name holds "password" (password, sslpassword), in a URI's query or a conninfo.
 */
static char *
redact_db(const char *spec)
{
	StringInfoData r,
				first;
	bool		uri = strncmp(spec, "postgres://", 11) == 0 || strncmp(spec, "postgresql://", 13) == 0;
	const char *s = spec;
	size_t		n,
				i = 0;

	/* a URI's user:password@ first */
	mem_string_init(&first);
	if (uri)
	{
		const char *start = strstr(spec, "://") + 3;
		size_t		auth = strcspn(start, "/?");
		const char *at = memchr(start, '@', auth);
		const char *colon = at ? memchr(start, ':', at - start) : NULL;

		if (colon != NULL)
		{
			appendBinaryStringInfo(&first, spec, (int) (colon + 1 - spec));
			appendStringInfoString(&first, "***");
			appendStringInfoString(&first, at);
			s = first.data;
		}
	}
	n = strlen(s);
	mem_string_init(&r);
	while (i < n)
	{
		/* a parameter name starts the string, or follows a space, ? or & (more is redacted than less) */
		bool		starts = i == 0 || s[i - 1] == ' ' || s[i - 1] == '?' || s[i - 1] == '&';
		size_t		name = starts ? strcspn(s + i, uri ? "=& " : "= ") : 0;
		const char *eq;

		if (name == 0 || memmem(s + i, name, "password", 8) == NULL)
		{
			appendStringInfoChar(&r, s[i++]);
			continue;
		}
		eq = s + i + name;
		while (*eq == ' ')
			eq++;
		if (*eq != '=')
		{
			appendStringInfoChar(&r, s[i++]);
			continue;
		}
		eq++;
		while (!uri && *eq == ' ')
			eq++;
		appendBinaryStringInfo(&r, s + i, (int) (eq - (s + i)));
		appendStringInfoString(&r, "***");
		if (uri)
			i = (size_t) (eq - s) + strcspn(eq, "& ");
		else if (*eq == '\'')
		{
			/* a quoted value, \' and \\ escaped */
			const char *p = eq + 1;

			while (*p && *p != '\'')
				p += (*p == '\\' && p[1]) ? 2 : 1;
			i = (size_t) ((*p ? p + 1 : p) - s);
		}
		else
			i = (size_t) (eq - s) + strcspn(eq, " ");
	}
	{
		char	   *out = mem_strdup(r.data);

		pfree(r.data);
		pfree(first.data);
		return out;
	}
}

bool
connstr_parse(const char *s, EndpointSpec *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (s == NULL || *s == '\0')
		return fail(err, errlen, "an empty FROM or TO");
	if (strlen(s) > 8192)
		return fail(err, errlen, "FROM or TO is longer than 8192 bytes");
	if (looks_like_table_connstr(s))
	{
		out->kind = EP_TABLE;
		if (!parse_table(s, out, err, errlen))
		{
			connstr_free(out);
			return false;
		}
		return true;
	}
	if (strncmp(s, "postgres://", 11) == 0 || strncmp(s, "postgresql://", 13) == 0 || looks_like_conninfo(s))
	{
		out->kind = EP_DB;
		out->conninfo = mem_strdup(s);
		out->display = redact_db(s);
		return true;
	}
	if (strncmp(s, "http://", 7) == 0 || strncmp(s, "https://", 8) == 0)
		return fail(err, errlen, "a Table endpoint is given as a connection string (TableEndpoint=...;AccountName=...;AccountKey=... or ;SharedAccessSignature=...), not as a bare URL");
	out->kind = EP_DIR;
	out->path = mem_strdup(strncmp(s, "file://", 7) == 0 ? s + 7 : s);
	out->display = mem_strdup(out->path);
	return true;
}

void
connstr_free(EndpointSpec *spec)
{
	free(spec->endpoint);
	free(spec->account);
	free(spec->sas);
	free(spec->conninfo);
	free(spec->path);
	free(spec->display);
	memset(spec, 0, sizeof(*spec));
}
