#!/usr/bin/env bash
# test/scenario/batch_concurrency.sh - concurrent entity group transactions (contract §6): 8 sessions
# each run 100 batches over overlapping entities of one partition. A batch reads five of 20 shared
# entities with their ETags, then merges n+1 (and its session's last batch number) into each under
# If-Match, in an order unlike key order, plus an upsert and a delete of entities of its own.
# On UpdateConditionNotSatisfied it reads again and retries; any other error (a deadlock above
# all) fails the session. The final state must equal a serial replay of the same batches, and
# every n must count exactly the batches that touched it. A second phase races insert-only
# batches (which skip the locking step) over overlapping keys: each batch must land whole or not
# at all (EntityAlreadyExists). Runs with the direct path on and off.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
DB=scenario_batch_concurrency
SESSIONS=${SESSIONS:-8}
BATCHES=${BATCHES:-100}
for mode in on off; do
fresh_db $DB
run_sql $DB <<'SQL'
SELECT tablestore.create_table('Shared');
SELECT tablestore.create_table('Replay');
SELECT tablestore.execute_batch(t, (SELECT jsonb_agg(jsonb_build_object('op', 'insert', 'entity',
	jsonb_build_object('PartitionKey', 'p', 'RowKey', 'k' || lpad(k::text, 2, '0'), 'n', 0))) FROM generate_series(0, 19) k))
FROM unnest(ARRAY['Shared', 'Replay']) t;
CREATE TABLE retries (session int, retries int);

-- batch b of session s on table tbl: the five shared keys it touches, in request order
CREATE FUNCTION shared_keys(s int, b int) RETURNS SETOF text LANGUAGE sql IMMUTABLE AS $$
	SELECT 'k' || lpad(((s * 7 + b * 13 + j * 3) % 20)::text, 2, '0') FROM generate_series(0, 4) j ORDER BY j DESC
$$;

CREATE PROCEDURE run_batches(tbl text, s int, nb int) LANGUAGE plpgsql AS $$
DECLARE
	ops jsonb;
	e tablestore.entity_row;
	k text;
	failed int := 0;
BEGIN
	FOR b IN 1 .. nb LOOP
		LOOP
			ops := '[]';
			FOR k IN SELECT shared_keys(s, b) LOOP
				SELECT * INTO e FROM tablestore.get_entity(tbl, 'p', k);
				ops := ops || jsonb_build_object('op', 'merge', 'if_match', e.etag, 'entity',
					jsonb_build_object('PartitionKey', 'p', 'RowKey', k,
						'n', tablestore.prop_int32(e.properties, 'n') + 1, 's' || s, b));
			END LOOP;
			ops := ops || jsonb_build_object('op', 'upsert_merge', 'entity',
				jsonb_build_object('PartitionKey', 'p', 'RowKey', format('own_%s_%s', s, b % 10), 'b', b));
			IF b >= 6 THEN
				ops := ops || jsonb_build_object('op', 'delete', 'entity',
					jsonb_build_object('PartitionKey', 'p', 'RowKey', format('own_%s_%s', s, (b + 5) % 10)));
			END IF;
			COMMIT;				-- the reads end here: the batch runs in a transaction of its own
			BEGIN
				PERFORM tablestore.execute_batch(tbl, ops);
				EXIT;
			EXCEPTION WHEN SQLSTATE 'TSP01' OR serialization_failure THEN
				failed := failed + 1;	-- another session changed one of the five (40001 on a distributed table): read again
			END;
			COMMIT;
		END LOOP;
		COMMIT;
	END LOOP;
	IF tbl = 'Shared' THEN
		INSERT INTO retries VALUES (s, failed);
	END IF;
	COMMIT;
END $$;

-- (the properties as jsonb: their values, not the order they were first written in, which a merge
-- keeps and which differs between the concurrent run and the replay)
CREATE FUNCTION digest(tbl text) RETURNS text LANGUAGE sql AS $$
	SELECT md5(string_agg(format('%s|%s|%s', partition_key, row_key, properties::jsonb), E'\n' ORDER BY partition_key, row_key))
	FROM tablestore.query_entities(tbl)
$$;
SQL

errors=$(PGOPTIONS="-c tablestore.fast_path=$mode" concurrently $DB "$SESSIONS" "CALL run_batches('Shared', {s}, $BATCHES)") && failed=0 || failed=$?
check "fast_path=$mode: all $SESSIONS sessions finished without an error" "$failed${errors:+: $errors}" "0"

