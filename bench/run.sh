#!/usr/bin/env bash
# bench/run.sh - the benchmark suite. Prepares everything itself (packages, build, a throwaway
# cluster) unless --no-setup is given (then it uses the cluster in PGHOST/PGPORT).
#
#   bash bench/run.sh [--quick] [--no-setup] [workload ...]
#
#   codec     entity text in/out, typed accessor and stored size against jsonb      (bench/codec.sql)
#
# Every workload prints its table and, in a full run, rewrites its own section of bench/RESULTS.md.
# --quick uses tiny sizes so that CI proves every workload still runs; it asserts no timing and
# leaves RESULTS.md alone.
set -eu -o pipefail
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$BENCH_DIR/../scripts/lib.sh"

QUICK=0
SETUP=1
WORKLOADS=()
ALL_WORKLOADS=(codec)
for a in "$@"; do
	case "$a" in
		--quick) QUICK=1 ;;
		--no-setup) SETUP=0 ;;
		-h|--help) sed -n '2,14p' "$0"; exit 0 ;;
		-*) ts_die "unknown option $a" ;;
		*) WORKLOADS+=("$a") ;;
	esac
done
[ ${#WORKLOADS[@]} -gt 0 ] || WORKLOADS=("${ALL_WORKLOADS[@]}")

OUT=$(mktemp -d /tmp/tablestore-bench.XXXXXX)
chmod 755 "$OUT"

machine_line() {
	printf 'Run %s on %s cores, %s; PostgreSQL %s.' "$(date -u '+%Y-%m-%d %H:%M UTC')" "$(nproc)" \
		"$(. /etc/os-release && echo "$PRETTY_NAME")" "$(psql -XAtc 'SHOW server_version' | cut -d' ' -f1)"
}

# replace_section NAME FILE: put FILE between the NAME markers of RESULTS.md (append if absent).
replace_section() {
	local results="$BENCH_DIR/RESULTS.md"
	[ -f "$results" ] || printf '# Benchmark results\n\nWritten by `bash bench/run.sh`; each section by its workload.\n' >"$results"
	if grep -q "<!-- begin $1 -->" "$results"; then
		SECTION="$(cat "$2")" perl -0pi -e "s/<!-- begin $1 -->.*?<!-- end $1 -->/<!-- begin $1 -->\n\$ENV{SECTION}\n<!-- end $1 -->/s" "$results"
	else
		printf '\n<!-- begin %s -->\n%s\n<!-- end %s -->\n' "$1" "$(cat "$2")" "$1" >>"$results"
	fi
}

bench_db() {
	local db="bench_$1"
	psql -X -q -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null
	psql -X -q -d "$db" -c "CREATE EXTENSION tablestore" >/dev/null
	echo "$db"
}

workload_codec() {
	local n=300000 trials=7 db
	[ $QUICK -eq 1 ] && n=2000 trials=1
	db=$(bench_db codec)
	ts_log "codec: $n documents, $trials trials"
	psql -X -v ON_ERROR_STOP=1 -d "$db" -v n=$n -v trials=$trials -f "$BENCH_DIR/codec.sql" | tee "$OUT/codec.txt"
	{
		echo "## Entity codec against jsonb (issue 2)"
		echo
		echo "$(machine_line) $n ten-property documents (strings, Int32, Double, Boolean), $trials trials, medians."
		echo "Times are net of a baseline query of the same shape over the same table (scan and aggregate)."
		echo "Ratio = entity / jsonb (lower is better)."
		echo
		echo "| measure | entity | jsonb | ratio | target | verdict |"
		echo "|---|---|---|---|---|---|"
		grep '^|' "$OUT/codec.txt"
		echo
		grep '^raw medians' "$OUT/codec.txt" | sed 's/^/    /'
	} >"$OUT/codec.md"
	psql -X -q -c "DROP DATABASE $db"
}

if [ $SETUP -eq 1 ]; then
	ts_setup
	ts_cluster_start
else
	[ -n "${PGHOST:-}" ] || ts_die "--no-setup needs a running cluster in PGHOST/PGPORT"
fi

for w in "${WORKLOADS[@]}"; do
	declare -F "workload_$w" >/dev/null || ts_die "unknown workload $w (known: ${ALL_WORKLOADS[*]})"
	"workload_$w"
	if [ $QUICK -eq 0 ]; then
		replace_section "$w" "$OUT/$w.md"
		ts_log "$w: section written to bench/RESULTS.md"
	fi
done
rm -rf "$OUT"
ts_log "benchmarks finished: ${WORKLOADS[*]}"
