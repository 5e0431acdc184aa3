#!/usr/bin/env bash
# pack-bench.sh - `sha1kit index-pack`, `sha1kit verify-pack` and `sha1kit fsck` against
# `git index-pack`, `git verify-pack` and `git fsck --full` on the pack of a real repository's
# history (and on repositories made of it). The script makes the pack; `sha1kit bench --git-only`
# (programs/bench/bench_git.c) times the commands.
#
# Usage: bench/pack-bench.sh --repo DIR [OPTION]...
#   --repo DIR     a clone (work tree or bare) or git directory of the repository to pack, e.g. a
#                  clone of https://github.com/git/git (not needed with --pack)
#   --tag REV      what to pack: `echo REV | git pack-objects --revs --stdout --threads=1`, i.e. the
#                  history reachable from REV (default v2.50.0)
#   --pack FILE    use this pack instead of making one
#   --work DIR     where the pack and bench's temporary files go (default:
#                  $TMPDIR/sha1kit-pack-bench); the pack is made once and kept there as
#                  pack-REV-COMMIT.pack (--rebuild to make it again); must not be inside a Git work
#                  tree or git directory: the git commands must run outside any repository
#   --sha1kit PATH the sha1kit binary (default: $SHA1KIT, else build/release/programs/sha1kit/sha1kit
#                  in the source tree (then build/check, build/dev, build), else sha1kit on PATH)
#   --git PATH     another git binary to time beside the installed one (repeatable), e.g. a Git
#                  built against libsha1kit; for verify-pack, git runs `git index-pack` from its
#                  exec path (`git --exec-path`, or $GIT_EXEC_PATH): give an installed git, or the
#                  bin-wrappers/git of a build tree, whose exec path is that tree
#   --fsck DIR     also time fsck of the repository DIR (groups fsck, fsck1): e.g. a bare
#                  repository whose only pack is the pack above and whose only ref is REV
#                  (git init --bare DIR; cp P.pack DIR/objects/pack/; git --git-dir=DIR
#                  index-pack DIR/objects/pack/P.pack; git --git-dir=DIR update-ref
#                  refs/tags/REV COMMIT); it must be sound (every fsck must exit 0)
#   --fsck-loose DIR  also time fsck of DIR holding the same history as loose objects (group
#                  fsckloose): git init --bare DIR; git --git-dir=DIR unpack-objects <P.pack; and
#                  the same ref
#   --reps N       timed runs of each command (default 5), alternating between the commands: every
#                  round runs each command once, odd rounds in one order, even rounds in the reverse
#   --only LIST    comma-separated groups to run (default all): index1, verify1, index, verify,
#                  verifypack, fsck, fsck1, fsckloose (see below; the fsck groups need --fsck or
#                  --fsck-loose)
#   --sha256       the same history with SHA-256 object IDs (issue #27): `git fast-export
#                  --signed-tags=strip REV` of --repo (submodule commits padded to 64 hex
#                  digits) imported with `git fast-import` into a new
#                  repository made with `git init --bare --object-format=sha256` (in the work
#                  directory, kept as sha256-REV-COMMIT.git; `git repack -adf` there: a full delta
#                  search, fast-import makes few deltas), then packed as above; every
#                  index-pack and verify-pack gets --object-format=sha256 (bench's
#                  --git-object-format=sha256). The fsck groups check that SHA-256 repository
#                  itself (one pack, the ref REV) unless --fsck gives another; --fsck-loose DIR
#                  must be a SHA-256 repository too. Making it takes minutes (fast-import, then
#                  the delta search of pack-objects)
#   --rebuild      make the pack again
#   -h, --help     this text
#
# Groups (bench's workload in brackets; the commands compared within a group do the same work; "git"
# is the installed git and every --git binary; `--no-rev-index` everywhere: the idx alone):
#   index1      [index-pack-1] sha1kit index-pack --threads=1 -o OUT.idx P.pack
#               git index-pack --threads=1 -o OUT.idx P.pack
#   verify1     [index-verify-1] sha1kit index-pack --verify --threads=1 P.pack (P.idx beside it)
#               git index-pack --verify --threads=1 P.pack
#   index       [index-pack] as index1 with each tool's default thread count (sha1kit: one per online CPU;
#               git 2.39 index-pack: one per CPU up to 3, 3 with 4-5 CPUs, then half the
#               CPUs, at most 20)
#   verify      [index-verify] as verify1 with the default thread counts
#   verifypack  [verify-pack] sha1kit verify-pack P.idx
#               git verify-pack P.idx           (git runs `git index-pack --verify P.pack`)
#   fsck        [fsck] sha1kit fsck --no-dangling --no-progress, in DIR  (default threads)
#               git --git-dir=DIR fsck --full --no-dangling --no-progress
#   fsck1       [fsck-1] as fsck with sha1kit fsck --threads=1 (git fsck checks packs on one thread)
#   fsckloose   [fsck-loose] as fsck on the --fsck-loose DIR
# git fsck (2.47 and later) runs `git refs verify` from its exec path: a git built from source
# must be given as the bin-wrappers/git of its build tree, or installed.
# `git index-pack --verify` needs the .idx beside the pack: it does all the work of an index-pack
# (inflate, resolve deltas, hash every object) and then compares the idx it would write with the
# existing one instead of writing it; -o writes (and fsyncs) the idx. Both tools do the same in
# both modes, so index1 and verify1 compare like with like; the issue's figure (sha1kit -o against
# git --verify) is index1's sha1kit row against verify1's git row.
#
# Before timing, the installed git writes the reference idx with `git index-pack -o`; every idx an
# index-pack writes in index1 and index is compared with it byte for byte, and fsck must print what
# git fsck printed: a difference or a failing command stops the run with one line, nothing reported.
# The git commands run with GIT_CEILING_DIRECTORIES set (outside any repository: inside one, git
# index-pack also looks every object up in the repository's object store) and with
# GIT_CONFIG_NOSYSTEM=1 and GIT_CONFIG_GLOBAL=/dev/null (git's defaults, e.g. no pack.threads).
#
# Output (standard output, Markdown): the pack (size, objects, trailer) and the sha1kit binary, then
# bench's: the machine (CPU vendor, family, model and name, online CPUs, load average at the end)
# and one table, a row per workload and tool, of medians over the runs ([min - max] of the wall
# time): wall, user and system seconds, peak RSS (MB = 10^6 bytes), minor page faults, the installed
# git's wall and CPU (user + system) time divided by the row's (above 1: faster than the installed
# git), and the row's wall and CPU time divided by sha1kit's (how many times faster sha1kit is than
# that row: the ratio against each --git).
#
# Needs: bash, git, od, and sha1kit-bench beside the sha1kit binary (built with it; `sha1kit bench`
# runs it). The pack is read from the page cache (a warm-up run loads it), so this compares CPU and
# memory, not disk. On a shared
# machine wall times are noisy: compare medians of several runs, and user + system time.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
tmp=${TMPDIR:-/tmp}
repo=
tag=v2.50.0
pack_in=
work=$tmp/sha1kit-pack-bench
sha1kit=${SHA1KIT:-}
extra_git=()
reps=5
only=index1,verify1,index,verify,verifypack,fsck,fsck1,fsckloose
fsck_dir=
fsck_loose=
rebuild=false
sha256=false

