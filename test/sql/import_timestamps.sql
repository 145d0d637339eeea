-- import_timestamps: in a transaction where the table's owner called
-- tablestore.import_timestamps(tbl), a row inserted with an ETag keeps the Timestamp that ETag
-- carries (tablestore-copy --keep-timestamps: every ETag the source issued still matches); nobody
-- else may, it ends with the transaction, updates and rows without an etag are stamped as always.
SET search_path = tablestore, public;

\set ECHO none
\i test/regress/helpers.sql
\set ECHO all

SELECT create_table('Imported') IS NOT NULL AS created;

-- without the call, a given etag is ignored: the clock stamps the row
INSERT INTO tablestore_data.imported (partition_key, row_key, etag, properties)
VALUES ('p', 'plain', 'W/"datetime''2014-08-22T00%3A50%3A44.1234567Z''"', '{"n":1}');
SELECT etag <> 'W/"datetime''2014-08-22T00%3A50%3A44.1234567Z''"' AS clock_stamped
FROM tablestore_data.imported WHERE row_key = 'plain';

-- the owner's import keeps the source's Timestamp, to the tick, on every output
BEGIN;
SELECT import_timestamps('Imported');
INSERT INTO tablestore_data.imported (partition_key, row_key, etag, properties)
VALUES ('p', 'kept', 'W/"datetime''2014-08-22T00%3A50%3A44.1234567Z''"', '{"n":1}'),
	('p', 'whole', 'W/"datetime''2001-02-03T04%3A05%3A06Z''"', '{"n":2}'),
	('p', 'noetag', NULL, '{"n":3}');
