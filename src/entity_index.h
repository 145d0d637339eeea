/*
 * entity_index.h - a table's entity index and its indexing policy (doc/sql-reference.md,
 * "Indexing"): the policy as registered (tablestore.tables.indexing_policy, cached per relation
 * for the $filter translator), the index's DDL, and what a table's indexes are now. The entity
 * index is a GIN index on the properties column with the operator class
 * tablestore.entity_gin_ops, whose options carry the policy (entity_gin.c); a table has at most
 * one valid such index once its policy is applied (index_worker.c applies a change online).
 */
#ifndef ENTITY_INDEX_H
#define ENTITY_INDEX_H

#include "postgres.h"

#include "index_policy.h"
#include "lib/stringinfo.h"

/*
 * The registered policy of a table (its relation and key), NULL when it indexes nothing (mode
 * none, or no registry row): cached per relation until its relcache entry is invalidated, which
 * set_indexing_policy does. Connects to SPI itself on a miss.
 */
extern const IndexPolicy *ts_index_policy_cached(Oid relid, const char *key);

/* A policy's JSON text parsed (index_policy_parse); raises TSI01 InvalidInput when it is not one. */
extern void ts_index_policy_parse(const char *json, size_t len, IndexPolicy *p);

/* The registered policy of a table key (the default when the table has no registry row yet). In SPI. */
extern bool ts_index_policy_read(const char *key, IndexPolicy *p);

/* The registered policy of a table key as JSON text, in its normal form. In SPI. */
extern char *ts_index_policy_json(const char *key);

/* Record a table's policy in its registry row (written as the registry's owner). In SPI. */
extern void ts_index_policy_write(const char *key, const IndexPolicy *p);

/* Is the index an entity index (GIN on the properties column)? Writes through it fail only as the table would. */
extern bool ts_index_is_entity_index(Oid index);

/* ' USING gin (properties tablestore.entity_gin_ops (...)) WITH (...)': the index a policy asks for. */
extern void ts_index_append_definition(StringInfo sql, const IndexPolicy *p);

/* The name of the entity index of a relation named relname: two names, alternating on rebuilds. */
extern const char *ts_index_name(const char *relname, bool second);

/*
 * The entity index of a table just created (empty, not yet visible to others): built at once as
 * its registered policy asks, replacing any it has. In SPI.
 */
extern void ts_index_build_new(const char *key);

/* One of a table's entity indexes. */
typedef struct TsEntityIndex
{
	Oid			oid;
	char	   *schema;
	char	   *name;
	bool		valid;
	bool		partitioned;	/* a partitioned table's index (its partitions' indexes are its parts) */
	bool		matches;		/* its options are the registered policy's */
} TsEntityIndex;

/* A table's entity indexes against its registered policy. */
typedef struct TsIndexState
{
	char	   *key;
	char	   *relname;
	char	   *schema;
	bool		partitioned;
	IndexPolicy policy;
	int			nindexes;
	TsEntityIndex *indexes;
	bool		applied;		/* exactly one valid matching index (none for mode none), no other */
} TsIndexState;

/* The entity indexes of a relation (matched against want, which may be NULL). In SPI. */
extern int	ts_index_list(Oid relid, const IndexPolicy *want, TsEntityIndex **out);

/* Read the state of a table (relid) in SPI. */
extern void ts_index_state_read(Oid relid, TsIndexState *st);

#endif							/* ENTITY_INDEX_H */
