/*
 * fuzz_route_key.c - libFuzzer target: the PartitionKey a call names (core/protocol/route_key.c), which
 * tablestore-gateway's routed mode sends calls by. Each input is read both as an entity body and
 * as a $filter.
 *
 * Properties, checked against the parsers the extension runs:
 * - body: an entity that entity_from_json accepts with a PartitionKey gives that key, byte for
 *   byte (for a text without U+0000: the extension's JSON text never holds one, and the gateway
 *   refuses such a body); a key found comes from a valid JSON text and is valid UTF-8 without
 *   U+0000.
 * - filter: a key is found exactly when odata_translate's range_pk (what query.c routes a
 *   distributed table's query by) is set, and is its bytes; a filter that does not translate names
 *   no key. And, by a separate model: when a key K is found, the filter is false for every entity
 *   whose PartitionKey is another value, whatever its other properties (a three-valued evaluation
 *   of the parsed filter, where only PartitionKey string comparisons are known), so that no filter
 *   spanning partitions is ever routed to one.
 */
#include "postgres_fe.h"

#include "entity_format.h"
#include "fuzz.h"
#include "json_lex.h"
#include "odata.h"
#include "route_key.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef enum Tri
{
	T_FALSE, T_UNKNOWN, T_TRUE
} Tri;

static Tri
tri_not(Tri t)
{
	return t == T_TRUE ? T_FALSE : t == T_FALSE ? T_TRUE : T_UNKNOWN;
}

/* The filter (odata_parse's tree) on an entity whose PartitionKey is pk; the rest unknown. */
static Tri
eval(const OdNode *n, const char *pk, uint32 pk_len)
{
	Tri			r;

	switch (n->kind)
	{
		case N_AND:
		case N_OR:
			r = n->kind == N_AND ? T_TRUE : T_FALSE;
			for (int k = 0; k < n->nkids; k++)
			{
				Tri			t = eval(n->kids[k], pk, pk_len);

				if (n->kind == N_AND)
					r = t < r ? t : r;
				else
					r = t > r ? t : r;
			}
			return r;
		case N_NOT:
			return tri_not(eval(n->kids[0], pk, pk_len));
		case N_CONST:
			return n->lit.b ? T_TRUE : T_FALSE;
		default:
			if (n->prop != PROP_PARTITION_KEY || n->lit.type != EDM_STRING)
				return T_UNKNOWN;
			{
				int			c = memcmp(pk, n->lit.str, Min(pk_len, n->lit.len));

				c = c ? c : (pk_len > n->lit.len) - (pk_len < n->lit.len);
				return odata_cmp_holds(n->op, c) ? T_TRUE : T_FALSE;
			}
	}
}

static void
check_body(const char *s, size_t size)
{
	const char *key;
	uint32		key_len;
	bool		found = route_key_of_entity(s, size, &key, &key_len);
	EntityKeys	keys = {0};
	TsError		err = {0};

	if (memchr(s, '\0', size) == NULL && entity_from_json_keys_apart(s, size, &keys, NULL, &err) != NULL &&
		keys.has_pk)
		FUZZ_CHECK(found && key_len == keys.pk_len && memcmp(key, keys.pk, key_len) == 0,
				   "an entity's PartitionKey is the key the gateway routes it by");
	if (found)
	{
		JsonLex		lx;
		JsonToken	t;
		TsError		jerr = {0};

		json_lex_init(&lx, s, size, &jerr, TSE_INVALID_JSON, "json");
		FUZZ_CHECK(json_skip_value(&lx, JSON_MAX_DEPTH, NULL) && json_next(&lx, &t) && t.kind == JT_END,
				   "a key is found only in a valid JSON text");
		FUZZ_CHECK(memchr(key, '\0', key_len) == NULL && edm_utf8_valid(key, key_len),
				   "a body's key is UTF-8 without U+0000");
	}
}

static void
check_filter(const char *s, size_t size)
{
	const char *key;
	uint32		key_len;
	bool		found = route_key_of_filter(s, size, &key, &key_len);
	OdFilter	f = {0};
	TsError		err = {0};
	bool		translated = odata_translate(s, size, 10000, -1, 0, &f, &err);

	FUZZ_CHECK(translated || !found, "a filter the extension refuses names no partition");
	if (translated)
		FUZZ_CHECK(found == (f.range_pk != NULL) &&
				   (!found || (key_len == f.range_pk->len && memcmp(key, f.range_pk->str, key_len) == 0)),
				   "the gateway's key is the partition the extension routes the query to");
	if (found)
	{
		int			ncmp;
		TsError		perr = {0};
		OdNode	   *root = odata_parse(s, size, 10000, &ncmp, &perr);
		char	   *other = palloc(key_len + 2);

		FUZZ_CHECK(root != NULL, "a routed filter parses");
		memcpy(other, key, key_len);
		other[key_len] = 'x';
		FUZZ_CHECK(eval(root, other, key_len + 1) == T_FALSE, "a routed filter is false on a longer PartitionKey");
		FUZZ_CHECK(eval(root, "", 0) == T_FALSE || key_len == 0, "a routed filter is false on the empty PartitionKey");
		if (key_len > 0)
		{
			FUZZ_CHECK(eval(root, key, key_len - 1) == T_FALSE, "a routed filter is false on a shorter PartitionKey");
			memcpy(other, key, key_len);
			other[key_len - 1] ^= 1;
			FUZZ_CHECK(eval(root, other, key_len) == T_FALSE, "a routed filter is false on a PartitionKey a byte away");
		}
		FUZZ_CHECK(eval(root, key, key_len) != T_FALSE || f.range_empty,
				   "a routed filter can hold on its own PartitionKey (unless its range is empty)");
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 64 * 1024)
		return 0;
	check_body((const char *) data, size);
	check_filter((const char *) data, size);
	fuzz_reset();
	return 0;
}
