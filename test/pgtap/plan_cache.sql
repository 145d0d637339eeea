-- test/pgtap/plan_cache.sql - the backend-wide cache of prepared query plans stays sound:
--   1. a query on a table that lost a column fails with TSX02 (the layout check runs before any
--      statement is prepared) and leaves no broken entry: the same query works once the table is
--      whole again;
--   2. when the cache fills up in the middle of query_page (which takes three plans), no plan the
--      page still needs is freed: results stay right across hundreds of query shapes.
BEGIN;
SET search_path = tablestore, public;
SELECT plan(8);

SELECT create_table('Plans');
INSERT INTO tablestore_data.plans (partition_key, row_key, properties)
SELECT 'p' || (i % 7), lpad(i::text, 4, '0'), format($f${"n":%s,"odd":%s}$f$, i, (i % 2 = 1)::text)::entity
FROM generate_series(1, 300) i;

------------------------------------------------------------------ 1. a broken table, then whole again
ALTER TABLE tablestore_data.plans RENAME COLUMN properties TO props;
SELECT throws_ok($$SELECT count(*) FROM tablestore.query_entities('Plans', 'n gt 100')$$, 'TSX02', NULL,
	'a query on a table that lost its column fails');
SELECT throws_ok($$SELECT count(*) FROM tablestore.query_entities('Plans', 'n gt 100')$$, 'TSX02', NULL,
	'and fails the same way again (no half-made cache entry)');
ALTER TABLE tablestore_data.plans RENAME COLUMN props TO properties;
SELECT is((SELECT count(*) FROM tablestore.query_entities('Plans', 'n gt 100')), 200::bigint,
	'the same query works once the table is whole again');
SELECT is(jsonb_array_length(tablestore.query_page('Plans', 'n gt 100', NULL, 1000) -> 'value'), 200,
	'and so does a page of it');

------------------------------------------------------------------ 2. the cache fills up mid-page
-- 2 x 300 distinct query shapes (one property name each) go through the 256-plan cache, each
-- followed by a non-key page, which takes a probe, a bounded and an open plan
CREATE FUNCTION pg_temp.churn() RETURNS int LANGUAGE plpgsql AS $$
DECLARE bad int := 0;
BEGIN
	FOR k IN 1..300 LOOP
		PERFORM count(*) FROM tablestore.query_entities('Plans', format('x%s eq 1', k));
		IF jsonb_array_length(tablestore.query_page('Plans', format('odd eq true and y%s ne 1', k), NULL, 1000) -> 'value') <> 0
		   OR jsonb_array_length(tablestore.query_page('Plans', 'odd eq true', NULL, 1000) -> 'value') <> 150 THEN
			bad := bad + 1;
		END IF;
	END LOOP;
	RETURN bad;
END $$;
SELECT is(pg_temp.churn(), 0, 'every page is right while 600 shapes cycle through the cache');
SELECT is(pg_temp.churn(), 0, 'and again, with the cache already full');
SELECT is((SELECT count(*) FROM tablestore.query_entities('Plans', 'odd eq true')), 150::bigint,
	'queries still answer right afterwards');
SELECT is((SELECT string_agg(p ->> 'RowKey', ',') FROM jsonb_array_elements(
	tablestore.query_page('Plans', 'n le 3 or n ge 299', NULL, 2) -> 'value') p), '0001,0002',
	'a short page of a non-key filter still stops at its top');

SELECT * FROM finish();
ROLLBACK;
