-- tablestore upgrade script from 0.1.0 to 0.2.0. Every change made to tablestore.sql since 0.1.0
-- is made here too; the regression test sql/extension.sql checks that 0.1.0 plus this script
-- gives the same objects as a fresh install.

\echo Use "ALTER EXTENSION tablestore UPDATE TO '0.2.0'" to load this file. \quit

CREATE FUNCTION tablestore.query_page_json(tbl text, filter text, "select" text, top int DEFAULT 1000,
	next_partition_key text DEFAULT NULL, next_row_key text DEFAULT NULL)
RETURNS json
AS 'MODULE_PATHNAME', 'tablestore_query_page_json' LANGUAGE C STABLE;

COMMENT ON FUNCTION tablestore.query_page_json(text, text, text, int, text, text) IS
'query_page as json text: the same page, written once without a jsonb conversion; it also carries Strings holding U+0000';

CREATE FUNCTION tablestore.filter_key_string(tablestore.entity, text) RETURNS bytea
AS 'MODULE_PATHNAME', 'tablestore_filter_key_string' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION tablestore.filter_key_string(tablestore.entity, text) IS
'Key for $filter comparisons with String literals: the String''s UTF-8 bytes (ordinal order; U+0000 too), NULL when absent or not a String';

--------------------------------------------------------------------------------------------------
-- The REST protocol's calls (tablestore-gateway calls one function per request; doc/gateway.md)
--------------------------------------------------------------------------------------------------

CREATE FUNCTION tablestore.rest_create_table(body text, metadata text DEFAULT NULL, base text DEFAULT NULL,
	account text DEFAULT NULL, OUT table_name text, OUT body text)
AS 'MODULE_PATHNAME', 'tablestore_rest_create_table' LANGUAGE C VOLATILE SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION tablestore.rest_create_table(text, text, text, text) IS
'REST Create Table: the request body {"TableName": ...}; the created name and the answer''s body at the metadata level';

CREATE FUNCTION tablestore.rest_query_tables(filter text DEFAULT NULL, top int DEFAULT NULL, next_table_name text DEFAULT NULL,
	metadata text DEFAULT NULL, base text DEFAULT NULL, account text DEFAULT NULL,
	OUT body text, OUT next_table_name text)
AS 'MODULE_PATHNAME', 'tablestore_rest_query_tables' LANGUAGE C STABLE;

COMMENT ON FUNCTION tablestore.rest_query_tables(text, int, text, text, text, text) IS
'REST Query Tables: one page of tables ($filter on TableName, $top, NextTableName) as the answer''s body';

CREATE FUNCTION tablestore.rest_get_table(table_name text, metadata text DEFAULT NULL, base text DEFAULT NULL,
	account text DEFAULT NULL)
RETURNS text
AS 'MODULE_PATHNAME', 'tablestore_rest_get_table' LANGUAGE C STABLE;

COMMENT ON FUNCTION tablestore.rest_get_table(text, text, text, text) IS
'REST GET Tables(''name''): the one table as the answer''s body; TableNotFound when it does not exist';

CREATE FUNCTION tablestore.rest_insert_entity(tbl text, body text, echo bool DEFAULT true, metadata text DEFAULT NULL,
	base text DEFAULT NULL, account text DEFAULT NULL, key_scope text[] DEFAULT NULL,
	OUT etag text, OUT partition_key text, OUT row_key text, OUT body text)
AS 'MODULE_PATHNAME', 'tablestore_rest_insert_entity' LANGUAGE C VOLATILE;

COMMENT ON FUNCTION tablestore.rest_insert_entity(text, text, bool, text, text, text, text[]) IS
'REST Insert Entity: the new ETag, the keys, and (echo) the stored entity as the answer''s body; AuthorizationFailure outside key_scope';

CREATE FUNCTION tablestore.rest_write_entity(tbl text, partition_key text, row_key text, body text, merge bool,
	if_match text DEFAULT NULL, key_scope text[] DEFAULT NULL)
RETURNS text
AS 'MODULE_PATHNAME', 'tablestore_rest_write_entity' LANGUAGE C VOLATILE;

