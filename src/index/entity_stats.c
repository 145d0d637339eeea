/*
 * entity_stats.c - the planner's knowledge of entity columns: ANALYZE statistics over the entity
 * index's keys (tablestore.entity_typanalyze) and the selectivity of entity @~ property_filter
 * (tablestore.entity_filter_sel), so that the planner reads a selective filter from the entity
 * index and still walks the primary key for one that most entities match.
 *
 * ANALYZE, for each sampled entity, takes the key of every property (index_key.h) and keeps:
 *   - the most common keys with their frequencies (the fraction of entities that have the key),
 *     found by lossy counting as tsvector's statistics do: STATISTIC_KIND_MCELEM, the keys as
 *     bytea in key order, stanumbers the frequencies then the least and largest frequency and 0;
 *   - a histogram of the other keys (a uniform sample of key occurrences, sorted, 10 x the
 *     statistics target bounds): TS_STATISTIC_KIND_KEY_HISTOGRAM, stanumbers = {how many such
 *     keys an entity has on average, the frequency of one such key, keys per entity}.
 * A comparison's selectivity is the sum over its key ranges (one per property type: an entity
 * has at most one key per property name, so the ranges' entities are disjoint) of the common
 * keys in the range that satisfy it plus the histogram's share of the range, interpolated on
 * the key bytes inside a bucket (linear for numbers, whose keys are big-endian).
 */
#include "entity.h"
#include "entity_gin.h"

#include "index_key.h"
#include "property_filter.h"

#include "access/htup_details.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_statistic.h"
#include "catalog/pg_type.h"
#include "commands/vacuum.h"
#include "common/hashfn.h"
#include "common/pg_prng.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/selfuncs.h"

#define TS_STATISTIC_KIND_KEY_HISTOGRAM 26001

PG_FUNCTION_INFO_V1(tablestore_entity_typanalyze);
PG_FUNCTION_INFO_V1(tablestore_entity_filter_sel);

/* ---------- ANALYZE ---------- */

typedef struct KeyRef
{
	const uint8 *p;
	uint32		len;
} KeyRef;

typedef struct KeyCount
{
	KeyRef		key;			/* the hash key: the bytes are in the analyze context */
	int			freq;
	int			delta;
} KeyCount;

static uint32
keyref_hash(const void *key, Size keysize)
{
	const KeyRef *k = key;

	return DatumGetUInt32(hash_any(k->p, (int) k->len));
}

static int
keyref_match(const void *a, const void *b, Size keysize)
{
	const KeyRef *x = a,
			   *y = b;

	return x->len == y->len ? memcmp(x->p, y->p, x->len) : 1;
}

static int
keyref_cmp(const void *a, const void *b)
{
	const KeyRef *x = a,
			   *y = b;

	return index_key_cmp(x->p, x->len, y->p, y->len);
}

static int
keycount_by_freq_desc(const void *a, const void *b)
{
	int			x = (*(KeyCount *const *) a)->freq,
				y = (*(KeyCount *const *) b)->freq;

	return (x < y) - (x > y);
}

static const uint8 *
copy_key(MemoryContext cxt, const KeyRef *k)
{
	uint8	   *p = MemoryContextAlloc(cxt, Max(k->len, 1));

	memcpy(p, k->p, k->len);
	return p;
}

static bool
is_common(const KeyRef *common, int ncommon, const KeyRef *k)
{
	return ncommon > 0 && bsearch(k, common, ncommon, sizeof(KeyRef), keyref_cmp) != NULL;
}

/* One statistics slot of index keys (bytea values). */
static void
set_key_slot(VacAttrStats *stats, int slot, int16 kind, Oid op, Datum *values, int nvalues, float4 *numbers, int nnumbers)
{
	stats->stakind[slot] = kind;
	stats->staop[slot] = op;
	stats->stacoll[slot] = InvalidOid;
	stats->stavalues[slot] = values;
	stats->numvalues[slot] = nvalues;
	stats->stanumbers[slot] = numbers;
	stats->numnumbers[slot] = nnumbers;
	stats->statypid[slot] = BYTEAOID;
	stats->statyplen[slot] = -1;
	stats->statypbyval[slot] = false;
	stats->statypalign[slot] = TYPALIGN_INT;
}

