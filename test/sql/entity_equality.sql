-- entity_equality: the order properties were written in is presentation only (contract §1): two
-- entities with the same keys, properties and values are equal whatever that order, and =, the
-- B-tree and the hash operator classes agree on it (DISTINCT, GROUP BY, hash and merge joins, a
-- unique index), as with jsonb - while every output keeps each entity's own order. And an entity
-- takes no more space than jsonb for the same document: the written order lives in the
-- directory's spare bytes (sizes below, on several shapes). test/pgtap/entity_equality.sql holds the
-- same agreement over many random entities written in random orders.
SET search_path = tablestore, public;

\set ECHO none
\i test/regress/helpers.sql
\set ECHO all

SELECT '{"A":1,"B":2}'::entity = '{"B":2,"A":1}'::entity AS equal,
	   '{"A":1,"B":2}'::entity <> '{"B":2,"A":1}'::entity AS not_unequal,
	   entity_cmp('{"A":1,"B":2}', '{"B":2,"A":1}') AS cmp,
	   entity_hash('{"A":1,"B":2}') = entity_hash('{"B":2,"A":1}') AS same_hash,
	   entity_hash_extended('{"A":1,"B":2}', 42) = entity_hash_extended('{"B":2,"A":1}', 42) AS same_hash_extended,
	   '{"B":2,"A":1}'::entity::text AS keeps_its_order;
-- the keys count, wherever they were written; values and types count
SELECT '{"PartitionKey":"p","c":1,"RowKey":"r","b":2}'::entity = '{"b":2,"RowKey":"r","c":1,"PartitionKey":"p"}'::entity AS keys_anywhere,
	   '{"a":1,"b":2}'::entity = '{"b":2,"a":3}'::entity AS other_value,
	   '{"a":1,"b":2}'::entity = '{"b":2,"a":"1","a@odata.type":"Edm.Int64"}'::entity AS other_type,
	   '{"a":1,"b":2}'::entity = '{"b":2,"a":1,"c":null}'::entity AS null_is_absent,
	   '{"a":1,"b":2}'::entity = '{"b":2,"a":1,"PartitionKey":""}'::entity AS key_present_or_not,
	   '{"a":1,"b":2,"c":3}'::entity = '{"c":3,"b":2}'::entity AS fewer;
-- the order: that of the name-order forms, the same for every written order, consistent with =
SELECT a, b, entity_cmp(a::entity, b::entity) AS cmp, entity_cmp(b::entity, a::entity) AS reverse,
	   (a::entity < b::entity) = (entity_cmp(a::entity, b::entity) < 0) AS lt_agrees,
	   entity_cmp(a::entity, b::entity) = entity_cmp(a::entity, (SELECT ('{' || string_agg(format('%s:%s', to_json(k), v), ',') || '}')::entity
		FROM jsonb_each(b::jsonb) x(k, v))) AS independent_of_order
FROM (VALUES ('{"b":1,"a":1}', '{"a":1,"b":2}'), ('{"b":2,"a":1}', '{"a":1,"b":1}'), ('{"z":1,"a":1}', '{"a":1,"y":1}'),
	('{"b":1,"a":1}', '{"a":1,"b":1}'), ('{"c":1,"b":1,"a":1}', '{"a":1,"b":1}')) v(a, b);

-- the operator classes over the same entities written in different orders
CREATE TEMP TABLE perm (i int, written text, e tablestore.entity);
INSERT INTO perm
SELECT i, w, w::entity FROM generate_series(1, 50) i,
	LATERAL (VALUES
		(format('{"PartitionKey":"p%s","RowKey":"r","n":%s,"s":"v%s","d":%s.5,"b":true}', i % 5, i, i % 3, i)),
		(format('{"b":true,"d":%s.5,"s":"v%s","n":%s,"RowKey":"r","PartitionKey":"p%s"}', i, i % 3, i, i % 5)),
		(format('{"s":"v%s","PartitionKey":"p%s","b":true,"n":%s,"d":%s.5,"RowKey":"r"}', i % 3, i % 5, i, i))) o(w);
SELECT count(*) AS rows, count(DISTINCT e) AS distinct_entities, count(DISTINCT e::text) AS distinct_texts FROM perm;
SET enable_hashagg = off;
SELECT count(*) AS groups_by_sort FROM (SELECT e FROM perm GROUP BY e) g;
RESET enable_hashagg;
SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT e FROM perm GROUP BY e;
SELECT count(*) AS groups_by_hash FROM (SELECT e FROM perm GROUP BY e) g;
RESET enable_sort;
SET enable_mergejoin = off;
SET enable_nestloop = off;
SELECT count(*) AS hash_join FROM perm a JOIN perm b ON a.e = b.e;
RESET enable_mergejoin;
SET enable_hashjoin = off;
SELECT count(*) AS merge_join FROM perm a JOIN perm b ON a.e = b.e;
RESET enable_hashjoin;
RESET enable_nestloop;
SELECT (SELECT count(*) FROM perm a JOIN perm b ON a.i = b.i) AS expected_join;
SELECT count(*) FILTER (WHERE entity_hash(a.e) <> entity_hash(b.e)) AS equal_but_hash_differs
FROM perm a JOIN perm b ON a.i = b.i;
CREATE INDEX perm_hash ON perm USING hash (e);
SET enable_seqscan = off;
SELECT count(*) AS hash_index_finds_all FROM perm WHERE e = '{"n":7,"b":true,"s":"v1","d":7.5,"RowKey":"r","PartitionKey":"p2"}';
RESET enable_seqscan;
SELECT pg_temp.try($$CREATE UNIQUE INDEX perm_unique ON perm (e)$$) AS unique_index_sees_duplicates;
DROP TABLE perm;

