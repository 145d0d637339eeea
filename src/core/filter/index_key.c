/*
 * index_key.c - the entity index's keys and the key ranges of a comparison (index_key.h).
 * Backend-free.
 */
#include "index_key.h"

#include <math.h>

#define SIGN64 (UINT64CONST(1) << 63)

static void
wr_be(uint8 *out, uint64 v, int n)
{
	for (int i = n - 1; i >= 0; i--)
	{
		out[i] = (uint8) v;
		v >>= 8;
	}
}

static uint64
rd_be(const uint8 *p, int n)
{
	uint64		v = 0;

	for (int i = 0; i < n; i++)
		v = (v << 8) | p[i];
	return v;
}

/* A Double's IEEE bits in an order that memcmp keeps: -0 as 0, negatives flipped. */
static uint64
double_order_bits(uint64 bits)
{
	if ((bits & ~SIGN64) == 0)
		bits = 0;
	return (bits & SIGN64) ? ~bits : (bits | SIGN64);
}

static uint64
double_bits_of_order(uint64 u)
{
	return (u & SIGN64) ? (u & ~SIGN64) : ~u;
}

static uint32
value_key_len(uint8 type, uint32 val_len)
{
	if (type == EDM_STRING || type == EDM_BINARY)
		return Min(val_len, INDEX_KEY_VALUE_MAX);
	return (uint32) edm_fixed_size((EdmType) type);
}

/* The value (stored form) in its key form; returns the length. */
static uint32
encode_value(uint8 type, const uint8 *val, uint32 val_len, uint8 *out)
{
	uint32		n = value_key_len(type, val_len);

	switch (type)
	{
		case EDM_STRING:
		case EDM_BINARY:
		case EDM_GUID:
			memcpy(out, val, n);
			break;
		case EDM_INT32:
			wr_be(out, (uint64) (ts_rd32(val) ^ 0x80000000u), 4);
			break;
		case EDM_INT64:
		case EDM_DATETIME:
			wr_be(out, ts_rd64(val) ^ SIGN64, 8);
			break;
		case EDM_DOUBLE:
			wr_be(out, double_order_bits(ts_rd64(val)), 8);
			break;
		case EDM_BOOLEAN:
			out[0] = val[0] ? 1 : 0;
			break;
		default:
			break;
	}
	return n;
}

uint32
index_key_max_size(const PropRef *p)
{
	return p->name_len + 2 + value_key_len(p->type, p->val_len);
}

uint32
index_key_encode(const PropRef *p, uint8 *buf)
{
	memcpy(buf, p->name, p->name_len);
	buf[p->name_len] = 0;
	buf[p->name_len + 1] = p->type;
	return p->name_len + 2 + encode_value(p->type, p->val, p->val_len, buf + p->name_len + 2);
}

bool
index_key_decode(const uint8 *key, uint32 len, IndexKeyView *out)
{
	const uint8 *z = memchr(key, 0, len);
	const uint8 *v;
	uint32		vlen;
	uint8		type;

	memset(out, 0, sizeof(*out));
	if (z == NULL || z == key || (uint32) (z - key) + 2 > len)
		return false;
	type = z[1];
	if (type < EDM_STRING || type > EDM_TYPE_MAX)
		return false;
	v = z + 2;
	vlen = len - (uint32) (v - key);
	out->prop.name = (const char *) key;
	out->prop.name_len = (uint32) (z - key);
	out->prop.type = type;
	if (type == EDM_STRING || type == EDM_BINARY)
	{
		if (vlen > INDEX_KEY_VALUE_MAX)
			return false;
		out->prop.val = v;
		out->prop.val_len = vlen;
		out->cut = vlen == INDEX_KEY_VALUE_MAX;
		return true;
	}
	if (vlen != (uint32) edm_fixed_size((EdmType) type))
		return false;
	out->prop.val = out->buf;
	out->prop.val_len = vlen;
	switch (type)
	{
		case EDM_INT32:
			ts_wr32(out->buf, (uint32) rd_be(v, 4) ^ 0x80000000u);
			break;
		case EDM_INT64:
		case EDM_DATETIME:
			ts_wr64(out->buf, rd_be(v, 8) ^ SIGN64);
			break;
		case EDM_DOUBLE:
			ts_wr64(out->buf, double_bits_of_order(rd_be(v, 8)));
			break;
		case EDM_BOOLEAN:
			if (v[0] > 1)
				return false;
			out->buf[0] = v[0];
			break;
		case EDM_GUID:
			memcpy(out->buf, v, 16);
			break;
		default:
			return false;
	}
	return true;
}

