/*
 * fuzz_entity_json.c - libFuzzer target: the entity JSON input (entity_from_json).
 *
 * Properties checked on every input: a rejected input carries an error code and a message; an
 * accepted one writes JSON that parses back to the same bytes (the form is canonical: properties
 * in the order written), its form holds (fuzz_check_form), and its binary form passes the strict
 * binary input unchanged.
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
	e = entity_from_json((const char *) data, size, &err);
	if (e == NULL)
		FUZZ_CHECK(err.code != TSE_NONE && err.msg[0] != '\0', "a rejected entity has an error code and a message");
	else
	{
		TsError		err2 = {0};
		struct varlena *bin;

		fuzz_check_json_roundtrip(e);
		fuzz_check_form(e);
		bin = entity_from_binary((const uint8 *) VARDATA(e), VARSIZE(e) - VARHDRSZ, &err2);
		FUZZ_CHECK(bin != NULL, "the binary form of an accepted entity passes the binary input");
		FUZZ_CHECK(VARSIZE(bin) == VARSIZE(e) && memcmp(bin, e, VARSIZE(e)) == 0,
				   "binary output and input give back the same bytes");
	}
	fuzz_reset();
	return 0;
}
