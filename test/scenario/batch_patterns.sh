#!/usr/bin/env bash
# test/scenario/batch_patterns.sh - the seed patterns that need entity group transactions
# (contract §8), each first step by step, then under concurrent writers with an invariant check:
#   1. intra-partition secondary index: an employee stored under empid_ and email_ RowKeys in one
#      partition, both copies changed by one batch; the copies never disagree;
#   2. index entities: an index entity listing the employees with one last name, read with its
#      ETag, then a conditional batch; a concurrent change makes it fail with
#      UpdateConditionNotSatisfied and a retry succeeds;
#   3. wide entities: one logical entity in two rows (_A, _B) kept in step by a batch; a reader
#      running beside the writers never sees the two rows disagree.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
DB=scenario_batch_patterns
fresh_db $DB
run_sql $DB <<'SQL'
SELECT tablestore.create_table('Employees');
SELECT tablestore.create_table('Wide');
SQL

######################################################################## 1. secondary index
run_sql $DB <<'SQL'
-- hire: the employee under both RowKeys, in one batch
CREATE FUNCTION hire(dept text, id int, name text, email text) RETURNS jsonb LANGUAGE sql AS $$
	SELECT tablestore.execute_batch('Employees', jsonb_build_array(
		jsonb_build_object('op', 'insert', 'entity', jsonb_build_object('PartitionKey', dept,
			'RowKey', 'empid_' || lpad(id::text, 6, '0'), 'Name', name, 'Email', email)),
		jsonb_build_object('op', 'insert', 'entity', jsonb_build_object('PartitionKey', dept,
			'RowKey', 'email_' || email, 'Name', name, 'EmployeeId', lpad(id::text, 6, '0')))))
$$;
-- change an employee's e-mail: update the empid_ copy, delete the old email_ copy, insert the
-- new one; both existing copies under If-Match with the ETags just read
CREATE FUNCTION change_email(dept text, id int, new_email text) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
	emp tablestore.entity_row;
	old tablestore.entity_row;
	old_email text;
BEGIN
	SELECT * INTO emp FROM tablestore.get_entity('Employees', dept, 'empid_' || lpad(id::text, 6, '0'));
	old_email := tablestore.prop_string(emp.properties, 'Email');
	SELECT * INTO old FROM tablestore.get_entity('Employees', dept, 'email_' || old_email);
	RETURN tablestore.execute_batch('Employees', jsonb_build_array(
		jsonb_build_object('op', 'merge', 'if_match', emp.etag, 'entity', jsonb_build_object('PartitionKey', dept,
			'RowKey', emp.row_key, 'Email', new_email)),
		jsonb_build_object('op', 'delete', 'if_match', old.etag, 'entity', jsonb_build_object('PartitionKey', dept,
			'RowKey', old.row_key)),
		jsonb_build_object('op', 'insert', 'entity', jsonb_build_object('PartitionKey', dept,
			'RowKey', 'email_' || new_email, 'Name', tablestore.prop_string(emp.properties, 'Name'),
			'EmployeeId', lpad(id::text, 6, '0')))));
END $$;
-- the copies agree: every empid_ has exactly the email_ entity its Email names, and back
CREATE FUNCTION index_mismatches(dept text) RETURNS bigint LANGUAGE sql AS $$
	WITH emp AS (SELECT * FROM tablestore.query_entities('Employees',
			format('PartitionKey eq %L and RowKey ge ''empid_'' and RowKey lt ''empid`''', dept))),
	     idx AS (SELECT * FROM tablestore.query_entities('Employees',
			format('PartitionKey eq %L and RowKey ge ''email_'' and RowKey lt ''email`''', dept)))
	SELECT count(*) FROM emp FULL JOIN idx
		ON idx.row_key = 'email_' || tablestore.prop_string(emp.properties, 'Email')
		AND emp.row_key = 'empid_' || tablestore.prop_string(idx.properties, 'EmployeeId')
	WHERE emp.row_key IS NULL OR idx.row_key IS NULL
$$;
SELECT hire('Sales', i, 'Employee ' || i, format('e%s@contoso.com', i)) FROM generate_series(100, 199) i;
SQL
check "secondary index: 100 employees hired, two copies each" \
	"$(q $DB "SELECT count(*) FROM tablestore.query_entities('Employees', 'PartitionKey eq ''Sales''')")" "200"
