/*
 * odata_parse.c - $filter to a syntax tree, by operator precedence with explicit stacks, so that
 * parentheses nest to any depth without recursion. Precedence: not > comparison > and > or;
 * "not X eq 1" negates the comparison. A comparison is a property and a literal, in either order.
 *
 * A boolean literal not followed by a comparison operator is an expression of its own ("false",
 * "(true and RowKey eq '1') or false", "not true"), as the service evaluates it. Such constants
 * are folded as the operators apply (true and X = X, false and X = false, true or X = true,
 * false or X = X, not true = false): logic is two-valued, so the fold is exact, and what remains
 * is either one constant or a tree without any, so that every reader of the tree (the SQL
 * translation, its key ranges and point/range planning, the typed evaluation) sees a constant
 * only as the whole filter. Backend-free.
 */
#include "odata.h"

typedef enum OpKind
{
	OP_LPAREN, OP_OR, OP_AND, OP_NOT
} OpKind;

typedef struct OpEntry
{
	OpKind		kind;
	int			pos;			/* byte offset of the operator */
} OpEntry;

typedef struct Parser
{
	OdLexer		lx;
	TsError    *err;
	OpEntry    *ops;
	int			nops,
				opcap;
	OdNode	  **vals;
	int			nvals,
				valcap;
	int			ncmp;
	int			max_cmp;
} Parser;

static const char *const tok_names[] = {
	[OT_END] = "the end of the filter", [OT_LPAREN] = "'('", [OT_RPAREN] = "')'",
	[OT_IDENT] = "a property name", [OT_AND] = "'and'", [OT_OR] = "'or'", [OT_NOT] = "'not'",
	[OT_CMP] = "a comparison operator", [OT_LITERAL] = "a literal", [OT_NULL] = "null"
};

static bool
parse_error(Parser *ps, TsErrorCode code, int off, const char *what)
{
	int			pos = ts_char_pos(ps->lx.s, off);

	ts_fail(ps->err, code, "invalid $filter at character %d: %s", pos, what);
	ps->err->pos = pos;
	return false;
}

static bool
unexpected(Parser *ps, const OdToken *tok, const char *expected)
{
	char		msg[TS_ERROR_TEXT_MAX];

	if (tok->kind == OT_IDENT)
	{
		char		ex[TS_EXCERPT_BUF];

		snprintf(msg, sizeof(msg), "expected %s but found \"%s\"", expected,
				 ts_excerpt(ex, sizeof(ex), tok->text, tok->len));
	}
	else
		snprintf(msg, sizeof(msg), "expected %s but found %s", expected, tok_names[tok->kind]);
	return parse_error(ps, TSE_FILTER_SYNTAX, tok->pos, msg);
}

static void
push_op(Parser *ps, OpKind kind, int pos)
{
	if (ps->nops == ps->opcap)
	{
		ps->opcap *= 2;
		ps->ops = repalloc(ps->ops, sizeof(OpEntry) * ps->opcap);
	}
	ps->ops[ps->nops].kind = kind;
	ps->ops[ps->nops++].pos = pos;
}

static void
push_val(Parser *ps, OdNode *n)
{
	if (ps->nvals == ps->valcap)
	{
		ps->valcap *= 2;
		ps->vals = repalloc(ps->vals, sizeof(OdNode *) * ps->valcap);
	}
	ps->vals[ps->nvals++] = n;
}

/*
 * How deep and/or may nest (not does not count: the SQL form pushes it into the comparisons).
 * The service's 15 comparisons nest at most 14 deep; tablestore.max_filter_comparisons allows
 * 10 000, and PostgreSQL's parser runs out of stack on a few thousand levels.
 */
#define ODATA_MAX_DEPTH 100

static OdNode *
make_const(bool value)
{
	OdNode	   *n = palloc0(sizeof(OdNode));

	n->kind = N_CONST;
	n->lit.type = EDM_BOOLEAN;
	n->lit.b = value;
	return n;
}

/*
 * and/or node of two operands, flattening nested nodes of the same kind; a constant operand is
 * folded: it decides the result (false for and, true for or) or drops out.
 */
static OdNode *
make_binary(OdNodeKind kind, OdNode *a, OdNode *b)
{
	OdNode	   *n;
	int			na,
				nb;

	if (a->kind == N_CONST || b->kind == N_CONST)
	{
		OdNode	   *c = a->kind == N_CONST ? a : b;
		OdNode	   *other = c == a ? b : a;
		bool		decides = kind == N_AND ? !c->lit.b : c->lit.b;

		return decides ? c : other;
	}
	n = palloc0(sizeof(OdNode));
	na = a->kind == kind ? a->nkids : 1;
	nb = b->kind == kind ? b->nkids : 1;
	n->kind = kind;
	n->depth = Max(a->kind == kind ? a->depth : a->depth + 1, b->kind == kind ? b->depth : b->depth + 1);
	n->kids = palloc(sizeof(OdNode *) * (na + nb));
	if (a->kind == kind)
		memcpy(n->kids, a->kids, sizeof(OdNode *) * na);
	else
		n->kids[0] = a;
	if (b->kind == kind)
		memcpy(n->kids + na, b->kids, sizeof(OdNode *) * nb);
	else
		n->kids[na] = b;
	n->nkids = na + nb;
	return n;
}

