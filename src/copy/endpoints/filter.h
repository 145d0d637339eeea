/*
 * filter.h - --filter where the source cannot evaluate it (a directory): the OData $filter parsed
 * by the core (odata_parse) and evaluated against each record with the core's typed comparison
 * (odata_eval_prop), so that it selects the entities the service's translation to SQL selects from
 * a database or tablestore-gateway (contract §5): PartitionKey and RowKey compare as the key
 * columns do (ordinal, a non-String literal decided by the mismatch rule), Timestamp as 100 ns
 * ticks, a custom property as its typed value, a comparison on an absent property is false and
 * "not" holds then (two-valued logic).
 */
#ifndef COPY_FILTER_H
#define COPY_FILTER_H

#include "record.h"

typedef struct CopyFilter CopyFilter;

/* Parse filter (at most ODATA_DEFAULT_MAX_COMPARISONS comparisons); NULL with err set. */
extern CopyFilter *filter_compile(const char *filter, TsError *err);
extern bool filter_match(const CopyFilter *f, const Record *r);
extern void filter_free(CopyFilter *f);

#endif
