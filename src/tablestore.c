/*
 * tablestore.c - the module's entry point: the magic block and _PG_init (settings).
 */
#include "postgres.h"

#include "fmgr.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

void
_PG_init(void)
{
}
