/*
 * fuzz_etag_text.c - libFuzzer target: reading the text of an ETag (etag_text_parse), which reads
 * a row's stored etag whatever was written there.
 *
 * Properties checked on every input: a text read as either form carries a Timestamp in the
 * DateTime range, and the service's form of that Timestamp reads back as the service's form of the
 * same Timestamp, and is exactly what etag_text_format writes again (one text per Timestamp).
 * etag_text_same (If-Match's comparison): the input split in two halves compares as a model
 * says (both halves with each %3A or %3a read as ':', left to right, then the trailing zeros of a
 * fraction of 1 to 7 digits before a closing Z'" dropped, with its '.' when all are zeros, the
 * weak prefix's W in either case when both have one, then byte for byte), both ways round; the
 * service's form is the same as its spelling with plain colons, and as its spelling with seven
 * fractional digits (Azurite's).
 */
#include "postgres_fe.h"

#include "edm.h"
#include "etag_text.h"
#include "fuzz.h"

#include <ctype.h>

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

/* The model's second step: the trailing zeros of .<1 to 7 digits>Z'" at the end of s dropped. */
static size_t
zeros_dropped(char *s, size_t n)
{
	size_t		d = 0,
				keep;

	if (n < 5 || memcmp(s + n - 3, "Z'\"", 3) != 0)
		return n;
	while (d < n - 3 && isdigit((unsigned char) s[n - 4 - d]))
		d++;
	if (d < 1 || d > 7 || d == n - 3 || s[n - 4 - d] != '.')
		return n;
	keep = n - 3;
	while (keep > n - 3 - d && s[keep - 1] == '0')
		keep--;
	if (keep == n - 3 - d)
		keep--;					/* the '.' */
	memmove(s + keep, s + n - 3, 3);
	return keep + 3;
}

/* The service's form in buf[n] with seven fractional digits, into out: its length */
static size_t
seven_digits(const char *buf, size_t n, char *out)
{
	const char *z = buf + n - 3;	/* Z'" */
	const char *dot = z;
	size_t		m;

	while (dot > buf && dot[-1] != '.' && dot[-1] != 'A' && dot[-1] != ':')
		dot--;
	if (dot > buf && dot[-1] == '.')
	{
		m = (size_t) (z - buf);
		memcpy(out, buf, m);
		for (size_t k = (size_t) (z - dot); k < 7; k++)
			out[m++] = '0';
	}
	else
	{
		m = (size_t) (z - buf);
		memcpy(out, buf, m);
		memcpy(out + m, ".0000000", 8);
		m += 8;
	}
	memcpy(out + m, z, 3);
	return m + 3;
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
		{
			char		seven[ETAG_TEXT_MAX + 8];
			size_t		m = seven_digits(buf, n, seven);
			int64		back7 = 0;

			FUZZ_CHECK(etag_text_parse(seven, m, &back7) == ETAG_TEXT_SERVICE && back7 == ticks,
					   "seven fractional digits name the same Timestamp");
			FUZZ_CHECK(etag_text_same(buf, n, seven, m) && etag_text_same(seven, m, buf, n),
					   "the service's form and its seven-digit spelling are the same ETag");
			if (m > 4 && seven[m - 4] == '0')
			{
				seven[m - 4] = '1';
				FUZZ_CHECK(!etag_text_same(buf, n, seven, m), "another last digit is another ETag");
			}
		}
	}
	{
		const char *a = (const char *) data,
				   *b = (const char *) data + size / 2;
		size_t		alen = size / 2,
					blen = size - size / 2;
		char		da[4096],
					db[4096];
		size_t		na = zeros_dropped(da, colons_decoded(a, alen, da)),
					nb = zeros_dropped(db, colons_decoded(b, blen, db));
		bool		model;

		/* the weak prefix in either case when both have one (If-Match: w/"..." is W/"...") */
		if (na >= 3 && nb >= 3 && (da[0] == 'W' || da[0] == 'w') && (db[0] == 'W' || db[0] == 'w') &&
			memcmp(da + 1, "/\"", 2) == 0 && memcmp(db + 1, "/\"", 2) == 0)
			da[0] = db[0] = 'W';
		model = na == nb && memcmp(da, db, na) == 0;

		FUZZ_CHECK(etag_text_same(a, alen, b, blen) == model, "If-Match's comparison is the model's");
		FUZZ_CHECK(etag_text_same(b, blen, a, alen) == model, "both ways round");
		FUZZ_CHECK(etag_text_same(a, alen, a, alen), "a text is the same as itself");
	}
	fuzz_reset();
	return 0;
}
