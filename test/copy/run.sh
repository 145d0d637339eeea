#!/usr/bin/env bash
# test/copy/run.sh - tablestore-copy against real peers: a throwaway PostgreSQL cluster with the
# extension, Azurite (test/sdk's) and tablestore-gateway, all on loopback ports, stopped on exit.
# Every check compares with an independent reading (test/copy/peers.mjs: raw HTTP with Node's own
# Shared Key; psql for the databases), not only with the program's own --verify.
#
#   round trip   Azurite -> database -> files -> Azurite -> gateway -> database: every EDM type
#                and its edge values identical at each step; Double -0 on the paths without Azurite;
#                ETags identical with --keep-timestamps (database, files, gateway); every ETag
#                Azurite issued matches (If-Match) its copy; --mirror from a directory
#   filter       --filter: the same entities from a database, the gateway and a directory, for
#                58 filters over every EDM type
#   kill/resume  kill -9 in the middle of a copy of COPY_KILL_ENTITIES (default 50000) entities
#                database -> database, and of a copy into gzip files, then --resume: the destination
#                equals the source (--verify, and the dumps compared); peak RSS does not grow with
#                the table. COPY_KILLS (3) kill -9 at random points, each followed by --resume with
#                another --parallel, of copies of COPY_PEER_ENTITIES (default 5000) into Azurite,
#                from Azurite (--keep-timestamps: every ETag matches) and into the gateway, checked
#                entity by entity by peers.mjs. The long run (about 7 minutes):
#                  COPY_KILL_ENTITIES=200000 COPY_PEER_ENTITIES=200000 bash test/copy/run.sh
#   sync         writes, merges and deletes at the source (through the gateway), then --sync
#                --mirror: converged
#   throttle     the gateway with one worker and a queue of one answers 503 + Retry-After:
#                ridden through, nothing lost
#   sas          an account SAS that reads at the source, a table SAS with add/update only at the
#                destination
#   rejects      an entity the destination refuses (a trigger) and a line the core cannot read:
#                the rejects file, exit 1, the others copied
#   bad input    connection strings, options, a damaged checkpoint, a truncated gzip file
#   hostile      test/copy/hostile.mjs: huge pages, continuations for ever, entities again, JSON cut
#                short, an entity over the limits, a table named ../x, SIGTERM in a hung --verify
#   safety       no secret in any file written, 0600 files, one run per checkpoint, --resume and
#                --sync only with the checkpoint's FROM, TO and options, exit codes
# Ends with "copy: N passed, N failed"; non-zero on a failure.
#
#   bash test/copy/run.sh
#   COPY_SKIP_BUILD=1       use what is built already (scripts/test.sh builds first)
#   COPY_KILL_ENTITIES=N    the size of the database kill/resume copy (default 50000; the issue's: 200000)
#   COPY_PEER_ENTITIES=N    the size of the Azurite and gateway kill/resume copies (default 5000)
#   COPY_KILLS=N            kill -9 per copy (default 3)
#   COPY_BIN=PATH           another build of tablestore-copy (to see which checks an old one fails)
#   COPY_KEEP=1             keep the work directory
set -u -o pipefail
COPY_TEST_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$COPY_TEST_DIR/../../scripts/lib.sh"

export GW_PATH_DIR=${GW_PATH_DIR-}
[ -n "${COPY_SKIP_BUILD:-}" ] || ts_setup TS_ASSERT=1
ts_node_setup
ts_cluster_start fsync=off synchronous_commit=off max_connections=120

C=${COPY_BIN:-"$TS_ROOT/src/copy/tablestore-copy"}	# COPY_BIN: another build of it (a test of the tests)
GW_BIN="$TS_ROOT/src/gateway/tablestore-gateway"
PEERS="node $COPY_TEST_DIR/peers.mjs"
WORK=$(mktemp -d /tmp/tablestore-copy-test.XXXXXX)
# a run without --state writes its checkpoint in the current directory: never the source tree
cd "$WORK" || exit 1
N=${COPY_KILL_ENTITIES:-50000}
NP=${COPY_PEER_ENTITIES:-5000}
KILLS=${COPY_KILLS:-3}
KEY='Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=='
PIDS=()
cleanup() {
	local p
	# the servers started in $(...) (Azurite, gateways) are in WORK/pids: PIDS does not see them
	for p in "${PIDS[@]}" $(cat "$WORK/pids" 2>/dev/null); do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	[ -n "${COPY_KEEP:-}" ] || rm -rf "$WORK"
	ts_cluster_stop
}
trap cleanup EXIT

passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok     $1"; }
bad() { failed=$((failed + 1)); echo "FAILED $1"; }
# check NAME COMMAND...: passes when the command succeeds
check() { local n=$1; shift; if "$@"; then ok "$n"; else bad "$n"; fi; }
# same FILE1 FILE2: equal and not empty
same() { [ -s "$1" ] && cmp -s "$1" "$2" || { diff "$1" "$2" | head -10; return 1; }; }

db() { echo "host=$PGHOST port=$PGPORT user=postgres dbname=$1"; }
mkdb() { psql -X -q -c "DROP DATABASE IF EXISTS $1" -c "CREATE DATABASE $1" && psql -X -q -d "$1" -c 'CREATE EXTENSION tablestore'; }
# a database table, normalised as peers.mjs dump prints an endpoint's
dbdump() { psql -X -At -F $'\t' -d "$1" -c "SELECT partition_key, row_key, properties::text FROM tablestore_data.$(echo "$2" | tr A-Z a-z)" | $PEERS normalise; }
dbetags() { psql -X -At -F $'\t' -d "$1" -c "SELECT partition_key, row_key, etag FROM tablestore_data.$(echo "$2" | tr A-Z a-z)" | $PEERS keys-json; }
filedump() { zcat -f "$1" | $PEERS normalise; }
# the Timestamps of ETags in ticks order-insensitively: W/"datetime'...'" -> its datetime with 7 digits
etag_ticks() { sed -E "s/%3A/:/g; s/W\/\"datetime'([0-9T:-]+)(\.([0-9]*))?Z'\"/\1.\3000000Z/" "$1" | sed -E 's/\.([0-9]{7})[0-9]*Z/.\1Z/' | sort; }
free_port() { ts_free_port; }
wait_port() { for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done; return 1; }

start_azurite() {
	local port
	port=$(free_port)
	"$TS_NODE_DIR/node_modules/.bin/azurite-table" --inMemoryPersistence --tableHost 127.0.0.1 --tablePort "$port" \
		--loose --skipApiVersionCheck --disableTelemetry --silent >"$WORK/azurite-$port.log" 2>&1 &
	echo $! >>"$WORK/pids"
	wait_port "$port" || ts_die "Azurite did not start"
	echo "$port"
}
# start_gateway DATABASE [flags...]
start_gateway() {
	local port dbname=$1
	shift
	port=$(free_port)
	"$GW_BIN" --port "$port" --log quiet --dsn "$(db "$dbname")" "$@" >"$WORK/gateway-$port.log" 2>&1 &
	echo $! >>"$WORK/pids"
	wait_port "$port" || ts_die "the gateway did not start"
	echo "$port"
}
url() { echo "http://127.0.0.1:$1/devstoreaccount1"; }
conn() { echo "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=$KEY;TableEndpoint=$(url "$1")"; }
# usage ARGS...: the program refuses them as a usage error (exit 2)
usage() { "$C" "$@" >"$WORK/usage.log" 2>&1; [ $? -eq 2 ]; }
# copy ARGS...: the program with a checkpoint and a rejects file in WORK; its output in WORK/last.log
copy() { "$C" "$@" >"$WORK/last.log" 2>&1; local s=$?; [ $s -eq 0 ] || tail -5 "$WORK/last.log" >&2; return $s; }

