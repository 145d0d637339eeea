/*
 * pool.h - a bounded pool of libpq connections per account.
 *
 * A request borrows one connection for one statement. Waiting for a free connection is bounded in
 * count (queue_max) and time (queue_timeout_ms); past either the request is answered 503
 * ServerBusy. A connection that is lost is dropped and re-made on a later borrow, with exponential
 * back-off (100 ms doubling to POOL_BACKOFF_MAX_MS) while the database stays unreachable, so a
 * database (or a node) that comes back is served again within a second. Every new connection is
 * checked (account_db.c): the extension at the gateway's version, the database the account's.
 * Statements are prepared lazily, once per connection (sqlapi.c holds the statements).
 */
#ifndef GW_POOL_H
#define GW_POOL_H

#include <libpq-fe.h>
#include <stdbool.h>

#include "sqlapi.h"

typedef struct PoolConn
{
	PGconn	   *conn;
	bool		prepared[SQL__COUNT];
} PoolConn;

typedef struct Pool Pool;

typedef enum PoolStatus
{
	POOL_OK,
	POOL_BUSY,					/* queue full or waited too long */
	POOL_UNAVAILABLE			/* the database cannot be reached (in back-off) */
} PoolStatus;

#define POOL_BACKOFF_MAX_MS 800

extern Pool *pool_create(const char *dsn, const char *account, int size, int queue_max, int queue_timeout_ms,
						 int statement_timeout_ms);
extern PoolStatus pool_acquire(Pool *p, PoolConn **out, char *why, size_t whylen);
/* broken: the connection was lost (it is closed and re-made on a later borrow) */
extern void pool_release(Pool *p, PoolConn *c, bool broken);
extern void pool_destroy(Pool *p);
/* connect every slot now (start-up check); returns how many connected */
extern int	pool_warm(Pool *p, char *why, size_t whylen);

#endif
