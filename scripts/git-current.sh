#!/usr/bin/env bash
# git-current.sh - a current Git (2.55 or later) as a second reference for the comparisons with git,
# built from Debian's source package of git in sid, cached outside the repository.
#
# Usage: scripts/git-current.sh [--refresh]
#   Prints the path of the cached git program on stdout (everything else goes to stderr), e.g.
#     SHA1KIT_REF_GIT=$(scripts/git-current.sh) ctest --test-dir build/check -R cli_fsck_
#   The cache: ${SHA1KIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sha1kit}/git-VERSION/ (VERSION: the
#   Debian version without its epoch, e.g. git-2.55.0-1/bin/git). With a cached build present (made
#   by the same recipe, below) the script prints its path at once, without the network; the newest
#   one when there are several. --refresh asks sid for its current version first and builds that
#   one when it is not in the cache yet (sid keeps only its newest source package, so a version once
#   gone from sid cannot be built again: the cache keeps every one built). Needs no root.
#
# Why Debian's source package: the test machines reach Debian's archive and nothing else. The
# download goes through apt with a private state (scripts/apt-private.sh, as scripts/mingw-deps.sh
# does; the system's sources and dpkg state are not touched): one `deb-src` entry for sid, signed by
# the Debian archive keyring, so that `apt-get source --download-only` checks the .dsc, the upstream
# tarball and Debian's changes against the hashes of sid's signed InRelease. dpkg-source -x unpacks
# them with Debian's patches applied.
#
# What is built: the git program with its built-ins and templates, with the build dependencies
# Debian 12 has (a C compiler, make, zlib) and the options of Debian's own build that shape git's
# behaviour (debian/rules: NO_OPENSSL=1, i.e. SHA-1DC and git's own SHA-256, NO_RUST=1). Left out:
# gettext (NO_GETTEXT: messages stay in English, as the tests run git with LC_ALL=C anyway), Tcl/Tk,
# Perl and Python (git-gui, gitk, git-svn, git-p4, ...), libcurl and expat (http:// and https://
# remotes, git http-push): the comparisons use fsck, index-pack, verify-pack, hash-object,
# pack-objects, fast-import, commit-graph, multi-pack-index and clones over file://, none of which
# needs them. upload-pack (git clone --filter over file://) is a built-in and is kept, as
# git-upload-pack in the exec path. SKIP_DASHED_BUILT_INS leaves out the other git-CMD copies of the
# built-ins (git runs them as `git CMD`). RUNTIME_PREFIX: git finds its exec path and templates
# relative to its own executable (through /proc/self/exe), so that the tree built in a temporary
# directory can be moved into the cache. No system or global config is installed.
#
# Nothing half-installed: the source, the build and the install happen in a temporary directory
# under the cache root, and the finished tree is renamed into place at the end, after a check that
# it runs (git version, git init with its templates, git upload-pack present). A lock on the cache
# root serialises two runs that would both build. Any failure: the end of the log, one line saying
# what failed, and a non-zero exit.
set -euo pipefail

me=git-current
# shellcheck source=sid-cache.sh
. "$(dirname "${BASH_SOURCE[0]}")/sid-cache.sh"
sid_args 13 "$@"

# The oldest git this reference may be (issue #25: 2.55 or later).
min_version=2.55
suite=sid
archive=http://deb.debian.org/debian
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
# The recipe: the make options of the build. A cached tree records the recipe it was built with and
# is used only while the recipe stays the same (a change of options rebuilds).
make_opts=(
	NO_OPENSSL=1 NO_RUST=1
	NO_GETTEXT=1 NO_TCLTK=1 NO_PERL=1 NO_PYTHON=1 NO_CURL=1 NO_EXPAT=1
	SKIP_DASHED_BUILT_INS=1 RUNTIME_PREFIX=1
	gitexecdir=libexec/git-core template_dir=share/git-core/templates
	CFLAGS=-O2 V=1
)
recipe="sha1kit git-current 1: ${make_opts[*]}"
stamp_name=.sha1kit-git-current

# cached: the newest git-*/ in the cache built by this recipe (its bin/git on stdout), else false.
cached() { sid_cached git "$stamp_name" "$recipe" bin/git; }

if [ "$refresh" = 0 ] && cached; then
	exit 0
fi

for tool in apt-get dpkg-source dpkg make cc flock; do
	command -v "$tool" >/dev/null || die "$tool not found (scripts/install-deps.sh installs it)"
done
[ -r "$keyring" ] || die "$keyring not found (the debian-archive-keyring package)"
echo '#include <zlib.h>' | cc -E - >/dev/null 2>&1 || die "zlib.h not found (zlib1g-dev; scripts/install-deps.sh installs it)"

sid_cache_lock git-current
root=$sid_cache_root
# Another run may have finished the build while this one waited for the lock.
if [ "$refresh" = 0 ] && cached; then
	exit 0
