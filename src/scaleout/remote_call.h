/*
 * remote_call.h - running tablestore calls on the node that holds a distributed table's partition
 * (doc/scale-out.md), over the connection postgres_fdw keeps for the server and the user: the
 * same remote transaction as the foreign partitions' scans, committed or rolled back with the
 * local one, savepoints and cancels included.
 */
#ifndef REMOTE_CALL_H
#define REMOTE_CALL_H

#include "postgres.h"

#include "fmgr.h"
#include "libpq-fe.h"
#include "table_route.h"

extern bool ts_allow_multi_node_writes;	/* tablestore.allow_multi_node_writes */

extern void ts_remote_call_init(void);

/*
 * Run the SQL function being called (fcinfo), with the same arguments, on the server and return
 * its result as if it had run here: the node runs the same function on its part of the table, so
 * the answer and any error (SQLSTATE, message, detail, hint) are those of one node. writes: the
 * call may write, so the transaction's one-writing-node rule applies.
 */
extern Datum ts_forward_call(FunctionCallInfo fcinfo, Oid server, bool writes);

/* In a SQL function: forward the call when the table's partition for pk is on another node. */
#define TS_FORWARD_IF_REMOTE(fcinfo, t, pk, needed, writes) \
	do { \
		Oid			server_ = ts_table_route((t), (pk), (needed)); \
		if (OidIsValid(server_)) \
			return ts_forward_call((fcinfo), server_, (writes)); \
	} while (0)

/*
 * Run one statement with text parameters on the server (NULL params are SQL NULLs). Returns the
 * first column of the first row (palloc'd) or NULL when there is none or it is NULL.
 */
extern char *ts_remote_query(Oid server, const char *sql, int nparams, const char *const *params, bool writes);

/*
 * Raise a node's error as the node raised it (SQLSTATE, message, detail, hint), or the
 * connection's when res is NULL (a connection failure); res is freed.
 */
extern void ts_raise_node_error(PGresult *res, PGconn *conn, Oid server) pg_attribute_noreturn();

/* Note that this transaction writes on the server (raises TSX04 when it already wrote elsewhere). */
extern void ts_note_remote_write(Oid server);

#endif							/* REMOTE_CALL_H */
