/*
 * budget.c - a memory budget shared by accounts and credentials (see budget.h).
 *
 * One mutex per budget guards the counts: bodies take bytes once per step of growth (not per
 * piece received) and answers once at admission and once when built, so it is never hot.
 * Credentials are digests (SHA-256 of the kind and what identifies it, truncated) in a chained
 * hash table of BUCKETS lists; an entry lives while its credential holds bytes, so the table
 * holds at most one entry per connection. The room of a holder is computed from the counts each
 * time (at most 32 accounts): the global limit, less the other accounts' unused guaranteed room,
 * less what is held, less (for a SAS or a token) the room still kept for the account's key.
 */
#include "budget.h"

#include <openssl/evp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BUCKETS 256

typedef struct Cred
{
	struct Cred *next;
	BudgetKey	key;
	size_t		used;
} Cred;

struct Budget
{
	pthread_mutex_t mu;
	pthread_cond_t freed;		/* bytes were given back (budget_take_wait) */
	int			waiting;
	BudgetRules rules;
	size_t		used;
	size_t		account_used[BUDGET_MAX_ACCOUNTS];
	size_t		key_used[BUDGET_MAX_ACCOUNTS];	/* by the account's key */
	Cred	   *buckets[BUCKETS];
};

Budget *
budget_create(const BudgetRules *rules)
{
	Budget	   *b = calloc(1, sizeof(Budget));

	if (b == NULL)
		return NULL;
	pthread_condattr_t ca;

	pthread_mutex_init(&b->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&b->freed, &ca);
	pthread_condattr_destroy(&ca);
	b->rules = *rules;
	if (b->rules.naccounts > BUDGET_MAX_ACCOUNTS)
		b->rules.naccounts = BUDGET_MAX_ACCOUNTS;
	return b;
}

void
budget_destroy(Budget *b)
{
	if (b == NULL)
		return;
	for (int i = 0; i < BUCKETS; i++)
		while (b->buckets[i])
		{
			Cred	   *c = b->buckets[i];

			b->buckets[i] = c->next;
			free(c);
		}
	pthread_mutex_destroy(&b->mu);
	pthread_cond_destroy(&b->freed);
	free(b);
}

void
budget_key(BudgetKey *k, int account, const char *kind, const void *data, size_t len)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();

	memset(k, 0, sizeof(*k));
	k->account = account >= 0 && account < BUDGET_MAX_ACCOUNTS ? account : 0;
	k->anonymous = strcmp(kind, "anonymous") == 0;
	k->key = strcmp(kind, "key") == 0;
	if (ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) && EVP_DigestUpdate(ctx, kind, strlen(kind) + 1) &&
		(data == NULL || EVP_DigestUpdate(ctx, data, len)) && EVP_DigestFinal_ex(ctx, md, &mdlen) &&
		mdlen >= BUDGET_DIGEST)
		memcpy(k->cred, md, BUDGET_DIGEST);
	else
	{
		/* no digest (out of memory): the kind alone tells the credential */
		size_t		n = strlen(kind);

		memcpy(k->cred, kind, n < BUDGET_DIGEST ? n : BUDGET_DIGEST);
	}
	EVP_MD_CTX_free(ctx);
}

static unsigned
bucket_of(const BudgetKey *k)
{
	return ((unsigned) k->cred[0] ^ (unsigned) k->account * 31u) % BUCKETS;
}

/* k's entry (mutex held); created with nothing held when create, NULL when absent or no memory */
static Cred *
cred_of(Budget *b, const BudgetKey *k, bool create)
{
	Cred	  **head = &b->buckets[bucket_of(k)];

	for (Cred *c = *head; c; c = c->next)
		if (c->key.account == k->account && memcmp(c->key.cred, k->cred, BUDGET_DIGEST) == 0)
			return c;
	if (!create)
		return NULL;
	{
		Cred	   *c = calloc(1, sizeof(Cred));

		if (c == NULL)
			return NULL;
		c->key = *k;
		c->next = *head;
		*head = c;
		return c;
	}
}

