/*
 * ep_dir.c - a directory as an endpoint (endpoint.h): one JSON Lines file per table,
 * <table>.jsonl or <table>.jsonl.gz, each line an entity in the service's JSON (PartitionKey,
 * RowKey, Timestamp, every non-String property with its @odata.type: lossless for the eight EDM
 * types), in key order; and manifest.jsonl, written when a copy ends (manifest.c).
 *
 * While a table is written, .parts/<table>.jsonl gets a line per batch (its partition, count,
 * checksum, highest Timestamp), from which the manifest's per-partition lines are summed; both
 * files are made durable at each checkpoint, whose offsets a resumed run truncates them to.
 */
#include "copy.h"
#include "filter.h"
#include "jsonl.h"
#include "manifest.h"
#include "mem.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct DirTable
{
	char	   *table;
	JsonlWriter *data;
	JsonlWriter *parts;
} DirTable;

typedef struct DirEndpoint
{
	Endpoint	base;
	DirTable	open;			/* the table being written (a worker writes one at a time) */
	StringInfoData line;		/* malloc'd */
} DirEndpoint;

struct Reader
{
	DirEndpoint *ep;
	JsonlReader *in;
	ReadSpec	spec;
	char	   *path;
	KeyOrder	order;			/* files are in key order, a store's or the service's */
	CopyFilter *filter;			/* --filter, evaluated here (filter.c) */
	bool		after_seen;		/* resuming: the resume point's line has been read */
	long long	expect;			/* the entities the manifest gives the table (-1: no manifest) */
	long long	entities;		/* lines read that hold an entity (or fail to) */
	long long	lineno;
	TsError		err;
};

static const EndpointOps dir_ops;

static Reader *dir_open_reader(Endpoint *base, const ReadSpec *spec, CopyError *e);
static int	dir_read(Reader *r, Record *out, CopyError *e);
static void dir_close_reader(Reader *r);

static char *
path_join(const char *dir, const char *name, const char *suffix)
{
	size_t		n = strlen(dir) + strlen(name) + strlen(suffix) + 2;
	char	   *p = mem_alloc(n);

	snprintf(p, n, "%s/%s%s", dir, name, suffix);
	return p;
}

/* The data file of a table that exists: .jsonl.gz first, then .jsonl; NULL when neither. */
static char *
data_file(const char *dir, const char *table)
{
	char	   *p = path_join(dir, table, ".jsonl.gz");
	struct stat st;

	if (stat(p, &st) == 0)
		return p;
	free(p);
	p = path_join(dir, table, ".jsonl");
	if (stat(p, &st) == 0)
		return p;
	free(p);
	return NULL;
}

Endpoint *
ep_dir_open(const EndpointSpec *spec, bool for_writing, CopyError *e)
{
	DirEndpoint *ep;
	struct stat st;

	if (stat(spec->path, &st) != 0)
	{
		if (!for_writing || errno != ENOENT)
			return copy_fail(e, "cannot open the directory %s: %s", spec->path, strerror(errno)), NULL;
		if (mkdir(spec->path, 0700) != 0)
			return copy_fail(e, "cannot make the directory %s: %s", spec->path, strerror(errno)), NULL;
	}
	else if (!S_ISDIR(st.st_mode))
		return copy_fail(e, "%s is not a directory (FROM and TO are a connection string, a database or a directory)",
						 spec->path), NULL;
	if (for_writing)
	{
		char	   *parts = path_join(spec->path, ".parts", "");

		if (mkdir(parts, 0700) != 0 && errno != EEXIST)
		{
			copy_fail(e, "cannot make %s: %s", parts, strerror(errno));
			free(parts);
			return NULL;
		}
		free(parts);
	}
	ep = mem_alloc(sizeof(DirEndpoint));
	memset(ep, 0, sizeof(*ep));
	ep->base.ops = &dir_ops;
	ep->base.spec = spec;
	mem_string_init(&ep->line);
	return &ep->base;
}

