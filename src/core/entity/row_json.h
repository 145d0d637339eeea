/*
 * row_json.h - a stored row (keys, Timestamp, ETag, properties) as the service's JSON entity at a
 * metadata level, with $select: the one renderer of rows for pages (query_page) and the REST
 * protocol's bodies. Backend-free.
 *
 *   nometadata      the keys, Timestamp and properties; no odata.* member, no annotation
 *   minimalmetadata odata.etag, then as nometadata with annotations where JSON cannot carry the
 *                   type (Int64, DateTime, Guid, Binary, non-finite Doubles); Timestamp not annotated
 *   fullmetadata    also odata.type, odata.id, odata.editLink, and Timestamp's annotation
 *
 * Under $select only the selected members are written (one the entity lacks as null); the keys
 * and Timestamp only when selected. odata.etag is always written (minimal and full).
 */
#ifndef ROW_JSON_H
#define ROW_JSON_H

#include "json_sink.h"

typedef enum JsonMetadata
{
	JSON_META_NONE,
	JSON_META_MINIMAL,
	JSON_META_FULL
} JsonMetadata;

/* $select: custom property names in the order given, and which system properties it names. */
typedef struct SelectList
{
	int			n;
	const char **names;
	uint32	   *lens;
	bool		pk;
	bool		rk;
	bool		ts;
} SelectList;

/* What stays the same for every row of a call. */
typedef struct RowJsonContext
{
	JsonMetadata metadata;
	int			options;		/* ENTITY_JSON_FOR_JSONB when the sink builds jsonb */
	const SelectList *sel;		/* NULL: every property */
	/* fullmetadata: odata.type is "<account>.<table>", odata.id "<base>/<table>(keys)" */
	const char *base;
	const char *account;
	const char *table;
} RowJsonContext;

typedef struct RowJson
{
	const char *pk;
	uint32		pk_len;
	const char *rk;
	uint32		rk_len;
	int64		ts_ticks;		/* Timestamp as .NET ticks */
	const char *etag;
	uint32		etag_len;
	const EntityView *props;
} RowJson;

/* Write one row as a JSON object; metadata_url, when not NULL, becomes its odata.metadata. */
extern void row_json_write(JsonSink *s, const RowJsonContext *c, const RowJson *r, const char *metadata_url);

/* The keys as they stand in a URL: tbl(PartitionKey='…',RowKey='…') (edm_put_key_path). */
extern void row_json_append_key_path(StringInfo out, const char *table, const RowJson *r);

/* A metadata level from its name ("nometadata", "minimalmetadata", "fullmetadata"); false if unknown. */
extern bool row_json_metadata_from_name(const char *s, size_t len, JsonMetadata *m);

#endif							/* ROW_JSON_H */
