/*
 * main.c - tablestore-copy FROM TO [options]: the options, the plan (tables, segments, the
 * checkpoint), the workers, then --acl, --sync passes, --mirror, --verify and the summary.
 * The program's manual is doc/migration.md; --help is its short form.
 */
#include "copy.h"
#include "filter.h"
#include "manifest.h"
#include "mem.h"
#include "retry.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <libpq-fe.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <unistd.h>

#define EXIT_OK 0
#define EXIT_INCOMPLETE 1		/* rejects or differences: the run went through, not everything arrived */
#define EXIT_USAGE 2
#define EXIT_FAILED 3			/* stopped: an endpoint failed or the run was interrupted (--resume goes on) */


static EndpointSpec from_spec,
			to_spec;

static const char *usage_text =
"tablestore-copy copies tables between Table endpoints, tablestore databases and directories.\n"
"\n"
"Usage: tablestore-copy FROM TO [options]\n"
"\n"
"FROM and TO are each one of\n"
"  a Table endpoint's connection string  'AccountName=a;AccountKey=k;TableEndpoint=https://...'\n"
"                                        'TableEndpoint=https://...;SharedAccessSignature=sv=...'\n"
"                                        'UseDevelopmentStorage=true'\n"
"  a tablestore database                 postgres://user@host/db  or  'host=... dbname=...'\n"
"  a directory                           one JSON Lines file per table and manifest.jsonl\n"
"\n"
"Options:\n"
"  --tables LIST          tables to copy: names or patterns (* ?), comma-separated, any letter case\n"
"  --filter ODATA         copy the entities that match this $filter (read at the source)\n"
"  --parallel N           tables and key ranges at once (default 4)\n"
"  --batch N              entities per batch (default 100 to a Table endpoint, 1000 otherwise)\n"
"  --keep-timestamps      into a database: the source's Timestamps (so its ETags) are kept; the\n"
"                         destination table's owner only\n"
"  --resume               go on from the checkpoint of a run that stopped\n"
"  --since TIME           only entities with Timestamp >= TIME (UTC, 2024-05-06T07:08:09Z)\n"
"  --sync                 incremental: entities changed since the previous run, less --skew;\n"
"                         repeated until a pass copies at most --sync-small entities\n"
"  --skew SECONDS         clock skew and longest write allowed for --sync (default 300)\n"
"  --sync-small N         (default 1000)   --sync-passes N  at most this many passes (default 5)\n"
"  --mirror               delete at the destination what the source no longer has\n"
"  --verify               afterwards, compare every partition's count and checksum on both sides\n"
"  --verify-only          compare, copy nothing\n"
"  --acl                  copy the tables' stored access policies\n"
"  --dry-run              list what would be copied, write nothing\n"
"  --rate N               at most N entities per second\n"
"  --no-gzip              a directory destination's files uncompressed (default gzip)\n"
"  --index-during-load    a new database table keeps its indexing policy while it is loaded\n"
"                         (default: 'none' during the load, the policy restored at the end)\n"
"  --state FILE           the checkpoint (default: tablestore-copy-<hash of FROM and TO>.state)\n"
"  --rejects FILE         entities the destination refused (default: tablestore-copy-rejects.jsonl)\n"
"  --retries N            attempts per request before giving up (default 12)\n"
"  --retry-seconds S      time per request before giving up (default 600)\n"
"  --log json|text        a JSON line per table and message on stdout (default: text on stderr)\n"
"  --quiet                only errors\n"
"  --help, --version\n"
"\n"
"Exit status: 0 all copied (and verified), 1 entities rejected or differences found,\n"
"2 usage, 3 stopped (an endpoint failed or the run was interrupted: --resume goes on).\n"
"The manual: doc/migration.md.\n";

static void
usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "tablestore-copy: ");
	fprintf(stderr, fmt, arg ? arg : "");
	fprintf(stderr, "\nTry tablestore-copy --help.\n");
	exit(EXIT_USAGE);
}

static long long
int_arg(const char *name, const char *v, long long lo, long long hi)
{
	char	   *end;
	long long	n;

	if (v == NULL)
		usage_error("%s needs a value", name);
	n = strtoll(v, &end, 10);
	if (*v == '\0' || *end != '\0' || n < lo || n > hi)
	{
		char		buf[128];

		snprintf(buf, sizeof(buf), "%s takes a whole number from %lld to %lld", name, lo, hi);
		usage_error("%s", buf);
	}
	return n;
}

