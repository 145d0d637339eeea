-- test/pgtap/page_budgets.sql - a page stops at its byte budget and at its time budget, checked
-- after every row, and returns what it has with a continuation: never an error, never a timeout
-- for a page that made progress (contract §5). Paging on through the continuations reads every
-- entity exactly once.
BEGIN;
SET search_path = tablestore, public;
SELECT plan(13);

SELECT create_table('Big');
-- 520 entities of fifteen 32 768-character Strings: about 480 KiB of JSON each, 250 MiB in all,
-- more than jsonb can hold in one value
INSERT INTO tablestore_data.big (partition_key, row_key, properties)
SELECT 'big', lpad(i::text, 4, '0'),
	('{' || (SELECT string_agg(format('"s%s":"%s"', j, repeat(chr(97 + (i + j) % 26), 32768)), ',') FROM generate_series(1, 15) j) || '}')::entity
FROM generate_series(1, 520) i;

-- the default budgets: one page over the whole partition, as jsonb and as json
SELECT lives_ok($$SELECT tablestore.query_page('Big', 'PartitionKey eq ''big''', NULL)$$,
	'a page over 250 MiB of entities with the default top: no error');
SELECT cmp_ok(jsonb_array_length(tablestore.query_page('Big', 'PartitionKey eq ''big''', NULL) -> 'value'), '<', 520,
	'it stops at its byte budget');
SELECT ok(tablestore.query_page('Big', 'PartitionKey eq ''big''', NULL) ? 'NextRowKey', 'with a continuation');
SELECT cmp_ok(length(tablestore.query_page_json('Big', 's1 ne ''-''', NULL)::text), '<', 17 * 1024 * 1024,
	'a page of a non-key filter stops at the budget too (16 MiB by default, plus one entity)');

-- page on through every continuation with a small budget: every entity once, in order
SET LOCAL tablestore.page_byte_budget = '2MB';
CREATE FUNCTION pg_temp.page_through(filter text, sel text, OUT pages int, OUT entities int, OUT ordered bool, OUT max_page int)
LANGUAGE plpgsql AS $$
DECLARE
	p jsonb;
	npk text;
	nrk text;
	last text := '';
	k text;
BEGIN
	pages := 0; entities := 0; ordered := true; max_page := 0;
	LOOP
		p := tablestore.query_page_json('Big', filter, sel, 1000, npk, nrk)::jsonb;
		pages := pages + 1;
		max_page := greatest(max_page, jsonb_array_length(p -> 'value'));
		FOR k IN SELECT e ->> 'RowKey' FROM jsonb_array_elements(p -> 'value') e LOOP
			ordered := ordered AND k > last;
			last := k;
			entities := entities + 1;
		END LOOP;
		EXIT WHEN NOT p ? 'NextRowKey' OR pages > 2000;
		npk := p ->> 'NextPartitionKey';
		nrk := p ->> 'NextRowKey';
	END LOOP;
END $$;
CREATE TEMP TABLE through AS SELECT * FROM pg_temp.page_through('PartitionKey eq ''big''', NULL);
SELECT is((SELECT entities FROM through), 520, 'a key range: every entity, once');
SELECT ok((SELECT ordered AND pages > 100 AND max_page <= 5 FROM through), 'in key order, over many small pages');
SELECT is((SELECT entities FROM pg_temp.page_through('s1 ne ''-''', NULL)), 520, 'a non-key filter: every entity, once');
-- ($select keeps the rendering small: the budget counts what is rendered)
SELECT is((SELECT max_page FROM pg_temp.page_through('s1 ne ''-''', 'RowKey')), 520, 'with $select the whole partition fits a page');
RESET tablestore.page_byte_budget;

-- the time budget, checked after every row: with no time at all, a page holds one entity
SET LOCAL tablestore.query_time_budget = 0;
SELECT is(jsonb_array_length(tablestore.query_page_json('Big', 's1 ne ''-''', 'RowKey')::jsonb -> 'value'), 1,
	'a page out of time holds the entity it has');
SELECT ok(tablestore.query_page_json('Big', 's1 ne ''-''', 'RowKey')::jsonb ? 'NextRowKey', 'and a continuation');
SELECT is((SELECT entities FROM pg_temp.page_through('s1 ne ''-''', 'RowKey')), 520, 'paging on still reads every entity once');
RESET tablestore.query_time_budget;

-- statement_timeout: a page stops before 80% of it, so a page that made progress is no error
SET LOCAL statement_timeout = '3s';
SELECT lives_ok($$SELECT tablestore.query_page('Big', 's1 ne ''-''', NULL)$$, 'a page under a statement_timeout is no error');
RESET statement_timeout;
SELECT is((SELECT 1), 1, 'the backend is alive');

SELECT * FROM finish();
ROLLBACK;
