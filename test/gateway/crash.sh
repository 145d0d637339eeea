#!/usr/bin/env bash
# test/gateway/crash.sh - crash safety through the protocol. Four official-SDK clients
# (crash_load.mjs) write through tablestore-gateway - inserts, 10-entity transactions, counter
# upserts, deletes - while the whole PostgreSQL server (postmaster and every backend) is killed
# with SIGKILL at a random moment, TS_GW_CRASH_KILLS times (default 3), and restarted (crash
# recovery). The gateway is never restarted. Shows:
#   - every write acknowledged with a 2xx is there after recovery (and every acknowledged delete
#     is gone; counters hold at least their last acknowledged value);
#   - the same gateway process serves writes again after each restart (each client gets new
#     acknowledgements after it), so it reconnected by itself;
#   - the gateway is alive at the end and logged no crash.
# Durability as shipped: fsync and synchronous_commit on (TS_GW_CRASH_SYNC=off shows the check
# failing: acknowledged commits are then lost in a crash). Ends with "N passed, N failed".
#
#   bash test/gateway/crash.sh          (GW_SKIP_BUILD=1: use what is built and installed)
set -eu -o pipefail
GW_TEST_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$GW_TEST_DIR/../../scripts/lib.sh"

KILLS=${TS_GW_CRASH_KILLS:-3}
CLIENTS=4
GW_PID=
WORK=
passed=0
failed=0
result() {
	if [ "$1" -eq 0 ]; then echo "ok   $2"; passed=$((passed + 1)); else echo "FAIL $2"; failed=$((failed + 1)); fi
}
cleanup() {
	[ -z "$WORK" ] || touch "$WORK/stop"		# the clients stop at their next operation
	if [ -n "$GW_PID" ] && kill -0 "$GW_PID" 2>/dev/null; then kill "$GW_PID"; fi
	wait 2>/dev/null || true
	[ -z "$WORK" ] || rm -rf "$WORK"
	ts_cluster_stop
}

[ -n "${GW_SKIP_BUILD:-}" ] || ts_setup
ts_node_setup
ts_cluster_start fsync=on synchronous_commit="${TS_GW_CRASH_SYNC:-on}"
trap cleanup EXIT
WORK=$(mktemp -d /tmp/tablestore-gw-crash.XXXXXX)
psql -X -q -v ON_ERROR_STOP=1 -c 'CREATE EXTENSION tablestore' -c "SELECT tablestore.create_table('Crash')" >/dev/null

GW_PORT=$(ts_free_port)
"$TS_ROOT/src/gateway/tablestore-gateway" --port "$GW_PORT" --log quiet --queue-timeout 2000 \
	--dsn "host=$PGHOST port=$PGPORT user=postgres dbname=postgres" >"$WORK/gateway.log" 2>&1 &
GW_PID=$!
for _ in $(seq 1 50); do (exec 3<>"/dev/tcp/127.0.0.1/$GW_PORT") 2>/dev/null && break; sleep 0.1; done

# a client's acknowledgements so far (none yet: no file, 0 - under pipefail and set -e a failing
# cat ended the script without a word when the clients had not written by the first kill)
acks() { { cat "$WORK"/ack.c"$1".* 2>/dev/null || true; } | wc -l; }
kill_server() {
	local pm children
	pm=$(head -1 "$TS_CLUSTER_DIR/data/postmaster.pid")
	children=$(pgrep -P "$pm" || true)
	kill -9 "$pm" $children 2>/dev/null || true
	for _ in $(seq 1 100); do kill -0 "$pm" 2>/dev/null || break; sleep 0.05; done
	# a backend of the killed postmaster may linger a moment: wait for all of them to go
	for _ in $(seq 1 100); do [ -z "$(pgrep -f "postgres: .*$TS_CLUSTER_PORT" || true)" ] && break; sleep 0.05; done
}
start_server() {
	ts_as_server_user "$TS_PGBIN/pg_ctl" -D "$TS_CLUSTER_DIR/data" -l "$TS_CLUSTER_DIR/server.log" -w -t 120 \
		-o "-p $TS_CLUSTER_PORT -k $TS_CLUSTER_DIR -c listen_addresses=127.0.0.1 -c fsync=on -c synchronous_commit=${TS_GW_CRASH_SYNC:-on}" start >/dev/null 2>&1
}

reconnected=0
for round in $(seq 1 "$KILLS"); do
	rm -f "$WORK/stop"
	pids=()
	for c in $(seq 1 $CLIENTS); do
		node "$GW_TEST_DIR/crash_load.mjs" load "$GW_PORT" Crash "r${round}c$c" 120 50000 \
			"$WORK/ack.c$c.r$round" "$WORK/stop" >>"$WORK/clients.log" 2>&1 &
		pids+=($!)
	done
	sleep "$((2 + RANDOM % 3)).$((RANDOM % 10))"
	before=$(for c in $(seq 1 $CLIENTS); do acks "$c"; done | paste -sd' ')
	kill_server
	ts_log "round $round: killed PostgreSQL with SIGKILL after acknowledgements [$before]; restarting"
	sleep 1
	start_server
	at_restart=()
	for c in $(seq 1 $CLIENTS); do at_restart+=("$(acks "$c")"); done
	# every client must get new acknowledgements from the same gateway (it reconnects with back-off)
	ok=0
	for _ in $(seq 1 300); do
		ok=1
		for c in $(seq 1 $CLIENTS); do [ "$(acks "$c")" -ge $((${at_restart[$((c - 1))]} + 20)) ] || ok=0; done
		[ $ok -eq 1 ] && break
		sleep 0.1
	done
	touch "$WORK/stop"
	wait "${pids[@]}" || true
	after=$(for c in $(seq 1 $CLIENTS); do acks "$c"; done | paste -sd' ')
	[ $ok -eq 1 ] && reconnected=$((reconnected + 1))
	result $((1 - ok)) "round $round: every client acknowledged again after the restart (acks at restart [${at_restart[*]}], at the end [$after]), gateway pid $GW_PID unchanged"
done
cat "$WORK/clients.log" | tail -$((CLIENTS * 1)) | sed 's/^/# /'

alive=0
kill -0 "$GW_PID" 2>/dev/null || alive=1
result $alive "the gateway process survived $KILLS database crashes without a restart"
psql -X -q -At -c "COPY (SELECT partition_key, row_key, coalesce(tablestore.prop_int32(properties, 'n'), -1)
	FROM tablestore_data.crash) TO STDOUT" >"$WORK/dump.tsv"
st=0
node "$GW_TEST_DIR/crash_load.mjs" check "$WORK"/ack.* <"$WORK/dump.tsv" || st=$?
result $st "every acknowledged write is there after $KILLS crash recoveries"
st=0
psql -X -q -At -c "CREATE EXTENSION IF NOT EXISTS amcheck" \
	-c "SELECT bt_index_check('tablestore_data.crash_pkey'::regclass, true)" >/dev/null || st=$?
result $st "the primary key passes amcheck (bt_index_check, heapallindexed)"
st=0
grep -qiE "assert|segfault|signal (6|11)|abort" "$WORK/gateway.log" && st=1
result $st "the gateway logged no crash"

echo "gateway crash: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
