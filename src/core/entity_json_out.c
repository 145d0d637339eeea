/*
 * entity_json_out.c - write an entity in the Azure JSON form (contract §1): keys first, then the
 * properties in name order, each with an "@odata.type" annotation where JSON alone would lose the
 * type (Int64, DateTime, Guid, Binary, whole-number and non-finite Doubles). Backend-free.
 */
#include "entity_format.h"

static const char hexdigits[] = "0123456789abcdef";

void
entity_append_json_string(StringInfo out, const char *s, size_t len)
{
	size_t		run = 0;

	enlargeStringInfo(out, (int) len + 2);
	appendStringInfoCharMacro(out, '"');
	for (size_t i = 0; i < len; i++)
	{
		unsigned char c = (unsigned char) s[i];
		char		esc;

		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		appendBinaryStringInfo(out, s + run, (int) (i - run));
		run = i + 1;
		switch (c)
		{
			case '"':
				esc = '"';
				break;
			case '\\':
				esc = '\\';
				break;
			case '\b':
				esc = 'b';
				break;
			case '\f':
				esc = 'f';
				break;
			case '\n':
				esc = 'n';
				break;
			case '\r':
				esc = 'r';
				break;
			case '\t':
				esc = 't';
				break;
			default:
				esc = 0;
		}
		if (esc)
		{
			appendStringInfoCharMacro(out, '\\');
			appendStringInfoCharMacro(out, esc);
		}
		else
		{
			char		u[6] = {'\\', 'u', '0', '0', hexdigits[c >> 4], hexdigits[c & 15]};

			appendBinaryStringInfo(out, u, 6);
		}
	}
	appendBinaryStringInfo(out, s + run, (int) (len - run));
	appendStringInfoCharMacro(out, '"');
}

static void
append_annotation(StringInfo out, const PropRef *p)
{
	entity_append_json_string(out, p->name, p->name_len);
	out->len--;					/* reopen the name's string to add "@odata.type" */
	appendBinaryStringInfo(out, "@odata.type\":\"", 14);
	appendStringInfoString(out, edm_type_name(p->type));
	appendBinaryStringInfo(out, "\",", 2);
}

void
entity_append_prop_json(StringInfo out, const PropRef *p, int options)
{
	char		buf[64];
	int			n;
	bool		is_string,
				annotate;

	switch (p->type)
	{
		case EDM_STRING:
			entity_append_json_string(out, p->name, p->name_len);
			appendStringInfoCharMacro(out, ':');
			entity_append_json_string(out, (const char *) p->val, p->val_len);
			return;
		case EDM_INT32:
			entity_append_json_string(out, p->name, p->name_len);
			appendStringInfoCharMacro(out, ':');
			n = edm_format_int64((int32) ts_rd32(p->val), buf);
			appendBinaryStringInfo(out, buf, n);
			return;
		case EDM_BOOLEAN:
			entity_append_json_string(out, p->name, p->name_len);
			appendStringInfoString(out, p->val[0] ? ":true" : ":false");
			return;
		case EDM_DOUBLE:
			{
				uint64		bits = ts_rd64(p->val);
				double		d;

				memcpy(&d, &bits, 8);
				n = edm_format_double(d, buf, &is_string, &annotate);
				if ((options & ENTITY_JSON_FOR_JSONB) && d == 0 && (bits >> 63))
				{
					strcpy(buf, "-0");
					n = 2;
					is_string = true;
				}
				if (annotate)
					append_annotation(out, p);
				entity_append_json_string(out, p->name, p->name_len);
				appendStringInfoCharMacro(out, ':');
				if (is_string)
					entity_append_json_string(out, buf, n);
				else
					appendBinaryStringInfo(out, buf, n);
				return;
			}
		default:
			break;
	}

	/* The annotated string forms. */
	append_annotation(out, p);
	entity_append_json_string(out, p->name, p->name_len);
	appendStringInfoCharMacro(out, ':');
	switch (p->type)
	{
		case EDM_INT64:
			n = edm_format_int64((int64) ts_rd64(p->val), buf);
			entity_append_json_string(out, buf, n);
			break;
		case EDM_DATETIME:
			edm_format_datetime((int64) ts_rd64(p->val), buf);
			entity_append_json_string(out, buf, EDM_DATETIME_TEXT_LEN);
			break;
		case EDM_GUID:
			edm_format_guid(p->val, buf);
			entity_append_json_string(out, buf, EDM_GUID_TEXT_LEN);
			break;
		case EDM_BINARY:
			{
				size_t		blen = edm_base64_encoded_len(p->val_len);

				enlargeStringInfo(out, (int) blen + 2);
				out->data[out->len++] = '"';
				edm_base64_encode(p->val, p->val_len, out->data + out->len);
				out->len += (int) blen;
				out->data[out->len++] = '"';
				out->data[out->len] = '\0';
				break;
			}
		default:
			Assert(false);
	}
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
	for (uint32 i = 0; i < v->nprops; i++)
	{
		PropRef		p;

		entity_view_prop(v, i, &p);
		if (!first)
			appendStringInfoCharMacro(out, ',');
		first = false;
		entity_append_prop_json(out, &p, options);
	}
	appendStringInfoCharMacro(out, '}');
}
