#!/bin/sh
# Oracle: add a `low THRESHOLD` branch to the ledger script, and nothing else.
set -eu
awk '
/^    \*\)$/ {
    print "    low)"
    print "        [ $# -eq 1 ] || usage"
    print "        while IFS=, read -r name qty; do"
    print "            case $name in \"\" | \"#\"*) continue ;; esac"
    print "            if [ \"$qty\" -lt \"$1\" ]; then echo \"$name\"; fi"
    print "        done <\"$file\""
    print "        ;;"
}
{ print }
' bin/inventory >bin/inventory.new
mv bin/inventory.new bin/inventory
chmod +x bin/inventory