static void
compute_entity_stats(VacAttrStats *stats, AnalyzeAttrFetchFunc fetchfunc, int samplerows, double totalrows)
{
	int			target = stats->attr->attstattarget;
	int			num_mcelem = target * 10;
	int			num_bins = target * 10;
	int			reservoir_size = num_bins * 30;
	int			bucket_width = (num_mcelem + 10) * 1000 / 7;
	int			b_current = 1;
	int64		key_no = 0;
	int			nonnull = 0,
				nulls = 0;
	double		total_width = 0;
	HASHCTL		hctl;
	HTAB	   *counts;
	KeyRef	   *reservoir = palloc(sizeof(KeyRef) * reservoir_size);
	int			nreservoir = 0;
	MemoryContext keys_cxt = AllocSetContextCreate(CurrentMemoryContext, "tablestore analyze keys", ALLOCSET_DEFAULT_SIZES);
	MemoryContext old;
	uint32		kbuf_size = 512;
	uint8	   *kbuf = palloc(kbuf_size);

	hctl.keysize = sizeof(KeyRef);
	hctl.entrysize = sizeof(KeyCount);
	hctl.hash = keyref_hash;
	hctl.match = keyref_match;
	hctl.hcxt = CurrentMemoryContext;
	counts = hash_create("tablestore analyze key counts", num_mcelem, &hctl,
						 HASH_ELEM | HASH_FUNCTION | HASH_COMPARE | HASH_CONTEXT);

	for (int row = 0; row < samplerows; row++)
	{
		bool		isnull;
		Datum		d = fetchfunc(stats, row, &isnull);
		Entity	   *e;
		EntityView	v;

		vacuum_delay_point();
		if (isnull)
		{
			nulls++;
			continue;
		}
		nonnull++;
		total_width += VARSIZE_ANY(DatumGetPointer(d));
		e = DatumGetEntityPP(d);
		entity_view_of(&v, e);
		for (uint32 i = 0; i < v.nprops; i++)
		{
			PropRef		p;
			KeyRef		k;
			KeyCount   *kc;
			bool		found;

			entity_view_prop(&v, i, &p);
			if (index_key_max_size(&p) > kbuf_size)
			{
				kbuf_size = Max(index_key_max_size(&p), kbuf_size * 2);
				kbuf = repalloc(kbuf, kbuf_size);
			}
			k.p = kbuf;
			k.len = index_key_encode(&p, kbuf);

			/* the most common keys: lossy counting (the entry keeps a copy of its key) */
			kc = hash_search(counts, &k, HASH_ENTER, &found);
			if (found)
				kc->freq++;
			else
			{
				kc->key.p = copy_key(keys_cxt, &k);
				kc->freq = 1;
				kc->delta = b_current - 1;
			}
			/* the other keys: a uniform sample of every occurrence (reservoir), copies too */
			if (nreservoir < reservoir_size)
			{
				reservoir[nreservoir].p = copy_key(keys_cxt, &k);
				reservoir[nreservoir++].len = k.len;
			}
			else
			{
				uint64		r = pg_prng_uint64_range(&pg_global_prng_state, 0, (uint64) key_no);

				if (r < (uint64) reservoir_size)
				{
					pfree((void *) reservoir[r].p);
					reservoir[r].p = copy_key(keys_cxt, &k);
					reservoir[r].len = k.len;
				}
			}
			key_no++;
			if (key_no % bucket_width == 0)
			{
				HASH_SEQ_STATUS seq;
				KeyCount   *c;

				hash_seq_init(&seq, counts);
				while ((c = hash_seq_search(&seq)) != NULL)
				{
					if (c->freq + c->delta <= b_current)
					{
						const uint8 *kp = c->key.p;

						(void) hash_search(counts, &c->key, HASH_REMOVE, NULL);
						pfree((void *) kp);
					}
				}
				b_current++;
			}
		}
		if ((Pointer) e != DatumGetPointer(d))
			pfree(e);
	}

	if (nonnull == 0)
	{
		stats->stats_valid = true;
		stats->stanullfrac = 1.0;
		stats->stawidth = 0;
		stats->stadistinct = 0.0;
		MemoryContextDelete(keys_cxt);
		return;
	}
	stats->stats_valid = true;
	stats->stanullfrac = (float4) ((double) nulls / samplerows);
	stats->stawidth = (int32) (total_width / nonnull);
	stats->stadistinct = -1.0f * (1.0f - stats->stanullfrac);	/* entities are mostly distinct */
	if (key_no == 0)
	{
		MemoryContextDelete(keys_cxt);
		return;
	}

	{
		/* the most common keys: those counted often enough to be certain, the most frequent first */
		int			cutoff = (int) (9 * key_no / bucket_width);
		long		n = hash_get_num_entries(counts);
		KeyCount  **all = palloc(sizeof(KeyCount *) * Max(n, 1));
		HASH_SEQ_STATUS seq;
		KeyCount   *c;
		int			k = 0,
					ncommon;
		KeyRef	   *common;
		float4		minfreq = 1,
					maxfreq = 0;
		int			slot = 0;
		int			nrest = 0,
					distinct = 0,
					singles = 0;
		KeyRef	   *rest = palloc(sizeof(KeyRef) * Max(nreservoir, 1));
		double		keys_per_entity = (double) key_no / nonnull;
		double		mass,
					rest_freq;

		hash_seq_init(&seq, counts);
		while ((c = hash_seq_search(&seq)) != NULL)
			if (c->freq > Max(cutoff, 1))
				all[k++] = c;
		qsort(all, k, sizeof(KeyCount *), keycount_by_freq_desc);
		ncommon = Min(k, num_mcelem);
		common = palloc(sizeof(KeyRef) * Max(ncommon, 1));
		for (int i = 0; i < ncommon; i++)
			common[i] = all[i]->key;
		qsort(common, ncommon, sizeof(KeyRef), keyref_cmp);
		if (ncommon > 0)
		{
			Datum	   *values;
			float4	   *numbers;

			old = MemoryContextSwitchTo(stats->anl_context);
			values = palloc(sizeof(Datum) * ncommon);
			numbers = palloc(sizeof(float4) * (ncommon + 3));
			for (int i = 0; i < ncommon; i++)
			{
				bool		found;
				KeyCount   *kc = hash_search(counts, &common[i], HASH_FIND, &found);

				values[i] = entity_gin_key_datum(common[i].p, common[i].len);
				numbers[i] = (float4) ((double) kc->freq / nonnull);
				minfreq = Min(minfreq, numbers[i]);
				maxfreq = Max(maxfreq, numbers[i]);
			}
			numbers[ncommon] = minfreq;
			numbers[ncommon + 1] = maxfreq;
			numbers[ncommon + 2] = 0;
			MemoryContextSwitchTo(old);
			set_key_slot(stats, slot++, STATISTIC_KIND_MCELEM, ByteaEqualOperator, values, ncommon, numbers, ncommon + 3);
		}

		/* the other keys: the sample without the common ones, sorted */
		for (int i = 0; i < nreservoir; i++)
			if (!is_common(common, ncommon, &reservoir[i]))
				rest[nrest++] = reservoir[i];
		qsort(rest, nrest, sizeof(KeyRef), keyref_cmp);
		for (int i = 0; i < nrest; i++)
		{
			bool		first = i == 0 || keyref_cmp(&rest[i - 1], &rest[i]) != 0;
			bool		last = i == nrest - 1 || keyref_cmp(&rest[i], &rest[i + 1]) != 0;

			distinct += first;
			singles += first && last;
		}
		mass = nreservoir > 0 ? keys_per_entity * nrest / nreservoir : 0;
		if (nrest >= 2)
		{
			/* distinct keys in the table (Haas and Stokes' Duj1, as ANALYZE estimates n_distinct) */
			double		N = Max(mass * totalrows, nrest);
			double		D = (double) nrest * distinct / ((nrest - singles) + singles * (double) nrest / N);
			int			nb = Min(num_bins + 1, nrest);
			Datum	   *values;
			float4	   *numbers;

			D = Min(Max(D, distinct), N);
			rest_freq = mass / D;
			if (ncommon == num_mcelem)
				rest_freq = Min(rest_freq, minfreq);
			old = MemoryContextSwitchTo(stats->anl_context);
			values = palloc(sizeof(Datum) * nb);
			for (int i = 0; i < nb; i++)
			{
				int			pos = (int) ((int64) i * (nrest - 1) / (nb - 1));

				values[i] = entity_gin_key_datum(rest[pos].p, rest[pos].len);
			}
			numbers = palloc(sizeof(float4) * 3);
			numbers[0] = (float4) mass;
			numbers[1] = (float4) rest_freq;
			numbers[2] = (float4) keys_per_entity;
			MemoryContextSwitchTo(old);
			set_key_slot(stats, slot, TS_STATISTIC_KIND_KEY_HISTOGRAM, ByteaLessOperator, values, nb, numbers, 3);
		}
	}
	MemoryContextDelete(keys_cxt);
}

