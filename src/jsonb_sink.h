/*
 * jsonb_sink.h - a JsonSink that builds jsonb (jsonb_sink.c).
 */
#ifndef JSONB_SINK_H
#define JSONB_SINK_H

#include "postgres.h"

#include "json_sink.h"
#include "utils/jsonb.h"

typedef struct JsonbSinkState
{
	JsonSink	pub;
	JsonbParseState *state;
	JsonbValue *result;
	int			depth;
	bool		object[JSON_MAX_DEPTH];
	MemoryContext cxt;			/* the values kept until the jsonb is made */
} JsonbSinkState;

extern void jsonb_sink_init(JsonbSinkState *j, MemoryContext cxt);
extern Jsonb *jsonb_sink_result(JsonbSinkState *j);

#endif							/* JSONB_SINK_H */
