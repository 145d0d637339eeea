/*
 * table_route.h - a distributed table's partition for one PartitionKey (contract §9), and a node's
 * partial part of a table: the scale-out layer's view of a resolved table (ts_table.h).
 */
#ifndef TABLE_ROUTE_H
#define TABLE_ROUTE_H

#include "ts_table.h"

/*
 * A partitioned table's partition for one PartitionKey (contract §9). A local partition becomes the
 * table's relation (t->relid, t->qualified), so the call then runs as on any table, on the direct
 * path where it applies; InvalidOid is returned. A foreign partition (postgres_fdw) returns its
 * server: the caller forwards the whole call there (remote_call.h). needed: the privileges the
 * call needs on the table as the caller named it, checked here since the node checks only those
 * of the user mapping's role. Raises TSX03 when no partition takes the key, or when the local
 * partition is fenced (a move is copying it here, or has switched it away: shard_fence.h) and the
 * call was not forwarded by a coordinator. Does nothing (returns InvalidOid) for a table that is
 * not partitioned.
 */
extern Oid	ts_table_route(TsTable *t, text *pk, AclMode needed);

/*
 * A node's part of a distributed table: partitioned, and some shards are not here (or are fenced).
 * A query across partitions on it would see only some of the table (it belongs on the coordinator).
 */
extern bool ts_table_partial(const TsTable *t);

/* The shard (0 .. shards - 1) PostgreSQL's hash partitioning puts a PartitionKey in. */
extern int	ts_shard_of(text *pk, int shards);

#endif							/* TABLE_ROUTE_H */
