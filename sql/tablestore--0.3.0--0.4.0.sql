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
-- The durable queue of index builds (src/index/index_queue.c, index_worker.c): a row per table whose
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
-- advisory lock (kind 3, number: the relation, 4th field 21587 = 0x5453; src/index/index_worker.c).
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

--------------------------------------------------------------------------------------------------
-- Scale-out (issue 31): moves that never stall a table, fences only the coordinator passes
--------------------------------------------------------------------------------------------------

COMMENT ON FUNCTION tablestore.routed_by_coordinator(anyelement) IS
'Returns its argument; marks the calls of the transaction as forwarded by a coordinator, which routes by its own shard map: a node''s shard fence does not refuse them when the role that marked and the current role have the privileges of the owner of the node''s table. Forwarded calls and the coordinator''s plain SQL use it; applications do not';

-- Plain SQL on a node meets the fence too (src/scaleout/shard_fence.c): a fenced shard table has row
-- triggers refusing INSERT, UPDATE, DELETE and COPY and a statement trigger refusing TRUNCATE
-- (fired before the stamp trigger; logical replication's workers do not fire them), and a copy a
-- move switched away from has forced row-level security that refuses reads; all of it only for
-- calls that are not the coordinator's, and all of it added with the fence and removed with it.
CREATE FUNCTION tablestore.shard_fence() RETURNS trigger
AS 'MODULE_PATHNAME', 'tablestore_shard_fence' LANGUAGE C;
COMMENT ON FUNCTION tablestore.shard_fence() IS
'Trigger of a fenced shard table on a node (a move fills it, or switched it away): plain SQL writing it (INSERT, UPDATE, DELETE, COPY, TRUNCATE) is refused (TSX03) unless the coordinator''s';
CREATE FUNCTION tablestore.shard_fence_read(shard_table oid) RETURNS bool
AS 'MODULE_PATHNAME', 'tablestore_shard_fence_read' LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION tablestore.shard_fence_read(oid) IS
'Row-level security policy of a shard table a move switched away from: true for the coordinator''s calls (or once the fence is gone), else TSX03';

-- On a node: a shard table fenced (its row in shard_fences, its triggers, and for a copy switched
-- away its forced row-level security), and unfenced again.
CREATE FUNCTION tablestore_internal.fence_shard(shard_table regclass, table_key text, shard int, state text, job text) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	INSERT INTO tablestore_internal.shard_fences (shard_table, table_key, shard, state, move) VALUES (shard_table, table_key, shard, state, job);
	EXECUTE format('CREATE TRIGGER fence_guard BEFORE INSERT OR UPDATE OR DELETE ON %1$s FOR EACH ROW EXECUTE FUNCTION tablestore.shard_fence(); '
		'CREATE TRIGGER fence_guard_truncate BEFORE TRUNCATE ON %1$s FOR EACH STATEMENT EXECUTE FUNCTION tablestore.shard_fence()', shard_table);
	IF state = 'moved' THEN
		EXECUTE format('CREATE POLICY fence_guard ON %1$s USING (tablestore.shard_fence_read(tableoid)); '
			'ALTER TABLE %1$s ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY', shard_table);
	END IF;
END $$;
REVOKE ALL ON FUNCTION tablestore_internal.fence_shard(regclass, text, int, text, text) FROM PUBLIC;
COMMENT ON FUNCTION tablestore_internal.fence_shard(regclass, text, int, text, text) IS
'On a node: fence a shard table (filling: a move''s target; moved: a move''s source after its switch), plain SQL included';

CREATE FUNCTION tablestore_internal.unfence_shard(shard_table regclass) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	DELETE FROM tablestore_internal.shard_fences f WHERE f.shard_table = unfence_shard.shard_table;
	EXECUTE format('DROP TRIGGER IF EXISTS fence_guard ON %1$s; DROP TRIGGER IF EXISTS fence_guard_truncate ON %1$s; '
		'DROP TRIGGER IF EXISTS tablestore_move_lease ON %1$s; DROP POLICY IF EXISTS fence_guard ON %1$s; '
		'ALTER TABLE %1$s NO FORCE ROW LEVEL SECURITY, DISABLE ROW LEVEL SECURITY', shard_table);
END $$;
REVOKE ALL ON FUNCTION tablestore_internal.unfence_shard(regclass) FROM PUBLIC;
COMMENT ON FUNCTION tablestore_internal.unfence_shard(regclass) IS
'On a node: a shard table''s fence removed, with its triggers and row-level security (the node serves the shard)';

-- A move's own connections to its nodes (src/scaleout/node_conn.c): its leases and its switch run there,
-- never on postgres_fdw's connections, each statement with a deadline on this side.
CREATE FUNCTION tablestore_internal.move_execute(server name, sql text, timeout_ms int) RETURNS text
AS 'MODULE_PATHNAME', 'tablestore_move_execute' LANGUAGE C VOLATILE;
CREATE FUNCTION tablestore_internal.move_disconnect(server name) RETURNS void
AS 'MODULE_PATHNAME', 'tablestore_move_disconnect' LANGUAGE C VOLATILE;
CREATE FUNCTION tablestore_internal.node_deadline(deadline timestamptz) RETURNS void
AS 'MODULE_PATHNAME', 'tablestore_node_deadline' LANGUAGE C VOLATILE;
REVOKE ALL ON FUNCTION tablestore_internal.move_execute(name, text, int) FROM PUBLIC;
REVOKE ALL ON FUNCTION tablestore_internal.move_disconnect(name) FROM PUBLIC;
REVOKE ALL ON FUNCTION tablestore_internal.node_deadline(timestamptz) FROM PUBLIC;
COMMENT ON FUNCTION tablestore_internal.move_execute(name, text, int) IS
'Run a statement on the move''s own connection to a node (kept for the session: its leases live there), answered within the milliseconds or the connection is closed (08006)';
COMMENT ON FUNCTION tablestore_internal.move_disconnect(name) IS
'Close the move''s own connection to a node (its leases end with it)';
COMMENT ON FUNCTION tablestore_internal.node_deadline(timestamptz) IS
'Every connection and statement of this session on a node''s own connections ends by this time (NULL: no such bound): a move''s time limit';


-- A node statement that may wait for a lock: 50 ms at a time (a waiting lock holds up the calls
-- queued behind it), retried after a pause that doubles from 50 ms to 1 s, until the deadline; the
-- statement's time bounded by the deadline too.
CREATE OR REPLACE FUNCTION tablestore_internal.node_ddl(server name, sql text, deadline timestamptz) RETURNS text
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	pause float8 := 0.05;
BEGIN
	LOOP
		BEGIN
			RETURN tablestore_internal.node_execute(server, 'SET lock_timeout = ''50ms''; ' || sql, false,
				greatest(1, (extract(epoch FROM deadline - clock_timestamp()) * 1000)::int));
		EXCEPTION WHEN lock_not_available THEN
			IF clock_timestamp() > deadline THEN
				RAISE;
			END IF;
			PERFORM pg_sleep(pause * (0.5 + random()));
			pause := least(pause * 2, 1);
		END;
	END LOOP;
END $$;
REVOKE ALL ON FUNCTION tablestore_internal.node_ddl(name, text, timestamptz) FROM PUBLIC;
COMMENT ON FUNCTION tablestore_internal.node_ddl(name, text, timestamptz) IS
'Run a statement on a node on a connection of its own, waiting at most 50 ms at a time for a lock, retried with a growing pause until the deadline';

-- A move's lease on a node (run there over the move's own postgres_fdw connection): a session
-- advisory lock that lives as long as the move's session, so that what a move whose session is
-- gone left on the node is known (drop_dead_moves) while a live move's is left alone.
CREATE FUNCTION tablestore_internal.move_lease(job text, take bool) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	held bool := EXISTS (SELECT FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted
		AND classid::int = hashtext('tablestore.move_lease') AND objid::int = hashtext(job) AND objsubid = 2);
