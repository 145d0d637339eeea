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
-- Scale-out safety (issue 25, doc/scale-out.md): shard fences on the nodes, moves that always clean
-- up and switch under the coordinator's lock for at most a second, plain SQL held to one node.
DROP PROCEDURE tablestore.move_shard(text, int, name, interval);
DROP PROCEDURE tablestore_internal.move_shard_cleanup(text, name, name, text);
DROP FUNCTION tablestore_internal.node_execute(name, text, bool);
CREATE FUNCTION tablestore_internal.node_execute(server name, sql text, in_transaction bool, timeout_ms int DEFAULT 0) RETURNS text
AS 'MODULE_PATHNAME', 'tablestore_node_execute' LANGUAGE C VOLATILE;
CREATE FUNCTION tablestore_internal.node_wait(server name, sql text, timeout_ms int) RETURNS bool
AS 'MODULE_PATHNAME', 'tablestore_node_wait' LANGUAGE C VOLATILE;
CREATE FUNCTION tablestore_internal.flushed_wal_lsn() RETURNS pg_lsn
AS 'MODULE_PATHNAME', 'tablestore_flushed_wal_lsn' LANGUAGE C VOLATILE;
REVOKE ALL ON FUNCTION tablestore_internal.node_execute(name, text, bool, int) FROM PUBLIC;
REVOKE ALL ON FUNCTION tablestore_internal.node_wait(name, text, int) FROM PUBLIC;
REVOKE ALL ON FUNCTION tablestore_internal.flushed_wal_lsn() FROM PUBLIC;
COMMENT ON FUNCTION tablestore_internal.node_execute(name, text, bool, int) IS 'Run a statement on a node: in this transaction''s remote transaction, or on a connection of its own (with a statement timeout in milliseconds, 0: none)';
COMMENT ON FUNCTION tablestore_internal.node_wait(name, text, int) IS 'Run a boolean query on a node, on a connection of its own, every 10 ms until it answers true or the milliseconds pass; whether it answered true';
COMMENT ON FUNCTION tablestore_internal.flushed_wal_lsn() IS 'On a node: the WAL insert position, flushed (what a move waits for its subscriber to have applied)';

-- A node's shard tables that direct calls must not reach (src/shard_fence.c): a move's target
-- while it is filled ('filling'), a move's source from its switch on ('moved'). Every direct call
-- on a shard reads it, after its lock on the shard table; calls forwarded by the coordinator pass.
CREATE TABLE tablestore_internal.shard_fences (
	shard_table regclass PRIMARY KEY,
	table_key text NOT NULL,
	shard int NOT NULL,
	state text NOT NULL CHECK (state IN ('filling', 'moved')),
	move text NOT NULL,
	since timestamptz NOT NULL DEFAULT pg_catalog.now()
);
SELECT pg_catalog.pg_extension_config_dump('tablestore_internal.shard_fences', '');
REVOKE ALL ON tablestore_internal.shard_fences FROM PUBLIC;
COMMENT ON TABLE tablestore_internal.shard_fences IS
'A node''s shard tables that refuse direct calls (TSX03): a move''s target while it is filled, a move''s source once the move switched';

CREATE FUNCTION tablestore.routed_by_coordinator(value anyelement) RETURNS anyelement
AS 'MODULE_PATHNAME', 'tablestore_routed_by_coordinator' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION tablestore.routed_by_coordinator(anyelement) IS
'Returns its argument; marks the calls of the transaction as forwarded by a coordinator, which routes by its own shard map (a node''s shard fence does not refuse them). Forwarded calls use it; applications do not';

CREATE FUNCTION tablestore.one_writing_node() RETURNS trigger
AS 'MODULE_PATHNAME', 'tablestore_one_writing_node' LANGUAGE C;
COMMENT ON FUNCTION tablestore.one_writing_node() IS
'Trigger of a coordinator''s distributed table (row triggers on its foreign partitions, a TRUNCATE trigger on it): plain SQL writing on a second node in one transaction is refused (TSX04) unless tablestore.allow_multi_node_writes';

-- The servers that may hold shards: postgres_fdw servers shipping tablestore, with a user mapping.
CREATE FUNCTION tablestore_internal.shard_servers() RETURNS SETOF name
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
	SELECT s.srvname FROM pg_foreign_server s JOIN pg_foreign_data_wrapper w ON w.oid = s.srvfdw
	WHERE w.fdwname = 'postgres_fdw'
		AND EXISTS (SELECT FROM pg_options_to_table(s.srvoptions) o
			WHERE o.option_name = 'extensions' AND 'tablestore' = ANY (string_to_array(replace(o.option_value, ' ', ''), ',')))
		AND EXISTS (SELECT FROM pg_user_mappings m WHERE m.srvid = s.oid AND (m.umuser = 0 OR m.umuser = current_user::regrole::oid))
	ORDER BY 1
$$;
REVOKE ALL ON FUNCTION tablestore_internal.shard_servers() FROM PUBLIC;
COMMENT ON FUNCTION tablestore_internal.shard_servers() IS
'The postgres_fdw servers that ship tablestore and have a user mapping for the caller: where moves look for what they left';

