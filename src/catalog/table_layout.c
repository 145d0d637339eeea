/*
 * table_layout.c - checking a relation against the layout of table_layout.h, cached per
 * relation.
 */
#include "table_layout.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_am.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_index.h"
#include "catalog/pg_type.h"
#include "ts_report.h"
#include "ts_support.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/partcache.h"
#include "utils/syscache.h"

const char *const ts_column_names[Natts_tablestore_table] = {
	"partition_key", "row_key", "timestamp", "etag", "properties"
};

/* ---------- the check ---------- */

static Oid
column_type(int c)
{
	static const Oid fixed[Natts_tablestore_table - 1] = {TEXTOID, TEXTOID, TIMESTAMPTZOID, TEXTOID};

	return c < Natts_tablestore_table - 1 ? fixed[c] : ts_type_oid(TS_TYPE_ENTITY);
}

static const char *
relkind_text(char relkind)
{
	switch (relkind)
	{
		case RELKIND_VIEW:
			return "a view";
		case RELKIND_MATVIEW:
			return "a materialized view";
		case RELKIND_FOREIGN_TABLE:
			return "a foreign table";
		case RELKIND_PARTITIONED_TABLE:
			return "a partitioned table";
		case RELKIND_SEQUENCE:
			return "a sequence";
		default:
			return "not an ordinary table";
	}
}

/* The primary key is a valid, immediate B-tree on (partition_key, row_key), keys in "C" order. */
static const char *
primary_key_problem(Relation rel)
{
	Oid			pk = RelationGetPrimaryKeyIndex(rel);
	Relation	idx;
	Form_pg_index ix;
	const char *problem = NULL;

	if (!OidIsValid(pk))
		return "it has no primary key";
	idx = index_open(pk, AccessShareLock);
	ix = idx->rd_index;
	if (ix->indnkeyatts != 2 || ix->indnatts != 2 ||
		ix->indkey.values[0] != Anum_tablestore_partition_key ||
		ix->indkey.values[1] != Anum_tablestore_row_key || idx->rd_rel->relam != BTREE_AM_OID)
		problem = "its primary key is not (partition_key, row_key)";
	else if (!ix->indimmediate || !ix->indisvalid)
		problem = "its primary key is deferrable or not valid";
	else if (idx->rd_indcollation[0] != C_COLLATION_OID || idx->rd_indcollation[1] != C_COLLATION_OID)
		problem = "its primary key does not order the keys by COLLATE \"C\"";
	index_close(idx, AccessShareLock);
	return problem;
}

/*
 * A distributed table (doc/scale-out.md) is partitioned by hash of partition_key alone; on the
 * coordinator its partitions are foreign tables and it has no primary key (PostgreSQL allows none
 * there), on a node its partitions are tablestore tables under the parent's primary key.
 */
static const char *
partitioning_problem(Relation rel)
{
	PartitionKey key = RelationGetPartitionKey(rel);

	if (key->strategy != PARTITION_STRATEGY_HASH || key->partnatts != 1 ||
		key->partattrs[0] != Anum_tablestore_partition_key)
		return "it is partitioned, but not by hash of partition_key alone";
	if (OidIsValid(RelationGetPrimaryKeyIndex(rel)))
		return primary_key_problem(rel);
	return NULL;
}

static const char *
compute_problem(Relation rel)
{
	TupleDesc	desc = RelationGetDescr(rel);

	bool		partitioned = rel->rd_rel->relkind == RELKIND_PARTITIONED_TABLE;

	if (rel->rd_rel->relkind != RELKIND_RELATION && !partitioned)
		return psprintf("it is %s", relkind_text(rel->rd_rel->relkind));
	if (desc->natts != Natts_tablestore_table)
		return psprintf("it has %d columns; a tablestore table has exactly partition_key, row_key, "
						"timestamp, etag and properties", desc->natts);
	for (int c = 0; c < Natts_tablestore_table; c++)
	{
		Form_pg_attribute a = TupleDescAttr(desc, c);

		if (a->attisdropped || strcmp(NameStr(a->attname), ts_column_names[c]) != 0)
			return psprintf("its column %d is not \"%s\"", c + 1, ts_column_names[c]);
		if (a->atttypid != column_type(c))
			return psprintf("its column \"%s\" is of type %s, not %s", ts_column_names[c],
							format_type_be(a->atttypid), format_type_be(column_type(c)));
		if (!a->attnotnull)
			return psprintf("its column \"%s\" is not NOT NULL", ts_column_names[c]);
		if (c <= TS_COL_RK && a->attcollation != C_COLLATION_OID)
			return psprintf("its column \"%s\" is not COLLATE \"C\"", ts_column_names[c]);
	}
	if (partitioned)
		return partitioning_problem(rel);
	return primary_key_problem(rel);
}

/* Answers per relation: NULL (conforms) or the problem, in CacheMemoryContext. */
typedef struct LayoutEntry
{
	Oid			relid;
	char	   *problem;
} LayoutEntry;

static HTAB *layout_cache = NULL;

static void
forget_layouts(Datum arg, Oid relid)
{
	HASH_SEQ_STATUS seq;
	LayoutEntry *e;

	if (layout_cache == NULL)
		return;
	if (OidIsValid(relid))
	{
		e = hash_search(layout_cache, &relid, HASH_FIND, NULL);
		if (e != NULL)
		{
			if (e->problem)
				pfree(e->problem);
			hash_search(layout_cache, &relid, HASH_REMOVE, NULL);
		}
		return;
	}
	hash_seq_init(&seq, layout_cache);
	while ((e = hash_seq_search(&seq)) != NULL)
	{
		if (e->problem)
			pfree(e->problem);
		hash_search(layout_cache, &e->relid, HASH_REMOVE, NULL);
	}
}

const char *
ts_layout_problem(Relation rel)
{
	Oid			relid = RelationGetRelid(rel);
	LayoutEntry *e;
	const char *problem;
	bool		found;

	if (layout_cache == NULL)
	{
		HASHCTL		ctl = {0};

		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(LayoutEntry);
		ctl.hcxt = CacheMemoryContext;
		layout_cache = hash_create("tablestore table layouts", 64, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
		CacheRegisterRelcacheCallback(forget_layouts, (Datum) 0);
	}
	e = hash_search(layout_cache, &relid, HASH_FIND, NULL);
	if (e != NULL)
		return e->problem;
	/* compute first: a catalog lookup may process invalidations, which edit the cache */
	problem = compute_problem(rel);
	e = hash_search(layout_cache, &relid, HASH_ENTER, &found);
	e->problem = problem ? MemoryContextStrdup(CacheMemoryContext, problem) : NULL;
	return e->problem;
}

void
ts_layout_require(Relation rel)
{
	const char *problem = ts_layout_problem(rel);

	if (problem != NULL)
	{
		TsError		err = {0};

		ts_fail(&err, TSE_TABLE_LAYOUT, "the relation \"%s\" is not a tablestore table",
				RelationGetRelationName(rel));
		ts_fail_detail(&err, "%s.", problem);
		ts_raise(&err);
	}
}
