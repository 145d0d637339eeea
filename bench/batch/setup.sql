-- bench/batch/setup.sql - the batch workload's tables and helpers: the single workload's tables
-- (tablestore "bench" and raw (pk, rk, doc jsonb)) and batch_text, which builds the operations
-- document of one 100-entity insert batch from the same ten-property text the raw side parses.
\ir ../single/setup.sql
CREATE OR REPLACE FUNCTION batch_text(pk text, b bigint) RETURNS text LANGUAGE sql STABLE AS $$
	SELECT '[' || string_agg(format('{"op":"insert","entity":%s}',
		entity_text(pk, b || '_' || lpad(i::text, 3, '0'), b)), ',') || ']'
	FROM generate_series(0, 99) i
$$;
