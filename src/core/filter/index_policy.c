/*
 * index_policy.c - indexing policies (index_policy.h): the strict parser, the normal form, and
 * the operator class options that carry a policy in its index. Backend-free.
 */
#include "index_policy.h"

#include "edm.h"
#include "entity_format.h"
#include "json_lex.h"

/* The paths of a list: the root (a slash and a star) and property names ("/Name/?"). */
typedef struct PathList
{
	bool		present;		/* the member was given */
	bool		root;			/* the root path */
	int			n;
	const char **names;
	uint32	   *lens;
} PathList;

static bool
policy_error(TsError *err, const char *fmt, const char *arg)
{
	char		ex[TS_EXCERPT_BUF];

	return ts_fail(err, TSE_INDEX_POLICY, fmt, arg ? ts_excerpt(ex, sizeof(ex), arg, strlen(arg)) : "");
}

void
index_policy_default(IndexPolicy *p)
{
	memset(p, 0, sizeof(*p));
	p->consistent = true;
	p->all = true;
}

/* Sort names bytewise and drop duplicates (insertion sort: at most INDEX_POLICY_MAX_PATHS). */
static int
sort_names(const char **names, uint32 *lens, int n)
{
	int			out = 0;

	for (int i = 1; i < n; i++)
	{
		const char *nm = names[i];
		uint32		ln = lens[i];
		int			j = i - 1;

		while (j >= 0 && entity_name_cmp(names[j], lens[j], nm, ln) > 0)
		{
			names[j + 1] = names[j];
			lens[j + 1] = lens[j];
			j--;
		}
		names[j + 1] = nm;
		lens[j + 1] = ln;
	}
	for (int i = 0; i < n; i++)
	{
		if (out > 0 && entity_name_cmp(names[out - 1], lens[out - 1], names[i], lens[i]) == 0)
			continue;
		names[out] = names[i];
		lens[out++] = lens[i];
	}
	return out;
}

