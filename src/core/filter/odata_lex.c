/*
 * odata_lex.c - tokens of the $filter language: parentheses, property names, the lowercase
 * keywords (and or not eq ne gt ge lt le null) and typed literals: 'string' (a quote doubled
 * inside), 42 (Int32, which it must fit), 42L (Int64), 1.5 / 2e10 (Double), true and false in any
 * letter case (so a property named True or FALSE cannot be named in a filter: the word is the
 * literal, as on the service), datetime'...' (Z, an offset, or none: UTC), guid'...', X'hex' and
 * binary'hex'. Backend-free.
 *
 * Token positions are byte offsets; messages turn them into 1-based character positions.
 */
#include "odata.h"

static bool
lex_error(OdLexer *lx, size_t off, const char *what, const char *detail)
{
	int			pos = ts_char_pos(lx->s, off);

	ts_fail(lx->err, TSE_FILTER_SYNTAX, "invalid $filter at character %d: %s", pos, what);
	lx->err->pos = pos;
	if (detail)
		ts_fail_detail(lx->err, "%s", detail);
	return false;
}

static bool
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool
is_word_byte(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		c == '_' || c >= 0x80;
}

static bool
is_delimiter(const OdLexer *lx, size_t i)
{
	return i >= lx->len || is_space(lx->s[i]) || lx->s[i] == '(' || lx->s[i] == ')';
}

/*
 * A quoted run starting at the opening quote: the contents with doubled quotes undoubled, in a
 * new buffer. On return lx->i is past the closing quote.
 */
static bool
read_quoted(OdLexer *lx, size_t start, const char **out, uint32 *outlen)
{
	size_t		i = start + 1;
	char	   *buf = palloc(lx->len - start + 1);
	uint32		n = 0;

	for (;;)
	{
		if (i >= lx->len)
			return lex_error(lx, start, "unterminated quoted literal", "A quote inside a string is written twice: 'O''Brien'.");
		if (lx->s[i] == '\'')
		{
			if (i + 1 < lx->len && lx->s[i + 1] == '\'')
			{
				buf[n++] = '\'';
				i += 2;
				continue;
			}
			break;
		}
		buf[n++] = lx->s[i++];
	}
	buf[n] = '\0';
	*out = buf;
	*outlen = n;
	lx->i = i + 1;
	return true;
}

static bool
typed_literal(OdLexer *lx, OdToken *tok, const char *word, uint32 wlen)
{
	const char *body;
	uint32		blen;
	size_t		start = tok->pos;

	if (!read_quoted(lx, lx->i, &body, &blen))
		return false;
	tok->kind = OT_LITERAL;
	if (wlen == 8 && memcmp(word, "datetime", 8) == 0)
	{
		EdmParse	r = edm_parse_datetime_value(body, blen, &tok->lit.i64);

		tok->lit.type = EDM_DATETIME;
		if (r == EDM_BAD_RANGE)
			return lex_error(lx, start, "datetime literal outside 1601-01-01 to 9999-12-31", NULL);
		if (r != EDM_OK)
			return lex_error(lx, start, "invalid datetime literal",
							 "Write datetime'2014-08-22T00:50:44.1234567Z' (up to 7 fractional digits; Z, an offset, or none for UTC).");
	}
	else if (wlen == 4 && memcmp(word, "guid", 4) == 0)
	{
		tok->lit.type = EDM_GUID;
		if (edm_parse_guid(body, blen, tok->lit.guid) != EDM_OK)
			return lex_error(lx, start, "invalid guid literal", "Write guid'68260b3f-beab-45e2-b900-33e2b442e724'.");
	}
	else
	{
		uint8	   *bin = palloc(blen / 2 + 1);

		tok->lit.type = EDM_BINARY;
		if (blen % 2 != 0)
			return lex_error(lx, start, "binary literal with an odd number of hex digits", NULL);
		for (uint32 k = 0; k < blen; k += 2)
		{
			int			hi = edm_hexval(body[k]),
						lo = edm_hexval(body[k + 1]);

			if (hi < 0 || lo < 0)
				return lex_error(lx, start, "binary literal with a character that is not a hex digit", NULL);
			bin[k / 2] = (uint8) (hi << 4 | lo);
		}
		tok->lit.bin = bin;
		tok->lit.len = blen / 2;
	}
	return true;
}

