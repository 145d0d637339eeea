#!/usr/bin/env bash
# test/scenario/batch_deadlocks.sh - batches never deadlock each other (contract §6), whatever
# the keys they hit exist or not: 6 sessions run random batches of upserts and merges (2 to 6
# operations over a 10-key partition, in random request order) mixed with single upserts,
# merges and deletes, each in a transaction of its own, for TS_STRESS_SECONDS (15 s by default;
# `TS_STRESS_SECONDS=60 bash test/scenario/batch_deadlocks.sh` is the long run). Keys come and
# go, so a batch often meets keys that another batch is inserting. A batch that merges a key
# that is gone fails with ResourceNotFound, which is allowed; a deadlock (40P01) or any other
# error fails the scenario. Every transaction that commits appends its operation to a log in the
# same transaction, after its writes, so that transactions over a common key log in the order
# they committed; replaying the log serially must give exactly the final state.
# Runs with the direct path on and off.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
DB=scenario_batch_deadlocks
SESSIONS=${SESSIONS:-6}
SECONDS_EACH=${TS_STRESS_SECONDS:-15}
MAX_TX=${TS_STRESS_MAX_TX:-200000}	# per session: the loop is bounded in count as well as time

for mode in on off; do
fresh_db $DB
run_sql $DB <<'SQL'
SELECT tablestore.create_table('Hot');
SELECT tablestore.create_table('Replay');
CREATE TABLE oplog (seq bigserial PRIMARY KEY, kind text, doc text);
CREATE TABLE outcome (session int, committed int, not_found int, deadlocks int, other text, conflicts int,
	deadlock text);	-- the first deadlock's report (which processes waited for which locks) and its operation

-- one random operation: a batch document, or a single operation
CREATE FUNCTION random_op(OUT kind text, OUT doc text) LANGUAGE plpgsql AS $$
DECLARE
	n int;
	keys text[];
	ops jsonb := '[]';
	k text;
	v int := (random() * 1000)::int;
BEGIN
	IF random() < 0.6 THEN
		n := 2 + (random() * 4)::int;
		SELECT array_agg(x) INTO keys FROM (
			SELECT 'k' || g AS x FROM generate_series(0, 9) g ORDER BY random() LIMIT n) s;
		FOREACH k IN ARRAY keys LOOP
			ops := ops || jsonb_build_object('op', (ARRAY['upsert_merge', 'upsert_replace', 'merge'])[1 + floor(random() * 3)::int],
				'entity', jsonb_build_object('PartitionKey', 'p', 'RowKey', k, 'v', v, 'w' || (v % 3), v));
		END LOOP;
		kind := 'batch';
		doc := ops::text;
	ELSE
		k := 'k' || floor(random() * 10)::int;
		kind := (ARRAY['upsert_merge', 'upsert_replace', 'merge', 'delete'])[1 + floor(random() * 4)::int];
		doc := jsonb_build_object('PartitionKey', 'p', 'RowKey', k, 'v', v)::text;
	END IF;
END $$;