BEGIN
	IF take AND NOT held THEN
		PERFORM set_config('lock_timeout', '5s', true);
		PERFORM pg_advisory_lock(hashtext('tablestore.move_lease'), hashtext(job));
	ELSIF NOT take AND held THEN
		PERFORM pg_advisory_unlock(hashtext('tablestore.move_lease'), hashtext(job));
	END IF;
END $$;
REVOKE ALL ON FUNCTION tablestore_internal.move_lease(text, bool) FROM PUBLIC;
COMMENT ON FUNCTION tablestore_internal.move_lease(text, bool) IS
'On a node: take (or release) a move''s lease, a session advisory lock held while the move''s session lives';

-- On a node: the subscriptions, publications and replication slots of moves whose lease is free
-- (their session ended: killed, or its coordinator stopped) dropped, so that none keeps
-- replicating into a fenced copy or holding WAL; the number dropped. A copy such a move left stays
-- fenced until move_shard_cleanup (or the next move) of its shard removes it.
CREATE FUNCTION tablestore_internal.drop_dead_moves() RETURNS int
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	o record;
	n int := 0;
BEGIN
	PERFORM set_config('lock_timeout', '1s', true);
	FOR o IN SELECT 'sub' AS kind, s.subname::text AS name FROM pg_subscription s JOIN pg_database d ON d.oid = s.subdbid
			WHERE d.datname = current_database() AND s.subname LIKE 'tablestore\_move\_%'
		UNION ALL SELECT 'pub', pubname::text FROM pg_publication WHERE pubname LIKE 'tablestore\_move\_%'
		UNION ALL SELECT 'slot', slot_name::text FROM pg_replication_slots
			WHERE database = current_database() AND slot_name LIKE 'tablestore\_move\_%'
	LOOP
		BEGIN
			-- the lease is free: no live move holds it (and none takes it while this transaction runs)
			CONTINUE WHEN NOT pg_try_advisory_xact_lock(hashtext('tablestore.move_lease'), hashtext(o.name));
			IF o.kind = 'sub' THEN
				EXECUTE format('ALTER SUBSCRIPTION %1$I DISABLE; ALTER SUBSCRIPTION %1$I SET (slot_name = NONE); DROP SUBSCRIPTION %1$I', o.name);
			ELSIF o.kind = 'pub' THEN
				EXECUTE format('DROP PUBLICATION %I', o.name);
			ELSE
				PERFORM pg_terminate_backend(active_pid, 5000) FROM pg_replication_slots WHERE slot_name = o.name AND active_pid IS NOT NULL;
				PERFORM pg_drop_replication_slot(o.name);
			END IF;
			n := n + 1;
		EXCEPTION WHEN OTHERS THEN
			RAISE WARNING 'tablestore: % % of a move that is over was not dropped: %', o.kind, o.name, SQLERRM;
		END;
	END LOOP;
	RETURN n;
