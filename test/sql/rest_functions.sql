-- rest_functions: the functions tablestore-gateway calls, one per REST call (doc/gateway.md):
-- bodies at the three metadata levels, keys from URLs, Query Tables with $filter and paging,
-- batches with keys beside entities and echoed inserts, and their errors.
SET search_path = tablestore, public;

\set ECHO none
\i test/regress/helpers.sql
\set ECHO all

-- ETags and Timestamps change with every run: shown masked
CREATE FUNCTION pg_temp.m(t text) RETURNS text LANGUAGE sql AS $$
	SELECT regexp_replace(regexp_replace(t, 'datetime''[^'']*''', '<etag>', 'g'),
		'"Timestamp":"[^"]*"', '"Timestamp":"<ts>"', 'g')
$$;

SELECT table_name, body FROM rest_create_table('{"TableName":"Orders"}', 'minimalmetadata', 'http://127.0.0.1:10002/devstoreaccount1', 'devstoreaccount1');
SELECT body FROM rest_create_table('{"TableName":"Lines","Other":[1,{"a":2}]}', 'fullmetadata', 'https://acct.table.core.windows.net', 'acct');
SELECT body FROM rest_create_table('{"TableName":"Shipments"}', 'nometadata');
SELECT pg_temp.try($$SELECT body FROM tablestore.rest_create_table('{"TableName":"orders"}')$$);
SELECT pg_temp.try($$SELECT body FROM tablestore.rest_create_table('{"Name":"x"}')$$);
SELECT pg_temp.try($$SELECT body FROM tablestore.rest_create_table('{"TableName":"dupone","TableName":"duptwo"}')$$);
SELECT pg_temp.try($$SELECT body FROM tablestore.rest_create_table('not json')$$);
-- the body's object is read by the one member loop of every JSON reader (json_next_member): no
-- trailing comma, no member without a name
SELECT pg_temp.try($$SELECT body FROM tablestore.rest_create_table('{"TableName":"Trailing",}')$$);
SELECT pg_temp.try($$SELECT body FROM tablestore.rest_create_table('{"TableName":"NoColon" "x"}')$$);
SELECT pg_temp.try($$SELECT body FROM tablestore.rest_create_table('{"TableName":"Two" "x":1}')$$);
SELECT pg_temp.try($$SELECT body FROM tablestore.rest_create_table('{,"TableName":"Lead"}')$$);
SELECT pg_temp.try($$SELECT body FROM tablestore.rest_create_table('{"TableName":"a-b"}')$$);
SELECT pg_temp.try($$SELECT body FROM tablestore.rest_create_table('{"TableName":"Orders2"}', 'atom')$$);
-- a TableName holding U+0000 or another control character (escaped in the JSON): InvalidResourceName,
-- never the name cut at the U+0000 ("sec" is not created)
SELECT pg_temp.try($$SELECT body FROM tablestore.rest_create_table('{"TableName":"sec\u0000"}')$$);
SELECT pg_temp.try($$SELECT body FROM tablestore.rest_create_table('{"TableName":"sec\u0000ret"}')$$);
SELECT pg_temp.try($$SELECT body FROM tablestore.rest_create_table('{"TableName":"tab\u0001le"}')$$);
SELECT pg_temp.try($$SELECT body FROM tablestore.rest_create_table('{"TableName":"tab\u007fle"}')$$);
SELECT pg_temp.try($$SELECT body FROM tablestore.rest_create_table('{"TableName":"tab\nle"}')$$);
SELECT count(*) AS sec_tables FROM list_tables() n WHERE lower(n) LIKE 'sec%' OR lower(n) LIKE 'tab%';

-- Query Tables: filter on TableName, $top and NextTableName
SELECT * FROM rest_query_tables(NULL, NULL, NULL, 'nometadata');
SELECT * FROM rest_query_tables('TableName ge ''M'' and TableName lt ''P''', NULL, NULL, 'minimalmetadata', 'http://h/a', 'a');
SELECT * FROM rest_query_tables('not (TableName eq ''Orders'')', 1, NULL, 'nometadata');
SELECT * FROM rest_query_tables(NULL, 1, 'Orders', 'nometadata');
SELECT * FROM rest_query_tables('Other eq ''x''', NULL, NULL, 'nometadata');
SELECT * FROM rest_query_tables(NULL, NULL, NULL, 'fullmetadata', 'http://h/a', 'a');
SELECT pg_temp.try($$SELECT body FROM tablestore.rest_query_tables('TableName eq', NULL, NULL)$$);
SELECT pg_temp.try($$SELECT body FROM tablestore.rest_query_tables(NULL, 0, NULL)$$);

-- Get Table: the one table under its created name, at each level; a missing or bad name
SELECT rest_get_table('orders', 'minimalmetadata', 'http://h/a', 'a');
SELECT rest_get_table('Orders', 'fullmetadata', 'http://h/a', 'a');
SELECT rest_get_table('Orders', 'nometadata');
SELECT pg_temp.try($$SELECT tablestore.rest_get_table('Missing')$$);
SELECT pg_temp.try($$SELECT tablestore.rest_get_table('a-b')$$);
SELECT pg_temp.try($$SELECT tablestore.rest_get_table(NULL)$$);

