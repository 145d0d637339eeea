-- filter_booleans: true and false in $filter (contract §5), as the service evaluates them: in any
-- letter case as a Boolean literal (Active eq True, FALSE), and as an expression of their own -
-- $filter=false matches nothing, $filter=true everything, (true and RowKey eq '1') or false is
-- RowKey eq '1', not true is false. The parser folds the constants away (logic is two-valued), so
-- every reader of the filter sees them only as a whole filter: the SQL translation, its key
-- bounds, the point and range planning (PartitionKey equality under "true and"), the entity
-- index, pages, Query Tables and a SAS key scope. Because true and false are literals in any
-- case, a property named True or FALSE cannot be named in a filter (as on the service).
SET search_path = tablestore, public;

\set ECHO none
\i test/regress/helpers.sql
\set ECHO all

-- the translation: constants folded
SELECT f, odata_to_sql(f) FROM unnest(ARRAY['true', 'false', 'TRUE', 'False', 'not true', 'not false',
	'(true)', '((false))', 'true and false', 'true or false', 'not (true and false)',
	'(true and RowKey eq ''1'') or false', 'false or PartitionKey eq ''a''', 'false and PartitionKey eq ''a''',
	'true or PartitionKey eq ''a''', 'not (false or Age gt 3)', 'true and not (Age lt 40)',
	'Active eq true', 'Active eq True', 'Active ne FALSE', 'tRuE eq Active', 'not Active eq false and true']) f;
-- still errors, naming the position
SELECT f, pg_temp.try(format('SELECT tablestore.odata_to_sql(%L)', f)) FROM unnest(ARRAY['true eq false', 'True eq 1',
	'true true', 'true and', '(true', 'true)', 'true eq', 'not', 'true Active', 'Active eq', 'TRUE and False or',
	'true and null', 'truthy eq 1']) f;

SELECT create_table('Bools') IS NOT NULL AS created;
SELECT count(*) AS inserted FROM (VALUES
	('p1', '1', 'true'), ('p1', '2', 'false'), ('p2', '1', 'true'), ('p2', '2', 'false'), ('p3', '1', 'true'), ('p3', '3', 'false')) v(pk, rk, b),
	LATERAL insert_entity('Bools', format('{"PartitionKey":"%s","RowKey":"%s","myBool":%s,"foo":"x"}', pk, rk, b)::entity) e;

-- the rows: every path of a query
CREATE FUNCTION pg_temp.rows(f text) RETURNS text LANGUAGE sql AS $$
	SELECT coalesce(string_agg(partition_key || '/' || row_key, ' '), '(none)') FROM tablestore.query_entities('Bools', f)
$$;
CREATE FUNCTION pg_temp.page(f text) RETURNS text LANGUAGE sql AS $$
	SELECT coalesce(string_agg((e->>'PartitionKey') || '/' || (e->>'RowKey'), ' '), '(none)') ||
		coalesce(' next ' || (p->>'NextPartitionKey') || '/' || (p->>'NextRowKey'), '')
	FROM tablestore.query_page('Bools', f, NULL, 2) p LEFT JOIN LATERAL jsonb_array_elements(p->'value') e ON true
	GROUP BY p
$$;
SELECT f, pg_temp.rows(f) AS query_entities, pg_temp.page(f) AS query_page_top_2 FROM unnest(ARRAY['true', 'false', 'FALSE',
	'not false', '(true and RowKey eq ''1'') and ((false or PartitionKey eq ''p1'') or PartitionKey eq ''p2'') or PartitionKey eq ''p3''',
	'myBool eq True', 'myBool eq truE', 'myBool eq FALSE', 'myBool eq faLsE', 'FALSE ne myBool',
	'true and PartitionKey eq ''p2''', 'PartitionKey eq ''p2'' and true and RowKey eq ''2''', 'false or (PartitionKey eq ''p3'' and RowKey ge ''2'')',
	'not (true and myBool eq true)', 'false and myBool eq true', 'true or myBool eq true']) f;
SET tablestore.fast_path = off;
SELECT pg_temp.rows('true and PartitionKey eq ''p2''') AS as_sql, pg_temp.page('PartitionKey eq ''p2'' and (false or RowKey eq ''2'')') AS page_as_sql;
RESET tablestore.fast_path;

-- planning: PartitionKey equality is still found under a constant, so point and range queries stay
-- primary-key lookups (the same statement as without the constant)
SELECT query_sql('Bools', 'true and PartitionKey eq ''p1'' and RowKey eq ''2''') =
	   query_sql('Bools', 'PartitionKey eq ''p1'' and RowKey eq ''2''') AS point_same_sql,
	   query_sql('Bools', '(PartitionKey eq ''p1'' or false) and RowKey ge ''1'' and true') =
	   query_sql('Bools', 'PartitionKey eq ''p1'' and RowKey ge ''1''') AS range_same_sql,
	   query_sql('Bools', 'false', 5) AS nothing;
-- the plans are those of one table's own indexes: a table kept ordinary where new tables are
-- distributed (test/t/004, whose nodes plan the remote statements), with the same rows
SET tablestore.distribute_new_tables = '';
SELECT create_table('BoolPlans') IS NOT NULL AS created;
RESET tablestore.distribute_new_tables;
INSERT INTO tablestore_data.boolplans (partition_key, row_key, properties)
SELECT partition_key, row_key, properties FROM query_entities('Bools');
SELECT explain_query('BoolPlans', 'true and PartitionKey eq ''p1'' and RowKey eq ''2''');
SELECT explain_query('BoolPlans', 'false');
-- the entity index (the default policy indexes myBool): a constant does not break its key tests
SET enable_seqscan = off;
SELECT bool_or(line ~ '@~') AS uses_entity_index FROM explain_query('BoolPlans', '(true and myBool eq true) or false') line;
RESET enable_seqscan;
SELECT drop_table('BoolPlans');
SELECT pg_temp.rows('(true and myBool eq TRUE) or false') AS indexed_rows;

-- the REST functions: Query Entities, Query Tables, and a key scope around a constant filter
SELECT body FROM rest_query_entities('Bools', 'false', NULL, NULL, NULL, NULL, 'nometadata');
SELECT jsonb_array_length(body::jsonb->'value') AS all_entities FROM rest_query_entities('Bools', 'True', NULL, NULL, NULL, NULL, 'nometadata');
SELECT string_agg(e->>'PartitionKey' || '/' || (e->>'RowKey'), ' ') AS scoped
FROM rest_query_entities('Bools', 'true', 'PartitionKey,RowKey', NULL, NULL, NULL, 'nometadata', NULL, NULL, '{p2,1,p3,1}'::text[]) q,
	jsonb_array_elements(q.body::jsonb->'value') e;
SELECT body FROM rest_query_entities('Bools', 'false or false', NULL, NULL, NULL, NULL, 'nometadata', NULL, NULL, '{p2,1,p3,1}'::text[]);
SELECT body FROM rest_query_tables('false', NULL, NULL, 'nometadata');
SELECT body FROM rest_query_tables('TableName eq ''Bools'' and true', NULL, NULL, 'nometadata');
SELECT body FROM rest_query_tables('TableName eq ''Bools'' and (TableName eq ''Nope'' or TRUE)', NULL, NULL, 'nometadata');
SELECT body FROM rest_query_tables('not true', NULL, NULL, 'nometadata');

-- a property filter is one comparison: a constant is not one
SELECT pg_temp.try($$SELECT 'true'::tablestore.property_filter::text$$);
SELECT 'myBool eq TRUE'::property_filter::text AS property_filter;

SELECT drop_table('Bools');
