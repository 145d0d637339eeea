/*
 * run.c - what the whole run shares, at the bottom of the program's layers (copy.h): the
 * options, the counters, the stop flag and the clock.
 */
#include "copy.h"

#include <time.h>

Options		opt = {.parallel = 4, .skew_seconds = 300, .sync_small = 1000, .sync_passes = 5, .gzip = true};
Stats		stats;
atomic_bool copy_abort;

int64
copy_now_ticks(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return edm_ticks_from_pg_usec(((int64) ts.tv_sec - 946684800) * 1000000 + ts.tv_nsec / 1000);
}
