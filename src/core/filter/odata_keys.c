/*
 * odata_keys.c - what a parsed $filter says about the keys: its negation normal form (negations
 * pushed down to the comparisons, which the SQL translation and the key ranges read), the
 * top-level conjuncts that bound the key range, and the one partition a filter names. The
 * extension routes a query on a distributed table to the node of that partition (query.c, from
 * odata_sql.c's range), and tablestore-gateway sends the call there directly (route_key.c): both
 * by odata_one_partition. Backend-free.
 */
#include "odata.h"

static OdCmp
negate_op(OdCmp op)
{
	switch (op)
	{
		case CMP_EQ:
			return CMP_NE;
		case CMP_NE:
			return CMP_EQ;
		case CMP_GT:
			return CMP_LE;
		case CMP_GE:
			return CMP_LT;
		case CMP_LT:
			return CMP_GE;
		default:
			return CMP_GT;
	}
}

/*
 * Push negations down to the comparisons: logic is two-valued (a comparison on an absent property
 * is false), so a negated comparison flips its operator and also holds when the property is absent.
 */
static OdNode *
to_nnf(OdNode *n, bool negate)
{
	OdNode	   *r;

	TS_CHECK_STACK();
	switch (n->kind)
	{
		case N_NOT:
			return to_nnf(n->kids[0], !negate);
		case N_CONST:
			if (!negate)
				return n;
			r = palloc(sizeof(OdNode));
			*r = *n;
			r->lit.b = !n->lit.b;
			return r;
		case N_CMP:
			if (!negate)
				return n;
			r = palloc(sizeof(OdNode));
			*r = *n;
			r->op = negate_op(n->op);
			r->or_absent = !n->or_absent;
			return r;
		default:
			r = palloc(sizeof(OdNode));
			*r = *n;
			if (negate)
				r->kind = n->kind == N_AND ? N_OR : N_AND;
			r->kids = palloc(sizeof(OdNode *) * n->nkids);
			for (int k = 0; k < n->nkids; k++)
				r->kids[k] = to_nnf(n->kids[k], negate);
			return r;
	}
}

OdNode *
odata_parse_nnf(const char *filter, size_t len, int max_comparisons, int *ncomparisons, TsError *err)
{
	OdNode	   *root = odata_parse(filter, len, max_comparisons, ncomparisons, err);

	if (root == NULL)
		return NULL;
	root = to_nnf(root, false);
	if (root->kind == N_CONST && root->lit.b)
		return NULL;			/* $filter=true: every entity, as with no filter */
	return root;
}

bool
odata_is_key_bound(const OdNode *n)
{
	return n->kind == N_CMP && (n->prop == PROP_PARTITION_KEY || n->prop == PROP_ROW_KEY) &&
		n->lit.type == EDM_STRING && n->op != CMP_NE;
}

const OdLiteral *
odata_one_partition(const OdNode *root)
{
	const OdNode *const *conj;
	int			nconj;
	const OdLiteral *pk = NULL;

	if (root == NULL)
		return NULL;
	conj = root->kind == N_AND ? (const OdNode *const *) root->kids : &root;
	nconj = root->kind == N_AND ? root->nkids : 1;
	for (int k = 0; k < nconj; k++)
	{
		if (!odata_is_key_bound(conj[k]))
			return NULL;		/* a conjunct that is not a key bound: or, a property, ne, a constant */
		if (conj[k]->prop == PROP_PARTITION_KEY)
		{
			if (conj[k]->op != CMP_EQ)
				return NULL;	/* a PartitionKey range: left to SQL */
			pk = &conj[k]->lit;	/* the last (different ones select nothing: any one routes) */
		}
	}
	return pk;
}