/* tablestore.entity_typanalyze(internal) -> bool */
Datum
tablestore_entity_typanalyze(PG_FUNCTION_ARGS)
{
	VacAttrStats *stats = (VacAttrStats *) PG_GETARG_POINTER(0);

	if (stats->attr->attstattarget < 0)
		stats->attr->attstattarget = default_statistics_target;
	stats->compute_stats = compute_entity_stats;
	stats->minrows = 300 * stats->attr->attstattarget;
	PG_RETURN_BOOL(true);
}

/* ---------- selectivity ---------- */

static double
default_selectivity(OdCmp op)
{
	switch (op)
	{
		case CMP_EQ:
			return DEFAULT_EQ_SEL;
		case CMP_NE:
			return 1.0 - DEFAULT_EQ_SEL;
		default:
			return DEFAULT_INEQ_SEL;
	}
}

static const uint8 *
datum_key(Datum d, uint32 *len)
{
	bytea	   *b = DatumGetByteaPP(d);

	*len = VARSIZE_ANY_EXHDR(b);
	return (const uint8 *) VARDATA_ANY(b);
}

/* The first 8 bytes of a key after skip bytes, as a number (zeros past its end). */
static double
key_scalar(const uint8 *k, uint32 len, uint32 skip)
{
	uint64		v = 0;

	for (uint32 i = skip; i < skip + 8; i++)
		v = (v << 8) | (i < len ? k[i] : 0);
	return (double) v;
}

