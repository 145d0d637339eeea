/*
 * row_json.c - rows as the service's JSON entities (row_json.h).
 */
#include "row_json.h"

static void
put_string_info(void *sink, const char *s, size_t len)
{
	appendBinaryStringInfo((StringInfo) sink, s, (int) len);
}

void
row_json_append_key_path(StringInfo out, const char *table, const RowJson *r)
{
	appendStringInfoString(out, table);
	edm_put_key_path(put_string_info, out, r->pk, r->pk_len, r->rk, r->rk_len);
}

bool
row_json_metadata_from_name(const char *s, size_t len, JsonMetadata *m)
{
	if (len == 10 && memcmp(s, "nometadata", 10) == 0)
		*m = JSON_META_NONE;
	else if (len == 15 && memcmp(s, "minimalmetadata", 15) == 0)
		*m = JSON_META_MINIMAL;
	else if (len == 12 && memcmp(s, "fullmetadata", 12) == 0)
		*m = JSON_META_FULL;
	else
		return false;
	return true;
}

static void
write_prop(JsonSink *s, const RowJsonContext *c, const PropRef *p)
{
	PropForm	f;

	entity_prop_form(p, c->options, &f);
	if (f.annotate && c->metadata != JSON_META_NONE)
	{
		char		name[TS_MAX_NAME_UTF16 * 4 + 16];	/* names are at most 255 characters */

		memcpy(name, p->name, p->name_len);
		memcpy(name + p->name_len, "@odata.type", 11);
		s->key(s, name, p->name_len + 11);
		s->value(s, JSON_VALUE_STRING, edm_type_name(p->type), strlen(edm_type_name(p->type)));
	}
	s->key(s, p->name, p->name_len);
	s->value(s, f.kind, f.text, f.len);
}

static void
write_timestamp(JsonSink *s, const RowJsonContext *c, int64 ticks)
{
	char		buf[EDM_DATETIME_TEXT_LEN + 1];
	int			n = edm_format_datetime_trimmed(ticks, buf);

	if (c->metadata == JSON_META_FULL)
		json_sink_member(s, "Timestamp@odata.type", JSON_VALUE_STRING, "Edm.DateTime", 12);
	json_sink_member(s, "Timestamp", JSON_VALUE_STRING, buf, n);
}

void
row_json_write(JsonSink *s, const RowJsonContext *c, const RowJson *r, const char *metadata_url)
{
	const SelectList *sel = c->sel;

	s->begin(s, true);
	if (metadata_url != NULL && c->metadata != JSON_META_NONE)
		json_sink_member(s, "odata.metadata", JSON_VALUE_STRING, metadata_url, strlen(metadata_url));
	if (c->metadata == JSON_META_FULL)
	{
		StringInfoData buf;

		initStringInfo(&buf);
		appendStringInfo(&buf, "%s.%s", c->account, c->table);
		json_sink_member(s, "odata.type", JSON_VALUE_STRING, buf.data, buf.len);
		resetStringInfo(&buf);
		appendStringInfo(&buf, "%s/", c->base);
		row_json_append_key_path(&buf, c->table, r);
		json_sink_member(s, "odata.id", JSON_VALUE_STRING, buf.data, buf.len);
		json_sink_member(s, "odata.etag", JSON_VALUE_STRING, r->etag, r->etag_len);
		resetStringInfo(&buf);
		row_json_append_key_path(&buf, c->table, r);
		json_sink_member(s, "odata.editLink", JSON_VALUE_STRING, buf.data, buf.len);
		pfree(buf.data);
	}
	else if (c->metadata == JSON_META_MINIMAL)
		json_sink_member(s, "odata.etag", JSON_VALUE_STRING, r->etag, r->etag_len);

	if (sel == NULL || sel->pk)
		json_sink_member(s, "PartitionKey", JSON_VALUE_STRING, r->pk, r->pk_len);
	if (sel == NULL || sel->rk)
		json_sink_member(s, "RowKey", JSON_VALUE_STRING, r->rk, r->rk_len);
	if (sel == NULL || sel->ts)
		write_timestamp(s, c, r->ts_ticks);

	if (sel == NULL)
	{
		/* in the order written */
		PropRef		local[ENTITY_LOCAL_PROPS];
		uint32		n = r->props->nprops;
		PropRef    *props = n <= ENTITY_LOCAL_PROPS ? local : palloc(sizeof(PropRef) * n);

		entity_view_props_written(r->props, props);
		for (uint32 k = 0; k < n; k++)
			write_prop(s, c, &props[k]);
		if (props != local)
			pfree(props);
	}
	else
	{
		/* the listed properties in the order given, each once; one the entity lacks is null */
		for (int k = 0; k < sel->n; k++)
		{
			int			i;
			bool		dup = false;

			for (int j = 0; j < k && !dup; j++)
				dup = sel->lens[j] == sel->lens[k] && memcmp(sel->names[j], sel->names[k], sel->lens[k]) == 0;
			if (dup)
				continue;
			i = entity_view_find(r->props, sel->names[k], sel->lens[k]);
			if (i < 0)
			{
				s->key(s, sel->names[k], sel->lens[k]);
				s->null(s);
			}
			else
			{
				PropRef		p;

				entity_view_prop(r->props, i, &p);
				write_prop(s, c, &p);
			}
		}
	}
	s->end(s, true);
}
