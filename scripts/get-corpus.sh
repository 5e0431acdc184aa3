#!/usr/bin/env bash
# get-corpus.sh - fetch the five SHA-1 collision test files (SHAttered PDFs, Shambles files and the
# reduced-round collision) from Debian's librust-sha1collisiondetection-dev package into DIR.
# For machines without ../shared/testdata. The oracle data files (dc-vectors.txt, ...) exist only in
# ../shared/testdata; this gives the attack corpus alone.
#
# Usage: scripts/get-corpus.sh DIR
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -ne 1 ]; then
	echo "usage: $0 DIR" >&2
	exit 2
fi
dir=$1
files=(shattered-1.pdf shattered-2.pdf sha-mbles-1.bin sha-mbles-2.bin sha1_reducedsha_coll.bin)

have=1
for f in "${files[@]}"; do [ -s "$dir/$f" ] || have=0; done
if [ "$have" = 1 ]; then
	echo "get-corpus: $dir already has the corpus"
	exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/sha1kit-corpus.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$repo/scripts/apt-fetch.sh" "$(dpkg --print-architecture)" "$tmp/root" librust-sha1collisiondetection-dev
mkdir -p "$dir"
for f in "${files[@]}"; do
	src=$(find "$tmp/root/usr/share/cargo/registry" -path '*/sha1collisiondetection-*/test/*' -name "$f" | head -1)
	if [ -z "$src" ]; then
		echo "get-corpus: error: $f not found in librust-sha1collisiondetection-dev" >&2
		exit 1
	fi
	cp "$src" "$dir/$f"
	echo "  $dir/$f"
done
