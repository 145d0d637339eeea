/*
 * endpoint.h - what every kind of endpoint does for a copy, behind one interface: a Table
 * endpoint (ep_table.c, over libcurl), a tablestore database (ep_db.c, over libpq), a directory
 * (ep_dir.c, JSON Lines over zlib). The copy, verify and mirror loops (copy_table.c, verify.c,
 * mirror.c) see only this.
 *
 * An Endpoint is one connection: each worker thread opens its own. Readers stream a table in key
 * order (PartitionKey, then RowKey), a page or a row at a time, never a table at once; writers take
 * batches of one partition each, written atomically where the endpoint can (a transaction, an
 * entity group transaction), and idempotently: writing a batch again after a crash leaves the same
 * entities (upserts that replace).
 */
#ifndef COPY_ENDPOINT_H
#define COPY_ENDPOINT_H

#include "connstr.h"
#include "record.h"

typedef struct Endpoint Endpoint;
typedef struct Reader Reader;

/* An error: the message, and whether trying again later may help (the caller gave up already). */
typedef struct CopyError
{
	char		msg[1024];
	int			status;			/* HTTP status, or 0 */
	char		code[64];		/* the service's error code / SQLSTATE, or "" */
	const char *raw;			/* READ_BAD_RECORD: the source's text of the record (until the next read) */
	size_t		raw_len;
} CopyError;

extern bool copy_fail(CopyError *e, const char *fmt,...) __attribute__((format(printf, 2, 3)));

/* What to read of a table. */
typedef struct ReadSpec
{
	const char *table;
	const char *filter;			/* the user's OData $filter, or NULL */
	/* resume: only keys strictly after (after_pk, after_rk) */
	bool		has_after;
	const char *after_pk;
	uint32		after_pk_len;
	const char *after_rk;
	uint32		after_rk_len;
	/* a key range of partitions [lo_pk, hi_pk) for parallel copies (NULL: open) */
	const char *lo_pk;
	const char *hi_pk;
	/* incremental: only entities whose Timestamp >= since_ticks */
	int64		since_ticks;
	bool		keys_only;		/* PartitionKey and RowKey only (mirror) */
} ReadSpec;

/* How a batch is written. */
typedef struct WriteSpec
{
	const char *table;
	bool		keep_timestamps;	/* the records' Timestamps become the entities' (databases only) */
	bool		replace_expected;	/* the keys may exist already (sync, resume): plan for it */
	bool		durable;		/* the batch must be durable when write_batch returns (a checkpoint follows) */
} WriteSpec;

/* The outcome of writing one batch. */
typedef enum WriteResult
{
	WRITE_OK,
	WRITE_REFUSED,				/* the destination refused the batch as a whole (a bad entity in it) */
	WRITE_FAILED				/* the destination failed (after its retries): stop */
} WriteResult;

/* A table's place in a directory destination, for the checkpoint (others: zeros). */
typedef struct WriterPos
{
	long long	data_offset;
	long long	parts_offset;
} WriterPos;

typedef struct EndpointOps
{
	const char *kind;			/* "table endpoint", "database", "directory" */
	/* the tables, names as the endpoint spells them, one call of add per table */
	bool		(*list_tables) (Endpoint *ep, void (*add) (void *arg, const char *name), void *arg, CopyError *e);
	/* does the table exist (-1 on error)? */
	int			(*table_exists) (Endpoint *ep, const char *table, CopyError *e);
	bool		(*create_table) (Endpoint *ep, const char *table, CopyError *e);

	Reader	   *(*open_reader) (Endpoint *ep, const ReadSpec *spec, CopyError *e);
	/* the next record (in the reader's arena, valid until the arena is reset): 1, 0 at the end, -1 */
	int			(*read) (Reader *r, Record *out, CopyError *e);
	/* the error of a record that could not be read but does not stop the reader (-2 from read) */
	void		(*close_reader) (Reader *r);

	/* batch of n records of one partition */
	WriteResult (*write_batch) (Endpoint *ep, const WriteSpec *spec, const Record *recs, int n, CopyError *e);
	/* does the entity exist (mirror checks a key before deleting it)? 1, 0, -1 on error */
	int			(*exists) (Endpoint *ep, const char *table, const char *pk, const char *rk, CopyError *e);
	/*
	 * The same for n keys at once (found[i] set for each there): an endpoint without point reads
	 * (a directory) reads itself once per call. NULL: ask exists for each.
	 */
	bool		(*exists_many) (Endpoint *ep, const char *table, const Record *keys, int n, bool *found, CopyError *e);
	/* delete these keys of one partition (mirror); missing ones are not an error */
	bool		(*delete_keys) (Endpoint *ep, const char *table, const Record *recs, int n, CopyError *e);

	/* directories: a table's file starts / is made durable / ends (others: NULL) */
	bool		(*begin_table) (Endpoint *ep, const char *table, const WriterPos *resume_at, CopyError *e);
	bool		(*sync_table) (Endpoint *ep, const char *table, WriterPos *pos, CopyError *e);
	bool		(*end_table) (Endpoint *ep, const char *table, CopyError *e);

	/* before and after loading a table (databases: indexing policy 'none' during the load) */
	bool		(*load_begin) (Endpoint *ep, const char *table, char **saved, CopyError *e);
	bool		(*load_end) (Endpoint *ep, const char *table, const char *saved, CopyError *e);

	/* stored access policies as the service's SignedIdentifiers XML (NULL: the endpoint has none) */
	bool		(*get_acl) (Endpoint *ep, const char *table, char **xml, CopyError *e);
	bool		(*set_acl) (Endpoint *ep, const char *table, const char *xml, CopyError *e);

	/* split a table into n key ranges of about equal size: n - 1 partition keys (NULL: cannot) */
	int			(*split_points) (Endpoint *ep, const char *table, int n, char ***points, CopyError *e);

	void		(*close) (Endpoint *ep);
} EndpointOps;

struct Endpoint
{
	const EndpointOps *ops;
	const EndpointSpec *spec;
};

/* read() answers this for a record the source holds but the core cannot read (a reject) */
#define READ_BAD_RECORD (-2)

extern Endpoint *ep_open(const EndpointSpec *spec, bool for_writing, CopyError *e);
extern Endpoint *ep_table_open(const EndpointSpec *spec, CopyError *e);
extern Endpoint *ep_db_open(const EndpointSpec *spec, CopyError *e);
extern Endpoint *ep_dir_open(const EndpointSpec *spec, bool for_writing, CopyError *e);

/* the directory endpoint's summary of what a finished copy wrote (manifest) */
extern bool ep_dir_write_manifest(const EndpointSpec *spec, const char *source_display, CopyError *e);

#endif
