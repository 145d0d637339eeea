-- entity_ops: typed accessors, the ? || - operators, equality, ordering and hashing.
SET search_path = tablestore, public;
SET timezone = 'UTC';
SET datestyle = 'ISO, YMD';

CREATE TEMP TABLE sample AS SELECT '{"PartitionKey":"P","RowKey":"R",
	"S":"text","I":7,"L":"9007199254740993","L@odata.type":"Edm.Int64","D":2.5,"B":true,
	"T":"2014-08-22T00:50:44.1234567Z","T@odata.type":"Edm.DateTime",
	"G":"68260b3f-beab-45e2-b900-33e2b442e724","G@odata.type":"Edm.Guid",
	"X":"AAEC","X@odata.type":"Edm.Binary"}'::entity AS e;

-- Each accessor returns its type's value, NULL for another type, NULL when absent
SELECT prop_string(e, 'S') s, prop_int32(e, 'I') i, prop_int64(e, 'L') l, prop_double(e, 'D') d,
	   prop_bool(e, 'B') b, prop_datetime(e, 'T') t, prop_guid(e, 'G') g, prop_binary(e, 'X') x
FROM sample;
SELECT prop_string(e, 'I') s, prop_int32(e, 'L') i, prop_int64(e, 'I') l, prop_double(e, 'I') d,
	   prop_bool(e, 'S') b, prop_datetime(e, 'S') t, prop_guid(e, 'S') g, prop_binary(e, 'S') x
FROM sample;
SELECT prop_string(e, 'none') s, prop_int32(e, 'none') i, prop_type(e, 'none') t,
	   prop_int32(e, 'i') AS names_are_case_sensitive
FROM sample;
SELECT n, prop_type(e, n) FROM sample, unnest(ARRAY['S','I','L','D','B','T','G','X','PartitionKey','RowKey','Timestamp']) n;
-- keys read as Strings
SELECT prop_string(e, 'PartitionKey') pk, prop_string(e, 'RowKey') rk FROM sample;
-- DateTime to timestamptz rounds down to the microsecond, also before 2000 and before 1970
SELECT prop_datetime(format('{"t":"%s","t@odata.type":"Edm.DateTime"}', t)::entity, 't') FROM (VALUES
	('2014-08-22T00:50:44.1234567Z'), ('1999-12-31T23:59:59.9999999Z'), ('1969-07-20T20:17:40.0000009Z'),
	('1601-01-01T00:00:00Z'), ('9999-12-31T23:59:59.9999999Z')) v(t);
-- A String with U+0000 cannot become text: a clear error, not a truncated value
SELECT prop_string('{"v":"a\u0000b"}', 'v');
-- NULL arguments give NULL (STRICT)
SELECT prop_int32(NULL, 'a') IS NULL AS null_entity, prop_int32('{"a":1}', NULL) IS NULL AS null_name;

-- ? has property (keys included)
SELECT e OPERATOR(tablestore.?) 'S' AS has_s, e OPERATOR(tablestore.?) 's' AS has_lower_s,
	   e OPERATOR(tablestore.?) 'RowKey' AS has_rk, '{}'::entity OPERATOR(tablestore.?) 'RowKey' AS empty_has_rk
FROM sample;

-- || merges, the right side wins, types follow the right side; keys from the right when it has them
SELECT '{"a":1,"b":"x"}'::entity || '{"b":2,"c":true}'::entity AS merged;
SELECT '{"PartitionKey":"p","RowKey":"r","a":1}'::entity || '{"RowKey":"r2"}'::entity AS keys_merge;
SELECT '{"a":1}'::entity || '{}'::entity AS right_empty, '{}'::entity || '{"a":1}'::entity AS left_empty;

-- - removes a property (or a key); unchanged when absent
SELECT e - 'S' - 'I' - 'PartitionKey' AS removed, ('{"a":1}'::entity - 'zz') = '{"a":1}'::entity AS absent_unchanged
FROM sample;

-- Equality is over the canonical form: spelling, escapes and annotations do not matter, nor the
-- order the properties were written in (presentation only: test/sql/entity_equality.sql), and the hashes
-- agree with that
SELECT a, b, a::entity = b::entity AS equal, a::entity <> b::entity AS not_equal,
	   entity_hash(a::entity) = entity_hash(b::entity) AS same_hash
