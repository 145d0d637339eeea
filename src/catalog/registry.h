/*
 * registry.h - the registry tablestore.tables (one row per table: its name as created, its key,
 * its indexing policy), which callers may read and only the extension's owner writes.
 */
#ifndef REGISTRY_H
#define REGISTRY_H

#include "postgres.h"

/* The owner of tablestore.tables: the extension's owner, as whom its rows are written. */
extern Oid	ts_registry_owner(void);

/* Run a statement on the registry (text arguments, at most 2) as its owner; raises unless SPI answers expect. In SPI. */
extern void ts_registry_write(const char *sql, int nargs, const char *const *args, int expect);

#endif							/* REGISTRY_H */
