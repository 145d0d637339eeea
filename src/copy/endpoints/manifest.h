/*
 * manifest.h - a directory's manifest.jsonl (manifest.c): what a copy into the directory wrote,
 * one JSON object per line, streamed (never held in memory whatever the number of partitions):
 *   {"format":"tablestore-copy manifest 1","source":"<FROM, without secrets>","created":"<UTC>","version":"0.4.0"}
 *   {"table":"Orders","file":"Orders.jsonl.gz","entities":1200,"partitions":12,"checksum":"<32 hex>",
 *    "max_timestamp":"2024-05-06T07:08:09.1234567Z"[,"acl":"<SignedIdentifiers XML>"]}
 *   {"table":"Orders","partition":"p1","entities":100,"checksum":"<32 hex>"}      (one per partition)
 *   ...
 *   {"end":true,"tables":3,"entities":4500}
 * Checksums are record.h's without the Timestamp; a table's is the sum of its partitions'.
 */
#ifndef COPY_MANIFEST_H
#define COPY_MANIFEST_H

#include "endpoint.h"

typedef enum ManifestKind
{
	MANIFEST_HEADER,
	MANIFEST_TABLE,
	MANIFEST_PARTITION,
	MANIFEST_END
} ManifestKind;

typedef struct ManifestLine
{
	ManifestKind kind;
	char	   *table;			/* malloc'd (tables, partitions) */
	char	   *partition;		/* malloc'd (partitions) */
	char	   *file;
	char	   *acl;
	long long	entities;
	long long	partitions;
	long long	tables;
	Sum128		checksum;
	int64		max_ticks;
} ManifestLine;

/* One line of a manifest, checked (kinds, members, names, numbers); false with err set. */
extern bool manifest_parse_line(const char *line, size_t len, ManifestLine *out, TsError *err);
extern void manifest_line_free(ManifestLine *m);

/* Write DIR/manifest.jsonl from the tables' partition files (atomically: a rename). */
extern bool manifest_write(const char *dir, const char *source, CopyError *e);

/* A table's access policies from the manifest (*xml NULL when none). */
extern bool manifest_read_acl(const char *dir, const char *table, char **xml, CopyError *e);

/* The entity count the manifest gives a table (-1: no manifest or no such table). */
extern long long manifest_table_entities(const char *dir, const char *table);

#endif
