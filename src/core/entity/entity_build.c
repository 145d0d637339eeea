/*
 * entity_build.c - encode a set of properties, and the order they were written in, into the
 * canonical entity form, enforcing every per-entity limit of contract §2 on the way: duplicate
 * names, property count, key rules, String and Binary sizes and the service's entity-size formula.
 * Every path that makes an entity (JSON input, binary input, ||, -) ends here, so no entity over a
 * limit can exist. Backend-free.
 */
#include "entity_format.h"

StaticAssertDecl(offsetof(PropRef, name) == offsetof(EntityNamed, name) &&
				 offsetof(PropRef, name_len) == offsetof(EntityNamed, name_len) &&
				 sizeof(PropRef) <= ENTITY_NAMED_MAX_SIZE, "a PropRef starts like an EntityNamed");

static int
named_cmp(const void *a, const void *b)
{
	const EntityNamed *x = a;
	const EntityNamed *y = b;

	return entity_name_cmp(x->name, x->name_len, y->name, y->name_len);
}

void
entity_sort_by_name(void *items, int n, size_t size)
{
	char	   *base = items;
	char		t[ENTITY_NAMED_MAX_SIZE];

	Assert(size <= sizeof(t));
	if (n > 16)
	{
		qsort(items, n, size, named_cmp);
		return;
	}
	/* insertion sort: the common case is a handful of properties, often already in order */
	for (int i = 1; i < n; i++)
	{
		int			j = i - 1;

		if (named_cmp(base + j * size, base + i * size) <= 0)
			continue;
		memcpy(t, base + i * size, size);
		while (j >= 0 && named_cmp(base + j * size, t) > 0)
		{
			memcpy(base + (j + 1) * size, base + j * size, size);
			j--;
		}
		memcpy(base + (j + 1) * size, t, size);
	}
}

bool
entity_check_key(const char *key, uint32 len, const char *which, TsError *err)
{
	char		ex[TS_EXCERPT_BUF];

	switch (edm_check_key(key, len))
	{
		case EDM_CHECK_OK:
			return true;
		case EDM_CHECK_TOO_LONG:
			return ts_fail(err, TSE_KEY_TOO_LARGE,
						   "the %s is longer than %d UTF-16 code units", which, TS_MAX_KEY_UTF16);
		default:
			ts_fail(err, TSE_INVALID_KEY,
					"the %s \"%s\" contains a character that keys may not hold", which,
					ts_excerpt(ex, sizeof(ex), key, len));
			ts_fail_detail(err, "Keys may not contain / \\ # ? or control characters U+0000-U+001F, U+007F-U+009F.");
			return false;
	}
}

/* Service size of one value: String 2*len16+4, Binary bytes+4, fixed types their width. */
static uint64
value_service_size(uint8 type, const uint8 *val, uint32 val_len)
{
	if (type == EDM_STRING)
		return 2 * (uint64) edm_utf16_len((const char *) val, val_len) + 4;
	if (type == EDM_BINARY)
		return (uint64) val_len + 4;
	return edm_fixed_size(type);
}

static uint64
keys_service_size(const EntityKeys *keys)
{
	return 4 + 2 * (uint64) edm_utf16_len(keys->pk, keys->has_pk ? keys->pk_len : 0) +
		2 * (uint64) edm_utf16_len(keys->rk, keys->has_rk ? keys->rk_len : 0);
}

/*
 * 4 + 2*len16(PK) + 2*len16(RK) + sum(8 + 2*len16(name) + size(value)). The keys counted are those
 * given (a table row's columns), else the entity's own (absent counts as empty).
 */
uint64
entity_service_size(const EntityView *v, const EntityKeys *keys)
{
	uint64		size = keys_service_size(keys ? keys : &v->keys);

	for (uint32 i = 0; i < v->nprops; i++)
	{
		PropRef		p;

		entity_view_prop(v, i, &p);
		size += 8 + 2 * (uint64) edm_utf16_len(p.name, p.name_len) +
			value_service_size(p.type, p.val, p.val_len);
	}
	return size;
}

static bool
fail_too_large(TsError *err, uint64 size)
{
	ts_fail(err, TSE_ENTITY_TOO_LARGE, "the entity is %llu bytes by the service's size formula; the limit is %d",
			(unsigned long long) size, TS_MAX_ENTITY_SIZE);
	return false;
}

