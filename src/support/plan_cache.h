/*
 * plan_cache.h - the one cache of prepared statements: every SPI plan tablestore keeps (the
 * single-entity statements, batch locking, queries and pages) comes from here.
 *
 * Keyed by the statement text, its argument types and cursor options; literal values are
 * parameters, so statements of one shape share a plan. Bounded (tablestore.plan_cache_size):
 * when full, the least recently used plans are forgotten - but only at the start of a call that
 * no other call encloses (ts_plan_cache_begin), so that no plan a running call holds is freed.
 * Entries live in the memory context "tablestore plan cache".
 */
#ifndef PLAN_CACHE_H
#define PLAN_CACHE_H

#include "postgres.h"

#include "executor/spi.h"

extern int	ts_plan_cache_size;		/* tablestore.plan_cache_size */

extern void ts_plan_cache_init(void);

/* Around every use of cached plans by a call (ts_spi_begin/ts_spi_end do both). */
extern void ts_plan_cache_begin(void);
extern void ts_plan_cache_end(void);

/*
 * The saved plan of sql with these argument types, prepared on first use (inside SPI_connect and
 * ts_plan_cache_begin). A statement that fails to prepare leaves the cache as it was.
 */
extern SPIPlanPtr ts_plan_cache_get(const char *sql, int nargs, const Oid *types, int cursor_options);

#endif							/* PLAN_CACHE_H */
