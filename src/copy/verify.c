/*
 * verify.c - --verify: every partition's entity count and checksum (record.h) on both sides,
 * compared; the differences listed (copy.h).
 *
 * Both sides are read in key order and summed a partition at a time, so memory does not grow
 * with the table. The two orders can differ where the endpoints order keys differently (the
 * service compares UTF-16 code units, PostgreSQL UTF-8 bytes: characters above U+FFFF against
 * U+E000-U+FFFF): a partition one side has and the other has not met yet waits in a bounded list
 * until the other side shows it or has passed it for good.
 */
#include "copy.h"
#include "mem.h"

#include <stdio.h>
#include <string.h>

#define PENDING_MAX 4096		/* partitions waiting for the other side */
#define LIST_MAX 100			/* differences listed per table (all are counted) */

typedef struct PartSum
{
	char	   *pk;				/* malloc'd */
	uint32		pk_len;
	long long	n;
	Sum128		sum;
} PartSum;

typedef struct Side
{
	Endpoint   *ep;
	Reader	   *reader;
	MemArena	arena;
	bool		eof;
	bool		have_la;		/* a record of the next partition was read ahead */
	PartSum		la;				/* ... its key and checksum (n = 1) */
	PartSum		cur;			/* the partition just summed (valid when cur.pk) */
	PartSum    *pending;
	int			npending;
	long long	entities;
} Side;

typedef struct Verify
{
	const char *table;
	long long	differences;
	long long	listed;
} Verify;

static void
report(Verify *v, const PartSum *s, const PartSum *d)
{
	const PartSum *any = s ? s : d;
	char		hs[33] = "",
				hd[33] = "";

	v->differences++;
	if (v->listed >= LIST_MAX)
		return;
	v->listed++;
	if (s)
		sum128_hex(s->sum, hs);
	if (d)
		sum128_hex(d->sum, hd);
	if (opt.log_json)
	{
		StringInfoData line;

		mem_string_init(&line);
		appendStringInfo(&line, "{\"table\":\"%s\",\"difference\":", v->table);
		entity_append_json_string(&line, any->pk, any->pk_len);
		appendStringInfo(&line, ",\"source_entities\":%lld,\"destination_entities\":%lld,"
						 "\"source_checksum\":\"%s\",\"destination_checksum\":\"%s\"}",
						 s ? s->n : 0, d ? d->n : 0, hs, hd);
		log_raw_json(line.data);
		pfree(line.data);
	}
	else
		log_msg("verify %s: partition \"%.*s\": source %lld entities%s%s, destination %lld entities%s%s", v->table,
				(int) (any->pk_len > 200 ? 200 : any->pk_len), any->pk, s ? s->n : 0, s ? " checksum " : "", hs,
				d ? d->n : 0, d ? " checksum " : "", hd);
}

/* the next partition's summary into side->cur: 1, 0 at the end, -1 on error */
static int
next_partition(Side *side, CopyError *e)
{
	MemArena   *prev;
	Record		r;
	int			rc;

	free(side->cur.pk);
	memset(&side->cur, 0, sizeof(side->cur));
	if (side->have_la)
	{
		side->cur = side->la;
		memset(&side->la, 0, sizeof(side->la));
		side->have_la = false;
	}
	prev = mem_use(&side->arena);
	while (!side->eof)
	{
		Sum128		sum;

		mem_arena_reset(&side->arena);
		if (atomic_load(&copy_abort))
		{
			mem_use(prev);
			return copy_fail(e, "--verify stopped before the end"), -1;
		}
		rc = side->ep->ops->read(side->reader, &r, e);
		if (rc == READ_BAD_RECORD)
		{
			/* the entity is there but cannot be read: a difference */
			mem_use(prev);
			log_msg("verify: an entity that cannot be read: %s", e->msg);
			atomic_fetch_add(&stats.differences, 1);
			mem_use(&side->arena);
			continue;
		}
		if (rc < 0)
		{
			mem_use(prev);
			return -1;
		}
		if (rc == 0)
		{
			side->eof = true;
			break;
		}
		side->entities++;
		sum = record_checksum(&r, opt.keep_timestamps);
		if (side->cur.pk != NULL && record_key_cmp(r.pk, r.pk_len, side->cur.pk, side->cur.pk_len) == 0)
		{
			side->cur.n++;
			sum128_add(&side->cur.sum, sum);
			continue;
		}
		if (side->cur.pk == NULL)
		{
			side->cur.pk = mem_strndup(r.pk, r.pk_len);
			side->cur.pk_len = r.pk_len;
			side->cur.n = 1;
			side->cur.sum = sum;
			continue;
		}
		/* the next partition starts here: keep what is needed of its first record */
		side->la.pk = mem_strndup(r.pk, r.pk_len);
		side->la.pk_len = r.pk_len;
		side->la.n = 1;
		side->la.sum = sum;
		side->have_la = true;
		break;
	}
	mem_arena_reset(&side->arena);
	mem_use(prev);
	return side->cur.pk != NULL;
}

