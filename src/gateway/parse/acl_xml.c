/*
 * acl_xml.c - SignedIdentifiers documents (see acl_xml.h), read with xml.c:
 *
 *   SignedIdentifiers := SignedIdentifier{0,5}
 *   SignedIdentifier  := Id AccessPolicy?          (in any order, each once)
 *   AccessPolicy      := Start? Expiry? Permission? (in any order, each once)
 */
#include "acl_xml.h"
#include "xml.h"

#include <string.h>

static char *
leaf(const XmlNode *n, const char *name)
{
	const XmlNode *c = xml_child(n, name);

	return c ? c->text : NULL;
}

bool
acl_xml_parse(Arena *a, const char *xml, size_t n, AclPolicy *out, int *count, const char **err)
{
	static const char *const root_names[] = {"SignedIdentifier", NULL};
	static const char *const ident_names[] = {"Id", "AccessPolicy", NULL};
	static const char *const policy_names[] = {"Start", "Expiry", "Permission", NULL};
	bool		empty;
	XmlNode    *root = xml_parse(a, xml, n, &empty, err);

	*count = 0;
	if (root == NULL)
		return empty;			/* an empty body: no policies */
	if (strcmp(root->name, "SignedIdentifiers") != 0 || !xml_only(root, root_names, "SignedIdentifier"))
	{
		*err = "the document is not SignedIdentifiers of SignedIdentifier elements";
		return false;
	}
	if (xml_count(root, "SignedIdentifier") > ACL_MAX_POLICIES)
	{
		*err = "a table has at most 5 stored access policies";
		return false;
	}
	for (const XmlNode *id = root->child; id; id = id->next)
	{
		const XmlNode *pol = xml_child(id, "AccessPolicy");
		AclPolicy  *p = &out[(*count)++];

		if (!xml_only(id, ident_names, NULL) || (pol && !xml_only(pol, policy_names, NULL)))
		{
			*err = "a SignedIdentifier holds one Id and one AccessPolicy of Start, Expiry and Permission";
			return false;
		}
		p->id = leaf(id, "Id");
		if (p->id == NULL)
		{
			*err = "a SignedIdentifier has no Id";
			return false;
		}
		p->start = leaf(pol, "Start");
		p->expiry = leaf(pol, "Expiry");
		p->permission = leaf(pol, "Permission");
		if (strlen(p->id) > ACL_MAX_FIELD || (p->start && strlen(p->start) > ACL_MAX_FIELD) ||
			(p->expiry && strlen(p->expiry) > ACL_MAX_FIELD) || (p->permission && strlen(p->permission) > ACL_MAX_FIELD))
		{
			*err = "an element's text is too long";
			return false;
		}
	}
	return true;
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
		/* an identifier stored without a policy (or with an empty one) has none, as the service writes it */
		if (p[i].start || p[i].expiry || p[i].permission)
		{
			buf_puts(b, "<AccessPolicy>");
			xml_leaf(b, "Start", p[i].start);
			xml_leaf(b, "Expiry", p[i].expiry);
			xml_leaf(b, "Permission", p[i].permission);
			buf_puts(b, "</AccessPolicy>");
		}
		buf_puts(b, "</SignedIdentifier>");
	}
	buf_puts(b, "</SignedIdentifiers>");
}