END $$;
REVOKE ALL ON FUNCTION tablestore_internal.drop_dead_moves() FROM PUBLIC;
COMMENT ON FUNCTION tablestore_internal.drop_dead_moves() IS
'On a node: the subscriptions, publications and replication slots of moves whose session is gone (their lease is free) dropped; the number dropped';

-- On a move's target: the trigger of the shard table the move fills (ENABLE REPLICA: it fires in
-- the subscription's workers only), so that the subscription of a move that is over stops at its
-- next change instead of replicating into the fenced copy: when the move's lease (move_lease) is
-- free, the change is refused, and the subscription (disable_on_error) stops. Checked once per
-- transaction of the worker.
CREATE FUNCTION tablestore_internal.move_lease_check() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	IF coalesce(current_setting('tablestore_move.lease_seen', true), '') <> TG_ARGV[0] THEN
		IF pg_try_advisory_xact_lock(hashtext('tablestore.move_lease'), hashtext(TG_ARGV[0])) THEN
			RAISE EXCEPTION USING ERRCODE = 'TSX05', MESSAGE = format('InvalidInput: the move %s is over: its subscription stops', TG_ARGV[0]),
				HINT = 'tablestore.move_shard_cleanup (or the next move) removes it.';
		END IF;
		PERFORM set_config('tablestore_move.lease_seen', TG_ARGV[0], true);
	END IF;
	IF TG_OP = 'DELETE' THEN
		RETURN OLD;
	END IF;
	RETURN NEW;
END $$;
REVOKE ALL ON FUNCTION tablestore_internal.move_lease_check() FROM PUBLIC;
COMMENT ON FUNCTION tablestore_internal.move_lease_check() IS
'Trigger of the shard table a move fills, in its subscription''s workers: a change is refused (the subscription stops) once the move''s lease is free';

-- On a move's target: the fenced, empty shard table the move fills, owned by the owner of the
-- node's table (a node that did not hold the table gets it with the source's owner and grants),
-- with the privileges of that table, its lease trigger (move_lease_check, dropped with the fence),
-- and the table's indexing policy (the coordinator's).
CREATE FUNCTION tablestore_internal.move_target(name text, shard_count int, shard int, version text, shard_table text,
	job text, owner name, grants text, policy jsonb) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	parent text := format('tablestore_data.%I', lower(name));
	fresh bool := to_regclass(format('tablestore_data.%I', lower(name))) IS NULL;
	g record;
BEGIN
	PERFORM tablestore.create_shards(name, shard_count, ARRAY[shard], version);
	IF fresh THEN
		EXECUTE format('ALTER TABLE %s OWNER TO %I', parent, owner);
		IF grants <> '' THEN
			EXECUTE grants;
		END IF;
	END IF;
	EXECUTE format('ALTER TABLE %s OWNER TO %I', shard_table, (SELECT pg_get_userbyid(relowner) FROM pg_class WHERE oid = parent::regclass));
	FOR g IN SELECT a.privilege_type, a.grantee, a.is_grantable FROM pg_class c, aclexplode(c.relacl) a
		WHERE c.oid = parent::regclass AND a.grantee <> c.relowner
	LOOP
		EXECUTE format('GRANT %s ON %s TO %s%s', g.privilege_type, shard_table,
			CASE WHEN g.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(pg_get_userbyid(g.grantee)) END,
			CASE WHEN g.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END);
	END LOOP;
	PERFORM tablestore_internal.fence_shard(shard_table::regclass, lower(name), shard, 'filling', job);
	EXECUTE format('CREATE TRIGGER tablestore_move_lease BEFORE INSERT OR UPDATE OR DELETE ON %1$s FOR EACH ROW '
		'EXECUTE FUNCTION tablestore_internal.move_lease_check(%2$L); ALTER TABLE %1$s ENABLE REPLICA TRIGGER tablestore_move_lease', shard_table, job);
	IF tablestore.get_indexing_policy(name) IS DISTINCT FROM policy THEN
		PERFORM tablestore.set_indexing_policy(name, policy);
	END IF;