static void
split_tables(const char *list)
{
	char	   *copy = mem_strdup(list),
			   *save = NULL;

	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
	{
		while (*tok == ' ')
			tok++;
		if (*tok == '\0')
			continue;
		opt.tables = mem_realloc(opt.tables, sizeof(char *) * (opt.ntables + 1));
		opt.tables[opt.ntables++] = mem_strdup(tok);
	}
	free(copy);
	if (opt.ntables == 0)
		usage_error("--tables names no table%s", NULL);
}

static void
parse_args(int argc, char **argv)
{
	int			positional = 0;

	for (int i = 1; i < argc; i++)
	{
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

#define TAKES_VALUE() do { if (v == NULL) usage_error("%s needs a value", a); i++; } while (0)
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
		{
			fputs(usage_text, stdout);
			exit(EXIT_OK);
		}
		else if (strcmp(a, "--version") == 0)
		{
			printf("tablestore-copy %s\n", TS_VERSION);
			exit(EXIT_OK);
		}
		else if (strcmp(a, "--tables") == 0)
		{
			TAKES_VALUE();
			split_tables(v);
		}
		else if (strcmp(a, "--filter") == 0)
		{
			TAKES_VALUE();
			opt.filter = v;
		}
		else if (strcmp(a, "--parallel") == 0)
			opt.parallel = (int) int_arg(a, (i++, v), 1, 64);
		else if (strcmp(a, "--batch") == 0)
			opt.batch = (int) int_arg(a, (i++, v), 1, 100000);
		else if (strcmp(a, "--keep-timestamps") == 0)
			opt.keep_timestamps = true;
		else if (strcmp(a, "--resume") == 0)
			opt.resume = true;
		else if (strcmp(a, "--since") == 0)
		{
			int64		t;

			TAKES_VALUE();
			if (edm_parse_datetime(v, strlen(v), &t) != EDM_OK)
				usage_error("--since takes a UTC time such as 2024-05-06T07:08:09Z, not \"%s\"", v);
			opt.has_since = true;
			opt.since_ticks = t;
		}
		else if (strcmp(a, "--sync") == 0)
			opt.sync = true;
		else if (strcmp(a, "--skew") == 0)
			opt.skew_seconds = (int) int_arg(a, (i++, v), 0, 86400);
		else if (strcmp(a, "--sync-small") == 0)
			opt.sync_small = int_arg(a, (i++, v), 0, 1LL << 40);
		else if (strcmp(a, "--sync-passes") == 0)
			opt.sync_passes = (int) int_arg(a, (i++, v), 1, 100);
		else if (strcmp(a, "--mirror") == 0)
			opt.mirror = true;
		else if (strcmp(a, "--verify") == 0)
			opt.verify = true;
		else if (strcmp(a, "--verify-only") == 0)
			opt.verify = opt.verify_only = true;
		else if (strcmp(a, "--acl") == 0)
			opt.acl = true;
		else if (strcmp(a, "--dry-run") == 0)
			opt.dry_run = true;
		else if (strcmp(a, "--rate") == 0)
			opt.rate = (double) int_arg(a, (i++, v), 1, 100000000);
		else if (strcmp(a, "--gzip") == 0)
			opt.gzip = true;
		else if (strcmp(a, "--no-gzip") == 0)
			opt.gzip = false;
		else if (strcmp(a, "--index-during-load") == 0)
			opt.index_during_load = true;
		else if (strcmp(a, "--state") == 0)
		{
			TAKES_VALUE();
			opt.state_path = v;
		}
		else if (strcmp(a, "--rejects") == 0)
		{
			TAKES_VALUE();
			opt.rejects_path = v;
		}
		else if (strcmp(a, "--retries") == 0)
			retry_max_attempts = (int) int_arg(a, (i++, v), 0, 1000);
		else if (strcmp(a, "--retry-seconds") == 0)
			retry_max_seconds = (double) int_arg(a, (i++, v), 0, 86400);
		else if (strcmp(a, "--log") == 0)
		{
			TAKES_VALUE();
			if (strcmp(v, "json") == 0)
				opt.log_json = true;
			else if (strcmp(v, "text") != 0)
				usage_error("--log takes json or text, not \"%s\"", v);
		}
		else if (strcmp(a, "--quiet") == 0)
			opt.quiet = true;
		else if (a[0] == '-' && a[1] == '-')
			usage_error("unknown option %s", a);
		else if (positional < 2)
		{
			/* env:NAME: the value of an environment variable (a secret off the command line) */
			if (strncmp(a, "env:", 4) == 0)
			{
				const char *val = getenv(a + 4);

				if (a[4] == '\0' || val == NULL || *val == '\0')
					usage_error("%s: the environment has no such variable, or it is empty", a);
				a = val;
			}
			if (positional++ == 0)
				opt.from = a;
			else
				opt.to = a;
		}
		else
			usage_error("one FROM and one TO, not a third argument (%s)", a);
#undef TAKES_VALUE
	}
	if (positional != 2)
		usage_error("FROM and TO are needed%s", NULL);
	if (opt.sync && opt.has_since)
		usage_error("--sync takes its start from the previous run; --since gives it by hand: one of them%s", NULL);
	if (opt.resume && (opt.sync || opt.has_since))
		usage_error("--resume goes on with the run that stopped, incremental or not: give it alone%s", NULL);
}

