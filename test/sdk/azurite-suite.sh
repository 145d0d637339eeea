#!/usr/bin/env bash
# test/sdk/azurite-suite.sh - run Azurite's own table test suite (tests/table/**/*.test.ts of an
# Azurite checkout, which this repository does not contain) against Azurite itself or against
# tablestore-gateway, changing only the server start-up.
#
#   bash test/sdk/azurite-suite.sh AZURITE_DIR [azurite|gateway] [mocha arguments, e.g. --grep batch]
#
# AZURITE_DIR is a checkout of github.com/Azure/Azurite; its dev dependencies are installed there
# (npm ci --ignore-scripts) when it has none. The suite runs with mocha and ts-node under the pinned
# Node.js 22 of test/sdk (npm ci there when needed).
#
#   azurite  (the default) the suite as its authors run it: each test file starts an in-process
#            Azurite table server on 127.0.0.1:11002.
#   gateway  each test file's server is replaced by the built tablestore-gateway
#            (src/gateway/tablestore-gateway) on the same port and account: a mocha --require hook,
#            written to a temporary directory, redirects the suite's one server factory
#            (tests/table/utils/TableTestServerFactory) to a stand-in whose start() starts the
#            gateway (HTTPS with the suite's tests/server.cert when the test asks for HTTPS,
#            --oauth basic when it asks for tokens) and whose close() stops it. The gateway's
#            database is tablestore_azurite in the cluster of PGHOST/PGPORT, recreated for the
#            run; without PGHOST a throwaway cluster is started (scripts/lib.sh) and stopped on exit.
#
# Prints "ok|FAIL|skip <file>: <test>" per test (with the first line of each failure's error),
# then "N passed, N failed, N pending" (a failing before/after hook counts as a failure, as mocha
# counts it); the per-test lines are kept in $AZURITE_SUITE_OUT (default
# /tmp/azurite-suite-<target>.txt). Nothing of Azurite is copied here:
# the failures' causes are in DIFFERENCES.md ("Azurite's own table tests").
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
[ $# -ge 1 ] || { sed -n '2,26p' "$0" >&2; exit 2; }
az=$(cd "$1" && pwd)
target=${2:-azurite}
shift $(($# >= 2 ? 2 : 1))
[ -d "$az/tests/table" ] && [ -f "$az/tests/table/utils/TableTestServerFactory.ts" ] ||
	{ echo "azurite-suite.sh: $az is not an Azurite checkout (no tests/table/utils/TableTestServerFactory.ts)" >&2; exit 2; }
case $target in azurite|gateway) ;; *) echo "azurite-suite.sh: target is azurite or gateway" >&2; exit 2 ;; esac

if [ ! -f "$here/node_modules/.package-lock.json" ] || [ "$here/package-lock.json" -nt "$here/node_modules/.package-lock.json" ]; then
	(cd "$here" && npm ci --no-audit --no-fund --loglevel=error >&2)
fi
PATH=$here/node_modules/.bin:$PATH
if [ ! -d "$az/node_modules/mocha" ]; then
	echo "azurite-suite.sh: npm ci --ignore-scripts in $az" >&2
	(cd "$az" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2)
fi

work=$(mktemp -d /tmp/azurite-suite.XXXXXX)
out=${AZURITE_SUITE_OUT:-/tmp/azurite-suite-$target.txt}
started_cluster=
cleanup() {
	[ -n "${AZURITE_SUITE_KEEP:-}" ] || rm -rf "$work"
	[ -z "$started_cluster" ] || ts_cluster_stop
}
trap cleanup EXIT INT TERM

hook=()
if [ "$target" = gateway ]; then
	gw=$root/src/gateway/tablestore-gateway
	[ -x "$gw" ] || { echo "azurite-suite.sh: $gw is not built (make)" >&2; exit 2; }
	if [ -z "${PGHOST:-}" ]; then
		source "$root/scripts/lib.sh"
		ts_cluster_start
		started_cluster=1
	fi
	psql -X -q -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS tablestore_azurite" \
		-c "CREATE DATABASE tablestore_azurite" >/dev/null
	psql -X -q -d tablestore_azurite -c "CREATE EXTENSION tablestore" >/dev/null
	cat >"$work/gateway-hook.js" <<'EOF'
// A mocha --require hook (tablestore's, not Azurite's): the suite's server factory module resolves
// to this stand-in, whose servers are tablestore-gateway processes on the suite's port.
const Module = require('module');
const { spawn } = require('child_process');
const net = require('net');
const fs = require('fs');
const env = process.env;
const wanted = /[\/\\]tests[\/\\]table[\/\\]utils[\/\\]TableTestServerFactory(\.ts)?$/;
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, parent, ...rest) {
	const file = resolve.call(this, request, parent, ...rest);
	return wanted.test(file.replace(/\.ts$/, '')) ? __filename : file;
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const open = (port) => new Promise((r) => {
	const s = net.connect(port, '127.0.0.1');
	s.on('connect', () => { s.destroy(); r(true); });
	s.on('error', () => r(false));
});
class GatewayServer {
	constructor(params) {
		this.params = params;
		this.config = { host: '127.0.0.1', port: 11002 };
		this.child = null;
	}
	async start() {
		const args = ['--port', String(this.config.port), '--log', 'quiet', '--dsn', env.AZ_GW_DSN];
		if (this.params.https || this.params.oauth)
			args.push('--cert', `${env.AZ_DIR}/tests/server.cert`, '--key', `${env.AZ_DIR}/tests/server.key`, '--allow-dev-account');
		if (this.params.oauth) args.push('--oauth', 'basic');
		const log = fs.openSync(env.AZ_GW_LOG, 'a');
		this.child = spawn(env.AZ_GW_BIN, args, { stdio: ['ignore', log, log] });
		fs.closeSync(log);
		for (let i = 0; i < 100; i++) {
			if (await open(this.config.port)) return;
			if (this.child.exitCode !== null) throw new Error(`tablestore-gateway exited (${this.child.exitCode}); see ${env.AZ_GW_LOG}`);
			await sleep(100);
		}
		throw new Error('tablestore-gateway did not listen');
	}
	async close() {
		if (!this.child || this.child.exitCode !== null) return;
		const done = new Promise((r) => this.child.once('exit', r));
		this.child.kill('SIGTERM');
		await done;
		for (let i = 0; i < 50 && await open(this.config.port); i++) await sleep(100);
	}
	async clean() {}
	getHttpServerAddress() {
		return `${this.params.https ? 'https' : 'http'}://${this.config.host}:${this.config.port}`;
	}
}
class TableTestServerFactory {
	static inMemoryPersistence() { return false; }
	createServer(params) { return new GatewayServer(params); }
}
module.exports = { __esModule: true, default: TableTestServerFactory };
EOF
	hook=(--require "$work/gateway-hook.js")
	export AZ_GW_BIN=$gw AZ_DIR=$az AZ_GW_LOG=$work/gateway.log
	export AZ_GW_DSN="host=${PGHOST:-/var/run/postgresql} port=${PGPORT:-5432} user=${PGUSER:-postgres} dbname=tablestore_azurite"
	echo "azurite-suite.sh: the suite against tablestore-gateway (database tablestore_azurite)" >&2
else
	echo "azurite-suite.sh: the suite against Azurite $(node -p "require('$az/package.json').version") in process" >&2
fi

# a reporter of ours: a line per test, then the counts (mocha's JSON reporter writes nothing for
# this suite: something in it breaks the reporter's end)
cat >"$work/reporter.js" <<'EOF'
module.exports = function LineReporter(runner) {
	let passed = 0, failed = 0, pending = 0;
	const where = (t) => (t.file || '').replace(/^.*?tests\/table\//, '');
	runner.on('pass', (t) => { passed++; console.log(`ok   ${where(t)}: ${t.fullTitle()}`); });
	runner.on('pending', (t) => { pending++; console.log(`skip ${where(t)}: ${t.fullTitle()}`); });
	runner.on('fail', (t, err) => {
		failed++;
		console.log(`FAIL ${where(t)}: ${t.fullTitle()} -- ${String((err && err.message) || err).split('\n')[0].slice(0, 300)}`);
	});
	runner.once('end', () => console.log(`${passed} passed, ${failed} failed, ${pending} pending`));
};
EOF
status=0
(cd "$az" && NODE_TLS_REJECT_UNAUTHORIZED=0 node node_modules/mocha/bin/mocha.js --require ts-node/register "${hook[@]}" \
	--no-timeouts --recursive --exit --reporter "$work/reporter.js" "$@" 'tests/table/**/*.test.ts') \
	>"$work/mocha.log" 2>&1 || status=$?
grep -E '^(ok  |skip|FAIL) ' "$work/mocha.log" >"$out" || true
cat "$out"
if ! grep -qE '^[0-9]+ passed, [0-9]+ failed, [0-9]+ pending$' "$work/mocha.log"; then
	tail -40 "$work/mocha.log" >&2
	echo "azurite-suite.sh: the suite did not finish (exit $status)" >&2
	exit 2
fi
grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ pending$' "$work/mocha.log"
[ "$target" != gateway ] || [ ! -s "$work/gateway.log" ] || { echo "azurite-suite.sh: the gateway logged:" >&2; tail -20 "$work/gateway.log" >&2; }
exit "$status"
