-- tablestore upgrade script from 0.2.0 to 0.3.0. Every change made to tablestore.sql since 0.2.0
-- is made here too; the regression test sql/extension.sql checks that 0.1.0 plus the upgrade
-- scripts gives the same objects as a fresh install.

\echo Use "ALTER EXTENSION tablestore UPDATE TO '0.3.0'" to load this file. \quit

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
