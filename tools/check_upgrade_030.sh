#!/usr/bin/env bash
# tools/check_upgrade_030.sh - the 0.3.0 -> 0.4.0 update with the real 0.3.0 library, run by hand
# (test/t/023_upgrade_entity_order.pl runs the same update under the 0.4.0 library alone, whose
# 0.3.0 symbols must give 0.3.0's results; this checks that claim against 0.3.0 itself).
#
#   OLD_BINDIR  bin directory of a PostgreSQL 15 with the 0.3.0 library installed (the tree of
#               92a1ee0, `make install` with its pg_config)
#   NEW_BINDIR  bin directory of a PostgreSQL 15 with this tree installed
#
# One cluster in a temporary directory, run as the postgres user on 127.0.0.1:
#  A. 0.3.0's library: CREATE EXTENSION tablestore VERSION '0.3.0'; entities, half of them written
#     out of name order, in tables with B-tree, hash, array, entity[], composite and expression
#     indexes, partitioned by hash, range and list on an entity, with a partitioned index; the
#     hashes and comparisons 0.3.0 gives them are kept in tables
#  B. the window: 0.4.0's library, the database still on 0.3.0's SQL: the same hashes and
#     comparisons, every row found through every index, amcheck, rows written meanwhile found
#  C. ALTER EXTENSION tablestore UPDATE while another session holds a temporary entity index:
#     how long it took, amcheck on every B-tree, every row found by its value and by its twin,
#     no partitioned row misplaced
#  D. the library downgraded to 0.3.0 over values 0.4.0 wrote: what 0.3.0 makes of them
set -u -o pipefail
: "${OLD_BINDIR:?set OLD_BINDIR (0.3.0 library installed)}" "${NEW_BINDIR:?set NEW_BINDIR}"
D=$(mktemp -d /tmp/tablestore-upg030.XXXXXX)
PORT=${PORT:-54990}
N=${N:-2000}
FAILED=0
as_pg() { runuser -u postgres -- "$@"; }
start() { as_pg "$1/pg_ctl" -D "$D/data" -l "$D/server.log" -w -o "-p $PORT -k $D -c listen_addresses=127.0.0.1" start >/dev/null; }
stop() { as_pg "$1/pg_ctl" -D "$D/data" -m fast -w stop >/dev/null; }
q() { psql -h "$D" -p "$PORT" -U postgres -X -q -At -v ON_ERROR_STOP=1 -d upg "$@"; }
check() {
	if [ "$2" == "$3" ]; then echo "ok - $1"; else echo "not ok - $1: got '$2', expected '$3'"; FAILED=$((FAILED + 1)); fi
}
cleanup() { stop "$NEW_BINDIR" 2>/dev/null || stop "$OLD_BINDIR" 2>/dev/null; rm -rf "$D"; }
trap cleanup EXIT
chown postgres "$D"
as_pg "$OLD_BINDIR/initdb" -D "$D/data" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >/dev/null

echo "# A. 0.3.0's library"
start "$OLD_BINDIR"
psql -h "$D" -p "$PORT" -U postgres -X -q -c "CREATE DATABASE upg" -c "ALTER DATABASE upg SET search_path = public, tablestore"
q <<SQL
CREATE EXTENSION tablestore VERSION '0.3.0';
CREATE EXTENSION amcheck;
CREATE TABLE src AS SELECT i,
	(CASE WHEN i % 2 = 0 THEN format('{"Z":%s,"A":1}', i) ELSE format('{"A":1,"Z":%s}', i) END)::entity AS e,
	(CASE WHEN i % 2 = 1 THEN format('{"Z":%s,"A":1}', i) ELSE format('{"A":1,"Z":%s}', i) END)::entity AS twin
FROM generate_series(1, $N) i;
CREATE TYPE pair AS (k int, e entity);
CREATE TABLE t AS SELECT i, e, ARRAY[e, e] AS es, ROW(1, e)::pair AS p FROM src;
CREATE INDEX t_bt ON t (e);
CREATE INDEX t_h ON t USING hash (e);
CREATE UNIQUE INDEX t_u ON t (e);
CREATE INDEX t_arr ON t ((ARRAY[e]));
CREATE INDEX t_es ON t (es);
CREATE INDEX t_p ON t (p);
CREATE INDEX t_x ON t ((entity_hash(e)));
CREATE TABLE hp (i int, e entity) PARTITION BY HASH (e);
CREATE TABLE hp0 PARTITION OF hp FOR VALUES WITH (modulus 2, remainder 0);
CREATE TABLE hp1 PARTITION OF hp FOR VALUES WITH (modulus 2, remainder 1);
INSERT INTO hp SELECT i, e FROM src;
CREATE INDEX hp_e ON hp (e);
CREATE TABLE rp (i int, e entity) PARTITION BY RANGE (e);
CREATE TABLE rp_low PARTITION OF rp FOR VALUES FROM (MINVALUE) TO ('{"A":1,"Z":5000}');
CREATE TABLE rp_high PARTITION OF rp FOR VALUES FROM ('{"A":1,"Z":5000}') TO (MAXVALUE);
INSERT INTO rp SELECT i, e FROM src;
CREATE TABLE lp (i int, e entity) PARTITION BY LIST (e);
CREATE TABLE lp_two PARTITION OF lp FOR VALUES IN ('{"A":1,"Z":2}');
CREATE TABLE lp_rest PARTITION OF lp DEFAULT;
INSERT INTO lp SELECT i, e FROM src;
CREATE INDEX t_gin ON t USING gin (e);
-- what 0.3.0 computes
CREATE TABLE ref AS SELECT a.i, entity_hash(a.e) AS h, entity_hash_extended(a.e, 42) AS hx,
	sign(entity_cmp(a.e, b.e)) AS c_next, sign(entity_cmp(a.e, a.twin)) AS c_twin, a.e = a.twin AS eq_twin
