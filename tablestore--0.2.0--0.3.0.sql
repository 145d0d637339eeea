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