/* ------------------------------------------------------------------ tables */

typedef struct TableList
{
	char	  **names;
	int			n;
	long long	bad;			/* names that are not table names */
	long long	listed;
} TableList;

#define TABLES_MAX 1000000		/* a list longer than this is not an account's (a hostile endpoint) */

static void
add_table(void *arg, const char *name)
{
	TableList  *l = arg;
	bool		want = opt.ntables == 0;

	/* before the name makes a file, a resource or a SQL object: "../x" must not */
	if (!record_table_name_ok(name, strlen(name)))
	{
		if (l->bad++ < 10)
			log_error("the source lists a table named \"%.80s\", which is not a table name (a letter, then 2 to 62 letters or digits)",
					  name);
		return;
	}
	if (++l->listed > TABLES_MAX)
		return;

	for (int i = 0; i < opt.ntables && !want; i++)
		want = fnmatch(opt.tables[i], name, FNM_CASEFOLD) == 0;
	if (!want)
		return;
	l->names = mem_realloc(l->names, sizeof(char *) * (l->n + 1));
	l->names[l->n++] = mem_strdup(name);
}

/* a list with names that are not table names, or without end, is refused whole */
static bool
tables_listed_ok(const TableList *l, CopyError *e)
{
	if (l->bad > 0)
		return copy_fail(e, "the source lists %lld names that are not table names: nothing is copied from it", l->bad);
	if (l->listed > TABLES_MAX)
		return copy_fail(e, "the source lists more than %d tables: nothing is copied from it", TABLES_MAX);
	return true;
}

/* every --tables name without a wildcard must name a table */
static bool
check_named_tables(const TableList *l)
{
	bool		ok = true;

	for (int i = 0; i < opt.ntables; i++)
	{
		bool		found = strpbrk(opt.tables[i], "*?[") != NULL;

		for (int k = 0; k < l->n && !found; k++)
			found = strcasecmp(l->names[k], opt.tables[i]) == 0;
		if (!found)
		{
			log_error("the source has no table %s", opt.tables[i]);
			ok = false;
		}
	}
	return ok;
}

/* ------------------------------------------------------------------ workers */

static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static int	queue_next;
static CopyError worker_error;
static bool worker_failed;

typedef struct Worker
{
	pthread_t	thread;
	bool		replace_expected;
} Worker;

static void
fail_run(const CopyError *e)
{
	pthread_mutex_lock(&queue_lock);
	if (!worker_failed)
	{
		worker_error = *e;
		worker_failed = true;
	}
	pthread_mutex_unlock(&queue_lock);
	atomic_store(&copy_abort, true);
}

/* the table's segments all done? */
static bool
table_segments_done(const char *table)
{
	bool		done = true;

	pthread_mutex_lock(&state.lock);
	for (int i = 0; i < state.nsegs && done; i++)
		if (strcmp(state.segs[i].table, table) == 0 && !state.segs[i].done)
			done = false;
	pthread_mutex_unlock(&state.lock);
	return done;
}

static long long
table_entities(const char *table)
{
	long long	n = 0;

	pthread_mutex_lock(&state.lock);
	for (int i = 0; i < state.nsegs; i++)
		if (strcmp(state.segs[i].table, table) == 0)
			n += state.segs[i].entities;
	pthread_mutex_unlock(&state.lock);
	return n;
}

