/*
 * manifest.c - a directory's manifest (manifest.h).
 */
#include "manifest.h"
#include "copy.h"
#include "jsonl.h"
#include "mem.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MANIFEST_FORMAT "tablestore-copy manifest 1"

static bool
bad(TsError *err, const char *what)
{
	return ts_fail(err, TSE_INVALID_INPUT, "manifest line: %s", what);
}

static bool
checksum_of(const JFlat *f, Sum128 *out)
{
	const JsonToken *t = jflat_get(f, "checksum");

	return t != NULL && t->kind == JT_STRING && sum128_parse(t->p, t->len, out);
}

bool
manifest_parse_line(const char *line, size_t len, ManifestLine *out, TsError *err)
{
	JFlat		f;
	const JsonToken *t;
	bool		end;

	memset(out, 0, sizeof(*out));
	if (!jflat_parse(line, len, &f, err))
		return false;
	if ((t = jflat_get(&f, "format")) != NULL)
	{
		if (t->kind != JT_STRING || t->len != strlen(MANIFEST_FORMAT) || memcmp(t->p, MANIFEST_FORMAT, t->len) != 0)
			return bad(err, "not a manifest of this program (format)");
		out->kind = MANIFEST_HEADER;
		return true;
	}
	if (jflat_bool(&f, "end", &end))
	{
		if (!end || !jflat_int(&f, "tables", &out->tables) || !jflat_int(&f, "entities", &out->entities) ||
			out->tables < 0 || out->entities < 0)
			return bad(err, "the end line needs tables and entities");
		out->kind = MANIFEST_END;
		return true;
	}
	out->table = jflat_str(&f, "table");
	if (out->table == NULL || !record_table_name_ok(out->table, strlen(out->table)))
	{
		manifest_line_free(out);
		return bad(err, "a line needs a valid table name");
	}
	if (!jflat_int(&f, "entities", &out->entities) || out->entities < 0 || !checksum_of(&f, &out->checksum))
	{
		manifest_line_free(out);
		return bad(err, "a table or partition line needs entities and a checksum");
	}
	if (jflat_get(&f, "partition") != NULL)
	{
		t = jflat_get(&f, "partition");
		if (t->kind != JT_STRING || !entity_check_key(t->p, t->len, "PartitionKey", err))
		{
			manifest_line_free(out);
			return err->code != TSE_NONE ? false : bad(err, "a partition must be a string");
		}
		out->partition = mem_strndup(t->p, t->len);
		out->kind = MANIFEST_PARTITION;
		return true;
	}
	out->kind = MANIFEST_TABLE;
	out->file = jflat_str(&f, "file");
	out->acl = jflat_str(&f, "acl");
	if (out->file == NULL || strchr(out->file, '/') != NULL || !jflat_int(&f, "partitions", &out->partitions) ||
		out->partitions < 0 || out->partitions > out->entities)
	{
		manifest_line_free(out);
		return bad(err, "a table line needs a file (a name in the directory) and a partition count");
	}
	if ((t = jflat_get(&f, "max_timestamp")) != NULL && t->kind == JT_STRING &&
		edm_parse_datetime(t->p, t->len, &out->max_ticks) != EDM_OK)
	{
		manifest_line_free(out);
		return bad(err, "max_timestamp is not a DateTime");
	}
	return true;
}

void
manifest_line_free(ManifestLine *m)
{
	free(m->table);
	free(m->partition);
	free(m->file);
	free(m->acl);
	memset(m, 0, sizeof(*m));
}

