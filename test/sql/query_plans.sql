-- query_plans: the plans of the statements queries run (tablestore.query_sql gives the exact
-- statement): point queries are primary-key lookups on both keys, ranges are one index range
-- scan, $top over a partition is a Limit over an index scan without a Sort, a continuation is an
-- index condition, and a filter on a numeric property uses an expression index on its filter key
-- (under indexingMode none: the entity index's plans are in test/sql/indexing.sql).
SET search_path = tablestore, public;
SELECT create_table('Plans', '{"indexingMode":"none"}');
INSERT INTO tablestore_data.plans (partition_key, row_key, properties)
SELECT 'p' || lpad((i % 50)::text, 2, '0'), lpad(i::text, 6, '0'), format('{"Age":%s,"Name":"n%s"}', i % 90, i)::entity
FROM generate_series(1, 30000) i;
CREATE INDEX plans_age ON tablestore_data.plans (tablestore.filter_key_int32(properties, 'Age'));
CREATE INDEX plans_name ON tablestore_data.plans (tablestore.filter_key_string(properties, 'Name'));
ANALYZE tablestore_data.plans;

-- tablestore.explain_query explains the statement under the settings the query functions use
CREATE FUNCTION pg_temp.plan(tbl text, filter text, top int DEFAULT NULL, npk text DEFAULT NULL, nrk text DEFAULT NULL)
RETURNS SETOF text LANGUAGE sql AS $$ SELECT tablestore.explain_query(tbl, filter, top, npk, nrk) $$;

-- point query
SELECT query_sql('Plans', 'PartitionKey eq ''p07'' and RowKey eq ''000107''');
SELECT * FROM pg_temp.plan('Plans', 'PartitionKey eq ''p07'' and RowKey eq ''000107''');
SELECT * FROM pg_temp.plan('Plans', '((PartitionKey eq ''p07'') and (RowKey eq ''000107''))');
-- range query: one index range scan, already in key order
SELECT * FROM pg_temp.plan('Plans', 'PartitionKey eq ''p07'' and RowKey ge ''001000'' and RowKey lt ''002000''');
-- a whole partition: the same, never a sort
SELECT * FROM pg_temp.plan('Plans', 'PartitionKey eq ''p07''');
-- $top over a partition: Limit over the index scan, no Sort
SELECT * FROM pg_temp.plan('Plans', 'PartitionKey eq ''p07''', 10);
-- a table scan with $top still reads the primary key in order
SELECT * FROM pg_temp.plan('Plans', NULL, 5);
-- the or of two RowKeys is one index scan (PostgreSQL 15 sorts the few rows of an = ANY scan)
SELECT * FROM pg_temp.plan('Plans', 'PartitionKey eq ''p07'' and (RowKey eq ''000107'' or RowKey eq ''000157'')');
-- a continuation is an index condition
SELECT * FROM pg_temp.plan('Plans', 'PartitionKey eq ''p07''', 100, 'p07', '001007');
SELECT * FROM pg_temp.plan('Plans', NULL, 100, 'p07', '001007');
-- a user's expression index on the filter key serves numeric comparisons
SELECT * FROM pg_temp.plan('Plans', 'Age eq 7');
SELECT * FROM pg_temp.plan('Plans', 'Age gt 88');
SELECT * FROM pg_temp.plan('Plans', 'Age lt 1');
-- and one on filter_key_string serves string equality and lower bounds
SELECT * FROM pg_temp.plan('Plans', 'Name eq ''n12345''');

-- the plans give the right rows
SELECT count(*) FROM query_entities('Plans', 'Age eq 7');
SELECT count(*) FROM tablestore_data.plans WHERE tablestore.prop_int32(properties, 'Age') = 7;
SELECT count(*) FROM query_entities('Plans', 'Age gt 88');
SELECT row_key FROM query_entities('Plans', 'PartitionKey eq ''p07'' and (RowKey eq ''000107'' or RowKey eq ''000157'')');

-- the query's statement runs without JIT, whatever the session says (a row-level security
-- policy's function sees the settings the statement runs under; it speaks for one row)
CREATE ROLE regress_ts_jit_probe;
GRANT USAGE ON SCHEMA tablestore, tablestore_data TO regress_ts_jit_probe;
GRANT SELECT ON tablestore_data.plans TO regress_ts_jit_probe;
CREATE FUNCTION pg_temp.setting_during_query(name text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
	RAISE NOTICE '% during the query: %', name, current_setting(name);
	RETURN true;
END $$;
GRANT EXECUTE ON FUNCTION pg_temp.setting_during_query(text) TO regress_ts_jit_probe;
ALTER TABLE tablestore_data.plans ENABLE ROW LEVEL SECURITY;
CREATE POLICY probe ON tablestore_data.plans
	USING (CASE WHEN row_key = '000107' THEN pg_temp.setting_during_query('jit') ELSE true END);
SET jit = on;
SET jit_above_cost = 0;
SET ROLE regress_ts_jit_probe;
SELECT count(*) FROM query_entities('Plans', 'PartitionKey eq ''p07'' and Age eq 7');
SELECT query_page('Plans', 'PartitionKey eq ''p07'' and Age eq 7', NULL, 5) IS NOT NULL AS page;
RESET ROLE;
RESET jit;
RESET jit_above_cost;
DROP POLICY probe ON tablestore_data.plans;
ALTER TABLE tablestore_data.plans DISABLE ROW LEVEL SECURITY;
REVOKE ALL ON tablestore_data.plans FROM regress_ts_jit_probe;
DROP FUNCTION pg_temp.setting_during_query(text);
REVOKE ALL ON SCHEMA tablestore, tablestore_data FROM regress_ts_jit_probe;
DROP ROLE regress_ts_jit_probe;

SELECT drop_table('Plans');
