/*
 * entity_binary_in.c - read the binary wire form (the stored form after a version byte) as
 * strictly as the text form: every structural field, name, value, the property order and every
 * limit is checked, and the bytes must be exactly the canonical encoding that entity_build would
 * produce - or exactly what 0.3.0 produced for the same entity (its order array after the
 * directory, entity_format.h), which is read into today's form. Backend-free.
 */
#include "entity_format.h"

/* Record a structural error; returns NULL for the caller to return. */
static Entity *
bad(TsError *err, const char *what)
{
	ts_fail(err, TSE_INVALID_BINARY, "invalid binary entity: %s", what);
	return NULL;
}

static bool
check_value(const PropRef *p, TsError *err)
{
	int			fixed = edm_fixed_size(p->type);

	if (fixed >= 0 && p->val_len != (uint32) fixed)
		return bad(err, "a fixed-width value has the wrong length") != NULL;
	switch (p->type)
	{
		case EDM_STRING:
			if (!edm_utf8_valid((const char *) p->val, p->val_len))
				return bad(err, "a String value is not valid UTF-8") != NULL;
			break;
		case EDM_BOOLEAN:
			if (p->val[0] > 1)
				return bad(err, "a Boolean value is not 0 or 1") != NULL;
			break;
		case EDM_DATETIME:
			{
				int64		t = (int64) ts_rd64(p->val);

				if (t < EDM_TICKS_MIN || t > EDM_TICKS_MAX)
					return ts_fail(err, TSE_OUT_OF_RANGE, "a DateTime value is outside 1601-01-01 to 9999-12-31");
				break;
			}
		case EDM_DOUBLE:
			{
				uint64		bits = ts_rd64(p->val);

				if ((bits & UINT64CONST(0x7FF0000000000000)) == UINT64CONST(0x7FF0000000000000) &&
					(bits & UINT64CONST(0x000FFFFFFFFFFFFF)) != 0 && bits != ENTITY_CANONICAL_NAN)
					return bad(err, "a NaN is not in its canonical form") != NULL;
				break;
			}
		default:
			break;
	}
	return true;
}

/*
 * The written order, o[k * stride] for the k-th property: every directory index exactly once, and
 * not the directory's own order (an entity written in name order stores none). NULL on error.
 */
static int *
read_order(const uint8 *o, size_t stride, uint32 nprops, TsError *err)
{
	int		   *order = palloc(sizeof(int) * (nprops + 1));
	uint8		seen[TS_MAX_PROPERTIES] = {0};
	bool		names = true;

	for (uint32 k = 0; k < nprops; k++)
	{
		uint8		i = o[k * stride];

		if (i >= nprops || seen[i])
		{
			pfree(order);
			(void) bad(err, "the property order does not name each property once");
			return NULL;
		}
		seen[i] = 1;
		names &= i == k;
		order[k] = i;
	}
	if (names)
	{
		pfree(order);
		(void) bad(err, "the property order is the name order, which is written without one");
		return NULL;
	}
	return order;
}

/*
 * Is buf, which holds 0.3.0's order array, exactly what 0.3.0 wrote for the entity r (built from
 * it in today's form)? Its header with the array's flag, r's key lengths and directory with order
 * bytes 0, the array (r's order bytes), r's data.
 */
static bool
legacy_form_of(const uint8 *buf, size_t len, const Entity *r)
{
	EntityView	v;
	size_t		dir_at,
				dir_len;

	entity_view_init(&v, (const uint8 *) VARDATA(r), VARSIZE(r) - VARHDRSZ);
	dir_at = (size_t) (v.dir - v.body);
	dir_len = (size_t) v.nprops * ENTITY_DIRENT_SIZE;
	if (len != (size_t) v.len + v.nprops || v.order == NULL ||
		buf[0] != v.body[0] || buf[1] != ((v.body[1] & ~ENTITY_ORDER_IN_DIR) | ENTITY_HAS_ORDER) ||
		memcmp(buf + 2, v.body + 2, dir_at - 2) != 0)
		return false;
	for (uint32 i = 0; i < v.nprops; i++)
	{
		const uint8 *a = buf + dir_at + (size_t) i * ENTITY_DIRENT_SIZE;
		const uint8 *b = v.dir + (size_t) i * ENTITY_DIRENT_SIZE;

		if (memcmp(a, b, ENTITY_DIRENT_ORDER) != 0 || a[ENTITY_DIRENT_ORDER] != 0 ||
			buf[dir_at + dir_len + i] != b[ENTITY_DIRENT_ORDER])
			return false;
	}
	return memcmp(buf + dir_at + dir_len + v.nprops, v.data, v.data_len) == 0;
}

