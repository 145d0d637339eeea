/*
 * fuzz_support.c - shared by the fuzz targets: the allocator and the entity round-trip check.
 *
 * The allocator defines the frontend palloc family itself, in
 * place of libpgcommon's fe_memutils, so that every allocation - the parsers' and StringInfo's -
 * goes to an arena that fuzz_reset() empties after each input: millions of inputs neither leak
 * nor let memory outlive its input unnoticed (ASan sees the blocks freed). pfree does nothing
 * (the arena frees at the end of the input); repalloc copies.
 */
#include "postgres_fe.h"

#include "entity_format.h"
#include "fuzz.h"

typedef struct Block
{
	struct Block *next;
	size_t		size;
	max_align_t data[];
} Block;

static Block *blocks = NULL;

static void *
arena_alloc(size_t size, bool zero)
{
	Block	   *b = malloc(sizeof(Block) + size);

	if (b == NULL)
	{
		fprintf(stderr, "fuzz: out of memory\n");
		abort();
	}
	b->next = blocks;
	b->size = size;
	blocks = b;
	if (zero)
		memset(b->data, 0, size);
	return b->data;
}

static void *
arena_realloc(void *p, size_t size)
{
	void	   *n;

	if (p == NULL)
		return arena_alloc(size, false);
	n = arena_alloc(size, false);
	memcpy(n, p, Min(((Block *) ((char *) p - offsetof(Block, data)))->size, size));
	return n;
}

void *palloc(Size size) { return arena_alloc(size, false); }
void *palloc0(Size size) { return arena_alloc(size, true); }
void *palloc_extended(Size size, int flags) { return arena_alloc(size, (flags & MCXT_ALLOC_ZERO) != 0); }
void *repalloc(void *p, Size size) { return arena_realloc(p, size); }
void pfree(void *p) { }
void *pg_malloc(size_t size) { return arena_alloc(size, false); }
void *pg_malloc0(size_t size) { return arena_alloc(size, true); }
void *pg_malloc_extended(size_t size, int flags) { return arena_alloc(size, (flags & MCXT_ALLOC_ZERO) != 0); }
void *pg_realloc(void *p, size_t size) { return arena_realloc(p, size); }
void pg_free(void *p) { }

char *
pstrdup(const char *s)
{
	return strcpy(arena_alloc(strlen(s) + 1, false), s);
}

char *
pg_strdup(const char *s)
{
	return pstrdup(s);
}

char *
pnstrdup(const char *s, Size n)
{
	size_t		len = strnlen(s, n);
	char	   *r = arena_alloc(len + 1, false);

	memcpy(r, s, len);
	r[len] = '\0';
	return r;
}

void
fuzz_reset(void)
{
	while (blocks)
	{
		Block	   *b = blocks;

		blocks = b->next;
		free(b);
	}
}

void
fuzz_check_json_roundtrip(const struct varlena *e)
{
	EntityView	v;
	StringInfoData out;
	TsError		err = {0};
	struct varlena *again;

	entity_view_init(&v, (const uint8 *) VARDATA(e), VARSIZE(e) - VARHDRSZ);
	initStringInfo(&out);
	entity_append_json(&out, &v, 0);
	again = entity_from_json(out.data, out.len, &err);
	FUZZ_CHECK(again != NULL, "the JSON of an accepted entity parses");
	FUZZ_CHECK(VARSIZE(again) == VARSIZE(e) && memcmp(again, e, VARSIZE(e)) == 0,
			   "JSON output and input give back the same bytes");
}
