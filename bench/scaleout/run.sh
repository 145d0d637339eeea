#!/usr/bin/env bash
# bench/scaleout/run.sh - CPU per operation of a distributed table on each process: one node,
# through the coordinator, and routed straight to the owning node (bench/scaleout/cpu.pl).
# Needs the extension installed (make install or bash bench/run.sh once); starts its own
# clusters (1 coordinator + 3 nodes) as the server user and stops them. Prints the table and,
# unless SCALEOUT_OUT is set elsewhere, leaves it in /tmp/tablestore-scaleout.md.
#
#   bash bench/scaleout/run.sh      SCALEOUT_OPS=20000 transactions per workload and way (a fifth
#                                   for batches), SCALEOUT_ROUNDS=3, SCALEOUT_GW_SECONDS=5
set -eu -o pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$HERE/../../scripts/lib.sh"
PG_CONFIG=${PG_CONFIG:-pg_config}
BINDIR=$("$PG_CONFIG" --bindir)
PGXSDIR=$(dirname "$("$PG_CONFIG" --pgxs)")/../..
PERLDIR=$PGXSDIR/src/test/perl
WORK=$(mktemp -d /tmp/tablestore-scaleout.XXXXXX)
cp "$HERE/cpu.pl" "$WORK/"
# the gateway's point-read client (bench/gateway/point_read.c), when a compiler and OpenSSL are there
cc -O2 -o "$WORK/point_read" "$HERE/../gateway/point_read.c" -lcrypto -lpthread 2>/dev/null || true
chown -R "$(ts_server_user)" "$WORK"
OUT=${SCALEOUT_OUT:-/tmp/tablestore-scaleout.md}
# (PostgreSQL::Test::Utils sends the script's output to its log, which is shown on failure)
if ! ts_as_server_user env TESTDIR="$WORK" PG_REGRESS="$PGXSDIR/src/test/regress/pg_regress" PATH="$BINDIR:$PATH" \
	PERL5LIB="$PERLDIR" SCALEOUT_OPS="${SCALEOUT_OPS:-20000}" SCALEOUT_ROUNDS="${SCALEOUT_ROUNDS:-3}" SCALEOUT_POINT_READ="$WORK/point_read" \
	SCALEOUT_GW_SECONDS="${SCALEOUT_GW_SECONDS:-5}" SCALEOUT_OUT="$WORK/scaleout.md" bash -c "cd '$WORK' && perl cpu.pl"; then
	tail -20 "$WORK"/tmp_check/log/regress_log_cpu
	ts_die "the scale-out benchmark failed (its clusters' logs: $WORK/tmp_check/log)"
fi
cp "$WORK/scaleout.md" "$OUT"
cat "$OUT"
rm -rf "$WORK"
