#!/usr/bin/env bash
# test/scenario/batch_deadlock_interleaving.sh - the one interleaving that deadlocked a batch with
# a single upsert (issue 31 item 6, about 1 in 100 000 transactions of batch_deadlocks.sh on the
# SQL path), forced step by step, so that it happens every run instead of by chance.
#
# Three sessions and key k5 (absent at first):
#   B  upserts k5: its pre-check finds no k5, it inserts its row speculatively ...
#   C  ... and before B's entry reaches the primary key, C upserts k5 and commits;
#   A  runs a batch over k3 and k5: it locks C's k5 (FOR UPDATE), writes k3, then upserts k5. On
#      the SQL path that INSERT ... ON CONFLICT fires the stamp trigger, whose key-history scan
#      (stamp_probe_keys) finds B's speculative row of k5, still in progress, and waits for B;
#   B  meanwhile found C's entry in the primary key: it kills its speculative row and goes to lock
#      C's k5, which A holds: it waits for A.
# Before the fix A waited for B's whole transaction (ShareLock on transaction), so A and B waited
# for each other: "deadlock detected". A speculative insertion is waited for as PostgreSQL's own
# ON CONFLICT waits for one, on its token: B releases it as it kills its row, before it waits.
#
# The sessions pause inside their writes at points test-only indexes give them: an expression
# index's function runs for each row inserted, between the row's heap insertion and its index
# entries, in index OID order. pause_point(n, row_key) takes shared advisory lock (777, m) when the
# session's test.pauses names (n, row key, m); the controller holds (777, m) until the step that
# releases it. Index p1 comes before the primary key (the primary key is made again after it),
# p2 after. Every wait is bounded; the steps are checked through pg_locks, not by timing.
# Runs with the direct path on and off (on, the batch updates C's k5 directly: no scan), and with
# a batch whose last operation fails (a merge of an absent entity): the operations before it then
# run as statements in request order (run_earlier_writes, which on this table with indexes of its
# own runs every kind), so the upsert of k5 meets B's row on the direct path too.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
DB=scenario_batch_deadlock_interleaving
WORK=$(mktemp -d /tmp/tablestore-interleaving.XXXXXX)
chmod 777 "$WORK"
CTL_PID=
cleanup() {
	exec 3>&- 2>/dev/null || true
	[ -z "$CTL_PID" ] || kill "$CTL_PID" 2>/dev/null || true
	jobs -p | xargs -r kill 2>/dev/null || true
	rm -rf "$WORK"
}
trap cleanup EXIT

# wait_until DESCRIPTION SQL: poll until SQL returns t (at most 60 s; the steps wait on locks
# only, so this bound is never reached unless a step went another way)
wait_until() {
	local i
	for i in $(seq 1 600); do
		[ "$(q $DB "$2")" == "t" ] && return 0
		sleep 0.1
	done
	echo "not ok - $1: not reached in 60 s"
	q $DB "SELECT application_name, state, wait_event_type, wait_event, query FROM pg_stat_activity WHERE datname = current_database()"
	exit 1
}

# waiting APP LOCKTYPE [OBJID]: is session APP waiting for a lock of that type (advisory: objid)?
waiting() {
	echo "SELECT EXISTS (SELECT FROM pg_locks l JOIN pg_stat_activity a USING (pid)
		WHERE a.application_name = '$1' AND a.datname = current_database() AND NOT l.granted
		AND l.locktype = '$2' ${3:+AND l.objid = $3})"
}

# session APP MODE PAUSES SQL: run SQL in the background as session APP; output in $WORK/APP.out
session() {
	PGAPPNAME=$1 psql -X -q -At -v ON_ERROR_STOP=1 -d $DB \
		-c "SET tablestore.fast_path = $2" -c "SET test.pauses = '$3'" -c "$4" >"$WORK/$1.out" 2>&1 &
}

