/*
 * route_key.c - the PartitionKey a call names (route_key.h): an entity body's, read with the JSON
 * tokenizer (json_lex.c), and a $filter's, read with the OData parser (odata_keys.c decides the one
 * partition, as the extension does). Both read the whole input and refuse what the extension
 * would refuse, so that the gateway routes only calls the extension runs on one partition.
 * Backend-free.
 */
#include "route_key.h"

#include "json_lex.h"
#include "odata.h"

/* as many comparisons as tablestore.max_filter_comparisons allows at most: the node checks its own */
#define ROUTE_MAX_COMPARISONS 10000

static bool
is_name(const JsonToken *t, const char *name)
{
	size_t		len = strlen(name);

	return t->len == len && memcmp(t->p, name, len) == 0;
}

/* After a member: true with *more when ',' follows, true without when '}' does, false otherwise. */
static bool
member_end(JsonLex *lx, bool *more)
{
	JsonToken	t;

	if (!json_next(lx, &t) || (t.kind != JT_COMMA && t.kind != JT_RBRACE))
		return false;
	*more = t.kind == JT_COMMA;
	return true;
}

/* The PartitionKey member's value in *pk (NULL: absent or null); false on anything refused. */
static bool
scan_entity(const char *json, size_t len, const char **pk, uint32 *pk_len)
{
	JsonLex		lx;
	JsonToken	t;
	TsError		err = {0};
	bool		seen = false;
	bool		more = true;

	json_lex_init(&lx, json, len, &err, TSE_INVALID_JSON, "invalid entity JSON");
	if (!json_expect(&lx, &t, JT_LBRACE, "an entity must be a JSON object"))
		return false;
	if (json_peek(&lx) == '}')
	{
		lx.i++;
		more = false;
	}
	while (more)
	{
		JsonToken	name;
		bool		is_pk;

		TS_CHECK_INTERRUPTS();
		if (!json_expect(&lx, &name, JT_STRING, "a member name") || !json_decode_string(&lx, &name) ||
			!json_expect(&lx, &t, JT_COLON, "':'"))
			return false;
		is_pk = is_name(&name, "PartitionKey");
		if (!is_pk)
		{
			if (!json_skip_value(&lx, JSON_MAX_DEPTH, NULL))
				return false;
		}
		else
		{
			if (seen || !json_next(&lx, &t))
				return false;	/* given twice: the extension refuses the entity */
			seen = true;
			if (t.kind == JT_STRING)
			{
				if (!json_decode_string(&lx, &t))
					return false;
				*pk = t.p;
				*pk_len = t.len;
			}
			else if (t.kind != JT_NULL)
				return false;	/* not a string (null: absent) */
		}
		if (!member_end(&lx, &more))
			return false;
	}
	return json_next(&lx, &t) && t.kind == JT_END;	/* only white space may follow the object */
}

bool
route_key_of_entity(const char *json, size_t len, const char **key, uint32 *key_len)
{
	const char *pk = NULL;
	uint32		pk_len = 0;

	*key = NULL;
	*key_len = 0;
	if (!scan_entity(json, len, &pk, &pk_len) || pk == NULL || memchr(pk, '\0', pk_len) != NULL)
		return false;
	*key = pk;
	*key_len = pk_len;
	return true;
}

bool
route_key_of_filter(const char *filter, size_t len, const char **key, uint32 *key_len)
{
	TsError		err = {0};
	int			ncomparisons;
	OdNode	   *root = odata_parse_nnf(filter, len, ROUTE_MAX_COMPARISONS, &ncomparisons, &err);
	const OdLiteral *pk = err.code == TSE_NONE ? odata_one_partition(root) : NULL;

	*key = NULL;
	*key_len = 0;
	if (pk == NULL)
		return false;
	*key = pk->str;
	*key_len = pk->len;
	return true;
}
