/*
 * entity_json_in.c - parse the Azure JSON form of an entity (SPEC §1) into the canonical form.
 *
 * One pass over the text collects the members of the flat object, pointing into the input where a
 * string has no escapes. Then: keys are checked, properties and their "@odata.type" annotations are
 * matched by name (both sorted), values are converted to their types, and entity_build encodes
 * the result and enforces the limits. Timestamp and odata.* members are server metadata and are
 * dropped; a JSON null means "property absent". Backend-free; errors come back in a TsError.
 */
#include "entity_format.h"

typedef enum JsonKind
{
	JK_STRING,
	JK_NUMBER,
	JK_TRUE,
	JK_FALSE,
	JK_NULL
} JsonKind;

typedef struct JsonVal
{
	JsonKind	kind;
	bool		escaped;		/* a string with backslashes: decode before use */
	bool		integer;		/* a number without fraction or exponent */
	const char *p;				/* number text, or string contents between the quotes */
	uint32		len;
	uint32		pos;			/* byte offset in the input */
} JsonVal;

typedef enum MemberKind
{
	MK_PROP,
	MK_ANNOT,					/* "<name>@odata.type" */
	MK_PK,
	MK_RK,
	MK_KEY_ANNOT				/* "PartitionKey@odata.type" or "RowKey@odata.type" */
} MemberKind;

typedef struct Member
{
	const char *name;			/* for MK_ANNOT the property it annotates */
	uint32		name_len;
	MemberKind	kind;
	JsonVal		val;
} Member;

typedef struct Parser
{
	const char *s;
	size_t		len;
	size_t		i;
	TsError    *err;
	Member	   *m;
	int			n;
	int			cap;
	Member		local[32];
} Parser;

/* 1-based character position of a byte offset, for messages. */
static int
char_pos(const Parser *ps, size_t off)
{
	int			n = 1;

	for (size_t k = 0; k < off && k < ps->len; k++)
		n += ((unsigned char) ps->s[k] & 0xC0) != 0x80;
	return n;
}

static bool
syntax_error(Parser *ps, size_t off, const char *what)
{
	ts_fail(ps->err, TSE_INVALID_JSON, "invalid entity JSON at character %d: %s", char_pos(ps, off), what);
	ps->err->pos = char_pos(ps, off);
	return false;
}

static inline void
skip_ws(Parser *ps)
{
	while (ps->i < ps->len)
	{
		char		c = ps->s[ps->i];

		if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
			break;
		ps->i++;
	}
}

static int
hex4(const char *p)
{
	int			v = 0;

	for (int k = 0; k < 4; k++)
	{
		char		c = p[k];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	return v;
}

/* Scan a string starting at the opening quote; escapes are checked here, decoded later. */
static bool
scan_string(Parser *ps, JsonVal *v)
{
	const char *s = ps->s;
	size_t		i = ps->i + 1;

	v->kind = JK_STRING;
	v->escaped = false;
	v->pos = (uint32) ps->i;
	for (;;)
	{
		unsigned char c;

		if (i >= ps->len)
			return syntax_error(ps, ps->i, "unterminated string");
		c = (unsigned char) s[i];
		if (c == '"')
			break;
		if (c < 0x20)
			return syntax_error(ps, i, "control character in a string (escape it)");
		if (c == '\\')
		{
			if (i + 1 >= ps->len)
				return syntax_error(ps, i, "unterminated escape");
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
					if (i + 6 > ps->len || hex4(s + i + 2) < 0)
						return syntax_error(ps, i, "\\u must be followed by four hex digits");
					i += 6;
					break;
				default:
					return syntax_error(ps, i, "invalid escape");
			}
			v->escaped = true;
			continue;
		}
		if (c >= 0x80)
		{
			/* the server hands over valid UTF-8; other callers (and fuzzers) may not */
			size_t		n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;

			if (i + n > ps->len || !edm_utf8_valid(s + i, n))
				return syntax_error(ps, i, "invalid UTF-8 in a string");
			i += n;
			continue;
		}
		i++;
	}
	v->p = s + ps->i + 1;
	v->len = (uint32) (i - ps->i - 1);
	ps->i = i + 1;
	return true;
}

