#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance, server scenarios) against
# demo/everything.ts.  Used by `npm run test:conformance`.
#
#   1. a Node >= 22 binary (the CLI needs it): the system node if it is >= 22, else the npm package
#      node@22 installed into node_modules/.cache/node22 (__tests__/support/scripts.sh)
#   2. @modelcontextprotocol/conformance@<version> into $CONFORMANCE_CACHE/conformance-<version>
#   3. demo/everything.ts started with tsx on a free port, killed on exit
#   4. the passes chosen by CONFORMANCE_PASSES:
#        0.1.16   conformance@0.1.16          server --suite all
#        0.2      conformance@0.2.0-alpha.12  server --requirements 2025-11-25
#        both     (default) one after the other
#   5. each pass's "Total: N passed, M failed", a per-scenario summary, and last the line
#        conformance: N passed, M failed
#      (checks summed over the passes; WARNING/INFO checks are not counted, as in the runner's own total)
#
# Exit code: 0 when every check passed; 1 when a check failed or a pass gave no total; 2 on a setup error.
#
# Environment:
#   CONFORMANCE_PASSES   0.1.16 | 0.2 | both                  (default both)
#   CONFORMANCE_CACHE    where the CLIs go                    (default node_modules/.cache/mcp-conformance)
#   CONFORMANCE_RESULTS  where results go                     (default $CONFORMANCE_CACHE/results/<timestamp>;
#                        per pass: run.log and one server-<scenario>-<ts>/checks.json per scenario)
#   CONFORMANCE_TIMEOUT  wall-clock limit of one pass, seconds (default 600)
#   PORT                 first port to try for the fixture    (default 3031; the next free one is used)
#   CONFORMANCE_FIXTURE  the fixture to start                 (default demo/everything.ts)
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CACHE="${CONFORMANCE_CACHE:-$ROOT/node_modules/.cache/mcp-conformance}"
RESULTS="${CONFORMANCE_RESULTS:-$CACHE/results/$(date +%Y%m%dT%H%M%S)}"
PASS_TIMEOUT="${CONFORMANCE_TIMEOUT:-600}"
FIXTURE="${CONFORMANCE_FIXTURE:-$ROOT/demo/everything.ts}"
V1=0.1.16
V2=0.2.0-alpha.12

passed=0
failed=0
status=0

RUNNER=conformance
# shellcheck source=../support/scripts.sh
source "$ROOT/__tests__/support/scripts.sh"

case "${CONFORMANCE_PASSES:-both}" in
  both) passes=("$V1" "$V2") ;;
  0.1.16 | "$V1") passes=("$V1") ;;
  0.2 | "$V2") passes=("$V2") ;;
  *) die "CONFORMANCE_PASSES must be 0.1.16, 0.2 or both (got '${CONFORMANCE_PASSES}')" ;;
esac

command -v npm >/dev/null || die "npm not found"

# 1. Node >= 22
ensure_node22 || die "no Node >= 22"

# 2. the conformance CLIs
cli_path() { echo "$CACHE/conformance-$1/node_modules/@modelcontextprotocol/conformance/dist/index.js"; }
for version in "${passes[@]}"; do
  pkg="$CACHE/conformance-$version/node_modules/@modelcontextprotocol/conformance/package.json"
  if ! grep -q "\"version\": \"$version\"" "$pkg" 2>/dev/null; then
    say "installing @modelcontextprotocol/conformance@$version into $CACHE/conformance-$version"
    npm_install_into "$CACHE/conformance-$version" "@modelcontextprotocol/conformance@$version" || die "npm install @modelcontextprotocol/conformance@$version failed"
  fi
  [[ -f "$(cli_path "$version")" ]] || die "conformance CLI $version not found at $(cli_path "$version")"
done

# 3. the fixture, on the first free port from $PORT
port="$(free_port "${PORT:-3031}")" || die "no free port from ${PORT:-3031}"
URL="http://127.0.0.1:$port/mcp"
mkdir -p "$RESULTS" || die "cannot create $RESULTS"
FIXTURE_LOG="$RESULTS/fixture.log"
start_server "$FIXTURE" "$port" "$FIXTURE_LOG" "$URL" || die "the fixture did not start"
say "fixture $(basename "$FIXTURE") at $URL (pid $server_pid, log $FIXTURE_LOG); results in $RESULTS"