static void *
worker_main(void *arg)
{
	Worker	   *w = arg;
	CopyError	e = {{0}};
	Endpoint   *src = ep_open(&from_spec, false, &e);
	Endpoint   *dst = src ? ep_open(&to_spec, true, &e) : NULL;

	if (dst == NULL)
	{
		fail_run(&e);
		if (src)
			src->ops->close(src);
		return NULL;
	}
	while (!atomic_load(&copy_abort))
	{
		Segment    *seg = NULL;
		long long	copied = 0;
		double		t0 = retry_now();

		pthread_mutex_lock(&queue_lock);
		pthread_mutex_lock(&state.lock);
		while (queue_next < state.nsegs && state.segs[queue_next].done)
			queue_next++;
		if (queue_next < state.nsegs)
			seg = &state.segs[queue_next++];
		pthread_mutex_unlock(&state.lock);
		pthread_mutex_unlock(&queue_lock);
		if (seg == NULL)
			break;
		if (!copy_segment(src, dst, seg, seg->since, w->replace_expected || seg->since > 0, &copied, &e))
		{
			char		msg[sizeof(e.msg)];

			snprintf(msg, sizeof(msg), "table %s: %s", seg->table, e.msg);
			snprintf(e.msg, sizeof(e.msg), "%s", msg);
			fail_run(&e);
			break;
		}
		if (table_segments_done(seg->table))
		{
			atomic_fetch_add(&stats.tables_done, 1);
			log_table(seg->table, seg->since > 0 ? "synced" : "copied", table_entities(seg->table), 0,
					  retry_now() - t0);
		}
	}
	src->ops->close(src);
	dst->ops->close(dst);
	return NULL;
}

/* Run the workers over state.segs; false when one failed (worker_error). */
static bool
run_workers(bool replace_expected)
{
	int			n = opt.parallel;
	Worker	   *w = mem_alloc(sizeof(Worker) * n);

	queue_next = 0;
	worker_failed = false;
	progress_start();
	for (int i = 0; i < n; i++)
	{
		w[i].replace_expected = replace_expected;
		if (pthread_create(&w[i].thread, NULL, worker_main, &w[i]) != 0)
		{
			n = i;
			break;
		}
	}
	for (int i = 0; i < n; i++)
		pthread_join(w[i].thread, NULL);
	progress_stop();
	free(w);
	return !worker_failed && !atomic_load(&copy_abort);
}

Endpoint *
ep_open(const EndpointSpec *spec, bool for_writing, CopyError *e)
{
	switch (spec->kind)
	{
		case EP_TABLE:
			return ep_table_open(spec, e);
		case EP_DB:
			return ep_db_open(spec, e);
		case EP_DIR:
			return ep_dir_open(spec, for_writing, e);
	}
	return NULL;
}

static void
on_signal(int sig)
{
	atomic_store(&copy_abort, true);
}

static char *
default_path(const char *prefix, const char *suffix)
{
	uint64		h = 1469598103934665603ULL;
	char	   *p = mem_alloc(strlen(prefix) + strlen(suffix) + 32);

	/* of the two without their secrets: a key regenerated for the cutover keeps the checkpoint */
	for (const char *s = from_spec.display; *s; s++)
		h = (h ^ (unsigned char) *s) * 1099511628211ULL;
	h = (h ^ 0xff) * 1099511628211ULL;
	for (const char *s = to_spec.display; *s; s++)
		h = (h ^ (unsigned char) *s) * 1099511628211ULL;
	sprintf(p, "%s%08llx%s", prefix, (unsigned long long) (h & 0xffffffffULL), suffix);
	return p;
}

