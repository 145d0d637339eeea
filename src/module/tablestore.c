/*
 * tablestore.c - the module's entry point: the magic block and _PG_init, which lets each module
 * define its own settings.
 */
#include "postgres.h"

#include "distribute.h"
#include "fast_path.h"
#include "fmgr.h"
#include "indexing_policy.h"
#include "node_conn.h"
#include "plan_cache.h"
#include "query.h"
#include "remote_call.h"
#include "shard_fence.h"
#include "utils/guc.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

void
_PG_init(void)
{
	ts_fast_path_init();
	ts_query_init();
	ts_query_page_init();
	ts_plan_cache_init();
	ts_remote_call_init();
	ts_node_conn_init();
	ts_distribute_init();
	ts_shard_fence_init();
	ts_indexing_policy_init();
	MarkGUCPrefixReserved("tablestore");
}
