-- entity_malformed: malformed entity text, each rejected with its specific error (SQLSTATE and
-- service code), never a crash, never a partial value.
SET search_path = tablestore, public;

\set ECHO none
\i test/regress/helpers.sql
\set ECHO all
CREATE FUNCTION pg_temp.entity(input text) RETURNS text LANGUAGE sql AS
$$ SELECT pg_temp.try(format('SELECT %L::tablestore.entity::text', input)) $$;

-- JSON syntax (TSB01)
SELECT n, input, pg_temp.entity(input) FROM (VALUES
	(1, ''), (2, '   '), (3, 'null'), (4, '[]'), (5, '"x"'), (6, '42'),
	(7, '{'), (8, '{"a":1'), (9, '{"a":1,}'), (10, '{"a" 1}'), (11, '{a:1}'),
	(12, '{''a'':1}'), (13, '{"a":01}'), (14, '{"a":1.}'), (15, '{"a":.5}'), (16, '{"a":1e}'),
	(17, '{"a":+1}'), (18, '{"a":NaN}'), (19, '{"a":tru}'), (20, '{"a":"x\q"}'),
	(21, '{"a":"\u12"}'), (22, '{"a":"\ud800"}'), (23, '{"a":"\udc00x"}'),
	(24, E'{"a":"raw\nnewline"}'), (25, '{"a":{"b":1}}'), (26, '{"a":[1]}'),
	(27, '{"a":1} x'), (28, '{"a":1}{}'), (29, '{"a":"unterminated}'), (30, '{"a":-}'),
	(31, '{"a":1,,"b":2}'), (32, '{"a":Infinity}'), (33, '{"a":"\ud800\u0041"}')
) x(n, input) ORDER BY n;

-- Property names (TSB07 PropertyNameInvalid)
SELECT n, input, pg_temp.entity(input) FROM (VALUES
	(40, '{"1a":1}'), (41, '{"a-b":1}'), (42, '{"":1}'), (43, '{"a b":1}'), (44, '{"a.b":1}'),
	(45, '{"a$":1}'), (46, '{"😀":1}'), (47, '{"\u0000":1}'), (48, '{"a\u00a0b":1}')
) x(n, input) ORDER BY n;

-- Duplicates (TSB09 DuplicatePropertiesSpecified)
SELECT n, input, pg_temp.entity(input) FROM (VALUES
	(50, '{"a":1,"a":2}'), (51, '{"a":1,"a":null}'), (52, '{"a":null,"a":null}'),
	(53, '{"a":1,"a@odata.type":"Edm.Int32","a@odata.type":"Edm.Int64"}'),
	(54, '{"PartitionKey":"a","PartitionKey":"b"}'), (55, '{"RowKey":null,"RowKey":"b"}'),
	(56, '{"a":1,"\u0061":2}')
) x(n, input) ORDER BY n;

-- Annotations (TSB03): unknown type, misplaced, not a string, wrong JSON kind for the type
SELECT n, input, pg_temp.entity(input) FROM (VALUES
	(60, '{"a@odata.type":"Edm.Int64"}'),
	(61, '{"a":"1","a@odata.type":"Edm.Int128"}'),
	(62, '{"a":"1","a@odata.type":5}'),
	(63, '{"a":"x","a@odata.foo":"y"}'),
	(64, '{"a":"1","a@odata.type":"Edm.Int64 "}'),
	(65, '{"a":"1","a@odata.type":"edm.int64"}'),
	(66, '{"a":"true","a@odata.type":"Edm.Boolean"}'),
	(67, '{"a":1,"a@odata.type":"Edm.String"}'),
	(68, '{"a":true,"a@odata.type":"Edm.Int32"}'),
	(69, '{"a":5,"a@odata.type":"Edm.DateTime"}'),
	(70, '{"a":5,"a@odata.type":"Edm.Guid"}'),
	(71, '{"a":5,"a@odata.type":"Edm.Binary"}'),
	(72, '{"PartitionKey":"a","PartitionKey@odata.type":"Edm.Int32"}'),
	(73, '{"a@odata.type":"Edm.Int32","a@odata.type":"Edm.Int32","a":1}')
) x(n, input) ORDER BY n;

