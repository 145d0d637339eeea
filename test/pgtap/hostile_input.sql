-- test/pgtap/hostile_input.sql - a corpus of bad inputs across every public function:
-- oversized values, invalid UTF-8, deep nesting, huge numbers, injection attempts in table names,
-- filters, $select lists and batch documents, and NULL for every argument. Each must raise its
-- own, specific SQLSTATE (never an internal error), write nothing, and leave the backend up.
BEGIN;
SET search_path = tablestore, public;
SELECT plan(153);

SELECT create_table('Hostile');
SELECT insert_entity('Hostile', '{"PartitionKey":"p","RowKey":"r","Name":"Ken","Age":23}');
CREATE TEMP TABLE victim (x int);
CREATE FUNCTION pg_temp.state() RETURNS text LANGUAGE sql AS
$$ SELECT md5(string_agg(format('%s|%s|%s|%s', partition_key, row_key, etag, properties), E'\n' ORDER BY partition_key, row_key))
   FROM tablestore_data.hostile $$;
SELECT pg_temp.state() AS before \gset

-- (what, statement, SQLSTATE)
CREATE TEMP TABLE cases (id serial, what text, stmt text, code text);
INSERT INTO cases (what, stmt, code) VALUES
-- entity text input
('entity: not JSON', $$SELECT 'hello'::entity$$, 'TSB01'),
('entity: an array', $$SELECT '[1,2]'::entity$$, 'TSB01'),
('entity: nested object', $$SELECT '{"a":{"b":1}}'::entity$$, 'TSB01'),
('entity: nested 100000 deep', $$SELECT (repeat('{"a":', 100000) || '1' || repeat('}', 100000))::entity$$, 'TSB01'),
('entity: arrays 100000 deep', $$SELECT ('{"a":' || repeat('[', 100000) || repeat(']', 100000) || '}')::entity$$, 'TSB01'),
('entity: unterminated string', $$SELECT '{"a":"abc}'::entity$$, 'TSB01'),
('entity: trailing garbage', $$SELECT '{"a":1} x'::entity$$, 'TSB01'),
('entity: lone surrogate escape', $$SELECT '{"a":"\ud800"}'::entity$$, 'TSB01'),
('entity: \u0000 in a name', $$SELECT '{"a\u0000b":1}'::entity$$, 'TSB07'),
('entity: huge number', $$SELECT '{"a":1e999999}'::entity$$, 'TSB06'),
('entity: huge negative number', $$SELECT '{"a":-1e999999}'::entity$$, 'TSB06'),
('entity: 100000-digit integer', $$SELECT ('{"a":' || repeat('9', 100000) || '}')::entity$$, 'TSB06'),
('entity: Int64 past its range', $$SELECT '{"a":"9223372036854775808","a@odata.type":"Edm.Int64"}'::entity$$, 'TSB04'),  -- the service's code: InvalidInput
('entity: Int32 past its range', $$SELECT '{"a":"2147483648","a@odata.type":"Edm.Int32"}'::entity$$, 'TSB06'),
('entity: DateTime before 1601', $$SELECT '{"a":"1600-12-31T23:59:59Z","a@odata.type":"Edm.DateTime"}'::entity$$, 'TSB06'),
('entity: DateTime garbage', $$SELECT '{"a":"yesterday","a@odata.type":"Edm.DateTime"}'::entity$$, 'TSB04'),
('entity: Guid garbage', $$SELECT '{"a":"68260b3f-beab-45e2-b900-33e2b442e72g","a@odata.type":"Edm.Guid"}'::entity$$, 'TSB04'),
('entity: Binary not base64', $$SELECT '{"a":"!!!!","a@odata.type":"Edm.Binary"}'::entity$$, 'TSB04'),
('entity: Binary over 64 KiB', $$SELECT format('{"a":"%s","a@odata.type":"Edm.Binary"}', translate(encode(convert_to(repeat('x', 70000), 'UTF8'), 'base64'), E'\n', ''))::entity$$, 'TSB12'),
('entity: unknown type', $$SELECT '{"a":"1","a@odata.type":"Edm.Decimal"}'::entity$$, 'TSB03'),
('entity: orphan annotation', $$SELECT '{"a@odata.type":"Edm.Int64"}'::entity$$, 'TSB03'),
('entity: other annotation', $$SELECT '{"a":1,"a@odata.evil":"x"}'::entity$$, 'TSB03'),
('entity: String over 32768 UTF-16 units', $$SELECT format('{"a":"%s"}', repeat('x', 32769))::entity$$, 'TSB12'),
('entity: String of astral chars over the limit', $$SELECT format('{"a":"%s"}', repeat('😀', 16385))::entity$$, 'TSB12'),
('entity: over 1 MiB', $$SELECT ('{' || (SELECT string_agg(format('"p%s":"%s"', i, repeat('x', 32768)), ',') FROM generate_series(1, 17) i) || '}')::entity$$, 'TSB11'),
('entity: 253 properties', $$SELECT ('{' || (SELECT string_agg(format('"p%s":1', i), ',') FROM generate_series(1, 253) i) || '}')::entity$$, 'TSB10'),
('entity: duplicate property', $$SELECT '{"a":1,"a":2}'::entity$$, 'TSB09'),
('entity: name too long', $$SELECT format('{"%s":1}', repeat('a', 256))::entity$$, 'TSB08'),
('entity: name with a space', $$SELECT '{"a b":1}'::entity$$, 'TSB07'),
('entity: name starting with a digit', $$SELECT '{"1a":1}'::entity$$, 'TSB07'),
('entity: name with SQL', $$SELECT '{"a;DROP TABLE victim":1}'::entity$$, 'TSB07'),
('entity: reserved name as a property', $$SELECT '{"Timestamp@odata.type":"Edm.Int32","Timestamp":1,"a":{"x":1}}'::entity$$, 'TSB01'),
('entity: key with a slash', $$SELECT '{"PartitionKey":"a/b"}'::entity$$, 'TSB02'),
('entity: key with #', $$SELECT '{"RowKey":"a#b"}'::entity$$, 'TSB02'),
('entity: key with a control character', $$SELECT '{"RowKey":"a\u0007b"}'::entity$$, 'TSB02'),
('entity: key with U+0085', $$SELECT '{"RowKey":"a\u0085b"}'::entity$$, 'TSB02'),
('entity: key too long', $$SELECT format('{"PartitionKey":"%s"}', repeat('k', 513))::entity$$, 'TSB13'),
('entity: key not a string', $$SELECT '{"PartitionKey":1}'::entity$$, 'TSB02'),
('entity: key typed Int64', $$SELECT '{"RowKey":"1","RowKey@odata.type":"Edm.Int64"}'::entity$$, 'TSB03'),
('entity: jsonb cast of an invalid entity', $$SELECT '{"a":{"b":1}}'::jsonb::entity$$, 'TSB01'),
-- binary input: truncated, wrong version, not canonical, invalid UTF-8
('binary: empty', $$SELECT entity_from_binary('')$$, 'TSB05'),
('binary: wrong version', $$SELECT entity_from_binary('\x02000000')$$, 'TSB05'),
('binary: truncated directory', $$SELECT entity_from_binary('\x0100010000')$$, 'TSB05'),
('binary: 65535 properties claimed', $$SELECT entity_from_binary('\x0100ffff')$$, 'TSB10'),
('binary: invalid UTF-8 in a String', $$SELECT entity_from_binary(decode('01000100000000000100010061c328', 'hex'))$$, 'TSB05'),
('binary: invalid UTF-8 in a name', $$SELECT entity_from_binary(decode('010001000000000002000200ff4101000000', 'hex'))$$, 'TSB05'),
('binary: unknown type code', $$SELECT entity_from_binary(decode('01000100000000000100630061', 'hex'))$$, 'TSB05'),
('binary: garbage', $$SELECT entity_from_binary(decode(repeat('ff', 1000), 'hex'))$$, 'TSB05'),
-- table names
('create_table: SQL in the name', $$SELECT create_table('x; DROP TABLE victim; --')$$, 'TSB14'),
('create_table: quote in the name', $$SELECT create_table('Ab''c')$$, 'TSB14'),
('create_table: 64 characters', $$SELECT create_table(repeat('a', 64))$$, 'TSB14'),
('create_table: 2 characters', $$SELECT create_table('ab')$$, 'TSB14'),
('create_table: reserved name', $$SELECT create_table('tables')$$, 'TSB14'),
('create_table: non-ASCII letters', $$SELECT create_table('Tablé')$$, 'TSB14'),
('create_table: empty', $$SELECT create_table('')$$, 'TSB14'),
('create_table: NULL', $$SELECT create_table(NULL)$$, 'TSB00'),
('create_table: existing, other case', $$SELECT create_table('HOSTILE')$$, 'TSC02'),
('drop_table: SQL in the name', $$SELECT drop_table('hostile; DROP TABLE victim')$$, 'TSB14'),
('drop_table: missing', $$SELECT drop_table('Nothere')$$, 'TSN01'),  -- the service's answer: ResourceNotFound
('drop_table: NULL', $$SELECT drop_table(NULL)$$, 'TSB00'),
('insert_entity: SQL in the table name', $$SELECT insert_entity('hostile"; DROP TABLE victim; --', '{"PartitionKey":"p","RowKey":"x"}')$$, 'TSB14'),
('get_entity: schema-qualified table name', $$SELECT * FROM get_entity('pg_catalog.pg_class', 'p', 'r')$$, 'TSB14'),
('query_entities: table name with a dot', $$SELECT * FROM query_entities('tablestore.tables')$$, 'TSB14'),
-- single-entity functions: NULL for every argument, bad keys, bad If-Match
('insert_entity: NULL table', $$SELECT insert_entity(NULL, '{"PartitionKey":"p","RowKey":"x"}')$$, 'TSB00'),
('insert_entity: NULL entity', $$SELECT insert_entity('Hostile', NULL)$$, 'TSB00'),
('insert_entity: no keys', $$SELECT insert_entity('Hostile', '{"a":1}')$$, 'TSB21'),
('insert_entity: existing', $$SELECT insert_entity('Hostile', '{"PartitionKey":"p","RowKey":"r"}')$$, 'TSC01'),
('update_entity: NULL table', $$SELECT update_entity(NULL, '{"PartitionKey":"p","RowKey":"r"}')$$, 'TSB00'),
('update_entity: NULL entity', $$SELECT update_entity('Hostile', NULL)$$, 'TSB00'),
('update_entity: NULL If-Match', $$SELECT update_entity('Hostile', '{"PartitionKey":"p","RowKey":"r"}', NULL)$$, 'TSB00'),
('update_entity: If-Match with SQL', $$SELECT update_entity('Hostile', '{"PartitionKey":"p","RowKey":"r"}', ''' OR 1=1 --')$$, 'TSB15'),
('update_entity: If-Match over 256 characters', $$SELECT update_entity('Hostile', '{"PartitionKey":"p","RowKey":"r"}', 'W/"' || repeat('x', 300) || '"')$$, 'TSB15'),
('merge_entity: NULL table', $$SELECT merge_entity(NULL, '{"PartitionKey":"p","RowKey":"r"}')$$, 'TSB00'),
('merge_entity: NULL entity', $$SELECT merge_entity('Hostile', NULL)$$, 'TSB00'),
('merge_entity: NULL If-Match', $$SELECT merge_entity('Hostile', '{"PartitionKey":"p","RowKey":"r"}', NULL)$$, 'TSB00'),
('merge_entity: If-Match with a quote inside', $$SELECT merge_entity('Hostile', '{"PartitionKey":"p","RowKey":"r"}', 'W/"a"b"')$$, 'TSB15'),
('merge_entity: stale If-Match', $$SELECT merge_entity('Hostile', '{"PartitionKey":"p","RowKey":"r"}', 'W/"stale"')$$, 'TSP01'),
('upsert_entity: NULL table', $$SELECT upsert_entity(NULL, '{"PartitionKey":"p","RowKey":"r"}')$$, 'TSB00'),
('upsert_entity: NULL entity', $$SELECT upsert_entity('Hostile', NULL)$$, 'TSB00'),
('upsert_entity: NULL mode', $$SELECT upsert_entity('Hostile', '{"PartitionKey":"p","RowKey":"r"}', NULL)$$, 'TSB00'),
('upsert_entity: unknown mode', $$SELECT upsert_entity('Hostile', '{"PartitionKey":"p","RowKey":"r"}', 'merge; DROP TABLE victim')$$, 'TSB00'),
('delete_entity: NULL table', $$SELECT delete_entity(NULL, 'p', 'r')$$, 'TSB00'),
('delete_entity: NULL PartitionKey', $$SELECT delete_entity('Hostile', NULL, 'r')$$, 'TSB00'),
('delete_entity: NULL RowKey', $$SELECT delete_entity('Hostile', 'p', NULL)$$, 'TSB00'),
('delete_entity: NULL If-Match', $$SELECT delete_entity('Hostile', 'p', 'r', NULL)$$, 'TSB00'),
('delete_entity: key with a slash', $$SELECT delete_entity('Hostile', 'p/q', 'r')$$, 'TSB02'),
('delete_entity: key too long', $$SELECT delete_entity('Hostile', 'p', repeat('r', 600))$$, 'TSB13'),
('get_entity: NULL table', $$SELECT * FROM get_entity(NULL, 'p', 'r')$$, 'TSB00'),
('get_entity: NULL PartitionKey', $$SELECT * FROM get_entity('Hostile', NULL, 'r')$$, 'TSB00'),
('get_entity: NULL RowKey', $$SELECT * FROM get_entity('Hostile', 'p', NULL)$$, 'TSB00'),
('get_entity: key with SQL', $$SELECT * FROM get_entity('Hostile', 'p'' OR ''1''=''1', 'r')$$, 'TSN01'),
('get_entity: $select with SQL', $$SELECT * FROM get_entity('Hostile', 'p', 'r', 'Name); DROP TABLE victim; --')$$, 'TSQ01'),
('get_entity: $select with an empty name', $$SELECT * FROM get_entity('Hostile', 'p', 'r', 'Name,,Age')$$, 'TSQ01'),
('get_entity: $select of 100000 names', $$SELECT * FROM get_entity('Hostile', 'p', 'r', (SELECT string_agg('a' || i, ',') FROM generate_series(1, 100000) i))$$, 'TSQ01'),
-- filters
('odata_to_sql: SQL after a literal', $$SELECT odata_to_sql('Name eq ''x''); DROP TABLE victim; --''')$$, 'TSF01'),
('odata_to_sql: quote breaking out', $$SELECT odata_to_sql('Name eq ''x'' or 1 eq 1')$$, 'TSF03'),
('odata_to_sql: literal against literal', $$SELECT odata_to_sql('1 eq 1')$$, 'TSF03'),
('odata_to_sql: property against property', $$SELECT odata_to_sql('Name eq Other')$$, 'TSF03'),
('odata_to_sql: unquoted value', $$SELECT odata_to_sql('PartitionKey eq Sales')$$, 'TSF03'),
('odata_to_sql: unknown keyword', $$SELECT odata_to_sql('(PartitionKey eq ''Sales'') und (RowKey eq ''x'')')$$, 'TSF01'),
('odata_to_sql: SQL comment', $$SELECT odata_to_sql('Name eq ''x'' -- comment')$$, 'TSF01'),
('odata_to_sql: semicolon', $$SELECT odata_to_sql('Name eq ''x'';')$$, 'TSF01'),
('odata_to_sql: 100000 parentheses, one unclosed', $$SELECT odata_to_sql(repeat('(', 100000) || 'a eq 1' || repeat(')', 99999))$$, 'TSF01'),
('odata_to_sql: 100000 nots without a comparison', $$SELECT odata_to_sql(repeat('not ', 100000))$$, 'TSF01'),
('odata_to_sql: unbalanced parentheses', $$SELECT odata_to_sql('((a eq 1)')$$, 'TSF01'),
('odata_to_sql: 16 comparisons', $$SELECT odata_to_sql((SELECT string_agg(format('a eq %s', i), ' or ') FROM generate_series(1, 16) i))$$, 'TSF02'),
('odata_to_sql: huge Int64 literal', $$SELECT odata_to_sql('a eq 99999999999999999999L')$$, 'TSF01'),
('odata_to_sql: huge Double literal', $$SELECT odata_to_sql('a eq 1e999999')$$, 'TSF01'),
('odata_to_sql: bad datetime', $$SELECT odata_to_sql('a eq datetime''2014-13-45T00:00:00Z''')$$, 'TSF01'),
('odata_to_sql: bad guid', $$SELECT odata_to_sql('a eq guid''nope''')$$, 'TSF01'),
('odata_to_sql: odd binary', $$SELECT odata_to_sql('a eq X''abc''')$$, 'TSF01'),
('odata_to_sql: unterminated string', $$SELECT odata_to_sql('a eq ''abc')$$, 'TSF01'),
('odata_to_sql: control character', $$SELECT odata_to_sql(E'a eq 1\u0001')$$, 'TSF01'),
('odata_to_sql: 1 MiB of spaces', $$SELECT odata_to_sql(repeat(' ', 1048576) || 'a eq')$$, 'TSF01'),
('query_entities: NULL table', $$SELECT * FROM query_entities(NULL)$$, 'TSB00'),
('query_entities: injection in the filter', $$SELECT * FROM query_entities('Hostile', 'Name eq ''Ken'' OR ''1''=''1''')$$, 'TSF01'),
('query_entities: $select with SQL', $$SELECT * FROM query_entities('Hostile', NULL, 'Name) FROM tablestore_data.hostile; --')$$, 'TSQ01'),
('query_entities: $top 1001', $$SELECT * FROM query_entities('Hostile', NULL, NULL, 1001)$$, 'TSQ01'),
('query_entities: $top -1', $$SELECT * FROM query_entities('Hostile', NULL, NULL, -1)$$, 'TSQ01'),
('query_page: $top 1001', $$SELECT query_page('Hostile', NULL, NULL, 1001)$$, 'TSQ01'),
('query_page: NULL $top', $$SELECT query_page('Hostile', NULL, NULL, NULL)$$, 'TSQ01'),
('query_page: NextRowKey without NextPartitionKey', $$SELECT query_page('Hostile', NULL, NULL, 10, NULL, 'r')$$, 'TSQ01'),
('query_page: continuation with a slash', $$SELECT query_page('Hostile', NULL, NULL, 10, 'p/x', 'r')$$, 'TSQ01'),
('query_page: continuation over 1 KiB', $$SELECT query_page('Hostile', NULL, NULL, 10, repeat('p', 600), 'r')$$, 'TSQ01'),
('query_sql: NULL table', $$SELECT query_sql(NULL)$$, 'TSB00'),
('explain_query: injection in the filter', $$SELECT explain_query('Hostile', 'a eq 1) OR (1=1')$$, 'TSF01'),
-- batches
('execute_batch: SQL in an op', $$SELECT execute_batch('Hostile', '[{"op":"insert''); DROP TABLE victim; --","entity":{"PartitionKey":"p","RowKey":"x"}}]')$$, 'TSB20'),
('execute_batch: SQL in a key', $$SELECT execute_batch('Hostile', '[{"op":"update","entity":{"PartitionKey":"p","RowKey":"r'' OR ''1''=''1"}}]'::jsonb)$$, 'TSN01'),
('execute_batch: 100000-deep document', $$SELECT execute_batch('Hostile', repeat('[', 100000) || repeat(']', 100000))$$, 'TSB20'),
('execute_batch: entity 100000 deep', $$SELECT execute_batch('Hostile', '[{"op":"insert","entity":' || repeat('{"a":', 100000) || '1' || repeat('}', 100000) || '}]')$$, 'TSB20'),
('execute_batch: 5 MiB document', $$SELECT execute_batch('Hostile', '[' || repeat(' ', 5242880) || ']')$$, 'TSB18'),
('execute_batch: 1000 operations', $$SELECT execute_batch('Hostile', (SELECT jsonb_agg(jsonb_build_object('op', 'delete', 'entity', jsonb_build_object('PartitionKey', 'p', 'RowKey', i::text))) FROM generate_series(1, 1000) i))$$, 'TSB17'),
('execute_batch: huge number in an entity', $$SELECT execute_batch('Hostile', '[{"op":"upsert_merge","entity":{"PartitionKey":"p","RowKey":"r","n":1e999999}}]')$$, 'TSB06'),
('execute_batch: NULL table', $$SELECT execute_batch(NULL, '[]'::jsonb)$$, 'TSB00'),
('execute_batch: NULL operations', $$SELECT execute_batch('Hostile', NULL::jsonb)$$, 'TSB20');

