/*
 * budget.c - a memory budget shared fairly by accounts and credentials (see budget.h).
 *
 * One mutex per budget guards the counts: bodies take bytes once per step of growth (not per
 * piece received) and answers once each, so it is never hot. Credentials are digests (SHA-256 of
 * the kind and what identifies it, truncated) in a chained hash table of BUCKETS lists; an entry
 * lives while its credential holds bytes, so the table holds at most one entry per connection.
 */
#include "budget.h"

#include <openssl/evp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
	size_t		limit;
	size_t		account_share;
	size_t		credential_share;
	size_t		used;
	size_t		account_used[BUDGET_MAX_ACCOUNTS];
	Cred	   *buckets[BUCKETS];
};

Budget *
budget_create(size_t limit, size_t account_share, size_t credential_share)
{
	Budget	   *b = calloc(1, sizeof(Budget));

	if (b == NULL)
		return NULL;
	pthread_mutex_init(&b->mu, NULL);
	b->limit = limit;
	b->account_share = account_share;
	b->credential_share = credential_share;
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
	free(b);
}

void
budget_key(BudgetKey *k, int account, const char *kind, const char *data, size_t len)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();

	memset(k, 0, sizeof(*k));
	k->account = account >= 0 && account < BUDGET_MAX_ACCOUNTS ? account : 0;
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

/* would n more bytes go past a limit? (overflow-safe) */
static bool
over(size_t used, size_t n, size_t limit)
{
	return used > limit || n > limit - used;
}

BudgetLimit
budget_take(Budget *b, const BudgetKey *k, size_t n)
{
	Cred	   *c;
	BudgetLimit l = BUDGET_OK;

	if (n == 0)
		return BUDGET_OK;
	pthread_mutex_lock(&b->mu);
	c = cred_of(b, k, true);
	if (over(b->used, n, b->limit))
		l = BUDGET_GLOBAL;
	else if (over(b->account_used[k->account], n, b->account_share))
		l = BUDGET_ACCOUNT;
	else if (c == NULL || over(c->used, n, b->credential_share))
		l = BUDGET_CREDENTIAL;
	if (l == BUDGET_OK)
	{
		b->used += n;
		b->account_used[k->account] += n;
		c->used += n;
	}
	else if (c != NULL)
		cred_drop_if_empty(b, c);
	pthread_mutex_unlock(&b->mu);
	return l;
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
	c = cred_of(b, k, true);
	if (c != NULL)
		c->used += n;			/* out of memory: the credential's count misses it; give skips it */
	pthread_mutex_unlock(&b->mu);
}

BudgetLimit
budget_room(Budget *b, const BudgetKey *k)
{
	Cred	   *c;
	BudgetLimit l = BUDGET_OK;

	pthread_mutex_lock(&b->mu);
	c = cred_of(b, k, false);
	if (b->used >= b->limit)
		l = BUDGET_GLOBAL;
	else if (b->account_used[k->account] >= b->account_share)
		l = BUDGET_ACCOUNT;
	else if (c != NULL && c->used >= b->credential_share)
		l = BUDGET_CREDENTIAL;
	pthread_mutex_unlock(&b->mu);
	return l;
}

const char *
budget_limit_text(BudgetLimit l)
{
	switch (l)
	{
		case BUDGET_GLOBAL:
			return "the gateway's";
		case BUDGET_ACCOUNT:
			return "the account's";
		case BUDGET_CREDENTIAL:
			return "the credential's";
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
	c = cred_of(b, k, false);
	if (c != NULL)
	{
		c->used -= n <= c->used ? n : c->used;
		cred_drop_if_empty(b, c);
	}
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
budget_shares(size_t limit, int naccounts, int account_pct, int credential_pct, size_t floor,
			  size_t *account_share, size_t *credential_share)
{
	/* limit is at most 64 GiB (the settings' range): no overflow */
	size_t		a = naccounts <= 1 ? limit : limit * (size_t) account_pct / 100;
	size_t		c = a * (size_t) credential_pct / 100;

	if (a < floor)
		a = floor;
	if (a > limit)
		a = limit;
	if (c < floor)
		c = floor;
	if (c > a)
		c = a;
	*account_share = a;
	*credential_share = c;
}