-- A node statement that may wait for a lock: 1 s at a time (a waiting lock holds up the calls queued
-- behind it), retried until the deadline; the statement's time bounded by the deadline too.
CREATE FUNCTION tablestore_internal.node_ddl(server name, sql text, deadline timestamptz) RETURNS text
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	LOOP
		BEGIN
			RETURN tablestore_internal.node_execute(server, 'SET lock_timeout = ''1s''; ' || sql, false,
				greatest(1, (extract(epoch FROM deadline - clock_timestamp()) * 1000)::int));
		EXCEPTION WHEN lock_not_available THEN
			IF clock_timestamp() > deadline THEN
				RAISE;
			END IF;
			PERFORM pg_sleep(0.1);
		END;
	END LOOP;
END $$;
REVOKE ALL ON FUNCTION tablestore_internal.node_ddl(name, text, timestamptz) FROM PUBLIC;
COMMENT ON FUNCTION tablestore_internal.node_ddl(name, text, timestamptz) IS
'Run a statement on a node on a connection of its own, waiting at most 1 s at a time for a lock, retried until the deadline';

-- The switch, the one step under the coordinator's lock, bounded: the coordinator's table locked
-- (calls through it wait), the source's shard table locked (direct calls on the shard wait), the
-- source's WAL position flushed, the subscriber waited for until it has applied that much, the
-- source's shard table fenced and the coordinator's partition re-pointed. false when a lock or the
-- subscriber is not there in time (the caller rolls back, which releases the locks, and retries);
-- true: the caller commits.
CREATE FUNCTION tablestore_internal.move_switch(tbl text, shard int, source name, target name, job text, budget_ms int)
RETURNS bool LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	p record;
	t0 timestamptz := clock_timestamp();
	lsn text;
BEGIN
	PERFORM set_config('lock_timeout', (budget_ms / 3)::text || 'ms', true);
	-- the lock first (a lock taken after reading the placement would be an upgrade, which two moves could deadlock on)
	EXECUTE format('LOCK TABLE tablestore_data.%I IN ACCESS EXCLUSIVE MODE', lower(tbl));
	SELECT * INTO STRICT p FROM tablestore_internal.shard_placement(tbl, shard);
	IF p.server <> source THEN
		RAISE EXCEPTION USING ERRCODE = 'TSX05', MESSAGE = format('InvalidInput: shard %s of the table "%s" moved to "%s" meanwhile', shard, p.key, p.server);
	END IF;
	PERFORM tablestore_internal.node_execute(source, format('SET LOCAL lock_timeout = %L', (budget_ms / 3)::text || 'ms'), true);
	PERFORM tablestore_internal.node_execute(source, format('LOCK TABLE %s IN ACCESS EXCLUSIVE MODE', p.shard_table), true);
	lsn := tablestore_internal.node_execute(source, 'SELECT tablestore_internal.flushed_wal_lsn()', true);
	WHILE tablestore_internal.node_execute(source, format('SELECT COALESCE((SELECT bool_or(replay_lsn >= %L::pg_lsn) '
		'FROM pg_catalog.pg_stat_replication WHERE application_name = %L AND state = ''streaming''), false)', lsn, job), true) <> 't' LOOP
		IF clock_timestamp() > t0 + budget_ms * interval '1 ms' THEN
			RETURN false;
		END IF;
		PERFORM pg_sleep(0.005);
	END LOOP;
	PERFORM tablestore_internal.node_execute(source, format('INSERT INTO tablestore_internal.shard_fences (shard_table, table_key, shard, state, move) '
		'VALUES (%L::regclass, %L, %s, ''moved'', %L)', p.shard_table, p.key, shard, job), true);
	PERFORM tablestore_internal.repoint_shard(tbl, shard, target);
	RETURN true;
EXCEPTION WHEN lock_not_available THEN
	RETURN false;
END $$;
REVOKE ALL ON FUNCTION tablestore_internal.move_switch(text, int, name, name, text, int) FROM PUBLIC;
COMMENT ON FUNCTION tablestore_internal.move_switch(text, int, name, name, text, int) IS
'move_shard''s switch under the coordinator''s lock, bounded by budget_ms: false when a lock or the subscriber was not there in time';

-- What a move of a shard leaves on the nodes, removed so that they agree with the coordinator's
-- shard map (as this transaction sees it): the node the map names serves the shard (its fence
-- goes); every other node's copy of the shard goes, with the move's subscription, publication and
-- replication slots. servers: the nodes to look at (NULL: every shard server; the map's node is
-- always one). Each node's part commits there at once. A node that cannot be reached is reported
-- (WARNING; an error at the end when strict).
CREATE PROCEDURE tablestore_internal.move_cleanup(tbl text, shard int, servers name[], strict bool)
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	p record;
	job text;
	srv name;
	seen jsonb := '{}';
	st jsonb;
	owner_id text;
	subs text[] := '{}';
	failed text[] := '{}';
	far timestamptz := clock_timestamp() + interval '1 minute';
