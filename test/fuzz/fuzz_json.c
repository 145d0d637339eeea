/*
 * fuzz_json.c - libFuzzer target: the JSON tokenizer (json_lex.c) that the entity parser and the
 * batch document parser share.
 *
 * Properties: json_skip_value accepts or rejects with an error code, a message and a position;
 * when it accepts a document, walking the same bytes token by token meets only well-formed
 * tokens, every string decodes to valid UTF-8 no longer than its escaped form, and the brackets
 * balance.
 */
#include "postgres_fe.h"

#include "edm.h"
#include "fuzz.h"
#include "json_lex.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *) data;
	JsonLex		lx;
	TsError		err = {0};
	int			count;
	bool		ok;

	if (size > 64 * 1024)
		return 0;
	json_lex_init(&lx, s, size, &err, TSE_BATCH_MALFORMED, "fuzz");
	ok = json_skip_value(&lx, JSON_MAX_DEPTH, &count);
	if (!ok)
		FUZZ_CHECK(err.code == TSE_BATCH_MALFORMED && err.msg[0] != '\0' && err.pos >= 1,
				   "a rejected document has its code, a message and a position");
	else
	{
		size_t		end = lx.i;
		int			depth = 0;
		JsonToken	t;

		FUZZ_CHECK(count >= 0, "an element count");
		json_lex_init(&lx, s, end, &err, TSE_BATCH_MALFORMED, "fuzz");
		for (;;)
		{
			FUZZ_CHECK(json_next(&lx, &t), "an accepted document re-tokenizes");
			if (t.kind == JT_END)
				break;
			if (t.kind == JT_LBRACE || t.kind == JT_LBRACKET)
				depth++;
			else if (t.kind == JT_RBRACE || t.kind == JT_RBRACKET)
				depth--;
			FUZZ_CHECK(depth >= 0 && depth <= JSON_MAX_DEPTH, "brackets balance");
			if (t.kind == JT_STRING)
			{
				uint32		raw = t.len;

				FUZZ_CHECK(json_decode_string(&lx, &t), "an accepted string decodes");
				FUZZ_CHECK(t.len <= raw && edm_utf8_valid(t.p, t.len), "a decoded string is valid UTF-8, not longer");
			}
		}
		FUZZ_CHECK(depth == 0, "brackets close");
	}
	fuzz_reset();
	return 0;
}
