-- test/pgtap/user_triggers.sql - a BEFORE ROW trigger of the user's that returns NULL cancels a
-- write. Every function then raises 09000 (triggered_action_exception) instead of reporting a
-- write that did not happen, a batch names the operation and writes nothing, and the direct path
-- and the SQL path (the suite runs both) agree. Writes the trigger lets through work as usual.
BEGIN;
SET search_path = tablestore, public;
SELECT plan(25);

SELECT create_table('Guarded');
CREATE FUNCTION pg_temp.guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'DELETE' THEN
		RETURN CASE WHEN OLD.row_key = 'keep' THEN NULL ELSE OLD END;
	END IF;
	RETURN CASE WHEN NEW.properties OPERATOR(tablestore.?) 'cancel' THEN NULL ELSE NEW END;
END $$;
CREATE TRIGGER guard BEFORE INSERT OR UPDATE OR DELETE ON tablestore_data.guarded
	FOR EACH ROW EXECUTE FUNCTION pg_temp.guard();

SELECT isnt(insert_entity('Guarded', '{"PartitionKey":"p","RowKey":"keep","v":1}'), NULL, 'an allowed insert works');
SELECT isnt(insert_entity('Guarded', '{"PartitionKey":"p","RowKey":"r1","v":1}'), NULL, 'another allowed insert works');
SELECT etag AS keep_etag FROM tablestore_data.guarded WHERE row_key = 'keep' \gset
CREATE FUNCTION pg_temp.state() RETURNS text LANGUAGE sql AS
$$ SELECT md5(string_agg(format('%s|%s|%s|%s', partition_key, row_key, etag, properties), E'\n' ORDER BY partition_key, row_key))
   FROM tablestore_data.guarded $$;
SELECT pg_temp.state() AS before \gset

-- single-entity functions
SELECT throws_ok($$SELECT insert_entity('Guarded', '{"PartitionKey":"p","RowKey":"new","cancel":true}')$$, '09000',
	'a trigger cancelled the write', 'insert_entity: a cancelled insert is an error');
SELECT throws_ok($$SELECT update_entity('Guarded', '{"PartitionKey":"p","RowKey":"r1","cancel":true}')$$, '09000',
	'a trigger cancelled the write', 'update_entity with If-Match *');
SELECT throws_ok(format($$SELECT update_entity('Guarded', '{"PartitionKey":"p","RowKey":"keep","cancel":true}', %L)$$, :'keep_etag'),
	'09000', 'a trigger cancelled the write', 'update_entity with the current ETag');
SELECT throws_ok($$SELECT update_entity('Guarded', '{"PartitionKey":"p","RowKey":"keep","cancel":true}', 'W/"stale"')$$,
	'TSP01', NULL, 'update_entity with a stale ETag is still UpdateConditionNotSatisfied');
SELECT throws_ok($$SELECT update_entity('Guarded', '{"PartitionKey":"p","RowKey":"nope","cancel":true}')$$,
	'TSN01', NULL, 'update_entity of a missing entity is still ResourceNotFound');
SELECT throws_ok($$SELECT merge_entity('Guarded', '{"PartitionKey":"p","RowKey":"r1","cancel":true}')$$, '09000',
	'a trigger cancelled the write', 'merge_entity');
SELECT throws_ok($$SELECT upsert_entity('Guarded', '{"PartitionKey":"p","RowKey":"r1","cancel":true}', 'merge')$$, '09000',
	'a trigger cancelled the write', 'upsert_entity (merge) of an existing entity');
SELECT throws_ok($$SELECT upsert_entity('Guarded', '{"PartitionKey":"p","RowKey":"r9","cancel":true}', 'replace')$$, '09000',
	'a trigger cancelled the write', 'upsert_entity (replace) of a new entity');
SELECT throws_ok($$SELECT delete_entity('Guarded', 'p', 'keep')$$, '09000', 'a trigger cancelled the write',
	'delete_entity with If-Match *');
SELECT throws_ok(format($$SELECT delete_entity('Guarded', 'p', 'keep', %L)$$, :'keep_etag'), '09000',
	'a trigger cancelled the write', 'delete_entity with the current ETag');
SELECT throws_ok($$SELECT delete_entity('Guarded', 'p', 'keep', 'W/"stale"')$$, 'TSP01', NULL,
	'delete_entity with a stale ETag is still UpdateConditionNotSatisfied');
SELECT throws_ok($$SELECT delete_entity('Guarded', 'p', 'nope')$$, 'TSN01', NULL, 'delete_entity of a missing entity');
SELECT is(pg_temp.state(), :'before', 'nothing was written by any cancelled call');

-- batches: the cancelled operation is named and nothing of the batch stays
SELECT throws_ok($$SELECT execute_batch('Guarded', '[{"op":"insert","entity":{"PartitionKey":"p","RowKey":"b1"}},
	{"op":"insert","entity":{"PartitionKey":"p","RowKey":"b2","cancel":1}}]')$$, '09000',
	'operation 1: a trigger cancelled the write', 'a batch insert');
SELECT throws_ok($$SELECT execute_batch('Guarded', '[{"op":"merge","entity":{"PartitionKey":"p","RowKey":"r1","x":1}},
	{"op":"update","entity":{"PartitionKey":"p","RowKey":"keep","cancel":1}}]')$$, '09000',
	'operation 1: a trigger cancelled the write', 'a batch update');
SELECT throws_ok($$SELECT execute_batch('Guarded', '[{"op":"upsert_merge","entity":{"PartitionKey":"p","RowKey":"b3","cancel":1}}]')$$,
	'09000', 'operation 0: a trigger cancelled the write', 'a batch upsert of a new entity');
SELECT throws_ok($$SELECT execute_batch('Guarded', '[{"op":"insert","entity":{"PartitionKey":"p","RowKey":"b4"}},
	{"op":"merge","entity":{"PartitionKey":"p","RowKey":"r1","y":2}}, {"op":"delete","entity":{"PartitionKey":"p","RowKey":"keep"}}]')$$,
	'09000', 'operation 2: a trigger cancelled the write', 'a batch delete');
SELECT is(pg_temp.state(), :'before', 'nothing of any cancelled batch was written');
SELECT is(jsonb_array_length(execute_batch('Guarded', '[{"op":"insert","entity":{"PartitionKey":"p","RowKey":"b5"}},
	{"op":"merge","entity":{"PartitionKey":"p","RowKey":"r1","z":3}}, {"op":"insert","entity":{"PartitionKey":"p","RowKey":"b6"}}]')), 3,
	'a batch the trigger lets through works');

-- the allowed writes still report their ETags and take effect
SELECT merge_entity('Guarded', '{"PartitionKey":"p","RowKey":"r1","w":4}') AS merged_etag \gset
SELECT is((SELECT etag FROM tablestore_data.guarded WHERE row_key = 'r1'), :'merged_etag', 'an allowed merge returns the stored ETag');
SELECT is((SELECT properties::text FROM tablestore_data.guarded WHERE row_key = 'r1'), '{"v":1,"z":3,"w":4}',
	'and the entity holds what was merged');
SELECT lives_ok($$SELECT delete_entity('Guarded', 'p', 'r1')$$, 'an allowed delete works');
SELECT is((SELECT string_agg(row_key, ',' ORDER BY row_key) FROM tablestore_data.guarded), 'b5,b6,keep', 'the entities left are the right ones');

SELECT * FROM finish();
ROLLBACK;
