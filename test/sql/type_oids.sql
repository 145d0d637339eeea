-- type_oids: the extension's types are found by name once per backend (ts_support.c's
-- ts_type_oid), and found again after pg_type changes; a type that is missing raises
-- undefined_object with a hint, for the entity type as for property_filter, instead of going on
-- with an invalid OID.
SET search_path = tablestore, public;
SET tablestore.distribute_new_tables = '';
SELECT create_table('TypeOids');
SELECT set_indexing_policy('TypeOids', '{"indexingMode":"consistent"}') ->> 'indexingMode' AS mode;
CALL wait_for_indexing('TypeOids');
SELECT insert_entity('TypeOids', '{"PartitionKey":"p","RowKey":"1","Age":30}') IS NOT NULL AS inserted;
SELECT update_entity('TypeOids', '{"PartitionKey":"p","RowKey":"1","Age":31}') IS NOT NULL AS updated;
SELECT jsonb_array_length(query_page('TypeOids', 'Age gt 20', NULL, 10) -> 'value') AS found;

-- the entity type renamed (as an extension older or newer than the library could leave it)
BEGIN;
ALTER TYPE tablestore.entity RENAME TO entity_renamed;
\set VERBOSITY default
SELECT upsert_entity('TypeOids', '{"PartitionKey":"p","RowKey":"1","Age":32}');
\set VERBOSITY terse
ROLLBACK;

-- the property_filter type renamed
BEGIN;
ALTER TYPE tablestore.property_filter RENAME TO property_filter_renamed;
\set VERBOSITY default
SELECT query_page('TypeOids', 'Age gt 20', NULL, 10);
\set VERBOSITY terse
ROLLBACK;

-- found again once the names are back
SELECT update_entity('TypeOids', '{"PartitionKey":"p","RowKey":"1","Age":33}') IS NOT NULL AS updated;
SELECT jsonb_array_length(query_page('TypeOids', 'Age gt 20', NULL, 10) -> 'value') AS found;
SELECT drop_table('TypeOids');
