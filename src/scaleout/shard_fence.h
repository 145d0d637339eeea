/*
 * shard_fence.h - a node's shard fences (doc/scale-out.md, "Moving a shard"): a shard table that a
 * move is filling, or that a move has switched away from, is listed in
 * tablestore_internal.shard_fences and refuses direct calls (TSX03), so that a client routing by an
 * old shard map never writes to or reads from a copy the coordinator's map does not name. Calls a
 * coordinator forwards are not fenced: the coordinator routes them by its own map, under its lock
 * (as the role that owns the node's table: no other role can pass a fence). Plain SQL meets the
 * fence through the triggers and row-level security fence_shard gives a fenced table
 * (tablestore.shard_fence, tablestore.shard_fence_read: shard_fence.c).
 */
#ifndef SHARD_FENCE_H
#define SHARD_FENCE_H

#include "postgres.h"

extern void ts_shard_fence_init(void);

/*
 * Raise TSX03 when the shard table (a local partition of table, locked by the caller) is fenced
 * and the call was not forwarded by a coordinator as a role with the privileges of the table's
 * owner (the coordinator's user mapping's role made it). The fence is read in a snapshot taken
 * now, after the caller's lock on the shard table: a move's switch locks that table before it
 * fences it, so a call either finishes (and commits) before the switch or sees the fence.
 */
extern void ts_shard_fence_check(Oid shard_table, Oid table, const char *key);

/* Whether any of these local partitions of table is fenced (a query across partitions would miss it). */
extern bool ts_shard_fence_any(Oid table, const Oid *shard_tables, int n);

#endif							/* SHARD_FENCE_H */
