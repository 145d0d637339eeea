/*
 * json_lex.c - the JSON tokenizer (json_lex.h).
 */
#include "json_lex.h"

#include "edm.h"

bool
json_error(JsonLex *lx, size_t off, const char *what)
{
	int			pos = ts_char_pos(lx->s, Min(off, lx->len));

	ts_fail(lx->err, lx->code, "%s at character %d: %s", lx->prefix, pos, what);
	lx->err->pos = pos;
	return false;
}

static int
hex4(const char *p)
{
	int			v = 0;

	for (int k = 0; k < 4; k++)
	{
		int			h = edm_hexval(p[k]);

		if (h < 0)
			return -1;
		v = (v << 4) | h;
	}
	return v;
}

/* A string from its opening quote: escapes and UTF-8 are checked here, decoded on request. */
static bool
scan_string(JsonLex *lx, JsonToken *t)
{
	const char *s = lx->s;
	size_t		start = lx->i;
	size_t		i = start + 1;

	t->kind = JT_STRING;
	t->escaped = false;
	for (;;)
	{
		unsigned char c;

		/* runs of plain ASCII, eight bytes at a time */
		while (i + 8 <= lx->len)
		{
			uint64		w = edm_word8(s + i);

			if (edm_word8_has_high(w) || edm_word8_has_control(w) ||
				edm_word8_has_byte(w, '"') || edm_word8_has_byte(w, '\\'))
				break;
			i += 8;
		}
		if (i >= lx->len)
			return json_error(lx, start, "unterminated string");
		c = (unsigned char) s[i];
		if (c == '"')
			break;
		if (c < 0x20)
			return json_error(lx, i, "control character in a string (escape it)");
		if (c == '\\')
		{
			if (i + 1 >= lx->len)
				return json_error(lx, i, "unterminated escape");
			switch (s[i + 1])
			{
				case '"':
				case '\\':
				case '/':
				case 'b':
				case 'f':
				case 'n':
				case 'r':
				case 't':
					i += 2;
					break;
				case 'u':
					{
						int			cp = i + 6 <= lx->len ? hex4(s + i + 2) : -1;

						if (cp < 0)
							return json_error(lx, i, "\\u must be followed by four hex digits");
						/* surrogates come in pairs, so that what scans also decodes */
						if (cp >= 0xDC00 && cp <= 0xDFFF)
							return json_error(lx, i, "unpaired low surrogate in \\u escape");
						if (cp >= 0xD800 && cp <= 0xDBFF)
						{
							int			lo = (i + 12 <= lx->len && s[i + 6] == '\\' && s[i + 7] == 'u') ?
								hex4(s + i + 8) : -1;

							if (lo < 0xDC00 || lo > 0xDFFF)
								return json_error(lx, i, "unpaired high surrogate in \\u escape");
							i += 6;
						}
						i += 6;
						break;
					}
				default:
					return json_error(lx, i, "invalid escape");
			}
			t->escaped = true;
			continue;
		}
		if (c >= 0x80)
		{
			/* the server hands over valid UTF-8; other callers (and fuzzers) may not */
			size_t		n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;

			if (i + n > lx->len || !edm_utf8_valid(s + i, n))
				return json_error(lx, i, "invalid UTF-8 in a string");
			i += n;
			continue;
		}
		/* plain ASCII up to the next byte that needs a look (its word failed the test above) */
		for (i++; i < lx->len; i++)
		{
			c = (unsigned char) s[i];
			if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\')
				break;
		}
	}
	t->p = s + start + 1;
	t->len = (uint32) (i - start - 1);
	lx->i = i + 1;
	return true;
}

static bool
scan_number(JsonLex *lx, JsonToken *t)
{
	size_t		start = lx->i;
	size_t		end = 0;

	t->kind = JT_NUMBER;
	t->escaped = false;
	switch (edm_scan_number(lx->s + start, lx->len - start, &end, &t->integer))
	{
		case EDM_NUMBER_OK:
			break;
		case EDM_NUMBER_NO_FRACTION:
			return json_error(lx, start, "invalid number (no digits after the decimal point)");
		case EDM_NUMBER_NO_EXPONENT:
			return json_error(lx, start, "invalid number (no digits in the exponent)");
		default:
			return json_error(lx, start, "invalid number");
	}
	t->p = lx->s + start;
	t->len = (uint32) end;
	lx->i = start + end;
	return true;
}

static bool
scan_word(JsonLex *lx, JsonToken *t, const char *word, JsonTok kind)
{
	size_t		wl = strlen(word);

	if (lx->len - lx->i < wl || memcmp(lx->s + lx->i, word, wl) != 0)
		return json_error(lx, lx->i, "unexpected token");
	t->kind = kind;
	t->escaped = false;
	t->p = lx->s + lx->i;
	t->len = (uint32) wl;
	lx->i += wl;
	return true;
}

