-- top_zero: $top=0 (Storage Explorer sends it) is an empty page, not an error (contract §5, §12),
-- as the service answers it: no entity, and the continuation the page would have had - the
-- position of the first entity that would come - where there is one. Every path: query_entities,
-- query_page and query_page_json (the direct range scan, the key range, the filter's walk; the
-- direct path on and off), the REST functions (Query Entities, Query Tables) and query_sql.
SET search_path = tablestore, public;

\set ECHO none
\i test/regress/helpers.sql
\set ECHO all

SELECT create_table('TopZero') IS NOT NULL AS created;
SELECT count(*) AS inserted FROM generate_series(1, 6) i,
	LATERAL insert_entity('TopZero', format('{"PartitionKey":"p%s","RowKey":"%s","n":%s}', i % 2, i, i)::entity) e;

-- the SQL row form: no rows
SELECT count(*) AS no_rows FROM query_entities('TopZero', NULL, NULL, 0);
SELECT count(*) AS no_rows FROM query_entities('TopZero', 'PartitionKey eq ''p1''', NULL, 0);
SELECT count(*) AS no_rows FROM query_entities('TopZero', 'n gt 2', 'n', 0);
SELECT query_sql('TopZero', 'n gt 2', 0) AS sql_limit_0;
-- pages: empty, with the first entity that would come as the continuation
SELECT query_page('TopZero', NULL, NULL, 0) AS whole_table;
SELECT query_page('TopZero', 'PartitionKey eq ''p1''', NULL, 0) AS key_range;
SELECT query_page('TopZero', 'PartitionKey eq ''p1'' and RowKey gt ''1''', NULL, 0) AS key_range_from;
SELECT query_page('TopZero', 'n ge 4', NULL, 0) AS filter_walk;
SELECT query_page('TopZero', 'n ge 4', NULL, 0, 'p0', '5') AS from_continuation;
SELECT query_page('TopZero', 'n gt 100', NULL, 0) AS nothing_would_come;
SELECT query_page('TopZero', 'PartitionKey eq ''none''', NULL, 0) AS empty_range;
SELECT query_page_json('TopZero', 'n ge 4', NULL, 0) AS json_text;
SET tablestore.fast_path = off;
SELECT query_page('TopZero', 'PartitionKey eq ''p1''', NULL, 0) AS key_range_as_sql;
SELECT count(*) AS no_rows_as_sql FROM query_entities('TopZero', 'PartitionKey eq ''p1''', NULL, 0);
RESET tablestore.fast_path;
-- resuming at the continuation of a $top=0 page with a real page size repeats nothing, skips nothing
SELECT string_agg(e->>'RowKey', ',') AS resumed FROM jsonb_array_elements((SELECT query_page('TopZero', 'n ge 4', NULL, 1000,
	p->>'NextPartitionKey', p->>'NextRowKey')->'value' FROM query_page('TopZero', 'n ge 4', NULL, 0) p)) e;

-- the REST functions: Query Entities and Query Tables
SELECT body, next_partition_key, next_row_key FROM rest_query_entities('TopZero', NULL, NULL, 0, NULL, NULL, 'nometadata');
SELECT body, next_partition_key, next_row_key FROM rest_query_entities('TopZero', 'n eq 5', NULL, 0, NULL, NULL, 'minimalmetadata', 'http://h/a', 'a');
SELECT body, next_partition_key, next_row_key FROM rest_query_entities('TopZero', 'n eq 99', NULL, 0, NULL, NULL, 'nometadata');
SELECT body, next_table_name FROM rest_query_tables('TableName eq ''TopZero''', 0, NULL, 'nometadata');
SELECT body, next_table_name FROM rest_query_tables('TableName eq ''Nothing''', 0, NULL, 'nometadata');

-- still refused: below 0 and above 1000
SELECT pg_temp.try($$SELECT count(*) FROM tablestore.query_entities('TopZero', NULL, NULL, -1)$$);
SELECT pg_temp.try($$SELECT tablestore.query_page('TopZero', NULL, NULL, 1001)$$);
SELECT pg_temp.try($$SELECT body FROM tablestore.rest_query_tables(NULL, -1, NULL)$$);
-- and an empty answer still needs the right to read the table
CREATE ROLE regress_ts_top_zero;
SET ROLE regress_ts_top_zero;
SELECT pg_temp.try($$SELECT count(*) FROM tablestore.query_entities('TopZero', NULL, NULL, 0)$$) ~ '^42501' AS denied;
RESET ROLE;
DROP ROLE regress_ts_top_zero;

SELECT drop_table('TopZero');
