/*
 * node_conn.h - connections of tablestore's own to the nodes of distributed tables (node_conn.c):
 * outside the local transaction, every wait bounded on this side and interruptible, never
 * postgres_fdw's connections (doc/scale-out.md, "Moving a shard").
 */
#ifndef NODE_CONN_H
#define NODE_CONN_H

#include "postgres.h"

#include "datatype/timestamp.h"

extern void ts_node_conn_init(void);

/* A libpq connection string for the server and the caller's user mapping (libpq's options only). */
extern char *ts_server_conninfo(Oid server);

/*
 * Run a query string on the server on a connection of its own, outside this transaction (each
 * statement commits there at once, or the string's statements together as one implicit
 * transaction); the first column of its last result's first row, or NULL. timeout_ms > 0: the
 * node's statement_timeout, and a second more here, after which the connection is closed and a
 * connection failure (08006) raised. Interruptible.
 */
extern char *ts_node_command(Oid server, const char *sql, int timeout_ms);

/*
 * Run a query (its first column a boolean) on the server on a connection of its own every 10 ms
 * until it answers true or timeout_ms pass; whether it answered true. Bounded and interruptible.
 */
extern bool ts_node_wait(Oid server, const char *sql, int timeout_ms);

/*
 * Every connection and statement of this session's own connections ends by this time (0: no
 * such bound), whatever its own deadline: a move sets its time limit (and a little more).
 */
extern void ts_node_set_deadline(TimestampTz deadline);

/*
 * Run a query string on the move's connection to the server (made at its first use, kept for the
 * session until ts_move_close): the first column of its last result's first row, or NULL. No
 * answer within timeout_ms closes the connection and raises a connection failure (08006). A
 * transaction begun there must end there before the local transaction commits (else the commit
 * fails); an abort, of the transaction or a subtransaction, rolls it back.
 */
extern char *ts_move_exec(Oid server, const char *sql, int timeout_ms);

/* Close the move's connection to the server, if any (its leases end with it). */
extern void ts_move_close(Oid server);

#endif							/* NODE_CONN_H */
