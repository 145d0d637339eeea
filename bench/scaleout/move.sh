#!/usr/bin/env bash
# bench/scaleout/move.sh - how long a shard move takes and how long calls on other shards wait
# meanwhile (bench/scaleout/move.pl). Needs the extension and the gateway installed; starts its own
# clusters (1 coordinator + 3 nodes) as the server user and stops them. Prints the table and leaves
# it in /tmp/tablestore-move.md.
#
#   bash bench/scaleout/move.sh      MOVE_ENTITIES=100000 entities in the 3-shard table
set -eu -o pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$HERE/../../scripts/lib.sh"
BINDIR=$("$TS_PG_CONFIG" --bindir)
PGXSDIR=$(dirname "$("$TS_PG_CONFIG" --pgxs)")/../..
WORK=$(mktemp -d /tmp/tablestore-move.XXXXXX)
mkdir -p "$WORK/bench/scaleout" "$WORK/test/t"
cp "$HERE/move.pl" "$WORK/bench/scaleout/"
cp -r "$HERE/../../test/t/lib" "$WORK/test/t/"
chown -R "$(ts_server_user)" "$WORK"
OUT=/tmp/tablestore-move.md
if ! ts_as_server_user env TESTDIR="$WORK" PG_REGRESS="$PGXSDIR/src/test/regress/pg_regress" PATH="$BINDIR:$PATH" \
	PERL5LIB="$PGXSDIR/src/test/perl" MOVE_ENTITIES="${MOVE_ENTITIES:-100000}" MOVE_OUT="$WORK/move.md" \
	bash -c "cd '$WORK' && perl bench/scaleout/move.pl"; then
	tail -20 "$WORK"/tmp_check/log/regress_log_move
	ts_die "the move benchmark failed (its clusters' logs: $WORK/tmp_check/log)"
fi
cp "$WORK/move.md" "$OUT"
cat "$OUT"
rm -rf "$WORK"
