/*
 * shard_hash.c - the shard of a PartitionKey, as PostgreSQL's hash partitioning on a table's
 * partition_key (text COLLATE "C") places it (partbounds.c's compute_partition_hash_value): the
 * key's extended hash with the partitioning seed (hashtextextended, which for a deterministic
 * collation is hash_bytes_extended over the bytes), combined into a row hash starting from 0,
 * modulo the shard count. hash_bytes_extended is libpgcommon's, in the server and the frontend
 * alike. test/sql/shard_of.sql checks the result against where PostgreSQL puts rows and against
 * satisfies_hash_partition; the gateway's unit tests check the frontend build against the same
 * 10 000 keys. Backend-free.
 */
#include "shard_hash.h"

#include "common/hashfn.h"

uint64
ts_shard_hash(const char *key, size_t len)
{
	uint64		h = hash_bytes_extended((const unsigned char *) key, (int) len, TS_HASH_PARTITION_SEED);

	return hash_combine64(0, h);
}

int
ts_shard_of_key(const char *key, size_t len, int shards)
{
	Assert(shards >= 1);
	return (int) (ts_shard_hash(key, len) % (uint64) shards);
}
