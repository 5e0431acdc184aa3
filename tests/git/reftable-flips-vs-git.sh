#!/usr/bin/env bash
# reftable-flips-vs-git.sh - run by hand: how `sha1kit fsck` and a current git's `git fsck` differ
# on damaged reftables. Each byte between the header and the footer of the chosen tables of a
# fixture repository of tests/git/reftable/repos.tar.gz is changed in turn (XOR with each given
# value); both fsck runs are compared (stderr and exit status byte for byte, stdout as the same
# lines), and every difference is run once more with git under valgrind, which tells the cases in
# which git reads memory it should not (its output there is not behaviour to follow) from those in
# which git is memory-clean and differs (the cases left to follow). docs/git.md section 7 quotes
# the counts.
#
# Usage: reftable-flips-vs-git.sh [-r REPO] [-t "N..."] [-x "XOR..."] [-o FILE] SHA1KIT GIT
#   -r REPO  a repository of repos.tar.gz: sound (17 tables, the default) or compacted (one table)
#   -t N...  the tables to damage, as line numbers of tables.list (default: all)
#   -x XOR   the values to XOR each byte with (default: 0x55)
#   -o FILE  one line per damaged byte: table, offset, XOR, class, both exit statuses
#   GIT      a Git that reads reftables (2.45 or later: scripts/git-current.sh builds 2.55.0)
# Classes: same; git-crash (git died of a signal); git-unsafe (differs, and valgrind reports an
# invalid read, write or free, or a use of an uninitialised value in git, or git crashes under it);
# differs (differs, git memory-clean). Exit status 1 when any byte is in the class `differs`.
# Needs valgrind. A run over every table of `sound` with one XOR value takes a few minutes.
set -u
repo=sound tables="" xors=0x55 out=""
while getopts r:t:x:o: o; do
	case $o in
	r) repo=$OPTARG ;;
	t) tables=$OPTARG ;;
	x) xors=$OPTARG ;;
	o) out=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# = 2 ] || {
	sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
}
SK=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
G=$2
command -v valgrind >/dev/null || {
	echo "reftable-flips-vs-git.sh: valgrind is needed" >&2
	exit 2
}
export LC_ALL=C GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
unset GIT_DIR GIT_WORK_TREE GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES GIT_COMMON_DIR
W=$(mktemp -d "${TMPDIR:-/tmp}/sha1kit-rtflips.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
export HOME=$W/no-home
tar -C "$W" -xzf "$(dirname "${BASH_SOURCE[0]}")/reftable/repos.tar.gz" || exit 1
R=$W/$repo
[ -f "$R/.git/reftable/tables.list" ] || {
	echo "reftable-flips-vs-git.sh: no repository $repo in repos.tar.gz" >&2
	exit 2
}
[ -n "$tables" ] || tables=$(seq 1 "$(wc -l <"$R/.git/reftable/tables.list")")
[ -n "$out" ] || out=$W/lines
: >"$out"
declare -A count=([same]=0 [git-crash]=0 [git-unsafe]=0 [differs]=0)
for ti in $tables; do
	f=$R/.git/reftable/$(sed -n "${ti}p" "$R/.git/reftable/tables.list")
	cp "$f" "$W/orig"
	size=$(stat -c %s "$f")
	# header 24 bytes, footer 68 (version 1 tables)
	for ((off = 24; off < size - 68; off++)); do
		b=$(od -An -tu1 -j "$off" -N1 "$W/orig" | tr -d ' ')
		for x in $xors; do
			cp "$W/orig" "$f"
			printf "\\$(printf %03o $((b ^ x)))" | dd of="$f" bs=1 seek="$off" conv=notrunc 2>/dev/null
			(cd "$R" && "$G" fsck >"$W/g.out" 2>"$W/g.err") 2>/dev/null
			grc=$?
			(cd "$R" && "$SK" fsck >"$W/s.out" 2>"$W/s.err")
			src=$?
			if [ $grc -gt 128 ]; then
				c=git-crash
			elif [ $grc = $src ] && cmp -s "$W/g.err" "$W/s.err" &&
				cmp -s <(sort "$W/g.out") <(sort "$W/s.out"); then
				c=same
			else
				(cd "$R" && valgrind -q --error-exitcode=99 --trace-children=yes "$G" fsck \
					>/dev/null 2>"$W/vg.err")
				vrc=$?
				if [ $vrc != $grc ] || grep -q 'Invalid read\|Invalid write\|Invalid free\|uninitialised' "$W/vg.err"; then
					c=git-unsafe
				else
					c=differs
				fi
			fi
			count[$c]=$((count[$c] + 1))
			echo "$ti $off $x $c git=$grc sha1kit=$src" >>"$out"
		done
	done
	cp "$W/orig" "$f"
done
echo "$repo, tables $(echo $tables | tr ' ' ','), XOR $xors: same ${count[same]}, git-crash ${count[git-crash]}," \
	"git-unsafe ${count[git-unsafe]}, differs ${count[differs]}"
grep ' differs ' "$out" | head -20
[ "${count[differs]}" = 0 ]
