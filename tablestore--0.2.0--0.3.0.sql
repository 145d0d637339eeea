-- tablestore upgrade script from 0.2.0 to 0.3.0. Every change made to tablestore.sql since 0.2.0
-- is made here too; the regression test sql/extension.sql checks that 0.1.0 plus the upgrade
-- scripts gives the same objects as a fresh install.

\echo Use "ALTER EXTENSION tablestore UPDATE TO '0.3.0'" to load this file. \quit

-- A row's exact Timestamp and its If-Match rule (src/etag.c): the etag column holds the Timestamp in
-- 100 ns ticks, the "timestamp" column the same rounded down to the microsecond.
CREATE FUNCTION tablestore.timestamp_ticks("timestamp" timestamptz, etag text) RETURNS int8
AS 'MODULE_PATHNAME', 'tablestore_timestamp_ticks' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION tablestore.timestamp_ticks(timestamptz, text) IS
'A row''s exact Timestamp in .NET ticks (100 ns since 0001-01-01) from its "timestamp" and etag columns';

CREATE FUNCTION tablestore.etag_matches(etag text, if_match text) RETURNS bool
AS 'MODULE_PATHNAME', 'tablestore_etag_matches' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION tablestore.etag_matches(text, text) IS
'Does an If-Match ETag match a row''s stored etag (the same text, or the service form of an ETag stored before 0.3.0)';