FROM src a JOIN src b ON b.i = a.i % $N + 1;
-- the B-tree indexes amcheck finds corrupt
CREATE FUNCTION btree_failures() RETURNS text LANGUAGE plpgsql AS \$\$
DECLARE r record; bad text[] := '{}';
BEGIN
	FOR r IN SELECT c.oid, c.relname FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid JOIN pg_am a ON a.oid = c.relam
			 WHERE a.amname = 'btree' AND c.relkind = 'i' AND c.relpersistence <> 't'
			   AND c.relnamespace NOT IN ('pg_catalog'::regnamespace, 'pg_toast'::regnamespace) ORDER BY 2 LOOP
		BEGIN PERFORM bt_index_check(r.oid, true);
		EXCEPTION WHEN OTHERS THEN bad := bad || r.relname::text;
		END;
	END LOOP;
	RETURN array_to_string(bad, ',');
END \$\$;
-- rows of src (column col) not found in tbl by "expr = <constant>" (plan-time pruning, an index scan)
CREATE FUNCTION missing(tbl text, expr text, col text) RETURNS int LANGUAGE plpgsql AS \$\$
DECLARE r record; n int; missed int := 0;
BEGIN
	SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off;
	FOR r IN EXECUTE format('SELECT i, %I::text AS lit FROM src', col) LOOP
		EXECUTE format('SELECT count(*) FROM %s WHERE %s', tbl, replace(replace(expr, '\$e', quote_literal(r.lit) || '::tablestore.entity'), '\$i', r.i::text)) INTO n;
		IF n = 0 THEN missed := missed + 1; END IF;
	END LOOP;
	RETURN missed;
END \$\$;
CREATE FUNCTION misplaced(root regclass) RETURNS bigint LANGUAGE plpgsql AS \$\$
DECLARE r record; n bigint; total bigint := 0;
BEGIN
	SET LOCAL constraint_exclusion = off;
	FOR r IN SELECT t.relid FROM pg_partition_tree(root) t WHERE t.isleaf LOOP
		EXECUTE format('SELECT count(*) FROM ONLY %s WHERE (%s) IS FALSE', r.relid::regclass, pg_get_partition_constraintdef(r.relid)) INTO n;
		total := total + n;
	END LOOP;
	RETURN total;
END \$\$;
CREATE VIEW lookups AS SELECT
	missing('t', 'e = \$e', 'e') AS bt, missing('t', 'ARRAY[e] = ARRAY[\$e]', 'e') AS arr,
	missing('t', 'es = ARRAY[\$e, \$e]', 'e') AS es, missing('t', 'p = ROW(1, \$e)::pair', 'e') AS comp,
	missing('t', 'entity_hash(e) = entity_hash(\$e) AND i = \$i', 'e') AS expr,
	missing('hp', 'e = \$e', 'e') AS hp, missing('rp', 'e = \$e', 'e') AS rp, missing('lp', 'e = \$e', 'e') AS lp;
CREATE VIEW twin_lookups AS SELECT
	missing('t', 'e = \$e', 'twin') AS bt, missing('t', 'ARRAY[e] = ARRAY[\$e]', 'twin') AS arr,
	missing('t', 'es = ARRAY[\$e, \$e]', 'twin') AS es, missing('t', 'p = ROW(1, \$e)::pair', 'twin') AS comp,
	missing('t', 'entity_hash(e) = entity_hash(\$e) AND i = \$i', 'twin') AS expr,
	missing('hp', 'e = \$e', 'twin') AS hp, missing('rp', 'e = \$e', 'twin') AS rp, missing('lp', 'e = \$e', 'twin') AS lp;
SQL
check "0.3.0: every row found through every index and partition" "$(q -c 'SELECT * FROM lookups')" "0|0|0|0|0|0|0|0"
check "0.3.0: amcheck" "$(q -c 'SELECT btree_failures()')" ""
echo "# 0.3.0: bytes of an entity written out of name order: $(q -c "SELECT encode(entity_to_binary(e), 'hex') FROM src WHERE i = 2")"
stop "$OLD_BINDIR"

