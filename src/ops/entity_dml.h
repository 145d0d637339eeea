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

/* The entity's current ETag (a new snapshot), or NULL when it is not there; inside SPI. */
extern text *entity_dml_current_etag(const TsTable *t, text *pk, text *rk);

/*
 * A write found nothing of an entity the role reads: when row-level security is on for the role,
 * a policy of the write hid it, an AuthorizationFailure (TSA01) raised here (verb: what was
 * refused; detail and prefix, an operation's, may be NULL). Else it returns.
 */
extern void entity_dml_raise_if_rls(const TsTable *t, text *pk, text *rk, const char *verb,
									const char *detail, const char *prefix);

/* The row's five columns (in the current memory context); ResourceNotFound when missing. */
extern void entity_dml_get(const TsTable *t, text *pk, text *rk, Datum *values, bool *nulls);

#endif							/* ENTITY_DML_H */
