-- extension: the extension's objects - every one described (COMMENT ON), the internals not
-- executable by PUBLIC - and the upgrade paths: each release (0.1.0, 0.2.0, 0.3.0) plus ALTER EXTENSION
-- UPDATE gives exactly the objects of a fresh install.
SET client_min_messages = warning;

-- Every member of the extension, with what defines it, its privileges and its description.
CREATE FUNCTION pg_temp.extension_objects() RETURNS TABLE (object text, definition text, acl text, description text)
LANGUAGE sql AS $$
	SELECT pg_describe_object(d.classid, d.objid, 0),
		   CASE d.classid
			   WHEN 'pg_proc'::regclass THEN (SELECT CASE WHEN p.prokind = 'a' THEN p.prosrc ELSE pg_get_functiondef(p.oid) END
											  FROM pg_proc p WHERE p.oid = d.objid)
			   WHEN 'pg_type'::regclass THEN (SELECT concat_ws(' ', t.typtype, t.typinput, t.typoutput, t.typreceive, t.typsend,
															  t.typanalyze, t.typlen, t.typalign, t.typstorage, t.typrelid::regclass)
											  FROM pg_type t WHERE t.oid = d.objid)
			   WHEN 'pg_class'::regclass THEN (SELECT concat_ws(' ', c.relkind, c.relrowsecurity,
															   (SELECT string_agg(format('%s %s %s %s', a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
																						 pg_get_expr(ad.adbin, ad.adrelid)), ', ' ORDER BY a.attnum)
																FROM pg_attribute a LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
																WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped),
															   (SELECT string_agg(pg_get_constraintdef(k.oid), ', ' ORDER BY k.conname) FROM pg_constraint k WHERE k.conrelid = c.oid))
											   FROM pg_class c WHERE c.oid = d.objid)
			   WHEN 'pg_operator'::regclass THEN (SELECT concat_ws(' ', o.oprcode, o.oprcom::regoperator, o.oprnegate::regoperator, o.oprrest, o.oprjoin, o.oprcanhash, o.oprcanmerge)
												  FROM pg_operator o WHERE o.oid = d.objid)
			   WHEN 'pg_opclass'::regclass THEN (SELECT concat_ws(' ', (SELECT string_agg(format('%s %s', a.amopstrategy, a.amopopr::regoperator), ', ' ORDER BY a.amopstrategy) FROM pg_amop a WHERE a.amopfamily = oc.opcfamily),
															 (SELECT string_agg(format('%s %s', p.amprocnum, p.amproc::regprocedure), ', ' ORDER BY p.amprocnum) FROM pg_amproc p WHERE p.amprocfamily = oc.opcfamily))
												 FROM pg_opclass oc WHERE oc.oid = d.objid)
			   WHEN 'pg_cast'::regclass THEN (SELECT concat_ws(' ', c.castfunc::regprocedure, c.castcontext, c.castmethod) FROM pg_cast c WHERE c.oid = d.objid)
			   WHEN 'pg_event_trigger'::regclass THEN (SELECT concat_ws(' ', e.evtevent, e.evtfoid::regprocedure, e.evtenabled, e.evttags) FROM pg_event_trigger e WHERE e.oid = d.objid)
		   END,
		   CASE d.classid
			   WHEN 'pg_proc'::regclass THEN (SELECT p.proacl::text FROM pg_proc p WHERE p.oid = d.objid)
			   WHEN 'pg_class'::regclass THEN (SELECT c.relacl::text FROM pg_class c WHERE c.oid = d.objid)
			   WHEN 'pg_namespace'::regclass THEN (SELECT n.nspacl::text FROM pg_namespace n WHERE n.oid = d.objid)
		   END,
		   obj_description(d.objid, (SELECT c.relname FROM pg_class c WHERE c.oid = d.classid))
	FROM pg_depend d
	JOIN pg_extension x ON x.oid = d.refobjid AND x.extname = 'tablestore'
	WHERE d.deptype = 'e'
$$;

-- every object is described
SELECT object FROM pg_temp.extension_objects() WHERE description IS NULL ORDER BY 1;
-- nothing in tablestore_internal is executable or usable by PUBLIC
SELECT p.oid::regprocedure FROM pg_proc p
WHERE p.pronamespace = 'tablestore_internal'::regnamespace AND has_function_privilege('public', p.oid, 'EXECUTE');
SELECT has_schema_privilege('public', 'tablestore_internal', 'USAGE') AS public_uses_internal;

