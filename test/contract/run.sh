#!/usr/bin/env bash
# Contract fuzzing (make contract / make contract-deep): starts the built server on a fresh
# embedded database in a temporary data folder on a free port, creates a test account and its
# API key with the CLI, and runs Schemathesis against /api/v1/openapi.json with every default
# check and stateful testing along the spec's links. The server is stopped whatever happens.
#
# Settings (environment):
#   CONTRACT_EXAMPLES   test cases per operation and phase (default 100)
#   CONTRACT_MAX_TIME   optional time budget in seconds for the whole Schemathesis run
#   CONTRACT_SEED       optional seed, to replay a run (the seed is printed at the end)
#   CONTRACT_WORKERS    Schemathesis workers (default 2)
#   SCHEMATHESIS        the schemathesis command (default .venv/bin/schemathesis)
# Schemathesis loads test/contract/hooks.py first: it keeps its worker threads out of Python
# 3.11's ast.parse at the same time (the file says why).
# Extra arguments are passed to `schemathesis run` as they are (e.g. --include-operation-id get_item).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"

examples="${CONTRACT_EXAMPLES:-100}"
workers="${CONTRACT_WORKERS:-2}"
schemathesis="${SCHEMATHESIS:-$root/.venv/bin/schemathesis}"
out="$root/.tmp/contract"          # logs and reports of the last run, kept for reading
[[ -x "$schemathesis" ]] || { echo "contract: $schemathesis not found; run 'make contract' (it installs Schemathesis into .venv)." >&2; exit 2; }
[[ -f dist/src/main.js ]] || { echo "contract: dist/src/main.js not found; run 'make build' first." >&2; exit 2; }

mkdir -p "$root/.tmp"
rm -rf "$out" && mkdir -p "$out"
# As root the embedded Postgres runs as user postgres: the data folder must be enterable by it.
work="$(mktemp -d "$root/.tmp/contract-data.XXXXXX")"
chmod 755 "$work"
server_pid=""

stop_server() {
  local status=$?
  trap - EXIT INT TERM
  if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    for _ in $(seq 1 60); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.5; done
    if kill -0 "$server_pid" 2>/dev/null; then
      echo "contract: the server did not stop within 30 s of SIGTERM; killing it." >&2
      kill -KILL "$server_pid" 2>/dev/null || true
    fi
  fi
  # A killed server leaves its Postgres running: stop that one too (fast shutdown).
  local pidfile="$work/pg/pgdata/postmaster.pid"
  if [[ -f "$pidfile" ]]; then
    local pg_pid
    pg_pid="$(head -n1 "$pidfile")"
    if [[ -n "$pg_pid" ]] && kill -0 "$pg_pid" 2>/dev/null && [[ "$(cat "/proc/$pg_pid/comm" 2>/dev/null)" == postgres ]]; then
      kill -INT "$pg_pid" 2>/dev/null || true
      for _ in $(seq 1 40); do kill -0 "$pg_pid" 2>/dev/null || break; sleep 0.5; done
    fi
  fi
  cp "$work/pg/postgres.log" "$out/postgres.log" 2>/dev/null || true
  rm -rf "$work"
  exit "$status"
}
trap stop_server EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

port="$(node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")"
base="http://127.0.0.1:$port"
# Only the settings named here: no DATABASE_URL (the embedded Postgres in $work), both rate
# limits (per key and per address) raised explicitly so the fuzzer is not throttled.
server_env=(env -u DATABASE_URL PORT="$port" HOST=127.0.0.1 BASE_URL="$base" LISTKEEPER_DATA_DIR="$work" RATE_LIMIT_PER_MINUTE=1000000 RATE_LIMIT_PER_ADDRESS_PER_MINUTE=1000000 LOG_LEVEL="${CONTRACT_LOG_LEVEL:-warn}")

echo "contract: starting listkeeper on $base (data in $work)"
"${server_env[@]}" node dist/src/main.js >"$out/server.log" 2>&1 &
server_pid=$!
for i in $(seq 1 240); do
  if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "contract: the server exited while starting; its log:" >&2
    cat "$out/server.log" >&2
    exit 1
  fi
  curl -sf "$base/readyz" >/dev/null 2>&1 && break
  [[ $i -eq 240 ]] && { echo "contract: the server was not ready after 120 s." >&2; exit 1; }
  sleep 0.5
done