# ------------------------------------------------------------------ round trip through real peers
ts_log "round trip: Azurite -> database -> files -> Azurite -> gateway -> database"
AZ1=$(start_azurite)
AZ2=$(start_azurite)
mkdb rt_src && mkdb rt_gw && mkdb rt_dst
GW=$(start_gateway rt_gw)
$PEERS seed "$(url "$AZ1")" Edge || bad "seed Azurite"
$PEERS dump "$(url "$AZ1")" Edge >"$WORK/rt0"
check "round trip: the edge entities are in Azurite" [ "$(wc -l <"$WORK/rt0")" -eq 5 ]

check "Azurite -> database (--keep-timestamps --verify)" copy "$(conn "$AZ1")" "$(db rt_src)" --keep-timestamps --verify --state "$WORK/rt1.state"
dbdump rt_src Edge >"$WORK/rt1"
check "  every type and edge value identical in the database" same "$WORK/rt0" "$WORK/rt1"
$PEERS etags "$(url "$AZ1")" Edge >"$WORK/rt0.etags"
dbetags rt_src Edge >"$WORK/rt1.etags"
etag_ticks "$WORK/rt0.etags" >"$WORK/rt0.ticks"
etag_ticks "$WORK/rt1.etags" >"$WORK/rt1.ticks"
check "  ETags: Azurite's Timestamps kept to the tick" same "$WORK/rt0.ticks" "$WORK/rt1.ticks"
# every ETag Azurite issued matches its copy (If-Match): Azurite writes seven fractional digits,
# tablestore drops the trailing zeros (contract §1), the same instant
if_match_all() {	# URL TABLE DB: every ETag the endpoint gives matches (tablestore.etag_matches) the copy's
	local t
	t=$(echo "$2" | tr A-Z a-z)
	$PEERS etags-raw "$1" "$2" >"$WORK/ifm.tsv" || return 1
	psql -X -q -At -F ' ' -v ON_ERROR_STOP=1 -d "$3" >"$WORK/ifm.out" <<SQL || return 1
CREATE TEMP TABLE src (pk text, rk text, etag text);
\copy src FROM '$WORK/ifm.tsv'
SELECT count(*), count(*) FILTER (WHERE tablestore.etag_matches(d.etag, s.etag)), count(*) FILTER (WHERE s.etag <> d.etag)
FROM src s LEFT JOIN tablestore_data.$t d ON d.partition_key = s.pk AND d.row_key = s.rk;
SQL
	read -r total matched differ <"$WORK/ifm.out"
	echo "# If-Match: $matched of $total ETags match ($differ of them written differently at the source)"
	[ "$total" -gt 0 ] && [ "$matched" -eq "$total" ] && [ "${4:-0}" -le "$differ" ]
}
check "  every ETag Azurite issued matches the copy (If-Match)" if_match_all "$(url "$AZ1")" Edge rt_src

# -0 joins here: the database and the files carry it (Azurite does not)
psql -X -q -d rt_src -c "SELECT tablestore.insert_entity('Edge', '{\"PartitionKey\":\"types\",\"RowKey\":\"negzero\",\"Nz\":-0.0,\"Nz@odata.type\":\"Edm.Double\"}')" >/dev/null
dbdump rt_src Edge >"$WORK/rt1"
check "  Double -0 stored as -0" grep -q 'Nz:Edm.Double:-0' "$WORK/rt1"
dbetags rt_src Edge >"$WORK/rt1.etags"

check "database -> files (--verify)" copy "$(db rt_src)" "$WORK/files" --verify --state "$WORK/rt2.state"
filedump "$WORK/files/Edge.jsonl.gz" >"$WORK/rt2"
check "  every type and edge value identical in the files" same "$WORK/rt1" "$WORK/rt2"
check "  the manifest counts the table" grep -q '"table":"Edge","file":"Edge.jsonl.gz","entities":6,"partitions":3' "$WORK/files/manifest.jsonl"

mkdb rt_files && check "files -> database (--keep-timestamps): ETags identical to the source database's" \
	copy "$WORK/files" "$(db rt_files)" --keep-timestamps --verify --state "$WORK/rt2b.state"
dbetags rt_files Edge >"$WORK/rt2b.etags"
check "  the same ETag text, every entity" same "$WORK/rt1.etags" "$WORK/rt2b.etags"

check "files -> Azurite: --verify finds the one value Azurite cannot hold (Double -0)" \
	bash -c '! "$0" "$1" "$2" --verify --state "$3" >"$4" 2>&1 && grep -q "partition \"types\"" "$4"' "$C" "$WORK/files" "$(conn "$AZ2")" "$WORK/rt3.state" "$WORK/rt3.log"
$PEERS dump "$(url "$AZ2")" Edge >"$WORK/rt3"
grep -v negzero "$WORK/rt1" >"$WORK/rt1.noz"
grep -v negzero "$WORK/rt3" >"$WORK/rt3.noz"
check "  every other value identical in Azurite" same "$WORK/rt1.noz" "$WORK/rt3.noz"
check "  Azurite turned -0 into 0 (its limit, documented)" grep -q 'Nz:Edm.Double:0$' "$WORK/rt3"

check "Azurite -> gateway (--verify)" copy "$(conn "$AZ2")" "$(conn "$GW")" --verify --state "$WORK/rt4.state"
$PEERS dump "$(url "$GW")" Edge >"$WORK/rt4"
check "  identical through the gateway" same "$WORK/rt3" "$WORK/rt4"
check "files -> gateway: -0 arrives through the REST protocol" copy "$WORK/files" "$(conn "$GW")" --verify --state "$WORK/rt4b.state"
$PEERS dump "$(url "$GW")" Edge >"$WORK/rt4b"
check "  identical to the files, -0 included" same "$WORK/rt2" "$WORK/rt4b"

check "gateway -> database (--keep-timestamps --verify)" copy "$(conn "$GW")" "$(db rt_dst)" --keep-timestamps --verify --state "$WORK/rt5.state"
dbdump rt_dst Edge >"$WORK/rt5"
check "  identical in the last database" same "$WORK/rt2" "$WORK/rt5"
$PEERS etags "$(url "$GW")" Edge >"$WORK/rt4.etags"
dbetags rt_dst Edge >"$WORK/rt5.etags"
check "  ETags: the gateway's, character for character" same "$WORK/rt4.etags" "$WORK/rt5.etags"
if_match() {
	echo "SELECT tablestore.merge_entity('Edge', '{\"PartitionKey\":\"types\",\"RowKey\":\"a\",\"X\":1}', :'etag')" |
		psql -X -q -At -v ON_ERROR_STOP=1 -d rt_dst -v etag="$(awk -F'\t' '$1=="\"types\"" && $2=="\"a\"" {print $3}' "$WORK/rt4.etags")" >/dev/null
}
check "  an If-Match with the gateway's ETag matches the copy" if_match

