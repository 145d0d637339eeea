-- timestamp_ticks: Timestamps and ETags carry the clock's 100 ns ticks (contract §4: seven
-- fractional digits, as every ETag the service issues has), not microseconds padded with a 0.
-- The ticks are kept end to end: stored (the etag column; "timestamp" holds them rounded down to
-- the microsecond), compared (Timestamp in $filter), written out and matched by If-Match; each
-- write of an entity is strictly later than its previous one (one tick later when the clock has
-- not moved) on every path. (Rows written before, whose stamps a test sets by hand, keep their
-- ETags: test/sql/stamp_trigger.sql, which a distributed table's nodes stamp for themselves.)
SET search_path = tablestore, public;

\set ECHO none
\i test/regress/helpers.sql
\set ECHO all

SELECT create_table('Ticks') IS NOT NULL AS created;
-- 40 entities, each written on its own: the clock's 100 ns show in their ticks (with microseconds
-- every one of them ended in 0; with 100 ns all 40 do so with a chance of 1e-40)
SELECT count(*) AS inserted FROM generate_series(1, 40) i, LATERAL insert_entity('Ticks', format('{"PartitionKey":"p","RowKey":"%s"}', i)::entity) e;
SELECT count(*) FILTER (WHERE timestamp_ticks("timestamp", etag) % 10 <> 0) > 0 AS some_seventh_digit,
	   count(*) FILTER (WHERE etag ~ '\.\d{7}Z''"$') > 0 AS some_etag_of_seven_digits,
	   count(*) FILTER (WHERE "timestamp" <> timestamptz '2000-01-01 00:00:00+00' +
			(timestamp_ticks("timestamp", etag) - 630822816000000000) / 10 * interval '1 microsecond') AS column_not_ticks_rounded_down
FROM tablestore_data.ticks;
-- every output shows the same 100 ns Timestamp: a page, the SQL rows, the REST body, the ETag
SELECT bool_and(e->>'odata.etag' = format('W/"datetime''%s''"', replace(e->>'Timestamp', ':', '%3A'))) AS page_etag_is_timestamp,
	   bool_and(e->>'odata.etag' = r.etag) AS page_etag_is_stored
FROM jsonb_array_elements(query_page('Ticks', 'PartitionKey eq ''p''', NULL)->'value') e
JOIN tablestore_data.ticks r ON r.row_key = e->>'RowKey';
SELECT bool_and(g.etag = r.etag) AS get_entity_etag_is_stored
FROM tablestore_data.ticks r, LATERAL get_entity('Ticks', 'p', r.row_key) g;

-- one entity written 50 times in one statement: strictly later each time, in ticks
CREATE TEMP TABLE versions (n int, ticks int8, etag text);
DO $$
DECLARE
	tag text;
BEGIN
	FOR i IN 1..50 LOOP
		tag := tablestore.merge_entity('Ticks', format('{"PartitionKey":"p","RowKey":"1","n":%s}', i)::tablestore.entity);
		INSERT INTO versions SELECT i, tablestore.timestamp_ticks("timestamp", etag), etag FROM tablestore_data.ticks WHERE row_key = '1';
		IF (SELECT etag FROM versions WHERE n = i) <> tag THEN
			RAISE EXCEPTION 'the returned ETag is not the stored one';
		END IF;
	END LOOP;
END $$;
SELECT count(DISTINCT etag) AS distinct_etags,
	   bool_and(ticks > prev) AS strictly_later
FROM (SELECT etag, ticks, lag(ticks) OVER (ORDER BY n) AS prev FROM versions) v;
-- If-Match with the 100 ns ETag: the current one matches, the one before does not
SELECT pg_temp.try(format($$SELECT tablestore.update_entity('Ticks', '{"PartitionKey":"p","RowKey":"1","n":0}', %L) IS NOT NULL$$,
	(SELECT etag FROM versions WHERE n = 49)));
SELECT pg_temp.try(format($$SELECT tablestore.update_entity('Ticks', '{"PartitionKey":"p","RowKey":"1","n":0}', %L) IS NOT NULL$$,
	(SELECT etag FROM versions WHERE n = 50)));
-- $filter on Timestamp compares at 100 ns: entity 1, written since entity 2, is later than it
SELECT row_key FROM query_entities('Ticks', format('Timestamp gt datetime''%s''',
	(SELECT e->>'Timestamp' FROM jsonb_array_elements(query_page('Ticks', 'RowKey eq ''2''', NULL)->'value') e)))
WHERE row_key IN ('1', '2');

SELECT drop_table('Ticks');
