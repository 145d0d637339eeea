#!/usr/bin/env bash
# bench/batch/gen.sh DIR - write the batch workload's pgbench scripts into DIR. Each transaction
# writes 100 new entities of one partition under a random batch number b:
#   ts_batch.sql    one execute_batch of 100 inserts, the document sent as text
#   ts_batchjsonb.sql  the same with the document cast to jsonb first
#   ts_single.sql   100 insert_entity statements (each its own transaction)
#   raw_multi.sql   one 100-row INSERT into the raw (pk, rk, doc jsonb) table
set -eu
dir=$1
head='\set b random(1, 9000000000000000)
\set p :b % 100'
{
	echo "$head"
	echo "SELECT tablestore.execute_batch('bench', batch_text('p' || :p, :b));"
} >"$dir/ts_batch.sql"
{
	echo "$head"
	echo "SELECT tablestore.execute_batch('bench', batch_text('p' || :p, :b)::jsonb);"
} >"$dir/ts_batchjsonb.sql"
{
	echo "$head"
	for i in $(seq 0 99); do
		printf "SELECT tablestore.insert_entity('bench', entity_text('p' || :p, :b || '_%03d', :b)::tablestore.entity);\n" "$i"
	done
} >"$dir/ts_single.sql"
{
	echo "$head"
	echo "INSERT INTO raw (pk, rk, doc) SELECT 'p' || :p, :b || '_' || lpad(i::text, 3, '0'), doc_text(:b)::jsonb FROM generate_series(0, 99) i;"
} >"$dir/raw_multi.sql"