for run in "on ok" "off ok" "on fails" "off fails"; do
read -r mode variant <<<"$run"
fresh_db $DB
run_sql $DB <<'SQL'
SELECT tablestore.create_table('Hot');
-- pause at point n for row key rk when test.pauses holds 'n/rk/m' (m: the advisory lock to wait for)
CREATE FUNCTION pause_point(n int, rk text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
	p text;
BEGIN
	FOREACH p IN ARRAY string_to_array(coalesce(current_setting('test.pauses', true), ''), ',') LOOP
		IF split_part(p, '/', 1) = n::text AND split_part(p, '/', 2) = rk THEN
			PERFORM pg_advisory_lock_shared(777, split_part(p, '/', 3)::int);
			PERFORM pg_advisory_unlock_shared(777, split_part(p, '/', 3)::int);
		END IF;
	END LOOP;
	RETURN rk;
END $$;
CREATE INDEX hot_p1 ON tablestore_data.hot (pause_point(1, row_key));
CREATE UNIQUE INDEX hot_pk_again ON tablestore_data.hot (partition_key, row_key);
SET client_min_messages = warning;
ALTER TABLE tablestore_data.hot DROP CONSTRAINT hot_pkey,
	ADD CONSTRAINT hot_pkey PRIMARY KEY USING INDEX hot_pk_again;
CREATE INDEX hot_p2 ON tablestore_data.hot (pause_point(2, row_key));
SQL
check "fast_path=$mode, $variant: index order p1, primary key, p2" \
	"$(q $DB "SELECT string_agg(relname, ' ' ORDER BY oid) FROM pg_class WHERE relname IN ('hot_p1', 'hot_pkey', 'hot_p2')")" \
	"hot_p1 hot_pkey hot_p2"

# the controller holds the pauses' locks: 1 and 2 for B, 3 for A
mkfifo "$WORK/ctl"
PGAPPNAME=ctl psql -X -q -At -d $DB <"$WORK/ctl" >"$WORK/ctl.out" 2>&1 &
CTL_PID=$!
exec 3>"$WORK/ctl"
echo "SELECT pg_advisory_lock(777, 1), pg_advisory_lock(777, 2), pg_advisory_lock(777, 3);" >&3
wait_until "the controller holds its locks" \
	"SELECT count(*) = 3 FROM pg_locks l JOIN pg_stat_activity a USING (pid) WHERE a.application_name = 'ctl' AND l.locktype = 'advisory' AND l.granted"

session B $mode "1/k5/1,2/k5/2" \
	"SELECT tablestore.upsert_entity('Hot', '{\"PartitionKey\": \"p\", \"RowKey\": \"k5\", \"B\": 1}', 'merge') IS NOT NULL"
wait_until "B paused between its speculative row and the primary key" "$(waiting B advisory 1)"
q $DB "SELECT tablestore.upsert_entity('Hot', '{\"PartitionKey\": \"p\", \"RowKey\": \"k5\", \"C\": 1}', 'replace') IS NOT NULL" >/dev/null
[ "$variant" == ok ] && last= || last=', {"op": "merge", "entity": {"PartitionKey": "p", "RowKey": "k9"}}'
session A $mode "1/k3/3" "SELECT jsonb_array_length(tablestore.execute_batch('Hot', '[
	{\"op\": \"upsert_replace\", \"entity\": {\"PartitionKey\": \"p\", \"RowKey\": \"k3\", \"A\": 1}},
	{\"op\": \"upsert_replace\", \"entity\": {\"PartitionKey\": \"p\", \"RowKey\": \"k5\", \"A\": 1}}${last}]'::jsonb))"
wait_until "A locked C's k5 and paused writing k3" "$(waiting A advisory 3)"
echo "SELECT pg_advisory_unlock(777, 1);" >&3
wait_until "B's speculative row reached the primary key, B paused after it" "$(waiting B advisory 2)"
echo "SELECT pg_advisory_unlock(777, 3);" >&3
# A's upsert of k5 now meets B's speculative row (SQL path) or updates k5 directly (direct path)
wait_until "A waits for B, or is done" \
	"SELECT EXISTS (SELECT FROM pg_locks l JOIN pg_stat_activity a USING (pid) WHERE a.application_name = 'A' AND NOT l.granted)
		OR NOT EXISTS (SELECT FROM pg_stat_activity WHERE application_name = 'A')"
a_waits=$(q $DB "SELECT coalesce(string_agg(l.locktype, ','), 'nothing') FROM pg_locks l JOIN pg_stat_activity a USING (pid) WHERE a.application_name = 'A' AND NOT l.granted")
echo "# fast_path=$mode, $variant: A (the batch) waits for $a_waits"
echo "SELECT pg_advisory_unlock(777, 2);" >&3
wait_until "A and B finished" \
	"SELECT NOT EXISTS (SELECT FROM pg_stat_activity WHERE application_name IN ('A', 'B'))"
exec 3>&-
wait "$CTL_PID" || true
CTL_PID=
wait || true
rm -f "$WORK/ctl"
grep -h "deadlock" "$WORK/A.out" "$WORK/B.out" | sed 's/^/# /' || true
if [ "$variant" == ok ]; then
	check "fast_path=$mode, $variant: the batch succeeded" "$(cat "$WORK/A.out")" "2"
else
	check "fast_path=$mode, $variant: the batch failed at its merge" "$(grep -o 'operation [0-9]*: .*' "$WORK/A.out")" \
		'operation 2: ResourceNotFound: the entity ("p", "k9") does not exist'
fi
check "fast_path=$mode, $variant: the single upsert succeeded" "$(cat "$WORK/B.out")" "t"
# the batch's stamp trigger met B's speculative row (the interleaving happened) and waited on its
# token, not its transaction (on the direct path a batch that succeeds updates k5 without it)
[ "$mode $variant" == "on ok" ] ||
	check "fast_path=$mode, $variant: the batch waited for B's speculative insertion" "$a_waits" "spectoken"
# B merged into the k5 it found: A's if the batch succeeded (their locks ran in that order), else C's
[ "$variant" == ok ] && want='{"A": 1, "B": 1}' || want='{"B": 1, "C": 1}'
check "fast_path=$mode, $variant: k5 is the merge of the writes that committed" \
	"$(q $DB "SELECT properties::jsonb - 'odata.metadata' FROM tablestore_data.hot WHERE row_key = 'k5'")" "$want"
done
psql -X -q -d postgres -c "DROP DATABASE $DB" >/dev/null
