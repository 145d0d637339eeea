-- bench/query.sql - the query side against hand-written jsonb SQL on the same data, one session.
-- Variables: n (entities, 1000 per partition), trials, loops (queries per range/paging trial).
--   filtered scan    query_entities('Age gt 75') vs SELECT ... WHERE (doc->>'Age')::int > 75 ORDER BY pk, rk
--   range query      100 rows of a partition by RowKey range, both sides through the primary key
--   paging           a 1000-entity partition in pages of 100: query_page vs keyset SQL building a JSON page
--   translation      odata_to_sql of a 15-comparison filter
-- Both sides read every returned row's document (sum of pg_column_size), as a client would.
-- Ratios are raw time / tablestore time (higher is better for tablestore); medians of alternating trials.
\set QUIET on
SET jit = off;

SELECT tablestore.create_table('BenchQ', '{"indexingMode":"none"}') \gset
CREATE TABLE rawq (pk text, rk text, doc jsonb, PRIMARY KEY (pk, rk));
CREATE TEMP TABLE src AS
SELECT 'p' || lpad((i % 1000)::text, 4, '0') AS pk, lpad(i::text, 8, '0') AS rk,
	   format('{"Name":"Customer %s","Email":"c%s@contoso.com","City":"%s","Country":"%s","Age":%s,"Orders":%s,"Score":%s,"Balance":%s,"Active":%s,"Vip":%s}',
		i, i, (ARRAY['Seattle','Berlin','Amsterdam','Tokyo'])[1 + i % 4], (ARRAY['US','DE','NL','JP'])[1 + i % 4],
		18 + i % 60, i % 500, (i % 997) + 0.25, round((i * 1.37)::numeric, 2), (i % 2 = 0)::text, (i % 7 = 0)::text) AS doc
FROM generate_series(1, :n) i;
INSERT INTO tablestore_data.benchq (partition_key, row_key, properties) SELECT pk, rk, doc::tablestore.entity FROM src;
INSERT INTO rawq SELECT pk, rk, doc::jsonb FROM src;
DROP TABLE src;
VACUUM ANALYZE tablestore_data.benchq, rawq;

CREATE TEMP TABLE q (name text PRIMARY KEY, sql text);
INSERT INTO q VALUES
	('scan_ts',  'SELECT sum(pg_column_size(properties)) FROM tablestore.query_entities(''BenchQ'', ''Age gt 75'')'),
	('scan_raw', 'SELECT sum(pg_column_size(doc)) FROM (SELECT pk, rk, doc FROM rawq WHERE (doc->>''Age'')::int > 75 ORDER BY pk, rk) s');

-- range queries: :loops random 100-row ranges (the same ones for both sides)
CREATE TEMP TABLE ranges AS
SELECT g, pk, lo, hi, format('PartitionKey eq %L and RowKey ge %L and RowKey lt %L', pk, lo, hi) AS filter
FROM (SELECT g, 'p' || lpad(p::text, 4, '0') AS pk, lpad((p + k * 1000)::text, 8, '0') AS lo,
			 lpad((p + (k + 100) * 1000)::text, 8, '0') AS hi
	  FROM (SELECT g, (g * 7919) % 1000 AS p, (g * 104729) % ((:n / 1000) - 100) AS k
			FROM generate_series(1, :loops) g) x) y;
CREATE FUNCTION pg_temp.range_ts() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE r record; c bigint := 0; m bigint;
BEGIN
	FOR r IN SELECT * FROM ranges LOOP
		SELECT sum(pg_column_size(properties)) INTO m FROM tablestore.query_entities('BenchQ', r.filter);
		c := c + m;
	END LOOP;
	RETURN c;
END $$;
CREATE FUNCTION pg_temp.range_raw() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE r record; c bigint := 0; m bigint;
BEGIN
	FOR r IN SELECT * FROM ranges LOOP
		SELECT sum(pg_column_size(doc)) INTO m FROM (SELECT pk, rk, doc FROM rawq WHERE pk = r.pk AND rk >= r.lo AND rk < r.hi ORDER BY pk, rk) s;
		c := c + m;
	END LOOP;
	RETURN c;
END $$;
INSERT INTO q VALUES ('range_ts', 'SELECT pg_temp.range_ts()'), ('range_raw', 'SELECT pg_temp.range_raw()');

-- paging: whole partitions in pages of 100, each page a JSON document on both sides
CREATE FUNCTION pg_temp.paging_ts(parts int) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE p jsonb; npk text; nrk text; c bigint := 0; pk text;
BEGIN
	FOR g IN 1..parts LOOP
		pk := 'p' || lpad(((g * 7919) % 1000)::text, 4, '0');
		npk := NULL; nrk := NULL;
		LOOP
			p := tablestore.query_page('BenchQ', format('PartitionKey eq %L', pk), NULL, 100, npk, nrk);
			c := c + jsonb_array_length(p->'value');
			EXIT WHEN NOT p ? 'NextPartitionKey';
			npk := p->>'NextPartitionKey'; nrk := p->>'NextRowKey';
		END LOOP;
	END LOOP;
	RETURN c;
