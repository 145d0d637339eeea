-- bench/compare/setup.sql - the Postgres side of the four-system comparison (bench/run.sh
-- compare). psql variables: n (entities in the main tables, a multiple of 1000) and victims
-- (entities to delete, per table).
--
-- Both Postgres systems hold the same data, parsed from the same text:
--   tablestore   tables main, writes, victims (tablestore_data.*)
--   raw          tables raw_main, raw_writes, raw_victims: (pk text, rk text, ts timestamptz, etag text,
--                doc jsonb), primary key (pk, rk), keys in COLLATE "C" as the service's ordinal key order
--                needs; raw_main's rows carry a Timestamp and an ETag of the service's length, so that a
--                raw page can render the body a tablestore page renders (the raw writes leave them NULL:
--                the single-entity comparisons stay those of plain INSERT / UPDATE)
-- main: partition 'p' || lpad(i / 1000, 4, '0'), RowKey lpad(i % 1000, 6, '0'), ten properties,
-- Age = 18 + i % 60. bench/compare/azurite.mjs builds the same entities for Azurite.
\set QUIET on
SET client_min_messages = warning;
SELECT count(tablestore.drop_table(t)) AS dropped FROM tablestore.list_tables() t WHERE t IN ('main', 'writes', 'victims') \gset
DROP TABLE IF EXISTS raw_main, raw_writes, raw_victims;
DROP SEQUENCE IF EXISTS ts_ins_seq, raw_ins_seq, ts_del_seq, raw_del_seq;
CREATE SEQUENCE ts_ins_seq;
CREATE SEQUENCE raw_ins_seq;
CREATE SEQUENCE ts_del_seq;
CREATE SEQUENCE raw_del_seq;

-- the ten-property document and the entity (the document with its keys). Each side's text comes
-- from one format(): the raw side's document, tablestore's entity from the same members with the
-- keys in front (no cutting of one text out of another: substr walks UTF-8 text character by
-- character, a cost of the script's, not of either store).
CREATE OR REPLACE FUNCTION cmp_doc(i bigint) RETURNS text LANGUAGE sql STABLE AS $$
	SELECT format('{"Name":"Customer %1$s","Email":"c%1$s@contoso.com","City":"Berlin","Country":"DE","Age":%2$s,"Orders":17,"Score":12.25,"Balance":1234.56,"Active":true,"Vip":false}',
		i, 18 + i % 60)
$$;
CREATE OR REPLACE FUNCTION cmp_doc_members(i bigint) RETURNS text LANGUAGE sql STABLE AS $$
	SELECT format('"Name":"Customer %1$s","Email":"c%1$s@contoso.com","City":"Berlin","Country":"DE","Age":%2$s,"Orders":17,"Score":12.25,"Balance":1234.56,"Active":true,"Vip":false',
		i, 18 + i % 60)
$$;
DO $$
BEGIN
	IF cmp_doc(12345) <> '{' || cmp_doc_members(12345) || '}' THEN
		RAISE EXCEPTION 'cmp_doc and cmp_doc_members disagree';
	END IF;
END $$;
-- the raw side's ETag of a Timestamp, in tablestore's form (the raw writes stamp as tablestore does)
CREATE OR REPLACE FUNCTION cmp_etag(t timestamptz) RETURNS text LANGUAGE sql STABLE AS $$
	SELECT format('W/"datetime''%s''"', to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24"%3A"MI"%3A"SS.US0"Z"'))
$$;
CREATE OR REPLACE FUNCTION cmp_entity(pk text, rk text, i bigint) RETURNS text LANGUAGE sql STABLE AS $$
	SELECT format('{"PartitionKey":"%s","RowKey":"%s",%s}', pk, rk, cmp_doc_members(i))
$$;
CREATE OR REPLACE FUNCTION cmp_pk(i bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT 'p' || lpad((i / 1000)::text, 4, '0')
$$;
CREATE OR REPLACE FUNCTION cmp_rk(i bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT lpad((i % 1000)::text, 6, '0')
$$;
-- indexingMode none: the comparison measures what it measured before automatic indexing (the raw
-- table has no index on its documents either); bench/run.sh index measures the default policy
SELECT count(tablestore.create_table(t, '{"indexingMode":"none"}')) AS created FROM unnest(ARRAY['main', 'writes', 'victims']) t \gset
CREATE TABLE raw_main (pk text COLLATE "C", rk text COLLATE "C", ts timestamptz, etag text, doc jsonb, PRIMARY KEY (pk, rk));
CREATE TABLE raw_writes (LIKE raw_main INCLUDING ALL);
CREATE TABLE raw_victims (LIKE raw_main INCLUDING ALL);

INSERT INTO tablestore_data.main (partition_key, row_key, properties)
SELECT cmp_pk(i), cmp_rk(i), cmp_doc(i)::tablestore.entity FROM generate_series(0, :n - 1) i;
INSERT INTO raw_main SELECT cmp_pk(i), cmp_rk(i), t, cmp_etag(t), cmp_doc(i)::jsonb
FROM generate_series(0, :n - 1) i, clock_timestamp() t;
INSERT INTO tablestore_data.victims (partition_key, row_key, properties)
SELECT 'd' || (i % 100), lpad(i::text, 8, '0'), cmp_doc(i)::tablestore.entity FROM generate_series(1, :victims) i;
INSERT INTO raw_victims (pk, rk, ts, etag, doc) SELECT 'd' || (i % 100), lpad(i::text, 8, '0'), t, cmp_etag(t), cmp_doc(i)::jsonb
FROM generate_series(1, :victims) i, clock_timestamp() t;
VACUUM ANALYZE tablestore_data.main, raw_main, tablestore_data.victims, raw_victims;
