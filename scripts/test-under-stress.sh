#!/usr/bin/env bash
# Runs the test suite while stress-ng keeps every CPU busy, to prove that no test depends on timing
# (a correct program must not fail its tests because the machine is slow).
#
#   scripts/test-under-stress.sh                          # the README's whole `pnpm test`, beside --cpu 4
#   STRESS_CPU=8 scripts/test-under-stress.sh             # more stress workers
#   scripts/test-under-stress.sh pnpm --filter @gatehouse/store test   # any other command instead
#
# stress-ng comes from the distribution (Debian/Ubuntu: apt-get install stress-ng) and is installed
# here when missing. The stress stops when the command ends, whatever its outcome; the script exits
# with the command's status and prints the wall time and the load average seen.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v stress-ng >/dev/null 2>&1; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "stress-ng not found: installing it (apt-get)" >&2
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq stress-ng >/dev/null
fi

CPU_WORKERS="${STRESS_CPU:-4}"
if [ "$#" -eq 0 ]; then
  # The README's test command after installation (use-node.sh puts the pinned Node on PATH).
  set -- bash -c '. scripts/use-node.sh && pnpm test'
fi

stress-ng --cpu "$CPU_WORKERS" --timeout 0 --quiet &
STRESS_PID=$!
trap 'kill "$STRESS_PID" 2>/dev/null || true; wait "$STRESS_PID" 2>/dev/null || true' EXIT

started=$(date +%s)
status=0
"$@" || status=$?
elapsed=$(($(date +%s) - started))
echo "under stress-ng --cpu $CPU_WORKERS: exit $status after ${elapsed} s; load average now $(cut -d' ' -f1-3 /proc/loadavg)" >&2
exit "$status"
