-- query_filters: the example filters of contract §10 on their fixture, key order, $select, $top and
-- the JSON page of query_page.
SET search_path = tablestore, public;
SET timezone = 'UTC';
SELECT create_table('Employees');
SELECT count(insert_entity('Employees', e::entity)) AS inserted FROM unnest(ARRAY[
	'{"PartitionKey":"Marketing","RowKey":"00001","FirstName":"Don","LastName":"Hall","Age":34,"Email":"donh@contoso.com"}',
	'{"PartitionKey":"Marketing","RowKey":"00002","FirstName":"Jun","LastName":"Cao","Age":47,"Email":"junc@contoso.com"}',
	'{"PartitionKey":"Marketing","RowKey":"Department","DepartmentName":"Marketing","EmployeeCount":153}',
	'{"PartitionKey":"Sales","RowKey":"00010","FirstName":"Ken","LastName":"Kwok","Age":23,"Email":"kenk@contoso.com"}'
]) e;

-- Every filter of contract §10 (the fixture plus a few Sales rows that the examples address)
SELECT count(insert_entity('Employees', format('{"PartitionKey":"Sales","RowKey":"%s","LastName":"%s"}', rk, ln)::entity)) AS more
FROM (VALUES ('2', 'Smith'), ('121', 'Jones'), ('322', 'Brown'), ('Bob', 'Jones'), ('brown', 'Smith'),
	('email_a@contoso.com', 'Alpha'), ('emaila5', 'Beta'), ('empid_000100', 'E100'), ('empid_000150', 'E150'),
	('empid_000199', 'E199'), ('empid_000200', 'E200'), ('000123_2012', 'Log')) v(rk, ln);
SELECT f AS filter, coalesce(string_agg(q.partition_key || '/' || q.row_key, ', ' ORDER BY q.partition_key, q.row_key), '(none)') AS rows
FROM unnest(ARRAY[
	'(PartitionKey eq ''Sales'') and (RowKey eq ''2'')',
	'PartitionKey eq ''Sales'' and RowKey ge ''S'' and RowKey lt ''T''',
	'PartitionKey eq ''Sales'' and LastName eq ''Smith''',
	'LastName eq ''Jones''',
	'PartitionKey eq ''Sales'' and (RowKey eq ''121'' or RowKey eq ''322'')',
	'(PartitionKey eq ''Sales'') and (RowKey ge ''email_a'') and (RowKey lt ''email_b'')',
	'(PartitionKey eq ''Sales'') and (RowKey ge ''empid_000100'') and (RowKey le ''empid_000199'')',
	'((PartitionKey eq ''Sales'') and (RowKey ge ''B'')) and (RowKey lt ''C'')',
	'(PartitionKey eq ''Sales'') and (RowKey ge ''empid_000123'') and (RowKey lt ''000123_2012'')',
	'PartitionKey eq ''Marketing''',
	'Age gt 30', 'Age lt 30', 'not (Age lt 40)', 'EmployeeCount ge 100 or FirstName eq ''Ken'''
]) WITH ORDINALITY AS t(f, n)
LEFT JOIN LATERAL query_entities('Employees', f) q ON true
GROUP BY f, n ORDER BY n;
-- and the two malformed ones
SELECT count(*) FROM query_entities('Employees', 'PartitionKey eq Sales');
SELECT count(*) FROM query_entities('Employees', '(PartitionKey eq ''Sales'') und (RowKey eq ''x'')');

-- Key order is ordinal (bytewise), never the database's linguistic collation (en-US here):
-- digits before capitals before lower case, 'B' <= x < 'C' excludes brown, email_a.. excludes emaila5.
SELECT row_key AS tablestore_order FROM query_entities('Employees', 'PartitionKey eq ''Marketing''');
SELECT string_agg(row_key, ' < ' ORDER BY row_key COLLATE "C") AS ordinal,
	   string_agg(row_key, ' < ' ORDER BY row_key COLLATE "en-x-icu") AS linguistic
