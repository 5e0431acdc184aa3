# shellcheck shell=bash
# tests/testlib.sh - sourced by the long test scripts (tests/git/test_fsck.sh, test_loose.sh, ...).
#
# Sections: such a script is a list of sections, each a function named section_NAME, defined in the order they
# run. The script takes --section=NAME as its first argument to run only that one (ctest: one test
# per section, tests/sections.cmake), or runs every section in order without it (by hand: bash
# tests/git/test_fsck.sh PATH/TO/sha1kit testdata).
#
# The line defining a section may end with a comment of tags for tests/sections.cmake:
#   section_flips() { # long nosan
#   long     label "long" (left out by `make quick`): the section takes more than a few seconds
#   nosan    not registered in sanitizer builds (it checks nothing the sanitizers would add to)
#   nowine   not registered in the Windows build (the script leaves it out under SK_WINDOWS=1 anyway)
#   leaks    in sanitizer builds, run with LeakSanitizer (the other sections run without it:
#            LSAN_OPTIONS=detect_leaks=0, tests/sections.cmake)
#
# The bodies of the section functions are not indented (the history of each case stays readable
# with git blame and diff). Usage in a script:
#   sk_section_arg "$@" && shift     # before the script reads its own arguments
#   ...the helpers and the section functions...
#   sk_run_sections                  # at the end; then the script prints its totals
SK_SECTION=

# Process starts are most of what the comparison scripts cost: about 50,000 in the native pass, and
# on some VMs every start of even /bin/true takes 12 ms of CPU. Where Debian's bash-builtins package
# has put its loadable builtins, seq, rm, mkdir, ln, dirname, basename and rmdir run inside bash.
# Their options cover every use in the scripts (seq [FIRST [INCR]] LAST, rm -rf/-f, mkdir -p,
# ln -s/-f, one operand of dirname, basename NAME [SUFFIX]); the commands whose loadables take
# fewer options or print otherwise (head: no -c; realpath: no -m; stat, mktemp, cut) stay
# coreutils'. Without the package, everything runs as before. Children (xargs, find -exec, bash -c)
# run coreutils' as always.
sk_enable_loadables() {
	local dir=${SK_BASH_LOADABLES:-/usr/lib/bash} b
	for b in seq rm mkdir ln dirname basename rmdir; do
		if [ -f "$dir/$b" ]; then
			enable -f "$dir/$b" "$b" 2>/dev/null || true
		fi
	done
}
sk_enable_loadables

# sk_share_case: true for one call in SHA1KIT_CASE_SHARE (the first, the N+1st, ...: counted in the
# section's own shell, so call it there and not in a subshell), always when that is unset or 1. The
# Windows pass sets it (Makefile: cross-mingw, 8): under Wine each start of sha1kit.exe costs a third
# of a second of wineserver work, and what that pass adds to the native one (the Windows build's
# files, paths, modes and output) one case in N of each loop exercises as well as all of them do.
# The sanitizer pass sets it too (sanitize, 8): each sanitized start costs 20-30 ms of CPU before
# main. The native pass runs every case (but the SHA-256 sections of test_fsck.sh and sum's, every
# other one: their SHA-1 sections run them all).
SK_SHARE_K=0
sk_share_case() {
	local n=${SHA1KIT_CASE_SHARE:-1}
	case $n in '' | *[!0-9]* | 0) echo "SHA1KIT_CASE_SHARE=$n: not a number from 1" >&2 && exit 2 ;; esac
	SK_SHARE_K=$((SK_SHARE_K + 1))
	[ $(((SK_SHARE_K - 1) % n)) = 0 ]
}

# sk_share_skip [N]: true when none of the next N calls of sk_share_case would compare; they are
# then counted as made. False, with nothing counted, when one of them would. A loop that builds a
# repository for N comparisons calls it first and skips the building as well (`sk_share_skip 2 &&
# continue`): under the sanitizers the building costs as much as the comparison.
sk_share_skip() {
	local n=${SHA1KIT_CASE_SHARE:-1} k=${1:-1} j
	case $n in '' | *[!0-9]* | 0 | 1) return 1 ;; esac
	for ((j = 0; j < k; j++)); do
		[ $(((SK_SHARE_K + j) % n)) = 0 ] && return 1
	done
	SK_SHARE_K=$((SK_SHARE_K + k))
	return 0
}

