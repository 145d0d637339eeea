-- test/pgtap/batch_failures.sql - a batch that fails while writing names the operation the
-- service would name: the first that fails in request order, although the writes run in key
-- order (contract §6). Failures from a CHECK constraint, a user's trigger, another unique index,
-- a merged entity over 1 MiB, and two operations of the batch that clash with each other.
BEGIN;
SET search_path = tablestore, public;
SELECT plan(10);

SELECT create_table('Fail');
SELECT execute_batch('Fail', '[{"op":"insert","entity":{"PartitionKey":"p","RowKey":"a","n":1}},
	{"op":"insert","entity":{"PartitionKey":"p","RowKey":"z","n":1,"big":"' || repeat('x', 30000) || '"}},
	{"op":"insert","entity":{"PartitionKey":"p","RowKey":"m","Email":"taken@example.com"}}]');
-- rules of the user's: a CHECK on a property, a trigger that refuses a value, a unique index
ALTER TABLE tablestore_data.fail ADD CONSTRAINT n_small CHECK (coalesce(tablestore.prop_int32(properties, 'n'), 0) < 100);
CREATE FUNCTION pg_temp.refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF tablestore.prop_string(NEW.properties, 'bad') IS NOT NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'P0001', MESSAGE = 'refused by a trigger';
	END IF;
	RETURN NEW;
END $$;
CREATE TRIGGER refuse BEFORE INSERT OR UPDATE ON tablestore_data.fail FOR EACH ROW EXECUTE FUNCTION pg_temp.refuse();
CREATE UNIQUE INDEX fail_email ON tablestore_data.fail (tablestore.filter_key_string(properties, 'Email'));
CREATE FUNCTION pg_temp.state() RETURNS text LANGUAGE sql AS
$$ SELECT md5(string_agg(format('%s|%s|%s', row_key, etag, properties), E'\n' ORDER BY row_key)) FROM tablestore_data.fail $$;
SELECT pg_temp.state() AS before \gset

-- operation 0 (key z, written last) breaks the CHECK; operation 1 (key a, written first) the trigger
SELECT throws_like($$SELECT execute_batch('Fail', '[{"op":"merge","entity":{"PartitionKey":"p","RowKey":"z","n":500}},
	{"op":"merge","entity":{"PartitionKey":"p","RowKey":"a","bad":"x"}}]')$$,
	'operation 0: %n_small%', 'a CHECK failure of operation 0 is named, though operation 1 was written first');
-- operation 0 (z) grows past 1 MiB when merged; operation 1 (a) breaks the CHECK
SELECT throws_like(format($$SELECT execute_batch('Fail', '[{"op":"merge","entity":{"PartitionKey":"p","RowKey":"z",%s}},
	{"op":"merge","entity":{"PartitionKey":"p","RowKey":"a","n":500}}]')$$,
	(SELECT string_agg(format('"s%s":"%s"', i, repeat('y', 32000)), ',') FROM generate_series(1, 16) i)),
	'operation 0: EntityTooLarge%', 'a merged entity over 1 MiB in operation 0 is named');
SELECT throws_ok(format($$SELECT execute_batch('Fail', '[{"op":"merge","entity":{"PartitionKey":"p","RowKey":"z",%s}},
	{"op":"merge","entity":{"PartitionKey":"p","RowKey":"a","n":500}}]')$$,
	(SELECT string_agg(format('"s%s":"%s"', i, repeat('y', 32000)), ',') FROM generate_series(1, 16) i)),
	'TSB11', NULL, 'with its own SQLSTATE');
-- operation 0 (z) takes an Email another entity has; operation 1 (a) is refused by the trigger
SELECT throws_like($$SELECT execute_batch('Fail', '[{"op":"merge","entity":{"PartitionKey":"p","RowKey":"z","Email":"taken@example.com"}},
	{"op":"merge","entity":{"PartitionKey":"p","RowKey":"a","bad":"x"}}]')$$,
	'operation 0: %duplicate key%', 'another unique index broken by operation 0 is named');
-- two operations that clash with each other: in request order the second fails
SELECT throws_like($$SELECT execute_batch('Fail', '[{"op":"merge","entity":{"PartitionKey":"p","RowKey":"z","Email":"same@example.com"}},
	{"op":"merge","entity":{"PartitionKey":"p","RowKey":"a","Email":"same@example.com"}}]')$$,
	'operation 1: %duplicate key%', 'of two operations that clash, the later in request order is named (the service runs them in order)');
-- inserts only: the first insert whose key exists, in request order
SELECT throws_like($$SELECT execute_batch('Fail', '[{"op":"insert","entity":{"PartitionKey":"p","RowKey":"new"}},
	{"op":"insert","entity":{"PartitionKey":"p","RowKey":"z"}},{"op":"insert","entity":{"PartitionKey":"p","RowKey":"a"}}]')$$,
	'operation 1: EntityAlreadyExists%', 'an insert-only batch names the first existing key in request order');
SELECT throws_ok($$SELECT execute_batch('Fail', '[{"op":"insert","entity":{"PartitionKey":"p","RowKey":"new"}},
	{"op":"insert","entity":{"PartitionKey":"p","RowKey":"z"}},{"op":"insert","entity":{"PartitionKey":"p","RowKey":"a"}}]')$$,
	'TSC01', NULL, 'as EntityAlreadyExists');
SELECT is(pg_temp.state(), :'before', 'nothing of any failed batch was written');
SELECT lives_ok($$SELECT execute_batch('Fail', '[{"op":"merge","entity":{"PartitionKey":"p","RowKey":"z","n":2}},
	{"op":"merge","entity":{"PartitionKey":"p","RowKey":"a","n":3}}]')$$, 'a good batch still works');
SELECT is((SELECT string_agg(row_key || '=' || tablestore.prop_int32(properties, 'n'), ',' ORDER BY row_key)
	FROM tablestore_data.fail WHERE row_key IN ('a', 'z')), 'a=3,z=2', 'and wrote both');

SELECT * FROM finish();
ROLLBACK;
