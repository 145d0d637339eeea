#!/usr/bin/env bash
# scripts/demo.sh - installs what is missing, builds, installs, starts a throwaway cluster with
# the extension and runs the main demo (scripts/demo.sql) in psql. The cluster is removed on exit.
set -eu -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ts_setup
ts_cluster_start
createdb tablestore_demo
psql -X -v ON_ERROR_STOP=1 -d tablestore_demo -f "$TS_ROOT/scripts/demo.sql"
ts_log "demo finished"