BEGIN
	SELECT * INTO STRICT p FROM tablestore_internal.shard_placement(tbl, shard);
	job := format('tablestore_move_%s_%s', left(md5(p.key), 12), shard);
	-- what each node has of the move
	FOR srv IN SELECT DISTINCT x FROM unnest(coalesce(servers, ARRAY(SELECT tablestore_internal.shard_servers())) || p.server) x ORDER BY 1
	LOOP
		BEGIN
			st := tablestore_internal.node_execute(srv, format($q$SELECT pg_catalog.jsonb_build_object(
				'id', (SELECT system_identifier::text FROM pg_catalog.pg_control_system()) || '/' || pg_catalog.current_database(),
				'sub', (SELECT s.oid::text FROM pg_catalog.pg_subscription s JOIN pg_catalog.pg_database d ON d.oid = s.subdbid
					WHERE s.subname = %1$L AND d.datname = pg_catalog.current_database()),
				'pub', EXISTS (SELECT FROM pg_catalog.pg_publication WHERE pubname = %1$L),
				'slots', (SELECT pg_catalog.jsonb_agg(slot_name) FROM pg_catalog.pg_replication_slots
					WHERE database = pg_catalog.current_database() AND (slot_name = %1$L OR slot_name ~ '^pg_[0-9]+_sync_')),
				'table', pg_catalog.to_regclass(%2$L) IS NOT NULL,
				'fence', (SELECT state FROM tablestore_internal.shard_fences WHERE shard_table = pg_catalog.to_regclass(%2$L)),
				'dangling', (SELECT pg_catalog.count(*) FROM tablestore_internal.shard_fences f
					WHERE NOT EXISTS (SELECT FROM pg_catalog.pg_class c WHERE c.oid = f.shard_table)))::text$q$, job, p.shard_table), false)::jsonb;
			seen := seen || jsonb_build_object(srv, st);
		EXCEPTION WHEN OTHERS THEN
			RAISE WARNING 'tablestore: the node "%" cannot be checked for what a move of shard % left: %', srv, shard, SQLERRM;
			failed := failed || srv::text;
		END;
	END LOOP;
	IF NOT seen ? p.server THEN
		RAISE EXCEPTION USING ERRCODE = 'TSX05', MESSAGE = format('InvalidInput: the node "%s" that holds shard %s of the table "%s" cannot be reached', p.server, shard, p.key);
	END IF;
	owner_id := seen -> p.server ->> 'id';
	IF NOT (seen -> p.server -> 'table')::bool THEN
		RAISE EXCEPTION USING ERRCODE = 'TSX05', MESSAGE = format('InvalidInput: the node "%s" that the shard map names for shard %s of the table "%s" has no shard table %s',
			p.server, shard, p.key, p.shard_table), HINT = 'Point the shard at a node that holds it (tablestore_internal.repoint_shard) first.';
	END IF;
	-- 1. the node the map names serves the shard
	IF seen -> p.server ->> 'fence' IS NOT NULL THEN
		PERFORM tablestore_internal.node_ddl(p.server, format('DELETE FROM tablestore_internal.shard_fences WHERE shard_table = %L::regclass', p.shard_table), far);
	END IF;
	-- 2. the subscription (without dropping its slot from here: its publisher may be gone)
	FOR srv, st IN SELECT * FROM jsonb_each(seen) WHERE value ->> 'sub' IS NOT NULL LOOP
		BEGIN
			PERFORM tablestore_internal.node_ddl(srv, format('ALTER SUBSCRIPTION %1$I DISABLE; ALTER SUBSCRIPTION %1$I SET (slot_name = NONE); '
				'DROP SUBSCRIPTION %1$I', job), far);
			subs := subs || (st ->> 'sub');
		EXCEPTION WHEN OTHERS THEN
			RAISE WARNING 'tablestore: the subscription % on the node "%" was not dropped: %', job, srv, SQLERRM;
			failed := failed || srv::text;
		END;
	END LOOP;
	-- 3. the publication and the replication slots (their walsenders ended first)
	FOR srv, st IN SELECT * FROM jsonb_each(seen) WHERE (value -> 'pub')::bool OR jsonb_typeof(value -> 'slots') = 'array' LOOP
		BEGIN
			PERFORM tablestore_internal.node_ddl(srv, format($q$DROP PUBLICATION IF EXISTS %1$I;
				SELECT pg_catalog.count(pg_catalog.pg_terminate_backend(active_pid, 5000)) FROM pg_catalog.pg_replication_slots
					WHERE database = pg_catalog.current_database() AND active_pid IS NOT NULL AND (slot_name = %1$L OR slot_name LIKE ANY (%2$L::text[]));
				SELECT pg_catalog.count(pg_catalog.pg_drop_replication_slot(slot_name)) FROM pg_catalog.pg_replication_slots
					WHERE database = pg_catalog.current_database() AND (slot_name = %1$L OR slot_name LIKE ANY (%2$L::text[]))$q$,
				job, (SELECT coalesce(array_agg('pg\_' || s || '\_sync\_%'), '{}') FROM unnest(subs) s)), far);
		EXCEPTION WHEN OTHERS THEN
			RAISE WARNING 'tablestore: the publication or replication slot % on the node "%" was not dropped: %', job, srv, SQLERRM;
			failed := failed || srv::text;
		END;
	END LOOP;
	-- 4. every other node's copy of the shard, and fences of tables that are gone
	FOR srv, st IN SELECT * FROM jsonb_each(seen) WHERE key <> p.server AND value ->> 'id' <> owner_id
		AND ((value -> 'table')::bool OR (value ->> 'dangling')::int > 0) LOOP
		BEGIN
			PERFORM tablestore_internal.node_ddl(srv, format('DELETE FROM tablestore_internal.shard_fences WHERE shard_table = pg_catalog.to_regclass(%1$L); '
				'DROP TABLE IF EXISTS %1$s; DELETE FROM tablestore_internal.shard_fences f '
				'WHERE NOT EXISTS (SELECT FROM pg_catalog.pg_class c WHERE c.oid = f.shard_table)', p.shard_table), far);
		EXCEPTION WHEN OTHERS THEN
			RAISE WARNING 'tablestore: the copy % of shard % on the node "%" was not dropped: %', p.shard_table, shard, srv, SQLERRM;
			failed := failed || srv::text;
		END;
	END LOOP;
	IF strict AND cardinality(failed) > 0 THEN
		RAISE EXCEPTION USING ERRCODE = 'TSX05', MESSAGE = format('InvalidInput: what a move of shard %s of the table "%s" left could not be removed on %s',
			shard, p.key, array_to_string(ARRAY(SELECT DISTINCT unnest(failed)), ', ')),
			HINT = 'Make the nodes reachable and call tablestore.move_shard_cleanup again.';
	END IF;
