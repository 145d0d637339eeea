#!/usr/bin/env bash
# test/fuzz/run.sh - build and run the libFuzzer targets (clang, ASan, UBSan) on the extension's
# own parsing code, compiled for the frontend (-DTS_FRONTEND) against libpgcommon/libpgport.
#
#   bash test/fuzz/run.sh --list             the targets
#   bash test/fuzz/run.sh TARGET [SECONDS]   build (if needed) and fuzz TARGET for SECONDS (default
#                                            600); exits non-zero on a finding, which is saved in
#                                            test/fuzz/artifacts/
#   bash test/fuzz/run.sh --all [SECONDS]    every target in turn
#
# Each target starts from its seed corpus (test/fuzz/corpus/TARGET, in the repository) and keeps
# what it discovers in test/fuzz/build/corpus-TARGET (not in the repository).
set -eu -o pipefail
FUZZ_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$FUZZ_DIR/../../scripts/lib.sh"

TARGETS=(entity_json entity_binary etag_text odata route_key index json gw_url gw_query gw_multipart gw_auth gw_sas gw_oauth gw_acl gw_props gw_continuation gw_framing copy_connstr copy_jsonl)
# every extension target links the whole backend-free core (src/core: the parsers and codecs)
BUILD="$FUZZ_DIR/build"
CLANG=clang-14

# the gateway's parsers (src/gateway), built as the gateway is: with the core's codecs
# (src/core, for the frontend) and PostgreSQL's frontend libraries
# a source file by name, in whichever layer folder under src/$1 holds it; -I for every folder of
# src/$1 (src/layers.conf: a program's layers are folders)
src_of() { find "$TS_ROOT/src/$1" -name "$2.c" | head -1; }
incs_of() { local d; for d in $(find "$TS_ROOT/src/$1" -type d | sort); do printf -- '-I%s ' "$d"; done; }
CORE_SRCS() { find "$TS_ROOT/src/core" -name '*.c' | sort; }