/* Where x falls between the bounds a < x <= b, from 0 to 1, by the bytes after their common prefix. */
static double
interpolate(const uint8 *a, uint32 alen, const uint8 *b, uint32 blen, const uint8 *x, uint32 xlen)
{
	uint32		pre = 0;
	double		va,
				vb,
				vx;

	while (pre < alen && pre < blen && a[pre] == b[pre])
		pre++;
	va = key_scalar(a, alen, pre);
	vb = key_scalar(b, blen, pre);
	vx = key_scalar(x, xlen, pre);
	if (vb <= va)
		return 0.5;
	return Min(Max((vx - va) / (vb - va), 0.0), 1.0);
}

/* The share of the histogram's keys below x (x itself below, with inclusive). */
static double
histogram_position(const AttStatsSlot *h, const uint8 *x, uint32 xlen, bool inclusive)
{
	int			lo = 0,
				hi = h->nvalues;
	uint32		alen,
				blen;
	const uint8 *a,
			   *b;

	/* the first bound above x (or at x, unless inclusive) */
	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;
		uint32		mlen;
		const uint8 *m = datum_key(h->values[mid], &mlen);
		int			c = index_key_cmp(m, mlen, x, xlen);

		if (c < 0 || (c == 0 && inclusive))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return 0.0;
	if (lo == h->nvalues)
		return 1.0;
	a = datum_key(h->values[lo - 1], &alen);
	b = datum_key(h->values[lo], &blen);
	return (lo - 1 + interpolate(a, alen, b, blen, x, xlen)) / (h->nvalues - 1);
}

