/*
 * entity_gin.h - the entity index's operator class options: the indexing policy its keys follow.
 */
#ifndef ENTITY_GIN_H
#define ENTITY_GIN_H

#include "postgres.h"

#include "fmgr.h"
#include "index_policy.h"

/*
 * The policy of the index a support function belongs to, from its operator class options
 * (included / excluded; every property when there are none); read once per FmgrInfo.
 */
extern const IndexPolicy *entity_gin_policy(FunctionCallInfo fcinfo);

/* An index key as the bytea datum the index and its statistics hold (palloc'd). */
extern Datum entity_gin_key_datum(const uint8 *key, uint32 len);

#endif							/* ENTITY_GIN_H */