static void
put_utf8(char **o, uint32 cp)
{
	char	   *p = *o;

	if (cp < 0x80)
		*p++ = (char) cp;
	else if (cp < 0x800)
	{
		*p++ = (char) (0xC0 | (cp >> 6));
		*p++ = (char) (0x80 | (cp & 0x3F));
	}
	else if (cp < 0x10000)
	{
		*p++ = (char) (0xE0 | (cp >> 12));
		*p++ = (char) (0x80 | ((cp >> 6) & 0x3F));
		*p++ = (char) (0x80 | (cp & 0x3F));
	}
	else
	{
		*p++ = (char) (0xF0 | (cp >> 18));
		*p++ = (char) (0x80 | ((cp >> 12) & 0x3F));
		*p++ = (char) (0x80 | ((cp >> 6) & 0x3F));
		*p++ = (char) (0x80 | (cp & 0x3F));
	}
	*o = p;
}

/* Decode an escaped string in place of v (into a new buffer, never longer than the source). */
static bool
decode_string(Parser *ps, JsonVal *v)
{
	const char *s = v->p;
	char	   *out,
			   *o;
	uint32		i = 0;

	if (!v->escaped)
		return true;
	out = o = palloc(v->len + 1);
	while (i < v->len)
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
					return syntax_error(ps, (size_t) (s + i - ps->s), "unpaired low surrogate in \\u escape");
				if (cp >= 0xD800 && cp <= 0xDBFF)
				{
					int			lo = (i + 12 <= v->len && s[i + 6] == '\\' && s[i + 7] == 'u') ?
						hex4(s + i + 8) : -1;

					if (lo < 0xDC00 || lo > 0xDFFF)
						return syntax_error(ps, (size_t) (s + i - ps->s), "unpaired high surrogate in \\u escape");
					cp = 0x10000 + ((cp - 0xD800) << 10) + ((uint32) lo - 0xDC00);
					i += 6;
				}
				put_utf8(&o, cp);
				i += 4;
				break;
			default:			/* " \ / */
				*o++ = s[i + 1];
				break;
		}
		i += 2;
	}
	*o = '\0';
	v->p = out;
	v->len = (uint32) (o - out);
	v->escaped = false;
	return true;
}

