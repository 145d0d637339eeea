/*
 * json_sink.h - where rendered JSON goes: a stream of begin/end/key/value events, written as
 * JSON text (json_text_sink, here) or written as jsonb (jsonb_sink.c in the backend), so that one
 * renderer (row_json.c) serves both. Backend-free.
 */
#ifndef JSON_SINK_H
#define JSON_SINK_H

#include "entity_format.h"
#include "json_lex.h"

typedef struct JsonSink JsonSink;

struct JsonSink
{
	void		(*begin) (JsonSink *s, bool object);
	void		(*end) (JsonSink *s, bool object);
	void		(*key) (JsonSink *s, const char *name, size_t len);
	/* a string's raw bytes (the sink escapes them), or the text of a number, true or false */
	void		(*value) (JsonSink *s, JsonValueKind kind, const char *text, size_t len);
	void		(*null) (JsonSink *s);
	size_t		bytes;			/* about how much has been rendered (exact for text) */
};

/* JSON text into a StringInfo. */
typedef struct JsonTextSink
{
	JsonSink	pub;
	StringInfo	out;
	int			depth;
	bool		first[JSON_MAX_DEPTH];	/* nothing written yet in the container at this depth */
} JsonTextSink;

extern void json_text_sink_init(JsonTextSink *s, StringInfo out);

/* Helpers for the common events. */
static inline void
json_sink_member(JsonSink *s, const char *name, JsonValueKind kind, const char *text, size_t len)
{
	s->key(s, name, strlen(name));
	s->value(s, kind, text, len);
}

#endif							/* JSON_SINK_H */
