#!/usr/bin/env bash
# whole-process.sh - wall time of whole processes hashing one generated 1 GiB file, with hyperfine:
# sha1kit sum (SHA-1DC), sha1kit sum --fast, GNU sha1sum, openssl dgst -sha1 (with and without
# SHA-NI), sha1cdsum (reference SHA-1DC translation) and git hash-object (Git's SHA-1DC, blob header).
#
# git hash-object runs with core.bigFileThreshold=2g: above the default threshold (512 MiB) Git
# streams the file through zlib deflate even without -w, which takes ~8x longer than the hashing
# (49 s instead of 6 s for 1 GiB on a Xeon VM with git 2.39) and would measure zlib, not SHA-1DC.
#
# Usage: bench/whole-process.sh [--sha1kit PATH] [--file PATH] [--out DIR] [--runs N] [--size BYTES]
#   --sha1kit  the binary to measure (default: $SHA1KIT, else build/release/programs/sha1kit/sha1kit
#              in the source tree (then build/check, build/dev, build), else sha1kit on PATH)
#   --file     the input (default: $TMPDIR/sha1kit-bench-1GiB.bin); generated when missing or of the
#              wrong size: AES-128-CTR keystream of a fixed key over zeros (openssl enc), so every
#              machine hashes the same random-looking bytes (SHA-1DC's filter sees real-world rates)
#   --out      where the results go (default: $TMPDIR/sha1kit-bench-whole-process): hyperfine.json,
#              hyperfine.md, machine.txt
#   --runs     timed runs per command after one warm-up run (default 5)
#   --size     bytes of the generated file (default 1073741824)
#
# Needs: hyperfine, openssl, sha1sum (coreutils), sha1cdsum, git (Debian packages of those names).
# The file is read from the page cache (the warm-up run loads it), so this compares CPU work, not
# disk. The machine may be shared and noisy: compare medians, and ratios from the same run.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
tmp=${TMPDIR:-/tmp}
sha1kit=${SHA1KIT:-}
file=$tmp/sha1kit-bench-1GiB.bin
out=$tmp/sha1kit-bench-whole-process
runs=5
size=1073741824

die() {
	echo "whole-process: $*" >&2
	exit 1
}

while [ $# -gt 0 ]; do
	case "$1" in
	--sha1kit) sha1kit=$2; shift 2 ;;
	--file) file=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--size) size=$2; shift 2 ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
done

if [ -z "$sha1kit" ]; then
	# the README's Release build, then other builds of the tree, then PATH
	for b in release check dev ""; do
		if [ -x "$repo/build/${b:+$b/}programs/sha1kit/sha1kit" ]; then
			sha1kit=$repo/build/${b:+$b/}programs/sha1kit/sha1kit
			break
		fi
	done
	[ -n "$sha1kit" ] || sha1kit=$(command -v sha1kit || true)
fi
{ [ -n "$sha1kit" ] && [ -x "$sha1kit" ]; } || die "no sha1kit binary: build it or pass --sha1kit PATH"
sha1kit=$(cd "$(dirname "$sha1kit")" && pwd)/$(basename "$sha1kit")
for tool in hyperfine openssl sha1sum sha1cdsum git; do
	command -v "$tool" >/dev/null || die "'$tool' not found (Debian package: $tool, hyperfine: hyperfine)"
done

# The input: a fixed AES-128-CTR keystream (not /dev/urandom: runs on different days and machines
# hash the same bytes).
key=000102030405060708090a0b0c0d0e0f
iv=00000000000000000000000000000000
if [ ! -f "$file" ] || [ "$(stat -c %s "$file")" != "$size" ]; then
	echo "whole-process: generating $file ($size bytes)" >&2
	head -c "$size" /dev/zero | openssl enc -aes-128-ctr -K "$key" -iv "$iv" -nosalt >"$file.tmp"
	mv "$file.tmp" "$file"
fi
digest=$(openssl dgst -sha1 -r "$file" | cut -d' ' -f1)
# The default file is the same on every machine (its SHA-1 changes only with the generator above).
if [ "$size" = 1073741824 ] && [ "$digest" != 7422a3ca03a78a65526917c35dfdc752a66f2b66 ]; then
	die "$file: SHA-1 $digest is not that of the generated file: delete it to regenerate"
fi

mkdir -p "$out"
{
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //') ($(nproc) CPUs)"
	echo "cpu flags: $(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -xE 'ssse3|sse4_1|avx2|bmi2|sha_ni|avx512f' | tr '\n' ' ')"
	echo "kernel: $(uname -srm)"
	"$sha1kit" --version | sed 's/^/sha1kit: /'
	echo "openssl: $(openssl version)"
	echo "sha1sum: $(sha1sum --version | head -1)"
	echo "sha1cdsum: $(sha1cdsum --version 2>&1 | head -1)"
	echo "git: $(git --version)"
	echo "hyperfine: $(hyperfine --version)"
	echo "file: $file ($size bytes, SHA-1 $digest)"
} >"$out/machine.txt"
cat "$out/machine.txt" >&2

# Every tool must agree on the digest before it is timed (git hashes a blob: its own check).
for cmd in "$sha1kit sum" "$sha1kit sum --fast" "sha1sum" "sha1cdsum"; do
	got=$($cmd "$file" | cut -d' ' -f1)
	[ "$got" = "$digest" ] || die "'$cmd' gives $got, expected $digest"
done
blob=$( (printf 'blob %s\0' "$size"; cat "$file") | openssl dgst -sha1 -r | cut -d' ' -f1)
[ "$(git -c core.bigFileThreshold=2g hash-object "$file")" = "$blob" ] || die "git hash-object disagrees with the blob SHA-1"

# hyperfine --shell=none splits each command like a shell: quote the paths.
q_sha1kit=$(printf '%q' "$sha1kit")
q_file=$(printf '%q' "$file")
cd "$tmp" # git hash-object outside any repository
hyperfine --shell=none --warmup 1 --runs "$runs" \
	--export-json "$out/hyperfine.json" --export-markdown "$out/hyperfine.md" \
	--command-name "sha1kit sum" "$q_sha1kit sum $q_file" \
	--command-name "sha1kit sum --fast" "$q_sha1kit sum --fast $q_file" \
	--command-name "sha1sum" "sha1sum $q_file" \
	--command-name "openssl dgst -sha1" "openssl dgst -sha1 $q_file" \
	--command-name "openssl dgst -sha1 (no SHA-NI)" "env OPENSSL_ia32cap=:~0x20000000 openssl dgst -sha1 $q_file" \
	--command-name "sha1cdsum" "sha1cdsum $q_file" \
	--command-name "git hash-object" "git -c core.bigFileThreshold=2g hash-object $q_file"

echo "whole-process: results in $out/hyperfine.json and $out/hyperfine.md" >&2
