/*
 * tables.h - what a table is made of (tables.c): the DDL of a table's relation, its stamp trigger
 * and its registry row, which create_table (table_commands.c) and the distribution of tables
 * (distribute.c) share. They run inside an SPI session.
 */
#ifndef TABLES_H
#define TABLES_H

#include "postgres.h"

#include "ts_table.h"

typedef enum TsTableShape
{
	TS_SHAPE_TABLE,				/* an ordinary table with its primary key */
	TS_SHAPE_NODE,				/* a node's part of a distributed table: hash-partitioned, primary key */
	TS_SHAPE_COORDINATOR		/* a distributed table on the coordinator: hash-partitioned over foreign
								 * partitions, which allow no primary key */
} TsTableShape;

/* CREATE TABLE tablestore_data.<key> in the layout of table_layout.h, with its comment. */
extern void ts_table_create_relation(const char *key, const char *name, TsTableShape shape);

/* The BEFORE INSERT OR UPDATE row trigger tablestore.stamp() on tablestore_data.<key>. */
extern void ts_table_create_stamp_trigger(const char *key);

/* The registry row (name as given, key), written as the registry's owner. */
extern void ts_table_register(const char *name, const char *key);

/* The registered name of a key (its case as created), or the key when there is none. */
extern const char *ts_table_registered_name(const char *key);

#endif							/* TABLES_H */
