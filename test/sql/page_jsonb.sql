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
-- 300 random entities: up to 60 properties each, names of 1 to 24 characters (jsonb reorders them
-- by length), every type, strings with escapes and characters of 1 to 4 bytes
SELECT setseed(0.42);
CREATE FUNCTION pg_temp.rnd_name() RETURNS text LANGUAGE sql VOLATILE AS $$
	SELECT 'p' || coalesce(string_agg(substr('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_', 1 + (random() * 62)::int, 1), ''), '')
	FROM generate_series(0, (random() * 23)::int - 1)
$$;
CREATE FUNCTION pg_temp.rnd_value() RETURNS jsonb LANGUAGE sql VOLATILE AS $$
	SELECT CASE (random() * 8)::int
		WHEN 0 THEN to_jsonb((random() * 4294967295 - 2147483648)::bigint::int)
		WHEN 1 THEN to_jsonb((random() - 0.5) * power(10, (random() * 40 - 20)::int))
		WHEN 2 THEN to_jsonb(random() < 0.5)
		WHEN 3 THEN to_jsonb((SELECT string_agg(chr((ARRAY[34, 92, 10, 1, 65, 233, 8364, 128512])[1 + (random() * 7)::int]), '')
			FROM generate_series(1, (random() * 12)::int)))
		WHEN 4 THEN jsonb_build_object('v', ((random() - 0.5) * 9e18)::bigint::text, 't', 'Edm.Int64')
		WHEN 5 THEN jsonb_build_object('v', gen_random_uuid()::text, 't', 'Edm.Guid')
		WHEN 6 THEN jsonb_build_object('v', to_char(timestamp '1601-01-01' + random() * interval '400 years', 'YYYY-MM-DD"T"HH24:MI:SS.US0"Z"'), 't', 'Edm.DateTime')
		ELSE jsonb_build_object('v', encode(decode(md5(random()::text), 'hex'), 'base64'), 't', 'Edm.Binary')
	END
$$;
SELECT count(insert_entity('PageJsonb', (SELECT jsonb_build_object('PartitionKey', 'r', 'RowKey', lpad(i::text, 4, '0'))
	|| coalesce(jsonb_object_agg(n, CASE WHEN v ? 't' THEN v -> 'v' ELSE v END), '{}')
	|| coalesce(jsonb_object_agg(n || '@odata.type', v -> 't') FILTER (WHERE v ? 't'), '{}')
	FROM (SELECT DISTINCT ON (n) n, v FROM (SELECT pg_temp.rnd_name() n, pg_temp.rnd_value() v
		FROM generate_series(1, (random() * 60)::int + i * 0)) q) p)::text::entity))
FROM generate_series(1, 300) i;
SELECT bool_and(pg_temp.same_bytes('PartitionKey eq ''r''', NULL, top, 'r', lpad(start::text, 4, '0'))) AS random_pages
FROM generate_series(1, 300, 37) start, (VALUES (1), (7), (100), (1000)) t(top);

-- the members are found where their entries say
SELECT p -> 'value' -> 0 ->> 'T' = E'é " \\ \n \u0001 😀' AS string_read,
	   (p -> 'value' -> 0 ->> 'I')::int AS i, length(p -> 'value' -> 0 ->> 'E') AS e_digits, p -> 'value' -> 0 -> 'L' AS l,
	   (p -> 'value' -> 1 ->> 'Px')::numeric AS last_of_40, (p -> 'value' -> 1 ->> ('P' || repeat('x', 39)))::numeric AS first_of_40,
	   p -> 'value' -> 71 ->> 'Name' AS last_entity, p ->> 'NextRowKey' AS next
FROM query_page('PageJsonb', NULL, NULL, 72) p;
SELECT jsonb_object_keys(query_page('PageJsonb', 'RowKey eq ''a''', 'S,Z,B,Nan') -> 'value' -> 0);

SELECT count(*) AS entities, max(pg_column_size(properties)) > 500 AS some_large, sum((SELECT count(*) FROM jsonb_object_keys(properties::text::jsonb) k WHERE k NOT LIKE '%@odata.type')) > 5000 AS many_properties FROM tablestore_data.pagejsonb WHERE partition_key = 'r';
SELECT drop_table('PageJsonb');