END $$;
REVOKE ALL ON PROCEDURE tablestore_internal.move_cleanup(text, int, name[], bool) FROM PUBLIC;
COMMENT ON PROCEDURE tablestore_internal.move_cleanup(text, int, name[], bool) IS
'What moves of a shard left on the nodes, removed so that they agree with the coordinator''s shard map (move_shard, move_shard_cleanup)';

-- The advisory lock of moves of one shard (session-level: a move commits between its steps).
CREATE FUNCTION tablestore_internal.move_lock(tbl text, shard int, take bool) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	k int := hashtext(lower(tbl) || '/' || shard);
BEGIN
	IF NOT take THEN
		IF EXISTS (SELECT FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted
			AND classid::int = hashtext('tablestore.move_shard') AND objid::int = k AND objsubid = 2) THEN
			PERFORM pg_advisory_unlock(hashtext('tablestore.move_shard'), k);
		END IF;
	ELSIF NOT pg_try_advisory_lock(hashtext('tablestore.move_shard'), k) THEN
		RAISE EXCEPTION USING ERRCODE = 'TSX05', MESSAGE = format('InvalidInput: a move of shard %s of the table "%s" is under way', shard, tbl),
			HINT = 'Wait for it to end (or end its session).';
	END IF;
END $$;
REVOKE ALL ON FUNCTION tablestore_internal.move_lock(text, int, bool) FROM PUBLIC;
COMMENT ON FUNCTION tablestore_internal.move_lock(text, int, bool) IS
'Take (or release) the session''s advisory lock of the moves of one shard';

-- A failed move's end, in its exception handler: what it left removed on the two nodes (a warning
-- when that cannot finish: move_shard_cleanup does it later) and the shard's move lock released.
CREATE PROCEDURE tablestore_internal.move_abandon(tbl text, shard int, servers name[])
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	BEGIN
		CALL tablestore_internal.move_cleanup(tbl, shard, servers, false);
	EXCEPTION WHEN OTHERS OR query_canceled THEN
		RAISE WARNING 'tablestore: removing what the failed move left did not finish (%): call tablestore.move_shard_cleanup', SQLERRM;
	END;
	PERFORM tablestore_internal.move_lock(tbl, shard, false);
END $$;
REVOKE ALL ON PROCEDURE tablestore_internal.move_abandon(text, int, name[]) FROM PUBLIC;
COMMENT ON PROCEDURE tablestore_internal.move_abandon(text, int, name[]) IS
'A failed move''s end: what it left on the two nodes removed (move_cleanup, a warning if that fails) and the shard''s move lock released';

-- No SET clause: a procedure with one cannot commit, and this one commits between its steps.
CREATE PROCEDURE tablestore.move_shard(tbl text, shard int, to_server name, timeout interval DEFAULT '10 minutes')
LANGUAGE plpgsql AS $$
DECLARE
	p record;
	job text;
	version text;
	deadline timestamptz := pg_catalog.clock_timestamp() OPERATOR(pg_catalog.+) timeout;
	lsn text;
	switched bool := false;
	attempts int := 0;
	timed_out text := pg_catalog.format('the move of shard %s did not finish in %s', shard, timeout);
