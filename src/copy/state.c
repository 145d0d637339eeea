/*
 * state.c - the checkpoint state of a run (copy.h): one JSON object per line, rewritten whole
 * (a temporary file, fsync, rename) so that a kill at any moment leaves the previous state or the
 * new one, never a mix.
 *   {"state":"tablestore-copy 1","from":"...","to":"..."}
 *   {"table":"T","hwm":<ticks>,"complete":false,"created":true,"policy":"<indexing policy>"}
 *   {"segment":"T","index":0,"lo":null,"hi":"p5","done":false,"after_pk":"p3","after_rk":"r9",
 *    "entities":123,"max_ticks":<ticks>,"data_offset":0,"parts_offset":0}
 * A segment's after keys are the last entity of the last batch made durable before the save: a
 * resumed run reads from there, and rewrites (idempotently) what was written after it.
 */
#include "copy.h"
#include "jsonl.h"
#include "mem.h"
#include "retry.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

State		state = {.lock = PTHREAD_MUTEX_INITIALIZER};

TableState *
state_table(const char *table, bool create)
{
	for (int i = 0; i < state.ntables; i++)
		if (strcmp(state.tables[i].table, table) == 0)
			return &state.tables[i];
	if (!create)
		return NULL;
	state.tables = mem_realloc(state.tables, sizeof(TableState) * (state.ntables + 1));
	memset(&state.tables[state.ntables], 0, sizeof(TableState));
	state.tables[state.ntables].table = mem_strdup(table);
	return &state.tables[state.ntables++];
}

Segment *
state_add_segment(const char *table, int index, const char *lo, const char *hi)
{
	Segment    *s;

	state.segs = mem_realloc(state.segs, sizeof(Segment) * (state.nsegs + 1));
	s = &state.segs[state.nsegs++];
	memset(s, 0, sizeof(*s));
	s->table = mem_strdup(table);
	s->index = index;
	s->lo_pk = lo ? mem_strdup(lo) : NULL;
	s->hi_pk = hi ? mem_strdup(hi) : NULL;
	return s;
}

static void
free_segment(Segment *s)
{
	free(s->table);
	free(s->lo_pk);
	free(s->hi_pk);
	free(s->after_pk);
	free(s->after_rk);
}

void
state_reset(void)
{
	for (int i = 0; i < state.nsegs; i++)
		free_segment(&state.segs[i]);
	free(state.segs);
	state.segs = NULL;
	state.nsegs = 0;
	for (int i = 0; i < state.ntables; i++)
	{
		state.tables[i].complete = false;
		state.tables[i].nsegments = 0;
	}
}

static void
put_str(StringInfo s, const char *name, const char *v)
{
	appendStringInfo(s, ",\"%s\":", name);
	if (v == NULL)
		appendStringInfoString(s, "null");
	else
		jsonl_append_string(s, v, strlen(v));
}

static bool
save_locked(CopyError *e)
{
	StringInfoData s;
	char	   *tmp;
	FILE	   *f;
	bool		ok;

	mem_string_init(&s);
	appendStringInfoString(&s, "{\"state\":\"tablestore-copy 1\"");
	put_str(&s, "from", state.from_display);
	put_str(&s, "to", state.to_display);
	put_str(&s, "filter", opt.filter);
	appendStringInfo(&s, ",\"keep_timestamps\":%s,\"gzip\":%s}\n", opt.keep_timestamps ? "true" : "false",
					 opt.gzip ? "true" : "false");
	for (int i = 0; i < state.ntables; i++)
	{
		TableState *t = &state.tables[i];

		appendStringInfoString(&s, "{\"table\":");
		jsonl_append_string(&s, t->table, strlen(t->table));
		appendStringInfo(&s, ",\"hwm\":" INT64_FORMAT ",\"pass_started\":" INT64_FORMAT ",\"complete\":%s,\"created\":%s",
						 t->hwm, t->pass_started, t->complete ? "true" : "false", t->created ? "true" : "false");
		put_str(&s, "policy", t->saved_policy);
		appendStringInfoString(&s, "}\n");
	}
	for (int i = 0; i < state.nsegs; i++)
	{
		Segment    *g = &state.segs[i];

		appendStringInfoString(&s, "{\"segment\":");
		jsonl_append_string(&s, g->table, strlen(g->table));
		appendStringInfo(&s, ",\"index\":%d", g->index);
		put_str(&s, "lo", g->lo_pk);
		put_str(&s, "hi", g->hi_pk);
		appendStringInfo(&s, ",\"done\":%s", g->done ? "true" : "false");
		put_str(&s, "after_pk", g->has_after ? g->after_pk : NULL);
		put_str(&s, "after_rk", g->has_after ? g->after_rk : NULL);
		appendStringInfo(&s, ",\"entities\":%lld,\"since\":" INT64_FORMAT ",\"max_ticks\":" INT64_FORMAT
						 ",\"data_offset\":%lld,\"parts_offset\":%lld}\n",
						 g->entities, g->since, g->max_ticks, g->pos.data_offset, g->pos.parts_offset);
	}
	tmp = mem_alloc(strlen(state.path) + 8);
	sprintf(tmp, "%s.tmp", state.path);
	{
		/* keys of the tables' entities: the owner's eyes only (a leftover .tmp too) */
		int			fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		f = fd < 0 || fchmod(fd, 0600) != 0 ? NULL : fdopen(fd, "w");
		if (f == NULL && fd >= 0)
			close(fd);
	}
	ok = f != NULL && fwrite(s.data, 1, s.len, f) == (size_t) s.len;
	if (f != NULL && (fflush(f) != 0 || fsync(fileno(f)) != 0))
		ok = false;
	if (f != NULL && fclose(f) != 0)
		ok = false;
	if (ok && rename(tmp, state.path) != 0)
		ok = false;
	if (!ok)
		copy_fail(e, "cannot write the checkpoint %s: %s", state.path, strerror(errno));
	free(tmp);
	pfree(s.data);
	state.last_save = retry_now();
	return ok;
}

