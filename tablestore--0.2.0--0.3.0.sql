-- tablestore upgrade script from 0.2.0 to 0.3.0. Every change made to tablestore.sql since 0.2.0
-- is made here too; the regression test sql/extension.sql checks that 0.1.0 plus the upgrade
-- scripts gives the same objects as a fresh install.

\echo Use "ALTER EXTENSION tablestore UPDATE TO '0.3.0'" to load this file. \quit

--------------------------------------------------------------------------------------------------
-- The gateway account a database serves (tablestore-gateway: each account has a database of its own)
--------------------------------------------------------------------------------------------------

CREATE TABLE tablestore.gateway_account (
	singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
	account text NOT NULL CHECK (account ~ '^[A-Za-z0-9-]{1,63}$'),
	claimed timestamptz NOT NULL DEFAULT pg_catalog.now()
);
COMMENT ON TABLE tablestore.gateway_account IS
'The tablestore-gateway account this database serves (one row, written by claim_account; dumped by pg_dump with the data)';
SELECT pg_catalog.pg_extension_config_dump('tablestore.gateway_account', '');
GRANT SELECT ON tablestore.gateway_account TO PUBLIC;

CREATE FUNCTION tablestore.claim_account(account text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	held text;
BEGIN
	-- SECURITY DEFINER: the caller is the session's role, which must be a member of the database's owner
	IF NOT pg_has_role(session_user, (SELECT d.datdba FROM pg_database d WHERE d.datname = current_database()), 'USAGE') THEN
		RAISE EXCEPTION USING ERRCODE = '42501',
			MESSAGE = 'AuthorizationFailure: only the owner of the database claims it for a gateway account';
	END IF;
	IF account IS NULL OR account !~ '^[A-Za-z0-9-]{1,63}$' THEN
		RAISE EXCEPTION USING ERRCODE = 'TSB00', MESSAGE = 'InvalidInput: an account name is 1 to 63 letters, digits and ''-''';
	END IF;
	INSERT INTO tablestore.gateway_account AS g (account) VALUES (claim_account.account) ON CONFLICT (singleton) DO NOTHING;
	SELECT g.account INTO held FROM tablestore.gateway_account g;
	IF held IS DISTINCT FROM claim_account.account THEN
		RAISE EXCEPTION USING ERRCODE = 'TSA02',
			MESSAGE = format('AuthorizationFailure: this database serves the gateway account "%s", not "%s"', held, claim_account.account),
			DETAIL = 'Each account of tablestore-gateway has a database of its own, so that no account reaches another''s data.',
			HINT = 'Give the account a database of its own; to hand this one to another account, DELETE FROM tablestore.gateway_account.';
	END IF;
END $$;
REVOKE ALL ON FUNCTION tablestore.claim_account(text) FROM PUBLIC;

COMMENT ON FUNCTION tablestore.claim_account(text) IS
'Record that this database serves the given tablestore-gateway account (the first claim wins); TSA02 when it serves another; the database owner only';

-- Get Table ACL answers the identifiers in the order Set Table ACL gave them
ALTER TABLE tablestore.access_policies ADD COLUMN position int NOT NULL DEFAULT 0;
CREATE OR REPLACE FUNCTION tablestore.get_table_acl(tbl text)
RETURNS TABLE (id text, start timestamptz, expiry timestamptz, permission text)
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	PERFORM tablestore.table_relation(tbl);	-- InvalidResourceName, TableNotFound
	RETURN QUERY SELECT p.id::text, p.start, p.expiry, p.permission::text FROM tablestore.access_policies p
		WHERE p.table_key = lower(tbl) ORDER BY p.position, p.id;
END $$;

COMMENT ON FUNCTION tablestore.get_table_acl(text) IS
'Get Table ACL: the stored access policies of a table (Id, Start, Expiry, Permission), in the order they were set';

CREATE OR REPLACE FUNCTION tablestore.set_table_acl(tbl text, policies jsonb) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	rel regclass;
	p jsonb;
	perm text;
	place bigint;
	ids text[] := '{}';
BEGIN
	rel := tablestore.table_relation(tbl);	-- InvalidResourceName, TableNotFound
	-- SECURITY DEFINER: the caller is the session's role
	IF NOT pg_has_role(session_user, (SELECT c.relowner FROM pg_class c WHERE c.oid = rel), 'USAGE') THEN
		RAISE EXCEPTION USING ERRCODE = '42501',
			MESSAGE = format('AuthorizationFailure: only the owner of table "%s" sets its access policies', left(tbl, 63));
	END IF;
	IF policies IS NULL OR jsonb_typeof(policies) <> 'array' THEN
		RAISE EXCEPTION USING ERRCODE = 'TSB00', MESSAGE = 'InvalidInput: policies is a JSON array of {"Id", "Start", "Expiry", "Permission"}';
	END IF;
	IF jsonb_array_length(policies) > 5 THEN
		RAISE EXCEPTION USING ERRCODE = 'TSB00', MESSAGE = format('InvalidInput: a table has at most 5 stored access policies, not %s', jsonb_array_length(policies));
	END IF;
	-- one writer at a time per table: the replacement is whole
	PERFORM 1 FROM tablestore.tables t WHERE t.key = lower(tbl) FOR UPDATE;
	DELETE FROM tablestore.access_policies a WHERE a.table_key = lower(tbl);
	FOR p, place IN SELECT e.value, e.ordinality FROM jsonb_array_elements(policies) WITH ORDINALITY e LOOP
		IF jsonb_typeof(p) <> 'object' OR jsonb_typeof(p->'Id') IS DISTINCT FROM 'string'
		   OR length(p->>'Id') NOT BETWEEN 1 AND 64 THEN
			RAISE EXCEPTION USING ERRCODE = 'TSB00', MESSAGE = 'InvalidInput: every policy has an Id of 1 to 64 characters';
		END IF;
		IF (p->>'Id') = ANY (ids) THEN
			RAISE EXCEPTION USING ERRCODE = 'TSB00', MESSAGE = format('InvalidInput: the policy Id "%s" is given twice', p->>'Id');
		END IF;
		ids := ids || (p->>'Id');
		perm := NULL;
		IF p ? 'Permission' AND jsonb_typeof(p->'Permission') <> 'null' THEN
			IF (p->>'Permission') !~ '^[raud]*$' OR length(p->>'Permission') <> (SELECT count(DISTINCT c) FROM regexp_split_to_table(p->>'Permission', '') c) THEN
				RAISE EXCEPTION USING ERRCODE = 'TSB00', MESSAGE = format('InvalidInput: the Permission of policy "%s" is letters of "raud", each at most once', p->>'Id');
			END IF;
			-- the service's order
			perm := concat(CASE WHEN strpos(p->>'Permission', 'r') > 0 THEN 'r' END, CASE WHEN strpos(p->>'Permission', 'a') > 0 THEN 'a' END,
						   CASE WHEN strpos(p->>'Permission', 'u') > 0 THEN 'u' END, CASE WHEN strpos(p->>'Permission', 'd') > 0 THEN 'd' END);
		END IF;
		-- UTC times as the service writes them (no "now", "infinity" or local times)
		IF (p->>'Start') !~ '^\d{4}-\d\d-\d\d(T\d\d:\d\d(:\d\d(\.\d{1,7})?)?Z)?$'
		   OR (p->>'Expiry') !~ '^\d{4}-\d\d-\d\d(T\d\d:\d\d(:\d\d(\.\d{1,7})?)?Z)?$' THEN
			RAISE EXCEPTION USING ERRCODE = 'TSB00', MESSAGE = format('InvalidInput: the Start or Expiry of policy "%s" is not a time', p->>'Id');
		END IF;
		BEGIN
			INSERT INTO tablestore.access_policies (table_key, id, start, expiry, permission, position)
			VALUES (lower(tbl), p->>'Id', (p->>'Start')::timestamp AT TIME ZONE 'UTC', (p->>'Expiry')::timestamp AT TIME ZONE 'UTC', perm, place);
		EXCEPTION WHEN datetime_field_overflow OR invalid_datetime_format OR invalid_text_representation THEN
			RAISE EXCEPTION USING ERRCODE = 'TSB00', MESSAGE = format('InvalidInput: the Start or Expiry of policy "%s" is not a time', p->>'Id');
		END;
	END LOOP;
END $$;

COMMENT ON FUNCTION tablestore.set_table_acl(text, jsonb) IS
'Set Table ACL: replace a table''s stored access policies (at most 5: [{"Id","Start","Expiry","Permission"}]); the table''s owner only';
