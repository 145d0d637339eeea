/*
 * jsonb_sink.h - a JsonSink that writes jsonb's binary form directly (jsonb_sink.c).
 */
#ifndef JSONB_SINK_H
#define JSONB_SINK_H

#include "postgres.h"

#include "json_sink.h"
#include "lib/stringinfo.h"
#include "utils/jsonb.h"

/* A member of an open container: its key's and value's bytes in the frame's buffers. */
typedef struct JbMember
{
	uint32		type;			/* JENTRY_ISSTRING, _ISNUMERIC, ... */
	int			val_off;
	int			val_len;
	int			key_off;		/* objects only */
	int			key_len;
	int			order;			/* of equal keys the last written is kept */
} JbMember;

/* An open container; frames are kept per depth and reused by the next container there. */
typedef struct JbFrame
{
	bool		object;
	StringInfoData keys;
	StringInfoData vals;
	JbMember   *m;
	int			n;
	int			cap;
	int			key_off;		/* the key written last, for the next value */
	int			key_len;
} JbFrame;

typedef struct JsonbSinkState
{
	JsonSink	pub;
	int			depth;
	JbFrame		frame[JSON_MAX_DEPTH];
	Jsonb	   *result;
	MemoryContext cxt;			/* where the frames' buffers live */
} JsonbSinkState;

extern void jsonb_sink_init(JsonbSinkState *j, MemoryContext cxt);
extern Jsonb *jsonb_sink_result(JsonbSinkState *j);

#endif							/* JSONB_SINK_H */
