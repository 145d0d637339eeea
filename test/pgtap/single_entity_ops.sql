-- test/pgtap/single_entity_ops.sql - every cell of contract §4's operation table, every If-Match
-- form, and the errors of the single-entity functions.
BEGIN;
SET search_path = tablestore, public;
SELECT plan(84);

SELECT create_table('Ops');

-- helpers: the stored properties and ETag of one entity
CREATE FUNCTION pg_temp.props(rk text) RETURNS text LANGUAGE sql AS
$$ SELECT properties::text FROM tablestore_data.ops WHERE partition_key = 'p' AND row_key = rk $$;
CREATE FUNCTION pg_temp.etag(rk text) RETURNS text LANGUAGE sql AS
$$ SELECT etag FROM tablestore_data.ops WHERE partition_key = 'p' AND row_key = rk $$;

------------------------------------------------------------------ Insert
SELECT lives_ok($$SELECT insert_entity('Ops', '{"PartitionKey":"p","RowKey":"a","x":1,"y":"keep"}')$$,
	'Insert, entity missing: created');
SELECT is(pg_temp.props('a'), '{"x":1,"y":"keep"}', 'Insert stores the properties without the keys');
SELECT throws_ok($$SELECT insert_entity('Ops', '{"PartitionKey":"p","RowKey":"a","x":2}')$$,
	'TSC01', 'EntityAlreadyExists: the entity ("p", "a") already exists', 'Insert, entity exists: EntityAlreadyExists');
SELECT is(pg_temp.props('a'), '{"x":1,"y":"keep"}', 'a failed Insert changes nothing');
SELECT matches(insert_entity('Ops', '{"PartitionKey":"p","RowKey":"b"}'),
	'^W/"datetime''\d{4}-\d\d-\d\dT\d\d%3A\d\d%3A\d\d(\.\d{0,6}[1-9])?Z''"$', 'Insert returns an ETag in the service''s form');
SELECT is(insert_entity('Ops', '{"PartitionKey":"p","RowKey":"c"}'), pg_temp.etag('c'), 'the returned ETag is the stored one');
SELECT throws_ok($$SELECT insert_entity('Ops', '{"RowKey":"x"}')$$, 'TSB21', 'PropertiesNeedValue: the entity has no PartitionKey', 'Insert without PartitionKey: PropertiesNeedValue');
SELECT throws_ok($$SELECT insert_entity('Ops', '{"PartitionKey":"p"}')$$, 'TSB21', 'PropertiesNeedValue: the entity has no RowKey', 'Insert without RowKey: PropertiesNeedValue');

------------------------------------------------------------------ Update (replace)
SELECT lives_ok($$SELECT update_entity('Ops', '{"PartitionKey":"p","RowKey":"a","z":true}')$$,
	'Update, entity exists: replaced');
SELECT is(pg_temp.props('a'), '{"z":true}', 'Update removes the properties not in the request');
SELECT throws_ok($$SELECT update_entity('Ops', '{"PartitionKey":"p","RowKey":"nope","z":true}')$$,
	'TSN01', 'ResourceNotFound: the entity ("p", "nope") does not exist', 'Update, entity missing: ResourceNotFound');
SELECT throws_ok($$SELECT update_entity('Ops', '{"PartitionKey":"p","RowKey":"nope"}', 'W/"datetime''x''"')$$,
	'TSN01', NULL, 'Update with an ETag, entity missing: ResourceNotFound');
SELECT is((SELECT count(*) FROM tablestore_data.ops WHERE row_key = 'nope'), 0::bigint, 'Update never creates');

------------------------------------------------------------------ Merge
SELECT lives_ok($$SELECT merge_entity('Ops', '{"PartitionKey":"p","RowKey":"a","n":"new","z":false}')$$,
	'Merge, entity exists: merged');
SELECT is(pg_temp.props('a'), '{"z":false,"n":"new"}', 'Merge overwrites given properties in place and appends new ones');
SELECT lives_ok($$SELECT merge_entity('Ops', '{"PartitionKey":"p","RowKey":"a","m":1}')$$, 'Merge again');
SELECT is(pg_temp.props('a'), '{"z":false,"n":"new","m":1}', 'Merge keeps the properties not in the request, in their order');
SELECT throws_ok($$SELECT merge_entity('Ops', '{"PartitionKey":"p","RowKey":"nope","m":1}')$$,
	'TSN01', NULL, 'Merge, entity missing: ResourceNotFound');
