/*
 * mirror.c - --mirror: entities deleted at the source are deleted at the destination, found by
 * comparing the two key sets in key order (copy.h). Before a key is deleted the source is asked
 * for it once more (a point read; a directory, which has none, is read once for up to 1000 such
 * keys): where the two sides order keys differently (UTF-16 against UTF-8 order, see verify.c)
 * the merge can pass a key both have, and nothing the source has may be deleted for that.
 */
#include "copy.h"
#include "mem.h"

#include <string.h>

#define DELETE_BATCH 100
#define CONFIRM_BATCH 1000		/* candidates asked about at once */

typedef struct Keys
{
	Endpoint   *ep;
	Reader	   *reader;
	MemArena	arena;
	Record		cur;
	int			rc;				/* 1: cur holds a key; 0: the end; -1 */
} Keys;

static int
advance(Keys *k, CopyError *e)
{
	MemArena   *prev = mem_use(&k->arena);

	do
	{
		mem_arena_reset(&k->arena);
		if (atomic_load(&copy_abort))
		{
			k->rc = -1;
			copy_fail(e, "--mirror stopped before the end");
			break;
		}
		k->rc = k->ep->ops->read(k->reader, &k->cur, e);
	} while (k->rc == READ_BAD_RECORD);
	mem_use(prev);
	return k->rc;
}

typedef struct Deletes
{
	Record		recs[DELETE_BATCH];
	char	   *keys[DELETE_BATCH * 2];
	int			n;
} Deletes;

static bool
flush_deletes(Endpoint *dst, const char *table, Deletes *d, CopyError *e)
{
	bool		ok = d->n == 0 || dst->ops->delete_keys(dst, table, d->recs, d->n, e);

	if (ok)
		atomic_fetch_add(&stats.deleted, d->n);
	for (int i = 0; i < d->n * 2; i++)
		free(d->keys[i]);
	d->n = 0;
	return ok;
}

/* Keys the destination has and the source (probably) not, waiting to be confirmed absent. */
typedef struct Candidates
{
	Record		recs[CONFIRM_BATCH];	/* keys malloc'd */
	bool		found[CONFIRM_BATCH];
	int			n;
} Candidates;

/* a confirmed key into the deletes (of one partition at a time); the key's strings move there */
static bool
delete_key(Endpoint *dst, const char *table, Record *r, Deletes *d, long long *deleted, CopyError *e)
{
	if (d->n > 0 && (d->n == DELETE_BATCH || strcmp(d->keys[0], r->pk) != 0) && !flush_deletes(dst, table, d, e))
		return false;
	d->keys[d->n * 2] = (char *) r->pk;
	d->keys[d->n * 2 + 1] = (char *) r->rk;
	d->recs[d->n] = *r;
	d->n++;
	r->pk = r->rk = NULL;
	(*deleted)++;
	return true;
}

/*
 * Ask the source for the candidates once more (a point read each, or one read of a directory for
 * all of them), and delete those it does not have.
 */
static bool
confirm(Endpoint *src, Endpoint *dst, const char *table, Candidates *c, Deletes *d, long long *deleted,
		CopyError *e)
{
	bool		ok = true;

	if (c->n == 0)
		return true;
	memset(c->found, 0, sizeof(c->found));
	if (src->ops->exists_many)
		ok = src->ops->exists_many(src, table, c->recs, c->n, c->found, e);
	else
		for (int i = 0; i < c->n && ok; i++)
		{
			int			there = src->ops->exists(src, table, c->recs[i].pk, c->recs[i].rk, e);

			ok = there >= 0;
			c->found[i] = there > 0;
		}
	for (int i = 0; i < c->n && ok; i++)
		if (!c->found[i])
			ok = delete_key(dst, table, &c->recs[i], d, deleted, e);
	for (int i = 0; i < c->n; i++)
	{
		free((char *) c->recs[i].pk);
		free((char *) c->recs[i].rk);
	}
	c->n = 0;
	return ok;
}

/* a key the destination has and the source (probably) not */
static bool
candidate(Endpoint *src, Endpoint *dst, const char *table, const Record *r, Candidates *c, Deletes *d,
		  long long *deleted, CopyError *e)
{
	c->recs[c->n] = (Record) {.pk = mem_strndup(r->pk, r->pk_len), .pk_len = r->pk_len,
	.rk = mem_strndup(r->rk, r->rk_len), .rk_len = r->rk_len};
	c->n++;
	return c->n < CONFIRM_BATCH || confirm(src, dst, table, c, d, deleted, e);
}

long long
mirror_table(Endpoint *src, Endpoint *dst, Endpoint *dst_reader, const char *table, CopyError *e)
{
	Keys		s = {.ep = src},
				t = {.ep = dst_reader};
	ReadSpec	rs = {.table = table, .keys_only = true, .filter = opt.filter};
	Deletes		d = {.n = 0};
	Candidates *cand;
	long long	deleted = 0;
	bool		ok = true;

	if ((src->ops->exists == NULL && src->ops->exists_many == NULL) || dst->ops->delete_keys == NULL)
		return copy_fail(e, "--mirror needs a destination that deletes (a Table endpoint or a database)"), -1;
	cand = mem_alloc(sizeof(Candidates));
	cand->n = 0;
	mem_use(&s.arena);
	s.reader = src->ops->open_reader(src, &rs, e);
	mem_use(NULL);
	if (s.reader == NULL)
		return -1;
	rs.filter = NULL;
	mem_use(&t.arena);
	t.reader = dst_reader->ops->open_reader(dst_reader, &rs, e);
	mem_use(NULL);
	if (t.reader == NULL)
	{
		src->ops->close_reader(s.reader);
		return -1;
	}
	advance(&s, e);
	if (s.rc >= 0)
		advance(&t, e);
	while (ok && s.rc >= 0 && t.rc > 0)
	{
		int			c = 1;

		if (s.rc > 0)
		{
			c = record_key_cmp(s.cur.pk, s.cur.pk_len, t.cur.pk, t.cur.pk_len);
			if (c == 0)
				c = record_key_cmp(s.cur.rk, s.cur.rk_len, t.cur.rk, t.cur.rk_len);
		}
		if (c == 0)
		{
			advance(&s, e);
			if (s.rc >= 0)
				advance(&t, e);
		}
		else if (c < 0)
			advance(&s, e);		/* the destination lacks it: the copy brings it */
		else
		{
			ok = candidate(src, dst, table, &t.cur, cand, &d, &deleted, e);
			advance(&t, e);
		}
	}
	if (s.rc < 0 || t.rc < 0)
		ok = false;
	if (ok && !confirm(src, dst, table, cand, &d, &deleted, e))
		ok = false;
	if (ok && !flush_deletes(dst, table, &d, e))
		ok = false;
	for (int i = 0; i < cand->n; i++)
	{
		free((char *) cand->recs[i].pk);
		free((char *) cand->recs[i].rk);
	}
	free(cand);
	for (int i = 0; i < d.n * 2; i++)
		free(d.keys[i]);
	mem_use(&s.arena);
	src->ops->close_reader(s.reader);
	mem_use(&t.arena);
	dst_reader->ops->close_reader(t.reader);
	mem_use(NULL);
	mem_arena_free(&s.arena);
	mem_arena_free(&t.arena);
	return ok ? deleted : -1;
}