static void
cred_drop_if_empty(Budget *b, Cred *c)
{
	Cred	  **pp = &b->buckets[bucket_of(&c->key)];

	if (c->used > 0)
		return;
	while (*pp && *pp != c)
		pp = &(*pp)->next;
	if (*pp)
		*pp = c->next;
	free(c);
}

static size_t
sat_sub(size_t a, size_t b)
{
	return a > b ? a - b : 0;
}

/*
 * What k may take beyond what it holds (mutex held; c its entry or NULL), and which limit bounds
 * it: the global limit less what is held; less the other accounts' unused guaranteed room; for
 * a credential other than the account's key, less the room still kept for the key (and for an
 * anonymous holder, at most its small cap).
 */
static size_t
room_of(Budget *b, const BudgetKey *k, const Cred *c, BudgetLimit *bound)
{
	const BudgetRules *r = &b->rules;
	size_t		mine = c ? c->used : 0;
	size_t		others_unused = 0;
	size_t		free_global = sat_sub(r->limit, b->used);
	size_t		free_account;
	size_t		room;

	for (int i = 0; i < r->naccounts; i++)
		if (i != k->account)
			others_unused += sat_sub(r->guaranteed, b->account_used[i]);
	free_account = sat_sub(sat_sub(r->limit, others_unused), b->used);
	room = k->key ? free_account : sat_sub(free_account, sat_sub(r->kept, b->key_used[k->account]));
	if (k->anonymous && sat_sub(r->anonymous, mine) < room)
		room = sat_sub(r->anonymous, mine);
	*bound = room == free_global ? BUDGET_GLOBAL : room == free_account ? BUDGET_ACCOUNT : BUDGET_CREDENTIAL;
	return room;
}

/* may k take n more (mutex held)? */
static BudgetLimit
check_locked(Budget *b, const BudgetKey *k, const Cred *c, size_t n)
{
	BudgetLimit bound;
	size_t		room = room_of(b, k, c, &bound);

	return n <= room ? BUDGET_OK : bound;
}

/* take n for k if there is room (mutex held) */
static BudgetLimit
take_locked(Budget *b, const BudgetKey *k, size_t n)
{
	Cred	   *c = cred_of(b, k, true);
	BudgetLimit l = c == NULL ? BUDGET_CREDENTIAL : check_locked(b, k, c, n);

	if (l == BUDGET_OK)
	{
		b->used += n;
		b->account_used[k->account] += n;
		b->key_used[k->account] += k->key ? n : 0;
		c->used += n;
	}
	else if (c != NULL)
		cred_drop_if_empty(b, c);
	return l;
}

BudgetLimit
budget_take(Budget *b, const BudgetKey *k, size_t n)
{
	BudgetLimit l;

	if (n == 0)
		return BUDGET_OK;
	pthread_mutex_lock(&b->mu);
	l = take_locked(b, k, n);
	pthread_mutex_unlock(&b->mu);
	return l;
}

BudgetLimit
budget_take_wait(Budget *b, const BudgetKey *k, size_t n, int wait_ms)
{
	struct timespec deadline;
	BudgetLimit l;

	if (n == 0)
		return BUDGET_OK;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += wait_ms / 1000;
	deadline.tv_nsec += (long) (wait_ms % 1000) * 1000000L;
	if (deadline.tv_nsec >= 1000000000L)
	{
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&b->mu);
	while ((l = take_locked(b, k, n)) != BUDGET_OK)
	{
		int			rc;

		b->waiting++;
		rc = pthread_cond_timedwait(&b->freed, &b->mu, &deadline);
		b->waiting--;
		if (rc != 0)
		{
			l = take_locked(b, k, n);
			break;
		}
	}
	pthread_mutex_unlock(&b->mu);
	return l;
}

BudgetLimit
budget_check(Budget *b, const BudgetKey *k, size_t n)
{
	BudgetLimit l;

	pthread_mutex_lock(&b->mu);
	l = check_locked(b, k, cred_of(b, k, false), n);
	pthread_mutex_unlock(&b->mu);
	return l;
}

