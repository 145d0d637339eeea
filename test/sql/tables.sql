-- tables: create_table, drop_table, list_tables; the name rules of contract §2; where tables live.
SET search_path = tablestore, public;

\set ECHO none
\i test/regress/helpers.sql
\set ECHO all

-- Valid names: a letter, then 2 to 62 letters or digits
SELECT create_table('Customers');
SELECT create_table('abc');
SELECT create_table('A' || repeat('b', 62));
SELECT create_table('Log20141201');

-- Unique ignoring case, case preserved
SELECT pg_temp.try($$SELECT tablestore.create_table('CUSTOMERS')$$);
SELECT pg_temp.try($$SELECT tablestore.create_table('customers')$$);
SELECT * FROM list_tables();
SELECT name, key FROM tablestore.tables ORDER BY key;

-- Invalid names (InvalidResourceName, TSB14)
SELECT n, pg_temp.try(format('SELECT tablestore.create_table(%L)', n)) FROM unnest(ARRAY[
	'ab', 'A' || repeat('b', 63), '1abc', '_abc', 'ab_c', 'ab-c', 'ab c', 'ab.c', 'Ünicode', '',
	'tables', 'Tables', 'TABLES', 'a;DROP TABLE tablestore.tables', 'a"b', 'a''b', 'abc' || chr(769)
]) n;
SELECT pg_temp.try('SELECT tablestore.create_table(NULL)');

-- Each table is an ordinary table in schema tablestore_data, named by the lower-case name
SELECT c.relname, c.relkind, obj_description(c.oid, 'pg_class') AS comment
FROM pg_class c WHERE c.relnamespace = 'tablestore_data'::regnamespace AND c.relkind = 'r' ORDER BY 1;
SELECT attnum, attname, format_type(atttypid, atttypmod) AS type, attnotnull,
	   (SELECT collname FROM pg_collation WHERE oid = attcollation) AS collation
FROM pg_attribute WHERE attrelid = 'tablestore_data.customers'::regclass AND attnum > 0 ORDER BY attnum;
SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'tablestore_data.customers'::regclass;
SELECT tgname, pg_get_triggerdef(oid) FROM pg_trigger WHERE tgrelid = 'tablestore_data.customers'::regclass;
-- and plain SQL works on it
SELECT insert_entity('Customers', '{"PartitionKey":"Sales","RowKey":"1","Name":"Ken"}') IS NOT NULL AS inserted;
SELECT partition_key, row_key, properties FROM tablestore_data.customers;

-- drop_table: the table and its entities are gone, the registry forgets it
SELECT drop_table('CUSTOMERS');
SELECT to_regclass('tablestore_data.customers') IS NULL AS gone;
SELECT * FROM list_tables();
SELECT pg_temp.try($$SELECT tablestore.drop_table('Customers')$$);
SELECT pg_temp.try($$SELECT tablestore.drop_table('no such')$$);
SELECT pg_temp.try('SELECT tablestore.drop_table(NULL)');
-- the name can be used again, with another case
SELECT create_table('CUSTOMERS');
SELECT * FROM list_tables();

-- A plain DROP TABLE also clears the registry (event trigger)
DROP TABLE tablestore_data.log20141201;
SELECT * FROM list_tables();

-- Dropping a table is one catalog operation whatever its size
SELECT create_table('Big');
INSERT INTO tablestore_data.big (partition_key, row_key, properties)
SELECT 'p' || (i % 10), lpad(i::text, 7, '0'), '{"v":1}' FROM generate_series(1, 20000) i;
SELECT count(*) FROM tablestore_data.big;
SELECT drop_table('Big');
SELECT pg_temp.try($$SELECT count(*)::text FROM tablestore.get_entity('Big', 'p1', '0000001')$$);

-- Many tables are cheap to create
SELECT count(create_table('T' || lpad(i::text, 4, '0'))) FROM generate_series(1, 200) i;
SELECT count(*) FROM list_tables();
SELECT count(drop_table(t)) FROM list_tables() t WHERE t LIKE 'T%';

-- A hostile search_path cannot redirect the functions
CREATE SCHEMA evil;
CREATE FUNCTION evil.lower(text) RETURNS text LANGUAGE sql AS $$ SELECT 'hijacked' $$;
CREATE FUNCTION evil.quote_ident(text) RETURNS text LANGUAGE sql AS $$ SELECT 'hijacked' $$;
CREATE FUNCTION evil.texteq_evil(text, text) RETURNS bool LANGUAGE sql AS $$ SELECT true $$;
CREATE OPERATOR evil.= (LEFTARG = text, RIGHTARG = text, FUNCTION = evil.texteq_evil);
SET search_path = evil, tablestore, public, pg_catalog;
SELECT tablestore.create_table('Hostile');
SELECT tablestore.insert_entity('Hostile', '{"PartitionKey":"p","RowKey":"1"}') IS NOT NULL AS inserted;
SELECT tablestore.insert_entity('Hostile', '{"PartitionKey":"p","RowKey":"2"}') IS NOT NULL AS inserted;
SELECT row_key FROM tablestore.get_entity('Hostile', 'p', '2');
SELECT tablestore.merge_entity('Hostile', '{"PartitionKey":"p","RowKey":"1","x":1}') IS NOT NULL AS merged;
-- the same through the prepared SQL statements (fast path off)
SET tablestore.fast_path = off;
SELECT tablestore.insert_entity('Hostile', '{"PartitionKey":"p","RowKey":"3"}') IS NOT NULL AS inserted;
SELECT row_key FROM tablestore.get_entity('Hostile', 'p', '3');
SELECT tablestore.merge_entity('Hostile', '{"PartitionKey":"p","RowKey":"2","y":2}') IS NOT NULL AS merged;
SELECT tablestore.delete_entity('Hostile', 'p', '3');
RESET tablestore.fast_path;
SELECT row_key, properties FROM tablestore_data.hostile ORDER BY row_key USING OPERATOR(pg_catalog.<);
SELECT tablestore.drop_table('Hostile');
RESET search_path;
DROP SCHEMA evil CASCADE;

SET search_path = tablestore, public;
SELECT drop_table(t) FROM list_tables() t;
SELECT count(*) AS registry_rows FROM tablestore.tables;
