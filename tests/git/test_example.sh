#!/usr/bin/env bash
# test_example.sh CMAKE BUILD_DIR SOURCE_DIR SHA1KIT CC - the Git layer as another program uses it:
#  1. `cmake --install` of the build tree into a temporary prefix, examples/index-pack.c built
#     against the installed headers and libraries only (pkg-config sha1kit-git), run on a pack git
#     makes: the pack and idx it writes are byte for byte git index-pack --stdin's;
#  2. examples/verify-repo.c, built the same way, on that repository and on a copy with a missing
#     blob and one with a pack whose idx lies: its standard output and exit status are git fsck
#     --full's, each pack is verified against its idx (a changed idx: exit status 4 more);
#  3. `sha1kit index-pack --stdin` against `git index-pack --stdin` (output, files), and its errors:
#     a truncated pack, a corrupt one (git's lines, exit 128), a file size limit (ulimit -f): exit 1,
#     one line; nothing left.
set -euo pipefail
cmake=$1 build=$2 src=$3 sk=$4 cc=$5
# refgit, the reference git (SHA1KIT_REF_GIT); the repositories are made by the installed git
# shellcheck source=../testlib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../testlib.sh"
sk_ref_git_line
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sk-example.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@b \
	GIT_COMMITTER_NAME=A GIT_COMMITTER_EMAIL=a@b GIT_AUTHOR_DATE='@100000000 +0000' GIT_COMMITTER_DATE='@100000000 +0000'
PASS=0 FAIL=0
check() { # check NAME COMMAND...
	if "${@:2}"; then PASS=$((PASS + 1)); else FAIL=$((FAIL + 1)); echo "FAIL: $1" >&2; fi
}

"$cmake" --install "$build" --prefix "$tmp/prefix" >/dev/null
libdir=$(ls -d "$tmp"/prefix/lib*/pkgconfig | head -1)
export PKG_CONFIG_PATH=$libdir
# SK_CFLAGS, SK_LDFLAGS: the build's own (the sanitizer runtime of the sanitize pass).
for ex in index-pack verify-repo; do
	"$cc" -std=c11 -Wall -Wextra -Werror ${SK_CFLAGS:-} "$src/examples/$ex.c" \
		$(pkg-config --cflags --libs sha1kit-git) -Wl,-rpath,"$(pkg-config --variable=libdir sha1kit)" \
		${SK_LDFLAGS:-} -o "$tmp/$ex"
done

# A repository with deltas: a file edited over 40 commits, then repacked.
git init -q "$tmp/r"
for i in $(seq 1 40); do
	seq 1 $((i * 50)) >"$tmp/r/f"
	echo "$i" >"$tmp/r/g$((i % 5))"
	git -C "$tmp/r" add -A && git -C "$tmp/r" commit -qm "c$i"
done
git -C "$tmp/r" repack -adq
git -C "$tmp/r" pack-objects --stdout --all </dev/null >"$tmp/p.pack" 2>/dev/null
n=$(git -C "$tmp/r" rev-list --objects --all | wc -l)

