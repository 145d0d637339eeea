-- test/sql/batch.sql - execute_batch: the result's shape and the messages users see (the rules at
-- and past every limit are in test/pgtap/batch.sql).
SELECT tablestore.create_table('BatchDemo') IS NOT NULL AS created;

-- a result per operation in request order: the new ETag, {} for a delete
SELECT jsonb_path_query(r, '$[*].keyvalue().key') AS member, count(*)
FROM tablestore.execute_batch('BatchDemo', '[
	{"op":"insert","entity":{"PartitionKey":"Sales","RowKey":"empid_000123","Name":"Ken Kwok","Email":"kenk@contoso.com"}},
	{"op":"insert","entity":{"PartitionKey":"Sales","RowKey":"email_kenk@contoso.com","EmployeeId":"000123"}},
	{"op":"upsert_merge","entity":{"PartitionKey":"Sales","RowKey":"counter","n":1}}]') r
GROUP BY 1;
SELECT tablestore.execute_batch('BatchDemo', '[{"op":"delete","entity":{"PartitionKey":"Sales","RowKey":"counter"}}]');
SELECT row_key, properties FROM tablestore.query_entities('BatchDemo');

\set VERBOSITY default
-- the failing operation's index (0-based, in request order) and the service's code
SELECT tablestore.execute_batch('BatchDemo', '[
	{"op":"merge","entity":{"PartitionKey":"Sales","RowKey":"empid_000123","Email":"ken@contoso.com"}},
	{"op":"delete","entity":{"PartitionKey":"Sales","RowKey":"email_kenk@contoso.com"},"if_match":"W/\"datetime''2020-01-01T00%3A00%3A00.0000000Z''\""},
	{"op":"insert","entity":{"PartitionKey":"Sales","RowKey":"email_ken@contoso.com","EmployeeId":"000123"}}]');
SELECT tablestore.execute_batch('BatchDemo', '[
	{"op":"insert","entity":{"PartitionKey":"Sales","RowKey":"a"}},
	{"op":"insert","entity":{"PartitionKey":"Marketing","RowKey":"b"}}]');
SELECT tablestore.execute_batch('BatchDemo', '[
	{"op":"insert","entity":{"PartitionKey":"Sales","RowKey":"a"}},
	{"op":"upsert_replace","entity":{"PartitionKey":"Sales","RowKey":"a"}}]');
SELECT tablestore.execute_batch('BatchDemo', '[{"op":"insert","entity":{"PartitionKey":"Sales","RowKey":"empid_000123"}}]');
SELECT tablestore.execute_batch('BatchDemo', '[{"op":"update","entity":{"PartitionKey":"Sales","RowKey":"nobody"}}]');
SELECT tablestore.execute_batch('BatchDemo', '[{"op":"replace","entity":{"PartitionKey":"Sales","RowKey":"a"}}]');
SELECT tablestore.execute_batch('BatchDemo', (SELECT jsonb_agg(jsonb_build_object('op', 'insert', 'entity',
	jsonb_build_object('PartitionKey', 'Sales', 'RowKey', 'r' || i))) FROM generate_series(1, 101) i));
SELECT tablestore.execute_batch('BatchDemo', (SELECT jsonb_agg(jsonb_build_object('op', 'insert', 'entity',
	jsonb_build_object('PartitionKey', 'Sales', 'RowKey', 'r' || i, 'A', repeat('a', 30000), 'B', repeat('b', 30000))))
	FROM generate_series(1, 100) i));
-- An operation whose write fails (a merge past 252 properties, past 1 MiB) is named before a
-- later operation whose condition fails, although conditions are checked before any write
SELECT tablestore.insert_entity('BatchDemo', ('{"PartitionKey":"Sales","RowKey":"wide",' ||
	string_agg(format('"p%s":1', i), ',') || '}')::tablestore.entity) IS NOT NULL AS wide FROM generate_series(1, 252) i;
SELECT tablestore.insert_entity('BatchDemo', ('{"PartitionKey":"Sales","RowKey":"big","a":"' || repeat('a', 32000) || '",' ||
	string_agg(format('"s%s":"%s"', i, repeat('x', 32000)), ',') || '}')::tablestore.entity) IS NOT NULL AS big
FROM generate_series(1, 15) i;
SELECT tablestore.execute_batch('BatchDemo', '[
	{"op":"merge","entity":{"PartitionKey":"Sales","RowKey":"wide","extra":1}},
	{"op":"insert","entity":{"PartitionKey":"Sales","RowKey":"empid_000123"}}]');
SELECT tablestore.execute_batch('BatchDemo', format('[
	{"op":"upsert_merge","entity":{"PartitionKey":"Sales","RowKey":"a1"}},
	{"op":"merge","entity":{"PartitionKey":"Sales","RowKey":"big","b":"%s"}},
	{"op":"delete","entity":{"PartitionKey":"Sales","RowKey":"nobody"}}]', repeat('b', 32000)));
-- (the condition's own failure when no earlier write fails)
SELECT tablestore.execute_batch('BatchDemo', '[
	{"op":"merge","entity":{"PartitionKey":"Sales","RowKey":"big","c":1}},
	{"op":"delete","entity":{"PartitionKey":"Sales","RowKey":"nobody"}}]');
SELECT tablestore.delete_entity('BatchDemo', 'Sales', k, '*') FROM unnest(ARRAY['wide', 'big']) k;
\set VERBOSITY terse
-- nothing of the failed batches was applied
SELECT row_key, properties FROM tablestore.query_entities('BatchDemo');
SELECT tablestore.drop_table('BatchDemo');