die() {
	echo "pack-bench: $*" >&2
	exit 1
}

usage() {
	sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'
}

need_arg() {
	[ $# -ge 2 ] || die "option $1 needs an argument (see --help)"
}

while [ $# -gt 0 ]; do
	case "$1" in
	--repo | --tag | --pack | --work | --sha1kit | --git | --reps | --only | --fsck | --fsck-loose) need_arg "$@" ;;
	esac
	case "$1" in
	--repo) repo=$2; shift 2 ;;
	--repo=*) repo=${1#*=}; shift ;;
	--tag) tag=$2; shift 2 ;;
	--tag=*) tag=${1#*=}; shift ;;
	--pack) pack_in=$2; shift 2 ;;
	--pack=*) pack_in=${1#*=}; shift ;;
	--work) work=$2; shift 2 ;;
	--work=*) work=${1#*=}; shift ;;
	--sha1kit) sha1kit=$2; shift 2 ;;
	--sha1kit=*) sha1kit=${1#*=}; shift ;;
	--git) extra_git+=("$2"); shift 2 ;;
	--git=*) extra_git+=("${1#*=}"); shift ;;
	--reps) reps=$2; shift 2 ;;
	--reps=*) reps=${1#*=}; shift ;;
	--only) only=$2; shift 2 ;;
	--only=*) only=${1#*=}; shift ;;
	--fsck) fsck_dir=$2; shift 2 ;;
	--fsck=*) fsck_dir=${1#*=}; shift ;;
	--fsck-loose) fsck_loose=$2; shift 2 ;;
	--fsck-loose=*) fsck_loose=${1#*=}; shift ;;
	--rebuild) rebuild=true; shift ;;
	--sha256) sha256=true; shift ;;
	-h | --help) usage; exit 0 ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