static bool
number(OdLexer *lx, OdToken *tok)
{
	size_t		start = lx->i;
	size_t		i = start;
	bool		integer = true;
	EdmParse	r;

	if (lx->s[i] == '-')
		i++;
	while (i < lx->len && lx->s[i] >= '0' && lx->s[i] <= '9')
		i++;
	if (i < lx->len && lx->s[i] == '.')
	{
		integer = false;
		i++;
		while (i < lx->len && lx->s[i] >= '0' && lx->s[i] <= '9')
			i++;
	}
	if (i < lx->len && (lx->s[i] == 'e' || lx->s[i] == 'E'))
	{
		integer = false;
		i++;
		if (i < lx->len && (lx->s[i] == '+' || lx->s[i] == '-'))
			i++;
		while (i < lx->len && lx->s[i] >= '0' && lx->s[i] <= '9')
			i++;
	}
	tok->kind = OT_LITERAL;
	if (integer && i < lx->len && (lx->s[i] == 'L' || lx->s[i] == 'l'))
	{
		tok->lit.type = EDM_INT64;
		r = edm_parse_int64(lx->s + start, i - start, &tok->lit.i64);
		i++;
	}
	else if (integer)
	{
		/* an unsuffixed integer is an Int32 and must fit one, as on the service (Int64 needs L) */
		tok->lit.type = EDM_INT32;
		r = edm_parse_int32(lx->s + start, i - start, &tok->lit.i32);
		if (r == EDM_BAD_RANGE && is_delimiter(lx, i))
			return lex_error(lx, start, "Unrecognized 'Edm.Int32' literal",
							 "An integer literal without the L suffix must fit Int32; write an Int64 literal as 42L.");
	}
	else
	{
		tok->lit.type = EDM_DOUBLE;
		r = edm_parse_double(lx->s + start, i - start, false, &tok->lit.dbl);
	}
	if (r == EDM_BAD_RANGE)
		return lex_error(lx, start, "number out of range for its type", NULL);
	if (r != EDM_OK || !is_delimiter(lx, i))
		return lex_error(lx, start, "invalid number", NULL);
	lx->i = i;
	return true;
}

static const struct
{
	const char *word;
	OdTokKind	kind;
	OdCmp		cmp;
}			keywords[] = {
	{"and", OT_AND}, {"or", OT_OR}, {"not", OT_NOT}, {"null", OT_NULL},
	{"eq", OT_CMP, CMP_EQ}, {"ne", OT_CMP, CMP_NE}, {"gt", OT_CMP, CMP_GT},
	{"ge", OT_CMP, CMP_GE}, {"lt", OT_CMP, CMP_LT}, {"le", OT_CMP, CMP_LE},
};

static bool
word(OdLexer *lx, OdToken *tok)
{
	size_t		start = lx->i;
	size_t		i = start;
	const char *w = lx->s + start;
	uint32		wlen;

	while (i < lx->len && is_word_byte((unsigned char) lx->s[i]))
		i++;
	wlen = (uint32) (i - start);
	lx->i = i;
	if (i < lx->len && lx->s[i] == '\'' &&
		((wlen == 8 && memcmp(w, "datetime", 8) == 0) || (wlen == 4 && memcmp(w, "guid", 4) == 0) ||
		 (wlen == 1 && w[0] == 'X') || (wlen == 6 && memcmp(w, "binary", 6) == 0)))
		return typed_literal(lx, tok, w, wlen);
	for (int k = 0; k < (int) lengthof(keywords); k++)
	{
		if (strlen(keywords[k].word) == wlen && memcmp(keywords[k].word, w, wlen) == 0)
		{
			tok->kind = keywords[k].kind;
			tok->cmp = keywords[k].cmp;
			return true;
		}
	}
	/* true and false in any letter case (True, FALSE), as the service reads them */
	if ((wlen == 4 && pg_strncasecmp(w, "true", 4) == 0) || (wlen == 5 && pg_strncasecmp(w, "false", 5) == 0))
	{
		tok->kind = OT_LITERAL;
		tok->lit.type = EDM_BOOLEAN;
		tok->lit.b = (wlen == 4);
		return true;
	}
	tok->kind = OT_IDENT;
	tok->text = w;
	tok->len = wlen;
	if (edm_check_name(w, wlen) != EDM_CHECK_OK && !edm_is_reserved_name(w, wlen))
	{
		char		ex[TS_EXCERPT_BUF];
		char		msg[TS_EXCERPT_BUF + 40];

		snprintf(msg, sizeof(msg), "\"%s\" is not a property name", ts_excerpt(ex, sizeof(ex), w, wlen));
		return lex_error(lx, start, msg, "Property names are identifiers; string values are quoted: 'Sales'.");
	}
	return true;
}

bool
odata_next_token(OdLexer *lx, OdToken *tok)
{
	unsigned char c;

	TS_CHECK_INTERRUPTS();
	while (lx->i < lx->len && is_space(lx->s[lx->i]))
		lx->i++;
	memset(tok, 0, sizeof(*tok));
	tok->pos = (int) lx->i;
	if (lx->i >= lx->len)
	{
		tok->kind = OT_END;
		return true;
	}
	c = (unsigned char) lx->s[lx->i];
	if (c == '(' || c == ')')
	{
		tok->kind = c == '(' ? OT_LPAREN : OT_RPAREN;
		lx->i++;
		return true;
	}
	if (c == '\'')
	{
		tok->kind = OT_LITERAL;
		tok->lit.type = EDM_STRING;
		return read_quoted(lx, lx->i, &tok->lit.str, &tok->lit.len);
	}
	if ((c >= '0' && c <= '9') ||
		(c == '-' && lx->i + 1 < lx->len && lx->s[lx->i + 1] >= '0' && lx->s[lx->i + 1] <= '9'))
		return number(lx, tok);
	if (is_word_byte(c))
		return word(lx, tok);
	{
		char		msg[64];

		if (c >= 0x21 && c < 0x7F)
			snprintf(msg, sizeof(msg), "unexpected character '%c'", c);
		else
			snprintf(msg, sizeof(msg), "unexpected character (byte 0x%02x)", c);
		return lex_error(lx, lx->i, msg, NULL);
	}
}
