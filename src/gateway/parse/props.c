/*
 * props.c - service properties (see props.h), with the service's rules: Version 1.0; Delete, Read,
 * Write, Enabled, IncludeAPIs true or false; RetentionPolicy Days 1-365 when Enabled; IncludeAPIs
 * only with Enabled metrics (whose Version and RetentionPolicy may be left out); at most 5 CorsRule, each with AllowedOrigins ("*" or up to 64
 * origins, each of which may hold wildcards), AllowedMethods (DELETE GET HEAD MERGE PATCH POST OPTIONS PUT), AllowedHeaders and
 * ExposedHeaders (up to 64 names, a trailing * is a prefix), MaxAgeInSeconds >= 0.
 */
#include "props.h"
#include "xml.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
props_default(ServiceProps *p)
{
	memset(p, 0, sizeof(*p));
	p->logging.set = p->hour.set = p->minute.set = p->cors_set = true;
	p->logging.version = p->hour.version = p->minute.version = "1.0";
}

static bool
boolean(const XmlNode *n, bool *out)
{
	if (n == NULL || n->text == NULL)
		return false;
	if (strcmp(n->text, "true") == 0)
		*out = true;
	else if (strcmp(n->text, "false") == 0)
		*out = false;
	else
		return false;
	return true;
}

static bool
integer(const XmlNode *n, long lo, long hi, int *out)
{
	char	   *end;
	long		v;

	if (n == NULL || n->text == NULL || n->text[0] < '0' || n->text[0] > '9' || strlen(n->text) > 10)
		return false;
	v = strtol(n->text, &end, 10);
	if (*end != '\0' || v < lo || v > hi)
		return false;
	*out = (int) v;
	return true;
}

static bool
retention(const XmlNode *n, Retention *r)
{
	static const char *const names[] = {"Enabled", "Days", NULL};

	if (n == NULL || !xml_only(n, names, NULL) || !boolean(xml_child(n, "Enabled"), &r->enabled))
		return false;
	r->days = 0;
	if (r->enabled)
		return integer(xml_child(n, "Days"), 1, 365, &r->days);
	return xml_child(n, "Days") == NULL;
}

static bool
version(const XmlNode *n, char **out)
{
	if (n == NULL || n->text == NULL || strcmp(n->text, "1.0") != 0)
		return false;
	*out = n->text;
	return true;
}

static bool
logging(const XmlNode *n, LoggingProps *l)
{
	static const char *const names[] = {"Version", "Delete", "Read", "Write", "RetentionPolicy", NULL};

	l->set = true;
	return xml_only(n, names, NULL) && version(xml_child(n, "Version"), &l->version) &&
		boolean(xml_child(n, "Delete"), &l->del) && boolean(xml_child(n, "Read"), &l->read) &&
		boolean(xml_child(n, "Write"), &l->write) && retention(xml_child(n, "RetentionPolicy"), &l->retention);
}

static bool
metrics(const XmlNode *n, MetricsProps *m)
{
	static const char *const names[] = {"Version", "Enabled", "IncludeAPIs", "RetentionPolicy", NULL};
	const XmlNode *apis = xml_child(n, "IncludeAPIs");

	m->set = true;
	m->version = "1.0";
	m->retention.enabled = false;
	m->retention.days = 0;
	/* Version and RetentionPolicy may be left out (the SDKs' models make them optional) */
	if (!xml_only(n, names, NULL) || (xml_child(n, "Version") && !version(xml_child(n, "Version"), &m->version)) ||
		!boolean(xml_child(n, "Enabled"), &m->enabled) ||
		(xml_child(n, "RetentionPolicy") && !retention(xml_child(n, "RetentionPolicy"), &m->retention)))
		return false;
	m->include_apis = false;
	if (m->enabled)
		return boolean(apis, &m->include_apis);
	return apis == NULL;
}

/*
 * The next item of a comma-separated list at *s, spaces and tabs trimmed: false at the end.
 * *s moves past the item and its comma; *trailing tells that a comma ended the list.
 */
static bool
next_item(const char **s, const char **item, size_t *len, bool *trailing)
{
	const char *comma;
	size_t		n;
	const char *p = *s;

	if (p == NULL || *p == '\0')
		return false;
	comma = strchr(p, ',');
	n = comma ? (size_t) (comma - p) : strlen(p);
	*s = comma ? comma + 1 : p + n;
	*trailing = comma != NULL && **s == '\0';
	while (n > 0 && (*p == ' ' || *p == '\t'))
		p++, n--;
	while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	*item = p;
	*len = n;
	return true;
}

