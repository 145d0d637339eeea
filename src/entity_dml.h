/*
 * entity_dml.h - the single-entity operations of contract §4 as C functions (entity_dml.c): the
 * SQL functions insert_entity ... get_entity and the REST functions call them.
 *
 * Each takes a resolved table, keys that follow the key rules and properties without keys, and
 * raises the service's errors. Writes return the new ETag and Timestamp.
 */
#ifndef ENTITY_DML_H
#define ENTITY_DML_H

#include "entity.h"
#include "stamp.h"
#include "ts_table.h"

/* An entity argument split into its keys (required) and its properties without keys. */
typedef struct EntityArg
{
	text	   *pk;
	text	   *rk;
	Entity	   *props;
} EntityArg;

extern void entity_dml_split(Entity *e, EntityArg *out);

/* Keys given apart from an entity must follow the key rules (InvalidInput or KeyValueTooLarge). */
extern void entity_dml_check_keys(text *pk, text *rk);

extern WriteStamp entity_dml_insert(const TsTable *t, const EntityArg *ea);

/* Update (replace) or merge; if_match is "*" or an ETag (checked by etag_parse_if_match). */
extern WriteStamp entity_dml_update(const TsTable *t, const EntityArg *ea, bool merge, text *if_match);

/* InsertOrMerge (merge) or InsertOrReplace. */
extern WriteStamp entity_dml_upsert(const TsTable *t, const EntityArg *ea, bool merge);

extern void entity_dml_delete(const TsTable *t, text *pk, text *rk, text *if_match);

/* delete_entity's arguments (tbl, partition_key, row_key, if_match) checked, the table resolved. */
extern void entity_dml_delete_args(FunctionCallInfo fcinfo, TsTable *t);

/* The row's five columns (in the current memory context); ResourceNotFound when missing. */
/*
 * Row-level security lets this role read the entity but hides it from the write that found
 * nothing (verb: "update", "delete", or "lock" for a batch's lock): an AuthorizationFailure
 * (TSA01), raised here with prefix (an operation's, or NULL) when so. Call inside an SPI session.
 */
extern void entity_dml_check_hidden_by_rls(const TsTable *t, text *pk, text *rk, const char *verb, const char *prefix);
extern void entity_dml_get(const TsTable *t, text *pk, text *rk, Datum *values, bool *nulls);

#endif							/* ENTITY_DML_H */
