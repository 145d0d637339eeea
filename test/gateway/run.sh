#!/usr/bin/env bash
# test/gateway/run.sh - build tablestore-gateway, start a throwaway PostgreSQL cluster with the
# extension, start the gateway on a free port, and run
# the raw HTTP tests (raw_test.mjs), then the SDK smoke check (sdk_smoke.mjs) with the pinned
# @azure/data-tables of test/sdk (scripts/lib.sh ts_node_setup). Ends with "N passed, N failed"; non-zero on a failure.
# Everything it starts is stopped on exit.
#
# Also: security checks, fairness and memory under load (request bodies, answers not read, heavy
# clients, answers admitted with 16 workers, a respelled bearer token, idle connections,
# preflight floods), duplicate headers and framing, start-up refusals and signals (during
# start-up, SIGHUP, SIGQUIT), a full pool, a database restart.
#
#   bash test/gateway/run.sh
#   TS_PG_CONFIG=/opt/pg-gw/usr/lib/postgresql/15/bin/pg_config bash test/gateway/run.sh   (a private PostgreSQL)
#   GW_SDK_PACKAGE=/path/to/package.json   where @azure/data-tables is installed (default: test/sdk)
#   GW_SKIP_BUILD=1                        use the binaries already built and installed
set -eu -o pipefail
GW_TEST_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$GW_TEST_DIR/../../scripts/lib.sh"

GW_PID=
LIMITS_PID=
BUSY_PID=
GW_LOG=
cleanup() {
	local p
	for p in $GW_PID $BUSY_PID $LIMITS_PID ${OWNER_GW_PID:-}; do
		if kill -0 "$p" 2>/dev/null; then
			kill "$p" 2>/dev/null || true
			wait "$p" 2>/dev/null || true
		fi
	done
	[ -n "$GW_LOG" ] && rm -f "$GW_LOG" "$GW_LOG.sdk"
	ts_cluster_stop
}

# make install links the gateway into /usr/local/bin; the tests run the built binary and leave the PATH alone
export GW_PATH_DIR=${GW_PATH_DIR-}
[ -n "${GW_SKIP_BUILD:-}" ] || ts_setup
ts_node_setup
ts_cluster_start
trap cleanup EXIT

psql -q -v ON_ERROR_STOP=1 -c 'CREATE EXTENSION tablestore' >/dev/null

GW_BIN="$TS_ROOT/src/gateway/tablestore-gateway"
GW_PORT=$(ts_free_port)
GW_LOG=$(mktemp /tmp/tablestore-gateway-log.XXXXXX)
KEY1=$(head -c 64 /dev/urandom | base64 -w0)
KEY2=$(head -c 64 /dev/urandom | base64 -w0)
ts_log "starting the gateway on 127.0.0.1:$GW_PORT"
DEV_KEY='Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=='
# two configured accounts: the development one (its public key on loopback) and gwtest2, whose
# database (postgres_gwtest2) the gateway creates
AZURITE_ACCOUNTS="devstoreaccount1:$DEV_KEY;gwtest2:$KEY1:$KEY2" "$GW_BIN" --port "$GW_PORT" --timeout 2 --request-timeout 3 \
	--dsn "host=$PGHOST port=$PGPORT user=postgres dbname=postgres" >"$GW_LOG" 2>&1 &
GW_PID=$!
for _ in $(seq 1 50); do
	(exec 3<>"/dev/tcp/127.0.0.1/$GW_PORT") 2>/dev/null && break
	sleep 0.1
done

passed=0
failed=0
# tally SECONDS COMMAND...: run a test program that prints a line per check and "N passed, N
# failed" (bounded by SECONDS), show what is not "ok", and add its counts (no count line: 1 failed)
tally() {
	local secs=$1 out p f
	shift
	out=$(mktemp /tmp/tablestore-gateway-out.XXXXXX)
	timeout "$secs" "$@" >"$out" 2>&1 || true
	grep -v '^ok ' "$out" || true
	p=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$out")
	f=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$out")
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-1}))
	rm -f "$out"
}

