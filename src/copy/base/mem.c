/*
 * mem.c - palloc for the core inside tablestore-copy: per-thread arenas (mem.h).
 */
#include "mem.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MEM_MAGIC 0x54534d45u	/* "TSME" */
#define KIND_MALLOC 1u
#define KIND_ARENA 2u
#define CHUNK_SIZE ((size_t) 1 << 20)

typedef struct BlockHeader
{
	size_t		size;			/* usable bytes */
	uint32_t	magic;
	uint32_t	kind;
} BlockHeader;

struct MemChunk
{
	MemChunk   *next;
	size_t		used;
	size_t		cap;
	/* data follows, 16-byte aligned */
};

#define CHUNK_DATA(c) ((char *) (c) + ((sizeof(MemChunk) + 15) & ~(size_t) 15))

static __thread MemArena *current;

static void
out_of_memory(size_t n)
{
	fprintf(stderr, "tablestore-copy: out of memory (%zu bytes wanted)\n", n);
	exit(3);
}

void *
mem_alloc(size_t n)
{
	void	   *p = malloc(n ? n : 1);

	if (p == NULL)
		out_of_memory(n);
	return p;
}

void *
mem_realloc(void *p, size_t n)
{
	void	   *q = realloc(p, n ? n : 1);

	if (q == NULL)
		out_of_memory(n);
	return q;
}

char *
mem_strndup(const char *s, size_t n)
{
	char	   *p = mem_alloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *
mem_strdup(const char *s)
{
	return mem_strndup(s, strlen(s));
}

void
mem_string_init(StringInfo s)
{
	MemArena   *prev = mem_use(NULL);

	initStringInfo(s);
	mem_use(prev);
}

MemArena *
mem_use(MemArena *a)
{
	MemArena   *prev = current;

	current = a;
	return prev;
}

static void *
arena_alloc(MemArena *a, size_t n)
{
	size_t		need = (sizeof(BlockHeader) + n + 15) & ~(size_t) 15;
	MemChunk   *c = a->head;
	BlockHeader *h;

	if (c == NULL || c->cap - c->used < need)
	{
		size_t		cap = need > CHUNK_SIZE / 4 ? need : CHUNK_SIZE;
		size_t		total = ((sizeof(MemChunk) + 15) & ~(size_t) 15) + cap;

		c = mem_alloc(total);
		c->used = 0;
		c->cap = cap;
		/* a big block's own chunk goes behind the current one, which keeps filling */
		if (a->head != NULL && cap != CHUNK_SIZE)
		{
			c->next = a->head->next;
			a->head->next = c;
		}
		else
		{
			c->next = a->head;
			a->head = c;
		}
		a->bytes += total;
	}
	h = (BlockHeader *) (CHUNK_DATA(c) + c->used);
	c->used += need;
	h->size = n;
	h->magic = MEM_MAGIC;
	h->kind = KIND_ARENA;
	return h + 1;
}

void
mem_arena_reset(MemArena *a)
{
	MemChunk   *keep = NULL;

	/* keep one ordinary chunk, free the rest */
	for (MemChunk *c = a->head, *next; c != NULL; c = next)
	{
		next = c->next;
		if (keep == NULL && c->cap == CHUNK_SIZE)
		{
			keep = c;
			continue;
		}
		free(c);
	}
	a->head = keep;
	a->bytes = 0;
	if (keep != NULL)
	{
		keep->next = NULL;
		keep->used = 0;
		a->bytes = ((sizeof(MemChunk) + 15) & ~(size_t) 15) + keep->cap;
	}
}

void
mem_arena_free(MemArena *a)
{
	for (MemChunk *c = a->head, *next; c != NULL; c = next)
	{
		next = c->next;
		free(c);
	}
	a->head = NULL;
	a->bytes = 0;
}

static void *
block_alloc(size_t n)
{
	BlockHeader *h;

	if (current != NULL)
		return arena_alloc(current, n);
	h = mem_alloc(sizeof(BlockHeader) + n);
	h->size = n;
	h->magic = MEM_MAGIC;
	h->kind = KIND_MALLOC;
	return h + 1;
}

static BlockHeader *
header_of(void *p)
{
	BlockHeader *h = (BlockHeader *) p - 1;

	if (h->magic != MEM_MAGIC)
	{
		fprintf(stderr, "tablestore-copy: pfree/repalloc of a block palloc did not give\n");
		abort();
	}
	return h;
}

/* The wrapped palloc family (copy.mk's --wrap list). */
void	   *__wrap_palloc(size_t n);
void	   *__wrap_palloc0(size_t n);
void	   *__wrap_palloc_extended(size_t n, int flags);
void	   *__wrap_palloc_mul(size_t a, size_t b);
void	   *__wrap_palloc0_mul(size_t a, size_t b);
void	   *__wrap_palloc_mul_extended(size_t a, size_t b, int flags);
void		__wrap_pfree(void *p);
void	   *__wrap_repalloc(void *p, size_t n);
void	   *__wrap_repalloc_mul(void *p, size_t a, size_t b);
char	   *__wrap_pstrdup(const char *s);
char	   *__wrap_pnstrdup(const char *s, size_t n);

static size_t
mul(size_t a, size_t b)
{
	if (b != 0 && a > SIZE_MAX / b)
		out_of_memory(SIZE_MAX);
	return a * b;
}

void *
__wrap_palloc(size_t n)
{
	return block_alloc(n);
}

void *
__wrap_palloc0(size_t n)
{
	void	   *p = block_alloc(n);

	memset(p, 0, n);
	return p;
}

void *
__wrap_palloc_extended(size_t n, int flags)
{
	void	   *p = block_alloc(n);

	if (flags & 0x04)			/* MCXT_ALLOC_ZERO */
		memset(p, 0, n);
	return p;
}

void *
__wrap_palloc_mul(size_t a, size_t b)
{
	return __wrap_palloc(mul(a, b));
}

void *
__wrap_palloc0_mul(size_t a, size_t b)
{
	return __wrap_palloc0(mul(a, b));
}

void *
__wrap_palloc_mul_extended(size_t a, size_t b, int flags)
{
	return __wrap_palloc_extended(mul(a, b), flags);
}

void
__wrap_pfree(void *p)
{
	BlockHeader *h;

	if (p == NULL)
		return;
	h = header_of(p);
	if (h->kind == KIND_MALLOC)
	{
		h->magic = 0;
		free(h);
	}
}

void *
__wrap_repalloc(void *p, size_t n)
{
	BlockHeader *h = header_of(p);
	void	   *q;

	if (h->kind == KIND_MALLOC)
	{
		h = mem_realloc(h, sizeof(BlockHeader) + n);
		h->size = n;
		return h + 1;
	}
	q = block_alloc(n);
	memcpy(q, p, h->size < n ? h->size : n);
	return q;
}

void *
__wrap_repalloc_mul(void *p, size_t a, size_t b)
{
	return __wrap_repalloc(p, mul(a, b));
}

char *
__wrap_pnstrdup(const char *s, size_t n)
{
	size_t		len = strnlen(s, n);
	char	   *p = block_alloc(len + 1);

	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *
__wrap_pstrdup(const char *s)
{
	return __wrap_pnstrdup(s, strlen(s));
}
