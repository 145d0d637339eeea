/*
 * entity_compare.c - entities as sets of properties: equal when they have the same keys and the
 * same properties with the same values, whatever order the properties were written in (contract
 * §1: the order is presentation, as jsonb's equality ignores its input's order). The order is the
 * byte order of the name-order forms - each entity's bytes with its written order left out (order
 * flags cleared, order bytes read as 0, 0.3.0's order array skipped) - which is the byte order of
 * every entity written in name order, as before; hashing (entity_ops.c) hashes those same bytes
 * (entity_unordered_parts), so equal entities hash equally. Backend-free.
 */
#include "entity_format.h"

/* The header with its order flags cleared, then the key lengths when there are keys; its length. */
static uint32
unordered_head(const EntityView *v, uint8 *head)
{
	uint32		n = (uint32) (v->dir - v->body);

	Assert(n == ENTITY_HEADER_SIZE || n == ENTITY_HEADER_SIZE + ENTITY_KEYLEN_SIZE);
	memcpy(head, v->body, n);
	head[1] &= (uint8) ~ENTITY_ORDER_FLAGS;
	return n;
}

static int
sign_of(int c)
{
	return (c > 0) - (c < 0);
}

int
entity_cmp_unordered(const EntityView *a, const EntityView *b)
{
	uint8		ha[ENTITY_HEADER_SIZE + ENTITY_KEYLEN_SIZE],
				hb[ENTITY_HEADER_SIZE + ENTITY_KEYLEN_SIZE];
	uint32		la,
				lb;
	int			c;

	if (!((a->body[1] | b->body[1]) & ENTITY_ORDER_FLAGS))
	{
		/* neither stores an order: the bytes are the name-order forms */
		c = memcmp(a->body, b->body, Min(a->len, b->len));
		return c ? sign_of(c) : (a->len > b->len) - (a->len < b->len);
	}
	la = unordered_head(a, ha);
	lb = unordered_head(b, hb);
	if ((c = memcmp(ha, hb, Min(la, lb))) != 0)
		return sign_of(c);
	/* equal headers: the same key flags (so la == lb) and property count, the same layout */
	Assert(la == lb && a->nprops == b->nprops);
	for (uint32 i = 0; i < a->nprops; i++)
	{
		/* each entry but its order byte, which both forms read as 0 */
		c = memcmp(a->dir + (size_t) i * ENTITY_DIRENT_SIZE, b->dir + (size_t) i * ENTITY_DIRENT_SIZE,
				   ENTITY_DIRENT_ORDER);
		if (c != 0)
			return sign_of(c);
	}
	c = memcmp(a->data, b->data, Min(a->data_len, b->data_len));
	return c ? sign_of(c) : (a->data_len > b->data_len) - (a->data_len < b->data_len);
}

bool
entity_eq_unordered(const EntityView *a, const EntityView *b)
{
	/* the name-order forms' lengths first: most unequal entities differ there */
	if (a->len - a->legacy_len != b->len - b->legacy_len)
		return false;
	if (!((a->body[1] | b->body[1]) & ENTITY_ORDER_FLAGS))
		return memcmp(a->body, b->body, a->len) == 0;
	return entity_cmp_unordered(a, b) == 0;
}

void
entity_unordered_parts(const EntityView *v, EntityUnorderedParts *out)
{
	out->head_len = unordered_head(v, out->head);
	out->dir = v->dir;
	out->dir_len = v->nprops * ENTITY_DIRENT_SIZE;
	out->dir_masked = (v->body[1] & ENTITY_ORDER_IN_DIR) != 0;
	out->data = v->data;
	out->data_len = v->data_len;
}
