-- entity_io: the JSON text form round-trips every type and edge value losslessly (contract §1).
SET search_path = tablestore, public;

-- A value round-trips when text -> entity -> text -> entity gives the same entity, and the
-- second text equals the first output (the output is canonical).
CREATE FUNCTION pg_temp.roundtrip(input text) RETURNS TABLE (output text, stable bool)
LANGUAGE sql AS $$
	SELECT e::text, (e::text)::tablestore.entity = e AND (e::text)::tablestore.entity::text = e::text
	FROM (SELECT input::tablestore.entity AS e) s
$$;

-- Int32: the range ends, zero, -0 (an integer, so Int32 0)
SELECT input, r.* FROM (VALUES
	('{"v":0}'), ('{"v":-0}'), ('{"v":2147483647}'), ('{"v":-2147483648}'),
	('{"v":-2147483648,"v@odata.type":"Edm.Int32"}'), ('{"v":"42","v@odata.type":"Edm.Int32"}')
) x(input), pg_temp.roundtrip(input) r;

-- Int64: over 2^53 and both extremes; a JSON integer outside Int32 without annotation is a Double
SELECT input, r.* FROM (VALUES
	('{"v":"9007199254740993","v@odata.type":"Edm.Int64"}'),
	('{"v":"9223372036854775807","v@odata.type":"Edm.Int64"}'),
	('{"v":"-9223372036854775808","v@odata.type":"Edm.Int64"}'),
	('{"v":"0","v@odata.type":"Edm.Int64"}'),
	('{"v":42,"v@odata.type":"Edm.Int64"}'),
	('{"v":2147483648}')
) x(input), pg_temp.roundtrip(input) r;

-- Double: NaN, the infinities, -0, whole numbers (annotated on output), extremes, subnormals
SELECT input, r.* FROM (VALUES
	('{"v":"NaN","v@odata.type":"Edm.Double"}'),
	('{"v":"Infinity","v@odata.type":"Edm.Double"}'),
	('{"v":"-Infinity","v@odata.type":"Edm.Double"}'),
	('{"v":-0.0}'), ('{"v":0.0}'), ('{"v":1.0}'), ('{"v":-1.0}'), ('{"v":12.5}'), ('{"v":0.1}'),
	('{"v":1e300}'), ('{"v":1.7976931348623157e308}'), ('{"v":-1.7976931348623157e308}'),
	('{"v":5e-324}'), ('{"v":2.2250738585072014e-308}'), ('{"v":1e22}'), ('{"v":1.5e3}'),
	('{"v":123456789012.5}'), ('{"v":3,"v@odata.type":"Edm.Double"}'),
	('{"v":"2.5","v@odata.type":"Edm.Double"}'), ('{"v":"-0","v@odata.type":"Edm.Double"}')
) x(input), pg_temp.roundtrip(input) r;

-- The sign of zero and NaN survive as values, not just as text
SELECT prop_double('{"v":-0.0}', 'v')::text AS neg_zero,
	   substr(float8send(prop_double('{"v":-0.0}', 'v')), 1, 1) = '\x80' AS sign_bit_set,
	   prop_double('{"v":"NaN","v@odata.type":"Edm.Double"}', 'v') AS nan,
	   prop_int64('{"v":"9007199254740993","v@odata.type":"Edm.Int64"}', 'v') AS int64_over_2_53,
	   prop_double('{"v":9007199254740993.0}', 'v') = 9007199254740992 AS double_rounds_as_ieee;

-- Boolean
SELECT input, r.* FROM (VALUES ('{"v":true}'), ('{"v":false}'),
	('{"v":true,"v@odata.type":"Edm.Boolean"}')) x(input), pg_temp.roundtrip(input) r;

-- DateTime at 100 ns, both ends of the range, offsets normalised to UTC, fewer digits padded
SELECT input, r.* FROM (VALUES
	('{"v":"1601-01-01T00:00:00.0000000Z","v@odata.type":"Edm.DateTime"}'),
	('{"v":"9999-12-31T23:59:59.9999999Z","v@odata.type":"Edm.DateTime"}'),
	('{"v":"2014-08-22T00:50:44.1234567Z","v@odata.type":"Edm.DateTime"}'),
	('{"v":"2014-08-22T00:50:44Z","v@odata.type":"Edm.DateTime"}'),
	('{"v":"2014-08-22T00:50:44.5Z","v@odata.type":"Edm.DateTime"}'),
	('{"v":"2014-08-22T02:50:44.1234567+02:00","v@odata.type":"Edm.DateTime"}'),
	('{"v":"2014-08-21T19:20:44.0000001-05:30","v@odata.type":"Edm.DateTime"}'),
	('{"v":"2000-02-29T12:00:00Z","v@odata.type":"Edm.DateTime"}'),
	('{"v":"1900-02-28T23:59:59.9999999Z","v@odata.type":"Edm.DateTime"}'),
	('{"v":"1601-01-01T01:00:00+01:00","v@odata.type":"Edm.DateTime"}')
) x(input), pg_temp.roundtrip(input) r;

