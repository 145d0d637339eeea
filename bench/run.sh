#!/usr/bin/env bash
# bench/run.sh - the benchmark suite. Prepares everything itself (packages, build, a throwaway
# cluster) unless --no-setup is given (then it uses the cluster in PGHOST/PGPORT).
#
#   bash bench/run.sh [--quick] [--no-setup] [workload ...]
#
#   codec     entity text in/out, typed accessor and stored size against jsonb      (bench/codec.sql)
#   single    insert_entity / get_entity / merge_entity against raw INSERT / SELECT / UPDATE on a
#             (pk, rk, doc jsonb) table, pgbench at 1, 4 and 8 clients               (bench/single/)
#   query     filtered scan of 1M entities, range queries, paging and filter translation against
#             hand-written jsonb SQL on the same data                                (bench/query.sql)
#   batch     100-entity execute_batch (document as text and as jsonb) and 100 insert_entity calls
#             against one raw 100-row INSERT, pgbench at 1, 4 and 8 clients          (bench/batch/)
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
ALL_WORKLOADS=(codec single query batch)
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

# pgbench_tps DB SCRIPT CLIENTS SECONDS [pgbench options...]: transactions per second, or fail.
pgbench_tps() {
	local db=$1 script=$2 c=$3 secs=$4 out tps
	shift 4
	out=$(pgbench -n -M prepared -c "$c" -j "$c" -T "$secs" "$@" -f "$script" "$db" 2>&1)
	tps=$(printf '%s\n' "$out" | sed -nE 's/^tps = ([0-9.]+).*/\1/p' | head -1)
	if [ -z "$tps" ] || printf '%s\n' "$out" | grep -q 'aborted'; then
		printf '%s\n' "$out" | tail -5 >&2
		ts_die "pgbench failed for $script"
	fi
	echo "$tps"
}

# median_table TSV: "workload clients side value" lines -> "workload clients raw ts ratio" (medians)
median_ratios() {
	perl -e '
		my %v;
		while (<>) { chomp; my ($w, $c, $s, $x) = split /\t/; push @{$v{"$w\t$c"}{$s}}, $x; }
		sub med { my @a = sort { $a <=> $b } @_; my $n = @a; $n % 2 ? $a[$n/2] : ($a[$n/2-1] + $a[$n/2]) / 2 }
		for my $k (sort { my ($aw,$ac)=split /\t/,$a; my ($bw,$bc)=split /\t/,$b; $aw cmp $bw or $ac <=> $bc } keys %v) {
			my $r = med(@{$v{$k}{raw}}); my $t = med(@{$v{$k}{ts}});
			printf "%s\t%.0f\t%.0f\t%.2f\n", $k, $r, $t, $r ? $t / $r : 0;
		}' "$1"
}

workload_single() {
	local n=100000 rounds=3 secs=5 db c r w side first second tps
	[ $QUICK -eq 1 ] && n=1000 rounds=1 secs=1
	db=$(bench_db single)
	ts_log "single: $n preloaded entities, pgbench -M prepared, $rounds rounds of ${secs}s per point"
	psql -X -q -v ON_ERROR_STOP=1 -d "$db" -v n=$n -f "$BENCH_DIR/single/setup.sql"
	: >"$OUT/single.tsv"
	for c in 1 4 8; do
		for r in $(seq "$rounds"); do
			for w in insert get merge; do
				# alternate which side runs first, so neither always gets the warmer cache
				if [ $((r % 2)) -eq 1 ]; then first=raw second=ts; else first=ts second=raw; fi
				for side in $first $second; do
					tps=$(pgbench_tps "$db" "$BENCH_DIR/single/${side}_$w.sql" "$c" "$secs" -D n=$n)
					printf '%s\t%s\t%s\t%s\n' "$w" "$c" "$side" "$tps" >>"$OUT/single.tsv"
					printf '  %-6s %-3s clients=%s round %s: %8.0f tps\n' "$w" "$side" "$c" "$r" "$tps"
				done
			done
		done
	done
	{
		echo "## Single-entity operations against raw PostgreSQL (issue 3)"
		echo
		echo "$(machine_line) pgbench -M prepared on the same cluster; $rounds interleaved rounds of ${secs} s per point, medians."
		echo "Raw baseline: plain INSERT / SELECT / UPDATE (\`doc || ...\`) on \`(pk text, rk text, doc jsonb, primary key (pk, rk))\`;"
		echo "both sides parse the same ten-property document text. Target: tablestore at least 0.85x raw throughput."
		echo
		echo "| operation | clients | raw tps | tablestore tps | ratio | verdict |"
		echo "|---|---|---|---|---|---|"
		median_ratios "$OUT/single.tsv" | while IFS=$'\t' read -r w c raw ts ratio; do
			case $w in insert) op="insert_entity vs INSERT" ;; get) op="get_entity vs SELECT" ;; merge) op="merge_entity vs UPDATE" ;; esac
			printf '| %s | %s | %s | %s | %s | %s |\n' "$op" "$c" "$raw" "$ts" "$ratio" \
				"$(perl -e 'print $ARGV[0] >= 0.85 ? "met" : "MISSED"' "$ratio")"
		done
	} >"$OUT/single.md"
	cat "$OUT/single.md"
	psql -X -q -c "DROP DATABASE $db"
}

