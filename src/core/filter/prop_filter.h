/*
 * prop_filter.h - one comparison of a custom property with a typed literal, compiled: the value
 * of the SQL type tablestore.property_filter, which the @~ operator and the entity index take
 * (contract §5's semantics; odata_eval_prop evaluates it). Backend-free.
 *
 * Stored form (after the varlena header), little-endian, no alignment assumed:
 *
 *   u8  version        PROP_FILTER_VERSION
 *   u8  op             OdCmp (eq ne gt ge lt le)
 *   u8  type           EdmType of the literal
 *   u8  zero
 *   u16 name_len       then the property name (UTF-8, a valid property name, not a system one)
 *   the literal's value, as an entity stores a value of its type (entity_format.h)
 *
 * The text form is the OData comparison itself: Age gt 30, Name eq 'O''Brien', Big le 5L.
 */
#ifndef PROP_FILTER_H
#define PROP_FILTER_H

#include "odata.h"

#define PROP_FILTER_VERSION		1
#define PROP_FILTER_HEADER_SIZE	6

typedef struct PropFilter
{
	const char *name;
	uint32		name_len;
	OdCmp		op;
	OdLiteral	lit;			/* strings and binaries point into the bytes read */
} PropFilter;

/* The stored form (a varlena from palloc, 4-byte header) of a comparison. */
extern struct varlena *prop_filter_build(const char *name, uint32 name_len, OdCmp op, const OdLiteral *lit);

/* Read and check a stored form (body: after the varlena header); false and *err when malformed. */
extern bool prop_filter_read(const uint8 *body, uint32 len, PropFilter *out, TsError *err);

/* Parse the text form: exactly one comparison of a custom property with a literal. */
extern bool prop_filter_parse(const char *text, size_t len, PropFilter *out, TsError *err);

/* Append the text form (which prop_filter_parse reads back to the same filter). */
extern void prop_filter_append_text(StringInfo out, const PropFilter *f);

/* The OData name of a comparison operator ("eq" ...). */
extern const char *odata_cmp_name(OdCmp op);

#endif							/* PROP_FILTER_H */