static bool
scan_number(Parser *ps, JsonVal *v)
{
	const char *s = ps->s;
	size_t		i = ps->i;
	size_t		n = ps->len;

	v->kind = JK_NUMBER;
	v->escaped = false;
	v->integer = true;
	v->pos = (uint32) i;
	if (s[i] == '-')
		i++;
	if (i < n && s[i] == '0')
		i++;
	else if (i < n && s[i] >= '1' && s[i] <= '9')
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
	else
		return syntax_error(ps, ps->i, "invalid number");
	if (i < n && s[i] == '.')
	{
		size_t		d = ++i;

		v->integer = false;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
		if (i == d)
			return syntax_error(ps, ps->i, "invalid number (no digits after the decimal point)");
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E'))
	{
		size_t		d;

		v->integer = false;
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		d = i;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
		if (i == d)
			return syntax_error(ps, ps->i, "invalid number (no digits in the exponent)");
	}
	v->p = s + ps->i;
	v->len = (uint32) (i - ps->i);
	ps->i = i;
	return true;
}

static bool
scan_literal(Parser *ps, JsonVal *v, const char *word, JsonKind kind)
{
	size_t		wl = strlen(word);

	if (ps->len - ps->i < wl || memcmp(ps->s + ps->i, word, wl) != 0)
		return syntax_error(ps, ps->i, "unexpected token");
	v->kind = kind;
	v->pos = (uint32) ps->i;
	v->p = ps->s + ps->i;
	v->len = (uint32) wl;
	v->escaped = false;
	ps->i += wl;
	return true;
}

static bool
scan_value(Parser *ps, JsonVal *v)
{
	char		c;

	if (ps->i >= ps->len)
		return syntax_error(ps, ps->i, "value expected");
	c = ps->s[ps->i];
	switch (c)
	{
		case '"':
			return scan_string(ps, v);
		case 't':
			return scan_literal(ps, v, "true", JK_TRUE);
		case 'f':
			return scan_literal(ps, v, "false", JK_FALSE);
		case 'n':
			return scan_literal(ps, v, "null", JK_NULL);
		case '{':
		case '[':
			ts_fail(ps->err, TSE_INVALID_JSON,
					"invalid entity JSON at character %d: nested objects and arrays are not supported",
					char_pos(ps, ps->i));
			ts_fail_detail(ps->err, "Property values are scalars; serialise structures into a String.");
			return false;
		default:
			if (c == '-' || (c >= '0' && c <= '9'))
				return scan_number(ps, v);
			return syntax_error(ps, ps->i, "unexpected character");
	}
}

static Member *
add_member(Parser *ps)
{
	if (ps->n == ps->cap)
	{
		int			newcap = ps->cap * 2;
		Member	   *m = palloc(sizeof(Member) * newcap);

		memcpy(m, ps->m, sizeof(Member) * ps->n);
		if (ps->m != ps->local)
			pfree(ps->m);
		ps->m = m;
		ps->cap = newcap;
	}
	return &ps->m[ps->n++];
}

static bool
name_error(Parser *ps, const char *name, uint32 len, EdmCheck check)
{
	char		ex[TS_EXCERPT_BUF];

	ts_excerpt(ex, sizeof(ex), name, len);
	if (check == EDM_CHECK_TOO_LONG)
		return ts_fail(ps->err, TSE_NAME_TOO_LONG, "the property name \"%s\" is longer than %d characters",
					   ex, TS_MAX_NAME_UTF16);
	ts_fail(ps->err, TSE_NAME_INVALID, "\"%s\" is not a valid property name", ex);
	ts_fail_detail(ps->err, "Property names follow the C# identifier rules: a letter or _ first, then letters, digits or _.");
	return false;
}

/*
 * Classify a member by its (decoded) name. Returns false on error; *keep is false for members
 * that are dropped (Timestamp, odata.* control information).
 */
static bool
classify(Parser *ps, Member *m, bool *keep)
{
	const char *name = m->name;
	uint32		len = m->name_len;
	const char *at;
	EdmCheck	check;

	*keep = true;
	if (len == 12 && memcmp(name, "PartitionKey", 12) == 0)
		m->kind = MK_PK;
	else if (len == 6 && memcmp(name, "RowKey", 6) == 0)
		m->kind = MK_RK;
	else if ((len == 9 && memcmp(name, "Timestamp", 9) == 0) ||
			 (len >= 6 && memcmp(name, "odata.", 6) == 0) ||
			 (len >= 7 && memcmp(name, "@odata.", 7) == 0))
		*keep = false;
	else if ((at = memchr(name, '@', len)) != NULL)
	{
		uint32		base = (uint32) (at - name);
		uint32		alen = len - base - 1;
		char		ex[TS_EXCERPT_BUF];

		if (alen != 10 || memcmp(at + 1, "odata.type", 10) != 0)
		{
			ts_fail(ps->err, TSE_INVALID_TYPE, "unsupported annotation \"%s\"",
					ts_excerpt(ex, sizeof(ex), name, len));
			ts_fail_detail(ps->err, "Only \"<property>@odata.type\" annotations are accepted.");
			return false;
		}
		m->name_len = base;
		if ((base == 12 && memcmp(name, "PartitionKey", 12) == 0) ||
			(base == 6 && memcmp(name, "RowKey", 6) == 0))
			m->kind = MK_KEY_ANNOT;
		else if (base == 9 && memcmp(name, "Timestamp", 9) == 0)
			*keep = false;
		else
		{
			m->kind = MK_ANNOT;
			check = edm_check_name(name, base);
			if (check != EDM_CHECK_OK)
				return name_error(ps, name, base, check);
		}
	}
	else
	{
		m->kind = MK_PROP;
		check = edm_check_name(name, len);
		if (check != EDM_CHECK_OK)
			return name_error(ps, name, len, check);
	}
	return true;
}

/* Read the members of the top-level object into ps->m; unless prefix, nothing may follow it. */
static bool
scan_object(Parser *ps, bool prefix)
{
	skip_ws(ps);
	if (ps->i >= ps->len || ps->s[ps->i] != '{')
		return syntax_error(ps, ps->i, "an entity must be a JSON object");
	ps->i++;
	skip_ws(ps);
	if (ps->i < ps->len && ps->s[ps->i] == '}')
		ps->i++;
	else
	{
		for (;;)
		{
			JsonVal		key;
			Member	   *m;
			bool		keep;

			if (ps->i >= ps->len || ps->s[ps->i] != '"')
				return syntax_error(ps, ps->i, "a member name (a string) was expected");
			if (!scan_string(ps, &key) || !decode_string(ps, &key))
				return false;
			skip_ws(ps);
			if (ps->i >= ps->len || ps->s[ps->i] != ':')
				return syntax_error(ps, ps->i, "':' was expected");
			ps->i++;
			skip_ws(ps);
			m = add_member(ps);
			m->name = key.p;
			m->name_len = key.len;
			if (!scan_value(ps, &m->val) || !classify(ps, m, &keep))
				return false;
			if (!keep)
				ps->n--;
			skip_ws(ps);
			if (ps->i < ps->len && ps->s[ps->i] == ',')
			{
				ps->i++;
				skip_ws(ps);
				continue;
			}
			if (ps->i < ps->len && ps->s[ps->i] == '}')
			{
				ps->i++;
				break;
			}
			return syntax_error(ps, ps->i, "',' or '}' was expected");
		}
	}
	if (prefix)
		return true;
	skip_ws(ps);
	if (ps->i != ps->len)
		return syntax_error(ps, ps->i, "unexpected text after the object");
	return true;
}

static int
member_cmp(const void *a, const void *b)
{
	const Member *x = a;
	const Member *y = b;

	return entity_name_cmp(x->name, x->name_len, y->name, y->name_len);
}

static void
sort_members(Member *m, int n)
{
	if (n > 16)
	{
		qsort(m, n, sizeof(Member), member_cmp);
		return;
	}
	for (int i = 1; i < n; i++)
	{
		Member		t = m[i];
		int			j = i - 1;

		while (j >= 0 && member_cmp(&m[j], &t) > 0)
		{
			m[j + 1] = m[j];
			j--;
		}
		m[j + 1] = t;
	}
}

static bool
value_error(Parser *ps, const Member *m, EdmType type, EdmParse r)
{
	char		ex[TS_EXCERPT_BUF];

	ts_excerpt(ex, sizeof(ex), m->name, m->name_len);
	if (r == EDM_BAD_RANGE)
		return ts_fail(ps->err, TSE_OUT_OF_RANGE, "the value of \"%s\" is out of range for %s",
					   ex, edm_type_name(type));
	return ts_fail(ps->err, TSE_INVALID_VALUE, "the value of \"%s\" is not a valid %s",
				   ex, edm_type_name(type));
}

static bool
wrong_json_kind(Parser *ps, const Member *m, EdmType type)
{
	char		ex[TS_EXCERPT_BUF];

	ts_fail(ps->err, TSE_INVALID_TYPE, "the value of \"%s\" does not fit its type %s",
			ts_excerpt(ex, sizeof(ex), m->name, m->name_len), edm_type_name(type));
	ts_fail_detail(ps->err, "Int64, DateTime, Guid and Binary values are JSON strings; Int32 and Double are numbers; Boolean is true or false.");
	return false;
}

/* Convert one member's JSON value to its EDM type; fixed-width values go into slot. */
static bool
convert_value(Parser *ps, Member *m, EdmType type, uint8 *slot, PropRef *out)
{
	JsonVal    *v = &m->val;
	EdmParse	r = EDM_OK;

	out->name = m->name;
	out->name_len = m->name_len;
	out->type = (uint8) type;
	out->val = slot;
	out->val_len = (uint32) Max(edm_fixed_size(type), 0);
	if (v->kind == JK_STRING && !decode_string(ps, v))
		return false;
	switch (type)
	{
		case EDM_STRING:
			if (v->kind != JK_STRING)
				return wrong_json_kind(ps, m, type);
			out->val = (const uint8 *) v->p;
			out->val_len = v->len;
			break;
		case EDM_INT32:
			{
				int32		i32 = 0;

				if (v->kind != JK_NUMBER && v->kind != JK_STRING)
					return wrong_json_kind(ps, m, type);
				r = edm_parse_int32(v->p, v->len, &i32);
				ts_wr32(slot, (uint32) i32);
				break;
			}
		case EDM_INT64:
			{
				int64		i64 = 0;

				if (v->kind != JK_NUMBER && v->kind != JK_STRING)
					return wrong_json_kind(ps, m, type);
				r = edm_parse_int64(v->p, v->len, &i64);
				ts_wr64(slot, (uint64) i64);
				break;
			}
		case EDM_DOUBLE:
			{
				double		d = 0;
				uint64		bits;

				if (v->kind != JK_NUMBER && v->kind != JK_STRING)
					return wrong_json_kind(ps, m, type);
				r = edm_parse_double(v->p, v->len, v->kind == JK_STRING, &d);
				memcpy(&bits, &d, 8);
				ts_wr64(slot, bits);
				break;
			}
		case EDM_BOOLEAN:
			if (v->kind != JK_TRUE && v->kind != JK_FALSE)
				return wrong_json_kind(ps, m, type);
			slot[0] = v->kind == JK_TRUE;
			break;
		case EDM_DATETIME:
			{
				int64		ticks = 0;

				if (v->kind != JK_STRING)
					return wrong_json_kind(ps, m, type);
				r = edm_parse_datetime(v->p, v->len, &ticks);
				ts_wr64(slot, (uint64) ticks);
				break;
			}
		case EDM_GUID:
			if (v->kind != JK_STRING)
				return wrong_json_kind(ps, m, type);
			r = edm_parse_guid(v->p, v->len, slot);
			break;
		case EDM_BINARY:
			{
				uint8	   *buf;
				size_t		n = 0;

				if (v->kind != JK_STRING)
					return wrong_json_kind(ps, m, type);
				if (v->len / 4 * 3 > TS_MAX_BINARY_BYTES + 3)
				{
					char		ex[TS_EXCERPT_BUF];

					return ts_fail(ps->err, TSE_VALUE_TOO_LARGE, "the Binary property \"%s\" is longer than %d bytes",
								   ts_excerpt(ex, sizeof(ex), m->name, m->name_len), TS_MAX_BINARY_BYTES);
				}
				buf = palloc(v->len / 4 * 3 + 1);
				r = edm_base64_decode(v->p, v->len, buf, &n);
				out->val = buf;
				out->val_len = (uint32) n;
				break;
			}
		default:
			Assert(false);
	}
	if (r != EDM_OK)
		return value_error(ps, m, type, r);
	return true;
}

/* The type a value has without an annotation (SPEC §1). */
static EdmType
inferred_type(const JsonVal *v)
{
	switch (v->kind)
	{
		case JK_STRING:
			return EDM_STRING;
		case JK_TRUE:
		case JK_FALSE:
			return EDM_BOOLEAN;
		case JK_NUMBER:
			{
				int32		i;

				if (v->integer && edm_parse_int32(v->p, v->len, &i) == EDM_OK)
					return EDM_INT32;
				return EDM_DOUBLE;
			}
		default:
			return EDM_NONE;
	}
}

/* Read a key member (PartitionKey / RowKey); null leaves it absent. */
static bool
take_key(Parser *ps, Member *m, bool *has, const char **key, uint32 *len)
{
	const char *which = m->kind == MK_PK ? "PartitionKey" : "RowKey";

	if (*key != NULL)			/* seen before, as a value or as null */
		return ts_fail(ps->err, TSE_DUPLICATE_PROPERTY, "the %s is given more than once", which);
	if (m->val.kind == JK_NULL)
	{
		*key = "";				/* seen, absent */
		return true;
	}
	if (m->val.kind != JK_STRING)
		return ts_fail(ps->err, TSE_INVALID_KEY, "the %s must be a string", which);
	if (!decode_string(ps, &m->val))
		return false;
	*has = true;
	*key = m->val.p;
	*len = m->val.len;
	return true;
}

static bool
check_key_annotation(Parser *ps, Member *m)
{
	const char *which = m->name_len == 12 ? "PartitionKey" : "RowKey";

	if (m->val.kind != JK_STRING || !decode_string(ps, &m->val) ||
		edm_type_from_name(m->val.p, m->val.len) != EDM_STRING)
		return ts_fail(ps->err, TSE_INVALID_TYPE, "the %s must be an Edm.String", which);
	return true;
}

static Entity *
from_json(const char *json, size_t len, EntityKeys *keys_apart, size_t *consumed, TsError *err)
{
	Parser		ps;
	EntityKeys	keys = {0};
	Member	   *props,
			   *annots;
	int			nprops = 0,
				nannots = 0,
				nout = 0;
	PropRef    *out;
	uint8		(*slots)[16];
	PropRef		local_out[32];
	uint8		local_slots[32][16];

	ps.s = json;
	ps.len = len;
	ps.i = 0;
	ps.err = err;
	ps.m = ps.local;
	ps.n = 0;
	ps.cap = lengthof(ps.local);
	if (!scan_object(&ps, consumed != NULL))
		return NULL;
	if (consumed)
		*consumed = ps.i;

	/* Partition members: keys handled now; properties first, then annotations. */
	for (int k = 0; k < ps.n; k++)
	{
		Member	   *m = &ps.m[k];

		switch (m->kind)
		{
			case MK_PK:
				if (!take_key(&ps, m, &keys.has_pk, &keys.pk, &keys.pk_len))
					return NULL;
				break;
			case MK_RK:
				if (!take_key(&ps, m, &keys.has_rk, &keys.rk, &keys.rk_len))
					return NULL;
				break;
			case MK_KEY_ANNOT:
				if (!check_key_annotation(&ps, m))
					return NULL;
				break;
			case MK_PROP:
				nprops++;
				break;
			case MK_ANNOT:
				nannots++;
				break;
		}
	}
	props = palloc(sizeof(Member) * (nprops + nannots + 1));
	annots = props + nprops;
	nprops = nannots = 0;
	for (int k = 0; k < ps.n; k++)
	{
		if (ps.m[k].kind == MK_PROP)
			props[nprops++] = ps.m[k];
		else if (ps.m[k].kind == MK_ANNOT)
			annots[nannots++] = ps.m[k];
	}
	sort_members(props, nprops);
	sort_members(annots, nannots);
	for (int k = 1; k < nprops; k++)
	{
		if (member_cmp(&props[k - 1], &props[k]) == 0)
		{
			char		ex[TS_EXCERPT_BUF];

			ts_fail(err, TSE_DUPLICATE_PROPERTY, "the property \"%s\" is given more than once",
					ts_excerpt(ex, sizeof(ex), props[k].name, props[k].name_len));
			return NULL;
		}
	}

	if (nprops <= (int) lengthof(local_out))
	{
		out = local_out;
		slots = local_slots;
	}
	else
	{
		out = palloc(sizeof(PropRef) * nprops);
		slots = palloc(16 * (size_t) nprops);
	}

	/* Walk properties and annotations together (both sorted by name). */
	for (int k = 0, a = 0; k < nprops || a < nannots;)
	{
		int			c = (k >= nprops) ? 1 : (a >= nannots) ? -1 : member_cmp(&props[k], &annots[a]);
		Member	   *m;
		EdmType		type;
		char		ex[TS_EXCERPT_BUF];

		if (c > 0)
		{
			ts_fail(err, TSE_INVALID_TYPE, "an odata.type annotation names \"%s\", which is not in the entity",
					ts_excerpt(ex, sizeof(ex), annots[a].name, annots[a].name_len));
			return NULL;
		}
		m = &props[k++];
		type = inferred_type(&m->val);
		if (c == 0)
		{
			Member	   *an = &annots[a++];

			if (a < nannots && member_cmp(an, &annots[a]) == 0)
			{
				ts_fail(err, TSE_DUPLICATE_PROPERTY, "the annotation \"%s@odata.type\" is given more than once",
						ts_excerpt(ex, sizeof(ex), an->name, an->name_len));
				return NULL;
			}
			if (an->val.kind != JK_STRING || !decode_string(&ps, &an->val) ||
				(type = edm_type_from_name(an->val.p, an->val.len)) == EDM_NONE)
			{
				if (err->code != TSE_NONE)
					return NULL;
				ts_fail(err, TSE_INVALID_TYPE, "the type annotation of \"%s\" is not a known Edm type",
						ts_excerpt(ex, sizeof(ex), m->name, m->name_len));
				ts_fail_detail(err, "Known types: Edm.String, Edm.Int32, Edm.Int64, Edm.Double, Edm.Boolean, Edm.DateTime, Edm.Guid, Edm.Binary.");
				return NULL;
			}
		}
		if (m->val.kind == JK_NULL)
			continue;			/* null: the property is absent */
		if (!convert_value(&ps, m, type, slots[nout], &out[nout]))
			return NULL;
		nout++;
	}
	if (keys_apart)
		*keys_apart = keys;
	return entity_build(out, nout, &keys, keys_apart ? ENTITY_BUILD_KEYS_APART : 0, err);
}

Entity *
entity_from_json(const char *json, size_t len, TsError *err)
{
	return from_json(json, len, NULL, NULL, err);
}

Entity *
entity_from_json_keys_apart(const char *json, size_t len, EntityKeys *keys, size_t *consumed, TsError *err)
{
	return from_json(json, len, keys, consumed, err);
}

bool
json_read_string(const char *json, size_t len, size_t *pos, const char **val, uint32 *val_len, TsError *err)
{
	Parser		ps = {.s = json, .len = len, .i = *pos, .err = err};
	JsonVal		v;

	if (!scan_string(&ps, &v) || !decode_string(&ps, &v))
		return false;
	*val = v.p;
	*val_len = v.len;
	*pos = ps.i;
	return true;
}
