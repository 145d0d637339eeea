/*
 * version.c - the x-ms-version rule (version.h): the Storage services' published versions, and
 * any real date after the newest of them.
 */
#include "edm.h"				/* first: the core's base include (ts_core.h) */
#include "version.h"

#include <string.h>

/*
 * The versions the Storage services have published, oldest first, from "Versioning for the
 * Azure Storage services" and its list of previous versions (2008's unversioned protocol has no
 * date a client can send). Add new ones at the end: a later date is accepted anyway.
 */
static const char *const published[] = {
	"2009-04-14", "2009-07-17", "2009-09-19", "2011-08-18", "2012-02-12", "2013-08-15",
	"2014-02-14", "2015-02-21", "2015-04-05", "2015-07-08", "2015-12-11", "2016-05-31",
	"2017-04-17", "2017-07-29", "2017-11-09", "2018-03-28", "2018-11-09", "2019-02-02",
	"2019-07-07", "2019-10-10", "2019-12-12", "2020-02-10", "2020-04-08", "2020-06-12",
	"2020-08-04", "2020-10-02", "2020-12-06", "2021-02-12", "2021-04-10", "2021-06-08",
	"2021-08-06", "2021-10-04", "2021-12-02", "2022-11-02", "2023-01-03", "2023-08-03",
	"2023-11-03", "2024-02-04", "2024-05-04", "2024-08-04", "2024-11-04", "2025-01-05",
	"2025-05-05", "2025-07-05", "2025-11-05", "2026-02-06", "2026-04-06", "2026-06-06",
};

#define NPUBLISHED (sizeof(published) / sizeof(published[0]))

const char *
version_newest(void)
{
	return published[NPUBLISHED - 1];
}

/* YYYY-MM-DD naming a day of the Gregorian calendar */
static bool
is_date(const char *v, size_t len)
{
	int			y,
				m,
				d;

	return len == 10 && v[4] == '-' && v[7] == '-' && edm_parse_digits(v, 4, &y) && edm_parse_digits(v + 5, 2, &m) &&
		edm_parse_digits(v + 8, 2, &d) && m >= 1 && m <= 12 && d >= 1 && d <= edm_days_in_month(y, m);
}

bool
version_accepted(const char *v, size_t len)
{
	if (v == NULL || !is_date(v, len))
		return false;
	/* same-length digit strings with '-' at the same places compare as dates */
	if (memcmp(v, version_newest(), len) > 0)
		return true;
	for (size_t i = 0; i < NPUBLISHED; i++)
		if (memcmp(v, published[i], len) == 0)
			return true;
	return false;
}
