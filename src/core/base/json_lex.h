/*
 * json_lex.h - the JSON tokenizer (RFC 8259) and the loop over an object's members, shared by
 * every JSON reader: the entity parser (entity_json_in.c), the batch document (batch_parse.c),
 * indexing policies, Create Table bodies, the gateway's tokens (oauth.c) and tablestore-copy's
 * lines and pages. Backend-free.
 *
 * Tokens point into the input. Strings are checked when scanned (escapes, control characters,
 * UTF-8) and decoded only on request, so a string without escapes costs no copy. A syntax error
 * is recorded in the lexer's TsError with the caller's code and message prefix and the 1-based
 * character position: "<prefix> at character N: <what>".
 */
#ifndef JSON_LEX_H
#define JSON_LEX_H

#include "ts_error.h"

typedef enum JsonTok
{
	JT_END,						/* the end of the input */
	JT_LBRACE,
	JT_RBRACE,
	JT_LBRACKET,
	JT_RBRACKET,
	JT_COLON,
	JT_COMMA,
	JT_STRING,
	JT_NUMBER,
	JT_TRUE,
	JT_FALSE,
	JT_NULL
} JsonTok;

typedef struct JsonToken
{
	JsonTok		kind;
	bool		escaped;		/* a string with backslashes: json_decode_string before use */
	bool		integer;		/* a number without fraction or exponent */
	const char *p;				/* a string's contents (between the quotes) or a number's text */
	uint32		len;
	uint32		pos;			/* byte offset of the token in the input */
} JsonToken;

typedef struct JsonLex
{
	const char *s;
	size_t		len;
	size_t		i;				/* the next byte to read */
	TsError    *err;
	TsErrorCode code;			/* for syntax errors */
	const char *prefix;			/* for syntax errors, e.g. "invalid entity JSON" */
} JsonLex;

static inline void
json_lex_init(JsonLex *lx, const char *s, size_t len, TsError *err, TsErrorCode code, const char *prefix)
{
	lx->s = s;
	lx->len = len;
	lx->i = 0;
	lx->err = err;
	lx->code = code;
	lx->prefix = prefix;
}

static inline void
json_skip_ws(JsonLex *lx)
{
	while (lx->i < lx->len)
	{
		char		c = lx->s[lx->i];

		if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
			break;
		lx->i++;
	}
}

/* The next byte after white space, or '\0' at the end (the input itself holds no NUL that counts). */
static inline char
json_peek(JsonLex *lx)
{
	json_skip_ws(lx);
	return lx->i < lx->len ? lx->s[lx->i] : '\0';
}

/* Scan the next token (after white space); false on a syntax error. */
extern bool json_next(JsonLex *lx, JsonToken *t);

/* Scan the next token and require it to be of kind k ("what" names it in the error). */
extern bool json_expect(JsonLex *lx, JsonToken *t, JsonTok k, const char *what);


/* Decode an escaped string token in place (into memory from palloc); a no-op without escapes. */
extern bool json_decode_string(JsonLex *lx, JsonToken *t);

/* Record a syntax error at byte offset off; returns false. */
extern bool json_error(JsonLex *lx, size_t off, const char *what);

/*
 * The one loop over a JSON object's members, for every reader of objects in the extension, the
 * gateway and tablestore-copy. Call it after the object's '{' (each reader checks that with its
 * own message) with *first true. Each call reads the ',' before a member (none before the first),
 * the member's name (decoded when decode: json_decode_string) and its ':', and leaves the lexer at
 * the value, which the caller reads or steps over (json_skip_value). At the object's '}' it
 * returns true with name->kind JT_RBRACE. False on a syntax error, recorded in lx->err: "a member
 * name (a string) was expected" (also after a trailing ','), "':' was expected", "',' or '}' was
 * expected".
 *
 *	for (bool first = true;;)
 *	{
 *		if (!json_next_member(lx, &first, &name, true))
 *			return false;
 *		if (name.kind == JT_RBRACE)
 *			break;
 *		... the value ...
 *	}
 */
static inline bool
json_next_member(JsonLex *lx, bool *first, JsonToken *name, bool decode)
{
	if (*first)
	{
		*first = false;
		if (json_peek(lx) == '}')
		{
			name->kind = JT_RBRACE;
			name->pos = (uint32) lx->i++;
			return true;
		}
	}
	else
	{
		/* after a value: ',' and the next member, or the end of the object */
		if (!json_next(lx, name))
			return false;
		if (name->kind == JT_RBRACE)
			return true;
		if (name->kind != JT_COMMA)
			return json_error(lx, name->pos, "',' or '}' was expected");
	}
	if (json_peek(lx) != '"')
		return json_error(lx, lx->i, "a member name (a string) was expected");
	if (!json_next(lx, name) || (decode && !json_decode_string(lx, name)))
		return false;
	if (json_peek(lx) != ':')
		return json_error(lx, lx->i, "':' was expected");
	lx->i++;
	return true;
}

/*
 * How JSON text writes the byte c inside a string: 0 when it stands for itself, else the length
 * (2 or 6) of its escape, written into esc: \" \\ \b \f \n \r \t, or \u00XX for the other
 * control characters. Every writer of JSON strings (entity_json_out.c, the gateway) escapes so.
 */
static inline int
json_escape_byte(unsigned char c, char esc[6])
{
	static const char hex[] = "0123456789abcdef";
	static const char short_esc[] = "\"\\\b\f\n\r\t";
	static const char short_of[] = "\"\\bfnrt";

	if (c >= 0x20 && c != '"' && c != '\\')
		return 0;
	for (int i = 0; short_esc[i]; i++)
		if ((unsigned char) short_esc[i] == c)
		{
			esc[0] = '\\';
			esc[1] = short_of[i];
			return 2;
		}
	esc[0] = '\\';
	esc[1] = 'u';
	esc[2] = '0';
	esc[3] = '0';
	esc[4] = hex[c >> 4];
	esc[5] = hex[c & 15];
	return 6;
}

#define JSON_MAX_DEPTH 64

/*
 * Check that a whole value starts here (nested at most max_depth <= JSON_MAX_DEPTH deep) and step over it. With
 * count, *count receives the number of elements when the value is an array.
 */
extern bool json_skip_value(JsonLex *lx, int max_depth, int *count);

#endif							/* JSON_LEX_H */
