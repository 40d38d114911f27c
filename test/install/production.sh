#!/usr/bin/env bash
# A production install as a user makes it (make test-install): pack the service with npm pack
# (prepack builds sdk/dist/ and dist/), install the tarball's package with `npm install --omit=dev`
# in a clean folder, start it on its embedded default, check /readyz and /docs, and use the command
# line against it. Fails on any engine warning during the install or the start.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# Outside the clone: Node looks for packages in every parent folder, and the clone's node_modules
# would stand in for anything the package failed to ship.
work="$(mktemp -d "${TMPDIR:-/tmp}/listkeeper-install.XXXXXX")"
chmod 755 "$work"
server_pid=""
cleanup() {
  local status=$?
  if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    for _ in $(seq 1 60); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.5; done
  fi
  [[ $status -eq 0 ]] && rm -rf "$work" || echo "install check: files kept in $work" >&2
  exit "$status"
}
trap cleanup EXIT

cd "$root"
npm pack --silent --pack-destination "$work" >/dev/null
mkdir "$work/app"
tar -xzf "$work"/listkeeper-*.tgz -C "$work/app" --strip-components=1
cd "$work/app"
npm install --omit=dev --no-audit --no-fund >"$work/install.log" 2>&1 || { cat "$work/install.log" >&2; exit 1; }
if grep -E "EBADENGINE|Unsupported engine" "$work/install.log"; then echo "install check: the install printed an engine warning" >&2; exit 1; fi
test ! -d node_modules/typescript || { echo "install check: a dev dependency (typescript) was installed" >&2; exit 1; }

port="$(node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")"
env -u DATABASE_URL PORT="$port" LISTKEEPER_DATA_DIR="$work/data" EMBEDDINGS=none LOG_FORMAT=json node dist/src/main.js >"$work/server.log" 2>&1 &
server_pid=$!
for i in $(seq 1 120); do
  curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; echo "install check: the server exited" >&2; exit 1; }
  sleep 0.5
done
curl -fsS "http://127.0.0.1:$port/readyz" | grep -q '"ready":true'
curl -fsS "http://127.0.0.1:$port/docs/assets/swagger-ui-bundle.js" -o /dev/null
# The web app's stylesheet, script and htmx ship in the package and are served by it.
signin="$(curl -fsS "http://127.0.0.1:$port/signin")"
for asset in $(grep -oE '/assets/[a-z]+\.[0-9a-f]+\.(css|js|min\.js)' <<<"$signin"); do curl -fsS "http://127.0.0.1:$port$asset" -o /dev/null; done
[ "$(grep -coE '/assets/' <<<"$signin")" -ge 3 ] || { echo "install check: the sign-in page links no assets" >&2; exit 1; }
if grep -iE "Unsupported runtime|EBADENGINE|ExperimentalWarning" "$work/server.log"; then echo "install check: the start printed a runtime warning" >&2; exit 1; fi
grep -q "listening on http://127.0.0.1:$port" "$work/server.log"
# The command line of the installed package: an admin command makes an account and a key on the server's
# own database, and the commands for people (which run through the SDK bundled in the package) use them.
node bin/listkeeper.js --version | grep -qE '^[0-9]+\.[0-9]+\.[0-9]+'
cli() { env -u DATABASE_URL LISTKEEPER_DATA_DIR="$work/data" XDG_CONFIG_HOME="$work/config" node bin/listkeeper.js "$@"; }
cli user create --email install@example.com --name Install >/dev/null
key="$(cli apikey create --email install@example.com 2>/dev/null)"
cli login --url "http://127.0.0.1:$port" --key "$key" | grep -q "Signed in to http://127.0.0.1:$port as install@example.com"
cli add "Check the install" --due "tomorrow 9am" | grep -q "^Added 'Check the install' to Tasks"
cli ls | grep -q "Check the install"
echo "install check: packed, installed with --omit=dev and started on Node $(node --version) (port $port)"