static double
range_selectivity(const IndexKeyRange *r, const AttStatsSlot *common, const AttStatsSlot *hist)
{
	double		sel = 0;
	bool		in_common = false;

	if (common != NULL)
	{
		int			lo = 0,
					hi = common->nvalues;

		while (lo < hi)
		{
			int			mid = (lo + hi) / 2;
			uint32		mlen;
			const uint8 *m = datum_key(common->values[mid], &mlen);

			if (index_key_cmp(m, mlen, r->lo, r->lo_len) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (int i = lo; i < common->nvalues; i++)
		{
			uint32		klen;
			const uint8 *k = datum_key(common->values[i], &klen);
			int			t = index_key_range_test(r, k, klen);

			if (t > 0)
				break;
			if (t == 0)
			{
				sel += common->numbers[i];
				in_common |= r->exact;
			}
			if (r->exact)
				break;
		}
	}
	if (hist != NULL && hist->nnumbers >= 3)
	{
		if (r->exact)
		{
			if (!in_common)
				sel += hist->numbers[1];
		}
		else
			sel += hist->numbers[0] * Max(histogram_position(hist, r->hi, r->hi_len, r->hi_incl) -
										  histogram_position(hist, r->lo, r->lo_len, false), 0.0);
	}
	else if (r->exact && !in_common && common != NULL && common->nnumbers >= common->nvalues + 1)
		sel += common->numbers[common->nvalues] / 2;	/* below the least common frequency */
	return sel;
}

/* tablestore.entity_filter_sel(internal, oid, internal, int4) -> float8: restriction estimator of @~ */
Datum
tablestore_entity_filter_sel(PG_FUNCTION_ARGS)
{
	PlannerInfo *root = (PlannerInfo *) PG_GETARG_POINTER(0);
	List	   *args = (List *) PG_GETARG_POINTER(2);
	int			varRelid = PG_GETARG_INT32(3);
	VariableStatData vardata;
	Node	   *other;
	bool		varonleft;
	PropFilter	pf;
	IndexKeyRange ranges[INDEX_KEY_MAX_RANGES];
	AttStatsSlot common,
				hist;
	bool		have_common,
				have_hist;
	double		sel = 0;
	int			n;

	if (!get_restriction_variable(root, args, varRelid, &vardata, &other, &varonleft))
		PG_RETURN_FLOAT8(DEFAULT_EQ_SEL);
	if (!varonleft || !IsA(other, Const) || ((Const *) other)->constisnull)
	{
		ReleaseVariableStats(vardata);
		PG_RETURN_FLOAT8(DEFAULT_EQ_SEL);
	}
	property_filter_of(((Const *) other)->constvalue, &pf);
	if (!HeapTupleIsValid(vardata.statsTuple))
	{
		ReleaseVariableStats(vardata);
		PG_RETURN_FLOAT8(default_selectivity(pf.op));
	}
	have_common = get_attstatsslot(&common, vardata.statsTuple, STATISTIC_KIND_MCELEM, InvalidOid,
								   ATTSTATSSLOT_VALUES | ATTSTATSSLOT_NUMBERS);
	have_hist = get_attstatsslot(&hist, vardata.statsTuple, TS_STATISTIC_KIND_KEY_HISTOGRAM, InvalidOid,
								 ATTSTATSSLOT_VALUES | ATTSTATSSLOT_NUMBERS);
	n = index_key_ranges(pf.name, pf.name_len, pf.op, &pf.lit, ranges);
	for (int i = 0; i < n; i++)
		sel += range_selectivity(&ranges[i], have_common ? &common : NULL, have_hist ? &hist : NULL);
	sel *= 1.0 - ((Form_pg_statistic) GETSTRUCT(vardata.statsTuple))->stanullfrac;
	if (have_common)
		free_attstatsslot(&common);
	if (have_hist)
		free_attstatsslot(&hist);
	ReleaseVariableStats(vardata);
	CLAMP_PROBABILITY(sel);
	PG_RETURN_FLOAT8(sel);
}
