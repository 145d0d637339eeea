-- test/pgtap/access.sql - privileges, a hostile search_path and scoped access.
--   1. A role without rights on a table can neither read nor write it through any function, on
--      the direct path or the SQL one; a read-only role reads and cannot write.
--   2. Every function behaves the same under a search_path that puts hijacking objects first.
--   3. grant_scoped_access limits a role to a key range (row-level security) on every path:
--      the functions, batches, queries with and without continuations, and plain SQL. The tests
--      try to get out of the range every way we know.
BEGIN;
SET search_path = tablestore, public;
SELECT plan(102);

SELECT create_table('Secret');
SELECT count(insert_entity('Secret', format('{"PartitionKey":"%s","RowKey":"%s","v":%s}', p, r, ascii(p) * 1000 + r)::entity))
FROM unnest(ARRAY['a', 'b', 'c', 'd']) p, generate_series(100, 104) r;
CREATE ROLE ts_stranger;
CREATE ROLE ts_reader;
CREATE ROLE ts_scoped;
CREATE ROLE ts_narrow;
CREATE ROLE ts_deleter;
GRANT SELECT ON tablestore_data.secret TO ts_reader;
CREATE FUNCTION pg_temp.state() RETURNS text LANGUAGE sql AS
$$ SELECT md5(string_agg(format('%s|%s|%s|%s', partition_key, row_key, etag, properties), E'\n' ORDER BY partition_key, row_key))
   FROM tablestore_data.secret $$;
SELECT pg_temp.state() AS before \gset

------------------------------------------------------------------ 1. privileges
SET ROLE ts_stranger;
SELECT throws_ok($$SELECT * FROM tablestore.get_entity('Secret', 'a', '100')$$, '42501', NULL, 'no rights: get_entity is refused');
SELECT throws_ok($$SELECT * FROM tablestore.query_entities('Secret')$$, '42501', NULL, 'no rights: query_entities is refused');
SELECT throws_ok($$SELECT * FROM tablestore.query_entities('Secret', 'PartitionKey eq ''a'' and RowKey ge ''1''')$$, '42501', NULL,
	'no rights: a key-range query (direct scan) is refused');
SELECT throws_ok($$SELECT tablestore.query_page('Secret', NULL, NULL)$$, '42501', NULL, 'no rights: query_page is refused');
SELECT throws_ok($$SELECT * FROM tablestore.query_entities('Secret', 'PartitionKey eq ''a'' and RowKey gt ''b'' and RowKey lt ''a''')$$,
	'42501', NULL, 'no rights: a query over an empty key range is refused too');
SELECT throws_ok($$SELECT tablestore.query_page('Secret', 'PartitionKey eq ''a'' and RowKey gt ''b'' and RowKey lt ''a''', NULL)$$,
	'42501', NULL, 'no rights: a page over an empty key range is refused too');
SELECT throws_ok($$SELECT tablestore.query_page('Secret', 'PartitionKey eq ''a''', NULL, 10, 'b', '1')$$,
	'42501', NULL, 'no rights: a page resumed past its range is refused too');
SELECT throws_ok($$SELECT tablestore.explain_query('Secret')$$, '42501', NULL, 'no rights: explain_query is refused');
SELECT throws_ok($$SELECT tablestore.insert_entity('Secret', '{"PartitionKey":"a","RowKey":"x"}')$$, '42501', NULL, 'no rights: insert_entity is refused');
SELECT throws_ok($$SELECT tablestore.update_entity('Secret', '{"PartitionKey":"a","RowKey":"100"}')$$, '42501', NULL, 'no rights: update_entity is refused');
SELECT throws_ok($$SELECT tablestore.merge_entity('Secret', '{"PartitionKey":"a","RowKey":"100"}')$$, '42501', NULL, 'no rights: merge_entity is refused');
SELECT throws_ok($$SELECT tablestore.upsert_entity('Secret', '{"PartitionKey":"a","RowKey":"100"}')$$, '42501', NULL, 'no rights: upsert_entity is refused');
SELECT throws_ok($$SELECT tablestore.delete_entity('Secret', 'a', '100')$$, '42501', NULL, 'no rights: delete_entity is refused');
SELECT throws_ok($$SELECT tablestore.execute_batch('Secret', '[{"op":"insert","entity":{"PartitionKey":"a","RowKey":"x"}}]')$$, '42501', NULL,
	'no rights: an insert batch is refused');
