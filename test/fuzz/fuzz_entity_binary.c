/*
 * fuzz_entity_binary.c - libFuzzer target: the binary entity input (entity_from_binary, what recv
 * and entity_from_binary(bytea) run).
 *
 * Properties: a rejected input has an error; an accepted one is canonical (its bytes are the
 * input's) - or 0.3.0's form of it (the order as an array after the directory), which is read into
 * today's form: the input viewed as stored shows the same entity (the same JSON, equal, the same
 * name-order bytes); its JSON parses back to the same bytes (the order written included) and its
 * form holds (fuzz_check_form). 0.3.0's bytes of what was read (entity_legacy_form, what the
 * functions kept for 0.3.0's SQL compare and hash) are the input's when it was 0.3.0's form, and
 * read back into the same entity when it was today's.
 */
#include "postgres_fe.h"

#include "entity_format.h"
#include "fuzz.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* 0.3.0's bytes of v, in one buffer (allocated); their length in *len. */
static uint8 *
legacy_bytes(const EntityView *v, size_t *len)
{
	EntityLegacyForm f;
	uint8	   *buf;

	entity_legacy_form(v, &f);
	*len = (size_t) f.head_len + f.data_len;
	buf = palloc(*len + 1);
	memcpy(buf, f.head, f.head_len);
	if (f.data_len > 0)
		memcpy(buf + f.head_len, f.data, f.data_len);
	return buf;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	TsError		err = {0};
	struct varlena *e;

	if (size > 4 * 1024 * 1024)
		return 0;
	e = entity_from_binary(data, size, &err);
	if (e == NULL)
		FUZZ_CHECK(err.code != TSE_NONE && err.msg[0] != '\0', "a rejected input has an error code and a message");
	else if (data[1] & ENTITY_HAS_ORDER)
	{
		EntityView	legacy,
					now;
		StringInfoData a,
					b;

		FUZZ_CHECK(VARSIZE(e) - VARHDRSZ + ts_rd16(data + 2) == size && !(VARDATA(e)[1] & ENTITY_HAS_ORDER),
				   "0.3.0's form is read into today's, one byte per property shorter");
		entity_view_init(&legacy, data, (uint32) size);
		entity_view_init(&now, (const uint8 *) VARDATA(e), VARSIZE(e) - VARHDRSZ);
		initStringInfo(&a);
		initStringInfo(&b);
		entity_append_json(&a, &legacy, 0);
		entity_append_json(&b, &now, 0);
		FUZZ_CHECK(a.len == b.len && memcmp(a.data, b.data, a.len) == 0, "0.3.0's form as stored shows the same JSON");
		FUZZ_CHECK(entity_eq_unordered(&legacy, &now) && entity_cmp_unordered(&legacy, &now) == 0,
				   "0.3.0's form as stored is equal to today's");
		fuzz_check_unordered(&legacy);
		{
			size_t		len;
			uint8	   *old = legacy_bytes(&now, &len);

			FUZZ_CHECK(len == size && memcmp(old, data, size) == 0,
					   "0.3.0's bytes of the form read are the bytes 0.3.0 stored");
		}
		fuzz_check_json_roundtrip(e);
		fuzz_check_form(e);
	}
	else
	{
		EntityView	v;
		size_t		len;
		uint8	   *old;
		struct varlena *back;

		FUZZ_CHECK(VARSIZE(e) - VARHDRSZ == size && memcmp(VARDATA(e), data, size) == 0,
				   "an accepted binary input is kept byte for byte (only canonical forms pass)");
		entity_view_init(&v, (const uint8 *) VARDATA(e), VARSIZE(e) - VARHDRSZ);
		old = legacy_bytes(&v, &len);
		if (!(data[1] & ENTITY_ORDER_IN_DIR))
			FUZZ_CHECK(len == size && memcmp(old, data, size) == 0, "without an order, 0.3.0's bytes are today's");
		else
		{
			back = entity_from_binary(old, len, &err);
			FUZZ_CHECK(back != NULL && VARSIZE(back) == VARSIZE(e) && memcmp(VARDATA(back), VARDATA(e), size) == 0,
					   "0.3.0's bytes of an entity with an order are read back into it");
		}
		fuzz_check_json_roundtrip(e);
		fuzz_check_form(e);
	}
	fuzz_reset();
	return 0;
}
