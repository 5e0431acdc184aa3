#!/bin/bash
# tests/git/test_repo.sh DRIVER [PYTHON3] - src/git/repo.c and refs.c against git 2.39.5.
#
# Builds repositories with git (non-bare, bare, linked worktrees, a .git file, GIT_DIR, alternates,
# packed refs, a loose ref over a packed one, tags, symbolic refs, detached and unborn HEADs, index
# versions 2, 3 and 4, resolve-undo), runs tests/git/repo_driver on them and compares with what git
# says: rev-parse, for-each-ref, count-objects -v, ls-files -s, write-tree, config --list,
# check-ref-format, and the stderr of `git fsck` on repositories whose refs, reflogs and index are
# broken in the ways fsck reports (the driver's fsck-roots prints those messages from this module's
# reports and callbacks). Every check compares real values; nothing is skipped.
#
# Usage with --section=NAME first: that section alone (ctest runs each as a test of its own,
# git_repo_NAME: tests/git/repo.cmake); without it, every section (a function section_NAME) in order.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../testlib.sh"
sk_section_arg "$@" && shift
D=$(realpath "$1")
PY=${2:-python3}
T=$(mktemp -d /tmp/sha1kit-repo.XXXXXX)
trap 'rm -rf "$T"' EXIT
T=$(cd "$T" && pwd -P)

# A fixed environment: no system or user config but ours, fixed identities and dates.
unset GIT_DIR GIT_WORK_TREE GIT_COMMON_DIR GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES \
	GIT_INDEX_FILE GIT_CEILING_DIRECTORIES GIT_CONFIG_GLOBAL GIT_CONFIG_SYSTEM GIT_CONFIG_COUNT \
	GIT_CONFIG_PARAMETERS XDG_CONFIG_HOME GIT_DISCOVERY_ACROSS_FILESYSTEM GIT_IMPLICIT_WORK_TREE
export HOME=$T/home GIT_CONFIG_NOSYSTEM=1 LC_ALL=C
sk_ref_git_line
export GIT_AUTHOR_NAME='A U Thor' GIT_AUTHOR_EMAIL=author@example.com GIT_AUTHOR_DATE='1700000000 +0100'
export GIT_COMMITTER_NAME='C O Mitter' GIT_COMMITTER_EMAIL=committer@example.com
export GIT_COMMITTER_DATE='1700000000 +0100'
mkdir -p "$HOME"
git config --global init.defaultBranch master
git config --global advice.detachedHead false
git config --global protocol.file.allow always

# Results go to a file: many checks run in subshells.
RESULTS=$T/results
: > "$RESULTS"
bad() {
	echo fail >> "$RESULTS"
	echo "FAIL: $*" >&2
}
# same NAME EXPECTED ACTUAL
same() {
	if [ "$2" == "$3" ]; then
		echo pass >> "$RESULTS"
	else
		bad "$1"
		diff <(printf '%s\n' "$2") <(printf '%s\n' "$3") | head -30 >&2
	fi
}
# field TEXT KEY: what follows "KEY " on the lines of TEXT that start with it (sed -n "s/^KEY //p",
# without a process)
field() {
	local line
	while IFS= read -r line; do
		[[ $line == "$2 "* ]] && printf '%s\n' "${line#"$2 "}"
	done <<<"$1"
	return 0
}

# ---- repositories ---------------------------------------------------------------------------
# need_r1: the repository $R, made by the first section that needs it.
R=$T/r1
Z=0000000000000000000000000000000000000000
need_r1() {
	[ -d "$R" ] && return
	git init -q "$R"
	(
		cd "$R"
		mkdir -p a/b dir
		echo one > a/b/file
		echo two > top
		echo three > dir/x
		git add . && git commit -qm one
		echo four >> top && git commit -qam two
		git tag light
		git tag -a -m annotated v1
		git branch side
		git branch a-b
		git branch a/b
		git branch a.b
		git branch "$(printf 'caf\303\251')"
		git notes add -m note HEAD
		git update-ref refs/remotes/origin/main HEAD~1
		git symbolic-ref refs/remotes/origin/HEAD refs/remotes/origin/main
	)
}
# need_wt: $R with the linked worktree $T/wt (made in the discovery section, or here)
need_wt() {
	need_r1
	[ -d "$T/wt" ] && return
	git -C "$R" worktree add -q "$T/wt" -b wtbranch
	mkdir -p "$T/wt/sub"
}

