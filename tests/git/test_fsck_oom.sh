#!/usr/bin/env bash
# test_fsck_oom.sh - `sha1kit fsck` when the machine fails: under `ulimit -v` limits low enough
# that memory or thread stacks run out part way, on a repository of a few thousand objects (loose
# and packed), every run either succeeds with the output of a run without limit, or stops with
# git's one line ("fatal: Out of memory, malloc failed...", "fatal: unable to create thread: ...")
# and exit status 128: no finding about the repository (no false "missing" or "broken link" line),
# nothing on standard output. Runs the program that cannot even start (the dynamic loader fails:
# 127, or SIGSEGV in its set-up of thread-local storage, told apart by `sha1kit --version` dying the
# same way under the same limit) are skipped; at least one run must fail in the program itself.
# Usage: test_fsck_oom.sh PATH/TO/sha1kit
set -u
SK=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
export LC_ALL=C GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@example.com \
	GIT_COMMITTER_NAME=C GIT_COMMITTER_EMAIL=c@example.com GIT_AUTHOR_DATE='1700000000 +0000' \
	GIT_COMMITTER_DATE='1700000000 +0000'
unset GIT_DIR GIT_WORK_TREE GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES GIT_INDEX_FILE
T=$(mktemp -d "${TMPDIR:-/tmp}/sha1kit-fsck-oom.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
export HOME="$T/no-home"

r=$T/repo
git init -q "$r" && cd "$r" || exit 1
for i in $(seq 1 1500); do echo "packed $i" >"p$i"; done
git add . && git commit -qm packed && git repack -adq
for i in $(seq 1 1000); do echo "loose $i" >"l$i"; done
git add . && git commit -qm loose
echo dangling | git hash-object -w --stdin >/dev/null

"$SK" fsck --threads=2 >"$T/ref.out" 2>"$T/ref.err"
if [ $? != 0 ] || [ -s "$T/ref.err" ] || [ "$(wc -l <"$T/ref.out")" != 1 ]; then
	echo "FAIL: sha1kit fsck without a limit"
	cat "$T/ref.out" "$T/ref.err"
	exit 1
fi

fail=0 failed_runs=0 ran=0
for t in 1 8; do
	for lim in $(seq 3200 200 5600) 100000; do
		(ulimit -v "$lim" && exec "$SK" fsck --threads=$t) >"$T/s.out" 2>"$T/s.err"
		rc=$?
		if [ $rc = 139 ]; then
			# glibc's dynamic loader dies of SIGSEGV (not 127) when the limit leaves it no
			# room for the thread-local storage (rtld.c init_tls): a program that did not
			# start either, when `--version` dies so under the same limit
			(ulimit -v "$lim" && exec "$SK" --version) >/dev/null 2>&1
			vrc=$?
			[ $vrc = 139 ] || [ $vrc = 127 ] && rc=127
		fi
		case $rc in
		127) continue ;; # the program did not start
		0)
			ran=$((ran + 1))
			if ! cmp -s "$T/ref.out" "$T/s.out" || [ -s "$T/s.err" ]; then
				echo "FAIL: --threads=$t, ulimit -v $lim: exit 0 with other output"
				fail=1
			fi
			;;
		128)
			ran=$((ran + 1)) failed_runs=$((failed_runs + 1))
			if [ -s "$T/s.out" ] || [ "$(wc -l <"$T/s.err")" != 1 ] ||
				! grep -qE '^fatal: (Out of memory, malloc failed|unable to create thread: |inflate: out of memory)' "$T/s.err"; then
				echo "FAIL: --threads=$t, ulimit -v $lim: not git's one line"
				head -5 "$T/s.out" "$T/s.err" | sed 's/^/    /'
				fail=1
			fi
			;;
		*)
			echo "FAIL: --threads=$t, ulimit -v $lim: exit $rc"
			head -5 "$T/s.err" | sed 's/^/    /'
			fail=1
			;;
		esac
	done
done
if [ "$ran" = 0 ]; then
	echo "FAIL: sha1kit did not start under any of the limits"
	exit 1
fi
if [ "$failed_runs" = 0 ]; then
	echo "FAIL: no limit made the check fail"
	fail=1
fi
echo "$ran runs, $failed_runs stopped by the limit"
exit $fail