# the serial replay: the same batches, one session after another
for s in $(seq 1 "$SESSIONS"); do
	PGOPTIONS="-c tablestore.fast_path=$mode" q $DB "CALL run_batches('Replay', $s, $BATCHES)"
done

check "fast_path=$mode: the final state equals the serial replay" \
	"$(q $DB "SELECT digest('Shared') = digest('Replay')")" "t"
check "fast_path=$mode: every shared n counts the batches that touched it" \
	"$(q $DB "SELECT sum(tablestore.prop_int32(properties, 'n')) FROM tablestore.query_entities('Shared', 'RowKey lt ''l''')")" \
	"$((SESSIONS * BATCHES * 5))"
check "fast_path=$mode: each session's last batch is recorded where it wrote" \
	"$(q $DB "SELECT count(*) FROM tablestore.query_entities('Shared', 'RowKey lt ''l''') e, generate_series(1, $SESSIONS) s
	          WHERE tablestore.prop_int32(e.properties, 's' || s) IS DISTINCT FROM
	                (SELECT max(b) FROM generate_series(1, $BATCHES) b WHERE e.row_key IN (SELECT shared_keys(s, b)))")" "0"
check "fast_path=$mode: five own entities per session remain" \
	"$(q $DB "SELECT count(*) FROM tablestore.query_entities('Shared', 'RowKey ge ''own_''')")" "$((SESSIONS * 5))"
echo "# fast_path=$mode: $SESSIONS sessions x $BATCHES batches, $(q $DB "SELECT sum(retries) FROM retries") retries on UpdateConditionNotSatisfied, no deadlock"

# phase 2: insert-only batches of 10 keys out of 60, overlapping between sessions
run_sql $DB <<'SQL'
CREATE TABLE landed (session int, batch int, ok bool);
CREATE PROCEDURE race_inserts(s int, nb int) LANGUAGE plpgsql AS $$
BEGIN
	FOR b IN 1 .. nb LOOP
		BEGIN
			PERFORM tablestore.execute_batch('Shared', (SELECT jsonb_agg(jsonb_build_object('op', 'insert', 'entity',
				jsonb_build_object('PartitionKey', 'p', 'RowKey', format('ins_%s', lpad(((s * 11 + b * 7 + j * 13) % 60)::text, 2, '0')),
					'by', format('%s/%s', s, b)))) FROM generate_series(0, 9) j));
			INSERT INTO landed VALUES (s, b, true);
		EXCEPTION WHEN SQLSTATE 'TSC01' OR serialization_failure THEN
			INSERT INTO landed VALUES (s, b, false);	-- (40001 only on a distributed table: retryable)
		END;
		COMMIT;
		-- now and then clear a few keys, so that later batches can land
		IF b % 5 = 0 THEN
			BEGIN
				DELETE FROM tablestore_data.shared WHERE row_key LIKE 'ins\_%' AND (hashtext(row_key) + s + b) % 4 = 0;
			EXCEPTION WHEN serialization_failure THEN
				NULL;	-- a distributed table's REPEATABLE READ: this clean-up is skipped
			END;
			COMMIT;
		END IF;
	END LOOP;
END $$;
SQL
errors=$(PGOPTIONS="-c tablestore.fast_path=$mode" concurrently $DB "$SESSIONS" "CALL race_inserts({s}, $BATCHES)") && failed=0 || failed=$?
check "fast_path=$mode: racing insert-only batches: no error but EntityAlreadyExists" "$failed${errors:+: $errors}" "0"
check "fast_path=$mode: every stored key belongs to a batch that landed, with all ten of its keys or none" \
	"$(q $DB "SELECT count(*) FROM (SELECT tablestore.prop_string(properties, 'by') AS by, count(*) AS n
	          FROM tablestore_data.shared WHERE row_key LIKE 'ins\_%' GROUP BY 1) g
	          WHERE NOT EXISTS (SELECT 1 FROM landed WHERE format('%s/%s', session, batch) = g.by AND ok)")" "0"
echo "# fast_path=$mode: insert race: $(q $DB "SELECT count(*) FILTER (WHERE ok) || ' batches landed, ' || count(*) FILTER (WHERE NOT ok) || ' refused' FROM landed")"
done
psql -X -q -d postgres -c "DROP DATABASE $DB"
