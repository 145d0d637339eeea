#!/usr/bin/env bash
# test/scenario/batch_deadlocks.sh - batches never deadlock each other (contract §6), whatever
# the keys they hit exist or not: 6 sessions run random batches of upserts and merges (2 to 6
# operations over a 10-key partition, in random request order) mixed with single upserts,
# merges and deletes, each in a transaction of its own, for TS_STRESS_SECONDS (15 s by default)
# and at least TS_STRESS_MIN_TX transactions each (100), so the check that work was done never
# depends on the machine's speed. Keys come and go, so a batch often meets keys that another
# batch is inserting. A batch that merges a key that is gone fails with ResourceNotFound, which is
# allowed; a deadlock (40P01) or any other error fails the scenario: none can happen by chance,
# so any is a defect, reported with PostgreSQL's detail (which processes waited for which
# locks), the operation that failed and what the other processes were running (each shows its
# operation as its application_name). Every transaction that commits appends its operation to a
# log in the same transaction, after its writes, so that transactions over a common key log in
# the order they committed; replaying the log serially must give exactly the final state.
# Runs with the direct path on and off.
#
# Knobs for longer or harsher runs (test/soak/batch_deadlocks.sh runs it for minutes):
#   TS_STRESS_SECONDS, SESSIONS, TS_STRESS_KEYS (the key space, 10), TS_STRESS_MODES ("on off"),
#   TS_STRESS_DELAYS=1: test-only indexes that sleep between a single upsert's heap insertion and
#   its primary key entry, and after it, so that the race of issue 31 (a batch's key-history scan
#   meeting a speculative insertion) is met about once per 1 500 transactions instead of once per
#   100 000 (3 keys, 8 sessions, before its fix).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
DB=scenario_batch_deadlocks
SESSIONS=${SESSIONS:-6}
SECONDS_EACH=${TS_STRESS_SECONDS:-15}
MAX_TX=${TS_STRESS_MAX_TX:-200000}	# per session: the loop is bounded in count as well as time
MIN_TX=${TS_STRESS_MIN_TX:-100}	# per session, however long they take: "work was done" never depends on speed
KEYS=${TS_STRESS_KEYS:-10}	# the partition's key space (fewer keys, more collisions)
MODES=${TS_STRESS_MODES:-on off}	# tablestore.fast_path
DELAYS=${TS_STRESS_DELAYS:-0}	# 1: widen the races' windows (below)

for mode in $MODES; do
fresh_db $DB
run_sql $DB -v keys="$KEYS" -v delays="$DELAYS" <<'SQL'
SELECT tablestore.create_table('Hot');
SELECT tablestore.create_table('Replay');
CREATE TABLE settings AS SELECT :keys AS keys;
CREATE FUNCTION nkeys() RETURNS int STABLE LANGUAGE sql AS 'SELECT keys FROM settings';
CREATE TABLE oplog (seq bigserial PRIMARY KEY, kind text, doc text);
-- TS_STRESS_DELAYS=1: test-only indexes whose expression sleeps up to 3 ms for 3 in 10 of the
-- rows single upserts write (apply_op sets test.delay), one before the primary key in index
-- order (the primary key is made again after it) and one after: such a row waits between its
-- heap insertion and its primary key entry, and again after it, so that writers of one key
-- overlap there far more often than by chance. (Tables with indexes of their own also make a
-- failing batch run all its earlier operations as statements: run_earlier_writes.)
CREATE FUNCTION delay(rk text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
	IF current_setting('test.delay', true) = 'on' AND random() < 0.3 THEN PERFORM pg_sleep(random() * 0.003); END IF;
	RETURN rk;
END $$;
\if :delays
CREATE INDEX hot_delay1 ON tablestore_data.hot (delay(row_key));
CREATE UNIQUE INDEX hot_pk_again ON tablestore_data.hot (partition_key, row_key);
SET client_min_messages = warning;
ALTER TABLE tablestore_data.hot DROP CONSTRAINT hot_pkey, ADD CONSTRAINT hot_pkey PRIMARY KEY USING INDEX hot_pk_again;
CREATE INDEX hot_delay2 ON tablestore_data.hot (delay(row_key));
\endif
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
			SELECT 'k' || g AS x FROM generate_series(0, nkeys() - 1) g ORDER BY random() LIMIT n) s;
		FOREACH k IN ARRAY keys LOOP
			ops := ops || jsonb_build_object('op', (ARRAY['upsert_merge', 'upsert_replace', 'merge'])[1 + floor(random() * 3)::int],
				'entity', jsonb_build_object('PartitionKey', 'p', 'RowKey', k, 'v', v, 'w' || (v % 3), v));
		END LOOP;
		kind := 'batch';
		doc := ops::text;
	ELSE
		k := 'k' || floor(random() * nkeys())::int;
		kind := (ARRAY['upsert_merge', 'upsert_replace', 'merge', 'delete'])[1 + floor(random() * 4)::int];
		doc := jsonb_build_object('PartitionKey', 'p', 'RowKey', k, 'v', v)::text;
	END IF;