-- Values that do not parse as their type (TSB04)
SELECT n, input, pg_temp.entity(input) FROM (VALUES
	(80, '{"a":"abc","a@odata.type":"Edm.Int64"}'),
	(81, '{"a":1.5,"a@odata.type":"Edm.Int32"}'),
	(82, '{"a":"1e3","a@odata.type":"Edm.Int64"}'),
	(83, '{"a":" 1","a@odata.type":"Edm.Int64"}'),
	(84, '{"a":"-","a@odata.type":"Edm.Int64"}'),
	(85, '{"a":"１２","a@odata.type":"Edm.Int32"}'),
	(86, '{"a":"2014-13-01T00:00:00Z","a@odata.type":"Edm.DateTime"}'),
	(87, '{"a":"2014-02-30T00:00:00Z","a@odata.type":"Edm.DateTime"}'),
	(88, '{"a":"2014-08-22T00:50:44.12345678Z","a@odata.type":"Edm.DateTime"}'),
	(89, '{"a":"2014-08-22 00:50:44Z","a@odata.type":"Edm.DateTime"}'),
	(90, '{"a":"2014-08-22T00:50:44","a@odata.type":"Edm.DateTime"}'),
	(91, '{"a":"2014-08-22T24:00:00Z","a@odata.type":"Edm.DateTime"}'),
	(92, '{"a":"2014-08-22T00:50:60Z","a@odata.type":"Edm.DateTime"}'),
	(93, '{"a":"2014-08-22T00:50:44.Z","a@odata.type":"Edm.DateTime"}'),
	(94, '{"a":"2014-08-22T00:50:44+2:00","a@odata.type":"Edm.DateTime"}'),
	(95, '{"a":"2014-08-22","a@odata.type":"Edm.DateTime"}'),
	(96, '{"a":"68260b3f-beab-45e2-b900-33e2b442e72","a@odata.type":"Edm.Guid"}'),
	(97, '{"a":"68260b3fxbeab-45e2-b900-33e2b442e724","a@odata.type":"Edm.Guid"}'),
	(98, '{"a":"{68260b3f-beab-45e2-b900-33e2b442e724}","a@odata.type":"Edm.Guid"}'),
	(99, '{"a":"g8260b3f-beab-45e2-b900-33e2b442e724","a@odata.type":"Edm.Guid"}'),
	(100, '{"a":"AAE","a@odata.type":"Edm.Binary"}'),
	(101, '{"a":"A@==","a@odata.type":"Edm.Binary"}'),
	(102, '{"a":"AB==","a@odata.type":"Edm.Binary"}'),
	(103, '{"a":"AA=A","a@odata.type":"Edm.Binary"}'),
	(104, '{"a":"AA\n==","a@odata.type":"Edm.Binary"}'),
	(105, '{"a":"nan","a@odata.type":"Edm.Double"}'),
	(106, '{"a":"inf","a@odata.type":"Edm.Double"}'),
	(107, '{"a":"0x10","a@odata.type":"Edm.Double"}'),
	(108, '{"a":"","a@odata.type":"Edm.Double"}')
) x(n, input) ORDER BY n;

-- Keys (TSB02): not a string, forbidden characters
SELECT n, input, pg_temp.entity(input) FROM (VALUES
	(110, '{"PartitionKey":1}'), (111, '{"RowKey":true}'), (112, '{"PartitionKey":"a/b"}'),
	(113, '{"RowKey":"a#b"}'), (114, '{"RowKey":"a?b"}'), (115, '{"RowKey":"a\\b"}'),
	(116, '{"RowKey":"a\u0001"}'), (117, '{"RowKey":"tab\there"}'), (118, '{"RowKey":"a\u007f"}'),
	(119, '{"RowKey":"a\u0085"}'), (120, '{"PartitionKey":"\u0000"}'), (121, '{"RowKey":"a\u009fb"}')
) x(n, input) ORDER BY n;

-- Out of range (TSB06) in unannotated numbers
SELECT n, input, pg_temp.entity(input) FROM (VALUES
	(130, '{"a":1e400}'), (131, '{"a":-1e400}'), (132, '{"a":1e-400}')
) x(n, input) ORDER BY n;

-- The string scanner reads plain ASCII eight bytes at a time. Every byte that ends a plain run,
-- at each offset of a word, is read as jsonb reads it; a control character is refused and an
-- unterminated string found wherever they fall.
SELECT s AS ends_a_run, count(*) FILTER (WHERE prop_string(doc::entity, 'a') = doc::jsonb ->> 'a') AS read_as_jsonb,
	count(*) AS offsets
FROM unnest(ARRAY['\"', '\\', '\/', '\n', '\u00e9', 'é', '€', '😀', '\ud83d\ude00', 'x\"y']) s,
	generate_series(0, 17) k, LATERAL (SELECT '{"a":"' || repeat('x', k) || s || repeat('y', 17 - k) || '"}') d(doc)
GROUP BY s ORDER BY s COLLATE "C";
SELECT k, pg_temp.entity('{"a":"' || repeat('x', k) || E'\t' || repeat('y', 9) || '"}') AS control_character,
	pg_temp.entity('{"a":"' || repeat('x', k)) AS unterminated
FROM generate_series(0, 9) k;

-- Messages never echo unbounded input: a huge bad name is cut to 40 characters
SELECT length(pg_temp.entity(format('{"%s":1}', '1' || repeat('x', 100000)))) < 200 AS bounded_message;
SELECT pg_temp.entity(format('{"RowKey":"%s/"}', repeat('k', 5000)));

-- The server survives all of the above and still works
SELECT '{"ok":true}'::entity;