workload_query() {
	local n=1000000 trials=5 loops=400 db
	[ $QUICK -eq 1 ] && n=120000 trials=1 loops=40
	db=$(bench_db query)
	ts_log "query: $n entities in 1000 partitions, $trials trials"
	psql -X -v ON_ERROR_STOP=1 -d "$db" -v n=$n -v trials=$trials -v loops=$loops -f "$BENCH_DIR/query.sql" | tee "$OUT/query.txt"
	{
		echo "## Queries against hand-written jsonb SQL (issue 4)"
		echo
		echo "$(machine_line) $n entities (ten properties, 1000 partitions) in a tablestore table and in a"
		echo "\`(pk, rk, doc jsonb)\` table; default parallel settings for both; $trials alternating trials, medians."
		echo "Ratio = raw time / tablestore time (above 1 means tablestore is faster)."
		echo
		echo "| measure | tablestore ms | raw ms | ratio | target | verdict |"
		echo "|---|---|---|---|---|---|"
		grep '^|' "$OUT/query.txt"
		echo
		grep '^raw medians' "$OUT/query.txt" | sed 's/^/    /'
	} >"$OUT/query.md"
	psql -X -q -c "DROP DATABASE $db"
}

workload_batch() {
	local n=100000 rounds=3 secs=5 db c r side tps sides
	[ $QUICK -eq 1 ] && n=1000 rounds=1 secs=1
	db=$(bench_db batch)
	ts_log "batch: 100 entities per transaction, pgbench -M prepared, $rounds rounds of ${secs}s per point"
	psql -X -q -v ON_ERROR_STOP=1 -d "$db" -v n=$n -f "$BENCH_DIR/batch/setup.sql"
	bash "$BENCH_DIR/batch/gen.sh" "$OUT"
	: >"$OUT/batch.tsv"
	for c in 1 4 8; do
		for r in $(seq "$rounds"); do
			# rotate the order of the sides, so that none always runs on the freshest table
			sides="raw_multi ts_batch ts_batchjsonb ts_single"
			for _ in $(seq $((r - 1))); do sides="${sides#* } ${sides%% *}"; done
			for side in $sides; do
				tps=$(pgbench_tps "$db" "$OUT/$side.sql" "$c" "$secs")
				printf '%s\t%s\t%s\n' "$side" "$c" "$(perl -e 'printf "%.0f", $ARGV[0] * 100' "$tps")" >>"$OUT/batch.tsv"
				printf '  %-14s clients=%s round %s: %8.0f entities/s\n' "$side" "$c" "$r" "$(perl -e 'print $ARGV[0] * 100' "$tps")"
			done
		done
	done
	{
		echo "## Batches against a raw multi-row INSERT (issue 5)"
		echo
		echo "$(machine_line) pgbench -M prepared on the same cluster; each transaction writes 100 new entities of one"
		echo "partition; $rounds rotating rounds of ${secs} s per point, medians. Raw baseline: one"
		echo "\`INSERT INTO raw (pk, rk, doc) SELECT ... doc_text(b)::jsonb FROM generate_series(0, 99)\` into"
		echo "\`(pk text, rk text, doc jsonb, primary key (pk, rk))\`. The batch document is built on the server from the"
		echo "same ten-property text (\`batch_text\`, bench/batch/setup.sql) and passed as text, or cast to jsonb first."
		echo "Target: execute_batch at least 0.8x the raw INSERT's entities per second."
		echo
		echo "| workload | clients | entities/s | ratio to raw INSERT | verdict |"
		echo "|---|---|---|---|---|"
		perl -e '
			my (%v, %c);
			while (<>) { chomp; my ($s, $c, $x) = split /\t/; push @{$v{$s}{$c}}, $x; $c{$c} = 1; }
			sub med { my @a = sort { $a <=> $b } @_; my $n = @a; $n % 2 ? $a[$n/2] : ($a[$n/2-1] + $a[$n/2]) / 2 }
			my %label = (raw_multi => "raw 100-row INSERT", ts_batch => "execute_batch, document as text",
				ts_batchjsonb => "execute_batch, document as jsonb", ts_single => "100 insert_entity calls");
			for my $c (sort { $a <=> $b } keys %c) {
				my $raw = med(@{$v{raw_multi}{$c}});
				for my $s (qw(raw_multi ts_batch ts_batchjsonb ts_single)) {
					my $m = med(@{$v{$s}{$c}}); my $r = $raw ? $m / $raw : 0;
					my $verdict = $s =~ /^ts_batch/ ? ($r >= 0.8 ? "met" : "MISSED") : "";
					printf "| %s | %d | %.0f | %.2f | %s |\n", $label{$s}, $c, $m, $r, $verdict;
				}
			}' "$OUT/batch.tsv"
	} >"$OUT/batch.md"
	cat "$OUT/batch.md"
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
