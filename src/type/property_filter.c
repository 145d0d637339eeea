/*
 * property_filter.c - the SQL type tablestore.property_filter (text form "Age gt 30", binary form
 * of prop_filter.h) and the operator entity @~ property_filter (tablestore_entity_matches): the
 * comparison's truth for the entity, as contract §5 defines it (odata_eval_prop). The $filter
 * translator writes it for comparisons on indexed properties; the entity index serves it.
 */
#include "property_filter.h"

#include "catalog/pg_type.h"
#include "libpq/pqformat.h"
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(tablestore_property_filter_in);
PG_FUNCTION_INFO_V1(tablestore_property_filter_out);
PG_FUNCTION_INFO_V1(tablestore_property_filter_recv);
PG_FUNCTION_INFO_V1(tablestore_property_filter_send);
PG_FUNCTION_INFO_V1(tablestore_entity_matches);

void
property_filter_of(Datum d, PropFilter *out)
{
	struct varlena *v = PG_DETOAST_DATUM_PACKED(d);
	TsError		err = {0};

	if (!prop_filter_read((const uint8 *) VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v), out, &err))
		ts_raise(&err);
}

Datum
tablestore_property_filter_in(PG_FUNCTION_ARGS)
{
	char	   *s = PG_GETARG_CSTRING(0);
	TsError		err = {0};
	PropFilter	pf;

	ts_require_utf8();
	if (!prop_filter_parse(s, strlen(s), &pf, &err))
		ts_raise(&err);
	PG_RETURN_POINTER(prop_filter_build(pf.name, pf.name_len, pf.op, &pf.lit));
}

Datum
tablestore_property_filter_out(PG_FUNCTION_ARGS)
{
	PropFilter	pf;
	StringInfoData out;

	property_filter_of(PG_GETARG_DATUM(0), &pf);
	initStringInfo(&out);
	prop_filter_append_text(&out, &pf);
	PG_RETURN_CSTRING(out.data);
}

/* The wire form is the stored body, checked as when read. */
Datum
tablestore_property_filter_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	int			n = buf->len - buf->cursor;
	const uint8 *bytes = (const uint8 *) pq_getmsgbytes(buf, n);
	TsError		err = {0};
	PropFilter	pf;

	ts_require_utf8();
	if (!prop_filter_read(bytes, n, &pf, &err))
		ts_raise(&err);
	PG_RETURN_POINTER(prop_filter_build(pf.name, pf.name_len, pf.op, &pf.lit));
}

Datum
tablestore_property_filter_send(PG_FUNCTION_ARGS)
{
	struct varlena *v = PG_GETARG_VARLENA_PP(0);
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendbytes(&buf, VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v));
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

/*
 * The filter a call site evaluates, read once: a scan calls the operator with the same right
 * side for every row (the bytes are compared, which costs less than reading them again).
 */
typedef struct MatchCache
{
	struct varlena *raw;		/* a copy of the datum the filter was read from */
	PropFilter	pf;
	int			hint;			/* where the property was in the previous entity */
} MatchCache;

static const PropFilter *
cached_filter(FunctionCallInfo fcinfo, struct varlena *v, int **hint)
{
	MatchCache *mc = fcinfo->flinfo ? (MatchCache *) fcinfo->flinfo->fn_extra : NULL;
	Size		size = VARSIZE_ANY(v);
	static PropFilter uncached;
	static int	no_hint;

	if (fcinfo->flinfo == NULL)
	{
		property_filter_of(PointerGetDatum(v), &uncached);
		no_hint = -1;
		*hint = &no_hint;
		return &uncached;
	}
	if (mc == NULL || VARSIZE_ANY(mc->raw) != size || memcmp(mc->raw, v, size) != 0)
	{
		MemoryContext old = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);

		if (mc == NULL)
			mc = palloc0(sizeof(MatchCache));
		else
			pfree(mc->raw);
		mc->raw = palloc(size);
		memcpy(mc->raw, v, size);
		property_filter_of(PointerGetDatum(mc->raw), &mc->pf);
		mc->hint = -1;
		fcinfo->flinfo->fn_extra = mc;
		MemoryContextSwitchTo(old);
	}
	*hint = &mc->hint;
	return &mc->pf;
}

/* entity @~ property_filter */
Datum
tablestore_entity_matches(PG_FUNCTION_ARGS)
{
	Entity	   *e = PG_GETARG_ENTITY_PP(0);
	struct varlena *f = PG_GETARG_VARLENA_PP(1);
	int		   *hint;
	const PropFilter *pf = cached_filter(fcinfo, f, &hint);
	EntityView	v;
	PropRef		p;
	int			i;

	entity_view_of(&v, e);
	i = entity_view_find_hinted(&v, pf->name, pf->name_len, hint);
	if (i < 0)
		PG_RETURN_BOOL(false);
	entity_view_prop(&v, i, &p);
	PG_RETURN_BOOL(odata_eval_prop(&p, pf->op, &pf->lit));
}