done

case "$reps" in
'' | *[!0-9]* | 0) die "--reps needs a positive number, not '$reps'" ;;
esac
for g in ${only//,/ }; do
	case "$g" in
	index1 | verify1 | index | verify | verifypack | fsck | fsck1 | fsckloose) ;;
	*) die "unknown group '$g' in --only (index1, verify1, index, verify, verifypack, fsck, fsck1, fsckloose)" ;;
	esac
done
want() {
	case "$1" in
	fsck | fsck1) [ -n "$fsck_dir" ] || return 1 ;;
	fsckloose) [ -n "$fsck_loose" ] || return 1 ;;
	esac
	case ",$only," in
	*",$1,"*) return 0 ;;
	*) return 1 ;;
	esac
}
for d in "$fsck_dir" "$fsck_loose"; do
	[ -z "$d" ] || [ -d "$d/objects" ] || die "$d is not a git directory (no objects/ in it)"
done
[ -z "$fsck_dir" ] || fsck_dir=$(cd "$fsck_dir" && pwd)
[ -z "$fsck_loose" ] || fsck_loose=$(cd "$fsck_loose" && pwd)

command -v git >/dev/null || die "git not found"
if [ -z "$sha1kit" ]; then
	for d in release check dev ''; do
		if [ -x "$src/build${d:+/$d}/programs/sha1kit/sha1kit" ]; then
			sha1kit=$src/build${d:+/$d}/programs/sha1kit/sha1kit
			break
		fi
	done
	[ -n "$sha1kit" ] || sha1kit=$(command -v sha1kit || true)
	[ -n "$sha1kit" ] || die "no sha1kit binary found (build it, or give --sha1kit PATH)"