# The reference git: the git whose output the comparisons take as the truth. SHA1KIT_REF_GIT names
# it (a path or a command name); by default the installed git (Debian 12's 2.39.5). A current Git as
# the second reference: SHA1KIT_REF_GIT=$(scripts/git-current.sh) (make check-git-current). Only the
# runs whose output or exit status is compared go through refgit; the repositories and packs the
# tests read are still made by the installed git (plain `git`), so that both references read the
# same fixtures. refgit is a function (no process of its own; for fsck see sk_fsck_has_no_graph); where another program runs git
# (setpriv, xargs), it runs "$SK_REF_GIT".
SK_REF_GIT=${SHA1KIT_REF_GIT:-git}
# sha1kit fsck gives Git 2.55.0's lines by default and 2.39.5's with --git-version=2.39 (or
# SHA1KIT_GIT_VERSION=2.39): the comparisons ask for the lines of the reference git, 2.39 for a
# reference before 2.47 (no `git refs verify`), 2.55 from there on. A value set by the caller wins.
sk_ref_git_version() {
	local v maj min
	v=$("$SK_REF_GIT" version 2>/dev/null) || return 0
	v=${v#git version }
	maj=${v%%.*}
	min=${v#*.}
	min=${min%%.*}
	case $maj$min in *[!0-9]* | '') return 0 ;; esac
	if [ "$maj" -gt 2 ] || { [ "$maj" -eq 2 ] && [ "$min" -ge 47 ]; }; then
		echo 2.55
	else
		echo 2.39
	fi
}
if [ -z "${SHA1KIT_GIT_VERSION:-}" ]; then
	SHA1KIT_GIT_VERSION=$(sk_ref_git_version)
	export SHA1KIT_GIT_VERSION
fi
refgit() {
	local -a _refgit=("$SK_REF_GIT" "$@")
	if [ "${1:-}" = fsck ] && sk_out_cannot_tell; then
		sk_refgit_argv _refgit "$@"
	fi
	"${_refgit[@]}"
}
# sk_out_cannot_tell: true when the standard output is /dev/null, or a regular file that standard
# error does not share. The children git fsck starts are not quite invisible: git flushes its
# standard output before each, so a write that fails (/dev/full) fails there and git ends with
# "unknown write failure on standard output" instead of "write failure on standard output: No space
# left on device", and lines written to one file with 2>&1 come in another order. Neither can
# happen here.
sk_out_cannot_tell() {
	[ /dev/stdout -ef /dev/null ] || { [ -f /dev/stdout ] && ! [ /dev/stdout -ef /dev/stderr ]; }
}
# sk_refgit_argv VAR ARG...: the command git ARG... as refgit runs it with its standard output and
# error in two regular files, in the array VAR (for a program that runs git itself, such as
# tests/git/flipsweep.c).
sk_refgit_argv() {
	local -n _argv=$1
	shift
	if [ "${1:-}" = fsck ] && sk_fsck_has_no_graph; then
		_argv=("$SK_REF_GIT" -c core.commitGraph=false -c core.multiPackIndex=false "$@")
	else
		_argv=("$SK_REF_GIT" "$@")
	fi
}
# sk_fsck_has_no_graph: true when git fsck run here would start `git commit-graph verify` and
# `git multi-pack-index verify` (one each per object directory) only for them to find no file and
# succeed without a word: the working directory holds a plain .git directory (not a gitfile, not a
# linked worktree), nothing in the environment points git elsewhere, there are no alternates, and
# neither a commit-graph (file or chain) nor a multi-pack-index (file or chain) exists. Git 2.39.5
# and 2.55 both return 0 there (builtin/commit-graph.c graph_verify: ENOENT; midx.c
# verify_midx_file: no midx and no file). Those two process starts are two thirds of git fsck's CPU
# on the small repositories of the sweeps (25 against 8.7 ms), and core.commitGraph=false and
# core.multiPackIndex=false leave them out; the lines and the exit status cannot differ, as long as
# the output is not a file that fails or shared with standard error (sk_out_cannot_tell).
sk_fsck_has_no_graph() {
	local o=.git/objects
	[ -z "${GIT_DIR:-}${GIT_OBJECT_DIRECTORY:-}${GIT_ALTERNATE_OBJECT_DIRECTORIES:-}${GIT_COMMON_DIR:-}" ] &&
		[ -d .git ] && [ ! -L .git ] && [ ! -e .git/commondir ] && [ -d "$o" ] && [ ! -L "$o" ] &&
		{ [ ! -e "$o/info" ] && [ ! -L "$o/info" ] || [ -d "$o/info" ] && [ -r "$o/info" ] && [ -x "$o/info" ]; } &&
		{ [ ! -e "$o/pack" ] && [ ! -L "$o/pack" ] || [ -d "$o/pack" ] && [ -r "$o/pack" ] && [ -x "$o/pack" ]; } &&
		[ ! -e "$o/info/alternates" ] && [ ! -L "$o/info/alternates" ] &&
		[ ! -e "$o/info/commit-graph" ] && [ ! -L "$o/info/commit-graph" ] &&
		[ ! -e "$o/info/commit-graphs" ] && [ ! -L "$o/info/commit-graphs" ] &&
		[ ! -e "$o/pack/multi-pack-index" ] && [ ! -L "$o/pack/multi-pack-index" ] &&
		[ ! -e "$o/pack/multi-pack-index.d" ] && [ ! -L "$o/pack/multi-pack-index.d" ]
}
# sk_ref_git_line: "reference: git version X (PATH)", for the scripts' first line of output.
sk_ref_git_line() {
	local v
	v=$("$SK_REF_GIT" version 2>&1) || v="cannot run: $v"
	echo "reference: $v ($SK_REF_GIT)"
}

# sk_rev_swap_first_two FILE [PYTHON]: swap the first two entries of the pack reverse index FILE
# (bytes 12-15 and 16-19) and make its trailing SHA-1 right again: a .rev whose checksum holds and
# whose positions do not (git 2.41+'s verify_pack_revindex reports both entries).
sk_rev_swap_first_two() {
	"${2:-python3}" - "$1" <<'PYEOF'
import hashlib, sys
p = sys.argv[1]
d = bytearray(open(p, 'rb').read())
d[12:16], d[16:20] = d[16:20], d[12:16]
d[-20:] = hashlib.sha1(bytes(d[:-20])).digest()
open(p, 'wb').write(d)
PYEOF
}

# sk_section_arg ARG...: true (and SK_SECTION set) when the first argument is --section=NAME.
sk_section_arg() {
	case ${1:-} in
	--section=*)
		SK_SECTION=${1#--section=}
		return 0
		;;
	esac
	return 1
}

# sk_sections: the section names of the running script, in the order of their definitions.
sk_sections() {
	sed -n 's/^section_\([a-z0-9_]*\)() {.*/\1/p' "${BASH_SOURCE[-1]}"
}

# sk_run_sections: SK_SECTION alone, or every section; each one's time on the output.
sk_run_sections() {
	local s t0 found=
	for s in $(sk_sections); do
		[ -z "$SK_SECTION" ] || [ "$SK_SECTION" = "$s" ] || continue
		found=1
		t0=$SECONDS
		"section_$s"
		echo "section $s: $((SECONDS - t0)) s"
	done
	if [ -z "$found" ]; then
		echo "FAIL: no section '$SK_SECTION' in ${BASH_SOURCE[-1]} (sections: $(sk_sections | tr '\n' ' '))"
		exit 1
	fi
}

# Comparisons in bash alone: a process start costs more than the comparison (milliseconds each on a
# loaded machine, more under the sanitizers), and the scripts compare thousands of outputs.

# same_file A B: true when the files hold the same bytes (cmp -s, without a process unless a file
# holds a NUL byte).
same_file() {
	local a='' b='' ra rb
	[ -f "$1" ] && [ -f "$2" ] || return 1
	IFS= read -r -d '' a <"$1"
	ra=$?
	IFS= read -r -d '' b <"$2"
	rb=$?
	if [ $ra = 0 ] || [ $rb = 0 ]; then # stopped at a NUL byte
		cmp -s "$1" "$2"
	else
		[ "$a" = "$b" ]
	fi
}

# same_lines A B: true when the files hold the same lines, in any order and as often each
# (cmp -s <(sort A) <(sort B), without a process).
same_lines() {
	local -A n=()
	local l k
	[ -f "$1" ] && [ -f "$2" ] || return 1
	while IFS= read -r l || [ -n "$l" ]; do
		n["x$l"]=$((${n["x$l"]:-0} + 1))
	done <"$1"
	while IFS= read -r l || [ -n "$l" ]; do
		n["x$l"]=$((${n["x$l"]:-0} - 1))
	done <"$2"
	for k in "${!n[@]}"; do
		[ "${n[$k]}" = 0 ] || return 1
	done
}

# text_of FILE VAR: true, and FILE's bytes in VAR, when FILE exists and holds no NUL byte (bash
# keeps no NUL in a variable); false otherwise, and the caller runs the tool it stands in for.
text_of() {
	local -n _text_of=$2
	_text_of=
	[ -f "$1" ] || return 1
	! IFS= read -r -d '' _text_of <"$1"
}

# grep_q FLAGS PATTERN FILE: `grep FLAGS PATTERN FILE`, for FLAGS -Eq, -aEq, -qF or -aqF (a line
# matches the extended regular expression, or contains the string), in bash when it can.
grep_q() {
	local flags=$1 pat=$2 f=$3 text line
	if ! text_of "$f" text; then
		grep "$flags" -- "$pat" "$f"
		return
	fi
	while IFS= read -r line || [ -n "$line" ]; do
		case $flags in
		*E*) [[ $line =~ $pat ]] && return 0 ;;
		*) [[ $line == *"$pat"* ]] && return 0 ;;
		esac
	done <"$f"
	return 1
}

