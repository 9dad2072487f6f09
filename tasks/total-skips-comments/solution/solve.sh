#!/bin/sh
# Oracle: make `total` skip blank and comment lines, and nothing else.
set -eu
awk '
{ print }
/^    total\)$/ { in_total = 1 }
in_total && /while IFS=, read -r name qty; do/ {
    print "            case $name in \"\" | \"#\"*) continue ;; esac"
    in_total = 0
}
' bin/inventory >bin/inventory.new
mv bin/inventory.new bin/inventory
chmod +x bin/inventory