-- Insert: 201 with the entity (echo) at each level, or only the ETag and keys
SELECT pg_temp.m(etag) etag, partition_key, row_key, pg_temp.m(body) body FROM rest_insert_entity('Orders',
	'{"PartitionKey":"p","RowKey":"1","Amount":5.0,"Big":"12","Big@odata.type":"Edm.Int64","When":"2024-01-02T03:04:05.5Z","When@odata.type":"Edm.DateTime"}',
	true, 'fullmetadata', 'http://h/a', 'a');
SELECT pg_temp.m(body) FROM rest_insert_entity('Orders', '{"PartitionKey":"p","RowKey":"2","Big":"12","Big@odata.type":"Edm.Int64"}', true, 'minimalmetadata', 'http://h/a', 'a');
SELECT pg_temp.m(body) FROM rest_insert_entity('Orders', '{"PartitionKey":"p","RowKey":"3","Big":"12","Big@odata.type":"Edm.Int64"}', true, 'nometadata');
SELECT body IS NULL AS no_content FROM rest_insert_entity('Orders', '{"PartitionKey":"p","RowKey":"4"}', false);
SELECT pg_temp.try($$SELECT etag FROM tablestore.rest_insert_entity('Orders', '{"PartitionKey":"p","RowKey":"1"}')$$);
SELECT pg_temp.try($$SELECT etag FROM tablestore.rest_insert_entity('Nothing', '{"PartitionKey":"p","RowKey":"1"}')$$);
SELECT pg_temp.try($$SELECT etag FROM tablestore.rest_insert_entity('Orders', '{"PartitionKey":"p"')$$);
-- an entity without PartitionKey or RowKey: PropertiesNeedValue
SELECT pg_temp.try($$SELECT etag FROM tablestore.rest_insert_entity('Orders', '{"PartitionKey":"p","x":1}')$$);
SELECT pg_temp.try($$SELECT etag FROM tablestore.rest_insert_entity('Orders', '{"RowKey":"r","x":1}')$$);

-- Update, Merge and the upserts, keys from the URL (a quote inside a key, as the URL undoubles it)
SELECT rest_write_entity('Orders', 'p', 'it''s', '{"x":1}', true) IS NOT NULL AS insert_or_merge;
SELECT rest_write_entity('Orders', 'p', 'it''s', '{"y":2}', true) IS NOT NULL AS insert_or_merge_again;
SELECT properties FROM get_entity('Orders', 'p', 'it''s');
SELECT rest_write_entity('Orders', 'p', 'it''s', '{"PartitionKey":"p","RowKey":"it''s","z":3}', false) IS NOT NULL AS insert_or_replace;
SELECT properties FROM get_entity('Orders', 'p', 'it''s');
SELECT rest_write_entity('Orders', 'p', '1', '{"Amount":6.0}', true, '*') IS NOT NULL AS merge_star;
SELECT pg_temp.try($$SELECT tablestore.rest_write_entity('Orders', 'p', 'none', '{"a":1}', false, '*')$$);
SELECT pg_temp.try($$SELECT tablestore.rest_write_entity('Orders', 'p', '1', '{"a":1}', false, 'W/"stale"')$$);
SELECT pg_temp.try($$SELECT tablestore.rest_write_entity('Orders', 'p', '1', '{"RowKey":"2","a":1}', false)$$);
SELECT pg_temp.try($$SELECT tablestore.rest_write_entity('Orders', 'p', 'a/b', '{"a":1}', false)$$);

-- point read and query, at each level, with $select
SELECT pg_temp.m(etag) etag, pg_temp.m(body) body FROM rest_get_entity('Orders', 'p', '1', NULL, 'minimalmetadata', 'http://h/a', 'a');
SELECT pg_temp.m(body) FROM rest_get_entity('Orders', 'p', 'it''s', NULL, 'fullmetadata', 'http://h/a', 'a');
SELECT pg_temp.m(body) FROM rest_get_entity('Orders', 'p', '1', 'Amount,Nothing', 'nometadata');
SELECT pg_temp.try($$SELECT body FROM tablestore.rest_get_entity('Orders', 'p', 'none')$$);
SELECT pg_temp.m(body) body, next_partition_key, next_row_key FROM rest_query_entities('Orders', 'PartitionKey eq ''p''', 'Big', 2, NULL, NULL, 'minimalmetadata', 'http://h/a', 'a');
SELECT pg_temp.m(body) body, next_partition_key, next_row_key FROM rest_query_entities('Orders', 'PartitionKey eq ''p''', 'Big', 2, 'p', '3', 'nometadata');
SELECT pg_temp.m(body) FROM rest_query_entities('Orders', 'Big eq 12L', '', NULL, NULL, NULL, 'fullmetadata', 'http://h/a', 'a');
SELECT pg_temp.try($$SELECT body FROM tablestore.rest_query_entities('Orders', 'Big eq 12', NULL, 1001)$$);

