/*
 * copy.h - the run: options, counters, the checkpoint state, rejects and the log, shared by the
 * loops (copy_table.c, verify.c, mirror.c) and main.c.
 */
#ifndef COPY_COPY_H
#define COPY_COPY_H

#include "endpoint.h"

#include <pthread.h>
#include <stdatomic.h>

typedef struct Options
{
	const char *from;
	const char *to;
	char	  **tables;			/* --tables: names or fnmatch patterns, case-insensitive */
	int			ntables;
	const char *filter;			/* --filter */
	int			parallel;		/* --parallel */
	bool		resume;
	bool		sync;
	bool		mirror;
	bool		verify;
	bool		verify_only;
	bool		acl;
	bool		dry_run;
	bool		keep_timestamps;
	bool		has_since;
	int64		since_ticks;
	int			skew_seconds;
	double		rate;			/* entities per second, 0: unlimited */
	bool		log_json;
	bool		gzip;
	bool		index_during_load;	/* databases: keep the indexing policy while loading */
	int			batch;			/* entities per batch (capped per destination) */
	long long	sync_small;		/* --sync stops when a pass copies at most this many */
	int			sync_passes;
	const char *state_path;
	const char *rejects_path;
	bool		quiet;
} Options;

extern Options opt;

/* counters of the whole run */
typedef struct Stats
{
	atomic_llong read;
	atomic_llong written;
	atomic_llong rejected;
	atomic_llong deleted;
	atomic_llong differences;	/* --verify */
	atomic_int	tables_done;
	int			tables_total;
	atomic_llong total_known;	/* entities known to come (directory manifests), 0: unknown */
	double		started;
} Stats;

extern Stats stats;

/* ------------------------------------------------------------------ checkpoint state (state.c) */

/* One key range of one table: the unit a worker copies and the checkpoint records. */
typedef struct Segment
{
	char	   *table;
	int			index;			/* within its table */
	char	   *lo_pk;			/* [lo_pk, hi_pk), NULL: open */
	char	   *hi_pk;
	bool		done;
	bool		has_after;		/* written up to and including (after_pk, after_rk) */
	char	   *after_pk;
	char	   *after_rk;
	long long	entities;		/* written by this segment up to the resume point */
	long long	live_entities;	/* written so far (beyond the resume point: not yet durable) */
	double		last_durable;	/* when the segment last made its writes durable (monotonic s) */
	int64		since;			/* incremental: Timestamps >= since (0: all) */
	int64		max_ticks;		/* the highest source Timestamp written */
	WriterPos	pos;			/* a directory's file offsets at the last sync */
} Segment;

/* A table of the run. */
typedef struct TableState
{
	char	   *table;
	char	   *saved_policy;	/* the destination's indexing policy while loading with none */
	int64		hwm;			/* --sync: the next pass copies Timestamps >= hwm - skew */
	bool		complete;		/* every segment done */
	bool		created;		/* the destination table was made by this run */
	int64		pass_started;	/* the clock when the copy that is under way started */
	int			nsegments;
} TableState;

typedef struct State
{
	char	   *path;
	pthread_mutex_t lock;
	char	   *from_display;
	char	   *to_display;
	/* what the checkpoint's run was given, read back by state_load for --resume and --sync */
	bool		has_header;
	char	   *saved_from;
	char	   *saved_to;
	char	   *saved_filter;	/* NULL: none */
	bool		saved_keep_timestamps;
	bool		saved_gzip;
	TableState *tables;
	int			ntables;
	Segment    *segs;
	int			nsegs;
	double		last_save;
} State;

extern State state;

extern bool state_load(const char *path, CopyError *e);	/* false with e set; a missing file: empty */
extern bool state_save(CopyError *e);	/* atomically (rename), under the lock */
extern bool state_save_maybe(CopyError *e);	/* at most every 2 s */
extern TableState *state_table(const char *table, bool create);
extern Segment *state_add_segment(const char *table, int index, const char *lo, const char *hi);
extern void state_reset(void);	/* a fresh run: forget segments, keep the tables' hwm */

/* ------------------------------------------------------------------ rejects and log (report.c) */

/* An entity the destination (or the core, reading the source) refused: one JSON line. */
extern void reject_record(const char *table, const Record *r, const char *raw, size_t raw_len,
						  const CopyError *why);
extern bool rejects_close(void);

/*
 * A secret of FROM or TO (an account key, a SAS, a database password): never written, wherever a
 * message may carry it (an endpoint's error text, a library's), it is replaced by ***.
 */
extern void report_secret(const char *s, size_t len);

extern void log_raw_json(const char *line);	/* a JSON object line as it is (--log json) */
extern void log_msg(const char *fmt,...) __attribute__((format(printf, 1, 2)));
extern void log_error(const char *fmt,...) __attribute__((format(printf, 1, 2)));
/* one line per table: JSON with --log json, text otherwise */
extern void log_table(const char *table, const char *what, long long entities, long long rejected,
					  double seconds);
extern void progress_start(void);
extern void progress_stop(void);

/* ------------------------------------------------------------------ the loops */

/* Copy one segment (copy_table.c): true when done; false with e set (the run stops, resumable). */
extern bool copy_segment(Endpoint *src, Endpoint *dst, Segment *seg, int64 since_ticks,
						 bool replace_expected, long long *copied, CopyError *e);

/* --rate: take n entities' worth of tokens (sleeps) */
extern void rate_take(int n);

/* Compare one table on both sides (verify.c): the number of differing partitions, -1 on error. */
extern long long verify_table(Endpoint *src, Endpoint *dst, const char *table, CopyError *e);

/* Delete at dst what src no longer has (mirror.c): deleted count, -1 on error. */
extern long long mirror_table(Endpoint *src, Endpoint *dst, Endpoint *dst_reader, const char *table,
							  CopyError *e);

/* set on SIGINT/SIGTERM or a worker's failure: the loops stop at their next batch */
extern atomic_bool copy_abort;

/* ticks now (the local clock) */
extern int64 copy_now_ticks(void);

#endif
