/*
 * entity_json_in.c - parse the Azure JSON form of an entity (contract §1) into the canonical form.
 *
 * One pass over the text collects the members of the flat object, pointing into the input where a
 * string has no escapes. Then: keys are checked, properties and their "@odata.type" annotations are
 * matched by name (both sorted), values are converted to their types, and entity_build encodes
 * the result, with the order the properties were written in, and enforces the limits. Timestamp
 * and odata.* members are server metadata and are dropped; a JSON null means "property absent".
 * Backend-free; errors come back in a TsError.
 */
#include "entity_format.h"
#include "json_lex.h"

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
	int			pos;			/* its place in the object: the order the properties were written */
	int			out;			/* (in ps->m) its index in the converted properties, or -1 */
	JsonToken	val;
} Member;

StaticAssertDecl(offsetof(Member, name) == offsetof(EntityNamed, name) &&
				 offsetof(Member, name_len) == offsetof(EntityNamed, name_len) &&
				 sizeof(Member) <= ENTITY_NAMED_MAX_SIZE, "a Member starts like an EntityNamed");

typedef struct Parser
{
	JsonLex		lx;
	TsError    *err;
	Member	   *m;
	int			n;
	int			cap;
	Member		local[32];
} Parser;

/* A value: a string, number, true, false or null (nested objects and arrays are refused). */
static bool
scan_value(Parser *ps, JsonToken *v)
{
	char		c = json_peek(&ps->lx);

	if (c == '{' || c == '[')
	{
		ts_fail(ps->err, TSE_INVALID_JSON,
				"invalid entity JSON at character %d: nested objects and arrays are not supported",
				ts_char_pos(ps->lx.s, ps->lx.i));
		ts_fail_detail(ps->err, "Property values are scalars; serialise structures into a String.");
		return false;
	}
	if (!json_next(&ps->lx, v))
		return false;
	if (v->kind < JT_STRING)
		return json_error(&ps->lx, v->pos, v->kind == JT_END ? "value expected" : "unexpected character");
	return true;
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
	EdmSystemProp sys;

	*keep = true;
	sys = edm_system_prop(name, len);
	if (sys == EDM_SYS_PARTITION_KEY)
		m->kind = MK_PK;
	else if (sys == EDM_SYS_ROW_KEY)
		m->kind = MK_RK;
	else if (sys == EDM_SYS_TIMESTAMP ||
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
		sys = edm_system_prop(name, base);
		if (sys == EDM_SYS_PARTITION_KEY || sys == EDM_SYS_ROW_KEY)
			m->kind = MK_KEY_ANNOT;
		else if (sys == EDM_SYS_TIMESTAMP)
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
	JsonLex    *lx = &ps->lx;

	if (json_peek(lx) != '{')
		return json_error(lx, lx->i, "an entity must be a JSON object");
	lx->i++;
	for (bool first = true;;)
	{
		JsonToken	key;
		Member	   *m;
		bool		keep;

		if (!json_next_member(lx, &first, &key, true))
			return false;
		if (key.kind == JT_RBRACE)
			break;
		m = add_member(ps);
		m->name = key.p;
		m->name_len = key.len;
		m->pos = ps->n - 1;
		m->out = -1;
		if (!scan_value(ps, &m->val) || !classify(ps, m, &keep))
			return false;
		if (!keep)
			ps->n--;
	}
	if (prefix)
		return true;
	if (json_peek(lx) != '\0')
		return json_error(lx, lx->i, "unexpected text after the object");
	return true;
}

/* Members compare by name (a Member starts like an EntityNamed). */
static inline int
member_cmp(const Member *x, const Member *y)
{
	return entity_name_cmp(x->name, x->name_len, y->name, y->name_len);
}

static bool
value_error(Parser *ps, const Member *m, EdmType type, EdmParse r)
{
	char		ex[TS_EXCERPT_BUF];

	ts_excerpt(ex, sizeof(ex), m->name, m->name_len);
	/* (the service answers InvalidInput for an Int64 out of range, OutOfRangeInput for the rest) */
	if (r == EDM_BAD_RANGE)
		return ts_fail(ps->err, type == EDM_INT64 ? TSE_INVALID_VALUE : TSE_OUT_OF_RANGE,
					   "the value of \"%s\" is out of range for %s", ex, edm_type_name(type));
	return ts_fail(ps->err, TSE_INVALID_VALUE, "the value of \"%s\" is not a valid %s",
				   ex, edm_type_name(type));
}

static bool
wrong_json_kind(Parser *ps, const Member *m, EdmType type)
{
	char		ex[TS_EXCERPT_BUF];

	ts_fail(ps->err, TSE_INVALID_TYPE, "the value of \"%s\" does not fit its type %s",
			ts_excerpt(ex, sizeof(ex), m->name, m->name_len), edm_type_name(type));
	ts_fail_detail(ps->err, "Int64, DateTime, Guid and Binary values are JSON strings; Int32 and Double are numbers (or strings of one); Boolean is true or false (or the string \"true\" or \"false\").");
	return false;
}

/* Convert one member's JSON value to its EDM type; fixed-width values go into slot. */
static bool
convert_value(Parser *ps, Member *m, EdmType type, uint8 *slot, PropRef *out)
{
	JsonToken  *v = &m->val;
	EdmParse	r = EDM_OK;

	out->name = m->name;
	out->name_len = m->name_len;
	out->type = (uint8) type;
	out->val = slot;
	out->val_len = (uint32) Max(edm_fixed_size(type), 0);
	if (v->kind == JT_STRING && !json_decode_string(&ps->lx, v))
		return false;
	switch (type)
	{
		case EDM_STRING:
			if (v->kind != JT_STRING)
				return wrong_json_kind(ps, m, type);
			out->val = (const uint8 *) v->p;
			out->val_len = v->len;
			break;
		case EDM_INT32:
			{
				int32		i32 = 0;

				if (v->kind != JT_NUMBER && v->kind != JT_STRING)
					return wrong_json_kind(ps, m, type);
				r = edm_parse_int32(v->p, v->len, &i32);
				ts_wr32(slot, (uint32) i32);
				break;
			}
		case EDM_INT64:
			{
				int64		i64 = 0;

				if (v->kind != JT_NUMBER && v->kind != JT_STRING)
					return wrong_json_kind(ps, m, type);
				r = edm_parse_int64(v->p, v->len, &i64);
				ts_wr64(slot, (uint64) i64);
				break;
			}
		case EDM_DOUBLE:
			{
				double		d = 0;
				uint64		bits;

				if (v->kind != JT_NUMBER && v->kind != JT_STRING)
					return wrong_json_kind(ps, m, type);
				r = edm_parse_double(v->p, v->len, v->kind == JT_STRING, &d);
				memcpy(&bits, &d, 8);
				ts_wr64(slot, bits);
				break;
			}
		case EDM_BOOLEAN:
			/* an annotated Boolean may also be the string "true" or "false", in any letter case */
			if (v->kind == JT_STRING)
			{
				if (v->len == 4 && pg_strncasecmp(v->p, "true", 4) == 0)
					slot[0] = 1;
				else if (v->len == 5 && pg_strncasecmp(v->p, "false", 5) == 0)
					slot[0] = 0;
				else
					r = EDM_BAD_SYNTAX;
				break;
			}
			if (v->kind != JT_TRUE && v->kind != JT_FALSE)
				return wrong_json_kind(ps, m, type);
			slot[0] = v->kind == JT_TRUE;
			break;
		case EDM_DATETIME:
			{
				int64		ticks = 0;

				if (v->kind != JT_STRING)
					return wrong_json_kind(ps, m, type);
				r = edm_parse_datetime_value(v->p, v->len, &ticks);
				ts_wr64(slot, (uint64) ticks);
				break;
			}
		case EDM_GUID:
			if (v->kind != JT_STRING)
				return wrong_json_kind(ps, m, type);
			r = edm_parse_guid(v->p, v->len, slot);
			break;
		case EDM_BINARY:
			{
				uint8	   *buf;
				size_t		n = 0;

				if (v->kind != JT_STRING)
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

/* The type a value has without an annotation (contract §1). */
static EdmType
inferred_type(const JsonToken *v)
{
	switch (v->kind)
	{
		case JT_STRING:
			return EDM_STRING;
		case JT_TRUE:
		case JT_FALSE:
			return EDM_BOOLEAN;
		case JT_NUMBER:
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
	if (m->val.kind == JT_NULL)
	{
		*key = "";				/* seen, absent */
		return true;
	}
	if (m->val.kind != JT_STRING)
		return ts_fail(ps->err, TSE_INVALID_KEY, "the %s must be a string", which);
	if (!json_decode_string(&ps->lx, &m->val))
		return false;
	*has = true;
	*key = m->val.p;
	*len = m->val.len;
	return true;
}

static bool
check_key_annotation(Parser *ps, Member *m)
{
	const char *which = edm_system_prop(m->name, m->name_len) == EDM_SYS_PARTITION_KEY ? "PartitionKey" : "RowKey";

	if (m->val.kind != JT_STRING || !json_decode_string(&ps->lx, &m->val) ||
		edm_type_from_name(m->val.p, m->val.len) != EDM_STRING)
		return ts_fail(ps->err, TSE_INVALID_TYPE, "the %s must be an Edm.String", which);
	return true;
}

/*
 * The order the properties out[0 .. n - 1] (sorted by name) were written in: order[k] is the index
 * in out of the k-th written, read off the object's members in their places (each converted
 * property noted its index in out there, in ps->m[place].out; the others hold -1).
 */
static int *
written_order(const Parser *ps, int n, int *order)
{
	int			k = 0;

	for (int p = 0; p < ps->n; p++)
		if (ps->m[p].out >= 0)
			order[k++] = ps->m[p].out;
	Assert(k == n);
	return order;
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
	int		   *order;
	int			last_pos = -1;
	PropRef		local_out[32];
	uint8		local_slots[32][16];
	int			local_order[32];
	bool		in_name_order = true;

	json_lex_init(&ps.lx, json, len, err, TSE_INVALID_JSON, "invalid entity JSON");
	ps.err = err;
	ps.m = ps.local;
	ps.n = 0;
	ps.cap = lengthof(ps.local);
	if (!scan_object(&ps, consumed != NULL))
		return NULL;
	if (consumed)
		*consumed = ps.lx.i;

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
	entity_sort_by_name(props, nprops, sizeof(Member));
	entity_sort_by_name(annots, nannots, sizeof(Member));
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
		order = local_order;
	}
	else
	{
		out = palloc(sizeof(PropRef) * nprops);
		slots = palloc(16 * (size_t) nprops);
		order = palloc(sizeof(int) * nprops);
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
			if (an->val.kind != JT_STRING || !json_decode_string(&ps.lx, &an->val) ||
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
		if (m->val.kind == JT_NULL)
			continue;			/* null: the property is absent */
		if (!convert_value(&ps, m, type, slots[nout], &out[nout]))
			return NULL;
		ps.m[m->pos].out = nout;
		in_name_order &= last_pos < m->pos;
		last_pos = m->pos;
		nout++;
	}
	if (keys_apart)
		*keys_apart = keys;
	return entity_build_ordered(out, nout, in_name_order ? NULL : written_order(&ps, nout, order),
								&keys, keys_apart ? ENTITY_BUILD_KEYS_APART : 0, err);
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
