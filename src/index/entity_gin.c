/*
 * entity_gin.c - the GIN operator class tablestore.entity_gin_ops: the entity index, one key per
 * property (index_key.h: name, type, order-preserving value), serving entity @~ property_filter
 * (property_filter.c). A comparison reads one key range per property type it can be true for,
 * exactly or by partial match (entity_gin_compare_partial walks a range and tests each key); its
 * matches are exact except where a String or Binary was cut to its first bytes (the heap
 * recheck decides those). The operator class's options (included, excluded) are the table's
 * indexing policy: keys of other properties are not made, and a comparison on such a property
 * scans the whole index (every row rechecked) rather than miss rows.
 */
#include "entity_gin.h"

#include "entity.h"
#include "index_key.h"
#include "property_filter.h"

#include "access/gin.h"
#include "access/reloptions.h"
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(tablestore_entity_gin_extract_value);
PG_FUNCTION_INFO_V1(tablestore_entity_gin_extract_query);
PG_FUNCTION_INFO_V1(tablestore_entity_gin_consistent);
PG_FUNCTION_INFO_V1(tablestore_entity_gin_triconsistent);
PG_FUNCTION_INFO_V1(tablestore_entity_gin_compare_partial);
PG_FUNCTION_INFO_V1(tablestore_entity_gin_options);

/* ---------- options: the indexing policy ---------- */

typedef struct EntityGinOptions
{
	int32		vl_len_;
	int			included;		/* string options: offsets into this struct */
	int			excluded;
} EntityGinOptions;

static void
validate_names(const char *value)
{
	IndexPolicy p;
	TsError		err = {0};

	/* checked alone here; the pair (exactly one '*') when the index reads it */
	if (value != NULL && strcmp(value, "*") != 0 &&
		!index_policy_from_options(value, "*", &p, &err))
		ts_raise(&err);
}

Datum
tablestore_entity_gin_options(PG_FUNCTION_ARGS)
{
	local_relopts *relopts = (local_relopts *) PG_GETARG_POINTER(0);

	init_local_reloptions(relopts, sizeof(EntityGinOptions));
	add_local_string_reloption(relopts, "included",
							   "the properties indexed: '*' (all but the excluded) or names separated by commas",
							   "*", validate_names, NULL, offsetof(EntityGinOptions, included));
	add_local_string_reloption(relopts, "excluded",
							   "the properties not indexed: names separated by commas, or '*' (only the included)",
							   "", validate_names, NULL, offsetof(EntityGinOptions, excluded));
	PG_RETURN_VOID();
}

typedef struct GinPolicyCache
{
	IndexPolicy policy;
} GinPolicyCache;

const IndexPolicy *
entity_gin_policy(FunctionCallInfo fcinfo)
{
	GinPolicyCache *c = (GinPolicyCache *) fcinfo->flinfo->fn_extra;

	if (c == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);
		EntityGinOptions *opts = PG_HAS_OPCLASS_OPTIONS() ? (EntityGinOptions *) PG_GET_OPCLASS_OPTIONS() : NULL;
		TsError		err = {0};

		c = palloc0(sizeof(GinPolicyCache));
		if (opts == NULL)
			index_policy_default(&c->policy);
		else if (!index_policy_from_options(pstrdup(opts->included ? (char *) opts + opts->included : "*"),
											pstrdup(opts->excluded ? (char *) opts + opts->excluded : ""),
											&c->policy, &err))
			ts_raise(&err);
		MemoryContextSwitchTo(old);
		fcinfo->flinfo->fn_extra = c;
	}
	return &c->policy;
}

/* ---------- keys ---------- */

Datum
entity_gin_key_datum(const uint8 *key, uint32 len)
{
	bytea	   *b = palloc(VARHDRSZ + len);

	SET_VARSIZE(b, VARHDRSZ + len);
	memcpy(VARDATA(b), key, len);
	return PointerGetDatum(b);
}

/* extractValue(entity, int32 *nkeys, bool **nullFlags): a key per property the policy includes */
Datum
tablestore_entity_gin_extract_value(PG_FUNCTION_ARGS)
{
	Entity	   *e = PG_GETARG_ENTITY_PP(0);
	int32	   *nkeys = (int32 *) PG_GETARG_POINTER(1);
	const IndexPolicy *policy = entity_gin_policy(fcinfo);
	EntityView	v;
	Datum	   *keys;
	int			n = 0;

	entity_view_of(&v, e);
	keys = palloc(sizeof(Datum) * Max(v.nprops, 1));
	for (uint32 i = 0; i < v.nprops; i++)
	{
		PropRef		p;
		bytea	   *b;

		entity_view_prop(&v, i, &p);
		if (!index_policy_includes(policy, p.name, p.name_len))
			continue;
		b = palloc(VARHDRSZ + index_key_max_size(&p));
		SET_VARSIZE(b, VARHDRSZ + index_key_encode(&p, (uint8 *) VARDATA(b)));
		keys[n++] = PointerGetDatum(b);
	}
	*nkeys = n;
	PG_RETURN_POINTER(keys);
}