# Two accounts: Schemathesis works as "owner" and replays owner's reads as "other"
# (object_level_authorization), which must not see owner's objects.
auth_file="$work/auth.json"
entries=()
for who in owner other; do
  email="contract-$who@example.com"
  "${server_env[@]}" node bin/listkeeper.js user create --email "$email" --name "Contract $who" --timezone Europe/London >/dev/null
  key="$("${server_env[@]}" node bin/listkeeper.js apikey create --email "$email" 2>/dev/null)"
  [[ "$key" == lk_* ]] || { echo "contract: could not create an API key for $email." >&2; exit 1; }
  # A key that did not work would turn every call into a 401, which the checks accept.
  curl -sf -o /dev/null -H "Authorization: Bearer $key" "$base/api/v1/lists" || { echo "contract: the API key of $email is refused." >&2; exit 1; }
  entries+=("{\"name\": \"$who\", \"fixedHeaders\": [{\"name\": \"Authorization\", \"value\": \"Bearer $key\"}]}")
  [[ "$who" == owner ]] && owner_key="$key"
done
(umask 077 && printf '{"auth": [%s, %s]}\n' "${entries[0]}" "${entries[1]}" >"$auth_file")
# Automations have no create operation: one made with the CLI gives the automation operations
# (through the list_automations links) something real to read and run.
printf '{"name": "Contract digest", "schedule": "0 9 * * 1", "actions": [{"type": "createItems", "items": [{"title": "From an automation"}]}]}\n' >"$work/automation.json"
"${server_env[@]}" node bin/listkeeper.js automation create --email contract-owner@example.com --file "$work/automation.json" >/dev/null
export LISTKEEPER_CONTRACT_AUTH="$auth_file"

# Real item ids for the operations that look an item up: a generated id is a 404, so get_item,
# the chat operations and update_items would seldom get past the lookup. They draw an id from
# this dictionary half the time (random the other half), in a copy of the settings with the
# dictionary added; test/contract/schemathesis.toml itself needs no running server.
item_ids="$(curl -sf -H "Authorization: Bearer $owner_key" -H 'Content-Type: application/json' \
  -d '{"items": [{"title": "Contract task one", "body": "A first body"}, {"title": "Contract task two"}, {"title": "Contract task three", "body": "- [ ] a step"}, {"title": "Contract task four"}, {"title": "Contract task five"}]}' \
  "$base/api/v1/items" | node -e 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>console.log(JSON.parse(s).items.map((i)=>JSON.stringify(i.id)).join(", ")))')"
[[ -n "$item_ids" ]] || { echo "contract: could not create the owner's items." >&2; exit 1; }
config="$out/schemathesis.toml"
{
  cat "$root/test/contract/schemathesis.toml"
  printf '\n# Added by run.sh: ids of items the owner account holds.\n[dictionaries.items]\nvalues = [%s]\n' "$item_ids"
  printf '\n[[operations]]\ninclude-operation-id = ["get_item", "read_chat_messages", "post_chat_message"]\nparameters = { "path.id" = { dictionary = "items", probability = 0.5 } }\n'
  printf '\n[[operations]]\ninclude-operation-id = "update_items"\nparameters = { "body.items[*].itemId" = { dictionary = "items", probability = 0.5 } }\n'
} >"$config"

# The arguments of the docker form in docs/testing.md (Schemathesis enables every check by default;
# --checks all says so as teams write it), plus reports; test/contract/settings.test.ts holds them together.
args=(run "$base/api/v1/openapi.json"
  --checks all
  --max-examples "$examples"
  --workers "$workers"
  --report junit --report-dir "$out"
  --no-color)
[[ -n "${CONTRACT_MAX_TIME:-}" ]] && args+=(--max-time "$CONTRACT_MAX_TIME")
[[ -n "${CONTRACT_SEED:-}" ]] && args+=(--seed "$CONTRACT_SEED")

echo "contract: schemathesis ${args[*]} $*"
started=$SECONDS
set +e
# The console copy leaves out Schemathesis' last line ("==== 1 warning in 85.91s ===="): it has
# pytest's form, and CI reads a pytest closing line that counts no passed test as a run of no
# test, although the cases were run. The log keeps it; `make test` ends on its own count.
SCHEMATHESIS_HOOKS="$root/test/contract/hooks.py" \
  "$schemathesis" --config-file "$config" "${args[@]}" "$@" 2>&1 \
  | tee "$out/schemathesis.log" | sed -E '/^=+ .* in [0-9.]+s( \([0-9:]+\))? =+$/d'
result=${PIPESTATUS[0]}
set -e

# A 500 the fuzzer did not see as such (e.g. inside a stateful step it could not shrink) still
# shows in the server's log as an unexpected error.
if grep -q '"msg":"unexpected error"' "$out/server.log"; then
  echo "contract: the server logged unexpected errors (see $out/server.log):" >&2
  grep '"msg":"unexpected error"' "$out/server.log" | head -n 5 | cut -c1-600 >&2
  [[ $result -eq 0 ]] && result=1
fi
echo "contract: Schemathesis took $((SECONDS - started)) s; logs and reports in $out"
echo "contract: CPU time of this script, then of Schemathesis, the server and the CLI together:"
times
exit "$result"
