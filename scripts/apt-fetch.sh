#!/usr/bin/env bash
# apt-fetch.sh - download Debian packages (for any architecture) and unpack them into a directory,
# without root and without touching the system's dpkg/apt state.
#
# Usage: scripts/apt-fetch.sh ARCH DESTDIR PACKAGE...
#
# Why not `dpkg --add-architecture`: on Debian 12 here the foreign-arch index of bookworm-security
# can fail to download (apt-get update then exits 100), and Multi-Arch: same packages such as
# libssl-dev must have the identical version for every architecture, which the archive does not
# always offer (amd64 may be on a security update that s390x/i386 do not have yet). A private apt
# state directory with only the target architecture avoids both: it reuses the system's sources
# (and keyrings), fetches just that architecture's index, and `apt-get download` + `dpkg-deb -x`
# unpack the packages into DESTDIR (a sysroot-like tree: DESTDIR/usr/include, DESTDIR/usr/lib/...).
set -euo pipefail

if [ $# -lt 3 ]; then
	echo "usage: $0 ARCH DESTDIR PACKAGE..." >&2
	exit 2
fi
arch=$1
dest=$2
shift 2

mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/sha1kit-apt.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/debs"
: >"$work/status"

# shellcheck source=apt-private.sh
. "$(dirname "${BASH_SOURCE[0]}")/apt-private.sh"
apt_private_opts "$work" -o "APT::Architecture=$arch" -o "APT::Architectures::=$arch"

echo "apt-fetch: updating a private $arch package index"
if ! apt-get "${apt_opts[@]}" update >"$work/update.log" 2>&1; then
	# Typically one suite's index (e.g. security for a foreign arch) failed; the main suite is
	# usually there. Carry on and let the download below decide.
	n=$(grep -c '^E: Failed to fetch' "$work/update.log" || true)
	echo "apt-fetch: note: $n $arch index file(s) could not be fetched (e.g. a mirror mid-sync);" \
		"using the others (see the log below if the download fails)"
fi

echo "apt-fetch: downloading ($arch): $*"
(cd "$work/debs" && apt-get "${apt_opts[@]}" download "$@") || {
	echo "apt-fetch: error: could not download $* for $arch" >&2
	cat "$work/update.log" >&2
	exit 1
}
for deb in "$work"/debs/*.deb; do
	dpkg-deb -x "$deb" "$dest"
	echo "  unpacked $(basename "$deb")"
done
