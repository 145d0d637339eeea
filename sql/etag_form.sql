-- etag_form: an ETag is exactly the service's W/"datetime'<Timestamp>'", where <Timestamp> is the
-- entity's Timestamp as every output writes it (100 ns ticks, trailing zeros dropped, ':' as %3A),
-- on every output path; every write of an entity gets a Timestamp strictly later than its previous
-- one (one tick later when the clock has not moved) and than a deleted version's, so ETags stay
-- unique; ETags stored before 0.3.0 (with their "-<xid>.<n>" suffix) keep matching.
SET search_path = tablestore, public;

\set ECHO none
\i test/regress/helpers.sql
\set ECHO all

SELECT create_table('Stamps') IS NOT NULL AS created;

-- The ETag a Timestamp's text gives, as a client such as azure-cosmosdb-table builds it
CREATE FUNCTION pg_temp.etag_of(ts text) RETURNS text LANGUAGE sql AS $$
	SELECT format('W/"datetime''%s''"', replace(ts, ':', '%3A'))
$$;
-- The ETag and the Timestamp of one entity of a page or body: do they agree?
CREATE FUNCTION pg_temp.agree(e jsonb) RETURNS bool LANGUAGE sql AS $$
	SELECT e->>'odata.etag' = pg_temp.etag_of(e->>'Timestamp')