-- $batch: keys beside the entities, a delete without an entity, an echoed insert, entities as JSON text
SELECT pg_temp.m(etag) etag, partition_key, row_key, pg_temp.m(body) body FROM rest_batch('Orders', '[
	{"op":"insert","entity":{"PartitionKey":"q","RowKey":"1","v":1},"echo":true},
	{"op":"upsert_merge","PartitionKey":"q","RowKey":"2","entity":{"v":2}},
	{"op":"insert","PartitionKey":"q","RowKey":"3","entity":{"v":3}},
	{"op":"insert","entity_json":"{\"PartitionKey\":\"q\",\"RowKey\":\"4\",\"v\":4, \"s\":\"\\u00e9\\\"\"} ","echo":true},
	{"op":"upsert_replace","PartitionKey":"q","RowKey":"5","entity_json":"{\"v\":5}"}]', 'minimalmetadata', 'http://h/a', 'a');
SELECT pg_temp.m(etag) etag, partition_key, row_key, body FROM rest_batch('Orders', '[{"op":"delete","PartitionKey":"q","RowKey":"1","if_match":"*"},
	{"op":"merge","PartitionKey":"q","RowKey":"2","entity":{"w":1}}]');
SELECT row_key, properties FROM tablestore_data.orders WHERE partition_key = 'q' ORDER BY row_key;
SELECT pg_temp.try($$SELECT count(*) FROM tablestore.rest_batch('Orders', '[{"op":"merge","PartitionKey":"q","RowKey":"9","entity":{"a":1}}]')$$);
SELECT pg_temp.try($$SELECT count(*) FROM tablestore.rest_batch('Orders', '[{"op":"insert","PartitionKey":"q","RowKey":"5","entity":{"RowKey":"6"}}]')$$);
SELECT pg_temp.try($$SELECT count(*) FROM tablestore.rest_batch('Orders', '[{"op":"merge","PartitionKey":"q","RowKey":"2"}]')$$);
SELECT pg_temp.try($$SELECT count(*) FROM tablestore.rest_batch('Orders', '[{"op":"merge","PartitionKey":"q","RowKey":"2","entity":{},"echo":true}]')$$);
-- echo may name the level an insert is returned at (a sub-request's own Accept)
SELECT partition_key, row_key, pg_temp.m(body) body FROM rest_batch('Orders', '[
	{"op":"insert","PartitionKey":"lv","RowKey":"1","entity":{"n":1},"echo":"fullmetadata"},
	{"op":"insert","PartitionKey":"lv","RowKey":"2","entity":{"n":2},"echo":true}]', 'nometadata', 'http://h/a', 'a');
SELECT pg_temp.try($$SELECT count(*) FROM tablestore.rest_batch('Orders', '[{"op":"insert","PartitionKey":"lv","RowKey":"3","entity":{},"echo":"verbose"}]')$$);
SELECT delete_entity('Orders', 'lv', k, '*') FROM unnest(ARRAY['1', '2']) k;
SELECT pg_temp.try($$SELECT count(*) FROM tablestore.rest_batch('Orders', '[{"op":"insert","PartitionKey":"q","RowKey":"a#b","entity":{}}]')$$);
-- entity_json: not a string, not one object, trailing text, both forms, keys that disagree
SELECT pg_temp.try($$SELECT count(*) FROM tablestore.rest_batch('Orders', '[{"op":"upsert_merge","PartitionKey":"q","RowKey":"2","entity_json":{}}]')$$);
SELECT pg_temp.try($$SELECT count(*) FROM tablestore.rest_batch('Orders', '[{"op":"upsert_merge","PartitionKey":"q","RowKey":"2","entity":{"a":1}},{"op":"upsert_merge","PartitionKey":"q","RowKey":"3","entity_json":"[1]"}]')$$);
SELECT pg_temp.try($$SELECT count(*) FROM tablestore.rest_batch('Orders', '[{"op":"upsert_merge","PartitionKey":"q","RowKey":"2","entity_json":"{} , \"op\":\"delete\""}]')$$);
SELECT pg_temp.try($$SELECT count(*) FROM tablestore.rest_batch('Orders', '[{"op":"upsert_merge","PartitionKey":"q","RowKey":"2","entity_json":"{\"a\":1"}]')$$);
SELECT pg_temp.try($$SELECT count(*) FROM tablestore.rest_batch('Orders', '[{"op":"upsert_merge","PartitionKey":"q","RowKey":"2","entity":{},"entity_json":"{}"}]')$$);
SELECT pg_temp.try($$SELECT count(*) FROM tablestore.rest_batch('Orders', '[{"op":"upsert_merge","PartitionKey":"q","RowKey":"2","entity_json":"{\"RowKey\":\"7\"}"}]')$$);

SELECT drop_table('Orders'), drop_table('Lines'), drop_table('Shipments');