# stored access policies: database -> files -> gateway -> database with --acl
psql -X -q -d rt_src -c "SELECT tablestore.set_table_acl('Edge', '[{\"Id\":\"readers\",\"Start\":\"2024-01-01T00:00:00Z\",\"Expiry\":\"2030-01-01T00:00:00Z\",\"Permission\":\"r\"},{\"Id\":\"writers\",\"Expiry\":\"2031-06-30T12:00:00Z\",\"Permission\":\"raud\"}]')" >/dev/null
mkdb acl_dst && mkdb acl_gw
ACLGW=$(start_gateway acl_gw)
check "--acl: database -> files -> gateway -> database" bash -c '
	"$0" "$1" "$2" --acl --tables Edge --state "$2.1.state" >/dev/null 2>&1 &&
	"$0" "$2" "$3" --acl --state "$2.2.state" >/dev/null 2>&1 &&
	"$0" "$3" "$4" --acl --state "$2.3.state" >/dev/null 2>&1' "$C" "$(db rt_src)" "$WORK/aclfiles" "$(conn "$ACLGW")" "$(db acl_dst)"
check "  the manifest carries the policies" grep -q '"acl":".*readers' "$WORK/aclfiles/manifest.jsonl"
psql -X -At -d rt_src -c "SELECT * FROM tablestore.get_table_acl('Edge')" >"$WORK/acl.src"
psql -X -At -d acl_dst -c "SELECT * FROM tablestore.get_table_acl('Edge')" >"$WORK/acl.dst"
check "  the same policies at the end" same "$WORK/acl.src" "$WORK/acl.dst"
check "--filter at a database source: only the matching entities" bash -c '"$0" "$1" "$2" --filter "RowKey eq '"'"'a'"'"' or RowKey eq '"'"'b'"'"'" --no-gzip --state "$2.state" >/dev/null 2>&1 && [ "$(wc -l <"$2/Edge.jsonl")" -eq 2 ]' "$C" "$(db rt_src)" "$WORK/filtered1"
check "--filter at a Table endpoint source: the same" bash -c '"$0" "$1" "$2" --filter "RowKey eq '"'"'a'"'"' or RowKey eq '"'"'b'"'"'" --no-gzip --state "$2.state" >/dev/null 2>&1 && [ "$(wc -l <"$2/Edge.jsonl")" -eq 2 ]' "$C" "$(conn "$GW")" "$WORK/filtered2"
check "--dry-run lists and writes nothing" bash -c '"$0" "$1" "$2" --dry-run --state "$2.state" 2>"$2.log" && grep -q "would copy Edge" "$2.log" && [ ! -e "$2" ]' "$C" "$(db rt_src)" "$WORK/dry"

# --mirror from a directory: the destination made equal to a snapshot; a directory has no point
# reads, so each key to delete is confirmed absent by one read of the file per 1000 of them
mkdb mi_dst
copy "$WORK/files" "$(db mi_dst)" --state "$WORK/mi1.state" || bad "copy the files into mi_dst"
psql -X -q -d mi_dst -c "SELECT tablestore.insert_entity('Edge', '{\"PartitionKey\":\"types\",\"RowKey\":\"extra\"}')" \
	-c "SELECT tablestore.insert_entity('Edge', '{\"PartitionKey\":\"zz\",\"RowKey\":\"extra\"}')" >/dev/null
check "--mirror from a directory: what the files do not have is deleted, --verify agrees" \
	copy "$WORK/files" "$(db mi_dst)" --mirror --verify --state "$WORK/mi2.state" --log json
check "  the two extra entities, and only they" grep -q '"deleted":2,' "$WORK/last.log"
dbdump mi_dst Edge >"$WORK/mi"
check "  independent check: the database holds the snapshot" same "$WORK/rt2" "$WORK/mi"