/* The secrets of an endpoint, for report.c to keep out of every message. */
static void
register_secrets(const EndpointSpec *spec)
{
	if (spec->key_len > 0)
	{
		char		b64[CONNSTR_MAX_KEY * 2];

		edm_base64_encode(spec->key, spec->key_len, b64);
		report_secret(b64, edm_base64_encoded_len(spec->key_len));
	}
	if (spec->sas != NULL)
	{
		const char *sig = strstr(spec->sas, "sig=");

		report_secret(spec->sas, strlen(spec->sas));
		if (sig != NULL)
		{
			size_t		n = strcspn(sig + 4, "&");
			char	   *dec = mem_alloc(n + 1);
			size_t		m = 0;

			report_secret(sig + 4, n);
			/* and as it reads percent-decoded */
			for (size_t i = 0; i < n; i++)
			{
				if (sig[4 + i] == '%' && i + 2 < n + 0 && edm_hexval(sig[5 + i]) >= 0 && edm_hexval(sig[6 + i]) >= 0)
				{
					dec[m++] = (char) (edm_hexval(sig[5 + i]) * 16 + edm_hexval(sig[6 + i]));
					i += 2;
				}
				else
					dec[m++] = sig[4 + i];
			}
			report_secret(dec, m);
			free(dec);
		}
	}
	if (spec->conninfo != NULL)
	{
		PQconninfoOption *o = PQconninfoParse(spec->conninfo, NULL);

		for (PQconninfoOption *p = o; p && p->keyword; p++)
			if (p->val && strstr(p->keyword, "password"))
				report_secret(p->val, strlen(p->val));
		PQconninfoFree(o);
	}
}

/*
 * --resume and --sync go on from a checkpoint: made by a run between the same two endpoints,
 * with the same filter and Timestamps (else what it recorded does not hold for this run).
 */
static void
check_checkpoint(void)
{
	const char *what = NULL;

	if (!(opt.resume || opt.sync) || !state.has_header)
		return;
	if (state.saved_from && strcmp(state.saved_from, from_spec.display) != 0)
		what = "another FROM";
	else if (state.saved_to && strcmp(state.saved_to, to_spec.display) != 0)
		what = "another TO";
	else if ((state.saved_filter == NULL) != (opt.filter == NULL) ||
			 (opt.filter && strcmp(state.saved_filter, opt.filter) != 0))
		what = "another --filter";
	else if (opt.resume && to_spec.kind == EP_DB && state.saved_keep_timestamps != opt.keep_timestamps)
		what = opt.keep_timestamps ? "no --keep-timestamps" : "--keep-timestamps";
	else if (opt.resume && to_spec.kind == EP_DIR && state.saved_gzip != opt.gzip)
		what = opt.gzip ? "--no-gzip" : "gzip";
	if (what != NULL)
	{
		char		buf[1024];

		snprintf(buf, sizeof(buf), "the checkpoint %.400s was made by a run with %s: %s goes on only with the same FROM, TO, --filter and --keep-timestamps (or give another --state)",
				 opt.state_path, what, opt.resume ? "--resume" : "--sync");
		usage_error("%s", buf);
	}
}

/* One run per checkpoint at a time: two would write the same destination and checkpoint. */
static bool
lock_checkpoint(CopyError *e)
{
	char	   *path = mem_alloc(strlen(opt.state_path) + 8);
	int			fd;

	sprintf(path, "%s.lock", opt.state_path);
	fd = open(path, O_RDWR | O_CREAT, 0600);
	if (fd < 0)
	{
		copy_fail(e, "cannot open %s: %s", path, strerror(errno));
		free(path);
		return false;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) != 0)
	{
		copy_fail(e, "another tablestore-copy is running with the checkpoint %s (%s is locked)", opt.state_path, path);
		close(fd);
		free(path);
		return false;
	}
	free(path);
	return true;				/* held until the program ends */
}

/* ------------------------------------------------------------------ the plan */

