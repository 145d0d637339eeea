#!/usr/bin/env bash
# scripts/test.sh - the whole test suite: installs what is missing, builds, installs, starts a
# throwaway cluster and runs every test. Ends with "N passed, N failed"; exits non-zero on failure.
#
# The extension is built once, with Assert()s enabled and warnings as errors (make TS_ASSERT=1).
#
#   layers       test/arch/layers.pl: no two files of the extension or of the gateway call each
#                other (no cycle), over the objects just built; test/arch/versions.sh: the
#                versions from tablestore.control, PostgreSQL 15 only
#   pg_regress   test/sql/<feature>.sql against test/expected/<feature>.out (make installcheck)
#   pgTAP        test/pgtap/*.sql through pg_prove, each file in its own database (make installcheck-pgtap)
#   scenarios    test/scenario/*.sh (concurrency, pg_dump round trip, patterns)
#   TAP          test/t/*.pl with PostgreSQL::Test::Cluster (crash, replication) - own clusters
#                (make prove_installcheck)
#   gateway      test/gateway/run.sh (raw HTTP and SDK smoke through tablestore-gateway) and
#                test/gateway/crash.sh (SIGKILL PostgreSQL under SDK load) - own clusters
#   copy         test/copy/run.sh: tablestore-copy against a cluster, Azurite and the gateway (round
#                trips of every EDM type, ETags kept, kill -9 and --resume, --sync --mirror,
#                throttling, SAS-only credentials, rejects, bad input, --filter from every
#                source, a hostile endpoint, secrets and files); COPY_KILL_ENTITIES (50000) and
#                COPY_PEER_ENTITIES (5000) size the kill/resume copies (the long run: 200000 each)
#   sdk          the conformance suite (test/sdk, official @azure/data-tables + raw HTTP) against
#                the gateway (every case must pass) and against Azurite; every case where the two
#                differ must be explained in test/sdk/DIFFERENCES.md
#   clients      test/clients/run.sh: third-party clients through the gateway - the Go client of
#                Debian's golang-github-azure-azure-sdk-for-go-dev, azure-storage 2.10.7 (npm),
#                Debian's azure-cosmosdb-table and azure-data-tables - recorded per client
#   fuzz smoke   test/fuzz: each libFuzzer target for a short run (TS_FUZZ_SECONDS, default 10;
#                the 10-minute runs are test/fuzz/run.sh TARGET 600)
#   soak         test/soak/soak.sh for 30 s at 16 clients: no error, flat backend memory
#   demo         scripts/demo.sql runs to the end without an unexpected error, and scripts/demo.mjs
#                (an SDK program) through the gateway
#   bench smoke  bench/run.sh --quick (every workload completes; no timing is asserted)
#
# TS_TEST_ONLY=regress,pgtap,... runs only the named parts (layers, regress, pgtap, scenario, tap,
# gateway, copy, sdk, clients, fuzz, soak, demo, bench).
set -u -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PASSED=0
FAILED=0
FAILURES=()
ONLY=${TS_TEST_ONLY:-layers,regress,pgtap,scenario,tap,gateway,copy,sdk,clients,fuzz,soak,demo,bench}

want() { [[ ",$ONLY," == *",$1,"* ]]; }

# Each result line says how long it took since the one before (the set-up counts to the first),
# so a slow part shows in CI's log.
LAST_RECORD=$SECONDS
record() {
	local took=$((SECONDS - LAST_RECORD))
	LAST_RECORD=$SECONDS
	if [ "$2" -eq 0 ]; then
		PASSED=$((PASSED + 1))
		printf 'ok     %s (%d s)\n' "$1" "$took"
	else
		FAILED=$((FAILED + 1))
		FAILURES+=("$1")
		printf 'FAILED %s (%d s)\n' "$1" "$took"
	fi
}

# A directory the unprivileged server user can read and write, holding a copy of the tests: what
# the TAP files read (test/t, the regression files and scenarios test/t/004 runs, the Makefile and
# the *.mk it includes), without what the other suites built or installed under test/ (the Node
# packages of test/sdk, ~570 MB, and the fuzzers' builds).
ts_shared_copy() {
	local dir
	dir=$(mktemp -d /tmp/tablestore-test.XXXXXX)
	(cd "$TS_ROOT" && tar -cf - --exclude=node_modules --exclude=test/fuzz/build --exclude=test/fuzz/artifacts \
		test scripts sql Makefile "$(basename "$TS_ROOT"/*.control)" $(find src -name '*.mk') src/layers.conf) | tar -xf - -C "$dir"
	chmod -R a+rX "$dir"
	chown -R "$(ts_server_user)" "$dir"
	echo "$dir"
}