bool
state_save(CopyError *e)
{
	bool		ok;

	pthread_mutex_lock(&state.lock);
	ok = save_locked(e);
	pthread_mutex_unlock(&state.lock);
	return ok;
}

bool
state_save_maybe(CopyError *e)
{
	bool		ok = true;

	pthread_mutex_lock(&state.lock);
	if (retry_now() - state.last_save >= 2.0)
		ok = save_locked(e);
	pthread_mutex_unlock(&state.lock);
	return ok;
}

static char *
opt_str(const JFlat *f, const char *name)
{
	const JsonToken *t = jflat_get(f, name);

	return t == NULL || t->kind == JT_NULL ? NULL : jflat_str(f, name);
}

bool
state_load(const char *path, CopyError *e)
{
	JsonlReader *in;
	const char *line,
			   *why = NULL;
	size_t		len;
	int			rc;
	long long	lineno = 0;
	MemArena	arena = {0};
	MemArena   *prev;
	TsError		err = {0};

	state.path = mem_strdup(path);
	in = jsonl_open_read(path);
	if (in == NULL)
		return errno == ENOENT ? true : copy_fail(e, "cannot read the checkpoint %s: %s", path, strerror(errno));
	prev = mem_use(&arena);
	while ((rc = jsonl_next(in, &line, &len, &why)) == 1)
	{
		JFlat		f;
		char	   *name;
		long long	v;

		lineno++;
		memset(&err, 0, sizeof(err));
		mem_arena_reset(&arena);
		if (!jflat_parse(line, len, &f, &err))
		{
			why = err.msg;
			rc = -1;
			break;
		}
		if (jflat_get(&f, "state") != NULL)
		{
			state.has_header = true;
			state.saved_from = opt_str(&f, "from");
			state.saved_to = opt_str(&f, "to");
			state.saved_filter = opt_str(&f, "filter");
			(void) jflat_bool(&f, "keep_timestamps", &state.saved_keep_timestamps);
			state.saved_gzip = true;
			(void) jflat_bool(&f, "gzip", &state.saved_gzip);
			continue;
		}
		if ((name = jflat_str(&f, "table")) != NULL)
		{
			TableState *t = state_table(name, true);

			if (jflat_int(&f, "hwm", &v))
				t->hwm = v;
			if (jflat_int(&f, "pass_started", &v))
				t->pass_started = v;
			(void) jflat_bool(&f, "complete", &t->complete);
			(void) jflat_bool(&f, "created", &t->created);
			free(t->saved_policy);
			t->saved_policy = opt_str(&f, "policy");
			free(name);
			continue;
		}
		if ((name = jflat_str(&f, "segment")) != NULL)
		{
			char	   *lo = opt_str(&f, "lo"),
					   *hi = opt_str(&f, "hi");
			Segment    *s;

			if (!jflat_int(&f, "index", &v))
			{
				why = "a segment without its index";
				rc = -1;
				free(name);
				free(lo);
				free(hi);
				break;
			}
			s = state_add_segment(name, (int) v, lo, hi);
			(void) jflat_bool(&f, "done", &s->done);
			s->after_pk = opt_str(&f, "after_pk");
			s->after_rk = opt_str(&f, "after_rk");
			s->has_after = s->after_pk != NULL && s->after_rk != NULL;
			if (jflat_int(&f, "entities", &v))
				s->entities = v;
			if (jflat_int(&f, "max_ticks", &v))
				s->max_ticks = v;
			if (jflat_int(&f, "since", &v))
				s->since = v;
			if (jflat_int(&f, "data_offset", &v))
				s->pos.data_offset = v;
			if (jflat_int(&f, "parts_offset", &v))
				s->pos.parts_offset = v;
			free(name);
			free(lo);
			free(hi);
			continue;
		}
		why = "a line that is neither a table nor a segment";
		rc = -1;
		break;
	}
	mem_use(prev);
	jsonl_close_read(in);
	if (rc < 0)
	{
		copy_fail(e, "the checkpoint %s is damaged at line %lld: %s", path, lineno, why);
		mem_arena_free(&arena);
		return false;
	}
	mem_arena_free(&arena);
	return true;
}
