#!/usr/bin/env bash
# test/scenario/index_rebuild.sh - a change of indexing policy rebuilds the entity index online
# (contract §1): while the new index is built concurrently (index_worker.c), writes of 4 sessions
# go on and are acknowledged (on a table whose index were built with a plain CREATE INDEX they
# would wait for the whole build); afterwards every acknowledged write is there, once, the table
# has exactly the index of its new policy, and the index answers for the entities written during
# the build. Then the worker is killed in the middle of a build: the change stays queued, the
# invalid index it leaves is dropped and the index built by the relaunched worker, and answers
# stay right throughout; a lock held on the table and tablestore.max_index_builds queue a change
# instead of refusing it (doc/reliability.md, "Index builds").
# On a distributed table (test/t/004) the nodes build; the same answers are checked there.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
DB=scenario_index_rebuild
N=${N:-150000}
WRITERS=4
fresh_db $DB
distributed=$(q $DB "SELECT coalesce(current_setting('tablestore.distribute_new_tables', true), '') <> ''")
[ "$distributed" = t ] && N=20000
run_sql $DB <<SQL
SELECT tablestore.create_table('Rebuilt');
INSERT INTO tablestore_data.rebuilt (partition_key, row_key, properties)
SELECT 'p' || (i % 100), lpad(i::text, 7, '0'),
	format('{"Code":%s,"Name":"n%s","Note":"%s","Flag":%s}', i, i, repeat('x', 40), (i % 7 = 0)::text)::tablestore.entity
FROM generate_series(1, $N) i;
VACUUM ANALYZE tablestore_data.rebuilt;
CREATE TABLE acks (session int, n int, at timestamptz DEFAULT clock_timestamp());
-- a writer: inserts (and merges of what it wrote), one per transaction, until told to stop; each
-- acknowledged insert is recorded (in the same transaction) in acks
CREATE TABLE stop (yes bool);
CREATE PROCEDURE writer(s int) LANGUAGE plpgsql AS \$\$
DECLARE
	i int := 0;
BEGIN
	LOOP
		EXIT WHEN EXISTS (SELECT 1 FROM stop) OR i >= 200000;
		i := i + 1;
		PERFORM tablestore.insert_entity('Rebuilt', format('{"PartitionKey":"w%s","RowKey":"%s","Code":%s,"Name":"w%s_%s"}',
			s, lpad(i::text, 7, '0'), -i, s, i)::tablestore.entity);
		IF i % 5 = 0 THEN
			PERFORM tablestore.merge_entity('Rebuilt', format('{"PartitionKey":"w%s","RowKey":"%s","Merged":true}',
				s, lpad((i - 1)::text, 7, '0'))::tablestore.entity);
		END IF;
		INSERT INTO acks (session, n) VALUES (s, i);
		COMMIT;
	END LOOP;
END \$\$;
SQL

# start the writers, wait until they write, then change the policy
pids=()
for s in $(seq 1 $WRITERS); do
	psql -X -q -v ON_ERROR_STOP=1 -d $DB -c "CALL writer($s)" >/tmp/tablestore-index-rebuild-$s.log 2>&1 &
	pids+=($!)
done
for _ in $(seq 1 200); do [ "$(q $DB "SELECT count(*) > 20 FROM acks")" = t ] && break; sleep 0.05; done
q $DB "SELECT tablestore.set_indexing_policy('Rebuilt', '{\"excludedPaths\":[{\"path\":\"/Note/?\"}]}') ->> 'indexingMode'" >/dev/null
# watch the build: acknowledged writes while the new index is not yet applied
samples=$(mktemp)
for _ in $(seq 1 1200); do
	q $DB "SELECT tablestore.indexing_progress('Rebuilt'), (SELECT count(*) FROM acks)" >>"$samples"
	[ "$(tail -1 "$samples" | cut -d'|' -f1)" = 100 ] && break
	sleep 0.1