# The layering rule of doc/architecture.md, on the objects of each program.
run_layers() {
	ts_log "layers (test/arch/layers.pl: every call within its layer or down, src/layers.conf)"
	# each program's objects as the Makefile builds them (the core twice: *.o for the extension,
	# *.gw.o for the frontend programs)
	objs() { make -C "$TS_ROOT" -s "$@" PG_CONFIG="$TS_PG_CONFIG" | tr ' ' '\n' | sed -n "s|^\(.\)|$TS_ROOT/\1|p"; }
	perl "$TS_ROOT/test/arch/layers.pl" extension $(objs print-OBJS)
	record "layers/extension" $?
	perl "$TS_ROOT/test/arch/layers.pl" gateway $(objs print-GW_OBJS) $(objs print-GW_CORE_OBJS)
	record "layers/gateway" $?
	perl "$TS_ROOT/test/arch/layers.pl" copy $(objs print-CP_OBJS) $(objs print-CP_CORE_OBJS)
	record "layers/copy" $?
	# the check itself fails on a call planted upward, and on a file outside the layers
	bash "$TS_ROOT/test/arch/layers_test.sh"
	record "layers/the check fails on an upward call" $?
	# the versions from one place (tablestore.control), PostgreSQL 15 only
	bash "$TS_ROOT/test/arch/versions.sh" "$TS_PG_CONFIG"
	record "layers/versions" $?
}

# Each runner below calls a Makefile target for one file, so every file is reported on its own.
run_regress() {
	local name
	ts_log "pg_regress (make installcheck: test/sql/ + test/expected/)"
	for name in $(make -C "$TS_ROOT" -s print-REGRESS PG_CONFIG="$TS_PG_CONFIG"); do
		if make -C "$TS_ROOT" -s installcheck REGRESS="$name" PG_CONFIG="$TS_PG_CONFIG" >$TS_LOG_DIR/regress.log 2>&1; then
			record "regress/$name" 0
		else
			grep -E '\.\.\.|failed' $TS_LOG_DIR/regress.log | tail -3
			[ -f "$TS_ROOT/regression.diffs" ] && head -60 "$TS_ROOT/regression.diffs"
			record "regress/$name" 1
		fi
	done
}