static int
find_pending(const Side *side, const PartSum *p)
{
	for (int i = 0; i < side->npending; i++)
		if (record_key_cmp(side->pending[i].pk, side->pending[i].pk_len, p->pk, p->pk_len) == 0)
			return i;
	return -1;
}

static void
compare(Verify *v, const PartSum *s, const PartSum *d)
{
	if (s->n != d->n || s->sum.lo != d->sum.lo || s->sum.hi != d->sum.hi)
		report(v, s, d);
}

/*
 * A partition of one side (mine) that the other has not shown at its place: matched against the
 * other's waiting ones, else it waits (the oldest waiting one is given up when the list is full).
 */
static void
park(Verify *v, Side *mine, Side *other, bool mine_is_source)
{
	int			k = find_pending(other, &mine->cur);

	if (k >= 0)
	{
		if (mine_is_source)
			compare(v, &mine->cur, &other->pending[k]);
		else
			compare(v, &other->pending[k], &mine->cur);
		free(other->pending[k].pk);
		other->pending[k] = other->pending[--other->npending];
		free(mine->cur.pk);
		memset(&mine->cur, 0, sizeof(mine->cur));
		return;
	}
	if (mine->npending == PENDING_MAX)
	{
		report(v, mine_is_source ? &mine->pending[0] : NULL, mine_is_source ? NULL : &mine->pending[0]);
		free(mine->pending[0].pk);
		memmove(&mine->pending[0], &mine->pending[1], sizeof(PartSum) * (PENDING_MAX - 1));
		mine->npending--;
	}
	if (mine->pending == NULL)
		mine->pending = mem_alloc(sizeof(PartSum) * PENDING_MAX);
	mine->pending[mine->npending++] = mine->cur;
	memset(&mine->cur, 0, sizeof(mine->cur));
}

long long
verify_table(Endpoint *src, Endpoint *dst, const char *table, CopyError *e)
{
	Side		s = {0},
				d = {0};
	ReadSpec	rs = {0};
	Verify		v = {.table = table};
	int			rs_rc = 0,
				rd_rc = 0;
	bool		ok = true;

	rs.table = table;
	rs.filter = opt.filter;
	s.ep = src;
	d.ep = dst;
	mem_use(&s.arena);
	s.reader = src->ops->open_reader(src, &rs, e);
	mem_use(NULL);
	if (s.reader == NULL)
		return -1;
	rs.filter = NULL;			/* the destination holds what the filter let through */
	mem_use(&d.arena);
	d.reader = dst->ops->open_reader(dst, &rs, e);
	mem_use(NULL);
	if (d.reader == NULL)
	{
		src->ops->close_reader(s.reader);
		return -1;
	}
	rs_rc = next_partition(&s, e);
	if (rs_rc >= 0)
		rd_rc = next_partition(&d, e);
	while (rs_rc > 0 || rd_rc > 0)
	{
		int			c;

		if (rs_rc < 0 || rd_rc < 0)
			break;
		c = rs_rc == 0 ? 1 : rd_rc == 0 ? -1 : record_key_cmp(s.cur.pk, s.cur.pk_len, d.cur.pk, d.cur.pk_len);
		if (c == 0)
		{
			compare(&v, &s.cur, &d.cur);
			rs_rc = next_partition(&s, e);
			if (rs_rc >= 0)
				rd_rc = next_partition(&d, e);
		}
		else if (c < 0)
		{
			park(&v, &s, &d, true);
			rs_rc = next_partition(&s, e);
		}
		else
		{
			park(&v, &d, &s, false);
			rd_rc = next_partition(&d, e);
		}
	}
	if (rs_rc < 0 || rd_rc < 0)
		ok = false;
	else
	{
		for (int i = 0; i < s.npending; i++)
			report(&v, &s.pending[i], NULL);
		for (int i = 0; i < d.npending; i++)
			report(&v, NULL, &d.pending[i]);
	}
	mem_use(&s.arena);
	src->ops->close_reader(s.reader);
	mem_use(&d.arena);
	dst->ops->close_reader(d.reader);
	mem_use(NULL);
	for (int i = 0; i < s.npending; i++)
		free(s.pending[i].pk);
	for (int i = 0; i < d.npending; i++)
		free(d.pending[i].pk);
	free(s.pending);
	free(d.pending);
	free(s.cur.pk);
	free(d.cur.pk);
	free(s.la.pk);
	free(d.la.pk);
	mem_arena_free(&s.arena);
	mem_arena_free(&d.arena);
	if (!ok)
		return -1;
	if (v.differences > v.listed)
		log_msg("verify %s: %lld more differing partitions not listed", table, v.differences - v.listed);
	log_table(table, v.differences ? "DIFFERS" : "verified", s.entities, v.differences, 0);
	return v.differences;
}
