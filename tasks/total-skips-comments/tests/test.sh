#!/bin/sh
# Verifier: runs from the workspace root; writes a reward (1 = pass).
set -u
mkdir -p /logs/verifier 2>/dev/null || true
reward() { echo "$1" >"${LOGS_DIR:-/logs}/verifier/reward.txt"; }
reward 0
out=$(sh bin/inventory data/stock.csv total 2>&1) || { echo "FAIL: total exited non-zero: $out"; exit 1; }
[ "$out" = "80" ] || { echo "FAIL: total printed '$out', expected 80"; exit 1; }
f=$(mktemp)
printf '# nothing yet\n\n' >"$f"
out=$(sh bin/inventory "$f" total 2>&1) || { echo "FAIL: total of an empty ledger failed: $out"; exit 1; }
[ "$out" = "0" ] || { echo "FAIL: empty ledger totals '$out'"; exit 1; }
reward 1
echo "PASS"