COMMENT ON FUNCTION tablestore.rest_write_entity(text, text, text, text, bool, text, text[]) IS
'REST Update/Merge Entity under If-Match, or Insert Or Replace/Merge without one; keys from the URL; returns the new ETag; AuthorizationFailure outside key_scope';

CREATE FUNCTION tablestore.rest_delete_entity(tbl text, partition_key text, row_key text, if_match text DEFAULT '*',
	key_scope text[] DEFAULT NULL)
RETURNS void
AS 'MODULE_PATHNAME', 'tablestore_rest_delete_entity' LANGUAGE C VOLATILE;

COMMENT ON FUNCTION tablestore.rest_delete_entity(text, text, text, text, text[]) IS
'REST Delete Entity: delete_entity limited to key_scope (AuthorizationFailure outside it)';

CREATE FUNCTION tablestore.rest_get_entity(tbl text, partition_key text, row_key text, "select" text DEFAULT NULL,
	metadata text DEFAULT NULL, base text DEFAULT NULL, account text DEFAULT NULL, key_scope text[] DEFAULT NULL,
	OUT etag text, OUT body text)
AS 'MODULE_PATHNAME', 'tablestore_rest_get_entity' LANGUAGE C STABLE;

COMMENT ON FUNCTION tablestore.rest_get_entity(text, text, text, text, text, text, text, text[]) IS
'REST point read: the entity''s ETag and the answer''s body at the metadata level; AuthorizationFailure outside key_scope';

CREATE FUNCTION tablestore.rest_query_entities(tbl text, filter text DEFAULT NULL, "select" text DEFAULT NULL,
	top int DEFAULT NULL, next_partition_key text DEFAULT NULL, next_row_key text DEFAULT NULL,
	metadata text DEFAULT NULL, base text DEFAULT NULL, account text DEFAULT NULL, key_scope text[] DEFAULT NULL,
	OUT body text, OUT next_partition_key text, OUT next_row_key text)
AS 'MODULE_PATHNAME', 'tablestore_rest_query_entities' LANGUAGE C STABLE;

COMMENT ON FUNCTION tablestore.rest_query_entities(text, text, text, int, text, text, text, text, text, text[]) IS
'REST Query Entities: one page as the answer''s body, and the continuation (NULL on the last page); only entities inside key_scope';

CREATE FUNCTION tablestore.rest_batch(tbl text, operations text, metadata text DEFAULT NULL, base text DEFAULT NULL,
	account text DEFAULT NULL, key_scope text[] DEFAULT NULL)
RETURNS TABLE (etag text, partition_key text, row_key text, body text)
AS 'MODULE_PATHNAME', 'tablestore_rest_batch' LANGUAGE C VOLATILE;

COMMENT ON FUNCTION tablestore.rest_batch(text, text, text, text, text, text[]) IS
'REST $batch: one changeset as execute_batch''s document (keys beside entities, entities as JSON text in entity_json, echo); one row per operation with its ETag and keys; every operation inside key_scope';

-- the registry's event trigger also forgets a dropped table's access policies
CREATE OR REPLACE FUNCTION tablestore_internal.forget_dropped_tables() RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	DELETE FROM tablestore.tables r
	USING pg_event_trigger_dropped_objects() d
	WHERE d.object_type = 'table' AND d.schema_name = 'tablestore_data' AND r.key = d.object_name;
	DELETE FROM tablestore.access_policies a
	USING pg_event_trigger_dropped_objects() d
	WHERE d.object_type = 'table' AND d.schema_name = 'tablestore_data' AND a.table_key = d.object_name;
END $$;

--------------------------------------------------------------------------------------------------
-- Stored access policies: a table's ACL (Get/Set Table ACL), which shared access signatures name
-- with si; kept in the database so that pg_dump keeps them and deleting one revokes its tokens
--------------------------------------------------------------------------------------------------

