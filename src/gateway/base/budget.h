/*
 * budget.h - a memory budget shared by accounts and credentials, work-conserving.
 *
 * The gateway holds two kinds of memory for its clients: request bodies received and not yet
 * handed to the database, and answers not yet sent. Each has a Budget: a global limit (bytes all
 * connections together may hold), with two kinds of room kept free:
 *
 *   - each account's guaranteed room: the other accounts together can never hold so much that
 *     less than it is free for this account (while it holds less than it);
 *   - within an account, the room kept for its key: the account's other credentials (shared
 *     access signatures handed to browsers, bearer tokens) together can never hold so much that
 *     less than it is left for the key (while the key holds less than it).
 *
 * Beyond that anyone may use what is free: a refusal comes only when the global limit less the
 * other accounts' unused guaranteed room (less, for a SAS or a token, the room kept for the key)
 * is used up. So one busy client of a quiet gateway gets nearly all of it, and no tenant - nor
 * any number of delegated credentials of a tenant - can take what another needs. A holder with no
 * credential (a CORS preflight) may hold only a small fixed amount.
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
	bool		key;			/* the account's key (either of its two) */
	bool		anonymous;		/* no credential: at most BudgetRules.anonymous */
	unsigned char cred[BUDGET_DIGEST];
} BudgetKey;

/* The limits of a budget, in bytes (budget_rules computes them from the settings). */
typedef struct BudgetRules
{
	size_t		limit;			/* all holders together */
	size_t		guaranteed;		/* kept free for each account (when it holds less) */
	size_t		kept;			/* within an account's room, kept free for its key */
	size_t		anonymous;		/* what an account's anonymous holder may hold */
	int			naccounts;		/* accounts 0 .. naccounts - 1 */
} BudgetRules;

extern Budget *budget_create(const BudgetRules *rules);
extern void budget_destroy(Budget *b);

/*
 * The rules from the settings (doc/gateway.md, "Memory budgets"): unit is the most one request
 * holds (one whole body, one page of answer); a credential alone always has room for
 * units_alone of them, so the limit is raised to (units_alone + 1) units when lower. Each
 * account's guaranteed room is account_pct % of the limit, at most the limit / (2 x accounts)
 * (half of it is never promised) and at most what leaves a credential alone its units; the room
 * kept for an account's key is credential_pct % of the guaranteed room, at least one unit.
 */
extern void budget_rules(size_t limit, int naccounts, int account_pct, int credential_pct, size_t unit,
						 int units_alone, size_t anonymous, BudgetRules *out);

/*
 * The key of a credential of an account: kind ("key", "sas", "bearer", "anonymous") and what
 * tells two of that kind apart (a SAS's decoded signature, a token's), hashed; data may be NULL.
 */
extern void budget_key(BudgetKey *k, int account, const char *kind, const void *data, size_t len);

/* Which limit leaves no room (BUDGET_OK: none). */
typedef enum BudgetLimit
{
	BUDGET_OK,
	BUDGET_GLOBAL,				/* all holders together */
	BUDGET_ACCOUNT,				/* the room the other accounts are guaranteed */
	BUDGET_CREDENTIAL			/* the room kept for the account's key (or an anonymous holder's cap, or no memory) */
} BudgetLimit;

/* Take n bytes for k when the rules leave room for them; otherwise take nothing and say which has none. */
extern BudgetLimit budget_take(Budget *b, const BudgetKey *k, size_t n);

/*
 * budget_take, waiting up to wait_ms for bytes given back when there is no room at first (for a
 * holder whose room is held by answers being sent, which are given back when sent or dropped).
 */
extern BudgetLimit budget_take_wait(Budget *b, const BudgetKey *k, size_t n, int wait_ms);

/* Would budget_take(b, k, n) take them now? (nothing taken) */
extern BudgetLimit budget_check(Budget *b, const BudgetKey *k, size_t n);

/* Take n bytes for k whatever the limits say (what was built already and must be held). */
extern void budget_charge(Budget *b, const BudgetKey *k, size_t n);

/* "the gateway's memory", "the room guaranteed to other accounts", ... (for messages) */
extern const char *budget_limit_text(BudgetLimit l);

/* Give back n bytes k took. */
extern void budget_give(Budget *b, const BudgetKey *k, size_t n);

/* Bytes held now: by everyone, by an account, by a credential. */
extern size_t budget_used(Budget *b);
extern size_t budget_account_used(Budget *b, int account);
extern size_t budget_credential_used(Budget *b, const BudgetKey *k);

/* The most k could hold now (what it holds and what it could take): for tests and messages. */
extern size_t budget_reach(Budget *b, const BudgetKey *k);

#endif
