#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance) against demo/everything.ts (server
# scenarios) and __tests__/conformance/auth-fixture.ts (authorization-server scenarios).  Used by
# `npm run test:conformance`.
#
#   1. a Node >= 22 binary (the CLI needs it): the system node if it is >= 22, else the npm package
#      node@22 installed into node_modules/.cache/node22 (__tests__/support/scripts.sh)
#   2. @modelcontextprotocol/conformance@<version> into $CONFORMANCE_CACHE/conformance-<version>
#   3. demo/everything.ts started with tsx on a free port (when a server pass runs), killed on exit
#   4. the passes chosen by CONFORMANCE_PASSES:
#        0.1.16   conformance@0.1.16          server --suite all                    scored by the runner's Total
#        0.2      conformance@0.2.0-alpha.12  server --requirements 2025-11-25      scored by the runner's Total
#        2026     conformance@0.2.0-alpha.12  server --requirements 2026-07-28      scored from checks.json (below)
#        auth     conformance@0.2.0-alpha.12  authorization (both scenarios)         scored from checks.json (below)
#        both     the two 2025 passes;  all (default) the four, in that order
#   5. per pass a per-scenario summary and the line
#        conformance@<pass>: N passed, M failed
#      and last the total over the passes
#        conformance: N passed, M failed
#      (SUCCESS and FAILURE checks; WARNING/INFO/SKIPPED are not counted, as in the runner's own total)
#
# The 2026 pass: the runner's Total also counts the scenarios it runs but does not score (tasks-*), so the pass is
# scored from each scenario's checks.json, over the scenarios `list --server --requirements 2026-07-28` names plus
# the pending ones in SCORED_PENDING_2026 and the skills extension's in EXTENSION_SCENARIOS_2026 (run one by one).
# A failure matching XFAIL_2026 is counted but does not fail the run.
#
# The auth pass: the everything fixture is stopped and __tests__/conformance/auth-fixture.ts started (issuer
# http://127.0.0.1:<port>/mcp, a pre-registered public client whose redirect URI is the CLI's callback port), and
# `conformance authorization --url <issuer> --client-id … --resource <issuer> --port <callback port>` runs under
# __tests__/conformance/auth-browser.ts, which plays the browser: it follows the authorization URL the CLI prints
# (login, then the consent page answered "allow") to the CLI's callback. Scored from checks.json over the scenarios
# `list --authorization` names (one that left no checks.json is a failure).
#
# Exit code: 0 when no check failed unexpectedly; 1 when one did or a pass gave no result; 2 on a setup error.
#
# Environment:
#   CONFORMANCE_PASSES   0.1.16 | 0.2 | 2026 | auth | both | all   (default all)
#   CONFORMANCE_CACHE    where the CLIs go                    (default node_modules/.cache/mcp-conformance)
#   CONFORMANCE_RESULTS  where results go                     (default $CONFORMANCE_CACHE/results/<timestamp>;
#                        per pass: run.log and one server-<scenario>-<ts>/checks.json per scenario)
#   CONFORMANCE_TIMEOUT  wall-clock limit of one pass, seconds (default 600)
#   PORT                 first port to try for the fixture    (default 3031; the next free one is used)
#   CONFORMANCE_FIXTURE  the fixture of the server passes     (default demo/everything.ts)
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CACHE="${CONFORMANCE_CACHE:-$ROOT/node_modules/.cache/mcp-conformance}"
RESULTS="${CONFORMANCE_RESULTS:-$CACHE/results/$(date +%Y%m%dT%H%M%S)}"
PASS_TIMEOUT="${CONFORMANCE_TIMEOUT:-600}"
FIXTURE="${CONFORMANCE_FIXTURE:-$ROOT/demo/everything.ts}"
AUTH_FIXTURE="$ROOT/__tests__/conformance/auth-fixture.ts"
AUTH_BROWSER="$ROOT/__tests__/conformance/auth-browser.ts"
AUTH_CLIENT_ID=conformance-client
V1=0.1.16
V2=0.2.0-alpha.12

# Scored in the 2026 pass although the runner lists them as pending (MCP 2026-07-28 requires what they check), and
# the tasks extension's scenarios (SEP-2663, which the router serves: a regression there fails the run too).
SCORED_PENDING_2026=(json-schema-2020-12 http-header-validation http-custom-header-server-validation
  tasks-capability-negotiation tasks-dispatch-and-envelope tasks-lifecycle tasks-mrtr-composition tasks-mrtr-input
  tasks-request-headers tasks-request-state-removal tasks-required-task-error tasks-status-notifications tasks-wire-fields)