FROM (VALUES
	('{"a":1,"b":2}', '{ "b":2, "a":1 }'),
	('{"s":"A"}', '{"s":"\u0041"}'),
	('{"d":1.50}', '{"d":15e-1}'),
	('{"i":23}', '{"i":23,"i@odata.type":"Edm.Int32"}'),
	('{"t":"2014-08-22T02:50:44+02:00","t@odata.type":"Edm.DateTime"}', '{"t":"2014-08-22T00:50:44.0000000Z","t@odata.type":"Edm.DateTime"}'),
	('{"g":"68260B3F-BEAB-45E2-B900-33E2B442E724","g@odata.type":"Edm.Guid"}', '{"g":"68260b3f-beab-45e2-b900-33e2b442e724","g@odata.type":"Edm.Guid"}'),
	('{"n":"NaN","n@odata.type":"Edm.Double"}', '{"n":"NaN","n@odata.type":"Edm.Double"}'),
	('{"a":1,"Timestamp":"x"}', '{"a":1}'),
	('{"a":null}', '{}'),
	('{"i":1}', '{"i":1.0}'),
	('{"i":1}', '{"i":"1","i@odata.type":"Edm.Int64"}'),
	('{"z":0.0}', '{"z":-0.0}'),
	('{"s":"a"}', '{"s":"b"}'),
	('{"PartitionKey":"p"}', '{"RowKey":"p"}'),
	('{}', '{"PartitionKey":""}')
) v(a, b);

-- The hash invariants PostgreSQL checks for its own types (src/test/regress/sql/hash_func.sql):
-- the 32-bit hash equals the low 32 bits of the 64-bit hash with seed 0, and differs with seed 1.
SELECT v, entity_hash(v)::bit(32) AS standard, entity_hash_extended(v, 0)::bit(32) AS extended0,
	   entity_hash_extended(v, 1)::bit(32) AS extended1
FROM (SELECT e FROM sample UNION ALL VALUES ('{}'::entity), ('{"a":1}'), ('{"a":"1"}'), ('{"a":1.5}'),
	('{"PartitionKey":"p","RowKey":"r"}'), ('{"z":-0.0}'), ('{"z":0.0}'), ('{"b":false}'),
	('{"s":"a\u0000b"}')) x(v)
WHERE entity_hash(v)::bit(32) != entity_hash_extended(v, 0)::bit(32)
   OR entity_hash(v)::bit(32) = entity_hash_extended(v, 1)::bit(32);

-- On many values: equal entities hash equal; different ones (almost always) hash differently
CREATE TEMP TABLE many AS
SELECT i, format('{"PartitionKey":"p%s","RowKey":"%s","n":%s,"s":"v%s"}', i % 10, i, i, i % 7)::entity AS e,
	   format('{ "RowKey" : "%s", "n":%s, "PartitionKey":"p%s", "s":"\u0076%s" }', i, i, i % 10, i % 7)::entity AS same
FROM generate_series(1, 2000) i;
SELECT count(*) FILTER (WHERE e = same AND entity_hash(e) = entity_hash(same)
	AND entity_hash_extended(e, 42) = entity_hash_extended(same, 42)) AS equal_and_same_hash,
	   count(DISTINCT entity_hash(e)) AS distinct_hashes
FROM many;

-- The hash opclass drives hash aggregation, hash joins and hash indexes
SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT e, count(*) FROM many GROUP BY e;
SELECT count(*) FROM (SELECT e FROM many UNION ALL SELECT same FROM many) u GROUP BY e HAVING count(*) <> 2;
RESET enable_sort;
SET enable_mergejoin = off;
SET enable_nestloop = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM many a JOIN many b ON a.e = b.same;
SELECT count(*) FROM many a JOIN many b ON a.e = b.same;
RESET enable_mergejoin;
RESET enable_nestloop;
CREATE INDEX many_hash ON many USING hash (e);
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT i FROM many WHERE e = '{"PartitionKey":"p7","RowKey":"17","n":17,"s":"v3"}';
SELECT i FROM many WHERE e = '{"PartitionKey":"p7","RowKey":"17","n":17,"s":"v3"}';
RESET enable_seqscan;

-- The btree opclass: a total order consistent with equality (sort, DISTINCT, merge join, unique index)
SELECT count(DISTINCT e) AS distinct_entities FROM (SELECT e FROM many UNION ALL SELECT same FROM many) u;
CREATE UNIQUE INDEX many_btree ON many (e);
INSERT INTO many VALUES (0, '{"PartitionKey":"p1","RowKey":"1","n":1,"s":"v1"}', '{}');
SELECT entity_cmp('{"a":1}', '{"a":1}') AS eq, entity_cmp('{"a":1}', '{"a":2}') AS lt_or_gt_consistent,
	   ('{"a":1}'::entity < '{"a":2}'::entity) = (entity_cmp('{"a":1}', '{"a":2}') < 0) AS lt_matches_cmp;
-- one call site over entities whose directories differ: the position remembered from the previous
-- row (the accessor's hint) must never answer for another layout
SELECT i, prop_int32(e, 'Age') AS age, prop_string(e, 'Name') AS name, filter_key_int32(e, 'Age') AS key
FROM (VALUES (1, '{"Age":1,"Name":"a"}'::entity), (2, '{"A":0,"Age":2,"Name":"b"}'), (3, '{"Name":"c"}'),
	(4, '{"Age":"x","Name":"d","Zeta":1}'), (5, '{"Aga":5,"Name":"e"}'), (6, '{"Age":6,"B":1,"C":2,"Name":"f"}'),
	(7, '{"Ag":7,"Age":7}'), (8, '{}')) v(i, e) ORDER BY i;
