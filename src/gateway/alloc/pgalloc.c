/*
 * pgalloc.c - libpgcommon's frontend palloc family (fe_memutils: palloc, pfree, pg_malloc, ...),
 * defined by the gateway in its place, so that an allocation can belong to a region (pgalloc.h).
 * Outside a region they allocate as libpgcommon's do: with malloc, ending the process when memory
 * runs out (unless MCXT_ALLOC_NO_OOM asks for NULL). In a region, a block joins the region's list
 * and is freed with it: pfree of a region's block does nothing, repalloc of one copies. Every
 * block carries a header that says which it is, so a block may be freed in or out of a region.
 * test/fuzz/fuzz_support.c replaces the same functions for the fuzz targets.
 */
#include "postgres_fe.h"

#include "pgalloc.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct PgBlock
{
	struct PgBlock *next;		/* the region's list (in a region) */
	size_t		size;
	bool		in_region;
	max_align_t data[];
} PgBlock;

static __thread PgRegion *current;

static PgBlock *
block_of(void *p)
{
	return (PgBlock *) ((char *) p - offsetof(PgBlock, data));
}

static void *
out_of_memory(int flags)
{
	if (flags & MCXT_ALLOC_NO_OOM)
		return NULL;
	fprintf(stderr, "out of memory\n");
	exit(EXIT_FAILURE);
}

static void *
alloc(size_t size, int flags)
{
	PgBlock    *b;

	if (size > SIZE_MAX - sizeof(PgBlock) || (b = malloc(sizeof(PgBlock) + size)) == NULL)
		return out_of_memory(flags);
	b->size = size;
	b->in_region = current != NULL;
	b->next = NULL;
	if (current != NULL)
	{
		b->next = current->blocks;
		current->blocks = b;
	}
	if (flags & MCXT_ALLOC_ZERO)
		memset(b->data, 0, size);
	return b->data;
}

static void *
realloc_block(void *p, size_t size, int flags)
{
	PgBlock    *b;
	void	   *n;

	if (p == NULL)
		return alloc(size, flags);
	b = block_of(p);
	if (b->in_region)
	{
		if ((n = alloc(size, flags)) != NULL)
			memcpy(n, p, Min(b->size, size));
		return n;
	}
	if (size > SIZE_MAX - sizeof(PgBlock) || (b = realloc(b, sizeof(PgBlock) + size)) == NULL)
		return out_of_memory(flags);
	b->size = size;
	return b->data;
}

static void
free_block(void *p)
{
	if (p != NULL && !block_of(p)->in_region)
		free(block_of(p));
}

void
pg_region_begin(PgRegion *r)
{
	r->blocks = NULL;
	r->outer = current;
	current = r;
}

void
pg_region_end(PgRegion *r)
{
	Assert(current == r);
	while (r->blocks != NULL)
	{
		PgBlock    *b = r->blocks;

		r->blocks = b->next;
		free(b);
	}
	current = r->outer;
}

void *
palloc(Size size)
{
	return alloc(size, 0);
}

void *
palloc0(Size size)
{
	return alloc(size, MCXT_ALLOC_ZERO);
}

void *
palloc_extended(Size size, int flags)
{
	return alloc(size, flags);
}

void *
repalloc(void *p, Size size)
{
	return realloc_block(p, size, 0);
}

void
pfree(void *p)
{
	free_block(p);
}

void *
pg_malloc(size_t size)
{
	return alloc(size, 0);
}

void *
pg_malloc0(size_t size)
{
	return alloc(size, MCXT_ALLOC_ZERO);
}

void *
pg_malloc_extended(size_t size, int flags)
{
	return alloc(size, flags);
}

void *
pg_realloc(void *p, size_t size)
{
	return realloc_block(p, size, 0);
}

void
pg_free(void *p)
{
	free_block(p);
}

static char *
dup_bytes(const char *s, size_t len)
{
	char	   *r = alloc(len + 1, 0);

	r[len] = '\0';
	return memcpy(r, s, len);
}

char *
pstrdup(const char *s)
{
	return dup_bytes(s, strlen(s));
}

char *
pg_strdup(const char *s)
{
	return dup_bytes(s, strlen(s));
}

char *
pnstrdup(const char *s, Size n)
{
	return dup_bytes(s, strnlen(s, n));
}
