/*
 * odata_sql.c - a parsed $filter as a SQL boolean expression over the table columns
 * partition_key, row_key, "timestamp" and properties, with the typed semantics of contract §5.
 *
 * Negations are pushed down to the comparisons first (logic is two-valued: a comparison on an
 * absent property is false, so "not (Age lt 40)" holds for an entity without Age); a negated
 * comparison flips its operator and also holds when the property is absent. No NOT remains, so a
 * NULL from an accessor acts as false.
 *
 * Keys and Timestamp are column comparisons the primary key uses. A custom property compared
 * with a numeric, Boolean or DateTime literal goes through a filter key (filter_keys.c): the
 * value when its type is the literal's or widens from it, a value below every literal when the
 * property has another type, NULL when absent. That one expression gives exactly the mismatch
 * rule (eq, gt, ge false; ne, lt, le true) and can be indexed. Strings, Guids and Binaries have
 * no value below every literal, so for ne, lt and le a type test is OR-ed in.
 *
 * On a table whose indexing policy includes the property (index_policy.h), a custom comparison
 * is instead "properties @~ <property_filter>" (prop_filter.h): the same semantics in one
 * operator, which the table's entity index (a GIN index over every property) serves, so that
 * and/or of such comparisons become bitmap and/or of index scans. A negated one still adds
 * "OR NOT (properties ? 'X')", which no index serves.
 *
 * Every literal is written by this file (quoted and escaped, or typed), so no input reaches the
 * SQL text unescaped. Backend-free.
 */
#include "odata.h"

#include "index_policy.h"
#include "prop_filter.h"

#define PROPS_COL "properties"

static const char *const op_sql[] = {
	[CMP_EQ] = "=", [CMP_NE] = "<>", [CMP_GT] = ">", [CMP_GE] = ">=", [CMP_LT] = "<", [CMP_LE] = "<="
};

/* The result of a comparison decided by a type mismatch alone. */
static bool
mismatch_result(OdCmp op)
{
	return op == CMP_NE || op == CMP_LT || op == CMP_LE;
}

/*
 * A SQL string literal: '...' with quotes doubled, or E'...' with backslashes doubled too when
 * there is one, which reads the same whatever standard_conforming_strings says.
 */
void
odata_append_sql_literal(StringInfo out, const char *s, size_t len)
{
	bool		backslash = memchr(s, '\\', len) != NULL;

	if (backslash)
		appendStringInfoChar(out, 'E');
	appendStringInfoChar(out, '\'');
	for (size_t i = 0; i < len; i++)
	{
		if (s[i] == '\'' || (s[i] == '\\' && backslash))
			appendStringInfoChar(out, s[i]);
		appendStringInfoChar(out, s[i]);
	}
	appendStringInfoChar(out, '\'');
}

static void
append_name(const OdFilter *f, StringInfo out, const OdNode *n)
{
	odata_append_sql_literal(out, n->name, n->name_len);
	if (f->shippable)
		appendStringInfoString(out, "::tablestore.property_name");
}

/* tablestore.<fn>(properties, 'Name') */
static void
append_accessor(const OdFilter *f, StringInfo out, const char *fn, const OdNode *n)
{
	appendStringInfo(out, "tablestore.%s(" PROPS_COL ", ", fn);
	append_name(f, out, n);
	appendStringInfoChar(out, ')');
}

/*
 * Literal values: written into the SQL (quoted, with a type), or as $n with the value recorded in
 * f->params when the filter is translated with parameters.
 */
static OdParam *
add_param(OdFilter *f, StringInfo out, OdParamKind kind)
{
	OdParam    *p;

	if (f->nparams == f->paramcap)
	{
		f->paramcap = f->paramcap ? f->paramcap * 2 : 16;
		f->params = f->params ? repalloc(f->params, sizeof(OdParam) * f->paramcap) :
			palloc(sizeof(OdParam) * f->paramcap);
	}
	p = &f->params[f->nparams++];
	memset(p, 0, sizeof(*p));
	p->kind = kind;
	appendStringInfo(out, "$%d", f->param_base + f->nparams);
	return p;
}

static void
append_typed(StringInfo out, const char *text, const char *type)
{
	odata_append_sql_literal(out, text, strlen(text));
	appendStringInfo(out, "::pg_catalog.%s", type);
}

static void
lit_text(OdFilter *f, StringInfo out, const char *s, uint32 len)
{
	OdParam    *p;

	if (f->param_base < 0)
	{
		odata_append_sql_literal(out, s, len);
		return;
	}
	p = add_param(f, out, PK_TEXT);
	p->str = s;
	p->len = len;
}

