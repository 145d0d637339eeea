-- test/pgtap/broken_relations.sql - relations in tablestore_data that are not tables create_table
-- made, or tables altered by hand: every path refuses them with TSX02, naming what differs, and
-- the backend survives (each of these crashed the server before the layout check: contract §7).
-- Also: the direct path and the SQL path give one answer on a table with inheritance children.
BEGIN;
SET search_path = tablestore, public;
SELECT plan(32);

-- a view planted in tablestore_data, with values of the right types, a NULL etag
CREATE VIEW tablestore_data.evil AS SELECT 'p'::text partition_key, 'r'::text row_key, now() "timestamp",
	NULL::text etag, '{}'::tablestore.entity properties;
SELECT throws_ok($$SELECT tablestore.query_page('evil', NULL, NULL)$$, 'TSX02', NULL, 'a view: query_page refuses it');
SELECT throws_ok($$SELECT tablestore.query_page('evil', 'PartitionKey eq ''p''', NULL)$$, 'TSX02', NULL, 'a view: a key-range page refuses it');
SELECT throws_ok($$SELECT * FROM tablestore.query_entities('evil')$$, 'TSX02', NULL, 'a view: query_entities refuses it');
SELECT throws_ok($$SELECT * FROM tablestore.query_entities('evil', 'PartitionKey eq ''p'' and RowKey ge ''a''')$$, 'TSX02', NULL,
	'a view: the direct range scan refuses it');
SELECT throws_ok($$SELECT * FROM tablestore.get_entity('evil', 'p', 'r')$$, 'TSX02', NULL, 'a view: get_entity refuses it');
SELECT throws_ok($$SELECT tablestore.execute_batch('evil', '[{"op":"merge","entity":{"PartitionKey":"p","RowKey":"r"}}]')$$, 'TSX02', NULL,
	'a view: execute_batch refuses it');
SELECT throws_ok($$SELECT tablestore.insert_entity('evil', '{"PartitionKey":"p","RowKey":"x"}')$$, 'TSX02', NULL, 'a view: insert_entity refuses it');
SELECT throws_like($$SELECT tablestore.query_page('evil', NULL, NULL)$$, '%not a tablestore table%', 'and the error says why');
-- NULL properties, read with $select
CREATE VIEW tablestore_data.nullprops AS SELECT 'p'::text partition_key, 'r'::text row_key, now() "timestamp",
	'W/"x"'::text etag, NULL::tablestore.entity properties;
SELECT throws_ok($$SELECT * FROM tablestore.get_entity('nullprops', 'p', 'r', 'A')$$, 'TSX02', NULL, 'NULL properties: get_entity with $select refuses it');
SELECT throws_ok($$SELECT * FROM tablestore.query_entities('nullprops', NULL, 'A')$$, 'TSX02', NULL, 'NULL properties: query_entities refuses it');
-- a bytea in the properties column
CREATE VIEW tablestore_data.bytesprops AS SELECT 'p'::text partition_key, 'r'::text row_key, now() "timestamp",
	'W/"x"'::text etag, '\x0102'::bytea properties;
SELECT throws_ok($$SELECT * FROM tablestore.query_entities('bytesprops')$$, 'TSX02', NULL, 'a bytea as properties: query_entities refuses it');
SELECT throws_ok($$SELECT tablestore.query_page('bytesprops', NULL, NULL)$$, 'TSX02', NULL, 'a bytea as properties: query_page refuses it');
SELECT is((SELECT 1), 1, 'the backend is alive');

-- a real table altered by hand: etag made nullable, and a trigger of the user's setting it NULL
SELECT create_table('Altered');
SELECT insert_entity('Altered', '{"PartitionKey":"p","RowKey":"1","a":1}');
ALTER TABLE tablestore_data.altered ALTER COLUMN etag DROP NOT NULL;
CREATE FUNCTION pg_temp.null_etag() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.etag := NULL; RETURN NEW; END $$;
CREATE TRIGGER zz_null_etag BEFORE INSERT OR UPDATE ON tablestore_data.altered FOR EACH ROW EXECUTE FUNCTION pg_temp.null_etag();
SELECT throws_ok($$SELECT tablestore.execute_batch('Altered', '[{"op":"merge","entity":{"PartitionKey":"p","RowKey":"1","b":2}}]')$$,
	'TSX02', NULL, 'etag nullable: execute_batch refuses the table');
SELECT throws_ok($$SELECT * FROM tablestore.query_entities('Altered', 'PartitionKey eq ''p''')$$, 'TSX02', NULL,
	'etag nullable: the direct query path refuses the table');
