/*
 * mem.h - memory for the backend-free core inside tablestore-copy (mem.c).
 *
 * The core allocates with palloc and leaves it to the caller's memory context to free (the
 * server resets one per row). tablestore-copy links the core for the frontend, where palloc is
 * malloc: every entity parsed would leak. So palloc and its family are wrapped at link time
 * (copy.mk: -Wl,--wrap=palloc ...) and go to the calling thread's current arena when it has one
 * (a batch's: reset once the batch is written), to malloc otherwise. pfree of an arena block does
 * nothing; repalloc and pfree know each block's kind from a header.
 */
#ifndef COPY_MEM_H
#define COPY_MEM_H

#include "ts_core.h"

#include <stddef.h>

typedef struct MemChunk MemChunk;

typedef struct MemArena
{
	MemChunk   *head;			/* newest chunk first */
	size_t		bytes;			/* bytes held in chunks (what RSS owes to the arena) */
} MemArena;

extern void mem_arena_reset(MemArena *a);	/* frees all but one chunk */
extern void mem_arena_free(MemArena *a);

/* Make a the calling thread's arena for palloc (NULL: malloc); returns the previous one. */
extern MemArena *mem_use(MemArena *a);

/* malloc that ends the program with a message when memory is exhausted */
extern void *mem_alloc(size_t n);
extern void *mem_realloc(void *p, size_t n);
extern char *mem_strdup(const char *s);
extern char *mem_strndup(const char *s, size_t n);

/* A StringInfo whose buffer is malloc'd whatever the thread's arena (it outlives arena resets). */
extern void mem_string_init(StringInfo s);

#endif