SELECT is((SELECT count(*) FROM tablestore_data.ops WHERE row_key = 'nope'), 0::bigint, 'Merge never creates');

------------------------------------------------------------------ InsertOrReplace
SELECT lives_ok($$SELECT upsert_entity('Ops', '{"PartitionKey":"p","RowKey":"r","k":1,"l":2}', 'replace')$$,
	'InsertOrReplace, entity missing: created');
SELECT is(pg_temp.props('r'), '{"k":1,"l":2}', 'InsertOrReplace created it');
SELECT lives_ok($$SELECT upsert_entity('Ops', '{"PartitionKey":"p","RowKey":"r","k":9}', 'replace')$$,
	'InsertOrReplace, entity exists: replaced');
SELECT is(pg_temp.props('r'), '{"k":9}', 'InsertOrReplace removed the properties not in the request');

------------------------------------------------------------------ InsertOrMerge
SELECT lives_ok($$SELECT upsert_entity('Ops', '{"PartitionKey":"p","RowKey":"m","k":1,"l":2}')$$,
	'InsertOrMerge (the default mode), entity missing: created');
SELECT is(pg_temp.props('m'), '{"k":1,"l":2}', 'InsertOrMerge created it');
SELECT lives_ok($$SELECT upsert_entity('Ops', '{"PartitionKey":"p","RowKey":"m","k":9}', 'merge')$$,
	'InsertOrMerge, entity exists: merged');
SELECT is(pg_temp.props('m'), '{"k":9,"l":2}', 'InsertOrMerge kept the other properties');
SELECT throws_ok($$SELECT upsert_entity('Ops', '{"PartitionKey":"p","RowKey":"m"}', 'MERGE')$$,
	'TSB00', 'InvalidInput: upsert mode must be ''merge'' or ''replace''', 'an unknown upsert mode is InvalidInput');

------------------------------------------------------------------ Delete
SELECT lives_ok($$SELECT delete_entity('Ops', 'p', 'r')$$, 'Delete, entity exists: removed');
SELECT is(pg_temp.props('r'), NULL, 'the entity is gone');
SELECT throws_ok($$SELECT delete_entity('Ops', 'p', 'r')$$, 'TSN01', NULL, 'Delete, entity missing: ResourceNotFound');

------------------------------------------------------------------ Retrieve
SELECT is((SELECT properties::text FROM get_entity('Ops', 'p', 'a')), '{"z":false,"n":"new","m":1}',
	'Retrieve, entity exists: returned');
SELECT is((SELECT row(partition_key, row_key, "timestamp", etag)::text FROM get_entity('Ops', 'p', 'a')),
	(SELECT row(partition_key, row_key, "timestamp", etag)::text FROM tablestore_data.ops WHERE row_key = 'a'),
	'Retrieve returns keys, Timestamp and ETag');
SELECT throws_ok($$SELECT * FROM get_entity('Ops', 'p', 'zz')$$, 'TSN01',
	'ResourceNotFound: the entity ("p", "zz") does not exist', 'Retrieve, entity missing: ResourceNotFound');
SELECT is((SELECT properties::text FROM get_entity('Ops', 'p', 'a', 'n,PartitionKey, z ,absent')),
	'{"n":"new","z":false}', 'Retrieve with $select returns only the listed properties');
SELECT throws_ok($$SELECT * FROM get_entity('Ops', 'p', 'a', 'n,,z')$$, 'TSQ01', NULL, 'a malformed $select is InvalidInput');
SELECT throws_ok($$SELECT * FROM get_entity('Ops', 'p', 'a', 'n;drop')$$, 'TSQ01', NULL, 'a $select name must be a property name');
SELECT is((SELECT row_key FROM get_entity('ops', 'p', 'a')), 'a', 'table names are case-insensitive');

------------------------------------------------------------------ If-Match
SELECT pg_temp.etag('a') AS current_etag \gset
SELECT lives_ok(format($$SELECT update_entity('Ops', '{"PartitionKey":"p","RowKey":"a","v":1}', %L)$$, :'current_etag'),
	'Update with the current ETag succeeds');
SELECT isnt(pg_temp.etag('a'), :'current_etag', 'and gives a new ETag');
SELECT throws_ok(format($$SELECT update_entity('Ops', '{"PartitionKey":"p","RowKey":"a","v":2}', %L)$$, :'current_etag'),
	'TSP01', 'UpdateConditionNotSatisfied: the entity ("p", "a") has changed: its ETag is not the If-Match value',
	'Update with a stale ETag: UpdateConditionNotSatisfied');
