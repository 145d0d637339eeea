-- entity_limits: every per-entity limit of contract §2 -- the value at the limit is accepted, one past
-- it is rejected with its own error (SQLSTATE and service code).
SET search_path = tablestore, public;

\set ECHO none
\i test/regress/helpers.sql
\set ECHO all
CREATE FUNCTION pg_temp.check(input text) RETURNS text LANGUAGE sql AS
$$ SELECT pg_temp.try(format('SELECT ''size '' || tablestore.entity_size(%L::tablestore.entity)', input)) $$;

-- Properties per entity: 252 custom
SELECT n, pg_temp.check('{' || string_agg(format('"p%s":%s', i, i), ',') || '}')
FROM (VALUES (252), (253)) v(n), generate_series(1, n) i GROUP BY n ORDER BY n;
-- keys and Timestamp do not count
SELECT pg_temp.check('{"PartitionKey":"p","RowKey":"r","Timestamp":"x",' ||
	string_agg(format('"p%s":%s', i, i), ',') || '}') FROM generate_series(1, 252) i;

-- String: 32768 UTF-16 code units (characters above U+FFFF count twice)
SELECT label, pg_temp.check(format('{"s":"%s"}', s)) FROM (VALUES
	('32768 x a', repeat('a', 32768)), ('32769 x a', repeat('a', 32769)),
	('32768 x é (65536 bytes)', repeat('é', 32768)),
	('16384 x 😀', repeat('😀', 16384)), ('16384 x 😀 + a', repeat('😀', 16384) || 'a'),
	-- ASCII is counted eight bytes at a time: what follows a long run still counts
	('32766 x a + 😀', repeat('a', 32766) || '😀'), ('32767 x a + 😀', repeat('a', 32767) || '😀'),
	('😀 + 32766 x a', '😀' || repeat('a', 32766)), ('😀 + 32767 x a', '😀' || repeat('a', 32767))
) v(label, s);

-- Binary: 65536 bytes
SELECT n, pg_temp.check(format('{"b":"%s","b@odata.type":"Edm.Binary"}',
	replace(encode(decode(repeat('ab', n), 'hex'), 'base64'), E'\n', '')))
FROM (VALUES (65536), (65537), (70000)) v(n);

-- Property names: 1 to 255 characters
SELECT n, pg_temp.check(format('{"%s":1}', repeat('n', n))) FROM (VALUES (1), (255), (256)) v(n);
SELECT pg_temp.check(format('{"%s":1}', repeat('ñ', 255))) AS names_count_characters_not_bytes;

-- Keys: 512 UTF-16 code units each (1 KiB), empty allowed
SELECT k, n, pg_temp.check(format('{"%s":"%s"}', k, repeat('k', n)))
FROM (VALUES ('PartitionKey'), ('RowKey')) a(k), (VALUES (0), (512), (513)) b(n) ORDER BY 1, 2;
SELECT pg_temp.check(format('{"RowKey":"%s"}', repeat('😀', 256))) AS rk_256_astral,
	   pg_temp.check(format('{"RowKey":"%s"}', repeat('😀', 256) || 'x')) AS rk_256_astral_plus_1;

-- Entity size: 1 MiB by the service formula. 15 Strings of 32768 units under 4-character names
-- take 15 * (8 + 8 + 4 + 65536) = 983340; with 4 for the entity and a Binary "b" of n bytes
-- (8 + 2 + 4 + n) the total is 1048576 exactly at n = 65218.
SELECT n, pg_temp.check('{' || (SELECT string_agg(format('"s%s":"%s"', lpad(i::text, 3, '0'), repeat('x', 32768)), ',')
		FROM generate_series(1, 15) i) ||
	format(',"b":"%s","b@odata.type":"Edm.Binary"}', replace(encode(decode(repeat('00', n), 'hex'), 'base64'), E'\n', '')))
FROM (VALUES (65218), (65219)) v(n);
-- the keys count too: the same entity with a 1-character PartitionKey is 2 bytes larger
SELECT pg_temp.check('{"PartitionKey":"p",' || (SELECT string_agg(format('"s%s":"%s"', lpad(i::text, 3, '0'), repeat('x', 32768)), ',')
		FROM generate_series(1, 15) i) ||
	format(',"b":"%s","b@odata.type":"Edm.Binary"}', replace(encode(decode(repeat('00', 65216), 'hex'), 'base64'), E'\n', '')))
	AS with_key_at_limit;

-- The size formula for each type: 4 + sum(8 + 2*len16(name) + size(value))
SELECT t, entity_size(e::entity) FROM (VALUES
	('empty', '{}'), ('Int32', '{"a":1}'), ('Boolean', '{"a":true}'), ('Double', '{"a":1.5}'),
	('Int64', '{"a":"1","a@odata.type":"Edm.Int64"}'),
	('DateTime', '{"a":"2014-08-22T00:50:44Z","a@odata.type":"Edm.DateTime"}'),
	('Guid', '{"a":"68260b3f-beab-45e2-b900-33e2b442e724","a@odata.type":"Edm.Guid"}'),
	('Binary 3', '{"a":"AAEC","a@odata.type":"Edm.Binary"}'),
	('String 2 (1 astral)', '{"a":"😀"}'), ('keys', '{"PartitionKey":"ab","RowKey":"c"}')
) v(t, e);

-- DateTime range: 1601-01-01T00:00:00Z to 9999-12-31T23:59:59.9999999Z (after the offset is applied)
SELECT d, pg_temp.check(format('{"d":"%s","d@odata.type":"Edm.DateTime"}', d)) FROM (VALUES
	('1601-01-01T00:00:00Z'), ('1600-12-31T23:59:59.9999999Z'),
	('9999-12-31T23:59:59.9999999Z'), ('9999-12-31T23:59:59.9999999-00:01'),
	('1601-01-01T00:30:00+01:00'), ('0001-01-01T00:00:00Z')
) v(d);

-- Int32 and Int64 ranges, Double range
SELECT v, pg_temp.check(v) FROM (VALUES
	('{"i":2147483647,"i@odata.type":"Edm.Int32"}'), ('{"i":2147483648,"i@odata.type":"Edm.Int32"}'),
	('{"i":-2147483648,"i@odata.type":"Edm.Int32"}'), ('{"i":-2147483649,"i@odata.type":"Edm.Int32"}'),
	('{"i":"9223372036854775807","i@odata.type":"Edm.Int64"}'), ('{"i":"9223372036854775808","i@odata.type":"Edm.Int64"}'),
	('{"i":"-9223372036854775808","i@odata.type":"Edm.Int64"}'), ('{"i":"-9223372036854775809","i@odata.type":"Edm.Int64"}'),
	('{"d":1.7976931348623157e308}'), ('{"d":1.8e308}'), ('{"d":-1e309}'), ('{"d":1e-400}'),
	('{"d":"1e999","d@odata.type":"Edm.Double"}')
) x(v);

-- Merging past the limits is caught too: || builds through the same checks
SELECT (SELECT ('{' || string_agg(format('"a%s":1', i), ',') || '}') FROM generate_series(1, 200) i)::entity
	|| (SELECT ('{' || string_agg(format('"b%s":1', i), ',') || '}') FROM generate_series(1, 53) i)::entity;