/* A range read for a query, and whether a key it finds decides the row without a recheck. */
typedef struct QueryRange
{
	IndexKeyRange r;
	bool		certain;
} QueryRange;

/*
 * extractQuery(property_filter, int32 *nkeys, StrategyNumber, bool **pmatch, Pointer **extra_data,
 * bool **nullFlags, int32 *searchMode): the first key of each range the comparison reads
 */
Datum
tablestore_entity_gin_extract_query(PG_FUNCTION_ARGS)
{
	int32	   *nkeys = (int32 *) PG_GETARG_POINTER(1);
	bool	  **pmatch = (bool **) PG_GETARG_POINTER(3);
	Pointer   **extra_data = (Pointer **) PG_GETARG_POINTER(4);
	int32	   *search_mode = (int32 *) PG_GETARG_POINTER(6);
	const IndexPolicy *policy = entity_gin_policy(fcinfo);
	PropFilter	pf;
	IndexKeyRange ranges[INDEX_KEY_MAX_RANGES];
	Datum	   *keys;
	int			n;

	property_filter_of(PG_GETARG_DATUM(0), &pf);
	if (!index_policy_includes(policy, pf.name, pf.name_len))
	{
		/* the property is not in this index: every row is a candidate */
		*nkeys = 0;
		*search_mode = GIN_SEARCH_MODE_ALL;
		PG_RETURN_POINTER(NULL);
	}
	n = index_key_ranges(pf.name, pf.name_len, pf.op, &pf.lit, ranges);
	*nkeys = n;
	if (n == 0)
		PG_RETURN_POINTER(NULL);	/* nothing can match */
	keys = palloc(sizeof(Datum) * n);
	*pmatch = palloc(sizeof(bool) * n);
	*extra_data = palloc(sizeof(Pointer) * n);
	for (int i = 0; i < n; i++)
	{
		QueryRange *q = palloc(sizeof(QueryRange));

		q->r = ranges[i];
		/* keys of other types than String and Binary are never cut: a partial match is exact */
		q->certain = q->r.exact || q->r.all || (q->r.type != EDM_STRING && q->r.type != EDM_BINARY);
		keys[i] = entity_gin_key_datum(q->r.lo, q->r.lo_len);
		(*pmatch)[i] = !q->r.exact;
		(*extra_data)[i] = (Pointer) q;
	}
	PG_RETURN_POINTER(keys);
}

/* comparePartial(partial_key, key, StrategyNumber, extra_data): 0 match, <0 go on, >0 stop */
Datum
tablestore_entity_gin_compare_partial(PG_FUNCTION_ARGS)
{
	bytea	   *key = PG_GETARG_BYTEA_PP(1);
	QueryRange *q = (QueryRange *) PG_GETARG_POINTER(3);

	PG_RETURN_INT32(index_key_range_test(&q->r, (const uint8 *) VARDATA_ANY(key), VARSIZE_ANY_EXHDR(key)));
}

/*
 * consistent(bool check[], StrategyNumber, property_filter, int32 nkeys, Pointer extra_data[],
 * bool *recheck, Datum queryKeys[], bool nullFlags[]): the ranges are alternatives (one per type)
 */
Datum
tablestore_entity_gin_consistent(PG_FUNCTION_ARGS)
{
	bool	   *check = (bool *) PG_GETARG_POINTER(0);
	int32		nkeys = PG_GETARG_INT32(3);
	Pointer    *extra_data = (Pointer *) PG_GETARG_POINTER(4);
	bool	   *recheck = (bool *) PG_GETARG_POINTER(5);
	bool		any = false;

	*recheck = true;
	for (int i = 0; i < nkeys; i++)
	{
		if (!check[i])
			continue;
		any = true;
		if (((QueryRange *) extra_data[i])->certain)
			*recheck = false;
	}
	if (nkeys == 0)
		any = true;				/* a full scan: every row, rechecked */
	PG_RETURN_BOOL(any);
}

/* triConsistent(GinTernaryValue check[], StrategyNumber, property_filter, int32 nkeys, Pointer extra_data[], ...) */
Datum
tablestore_entity_gin_triconsistent(PG_FUNCTION_ARGS)
{
	GinTernaryValue *check = (GinTernaryValue *) PG_GETARG_POINTER(0);
	int32		nkeys = PG_GETARG_INT32(3);
	Pointer    *extra_data = (Pointer *) PG_GETARG_POINTER(4);
	GinTernaryValue res = GIN_FALSE;

	if (nkeys == 0)
		PG_RETURN_GIN_TERNARY_VALUE(GIN_MAYBE);
	for (int i = 0; i < nkeys; i++)
	{
		if (check[i] == GIN_TRUE && ((QueryRange *) extra_data[i])->certain)
			PG_RETURN_GIN_TERNARY_VALUE(GIN_TRUE);
		if (check[i] != GIN_FALSE)
			res = GIN_MAYBE;
	}
	PG_RETURN_GIN_TERNARY_VALUE(res);
}
