/*
 * route.h - one-partition calls sent straight to the node that holds the partition of a
 * distributed table (doc/scale-out.md), when the gateway is given the nodes (--node NAME=DSN).
 */
#ifndef GW_ROUTE_H
#define GW_ROUTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sqlapi.h"

struct Req;
struct Pool;

/*
 * The pool of the node that holds the partition the request's operation names (where its
 * PartitionKey is: ops.h's table), or NULL: the account's own database (the coordinator) runs it.
 * While the coordinator does not answer, the table's last shard map routes (route.c).
 */
extern struct Pool *route_pool(struct Req *r);

/*
 * The PartitionKey of an entity's JSON text, or the one partition a $filter names, in the
 * request's arena; NULL when there is none (core/protocol/route_key.h says when).
 */
extern char *route_body_partition_key(struct Req *r, const char *json, size_t len);
extern char *route_filter_partition_key(struct Req *r, const char *filter);

/*
 * The node answered TSX03 (message: its primary message). When it refuses the request's own shard
 * (fenced there by a move, or not there), the coordinator serves that shard until the map is read
 * again, at most ROUTE_DETOUR seconds later; any other TSX03 changes nothing.
 */
extern void route_detour(struct Req *r, const char *message);

#endif
