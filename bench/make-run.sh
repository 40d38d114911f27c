#!/usr/bin/env bash
# Time from `make run` to "listkeeper is listening" on an unchanged tree, against the Makefile of
# another revision (default main, which rebuilt everything on each start), in alternating rounds.
# Usage: bench/make-run.sh [rounds] [revision]. Needs a built tree (make build) and tools/node22 where
# the machine's node is older. The data folder is a temporary one, started once before the rounds.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rounds="${1:-3}"
other="${2:-main}"
cd "$root"
work="$(mktemp -d "${TMPDIR:-/tmp}/lk-make-run.XXXXXX")"
chmod 755 "$work"   # the embedded Postgres runs as its own user when this is root
trap 'rm -rf "$work"' EXIT
git show "$other:Makefile" > "$work/Makefile.other"
export LISTKEEPER_DATA_DIR="$work/data"

# One start: prints the seconds from the command to the listening line, then stops the service.
start() {
  local makefile="$1" port
  port="$(node -e 'const s=require("net").createServer().listen(0,()=>{console.log(s.address().port);s.close()})')"
  local t0 log
  log="$(mktemp "$work/out.XXXXXX")"
  t0="$(date +%s.%N)"
  PORT="$port" setsid make -s -f "$makefile" run >"$log" 2>&1 &
  local pid=$!
  until grep -q 'is listening' "$log"; do
    kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; exit 1; }
    sleep 0.05
  done
  echo "$(date +%s.%N) - $t0" | bc
  kill -TERM -- "-$pid"
  wait "$pid" 2>/dev/null || true
}

start Makefile >/dev/null   # creates the data folder (initdb, migrations): not measured
echo "load before: $(cat /proc/loadavg)"
for round in $(seq "$rounds"); do
  echo "round $round: this tree $(start Makefile) s, $other $(start "$work/Makefile.other") s, load $(cut -d' ' -f1-3 /proc/loadavg)"
done
# How much of a start is make's own work (reading the Makefile, checking what is up to date).
for round in $(seq "$rounds"); do
  t0="$(date +%s.%N)"; make -s -n run >/dev/null
  echo "make -n run: $(echo "$(date +%s.%N) - $t0" | bc) s, load $(cut -d' ' -f1 /proc/loadavg)"
done
