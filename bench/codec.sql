-- bench/codec.sql - entity text input/output against jsonb_in/jsonb_out, a typed accessor against
-- the jsonb expression, and stored size, on the same 10-property documents in one session.
-- Variables: n (documents), trials. Each measurement is a whole query; the scan-and-aggregate cost
-- is measured by a baseline query of the same shape over the same table and subtracted, so the
-- ratios compare the functions themselves. Queries run in rotating order; medians are reported.
\set QUIET on
SET temp_buffers = '512MB';
SET max_parallel_workers_per_gather = 0;
SET jit = off;

CREATE TEMP TABLE docs AS
SELECT i, format('{"Name":"Customer %s","Email":"c%s@contoso.com","City":"%s","Country":"%s","Age":%s,"Orders":%s,"Score":%s,"Balance":%s,"Active":%s,"Vip":%s}',
	i, i, (ARRAY['Seattle','Berlin','Amsterdam','Tokyo'])[1 + i % 4], (ARRAY['US','DE','NL','JP'])[1 + i % 4],
	18 + i % 60, i % 500, (i % 997) + 0.25, round((i * 1.37)::numeric, 2), (i % 2 = 0)::text, (i % 7 = 0)::text) AS t
FROM generate_series(1, :n) i;
CREATE TEMP TABLE ents AS SELECT i, t::tablestore.entity AS e FROM docs;
CREATE TEMP TABLE jsons AS SELECT i, t::jsonb AS j FROM docs;
VACUUM ANALYZE docs, ents, jsons;
-- the same documents: every entity holds its jsonb twin's properties (compared as jsonb: the entity
-- keeps the order written, jsonb an order of its own)
DO $$ BEGIN
	IF (SELECT count(*) FROM ents JOIN jsons USING (i) WHERE e::jsonb <> j) > 0 THEN
		RAISE EXCEPTION 'benchmark documents differ';
	END IF;
END $$;

CREATE TEMP TABLE q (name text PRIMARY KEY, sql text);
INSERT INTO q VALUES
	('in_base',     'SELECT count(t) FROM docs'),
	('in_entity',   'SELECT count(t::tablestore.entity) FROM docs'),
	('in_jsonb',    'SELECT count(t::jsonb) FROM docs'),
	('out_base_e',  'SELECT count(e) FROM ents'),
	('out_entity',  'SELECT count(e::text) FROM ents'),
	('out_base_j',  'SELECT count(j) FROM jsons'),
	('out_jsonb',   'SELECT count(j::text) FROM jsons'),
	-- an accessor costs little per call: it is called 5 times per document for a measurable time
	-- (PostgreSQL evaluates each call; both sides add the same four integers)
	('acc_base_e',  'SELECT sum(0) FROM ents'),
	('acc_entity',  'SELECT sum(tablestore.prop_int32(e, ''Age'') + tablestore.prop_int32(e, ''Age'') + tablestore.prop_int32(e, ''Age'') + tablestore.prop_int32(e, ''Age'') + tablestore.prop_int32(e, ''Age'')) FROM ents'),
	('acc_base_j',  'SELECT sum(0) FROM jsons'),
	('acc_jsonb',   'SELECT sum((j->>''Age'')::int + (j->>''Age'')::int + (j->>''Age'')::int + (j->>''Age'')::int + (j->>''Age'')::int) FROM jsons');

\ir trials.sql

CREATE TEMP VIEW med AS
SELECT name, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS ms FROM timing GROUP BY name;

CREATE TEMP VIEW result AS
WITH m AS (SELECT jsonb_object_agg(name, ms) AS j FROM med),
net AS (
	SELECT 'text input (entity_in vs jsonb_in)' AS what,
		   (j->>'in_entity')::float8 - (j->>'in_base')::float8 AS entity_ms,
		   (j->>'in_jsonb')::float8 - (j->>'in_base')::float8 AS jsonb_ms, 1.2 AS target, 'at most' AS sense FROM m
	UNION ALL
	SELECT 'text output (entity_out vs jsonb_out)',
		   (j->>'out_entity')::float8 - (j->>'out_base_e')::float8,
		   (j->>'out_jsonb')::float8 - (j->>'out_base_j')::float8, 1.2, 'at most' FROM m
	UNION ALL
	SELECT 'prop_int32(e,''Age'') vs (j->>''Age'')::int',
		   (j->>'acc_entity')::float8 - (j->>'acc_base_e')::float8,
		   (j->>'acc_jsonb')::float8 - (j->>'acc_base_j')::float8, 0.5, 'at most' FROM m
)
SELECT what, round(entity_ms::numeric, 1) AS entity_ms, round(jsonb_ms::numeric, 1) AS jsonb_ms,
	   round((entity_ms / NULLIF(jsonb_ms, 0))::numeric, 2) AS ratio,
	   sense || ' ' || target AS target,
	   CASE WHEN entity_ms / NULLIF(jsonb_ms, 0) <= target THEN 'met' ELSE 'MISSED' END AS verdict
FROM net
UNION ALL
SELECT 'stored size per document (bytes)',
	   round(avg(pg_column_size(e)), 1), (SELECT round(avg(pg_column_size(j)), 1) FROM jsons),
	   round(avg(pg_column_size(e)) / (SELECT avg(pg_column_size(j)) FROM jsons), 2), 'at most 1.0',
	   CASE WHEN avg(pg_column_size(e)) <= (SELECT avg(pg_column_size(j)) FROM jsons) THEN 'met' ELSE 'MISSED' END
FROM ents
UNION ALL
SELECT 'table size (bytes, heap + toast)',
	   pg_total_relation_size('ents'), pg_total_relation_size('jsons'),
	   round(pg_total_relation_size('ents')::numeric / pg_total_relation_size('jsons'), 2), '', ''
;

\set QUIET off
\pset footer off
SELECT * FROM result;
-- machine-readable lines for bench/run.sh
\set QUIET on
\t on
\pset format unaligned
SELECT '|' || concat_ws(' | ', what, entity_ms, jsonb_ms, ratio, target, verdict) || '|' FROM result;
SELECT 'raw medians (ms): ' || string_agg(name || '=' || round(ms::numeric, 1), ', ' ORDER BY name) FROM med;