# --filter from every source: a database and the gateway evaluate it in SQL (the service's
# semantics, contract §5), a directory in the program (filter.c, the core's typed comparison); the
# same entities from each, for filters over every EDM type, absent and mixed-type properties,
# keys, Timestamps to the tick, not/and/or and constants
ts_log "--filter: the same entities from a database, the gateway and a directory"
mkdb fl_src
psql -X -q -v ON_ERROR_STOP=1 -d fl_src >/dev/null <<'SQL'
SELECT tablestore.create_table('Typed');
BEGIN;
SELECT tablestore.import_timestamps('Typed');
INSERT INTO tablestore_data.typed (partition_key, row_key, etag, properties)
SELECT 'p' || (i % 3), lpad(i::text, 2, '0'),
	format('W/"datetime''2020-01-01T00%%3A00%%3A00.%sZ''"', lpad(i::text, 7, '0')),
	('{' || concat_ws(',',
		CASE WHEN i % 10 <> 0 THEN format('"I":%s', CASE i WHEN 1 THEN 2147483647 WHEN 2 THEN -2147483648 ELSE (i * 37 % 11) - 5 END) END,
		format('"L@odata.type":"Edm.Int64","L":"%s"', CASE i WHEN 3 THEN '9223372036854775807' WHEN 11 THEN '-9223372036854775808' ELSE (i::bigint * 1000000007)::text END),
		format('"D@odata.type":"Edm.Double","D":%s', CASE i WHEN 4 THEN '"NaN"' WHEN 5 THEN '"Infinity"' WHEN 6 THEN '-0.0' WHEN 7 THEN '5e-324' WHEN 12 THEN '"-Infinity"' WHEN 13 THEN '0.0' ELSE (i / 4.0)::text END),
		format('"B":%s', (i % 2 = 0)::text),
		format('"S":%s', to_json(CASE i WHEN 8 THEN '' WHEN 9 THEN 'é' WHEN 14 THEN '😀' WHEN 15 THEN 'x1' || chr(57344) ELSE 'x' || i END)::text),
		format('"T@odata.type":"Edm.DateTime","T":"%s"', to_char(timestamp '2020-01-01' + i * interval '1 day' + i * interval '1 microsecond', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')),
		CASE WHEN i % 5 = 0 THEN format('"G@odata.type":"Edm.Guid","G":"00000000-0000-0000-0000-0000000000%s"', lpad(i::text, 2, '0')) END,
		format('"Y@odata.type":"Edm.Binary","Y":"%s"', encode(int2send(i::int2), 'base64')),
		CASE i % 4 WHEN 0 THEN format('"M":%s', i) WHEN 1 THEN format('"M":"%s"', i) WHEN 2 THEN format('"M@odata.type":"Edm.Double","M":%s', i + 0.5)
			ELSE format('"M@odata.type":"Edm.Int64","M":"%s"', i) END
	) || '}')::tablestore.entity
FROM generate_series(1, 40) i;
COMMIT;
SQL
FLGW=$(start_gateway fl_src)
copy "$(db fl_src)" "$WORK/fl_all" --no-gzip --keep-timestamps --state "$WORK/fl_all.state" || bad "copy the filter table into files"
cat >"$WORK/filters" <<'FILTERS'
PartitionKey eq 'p1'
PartitionKey ne 'p1' and RowKey lt '20'
RowKey gt '05' and RowKey le '12' or PartitionKey eq 'p0'
PartitionKey eq 5
not (PartitionKey ne 'p2')
I eq 5
I gt 2147483646
I lt 0 or I ge 2147483647
I ne 0
I gt 5L
I le 2.5
not (I lt 3)
L eq 9223372036854775807L
L gt 5000000035L
L lt 0
L gt 5
D gt 1.5
D eq 0.0
D eq 0
D ne 2.5
D lt 2
D gt 1.7976931348623157E+308
D lt -1.0E+308
D ge 4.9E-324
B eq true
B ne false
B eq 1
S eq 'x10'
S gt 'x3'
S lt 'x'
S ge 'é'
S gt 'x1'
S lt '😀'
S eq ''
T ge datetime'2020-01-10T00:00:00.000010Z'
T lt datetime'2020-01-05T00:00:00Z'
T eq datetime'2020-01-03T00:00:00.000003Z'
G eq guid'00000000-0000-0000-0000-000000000010'
G ne guid'00000000-0000-0000-0000-000000000010'
Y eq binary'0001'
Y gt X'0010'
M eq 4
M eq '5'
M gt 0
M lt 10.0
M gt 10L
M ne 'x'
Missing eq 1
Missing ne 1
not (Missing eq 1)
Timestamp gt datetime'2020-01-01T00:00:00.0000005Z'
Timestamp eq datetime'2020-01-01T00:00:00.000002Z'
Timestamp le datetime'2020-01-01T00:00:00.0000010Z'
Timestamp lt 5
true
false
(I eq 1 or S eq 'x10') and not (B eq true)
not (I gt 0 and (D lt 5.0 or M eq 4)) or PartitionKey eq 'p0'
FILTERS
fl_keys() { sed 's/,"Timestamp".*//' "$1/Typed.jsonl" 2>/dev/null | sort; }
filter_same() {
	local f=$1 n=$2 k
	for k in db gw dir; do rm -rf "$WORK/fl_$k" "$WORK/fl_$k.state"; done
	"$C" "$(db fl_src)" "$WORK/fl_db" --filter "$f" --no-gzip --state "$WORK/fl_db.state" --quiet &&
		"$C" "$(conn "$FLGW")" "$WORK/fl_gw" --filter "$f" --no-gzip --state "$WORK/fl_gw.state" --quiet &&
		"$C" "$WORK/fl_all" "$WORK/fl_dir" --filter "$f" --no-gzip --state "$WORK/fl_dir.state" --quiet || return 1
	fl_keys "$WORK/fl_db" >"$WORK/fl.db"
	fl_keys "$WORK/fl_gw" >"$WORK/fl.gw"
	fl_keys "$WORK/fl_dir" >"$WORK/fl.dir"
	echo "$(wc -l <"$WORK/fl.db") $f" >>"$WORK/fl.counts"
	cmp -s "$WORK/fl.db" "$WORK/fl.gw" && cmp -s "$WORK/fl.db" "$WORK/fl.dir" ||
		{ echo "# filter $n: $f"; diff "$WORK/fl.db" "$WORK/fl.dir" | head -5; diff "$WORK/fl.db" "$WORK/fl.gw" | head -5; return 1; }
}
n=0
fl_bad=0
while IFS= read -r f; do
	n=$((n + 1))
	filter_same "$f" "$n" || fl_bad=$((fl_bad + 1))
done <"$WORK/filters"
check "--filter: the same entities from a database, the gateway and a directory ($n filters)" [ "$fl_bad" -eq 0 ]
check "  the filters select different sets (not all or nothing)" [ "$(awk '{print $1}' "$WORK/fl.counts" | sort -u | wc -l)" -ge 10 ]
check "  --verify applies the filter at a directory source" copy "$WORK/fl_all" "$WORK/fl_dir" --filter "$(tail -1 "$WORK/filters")" --verify --no-gzip --state "$WORK/fl_v.state"
check "  a filter the core refuses: usage, exit 2, at a directory source" usage "$WORK/fl_all" "$WORK/fl_x" --filter "I eq"
check "  more than 15 comparisons are refused there as by the service" usage "$WORK/fl_all" "$WORK/fl_x" \
	--filter "$(printf 'I eq %d or ' $(seq 1 15))I eq 16"

# ------------------------------------------------------------------ kill -9 and --resume
ts_log "kill -9 in the middle of a copy of $N entities, then --resume"
mkdb kr_src && mkdb kr_dst
psql -X -q -d kr_src -c "SELECT tablestore.create_table('Big')" \
	-c "INSERT INTO tablestore_data.big (partition_key, row_key, properties)
		SELECT 'p' || lpad((i / 1000)::text, 4, '0'), lpad(i::text, 8, '0'),
			('{\"n\":' || i || ',\"L\":\"' || (i::bigint * 1000000007) || '\",\"L@odata.type\":\"Edm.Int64\",\"s\":\"' || md5(i::text) || '\"}')::tablestore.entity
		FROM generate_series(1, $N) i" >/dev/null
kill_and_resume() {	# NAME TO RATE: start, wait for some entities, kill -9, then --resume
	local name=$1 to=$2 rate=$3 pid written=0
	"$C" "$(db kr_src)" "$to" --keep-timestamps --rate "$rate" --parallel 2 --state "$WORK/$name.state" --log json >"$WORK/$name.1.log" 2>&1 &
	pid=$!
	for _ in $(seq 1 600); do
		written=$(grep -o '"entities":[0-9]*' "$WORK/$name.state" 2>/dev/null | cut -d: -f2 | paste -sd+ | bc 2>/dev/null)
		[ "${written:-0}" -gt 0 ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	echo "${written:-0}"
}
written=$(kill_and_resume kr "$(db kr_dst)" $((N / 4)))
check "killed in the middle ($written of $N entities checkpointed)" [ "$written" -gt 0 ] && [ "$written" -lt "$N" ]
check "--resume goes on and --verify finds no difference" copy "$(db kr_src)" "$(db kr_dst)" --resume --verify --keep-timestamps --state "$WORK/kr.state"
check "  the resumed run started after the checkpoint" grep -q 'resuming' "$WORK/last.log"
psql -X -At -d kr_src -c "SELECT partition_key, row_key, etag, md5(properties::text) FROM tablestore_data.big ORDER BY 1, 2" >"$WORK/kr.src"
psql -X -At -d kr_dst -c "SELECT partition_key, row_key, etag, md5(properties::text) FROM tablestore_data.big ORDER BY 1, 2" >"$WORK/kr.dst"
check "  independent check: every key, ETag and property set identical ($N rows)" same "$WORK/kr.src" "$WORK/kr.dst"
check "  nothing duplicated or extra" [ "$(wc -l <"$WORK/kr.dst")" -eq "$N" ]
check "  the indexing policy is back after the load" \
	[ "$(psql -X -At -d kr_dst -c "SELECT tablestore.get_indexing_policy('Big')->>'indexingMode'")" = consistent ]

written=$(kill_and_resume kf "$WORK/kfiles" $((N / 4)))
check "killed a copy into gzip files ($written checkpointed)" [ "$written" -gt 0 ] && [ "$written" -lt "$N" ]
check "--resume into the files and --verify" copy "$(db kr_src)" "$WORK/kfiles" --resume --verify --state "$WORK/kf.state"
zcat "$WORK/kfiles/Big.jsonl.gz" | wc -l >"$WORK/kf.count"
check "  the file holds each entity once" [ "$(cat "$WORK/kf.count")" -eq "$N" ]
check "  the manifest's count" grep -q "\"table\":\"Big\",\"file\":\"Big.jsonl.gz\",\"entities\":$N," "$WORK/kfiles/manifest.jsonl"

# ------------------------------------------------------------------ kill -9 and --resume: Table endpoints
# Several kill -9 at random points of one copy (each after a checkpoint has moved, and a random
# moment more), each followed by --resume with another --parallel, then --resume --verify; the two
# sides compared entity by entity by peers.mjs (raw HTTP) and psql, not by the program: Azurite as
# the destination, Azurite as the source (--keep-timestamps: every ETag Azurite issued matches),
# the gateway as the destination. COPY_PEER_ENTITIES sizes them (5000 here; 200000 is the long run).
ts_log "kill -9 (${KILLS}x) and --resume with Azurite and the gateway: $NP entities"
state_entities() { grep -o '"entities":[0-9]*' "$1" 2>/dev/null | cut -d: -f2 | paste -sd+ | bc 2>/dev/null || echo 0; }
kill_many() {	# NAME FROM TO: KILLS times start (then --resume), wait for the checkpoint to pass a random point, kill -9
	local name=$1 from=$2 to=$3 pid prev=0 now k par target first=0 resume=()
	shift 3
	for k in $(seq 1 "$KILLS"); do
		par=$((RANDOM % 4 + 1))
		# the k-th point: somewhere in the k-th of KILLS + 1 stretches of the table
		target=$(( NP * (k - 1) / (KILLS + 1) + (NP / (KILLS + 1)) * (RANDOM % 100) / 100 + 1 ))
		"$C" "$from" "$to" "${resume[@]}" --rate $((NP / 10)) --parallel "$par" --state "$WORK/$name.state" "$@" \
			>>"$WORK/$name.kills.log" 2>&1 &
		pid=$!
		for _ in $(seq 1 6000); do
			now=$(state_entities "$WORK/$name.state")
			[ "${now:-0}" -gt "$prev" ] && [ "${now:-0}" -ge "$target" ] && break
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		sleep "0.$((RANDOM % 10))"
		kill -9 "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		prev=$(state_entities "$WORK/$name.state")
		resume=(--resume)
		echo "# $name: kill -9 number $k (--parallel $par): $prev of $NP entities checkpointed"
		[ "$k" -gt 1 ] || first=$prev
	done
	[ "$first" -gt 0 ] && [ "$first" -lt "$NP" ]	# (--rate makes the first one land in the middle)
}
psql -X -q -d kr_src -c "SELECT tablestore.create_table('Peer')" \
	-c "INSERT INTO tablestore_data.peer (partition_key, row_key, properties)
		SELECT 'q' || lpad((i / 250)::text, 4, '0'), lpad(i::text, 8, '0'),
			('{\"n\":' || i || ',\"L\":\"' || (i::bigint * 1000000007) || '\",\"L@odata.type\":\"Edm.Int64\",\"d\":' || (i / 8.0) ||
			',\"d@odata.type\":\"Edm.Double\",\"s\":\"' || md5(i::text) || '\"}')::tablestore.entity
		FROM generate_series(1, $NP) i" >/dev/null
dbdump kr_src Peer >"$WORK/peer.src"
AZK=$(start_azurite)

check "database -> Azurite: killed $KILLS times in the middle" kill_many pk_az "$(db kr_src)" "$(conn "$AZK")" --tables Peer
check "  --resume --verify: no difference" copy "$(db kr_src)" "$(conn "$AZK")" --tables Peer --resume --verify --state "$WORK/pk_az.state"
$PEERS dump "$(url "$AZK")" Peer >"$WORK/peer.az"
check "  independent check: every entity and value at Azurite as at the source ($NP)" same "$WORK/peer.src" "$WORK/peer.az"
check "  each once, none extra" [ "$($PEERS count "$(url "$AZK")" Peer)" = "$NP $NP" ]

mkdb pk_db
check "Azurite -> database (--keep-timestamps): killed $KILLS times" kill_many pk_db "$(conn "$AZK")" "$(db pk_db)" --keep-timestamps
check "  --resume --verify: no difference" copy "$(conn "$AZK")" "$(db pk_db)" --keep-timestamps --resume --verify --state "$WORK/pk_db.state"
dbdump pk_db Peer >"$WORK/peer.db"
check "  independent check: every entity and value as at Azurite" same "$WORK/peer.az" "$WORK/peer.db"
check "  nothing duplicated or extra" [ "$(psql -X -At -d pk_db -c 'SELECT count(*) FROM tablestore_data.peer')" -eq "$NP" ]
check "  every ETag Azurite issued matches at the destination (If-Match), trailing zeros too" if_match_all "$(url "$AZK")" Peer pk_db 1
az_row=$(grep -m1 "0Z'\"\$" "$WORK/ifm.tsv")
az_update() {	# an update with If-Match: Azurite's text of a Timestamp ending in 0
	printf '%s\n' "BEGIN;" "SELECT tablestore.merge_entity('Peer', json_build_object('PartitionKey', :'pk', 'RowKey', :'rk', 'x', 1)::text::tablestore.entity, :'etag') IS NOT NULL;" "ROLLBACK;" |
		psql -X -q -At -v ON_ERROR_STOP=1 -d pk_db -v pk="$(cut -f1 <<<"$az_row")" -v rk="$(cut -f2 <<<"$az_row")" -v etag="$(cut -f3 <<<"$az_row")" >/dev/null
}
check "  an update with If-Match: Azurite's own text ($(cut -f3 <<<"$az_row"))" az_update

mkdb pk_rss
/usr/bin/time -f '%M' -o "$WORK/pk.rss" "$C" "$(conn "$AZK")" "$(db pk_rss)" --state "$WORK/pk_rss.state" --quiet
echo "# peak RSS copying from Azurite: $(tail -1 "$WORK/pk.rss") kB for $NP entities"
check "peak RSS from a Table endpoint bounded (a page at a time): under 64 MB" [ "$(tail -1 "$WORK/pk.rss")" -lt 65536 ]

mkdb pk_gw
PKGW=$(start_gateway pk_gw)
check "database -> gateway: killed $KILLS times" kill_many pk_gw "$(db kr_src)" "$(conn "$PKGW")" --tables Peer
check "  --resume --verify: no difference" copy "$(db kr_src)" "$(conn "$PKGW")" --tables Peer --resume --verify --state "$WORK/pk_gw.state"
$PEERS dump "$(url "$PKGW")" Peer >"$WORK/peer.gw"
check "  independent check: every entity and value through the gateway" same "$WORK/peer.src" "$WORK/peer.gw"
check "  nothing duplicated or extra" [ "$(psql -X -At -d pk_gw -c 'SELECT count(*) FROM tablestore_data.peer')" -eq "$NP" ]
check "--resume after the end: nothing left, exit 0, --verify agrees" copy "$(db kr_src)" "$(conn "$PKGW")" --tables Peer --resume --verify --state "$WORK/pk_gw.state"

# memory: a table 10 times larger does not take more memory (a batch at a time)
mkdb rss_a && mkdb rss_b
psql -X -q -d kr_src -c "SELECT tablestore.create_table('Small')" \
	-c "INSERT INTO tablestore_data.small SELECT * FROM tablestore_data.big WHERE partition_key < 'p' || lpad(($N / 10000)::text, 4, '0')" >/dev/null
/usr/bin/time -f '%M' -o "$WORK/rss.small" "$C" "$(db kr_src)" "$(db rss_a)" --tables Small --state "$WORK/rss1.state" --quiet
/usr/bin/time -f '%M' -o "$WORK/rss.big" "$C" "$(db kr_src)" "$(db rss_b)" --tables Big --state "$WORK/rss2.state" --quiet
echo "# peak RSS: $(cat "$WORK/rss.small") kB for $((N / 10)) entities, $(cat "$WORK/rss.big") kB for $N"
check "peak RSS bounded: $N entities take less than 10 MB more than a tenth of them" \
	[ "$(tail -1 "$WORK/rss.big")" -lt $(( $(tail -1 "$WORK/rss.small") + 10240 )) ]

# ------------------------------------------------------------------ --sync and --mirror
ts_log "--sync after writes, merges and deletes at the source"
mkdb sy_src && mkdb sy_dst
psql -X -q -d sy_src -c "SELECT tablestore.create_table('Orders')" \
	-c "INSERT INTO tablestore_data.orders (partition_key, row_key, properties)
		SELECT 'c' || (i % 7), lpad(i::text, 5, '0'), ('{\"qty\":' || i || '}')::tablestore.entity FROM generate_series(1, 3000) i" >/dev/null
SYGW=$(start_gateway sy_src)
check "first copy from the gateway" copy "$(conn "$SYGW")" "$(db sy_dst)" --keep-timestamps --state "$WORK/sy.state"
psql -X -q -d sy_src -c "INSERT INTO tablestore_data.orders (partition_key, row_key, properties)
		SELECT 'c' || (i % 7), lpad(i::text, 5, '0'), '{\"new\":true}' FROM generate_series(3001, 3500) i" \
	-c "SELECT tablestore.merge_entity('Orders', ('{\"PartitionKey\":\"' || partition_key || '\",\"RowKey\":\"' || row_key || '\",\"merged\":\"yes\"}')::tablestore.entity)
		FROM tablestore_data.orders WHERE row_key LIKE '%5'" \
	-c "DELETE FROM tablestore_data.orders WHERE row_key LIKE '%7' OR partition_key = 'c3'" >/dev/null
check "--sync --mirror --verify converges" copy "$(conn "$SYGW")" "$(db sy_dst)" --sync --mirror --verify --keep-timestamps --state "$WORK/sy.state" --log json
check "  it deleted what the source deleted" grep -q '"deleted":[1-9]' "$WORK/last.log"
psql -X -At -d sy_src -c "SELECT partition_key, row_key, etag, properties::text FROM tablestore_data.orders ORDER BY 1, 2" >"$WORK/sy.src"
psql -X -At -d sy_dst -c "SELECT partition_key, row_key, etag, properties::text FROM tablestore_data.orders ORDER BY 1, 2" >"$WORK/sy.dst"
check "  independent check: the same entities, values and ETags" same "$WORK/sy.src" "$WORK/sy.dst"
check "a second --sync with nothing new copies only the skew's window and deletes nothing" \
	copy "$(conn "$SYGW")" "$(db sy_dst)" --sync --mirror --keep-timestamps --state "$WORK/sy.state" --log json
check "  nothing deleted" grep -q '"deleted":0' "$WORK/last.log"

# ------------------------------------------------------------------ a destination that throttles
ts_log "a destination that throttles (503 + Retry-After)"
mkdb th_src && mkdb th_dst
for t in Thra Thrb Thrc Thrd; do
	psql -X -q -d th_src -c "SELECT tablestore.create_table('$t')" -c "INSERT INTO tablestore_data.$(echo $t | tr A-Z a-z) (partition_key, row_key, properties)
		SELECT 'p' || (i % 3), lpad(i::text, 4, '0'), '{\"v\":1}' FROM generate_series(1, 400) i" >/dev/null
done
THGW=$(start_gateway th_dst --pool 1 --queue 1 --queue-timeout 50)
check "copy into a gateway with one worker and a queue of one" copy "$(db th_src)" "$(conn "$THGW")" --parallel 6 --batch 20 --verify --log json --state "$WORK/th.state"
check "  it was throttled (503s ridden through with Retry-After)" grep -q '"retries":[1-9]' "$WORK/last.log"
for t in thra thrb thrc thrd; do echo "$t $(psql -X -At -d th_dst -c "SELECT count(*) FROM tablestore_data.$t")"; done >"$WORK/th.counts"
check "  nothing lost: 400 entities in each of the 4 tables" [ "$(grep -c ' 400$' "$WORK/th.counts")" -eq 4 ]

# ------------------------------------------------------------------ SAS-only credentials
ts_log "SAS-only credentials"
mkdb sas_dst
SASGW=$(start_gateway sas_dst)
$PEERS create "$(url "$SASGW")" Edge
READ_SAS=$($PEERS sas "$(url "$GW")" account rl)
WRITE_SAS=$($PEERS sas "$(url "$SASGW")" table au Edge)
check "read with an account SAS (rl), write with a table SAS (au)" \
	copy "TableEndpoint=$(url "$GW");SharedAccessSignature=$READ_SAS" "TableEndpoint=$(url "$SASGW");SharedAccessSignature=$WRITE_SAS" \
	--tables Edge --state "$WORK/sas.state"
$PEERS dump "$(url "$SASGW")" Edge >"$WORK/sas.dump"
check "  identical" same "$WORK/rt4b" "$WORK/sas.dump"
check "a table SAS without u is refused at the destination, and the run fails" \
	bash -c '! "$0" "$1" "$2" --tables Edge --state "$3" --rejects "$3.rej" >/dev/null 2>&1' "$C" \
	"TableEndpoint=$(url "$GW");SharedAccessSignature=$READ_SAS" \
	"TableEndpoint=$(url "$SASGW");SharedAccessSignature=$($PEERS sas "$(url "$SASGW")" table r Edge)" "$WORK/sas2.state"

# ------------------------------------------------------------------ rejects
ts_log "entities the destination refuses"
mkdb rj_dst
psql -X -q -d rj_dst -c "SELECT tablestore.create_table('Edge')" \
	-c "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS \$\$BEGIN IF NEW.row_key = 'b' THEN RAISE EXCEPTION 'refused by the destination''s own rule'; END IF; RETURN NEW; END\$\$" \
	-c "CREATE TRIGGER refuse BEFORE INSERT ON tablestore_data.edge FOR EACH ROW EXECUTE FUNCTION refuse()" >/dev/null
copy "$(db rt_src)" "$(db rj_dst)" --state "$WORK/rj.state" --rejects "$WORK/rj.rejects" --log json
check "a refused entity: exit status 1" [ $? -eq 1 ]
check "  the rejects file holds it with the destination's error" \
	grep -q '"RowKey":"b".*"error":".*refused by the destination' "$WORK/rj.rejects"
check "  only it" [ "$(wc -l <"$WORK/rj.rejects")" -eq 1 ]
check "  the others were copied" [ "$(psql -X -At -d rj_dst -c 'SELECT count(*) FROM tablestore_data.edge')" -eq 5 ]
check "  the summary counts it" grep -q '"rejected":1' "$WORK/last.log"
mkdir -p "$WORK/badfiles"
printf '%s\n' '{"PartitionKey":"a","RowKey":"1","ok":1}' '{"PartitionKey":"a","RowKey":"2","bad-name":1}' \
	'{"PartitionKey":"a","RowKey":"3","ok":3}' >"$WORK/badfiles/Lines.jsonl"
mkdb rj2
copy "$WORK/badfiles" "$(db rj2)" --state "$WORK/rj2.state" --rejects "$WORK/rj2.rejects"
check "a line the core cannot read: exit 1, in the rejects file with the reason" \
	bash -c '[ $0 -eq 1 ] && grep -q "PropertyNameInvalid" "$1" && grep -q "bad-name" "$1"' $? "$WORK/rj2.rejects"
check "  the two good lines copied" [ "$(psql -X -At -d rj2 -c 'SELECT count(*) FROM tablestore_data.lines')" -eq 2 ]

# ------------------------------------------------------------------ bad input
ts_log "bad input"
check "no arguments: usage, exit 2" usage
check "unknown option" usage "$WORK/files" "$WORK/x" --bogus
check "connection string without a key or SAS" usage "AccountName=a;TableEndpoint=http://127.0.0.1:1/a" "$WORK/x"
check "AccountKey that is not base64" usage "AccountName=a;AccountKey=!!!;TableEndpoint=http://127.0.0.1:1/a" "$WORK/x"
check "a key and a SAS" usage "AccountName=a;AccountKey=AAAA;SharedAccessSignature=sig=x;TableEndpoint=http://h/a" "$WORK/x"
check "unknown connection string key" usage "AccountName=a;AccountKey=AAAA;Bogus=1" "$WORK/x"
check "a bare URL" usage "http://127.0.0.1:1/a" "$WORK/x"
check "--keep-timestamps into a Table endpoint" usage "$WORK/files" "$(conn "$GW")" --keep-timestamps
check "--sync into a directory" usage "$(db rt_src)" "$WORK/x" --sync
check "--batch over 100 into a Table endpoint" usage "$WORK/files" "$(conn "$GW")" --batch 101
check "--since that is not a time" usage "$WORK/files" "$WORK/x" --since yesterday
check "--resume with nothing to resume: exit 3" bash -c '"$0" "$1" "$2" --resume --state "$3" >/dev/null 2>&1; [ $? -eq 3 ]' "$C" "$WORK/files" "$(db rt_dst)" "$WORK/none.state"
echo '{"segment":' >"$WORK/damaged.state"
check "a damaged checkpoint: exit 3, nothing written" bash -c '"$0" "$1" "$2" --resume --state "$3" >/dev/null 2>&1; [ $? -eq 3 ]' "$C" "$WORK/files" "$(db rt_dst)" "$WORK/damaged.state"
mkdir -p "$WORK/trunc"
zcat "$WORK/kfiles/Big.jsonl.gz" | head -1000 | gzip >"$WORK/trunc/Cut.jsonl.gz.full"
head -c 20000 "$WORK/trunc/Cut.jsonl.gz.full" >"$WORK/trunc/Cut.jsonl.gz"
rm "$WORK/trunc/Cut.jsonl.gz.full"
mkdb tr_dst
check "a truncated gzip file: exit 3, not 0" bash -c '"$0" "$1" "$2" --state "$3" >"$3.log" 2>&1; [ $? -eq 3 ] && grep -q "truncated\|ends early" "$3.log"' "$C" "$WORK/trunc" "$(db tr_dst)" "$WORK/tr.state"
check "a missing table named by --tables: exit 3" bash -c '"$0" "$1" "$2" --tables Nope --state "$3" >/dev/null 2>&1; [ $? -eq 3 ]' "$C" "$WORK/files" "$WORK/y" "$WORK/nope.state"
check "an unreachable endpoint gives up within --retries" bash -c '"$0" "$1" "$2" --retries 2 --state "$3" >/dev/null 2>&1; [ $? -eq 3 ]' "$C" "$(conn 1)" "$WORK/z" "$WORK/unreach.state"

# ------------------------------------------------------------------ a hostile source
# test/copy/hostile.mjs: a Table endpoint that answers huge pages, the same continuation for ever,
# the same entities again, JSON cut short, an entity over the limits, a table named ../x
ts_log "a hostile Table endpoint"
HPORT=$(free_port)
node "$COPY_TEST_DIR/hostile.mjs" "$HPORT" "$WORK/hostile.log" &
PIDS+=($!)
wait_port "$HPORT" || ts_die "hostile.mjs did not start"
hconn() { echo "AccountName=$1;AccountKey=$KEY;TableEndpoint=http://127.0.0.1:$HPORT/$1"; }
hcopy() {	# MODE STATUS [args]: copy from the mode into files; the exit status expected, peak RSS in WORK/h.MODE.rss
	local mode=$1 want=$2
	shift 2
	/usr/bin/time -f '%M' -o "$WORK/h.$mode.rss" "$C" "$(hconn "$mode")" "$WORK/h.$mode" --retries 2 \
		--state "$WORK/h.$mode.state" --rejects "$WORK/h.$mode.rejects" "$@" >"$WORK/h.$mode.log" 2>&1
	local s=$?
	[ $s -eq "$want" ] || { echo "# exit $s, not $want"; tail -3 "$WORK/h.$mode.log"; return 1; }
}
check "pages of 40 MiB whatever \$top asks: exit 3, not read whole" hcopy huge 3
check "  the reason" grep -q "larger than 32 MiB" "$WORK/h.huge.log"
check "  peak RSS bounded ($(tail -1 "$WORK/h.huge.rss") kB)" [ "$(tail -1 "$WORK/h.huge.rss")" -lt 150000 ]
check "pages too large for 1000 entities: fewer are asked for, the copy goes through" hcopy bigpage 0
check "  \$top went down" grep -q 'bigpage GET .*top=3$' "$WORK/hostile.log"
check "the continuation it was given, back for ever: exit 3" hcopy loop 3
check "  the reason" grep -q "same page for ever" "$WORK/h.loop.log"
check "the same entities on every page: exit 3 (not copied for ever)" hcopy replay 3
check "  the reason" grep -q "not in key order" "$WORK/h.replay.log"
check "a page that is not JSON: exit 3" hcopy badjson 3
check "an entity over the limits: rejected with the reason, exit 1, the others copied" hcopy overlimit 1
check "  in the rejects file" grep -q '"code":"PropertyValueTooLarge"' "$WORK/h.overlimit.rejects"
check "  the two others in the file" [ "$(zcat "$WORK/h.overlimit/Data.jsonl.gz" | wc -l)" -eq 2 ]
check "a table named ../x: exit 3, nothing written outside (or inside) the directory" hcopy names 3
check "  nothing named x beside it, nothing in it" bash -c '[ ! -e "$0/x.jsonl.gz" ] && [ ! -e "$0/x.jsonl" ] && [ -z "$(ls "$0/h.names" 2>/dev/null)" ]' "$WORK"
check "the table list's continuation for ever: exit 3" hcopy tablesloop 3
# an interrupted --verify (and copy) ends at once with 3, never 0: a request under way is abandoned
mkdb hv_dst
"$C" "$(hconn hang)" "$(db hv_dst)" --verify-only --state "$WORK/hv.state" >"$WORK/hv.log" 2>&1 &
hv=$!
for _ in $(seq 1 100); do grep -q '^hang GET /hang/Data()' "$WORK/hostile.log" && break; sleep 0.1; done
kill -TERM "$hv"
hv_status=0
for _ in $(seq 1 100); do kill -0 "$hv" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$hv" 2>/dev/null; then kill -9 "$hv"; hv_status=timeout; fi
wait "$hv" 2>/dev/null
[ "$hv_status" = timeout ] || { wait "$hv" 2>/dev/null; }
check "SIGTERM during --verify (a request under way): ends within 10 s with exit 3" bash -c '[ "$0" != timeout ] && grep -q "STOPPED" "$1"' "$hv_status" "$WORK/hv.log"

# a plain file cut at a line's end reads as a shorter table: its manifest tells (gzip's end is checked)
mkdir -p "$WORK/cut"
cp "$WORK/fl_all/Typed.jsonl" "$WORK/fl_all/manifest.jsonl" "$WORK/cut/"
sed -i '$d' "$WORK/cut/Typed.jsonl"
check "a plain file cut at a line's end, under its manifest: exit 3, not 0" bash -c '"$0" "$1" "$2" --state "$3" >"$3.log" 2>&1; [ $? -eq 3 ] && grep -q "manifest" "$3.log"' \
	"$C" "$WORK/cut" "$WORK/cut_out" "$WORK/cut.state"
check "  whole, it copies (the check counts every line)" copy "$WORK/fl_all" "$WORK/cut_out2" --filter "I eq 5" --state "$WORK/cut2.state"

# ------------------------------------------------------------------ secrets and files
ts_log "secrets, file permissions, the checkpoint's rules, exit codes"
SIG='c2VjcmV0LXNpZ25hdHVyZS1kby1ub3Qtd3JpdGU%3D'
umask 022
"$C" "$(db rt_src)" "TableEndpoint=http://127.0.0.1:$HPORT/echo;SharedAccessSignature=sv=2019-02-02&sp=au&sig=$SIG" \
	--tables Edge --log json --state "$WORK/sec.state" --rejects "$WORK/sec.rejects" >"$WORK/sec.log" 2>&1
check "an endpoint that echoes the request (a SAS in its error): every entity refused, exit 1" [ $? -eq 1 ]
check "  the endpoint did echo the signature" grep -q "sig=$SIG" "$WORK/hostile.log"
check "  the SAS is in no file the program wrote (log, rejects, checkpoint)" \
	bash -c '! grep -l -e "$0" -e "c2VjcmV0LXNpZ25hdHVyZS1kby1ub3Qtd3JpdGU=" "$1" "$2" "$3"' "$SIG" "$WORK/sec.log" "$WORK/sec.rejects" "$WORK/sec.state"
check "  the rejects file and the checkpoint: the owner's only (0600, whatever the umask)" \
	[ "$(stat -c %a "$WORK/sec.rejects") $(stat -c %a "$WORK/sec.state")" = "600 600" ]
check "a database password in a URI's query: in no file written (checkpoint, manifest, log)" bash -c '
	"$0" "postgres://postgres@/rt_src?host=$1&port=$2&password=Pw-in-query-secret&sslmode=disable" "$3/pwfiles" --tables Edge --log json \
		--state "$3/pw.state" >"$3/pw.log" 2>&1 &&
	"$0" "host=$1 port=$2 dbname=rt_src user=postgres password='"'"'Pw in conninfo secret'"'"'" "$3/pwfiles2" --tables Edge \
		--state "$3/pw2.state" >>"$3/pw.log" 2>&1 &&
	! grep -r -l -e "Pw-in-query-secret" -e "Pw in conninfo secret" "$3/pw.state" "$3/pw2.state" "$3/pw.log" "$3/pwfiles" "$3/pwfiles2"' \
	"$C" "$PGHOST" "$PGPORT" "$WORK"
check "  the directory and its files: the owner's only" \
	[ "$(stat -c %a "$WORK/pwfiles" "$WORK/pwfiles/Edge.jsonl.gz" "$WORK/pwfiles/manifest.jsonl" | sort -u | tr '\n' ' ')" = "600 700 " ]
check "a TableEndpoint with user:password@ is refused (it would be written where the endpoint is named)" \
	usage "$(db rt_src)" "AccountName=a;AccountKey=AAAA;TableEndpoint=http://u:pw@127.0.0.1:1/a"
check "FROM or TO from the environment (env:NAME), off the command line" \
	env COPY_TEST_FROM="$(db rt_src)" "$C" env:COPY_TEST_FROM "$WORK/envfiles" --tables Edge --state "$WORK/env.state" --quiet
check "  env: with no such variable: usage, exit 2" usage env:COPY_TEST_NOT_SET "$WORK/x"
# refused entities that cannot be written down are unaccounted for: 3, not 1
copy "$(db rt_src)" "TableEndpoint=http://127.0.0.1:$HPORT/echo;SharedAccessSignature=sv=2019-02-02&sig=x" --tables Edge \
	--state "$WORK/rj3.state" --rejects "$WORK/no/such/dir/r.jsonl"
check "a rejects file that cannot be written: exit 3 (was 1: refused entities not written down)" [ $? -eq 3 ]
# the checkpoint: one run at a time, and --resume/--sync only with what made it
flock -o "$WORK/kr.state.lock" sleep 30 &
fl_pid=$!
for _ in $(seq 1 50); do flock -n "$WORK/kr.state.lock" true || break; sleep 0.1; done
check "a second run on a checkpoint in use: exit 3" bash -c '"$0" "$1" "$2" --resume --keep-timestamps --state "$3" >"$3.log2" 2>&1; [ $? -eq 3 ] && grep -q "another tablestore-copy" "$3.log2"' \
	"$C" "$(db kr_src)" "$(db kr_dst)" "$WORK/kr.state"
kill "$fl_pid" 2>/dev/null; wait "$fl_pid" 2>/dev/null
check "--resume with another --filter than the checkpoint's: usage, exit 2" \
	usage "$(db kr_src)" "$(db kr_dst)" --resume --keep-timestamps --filter "PartitionKey eq 'p0001'" --state "$WORK/kr.state"
check "--resume into another TO: usage, exit 2" usage "$(db kr_src)" "$(db rss_a)" --resume --keep-timestamps --state "$WORK/kr.state"
check "--resume without the --keep-timestamps the checkpoint's run had: usage, exit 2" usage "$(db kr_src)" "$(db kr_dst)" --resume --state "$WORK/kr.state"
check "--sync from another FROM than the checkpoint's: usage, exit 2" usage "$(db kr_dst)" "$(db sy_dst)" --sync --keep-timestamps --state "$WORK/sy.state"

echo "copy: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
