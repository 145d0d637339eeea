/*
 * fuzz_index.c - libFuzzer target: the entity index's codecs and key ranges (index_key.h), the
 * indexing policy's parser (index_policy.h) and the property filter's binary form (prop_filter.h).
 *
 * The first byte chooses what the rest is:
 *   0  an indexing policy's JSON: a parsed policy's normal form parses to the same policy, and
 *      its operator class options give it back;
 *   1  a property_filter's stored form: one that reads back builds the same bytes, and its text
 *      form parses to the same filter;
 *   2  a property value and a comparison (op, literal): the index never misses an entity the
 *      comparison holds for (its key is in a range of the comparison, at or after the range's
 *      first key, and the range's test accepts it), and a key the index says matches for sure
 *      (an exact key, a whole type, a number, an uncut String or Binary) is one it holds for.
 */
#include "postgres_fe.h"

#include "fuzz.h"
#include "index_key.h"
#include "index_policy.h"
#include "prop_filter.h"

#include <math.h>

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
policies(const uint8_t *data, size_t size)
{
	IndexPolicy p,
				again,
				opts;
	TsError		err = {0};
	StringInfoData json,
				inc,
				exc;

	if (!index_policy_parse((const char *) data, size, &p, &err))
	{
		FUZZ_CHECK(err.code == TSE_INDEX_POLICY && err.msg[0] != '\0', "a rejected policy has its error and a message");
		return;
	}
	initStringInfo(&json);
	index_policy_append_json(&json, &p);
	FUZZ_CHECK(index_policy_parse(json.data, json.len, &again, &err), "the normal form parses");
	FUZZ_CHECK(index_policy_equal(&p, &again), "the normal form is the same policy");
	if (p.consistent)
	{
		initStringInfo(&inc);
		initStringInfo(&exc);
		index_policy_options(&p, &inc, &exc);
		FUZZ_CHECK(index_policy_from_options(inc.data, exc.data, &opts, &err), "the options parse");
		FUZZ_CHECK(index_policy_equal(&p, &opts), "the options are the same policy");
	}
}

static void
filters(const uint8_t *data, size_t size)
{
	PropFilter	pf,
				back;
	TsError		err = {0};
	struct varlena *v;
	StringInfoData text;

	if (!prop_filter_read(data, (uint32) size, &pf, &err))
	{
		FUZZ_CHECK(err.code != TSE_NONE, "a rejected filter has an error");
		return;
	}
	v = prop_filter_build(pf.name, pf.name_len, pf.op, &pf.lit);
	FUZZ_CHECK(VARSIZE(v) - VARHDRSZ == size && memcmp(VARDATA(v), data, size) == 0, "a filter builds back to its bytes");
	initStringInfo(&text);
	prop_filter_append_text(&text, &pf);
	FUZZ_CHECK(prop_filter_parse(text.data, text.len, &back, &err), "the text form parses");
	v = prop_filter_build(back.name, back.name_len, back.op, &back.lit);
	FUZZ_CHECK(VARSIZE(v) - VARHDRSZ == size && memcmp(VARDATA(v), data, size) == 0, "the text form is the same filter");
}

/* A value of a type from the bytes (the stored form of entity_format.h); false when too short. */
static bool
take_value(const uint8_t **d, size_t *n, uint8 type, uint8 *buf, uint32 *len, const uint8 **val)
{
	int			fixed = edm_fixed_size((EdmType) type);

	if (fixed < 0)
	{
		uint32		want;

		if (*n < 1)
			return false;
		want = (**d) % 160;		/* across the cut at INDEX_KEY_VALUE_MAX */
		(*d)++;
		(*n)--;
		if (*n < want)
			want = (uint32) * n;
		*val = *d;
		*len = want;
		*d += want;
		*n -= want;
		return true;
	}
	if (*n < (size_t) fixed)
		return false;
	memcpy(buf, *d, fixed);
	*d += fixed;
	*n -= fixed;
	*len = (uint32) fixed;
	*val = buf;
	if (type == EDM_BOOLEAN)
		buf[0] &= 1;
	if (type == EDM_DOUBLE)
	{
		uint64		bits = ts_rd64(buf);
		double		x;

		memcpy(&x, &bits, 8);
		if (isnan(x))
			ts_wr64(buf, ENTITY_CANONICAL_NAN);		/* one NaN, as entities store it */
	}
	return true;
}

