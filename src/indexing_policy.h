/*
 * indexing_policy.h - the indexing policy's SQL interface (indexing_policy.c): its setting.
 */
#ifndef INDEXING_POLICY_H
#define INDEXING_POLICY_H

#include "postgres.h"

/* Define tablestore.max_index_builds (_PG_init). */
extern void ts_indexing_policy_init(void);

/*
 * A tablestore call on the table relid: when its caller owns it, at most every few seconds per
 * session, queued index work of the database that no worker does gets one (after a restart, a
 * worker that died, no slot free). Cheap between two looks: a time compared.
 */
extern void ts_index_relaunch_check(Oid relid);

#endif							/* INDEXING_POLICY_H */
