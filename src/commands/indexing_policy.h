/*
 * indexing_policy.h - the indexing policy's SQL interface (indexing_policy.c): its setting.
 */
#ifndef INDEXING_POLICY_H
#define INDEXING_POLICY_H

#include "postgres.h"

/* Define the settings of index builds (_PG_init). */
extern void ts_indexing_policy_init(void);

#endif							/* INDEXING_POLICY_H */
