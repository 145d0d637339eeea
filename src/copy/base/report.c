/*
 * report.c - what the person running the copy sees (copy.h): a progress line on a terminal,
 * a line per table (JSON with --log json), errors, and the rejects file.
 */
#include "copy.h"
#include "jsonl.h"
#include "mem.h"
#include "retry.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *rejects;
static bool progress_shown;		/* a progress line is on the terminal (cleared before other output) */
static bool progress_running;
static pthread_t progress_thread;
static pthread_mutex_t progress_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t progress_cond = PTHREAD_COND_INITIALIZER;

#define SECRETS_MAX 16

static char *secrets[SECRETS_MAX];
static size_t secret_lens[SECRETS_MAX];
static int	nsecrets;
static bool rejects_failed;		/* a rejected entity could not be written down */

void
report_secret(const char *s, size_t len)
{
	if (s == NULL || len < 4 || nsecrets == SECRETS_MAX)
		return;
	secrets[nsecrets] = mem_strndup(s, len);
	secret_lens[nsecrets++] = len;
}

/* every secret in buf (NUL-terminated) replaced by *** (never longer: secrets are 4 bytes or more) */
static void
scrub(char *buf)
{
	for (int k = 0; k < nsecrets; k++)
	{
		char	   *p;

		while ((p = strstr(buf, secrets[k])) != NULL)
		{
			memcpy(p, "***", 3);
			memmove(p + 3, p + secret_lens[k], strlen(p + secret_lens[k]) + 1);
		}
	}
}

