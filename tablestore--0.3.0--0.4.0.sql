-- tablestore upgrade script from 0.3.0 to 0.4.0. Every change made to tablestore.sql since 0.3.0
-- is made here too; the regression test sql/extension.sql checks that each release plus the
-- upgrade scripts gives the same objects as a fresh install.

\echo Use "ALTER EXTENSION tablestore UPDATE TO '0.4.0'" to load this file. \quit

-- Entity equality ignores the order properties were written in (order is presentation): =, the
-- B-tree order and the hashes now read each entity's name-order bytes. An entity stored by 0.3.0
-- out of name order (its order array) compares and hashes differently from before, so what was
-- ordered or hashed by them is rebuilt below (indexes, partitioned tables' rows); a unique index
-- over entities equal but for their order fails here, as it should, naming the index. How long
-- the update takes is how long those rebuilds take (CHANGELOG, doc/sql-reference.md "Upgrading").
--
-- The library keeps 0.3.0's comparison and hashes under the symbols 0.3.0's SQL names (so a
-- database not updated yet keeps finding its rows under the new library); 0.4.0's are the
-- *_unordered symbols. CREATE OR REPLACE keeps each function's OID: the operators, the operator
-- classes and everything built on them follow.
CREATE OR REPLACE FUNCTION tablestore.entity_eq(tablestore.entity, tablestore.entity) RETURNS bool
AS 'MODULE_PATHNAME', 'tablestore_entity_eq_unordered' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION tablestore.entity_ne(tablestore.entity, tablestore.entity) RETURNS bool
AS 'MODULE_PATHNAME', 'tablestore_entity_ne_unordered' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION tablestore.entity_lt(tablestore.entity, tablestore.entity) RETURNS bool
AS 'MODULE_PATHNAME', 'tablestore_entity_lt_unordered' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION tablestore.entity_le(tablestore.entity, tablestore.entity) RETURNS bool
AS 'MODULE_PATHNAME', 'tablestore_entity_le_unordered' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION tablestore.entity_gt(tablestore.entity, tablestore.entity) RETURNS bool
AS 'MODULE_PATHNAME', 'tablestore_entity_gt_unordered' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION tablestore.entity_ge(tablestore.entity, tablestore.entity) RETURNS bool
AS 'MODULE_PATHNAME', 'tablestore_entity_ge_unordered' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION tablestore.entity_cmp(tablestore.entity, tablestore.entity) RETURNS int4
AS 'MODULE_PATHNAME', 'tablestore_entity_cmp_unordered' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION tablestore.entity_hash(tablestore.entity) RETURNS int4
AS 'MODULE_PATHNAME', 'tablestore_entity_hash_unordered' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OR REPLACE FUNCTION tablestore.entity_hash_extended(tablestore.entity, int8) RETURNS int8
AS 'MODULE_PATHNAME', 'tablestore_entity_hash_extended_unordered' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
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

-- Rebuilding what 0.3.0's comparison ordered or hashed (the functions above now compare and hash
-- the 0.4.0 way). Not only the indexes of entity_ops and entity_hash_ops: an index over ARRAY[e],
-- an entity[] column, a composite type or a domain holding an entity, or an expression or
-- predicate calling entity_hash or =, orders or hashes by them too; so does a table partitioned
-- by an entity, whose rows sit where 0.3.0's hash or order put them. The GIN entity index
-- (entity_gin_ops) keys each property and stores no entity order: it is left as it is, as are the
-- indexes of tablestore's own tables (keys, filter keys). The helpers below are dropped at the end.