bool
entity_check_size(const EntityView *v, const EntityKeys *keys, TsError *err)
{
	uint64		size = entity_service_size(v, keys);

	return size <= TS_MAX_ENTITY_SIZE || fail_too_large(err, size);
}

/* A property's name and its place in the order written, sorted by name (ENTITY_BUILD_SORT). */
typedef struct WrittenName
{
	const char *name;
	uint32		name_len;
	int			written;
} WrittenName;

StaticAssertDecl(offsetof(WrittenName, name) == offsetof(EntityNamed, name) &&
				 offsetof(WrittenName, name_len) == offsetof(EntityNamed, name_len) &&
				 sizeof(WrittenName) <= ENTITY_NAMED_MAX_SIZE, "a WrittenName starts like an EntityNamed");

Entity *
entity_build(PropRef *props, int nprops, const EntityKeys *keys, int options, TsError *err)
{
	WrittenName *names;
	PropRef    *sorted;
	int		   *order;
	Entity	   *r;

	if (!(options & ENTITY_BUILD_SORT) || nprops < 2)
		return entity_build_ordered(props, nprops, NULL, keys, options & ~ENTITY_BUILD_SORT, err);
	/* sorted by name for the directory; order[k]: where the k-th property written went */
	names = palloc(sizeof(WrittenName) * nprops);
	for (int k = 0; k < nprops; k++)
		names[k] = (WrittenName) {props[k].name, props[k].name_len, k};
	entity_sort_by_name(names, nprops, sizeof(WrittenName));
	sorted = palloc(sizeof(PropRef) * nprops);
	order = palloc(sizeof(int) * nprops);
	for (int i = 0; i < nprops; i++)
	{
		sorted[i] = props[names[i].written];
		order[names[i].written] = i;
	}
	r = entity_build_ordered(sorted, nprops, order, keys, options & ~ENTITY_BUILD_SORT, err);
	pfree(names);
	pfree(sorted);
	pfree(order);
	return r;
}

/* Is order (a permutation of nprops) the name order itself? Then the entity stores none. */
static bool
order_is_names(const int *order, int nprops)
{
	for (int k = 0; order != NULL && k < nprops; k++)
		if (order[k] != k)
			return false;
	return true;
}

