/*
 * odata_eval.c - evaluating a parsed $filter against one String property, for queries over a set
 * that is not a table of entities (Query Tables filters on TableName). The typed comparison rules
 * of contract §5 hold: a comparison on another property is on an absent one (false), a literal of
 * another type decides by the mismatch alone. Backend-free.
 */
#include "entity_format.h"
#include "odata.h"

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
