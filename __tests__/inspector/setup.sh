#!/usr/bin/env bash
# The MCP Inspector the tests pin, and a Node >= 22 to run it, both installed into node_modules/.cache on first use.
# Sourced by run.sh (then call ensure_inspector); run by itself (inspector-oauth.e2e.ts), it installs what is missing
# and prints two lines, NODE22=<node binary> and INSPECTOR_DIR=<the package's directory>, or exits 1 saying why.

INSPECTOR_VERSION=0.22.0
INSPECTOR_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
INSPECTOR_CACHE="$INSPECTOR_ROOT/node_modules/.cache/mcp-inspector"
INSPECTOR_DIR="$INSPECTOR_CACHE/$INSPECTOR_VERSION/node_modules/@modelcontextprotocol/inspector"

# shellcheck source=../support/scripts.sh
source "$INSPECTOR_ROOT/__tests__/support/scripts.sh"

# Sets NODE22 (ensure_node22) and installs @modelcontextprotocol/inspector@$INSPECTOR_VERSION when it is missing.
ensure_inspector() {
  ensure_node22 || { echo "no Node >= 22" >&2; return 1; }
  if [[ ! -f "$INSPECTOR_DIR/cli/build/cli.js" ]]; then
    echo "installing @modelcontextprotocol/inspector@$INSPECTOR_VERSION into $INSPECTOR_CACHE/$INSPECTOR_VERSION" >&2
    npm_install_into "$INSPECTOR_CACHE/$INSPECTOR_VERSION" "@modelcontextprotocol/inspector@$INSPECTOR_VERSION" || { echo "npm install @modelcontextprotocol/inspector@$INSPECTOR_VERSION failed" >&2; return 1; }
  fi
  [[ -f "$INSPECTOR_DIR/cli/build/cli.js" ]] || { echo "the Inspector is not at $INSPECTOR_DIR" >&2; return 1; }
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
  set -uo pipefail
  RUNNER=inspector-setup
  ensure_inspector || exit 1
  echo "NODE22=$NODE22"
  echo "INSPECTOR_DIR=$INSPECTOR_DIR"
fi
