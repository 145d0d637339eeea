-- test/pgtap/entity_equality.sql - the written order of an entity's properties is presentation
-- (contract §1): many random entities (every EDM type, keys or none, 0 to 40 properties, names
-- sharing prefixes) each written in several random orders are equal to each other by =, the
-- B-tree comparison (0) and both hashes, and unequal to a one-value change of themselves; the
-- operator classes agree: hash equal whenever equal, the B-tree order antisymmetric and the same
-- whatever order either side was written in; DISTINCT, GROUP BY by sort and by hash, and hash
-- and merge joins all see one value per entity. A fixed seed makes a failure reproducible.
BEGIN;
SET search_path = tablestore, public;
SELECT plan(9);
SELECT setseed(0.3217);

CREATE FUNCTION pg_temp.rnd(n int) RETURNS int LANGUAGE sql AS $$ SELECT floor(random() * n)::int $$;
-- one member of the JSON form: a random type and value
CREATE FUNCTION pg_temp.rnd_member(name text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	k int := pg_temp.rnd(7) - 3;
BEGIN
	RETURN CASE pg_temp.rnd(8)
		WHEN 0 THEN format('"%s":%s', name, to_json(repeat(chr(97 + pg_temp.rnd(3)), pg_temp.rnd(4))))
		WHEN 1 THEN format('"%s":%s', name, k)
		WHEN 2 THEN format('"%s":"%s","%s@odata.type":"Edm.Int64"', name, k, name)
		WHEN 3 THEN format('"%s":"%s","%s@odata.type":"Edm.Double"', name, (ARRAY['NaN', '-0', '2.5', k::text])[1 + pg_temp.rnd(4)], name)
		WHEN 4 THEN format('"%s":%s', name, (pg_temp.rnd(2) = 1)::text)
		WHEN 5 THEN format('"%s":"2014-08-22T00:50:4%sZ","%s@odata.type":"Edm.DateTime"', name, 3 + k, name)
		WHEN 6 THEN format('"%s":"00000000-0000-0000-0000-00000000000%s","%s@odata.type":"Edm.Guid"', name, 3 + k, name)
		ELSE format('"%s":"%s","%s@odata.type":"Edm.Binary"', name, translate(encode(decode(lpad(to_hex(3 + k), 2, '0'), 'hex'), 'base64'), E'\n', ''), name)
	END;
END $$;

-- 600 entities as lists of members (distinct names, some keys)
CREATE TEMP TABLE members AS
SELECT i, m, row_number() OVER (PARTITION BY i ORDER BY random()) AS pos
FROM (SELECT i, pg_temp.rnd(41) AS n, pg_temp.rnd(4) AS keys FROM generate_series(1, 600) i) e,
	LATERAL (SELECT pg_temp.rnd_member(name) AS m
			 FROM (SELECT DISTINCT (ARRAY['a', 'ab', 'b', 'Name', 'Names', 'N', '_x', 'z9'])[1 + pg_temp.rnd(8)] || pg_temp.rnd(6) AS name
				   FROM generate_series(1, e.n)) names
			 UNION ALL SELECT '"PartitionKey":"p' || pg_temp.rnd(3) || '"' WHERE e.keys > 0
			 UNION ALL SELECT '"RowKey":"r' || pg_temp.rnd(3) || '"' WHERE e.keys > 1) ms;
-- each written four times, in four random orders
CREATE TEMP TABLE written AS
SELECT i, w, (SELECT ('{' || coalesce(string_agg(m, ',' ORDER BY random()), '') || '}')::entity FROM members m WHERE m.i = e.i) AS e
FROM generate_series(1, 600) e(i), generate_series(1, 4) w;
-- the entity with one member's value changed (its last member in the first order, as an Int32 7)
CREATE TEMP TABLE changed AS
SELECT i, e || format('{"%s":123457}', (SELECT name FROM jsonb_object_keys(e::jsonb) name WHERE name NOT LIKE '%@odata.type' AND name NOT IN ('PartitionKey', 'RowKey') LIMIT 1))::entity AS e
FROM written WHERE w = 1 AND EXISTS (SELECT 1 FROM jsonb_object_keys(e::jsonb) name WHERE name NOT LIKE '%@odata.type' AND name NOT IN ('PartitionKey', 'RowKey'));

SELECT is((SELECT count(*) FROM written a JOIN written b USING (i)
		   WHERE NOT (a.e = b.e AND NOT a.e <> b.e AND entity_cmp(a.e, b.e) = 0 AND a.e <= b.e AND a.e >= b.e)),
		  0::bigint, 'every two orders of an entity are equal by =, <> and the B-tree comparison');
SELECT is((SELECT count(*) FROM written a JOIN written b USING (i)
		   WHERE entity_hash(a.e) <> entity_hash(b.e) OR entity_hash_extended(a.e, 7) <> entity_hash_extended(b.e, 7)),
		  0::bigint, 'and hash equally, with and without a seed');
SELECT is((SELECT count(*) FROM written a JOIN changed c USING (i) WHERE a.e = c.e OR entity_cmp(a.e, c.e) = 0),
		  0::bigint, 'a changed value makes another entity, whatever the order');
SELECT cmp_ok((SELECT count(DISTINCT e::text) FROM written), '>', 1200::bigint, 'the orders differ as text (each keeps its own)');
-- the B-tree order over pairs of different entities: antisymmetric, independent of the orders written
CREATE TEMP TABLE pairs AS
SELECT a.i AS ia, b.i AS ib, a.w AS wa, b.w AS wb, entity_cmp(a.e, b.e) AS c, entity_cmp(b.e, a.e) AS r
FROM written a JOIN written b ON b.i = (a.i * 7) % 600 + 1;
SELECT is((SELECT count(*) FROM pairs WHERE sign(c) <> -sign(r)), 0::bigint, 'the order is antisymmetric');
SELECT is((SELECT count(*) FROM (SELECT ia, ib FROM pairs GROUP BY ia, ib HAVING count(DISTINCT c) > 1) x), 0::bigint,
		  'and the same whatever order each side was written in');
SELECT is((SELECT count(*) FROM pairs a JOIN written x ON x.i = a.ia JOIN written y ON y.i = a.ib
		   WHERE (entity_hash(x.e) <> entity_hash(y.e)) AND a.c = 0), 0::bigint, 'hash equal whenever equal');
-- what PostgreSQL builds on the operator classes: one value per entity (two random entities may be
-- the same: the same members, counted by their sorted text)
CREATE TEMP TABLE counts (how text, n bigint);
INSERT INTO counts SELECT 'expected', count(DISTINCT ms) FROM (SELECT i, string_agg(m, ',' ORDER BY m) AS ms FROM members GROUP BY i
	UNION ALL SELECT i, '' FROM generate_series(1, 600) i WHERE i NOT IN (SELECT i FROM members)) x;
INSERT INTO counts SELECT 'distinct', count(DISTINCT e) FROM written;
SET LOCAL enable_hashagg = off;
INSERT INTO counts SELECT 'group by sort', count(*) FROM (SELECT e FROM written GROUP BY e) g;
SET LOCAL enable_hashagg = on;
SET LOCAL enable_sort = off;
INSERT INTO counts SELECT 'group by hash', count(*) FROM (SELECT e FROM written GROUP BY e) g;
SET LOCAL enable_sort = on;
SELECT is((SELECT string_agg(DISTINCT n::text, ',') FROM counts), (SELECT n::text FROM counts WHERE how = 'expected'),
		  'DISTINCT, GROUP BY by sorting and by hashing: one group per entity');
SET LOCAL enable_nestloop = off;
SET LOCAL enable_mergejoin = off;
INSERT INTO counts SELECT 'hash join', count(*) FROM written a JOIN written b ON a.e = b.e;
SET LOCAL enable_mergejoin = on;
SET LOCAL enable_hashjoin = off;
INSERT INTO counts SELECT 'merge join', count(*) FROM written a JOIN written b ON a.e = b.e;
SELECT ok((SELECT n FROM counts WHERE how = 'hash join') = (SELECT n FROM counts WHERE how = 'merge join') AND
		  (SELECT n FROM counts WHERE how = 'hash join') >= 600 * 16, 'a hash join and a merge join find the same pairs, all four orders of each');

SELECT * FROM finish();
ROLLBACK;
