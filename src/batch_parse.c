/*
 * batch_parse.c - read an entity group transaction's operations document:
 *   [{"op": "insert", "entity": {...}, "if_match": "W/\"...\""}, ...]
 *
 * The document is JSON text: as the client sent it (execute_batch(text, text)) or as jsonb writes
 * it (execute_batch(text, jsonb)); its length is the payload that the 4 MiB rule measures. One
 * pass checks the JSON syntax of the whole document and counts the operations, so that the
 * document-wide rules are decided before any operation is looked at; a second pass reads each
 * operation, handing its entity to the entity parser, which reports where the entity ends.
 */
#include "batch.h"

#include "entity.h"
#include "etag.h"
#include "ts_table.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#define DOC_MAX_DEPTH 64

static const char *const op_names[] = {
	[OP_INSERT] = "insert", [OP_UPDATE] = "update", [OP_MERGE] = "merge",
	[OP_UPSERT_REPLACE] = "upsert_replace", [OP_UPSERT_MERGE] = "upsert_merge", [OP_DELETE] = "delete"
};

void
batch_op_error(int index, TsErrorCode code, const char *fmt,...)
{
	TsError		err = {0};
	va_list		ap;
	char		prefix[32];

	err.code = code;
	va_start(ap, fmt);
	vsnprintf(err.msg, sizeof(err.msg), fmt, ap);
	va_end(ap);
	snprintf(prefix, sizeof(prefix), "operation %d: ", index);
	ts_raise_prefixed(&err, prefix);
}

static void
raise_for_operation(int index, const TsError *err)
{
	char		prefix[32];

	snprintf(prefix, sizeof(prefix), "operation %d: ", index);
	ts_raise_prefixed(err, prefix);
}

/* ---------- pass 1: syntax and the number of operations ---------- */

static void
syntax_error(const char *s, size_t off, const char *what)
{
	int			chars = 1;

	for (size_t k = 0; k < off; k++)
		chars += ((unsigned char) s[k] & 0xC0) != 0x80;
	ts_raisef(TSE_BATCH_MALFORMED, "the operations are not valid JSON: %s at character %d", what, chars);
}

static size_t
skip_ws(const char *s, size_t len, size_t i)
{
	while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
		i++;
	return i;
}

/* Step over the string whose opening quote is s[i]. */
static size_t
skip_string(const char *s, size_t len, size_t i)
{
	for (i++; i < len && s[i] != '"'; i++)
	{
		unsigned char c = (unsigned char) s[i];

		if (c < 0x20)
			syntax_error(s, i, "a control character in a string");
		if (c != '\\')
			continue;
		if (i + 1 >= len || strchr("\"\\/bfnrtu", s[i + 1]) == NULL || s[i + 1] == '\0')
			syntax_error(s, i, "an invalid escape");
		if (s[i + 1] == 'u')
		{
			if (i + 6 > len || edm_hexval(s[i + 2]) < 0 || edm_hexval(s[i + 3]) < 0 ||
				edm_hexval(s[i + 4]) < 0 || edm_hexval(s[i + 5]) < 0)
				syntax_error(s, i, "\\u without four hex digits");
			i += 4;
		}
		i++;
	}
	if (i >= len)
		syntax_error(s, len, "an unterminated string");
	return i + 1;
}

/* Step over a number or literal starting at s[i]. */
static size_t
skip_scalar(const char *s, size_t len, size_t i)
{
	static const char *const words[] = {"true", "false", "null"};
	size_t		start = i;

	for (int w = 0; w < (int) lengthof(words); w++)
	{
		size_t		wl = strlen(words[w]);

		if (len - i >= wl && memcmp(s + i, words[w], wl) == 0)
			return i + wl;
	}
	while (i < len && strchr("+-.0123456789eE", s[i]) != NULL && s[i] != '\0')
		i++;
	if (i == start)
		syntax_error(s, i, "a value was expected");
	return i;
}

/* Step over a member name and its ':' (s[i] should be the name's opening quote). */
static size_t
skip_member_name(const char *s, size_t len, size_t i)
{
	if (i >= len || s[i] != '"')
		syntax_error(s, i, "a member name was expected");
	i = skip_ws(s, len, skip_string(s, len, i));
	if (i >= len || s[i] != ':')
		syntax_error(s, i, "':' was expected");
	return i + 1;
}

