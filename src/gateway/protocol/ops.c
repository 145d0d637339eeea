/*
 * ops.c - the table of REST operations (ops.h) as data, and its lookups: which resource a target
 * addresses, which operation a verb (and If-Match) names there, and the Allow list of a resource.
 * Pure: no libmicrohttpd, no libpq (unit-tested in test/gateway/unit).
 */
#include "ops.h"

#include <pthread.h>
#include <string.h>

static const OpDef defs[OP__COUNT] = {
#define GW_OP_DEF(id, name, res, verbs, ifm, handler, st, srt, any, all, tsas, batch, flags, pk) \
	[id] = {id, name, res, verbs, ifm, st, {srt, any, all, tsas}, batch, flags, pk},
	GW_OPERATIONS(GW_OP_DEF)
#undef GW_OP_DEF
};

/* The resources: the bits of OpResource. */
#define NRES OPR_BITS

const OpDef *
ops_def(OpId id)
{
	return &defs[id];
}

OpResource
ops_resource(const Target *t, const char *restype, const char *comp, const char **why)
{
	switch (t->kind)
	{
		case RES_SERVICE:
			if (restype == NULL || strcmp(restype, "service") != 0 || comp == NULL)
				break;
			if (strcmp(comp, "properties") == 0)
				return OPR_SERVICE_PROPERTIES;
			if (strcmp(comp, "stats") == 0)
				return OPR_SERVICE_STATS;
			break;
		case RES_TABLES:
			if (comp == NULL)
				return OPR_TABLES;
			break;
		case RES_TABLES_ONE:
			if (comp == NULL)
				return OPR_TABLES_ONE;
			break;
		case RES_TABLE:
			if (comp == NULL)
				return t->table_parens ? OPR_TABLE_PARENS : OPR_TABLE;
			if (strcmp(comp, "acl") == 0 && !t->table_parens)
				return OPR_TABLE_ACL;
			if (strcmp(comp, "indexingpolicy") == 0 && !t->table_parens)
				return OPR_TABLE_INDEXING;
			break;
		case RES_ENTITY:
			if (comp == NULL)
				return OPR_ENTITY;
			break;
		case RES_BATCH:
			if (comp == NULL)
				return OPR_BATCH;
			break;
	}
	*why = t->kind == RES_SERVICE ?
		"The account root supports ?restype=service&comp=properties and comp=stats only." :
		"Value for one of the query parameters specified in the request URI is invalid: comp (only a table has ?comp=acl or ?comp=indexingpolicy).";
	return OPR_NONE;
}

static bool
verb_listed(const char *verbs, const char *verb)
{
	size_t		n = strlen(verb);

	for (const char *p = verbs; *p;)
	{
		const char *end = strchr(p, ' ');
		size_t		len = end ? (size_t) (end - p) : strlen(p);

		if (len == n && memcmp(p, verb, n) == 0)
			return true;
		p += len + (end ? 1 : 0);
	}
	return false;
}

static char allow_lists[NRES][64];
static pthread_once_t allow_once = PTHREAD_ONCE_INIT;

/* Is verb one of the ", "-separated list? */
static bool
allowed_already(const char *list, const char *verb)
{
	size_t		n = strlen(verb);

	for (const char *p = list; *p;)
	{
		size_t		len = strcspn(p, ",");

		if (len == n && memcmp(p, verb, n) == 0)
			return true;
		p += len;
		while (*p == ',' || *p == ' ')
			p++;
	}
	return false;
}

/* Append each verb of verbs to list that it does not hold yet. */
static void
add_verbs(char *list, size_t cap, const char *verbs)
{
	while (*verbs)
	{
		char		verb[16];
		size_t		len = strcspn(verbs, " ");

		if (len < sizeof(verb))
		{
			memcpy(verb, verbs, len);
			verb[len] = '\0';
			if (!allowed_already(list, verb) && strlen(list) + len + 3 < cap)
			{
				if (list[0])
					strcat(list, ", ");
				strcat(list, verb);
			}
		}
		verbs += len + (verbs[len] == ' ' ? 1 : 0);
	}
}

/* Every resource's Allow list: the verbs of its operations, each once, in table order. */
static void
build_allow_lists(void)
{
	for (int b = 0; b < NRES; b++)
		for (int i = 0; i < OP__COUNT; i++)
			if ((defs[i].resources & (1u << b)) && !(defs[i].flags & OPF_NO_AUTH))
				add_verbs(allow_lists[b], sizeof(allow_lists[b]), defs[i].verbs);
}

/* "GET, PUT, MERGE, PATCH, DELETE" for the (lowest) resource of res; NULL when none. */
static const char *
allow_list(OpResource res)
{
	int			bit = 0;

	pthread_once(&allow_once, build_allow_lists);
	while (bit < NRES && !(res & (1u << bit)))
		bit++;
	return bit < NRES && allow_lists[bit][0] ? allow_lists[bit] : NULL;
}

const char *
ops_verb(const char *method, const char *x_http_method)
{
	static const char *const tunnelled[] = {"MERGE", "PATCH", "PUT", "DELETE"};

	if (x_http_method == NULL || strcmp(method, "POST") != 0)
		return method;
	for (int i = 0; i < (int) (sizeof(tunnelled) / sizeof(tunnelled[0])); i++)
		if (strcmp(x_http_method, tunnelled[i]) == 0)
			return x_http_method;
	return NULL;
}

const OpDef *
ops_find(OpResource res, const char *verb, bool has_if_match, const char **allowed)
{
	*allowed = NULL;
	for (int i = 0; i < OP__COUNT; i++)
	{
		const OpDef *d = &defs[i];

		if (!(d->resources & res) || !verb_listed(d->verbs, verb))
			continue;
		if ((d->if_match == IFM_ABSENT && has_if_match) || (d->if_match == IFM_PRESENT && !has_if_match))
			continue;
		return d;
	}
	*allowed = allow_list(res);
	return NULL;
}
