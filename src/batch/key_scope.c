/*
 * key_scope.c - the key range of a scoped REST call (see key_scope.h).
 */
#include "key_scope.h"

#include "catalog/pg_type.h"
#include "lib/stringinfo.h"
#include "query.h"
#include "ts_report.h"
#include "ts_support.h"
#include "ts_table.h"
#include "utils/array.h"
#include "utils/builtins.h"

#define KEY_SCOPE_COMPARISONS 6	/* the most comparisons key_scope_translate adds */

bool
key_scope_from_arg(FunctionCallInfo fcinfo, int argno, KeyScope *ks)
{
	ArrayType  *arr;
	Datum	   *elems;
	bool	   *nulls;
	int			n;
	text	  **bounds[4] = {&ks->spk, &ks->srk, &ks->epk, &ks->erk};

	memset(ks, 0, sizeof(*ks));
	if (PG_NARGS() <= argno || PG_ARGISNULL(argno))
		return false;
	arr = PG_GETARG_ARRAYTYPE_P(argno);
	if (ARR_NDIM(arr) != 1 || ARR_ELEMTYPE(arr) != TEXTOID)
		ts_raisef(TSE_INVALID_INPUT, "key_scope is a one-dimensional text array (spk, srk, epk, erk)");
	deconstruct_array(arr, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
	if (n != 4)
		ts_raisef(TSE_INVALID_INPUT, "key_scope has 4 elements (spk, srk, epk, erk), not %d", n);
	for (int i = 0; i < 4; i++)
		*bounds[i] = nulls[i] ? NULL : DatumGetTextPP(elems[i]);
	if ((ks->srk && !ks->spk) || (ks->erk && !ks->epk))
		ts_raisef(TSE_INVALID_INPUT, "a key_scope's RowKey bound needs the PartitionKey bound beside it");
	return true;
}

bool
key_scope_contains(const KeyScope *ks, const text *pk, const text *rk)
{
	int			c;

	if (ks->spk)
	{
		c = ts_key_cmp(pk, ks->spk);
		if (c < 0 || (c == 0 && ks->srk && ts_key_cmp(rk, ks->srk) < 0))
			return false;
	}
	if (ks->epk)
	{
		c = ts_key_cmp(pk, ks->epk);
		if (c > 0 || (c == 0 && ks->erk && ts_key_cmp(rk, ks->erk) > 0))
			return false;
	}
	return true;
}

void
key_scope_check(const KeyScope *ks, const text *pk, const text *rk)
{
	if (!key_scope_contains(ks, pk, rk))
		ts_raisef(TSE_KEY_SCOPE, KEY_SCOPE_MESSAGE,
				  ts_keys_excerpt(pk, rk));
}

/* 'literal' with its quotes doubled (an OData string) */
static void
append_literal(StringInfo s, const text *lit)
{
	const char *p = VARDATA_ANY(lit);
	int			n = VARSIZE_ANY_EXHDR(lit);

	appendStringInfoChar(s, '\'');
	for (int i = 0; i < n; i++)
	{
		if (p[i] == '\'')
			appendStringInfoChar(s, '\'');
		appendStringInfoChar(s, p[i]);
	}
	appendStringInfoChar(s, '\'');
}

/* "<name> <op> 'literal'" */
static void
compare(StringInfo s, const char *name, const char *op, const text *lit)
{
	appendStringInfo(s, "%s %s ", name, op);
	append_literal(s, lit);
}

/* the same after " and " when s is not empty */
static void
and_compare(StringInfo s, const char *name, const char *op, const text *lit)
{
	if (s->len > 0)
		appendStringInfoString(s, " and ");
	compare(s, name, op, lit);
}

/* " and (PartitionKey <pk_op> 'pk' or RowKey <rk_op> 'rk')": a RowKey bound in its own partition */
static void
and_row_bound(StringInfo s, const char *pk_op, const text *pk, const char *rk_op, const text *rk)
{
	appendStringInfoString(s, " and (");
	compare(s, "PartitionKey", pk_op, pk);
	appendStringInfoString(s, " or ");
	compare(s, "RowKey", rk_op, rk);
	appendStringInfoChar(s, ')');
}

/*
 * The range as an OData filter ("" for the whole table). One partition is a dense key range
 * (PartitionKey eq, RowKey bounds); otherwise the PartitionKey bounds come first, so that the
 * page reads only the partitions of the range, and a RowKey bound applies in its own partition:
 * (PartitionKey gt spk or RowKey ge srk), (PartitionKey lt epk or RowKey le erk).
 */
static void
range_filter(const KeyScope *ks, StringInfo s)
{
	if (ks->spk && ks->epk && ts_key_cmp(ks->spk, ks->epk) == 0)
	{
		and_compare(s, "PartitionKey", "eq", ks->spk);
		if (ks->srk)
			and_compare(s, "RowKey", "ge", ks->srk);
		if (ks->erk)
			and_compare(s, "RowKey", "le", ks->erk);
		return;
	}
	if (ks->spk)
		and_compare(s, "PartitionKey", "ge", ks->spk);
	if (ks->epk)
		and_compare(s, "PartitionKey", "le", ks->epk);
	if (ks->srk)
		and_row_bound(s, "gt", ks->spk, "ge", ks->srk);
	if (ks->erk)
		and_row_bound(s, "lt", ks->epk, "le", ks->erk);
}

void
key_scope_translate(const KeyScope *ks, text *filter, OdFilter *f, int param_base)
{
	StringInfoData s;
	TsError		err = {0};

	/* f holds the caller's filter translated alone: its errors are raised, and it is one expression */
	initStringInfo(&s);
	range_filter(ks, &s);
	if (s.len == 0)
		return;
	if (f->root != NULL)		/* a filter of only spaces is no filter */
	{
		StringInfoData both;

		initStringInfo(&both);
		appendStringInfoChar(&both, '(');
		appendBinaryStringInfo(&both, VARDATA_ANY(filter), VARSIZE_ANY_EXHDR(filter));
		appendStringInfo(&both, ") and (%s)", s.data);
		s = both;
	}
	if (!odata_translate_indexed(s.data, s.len, ts_max_filter_comparisons + KEY_SCOPE_COMPARISONS, param_base,
								 f->shippable ? ODATA_SHIPPABLE : 0, f->indexed, f, &err))
		ts_raise(&err);
}
