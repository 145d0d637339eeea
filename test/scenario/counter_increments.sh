#!/usr/bin/env bash
# test/scenario/counter_increments.sh - optimistic concurrency (contract §4): 8 concurrent sessions
# each do 200 read-modify-write increments of one Int32 counter with If-Match, retrying on
# UpdateConditionNotSatisfied (and on 40001, retryable, which a distributed table's remote
# REPEATABLE READ transactions give; doc/scale-out.md). The final counter must equal 1600 exactly: no lost update. It runs
# twice: with the direct single-entity path (the default) and with tablestore.fast_path = off.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
DB=scenario_counter
SESSIONS=${SESSIONS:-8}
TIMES=${TIMES:-200}
for mode in on off; do
fresh_db $DB
run_sql $DB <<'SQL'
SELECT tablestore.create_table('Counters');
SELECT tablestore.insert_entity('Counters', '{"PartitionKey":"c","RowKey":"hits","n":0}');
CREATE TABLE retries (session int, retries int);
-- one increment per transaction: read the entity and its ETag, merge n+1 if the ETag still holds
CREATE PROCEDURE increment(session int, times int) LANGUAGE plpgsql AS $$
DECLARE
	e tablestore.entity_row;
	failed int := 0;
	done int := 0;
BEGIN
	WHILE done < times LOOP
		BEGIN
			SELECT * INTO e FROM tablestore.get_entity('Counters', 'c', 'hits');
			PERFORM tablestore.merge_entity('Counters',
				format('{"PartitionKey":"c","RowKey":"hits","n":%s}', tablestore.prop_int32(e.properties, 'n') + 1)::tablestore.entity,
				e.etag);
			done := done + 1;
		EXCEPTION WHEN SQLSTATE 'TSP01' OR serialization_failure THEN
			failed := failed + 1;		-- UpdateConditionNotSatisfied (or 40001 on a distributed table): read again
		END;
		COMMIT;
	END LOOP;
	INSERT INTO retries VALUES (session, failed);
	COMMIT;
END $$;
SQL

errors=$(PGOPTIONS="-c tablestore.fast_path=$mode" concurrently $DB "$SESSIONS" "CALL increment({s}, $TIMES)") && failed=0 || failed=$?
check "fast_path=$mode: no session failed" "$failed${errors:+: $errors}" "0"

final=$(q $DB "SELECT tablestore.prop_int32(properties, 'n') FROM tablestore_data.counters")
type=$(q $DB "SELECT tablestore.prop_type(properties, 'n') FROM tablestore_data.counters")
retries=$(q $DB "SELECT sum(retries) FROM retries")
sessions=$(q $DB "SELECT count(*) FROM retries")
check "fast_path=$mode: all $SESSIONS sessions finished" "$sessions" "$SESSIONS"
check "fast_path=$mode: final counter equals the number of increments" "$final" "$((SESSIONS * TIMES))"
check "fast_path=$mode: the counter is still an Int32" "$type" "Edm.Int32"
echo "# fast_path=$mode: $SESSIONS sessions x $TIMES increments: counter $final, $retries retries on UpdateConditionNotSatisfied"
done
psql -X -q -d postgres -c "DROP DATABASE $DB"
