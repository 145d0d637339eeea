-- typed_compare: the typed comparison semantics of contract §5 as a matrix - each of the 8 property
-- types against each of the 8 literal kinds (a value below, equal to and above the property's),
-- under each of the 6 operators, with and without not, on entities that lack the property too.
-- Every result is checked against a reference written straight from the rules, under
-- indexingMode none (the filter keys' SQL) and under the default policy with the scan forced onto
-- the entity index (the @~ operator and the index's key ranges), which must agree.
SET search_path = tablestore, public;
SELECT create_table('Matrix', '{"indexingMode":"none"}');
SELECT create_table('MatrixIx');

-- One entity per property type (property P), and one without P.
CREATE TEMP TABLE props (name text, ptype text, entity text);
INSERT INTO props VALUES
	('str',  'Edm.String',   '{"P":"m"}'),
	('i32',  'Edm.Int32',    '{"P":5}'),
	('i64',  'Edm.Int64',    '{"P":"5","P@odata.type":"Edm.Int64"}'),
	('dbl',  'Edm.Double',   '{"P":5.0}'),
	('bool', 'Edm.Boolean',  '{"P":true}'),
	('dt',   'Edm.DateTime', '{"P":"2014-08-22T00:50:44.1234567Z","P@odata.type":"Edm.DateTime"}'),
	('guid', 'Edm.Guid',     '{"P":"00000000-0000-0000-0000-000000000005","P@odata.type":"Edm.Guid"}'),
	('bin',  'Edm.Binary',   '{"P":"Ag==","P@odata.type":"Edm.Binary"}'),
	('none', NULL,           '{"Q":1}');
SELECT insert_entity(t, format('{"PartitionKey":"m","RowKey":"%s"}', name)::entity || entity::entity) IS NOT NULL
FROM props, unnest(ARRAY['Matrix', 'MatrixIx']) t ORDER BY t, name;
ANALYZE tablestore_data.matrixix;

-- Literals: kind, OData text, and where it stands against the property value of the same kind
-- (-1 below, 0 equal, 1 above); numbers also carry their numeric value for the widening rules.
CREATE TEMP TABLE lits (lkind text, lit text, rel int, num numeric);
INSERT INTO lits VALUES
	('Edm.String', '''l''', -1, NULL), ('Edm.String', '''m''', 0, NULL), ('Edm.String', '''n''', 1, NULL),
	('Edm.Int32', '4', -1, 4), ('Edm.Int32', '5', 0, 5), ('Edm.Int32', '6', 1, 6),
	('Edm.Int64', '4L', -1, 4), ('Edm.Int64', '5L', 0, 5), ('Edm.Int64', '6L', 1, 6),
	('Edm.Double', '4.5', -1, 4.5), ('Edm.Double', '5.0', 0, 5), ('Edm.Double', '5.5', 1, 5.5),
	('Edm.Boolean', 'false', -1, NULL), ('Edm.Boolean', 'true', 0, NULL),
	('Edm.DateTime', 'datetime''2014-08-22T00:50:44.1234566Z''', -1, NULL),
	('Edm.DateTime', 'datetime''2014-08-22T00:50:44.1234567Z''', 0, NULL),
	('Edm.DateTime', 'datetime''2014-08-22T00:50:44.1234568Z''', 1, NULL),
	('Edm.Guid', 'guid''00000000-0000-0000-0000-000000000004''', -1, NULL),
	('Edm.Guid', 'guid''00000000-0000-0000-0000-000000000005''', 0, NULL),
	('Edm.Guid', 'guid''00000000-0000-0000-0000-000000000006''', 1, NULL),
	('Edm.Binary', 'X''01''', -1, NULL), ('Edm.Binary', 'X''02''', 0, NULL), ('Edm.Binary', 'binary''03''', 1, NULL);
CREATE TEMP TABLE ops (op text);
INSERT INTO ops VALUES ('eq'), ('ne'), ('gt'), ('ge'), ('lt'), ('le');

-- The reference, from contract §5: absent -> false; same type or a lossless widening of the literal
-- (Int32 -> Int64/Double, Int64 -> Double) -> compare the values; otherwise eq/gt/ge false and
-- ne/lt/le true. "not" is two-valued.
CREATE FUNCTION pg_temp.expected(ptype text, lkind text, rel int, num numeric, op text, negated bool)
RETURNS bool LANGUAGE sql AS $$
	SELECT CASE WHEN negated THEN NOT r ELSE r END FROM (SELECT
		CASE
			WHEN ptype IS NULL THEN false
			WHEN ptype = lkind OR (lkind = 'Edm.Int32' AND ptype IN ('Edm.Int64', 'Edm.Double'))
				 OR (lkind = 'Edm.Int64' AND ptype = 'Edm.Double') THEN
				CASE op
					WHEN 'eq' THEN c = 0 WHEN 'ne' THEN c <> 0 WHEN 'gt' THEN c > 0
					WHEN 'ge' THEN c >= 0 WHEN 'lt' THEN c < 0 ELSE c <= 0 END
			ELSE op IN ('ne', 'lt', 'le')
		END AS r
		-- c: the property's value against the literal; numbers by value, others by position
		FROM (SELECT CASE WHEN num IS NOT NULL AND ptype IN ('Edm.Int32', 'Edm.Int64', 'Edm.Double')
						  THEN sign(5 - num)::int ELSE -rel END AS c) x) y
$$;

CREATE FUNCTION pg_temp.results(tbl text) RETURNS TABLE (tbl text, name text, ptype text, lkind text, lit text,
	rel int, op text, negated bool, actual bool, expected bool) LANGUAGE sql AS $$
SELECT tbl, p.name, p.ptype, l.lkind, l.lit, l.rel, o.op, neg.negated,
	   EXISTS (SELECT 1 FROM query_entities(tbl,
			   CASE WHEN neg.negated THEN format('not (P %s %s)', o.op, l.lit) ELSE format('P %s %s', o.op, l.lit) END) q
			   WHERE q.row_key = p.name) AS actual,
	   pg_temp.expected(p.ptype, l.lkind, l.rel, l.num, o.op, neg.negated) AS expected
FROM props p, lits l, ops o, (VALUES (false), (true)) neg(negated)
$$;
CREATE TEMP TABLE results AS SELECT * FROM pg_temp.results('Matrix');
-- the entity index: no sequential scan, no walk of the primary key
SET enable_seqscan = off;
SET enable_indexscan = off;
SELECT query_sql('MatrixIx', 'P lt 5');
INSERT INTO results SELECT * FROM pg_temp.results('MatrixIx');
RESET enable_seqscan;
RESET enable_indexscan;

SELECT tbl, count(*) AS comparisons, count(*) FILTER (WHERE actual = expected) AS as_specified,
	   count(*) FILTER (WHERE actual <> expected) AS wrong
FROM results GROUP BY tbl ORDER BY tbl;
SELECT * FROM results WHERE actual <> expected ORDER BY 1, 2, 4, 5, 7, 8;

-- The matrix for the literal equal to each property (t/f per operator: eq ne gt ge lt le)
SELECT name AS property, lkind AS literal,
	   string_agg(CASE WHEN actual THEN 't' ELSE 'f' END, ' ' ORDER BY array_position(ARRAY['eq','ne','gt','ge','lt','le'], op)) AS "eq ne gt ge lt le"
FROM results WHERE rel = 0 AND NOT negated AND tbl = 'Matrix'
GROUP BY name, lkind ORDER BY name, lkind;

-- Widening is exact at the extremes: Int64 beyond 2^53 against Int64 and Double literals and properties
SELECT insert_entity(t, e::entity) IS NOT NULL FROM unnest(ARRAY['Matrix', 'MatrixIx']) t, unnest(ARRAY[
	'{"PartitionKey":"x","RowKey":"i64big","P":"9007199254740993","P@odata.type":"Edm.Int64"}',
	'{"PartitionKey":"x","RowKey":"dblbig","P":9007199254740992.0}',
	'{"PartitionKey":"x","RowKey":"dbl263","P":9223372036854775808.0}',
	'{"PartitionKey":"x","RowKey":"dblfrac","P":2.5}',
	'{"PartitionKey":"x","RowKey":"nan","P":"NaN","P@odata.type":"Edm.Double"}',
	'{"PartitionKey":"x","RowKey":"neginf","P":"-Infinity","P@odata.type":"Edm.Double"}']) e;
ANALYZE tablestore_data.matrixix;
SET enable_seqscan = off;
SET enable_indexscan = off;
SELECT t, f, string_agg(row_key, ',' ORDER BY row_key) AS matches FROM unnest(ARRAY['Matrix', 'MatrixIx']) t, unnest(ARRAY[
	'P eq 9007199254740993L', 'P eq 9007199254740992L', 'P gt 9007199254740992L', 'P lt 9007199254740993L',
	'P gt 9223372036854775807L', 'P lt 3L', 'P gt 2L', 'P eq 2', 'P gt 2', 'P lt -1000000000',
	'P eq 9007199254740992.0', 'P gt 1e300', 'P lt -1e300', 'P ne 5'
]) f LEFT JOIN LATERAL (SELECT row_key FROM query_entities(t, 'PartitionKey eq ''x'' and (' || f || ')')) q ON true
GROUP BY f, t ORDER BY f, t;
RESET enable_seqscan;
RESET enable_indexscan;

SELECT drop_table('Matrix');
SELECT drop_table('MatrixIx');