int
index_key_cmp(const uint8 *a, uint32 alen, const uint8 *b, uint32 blen)
{
	int			c = memcmp(a, b, Min(alen, blen));

	if (c != 0)
		return c;
	return (alen > blen) - (alen < blen);
}

/* ---------- the ranges of a comparison ---------- */

/* Does a literal of type lit compare by value with properties of type t (contract §5)? */
static bool
comparable(EdmType lit, uint8 t)
{
	return lit == t || (lit == EDM_INT32 && (t == EDM_INT64 || t == EDM_DOUBLE)) ||
		(lit == EDM_INT64 && t == EDM_DOUBLE);
}

/* name 0x00 type: where the keys of that type start (type EDM_TYPE_MAX + 1: after the last) */
static uint8 *
group_prefix(const char *name, uint32 name_len, int type, uint32 *len)
{
	uint8	   *k = palloc(name_len + 2);

	memcpy(k, name, name_len);
	k[name_len] = 0;
	k[name_len + 1] = (uint8) type;
	*len = name_len + 2;
	return k;
}

/* The key of name with a value of type t given in its stored form. */
static uint8 *
value_key(const char *name, uint32 name_len, uint8 t, const uint8 *val, uint32 val_len, uint32 *len)
{
	PropRef		p = {name, name_len, t, val, val_len};
	uint8	   *k = palloc(index_key_max_size(&p));

	*len = index_key_encode(&p, k);
	return k;
}

static uint8 *
double_key(const char *name, uint32 name_len, double d, uint32 *len)
{
	uint8		val[8];
	uint64		bits;

	memcpy(&bits, &d, 8);
	ts_wr64(val, bits);
	return value_key(name, name_len, EDM_DOUBLE, val, 8, len);
}

/*
 * Bounds of the values of type t a literal compares with: the lowest key that may be >= the
 * literal (lo) and the highest that may be <= it (hi); *exact when the literal has exactly one key
 * of type t that stands for exactly its value, *none when no value of type t equals it.
 */
static void
literal_bounds(const char *name, uint32 name_len, const OdLiteral *lit, uint8 t, IndexKeyRange *r,
			   bool *exact, bool *none)
{
	uint8		val[16];
	uint32		vlen = 0;

	*exact = true;
	*none = false;
	if (lit->type == EDM_INT64 && t == EDM_DOUBLE)
	{
		double		d = (double) lit->i64;
		int			c = odata_cmp_double_int64(d, lit->i64);

		if (c != 0)
		{
			*exact = false;
			*none = true;
		}
		/* one step below and above: the Doubles nearest the Int64 lie between them */
		r->lo = double_key(name, name_len, c == 0 ? d : nextafter(d, -HUGE_VAL), &r->lo_len);
		r->hi = double_key(name, name_len, c == 0 ? d : nextafter(d, HUGE_VAL), &r->hi_len);
		return;
	}
	switch (t)
	{
		case EDM_STRING:
			r->lo = value_key(name, name_len, t, (const uint8 *) lit->str, lit->len, &r->lo_len);
			*exact = lit->len < INDEX_KEY_VALUE_MAX;
			break;
		case EDM_BINARY:
			r->lo = value_key(name, name_len, t, lit->bin, lit->len, &r->lo_len);
			*exact = lit->len < INDEX_KEY_VALUE_MAX;
			break;
		case EDM_INT32:
			ts_wr32(val, (uint32) lit->i32);
			vlen = 4;
			break;
		case EDM_INT64:
			ts_wr64(val, (uint64) (lit->type == EDM_INT32 ? (int64) lit->i32 : lit->i64));
			vlen = 8;
			break;
		case EDM_DOUBLE:
			r->lo = double_key(name, name_len, lit->type == EDM_INT32 ? (double) lit->i32 : lit->dbl, &r->lo_len);
			break;
		case EDM_DATETIME:
			ts_wr64(val, (uint64) lit->i64);
			vlen = 8;
			break;
		case EDM_BOOLEAN:
			val[0] = lit->b ? 1 : 0;
			vlen = 1;
			break;
		case EDM_GUID:
			memcpy(val, lit->guid, 16);
			vlen = 16;
			break;
	}
	if (vlen > 0)
		r->lo = value_key(name, name_len, t, val, vlen, &r->lo_len);
	r->hi = r->lo;
	r->hi_len = r->lo_len;
}

