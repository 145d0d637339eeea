/*
 * entity_format.h - the stored (and binary wire) form of tablestore.entity.
 *
 * After the varlena header, little-endian, no alignment assumed anywhere (all reads by bytes):
 *
 *   u8  version            ENTITY_FORMAT_VERSION
 *   u8  flags              ENTITY_HAS_PK | ENTITY_HAS_RK | ENTITY_ORDER_IN_DIR
 *   u16 nprops             custom properties, at most 252
 *   [u16 pk_len, u16 rk_len]   only when a key flag is set
 *   nprops x { u32 offset, u16 name_len, u8 type, u8 order }   the directory, sorted by name
 *   data: PartitionKey bytes, RowKey bytes, then per property (in directory order) its name and
 *         its value
 *
 * The written order: with ENTITY_ORDER_IN_DIR, the order byte of the k-th directory entry is the
 * directory index of the k-th property written (the order, spread over the directory's spare
 * bytes: it costs no byte); without it, the properties were written in name order and every
 * order byte is 0. 0.3.0 stored the order as an array after the directory instead
 * (ENTITY_HAS_ORDER, nprops x u8, order bytes 0), one byte per property more than jsonb's size
 * for the same document; such values are still read (entity_view_init), recv turns them into the
 * form above, nothing writes them.
 *
 * A property's offset is relative to the start of data; its value runs from the end of its name
 * to the next property's offset (or the end). Names are UTF-8 sorted bytewise (shorter first on a
 * common prefix), so a lookup is a binary search over the directory. Values: String as UTF-8,
 * Binary as bytes, Int32 4 bytes, Int64/Double/DateTime 8 bytes (DateTime as .NET ticks),
 * Boolean 1 byte (0/1), Guid 16 bytes in text order. Doubles keep -0; NaN has one bit pattern.
 *
 * The written order (contract §1: output lists properties as they were written) is stored exactly
 * when it is not the directory's own order, so an entity written in name order - every entity
 * stored by 0.2.0 - has the bytes it always had. There is exactly one encoding of each entity (its
 * properties, their values and their written order): the same entity written in the same order
 * has the same bytes. Order is presentation only: two entities that differ only in the order of
 * their properties are equal (entity_compare.c compares and hashes the bytes with the order left
 * out).
 */
#ifndef ENTITY_FORMAT_H
#define ENTITY_FORMAT_H

#include "edm.h"
#include "ts_error.h"

#define ENTITY_FORMAT_VERSION	1
#define ENTITY_HAS_PK			0x01
#define ENTITY_HAS_RK			0x02
#define ENTITY_KEY_FLAGS		(ENTITY_HAS_PK | ENTITY_HAS_RK)
#define ENTITY_HAS_ORDER		0x04	/* 0.3.0's order array: read, never written */
#define ENTITY_ORDER_IN_DIR		0x08
#define ENTITY_ORDER_FLAGS		(ENTITY_HAS_ORDER | ENTITY_ORDER_IN_DIR)
#define ENTITY_KNOWN_FLAGS		(ENTITY_KEY_FLAGS | ENTITY_ORDER_FLAGS)
#define ENTITY_HEADER_SIZE		4
#define ENTITY_KEYLEN_SIZE		4
#define ENTITY_DIRENT_SIZE		8
#define ENTITY_DIRENT_ORDER		7	/* the order byte's place in a directory entry */

StaticAssertDecl(TS_MAX_PROPERTIES <= 256, "a directory index fits the order byte");

#define ENTITY_CANONICAL_NAN	UINT64CONST(0x7FF8000000000000)

/*
 * A tablestore.entity value: a varlena whose body (after the header, which may be the 1-byte
 * short form) is the format above. Read it through an EntityView (entity.h: entity_view_of).
 */
typedef struct varlena Entity;

/* One property, pointing into an entity or into a parser's buffers. */
typedef struct PropRef
{
	const char *name;
	uint32		name_len;
	uint8		type;			/* EdmType */
	const uint8 *val;
	uint32		val_len;
} PropRef;

/*
 * The first members of every record sorted by property name (PropRef, the JSON parser's members):
 * entity_sort_by_name sorts an array of any such record.
 */