done
q $DB "INSERT INTO stop VALUES (true)"
failed=0
for p in "${pids[@]}"; do wait "$p" || failed=$((failed + 1)); done
check "the writers finished without an error" "$failed$(cat /tmp/tablestore-index-rebuild-*.log)" "0"
rm -f /tmp/tablestore-index-rebuild-*.log
check "the policy was applied" "$(tail -1 "$samples" | cut -d'|' -f1)" "100"
during=$(awk -F'|' '$1 < 100 { if (first == "") first = $2; last = $2; n++ } END { print n + 0, last - first }' "$samples")
echo "# while the index was rebuilt: $(echo "$during" | cut -d' ' -f1) samples, $(echo "$during" | cut -d' ' -f2) writes acknowledged"
if [ "$distributed" != t ]; then
	check "the build took several samples" "$([ "$(echo "$during" | cut -d' ' -f1)" -ge 3 ] && echo yes || echo "no: $during")" "yes"
	check "writes were acknowledged while the index was rebuilt" \
		"$([ "$(echo "$during" | cut -d' ' -f2)" -gt 0 ] && echo yes || echo "no: $during")" "yes"
	check "exactly the index of the new policy" \
		"$(q $DB "SELECT string_agg(pg_get_indexdef(indexrelid) ~ 'excluded=''Note''' || '/' || indisvalid, ',') FROM pg_index
			WHERE indrelid = 'tablestore_data.rebuilt'::regclass AND indexrelid <> 'tablestore_data.rebuilt_pkey'::regclass")" "true/true"
fi
rm -f "$samples"

# every acknowledged write is there, once, merged where it was merged; the index finds them
check "every acknowledged insert is there" \
	"$(q $DB "SELECT count(*) FROM acks a WHERE NOT EXISTS (SELECT 1 FROM tablestore_data.rebuilt r
		WHERE r.partition_key = 'w' || a.session AND r.row_key = lpad(a.n::text, 7, '0'))")" "0"
check "and nothing else" "$(q $DB "SELECT (SELECT count(*) FROM tablestore_data.rebuilt WHERE partition_key LIKE 'w%') - (SELECT count(*) FROM acks)")" "0"
q $DB "ANALYZE tablestore_data.rebuilt" >/dev/null
check "the index answers for the writes made during the build" \
	"$(q $DB "SELECT (SELECT count(*) FROM tablestore.query_entities('Rebuilt', 'Code lt 0')) - (SELECT count(*) FROM acks)")" "0"
check "and for the merges" \
	"$(q $DB "SELECT (SELECT count(*) FROM tablestore.query_entities('Rebuilt', 'Merged eq true')) - (SELECT count(*) FROM acks a WHERE n % 5 = 0)")" "0"
check "an excluded property is still filtered right" \
	"$(q $DB "SELECT count(*) FROM tablestore.query_entities('Rebuilt', 'Note eq ''$(printf 'x%.0s' $(seq 40))''')")" "$N"

if [ "$distributed" = t ]; then
	exit 0
fi
# the worker killed in the middle of a build: an invalid index is left, answers stay right, and
# the look at its progress relaunches the work, which drops it and builds the index
q $DB "SELECT tablestore.set_indexing_policy('Rebuilt', '{\"excludedPaths\":[{\"path\":\"/Name/?\"}]}') ->> 'indexingMode'" >/dev/null
killed=
for _ in $(seq 1 600); do
	pid=$(q $DB "SELECT pid FROM pg_stat_activity WHERE backend_type = 'tablestore index worker' AND query LIKE 'CREATE INDEX CONCURRENTLY%'")
	if [ -n "$pid" ]; then killed=$(q $DB "SELECT pg_terminate_backend($pid)"); break; fi
	sleep 0.05
done
check "the worker was caught building" "$killed" "t"
for _ in $(seq 1 100); do
	[ -z "$(q $DB "SELECT 1 FROM pg_stat_activity WHERE backend_type = 'tablestore index worker'")" ] && break
	sleep 0.1
done
check "it left an invalid index" "$(q $DB "SELECT count(*) FROM pg_index WHERE indrelid = 'tablestore_data.rebuilt'::regclass AND NOT indisvalid")" "1"
check "the policy is not applied" "$(q $DB "SELECT tablestore.indexing_progress('Rebuilt') < 100")" "t"
check "answers are right meanwhile" "$(q $DB "SELECT count(*) FROM tablestore.query_entities('Rebuilt', 'Code ge 1 and Code le 1000')")" "1000"
q $DB "SELECT tablestore.set_indexing_policy('Rebuilt', '{\"excludedPaths\":[{\"path\":\"/Name/?\"}]}') ->> 'indexingMode'" >/dev/null
q $DB "CALL tablestore.wait_for_indexing('Rebuilt', '5 minutes')" >/dev/null
check "the retry applies it: one valid index of the policy, nothing invalid" \
	"$(q $DB "SELECT string_agg(pg_get_indexdef(indexrelid) ~ 'excluded=''Name''' || '/' || indisvalid, ',') FROM pg_index
		WHERE indrelid = 'tablestore_data.rebuilt'::regclass AND indexrelid <> 'tablestore_data.rebuilt_pkey'::regclass")" "true/true"
