-- service_properties: the stored Table service properties document (one per database): NULL
-- before the first Set, replaced whole by each Set, the database owner only.
SET search_path = tablestore, public;

\set ECHO none
\i test/regress/helpers.sql
\set ECHO all

SELECT get_service_properties();
SELECT set_service_properties('<?xml version="1.0" encoding="utf-8"?><StorageServiceProperties><Cors /></StorageServiceProperties>');
SELECT get_service_properties();
SELECT set_service_properties('<?xml version="1.0" encoding="utf-8"?><StorageServiceProperties><Logging/></StorageServiceProperties>');
SELECT get_service_properties(), (SELECT count(*) FROM service_properties) AS rows;
SELECT pg_temp.try($$SELECT tablestore.set_service_properties('not a document')$$);
SELECT pg_temp.try($$SELECT tablestore.set_service_properties(NULL)$$);
SELECT pg_temp.try($$SELECT tablestore.set_service_properties('<?xml version="1.0"?><StorageServiceProperties>' || repeat('x', 70000))$$);
CREATE ROLE regress_ts_props_other LOGIN;
SET SESSION AUTHORIZATION regress_ts_props_other;
SELECT pg_temp.try($$SELECT tablestore.set_service_properties('<?xml version="1.0"?><StorageServiceProperties/>')$$);
SELECT tablestore.get_service_properties() IS NOT NULL AS readable;
RESET SESSION AUTHORIZATION;
DROP ROLE regress_ts_props_other;
DELETE FROM service_properties;
