-- citus_placeholder: the direct path declines a table that Citus distributes (its relation on the
-- coordinator is an empty placeholder that only Citus's planner reads right), so the call runs
-- as SQL, which Citus routes. Citus is not installed here: its catalog pg_dist_partition is
-- planted (first column logicalrelid). A call that ran as SQL leaves its prepared statement in
-- the plan cache (a memory context named by the statement); the direct path leaves none.
CREATE FUNCTION pg_temp.statements_cached() RETURNS bigint LANGUAGE sql AS $$
	SELECT count(*) FROM pg_backend_memory_contexts WHERE ident LIKE '%tablestore_data.placeholder%'
$$;
SELECT tablestore.create_table('Placeholder');
SELECT tablestore.insert_entity('Placeholder', '{"PartitionKey":"p","RowKey":"r","n":1}') IS NOT NULL AS inserted;
-- an ordinary table: the direct path
SELECT etag IS NOT NULL AS read FROM tablestore.get_entity('Placeholder', 'p', 'r');
SELECT tablestore.merge_entity('Placeholder', '{"PartitionKey":"p","RowKey":"r","n":2}') IS NOT NULL AS merged;
SELECT pg_temp.statements_cached() AS sql_statements;
-- a table in Citus's catalog: SQL
SET allow_system_table_mods = on;
CREATE TABLE pg_catalog.pg_dist_partition (logicalrelid regclass NOT NULL, partmethod "char");
RESET allow_system_table_mods;
INSERT INTO pg_catalog.pg_dist_partition VALUES ('tablestore_data.placeholder', 'h');
SELECT etag IS NOT NULL AS read FROM tablestore.get_entity('Placeholder', 'p', 'r');
SELECT tablestore.merge_entity('Placeholder', '{"PartitionKey":"p","RowKey":"r","n":3}') IS NOT NULL AS merged;
SELECT tablestore.prop_int32(properties, 'n') AS n FROM tablestore.get_entity('Placeholder', 'p', 'r');
SELECT pg_temp.statements_cached() > 0 AS sql_statements;
SET allow_system_table_mods = on;
DROP TABLE pg_catalog.pg_dist_partition;
RESET allow_system_table_mods;
SELECT tablestore.drop_table('Placeholder');