BEGIN
	SELECT * INTO STRICT p FROM tablestore_internal.shard_placement(tbl, shard);
	IF p.server OPERATOR(pg_catalog.=) to_server THEN
		RAISE EXCEPTION USING ERRCODE = 'TSX05',
			MESSAGE = pg_catalog.format('InvalidInput: shard %s of the table "%s" is on "%s" already', shard, p.key, to_server);
	END IF;
	SELECT e.extversion INTO STRICT version FROM pg_catalog.pg_extension e WHERE e.extname OPERATOR(pg_catalog.=) 'tablestore';
	job := pg_catalog.format('tablestore_move_%s_%s', pg_catalog.left(pg_catalog.md5(p.key), 12), shard);
	PERFORM tablestore_internal.move_lock(tbl, shard, true);

	-- 1. what an earlier move of the shard left, removed; a fenced, empty shard table on the
	--    target; the source publishes the shard and the target subscribes (logical replication
	--    applies rows without the stamp trigger, so every entity keeps its Timestamp and ETag)
	BEGIN
		IF NOT to_server OPERATOR(pg_catalog.=) ANY (ARRAY(SELECT tablestore_internal.shard_servers())) THEN
			RAISE EXCEPTION USING ERRCODE = 'TSX05', MESSAGE = pg_catalog.format('InvalidInput: the server "%s" is not a postgres_fdw server '
				'that ships tablestore and has a user mapping', to_server);
		END IF;
		CALL tablestore_internal.move_cleanup(tbl, shard, NULL, false);
		PERFORM tablestore_internal.node_ddl(to_server, pg_catalog.format('SELECT tablestore.create_shards(%L, %s, ARRAY[%s], %L); '
			'INSERT INTO tablestore_internal.shard_fences (shard_table, table_key, shard, state, move) VALUES (%L::regclass, %L, %s, ''filling'', %L)',
			p.name, p.shard_count, shard, version, p.shard_table, p.key, shard, job), deadline);
		PERFORM tablestore_internal.node_ddl(p.server, pg_catalog.format('CREATE PUBLICATION %I FOR TABLE %s', job, p.shard_table), deadline);
		PERFORM tablestore_internal.node_execute(to_server, pg_catalog.format('CREATE SUBSCRIPTION %I CONNECTION %L PUBLICATION %I '
			'WITH (synchronous_commit = on)', job, tablestore_internal.server_conninfo(p.server), job), false,
			GREATEST(1, (pg_catalog.date_part('epoch', deadline OPERATOR(pg_catalog.-) pg_catalog.clock_timestamp()) OPERATOR(pg_catalog.*) 1000)::int));
		-- the copy
		IF NOT tablestore_internal.node_wait(to_server, pg_catalog.format('SELECT pg_catalog.count(*) OPERATOR(pg_catalog.=) 0 '
			'FROM pg_catalog.pg_subscription_rel r JOIN pg_catalog.pg_subscription s ON s.oid OPERATOR(pg_catalog.=) r.srsubid '
			'WHERE s.subname OPERATOR(pg_catalog.=) %L AND r.srsubstate OPERATOR(pg_catalog.<>) ''r''', job),
			GREATEST(0, (pg_catalog.date_part('epoch', deadline OPERATOR(pg_catalog.-) pg_catalog.clock_timestamp()) OPERATOR(pg_catalog.*) 1000)::int)) THEN
			RAISE EXCEPTION USING ERRCODE = '57014', MESSAGE = timed_out;
		END IF;
	EXCEPTION WHEN OTHERS OR query_canceled THEN
		CALL tablestore_internal.move_abandon(tbl, shard, ARRAY[p.server, to_server]);
		IF SQLSTATE OPERATOR(pg_catalog.=) '57014' AND pg_catalog.clock_timestamp() OPERATOR(pg_catalog.>=) deadline THEN
			RAISE EXCEPTION USING ERRCODE = '57014', MESSAGE = timed_out;	-- a node's statement timeout: the move's
		END IF;
		RAISE;
	END;
	COMMIT;

	-- 2. the switch: the target catches up without a lock, then the last step under the
	--    coordinator's lock takes at most a second (move_switch); when the target is behind
	--    after it, the locks are released and the target catches up again
	LOOP
		BEGIN
			IF attempts OPERATOR(pg_catalog.>) 0 THEN
				PERFORM pg_catalog.pg_sleep(0.2);
			END IF;
			attempts := attempts OPERATOR(pg_catalog.+) 1;
			IF pg_catalog.clock_timestamp() OPERATOR(pg_catalog.>) deadline THEN
				RAISE EXCEPTION USING ERRCODE = '57014', MESSAGE = timed_out;
			END IF;
			lsn := tablestore_internal.node_execute(p.server, 'SELECT tablestore_internal.flushed_wal_lsn()', false);
			IF NOT tablestore_internal.node_wait(p.server, pg_catalog.format('SELECT COALESCE((SELECT pg_catalog.bool_or(replay_lsn OPERATOR(pg_catalog.>=) %L::pg_lsn) '
				'FROM pg_catalog.pg_stat_replication WHERE application_name OPERATOR(pg_catalog.=) %L AND state OPERATOR(pg_catalog.=) ''streaming''), false)', lsn, job),
				GREATEST(0, (pg_catalog.date_part('epoch', deadline OPERATOR(pg_catalog.-) pg_catalog.clock_timestamp()) OPERATOR(pg_catalog.*) 1000)::int)) THEN
				RAISE EXCEPTION USING ERRCODE = '57014', MESSAGE = timed_out;
			END IF;
			switched := tablestore_internal.move_switch(tbl, shard, p.server, to_server, job, 1000);
		EXCEPTION WHEN OTHERS OR query_canceled THEN
			CALL tablestore_internal.move_abandon(tbl, shard, ARRAY[p.server, to_server]);
			IF SQLSTATE OPERATOR(pg_catalog.=) '57014' AND pg_catalog.clock_timestamp() OPERATOR(pg_catalog.>=) deadline THEN
				RAISE EXCEPTION USING ERRCODE = '57014', MESSAGE = timed_out;
			END IF;
			RAISE;
		END;
		IF switched THEN
			COMMIT;
			EXIT;
		END IF;
		ROLLBACK;
	END LOOP;

	-- 3. the coordinator's map names the target: the target serves the shard; the source's copy,
	--    the subscription, the publication and the replication slot go (move_cleanup, by the map)
	BEGIN
		CALL tablestore_internal.move_cleanup(tbl, shard, ARRAY[p.server, to_server], true);
	EXCEPTION WHEN OTHERS OR query_canceled THEN
		PERFORM tablestore_internal.move_lock(tbl, shard, false);
		RAISE EXCEPTION USING ERRCODE = 'TSX05', MESSAGE = pg_catalog.format('InvalidInput: shard %s of the table "%s" moved to "%s", but removing what the move used failed: %s',
			shard, p.key, to_server, SQLERRM), HINT = pg_catalog.format('Call tablestore.move_shard_cleanup(%L, %s).', tbl, shard);
	END;
	PERFORM tablestore_internal.move_lock(tbl, shard, false);
