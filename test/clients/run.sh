#!/usr/bin/env bash
# test/clients/run.sh - real third-party clients against tablestore-gateway: the Go client of
# Debian's golang-github-azure-azure-sdk-for-go-dev (built offline in GOPATH mode), the legacy Node
# library azure-storage 2.10.7 (pinned in test/sdk's package.json), and Debian's Python clients
# azure-cosmosdb-table and azure-data-tables. Installs what is missing, starts a throwaway cluster
# with the extension and a gateway on a free loopback port, runs each client's program (one line
# per check), then each client's point read of a distributed table whose node was just killed
# (a second cluster as the node: 503, never 500), routed by the gateway and through the
# coordinator, and ends with "clients: N passed, N failed"; non-zero on a failure. Everything it
# starts is stopped on exit.
#
#   bash test/clients/run.sh [--only go,azure-storage,cosmosdb-table,data-tables]
#   GW_SKIP_BUILD=1                      use the binaries already built and installed
#   CLIENTS_GATEWAY=PATH                 run another gateway binary (e.g. an older build, to see
#                                        which checks fail without a fix)
#   CLIENTS_STATUS_FILE=FILE             also write "<client> <exit status>" per client (scripts/test.sh)
set -eu -o pipefail
CL_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$CL_DIR/../../scripts/lib.sh"

ONLY=go,azure-storage,cosmosdb-table,data-tables
while [ $# -gt 0 ]; do
	case $1 in
	--only) ONLY=$2; shift 2 ;;
	*) ts_die "usage: run.sh [--only CLIENTS]" ;;
	esac
done
want() { [[ ",$ONLY," == *",$1,"* ]]; }

GW_PID=
NODE_DIR=
WORK=
cleanup() {
	if [ -n "$GW_PID" ] && kill -0 "$GW_PID" 2>/dev/null; then
		kill "$GW_PID" 2>/dev/null || true
		wait "$GW_PID" 2>/dev/null || true
	fi
	if [ -n "$NODE_DIR" ] && [ -d "$NODE_DIR" ]; then
		ts_as_server_user "$TS_PGBIN/pg_ctl" -D "$NODE_DIR/data" -m immediate stop >/dev/null 2>&1 || true
		rm -rf "$NODE_DIR"
	fi
	[ -n "$WORK" ] && rm -rf "$WORK"
	ts_cluster_stop
}