# The skills extension's scenarios (SEP-2640; the fixture serves __tests__/conformance/skills): the runner names no
# requirement set with them, so the 2026 pass runs each with --scenario (at the runner's latest revision, 2026-07-28)
# after its --requirements run, and scores them like the pending ones (a failed check, or no checks.json, fails the run).
EXTENSION_SCENARIOS_2026=(sep-2640-skills-enumeration sep-2640-skills-manifest sep-2640-skills-directory)
# The 2026 failures that do not fail the run, as scenario or scenario/check-id (globs). The only list of them:
# anything else failing fails the run, and an entry goes once its feature lands.
XFAIL_2026=(
)

passed=0
failed=0
expected_failed=0
status=0

RUNNER=conformance
# shellcheck source=../support/scripts.sh
source "$ROOT/__tests__/support/scripts.sh"

case "${CONFORMANCE_PASSES:-all}" in
  all) passes=(0.1.16 0.2 2026 auth) ;;
  both) passes=(0.1.16 0.2) ;;
  0.1.16 | "$V1") passes=(0.1.16) ;;
  0.2 | "$V2") passes=(0.2) ;;
  2026 | 2026-07-28) passes=(2026) ;;
  auth) passes=(auth) ;;
  *) die "CONFORMANCE_PASSES must be 0.1.16, 0.2, 2026, auth, both or all (got '${CONFORMANCE_PASSES}')" ;;
esac
# The runner version of a pass.
runner_of() { if [[ "$1" == 0.1.16 ]]; then echo "$V1"; else echo "$V2"; fi; }

command -v npm >/dev/null || die "npm not found"

# 1. Node >= 22
ensure_node22 || die "no Node >= 22"

# 2. the conformance CLIs
cli_path() { echo "$CACHE/conformance-$1/node_modules/@modelcontextprotocol/conformance/dist/index.js"; }
for version in $(for pass in "${passes[@]}"; do runner_of "$pass"; done | sort -u); do
  pkg="$CACHE/conformance-$version/node_modules/@modelcontextprotocol/conformance/package.json"
  if ! grep -q "\"version\": \"$version\"" "$pkg" 2>/dev/null; then
    say "installing @modelcontextprotocol/conformance@$version into $CACHE/conformance-$version"
    npm_install_into "$CACHE/conformance-$version" "@modelcontextprotocol/conformance@$version" || die "npm install @modelcontextprotocol/conformance@$version failed"
  fi
  [[ -f "$(cli_path "$version")" ]] || die "conformance CLI $version not found at $(cli_path "$version")"
done

# 3. the fixture of the server passes, on the first free port from $PORT
mkdir -p "$RESULTS" || die "cannot create $RESULTS"
if [[ " ${passes[*]} " != " auth " ]]; then
  port="$(free_port "${PORT:-3031}")" || die "no free port from ${PORT:-3031}"
  URL="http://127.0.0.1:$port/mcp"
  FIXTURE_LOG="$RESULTS/fixture.log"
  start_server "$FIXTURE" "$port" "$FIXTURE_LOG" "$URL" || die "the fixture did not start"
  say "fixture $(basename "$FIXTURE") at $URL (pid $server_pid, log $FIXTURE_LOG); results in $RESULTS"
fi

