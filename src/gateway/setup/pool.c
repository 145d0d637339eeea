/*
 * pool.c - bounded libpq connection pool with reconnect back-off (see pool.h).
 */
#include "pool.h"
#include "account_db.h"
#include "gateway.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct Pool
{
	pthread_mutex_t mu;
	pthread_cond_t cv;
	char	   *dsn;
	PoolConn   *conns;
	int			size;
	int		   *free_idx;		/* stack of free slot indexes */
	int			nfree;
	int			waiting;
	int			queue_max;
	int			queue_timeout_ms;
	int			statement_timeout_ms;
	char	   *account;		/* the account every connection's database must serve */
	double		next_connect_ms;	/* back-off: no connection attempt before this */
	int			backoff_ms;
};

Pool *
pool_create(const char *dsn, const char *account, int size, int queue_max, int queue_timeout_ms, int statement_timeout_ms)
{
	Pool	   *p = calloc(1, sizeof(Pool));
	pthread_condattr_t ca;

	if (p == NULL)
		return NULL;
	p->dsn = strdup(dsn);
	p->account = strdup(account);
	p->size = size;
	p->conns = calloc((size_t) size, sizeof(PoolConn));
	p->free_idx = calloc((size_t) size, sizeof(int));
	if (p->dsn == NULL || p->account == NULL || p->conns == NULL || p->free_idx == NULL)
		return NULL;
	for (int i = 0; i < size; i++)
		p->free_idx[i] = size - 1 - i;
	p->nfree = size;
	p->queue_max = queue_max;
	p->queue_timeout_ms = queue_timeout_ms;
	p->statement_timeout_ms = statement_timeout_ms;
	pthread_mutex_init(&p->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->cv, &ca);
	pthread_condattr_destroy(&ca);
	return p;
}

/* Open a connection for slot c (called without the mutex held). */
static bool
connect_slot(Pool *p, PoolConn *c, char *why, size_t whylen)
{
	const char *keys[] = {"connect_timeout", "application_name", "dbname", NULL};
	const char *vals[] = {"5", "tablestore-gateway", p->dsn, NULL};
	PGconn	   *conn;
	PGresult   *res;
	char		sql[96];

	/* the DSN comes last so that whatever it says wins over our defaults */
	conn = PQconnectdbParams(keys, vals, 1);
	if (conn == NULL || PQstatus(conn) != CONNECTION_OK)
	{
		snprintf(why, whylen, "cannot connect to the database: %s",
				 conn ? PQerrorMessage(conn) : "out of memory");
		/* libpq messages end with a newline */
		why[strcspn(why, "\n")] = '\0';
		PQfinish(conn);
		return false;
	}
	snprintf(sql, sizeof(sql), "SET statement_timeout = %d", p->statement_timeout_ms);
	res = PQexec(conn, sql);
	if (PQresultStatus(res) != PGRES_COMMAND_OK)
	{
		snprintf(why, whylen, "cannot set up the connection: %s", PQresultErrorMessage(res));
		why[strcspn(why, "\n")] = '\0';
		PQclear(res);
		PQfinish(conn);
		return false;
	}
	PQclear(res);
	if (!account_db_check(conn, p->account, why, whylen))
	{
		PQfinish(conn);
		return false;
	}
	c->conn = conn;
	memset(c->prepared, 0, sizeof(c->prepared));
	return true;
}

PoolStatus
pool_acquire(Pool *p, PoolConn **out, char *why, size_t whylen)
{
	struct timespec deadline;
	PoolConn   *c;
	int			idx;
	double		now;

	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += p->queue_timeout_ms / 1000;
	deadline.tv_nsec += (long) (p->queue_timeout_ms % 1000) * 1000000L;
	if (deadline.tv_nsec >= 1000000000L)
	{
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&p->mu);
	if (p->nfree == 0)
	{
		if (p->waiting >= p->queue_max)
		{
			pthread_mutex_unlock(&p->mu);
			snprintf(why, whylen, "the server is busy: %d requests are already waiting for a database connection", p->queue_max);
			return POOL_BUSY;
		}
		p->waiting++;
		while (p->nfree == 0)
		{
			int			rc = pthread_cond_timedwait(&p->cv, &p->mu, &deadline);

			if (rc == ETIMEDOUT && p->nfree == 0)
			{
				p->waiting--;
				pthread_mutex_unlock(&p->mu);
				snprintf(why, whylen, "the server is busy: no database connection became free within %d ms", p->queue_timeout_ms);
				return POOL_BUSY;
			}
		}
		p->waiting--;
	}
	idx = p->free_idx[--p->nfree];
	c = &p->conns[idx];
	if (c->conn != NULL && PQstatus(c->conn) == CONNECTION_OK)
	{
		pthread_mutex_unlock(&p->mu);
		*out = c;
		return POOL_OK;
	}
	now = now_ms();
	if (now < p->next_connect_ms)
	{
		p->free_idx[p->nfree++] = idx;
		pthread_cond_signal(&p->cv);
		pthread_mutex_unlock(&p->mu);
		snprintf(why, whylen, "the database is unavailable (reconnecting)");
		return POOL_UNAVAILABLE;
	}
	pthread_mutex_unlock(&p->mu);

	if (c->conn)
	{
		PQfinish(c->conn);
		c->conn = NULL;
	}
	if (!connect_slot(p, c, why, whylen))
	{
		pthread_mutex_lock(&p->mu);
		p->backoff_ms = p->backoff_ms == 0 ? 100 : (p->backoff_ms * 2 > POOL_BACKOFF_MAX_MS ? POOL_BACKOFF_MAX_MS : p->backoff_ms * 2);
		p->next_connect_ms = now_ms() + p->backoff_ms;
		p->free_idx[p->nfree++] = idx;
		pthread_cond_signal(&p->cv);
		pthread_mutex_unlock(&p->mu);
		log_msg("pool: %s (next attempt in %d ms)", why, p->backoff_ms);
		return POOL_UNAVAILABLE;
	}
	pthread_mutex_lock(&p->mu);
	p->backoff_ms = 0;
	p->next_connect_ms = 0;
	pthread_mutex_unlock(&p->mu);
	*out = c;
	return POOL_OK;
}

void
pool_release(Pool *p, PoolConn *c, bool broken)
{
	if (broken && c->conn)
	{
		PQfinish(c->conn);
		c->conn = NULL;
	}
	pthread_mutex_lock(&p->mu);
	p->free_idx[p->nfree++] = (int) (c - p->conns);
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

int
pool_warm(Pool *p, char *why, size_t whylen)
{
	int			ok = 0;

	/* start-up only: no worker thread uses the pool yet */
	for (int i = 0; i < p->size; i++)
	{
		if (p->conns[i].conn == NULL && !connect_slot(p, &p->conns[i], why, whylen))
			break;
		ok++;
	}
	return ok;
}

void
pool_destroy(Pool *p)
{
	if (p == NULL)
		return;
	for (int i = 0; i < p->size; i++)
		if (p->conns[i].conn)
			PQfinish(p->conns[i].conn);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
	free(p->conns);
	free(p->free_idx);
	free(p->dsn);
	free(p->account);
	free(p);
}
