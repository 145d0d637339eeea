/*
 * xml.c - the XML reader (see xml.h): recursive descent over elements, bounded in depth, element
 * count and text length; the arena holds the tree.
 */
#include "xml.h"

#include <stdlib.h>
#include <string.h>

typedef struct Reader
{
	Arena	   *a;
	const char *s;
	size_t		n;
	size_t		i;
	int			nodes;
	const char *err;
	char		tbuf[XML_MAX_TEXT + 8];	/* the text being read (a reference adds at most 4 bytes) */
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

static bool
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/*
 * Whitespace and comments; and the XML declaration when the document starts here (decl_at: its
 * offset, or -1). Any other processing instruction is refused: nothing here reads one.
 */
static bool
skip_misc(Reader *r, long decl_at)
{
	for (;;)
	{
		while (r->i < r->n && is_space(r->s[r->i]))
			r->i++;
		if (at(r, "<?") && !((long) r->i == decl_at && at(r, "<?xml") && r->n - r->i > 5 && is_space(r->s[r->i + 5])))
			return fail(r, "a processing instruction");
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

static bool
name_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
}

/* one entity or character reference at r->i into buf */
static bool
reference(Reader *r, char *buf, size_t *o)
{
	static const struct
	{
		const char *ent;
		char		c;
	}			ents[] = {{"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};

	for (size_t k = 0; k < sizeof(ents) / sizeof(*ents); k++)
		if (at(r, ents[k].ent))
		{
			buf[(*o)++] = ents[k].c;
			r->i += strlen(ents[k].ent);
			return true;
		}
	if (at(r, "&#"))
	{
		unsigned long cp = 0;
		size_t		j = r->i + 2;
		bool		hex = j < r->n && r->s[j] == 'x';
		int			digits = 0;

		if (hex)
			j++;
		while (j < r->n && digits < 8 &&
			   (hex ? edm_hexval(r->s[j]) >= 0 : (r->s[j] >= '0' && r->s[j] <= '9')))
		{
			cp = cp * (hex ? 16 : 10) + (unsigned long) (hex ? edm_hexval(r->s[j]) : r->s[j] - '0');
			j++;
			digits++;
		}
		if (digits == 0 || j >= r->n || r->s[j] != ';' || (cp < 0x20 && cp != '\t' && cp != '\n') ||
			cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
			return fail(r, "a malformed character reference");
		*o += edm_utf8_encode((uint32) cp, buf + *o);
		r->i = j + 1;
		return true;
	}
	return fail(r, "a malformed entity");
}

/* text up to the next '<', decoded; *out NULL when it is only whitespace */
static bool
read_text(Reader *r, char **out, bool *blank)
{
	char	   *buf = r->tbuf;
	size_t		o = 0;

	*out = NULL;
	*blank = true;
	while (r->i < r->n && r->s[r->i] != '<')
	{
		char		c = r->s[r->i];

		if (o >= XML_MAX_TEXT)
			return fail(r, "an element's text is too long");
		if (c == '&')
		{
			if (!reference(r, buf, &o))
				return false;
			*blank = false;
			continue;
		}
		if (c == '\r')
		{
			r->i++;
			if (r->i < r->n && r->s[r->i] == '\n')
				r->i++;
			buf[o++] = '\n';
			continue;
		}
		if ((unsigned char) c < 0x20 && c != '\t' && c != '\n')
			return fail(r, "a control character in the document");
		if (!is_space(c))
			*blank = false;
		buf[o++] = c;
		r->i++;
	}
	if (!edm_utf8_valid(buf, o))
		return fail(r, "text that is not UTF-8");
	if (!*blank && (*out = arena_strndup(r->a, buf, o)) == NULL)
		return fail(r, "out of memory");
	return true;
}

static XmlNode *element(Reader *r, int depth);

/* the children of an element after its start tag, up to and including its end tag */
static bool
content(Reader *r, XmlNode *e, int depth)
{
	XmlNode   **tail = &e->child;
	char	   *t;
	bool		blank;

	for (;;)
	{
		if (!read_text(r, &t, &blank))
			return false;
		if (at(r, "<!--") || at(r, "<?"))
		{
			if (!blank)
				return fail(r, "text beside a comment");
			if (!skip_misc(r, -1))
				return false;
			continue;
		}
		if (at(r, "</"))
		{
			size_t		len = strlen(e->name),
						j;

			if (e->child != NULL && !blank)
				return fail(r, "text beside child elements");
			if (e->child == NULL && !blank)
				e->text = t;
			if (r->n - r->i < len + 3 || memcmp(r->s + r->i + 2, e->name, len) != 0)
				return fail(r, "a start tag is not closed by its end tag");
			j = r->i + 2 + len;
			while (j < r->n && is_space(r->s[j]))
				j++;
			if (j >= r->n || r->s[j] != '>')
				return fail(r, "a malformed end tag");
			r->i = j + 1;
			return true;
		}
		if (r->i >= r->n)
			return fail(r, "the document ends inside an element");
		if (!blank)
			return fail(r, "text beside child elements");
		*tail = element(r, depth + 1);
		if (*tail == NULL)
			return false;
		tail = &(*tail)->next;
	}
}

/* an element at r->i ('<' expected) */
static XmlNode *
element(Reader *r, int depth)
{
	XmlNode    *e;
	size_t		j,
				start;

	if (depth > XML_MAX_DEPTH)
		return fail(r, "the document is nested too deeply"), NULL;
	if (++r->nodes > XML_MAX_NODES)
		return fail(r, "the document has too many elements"), NULL;
	if (r->i >= r->n || r->s[r->i] != '<' || at(r, "<!") || at(r, "</"))
		return fail(r, "an element was expected"), NULL;
	start = j = r->i + 1;
	while (j < r->n && name_char(r->s[j]))
		j++;
	if (j == start || j >= r->n)
		return fail(r, "a malformed start tag"), NULL;
	e = arena_alloc(r->a, sizeof(XmlNode));
	if (e == NULL || (e->name = arena_strndup(r->a, r->s + start, j - start)) == NULL)
		return fail(r, "out of memory"), NULL;
	while (j < r->n && is_space(r->s[j]))
		j++;
	if (j < r->n && r->s[j] == '/')
	{
		if (j + 1 >= r->n || r->s[j + 1] != '>')
			return fail(r, "a malformed start tag"), NULL;
		r->i = j + 2;
		return e;
	}
	if (j >= r->n || r->s[j] != '>')
		return fail(r, "a malformed start tag (attributes are not expected)"), NULL;
	r->i = j + 1;
	return content(r, e, depth) ? e : NULL;
}

static XmlNode *parse(Reader *r, bool *empty, bool *ok);

XmlNode *
xml_parse(Arena *a, const char *s, size_t n, bool *empty, const char **err)
{
	Reader	   *rp = malloc(sizeof(Reader));	/* its text buffer is too big for a thread's stack */
	XmlNode    *root;
	bool		ok;

	*empty = false;
	if (rp == NULL)
	{
		*err = "out of memory";
		return NULL;
	}
	*rp = (Reader) {a, s, n, 0, 0, NULL, {0}};
	root = parse(rp, empty, &ok);
	if (!ok)
		*err = rp->err ? rp->err : "the document is malformed";
	free(rp);
	return ok ? root : NULL;
}

/* the document in r: the root element between whitespace and comments, after an XML declaration */
static XmlNode *
parse(Reader *r, bool *empty, bool *ok)
{
	XmlNode    *root;

	*ok = false;
	if (r->n >= 3 && memcmp(r->s, "\xEF\xBB\xBF", 3) == 0)
		r->i = 3;
	if (!skip_misc(r, (long) r->i))
		return NULL;
	if (r->i == r->n)
	{
		*empty = true;
		*ok = true;
		return NULL;
	}
	root = element(r, 1);
	if (root == NULL || !skip_misc(r, -1))
		return NULL;
	if (r->i != r->n)
	{
		fail(r, "content after the document");
		return NULL;
	}
	*ok = true;
	return root;
}

const XmlNode *
xml_child(const XmlNode *n, const char *name)
{
	for (const XmlNode *c = n ? n->child : NULL; c; c = c->next)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}

int
xml_count(const XmlNode *n, const char *name)
{
	int			k = 0;

	for (const XmlNode *c = n ? n->child : NULL; c; c = c->next)
		k += strcmp(c->name, name) == 0;
	return k;
}

bool
xml_only(const XmlNode *n, const char *const *names, const char *repeatable)
{
	for (const XmlNode *c = n->child; c; c = c->next)
	{
		bool		known = false;

		for (int i = 0; names[i] && !known; i++)
			known = strcmp(c->name, names[i]) == 0;
		if (!known || ((repeatable == NULL || strcmp(c->name, repeatable) != 0) && xml_count(n, c->name) > 1))
			return false;
	}
	return true;
}