check "secondary index: lookup by e-mail is a point query on the email_ copy" \
	"$(q $DB "SELECT tablestore.prop_string(properties, 'EmployeeId') FROM tablestore.query_entities('Employees', 'PartitionKey eq ''Sales'' and RowKey eq ''email_e123@contoso.com''')")" "000123"
check "secondary index: empid_ range query (contract §10)" \
	"$(q $DB "SELECT count(*) FROM tablestore.query_entities('Employees', '(PartitionKey eq ''Sales'') and (RowKey ge ''empid_000100'') and (RowKey le ''empid_000199'')')")" "100"
q $DB "SELECT change_email('Sales', 123, 'ken.new@contoso.com')" >/dev/null
check "secondary index: a changed e-mail moves its email_ copy" \
	"$(q $DB "SELECT string_agg(row_key, ',' ORDER BY row_key) FROM tablestore.query_entities('Employees', 'PartitionKey eq ''Sales'' and (RowKey eq ''email_e123@contoso.com'' or RowKey eq ''email_ken.new@contoso.com'')')")" \
	"email_ken.new@contoso.com"
before=$(q $DB "SELECT md5(string_agg(row_key || etag, ',' ORDER BY row_key)) FROM tablestore_data.employees")
err=$(q $DB "SELECT change_email('Sales', 124, 'e125@contoso.com')" 2>&1 || true)
check "secondary index: taking another employee's e-mail fails at the insert" \
	"$(printf '%s' "$err" | grep -o 'operation 2: EntityAlreadyExists' | head -1)" "operation 2: EntityAlreadyExists"
check "secondary index: and leaves both copies untouched" \
	"$(q $DB "SELECT md5(string_agg(row_key || etag, ',' ORDER BY row_key)) FROM tablestore_data.employees")" "$before"

# concurrent: 4 sessions each change e-mails of overlapping employees 50 times, retrying on
# UpdateConditionNotSatisfied / ResourceNotFound (the copy they read has moved)
run_sql $DB <<'SQL'
CREATE PROCEDURE churn(s int, times int) LANGUAGE plpgsql AS $$
DECLARE
	id int;
BEGIN
	FOR i IN 1 .. times LOOP
		id := 100 + (s * 17 + i * 7) % 10;		-- ten employees shared by all sessions
		LOOP
			BEGIN
				PERFORM change_email('Sales', id, format('s%s.i%s.e%s@contoso.com', s, i, id));
				EXIT;
			EXCEPTION WHEN SQLSTATE 'TSP01' OR SQLSTATE 'TSN01' OR serialization_failure THEN
				NULL;
			END;
			COMMIT;
		END LOOP;
		COMMIT;
	END LOOP;
END $$;
SQL
errors=$(concurrently $DB 4 "CALL churn({s}, 50)") && failed=0 || failed=$?
check "secondary index: 4 sessions changed e-mails without an error" "$failed${errors:+: $errors}" "0"
check "secondary index: after 200 concurrent changes the copies still agree" "$(q $DB "SELECT index_mismatches('Sales')")" "0"
check "secondary index: still 200 entities" \
	"$(q $DB "SELECT count(*) FROM tablestore.query_entities('Employees', 'PartitionKey eq ''Sales''')")" "200"

######################################################################## 2. index entities
run_sql $DB <<'SQL'
-- add an employee to a last-name index entity (an EmployeeIDs list) and insert the employee,
-- in one batch conditional on the index entity's ETag read in an earlier transaction
CREATE FUNCTION add_to_index(last_name text, id text, idx_etag text, idx_ids text) RETURNS jsonb LANGUAGE sql AS $$
	SELECT tablestore.execute_batch('Employees', jsonb_build_array(
		jsonb_build_object('op', 'insert', 'entity', jsonb_build_object('PartitionKey', 'Ix', 'RowKey', 'emp_' || id,
			'LastName', last_name)),
		jsonb_build_object('op', 'merge', 'if_match', idx_etag, 'entity', jsonb_build_object('PartitionKey', 'Ix',
			'RowKey', 'lastname_' || last_name, 'EmployeeIDs', ltrim(idx_ids || ' ' || id)))))
