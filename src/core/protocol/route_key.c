/*
 * route_key.c - the PartitionKey a call names (route_key.h): an entity body's, read with the JSON
 * tokenizer and its member loop (json_lex.h), and a $filter's, read with the OData parser
 * (odata_keys.c decides the one partition, as the extension does). Both read the whole input and refuse what the extension
 * would refuse, so that the gateway routes only calls the extension runs on one partition.
 * Backend-free.
 */
#include "route_key.h"

#include "edm.h"
#include "json_lex.h"
#include "odata.h"

/* as many comparisons as tablestore.max_filter_comparisons allows at most: the node checks its own */
#define ROUTE_MAX_COMPARISONS 10000

/* The PartitionKey member's value in *pk (NULL: absent or null); false on anything refused. */
static bool
scan_entity(const char *json, size_t len, const char **pk, uint32 *pk_len)
{
	JsonLex		lx;
	JsonToken	t;
	TsError		err = {0};
	bool		seen = false;

	json_lex_init(&lx, json, len, &err, TSE_INVALID_JSON, "invalid entity JSON");
	if (!json_expect(&lx, &t, JT_LBRACE, "an entity must be a JSON object"))
		return false;
	for (bool first = true;;)
	{
		JsonToken	name;

		TS_CHECK_INTERRUPTS();
		if (!json_next_member(&lx, &first, &name, true))
			return false;
		if (name.kind == JT_RBRACE)
			break;
		if (edm_system_prop(name.p, name.len) != EDM_SYS_PARTITION_KEY)
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
