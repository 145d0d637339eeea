/*
 * shard.c - scale-out by PartitionKey hash (contract §9): tablestore.shard_of, the shard that
 * PostgreSQL's hash partitioning on a table's partition_key (text COLLATE "C") puts a key in, so
 * that a client or the gateway can send a one-partition operation straight to the node that owns
 * it. It computes what the partitioning computes (partbounds.c): the "C" collation's extended text
 * hash with the partitioning seed, combined into a row hash, modulo the shard count.
 */
#include "postgres.h"

#include "catalog/partition.h"
#include "catalog/pg_collation.h"
#include "common/hashfn.h"
#include "fmgr.h"
#include "ts_report.h"
#include "ts_table.h"
#include "utils/fmgrprotos.h"

int
ts_shard_of(text *pk, int shards)
{
	uint64		hash = DatumGetUInt64(DirectFunctionCall2Coll(hashtextextended, C_COLLATION_OID, PointerGetDatum(pk),
															  UInt64GetDatum(HASH_PARTITION_SEED)));

	return (int) (hash_combine64(0, hash) % (uint64) shards);
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