$$;
-- A row's stamps set by hand, the trigger left out (as a row written before 0.3.0, or one whose
-- Timestamp lies ahead of the clock: every write after it is one tick later, the same on every run)
CREATE FUNCTION pg_temp.set_stamps(rk text, ts timestamptz, etag text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	SET LOCAL session_replication_role = replica;
	UPDATE tablestore_data.stamps SET "timestamp" = ts, etag = set_stamps.etag WHERE row_key = rk;
	SET LOCAL session_replication_role = origin;
END $$;

------------------------------------------------------------------ the form, on every output path
SELECT insert_entity('Stamps', '{"PartitionKey":"p","RowKey":"a","n":1}') AS etag \gset
SELECT :'etag' ~ '^W/"datetime''\d{4}-\d\d-\d\dT\d\d%3A\d\d%3A\d\d(\.\d{0,6}[1-9])?Z''"$' AS service_form;
-- the etag column holds it; "timestamp" is its Timestamp rounded down to the microsecond
SELECT etag = :'etag' AS stored,
	:'etag' = pg_temp.etag_of(regexp_replace(to_char("timestamp" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US'), '\.?0*$', '') || 'Z') AS column_agrees
FROM tablestore_data.stamps WHERE row_key = 'a';
SELECT etag = :'etag' AS get_entity FROM get_entity('Stamps', 'p', 'a');
SELECT etag = :'etag' AS query_entities FROM query_entities('Stamps', 'RowKey eq ''a''');
SELECT pg_temp.agree(v) AS query_page, v->>'odata.etag' = :'etag' AS same_etag
FROM jsonb_array_elements(query_page('Stamps', 'RowKey eq ''a''', NULL)->'value') v;
SELECT pg_temp.agree(v) AS query_page_json, v->>'odata.etag' = :'etag' AS same_etag
FROM jsonb_array_elements(query_page_json('Stamps', 'RowKey eq ''a''', NULL)::jsonb->'value') v;
SELECT etag = :'etag' AS rest_get_entity, pg_temp.agree(body::jsonb) AS body_agrees
FROM rest_get_entity('Stamps', 'p', 'a', NULL, 'fullmetadata', 'http://h/a', 'a');
SELECT pg_temp.agree(v) AS rest_query_entities
FROM rest_query_entities('Stamps', 'RowKey eq ''a''', NULL, NULL, NULL, NULL, 'minimalmetadata') q,
	jsonb_array_elements(q.body::jsonb->'value') v;
-- what each write returns is the ETag it stored
CREATE FUNCTION pg_temp.stored(rk text) RETURNS text LANGUAGE sql AS $$
	SELECT etag FROM tablestore_data.stamps WHERE row_key = rk
$$;
SELECT etag AS w, pg_temp.agree(body::jsonb) AS rest_insert_body_agrees
FROM rest_insert_entity('Stamps', '{"PartitionKey":"p","RowKey":"i"}', true, 'minimalmetadata') \gset
SELECT :'w' = pg_temp.stored('i') AS rest_insert_entity, :'rest_insert_body_agrees' AS body_agrees;
SELECT rest_write_entity('Stamps', 'p', 'a', '{"n":2}', true, :'etag') AS w \gset
SELECT :'w' = pg_temp.stored('a') AS rest_write_entity, :'w' <> :'etag' AS new_etag;
CREATE TEMP TABLE batch_answer AS SELECT * FROM rest_batch('Stamps', '[{"op":"insert","entity":{"PartitionKey":"p","RowKey":"j"},"echo":true},
	{"op":"merge","entity":{"PartitionKey":"p","RowKey":"a","n":3}}]', 'minimalmetadata');
SELECT row_key, etag = pg_temp.stored(row_key) AS rest_batch, pg_temp.agree(body::jsonb) AS body_agrees FROM batch_answer;
SELECT execute_batch('Stamps', '[{"op":"merge","entity":{"PartitionKey":"p","RowKey":"a","n":4}}]')->0->>'etag' AS w \gset
SELECT :'w' = pg_temp.stored('a') AS execute_batch;
SELECT merge_entity('Stamps', '{"PartitionKey":"p","RowKey":"a","n":5}') AS w \gset
SELECT :'w' = pg_temp.stored('a') AS merge_entity;
SELECT upsert_entity('Stamps', '{"PartitionKey":"p","RowKey":"a","n":6}', 'replace') AS w \gset
SELECT :'w' = pg_temp.stored('a') AS upsert_entity;
-- every row: its etag is the service's form of tablestore.timestamp_ticks, which rounded down to
-- the microsecond is its "timestamp"
SELECT count(*) AS rows,
	count(*) FILTER (WHERE (timestamp_ticks("timestamp", etag) - 630822816000000000) / 10 =
		(extract(epoch FROM "timestamp" - '2000-01-01 00:00:00+00') * 1000000)::int8) AS ticks_agree_with_column
FROM tablestore_data.stamps;

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
CREATE TEMP TABLE seen (n serial, etag text, t int8);
SELECT insert_entity('Stamps', '{"PartitionKey":"q","RowKey":"x"}') IS NOT NULL AS inserted;
UPDATE tablestore_data.stamps SET properties = properties WHERE partition_key = 'q' AND row_key = 'x';
SET session_replication_role = replica;
UPDATE tablestore_data.stamps SET "timestamp" = '2998-01-01 00:00:00+00', etag = pg_temp.etag_of('2998-01-01T00:00:00Z')
WHERE partition_key = 'q' AND row_key = 'x';
RESET session_replication_role;
CREATE FUNCTION pg_temp.note(returned text) RETURNS void LANGUAGE sql AS $$
	INSERT INTO seen (etag, t) SELECT etag, timestamp_ticks("timestamp", etag) FROM tablestore_data.stamps
	WHERE partition_key = 'q' AND row_key = 'x' AND (returned IS NULL OR etag = returned)
$$;
DO $$
BEGIN
	FOR i IN 1..333 LOOP
		PERFORM pg_temp.note(tablestore.merge_entity('Stamps', format('{"PartitionKey":"q","RowKey":"x","n":%s}', i)::tablestore.entity));
		UPDATE tablestore_data.stamps SET properties = properties WHERE partition_key = 'q';
		PERFORM pg_temp.note(NULL);
		PERFORM pg_temp.note(r->>'etag') FROM jsonb_array_elements(tablestore.execute_batch('Stamps',
			format('[{"op":"merge","entity":{"PartitionKey":"q","RowKey":"x","m":%s}}]', i)::jsonb)) r;
	END LOOP;
END $$;
-- (a write whose returned ETag were not the row's would be missing here)
SELECT count(*) AS writes, count(DISTINCT etag) AS distinct_etags FROM seen;
SELECT count(*) FILTER (WHERE t <> prev + 1) AS not_one_tick_later
FROM (SELECT t, lag(t) OVER (ORDER BY n) AS prev FROM seen) s;
SELECT etag AS last_of_them FROM seen ORDER BY n DESC LIMIT 1;
-- a batch touching one key in each of 200 transactions, on the clock: Timestamps strictly
-- increasing, ETags distinct
SET session_replication_role = replica;
UPDATE tablestore_data.stamps SET "timestamp" = '2020-01-01 00:00:00+00', etag = pg_temp.etag_of('2020-01-01T00:00:00Z')
WHERE partition_key = 'q' AND row_key = 'x';
RESET session_replication_role;
TRUNCATE seen;
DO $$
BEGIN
	FOR i IN 1..200 LOOP
		PERFORM pg_temp.note(r->>'etag') FROM jsonb_array_elements(tablestore.execute_batch('Stamps',
			format('[{"op":"upsert_replace","entity":{"PartitionKey":"q","RowKey":"x","i":%s}},{"op":"upsert_merge","entity":{"PartitionKey":"q","RowKey":"y%s"}}]', i, i)::jsonb)) WITH ORDINALITY AS r(r, k)
			WHERE k = 1;
		COMMIT;
	END LOOP;
END $$;
SELECT count(*) AS writes, count(DISTINCT etag) AS distinct_etags FROM seen;
SELECT count(*) FILTER (WHERE t <= prev) AS not_later_than_the_write_before
FROM (SELECT t, lag(t) OVER (ORDER BY n) AS prev FROM seen) s;

------------------------------------------------------------------ ETags stored before 0.3.0
-- a row as 0.2.0 left it: the Timestamp with seven digits and a unique suffix
SELECT pg_temp.set_stamps('i', '2020-01-02 03:04:05.12345+00', 'W/"datetime''2020-01-02T03%3A04%3A05.1234500Z''-2f1.9"');
-- every output shows the service's form of its Timestamp
SELECT etag FROM get_entity('Stamps', 'p', 'i');
SELECT etag FROM query_entities('Stamps', 'RowKey eq ''i''');
SELECT etag, body FROM rest_get_entity('Stamps', 'p', 'i', NULL, 'minimalmetadata');
SELECT timestamp_ticks("timestamp", etag) FROM tablestore_data.stamps WHERE row_key = 'i';
-- If-Match: the old ETag (a client that read it before the upgrade) and the one shown now both
-- match the unchanged row; anything else does not
SELECT etag_matches('W/"datetime''2020-01-02T03%3A04%3A05.1234500Z''-2f1.9"', e) AS matches, e
FROM unnest(ARRAY['W/"datetime''2020-01-02T03%3A04%3A05.1234500Z''-2f1.9"', 'W/"datetime''2020-01-02T03%3A04%3A05.12345Z''"',
	'W/"datetime''2020-01-02T03%3A04%3A05.1234500Z''"', 'W/"datetime''2020-01-02T03%3A04%3A05.12346Z''"',
	'W/"datetime''2020-01-02T03%3A04%3A05.1234500Z''-2f1.a"']) e;
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

SELECT drop_table('Stamps');
