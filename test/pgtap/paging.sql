-- test/pgtap/paging.sql - paging with continuations (contract §5): 25 000 entities over many
-- partitions come back exactly once and in key order in pages of 1000; pages cut short by the
-- time budget resume where they stopped; writes between pages skip or repeat nothing that
-- existed throughout.
BEGIN;
SET search_path = tablestore, public;
SELECT plan(20);

SELECT create_table('Pages');
INSERT INTO tablestore_data.pages (partition_key, row_key, properties)
SELECT 'p' || lpad((i % 97)::text, 2, '0'), lpad(i::text, 6, '0'), format('{"n":%s}', i)::entity
FROM generate_series(1, 25000) i;
ANALYZE tablestore_data.pages;

-- Page through a query; returns every entity seen with its page number and position.
CREATE FUNCTION pg_temp.page_all(filter text, top int)
RETURNS TABLE (page int, seq int, pk text, rk text, size int, more bool) LANGUAGE plpgsql AS $$
DECLARE
	p jsonb;
	npk text;
	nrk text;
	n int := 0;
	s int := 0;
BEGIN
	LOOP
		p := tablestore.query_page('Pages', filter, NULL, top, npk, nrk);
		n := n + 1;
		page := n;
		size := jsonb_array_length(p->'value');
		more := p ? 'NextPartitionKey';
		FOR pk, rk IN SELECT e->>'PartitionKey', e->>'RowKey' FROM jsonb_array_elements(p->'value') e LOOP
			s := s + 1;
			seq := s;
			RETURN NEXT;
		END LOOP;
		IF size = 0 THEN
			pk := NULL; rk := NULL; seq := NULL;
			RETURN NEXT;
		END IF;
		EXIT WHEN NOT more OR n > 100000;
		npk := p->>'NextPartitionKey';
		nrk := p->>'NextRowKey';
	END LOOP;
END $$;

CREATE TEMP TABLE seen AS SELECT * FROM pg_temp.page_all(NULL, 1000);
SELECT is((SELECT count(*) FROM seen WHERE pk IS NOT NULL), 25000::bigint, 'all 25000 entities are returned');
SELECT is((SELECT count(DISTINCT (pk, rk)) FROM seen WHERE pk IS NOT NULL), 25000::bigint, 'each exactly once');
SELECT is((SELECT count(DISTINCT page) FROM seen), 25::bigint, 'in 25 pages');
SELECT is((SELECT count(*) FROM (SELECT page FROM seen GROUP BY page HAVING count(*) <> 1000) x), 0::bigint,
	'every page holds 1000 entities');
SELECT is((SELECT count(*) FROM (SELECT (pk COLLATE "C", rk COLLATE "C") <= (lag(pk) OVER w, lag(rk) OVER w) AS backwards
		FROM seen WINDOW w AS (ORDER BY seq)) x WHERE backwards), 0::bigint, 'in strictly increasing (PartitionKey, RowKey) order across pages');
SELECT ok(NOT (SELECT more FROM seen ORDER BY seq DESC LIMIT 1), 'the last page has no continuation');
SELECT is((SELECT min(pk) || '/' || min(rk) FROM seen WHERE seq = 1), 'p00/000097', 'the first entity is the smallest key');

-- A filter that is not a key range walks the key order in chunks of growing size (1024 rows,
-- then 2048, ...): pages of a filter that half the entities match cross the chunk edges, where
-- the walk resumes at the previous chunk's last row.
CREATE TEMP TABLE walked AS SELECT * FROM pg_temp.page_all('n le 12500', 1000);
SELECT is((SELECT count(*) FROM walked WHERE pk IS NOT NULL), 12500::bigint, 'a non-key filter across chunk edges: all 12500 matches');
SELECT is((SELECT count(DISTINCT (pk, rk)) FROM walked WHERE pk IS NOT NULL), 12500::bigint, 'each exactly once');
SELECT is((SELECT count(DISTINCT page) FROM walked), 13::bigint, 'in 13 pages');

-- A sparse filter with no time budget: every page stops after a few hundred rows of the key
-- order, with a continuation at the next unexamined entity; paging on finds every match once.
SET LOCAL tablestore.query_time_budget = 0;
CREATE TEMP TABLE sparse AS SELECT * FROM pg_temp.page_all('n ge 24990 or n le 5', 1000);
SELECT is((SELECT count(*) FROM sparse WHERE pk IS NOT NULL), 16::bigint, 'budget-stopped pages still find the 16 matches');
SELECT is((SELECT count(DISTINCT (pk, rk)) FROM sparse WHERE pk IS NOT NULL), 16::bigint, 'each once');
SELECT cmp_ok((SELECT count(DISTINCT page) FROM sparse), '>', 10::bigint, 'in many pages, each cut short by the budget');
SELECT ok((SELECT bool_and(more) FROM sparse WHERE page < (SELECT max(page) FROM sparse)), 'every cut-short page carries a continuation');
SELECT is((SELECT array_agg(rk ORDER BY seq) FROM sparse WHERE pk IS NOT NULL),
	(SELECT array_agg(row_key ORDER BY partition_key, row_key) FROM tablestore_data.pages
	 WHERE tablestore.prop_int32(properties, 'n') >= 24990 OR tablestore.prop_int32(properties, 'n') <= 5),
	'and in key order');
RESET tablestore.query_time_budget;

-- With the default budget the same filter needs one page: a short page carries no continuation
-- unless time ran out, and a page is never empty with a continuation.
SELECT is((SELECT count(DISTINCT page) FROM pg_temp.page_all('n ge 24990 or n le 5', 1000)), 1::bigint,
	'within the budget one page holds all matches');

-- Continuations are plain key positions: store one, write around it, resume later.
SELECT query_page('Pages', 'PartitionKey eq ''p05''', NULL, 100) AS first \gset
SELECT (:'first'::jsonb)->>'NextRowKey' AS nrk \gset
DELETE FROM tablestore_data.pages WHERE partition_key = 'p05' AND row_key < :'nrk';
INSERT INTO tablestore_data.pages (partition_key, row_key, properties) VALUES ('p05', '000000', '{}');
SELECT is(jsonb_array_length(query_page('Pages', 'PartitionKey eq ''p05''', NULL, 1000, 'p05', :'nrk')->'value'),
	(SELECT count(*)::int FROM tablestore_data.pages WHERE partition_key = 'p05' AND row_key >= :'nrk'),
	'resuming returns exactly the entities from the continuation on');
SELECT is(query_page('Pages', 'PartitionKey eq ''p05''', NULL, 1000, 'p05', :'nrk')->'value'->0->>'RowKey', :'nrk',
	'starting at the stored position');

-- A NextPartitionKey alone starts at the beginning of that partition
SELECT is(query_page('Pages', NULL, NULL, 1, 'p42')->'value'->0->>'PartitionKey', 'p42', 'NextPartitionKey alone');
SELECT throws_ok($$SELECT tablestore.query_page('Pages', NULL, NULL, 1, NULL, 'x')$$, 'TSQ01', NULL,
	'NextRowKey without NextPartitionKey is InvalidInput');

SELECT * FROM finish();
ROLLBACK;
