/*
 * copy_table.c - copy one segment of a table (copy.h): read in key order, cut into batches of one
 * partition, write each, split a refused batch and write its entities alone (those refused again
 * go to the rejects file), and checkpoint: after a batch is durable at the destination, the
 * segment's resume point moves to its last key.
 *
 * Memory: a record is read into the scratch arena (the core's palloc, reset after every record)
 * and cloned into the batch arena, reset once the batch is written; so a table of any size takes
 * one batch of memory (at most opt.batch entities, at most BATCH_BYTES of them).
 */
#include "copy.h"
#include "mem.h"
#include "retry.h"

#include <string.h>
#include <time.h>

#define BATCH_BYTES (3 * 1024 * 1024)	/* under the service's 4 MiB $batch body, with the JSON's growth */

typedef struct Batch
{
	Record	   *recs;
	int			n;
	int			cap;
	size_t		bytes;
	MemArena	arena;
} Batch;

static pthread_mutex_t rate_lock = PTHREAD_MUTEX_INITIALIZER;
static double rate_tokens;
static double rate_last;

void
rate_take(int n)
{
	double		wait = 0;

	if (opt.rate <= 0)
		return;
	pthread_mutex_lock(&rate_lock);
	{
		double		now = retry_now();

		if (rate_last == 0)
		{
			rate_last = now;
			rate_tokens = opt.rate < 1 ? 1 : opt.rate / 10;	/* a small burst */
		}
		rate_tokens += (now - rate_last) * opt.rate;
		if (rate_tokens > (opt.rate < 1 ? 1 : opt.rate))
			rate_tokens = opt.rate < 1 ? 1 : opt.rate;
		rate_last = now;
		rate_tokens -= n;
		if (rate_tokens < 0)
			wait = -rate_tokens / opt.rate;
	}
	pthread_mutex_unlock(&rate_lock);
	if (wait > 0)
	{
		struct timespec ts = {(time_t) wait, (long) ((wait - (time_t) wait) * 1e9)};

		while (nanosleep(&ts, &ts) != 0)
			;
	}
}

static void *
arena_copy(const void *p, size_t n)
{
	void	   *q = palloc(n ? n : 1);

	memcpy(q, p, n);
	return q;
}

/* the record into the batch (its arena is the current one) */
static void
batch_add(Batch *b, const Record *r)
{
	Record	   *c;

	if (b->n == b->cap)
	{
		b->cap = b->cap ? b->cap * 2 : 128;
		b->recs = mem_realloc(b->recs, sizeof(Record) * b->cap);
	}
	c = &b->recs[b->n++];
	*c = *r;
	c->pk = arena_copy(r->pk, r->pk_len);
	c->rk = arena_copy(r->rk, r->rk_len);
	if (r->body)
		c->body = arena_copy(r->body, r->body_len);
	b->bytes += r->pk_len + r->rk_len + r->body_len + 64;
}

/* Write the batch; a refused one entity by entity. False: the destination failed (stop). */
static bool
flush(Endpoint *dst, Segment *seg, Batch *b, const WriteSpec *base_spec, MemArena *scratch, bool final,
	  long long *copied, CopyError *e)
{
	WriteSpec	spec = *base_spec;
	WriteResult res;
	bool		checkpoint_due;
	MemArena   *prev;

	if (b->n == 0)
		return true;
	rate_take(b->n);
	/*
	 * Every 2 s (and at the end) a batch is made durable and the segment's resume point moves to
	 * its last key. Only then: the checkpoint file holds every segment's resume point, and another
	 * worker's save must not record a point this one has not made durable yet.
	 */
	checkpoint_due = final || retry_now() - seg->last_durable >= 2.0;
	spec.durable = checkpoint_due;
	prev = mem_use(scratch);
	res = dst->ops->write_batch(dst, &spec, b->recs, b->n, e);
	mem_arena_reset(scratch);
	if (res == WRITE_REFUSED)
	{
		/* each entity alone: those the destination takes go in, the others are rejects */
		for (int i = 0; i < b->n; i++)
		{
			CopyError	one = {{0}};

			res = dst->ops->write_batch(dst, &spec, &b->recs[i], 1, &one);
			mem_arena_reset(scratch);
			if (res == WRITE_REFUSED)
			{
				mem_use(prev);
				reject_record(seg->table, &b->recs[i], NULL, 0, &one);
				mem_use(scratch);
			}
			else if (res == WRITE_FAILED)
			{
				*e = one;
				break;
			}
			else
				atomic_fetch_add(&stats.written, 1);
		}
	}
	else if (res == WRITE_OK)
		atomic_fetch_add(&stats.written, b->n);
	mem_use(prev);
	if (res == WRITE_FAILED)
		return false;
	pthread_mutex_lock(&state.lock);
	seg->live_entities += b->n;
	for (int i = 0; i < b->n; i++)
		if (b->recs[i].ticks > seg->max_ticks)
			seg->max_ticks = b->recs[i].ticks;
	pthread_mutex_unlock(&state.lock);
	*copied += b->n;
	if (checkpoint_due)
	{
		WriterPos	pos = seg->pos;

		if (dst->ops->sync_table && !dst->ops->sync_table(dst, seg->table, &pos, e))
			return false;
		pthread_mutex_lock(&state.lock);
		free(seg->after_pk);
		free(seg->after_rk);
		seg->after_pk = mem_strndup(b->recs[b->n - 1].pk, b->recs[b->n - 1].pk_len);
		seg->after_rk = mem_strndup(b->recs[b->n - 1].rk, b->recs[b->n - 1].rk_len);
		seg->has_after = true;
		seg->entities = seg->live_entities;
		seg->pos = pos;
		seg->last_durable = retry_now();
		pthread_mutex_unlock(&state.lock);
		if (!final && !state_save(e))
			return false;
	}
	b->n = 0;
	b->bytes = 0;
	mem_arena_reset(&b->arena);
	return true;
}