-- size: at most jsonb's for the same document, on several shapes, in name order and in another
CREATE TEMP TABLE shapes (shape text, doc text);
INSERT INTO shapes VALUES
	('1 property', '{"a":1}'),
	('1 String', '{"Name":"Ken"}'),
	('keys only', '{"PartitionKey":"Sales","RowKey":"00010"}'),
	('10 short names, written order', '{"Name":"Customer 1","Email":"c1@contoso.com","City":"Seattle","Country":"US","Age":19,"Orders":1,"Score":1.25,"Balance":1.37,"Active":false,"Vip":false}'),
	('10 one-letter Strings, reversed', '{"j":"x","i":"x","h":"x","g":"x","f":"x","e":"x","d":"x","c":"x","b":"x","a":"x"}'),
	('10 one-letter Int32, reversed', '{"j":1,"i":2,"h":3,"g":4,"f":5,"e":6,"d":7,"c":8,"b":9,"a":0}'),
	('10 long names, reversed', (SELECT '{' || string_agg(format('"%s":"v"', repeat(chr(106 - i), 60)), ',' ORDER BY i) || '}' FROM generate_series(0, 9) i)),
	('50 Int64, reversed', (SELECT '{' || string_agg(format('"p%s":"%s","p%s@odata.type":"Edm.Int64"', lpad(i::text, 2, '0'), i, lpad(i::text, 2, '0')), ',' ORDER BY i DESC) || '}' FROM generate_series(1, 50) i)),
	('50 Strings, shuffled', (SELECT '{' || string_agg(format('"Prop%s":"value %s"', (i * 37) % 50, i), ',' ORDER BY i) || '}' FROM generate_series(1, 50) i)),
	('every type, written order', '{"PartitionKey":"p","RowKey":"r","s":"text","i":42,"l":"9007199254740993","l@odata.type":"Edm.Int64","f":2.5,"b":true,"d":"2014-08-22T00:50:44.1234567Z","d@odata.type":"Edm.DateTime","g":"68260b3f-beab-45e2-b900-33e2b442e724","g@odata.type":"Edm.Guid","x":"AAEC","x@odata.type":"Edm.Binary","n":"NaN","n@odata.type":"Edm.Double"}'),
	('every type, name order', '{"b":true,"d":"2014-08-22T00:50:44.1234567Z","d@odata.type":"Edm.DateTime","f":2.5,"g":"68260b3f-beab-45e2-b900-33e2b442e724","g@odata.type":"Edm.Guid","i":42,"l":"9007199254740993","l@odata.type":"Edm.Int64","n":"NaN","n@odata.type":"Edm.Double","s":"text","x":"AAEC","x@odata.type":"Edm.Binary"}'),
	('252 Int32, reversed', (SELECT '{' || string_agg(format('"P%s":%s', lpad(i::text, 3, '0'), i), ',' ORDER BY i DESC) || '}' FROM generate_series(1, 252) i));
SELECT shape, pg_column_size(doc::entity) AS entity_bytes, pg_column_size(doc::jsonb) AS jsonb_bytes,
	   pg_column_size(doc::entity) <= pg_column_size(doc::jsonb) AS at_most_jsonb
FROM shapes ORDER BY shape COLLATE "C";
-- written in name order or not, the same size: the order costs no byte
SELECT shape, pg_column_size(doc::entity) = pg_column_size(doc::entity::jsonb::text::entity) AS order_costs_nothing
FROM shapes ORDER BY shape COLLATE "C";
-- where jsonb can still be smaller (doc/sql-reference.md): a Boolean costs jsonb no byte (it is
-- in its entry) and an entity one; a Double costs an entity 8 bytes, jsonb's numeric 5 and up
-- (padded to 4); keys make up for it (jsonb stores "PartitionKey" and "RowKey" as members)
SELECT shape, pg_column_size(doc::entity) AS entity_bytes, pg_column_size(doc::jsonb) AS jsonb_bytes
FROM (VALUES
	('50 Booleans', (SELECT '{' || string_agg(format('"p%s":true', lpad(i::text, 2, '0')), ',' ORDER BY i DESC) || '}' FROM generate_series(1, 50) i)),
	('50 Booleans and the keys', (SELECT '{"PartitionKey":"Sales","RowKey":"00010",' || string_agg(format('"p%s":true', lpad(i::text, 2, '0')), ',') || '}' FROM generate_series(1, 50) i)),
	('10 one-character Strings and 10 Doubles 0.5, alternating', (SELECT '{' || string_agg(format('"s%s":"x","d%s":0.5', i, i), ',') || '}' FROM generate_series(0, 9) i))
) v(shape, doc);
DROP TABLE shapes;
