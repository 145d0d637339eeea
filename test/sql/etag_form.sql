-- etag_form: an ETag is exactly the service's W/"datetime'<Timestamp>'", where <Timestamp> is the
-- entity's Timestamp as every output writes it (100 ns ticks, trailing zeros dropped, ':' as %3A),
-- on every output path; every write of an entity gets a Timestamp strictly later than its previous
-- one, so ETags stay unique. (What needs rows stamped by hand - one tick later when the clock has
-- not moved, filters at 100 ns, a delete and re-insert, ETags stored before 0.3.0 - is in
-- test/sql/stamp_trigger.sql, which a distributed table's nodes stamp for themselves.)
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

------------------------------------------------------------------ the form, on every output path
SELECT insert_entity('Stamps', '{"PartitionKey":"p","RowKey":"a","n":1}') AS etag \gset
SELECT :'etag' ~ '^W/"datetime''\d{4}-\d\d-\d\dT\d\d%3A\d\d%3A\d\d(\.\d{0,6}[1-9])?Z''"$' AS service_form;
-- the etag column holds it; "timestamp" is its Timestamp (100 ns) rounded down to the microsecond
SELECT etag = :'etag' AS stored,
	left(rpad(regexp_replace(replace(substring(:'etag' FROM 'datetime''([^'']*)Z'), '%3A', ':'), '^([^.]*)$', '\1.'), 27, '0'), 26) =
	to_char("timestamp" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS column_agrees
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

------------------------------------------------------------------ If-Match: a colon as ':', %3A or %3a
-- azure-storage 2.x builds a nometadata entity's ETag from its Timestamp with the colons as they
-- are; the service's form writes them %3A. Either spelling matches, on every path; nothing else
-- does (a colon double-encoded or cut, a doubled colon, another digit, a cut ETag)
SELECT pg_temp.stored('a') AS cur \gset
SELECT e = :'cur' AS stored_form, etag_matches(:'cur', e) AS matches
FROM unnest(ARRAY[:'cur', replace(:'cur', '%3A', ':'), replace(:'cur', '%3A', '%3a'),
	regexp_replace(:'cur', '%3A', ':'), replace(:'cur', '%3A', '%253A'), replace(:'cur', '%3A', '%3'),
	replace(:'cur', '%3A', '::'), replace(:'cur', 'Z''', '1Z'''), left(:'cur', -3) || '"']) e;
SELECT etag_matches(replace(:'cur', '%3A', ':'), :'cur') AS either_side;
-- the weak prefix in either case: w/"..." is the same ETag on every path (the service reads it
-- so); it makes no other ETag match, and another prefix is still not an ETag
SELECT etag_matches(:'cur', 'w' || substr(:'cur', 2)) AS lower_w, etag_matches('w' || substr(:'cur', 2), :'cur') AS either_side_w,
	etag_matches(:'cur', 'w/"datetime''2000-01-01T00%3A00%3A00Z''"') AS other_time;
BEGIN;
SELECT merge_entity('Stamps', '{"PartitionKey":"p","RowKey":"a","c":1}', 'w' || substr(:'cur', 2)) = pg_temp.stored('a') AS "w/ (direct path)";
ROLLBACK;
BEGIN;
SET LOCAL tablestore.fast_path = off;
SELECT merge_entity('Stamps', '{"PartitionKey":"p","RowKey":"a","c":1}', 'w' || substr(:'cur', 2)) = pg_temp.stored('a') AS "w/ (SQL statement)";
ROLLBACK;
BEGIN;
SELECT r->>'etag' = pg_temp.stored('a') AS "w/ (batch)"
FROM jsonb_array_elements(execute_batch('Stamps', jsonb_build_array(jsonb_build_object('op', 'merge',
	'entity', '{"PartitionKey":"p","RowKey":"a","c":1}'::jsonb, 'if_match', 'w' || substr(:'cur', 2))))) r;
ROLLBACK;
SELECT pg_temp.try(format($$SELECT tablestore.merge_entity('Stamps', '{"PartitionKey":"p","RowKey":"a","c":1}', %L)$$,
	'w/"' || substr(:'cur', 4, 30) || '"')) AS lower_w_other,
	pg_temp.try(format($$SELECT tablestore.merge_entity('Stamps', '{"PartitionKey":"p","RowKey":"a","c":1}', %L)$$,
	'x' || substr(:'cur', 2))) AS other_prefix;
BEGIN;
SELECT merge_entity('Stamps', '{"PartitionKey":"p","RowKey":"a","c":1}', replace(:'cur', '%3A', ':')) = pg_temp.stored('a') AS "raw colons (direct path)";
ROLLBACK;
BEGIN;
SET LOCAL tablestore.fast_path = off;
SELECT merge_entity('Stamps', '{"PartitionKey":"p","RowKey":"a","c":1}', replace(:'cur', '%3A', '%3a')) = pg_temp.stored('a') AS "lowercase %3a (SQL statement)";
ROLLBACK;
BEGIN;
SELECT r->>'etag' = pg_temp.stored('a') AS "raw colons (batch)"
FROM jsonb_array_elements(execute_batch('Stamps', jsonb_build_array(jsonb_build_object('op', 'merge',
	'entity', '{"PartitionKey":"p","RowKey":"a","c":1}'::jsonb, 'if_match', replace(:'cur', '%3A', ':'))))) r;
ROLLBACK;
SELECT pg_temp.try(format($$SELECT tablestore.merge_entity('Stamps', '{"PartitionKey":"p","RowKey":"a","c":1}', %L)$$,
	replace(:'cur', '%3A', '%253A'))) AS double_encoded;
SELECT pg_temp.stored('a') = :'cur' AS unchanged;

------------------------------------------------------------------ If-Match: seven fractional digits
-- Azurite (and the service for some Timestamps) writes an ETag's fraction of a second with seven
-- digits always; tablestore drops the trailing zeros. An ETag such a source issued, its Timestamp
-- kept by tablestore-copy --keep-timestamps (import_timestamps), names the same instant and
-- matches, on every path; another instant, an eighth digit, a cut fraction or another form does not.
BEGIN;
SELECT import_timestamps('Stamps');
INSERT INTO tablestore_data.stamps (partition_key, row_key, etag, properties)
VALUES ('z', 'frac', 'W/"datetime''2014-08-22T00%3A50%3A44.12Z''"', '{"n":1}'),
	('z', 'whole', 'W/"datetime''2014-08-22T00%3A50%3A44Z''"', '{"n":1}'),
	('z', 'seven', 'W/"datetime''2014-08-22T00%3A50%3A44.1234567Z''"', '{"n":1}');
COMMIT;
SELECT row_key, etag FROM tablestore_data.stamps WHERE partition_key = 'z' ORDER BY row_key;
-- against the stored .12 and the stored whole second
SELECT e, etag_matches('W/"datetime''2014-08-22T00%3A50%3A44.12Z''"', e) AS matches,
	etag_matches(e, 'W/"datetime''2014-08-22T00%3A50%3A44.12Z''"') AS either_side
FROM unnest(ARRAY['W/"datetime''2014-08-22T00%3A50%3A44.1200000Z''"', 'W/"datetime''2014-08-22T00:50:44.1200000Z''"',
	'W/"datetime''2014-08-22T00%3a50%3a44.120Z''"', 'W/"datetime''2014-08-22T00%3A50%3A44.1200001Z''"',
	'W/"datetime''2014-08-22T00%3A50%3A44.12000000Z''"', 'W/"datetime''2014-08-22T00%3A50%3A44.1Z''"',
	'W/"datetime''2014-08-22T00%3A50%3A44.1200000''"', 'W/"datetime''2014-08-22T00%3A50%3A44.1200000Z''"-1.2"']) e;
SELECT e, etag_matches('W/"datetime''2014-08-22T00%3A50%3A44Z''"', e) AS matches,
	etag_matches(e, 'W/"datetime''2014-08-22T00%3A50%3A44Z''"') AS either_side
FROM unnest(ARRAY['W/"datetime''2014-08-22T00%3A50%3A44.0000000Z''"', 'W/"datetime''2014-08-22T00%3A50%3A44.0Z''"',
	'W/"datetime''2014-08-22T00%3A50%3A44.Z''"', 'W/"datetime''2014-08-22T00%3A50%3A44.0000001Z''"',
	'W/"datetime''2014-08-22T00%3A50%3A44.00000000Z''"', 'W/"datetime''2014-08-22T00%3A50%3A40Z''"',
	'W/"datetime''2014-08-22T00%3A50%3A4Z''"']) e;
BEGIN;
SELECT merge_entity('Stamps', '{"PartitionKey":"z","RowKey":"frac","c":1}',
	'W/"datetime''2014-08-22T00%3A50%3A44.1200000Z''"') = pg_temp.stored('frac') AS "seven digits (direct path)";
ROLLBACK;
BEGIN;
SET LOCAL tablestore.fast_path = off;
SELECT merge_entity('Stamps', '{"PartitionKey":"z","RowKey":"whole","c":1}',
	'W/"datetime''2014-08-22T00%3A50%3A44.0000000Z''"') = pg_temp.stored('whole') AS "seven digits (SQL statement)";
ROLLBACK;
BEGIN;
SELECT r->>'etag' = pg_temp.stored('frac') AS "seven digits (batch)"
FROM jsonb_array_elements(execute_batch('Stamps', jsonb_build_array(jsonb_build_object('op', 'merge',
	'entity', '{"PartitionKey":"z","RowKey":"frac","c":1}'::jsonb,
	'if_match', 'W/"datetime''2014-08-22T00:50:44.1200000Z''"')))) r;
ROLLBACK;
BEGIN;
SELECT rest_write_entity('Stamps', 'z', 'frac', '{"c":1}', true, 'W/"datetime''2014-08-22T00%3A50%3A44.1200000Z''"') =
	pg_temp.stored('frac') AS "seven digits (REST)";
ROLLBACK;
SELECT pg_temp.try($$SELECT tablestore.merge_entity('Stamps', '{"PartitionKey":"z","RowKey":"frac","c":1}',
	'W/"datetime''2014-08-22T00%3A50%3A44.1200001Z''"')$$) AS another_instant;
SELECT pg_temp.try($$SELECT tablestore.merge_entity('Stamps', '{"PartitionKey":"z","RowKey":"seven","c":1}',
	'W/"datetime''2014-08-22T00%3A50%3A44.12345670Z''"')$$) AS eighth_digit;
SELECT pg_temp.try($$SELECT tablestore.execute_batch('Stamps', jsonb_build_array(jsonb_build_object('op', 'merge',
	'entity', '{"PartitionKey":"z","RowKey":"whole","c":1}'::jsonb,
	'if_match', 'W/"datetime''2014-08-22T00%3A50%3A44.0000001Z''"')))::text$$) AS another_instant_batch;
SELECT count(*) FILTER (WHERE properties::text LIKE '%"c"%') AS changed FROM tablestore_data.stamps WHERE partition_key = 'z';
DELETE FROM tablestore_data.stamps WHERE partition_key = 'z';

------------------------------------------------------------------ unique, in one transaction and over many
-- 999 writes of one entity in one transaction, 3 per round (direct path, plain UPDATE, batch), on
-- the clock: each Timestamp later than the one before, every ETag distinct (stamped ahead of the
-- clock, one tick apart: test/sql/stamp_trigger.sql)
CREATE TEMP TABLE seen (n serial, etag text, t int8);
SELECT insert_entity('Stamps', '{"PartitionKey":"q","RowKey":"x"}') IS NOT NULL AS inserted;
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
SELECT count(*) FILTER (WHERE t <= prev) AS not_later_than_the_write_before
FROM (SELECT t, lag(t) OVER (ORDER BY n) AS prev FROM seen) s;
-- a batch touching one key in each of 200 transactions: Timestamps strictly increasing, ETags
-- distinct
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

SELECT drop_table('Stamps');
