/*
 * sqlapi.h - the gateway's SQL, in one place: the table of prepared statements (one per REST call,
 * each calling one function of the contract in doc/gateway.md) and the call that
 * runs one on a pooled connection and turns a PostgreSQL error into the service's error code.
 */
#ifndef GW_SQLAPI_H
#define GW_SQLAPI_H

#include <libpq-fe.h>
#include <stdbool.h>

typedef enum SqlStmt
{
	SQL_NONE = -1,				/* an operation that runs no statement */
	SQL_CREATE_TABLE,
	SQL_DROP_TABLE,
	SQL_QUERY_TABLES,
	SQL_GET_TABLE,
	SQL_INSERT_ENTITY,
	SQL_WRITE_ENTITY,
	SQL_DELETE_ENTITY,
	SQL_GET_ENTITY,
	SQL_QUERY_ENTITIES,
	SQL_BATCH,
	SQL_GET_ACL,
	SQL_SET_ACL,
	SQL_GET_POLICY,
	SQL_GET_PROPS,
	SQL_SET_PROPS,
	SQL_GET_INDEXING,
	SQL_SET_INDEXING,
	SQL__COUNT
} SqlStmt;

typedef struct SqlError
{
	int			status;			/* HTTP status */
	const char *code;			/* service error code (static string), from the SQLSTATE */
	int			op_index;		/* "operation N: ..." in a batch error, else -1 */
	char		message[512];	/* tablestore's explanation (the message after its code), bounded */
} SqlError;

struct Req;

/*
 * Run a statement for the request's account: the operation's own statement on the node that
 * holds its partition when its table is distributed (route.c), anything else on the account's
 * database. Returns the PGRES_TUPLES_OK result (the caller PQclear()s it) or NULL with *err
 * filled. Retries once on a serialization failure or deadlock (the statement was rolled back),
 * and once on a lost connection for read-only statements.
 */
extern PGresult *sql_call(struct Req *r, SqlStmt st, const char *const *params, SqlError *err);

/* Answer the request with the error. */
extern void sql_error_respond(struct Req *r, const SqlError *err);

/*
 * sql_call for a statement that answers at least one row: the result, or NULL when the request
 * is answered already (the statement's error, or InternalError for no row).
 */
extern PGresult *sql_call_row(struct Req *r, SqlStmt st, const char *const *params);

/* Run a statement for its effect; false: the request is answered with its error. */
extern bool sql_run(struct Req *r, SqlStmt st, const char *const *params);

/* A value of a result as a string in the request's arena; NULL for NULL. */
extern char *sql_field(struct Req *r, const PGresult *res, int row, int col);

/* The statement's SQL text (for tests and --print-sql). */
extern const char *sql_text(SqlStmt st);

#endif
