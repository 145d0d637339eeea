/*
 * route_key.h - the PartitionKey a call names, for sending it to the node that holds the partition
 * (route_key.c), backend-free: tablestore-gateway's routed mode calls it, the fuzz target
 * fuzz_route_key checks it against the entity parser and the filter translator.
 *
 * A key comes back as its bytes (UTF-8, without NUL), pointing into the input or into memory from
 * palloc (a decoded escape, an undoubled quote): the caller copies it before that memory goes.
 */
#ifndef ROUTE_KEY_H
#define ROUTE_KEY_H

#include "ts_core.h"

/*
 * The PartitionKey of an entity's JSON text: the value of its one top-level member named
 * "PartitionKey" (the name and the value decoded as the entity parser decodes them). False when
 * the text is no JSON object, or the member is absent, null, not a string, given twice or holds
 * U+0000: the extension refuses such an entity, or it names no partition.
 */
extern bool route_key_of_entity(const char *json, size_t len, const char **key, uint32 *key_len);

/*
 * The one partition a $filter names, exactly as the extension decides a query on a distributed
 * table is one partition's (odata_one_partition over the parsed filter): false for a filter that
 * does not parse, spans partitions ("PartitionKey eq 'a' or PartitionKey eq 'b'", a PartitionKey
 * range) or has a conjunct other than a key bound.
 */
extern bool route_key_of_filter(const char *filter, size_t len, const char **key, uint32 *key_len);

#endif							/* ROUTE_KEY_H */
