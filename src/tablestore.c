/*
 * tablestore.c - the module's entry point: the magic block and _PG_init (settings).
 */
#include "postgres.h"

#include "fast_path.h"
#include "fmgr.h"
#include "utils/guc.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

void
_PG_init(void)
{
	DefineCustomBoolVariable("tablestore.fast_path",
							 "Runs single-entity operations directly on the primary key where that keeps SQL's semantics.",
							 "When off, every operation runs as a prepared SQL statement. Both give the same results.",
							 &ts_fast_path_enabled, true, PGC_USERSET, 0, NULL, NULL, NULL);
	MarkGUCPrefixReserved("tablestore");
}
