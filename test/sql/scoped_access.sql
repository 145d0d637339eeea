-- scoped_access: grant_scoped_access / revoke_scoped_access as a user sees them: the policies a
-- scope creates, the warning when row-level security first hides a table from roles that could
-- read it, and the roles a scope cannot limit. (test/pgtap/access.sql tries to escape scopes.)
SET search_path = tablestore, public;
SELECT create_table('Ledger');
SELECT insert_entity('Ledger', format('{"PartitionKey":"%s","RowKey":"1","v":1}', p)::entity) IS NOT NULL AS inserted
FROM unnest(ARRAY['a', 'b', 'c']) p;
CREATE ROLE regress_ts_clerk;
CREATE ROLE regress_ts_viewer;
CREATE ROLE regress_ts_admin BYPASSRLS;
CREATE ROLE regress_ts_deputy;
DO $$ BEGIN EXECUTE format('GRANT %I TO regress_ts_deputy', current_user); END $$;
GRANT SELECT ON tablestore_data.ledger TO regress_ts_viewer;

-- the first scope turns row-level security on; regress_ts_viewer, which could read the table,
-- is told it now sees nothing
SELECT grant_scoped_access('Ledger', 'regress_ts_clerk', 'rau', 'b', NULL, 'b', NULL);
SELECT polname ~ '^scope_[0-9a-f]{16}_(select|insert|update)$' AS name_ok, polcmd, pg_get_expr(polqual, polrelid) AS using,
	pg_get_expr(polwithcheck, polrelid) AS with_check
FROM pg_policy WHERE polrelid = 'tablestore_data.ledger'::regclass ORDER BY polcmd;
SET ROLE regress_ts_clerk;
SELECT partition_key FROM query_entities('Ledger');
RESET ROLE;
SET ROLE regress_ts_viewer;
SELECT count(*) AS viewer_sees FROM query_entities('Ledger');
RESET ROLE;

-- a second scope adds up; granting the same scope again replaces it (no warning: RLS is on)
SELECT grant_scoped_access('Ledger', 'regress_ts_clerk', 'r', 'c', NULL, NULL, NULL);
SELECT grant_scoped_access('Ledger', 'regress_ts_clerk', 'r', 'c', NULL, NULL, NULL);
SELECT count(*) AS policies FROM pg_policy WHERE polrelid = 'tablestore_data.ledger'::regclass;
SET ROLE regress_ts_clerk;
SELECT partition_key FROM query_entities('Ledger');
RESET ROLE;

-- roles row-level security does not limit, and bad arguments
SELECT grant_scoped_access('Ledger', 'regress_ts_admin', 'r', 'a', NULL, 'a', NULL);
SELECT grant_scoped_access('Ledger', 'regress_ts_deputy', 'r');
SELECT grant_scoped_access('Ledger', 'regress_ts_clerk', 'rwx');
SELECT grant_scoped_access('Ledger', 'regress_ts_clerk', 'r', NULL, '1');
SELECT grant_scoped_access('Nope', 'regress_ts_clerk', 'r');

SELECT revoke_scoped_access('Ledger', 'regress_ts_clerk');
SELECT count(*) AS policies_left FROM pg_policy WHERE polrelid = 'tablestore_data.ledger'::regclass;
SELECT drop_table('Ledger');
DROP ROLE regress_ts_clerk, regress_ts_viewer, regress_ts_admin, regress_ts_deputy;
