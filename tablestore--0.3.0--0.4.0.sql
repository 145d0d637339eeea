-- tablestore upgrade script from 0.3.0 to 0.4.0. Every change made to tablestore.sql since 0.3.0
-- is made here too; the regression test sql/extension.sql checks that each release plus the
-- upgrade scripts gives the same objects as a fresh install.

\echo Use "ALTER EXTENSION tablestore UPDATE TO '0.4.0'" to load this file. \quit

-- Entity equality ignores the order properties were written in (order is presentation): =, the
-- B-tree order and the hashes now read each entity's name-order bytes. An entity stored by 0.3.0
-- out of name order (its order array) compares and hashes differently from before, so every index
-- built on those operator classes is built again; a unique index over entities equal but for
-- their order fails here, as it should, naming the index.
COMMENT ON FUNCTION tablestore.entity_eq(tablestore.entity, tablestore.entity) IS 'Equality: the same keys, properties and values, whatever order the properties were written in';
COMMENT ON FUNCTION tablestore.entity_ne(tablestore.entity, tablestore.entity) IS 'Inequality: another key, property or value (the order written does not count)';
COMMENT ON FUNCTION tablestore.entity_lt(tablestore.entity, tablestore.entity) IS 'Order of the name-order bytes (the order written left out; a total order, not a meaning)';
COMMENT ON FUNCTION tablestore.entity_le(tablestore.entity, tablestore.entity) IS 'Order of the name-order bytes (the order written left out; a total order, not a meaning)';
COMMENT ON FUNCTION tablestore.entity_gt(tablestore.entity, tablestore.entity) IS 'Order of the name-order bytes (the order written left out; a total order, not a meaning)';
COMMENT ON FUNCTION tablestore.entity_ge(tablestore.entity, tablestore.entity) IS 'Order of the name-order bytes (the order written left out; a total order, not a meaning)';
COMMENT ON FUNCTION tablestore.entity_cmp(tablestore.entity, tablestore.entity) IS 'B-tree support: -1, 0 or 1 by the name-order bytes (the order written left out)';
COMMENT ON FUNCTION tablestore.entity_hash(tablestore.entity) IS 'Hash support: xxHash3 of the name-order bytes (equal entities hash equally, whatever order they were written in)';
COMMENT ON FUNCTION tablestore.entity_hash_extended(tablestore.entity, int8) IS 'Hash support with a seed: xxHash3 of the name-order bytes';
COMMENT ON OPERATOR tablestore.= (tablestore.entity, tablestore.entity) IS 'Equal entities (the same keys, properties and values; the order written does not count)';
COMMENT ON OPERATOR tablestore.< (tablestore.entity, tablestore.entity) IS 'Before, in the order of the name-order bytes';
COMMENT ON OPERATOR tablestore.<= (tablestore.entity, tablestore.entity) IS 'Before or equal, in the order of the name-order bytes';
COMMENT ON OPERATOR tablestore.> (tablestore.entity, tablestore.entity) IS 'After, in the order of the name-order bytes';
COMMENT ON OPERATOR tablestore.>= (tablestore.entity, tablestore.entity) IS 'After or equal, in the order of the name-order bytes';
COMMENT ON OPERATOR FAMILY tablestore.entity_ops USING btree IS 'B-tree order of entities (name-order bytes: the order written left out)';
COMMENT ON OPERATOR FAMILY tablestore.entity_hash_ops USING hash IS 'Hashing of entities (name-order bytes: the order written left out)';
DO $$
DECLARE
	idx regclass;
BEGIN
	FOR idx IN
		SELECT DISTINCT i.indexrelid::regclass
		FROM pg_catalog.pg_index i, pg_catalog.unnest(i.indclass) c(opc), pg_catalog.pg_opclass o
		WHERE o.oid = c.opc AND o.opcname IN ('entity_ops', 'entity_hash_ops')
		  AND o.opcnamespace = 'tablestore'::regnamespace
	LOOP
		EXECUTE pg_catalog.format('REINDEX INDEX %s', idx);
	END LOOP;
END $$;

-- Index builds (issue 31): a durable queue, attempts and errors kept, relaunched when work is pending
-- The durable queue of index builds (src/index_queue.c, index_worker.c): a row per table whose
-- indexing policy is not applied yet. set_indexing_policy writes it in its transaction; the index
-- workers count their attempts in it, keep the last error, and remove it once applied.
CREATE TABLE tablestore_internal.index_queue (
	table_key text COLLATE "C" NOT NULL PRIMARY KEY,	-- the relation tablestore_data.<key>
	request int8 NOT NULL DEFAULT 1,					-- grows with every change: a worker removes only what it applied
	requested timestamptz NOT NULL DEFAULT pg_catalog.now(),
	attempts int NOT NULL DEFAULT 0,					-- of the latest change
	last_attempt timestamptz,
	next_attempt timestamptz NOT NULL DEFAULT '-infinity',
	last_error text,
	failed bool NOT NULL DEFAULT false					-- attempts exhausted: left until the next change
);
COMMENT ON TABLE tablestore_internal.index_queue IS
'The indexing policy changes not applied yet, one row per table: what the index workers work off (tablestore.index_builds shows it)';