CREATE TABLE tablestore.access_policies (
	table_key text COLLATE "C" NOT NULL,	-- tablestore.tables.key (the table's lower-case name)
	id text COLLATE "C" NOT NULL CHECK (length(id) BETWEEN 1 AND 64),
	start timestamptz,
	expiry timestamptz,
	permission text COLLATE "C" CHECK (permission ~ '^r?a?u?d?$'),
	PRIMARY KEY (table_key, id)
);
COMMENT ON TABLE tablestore.access_policies IS
'Stored access policies of tables (at most 5 each, set by set_table_acl; dumped by pg_dump with the data)';
SELECT pg_catalog.pg_extension_config_dump('tablestore.access_policies', '');
GRANT SELECT ON tablestore.access_policies TO PUBLIC;

CREATE FUNCTION tablestore.get_table_acl(tbl text)
RETURNS TABLE (id text, start timestamptz, expiry timestamptz, permission text)
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	PERFORM tablestore.table_relation(tbl);	-- InvalidResourceName, TableNotFound
	RETURN QUERY SELECT p.id::text, p.start, p.expiry, p.permission::text FROM tablestore.access_policies p
		WHERE p.table_key = lower(tbl) ORDER BY p.id;
END $$;

COMMENT ON FUNCTION tablestore.get_table_acl(text) IS
'Get Table ACL: the stored access policies of a table (Id, Start, Expiry, Permission), by Id';

CREATE FUNCTION tablestore.set_table_acl(tbl text, policies jsonb) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	rel regclass;
	p jsonb;
	perm text;
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
	FOR p IN SELECT * FROM jsonb_array_elements(policies) LOOP
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
			INSERT INTO tablestore.access_policies (table_key, id, start, expiry, permission)
			VALUES (lower(tbl), p->>'Id', (p->>'Start')::timestamp AT TIME ZONE 'UTC', (p->>'Expiry')::timestamp AT TIME ZONE 'UTC', perm);
		EXCEPTION WHEN datetime_field_overflow OR invalid_datetime_format OR invalid_text_representation THEN
			RAISE EXCEPTION USING ERRCODE = 'TSB00', MESSAGE = format('InvalidInput: the Start or Expiry of policy "%s" is not a time', p->>'Id');
		END;
	END LOOP;
END $$;

COMMENT ON FUNCTION tablestore.set_table_acl(text, jsonb) IS
'Set Table ACL: replace a table''s stored access policies (at most 5: [{"Id","Start","Expiry","Permission"}]); the table''s owner only';

--------------------------------------------------------------------------------------------------
-- Service properties: the document of Set Table Service Properties (logging, metrics, CORS rules),
-- kept in the database so that every gateway of the database reads the same rules and pg_dump
-- keeps them
--------------------------------------------------------------------------------------------------

CREATE TABLE tablestore.service_properties (
	singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
	document text NOT NULL CHECK (length(document) <= 65536),
	updated timestamptz NOT NULL DEFAULT pg_catalog.now()
);
COMMENT ON TABLE tablestore.service_properties IS
'The Table service properties of this database (one row, written by set_service_properties; dumped by pg_dump with the data)';
SELECT pg_catalog.pg_extension_config_dump('tablestore.service_properties', '');
GRANT SELECT ON tablestore.service_properties TO PUBLIC;

CREATE FUNCTION tablestore.get_service_properties() RETURNS text
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
	SELECT document FROM tablestore.service_properties
$$;

COMMENT ON FUNCTION tablestore.get_service_properties() IS
'Get Table Service Properties: the stored StorageServiceProperties document, NULL before the first Set';

CREATE FUNCTION tablestore.set_service_properties(document text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	-- SECURITY DEFINER: the caller is the session's role, which must be a member of the database's owner
	IF NOT pg_has_role(session_user, (SELECT d.datdba FROM pg_database d WHERE d.datname = current_database()), 'USAGE') THEN
		RAISE EXCEPTION USING ERRCODE = '42501',
			MESSAGE = 'AuthorizationFailure: only the owner of the database sets the service properties';
	END IF;
	IF document IS NULL OR length(document) > 65536 OR document !~ '^<\?xml[^>]*\?><StorageServiceProperties>' THEN
		RAISE EXCEPTION USING ERRCODE = 'TSB00',
			MESSAGE = 'InvalidInput: the service properties are a StorageServiceProperties document of at most 64 KiB';
	END IF;
	INSERT INTO tablestore.service_properties AS p (document) VALUES (set_service_properties.document)
	ON CONFLICT (singleton) DO UPDATE SET document = EXCLUDED.document, updated = pg_catalog.now();
END $$;

COMMENT ON FUNCTION tablestore.set_service_properties(text) IS
'Set Table Service Properties: store the whole StorageServiceProperties document (tablestore-gateway merges and checks it); the database owner only';

--------------------------------------------------------------------------------------------------
-- Scale-out: the shard a PartitionKey belongs to under hash partitioning by partition_key
--------------------------------------------------------------------------------------------------

CREATE FUNCTION tablestore.shard_of(partition_key text, shard_count int) RETURNS int
AS 'MODULE_PATHNAME', 'tablestore_shard_of' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION tablestore.shard_of(text, int) IS
'The hash partition (0 .. shard_count - 1) that PostgreSQL''s PARTITION BY HASH (partition_key) with that modulus puts a PartitionKey in';

--------------------------------------------------------------------------------------------------
-- Scale-out: one table over several nodes by PartitionKey hash (doc/scale-out.md)
--------------------------------------------------------------------------------------------------

-- The shard tables: foreign tables on a coordinator, the partitions of a node's part of a table on
-- a node. Creating them needs CREATE here (granted by an admin), as tables need it on tablestore_data.
CREATE SCHEMA tablestore_shards;
GRANT USAGE ON SCHEMA tablestore_shards TO PUBLIC;
COMMENT ON SCHEMA tablestore_shards IS 'The shards of distributed tables: <key>_<shard>, foreign tables on a coordinator, partitions on a node';

CREATE FUNCTION tablestore.distribute_table(name text, servers name[], shard_count int DEFAULT 32) RETURNS void
AS 'MODULE_PATHNAME', 'tablestore_distribute_table' LANGUAGE C VOLATILE SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION tablestore.distribute_table(text, name[], int) IS
'Spread a table over postgres_fdw servers by hash of PartitionKey: shard i on servers[i % n]; its rows move with their ETags';

CREATE FUNCTION tablestore.undistribute_table(name text) RETURNS void
AS 'MODULE_PATHNAME', 'tablestore_undistribute_table' LANGUAGE C VOLATILE SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION tablestore.undistribute_table(text) IS
'Bring a distributed table''s rows back into an ordinary table of this database and drop its shards on the nodes';

CREATE FUNCTION tablestore.create_shards(name text, shard_count int, shards int[], version text) RETURNS void
AS 'MODULE_PATHNAME', 'tablestore_create_shards' LANGUAGE C VOLATILE SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION tablestore.create_shards(text, int, int[], text) IS
'On a node, called by distribute_table: the node''s part of a distributed table and the partitions of the shards named';

CREATE FUNCTION tablestore.route(tbl text, partition_key text, OUT shard int, OUT server name, OUT shard_table text)
RETURNS record AS 'MODULE_PATHNAME', 'tablestore_route' LANGUAGE C STABLE;

COMMENT ON FUNCTION tablestore.route(text, text) IS
'Where a PartitionKey of a table lives: its shard, the server that holds it (NULL when here) and the shard table';

--------------------------------------------------------------------------------------------------
-- Property names that postgres_fdw can ship: a text without collation (doc/scale-out.md)
--------------------------------------------------------------------------------------------------

-- postgres_fdw sends a function call to a node only when its arguments carry no collation; a text
-- literal carries the default one. A $filter on a distributed table names properties with this
-- type, so that its accessors run on the nodes. An index on a node that serves such filters is
-- written with it: (tablestore.filter_key_int32(properties, 'Age'::tablestore.property_name)).
CREATE TYPE tablestore.property_name;
CREATE FUNCTION tablestore.property_name_in(cstring) RETURNS tablestore.property_name
AS 'textin' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION tablestore.property_name_out(tablestore.property_name) RETURNS cstring
AS 'textout' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
CREATE TYPE tablestore.property_name (
	INPUT = tablestore.property_name_in, OUTPUT = tablestore.property_name_out,
	INTERNALLENGTH = VARIABLE, STORAGE = extended, CATEGORY = 'U'
);
COMMENT ON TYPE tablestore.property_name IS 'A property name as text without a collation, which postgres_fdw ships to nodes';
COMMENT ON FUNCTION tablestore.property_name_in(cstring) IS 'Input of tablestore.property_name (as text)';
COMMENT ON FUNCTION tablestore.property_name_out(tablestore.property_name) IS 'Output of tablestore.property_name (as text)';

CREATE FUNCTION tablestore.filter_key_string(tablestore.entity, tablestore.property_name) RETURNS bytea
AS 'MODULE_PATHNAME', 'tablestore_filter_key_string' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION tablestore.filter_key_int32(tablestore.entity, tablestore.property_name) RETURNS float8
AS 'MODULE_PATHNAME', 'tablestore_filter_key_int32' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION tablestore.filter_key_int64(tablestore.entity, tablestore.property_name) RETURNS numeric
AS 'MODULE_PATHNAME', 'tablestore_filter_key_int64' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION tablestore.filter_key_double(tablestore.entity, tablestore.property_name) RETURNS float8
AS 'MODULE_PATHNAME', 'tablestore_filter_key_double' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION tablestore.filter_key_bool(tablestore.entity, tablestore.property_name) RETURNS int4
AS 'MODULE_PATHNAME', 'tablestore_filter_key_bool' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION tablestore.filter_key_datetime(tablestore.entity, tablestore.property_name) RETURNS int8
AS 'MODULE_PATHNAME', 'tablestore_filter_key_datetime' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION tablestore.prop_type(tablestore.entity, tablestore.property_name) RETURNS text
AS 'MODULE_PATHNAME', 'tablestore_prop_type' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION tablestore.prop_guid(tablestore.entity, tablestore.property_name) RETURNS uuid
AS 'MODULE_PATHNAME', 'tablestore_prop_guid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION tablestore.prop_binary(tablestore.entity, tablestore.property_name) RETURNS bytea
AS 'MODULE_PATHNAME', 'tablestore_prop_binary' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION tablestore.entity_exists(tablestore.entity, tablestore.property_name) RETURNS bool
AS 'MODULE_PATHNAME', 'tablestore_entity_exists' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR tablestore.? (
	LEFTARG = tablestore.entity, RIGHTARG = tablestore.property_name, FUNCTION = tablestore.entity_exists,
	RESTRICT = contsel, JOIN = contjoinsel
);
COMMENT ON FUNCTION tablestore.filter_key_string(tablestore.entity, tablestore.property_name) IS 'filter_key_string with a shippable property name';
COMMENT ON FUNCTION tablestore.filter_key_int32(tablestore.entity, tablestore.property_name) IS 'filter_key_int32 with a shippable property name';
COMMENT ON FUNCTION tablestore.filter_key_int64(tablestore.entity, tablestore.property_name) IS 'filter_key_int64 with a shippable property name';
COMMENT ON FUNCTION tablestore.filter_key_double(tablestore.entity, tablestore.property_name) IS 'filter_key_double with a shippable property name';
COMMENT ON FUNCTION tablestore.filter_key_bool(tablestore.entity, tablestore.property_name) IS 'filter_key_bool with a shippable property name';
COMMENT ON FUNCTION tablestore.filter_key_datetime(tablestore.entity, tablestore.property_name) IS 'filter_key_datetime with a shippable property name';
COMMENT ON FUNCTION tablestore.prop_type(tablestore.entity, tablestore.property_name) IS 'prop_type with a shippable property name';
COMMENT ON FUNCTION tablestore.prop_guid(tablestore.entity, tablestore.property_name) IS 'prop_guid with a shippable property name';
COMMENT ON FUNCTION tablestore.prop_binary(tablestore.entity, tablestore.property_name) IS 'prop_binary with a shippable property name';
COMMENT ON FUNCTION tablestore.entity_exists(tablestore.entity, tablestore.property_name) IS 'Operator ? with a shippable property name';
COMMENT ON OPERATOR tablestore.? (tablestore.entity, tablestore.property_name) IS 'Does the entity have this property (a shippable property name)';

-- Moving a shard to another node, online (doc/scale-out.md)
CREATE FUNCTION tablestore_internal.shard_placement(tbl text, shard int, OUT name text, OUT key text,
	OUT shard_table text, OUT server name, OUT shard_count int)
RETURNS record AS 'MODULE_PATHNAME', 'tablestore_shard_placement' LANGUAGE C STABLE;
CREATE FUNCTION tablestore_internal.repoint_shard(tbl text, shard int, server name) RETURNS void
AS 'MODULE_PATHNAME', 'tablestore_repoint_shard' LANGUAGE C VOLATILE;
CREATE FUNCTION tablestore_internal.node_execute(server name, sql text, in_transaction bool) RETURNS text
AS 'MODULE_PATHNAME', 'tablestore_node_execute' LANGUAGE C VOLATILE;
CREATE FUNCTION tablestore_internal.server_conninfo(server name) RETURNS text
AS 'MODULE_PATHNAME', 'tablestore_server_conninfo' LANGUAGE C STABLE;
REVOKE ALL ON FUNCTION tablestore_internal.shard_placement(text, int) FROM PUBLIC;
REVOKE ALL ON FUNCTION tablestore_internal.repoint_shard(text, int, name) FROM PUBLIC;
REVOKE ALL ON FUNCTION tablestore_internal.node_execute(name, text, bool) FROM PUBLIC;
REVOKE ALL ON FUNCTION tablestore_internal.server_conninfo(name) FROM PUBLIC;
COMMENT ON FUNCTION tablestore_internal.shard_placement(text, int) IS 'A distributed table''s registered name, key, shard table, server and shard count (for move_shard)';
COMMENT ON FUNCTION tablestore_internal.repoint_shard(text, int, name) IS 'Point the coordinator''s partition for a shard at another server (for move_shard)';
COMMENT ON FUNCTION tablestore_internal.node_execute(name, text, bool) IS 'Run a statement on a node: in this transaction''s remote transaction, or on a connection of its own';
COMMENT ON FUNCTION tablestore_internal.server_conninfo(name) IS 'The libpq connection string of a server and the caller''s user mapping';

-- Undo what a failed move left on the nodes (the subscription, the publication, the target's copy).
CREATE PROCEDURE tablestore_internal.move_shard_cleanup(job text, source name, target name, shard_table text)
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM tablestore_internal.node_execute(target, pg_catalog.format('DROP SUBSCRIPTION IF EXISTS %I', job), false);
	PERFORM tablestore_internal.node_execute(source, pg_catalog.format('DROP PUBLICATION IF EXISTS %I', job), false);
	PERFORM tablestore_internal.node_execute(target, pg_catalog.format('DROP TABLE IF EXISTS %s', shard_table), false);
END $$;
REVOKE ALL ON PROCEDURE tablestore_internal.move_shard_cleanup(text, name, name, text) FROM PUBLIC;
COMMENT ON PROCEDURE tablestore_internal.move_shard_cleanup(text, name, name, text) IS 'What a failed move_shard leaves on the nodes, removed';

-- No SET clause: a procedure with one cannot commit, and this one commits between its steps.
CREATE PROCEDURE tablestore.move_shard(tbl text, shard int, to_server name, timeout interval DEFAULT '10 minutes')
LANGUAGE plpgsql AS $$
DECLARE
	p record;
	job text;
	version text;
	deadline timestamptz := pg_catalog.clock_timestamp() OPERATOR(pg_catalog.+) timeout;
	digest text;
	digest_sql text;
BEGIN
	SELECT * INTO STRICT p FROM tablestore_internal.shard_placement(tbl, shard);
	IF p.server OPERATOR(pg_catalog.=) to_server THEN
		RAISE EXCEPTION USING ERRCODE = 'TSX05',
			MESSAGE = pg_catalog.format('InvalidInput: shard %s of the table "%s" is on "%s" already', shard, p.key, to_server);
	END IF;
	SELECT e.extversion INTO STRICT version FROM pg_catalog.pg_extension e WHERE e.extname OPERATOR(pg_catalog.=) 'tablestore';
	job := pg_catalog.format('tablestore_move_%s_%s', pg_catalog.left(pg_catalog.md5(p.key), 12), shard);
	digest_sql := pg_catalog.format('SELECT pg_catalog.count(*) || ''/'' || COALESCE(pg_catalog.sum('
		'pg_catalog.hashtextextended(partition_key || row_key || etag, 0)), 0) FROM %s', p.shard_table);

	-- 1. an empty shard table on the target; the source publishes the shard; the target's
	--    subscription copies it and then applies its changes (stamps kept: replication applies
	--    rows without the stamp trigger)
	BEGIN
		PERFORM tablestore_internal.node_execute(to_server, pg_catalog.format('SELECT tablestore.create_shards(%L, %s, ARRAY[%s], %L)',
			p.name, p.shard_count, shard, version), false);
		PERFORM tablestore_internal.node_execute(p.server, pg_catalog.format('CREATE PUBLICATION %I FOR TABLE %s', job, p.shard_table), false);
		PERFORM tablestore_internal.node_execute(to_server, pg_catalog.format('CREATE SUBSCRIPTION %I CONNECTION %L PUBLICATION %I',
			job, tablestore_internal.server_conninfo(p.server), job), false);
		LOOP
			EXIT WHEN tablestore_internal.node_execute(to_server, pg_catalog.format('SELECT pg_catalog.count(*) FROM pg_catalog.pg_subscription_rel r '
				'JOIN pg_catalog.pg_subscription s ON s.oid = r.srsubid WHERE s.subname = %L AND r.srsubstate <> ''r''', job), false)
				OPERATOR(pg_catalog.=) '0';
			IF pg_catalog.clock_timestamp() OPERATOR(pg_catalog.>) deadline THEN
				RAISE EXCEPTION USING ERRCODE = '57014', MESSAGE = pg_catalog.format('the copy of shard %s did not finish in %s', shard, timeout);
			END IF;
			PERFORM pg_catalog.pg_sleep(0.1);
		END LOOP;
	EXCEPTION WHEN OTHERS THEN
		CALL tablestore_internal.move_shard_cleanup(job, p.server, to_server, p.shard_table);
		RAISE;
	END;
	COMMIT;

	-- 2. the switch, one transaction: calls through this coordinator wait (its table locked), the
	--    source's table is locked, the target is waited for until it holds exactly the source's
	--    rows and ETags, the coordinator's partition points at the target, the source's is dropped
	BEGIN
		PERFORM tablestore_internal.repoint_shard(tbl, shard, to_server);
		PERFORM tablestore_internal.node_execute(p.server, pg_catalog.format('LOCK TABLE tablestore_data.%I IN ACCESS EXCLUSIVE MODE', p.key), true);
		digest := tablestore_internal.node_execute(p.server, digest_sql, true);
		LOOP
			EXIT WHEN tablestore_internal.node_execute(to_server, digest_sql, false) OPERATOR(pg_catalog.=) digest;
			IF pg_catalog.clock_timestamp() OPERATOR(pg_catalog.>) deadline THEN
				RAISE EXCEPTION USING ERRCODE = '57014', MESSAGE = pg_catalog.format('shard %s did not catch up in %s', shard, timeout);
			END IF;
			PERFORM pg_catalog.pg_sleep(0.02);
		END LOOP;
		PERFORM tablestore_internal.node_execute(p.server, pg_catalog.format('ALTER TABLE tablestore_data.%I DETACH PARTITION %s', p.key, p.shard_table), true);
		PERFORM tablestore_internal.node_execute(p.server, pg_catalog.format('DROP TABLE %s', p.shard_table), true);
	EXCEPTION WHEN OTHERS THEN
		CALL tablestore_internal.move_shard_cleanup(job, p.server, to_server, p.shard_table);
		RAISE;
	END;
	COMMIT;

	-- 3. the replication is no longer needed
	PERFORM tablestore_internal.node_execute(to_server, pg_catalog.format('DROP SUBSCRIPTION %I', job), false);
	PERFORM tablestore_internal.node_execute(p.server, pg_catalog.format('DROP PUBLICATION IF EXISTS %I', job), false);
END $$;
COMMENT ON PROCEDURE tablestore.move_shard(text, int, name, interval) IS
'Move a distributed table''s shard to another server online: logical replication, catch-up, a short lock, the partition re-pointed';

CREATE FUNCTION tablestore.table_shards(tbl text, OUT shard int, OUT server name, OUT shard_count int)
RETURNS SETOF record AS 'MODULE_PATHNAME', 'tablestore_table_shards' LANGUAGE C STABLE;
COMMENT ON FUNCTION tablestore.table_shards(text) IS
'Where each shard of a distributed table is: its server (NULL when here) and the shard count; no rows for an ordinary table';