-- The types whose values compare or hash through the entity's functions: entity, and every array,
-- domain, composite (a table's row type too), range and multirange type holding one.
CREATE FUNCTION tablestore_internal.upgrade_entity_types() RETURNS oid[]
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $f$
	WITH RECURSIVE holds(outer_type, inner_type) AS (		-- a value of outer_type holds one of inner_type
		SELECT d.oid, d.typelem FROM pg_type d WHERE d.typsubscript = 'array_subscript_handler'::regproc
		UNION ALL SELECT d.oid, d.typbasetype FROM pg_type d WHERE d.typtype = 'd'
		UNION ALL SELECT d.oid, a.atttypid FROM pg_type d JOIN pg_attribute a ON a.attrelid = d.typrelid
			WHERE d.typrelid <> 0 AND a.attnum > 0 AND NOT a.attisdropped
		UNION ALL SELECT r.rngtypid, r.rngsubtype FROM pg_range r
		UNION ALL SELECT r.rngmultitypid, r.rngsubtype FROM pg_range r
	), t(oid) AS (
		SELECT 'tablestore.entity'::regtype::oid
		UNION
		SELECT h.outer_type FROM holds h JOIN t ON h.inner_type = t.oid
	)
	SELECT array_agg(oid) FROM t
$f$;

-- The leaf indexes and partitioned tables that order or hash by the entity comparison: their key
-- columns (an index's attribute types, a partition key's columns) hold an entity; or their
-- operator classes are the entity's (a domain's column, a binary-compatible type); or their
-- expressions or predicate call one of the entity's comparison and hash functions (directly or
-- through an operator), or - reading a column that holds an entity - a function that may compare
-- what it is given: one of pg_catalog's taking a polymorphic or record argument (array_eq,
-- hash_array, record_eq, ...), or any function neither pg_catalog's nor tablestore's (its body is
-- not looked into). Set-based: a database of many tables is read once.
CREATE FUNCTION tablestore_internal.upgrade_entity_dependents() RETURNS TABLE (rel oid)
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $f$
	WITH types(oid) AS (
		SELECT unnest(tablestore_internal.upgrade_entity_types())
	), fns(oid) AS (
		SELECT f::regprocedure::oid FROM unnest(ARRAY[
			'tablestore.entity_eq(tablestore.entity,tablestore.entity)', 'tablestore.entity_ne(tablestore.entity,tablestore.entity)',
			'tablestore.entity_lt(tablestore.entity,tablestore.entity)', 'tablestore.entity_le(tablestore.entity,tablestore.entity)',
			'tablestore.entity_gt(tablestore.entity,tablestore.entity)', 'tablestore.entity_ge(tablestore.entity,tablestore.entity)',
			'tablestore.entity_cmp(tablestore.entity,tablestore.entity)', 'tablestore.entity_hash(tablestore.entity)',
			'tablestore.entity_hash_extended(tablestore.entity,bigint)']) f
	), families(oid) AS (
		SELECT f.oid FROM pg_opfamily f
		WHERE f.opfnamespace = 'tablestore'::regnamespace AND f.opfname IN ('entity_ops', 'entity_hash_ops')
	), members(oid) AS (
		SELECT m.objid FROM pg_depend m JOIN pg_extension x ON x.oid = m.refobjid AND x.extname = 'tablestore'
		WHERE m.classid = 'pg_proc'::regclass AND m.refclassid = 'pg_extension'::regclass AND m.deptype = 'e'
	), calls(rel, fn) AS (
		SELECT d.objid, CASE WHEN d.refclassid = 'pg_proc'::regclass THEN d.refobjid ELSE o.oprcode::oid END
		FROM pg_depend d LEFT JOIN pg_operator o ON d.refclassid = 'pg_operator'::regclass AND o.oid = d.refobjid
		WHERE d.classid = 'pg_class'::regclass AND d.refclassid IN ('pg_proc'::regclass, 'pg_operator'::regclass)
	), reads_entity(rel) AS (
		SELECT c.objid FROM pg_depend c
		JOIN pg_attribute a ON a.attrelid = c.refobjid AND a.attnum = c.refobjsubid
		JOIN types t ON t.oid = a.atttypid
		WHERE c.classid = 'pg_class'::regclass AND c.refclassid = 'pg_class'::regclass AND c.refobjsubid > 0
	)
	SELECT i.indexrelid FROM pg_index i
	JOIN pg_attribute a ON a.attrelid = i.indexrelid AND a.attnum <= i.indnkeyatts JOIN types t ON t.oid = a.atttypid
	UNION
	SELECT k.partrelid FROM pg_partitioned_table k CROSS JOIN LATERAL unnest(k.partattrs::int2[]) c(attnum)
	JOIN pg_attribute a ON a.attrelid = k.partrelid AND a.attnum = c.attnum JOIN types t ON t.oid = a.atttypid
	UNION
	SELECT i.indexrelid FROM pg_index i CROSS JOIN LATERAL unnest(i.indclass::oid[]) c(opc)
	JOIN pg_opclass o ON o.oid = c.opc JOIN families f ON f.oid = o.opcfamily
	UNION
	SELECT k.partrelid FROM pg_partitioned_table k CROSS JOIN LATERAL unnest(k.partclass::oid[]) c(opc)
	JOIN pg_opclass o ON o.oid = c.opc JOIN families f ON f.oid = o.opcfamily
	UNION
	SELECT c.rel FROM calls c JOIN fns f ON f.oid = c.fn
	UNION
	SELECT c.rel FROM calls c JOIN pg_proc p ON p.oid = c.fn JOIN reads_entity r ON r.rel = c.rel
	WHERE (p.pronamespace <> 'pg_catalog'::regnamespace AND p.oid NOT IN (SELECT oid FROM members))
	   OR EXISTS (SELECT 1 FROM unnest(p.proargtypes::oid[]) g(t) JOIN pg_type y ON y.oid = g.t WHERE y.typtype = 'p')
