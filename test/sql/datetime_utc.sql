-- datetime_utc: a DateTime written without a UTC offset ("2023-01-01T23:00:00", also with a
-- fraction) is UTC, as the service takes it (contract §1; the service's trace in Azure/Azurite#746,
-- which Azurite copied): accepted on every path - entity text, jsonb, a batch, the REST bodies and
-- the $filter literal datetime'...' - stored as UTC ticks and written back with Z. The forms the
-- service writes (Z, an offset) are read as before; what it refuses stays refused.
SET search_path = tablestore, public;

\set ECHO none
\i test/regress/helpers.sql
\set ECHO all

-- the entity's text form: without an offset is UTC, with or without a fraction
SELECT v, format('{"d":"%s","d@odata.type":"Edm.DateTime"}', v)::entity AS written FROM (VALUES
	('2023-01-01T23:00:00'), ('2023-01-01T23:00:00.1234567'), ('2023-01-01T23:00:00.1'),
	('2023-01-01T23:00:00.0000000'), ('1601-01-01T00:00:00'), ('9999-12-31T23:59:59.9999999'),
	('2023-01-01T23:00:00Z'), ('2023-01-02T00:00:00+01:00'), ('2023-01-01T18:00:00-05:00')) t(v);
-- the same instant, whichever form it came in: equal values and ticks
SELECT count(DISTINCT format('{"d":"%s","d@odata.type":"Edm.DateTime"}', v)::entity) AS distinct_values,
	   count(DISTINCT prop_datetime(format('{"d":"%s","d@odata.type":"Edm.DateTime"}', v)::entity, 'd')) AS distinct_instants
FROM (VALUES ('2023-01-01T23:00:00'), ('2023-01-01T23:00:00Z'), ('2023-01-01T23:00:00.0000000'),
	('2023-01-02T00:00:00+01:00'), ('2023-01-01T23:00:00.000Z')) t(v);
-- through jsonb, and the text written back reads as the same value
SELECT '{"d":"2023-01-01T23:00:00.1234567","d@odata.type":"Edm.DateTime"}'::jsonb::entity AS from_jsonb,
	   '{"d":"2023-01-01T23:00:00","d@odata.type":"Edm.DateTime"}'::entity::text::entity =
	   '{"d":"2023-01-01T23:00:00Z","d@odata.type":"Edm.DateTime"}'::entity AS round_trip;
-- still refused, as on the service: not a date and time of the service's form, or out of range
SELECT v, pg_temp.try(format($$SELECT '{"d":"%s","d@odata.type":"Edm.DateTime"}'::tablestore.entity::text$$, v)) AS result
FROM (VALUES ('2023-01-01'), ('2023-01-01T23:00'), ('2023-01-01T23:00:00.'), ('2023-01-01T23:00:00.12345678'),
	('2023-01-01t23:00:00'), ('2023-01-01T23:00:00z'), ('2023-01-01T23:00:00+0100'), ('2023-01-01T23:00:00 '),
	('2023-01-01 23:00:00'), ('2023-02-30T00:00:00'), ('2023-01-01T24:00:00'), ('1600-12-31T23:59:59'),
	('10000-01-01T00:00:00'), ('')) t(v);
-- an annotated DateTime is a JSON string
SELECT pg_temp.try($$SELECT '{"d":20230101,"d@odata.type":"Edm.DateTime"}'::tablestore.entity::text$$);

-- the write paths: an operation, a batch, the REST bodies (insert, merge, batch)
SELECT create_table('WhenUtc') IS NOT NULL AS created;
SELECT insert_entity('WhenUtc', '{"PartitionKey":"p","RowKey":"1","d":"2023-01-01T23:00:00","d@odata.type":"Edm.DateTime"}') IS NOT NULL AS inserted;
SELECT execute_batch('WhenUtc', '[{"op":"insert","entity":{"PartitionKey":"p","RowKey":"2","d":"2023-01-01T23:00:00.1234567","d@odata.type":"Edm.DateTime"}}]') IS NOT NULL AS batch;
SELECT regexp_replace(body, '"odata.etag":"(\\.|[^"\\])*"|"Timestamp":"[^"]*"', '_', 'g') AS rest_insert
FROM rest_insert_entity('WhenUtc', '{"PartitionKey":"p","RowKey":"3","d":"2012-01-02T23:00:00","d@odata.type":"Edm.DateTime"}', true, 'minimalmetadata');
SELECT rest_write_entity('WhenUtc', 'p', '3', '{"e":"2012-01-02T23:00:00.5","e@odata.type":"Edm.DateTime"}', true) IS NOT NULL AS rest_merge;
SELECT count(etag) AS rest_batch_written
FROM rest_batch('WhenUtc', '[{"op":"upsert_replace","entity":{"PartitionKey":"p","RowKey":"4","d":"1999-12-31T23:59:59.9999999","d@odata.type":"Edm.DateTime"}},{"op":"insert","entity":{"PartitionKey":"p","RowKey":"5","d":"2000-01-01T00:00:00","d@odata.type":"Edm.DateTime"}}]');
INSERT INTO tablestore_data.whenutc (partition_key, row_key, properties)
VALUES ('p', '6', '{"d":"2023-06-30T12:00:00","d@odata.type":"Edm.DateTime"}');
SELECT row_key, properties FROM query_entities('WhenUtc', 'PartitionKey eq ''p''');

-- the $filter literal: without an offset is UTC too, on every path (SQL translation, a page)
SELECT odata_to_sql('d eq datetime''2023-01-01T23:00:00''') = odata_to_sql('d eq datetime''2023-01-01T23:00:00Z''') AS same_sql;
SELECT row_key FROM query_entities('WhenUtc', 'd eq datetime''2023-01-01T23:00:00''');
SELECT row_key FROM query_entities('WhenUtc', 'd ge datetime''2023-01-01T23:00:00.1234567'' or d lt datetime''2000-01-01T00:00:00''');
SELECT jsonb_array_length(query_page('WhenUtc', 'd gt datetime''2012-01-02T22:59:59.9999999'' and d lt datetime''2012-01-02T23:00:00.0000001''', NULL)->'value') AS page_matches;
SELECT pg_temp.try($$SELECT tablestore.odata_to_sql('d eq datetime''2023-01-01''')$$);
SELECT pg_temp.try($$SELECT tablestore.odata_to_sql('d eq datetime''2023-01-01T23:00:00z''')$$);

SELECT drop_table('WhenUtc');
