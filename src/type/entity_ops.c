/*
 * entity_ops.c - operators on tablestore.entity: ? (has property), || (merge, right side wins),
 * - (remove a property), comparison (the byte order of the name-order form: the written order is
 * left out, so entities with the same properties are equal) and hashing of that form with xxHash3
 * (the 32-bit hash is the low half of the seed-0 64-bit hash).
 */
#include "entity.h"

#define XXH_STATIC_LINKING_ONLY	/* XXH3_state_t on the stack */
#include <xxhash.h>

#include "utils/builtins.h"

static bool
is_key_name(const char *n, uint32 len, bool *is_pk)
{
	EdmSystemProp sys = edm_system_prop(n, len);

	*is_pk = sys == EDM_SYS_PARTITION_KEY;
	return *is_pk || sys == EDM_SYS_ROW_KEY;
}

PG_FUNCTION_INFO_V1(tablestore_entity_exists);
Datum
tablestore_entity_exists(PG_FUNCTION_ARGS)
{
	Entity	   *e = PG_GETARG_ENTITY_PP(0);
	text	   *name = PG_GETARG_TEXT_PP(1);
	EntityView	v;
	bool		is_pk;

	entity_view_of(&v, e);
	if (is_key_name(VARDATA_ANY(name), VARSIZE_ANY_EXHDR(name), &is_pk))
		PG_RETURN_BOOL(is_pk ? v.keys.has_pk : v.keys.has_rk);
	PG_RETURN_BOOL(entity_view_find(&v, VARDATA_ANY(name), VARSIZE_ANY_EXHDR(name)) >= 0);
}

/* a || b: every property of b, plus those of a that b does not have; b's keys where it has them. */
PG_FUNCTION_INFO_V1(tablestore_entity_concat);
Datum
tablestore_entity_concat(PG_FUNCTION_ARGS)
{
	Entity	   *ea = PG_GETARG_ENTITY_PP(0);
	Entity	   *eb = PG_GETARG_ENTITY_PP(1);
	EntityView	a,
				b;
	TsError		err = {0};
	Entity	   *r;

	entity_view_of(&a, ea);
	entity_view_of(&b, eb);
	if (b.nprops == 0 && !b.keys.has_pk && !b.keys.has_rk)
		PG_RETURN_ENTITY_P(ea);
	if ((r = entity_merge(&a, &b, &err)) == NULL)
		ts_raise(&err);
	PG_RETURN_ENTITY_P(r);
}

/* e - name: the entity without that property (or key); unchanged when absent. */
PG_FUNCTION_INFO_V1(tablestore_entity_delete);
Datum
tablestore_entity_delete(PG_FUNCTION_ARGS)
{
	Entity	   *e = PG_GETARG_ENTITY_PP(0);
	text	   *name = PG_GETARG_TEXT_PP(1);
	const char *nm = VARDATA_ANY(name);
	uint32		len = VARSIZE_ANY_EXHDR(name);
	EntityView	v;
	bool		is_pk;
	TsError		err = {0};
	Entity	   *r;

	entity_view_of(&v, e);
	if (is_key_name(nm, len, &is_pk) ? !(is_pk ? v.keys.has_pk : v.keys.has_rk) :
		entity_view_find(&v, nm, len) < 0)
		PG_RETURN_ENTITY_P(e);
	if ((r = entity_without(&v, nm, len, &err)) == NULL)
		ts_raise(&err);
	PG_RETURN_ENTITY_P(r);
}

/*
 * ---------- comparison and hashing: entities as sets of properties ----------
 *
 * The written order is presentation (contract §1): =, the B-tree order and the hashes read an
 * entity's name-order form (entity_compare.c), so the same properties written in another order
 * are equal, sort together and hash alike, as jsonb's values do. These are 0.4.0's symbols
 * (*_unordered); the symbols 0.3.0's SQL names keep 0.3.0's byte order and hashes
 * (entity_ops_030.c) until ALTER EXTENSION UPDATE points the SQL functions here.
 */

static int
entity_cmp_internal(FunctionCallInfo fcinfo)
{
	Entity	   *a = PG_GETARG_ENTITY_PP(0);
	Entity	   *b = PG_GETARG_ENTITY_PP(1);
	EntityView	va,
				vb;
	int			c;

	entity_view_of(&va, a);
	entity_view_of(&vb, b);
	c = entity_cmp_unordered(&va, &vb);
	PG_FREE_IF_COPY(a, 0);
	PG_FREE_IF_COPY(b, 1);
	return c;
}

