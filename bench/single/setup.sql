-- bench/single/setup.sql - tables for the single-entity workloads: tablestore table "bench" and
-- the raw baseline table (pk text, rk text, doc jsonb, primary key (pk, rk)), both preloaded with
-- the same :n ten-property documents. The doc_* helpers build the text both sides parse; they are
-- STABLE SQL functions, so the planner inlines them on both sides alike.
\set QUIET on
DROP TABLE IF EXISTS raw;
SELECT tablestore.drop_table(t) FROM tablestore.list_tables() t WHERE t = 'bench';
DROP SEQUENCE IF EXISTS ts_seq;
DROP SEQUENCE IF EXISTS raw_seq;
CREATE SEQUENCE ts_seq;
CREATE SEQUENCE raw_seq;

CREATE OR REPLACE FUNCTION doc_text(s bigint) RETURNS text LANGUAGE sql STABLE AS $$
	SELECT format('{"Name":"Customer %1$s","Email":"c%1$s@contoso.com","City":"Berlin","Country":"DE","Age":37,"Orders":17,"Score":12.25,"Balance":1234.56,"Active":true,"Vip":false}', s)
$$;
CREATE OR REPLACE FUNCTION entity_text(pk text, rk text, s bigint) RETURNS text LANGUAGE sql STABLE AS $$
	SELECT format('{"PartitionKey":"%s","RowKey":"%s","Name":"Customer %3$s","Email":"c%3$s@contoso.com","City":"Berlin","Country":"DE","Age":37,"Orders":17,"Score":12.25,"Balance":1234.56,"Active":true,"Vip":false}', pk, rk, s)
$$;
CREATE OR REPLACE FUNCTION score_entity_text(pk text, rk text, v int) RETURNS text LANGUAGE sql STABLE AS $$
	SELECT format('{"PartitionKey":"%s","RowKey":"%s","Score":%s}', pk, rk, v)
$$;
CREATE OR REPLACE FUNCTION score_doc_text(v int) RETURNS text LANGUAGE sql STABLE AS $$
	SELECT format('{"Score":%s}', v)
$$;

SELECT tablestore.create_table('bench', '{"indexingMode":"none"}') \gset
CREATE TABLE raw (pk text, rk text, doc jsonb, PRIMARY KEY (pk, rk));
INSERT INTO tablestore_data.bench (partition_key, row_key, properties)
SELECT 'p' || (i % 100), lpad(i::text, 8, '0'), doc_text(i)::tablestore.entity FROM generate_series(1, :n) i;
INSERT INTO raw SELECT 'p' || (i % 100), lpad(i::text, 8, '0'), doc_text(i)::jsonb FROM generate_series(1, :n) i;
VACUUM ANALYZE raw, tablestore_data.bench;