SELECT is(pg_temp.props('a'), '{"v":1}', 'a failed conditional Update changes nothing');
SELECT throws_ok(format($$SELECT merge_entity('Ops', '{"PartitionKey":"p","RowKey":"a","v":2}', %L)$$, :'current_etag'),
	'TSP01', NULL, 'Merge with a stale ETag: UpdateConditionNotSatisfied');
SELECT throws_ok(format($$SELECT delete_entity('Ops', 'p', 'a', %L)$$, :'current_etag'),
	'TSP01', NULL, 'Delete with a stale ETag: UpdateConditionNotSatisfied');
SELECT is(pg_temp.props('a'), '{"v":1}', 'a failed conditional Delete changes nothing');
SELECT pg_temp.etag('a') AS current_etag \gset
SELECT lives_ok(format($$SELECT merge_entity('Ops', '{"PartitionKey":"p","RowKey":"a","w":2}', %L)$$, :'current_etag'),
	'Merge with the current ETag succeeds');
SELECT is(pg_temp.props('a'), '{"v":1,"w":2}', 'and merges');
SELECT lives_ok($$SELECT update_entity('Ops', '{"PartitionKey":"p","RowKey":"a","s":1}', '*')$$, 'Update with * succeeds');
SELECT lives_ok($$SELECT merge_entity('Ops', '{"PartitionKey":"p","RowKey":"a","t":1}', '*')$$, 'Merge with * succeeds');
SELECT throws_ok($$SELECT update_entity('Ops', '{"PartitionKey":"p","RowKey":"zz"}', '*')$$, 'TSN01', NULL,
	'* does not match a missing entity');
SELECT pg_temp.etag('a') AS current_etag \gset
SELECT lives_ok(format($$SELECT delete_entity('Ops', 'p', 'a', %L)$$, :'current_etag'), 'Delete with the current ETag succeeds');
SELECT lives_ok($$SELECT delete_entity('Ops', 'p', 'b', '*')$$, 'Delete with * succeeds');
SELECT throws_ok($$SELECT update_entity('Ops', '{"PartitionKey":"p","RowKey":"c"}', 'W/"datetime''2014-08-22T00%3A50%3A44.1234567Z''"')$$,
	'TSP01', NULL, 'a well-formed ETag that is not the entity''s fails the condition');

-- malformed If-Match values are InvalidInput, checked before anything is looked up
SELECT throws_ok(format($$SELECT update_entity('Ops', '{"PartitionKey":"p","RowKey":"c"}', %L)$$, v),
	'TSB15', 'InvalidInput: the If-Match value is neither * nor an ETag of the form W/"..."', 'garbage If-Match: ' || v)
FROM unnest(ARRAY['garbage', '', '**', 'W/', 'W/"', 'W/"x', '"strong"', 'W/"a"b"', 'W/"a b"', repeat('W/"x', 100) || '"']) v;
SELECT throws_ok($$SELECT delete_entity('Ops', 'p', 'c', 'nonsense')$$, 'TSB15', NULL, 'Delete with garbage If-Match');
SELECT throws_ok($$SELECT merge_entity('Ops', '{"PartitionKey":"p","RowKey":"nope"}', 'nonsense')$$, 'TSB15', NULL,
	'garbage If-Match is reported even when the entity is missing');

------------------------------------------------------------------ TableNotFound, bad names, NULLs
SELECT throws_ok($$SELECT insert_entity('Nope', '{"PartitionKey":"p","RowKey":"a"}')$$, 'TSN02',
	'TableNotFound: the table "Nope" does not exist', 'insert_entity on an unknown table: TableNotFound');
SELECT throws_ok($$SELECT update_entity('Nope', '{"PartitionKey":"p","RowKey":"a"}')$$, 'TSN02', NULL, 'update_entity: TableNotFound');
SELECT throws_ok($$SELECT merge_entity('Nope', '{"PartitionKey":"p","RowKey":"a"}')$$, 'TSN02', NULL, 'merge_entity: TableNotFound');
SELECT throws_ok($$SELECT upsert_entity('Nope', '{"PartitionKey":"p","RowKey":"a"}')$$, 'TSN02', NULL, 'upsert_entity: TableNotFound');
SELECT throws_ok($$SELECT delete_entity('Nope', 'p', 'a')$$, 'TSN02', NULL, 'delete_entity: TableNotFound');
SELECT throws_ok($$SELECT * FROM get_entity('Nope', 'p', 'a')$$, 'TSN02', NULL, 'get_entity: TableNotFound');
SELECT throws_ok($$SELECT insert_entity('Ops; DROP TABLE x', '{"PartitionKey":"p","RowKey":"a"}')$$, 'TSB14', NULL,
	'an injection attempt in a table name is InvalidResourceName');
