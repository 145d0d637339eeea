/*
 * distribute.h - one table over several PostgreSQL nodes by PartitionKey hash (contract §9,
 * doc/scale-out.md): what create_table and drop_table do for distributed tables.
 */
#ifndef DISTRIBUTE_H
#define DISTRIBUTE_H

#include "postgres.h"

#include "nodes/pg_list.h"

/* The schema of shard tables, on the coordinator (foreign tables) and on the nodes (tables). */
#define TS_SHARD_SCHEMA "tablestore_shards"

extern void ts_distribute_init(void);

/* After create_table: distribute the new table when tablestore.distribute_new_tables names servers. */
extern void ts_distribute_new_table(const char *name);

/*
 * Before drop_table drops tablestore_data.<key> (locked, inside SPI): when it is distributed, its
 * parts on the nodes are dropped too (in the nodes' remote transactions).
 */
extern void ts_drop_table_shards(const char *key, const char *name);

/* The distinct servers of a coordinator's distributed table, in partition order (NIL for others). */
extern List *ts_table_servers(Oid relid);

#endif							/* DISTRIBUTE_H */
