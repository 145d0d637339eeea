#!/usr/bin/env bash
# test/soak/batch_deadlocks.sh - the batch-deadlock soak (doc/reliability.md): the scenario
# test/scenario/batch_deadlocks.sh (random batches of upserts and merges mixed with single upserts,
# merges and deletes over one hot partition) run for minutes instead of 15 s, half the time with
# tablestore.fast_path on, half with it off. Any deadlock fails it, with PostgreSQL's report of
# which processes waited for which locks and the operations they ran. Issue 31 met one deadlock in
# 77 261 and one in 121 119 transactions of the 15-s run on the SQL path; five minutes are about
# 1 M transactions on each path on an idle machine. Not part of scripts/test.sh.
#
#   bash test/soak/batch_deadlocks.sh [--minutes N] [--sessions N] [--keys N] [--delays] [--no-setup]
#
# (5 minutes, 6 sessions, 10 keys.) --delays adds the scenario's test-only sleeping indexes, which
# make the race of issue 31 about 60 times as frequent. --no-setup uses the cluster in
# PGHOST/PGPORT; otherwise it builds and installs the extension and starts a cluster of its own.
set -eu -o pipefail
SOAK_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$SOAK_DIR/../../scripts/lib.sh"

MINUTES=5
SESSIONS=6
KEYS=10
DELAYS=0
SETUP=1
while [ $# -gt 0 ]; do
	case "$1" in
		--minutes) MINUTES=$2; shift ;;
		--sessions) SESSIONS=$2; shift ;;
		--keys) KEYS=$2; shift ;;
		--delays) DELAYS=1 ;;
		--no-setup) SETUP=0 ;;
		*) sed -n '2,14p' "$0"; exit 2 ;;
	esac
	shift
done

if [ $SETUP -eq 1 ]; then
	ts_setup
	ts_cluster_start synchronous_commit=off max_connections=$((SESSIONS + 20))
fi
SECS=$((MINUTES * 60 / 2))
ts_log "batch-deadlock soak: $SESSIONS sessions, $KEYS keys, ${SECS}s with fast_path on, then ${SECS}s off"
# bounded in count too: far above what a session commits in that time
SESSIONS=$SESSIONS TS_STRESS_SECONDS=$SECS TS_STRESS_MAX_TX=$((SECS * 10000)) TS_STRESS_KEYS=$KEYS \
	TS_STRESS_DELAYS=$DELAYS bash "$SOAK_DIR/../scenario/batch_deadlocks.sh"