-- apply one logged operation to a table
CREATE FUNCTION apply_op(tbl text, kind text, doc text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	CASE kind
		WHEN 'batch' THEN PERFORM tablestore.execute_batch(tbl, doc);
		WHEN 'upsert_merge' THEN PERFORM tablestore.upsert_entity(tbl, doc::tablestore.entity, 'merge');
		WHEN 'upsert_replace' THEN PERFORM tablestore.upsert_entity(tbl, doc::tablestore.entity, 'replace');
		WHEN 'merge' THEN PERFORM tablestore.merge_entity(tbl, doc::tablestore.entity);
		WHEN 'delete' THEN PERFORM tablestore.delete_entity(tbl, 'p', doc::jsonb->>'RowKey');
	END CASE;
END $$;

CREATE PROCEDURE run_session(s int, secs int, max_tx int) LANGUAGE plpgsql AS $$
DECLARE
	op record;
	stop timestamptz := clock_timestamp() + make_interval(secs => secs);
	committed int := 0;
	not_found int := 0;
	deadlocks int := 0;
	conflicts int := 0;
	other text;
	report text;
	detail text;
BEGIN
	PERFORM setseed(s / 100.0);
	FOR i IN 1 .. max_tx LOOP
		EXIT WHEN clock_timestamp() > stop;
		SELECT * INTO op FROM random_op();
		BEGIN
			PERFORM apply_op('Hot', op.kind, op.doc);
			INSERT INTO oplog (kind, doc) VALUES (op.kind, op.doc);	-- after the writes, under their locks
			committed := committed + 1;
		EXCEPTION
			WHEN SQLSTATE 'TSN01' OR SQLSTATE 'TSP01' THEN
				not_found := not_found + 1;
			WHEN serialization_failure THEN
				conflicts := conflicts + 1;	-- 40001: a distributed table's remote REPEATABLE READ (retryable)
			WHEN deadlock_detected THEN
				deadlocks := deadlocks + 1;
				GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
				report := coalesce(report, detail || ' (operation: ' || op.kind || ' ' || op.doc || ')');
			WHEN others THEN
				other := coalesce(other, SQLSTATE || ' ' || SQLERRM);
		END;
		COMMIT;
	END LOOP;
	INSERT INTO outcome VALUES (s, committed, not_found, deadlocks, other, conflicts, report);
	COMMIT;
END $$;
SQL

PGOPTIONS="-c tablestore.fast_path=$mode" concurrently $DB "$SESSIONS" "CALL run_session({s}, $SECONDS_EACH, $MAX_TX)"
summary=$(q $DB "SELECT sum(committed) || ' committed, ' || sum(not_found) || ' not found, ' || sum(deadlocks) || ' deadlocks, ' || sum(conflicts) || ' serialization failures' FROM outcome")
echo "# fast_path=$mode: $SESSIONS sessions x ${SECONDS_EACH}s: $summary"
check "fast_path=$mode: every session finished" "$(q $DB "SELECT count(*) FROM outcome")" "$SESSIONS"
# what a deadlock was (its report: which processes waited for which locks), for its fix
q $DB "SELECT '# deadlock: ' || deadlock FROM outcome WHERE deadlock IS NOT NULL"
check "fast_path=$mode: no deadlock" "$(q $DB "SELECT sum(deadlocks) FROM outcome")" "0"
check "fast_path=$mode: no other error" "$(q $DB "SELECT coalesce(string_agg(other, '; '), '') FROM outcome")" ""
# serialization failures only where remote transactions are REPEATABLE READ (a distributed table, run by test/t/004)
[ -n "${TS_FRESH_DB_HOOK:-}" ] || check "fast_path=$mode: no serialization failure on one node" "$(q $DB "SELECT sum(conflicts) FROM outcome")" "0"
check "fast_path=$mode: work was done" "$(q $DB "SELECT sum(committed) > 100 FROM outcome")" "t"

# the serial replay of the committed operations, in log order, gives the same entities
# (one transaction per operation, as they ran: versions of the ten keys are pruned as it goes)
run_sql $DB <<'SQL'
CREATE PROCEDURE replay() LANGUAGE plpgsql AS $$ DECLARE r record; BEGIN
	FOR r IN SELECT kind, doc FROM oplog ORDER BY seq LOOP PERFORM apply_op('Replay', r.kind, r.doc); COMMIT; END LOOP;
END $$;
CALL replay();
SQL
check "fast_path=$mode: the final state equals the serial replay" \
	"$(q $DB "SELECT count(*) FROM (SELECT row_key, properties::text FROM tablestore_data.hot
	                               EXCEPT SELECT row_key, properties::text FROM tablestore_data.replay) a")/$(q $DB "SELECT count(*) FROM (SELECT row_key, properties::text FROM tablestore_data.replay
	                               EXCEPT SELECT row_key, properties::text FROM tablestore_data.hot) b")" "0/0"
done
psql -X -q -d postgres -c "DROP DATABASE $DB" >/dev/null
