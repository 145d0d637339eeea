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
#include "json_lex.h"
#include "ts_support.h"
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
	char		prefix[TS_OPERATION_PREFIX_BUF];

	err.code = code;
	va_start(ap, fmt);
	ts_vformat(err.msg, sizeof(err.msg), fmt, ap);
	va_end(ap);
	ts_raise_prefixed(&err, ts_operation_prefix(prefix, index));
}

static void
raise_for_operation(int index, const TsError *err)
{
	char		prefix[TS_OPERATION_PREFIX_BUF];

	ts_raise_prefixed(err, ts_operation_prefix(prefix, index));
}

/* ---------- pass 1: syntax and the number of operations ---------- */

/* Check the whole document's syntax; returns the number of elements of its top-level array. */
static int
prescan(const char *s, size_t len)
{
	JsonLex		lx;
	TsError		err = {0};
	int			count;

	json_lex_init(&lx, s, len, &err, TSE_BATCH_MALFORMED, "the operations are not valid JSON");
	if (json_peek(&lx) != '[')
		ts_raisef(TSE_BATCH_MALFORMED, "operations must be a JSON array of operation objects");
	if (!json_skip_value(&lx, DOC_MAX_DEPTH, &count))
		ts_raise(&err);
	if (json_peek(&lx) != '\0')
	{
		json_error(&lx, lx.i, "text after the array");
		ts_raise(&err);
	}
	return count;
}

/* ---------- pass 2: the operations ---------- */

/* The next token, which must be a string: decoded. */
static void
read_string(JsonLex *lx, int index, const char **val, uint32 *len)
{
	JsonToken	t;

	if (!json_expect(lx, &t, JT_STRING, "a string was expected") || !json_decode_string(lx, &t))
		raise_for_operation(index, lx->err);
	*val = t.p;
	*len = t.len;
}

/*
 * The entity member, an object, or entity_json, a string holding an object's JSON text (a REST
 * sub-request's body, passed on unread): its properties and the keys it carries (checked
 * against the others later).
 */
static void
read_entity(JsonLex *d, int index, bool as_text, BatchOp *op, EntityKeys *keys, MemoryContext keep)
{
	TsError		err = {0};
	size_t		used = 0;
	Entity	   *e;
	MemoryContext old;

	if (as_text)
	{
		JsonToken	t;

		if (json_peek(d) != '"')
			batch_op_error(index, TSE_BATCH_MALFORMED, "\"entity_json\" must be a string");
		if (!json_next(d, &t) || !json_decode_string(d, &t))
			raise_for_operation(index, d->err);
		e = entity_from_json_keys_apart(t.p, t.len, keys, NULL, &err);
	}
	else
	{
		if (json_peek(d) != '{')
			batch_op_error(index, TSE_BATCH_MALFORMED, "\"entity\" must be a JSON object");
		e = entity_from_json_keys_apart(d->s + d->i, d->len - d->i, keys, &used, &err);
		d->i += used;
	}
	if (e == NULL)
		raise_for_operation(index, &err);
	old = MemoryContextSwitchTo(keep);
	if (keys->has_pk)
		op->pk = cstring_to_text_with_len(keys->pk, keys->pk_len);
	if (keys->has_rk)
		op->rk = cstring_to_text_with_len(keys->rk, keys->rk_len);
	op->props = memcpy(palloc(VARSIZE(e)), e, VARSIZE(e));
	MemoryContextSwitchTo(old);
}

/*
 * A key given beside the entity ("PartitionKey"/"RowKey" members, the keys of a REST
 * sub-request's URL): the same as the entity's, when the entity has one too.
 */
static void
take_key_member(int index, const char *which, const char *val, uint32 vlen, text **key, MemoryContext keep)
{
	MemoryContext old;

	if (*key != NULL)
	{
		if (VARSIZE_ANY_EXHDR(*key) != vlen || memcmp(VARDATA_ANY(*key), val, vlen) != 0)
			batch_op_error(index, TSE_INVALID_KEY, "the entity's %s is not the operation's", which);
		return;
	}
	old = MemoryContextSwitchTo(keep);
	*key = cstring_to_text_with_len(val, vlen);
	MemoryContextSwitchTo(old);
}

enum
{
	M_OP, M_ENTITY, M_IF_MATCH, M_PK, M_RK, M_ECHO, M_ENTITY_JSON, M__COUNT
};

static const char *const member_names[M__COUNT] = {"op", "entity", "if_match", "PartitionKey", "RowKey", "echo", "entity_json"};