END $$;
REVOKE ALL ON FUNCTION tablestore_internal.move_target(text, int, int, text, text, text, name, text, jsonb) FROM PUBLIC;
COMMENT ON FUNCTION tablestore_internal.move_target(text, int, int, text, text, text, name, text, jsonb) IS
'On a move''s target: the fenced, empty shard table, owned and granted as the node''s table (the source''s owner and grants on a node new to the table), and the table''s indexing policy';

-- A move's wait on a node, bounded and watched: the query (a boolean) on the server every 10 ms
-- until it answers true (true) or the deadline passes (false). Every second both nodes of the move
-- are checked: a node that cannot be reached, or a subscription that is gone or stopped (it stops
-- itself on an error: disable_on_error), fails the move at once instead of at its deadline.
CREATE FUNCTION tablestore_internal.move_wait(server name, sql text, deadline timestamptz, source name, target name, job text) RETURNS bool
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	sub text;
BEGIN
	LOOP
		IF tablestore_internal.node_wait(server, sql,
			least(1000, greatest(0, (extract(epoch FROM deadline - clock_timestamp()) * 1000)::int))) THEN
			RETURN true;
		END IF;
		IF clock_timestamp() >= deadline THEN
			RETURN false;
		END IF;
		PERFORM tablestore_internal.node_execute(source, 'SELECT 1', false, 5000);
		sub := tablestore_internal.node_execute(target, format('SELECT coalesce((SELECT s.subenabled::text FROM pg_catalog.pg_subscription s '
			'JOIN pg_catalog.pg_database d ON d.oid = s.subdbid WHERE s.subname = %L AND d.datname = pg_catalog.current_database()), ''gone'')', job),
			false, 5000);
		IF sub <> 'true' THEN
			RAISE EXCEPTION USING ERRCODE = 'TSX05', MESSAGE = format('InvalidInput: the subscription %s of the move on the node "%s" %s', job, target,
				CASE sub WHEN 'gone' THEN 'is gone' ELSE 'stopped on an error (the node''s log has it)' END);
		END IF;
	END LOOP;
END $$;
REVOKE ALL ON FUNCTION tablestore_internal.move_wait(name, text, timestamptz, name, name, text) FROM PUBLIC;
COMMENT ON FUNCTION tablestore_internal.move_wait(name, text, timestamptz, name, name, text) IS
'A move''s wait for a query on a node to answer true, until the deadline (false); a node that cannot be reached or a stopped subscription fails it at once';

DROP FUNCTION tablestore_internal.move_switch(text, int, name, name, text, int);

-- The switch, the one step under the coordinator's lock, bounded: the coordinator's table locked
-- (calls through it wait), the source's shard table locked (direct calls on the shard wait), each
-- lock waited for at most lock_ms; the source's WAL position flushed, the subscriber waited for at
-- most catchup_ms until it has applied that much, the source's shard table fenced (its fence
-- committed on the source) and the coordinator's partition re-pointed. The source's statements run
-- on the move's own connection, all of them answered within 2 * lock_ms + catchup_ms + 1 s of the
-- coordinator's lock or the move fails (a hung source holds the table that long at most).
-- 'switched': the caller commits; 'locked' (a lock was not granted in time) or 'behind' (the
-- subscriber was not there in time): the caller rolls back, which releases the locks (the source's
-- transaction rolled back with it), and tries again later.
CREATE FUNCTION tablestore_internal.move_switch(tbl text, shard int, source name, target name, job text, lock_ms int, catchup_ms int)
RETURNS text LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	p record;
	t0 timestamptz;
	lsn text;
	budget timestamptz;