END $$;
COMMENT ON PROCEDURE tablestore.move_shard(text, int, name, interval) IS
'Move a distributed table''s shard to another server online: logical replication, catch-up, a switch of at most a second under the coordinator''s lock, the source fenced, the partition re-pointed; a failure removes what it made';

CREATE PROCEDURE tablestore.move_shard_cleanup(tbl text, shard int)
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	PERFORM tablestore_internal.move_lock(tbl, shard, true);
	CALL tablestore_internal.move_cleanup(tbl, shard, NULL, true);
	PERFORM tablestore_internal.move_lock(tbl, shard, false);
EXCEPTION WHEN OTHERS OR query_canceled THEN
	PERFORM tablestore_internal.move_lock(tbl, shard, false);
	RAISE;
END $$;
COMMENT ON PROCEDURE tablestore.move_shard_cleanup(text, int) IS
'Remove what failed or interrupted moves of a shard left on the nodes (subscription, publication, replication slots, copies, fences), so that the nodes agree with the coordinator''s shard map; idempotent';

-- the distributed tables of this coordinator get the trigger that distribute_table now creates
DO $$
DECLARE
	r record;
BEGIN
	FOR r IN SELECT c.oid::regclass AS rel FROM pg_catalog.pg_class c
		WHERE c.relnamespace = 'tablestore_data'::regnamespace AND c.relkind = 'p'
		AND EXISTS (SELECT FROM pg_catalog.pg_inherits i JOIN pg_catalog.pg_class f ON f.oid = i.inhrelid
			WHERE i.inhparent = c.oid AND f.relkind = 'f')
		AND NOT EXISTS (SELECT FROM pg_catalog.pg_trigger t WHERE t.tgrelid = c.oid AND t.tgname = 'tablestore_one_writing_node')
	LOOP
		EXECUTE pg_catalog.format('CREATE TRIGGER tablestore_one_writing_node BEFORE INSERT OR UPDATE OR DELETE ON %s '
			'FOR EACH ROW EXECUTE FUNCTION tablestore.one_writing_node()', r.rel);
		EXECUTE pg_catalog.format('CREATE TRIGGER tablestore_one_writing_node_truncate BEFORE TRUNCATE ON %s '
			'FOR EACH STATEMENT EXECUTE FUNCTION tablestore.one_writing_node()', r.rel);
	END LOOP;
END $$;
-- A row's exact Timestamp and its If-Match rule (src/etag.c): the etag column holds the Timestamp in
-- 100 ns ticks, the "timestamp" column the same rounded down to the microsecond.
CREATE FUNCTION tablestore.timestamp_ticks("timestamp" timestamptz, etag text) RETURNS int8
AS 'MODULE_PATHNAME', 'tablestore_timestamp_ticks' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION tablestore.timestamp_ticks(timestamptz, text) IS
'A row''s exact Timestamp in .NET ticks (100 ns since 0001-01-01) from its "timestamp" and etag columns';

CREATE FUNCTION tablestore.etag_matches(etag text, if_match text) RETURNS bool
AS 'MODULE_PATHNAME', 'tablestore_etag_matches' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION tablestore.etag_matches(text, text) IS
'Does an If-Match ETag match a row''s stored etag (the same text, a colon written :, %3A or %3a alike, or the service form of an ETag stored before 0.3.0)';

--------------------------------------------------------------------------------------------------
-- Automatic indexing (issue 26). Tables created before 0.3.0 keep indexing nothing (policy "none":
-- building their indexes here would block their writes for the length of the update); each is
-- indexed online by tablestore.set_indexing_policy(name, '{"indexingMode":"consistent"}').
--------------------------------------------------------------------------------------------------

ALTER TABLE tablestore.tables ADD COLUMN indexing_policy jsonb;
UPDATE tablestore.tables SET indexing_policy = '{"indexingMode":"none","automatic":false,"includedPaths":[],"excludedPaths":[]}';
ALTER TABLE tablestore.tables ALTER COLUMN indexing_policy SET DEFAULT '{"indexingMode":"consistent","automatic":true,"includedPaths":[{"path":"/*"}],"excludedPaths":[]}',
	ALTER COLUMN indexing_policy SET NOT NULL;

DROP FUNCTION tablestore.create_table(text);
CREATE FUNCTION tablestore.create_table(name text, indexing_policy jsonb DEFAULT NULL) RETURNS regclass
AS 'MODULE_PATHNAME', 'tablestore_create_table' LANGUAGE C VOLATILE SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION tablestore.create_table(text, jsonb) IS
'Create a table (name: a letter then 2-62 letters or digits, unique ignoring case, not "tables") with an indexing policy (NULL: every property indexed)';

DROP FUNCTION tablestore.rest_create_table(text, text, text, text);
CREATE FUNCTION tablestore.rest_create_table(body text, metadata text DEFAULT NULL, base text DEFAULT NULL,
	account text DEFAULT NULL, indexing_policy text DEFAULT NULL, OUT table_name text, OUT body text)