fi
[ -x "$sha1kit" ] || die "$sha1kit is not an executable"
sha1kit=$(cd "$(dirname "$sha1kit")" && pwd)/$(basename "$sha1kit")
for i in "${!extra_git[@]}"; do
	g=${extra_git[$i]}
	if [[ "$g" != */* ]]; then
		g=$(command -v "$g") || die "--git: $g not found"
	fi
	[ -x "$g" ] || die "--git: $g is not an executable"
	extra_git[i]=$(cd "$(dirname "$g")" && pwd)/$(basename "$g")
done

mkdir -p "$work"
work=$(cd "$work" && pwd)
if git -C "$work" rev-parse --git-dir >/dev/null 2>&1; then
	die "the work directory $work is inside a Git repository: give --work DIR outside any"
fi
# From here on git must not find a repository above the work directory.
GIT_CEILING_DIRECTORIES=$(dirname "$work")
export GIT_CEILING_DIRECTORIES
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES

# --- the pack -------------------------------------------------------------------------------------
if $sha256; then
	[ -z "$pack_in" ] || die "--sha256 makes its own pack from --repo: not with --pack"
fi
if [ -n "$pack_in" ]; then
	[ -f "$pack_in" ] || die "--pack: $pack_in is not a file"
	pack_src=$(cd "$(dirname "$pack_in")" && pwd)/$(basename "$pack_in")
	name=$(basename "$pack_src" .pack)
	pack=$work/$name.pack
	if [ "$pack_src" != "$pack" ]; then
		ln -sf "$pack_src" "$pack"
	fi
	what="$pack_src"
else
	[ -n "$repo" ] || die "--repo DIR is needed to make the pack (or give --pack FILE; see --help)"
	gitdir=$(git -C "$repo" rev-parse --absolute-git-dir 2>/dev/null) ||
		gitdir=$(GIT_DIR="$repo" git rev-parse --absolute-git-dir 2>/dev/null) ||
		die "$repo is not a clone or git directory"
	commit=$(git --git-dir="$gitdir" rev-parse --verify --quiet "$tag^{commit}") ||
		die "$tag is not a commit in $gitdir (newest tags:" \
			"$(git --git-dir="$gitdir" tag -l 'v*' --sort=-v:refname | head -3 | tr '\n' ' '))"
	name=pack-${tag//\//_}-${commit:0:12}
	if $sha256; then
		# the same history with SHA-256 IDs: fast-export | fast-import into a SHA-256 repository
		s256=$work/sha256-${tag//\//_}-${commit:0:12}.git
		name=$name-sha256
		if $rebuild || [ ! -e "$s256/done" ]; then
			echo "pack-bench: importing $tag ($commit) of $gitdir into $s256 (SHA-256)" >&2
			rm -rf "$s256"
			git init -q --bare --object-format=sha256 "$s256"
			# a submodule's commit (a gitlink, mode 160000) keeps its SHA-1 in the export: it is
			# made a SHA-256-sized ID by padding it with zeros (fast-import refuses 40 digits)
			git --git-dir="$gitdir" fast-export --signed-tags=strip --tag-of-filtered-object=drop \
				--reencode=no "$tag" |
				perl -e 'binmode STDIN; binmode STDOUT;
					while (my $l = <STDIN>) {
						if ($l =~ /^data (\d+)$/) { # copied as it is: a blob may hold such lines
							print $l;
							my $n = $1;
							while ($n > 0) {
								my $r = read(STDIN, my $b, $n) or die "cut export\n";
								print $b;
								$n -= $r;
							}
							next;
						}
						$l =~ s/^M 160000 ([0-9a-f]{40}) /M 160000 ${1}000000000000000000000000 /;
						print $l;
					}' |
				git --git-dir="$s256" fast-import --quiet
			# fast-import's pack has few deltas: a full delta search, as a clone's pack had
			git --git-dir="$s256" repack -adfq
			touch "$s256/done"
			rm -f "$work/$name.pack"
		fi
		gitdir=$s256
		[ -n "$fsck_dir" ] || fsck_dir=$s256 # the fsck groups: the SHA-256 repository itself
	fi
	pack=$work/$name.pack
	if $rebuild || [ ! -s "$pack" ]; then
		echo "pack-bench: packing $tag of $gitdir into $pack" >&2
		echo "$tag" | git --git-dir="$gitdir" pack-objects --revs --stdout --threads=1 -q >"$pack.tmp"
		mv "$pack.tmp" "$pack"
	fi
	what="history of $tag ($commit) of $gitdir"
	! $sha256 || what="$what, SHA-256 object IDs"
fi
cat "$pack" >/dev/null # into the page cache

pack_bytes=$(wc -c <"$(readlink -f "$pack")")
objects=$(od -An -tu1 -j8 -N4 "$pack" | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4 }')
trailer=$(tail -c "$($sha256 && echo 32 || echo 20)" "$pack" | od -An -tx1 | tr -d ' \n')

# --- the measurement: sha1kit bench --git-only ------------------------------------------------------
# bench times every command as a child process (wait4: wall, user, system, peak RSS, minor faults),
# writes the reference idx with the git on PATH and compares every idx an index-pack writes with it.
workloads=
for g in ${only//,/ }; do
	want "$g" || continue
	case $g in
	index1) w=index-pack-1 ;;
	verify1) w=index-verify-1 ;;
	index) w=index-pack ;;
	verify) w=index-verify ;;
	verifypack) w=verify-pack ;;
	fsck) w=fsck ;;
	fsck1) w=fsck-1 ;;
	fsckloose) w=fsck-loose ;;
	esac
	workloads=${workloads:+$workloads,}$w
done
[ -n "$workloads" ] || die "nothing to run"
args=(bench --git-only --markdown --git-reps="$reps" --git-workloads="$workloads" --git="$pack")
! $sha256 || args+=(--git-object-format=sha256)
[ -z "$fsck_dir" ] || args+=(--git-repo="$fsck_dir")
[ -z "$fsck_loose" ] || args+=(--git-loose="$fsck_loose")
for x in "${extra_git[@]}"; do
	args+=(--git-binary="$x")
done
echo "## pack-bench: sha1kit against git"
echo
echo "- Pack: $what: $pack_bytes bytes, $objects objects, trailer $trailer"
kernels=$("$sha1kit" --version | grep -E '^(dc-kernel|dc-batch-kernel):' | tr '\n' ' ' | sed 's/ $//')
echo "- sha1kit: $sha1kit ($("$sha1kit" --version | head -n 1); $kernels)"
for x in "${extra_git[@]}"; do
	echo "- $x: $("$x" --version), exec path $("$x" --exec-path)"
done
echo
TMPDIR=$work SHA1KIT_BENCH_SHA1KIT=$sha1kit "$sha1kit" "${args[@]}"