static bool
dir_list_tables(Endpoint *base, void (*add) (void *, const char *), void *arg, CopyError *e)
{
	DIR		   *d = opendir(base->spec->path);
	struct dirent *de;
	char	  **names = NULL;
	int			n = 0,
				cap = 0;

	if (d == NULL)
		return copy_fail(e, "cannot read the directory %s: %s", base->spec->path, strerror(errno));
	while ((de = readdir(d)) != NULL)
	{
		const char *name = de->d_name;
		size_t		len = strlen(name);
		size_t		base_len = 0;

		if (len > 9 && strcmp(name + len - 9, ".jsonl.gz") == 0)
			base_len = len - 9;
		else if (len > 6 && strcmp(name + len - 6, ".jsonl") == 0)
			base_len = len - 6;
		if (base_len == 0 || !record_table_name_ok(name, base_len) ||
			(base_len == 8 && strncmp(name, "manifest", 8) == 0))
			continue;
		if (n == cap)
		{
			cap = cap ? cap * 2 : 16;
			names = mem_realloc(names, sizeof(char *) * cap);
		}
		names[n++] = mem_strndup(name, base_len);
	}
	closedir(d);
	/* sorted, each table once (a .jsonl beside a .jsonl.gz is read as the .gz) */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && strcasecmp(names[j - 1], names[j]) > 0; j--)
		{
			char	   *t = names[j];

			names[j] = names[j - 1];
			names[j - 1] = t;
		}
	for (int i = 0; i < n; i++)
	{
		if (i == 0 || strcmp(names[i - 1], names[i]) != 0)
			add(arg, names[i]);
	}
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return true;
}

static int
dir_table_exists(Endpoint *base, const char *table, CopyError *e)
{
	char	   *p = data_file(base->spec->path, table);

	free(p);
	return p != NULL;
}

static bool
dir_create_table(Endpoint *base, const char *table, CopyError *e)
{
	return true;				/* begin_table makes the file */
}

static Reader *
dir_open_reader(Endpoint *base, const ReadSpec *spec, CopyError *e)
{
	char	   *path = data_file(base->spec->path, spec->table);
	Reader	   *r;

	if (path == NULL)
		return copy_fail(e, "the directory has no file for the table %s", spec->table), NULL;
	r = mem_alloc(sizeof(Reader));
	memset(r, 0, sizeof(*r));
	r->ep = (DirEndpoint *) base;
	r->spec = *spec;
	r->path = path;
	r->expect = manifest_table_entities(base->spec->path, spec->table);
	if (spec->filter != NULL)
	{
		TsError		err = {0};

		r->filter = filter_compile(spec->filter, &err);
		if (r->filter == NULL)
		{
			copy_fail(e, "--filter: %s", err.msg);
			free(path);
			free(r);
			return NULL;
		}
	}
	r->in = jsonl_open_read(path);
	if (r->in == NULL)
	{
		copy_fail(e, "cannot open %s: %s", path, strerror(errno));
		filter_free(r->filter);
		free(path);
		free(r);
		return NULL;
	}
	return r;
}

/*
 * Does the record pass the reader's resume point, key range, Timestamp and filter? The resume
 * point is a line of the file: what follows it is wanted (in the file's order, which may be the
 * service's rather than a store's).
 */
static bool
wanted(Reader *r, const Record *rec)
{
	const ReadSpec *s = &r->spec;

	if (s->has_after && !r->after_seen)
	{
		r->after_seen = record_key_cmp(rec->pk, rec->pk_len, s->after_pk, s->after_pk_len) == 0 &&
			record_key_cmp(rec->rk, rec->rk_len, s->after_rk, s->after_rk_len) == 0;
		return false;
	}
	if (s->lo_pk && record_key_cmp(rec->pk, rec->pk_len, s->lo_pk, strlen(s->lo_pk)) < 0)
		return false;
	if (s->hi_pk && record_key_cmp(rec->pk, rec->pk_len, s->hi_pk, strlen(s->hi_pk)) >= 0)
		return false;
	if (s->since_ticks > 0 && rec->ticks < s->since_ticks)
		return false;
	return r->filter == NULL || filter_match(r->filter, rec);
}

static int
dir_read(Reader *r, Record *out, CopyError *e)
{
	for (;;)
	{
		const char *line,
				   *why = NULL;
		size_t		len;
		int			rc = jsonl_next(r->in, &line, &len, &why);

		if (rc == 0 && r->spec.has_after && !r->after_seen)
			return copy_fail(e, "%s: the checkpoint's resume point (PartitionKey \"%.100s\", RowKey \"%.100s\") is not in the file: it has changed since the run that stopped",
							 r->path, r->spec.after_pk, r->spec.after_rk), -1;
		/* a file cut at a line's end (a plain one; gzip's end is checked) is not the whole table */
		if (rc == 0 && r->expect >= 0 && r->entities != r->expect)
			return copy_fail(e, "%s holds %lld entities, its directory's manifest %lld: the file is not the one the manifest sums (cut short, or written since)",
							 r->path, r->entities, r->expect), -1;
		if (rc == 0)
			return 0;
		if (rc < 0)
			return copy_fail(e, "%s, line %lld: %s", r->path, r->lineno + 1, why), -1;
		r->lineno++;
		if (len == 0)
			continue;
		r->entities++;
		memset(&r->err, 0, sizeof(r->err));
		if (!record_from_json(line, len, out, &r->err))
		{
			copy_fail(e, "%s line %lld: %s", r->path, r->lineno, r->err.msg);
			snprintf(e->code, sizeof(e->code), "%s", ts_error_service_code(r->err.code));
			e->raw = line;
			e->raw_len = len;
			return READ_BAD_RECORD;
		}
		/* key order, as the endpoints read: resuming and comparing rely on it */
		if (!key_order_next(&r->order, out))
			return copy_fail(e, "%s line %lld: the entities are not in key order (PartitionKey, then RowKey, each once)",
							 r->path, r->lineno), -1;
		if (!wanted(r, out))
			continue;
		if (r->spec.keys_only)
			out->body = NULL;
		return 1;
	}
}