/* Make the destination's tables and the segments of a pass from since (0: everything). */
static bool
plan(Endpoint *src, Endpoint *dst, const TableList *tables, bool full, CopyError *e)
{
	int64		started = copy_now_ticks();
	int			per_table = 1;

	state_reset();
	if (src->ops->split_points && to_spec.kind != EP_DIR && tables->n > 0 && tables->n < opt.parallel)
		per_table = (opt.parallel + tables->n - 1) / tables->n;
	for (int i = 0; i < tables->n; i++)
	{
		const char *name = tables->names[i];
		TableState *t = state_table(name, true);
		int64		since = 0;
		char	  **points = NULL;
		int			npoints = 0;
		int			exists = dst->ops->table_exists(dst, name, e);

		if (exists < 0)
			return false;
		if (!full)
			since = opt.sync ? (t->hwm > 0 ? t->hwm - (int64) opt.skew_seconds * EDM_TICKS_PER_SECOND : 0) :
				opt.since_ticks;
		else if (opt.has_since)
			since = opt.since_ticks;
		if (opt.sync && t->hwm == 0)
			return copy_fail(e, "--sync: the checkpoint %s has no previous copy of table %s (copy it first, or give --since)",
							 state.path, name);
		t->created = false;
		if (!exists)
		{
			if (!dst->ops->create_table(dst, name, e))
				return false;
			t->created = true;
		}
		t->pass_started = started;
		free(t->saved_policy);
		t->saved_policy = NULL;
		if (t->created && !opt.index_during_load && dst->ops->load_begin &&
			!dst->ops->load_begin(dst, name, &t->saved_policy, e))
			return false;
		if (per_table > 1 && since == 0)
		{
			npoints = src->ops->split_points(src, name, per_table, &points, e);
			if (npoints < 0)
				return false;
		}
		for (int k = 0; k <= npoints; k++)
		{
			Segment    *s = state_add_segment(name, k, k > 0 ? points[k - 1] : NULL, k < npoints ? points[k] : NULL);

			s->since = since;
		}
		for (int k = 0; k < npoints; k++)
			free(points[k]);
		free(points);
		t->nsegments = npoints + 1;
	}
	stats.tables_total = tables->n;
	atomic_store(&stats.tables_done, 0);
	return state_save(e);
}

/* After a pass: policies restored, tables complete, their high-water marks moved. */
static bool
finish_pass(Endpoint *dst, CopyError *e)
{
	for (int i = 0; i < state.ntables; i++)
	{
		TableState *t = &state.tables[i];

		if (t->nsegments == 0 && !opt.resume)
			continue;
		if (!table_segments_done(t->table))
			continue;
		if (t->saved_policy && dst->ops->load_end && !dst->ops->load_end(dst, t->table, t->saved_policy, e))
			return false;
		free(t->saved_policy);
		t->saved_policy = NULL;
		t->complete = true;
		if (t->pass_started > 0)
			t->hwm = t->pass_started;
	}
	return state_save(e);
}

static long long
segment_entities(void)
{
	long long	n = 0;

	for (int i = 0; i < state.nsegs; i++)
		n += state.segs[i].entities;
	return n;
}

static int
finish(int code, const CopyError *e)
{
	double		secs = retry_now() - stats.started;
	long long	written = atomic_load(&stats.written);

	if (e != NULL && e->msg[0])
		log_error("%s", e->msg);
	if (!rejects_close())
	{
		/* refused entities that are not written down are unaccounted for: not 1, but 3 */
		log_error("cannot write the rejects file %s: the refused entities are not all in it", opt.rejects_path);
		code = EXIT_FAILED;
	}
	if (code == EXIT_OK && (atomic_load(&stats.rejected) > 0 || atomic_load(&stats.differences) > 0))
		code = EXIT_INCOMPLETE;
	if (opt.log_json)
	{
		printf("{\"summary\":{\"status\":\"%s\",\"exit\":%d,\"read\":%lld,\"written\":%lld,\"rejected\":%lld,"
			   "\"deleted\":%lld,\"differences\":%lld,\"retries\":%lld,\"seconds\":%.3f,\"entities_per_second\":%.0f,\"rejects\":\"%s\"}}\n",
			   code == EXIT_OK ? "ok" : code == EXIT_INCOMPLETE ? "incomplete" : "stopped", code,
			   atomic_load(&stats.read), written, atomic_load(&stats.rejected), atomic_load(&stats.deleted),
			   atomic_load(&stats.differences), retry_waits(), secs, secs > 0 ? written / secs : 0,
			   atomic_load(&stats.rejected) > 0 ? opt.rejects_path : "");
		fflush(stdout);
	}
	else if (!opt.quiet)
	{
		fprintf(stderr, "tablestore-copy: %s: %lld entities read, %lld written (%.0f/s), %lld rejected, %lld deleted, "
				"%lld differences, %lld retries, %.1f s\n",
				code == EXIT_OK ? "done" : code == EXIT_INCOMPLETE ? "INCOMPLETE" : "STOPPED",
				atomic_load(&stats.read), written, secs > 0 ? written / secs : 0, atomic_load(&stats.rejected),
				atomic_load(&stats.deleted), atomic_load(&stats.differences), retry_waits(), secs);
		if (atomic_load(&stats.rejected) > 0)
			fprintf(stderr, "tablestore-copy: the refused entities and why: %s\n", opt.rejects_path);
		if (code == EXIT_FAILED)
			fprintf(stderr, "tablestore-copy: the checkpoint is %s: run again with --resume to go on\n", state.path);
	}
	return code;
}

