/*
 * shard_hash.h - the shard a PartitionKey belongs to (shard_hash.c), backend-free: the one copy
 * that the extension (tablestore.shard_of, a distributed table's routing) and tablestore-gateway
 * (its routed mode) both call.
 */
#ifndef SHARD_HASH_H
#define SHARD_HASH_H

#include "ts_core.h"

/* PostgreSQL's seed of hash partitioning (catalog/partition.h; shard.c checks they are equal). */
#define TS_HASH_PARTITION_SEED UINT64CONST(0x7A5B22367996DCFD)

/*
 * The row hash PostgreSQL's hash partitioning computes for a one-column key of type text in a
 * deterministic collation ("C"), whose value is the len bytes at key.
 */
extern uint64 ts_shard_hash(const char *key, size_t len);

/* The shard (0 .. shards - 1) of a key among shards >= 1: the partition of MODULUS shards. */
extern int	ts_shard_of_key(const char *key, size_t len, int shards);

#endif							/* SHARD_HASH_H */
