/*
 * jsonb_sink.c - a JsonSink (core/entity/json_sink.h) that writes jsonb's binary form directly, without
 * JSON text to parse again and without a JsonbValue tree to sort and convert. Each open container
 * keeps its members' bytes; its end writes the container into its parent (keys in jsonb's order,
 * the last of equal keys kept). The layout is jsonb's on-disk one (utils/jsonb.h): a header, a
 * JEntry per key and value (an end offset every JB_OFFSET_STRIDE), then the keys' bytes and the
 * values' bytes, numerics and containers aligned to 4 bytes from their container's start.
 * test/sql/page_jsonb.sql compares the result with jsonb's own parse of the same page as text.
 *
 * jsonb cannot hold U+0000 in a string: such a value is refused (22P05), and only a value
 * actually rendered is looked at.
 */
#include "jsonb_sink.h"

#include "lib/stringinfo.h"
#include "ts_report.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/numeric.h"

/* Up to this many members an object's keys are sorted by insertion; more by qsort. */
#define INSERTION_SORT_MAX 32

static JbFrame *
frame_at(JsonbSinkState *j, int depth)
{
	JbFrame    *f = &j->frame[depth];

	if (f->m == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(j->cxt);

		initStringInfo(&f->keys);
		initStringInfo(&f->vals);
		f->cap = 16;
		f->m = palloc(sizeof(JbMember) * f->cap);
		MemoryContextSwitchTo(old);
	}
	return f;
}

/* A member of the open container: its value's bytes are at vals[val_off..] already. */
static void
add_member(JsonbSinkState *j, uint32 type, int val_off)
{
	JbFrame    *f = &j->frame[j->depth - 1];
	JbMember   *m;

	if (f->n == f->cap)
	{
		if (f->cap >= (int) JB_CMASK / 2)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("a page cannot hold more than %d members in one jsonb container", f->cap)));
		f->cap *= 2;
		f->m = repalloc(f->m, sizeof(JbMember) * f->cap);
	}
	m = &f->m[f->n];
	m->type = type;
	m->val_off = val_off;
	m->val_len = f->vals.len - val_off;
	m->key_off = f->key_off;
	m->key_len = f->key_len;
	m->order = f->n;
	f->n++;
}

/* jsonb's key order: shorter first, then bytewise; of equal keys the later first (it is kept). */
static int
member_cmp(const void *a, const void *b, void *arg)
{
	const JbMember *x = (const JbMember *) a;
	const JbMember *y = (const JbMember *) b;
	const char *keys = (const char *) arg;
	int			c;

	if (x->key_len != y->key_len)
		return x->key_len > y->key_len ? 1 : -1;
	c = memcmp(keys + x->key_off, keys + y->key_off, x->key_len);
	if (c != 0)
		return c;
	return x->order > y->order ? -1 : 1;
}

static bool
same_key(const JbFrame *f, const JbMember *x, const JbMember *y)
{
	return x->key_len == y->key_len && memcmp(f->keys.data + x->key_off, f->keys.data + y->key_off, x->key_len) == 0;
}

/* An object's members in jsonb's order, duplicates dropped (the last written kept). */
static void
sort_members(JbFrame *f)
{
	int			kept;

	if (f->n <= INSERTION_SORT_MAX)
	{
		for (int i = 1; i < f->n; i++)
		{
			JbMember	m = f->m[i];
			int			k = i;

			while (k > 0 && member_cmp(&f->m[k - 1], &m, f->keys.data) > 0)
			{
				f->m[k] = f->m[k - 1];
				k--;
			}
			f->m[k] = m;
		}
	}
	else
		qsort_arg(f->m, f->n, sizeof(JbMember), member_cmp, f->keys.data);
	kept = f->n > 0 ? 1 : 0;
	for (int i = 1; i < f->n; i++)
	{
		if (same_key(f, &f->m[i], &f->m[kept - 1]))
			continue;
		f->m[kept++] = f->m[i];
	}
	f->n = kept;
}

static void
too_large(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("total size of jsonb container elements exceeds the maximum of %d bytes", JENTRY_OFFLENMASK),
			 errhint("Read the page as json (query_page_json), or lower tablestore.page_byte_budget.")));
}

/* One JEntry, its length added to the running total (an offset replaces it every stride). */
static void
put_jentry(StringInfo dst, int jentry_pos, int index, uint32 meta, uint32 *total)
{
	*total += meta & JENTRY_OFFLENMASK;
	if (*total > JENTRY_OFFLENMASK)
		too_large();
	if (index % JB_OFFSET_STRIDE == 0)
		meta = (meta & JENTRY_TYPEMASK) | *total | JENTRY_HAS_OFF;
	memcpy(dst->data + jentry_pos + index * sizeof(JEntry), &meta, sizeof(JEntry));
}

/*
 * The frame's container appended to dst, starting at dst->len, which the caller has aligned to 4
 * bytes from the start of the jsonb (padding inside is counted from the container's start).
 */
