/*
 * stamp_import.c - tablestore.import_timestamps(tbl): the owner's import keeps the source's
 * Timestamps (stamp_import.h).
 */
#include "stamp_import.h"

#include "catalog/partition.h"
#include "etag.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "storage/proc.h"
#include "ts_report.h"
#include "ts_table.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

/* The table the current transaction imports into (valid while lxid is the transaction's). */
static Oid	import_relid = InvalidOid;
static LocalTransactionId import_lxid = InvalidLocalTransactionId;

bool
stamp_import_kept(Relation rel, Datum etag, bool etag_null, int64 *ticks)
{
	Oid			relid = RelationGetRelid(rel);
	text	   *t;

	if (etag_null || !OidIsValid(import_relid) || import_lxid != MyProc->lxid)
		return false;
	if (relid != import_relid &&
		!(rel->rd_rel->relispartition && get_partition_parent(relid, true) == import_relid))
		return false;
	/*
	 * The owner's, at the insert too: a SECURITY DEFINER function of the owner's that called
	 * import_timestamps, or a SET ROLE after it, must not leave the rest of the transaction's
	 * inserts by another role keeping the Timestamps they give (they are stamped as always).
	 */
	if (!pg_class_ownercheck(import_relid, GetUserId()))
		return false;
	t = DatumGetTextPP(etag);
	if (etag_text_parse(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t), ticks) != ETAG_TEXT_SERVICE)
		ts_raisef(TSE_INVALID_ETAG, "an imported row's etag is not an ETag of the service's form W/\"datetime'...'\"");
	return true;
}

/*
 * tablestore.import_timestamps(tbl text) -> void: for the rest of the transaction, rows inserted
 * into tbl with an etag keep its Timestamp (updates are stamped as always). The table's owner
 * only, when it is called and at each insert (stamp_import_kept): a kept Timestamp can be earlier
 * than the version it replaces, which only the one who answers for the table's data may decide.
 */
PG_FUNCTION_INFO_V1(tablestore_import_timestamps);
Datum
tablestore_import_timestamps(PG_FUNCTION_ARGS)
{
	TsTable		t;

	ts_table_resolve(PG_GETARG_TEXT_PP(0), &t);
	if (!pg_class_ownercheck(t.relid, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE, t.key);
	import_relid = t.relid;
	import_lxid = MyProc->lxid;
	PG_RETURN_VOID();
}
