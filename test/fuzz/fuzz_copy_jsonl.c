/*
 * fuzz_copy_jsonl.c - libFuzzer target: what tablestore-copy reads from a directory and its own
 * files (src/copy/jsonl.c, record.c, manifest.c): lines split from arbitrary bytes, each read as
 * an entity, as a manifest line and as a flat object.
 *
 * Properties: nothing crashes or leaks; an entity that is read, written as the program writes
 * entities and read again, has the same checksum (Timestamp included): the files are lossless;
 * a manifest line that is accepted has a valid table name and non-negative counts.
 */
#include "postgres_fe.h"

#include "fuzz.h"
#include "jsonl.h"
#include "manifest.h"
#include "mem.h"
#include "record.h"

int			LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	JsonlReader *r = jsonl_open_mem((const char *) data, size);
	const char *line,
			   *why;
	size_t		len;
	int			lines = 0;

	while (lines++ < 64 && jsonl_next(r, &line, &len, &why) == 1)
	{
		TsError		err = {0};
		Record		rec,
					back;
		ManifestLine m;
		JFlat		f;

		if (record_from_json(line, len, &rec, &err))
		{
			StringInfoData out;
			TsError		err2 = {0};
			Sum128		a,
						b;

			initStringInfo(&out);
			record_append_json(&out, &rec, REC_JSON_KEYS | REC_JSON_TIMESTAMP);
			FUZZ_CHECK(record_from_json(out.data, out.len, &back, &err2), "an entity written reads back");
			a = record_checksum(&rec, true);
			b = record_checksum(&back, true);
			FUZZ_CHECK(a.lo == b.lo && a.hi == b.hi, "an entity written reads back the same (checksum)");
		}
		else
			FUZZ_CHECK(err.code != TSE_NONE && err.msg[0] != '\0', "a refused entity says why");
		memset(&err, 0, sizeof(err));
		if (manifest_parse_line(line, len, &m, &err))
		{
			FUZZ_CHECK(m.entities >= 0 && m.partitions >= 0 && m.tables >= 0, "counts are not negative");
			FUZZ_CHECK(m.kind == MANIFEST_HEADER || m.kind == MANIFEST_END || m.table != NULL, "a table line names its table");
			manifest_line_free(&m);
		}
		memset(&err, 0, sizeof(err));
		(void) jflat_parse(line, len, &f, &err);
	}
	jsonl_close_read(r);
	fuzz_reset();
	return 0;
}

#include "endpoint.h"
bool
copy_fail(CopyError *e, const char *fmt,...)
{
	e->msg[0] = '\0';
	return false;
}

int64
copy_now_ticks(void)
{
	return EDM_TICKS_PG_EPOCH;
}