Entity *
entity_from_binary(const uint8 *buf, size_t len, TsError *err)
{
	uint32		nprops;
	uint8		flags;
	size_t		pos = ENTITY_HEADER_SIZE;
	EntityKeys	keys = {0};
	const uint8 *dir;
	const uint8 *data;
	size_t		data_len;
	size_t		expect_off;
	PropRef    *props;
	int		   *order = NULL;
	Entity	   *result;

	if (len < ENTITY_HEADER_SIZE)
		return bad(err, "too short");
	if (buf[0] != ENTITY_FORMAT_VERSION)
	{
		ts_fail(err, TSE_INVALID_BINARY, "unsupported binary entity format version %d", buf[0]);
		return NULL;
	}
	flags = buf[1];
	if ((flags & ~ENTITY_KNOWN_FLAGS) || (flags & ENTITY_ORDER_FLAGS) == ENTITY_ORDER_FLAGS)
		return bad(err, "unknown flags");
	nprops = ts_rd16(buf + 2);
	if (nprops > TS_MAX_PROPERTIES)
	{
		ts_fail(err, TSE_TOO_MANY_PROPERTIES, "the entity has %u custom properties; the limit is %d",
				nprops, TS_MAX_PROPERTIES);
		return NULL;
	}
	if (flags & ENTITY_KEY_FLAGS)
	{
		if (len < pos + ENTITY_KEYLEN_SIZE)
			return bad(err, "truncated key lengths");
		keys.has_pk = (flags & ENTITY_HAS_PK) != 0;
		keys.has_rk = (flags & ENTITY_HAS_RK) != 0;
		keys.pk_len = ts_rd16(buf + pos);
		keys.rk_len = ts_rd16(buf + pos + 2);
		if ((!keys.has_pk && keys.pk_len) || (!keys.has_rk && keys.rk_len))
			return bad(err, "a length is given for an absent key");
		pos += ENTITY_KEYLEN_SIZE;
	}
	dir = buf + pos;
	if (len - pos < (size_t) nprops * ENTITY_DIRENT_SIZE)
		return bad(err, "truncated directory");
	pos += (size_t) nprops * ENTITY_DIRENT_SIZE;
	if (flags & ENTITY_ORDER_IN_DIR)
	{
		if (!(order = read_order(dir + ENTITY_DIRENT_ORDER, ENTITY_DIRENT_SIZE, nprops, err)))
			return NULL;
	}
	else if (flags & ENTITY_HAS_ORDER)
	{
		if (len - pos < nprops)
			return bad(err, "truncated property order");
		if (!(order = read_order(buf + pos, 1, nprops, err)))
			return NULL;
		pos += nprops;
	}
	data = buf + pos;
	data_len = len - (size_t) (data - buf);
	if ((size_t) keys.pk_len + keys.rk_len > data_len)
		return bad(err, "truncated keys");
	keys.pk = (const char *) data;
	keys.rk = (const char *) data + keys.pk_len;
	if (!edm_utf8_valid(keys.pk, keys.pk_len) || !edm_utf8_valid(keys.rk, keys.rk_len))
		return bad(err, "a key is not valid UTF-8");

	props = palloc(sizeof(PropRef) * (nprops + 1));
	expect_off = (size_t) keys.pk_len + keys.rk_len;
	for (uint32 i = 0; i < nprops; i++)
	{
		const uint8 *e = dir + (size_t) i * ENTITY_DIRENT_SIZE;
		size_t		off = ts_rd32(e);
		size_t		end = (i + 1 < nprops) ? ts_rd32(e + ENTITY_DIRENT_SIZE) : data_len;
		PropRef    *p = &props[i];
		EdmCheck	check;

		p->name_len = ts_rd16(e + 4);
		p->type = e[6];
		if (off != expect_off || end < off || end > data_len || off + p->name_len > end)
			return bad(err, "a property offset is out of place");
		if (p->type < EDM_STRING || p->type > EDM_TYPE_MAX)
			return bad(err, "unknown property type");
		if (!(flags & ENTITY_ORDER_IN_DIR) && e[ENTITY_DIRENT_ORDER] != 0)
			return bad(err, "an order byte is set without a stored order");
		p->name = (const char *) data + off;
		p->val = data + off + p->name_len;
		p->val_len = (uint32) (end - off - p->name_len);
		if (!edm_utf8_valid(p->name, p->name_len))
			return bad(err, "a property name is not valid UTF-8");
		check = edm_check_name(p->name, p->name_len);
		if (check == EDM_CHECK_TOO_LONG)
		{
			ts_fail(err, TSE_NAME_TOO_LONG, "a property name is longer than %d characters", TS_MAX_NAME_UTF16);
			return NULL;
		}
		if (check != EDM_CHECK_OK)
		{
			ts_fail(err, TSE_NAME_INVALID, "a property name is invalid or reserved");
			return NULL;
		}
		if (i > 0 && entity_name_cmp(props[i - 1].name, props[i - 1].name_len, p->name, p->name_len) >= 0)
			return bad(err, "properties are not in strictly ascending name order");
		if (!check_value(p, err))
			return NULL;
		expect_off = end;
	}
	if (expect_off != data_len)
		return bad(err, "trailing bytes");

	result = entity_build_ordered(props, (int) nprops, order, &keys, 0, err);
	pfree(props);
	if (order)
		pfree(order);
	if (result == NULL)
		return NULL;
	if ((flags & ENTITY_HAS_ORDER) ? !legacy_form_of(buf, len, result) :
		(VARSIZE(result) - VARHDRSZ != len || memcmp(VARDATA(result), buf, len) != 0))
	{
		pfree(result);
		return bad(err, "not in canonical form");
	}
	return result;
}
