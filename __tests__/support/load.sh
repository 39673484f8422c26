#!/usr/bin/env bash
# Runs a command beside N CPU hogs, to see the tests on a busy machine:
#   bash __tests__/support/load.sh 8 npm test      # load average ~8 once the 1-minute average has caught up
#   bash __tests__/support/load.sh 8               # hogs only, until Ctrl-C
# The hogs run in a process group of their own and are killed when this script exits, however it exits.
set -euo pipefail

hogs="${1:?usage: load.sh N [command...]}"
shift
[[ "$hogs" =~ ^[0-9]+$ ]] || { echo "load.sh: N must be a number of hogs, got '$hogs'" >&2; exit 2; }

# One group for all hogs: setsid makes the first its leader; each busy loop is a child of that shell.
setsid bash -c "for i in \$(seq $hogs); do (while :; do :; done) & done; wait" &
group=$!
stop() { kill -KILL -- "-$group" 2>/dev/null || true; }
trap stop EXIT
trap 'exit 130' INT TERM

# The 1-minute load average follows the hogs within about a minute; TEST_TIME_SCALE reads it when jest starts.
until awk -v want="$hogs" '{ exit !($1 >= want * 0.9) }' /proc/loadavg; do sleep 5; done
echo "load.sh: $hogs hogs running, load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
if (($# > 0)); then
  "$@"
else
  wait "$group"
fi