$$;
SELECT tablestore.insert_entity('Employees', '{"PartitionKey":"Ix","RowKey":"lastname_Jones","EmployeeIDs":""}');
SQL
read_idx() { q $DB "SELECT etag || '|' || tablestore.prop_string(properties, 'EmployeeIDs') FROM tablestore.get_entity('Employees', 'Ix', 'lastname_Jones')"; }
idx=$(read_idx); etag=${idx%%|*}; ids=${idx#*|}
# another client changes the index entity between the read and the batch
q $DB "SELECT tablestore.merge_entity('Employees', '{\"PartitionKey\":\"Ix\",\"RowKey\":\"lastname_Jones\",\"EmployeeIDs\":\"000007\"}')" >/dev/null
err=$(q $DB "SELECT add_to_index('Jones', '000001', :'etag', :'ids')" -v etag="$etag" -v ids="$ids" 2>&1 || true)
check "index entities: a concurrent change makes the batch fail" \
	"$(printf '%s' "$err" | grep -o 'operation 1: UpdateConditionNotSatisfied' | head -1)" "operation 1: UpdateConditionNotSatisfied"
check "index entities: and the employee was not inserted" \
	"$(q $DB "SELECT count(*) FROM tablestore.query_entities('Employees', 'PartitionKey eq ''Ix'' and RowKey eq ''emp_000001''')")" "0"
idx=$(read_idx); etag=${idx%%|*}; ids=${idx#*|}
q $DB "SELECT add_to_index('Jones', '000001', :'etag', :'ids')" -v etag="$etag" -v ids="$ids" >/dev/null
check "index entities: the retry with the fresh ETag succeeds" \
	"$(q $DB "SELECT tablestore.prop_string(properties, 'EmployeeIDs') FROM tablestore.get_entity('Employees', 'Ix', 'lastname_Jones')")" "000007 000001"

# concurrent: 4 sessions add 25 Joneses each, retrying on UpdateConditionNotSatisfied
run_sql $DB <<'SQL'
CREATE PROCEDURE add_many(s int, times int) LANGUAGE plpgsql AS $$
DECLARE
	idx tablestore.entity_row;
	tries int := 0;
BEGIN
	FOR i IN 1 .. times LOOP
		LOOP
			SELECT * INTO idx FROM tablestore.get_entity('Employees', 'Ix', 'lastname_Jones');
			COMMIT;
			BEGIN
				PERFORM add_to_index('Jones', format('%s%s', s, lpad(i::text, 4, '0')), idx.etag,
					tablestore.prop_string(idx.properties, 'EmployeeIDs'));
				EXIT;
			EXCEPTION WHEN SQLSTATE 'TSP01' OR serialization_failure THEN
				tries := tries + 1;
			END;
		END LOOP;
		COMMIT;
	END LOOP;
	RAISE NOTICE 'session % retried % times', s, tries;
END $$;
SQL
errors=$(PGOPTIONS="-c client_min_messages=warning" concurrently $DB 4 "CALL add_many({s}, 25)") && failed=0 || failed=$?
check "index entities: 4 sessions added employees without an error" "$failed${errors:+: $errors}" "0"
check "index entities: the index lists every employee once" \
	"$(q $DB "SELECT count(*) = count(DISTINCT x) AND count(*) = 102 FROM regexp_split_to_table(
		(SELECT tablestore.prop_string(properties, 'EmployeeIDs') FROM tablestore.get_entity('Employees', 'Ix', 'lastname_Jones')), ' ') x")" "t"
check "index entities: and every listed employee exists" \
	"$(q $DB "SELECT count(*) FROM tablestore.query_entities('Employees', 'PartitionKey eq ''Ix'' and RowKey ge ''emp_'' and RowKey lt ''emp\`''')")" "101"

######################################################################## 3. wide entities
run_sql $DB <<'SQL'
-- one logical entity of 400 properties: 200 in row _A, 200 in row _B, plus a Version in both
SELECT tablestore.execute_batch('Wide', jsonb_build_array(
	jsonb_build_object('op', 'insert', 'entity', '{"PartitionKey":"w","RowKey":"000123_A","Version":0}'::jsonb
		|| (SELECT jsonb_object_agg('P' || lpad(i::text, 3, '0'), i) FROM generate_series(1, 200) i) || '{"P001":0}'),
	jsonb_build_object('op', 'insert', 'entity', '{"PartitionKey":"w","RowKey":"000123_B","Version":0}'::jsonb
		|| (SELECT jsonb_object_agg('P' || lpad(i::text, 3, '0'), i) FROM generate_series(201, 400) i) || '{"P400":0}')));
-- write both halves: Version + 1 and a property in each half, under If-Match on both
CREATE PROCEDURE write_wide(s int, times int) LANGUAGE plpgsql AS $$
DECLARE
	a tablestore.entity_row;
	b tablestore.entity_row;
BEGIN
	FOR i IN 1 .. times LOOP
		LOOP
			SELECT * INTO a FROM tablestore.get_entity('Wide', 'w', '000123_A');
			SELECT * INTO b FROM tablestore.get_entity('Wide', 'w', '000123_B');
			COMMIT;
			BEGIN
				PERFORM tablestore.execute_batch('Wide', jsonb_build_array(
					jsonb_build_object('op', 'merge', 'if_match', a.etag, 'entity', jsonb_build_object('PartitionKey', 'w',
						'RowKey', '000123_A', 'Version', tablestore.prop_int32(a.properties, 'Version') + 1, 'P001', s * 1000 + i)),
					jsonb_build_object('op', 'merge', 'if_match', b.etag, 'entity', jsonb_build_object('PartitionKey', 'w',
						'RowKey', '000123_B', 'Version', tablestore.prop_int32(b.properties, 'Version') + 1, 'P400', s * 1000 + i))));
				EXIT;
			EXCEPTION WHEN SQLSTATE 'TSP01' OR serialization_failure THEN
				NULL;
			END;
		END LOOP;
		COMMIT;
	END LOOP;
END $$;
-- a reader beside the writers until they are done: both halves read by one query must carry one
-- Version and the same last writer
CREATE PROCEDURE read_wide(final int) LANGUAGE plpgsql AS $$
DECLARE
	bad int := 0;
	reads int := 0;
BEGIN
	WHILE reads < 1000000 AND (SELECT min(tablestore.prop_int32(properties, 'Version')) FROM tablestore.query_entities('Wide')) < final LOOP
		-- one query_entities call reads both rows from one snapshot
		IF (SELECT count(DISTINCT tablestore.prop_int32(properties, 'Version')) <> 1
				OR count(DISTINCT coalesce(tablestore.prop_int32(properties, 'P001'), tablestore.prop_int32(properties, 'P400'))) <> 1
			FROM tablestore.query_entities('Wide', 'PartitionKey eq ''w'' and RowKey ge ''000123_'' and RowKey lt ''000123`''')) THEN
			bad := bad + 1;
		END IF;
		reads := reads + 1;
		COMMIT;
	END LOOP;
	IF bad > 0 THEN
		RAISE EXCEPTION 'a reader saw the two halves disagree % times in % reads', bad, reads;
	END IF;
	RAISE NOTICE 'reads=%', reads;
END $$;
SQL
check "wide entities: the two halves hold 402 properties" \
	"$(q $DB "SELECT sum(cardinality(ARRAY(SELECT jsonb_object_keys(properties::jsonb)))) FROM tablestore.query_entities('Wide')")" "402"
q $DB "CALL read_wide(200)" 2>/tmp/$DB.reader & reader=$!
errors=$(concurrently $DB 4 "CALL write_wide({s}, 50)") && failed=0 || failed=$?
check "wide entities: 4 writers without an error" "$failed${errors:+: $errors}" "0"
wait $reader || { cat /tmp/$DB.reader; echo "not ok - the reader saw part of a batch"; exit 1; }
reads=$(sed -n 's/.*reads=//p' /tmp/$DB.reader); rm -f /tmp/$DB.reader
check "wide entities: a reader never saw part of a batch ($reads reads during the writes)" "$([ "${reads:-0}" -gt 0 ] && echo ok)" "ok"
check "wide entities: both halves carry Version 200 after 4 x 50 writes" \
	"$(q $DB "SELECT string_agg(tablestore.prop_int32(properties, 'Version')::text, ',' ORDER BY row_key) FROM tablestore.query_entities('Wide')")" "200,200"
check "wide entities: and the same last writer" \
	"$(q $DB "SELECT tablestore.prop_int32(a.properties, 'P001') = tablestore.prop_int32(b.properties, 'P400')
	          FROM tablestore.get_entity('Wide', 'w', '000123_A') a, tablestore.get_entity('Wide', 'w', '000123_B') b")" "t"
echo "# batch patterns: secondary index, index entities and wide entities hold under concurrent writers"
psql -X -q -d postgres -c "DROP DATABASE $DB"
