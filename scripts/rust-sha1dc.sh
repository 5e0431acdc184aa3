#!/usr/bin/env bash
# rust-sha1dc.sh - the Rust `sha1dc` crate (SHA-1 with collision detection; the DC_SHA1_RS backend
# proposed for Git, used by gitoxide) as a peer of `sha1kit bench`: a static library built from
# Debian's package of the crate with sha1kit's small C entry (bench/rust-sha1dc/src/lib.rs), cached
# outside the repository.
#
# Usage: scripts/rust-sha1dc.sh [--refresh]
#   Prints the path of the static library on stdout (everything else goes to stderr). CMake finds it
#   there by itself when sha1kit-bench is configured (programs/bench/CMakeLists.txt, option
#   SHA1KIT_BENCH_SHA1DC_RS), e.g.
#     scripts/rust-sha1dc.sh && cmake -S . -B build/dev && cmake --build build/dev
#   The cache: ${SHA1KIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sha1kit}/rust-sha1dc-VERSION/
#   (VERSION: the Debian version, e.g. rust-sha1dc-0.1.5-1/lib/libsha1kit_sha1dc_rs.a). With a build
#   of the same recipe present the script prints its path at once, without the network; --refresh
#   asks sid for its current version first. Needs cargo and rustc (1.87 or later: the crate's
#   rust-version), no root, and no crate registry: the crate has no dependencies (cargo --offline).
#
# Why the binary package: Debian ships a Rust library crate as its source tree in the package
# librust-CRATE-dev (/usr/share/cargo/registry/CRATE-VERSION/), which is what cargo builds from; its
# source package (rust-sha1dc) holds the same tree. The download goes through apt with a private
# state (scripts/apt-private.sh; the system's sources and dpkg state are not touched): one `deb`
# entry for sid signed by the Debian archive keyring, so that apt checks the package against the
# hashes of sid's signed InRelease. Nothing of it enters the repository.
set -euo pipefail

me=rust-sha1dc
# shellcheck source=sid-cache.sh
. "$(dirname "${BASH_SOURCE[0]}")/sid-cache.sh"
sid_args 16 "$@"

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
wrapper=$here/../bench/rust-sha1dc
suite=sid
archive=http://deb.debian.org/debian
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
package=librust-sha1dc-dev
libname=libsha1kit_sha1dc_rs.a
# the recipe: a change to the wrapper or the build options makes a new build
recipe="sha1kit rust-sha1dc 1: cargo build --offline --release, staticlib, $(cksum <"$wrapper/src/lib.rs" | cut -d' ' -f1)"
stamp_name=.sha1kit-rust-sha1dc

# cached: the newest rust-sha1dc-*/ in the cache built by this recipe (its library's path), else false.
cached() { sid_cached rust-sha1dc "$stamp_name" "$recipe" "lib/$libname"; }

if [ "$refresh" = 0 ] && cached; then
	exit 0
fi

for tool in apt-get dpkg-deb dpkg cargo rustc flock; do
	command -v "$tool" >/dev/null || die "$tool not found (cargo and rustc: rustup or Debian's cargo)"
done
[ -r "$keyring" ] || die "$keyring not found (the debian-archive-keyring package)"

sid_cache_lock rust-sha1dc
root=$sid_cache_root
if [ "$refresh" = 0 ] && cached; then
	exit 0
fi

t0=$(date +%s)
work=$(mktemp -d "$root/.rust-sha1dc.XXXXXX") || die "cannot create a temporary directory in $root"
trap 'rm -rf "$work"' EXIT
sid_apt "$work" "deb [signed-by=$keyring] $archive $suite main"
version=$(apt-cache "${apt_opts[@]}" show "$package" 2>/dev/null | sed -n 's/^Version: //p' | sort -V | tail -n 1)
[ -n "$version" ] || die "no package $package in $suite"
dest=$root/rust-sha1dc-${version#*:}
if [ -f "$dest/lib/$libname" ] && [ -f "$dest/$stamp_name" ] &&
	[ "$(sed -n 1p "$dest/$stamp_name")" = "$recipe" ]; then
	echo "$dest/lib/$libname"
	exit 0
fi

log "downloading $package $version"
if ! (cd "$work/dl" && apt-get "${apt_opts[@]}" download "$package=$version") >"$work/download.log" 2>&1; then
	cat "$work/download.log" >&2
	die "could not download $package $version from $suite"
fi
dpkg-deb -x "$work"/dl/*.deb "$work/pkg" || die "cannot unpack $package"
crate=$(ls -d "$work"/pkg/usr/share/cargo/registry/sha1dc-*/ 2>/dev/null | head -n 1)
[ -n "$crate" ] && [ -f "$crate/Cargo.toml" ] || die "$package holds no sha1dc crate"
crate=${crate%/}
crate_version=${crate##*/sha1dc-}

# The wrapper crate: sha1kit's lib.rs, with the unpacked crate as a path dependency.
mkdir -p "$work/wrap/src"
cp "$wrapper/src/lib.rs" "$work/wrap/src/lib.rs"
cat >"$work/wrap/Cargo.toml" <<EOF
[package]
name = "sha1kit-sha1dc-rs"
version = "0.1.0"
edition = "2024"
publish = false

[lib]
crate-type = ["staticlib"]

[dependencies]
sha1dc = { path = "$crate" }

[profile.release]
opt-level = 3
codegen-units = 1
lto = true
panic = "abort"
EOF
log "building sha1dc $crate_version with cargo $(cargo --version | cut -d' ' -f2)"
if ! (cd "$work/wrap" && SHA1KIT_SHA1DC_VERSION=$crate_version CARGO_TARGET_DIR="$work/target" \
	cargo build --offline --release --quiet) >"$work/build.log" 2>&1; then
	cat "$work/build.log" >&2
	die "cargo could not build the sha1dc crate"
fi

new=$work/out
mkdir -p "$new/lib"
cp "$work/target/release/$libname" "$new/lib/" || die "cargo made no $libname"
echo "$crate_version" >"$new/lib/version"
printf '%s\n%s\n%s\n' "$recipe" "source: $package $version from $archive $suite" \
	"built: $(date -u +%Y-%m-%dT%H:%M:%SZ) in $(($(date +%s) - t0)) s" >"$new/$stamp_name"
rm -rf "$dest"
mv "$new" "$dest" || die "cannot move the build into $dest"
log "sha1dc $crate_version is in $dest, built in $(($(date +%s) - t0)) s"
echo "$dest/lib/$libname"