SELECT throws_ok($$SELECT insert_entity(NULL, '{"PartitionKey":"p","RowKey":"a"}')$$, 'TSB00',
	'InvalidInput: tbl must not be NULL', 'a NULL table is InvalidInput');
SELECT throws_ok($$SELECT insert_entity('Ops', NULL)$$, 'TSB00', NULL, 'a NULL entity is InvalidInput');
SELECT throws_ok($$SELECT update_entity('Ops', '{"PartitionKey":"p","RowKey":"c"}', NULL)$$, 'TSB00', NULL, 'a NULL If-Match is InvalidInput');
SELECT throws_ok($$SELECT delete_entity('Ops', NULL, 'c')$$, 'TSB00', NULL, 'a NULL key is InvalidInput');
SELECT throws_ok($$SELECT * FROM get_entity('Ops', 'p', NULL)$$, 'TSB00', NULL, 'get_entity with a NULL key is InvalidInput');

------------------------------------------------------------------ stamps and checks on every path
-- (the direct path sets Timestamp and ETag itself when the stamp trigger is the table's only
-- trigger; these hold whichever path runs, and scripts/test.sh runs this file in both modes)
SELECT insert_entity('Ops', '{"PartitionKey":"p","RowKey":"future"}') IS NOT NULL AS setup \gset
ALTER TABLE tablestore_data.ops DISABLE TRIGGER stamp;
UPDATE tablestore_data.ops SET "timestamp" = now() + interval '1 day' WHERE partition_key = 'p' AND row_key = 'future';
ALTER TABLE tablestore_data.ops ENABLE TRIGGER stamp;
SELECT lives_ok($$SELECT merge_entity('Ops', '{"PartitionKey":"p","RowKey":"future","late":1}')$$, 'a write after a Timestamp in the future');
SELECT ok((SELECT "timestamp" >= now() + interval '1 day' FROM tablestore_data.ops WHERE partition_key = 'p' AND row_key = 'future'),
	'keeps the Timestamp from going backwards');
SELECT ok(pg_temp.etag('future') LIKE 'W/"datetime''' || to_char(now() at time zone 'UTC' + interval '1 day', 'YYYY-MM-DD') || '%',
	'and the ETag carries that Timestamp');
-- a merge that only the keys push over 1 MiB
SELECT lives_ok(format($$SELECT insert_entity('Ops', '{"PartitionKey":"%s","RowKey":"%s","A":"%s","B":"%s"}')$$,
	repeat('k', 512), repeat('r', 512), repeat('a', 32768), repeat('b', 32768)), 'setup: an entity with 1 KiB keys');
SELECT throws_ok(format($$SELECT merge_entity('Ops', %L::tablestore.entity)$$,
	format('{"PartitionKey":"%s","RowKey":"%s",', repeat('k', 512), repeat('r', 512)) ||
	(SELECT string_agg(format('"P%s":"%s"', i, repeat('x', 32768)), ',') FROM generate_series(1, 14) i) ||
	format(',"Q":"%s"}', repeat('q', 31500))),
	'TSB11', NULL, 'a merge over 1 MiB counting the keys: EntityTooLarge');
-- with a user trigger on the table, every trigger fires as in SQL
CREATE TEMP TABLE seen (etag text, ts timestamptz);
CREATE FUNCTION pg_temp.watch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN INSERT INTO seen VALUES (NEW.etag, NEW."timestamp"); RETURN NEW; END $$;
CREATE TRIGGER watch AFTER INSERT OR UPDATE ON tablestore_data.ops FOR EACH ROW EXECUTE FUNCTION pg_temp.watch();
SELECT lives_ok($$SELECT insert_entity('Ops', '{"PartitionKey":"p","RowKey":"watched"}')$$, 'a write with a user trigger');
SELECT is((SELECT etag FROM seen), pg_temp.etag('watched'), 'the user trigger saw the stamped row');
DROP TRIGGER watch ON tablestore_data.ops;

SELECT * FROM finish();
ROLLBACK;