FROM (VALUES ('00001'), ('00002'), ('Department'), ('Bob'), ('brown'), ('Brown')) v(row_key);
-- (a collation that ignores punctuation, as glibc's en_US does, puts emaila5 inside email_a..email_b)
CREATE COLLATION pg_temp.punct_ignoring (provider = icu, locale = 'en-u-ka-shifted');
SELECT count(*) FILTER (WHERE x COLLATE "en-x-icu" >= 'B' AND x COLLATE "en-x-icu" < 'C') AS brown_in_locale_range,
	   count(*) FILTER (WHERE x COLLATE "C" >= 'B' AND x COLLATE "C" < 'C') AS brown_in_ordinal_range,
	   count(*) FILTER (WHERE y COLLATE pg_temp.punct_ignoring >= 'email_a' AND y COLLATE pg_temp.punct_ignoring < 'email_b') AS emaila5_in_locale_range,
	   count(*) FILTER (WHERE y COLLATE "C" >= 'email_a' AND y COLLATE "C" < 'email_b') AS emaila5_in_ordinal_range
FROM (VALUES ('brown', 'emaila5')) v(x, y);

-- Every multi-entity result is in (PartitionKey, RowKey) order, including or queries and scans
SELECT partition_key || '/' || row_key AS row FROM query_entities('Employees', 'LastName eq ''Smith'' or LastName eq ''Hall'' or Age eq 23');

-- $select and $top
SELECT row_key, properties FROM query_entities('Employees', 'PartitionKey eq ''Marketing''', 'FirstName,Missing, Age');
SELECT row_key FROM query_entities('Employees', NULL, NULL, 3);
SELECT count(*) FROM query_entities('Employees', NULL, NULL, 1000);
SELECT count(*) FROM query_entities('Employees', NULL, NULL, 0);
SELECT count(*) FROM query_entities('Employees', NULL, NULL, 1001);
SELECT count(*) FROM query_entities('Employees', NULL, 'Bad Name');
SELECT count(*) FROM query_entities('Nope');
SELECT count(*) FROM query_entities(NULL);

-- query_page: the service's JSON shape; etags and timestamps masked for a stable output
CREATE FUNCTION pg_temp.masked(p jsonb) RETURNS jsonb LANGUAGE sql AS $$
	SELECT jsonb_set(p, '{value}', coalesce((SELECT jsonb_agg(e || '{"odata.etag":"<etag>","Timestamp":"<ts>"}') FROM jsonb_array_elements(p->'value') e), '[]'))
$$;
SELECT jsonb_pretty(pg_temp.masked(query_page('Employees', 'PartitionKey eq ''Marketing''', NULL, 2)));
SELECT jsonb_pretty(pg_temp.masked(query_page('Employees', 'PartitionKey eq ''Marketing''', 'FirstName,Missing', 2, 'Marketing', 'Department')));
SELECT pg_temp.masked(query_page('Employees', 'PartitionKey eq ''None''', NULL)) AS empty_page;
-- the etag and Timestamp in a page are the stored ones
SELECT (query_page('Employees', 'PartitionKey eq ''Sales'' and RowKey eq ''00010''', NULL)->'value'->0->>'odata.etag') = etag AS etag_matches,
	   left(rpad(regexp_replace(rtrim(query_page('Employees', 'PartitionKey eq ''Sales'' and RowKey eq ''00010''', NULL)->'value'->0->>'Timestamp', 'Z'),
		'^([^.]*)$', '\1.'), 27, '0'), 26) = to_char("timestamp", 'YYYY-MM-DD"T"HH24:MI:SS.US') AS timestamp_matches
FROM tablestore_data.employees WHERE row_key = '00010';
-- typed values survive the page: annotations, -0, NaN
SELECT insert_entity('Employees', '{"PartitionKey":"Types","RowKey":"1","Big":"9007199254740993","Big@odata.type":"Edm.Int64","Z":-0.0,"N":"NaN","N@odata.type":"Edm.Double","W":2.0}') IS NOT NULL;
SELECT (query_page('Employees', 'PartitionKey eq ''Types''', NULL)->'value'->0) - 'odata.etag' - 'Timestamp' AS typed_entity;
SELECT ((query_page('Employees', 'PartitionKey eq ''Types''', NULL)->'value'->0) - 'odata.etag' - 'Timestamp')::entity::jsonb
	= '{"PartitionKey":"Types","RowKey":"1","Big":"9007199254740993","Big@odata.type":"Edm.Int64","Z":-0.0,"N":"NaN","N@odata.type":"Edm.Double","W":2.0}'::entity::jsonb AS round_trips;
-- (jsonb holds its keys in an order of its own; query_page_json's text keeps the order written, so
-- its entity reads back as the very entity written)
SELECT (query_page_json('Employees', 'PartitionKey eq ''Types''', NULL)::json->'value'->0)::text::entity
	= '{"PartitionKey":"Types","RowKey":"1","Big":"9007199254740993","Big@odata.type":"Edm.Int64","Z":-0.0,"N":"NaN","N@odata.type":"Edm.Double","W":2.0}'::entity AS round_trips_in_order;
-- bad arguments
SELECT query_page('Employees', NULL, NULL, 0);
SELECT query_page('Employees', NULL, NULL, NULL);
SELECT query_page('Employees', NULL, NULL, 10, NULL, 'x');
SELECT query_page('Employees', 'A eq', NULL);

SELECT drop_table('Employees');