# ---- discovery -------------------------------------------------------------------------------
# check_discover NAME [--git-dir D]: the driver against git rev-parse in the current directory.
check_discover() {
	local name=$1
	shift
	local gd=()
	[ $# -ge 2 ] && gd=(--git-dir="$2")
	local out
	if ! out=$("$D" discover "$@" 2>&1); then
		bad "$name: driver: $out"
		return
	fi
	same "$name: git dir" "$(refgit "${gd[@]}" rev-parse --absolute-git-dir)" "$(field "$out" git_dir)"
	same "$name: common dir" "$(realpath "$(refgit "${gd[@]}" rev-parse --git-common-dir)")" "$(field "$out" common_dir)"
	same "$name: objects dir" "$(realpath "$(refgit "${gd[@]}" rev-parse --git-path objects)")" "$(field "$out" objects_dir)"
	same "$name: index" "$(realpath -m "$(refgit "${gd[@]}" rev-parse --git-path index)")" "$(field "$out" index_file)"
	same "$name: bare" "$(refgit "${gd[@]}" rev-parse --is-bare-repository)" "$(field "$out" bare)"
	local top
	top=$(refgit "${gd[@]}" rev-parse --show-toplevel 2>/dev/null) || top="(none)"
	same "$name: work tree" "$top" "$(field "$out" work_tree)"
	# How git spells the common dir in its messages: "error: bad ref for <dir>/logs/refs/heads/x..y".
	# Git 2.45+ no longer prints that line (59c50a96c5) and prints no other that names the common
	# dir, so the installed git (2.39.5 on Debian 12) is the oracle of this probe whatever the
	# reference (docs/git.md, b2).
	local common
	common=$(field "$out" common_dir)
	mkdir -p "$common/logs/refs/heads"
	: > "$common/logs/refs/heads/x..y"
	local spelled
	# (a repository with an extension 2.39.5 does not know is probed with its extensions left
	# out for the moment: the spelling depends on the layout only)
	local saved=
	if ! git "${gd[@]}" rev-parse --git-dir >/dev/null 2>&1 && [ -f "$common/config" ]; then
		saved=$T/config.probe
		cp "$common/config" "$saved" && git config -f "$common/config" --remove-section extensions 2>/dev/null
	fi
	spelled=$(git "${gd[@]}" fsck 2>&1 >/dev/null | sed -n 's|^error: bad ref for \(.*\)/logs/refs/heads/x\.\.y$|\1|p' | head -1)
	[ -z "$saved" ] || mv -f "$saved" "$common/config"
	rm -f "$common/logs/refs/heads/x..y"
	same "$name: common dir as git spells it" "$spelled" "$(field "$out" common_dir_display)"
}

# check_fatal NAME GITCMD...: the driver fails as git does, with git's message.
check_fatal() {
	local name=$1
	shift
	local want got
	want=$("$@" 2>&1 >/dev/null)
	got=$("$D" discover 2>&1 >/dev/null)
	same "$name" "$want" "$got"
}

section_discovery() {
need_r1
(cd "$R" && check_discover "top of work tree")
(cd "$R/a/b" && check_discover "subdirectory")
(cd "$R/.git" && check_discover "inside .git")
(cd "$R/.git/refs/heads" && check_discover "below .git")
(cd "$T" && check_discover "--git-dir relative" --git-dir r1/.git)
(cd "$R/a" && check_discover "--git-dir from subdir" --git-dir ../.git)
(cd "$T" && GIT_DIR=$R/.git check_discover "GIT_DIR absolute")
(cd "$R/a/b" && GIT_DIR=$R/.git GIT_WORK_TREE=$R check_discover "GIT_DIR + GIT_WORK_TREE")
(cd "$R/a" && GIT_DIR=../.git GIT_WORK_TREE=.. check_discover "GIT_DIR + GIT_WORK_TREE relative")

git clone -q --bare "$R" "$T/b.git"
(cd "$T/b.git" && check_discover "bare")
(cd "$T/b.git/refs/heads" && check_discover "bare, subdirectory")
(cd "$T" && GIT_DIR=b.git check_discover "bare, GIT_DIR relative")
(cd "$T" && check_discover "bare, --git-dir" --git-dir "$T/b.git")

need_wt
(cd "$T/wt" && check_discover "linked worktree")
(cd "$T/wt/sub" && check_discover "linked worktree, subdirectory")
(cd "$T" && GIT_DIR=$R/.git/worktrees/wt check_discover "linked worktree, GIT_DIR")

git init -q --separate-git-dir "$T/sep.git" "$T/sepwt"
mkdir -p "$T/sepwt/d"
(cd "$T/sepwt/d" && check_discover ".git file without commondir")

git init -q "$T/corebare"
git -C "$T/corebare" config core.bare true
(cd "$T/corebare" && check_discover "core.bare true in .git")

git init -q --bare "$T/cw.git"
git -C "$T/cw.git" config core.bare false
git -C "$T/cw.git" config core.worktree ../cwtree
mkdir -p "$T/cwtree/s"
(cd "$T/cwtree/s" && GIT_DIR=$T/cw.git check_discover "core.worktree")

mkdir -p "$T/objalt"
git -C "$R" rev-parse HEAD >/dev/null
(cd "$R" && GIT_OBJECT_DIRECTORY=$R/.git/objects check_discover "GIT_OBJECT_DIRECTORY")

mkdir -p "$T/norepo/x/y"
(cd "$T/norepo/x/y" && GIT_CEILING_DIRECTORIES=$T/norepo check_fatal "not a repository (ceiling)" refgit rev-parse --git-dir)
(cd "$R/a/b" && GIT_CEILING_DIRECTORIES=$R/a check_fatal "ceiling below the repository" refgit rev-parse --git-dir)
(cd "$R/a/b" && GIT_CEILING_DIRECTORIES=$R check_fatal "ceiling at the work tree" refgit rev-parse --git-dir)
(cd "$R/a/b" && GIT_CEILING_DIRECTORIES=$T:/nonexistent check_discover "ceiling above the work tree")
(cd "$T" && GIT_DIR=$T/norepo check_fatal "GIT_DIR not a repository" refgit rev-parse --git-dir)
mkdir -p "$T/gf1" "$T/gf2" "$T/gf3"
echo "gitdir: ../nowhere" > "$T/gf1/.git"
echo "nonsense" > "$T/gf2/.git"
printf 'gitdir: \n' > "$T/gf3/.git"
(cd "$T/gf1" && check_fatal ".git file to nowhere" refgit rev-parse --git-dir)
(cd "$T/gf2" && check_fatal ".git file of bad format" refgit rev-parse --git-dir)
(cd "$T/gf3" && check_fatal ".git file without a path" refgit rev-parse --git-dir)

# The v1 extensions of later Gits (refStorage 2.44, relativeWorktrees 2.48, submodulePathConfig
# 2.54) are unknown to 2.39.5: the driver checks the format as the reference git (SHA1KIT_GIT_VERSION).
for v in 2 1:extensions.foo=bar 0:extensions.objectformat=sha1 1:extensions.objectformat=sha1 \
	1:extensions.objectformat=sha3 0:extensions.worktreeconfig=maybe 1:core.repositoryformatversion=x1 \
	1:extensions.refstorage=files 0:extensions.refstorage=files 1:extensions.relativeworktrees=true \
	1:extensions.relativeWorktrees=maybe 0:extensions.relativeworktrees=false \
	1:extensions.submodulepathconfig=true 1:extensions.compatobjectformat=sha3; do
	git init -q "$T/fmt"
	git -C "$T/fmt" config core.repositoryformatversion "${v%%:*}"
	if [ "${v#*:}" != "$v" ]; then
		kv=${v#*:}
		git -C "$T/fmt" config "${kv%%=*}" "${kv#*=}"
	fi
	if refgit -C "$T/fmt" rev-parse --git-dir >/dev/null 2>&1; then
		(cd "$T/fmt" && check_discover "format $v")
	else
		(cd "$T/fmt" && check_fatal "format $v" refgit rev-parse --git-dir)
	fi
	rm -rf "$T/fmt"
done
git init -q "$T/fmt"
printf '[extensions]\n\tobjectformat\n' >> "$T/fmt/.git/config"
(cd "$T/fmt" && check_fatal "format: objectformat without a value" refgit rev-parse --git-dir)
rm -rf "$T/fmt"
# compatObjectFormat (2.43): git 2.55 keeps a second set of object IDs (or, built without Rust as
# scripts/git-current.sh builds it, dies: "compatibility hash algorithm support requires Rust");
# sha1kit refuses the repository. 2.39.5: an unknown extension.
git init -q "$T/fmt"
git -C "$T/fmt" config core.repositoryformatversion 1
git -C "$T/fmt" config extensions.compatObjectFormat sha256
if got=$(refgit -C "$T/fmt" rev-parse --git-dir 2>&1) || [[ $got == *"requires Rust"* ]]; then
	got=$(cd "$T/fmt" && "$D" discover 2>&1)
	rc=$?
	same "compatObjectFormat refused" "128 fatal: unsupported repository: extensions.compatObjectFormat is set in .git/config (sha1kit reads no object ID translation)" "$rc $got"
else
	(cd "$T/fmt" && check_fatal "format 1:extensions.compatObjectFormat=sha256" refgit rev-parse --git-dir)
fi
rm -rf "$T/fmt"
git init -q --object-format=sha256 "$T/sha256"
got=$(cd "$T/sha256" && "$D" discover 2>&1)
rc=$?
same "sha256 refused" "128 fatal: unsupported repository: extensions.objectFormat is sha256 in .git/config (this caller reads SHA-1 repositories only)" "$rc $got"

# ---- alternates --------------------------------------------------------------------------------
git clone -q --shared "$R" "$T/alt"
git init -q --bare "$T/o2.git"
git init -q --bare "$T/o3 q.git"
git init -q --bare "$T/o4.git"
{
	echo "# a comment"
	echo ""
	echo "../../../o2.git/objects"
	echo "$R/.git/objects"
	echo "\"$T/o3 q.git/objects\""
	echo "$T/missing/objects"
} >> "$T/alt/.git/objects/info/alternates"
check_alternates() {
	local name=$1
	same "$name: list" "$(refgit count-objects -v 2>/dev/null | sed -n 's/^alternate: //p' | sed 's/^"\(.*\)"$/\1/')" "$("$D" alternates 2>/dev/null)"
	same "$name: errors" "$(refgit count-objects -v 2>&1 >/dev/null)" "$("$D" alternates 2>&1 >/dev/null)"
}
(cd "$T/alt" && check_alternates "alternates file")
(cd "$T/alt" && GIT_ALTERNATE_OBJECT_DIRECTORIES="$T/o4.git/objects:../o2.git/objects" check_alternates "GIT_ALTERNATE_OBJECT_DIRECTORIES")
mkdir -p "$T/alt/sub"
(cd "$T/alt/sub" && GIT_ALTERNATE_OBJECT_DIRECTORIES="../o4.git/objects:$T/o2.git/objects:../nope/x/objects" check_alternates "GIT_ALTERNATE_OBJECT_DIRECTORIES from a subdirectory")
# a chain deeper than git follows
for i in 1 2 3 4 5 6 7 8; do git init -q --bare "$T/chain$i.git"; done
for i in 1 2 3 4 5 6 7; do echo "$T/chain$((i + 1)).git/objects" > "$T/chain$i.git/objects/info/alternates"; done
(cd "$T/chain1.git" && check_alternates "nested alternates")
}

# ---- refs ------------------------------------------------------------------------------------
section_refs_reflogs() { # leaks
need_wt
check_refs() {
	local name=$1
	same "$name: refs" "$(refgit for-each-ref --format='%(objectname) %(refname)')" "$("$D" refs 2>&1)"
}
(cd "$R" && check_refs "loose")
git -C "$R" pack-refs --all
(cd "$R" && check_refs "packed")
same "packed-refs header" "# pack-refs with: peeled fully-peeled sorted " "$(head -1 "$R/.git/packed-refs")"
git -C "$R" update-ref refs/heads/side HEAD~1  # a loose ref over its packed one
git -C "$R" update-ref refs/heads/zz/new HEAD
git -C "$R" tag -a -m second v2 HEAD~1
(cd "$R" && check_refs "loose over packed")
same "loose over packed: side" "$(git -C "$R" rev-parse HEAD~1) refs/heads/side ----" \
	"$(cd "$R" && "$D" refs --flags | grep ' refs/heads/side ')"
same "packed: master flags" "-P--" "$(cd "$R" && "$D" refs --flags | sed -n 's|.* refs/heads/master ||p')"
same "symbolic ref flags" "SP--" "$(cd "$R" && "$D" refs --flags | sed -n 's|.* refs/remotes/origin/HEAD ||p')"
same "packed-refs records" "$(grep -v '^[#^]' "$R/.git/packed-refs" | sort -k2)" \
	"$("$D" packed-refs "$R/.git/packed-refs" | awk '{print $1, $2}')"
same "packed-refs peeled" "$(grep -A1 ' refs/tags/v1$' "$R/.git/packed-refs" | sed -n 's/^\^//p')" \
	"$("$D" packed-refs "$R/.git/packed-refs" | sed -n 's|.* refs/tags/v1 ^||p')"
# an unsorted packed-refs file without the "sorted" trait
cp -a "$R" "$T/unsorted"
# reverse the records ("^" lines stay after their refs)
"$PY" - "$R/.git/packed-refs" "$T/unsorted/.git/packed-refs" <<'EOF'
import sys
lines = open(sys.argv[1]).read().splitlines(True)[1:]
recs = []
for l in lines:
    if l.startswith('^'):
        recs[-1] += l
    else:
        recs.append(l)
open(sys.argv[2], 'w').write('# pack-refs with: peeled \n' + ''.join(reversed(recs)))
EOF
(cd "$T/unsorted" && check_refs "unsorted packed-refs")
# per-worktree refs
git -C "$T/wt" update-ref refs/bisect/good-1 HEAD
git -C "$T/wt" update-ref refs/worktree/mine HEAD~1
(cd "$T/wt" && check_refs "linked worktree")
(cd "$R" && check_refs "main worktree, with a linked one")
same "resolve HEAD" "$(git -C "$R" rev-parse HEAD) refs/heads/master" "$(cd "$R" && "$D" resolve HEAD | cut -d' ' -f1,2)"
same "resolve worktrees/wt/HEAD" "$(git -C "$T/wt" rev-parse HEAD) refs/heads/wtbranch" \
	"$(cd "$R" && "$D" resolve worktrees/wt/HEAD | cut -d' ' -f1,2)"
same "resolve main-worktree/HEAD" "$(git -C "$R" rev-parse HEAD) refs/heads/master" \
	"$(cd "$T/wt" && "$D" resolve main-worktree/HEAD | cut -d' ' -f1,2)"
same "resolve a missing ref" "1" "$(cd "$R" && "$D" resolve refs/heads/nope; echo $?)"

# HEADs of worktrees
git -C "$R" worktree add -q --detach "$T/wt2" HEAD~1
same "heads from main" "$(printf '%s\n' "HEAD branch $(git -C "$R" rev-parse HEAD) refs/heads/master root" \
	"worktrees/wt2/HEAD detached $(git -C "$T/wt2" rev-parse HEAD) worktrees/wt2/HEAD root" \
	"worktrees/wt/HEAD branch $(git -C "$T/wt" rev-parse HEAD) refs/heads/wtbranch root" | sort)" \
	"$(cd "$R" && "$D" heads | sort)"
same "heads from main: main first" "HEAD" "$(cd "$R" && "$D" heads | head -1 | cut -d' ' -f1)"
same "heads from a linked worktree" "main-worktree/HEAD branch $(git -C "$R" rev-parse HEAD) refs/heads/master root" \
	"$(cd "$T/wt" && "$D" heads | head -1)"
same "current worktree HEAD" "HEAD branch $(git -C "$T/wt" rev-parse HEAD) refs/heads/wtbranch root" \
	"$(cd "$T/wt" && "$D" heads | grep '^HEAD ')"
git init -q "$T/unborn"
same "unborn HEAD" "HEAD unborn 0000000000000000000000000000000000000000 refs/heads/master" \
	"$(cd "$T/unborn" && "$D" heads 2>/dev/null)"
same "unborn HEAD notice" "notice: HEAD points to an unborn branch (master)" "$(cd "$T/unborn" && "$D" heads 2>&1 >/dev/null)"
same "no refs" "" "$(cd "$T/unborn" && "$D" refs)"

# ---- reflogs ---------------------------------------------------------------------------------
# The raw files, parsed independently: "<old> <new> <timestamp> <tz>\t<message>".
awk_reflog() {
	awk -F'\t' '{
		msg = $0; sub(/^[^\t]*\t?/, "", msg)
		if (index($0, "\t") == 0) msg = ""
		n = split($1, a, " ")
		printf "%s %s %s %s\t%s\n", a[1], a[2], a[n-1], a[n], msg
	}' "$1"
}
while read -r refname path; do
	same "reflog $refname" "$(awk_reflog "$path")" "$("$D" reflog "$path")"
done < <(cd "$R" && "$D" reflogs)
# The names fsck walks, with repeats: every worktree's own logs (per-worktree ones prefixed unless
# it is the current one), and for each linked worktree the shared logs of the common dir again.
logs_of() { (cd "$1" 2>/dev/null && find . -type f | sed 's|^\./||'); }
shared_logs() { logs_of "$R/.git/logs" | grep -v -E '^([A-Z_-]*|refs/(bisect|worktree|rewritten)/.*)$'; }
per_wt() { grep -E '^([A-Z_-]*|refs/(bisect|worktree|rewritten)/.*)$'; }
same "reflog names from main" "$({
	logs_of "$R/.git/logs"
	for id in wt wt2; do
		logs_of "$R/.git/worktrees/$id/logs" | per_wt | sed "s|^|worktrees/$id/|"
		shared_logs
	done
} | sort)" "$(cd "$R" && "$D" reflogs | cut -d' ' -f1 | sort)"
same "reflog names from the linked worktree" "$({
	logs_of "$R/.git/logs" | per_wt | sed 's|^|main-worktree/|'
	shared_logs
	logs_of "$R/.git/worktrees/wt2/logs" | per_wt | sed 's|^|worktrees/wt2/|'
	shared_logs
	logs_of "$R/.git/worktrees/wt/logs" | per_wt
	shared_logs
} | sort)" "$(cd "$T/wt" && "$D" reflogs | cut -d' ' -f1 | sort)"
# lines git skips
H1=$(git -C "$R" rev-parse HEAD)
{
	echo "$Z $H1 A U Thor <a@b> 1700000000 +0100	good one"
	echo "garbage"
	echo "$Z $H1 A U Thor <a@b> 0 +0100	timestamp zero"
	echo "$Z $H1 A U Thor <a@b> 1700000000 0100	no sign"
	echo "$Z $H1 A U Thor <a@b> 1700000000 +01	short tz"
	echo "$Z $H1 A U Thor a@b 1700000000 +0100	no email end"
	echo "$Z $H1 A U Thor <a@b>1700000000 +0100	no space"
	echo "$Z $H1 A U Thor <a@b> 1700000001 -0230"
	echo "$Z $H1 A U Thor <a@b> 1700000002 +0000 no tab"
	printf '%s\n' "$Z $H1 A <a@b> 1700000003 +0000	last"
	printf '%s' "$Z $H1 A <a@b> 1700000004 +0000	no final newline"
} > "$T/crafted.log"
same "crafted reflog" "$Z $H1 1700000000 +0100	good one
$Z $H1 1700000001 -0230	
$Z $H1 1700000002 +0000	 no tab
$Z $H1 1700000003 +0000	last" "$("$D" reflog "$T/crafted.log")"
}

