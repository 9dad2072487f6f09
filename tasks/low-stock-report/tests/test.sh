#!/bin/sh
# Verifier: runs from the workspace root; exit 0 = pass.
set -u
fail() { echo "FAIL: $*"; exit 1; }
out=$(sh bin/inventory data/stock.csv low 20 2>&1) || fail "low exited non-zero: $out"
[ "$out" = "$(printf 'bananas\ncherries')" ] || fail "low 20 printed: $out"
out=$(sh bin/inventory data/stock.csv low 0 2>&1) || fail "low 0 exited non-zero: $out"
[ -z "$out" ] || fail "low 0 printed: $out"
echo "PASS"