# Every pgTAP file runs twice: with the direct single-entity path (the default) and with
# tablestore.fast_path = off, where every operation runs its prepared SQL statement.
run_pgtap() {
	local f mode status
	ts_log "pgTAP (make installcheck-pgtap), with tablestore.fast_path on and off"
	for f in "$TS_ROOT"/test/pgtap/*.sql; do
		for mode in on off; do
			PGOPTIONS="-c tablestore.fast_path=$mode" make -C "$TS_ROOT" -s installcheck-pgtap \
				PGTAP_TESTS="test/pgtap/$(basename "$f")" PG_CONFIG="$TS_PG_CONFIG"
			status=$?	# before any $(...) in record's arguments, which would reset $?
			record "pgtap/$(basename "$f" .sql) (fast_path=$mode)" $status
		done
	done
}

run_scenarios() {
	local f name
	[ -n "$(ls "$TS_ROOT"/test/scenario/*.sh 2>/dev/null)" ] || return 0
	ts_log "scenario tests (test/scenario)"
	for f in "$TS_ROOT"/test/scenario/*.sh; do
		name=$(basename "$f" .sh)
		[ "$name" = lib ] && continue
		TS_ROOT="$TS_ROOT" bash "$f" >"$TS_LOG_DIR/scenario-$name.log" 2>&1
		local status=$?
		if [ $status -ne 0 ]; then tail -30 "$TS_LOG_DIR/scenario-$name.log"; fi
		grep -E '^# ' "$TS_LOG_DIR/scenario-$name.log" | tail -5
		record "scenario/$name" $status
	done
}

# TAP tests start clusters of their own, so they run as the server user in a copy it may write to:
# a fresh copy for each file, so that nothing one file leaves or loses (a bail-out, its clusters'
# directories, a copy removed under it) can fail the next. A failed file's copy is kept (its
# tmp_check holds the clusters' logs).
run_tap() {
	local f name dir status
	[ -n "$(ls "$TS_ROOT"/test/t/*.pl 2>/dev/null)" ] || return 0
	ts_log "TAP tests (make prove_installcheck: test/t, PostgreSQL::Test::Cluster)"
	for f in "$TS_ROOT"/test/t/*.pl; do
		name=$(basename "$f" .pl)
		dir=$(ts_shared_copy)
		ts_as_server_user env TS_ROOT="$dir" TS_CRASH_KILLS="${TS_CRASH_KILLS:-5}" \
			make -C "$dir" -s prove_installcheck PROVE_TESTS="test/t/$name.pl" PROVE_FLAGS=-v PG_CONFIG="$TS_PG_CONFIG"
		status=$?
		if [ $status -eq 0 ]; then rm -rf "$dir"; else echo "# tap/$name: its copy and logs are kept in $dir"; fi
		record "tap/$name" $status
	done
}

# The gateway's own tests start their clusters (one for the HTTP tests, one to kill).
run_gateway() {
	local t
	ts_log "gateway (test/gateway: raw HTTP, SDK smoke, crash safety)"
	for t in run crash; do
		GW_SKIP_BUILD=1 bash "$TS_ROOT/test/gateway/$t.sh" >"$TS_LOG_DIR/gateway-$t.log" 2>&1
		local status=$?
		grep -E '^(FAIL|not ok)|passed, [0-9]+ failed' "$TS_LOG_DIR/gateway-$t.log" | tail -12
		[ $status -eq 0 ] || tail -30 "$TS_LOG_DIR/gateway-$t.log"
		record "gateway/$t" $status
	done
}

# tablestore-copy's tests start their own cluster, Azurite and gateways.
run_copy() {
	ts_log "copy (test/copy/run.sh: tablestore-copy against real peers)"
	COPY_SKIP_BUILD=1 bash "$TS_ROOT/test/copy/run.sh" >"$TS_LOG_DIR/copy.log" 2>&1
	local status=$?
	grep -E '^FAILED|^# |passed, [0-9]+ failed' "$TS_LOG_DIR/copy.log" | tail -12
	[ $status -eq 0 ] || tail -30 "$TS_LOG_DIR/copy.log"
	record "copy" $status
}

# The SDK suite against the gateway and Azurite, then their differences against DIFFERENCES.md.
run_sdk() {
	local dir status
	dir=$(mktemp -d /tmp/tablestore-sdk.XXXXXX)
	ts_log "SDK conformance suite (test/sdk) against tablestore-gateway"
	SDK_RESULTS_DIR=$dir bash "$TS_ROOT/test/sdk/run-gateway.sh" >"$dir/gateway.log" 2>&1
	status=$?
	grep -E '^FAILED|passed, [0-9]+ failed' "$dir/gateway.log"
	record "sdk/tablestore-gateway" $status
	ts_log "SDK conformance suite against Azurite (its failures are the documented differences)"
	SDK_RESULTS_DIR=$dir bash "$TS_ROOT/test/sdk/run-azurite.sh" >"$dir/azurite.log" 2>&1
	grep -E 'passed, [0-9]+ failed' "$dir/azurite.log"
	[ -s "$dir/azurite.json" ] && [ -s "$dir/tablestore.json" ]
	record "sdk/azurite (run to the end)" $?
	if [ -s "$dir/azurite.json" ] && [ -s "$dir/tablestore.json" ]; then
		node "$TS_ROOT/test/sdk/diff.mjs" "$dir/azurite.json" "$dir/tablestore.json" \
			--documented "$TS_ROOT/test/sdk/DIFFERENCES.md" >"$dir/diff.log" 2>&1
		status=$?
		grep -E 'NOT DOCUMENTED|NO ANSWER|documented in' "$dir/diff.log"
		record "sdk/differences from Azurite documented" $status
	fi
	rm -rf "$dir"
}

# The third-party clients (test/clients/run.sh: its own cluster and gateway), one record each.
run_clients() {
	local status_file status name st
	ts_log "third-party clients (test/clients: Go, azure-storage 2.10.7, azure-cosmosdb-table, azure-data-tables)"
	status_file=$(mktemp /tmp/tablestore-clients-status.XXXXXX)
	GW_SKIP_BUILD=1 CLIENTS_STATUS_FILE=$status_file bash "$TS_ROOT/test/clients/run.sh" >$TS_LOG_DIR/clients.log 2>&1
	status=$?
	grep -E '^(FAIL|client )|^clients: ' $TS_LOG_DIR/clients.log
	while read -r name st; do
		record "clients/$name" "$st"
	done <"$status_file"
	# a failure outside the clients' programs (set-up, build, the gateway dying)
	if [ $status -ne 0 ] && ! grep -qv ' 0$' "$status_file"; then
		tail -30 $TS_LOG_DIR/clients.log
		record "clients (set-up and gateway)" 1
	fi
	rm -f "$status_file"
}

run_fuzz() {
	[ -f "$TS_ROOT/test/fuzz/run.sh" ] || return 0
	ts_log "fuzz smoke (test/fuzz)"
	local t
	for t in $(bash "$TS_ROOT/test/fuzz/run.sh" --list); do
		bash "$TS_ROOT/test/fuzz/run.sh" "$t" "${TS_FUZZ_SECONDS:-10}"
		record "fuzz/$t" $?
	done
}

run_soak() {
	ts_log "soak (test/soak/soak.sh --seconds ${TS_SOAK_SECONDS:-30})"
	bash "$TS_ROOT/test/soak/soak.sh" --no-setup --seconds "${TS_SOAK_SECONDS:-30}" 2>&1 | grep -E '^# |error|GROWING'
	record "soak (${TS_SOAK_SECONDS:-30}s, 16 clients)" "${PIPESTATUS[0]}"
}

# The demo shows its expected errors with ON_ERROR_STOP off around them; anything else stops it.
run_demo() {
	ts_log "demo (scripts/demo.sql)"
	psql -X -q -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS tablestore_demo_check" \
		-c "CREATE DATABASE tablestore_demo_check" >/dev/null
	psql -X -q -v ON_ERROR_STOP=1 -d tablestore_demo_check -f "$TS_ROOT/scripts/demo.sql" >/dev/null 2>&1
	record "demo (SQL)" $?
	ts_log "demo (scripts/demo.mjs through tablestore-gateway)"
	local port pid status
	port=$(ts_free_port)
	"$TS_ROOT/src/gateway/tablestore-gateway" --port "$port" --log quiet \
		--dsn "host=$PGHOST port=$PGPORT user=postgres dbname=tablestore_demo_check" >$TS_LOG_DIR/demo-gw.log 2>&1 &
	pid=$!
	for _ in $(seq 1 50); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
	node "$TS_ROOT/scripts/demo.mjs" "$port" >$TS_LOG_DIR/demo-sdk.log 2>&1
	status=$?
	[ $status -eq 0 ] || cat $TS_LOG_DIR/demo-sdk.log
	# what the program printed is what the demo shows: the steps' answers, checked here
	grep -q '^update with the old ETag *412 UpdateConditionNotSatisfied$' $TS_LOG_DIR/demo-sdk.log &&
		grep -q '^order-0100 after the failed one *absent$' $TS_LOG_DIR/demo-sdk.log &&
		grep -q '^page 3 *order-0019:20$' $TS_LOG_DIR/demo-sdk.log || status=1
	kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
	record "demo (SDK through the gateway)" $status
	psql -X -q -c "DROP DATABASE tablestore_demo_check" >/dev/null
}

run_bench() {
	[ -f "$TS_ROOT/bench/run.sh" ] || return 0
	ts_log "benchmark smoke (bench/run.sh --quick)"
	bash "$TS_ROOT/bench/run.sh" --quick --no-setup
	record "bench/quick" $?
}

ts_setup TS_ASSERT=1
ts_node_setup
ts_cluster_start fsync=off synchronous_commit=off max_connections=120
want layers && run_layers
want regress && run_regress
want pgtap && run_pgtap
want scenario && run_scenarios
want tap && run_tap
want gateway && run_gateway
want copy && run_copy
want sdk && run_sdk
want clients && run_clients
want fuzz && run_fuzz
want soak && run_soak
want demo && run_demo
want bench && run_bench

if [ $FAILED -gt 0 ]; then
	printf 'failed: %s\n' "${FAILURES[*]}"
fi
echo "$PASSED passed, $FAILED failed"
[ $FAILED -eq 0 ]
