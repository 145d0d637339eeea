/*
 * odata.h - the OData $filter subset of the Table service (contract §5): lexer, parser and the
 * translation to a SQL boolean expression over a table's columns. Backend-free: errors come back
 * in a TsError whose message names the 1-based character position.
 */
#ifndef ODATA_H
#define ODATA_H

#include "edm.h"
#include "ts_error.h"

#define ODATA_DEFAULT_MAX_COMPARISONS 15

typedef enum OdTokKind
{
	OT_END,
	OT_LPAREN,
	OT_RPAREN,
	OT_IDENT,					/* a property name */
	OT_AND,
	OT_OR,
	OT_NOT,
	OT_CMP,						/* eq ne gt ge lt le */
	OT_LITERAL,
	OT_NULL						/* null: recognised to reject it clearly */
} OdTokKind;

typedef enum OdCmp
{
	CMP_EQ, CMP_NE, CMP_GT, CMP_GE, CMP_LT, CMP_LE
} OdCmp;

/* A typed literal; strings and binaries point into allocated buffers. */
typedef struct OdLiteral
{
	EdmType		type;
	const char *str;			/* String: UTF-8, quotes undoubled */
	uint32		len;			/* String / Binary length */
	int32		i32;
	int64		i64;			/* Int64, DateTime ticks */
	double		dbl;
	bool		b;
	uint8		guid[16];
	const uint8 *bin;
} OdLiteral;

typedef struct OdToken
{
	OdTokKind	kind;
	int			pos;			/* 1-based character position */
	const char *text;			/* identifier text (not NUL-terminated) */
	uint32		len;
	OdCmp		cmp;
	OdLiteral	lit;
} OdToken;

typedef enum OdProp
{
	PROP_CUSTOM,
	PROP_PARTITION_KEY,
	PROP_ROW_KEY,
	PROP_TIMESTAMP
} OdProp;

/*
 * N_CONST: a boolean literal standing as an expression (lit.b), as in "$filter=false" or
 * "(true and RowKey eq '1') or false". The parser folds constants away (logic is two-valued:
 * "true and X" is X, "false and X" is false, "not true" is false), so a tree holds one only as its
 * whole: an N_CONST root, or none anywhere.
 */
typedef enum OdNodeKind
{
	N_AND, N_OR, N_NOT, N_CMP, N_CONST
} OdNodeKind;

typedef struct OdNode
{
	OdNodeKind	kind;
	int			nkids;			/* N_AND, N_OR: two or more; N_NOT: one */
	struct OdNode **kids;
	int			depth;			/* and/or nodes on the longest path down (a comparison: 0) */
	/* N_CMP: property OP literal (a literal written first is swapped to the right) */
	int			pos;
	OdProp		prop;
	const char *name;
	uint32		name_len;
	OdCmp		op;
	OdLiteral	lit;
	bool		or_absent;		/* a negated comparison: also true when the property is absent */
} OdNode;

/*
 * With parameters, a literal value becomes $n and is recorded here for the caller to bind, so the
 * statement text depends only on the filter's shape and its plan can be reused. Property names
 * stay in the text: expression indexes must see them.
 */
typedef enum OdParamKind
{
	PK_TEXT,					/* str/len */
	PK_FLOAT8,					/* f8 */
	PK_NUMERIC,					/* i8, as a numeric */
	PK_INT8,					/* i8 */
	PK_INT4,					/* i8 */
	PK_UUID,					/* bytes (16) */
	PK_BYTEA,					/* bytes/len */
	PK_TIMESTAMPTZ,				/* i8 microseconds since 2000-01-01 */
	PK_PROPERTY_FILTER			/* bytes: a tablestore.property_filter varlena (prop_filter.h) */
} OdParamKind;

typedef struct OdParam
{
	OdParamKind kind;
	const char *str;
	const uint8 *bytes;
	uint32		len;
	double		f8;
	int64		i8;
} OdParam;

