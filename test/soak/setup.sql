-- test/soak/setup.sql - the soak's tables: Soak (10 000 entities in 100 partitions: merge, read and
-- query targets; inserts and batches add to it) and SoakVictims (:victims entities, deleted one by
-- one in order).
\set QUIET on
SET client_min_messages = warning;
SELECT count(tablestore.drop_table(t)) FROM tablestore.list_tables() t WHERE t IN ('Soak', 'SoakVictims') \gset
DROP SEQUENCE IF EXISTS soak_ins, soak_del;
CREATE SEQUENCE soak_ins;
CREATE SEQUENCE soak_del;
SELECT count(tablestore.create_table(t)) FROM unnest(ARRAY['Soak', 'SoakVictims']) t \gset
INSERT INTO tablestore_data.soak (partition_key, row_key, properties)
SELECT 'p' || lpad((i % 100)::text, 2, '0'), lpad(i::text, 6, '0'),
	format('{"Name":"Customer %s","Age":%s,"Score":12.5,"Active":true}', i, 18 + i % 60)::tablestore.entity
FROM generate_series(0, 9999) i;
INSERT INTO tablestore_data.soakvictims (partition_key, row_key, properties)
SELECT 'v' || (i % 100), lpad(i::text, 9, '0'), '{"x":1}' FROM generate_series(1, :victims) i;
VACUUM ANALYZE tablestore_data.soak, tablestore_data.soakvictims;