$f$;

-- 1. This session's caches. PostgreSQL keeps, per session, the comparison and hash functions it
-- has looked up for a type (arrays, records and domains compare their elements through them), by
-- OID: a session that compared such values before this update would keep 0.3.0's functions, and
-- rebuild the indexes below with them. Refused, with the way out; checked on 0.4.0's answers.
DO $$
DECLARE
	a constant text := '{"B":1,"A":1}';
	b constant text := '{"A":1,"B":1}';
	t regtype;
	same bool;
BEGIN
	FOR t IN SELECT y.oid::regtype FROM pg_catalog.unnest(tablestore_internal.upgrade_entity_types()) u(oid)
			 JOIN pg_catalog.pg_type y ON y.oid = u.oid
			 WHERE y.oid = 'tablestore.entity'::regtype OR y.typtype = 'd' LOOP
		BEGIN
			EXECUTE pg_catalog.format('SELECT ARRAY[%1$L::%3$s] = ARRAY[%2$L::%3$s]
					AND pg_catalog.btarraycmp(ARRAY[%1$L::%3$s], ARRAY[%2$L::%3$s]) = 0
					AND pg_catalog.hash_array(ARRAY[%1$L::%3$s]) = pg_catalog.hash_array(ARRAY[%2$L::%3$s])
					AND pg_catalog.hash_array_extended(ARRAY[%1$L::%3$s], 1) = pg_catalog.hash_array_extended(ARRAY[%2$L::%3$s], 1)',
				a, b, t) INTO same;
		EXCEPTION WHEN check_violation OR not_null_violation THEN
			same := true;	-- a domain refusing these values: nothing cached for it here
		END;
		IF NOT same THEN
			RAISE EXCEPTION 'this session compared values of type % before updating tablestore, and keeps 0.3.0''s comparison for them', t
				USING ERRCODE = 'object_not_in_prerequisite_state',
					  HINT = 'Run ALTER EXTENSION tablestore UPDATE in a new session.';
		END IF;
	END LOOP;
END $$;

-- 2. Tables partitioned by range or list on an entity: their partitions' bounds must still be in
-- order and apart under 0.4.0's comparison (two bounds 0.3.0 told apart by their order alone are
-- now equal, and bounds may change places). PostgreSQL checks that when a partition is made: each
-- table's bounds are given to a scratch table with the same partition key.
DO $$
DECLARE
	p record;
	c record;
	n int;
	msg text;
BEGIN
	FOR p IN SELECT k.partrelid::regclass AS rel FROM pg_catalog.pg_partitioned_table k JOIN pg_catalog.pg_class r ON r.oid = k.partrelid
			 WHERE k.partstrat IN ('r', 'l') AND (r.relpersistence <> 't' OR r.relnamespace = pg_catalog.pg_my_temp_schema())
			   AND k.partrelid IN (SELECT d.rel FROM tablestore_internal.upgrade_entity_dependents() d) LOOP
		EXECUTE pg_catalog.format('CREATE TEMP TABLE tablestore_bounds (LIKE %s) PARTITION BY %s', p.rel, pg_catalog.pg_get_partkeydef(p.rel));
		n := 0;
		BEGIN
			FOR c IN SELECT r.oid::regclass AS rel, pg_catalog.pg_get_expr(r.relpartbound, r.oid) AS bound
					 FROM pg_catalog.pg_inherits i JOIN pg_catalog.pg_class r ON r.oid = i.inhrelid
					 WHERE i.inhparent = p.rel ORDER BY r.oid LOOP
				n := n + 1;
				EXECUTE pg_catalog.format('CREATE TEMP TABLE tablestore_bound_%s PARTITION OF tablestore_bounds %s', n, c.bound);
			END LOOP;
		EXCEPTION WHEN invalid_object_definition THEN
			GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT;
			RAISE EXCEPTION 'the partitions of table % are not apart under tablestore 0.4.0''s comparison of entities (at partition %, %)',
				p.rel, c.rel, c.bound
				USING ERRCODE = 'invalid_object_definition',
					  DETAIL = pg_catalog.format('0.4.0 compares entities whatever order their properties were written in; PostgreSQL says: %s', msg),
					  HINT = 'Detach the partitions whose bounds differ only in their properties'' order or overlap (ALTER TABLE ... DETACH PARTITION), update, then attach them again with bounds apart or move their rows.';
		END;
		DROP TABLE tablestore_bounds;
	END LOOP;
