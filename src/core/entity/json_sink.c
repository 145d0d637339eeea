/*
 * json_sink.c - the JSON text sink (json_sink.h).
 */
#include "json_sink.h"

static inline void
separate(JsonTextSink *t)
{
	if (t->depth > 0)
	{
		if (!t->first[t->depth - 1])
			appendStringInfoCharMacro(t->out, ',');
		t->first[t->depth - 1] = false;
	}
}

static void
text_begin(JsonSink *s, bool object)
{
	JsonTextSink *t = (JsonTextSink *) s;

	separate(t);
	Assert(t->depth < JSON_MAX_DEPTH);
	t->first[t->depth++] = true;
	appendStringInfoCharMacro(t->out, object ? '{' : '[');
	s->bytes = t->out->len;
}

static void
text_end(JsonSink *s, bool object)
{
	JsonTextSink *t = (JsonTextSink *) s;

	t->depth--;
	appendStringInfoCharMacro(t->out, object ? '}' : ']');
	/* the container as a whole was the value: a key's value is written, so no comma is owed */
	s->bytes = t->out->len;
}

static void
text_key(JsonSink *s, const char *name, size_t len)
{
	JsonTextSink *t = (JsonTextSink *) s;

	separate(t);
	entity_append_json_string(t->out, name, len);
	appendStringInfoCharMacro(t->out, ':');
	/* the value follows without a comma */
	t->first[t->depth - 1] = true;
}

static void
text_value(JsonSink *s, JsonValueKind kind, const char *text, size_t len)
{
	JsonTextSink *t = (JsonTextSink *) s;

	separate(t);
	if (kind == JSON_VALUE_STRING)
		entity_append_json_string(t->out, text, len);
	else
		appendBinaryStringInfo(t->out, text, (int) len);
	s->bytes = t->out->len;
}

static void
text_null(JsonSink *s)
{
	text_value(s, JSON_VALUE_NUMBER, "null", 4);
}

void
json_text_sink_init(JsonTextSink *s, StringInfo out)
{
	s->pub.begin = text_begin;
	s->pub.end = text_end;
	s->pub.key = text_key;
	s->pub.value = text_value;
	s->pub.null = text_null;
	s->pub.bytes = out->len;
	s->out = out;
	s->depth = 0;
}