# the gateway's C unit tests (the table of operations, the error mapping, URLs, SAS, parsers)
make -C "$TS_ROOT" -s gateway-unit PG_CONFIG="$TS_PG_CONFIG" >/dev/null
tally 60 "$TS_ROOT/test/gateway/unit/gateway-unit"
tally 150 node "$GW_TEST_DIR/raw_test.mjs" --port "$GW_PORT" --log "$GW_LOG" --account "gwtest2:$KEY1:$KEY2" --request-timeout 3
# the wire details official clients look at (changeset framing, messages, ACL, verbose)
tally 60 node "$GW_TEST_DIR/wire_test.mjs" --port "$GW_PORT"
# what real clients and tools send (issue 32): inserts to t(), a query alone in a $batch,
# x-ms-version, stats on the primary, CORS origins with wildcards and Vary, If-Match: w/"…"
tally 90 node "$GW_TEST_DIR/compat_test.mjs" --port "$GW_PORT"
# a table's indexing policy: Create Table's header, GET/PUT ?comp=indexingpolicy, bad input,
# credentials, and PUTs in a loop while the index of a loaded table is built
psql -q -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
SELECT tablestore.create_table('IdxLoad');
INSERT INTO tablestore_data.idxload (partition_key, row_key, properties)
SELECT 'p' || (i % 100), lpad(i::text, 7, '0'),
	format('{"Code":%s,"Name":"n%s","Note":"%s"}', i, i, repeat('x', 40))::tablestore.entity
FROM generate_series(1, 100000) i;
VACUUM ANALYZE tablestore_data.idxload;
SQL
tally 180 node "$GW_TEST_DIR/indexing_test.mjs" --port "$GW_PORT" --load-table IdxLoad
# ... and no process of the server was terminated by a signal meanwhile (they crashed it)
if grep -q "terminated by signal" "$TS_CLUSTER_DIR/server.log"; then
	echo "FAIL a process of the server was terminated by a signal:"
	grep -A1 "terminated by signal" "$TS_CLUSTER_DIR/server.log" | head -6
	failed=$((failed + 1))
else
	echo "ok   no process of the server was terminated by a signal during the policy changes"
	passed=$((passed + 1))
fi
psql -q -c "SELECT tablestore.drop_table('IdxLoad')" >/dev/null
# the same through a gateway connected as its database's owner, a role that is not a superuser
# (doc/gateway.md): it starts (claim_account) and reads a policy's progress during its build
psql -q -v ON_ERROR_STOP=1 -c "CREATE ROLE gwowner LOGIN" -c "CREATE DATABASE gwowned OWNER gwowner" >/dev/null
psql -q -v ON_ERROR_STOP=1 -d gwowned -c "CREATE EXTENSION tablestore" -c "GRANT CREATE ON SCHEMA tablestore_data TO gwowner" >/dev/null
psql -q -v ON_ERROR_STOP=1 -d gwowned -U gwowner >/dev/null <<'SQL'
SELECT tablestore.create_table('IdxOwned');
INSERT INTO tablestore_data.idxowned (partition_key, row_key, properties)
SELECT 'p' || (i % 100), lpad(i::text, 7, '0'),
	format('{"Code":%s,"Name":"n%s","Note":"%s"}', i, i, repeat('x', 40))::tablestore.entity
FROM generate_series(1, 50000) i;
SQL
OWNER_GW_PORT=$(ts_free_port)
"$GW_BIN" --port "$OWNER_GW_PORT" --timeout 2 --request-timeout 3 \
	--dsn "host=$PGHOST port=$PGPORT user=gwowner dbname=gwowned" >>"$GW_LOG" 2>&1 &
OWNER_GW_PID=$!
for _ in $(seq 1 50); do
	(exec 3<>"/dev/tcp/127.0.0.1/$OWNER_GW_PORT") 2>/dev/null && break
	sleep 0.1
done
if kill -0 "$OWNER_GW_PID" 2>/dev/null; then
	echo "ok   a gateway connected as its database's owner (not a superuser) starts"
	passed=$((passed + 1))
	tally 180 node "$GW_TEST_DIR/indexing_test.mjs" --port "$OWNER_GW_PORT" --load-table IdxOwned
else
	echo "FAIL a gateway connected as its database's owner (not a superuser) does not start:"
	tail -3 "$GW_LOG"
	failed=$((failed + 1))
fi
kill "$OWNER_GW_PID" 2>/dev/null; wait "$OWNER_GW_PID" 2>/dev/null || true

