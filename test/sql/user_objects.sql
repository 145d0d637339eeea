-- user_objects: what a user adds to a store table by hand - statement triggers, column triggers,
-- BEFORE INSERT triggers under upserts, foreign keys, publications, row-level security - and
-- every write path (single operations and batches, direct and SQL) doing what SQL does with them.
SET search_path = tablestore, public;

\set ECHO none
\i test/regress/helpers.sql
\set ECHO all

SELECT create_table('Owned') IS NOT NULL AS created;
CREATE TABLE public.owned_log (ev text);
CREATE FUNCTION pg_temp.log_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO owned_log VALUES (TG_NAME || ' ' || TG_OP);
	RETURN CASE WHEN TG_LEVEL = 'ROW' AND TG_OP <> 'DELETE' THEN NEW WHEN TG_LEVEL = 'ROW' THEN OLD END;
END $$;
CREATE FUNCTION pg_temp.events() RETURNS text LANGUAGE sql AS $$
	WITH d AS (DELETE FROM owned_log RETURNING ev) SELECT string_agg(ev, ', ' ORDER BY ev) FROM d
$$;

-- AFTER STATEMENT triggers fire once per operation, as for one SQL statement each
CREATE TRIGGER stmt_after AFTER INSERT OR UPDATE OR DELETE ON tablestore_data.owned
	FOR EACH STATEMENT EXECUTE FUNCTION pg_temp.log_event();
