-- service_fidelity: what the live service answers, held against the extension (contract §1, §2,
-- §5, §7): the text of values, pages in the service's minimal-metadata shape, $select, literals,
-- error codes; and that a value the store accepted never breaks a query (U+0000).
SET search_path = tablestore, public;

\set ECHO none
\i test/regress/helpers.sql
\set ECHO all

-- DateTime text: up to seven fractional digits, trailing zeros dropped
SELECT v, format('{"d":"%s","d@odata.type":"Edm.DateTime"}', v)::entity AS written FROM (VALUES
	('2014-08-22T00:50:44Z'), ('2014-08-22T00:50:44.0000000Z'), ('2014-08-22T00:50:44.1Z'),
	('2014-08-22T00:50:44.1230000Z'), ('2014-08-22T00:50:44.1234567Z'), ('1601-01-01T00:00:00Z')) t(v);
-- a whole-number Double is written 5.0, without an annotation, and reads back as a Double
SELECT '{"a":5.0,"b":-0.0,"c":1e20,"d":2.5}'::entity AS doubles,
	   prop_type('{"a":5.0}'::entity::text::entity, 'a') AS reads_back_as;
-- an annotated Boolean may be a string, in any letter case
SELECT '{"a":"true","a@odata.type":"Edm.Boolean","b":"FALSE","b@odata.type":"Edm.Boolean","c":"True","c@odata.type":"Edm.Boolean"}'::entity;
SELECT pg_temp.try($$SELECT '{"a":"yes","a@odata.type":"Edm.Boolean"}'::tablestore.entity::text$$);
-- an Int64 out of range is InvalidInput (TSB04), not OutOfRangeInput
SELECT pg_temp.try($$SELECT '{"a":"9223372036854775808","a@odata.type":"Edm.Int64"}'::tablestore.entity::text$$);
-- an unsuffixed integer literal must fit Int32 (Int64 literals need L)
SELECT pg_temp.try($$SELECT tablestore.odata_to_sql('ts eq 1498179600055')$$);
SELECT pg_temp.try($$SELECT tablestore.odata_to_sql('ts eq 1498179600055L')$$);
SELECT pg_temp.try($$SELECT tablestore.odata_to_sql('ts eq -2147483648')$$);

SELECT create_table('Fidelity');
SELECT insert_entity('Fidelity', '{"PartitionKey":"p","RowKey":"1","Name":"Ken","Age":23,"Score":5.0,
	"Big":"9007199254740993","Big@odata.type":"Edm.Int64","When":"2014-08-22T00:50:44.1000000Z","When@odata.type":"Edm.DateTime",
	"Ratio":"NaN","Ratio@odata.type":"Edm.Double"}') IS NOT NULL AS inserted;

-- a page in the minimal-metadata shape: odata.etag, keys, Timestamp without annotation,
-- annotations only for types JSON cannot carry
CREATE FUNCTION pg_temp.masked(p jsonb) RETURNS jsonb LANGUAGE sql AS $$
	SELECT jsonb_set(p, '{value}', coalesce((SELECT jsonb_agg(e
		|| CASE WHEN e ? 'odata.etag' THEN '{"odata.etag":"<etag>"}'::jsonb ELSE '{}' END
		|| CASE WHEN e ? 'Timestamp' THEN '{"Timestamp":"<ts>"}'::jsonb ELSE '{}' END) FROM jsonb_array_elements(p->'value') e), '[]'))
$$;
SELECT pg_temp.masked(query_page('Fidelity', NULL, NULL));
-- $select: the selected members only (one the entity lacks as null) and odata.etag; keys and
-- Timestamp only when selected
SELECT pg_temp.masked(query_page('Fidelity', NULL, 'Name,Missing'));
SELECT pg_temp.masked(query_page('Fidelity', NULL, 'RowKey,Timestamp,Age'));
-- an empty $select (SDKs send "$select=") means every property, as "*" does
SELECT pg_temp.masked(query_page('Fidelity', NULL, '')) = pg_temp.masked(query_page('Fidelity', NULL, NULL)) AS empty_select_is_all,
	   pg_temp.masked(query_page('Fidelity', NULL, ' ')) = pg_temp.masked(query_page('Fidelity', NULL, '*')) AS blank_select_is_all;
