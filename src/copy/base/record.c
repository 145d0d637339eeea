/*
 * record.c - entities in transit: JSON in and out through the core, the canonical checksum
 * (record.h).
 */
#include "record.h"
#include "json_lex.h"
#include "mem.h"

#include <xxhash.h>

/* The Timestamp member of a flat entity object, in ticks (0 when there is none). */
static bool
find_timestamp(const char *json, size_t len, int64 *ticks, TsError *err)
{
	JsonLex		lx;
	JsonToken	t,
				name,
				val;

	*ticks = 0;
	json_lex_init(&lx, json, len, err, TSE_INVALID_JSON, "invalid entity JSON");
	if (!json_expect(&lx, &t, JT_LBRACE, "an entity must be a JSON object"))
		return false;
	for (bool first = true;;)
	{
		if (!json_next_member(&lx, &first, &name, false))
			return false;
		if (name.kind == JT_RBRACE)
			return true;
		if (json_peek(&lx) == '{' || json_peek(&lx) == '[')
			return json_error(&lx, lx.i, "nested objects and arrays are not supported");
		if (!json_next(&lx, &val))
			return false;
		if (val.kind < JT_STRING)
			return json_error(&lx, val.pos, "a value was expected");
		if (!name.escaped && edm_system_prop(name.p, name.len) == EDM_SYS_TIMESTAMP && val.kind == JT_STRING)
		{
			if (!json_decode_string(&lx, &val))
				return false;
			if (edm_parse_datetime(val.p, val.len, ticks) != EDM_OK)
				return ts_fail(err, TSE_INVALID_VALUE, "the Timestamp is not a valid Edm.DateTime");
		}
	}
}

bool
record_from_json(const char *json, size_t len, Record *r, TsError *err)
{
	EntityKeys	keys;
	Entity	   *e;

	memset(r, 0, sizeof(*r));
	if (!find_timestamp(json, len, &r->ticks, err))
		return false;
	e = entity_from_json_keys_apart(json, len, &keys, NULL, err);
	if (e == NULL)
		return false;
	if (!keys.has_pk || !keys.has_rk)
		return ts_fail(err, TSE_MISSING_KEY, "an entity needs a %s", keys.has_pk ? "RowKey" : "PartitionKey");
	r->pk = keys.pk;
	r->pk_len = keys.pk_len;
	r->rk = keys.rk;
	r->rk_len = keys.rk_len;
	r->body = (const uint8 *) VARDATA(e);
	r->body_len = VARSIZE(e) - VARHDRSZ;
	return true;
}

bool
record_set_body(Record *r, const uint8 *body, uint32 len, TsError *err)
{
	Entity	   *e = entity_from_binary(body, len, err);
	EntityKeys	keys = {.has_pk = true, .has_rk = true, .pk = r->pk, .pk_len = r->pk_len,
	.rk = r->rk, .rk_len = r->rk_len};
	EntityView	v;

	if (e == NULL)
		return false;
	entity_view_init(&v, (const uint8 *) VARDATA(e), VARSIZE(e) - VARHDRSZ);
	if (v.keys.has_pk || v.keys.has_rk)
		return ts_fail(err, TSE_INVALID_BINARY, "the properties of a stored row carry keys");
	if (!entity_check_key(r->pk, r->pk_len, "PartitionKey", err) ||
		!entity_check_key(r->rk, r->rk_len, "RowKey", err) || !entity_check_size(&v, &keys, err))
		return false;
	r->body = (const uint8 *) VARDATA(e);
	r->body_len = VARSIZE(e) - VARHDRSZ;
	return true;
}

static void
append_key(StringInfo out, const char *name, const char *s, uint32 len, bool *first)
{
	if (!*first)
		appendStringInfoChar(out, ',');
	*first = false;
	appendStringInfoChar(out, '"');
	appendStringInfoString(out, name);
	appendBinaryStringInfo(out, "\":", 2);
	entity_append_json_string(out, s, len);
}

void
record_append_json(StringInfo out, const Record *r, int flags)
{
	bool		first = true;
	EntityView	v;
	PropRef		local[ENTITY_LOCAL_PROPS];
	PropRef    *props;

	appendStringInfoChar(out, '{');
	if (flags & REC_JSON_KEYS)
	{
		append_key(out, "PartitionKey", r->pk, r->pk_len, &first);
		append_key(out, "RowKey", r->rk, r->rk_len, &first);
	}
	if ((flags & REC_JSON_TIMESTAMP) && r->ticks != 0)
	{
		char		buf[EDM_DATETIME_TEXT_LEN + 1];

		if (!first)
			appendStringInfoChar(out, ',');
		first = false;
		edm_format_datetime_trimmed(r->ticks, buf);
		appendStringInfo(out, "\"Timestamp@odata.type\":\"Edm.DateTime\",\"Timestamp\":\"%s\"", buf);
	}
	if (r->body == NULL)
	{
		appendStringInfoChar(out, '}');
		return;
	}
	entity_view_init(&v, r->body, r->body_len);
	props = v.nprops <= ENTITY_LOCAL_PROPS ? local : palloc(sizeof(PropRef) * v.nprops);
	entity_view_props_written(&v, props);
	for (uint32 k = 0; k < v.nprops; k++)
	{
		PropForm	f;

		if (!first)
			appendStringInfoChar(out, ',');
		first = false;
		entity_prop_form(&props[k], 0, &f);
		if (props[k].type != EDM_STRING)
			entity_append_annotation(out, props[k].name, props[k].name_len, edm_type_name(props[k].type));
		entity_append_json_string(out, props[k].name, props[k].name_len);
		appendStringInfoChar(out, ':');
		entity_append_json_value(out, &f);
	}
	if (props != local)
		pfree(props);
	appendStringInfoChar(out, '}');
}