# 4. the passes
# Per scenario: passed/failed checks and the first failure (else warning), from each checks.json.
summarize_scenarios() {
  "$NODE22" -e '
    const fs = require("node:fs"), path = require("node:path");
    const dir = process.argv[1];
    const rows = [];
    for (const entry of fs.readdirSync(dir).sort()) {
      const file = path.join(dir, entry, "checks.json");
      if (!fs.existsSync(file)) continue;
      const scenario = entry.replace(/^server-/, "").replace(/-\d{4}-\d\d-\d\dT[\d-]+Z?$/, "").replace(/-\d{8,}.*$/, "");
      let checks;
      try { checks = JSON.parse(fs.readFileSync(file, "utf8")); } catch { rows.push([scenario, "?", "unreadable checks.json"]); continue; }
      if (!Array.isArray(checks)) checks = checks.checks ?? [];
      const ok = checks.filter((c) => c.status === "SUCCESS").length;
      const bad = checks.filter((c) => c.status === "FAILURE");
      const warn = checks.filter((c) => c.status === "WARNING");
      // The first failure, else the first warning (e.g. "no session id"), else a skip notice.
      const note = bad[0] ?? warn[0] ?? (ok === 0 ? checks.find((c) => c.status === "INFO") : undefined);
      const text = note ? `${note.status === "FAILURE" ? "" : `${note.status}: `}${note.id}: ${String(note.errorMessage ?? note.description ?? "")}` : "";
      rows.push([scenario, `${ok}/${bad.length}${warn.length ? ` (${warn.length} warn)` : ""}`, text.replace(/\s+/g, " ").slice(0, 220)]);
    }
    const w = Math.max(8, ...rows.map((r) => r[0].length));
    console.log(`       ${"scenario".padEnd(w)} ${"pass/fail".padEnd(12)} first failure or warning`);
    for (const [name, counts, first] of rows) console.log(`  ${bad(counts) ? "FAIL" : "ok  "} ${name.padEnd(w)} ${counts.padEnd(12)} ${first}`.trimEnd());
    function bad(counts) { return !/^\d+\/0\b/.test(counts); }
  ' "$1"
}

for version in "${passes[@]}"; do
  out="$RESULTS/$version"
  mkdir -p "$out"
  if [[ "$version" == "$V1" ]]; then args=(--suite all); else args=(--requirements 2025-11-25); fi
  echo "=== conformance@$version: server ${args[*]} --url $URL  (node $("$NODE22" --version), limit ${PASS_TIMEOUT}s)"
  timeout --kill-after=10 "$PASS_TIMEOUT" "$NODE22" "$(cli_path "$version")" server --url "$URL" "${args[@]}" -o "$out" >"$out/run.log" 2>&1
  rc=$?
  total="$(grep -aE '^Total: [0-9]+ passed, [0-9]+ failed' "$out/run.log" | tail -1)"
  summarize_scenarios "$out"
  if [[ -z "$total" ]]; then
    [[ $rc -eq 124 || $rc -eq 137 ]] && say "conformance@$version timed out after ${PASS_TIMEOUT}s"
    say "conformance@$version printed no total (exit $rc); last lines of $out/run.log:"
    tail -20 "$out/run.log" >&2
    failed=$((failed + 1))
    status=1
    continue
  fi
  echo "conformance@$version $total"
  # 0.2.x lists the scenarios that ran but do not count for the requirements revision.
  sed -n '/^Not scored/,$p' "$out/run.log" | sed '/^$/d'
  p="$(sed -E 's/^Total: ([0-9]+) passed.*/\1/' <<<"$total")"
  f="$(sed -E 's/^Total: [0-9]+ passed, ([0-9]+) failed.*/\1/' <<<"$total")"
  passed=$((passed + p))
  failed=$((failed + f))
  [[ $rc -eq 0 && $f -eq 0 ]] || status=1
done

stop_server
echo "conformance: $passed passed, $failed failed"
exit "$status"
