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
#      insert looks for itself;
#   5. a batch whose first insert takes long learns its keys' history again before the next;
#   6. a 100-insert batch scans the primary key a few times on the direct path, not 100;
#   7. a batch over the keys of another transaction's batch waits for that whole transaction:
#      it sees all of that batch, and a later write of that transaction does not deadlock with it;
#   8. a batch whose condition fails does not wait, before answering, on a transaction inserting
#      one of its keys.
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
	# until its first merge is done (it then sleeps), at most 10 s
	for _ in $(seq 100); do
		[ "$(q $DB "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event = 'PgSleep'")" = 1 ] && break
		sleep 0.1
	done
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
# 5. a batch whose first insert takes a second (a CHECK that sleeps on its key): a writer that starts
#    on the batch's second key meanwhile, writes a later version and deletes it, is waited for (the
#    batch learns its keys' history again before the second insert), so the second entity's
#    Timestamp is later than that deleted version's (in a partition of their own, so that the
#    batch's key range is worth scanning)
q $DB "CREATE FUNCTION slow_key(k text) RETURNS boolean LANGUAGE plpgsql AS \$\$
	BEGIN IF k = 'a1' THEN PERFORM pg_sleep(1); END IF; RETURN true; END \$\$" >/dev/null
q $DB "ALTER TABLE tablestore_data.race ADD CONSTRAINT slow CHECK (slow_key(row_key))" >/dev/null
bg "SELECT jsonb_array_length(tablestore.execute_batch('Race', '[{\"op\":\"insert\",\"entity\":{\"PartitionKey\":\"p5\",\"RowKey\":\"a1\"}},
	{\"op\":\"insert\",\"entity\":{\"PartitionKey\":\"p5\",\"RowKey\":\"z1\"}}]'))" inserter
sleep 0.3
bg "BEGIN; SELECT tablestore.insert_entity('Race', '{\"PartitionKey\":\"p5\",\"RowKey\":\"z1\",\"u\":1}'); SELECT pg_sleep(1.2);
    SELECT tablestore.merge_entity('Race', '{\"PartitionKey\":\"p5\",\"RowKey\":\"z1\",\"u\":2}');
    INSERT INTO seen SELECT 'last version of z1', \"timestamp\" FROM tablestore_data.race WHERE partition_key = 'p5' AND row_key = 'z1';
    SELECT tablestore.delete_entity('Race', 'p5', 'z1'); COMMIT;" writer
wait
out writer >/dev/null
check "fast_path=$mode: a batch whose first insert took a second succeeded" "$(out inserter)" "2"
check "fast_path=$mode: the Timestamp of its second entity is later than the version a writer deleted meanwhile" \
	"$(q $DB "SELECT r.\"timestamp\" > s.ts FROM tablestore_data.race r, seen s WHERE r.partition_key = 'p5' AND r.row_key = 'z1' AND s.what = 'last version of z1'")" "t"
q $DB "ALTER TABLE tablestore_data.race DROP CONSTRAINT slow" >/dev/null

# 6. how a 100-insert batch looks for its keys' history: a few scans of the primary key on the
#    direct path (one, and again when what it learnt is older than 100 microseconds), one lookup
#    per insert through SQL (counted by the index's idx_scan; a session's counts are flushed when
#    it ends)
idx_scans() { q $DB "SELECT idx_scan FROM pg_stat_user_indexes WHERE indexrelid = 'tablestore_data.race_pkey'::regclass"; }
before=$(idx_scans)
q $DB "SELECT jsonb_array_length(tablestore.execute_batch('Race', (SELECT '[' || string_agg(format(
	'{\"op\":\"insert\",\"entity\":{\"PartitionKey\":\"q\",\"RowKey\":\"%s\"}}', lpad(i::text, 3, '0')), ',') || ']'
	FROM generate_series(1, 100) i)))" >/dev/null
after=$(idx_scans)
if [ $mode = on ]; then
	check "fast_path=$mode: a 100-insert batch scans the primary key fewer than 50 times (got $((after - before)))" \
		"$([ $((after - before)) -lt 50 ] && echo yes)" "yes"
else
	check "fast_path=$mode: a 100-insert batch looks up each key (got $((after - before)) scans)" \
		"$([ $((after - before)) -ge 100 ] && echo yes)" "yes"
fi

