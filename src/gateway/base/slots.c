/*
 * slots.c - client connections by address, and the reserve kept near the connection limit (see
 * slots.h).
 *
 * A chained hash table of addresses (IPv4 as IPv4-mapped IPv6, 16 bytes) with the connections
 * each holds now, guarded by one mutex: an entry is added when an address opens its first
 * connection and removed when it closes its last, so the table holds at most one entry per
 * connection.
 */
#include "slots.h"

#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define BUCKETS 1024

typedef struct Holder
{
	struct Holder *next;
	unsigned char addr[16];
	int			n;
} Holder;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static Holder *buckets[BUCKETS];
static int	total;
static int	limit = 1000;

bool
slots_key(const struct sockaddr *sa, unsigned char key[16])
{
	memset(key, 0, 16);
	if (sa == NULL)
		return false;
	if (sa->sa_family == AF_INET)
	{
		key[10] = 0xff;
		key[11] = 0xff;
		memcpy(key + 12, &((const struct sockaddr_in *) sa)->sin_addr, 4);
		return true;
	}
	if (sa->sa_family == AF_INET6)
	{
		memcpy(key, &((const struct sockaddr_in6 *) sa)->sin6_addr, 16);
		return true;
	}
	return false;
}

int
slots_reserve(int max_connections)
{
	int			r = max_connections / 10;

	return r < 16 ? (max_connections < 32 ? max_connections / 2 : 16) : r;
}

bool
slots_admit_counts(int total_now, int address_now, int max_connections)
{
	/* near the limit, only addresses that hold few connections get one */
	return total_now < max_connections - slots_reserve(max_connections) || address_now < SLOTS_LIGHT;
}

void
slots_init(int max_connections)
{
	limit = max_connections;
}

static unsigned
bucket_of(const unsigned char key[16])
{
	unsigned	h = 2166136261u;

	for (int i = 0; i < 16; i++)
		h = (h ^ key[i]) * 16777619u;
	return h % BUCKETS;
}

static Holder *
holder_of(const unsigned char key[16])
{
	for (Holder *h = buckets[bucket_of(key)]; h; h = h->next)
		if (memcmp(h->addr, key, 16) == 0)
			return h;
	return NULL;
}

bool
slots_admit(const struct sockaddr *sa)
{
	unsigned char key[16];
	bool		ok;
	Holder	   *h;

	if (!slots_key(sa, key))
		return true;
	pthread_mutex_lock(&mu);
	h = holder_of(key);
	ok = slots_admit_counts(total, h ? h->n : 0, limit);
	pthread_mutex_unlock(&mu);
	return ok;
}

void
slots_opened(const unsigned char key[16])
{
	Holder	   *h;

	pthread_mutex_lock(&mu);
	total++;
	h = holder_of(key);
	if (h == NULL && (h = calloc(1, sizeof(Holder))) != NULL)
	{
		unsigned	b = bucket_of(key);

		memcpy(h->addr, key, 16);
		h->next = buckets[b];
		buckets[b] = h;
	}
	if (h != NULL)
		h->n++;
	pthread_mutex_unlock(&mu);
}

void
slots_closed(const unsigned char key[16])
{
	Holder	  **pp;

	pthread_mutex_lock(&mu);
	if (total > 0)
		total--;
	for (pp = &buckets[bucket_of(key)]; *pp; pp = &(*pp)->next)
		if (memcmp((*pp)->addr, key, 16) == 0)
		{
			Holder	   *h = *pp;

			if (--h->n <= 0)
			{
				*pp = h->next;
				free(h);
			}
			break;
		}
	pthread_mutex_unlock(&mu);
}
