/*
 * acl_xml.c - SignedIdentifiers documents (see acl_xml.h): a recursive-descent reader over a
 * small fixed grammar, bounded in depth (three levels) and size (the request body's 4 MiB cap
 * and ACL_MAX_FIELD per text).
 *
 *   doc        := prolog? element("SignedIdentifiers", ident*) misc*
 *   ident      := element("SignedIdentifier", (Id | AccessPolicy)*)
 *   policy     := element("AccessPolicy", (Start | Expiry | Permission)*)
 */
#include "acl_xml.h"

#include <string.h>

typedef struct Reader
{
	Arena	   *a;
	const char *s;
	size_t		n;
	size_t		i;
	const char *err;
} Reader;

static bool
fail(Reader *r, const char *why)
{
	if (r->err == NULL)
		r->err = why;
	return false;
}

static bool
at(const Reader *r, const char *lit)
{
	size_t		l = strlen(lit);

	return r->n - r->i >= l && memcmp(r->s + r->i, lit, l) == 0;
}

/* whitespace, comments and processing instructions (the XML declaration) */
static bool
skip_misc(Reader *r)
{
	for (;;)
	{
		while (r->i < r->n && (r->s[r->i] == ' ' || r->s[r->i] == '\t' || r->s[r->i] == '\r' || r->s[r->i] == '\n'))
			r->i++;
		if (at(r, "<!--") || at(r, "<?"))
		{
			const char *end = at(r, "<?") ? "?>" : "-->";
			size_t		el = strlen(end);
			size_t		j = r->i + 2;

			while (j + el <= r->n && memcmp(r->s + j, end, el) != 0)
				j++;
			if (j + el > r->n)
				return fail(r, "an unterminated comment or declaration");
			r->i = j + el;
			continue;
		}
		return true;
	}
}

/* "<Name>" or "<Name/>" (whitespace before '>' allowed): the name's length, and whether empty */
static bool
open_tag(Reader *r, const char **name, size_t *len, bool *empty)
{
	size_t		j;

	if (r->i >= r->n || r->s[r->i] != '<' || (r->i + 1 < r->n && (r->s[r->i + 1] == '/' || r->s[r->i + 1] == '!')))
		return fail(r, "an element was expected");
	j = r->i + 1;
	*name = r->s + j;
	while (j < r->n && ((r->s[j] >= 'A' && r->s[j] <= 'Z') || (r->s[j] >= 'a' && r->s[j] <= 'z')))
		j++;
	*len = (size_t) (r->s + j - *name);
	while (j < r->n && r->s[j] == ' ')
		j++;
	if (*len == 0 || j >= r->n)
		return fail(r, "a malformed start tag");
	*empty = r->s[j] == '/';
	if (*empty)
		j++;
	if (j >= r->n || r->s[j] != '>')
		return fail(r, "a malformed start tag (attributes are not expected)");
	r->i = j + 1;
	return true;
}

static bool
close_tag(Reader *r, const char *name, size_t len)
{
	size_t		j;

	if (!skip_misc(r))
		return false;
	if (r->n - r->i < len + 3 || memcmp(r->s + r->i, "</", 2) != 0 || memcmp(r->s + r->i + 2, name, len) != 0)
		return fail(r, "a start tag is not closed by its end tag");
	j = r->i + 2 + len;
	while (j < r->n && r->s[j] == ' ')
		j++;
	if (j >= r->n || r->s[j] != '>')
		return fail(r, "a malformed end tag");
	r->i = j + 1;
	return true;
}

static bool
name_is(const char *name, size_t len, const char *want)
{
	return strlen(want) == len && memcmp(name, want, len) == 0;
}

static void
put_utf8(char *out, size_t *o, unsigned long cp)
{
	if (cp < 0x80)
		out[(*o)++] = (char) cp;
	else if (cp < 0x800)
	{
		out[(*o)++] = (char) (0xC0 | (cp >> 6));
		out[(*o)++] = (char) (0x80 | (cp & 0x3F));
	}
	else if (cp < 0x10000)
	{
		out[(*o)++] = (char) (0xE0 | (cp >> 12));
		out[(*o)++] = (char) (0x80 | ((cp >> 6) & 0x3F));
		out[(*o)++] = (char) (0x80 | (cp & 0x3F));
	}
	else
	{
		out[(*o)++] = (char) (0xF0 | (cp >> 18));
		out[(*o)++] = (char) (0x80 | ((cp >> 12) & 0x3F));
		out[(*o)++] = (char) (0x80 | ((cp >> 6) & 0x3F));
		out[(*o)++] = (char) (0x80 | (cp & 0x3F));
	}
}