int
main(int argc, char **argv)
{
	CopyError	e = {{0}};
	char		err[512];
	Endpoint   *src,
			   *dst;
	TableList	tables = {0};
	struct sigaction sa;

	parse_args(argc, argv);
	stats.started = retry_now();
	if (!connstr_parse(opt.from, &from_spec, err, sizeof(err)))
		usage_error("FROM: %s", err);
	if (!connstr_parse(opt.to, &to_spec, err, sizeof(err)))
		usage_error("TO: %s", err);
	register_secrets(&from_spec);
	register_secrets(&to_spec);
	if (opt.filter != NULL && from_spec.kind == EP_DIR)
	{
		TsError		ferr = {0};
		CopyFilter *f = filter_compile(opt.filter, &ferr);

		if (f == NULL)
			usage_error("--filter: %s", ferr.msg);
		filter_free(f);
	}
	if (opt.batch == 0)
		opt.batch = to_spec.kind == EP_TABLE ? 100 : 1000;
	if (to_spec.kind == EP_TABLE && opt.batch > 100)
		usage_error("--batch: a Table endpoint takes at most 100 entities per batch%s", NULL);
	if (opt.keep_timestamps && to_spec.kind == EP_TABLE)
		usage_error("--keep-timestamps: a Table endpoint stamps every write itself; only a database (or a directory) keeps the source's Timestamps%s", NULL);
	if ((opt.sync || opt.mirror) && to_spec.kind == EP_DIR)
		usage_error("--sync and --mirror need a destination that updates and deletes: a directory is a snapshot (copy it again)%s", NULL);
	if (opt.rejects_path == NULL)
		opt.rejects_path = "tablestore-copy-rejects.jsonl";
	if (opt.state_path == NULL)
		opt.state_path = default_path("tablestore-copy-", ".state");

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	curl_global_init(CURL_GLOBAL_DEFAULT);

	src = ep_open(&from_spec, false, &e);
	if (src == NULL)
		return finish(EXIT_FAILED, &e);
	if (opt.dry_run && to_spec.kind == EP_DIR && access(to_spec.path, F_OK) != 0)
	{
		/* nothing to open: the directory would be made */
		if (!src->ops->list_tables(src, add_table, &tables, &e) || !tables_listed_ok(&tables, &e))
			return finish(EXIT_FAILED, &e);
		for (int i = 0; i < tables.n; i++)
			log_msg("would copy %s from %s %s to the new directory %s", tables.names[i], src->ops->kind,
					from_spec.display, to_spec.display);
		log_msg("dry run: %d tables, nothing written", tables.n);
		return finish(EXIT_OK, NULL);
	}
	dst = ep_open(&to_spec, !opt.verify_only && !opt.dry_run, &e);
	if (dst == NULL)
		return finish(EXIT_FAILED, &e);
	if (!src->ops->list_tables(src, add_table, &tables, &e))
		return finish(EXIT_FAILED, &e);
	if (!tables_listed_ok(&tables, &e) || !check_named_tables(&tables))
		return finish(EXIT_FAILED, e.msg[0] ? &e : NULL);
	if (!opt.dry_run && !lock_checkpoint(&e))
		return finish(EXIT_FAILED, &e);
	if (!state_load(opt.state_path, &e))
		return finish(EXIT_FAILED, &e);
	check_checkpoint();
	state.from_display = from_spec.display;
	state.to_display = to_spec.display;

	if (opt.dry_run)
	{
		for (int i = 0; i < tables.n; i++)
		{
			int			exists = dst->ops->table_exists(dst, tables.names[i], &e);

			log_msg("would copy %s from %s %s to %s %s (%s)", tables.names[i], src->ops->kind, from_spec.display,
					dst->ops->kind, to_spec.display, exists > 0 ? "exists there" : exists == 0 ? "to be created" : e.msg);
		}
		log_msg("dry run: %d tables, nothing written", tables.n);
		return finish(EXIT_OK, NULL);
	}
	if (to_spec.kind == EP_DIR)
		for (int i = 0; i < tables.n; i++)
			if (from_spec.kind == EP_DIR)
			{
				long long	n = manifest_table_entities(from_spec.path, tables.names[i]);

				if (n > 0)
					atomic_fetch_add(&stats.total_known, n);
			}

	if (!opt.verify_only)
	{
		if (opt.resume)
		{
			int			left = 0;

			for (int i = 0; i < state.nsegs; i++)
				left += !state.segs[i].done;
			if (state.nsegs == 0)
				return finish(EXIT_FAILED, (copy_fail(&e, "--resume: the checkpoint %s holds no run (nothing to resume)",
													  opt.state_path), &e));
			log_msg("resuming: %d of %d key ranges left, %lld entities written before", left, state.nsegs,
					segment_entities());
			stats.tables_total = state.ntables;
			for (int i = 0; i < state.ntables; i++)
				if (table_segments_done(state.tables[i].table))
					atomic_fetch_add(&stats.tables_done, 1);
		}
		else if (!plan(src, dst, &tables, !opt.sync, &e))
			return finish(EXIT_FAILED, &e);
		if (!run_workers(false))
		{
			CopyError	saved = worker_error;

			if (!worker_failed)
				copy_fail(&saved, "interrupted");
			state_save(&e);
			return finish(EXIT_FAILED, &saved);
		}
		if (!finish_pass(dst, &e))
			return finish(EXIT_FAILED, &e);
		/* --sync: more passes while the delta is not small */
		for (int pass = 1; opt.sync && pass < opt.sync_passes; pass++)
		{
			long long	delta = segment_entities();

			if (delta <= opt.sync_small)
				break;
			log_msg("sync pass %d copied %lld entities (more than --sync-small %lld): another pass", pass, delta,
					opt.sync_small);
			if (!plan(src, dst, &tables, false, &e))
				return finish(EXIT_FAILED, &e);
			if (!run_workers(true))
				return finish(EXIT_FAILED, worker_failed ? &worker_error : (copy_fail(&e, "interrupted"), &e));
			if (!finish_pass(dst, &e))
				return finish(EXIT_FAILED, &e);
		}
		if (to_spec.kind == EP_DIR && !manifest_write(to_spec.path, from_spec.display, &e))
			return finish(EXIT_FAILED, &e);
	}
	if (atomic_load(&copy_abort))
		return finish(EXIT_FAILED, (copy_fail(&e, "interrupted"), &e));
	if (opt.acl && !opt.verify_only)
		for (int i = 0; i < tables.n; i++)
		{
			char	   *xml = NULL;

			if (src->ops->get_acl == NULL || dst->ops->set_acl == NULL)
			{
				log_msg("--acl: the %s or the %s keeps no access policies", src->ops->kind, dst->ops->kind);
				break;
			}
			if (!src->ops->get_acl(src, tables.names[i], &xml, &e))
				return finish(EXIT_FAILED, &e);
			if (xml != NULL && !dst->ops->set_acl(dst, tables.names[i], xml, &e))
				return finish(EXIT_FAILED, &e);
			free(xml);
		}
	if (opt.acl && to_spec.kind == EP_DIR && !opt.verify_only && !manifest_write(to_spec.path, from_spec.display, &e))
		return finish(EXIT_FAILED, &e);
	if (opt.mirror && !opt.verify_only)
	{
		Endpoint   *reader = ep_open(&to_spec, false, &e);

		if (reader == NULL)
			return finish(EXIT_FAILED, &e);
		for (int i = 0; i < tables.n; i++)
		{
			long long	n = mirror_table(src, dst, reader, tables.names[i], &e);

			if (n < 0 || atomic_load(&copy_abort))
				return finish(EXIT_FAILED, n < 0 ? &e : (copy_fail(&e, "interrupted"), &e));
			log_table(tables.names[i], "mirrored", n, 0, 0);
		}
		reader->ops->close(reader);
	}
	if (opt.verify)
		for (int i = 0; i < tables.n; i++)
		{
			long long	n = verify_table(src, dst, tables.names[i], &e);

			/* an interrupted --verify has not compared everything: never 0 */
			if (n < 0 || atomic_load(&copy_abort))
				return finish(EXIT_FAILED, n < 0 ? &e : (copy_fail(&e, "interrupted"), &e));
			atomic_fetch_add(&stats.differences, n);
		}
	src->ops->close(src);
	dst->ops->close(dst);
	return finish(EXIT_OK, NULL);
}