/* A float8 value; an Int32 literal (whole) is written without a fraction. */
static void
lit_float8(OdFilter *f, StringInfo out, double d, bool whole)
{
	char		buf[EDM_DOUBLE_TEXT_MAX + 8];
	bool		is_string;

	if (f->param_base >= 0)
	{
		add_param(f, out, PK_FLOAT8)->f8 = d;
		return;
	}
	if (whole)
		edm_format_int64((int64) d, buf);
	else
		edm_format_double(d, buf, &is_string);
	append_typed(out, buf, "float8");
}

static void
lit_int(OdFilter *f, StringInfo out, OdParamKind kind, int64 v)
{
	char		buf[24];

	if (f->param_base >= 0)
	{
		add_param(f, out, kind)->i8 = v;
		return;
	}
	edm_format_int64(v, buf);
	if (kind == PK_INT4)
		appendStringInfoString(out, buf);
	else
		append_typed(out, buf, kind == PK_NUMERIC ? "numeric" : "int8");
}

/* A timestamptz of usec microseconds since 2000-01-01 (edm_pg_usec_from_ticks's). */
static void
lit_timestamptz(OdFilter *f, StringInfo out, int64 usec)
{
	char		buf[EDM_DATETIME_TEXT_LEN + 1];

	if (f->param_base >= 0)
	{
		add_param(f, out, PK_TIMESTAMPTZ)->i8 = usec;
		return;
	}
	edm_format_datetime(edm_ticks_from_pg_usec(usec), buf);
	append_typed(out, buf, "timestamptz");
}

static void
lit_bytes(OdFilter *f, StringInfo out, OdParamKind kind, const uint8 *bytes, uint32 len)
{
	StringInfoData text;
	static const char digits[] = "0123456789abcdef";

	if (f->param_base >= 0)
	{
		OdParam    *p = add_param(f, out, kind);

		p->bytes = bytes;
		p->len = len;
		return;
	}
	initStringInfo(&text);
	if (kind == PK_UUID)
	{
		enlargeStringInfo(&text, EDM_GUID_TEXT_LEN + 1);
		edm_format_guid(bytes, text.data);
	}
	else
	{
		appendStringInfoString(&text, "\\x");	/* bytea's hex input form */
		for (uint32 k = 0; k < len; k++)
		{
			appendStringInfoChar(&text, digits[bytes[k] >> 4]);
			appendStringInfoChar(&text, digits[bytes[k] & 15]);
		}
	}
	append_typed(out, text.data, kind == PK_UUID ? "uuid" : "bytea");
	pfree(text.data);
}

static void
emit_key_cmp(OdFilter *f, StringInfo out, const OdNode *n)
{
	if (n->lit.type != EDM_STRING)
	{
		appendStringInfoString(out, mismatch_result(n->op) ? "true" : "false");
		return;
	}
	appendStringInfo(out, "%s %s ", n->prop == PROP_PARTITION_KEY ? "partition_key" : "row_key", op_sql[n->op]);
	lit_text(f, out, n->lit.str, n->lit.len);	/* the key columns' "C" collation applies */
}

/*
 * Timestamp against a DateTime literal, at 100 ns. The column "timestamp" holds a row's Timestamp
 * rounded down to the microsecond, tablestore.timestamp_ticks("timestamp", etag) the exact ticks
 * (etag.h). With the literal as u microseconds plus r ticks (0 <= r < 10) and a row's Timestamp as
 * t microseconds plus s ticks:
 *   T <  L  is  t < u, or t = u and s < r      (r = 0: t < u)
 *   T >= L  is  t > u, or t = u and s >= r     (r = 0: t >= u)
 *   T >  L  is  t > u, or t = u and s > r
 *   T <= L  is  t < u, or t = u and s <= r
 *   T =  L  is  t = u and s = r
 *   T <> L  is  t <> u, or s <> r
 * each written with its bound on "timestamp" (which an index on the column can use), the exact
 * ticks read only for rows in the literal's microsecond.
 */