static bool
find_name(const char *const *names, const uint32 *lens, int n, const char *name, uint32 len)
{
	int			lo = 0,
				hi = n - 1;

	while (lo <= hi)
	{
		int			mid = (lo + hi) / 2;
		int			c = entity_name_cmp(names[mid], lens[mid], name, len);

		if (c == 0)
			return true;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return false;
}

/* One property name of a policy: a valid custom property name. */
static bool
check_name(const char *s, uint32 len, TsError *err)
{
	char	   *copy = pnstrdup(s, len);

	switch (edm_check_name(s, len))
	{
		case EDM_CHECK_OK:
			pfree(copy);
			return true;
		case EDM_CHECK_RESERVED:
			return policy_error(err, "the path of \"%s\" names a system property: PartitionKey and RowKey are "
								"indexed by the primary key, Timestamp is a column", copy);
		case EDM_CHECK_TOO_LONG:
			return policy_error(err, "the path of \"%s\" names a property longer than 255 characters", copy);
		default:
			return policy_error(err, "\"%s\" is not a property name (letters, digits and _, not starting "
								"with a digit)", copy);
	}
}

/*
 * A path string: the root, "/Name/?" or "/Name/" and a star (a property has no nested paths), or
 * Cosmos's "/\"_etag\"/?" (ignored).
 */
static bool
add_path(PathList *pl, const char *s, uint32 len, TsError *err)
{
	const char *name;
	uint32		nlen;

	if (len == 2 && memcmp(s, "/*", 2) == 0)
	{
		pl->root = true;
		return true;
	}
	if (len == 10 && memcmp(s, "/\"_etag\"/?", 10) == 0)
		return true;			/* Cosmos DB adds it to every policy it returns */
	if (len < 4 || s[0] != '/' || s[len - 2] != '/' || (s[len - 1] != '?' && s[len - 1] != '*'))
		return policy_error(err, "the path \"%s\" is not \"/*\" or \"/<property name>/?\"", pnstrdup(s, len));
	name = s + 1;
	nlen = len - 3;
	if (memchr(name, '/', nlen) != NULL)
		return policy_error(err, "the path \"%s\" is nested: entities have no nested properties",
							pnstrdup(s, len));
	if (!check_name(name, nlen, err))
		return false;
	if (pl->n >= INDEX_POLICY_MAX_PATHS)
		return ts_fail(err, TSE_INDEX_POLICY, "a policy names at most %d paths", INDEX_POLICY_MAX_PATHS);
	pl->names[pl->n] = name;
	pl->lens[pl->n++] = nlen;
	return true;
}

static bool
member_is(const JsonToken *k, const char *name)
{
	return k->len == strlen(name) && memcmp(k->p, name, k->len) == 0;
}

/* [{"path": "..."}, ...] */
static bool
parse_paths(JsonLex *lx, PathList *pl, const char *member, TsError *err)
{
	JsonToken	t;

	pl->present = true;
	pl->names = palloc(sizeof(char *) * INDEX_POLICY_MAX_PATHS);
	pl->lens = palloc(sizeof(uint32) * INDEX_POLICY_MAX_PATHS);
	if (!json_next(lx, &t))
		return false;
	if (t.kind != JT_LBRACKET)
		return policy_error(err, "%s must be an array of {\"path\": ...} objects", member);
	if (json_peek(lx) == ']')
	{
		lx->i++;
		return true;
	}
	for (;;)
	{
		JsonToken	k,
					v;
		bool		has_path = false;

		if (!json_next(lx, &t))
			return false;
		if (t.kind != JT_LBRACE)
			return policy_error(err, "%s must be an array of {\"path\": ...} objects", member);
		for (bool first = true;;)
		{
			if (!json_next_member(lx, &first, &k, true))
				return false;
			if (k.kind == JT_RBRACE)
				break;
			if (!member_is(&k, "path"))
				return policy_error(err, "a path object has the member \"%s\"; only \"path\" is supported",
									pnstrdup(k.p, k.len));
			if (has_path)
				return policy_error(err, "a path object gives \"path\" twice%s", NULL);
			has_path = true;
			if (!json_next(lx, &v))
				return false;
			if (v.kind != JT_STRING)
				return policy_error(err, "a path must be a string%s", NULL);
			if (!json_decode_string(lx, &v) || !add_path(pl, v.p, v.len, err))
				return false;
		}
		if (!has_path)
			return policy_error(err, "a path object in %s has no \"path\"", member);
		if (json_peek(lx) == ',')
		{
			lx->i++;
			continue;
		}
		if (json_peek(lx) == ']')
		{
			lx->i++;
			return true;
		}
		return json_error(lx, lx->i, "',' or ']' was expected");
	}
}

/* A member Cosmos DB has and tablestore does not: accepted only as an empty array. */
static bool
empty_array_only(JsonLex *lx, const char *member, TsError *err)
{
	int			count = 0;

	if (json_peek(lx) != '[')
		return policy_error(err, "%s must be an array", member);
	if (!json_skip_value(lx, 8, &count))
		return false;
	if (count > 0)
		return policy_error(err, "%s are not supported: every included property has one index that serves "
							"equality and range filters", member);
	return true;
}

bool
index_policy_parse(const char *json, size_t len, IndexPolicy *p, TsError *err)
{
	JsonLex		lx;
	JsonToken	t;
	PathList	inc = {0},
				exc = {0};
	bool		seen_mode = false,
				seen_auto = false,
				automatic = true;

	index_policy_default(p);
	json_lex_init(&lx, json, len, err, TSE_INDEX_POLICY, "the indexing policy is not valid JSON");
	if (!json_next(&lx, &t))
		return false;
	if (t.kind != JT_LBRACE)
		return policy_error(err, "an indexing policy is a JSON object such as {\"indexingMode\": \"consistent\"}%s", NULL);
	for (bool first = true;;)
	{
		JsonToken	k,
					v;

		if (!json_next_member(&lx, &first, &k, true))
			return false;
		if (k.kind == JT_RBRACE)
			break;
		if (member_is(&k, "indexingMode"))
		{
			if (seen_mode)
				return policy_error(err, "the policy gives indexingMode twice%s", NULL);
			seen_mode = true;
			if (!json_next(&lx, &v))
				return false;
			if (v.kind != JT_STRING || !json_decode_string(&lx, &v))
				return policy_error(err, "indexingMode must be \"consistent\" or \"none\"%s", NULL);
			if (v.len == 10 && pg_strncasecmp(v.p, "consistent", 10) == 0)
				p->consistent = true;
			else if (v.len == 4 && pg_strncasecmp(v.p, "none", 4) == 0)
				p->consistent = false;
			else if (v.len == 4 && pg_strncasecmp(v.p, "lazy", 4) == 0)
				return policy_error(err, "indexingMode \"lazy\" is not supported: the index is always up to date "
									"(\"consistent\") or absent (\"none\")%s", NULL);
			else
				return policy_error(err, "indexingMode must be \"consistent\" or \"none\", not \"%s\"",
									pnstrdup(v.p, v.len));
		}
		else if (member_is(&k, "automatic"))
		{
			if (seen_auto)
				return policy_error(err, "the policy gives automatic twice%s", NULL);
			seen_auto = true;
			if (!json_next(&lx, &v))
				return false;
			if (v.kind != JT_TRUE && v.kind != JT_FALSE)
				return policy_error(err, "automatic must be true or false%s", NULL);
			automatic = v.kind == JT_TRUE;
		}
		else if (member_is(&k, "includedPaths") || member_is(&k, "excludedPaths"))
		{
			PathList   *pl = member_is(&k, "includedPaths") ? &inc : &exc;
			const char *m = pl == &inc ? "includedPaths" : "excludedPaths";

			if (pl->present)
				return policy_error(err, "the policy gives %s twice", m);
			if (!parse_paths(&lx, pl, m, err))
				return false;
		}
		else if (member_is(&k, "compositeIndexes") || member_is(&k, "spatialIndexes") ||
				 member_is(&k, "vectorIndexes") || member_is(&k, "fullTextIndexes"))
		{
			if (!empty_array_only(&lx, pnstrdup(k.p, k.len), err))
				return false;
		}
		else
			return policy_error(err, "the policy has the member \"%s\"; known are indexingMode, automatic, "
								"includedPaths and excludedPaths", pnstrdup(k.p, k.len));
	}
	if (json_peek(&lx) != '\0')
		return json_error(&lx, lx.i, "unexpected text after the object");

	if (!p->consistent)
	{
		if (inc.root || inc.n > 0 || exc.root || exc.n > 0)
			return policy_error(err, "a policy with indexingMode \"none\" has no included or excluded paths%s", NULL);
		return true;
	}
	if (!automatic)
		return policy_error(err, "automatic false is not supported: under indexingMode \"consistent\" every "
							"included property is indexed as it is written%s", NULL);
	if (inc.root && exc.root)
		return policy_error(err, "the root path \"/*\" is both included and excluded%s", NULL);
	if (!inc.root && !exc.root)
	{
		if (inc.present)
			return policy_error(err, "the root path \"/*\" must be in includedPaths or in excludedPaths%s", NULL);
		inc.root = true;		/* only exclusions given: everything else is included */
	}
	inc.n = inc.n ? sort_names(inc.names, inc.lens, inc.n) : 0;
	exc.n = exc.n ? sort_names(exc.names, exc.lens, exc.n) : 0;
	for (int i = 0; i < exc.n; i++)
		if (find_name(inc.names, inc.lens, inc.n, exc.names[i], exc.lens[i]))
			return policy_error(err, "the property \"%s\" is both included and excluded",
								pnstrdup(exc.names[i], exc.lens[i]));
	{
		size_t		bytes = 0;
		const PathList *listed = inc.root ? &exc : &inc;

		for (int i = 0; i < listed->n; i++)
			bytes += listed->lens[i] + (i > 0);
		if (bytes > INDEX_POLICY_MAX_NAME_BYTES)
			return ts_fail(err, TSE_INDEX_POLICY, "the property names of the policy's paths take %zu bytes together; "
						   "at most %d may be listed (the index carries them as its options)",
						   bytes, INDEX_POLICY_MAX_NAME_BYTES);
	}
	p->all = inc.root;
	if (p->all)
	{
		p->nnames = exc.n;
		p->names = exc.names;
		p->lens = exc.lens;
	}
	else
	{
		p->nnames = inc.n;
		p->names = inc.names;
		p->lens = inc.lens;
	}
	return true;
}

static void
append_paths(StringInfo out, const IndexPolicy *p, bool root)
{
	appendStringInfoChar(out, '[');
	if (root)
		appendStringInfoString(out, "{\"path\":\"/*\"}");
	else
		for (int i = 0; i < p->nnames; i++)
		{
			appendStringInfoString(out, i ? ",{\"path\":\"/" : "{\"path\":\"/");
			appendBinaryStringInfo(out, p->names[i], p->lens[i]);	/* identifier characters: no escapes */
			appendStringInfoString(out, "/?\"}");
		}
	appendStringInfoChar(out, ']');
}

void
index_policy_append_json(StringInfo out, const IndexPolicy *p)
{
	if (!p->consistent)
	{
		appendStringInfoString(out, "{\"indexingMode\":\"none\",\"automatic\":false,\"includedPaths\":[],\"excludedPaths\":[]}");
		return;
	}
	appendStringInfoString(out, "{\"indexingMode\":\"consistent\",\"automatic\":true,\"includedPaths\":");
	append_paths(out, p, p->all);
	appendStringInfoString(out, ",\"excludedPaths\":");
	append_paths(out, p, !p->all);
	appendStringInfoChar(out, '}');
}

bool
index_policy_includes(const IndexPolicy *p, const char *name, uint32 len)
{
	bool		listed;

	if (!p->consistent)
		return false;
	listed = find_name(p->names, p->lens, p->nnames, name, len);
	return p->all ? !listed : listed;
}

static void
append_names(StringInfo out, const IndexPolicy *p)
{
	for (int i = 0; i < p->nnames; i++)
	{
		if (i > 0)
			appendStringInfoChar(out, ',');
		appendBinaryStringInfo(out, p->names[i], p->lens[i]);
	}
}

void
index_policy_options(const IndexPolicy *p, StringInfo included, StringInfo excluded)
{
	if (p->all)
	{
		appendStringInfoChar(included, '*');
		append_names(excluded, p);
	}
	else
	{
		append_names(included, p);
		appendStringInfoChar(excluded, '*');
	}
}

/* A list option: "*" (root), or names separated by commas (possibly none). */
static bool
option_names(const char *s, const char *which, PathList *pl, TsError *err)
{
	size_t		len = strlen(s);
	size_t		i = 0;

	pl->names = palloc(sizeof(char *) * (INDEX_POLICY_MAX_PATHS + 1));
	pl->lens = palloc(sizeof(uint32) * (INDEX_POLICY_MAX_PATHS + 1));
	if (len == 1 && s[0] == '*')
	{
		pl->root = true;
		return true;
	}
	while (i < len)
	{
		const char *c = memchr(s + i, ',', len - i);
		size_t		end = c ? (size_t) (c - s) : len;

		if (!check_name(s + i, (uint32) (end - i), err))
			return false;
		if (pl->n >= INDEX_POLICY_MAX_PATHS)
			return policy_error(err, "the option %s names more than 1000 properties", which);
		pl->names[pl->n] = s + i;
		pl->lens[pl->n++] = (uint32) (end - i);
		i = end + 1;
		if (c != NULL && i == len)
			return policy_error(err, "the option %s ends with a comma", which);
	}
	return true;
}

bool
index_policy_from_options(const char *included, const char *excluded, IndexPolicy *p, TsError *err)
{
	PathList	inc = {0},
				exc = {0};

	index_policy_default(p);
	if (!option_names(included ? included : "*", "included", &inc, err) ||
		!option_names(excluded ? excluded : "", "excluded", &exc, err))
		return false;
	if (inc.root == exc.root)
		return policy_error(err, "exactly one of the options included and excluded is '*'%s", NULL);
	p->all = inc.root;
	if (p->all)
	{
		p->nnames = sort_names(exc.names, exc.lens, exc.n);
		p->names = exc.names;
		p->lens = exc.lens;
	}
	else
	{
		p->nnames = sort_names(inc.names, inc.lens, inc.n);
		p->names = inc.names;
		p->lens = inc.lens;
	}
	return true;
}

bool
index_policy_equal(const IndexPolicy *a, const IndexPolicy *b)
{
	if (a->consistent != b->consistent)
		return false;
	if (!a->consistent)
		return true;
	if (a->all != b->all || a->nnames != b->nnames)
		return false;
	for (int i = 0; i < a->nnames; i++)
		if (entity_name_cmp(a->names[i], a->lens[i], b->names[i], b->lens[i]) != 0)
			return false;
	return true;
}