# 4. the passes
# Per scenario: passed/failed checks and the first failure (else warning), from each checks.json.
#   score_scenarios DIR                      every scenario in DIR, as the 2025 passes report them
#   score_scenarios DIR SCORED XFAIL...      also scores: only the scenarios named in SCORED (space-separated;
#                                            one that left no checks.json is one failure), the failures matching
#                                            an XFAIL entry marked expected; writes "passed failed expected" to DIR/score
score_scenarios() {
  "$NODE22" -e '
    const fs = require("node:fs"), path = require("node:path");
    const [dir, scoredList, ...xfail] = process.argv.slice(1);
    const scored = scoredList === undefined ? undefined : new Set(scoredList.split(/\s+/).filter(Boolean));
    const glob = (text) => new RegExp(`^${text.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*")}$`);
    const xfails = xfail.map((entry) => entry.split("/")).map(([scenario, check]) => [glob(scenario), check === undefined ? /./ : glob(check)]);
    const expected = (scenario, check) => xfails.some(([s, c]) => s.test(scenario) && c.test(check.id));
    const rows = [];
    const seen = new Set();
    let passed = 0, failed = 0, expectedFailed = 0;
    for (const entry of fs.readdirSync(dir).sort()) {
      const file = path.join(dir, entry, "checks.json");
      if (!fs.existsSync(file)) continue;
      const scenario = entry.replace(/^(?:authorization-)?server-/, "").replace(/-\d{4}-\d\d-\d\dT[\d-]+Z?$/, "").replace(/-\d{8,}.*$/, "");
      seen.add(scenario);
      const counted = scored === undefined || scored.has(scenario);
      let checks;
      try { checks = JSON.parse(fs.readFileSync(file, "utf8")); } catch { rows.push(["FAIL", scenario, "?", "unreadable checks.json"]); if (counted) failed++; continue; }
      if (!Array.isArray(checks)) checks = checks.checks ?? [];
      const ok = checks.filter((c) => c.status === "SUCCESS").length;
      const failures = checks.filter((c) => c.status === "FAILURE");
      const bad = failures.filter((c) => !expected(scenario, c));
      const xbad = failures.filter((c) => expected(scenario, c));
      const warn = checks.filter((c) => c.status === "WARNING");
      if (counted) { passed += ok; failed += failures.length; expectedFailed += xbad.length; }
      // The first unexpected failure, else an expected one, else the first warning (e.g. "no session id"), else a skip notice.
      const note = bad[0] ?? xbad[0] ?? warn[0] ?? (ok === 0 ? checks.find((c) => c.status === "INFO") : undefined);
      const label = !note || note.status !== "FAILURE" ? `${note?.status}: ` : bad.length === 0 ? "expected: " : "";
      const text = note ? `${label}${note.id}: ${String(note.errorMessage ?? note.description ?? "")}` : "";
      const mark = !counted ? " -- " : bad.length > 0 ? "FAIL" : xbad.length > 0 ? "xfail" : "ok  ";
      const counts = `${ok}/${failures.length}${xbad.length ? ` (${xbad.length} expected)` : ""}${warn.length ? ` (${warn.length} warn)` : ""}${counted ? "" : " unscored"}`;
      rows.push([mark, scenario, counts, text.replace(/\s+/g, " ").slice(0, 220)]);
    }
    for (const scenario of scored ?? []) {
      if (seen.has(scenario)) continue;
      rows.push(["FAIL", scenario, "0/1", "no checks.json: the scenario did not run or did not finish"]);
      failed++;
    }
    const w = Math.max(8, ...rows.map((r) => r[1].length));
    console.log(`        ${"scenario".padEnd(w)} ${"pass/fail".padEnd(12)} first failure or warning`);
    for (const [mark, name, counts, first] of rows) console.log(`  ${mark.padEnd(5)} ${name.padEnd(w)} ${counts.padEnd(12)} ${first}`.trimEnd());
    if (scored !== undefined) fs.writeFileSync(path.join(dir, "score"), `${passed} ${failed} ${expectedFailed}\n`);
  ' "$@"
}

# The scenarios the 2026 pass scores: what the runner requires for 2026-07-28, and the pending ones it must pass too.
scored_2026() {
  "$NODE22" "$(cli_path "$V2")" list --server --requirements 2026-07-28 | sed -n '/^Server scenarios/,/^Client scenarios/s/^ *- //p'
  printf '%s\n' "${SCORED_PENDING_2026[@]}" "${EXTENSION_SCENARIOS_2026[@]}"
}

# The authorization-server scenarios the auth pass scores: every one the runner has.
scored_auth() { "$NODE22" "$(cli_path "$V2")" list --authorization | sed -n 's/^ *- \([^ ]*\).*/\1/p'; }

# The auth pass: the auth fixture in place of the everything fixture, the CLI under the browser driver; scored from
# checks.json. Sets p and f.
auth_pass() {
  local out="$1" auth_port callback_port issuer scored rc total
  stop_server
  auth_port="$(free_port "${PORT:-3031}")" || { say "no free port from ${PORT:-3031}"; return 1; }
  callback_port="$(free_port $((auth_port + 1)))" || { say "no free port from $((auth_port + 1))"; return 1; }
  issuer="http://127.0.0.1:$auth_port/mcp"
  # The fixture registers the CLI's callback (http://127.0.0.1:<callback port>/callback) as its client's redirect URI.
  export CALLBACK_PORT="$callback_port"
  start_server "$AUTH_FIXTURE" "$auth_port" "$out/fixture.log" "$issuer/.well-known/openid-configuration" || { say "the auth fixture did not start"; return 1; }
  echo "=== conformance@$V2: authorization --url $issuer --client-id $AUTH_CLIENT_ID --port $callback_port  (node $("$NODE22" --version), limit ${PASS_TIMEOUT}s)"
  timeout --kill-after=10 "$PASS_TIMEOUT" "$ROOT/node_modules/.bin/tsx" "$AUTH_BROWSER" "$NODE22" "$(cli_path "$V2")" authorization \
    --url "$issuer" --client-id "$AUTH_CLIENT_ID" --resource "$issuer" --port "$callback_port" -o "$out" >"$out/run.log" 2>&1
  rc=$?
  stop_server
  total="$(grep -aE '^Total: [0-9]+ passed, [0-9]+ failed' "$out/run.log" | tail -1)"
  if [[ -z "$total" ]]; then
    [[ $rc -eq 124 || $rc -eq 137 ]] && say "conformance@auth timed out after ${PASS_TIMEOUT}s"
    say "conformance@auth printed no total (exit $rc); last lines of $out/run.log:"
    tail -20 "$out/run.log" >&2
  fi
  scored="$(scored_auth)"
  [[ -n "$scored" ]] || { say "list --authorization named no scenario"; return 1; }
  score_scenarios "$out" "$scored"
  read -r p f _ <"$out/score"
  # The runner's own Total, shown beside the score (they agree when every scenario left its checks.json).
  [[ -n "$total" ]] && echo "(runner $total)"
  echo "conformance@auth: $p passed, $f failed"
  [[ $f -eq 0 && $rc -eq 0 ]]
}