/* a comma-separated list of at most PROPS_MAX_LIST items, each accepted by ok() */
static bool
list_ok(const char *s, bool (*ok) (const char *item, size_t n), bool star_alone)
{
	int			items = 0;
	const char *p;
	size_t		n;
	bool		trailing = false;

	if (s == NULL)
		return false;
	if (star_alone && strcmp(s, "*") == 0)
		return true;
	while (next_item(&s, &p, &n, &trailing))
		if (n == 0 || n > 256 || ++items > PROPS_MAX_LIST || !ok(p, n) || trailing)
			return false;
	return items > 0;
}

/* an origin, possibly with wildcards ("http://" "*.contoso.com", "https://www.fabrikam.com/" "*") */
static bool
origin_ok(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char) s[i] <= ' ' || (unsigned char) s[i] >= 0x7f)
			return false;
	return true;
}

static bool
method_ok(const char *s, size_t n)
{
	static const char *const methods[] = {"DELETE", "GET", "HEAD", "MERGE", "PATCH", "POST", "OPTIONS", "PUT", NULL};

	for (int i = 0; methods[i]; i++)
		if (strlen(methods[i]) == n && memcmp(methods[i], s, n) == 0)
			return true;
	return false;
}

/* a header name, or a prefix ending in '*' */
static bool
header_ok(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
			  s[i] == '-' || s[i] == '_' || (s[i] == '*' && i == n - 1)))
			return false;
	return true;
}

static bool
cors(const XmlNode *n, ServiceProps *p)
{
	static const char *const rule_names[] = {"AllowedOrigins", "AllowedMethods", "AllowedHeaders", "ExposedHeaders",
	"MaxAgeInSeconds", NULL};
	static const char *const cors_names[] = {"CorsRule", NULL};

	p->cors_set = true;
	p->ncors = 0;
	if (!xml_only(n, cors_names, "CorsRule") || xml_count(n, "CorsRule") > PROPS_MAX_CORS)
		return false;
	for (const XmlNode *r = n->child; r; r = r->next)
	{
		CorsRule   *c = &p->cors[p->ncors++];
		const XmlNode *ah = xml_child(r, "AllowedHeaders");
		const XmlNode *eh = xml_child(r, "ExposedHeaders");

		if (!xml_only(r, rule_names, NULL))
			return false;
		c->origins = xml_child(r, "AllowedOrigins") ? xml_child(r, "AllowedOrigins")->text : NULL;
		c->methods = xml_child(r, "AllowedMethods") ? xml_child(r, "AllowedMethods")->text : NULL;
		c->allowed_headers = ah ? ah->text : NULL;
		c->exposed_headers = eh ? eh->text : NULL;
		if (!list_ok(c->origins, origin_ok, true) || !list_ok(c->methods, method_ok, false) ||
			!integer(xml_child(r, "MaxAgeInSeconds"), 0, 2147483647L, &c->max_age) ||
			(c->allowed_headers && !list_ok(c->allowed_headers, header_ok, true)) ||
			(c->exposed_headers && !list_ok(c->exposed_headers, header_ok, true)))
			return false;
	}
	return true;
}

bool
props_parse(Arena *a, const char *doc, size_t n, ServiceProps *out, const char **err)
{
	static const char *const names[] = {"Logging", "HourMetrics", "MinuteMetrics", "Cors", "DefaultServiceVersion", NULL};
	bool		empty;
	XmlNode    *root = xml_parse(a, doc, n, &empty, err);
	const XmlNode *c;

	memset(out, 0, sizeof(*out));
	if (root == NULL)
	{
		if (empty)
			*err = "the request body is empty";
		return false;
	}
	if (strcmp(root->name, "StorageServiceProperties") != 0 || !xml_only(root, names, NULL))
	{
		*err = "the document is not StorageServiceProperties of Logging, HourMetrics, MinuteMetrics and Cors";
		return false;
	}
	if ((c = xml_child(root, "Logging")) && !logging(c, &out->logging))
	{
		*err = "Logging is malformed (Version 1.0, Delete, Read, Write, RetentionPolicy)";
		return false;
	}
	if ((c = xml_child(root, "HourMetrics")) && !metrics(c, &out->hour))
	{
		*err = "HourMetrics is malformed (Version 1.0, Enabled, IncludeAPIs when enabled, RetentionPolicy)";
		return false;
	}
	if ((c = xml_child(root, "MinuteMetrics")) && !metrics(c, &out->minute))
	{
		*err = "MinuteMetrics is malformed (Version 1.0, Enabled, IncludeAPIs when enabled, RetentionPolicy)";
		return false;
	}
	if ((c = xml_child(root, "Cors")) && !cors(c, out))
	{
		*err = "Cors is malformed (at most 5 CorsRule of AllowedOrigins, AllowedMethods, AllowedHeaders, ExposedHeaders, MaxAgeInSeconds)";
		return false;
	}
	return true;
}

