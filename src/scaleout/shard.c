/*
 * shard.c - scale-out by PartitionKey hash (contract §9): tablestore.shard_of, the shard that
 * PostgreSQL's hash partitioning on a table's partition_key (text COLLATE "C") puts a key in, so
 * that a client or the gateway can send a one-partition operation straight to the node that owns
 * it. The computation is core/protocol/shard_hash.c's, which the gateway calls too; its seed is checked here
 * against PostgreSQL's own, and test/sql/shard_of.sql checks the result against hash partitioning.
 */
#include "postgres.h"

#include "catalog/partition.h"
#include "fmgr.h"
#include "shard_hash.h"
#include "ts_report.h"
#include "table_route.h"

StaticAssertDecl(TS_HASH_PARTITION_SEED == HASH_PARTITION_SEED, "the core's partitioning seed is PostgreSQL's");

int
ts_shard_of(text *pk, int shards)
{
	return ts_shard_of_key(VARDATA_ANY(pk), VARSIZE_ANY_EXHDR(pk), shards);
}

/* tablestore.shard_of(partition_key text, shard_count int) -> int: 0 .. shard_count - 1 */
PG_FUNCTION_INFO_V1(tablestore_shard_of);
Datum
tablestore_shard_of(PG_FUNCTION_ARGS)
{
	int32		shards = PG_GETARG_INT32(1);

	if (shards < 1)
		ts_raisef(TSE_INVALID_INPUT, "shard_count must be at least 1, not %d", shards);
	PG_RETURN_INT32(ts_shard_of(PG_GETARG_TEXT_PP(0), shards));
}