export GW_PATH_DIR=${GW_PATH_DIR-}
[ -n "${GW_SKIP_BUILD:-}" ] || ts_setup
packages=()
want go && packages+=(golang-go golang-github-azure-azure-sdk-for-go-dev)
{ want cosmosdb-table || want data-tables; } && packages+=(python3 python3-requests python3-azure python3-azure-cosmosdb-table)
[ ${#packages[@]} -eq 0 ] || ts_install_packages "${packages[@]}"
ts_node_setup	# azure-storage, and the signed read before each node crash
ts_cluster_start
trap cleanup EXIT
WORK=$(mktemp -d /tmp/tablestore-clients.XXXXXX)
psql -q -v ON_ERROR_STOP=1 -c 'CREATE EXTENSION tablestore' >/dev/null

# the Go program, built offline from Debian's GOPATH tree (no module proxy, no network)
if want go; then
	ts_log "building the Go client program (GOPATH mode, /usr/share/gocode)"
	(cd "$CL_DIR/go" && GO111MODULE=off GOPATH=/usr/share/gocode GOPROXY=off GOFLAGS= \
		timeout 300 go build -o "$WORK/tsclient-go" .) >"$WORK/go-build.log" 2>&1 ||
		{ cat "$WORK/go-build.log" >&2; ts_die "go build failed"; }
fi

start_gateway() {
	GW_PORT=$(ts_free_port)
	ts_log "starting the gateway on 127.0.0.1:$GW_PORT"
	AZURITE_ACCOUNTS="devstoreaccount1:$DEV_KEY;clientsgo:$GO_KEY1:$GO_KEY2" "${CLIENTS_GATEWAY:-$TS_ROOT/src/gateway/tablestore-gateway}" \
		--port "$GW_PORT" --dsn "host=$PGHOST port=$PGPORT user=postgres dbname=postgres" "$@" >>"$WORK/gateway.log" 2>&1 &
	GW_PID=$!
	for _ in $(seq 1 100); do
		(exec 3<>"/dev/tcp/127.0.0.1/$GW_PORT") 2>/dev/null && return 0
		kill -0 "$GW_PID" 2>/dev/null || break
		sleep 0.1
	done
	tail -20 "$WORK/gateway.log" >&2
	ts_die "the gateway did not start"
}
DEV_KEY='Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=='
# a second account for the Go client's host-style addressing (<account>.table.core.windows.net),
# in the database postgres_clientsgo that the gateway creates, with both keys
GO_KEY1=$(head -c 64 /dev/urandom | base64 -w0)
GO_KEY2=$(head -c 64 /dev/urandom | base64 -w0)
start_gateway

passed=0
failed=0
# run_client NAME TIMEOUT CMD...: one client program; its "N passed, N failed" counted
run_client() {
	local name=$1 limit=$2 status=0 p f
	shift 2
	ts_log "$name"
	timeout "$limit" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" || status=$?
	grep -v '^ok ' "$WORK/$name.out" | grep -v 'passed, [0-9]* failed$' || true
	p=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$WORK/$name.out")
	f=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$WORK/$name.out")
	if [ -z "$p" ]; then
		echo "FAIL $name did not run to the end (exit $status):"
		tail -5 "$WORK/$name.err"
		p=0 f=1
		[ $status -ne 0 ] || status=1
	fi
	echo "client $name: $p passed, $f failed"
	passed=$((passed + p))
	failed=$((failed + f))
	[ -z "${CLIENTS_STATUS_FILE:-}" ] || echo "$name $status" >>"$CLIENTS_STATUS_FILE"
}

GO_ACCOUNT="clientsgo:$GO_KEY1:$GO_KEY2"
want go && run_client go 120 "$WORK/tsclient-go" -port "$GW_PORT" -account "$GO_ACCOUNT"
want azure-storage && run_client azure-storage 120 node "$CL_DIR/azure-storage/azure_storage_test.mjs" --port "$GW_PORT"
want cosmosdb-table && run_client cosmosdb-table 120 /usr/bin/python3 "$CL_DIR/python/cosmosdb_table_test.py" --port "$GW_PORT"
want data-tables && run_client data-tables 120 /usr/bin/python3 "$CL_DIR/python/data_tables_test.py" --port "$GW_PORT"

# issue 27.11: a distributed table whose one node is killed; a point read must be 503
# ServerBusy, never 500 - routed by the gateway straight to the node (--node), and through the
# coordinator (postgres_fdw)
# crash_round NAME CLIENTS [GATEWAY ARGS...]
crash_round() {
	local what=$1 clients=$2
	shift 2
	if ! ts_as_server_user "$TS_PGBIN/pg_ctl" -D "$NODE_DIR/data" -l "$NODE_DIR/server.log" -w -t 60 \
		-o "-p $NODE_PORT -k $NODE_DIR -c listen_addresses=127.0.0.1" start >/dev/null; then
		echo "FAIL $what: the node did not start; its log:"
		tail -20 "$NODE_DIR/server.log"
		failed=$((failed + 1))
		return 0
	fi
	if [ "$(psql -X -A -t -c "SELECT count(*) FROM pg_foreign_server WHERE srvname = 'crashnode'")" = 0 ]; then
		psql -q -h "$NODE_DIR" -p "$NODE_PORT" -v ON_ERROR_STOP=1 -c 'CREATE EXTENSION tablestore' >/dev/null
		psql -q -v ON_ERROR_STOP=1 >/dev/null <<-SQL
			CREATE EXTENSION postgres_fdw;
			CREATE SERVER crashnode FOREIGN DATA WRAPPER postgres_fdw
				OPTIONS (host '$NODE_DIR', port '$NODE_PORT', dbname 'postgres', extensions 'tablestore');
			CREATE USER MAPPING FOR PUBLIC SERVER crashnode OPTIONS (user 'postgres', password_required 'false');
			SELECT tablestore.create_table('crashtbl');
			SELECT tablestore.distribute_table('crashtbl', ARRAY['crashnode'], 4);
			SELECT tablestore.insert_entity('crashtbl', '{"PartitionKey":"p","RowKey":"r","V":1}');
		SQL
	fi
	kill "$GW_PID" && wait "$GW_PID" 2>/dev/null || true
	start_gateway "$@"
	# one read while the node is up, so that the connections to it are open, then SIGKILL
	local warm
	warm=$(node "$TS_ROOT/test/gateway/signed_get.mjs" "$GW_PORT" "/devstoreaccount1/crashtbl(PartitionKey='p',RowKey='r')")
	if [ "${warm%% *}" != 200 ]; then
		# without it the reads below would show nothing of a crash
		echo "FAIL $what: the read before the crash answered $warm"
		failed=$((failed + 1))
	fi
	# the node's machine gone: the postmaster and every process of it at once (a backend left
	# behind would hold the data directory, and the next round could not start the node)
	# (pg_ctl starts the postmaster in a process group of its own: the group, then any child
	# listed before that did not follow)
	local pm kids p alive
	pm=$(head -1 "$NODE_DIR/data/postmaster.pid")
	kids=$(pgrep -P "$pm" || true)
	kill -KILL -- "-$pm" 2>/dev/null || true
	kill -KILL "$pm" $kids 2>/dev/null || true
	for _ in $(seq 1 100); do
		alive=
		for p in $pm $kids; do kill -0 "$p" 2>/dev/null && alive=1; done
		[ -n "$alive" ] || break
		sleep 0.05
	done
	if [ -n "$alive" ]; then
		echo "FAIL $what: the node's processes outlived SIGKILL for 5 s"
		failed=$((failed + 1))
	fi
	sleep 0.5
	local c
	for c in ${clients//,/ }; do
		want "$c" || continue
		case $c in
		go) run_client "go-crash-$what" 60 "$WORK/tsclient-go" -port "$GW_PORT" -account "$GO_ACCOUNT" -crash-read crashtbl,p,r ;;
		azure-storage) run_client "azure-storage-crash-$what" 60 node "$CL_DIR/azure-storage/azure_storage_test.mjs" --port "$GW_PORT" --crash-read crashtbl,p,r ;;
		cosmosdb-table) run_client "cosmosdb-table-crash-$what" 60 /usr/bin/python3 "$CL_DIR/python/cosmosdb_table_test.py" --port "$GW_PORT" --crash-read crashtbl,p,r ;;
		data-tables) run_client "data-tables-crash-$what" 60 /usr/bin/python3 "$CL_DIR/python/data_tables_test.py" --port "$GW_PORT" --crash-read crashtbl,p,r ;;
		esac
	done
	rm -f "$NODE_DIR/data/postmaster.pid"	# the killed postmaster's
}
NODE_DIR=$(mktemp -d /tmp/tablestore-clients-node.XXXXXX)
chmod 755 "$NODE_DIR"
chown "$(ts_server_user)" "$NODE_DIR"
NODE_PORT=$(ts_free_port)
ts_as_server_user "$TS_PGBIN/initdb" -D "$NODE_DIR/data" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >/dev/null
routed=(--node "crashnode=host=$NODE_DIR port=$NODE_PORT dbname=postgres user=postgres")
# the node's postmaster killed (it stays down): every client reads
crash_round routed go,azure-storage,cosmosdb-table,data-tables "${routed[@]}"
crash_round coordinator go,azure-storage,cosmosdb-table,data-tables

if ! kill -0 "$GW_PID" 2>/dev/null; then
	echo "the gateway died; its log:" >&2
	tail -20 "$WORK/gateway.log" >&2
	failed=$((failed + 1))
fi
echo "clients: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