bool
copy_segment(Endpoint *src, Endpoint *dst, Segment *seg, int64 since_ticks, bool replace_expected,
			 long long *copied, CopyError *e)
{
	ReadSpec	rs = {0};
	WriteSpec	ws = {0};
	Reader	   *reader;
	Batch		b = {0};
	MemArena	scratch = {0};
	MemArena   *prev;
	bool		ok = true;
	int			max_batch = opt.batch;

	*copied = 0;
	seg->live_entities = seg->entities;
	seg->last_durable = retry_now();
	rs.table = seg->table;
	rs.filter = opt.filter;
	rs.lo_pk = seg->lo_pk;
	rs.hi_pk = seg->hi_pk;
	rs.since_ticks = since_ticks;
	if (seg->has_after)
	{
		rs.has_after = true;
		rs.after_pk = seg->after_pk;
		rs.after_pk_len = (uint32) strlen(seg->after_pk);
		rs.after_rk = seg->after_rk;
		rs.after_rk_len = (uint32) strlen(seg->after_rk);
	}
	ws.table = seg->table;
	ws.keep_timestamps = opt.keep_timestamps;
	/* a resumed segment may find what it writes there already (written after its checkpoint) */
	ws.replace_expected = replace_expected;
	if (dst->ops->begin_table && !dst->ops->begin_table(dst, seg->table, seg->has_after ? &seg->pos : NULL, e))
		return false;
	prev = mem_use(&scratch);
	reader = src->ops->open_reader(src, &rs, e);
	mem_use(prev);
	if (reader == NULL)
		return false;
	for (;;)
	{
		Record		r;
		int			rc;

		if (atomic_load(&copy_abort))
		{
			copy_fail(e, "stopped");
			ok = false;
			break;
		}
		mem_use(&scratch);
		rc = src->ops->read(reader, &r, e);
		if (rc == READ_BAD_RECORD)
		{
			/* the source holds an entity this program (the core's rules) cannot read: a reject */
			mem_use(prev);
			reject_record(seg->table, NULL, e->raw, e->raw_len, e);
			memset(e, 0, sizeof(*e));
			mem_arena_reset(&scratch);
			continue;
		}
		if (rc < 0)
		{
			mem_use(prev);
			ok = false;
			break;
		}
		atomic_fetch_add(&stats.read, rc);
		mem_use(&b.arena);
		if (rc == 0 || (b.n > 0 && (b.n >= max_batch || b.bytes + r.body_len > BATCH_BYTES ||
									record_key_cmp(r.pk, r.pk_len, b.recs[0].pk, b.recs[0].pk_len) != 0)))
		{
			mem_use(prev);
			if (!flush(dst, seg, &b, &ws, &scratch, rc == 0, copied, e))
			{
				ok = false;
				break;
			}
			mem_use(&b.arena);
		}
		if (rc == 0)
		{
			mem_use(prev);
			break;
		}
		batch_add(&b, &r);
		mem_use(prev);
		mem_arena_reset(&scratch);
	}
	mem_use(&scratch);
	src->ops->close_reader(reader);
	mem_use(prev);
	if (ok)
	{
		/* the last batch was durable (flush's final), its key the resume point */
		if (dst->ops->end_table && !dst->ops->end_table(dst, seg->table, e))
			ok = false;
		pthread_mutex_lock(&state.lock);
		seg->done = ok;
		pthread_mutex_unlock(&state.lock);
		if (ok && !state_save(e))
			ok = false;
	}
	mem_arena_free(&scratch);
	mem_arena_free(&b.arena);
	free(b.recs);
	return ok;
}