size_t
budget_reach(Budget *b, const BudgetKey *k)
{
	BudgetLimit bound;
	const Cred *c;
	size_t		n;

	pthread_mutex_lock(&b->mu);
	c = cred_of(b, k, false);
	n = room_of(b, k, c, &bound) + (c ? c->used : 0);
	pthread_mutex_unlock(&b->mu);
	return n;
}

void
budget_charge(Budget *b, const BudgetKey *k, size_t n)
{
	Cred	   *c;

	if (n == 0)
		return;
	pthread_mutex_lock(&b->mu);
	b->used += n;
	b->account_used[k->account] += n;
	b->key_used[k->account] += k->key ? n : 0;
	c = cred_of(b, k, true);
	if (c != NULL)
		c->used += n;			/* out of memory: the credential's count misses it; give skips it */
	pthread_mutex_unlock(&b->mu);
}

const char *
budget_limit_text(BudgetLimit l)
{
	switch (l)
	{
		case BUDGET_GLOBAL:
			return "all of the gateway's memory";
		case BUDGET_ACCOUNT:
			return "all of the gateway's memory but the room guaranteed to the other accounts";
		case BUDGET_CREDENTIAL:
			return "all the account may hold but the room kept for its key";
		default:
			return "no";
	}
}

void
budget_give(Budget *b, const BudgetKey *k, size_t n)
{
	Cred	   *c;

	if (n == 0)
		return;
	pthread_mutex_lock(&b->mu);
	b->used -= n <= b->used ? n : b->used;
	b->account_used[k->account] -= n <= b->account_used[k->account] ? n : b->account_used[k->account];
	if (k->key)
		b->key_used[k->account] -= n <= b->key_used[k->account] ? n : b->key_used[k->account];
	c = cred_of(b, k, false);
	if (c != NULL)
	{
		c->used -= n <= c->used ? n : c->used;
		cred_drop_if_empty(b, c);
	}
	if (b->waiting > 0)
		pthread_cond_broadcast(&b->freed);
	pthread_mutex_unlock(&b->mu);
}

size_t
budget_used(Budget *b)
{
	size_t		n;

	pthread_mutex_lock(&b->mu);
	n = b->used;
	pthread_mutex_unlock(&b->mu);
	return n;
}

size_t
budget_account_used(Budget *b, int account)
{
	size_t		n;

	pthread_mutex_lock(&b->mu);
	n = account >= 0 && account < BUDGET_MAX_ACCOUNTS ? b->account_used[account] : 0;
	pthread_mutex_unlock(&b->mu);
	return n;
}

size_t
budget_credential_used(Budget *b, const BudgetKey *k)
{
	Cred	   *c;
	size_t		n;

	pthread_mutex_lock(&b->mu);
	c = cred_of(b, k, false);
	n = c ? c->used : 0;
	pthread_mutex_unlock(&b->mu);
	return n;
}

void
budget_rules(size_t limit, int naccounts, int account_pct, int credential_pct, size_t unit, int units_alone,
			 size_t anonymous, BudgetRules *out)
{
	/* limits are at most 64 GiB (the settings' range): no overflow */
	size_t		n = naccounts < 1 ? 1 : (size_t) naccounts;
	size_t		alone = unit * (size_t) units_alone;
	size_t		g,
				kept;

	if (limit < alone + unit)
		limit = alone + unit;
	g = limit * (size_t) account_pct / 100;
	if (g > limit / (2 * n))
		g = limit / (2 * n);
	kept = g * (size_t) credential_pct / 100;
	if (kept < unit)
		kept = unit;
	if (kept > limit - alone)
		kept = limit - alone;
	/* the other accounts' guaranteed room leaves a credential alone its units and the kept room */
	if (n > 1 && g > (limit - alone - kept) / (n - 1))
		g = (limit - alone - kept) / (n - 1);
	out->limit = limit;
	out->guaranteed = g;
	out->kept = kept;
	out->anonymous = anonymous;
	out->naccounts = (int) n;
}
