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
