-- rest_key_scope: the key range of a shared access signature, applied by the database. Every
-- REST function that reads or writes entities takes key_scope (spk, srk, epk, erk); a point read,
-- an insert, an update, an upsert, a delete or a batch operation outside it is
-- AuthorizationFailure (TSA01) and writes nothing; a query and its continuations return only
-- the range. A caller that bypasses the gateway's own checks meets the same rule.
SET search_path = tablestore, public;

\set ECHO none
\i test/regress/helpers.sql
\set ECHO all

SELECT create_table('Scoped');
SELECT count(*) FROM (
	SELECT insert_entity('Scoped', jsonb_build_object('PartitionKey', pk, 'RowKey', 'r' || lpad(i::text, 2, '0'), 'v', i)::text::entity)
	FROM unnest(ARRAY['a', 'b', 'c', 'd']) pk, generate_series(0, 9) i) s;

-- the range b/r03 .. c/r06
\set scope '''{b,r03,c,r06}''::text[]'

-- queries: the range only, with a filter, paged (continuations inside the range), and a
-- continuation that points outside it
SELECT string_agg(e->>'PartitionKey' || '/' || (e->>'RowKey'), ' ')
FROM rest_query_entities('Scoped', NULL, 'PartitionKey,RowKey', NULL, NULL, NULL, 'nometadata', NULL, NULL, :scope) q,
	jsonb_array_elements(q.body::jsonb->'value') e;
SELECT string_agg(e->>'RowKey', ' ')
FROM rest_query_entities('Scoped', 'v ge 5 or PartitionKey eq ''a''', 'RowKey', NULL, NULL, NULL, 'nometadata', NULL, NULL, :scope) q,
	jsonb_array_elements(q.body::jsonb->'value') e;
SELECT next_partition_key, next_row_key, jsonb_array_length(body::jsonb->'value') AS n
FROM rest_query_entities('Scoped', NULL, NULL, 5, NULL, NULL, 'nometadata', NULL, NULL, :scope);
SELECT next_partition_key, next_row_key, jsonb_array_length(body::jsonb->'value') AS n
FROM rest_query_entities('Scoped', NULL, NULL, 5, 'b', 'r08', 'nometadata', NULL, NULL, :scope);
SELECT next_partition_key, next_row_key, body
FROM rest_query_entities('Scoped', NULL, NULL, 5, 'd', 'r00', 'nometadata', NULL, NULL, :scope);
SELECT string_agg(e->>'PartitionKey' || '/' || (e->>'RowKey'), ' ')
FROM rest_query_entities('Scoped', NULL, 'PartitionKey,RowKey', 3, 'a', 'r00', 'nometadata', NULL, NULL, :scope) q,
	jsonb_array_elements(q.body::jsonb->'value') e;
-- one partition, open bounds, a quote in a bound, a filter that is a whole expression only
SELECT string_agg(e->>'RowKey', ' ')
FROM rest_query_entities('Scoped', NULL, 'RowKey', NULL, NULL, NULL, 'nometadata', NULL, NULL, '{c,NULL,c,NULL}') q,
	jsonb_array_elements(q.body::jsonb->'value') e;
SELECT count(*) FROM rest_query_entities('Scoped', NULL, NULL, NULL, NULL, NULL, 'nometadata', NULL, NULL, '{NULL,NULL,b,r00}') q,
	jsonb_array_elements(q.body::jsonb->'value') e;
SELECT body FROM rest_query_entities('Scoped', NULL, NULL, NULL, NULL, NULL, 'nometadata', NULL, NULL, '{"it''s",NULL,"it''s",NULL}');
-- a filter of only spaces is no filter, scoped or not
SELECT count(*) FROM rest_query_entities('Scoped', '   ', NULL, NULL, NULL, NULL, 'nometadata', NULL, NULL, '{c,NULL,c,NULL}') q,
	jsonb_array_elements(q.body::jsonb->'value') e;
SELECT pg_temp.try($$SELECT body FROM tablestore.rest_query_entities('Scoped', 'true) or (true', NULL, NULL, NULL, NULL, 'nometadata', NULL, NULL, '{b,NULL,b,NULL}')$$);