/* Sum a table's parts file: call emit per partition (NULL: totals only). */
static bool
sum_parts(const char *path, long long *entities, long long *partitions, Sum128 *total, int64 *max_ticks,
		  bool (*emit) (void *arg, const char *pk, size_t pk_len, long long n, Sum128 s), void *arg, CopyError *e)
{
	JsonlReader *in = jsonl_open_read(path);
	const char *line,
			   *why = NULL;
	size_t		len;
	int			rc;
	char	   *cur = NULL;
	size_t		cur_len = 0;
	long long	cur_n = 0;
	Sum128		cur_sum = {0, 0};
	MemArena	arena = {0};
	MemArena   *prev;

	*entities = *partitions = 0;
	*total = (Sum128) {0, 0};
	*max_ticks = 0;
	if (in == NULL)
		return copy_fail(e, "cannot read %s: %s", path, strerror(errno));
	prev = mem_use(&arena);
	while ((rc = jsonl_next(in, &line, &len, &why)) == 1)
	{
		JFlat		f;
		TsError		err = {0};
		const JsonToken *pk;
		long long	n,
					mt = 0;
		Sum128		s;

		mem_arena_reset(&arena);
		if (!jflat_parse(line, len, &f, &err) || (pk = jflat_get(&f, "partition")) == NULL || pk->kind != JT_STRING ||
			!jflat_int(&f, "entities", &n) || !checksum_of(&f, &s))
		{
			rc = -1;
			why = "a damaged partition line";
			break;
		}
		(void) jflat_int(&f, "max_ticks", &mt);
		if (mt > *max_ticks)
			*max_ticks = mt;
		if (cur == NULL || cur_len != pk->len || memcmp(cur, pk->p, cur_len) != 0)
		{
			if (cur != NULL && emit && !emit(arg, cur, cur_len, cur_n, cur_sum))
			{
				rc = -2;
				break;
			}
			if (cur != NULL)
				(*partitions)++;
			free(cur);
			cur = mem_strndup(pk->p, pk->len);
			cur_len = pk->len;
			cur_n = 0;
			cur_sum = (Sum128) {0, 0};
		}
		cur_n += n;
		sum128_add(&cur_sum, s);
		*entities += n;
		sum128_add(total, s);
	}
	if (rc == 0 && cur != NULL)
	{
		(*partitions)++;
		if (emit && !emit(arg, cur, cur_len, cur_n, cur_sum))
			rc = -2;
	}
	mem_use(prev);
	mem_arena_free(&arena);
	free(cur);
	jsonl_close_read(in);
	if (rc == -1)
		return copy_fail(e, "%s: %s", path, why);
	if (rc == -2)
		return copy_fail(e, "cannot write the manifest: %s", strerror(errno));
	return true;
}

typedef struct EmitArg
{
	FILE	   *out;
	const char *table;
	StringInfoData line;
} EmitArg;

static bool
emit_partition(void *arg, const char *pk, size_t pk_len, long long n, Sum128 s)
{
	EmitArg    *a = arg;
	char		hex[33];

	a->line.len = 0;
	appendStringInfo(&a->line, "{\"table\":\"%s\",\"partition\":", a->table);
	jsonl_append_string(&a->line, pk, pk_len);
	sum128_hex(s, hex);
	appendStringInfo(&a->line, ",\"entities\":%lld,\"checksum\":\"%s\"}\n", n, hex);
	return fwrite(a->line.data, 1, a->line.len, a->out) == (size_t) a->line.len;
}