COPY tablestore_data.imported (partition_key, row_key, etag, properties) FROM STDIN;
p	copied	W/"datetime'1601-01-01T00%3A00%3A00.0000001Z'"	{"n":4}
\.
COMMIT;
SELECT row_key, etag, to_char("timestamp" AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') AS ts,
	timestamp_ticks("timestamp", etag) AS ticks
FROM tablestore_data.imported WHERE row_key IN ('kept', 'whole', 'copied') ORDER BY row_key;
SELECT etag, properties::text AS properties FROM get_entity('Imported', 'p', 'kept');
SELECT v->>'Timestamp' AS timestamp, v->>'odata.etag' AS etag
FROM jsonb_array_elements(query_page('Imported', 'RowKey eq ''kept''', NULL)->'value') v;
-- the row inserted without an etag was stamped by the clock
SELECT etag LIKE 'W/"datetime''20%' AND "timestamp" > now() - interval '1 hour' AS noetag_clock
FROM tablestore_data.imported WHERE row_key = 'noetag';
-- the kept ETag matches an If-Match, and the next write is stamped by the clock, later
SELECT update_entity('Imported', '{"PartitionKey":"p","RowKey":"kept","n":9}',
	'W/"datetime''2014-08-22T00%3A50%3A44.1234567Z''"') <> 'W/"datetime''2014-08-22T00%3A50%3A44.1234567Z''"' AS updated;

-- it ends with the transaction
INSERT INTO tablestore_data.imported (partition_key, row_key, etag, properties)
VALUES ('p', 'after', 'W/"datetime''2014-08-22T00%3A50%3A44.1234567Z''"', '{}');
SELECT etag <> 'W/"datetime''2014-08-22T00%3A50%3A44.1234567Z''"' AS clock_again
FROM tablestore_data.imported WHERE row_key = 'after';
-- and with a rollback
BEGIN;
SELECT import_timestamps('Imported');
ROLLBACK;
INSERT INTO tablestore_data.imported (partition_key, row_key, etag, properties)
VALUES ('p', 'after2', 'W/"datetime''2014-08-22T00%3A50%3A44.1234567Z''"', '{}');
SELECT etag <> 'W/"datetime''2014-08-22T00%3A50%3A44.1234567Z''"' AS clock_after_rollback
FROM tablestore_data.imported WHERE row_key = 'after2';

-- only inserts keep it: an UPDATE in the import is stamped by the clock
BEGIN;
SELECT import_timestamps('Imported');
UPDATE tablestore_data.imported SET properties = '{"n":5}', etag = 'W/"datetime''2000-01-01T00%3A00%3A00Z''"'
WHERE row_key = 'whole';
COMMIT;
SELECT etag <> 'W/"datetime''2000-01-01T00%3A00%3A00Z''"' AS update_stamped
FROM tablestore_data.imported WHERE row_key = 'whole';

-- an etag that is not the service's form is refused, and nothing is written
BEGIN;
SELECT import_timestamps('Imported');
SELECT pg_temp.try($$INSERT INTO tablestore_data.imported (partition_key, row_key, etag, properties)
	VALUES ('p', 'bad1', 'W/"abc"', '{}')$$);
SELECT pg_temp.try($$INSERT INTO tablestore_data.imported (partition_key, row_key, etag, properties)
	VALUES ('p', 'bad2', 'W/"datetime''2014-08-22T00%3A50%3A44.1234567Z''"-1.2', '{}')$$);
SELECT pg_temp.try($$INSERT INTO tablestore_data.imported (partition_key, row_key, etag, properties)
	VALUES ('p', 'bad3', 'W/"datetime''0001-01-01T00%3A00%3A00Z''"', '{}')$$);
COMMIT;
SELECT count(*) AS bad_rows FROM tablestore_data.imported WHERE row_key LIKE 'bad%';

-- another table in the same transaction is not affected
SELECT create_table('Other') IS NOT NULL AS created;
BEGIN;
SELECT import_timestamps('Imported');
INSERT INTO tablestore_data.other (partition_key, row_key, etag, properties)
VALUES ('p', 'x', 'W/"datetime''2014-08-22T00%3A50%3A44.1234567Z''"', '{}');
COMMIT;
SELECT etag <> 'W/"datetime''2014-08-22T00%3A50%3A44.1234567Z''"' AS other_clock FROM tablestore_data.other;

-- only the owner: another role with every privilege on the table is refused
CREATE ROLE import_stranger;
GRANT USAGE ON SCHEMA tablestore, tablestore_data TO import_stranger;
GRANT ALL ON tablestore_data.imported TO import_stranger;
SET ROLE import_stranger;
SELECT pg_temp.try($$SELECT tablestore.import_timestamps('Imported')$$);
RESET ROLE;
-- the owner's at each insert too: a SECURITY DEFINER function of the owner's that calls
-- import_timestamps does not leave the caller's own inserts keeping the Timestamps they give
CREATE ROLE import_owner;
CREATE ROLE import_caller;
GRANT USAGE ON SCHEMA tablestore, tablestore_data TO import_owner, import_caller;
GRANT ALL ON tablestore_data.imported TO import_caller;
ALTER TABLE tablestore_data.imported OWNER TO import_owner;
CREATE FUNCTION public.owners_import(t text) RETURNS void LANGUAGE sql SECURITY DEFINER
	SET search_path = pg_catalog AS $$ SELECT tablestore.import_timestamps(t) $$;
ALTER FUNCTION public.owners_import(text) OWNER TO import_owner;
GRANT EXECUTE ON FUNCTION public.owners_import(text) TO import_caller;
SET ROLE import_caller;
BEGIN;
SELECT public.owners_import('Imported');
INSERT INTO tablestore_data.imported (partition_key, row_key, etag, properties)
VALUES ('p', 'definer', 'W/"datetime''2014-08-22T00%3A50%3A44.1234567Z''"', '{}');
COMMIT;
RESET ROLE;
SELECT etag <> 'W/"datetime''2014-08-22T00%3A50%3A44.1234567Z''"' AS definer_trick_stamped_by_clock
FROM tablestore_data.imported WHERE row_key = 'definer';
-- nor a SET ROLE to another role after the owner's call
BEGIN;
SET LOCAL ROLE import_owner;
SELECT import_timestamps('Imported');
SET LOCAL ROLE import_caller;
INSERT INTO tablestore_data.imported (partition_key, row_key, etag, properties)
VALUES ('p', 'setrole', 'W/"datetime''2014-08-22T00%3A50%3A44.1234567Z''"', '{}');
COMMIT;
SELECT etag <> 'W/"datetime''2014-08-22T00%3A50%3A44.1234567Z''"' AS set_role_stamped_by_clock
FROM tablestore_data.imported WHERE row_key = 'setrole';
-- nor after the owner's own insert kept its Timestamp in the transaction (on a distributed
-- table, the node's part then imports too: the coordinator keeps the rule, test/t/004)
BEGIN;
SET LOCAL ROLE import_owner;
SELECT import_timestamps('Imported');
INSERT INTO tablestore_data.imported (partition_key, row_key, etag, properties)
VALUES ('p', 'owners_first', 'W/"datetime''2014-08-22T00%3A50%3A44.1234567Z''"', '{}');
SET LOCAL ROLE import_caller;
INSERT INTO tablestore_data.imported (partition_key, row_key, etag, properties)
VALUES ('p', 'callers_next', 'W/"datetime''2014-08-22T00%3A50%3A44.1234568Z''"', '{}');
COMMIT;
SELECT row_key, etag LIKE 'W/"datetime''2014-08-22T%' AS kept FROM tablestore_data.imported
WHERE row_key IN ('owners_first', 'callers_next') ORDER BY row_key COLLATE "C";
-- a table owned by another role: its owner may (and so may a member of it, as PostgreSQL's
-- ownership goes), another role may not
SET ROLE import_caller;
SELECT pg_temp.try($$SELECT tablestore.import_timestamps('Imported')$$) AS not_the_owner;
RESET ROLE;
BEGIN;
SET LOCAL ROLE import_owner;
SELECT import_timestamps('Imported');
INSERT INTO tablestore_data.imported (partition_key, row_key, etag, properties)
VALUES ('p', 'byowner', 'W/"datetime''2014-08-22T00%3A50%3A44.1234567Z''"', '{}');
COMMIT;
SELECT etag = 'W/"datetime''2014-08-22T00%3A50%3A44.1234567Z''"' AS owner_keeps
FROM tablestore_data.imported WHERE row_key = 'byowner';
GRANT import_owner TO import_caller;
SET ROLE import_caller;
SELECT pg_temp.try($$SELECT tablestore.import_timestamps('Imported')$$) AS member_of_the_owner;
RESET ROLE;
REVOKE import_owner FROM import_caller;
ALTER TABLE tablestore_data.imported OWNER TO CURRENT_USER;
DROP FUNCTION public.owners_import(text);
REVOKE ALL ON tablestore_data.imported FROM import_caller;
REVOKE USAGE ON SCHEMA tablestore, tablestore_data FROM import_owner, import_caller;
DROP ROLE import_owner;
DROP ROLE import_caller;
-- unknown and invalid names
SELECT pg_temp.try($$SELECT import_timestamps('Missing')$$);
SELECT pg_temp.try($$SELECT import_timestamps('no-such')$$);

REVOKE ALL ON tablestore_data.imported FROM import_stranger;
REVOKE USAGE ON SCHEMA tablestore, tablestore_data FROM import_stranger;
DROP ROLE import_stranger;
SELECT drop_table('Imported');
SELECT drop_table('Other');
