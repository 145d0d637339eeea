/*
 * retry.c - back-off with jitter (retry.h).
 */
#include "retry.h"
#include "copy.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int			retry_max_attempts = 12;
double		retry_max_seconds = 600;
double		retry_base_seconds = 0.2;
static atomic_llong waits;

long long
retry_waits(void)
{
	return atomic_load(&waits);
}

double
retry_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double
jitter(void)
{
	static __thread unsigned seed;

	if (seed == 0)
		seed = (unsigned) (retry_now() * 1e6) ^ (unsigned) (size_t) &seed;
	return (double) rand_r(&seed) / RAND_MAX;
}

bool
retry_wait(Retry *r, double retry_after_seconds)
{
	double		cap,
				delay;
	struct timespec ts;

	if (r->attempt == 0)
		r->started = retry_now();
	r->attempt++;
	if (r->attempt > retry_max_attempts || retry_now() - r->started > retry_max_seconds)
		return false;
	/* full jitter: uniform in [0, min(30 s, base * 2^attempt)] */
	cap = retry_base_seconds * (double) (1u << (r->attempt < 10 ? r->attempt : 10));
	if (cap > 30)
		cap = 30;
	delay = cap * jitter();
	if (retry_after_seconds >= 0)
	{
		double		ra = retry_after_seconds > 60 ? 60 : retry_after_seconds;

		/* at least what the server asked, spread a little so that waiters do not return at once */
		delay = ra + (ra > 0 ? ra : retry_base_seconds) * 0.25 * jitter();
	}
	r->waited += delay;
	atomic_fetch_add(&waits, 1);
	/* in slices, so that SIGINT/SIGTERM (copy_abort) ends the wait at once */
	while (delay > 0 && !atomic_load(&copy_abort))
	{
		double		slice = delay > 0.1 ? 0.1 : delay;

		ts.tv_sec = 0;
		ts.tv_nsec = (long) (slice * 1e9);
		nanosleep(&ts, NULL);
		delay -= slice;
	}
	return !atomic_load(&copy_abort);
}

double
retry_after_parse(const char *v)
{
	char	   *end;
	double		s;

	if (v == NULL)
		return -1;
	while (*v == ' ')
		v++;
	s = strtod(v, &end);
	if (end != v && (*end == '\0' || *end == ' ' || *end == '\r') && s >= 0)
		return s;
	{
		struct tm	tm;
		time_t		when,
					now = time(NULL);

		memset(&tm, 0, sizeof(tm));
		if (strptime(v, "%a, %d %b %Y %H:%M:%S GMT", &tm) == NULL)
			return -1;
		when = timegm(&tm);
		return when > now ? (double) (when - now) : 0;
	}
}
