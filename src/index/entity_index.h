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

/*
 * A name for a new entity index of the relation relname in the schema nsp: "<relname>_entities"
 * or "<relname>_entities_<generation>", the first that no relation of the schema has (a table
 * created under one of these names blocks no build). In a transaction.
 */
extern const char *ts_index_free_name(Oid nsp, const char *relname);

/* How many generations of names ts_index_free_name tries before it gives up. */
#define TS_INDEX_MAX_GENERATIONS 1000

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
	Oid			heap;			/* the relation it indexes */
	Oid			part_of;		/* the partitioned index it is a part of (InvalidOid: none) */
} TsEntityIndex;

/* A table's entity indexes against its registered policy. */
typedef struct TsIndexState
{
	char	   *key;
	char	   *relname;
	char	   *schema;
	bool		partitioned;
	Oid			tablespace;		/* pg_class.reltablespace (0: the database's) */
	Oid			owner;
	IndexPolicy policy;
	int			nindexes;
	TsEntityIndex *indexes;
	int			nparts;			/* a partitioned table: the entity indexes of its partitions */
	TsEntityIndex *parts;

	/*
	 * Exactly one valid matching index (none for mode none), no other; for a partitioned table,
	 * every entity index of its partitions a part of that one.
	 */
	bool		applied;
} TsIndexState;

/* The entity indexes of a relation (matched against want, which may be NULL). In SPI. */
extern int	ts_index_list(Oid relid, const IndexPolicy *want, TsEntityIndex **out);

/* The entity indexes of the partitions of a partitioned table (matched against want). In SPI. */
extern int	ts_index_partition_list(Oid relid, const IndexPolicy *want, TsEntityIndex **out);

/*
 * The index of the policy among the table's: valid and matching, or, for a partitioned table, a
 * matching partitioned index being assembled. NULL when there is none.
 */
extern const TsEntityIndex *ts_index_target(const TsIndexState *st);

/* Read the state of a table (relid) in SPI. */
extern void ts_index_state_read(Oid relid, TsIndexState *st);

#endif							/* ENTITY_INDEX_H */
