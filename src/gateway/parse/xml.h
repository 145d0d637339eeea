/*
 * xml.h - the one XML reader of the gateway, for the service's small XML documents (Set Table ACL,
 * Set Service Properties): a tree of elements with their text, strict and bounded.
 *
 * Accepted: a byte-order mark, an XML declaration and other processing instructions, comments,
 * whitespace between elements, elements without attributes (<A>, <A/>, </A>), text with the five
 * predefined entities and character references, CR LF read as LF. Refused: attributes, DTDs,
 * CDATA, text beside child elements, control characters, text that is not UTF-8, more than
 * XML_MAX_DEPTH levels or XML_MAX_NODES elements, text longer than XML_MAX_TEXT bytes.
 * Pure: no libmicrohttpd, no libpq (fuzzed).
 */
#ifndef GW_XML_H
#define GW_XML_H

#include "util.h"

#define XML_MAX_DEPTH 8
#define XML_MAX_NODES 512
#define XML_MAX_TEXT 4096

typedef struct XmlNode
{
	char	   *name;
	char	   *text;			/* decoded text of a leaf; NULL for an empty leaf or an element with children */
	struct XmlNode *child;		/* first child */
	struct XmlNode *next;		/* next sibling */
} XmlNode;

/* Parse a document; NULL with *err a fixed reason. An empty document (only whitespace) is *empty. */
extern XmlNode *xml_parse(Arena *a, const char *s, size_t n, bool *empty, const char **err);

/* The first child named name, or NULL. */
extern const XmlNode *xml_child(const XmlNode *n, const char *name);

/* How many children are named name. */
extern int	xml_count(const XmlNode *n, const char *name);

/* Does every child have one of the names (NULL-terminated list), each at most once unless repeatable? */
extern bool xml_only(const XmlNode *n, const char *const *names, const char *repeatable);

#endif