SELECT throws_ok($$SELECT tablestore.query_page('Altered', 'PartitionKey eq ''p''', NULL)$$, 'TSX02', NULL,
	'etag nullable: a page refuses the table');
SELECT throws_ok($$SELECT tablestore.merge_entity('Altered', '{"PartitionKey":"p","RowKey":"1","b":2}')$$, 'TSX02', NULL,
	'etag nullable: merge_entity refuses the table');
SELECT throws_like($$SELECT * FROM tablestore.query_entities('Altered')$$, '%not a tablestore table%', 'naming the table');
SELECT throws_ok($$INSERT INTO tablestore_data.altered (partition_key, row_key, properties) VALUES ('p', '2', '{}')$$, '39P01', NULL,
	'and the stamp trigger refuses it for plain SQL');
ALTER TABLE tablestore_data.altered ALTER COLUMN etag SET NOT NULL;
DROP TRIGGER zz_null_etag ON tablestore_data.altered;
SELECT lives_ok($$SELECT tablestore.merge_entity('Altered', '{"PartitionKey":"p","RowKey":"1","b":2}')$$, 'once whole again, the table works');
-- an added column, a dropped column, a changed collation, a re-declared primary key
SELECT create_table('Shapes');
ALTER TABLE tablestore_data.shapes ADD COLUMN extra int;
SELECT throws_ok($$SELECT * FROM tablestore.query_entities('Shapes')$$, 'TSX02', NULL, 'an added column is refused');
ALTER TABLE tablestore_data.shapes DROP COLUMN extra;
SELECT throws_ok($$SELECT * FROM tablestore.query_entities('Shapes')$$, 'TSX02', NULL, 'a dropped column still counts');
SELECT drop_table('Shapes');
SELECT create_table('Swapped');
ALTER TABLE tablestore_data.swapped DROP CONSTRAINT swapped_pkey;
ALTER TABLE tablestore_data.swapped ADD PRIMARY KEY (row_key, partition_key);
SELECT throws_ok($$SELECT tablestore.insert_entity('Swapped', '{"PartitionKey":"p","RowKey":"1"}')$$, 'TSX02', NULL,
	'a primary key re-declared in another column order is refused');
SELECT throws_like($$SELECT * FROM tablestore.get_entity('Swapped', 'p', '1')$$, '%not a tablestore table%', 'by every path');
SELECT create_table('Nopk');
ALTER TABLE tablestore_data.nopk DROP CONSTRAINT nopk_pkey;
SELECT throws_ok($$SELECT * FROM tablestore.get_entity('Nopk', 'p', '1')$$, 'TSX02', NULL, 'a table without its primary key is refused');
SELECT create_table('Collated');
ALTER TABLE tablestore_data.collated ALTER COLUMN row_key TYPE text COLLATE "en-US-x-icu";
SELECT throws_ok($$SELECT * FROM tablestore.query_entities('Collated')$$, 'TSX02', NULL, 'a key column in another collation is refused');

-- inheritance children: the SQL path reads them with the parent, the direct path would not; it
-- steps aside, so both paths give the same answer
SELECT create_table('Parent');
SELECT insert_entity('Parent', '{"PartitionKey":"p","RowKey":"1","from":"parent"}');
CREATE TABLE pg_temp.child () INHERITS (tablestore_data.parent);
INSERT INTO pg_temp.child VALUES ('p', '2', now(), 'W/"child"', '{"from":"child"}');
SET LOCAL tablestore.fast_path = on;
SELECT results_eq($$SELECT row_key FROM tablestore.query_entities('Parent', 'PartitionKey eq ''p''')$$,
	$$VALUES ('1'::text), ('2'::text)$$, 'a key-range query sees the child''s rows with the direct path on');
SELECT is((SELECT properties::text FROM tablestore.get_entity('Parent', 'p', '2')), '{"from":"child"}',
	'and a point read finds the child''s row');
SELECT is(jsonb_array_length(tablestore.query_page('Parent', 'PartitionKey eq ''p''', NULL) -> 'value'), 2, 'and a page');
SET LOCAL tablestore.fast_path = off;
SELECT results_eq($$SELECT row_key FROM tablestore.query_entities('Parent', 'PartitionKey eq ''p''')$$,
	$$VALUES ('1'::text), ('2'::text)$$, 'the same with the direct path off');
SELECT is((SELECT properties::text FROM tablestore.get_entity('Parent', 'p', '2')), '{"from":"child"}', 'and the same point read');
SELECT is((SELECT 1), 1, 'the backend is alive');

SELECT * FROM finish();
ROLLBACK;