/* the canonical bytes of the checksum, in a buffer of the thread's own (malloc'd, reused) */
typedef struct HashBuf
{
	char	   *data;
	size_t		len;
	size_t		cap;
} HashBuf;

static __thread HashBuf hashbuf;

static void
put(HashBuf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap)
	{
		b->cap = (b->len + n) * 2 + 256;
		b->data = mem_realloc(b->data, b->cap);
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

static void
put_u32(HashBuf *b, uint32 v)
{
	uint8		w[4];

	ts_wr32(w, v);
	put(b, w, 4);
}

Sum128
record_checksum(const Record *r, bool with_timestamp)
{
	HashBuf    *b = &hashbuf;
	Sum128		s;

	b->len = 0;
	put_u32(b, r->pk_len);
	put(b, r->pk, r->pk_len);
	put_u32(b, r->rk_len);
	put(b, r->rk, r->rk_len);
	if (r->body != NULL)
	{
		EntityView	v;

		entity_view_init(&v, r->body, r->body_len);
		put_u32(b, v.nprops);
		for (uint32 i = 0; i < v.nprops; i++)
		{
			PropRef		p;

			entity_view_prop(&v, i, &p);
			put_u32(b, p.name_len);
			put(b, p.name, p.name_len);
			put(b, &p.type, 1);
			put_u32(b, p.val_len);
			put(b, p.val, p.val_len);
		}
	}
	if (with_timestamp)
	{
		uint8		t[8];

		ts_wr64(t, (uint64) r->ticks);
		put(b, t, 8);
	}
	s.lo = XXH3_64bits_withSeed(b->data, b->len, 0x7461626c6573746fULL);	/* "tablesto" */
	s.hi = XXH3_64bits_withSeed(b->data, b->len, 0x72652d636f707931ULL);	/* "re-copy1" */
	return s;
}

void
sum128_hex(Sum128 s, char *buf)
{
	snprintf(buf, 33, "%016llx%016llx", (unsigned long long) s.hi, (unsigned long long) s.lo);
}

bool
sum128_parse(const char *s, size_t len, Sum128 *out)
{
	uint64		v[2] = {0, 0};

	if (len != 32)
		return false;
	for (size_t i = 0; i < 32; i++)
	{
		int			d = edm_hexval(s[i]);

		if (d < 0)
			return false;
		v[i / 16] = (v[i / 16] << 4) | (uint64) d;
	}
	out->hi = v[0];
	out->lo = v[1];
	return true;
}

/* the code point at s[*i] (valid UTF-8, as the core checks every key) */
static uint32
utf8_next(const unsigned char *s, uint32 len, uint32 *i)
{
	unsigned char c = s[(*i)++];
	int			n;
	uint32		cp;

	if (c < 0x80)
		return c;
	n = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : 1;
	cp = c & (0x3F >> n);
	while (n-- > 0 && *i < len)
		cp = (cp << 6) | (s[(*i)++] & 0x3F);
	return cp;
}

int
record_key_cmp_utf16(const char *a, uint32 alen, const char *b, uint32 blen)
{
	uint32		i = 0,
				j = 0;

	while (i < alen && j < blen)
	{
		uint32		ca = utf8_next((const unsigned char *) a, alen, &i);
		uint32		cb = utf8_next((const unsigned char *) b, blen, &j);

		if (ca != cb)
		{
			/* the first UTF-16 code unit: a high surrogate above U+FFFF */
			uint32		ua = ca >= 0x10000 ? 0xD800 + ((ca - 0x10000) >> 10) : ca;
			uint32		ub = cb >= 0x10000 ? 0xD800 + ((cb - 0x10000) >> 10) : cb;

			if (ua != ub)
				return ua < ub ? -1 : 1;
			return ca < cb ? -1 : 1;
		}
	}
	return (i < alen) - (j < blen);
}

static int
pair_cmp(int (*cmp) (const char *, uint32, const char *, uint32), const KeyOrder *o, const Record *r)
{
	int			c = cmp(r->pk, r->pk_len, o->last_pk, o->last_pk_len);

	return c != 0 ? c : cmp(r->rk, r->rk_len, o->last_rk, o->last_rk_len);
}

bool
key_order_next(KeyOrder *o, const Record *r)
{
	if (o->have_last)
	{
		bool		bytes_ok = o->bytes_ok && pair_cmp(record_key_cmp, o, r) > 0;
		bool		utf16_ok = o->utf16_ok && pair_cmp(record_key_cmp_utf16, o, r) > 0;

		if (!bytes_ok && !utf16_ok)
			return false;
		o->bytes_ok = bytes_ok;
		o->utf16_ok = utf16_ok;
	}
	else
		o->bytes_ok = o->utf16_ok = o->have_last = true;
	free(o->last_pk);
	free(o->last_rk);
	o->last_pk = mem_strndup(r->pk, r->pk_len);
	o->last_pk_len = r->pk_len;
	o->last_rk = mem_strndup(r->rk, r->rk_len);
	o->last_rk_len = r->rk_len;
	return true;
}

void
key_order_free(KeyOrder *o)
{
	free(o->last_pk);
	free(o->last_rk);
	memset(o, 0, sizeof(*o));
}

bool
record_table_name_ok(const char *s, size_t n)
{
	if (n < 3 || n > 63 || !((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z')))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9')))
			return false;
	return true;
}