static void
emit_timestamp_cmp(OdFilter *f, StringInfo out, const OdNode *n)
{
	int64		ticks = n->lit.i64;
	int64		u = edm_pg_usec_from_ticks(ticks);
	bool		whole = edm_ticks_from_pg_usec(u) == ticks;
	OdCmp		op = n->op;
	const char *exact = "tablestore.timestamp_ticks(\"timestamp\", etag)";

	if (n->lit.type != EDM_DATETIME)
	{
		appendStringInfoString(out, mismatch_result(op) ? "true" : "false");
		return;
	}
	if (whole && (op == CMP_LT || op == CMP_GE))
	{
		appendStringInfo(out, "\"timestamp\" %s ", op_sql[op]);
		lit_timestamptz(f, out, u);
		return;
	}
	appendStringInfoString(out, "(\"timestamp\" ");
	switch (op)
	{
		case CMP_EQ:
			appendStringInfoString(out, "= ");
			lit_timestamptz(f, out, u);
			appendStringInfo(out, " AND %s = ", exact);
			break;
		case CMP_NE:
			appendStringInfoString(out, "<> ");
			lit_timestamptz(f, out, u);
			appendStringInfo(out, " OR %s <> ", exact);
			break;
		default:
			appendStringInfoString(out, op == CMP_GT || op == CMP_GE ? ">= " : "<= ");
			lit_timestamptz(f, out, u);
			appendStringInfo(out, " AND (\"timestamp\" %s ", op == CMP_GT || op == CMP_GE ? ">" : "<");
			lit_timestamptz(f, out, u);
			appendStringInfo(out, " OR %s %s ", exact, op_sql[op]);
			break;
	}
	lit_int(f, out, PK_INT8, ticks);
	appendStringInfoString(out, op == CMP_EQ || op == CMP_NE ? ")" : "))");
}

/* String, Guid, Binary: the typed accessor, plus a type test where a mismatch is true. */
static void
emit_typed_accessor_cmp(OdFilter *f, StringInfo out, const OdNode *n, const char *accessor)
{
	bool		arm = mismatch_result(n->op);

	if (arm)
		appendStringInfoChar(out, '(');
	append_accessor(f, out, accessor, n);
	appendStringInfo(out, " %s ", op_sql[n->op]);
	if (n->lit.type == EDM_STRING)
		lit_bytes(f, out, PK_BYTEA, (const uint8 *) n->lit.str, n->lit.len);
	else if (n->lit.type == EDM_GUID)
		lit_bytes(f, out, PK_UUID, n->lit.guid, 16);
	else
		lit_bytes(f, out, PK_BYTEA, n->lit.bin, n->lit.len);
	if (arm && f->shippable)
	{
		/* present with another type, without prop_type's text (whose collation postgres_fdw refuses) */
		appendStringInfoString(out, " OR (");
		append_accessor(f, out, accessor, n);
		appendStringInfoString(out, " IS NULL AND " PROPS_COL " OPERATOR(tablestore.?) ");
		append_name(f, out, n);
		appendStringInfoString(out, "))");
	}
	else if (arm)
	{
		appendStringInfoString(out, " OR ");
		append_accessor(f, out, "prop_type", n);
		appendStringInfo(out, " <> '%s')", edm_type_name(n->lit.type));
	}
}

/* properties @~ <property_filter>: the text form as a typed literal, or a parameter */
static void
emit_indexed_cmp(OdFilter *f, StringInfo out, const OdNode *n)
{
	appendStringInfoString(out, PROPS_COL " OPERATOR(tablestore.@~) ");
	if (f->param_base >= 0)
	{
		struct varlena *v = prop_filter_build(n->name, n->name_len, n->op, &n->lit);
		OdParam    *p = add_param(f, out, PK_PROPERTY_FILTER);

		p->bytes = (const uint8 *) v;
		p->len = VARSIZE(v);
	}
	else
	{
		PropFilter	pf = {n->name, n->name_len, n->op, n->lit};
		StringInfoData text;

		initStringInfo(&text);
		prop_filter_append_text(&text, &pf);
		odata_append_sql_literal(out, text.data, text.len);
		appendStringInfoString(out, "::tablestore.property_filter");
		pfree(text.data);
	}
	f->uses_index = true;
}

