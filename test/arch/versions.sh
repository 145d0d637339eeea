#!/usr/bin/env bash
# test/arch/versions.sh - the versions come from one place. tablestore.control's default_version is
# the extension's version, and META.json (its own and the extension's), tablestore-gateway
# --version and tablestore-copy --version say the same (the Makefile gives it to both programs);
# PostgreSQL 15 only: META.json requires 15.x, and the Makefile refuses another major version (a
# stand-in pg_config that answers 16) with a message that says so.
#
#   bash test/arch/versions.sh [PG_CONFIG]     after a build (it runs the built programs)
# Prints a line per check and "versions: N passed, N failed"; non-zero on a failure.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PG_CONFIG=${1:-${TS_PG_CONFIG:-pg_config}}
passed=0
failed=0
check() {
	local what=$1
	shift
	if "$@"; then
		echo "ok   $what"
		passed=$((passed + 1))
	else
		echo "FAIL $what"
		failed=$((failed + 1))
	fi
}

control=$(sed -n "s/^default_version = '\(.*\)'/\1/p" "$ROOT/tablestore.control")
# META.json's "version", the extension's under "provides", and the PostgreSQL prerequisite
read -r meta provided pg_req < <(perl -MJSON::PP -0777 -ne '
	my $m = decode_json($_);
	print join(" ", $m->{version}, $m->{provides}{tablestore}{version},
		$m->{prereqs}{runtime}{requires}{PostgreSQL} =~ s/ //gr), "\n";' "$ROOT/META.json")
check "tablestore.control's default_version is set ($control)" test -n "$control"
check "META.json's version is tablestore.control's ($meta)" test "$meta" = "$control"
check "META.json's tablestore version is tablestore.control's ($provided)" test "$provided" = "$control"
check "META.json requires PostgreSQL 15 only ($pg_req)" test "$pg_req" = ">=15.0.0,<16.0.0"
gw=$("$ROOT/src/gateway/tablestore-gateway" --version 2>&1)
check "tablestore-gateway --version says $control ($gw)" test "$gw" = "tablestore-gateway $control (for the tablestore extension $control)"
cp=$("$ROOT/src/copy/tablestore-copy" --version 2>&1)
check "tablestore-copy --version says $control ($cp)" test "$cp" = "tablestore-copy $control"

# the Makefile and another major version: refused before anything is built
fake=$(mktemp -d /tmp/tablestore-versions.XXXXXX)
trap 'rm -rf "$fake"' EXIT
printf '#!/bin/sh\n[ "$1" = --version ] && { echo "PostgreSQL 16.4"; exit 0; }\nexec "%s" "$@"\n' \
	"$(command -v "$PG_CONFIG")" >"$fake/pg_config"
chmod +x "$fake/pg_config"
out=$(make -C "$ROOT" -n PG_CONFIG="$fake/pg_config" 2>&1)
status=$?
check "make with a PostgreSQL 16 pg_config is refused" test $status -ne 0
check "... saying PostgreSQL 15 only" grep -q "PostgreSQL 15 only, and .* is PostgreSQL 16" <<<"$out"
out=$(make -C "$ROOT" -n PG_CONFIG="$PG_CONFIG" print-EXTVERSION 2>&1)
check "make with PostgreSQL 15's pg_config goes on" grep -q "$control" <<<"$out"

echo "versions: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
