-- test/pgtap/batch.sql - execute_batch (contract §6): every rule at and one past its limit, the
-- failing operation's index, atomicity, composition with the caller's transaction, malformed
-- operation lists. Run by scripts/test.sh with tablestore.fast_path on and off.
BEGIN;
SET search_path = tablestore, public;
SELECT plan(108);

SELECT create_table('Batch');

-- helpers
CREATE FUNCTION pg_temp.props(rk text, pk text DEFAULT 'p') RETURNS text LANGUAGE sql AS
$$ SELECT properties::text FROM tablestore_data.batch WHERE partition_key = pk AND row_key = rk $$;
CREATE FUNCTION pg_temp.etag(rk text, pk text DEFAULT 'p') RETURNS text LANGUAGE sql AS
$$ SELECT etag FROM tablestore_data.batch WHERE partition_key = pk AND row_key = rk $$;
-- everything stored, keys, stamps and properties, as one digest
CREATE FUNCTION pg_temp.state() RETURNS text LANGUAGE sql AS
$$ SELECT md5(coalesce(string_agg(format('%s|%s|%s|%s|%s', partition_key, row_key, "timestamp", etag, properties),
                                  E'\n' ORDER BY partition_key, row_key), ''))
   FROM tablestore_data.batch $$;
-- n operations of one kind on RowKeys k000, k001, ... of partition pk
CREATE FUNCTION pg_temp.ops(n int, kind text, pk text DEFAULT 'p', prefix text DEFAULT 'k') RETURNS jsonb LANGUAGE sql AS
$$ SELECT coalesce(jsonb_agg(jsonb_build_object('op', kind, 'entity',
          jsonb_build_object('PartitionKey', pk, 'RowKey', prefix || lpad(i::text, 3, '0'), 'n', i)) ORDER BY i), '[]')
   FROM generate_series(0, n - 1) i $$;
-- a copy of ops with element i replaced
CREATE FUNCTION pg_temp.set_op(ops jsonb, i int, op jsonb) RETURNS jsonb LANGUAGE sql AS
$$ SELECT jsonb_set(ops, ARRAY[i::text], op) $$;