/* a leaf's text up to '<', entities decoded; NULL when empty */
static bool
text(Reader *r, char **out)
{
	char		buf[ACL_MAX_FIELD + 4] = {0};
	size_t		o = 0;

	while (r->i < r->n && r->s[r->i] != '<')
	{
		char		c = r->s[r->i];

		if (o >= ACL_MAX_FIELD)
			return fail(r, "an element's text is too long");
		if (c == '&')
		{
			static const struct
			{
				const char *ent;
				char		c;
			}			ents[] = {{"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
			bool		done = false;

			for (size_t k = 0; k < sizeof(ents) / sizeof(*ents) && !done; k++)
				if (at(r, ents[k].ent))
				{
					buf[o++] = ents[k].c;
					r->i += strlen(ents[k].ent);
					done = true;
				}
			if (!done && at(r, "&#"))
			{
				unsigned long cp = 0;
				size_t		j = r->i + 2;
				bool		hex = j < r->n && r->s[j] == 'x';
				int			digits = 0;

				if (hex)
					j++;
				while (j < r->n && digits < 8 && (hex ? hexval((unsigned char) r->s[j]) >= 0 : (r->s[j] >= '0' && r->s[j] <= '9')))
				{
					cp = cp * (hex ? 16 : 10) + (unsigned long) (hex ? hexval((unsigned char) r->s[j]) : r->s[j] - '0');
					j++;
					digits++;
				}
				if (digits == 0 || j >= r->n || r->s[j] != ';' || (cp < 0x20 && cp != '\t' && cp != '\n') ||
					cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
					return fail(r, "a malformed character reference");
				put_utf8(buf, &o, cp);
				r->i = j + 1;
				done = true;
			}
			if (!done)
				return fail(r, "a malformed entity");
			continue;
		}
		if (c == '\r')
		{
			/* line ends are normalized to LF, as XML reads them */
			r->i++;
			if (r->i < r->n && r->s[r->i] == '\n')
				r->i++;
			buf[o++] = '\n';
			continue;
		}
		if ((unsigned char) c < 0x20 && c != '\t' && c != '\n')
			return fail(r, "a control character in the document");
		buf[o++] = c;
		r->i++;
	}
	if (!utf8_valid((const unsigned char *) buf, o))
		return fail(r, "text that is not UTF-8");
	*out = NULL;
	if (o == 0)
		return true;
	*out = arena_strndup(r->a, buf, o);
	return *out != NULL || fail(r, "out of memory");
}

/* <Name>text</Name> or <Name/>, after its start tag */
static bool
leaf(Reader *r, const char *name, size_t len, bool empty, char **out)
{
	*out = NULL;
	if (empty)
		return true;
	return text(r, out) && close_tag(r, name, len);
}

static bool
access_policy(Reader *r, AclPolicy *p)
{
	for (;;)
	{
		const char *name;
		size_t		len;
		bool		empty;
		char	  **field;

		if (!skip_misc(r))
			return false;
		if (at(r, "</"))
			return close_tag(r, "AccessPolicy", 12);
		if (!open_tag(r, &name, &len, &empty))
			return false;
		if (name_is(name, len, "Start"))
			field = &p->start;
		else if (name_is(name, len, "Expiry"))
			field = &p->expiry;
		else if (name_is(name, len, "Permission"))
			field = &p->permission;
		else
			return fail(r, "an AccessPolicy holds Start, Expiry and Permission only");
		if (*field != NULL)
			return fail(r, "an element of an AccessPolicy is given twice");
		if (!leaf(r, name, len, empty, field))
			return false;
	}
}

static bool
identifier(Reader *r, AclPolicy *p)
{
	bool		seen_policy = false;

	for (;;)
	{
		const char *name;
		size_t		len;
		bool		empty;

		if (!skip_misc(r))
			return false;
		if (at(r, "</"))
		{
			if (p->id == NULL)
				return fail(r, "a SignedIdentifier has no Id");
			return close_tag(r, "SignedIdentifier", 16);
		}
		if (!open_tag(r, &name, &len, &empty))
			return false;
		if (name_is(name, len, "Id"))
		{
			if (p->id != NULL)
				return fail(r, "a SignedIdentifier has two Ids");
			if (!leaf(r, name, len, empty, &p->id))
				return false;
		}
		else if (name_is(name, len, "AccessPolicy"))
		{
			if (seen_policy)
				return fail(r, "a SignedIdentifier has two AccessPolicy elements");
			seen_policy = true;
			if (!empty && !access_policy(r, p))
				return false;
		}
		else
			return fail(r, "a SignedIdentifier holds Id and AccessPolicy only");
	}
}

bool
acl_xml_parse(Arena *a, const char *xml, size_t n, AclPolicy *out, int *count, const char **err)
{
	Reader		r = {a, xml, n, 0, NULL};
	const char *name;
	size_t		len;
	bool		empty;

	*count = 0;
	/* a byte-order mark */
	if (n >= 3 && memcmp(xml, "\xEF\xBB\xBF", 3) == 0)
		r.i = 3;
	if (!skip_misc(&r))
		goto bad;
	if (r.i == n)
		return true;			/* an empty body: no policies */
	if (!open_tag(&r, &name, &len, &empty))
		goto bad;
	if (!name_is(name, len, "SignedIdentifiers"))
	{
		fail(&r, "the document is not SignedIdentifiers");
		goto bad;
	}
	while (!empty)
	{
		if (!skip_misc(&r))
			goto bad;
		if (at(&r, "</"))
		{
			if (!close_tag(&r, "SignedIdentifiers", 17))
				goto bad;
			break;
		}
		if (!open_tag(&r, &name, &len, &empty))
			goto bad;
		if (!name_is(name, len, "SignedIdentifier") || empty)
		{
			fail(&r, "SignedIdentifiers holds SignedIdentifier elements, each with an Id");
			goto bad;
		}
		if (*count >= ACL_MAX_POLICIES)
		{
			fail(&r, "a table has at most 5 stored access policies");
			goto bad;
		}
		memset(&out[*count], 0, sizeof(AclPolicy));
		if (!identifier(&r, &out[*count]))
			goto bad;
		(*count)++;
		empty = false;
	}
	if (!skip_misc(&r))
		goto bad;
	if (r.i != n)
	{
		fail(&r, "content after the document");
		goto bad;
	}
	return true;
bad:
	*err = r.err ? r.err : "the document is malformed";
	return false;
}

static void
json_member(Buf *b, const char *name, const char *v, bool first)
{
	buf_printf(b, "%s\"%s\":", first ? "" : ",", name);
	if (v == NULL)
		buf_puts(b, "null");
	else
		buf_json_string(b, v, strlen(v));
}

void
acl_json(Buf *b, const AclPolicy *p, int n)
{
	buf_puts(b, "[");
	for (int i = 0; i < n; i++)
	{
		buf_puts(b, i ? ",{" : "{");
		json_member(b, "Id", p[i].id, true);
		json_member(b, "Start", p[i].start, false);
		json_member(b, "Expiry", p[i].expiry, false);
		json_member(b, "Permission", p[i].permission, false);
		buf_puts(b, "}");
	}
	buf_puts(b, "]");
}

static void
xml_leaf(Buf *b, const char *name, const char *v)
{
	if (v == NULL)
		return;
	buf_printf(b, "<%s>", name);
	buf_xml_text(b, v);
	buf_printf(b, "</%s>", name);
}

void
acl_xml_render(Buf *b, const AclPolicy *p, int n)
{
	buf_puts(b, "<?xml version=\"1.0\" encoding=\"utf-8\"?><SignedIdentifiers>");
	for (int i = 0; i < n; i++)
	{
		buf_puts(b, "<SignedIdentifier>");
		xml_leaf(b, "Id", p[i].id);
		buf_puts(b, "<AccessPolicy>");
		xml_leaf(b, "Start", p[i].start);
		xml_leaf(b, "Expiry", p[i].expiry);
		xml_leaf(b, "Permission", p[i].permission);
		buf_puts(b, "</AccessPolicy></SignedIdentifier>");
	}
	buf_puts(b, "</SignedIdentifiers>");
}
