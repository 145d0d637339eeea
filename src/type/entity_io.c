/*
 * entity_io.c - text and binary I/O for tablestore.entity, and the explicit casts to and from
 * jsonb.
 */
#include "entity.h"

#include "libpq/pqformat.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

PG_FUNCTION_INFO_V1(tablestore_entity_in);
PG_FUNCTION_INFO_V1(tablestore_entity_out);
PG_FUNCTION_INFO_V1(tablestore_entity_recv);
PG_FUNCTION_INFO_V1(tablestore_entity_send);
PG_FUNCTION_INFO_V1(tablestore_entity_to_jsonb);
PG_FUNCTION_INFO_V1(tablestore_jsonb_to_entity);

Datum
tablestore_entity_in(PG_FUNCTION_ARGS)
{
	char	   *s = PG_GETARG_CSTRING(0);
	TsError		err = {0};
	Entity	   *e;

	ts_require_utf8();
	e = entity_from_json(s, strlen(s), &err);
	if (e == NULL)
		ts_raise(&err);
	PG_RETURN_ENTITY_P(e);
}

Datum
tablestore_entity_out(PG_FUNCTION_ARGS)
{
	Entity	   *e = PG_GETARG_ENTITY_PP(0);
	EntityView	v;
	StringInfoData out;

	entity_view_of(&v, e);
	initStringInfo(&out);
	entity_append_json(&out, &v, 0);
	PG_RETURN_CSTRING(out.data);
}

/* The wire form is the stored body: its first byte is the format version. */
Datum
tablestore_entity_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	int			n = buf->len - buf->cursor;
	const uint8 *bytes = (const uint8 *) pq_getmsgbytes(buf, n);
	TsError		err = {0};
	Entity	   *e;

	ts_require_utf8();
	e = entity_from_binary(bytes, n, &err);
	if (e == NULL)
		ts_raise(&err);
	PG_RETURN_ENTITY_P(e);
}

/*
 * The view of an entity in today's form: a value stored by 0.3.0 with its order array is encoded
 * again, so that the wire form is the one canonical form of the entity.
 */
static void
entity_view_current(EntityView *v, Entity *e)
{
	entity_view_of(v, e);
	if (v->legacy_len > 0)
	{
		TsError		err = {0};
		Entity	   *r = entity_copy(v, &err);

		if (r == NULL)
			ts_raise(&err);
		entity_view_of(v, r);
	}
}

Datum
tablestore_entity_send(PG_FUNCTION_ARGS)
{
	Entity	   *e = PG_GETARG_ENTITY_PP(0);
	EntityView	v;
	StringInfoData buf;

	entity_view_current(&v, e);
	pq_begintypsend(&buf);
	pq_sendbytes(&buf, (const char *) v.body, v.len);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

/* Raise 22P05 when a String holds U+0000, which jsonb cannot hold. */
void
entity_check_jsonb_safe(const EntityView *v)
{
	for (uint32 i = 0; i < v->nprops; i++)
	{
		PropRef		p;

		entity_view_prop(v, i, &p);
		if (p.type == EDM_STRING && memchr(p.val, 0, p.val_len) != NULL)
		{
			char		ex[TS_EXCERPT_BUF];

			ereport(ERROR,
					(errcode(ERRCODE_UNTRANSLATABLE_CHARACTER),
					 errmsg("the String property \"%s\" contains U+0000, which jsonb cannot hold",
							ts_excerpt(ex, sizeof(ex), p.name, p.name_len))));
		}
	}
}

/*
 * entity -> jsonb: the JSON form, except that a Double -0 is written as the annotated string "-0"
 * (jsonb numbers have no negative zero; the entity input reads it back as -0). A String holding
 * U+0000 cannot be held by jsonb and is an error.
 */
Datum
tablestore_entity_to_jsonb(PG_FUNCTION_ARGS)
{
	Entity	   *e = PG_GETARG_ENTITY_PP(0);
	EntityView	v;
	StringInfoData out;

	entity_view_of(&v, e);
	entity_check_jsonb_safe(&v);
	initStringInfo(&out);
	entity_append_json(&out, &v, ENTITY_JSON_FOR_JSONB);
	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(out.data)));
}

Datum
tablestore_jsonb_to_entity(PG_FUNCTION_ARGS)
{
	Jsonb	   *jb = PG_GETARG_JSONB_P(0);
	char	   *text = JsonbToCString(NULL, &jb->root, VARSIZE(jb));
	TsError		err = {0};
	Entity	   *e;

	ts_require_utf8();
	e = entity_from_json(text, strlen(text), &err);
	if (e == NULL)
		ts_raise(&err);
	PG_RETURN_ENTITY_P(e);
}

/* tablestore.entity_to_binary(entity) -> bytea: the binary wire form (what send produces). */
PG_FUNCTION_INFO_V1(tablestore_entity_to_binary);
Datum
tablestore_entity_to_binary(PG_FUNCTION_ARGS)
{
	Entity	   *e = PG_GETARG_ENTITY_PP(0);
	EntityView	v;
	bytea	   *b;

	entity_view_current(&v, e);
	b = palloc(VARHDRSZ + v.len);
	SET_VARSIZE(b, VARHDRSZ + v.len);
	memcpy(VARDATA(b), v.body, v.len);
	PG_RETURN_BYTEA_P(b);
}

/* tablestore.entity_from_binary(bytea) -> entity: read the wire form exactly as recv does. */
PG_FUNCTION_INFO_V1(tablestore_entity_from_binary);
Datum
tablestore_entity_from_binary(PG_FUNCTION_ARGS)
{
	bytea	   *b = PG_GETARG_BYTEA_PP(0);
	TsError		err = {0};
	Entity	   *e;

	ts_require_utf8();
	e = entity_from_binary((const uint8 *) VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b), &err);
	if (e == NULL)
		ts_raise(&err);
	PG_RETURN_ENTITY_P(e);
}