BEGIN
	PERFORM set_config('lock_timeout', lock_ms::text || 'ms', true);
	-- the lock first (a lock taken after reading the placement would be an upgrade, which two moves could deadlock on)
	EXECUTE format('LOCK TABLE tablestore_data.%I IN ACCESS EXCLUSIVE MODE', lower(tbl));
	-- calls through the coordinator on the table wait from here on: every statement on the source
	-- ends by the budget, answered or not (a node that does not answer fails the move)
	budget := clock_timestamp() + (2 * lock_ms + catchup_ms + 1000) * interval '1 ms';
	SELECT * INTO STRICT p FROM tablestore_internal.shard_placement(tbl, shard);
	IF p.server <> source THEN
		RAISE EXCEPTION USING ERRCODE = 'TSX05', MESSAGE = format('InvalidInput: shard %s of the table "%s" moved to "%s" meanwhile', shard, p.key, p.server);
	END IF;
	-- the source's part, in a transaction on the move's own connection (an abort here rolls it back)
	PERFORM tablestore_internal.move_execute(source, format('BEGIN; SET LOCAL lock_timeout = %L; LOCK TABLE %s IN ACCESS EXCLUSIVE MODE',
		lock_ms::text || 'ms', p.shard_table), greatest(1, (extract(epoch FROM budget - clock_timestamp()) * 1000)::int));
	t0 := clock_timestamp();
	lsn := tablestore_internal.move_execute(source, 'SELECT tablestore_internal.flushed_wal_lsn()',
		greatest(1, (extract(epoch FROM budget - clock_timestamp()) * 1000)::int));
	WHILE tablestore_internal.move_execute(source, format('SELECT COALESCE((SELECT bool_or(replay_lsn >= %L::pg_lsn) '
		'FROM pg_catalog.pg_stat_replication WHERE application_name = %L AND state = ''streaming''), false)', lsn, job),
		greatest(1, (extract(epoch FROM budget - clock_timestamp()) * 1000)::int)) <> 't' LOOP
		IF clock_timestamp() > t0 + catchup_ms * interval '1 ms' THEN
			RETURN 'behind';
		END IF;
		PERFORM pg_sleep(0.002);
	END LOOP;
	PERFORM tablestore_internal.move_execute(source, format('SELECT tablestore_internal.fence_shard(%L::regclass, %L, %s, ''moved'', %L)',
		p.shard_table, p.key, shard, job), greatest(1, (extract(epoch FROM budget - clock_timestamp()) * 1000)::int));
	PERFORM tablestore_internal.repoint_shard(tbl, shard, target);
	-- the source's fence commits before the coordinator's map: the two nodes are never both unfenced
	PERFORM tablestore_internal.move_execute(source, 'COMMIT', greatest(1, (extract(epoch FROM budget - clock_timestamp()) * 1000)::int));
	RETURN 'switched';
EXCEPTION WHEN lock_not_available THEN
	RETURN 'locked';
END $$;
REVOKE ALL ON FUNCTION tablestore_internal.move_switch(text, int, name, name, text, int, int) FROM PUBLIC;
COMMENT ON FUNCTION tablestore_internal.move_switch(text, int, name, name, text, int, int) IS
'move_shard''s switch under the coordinator''s lock, bounded (lock_ms per lock, catchup_ms for the subscriber): switched, locked or behind';

-- What a move of a shard leaves on the nodes, removed so that they agree with the coordinator's
-- shard map (as this transaction sees it): the move's subscription, publication and replication
-- slots go first, then every other node's copy of the shard, then the node the map names serves
-- the shard (its fence goes). servers: the nodes to look at (NULL: every shard server; the
-- map's node is always one). Each node's part commits there at once. A node that cannot be reached
-- is reported (WARNING; an error at the end when strict).
CREATE OR REPLACE PROCEDURE tablestore_internal.move_cleanup(tbl text, shard int, servers name[], strict bool)
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
	stopped bool := true;
	far timestamptz := clock_timestamp() + interval '1 minute';
BEGIN
	SELECT * INTO STRICT p FROM tablestore_internal.shard_placement(tbl, shard);
	job := format('tablestore_move_%s_%s', left(md5(p.key), 12), shard);
	-- what each node has of the move
	FOR srv IN SELECT DISTINCT x FROM unnest(coalesce(servers, ARRAY(SELECT tablestore_internal.shard_servers())) || p.server) x ORDER BY 1
	LOOP
		BEGIN
			-- what moves whose session is gone left there first (drop_dead_moves), then what the node has
			st := tablestore_internal.node_execute(srv, format($q$DO $d$ BEGIN
					IF pg_catalog.to_regprocedure('tablestore_internal.drop_dead_moves()') IS NOT NULL THEN
						PERFORM tablestore_internal.drop_dead_moves();
					END IF;
				END $d$;
				SELECT pg_catalog.jsonb_build_object(
				'id', (SELECT system_identifier::text FROM pg_catalog.pg_control_system()) || '/' || pg_catalog.current_database(),
				'sub', (SELECT s.oid::text FROM pg_catalog.pg_subscription s JOIN pg_catalog.pg_database d ON d.oid = s.subdbid
					WHERE s.subname = %1$L AND d.datname = pg_catalog.current_database()),
				'pub', EXISTS (SELECT FROM pg_catalog.pg_publication WHERE pubname = %1$L),
				'slots', (SELECT pg_catalog.jsonb_agg(slot_name) FROM pg_catalog.pg_replication_slots
					WHERE database = pg_catalog.current_database() AND (slot_name = %1$L OR slot_name ~ '^pg_[0-9]+_sync_')),
				'table', pg_catalog.to_regclass(%2$L) IS NOT NULL,
				'fence', (SELECT state FROM tablestore_internal.shard_fences WHERE shard_table = pg_catalog.to_regclass(%2$L)),
				'dangling', (SELECT pg_catalog.count(*) FROM tablestore_internal.shard_fences f
					WHERE NOT EXISTS (SELECT FROM pg_catalog.pg_class c WHERE c.oid = f.shard_table)))::text$q$, job, p.shard_table), false, 30000)::jsonb;
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
	-- 1. the subscription (without dropping its slot from here: its publisher may be gone), first:
	--    nothing replicates into a copy once it serves the shard, nor out of one serving it again
	FOR srv, st IN SELECT * FROM jsonb_each(seen) WHERE value ->> 'sub' IS NOT NULL LOOP
		BEGIN
			PERFORM tablestore_internal.node_ddl(srv, format('ALTER SUBSCRIPTION %1$I DISABLE; ALTER SUBSCRIPTION %1$I SET (slot_name = NONE); '
				'DROP SUBSCRIPTION %1$I', job), far);
			subs := subs || (st ->> 'sub');
		EXCEPTION WHEN OTHERS THEN
			RAISE WARNING 'tablestore: the subscription % on the node "%" was not dropped: %', job, srv, SQLERRM;
			failed := failed || srv::text;
			stopped := false;
		END;
	END LOOP;
	-- 2. the publication and the replication slots (their walsenders ended first)
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
			stopped := false;
		END;
	END LOOP;
	-- 3. every other node's copy of the shard (a plain SELECT of a node's table reads a copy
	--    switched away from until it is gone), and fences of tables that are gone
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
	-- 4. the node the map names serves the shard: its fence goes (its triggers and row-level
	--    security with it), once the move's replication is stopped (either side's part dropped)
	IF seen -> p.server ->> 'fence' IS NOT NULL THEN
		IF stopped THEN
			PERFORM tablestore_internal.node_ddl(p.server, format('SELECT tablestore_internal.unfence_shard(%L::regclass)', p.shard_table), far);
		ELSE
			RAISE WARNING 'tablestore: shard % stays fenced on the node "%" until the move''s replication is stopped', shard, p.server;
			failed := failed || p.server::text;
		END IF;
	END IF;
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
CREATE OR REPLACE FUNCTION tablestore_internal.move_lock(tbl text, shard int, take bool) RETURNS void
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

