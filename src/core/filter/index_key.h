/*
 * index_key.h - the keys of the entity index (a GIN index on a table's properties column) and the
 * key ranges a comparison reads. Backend-free.
 *
 * One key per property:  name bytes, 0x00, type byte (EdmType), value in an order-preserving form
 *
 *   String, Binary      the bytes, cut to INDEX_KEY_VALUE_MAX (a cut key stands for every value
 *                       with that prefix; the heap recheck decides)
 *   Int32               4 bytes big-endian, sign bit flipped
 *   Int64, DateTime     8 bytes big-endian, sign bit flipped (DateTime as ticks)
 *   Double              8 bytes: the IEEE bits big-endian, all bits flipped when negative, else the
 *                       sign bit set; -0 as 0 (equal in float8's order), NaN (one pattern) last
 *   Boolean             1 byte, 0 or 1
 *   Guid                the 16 bytes (text order)
 *
 * Keys compare as bytea does (memcmp, then the shorter first). A property name holds no 0x00 byte,
 * so the keys of one name are together, ordered by type and then by value exactly as contract §5
 * orders values of one type (Strings ordinally).
 *
 * A comparison (name OP literal) reads one range of keys per property type it can be true for
 * (index_key_ranges): the literal's own type and those it widens to, compared by value, and for
 * ne/lt/le every other type whole (the mismatch rule). A property absent is never a key: only
 * comparisons that are false without the property are read from the index.
 */
#ifndef INDEX_KEY_H
#define INDEX_KEY_H

#include "entity_format.h"
#include "odata.h"

#define INDEX_KEY_VALUE_MAX 128

/* The most ranges a comparison reads: one per property type. */
#define INDEX_KEY_MAX_RANGES EDM_TYPE_MAX

/* The key of one property: its length (at most index_key_max_size(p)), written to buf. */
extern uint32 index_key_max_size(const PropRef *p);
extern uint32 index_key_encode(const PropRef *p, uint8 *buf);

/*
 * A key read back: name, type and the value in the stored form of entity_format.h (in buf, which
 * has room for 16 bytes; Strings and Binaries point into the key); cut when the value may have
 * been longer. False when the bytes are not a key.
 */
typedef struct IndexKeyView
{
	PropRef		prop;
	bool		cut;
	uint8		buf[16];
} IndexKeyView;

extern bool index_key_decode(const uint8 *key, uint32 len, IndexKeyView *out);

/* bytea's order */
extern int	index_key_cmp(const uint8 *a, uint32 alen, const uint8 *b, uint32 blen);

/* The keys of one property type that a comparison reads. */
typedef struct IndexKeyRange
{
	uint8	   *lo;				/* the first key that may match */
	uint32		lo_len;
	uint8	   *hi;				/* the last key that may match (hi_incl), or the first after them */
	uint32		hi_len;
	bool		hi_incl;
	bool		exact;			/* lo is the only key, and it matches exactly (no recheck needed) */
	bool		all;			/* every key of the range matches (a type the mismatch rule makes true) */
	uint8		type;			/* EdmType of the keys in the range */
	OdCmp		op;
	OdLiteral	lit;
} IndexKeyRange;

/* The ranges of name OP lit into out[INDEX_KEY_MAX_RANGES]; returns how many (palloc'd bounds). */
extern int	index_key_ranges(const char *name, uint32 name_len, OdCmp op, const OdLiteral *lit,
							 IndexKeyRange *out);

/*
 * A key met while walking a range from its lo: 1 when it is past the range (stop), 0 when it may
 * match, -1 when it does not match but later keys may (a cut key may match: the recheck decides).
 */
extern int	index_key_range_test(const IndexKeyRange *r, const uint8 *key, uint32 len);

#endif							/* INDEX_KEY_H */