typedef struct EntityNamed
{
	const char *name;
	uint32		name_len;
} EntityNamed;

#define ENTITY_NAMED_MAX_SIZE 128

/* The keys an entity may carry (absent unless has_pk / has_rk). */
typedef struct EntityKeys
{
	bool		has_pk;
	bool		has_rk;
	const char *pk;
	uint32		pk_len;
	const char *rk;
	uint32		rk_len;
} EntityKeys;

/* A read-only view of a valid entity body (the bytes after the varlena header). */
typedef struct EntityView
{
	const uint8 *body;
	uint32		len;
	uint32		nprops;
	const uint8 *dir;
	const uint8 *order;			/* the k-th property written is order[k * order_stride]; NULL:
								 * written in name order */
	uint32		order_stride;	/* ENTITY_DIRENT_SIZE, or 1 for 0.3.0's order array */
	uint32		legacy_len;		/* bytes of 0.3.0's order array (0 when there is none) */
	const uint8 *data;
	uint32		data_len;
	EntityKeys	keys;
} EntityView;

static inline void
entity_view_init(EntityView *v, const uint8 *body, uint32 len)
{
	uint8		flags = body[1];
	const uint8 *p = body + ENTITY_HEADER_SIZE;

	v->body = body;
	v->len = len;
	v->nprops = ts_rd16(body + 2);
	v->keys.has_pk = (flags & ENTITY_HAS_PK) != 0;
	v->keys.has_rk = (flags & ENTITY_HAS_RK) != 0;
	v->keys.pk_len = v->keys.rk_len = 0;
	if (flags & ENTITY_KEY_FLAGS)
	{
		v->keys.pk_len = ts_rd16(p);
		v->keys.rk_len = ts_rd16(p + 2);
		p += ENTITY_KEYLEN_SIZE;
	}
	v->dir = p;
	p += (size_t) v->nprops * ENTITY_DIRENT_SIZE;
	v->order = NULL;
	v->order_stride = ENTITY_DIRENT_SIZE;
	v->legacy_len = 0;
	if (flags & ENTITY_ORDER_IN_DIR)
		v->order = v->dir + ENTITY_DIRENT_ORDER;
	else if (flags & ENTITY_HAS_ORDER)
	{
		v->order = p;
		v->order_stride = 1;
		v->legacy_len = v->nprops;
		p += v->nprops;
	}
	v->data = p;
	v->data_len = (uint32) (body + len - v->data);
	v->keys.pk = (const char *) v->data;
	v->keys.rk = (const char *) v->data + v->keys.pk_len;
}

static inline void
entity_view_prop(const EntityView *v, uint32 i, PropRef *p)
{
	const uint8 *e = v->dir + (size_t) i * ENTITY_DIRENT_SIZE;
	uint32		off = ts_rd32(e);
	uint32		end = (i + 1 < v->nprops) ? ts_rd32(e + ENTITY_DIRENT_SIZE) : v->data_len;

	p->name = (const char *) v->data + off;
	p->name_len = ts_rd16(e + 4);
	p->type = e[6];
	p->val = v->data + off + p->name_len;
	p->val_len = end - off - p->name_len;
}

/*
 * The directory index of the k-th property in the order written (output iterates k = 0 ..
 * nprops - 1 through it; entity_view_prop(v, i) reads the directory, sorted by name).
 */
static inline uint32
entity_view_written(const EntityView *v, uint32 k)
{
	return v->order ? v->order[(size_t) k * v->order_stride] : k;
}

/*
 * Every property in the order written, into props[v->nprops]: one tight pass over the directory,
 * for output loops, which then read props[k] rather than following order[k] into the directory
 * between the writes of each property. When that order is not the data's (the name order), the
 * data is fetched ahead, all of it at once, instead of line by line out of order.
 */