echo "# B. the window: 0.4.0's library, the database on 0.3.0's SQL"
start "$NEW_BINDIR"
check "window: extension version" "$(q -c "SELECT extversion FROM pg_extension WHERE extname = 'tablestore'")" "0.3.0"
check "window: hashes and comparisons of every stored entity as 0.3.0 gave them (mismatches)" "$(q -c "
	SELECT count(*) FROM ref r JOIN src a ON a.i = r.i JOIN src b ON b.i = a.i % $N + 1
	WHERE (r.h, r.hx, r.c_next, r.c_twin, r.eq_twin) IS DISTINCT FROM
		  (entity_hash(a.e), entity_hash_extended(a.e, 42), sign(entity_cmp(a.e, b.e)), sign(entity_cmp(a.e, a.twin)), a.e = a.twin)")" "0"
check "window: the same on values written now (0.4.0's form; mismatches)" "$(q -c "
	SELECT count(*) FROM ref r JOIN src a ON a.i = r.i
	WHERE (r.h, r.hx, r.c_twin) IS DISTINCT FROM
		  (entity_hash(a.e::text::entity), entity_hash_extended(a.e::text::entity, 42), sign(entity_cmp(a.e::text::entity, a.twin::text::entity)))")" "0"
check "window: every row found through every index and partition" "$(q -c 'SELECT * FROM lookups')" "0|0|0|0|0|0|0|0"
check "window: no partitioned row misplaced" "$(q -c "SELECT misplaced('hp') + misplaced('rp') + misplaced('lp')")" "0"
check "window: amcheck" "$(q -c 'SELECT btree_failures()')" ""
q -c "INSERT INTO hp VALUES (-1, '{\"Y\":1,\"B\":2}'); INSERT INTO t (i, e) VALUES (-1, '{\"Y\":1,\"B\":2}')"
check "window: rows written in the window found" "$(q -c "SET enable_seqscan = off; SELECT (SELECT count(*) FROM hp WHERE e = '{\"Y\":1,\"B\":2}') + (SELECT count(*) FROM t WHERE e = '{\"Y\":1,\"B\":2}')")" "2"
check "window: amcheck after writes" "$(q -c 'SELECT btree_failures()')" ""

echo "# C. the update, another session holding a temporary entity index"
echo "CREATE TEMP TABLE tt AS SELECT e FROM src; CREATE INDEX tt_e ON tt (e); SELECT pg_sleep(20);" |
	psql -h "$D" -p "$PORT" -U postgres -X -q -d upg >/dev/null 2>&1 &
HOLDER=$!
for _ in $(seq 1 100); do
	[ "$(q -c "SELECT count(*) FROM pg_class WHERE relname = 'tt_e'")" = 1 ] && break
	sleep 0.1
done
t0=$(date +%s.%N)
out=$(q -c "ALTER EXTENSION tablestore UPDATE" 2>&1)
t1=$(date +%s.%N)
echo "# update: $(echo "$t1 - $t0" | bc) s for $N rows per table; its messages: $out"
check "after: extension version" "$(q -c "SELECT extversion FROM pg_extension WHERE extname = 'tablestore'")" "0.4.0"
check "after: every row found through every index and partition" "$(q -c 'SELECT * FROM lookups')" "0|0|0|0|0|0|0|0"
check "after: and by its other-order twin" "$(q -c 'SELECT * FROM twin_lookups')" "0|0|0|0|0|0|0|0"
check "after: no partitioned row misplaced" "$(q -c "SELECT misplaced('hp') + misplaced('rp') + misplaced('lp')")" "0"
check "after: amcheck" "$(q -c 'SELECT btree_failures()')" ""
check "after: the GIN index still serves filters" "$(q -c "SELECT count(*) FROM t WHERE e @~ 'Z eq 12'")" "1"
kill "$HOLDER" 2>/dev/null; wait "$HOLDER" 2>/dev/null
q -c "INSERT INTO t (i, e) VALUES (-2, '{\"Q\":1,\"B\":2}')"
stop "$NEW_BINDIR"

echo "# D. the 0.3.0 library again, over values 0.4.0 wrote (not supported: what happens)"
start "$OLD_BINDIR"
echo "# 0.3.0 reads a 0.4.0 entity written out of name order as: $(q -c "SELECT e::text FROM t WHERE i = -2" 2>&1)"
echo "# 0.3.0 merges it: $(q -c "SELECT (e || '{\"C\":1}'::entity)::text FROM t WHERE i = -2" 2>&1)"
echo "# 0.3.0 compares entities under the 0.4.0 SQL: $(q -c "SELECT e = e FROM t WHERE i = -2" 2>&1 | head -1)"
echo "# 0.3.0 receives 0.4.0's binary form: $(q -c "SELECT entity_from_binary(entity_to_binary(e)) FROM t WHERE i = -2" 2>&1 | head -1)"
stop "$OLD_BINDIR"

echo "# $FAILED failed"
[ $FAILED -eq 0 ]
