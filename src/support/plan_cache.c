/*
 * plan_cache.c - the bounded, least-recently-used cache of saved SPI plans (plan_cache.h).
 */
#include "plan_cache.h"

#include "storage/proc.h"
#include "utils/guc.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"

#include <xxhash.h>

int			ts_plan_cache_size = 256;

typedef struct PlanEntry
{
	uint64		hash;			/* the key: of the text, argument types and cursor options */
	char	   *sql;
	int			nargs;
	Oid		   *types;
	int			cursor_options;
	uint64		last_use;
	SPIPlanPtr	plan;
} PlanEntry;

static MemoryContext cache_cxt = NULL;
static HTAB *plans = NULL;
static uint64 use_clock = 0;

/*
 * How many calls of this transaction hold cached plans now. An error leaves it high until the
 * transaction ends, which only delays forgetting.
 */
static int	users = 0;
static LocalTransactionId users_lxid = InvalidLocalTransactionId;

void
ts_plan_cache_init(void)
{
	DefineCustomIntVariable("tablestore.plan_cache_size",
							"How many prepared statements a session keeps.",
							"The least recently used are forgotten when more are needed.",
							&ts_plan_cache_size, 256, 16, 100000, PGC_USERSET, 0, NULL, NULL, NULL);
}

static void
forget(PlanEntry *e)
{
	SPI_freeplan(e->plan);
	pfree(e->sql);
	pfree(e->types);
	hash_search(plans, &e->hash, HASH_REMOVE, NULL);
}

static int
by_last_use(const void *a, const void *b)
{
	uint64		x = (*(PlanEntry *const *) a)->last_use;
	uint64		y = (*(PlanEntry *const *) b)->last_use;

	return (x > y) - (x < y);
}

/* Forget the least recently used plans until a quarter of the cache is free. */
static void
make_room(void)
{
	long		n = hash_get_num_entries(plans);
	long		keep = ts_plan_cache_size * 3 / 4;
	PlanEntry **all;
	HASH_SEQ_STATUS seq;
	PlanEntry  *e;
	long		k = 0;

	if (n <= keep)
		return;
	all = palloc(sizeof(PlanEntry *) * n);
	hash_seq_init(&seq, plans);
	while ((e = hash_seq_search(&seq)) != NULL)
		all[k++] = e;
	qsort(all, n, sizeof(PlanEntry *), by_last_use);
	for (k = 0; k < n - keep; k++)
		forget(all[k]);
	pfree(all);
}

void
ts_plan_cache_begin(void)
{
	if (users_lxid != MyProc->lxid)
	{
		users = 0;
		users_lxid = MyProc->lxid;
	}
	if (users == 0 && plans != NULL && hash_get_num_entries(plans) >= ts_plan_cache_size)
		make_room();
	users++;
}

void
ts_plan_cache_end(void)
{
	if (users > 0)
		users--;
}

SPIPlanPtr
ts_plan_cache_get(const char *sql, int nargs, const Oid *types, int cursor_options)
{
	uint64		hash = XXH3_64bits_withSeed(sql, strlen(sql), (uint64) cursor_options);
	PlanEntry  *e;
	bool		found;
	SPIPlanPtr	plan;
	char	   *sql_copy;
	Oid		   *types_copy;

	Assert(users > 0);
	hash = XXH3_64bits_withSeed(types, sizeof(Oid) * nargs, hash);
	if (plans == NULL)
	{
		HASHCTL		ctl = {0};

		cache_cxt = AllocSetContextCreate(CacheMemoryContext, "tablestore plan cache", ALLOCSET_SMALL_SIZES);
		ctl.keysize = sizeof(uint64);
		ctl.entrysize = sizeof(PlanEntry);
		ctl.hcxt = cache_cxt;
		plans = hash_create("tablestore plans", 64, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	e = hash_search(plans, &hash, HASH_FIND, NULL);
	if (e != NULL && e->nargs == nargs && e->cursor_options == cursor_options &&
		strcmp(e->sql, sql) == 0 && memcmp(e->types, types, sizeof(Oid) * nargs) == 0)
	{
		e->last_use = ++use_clock;
		return e->plan;
	}

	/* prepare before touching the cache: a failure (lock timeout, cancel) leaves it as it was */
	plan = SPI_prepare_cursor(sql, nargs, (Oid *) types, cursor_options);
	if (plan == NULL)
		elog(ERROR, "tablestore: could not prepare a statement: %s", SPI_result_code_string(SPI_result));
	sql_copy = MemoryContextStrdup(cache_cxt, sql);
	types_copy = MemoryContextAlloc(cache_cxt, sizeof(Oid) * Max(nargs, 1));
	memcpy(types_copy, types, sizeof(Oid) * nargs);
	SPI_keepplan(plan);

	/* nothing below raises: the entry is complete whenever it exists */
	e = hash_search(plans, &hash, HASH_ENTER, &found);
	if (found)
	{
		/* a hash collision: the entry's plan belongs to no running call (shapes differ) */
		SPI_freeplan(e->plan);
		pfree(e->sql);
		pfree(e->types);
	}
	e->hash = hash;
	e->plan = plan;
	e->nargs = nargs;
	e->cursor_options = cursor_options;
	e->sql = sql_copy;
	e->types = types_copy;
	e->last_use = ++use_clock;
	return plan;
}
