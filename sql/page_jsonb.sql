-- page_jsonb: query_page writes jsonb's binary form itself (jsonb_sink.c). Every page here must be
-- byte for byte what jsonb makes of the same page as JSON text (query_page_json): record image
-- equality (*=) compares the stored bytes, so a wrong offset, padding or key order fails it.
SET search_path = tablestore, public;

SELECT create_table('PageJsonb');
-- every type the service has, values that need escapes, and numbers of every shape
SELECT insert_entity('PageJsonb', '{"PartitionKey":"p","RowKey":"a","S":"","T":"é \" \\ \n \u0001 \ud83d\ude00",
	"I":-2147483648,"J":2147483647,"Z":0,"D":-1.5e-300,"E":1e300,"F":5.0,"G":0.1,
	"Nan":"NaN","Nan@odata.type":"Edm.Double","Inf":"-Infinity","Inf@odata.type":"Edm.Double",
	"L":"-9223372036854775808","L@odata.type":"Edm.Int64","B":true,"C":false,
	"W":"1601-01-01T00:00:00.0000001Z","W@odata.type":"Edm.DateTime",
	"U":"c9da6455-213d-42c9-9a79-3e9149a57833","U@odata.type":"Edm.Guid",
	"Y":"AAEC/w==","Y@odata.type":"Edm.Binary"}'::entity) IS NOT NULL AS inserted;
-- more members than jsonb's offset stride (32), keys of different lengths, in an order jsonb changes
SELECT insert_entity('PageJsonb', (SELECT jsonb_object_agg('P' || repeat('x', 40 - i), i * 1.25)
	|| '{"PartitionKey":"p","RowKey":"b"}' FROM generate_series(1, 40) i)::text::entity) IS NOT NULL AS inserted;
-- more entities than the stride in one page
SELECT count(insert_entity('PageJsonb', format('{"PartitionKey":"q","RowKey":"%s","N":%s,"Name":"n%s"}', lpad(i::text, 3, '0'), i, i)::entity))
	FROM generate_series(1, 70) i;

CREATE FUNCTION pg_temp.same_bytes(f text, s text, top int, npk text DEFAULT NULL, nrk text DEFAULT NULL) RETURNS bool
LANGUAGE sql AS $$
	SELECT a *= b FROM (SELECT query_page('PageJsonb', f, s, top, npk, nrk)) a,
		(SELECT query_page_json('PageJsonb', f, s, top, npk, nrk)::jsonb) b
$$;
SELECT pg_temp.same_bytes(NULL, NULL, 1000) AS whole_table,
	   pg_temp.same_bytes('PartitionKey eq ''p''', NULL, 1000) AS every_type_and_stride,
	   pg_temp.same_bytes('PartitionKey eq ''q''', NULL, 50) AS continuation,
	   pg_temp.same_bytes('PartitionKey eq ''q''', 'N,Name,Missing', 50, 'q', '020') AS selected_from_continuation,
	   pg_temp.same_bytes('N gt 1000', NULL, 1000) AS empty_page,
	   pg_temp.same_bytes('N eq 7 or RowKey eq ''a''', 'T,D,W', 5) AS sparse_filter;
-- the members are found where their entries say
SELECT p -> 'value' -> 0 ->> 'T' = E'é " \\ \n \u0001 😀' AS string_read,
	   (p -> 'value' -> 0 ->> 'I')::int AS i, length(p -> 'value' -> 0 ->> 'E') AS e_digits, p -> 'value' -> 0 -> 'L' AS l,
	   (p -> 'value' -> 1 ->> 'Px')::numeric AS last_of_40, (p -> 'value' -> 1 ->> ('P' || repeat('x', 39)))::numeric AS first_of_40,
	   p -> 'value' -> 71 ->> 'Name' AS last_entity, p ->> 'NextRowKey' AS next
FROM query_page('PageJsonb', NULL, NULL, 72) p;
SELECT jsonb_object_keys(query_page('PageJsonb', 'RowKey eq ''a''', 'S,Z,B,Nan') -> 'value' -> 0);

SELECT drop_table('PageJsonb');