AS 'MODULE_PATHNAME', 'tablestore_rest_create_table' LANGUAGE C VOLATILE SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION tablestore.rest_create_table(text, text, text, text, text) IS
'REST Create Table: the request body {"TableName": ...} and an indexing policy (JSON text, NULL: the default); the created name and the answer''s body at the metadata level';

--------------------------------------------------------------------------------------------------
-- Automatic indexing: every property of every entity in one index per table, under the table's
-- indexing policy (doc/sql-reference.md, "Indexing")
--------------------------------------------------------------------------------------------------

-- ANALYZE of entity columns: statistics over the entity index's keys, for the planner's estimates.
CREATE FUNCTION tablestore.entity_typanalyze(internal) RETURNS bool
AS 'MODULE_PATHNAME', 'tablestore_entity_typanalyze' LANGUAGE C STRICT;
ALTER TYPE tablestore.entity SET (ANALYZE = tablestore.entity_typanalyze);

-- One comparison of a custom property with a literal ("Age gt 30"): what the entity index serves.
CREATE TYPE tablestore.property_filter;

CREATE FUNCTION tablestore.property_filter_in(cstring) RETURNS tablestore.property_filter
AS 'MODULE_PATHNAME', 'tablestore_property_filter_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION tablestore.property_filter_out(tablestore.property_filter) RETURNS cstring
AS 'MODULE_PATHNAME', 'tablestore_property_filter_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION tablestore.property_filter_recv(internal) RETURNS tablestore.property_filter
AS 'MODULE_PATHNAME', 'tablestore_property_filter_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION tablestore.property_filter_send(tablestore.property_filter) RETURNS bytea
AS 'MODULE_PATHNAME', 'tablestore_property_filter_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE tablestore.property_filter (
	INPUT = tablestore.property_filter_in,
	OUTPUT = tablestore.property_filter_out,
	RECEIVE = tablestore.property_filter_recv,
	SEND = tablestore.property_filter_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = int4,
	STORAGE = extended
);

CREATE FUNCTION tablestore.entity_matches(tablestore.entity, tablestore.property_filter) RETURNS bool
AS 'MODULE_PATHNAME', 'tablestore_entity_matches' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION tablestore.entity_filter_sel(internal, oid, internal, int4) RETURNS float8
AS 'MODULE_PATHNAME', 'tablestore_entity_filter_sel' LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE OPERATOR tablestore.@~ (
	LEFTARG = tablestore.entity, RIGHTARG = tablestore.property_filter, FUNCTION = tablestore.entity_matches,
	RESTRICT = tablestore.entity_filter_sel, JOIN = contjoinsel
);

-- The entity index: GIN, one key per property (name, type, order-preserving value).
CREATE FUNCTION tablestore.entity_gin_extract_value(tablestore.entity, internal, internal) RETURNS internal
AS 'MODULE_PATHNAME', 'tablestore_entity_gin_extract_value' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION tablestore.entity_gin_extract_query(tablestore.property_filter, internal, int2, internal, internal, internal, internal)
RETURNS internal AS 'MODULE_PATHNAME', 'tablestore_entity_gin_extract_query' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION tablestore.entity_gin_consistent(internal, int2, tablestore.property_filter, int4, internal, internal, internal, internal)
RETURNS bool AS 'MODULE_PATHNAME', 'tablestore_entity_gin_consistent' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION tablestore.entity_gin_triconsistent(internal, int2, tablestore.property_filter, int4, internal, internal, internal)
RETURNS "char" AS 'MODULE_PATHNAME', 'tablestore_entity_gin_triconsistent' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION tablestore.entity_gin_compare_partial(bytea, bytea, int2, internal) RETURNS int4
AS 'MODULE_PATHNAME', 'tablestore_entity_gin_compare_partial' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION tablestore.entity_gin_options(internal) RETURNS void
AS 'MODULE_PATHNAME', 'tablestore_entity_gin_options' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OPERATOR CLASS tablestore.entity_gin_ops DEFAULT FOR TYPE tablestore.entity USING gin AS
	OPERATOR 1 tablestore.@~ (tablestore.entity, tablestore.property_filter),
	FUNCTION 1 pg_catalog.byteacmp(bytea, bytea),
	FUNCTION 2 tablestore.entity_gin_extract_value(tablestore.entity, internal, internal),
	FUNCTION 3 tablestore.entity_gin_extract_query(tablestore.property_filter, internal, int2, internal, internal, internal, internal),
	FUNCTION 4 tablestore.entity_gin_consistent(internal, int2, tablestore.property_filter, int4, internal, internal, internal, internal),
	FUNCTION 5 tablestore.entity_gin_compare_partial(bytea, bytea, int2, internal),
	FUNCTION 6 tablestore.entity_gin_triconsistent(internal, int2, tablestore.property_filter, int4, internal, internal, internal),
	FUNCTION 7 tablestore.entity_gin_options(internal),
	STORAGE bytea;

