#!/usr/bin/env bash
# test/scenario/races.sh - operations that wait for another transaction and then find the world
# changed (contract §4, §7), each staged with sessions that hold locks for a moment:
#   1. a merge and a delete waiting on an entity that another transaction deletes and inserts
#      again: they apply to the entity that is there, not "a trigger cancelled the write" (the
#      SQL path) or ResourceNotFound (the direct path);
#   2. a writer and a reader waiting on a table that is dropped meanwhile: TableNotFound, not an
#      internal error about a missing relation;
#   3. an insert waiting on the transaction that writes the last version of its keys and then
#      deletes it: its Timestamp is later than the version it replaces (it is taken after the
#      wait), so a reader syncing on "Timestamp gt ..." does not miss it;
#   4. the same insert inside a batch of inserts: once where one scan of the batch's key range
#      learns every key's history, once where that range holds too many other entities and each
#      insert looks for itself.
# Runs with the direct path on and off.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
DB=scenario_races

# bg SQL: run in the background with the current PGOPTIONS; the output goes to a file named by $!
bg() {
	psql -X -q -At -v ON_ERROR_STOP=1 -d $DB -c "$1" >"/tmp/tablestore-race-$$-$2.out" 2>&1 &
}
out() { cat "/tmp/tablestore-race-$$-$1.out"; rm -f "/tmp/tablestore-race-$$-$1.out"; }

for mode in on off; do
export PGOPTIONS="-c tablestore.fast_path=$mode"
fresh_db $DB
run_sql $DB <<'SQL'
SELECT tablestore.create_table('Race');
SELECT tablestore.insert_entity('Race', '{"PartitionKey":"p","RowKey":"m","a":1}');
SELECT tablestore.insert_entity('Race', '{"PartitionKey":"p","RowKey":"d","a":1}');
SELECT tablestore.insert_entity('Race', '{"PartitionKey":"p","RowKey":"t","a":1}');
SELECT tablestore.create_table('Doomed');
SQL

# 1. delete and insert again under a waiting merge and a waiting delete
bg "BEGIN; SELECT tablestore.delete_entity('Race', 'p', 'm'); SELECT tablestore.delete_entity('Race', 'p', 'd');
    SELECT tablestore.insert_entity('Race', '{\"PartitionKey\":\"p\",\"RowKey\":\"m\",\"b\":2}');
    SELECT tablestore.insert_entity('Race', '{\"PartitionKey\":\"p\",\"RowKey\":\"d\",\"b\":2}');
    SELECT pg_sleep(1.5); COMMIT;" holder
sleep 0.5
bg "SELECT tablestore.merge_entity('Race', '{\"PartitionKey\":\"p\",\"RowKey\":\"m\",\"c\":3}') IS NOT NULL" merger
bg "SELECT tablestore.delete_entity('Race', 'p', 'd')" deleter
wait
out holder >/dev/null
check "fast_path=$mode: a merge that waited on a delete and re-insert applies to the new entity" "$(out merger)" "t"
check "fast_path=$mode: its result is the merge of the new entity" \
	"$(q $DB "SELECT properties::text FROM tablestore.get_entity('Race', 'p', 'm')")" '{"b":2,"c":3}'
check "fast_path=$mode: a delete that waited on a delete and re-insert deletes the new entity" "$(out deleter)" ""
check "fast_path=$mode: which is gone" "$(q $DB "SELECT count(*) FROM tablestore_data.race WHERE row_key = 'd'")" "0"

# 2. a table dropped while a writer and a reader wait for it
bg "BEGIN; LOCK TABLE tablestore_data.doomed IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(1); SELECT tablestore.drop_table('Doomed'); COMMIT;" dropper
sleep 0.4
bg "SELECT tablestore.insert_entity('Doomed', '{\"PartitionKey\":\"p\",\"RowKey\":\"r\"}')" writer
bg "SELECT count(*) FROM tablestore.query_entities('Doomed')" reader
wait
out dropper >/dev/null
check "fast_path=$mode: a writer waiting on a table dropped meanwhile gets TableNotFound" \
	"$(out writer | grep -o 'TableNotFound\|could not open relation\|XX000' | head -1)" "TableNotFound"
check "fast_path=$mode: and so does a reader" \
	"$(out reader | grep -o 'TableNotFound\|could not open relation\|XX000' | head -1)" "TableNotFound"

# 3. an insert that waits on the transaction that writes the last version of its keys and deletes it
q $DB "CREATE TABLE seen (what text, ts timestamptz)" >/dev/null
# write_last_version_and_delete KEY: in the background, one transaction merges into the entity,
# waits a second, merges again, notes that last version's Timestamp in seen and deletes it
write_last_version_and_delete() {
	bg "BEGIN; SELECT tablestore.merge_entity('Race', '{\"PartitionKey\":\"p\",\"RowKey\":\"$1\",\"u\":1}'); SELECT pg_sleep(1);
	    SELECT tablestore.merge_entity('Race', '{\"PartitionKey\":\"p\",\"RowKey\":\"$1\",\"u\":2}');
	    INSERT INTO seen SELECT 'last version of $1', \"timestamp\" FROM tablestore_data.race WHERE row_key = '$1';
	    SELECT tablestore.delete_entity('Race', 'p', '$1'); COMMIT;" writer
	sleep 0.4
}
write_last_version_and_delete t
bg "SELECT tablestore.insert_entity('Race', '{\"PartitionKey\":\"p\",\"RowKey\":\"t\",\"again\":1}') IS NOT NULL" inserter
wait
out writer >/dev/null
check "fast_path=$mode: the insert that waited succeeded" "$(out inserter)" "t"
check "fast_path=$mode: its Timestamp is later than that of the version it replaces" \
	"$(q $DB "SELECT r.\"timestamp\" > s.ts FROM tablestore_data.race r, seen s WHERE r.row_key = 't' AND s.what = 'last version of t'")" "t"

# 4. the same through batches: keys s9, t2, u0 (one scan of [s9, u0] learns their history), and
#    keys a0, t3 (the range holds 200 other entities: each insert looks itself)
q $DB "SELECT count(tablestore.insert_entity('Race', format('{\"PartitionKey\":\"p\",\"RowKey\":\"f%s\"}', lpad(i::text, 3, '0'))::tablestore.entity))
	FROM generate_series(0, 199) i" >/dev/null
for keys in "s9 t2 u0" "a0 t3"; do
	waited=$(echo $keys | cut -d' ' -f2)
	q $DB "SELECT tablestore.insert_entity('Race', '{\"PartitionKey\":\"p\",\"RowKey\":\"$waited\",\"a\":1}')" >/dev/null
	write_last_version_and_delete "$waited"
	ops=$(for k in $keys; do printf '{"op":"insert","entity":{"PartitionKey":"p","RowKey":"%s","again":1}},' "$k"; done)
	bg "SELECT jsonb_array_length(tablestore.execute_batch('Race', '[${ops%,}]'))" inserter
	wait
	out writer >/dev/null
	check "fast_path=$mode: a batch inserting $keys that waited on $waited succeeded" "$(out inserter)" "$(echo $keys | wc -w)"
	check "fast_path=$mode: the Timestamp of $waited is later than that of the version it replaces" \
		"$(q $DB "SELECT r.\"timestamp\" > s.ts FROM tablestore_data.race r, seen s WHERE r.row_key = '$waited' AND s.what = 'last version of $waited'")" "t"
done
done
unset PGOPTIONS
psql -X -q -d postgres -c "DROP DATABASE $DB" >/dev/null