GW_PARSERS=(util url auth sas oauth xml acl_xml props continuation multipart ops version framing)
GW_CORE=(edm json_lex sign ts_error)
build_gw() {
	local target=$1 bin="$BUILD/fuzz_$1" srcs=() s inc lib version
	ts_install_packages clang-14 libclang-rt-14-dev libssl-dev libpq-dev postgresql-server-dev-15
	for s in "${GW_PARSERS[@]}"; do srcs+=("$(src_of gateway "$s")"); done
	for s in "${GW_CORE[@]}"; do srcs+=("$(src_of core "$s")"); done
	srcs+=("$FUZZ_DIR/fuzz_$target.c")
	if [ -x "$bin" ] && [ -z "$(find "${srcs[@]}" "$TS_ROOT/src/gateway" "$TS_ROOT/src/core" -newer "$bin" -name '*.[ch]' 2>/dev/null)" ]; then
		return 0
	fi
	mkdir -p "$BUILD"
	inc=$("$TS_PG_CONFIG" --includedir-server)
	lib=$("$TS_PG_CONFIG" --pkglibdir)
	version=$(sed -n "s/^default_version = '\(.*\)'/\1/p" "$TS_ROOT"/*.control)
	ts_log "building fuzz_$target"
	"$CLANG" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -Wno-ignored-attributes \
		-D_GNU_SOURCE -DTS_FRONTEND -DTS_VERSION="\"$version\"" $(incs_of gateway) $(incs_of core) \
		-I"$("$TS_PG_CONFIG" --includedir)" -I"$inc" -o "$bin" "${srcs[@]}" "$lib/libpgcommon.a" "$lib/libpgport.a" -lcrypto -lm
}

# tablestore-copy's parsers (src/copy), with the whole core and the arena allocator of the
# extension's targets (fuzz_support.c), zlib and libxxhash
COPY_PARSERS=(mem connstr jsonl record manifest filter)
build_copy() {
	local target=$1 bin="$BUILD/fuzz_$1" srcs=() s inc lib
	ts_install_packages clang-14 libclang-rt-14-dev postgresql-server-dev-15 zlib1g-dev libxxhash-dev
	mapfile -t srcs < <(CORE_SRCS)
	for s in "${COPY_PARSERS[@]}"; do srcs+=("$(src_of copy "$s")"); done
	srcs+=("$FUZZ_DIR/fuzz_$target.c" "$FUZZ_DIR/fuzz_support.c")
	if [ -x "$bin" ] && [ -z "$(find "${srcs[@]}" "$TS_ROOT/src/copy" "$TS_ROOT/src/core" -newer "$bin" -name '*.[ch]' 2>/dev/null)" ]; then
		return 0
	fi
	mkdir -p "$BUILD"
	inc=$("$TS_PG_CONFIG" --includedir-server)
	lib=$("$TS_PG_CONFIG" --pkglibdir)
	ts_log "building fuzz_$target"
	"$CLANG" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -Wno-ignored-attributes \
		-D_GNU_SOURCE -DTS_FRONTEND -DTS_VERSION='"fuzz"' $(incs_of copy) $(incs_of core) -I"$FUZZ_DIR" \
		-I"$("$TS_PG_CONFIG" --includedir)" -I"$inc" -o "$bin" "${srcs[@]}" \
		"$lib/libpgcommon.a" "$lib/libpgport.a" -lz -lxxhash -lm
}

build() {
	local target=$1 bin="$BUILD/fuzz_$1" srcs=() s inc lib
	if [[ $target == gw_* ]]; then build_gw "$target"; return; fi
	if [[ $target == copy_* ]]; then build_copy "$target"; return; fi
	ts_install_packages clang-14 libclang-rt-14-dev postgresql-server-dev-15
	mapfile -t srcs < <(CORE_SRCS)
	srcs+=("$FUZZ_DIR/fuzz_$target.c" "$FUZZ_DIR/fuzz_support.c")
	# rebuild when any source is newer than the binary
	if [ -x "$bin" ] && [ -z "$(find "${srcs[@]}" "$TS_ROOT/src/core" "$FUZZ_DIR/fuzz.h" -newer "$bin" -name '*.[ch]' 2>/dev/null)" ]; then
		return 0
	fi
	mkdir -p "$BUILD"
	inc=$("$TS_PG_CONFIG" --includedir-server)
	lib=$("$TS_PG_CONFIG" --pkglibdir)
	ts_log "building fuzz_$target"
	"$CLANG" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -Wno-ignored-attributes \
		-DTS_FRONTEND $(incs_of core) -I"$FUZZ_DIR" -I"$inc" -o "$bin" "${srcs[@]}" \
		"$lib/libpgcommon.a" "$lib/libpgport.a" -lm
}

fuzz() {
	local target=$1 secs=$2 corpus="$BUILD/corpus-$1"
	build "$target"
	mkdir -p "$corpus" "$FUZZ_DIR/artifacts"
	ts_log "fuzzing $target for ${secs}s"
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		"$BUILD/fuzz_$target" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
		-print_final_stats=1 -artifact_prefix="$FUZZ_DIR/artifacts/$target-" \
		"$corpus" "$FUZZ_DIR/corpus/$target" 2>&1 | tail -25
}

case "${1:-}" in
	--list) printf '%s\n' "${TARGETS[@]}" ;;
	--all)
		for t in "${TARGETS[@]}"; do fuzz "$t" "${2:-600}"; done ;;
	entity_json | entity_binary | etag_text | odata | route_key | index | json | gw_url | gw_query | gw_multipart | gw_auth | gw_sas | gw_oauth | gw_acl | gw_props | gw_continuation | gw_framing | copy_connstr | copy_jsonl) fuzz "$1" "${2:-600}" ;;
	*) sed -n '2,13p' "$0"; exit 2 ;;
esac