int
index_key_ranges(const char *name, uint32 name_len, OdCmp op, const OdLiteral *lit, IndexKeyRange *out)
{
	int			n = 0;

	for (int t = EDM_STRING; t <= EDM_TYPE_MAX; t++)
	{
		IndexKeyRange *r = &out[n];
		bool		exact,
					none;
		uint8	   *start,
				   *end;
		uint32		start_len,
					end_len;

		memset(r, 0, sizeof(*r));
		r->type = (uint8) t;
		r->op = op;
		r->lit = *lit;
		start = group_prefix(name, name_len, t, &start_len);
		end = group_prefix(name, name_len, t + 1, &end_len);
		if (!comparable(lit->type, (uint8) t))
		{
			/* present with another type: the mismatch rule, the same for every value */
			if (op != CMP_NE && op != CMP_LT && op != CMP_LE)
				continue;
			r->all = true;
			r->lo = start;
			r->lo_len = start_len;
			r->hi = end;
			r->hi_len = end_len;
			n++;
			continue;
		}
		literal_bounds(name, name_len, lit, (uint8) t, r, &exact, &none);
		switch (op)
		{
			case CMP_EQ:
				if (none)
					continue;
				r->exact = exact;
				r->hi_incl = true;
				break;
			case CMP_NE:
				r->lo = start;
				r->lo_len = start_len;
				r->hi = end;
				r->hi_len = end_len;
				break;
			case CMP_GT:
			case CMP_GE:
				r->hi = end;
				r->hi_len = end_len;
				break;
			case CMP_LT:
			case CMP_LE:
				r->lo = start;
				r->lo_len = start_len;
				r->hi_incl = true;
				break;
		}
		n++;
	}
	return n;
}

int
index_key_range_test(const IndexKeyRange *r, const uint8 *key, uint32 len)
{
	int			c = index_key_cmp(key, len, r->hi, r->hi_len);
	IndexKeyView kv;

	if (c > 0 || (c == 0 && !r->hi_incl))
		return 1;
	if (index_key_cmp(key, len, r->lo, r->lo_len) < 0)
		return -1;
	if (r->all)
		return 0;
	if (!index_key_decode(key, len, &kv) || kv.prop.type != r->type)
		return -1;
	if (kv.cut)
	{
		/* a cut value stands for every value with its bytes as a prefix */
		const uint8 *lv = r->lit.type == EDM_STRING ? (const uint8 *) r->lit.str : r->lit.bin;

		if (r->lit.len >= kv.prop.val_len && memcmp(lv, kv.prop.val, kv.prop.val_len) == 0)
			return 0;
	}
	return odata_eval_prop(&kv.prop, r->op, &r->lit) ? 0 : -1;
}
