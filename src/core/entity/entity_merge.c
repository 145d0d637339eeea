/*
 * entity_merge.c - combining and trimming entities: a || b (merge, the right side wins) and
 * e - name, each keeping the order the properties were written in (contract §1). Library functions
 * of the type layer: the SQL operators (entity_ops.c) and the write paths (fast_path.c) call them.
 * Backend-free; a limit error comes back in a TsError.
 */
#include "entity_format.h"

Entity *
entity_merge(const EntityView *a, const EntityView *b, TsError *err)
{
	EntityKeys	keys = a->keys;
	PropRef    *props;
	int		   *at_a,
			   *at_b,
			   *order;
	uint32		i = 0,
				j = 0;
	int			n = 0,
				k = 0;
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
	/* where each property of a and of b lands in the result (at_b: -1 when a has it too) */
	at_a = palloc(sizeof(int) * (a->nprops + b->nprops + 1));
	at_b = at_a + a->nprops;
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
			at_a[i++] = n;
			props[n++] = pa;
		}
		else
		{
			if (c == 0)
				at_a[i++] = n;
			at_b[j++] = c == 0 ? -1 : n;
			props[n++] = pb;
		}
	}
	/* the order written: a's properties where they were, then b's new ones in b's order */
	order = palloc(sizeof(int) * (n + 1));
	for (uint32 w = 0; w < a->nprops; w++)
		order[k++] = at_a[entity_view_written(a, w)];
	for (uint32 w = 0; w < b->nprops; w++)
	{
		int			at = at_b[entity_view_written(b, w)];

		if (at >= 0)
			order[k++] = at;
	}
	Assert(k == n);
	r = entity_build_ordered(props, n, order, &keys, 0, err);
	pfree(props);
	pfree(at_a);
	pfree(order);
	return r;
}

Entity *
entity_without(const EntityView *v, const char *name, uint32 len, TsError *err)
{
	EntityKeys	keys = v->keys;
	PropRef    *props;
	int		   *order;
	int			skip = -1,
				n = 0,
				k = 0;
	Entity	   *r;
	EdmSystemProp sys;

	sys = edm_system_prop(name, len);
	if (sys == EDM_SYS_PARTITION_KEY)
	{
		keys.has_pk = false;
		keys.pk_len = 0;
	}
	else if (sys == EDM_SYS_ROW_KEY)
	{
		keys.has_rk = false;
		keys.rk_len = 0;
	}
	else
		skip = entity_view_find(v, name, len);
	props = palloc(sizeof(PropRef) * (v->nprops + 1));
	order = palloc(sizeof(int) * (v->nprops + 1));
	for (uint32 i = 0; i < v->nprops; i++)
	{
		if ((int) i != skip)
			entity_view_prop(v, i, &props[n++]);
	}
	/* the others keep their order; those after the one removed move up one in the directory */
	for (uint32 w = 0; w < v->nprops; w++)
	{
		int			i = (int) entity_view_written(v, w);

		if (i != skip)
			order[k++] = (skip >= 0 && i > skip) ? i - 1 : i;
	}
	r = entity_build_ordered(props, n, order, &keys, 0, err);
	pfree(props);
	pfree(order);
	return r;
}

/* v's properties and written order, with the keys given, encoded again. */
static Entity *
rebuild(const EntityView *v, const EntityKeys *keys, TsError *err)
{
	PropRef    *props = palloc(sizeof(PropRef) * (v->nprops + 1));
	int		   *order = palloc(sizeof(int) * (v->nprops + 1));
	Entity	   *r;

	for (uint32 i = 0; i < v->nprops; i++)
	{
		entity_view_prop(v, i, &props[i]);
		order[i] = (int) entity_view_written(v, i);
	}
	r = entity_build_ordered(props, (int) v->nprops, order, keys, 0, err);
	pfree(props);
	pfree(order);
	return r;
}

Entity *
entity_without_keys(const EntityView *v, TsError *err)
{
	return rebuild(v, NULL, err);
}

Entity *
entity_copy(const EntityView *v, TsError *err)
{
	return rebuild(v, &v->keys, err);
}