/* Check the whole document's syntax; returns the number of elements of its top-level array. */
static int
prescan(const char *s, size_t len)
{
	char		stack[DOC_MAX_DEPTH];
	int			depth = 0,
				count = 0;
	size_t		i = skip_ws(s, len, 0);

	if (i >= len || s[i] != '[')
		ts_raisef(TSE_BATCH_MALFORMED, "operations must be a JSON array of operation objects");
	for (;;)
	{
		/* a value (or the end of an empty container) */
		i = skip_ws(s, len, i);
		if (i >= len)
			syntax_error(s, i, "the document ends early");
		if (s[i] == '[' || s[i] == '{')
		{
			if (depth == DOC_MAX_DEPTH)
				syntax_error(s, i, "values nested too deeply");
			stack[depth++] = s[i] == '[' ? ']' : '}';
			i = skip_ws(s, len, i + 1);
			if (i < len && s[i] == stack[depth - 1])
			{
				depth--;
				i++;
			}
			else if (stack[depth - 1] == '}')
			{
				i = skip_member_name(s, len, i);
				continue;
			}
			else
			{
				if (depth == 1)
					count++;
				continue;
			}
		}
		else if (s[i] == '"')
			i = skip_string(s, len, i);
		else
			i = skip_scalar(s, len, i);
		if (depth == 0)
			break;
		/* after a value: ',' and the next one, or the end of containers */
		for (;;)
		{
			i = skip_ws(s, len, i);
			if (i < len && s[i] == stack[depth - 1])
			{
				i++;
				if (--depth == 0)
					break;
				continue;
			}
			if (i >= len)
				syntax_error(s, i, "the document ends early");
			if (s[i] != ',')
				syntax_error(s, i, "',' or the end of an object or array was expected");
			i = skip_ws(s, len, i + 1);
			if (stack[depth - 1] == '}')
				i = skip_member_name(s, len, i);
			else if (depth == 1)
				count++;
			break;
		}
		if (depth == 0)
			break;
	}
	if (skip_ws(s, len, i) != len)
		syntax_error(s, skip_ws(s, len, i), "text after the array");
	return count;
}

/* ---------- pass 2: the operations ---------- */

typedef struct Doc
{
	const char *s;
	size_t		len;
	size_t		i;
} Doc;

static void
read_string(Doc *d, int index, const char **val, uint32 *len)
{
	TsError		err = {0};

	if (!json_read_string(d->s, d->len, &d->i, val, len, &err))
		raise_for_operation(index, &err);
}

static void
read_entity(Doc *d, int index, BatchOp *op, MemoryContext keep)
{
	TsError		err = {0};
	EntityKeys	keys;
	size_t		used = 0;
	Entity	   *e;
	MemoryContext old;

	if (d->s[d->i] != '{')
		batch_op_error(index, TSE_BATCH_MALFORMED, "\"entity\" must be a JSON object");
	e = entity_from_json_keys_apart(d->s + d->i, d->len - d->i, &keys, &used, &err);
	if (e == NULL)
		raise_for_operation(index, &err);
	d->i += used;
	if (!keys.has_pk || !keys.has_rk)
		batch_op_error(index, TSE_MISSING_KEY, "the entity has no %s", keys.has_pk ? "RowKey" : "PartitionKey");
	old = MemoryContextSwitchTo(keep);
	op->pk = cstring_to_text_with_len(keys.pk, keys.pk_len);
	op->rk = cstring_to_text_with_len(keys.rk, keys.rk_len);
	op->props = memcpy(palloc(VARSIZE(e)), e, VARSIZE(e));
	MemoryContextSwitchTo(old);
}

