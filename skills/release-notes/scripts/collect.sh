#!/bin/sh
# List merge commits since the given tag, one subject per line.
set -eu
git log --merges --format='%s' "$1..HEAD"