END $$;
CREATE FUNCTION pg_temp.paging_raw(parts int) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE p jsonb; last text; c bigint := 0; n int; part text;
BEGIN
	FOR g IN 1..parts LOOP
		part := 'p' || lpad(((g * 7919) % 1000)::text, 4, '0');
		last := '';
		LOOP
			SELECT jsonb_build_object('value', coalesce(jsonb_agg(jsonb_build_object('PartitionKey', s.pk, 'RowKey', s.rk) || s.doc), '[]')),
				   count(*), max(s.rk)
			INTO p, n, last
			FROM (SELECT * FROM rawq WHERE rawq.pk = part AND rk > last ORDER BY rk LIMIT 100) s;
			c := c + n;
			EXIT WHEN n < 100;
		END LOOP;
	END LOOP;
	RETURN c;
END $$;
INSERT INTO q VALUES ('paging_ts', format('SELECT pg_temp.paging_ts(%s)', greatest(:loops / 20, 1))),
	('paging_raw', format('SELECT pg_temp.paging_raw(%s)', greatest(:loops / 20, 1)));

-- translation: a 15-comparison filter, 20000 times
CREATE FUNCTION pg_temp.translate(times int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
	f text := '(PartitionKey eq ''Sales'') and (RowKey ge ''empid_000100'') and (RowKey le ''empid_000199'') and '
		'(Age gt 30 or Age lt 20) and (LastName eq ''Smith'' or LastName eq ''Jones'') and Active eq true and '
		'Score ge 2.5 and not (City eq ''Berlin'') and Hired gt datetime''2014-08-22T00:50:44Z'' and '
		'Id ne guid''68260b3f-beab-45e2-b900-33e2b442e724'' and Big lt 9007199254740993L and Photo eq X''0aff'' and Orders le 17';
	s int := 0;
BEGIN
	FOR i IN 1..times LOOP
		s := s + length(tablestore.odata_to_sql(f));
	END LOOP;
	RETURN s;
END $$;

\ir trials.sql
SELECT t0 FROM (SELECT clock_timestamp() AS t0) x \gset
SELECT pg_temp.translate(20000) AS translated \gset
SELECT extract(epoch FROM clock_timestamp() - :'t0'::timestamptz) * 1e6 / 20000 AS translate_us \gset

CREATE TEMP VIEW med AS
SELECT name, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS ms FROM timing GROUP BY name;
CREATE TEMP VIEW result AS
WITH m AS (SELECT jsonb_object_agg(name, ms) AS j FROM med)
SELECT what, round(ts_ms::numeric, 1) AS ts_ms, round(raw_ms::numeric, 1) AS raw_ms,
	   round((raw_ms / ts_ms)::numeric, 2) AS ratio, target,
	   CASE WHEN target = '' THEN '' WHEN raw_ms / ts_ms >= 1.0 THEN 'met' ELSE 'MISSED' END AS verdict
FROM (
	SELECT format('filtered scan of %s entities (Age gt 75)', :n) AS what,
		   (j->>'scan_ts')::float8 AS ts_ms, (j->>'scan_raw')::float8 AS raw_ms, 'at least 1.0' AS target FROM m
	UNION ALL
	SELECT format('%s partition range queries of 100 rows', :loops), (j->>'range_ts')::float8, (j->>'range_raw')::float8, '' FROM m
	UNION ALL
	SELECT format('paging %s partitions of 1000 in pages of 100', greatest(:loops / 20, 1)),
		   (j->>'paging_ts')::float8, (j->>'paging_raw')::float8, '' FROM m
) x;

\set QUIET off
\pset footer off
SELECT * FROM result;
SELECT round(:translate_us::numeric, 1) AS "translation of a 15-comparison filter (us per call)";
\set QUIET on
\t on
\pset format unaligned
SELECT '|' || concat_ws(' | ', what, ts_ms, raw_ms, ratio, target, verdict) || '|' FROM result;
SELECT '|translation of a 15-comparison filter (us per call) | ' || round(:translate_us::numeric, 1) || ' |  |  | at most 50 | ' ||
	   CASE WHEN :translate_us <= 50 THEN 'met' ELSE 'MISSED' END || '|';
SELECT 'raw medians (ms): ' || string_agg(name || '=' || round(ms::numeric, 1), ', ' ORDER BY name) FROM med;