static void
write_container(JbFrame *f, StringInfo dst)
{
	int			start = dst->len;
	int			nentries;
	int			jentry_pos;
	int			index = 0;
	uint32		header;
	uint32		total = 0;

	if (f->object)
		sort_members(f);
	nentries = f->object ? 2 * f->n : f->n;
	header = (uint32) f->n | (f->object ? JB_FOBJECT : JB_FARRAY);
	appendBinaryStringInfo(dst, (const char *) &header, sizeof(uint32));
	jentry_pos = dst->len;
	enlargeStringInfo(dst, nentries * sizeof(JEntry));
	dst->len += nentries * sizeof(JEntry);
	if (f->object)
	{
		for (int i = 0; i < f->n; i++)
		{
			appendBinaryStringInfo(dst, f->keys.data + f->m[i].key_off, f->m[i].key_len);
			put_jentry(dst, jentry_pos, index++, JENTRY_ISSTRING | (uint32) f->m[i].key_len, &total);
		}
	}
	for (int i = 0; i < f->n; i++)
	{
		const JbMember *m = &f->m[i];
		int			pad = 0;

		if (m->type == JENTRY_ISNUMERIC || m->type == JENTRY_ISCONTAINER)
		{
			pad = INTALIGN(dst->len - start) - (dst->len - start);
			appendBinaryStringInfo(dst, "\0\0\0", pad);
		}
		appendBinaryStringInfo(dst, f->vals.data + m->val_off, m->val_len);
		put_jentry(dst, jentry_pos, index++, m->type | (uint32) (pad + m->val_len), &total);
	}
	/* the whole container, header and entries too, is its parent's entry's length */
	if (dst->len - start > JENTRY_OFFLENMASK)
		too_large();
	resetStringInfo(&f->keys);
	resetStringInfo(&f->vals);
	f->n = 0;
}

static void
jb_begin(JsonSink *s, bool object)
{
	JsonbSinkState *j = (JsonbSinkState *) s;
	JbFrame    *f;

	Assert(j->depth < JSON_MAX_DEPTH);
	f = frame_at(j, j->depth++);
	f->object = object;
	f->key_off = f->key_len = 0;
	s->bytes += 8;
}

static void
jb_end(JsonSink *s, bool object)
{
	JsonbSinkState *j = (JsonbSinkState *) s;
	JbFrame    *f = &j->frame[--j->depth];

	Assert(f->object == object);
	if (j->depth == 0)
	{
		StringInfoData out;

		initStringInfo(&out);
		appendStringInfoSpaces(&out, VARHDRSZ);
		write_container(f, &out);
		SET_VARSIZE(out.data, out.len);
		j->result = (Jsonb *) out.data;
	}
	else
	{
		JbFrame    *parent = &j->frame[j->depth - 1];
		int			off = parent->vals.len;

		write_container(f, &parent->vals);
		add_member(j, JENTRY_ISCONTAINER, off);
	}
}

static void
jb_key(JsonSink *s, const char *name, size_t len)
{
	JsonbSinkState *j = (JsonbSinkState *) s;
	JbFrame    *f = &j->frame[j->depth - 1];

	Assert(f->object);
	f->key_off = f->keys.len;
	f->key_len = (int) len;
	appendBinaryStringInfo(&f->keys, name, (int) len);
	s->bytes += len + 8;
}

static void
jb_value(JsonSink *s, JsonValueKind kind, const char *text, size_t len)
{
	JsonbSinkState *j = (JsonbSinkState *) s;
	JbFrame    *f = &j->frame[j->depth - 1];
	int			off = f->vals.len;

	switch (kind)
	{
		case JSON_VALUE_STRING:
			if (memchr(text, '\0', len) != NULL)
				ereport(ERROR,
						(errcode(ERRCODE_UNTRANSLATABLE_CHARACTER),
						 errmsg("a String holding U+0000 cannot be held by jsonb"),
						 errhint("Read the page as json (query_page_json), or leave the property out with $select.")));
			appendBinaryStringInfo(&f->vals, text, (int) len);
			add_member(j, JENTRY_ISSTRING, off);
			break;
		case JSON_VALUE_NUMBER:
			{
				char		buf[64];
				char	   *cstr = len < sizeof(buf) ? buf : palloc(len + 1);
				Numeric		num;

				memcpy(cstr, text, len);
				cstr[len] = '\0';
				num = DatumGetNumeric(DirectFunctionCall3(numeric_in, CStringGetDatum(cstr),
														  ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1)));
				appendBinaryStringInfo(&f->vals, (const char *) num, VARSIZE_ANY(num));
				add_member(j, JENTRY_ISNUMERIC, off);
				pfree(num);
				if (cstr != buf)
					pfree(cstr);
				break;
			}
		default:
			add_member(j, kind == JSON_VALUE_TRUE ? JENTRY_ISBOOL_TRUE : JENTRY_ISBOOL_FALSE, off);
			break;
	}
	s->bytes += len + 8;
}

static void
jb_null(JsonSink *s)
{
	JsonbSinkState *j = (JsonbSinkState *) s;

	add_member(j, JENTRY_ISNULL, j->frame[j->depth - 1].vals.len);
	s->bytes += 8;
}

void
jsonb_sink_init(JsonbSinkState *j, MemoryContext cxt)
{
	memset(j, 0, sizeof(JsonbSinkState));
	j->pub.begin = jb_begin;
	j->pub.end = jb_end;
	j->pub.key = jb_key;
	j->pub.value = jb_value;
	j->pub.null = jb_null;
	j->cxt = cxt;
}

Jsonb *
jsonb_sink_result(JsonbSinkState *j)
{
	Assert(j->depth == 0 && j->result != NULL);
	return j->result;
}
