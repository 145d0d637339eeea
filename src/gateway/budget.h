/*
 * budget.h - a memory budget shared fairly by accounts and credentials.
 *
 * The gateway holds two kinds of memory for its clients: request bodies being received and
 * answers not yet sent. Each has a Budget: a global limit (bytes all connections together may
 * hold), a share per account (what one account may hold of it) and a share per credential (what
 * one key, shared access signature or bearer token may hold of its account's share). Bytes are
 * taken when they are held (a body's buffer as it grows, an answer once it is built) and given
 * back when they are not. So one account cannot take the memory every other account needs, and
 * one credential of an account (a SAS handed to a browser, say) cannot take its account's.
 *
 * A holder is who holds the bytes: an account (by its index) and a credential (a digest of what
 * identifies it). The credentials holding bytes are kept in a small hash table, each entry
 * removed once it holds nothing.
 */
#ifndef GW_BUDGET_H
#define GW_BUDGET_H

#include <stdbool.h>
#include <stddef.h>

#define BUDGET_MAX_ACCOUNTS 32	/* GW_MAX_ACCOUNTS */
#define BUDGET_DIGEST 16

typedef struct Budget Budget;

/* Who holds bytes: an account and one of its credentials. */
typedef struct BudgetKey
{
	int			account;		/* 0 .. BUDGET_MAX_ACCOUNTS - 1 */
	unsigned char cred[BUDGET_DIGEST];
} BudgetKey;

/* Limits in bytes: all holders together, one account, one credential (of its account). */
extern Budget *budget_create(size_t limit, size_t account_share, size_t credential_share);
extern void budget_destroy(Budget *b);

/*
 * The key of a credential of an account: kind ("key", "sas", "bearer", "anonymous") and what
 * tells two of that kind apart (a SAS's signature, a token), hashed; data may be NULL.
 */
extern void budget_key(BudgetKey *k, int account, const char *kind, const char *data, size_t len);

/* Which limit leaves no room (BUDGET_OK: none). */
typedef enum BudgetLimit
{
	BUDGET_OK,
	BUDGET_GLOBAL,				/* all holders together */
	BUDGET_ACCOUNT,				/* the account's share */
	BUDGET_CREDENTIAL			/* the credential's share (or no memory to count it) */
} BudgetLimit;

/* Take n bytes for k when the global limit, k's account share and k's credential share all have
 * room for them; otherwise take nothing and say which has none. */
extern BudgetLimit budget_take(Budget *b, const BudgetKey *k, size_t n);

/* Take n bytes for k whatever the limits say (what was built already and must be held). */
extern void budget_charge(Budget *b, const BudgetKey *k, size_t n);

/* Is each of the three (global, k's account, k's credential) under its limit? Else which is not. */
extern BudgetLimit budget_room(Budget *b, const BudgetKey *k);

/* "the gateway's", "the account's", "the credential's" (for messages) */
extern const char *budget_limit_text(BudgetLimit l);

/* Give back n bytes k took. */
extern void budget_give(Budget *b, const BudgetKey *k, size_t n);

/* Bytes held now: by everyone, by an account, by a credential. */
extern size_t budget_used(Budget *b);
extern size_t budget_account_used(Budget *b, int account);
extern size_t budget_credential_used(Budget *b, const BudgetKey *k);

/*
 * The shares the gateway gives (doc/gateway.md, "Memory budgets"): an account may hold
 * account_pct % of limit (all of it when it is the only account), a credential credential_pct %
 * of its account's share; neither less than floor (one whole request body), nor more than limit.
 */
extern void budget_shares(size_t limit, int naccounts, int account_pct, int credential_pct, size_t floor,
						  size_t *account_share, size_t *credential_share);

#endif