-- A failed move's end, in its exception handler: what it left removed on the two nodes within 5 s
-- (a warning when that cannot finish: move_shard_cleanup, or the next move once the leases are
-- free, does it later), so that a move past its time limit, cancelled, or failing on a node that
-- does not answer ends at once; its leases and the shard's move lock released.
CREATE OR REPLACE PROCEDURE tablestore_internal.move_abandon(tbl text, shard int, servers name[])
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	PERFORM tablestore_internal.node_deadline(clock_timestamp() + interval '5 s');
	BEGIN
		CALL tablestore_internal.move_cleanup(tbl, shard, servers, false);
	EXCEPTION WHEN OTHERS OR query_canceled THEN
		RAISE WARNING 'tablestore: removing what the failed move left did not finish (%): call tablestore.move_shard_cleanup', SQLERRM;
	END;
	CALL tablestore_internal.move_release(tbl, shard, servers);
END $$;
REVOKE ALL ON PROCEDURE tablestore_internal.move_abandon(text, int, name[]) FROM PUBLIC;
COMMENT ON PROCEDURE tablestore_internal.move_abandon(text, int, name[]) IS
'A failed move''s end: what it left on the two nodes removed (move_cleanup, a warning if that fails), its leases and the shard''s move lock released';

-- A move's end: its connections to the nodes closed (its leases, move_lease, end with them; no
-- wait for a node), the bound of its waits on nodes lifted and the shard's move lock released.
CREATE PROCEDURE tablestore_internal.move_release(tbl text, shard int, servers name[])
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	srv name;
BEGIN
	FOREACH srv IN ARRAY servers LOOP
		PERFORM tablestore_internal.move_disconnect(srv);
	END LOOP;
	PERFORM tablestore_internal.node_deadline(NULL);
	PERFORM tablestore_internal.move_lock(tbl, shard, false);
END $$;
REVOKE ALL ON PROCEDURE tablestore_internal.move_release(text, int, name[]) FROM PUBLIC;
COMMENT ON PROCEDURE tablestore_internal.move_release(text, int, name[]) IS
'A move''s end: its connections to the nodes closed (its leases with them) and the shard''s move lock released';