END $$;

-- apply one logged operation to a table
CREATE FUNCTION apply_op(tbl text, kind text, doc text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	CASE kind
		WHEN 'batch' THEN PERFORM tablestore.execute_batch(tbl, doc);
		WHEN 'upsert_merge' THEN PERFORM set_config('test.delay', 'on', true);
			PERFORM tablestore.upsert_entity(tbl, doc::tablestore.entity, 'merge');
		WHEN 'upsert_replace' THEN PERFORM set_config('test.delay', 'on', true);
			PERFORM tablestore.upsert_entity(tbl, doc::tablestore.entity, 'replace');
		WHEN 'merge' THEN PERFORM tablestore.merge_entity(tbl, doc::tablestore.entity);
		WHEN 'delete' THEN PERFORM tablestore.delete_entity(tbl, 'p', doc::jsonb->>'RowKey');
	END CASE;
END $$;

-- an operation in short ("batch um k1, m k2" / "delete k3"): each session shows its operation as
-- its application_name, so that a deadlock's report can name what the other process was running
CREATE FUNCTION op_summary(kind text, doc text) RETURNS text LANGUAGE sql AS $$
	SELECT CASE WHEN kind = 'batch' THEN 'batch ' || (SELECT string_agg(CASE o->>'op' WHEN 'upsert_merge' THEN 'um'
			WHEN 'upsert_replace' THEN 'ur' ELSE 'm' END || ' ' || (o->'entity'->>'RowKey'), ', ')
			FROM jsonb_array_elements(doc::jsonb) o)
		ELSE kind || ' ' || (doc::jsonb->>'RowKey') END
$$;

CREATE PROCEDURE run_session(s int, secs int, min_tx int, max_tx int) LANGUAGE plpgsql AS $$
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
		EXIT WHEN clock_timestamp() > stop AND i > min_tx;
		SELECT * INTO op FROM random_op();
		PERFORM set_config('application_name', left(op_summary(op.kind, op.doc), 63), false);
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
				-- (the other process has moved on from the operation it ran then only once it committed)
				report := coalesce(report, detail || ' (operation: ' || op.kind || ' ' || op.doc ||
					'; the other processes were running: ' || coalesce((SELECT string_agg(a.pid || ' ' || a.application_name, '; ')
						FROM pg_stat_activity a WHERE a.pid <> pg_backend_pid() AND a.pid IN
							(SELECT m[1]::int FROM regexp_matches(detail, 'process (\d+)', 'g') m)), 'unknown') || ')');
			WHEN others THEN
				other := coalesce(other, SQLSTATE || ' ' || SQLERRM);
		END;
		COMMIT;
	END LOOP;
	INSERT INTO outcome VALUES (s, committed, not_found, deadlocks, other, conflicts, report);
	COMMIT;
END $$;
SQL

PGOPTIONS="-c tablestore.fast_path=$mode" concurrently $DB "$SESSIONS" "CALL run_session({s}, $SECONDS_EACH, $MIN_TX, $MAX_TX)"
summary=$(q $DB "SELECT sum(committed) || ' committed, ' || sum(not_found) || ' not found, ' || sum(deadlocks) || ' deadlocks, ' || sum(conflicts) || ' serialization failures' FROM outcome")
echo "# fast_path=$mode: $SESSIONS sessions x ${SECONDS_EACH}s, $KEYS keys$([ "$DELAYS" == 1 ] && echo ', delays'): $summary"
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