void
props_merge(ServiceProps *base, const ServiceProps *update)
{
	if (update->logging.set)
		base->logging = update->logging;
	if (update->hour.set)
		base->hour = update->hour;
	if (update->minute.set)
		base->minute = update->minute;
	if (update->cors_set)
	{
		base->cors_set = true;
		base->ncors = update->ncors;
		memcpy(base->cors, update->cors, sizeof(base->cors));
	}
}

static void
leaf(Buf *b, const char *name, const char *text)
{
	buf_printf(b, "<%s>", name);
	buf_xml_text(b, text ? text : "");
	buf_printf(b, "</%s>", name);
}

static const char *
tf(bool v)
{
	return v ? "true" : "false";
}

static void
render_retention(Buf *b, const Retention *r)
{
	buf_printf(b, "<RetentionPolicy><Enabled>%s</Enabled>", tf(r->enabled));
	if (r->enabled)
		buf_printf(b, "<Days>%d</Days>", r->days);
	buf_puts(b, "</RetentionPolicy>");
}

static void
render_metrics(Buf *b, const char *name, const MetricsProps *m)
{
	buf_printf(b, "<%s><Version>%s</Version><Enabled>%s</Enabled>", name, m->version ? m->version : "1.0", tf(m->enabled));
	if (m->enabled)
		buf_printf(b, "<IncludeAPIs>%s</IncludeAPIs>", tf(m->include_apis));
	render_retention(b, &m->retention);
	buf_printf(b, "</%s>", name);
}

void
props_render(Buf *b, const ServiceProps *p)
{
	buf_puts(b, "<?xml version=\"1.0\" encoding=\"utf-8\"?><StorageServiceProperties>");
	buf_printf(b, "<Logging><Version>%s</Version><Delete>%s</Delete><Read>%s</Read><Write>%s</Write>",
			   p->logging.version ? p->logging.version : "1.0", tf(p->logging.del), tf(p->logging.read), tf(p->logging.write));
	render_retention(b, &p->logging.retention);
	buf_puts(b, "</Logging>");
	render_metrics(b, "HourMetrics", &p->hour);
	render_metrics(b, "MinuteMetrics", &p->minute);
	buf_puts(b, "<Cors>");
	for (int i = 0; i < p->ncors; i++)
	{
		const CorsRule *c = &p->cors[i];

		buf_puts(b, "<CorsRule>");
		leaf(b, "AllowedOrigins", c->origins);
		leaf(b, "AllowedMethods", c->methods);
		leaf(b, "AllowedHeaders", c->allowed_headers);
		leaf(b, "ExposedHeaders", c->exposed_headers);
		buf_printf(b, "<MaxAgeInSeconds>%d</MaxAgeInSeconds>", c->max_age);
		buf_puts(b, "</CorsRule>");
	}
	buf_puts(b, "</Cors></StorageServiceProperties>");
}

/*
 * Is item (n bytes) in the comma-separated list? prefix: an entry ending in '*' matches by prefix;
 * exact_case: compared byte for byte (HTTP methods), else ignoring ASCII case (origins, headers).
 */
static bool
in_list(const char *list, const char *item, size_t n, bool prefix, bool exact_case)
{
	const char *p;
	size_t		l;
	bool		trailing;

	while (next_item(&list, &p, &l, &trailing))
	{
		if (l == 1 && p[0] == '*')
			return true;
		if (prefix && l > 0 && p[l - 1] == '*' && n >= l - 1 && ascii_nieq(p, item, l - 1))
			return true;
		if (l == n && (exact_case ? memcmp(p, item, n) == 0 : ascii_nieq(p, item, n)))
			return true;
	}
	return false;
}

