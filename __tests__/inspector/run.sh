#!/usr/bin/env bash
# The MCP Inspector's CLI mode (@modelcontextprotocol/inspector --cli), a real client, against the running
# demo (demo/server.ts): lists and calls tools, reads resources, gets a prompt, and is refused without the
# token. Used by `npm run test:inspector`.
#
#   1. Node >= 22 (the Inspector needs it) and @modelcontextprotocol/inspector@$INSPECTOR_VERSION, both
#      installed into node_modules/.cache on first use
#   2. the demo on a free port with a known token (MCP_TOKEN), killed on exit
#   3. each check: the Inspector command, its output (saved in $INSPECTOR_RESULTS/<check>.txt), and a
#      condition on that output; last the line
#        inspector: N passed, M failed
#
# Exit code: 0 when every check passed; 1 when one failed; 2 on a setup error.
# Environment: INSPECTOR_RESULTS (default node_modules/.cache/mcp-inspector/results/<timestamp>),
#              PORT (first port to try, default 3061)
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export MCP_TOKEN="inspector-check-token"

passed=0
failed=0

RUNNER=inspector
# shellcheck source=setup.sh
source "$ROOT/__tests__/inspector/setup.sh"
RESULTS="${INSPECTOR_RESULTS:-$INSPECTOR_CACHE/results/$(date +%Y%m%dT%H%M%S)}"
CLI="$INSPECTOR_DIR/cli/build/cli.js"

# 1. Node 22 and the Inspector
ensure_inspector || die "no Node >= 22 or no Inspector (see above)"

# 2. the demo
port="$(free_port "${PORT:-3061}")" || die "no free port"
URL="http://127.0.0.1:$port/mcp"
mkdir -p "$RESULTS" || die "cannot create $RESULTS"
start_server "$ROOT/demo/server.ts" "$port" "$RESULTS/demo.log" "$URL" || die "the demo did not start"
say "demo at $URL; outputs in $RESULTS; Inspector $INSPECTOR_VERSION on node $("$NODE22" --version)"

# 3. the checks.  check NAME CONDITION TOKEN ARGS...: runs the Inspector with ARGS and bearer TOKEN, then
# CONDITION, a JavaScript expression over `out` (the output parsed as JSON, or its text when it is not JSON)
# and `code` (the exit code), must be true.
check() {
  local name="$1" condition="$2" token="$3"
  shift 3
  local output="$RESULTS/$name.txt" code
  echo "\$ npx @modelcontextprotocol/inspector --cli $URL --transport http --header 'Authorization: Bearer …' $*"
  timeout 60 "$NODE22" "$CLI" --cli "$URL" --transport http --header "Authorization: Bearer $token" "$@" >"$output" 2>&1
  code=$?
  if node -e '
      const fs = require("node:fs");
      const [file, code, condition] = process.argv.slice(1);
      const text = fs.readFileSync(file, "utf8");
      let out = text;
      try { out = JSON.parse(text); } catch {}
      const ok = new Function("out", "code", `return (${condition});`)(out, Number(code));
      // What the Inspector printed, compacted to a few lines.
      const shown = typeof out === "string" ? out.trim() : JSON.stringify(out);
      console.log(shown.length > 400 ? `${shown.slice(0, 400)} …` : shown);
      process.exit(ok ? 0 : 1);' "$output" "$code" "$condition"; then
    echo "  ok   $name"
    passed=$((passed + 1))
  else
    echo "  FAIL $name (exit $code): expected $condition"
    failed=$((failed + 1))
  fi
}

check tools-list 'code === 0 && out.tools.map((t) => t.name).join() === "audit_inventory,premium_stock_forecast,order_form,list_customers,get_customer,list_orders,get_order,place_order,cancel_order,list_products,get_product,restock_product,notes__add_note,notes__search_notes,notes__reindex_notes,roaster__roast_schedule,roaster__plan_tasting"' \
  "$MCP_TOKEN" --method tools/list
check call-audit-inventory 'code === 0 && out.structuredContent.products === 10 && out.structuredContent.lowStock.join() === "p2,p4,p7,p9"' \
  "$MCP_TOKEN" --method tools/call --tool-name audit_inventory --tool-arg delayMs=0
check call-get-product 'code === 0 && out.structuredContent.name === "Burr grinder"' \
  "$MCP_TOKEN" --method tools/call --tool-name get_product --tool-arg id=p3
check call-get-customer 'code === 0 && out.structuredContent.orders[0].id === "o1001"' \
  "$MCP_TOKEN" --method tools/call --tool-name get_customer --tool-arg id=c1
check call-bad-arguments 'code === 0 && out.isError === true && /units/.test(out.content[0].text)' \
  "$MCP_TOKEN" --method tools/call --tool-name restock_product --tool-arg id=p1 units=0
# `--tool-arg id=1001` is sent as the number 1001: a bridged route's path and query values are text on the wire, so
# the router takes the number as "1001" (the route answers its own 404 for that id, not "id: must be string").
check call-numeric-path-param 'code === 0 && out.isError === true && /No order .1001/.test(out.content[0].text)' \
  "$MCP_TOKEN" --method tools/call --tool-name get_order --tool-arg id=1001
check call-numeric-query-param 'code === 0 && out.isError !== true && /"orders":\[\]/.test(out.content[0].text)' \
  "$MCP_TOKEN" --method tools/call --tool-name list_orders --tool-arg customerId=7
check resources-list 'code === 0 && out.resources[0].uri === "store://catalog"' \
  "$MCP_TOKEN" --method resources/list
check templates-list 'code === 0 && out.resourceTemplates.map((t) => t.uriTemplate).join() === "product://{id},customer://{id},skill://{+path},notes+notes://note/{id}"' \
  "$MCP_TOKEN" --method resources/templates/list
check resource-read 'code === 0 && JSON.parse(out.contents[0].text).id === "p1"' \
  "$MCP_TOKEN" --method resources/read --uri product://p1
check prompt-get 'code === 0 && /budget of 100 euros and espresso brewing/.test(out.messages[0].content.text)' \
  "$MCP_TOKEN" --method prompts/get --prompt-name recommend --prompt-args budget=100 style=espresso
# The notes server the demo mounts as a gateway upstream (demo/upstream.ts), under the prefix notes.
check call-upstream-tool 'code === 0 && out.structuredContent.notes.length === 1 && out.structuredContent.notes[0].title === "Grinder settings"' \
  "$MCP_TOKEN" --method tools/call --tool-name notes__search_notes --tool-arg query=grinder
check upstream-resource-read 'code === 0 && out.contents[0].uri === "notes+notes://all" && JSON.parse(out.contents[0].text).length === 2' \
  "$MCP_TOKEN" --method resources/read --uri notes+notes://all
# The roaster the demo runs as a child process and mounts over stdio (demo/stdio-upstream.ts), under the prefix roaster.
check call-stdio-upstream-tool 'code === 0 && out.structuredContent.totalKg === 24 && out.structuredContent.roasts.every((r) => r.coffee === "House espresso blend")' \
  "$MCP_TOKEN" --method tools/call --tool-name roaster__roast_schedule --tool-arg coffee=espresso
check wrong-token 'code !== 0 && /401|Unauthorized/.test(String(out))' \
  "not-the-token" --method tools/list

stop_server
echo "inspector: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