bool
copy_fail(CopyError *e, const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	ts_vformat(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	e->code[0] = '\0';
	e->status = 0;
	e->raw = NULL;
	return false;
}

static bool
tty(void)
{
	return !opt.log_json && !opt.quiet && isatty(STDERR_FILENO);
}

static void
clear_progress(void)
{
	if (progress_shown)
	{
		fputs("\r\033[K", stderr);
		progress_shown = false;
	}
}

/*
 * One message: a JSON line {"<member>":"..."} on stdout with --log json; on stderr as text, with
 * prefix, when not JSON or when always_stderr (an error is on stderr in either mode).
 */
static void
log_line(const char *member, const char *prefix, bool always_stderr, const char *fmt, va_list ap)
{
	char		buf[2048];

	ts_vformat(buf, sizeof(buf), fmt, ap);
	scrub(buf);
	pthread_mutex_lock(&out_lock);
	clear_progress();
	if (opt.log_json)
	{
		StringInfoData s;

		mem_string_init(&s);
		appendStringInfo(&s, "{\"%s\":", member);
		jsonl_append_string(&s, buf, strlen(buf));
		appendStringInfoString(&s, "}\n");
		fputs(s.data, stdout);
		fflush(stdout);
		pfree(s.data);
	}
	if (!opt.log_json || always_stderr)
		fprintf(stderr, "tablestore-copy: %s%s\n", prefix, buf);
	pthread_mutex_unlock(&out_lock);
}

void
log_msg(const char *fmt,...)
{
	va_list		ap;

	if (opt.quiet)
		return;
	va_start(ap, fmt);
	log_line("message", "", false, fmt, ap);
	va_end(ap);
}

void
log_raw_json(const char *line)
{
	pthread_mutex_lock(&out_lock);
	clear_progress();
	fputs(line, stdout);
	fputc('\n', stdout);
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
}

void
log_error(const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	log_line("error", "error: ", true, fmt, ap);
	va_end(ap);
}

void
log_table(const char *table, const char *what, long long entities, long long rejected, double seconds)
{
	double		rate = seconds > 0 ? entities / seconds : 0;

	if (opt.quiet)
		return;
	pthread_mutex_lock(&out_lock);
	clear_progress();
	if (opt.log_json)
	{
		fprintf(stdout, "{\"table\":\"%s\",\"step\":\"%s\",\"entities\":%lld,\"rejected\":%lld,\"seconds\":%.3f,\"entities_per_second\":%.0f}\n",
				table, what, entities, rejected, seconds, rate);
		fflush(stdout);
	}
	else
		fprintf(stderr, "%-24s %-8s %12lld entities %8lld rejected %9.1f s %10.0f/s\n", table, what, entities, rejected,
				seconds, rate);
	pthread_mutex_unlock(&out_lock);
}

static void
draw_progress(void)
{
	double		secs = retry_now() - stats.started;
	long long	done = atomic_load(&stats.written);
	long long	total = atomic_load(&stats.total_known);
	double		rate = secs > 0 ? done / secs : 0;
	char		eta[32] = "";

	if (total > 0 && rate > 0 && done < total)
	{
		long		left = (long) ((total - done) / rate);

		snprintf(eta, sizeof(eta), "  ETA %ldm%02lds", left / 60, left % 60);
	}
	pthread_mutex_lock(&out_lock);
	fprintf(stderr, "\r\033[Ktables %d/%d  entities %lld%s%s  %.0f/s  rejected %lld%s",
			atomic_load(&stats.tables_done), stats.tables_total, done, total > 0 ? " of " : "",
			total > 0 ? "" : "", rate, atomic_load(&stats.rejected), eta);
	if (total > 0)
		fprintf(stderr, " [%3.0f%%]", 100.0 * done / total);
	fflush(stderr);
	progress_shown = true;
	pthread_mutex_unlock(&out_lock);
}

static void *
progress_main(void *arg)
{
	pthread_mutex_lock(&progress_lock);
	while (progress_running)
	{
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 500 * 1000 * 1000;
		if (ts.tv_nsec >= 1000000000)
		{
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&progress_cond, &progress_lock, &ts);
		if (progress_running)
			draw_progress();
	}
	pthread_mutex_unlock(&progress_lock);
	return NULL;
}

void
progress_start(void)
{
	if (!tty() || progress_running)
		return;
	progress_running = true;
	if (pthread_create(&progress_thread, NULL, progress_main, NULL) != 0)
		progress_running = false;
}

void
progress_stop(void)
{
	if (!progress_running)
		return;
	pthread_mutex_lock(&progress_lock);
	progress_running = false;
	pthread_cond_signal(&progress_cond);
	pthread_mutex_unlock(&progress_lock);
	pthread_join(progress_thread, NULL);
	pthread_mutex_lock(&out_lock);
	clear_progress();
	pthread_mutex_unlock(&out_lock);
}

void
reject_record(const char *table, const Record *r, const char *raw, size_t raw_len, const CopyError *why)
{
	StringInfoData s;
	MemArena	arena = {0};
	MemArena   *prev;
	char		msg[sizeof(why->msg)];

	atomic_fetch_add(&stats.rejected, 1);
	snprintf(msg, sizeof(msg), "%s", why->msg);
	scrub(msg);
	mem_string_init(&s);
	appendStringInfoString(&s, "{\"table\":");
	jsonl_append_string(&s, table, strlen(table));
	if (r != NULL)
	{
		appendStringInfoString(&s, ",\"PartitionKey\":");
		jsonl_append_string(&s, r->pk, r->pk_len);
		appendStringInfoString(&s, ",\"RowKey\":");
		jsonl_append_string(&s, r->rk, r->rk_len);
	}
	if (why->status)
		appendStringInfo(&s, ",\"status\":%d", why->status);
	appendStringInfoString(&s, ",\"code\":");
	jsonl_append_string(&s, why->code, strlen(why->code));
	appendStringInfoString(&s, ",\"error\":");
	jsonl_append_string(&s, msg, strlen(msg));
	/* the entity as JSON text, so that it can be mended and loaded again */
	appendStringInfoString(&s, ",\"entity\":");
	if (r != NULL && r->body != NULL)
	{
		StringInfoData ent;

		mem_string_init(&ent);
		prev = mem_use(&arena);
		record_append_json(&ent, r, REC_JSON_KEYS | REC_JSON_TIMESTAMP);
		mem_use(prev);
		jsonl_append_string(&s, ent.data, ent.len);
		pfree(ent.data);
		mem_arena_free(&arena);
	}
	else if (raw != NULL)
		jsonl_append_string(&s, raw, raw_len);
	else
		appendStringInfoString(&s, "null");
	appendStringInfoString(&s, "}\n");
	pthread_mutex_lock(&out_lock);
	if (rejects == NULL && !rejects_failed)
	{
		/* the refused entities' data: the owner's eyes only */
		int			fd = open(opt.rejects_path, O_WRONLY | O_CREAT | O_APPEND, 0600);

		rejects = fd < 0 ? NULL : fdopen(fd, "a");
		if (rejects == NULL || fchmod(fd, 0600) != 0)
		{
			clear_progress();
			fprintf(stderr, "tablestore-copy: error: cannot write the rejects file %s: %s\n", opt.rejects_path,
					strerror(errno));
			if (rejects != NULL)
				fclose(rejects);
			else if (fd >= 0)
				close(fd);
			rejects = NULL;
			rejects_failed = true;
		}
	}
	if (rejects != NULL && (fwrite(s.data, 1, s.len, rejects) != (size_t) s.len || fflush(rejects) != 0))
	{
		clear_progress();
		fprintf(stderr, "tablestore-copy: error: cannot write the rejects file %s: %s\n", opt.rejects_path,
				strerror(errno));
		rejects_failed = true;
	}
	pthread_mutex_unlock(&out_lock);
	pfree(s.data);
}

bool
rejects_close(void)
{
	bool		ok = !rejects_failed;

	if (rejects != NULL)
	{
		ok = fflush(rejects) == 0 && fsync(fileno(rejects)) == 0 && ok;
		ok = fclose(rejects) == 0 && ok;
		rejects = NULL;
	}
	return ok;
}
