/*
 * entity_legacy_form.c - an entity's bytes as 0.3.0 stored them, for 0.3.0's comparison and
 * hashes (entity_ops_030.c). 0.3.0 compared and hashed the stored bytes: an entity written out of
 * name order carried its order as an array after the directory (ENTITY_HAS_ORDER), where today's
 * form keeps it in the directory entries' spare byte (ENTITY_ORDER_IN_DIR). A database still on
 * 0.3.0's SQL, whose indexes and hash partitions were built by 0.3.0, runs under today's library
 * between the library's installation and ALTER EXTENSION UPDATE: the functions its SQL names must
 * give exactly 0.3.0's results, on values stored by 0.3.0 and on values written today alike.
 * So both are read as 0.3.0's bytes: a value without ENTITY_ORDER_IN_DIR is already in that form
 * (written in name order, or stored by 0.3.0), one with it is re-laid (its header with the array's
 * flag, its directory with order bytes 0, the array, its data). Backend-free.
 */
#include "entity_format.h"

void
entity_legacy_form(const EntityView *v, EntityLegacyForm *out)
{
	uint32		head_len = (uint32) (v->dir - v->body);
	uint32		dir_len = v->nprops * ENTITY_DIRENT_SIZE;
	uint8	   *p = out->buf;

	if (!(v->body[1] & ENTITY_ORDER_IN_DIR))
	{
		/* 0.3.0's own bytes: name order, or its order array */
		out->head = v->body;
		out->head_len = v->len;
		out->data = NULL;
		out->data_len = 0;
		return;
	}
	Assert(head_len + dir_len + v->nprops <= sizeof(out->buf));
	memcpy(p, v->body, head_len);
	p[1] = (uint8) ((p[1] & ~ENTITY_ORDER_IN_DIR) | ENTITY_HAS_ORDER);
	p += head_len;
	memcpy(p, v->dir, dir_len);
	for (uint32 i = 0; i < v->nprops; i++)
	{
		p[dir_len + i] = p[(size_t) i * ENTITY_DIRENT_SIZE + ENTITY_DIRENT_ORDER];
		p[(size_t) i * ENTITY_DIRENT_SIZE + ENTITY_DIRENT_ORDER] = 0;
	}
	p += dir_len + v->nprops;
	out->head = out->buf;
	out->head_len = (uint32) (p - out->buf);
	out->data = v->data;
	out->data_len = v->data_len;
}

/* The contiguous bytes from position i on, and how many. */
static inline const uint8 *
legacy_run(const EntityLegacyForm *f, uint32 i, uint32 *n)
{
	if (i < f->head_len)
	{
		*n = f->head_len - i;
		return f->head + i;
	}
	*n = f->head_len + f->data_len - i;
	return f->data + (i - f->head_len);
}

int
entity_cmp_legacy(const EntityLegacyForm *a, const EntityLegacyForm *b)
{
	uint32		la = a->head_len + a->data_len,
				lb = b->head_len + b->data_len,
				n = Min(la, lb),
				i = 0;

	/* memcmp over the runs both forms have contiguous from i (each form is at most two runs) */
	while (i < n)
	{
		uint32		ra,
					rb;
		const uint8 *pa = legacy_run(a, i, &ra);
		const uint8 *pb = legacy_run(b, i, &rb);
		uint32		r = Min(Min(ra, rb), n - i);
		int			c = memcmp(pa, pb, r);

		if (c != 0)
			return c;			/* memcmp's own value, as 0.3.0 returned it */
		i += r;
	}
	return (la > lb) - (la < lb);
}
