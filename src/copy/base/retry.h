/*
 * retry.h - when to try again (retry.c): exponential back-off with full jitter, the server's
 * Retry-After when it gives one, bounded in attempts and in total time.
 */
#ifndef COPY_RETRY_H
#define COPY_RETRY_H

#include <stdbool.h>

typedef struct Retry
{
	int			attempt;		/* failures so far */
	double		started;		/* monotonic seconds of the first failure */
	double		waited;			/* seconds slept */
} Retry;

/* the limits (main.c sets them from --retries and --retry-seconds) */
extern int	retry_max_attempts;
extern double retry_max_seconds;
extern double retry_base_seconds;	/* the first back-off, doubled each time (capped at 30 s) */

/*
 * After a failure that may pass: sleep (retry_after_seconds >= 0: at least what the server asked,
 * capped at 60 s) and answer true; false when the limits are reached (give up).
 */
extern bool retry_wait(Retry *r, double retry_after_seconds);

/* the waits of the whole run (the summary reports them) */
extern long long retry_waits(void);

/* seconds on a monotonic clock */
extern double retry_now(void);

/* A Retry-After header's value (delta-seconds or an HTTP date): seconds, or -1. */
extern double retry_after_parse(const char *v);

#endif