static void
ranges(const uint8_t *data, size_t size)
{
	PropRef		p = {"P", 1};
	OdLiteral	lit = {0};
	OdCmp		op;
	uint8		pbuf[16],
				lbuf[16];
	const uint8 *lv;
	uint32		llen;
	IndexKeyRange r[INDEX_KEY_MAX_RANGES];
	int			n;
	uint8		key[2 + INDEX_KEY_VALUE_MAX + 16];
	uint32		klen;
	IndexKeyView kv;
	bool		truth,
				found = false;

	if (size < 3)
		return;
	p.type = 1 + data[0] % EDM_TYPE_MAX;
	lit.type = (EdmType) (1 + data[1] % EDM_TYPE_MAX);
	op = (OdCmp) (data[2] % 6);
	data += 3;
	size -= 3;
	if (!take_value(&data, &size, p.type, pbuf, &p.val_len, &p.val) ||
		!take_value(&data, &size, lit.type, lbuf, &llen, &lv))
		return;
	switch (lit.type)
	{
		case EDM_STRING:
			lit.str = (const char *) lv;
			lit.len = llen;
			break;
		case EDM_BINARY:
			lit.bin = lv;
			lit.len = llen;
			break;
		case EDM_INT32:
			lit.i32 = (int32) ts_rd32(lv);
			break;
		case EDM_INT64:
		case EDM_DATETIME:
			lit.i64 = (int64) ts_rd64(lv);
			break;
		case EDM_DOUBLE:
			{
				uint64		bits = ts_rd64(lv);

				memcpy(&lit.dbl, &bits, 8);
				if (!isfinite(lit.dbl))
					return;		/* literals are finite */
				break;
			}
		case EDM_BOOLEAN:
			lit.b = lv[0] & 1;
			break;
		case EDM_GUID:
			memcpy(lit.guid, lv, 16);
			break;
	}

	klen = index_key_encode(&p, key);
	FUZZ_CHECK(klen <= index_key_max_size(&p), "a key fits its size");
	FUZZ_CHECK(index_key_decode(key, klen, &kv), "a key decodes");
	FUZZ_CHECK(kv.prop.type == p.type && kv.prop.name_len == 1, "a key keeps its name and type");
	truth = odata_eval_prop(&p, op, &lit);
	n = index_key_ranges(p.name, p.name_len, op, &lit, r);
	for (int i = 0; i < n; i++)
	{
		int			t;
		bool		certain;

		if (r[i].type != p.type)
		{
			FUZZ_CHECK(index_key_range_test(&r[i], key, klen) != 0 || index_key_cmp(key, klen, r[i].lo, r[i].lo_len) < 0,
					   "another type's range does not take the key");
			continue;
		}
		if (r[i].exact)
			t = index_key_cmp(key, klen, r[i].lo, r[i].lo_len) == 0 ? 0 : -1;
		else if (index_key_cmp(key, klen, r[i].lo, r[i].lo_len) < 0)
			t = -1;				/* before the range: the scan never sees it */
		else
			t = index_key_range_test(&r[i], key, klen);
		certain = r[i].exact || r[i].all || (p.type != EDM_STRING && p.type != EDM_BINARY) || !kv.cut;
		if (t == 0)
		{
			found = true;
			if (certain)
				FUZZ_CHECK(truth, "a key the index takes for sure matches");
		}
	}
	if (truth)
		FUZZ_CHECK(found, "the index finds every entity the comparison holds for");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 64 * 1024)
		return 0;
	switch (data[0] % 3)
	{
		case 0:
			policies(data + 1, size - 1);
			break;
		case 1:
			filters(data + 1, size - 1);
			break;
		default:
			ranges(data + 1, size - 1);
			break;
	}
	fuzz_reset();
	return 0;
}
