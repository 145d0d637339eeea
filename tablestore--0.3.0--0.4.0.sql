-- tablestore upgrade script from 0.3.0 to 0.4.0. Every change made to tablestore.sql since 0.3.0
-- is made here too; the regression test sql/extension.sql checks that each release plus the
-- upgrade scripts gives the same objects as a fresh install.

\echo Use "ALTER EXTENSION tablestore UPDATE TO '0.4.0'" to load this file. \quit

-- tablestore-copy --keep-timestamps (issue 33)
CREATE FUNCTION tablestore.import_timestamps(tbl text) RETURNS void
AS 'MODULE_PATHNAME', 'tablestore_import_timestamps' LANGUAGE C VOLATILE STRICT;

COMMENT ON FUNCTION tablestore.import_timestamps(text) IS
'For the rest of the transaction, rows inserted into the table with an ETag in their etag column keep the Timestamp it carries (an import keeping the source''s ETags, tablestore-copy --keep-timestamps); the table''s owner only';
