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
