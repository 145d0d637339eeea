/*
 * key_scope.h - the key range a REST call is limited to: a shared access signature's
 * spk/srk/epk/erk, passed by the gateway as the REST functions' key_scope argument and applied by
 * the database on every path (point reads and writes, deletes, each operation of a batch, and
 * queries with their continuations), so that the range holds even when the gateway's own check
 * is bypassed.
 *
 * The range is the closed interval of (PartitionKey, RowKey) pairs from (spk, srk) to (epk, erk)
 * in key order: a NULL bound is open, srk counts only with spk and erk only with epk (as the
 * service reads them).
 */
#ifndef KEY_SCOPE_H
#define KEY_SCOPE_H

#include "postgres.h"

#include "fmgr.h"
#include "odata.h"

typedef struct KeyScope
{
	text	   *spk;			/* NULL: open */
	text	   *srk;
	text	   *epk;
	text	   *erk;
} KeyScope;

/*
 * The key_scope argument argno (text[]: spk, srk, epk, erk; elements may be NULL): false when
 * the argument is NULL (the call is not scoped). Raises InvalidInput for any other shape.
 */
extern bool key_scope_from_arg(FunctionCallInfo fcinfo, int argno, KeyScope *ks);

/* The message of TSA01, with the keys' excerpt (ts_keys_excerpt) for %s */
#define KEY_SCOPE_MESSAGE "the entity %s is outside the key range this request is authorized for"

/* Is (pk, rk) inside the range? */
extern bool key_scope_contains(const KeyScope *ks, const text *pk, const text *rk);

/* Raise AuthorizationFailure (TSA01) unless (pk, rk) is inside the range. */
extern void key_scope_check(const KeyScope *ks, const text *pk, const text *rk);

/*
 * Limit a translated $filter to the range: f holds filter translated alone (ts_query_translate:
 * its own errors and comparison limit are the ones it would have unscoped, and a filter that
 * translated alone is one whole expression); it becomes the translation of the conjunction of
 * both, parameters numbered after param_base as before.
 */
extern void key_scope_translate(const KeyScope *ks, text *filter, OdFilter *f, int param_base);

#endif							/* KEY_SCOPE_H */
