/*
 * ts_support.h - small helpers that the SQL-callable functions share: argument checks, bounded
 * key excerpts for messages, the "operation N: " prefix of batch errors, SPI sessions that hold
 * cached plans, running one statement through SPI, and the OIDs of the extension's types.
 */
#ifndef TS_SUPPORT_H
#define TS_SUPPORT_H

#include "postgres.h"

#include "fmgr.h"

/* Arguments are not STRICT: a NULL gets InvalidInput "<name> must not be NULL". */
extern void ts_require_arg(FunctionCallInfo fcinfo, int n, const char *name);

/* ("pk", "rk") with each key cut to a bounded excerpt, for messages. */
extern const char *ts_keys_excerpt(const text *pk, const text *rk);

/* "operation N: ", the prefix of every error about one operation of a batch. */
#define TS_OPERATION_PREFIX_BUF 32
extern const char *ts_operation_prefix(char *buf, int index);

/* Run a statement with text arguments (at most 2) inside SPI; raises unless SPI answers expect. */
extern void ts_run_sql(const char *sql, int nargs, const char *const *args, int expect);

/* SPI_connect and ts_plan_cache_begin; ts_spi_end undoes both. */
extern void ts_spi_begin(void);
extern void ts_spi_end(void);

/* The extension's types that C code names by OID. */
typedef enum TsType
{
	TS_TYPE_ENTITY,				/* tablestore.entity */
	TS_TYPE_PROPERTY_FILTER,	/* tablestore.property_filter */
	TS_TYPE__COUNT
} TsType;

/*
 * The OID of one of the extension's types, cached per backend and forgotten when pg_type changes.
 * A type that is missing raises 42704 (undefined_object) with a hint: the extension's SQL objects
 * are older than its library, or were altered; nothing goes on with an invalid OID.
 */
extern Oid	ts_type_oid(TsType t);

#endif							/* TS_SUPPORT_H */
