-- bench/index/setup.sql - the tables of bench/run.sh index besides the loaded ones (which
-- run.sh fills by COPY from entities.pl): psql variable n (the entities loaded).
--   idxwrites, noidxwrites   tablestore tables for the insert and batch points: the default policy
--                            (every property indexed) and indexingMode none
--   raw                      (pk, rk, ts, etag, doc jsonb), loaded by run.sh, gets its best indexes
--                            here: GIN jsonb_path_ops for @>, a B-tree on the range's expression
\set QUIET on
SET client_min_messages = warning;
SELECT tablestore.create_table('idxwrites') IS NOT NULL AS created;
SELECT tablestore.create_table('noidxwrites', '{"indexingMode":"none"}') IS NOT NULL AS created;
CREATE SEQUENCE ix_seq;
CREATE SEQUENCE nx_seq;
-- entity i's properties as entities.pl writes them (for the writes; n: the size of the value domains)
CREATE FUNCTION ix_members(i bigint, n bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT format('"Name":"Customer %1$s","Email":"c%1$s@contoso.com","City":"City %2$s","Age":%3$s,"Group":%4$s,"Rank":%5$s,'
		'"Score":%6$s,"Active":%7$s,"Created":"%8$s","Created@odata.type":"Edm.DateTime","Balance":1234.56',
		i, i % 500, 18 + i % 60, (i * 7919) % (n / 100), (i * 48271) % n, to_char(((i * 104729) % (n / 10)) / 100.0, 'FM999999990.00'),
		(i % 2 = 1)::text, to_char(timestamp '2020-01-01' + (i % 300000000) * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))
$$;
CREATE FUNCTION ix_entity(pk text, rk text, i bigint, n bigint) RETURNS tablestore.entity LANGUAGE sql IMMUTABLE AS $$
	SELECT format('{"PartitionKey":"%s","RowKey":"%s",%s}', pk, rk, ix_members(i, n))::tablestore.entity
$$;
CREATE FUNCTION ix_pk(i bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT 'p' || lpad((i / 1000)::text, 5, '0') $$;
CREATE FUNCTION ix_rk(i bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT lpad((i % 1000)::text, 6, '0') $$;
CREATE INDEX raw_doc ON raw USING gin (doc jsonb_path_ops);
CREATE INDEX raw_rank ON raw (((doc->>'Rank')::int));
VACUUM ANALYZE raw;
