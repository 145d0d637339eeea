/*
 * account_db.c - each account's own database (config.c's rules): created with the extension
 * when it is derived from --dsn and missing, and checked on every new connection - the
 * extension's version is the gateway's (TS_VERSION), and the database serves this account and no
 * other (tablestore.claim_account, which the first connection records).
 */
#include "account_db.h"
#include "gateway.h"

#include <stdio.h>
#include <string.h>

/* libpq's message, on one line */
static void
conn_why(char *why, size_t whylen, const char *prefix, const char *msg)
{
	snprintf(why, whylen, "%s%s", prefix, msg ? msg : "out of memory");
	why[strcspn(why, "\n")] = '\0';
}

static bool
run(PGconn *c, const char *sql, int nparams, const char *const *params, char *why, size_t whylen)
{
	PGresult   *res = PQexecParams(c, sql, nparams, NULL, params, NULL, NULL, 0);
	bool		ok = PQresultStatus(res) == PGRES_COMMAND_OK || PQresultStatus(res) == PGRES_TUPLES_OK;

	if (!ok)
		conn_why(why, whylen, "", PQresultErrorMessage(res));
	PQclear(res);
	return ok;
}

bool
account_db_check(PGconn *c, const char *account, char *why, size_t whylen)
{
	PGresult   *res = PQexec(c, "SELECT extversion FROM pg_catalog.pg_extension WHERE extname = 'tablestore'");
	const char *params[1] = {account};
	bool		ok;

	if (PQresultStatus(res) != PGRES_TUPLES_OK)
	{
		conn_why(why, whylen, "cannot read the extension's version: ", PQresultErrorMessage(res));
		PQclear(res);
		return false;
	}
	if (PQntuples(res) != 1)
		snprintf(why, whylen, "database %s has no tablestore extension (CREATE EXTENSION tablestore)", PQdb(c));
	else if (strcmp(PQgetvalue(res, 0, 0), TS_VERSION) != 0)
		snprintf(why, whylen, "database %s has tablestore %s; this gateway is %s (ALTER EXTENSION tablestore UPDATE)",
				 PQdb(c), PQgetvalue(res, 0, 0), TS_VERSION);
	ok = PQntuples(res) == 1 && strcmp(PQgetvalue(res, 0, 0), TS_VERSION) == 0;
	PQclear(res);
	return ok && run(c, "SELECT tablestore.claim_account($1)", 1, params, why, whylen);
}

/*
 * A connection at start-up, which waits at most 5 s for the server unless the DSN says otherwise
 * (a server that never answers would hold the start-up for minutes of TCP retries).
 */
static PGconn *
connect_bounded(const char *dsn)
{
	const char *keys[] = {"connect_timeout", "dbname", NULL};
	const char *vals[] = {"5", dsn, NULL};

	return PQconnectdbParams(keys, vals, 1);
}

/* A missing database of the account, created on --dsn's server with the extension. */
static bool
create_database(const Account *a, char *why, size_t whylen)
{
	char	   *dbname = NULL;
	PGconn	   *probe = connect_bounded(a->dsn);
	PGconn	   *base;
	bool		ok;
	char		sql[200];

	dbname = probe ? strdup(PQdb(probe)) : NULL;
	PQfinish(probe);
	if (dbname == NULL)
	{
		snprintf(why, whylen, "out of memory");
		return false;
	}
	base = connect_bounded(gw_config.default_dsn);
	if (PQstatus(base) != CONNECTION_OK)
	{
		conn_why(why, whylen, "cannot connect with --dsn to create the account's database: ", PQerrorMessage(base));
		PQfinish(base);
		free(dbname);
		return false;
	}
	{
		char	   *quoted = PQescapeIdentifier(base, dbname, strlen(dbname));

		snprintf(sql, sizeof(sql), "CREATE DATABASE %s", quoted ? quoted : "\"\"");
		PQfreemem(quoted);
	}
	ok = run(base, sql, 0, NULL, why, whylen);
	PQfinish(base);
	if (ok)
		log_msg("account %s: created its database %s", a->name, dbname);
	free(dbname);
	return ok;
}

AccountDbState
account_db_prepare(const Account *a, char *why, size_t whylen)
{
	PGconn	   *c = connect_bounded(a->dsn);
	bool		ok;

	if (PQstatus(c) != CONNECTION_OK && a->dsn_derived && strstr(PQerrorMessage(c), "does not exist") != NULL)
	{
		PQfinish(c);
		if (!create_database(a, why, whylen))
			return ADB_REFUSED;
		c = connect_bounded(a->dsn);
		if (PQstatus(c) == CONNECTION_OK && !run(c, "CREATE EXTENSION IF NOT EXISTS tablestore", 0, NULL, why, whylen))
		{
			PQfinish(c);
			return ADB_REFUSED;
		}
	}
	if (PQstatus(c) != CONNECTION_OK)
	{
		conn_why(why, whylen, "cannot connect to the account's database: ", PQerrorMessage(c));
		PQfinish(c);
		return ADB_UNREACHABLE;
	}
	ok = account_db_check(c, a->name, why, whylen);
	PQfinish(c);
	return ok ? ADB_OK : ADB_REFUSED;
}
