#!/usr/bin/env bash
# test/soak/moves.sh - the shard-move soak (doc/reliability.md, test/soak/moves.pl): mixed writes
# and reads through tablestore-gateway routed to 3 nodes, a shard moved every 20 s (some back and
# forth), every answer checked against the clients' logs of acknowledged writes, and at the end
# every entity, node and replication object. Needs the extension and the gateway installed (make
# install); starts its own clusters as the server user and stops them.
#
#   bash test/soak/moves.sh [--minutes N] [--every SECONDS] [--clients N]     (10, 20, 4)
#
# Prints the figures (also left in /tmp/tablestore-moves-soak.txt) and exits non-zero on a problem.
set -eu -o pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$HERE/../../scripts/lib.sh"
MINUTES=10 EVERY=20 CLIENTS=4
while [ $# -gt 0 ]; do
	case $1 in
		--minutes) MINUTES=$2; shift 2 ;;
		--every) EVERY=$2; shift 2 ;;
		--clients) CLIENTS=$2; shift 2 ;;
		*) ts_die "usage: moves.sh [--minutes N] [--every SECONDS] [--clients N]" ;;
	esac
done
BINDIR=$("$TS_PG_CONFIG" --bindir)
PGXSDIR=$(dirname "$("$TS_PG_CONFIG" --pgxs)")/../..
WORK=$(mktemp -d /tmp/tablestore-moves.XXXXXX)
mkdir -p "$WORK/soak" "$WORK/t"
cp "$HERE/moves.pl" "$WORK/soak/"
cp -r "$HERE/../t/lib" "$WORK/t/"
chown -R "$(ts_server_user)" "$WORK"
OUT=/tmp/tablestore-moves-soak.txt
# (PostgreSQL::Test::Utils sends the script's own output to its log, shown on failure)
if ! ts_as_server_user env TESTDIR="$WORK" PG_REGRESS="$PGXSDIR/src/test/regress/pg_regress" PATH="$BINDIR:$PATH" PERL5LIB="$PGXSDIR/src/test/perl" MOVES_MINUTES="$MINUTES" \
	MOVES_EVERY="$EVERY" MOVES_CLIENTS="$CLIENTS" MOVES_OUT="$WORK/result.txt" bash -c "cd '$WORK' && perl soak/moves.pl"; then
	[ -f "$WORK/result.txt" ] && cp "$WORK/result.txt" "$OUT"
	tail -30 "$WORK"/tmp_check/log/regress_log_moves 2>/dev/null || true
	ts_die "the move soak failed (figures: $OUT; the clusters' logs: $WORK/tmp_check/log)"
fi
cp "$WORK/result.txt" "$OUT"
cat "$OUT"
rm -rf "$WORK"