SDK_PKG=${GW_SDK_PACKAGE:-$TS_NODE_DIR/package.json}
if [ -d "$(dirname "$SDK_PKG")/node_modules/@azure/data-tables" ]; then
	ts_log "SDK smoke with $(dirname "$SDK_PKG")/node_modules/@azure/data-tables"
	tally 60 node "$GW_TEST_DIR/sdk_smoke.mjs" "$GW_PORT" "$SDK_PKG"
else
	ts_log "no npm install of @azure/data-tables found: SDK smoke not run"
	failed=$((failed + 1))
fi

# HTTPS and bearer tokens: two TLS gateways with a self-signed certificate, one checking the
# tokens' claims (--oauth basic), one also their RS256 signatures (--oauth-keys)
ts_install_packages openssl	# the certificate and the token keys are made with its command line
TLS_DIR=$(mktemp -d /tmp/tablestore-gateway-tls.XXXXXX)
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$TLS_DIR/tls.key" -out "$TLS_DIR/tls.crt" -days 2 \
	-subj /CN=127.0.0.1 -addext "subjectAltName=IP:127.0.0.1" >/dev/null 2>&1
openssl genrsa -out "$TLS_DIR/jwt.key" 2048 >/dev/null 2>&1
openssl rsa -in "$TLS_DIR/jwt.key" -pubout -out "$TLS_DIR/jwt.pub" >/dev/null 2>&1
chmod 644 "$TLS_DIR"/*
TLS_PORT=$(ts_free_port)
# the development account with its public key, allowed here (--allow-dev-account) for the tests
"$GW_BIN" --port "$TLS_PORT" --cert "$TLS_DIR/tls.crt" --key "$TLS_DIR/tls.key" --oauth basic --allow-dev-account \
	--dsn "host=$PGHOST port=$PGPORT user=postgres dbname=postgres" >>"$GW_LOG" 2>&1 &
TLS_PID=$!
SIGNED_PORT=$(ts_free_port)
"$GW_BIN" --port "$SIGNED_PORT" --cert "$TLS_DIR/tls.crt" --key "$TLS_DIR/tls.key" --oauth basic --oauth-keys "$TLS_DIR/jwt.pub" --allow-dev-account \
	--oauth-issuers "https://sts.windows.net/72f988bf-86f1-41af-91ab-2d7cd011db47/,https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47/v2.0" \
	--dsn "host=$PGHOST port=$PGPORT user=postgres dbname=postgres" >>"$GW_LOG" 2>&1 &
SIGNED_PID=$!
for p in $TLS_PORT $SIGNED_PORT; do
	for _ in $(seq 1 50); do (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null && break; sleep 0.1; done
done
if [ -d "$(dirname "$SDK_PKG")/node_modules/@azure/data-tables" ]; then
	ts_log "HTTPS and bearer tokens (tls_oauth.mjs)"
	NODE_EXTRA_CA_CERTS="$TLS_DIR/tls.crt" tally 60 node "$GW_TEST_DIR/tls_oauth.mjs" "$TLS_PORT" "$SIGNED_PORT" "$GW_PORT" \
		"$TLS_DIR/jwt.key" "$SDK_PKG"
fi
# one bearer token spelled 184 ways holds no more than one token may: the account key still writes
ts_log "a bearer token respelled (load_bearer.mjs)"
tally 60 node "$GW_TEST_DIR/load_bearer.mjs" --port "$SIGNED_PORT" --jwt-key "$TLS_DIR/jwt.key"
# the attacker's view (security_test.mjs): two configured accounts, secA in database sectest and
# secB in sectest_secb (which the gateway creates)
psql -q -c "CREATE DATABASE sectest" >/dev/null && psql -q -d sectest -c "CREATE EXTENSION tablestore" >/dev/null
KEYA=$(head -c 64 /dev/urandom | base64 -w0)
KEYB=$(head -c 64 /dev/urandom | base64 -w0)
SEC_PORT=$(ts_free_port)
SEC_LOG=$(mktemp /tmp/tablestore-gateway-sec.XXXXXX)
# (a send timeout of 3 s: load_readers.mjs waits that long for the gateway to drop its readers)
AZURITE_ACCOUNTS="secA:$KEYA;secB:$KEYB" "$GW_BIN" --port "$SEC_PORT" --send-timeout 3 \
	--dsn "host=$PGHOST port=$PGPORT user=postgres dbname=sectest" >"$SEC_LOG" 2>&1 &
SEC_PID=$!
for _ in $(seq 1 50); do (exec 3<>"/dev/tcp/127.0.0.1/$SEC_PORT") 2>/dev/null && break; sleep 0.1; done
ts_log "security checks (security_test.mjs)"
tally 120 node "$GW_TEST_DIR/security_test.mjs" --port "$SEC_PORT" --a "secA:$KEYA" --b "secB:$KEYB" --log "$SEC_LOG"
# the load checks (bounded, loopback): one account's waiting database work does not stall the
# other's requests nor those that need no database; hostile uploads do not grow the memory
psql -q -d sectest -c "SELECT tablestore.create_table('fairA')" >/dev/null
psql -q -d sectest_secb -c "SELECT tablestore.create_table('fairB')" >/dev/null
ts_log "fairness under one account's waiting database work (load_fairness.mjs)"
psql -q -d sectest -c "BEGIN; LOCK TABLE tablestore_data.faira IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(7); COMMIT;" >/dev/null &
LOCK_PID=$!
sleep 0.3
tally 120 node "$GW_TEST_DIR/load_fairness.mjs" --port "$SEC_PORT" --a "secA:$KEYA" --a-table fairA --b "secB:$KEYB" --b-table fairB
wait "$LOCK_PID" || true
ts_log "memory under hostile uploads (load_memory.mjs)"
tally 120 node "$GW_TEST_DIR/load_memory.mjs" --port "$SEC_PORT" --pid "$SEC_PID" --account "secA:$KEYA"
# one account's held request bodies do not switch off the other's writes (each credential kind)
ts_log "the body budget shared by account and credential (load_budget.mjs)"
tally 180 node "$GW_TEST_DIR/load_budget.mjs" --port "$SEC_PORT" --pid "$SEC_PID" --a "secA:$KEYA" --b "secB:$KEYB"
# answers nobody reads: bounded memory, dropped, memory returned
ts_log "answers not read (load_readers.mjs)"
tally 180 node "$GW_TEST_DIR/load_readers.mjs" --port "$SEC_PORT" --pid "$SEC_PID" --a "secA:$KEYA" --b "secB:$KEYB" --send-timeout 3
# a header that may appear once, given twice; framing (HTTP/1.0 with Transfer-Encoding, NUL bytes)
tally 60 node "$GW_TEST_DIR/headers_test.mjs" --port "$SEC_PORT" --account "secA:$KEYA"
# idle connections from 8 addresses and a flood of unauthenticated preflights do not lock B out
ts_log "connection slots and preflights (load_slots.mjs)"
tally 90 node "$GW_TEST_DIR/load_slots.mjs" --port "$SEC_PORT" --a "secA:$KEYA" --b "secB:$KEYB"
kill "$SEC_PID" 2>/dev/null; wait "$SEC_PID" 2>/dev/null || true
rm -f "$SEC_LOG"

# small budgets and 16 database workers per account: the answers one SAS holds stay within the
# budget whatever pool_size is, Expect: 100-continue without room is refused before the body, and
# a refused body still times out (load_limits.mjs)
LIMITS_PORT=$(ts_free_port)
AZURITE_ACCOUNTS="secA:$KEYA;secB:$KEYB" "$GW_BIN" --port "$LIMITS_PORT" --body-memory 16 --response-memory 64 --pool 16 \
	--request-timeout 2 --send-timeout 30 --dsn "host=$PGHOST port=$PGPORT user=postgres dbname=sectest" >>"$GW_LOG" 2>&1 &
LIMITS_PID=$!
for _ in $(seq 1 50); do (exec 3<>"/dev/tcp/127.0.0.1/$LIMITS_PORT") 2>/dev/null && break; sleep 0.1; done
ts_log "answers admitted at once, Expect and timeouts after a refusal (load_limits.mjs)"
tally 120 node "$GW_TEST_DIR/load_limits.mjs" --port "$LIMITS_PORT" --a "secA:$KEYA" --b "secB:$KEYB" --response-mb 64
kill "$LIMITS_PID" 2>/dev/null; wait "$LIMITS_PID" 2>/dev/null || true
# legitimate heavy clients through one key (the official SDK, no retries), on a gateway with the
# default budgets and timeouts: parallel 3.9 MB batches and parallel 17.9 MB pages, all served
if [ -d "$(dirname "$SDK_PKG")/node_modules/@azure/data-tables" ]; then
	LIMITS_PORT=$(ts_free_port)
	AZURITE_ACCOUNTS="secA:$KEYA;secB:$KEYB" "$GW_BIN" --port "$LIMITS_PORT" \
		--dsn "host=$PGHOST port=$PGPORT user=postgres dbname=sectest" >>"$GW_LOG" 2>&1 &
	LIMITS_PID=$!
	for _ in $(seq 1 50); do (exec 3<>"/dev/tcp/127.0.0.1/$LIMITS_PORT") 2>/dev/null && break; sleep 0.1; done
	ts_log "heavy clients through one key (load_heavy.mjs)"
	tally 150 node "$GW_TEST_DIR/load_heavy.mjs" --port "$LIMITS_PORT" --a "secA:$KEYA" --sdk "$SDK_PKG"
	kill "$LIMITS_PID" 2>/dev/null; wait "$LIMITS_PID" 2>/dev/null || true
fi

# configurations that would let tokens through too easily are refused at start-up
# refused_at_startup WHAT [GATEWAY ARGS...]: the gateway exits at once with an error (one that
# starts and serves is killed by the timeout: exit 124, counted as accepted)
refused_at_startup() {
	local what=$1 status
	shift
	status=0
	timeout 5 "$GW_BIN" --port "$(ts_free_port)" --dsn "${REFUSED_DSN:-dbname=none}" "$@" >/dev/null 2>&1 || status=$?
	if [ $status -eq 0 ] || [ $status -eq 124 ]; then
		echo "FAIL $what was accepted"
		failed=$((failed + 1))
	else
		echo "ok   $what is refused at start-up"
		passed=$((passed + 1))
	fi
}
TLS_ARGS=(--cert "$TLS_DIR/tls.crt" --key "$TLS_DIR/tls.key")
refused_at_startup "--oauth basic without --cert/--key (tokens in clear text)" --oauth basic
refused_at_startup "--oauth-keys without --oauth-issuers (any tenant's token would pass)" "${TLS_ARGS[@]}" --oauth basic --oauth-keys "$TLS_DIR/jwt.pub"
refused_at_startup "unsigned tokens on a non-loopback address" "${TLS_ARGS[@]}" --oauth basic --listen 0.0.0.0
refused_at_startup "a certificate without its key" --cert "$TLS_DIR/tls.crt" --oauth basic
# the public development key anyone can sign with: loopback and plain HTTP only, unless allowed
refused_at_startup "the development account on a non-loopback address" --listen 0.0.0.0
refused_at_startup "the development account with --cert" "${TLS_ARGS[@]}"
refused_at_startup "the development account with tokens" "${TLS_ARGS[@]}" --oauth basic
DEV_KEY_ACCOUNTS="devstoreaccount1:$DEV_KEY;other:$KEY1"
AZURITE_ACCOUNTS=$DEV_KEY_ACCOUNTS refused_at_startup "a configured account holding the public key with --cert" "${TLS_ARGS[@]}"
AZURITE_ACCOUNTS="x:$DEV_KEY" refused_at_startup "any account holding the public key on a non-loopback address" --listen 0.0.0.0
# accounts never share a database: one already claimed by another account, or one given to two
REFUSED_DSN="host=$PGHOST port=$PGPORT user=postgres dbname=sectest_secb" AZURITE_ACCOUNTS="intruder:$KEY1" \
	refused_at_startup "an account whose database serves another account"
psql -q -c "CREATE DATABASE sharedtest" >/dev/null && psql -q -d sharedtest -c "CREATE EXTENSION tablestore" >/dev/null
printf '[account one]\nkey1 = %s\ndsn = host=%s port=%s user=postgres dbname=sharedtest\n[account two]\nkey1 = %s\ndsn = host=%s port=%s user=postgres dbname=sharedtest\n' \
	"$KEY1" "$PGHOST" "$PGPORT" "$KEY2" "$PGHOST" "$PGPORT" >"$TLS_DIR/shared.conf"
refused_at_startup "two accounts given one database" --config "$TLS_DIR/shared.conf"
for p in $TLS_PID $SIGNED_PID; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null || true; done
rm -rf "$TLS_DIR"

# SIGTERM while the gateway starts (its workers run, it waits for an account's database): a clean stop
psql -q -c "CREATE DATABASE startuptest" >/dev/null && psql -q -d startuptest -c "CREATE EXTENSION tablestore" >/dev/null
tally 60 node "$GW_TEST_DIR/startup_signal.mjs" --bin "$GW_BIN" --dsn "host=$PGHOST port=$PGPORT user=postgres dbname=startuptest"

# a full pool: one connection (and worker), held by a request waiting on a lock; another request
# queues for at most 500 ms and then gets 503 ServerBusy; with no queue (--queue 0) at once
psql -q -c "SELECT tablestore.create_table('busytest')" >/dev/null
busy_check() {
	local what=$1 queue=$2 most_ms=$3 first second t0 ms
	shift 3
	BUSY_PORT=$(ts_free_port)
	"$GW_BIN" --port "$BUSY_PORT" --pool 1 --queue "$queue" --queue-timeout 500 \
		--dsn "host=$PGHOST port=$PGPORT user=postgres dbname=postgres" >>"$GW_LOG" 2>&1 &
	BUSY_PID=$!
	for _ in $(seq 1 50); do (exec 3<>"/dev/tcp/127.0.0.1/$BUSY_PORT") 2>/dev/null && break; sleep 0.1; done
	psql -q -c "BEGIN; LOCK TABLE tablestore_data.busytest IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(3); COMMIT;" >/dev/null &
	LOCK_PID=$!
	sleep 0.5
	node "$GW_TEST_DIR/signed_get.mjs" "$BUSY_PORT" "/devstoreaccount1/busytest()" >"$GW_LOG.first" &
	FIRST_PID=$!
	sleep 0.3
	t0=$(date +%s%N)
	second=$(node "$GW_TEST_DIR/signed_get.mjs" "$BUSY_PORT" "/devstoreaccount1/busytest()")
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	wait "$FIRST_PID" "$LOCK_PID" || true
	first=$(cat "$GW_LOG.first"); rm -f "$GW_LOG.first"
	kill "$BUSY_PID" 2>/dev/null; wait "$BUSY_PID" 2>/dev/null || true
	if [ "$second" = "503 ServerBusy" ] && [ "${first%% *}" = 200 ] && [ "$ms" -lt "$most_ms" ]; then
		echo "ok   $what ($ms ms); the holder is served"
		passed=$((passed + 1))
	else
		echo "FAIL $what: holder '$first', the other '$second' after $ms ms"
		failed=$((failed + 1))
	fi
}
busy_check "full pool: a queued request gets 503 ServerBusy after its 500 ms wait" 4 2500
busy_check "full pool, no queue: the next request gets 503 ServerBusy at once" 0 1500

# the database goes away and comes back: 503 ServerBusy meanwhile, then served again (reconnect)
ts_log "restarting PostgreSQL under the gateway"
ts_as_server_user "$TS_PGBIN/pg_ctl" -D "$TS_CLUSTER_DIR/data" -m fast -w stop >/dev/null
down=$(node "$GW_TEST_DIR/signed_get.mjs" "$GW_PORT" /devstoreaccount1/Tables)
ts_as_server_user "$TS_PGBIN/pg_ctl" -D "$TS_CLUSTER_DIR/data" -l "$TS_CLUSTER_DIR/server.log" -w -t 60 \
	-o "-p $TS_CLUSTER_PORT -k $TS_CLUSTER_DIR -c listen_addresses=127.0.0.1" start >/dev/null
up=
for _ in $(seq 1 20); do
	up=$(node "$GW_TEST_DIR/signed_get.mjs" "$GW_PORT" /devstoreaccount1/Tables)
	[ "${up%% *}" = 200 ] && break
	sleep 0.5
done
if [ "$down" = "503 ServerBusy" ] && [ "${up%% *}" = 200 ]; then
	echo "ok   database restart: 503 ServerBusy while down, served again after it came back"
	passed=$((passed + 1))
else
	echo "FAIL database restart: while down '$down', after '$up'"
	failed=$((failed + 1))
fi

if ! kill -0 "$GW_PID" 2>/dev/null; then
	echo "the gateway died; its log:" >&2
	tail -20 "$GW_LOG" >&2
	failed=$((failed + 1))
fi
echo "gateway: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
