-- shard_of: the shard of a PartitionKey agrees with PostgreSQL's hash partitioning on
-- partition_key text COLLATE "C" (where a row lands, and satisfies_hash_partition) for 100 000
-- keys of every shape (ASCII, empty, long, non-ASCII, control characters), at several moduli.
SET search_path = tablestore, public;

\set ECHO none
\i test/regress/helpers.sql
\set ECHO all

CREATE TABLE regress_shards (partition_key text COLLATE "C" NOT NULL, n int) PARTITION BY HASH (partition_key);
DO $$ BEGIN FOR i IN 0..31 LOOP
	EXECUTE format('CREATE TABLE regress_shards_%s PARTITION OF regress_shards FOR VALUES WITH (MODULUS 32, REMAINDER %s)', i, i);
END LOOP; END $$;
INSERT INTO regress_shards
SELECT CASE i % 5
	WHEN 0 THEN md5(i::text)
	WHEN 1 THEN left(md5(i::text), i % 7)
	WHEN 2 THEN repeat(md5(i::text), 1 + i % 30)
	WHEN 3 THEN md5(i::text) || chr(160 + i % 50000)
	ELSE 'p' || i || chr(1 + i % 31) END, i
FROM generate_series(1, 100000) i;

-- where each row landed is its shard
SELECT count(*) AS rows, count(*) FILTER (WHERE shard_of(partition_key, 32) <> split_part(tableoid::regclass::text, '_', 3)::int) AS misplaced
FROM regress_shards;
-- satisfies_hash_partition agrees at other moduli too
SELECT m, count(*) FILTER (WHERE NOT satisfies_hash_partition('regress_shards'::regclass, m, shard_of(partition_key, m), partition_key)) AS disagree
FROM regress_shards, unnest(ARRAY[1, 2, 7, 32, 1000]) m GROUP BY m ORDER BY m;
-- every shard gets keys, and the function is what it says: immutable, strict
SELECT count(DISTINCT shard_of(partition_key, 32)) AS shards_used FROM regress_shards;
SELECT shard_of(NULL, 32) IS NULL AS strict, shard_of('', 1) AS only_shard;
SELECT pg_temp.try($$SELECT tablestore.shard_of('x', 0)$$);
SELECT pg_temp.try($$SELECT tablestore.shard_of('x', -3)$$);

-- the 10 000 keys test/gateway/unit/route_test.c computes the same digests of, with the gateway's
-- build of the core (core/protocol/shard_hash.c): the empty key, ASCII, 2- to 4-byte UTF-8, control
-- characters, keys up to 4 095 bytes. Both sides hold these digests: they agree key by key.
CREATE TEMP TABLE regress_keys AS
SELECT i, CASE
	WHEN i = 0 THEN ''
	WHEN i % 5 = 0 THEN 'k' || i
	WHEN i % 5 = 1 THEN repeat(chr(233), i % 300)
	WHEN i % 5 = 2 THEN chr(19968 + i % 20000) || chr(128512 + i % 80) || i
	WHEN i % 5 = 3 THEN repeat(chr(97 + i % 26), i % 4096)
	ELSE 'p' || i || chr(1 + i % 31) END AS k
FROM generate_series(0, 9999) i;
SELECT m, count(*) FILTER (WHERE NOT satisfies_hash_partition('regress_shards'::regclass, m, shard_of(k, m), k)) AS disagree,
	sum((i + 1)::bigint * shard_of(k, m)) AS digest
FROM regress_keys, unnest(ARRAY[1, 2, 7, 32, 1000, 1024]) m GROUP BY m ORDER BY m;
DROP TABLE regress_shards;
