-- tablestore upgrade script from 0.1.0 to 0.2.0. Every change made to tablestore.sql since 0.1.0
-- is made here too; the regression test sql/extension.sql checks that 0.1.0 plus this script
-- gives the same objects as a fresh install.

\echo Use "ALTER EXTENSION tablestore UPDATE TO '0.2.0'" to load this file. \quit

CREATE FUNCTION tablestore.query_page_json(tbl text, filter text, "select" text, top int DEFAULT 1000,
	next_partition_key text DEFAULT NULL, next_row_key text DEFAULT NULL)
RETURNS json
AS 'MODULE_PATHNAME', 'tablestore_query_page_json' LANGUAGE C STABLE;

COMMENT ON FUNCTION tablestore.query_page_json(text, text, text, int, text, text) IS
'query_page as json text: the same page, written once without a jsonb conversion; it also carries Strings holding U+0000';

CREATE FUNCTION tablestore.filter_key_string(tablestore.entity, text) RETURNS bytea
AS 'MODULE_PATHNAME', 'tablestore_filter_key_string' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION tablestore.filter_key_string(tablestore.entity, text) IS
'Key for $filter comparisons with String literals: the String''s UTF-8 bytes (ordinal order; U+0000 too), NULL when absent or not a String';

--------------------------------------------------------------------------------------------------
-- The REST protocol's calls (tablestore-gateway calls one function per request; doc/gateway.md)
--------------------------------------------------------------------------------------------------

CREATE FUNCTION tablestore.rest_create_table(body text, metadata text DEFAULT NULL, base text DEFAULT NULL,
	account text DEFAULT NULL, OUT table_name text, OUT body text)
AS 'MODULE_PATHNAME', 'tablestore_rest_create_table' LANGUAGE C VOLATILE SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION tablestore.rest_create_table(text, text, text, text) IS
'REST Create Table: the request body {"TableName": ...}; the created name and the answer''s body at the metadata level';

CREATE FUNCTION tablestore.rest_query_tables(filter text DEFAULT NULL, top int DEFAULT NULL, next_table_name text DEFAULT NULL,
	metadata text DEFAULT NULL, base text DEFAULT NULL, account text DEFAULT NULL,
	OUT body text, OUT next_table_name text)
AS 'MODULE_PATHNAME', 'tablestore_rest_query_tables' LANGUAGE C STABLE;

COMMENT ON FUNCTION tablestore.rest_query_tables(text, int, text, text, text, text) IS
'REST Query Tables: one page of tables ($filter on TableName, $top, NextTableName) as the answer''s body';

CREATE FUNCTION tablestore.rest_get_table(table_name text, metadata text DEFAULT NULL, base text DEFAULT NULL,
	account text DEFAULT NULL)
RETURNS text
AS 'MODULE_PATHNAME', 'tablestore_rest_get_table' LANGUAGE C STABLE;

COMMENT ON FUNCTION tablestore.rest_get_table(text, text, text, text) IS
'REST GET Tables(''name''): the one table as the answer''s body; TableNotFound when it does not exist';

CREATE FUNCTION tablestore.rest_insert_entity(tbl text, body text, echo bool DEFAULT true, metadata text DEFAULT NULL,
	base text DEFAULT NULL, account text DEFAULT NULL, key_scope text[] DEFAULT NULL,
	OUT etag text, OUT partition_key text, OUT row_key text, OUT body text)
AS 'MODULE_PATHNAME', 'tablestore_rest_insert_entity' LANGUAGE C VOLATILE;

COMMENT ON FUNCTION tablestore.rest_insert_entity(text, text, bool, text, text, text, text[]) IS
'REST Insert Entity: the new ETag, the keys, and (echo) the stored entity as the answer''s body; AuthorizationFailure outside key_scope';

CREATE FUNCTION tablestore.rest_write_entity(tbl text, partition_key text, row_key text, body text, merge bool,
	if_match text DEFAULT NULL, key_scope text[] DEFAULT NULL)
RETURNS text
AS 'MODULE_PATHNAME', 'tablestore_rest_write_entity' LANGUAGE C VOLATILE;

COMMENT ON FUNCTION tablestore.rest_write_entity(text, text, text, text, bool, text, text[]) IS
'REST Update/Merge Entity under If-Match, or Insert Or Replace/Merge without one; keys from the URL; returns the new ETag; AuthorizationFailure outside key_scope';

CREATE FUNCTION tablestore.rest_delete_entity(tbl text, partition_key text, row_key text, if_match text DEFAULT '*',
	key_scope text[] DEFAULT NULL)
RETURNS void
AS 'MODULE_PATHNAME', 'tablestore_rest_delete_entity' LANGUAGE C VOLATILE;

COMMENT ON FUNCTION tablestore.rest_delete_entity(text, text, text, text, text[]) IS
'REST Delete Entity: delete_entity limited to key_scope (AuthorizationFailure outside it)';

CREATE FUNCTION tablestore.rest_get_entity(tbl text, partition_key text, row_key text, "select" text DEFAULT NULL,
	metadata text DEFAULT NULL, base text DEFAULT NULL, account text DEFAULT NULL, key_scope text[] DEFAULT NULL,
	OUT etag text, OUT body text)
AS 'MODULE_PATHNAME', 'tablestore_rest_get_entity' LANGUAGE C STABLE;

COMMENT ON FUNCTION tablestore.rest_get_entity(text, text, text, text, text, text, text, text[]) IS
'REST point read: the entity''s ETag and the answer''s body at the metadata level; AuthorizationFailure outside key_scope';

CREATE FUNCTION tablestore.rest_query_entities(tbl text, filter text DEFAULT NULL, "select" text DEFAULT NULL,
	top int DEFAULT NULL, next_partition_key text DEFAULT NULL, next_row_key text DEFAULT NULL,
	metadata text DEFAULT NULL, base text DEFAULT NULL, account text DEFAULT NULL, key_scope text[] DEFAULT NULL,
	OUT body text, OUT next_partition_key text, OUT next_row_key text)
AS 'MODULE_PATHNAME', 'tablestore_rest_query_entities' LANGUAGE C STABLE;

COMMENT ON FUNCTION tablestore.rest_query_entities(text, text, text, int, text, text, text, text, text, text[]) IS
'REST Query Entities: one page as the answer''s body, and the continuation (NULL on the last page); only entities inside key_scope';

CREATE FUNCTION tablestore.rest_batch(tbl text, operations text, metadata text DEFAULT NULL, base text DEFAULT NULL,
	account text DEFAULT NULL, key_scope text[] DEFAULT NULL)
RETURNS TABLE (etag text, partition_key text, row_key text, body text)
AS 'MODULE_PATHNAME', 'tablestore_rest_batch' LANGUAGE C VOLATILE;

COMMENT ON FUNCTION tablestore.rest_batch(text, text, text, text, text, text[]) IS
'REST $batch: one changeset as execute_batch''s document (keys beside entities, entities as JSON text in entity_json, echo); one row per operation with its ETag and keys; every operation inside key_scope';
