-- table_acl: stored access policies (Get/Set Table ACL): at most 5 per table, Ids of 1 to 64
-- characters, permissions of "raud" (stored in that order), optional Start and Expiry; the
-- table's owner sets them; dropping the table forgets them.
SET search_path = tablestore, public;

\set ECHO none
\i test/regress/helpers.sql
\set ECHO all

SET TIME ZONE 'UTC';
SELECT create_table('Secured');
SELECT * FROM get_table_acl('Secured');
SELECT set_table_acl('Secured', '[{"Id":"readers","Start":"2026-01-01T00:00:00Z","Expiry":"2027-01-01T00:00:00.5Z","Permission":"r"},
	{"Id":"writers","Permission":"dau"}, {"Id":"open"}]');
-- in the order Set Table ACL gave them (not by Id)
SELECT * FROM get_table_acl('secured');
-- a second Set replaces every policy
SELECT set_table_acl('Secured', '[{"Id":"only","Expiry":"2030-06-01T12:00:00Z","Permission":"raud"}]');
SELECT * FROM get_table_acl('Secured');
SELECT set_table_acl('Secured', '[]');
SELECT count(*) FROM get_table_acl('Secured');

-- refused, and nothing changed
SELECT set_table_acl('Secured', '[{"Id":"keep","Permission":"r"}]');
SELECT pg_temp.try($$SELECT tablestore.set_table_acl('Secured', '[{"Id":"a"},{"Id":"b"},{"Id":"c"},{"Id":"d"},{"Id":"e"},{"Id":"f"}]')$$);
SELECT pg_temp.try($$SELECT tablestore.set_table_acl('Secured', '[{"Id":"a","Permission":"rw"}]')$$);
SELECT pg_temp.try($$SELECT tablestore.set_table_acl('Secured', '[{"Id":"a","Permission":"rr"}]')$$);
SELECT pg_temp.try($$SELECT tablestore.set_table_acl('Secured', '[{"Id":"a"},{"Id":"a"}]')$$);
SELECT pg_temp.try($$SELECT tablestore.set_table_acl('Secured', '[{"Id":""}]')$$);
SELECT pg_temp.try($$SELECT tablestore.set_table_acl('Secured', ('[{"Id":"' || repeat('x', 65) || '"}]')::jsonb)$$);
SELECT pg_temp.try($$SELECT tablestore.set_table_acl('Secured', '[{"Id":7}]')$$);
SELECT pg_temp.try($$SELECT tablestore.set_table_acl('Secured', '[{"Id":"a","Start":"yesterday-ish"}]')$$);
SELECT pg_temp.try($$SELECT tablestore.set_table_acl('Secured', '[{"Id":"a","Expiry":"infinity"}]')$$);
SELECT pg_temp.try($$SELECT tablestore.set_table_acl('Secured', '[{"Id":"a","Start":"now"}]')$$);
SELECT pg_temp.try($$SELECT tablestore.set_table_acl('Secured', '[{"Id":"a","Start":"2026-01-01T00:00:00"}]')$$);
SELECT pg_temp.try($$SELECT tablestore.set_table_acl('Secured', '[{"Id":"a","Start":"2026-01-01T00:00:00+02:00"}]')$$);
SELECT pg_temp.try($$SELECT tablestore.set_table_acl('Secured', '{"Id":"a"}')$$);
SELECT pg_temp.try($$SELECT tablestore.set_table_acl('Secured', NULL)$$);
SELECT pg_temp.try($$SELECT tablestore.set_table_acl('Missing', '[]')$$);
SELECT pg_temp.try($$SELECT * FROM tablestore.get_table_acl('Missing')$$);
SELECT pg_temp.try($$SELECT * FROM tablestore.get_table_acl('no-such')$$);
SELECT * FROM get_table_acl('Secured');

-- only the table's owner sets them; anyone may read them
CREATE ROLE regress_ts_acl_other LOGIN;
SET SESSION AUTHORIZATION regress_ts_acl_other;
SELECT pg_temp.try($$SELECT tablestore.set_table_acl('Secured', '[]')$$);
SELECT id FROM tablestore.get_table_acl('Secured');
RESET SESSION AUTHORIZATION;

-- dropping the table forgets its policies; a new table of that name starts with none
SELECT drop_table('Secured');
SELECT count(*) FROM access_policies WHERE table_key = 'secured';
SELECT create_table('SECURED');
SELECT count(*) FROM get_table_acl('Secured');
SELECT drop_table('SECURED');
DROP ROLE regress_ts_acl_other;