SELECT throws_ok($$SELECT tablestore.execute_batch('Secret', '[{"op":"delete","entity":{"PartitionKey":"a","RowKey":"100"}}]')$$, '42501', NULL,
	'no rights: a delete batch is refused');
SELECT throws_ok($$SELECT * FROM tablestore_data.secret$$, '42501', NULL, 'no rights: plain SQL is refused');
SELECT throws_ok($$SELECT tablestore.drop_table('Secret')$$, '42501', NULL, 'no rights: drop_table is refused');
RESET ROLE;
SET ROLE ts_reader;
SELECT is((SELECT properties::text FROM tablestore.get_entity('Secret', 'a', '100')), '{"v":97100}', 'read-only: get_entity works');
SELECT is((SELECT count(*) FROM tablestore.query_entities('Secret')), 20::bigint, 'read-only: query_entities works');
SELECT throws_ok($$SELECT tablestore.insert_entity('Secret', '{"PartitionKey":"a","RowKey":"x"}')$$, '42501', NULL, 'read-only: insert is refused');
SELECT throws_ok($$SELECT tablestore.merge_entity('Secret', '{"PartitionKey":"a","RowKey":"100","v":0}')$$, '42501', NULL, 'read-only: merge is refused');
SELECT throws_ok($$SELECT tablestore.delete_entity('Secret', 'a', '100')$$, '42501', NULL, 'read-only: delete is refused');
SELECT throws_ok($$SELECT tablestore.execute_batch('Secret', '[{"op":"merge","entity":{"PartitionKey":"a","RowKey":"100"}}]')$$, '42501', NULL,
	'read-only: a merge batch is refused');
RESET ROLE;
SELECT is(pg_temp.state(), :'before', 'nothing was written by the refused calls');

------------------------------------------------------------------ 2. a hostile search_path
CREATE SCHEMA evil;
CREATE FUNCTION evil.hijacked() RETURNS text LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'hijacked'; END $$;
CREATE FUNCTION evil.lower(text) RETURNS text LANGUAGE sql AS $$ SELECT evil.hijacked() $$;
CREATE FUNCTION evil.quote_ident(text) RETURNS text LANGUAGE sql AS $$ SELECT evil.hijacked() $$;
CREATE FUNCTION evil.format(text, text) RETURNS text LANGUAGE sql AS $$ SELECT evil.hijacked() $$;
CREATE FUNCTION evil.format(text, text, text) RETURNS text LANGUAGE sql AS $$ SELECT evil.hijacked() $$;
CREATE FUNCTION evil.to_regclass(text) RETURNS regclass LANGUAGE sql AS $$ SELECT evil.hijacked()::regclass $$;
CREATE FUNCTION evil.now() RETURNS timestamptz LANGUAGE sql AS $$ SELECT evil.hijacked()::timestamptz $$;
CREATE FUNCTION evil.texteq(text, text) RETURNS bool LANGUAGE sql AS $$ SELECT evil.hijacked() IS NULL $$;
CREATE OPERATOR evil.= (LEFTARG = text, RIGHTARG = text, FUNCTION = evil.texteq);
CREATE OPERATOR evil.>= (LEFTARG = text, RIGHTARG = text, FUNCTION = evil.texteq);
CREATE OPERATOR evil.< (LEFTARG = text, RIGHTARG = text, FUNCTION = evil.texteq);
CREATE TABLE evil.tables (name text, key text);
CREATE TABLE evil.secret (partition_key text, row_key text);
-- run a statement with the hostile search_path in force (pgTAP itself is not safe under it)
CREATE FUNCTION pg_temp.under_evil(stmt text) RETURNS text LANGUAGE plpgsql
SET search_path = evil, pg_catalog, public AS $f$
DECLARE
	r text;
