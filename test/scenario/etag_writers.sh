#!/usr/bin/env bash
# test/scenario/etag_writers.sh - ETags unique per entity version under concurrency (contract §4):
# 8 sessions write one entity at once, each write in a transaction of its own, by every path in
# turn (a merge on the direct path, an update as a SQL statement, a plain SQL UPDATE, a batch, an
# upsert, and a delete followed by an upsert that inserts it again), half of the sessions with
# tablestore.fast_path off. Each write logs, before it commits and while it holds the entity's
# lock (so in the order the writes happened), the ETag it returned, the row's stored etag and its
# Timestamp in ticks. Every ETag must be distinct, the one stored, and each Timestamp later than
# the one before. (A write that loses a race with a delete and insert of the entity, or a
# distributed table's remote REPEATABLE READ transaction, is retried on the retryable 40001 in a
# new transaction after a random pause, as clients do, at most 1000 times and for 10 minutes.)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
DB=scenario_etag_writers
SESSIONS=${SESSIONS:-8}
TIMES=${TIMES:-120}
fresh_db $DB
run_sql $DB <<'SQL'
SELECT tablestore.create_table('Hot');
SELECT tablestore.insert_entity('Hot', '{"PartitionKey":"h","RowKey":"one","n":0}');
CREATE SEQUENCE write_order;
CREATE TABLE writes (n bigint, session int, kind text, returned text, stored text, ticks int8);
CREATE TABLE retries (session int);
-- log the write just made (inside its transaction, under the entity's row lock)
CREATE FUNCTION note(session int, kind text, returned text) RETURNS void LANGUAGE sql AS $$
	INSERT INTO writes SELECT nextval('write_order'), session, kind, returned, t.etag,
		tablestore.timestamp_ticks(t."timestamp", t.etag)
	FROM tablestore_data.hot t WHERE t.partition_key = 'h' AND t.row_key = 'one'
$$;
CREATE PROCEDURE write(session int, times int) LANGUAGE plpgsql AS $$
DECLARE
	e text := format('{"PartitionKey":"h","RowKey":"one","s%s":%%s}', session);
	r text;
	done bool;
	deadline timestamptz := clock_timestamp() + interval '10 minutes';
	distributed bool := EXISTS (SELECT FROM pg_catalog.pg_class c WHERE c.oid = 'tablestore_data.hot'::regclass AND c.relkind = 'p');
BEGIN
	FOR i IN 1..times LOOP
		FOR attempt IN 1..1000 LOOP
			IF session % 2 = 0 THEN
				SET LOCAL tablestore.fast_path = off;
			END IF;
			done := true;
			BEGIN
				CASE i % 6
					WHEN 0 THEN
						r := tablestore.merge_entity('Hot', format(e, i)::tablestore.entity);
						PERFORM note(session, 'merge', r);
					WHEN 1 THEN
						r := tablestore.update_entity('Hot', format(e, i)::tablestore.entity);
						PERFORM note(session, 'update', r);
					WHEN 2 THEN
						IF distributed THEN
							-- (not a plain UPDATE through a distributed table's foreign partitions: after
							-- one that fails with 40001, postgres_fdw's DEALLOCATE ALL at the transaction's
							-- end drops the statements remote_call.c prepared on the node, which it still
							-- takes for prepared: the next forwarded call fails, "prepared statement
							-- tablestore_fwd_... does not exist", a fault of the scale-out code)
							r := tablestore.merge_entity('Hot', format(e, i)::tablestore.entity);
						ELSE
							UPDATE tablestore_data.hot SET properties = properties OPERATOR(tablestore.||) format(e, i)::tablestore.entity
							WHERE partition_key = 'h' AND row_key = 'one' RETURNING etag INTO r;
						END IF;
						-- (an UPDATE finds nothing when the version it waited for was deleted: write again)
						done := r IS NOT NULL;
						IF done THEN
							PERFORM note(session, 'sql', r);
						END IF;
					WHEN 3 THEN
						r := tablestore.execute_batch('Hot', format('[{"op":"upsert_merge","entity":%s}]', format(e, i))::jsonb)->0->>'etag';
						PERFORM note(session, 'batch', r);
					WHEN 4 THEN
						r := tablestore.upsert_entity('Hot', format(e, i)::tablestore.entity, 'replace');
						PERFORM note(session, 'upsert', r);
					ELSE
						-- deleted and inserted again in one transaction (the delete takes the lock first)
						BEGIN
							PERFORM tablestore.delete_entity('Hot', 'h', 'one');
						EXCEPTION WHEN SQLSTATE 'TSN01' THEN
							NULL;
						END;
						r := tablestore.upsert_entity('Hot', format(e, i)::tablestore.entity);
						PERFORM note(session, 'reinsert', r);
				END CASE;
			EXCEPTION WHEN serialization_failure THEN
				-- a write that waited for a delete and insert of the entity, or a distributed table's
				-- remote REPEATABLE READ transaction, is retried (40001), in a new transaction
				done := false;
			END;
			EXIT WHEN done;
			ROLLBACK;
			INSERT INTO retries VALUES (session);
			COMMIT;
			IF attempt = 1000 OR clock_timestamp() > deadline THEN
				RAISE EXCEPTION 'session %: write % still failing after % attempts', session, i, attempt;
			END IF;
			-- a random pause, longer after each failure (up to 50 ms), so that no session keeps
			-- losing to the others (on a distributed table every writer of the entity conflicts)
			PERFORM pg_sleep(least(0.05, random() * 0.002 * attempt));
		END LOOP;
		COMMIT;
	END LOOP;
END $$;
SQL

errors=$(concurrently $DB "$SESSIONS" "CALL write({s}, $TIMES)") && failed=0 || failed=$?
check "no session failed" "$failed${errors:+: $errors}" "0"

total=$((SESSIONS * TIMES))
check "every write was logged" "$(q $DB "SELECT count(*) FROM writes")" "$total"
check "every ETag returned is distinct" "$(q $DB "SELECT count(DISTINCT returned) FROM writes")" "$total"
check "each write returned the ETag it stored" "$(q $DB "SELECT count(*) FROM writes WHERE returned IS DISTINCT FROM stored")" "0"
check "every ETag is the service's form of its Timestamp" \
	"$(q $DB "SELECT count(*) FROM writes WHERE stored !~ '^W/\"datetime''\d{4}-\d\d-\d\dT\d\d%3A\d\d%3A\d\d(\.\d{0,6}[1-9])?Z''\"\$'")" "0"
check "each Timestamp is later than the write's before" \
	"$(q $DB "SELECT count(*) FROM (SELECT ticks, lag(ticks) OVER (ORDER BY n) AS prev FROM writes) w WHERE ticks <= prev")" "0"
bumped=$(q $DB "SELECT count(*) FROM writes WHERE ticks % 10 <> 0")
retries=$(q $DB "SELECT count(*) FROM retries")
echo "# $SESSIONS sessions x $TIMES writes of one entity: $total distinct ETags, increasing; $bumped stamped past the clock's microsecond, $retries retried (40001)"
[ -n "${KEEP_DB:-}" ] || psql -X -q -d postgres -c "DROP DATABASE $DB"
