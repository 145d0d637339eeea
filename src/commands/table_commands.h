/*
 * table_commands.h - creating tables from C (table_commands.c): what create_table and the REST
 * Create Table share.
 */
#ifndef TABLE_COMMANDS_H
#define TABLE_COMMANDS_H

#include "postgres.h"

#include "index_policy.h"

/* Create a table with an indexing policy (NULL: the default); returns its relation. */
extern Oid	ts_create_table(text *name, const IndexPolicy *policy);

#endif							/* TABLE_COMMANDS_H */