/* The scheme and authority of an allowed origin: a path after them is dropped (an Origin has none). */
static size_t
origin_length(const char *p, size_t l)
{
	size_t		i = 0;

	while (i + 3 <= l && memcmp(p + i, "://", 3) != 0)
		i++;
	i = i + 3 <= l ? i + 3 : 0;
	while (i < l && p[i] != '/')
		i++;
	return i;
}

/*
 * Does s match pat, ignoring ASCII case, each '*' of pat standing for one or more characters?
 * The classic wildcard walk: on a mismatch, the last '*' seen takes one more character.
 */
static bool
wildcard_ieq(const char *pat, size_t pl, const char *s, size_t sl)
{
	size_t		pi = 0,
				si = 0,
				star = pl,		/* none yet */
				mark = 0;

	while (si < sl)
	{
		if (pi < pl && pat[pi] == '*')
		{
			star = pi++;
			mark = ++si;		/* at least one character */
		}
		else if (pi < pl && ascii_nieq(pat + pi, s + si, 1))
			pi++, si++;
		else if (star < pl)
		{
			pi = star + 1;
			si = ++mark;
		}
		else
			return false;
	}
	return pi == pl;
}

/*
 * Is origin allowed by the comma-separated list? "*" allows every origin; an entry is compared
 * ignoring ASCII case, with its wildcards (wildcard_ieq) and without its path: "http://" "*.contoso.com"
 * allows the subdomains of contoso.com over http, "https://www.fabrikam.com/" "*" that origin.
 */
static bool
origin_in_list(const char *list, const char *origin)
{
	const char *p;
	size_t		l,
				n = strlen(origin);
	bool		trailing;

	while (next_item(&list, &p, &l, &trailing))
	{
		if (l == 1 && p[0] == '*')
			return true;
		l = origin_length(p, l);
		if (memchr(p, '*', l) == NULL ? (l == n && ascii_nieq(p, origin, n)) :
			(n <= PROPS_MAX_ORIGIN && wildcard_ieq(p, l, origin, n)))
			return true;
	}
	return false;
}

static bool
headers_allowed(const CorsRule *c, const char *headers)
{
	const char *p;
	size_t		l;
	bool		trailing;

	while (next_item(&headers, &p, &l, &trailing))
		if (l > 0 && !in_list(c->allowed_headers, p, l, true, false))
			return false;
	return true;
}

const CorsRule *
props_cors_match(const ServiceProps *p, const char *origin, const char *method, const char *request_headers)
{
	if (origin == NULL || method == NULL)
		return NULL;
	for (int i = 0; i < p->ncors; i++)
	{
		const CorsRule *c = &p->cors[i];

		if (origin_in_list(c->origins, origin) &&
			in_list(c->methods, method, strlen(method), false, true) &&
			headers_allowed(c, request_headers))
			return c;
	}
	return NULL;
}

void
props_cors_expose(const CorsRule *c, const char *const *names, int n, Buf *out)
{
	const char *list = c->exposed_headers,
			   *p;
	size_t		l;
	bool		trailing;

	while (list && next_item(&list, &p, &l, &trailing))
	{
		if (l == 0)
			continue;
		if (p[l - 1] != '*' || l == 1)
		{
			if (out->len > 0)
				buf_puts(out, ",");
			buf_append(out, p, l);
			continue;
		}
		/* a prefix ("x-ms-*"): the response's headers that have it, each named */
		for (int i = 0; i < n; i++)
			if (strlen(names[i]) >= l - 1 && ascii_nieq(names[i], p, l - 1))
			{
				if (out->len > 0)
					buf_puts(out, ",");
				buf_puts(out, names[i]);
			}
	}
}

static bool
dup(Arena *a, char **s)
{
	if (*s == NULL)
		return true;
	*s = arena_strdup(a, *s);
	return *s != NULL;
}

bool
props_copy(Arena *a, const ServiceProps *src, ServiceProps *dst)
{
	bool		ok;

	*dst = *src;
	ok = dup(a, &dst->logging.version) && dup(a, &dst->hour.version) && dup(a, &dst->minute.version);
	for (int i = 0; i < dst->ncors && ok; i++)
		ok = dup(a, &dst->cors[i].origins) && dup(a, &dst->cors[i].methods) &&
			dup(a, &dst->cors[i].allowed_headers) && dup(a, &dst->cors[i].exposed_headers);
	return ok;
}
