/*
 * fuzz_entity_binary.c - libFuzzer target: the binary entity input (entity_from_binary, what recv
 * and entity_from_binary(bytea) run).
 *
 * Properties: a rejected input has an error; an accepted one is canonical (its bytes are the
 * input's), its JSON parses back to the same bytes (the order written included) and its form holds
 * (fuzz_check_form).
 */
#include "postgres_fe.h"

#include "entity_format.h"
#include "fuzz.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
	else
	{
		FUZZ_CHECK(VARSIZE(e) - VARHDRSZ == size && memcmp(VARDATA(e), data, size) == 0,
				   "an accepted binary input is kept byte for byte (only canonical forms pass)");
		fuzz_check_json_roundtrip(e);
		fuzz_check_form(e);
	}
	fuzz_reset();
	return 0;
}
