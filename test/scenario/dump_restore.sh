#!/usr/bin/env bash
# test/scenario/dump_restore.sh - pg_dump / pg_restore of a database with several tables gives the
# same entities with the same ETags and Timestamps, the same registry (names with their case), the
# same stored access policies, working triggers, and a database that accepts new writes (also with
# If-Match on restored ETags).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
SRC=scenario_dump_src
DST=scenario_dump_dst
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fresh_db $SRC
run_sql $SRC <<'SQL'
SELECT tablestore.create_table(t) FROM unnest(ARRAY['Customers', 'OrderLines', 'LogTail20141201']) t;
SELECT tablestore.insert_entity('Customers', format('{"PartitionKey":"p%s","RowKey":"%s","Name":"Customer %s","Age":%s,
	"Big":"9007199254740993","Big@odata.type":"Edm.Int64","Score":12.5,"W":1.0,"Z":-0.0,"N":"NaN","N@odata.type":"Edm.Double",
	"When":"2014-08-22T00:50:44.1234567Z","When@odata.type":"Edm.DateTime",
	"Id":"68260b3f-beab-45e2-b900-33e2b442e724","Id@odata.type":"Edm.Guid","Bin":"AAEC","Bin@odata.type":"Edm.Binary",
	"U":"Grüße \u0000 😀"}', i % 7, lpad(i::text, 5, '0'), i, i)::tablestore.entity)
FROM generate_series(1, 500) i;
SELECT tablestore.merge_entity('Customers', format('{"PartitionKey":"p%s","RowKey":"%s","Age":%s}', i % 7, lpad(i::text, 5, '0'), i + 1)::tablestore.entity)
FROM generate_series(1, 500, 3) i;
SELECT tablestore.insert_entity('OrderLines', format('{"PartitionKey":"o%s","RowKey":"%s","Qty":%s}', i % 11, i, i)::tablestore.entity)
FROM generate_series(1, 300) i;
SELECT tablestore.insert_entity('LogTail20141201', '{"PartitionKey":"log","RowKey":"0001","msg":"hello"}');
SELECT tablestore.set_table_acl('Customers', '[{"Id":"readers","Start":"2026-01-01T00:00:00Z","Expiry":"2030-01-01T00:00:00Z","Permission":"r"},{"Id":"writers","Permission":"au"}]');
CREATE VIEW everything AS
	SELECT 'Customers' AS t, partition_key, row_key, "timestamp", etag, tablestore.entity_to_binary(properties) AS p FROM tablestore_data.customers
	UNION ALL SELECT 'OrderLines', partition_key, row_key, "timestamp", etag, tablestore.entity_to_binary(properties) FROM tablestore_data.orderlines
	UNION ALL SELECT 'LogTail20141201', partition_key, row_key, "timestamp", etag, tablestore.entity_to_binary(properties) FROM tablestore_data.logtail20141201;
SQL
snapshot() {
	psql -X -q -At -v ON_ERROR_STOP=1 -d "$1" -c "SELECT t, partition_key, row_key, \"timestamp\", etag, encode(p, 'hex') FROM everything ORDER BY 1, 2, 3"
}
snapshot $SRC >"$WORK/before.txt"
q $SRC "SELECT name, key FROM tablestore.tables ORDER BY 1" >"$WORK/registry_before.txt"
ACL="SELECT string_agg(concat_ws(' ', id, start AT TIME ZONE 'UTC', expiry AT TIME ZONE 'UTC', permission), '; ' ORDER BY id) FROM tablestore.get_table_acl('Customers')"
acl_before=$(q $SRC "$ACL")
check "stored access policies set" "$acl_before" "readers 2026-01-01 00:00:00 2030-01-01 00:00:00 r; writers au"

for format in custom plain; do
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DST" -c "CREATE DATABASE $DST" >/dev/null
	if [ $format = custom ]; then
		pg_dump -Fc -d $SRC -f "$WORK/dump.custom"
		pg_restore --exit-on-error -d $DST "$WORK/dump.custom"
	else
		pg_dump -d $SRC -f "$WORK/dump.sql"
		psql -X -q -v ON_ERROR_STOP=1 -d $DST -f "$WORK/dump.sql" >/dev/null
	fi
	snapshot $DST >"$WORK/after.txt"
	check "$format: $(wc -l <"$WORK/before.txt") entities identical (keys, Timestamp, ETag, bytes)" \
		"$(cmp -s "$WORK/before.txt" "$WORK/after.txt" && echo same || echo different)" "same"
	check "$format: registry restored with case" "$(q $DST "SELECT name, key FROM tablestore.tables ORDER BY 1")" "$(cat "$WORK/registry_before.txt")"
	check "$format: stored access policies restored" "$(q $DST "$ACL")" "$acl_before"
	check "$format: list_tables" "$(q $DST "SELECT string_agg(t, ',') FROM tablestore.list_tables() t")" "Customers,LogTail20141201,OrderLines"
	check "$format: triggers restored" "$(q $DST "SELECT count(*) FROM pg_trigger WHERE tgname = 'stamp'")" "3"
	# the restored database takes new writes, and the restored ETags still work as If-Match values
	etag=$(q $DST "SELECT etag FROM tablestore_data.customers WHERE partition_key = 'p1' AND row_key = '00001'")
	check "$format: update with a restored ETag" \
		"$(q $DST "SELECT tablestore.update_entity('Customers', '{\"PartitionKey\":\"p1\",\"RowKey\":\"00001\",\"Age\":99}', :'etag') <> :'etag'" -v etag="$etag")" "t"
	check "$format: the old ETag is now stale" \
		"$(q $DST "SELECT tablestore.merge_entity('Customers', '{\"PartitionKey\":\"p1\",\"RowKey\":\"00001\"}', :'etag')" -v etag="$etag" 2>&1 | grep -o UpdateConditionNotSatisfied)" \
		"UpdateConditionNotSatisfied"
	check "$format: insert" "$(q $DST "SELECT tablestore.insert_entity('OrderLines', '{\"PartitionKey\":\"new\",\"RowKey\":\"1\"}') IS NOT NULL")" "t"
	check "$format: create_table" "$(q $DST "SELECT tablestore.create_table('Fresh')")" "tablestore_data.fresh"
	check "$format: names stay unique ignoring case" \
		"$(q $DST "SELECT tablestore.create_table('CUSTOMERS')" 2>&1 | grep -o TableAlreadyExists)" "TableAlreadyExists"
done
echo "# pg_dump/pg_restore: $(wc -l <"$WORK/before.txt") entities in 3 tables identical after custom and plain formats"

# many tables
TABLES=${TABLES:-400}
fresh_db $SRC
run_sql $SRC <<SQL
SELECT count(tablestore.create_table(format('Day%s', 20140000 + i))) FROM generate_series(1, $TABLES) i;
SELECT count(tablestore.insert_entity(format('Day%s', 20140000 + i), format('{"PartitionKey":"p","RowKey":"%s","n":%s}', k, i)::tablestore.entity))
FROM generate_series(1, $TABLES) i, generate_series(1, 3) k;
SQL
many_digest() {
	q "$1" "SELECT count(*) || ' tables, ' || sum(n) || ' entities, ' || md5(string_agg(t || ':' || d, ',' ORDER BY t))
	        FROM (SELECT t, (SELECT count(*) FROM tablestore.query_entities(t)) AS n,
	                     (SELECT md5(string_agg(row_key || etag || \"timestamp\" || properties::text, ',' ORDER BY row_key))
	                      FROM tablestore.query_entities(t)) AS d
	              FROM tablestore.list_tables() t) s"
}
want=$(many_digest $SRC)
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DST" -c "CREATE DATABASE $DST" >/dev/null
pg_dump -Fd -j 2 -d $SRC -f "$WORK/dump.dir"
pg_restore --exit-on-error -j 2 -d $DST "$WORK/dump.dir"
check "many tables: $want restored" "$(many_digest $DST)" "$want"
check "many tables: the registry" "$(q $DST "SELECT count(*) FROM tablestore.tables")" "$TABLES"
check "many tables: every table has its trigger" "$(q $DST "SELECT count(*) FROM pg_trigger WHERE tgname = 'stamp'")" "$TABLES"
echo "# pg_dump -Fd -j 2 / pg_restore -j 2: $want"
psql -X -q -d postgres -c "DROP DATABASE $SRC" -c "DROP DATABASE $DST"
