/*
 * fuzz_etag_text.c - libFuzzer target: reading the text of an ETag (etag_text_parse), which reads
 * a row's stored etag whatever was written there.
 *
 * Properties checked on every input: a text read as either form carries a Timestamp in the
 * DateTime range, and the service's form of that Timestamp reads back as the service's form of the
 * same Timestamp, and is exactly what etag_text_format writes again (one text per Timestamp).
 * etag_text_same (If-Match's comparison): the input split in two halves compares as a model
 * says (both halves with each %3A or %3a read as ':', left to right, then byte for byte), both
 * ways round; the service's form is the same as its spelling with plain colons.
 */
#include "postgres_fe.h"

#include "edm.h"
#include "etag_text.h"
#include "fuzz.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The model of etag_text_same: s with each %3A or %3a read as ':', into out; its length. */
static size_t
colons_decoded(const char *s, size_t n, char *out)
{
	size_t		m = 0;

	for (size_t i = 0; i < n; i++)
	{
		if (s[i] == '%' && i + 2 < n && s[i + 1] == '3' && (s[i + 2] == 'A' || s[i + 2] == 'a'))
		{
			out[m++] = ':';
			i += 2;
		}
		else
			out[m++] = s[i];
	}
	return m;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int64		ticks = 0;
	EtagTextForm form;

	if (size > 4096)
		return 0;
	form = etag_text_parse((const char *) data, size, &ticks);
	if (form != ETAG_TEXT_OTHER)
	{
		char		buf[ETAG_TEXT_MAX];
		char		again[ETAG_TEXT_MAX];
		int			n;
		int64		back = 0;

		FUZZ_CHECK(ticks >= EDM_TICKS_MIN && ticks <= EDM_TICKS_MAX, "an ETag's Timestamp is in the DateTime range");
		n = etag_text_format(ticks, buf);
		FUZZ_CHECK(n > 0 && n < ETAG_TEXT_MAX && buf[n] == '\0', "the ETag text fits its buffer");
		FUZZ_CHECK(etag_text_parse(buf, n, &back) == ETAG_TEXT_SERVICE && back == ticks,
				   "the service's form reads back as the same Timestamp");
		FUZZ_CHECK(etag_text_format(back, again) == n && memcmp(buf, again, n) == 0, "one text per Timestamp");
		{
			char		plain[ETAG_TEXT_MAX];
			int			m = 0;

			for (int i = 0; i < n; i++)
			{
				if (buf[i] == '%' && i + 2 < n && buf[i + 1] == '3' && buf[i + 2] == 'A')
				{
					plain[m++] = ':';
					i += 2;
				}
				else
					plain[m++] = buf[i];
			}
			FUZZ_CHECK(etag_text_same(buf, n, plain, m) && etag_text_same(plain, m, buf, n),
					   "the service's form and its plain-colon spelling are the same ETag");
		}
	}
	{
		const char *a = (const char *) data,
				   *b = (const char *) data + size / 2;
		size_t		alen = size / 2,
					blen = size - size / 2;
		char		da[4096],
					db[4096];
		size_t		na = colons_decoded(a, alen, da),
					nb = colons_decoded(b, blen, db);
		bool		model = na == nb && memcmp(da, db, na) == 0;

		FUZZ_CHECK(etag_text_same(a, alen, b, blen) == model, "If-Match's comparison is the model's");
		FUZZ_CHECK(etag_text_same(b, blen, a, alen) == model, "both ways round");
		FUZZ_CHECK(etag_text_same(a, alen, a, alen), "a text is the same as itself");
	}
	fuzz_reset();
	return 0;
}