SELECT throws_ok(stmt, code, NULL, format('%s: %s', code, what)) FROM cases ORDER BY id;
SELECT ok((SELECT count(*) FROM cases) >= 100, format('the corpus holds %s bad inputs', (SELECT count(*) FROM cases)));

-- hostile but valid: handled, not refused
SELECT is(odata_to_sql(repeat('(', 100000) || 'a eq 1' || repeat(')', 100000)), odata_to_sql('a eq 1'),
	'100000 nested parentheses: parsed without recursion and simplified away');
SELECT is(odata_to_sql(repeat('not ', 100000) || 'a eq 1'), odata_to_sql('a eq 1'), '100000 nots cancel out');
SELECT throws_ok($$SELECT odata_to_sql('a eq 99999999999')$$, 'TSF01', NULL, 'an unsuffixed integer past Int32 is an error (Int64 needs L)');
-- NULL arguments of the STRICT accessors and operators give NULL, as in SQL
SELECT is(odata_to_sql(NULL), NULL, 'odata_to_sql(NULL) is NULL');
SELECT is(prop_string(NULL, 'Name'), NULL, 'prop_string(NULL, name) is NULL');
SELECT is(prop_int32('{"a":1}', NULL), NULL, 'prop_int32(entity, NULL) is NULL');
SELECT is(entity_from_binary(NULL), NULL, 'entity_from_binary(NULL) is NULL');
SELECT is('{"a":1}'::entity || NULL, NULL, 'entity || NULL is NULL');
SELECT is(pg_temp.state(), :'before', 'no bad input wrote anything');
SELECT ok(to_regclass('pg_temp.victim') IS NOT NULL, 'no injection dropped anything');
SELECT is((SELECT count(*) FROM tablestore_data.hostile), 1::bigint, 'the table holds its one entity');
SELECT is((SELECT string_agg(t, ',') FROM list_tables() t), 'Hostile', 'no table was created or dropped');
-- the stamp trigger on a table of the wrong shape, which any role can build with a temporary table
CREATE TEMP TABLE fake_table (partition_key int, row_key int, "timestamp" int, etag int, properties int);
CREATE TRIGGER stamp BEFORE INSERT ON fake_table FOR EACH ROW EXECUTE FUNCTION tablestore.stamp();
SELECT throws_ok($$INSERT INTO fake_table VALUES (1, 2, 3, 4, 5)$$, '39P01', NULL,
	'the stamp trigger refuses a table whose columns have the wrong types');
