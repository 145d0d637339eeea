/*
 * fuzz_support.c - shared by the fuzz targets: the allocator, the entity round-trip check and
 * the check of an entity's form (directory, order written).
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

/*
 * Order is presentation: the entity written in name order (its twin) is equal to it by
 * entity_cmp_unordered and entity_eq_unordered, and the name-order parts that hashing reads are the
 * twin's bytes.
 */
void
fuzz_check_unordered(const EntityView *v)
{
	PropRef    *props = palloc(sizeof(PropRef) * (v->nprops + 1));
	TsError		err = {0};
	struct varlena *twin;
	EntityView	tv;
	EntityUnorderedParts parts;
	StringInfoData bytes;

	for (uint32 i = 0; i < v->nprops; i++)
		entity_view_prop(v, i, &props[i]);
	twin = entity_build_ordered(props, (int) v->nprops, NULL, &v->keys, 0, &err);
	FUZZ_CHECK(twin != NULL, "an entity's name-order twin builds");
	entity_view_init(&tv, (const uint8 *) VARDATA(twin), VARSIZE(twin) - VARHDRSZ);
	FUZZ_CHECK(tv.order == NULL, "the twin stores no order");
	FUZZ_CHECK(entity_cmp_unordered(v, &tv) == 0 && entity_cmp_unordered(&tv, v) == 0 &&
			   entity_eq_unordered(v, &tv) && entity_eq_unordered(&tv, v),
			   "an entity equals its name-order twin");
	entity_unordered_parts(v, &parts);
	initStringInfo(&bytes);
	appendBinaryStringInfo(&bytes, (const char *) parts.head, parts.head_len);
	appendBinaryStringInfo(&bytes, (const char *) parts.dir, parts.dir_len);
	if (parts.dir_masked)
		for (uint32 off = ENTITY_DIRENT_ORDER; off < parts.dir_len; off += ENTITY_DIRENT_SIZE)
			bytes.data[parts.head_len + off] = 0;
	appendBinaryStringInfo(&bytes, (const char *) parts.data, parts.data_len);
	FUZZ_CHECK(bytes.len == (int) tv.len && memcmp(bytes.data, tv.body, tv.len) == 0,
			   "the parts hashing reads are the twin's bytes");
}

void
fuzz_check_form(const struct varlena *e)
{
	EntityView	v;
	bool		seen[TS_MAX_PROPERTIES] = {0};
	bool		names = true;
	TsError		err = {0};
	struct varlena *self;

	entity_view_init(&v, (const uint8 *) VARDATA(e), VARSIZE(e) - VARHDRSZ);
	FUZZ_CHECK(v.nprops <= TS_MAX_PROPERTIES, "at most 252 properties");
	for (uint32 i = 1; i < v.nprops; i++)
	{
		PropRef		a,
					b;

		entity_view_prop(&v, i - 1, &a);
		entity_view_prop(&v, i, &b);
		FUZZ_CHECK(entity_name_cmp(a.name, a.name_len, b.name, b.name_len) < 0, "the directory is sorted by name");
	}
	for (uint32 k = 0; k < v.nprops; k++)
	{
		uint32		i = entity_view_written(&v, k);

		FUZZ_CHECK(i < v.nprops && !seen[i], "the order written names each property once");
		seen[i] = true;
		names &= i == k;
	}
	FUZZ_CHECK((v.order == NULL) == names, "an order is stored exactly when it is not the name order");
	fuzz_check_unordered(&v);
	/* a merge with itself overwrites every property in place: the same entity */
	self = entity_merge(&v, &v, &err);
	FUZZ_CHECK(self != NULL && VARSIZE(self) == VARSIZE(e) && memcmp(self, e, VARSIZE(e)) == 0,
			   "e || e is e, its order unchanged");
}
