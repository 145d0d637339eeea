-- stamp_trigger: Timestamp and ETag are owned by the server on every write path, including plain
-- SQL INSERT and UPDATE; keys and entities are validated there too.
SET search_path = tablestore, public;
SELECT create_table('Stamped');

\set ECHO none
\i test/regress/helpers.sql
\set ECHO all

-- Plain INSERT: client-supplied timestamp and etag are ignored
INSERT INTO tablestore_data.stamped VALUES ('p', 'a', '1999-01-01', 'W/"forged"', '{"x":1}');
SELECT row_key, "timestamp" > now() - interval '1 minute' AS fresh_timestamp, etag <> 'W/"forged"' AS new_etag,
	   etag LIKE 'W/"datetime''%' AS etag_form
FROM tablestore_data.stamped;

-- The ETag is exactly the service's form of the Timestamp: W/"datetime'<Timestamp>'", trailing
-- zeros dropped, ':' written as %3A (sql/etag_form.sql tests it on every path)
SELECT etag = format('W/"datetime''%sZ''"', replace(regexp_replace(to_char("timestamp" AT TIME ZONE 'UTC',
	'YYYY-MM-DD"T"HH24:MI:SS.US'), '\.?0*$', ''), ':', '%3A')) AS etag_carries_timestamp
FROM tablestore_data.stamped;

-- Keys may come inside properties; they move to the key columns
INSERT INTO tablestore_data.stamped (properties) VALUES ('{"PartitionKey":"p","RowKey":"b","y":2}');
INSERT INTO tablestore_data.stamped (partition_key, properties) VALUES ('p', '{"RowKey":"c"}');
INSERT INTO tablestore_data.stamped (partition_key, row_key, properties) VALUES ('p', 'd', '{"PartitionKey":"p","RowKey":"d"}');
INSERT INTO tablestore_data.stamped (partition_key, row_key) VALUES ('p', 'e');
SELECT row_key, properties FROM tablestore_data.stamped ORDER BY row_key;

-- ... and must agree with them; keys are required and validated
SELECT pg_temp.try($$INSERT INTO tablestore_data.stamped (partition_key, row_key, properties) VALUES ('p', 'f', '{"RowKey":"g"}')$$);
SELECT pg_temp.try($$INSERT INTO tablestore_data.stamped (properties) VALUES ('{"PartitionKey":"p"}')$$);
SELECT pg_temp.try($$INSERT INTO tablestore_data.stamped (row_key) VALUES ('x')$$);
SELECT pg_temp.try($$INSERT INTO tablestore_data.stamped (partition_key, row_key) VALUES ('p', 'a/b')$$);
SELECT pg_temp.try($$INSERT INTO tablestore_data.stamped (partition_key, row_key) VALUES ('p' || chr(1), 'x')$$);
SELECT pg_temp.try($$INSERT INTO tablestore_data.stamped (partition_key, row_key) VALUES ('p', repeat('k', 513))$$);
SELECT pg_temp.try($$INSERT INTO tablestore_data.stamped (partition_key, row_key) VALUES ('p', repeat('k', 512))$$);
-- the 1 MiB limit counts the key columns: an entity exactly at the limit without keys is too big with them
SELECT pg_temp.try(format($$INSERT INTO tablestore_data.stamped (partition_key, row_key, properties) VALUES ('p', 'big', %L)$$,
	'{' || (SELECT string_agg(format('"s%s":"%s"', lpad(i::text, 3, '0'), repeat('x', 32768)), ',') FROM generate_series(1, 15) i) ||
	format(',"b":"%s","b@odata.type":"Edm.Binary"}', replace(encode(decode(repeat('00', 65218), 'hex'), 'base64'), E'\n', ''))));
SELECT count(*) AS rows_after_rejections FROM tablestore_data.stamped;

-- Plain UPDATE: a new Timestamp and ETag, whatever the client sets
SELECT etag AS old_etag, "timestamp" AS old_ts FROM tablestore_data.stamped WHERE row_key = 'a' \gset
UPDATE tablestore_data.stamped SET etag = :'old_etag', "timestamp" = '1999-01-01', properties = '{"x":2}' WHERE row_key = 'a';
SELECT etag <> :'old_etag' AS new_etag, "timestamp" >= :'old_ts' AS not_earlier, properties FROM tablestore_data.stamped WHERE row_key = 'a';
UPDATE tablestore_data.stamped SET etag = 'forged' WHERE row_key = 'b';
SELECT etag <> 'forged' AS forged_etag_replaced FROM tablestore_data.stamped WHERE row_key = 'b';
-- keys cannot change
SELECT pg_temp.try($$UPDATE tablestore_data.stamped SET row_key = 'zz' WHERE row_key = 'a'$$);
SELECT pg_temp.try($$UPDATE tablestore_data.stamped SET partition_key = 'q' WHERE row_key = 'a'$$);
SELECT pg_temp.try($$UPDATE tablestore_data.stamped SET properties = '{"RowKey":"zz"}' WHERE row_key = 'a'$$);
-- an UPDATE that sets properties to NULL leaves an empty entity
UPDATE tablestore_data.stamped SET properties = NULL WHERE row_key = 'e';
SELECT properties FROM tablestore_data.stamped WHERE row_key = 'e';

