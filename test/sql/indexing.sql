-- indexing: automatic indexing (doc/sql-reference.md, "Indexing"). The indexing policy's API and
-- its strict checks; the property_filter type; the entity index's typed semantics where keys are
-- cut or numbers widen; the plans the planner chooses (the index for a selective filter, the
-- primary key for an unselective one, bitmap and/or for and/or); what a policy change does to
-- the index and to the SQL a filter becomes; creating tables with a policy. It inspects a
-- table's own index and plans, so its tables stay ordinary ones when the file runs on a
-- coordinator that distributes new tables (test/t/004); test/t/020_index_distributed.pl checks
-- the nodes' indexes of a distributed table.
\set ECHO none
\i test/regress/helpers.sql
\set ECHO all
SET search_path = tablestore, public;
SET tablestore.distribute_new_tables = '';

-- ---------- the policy: good input and its normal form ----------
SELECT create_table('Pol');
SELECT get_indexing_policy('Pol');
SELECT set_indexing_policy('Pol', p) FROM unnest(ARRAY[
	'{}',
	'{"indexingMode":"Consistent","automatic":true}',
	'{"excludedPaths":[{"path":"/Description/?"},{"path":"/Photo/*"},{"path":"/Description/?"},{"path":"/\"_etag\"/?"}]}',
	'{"indexingMode":"consistent","includedPaths":[{"path":"/*"},{"path":"/Age/?"}],"excludedPaths":[{"path":"/Zeta/?"},{"path":"/Alpha/?"}]}',
	'{"indexingMode":"consistent","includedPaths":[{"path":"/Age/?"},{"path":"/Name/?"}],"excludedPaths":[{"path":"/*"}],"compositeIndexes":[],"spatialIndexes":[]}',
	'{"indexingMode":"none"}',
	'{"indexingMode":"NONE","automatic":false,"includedPaths":[],"excludedPaths":[]}'
]::jsonb[]) p;
-- the last one stays; its index is gone once applied
CALL wait_for_indexing('Pol');
SELECT get_indexing_policy('Pol'), indexing_progress('Pol');
SELECT count(*) AS entity_indexes FROM pg_index i JOIN pg_opclass o ON o.oid = i.indclass[0]
WHERE i.indrelid = 'tablestore_data.pol'::regclass AND o.opcname = 'entity_gin_ops';
-- the queue of index builds (tablestore.index_builds): empty once applied; everyone reads the
-- view, nobody but the extension the queue's table
SELECT count(*) AS queued FROM tablestore.index_builds;
SELECT has_table_privilege('public', 'tablestore.index_builds', 'SELECT') AS public_reads_builds,
	   has_table_privilege('public', 'tablestore_internal.index_queue', 'SELECT') AS public_reads_queue;
-- a change is queued in its transaction, and a rolled back one leaves nothing
BEGIN;
SELECT set_indexing_policy('Pol', '{}') ->> 'indexingMode' AS mode;
SELECT table_name, state, attempts, last_error FROM tablestore.index_builds;
ROLLBACK;
SELECT count(*) AS queued_after_rollback FROM tablestore.index_builds;
SELECT get_indexing_policy('Pol') ->> 'indexingMode' AS still;