BEGIN
	EXECUTE stmt INTO r;
	RETURN coalesce(r, 'null');
EXCEPTION WHEN OTHERS THEN
	RETURN 'error: ' || SQLERRM;
END $f$;
SELECT is(pg_temp.under_evil($$SELECT tablestore.create_table('Hijack')::text$$), 'tablestore_data.hijack', 'hostile search_path: create_table');
SELECT is(pg_temp.under_evil($$SELECT string_agg(t, ',') FROM tablestore.list_tables() t$$), 'Hijack,Secret', 'hostile search_path: list_tables');
SELECT matches(pg_temp.under_evil($$SELECT tablestore.insert_entity('Hijack', '{"PartitionKey":"a","RowKey":"1","v":1}')$$), '^W/',
	'hostile search_path: insert_entity');
SELECT matches(pg_temp.under_evil($$SELECT tablestore.merge_entity('Hijack', '{"PartitionKey":"a","RowKey":"1","w":2}')$$), '^W/',
	'hostile search_path: merge_entity');
SELECT matches(pg_temp.under_evil($$SELECT tablestore.update_entity('Hijack', '{"PartitionKey":"a","RowKey":"1","v":3}')$$), '^W/',
	'hostile search_path: update_entity');
SELECT matches(pg_temp.under_evil($$SELECT tablestore.upsert_entity('Hijack', '{"PartitionKey":"a","RowKey":"2"}', 'replace')$$), '^W/',
	'hostile search_path: upsert_entity');
SELECT is(pg_temp.under_evil($$SELECT properties::text FROM tablestore.get_entity('Hijack', 'a', '1')$$), '{"v":3}', 'hostile search_path: get_entity');
SELECT is(pg_temp.under_evil($$SELECT count(*)::text FROM tablestore.query_entities('Hijack', 'PartitionKey eq ''a'' and RowKey ge ''1''')$$), '2',
	'hostile search_path: query_entities (direct range scan)');
SELECT is(pg_temp.under_evil($$SELECT count(*)::text FROM tablestore.query_entities('Hijack', 'v eq 3 or RowKey eq ''2''')$$), '2',
	'hostile search_path: query_entities (SQL)');
SELECT is(pg_temp.under_evil($$SELECT jsonb_array_length(tablestore.query_page('Hijack', 'v ge 0', NULL, 1) -> 'value')::text$$), '1',
	'hostile search_path: query_page');