for pass in "${passes[@]}"; do
  version="$(runner_of "$pass")"
  out="$RESULTS/$pass"
  mkdir -p "$out"
  if [[ "$pass" == auth ]]; then
    p=0 f=0
    if ! auth_pass "$out"; then
      status=1
      # A setup failure left no score: one failed check, as a pass that gave no result.
      [[ $f -eq 0 ]] && f=1
    fi
    passed=$((passed + p))
    failed=$((failed + f))
    continue
  fi
  case "$pass" in
    0.1.16) args=(--suite all) ;;
    0.2) args=(--requirements 2025-11-25) ;;
    2026) args=(--requirements 2026-07-28) ;;
  esac
  echo "=== conformance@$version: server ${args[*]} --url $URL  (node $("$NODE22" --version), limit ${PASS_TIMEOUT}s)"
  timeout --kill-after=10 "$PASS_TIMEOUT" "$NODE22" "$(cli_path "$version")" server --url "$URL" "${args[@]}" -o "$out" >"$out/run.log" 2>&1
  rc=$?
  if [[ "$pass" == 2026 ]]; then
    # Scored from their checks.json below; appended to run.log after the --requirements run's Total line.
    for scenario in "${EXTENSION_SCENARIOS_2026[@]}"; do
      timeout --kill-after=10 "$PASS_TIMEOUT" "$NODE22" "$(cli_path "$version")" server --url "$URL" --scenario "$scenario" -o "$out" >>"$out/run.log" 2>&1
    done
  fi
  total="$(grep -aE '^Total: [0-9]+ passed, [0-9]+ failed' "$out/run.log" | tail -1)"
  if [[ -z "$total" ]]; then
    [[ $rc -eq 124 || $rc -eq 137 ]] && say "conformance@$version timed out after ${PASS_TIMEOUT}s"
    say "conformance@$version printed no total (exit $rc); last lines of $out/run.log:"
    tail -20 "$out/run.log" >&2
  fi
  if [[ "$pass" == 2026 ]]; then
    scored="$(scored_2026)"
    [[ "$(wc -l <<<"$scored")" -gt $((${#SCORED_PENDING_2026[@]} + ${#EXTENSION_SCENARIOS_2026[@]})) ]] || { say "list --requirements 2026-07-28 named no server scenario"; status=1; }
    score_scenarios "$out" "$scored" "${XFAIL_2026[@]}"
    read -r p f x <"$out/score"
    # The runner's Total counts what it ran (scored or not); shown, not used.
    [[ -n "$total" ]] && echo "(runner $total, unscored scenarios included)"
    echo "conformance@$pass: $p passed, $f failed ($x of them expected by XFAIL_2026)"
    [[ $((f - x)) -eq 0 && -n "$total" ]] || status=1
    expected_failed=$((expected_failed + x))
  else
    score_scenarios "$out"
    if [[ -z "$total" ]]; then
      failed=$((failed + 1))
      status=1
      continue
    fi
    # 0.2.x lists the scenarios that ran but do not count for the requirements revision.
    sed -n '/^Not scored/,$p' "$out/run.log" | sed '/^$/d'
    p="$(sed -E 's/^Total: ([0-9]+) passed.*/\1/' <<<"$total")"
    f="$(sed -E 's/^Total: [0-9]+ passed, ([0-9]+) failed.*/\1/' <<<"$total")"
    echo "conformance@$pass: $p passed, $f failed"
    [[ $rc -eq 0 && $f -eq 0 ]] || status=1
  fi
  passed=$((passed + p))
  failed=$((failed + f))
done

stop_server
echo "conformance: $passed passed, $failed failed$([[ $expected_failed -gt 0 ]] && echo " ($expected_failed of them expected)")"
exit "$status"