fi

t0=$(date +%s)
work=$(mktemp -d "$root/.git-current.XXXXXX") || die "cannot create a temporary directory in $root"
# SHA1KIT_GIT_CURRENT_KEEP=1 keeps the temporary directory of a failed run, to look into.
cleanup() {
	local rc=$?
	if [ "$rc" != 0 ] && [ -n "${SHA1KIT_GIT_CURRENT_KEEP:-}" ]; then
		echo "$me: kept $work" >&2
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT
mkdir -p "$work/stage"
sid_apt "$work" "deb-src [signed-by=$keyring] $archive $suite main"
dversion=$(apt-cache "${apt_opts[@]}" showsrc git 2>/dev/null | sed -n 's/^Version: //p' | sort -V | tail -n 1)
[ -n "$dversion" ] || die "no source package git in $suite"
version=${dversion#*:}   # 2.55.0-1: the Debian version without the epoch
upstream=${version%-*}   # 2.55.0
if dpkg --compare-versions "$upstream" lt "$min_version"; then
	die "git in $suite is $dversion, older than $min_version"
fi
dest=$root/git-$version
if [ -x "$dest/bin/git" ] && [ -f "$dest/$stamp_name" ] &&
	[ "$(sed -n 1p "$dest/$stamp_name")" = "$recipe" ]; then
	echo "$dest/bin/git"
	exit 0
fi

log "downloading the source package git $dversion"
if ! (cd "$work/dl" && apt-get "${apt_opts[@]}" source --download-only "git=$dversion") >"$work/source.log" 2>&1; then
	cat "$work/source.log" >&2
	die "could not download the source package git $dversion from $suite"
fi
dsc=$(ls "$work"/dl/git_*.dsc)
log "unpacking $(basename "$dsc") (dpkg-source -x)"
if ! dpkg-source -x "$dsc" "$work/src" >"$work/unpack.log" 2>&1; then
	cat "$work/unpack.log" >&2
	die "dpkg-source -x $(basename "$dsc") failed"
fi

jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
log "building git $upstream (make -j$jobs; a few minutes)"
if ! make -C "$work/src" -j"$jobs" "${make_opts[@]}" prefix="$dest" all >"$work/build.log" 2>&1; then
	tail -n 40 "$work/build.log" >&2
	die "building git $upstream failed (the log's end above)"
fi
if ! make -C "$work/src" "${make_opts[@]}" prefix="$dest" DESTDIR="$work/stage" install >"$work/install.log" 2>&1; then
	tail -n 40 "$work/install.log" >&2
	die "installing git $upstream into $work/stage failed (the log's end above)"
fi
new=$work/stage$dest

# The tree must run where it stands (RUNTIME_PREFIX): its version, its templates, upload-pack.
got=$("$new/bin/git" version 2>&1) || die "the built git does not run: $got"
[ "$got" = "git version $upstream" ] || die "the built git says '$got', not 'git version $upstream'"
# (git install puts git-upload-pack into bin/ only when SKIP_DASHED_BUILT_INS is set; git finds it
# there: it puts its exec path and its own directory at the front of PATH for the programs it runs)
[ -x "$new/bin/git-upload-pack" ] || die "the built tree has no bin/git-upload-pack"
if ! (
	export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null HOME="$work" GIT_AUTHOR_NAME=a \
		GIT_AUTHOR_EMAIL=a@example.com GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@example.com
	unset GIT_DIR GIT_WORK_TREE GIT_EXEC_PATH GIT_TEMPLATE_DIR
	g=$new/bin/git
	"$g" init -q "$work/probe" && [ -f "$work/probe/.git/description" ] &&
		echo probe >"$work/probe/f" && "$g" -C "$work/probe" add f &&
		"$g" -C "$work/probe" commit -qm probe && "$g" -C "$work/probe" config uploadpack.allowFilter true &&
		"$g" clone -q --filter=blob:none "file://$work/probe" "$work/probe-clone" &&
		[ -f "$work/probe-clone/f" ] && "$g" -C "$work/probe-clone" fsck --full
) >"$work/probe.log" 2>&1; then
	cat "$work/probe.log" >&2
	die "the built git does not work where it stands (init with its templates, clone --filter over file://, fsck)"
fi

printf '%s\n%s\n%s\n' "$recipe" "source: git $dversion from $archive $suite ($(basename "$dsc"))" \
	"built: $(date -u +%Y-%m-%dT%H:%M:%SZ) in $(($(date +%s) - t0)) s" >"$new/$stamp_name"
rm -rf "$dest"
mv "$new" "$dest" || die "cannot move the built tree into $dest"
log "git $upstream is in $dest, built in $(($(date +%s) - t0)) s"
echo "$dest/bin/git"
