/*
 * entity_json_out.c - the JSON text of entity values (contract §1), the one owner of how each type
 * is written: entity_prop_form gives a property's JSON value and whether it needs an
 * "@odata.type" annotation; the text writers below and the row renderer (row_json.c) use it.
 *
 * An entity's text lists its keys, then its properties in the order they were written (contract
 * §1). As the service writes them: Int64, DateTime, Guid, Binary and the non-finite Doubles are JSON
 * strings with an annotation; a whole-number Double is written with ".0" (so it reads back as a
 * Double) and no annotation; DateTimes carry up to seven fractional digits, trailing zeros
 * dropped. Backend-free.
 */
#include "entity_format.h"
#include "json_lex.h"


void
entity_append_json_string(StringInfo out, const char *s, size_t len)
{
	size_t		run = 0;

	enlargeStringInfo(out, (int) len + 2);
	appendStringInfoCharMacro(out, '"');
	for (size_t i = 0; i < len; i++)
	{
		char		esc[6];
		int			n = json_escape_byte((unsigned char) s[i], esc);

		if (n == 0)
			continue;
		appendBinaryStringInfo(out, s + run, (int) (i - run));
		appendBinaryStringInfo(out, esc, n);
		run = i + 1;
	}
	appendBinaryStringInfo(out, s + run, (int) (len - run));
	appendStringInfoCharMacro(out, '"');
}

void
entity_prop_form(const PropRef *p, int options, PropForm *f)
{
	f->annotate = false;
	f->kind = JSON_VALUE_STRING;
	f->text = f->buf;
	switch (p->type)
	{
		case EDM_STRING:
			f->text = (const char *) p->val;
			f->len = p->val_len;
			return;
		case EDM_INT32:
			f->kind = JSON_VALUE_NUMBER;
			f->len = edm_format_int64((int32) ts_rd32(p->val), f->buf);
			return;
		case EDM_BOOLEAN:
			f->kind = p->val[0] ? JSON_VALUE_TRUE : JSON_VALUE_FALSE;
			f->text = p->val[0] ? "true" : "false";
			f->len = p->val[0] ? 4 : 5;
			return;
		case EDM_DOUBLE:
			{
				uint64		bits = ts_rd64(p->val);
				double		d;
				bool		is_string;

				memcpy(&d, &bits, 8);
				if ((options & ENTITY_JSON_FOR_JSONB) && d == 0 && (bits >> 63))
				{
					/* jsonb's numeric has no -0: the annotated string, read back as -0 */
					strcpy(f->buf, "-0");
					f->len = 2;
					f->annotate = true;
					return;
				}
				f->len = edm_format_double(d, f->buf, &is_string);
				f->annotate = is_string;
				if (!is_string)
					f->kind = JSON_VALUE_NUMBER;
				return;
			}
		case EDM_INT64:
			f->annotate = true;
			f->len = edm_format_int64((int64) ts_rd64(p->val), f->buf);
			return;
		case EDM_DATETIME:
			f->annotate = true;
			f->len = edm_format_datetime_trimmed((int64) ts_rd64(p->val), f->buf);
			return;
		case EDM_GUID:
			f->annotate = true;
			edm_format_guid(p->val, f->buf);
			f->len = EDM_GUID_TEXT_LEN;
			return;
		case EDM_BINARY:
			{
				size_t		blen = edm_base64_encoded_len(p->val_len);
				char	   *b = blen < sizeof(f->buf) ? f->buf : palloc(blen + 1);

				f->annotate = true;
				edm_base64_encode(p->val, p->val_len, b);
				f->text = b;
				f->len = blen;
				return;
			}
		default:
			Assert(false);
			f->len = 0;
	}
}

void
entity_append_json_value(StringInfo out, const PropForm *f)
{
	if (f->kind == JSON_VALUE_STRING)
		entity_append_json_string(out, f->text, f->len);
	else
		appendBinaryStringInfo(out, f->text, (int) f->len);
}

void
entity_append_annotation(StringInfo out, const char *name, size_t len, const char *type)
{
	entity_append_json_string(out, name, len);
	out->len--;					/* reopen the name's string to add "@odata.type" */
	appendBinaryStringInfo(out, "@odata.type\":\"", 14);
	appendStringInfoString(out, type);
	appendBinaryStringInfo(out, "\",", 2);
}

void
entity_append_prop_json(StringInfo out, const PropRef *p, int options)
{
	PropForm	f;

	entity_prop_form(p, options, &f);
	if (f.annotate && !(options & ENTITY_JSON_NO_ANNOTATIONS))
		entity_append_annotation(out, p->name, p->name_len, edm_type_name(p->type));
	entity_append_json_string(out, p->name, p->name_len);
	appendStringInfoCharMacro(out, ':');
	entity_append_json_value(out, &f);
}

void
entity_append_json(StringInfo out, const EntityView *v, int options)
{
	bool		first = true;

	enlargeStringInfo(out, (int) v->len * 2 + 16);
	appendStringInfoCharMacro(out, '{');
	if (v->keys.has_pk)
	{
		appendBinaryStringInfo(out, "\"PartitionKey\":", 15);
		entity_append_json_string(out, v->keys.pk, v->keys.pk_len);
		first = false;
	}
	if (v->keys.has_rk)
	{
		if (!first)
			appendStringInfoCharMacro(out, ',');
		appendBinaryStringInfo(out, "\"RowKey\":", 9);
		entity_append_json_string(out, v->keys.rk, v->keys.rk_len);
		first = false;
	}
	if (v->nprops > 0)
	{
		PropRef		local[ENTITY_LOCAL_PROPS];
		PropRef    *props = v->nprops <= ENTITY_LOCAL_PROPS ? local : palloc(sizeof(PropRef) * v->nprops);
		uint32		n = v->nprops;

		entity_view_props_written(v, props);
		for (uint32 k = 0; k < n; k++)
		{
			if (!first)
				appendStringInfoCharMacro(out, ',');
			first = false;
			entity_append_prop_json(out, &props[k], options);
		}
		if (props != local)
			pfree(props);
	}
	appendStringInfoCharMacro(out, '}');
}
