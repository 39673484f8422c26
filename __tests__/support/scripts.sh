# Shared by the shell test runners (conformance/run.sh, inspector/run.sh): set RUNNER (the name their lines
# start with), source this, then call
#   say MESSAGE                     MESSAGE on stderr
#   die MESSAGE                     a setup error: the summary line counts it as one failed check; exit 2
#   npm_install_into DIR SPEC       npm install SPEC into DIR (its own package.json; the project's is untouched)
#   ensure_node22                   sets NODE22 to a Node >= 22 binary: the system node, else node@22 from npm
#   free_port FIRST                 prints the first free loopback port from FIRST
#   start_server FILE PORT LOG URL  starts FILE with tsx in its own process group; waits until URL answers
#   stop_server                     stops it (also run on EXIT once start_server was called)
# Each function returns non-zero with a message on stderr when it fails; the caller decides what that means.

SUPPORT_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
NODE22_DIR="${NODE22_DIR:-$SUPPORT_ROOT/node_modules/.cache/node22}"
server_pid=''

say() { echo "$RUNNER: $*" >&2; }
die() {
  say "setup error: $*"
  echo "$RUNNER: ${passed:-0} passed, $((${failed:-0} + 1)) failed"
  exit 2
}

npm_install_into() {
  local dir="$1" spec="$2"
  mkdir -p "$dir" || return 1
  [[ -f "$dir/package.json" ]] || echo '{"private":true}' >"$dir/package.json"
  # --ignore-scripts=false: the node package gets its binary from its preinstall script.
  npm --prefix "$dir" install --no-audit --no-fund --no-package-lock --ignore-scripts=false --loglevel=error "$spec" >&2
}

node_major() { "$1" -e 'process.stdout.write(process.versions.node.split(".")[0])' 2>/dev/null || echo 0; }

ensure_node22() {
  NODE22="$(command -v node || true)"
  [[ -n "$NODE22" && "$(node_major "$NODE22")" -ge 22 ]] && return 0
  NODE22="$NODE22_DIR/node_modules/node/bin/node"
  [[ "$(node_major "$NODE22")" -ge 22 ]] && return 0
  echo "system node is older than 22: installing node@22 from npm into $NODE22_DIR" >&2
  npm_install_into "$NODE22_DIR" node@22 || { echo "npm install node@22 failed" >&2; return 1; }
  [[ "$(node_major "$NODE22")" -ge 22 ]] || { echo "npm install node@22 gave no working Node 22 at $NODE22" >&2; return 1; }
}

free_port() {
  node -e '
    const net = require("node:net");
    const first = Number(process.argv[1]);
    const tryPort = (p) => {
      if (p > first + 100) process.exit(1);
      const s = net.createServer().once("error", () => tryPort(p + 1)).listen(p, "127.0.0.1", () => s.close(() => console.log(p)));
    };
    tryPort(first);' "$1" || { echo "no free port from $1" >&2; return 1; }
}

stop_server() {
  [[ -n "$server_pid" ]] || return 0
  # The server runs in its own process group (setsid): tsx and the node it starts go together.
  kill -TERM -- "-$server_pid" 2>/dev/null
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    kill -0 -- "-$server_pid" 2>/dev/null || { server_pid=''; return 0; }
    sleep 0.2
  done
  kill -KILL -- "-$server_pid" 2>/dev/null
  server_pid=''
}

start_server() {
  local file="$1" port="$2" log="$3" url="$4" tsx="$SUPPORT_ROOT/node_modules/.bin/tsx"
  [[ -x "$tsx" ]] || { echo "tsx not found at $tsx (run npm install first)" >&2; return 1; }
  [[ -f "$file" ]] || { echo "server not found: $file" >&2; return 1; }
  trap stop_server EXIT
  trap 'stop_server; exit 130' INT
  trap 'stop_server; exit 143' TERM
  PORT="$port" setsid "$tsx" "$file" >"$log" 2>&1 &
  server_pid=$!
  local code
  for _ in $(seq 1 100); do
    kill -0 "$server_pid" 2>/dev/null || break
    # Any HTTP status means it is listening.
    code="$(curl -s -o /dev/null -w '%{http_code}' -m 2 "$url" 2>/dev/null)"
    [[ -n "$code" && "$code" != 000 ]] && return 0
    sleep 0.2
  done
  sed 's/^/server: /' "$log" >&2
  echo "$(basename "$file") did not answer at $url within 20 s" >&2
  return 1
}