-- Guid (case-insensitive input, lowercase output) and Binary (base64)
SELECT input, r.* FROM (VALUES
	('{"v":"68260b3f-beab-45e2-b900-33e2b442e724","v@odata.type":"Edm.Guid"}'),
	('{"v":"68260B3F-BEAB-45E2-B900-33E2B442E724","v@odata.type":"Edm.Guid"}'),
	('{"v":"00000000-0000-0000-0000-000000000000","v@odata.type":"Edm.Guid"}'),
	('{"v":"ffffffff-ffff-ffff-ffff-ffffffffffff","v@odata.type":"Edm.Guid"}'),
	('{"v":"","v@odata.type":"Edm.Binary"}'),
	('{"v":"AA==","v@odata.type":"Edm.Binary"}'),
	('{"v":"AAE=","v@odata.type":"Edm.Binary"}'),
	('{"v":"AAEC","v@odata.type":"Edm.Binary"}'),
	('{"v":"/+8A","v@odata.type":"Edm.Binary"}')
) x(input), pg_temp.roundtrip(input) r;

-- Strings: empty, any Unicode, every escape, control characters, U+0000, surrogate pairs
SELECT input, r.* FROM (VALUES
	('{"v":""}'), ('{"v":"Grüße, 世界"}'), ('{"v":"😀 \ud83d\ude00"}'),
	('{"v":"q\"b\\s\/n\nt\tr\rb\bf\f"}'), ('{"v":"\u0041\u00e9\u4e16"}'),
	('{"v":"nul:\u0000:one:\u0001:us:\u001f:del:\u007f"}'),
	('{"v":"x","v@odata.type":"Edm.String"}'), ('{"v":"123"}')
) x(input), pg_temp.roundtrip(input) r;

-- A String holding U+0000 keeps every byte
SELECT length(entity_to_binary('{"v":"a\u0000b"}')) AS binary_len,
	   '{"v":"a\u0000b"}'::entity <> '{"v":"a\u0000c"}'::entity AS differs_after_nul;

-- Keys: kept, validated, may be empty; null means absent
SELECT input, r.* FROM (VALUES
	('{"PartitionKey":"Sales","RowKey":"00010"}'),
	('{"PartitionKey":"","RowKey":""}'),
	('{"RowKey":"only-row"}'),
	('{"PartitionKey":"p","PartitionKey@odata.type":"Edm.String"}'),
	('{"PartitionKey":null,"RowKey":"r"}'),
	('{"PartitionKey":"Ünïcode 😀","RowKey":"a b-c_d.e~f"}')
) x(input), pg_temp.roundtrip(input) r;

-- Server metadata in input is dropped: Timestamp, odata.* members and their annotations
SELECT '{"odata.metadata":"x","odata.etag":"W/\"1\"","Timestamp":"2014-08-22T00:50:44Z",
		 "Timestamp@odata.type":"Edm.DateTime","@odata.context":"y","a":1}'::entity;

-- null means absent (its annotation is accepted and ignored)
SELECT '{"a":null,"b":1,"c":null,"c@odata.type":"Edm.Int64"}'::entity;

-- Whitespace and member order do not matter; output is in name order (bytewise, so _ after Z)
SELECT ' { "b" : 2 , "a" : 1 , "_x":3, "Z":4, "ä":5 } '::entity;

-- The documented example of contract §1
SELECT '{"PartitionKey":"Sales","RowKey":"00010",
 "Name":"Ken Kwok", "Age":23, "Score":12.5, "Active":true,
 "Big":"9007199254740993",          "Big@odata.type":"Edm.Int64",
 "Hired":"2014-08-22T00:50:44.1234567Z", "Hired@odata.type":"Edm.DateTime",
 "Id":"68260b3f-beab-45e2-b900-33e2b442e724", "Id@odata.type":"Edm.Guid",
 "Photo":"AAEC",                     "Photo@odata.type":"Edm.Binary",
 "Ratio":"NaN",                      "Ratio@odata.type":"Edm.Double"}'::entity AS e \gset
SELECT :'e'::entity;
SELECT name, prop_type(:'e', name) FROM unnest(ARRAY['Name','Age','Score','Active','Big','Hired','Id',
	'Photo','Ratio','PartitionKey','RowKey','Missing']) name;

-- An Int32 read back is an Int32: increment it and merge it back
SELECT prop_type(:'e'::entity || format('{"Age":%s}', prop_int32(:'e', 'Age') + 1)::entity, 'Age') AS age_type,
	   prop_int32(:'e'::entity || format('{"Age":%s}', prop_int32(:'e', 'Age') + 1)::entity, 'Age') AS age;

-- Casts to and from jsonb keep every type (a -0 Double travels as the annotated string "-0"); jsonb
-- keeps its keys in an order of its own (shorter first), so the order written does not travel (the
-- entity is equal all the same: order is presentation)
SELECT ((e::jsonb)::entity)::jsonb = e::jsonb AS same_properties, (e::jsonb)::entity = e AS equal_entity,
	   (e::jsonb)::entity::text = e::text AS same_order, e::jsonb
FROM (SELECT :'e'::entity || '{"Z":-0.0,"W":1.0,"S":"x"}'::entity AS e) s;
SELECT '{"a":1,"b":[1]}'::jsonb::entity;
SELECT '{"v":"a\u0000b"}'::entity::jsonb;