static OdNode *
make_not(OdNode *a)
{
	OdNode	   *n;

	if (a->kind == N_NOT)
		return a->kids[0];		/* not not x = x */
	if (a->kind == N_CONST)
		return make_const(!a->lit.b);
	n = palloc0(sizeof(OdNode));
	n->kind = N_NOT;
	n->depth = a->depth;
	n->nkids = 1;
	n->kids = palloc(sizeof(OdNode *));
	n->kids[0] = a;
	return n;
}

/* Apply the operator at pos to the operands on the stack; false (and *ps->err) when too deep. */
static bool
apply(Parser *ps, OpKind op, int pos)
{
	OdNode	   *b = ps->vals[--ps->nvals];
	OdNode	   *n;

	if (op == OP_NOT)
		n = make_not(b);
	else
	{
		OdNode	   *a = ps->vals[--ps->nvals];

		n = make_binary(op == OP_AND ? N_AND : N_OR, a, b);
	}
	push_val(ps, n);
	if (n->depth > ODATA_MAX_DEPTH)
	{
		char		msg[80];

		snprintf(msg, sizeof(msg), "'and' and 'or' nest more than %d levels deep", ODATA_MAX_DEPTH);
		parse_error(ps, TSE_FILTER_TOO_COMPLEX, pos, msg);
		return false;
	}
	return true;
}

/* Pop the operator on top of the stack and apply it. */
static bool
apply_top(Parser *ps)
{
	OpEntry		top = ps->ops[--ps->nops];

	return apply(ps, top.kind, top.pos);
}

static int
precedence(OpKind k)
{
	return k == OP_OR ? 1 : k == OP_AND ? 2 : k == OP_NOT ? 3 : 0;
}

static OdCmp
mirror(OdCmp op)
{
	switch (op)
	{
		case CMP_GT:
			return CMP_LT;
		case CMP_GE:
			return CMP_LE;
		case CMP_LT:
			return CMP_GT;
		case CMP_LE:
			return CMP_GE;
		default:
			return op;
	}
}

static OdProp
prop_kind(const char *name, uint32 len)
{
	switch (edm_system_prop(name, len))
	{
		case EDM_SYS_PARTITION_KEY:
			return PROP_PARTITION_KEY;
		case EDM_SYS_ROW_KEY:
			return PROP_ROW_KEY;
		case EDM_SYS_TIMESTAMP:
			return PROP_TIMESTAMP;
		case EDM_SYS_NONE:
			break;
	}
	return PROP_CUSTOM;
}

/* operand op operand, starting at the first operand's token. */
static OdNode *
parse_comparison(Parser *ps, OdToken *a)
{
	OdToken		op,
				b;
	OdNode	   *n;
	char		msg[TS_ERROR_TEXT_MAX];
	char		ex1[TS_EXCERPT_BUF],
				ex2[TS_EXCERPT_BUF];

	if (!odata_next_token(&ps->lx, &op))
		return NULL;
	if (op.kind != OT_CMP)
	{
		unexpected(ps, &op, "a comparison operator (eq, ne, gt, ge, lt, le)");
		return NULL;
	}
	if (!odata_next_token(&ps->lx, &b))
		return NULL;
	if (b.kind == OT_NULL)
	{
		parse_error(ps, TSE_FILTER_UNSUPPORTED, b.pos,
					"null is not supported (a property that is absent never matches a comparison)");
		return NULL;
	}
	if (b.kind != OT_IDENT && b.kind != OT_LITERAL)
	{
		unexpected(ps, &b, "a literal value");
		return NULL;
	}
	if (a->kind == OT_IDENT && b.kind == OT_IDENT)
	{
		snprintf(msg, sizeof(msg), "comparing two properties (%s and %s) is not supported; a string value is quoted: '%s'",
				 ts_excerpt(ex1, sizeof(ex1), a->text, a->len), ts_excerpt(ex2, sizeof(ex2), b.text, b.len), ex2);
		parse_error(ps, TSE_FILTER_UNSUPPORTED, b.pos, msg);
		return NULL;
	}
	if (a->kind == OT_LITERAL && b.kind == OT_LITERAL)
	{
		parse_error(ps, TSE_FILTER_UNSUPPORTED, a->pos, "comparing two literals is not supported; one side must be a property");
		return NULL;
	}
	if (++ps->ncmp > ps->max_cmp)
	{
		snprintf(msg, sizeof(msg), "more than %d comparisons (tablestore.max_filter_comparisons)", ps->max_cmp);
		parse_error(ps, TSE_FILTER_TOO_COMPLEX, a->pos, msg);
		return NULL;
	}
	n = palloc0(sizeof(OdNode));
	n->kind = N_CMP;
	if (a->kind == OT_IDENT)
	{
		n->pos = a->pos;
		n->name = a->text;
		n->name_len = a->len;
		n->op = op.cmp;
		n->lit = b.lit;
	}
	else
	{
		/* 5 lt Age is Age gt 5 */
		n->pos = b.pos;
		n->name = b.text;
		n->name_len = b.len;
		n->op = mirror(op.cmp);
		n->lit = a->lit;
	}
	n->prop = prop_kind(n->name, n->name_len);
	return n;
}