END $$;

-- 3. The indexes, each leaf index on its own (a partitioned index has no storage, and REINDEX of
-- one cannot run in a transaction block); another session's temporary tables cannot be reached:
-- they keep 0.3.0's order until that session ends, and are named in a warning.
DO $$
DECLARE
	idx regclass;
	cur regclass;
	other bool;
	skipped text[] := '{}';
	n int := 0;
	msg text;
	det text;
BEGIN
	BEGIN
		FOR idx, other IN
			SELECT c.oid::regclass, c.relpersistence = 't' AND c.relnamespace IS DISTINCT FROM pg_catalog.pg_my_temp_schema()
			FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class c ON c.oid = i.indexrelid
			WHERE c.relkind = 'i' AND i.indislive AND c.oid IN (SELECT d.rel FROM tablestore_internal.upgrade_entity_dependents() d)
			ORDER BY c.oid
		LOOP
			IF other THEN
				skipped := skipped || idx::text;
				CONTINUE;
			END IF;
			cur := idx;
			EXECUTE pg_catalog.format('REINDEX INDEX %s', idx);
			n := n + 1;
		END LOOP;
	EXCEPTION WHEN unique_violation OR exclusion_violation THEN
		GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL;
		RAISE EXCEPTION '%', msg
			USING ERRCODE = 'unique_violation', DETAIL = det,
				  HINT = pg_catalog.format('tablestore 0.4.0 compares entities whatever order their properties were written in, so entities that differ only in that order are equal for index %s: remove or change the duplicates (on 0.3.0, GROUP BY the entity cast to jsonb finds them), then update again.', cur);
	END;
	RAISE LOG 'tablestore 0.4.0: % indexes ordered or hashed by entities rebuilt', n;
	IF pg_catalog.cardinality(skipped) > 0 THEN
		RAISE WARNING 'indexes of another session''s temporary tables were not rebuilt: %', pg_catalog.array_to_string(skipped, ', ')
			USING DETAIL = 'They keep 0.3.0''s order of entities, and may miss rows, until their session ends and drops them.';
	END IF;
END $$;

-- 4. Tables partitioned by an entity: a row 0.3.0's hash or order put where 0.4.0's puts it
-- elsewhere is moved by an UPDATE through the root of its tree, which writes only those rows
-- (PostgreSQL moves a row whose new version falls outside its partition's bounds: a delete and an
-- insert). Row triggers do not fire (the rows are unchanged: session_replication_role replica). First
-- each such table is changed in the catalog (SET STATISTICS to its own value), which makes every
-- session drop the partition key it cached, with the functions it had looked up for it.
-- Another session's temporary tables cannot be reached, and are named in a warning.
DO $$
DECLARE
	dependents constant oid[] := ARRAY(SELECT d.rel FROM tablestore_internal.upgrade_entity_dependents() d);
	p record;
	root regclass;
	arms text;
	col name;
	target int;
	moved bigint;
	skipped text[] := '{}';
	saved constant text[] := ARRAY[pg_catalog.current_setting('session_replication_role'),
								   pg_catalog.current_setting('constraint_exclusion'),
								   pg_catalog.current_setting('enable_partition_pruning')];