mkdir "$tmp/ex" "$tmp/g"
git init -q --bare "$tmp/g"
gitout=$(refgit -C "$tmp/g" index-pack --stdin <"$tmp/p.pack")
exout=$("$tmp/index-pack" "$tmp/ex" <"$tmp/p.pack")
check "example: pack line" test "$(head -1 <<<"$exout")" = "$gitout"
check "example: object count" test "$(sed -n 2p <<<"$exout")" = "verified: $n objects"
check "example: hash" test "$(tail -1 <<<"$exout")" = "blob 'hello\n': $(echo hello | refgit hash-object --stdin)"
name=${gitout#pack	}
check "example: idx as git's" same_file "$tmp/ex/pack-$name.idx" "$tmp/g/objects/pack/pack-$name.idx"
check "example: pack as sent" same_file "$tmp/ex/pack-$name.pack" "$tmp/p.pack"

# verify-repo: a sound repository with a dangling blob and loose objects beside the pack; the same
# with a blob gone; a pack whose idx has another (valid) trailer.
echo extra >"$tmp/r/h" && git -C "$tmp/r" add h && git -C "$tmp/r" commit -qm loose
echo dangling | git -C "$tmp/r" hash-object -w --stdin >/dev/null
verify() { # verify NAME GIT_DIR EXTRA_EXIT_BITS
	local rc=0 grc=0
	"$tmp/verify-repo" "$2" >"$tmp/v.out" 2>"$tmp/v.err" || rc=$?
	refgit --git-dir="$2" fsck --full >"$tmp/g.out" 2>/dev/null || grc=$?
	check "verify-repo $1: stdout as git fsck's" same_file "$tmp/v.out" "$tmp/g.out"
	check "verify-repo $1: exit $((grc | $3)) (got $rc)" test "$rc" = $((grc | $3))
	check "verify-repo $1: packs verified" grep -q "objects, idx verified" "$tmp/v.err"
}
verify sound "$tmp/r/.git" 0
check "verify-repo sound: a dangling blob" grep -q "^dangling blob " "$tmp/v.out"
cp -r "$tmp/r" "$tmp/m"
rm "$tmp/m/.git/objects/$(git -C "$tmp/m" rev-parse HEAD:h | sed 's|^..|&/|')" "$tmp/m/.git/index"
verify missing "$tmp/m/.git" 0
check "verify-repo missing: git's missing blob line" grep -q "^missing blob " "$tmp/v.out"
cp -r "$tmp/r" "$tmp/i"
(cd "$tmp/i/.git/objects/pack" && idx=$(ls pack-*.idx) && chmod u+w "$idx" &&
	printf '\001' | dd of="$idx" bs=1 seek=$(($(stat -c %s "$idx") - 41)) conv=notrunc status=none)
rc=0 grc=0
"$tmp/verify-repo" "$tmp/i/.git" >"$tmp/v.out" 2>"$tmp/v.err" || rc=$?
refgit --git-dir="$tmp/i/.git" fsck --full >"$tmp/g.out" 2>/dev/null || grc=$?
check "verify-repo changed idx: the pack does not verify" \
	grep -q "^verify-repo: pack-[0-9a-f]*: the index does not match the pack (corrupt input)$" "$tmp/v.err"
check "verify-repo changed idx: stdout as git fsck's" same_file "$tmp/v.out" "$tmp/g.out"
check "verify-repo changed idx: exit $((grc | 4)) (got $rc)" test "$rc" = $((grc | 4))

# sha1kit index-pack --stdin, in a repository (objects/pack) and to a named pack.
git init -q --bare "$tmp/s"
skout=$(cd "$tmp/s" && "$sk" index-pack --rev-index --stdin <"$tmp/p.pack")
check "--stdin: output" test "$skout" = "$gitout"
check "--stdin: idx" same_file "$tmp/s/objects/pack/pack-$name.idx" "$tmp/g/objects/pack/pack-$name.idx"
# the reverse index too, on by default as in git 2.41+ (git's own with --rev-index, 2.39 included)
check "--stdin: the pack, idx and .rev" test "$(ls "$tmp/s/objects/pack" | tr '\n' ' ')" = "pack-$name.idx pack-$name.pack pack-$name.rev "
git init -q --bare "$tmp/gr"
refgit -C "$tmp/gr" index-pack --rev-index --stdin <"$tmp/p.pack" >/dev/null
check "--stdin: .rev" same_file "$tmp/s/objects/pack/pack-$name.rev" "$tmp/gr/objects/pack/pack-$name.rev"
mkdir "$tmp/named"
check "--stdin NAME" test "$("$sk" index-pack --stdin "$tmp/named/x.pack" <"$tmp/p.pack")" = "$gitout"
check "--stdin NAME: idx" same_file "$tmp/named/x.idx" "$tmp/g/objects/pack/pack-$name.idx"
# -o IDX without a pack name: the pack into objects/pack, the idx and .rev to IDX, as git's
git init -q --bare "$tmp/so"
skout=$(cd "$tmp/so" && "$sk" index-pack --rev-index --stdin -o "$tmp/so.idx" <"$tmp/p.pack")
check "--stdin -o IDX: output" test "$skout" = "$gitout"
check "--stdin -o IDX: idx" same_file "$tmp/so.idx" "$tmp/g/objects/pack/pack-$name.idx"
check "--stdin -o IDX: .rev" same_file "$tmp/so.rev" "$tmp/gr/objects/pack/pack-$name.rev"
check "--stdin -o IDX: the pack alone in objects/pack" test "$(ls "$tmp/so/objects/pack" | tr '\n' ' ')" = "pack-$name.pack "
# chk_fails NAME INPUT STATUS [ULIMIT]: exit STATUS, nothing on stdout, an empty directory; with
# STATUS 1 one line on stderr, with 128 (a pack git's first pass refuses) git's lines
chk_fails() {
	local d="$tmp/f-$RANDOM" rc=0
	mkdir "$d"
	git init -q "$d.sk" # --stdin in a repository only, as git's (the pack named into $d)
	(cd "$d.sk" && { [ -z "${4:-}" ] || ulimit -f "$4"; } && exec "$sk" index-pack --stdin "$d/y.pack" <"$2" \
		>"$d.out" 2>"$d.err") || rc=$?
	check "$1: exit $3 (got $rc)" test "$rc" = "$3"
	if [ "$3" = 128 ]; then
		git init -q "$d.git" # git takes --stdin in a repository only
		(cd "$d.git" && refgit index-pack --stdin "$d.git/y.pack" <"$2" >/dev/null 2>"$d.gerr") || true
		check "$1: git's lines" same_file "$d.gerr" "$d.err"
	else
		check "$1: one line" test "$(wc -l <"$d.err")" = 1
	fi
	check "$1: nothing on stdout" test ! -s "$d.out"
	check "$1: nothing left" test -z "$(ls -A "$d")"
}
head -c 3000 "$tmp/p.pack" >"$tmp/trunc.pack"
chk_fails "truncated" "$tmp/trunc.pack" 128
cp "$tmp/p.pack" "$tmp/flip.pack"
printf '\377' | dd of="$tmp/flip.pack" bs=1 seek=2000 conv=notrunc status=none
chk_fails "corrupt" "$tmp/flip.pack" 128
chk_fails "ulimit -f" "$tmp/p.pack" 1 4
echo "test_example: $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