# ---- index -----------------------------------------------------------------------------------
section_index_config_refnames() {
need_r1
lsfiles() { refgit ls-files -s -z | tr '\0' '\n'; }
git init -q "$T/ix"
(
	cd "$T/ix"
	mkdir -p bb a/z a/yy ccc ab "sp ace"
	for f in bb/1 a/z/2 a/yy/3 a/4 ccc/5 ab/6 "sp ace/7" top "$(printf 'caf\303\251')"; do echo "$f" > "$f"; done
	ln -s top link
	git add . && git commit -qm ix
	git submodule add -q "$R" sub 2>/dev/null
	git commit -qm sub
)
check_index() {
	local name=$1 version=$2
	same "$name: entries" "$(lsfiles)" "$("$D" index)"
	same "$name: version" "version $version" "$("$D" index-info | grep '^version')"
}
(cd "$T/ix" && check_index "index v2" 2)
# the cache tree: the root is what write-tree writes, subtrees are the commit's trees
# exp_node PATH: "<tree> <entries> <subtrees> <path>" from git's own view of HEAD
exp_node() {
	local id cnt sub
	if [ -z "$1" ]; then
		id=$(refgit write-tree)
		cnt=$(refgit ls-files | wc -l)
		sub=$(refgit ls-tree -d HEAD | grep -c ' tree ')
	else
		id=$(refgit rev-parse "HEAD:$1")
		cnt=$(refgit ls-files -- "$1/" | wc -l)
		sub=$(refgit ls-tree -d "HEAD:$1" | grep -c ' tree ')
	fi
	echo "$id $cnt $sub $1"
}
(
	cd "$T/ix"
	same "cache tree" "$(for p in "" a a/z a/yy ab bb ccc "sp ace"; do exp_node "$p"; done)" "$("$D" cache-tree)"
)
# siblings in git's order (length, then bytes), depth first
(
	cd "$T/ix"
	same "cache tree order" "
a
a/z
a/yy
ab
bb
ccc
sp ace" "$("$D" cache-tree | cut -d' ' -f4-)"
	same "cache tree ids" "$(refgit ls-tree -r -d HEAD | grep -v ' commit ' | awk '{print $3}' | sort)" \
		"$("$D" cache-tree | sed 1d | cut -d' ' -f1 | sort)"
	echo more >> a/z/2
	git add a/z/2
	same "invalidated cache tree" "invalid -1 5 
invalid -1 2 a
invalid -1 0 a/z
$(exp_node a/yy)" "$("$D" cache-tree | head -4)"
	git reset -q --hard
)
(
	cd "$T/ix"
	echo new > ita
	git add -N ita
	git update-index --skip-worktree top
	check_index "index v3 (intent-to-add, skip-worktree)" 3
	git update-index --index-version 4
	check_index "index v4" 4
	git update-index --index-version 2 2>/dev/null
)
# resolve-undo from a resolved conflict
git init -q "$T/conf"
(
	cd "$T/conf"
	echo base > f && git add f && git commit -qm base
	git checkout -q -b other && echo theirs > f && git commit -qam theirs
	git checkout -q master && echo ours > f && git commit -qam ours
	git merge -q other >/dev/null 2>&1
	echo resolved > f && git add f
	same "resolve-undo" "$(refgit ls-files --resolve-undo)" "$("$D" resolve-undo)"
	same "resolve-undo present" "resolve_undo 1" "$("$D" index-info | grep '^resolve_undo')"
)

# ---- config ----------------------------------------------------------------------------------
git init -q "$T/cfg"
cat >> "$T/cfg/.git/config" <<'EOF'
[Section "Sub \"Q\" \\ x"]
	Key = value with \"quotes\" and \\ backslash ; comment
	Other = "  spaced  "  # comment
	multi = line1 \
continued
	esc = a\tb\nc\bd
	flag
	empty =
[section.OldStyle]
	k = v
	k = second
[include]
	path = extra.cfg
[UPPER]
	MiXed-1 = 1
	; a comment line
	# another
[fsck]
	zeroPaddedFilemode = ignore
	skipList = ~/skiplist
EOF
printf '[included]\n\tvalue = from include\n[include]\n\tpath = ../cfg2.cfg\n' > "$T/cfg/.git/extra.cfg"
printf '[deeper]\n\tx = y\n' > "$T/cfg/cfg2.cfg"
(
	cd "$T/cfg"
	same "config --list" "$(refgit config --list)" "$("$D" config-list)"
	mkdir -p sub/dir
	same "config --list from a subdirectory" "$(cd sub/dir && refgit config --list)" "$(cd sub/dir && "$D" config-list)"
	for k in 'section.Sub "Q" \ x.key' 'Section.Sub "Q" \ x.OTHER' 'section.Sub "Q" \ x.multi' \
		'section.Sub "Q" \ x.esc' 'section.Sub "Q" \ x.flag' 'section.oldstyle.k' 'upper.mixed-1' \
		fsck.zeroPaddedFilemode fsck.skiplist core.bare core.repositoryformatversion included.value deeper.x; do
		same "config $k" "$(refgit config --get "$k"; echo "rc=$?")" "$("$D" config "$k"; echo "rc=$?")"
	done
	same "config unset key" "$(refgit config --get no.such; echo "rc=$?")" "$("$D" config no.such; echo "rc=$?")"
	same "GIT_CONFIG_COUNT" "$(GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=Fsck.Extra GIT_CONFIG_VALUE_0=warn refgit config --list | tail -1)" \
		"$(GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=Fsck.Extra GIT_CONFIG_VALUE_0=warn "$D" config-list | tail -1)"
)
# syntax errors: git's message and line number
n=0
for bad_cfg in '[core]\n\tfoo = "unterminated\n' '[core]\n\tfoo = bad\\q escape\n' '[core\n' '[core]\nkey value\n' \
	'\357\273[core]\n' '[a "b]\n' '[a "b"\n' '\n\n[a]\n1x = y\n' '[a]\n\tx = "ok" \\\n' '[a]x=1\n[b]\ny=\\\n'; do
	n=$((n + 1))
	git init -q "$T/badcfg"
	printf "$bad_cfg" >> "$T/badcfg/.git/config"
	(cd "$T/badcfg" && check_fatal "bad config $n" refgit rev-parse --git-dir)
	rm -rf "$T/badcfg"
done
git init -q "$T/bom"
printf '\357\273\277[core]\n\tbare = false\n' > "$T/bom/.git/config.new"
cat "$T/bom/.git/config" >> "$T/bom/.git/config.new"
mv "$T/bom/.git/config.new" "$T/bom/.git/config"
(cd "$T/bom" && same "config with a byte order mark" "$(refgit config --list)" "$("$D" config-list)")

# ---- ref names -------------------------------------------------------------------------------
nbad=0
while IFS= read -r name; do
	for opts in "" "--allow-onelevel" "--refspec-pattern" "--allow-onelevel --refspec-pattern"; do
		# shellcheck disable=SC2086
		refgit check-ref-format $opts "$name" >/dev/null 2>&1
		want=$?
		# shellcheck disable=SC2086
		"$D" check-ref-format $opts "$name"
		got=$?
		[ "$want" == "$got" ] || { nbad=$((nbad + 1)); echo "check-ref-format $opts '$name': git $want, driver $got" >&2; }
	done
done <<'EOF'
refs/heads/master
HEAD
master
refs/heads/a..b
refs/heads/a.b
refs/heads/.hidden
refs/heads/x.lock
refs/heads/x.lock/y
refs/heads/x.
refs/heads/x/
/refs/heads/x
refs//heads/x
refs/heads/a@{b
refs/heads/a@b
refs/heads/a{b
@
refs/heads/@
refs/heads/sp ace
refs/heads/tab	x
refs/heads/a~b
refs/heads/a^b
refs/heads/a:b
refs/heads/a?b
refs/heads/a[b
refs/heads/a\b
refs/heads/*
refs/heads/a*b*c
refs/*/x
refs/heads/café
refs/heads/a.lockx
.refs/x
refs/heads/-x
refs/heads/x.lock.lock
EOF
same "check-ref-format disagreements" "0" "$nbad"
}

# ---- git fsck's messages about refs, HEADs, reflogs and the index ------------------------------
# fsck_check NAME DIR: stderr of `git fsck` against the driver's fsck-roots (all objects are sound).
# The driver prints the lines of Git 2.39.5's fsck about refs, HEADs, reflogs and the index from
# what the readers give it (it tests the readers); Git 2.55's fsck checks the refs with `git refs
# verify` and names the index file, which `sha1kit fsck` itself follows (compared by
# tests/git/test_refs_verify.sh and test_fsck.sh). So with a reference git of 2.47 or later
# (SHA1KIT_GIT_VERSION=2.55, tests/testlib.sh) the oracle here stays the installed git, 2.39.5,
# that made the fixtures.
fsck_check() {
	local name=$1 dir=$2
	git -C "$dir" cat-file --batch-all-objects --batch-check='%(objectname) %(objecttype)' > "$T/objects.txt"
	local want
	if [ "${SHA1KIT_GIT_VERSION:-}" = 2.55 ]; then
		want=$(cd "$dir" && git fsck 2>&1 >/dev/null)
	else
		want=$(cd "$dir" && refgit fsck 2>&1 >/dev/null)
	fi
	same "fsck: $name" "$want" "$(cd "$dir" && "$D" fsck-roots "$T/objects.txt" 2>&1 >/dev/null)"
	[ -n "${VERBOSE:-}" ] && printf '== %s\n%s\n' "$name" "$want" >&2
	return 0
}
# need_base: the base repository $T/base (with the linked worktree $T/basewt), $HC its HEAD and
# $TREE HEAD's tree; made by the first section that needs it.
need_base() {
	[ -d "$T/base" ] && return
	git init -q "$T/base"
	(
		cd "$T/base"
		echo a > f && git add f && git commit -qm one
		echo b > f && git commit -qam two
		git tag -a -m t v1
		git branch b2
		git worktree add -q "$T/basewt" -b wtb
	)
	HC=$(git -C "$T/base" rev-parse HEAD)
	TREE=$(git -C "$T/base" rev-parse HEAD^{tree})
}
# scenario NAME: a fresh copy of the base repository in $S
scenario() {
	S=$T/s
	rm -rf "$S" "$T/swt"
	cp -a "$T/base" "$S"
	cp -a "$T/basewt" "$T/swt"
	echo "gitdir: $S/.git/worktrees/basewt" > "$T/swt/.git"
	echo "$T/swt/.git" > "$S/.git/worktrees/basewt/gitdir"
}
section_fsck_refs() { # leaks
need_base
scenario
fsck_check "clean" "$S"
fsck_check "clean, from the linked worktree" "$T/swt"
scenario
cp "$S/.git/refs/heads/master" "$S/.git/refs/heads/bad..name"
printf 'garbage\n' > "$S/.git/refs/heads/garb"
printf 'ref: refs/heads/nonexistent\n' > "$S/.git/refs/heads/dangle"
printf '%s\n' "$Z" > "$S/.git/refs/heads/nullref"
printf 'ref: refs/heads/../x\n' > "$S/.git/refs/heads/badsym"
printf '1234567890123456789012345678901234567890\n' > "$S/.git/refs/heads/missing"
printf '%s\n' "$TREE" > "$S/.git/refs/heads/tree"
printf '%s\n' "$TREE" > "$S/.git/refs/tags/tree"
printf 'ref: refs/heads/s2\n' > "$S/.git/refs/heads/s1"
for i in 2 3 4 5 6; do printf 'ref: refs/heads/s%d\n' $((i + 1)) > "$S/.git/refs/heads/s$i"; done
printf '%s\n' "$HC" > "$S/.git/refs/heads/s7"
mkdir -p "$S/.git/refs/heads/dir"
printf '%s   trailing\n' "$HC" > "$S/.git/refs/heads/dir/withtrail"
ln -s ../../refs/heads/master "$S/.git/refs/heads/linked"
ln -s refs/heads/master "$S/.git/refs/heads/symlinkref"
fsck_check "broken loose refs" "$S"
fsck_check "broken loose refs, from the linked worktree" "$T/swt"
same "broken ref flags" "$Z refs/heads/bad..name --BN
$Z refs/heads/dangle S-B-
$Z refs/heads/garb --B-" "$(cd "$S" && "$D" refs --flags | grep -E 'bad\.\.name|dangle|garb ')"
scenario
git -C "$S" pack-refs --all
printf '%s refs/heads/packed..bad\n' "$HC" >> "$S/.git/packed-refs"
fsck_check "bad name in packed-refs" "$S"
for line in 'garbage line long enough to pass the length check of packed refs' 'short' "$HC refs/../x" \
	"$(printf '%s refs/heads/zz\n^zz' "$HC")" "$(printf '%s\trefs/heads/tab' "$HC")"; do
	scenario
	git -C "$S" pack-refs --all
	printf '%s\n' "$line" >> "$S/.git/packed-refs"
	fsck_check "packed-refs + '$line'" "$S"
done
scenario
git -C "$S" pack-refs --all
printf '%s refs/heads/nonl' "$HC" >> "$S/.git/packed-refs"
fsck_check "packed-refs without a final LF" "$S"
scenario
printf '#garbage header\n' > "$S/.git/packed-refs"
fsck_check "packed-refs header" "$S"
scenario
printf '# pack-refs with: peeled\n%s refs/heads/zzz\n%s refs/heads/aaa\nshort\n' "$HC" "$HC" > "$S/.git/packed-refs"
fsck_check "unsorted packed-refs with a short line" "$S"
for head in 'ref: refs/heads/unborn' 'ref: refs/tags/v1' "$Z" 'ref: refs/heads/../x' 'ref: refs/heads/garb2' \
	'ref:refs/heads/master' 'ref: refs/remotes/x' "$TREE" "ref: refs/heads/s1"; do
	scenario
	printf 'bogus\n' > "$S/.git/refs/heads/garb2"
	printf 'ref: refs/heads/b2\n' > "$S/.git/refs/heads/s1"
	printf '%s\n' "$head" > "$S/.git/HEAD"
	fsck_check "HEAD '$head'" "$S"
	printf '%s\n' "$head" > "$S/.git/worktrees/basewt/HEAD"
	fsck_check "worktree HEAD '$head'" "$S"
	fsck_check "worktree HEAD '$head', from the worktree" "$T/swt"
done
scenario
{
	echo "garbage line"
	echo "$Z 1234567890123456789012345678901234567890 A U Thor <a@b> 1234567890 +0000	msg"
	echo "1234567890123456789012345678901234567891 $HC A U Thor <a@b> 1234567890 +0000	msg"
} >> "$S/.git/logs/HEAD"
cp "$S/.git/logs/HEAD" "$S/.git/logs/refs/heads/x..y"
cp "$S/.git/logs/HEAD" "$S/.git/logs/refs/heads/gone"
printf 'garbage\n' > "$S/.git/refs/heads/gb"
cp "$S/.git/logs/HEAD" "$S/.git/logs/refs/heads/gb"
mkdir -p "$S/.git/logs/refs/heads/.hidden"
cp "$S/.git/logs/HEAD" "$S/.git/logs/refs/heads/.hidden/f"
cp "$S/.git/logs/HEAD" "$S/.git/logs/refs/heads/x.lock"
echo "$Z 1234567890123456789012345678901234567892 A U Thor <a@b> 1234567890 +0000	wt" >> "$S/.git/worktrees/basewt/logs/HEAD"
cp "$S/.git/logs/HEAD" "$S/.git/worktrees/basewt/logs/x..z"
fsck_check "broken reflogs" "$S"
fsck_check "broken reflogs, from the linked worktree" "$T/swt"
scenario
rm -rf "$S/.git/refs/heads" "$S/.git/refs/tags"
mkdir -p "$S/.git/refs/heads"
rm -f "$S/.git/packed-refs"
printf 'ref: refs/heads/none\n' > "$S/.git/worktrees/basewt/HEAD"
fsck_check "no default references" "$S"
}
# the index: cache tree with a missing tree, resolve-undo with missing blobs, corruption
section_fsck_index() { # leaks
need_base
scenario
(
	cd "$S"
	mkdir -p d/e && echo c > d/e/g && git add d
	git update-index --index-info <<EOF
100644 1111111111111111111111111111111111111111 1	h
100644 2222222222222222222222222222222222222222 2	h
100644 $(git rev-parse HEAD:f) 3	h
EOF
	echo h > h && git add h
	git write-tree >/dev/null
	t=$(git rev-parse "$(git write-tree):d")
	rm -f ".git/objects/${t:0:2}/${t:2}" # d (and so d/e below it) is no object any more
)
fsck_check "cache tree and resolve-undo pointers" "$S"
(cd "$S" && t=$(git write-tree) && rm -f ".git/objects/${t:0:2}/${t:2}")
fsck_check "cache tree root missing" "$S"
scenario
"$PY" - "$S/.git/index" <<'EOF'
import sys
p = sys.argv[1]
b = bytearray(open(p, 'rb').read())
b[20] ^= 1
open(p, 'wb').write(b)
EOF
fsck_check "index checksum" "$S"
# extensions git ignores or refuses, with a good checksum
for ext in ZZZZ zzzz; do
	scenario
	"$PY" - "$S/.git/index" "$ext" <<'EOF'
import hashlib, struct, sys
p, ext = sys.argv[1], sys.argv[2].encode()
b = open(p, 'rb').read()[:-20]
b += ext + struct.pack('>I', 3) + b'abc'
open(p, 'wb').write(b + hashlib.sha1(b).digest())
EOF
	fsck_check "index extension $ext" "$S"
done
for surgery in 'sig' 'version' 'order' 'dup' 'stages' 'short'; do
	scenario
	echo x > "$S/h" && git -C "$S" add h
	"$PY" - "$S/.git/index" "$surgery" <<'EOF'
import hashlib, struct, sys
p, what = sys.argv[1], sys.argv[2]
b = bytearray(open(p, 'rb').read()[:-20])
def entry_offsets(b):
    n = struct.unpack('>I', b[8:12])[0]
    off, out = 12, []
    for i in range(n):
        flags = struct.unpack('>H', b[off + 60:off + 62])[0]
        namelen = flags & 0xfff
        out.append(off)
        off += (62 + namelen + 8) & ~7
    return out
offs = entry_offsets(b)
if what == 'sig':
    b[0:4] = b'DIRX'
elif what == 'version':
    b[4:8] = struct.pack('>I', 7)
elif what == 'order':
    # swap the two entries (f, g... here: f and h, equal name lengths)
    a, c = offs[0], offs[1]
    e1, e2 = bytes(b[a:c]), bytes(b[c:c + (c - a)])
    b[a:c + (c - a)] = e2 + e1
elif what == 'dup':
    # rename h to f: a merged file twice
    c = offs[1]
    b[c + 62] = ord('f')
elif what == 'stages':
    # f at stage 2 then f at stage 1
    a, c = offs[0], offs[1]
    b[c + 62] = ord('f')
    fl = struct.unpack('>H', b[a + 60:a + 62])[0] | 0x2000
    b[a + 60:a + 62] = struct.pack('>H', fl)
    fl = struct.unpack('>H', b[c + 60:c + 62])[0] | 0x1000
    b[c + 60:c + 62] = struct.pack('>H', fl)
elif what == 'short':
    b = b[:10]
    open(p, 'wb').write(b)
    sys.exit(0)
open(p, 'wb').write(b + hashlib.sha1(b).digest())
EOF
	fsck_check "index surgery: $surgery" "$S"
done
scenario
git -C "$S" update-index --index-version 4
echo y > "$S/longer-name" && git -C "$S" add longer-name
fsck_check "index v4" "$S"
}

sk_run_sections
pass=$(grep -c '^pass$' "$RESULTS")
fail=$(grep -c '^fail$' "$RESULTS")
echo "test_repo: $pass checks passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