-- ---------- bad policies: InvalidInput (TSI01), nothing changed ----------
SELECT pg_temp.try(format('SELECT tablestore.set_indexing_policy(''Pol'', %L)', p)) FROM unnest(ARRAY[
	'[]', '"consistent"', '{"indexingMode":"lazy"}', '{"indexingMode":"full"}', '{"indexingMode":1}',
	'{"automatic":false}', '{"automatic":"yes"}', '{"includedPaths":{}}', '{"includedPaths":["/*"]}',
	'{"includedPaths":[{"path":"/*","indexes":[]}]}', '{"includedPaths":[{}]}', '{"includedPaths":[{"path":1}]}',
	'{"excludedPaths":[{"path":"Name"}]}', '{"excludedPaths":[{"path":"/Name"}]}', '{"excludedPaths":[{"path":"/Name/x"}]}',
	'{"excludedPaths":[{"path":"/a/b/?"}]}', '{"excludedPaths":[{"path":"/1abc/?"}]}', '{"excludedPaths":[{"path":"/a-b/?"}]}',
	'{"excludedPaths":[{"path":"/PartitionKey/?"}]}', '{"excludedPaths":[{"path":"/Timestamp/?"}]}',
	format('{"excludedPaths":[{"path":"/%s/?"}]}', repeat('x', 256)),
	'{"includedPaths":[{"path":"/*"}],"excludedPaths":[{"path":"/*"}]}', '{"includedPaths":[{"path":"/Age/?"}]}',
	'{"includedPaths":[{"path":"/*"},{"path":"/Age/?"}],"excludedPaths":[{"path":"/Age/?"}]}',
	'{"indexingMode":"none","excludedPaths":[{"path":"/Age/?"}]}', '{"compositeIndexes":[[{"path":"/a"}]]}',
	'{"spatialIndexes":{}}', '{"uniqueKeyPolicy":{}}', '{"indexingMode":"consistent","Automatic":true}'
]) p;
SELECT pg_temp.try($$SELECT tablestore.set_indexing_policy('Pol', NULL)$$);
SELECT pg_temp.try($$SELECT tablestore.set_indexing_policy(NULL, '{}')$$);
SELECT pg_temp.try($$SELECT tablestore.set_indexing_policy('NoSuchTable', '{}')$$);
SELECT pg_temp.try($$SELECT tablestore.set_indexing_policy('a-b', '{}')$$);
SELECT pg_temp.try($$SELECT tablestore.get_indexing_policy('NoSuchTable')$$);
SELECT get_indexing_policy('Pol') ->> 'indexingMode' AS unchanged;
-- only the table's owner sets its policy
CREATE ROLE regress_ts_not_owner;
GRANT USAGE ON SCHEMA tablestore, tablestore_data TO regress_ts_not_owner;
GRANT SELECT ON tablestore_data.pol TO regress_ts_not_owner;
SET ROLE regress_ts_not_owner;
SELECT pg_temp.try($$SELECT tablestore.set_indexing_policy('Pol', '{}')$$);
SELECT get_indexing_policy('Pol') ->> 'indexingMode' AS readable;
RESET ROLE;
REVOKE ALL ON tablestore_data.pol FROM regress_ts_not_owner;
REVOKE ALL ON SCHEMA tablestore, tablestore_data FROM regress_ts_not_owner;
DROP ROLE regress_ts_not_owner;

-- ---------- creating tables with a policy ----------
SELECT create_table('WithPolicy', '{"excludedPaths":[{"path":"/Blob/?"}]}');
SELECT get_indexing_policy('WithPolicy') -> 'excludedPaths' AS excluded;
SELECT pg_get_indexdef(i.indexrelid) FROM pg_index i WHERE i.indrelid = 'tablestore_data.withpolicy'::regclass ORDER BY 1;
SELECT pg_temp.try($$SELECT tablestore.create_table('BadPolicy', '{"indexingMode":"lazy"}')$$);
SELECT to_regclass('tablestore_data.badpolicy') AS not_created;
SELECT table_name FROM rest_create_table('{"TableName":"RestPolicy"}', NULL, NULL, NULL, '{"indexingMode":"none"}');
SELECT get_indexing_policy('RestPolicy') ->> 'indexingMode' AS rest_mode;
SELECT pg_temp.try($$SELECT table_name FROM tablestore.rest_create_table('{"TableName":"RestBad"}', NULL, NULL, NULL, '{"indexingMode":"none","indexingMode":"none"}')$$);
SELECT pg_temp.try($$SELECT table_name FROM tablestore.rest_create_table('{"TableName":"RestBad"}', NULL, NULL, NULL, '{not json')$$);
-- a trailing comma, at the top and in a path object (json_next_member, as for entities)
SELECT pg_temp.try($$SELECT table_name FROM tablestore.rest_create_table('{"TableName":"RestBad"}', NULL, NULL, NULL, '{"indexingMode":"none",}')$$);
SELECT pg_temp.try($$SELECT table_name FROM tablestore.rest_create_table('{"TableName":"RestBad"}', NULL, NULL, NULL, '{"includedPaths":[{"path":"/a/?",}]}')$$);
-- rest_set_indexing_policy reads the request's text strictly, as rest_create_table does
SELECT rest_set_indexing_policy('RestPolicy', '{"excludedPaths":[{"path":"/Blob/?"}]}') ->> 'indexingMode' AS rest_set;
SELECT get_indexing_policy('RestPolicy') -> 'excludedPaths' AS rest_set_excluded;
SELECT pg_temp.try($$SELECT tablestore.rest_set_indexing_policy('RestPolicy', '{"indexingMode":"none","indexingMode":"consistent"}')$$);
SELECT pg_temp.try($$SELECT tablestore.rest_set_indexing_policy('RestPolicy', '{"indexingMode":')$$);
SELECT pg_temp.try($$SELECT tablestore.rest_set_indexing_policy('RestPolicy', NULL)$$);
SELECT get_indexing_policy('RestPolicy') -> 'excludedPaths' AS unchanged;
-- the names a policy lists fit in the index's options (its pg_attribute row, under the TOAST
-- threshold): 1500 bytes together (5 names of 255 characters and their commas: 1279; 6: 1535)
SELECT rest_set_indexing_policy('RestPolicy', format('{"excludedPaths":[%s]}',
	string_agg(format('{"path":"/%s%s/?"}', chr(64 + i), repeat('x', 254)), ','))) ->> 'indexingMode' AS five_long_names
