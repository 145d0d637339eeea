#!/usr/bin/env bash
# scripts/demo.sh - installs what is missing, builds, installs, starts a throwaway cluster with
# the extension and runs the demo: the SQL tour (scripts/demo.sql) in psql, then
# tablestore-gateway on a free loopback port and an ordinary @azure/data-tables program against it
# (scripts/demo.mjs), then psql reading what the SDK wrote. Everything is stopped on exit.
set -eu -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ts_setup
ts_node_setup
ts_cluster_start
GW_PID=
trap '[ -z "$GW_PID" ] || { kill "$GW_PID"; wait "$GW_PID"; } 2>/dev/null; ts_cluster_stop' EXIT
createdb tablestore_demo
psql -X -v ON_ERROR_STOP=1 -d tablestore_demo -f "$TS_ROOT/scripts/demo.sql"

GW_PORT=$(ts_free_port)
ts_log "starting tablestore-gateway on 127.0.0.1:$GW_PORT (the Azure Table service protocol, database tablestore_demo)"
tablestore-gateway --port "$GW_PORT" --log quiet --dsn "host=$PGHOST port=$PGPORT user=postgres dbname=tablestore_demo" &
GW_PID=$!
for _ in $(seq 1 50); do (exec 3<>"/dev/tcp/127.0.0.1/$GW_PORT") 2>/dev/null && break; sleep 0.1; done
ts_log "an @azure/data-tables program with the connection string TableEndpoint=http://127.0.0.1:$GW_PORT/devstoreaccount1"
node "$TS_ROOT/scripts/demo.mjs" "$GW_PORT"
ts_log "the same data, from SQL"
psql -X -v ON_ERROR_STOP=1 -d tablestore_demo -c \
	"SELECT partition_key, row_key, tablestore.prop_string(properties, 'Item') AS item,
	        tablestore.prop_int32(properties, 'Quantity') AS quantity, tablestore.prop_int64(properties, 'Total') AS total,
	        tablestore.prop_datetime(properties, 'Placed') AS placed
	   FROM tablestore.query_entities('DemoOrders', 'Quantity ge 19 or Item eq ''kettle''')"
ts_log "demo finished"