static inline void
entity_view_props_written(const EntityView *v, PropRef *props)
{
	const uint8 *order = v->order;
	uint32		n = v->nprops;

#if defined(__GNUC__) || defined(__clang__)
	if (order)
		for (uint32 off = 0; off < v->data_len; off += 64)
			__builtin_prefetch(v->data + off);
#endif
	if (order == NULL)
		for (uint32 k = 0; k < n; k++)
			entity_view_prop(v, k, &props[k]);
	else if (v->order_stride == ENTITY_DIRENT_SIZE)
		for (uint32 k = 0; k < n; k++)
			entity_view_prop(v, order[k * ENTITY_DIRENT_SIZE], &props[k]);
	else
		for (uint32 k = 0; k < n; k++)
			entity_view_prop(v, order[k], &props[k]);	/* 0.3.0's order array */
}

#define ENTITY_LOCAL_PROPS 32	/* a PropRef array this long on the stack covers most entities */

/* Bytewise order of names: memcmp on the common prefix, then shorter first. */
static inline int
entity_name_cmp(const char *a, uint32 alen, const char *b, uint32 blen)
{
	int			c = memcmp(a, b, Min(alen, blen));

	if (c != 0)
		return c;
	return (alen > blen) - (alen < blen);
}

/* Index of the named property, or -1. */
static inline int
entity_view_find(const EntityView *v, const char *name, uint32 len)
{
	int			lo = 0,
				hi = (int) v->nprops - 1;

	while (lo <= hi)
	{
		int			mid = (lo + hi) >> 1;
		const uint8 *e = v->dir + (size_t) mid * ENTITY_DIRENT_SIZE;
		int			c = entity_name_cmp((const char *) v->data + ts_rd32(e), ts_rd16(e + 4), name, len);

		if (c == 0)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

/*
 * entity_view_find with a hint: the index where the name was found in the previous entity of a
 * scan. Entities of one table mostly share their property names, so the hint usually saves the
 * binary search; a wrong hint costs one comparison.
 */
static inline int
entity_view_find_hinted(const EntityView *v, const char *name, uint32 len, int *hint)
{
	int			i = *hint;

	if (i >= 0 && (uint32) i < v->nprops)
	{
		const uint8 *e = v->dir + (size_t) i * ENTITY_DIRENT_SIZE;

		if (ts_rd16(e + 4) == len && memcmp(v->data + ts_rd32(e), name, len) == 0)
			return i;
	}
	i = entity_view_find(v, name, len);
	if (i >= 0)
		*hint = i;
	return i;
}

/* entity_build.c */
#define ENTITY_BUILD_SORT		0x01	/* props are in the order written, any order: sort them for the
										 * directory (and find duplicates), keep the order */
#define ENTITY_BUILD_KEYS_APART	0x02	/* check the keys and count them in the size, but leave them
										 * out of the result (a table row keeps them in columns) */

/* Sort records that start like EntityNamed (size bytes each, at most ENTITY_NAMED_MAX_SIZE) by name. */
extern void entity_sort_by_name(void *items, int n, size_t size);

extern Entity *entity_build(PropRef *props, int nprops, const EntityKeys *keys,
									int options, TsError *err);

/*
 * entity_build for props sorted by name whose written order is order[0 .. nprops - 1] (indexes
 * into props, a permutation; NULL: the name order). Not with ENTITY_BUILD_SORT.
 */
extern Entity *entity_build_ordered(PropRef *props, int nprops, const int *order,
											const EntityKeys *keys, int options, TsError *err);
extern bool entity_check_key(const char *key, uint32 len, const char *which, TsError *err);
extern uint64 entity_service_size(const EntityView *v, const EntityKeys *keys);
extern bool entity_check_size(const EntityView *v, const EntityKeys *keys, TsError *err);

/* entity_merge.c */

/*
 * a || b: every property of b, and those of a that b does not have; b's keys where it has them.
 * In the order written: a's properties where they are (with b's value where b has one), then b's
 * new ones in b's order - a merge keeps existing properties in place and appends new ones.
 */
extern Entity *entity_merge(const EntityView *a, const EntityView *b, TsError *err);

/* v without the named property or key (a copy even when it has none). */
extern Entity *entity_without(const EntityView *v, const char *name, uint32 len, TsError *err);

/* v's properties without its keys (what a table row stores; the keys live in its key columns). */
extern Entity *entity_without_keys(const EntityView *v, TsError *err);

/* v encoded again: the same entity in the form written today (0.3.0's order array moved). */
extern Entity *entity_copy(const EntityView *v, TsError *err);

/* entity_compare.c: entities as sets of properties (the order written ignored) */

/* <0, 0, >0: the byte order of the two entities' name-order forms (their bytes, order left out). */
extern int	entity_cmp_unordered(const EntityView *a, const EntityView *b);
extern bool entity_eq_unordered(const EntityView *a, const EntityView *b);

/*
 * The name-order form's bytes in three parts, for hashing them without a copy: head (the header,
 * its order flags cleared, and the key lengths), the directory (dir_len bytes; their order bytes
 * are to be read as 0 when dir_masked), the data. Without a stored order the three are the body.
 */
typedef struct EntityUnorderedParts
{
	uint8		head[ENTITY_HEADER_SIZE + ENTITY_KEYLEN_SIZE];
	uint32		head_len;
	const uint8 *dir;
	uint32		dir_len;
	bool		dir_masked;
	const uint8 *data;
	uint32		data_len;
} EntityUnorderedParts;

extern void entity_unordered_parts(const EntityView *v, EntityUnorderedParts *out);

/*
 * entity_legacy_form.c: an entity's bytes as 0.3.0 stored them (its order array after the
 * directory), for 0.3.0's comparison and hashes, which compared and hashed those bytes. Two parts:
 * head (head_len bytes: the whole body when the value is already in that form) and data.
 */
typedef struct EntityLegacyForm
{
	const uint8 *head;
	uint32		head_len;
	const uint8 *data;
	uint32		data_len;
	uint8		buf[ENTITY_HEADER_SIZE + ENTITY_KEYLEN_SIZE + TS_MAX_PROPERTIES * (ENTITY_DIRENT_SIZE + 1)];
} EntityLegacyForm;

extern void entity_legacy_form(const EntityView *v, EntityLegacyForm *out);

/* <0, 0, >0: 0.3.0's order, the byte order of the two forms (shorter first on a common prefix). */
extern int	entity_cmp_legacy(const EntityLegacyForm *a, const EntityLegacyForm *b);

/* entity_json_in.c */
extern Entity *entity_from_json(const char *json, size_t len, TsError *err);

/*
 * The same, for a table row: the result holds the properties only and *keys the keys (pointing
 * into json, or into memory allocated in the current context when they had escapes). With
 * consumed, the object may be followed by other text and *consumed is its length.
 */
extern Entity *entity_from_json_keys_apart(const char *json, size_t len, EntityKeys *keys,
												   size_t *consumed, TsError *err);

/* entity_json_out.c: the JSON text of values (the one owner of how each type is written) */
#define ENTITY_JSON_FOR_JSONB		0x01	/* -0 as the string "-0": jsonb's numeric has no -0 */
#define ENTITY_JSON_NO_ANNOTATIONS	0x02	/* no "@odata.type" members (nometadata) */

typedef enum JsonValueKind
{
	JSON_VALUE_STRING,
	JSON_VALUE_NUMBER,
	JSON_VALUE_TRUE,
	JSON_VALUE_FALSE
} JsonValueKind;

/* A property's JSON value: text (a string's raw, unescaped bytes) and whether it is annotated. */
typedef struct PropForm
{
	JsonValueKind kind;
	bool		annotate;		/* "<name>@odata.type" is needed where annotations are written */
	const char *text;
	size_t		len;
	char		buf[128];		/* (a longer Binary's base64 is allocated) */
} PropForm;

extern void entity_prop_form(const PropRef *p, int options, PropForm *f);
extern void entity_append_json_value(StringInfo out, const PropForm *f);
extern void entity_append_annotation(StringInfo out, const char *name, size_t len, const char *type);
extern void entity_append_json(StringInfo out, const EntityView *v, int options);
extern void entity_append_prop_json(StringInfo out, const PropRef *p, int options);
extern void entity_append_json_string(StringInfo out, const char *s, size_t len);

/* entity_binary_in.c */
extern Entity *entity_from_binary(const uint8 *buf, size_t len, TsError *err);

#endif							/* ENTITY_FORMAT_H */
