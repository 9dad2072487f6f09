#!/bin/sh
# Verifier: runs from the workspace root; exit 0 = pass.
set -u
fail() { echo "FAIL: $*"; exit 1; }
f=$(mktemp)
printf '# ledger\napples,3\nbananas,5\ncherries,7\n' >"$f"
sh bin/inventory "$f" remove bananas || fail "remove exited non-zero"
grep -q '^bananas,' "$f" && fail "bananas is still in the ledger"
[ "$(cat "$f")" = "$(printf '# ledger\napples,3\ncherries,7')" ] || fail "other lines changed: $(cat "$f")"
sh bin/inventory "$f" remove cherries || fail "removing the last line failed"
[ "$(cat "$f")" = "$(printf '# ledger\napples,3')" ] || fail "last line not removed: $(cat "$f")"
echo "PASS"
