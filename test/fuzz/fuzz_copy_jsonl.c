/*
 * fuzz_copy_jsonl.c - libFuzzer target: what tablestore-copy reads from a directory and its own
 * files (src/copy/base/jsonl.c, record.c, manifest.c): lines split from arbitrary bytes, each read as
 * an entity, as a manifest line and as a flat object.
 *
 * Properties: nothing crashes or leaks; an entity that is read, written as the program writes
 * entities and read again, has the same checksum (Timestamp included): the files are lossless;
 * a manifest line that is accepted has a valid table name and non-negative counts. The keys of
 * two entities compare in UTF-16 order as a model says (both converted to UTF-16 code units,
 * compared unit by unit), antisymmetrically. The first line that is a filter (filter.c) matches
 * every entity read after it exactly when "not (filter)" does not (two-valued logic).
 */
#include "postgres_fe.h"

#include "filter.h"
#include "fuzz.h"
#include "jsonl.h"
#include "manifest.h"
#include "mem.h"
#include "record.h"

int			LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

/* s (valid UTF-8, as the core checks keys) as UTF-16 code units into out: their number */
static size_t
to_utf16(const char *s, uint32 len, uint16 *out)
{
	size_t		n = 0;

	for (uint32 i = 0; i < len;)
	{
		unsigned char c = (unsigned char) s[i];
		uint32		cp;
		int			k = c < 0x80 ? 0 : c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : 1;

		cp = k == 0 ? c : c & (0x3F >> k);
		for (i++; k > 0 && i < len; k--)
			cp = (cp << 6) | ((unsigned char) s[i++] & 0x3F);
		if (cp >= 0x10000)
		{
			out[n++] = (uint16) (0xD800 + ((cp - 0x10000) >> 10));
			out[n++] = (uint16) (0xDC00 + ((cp - 0x10000) & 0x3FF));
		}
		else
			out[n++] = (uint16) cp;
	}
	return n;
}

static int
model_utf16_cmp(const char *a, uint32 alen, const char *b, uint32 blen)
{
	uint16	   *ua = malloc(sizeof(uint16) * (alen + 1)),
			   *ub = malloc(sizeof(uint16) * (blen + 1));
	size_t		na = to_utf16(a, alen, ua),
				nb = to_utf16(b, blen, ub);
	int			c = 0;

	for (size_t i = 0; i < na && i < nb && c == 0; i++)
		c = ua[i] < ub[i] ? -1 : ua[i] > ub[i] ? 1 : 0;
	if (c == 0)
		c = (na > nb) - (na < nb);
	free(ua);
	free(ub);
	return c;
}

static int
sign(int c)
{
	return (c > 0) - (c < 0);
}

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	JsonlReader *r = jsonl_open_mem((const char *) data, size);
	const char *line,
			   *why;
	size_t		len;
	int			lines = 0;
	CopyFilter *filter = NULL,
			   *negated = NULL;
	char	   *prev_pk = NULL;
	uint32		prev_len = 0;

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
			if (prev_pk != NULL)
			{
				int			c = record_key_cmp_utf16(rec.pk, rec.pk_len, prev_pk, prev_len);

				FUZZ_CHECK(sign(c) == model_utf16_cmp(rec.pk, rec.pk_len, prev_pk, prev_len), "UTF-16 order is the model's");
				FUZZ_CHECK(sign(c) == -sign(record_key_cmp_utf16(prev_pk, prev_len, rec.pk, rec.pk_len)), "UTF-16 order is antisymmetric");
			}
			free(prev_pk);
			prev_pk = malloc(rec.pk_len + 1);
			memcpy(prev_pk, rec.pk, rec.pk_len);
			prev_len = rec.pk_len;
			if (filter != NULL)
				FUZZ_CHECK(filter_match(filter, &rec) != filter_match(negated, &rec), "a filter and its negation disagree");
		}
		else
		{
			FUZZ_CHECK(err.code != TSE_NONE && err.msg[0] != '\0', "a refused entity says why");
			if (filter == NULL && len < 2000)
			{
				char	   *text = malloc(len + 1),
						   *not_text = malloc(len + 8);
				TsError		ferr = {0};

				memcpy(text, line, len);
				text[len] = '\0';
				if (strlen(text) == len)
				{
					sprintf(not_text, "not (%s)", text);
					filter = filter_compile(text, &ferr);
					memset(&ferr, 0, sizeof(ferr));
					negated = filter ? filter_compile(not_text, &ferr) : NULL;
					if (negated == NULL)
					{
						filter_free(filter);
						filter = NULL;
					}
				}
				free(text);
				free(not_text);
			}
		}
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
	filter_free(filter);
	filter_free(negated);
	free(prev_pk);
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
