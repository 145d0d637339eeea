/*
 * entity_ops_030.c - 0.3.0's comparison and hashes of tablestore.entity, under the C symbols
 * 0.3.0's SQL names (tablestore_entity_eq ... tablestore_entity_hash_extended), as PostgreSQL's
 * extensions keep an old version's symbols: a database still on 0.3.0's SQL (between installing
 * this library and ALTER EXTENSION tablestore UPDATE) has indexes, hash partitions and range
 * bounds made by 0.3.0's byte order and hashes, and must keep finding its rows with them. So
 * these read every value as 0.3.0's bytes (entity_legacy_form.c) and compare them bytewise or
 * hash them with xxHash3, exactly as 0.3.0 did: an entity written out of name order differs from
 * its name-order twin here. 0.4.0's SQL names the *_unordered symbols (entity_ops.c); the update
 * script switches the functions to them (CREATE OR REPLACE keeps their OIDs, so the operators and
 * operator classes follow) before it rebuilds what depends on them.
 */
#include "entity.h"

#define XXH_STATIC_LINKING_ONLY	/* XXH3_state_t on the stack */
#include <xxhash.h>

static int
legacy_cmp_internal(FunctionCallInfo fcinfo)
{
	Entity	   *a = PG_GETARG_ENTITY_PP(0);
	Entity	   *b = PG_GETARG_ENTITY_PP(1);
	EntityView	va,
				vb;
	EntityLegacyForm fa,
				fb;
	int			c;

	entity_view_of(&va, a);
	entity_view_of(&vb, b);
	entity_legacy_form(&va, &fa);
	entity_legacy_form(&vb, &fb);
	c = entity_cmp_legacy(&fa, &fb);
	PG_FREE_IF_COPY(a, 0);
	PG_FREE_IF_COPY(b, 1);
	return c;
}

PG_FUNCTION_INFO_V1(tablestore_entity_cmp);
Datum
tablestore_entity_cmp(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(legacy_cmp_internal(fcinfo));
}

PG_FUNCTION_INFO_V1(tablestore_entity_eq);
Datum
tablestore_entity_eq(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(legacy_cmp_internal(fcinfo) == 0);
}

PG_FUNCTION_INFO_V1(tablestore_entity_ne);
Datum
tablestore_entity_ne(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(legacy_cmp_internal(fcinfo) != 0);
}

PG_FUNCTION_INFO_V1(tablestore_entity_lt);
Datum
tablestore_entity_lt(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(legacy_cmp_internal(fcinfo) < 0);
}

PG_FUNCTION_INFO_V1(tablestore_entity_le);
Datum
tablestore_entity_le(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(legacy_cmp_internal(fcinfo) <= 0);
}

PG_FUNCTION_INFO_V1(tablestore_entity_gt);
Datum
tablestore_entity_gt(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(legacy_cmp_internal(fcinfo) > 0);
}

PG_FUNCTION_INFO_V1(tablestore_entity_ge);
Datum
tablestore_entity_ge(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(legacy_cmp_internal(fcinfo) >= 0);
}

/* xxHash3 of 0.3.0's bytes (streamed: the one-shot hash of head then data). */
static uint64
legacy_hash64(FunctionCallInfo fcinfo, uint64 seed)
{
	Entity	   *e = PG_GETARG_ENTITY_PP(0);
	EntityView	v;
	EntityLegacyForm f;
	uint64		h;

	entity_view_of(&v, e);
	entity_legacy_form(&v, &f);
	if (f.data_len == 0)
		h = XXH3_64bits_withSeed(f.head, f.head_len, seed);
	else
	{
		XXH3_state_t state;
		XXH3_state_t *st = &state;

		XXH3_INITSTATE(st);
		XXH3_64bits_reset_withSeed(st, seed);
		XXH3_64bits_update(st, f.head, f.head_len);
		XXH3_64bits_update(st, f.data, f.data_len);
		h = XXH3_64bits_digest(st);
	}
	PG_FREE_IF_COPY(e, 0);
	return h;
}

PG_FUNCTION_INFO_V1(tablestore_entity_hash);
Datum
tablestore_entity_hash(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32((int32) (uint32) legacy_hash64(fcinfo, 0));
}

PG_FUNCTION_INFO_V1(tablestore_entity_hash_extended);
Datum
tablestore_entity_hash_extended(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64((int64) legacy_hash64(fcinfo, (uint64) PG_GETARG_INT64(1)));
}