SELECT properties FROM get_entity('Fidelity', 'p', '1', '');
SELECT count(*) FROM query_entities('Fidelity', NULL, '');
-- query_page_json is the same page as json text
SELECT query_page_json('Fidelity', NULL, 'Name')::jsonb - 'value' = query_page('Fidelity', NULL, 'Name') - 'value' AS same_members,
	   (query_page_json('Fidelity', NULL, 'Name')::jsonb -> 'value' -> 0 ->> 'Name') AS name;

-- a String holding U+0000 never breaks a query: filters compare it, pages render it (as JSON
-- text; only jsonb refuses it), and $select leaves it out before anything looks at it
SELECT insert_entity('Fidelity', '{"PartitionKey":"p","RowKey":"2","Name":"a\u0000b","Other":"x"}') IS NOT NULL AS inserted;
SELECT row_key FROM query_entities('Fidelity', 'Name eq ''Ken''');
SELECT row_key FROM query_entities('Fidelity', 'Name gt ''a''');
SELECT row_key FROM query_entities('Fidelity', 'Name ne ''a''');
SELECT row_key FROM query_entities('Fidelity', 'Name lt ''a''');
SELECT (query_page_json('Fidelity', 'RowKey eq ''2''', NULL)::text LIKE '%"Name":"a\\u0000b"%') AS rendered_as_json_text;
SELECT jsonb_array_length(query_page('Fidelity', NULL, 'Other') -> 'value') AS selected_around_it;
SELECT pg_temp.try($$SELECT tablestore.query_page('Fidelity', NULL, NULL)::text$$);
SELECT properties::text AS stored FROM get_entity('Fidelity', 'p', '2');

-- an Int64 literal against the Double -2^63 compares exactly
SELECT insert_entity('Fidelity', '{"PartitionKey":"q","RowKey":"1","D":-9223372036854775808.0}') IS NOT NULL AS inserted;
SELECT row_key FROM query_entities('Fidelity', 'D eq -9223372036854775808L');
SELECT row_key FROM query_entities('Fidelity', 'D lt -9223372036854775807L');
SELECT count(*) FROM query_entities('Fidelity', 'D gt -9223372036854775808L');

-- dropping a table that does not exist is ResourceNotFound (the service's answer); an operation
-- on a missing table is TableNotFound
SELECT pg_temp.try($$SELECT tablestore.drop_table('NoSuchTable')$$);
SELECT pg_temp.try($$SELECT tablestore.insert_entity('NoSuchTable', '{"PartitionKey":"p","RowKey":"r"}')$$);
SELECT pg_temp.try($$SELECT tablestore.execute_batch('NoSuchTable', '[{"op":"insert","entity":{"PartitionKey":"p","RowKey":"r"}}]')$$);

-- messages quote input as bounded excerpts and are never cut inside a UTF-8 sequence
SELECT insert_entity('Fidelity', format('{"PartitionKey":"%s","RowKey":"%s"}', repeat('😀', 100), repeat('€', 100))::entity) IS NOT NULL AS inserted;
CREATE FUNCTION pg_temp.message_of(stmt text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE stmt;
	RETURN 'no error';
EXCEPTION WHEN others THEN
	RETURN SQLERRM;
END $$;
SELECT m = convert_from(convert_to(m, 'UTF8'), 'UTF8') AS valid_utf8, length(m) < 300 AS bounded, m
FROM (SELECT pg_temp.message_of(format($$SELECT tablestore.insert_entity('Fidelity', '{"PartitionKey":"%s","RowKey":"%s"}')$$,
	repeat('😀', 100), repeat('€', 100))) AS m) s;
SELECT m = convert_from(convert_to(m, 'UTF8'), 'UTF8') AS valid_utf8, length(m) < 300 AS bounded, m
FROM (SELECT pg_temp.message_of(format($$SELECT tablestore.execute_batch('Fidelity', '[{"op":"insert","entity":{"PartitionKey":"%s","RowKey":"%s"}}]')$$,
	repeat('😀', 100), repeat('€', 100))) AS m) s;

SELECT drop_table('Fidelity');
