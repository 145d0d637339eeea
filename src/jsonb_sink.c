/*
 * jsonb_sink.c - a JsonSink (core/json_sink.h) that builds jsonb directly, without writing JSON
 * text and parsing it again. jsonb cannot hold U+0000 in a string: such a value is refused
 * (22P05), and only a value actually rendered is looked at.
 */
#include "jsonb_sink.h"

#include "ts_report.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/numeric.h"

static void
push(JsonbSinkState *j, JsonbIteratorToken tok, JsonbValue *v)
{
	JsonbValue *r;
	MemoryContext old = MemoryContextSwitchTo(j->cxt);

	r = pushJsonbValue(&j->state, tok, v);
	MemoryContextSwitchTo(old);
	if (j->depth == 0)
		j->result = r;
}

static void
jb_begin(JsonSink *s, bool object)
{
	JsonbSinkState *j = (JsonbSinkState *) s;

	Assert(j->depth < JSON_MAX_DEPTH);
	j->object[j->depth++] = object;
	push(j, object ? WJB_BEGIN_OBJECT : WJB_BEGIN_ARRAY, NULL);
	s->bytes += 8;
}

static void
jb_end(JsonSink *s, bool object)
{
	JsonbSinkState *j = (JsonbSinkState *) s;

	j->depth--;
	push(j, object ? WJB_END_OBJECT : WJB_END_ARRAY, NULL);
}

/* A copy in the sink's context: the parse state keeps pointers until the jsonb is made. */
static char *
keep(JsonbSinkState *j, const char *s, size_t len)
{
	char	   *c = MemoryContextAlloc(j->cxt, len + 1);

	memcpy(c, s, len);
	c[len] = '\0';
	return c;
}

static void
jb_key(JsonSink *s, const char *name, size_t len)
{
	JsonbSinkState *j = (JsonbSinkState *) s;
	JsonbValue	v = {.type = jbvString};

	v.val.string.val = keep(j, name, len);
	v.val.string.len = (int) len;
	push(j, WJB_KEY, &v);
	s->bytes += len + 8;
}

static void
jb_value(JsonSink *s, JsonValueKind kind, const char *text, size_t len)
{
	JsonbSinkState *j = (JsonbSinkState *) s;
	JsonbValue	v;

	switch (kind)
	{
		case JSON_VALUE_STRING:
			if (memchr(text, '\0', len) != NULL)
				ereport(ERROR,
						(errcode(ERRCODE_UNTRANSLATABLE_CHARACTER),
						 errmsg("a String holding U+0000 cannot be held by jsonb"),
						 errhint("Read the page as json (query_page_json), or leave the property out with $select.")));
			v.type = jbvString;
			v.val.string.val = keep(j, text, len);
			v.val.string.len = (int) len;
			break;
		case JSON_VALUE_NUMBER:
			{
				MemoryContext old = MemoryContextSwitchTo(j->cxt);

				v.type = jbvNumeric;
				v.val.numeric = DatumGetNumeric(DirectFunctionCall3(numeric_in,
																	CStringGetDatum(keep(j, text, len)),
																	ObjectIdGetDatum(InvalidOid),
																	Int32GetDatum(-1)));
				MemoryContextSwitchTo(old);
				break;
			}
		default:
			v.type = jbvBool;
			v.val.boolean = kind == JSON_VALUE_TRUE;
			break;
	}
	push(j, j->object[j->depth - 1] ? WJB_VALUE : WJB_ELEM, &v);
	s->bytes += len + 8;
}

static void
jb_null(JsonSink *s)
{
	JsonbSinkState *j = (JsonbSinkState *) s;
	JsonbValue	v = {.type = jbvNull};

	push(j, j->object[j->depth - 1] ? WJB_VALUE : WJB_ELEM, &v);
	s->bytes += 8;
}

void
jsonb_sink_init(JsonbSinkState *j, MemoryContext cxt)
{
	j->pub.begin = jb_begin;
	j->pub.end = jb_end;
	j->pub.key = jb_key;
	j->pub.value = jb_value;
	j->pub.null = jb_null;
	j->pub.bytes = 0;
	j->state = NULL;
	j->result = NULL;
	j->depth = 0;
	j->cxt = cxt;
}

Jsonb *
jsonb_sink_result(JsonbSinkState *j)
{
	Assert(j->depth == 0 && j->result != NULL);
	return JsonbValueToJsonb(j->result);
}