check "and answers through it" "$(q $DB "SELECT count(*) FROM tablestore.query_entities('Rebuilt', 'Code ge 1 and Code le 1000')")" "1000"

# a change while someone holds the lock a build needs (SHARE UPDATE EXCLUSIVE: a build, VACUUM,
# a user's LOCK): accepted at once (a change waits for no build); the worker gives up on the lock
# after tablestore.index_lock_timeout, says so in tablestore.index_builds, and retries: the
# change is applied once the holder lets go
PGAPPNAME=holder psql -X -q -d $DB -c "BEGIN; LOCK TABLE tablestore_data.rebuilt IN SHARE UPDATE EXCLUSIVE MODE; SELECT pg_sleep(60); COMMIT;" >/dev/null 2>&1 &
holder=$!
for _ in $(seq 1 100); do
	[ "$(q $DB "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid) WHERE l.relation = 'tablestore_data.rebuilt'::regclass AND l.mode = 'ShareUpdateExclusiveLock' AND l.granted")" = 1 ] && break
	sleep 0.05
done
check "a change while the table's lock is held: accepted" \
	"$(q $DB "SELECT tablestore.set_indexing_policy('Rebuilt', '{\"indexingMode\":\"none\"}') ->> 'indexingMode'")" "none"
for _ in $(seq 1 300); do
	[ "$(q $DB "SELECT count(*) FROM tablestore.index_builds WHERE table_name = 'Rebuilt' AND last_error LIKE '%lock timeout%'")" = 1 ] && break
	sleep 0.1
done
check "the worker's attempt gave up on the lock: tablestore.index_builds says so" \
	"$(q $DB "SELECT attempts >= 1 AND state <> 'failed' AND last_error LIKE 'canceling statement due to lock timeout%' FROM tablestore.index_builds WHERE table_name = 'Rebuilt'")" "t"
check "the index is unchanged meanwhile" \
	"$(q $DB "SELECT count(*) FROM pg_index WHERE indrelid = 'tablestore_data.rebuilt'::regclass AND indexrelid <> 'tablestore_data.rebuilt_pkey'::regclass AND indisvalid")" "1"
q $DB "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'holder'" >/dev/null
wait $holder 2>/dev/null || true	# terminated: psql fails
q $DB "CALL tablestore.wait_for_indexing('Rebuilt', '5 minutes')" >/dev/null
check "once the lock is gone a retry applies it" \
	"$(q $DB "SELECT count(*) FROM pg_index WHERE indrelid = 'tablestore_data.rebuilt'::regclass AND indexrelid <> 'tablestore_data.rebuilt_pkey'::regclass")" "0"

# at most tablestore.max_index_builds index workers of one database at once: with one worker
# holding the only slot (waiting for a change not committed yet), a change of another table is
# accepted and queued, not given a second worker; the running worker applies it
q $DB "SELECT tablestore.create_table('Other', '{\"indexingMode\":\"none\"}')" >/dev/null
PGAPPNAME=holder psql -X -q -d $DB -c "BEGIN; SELECT tablestore.set_indexing_policy('Rebuilt', '{\"excludedPaths\":[{\"path\":\"/Flag/?\"}]}'); SELECT pg_sleep(60); COMMIT;" >/dev/null 2>&1 &
holder=$!
for _ in $(seq 1 200); do
	[ "$(q $DB "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'tablestore index worker'")" -ge 1 ] && break
	sleep 0.05
done
check "a change past tablestore.max_index_builds = 1: accepted" \
	"$(psql -X -q -At -d $DB -c "SET tablestore.max_index_builds = 1" -c "SELECT tablestore.set_indexing_policy('Other', '{\"indexingMode\":\"consistent\"}') ->> 'indexingMode'")" "consistent"
check "and queued (tablestore.index_builds), no second worker" \
	"$(q $DB "SELECT (SELECT state FROM tablestore.index_builds WHERE table_name = 'Other') || ' ' || (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'tablestore index worker')")" "queued 1"
q $DB "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'holder'" >/dev/null
wait $holder 2>/dev/null || true	# terminated: psql fails, its change rolled back
q $DB "CALL tablestore.wait_for_indexing('Other', '5 minutes')" >/dev/null
check "the running worker applies it once it has its slot" \
	"$(q $DB "SELECT string_agg(indisvalid::text, ',') FROM pg_index WHERE indrelid = 'tablestore_data.other'::regclass AND indexrelid <> 'tablestore_data.other_pkey'::regclass")" "true"
check "nothing is left queued" "$(q $DB "SELECT count(*) FROM tablestore.index_builds")" "0"
