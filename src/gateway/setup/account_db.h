/*
 * account_db.h - an account's own database: made ready at start-up, checked on every connection.
 */
#ifndef GW_ACCOUNT_DB_H
#define GW_ACCOUNT_DB_H

#include <libpq-fe.h>
#include <stdbool.h>
#include <stddef.h>

struct Account;

/*
 * The connection's database has the extension at the gateway's version and serves account (it
 * is claimed for it when no account has it yet). false with why set.
 */
extern bool account_db_check(PGconn *c, const char *account, char *why, size_t whylen);

typedef enum AccountDbState
{
	ADB_OK,
	ADB_UNREACHABLE,			/* the server cannot be reached now (the pool retries) */
	ADB_REFUSED					/* reached, and wrong: no extension, another version, another account's */
} AccountDbState;

/*
 * At start-up: the account's database exists (a database derived from --dsn is created, with the
 * extension, when missing) and passes account_db_check; why says what is not so.
 */
extern AccountDbState account_db_prepare(const struct Account *a, char *why, size_t whylen);

#endif