PG_FUNCTION_INFO_V1(tablestore_entity_cmp_unordered);
Datum
tablestore_entity_cmp_unordered(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(entity_cmp_internal(fcinfo));
}

PG_FUNCTION_INFO_V1(tablestore_entity_eq_unordered);
Datum
tablestore_entity_eq_unordered(PG_FUNCTION_ARGS)
{
	Entity	   *a = PG_GETARG_ENTITY_PP(0);
	Entity	   *b = PG_GETARG_ENTITY_PP(1);
	EntityView	va,
				vb;
	bool		eq;

	entity_view_of(&va, a);
	entity_view_of(&vb, b);
	eq = entity_eq_unordered(&va, &vb);
	PG_FREE_IF_COPY(a, 0);
	PG_FREE_IF_COPY(b, 1);
	PG_RETURN_BOOL(eq);
}

PG_FUNCTION_INFO_V1(tablestore_entity_ne_unordered);
Datum
tablestore_entity_ne_unordered(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(!DatumGetBool(tablestore_entity_eq_unordered(fcinfo)));
}

PG_FUNCTION_INFO_V1(tablestore_entity_lt_unordered);
Datum
tablestore_entity_lt_unordered(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(entity_cmp_internal(fcinfo) < 0);
}

PG_FUNCTION_INFO_V1(tablestore_entity_le_unordered);
Datum
tablestore_entity_le_unordered(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(entity_cmp_internal(fcinfo) <= 0);
}

PG_FUNCTION_INFO_V1(tablestore_entity_gt_unordered);
Datum
tablestore_entity_gt_unordered(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(entity_cmp_internal(fcinfo) > 0);
}

PG_FUNCTION_INFO_V1(tablestore_entity_ge_unordered);
Datum
tablestore_entity_ge_unordered(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(entity_cmp_internal(fcinfo) >= 0);
}

/*
 * The 64-bit hash of argument 0's name-order form: xxHash3 of its bytes, streamed in parts when the
 * entity stores an order (xxHash3's streaming gives the one-shot hash of the concatenation, so an
 * entity written in name order hashes as it always did).
 */
static uint64
entity_hash64(FunctionCallInfo fcinfo, uint64 seed)
{
	Entity	   *e = PG_GETARG_ENTITY_PP(0);
	EntityView	v;
	uint64		h;

	entity_view_of(&v, e);
	if (!(v.body[1] & ENTITY_ORDER_FLAGS))
		h = XXH3_64bits_withSeed(v.body, v.len, seed);
	else
	{
		EntityUnorderedParts parts;
		XXH3_state_t state;
		XXH3_state_t *st = &state;
		uint8		dir[TS_MAX_PROPERTIES * ENTITY_DIRENT_SIZE];

		XXH3_INITSTATE(st);
		entity_unordered_parts(&v, &parts);
		XXH3_64bits_reset_withSeed(st, seed);
		XXH3_64bits_update(st, parts.head, parts.head_len);
		if (parts.dir_masked)
		{
			memcpy(dir, parts.dir, parts.dir_len);
			for (uint32 off = ENTITY_DIRENT_ORDER; off < parts.dir_len; off += ENTITY_DIRENT_SIZE)
				dir[off] = 0;
			XXH3_64bits_update(st, dir, parts.dir_len);
		}
		else
			XXH3_64bits_update(st, parts.dir, parts.dir_len);
		XXH3_64bits_update(st, parts.data, parts.data_len);
		h = XXH3_64bits_digest(st);
	}
	PG_FREE_IF_COPY(e, 0);
	return h;
}

PG_FUNCTION_INFO_V1(tablestore_entity_hash_unordered);
Datum
tablestore_entity_hash_unordered(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32((int32) (uint32) entity_hash64(fcinfo, 0));
}

PG_FUNCTION_INFO_V1(tablestore_entity_hash_extended_unordered);
Datum
tablestore_entity_hash_extended_unordered(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64((int64) entity_hash64(fcinfo, (uint64) PG_GETARG_INT64(1)));
}
