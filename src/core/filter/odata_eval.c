/*
 * odata_eval.c - the typed comparison of contract §5 in C: one property (or its absence) against
 * a literal (odata_eval_prop: the @~ operator and the entity index's key tests), and a parsed
 * $filter against one String property, for queries over a set that is not a table of entities
 * (Query Tables filters on TableName). A comparison on an absent property is false; an Int32
 * literal compares as a number with Int32, Int64 and Double values, an Int64 literal with Int64
 * and Double values (exactly, beyond 2^53 too); any other difference of types decides by the
 * mismatch alone. Doubles follow PostgreSQL's float8 order (NaN equal to itself and above every
 * number, -0 equal to 0), as the SQL translation's filter keys do. Backend-free.
 */
#include "entity_format.h"
#include "odata.h"

#include <math.h>

static bool
cmp_result(OdCmp op, int c)
{
	switch (op)
	{
		case CMP_EQ:
			return c == 0;
		case CMP_NE:
			return c != 0;
		case CMP_GT:
			return c > 0;
		case CMP_GE:
			return c >= 0;
		case CMP_LT:
			return c < 0;
		default:
			return c <= 0;
	}
}

/* The mismatch rule: eq false, ne true, lt true, le true, gt false, ge false. */
static bool
mismatch(OdCmp op)
{
	return op == CMP_NE || op == CMP_LT || op == CMP_LE;
}

static int
cmp_int64(int64 a, int64 b)
{
	return (a > b) - (a < b);
}

/* float8's order: NaN above everything and equal to itself; -0 equal to 0 */
static int
cmp_double(double a, double b)
{
	if (isnan(a))
		return isnan(b) ? 0 : 1;
	if (isnan(b))
		return -1;
	return (a > b) - (a < b);
}

/* A Double against an Int64, exactly (numeric's order: NaN above everything) */
int
odata_cmp_double_int64(double d, int64 v)
{
	int64		whole;
	double		frac;

	if (isnan(d) || d >= 9223372036854775808.0)
		return 1;
	if (d < -9223372036854775808.0)
		return -1;
	/* |d| < 2^63: its integer part is an exact int64, and the fraction is exact as well */
	whole = (int64) d;
	if (whole != v)
		return whole > v ? 1 : -1;
	frac = d - (double) whole;
	return (frac > 0) - (frac < 0);
}

static double
prop_double(const PropRef *p)
{
	uint64		bits = ts_rd64(p->val);
	double		d;

	memcpy(&d, &bits, sizeof(d));
	return d;
}

static int
cmp_bytes(const uint8 *a, uint32 alen, const uint8 *b, uint32 blen)
{
	int			c = memcmp(a, b, Min(alen, blen));

	if (c != 0)
		return c > 0 ? 1 : -1;
	return (alen > blen) - (alen < blen);
}

/*
 * The order of the value against the literal, or false when the types do not compare (then the
 * mismatch rule decides).
 */
bool
odata_prop_order(const PropRef *p, const OdLiteral *lit, int *c)
{
	switch (lit->type)
	{
		case EDM_INT32:
			if (p->type == EDM_INT32)
				*c = cmp_int64((int32) ts_rd32(p->val), lit->i32);
			else if (p->type == EDM_INT64)
				*c = cmp_int64((int64) ts_rd64(p->val), lit->i32);
			else if (p->type == EDM_DOUBLE)
				*c = cmp_double(prop_double(p), (double) lit->i32);
			else
				return false;
			return true;
		case EDM_INT64:
			if (p->type == EDM_INT64)
				*c = cmp_int64((int64) ts_rd64(p->val), lit->i64);
			else if (p->type == EDM_DOUBLE)
				*c = odata_cmp_double_int64(prop_double(p), lit->i64);
			else
				return false;
			return true;
		case EDM_DOUBLE:
			if (p->type != EDM_DOUBLE)
				return false;
			*c = cmp_double(prop_double(p), lit->dbl);
			return true;
		case EDM_STRING:
			if (p->type != EDM_STRING)
				return false;
			*c = cmp_bytes(p->val, p->val_len, (const uint8 *) lit->str, lit->len);
			return true;
		case EDM_BOOLEAN:
			if (p->type != EDM_BOOLEAN)
				return false;
			*c = cmp_int64(p->val[0] != 0, lit->b ? 1 : 0);
			return true;
		case EDM_DATETIME:
			if (p->type != EDM_DATETIME)
				return false;
			*c = cmp_int64((int64) ts_rd64(p->val), lit->i64);
			return true;
		case EDM_GUID:
			if (p->type != EDM_GUID)
				return false;
			*c = cmp_bytes(p->val, 16, lit->guid, 16);
			return true;
		case EDM_BINARY:
			if (p->type != EDM_BINARY)
				return false;
			*c = cmp_bytes(p->val, p->val_len, lit->bin, lit->len);
			return true;
		default:
			return false;
	}
}

bool
odata_cmp_holds(OdCmp op, int c)
{
	return cmp_result(op, c);
}

bool
odata_eval_prop(const PropRef *p, OdCmp op, const OdLiteral *lit)
{
	int			c;

	if (p == NULL)
		return false;
	if (!odata_prop_order(p, lit, &c))
		return mismatch(op);
	return cmp_result(op, c);
}

bool
odata_eval_string(const OdNode *n, const char *prop, uint32 prop_len, const char *value, uint32 value_len)
{
	TS_CHECK_STACK();
	switch (n->kind)
	{
		case N_AND:
			for (int i = 0; i < n->nkids; i++)
				if (!odata_eval_string(n->kids[i], prop, prop_len, value, value_len))
					return false;
			return true;
		case N_OR:
			for (int i = 0; i < n->nkids; i++)
				if (odata_eval_string(n->kids[i], prop, prop_len, value, value_len))
					return true;
			return false;
		case N_NOT:
			return !odata_eval_string(n->kids[0], prop, prop_len, value, value_len);
		case N_CONST:
			return n->lit.b;
		default:
			{
				int			c;

				if (n->prop != PROP_CUSTOM || n->name_len != prop_len || memcmp(n->name, prop, prop_len) != 0)
					return false;	/* an absent property (a "not" above turns it true) */
				if (n->lit.type != EDM_STRING)
					return mismatch(n->op);
				c = entity_name_cmp(value, value_len, n->lit.str, n->lit.len);	/* ordinal */
				return cmp_result(n->op, c);
			}
	}
}
