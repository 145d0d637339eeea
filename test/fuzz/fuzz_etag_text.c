/*
 * fuzz_etag_text.c - libFuzzer target: reading the text of an ETag (etag_text_parse), which reads
 * a row's stored etag whatever was written there.
 *
 * Properties checked on every input: a text read as either form carries a Timestamp in the
 * DateTime range, and the service's form of that Timestamp reads back as the service's form of the
 * same Timestamp, and is exactly what etag_text_format writes again (one text per Timestamp).
 * etag_text_same (If-Match's comparison): every text is the same as itself, the input split in
 * two halves compares the same both ways round, and the service's form is the same as its
 * spelling with plain colons.
 */
#include "postgres_fe.h"

#include "edm.h"
#include "etag_text.h"
#include "fuzz.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
	FUZZ_CHECK(etag_text_same((const char *) data, size, (const char *) data, size), "a text is the same as itself");
	FUZZ_CHECK(etag_text_same((const char *) data, size / 2, (const char *) data + size / 2, size - size / 2) ==
			   etag_text_same((const char *) data + size / 2, size - size / 2, (const char *) data, size / 2),
			   "the comparison is symmetric");
	fuzz_reset();
	return 0;
}