------------------------------------------------------------------ a mixed batch
SELECT lives_ok($$SELECT execute_batch('Batch', '[
	{"op":"insert","entity":{"PartitionKey":"m","RowKey":"upd","a":1,"b":"x"}},
	{"op":"insert","entity":{"PartitionKey":"m","RowKey":"mrg","a":1,"b":"x"}},
	{"op":"insert","entity":{"PartitionKey":"m","RowKey":"del","a":1}},
	{"op":"insert","entity":{"PartitionKey":"m","RowKey":"ur","a":1,"b":"x"}},
	{"op":"insert","entity":{"PartitionKey":"m","RowKey":"um","a":1,"b":"x"}}]')$$, 'a batch of inserts');
SELECT is((SELECT count(*) FROM tablestore_data.batch WHERE partition_key = 'm'), 5::bigint, 'all five inserted');

CREATE TEMP TABLE r AS
SELECT execute_batch('Batch', jsonb_build_array(
	jsonb_build_object('op', 'update', 'entity', '{"PartitionKey":"m","RowKey":"upd","c":true}'::jsonb, 'if_match', pg_temp.etag('upd', 'm')),
	jsonb_build_object('op', 'merge', 'entity', '{"PartitionKey":"m","RowKey":"mrg","c":true}'::jsonb, 'if_match', pg_temp.etag('mrg', 'm')),
	jsonb_build_object('op', 'delete', 'entity', '{"PartitionKey":"m","RowKey":"del"}'::jsonb, 'if_match', pg_temp.etag('del', 'm')),
	jsonb_build_object('op', 'upsert_replace', 'entity', '{"PartitionKey":"m","RowKey":"ur","c":true}'::jsonb),
	jsonb_build_object('op', 'upsert_merge', 'entity', '{"PartitionKey":"m","RowKey":"um","c":true}'::jsonb),
	jsonb_build_object('op', 'upsert_replace', 'entity', '{"PartitionKey":"m","RowKey":"ur2","d":2}'::jsonb),
	jsonb_build_object('op', 'upsert_merge', 'entity', '{"PartitionKey":"m","RowKey":"um2","d":2}'::jsonb),
	jsonb_build_object('op', 'insert', 'entity', '{"PartitionKey":"m","RowKey":"new","d":2}'::jsonb)
)) AS res;
SELECT is(jsonb_array_length(res), 8, 'one result per operation') FROM r;
SELECT is(res -> 2, '{}'::jsonb, 'a delete yields {}') FROM r;
SELECT is(array_agg(e ->> 'etag' ORDER BY i), ARRAY[pg_temp.etag('upd', 'm'), pg_temp.etag('mrg', 'm'), NULL,
		pg_temp.etag('ur', 'm'), pg_temp.etag('um', 'm'), pg_temp.etag('ur2', 'm'), pg_temp.etag('um2', 'm'), pg_temp.etag('new', 'm')],
	'each result is the stored ETag, in request order')
FROM r, jsonb_array_elements(res) WITH ORDINALITY AS x(e, i);
SELECT is((SELECT count(DISTINCT e ->> 'etag') FROM r, jsonb_array_elements(res) e WHERE e ? 'etag'), 7::bigint,
	'every write has its own ETag');
SELECT is(pg_temp.props('upd', 'm'), '{"c":true}', 'update replaced');
SELECT is(pg_temp.props('mrg', 'm'), '{"a":1,"b":"x","c":true}', 'merge merged');
SELECT is(pg_temp.props('del', 'm'), NULL, 'delete removed');
SELECT is(pg_temp.props('ur', 'm'), '{"c":true}', 'upsert_replace of an existing entity replaced');
SELECT is(pg_temp.props('um', 'm'), '{"a":1,"b":"x","c":true}', 'upsert_merge of an existing entity merged');
SELECT is(pg_temp.props('ur2', 'm') || pg_temp.props('um2', 'm') || pg_temp.props('new', 'm'), '{"d":2}{"d":2}{"d":2}',
	'both upserts and the insert created missing entities');
SELECT ok((SELECT bool_and("timestamp" > now() - interval '1 minute') FROM tablestore_data.batch WHERE partition_key = 'm'),
	'the server set every Timestamp');
SELECT lives_ok($$SELECT execute_batch('Batch', '[{"op":"merge","entity":{"PartitionKey":"m","RowKey":"upd","Timestamp":"2000-01-01T00:00:00Z","Timestamp@odata.type":"Edm.DateTime"}}]')$$,
	'a client Timestamp is accepted');
SELECT ok((SELECT "timestamp" > '2001-01-01' FROM tablestore_data.batch WHERE partition_key = 'm' AND row_key = 'upd'),
	'and ignored');
SELECT is(execute_batch('Batch', '[{"op":"merge","entity":{"PartitionKey":"m","RowKey":"upd","z":1}, "if_match":"*"}]') -> 0 ->> 'etag',
	pg_temp.etag('upd', 'm'), 'if_match "*" matches any existing entity');

------------------------------------------------------------------ at most 100 operations
SELECT is(jsonb_array_length(execute_batch('Batch', pg_temp.ops(100, 'insert', 'hundred'))), 100, '100 operations: accepted');
SELECT is((SELECT count(*) FROM tablestore_data.batch WHERE partition_key = 'hundred'), 100::bigint, 'and all applied');
SELECT throws_ok($$SELECT execute_batch('Batch', pg_temp.ops(101, 'insert', 'h101'))$$,
	'TSB17', 'InvalidInput: the batch has 101 operations; the limit is 100', '101 operations: InvalidInput');
SELECT is((SELECT count(*) FROM tablestore_data.batch WHERE partition_key = 'h101'), 0::bigint, 'and nothing applied');

------------------------------------------------------------------ at most 4 MiB of JSON
-- 100 inserts whose document text (operations::text) is exactly `bytes` long; escapes, non-ASCII
-- text and numbers with many digits all count as written
CREATE FUNCTION pg_temp.sized(bytes int, pk text) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
	doc jsonb;
	extra int;
BEGIN
	SELECT jsonb_agg(jsonb_build_object('op', 'insert', 'entity', jsonb_build_object(
		'PartitionKey', pk, 'RowKey', 'r' || i, 'A', repeat(E'x\t"\\\u00e9\u0001', 1000), 'B', '',
		'N', 1.00000000000000000000, 'D', 12345678901234567890123456789.5)) ORDER BY i)
	INTO doc FROM generate_series(0, 99) i;
	doc := jsonb_set(doc, '{99,entity,P}', '""');
	extra := bytes - octet_length(doc::text);	-- spread over the B properties, the rest in P
	FOR i IN 0 .. 99 LOOP
		doc := jsonb_set(doc, ARRAY[i::text, 'entity', 'B'], to_jsonb(repeat('y', extra / 100)));
	END LOOP;
	RETURN jsonb_set(doc, '{99,entity,P}', to_jsonb(repeat('z', extra % 100)));
END $$;
SELECT is(octet_length(pg_temp.sized(4194304, 's')::text), 4194304, 'the test document is exactly 4 MiB');
SELECT lives_ok($$SELECT execute_batch('Batch', pg_temp.sized(4194304, 's'))$$, 'a 4 MiB payload: accepted');
SELECT is((SELECT count(*) FROM tablestore_data.batch WHERE partition_key = 's'), 100::bigint, 'and applied');
SELECT throws_ok($$SELECT execute_batch('Batch', pg_temp.sized(4194305, 's2'))$$,
	'TSB18', 'RequestBodyTooLarge: the batch is 4194305 bytes of JSON; the limit is 4194304', '4 MiB + 1 byte: RequestBodyTooLarge');
SELECT is((SELECT count(*) FROM tablestore_data.batch WHERE partition_key = 's2'), 0::bigint, 'and nothing applied');
SELECT throws_ok($$SELECT execute_batch('Batch', jsonb_build_array(jsonb_build_object('op', 'insert', 'entity', '{"PartitionKey":"s3","RowKey":"r"}'::jsonb,
		'if_match', repeat('w', 4194304))))$$,
	'TSB18', NULL, 'a payload made large by any member counts');

------------------------------------------------------------------ one PartitionKey
SELECT throws_ok($$SELECT execute_batch('Batch', pg_temp.set_op(pg_temp.ops(3, 'insert', 'pa'), 1,
		'{"op":"insert","entity":{"PartitionKey":"pb","RowKey":"x"}}'))$$,
	'TSB16', 'operation 1: CommandsInBatchActOnDifferentPartitions: its PartitionKey "pb" is not the batch''s "pa"',
	'a second PartitionKey: CommandsInBatchActOnDifferentPartitions naming the operation');
SELECT throws_ok($$SELECT execute_batch('Batch', pg_temp.set_op(pg_temp.ops(100, 'insert', 'pa'), 99,
		'{"op":"insert","entity":{"PartitionKey":"pa ","RowKey":"x"}}'))$$,
	'TSB16', NULL, 'a PartitionKey differing by a trailing space, at the last operation');
SELECT throws_ok($$SELECT execute_batch('Batch', '[{"op":"insert","entity":{"PartitionKey":"a","RowKey":"bc"}},
		{"op":"insert","entity":{"PartitionKey":"ab","RowKey":"c"}}]')$$,
	'TSB16', NULL, '("a","bc") and ("ab","c") are two partitions, not one entity');
SELECT throws_ok($$SELECT execute_batch('Batch', '[{"op":"insert","entity":{"PartitionKey":"Pa","RowKey":"x"}},
		{"op":"insert","entity":{"PartitionKey":"pa","RowKey":"y"}}]')$$,
	'TSB16', NULL, 'PartitionKeys compare case-sensitively');
SELECT is((SELECT count(*) FROM tablestore_data.batch WHERE partition_key IN ('pa', 'pa ', 'a', 'ab', 'Pa')), 0::bigint,
	'rejected batches applied nothing');

------------------------------------------------------------------ each entity at most once
SELECT throws_ok($$SELECT execute_batch('Batch', '[{"op":"insert","entity":{"PartitionKey":"d","RowKey":"x"}},
		{"op":"insert","entity":{"PartitionKey":"d","RowKey":"y"}},
		{"op":"delete","entity":{"PartitionKey":"d","RowKey":"x"}}]')$$,
	'TSB19', 'operation 2: InvalidDuplicateRow: the entity ("d", "x") is already operation 0 of the batch',
	'one entity twice: InvalidDuplicateRow naming the later operation');
SELECT lives_ok($$SELECT execute_batch('Batch', '[{"op":"insert","entity":{"PartitionKey":"d","RowKey":"ab"}},
		{"op":"insert","entity":{"PartitionKey":"d","RowKey":"abc"}},
		{"op":"insert","entity":{"PartitionKey":"d","RowKey":"AB"}},
		{"op":"insert","entity":{"PartitionKey":"d","RowKey":"ab "}},
		{"op":"insert","entity":{"PartitionKey":"d","RowKey":"\u00e9"}},
		{"op":"insert","entity":{"PartitionKey":"d","RowKey":"e\u0301"}}]')$$,
	'RowKeys that are prefixes, differ in case, in trailing space or in Unicode normal form are distinct entities');
SELECT is((SELECT count(*) FROM tablestore_data.batch WHERE partition_key = 'd'), 6::bigint, 'all six stored');
SELECT throws_ok($$SELECT execute_batch('Batch', pg_temp.set_op(pg_temp.ops(100, 'upsert_merge', 'd2'), 99,
		'{"op":"delete","entity":{"PartitionKey":"d2","RowKey":"k000"}}'))$$,
	'TSB19', 'operation 99: InvalidDuplicateRow: the entity ("d2", "k000") is already operation 0 of the batch',
	'a duplicate at the last operation');

------------------------------------------------------------------ the failing operation's index
SELECT lives_ok($$SELECT execute_batch('Batch', pg_temp.ops(100, 'insert', 'f'))$$, 'setup: 100 entities in partition f');
SELECT pg_temp.state() AS before \gset
SELECT throws_ok($$SELECT execute_batch('Batch', pg_temp.set_op(pg_temp.ops(100, 'merge', 'f'), 0,
		'{"op":"merge","entity":{"PartitionKey":"f","RowKey":"missing"}}'))$$,
	'TSN01', 'operation 0: ResourceNotFound: the entity ("f", "missing") does not exist', 'a failure at the first operation');
SELECT throws_ok($$SELECT execute_batch('Batch', pg_temp.set_op(pg_temp.ops(100, 'merge', 'f'), 50,
		'{"op":"update","entity":{"PartitionKey":"f","RowKey":"k050"},"if_match":"W/\"datetime''2000-01-01T00%3A00%3A00.0000000Z''\""}'))$$,
	'TSP01', 'operation 50: UpdateConditionNotSatisfied: the entity ("f", "k050") has changed: its ETag is not the If-Match value',
	'a failure at a middle operation');
SELECT throws_ok($$SELECT execute_batch('Batch', pg_temp.set_op(pg_temp.ops(100, 'merge', 'f'), 99,
		'{"op":"insert","entity":{"PartitionKey":"f","RowKey":"k000"}}'))$$,
	'TSB19', NULL, 'the last operation repeating the first one is a duplicate, found before anything runs');
SELECT lives_ok($$SELECT insert_entity('Batch', '{"PartitionKey":"f","RowKey":"a-exists"}')$$, 'setup: a-exists');
SELECT pg_temp.state() AS before \gset
SELECT throws_ok($$SELECT execute_batch('Batch', pg_temp.set_op(pg_temp.ops(100, 'merge', 'f'), 99,
		'{"op":"insert","entity":{"PartitionKey":"f","RowKey":"a-exists"}}'))$$,
	'TSC01', 'operation 99: EntityAlreadyExists: the entity ("f", "a-exists") already exists',
	'a failure at the last operation, whose key sorts first');
SELECT throws_ok($$SELECT execute_batch('Batch', '[{"op":"insert","entity":{"PartitionKey":"f","RowKey":"zz-new"}},
		{"op":"insert","entity":{"PartitionKey":"f","RowKey":"k050"}}, {"op":"insert","entity":{"PartitionKey":"f","RowKey":"k001"}}]')$$,
	'TSC01', 'operation 1: EntityAlreadyExists: the entity ("f", "k050") already exists',
	'an insert-only batch names the first existing entity in request order, not in key order');
SELECT is(pg_temp.state(), :'before', 'state after the failed batches equals the state before');
-- an entity invalid in itself: the entity error, prefixed with its operation
SELECT throws_ok($$SELECT execute_batch('Batch', pg_temp.set_op(pg_temp.ops(5, 'merge', 'f'), 3,
		'{"op":"merge","entity":{"PartitionKey":"f","RowKey":"k003","bad name":1}}'))$$,
	'TSB07', NULL, 'an invalid property name: PropertyNameInvalid for that operation');
SELECT throws_matching($$SELECT execute_batch('Batch', pg_temp.set_op(pg_temp.ops(5, 'merge', 'f'), 3,
		'{"op":"merge","entity":{"PartitionKey":"f","RowKey":"k003","x":"1","x@odata.type":"Edm.Guid"}}'))$$,
	'^operation 3: InvalidInput', 'an invalid value: InvalidInput for that operation');
SELECT throws_matching($$SELECT execute_batch('Batch', jsonb_build_array(jsonb_build_object('op', 'insert', 'entity',
		'{"PartitionKey":"f","RowKey":"big"}'::jsonb || (SELECT jsonb_object_agg('P' || i, repeat('a', 32768)) FROM generate_series(1, 17) i))))$$,
	'^operation 0: EntityTooLarge', 'an entity over 1 MiB: EntityTooLarge for that operation');
SELECT throws_matching($$SELECT execute_batch('Batch', '[{"op":"insert","entity":{"PartitionKey":"f","RowKey":"a/b"}}]')$$,
	'^operation 0: InvalidInput', 'a forbidden key character: InvalidInput for that operation');
SELECT is(pg_temp.state(), :'before', 'still unchanged');

------------------------------------------------------------------ atomicity
SELECT pg_temp.state() AS before \gset
SELECT throws_ok($$SELECT execute_batch('Batch', jsonb_build_array(
		jsonb_build_object('op', 'delete', 'entity', '{"PartitionKey":"f","RowKey":"k000"}'::jsonb),
		jsonb_build_object('op', 'update', 'entity', '{"PartitionKey":"f","RowKey":"k001","gone":true}'::jsonb),
		jsonb_build_object('op', 'insert', 'entity', '{"PartitionKey":"f","RowKey":"k100"}'::jsonb),
		jsonb_build_object('op', 'upsert_replace', 'entity', '{"PartitionKey":"f","RowKey":"k101"}'::jsonb),
		jsonb_build_object('op', 'upsert_merge', 'entity', '{"PartitionKey":"f","RowKey":"k002","m":1}'::jsonb),
		jsonb_build_object('op', 'merge', 'entity', '{"PartitionKey":"f","RowKey":"k003"}'::jsonb, 'if_match', pg_temp.etag('k004', 'f'))))$$,
	'TSP01', NULL, 'a batch of every kind failing at its last operation');
SELECT is(pg_temp.state(), :'before', 'the state after the failed batch equals the state before, stamps included');
-- a failure that only the write itself finds: a row inserted by plain SQL behind the batch's back
-- cannot happen inside one transaction, so provoke a trigger error instead
CREATE FUNCTION pg_temp.refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF NEW.row_key = 'k1050' THEN RAISE EXCEPTION 'refused by a user trigger' USING ERRCODE = 'P0001'; END IF;
	RETURN NEW;
END $$;
CREATE TRIGGER refuse BEFORE INSERT ON tablestore_data.batch FOR EACH ROW EXECUTE FUNCTION pg_temp.refuse();
SELECT throws_ok($$SELECT execute_batch('Batch', pg_temp.ops(100, 'upsert_replace', 'f', 'k1'))$$,
	'P0001', 'operation 50: refused by a user trigger', 'an error raised while writing names its operation and keeps its SQLSTATE');
DROP TRIGGER refuse ON tablestore_data.batch;
SELECT is(pg_temp.state(), :'before', 'and the 50 writes before it are gone');
CREATE UNIQUE INDEX batch_unique_email ON tablestore_data.batch (tablestore.prop_string(properties, 'Email'));
SELECT throws_ok($$SELECT execute_batch('Batch', '[{"op":"insert","entity":{"PartitionKey":"u","RowKey":"1","Email":"a@b"}},
		{"op":"insert","entity":{"PartitionKey":"u","RowKey":"2","Email":"a@b"}}]')$$,
	'23505', 'operation 1: duplicate key value violates unique constraint "batch_unique_email"',
	'a user''s unique index is not mistaken for EntityAlreadyExists');
DROP INDEX tablestore_data.batch_unique_email;

------------------------------------------------------------------ composition with the caller's transaction
SAVEPOINT outer_sp;
SELECT lives_ok($$SELECT execute_batch('Batch', pg_temp.ops(3, 'insert', 'c'))$$, 'a batch inside the caller''s transaction');
SELECT is((SELECT count(*) FROM tablestore_data.batch WHERE partition_key = 'c'), 3::bigint, 'visible to the caller at once');
ROLLBACK TO SAVEPOINT outer_sp;
SELECT is((SELECT count(*) FROM tablestore_data.batch WHERE partition_key = 'c'), 0::bigint,
	'the caller rolling back removes a successful batch');
SELECT lives_ok($$SELECT insert_entity('Batch', '{"PartitionKey":"c","RowKey":"own"}')$$, 'the caller''s own write');
CREATE FUNCTION pg_temp.try_batch(ops jsonb) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	PERFORM tablestore.execute_batch('Batch', ops);
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ' ' || SQLERRM;
END $$;
SELECT is(pg_temp.try_batch(pg_temp.set_op(pg_temp.ops(3, 'insert', 'c'), 2, '{"op":"insert","entity":{"PartitionKey":"c","RowKey":"own"}}')),
	'TSC01 operation 2: EntityAlreadyExists: the entity ("c", "own") already exists', 'a failed batch caught by the caller');
SELECT is((SELECT string_agg(row_key, ',' ORDER BY row_key) FROM tablestore_data.batch WHERE partition_key = 'c'), 'own',
	'leaves the caller''s earlier write and nothing of itself');
SELECT is(pg_temp.try_batch(pg_temp.ops(3, 'insert', 'c')), 'ok', 'the caller goes on with another batch');
SELECT is((SELECT count(*) FROM tablestore_data.batch WHERE partition_key = 'c'), 4::bigint, 'which is applied');
SELECT is(pg_temp.try_batch(pg_temp.set_op(pg_temp.ops(3, 'merge', 'c'), 1,
		jsonb_build_object('op', 'merge', 'entity', '{"PartitionKey":"c","RowKey":"k001","v":2}'::jsonb, 'if_match', pg_temp.etag('k001', 'c')))),
	'ok', 'a batch can use an ETag the same transaction produced');

------------------------------------------------------------------ malformed operation lists
SELECT throws_ok($$SELECT execute_batch('Batch', '{"op":"insert"}')$$, 'TSB20',
	'InvalidInput: operations must be a JSON array of operation objects', 'an object instead of a list');
SELECT throws_ok($$SELECT execute_batch('Batch', '"insert"')$$, 'TSB20', NULL, 'a scalar instead of a list');
SELECT throws_ok($$SELECT execute_batch('Batch', '[]')$$, 'TSB20', 'InvalidInput: a batch needs at least one operation', 'an empty list');
SELECT throws_ok($$SELECT execute_batch('Batch', '[{"op":"insert","entity":{"PartitionKey":"x","RowKey":"1"}}, 7]')$$, 'TSB20',
	'operation 1: InvalidInput: an operation must be a JSON object {"op", "entity", "if_match"}', 'an element that is not an object');
SELECT throws_ok($$SELECT execute_batch('Batch', '[{"op":"insert","entity":{"PartitionKey":"x","RowKey":"1"}}, {"op":"replace","entity":{"PartitionKey":"x","RowKey":"2"}}]')$$, 'TSB20',
	'operation 1: InvalidInput: unknown op "replace" (insert, update, merge, upsert_replace, upsert_merge or delete)', 'an unknown op');
SELECT throws_ok($$SELECT execute_batch('Batch', '[{"op":"Insert","entity":{"PartitionKey":"x","RowKey":"1"}}]')$$, 'TSB20', NULL,
	'op names are case-sensitive');
SELECT throws_ok($$SELECT execute_batch('Batch', '[{"op":1,"entity":{"PartitionKey":"x","RowKey":"1"}}]')$$, 'TSB20',
	'operation 0: InvalidInput: "op" must be a string', 'an op that is not a string');
SELECT throws_ok($$SELECT execute_batch('Batch', '[{"entity":{"PartitionKey":"x","RowKey":"1"}}]')$$, 'TSB20',
	'operation 0: InvalidInput: the operation has no "op"', 'a missing op');
SELECT throws_ok($$SELECT execute_batch('Batch', '[{"op":"delete","entity":{"PartitionKey":"x","RowKey":"1"}}, {"op":"delete"}]')$$, 'TSB20',
	'operation 1: InvalidInput: the operation has no "entity"', 'a missing entity');
SELECT throws_ok($$SELECT execute_batch('Batch', '[{"op":"delete","entity":"x|1"}]')$$, 'TSB20',
	'operation 0: InvalidInput: "entity" must be a JSON object', 'an entity that is not an object');
SELECT throws_ok($$SELECT execute_batch('Batch', '[{"op":"delete","entity":{"PartitionKey":"x"}}]')$$, 'TSB21',
	'operation 0: PropertiesNeedValue: the entity has no RowKey', 'a missing RowKey');
SELECT throws_ok($$SELECT execute_batch('Batch', '[{"op":"delete","entity":{"RowKey":"x"}}]')$$, 'TSB21',
	'operation 0: PropertiesNeedValue: the entity has no PartitionKey', 'a missing PartitionKey');
SELECT throws_ok($$SELECT execute_batch('Batch', '[{"op":"delete","entity":{"PartitionKey":"x","RowKey":"1"},"etag":"*"}]')$$, 'TSB20',
	'operation 0: InvalidInput: unknown member "etag" (an operation has op, entity or entity_json, if_match, PartitionKey, RowKey and echo)', 'an unknown member');
SELECT throws_ok($$SELECT execute_batch('Batch', '[{"op":"insert","entity":{"PartitionKey":"x","RowKey":"1"},"if_match":"*"}]')$$, 'TSB20',
	'operation 0: InvalidInput: if_match applies to update, merge and delete only', 'if_match on an insert');
SELECT throws_ok($$SELECT execute_batch('Batch', '[{"op":"upsert_merge","entity":{"PartitionKey":"x","RowKey":"1"},"if_match":"*"}]')$$, 'TSB20',
	NULL, 'if_match on an upsert');
SELECT throws_ok($$SELECT execute_batch('Batch', '[{"op":"merge","entity":{"PartitionKey":"x","RowKey":"1"},"if_match":"abc"}]')$$, 'TSB15',
	'operation 0: InvalidInput: the If-Match value is neither * nor an ETag of the form W/"..."', 'a malformed If-Match');
SELECT throws_ok($$SELECT execute_batch('Batch', '[{"op":"merge","entity":{"PartitionKey":"x","RowKey":"1"},"if_match":null}]')$$, 'TSB15',
	'operation 0: InvalidInput: "if_match" must be a string', 'an If-Match that is not a string');
SELECT throws_ok($$SELECT execute_batch(NULL, '[]')$$, 'TSB00', 'InvalidInput: tbl must not be NULL', 'a NULL table');
SELECT throws_ok($$SELECT execute_batch('Batch', NULL)$$, 'TSB20', 'InvalidInput: operations must not be NULL', 'NULL operations');
SELECT throws_ok($$SELECT execute_batch('Nope', '[{"op":"delete","entity":{"PartitionKey":"x","RowKey":"1"}}]')$$, 'TSN02',
	NULL, 'a missing table: TableNotFound');
SELECT throws_ok($$SELECT execute_batch('Batch', jsonb_build_array(jsonb_build_object('op', repeat('x', 100000), 'entity', '{}'::jsonb)))$$,
	'TSB20', NULL, 'an unbounded op name');
SELECT ok(length((SELECT pg_temp.try_batch(jsonb_build_array(jsonb_build_object('op', repeat('x', 100000), 'entity', '{}'::jsonb))))) < 300,
	'is not echoed in full');
SELECT is((SELECT count(*) FROM tablestore_data.batch WHERE partition_key = 'x'), 0::bigint, 'no malformed batch wrote anything');

------------------------------------------------------------------ the document as text: read as sent
SELECT is(pg_typeof(execute_batch('Batch', $$[{"op":"upsert_merge","entity":{"PartitionKey":"t","RowKey":"1"}}]$$::text))::text, 'jsonb',
	'execute_batch(text, text) exists and returns jsonb');
SELECT is(execute_batch('Batch', E'\n [ {"op" : "merge" ,\t"entity":{"PartitionKey":"t","RowKey":"1","a":"x\\u00e9\\ud83d\\ude00"}}\r\n] \n') -> 0 ->> 'etag',
	pg_temp.etag('1', 't'), 'any JSON whitespace, escapes and surrogate pairs');
SELECT is(pg_temp.props('1', 't'), '{"a":"xé😀"}', 'decoded as the entity input decodes them');
SELECT throws_ok($$SELECT execute_batch('Batch', '[{"op":"insert","entity":{"PartitionKey":"t","RowKey":"2"}}')$$, 'TSB20',
	'InvalidInput: the operations are not valid JSON at character 60: the document ends early', 'an unterminated document, with its position');
SELECT throws_ok($$SELECT execute_batch('Batch', '[{"op":"insert","entity":{"PartitionKey":"t","RowKey":"2"}}] x')$$, 'TSB20',
	'InvalidInput: the operations are not valid JSON at character 62: text after the array', 'text after the array');
SELECT throws_ok($$SELECT execute_batch('Batch', '[{"op":"insert" "entity":{}}]')$$, 'TSB20', NULL, 'a missing comma');
SELECT throws_ok($$SELECT execute_batch('Batch', '[{"op":"ins\x"}]')$$, 'TSB20', NULL, 'an invalid escape');
SELECT throws_ok($$SELECT execute_batch('Batch', E'[{"op":"in\tsert"}]')$$, 'TSB20', NULL, 'a raw control character in a string');
SELECT throws_ok($$SELECT execute_batch('Batch', '[{"op":"insert","entity":{"PartitionKey":"t","RowKey":"2"}},]')$$, 'TSB20', NULL, 'a trailing comma');
SELECT throws_ok($$SELECT execute_batch('Batch', '[{"op":"insert","entity":' || repeat('[', 100) || repeat(']', 100) || '}]')$$, 'TSB20',
	'InvalidInput: the operations are not valid JSON at character 88: values nested too deeply', 'nesting beyond 64 levels');
SELECT throws_ok($$SELECT execute_batch('Batch', '[{"op":"insert","op":"delete","entity":{"PartitionKey":"t","RowKey":"2"}}]')$$, 'TSB20',
	'operation 0: InvalidInput: the member "op" is given more than once', 'a member given twice is an error in text');
SELECT is(execute_batch('Batch', '[{"op":"insert","op":"upsert_merge","entity":{"PartitionKey":"t","RowKey":"2"}}]'::jsonb) -> 0 ->> 'etag',
	pg_temp.etag('2', 't'), 'while jsonb has already kept the last one');
SELECT throws_ok($$SELECT execute_batch('Batch', '[{"op":"merge","entity":{"PartitionKey":"t","RowKey":"2","a":1,"a":2}}]')$$, 'TSB09',
	'operation 0: DuplicatePropertiesSpecified: the property "a" is given more than once', 'a property given twice in an entity');
SELECT throws_ok($$SELECT execute_batch('Batch', '[{"op":"merge","entity":{"PartitionKey":"t","RowKey":"2","a":{"b":1}}}]')$$, 'TSB01',
	NULL, 'a nested value in an entity');
-- (the document and its entities are read by one JSON tokenizer: a malformed number anywhere is
-- a syntax error of the document, found before any operation is read)
SELECT throws_ok($$SELECT execute_batch('Batch', '[{"op":"merge","entity":{"PartitionKey":"t","RowKey":"2","a":01}}]')$$,
	'TSB20', 'InvalidInput: the operations are not valid JSON at character 63: '','' or the end of an object or array was expected',
	'a malformed number in an entity');
SELECT lives_ok($$SELECT execute_batch('Batch', '[{"op":"merge","entity":{"PartitionKey":"t","RowKey":"2","a":1e2}}]')$$, 'an exponent');
SELECT is(prop_type(properties, 'a'), 'Edm.Double', 'is a Double as sent (jsonb would have made it 100)')
	FROM tablestore_data.batch WHERE partition_key = 't' AND row_key = '2';
-- 4 MiB counts what was sent: whitespace included
SELECT throws_ok($$SELECT execute_batch('Batch', '[{"op":"insert","entity":{"PartitionKey":"t","RowKey":"3"}}' || repeat(' ', 4194304) || ']')$$,
	'TSB18', NULL, 'a document over 4 MiB only by its whitespace is too large as text');
SELECT lives_ok($$SELECT execute_batch('Batch', ('[{"op":"insert","entity":{"PartitionKey":"t","RowKey":"3"}}' || repeat(' ', 4194304) || ']')::jsonb)$$,
	'and fine as jsonb, which drops the whitespace');
SELECT is(execute_batch('Batch', ('[' || rtrim(repeat('{"op":"upsert_replace","entity":{"PartitionKey":"t","RowKey":"x","v":1}},', 1), ',') || ']')) -> 0 ->> 'etag',
	pg_temp.etag('x', 't'), 'text and jsonb documents do the same work');

------------------------------------------------------------------ every path keeps the stamps
SELECT is((SELECT count(*) FROM tablestore_data.batch
	WHERE etag IS NULL OR "timestamp" IS NULL OR etag NOT LIKE 'W/"datetime''%'), 0::bigint,
	'every row a batch wrote has a Timestamp and an ETag');

-- a table published without a replica identity takes inserts, not updates: an insert-only batch
-- is checked as inserts
SELECT create_table('Published');
ALTER TABLE tablestore_data.published REPLICA IDENTITY NOTHING;
CREATE PUBLICATION batch_test_pub FOR TABLE tablestore_data.published;
SELECT is(jsonb_array_length(execute_batch('Published', '[{"op":"insert","entity":{"PartitionKey":"p","RowKey":"1"}},
	{"op":"insert","entity":{"PartitionKey":"p","RowKey":"2"}}]')), 2, 'an insert-only batch on a table without replica identity');
SELECT throws_ok($$SELECT execute_batch('Published', '[{"op":"merge","entity":{"PartitionKey":"p","RowKey":"1","x":1}}]')$$,
	'55000', NULL, 'a merge batch there gets PostgreSQL''s own error');
DROP PUBLICATION batch_test_pub;

SELECT * FROM finish();
ROLLBACK;