static void
emit_custom_cmp(OdFilter *f, StringInfo out, const OdNode *n)
{
	if (f->indexed != NULL && index_policy_includes(f->indexed, n->name, n->name_len))
	{
		emit_indexed_cmp(f, out, n);
		return;
	}
	switch (n->lit.type)
	{
		case EDM_STRING:
			/* the String's UTF-8 bytes as bytea: ordinal order, and any String (U+0000 too) */
			emit_typed_accessor_cmp(f, out, n, "filter_key_string");
			return;
		case EDM_GUID:
			emit_typed_accessor_cmp(f, out, n, "prop_guid");
			return;
		case EDM_BINARY:
			emit_typed_accessor_cmp(f, out, n, "prop_binary");
			return;
		case EDM_INT32:
			append_accessor(f, out, "filter_key_int32", n);
			appendStringInfo(out, " %s ", op_sql[n->op]);
			lit_float8(f, out, (double) n->lit.i32, true);
			return;
		case EDM_INT64:
			append_accessor(f, out, "filter_key_int64", n);
			appendStringInfo(out, " %s ", op_sql[n->op]);
			lit_int(f, out, PK_NUMERIC, n->lit.i64);
			return;
		case EDM_DOUBLE:
			append_accessor(f, out, "filter_key_double", n);
			appendStringInfo(out, " %s ", op_sql[n->op]);
			lit_float8(f, out, n->lit.dbl, false);
			return;
		case EDM_BOOLEAN:
			append_accessor(f, out, "filter_key_bool", n);
			appendStringInfo(out, " %s ", op_sql[n->op]);
			lit_int(f, out, PK_INT4, n->lit.b ? 1 : 0);
			return;
		case EDM_DATETIME:
			append_accessor(f, out, "filter_key_datetime", n);
			appendStringInfo(out, " %s ", op_sql[n->op]);
			lit_int(f, out, PK_INT8, n->lit.i64);
			return;
		default:
			Assert(false);
	}
}

static void
emit_cmp(OdFilter *f, StringInfo out, const OdNode *n)
{
	switch (n->prop)
	{
		case PROP_PARTITION_KEY:
		case PROP_ROW_KEY:
			emit_key_cmp(f, out, n);	/* keys are always present */
			return;
		case PROP_TIMESTAMP:
			emit_timestamp_cmp(f, out, n);
			return;
		case PROP_CUSTOM:
			if (n->or_absent)
				appendStringInfoChar(out, '(');
			emit_custom_cmp(f, out, n);
			if (n->or_absent)
			{
				appendStringInfoString(out, " OR NOT (" PROPS_COL " OPERATOR(tablestore.?) ");
				append_name(f, out, n);
				appendStringInfoString(out, "))");
			}
			return;
	}
}

static bool
is_key_string_eq(const OdNode *n, OdProp prop)
{
	return n->kind == N_CMP && n->prop == prop && n->op == CMP_EQ && n->lit.type == EDM_STRING;
}

/* "RowKey eq 'a' or RowKey eq 'b'" as "row_key IN (...)": one index scan. */
static bool
emit_key_in_list(OdFilter *f, StringInfo out, const OdNode *n)
{
	OdProp		prop;

	if (n->kind != N_OR || n->kids[0]->kind != N_CMP)
		return false;
	prop = n->kids[0]->prop;
	if (prop != PROP_PARTITION_KEY && prop != PROP_ROW_KEY)
		return false;
	for (int k = 0; k < n->nkids; k++)
		if (!is_key_string_eq(n->kids[k], prop))
			return false;
	appendStringInfo(out, "%s IN (", prop == PROP_PARTITION_KEY ? "partition_key" : "row_key");
	for (int k = 0; k < n->nkids; k++)
	{
		if (k > 0)
			appendStringInfoString(out, ", ");
		lit_text(f, out, n->kids[k]->lit.str, n->kids[k]->lit.len);
	}
	appendStringInfoChar(out, ')');
	return true;
}

static void
emit(OdFilter *f, StringInfo out, const OdNode *n)
{
	TS_CHECK_STACK();
	if (n->kind == N_CMP)
	{
		emit_cmp(f, out, n);
		return;
	}
	if (emit_key_in_list(f, out, n))
		return;
	appendStringInfoChar(out, '(');
	for (int k = 0; k < n->nkids; k++)
	{
		if (k > 0)
			appendStringInfoString(out, n->kind == N_AND ? " AND " : " OR ");
		emit(f, out, n->kids[k]);
	}
	appendStringInfoChar(out, ')');
}

static bool
keys_only(const OdNode *n)
{
	TS_CHECK_STACK();
	if (n->kind == N_CMP)
		return n->prop == PROP_PARTITION_KEY || n->prop == PROP_ROW_KEY;
	for (int k = 0; k < n->nkids; k++)
		if (!keys_only(n->kids[k]))
			return false;
	return true;
}

static int
literal_cmp(const OdLiteral *a, const OdLiteral *b)
{
	int			c = memcmp(a->str, b->str, Min(a->len, b->len));

	return c ? c : (a->len > b->len) - (a->len < b->len);
}

