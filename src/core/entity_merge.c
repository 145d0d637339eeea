/*
 * entity_merge.c - combining and trimming entities: a || b (merge, the right side wins) and
 * e - name. Library functions of the type layer: the SQL operators (entity_ops.c) and the write
 * paths (fast_path.c) call them. Backend-free; a limit error comes back in a TsError.
 */
#include "entity_format.h"

Entity *
entity_merge(const EntityView *a, const EntityView *b, TsError *err)
{
	EntityKeys	keys = a->keys;
	PropRef    *props;
	uint32		i = 0,
				j = 0;
	int			n = 0;
	Entity	   *r;

	if (b->keys.has_pk)
	{
		keys.has_pk = true;
		keys.pk = b->keys.pk;
		keys.pk_len = b->keys.pk_len;
	}
	if (b->keys.has_rk)
	{
		keys.has_rk = true;
		keys.rk = b->keys.rk;
		keys.rk_len = b->keys.rk_len;
	}
	props = palloc(sizeof(PropRef) * (a->nprops + b->nprops + 1));
	/* both directories are sorted by name: one merge pass */
	while (i < a->nprops || j < b->nprops)
	{
		PropRef		pa,
					pb;
		int			c;

		if (i < a->nprops)
			entity_view_prop(a, i, &pa);
		if (j < b->nprops)
			entity_view_prop(b, j, &pb);
		c = (i >= a->nprops) ? 1 : (j >= b->nprops) ? -1 :
			entity_name_cmp(pa.name, pa.name_len, pb.name, pb.name_len);
		if (c < 0)
		{
			props[n++] = pa;
			i++;
		}
		else
		{
			props[n++] = pb;
			j++;
			i += (c == 0);
		}
	}
	r = entity_build(props, n, &keys, 0, err);
	pfree(props);
	return r;
}

Entity *
entity_without(const EntityView *v, const char *name, uint32 len, TsError *err)
{
	EntityKeys	keys = v->keys;
	PropRef    *props;
	int			skip = -1,
				n = 0;
	Entity	   *r;

	if (len == 12 && memcmp(name, "PartitionKey", 12) == 0)
	{
		keys.has_pk = false;
		keys.pk_len = 0;
	}
	else if (len == 6 && memcmp(name, "RowKey", 6) == 0)
	{
		keys.has_rk = false;
		keys.rk_len = 0;
	}
	else
		skip = entity_view_find(v, name, len);
	props = palloc(sizeof(PropRef) * (v->nprops + 1));
	for (uint32 i = 0; i < v->nprops; i++)
	{
		if ((int) i != skip)
			entity_view_prop(v, i, &props[n++]);
	}
	r = entity_build(props, n, &keys, 0, err);
	pfree(props);
	return r;
}

Entity *
entity_without_keys(const EntityView *v, TsError *err)
{
	PropRef    *props = palloc(sizeof(PropRef) * (v->nprops + 1));
	Entity	   *r;

	for (uint32 i = 0; i < v->nprops; i++)
		entity_view_prop(v, i, &props[i]);
	r = entity_build(props, (int) v->nprops, NULL, 0, err);
	pfree(props);
	return r;
}
