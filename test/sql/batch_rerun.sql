-- batch_rerun: when a batch's condition fails (checked before any write), the earlier operations
-- that could fail while writing run again in request order, rolled back, so that the first to fail
-- is named (test/sql/batch.sql shows the errors). This file counts what runs again.
-- On a table of the entity rules alone only the earlier merges can
-- fail while writing, and only they run (rows updated in the transaction, the batch rolled back);
-- with a CHECK constraint of the user's every earlier operation can, and all run
SELECT tablestore.create_table('Rerun');
SELECT count(tablestore.insert_entity('Rerun', format('{"PartitionKey":"p","RowKey":"%s","v":1}', k)::tablestore.entity))
FROM unnest(ARRAY['a', 'b', 'c']) k;
CREATE FUNCTION pg_temp.rerun_writes(first_op text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	before bigint := coalesce((SELECT n_tup_upd FROM pg_stat_xact_user_tables WHERE relid = 'tablestore_data.rerun'::regclass), 0);
BEGIN
	PERFORM tablestore.execute_batch('Rerun', format('[{"op":"%s","entity":{"PartitionKey":"p","RowKey":"a","v":2}},
		{"op":"update","entity":{"PartitionKey":"p","RowKey":"b","v":2}},
		{"op":"merge","entity":{"PartitionKey":"p","RowKey":"c","v":2},"if_match":"W/\"datetime''2000-01-01T00%%3A00%%3A00.0000000Z''\""}]', first_op));
	RETURN -1;
EXCEPTION WHEN others THEN
	RETURN coalesce((SELECT n_tup_upd FROM pg_stat_xact_user_tables WHERE relid = 'tablestore_data.rerun'::regclass), 0) - before;
END $$;
BEGIN;
SELECT pg_temp.rerun_writes('update') AS updates_first, pg_temp.rerun_writes('merge') AS merge_first;
ALTER TABLE tablestore_data.rerun ADD CONSTRAINT small CHECK (pg_column_size(properties) < 100000);
SELECT pg_temp.rerun_writes('update') AS with_a_check_constraint;
ROLLBACK;
SELECT tablestore.drop_table('Rerun');