# grep_v_prefix FLAGS PREFIX IN OUT: `grep FLAGS -v '^PREFIX' IN >OUT` (FLAGS - or -a; PREFIX has no
# special character), in bash when it can.
grep_v_prefix() {
	# shellcheck disable=SC2034 # text: only whether the file is text
	local flags=$1 prefix=$2 in=$3 out=$4 text line
	if ! text_of "$in" text; then
		if [ "$flags" = - ]; then grep -v "^$prefix" "$in" >"$out"; else grep "$flags" -v "^$prefix" "$in" >"$out"; fi
		return
	fi
	while IFS= read -r line || [ -n "$line" ]; do
		[[ $line == "$prefix"* ]] || printf '%s\n' "$line"
	done <"$in" >"$out"
}

# sk_trace_bits TRACE STATUS WHAT...: the records of a sha1kit fsck run with SHA1KIT_FSCK_TRACE=TRACE
# that exited STATUS carry the status's bits between them (the OR of their exit_bits is the status,
# git_fsck.h), unless the check died (128); else fail "WHAT...: ..." and the trace's first lines
# (SK_TRACE_LINES, default 20). The caller defines fail.
sk_trace_bits() {
	local trace=$1 status=$2 or=0 bits id msg line st=
	shift 2
	if [ ! -f "$trace" ]; then
		fail "$*: no trace of sha1kit fsck (SHA1KIT_FSCK_TRACE)"
		return
	fi
	# shellcheck disable=SC2034 # id, msg, line: the fields after the bits
	while IFS=$'\t' read -r bits id msg line; do
		case $bits in
		exit\ *) st=${bits#exit } ;;
		*) or=$((or | bits)) ;;
		esac
	done <"$trace"
	if [ "$st" != "$status" ]; then
		fail "$*: the trace says exit '$st', sha1kit fsck exited $status"
	elif [ "$st" != 128 ] && [ "$or" != "$st" ]; then
		fail "$*: the records' exit bits OR to $or, the status is $st"
		sed 's/^/    trace: /' "$trace" | head -"${SK_TRACE_LINES:-20}"
	fi
}