-- Timestamp never moves backwards for an entity: stamp a future time with the trigger disabled,
-- then write again
ALTER TABLE tablestore_data.stamped DISABLE TRIGGER stamp;
UPDATE tablestore_data.stamped SET "timestamp" = '2999-01-01 00:00:00+00' WHERE row_key = 'c';
ALTER TABLE tablestore_data.stamped ENABLE TRIGGER stamp;
UPDATE tablestore_data.stamped SET properties = '{"v":1}' WHERE row_key = 'c';
SELECT "timestamp" AT TIME ZONE 'UTC' AS kept_future_timestamp FROM tablestore_data.stamped WHERE row_key = 'c';

-- Every write gets a new ETag, distinct from all earlier ones, even within one transaction and one
-- microsecond: 2000 writes of one entity inside one transaction
CREATE TEMP TABLE seen (etag text, ts timestamptz);
DO $$
BEGIN
	FOR i IN 1..1000 LOOP
		INSERT INTO seen SELECT tablestore.merge_entity('Stamped', format('{"PartitionKey":"p","RowKey":"a","n":%s}', i)::tablestore.entity), clock_timestamp();
		UPDATE tablestore_data.stamped SET properties = properties WHERE row_key = 'a';
		INSERT INTO seen SELECT etag, "timestamp" FROM tablestore_data.stamped WHERE row_key = 'a';
	END LOOP;
END $$;
SELECT count(*) AS writes, count(DISTINCT etag) AS distinct_etags FROM seen;
-- and deleting and re-inserting the same keys in one transaction gives new ETags too
BEGIN;
SELECT etag AS e1 FROM tablestore_data.stamped WHERE row_key = 'b' \gset
SELECT delete_entity('Stamped', 'p', 'b');
SELECT insert_entity('Stamped', '{"PartitionKey":"p","RowKey":"b"}') <> :'e1' AS reinserted_etag_differs;
COMMIT;

-- The trigger refuses to run anywhere else
CREATE TABLE not_a_table (a int);
CREATE TRIGGER stamp BEFORE INSERT ON not_a_table FOR EACH ROW EXECUTE FUNCTION tablestore.stamp();
SELECT pg_temp.try('INSERT INTO not_a_table VALUES (1)');
DROP TABLE not_a_table;

-- A user's AFTER row trigger on a store table fires for every write, on the direct path and in
-- batches, and the write leaves no relation open (a "relcache reference leak" warning would show)
SELECT create_table('Watched') IS NOT NULL AS created;
CREATE TABLE watched_log (op text, row_key text);
CREATE FUNCTION pg_temp.watch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO watched_log VALUES (TG_OP, CASE WHEN TG_OP = 'DELETE' THEN OLD.row_key ELSE NEW.row_key END);
	RETURN NULL;
END $$;
CREATE TRIGGER watch AFTER INSERT OR UPDATE OR DELETE ON tablestore_data.watched FOR EACH ROW EXECUTE FUNCTION pg_temp.watch();
SELECT insert_entity('Watched', '{"PartitionKey":"p","RowKey":"1"}') IS NOT NULL AS inserted;
SELECT merge_entity('Watched', '{"PartitionKey":"p","RowKey":"1","A":1}') IS NOT NULL AS merged;
SELECT delete_entity('Watched', 'p', '1');
SELECT jsonb_array_length(tablestore.execute_batch('Watched', '[{"op":"insert","entity":{"PartitionKey":"p","RowKey":"2"}},
	{"op":"upsert_merge","entity":{"PartitionKey":"p","RowKey":"3"}}]')) AS batch_results;
SELECT op, row_key FROM watched_log ORDER BY row_key, op;
-- a foreign key (its checks are AFTER row triggers reading the row's slot) and a trigger with a
-- WHEN clause on the old row: a batch updating rows, then inserting one, fires them all
CREATE TABLE watched_parent (pk text PRIMARY KEY);
INSERT INTO watched_parent VALUES ('p');
ALTER TABLE tablestore_data.watched ADD CONSTRAINT watched_fk FOREIGN KEY (partition_key) REFERENCES watched_parent;
CREATE TRIGGER watch_changed AFTER UPDATE ON tablestore_data.watched FOR EACH ROW
	WHEN (OLD.properties IS DISTINCT FROM NEW.properties) EXECUTE FUNCTION pg_temp.watch();
SELECT jsonb_array_length(tablestore.execute_batch('Watched', '[{"op":"merge","entity":{"PartitionKey":"p","RowKey":"2","A":1}},
	{"op":"merge","entity":{"PartitionKey":"p","RowKey":"3","A":2}},
	{"op":"insert","entity":{"PartitionKey":"p","RowKey":"4"}},
	{"op":"insert","entity":{"PartitionKey":"p","RowKey":"5","B":3}}]')) AS batch_results;
SELECT op, row_key, count(*) FROM watched_log GROUP BY 1, 2 ORDER BY row_key, op;
-- and the foreign key holds, in a batch as in SQL
SELECT pg_temp.try($$SELECT tablestore.execute_batch('Watched', '[{"op":"insert","entity":{"PartitionKey":"q","RowKey":"1"}}]')$$);
DROP TABLE watched_log;
SELECT drop_table('Watched');
DROP TABLE watched_parent;

SELECT drop_table('Stamped');