bool
json_next(JsonLex *lx, JsonToken *t)
{
	char		c;

	json_skip_ws(lx);
	t->pos = (uint32) lx->i;
	if (lx->i >= lx->len)
	{
		t->kind = JT_END;
		t->len = 0;
		return true;
	}
	c = lx->s[lx->i];
	switch (c)
	{
		case '{':
		case '}':
		case '[':
		case ']':
		case ':':
		case ',':
			t->kind = c == '{' ? JT_LBRACE : c == '}' ? JT_RBRACE : c == '[' ? JT_LBRACKET :
				c == ']' ? JT_RBRACKET : c == ':' ? JT_COLON : JT_COMMA;
			t->p = lx->s + lx->i;
			t->len = 1;
			lx->i++;
			return true;
		case '"':
			return scan_string(lx, t);
		case 't':
			return scan_word(lx, t, "true", JT_TRUE);
		case 'f':
			return scan_word(lx, t, "false", JT_FALSE);
		case 'n':
			return scan_word(lx, t, "null", JT_NULL);
		default:
			if (c == '-' || (c >= '0' && c <= '9'))
				return scan_number(lx, t);
			return json_error(lx, lx->i, "unexpected character");
	}
}

bool
json_expect(JsonLex *lx, JsonToken *t, JsonTok k, const char *what)
{
	if (!json_next(lx, t))
		return false;
	if (t->kind != k)
		return json_error(lx, t->pos, what);
	return true;
}

bool
json_decode_string(JsonLex *lx, JsonToken *t)
{
	const char *s = t->p;
	char	   *out,
			   *o;
	uint32		i = 0;

	if (!t->escaped)
		return true;
	/* (the scan checked every escape, so the reads below stay inside the string) */
	out = o = palloc(t->len + 1);
	while (i < t->len)
	{
		char		c = s[i];
		uint32		cp;

		if (c != '\\')
		{
			*o++ = c;
			i++;
			continue;
		}
		switch (s[i + 1])
		{
			case 'b':
				*o++ = '\b';
				break;
			case 'f':
				*o++ = '\f';
				break;
			case 'n':
				*o++ = '\n';
				break;
			case 'r':
				*o++ = '\r';
				break;
			case 't':
				*o++ = '\t';
				break;
			case 'u':
				cp = (uint32) hex4(s + i + 2);
				if (cp >= 0xDC00 && cp <= 0xDFFF)
					return json_error(lx, (size_t) (s + i - lx->s), "unpaired low surrogate in \\u escape");
				if (cp >= 0xD800 && cp <= 0xDBFF)
				{
					int			lo = (i + 12 <= t->len && s[i + 6] == '\\' && s[i + 7] == 'u') ?
						hex4(s + i + 8) : -1;

					if (lo < 0xDC00 || lo > 0xDFFF)
						return json_error(lx, (size_t) (s + i - lx->s), "unpaired high surrogate in \\u escape");
					cp = 0x10000 + ((cp - 0xD800) << 10) + ((uint32) lo - 0xDC00);
					i += 6;
				}
				o += edm_utf8_encode(cp, o);
				i += 4;
				break;
			default:			/* " \ / */
				*o++ = s[i + 1];
				break;
		}
		i += 2;
	}
	*o = '\0';
	t->p = out;
	t->len = (uint32) (o - out);
	t->escaped = false;
	return true;
}

bool
json_skip_value(JsonLex *lx, int max_depth, int *count)
{
	JsonToken	t;
	bool		stack[JSON_MAX_DEPTH];	/* true: an object is open at this depth */
	int			depth = 0;
	bool		top_array;

	Assert(max_depth <= JSON_MAX_DEPTH);
	if (count)
		*count = 0;
	if (!json_next(lx, &t))
		return false;
	top_array = t.kind == JT_LBRACKET;
	for (;;)
	{
		/* t starts a value */
		if (t.kind == JT_LBRACE || t.kind == JT_LBRACKET)
		{
			bool		object = t.kind == JT_LBRACE;

			if (depth == max_depth)
				return json_error(lx, t.pos, "values nested too deeply");
			stack[depth++] = object;
			if (!json_next(lx, &t))
				return false;
			if (t.kind != (object ? JT_RBRACE : JT_RBRACKET))
			{
				if (depth == 1 && top_array && count)
					(*count)++;
				if (object && !(t.kind == JT_STRING ? json_expect(lx, &t, JT_COLON, "':' was expected") &&
								json_next(lx, &t) : json_error(lx, t.pos, "a member name was expected")))
					return false;
				continue;		/* t starts the first element */
			}
			depth--;			/* an empty container is a whole value */
		}
		else if (t.kind == JT_END)
			return json_error(lx, t.pos, "the document ends early");
		else if (t.kind < JT_STRING)
			return json_error(lx, t.pos, "a value was expected");

		/* after a whole value: the ends of containers, or ',' and the next element */
		for (;;)
		{
			if (depth == 0)
				return true;
			if (!json_next(lx, &t))
				return false;
			if (t.kind == (stack[depth - 1] ? JT_RBRACE : JT_RBRACKET))
			{
				depth--;
				continue;
			}
			if (t.kind == JT_END)
				return json_error(lx, t.pos, "the document ends early");
			if (t.kind != JT_COMMA)
				return json_error(lx, t.pos, "',' or the end of an object or array was expected");
			break;
		}
		if (!json_next(lx, &t))
			return false;
		if (stack[depth - 1])
		{
			if (t.kind != JT_STRING)
				return json_error(lx, t.pos, "a member name was expected");
			if (!json_expect(lx, &t, JT_COLON, "':' was expected") || !json_next(lx, &t))
				return false;
		}
		else if (depth == 1 && top_array && count)
			(*count)++;
	}
}
