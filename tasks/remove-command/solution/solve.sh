#!/bin/sh
# Oracle: add a `remove NAME` branch to the ledger script, and nothing else.
set -eu
awk '
/^    \*\)$/ {
    print "    remove)"
    print "        [ $# -eq 1 ] || usage"
    print "        grep -v \"^$1,\" \"$file\" >\"$file.tmp\" || true"
    print "        mv \"$file.tmp\" \"$file\""
    print "        ;;"
}
{ print }
' bin/inventory >bin/inventory.new
mv bin/inventory.new bin/inventory
chmod +x bin/inventory
