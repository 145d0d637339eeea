/*
 * query_page.h - collecting one page of a query into a JSON sink (query_page.c): used by
 * query_page, query_page_json and the REST functions.
 */
#ifndef QUERY_PAGE_H
#define QUERY_PAGE_H

#include "query.h"

#include "row_json.h"
#include "tcop/dest.h"

extern int	ts_page_byte_budget_kb;		/* tablestore.page_byte_budget */

typedef struct PageCollector
{
	DestReceiver pub;			/* the page statements' rows arrive here */
	JsonSink   *sink;			/* each row is rendered into it as an element */
	RowJsonContext ctx;			/* metadata level, $select, names for full metadata */
	int			top;
	int			count;
	bool		full;			/* top reached or a budget spent: the next row is the continuation */
	size_t		byte_budget;
	TimestampTz deadline;
	text	   *next_pk;		/* the continuation, when more remain */
	text	   *next_rk;
	/* a sparse filter's walk, in chunks of the key order (query_page.c) */
	int64		chunk_rows;		/* rows of this chunk seen, matching or not */
	int64		chunk_limit;	/* rows in a whole chunk */
	bool		take_next;		/* the time ran out: the next row seen is the continuation */
	text	   *last_pk;		/* the key of the chunk's last row: the next chunk starts after it */
	text	   *last_rk;
	MemoryContext outer;
	MemoryContext row_cxt;
} PageCollector;

/* A collector of at most top rows into sink, minimal metadata, every property, budgets from settings. */
extern void page_collector_init(PageCollector *pc, JsonSink *sink, int top);

/* The page of the filter from the position (pos_pk, pos_rk) on; sets next_pk/next_rk if more remain. */
extern void page_collect(PageCollector *pc, const TsTable *t, const OdFilter *f, text *pos_pk, text *pos_rk);

#endif							/* QUERY_PAGE_H */