typedef struct KeyRef
{
	const Record *r;
	int			i;
} KeyRef;

static int
keyref_cmp(const void *a, const void *b)
{
	const Record *x = ((const KeyRef *) a)->r,
			   *y = ((const KeyRef *) b)->r;
	int			c = record_key_cmp(x->pk, x->pk_len, y->pk, y->pk_len);

	return c != 0 ? c : record_key_cmp(x->rk, x->rk_len, y->rk, y->rk_len);
}

/* --mirror's confirmation: one read of the table's file for all n keys (a directory has no point reads) */
static bool
dir_exists_many(Endpoint *base, const char *table, const Record *keys, int n, bool *found, CopyError *e)
{
	ReadSpec	spec = {.table = table, .keys_only = true};
	KeyRef	   *sorted = mem_alloc(sizeof(KeyRef) * (n ? n : 1));
	Reader	   *r;
	MemArena	arena = {0};
	MemArena   *prev;
	int			rc = -1;

	for (int i = 0; i < n; i++)
		sorted[i] = (KeyRef) {&keys[i], i};
	qsort(sorted, n, sizeof(KeyRef), keyref_cmp);
	prev = mem_use(&arena);
	r = dir_open_reader(base, &spec, e);
	while (r != NULL)
	{
		Record		rec;
		KeyRef		probe = {&rec, -1},
				   *hit;

		mem_arena_reset(&arena);
		rc = dir_read(r, &rec, e);
		if (rc == READ_BAD_RECORD)
			continue;			/* a line there, not readable: its key is unknown */
		if (rc <= 0)
			break;
		if ((hit = bsearch(&probe, sorted, n, sizeof(KeyRef), keyref_cmp)) != NULL)
			found[hit->i] = true;
	}
	dir_close_reader(r);
	mem_use(prev);
	mem_arena_free(&arena);
	free(sorted);
	return r != NULL && rc == 0;
}

static void
dir_close_reader(Reader *r)
{
	if (r == NULL)
		return;
	jsonl_close_read(r->in);
	filter_free(r->filter);
	key_order_free(&r->order);
	free(r->path);
	free(r);
}

static void
close_open(DirEndpoint *ep)
{
	jsonl_close_write(ep->open.data);
	jsonl_close_write(ep->open.parts);
	free(ep->open.table);
	memset(&ep->open, 0, sizeof(ep->open));
}

static bool
dir_begin_table(Endpoint *base, const char *table, const WriterPos *resume_at, CopyError *e)
{
	DirEndpoint *ep = (DirEndpoint *) base;
	char	   *data_path,
			   *other,
			   *parts_path,
			   *parts_dir;
	bool		resume = resume_at != NULL && resume_at->data_offset > 0;

	if (ep->open.table)
		close_open(ep);
	data_path = path_join(base->spec->path, table, opt.gzip ? ".jsonl.gz" : ".jsonl");
	/* the other spelling of the file goes, so that readers find one */
	other = path_join(base->spec->path, table, opt.gzip ? ".jsonl" : ".jsonl.gz");
	unlink(other);
	free(other);
	parts_dir = path_join(base->spec->path, ".parts", "");
	parts_path = path_join(parts_dir, table, ".jsonl");
	free(parts_dir);
	ep->open.data = jsonl_open_write(data_path, opt.gzip, resume ? resume_at->data_offset : -1);
	ep->open.parts = ep->open.data ? jsonl_open_write(parts_path, false, resume ? resume_at->parts_offset : -1) : NULL;
	if (ep->open.data == NULL || ep->open.parts == NULL)
	{
		copy_fail(e, "cannot write %s: %s", ep->open.data ? parts_path : data_path, strerror(errno));
		free(data_path);
		free(parts_path);
		close_open(ep);
		return false;
	}
	free(data_path);
	free(parts_path);
	ep->open.table = mem_strdup(table);
	return true;
}

