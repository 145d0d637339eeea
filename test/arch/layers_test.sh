#!/usr/bin/env bash
# test/arch/layers_test.sh - the layering check fails when it should: objects built in a scratch
# tree that mirrors src/ (a support file calling into rest, a file in no layer, a cycle inside one
# layer) must each fail test/arch/layers.pl, and the same tree without them must pass.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d /tmp/tablestore-layers-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
fails=0
conf="$work/layers.conf"
echo 'extension: support type rest' >"$conf"
mkdir -p "$work/src/support" "$work/src/type" "$work/src/rest" "$work/src/stray"

obj() {	# obj PATH C-SOURCE: compile one object at src/PATH.o
	printf '%s\n' "$2" >"$work/src/$1.c"
	cc -c -o "$work/src/$1.o" "$work/src/$1.c" || exit 2
}
check() {	# check WANT(0|1) WHAT OBJECTS...
	local want=$1 what=$2 out
	shift 2
	out=$(TS_LAYERS_CONF="$conf" perl "$here/layers.pl" extension "$@" 2>&1)
	if [ $? -eq "$want" ]; then
		echo "ok   $what"
	else
		echo "FAIL $what"; echo "$out" | sed 's/^/     /'; fails=$((fails + 1))
	fi
}

obj support/report 'int report(void) { return 1; }'
obj type/entity 'int report(void); int entity(void) { return report(); }'
obj rest/call 'int entity(void); int call(void) { return entity(); }'
base=("$work/src/support/report.o" "$work/src/type/entity.o" "$work/src/rest/call.o")
check 0 "calls down only: passes" "${base[@]}"

obj support/planted 'int call(void); int planted(void) { return call(); }'
check 1 "a support file calling into rest: fails" "${base[@]}" "$work/src/support/planted.o"
out=$(TS_LAYERS_CONF="$conf" perl "$here/layers.pl" extension "${base[@]}" "$work/src/support/planted.o")
echo "$out" | grep -q 'planted.c (layer support) calls up into .*call.c (layer rest): call' &&
	echo "ok   the failure names the file, its layer, the callee and the symbol" ||
	{ echo "FAIL the failure does not name the call: $out"; fails=$((fails + 1)); }

obj stray/lost 'int lost(void) { return 0; }'
check 1 "a file in a folder that is no layer: fails" "${base[@]}" "$work/src/stray/lost.o"

obj type/ping 'int pong(void); int ping(void) { return pong(); }'
obj type/pong 'int ping(void); int pong(void) { return ping(); }'
check 1 "two files of one layer calling each other: fails" "${base[@]}" "$work/src/type/ping.o" "$work/src/type/pong.o"

echo "layers_test: $((5 - fails)) passed, $fails failed"
[ $fails -eq 0 ]