FROM generate_series(1, 5) i;
CALL tablestore.wait_for_indexing('RestPolicy', '2 minutes');
SELECT indisvalid AS five_long_names_built, length(pg_get_indexdef(indexrelid)) > 1279 AS options_hold_them
FROM pg_index WHERE indrelid = 'tablestore_data.restpolicy'::regclass AND indexrelid <> 'tablestore_data.restpolicy_pkey'::regclass;
SELECT pg_temp.try(format($$SELECT tablestore.rest_set_indexing_policy('RestPolicy', %L)$$, format('{"excludedPaths":[%s]}',
	string_agg(format('{"path":"/%s%s/?"}', chr(64 + i), repeat('x', 254)), ','))))
FROM generate_series(1, 6) i;
SELECT pg_temp.try(format($$SELECT tablestore.set_indexing_policy('RestPolicy', %L)$$, format('{"includedPaths":[%s],"excludedPaths":[{"path":"/*"}]}',
	string_agg(format('{"path":"/P%s/?"}', i), ','))))
FROM generate_series(1, 1000) i;
SELECT jsonb_array_length(get_indexing_policy('RestPolicy') -> 'excludedPaths') AS still_five;
SELECT table_name FROM rest_create_table('{"TableName":"RestDefault"}', NULL, NULL, NULL);
SELECT get_indexing_policy('RestDefault') ->> 'indexingMode' AS rest_default_mode;

-- ---------- tablestore.property_filter: the OData comparison, typed ----------
SELECT f::property_filter AS normal_form FROM unnest(ARRAY[
	'Age gt 30', '30 lt Age', 'Name eq ''O''''Brien''', 'Big le 9223372036854775807L', 'Score ne -0.0', 'Score ge 1e300',
	'Score lt 2.5', 'Active eq true', 'When lt datetime''2014-08-22T00:50:44.1234567Z''',
	'Id eq guid''68260B3F-beab-45e2-b900-33e2b442e724''', 'Photo eq X''0aFF''', 'Photo gt binary''''', 'Ünïcödé eq ''ß'''
]) f;
SELECT f::property_filter::text::property_filter::text = f::property_filter::text AS round_trip
FROM unnest(ARRAY['Name eq ''it''''s''', 'Score ne 5.0', 'X lt -2147483648', 'Y gt -9223372036854775808L']) f;
SELECT pg_temp.try(format('SELECT %L::tablestore.property_filter', f)) FROM unnest(ARRAY[
	'', 'Age', 'Age gt', 'PartitionKey eq ''a''', 'RowKey gt ''a''', 'Timestamp lt datetime''2014-01-01T00:00:00Z''',
	'Age gt 1 and Age lt 5', 'not Age gt 1', '(Age gt 1)', 'Age gt Name', '1 eq 1', 'Age gt null', 'Age gt 99999999999'
]) f;

