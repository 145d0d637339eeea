/*
 * pgalloc.h - regions for the core's allocations on a request's thread (pgalloc.c): the core's
 * parsers allocate with palloc and leave the freeing to a memory context in the server; in the
 * gateway, what they allocate between pg_region_begin and pg_region_end is freed by the end.
 */
#ifndef GW_PGALLOC_H
#define GW_PGALLOC_H

typedef struct PgRegion
{
	struct PgBlock *blocks;		/* allocated while the region is the thread's */
	struct PgRegion *outer;		/* the region it was opened in (regions nest) */
} PgRegion;

/* From now on, the thread's palloc family allocates in r. */
extern void pg_region_begin(PgRegion *r);

/* Free all that r holds; the thread allocates as before pg_region_begin(r) again. */
extern void pg_region_end(PgRegion *r);

#endif