static char *
read_small_file(const char *path)
{
	FILE	   *f = fopen(path, "r");
	char	   *buf;
	size_t		n;

	if (f == NULL)
		return NULL;
	buf = mem_alloc(1 << 16);
	n = fread(buf, 1, (1 << 16) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static int
name_cmp(const void *a, const void *b)
{
	return strcasecmp(*(char *const *) a, *(char *const *) b);
}

bool
manifest_write(const char *dir, const char *source, CopyError *e)
{
	char		path[4096],
				tmp[4096],
				parts_dir[4096];
	DIR		   *d;
	struct dirent *de;
	char	  **tables = NULL;
	int			n = 0,
				cap = 0;
	FILE	   *out;
	EmitArg		a;
	long long	all = 0;
	char		now[EDM_DATETIME_TEXT_LEN + 1];
	bool		ok = true;

	snprintf(parts_dir, sizeof(parts_dir), "%s/.parts", dir);
	d = opendir(parts_dir);
	if (d == NULL)
		return copy_fail(e, "cannot read %s: %s", parts_dir, strerror(errno));
	while ((de = readdir(d)) != NULL)
	{
		size_t		len = strlen(de->d_name);

		if (len > 6 && strcmp(de->d_name + len - 6, ".jsonl") == 0)
		{
			if (n == cap)
				tables = mem_realloc(tables, sizeof(char *) * (cap = cap ? cap * 2 : 16));
			tables[n++] = mem_strndup(de->d_name, len - 6);
		}
	}
	closedir(d);
	qsort(tables, n, sizeof(char *), name_cmp);

	snprintf(path, sizeof(path), "%s/manifest.jsonl", dir);
	snprintf(tmp, sizeof(tmp), "%s/manifest.jsonl.tmp", dir);
	{
		int			fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		out = fd < 0 ? NULL : fdopen(fd, "w");
	}
	if (out == NULL)
		return copy_fail(e, "cannot write %s: %s", tmp, strerror(errno));
	mem_string_init(&a.line);
	a.out = out;
	edm_format_datetime_trimmed(copy_now_ticks(), now);
	appendStringInfo(&a.line, "{\"format\":\"" MANIFEST_FORMAT "\",\"source\":");
	jsonl_append_string(&a.line, source, strlen(source));
	appendStringInfo(&a.line, ",\"created\":\"%s\",\"version\":\"%s\"}\n", now, TS_VERSION);
	ok = fwrite(a.line.data, 1, a.line.len, out) == (size_t) a.line.len;
	for (int i = 0; i < n && ok; i++)
	{
		char		parts[4096],
					aclp[4096],
					hex[33],
					mt[EDM_DATETIME_TEXT_LEN + 1];
		long long	entities,
					partitions;
		Sum128		total;
		int64		max_ticks;
		char	   *acl;
		char	   *file;

		snprintf(parts, sizeof(parts), "%s/%s.jsonl", parts_dir, tables[i]);
		if (!sum_parts(parts, &entities, &partitions, &total, &max_ticks, NULL, NULL, e))
		{
			ok = false;
			break;
		}
		snprintf(aclp, sizeof(aclp), "%s/%s.acl.xml", parts_dir, tables[i]);
		acl = read_small_file(aclp);
		file = mem_alloc(strlen(tables[i]) + 16);
		sprintf(file, "%s.jsonl.gz", tables[i]);
		snprintf(path, sizeof(path), "%s/%s", dir, file);
		if (access(path, F_OK) != 0)
			sprintf(file, "%s.jsonl", tables[i]);
		sum128_hex(total, hex);
		a.line.len = 0;
		appendStringInfo(&a.line, "{\"table\":\"%s\",\"file\":\"%s\",\"entities\":%lld,\"partitions\":%lld,\"checksum\":\"%s\"",
						 tables[i], file, entities, partitions, hex);
		if (max_ticks > 0)
		{
			edm_format_datetime_trimmed(max_ticks, mt);
			appendStringInfo(&a.line, ",\"max_timestamp\":\"%s\"", mt);
		}
		if (acl != NULL)
		{
			appendStringInfoString(&a.line, ",\"acl\":");
			jsonl_append_string(&a.line, acl, strlen(acl));
		}
		appendStringInfoString(&a.line, "}\n");
		free(acl);
		free(file);
		ok = fwrite(a.line.data, 1, a.line.len, out) == (size_t) a.line.len;
		a.table = tables[i];
		if (ok && !sum_parts(parts, &entities, &partitions, &total, &max_ticks, emit_partition, &a, e))
			ok = false;
		all += entities;
	}
	if (ok)
	{
		a.line.len = 0;
		appendStringInfo(&a.line, "{\"end\":true,\"tables\":%d,\"entities\":%lld}\n", n, all);
		ok = fwrite(a.line.data, 1, a.line.len, out) == (size_t) a.line.len;
	}
	if (fflush(out) != 0 || fsync(fileno(out)) != 0)
		ok = false;
	if (fclose(out) != 0)
		ok = false;
	snprintf(path, sizeof(path), "%s/manifest.jsonl", dir);
	if (ok && rename(tmp, path) != 0)
		ok = false;
	if (!ok && e->msg[0] == '\0')
		copy_fail(e, "cannot write %s: %s", path, strerror(errno));
	for (int i = 0; i < n; i++)
		free(tables[i]);
	free(tables);
	pfree(a.line.data);
	return ok;
}

/* the manifest's line for a table, or false */
static bool
find_table_line(const char *dir, const char *table, ManifestLine *out)
{
	char		path[4096];
	JsonlReader *in;
	const char *line,
			   *why;
	size_t		len;
	bool		found = false;
	MemArena	arena = {0};
	MemArena   *prev;

	snprintf(path, sizeof(path), "%s/manifest.jsonl", dir);
	in = jsonl_open_read(path);
	if (in == NULL)
		return false;
	prev = mem_use(&arena);
	while (!found && jsonl_next(in, &line, &len, &why) == 1)
	{
		TsError		err = {0};

		mem_arena_reset(&arena);
		if (manifest_parse_line(line, len, out, &err) && out->kind == MANIFEST_TABLE &&
			strcasecmp(out->table, table) == 0)
			found = true;
		else
			manifest_line_free(out);
	}
	mem_use(prev);
	mem_arena_free(&arena);
	jsonl_close_read(in);
	return found;
}

bool
manifest_read_acl(const char *dir, const char *table, char **xml, CopyError *e)
{
	ManifestLine m;

	*xml = NULL;
	if (find_table_line(dir, table, &m))
	{
		*xml = m.acl;
		m.acl = NULL;
		manifest_line_free(&m);
	}
	return true;
}

long long
manifest_table_entities(const char *dir, const char *table)
{
	ManifestLine m;
	long long	n;

	if (!find_table_line(dir, table, &m))
		return -1;
	n = m.entities;
	manifest_line_free(&m);
	return n;
}
