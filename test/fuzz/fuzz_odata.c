/*
 * fuzz_odata.c - libFuzzer target: the OData $filter parser and SQL translator (odata_translate).
 *
 * Properties: a rejected filter has an error code and a message; an accepted one translates the
 * same way with literals inline and as parameters, and its SQL never leaves a string literal
 * open (every quote is paired), so no filter can inject SQL. Boolean constants are folded: a
 * tree holds one only as its whole, and "(F) and true" and "(F) or false" translate as F does,
 * "(F) and false" as false.
 */
#include "postgres_fe.h"

#include "fuzz.h"
#include "odata.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool
quotes_balanced(const char *sql)
{
	bool		in_string = false;

	for (const char *p = sql; *p; p++)
	{
		if (*p == '\'')
		{
			if (in_string && p[1] == '\'')
				p++;			/* a doubled quote inside a literal */
			else
				in_string = !in_string;
		}
	}
	return !in_string;
}

/* No constant below the root: the parser folds them. */
static bool
no_constant_inside(const OdNode *n)
{
	if (n->kind == N_CMP)
		return true;
	for (int k = 0; k < n->nkids; k++)
		if (n->kids[k]->kind == N_CONST || !no_constant_inside(n->kids[k]))
			return false;
	return true;
}

/* "(F)<suffix>" translated with literals inline, or NULL when it is refused. */
static const char *
translated_with(const uint8_t *data, size_t size, const char *suffix)
{
	StringInfoData s;
	OdFilter	f = {0};
	TsError		err = {0};

	initStringInfo(&s);
	appendStringInfoChar(&s, '(');
	appendBinaryStringInfo(&s, (const char *) data, (int) size);
	appendStringInfo(&s, ")%s", suffix);
	if (!odata_translate(s.data, s.len, 10000, -1, 0, &f, &err))
		return NULL;
	return f.sql->data;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	TsError		err = {0},
				err2 = {0};
	OdFilter	inline_f = {0},
				param_f = {0};
	bool		ok,
				ok2;

	if (size > 64 * 1024)
		return 0;
	ok = odata_translate((const char *) data, size, 10000, -1, 0, &inline_f, &err);
	ok2 = odata_translate((const char *) data, size, 10000, 0, ODATA_SHIPPABLE, &param_f, &err2);
	FUZZ_CHECK(ok == ok2, "inline and parameter translation agree on accepting a filter");
	if (!ok)
		FUZZ_CHECK(err.code != TSE_NONE && err.msg[0] != '\0', "a rejected filter has an error code and a message");
	else
	{
		FUZZ_CHECK(quotes_balanced(inline_f.sql->data), "the SQL closes every string literal");
		FUZZ_CHECK(quotes_balanced(inline_f.key_bounds->data), "the key bounds close every string literal");
		FUZZ_CHECK(strchr(param_f.sql->data, '\'') == NULL || quotes_balanced(param_f.sql->data),
				   "the parameterised SQL closes every string literal");
		FUZZ_CHECK(inline_f.root == NULL || inline_f.root->kind == N_CONST || no_constant_inside(inline_f.root),
				   "a boolean constant is folded away or is the whole filter");
		if (inline_f.root != NULL && memchr(data, '\0', size) == NULL)
		{
			const char *and_true = translated_with(data, size, " and true");
			const char *or_false = translated_with(data, size, " or false");
			const char *and_false = translated_with(data, size, " and false");

			/* (a filter whose parenthesised form is refused - too deep, say - proves nothing here) */
			FUZZ_CHECK(and_true == NULL || strcmp(and_true, inline_f.sql->data) == 0, "(F) and true is F");
			FUZZ_CHECK(or_false == NULL || strcmp(or_false, inline_f.sql->data) == 0, "(F) or false is F");
			FUZZ_CHECK(and_false == NULL || strcmp(and_false, "false") == 0, "(F) and false is false");
		}
	}
	fuzz_reset();
	return 0;
}