-- What the queue holds, readable by everyone: a table is running while a worker holds its
-- advisory lock (kind 3, number: the relation, 4th field 21587 = 0x5453; src/index_worker.c).
CREATE VIEW tablestore.index_builds AS
SELECT coalesce(r.name, q.table_key) AS table_name,
	   CASE WHEN q.failed THEN 'failed'
			WHEN EXISTS (SELECT 1 FROM pg_catalog.pg_locks l
						 WHERE l.locktype OPERATOR(pg_catalog.=) 'advisory' AND l.granted
						   AND l.database OPERATOR(pg_catalog.=) (SELECT d.oid FROM pg_catalog.pg_database d WHERE d.datname OPERATOR(pg_catalog.=) pg_catalog.current_database())
						   AND l.classid OPERATOR(pg_catalog.=) 3::oid AND l.objid OPERATOR(pg_catalog.=) c.oid AND l.objsubid OPERATOR(pg_catalog.=) 21587) THEN 'running'
			WHEN q.next_attempt OPERATOR(pg_catalog.>) pg_catalog.now() THEN 'waiting'
			ELSE 'queued' END AS state,
	   q.attempts, q.last_error, q.requested, q.last_attempt,
	   CASE WHEN NOT q.failed AND q.next_attempt OPERATOR(pg_catalog.>) pg_catalog.now() THEN q.next_attempt END AS next_attempt
FROM tablestore_internal.index_queue q
LEFT JOIN tablestore.tables r ON r.key OPERATOR(pg_catalog.=) q.table_key
LEFT JOIN pg_catalog.pg_class c ON c.relname OPERATOR(pg_catalog.=) q.table_key
	AND c.relnamespace OPERATOR(pg_catalog.=) 'tablestore_data'::regnamespace;
COMMENT ON VIEW tablestore.index_builds IS
'The indexing policy changes not applied yet: state (queued, running, waiting for its retry, failed), attempts, the last error';
GRANT SELECT ON tablestore.index_builds TO PUBLIC;

-- Waiting for a policy change to be applied (it commits between its looks: call it outside a
-- transaction block). No SET clause: a procedure with one cannot commit.
CREATE OR REPLACE PROCEDURE tablestore.wait_for_indexing(tbl text, timeout interval DEFAULT '10 minutes')
LANGUAGE plpgsql AS $$
DECLARE
	deadline timestamptz := pg_catalog.clock_timestamp() OPERATOR(pg_catalog.+) timeout;
	failure text;
BEGIN
	LOOP
		COMMIT;
		EXIT WHEN tablestore.indexing_progress(tbl) OPERATOR(pg_catalog.=) 100;
		-- a change whose attempts are exhausted is not retried: say why at once
		SELECT b.last_error INTO failure FROM tablestore.index_builds b
		WHERE b.state OPERATOR(pg_catalog.=) 'failed' AND pg_catalog.lower(b.table_name) OPERATOR(pg_catalog.=) pg_catalog.lower(tbl);
		IF FOUND THEN
			RAISE EXCEPTION USING ERRCODE = 'TSI02',
				MESSAGE = pg_catalog.format('ServerBusy: the indexing policy of the table "%s" could not be applied: %s', tbl, failure),
				HINT = 'tablestore.index_builds shows its attempts; set the policy again to retry.';
		END IF;
		IF pg_catalog.clock_timestamp() OPERATOR(pg_catalog.>) deadline THEN
			RAISE EXCEPTION USING ERRCODE = '57014',
				MESSAGE = pg_catalog.format('the indexing policy of the table "%s" is not applied after %s (see tablestore.index_builds and the server log)', tbl, timeout);
		END IF;
		PERFORM pg_catalog.pg_sleep(0.05);
	END LOOP;
END $$;
COMMENT ON PROCEDURE tablestore.wait_for_indexing(text, interval) IS
'Wait until a table''s indexing policy is applied (indexing_progress 100); call it outside a transaction block';

-- a gateway connected as the database's owner (not a superuser) claims it: the function checks
-- that its session's role is a member of that owner, whoever may call it
GRANT EXECUTE ON FUNCTION tablestore.claim_account(text) TO PUBLIC;


-- A build pending at the update (its 0.3.0 worker died, or still runs) is queued, and a worker
-- launched: indexing_progress queues a table whose policy is not applied. Not on a coordinator's
-- distributed table (its partitions are foreign tables: its nodes hold the index).
SELECT pg_catalog.count(tablestore.indexing_progress(r.name)) FROM tablestore.tables r
JOIN pg_catalog.pg_class c ON c.relname OPERATOR(pg_catalog.=) r.key AND c.relnamespace OPERATOR(pg_catalog.=) 'tablestore_data'::regnamespace
WHERE NOT EXISTS (SELECT 1 FROM pg_catalog.pg_inherits i JOIN pg_catalog.pg_class p ON p.oid OPERATOR(pg_catalog.=) i.inhrelid
				  WHERE i.inhparent OPERATOR(pg_catalog.=) c.oid AND p.relkind OPERATOR(pg_catalog.=) 'f');

-- tablestore-copy --keep-timestamps (issue 33)
CREATE FUNCTION tablestore.import_timestamps(tbl text) RETURNS void
AS 'MODULE_PATHNAME', 'tablestore_import_timestamps' LANGUAGE C VOLATILE STRICT;

COMMENT ON FUNCTION tablestore.import_timestamps(text) IS
'For the rest of the transaction, rows inserted into the table with an ETag in their etag column keep the Timestamp it carries (an import keeping the source''s ETags, tablestore-copy --keep-timestamps); the table''s owner only';