-- point reads
SELECT etag IS NOT NULL AS found FROM rest_get_entity('Scoped', 'b', 'r03', NULL, 'nometadata', NULL, NULL, :scope);
SELECT etag IS NOT NULL AS found FROM rest_get_entity('Scoped', 'c', 'r06', NULL, 'nometadata', NULL, NULL, :scope);
SELECT pg_temp.try($$SELECT etag FROM tablestore.rest_get_entity('Scoped', 'b', 'r02', NULL, NULL, NULL, NULL, '{b,r03,c,r06}')$$);
SELECT pg_temp.try($$SELECT etag FROM tablestore.rest_get_entity('Scoped', 'c', 'r07', NULL, NULL, NULL, NULL, '{b,r03,c,r06}')$$);
SELECT pg_temp.try($$SELECT etag FROM tablestore.rest_get_entity('Scoped', 'a', 'r05', NULL, NULL, NULL, NULL, '{b,r03,c,r06}')$$);
-- an entity that does not exist outside the range is refused too, not ResourceNotFound
SELECT pg_temp.try($$SELECT etag FROM tablestore.rest_get_entity('Scoped', 'z', 'none', NULL, NULL, NULL, NULL, '{b,r03,c,r06}')$$);

-- writes inside, then outside: refused, nothing changed
SELECT partition_key, row_key FROM rest_insert_entity('Scoped', '{"PartitionKey":"b","RowKey":"r03a"}', false, NULL, NULL, NULL, :scope);
SELECT rest_write_entity('Scoped', 'c', 'r06', '{"v":60}', true, NULL, :scope) IS NOT NULL AS upserted;
SELECT rest_delete_entity('Scoped', 'b', 'r04', '*', :scope);
CREATE TEMP TABLE before AS SELECT partition_key, row_key, etag FROM query_entities('Scoped');
SELECT pg_temp.try($$SELECT etag FROM tablestore.rest_insert_entity('Scoped', '{"PartitionKey":"b","RowKey":"r02a"}', false, NULL, NULL, NULL, '{b,r03,c,r06}')$$);
SELECT pg_temp.try($$SELECT etag FROM tablestore.rest_insert_entity('Scoped', '{"PartitionKey":"e","RowKey":"x"}', false, NULL, NULL, NULL, '{b,r03,c,r06}')$$);
SELECT pg_temp.try($$SELECT tablestore.rest_write_entity('Scoped', 'a', 'r00', '{"v":1}', false, NULL, '{b,r03,c,r06}')$$);
SELECT pg_temp.try($$SELECT tablestore.rest_write_entity('Scoped', 'c', 'r07', '{"v":1}', true, '*', '{b,r03,c,r06}')$$);
SELECT pg_temp.try($$SELECT tablestore.rest_delete_entity('Scoped', 'd', 'r09', '*', '{b,r03,c,r06}')$$);
-- batches: one operation outside fails the whole batch, naming it
SELECT pg_temp.try($$SELECT count(*) FROM tablestore.rest_batch('Scoped', '[{"op":"upsert_merge","PartitionKey":"b","RowKey":"r05","entity_json":"{\"v\":1}"},{"op":"delete","PartitionKey":"b","RowKey":"r01","if_match":"*"}]', NULL, NULL, NULL, '{b,r03,c,r06}')$$);
SELECT pg_temp.try($$SELECT count(*) FROM tablestore.rest_batch('Scoped', '[{"op":"insert","entity_json":"{\"PartitionKey\":\"c\",\"RowKey\":\"r09\"}"}]', NULL, NULL, NULL, '{b,r03,c,r06}')$$);
SELECT count(*) AS changed FROM (
	SELECT partition_key, row_key, etag FROM query_entities('Scoped') EXCEPT SELECT * FROM before
	UNION ALL
	SELECT * FROM before EXCEPT SELECT partition_key, row_key, etag FROM query_entities('Scoped')) d;
SELECT partition_key, row_key FROM rest_batch('Scoped', '[{"op":"insert","entity_json":"{\"PartitionKey\":\"c\",\"RowKey\":\"r05a\"}"},{"op":"delete","PartitionKey":"c","RowKey":"r05","if_match":"*"}]', NULL, NULL, NULL, :scope);

-- without a scope (NULL) nothing is limited; a malformed scope is refused
SELECT etag IS NOT NULL AS found FROM rest_get_entity('Scoped', 'a', 'r00', NULL, NULL, NULL, NULL, NULL);
SELECT pg_temp.try($$SELECT etag FROM tablestore.rest_get_entity('Scoped', 'b', 'r05', NULL, NULL, NULL, NULL, '{b,r03,c}')$$);
SELECT pg_temp.try($$SELECT etag FROM tablestore.rest_get_entity('Scoped', 'b', 'r05', NULL, NULL, NULL, NULL, '{{b,r03},{c,r06}}')$$);
SELECT pg_temp.try($$SELECT etag FROM tablestore.rest_get_entity('Scoped', 'b', 'r05', NULL, NULL, NULL, NULL, '{NULL,r03,c,r06}')$$);

SELECT drop_table('Scoped');