/* Narrow the RowKey range of a dense filter by one bound. */
static void
narrow_range(OdFilter *f, const OdNode *n)
{
	const OdLiteral *v = &n->lit;
	bool		lower = n->op == CMP_GE || n->op == CMP_GT || n->op == CMP_EQ;
	bool		upper = n->op == CMP_LE || n->op == CMP_LT || n->op == CMP_EQ;
	bool		incl = n->op != CMP_GT && n->op != CMP_LT;

	if (lower)
	{
		int			c = f->range_lo ? literal_cmp(v, f->range_lo) : 1;

		if (c > 0 || (c == 0 && !incl))
		{
			f->range_lo = v;
			f->range_lo_incl = incl;
		}
	}
	if (upper)
	{
		int			c = f->range_hi ? literal_cmp(v, f->range_hi) : -1;

		if (c < 0 || (c == 0 && !incl))
		{
			f->range_hi = v;
			f->range_hi_incl = incl;
		}
	}
}

static void
describe_conjuncts(OdFilter *f)
{
	OdNode	   *root = f->root;
	OdNode	  **conj = root->kind == N_AND ? root->kids : &root;
	int			nconj = root->kind == N_AND ? root->nkids : 1;
	bool		has_pk_eq = false;
	bool		all_bounds = true;
	int			nbounds = 0;

	for (int k = 0; k < nconj; k++)
	{
		if (odata_is_key_bound(conj[k]))
		{
			appendStringInfoString(f->key_bounds, nbounds++ ? " AND " : "");
			emit_key_cmp(f, f->key_bounds, conj[k]);
			has_pk_eq |= is_key_string_eq(conj[k], PROP_PARTITION_KEY);
		}
		else
			all_bounds = false;
	}
	if (nbounds == 0)
		appendStringInfoString(f->key_bounds, "true");
	f->dense = has_pk_eq && all_bounds;
	/*
	 * The key range of a dense filter whose PartitionKey conjuncts are all equalities (different
	 * ones make it empty); with another PartitionKey comparison the range is left to SQL.
	 */
	if (!f->dense || (f->range_pk = odata_one_partition(root)) == NULL)
		return;
	for (int k = 0; k < nconj; k++)
	{
		if (conj[k]->prop == PROP_PARTITION_KEY)
		{
			if (literal_cmp(f->range_pk, &conj[k]->lit) != 0)
				f->range_empty = true;
		}
		else
			narrow_range(f, conj[k]);
	}
	if (f->range_lo && f->range_hi)
	{
		int			c = literal_cmp(f->range_lo, f->range_hi);

		if (c > 0 || (c == 0 && !(f->range_lo_incl && f->range_hi_incl)))
			f->range_empty = true;
	}
}

/* The SQL of a parsed filter (out->root, in negation normal form), its key bounds and range. */
static void
emit_filter(OdFilter *out)
{
	if (out->root == NULL)
	{
		appendStringInfoString(out->sql, "true");
		appendStringInfoString(out->key_bounds, "true");
		out->keys_only = true;
		out->dense = true;		/* every row matches */
		return;
	}
	if (out->root->kind == N_CONST)
	{
		/* $filter=false (true became no filter): no row, and no row scanned to find that out */
		Assert(!out->root->lit.b);
		appendStringInfoString(out->sql, "false");
		appendStringInfoString(out->key_bounds, "false");
		out->keys_only = true;
		out->dense = true;		/* (vacuously: the scan of its key bounds reads no row) */
		return;
	}
	emit(out, out->sql, out->root);
	out->keys_only = keys_only(out->root);
	describe_conjuncts(out);
}

void
odata_translate_again(const OdFilter *f, int param_base, OdFilter *out)
{
	memset(out, 0, sizeof(*out));
	out->indexed = f->indexed;
	out->param_base = param_base;
	out->shippable = f->shippable;
	out->sql = makeStringInfo();
	out->key_bounds = makeStringInfo();
	out->ncomparisons = f->ncomparisons;
	out->root = f->root;
	emit_filter(out);
}

bool
odata_translate(const char *filter, size_t len, int max_comparisons, int param_base, int flags, OdFilter *out,
				TsError *err)
{
	return odata_translate_indexed(filter, len, max_comparisons, param_base, flags, NULL, out, err);
}

bool
odata_translate_indexed(const char *filter, size_t len, int max_comparisons, int param_base, int flags,
						const IndexPolicy *indexed, OdFilter *out, TsError *err)
{
	memset(out, 0, sizeof(*out));
	out->indexed = indexed;
	out->param_base = param_base;
	out->shippable = (flags & ODATA_SHIPPABLE) != 0;
	out->sql = makeStringInfo();
	out->key_bounds = makeStringInfo();
	out->root = odata_parse_nnf(filter, len, max_comparisons, &out->ncomparisons, err);
	if (err->code != TSE_NONE)
		return false;
	emit_filter(out);
	return true;
}
