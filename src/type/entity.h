/*
 * entity.h - the typed API of tablestore.entity datums in the backend (as jsonb.h and hstore.h
 * have theirs): Entity pointers from Datums and function arguments, detoasted but possibly with a
 * short header, and the view of an entity's body.
 */
#ifndef ENTITY_H
#define ENTITY_H

#include "entity_format.h"
#include "ts_report.h"

#include "fmgr.h"
#include "mb/pg_wchar.h"

#define DatumGetEntityPP(d)		((Entity *) PG_DETOAST_DATUM_PACKED(d))
#define EntityPGetDatum(p)		PointerGetDatum(p)
#define PG_GETARG_ENTITY_PP(n)	DatumGetEntityPP(PG_GETARG_DATUM(n))
#define PG_RETURN_ENTITY_P(p)	PG_RETURN_POINTER(p)

/* A view of an entity datum; rejects a format version this build cannot read. */
static inline void
entity_view_of(EntityView *v, const Entity *e)
{
	const uint8 *body = (const uint8 *) VARDATA_ANY(e);
	uint32		len = VARSIZE_ANY_EXHDR(e);

	if (len < ENTITY_HEADER_SIZE || body[0] != ENTITY_FORMAT_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("unsupported tablestore.entity format version %d", len ? body[0] : -1)));
	entity_view_init(v, body, len);
}

/* entity_access.c: the property named by argument 1 of the entity in argument 0 */
extern bool entity_prop_from_args(FunctionCallInfo fcinfo, PropRef *p);

/* entity_io.c: raise 22P05 when a String holds U+0000 (jsonb cannot hold it) */
extern void entity_check_jsonb_safe(const EntityView *v);

/* tablestore needs UTF-8 text: keys, names and String values are UTF-8 on disk. */
static inline void
ts_require_utf8(void)
{
	if (GetDatabaseEncoding() != PG_UTF8)
		ts_raisef(TSE_NOT_UTF8, "tablestore requires a database with UTF8 encoding");
}

#endif							/* ENTITY_H */