/* The result of translating a filter. */
typedef struct OdFilter
{
	OdNode	   *root;			/* NULL for an empty filter (everything) */
	int			ncomparisons;
	bool		keys_only;		/* every comparison is on PartitionKey or RowKey */
	bool		dense;			/* a conjunction of PartitionKey eq and RowKey bounds only: every
								 * row of the key range scanned matches */
	StringInfo	sql;			/* the boolean SQL expression ("true" when empty) */
	StringInfo	key_bounds;		/* SQL of the top-level conjuncts on the keys ("true" if none) */
	/* for a dense filter with a PartitionKey: the key range it selects (bounds NULL when open) */
	const OdLiteral *range_pk;
	const OdLiteral *range_lo;
	bool		range_lo_incl;
	const OdLiteral *range_hi;
	bool		range_hi_incl;
	bool		range_empty;	/* the bounds contradict each other */
	int			param_base;		/* -1: literals inline; else the first $n is param_base + 1 */
	bool		shippable;		/* property names as tablestore.property_name (ODATA_SHIPPABLE) */
	int			nparams;		/* parameters used by sql and key_bounds together */
	int			paramcap;
	OdParam    *params;
	/*
	 * The table's indexing policy (index_policy.h; NULL: none): a comparison on a property it
	 * includes becomes "properties @~ <property_filter>", which the entity index serves.
	 */
	const struct IndexPolicy *indexed;
	bool		uses_index;		/* some comparison became @~ */
} OdFilter;

/*
 * Parse and translate; max_comparisons bounds the number of comparisons. param_base -1 writes
 * literals into the SQL; otherwise literals become $(param_base + 1)... in out->params.
 */
#define ODATA_SHIPPABLE 1		/* SQL that postgres_fdw sends to nodes (a distributed table) */
extern bool odata_translate(const char *filter, size_t len, int max_comparisons, int param_base, int flags,
							OdFilter *out, TsError *err);

/* A translated filter's SQL again, with another param_base (-1: literals inline), without parsing it again. */
extern void odata_translate_again(const OdFilter *f, int param_base, OdFilter *out);

/* The same for a table with an indexing policy (NULL: as odata_translate). */
extern bool odata_translate_indexed(const char *filter, size_t len, int max_comparisons, int param_base,
									int flags, const struct IndexPolicy *indexed, OdFilter *out, TsError *err);

/* odata_lex.c */
typedef struct OdLexer
{
	const char *s;
	size_t		len;
	size_t		i;
	TsError    *err;
} OdLexer;

extern bool odata_next_token(OdLexer *lx, OdToken *tok);

/* odata_parse.c: NULL for an empty filter (and on an error: err->code says which) */
extern OdNode *odata_parse(const char *filter, size_t len, int max_comparisons, int *ncomparisons,
						   TsError *err);

/*
 * odata_keys.c: odata_parse, then negations pushed down to the comparisons (no N_NOT remains) and
 * a filter that is true dropped (NULL: every entity), as the translation and routing read it.
 */
extern OdNode *odata_parse_nnf(const char *filter, size_t len, int max_comparisons, int *ncomparisons,
							   TsError *err);

/* A top-level conjunct that bounds the key range: PartitionKey or RowKey eq/gt/ge/lt/le 'x'. */
extern bool odata_is_key_bound(const OdNode *n);

/*
 * The one partition a filter in negation normal form (odata_parse_nnf) names, or NULL: every
 * top-level conjunct bounds the keys, those on PartitionKey are equalities, and there is one (the
 * last, when they differ: then nothing matches). A distributed table's query runs on that
 * partition's node: the extension routes it so, and the gateway sends it there.
 */
extern const OdLiteral *odata_one_partition(const OdNode *root);

/* odata_eval.c: a parsed filter (odata_parse) against one String property and its value */
extern bool odata_eval_string(const OdNode *n, const char *prop, uint32 prop_len, const char *value,
							  uint32 value_len);

/*
 * odata_eval.c: contract §5's typed comparison of one property (NULL: absent) with a literal.
 * odata_prop_order gives the order of the value against the literal (<0, 0, >0) when their types
 * compare, else false (the mismatch rule decides); odata_cmp_holds applies an operator to an order.
 */
struct PropRef;
extern bool odata_eval_prop(const struct PropRef *p, OdCmp op, const OdLiteral *lit);
extern bool odata_prop_order(const struct PropRef *p, const OdLiteral *lit, int *c);
extern bool odata_cmp_holds(OdCmp op, int c);
extern int	odata_cmp_double_int64(double d, int64 v);

/* odata_sql.c */
extern void odata_append_sql_literal(StringInfo out, const char *s, size_t len);

#endif							/* ODATA_H */