Entity *
entity_build_ordered(PropRef *props, int nprops, const int *order, const EntityKeys *keys, int options,
					 TsError *err)
{
	static const EntityKeys no_keys = {0};
	uint64		service_size;
	size_t		dir_size,
				data_size,
				total;
	Entity	   *result;
	uint8	   *body,
			   *dir,
			   *data;
	uint32		off;
	char		ex[TS_EXCERPT_BUF];

	Assert(!(options & ENTITY_BUILD_SORT));
	if (keys == NULL)
		keys = &no_keys;
	for (int i = 1; i < nprops; i++)
	{
		if (named_cmp(&props[i - 1], &props[i]) == 0)
		{
			ts_fail(err, TSE_DUPLICATE_PROPERTY, "the property \"%s\" is given more than once",
					ts_excerpt(ex, sizeof(ex), props[i].name, props[i].name_len));
			return NULL;
		}
	}
	if (nprops > TS_MAX_PROPERTIES)
	{
		ts_fail(err, TSE_TOO_MANY_PROPERTIES, "the entity has %d custom properties; the limit is %d",
				nprops, TS_MAX_PROPERTIES);
		return NULL;
	}
	if (keys->has_pk && !entity_check_key(keys->pk, keys->pk_len, "PartitionKey", err))
		return NULL;
	if (keys->has_rk && !entity_check_key(keys->rk, keys->rk_len, "RowKey", err))
		return NULL;

	service_size = keys_service_size(keys);
	if (options & ENTITY_BUILD_KEYS_APART)
		keys = &no_keys;		/* checked and counted, not stored */
	data_size = (keys->has_pk ? keys->pk_len : 0) + (keys->has_rk ? keys->rk_len : 0);
	for (int i = 0; i < nprops; i++)
	{
		PropRef    *p = &props[i];

		if (p->name_len > 4 * TS_MAX_NAME_UTF16)
		{
			ts_fail(err, TSE_NAME_TOO_LONG, "a property name is longer than %d characters", TS_MAX_NAME_UTF16);
			return NULL;
		}
		if (p->type == EDM_STRING)
		{
			uint32		u16 = edm_utf16_len((const char *) p->val, p->val_len);

			if (u16 > TS_MAX_STRING_UTF16)
			{
				ts_fail(err, TSE_VALUE_TOO_LARGE, "the String property \"%s\" is longer than %d UTF-16 code units",
						ts_excerpt(ex, sizeof(ex), p->name, p->name_len), TS_MAX_STRING_UTF16);
				return NULL;
			}
			service_size += 2 * (uint64) u16 + 4;
		}
		else if (p->type == EDM_BINARY && p->val_len > TS_MAX_BINARY_BYTES)
		{
			ts_fail(err, TSE_VALUE_TOO_LARGE, "the Binary property \"%s\" is longer than %d bytes",
					ts_excerpt(ex, sizeof(ex), p->name, p->name_len), TS_MAX_BINARY_BYTES);
			return NULL;
		}
		else
			service_size += value_service_size(p->type, p->val, p->val_len);
		service_size += 8 + 2 * (uint64) edm_utf16_len(p->name, p->name_len);
		data_size += p->name_len + p->val_len;
	}
	if (service_size > TS_MAX_ENTITY_SIZE)
	{
		fail_too_large(err, service_size);
		return NULL;
	}

	if (order_is_names(order, nprops))
		order = NULL;
	dir_size = (size_t) nprops * ENTITY_DIRENT_SIZE;
	total = VARHDRSZ + ENTITY_HEADER_SIZE +
		((keys->has_pk || keys->has_rk) ? ENTITY_KEYLEN_SIZE : 0) + dir_size + data_size;
	result = palloc(total);
	SET_VARSIZE(result, total);
	body = (uint8 *) VARDATA(result);
	body[0] = ENTITY_FORMAT_VERSION;
	body[1] = (keys->has_pk ? ENTITY_HAS_PK : 0) | (keys->has_rk ? ENTITY_HAS_RK : 0);
	ts_wr16(body + 2, (uint16) nprops);
	dir = body + ENTITY_HEADER_SIZE;
	if (body[1])
	{
		ts_wr16(dir, (uint16) (keys->has_pk ? keys->pk_len : 0));
		ts_wr16(dir + 2, (uint16) (keys->has_rk ? keys->rk_len : 0));
		dir += ENTITY_KEYLEN_SIZE;
	}
	if (order)
		body[1] |= ENTITY_ORDER_IN_DIR;
	data = dir + dir_size;
	off = 0;
	if (keys->has_pk)
	{
		memcpy(data, keys->pk, keys->pk_len);
		off += keys->pk_len;
	}
	if (keys->has_rk)
	{
		memcpy(data + off, keys->rk, keys->rk_len);
		off += keys->rk_len;
	}
	for (int i = 0; i < nprops; i++)
	{
		PropRef    *p = &props[i];
		uint8	   *e = dir + (size_t) i * ENTITY_DIRENT_SIZE;

		ts_wr32(e, off);
		ts_wr16(e + 4, (uint16) p->name_len);
		e[6] = p->type;
		Assert(order == NULL || (order[i] >= 0 && order[i] < nprops));
		e[ENTITY_DIRENT_ORDER] = order ? (uint8) order[i] : 0;	/* the i-th written */
		memcpy(data + off, p->name, p->name_len);
		off += p->name_len;
		if (p->type == EDM_DOUBLE && p->val_len == 8)
		{
			uint64		bits = ts_rd64(p->val);

			/* one NaN: any NaN becomes the canonical quiet NaN */
			if ((bits & UINT64CONST(0x7FF0000000000000)) == UINT64CONST(0x7FF0000000000000) &&
				(bits & UINT64CONST(0x000FFFFFFFFFFFFF)) != 0)
				bits = ENTITY_CANONICAL_NAN;
			ts_wr64(data + off, bits);
		}
		else if (p->val_len > 0)
			memcpy(data + off, p->val, p->val_len);
		off += p->val_len;
	}
	Assert(data + off == (uint8 *) result + total);
	return result;
}
