# test/scenario/lib.sh - helpers for scenario tests (sourced). They run against the cluster in
# PGHOST/PGPORT that scripts/test.sh started, each in databases of its own.
set -eu -o pipefail

# fresh_db NAME: drop and create a database with the extension. TS_FRESH_DB_HOOK, when set, is
# run with the name after that (test/t/004_scale_out.pl runs the scenarios on a coordinator: its
# hook makes the nodes' databases and the servers that reach them).
fresh_db() {
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $1" -c "CREATE DATABASE $1" >/dev/null
	psql -X -q -d "$1" -c "CREATE EXTENSION tablestore" >/dev/null
	if [ -n "${TS_FRESH_DB_HOOK:-}" ]; then "$TS_FRESH_DB_HOOK" "$1"; fi
}

# q DB SQL [psql options...]: the result, unaligned. The SQL is read from stdin, so psql
# variables given as options (-v name=value) can be used as :'name'.
q() {
	local db=$1 sql=$2
	shift 2
	printf '%s\n' "$sql" | psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" "$@"
}

# run_sql DB [psql options...] < script: run quietly, stop on the first error.
run_sql() {
	psql -X -q -v ON_ERROR_STOP=1 -d "$1" "${@:2}" >/dev/null
}

# check DESCRIPTION ACTUAL EXPECTED: fail the scenario unless equal.
check() {
	if [ "$2" == "$3" ]; then
		echo "ok - $1"
	else
		echo "not ok - $1: got '$2', expected '$3'"
		exit 1
	fi
}

# concurrently DB N SQL: run SQL in N concurrent sessions, {s} standing for the session number
# (1..N); prints the sessions' errors and returns how many sessions failed. PGOPTIONS passes on.
concurrently() {
	local db=$1 n=$2 sql=$3 s p failed=0 errs pids=()
	errs=$(mktemp)
	for s in $(seq 1 "$n"); do
		psql -X -q -v ON_ERROR_STOP=1 -d "$db" -c "${sql//\{s\}/$s}" >/dev/null 2>>"$errs" &
		pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p" || failed=$((failed + 1)); done
	cat "$errs"
	rm -f "$errs"
	return $failed
}