static WriteResult
dir_write_batch(Endpoint *base, const WriteSpec *spec, const Record *recs, int n, CopyError *e)
{
	DirEndpoint *ep = (DirEndpoint *) base;
	Sum128		sum = {0, 0};
	int64		max_ticks = 0;
	char		hex[33];

	if (ep->open.table == NULL || strcmp(ep->open.table, spec->table) != 0)
		return copy_fail(e, "internal error: the directory writer is not on table %s", spec->table), WRITE_FAILED;
	for (int i = 0; i < n; i++)
	{
		ep->line.len = 0;
		record_append_json(&ep->line, &recs[i], REC_JSON_KEYS | REC_JSON_TIMESTAMP);
		if (!jsonl_write(ep->open.data, ep->line.data, ep->line.len))
			return copy_fail(e, "cannot write the file of %s: %s", spec->table, strerror(errno)), WRITE_FAILED;
		sum128_add(&sum, record_checksum(&recs[i], false));
		if (recs[i].ticks > max_ticks)
			max_ticks = recs[i].ticks;
	}
	ep->line.len = 0;
	appendStringInfoString(&ep->line, "{\"partition\":");
	jsonl_append_string(&ep->line, recs[0].pk, recs[0].pk_len);
	sum128_hex(sum, hex);
	appendStringInfo(&ep->line, ",\"entities\":%d,\"checksum\":\"%s\",\"max_ticks\":" INT64_FORMAT "}", n, hex, max_ticks);
	if (!jsonl_write(ep->open.parts, ep->line.data, ep->line.len))
		return copy_fail(e, "cannot write the partitions of %s: %s", spec->table, strerror(errno)), WRITE_FAILED;
	return WRITE_OK;
}

static bool
dir_sync_table(Endpoint *base, const char *table, WriterPos *pos, CopyError *e)
{
	DirEndpoint *ep = (DirEndpoint *) base;

	if (ep->open.table == NULL)
		return true;
	if (!jsonl_sync(ep->open.data, &pos->data_offset) || !jsonl_sync(ep->open.parts, &pos->parts_offset))
		return copy_fail(e, "cannot write the files of %s: %s", table, strerror(errno));
	return true;
}

static bool
dir_end_table(Endpoint *base, const char *table, CopyError *e)
{
	DirEndpoint *ep = (DirEndpoint *) base;
	bool		ok = true;

	if (ep->open.table == NULL)
		return true;
	ok = jsonl_close_write(ep->open.data);
	ok = jsonl_close_write(ep->open.parts) && ok;
	ep->open.data = ep->open.parts = NULL;
	free(ep->open.table);
	ep->open.table = NULL;
	if (!ok)
		return copy_fail(e, "cannot finish the files of %s: %s", table, strerror(errno));
	return true;
}

static bool
dir_get_acl(Endpoint *base, const char *table, char **xml, CopyError *e)
{
	return manifest_read_acl(base->spec->path, table, xml, e);
}

static bool
dir_set_acl(Endpoint *base, const char *table, const char *xml, CopyError *e)
{
	char	   *dir = path_join(base->spec->path, ".parts", "");
	char	   *path = path_join(dir, table, ".acl.xml");
	int			fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	FILE	   *f = fd < 0 ? NULL : fdopen(fd, "w");
	bool		ok = f != NULL && fputs(xml, f) >= 0;

	if (f != NULL && fclose(f) != 0)
		ok = false;
	if (!ok)
		copy_fail(e, "cannot write %s: %s", path, strerror(errno));
	free(dir);
	free(path);
	return ok;
}

static void
dir_close(Endpoint *base)
{
	DirEndpoint *ep = (DirEndpoint *) base;

	if (ep->open.table)
		close_open(ep);
	pfree(ep->line.data);
	free(ep);
}

static const EndpointOps dir_ops = {
	.kind = "directory",
	.list_tables = dir_list_tables,
	.table_exists = dir_table_exists,
	.create_table = dir_create_table,
	.open_reader = dir_open_reader,
	.read = dir_read,
	.close_reader = dir_close_reader,
	.exists_many = dir_exists_many,
	.write_batch = dir_write_batch,
	.begin_table = dir_begin_table,
	.sync_table = dir_sync_table,
	.end_table = dir_end_table,
	.get_acl = dir_get_acl,
	.set_acl = dir_set_acl,
	.close = dir_close,
};