BEGIN
	PERFORM pg_catalog.set_config('session_replication_role', 'replica', true);
	PERFORM pg_catalog.set_config('constraint_exclusion', 'off', true);
	PERFORM pg_catalog.set_config('enable_partition_pruning', 'off', true);
	FOR p IN SELECT k.partrelid::regclass AS rel, r.relpersistence = 't' AND r.relnamespace IS DISTINCT FROM pg_catalog.pg_my_temp_schema() AS other
			 FROM pg_catalog.pg_partitioned_table k JOIN pg_catalog.pg_class r ON r.oid = k.partrelid
			 WHERE k.partrelid = ANY (dependents) ORDER BY k.partrelid LOOP
		IF p.other THEN
			skipped := skipped || p.rel::text;
			CONTINUE;
		END IF;
		SELECT a.attname, a.attstattarget INTO col, target FROM pg_catalog.pg_attribute a
		WHERE a.attrelid = p.rel AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum LIMIT 1;
		EXECUTE pg_catalog.format('ALTER TABLE %s ALTER COLUMN %I SET STATISTICS %s', p.rel, col, target);
	END LOOP;
	FOR root IN SELECT DISTINCT pg_catalog.pg_partition_root(k.partrelid) FROM pg_catalog.pg_partitioned_table k
				JOIN pg_catalog.pg_class r ON r.oid = k.partrelid
				WHERE NOT (r.relpersistence = 't' AND r.relnamespace IS DISTINCT FROM pg_catalog.pg_my_temp_schema())
				  AND k.partrelid = ANY (dependents) LOOP
		SELECT pg_catalog.string_agg(pg_catalog.format('WHEN %L::oid THEN (%s) IS FALSE', t.relid::oid,
													   pg_catalog.pg_get_partition_constraintdef(t.relid)), ' ')
		INTO arms
		FROM pg_catalog.pg_partition_tree(root) t JOIN pg_catalog.pg_class c ON c.oid = t.relid
		WHERE t.isleaf AND c.relkind <> 'f' AND pg_catalog.pg_get_partition_constraintdef(t.relid) IS NOT NULL;
		SELECT a.attname INTO col FROM pg_catalog.pg_attribute a
		WHERE a.attrelid = root AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = '' AND a.attidentity <> 'a'
		ORDER BY a.attnum LIMIT 1;
		CONTINUE WHEN arms IS NULL OR col IS NULL;
		BEGIN
			EXECUTE pg_catalog.format('UPDATE %s SET %I = %I WHERE CASE tableoid::oid %s ELSE false END', root, col, col, arms);
		EXCEPTION WHEN check_violation THEN
			-- "no partition of relation ... found for row": the tree does not cover every value
			GET STACKED DIAGNOSTICS arms = MESSAGE_TEXT;
			RAISE EXCEPTION 'a row of table % has no partition under tablestore 0.4.0''s comparison of entities', root
				USING ERRCODE = 'check_violation', DETAIL = arms,
					  HINT = 'Add the partition it needs (the missing hash remainder, a range, or a DEFAULT partition), then update again.';
		END;
		GET DIAGNOSTICS moved = ROW_COUNT;
		RAISE LOG 'tablestore 0.4.0: % rows of % moved to the partition of their value', moved, root;
	END LOOP;
	IF pg_catalog.cardinality(skipped) > 0 THEN
		RAISE WARNING 'another session''s temporary tables partitioned by entities were not updated: %', pg_catalog.array_to_string(skipped, ', ')
			USING DETAIL = 'Their rows stay where 0.3.0 put them until their session ends and drops them.';
	END IF;
	PERFORM pg_catalog.set_config('session_replication_role', saved[1], true);
	PERFORM pg_catalog.set_config('constraint_exclusion', saved[2], true);
	PERFORM pg_catalog.set_config('enable_partition_pruning', saved[3], true);
END $$;

DROP FUNCTION tablestore_internal.upgrade_entity_dependents();
DROP FUNCTION tablestore_internal.upgrade_entity_types();

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


-- A build pending at the update (its 0.3.0 worker died, or still runs) is queued, and a worker
-- launched: indexing_progress queues a table whose policy is not applied. Not on a coordinator's
-- distributed table (its partitions are foreign tables: its nodes hold the index).
SELECT pg_catalog.count(tablestore.indexing_progress(r.name)) FROM tablestore.tables r
JOIN pg_catalog.pg_class c ON c.relname OPERATOR(pg_catalog.=) r.key AND c.relnamespace OPERATOR(pg_catalog.=) 'tablestore_data'::regnamespace
WHERE NOT EXISTS (SELECT 1 FROM pg_catalog.pg_inherits i JOIN pg_catalog.pg_class p ON p.oid OPERATOR(pg_catalog.=) i.inhrelid
				  WHERE i.inhparent OPERATOR(pg_catalog.=) c.oid AND p.relkind OPERATOR(pg_catalog.=) 'f');