/*
 * Does a comparison operator come next (true eq Active), leaving the lexer where it was? A token
 * that fails to lex is not one; it fails again when it is read.
 */
static bool
before_comparison(Parser *ps)
{
	OdLexer		saved = ps->lx;
	TsError		saved_err = *ps->err;
	OdToken		next;
	bool		cmp = odata_next_token(&ps->lx, &next) && next.kind == OT_CMP;

	ps->lx = saved;
	*ps->err = saved_err;
	return cmp;
}

OdNode *
odata_parse(const char *filter, size_t len, int max_comparisons, int *ncomparisons, TsError *err)
{
	Parser		ps = {0};
	bool		expect_operand = true;
	OdToken		tok;

	/* the server hands over valid UTF-8 without U+0000; other callers (and fuzzers) may not */
	if (!edm_utf8_valid(filter, len) || memchr(filter, '\0', len) != NULL)
	{
		ts_fail(err, TSE_FILTER_SYNTAX, "the filter is not valid UTF-8 text");
		return NULL;
	}
	ps.lx.s = filter;
	ps.lx.len = len;
	ps.lx.err = err;
	ps.err = err;
	ps.max_cmp = max_comparisons;
	ps.opcap = ps.valcap = 16;
	ps.ops = palloc(sizeof(OpEntry) * ps.opcap);
	ps.vals = palloc(sizeof(OdNode *) * ps.valcap);

	for (;;)
	{
		if (!odata_next_token(&ps.lx, &tok))
			return NULL;
		if (expect_operand)
		{
			if (tok.kind == OT_LPAREN)
				push_op(&ps, OP_LPAREN, tok.pos);
			else if (tok.kind == OT_NOT)
				push_op(&ps, OP_NOT, tok.pos);
			else if (tok.kind == OT_LITERAL && tok.lit.type == EDM_BOOLEAN && !before_comparison(&ps))
			{
				push_val(&ps, make_const(tok.lit.b));
				expect_operand = false;
			}
			else if (tok.kind == OT_IDENT || tok.kind == OT_LITERAL)
			{
				OdNode	   *n = parse_comparison(&ps, &tok);

				if (n == NULL)
					return NULL;
				push_val(&ps, n);
				expect_operand = false;
			}
			else if (tok.kind == OT_END && ps.nops == 0 && ps.nvals == 0)
				break;			/* an empty filter */
			else if (tok.kind == OT_NULL)
			{
				parse_error(&ps, TSE_FILTER_UNSUPPORTED, tok.pos, "null is not supported");
				return NULL;
			}
			else
			{
				unexpected(&ps, &tok, "a comparison, 'not' or '('");
				return NULL;
			}
			continue;
		}
		if (tok.kind == OT_RPAREN)
		{
			while (ps.nops > 0 && ps.ops[ps.nops - 1].kind != OP_LPAREN)
				if (!apply_top(&ps))
					return NULL;
			if (ps.nops == 0)
			{
				parse_error(&ps, TSE_FILTER_SYNTAX, tok.pos, "')' without a matching '('");
				return NULL;
			}
			ps.nops--;
		}
		else if (tok.kind == OT_AND || tok.kind == OT_OR)
		{
			OpKind		k = tok.kind == OT_AND ? OP_AND : OP_OR;

			while (ps.nops > 0 && ps.ops[ps.nops - 1].kind != OP_LPAREN &&
				   precedence(ps.ops[ps.nops - 1].kind) >= precedence(k))
				if (!apply_top(&ps))
					return NULL;
			push_op(&ps, k, tok.pos);
			expect_operand = true;
		}
		else if (tok.kind == OT_END)
			break;
		else
		{
			unexpected(&ps, &tok, "'and', 'or' or ')'");
			return NULL;
		}
	}
	while (ps.nops > 0)
	{
		OpEntry		top = ps.ops[--ps.nops];

		if (top.kind == OP_LPAREN)
		{
			parse_error(&ps, TSE_FILTER_SYNTAX, top.pos, "'(' is never closed");
			return NULL;
		}
		if (!apply(&ps, top.kind, top.pos))
			return NULL;
	}
	*ncomparisons = ps.ncmp;
	return ps.nvals ? ps.vals[0] : NULL;
}
