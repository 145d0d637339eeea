/*
 * filter_keys.c - the comparison keys $filter uses for numeric, Boolean and DateTime literals
 * (see odata_sql.c). Each returns NULL when the property is absent, the value when the property's
 * type is the literal's or one the literal widens to, and a value below every literal of that
 * type otherwise, so "key OP literal" is exactly contract §5's typed comparison. They are IMMUTABLE:
 * an expression index on one of them serves the filters that use it.
 *
 *   filter_key_string   bytea    String's UTF-8 bytes          else NULL        (String literals; a
 *                                                                               type test adds the
 *                                                                               mismatch rule)
 *   filter_key_int32    float8   Int32, Int64, Double          else -Infinity   (Int32 literals)
 *   filter_key_int64    numeric  Int64, Double (exact)         else -Infinity   (Int64 literals)
 *   filter_key_double   float8   Double                        else -Infinity   (Double literals)
 *   filter_key_bool     int4     Boolean 0 / 1                 else -1
 *   filter_key_datetime int8     DateTime ticks                else INT64_MIN
 *
 * Literals are finite (an infinite Double literal is out of range), so a Double -Infinity
 * property and a mismatched one both compare below every literal, as they should. NaN follows
 * PostgreSQL's float order: equal to itself and above every number.
 */
#include "entity.h"

#include <math.h>

#include "common/shortest_dec.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/numeric.h"

#define FILTER_KEY_ABSENT(p) \
	do { if (!entity_prop_from_args(fcinfo, &(p))) PG_RETURN_NULL(); } while (0)

static double
prop_double_value(const PropRef *p)
{
	uint64		bits = ts_rd64(p->val);
	double		d;

	memcpy(&d, &bits, 8);
	return d;
}

PG_FUNCTION_INFO_V1(tablestore_filter_key_int32);
Datum
tablestore_filter_key_int32(PG_FUNCTION_ARGS)
{
	PropRef		p;

	FILTER_KEY_ABSENT(p);
	switch (p.type)
	{
		case EDM_INT32:
			PG_RETURN_FLOAT8((double) (int32) ts_rd32(p.val));
		case EDM_INT64:
			/* exact up to 2^53; beyond, still far outside every Int32 literal */
			PG_RETURN_FLOAT8((double) (int64) ts_rd64(p.val));
		case EDM_DOUBLE:
			PG_RETURN_FLOAT8(prop_double_value(&p));
		default:
			PG_RETURN_FLOAT8(-get_float8_infinity());
	}
}

static Datum
numeric_from_cstring(const char *s)
{
	return DirectFunctionCall3(numeric_in, CStringGetDatum(s), ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
}

/*
 * A Double as a numeric that orders exactly like the double against every Int64: whole values
 * in [-2^63, 2^63) convert exactly; the others are fractional below 2^53 or beyond the
 * Int64 range, where the shortest round-trip decimal lies on the same side of every integer.
 */
static Datum
double_for_int64_compare(double d)
{
	char		buf[32];

	if (isnan(d))
		return numeric_from_cstring("NaN");
	if (isinf(d))
		return numeric_from_cstring(d > 0 ? "Infinity" : "-Infinity");
	if (d == floor(d) && d >= -9223372036854775808.0 && d < 9223372036854775808.0)
		return NumericGetDatum(int64_to_numeric((int64) d));	/* -2^63 included: it is an Int64 */
	double_to_shortest_decimal_buf(d, buf);
	return numeric_from_cstring(buf);
}

PG_FUNCTION_INFO_V1(tablestore_filter_key_int64);
Datum
tablestore_filter_key_int64(PG_FUNCTION_ARGS)
{
	PropRef		p;

	FILTER_KEY_ABSENT(p);
	switch (p.type)
	{
		case EDM_INT64:
			PG_RETURN_DATUM(NumericGetDatum(int64_to_numeric((int64) ts_rd64(p.val))));
		case EDM_DOUBLE:
			PG_RETURN_DATUM(double_for_int64_compare(prop_double_value(&p)));
		default:
			PG_RETURN_DATUM(numeric_from_cstring("-Infinity"));
	}
}

PG_FUNCTION_INFO_V1(tablestore_filter_key_double);
Datum
tablestore_filter_key_double(PG_FUNCTION_ARGS)
{
	PropRef		p;

	FILTER_KEY_ABSENT(p);
	if (p.type == EDM_DOUBLE)
		PG_RETURN_FLOAT8(prop_double_value(&p));
	PG_RETURN_FLOAT8(-get_float8_infinity());
}

PG_FUNCTION_INFO_V1(tablestore_filter_key_bool);
Datum
tablestore_filter_key_bool(PG_FUNCTION_ARGS)
{
	PropRef		p;

	FILTER_KEY_ABSENT(p);
	PG_RETURN_INT32(p.type == EDM_BOOLEAN ? (int32) p.val[0] : -1);
}

PG_FUNCTION_INFO_V1(tablestore_filter_key_datetime);
Datum
tablestore_filter_key_datetime(PG_FUNCTION_ARGS)
{
	PropRef		p;

	FILTER_KEY_ABSENT(p);
	PG_RETURN_INT64(p.type == EDM_DATETIME ? (int64) ts_rd64(p.val) : PG_INT64_MIN);
}

/*
 * The String's UTF-8 bytes: bytea orders them as COLLATE "C" orders text (ordinal), and holds a
 * String with U+0000, which text cannot (so a filter never fails on a value the store accepted).
 */
PG_FUNCTION_INFO_V1(tablestore_filter_key_string);
Datum
tablestore_filter_key_string(PG_FUNCTION_ARGS)
{
	PropRef		p;
	bytea	   *b;

	if (!entity_prop_from_args(fcinfo, &p) || p.type != EDM_STRING)
		PG_RETURN_NULL();
	b = palloc(VARHDRSZ + p.val_len);
	SET_VARSIZE(b, VARHDRSZ + p.val_len);
	memcpy(VARDATA(b), p.val, p.val_len);
	PG_RETURN_BYTEA_P(b);
}