-- A table's policy (Cosmos DB's shape), recorded in the registry and applied online.
CREATE FUNCTION tablestore.set_indexing_policy(tbl text, policy jsonb) RETURNS jsonb
AS 'MODULE_PATHNAME', 'tablestore_set_indexing_policy' LANGUAGE C VOLATILE SET search_path = pg_catalog, pg_temp;
CREATE FUNCTION tablestore.rest_set_indexing_policy(tbl text, policy text) RETURNS jsonb
AS 'MODULE_PATHNAME', 'tablestore_rest_set_indexing_policy' LANGUAGE C VOLATILE SET search_path = pg_catalog, pg_temp;
CREATE FUNCTION tablestore.get_indexing_policy(tbl text) RETURNS jsonb
AS 'MODULE_PATHNAME', 'tablestore_get_indexing_policy' LANGUAGE C STABLE SET search_path = pg_catalog, pg_temp;
CREATE FUNCTION tablestore.indexing_progress(tbl text) RETURNS int
AS 'MODULE_PATHNAME', 'tablestore_indexing_progress' LANGUAGE C VOLATILE SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION tablestore.entity_typanalyze(internal) IS 'ANALYZE of entity columns: the most common index keys and a histogram of the others';
COMMENT ON TYPE tablestore.property_filter IS 'One comparison of a custom property with a typed literal, as in $filter: Age gt 30, Name eq ''Ken'', Big le 5L';
COMMENT ON FUNCTION tablestore.property_filter_in(cstring) IS 'Input of tablestore.property_filter (an OData comparison)';
COMMENT ON FUNCTION tablestore.property_filter_out(tablestore.property_filter) IS 'Output of tablestore.property_filter (an OData comparison)';
COMMENT ON FUNCTION tablestore.property_filter_recv(internal) IS 'Binary input of tablestore.property_filter';
COMMENT ON FUNCTION tablestore.property_filter_send(tablestore.property_filter) IS 'Binary output of tablestore.property_filter';
COMMENT ON FUNCTION tablestore.entity_matches(tablestore.entity, tablestore.property_filter) IS 'Operator @~: the comparison''s truth for the entity (typed, as $filter; false when the property is absent)';
COMMENT ON FUNCTION tablestore.entity_filter_sel(internal, oid, internal, int4) IS 'Selectivity of @~ from the entity column''s statistics';
COMMENT ON OPERATOR tablestore.@~ (tablestore.entity, tablestore.property_filter) IS 'Does the entity satisfy the property filter (served by the entity index)';
COMMENT ON FUNCTION tablestore.entity_gin_extract_value(tablestore.entity, internal, internal) IS 'Entity index support: the key of every property the policy includes';
COMMENT ON FUNCTION tablestore.entity_gin_extract_query(tablestore.property_filter, internal, int2, internal, internal, internal, internal) IS 'Entity index support: the key ranges a comparison reads';
COMMENT ON FUNCTION tablestore.entity_gin_consistent(internal, int2, tablestore.property_filter, int4, internal, internal, internal, internal) IS 'Entity index support: a row matches when a key of one of its ranges is there';
COMMENT ON FUNCTION tablestore.entity_gin_triconsistent(internal, int2, tablestore.property_filter, int4, internal, internal, internal) IS 'Entity index support: three-valued consistent';
COMMENT ON FUNCTION tablestore.entity_gin_compare_partial(bytea, bytea, int2, internal) IS 'Entity index support: a key against a comparison''s range';
COMMENT ON FUNCTION tablestore.entity_gin_options(internal) IS 'Entity index support: the options included and excluded (the indexing policy)';
COMMENT ON OPERATOR FAMILY tablestore.entity_gin_ops USING gin IS 'The entity index: a key per property, serving @~';
COMMENT ON OPERATOR CLASS tablestore.entity_gin_ops USING gin IS 'The entity index: a key per property, serving @~';
COMMENT ON FUNCTION tablestore.set_indexing_policy(text, jsonb) IS
'Set a table''s indexing policy ({"indexingMode":"consistent"|"none","includedPaths":[...],"excludedPaths":[...]}); applied online after commit';
COMMENT ON FUNCTION tablestore.rest_set_indexing_policy(text, text) IS
'REST: set a table''s indexing policy from its JSON text, read strictly (a member given twice is InvalidInput); as set_indexing_policy';
COMMENT ON FUNCTION tablestore.get_indexing_policy(text) IS 'A table''s indexing policy, in its normal form';
COMMENT ON FUNCTION tablestore.indexing_progress(text) IS 'How far a table''s entity index is from its policy: 100 when applied';

-- Waiting for a policy change to be applied (it commits between its looks: call it outside a
-- transaction block). No SET clause: a procedure with one cannot commit.
CREATE PROCEDURE tablestore.wait_for_indexing(tbl text, timeout interval DEFAULT '10 minutes')
LANGUAGE plpgsql AS $$
DECLARE
	deadline timestamptz := pg_catalog.clock_timestamp() OPERATOR(pg_catalog.+) timeout;
BEGIN
	LOOP
		COMMIT;
		EXIT WHEN tablestore.indexing_progress(tbl) OPERATOR(pg_catalog.=) 100;
		IF pg_catalog.clock_timestamp() OPERATOR(pg_catalog.>) deadline THEN
			RAISE EXCEPTION USING ERRCODE = '57014',
				MESSAGE = pg_catalog.format('the indexing policy of the table "%s" is not applied after %s (see the server log)', tbl, timeout);
		END IF;
		PERFORM pg_catalog.pg_sleep(0.05);
	END LOOP;
END $$;
COMMENT ON PROCEDURE tablestore.wait_for_indexing(text, interval) IS
'Wait until a table''s indexing policy is applied (indexing_progress 100); call it outside a transaction block';