SELECT insert_entity('Owned', '{"PartitionKey":"p","RowKey":"1"}') IS NOT NULL AS inserted;
SELECT merge_entity('Owned', '{"PartitionKey":"p","RowKey":"1","a":1}') IS NOT NULL AS merged;
SELECT upsert_entity('Owned', '{"PartitionKey":"p","RowKey":"2"}') IS NOT NULL AS upserted;
SELECT delete_entity('Owned', 'p', '2');
SELECT pg_temp.events() AS single_operations;
SELECT jsonb_array_length(execute_batch('Owned', '[{"op":"insert","entity":{"PartitionKey":"p","RowKey":"3"}},
	{"op":"merge","entity":{"PartitionKey":"p","RowKey":"1","b":2}}]')) AS batch;
SELECT pg_temp.events() AS batch_operations;
DROP TRIGGER stmt_after ON tablestore_data.owned;

-- an UPDATE OF properties trigger fires for updates and merges, on the direct path too
CREATE TRIGGER of_properties BEFORE UPDATE OF properties ON tablestore_data.owned
	FOR EACH ROW EXECUTE FUNCTION pg_temp.log_event();
SELECT merge_entity('Owned', '{"PartitionKey":"p","RowKey":"1","c":3}') IS NOT NULL AS merged;
SELECT update_entity('Owned', '{"PartitionKey":"p","RowKey":"3","d":4}') IS NOT NULL AS updated;
SELECT jsonb_array_length(execute_batch('Owned', '[{"op":"merge","entity":{"PartitionKey":"p","RowKey":"1","e":5}}]')) AS batch;
SET tablestore.fast_path = off;
SELECT merge_entity('Owned', '{"PartitionKey":"p","RowKey":"1","f":6}') IS NOT NULL AS merged_through_sql;
RESET tablestore.fast_path;
SELECT pg_temp.events() AS column_trigger;
DROP TRIGGER of_properties ON tablestore_data.owned;

-- an upsert of an existing entity fires the BEFORE INSERT triggers, as INSERT ... ON CONFLICT
-- does: one that cancels the insert cancels the upsert, alone or in a batch
CREATE FUNCTION pg_temp.refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
CREATE TRIGGER refuse_inserts BEFORE INSERT ON tablestore_data.owned FOR EACH ROW EXECUTE FUNCTION pg_temp.refuse();
SELECT pg_temp.try($$SELECT upsert_entity('Owned', '{"PartitionKey":"p","RowKey":"1","g":7}', 'merge')$$) AS single;
SELECT pg_temp.try($$SELECT execute_batch('Owned', '[{"op":"upsert_merge","entity":{"PartitionKey":"p","RowKey":"1","g":7}}]')$$) AS batch;
SELECT prop_int32(properties, 'g') IS NULL AS nothing_written FROM get_entity('Owned', 'p', '1');
DROP TRIGGER refuse_inserts ON tablestore_data.owned;

-- a foreign key to the table: its check fires at the end of each operation and its error names
-- the operation, on the direct path as through SQL
CREATE TABLE owned_child (pk text COLLATE "C", rk text COLLATE "C",
	FOREIGN KEY (pk, rk) REFERENCES tablestore_data.owned ON DELETE RESTRICT);
INSERT INTO owned_child VALUES ('p', '3');
SELECT pg_temp.try($$SELECT execute_batch('Owned', '[{"op":"merge","entity":{"PartitionKey":"p","RowKey":"1","h":8}},
	{"op":"delete","entity":{"PartitionKey":"p","RowKey":"3"}}]')$$) AS direct;
SET tablestore.fast_path = off;
SELECT pg_temp.try($$SELECT execute_batch('Owned', '[{"op":"merge","entity":{"PartitionKey":"p","RowKey":"1","h":8}},
	{"op":"delete","entity":{"PartitionKey":"p","RowKey":"3"}}]')$$) AS through_sql;
RESET tablestore.fast_path;
SELECT count(*) AS entities, count(*) FILTER (WHERE prop_int32(properties, 'h') IS NOT NULL) AS merged FROM tablestore_data.owned;
DROP TABLE owned_child;

-- trigger functions that keep state between calls (SECURITY DEFINER, SET) fire in every
-- operation of a batch; a trigger that changes the entity of a later operation is seen by it
CREATE FUNCTION pg_temp.definer() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN INSERT INTO owned_log VALUES ('definer ' || TG_WHEN); RETURN NEW; END $$;
CREATE FUNCTION pg_temp.with_setting() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog AS $$
BEGIN INSERT INTO public.owned_log VALUES ('with_setting ' || TG_WHEN); RETURN NEW; END $$;
CREATE TRIGGER definer_after AFTER INSERT ON tablestore_data.owned FOR EACH ROW EXECUTE FUNCTION pg_temp.definer();
CREATE TRIGGER with_setting_before BEFORE INSERT ON tablestore_data.owned FOR EACH ROW EXECUTE FUNCTION pg_temp.with_setting();
SELECT jsonb_array_length(execute_batch('Owned', '[{"op":"insert","entity":{"PartitionKey":"s","RowKey":"1"}},
	{"op":"insert","entity":{"PartitionKey":"s","RowKey":"2"}},{"op":"insert","entity":{"PartitionKey":"s","RowKey":"3"}}]')) AS batch;
SELECT pg_temp.events() AS fired_three_times_each;
DROP TRIGGER definer_after ON tablestore_data.owned;
DROP TRIGGER with_setting_before ON tablestore_data.owned;
CREATE FUNCTION pg_temp.touch_next() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE tablestore_data.owned SET properties = properties WHERE partition_key = 's' AND row_key = '2';
	RETURN NULL;
END $$;
CREATE TRIGGER touch_next AFTER UPDATE ON tablestore_data.owned FOR EACH ROW
	WHEN (NEW.partition_key = 's' AND NEW.row_key = '1') EXECUTE FUNCTION pg_temp.touch_next();
SELECT jsonb_array_length(execute_batch('Owned', '[{"op":"merge","entity":{"PartitionKey":"s","RowKey":"1","x":1}},
	{"op":"merge","entity":{"PartitionKey":"s","RowKey":"2","x":2}}]')) AS batch;
SELECT row_key, prop_int32(properties, 'x') AS x FROM tablestore_data.owned WHERE partition_key = 's' ORDER BY 1;
DROP TRIGGER touch_next ON tablestore_data.owned;

-- a publication of updates only, filtered on a column outside the replica identity: inserts and
-- deletes need no replica identity, in a batch as in SQL
SET client_min_messages = error;
CREATE PUBLICATION owned_updates FOR TABLE tablestore_data.owned WHERE (etag <> '') WITH (publish = 'update');
RESET client_min_messages;
SELECT pg_temp.try($$SELECT execute_batch('Owned', '[{"op":"delete","entity":{"PartitionKey":"p","RowKey":"3"}}]')$$) AS delete_batch;
SELECT insert_entity('Owned', '{"PartitionKey":"p","RowKey":"4"}') IS NOT NULL AS inserted;
SELECT jsonb_array_length(execute_batch('Owned', '[{"op":"insert","entity":{"PartitionKey":"p","RowKey":"5"}},
	{"op":"delete","entity":{"PartitionKey":"p","RowKey":"4"}}]')) AS insert_delete_batch;
-- (an update is refused there, by PostgreSQL, on both paths; the direct path refuses the batch
-- before its first operation)
SELECT pg_temp.try($$SELECT execute_batch('Owned', '[{"op":"merge","entity":{"PartitionKey":"p","RowKey":"1","i":9}}]')$$) AS update_batch;
SET tablestore.fast_path = off;
SELECT pg_temp.try($$SELECT execute_batch('Owned', '[{"op":"merge","entity":{"PartitionKey":"p","RowKey":"1","i":9}}]')$$) AS update_batch_through_sql;
RESET tablestore.fast_path;
DROP PUBLICATION owned_updates;

-- row-level security that lets a role read an entity but not update or delete it: a refusal
-- (TSA01, AuthorizationFailure), not a retryable "changed concurrently"
CREATE ROLE regress_ts_partial;
GRANT USAGE ON SCHEMA tablestore, tablestore_data TO regress_ts_partial;
GRANT SELECT, UPDATE, DELETE ON tablestore_data.owned TO regress_ts_partial;
ALTER TABLE tablestore_data.owned ENABLE ROW LEVEL SECURITY;
CREATE POLICY read_all ON tablestore_data.owned FOR SELECT USING (true);
CREATE POLICY update_mine ON tablestore_data.owned FOR UPDATE USING (partition_key = 'mine');
CREATE POLICY delete_mine ON tablestore_data.owned FOR DELETE USING (partition_key = 'mine');
SET ROLE regress_ts_partial;
SELECT pg_temp.try($$SELECT merge_entity('Owned', '{"PartitionKey":"p","RowKey":"1","j":10}')$$) AS merge;
SELECT pg_temp.try($$SELECT update_entity('Owned', '{"PartitionKey":"p","RowKey":"1"}')$$) AS update;
SELECT pg_temp.try($$SELECT delete_entity('Owned', 'p', '1')$$) AS delete;
SELECT pg_temp.try($$SELECT merge_entity('Owned', '{"PartitionKey":"p","RowKey":"404"}')$$) AS absent;
SELECT pg_temp.try($$SELECT execute_batch('Owned', '[{"op":"merge","entity":{"PartitionKey":"p","RowKey":"1","j":10}}]')$$) AS batch_merge;
SELECT pg_temp.try($$SELECT execute_batch('Owned', '[{"op":"delete","entity":{"PartitionKey":"p","RowKey":"1"}}]')$$) AS batch_delete;
SELECT pg_temp.try($$SELECT execute_batch('Owned', '[{"op":"delete","entity":{"PartitionKey":"p","RowKey":"404"}}]')$$) AS batch_absent;
RESET ROLE;
SELECT count(*) AS entities, count(*) FILTER (WHERE prop_int32(properties, 'j') IS NOT NULL) AS merged FROM tablestore_data.owned;

DROP TABLE owned_log;
SELECT drop_table('Owned');
REVOKE USAGE ON SCHEMA tablestore, tablestore_data FROM regress_ts_partial;
DROP ROLE regress_ts_partial;
