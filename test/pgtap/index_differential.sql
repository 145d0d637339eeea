-- test/pgtap/index_differential.sql - results never depend on the indexing policy (contract §1):
-- random entities (every EDM type, the same property with different types, absent properties,
-- long Strings and Binaries whose index keys are cut, NaN, -0, infinities, Int64 beyond 2^53)
-- in a table indexed with the default policy and in one with indexingMode none; random filters
-- (comparisons of every literal type under and, or and not) answered by both - the first with
-- the scan forced onto the entity index - with the same entities, in the same order, and the
-- same pages and continuations. A fixed seed makes a failure reproducible.
BEGIN;
SET search_path = tablestore, public;
SELECT plan(5);
SELECT setseed(0.2604);

SELECT create_table('DiffIx');
SELECT create_table('DiffNo', '{"indexingMode":"none"}');

-- a random value of a random EDM type, from small domains so that comparisons meet equal values
CREATE FUNCTION pg_temp.rnd(n int) RETURNS int LANGUAGE sql AS $$ SELECT floor(random() * n)::int $$;
CREATE FUNCTION pg_temp.rnd_member(name text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	t int := pg_temp.rnd(8);
	k int := pg_temp.rnd(7) - 3;
BEGIN
	RETURN CASE t
		WHEN 0 THEN format('"%s":%s', name, to_json(CASE pg_temp.rnd(4) WHEN 0 THEN repeat('a', 126 + pg_temp.rnd(4)) || chr(98 + pg_temp.rnd(3))
			WHEN 1 THEN '' ELSE chr(97 + pg_temp.rnd(5)) END))
		WHEN 1 THEN format('"%s":%s', name, CASE pg_temp.rnd(6) WHEN 0 THEN '2147483647' WHEN 1 THEN '-2147483648' ELSE k::text END)
		WHEN 2 THEN format('"%s":"%s","%s@odata.type":"Edm.Int64"', name,
			CASE pg_temp.rnd(5) WHEN 0 THEN '9007199254740993' WHEN 1 THEN '-9223372036854775808' ELSE k::text END, name)
		WHEN 3 THEN format('"%s":"%s","%s@odata.type":"Edm.Double"', name,
			(ARRAY['NaN', 'Infinity', '-Infinity', '-0', '9007199254740992', '2.5', '-1.5', k::text, k::text, k::text])[1 + pg_temp.rnd(10)], name)
		WHEN 4 THEN format('"%s":%s', name, (pg_temp.rnd(2) = 1)::text)
		WHEN 5 THEN format('"%s":"2014-08-22T00:50:4%sZ","%s@odata.type":"Edm.DateTime"', name, 3 + k, name)
		WHEN 6 THEN format('"%s":"00000000-0000-0000-0000-00000000000%s","%s@odata.type":"Edm.Guid"', name, 3 + k, name)
		ELSE format('"%s":"%s","%s@odata.type":"Edm.Binary"', name,
			translate(encode(CASE pg_temp.rnd(3) WHEN 0 THEN decode(repeat('01', 128 + pg_temp.rnd(3)), 'hex')
				ELSE decode(lpad(to_hex(3 + k), 2, '0'), 'hex') END, 'base64'), E'\n', ''), name)
	END;
END $$;
CREATE TEMP TABLE entities AS
SELECT 'p' || pg_temp.rnd(12) AS pk, lpad(i::text, 5, '0') AS rk,
	   '{' || coalesce((SELECT string_agg(pg_temp.rnd_member(n), ',') FROM unnest(ARRAY['A', 'B', 'C', 'D']) n
						 WHERE random() < 0.7 AND i > 0), '') || '}' AS props
FROM generate_series(1, 3000) i;
INSERT INTO tablestore_data.diffix (partition_key, row_key, properties) SELECT pk, rk, props::entity FROM entities;
INSERT INTO tablestore_data.diffno (partition_key, row_key, properties) SELECT pk, rk, props::entity FROM entities;
ANALYZE tablestore_data.diffix;

-- a random literal of a random kind, and random filters of 1 to 4 comparisons
CREATE FUNCTION pg_temp.rnd_literal() RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	k int := pg_temp.rnd(9) - 4;
BEGIN
	RETURN CASE pg_temp.rnd(8)
		WHEN 0 THEN CASE pg_temp.rnd(3) WHEN 0 THEN '''' || repeat('a', 126 + pg_temp.rnd(4)) || chr(97 + pg_temp.rnd(4)) || ''''
			ELSE '''' || chr(96 + pg_temp.rnd(7)) || '''' END
		WHEN 1 THEN CASE pg_temp.rnd(6) WHEN 0 THEN '2147483647' WHEN 1 THEN '-2147483648' ELSE k::text END
		WHEN 2 THEN (ARRAY['9007199254740992L', '9007199254740993L', '-9223372036854775808L', k || 'L', k || 'L'])[1 + pg_temp.rnd(5)]
		WHEN 3 THEN (ARRAY['2.5', '-1.5', '9007199254740992.0', '1e308', '-0.0', k || '.0', k || '.0'])[1 + pg_temp.rnd(7)]
		WHEN 4 THEN (pg_temp.rnd(2) = 1)::text
		WHEN 5 THEN format('datetime''2014-08-22T00:50:4%sZ''', 4 + k / 2)
		WHEN 6 THEN format('guid''00000000-0000-0000-0000-00000000000%s''', 4 + k / 2)
		ELSE CASE pg_temp.rnd(3) WHEN 0 THEN 'X''' || repeat('01', 127 + pg_temp.rnd(4)) || '''' ELSE 'X''' || lpad(to_hex(4 + k / 2), 2, '0') || '''' END
	END;
END $$;
CREATE FUNCTION pg_temp.rnd_filter(depth int) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	IF depth = 0 OR random() < 0.45 THEN
		RETURN (CASE WHEN random() < 0.15 THEN 'not ' ELSE '' END) ||
			format('(%s %s %s)', (ARRAY['A', 'B', 'C', 'D', 'E'])[1 + pg_temp.rnd(5)],
				   (ARRAY['eq', 'ne', 'gt', 'ge', 'lt', 'le'])[1 + pg_temp.rnd(6)], pg_temp.rnd_literal());
	END IF;
	RETURN format('(%s %s %s)', pg_temp.rnd_filter(depth - 1), CASE WHEN random() < 0.5 THEN 'and' ELSE 'or' END,
				  pg_temp.rnd_filter(depth - 1));
END $$;
CREATE TEMP TABLE filters AS SELECT i, pg_temp.rnd_filter(2) AS f FROM generate_series(1, 250) i;

-- every page of a filter: its entities' keys (a continuation may differ: the walk of the primary
-- key may resume at an entity it has not examined, the index at the next match; both resume right)
CREATE FUNCTION pg_temp.pages(tbl text, filter text, top int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	p jsonb;
	npk text;
	nrk text;
	out text := '';
BEGIN
	FOR n IN 1..1000 LOOP
		p := tablestore.query_page(tbl, filter, NULL, top, npk, nrk);
		out := out || '[' || (SELECT coalesce(string_agg((e->>'PartitionKey') || '/' || (e->>'RowKey'), ' '), '')
							  FROM jsonb_array_elements(p->'value') e) || ']';
		EXIT WHEN NOT p ? 'NextPartitionKey';
		npk := p->>'NextPartitionKey';
		nrk := p->>'NextRowKey';
	END LOOP;
	RETURN out;
END $$;
CREATE FUNCTION pg_temp.rows(tbl text, filter text) RETURNS text LANGUAGE sql AS $$
	SELECT coalesce(string_agg(partition_key || '/' || row_key, ' '), '') FROM tablestore.query_entities(tbl, filter)
$$;

-- the answers without the index
CREATE TEMP TABLE plain AS SELECT i, f, pg_temp.rows('DiffNo', f) AS r, pg_temp.pages('DiffNo', f, 60) AS p FROM filters;
-- and through the index: no sequential scan and no walk of the primary key where the index can serve
SET enable_seqscan = off;
SET enable_indexscan = off;
CREATE TEMP TABLE indexed AS SELECT i, f, pg_temp.rows('DiffIx', f) AS r, pg_temp.pages('DiffIx', f, 60) AS p FROM filters;
SELECT ok((SELECT count(*) FROM filters WHERE EXISTS (SELECT 1 FROM tablestore.explain_query('DiffIx', f) e
		   WHERE e LIKE '%Bitmap Index Scan on diffix_entities%')) >= 150, 'most filters are read from the entity index');
RESET enable_seqscan;
RESET enable_indexscan;

SELECT ok((SELECT count(*) FROM plain WHERE r <> '') >= 150 AND (SELECT count(*) FROM plain WHERE r = '') >= 10,
		  'the filters match some entities and sometimes none');
SELECT is((SELECT count(*) FROM plain p JOIN indexed x USING (i) WHERE p.r IS DISTINCT FROM x.r), 0::bigint,
		  'query_entities answers the same entities in the same order with and without the index');
SELECT is((SELECT count(*) FROM plain p JOIN indexed x USING (i) WHERE p.p IS DISTINCT FROM x.p), 0::bigint,
		  'query_page answers the same pages with and without the index');
-- the same through the index chosen by the planner (default settings)
SELECT is((SELECT count(*) FROM plain p WHERE p.r IS DISTINCT FROM pg_temp.rows('DiffIx', p.f)), 0::bigint,
		  'and with the plans the planner chooses');
SELECT diag(format('filter %s differs: %s', p.f, left(p.r, 200) || ' / ' || left(x.r, 200)))
FROM plain p JOIN indexed x USING (i) WHERE p.r IS DISTINCT FROM x.r LIMIT 5;

SELECT * FROM finish();
ROLLBACK;