-- No SET clause: a procedure with one cannot commit, and this one commits between its steps (so
-- every name is qualified). No step holds a lock on the coordinator's table but the switch.
CREATE OR REPLACE PROCEDURE tablestore.move_shard(tbl text, shard int, to_server name, timeout interval DEFAULT '10 minutes')
LANGUAGE plpgsql AS $$
DECLARE
	p record;
	job text;
	version text;
	deadline timestamptz := pg_catalog.clock_timestamp() OPERATOR(pg_catalog.+) timeout;
	lsn text;
	outcome text := '';
	catchup_ms int := 50;
	pause float8 := 0.05;
	owner text;
	grants text;
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
	-- every wait on a node, connecting included, ends by the time limit (and 5 s more)
	PERFORM tablestore_internal.node_deadline(deadline OPERATOR(pg_catalog.+) interval '5 s');

	-- 1. both nodes answer (one that is down fails the move here, within its connect timeout); the
	--    move's lease on both (on the move's own connections: src/scaleout/node_conn.c); what an earlier move of the shard (and any move whose session is
	--    gone) left, removed; a fenced, empty shard table on the target, owned and indexed as the
	--    table there; the source publishes the shard and the target subscribes (logical
	--    replication applies rows without the stamp trigger, so every entity keeps its Timestamp
	--    and ETag; an apply error stops the subscription, which fails the move)
	BEGIN
		IF NOT to_server OPERATOR(pg_catalog.=) ANY (ARRAY(SELECT tablestore_internal.shard_servers())) THEN
			RAISE EXCEPTION USING ERRCODE = 'TSX05', MESSAGE = pg_catalog.format('InvalidInput: the server "%s" is not a postgres_fdw server '
				'that ships tablestore and has a user mapping', to_server);
		END IF;
		PERFORM tablestore_internal.node_execute(p.server, 'SELECT 1', false, 5000);
		PERFORM tablestore_internal.node_execute(to_server, 'SELECT 1', false, 5000);
		PERFORM tablestore_internal.move_execute(p.server, pg_catalog.format('SELECT tablestore_internal.move_lease(%L, true)', job), 10000);
		PERFORM tablestore_internal.move_execute(to_server, pg_catalog.format('SELECT tablestore_internal.move_lease(%L, true)', job), 10000);
		CALL tablestore_internal.move_cleanup(tbl, shard, NULL, false);
		SELECT x[1], x[2] INTO owner, grants FROM pg_catalog.string_to_array(tablestore_internal.node_execute(p.server, pg_catalog.format(
			$q$SELECT pg_catalog.pg_get_userbyid(c.relowner) || E'\n' || coalesce(pg_catalog.string_agg(pg_catalog.format('GRANT %%s ON %%s TO %%s%%s',
				a.privilege_type, c.oid::regclass, CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(a.grantee)) END,
				CASE WHEN a.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END), '; ') FILTER (WHERE a.grantee IS NOT NULL), '')
			FROM pg_catalog.pg_class c LEFT JOIN LATERAL pg_catalog.aclexplode(c.relacl) a ON a.grantee <> c.relowner
			WHERE c.oid = pg_catalog.to_regclass(%L) GROUP BY c.oid, c.relowner$q$, 'tablestore_data.' OPERATOR(pg_catalog.||) pg_catalog.quote_ident(p.key)),
			false, 5000), E'\n') x;
		PERFORM tablestore_internal.node_ddl(to_server, pg_catalog.format('SELECT tablestore_internal.move_target(%L, %s, %s, %L, %L, %L, %L, %L, %L)',
			p.name, p.shard_count, shard, version, p.shard_table, job, owner, grants, tablestore.get_indexing_policy(tbl)), deadline);
		PERFORM tablestore_internal.node_ddl(p.server, pg_catalog.format('CREATE PUBLICATION %I FOR TABLE %s', job, p.shard_table), deadline);
	EXCEPTION WHEN OTHERS OR query_canceled THEN
		CALL tablestore_internal.move_abandon(tbl, shard, ARRAY[p.server, to_server]);
		IF SQLSTATE OPERATOR(pg_catalog.=) '57014' AND pg_catalog.clock_timestamp() OPERATOR(pg_catalog.>=) deadline THEN
			RAISE EXCEPTION USING ERRCODE = '57014', MESSAGE = timed_out;	-- a node's statement timeout: the move's
		END IF;
		RAISE;
	END;
	COMMIT;	-- the lookups' locks (the policy's on the coordinator's table) go before the copy's wait

	BEGIN
		-- the slot first, made by a session of its own on the source, which waits for the
		-- transactions running there: made by CREATE SUBSCRIPTION, it would wait inside that
		-- statement's transaction on the target, and moves in a ring (n1 to n2, n2 to n3, n3 to n1)
		-- would each wait for the next one's for ever
		PERFORM tablestore_internal.node_execute(p.server, pg_catalog.format('SELECT pg_catalog.pg_create_logical_replication_slot(%L, ''pgoutput'')', job),
			false, GREATEST(1, (pg_catalog.date_part('epoch', deadline OPERATOR(pg_catalog.-) pg_catalog.clock_timestamp()) OPERATOR(pg_catalog.*) 1000)::int));
		PERFORM tablestore_internal.node_execute(to_server, pg_catalog.format('CREATE SUBSCRIPTION %I CONNECTION %L PUBLICATION %I '
			'WITH (create_slot = false, slot_name = %I, synchronous_commit = on, disable_on_error = true)', job,
			tablestore_internal.server_conninfo(p.server), job, job), false,
			GREATEST(1, (pg_catalog.date_part('epoch', deadline OPERATOR(pg_catalog.-) pg_catalog.clock_timestamp()) OPERATOR(pg_catalog.*) 1000)::int));
		-- the copy
		IF NOT tablestore_internal.move_wait(to_server, pg_catalog.format('SELECT pg_catalog.count(*) OPERATOR(pg_catalog.=) 0 '
			'FROM pg_catalog.pg_subscription_rel r JOIN pg_catalog.pg_subscription s ON s.oid OPERATOR(pg_catalog.=) r.srsubid '
			'WHERE s.subname OPERATOR(pg_catalog.=) %L AND r.srsubstate OPERATOR(pg_catalog.<>) ''r''', job), deadline, p.server, to_server, job) THEN
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
	--    coordinator's lock, each lock waited for at most 20 ms and the rest of the catch-up for 50
	--    ms (up to 200 ms after the target fell behind at it) (move_switch); when a lock or the
	--    target is not there in time, the locks are released and the switch is tried again after a
	--    pause that doubles from 50 ms to 2 s, until the move's time limit
	LOOP
		BEGIN
			IF pg_catalog.clock_timestamp() OPERATOR(pg_catalog.>) deadline THEN
				RAISE EXCEPTION USING ERRCODE = '57014', MESSAGE = timed_out;
			END IF;
			lsn := tablestore_internal.node_execute(p.server, 'SELECT tablestore_internal.flushed_wal_lsn()', false, 5000);
			IF NOT tablestore_internal.move_wait(p.server, pg_catalog.format('SELECT COALESCE((SELECT pg_catalog.bool_or(replay_lsn OPERATOR(pg_catalog.>=) %L::pg_lsn) '
				'FROM pg_catalog.pg_stat_replication WHERE application_name OPERATOR(pg_catalog.=) %L AND state OPERATOR(pg_catalog.=) ''streaming''), false)', lsn, job),
				deadline, p.server, to_server, job) THEN
				RAISE EXCEPTION USING ERRCODE = '57014', MESSAGE = timed_out;
			END IF;
			outcome := tablestore_internal.move_switch(tbl, shard, p.server, to_server, job, 20, catchup_ms);
		EXCEPTION WHEN OTHERS OR query_canceled THEN
			CALL tablestore_internal.move_abandon(tbl, shard, ARRAY[p.server, to_server]);
			IF SQLSTATE OPERATOR(pg_catalog.=) '57014' AND pg_catalog.clock_timestamp() OPERATOR(pg_catalog.>=) deadline THEN
				RAISE EXCEPTION USING ERRCODE = '57014', MESSAGE = timed_out;
			END IF;
			RAISE;
		END;
		IF outcome OPERATOR(pg_catalog.=) 'switched' THEN
			COMMIT;
			EXIT;
		END IF;
		ROLLBACK;
		IF outcome OPERATOR(pg_catalog.=) 'behind' THEN
			catchup_ms := LEAST(catchup_ms OPERATOR(pg_catalog.*) 2, 200);
		END IF;
		PERFORM pg_catalog.pg_sleep(pause OPERATOR(pg_catalog.*) (0.5 OPERATOR(pg_catalog.+) pg_catalog.random()));
		pause := LEAST(pause OPERATOR(pg_catalog.*) 2, 2);
	END LOOP;

	-- 3. the coordinator's map names the target: the subscription, the publication and the
	--    replication slot go, the source's copy goes, the target serves the shard (move_cleanup, by
	--    the map), within 30 s
	PERFORM tablestore_internal.node_deadline(pg_catalog.clock_timestamp() OPERATOR(pg_catalog.+) interval '30 s');
	BEGIN
		CALL tablestore_internal.move_cleanup(tbl, shard, ARRAY[p.server, to_server], true);
	EXCEPTION WHEN OTHERS OR query_canceled THEN
		CALL tablestore_internal.move_release(tbl, shard, ARRAY[p.server, to_server]);
		RAISE EXCEPTION USING ERRCODE = 'TSX05', MESSAGE = pg_catalog.format('InvalidInput: shard %s of the table "%s" moved to "%s", but removing what the move used failed: %s',
			shard, p.key, to_server, SQLERRM), HINT = pg_catalog.format('Call tablestore.move_shard_cleanup(%L, %s).', tbl, shard);
	END;
	CALL tablestore_internal.move_release(tbl, shard, ARRAY[p.server, to_server]);
END $$;
COMMENT ON PROCEDURE tablestore.move_shard(text, int, name, interval) IS
'Move a distributed table''s shard to another server online: logical replication, catch-up, a switch of tens of milliseconds under the coordinator''s lock, the source fenced, the partition re-pointed; a failure removes what it made';

CREATE OR REPLACE PROCEDURE tablestore.move_shard_cleanup(tbl text, shard int)
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	PERFORM tablestore_internal.move_lock(tbl, shard, true);
	PERFORM tablestore_internal.node_deadline(NULL);
	CALL tablestore_internal.move_cleanup(tbl, shard, NULL, true);
	PERFORM tablestore_internal.move_lock(tbl, shard, false);
EXCEPTION WHEN OTHERS OR query_canceled THEN
	PERFORM tablestore_internal.move_lock(tbl, shard, false);
	RAISE;
END $$;
COMMENT ON PROCEDURE tablestore.move_shard_cleanup(text, int) IS
'Remove what failed or interrupted moves of a shard left on the nodes (subscription, publication, replication slots, copies, fences), so that the nodes agree with the coordinator''s shard map; idempotent';
