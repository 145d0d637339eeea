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
-- zeros dropped, ':' written as %3A (test/sql/etag_form.sql tests it on every path); the "timestamp"
-- column is that Timestamp (100 ns) rounded down to the microsecond
SELECT etag ~ '^W/"datetime''\d{4}-\d\d-\d\dT\d\d%3A\d\d%3A\d\d(\.\d{0,6}[1-9])?Z''"$' AND
	left(rpad(regexp_replace(replace(substring(etag FROM 'datetime''([^'']*)Z'), '%3A', ':'), '^([^.]*)$', '\1.'), 27, '0'), 26) =
	to_char("timestamp" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS etag_carries_timestamp
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

------------------------------------------------------------------ Timestamps at 100 ns, rows stamped by hand
-- (test/sql/etag_form.sql tests the form on every output path.) Rows stamped with the trigger left out
-- - as 0.2.0 left them, or with a Timestamp ahead of the clock, so that every write after it is one
-- tick later and the output is the same on every run.
SELECT create_table('Stamps') IS NOT NULL AS created;
SELECT insert_entity('Stamps', '{"PartitionKey":"p","RowKey":"a","n":1}') IS NOT NULL AS inserted;
SELECT insert_entity('Stamps', '{"PartitionKey":"p","RowKey":"i"}') IS NOT NULL AS inserted;
SELECT insert_entity('Stamps', '{"PartitionKey":"p","RowKey":"j"}') IS NOT NULL AS inserted;

-- The ETag a Timestamp's text gives, as a client such as azure-cosmosdb-table builds it
CREATE FUNCTION pg_temp.etag_of(ts text) RETURNS text LANGUAGE sql AS $$
	SELECT format('W/"datetime''%s''"', replace(ts, ':', '%3A'))
$$;
-- A row's stamps set by hand, the trigger left out (as a row written before 0.3.0, or one whose
-- Timestamp lies ahead of the clock: every write after it is one tick later, the same on every run)
CREATE FUNCTION pg_temp.set_stamps(rk text, ts timestamptz, etag text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	SET LOCAL session_replication_role = replica;
	UPDATE tablestore_data.stamps SET "timestamp" = ts, etag = set_stamps.etag WHERE row_key = rk;
	SET LOCAL session_replication_role = origin;
END $$;

------------------------------------------------------------------ one tick later when the clock has not moved
-- A Timestamp ahead of the clock: each write after it is one tick later, on every path
SELECT pg_temp.set_stamps('a', '2999-01-01 00:00:00+00', pg_temp.etag_of('2999-01-01T00:00:00Z'));
SELECT merge_entity('Stamps', '{"PartitionKey":"p","RowKey":"a","n":7}') AS "merge (direct path)";
SET tablestore.fast_path = off;
SELECT update_entity('Stamps', '{"PartitionKey":"p","RowKey":"a","n":8}') AS "update (SQL statement)";
RESET tablestore.fast_path;
UPDATE tablestore_data.stamps SET properties = '{"n":9}' WHERE row_key = 'a' RETURNING etag AS "plain UPDATE";
SELECT r->>'etag' AS "batch" FROM jsonb_array_elements(execute_batch('Stamps', '[{"op":"upsert_merge","entity":{"PartitionKey":"p","RowKey":"a","n":10}}]')) r;
SELECT rest_write_entity('Stamps', 'p', 'a', '{"n":11}', false) AS "REST upsert";
SELECT etag AS "REST batch" FROM rest_batch('Stamps', '[{"op":"merge","entity":{"PartitionKey":"p","RowKey":"a","n":12}}]');
SELECT upsert_entity('Stamps', '{"PartitionKey":"p","RowKey":"a","n":13}') AS "upsert";
SELECT merge_entity('Stamps', '{"PartitionKey":"p","RowKey":"a","n":14}') AS "8 ticks";
SELECT merge_entity('Stamps', '{"PartitionKey":"p","RowKey":"a","n":15}') AS "9 ticks";
-- the tenth tick is the next microsecond: trailing zeros dropped, the column follows
SELECT merge_entity('Stamps', '{"PartitionKey":"p","RowKey":"a","n":16}') AS "10 ticks";
SELECT "timestamp" AT TIME ZONE 'UTC' AS column_rounded_down, timestamp_ticks("timestamp", etag) FROM tablestore_data.stamps WHERE row_key = 'a';
-- every output shows the same Timestamp and ETag
SELECT etag, properties FROM get_entity('Stamps', 'p', 'a');
SELECT v->>'odata.etag' AS etag, v->>'Timestamp' AS "Timestamp" FROM jsonb_array_elements(query_page('Stamps', 'RowKey eq ''a''', NULL)->'value') v;
SELECT etag, body FROM rest_get_entity('Stamps', 'p', 'a', 'n', 'minimalmetadata');

------------------------------------------------------------------ a Timestamp filter is exact at 100 ns
SELECT pg_temp.set_stamps('i', '2999-01-01 00:00:00+00', pg_temp.etag_of('2999-01-01T00:00:00.0000003Z'));
SELECT pg_temp.set_stamps('j', '2999-01-01 00:00:00+00', pg_temp.etag_of('2999-01-01T00:00:00Z'));
-- a: ...00.000001Z, i: ...00.0000003Z, j: ...00Z (the same "timestamp" column for i and j)
SELECT f, (SELECT string_agg(row_key, ',' ORDER BY row_key) FROM query_entities('Stamps', f)) AS matches
FROM unnest(ARRAY[
	'Timestamp eq datetime''2999-01-01T00:00:00.0000003Z''',
	'Timestamp ne datetime''2999-01-01T00:00:00.0000003Z''',
	'Timestamp gt datetime''2999-01-01T00:00:00Z''',
	'Timestamp gt datetime''2999-01-01T00:00:00.0000003Z''',
	'Timestamp ge datetime''2999-01-01T00:00:00.0000003Z''',
	'Timestamp lt datetime''2999-01-01T00:00:00.0000003Z''',
	'Timestamp le datetime''2999-01-01T00:00:00.0000003Z''',
	'Timestamp lt datetime''2999-01-01T00:00:00.000001Z''',
	'Timestamp ge datetime''2999-01-01T00:00:00.000001Z''',
	'Timestamp le datetime''2999-01-01T00:00:00Z''',
	'Timestamp eq datetime''2999-01-01T00:00:00Z''',
	'not (Timestamp gt datetime''2999-01-01T00:00:00.0000002Z'')']) f;
SELECT odata_to_sql('Timestamp gt datetime''2999-01-01T00:00:00.0000003Z''');
SELECT odata_to_sql('Timestamp lt datetime''2999-01-01T00:00:00Z''');

------------------------------------------------------------------ deleted and inserted again
-- in one transaction: the deleted version (dead, still in the table) is ahead of the clock, and
-- the new one is stamped after it
BEGIN;
SELECT delete_entity('Stamps', 'p', 'a');
SELECT insert_entity('Stamps', '{"PartitionKey":"p","RowKey":"a"}') AS "inserted after a delete";
SELECT delete_entity('Stamps', 'p', 'a');
INSERT INTO tablestore_data.stamps (partition_key, row_key) VALUES ('p', 'a') RETURNING etag AS "plain INSERT after a delete";
COMMIT;
-- and in the next transaction, on both paths and by a batch
SELECT delete_entity('Stamps', 'p', 'a');
SELECT insert_entity('Stamps', '{"PartitionKey":"p","RowKey":"a"}') AS "inserted after a committed delete";
SELECT delete_entity('Stamps', 'p', 'a');
SET tablestore.fast_path = off;
SELECT insert_entity('Stamps', '{"PartitionKey":"p","RowKey":"a"}') AS "inserted after a committed delete";
RESET tablestore.fast_path;
SELECT delete_entity('Stamps', 'p', 'a');
SELECT execute_batch('Stamps', '[{"op":"insert","entity":{"PartitionKey":"p","RowKey":"a"}},
	{"op":"insert","entity":{"PartitionKey":"p","RowKey":"a2"}}]')->0->>'etag' AS "batch insert after a delete";

------------------------------------------------------------------ unique in one transaction and one microsecond
-- 999 writes of one entity in one transaction, 3 per round (direct path, plain UPDATE, batch),
-- all in one microsecond (it starts ahead of the clock): each Timestamp one tick after the one
-- before, every ETag distinct
CREATE TEMP TABLE seen_ticks (n serial, etag text, t int8);
SELECT insert_entity('Stamps', '{"PartitionKey":"q","RowKey":"x"}') IS NOT NULL AS inserted;
UPDATE tablestore_data.stamps SET properties = properties WHERE partition_key = 'q' AND row_key = 'x';
SET session_replication_role = replica;
UPDATE tablestore_data.stamps SET "timestamp" = '2998-01-01 00:00:00+00', etag = pg_temp.etag_of('2998-01-01T00:00:00Z')
WHERE partition_key = 'q' AND row_key = 'x';
RESET session_replication_role;
CREATE FUNCTION pg_temp.note_tick(returned text) RETURNS void LANGUAGE sql AS $$
	INSERT INTO seen_ticks (etag, t) SELECT etag, timestamp_ticks("timestamp", etag) FROM tablestore_data.stamps
	WHERE partition_key = 'q' AND row_key = 'x' AND (returned IS NULL OR etag = returned)
$$;
DO $$
BEGIN
	FOR i IN 1..333 LOOP
		PERFORM pg_temp.note_tick(tablestore.merge_entity('Stamps', format('{"PartitionKey":"q","RowKey":"x","n":%s}', i)::tablestore.entity));
		UPDATE tablestore_data.stamps SET properties = properties WHERE partition_key = 'q';
		PERFORM pg_temp.note_tick(NULL);
		PERFORM pg_temp.note_tick(r->>'etag') FROM jsonb_array_elements(tablestore.execute_batch('Stamps',
			format('[{"op":"merge","entity":{"PartitionKey":"q","RowKey":"x","m":%s}}]', i)::jsonb)) r;
	END LOOP;
END $$;
-- (a write whose returned ETag were not the row's would be missing here)
SELECT count(*) AS writes, count(DISTINCT etag) AS distinct_etags FROM seen_ticks;
SELECT count(*) FILTER (WHERE t <> prev + 1) AS not_one_tick_later
FROM (SELECT t, lag(t) OVER (ORDER BY n) AS prev FROM seen_ticks) s;
SELECT etag AS last_of_them FROM seen_ticks ORDER BY n DESC LIMIT 1;

------------------------------------------------------------------ ETags stored before 0.3.0
-- a row as 0.2.0 left it: the Timestamp with seven digits and a unique suffix
SELECT pg_temp.set_stamps('i', '2020-01-02 03:04:05.12345+00', 'W/"datetime''2020-01-02T03%3A04%3A05.1234500Z''-2f1.9"');
-- every output shows the service's form of its Timestamp
SELECT etag FROM get_entity('Stamps', 'p', 'i');
SELECT etag FROM query_entities('Stamps', 'RowKey eq ''i''');
SELECT etag, body FROM rest_get_entity('Stamps', 'p', 'i', NULL, 'minimalmetadata');
SELECT timestamp_ticks("timestamp", etag) FROM tablestore_data.stamps WHERE row_key = 'i';
-- If-Match: the old ETag (a client that read it before the upgrade) and the one shown now (its
-- fraction with or without trailing zeros: the same instant) match the unchanged row; anything
-- else does not
SELECT etag_matches('W/"datetime''2020-01-02T03%3A04%3A05.1234500Z''-2f1.9"', e) AS matches, e
FROM unnest(ARRAY['W/"datetime''2020-01-02T03%3A04%3A05.1234500Z''-2f1.9"', 'W/"datetime''2020-01-02T03%3A04%3A05.12345Z''"',
	'W/"datetime''2020-01-02T03%3A04%3A05.1234500Z''"', 'W/"datetime''2020-01-02T03%3A04%3A05.12346Z''"',
	'W/"datetime''2020-01-02T03%3A04%3A05.1234500Z''-2f1.a"',
	-- with plain colons (a client building the ETag from the Timestamp): the same two match
	'W/"datetime''2020-01-02T03:04:05.12345Z''"', 'W/"datetime''2020-01-02T03:04:05.1234500Z''-2f1.9"']) e;
SELECT pg_temp.try($$SELECT tablestore.merge_entity('Stamps', '{"PartitionKey":"p","RowKey":"i","v":1}', 'W/"datetime''2020-01-02T03%3A04%3A05.12346Z''"')$$) AS stale;
BEGIN;
SELECT merge_entity('Stamps', '{"PartitionKey":"p","RowKey":"i","v":1}', 'W/"datetime''2020-01-02T03%3A04%3A05.1234500Z''-2f1.9"') <> '' AS "old ETag (direct path)";
ROLLBACK;
BEGIN;
SET LOCAL tablestore.fast_path = off;
SELECT merge_entity('Stamps', '{"PartitionKey":"p","RowKey":"i","v":1}', 'W/"datetime''2020-01-02T03%3A04%3A05.12345Z''"') <> '' AS "shown ETag (SQL statement)";
ROLLBACK;
BEGIN;
SELECT r FROM jsonb_array_elements(execute_batch('Stamps', '[{"op":"delete","entity":{"PartitionKey":"p","RowKey":"i"},"if_match":"W/\"datetime''2020-01-02T03%3A04%3A05.12345Z''\""}]')) r;
ROLLBACK;
SELECT pg_temp.try($$SELECT tablestore.execute_batch('Stamps', '[{"op":"delete","entity":{"PartitionKey":"p","RowKey":"i"},"if_match":"W/\"datetime''2020-01-02T03%3A04%3A05.12346Z''\""}]')$$) AS stale_in_batch;
-- the next write gives the service's form, strictly later
SELECT delete_entity('Stamps', 'p', 'i', 'W/"datetime''2020-01-02T03%3A04%3A05.12345Z''"');
SELECT count(*) AS deleted_row_left FROM tablestore_data.stamps WHERE row_key = 'i';
-- a row as 0.3.0 wrote it before Timestamps had 100 ns (whole microseconds, an ETag of six
-- digits) keeps its ETag and still matches it; its next write is one tick later
SELECT insert_entity('Stamps', '{"PartitionKey":"p","RowKey":"old"}') IS NOT NULL AS inserted;
SELECT pg_temp.set_stamps('old', '2999-01-01 00:00:00.123456+00', 'W/"datetime''2999-01-01T00%3A00%3A00.123456Z''"');
SELECT etag FROM get_entity('Stamps', 'p', 'old');
SELECT update_entity('Stamps', '{"PartitionKey":"p","RowKey":"old","n":1}', 'W/"datetime''2999-01-01T00%3A00%3A00.123456Z''"') AS written_after;

SELECT drop_table('Stamps');

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