/* Read the operation object at d->i into op (its results allocated in keep). */
static void
read_operation(JsonLex *d, int index, BatchOp *op, MemoryContext keep)
{
	bool		seen[M__COUNT] = {0};
	const char *key_val[2] = {NULL, NULL};
	uint32		key_len[2] = {0, 0};
	EntityKeys	keys = {0};
	char		ex[TS_EXCERPT_BUF];

	op->index = index;
	if (json_peek(d) != '{')
		batch_op_error(index, TSE_BATCH_MALFORMED, "an operation must be a JSON object {\"op\", \"entity\", \"if_match\"}");
	d->i++;
	/* (pass 1 checked the syntax) */
	for (bool first = true;;)
	{
		JsonToken	name;
		const char *key;
		uint32		klen;
		int			m;

		if (!json_next_member(d, &first, &name, true))
			raise_for_operation(index, d->err);
		if (name.kind == JT_RBRACE)
			break;
		key = name.p;
		klen = name.len;
		for (m = 0; m < M__COUNT; m++)
			if (strlen(member_names[m]) == klen && memcmp(member_names[m], key, klen) == 0)
				break;
		if (m == M__COUNT)
			batch_op_error(index, TSE_BATCH_MALFORMED,
						   "unknown member \"%s\" (an operation has op, entity or entity_json, if_match, PartitionKey, RowKey and echo)",
						   ts_excerpt(ex, sizeof(ex), key, klen));
		if (seen[m])
			batch_op_error(index, TSE_BATCH_MALFORMED, "the member \"%s\" is given more than once",
						   ts_excerpt(ex, sizeof(ex), key, klen));
		seen[m] = true;
		if ((m == M_ENTITY && seen[M_ENTITY_JSON]) || (m == M_ENTITY_JSON && seen[M_ENTITY]))
			batch_op_error(index, TSE_BATCH_MALFORMED, "an operation has \"entity\" or \"entity_json\", not both");
		if (m == M_ENTITY || m == M_ENTITY_JSON)
			read_entity(d, index, m == M_ENTITY_JSON, op, &keys, keep);
		else if (m == M_ECHO)
		{
			JsonToken	t;

			if (!json_next(d, &t) || (t.kind == JT_STRING && !json_decode_string(d, &t)))
				raise_for_operation(index, d->err);
			op->echo_at_level = t.kind == JT_STRING && row_json_metadata_from_name(t.p, t.len, &op->echo_level);
			if (!op->echo_at_level && t.kind != JT_TRUE && t.kind != JT_FALSE)
				batch_op_error(index, TSE_BATCH_MALFORMED,
							   "\"echo\" must be true, false or a metadata level (nometadata, minimalmetadata, fullmetadata)");
			op->echo = t.kind != JT_FALSE;
		}
		else
		{
			const char *val;
			uint32		vlen;

			if (json_peek(d) != '"')
				batch_op_error(index, m == M_IF_MATCH ? TSE_INVALID_ETAG : m == M_OP ? TSE_BATCH_MALFORMED : TSE_INVALID_KEY,
							   "\"%s\" must be a string", member_names[m]);
			read_string(d, index, &val, &vlen);
			if (m == M_OP)
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
			else if (m == M_IF_MATCH)
			{
				MemoryContext old = MemoryContextSwitchTo(keep);

				op->if_match = cstring_to_text_with_len(val, vlen);
				MemoryContextSwitchTo(old);
			}
			else
			{
				/* (kept until the entity, which may come later, has been read) */
				MemoryContext old = MemoryContextSwitchTo(keep);

				key_val[m - M_PK] = pnstrdup(val, vlen);
				key_len[m - M_PK] = vlen;
				MemoryContextSwitchTo(old);
			}
		}
	}
	if (!seen[M_OP])
		batch_op_error(index, TSE_BATCH_MALFORMED, "the operation has no \"op\"");
	if (!seen[M_ENTITY] && !seen[M_ENTITY_JSON])
	{
		/* a delete needs only its keys */
		if (op->kind != OP_DELETE || !seen[M_PK] || !seen[M_RK])
			batch_op_error(index, TSE_BATCH_MALFORMED, "the operation has no \"entity\"");
		op->props = entity_build(NULL, 0, NULL, 0, &(TsError) {0});
	}
	for (int k = 0; k < 2; k++)
	{
		if (key_val[k] != NULL)
		{
			TsError		err = {0};

			if (!entity_check_key(key_val[k], key_len[k], k == 0 ? "PartitionKey" : "RowKey", &err))
				raise_for_operation(index, &err);
			take_key_member(index, k == 0 ? "PartitionKey" : "RowKey", key_val[k], key_len[k],
							k == 0 ? &op->pk : &op->rk, keep);
		}
	}
	if (op->pk == NULL || op->rk == NULL)
		batch_op_error(index, TSE_MISSING_KEY, "the entity has no %s", op->pk ? "RowKey" : "PartitionKey");
	if (!keys.has_pk || !keys.has_rk)
	{
		/* keys given apart count in the size too */
		EntityView	v;
		EntityKeys	all = {.has_pk = true, .has_rk = true};
		TsError		err = {0};

		entity_view_of(&v, op->props);
		all.pk = VARDATA_ANY(op->pk);
		all.pk_len = VARSIZE_ANY_EXHDR(op->pk);
		all.rk = VARDATA_ANY(op->rk);
		all.rk_len = VARSIZE_ANY_EXHDR(op->rk);
		if (!entity_check_size(&v, &all, &err))
			raise_for_operation(index, &err);
	}
	if (op->echo && op->kind != OP_INSERT)
		batch_op_error(index, TSE_BATCH_MALFORMED, "echo applies to insert only");
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
batch_parse(const char *doc, size_t len, size_t max_bytes, int *n)
{
	MemoryContext keep = CurrentMemoryContext;
	MemoryContext scratch;
	BatchOp    *ops;
	JsonLex		d;
	TsError		err = {0};
	int			count;

	if (len > max_bytes)
		ts_raisef(TSE_BATCH_TOO_LARGE, "the batch is %zu bytes of JSON; the limit is %zu", len, max_bytes);
	count = prescan(doc, len);
	if (count == 0)
		ts_raisef(TSE_BATCH_MALFORMED, "a batch needs at least one operation");
	if (count > TS_BATCH_MAX_OPERATIONS)
		ts_raisef(TSE_BATCH_TOO_MANY, "the batch has %d operations; the limit is %d", count, TS_BATCH_MAX_OPERATIONS);

	ops = palloc0(sizeof(BatchOp) * count);
	scratch = AllocSetContextCreate(keep, "tablestore batch parse", ALLOCSET_SMALL_SIZES);
	json_lex_init(&d, doc, len, &err, TSE_BATCH_MALFORMED, "the operations are not valid JSON");
	json_peek(&d);
	d.i++;						/* '[' */
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
		if (json_peek(&d) == ',')
			d.i++;
	}
	MemoryContextDelete(scratch);
	*n = count;
	return ops;
}