# 7. a batch over the keys of another transaction's batch waits for that whole transaction: it
#    sees all of the batch's writes, not some (the merge of g1 and the insert of g2 together), and
#    a write of that transaction after its batch (to g1, which the waiting batch also locks) does
#    not deadlock with it
q $DB "SELECT tablestore.insert_entity('Race', '{\"PartitionKey\":\"g\",\"RowKey\":\"g1\",\"a\":1}') IS NOT NULL" >/dev/null
bg "BEGIN; SELECT count(*) FROM jsonb_array_elements(tablestore.execute_batch('Race', '[
	{\"op\":\"merge\",\"entity\":{\"PartitionKey\":\"g\",\"RowKey\":\"g1\",\"b\":2}},
	{\"op\":\"insert\",\"entity\":{\"PartitionKey\":\"g\",\"RowKey\":\"g2\",\"b\":2}}]'));
	SELECT pg_sleep(1.2); COMMIT;" first
sleep 0.4
bg "SELECT count(*) FROM jsonb_array_elements(tablestore.execute_batch('Race', '[
	{\"op\":\"merge\",\"entity\":{\"PartitionKey\":\"g\",\"RowKey\":\"g1\",\"c\":3}},
	{\"op\":\"merge\",\"entity\":{\"PartitionKey\":\"g\",\"RowKey\":\"g2\",\"c\":3}}]'))" second
wait
out first >/dev/null
check "fast_path=$mode: a batch waiting on another transaction's batch sees all of it" "$(out second)" "2"
bg "SET deadlock_timeout = '100ms'; BEGIN; SELECT count(*) FROM jsonb_array_elements(tablestore.execute_batch('Race', '[
	{\"op\":\"merge\",\"entity\":{\"PartitionKey\":\"g\",\"RowKey\":\"g2\",\"d\":4}}]'));
	SELECT pg_sleep(0.8);
	SELECT tablestore.merge_entity('Race', '{\"PartitionKey\":\"g\",\"RowKey\":\"g1\",\"d\":4}') IS NOT NULL; COMMIT;" single
sleep 0.3
bg "SET deadlock_timeout = '100ms'; SELECT count(*) FROM jsonb_array_elements(tablestore.execute_batch('Race', '[
	{\"op\":\"merge\",\"entity\":{\"PartitionKey\":\"g\",\"RowKey\":\"g1\",\"e\":5}},
	{\"op\":\"merge\",\"entity\":{\"PartitionKey\":\"g\",\"RowKey\":\"g2\",\"e\":5}}]'))" batch
wait
check "fast_path=$mode: a transaction's write after its batch does not deadlock with a waiting batch" "$(out single | tail -1)" "t"
check "fast_path=$mode: and the waiting batch then runs" "$(out batch)" "2"
check "fast_path=$mode: both wrote" \
	"$(q $DB "SELECT tablestore.prop_int32(properties, 'd') || ',' || tablestore.prop_int32(properties, 'e') FROM tablestore_data.race WHERE partition_key = 'g' ORDER BY row_key" | tr '\n' ' ')" "4,5 4,5 "

# 8. a batch whose condition fails runs its earlier merges first (to name one that fails while
#    writing); an upsert of an absent entity is not one of them, so the batch does not wait on a
#    transaction inserting that key (which then writes a row the batch has locked: a deadlock)
q $DB "SELECT tablestore.insert_entity('Race', '{\"PartitionKey\":\"h\",\"RowKey\":\"a\",\"v\":1}') IS NOT NULL" >/dev/null
bg "SET deadlock_timeout = '100ms'; BEGIN; SELECT tablestore.insert_entity('Race', '{\"PartitionKey\":\"h\",\"RowKey\":\"dx\"}') IS NOT NULL;
	SELECT pg_sleep(1);
	SELECT tablestore.merge_entity('Race', '{\"PartitionKey\":\"h\",\"RowKey\":\"a\",\"v\":2}') IS NOT NULL; COMMIT;" inserter
sleep 0.4
bg "SET deadlock_timeout = '100ms'; SELECT tablestore.execute_batch('Race', '[
	{\"op\":\"upsert_merge\",\"entity\":{\"PartitionKey\":\"h\",\"RowKey\":\"dx\",\"w\":1}},
	{\"op\":\"merge\",\"entity\":{\"PartitionKey\":\"h\",\"RowKey\":\"a\",\"w\":1},\"if_match\":\"W/\\\"datetime''2000-01-01T00%3A00%3A00.0000000Z''\\\"\"}]')" failing
wait
check "fast_path=$mode: a transaction inserting a key of a failing batch is not deadlocked by it" "$(out inserter | tail -1)" "t"
check "fast_path=$mode: the batch answers its condition" "$(out failing | grep -o 'operation 1: UpdateConditionNotSatisfied')" "operation 1: UpdateConditionNotSatisfied"
done
unset PGOPTIONS
psql -X -q -d postgres -c "DROP DATABASE $DB" >/dev/null
