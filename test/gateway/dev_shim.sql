-- test/gateway/dev_shim.sql - development stand-in for the gateway's SQL contract
-- (shared-notes/gateway-sql-api.md), in PL/pgSQL over the extension's existing functions.
--
-- It will be replaced by C functions in the extension; the gateway calls the functions by
-- position, so the input parameter names here differ where the contract's would collide with
-- its own output column names (PostgreSQL refuses an input and an OUT column of one name).
-- Renderings are approximate: jsonb's member order, Timestamp always with 7 digits, $select on
-- queries keeps PartitionKey/RowKey/Timestamp.

\set ON_ERROR_STOP on

-- One entity object (odata.etag, keys, Timestamp, properties with annotations) at a metadata level.
CREATE OR REPLACE FUNCTION tablestore._gw_meta(obj jsonb, metadata text, base text, account text, tbl text)
RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
	k text;
BEGIN
	IF metadata = 'nometadata' THEN
		FOR k IN SELECT jsonb_object_keys(obj) LOOP
			IF k LIKE 'odata.%' OR k LIKE '%@odata.type' THEN
				obj := obj - k;
			END IF;
		END LOOP;
		RETURN obj;
	END IF;
	obj := obj - 'Timestamp@odata.type';
	IF metadata = 'fullmetadata' THEN
		obj := obj || jsonb_build_object(
			'odata.type', account || '.' || tbl,
			'odata.id', base || '/' || tbl || '(PartitionKey=''' || replace(obj->>'PartitionKey', '''', '''''')
				|| ''',RowKey=''' || replace(obj->>'RowKey', '''', '''''') || ''')',
			'odata.editLink', tbl || '(PartitionKey=''' || replace(obj->>'PartitionKey', '''', '''''')
				|| ''',RowKey=''' || replace(obj->>'RowKey', '''', '''''') || ''')');
		IF obj ? 'Timestamp' THEN
			obj := obj || '{"Timestamp@odata.type":"Edm.DateTime"}';
		END IF;
	END IF;
	RETURN obj;
END $$;

-- A point read rendered as the service's single-entity body.
CREATE OR REPLACE FUNCTION tablestore._gw_entity_json(tbl text, pk text, rk text, sel text, metadata text, base text, account text,
	OUT etag text, OUT body text)
LANGUAGE plpgsql AS $$
DECLARE
	r record;
	obj jsonb;
	props jsonb;
	name text;
BEGIN
	SELECT * INTO r FROM tablestore.get_entity(tbl, pk, rk);
	props := (r.properties)::jsonb;
	obj := jsonb_build_object('odata.etag', r.etag, 'PartitionKey', r.partition_key, 'RowKey', r.row_key,
		'Timestamp', to_char(r."timestamp" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') || '0Z');
	IF sel IS NOT NULL THEN
		-- the service: odata.etag and the selected members only (a missing one is null)
		obj := jsonb_build_object('odata.etag', r.etag);
		FOREACH name IN ARRAY string_to_array(replace(sel, ' ', ''), ',') LOOP
			IF name IN ('PartitionKey', 'RowKey') THEN
				obj := obj || jsonb_build_object(name, CASE name WHEN 'PartitionKey' THEN r.partition_key ELSE r.row_key END);
			ELSIF name = 'Timestamp' THEN
				obj := obj || jsonb_build_object(name, to_char(r."timestamp" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') || '0Z');
			ELSE
				obj := obj || jsonb_build_object(name, props->name);
				IF props ? (name || '@odata.type') THEN
					obj := obj || jsonb_build_object(name || '@odata.type', props->(name || '@odata.type'));
				END IF;
			END IF;
		END LOOP;
	ELSE
		obj := obj || props;
	END IF;
	obj := tablestore._gw_meta(obj, metadata, base, account, tbl);
	IF metadata <> 'nometadata' THEN
		obj := obj || jsonb_build_object('odata.metadata', base || '/$metadata#' || tbl || '/@Element');
	END IF;
	etag := r.etag;
	body := obj::text;
END $$;

CREATE OR REPLACE FUNCTION tablestore._gw_table_json(n text, metadata text, base text, account text)
RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE metadata
		WHEN 'fullmetadata' THEN jsonb_build_object('odata.type', account || '.Tables',
			'odata.id', base || '/Tables(''' || n || ''')', 'odata.editLink', 'Tables(''' || n || ''')', 'TableName', n)
		ELSE jsonb_build_object('TableName', n) END
$$;

-- Create Table
CREATE OR REPLACE FUNCTION tablestore.rest_create_table(request_body text, metadata text, base text, account text)
RETURNS TABLE(table_name text, body text) LANGUAGE plpgsql AS $$
DECLARE
	j jsonb;
	obj jsonb;
BEGIN
	BEGIN
		j := request_body::jsonb;
	EXCEPTION WHEN others THEN
		RAISE EXCEPTION USING ERRCODE = 'TSB00', MESSAGE = 'InvalidInput: the request body is not JSON';
	END;
	IF jsonb_typeof(j) IS DISTINCT FROM 'object' OR jsonb_typeof(j->'TableName') IS DISTINCT FROM 'string' THEN
		RAISE EXCEPTION USING ERRCODE = 'TSB00', MESSAGE = 'InvalidInput: the body must be {"TableName":"..."}';
	END IF;
	PERFORM tablestore.create_table(j->>'TableName');
	table_name := j->>'TableName';
	obj := tablestore._gw_table_json(table_name, metadata, base, account);
	IF metadata <> 'nometadata' THEN
		obj := jsonb_build_object('odata.metadata', base || '/$metadata#Tables/@Element') || obj;
	END IF;
	body := obj::text;
	RETURN NEXT;
END $$;

-- Query Tables
CREATE OR REPLACE FUNCTION tablestore.rest_query_tables(p_filter text, p_top int, p_next text, metadata text, base text, account text)
RETURNS TABLE(body text, next_table_name text) LANGUAGE plpgsql AS $$
DECLARE
	cond text := 'true';
	names text[];
	lim int := coalesce(p_top, 1000);
	arr jsonb := '[]';
	i int;
BEGIN
	IF lim < 1 OR lim > 1000 THEN
		RAISE EXCEPTION USING ERRCODE = 'TSQ01', MESSAGE = 'InvalidInput: $top must be from 1 to 1000';
	END IF;
	IF p_filter IS NOT NULL THEN
		cond := tablestore.odata_to_sql(p_filter);
	END IF;
	EXECUTE format($q$
		SELECT array_agg(name ORDER BY name COLLATE "C") FROM (
			SELECT name FROM (
				SELECT n AS name, ''::text AS partition_key, ''::text AS row_key, now() AS "timestamp", ''::text AS etag,
					jsonb_build_object('TableName', n)::tablestore.entity AS properties
				FROM tablestore.list_tables() n) s
			WHERE (%s) AND ($1 IS NULL OR name COLLATE "C" >= $1)
			ORDER BY name COLLATE "C" LIMIT $2) x $q$, cond)
		INTO names USING p_next, lim + 1;
	FOR i IN 1 .. least(coalesce(array_length(names, 1), 0), lim) LOOP
		arr := arr || jsonb_build_array(tablestore._gw_table_json(names[i], metadata, base, account));
	END LOOP;
	IF coalesce(array_length(names, 1), 0) > lim THEN
		next_table_name := names[lim + 1];
	END IF;
	IF metadata = 'nometadata' THEN
		body := jsonb_build_object('value', arr)::text;
	ELSE
		body := jsonb_build_object('odata.metadata', base || '/$metadata#Tables', 'value', arr)::text;
	END IF;
	RETURN NEXT;
END $$;

-- Insert Entity
CREATE OR REPLACE FUNCTION tablestore.rest_insert_entity(tbl text, request_body text, echo bool, metadata text, base text, account text)
RETURNS TABLE(etag text, partition_key text, row_key text, body text) LANGUAGE plpgsql AS $$
DECLARE
	e tablestore.entity;
	g record;
BEGIN
	e := request_body::tablestore.entity;
	etag := tablestore.insert_entity(tbl, e);
	partition_key := tablestore.prop_string(e, 'PartitionKey');
	row_key := tablestore.prop_string(e, 'RowKey');
	IF echo THEN
		SELECT * INTO g FROM tablestore._gw_entity_json(tbl, partition_key, row_key, NULL, metadata, base, account);
		body := g.body;
	END IF;
	RETURN NEXT;
END $$;

-- Update / Merge / InsertOrReplace / InsertOrMerge
CREATE OR REPLACE FUNCTION tablestore.rest_write_entity(tbl text, partition_key text, row_key text, body text, merge bool, if_match text)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	e tablestore.entity;
BEGIN
	e := body::tablestore.entity;
	IF (tablestore.prop_string(e, 'PartitionKey') IS DISTINCT FROM partition_key AND e OPERATOR(tablestore.?) 'PartitionKey')
	   OR (tablestore.prop_string(e, 'RowKey') IS DISTINCT FROM row_key AND e OPERATOR(tablestore.?) 'RowKey') THEN
		RAISE EXCEPTION USING ERRCODE = 'TSB00', MESSAGE = 'InvalidInput: the keys in the body differ from the keys in the URL';
	END IF;
	e := e OPERATOR(tablestore.||) jsonb_build_object('PartitionKey', partition_key, 'RowKey', row_key)::tablestore.entity;
	IF if_match IS NULL THEN
		RETURN tablestore.upsert_entity(tbl, e, CASE WHEN merge THEN 'merge' ELSE 'replace' END);
	ELSIF merge THEN
		RETURN tablestore.merge_entity(tbl, e, if_match);
	ELSE
		RETURN tablestore.update_entity(tbl, e, if_match);
	END IF;
END $$;

-- Get Entity
CREATE OR REPLACE FUNCTION tablestore.rest_get_entity(tbl text, partition_key text, row_key text, "select" text, metadata text, base text, account text)
RETURNS TABLE(etag text, body text) LANGUAGE plpgsql AS $$
DECLARE
	g record;
BEGIN
	SELECT * INTO g FROM tablestore._gw_entity_json(tbl, partition_key, row_key, "select", metadata, base, account);
	etag := g.etag;
	body := g.body;
	RETURN NEXT;
END $$;

-- Query Entities
CREATE OR REPLACE FUNCTION tablestore.rest_query_entities(tbl text, p_filter text, p_select text, p_top int,
	p_next_pk text, p_next_rk text, metadata text, base text, account text)
RETURNS TABLE(body text, next_partition_key text, next_row_key text) LANGUAGE plpgsql AS $$
DECLARE
	page jsonb;
	arr jsonb;
BEGIN
	page := tablestore.query_page(tbl, p_filter, p_select, coalesce(p_top, 1000), p_next_pk, p_next_rk);
	SELECT coalesce(jsonb_agg(tablestore._gw_meta(v, metadata, base, account, tbl) ORDER BY ord), '[]')
		INTO arr FROM jsonb_array_elements(page->'value') WITH ORDINALITY AS t(v, ord);
	IF metadata = 'nometadata' THEN
		body := jsonb_build_object('value', arr)::text;
	ELSE
		body := jsonb_build_object('odata.metadata', base || '/$metadata#' || tbl, 'value', arr)::text;
	END IF;
	next_partition_key := page->>'NextPartitionKey';
	next_row_key := page->>'NextRowKey';
	RETURN NEXT;
END $$;

-- $batch: one row per operation, in request order
CREATE OR REPLACE FUNCTION tablestore.rest_batch(tbl text, operations text, metadata text, base text, account text)
RETURNS TABLE(etag text, body text) LANGUAGE plpgsql AS $$
DECLARE
	doc jsonb;
	ops jsonb;
	res jsonb;
	o jsonb;
	i int;
	g record;
BEGIN
	BEGIN
		doc := operations::jsonb;
	EXCEPTION WHEN others THEN
		RAISE EXCEPTION USING ERRCODE = 'TSB20', MESSAGE = 'InvalidInput: the operations document is not JSON';
	END;
	-- the extension's execute_batch takes the keys inside the entity
	SELECT jsonb_agg(jsonb_strip_nulls(jsonb_build_object(
			'op', x->'op',
			'entity', coalesce(x->'entity', '{}'::jsonb)
				|| CASE WHEN x ? 'PartitionKey' THEN jsonb_build_object('PartitionKey', x->'PartitionKey', 'RowKey', x->'RowKey')
				   ELSE '{}'::jsonb END,
			'if_match', x->'if_match')) ORDER BY ord)
		INTO ops FROM jsonb_array_elements(doc) WITH ORDINALITY AS t(x, ord);
	res := tablestore.execute_batch(tbl, ops::text);
	FOR i IN 0 .. jsonb_array_length(doc) - 1 LOOP
		o := doc->i;
		etag := res->i->>'etag';
		body := NULL;
		IF o->>'op' = 'insert' AND coalesce((o->>'echo')::bool, false) THEN
			SELECT * INTO g FROM tablestore._gw_entity_json(tbl, ops->i->'entity'->>'PartitionKey',
				ops->i->'entity'->>'RowKey', NULL, metadata, base, account);
			body := g.body;
		END IF;
		RETURN NEXT;
	END LOOP;
END $$;