# sk_check_recorded FIX DIR NAME ARGS: sha1kit ($SK) fsck in DIR (ARGS "default": no option, else
# one option) against the output a Git recorded in FIX/NAME.ARGS.out, .err and .rc (FIX/git-version
# names that Git): stderr and the exit status byte for byte, stdout as the same lines (sha1kit's
# order of dangling lines is not yet git's every time: issue 25, as tests/git/test_fsck.sh's
# compare); then, when SK_LIVE is not empty, against the reference git live (sk_check_live). The
# caller defines pass and fail, and T (a scratch directory).
sk_check_recorded() {
	local fix=$1 dir=$2 c=$3 args=$4 a=$4
	[ "$a" = default ] && a=
	# shellcheck disable=SC2086 # a: no option, or one
	rm -f "$T/s.trace"
	(cd "$dir" && SHA1KIT_FSCK_TRACE="$T/s.trace" "$SK" fsck $a >"$T/s.out" 2>"$T/s.err")
	echo $? >"$T/s.rc"
	sk_trace_bits "$T/s.trace" "$(<"$T/s.rc")" "$c fsck $a"
	if same_lines "$fix/$c.$args.out" "$T/s.out" && same_file "$fix/$c.$args.err" "$T/s.err" &&
		same_file "$fix/$c.$args.rc" "$T/s.rc"; then
		pass
	else
		fail "$c fsck $a: $(<"$fix/git-version") exited $(<"$fix/$c.$args.rc"), sha1kit $(<"$T/s.rc")"
		diff -u "$fix/$c.$args.err" "$T/s.err" | sed 's/^/    stderr: /' | head -20
		diff -u "$fix/$c.$args.out" "$T/s.out" | sed 's/^/    stdout: /' | head -20
	fi
	[ -n "${SK_LIVE:-}" ] || return 0
	sk_check_live "$dir" "$c" "$a"
}

# sk_check_live DIR NAME A: the reference git's fsck A (no option, or one) in DIR against sha1kit's,
# run just before into $T/s.out, .err and .rc: stderr and the exit status byte for byte, stdout as
# the same lines.
sk_check_live() {
	local dir=$1 c=$2 a=$3
	# shellcheck disable=SC2086 # a: no option, or one
	(cd "$dir" && refgit fsck $a >"$T/g.out" 2>"$T/g.err")
	echo $? >"$T/g.rc"
	if same_lines "$T/g.out" "$T/s.out" && same_file "$T/g.err" "$T/s.err" && same_file "$T/g.rc" "$T/s.rc"; then
		pass
	else
		fail "$c fsck $a (live): git exited $(<"$T/g.rc"), sha1kit $(<"$T/s.rc")"
		diff -u "$T/g.err" "$T/s.err" | sed 's/^/    stderr: /' | head -20
		diff -u "$T/g.out" "$T/s.out" | sed 's/^/    stdout: /' | head -20
	fi
}
