/*
 * entity_access.c - typed accessors: tablestore.prop_type and prop_string ... prop_binary.
 * Each returns NULL when the property is absent or has another type; PartitionKey and RowKey
 * read the keys an entity carries as Strings. All are IMMUTABLE, for expression indexes.
 */
#include "entity.h"

#include "utils/timestamp.h"
#include "utils/builtins.h"
#include "utils/uuid.h"

/* Find the property named by argument 1 in the entity of argument 0 (keys read as Strings). */
bool
entity_prop_from_args(FunctionCallInfo fcinfo, PropRef *p)
{
	Entity	   *e = PG_GETARG_ENTITY_PP(0);
	text	   *name = PG_GETARG_TEXT_PP(1);
	const char *n = VARDATA_ANY(name);
	uint32		len = VARSIZE_ANY_EXHDR(name);
	EntityView	v;
	EdmSystemProp sys;
	int			i;

	entity_view_of(&v, e);
	sys = edm_system_prop(n, len);
	if ((sys == EDM_SYS_PARTITION_KEY && v.keys.has_pk) || (sys == EDM_SYS_ROW_KEY && v.keys.has_rk))
	{
		p->name = n;
		p->name_len = len;
		p->type = EDM_STRING;
		p->val = (const uint8 *) (sys == EDM_SYS_PARTITION_KEY ? v.keys.pk : v.keys.rk);
		p->val_len = sys == EDM_SYS_PARTITION_KEY ? v.keys.pk_len : v.keys.rk_len;
		return true;
	}
	/* the hint lives as long as the call site: one per column reference of a scan */
	if (fcinfo->flinfo == NULL)
		i = entity_view_find(&v, n, len);
	else
	{
		if (fcinfo->flinfo->fn_extra == NULL)
		{
			int		   *h = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, sizeof(int));

			*h = -1;
			fcinfo->flinfo->fn_extra = h;
		}
		i = entity_view_find_hinted(&v, n, len, (int *) fcinfo->flinfo->fn_extra);
	}
	if (i < 0)
		return false;
	entity_view_prop(&v, i, p);
	return true;
}

#define GET_TYPED_OR_NULL(p, t) \
	do { if (!entity_prop_from_args(fcinfo, &(p)) || (p).type != (t)) PG_RETURN_NULL(); } while (0)

PG_FUNCTION_INFO_V1(tablestore_prop_type);
Datum
tablestore_prop_type(PG_FUNCTION_ARGS)
{
	PropRef		p;

	if (!entity_prop_from_args(fcinfo, &p))
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text(edm_type_name(p.type)));
}

PG_FUNCTION_INFO_V1(tablestore_prop_string);
Datum
tablestore_prop_string(PG_FUNCTION_ARGS)
{
	PropRef		p;

	GET_TYPED_OR_NULL(p, EDM_STRING);
	if (memchr(p.val, 0, p.val_len) != NULL)
	{
		char		ex[TS_EXCERPT_BUF];

		ereport(ERROR,
				(errcode(ERRCODE_UNTRANSLATABLE_CHARACTER),
				 errmsg("the String property \"%s\" contains U+0000, which text cannot hold",
						ts_excerpt(ex, sizeof(ex), p.name, p.name_len))));
	}
	PG_RETURN_TEXT_P(cstring_to_text_with_len((const char *) p.val, p.val_len));
}

PG_FUNCTION_INFO_V1(tablestore_prop_int32);
Datum
tablestore_prop_int32(PG_FUNCTION_ARGS)
{
	PropRef		p;

	GET_TYPED_OR_NULL(p, EDM_INT32);
	PG_RETURN_INT32((int32) ts_rd32(p.val));
}

PG_FUNCTION_INFO_V1(tablestore_prop_int64);
Datum
tablestore_prop_int64(PG_FUNCTION_ARGS)
{
	PropRef		p;

	GET_TYPED_OR_NULL(p, EDM_INT64);
	PG_RETURN_INT64((int64) ts_rd64(p.val));
}

PG_FUNCTION_INFO_V1(tablestore_prop_double);
Datum
tablestore_prop_double(PG_FUNCTION_ARGS)
{
	PropRef		p;
	uint64		bits;
	double		d;

	GET_TYPED_OR_NULL(p, EDM_DOUBLE);
	bits = ts_rd64(p.val);
	memcpy(&d, &bits, 8);
	PG_RETURN_FLOAT8(d);
}

PG_FUNCTION_INFO_V1(tablestore_prop_bool);
Datum
tablestore_prop_bool(PG_FUNCTION_ARGS)
{
	PropRef		p;

	GET_TYPED_OR_NULL(p, EDM_BOOLEAN);
	PG_RETURN_BOOL(p.val[0] != 0);
}

/* DateTime ticks (100 ns) to timestamptz (1 us): rounded down, so order is kept. */
PG_FUNCTION_INFO_V1(tablestore_prop_datetime);
Datum
tablestore_prop_datetime(PG_FUNCTION_ARGS)
{
	PropRef		p;

	GET_TYPED_OR_NULL(p, EDM_DATETIME);
	PG_RETURN_TIMESTAMPTZ(edm_pg_usec_from_ticks((int64) ts_rd64(p.val)));
}

PG_FUNCTION_INFO_V1(tablestore_prop_guid);
Datum
tablestore_prop_guid(PG_FUNCTION_ARGS)
{
	PropRef		p;
	pg_uuid_t  *u;

	GET_TYPED_OR_NULL(p, EDM_GUID);
	u = palloc(sizeof(pg_uuid_t));
	memcpy(u->data, p.val, UUID_LEN);
	PG_RETURN_UUID_P(u);
}

PG_FUNCTION_INFO_V1(tablestore_prop_binary);
Datum
tablestore_prop_binary(PG_FUNCTION_ARGS)
{
	PropRef		p;
	bytea	   *b;

	GET_TYPED_OR_NULL(p, EDM_BINARY);
	b = palloc(VARHDRSZ + p.val_len);
	SET_VARSIZE(b, VARHDRSZ + p.val_len);
	memcpy(VARDATA(b), p.val, p.val_len);
	PG_RETURN_BYTEA_P(b);
}

/* tablestore.entity_size(entity): the entity's size by the service's formula (contract §2). */
PG_FUNCTION_INFO_V1(tablestore_entity_size);
Datum
tablestore_entity_size(PG_FUNCTION_ARGS)
{
	Entity	   *e = PG_GETARG_ENTITY_PP(0);
	EntityView	v;

	entity_view_of(&v, e);
	PG_RETURN_INT32((int32) entity_service_size(&v, NULL));
}
