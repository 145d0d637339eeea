/*
 * table_route.c - a distributed table's partition for one PartitionKey on this node: narrowed to a
 * local shard the node serves (its fence checked), or the node that holds it; and whether a node's
 * part of a table is only part of it.
 */
#include "table_route.h"

#include "access/relation.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "foreign/foreign.h"
#include "miscadmin.h"
#include "partitioning/partbounds.h"
#include "partitioning/partdesc.h"
#include "shard_fence.h"
#include "storage/lmgr.h"
#include "ts_report.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/partcache.h"
#include "utils/rel.h"
#include "utils/rls.h"

bool
ts_table_partial(const TsTable *t)
{
	Relation	rel;
	PartitionDesc pd;
	bool		partial = false;

	if (!t->partitioned)
		return false;
	rel = relation_open(t->relid, NoLock);
	pd = RelationGetPartitionDesc(rel, false);
	if (pd->boundinfo == NULL)
		partial = true;
	else
		for (int i = 0; i < get_hash_partition_greatest_modulus(pd->boundinfo); i++)
			if (pd->boundinfo->indexes[i] < 0)
				partial = true;
	if (!partial)
	{
		/* a fenced shard table (a move's copy, or one it moved away) is not the node's either */
		Oid		   *local = palloc(sizeof(Oid) * Max(pd->nparts, 1));
		int			n = 0;

		for (int i = 0; i < pd->nparts; i++)
			if (get_rel_relkind(pd->oids[i]) != RELKIND_FOREIGN_TABLE)
			{
				LockRelationOid(pd->oids[i], AccessShareLock);
				local[n++] = pd->oids[i];
			}
		partial = ts_shard_fence_any(t->relid, local, n);
		pfree(local);
	}
	relation_close(rel, NoLock);
	return partial;
}

/* The caller's privileges of interest on a relation. */
static AclMode
dml_privileges(Oid relid)
{
	return pg_class_aclmask(relid, GetUserId(), ACL_SELECT | ACL_INSERT | ACL_UPDATE | ACL_DELETE, ACLMASK_ALL);
}

Oid
ts_table_route(TsTable *t, text *pk, AclMode needed)
{
	Relation	rel;
	PartitionDesc pd;
	int			shard,
				index;
	Oid			leaf;

	if (!t->partitioned)
		return InvalidOid;
	/* every privilege needed (pg_class_aclcheck would accept any one of them) */
	if (pg_class_aclmask(t->relid, GetUserId(), needed, ACLMASK_ALL) != needed)
		aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_TABLE, get_rel_name(t->relid));
	if (check_enable_rls(t->relid, InvalidOid, true) == RLS_ENABLED)
		ts_raisef(TSE_DISTRIBUTION, "the table \"%s\" is partitioned and has row-level security, which a "
				  "distributed table does not support", t->key);
	rel = relation_open(t->relid, NoLock);	/* locked by ts_table_resolve */
	pd = RelationGetPartitionDesc(rel, false);
	if (pd->boundinfo == NULL)
		index = -1;
	else
	{
		shard = ts_shard_of(pk, get_hash_partition_greatest_modulus(pd->boundinfo));
		index = pd->boundinfo->indexes[shard];
	}
	if (index < 0)
	{
		char		ex[TS_EXCERPT_BUF];

		relation_close(rel, NoLock);
		ts_raisef(TSE_SHARD_NOT_HERE, "no partition of the table \"%s\" here takes the PartitionKey \"%s\"",
				  t->key, ts_excerpt(ex, sizeof(ex), VARDATA_ANY(pk), VARSIZE_ANY_EXHDR(pk)));
	}
	leaf = pd->oids[index];
	relation_close(rel, NoLock);

	if (get_rel_relkind(leaf) == RELKIND_FOREIGN_TABLE)
		return GetForeignTable(leaf)->serverid;

	/*
	 * A local partition: worked on directly when the caller's privileges there are those on the
	 * table and no row-level security applies (else SQL on the table, which prunes to it). A
	 * shard that a move is copying here, or has switched away from, refuses the call (its lock
	 * first, then the fence: shard_fence.h).
	 */
	LockRelationOid(leaf, AccessShareLock);
	ts_shard_fence_check(leaf, t->relid, t->key);
	if (dml_privileges(leaf) != dml_privileges(t->relid) ||
		check_enable_rls(leaf, InvalidOid, true) == RLS_ENABLED)
		return InvalidOid;
	rel = relation_open(leaf, NoLock);
	ts_layout_require(rel);
	relation_close(rel, NoLock);
	t->relid = leaf;
	t->partitioned = false;
	snprintf(t->qualified, sizeof(t->qualified), "%s",
			 quote_qualified_identifier(get_namespace_name(get_rel_namespace(leaf)), get_rel_name(leaf)));
	return InvalidOid;
}