/* Read the operation object at d->i into op (its results allocated in keep). */
static void
read_operation(Doc *d, int index, BatchOp *op, MemoryContext keep)
{
	bool		have_op = false,
				have_entity = false,
				have_if_match = false;
	char		ex[TS_EXCERPT_BUF];

	op->index = index;
	if (d->s[d->i] != '{')
		batch_op_error(index, TSE_BATCH_MALFORMED, "an operation must be a JSON object {\"op\", \"entity\", \"if_match\"}");
	d->i = skip_ws(d->s, d->len, d->i + 1);
	while (d->s[d->i] != '}')
	{
		const char *key;
		uint32		klen;
		bool	   *seen;

		read_string(d, index, &key, &klen);
		d->i = skip_ws(d->s, d->len, skip_ws(d->s, d->len, d->i) + 1);	/* ':' */
		seen = (klen == 2 && memcmp(key, "op", 2) == 0) ? &have_op :
			(klen == 6 && memcmp(key, "entity", 6) == 0) ? &have_entity :
			(klen == 8 && memcmp(key, "if_match", 8) == 0) ? &have_if_match : NULL;
		if (seen == NULL)
			batch_op_error(index, TSE_BATCH_MALFORMED, "unknown member \"%s\" (an operation has op, entity and if_match)",
						   ts_excerpt(ex, sizeof(ex), key, klen));
		if (*seen)
			batch_op_error(index, TSE_BATCH_MALFORMED, "the member \"%s\" is given more than once",
						   ts_excerpt(ex, sizeof(ex), key, klen));
		*seen = true;
		if (seen == &have_entity)
			read_entity(d, index, op, keep);
		else
		{
			const char *val;
			uint32		vlen;

			if (d->s[d->i] != '"')
				batch_op_error(index, seen == &have_op ? TSE_BATCH_MALFORMED : TSE_INVALID_ETAG,
							   "\"%s\" must be a string", seen == &have_op ? "op" : "if_match");
			read_string(d, index, &val, &vlen);
			if (seen == &have_op)
			{
				int			k;

				for (k = 0; k < (int) lengthof(op_names); k++)
					if (strlen(op_names[k]) == vlen && memcmp(op_names[k], val, vlen) == 0)
						break;
				if (k == (int) lengthof(op_names))
					batch_op_error(index, TSE_BATCH_MALFORMED,
								   "unknown op \"%s\" (insert, update, merge, upsert_replace, upsert_merge or delete)",
								   ts_excerpt(ex, sizeof(ex), val, vlen));
				op->kind = (BatchOpKind) k;
			}
			else
			{
				MemoryContext old = MemoryContextSwitchTo(keep);

				op->if_match = cstring_to_text_with_len(val, vlen);
				MemoryContextSwitchTo(old);
			}
		}
		d->i = skip_ws(d->s, d->len, d->i);
		if (d->s[d->i] == ',')
			d->i = skip_ws(d->s, d->len, d->i + 1);
	}
	d->i++;
	if (!have_op)
		batch_op_error(index, TSE_BATCH_MALFORMED, "the operation has no \"op\"");
	if (!have_entity)
		batch_op_error(index, TSE_BATCH_MALFORMED, "the operation has no \"entity\"");
	if (op->if_match != NULL)
	{
		if (op->kind != OP_UPDATE && op->kind != OP_MERGE && op->kind != OP_DELETE)
			batch_op_error(index, TSE_BATCH_MALFORMED, "if_match applies to update, merge and delete only");
		if (!etag_if_match_valid(op->if_match))
			batch_op_error(index, TSE_INVALID_ETAG, "the If-Match value is neither * nor an ETag of the form W/\"...\"");
		if (VARSIZE_ANY_EXHDR(op->if_match) == 1)
			op->if_match = NULL;	/* "*" */
	}
}

BatchOp *
batch_parse(const char *doc, size_t len, int *n)
{
	MemoryContext keep = CurrentMemoryContext;
	MemoryContext scratch;
	BatchOp    *ops;
	Doc			d = {doc, len, 0};
	int			count;

	if (len > BATCH_MAX_BYTES)
		ts_raisef(TSE_BATCH_TOO_LARGE, "the batch is %zu bytes of JSON; the limit is %d", len, BATCH_MAX_BYTES);
	count = prescan(doc, len);
	if (count == 0)
		ts_raisef(TSE_BATCH_MALFORMED, "a batch needs at least one operation");
	if (count > BATCH_MAX_OPERATIONS)
		ts_raisef(TSE_BATCH_TOO_MANY, "the batch has %d operations; the limit is %d", count, BATCH_MAX_OPERATIONS);

	ops = palloc0(sizeof(BatchOp) * count);
	scratch = AllocSetContextCreate(keep, "tablestore batch parse", ALLOCSET_SMALL_SIZES);
	d.i = skip_ws(doc, len, skip_ws(doc, len, 0) + 1);	/* '[' */
	for (int i = 0; i < count; i++)
	{
		CHECK_FOR_INTERRUPTS();
		MemoryContextSwitchTo(scratch);
		read_operation(&d, i, &ops[i], keep);
		MemoryContextSwitchTo(keep);
		MemoryContextReset(scratch);
		if (i > 0 && ts_key_cmp(ops[i].pk, ops[0].pk) != 0)
		{
			char		a[TS_EXCERPT_BUF],
						b[TS_EXCERPT_BUF];

			batch_op_error(i, TSE_BATCH_PARTITIONS, "its PartitionKey \"%s\" is not the batch's \"%s\"",
						   ts_excerpt(a, sizeof(a), VARDATA_ANY(ops[i].pk), VARSIZE_ANY_EXHDR(ops[i].pk)),
						   ts_excerpt(b, sizeof(b), VARDATA_ANY(ops[0].pk), VARSIZE_ANY_EXHDR(ops[0].pk)));
		}
		d.i = skip_ws(doc, len, d.i);
		if (doc[d.i] == ',')
			d.i = skip_ws(doc, len, d.i + 1);
	}
	MemoryContextDelete(scratch);
	*n = count;
	return ops;
}
