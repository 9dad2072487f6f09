#!/bin/sh
# Oracle: the ledger script with every supported command.
set -eu
cat >bin/inventory <<'SCRIPT'
#!/bin/sh
# inventory: a tiny stock ledger kept in a CSV file, one "name,qty" per line.
set -eu

usage() {
    echo "usage: inventory FILE list | add NAME QTY | remove NAME | total | low THRESHOLD" >&2
    exit 2
}

[ $# -ge 2 ] || usage
file=$1
cmd=$2
shift 2

case $cmd in
    list)
        cat "$file"
        ;;
    add)
        [ $# -eq 2 ] || usage
        echo "$1,$2" >>"$file"
        ;;
    remove)
        [ $# -eq 1 ] || usage
        grep -v "^$1," "$file" >"$file.tmp" || true
        mv "$file.tmp" "$file"
        ;;
    total)
        sum=0
        while IFS=, read -r name qty; do
            case $name in '' | '#'*) continue ;; esac
            sum=$((sum + qty))
        done <"$file"
        echo "$sum"
        ;;
    low)
        [ $# -eq 1 ] || usage
        while IFS=, read -r name qty; do
            case $name in '' | '#'*) continue ;; esac
            if [ "$qty" -lt "$1" ]; then echo "$name"; fi
        done <"$file"
        ;;
    *)
        usage
        ;;
esac
SCRIPT
chmod +x bin/inventory