SELECT is(pg_temp.under_evil($$SELECT jsonb_array_length(tablestore.execute_batch('Hijack', '[{"op":"merge","entity":{"PartitionKey":"a","RowKey":"1","x":1}},
	{"op":"delete","entity":{"PartitionKey":"a","RowKey":"2"}},{"op":"insert","entity":{"PartitionKey":"a","RowKey":"3"}}]'))::text$$), '3',
	'hostile search_path: execute_batch');
SELECT is(pg_temp.under_evil($$SELECT tablestore.delete_entity('Hijack', 'a', '3')::text$$), '', 'hostile search_path: delete_entity');
SELECT is(pg_temp.under_evil($$SELECT tablestore.grant_scoped_access('Hijack', 'ts_reader', 'r', 'a', NULL, 'a', NULL)::text$$), '',
	'hostile search_path: grant_scoped_access');
SELECT is(pg_temp.under_evil($$SELECT tablestore.revoke_scoped_access('Hijack', 'ts_reader')::text$$), '1', 'hostile search_path: revoke_scoped_access');
SELECT is(pg_temp.under_evil($$UPDATE tablestore_data.secret SET properties = properties WHERE partition_key OPERATOR(pg_catalog.=) 'a' RETURNING 'stamped'$$),
	'stamped', 'hostile search_path: the stamp trigger');
SELECT is(pg_temp.under_evil($$SELECT tablestore.drop_table('Hijack')::text$$), '', 'hostile search_path: drop_table');

------------------------------------------------------------------ 3. scoped access
SELECT throws_ok($$SELECT grant_scoped_access('Secret', 'ts_scoped', 'rwx')$$, 'TSB00', NULL, 'unknown permission letters are refused');
SELECT throws_ok($$SELECT grant_scoped_access('Secret', 'ts_scoped', 'r', NULL, '1')$$, 'TSB00', NULL, 'a RowKey bound without its PartitionKey is refused');
SELECT throws_ok($$SELECT grant_scoped_access('Nope', 'ts_scoped', 'r')$$, 'TSN02', NULL, 'a missing table is refused');
SELECT throws_ok($$SELECT grant_scoped_access('Secret', 'no_such_role', 'r')$$, '42704', NULL, 'a missing role is refused');
-- ts_scoped: read, add, update, delete in partitions b to c
SELECT lives_ok($$SELECT grant_scoped_access('Secret', 'ts_scoped', 'raud', 'b', NULL, 'c', NULL)$$, 'a raud scope over partitions b..c');
-- ts_narrow: read only, ("a","102") to ("b","101") in key order
SELECT lives_ok($$SELECT grant_scoped_access('Secret', 'ts_narrow', 'r', 'a', '102', 'b', '101')$$, 'a read scope from (a,102) to (b,101)');
-- ts_deleter: read and delete in partition d
SELECT lives_ok($$SELECT grant_scoped_access('Secret', 'ts_deleter', 'rd', 'd', NULL, 'd', NULL)$$, 'a read-and-delete scope over partition d');
-- a key with SQL in a scope bound is a bound, nothing more
SELECT lives_ok($$SELECT grant_scoped_access('Secret', 'ts_narrow', 'r', 'zz'' OR true --', NULL, NULL, NULL)$$, 'a bound full of SQL');
SELECT is((SELECT count(*) FROM pg_policies WHERE tablename = 'secret' AND qual LIKE '%OR true --%'' %'), 0::bigint,
	'stays a quoted literal in the policy');
SELECT is(revoke_scoped_access('Secret', 'ts_narrow'), 2, 'revoke drops every scope of the role');
SELECT lives_ok($$SELECT grant_scoped_access('Secret', 'ts_narrow', 'r', 'a', '102', 'b', '101')$$, 'the narrow scope again');
-- scopes whose bounds differ only in which one is missing are different scopes: both stay
CREATE ROLE ts_shifted;
SELECT grant_scoped_access('Secret', 'ts_shifted', 'r', 'b', NULL, 'b', NULL);
SELECT grant_scoped_access('Secret', 'ts_shifted', 'r', 'b', 'b', NULL, NULL);
SELECT grant_scoped_access('Secret', 'ts_shifted', 'r', 'a', NULL, NULL, NULL);
SELECT grant_scoped_access('Secret', 'ts_shifted', 'r', NULL, NULL, 'a', NULL);
SELECT grant_scoped_access('Secret', 'ts_shifted', 'r', '', NULL, NULL, NULL);
SELECT is((SELECT count(*) FROM pg_policies WHERE tablename = 'secret' AND 'ts_shifted' = ANY (roles)), 5::bigint,
	'five scopes differing only in which bound is missing or empty are five scopes');
SELECT grant_scoped_access('Secret', 'ts_shifted', 'r', 'b', 'b', NULL, NULL);
SELECT is((SELECT count(*) FROM pg_policies WHERE tablename = 'secret' AND 'ts_shifted' = ANY (roles)), 5::bigint,
	'granting one of them again replaces it');
SELECT is(revoke_scoped_access('Secret', 'ts_shifted'), 5, 'revoke drops all five');
-- revoke finds a role's scopes by the role they apply to, whatever their names hold (a restore
-- into another cluster gives the role a new OID)
SELECT grant_scoped_access('Secret', 'ts_shifted', 'ra', 'b', NULL, 'b', NULL);
SELECT is((SELECT count(*) FROM pg_policies WHERE tablename = 'secret' AND 'ts_shifted' = ANY (roles)
	AND policyname ~ ('ts_shifted'::regrole::oid)::text), 0::bigint, 'scope policy names hold no role OID');
DO $$ DECLARE p text; BEGIN
	FOR p IN SELECT policyname FROM pg_policies WHERE tablename = 'secret' AND 'ts_shifted' = ANY (roles) LOOP
		EXECUTE format('ALTER POLICY %I ON tablestore_data.secret RENAME TO %I', p, 'scope_0000000000000000_' || md5(p));
	END LOOP; END $$;
SELECT is(revoke_scoped_access('Secret', 'ts_shifted'), 2, 'revoke drops the role''s scopes whatever their names');
-- a role that row-level security does not limit cannot be given a scope
CREATE ROLE ts_super SUPERUSER;
CREATE ROLE ts_bypass BYPASSRLS;
CREATE ROLE ts_owner_member;
DO $$ BEGIN EXECUTE format('GRANT %I TO ts_owner_member', (SELECT pg_get_userbyid(relowner) FROM pg_class WHERE oid = 'tablestore_data.secret'::regclass)); END $$;
SELECT throws_ok($$SELECT grant_scoped_access('Secret', 'ts_super', 'r', 'a', NULL, 'a', NULL)$$, 'TSB00', NULL, 'a superuser cannot be scoped');
SELECT throws_ok($$SELECT grant_scoped_access('Secret', 'ts_bypass', 'r', 'a', NULL, 'a', NULL)$$, 'TSB00', NULL, 'a BYPASSRLS role cannot be scoped');
SELECT throws_ok($$SELECT grant_scoped_access('Secret', 'ts_owner_member', 'r', 'a', NULL, 'a', NULL)$$, 'TSB00', NULL,
	'a member of the table''s owner cannot be scoped');
-- the registry is written by create_table only: no helper of it is callable by other roles
SET ROLE ts_stranger;
SELECT throws_ok($$INSERT INTO tablestore.tables (name, key) VALUES ('FakeView', 'fakeview')$$, '42501', NULL,
	'the registry cannot be written directly');
SELECT is((SELECT count(*) FROM pg_proc p WHERE p.pronamespace = 'tablestore_internal'::regnamespace
		   AND has_function_privilege('ts_stranger', p.oid, 'EXECUTE')), 0::bigint,
	'no internal function is executable by PUBLIC');
RESET ROLE;

SET ROLE ts_scoped;
SELECT is((SELECT string_agg(DISTINCT partition_key, ',') FROM tablestore.query_entities('Secret')), 'b,c', 'scoped: a table scan sees only b and c');
SELECT is((SELECT count(*) FROM tablestore.query_entities('Secret', 'PartitionKey eq ''a''')), 0::bigint,
	'scoped: a key-range query outside the range (direct scan path) sees nothing');
SELECT is((SELECT count(*) FROM tablestore.query_entities('Secret', 'PartitionKey eq ''a'' or PartitionKey eq ''d'' or v gt 0')), 10::bigint,
	'scoped: a filter naming other partitions sees only the range');
SELECT is(jsonb_array_length(tablestore.query_page('Secret', NULL, NULL, 1000, 'a', '100') -> 'value'), 10,
	'scoped: a continuation pointing before the range gives only the range');
SELECT is(tablestore.query_page('Secret', NULL, NULL, 1000, 'd', '100') -> 'value', '[]'::jsonb,
	'scoped: a continuation pointing after the range gives nothing');
SELECT throws_ok($$SELECT * FROM tablestore.get_entity('Secret', 'a', '100')$$, 'TSN01', NULL, 'scoped: get_entity outside the range: ResourceNotFound');
SELECT is((SELECT properties::text FROM tablestore.get_entity('Secret', 'b', '100')), '{"v":98100}', 'scoped: get_entity inside works');
SELECT throws_ok($$SELECT tablestore.merge_entity('Secret', '{"PartitionKey":"a","RowKey":"100","v":0}')$$, 'TSN01', NULL,
	'scoped: merge outside: ResourceNotFound');
SELECT throws_ok($$SELECT tablestore.update_entity('Secret', '{"PartitionKey":"d","RowKey":"100","v":0}')$$, 'TSN01', NULL,
	'scoped: replace outside: ResourceNotFound');
SELECT throws_ok($$SELECT tablestore.delete_entity('Secret', 'd', '100')$$, 'TSN01', NULL, 'scoped: delete outside: ResourceNotFound');
SELECT throws_ok($$SELECT tablestore.insert_entity('Secret', '{"PartitionKey":"e","RowKey":"1"}')$$, '42501', NULL,
	'scoped: insert outside: refused by the policy');
SELECT throws_ok($$SELECT tablestore.upsert_entity('Secret', '{"PartitionKey":"e","RowKey":"1"}')$$, '42501', NULL,
	'scoped: upsert of a new entity outside: refused');
SELECT throws_ok($$SELECT tablestore.upsert_entity('Secret', '{"PartitionKey":"a","RowKey":"100","v":0}')$$, '42501', NULL,
	'scoped: upsert over a hidden entity outside: refused');
SELECT throws_ok($$SELECT tablestore.execute_batch('Secret', '[{"op":"insert","entity":{"PartitionKey":"e","RowKey":"1"}}]')$$, '42501', NULL,
	'scoped: a batch outside the range: refused');
SELECT throws_ok($$SELECT tablestore.execute_batch('Secret', '[{"op":"merge","entity":{"PartitionKey":"a","RowKey":"100","v":0}}]')$$, 'TSN01', NULL,
	'scoped: a merge batch on a hidden entity: ResourceNotFound');
SELECT throws_ok($$SELECT tablestore.execute_batch('Secret', '[{"op":"delete","entity":{"PartitionKey":"d","RowKey":"100"}}]')$$, 'TSN01', NULL,
	'scoped: a delete batch on a hidden entity: ResourceNotFound');
SELECT is((SELECT count(*) FROM tablestore_data.secret), 10::bigint, 'scoped: plain SQL sees only the range');
SELECT is((SELECT count(*) FROM tablestore_data.secret WHERE partition_key = 'a'), 0::bigint, 'scoped: plain SQL asking for a sees nothing');
UPDATE tablestore_data.secret SET properties = '{"v":0}' WHERE partition_key IN ('a', 'd');
DELETE FROM tablestore_data.secret WHERE partition_key IN ('a', 'd');
SELECT throws_ok($$INSERT INTO tablestore_data.secret (partition_key, row_key, properties) VALUES ('z', '1', '{}')$$, '42501', NULL,
	'scoped: plain INSERT outside: refused');
SELECT throws_ok($$UPDATE tablestore_data.secret SET partition_key = 'z' WHERE partition_key = 'b' AND row_key = '100'$$, 'TSB22', NULL,
	'scoped: moving an entity out by changing its key: refused (keys are immutable)');
-- inside the range everything works
SELECT lives_ok($$SELECT tablestore.insert_entity('Secret', '{"PartitionKey":"b","RowKey":"new"}')$$, 'scoped: insert inside');
SELECT lives_ok($$SELECT tablestore.merge_entity('Secret', '{"PartitionKey":"c","RowKey":"100","m":1}')$$, 'scoped: merge inside');
SELECT lives_ok($$SELECT tablestore.execute_batch('Secret', '[{"op":"upsert_merge","entity":{"PartitionKey":"c","RowKey":"101","m":1}},
	{"op":"delete","entity":{"PartitionKey":"c","RowKey":"104"}},{"op":"insert","entity":{"PartitionKey":"c","RowKey":"new"}}]')$$,
	'scoped: a mixed batch inside');
SELECT lives_ok($$SELECT tablestore.delete_entity('Secret', 'b', 'new')$$, 'scoped: delete inside');
RESET ROLE;
SELECT is((SELECT string_agg(DISTINCT partition_key, ',' ORDER BY partition_key) FROM tablestore_data.secret WHERE properties::text = '{"v":0}'),
	NULL, 'the owner sees that nothing outside the range was changed');
SELECT is((SELECT count(*) FROM tablestore_data.secret WHERE partition_key IN ('a', 'd')), 10::bigint, 'or deleted');

SET ROLE ts_narrow;
SELECT is((SELECT string_agg(partition_key || row_key, ',') FROM tablestore.query_entities('Secret')), 'a102,a103,a104,b100,b101',
	'narrow: exactly the keys from (a,102) to (b,101), in order');
SELECT throws_ok($$SELECT * FROM tablestore.get_entity('Secret', 'a', '101')$$, 'TSN01', NULL, 'narrow: the RowKey just before the start is hidden');
SELECT throws_ok($$SELECT * FROM tablestore.get_entity('Secret', 'b', '102')$$, 'TSN01', NULL, 'narrow: the RowKey just after the end is hidden');
SELECT is((SELECT count(*) FROM tablestore.query_entities('Secret', 'PartitionKey eq ''a'' and RowKey lt ''102''')), 0::bigint,
	'narrow: a range query below the start sees nothing');
SELECT throws_ok($$SELECT tablestore.merge_entity('Secret', '{"PartitionKey":"a","RowKey":"102","v":0}')$$, '42501', NULL,
	'narrow: read only: no merge');
SELECT throws_ok($$SELECT tablestore.insert_entity('Secret', '{"PartitionKey":"a","RowKey":"105"}')$$, '42501', NULL,
	'narrow: read only: no insert');
SELECT throws_ok($$SELECT tablestore.delete_entity('Secret', 'a', '102')$$, '42501', NULL, 'narrow: read only: no delete');
RESET ROLE;

SET ROLE ts_deleter;
SELECT throws_ok($$SELECT tablestore.merge_entity('Secret', '{"PartitionKey":"d","RowKey":"100","v":0}')$$, '42501', NULL,
	'read-and-delete: a merge is refused, though the rows can be locked');
SELECT throws_ok($$SELECT tablestore.insert_entity('Secret', '{"PartitionKey":"d","RowKey":"new"}')$$, '42501', NULL,
	'read-and-delete: an insert is refused');
SELECT lives_ok($$SELECT tablestore.execute_batch('Secret', '[{"op":"delete","entity":{"PartitionKey":"d","RowKey":"100"}},
	{"op":"delete","entity":{"PartitionKey":"d","RowKey":"101"}}]')$$, 'read-and-delete: a delete batch works');
SELECT lives_ok($$SELECT tablestore.delete_entity('Secret', 'd', '102')$$, 'read-and-delete: delete_entity works');
SELECT throws_ok($$SELECT tablestore.delete_entity('Secret', 'c', '100')$$, 'TSN01', NULL, 'read-and-delete: outside its partition: ResourceNotFound');
RESET ROLE;
SELECT is((SELECT string_agg(row_key, ',') FROM tablestore_data.secret WHERE partition_key = 'd'), '103,104', 'the deletes took exactly those rows');

SELECT is(revoke_scoped_access('Secret', 'ts_scoped'), 4, 'revoke_scoped_access drops the role''s policies');
SET ROLE ts_scoped;
SELECT throws_ok($$SELECT * FROM tablestore.query_entities('Secret')$$, '42501', NULL, 'after the revoke: no access at all');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
