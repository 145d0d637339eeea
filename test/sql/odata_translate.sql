-- odata_translate: what $filter becomes in SQL (tablestore.odata_to_sql).
SET search_path = tablestore, public;

SELECT f AS filter, odata_to_sql(f) AS sql FROM unnest(ARRAY[
	-- keys: column comparisons in "C" collation the primary key serves, also inside parentheses
	'PartitionKey eq ''Sales''',
	'(PartitionKey eq ''Sales'') and (RowKey eq ''2'')',
	'((PartitionKey eq ''Sales'') and (RowKey ge ''B'')) and (RowKey lt ''C'')',
	'PartitionKey eq ''Sales'' and (RowKey eq ''121'' or RowKey eq ''322'')',
	'RowKey ne ''x'' or PartitionKey gt ''M''',
	-- a key against another literal type is decided by the mismatch rule
	'PartitionKey eq 5', 'RowKey lt true',
	-- Timestamp: microseconds against a 100 ns literal
	'Timestamp eq datetime''2014-08-22T00:50:44.1234560Z''',
	'Timestamp eq datetime''2014-08-22T00:50:44.1234567Z''',
	'Timestamp lt datetime''2014-08-22T00:50:44.1234567Z''',
	'Timestamp ge datetime''2014-08-22T00:50:44.1234567Z''',
	'Timestamp gt datetime''2014-08-22T02:50:44+02:00''',
	'Timestamp eq ''2014''',
	-- custom properties, one form per literal kind
	'Name eq ''Ken''', 'Name lt ''Ken''', 'Age eq 7', 'Age gt 40', 'Big eq 9007199254740993L', 'Big gt 3000000000L',
	'Score le 2.5', 'Score gt 2e10', 'Active eq true', 'Active ne false',
	'Hired ge datetime''2014-08-22T00:50:44.1234567Z''', 'Id eq guid''68260B3F-BEAB-45E2-B900-33E2B442E724''',
	'Photo eq X''0AfF''', 'Photo lt binary''00''',
	-- a literal first is the same comparison mirrored
	'40 lt Age', '''Ken'' eq Name',
	-- negation reaches the comparisons: an absent property makes a negated comparison true
	'not (Age lt 40)', 'not (Name eq ''Ken'' and Age gt 30)', 'not not (Age eq 1)', 'not Age eq 1 and B eq 2',
	-- quoting: a doubled quote is one quote; backslashes are plain characters
	'Name eq ''O''''Brien''', 'Name eq ''C:\dir\''', 'Name eq ''''', 'Name eq ''😀 Grüße''',
	-- whitespace and an empty filter
	'   Age   eq   7   ', ''
]) f;

-- Unicode property names follow the identifier rules
SELECT odata_to_sql('Größe gt 3 and 名前 eq ''x''');

-- The comparison limit: 15 by default, a setting to raise it
SELECT length(odata_to_sql(string_agg(format('A%s eq %s', i, i), ' and '))) > 0 AS fifteen_ok
FROM generate_series(1, 15) i;
SELECT odata_to_sql(string_agg(format('A%s eq %s', i, i), ' and ')) FROM generate_series(1, 16) i;
SET tablestore.max_filter_comparisons = 100;
SELECT length(odata_to_sql(string_agg(format('A%s eq %s', i, i), ' or '))) > 0 AS hundred_ok
FROM generate_series(1, 100) i;
RESET tablestore.max_filter_comparisons;

-- Parentheses nest to any depth (the parser keeps its own stack)
SELECT odata_to_sql(repeat('(', 100000) || 'Age eq 1' || repeat(')', 100000));
SELECT odata_to_sql(repeat('not ', 100001) || '(Age eq 1)');
SELECT odata_to_sql(repeat('(', 50000) || 'Age eq 1' || repeat(')', 49999));

-- 'and' and 'or' nest at most 100 levels (the service's 15 comparisons nest 14 at most): deeper,
-- PostgreSQL's parser ran out of stack and its error quoted the whole statement. A flat chain of
-- thousands is one level.
SET tablestore.max_filter_comparisons = 10000;
SELECT n, length(odata_to_sql(repeat('not (', n) || 'Age eq 0' || repeat(' or Age eq 1)', n))) > 0 AS translated
FROM unnest(ARRAY[99, 100]) n;
SELECT odata_to_sql(repeat('not (', 101) || 'Age eq 0' || repeat(' or Age eq 1)', 101));
SELECT odata_to_sql('Age eq 0' || repeat(' and (Age eq 1 or (Age eq 2', 51) || repeat('))', 51));
SELECT create_table('DeepFilter') IS NOT NULL AS created;
SELECT count(*) FROM query_entities('DeepFilter', repeat('not (', 7000) || 'Age eq 34' || repeat(' or Age eq 1)', 7000));
SELECT drop_table('DeepFilter');
SELECT length(odata_to_sql(string_agg(format('A%s eq %s', i, i), ' or '))) > 0 AS flat_chain_ok
FROM generate_series(1, 10000) i;
RESET tablestore.max_filter_comparisons;