CREATE TEMP TABLE fake_props (partition_key text, row_key text, "timestamp" timestamptz, etag text, properties bytea);
CREATE TRIGGER stamp BEFORE INSERT ON fake_props FOR EACH ROW EXECUTE FUNCTION tablestore.stamp();
SELECT throws_ok($$INSERT INTO fake_props VALUES ('a', 'b', NULL, NULL, '\x0102ff')$$, '39P01', NULL,
	'and one whose properties are not entities');
-- a tablestore table altered by hand: every path refuses it (the layout check), and so does the trigger
SELECT create_table('Altered', '{"indexingMode":"none"}');	-- the entity index would refuse the new column type
ALTER TABLE tablestore_data.altered ALTER COLUMN properties TYPE bytea USING properties::text::bytea;
SELECT throws_ok($$SELECT insert_entity('Altered', '{"PartitionKey":"a","RowKey":"b"}')$$, 'TSX02', NULL,
	'insert_entity into a table whose properties column was altered: not a tablestore table, not a misread');
SELECT throws_ok($$INSERT INTO tablestore_data.altered VALUES ('a', 'b', NULL, NULL, '\x01')$$, '39P01', NULL,
	'a plain INSERT there: the stamp trigger refuses the table');
SELECT drop_table('Altered');
SELECT is((SELECT 1), 1, 'the backend is alive');

SELECT * FROM finish();
ROLLBACK;