-- the upgrade path
SELECT extversion AS installed FROM pg_extension WHERE extname = 'tablestore';
SELECT version FROM pg_available_extension_versions WHERE name = 'tablestore' ORDER BY version;
CREATE TEMP TABLE fresh AS SELECT * FROM pg_temp.extension_objects();
-- each release updated to the current version: no difference from a fresh install, in either direction
CREATE FUNCTION pg_temp.upgrade_differences(release text) RETURNS TABLE (side text, object text)
LANGUAGE plpgsql AS $$
BEGIN
	DROP EXTENSION tablestore CASCADE;
	EXECUTE format('CREATE EXTENSION tablestore VERSION %L', release);
	ALTER EXTENSION tablestore UPDATE;
	RETURN QUERY
		(SELECT 'only after the upgrade', u.object FROM (SELECT * FROM pg_temp.extension_objects() EXCEPT SELECT * FROM fresh) u)
		UNION ALL
		(SELECT 'only in a fresh install', f.object FROM (SELECT * FROM fresh EXCEPT SELECT * FROM pg_temp.extension_objects()) f)
		ORDER BY 1, 2;
END $$;
SELECT * FROM pg_temp.upgrade_differences('0.1.0');
SELECT extversion AS updated_to FROM pg_extension WHERE extname = 'tablestore';
SELECT * FROM pg_temp.upgrade_differences('0.2.0');
SELECT extversion AS updated_to FROM pg_extension WHERE extname = 'tablestore';
SELECT * FROM pg_temp.upgrade_differences('0.3.0');
SELECT extversion AS updated_to FROM pg_extension WHERE extname = 'tablestore';
SELECT count(*) AS compared_objects FROM fresh;
-- a table of 0.2.0 through the update (an ordinary one, also where new tables
-- are distributed: a node runs the current version)
DROP EXTENSION tablestore CASCADE;
CREATE EXTENSION tablestore VERSION '0.2.0';
SET tablestore.distribute_new_tables = '';
SELECT tablestore.create_table('Legacy');
SELECT count(tablestore.insert_entity('Legacy', format('{"PartitionKey":"p","RowKey":"%s","Age":%s}', i, i)::tablestore.entity))
FROM generate_series(1, 50) i;
ALTER EXTENSION tablestore UPDATE;
SELECT extversion AS updated_to FROM pg_extension WHERE extname = 'tablestore';
-- with a table present, too: no difference from a fresh install, in either direction
(SELECT 'only after the upgrade' AS side, object FROM (SELECT * FROM pg_temp.extension_objects() EXCEPT SELECT * FROM fresh) u)
UNION ALL
(SELECT 'only in a fresh install', object FROM (SELECT * FROM fresh EXCEPT SELECT * FROM pg_temp.extension_objects()) f)
ORDER BY 1, 2;
-- a table of 0.2.0 indexes nothing until its policy is set (the update builds no index); a new table
-- indexes every property
SELECT tablestore.get_indexing_policy('Legacy');
SELECT indexrelid::regclass FROM pg_index WHERE indrelid = 'tablestore_data.legacy'::regclass ORDER BY 1;
SELECT tablestore.query_sql('Legacy', 'Age gt 45');
SELECT tablestore.create_table('Fresh');
SELECT tablestore.get_indexing_policy('Fresh') ->> 'indexingMode' AS fresh_mode;
SELECT indexrelid::regclass FROM pg_index WHERE indrelid = 'tablestore_data.fresh'::regclass ORDER BY 1;
SELECT tablestore.set_indexing_policy('Legacy', '{"indexingMode":"consistent"}') ->> 'indexingMode' AS legacy_mode;
CALL tablestore.wait_for_indexing('Legacy');
SELECT indexrelid::regclass, indisvalid FROM pg_index WHERE indrelid = 'tablestore_data.legacy'::regclass ORDER BY 1;
SELECT tablestore.query_sql('Legacy', 'Age gt 45');
SELECT string_agg(row_key, ',' ORDER BY row_key) FROM tablestore.query_entities('Legacy', 'Age gt 45');
RESET tablestore.distribute_new_tables;
-- back to a fresh install for the files that follow
DROP EXTENSION tablestore CASCADE;
CREATE EXTENSION tablestore;