-- ---------- @~: the semantics of $filter, where keys are cut and numbers widen ----------
SELECT create_table('Sem');
INSERT INTO tablestore_data.sem (partition_key, row_key, properties)
SELECT 'p', lpad(i::text, 3, '0'), e::entity FROM (VALUES
	(1, '{"S":"' || repeat('a', 200) || 'b"}'), (2, '{"S":"' || repeat('a', 200) || 'c"}'),
	(3, '{"S":"' || repeat('a', 128) || '"}'), (4, '{"S":"' || repeat('a', 127) || '"}'),
	(5, '{"S":"' || repeat('a', 127) || 'b"}'), (6, '{"S":5}'),
	(7, '{"B":"' || translate(encode(convert_to(repeat('x', 130), 'UTF8'), 'base64'), E'\n', '') || '","B@odata.type":"Edm.Binary"}'),
	(8, '{"N":"9007199254740993","N@odata.type":"Edm.Int64"}'), (9, '{"N":9007199254740992.0}'),
	(10, '{"N":"NaN","N@odata.type":"Edm.Double"}'), (11, '{"N":-0.0}'), (12, '{"N":2147483647}'),
	(13, '{"N":"-Infinity","N@odata.type":"Edm.Double"}'), (14, '{"N":"x"}'), (15, '{}')
) v(i, e);
ANALYZE tablestore_data.sem;
-- with the index (no sequential scan, no walk of the primary key) and without it (policy none
-- gives the filter keys' SQL): the same entities
CREATE TEMP TABLE sem_filters (f text);
INSERT INTO sem_filters VALUES
	('S eq ''' || repeat('a', 200) || 'b'''), ('S gt ''' || repeat('a', 200) || 'b'''), ('S lt ''' || repeat('a', 200) || 'c'''),
	('S ge ''' || repeat('a', 128) || ''''), ('S le ''' || repeat('a', 128) || ''''), ('S eq ''' || repeat('a', 127) || ''''),
	('S gt ''' || repeat('a', 127) || ''''), ('S lt ''' || repeat('a', 127) || 'b'''), ('S ne ''x'''), ('S lt 6'), ('S eq 5'),
	('B eq X''' || repeat('78', 130) || ''''), ('B gt X''' || repeat('78', 129) || ''''), ('B lt X''79'''),
	('N eq 9007199254740993L'), ('N eq 9007199254740992L'), ('N gt 9007199254740992L'), ('N gt 9007199254740992.0'),
	('N eq 2147483647'), ('N gt 2147483646'), ('N eq 0.0'), ('N eq 0'), ('N lt 0'), ('N gt 1e308'),
	('N ge 2147483647'), ('N lt -1e308'), ('N le -2147483648'), ('N ne 0'), ('N lt ''x'''), ('N eq ''x'''),
	('not (N lt 0)'), ('N eq 1 or S eq 5'), ('N gt 0 and N lt 3000000000L');
SET enable_seqscan = off;
SET enable_indexscan = off;
CREATE TEMP TABLE sem_indexed AS
SELECT f, (SELECT string_agg(row_key, ',' ORDER BY row_key) FROM query_entities('Sem', f)) AS matches FROM sem_filters;
SELECT explain_query('Sem', 'N gt 9007199254740992L');
RESET enable_seqscan;
RESET enable_indexscan;
SELECT set_indexing_policy('Sem', '{"indexingMode":"none"}') ->> 'indexingMode' AS mode;
CALL wait_for_indexing('Sem');
SELECT query_sql('Sem', 'N gt 9007199254740992L');
SELECT f, i.matches AS indexed, n.matches AS not_indexed
FROM sem_indexed i JOIN LATERAL (SELECT string_agg(row_key, ',' ORDER BY row_key) AS matches FROM query_entities('Sem', f)) n ON true
ORDER BY f COLLATE "C";
SELECT count(*) AS differences FROM sem_indexed i
WHERE i.matches IS DISTINCT FROM (SELECT string_agg(row_key, ',' ORDER BY row_key) FROM query_entities('Sem', i.f));

-- ---------- plans: the index for selective filters, the primary key for unselective ones ----------
SELECT create_table('Plan2');
INSERT INTO tablestore_data.plan2 (partition_key, row_key, properties)
SELECT 'p' || lpad((i % 40)::text, 2, '0'), lpad(i::text, 6, '0'),
	format('{"Code":%s,"Email":"c%s@contoso.com","Score":%s,"Active":%s,"Country":"%s","When":"%s","When@odata.type":"Edm.DateTime"}',
		   i, i, i / 100.0, (i % 10 <> 0)::text, CASE WHEN i % 50 = 0 THEN 'FR' ELSE 'DE' END,
		   to_char(timestamp '2020-01-01' + i * interval '1 minute', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))::entity
FROM generate_series(1, 20000) i;
ANALYZE tablestore_data.plan2;
CREATE FUNCTION pg_temp.plan(filter text, top int DEFAULT NULL) RETURNS SETOF text LANGUAGE sql AS $$
	SELECT tablestore.explain_query('Plan2', filter, top)
$$;
-- selective: equality, a range, a String, a Double, a DateTime: the entity index and a sort of the few
SELECT * FROM pg_temp.plan('Code eq 4242');
SELECT * FROM pg_temp.plan('Code gt 19990', 10);
SELECT * FROM pg_temp.plan('Email eq ''c4242@contoso.com''', 10);
SELECT * FROM pg_temp.plan('Score lt 0.05', 10);
SELECT * FROM pg_temp.plan('When lt datetime''2020-01-01T00:05:00Z''', 10);
-- and / or of two: bitmap and / or
SELECT * FROM pg_temp.plan('Code eq 4242 or Email eq ''c17@contoso.com''', 10);
SELECT * FROM pg_temp.plan('Country eq ''FR'' and Code lt 500', 10);
-- unselective: a page walks the primary key, which finds its first matches at once
SELECT * FROM pg_temp.plan('Active eq true', 10);
SELECT * FROM pg_temp.plan('Country eq ''DE''', 10);
-- the answers
SELECT row_key FROM query_entities('Plan2', 'Code gt 19995');
SELECT count(*) FROM query_entities('Plan2', 'Country eq ''FR'' and Code lt 500');
SELECT query_page('Plan2', 'Code eq 4242 or Email eq ''c17@contoso.com''', NULL, 1) -> 'NextRowKey' AS next_row_key;
SELECT jsonb_path_query_array(query_page('Plan2', 'Code eq 4242 or Email eq ''c17@contoso.com''', NULL, 1, 'p02', '004242'),
							  '$.value[*].RowKey') AS second_page;
-- the estimates come from ANALYZE's statistics of the keys
SELECT (SELECT count(*) FROM pg_stats WHERE tablename = 'plan2' AND attname = 'properties' AND most_common_elems IS NOT NULL) AS has_common_keys;

-- ---------- a policy change: excluded properties are not in the index, and use the filter keys ----------
SELECT set_indexing_policy('Plan2', '{"excludedPaths":[{"path":"/Email/?"}]}') -> 'excludedPaths' AS excluded;
CALL wait_for_indexing('Plan2');
SELECT pg_get_indexdef(i.indexrelid) FROM pg_index i WHERE i.indrelid = 'tablestore_data.plan2'::regclass ORDER BY 1;
SELECT query_sql('Plan2', 'Email eq ''c4242@contoso.com'' and Code eq 4242');
SELECT row_key FROM query_entities('Plan2', 'Email eq ''c4242@contoso.com''');
-- the operator on an excluded property still answers right through the index (every row rechecked)
SET enable_seqscan = off;
SET enable_indexscan = off;
SELECT count(*) FROM tablestore_data.plan2 WHERE properties OPERATOR(tablestore.@~) 'Email eq ''c4242@contoso.com''';
RESET enable_seqscan;
RESET enable_indexscan;
-- only some properties
SELECT set_indexing_policy('Plan2', '{"includedPaths":[{"path":"/Code/?"}],"excludedPaths":[{"path":"/*"}]}') -> 'includedPaths' AS included;
CALL wait_for_indexing('Plan2');
SELECT query_sql('Plan2', 'Code eq 1 or Score eq 1.0');
SELECT set_indexing_policy('Plan2', '{"indexingMode":"none"}') ->> 'indexingMode' AS mode;
CALL wait_for_indexing('Plan2');
SELECT count(*) AS entity_indexes FROM pg_index i WHERE i.indrelid = 'tablestore_data.plan2'::regclass AND i.indexrelid <> 'tablestore_data.plan2_pkey'::regclass;
SELECT query_sql('Plan2', 'Code eq 4242');
SELECT count(*) FROM query_entities('Plan2', 'Country eq ''FR'' and Code lt 500');

-- ---------- a table's owner who is not a superuser (review 3, finding 1) ----------
-- progress, waiting and index_builds read the queue (whose schema PUBLIC may not use) for every
-- role; queueing a table and launching a worker are the owner's
CREATE ROLE regress_idx_owner;
CREATE ROLE regress_idx_other;
GRANT CREATE ON SCHEMA tablestore_data TO regress_idx_owner;
SET ROLE regress_idx_owner;
SELECT create_table('OwnedIdx');
INSERT INTO tablestore_data.ownedidx (partition_key, row_key, properties)
SELECT 'p', lpad(i::text, 4, '0'), format('{"A":%s,"B":"b%s"}', i, i)::entity FROM generate_series(1, 2000) i;
SELECT set_indexing_policy('OwnedIdx', '{"excludedPaths":[{"path":"/B/?"}]}') -> 'excludedPaths' AS excluded;
SELECT indexing_progress('OwnedIdx') BETWEEN 0 AND 100 AS progress_read;
SELECT count(*) <= 1 AS builds_read FROM index_builds WHERE table_name = 'OwnedIdx';
CALL wait_for_indexing('OwnedIdx');
SELECT indexing_progress('OwnedIdx') AS progress, (SELECT count(*) FROM index_builds) AS queued;
RESET ROLE;
-- a policy not applied and not queued (recorded by hand): another role's look queues nothing
UPDATE tablestore.tables SET indexing_policy = '{"indexingMode":"consistent","automatic":true,"includedPaths":[{"path":"/*"}],"excludedPaths":[{"path":"/A/?"}]}'
WHERE key = 'ownedidx';
SET ROLE regress_idx_other;
SELECT indexing_progress('OwnedIdx') < 100 AS not_applied;
RESET ROLE;
SELECT count(*) AS queued_by_another FROM tablestore_internal.index_queue WHERE table_key = 'ownedidx';
-- the owner's look queues it and launches a worker
SET ROLE regress_idx_owner;
SELECT indexing_progress('OwnedIdx') < 100 AS not_applied;
RESET ROLE;
SELECT count(*) AS queued_by_the_owner FROM tablestore_internal.index_queue WHERE table_key = 'ownedidx';
SET ROLE regress_idx_owner;
CALL wait_for_indexing('OwnedIdx');
SELECT indexing_progress('OwnedIdx') AS progress;
-- another role may not change it (nor queue it)
SET ROLE regress_idx_other;
SELECT set_indexing_policy('OwnedIdx', '{}');
RESET ROLE;

-- ---------- a failed change, then the policy set back to the index in place (finding 5) ----------
INSERT INTO tablestore_internal.index_queue (table_key, attempts, last_error, failed)
VALUES ('ownedidx', 8, 'canceling statement due to lock timeout (SQLSTATE 55P03)', true);
SELECT state, attempts FROM index_builds WHERE table_name = 'OwnedIdx';
SET ROLE regress_idx_owner;
SELECT set_indexing_policy('OwnedIdx', '{"excludedPaths":[{"path":"/A/?"}]}') -> 'excludedPaths' AS excluded;
SELECT indexing_progress('OwnedIdx') AS progress, (SELECT count(*) FROM index_builds WHERE table_name = 'OwnedIdx') AS stale_rows;
RESET ROLE;

-- ---------- names taken by other relations block no build (finding 7) ----------
-- a table created under the name a new table's index would have, and under the next ones
CREATE TABLE tablestore_data.blocked_entities (x int);
SELECT create_table('Blocked');
CREATE TABLE tablestore_data.blocked_entities_b (x int);
CREATE TABLE tablestore_data.blocked_entities_2 (x int);
SELECT set_indexing_policy('Blocked', '{"excludedPaths":[{"path":"/X/?"}]}') -> 'excludedPaths' AS excluded;
CALL wait_for_indexing('Blocked', '1 minute');
SELECT c.relname, i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
WHERE i.indrelid = 'tablestore_data.blocked'::regclass AND NOT i.indisprimary ORDER BY 1;
SELECT set_indexing_policy('Blocked', '{}') ->> 'indexingMode' AS mode;
CALL wait_for_indexing('Blocked', '1 minute');
SELECT c.relname, i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
WHERE i.indrelid = 'tablestore_data.blocked'::regclass AND NOT i.indisprimary ORDER BY 1;
DROP TABLE tablestore_data.blocked_entities, tablestore_data.blocked_entities_b, tablestore_data.blocked_entities_2;

SELECT drop_table(t) FROM unnest(ARRAY['Pol', 'WithPolicy', 'RestPolicy', 'RestDefault', 'Sem', 'Plan2', 'OwnedIdx', 'Blocked']) t;
REVOKE CREATE ON SCHEMA tablestore_data FROM regress_idx_owner;
DROP ROLE regress_idx_owner;
DROP ROLE regress_idx_other;
