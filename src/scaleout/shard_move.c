/*
 * shard_move.c - what tablestore.move_shard (tablestore.sql, doc/scale-out.md) needs beyond
 * distribute.c's placement functions: waiting on a node without holding a lock here
 * (tablestore_internal.node_wait), the move's own connections to its nodes, for its leases and its
 * switch (move_execute, move_disconnect), the bound of every wait on a node (node_deadline), and a
 * node's WAL position flushed, which the move waits for its subscriber to have applied
 * (tablestore_internal.flushed_wal_lsn).
 */
#include "postgres.h"

#include "access/xlog.h"
#include "access/xlog_internal.h"
#include "fmgr.h"
#include "foreign/foreign.h"
#include "node_conn.h"
#include "utils/builtins.h"
#include "utils/pg_lsn.h"
#include "utils/timestamp.h"

/* tablestore_internal.node_wait(server name, sql text, timeout_ms int) -> bool */
PG_FUNCTION_INFO_V1(tablestore_node_wait);
Datum
tablestore_node_wait(PG_FUNCTION_ARGS)
{
	Oid			server = GetForeignServerByName(NameStr(*PG_GETARG_NAME(0)), false)->serverid;

	PG_RETURN_BOOL(ts_node_wait(server, text_to_cstring(PG_GETARG_TEXT_PP(1)), Max(PG_GETARG_INT32(2), 0)));
}

/* tablestore_internal.move_execute(server name, sql text, timeout_ms int) -> text (node_conn.h: ts_move_exec) */
PG_FUNCTION_INFO_V1(tablestore_move_execute);
Datum
tablestore_move_execute(PG_FUNCTION_ARGS)
{
	Oid			server = GetForeignServerByName(NameStr(*PG_GETARG_NAME(0)), false)->serverid;
	char	   *out = ts_move_exec(server, text_to_cstring(PG_GETARG_TEXT_PP(1)), PG_GETARG_INT32(2));

	if (out == NULL)
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text(out));
}

/* tablestore_internal.move_disconnect(server name) -> void: the move's connection closed (its leases end) */
PG_FUNCTION_INFO_V1(tablestore_move_disconnect);
Datum
tablestore_move_disconnect(PG_FUNCTION_ARGS)
{
	ForeignServer *srv = GetForeignServerByName(NameStr(*PG_GETARG_NAME(0)), true);

	if (srv != NULL)
		ts_move_close(srv->serverid);
	PG_RETURN_VOID();
}

/* tablestore_internal.node_deadline(deadline timestamptz) -> void: NULL for none (node_conn.h) */
PG_FUNCTION_INFO_V1(tablestore_node_deadline);
Datum
tablestore_node_deadline(PG_FUNCTION_ARGS)
{
	ts_node_set_deadline(PG_ARGISNULL(0) ? 0 : PG_GETARG_TIMESTAMPTZ(0));
	PG_RETURN_VOID();
}

/*
 * tablestore_internal.flushed_wal_lsn() -> pg_lsn: the WAL insert position, flushed to it. Every
 * transaction that committed before the call ends before this position, and a walsender can send
 * up to it (it sends only flushed WAL, and an asynchronous commit may not be flushed yet).
 *
 * On a page (or segment) that no record has reached yet, the insert position is past the page's
 * header, which is written only with the first record: XLogFlush cannot flush that far ("xlog
 * flush request ... is not satisfied"), nor would a subscriber ever report it applied. All the WAL
 * there is then ends at the page's start, which is the position.
 */
PG_FUNCTION_INFO_V1(tablestore_flushed_wal_lsn);
Datum
tablestore_flushed_wal_lsn(PG_FUNCTION_ARGS)
{
	XLogRecPtr	lsn;

	if (RecoveryInProgress())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("this node is in recovery: a shard cannot move from it")));
	lsn = GetXLogInsertRecPtr();
	if (lsn % XLOG_BLCKSZ == (XLogSegmentOffset(lsn, wal_segment_size) < XLOG_BLCKSZ ? SizeOfXLogLongPHD : SizeOfXLogShortPHD))
		lsn -= lsn % XLOG_BLCKSZ;
	XLogFlush(lsn);
	PG_RETURN_LSN(lsn);
}
