/*
 * fuzz_odata.c - libFuzzer target: the OData $filter parser and SQL translator (odata_translate).
 *
 * Properties: a rejected filter has an error code and a message; an accepted one translates the
 * same way with literals inline and as parameters, and its SQL never leaves a string literal
 * open (every quote is paired), so no filter can inject SQL.
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
	}
	fuzz_reset();
	return 0;
}
