#!/usr/bin/env python3
"""mkstrict.py - packs for `index-pack --strict` (tests/pack/test_pack.sh, section strict).

Usage: mkstrict.py [--sha256] OUTDIR

With --sha256 the same cases are SHA-256 packs (object IDs, tree entries, REF links and trailer
SHA-256), as a repository made with `git init --object-format=sha256` has them.

Writes OUTDIR/NAME.pack for each case and OUTDIR/cases.txt, lines "NAME<TAB>OPTIONS<TAB>WHERE": the
options to give index-pack (besides -o) and where to run it: "out" outside a repository, "repo"
inside the repository that OUTDIR/repo.txt describes (the objects to put there first: lines
"loose TYPE HEXDATA" or "packed TYPE HEXDATA"). Each pack has one defect (or none) that git's
fsck checks (fsck.c, v2.39.5) or index-pack's link checks (builtin/index-pack.c) see: trees with
.git / .gitmodules entries, bad modes and names, null IDs; commits and tags with bad headers;
objects used with two types; links to objects neither in the pack nor in the repository.
"""
import hashlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mkpacks  # noqa: E402
from mkpacks import OBJ_BLOB, OBJ_COMMIT, OBJ_OFS, OBJ_TAG, OBJ_TREE, build, delta, insert_ops, oid  # noqa: E402


def H(data):
    """An ID of the packs' object format that names no object in them."""
    return mkpacks.HASH(data).digest()

IDENT = b"A U Thor <a@example.org> 1700000000 +0000"


def ent(mode, name, id_):
    return mode + b" " + name + b"\0" + id_


def obj(t, data):
    return {"type": t, "data": data}


def commit(tree, extra=b"", author=b"author " + IDENT + b"\n", msg=b"\nmsg\n", parents=()):
    body = b"tree " + tree.hex().encode() + b"\n"
    for p in parents:
        body += b"parent " + p.hex().encode() + b"\n"
    return body + author + b"committer " + IDENT + b"\n" + extra + msg


def tag(target, ttype=b"commit", name=b"v1", tagger=b"tagger " + IDENT + b"\n", extra=b""):
    return (b"object " + target.hex().encode() + b"\ntype " + ttype + b"\ntag " + name + b"\n" + tagger + extra +
            b"\nmessage\n")


def main():
    args = sys.argv[1:]
    if args[:1] == ["--sha256"]:
        mkpacks.HASH = hashlib.sha256
        args = args[1:]
    out = args[0]
    rawsz = mkpacks.HASH().digest_size
    os.makedirs(out, exist_ok=True)
    cases = []

    def put(name, entries, opts="", where="out"):
        with open(os.path.join(out, name + ".pack"), "wb") as f:
            f.write(build(entries))
        cases.append("%s\t%s\t%s" % (name, opts or "-", where))

    hello = b"hello\n"
    blob = obj(OBJ_BLOB, hello)
    B = oid(OBJ_BLOB, hello)
    empty_tree = obj(OBJ_TREE, b"")
    ET = oid(OBJ_TREE, b"")
    good_tree = ent(b"100644", b"a", B)
    T = oid(OBJ_TREE, good_tree)
    C = oid(OBJ_COMMIT, commit(T))

    # A valid pack: blob, tree, commit, tag.
    put("good", [blob, obj(OBJ_TREE, good_tree), obj(OBJ_COMMIT, commit(T)), obj(OBJ_TAG, tag(C))])
    # Trees.
    for name, mode, fname in [("dotgit", b"100644", b".git"), ("dotgit-upper", b"100644", b".GIT"),
                              ("dotgit-hfs", b"100644", b".gi\xe2\x80\x8ct"), ("dotgit-ntfs", b"100644", b"git~1"),
                              ("dot", b"100644", b"."), ("dotdot", b"100644", b".."), ("slash", b"100644", b"a/b"),
                              ("zero-pad", b"0100644", b"a"), ("bad-mode", b"100664", b"a"),
                              ("odd-mode", b"100000", b"a"), ("empty-name", b"100644", b"")]:
        put("tree-" + name, [blob, obj(OBJ_TREE, ent(mode, fname, B))])
    put("tree-dotgit-warn", [blob, obj(OBJ_TREE, ent(b"100644", b".git", B))], "--strict=hasDotgit=warn")
    put("tree-dotgit-ignore", [blob, obj(OBJ_TREE, ent(b"100644", b".git", B))], "--strict=hasdotgit=ignore")
    put("tree-bad-mode-error", [blob, obj(OBJ_TREE, ent(b"100664", b"a", B))], "--strict=badFilemode=error")
    put("tree-null", [obj(OBJ_TREE, ent(b"100644", b"a", b"\0" * rawsz))])
    put("tree-null-warn", [obj(OBJ_TREE, ent(b"160000", b"a", b"\0" * rawsz))], "--strict=nullSha1=warn")
    put("tree-unsorted", [blob, obj(OBJ_TREE, ent(b"100644", b"b", B) + ent(b"100644", b"a", B))])
    put("tree-duplicate", [blob, obj(OBJ_TREE, ent(b"100644", b"a", B) + ent(b"100644", b"a", B))])
    put("tree-truncated", [blob, obj(OBJ_TREE, ent(b"100644", b"a", B)[:-3])])
    put("tree-several", [blob, obj(OBJ_TREE, ent(b"100664", b".git", B) + ent(b"0100644", b"..", B))],
        "--strict=hasDotgit=warn,hasDotdot=warn,zeroPaddedFilemode=warn")
    put("tree-gitlink", [obj(OBJ_TREE, ent(b"160000", b"sub", H(b"x")))])
    # Commits.
    def c(name, data, opts=""):
        put("commit-" + name, [blob, obj(OBJ_TREE, good_tree), obj(OBJ_COMMIT, data)], opts)
    c("good-parentless", commit(T))
    c("bad-tz", commit(T, author=b"author A <a@example.org> 1700000000 +01x0\n"))
    c("overflow", commit(T, author=b"author A <a@example.org> 99999999999999999999 +0000\n"))
    c("zero-date", commit(T, author=b"author A <a@example.org> 01700000000 +0000\n"))
    c("nul", commit(T, msg=b"\nmsg\0more\n"))
    c("nul-warn", commit(T, msg=b"\nmsg\0more\n"), "--strict=nulInCommit=warn")
    c("no-author", commit(T, author=b""))
    c("bad-email", commit(T, author=b"author A a@example.org> 1700000000 +0000\n"))
    c("two-authors", commit(T, author=b"author " + IDENT + b"\nauthor " + IDENT + b"\n"))
    c("bogus", b"tree nothex\n")
    c("bad-parent", commit(T).replace(b"author", b"parent 123\nauthor", 1))
    c("missing-parent", commit(T, parents=[H(b"p")]))
    put("commit-tree-is-blob", [blob, obj(OBJ_COMMIT, commit(B))])
    put("commit-before-blob", [obj(OBJ_COMMIT, commit(B)), blob])
    put("commit-parent-is-blob", [blob, obj(OBJ_TREE, good_tree), obj(OBJ_COMMIT, commit(T, parents=[B]))])
    put("commit-missing-tree", [obj(OBJ_COMMIT, commit(ET))])
    # Tags.
    base = [blob, obj(OBJ_TREE, good_tree), obj(OBJ_COMMIT, commit(T))]
    put("tag-bad-name", base + [obj(OBJ_TAG, tag(C, name=b"bad..name"))])
    put("tag-no-tagger", base + [obj(OBJ_TAG, tag(C, tagger=b""))])
    put("tag-no-tagger-error", base + [obj(OBJ_TAG, tag(C, tagger=b""))], "--strict=missingTaggerEntry=error")
    put("tag-bad-type", base + [obj(OBJ_TAG, tag(C, ttype=b"bogus"))])
    put("tag-wrong-type", base + [obj(OBJ_TAG, tag(C, ttype=b"tree"))])
    put("tag-missing-target", [obj(OBJ_TAG, tag(H(b"t")))])
    put("tag-bad-header", base + [obj(OBJ_TAG, b"object " + C.hex().encode() + b"\n")])
    # .gitmodules: the blob after its tree (checked at once), before it (checked after the idx is
    # written, which stays), or a symbolic link.
    gm = b"[submodule \"x\"]\n\tpath = x\n\turl = -evil\n"
    G = oid(OBJ_BLOB, gm)
    gtree = obj(OBJ_TREE, ent(b"100644", b".gitmodules", G))
    put("gitmodules-after", [gtree, obj(OBJ_BLOB, gm)])
    put("gitmodules-before", [obj(OBJ_BLOB, gm), gtree])
    put("gitmodules-warn", [gtree, obj(OBJ_BLOB, gm)], "--strict=gitmodulesUrl=warn")
    put("gitmodules-symlink", [obj(OBJ_BLOB, gm), obj(OBJ_TREE, ent(b"120000", b".gitmodules", G))])
    put("gitmodules-parse", [obj(OBJ_TREE, ent(b"100644", b".gitmodules", B[:0] + oid(OBJ_BLOB, b"[bad\n"))),
                             obj(OBJ_BLOB, b"[bad\n")])
    ga = b"a" * 3000 + b" text\n"
    put("gitattributes-long", [obj(OBJ_TREE, ent(b"100644", b".gitattributes", oid(OBJ_BLOB, ga))), obj(OBJ_BLOB, ga)])
    put("gitmodules-is-tree", [empty_tree, obj(OBJ_TREE, ent(b"100644", b".gitmodules", ET))])
    # A delta whose result is a bad tree.
    t1 = ent(b"100644", b"a", B)
    t2 = ent(b"100644", b".git", B)
    put("delta-tree", [blob, obj(OBJ_TREE, t1), {"type": OBJ_OFS, "ofs": 1, "data": delta(len(t1), len(t2), insert_ops(t2))}])
    # Links to objects that are not in the pack.
    M1 = H(b"m1")
    put("missing-blob", [obj(OBJ_TREE, ent(b"100644", b"a", M1))])
    put("missing-two", [obj(OBJ_TREE, ent(b"100644", b"a", M1) + ent(b"100644", b"b", B)
                             + ent(b"40000", b"c", H(b"m3")))])
    # Inside a repository: the blob and tree the pack lacks are there (loose, packed), or of
    # another type.
    R1, R2 = b"in the repository, loose\n", b"in the repository, packed\n"
    put("repo-links", [obj(OBJ_TREE, ent(b"100644", b"a", oid(OBJ_BLOB, R1)) + ent(b"100644", b"b", oid(OBJ_BLOB, R2)))],
        "", "repo")
    put("repo-wrong-type", [obj(OBJ_TREE, ent(b"40000", b"a", oid(OBJ_BLOB, R1)))], "", "repo")
    put("repo-missing", [obj(OBJ_TREE, ent(b"100644", b"a", M1))], "", "repo")
    with open(os.path.join(out, "repo.txt"), "w") as f:
        f.write("loose blob %s\npacked blob %s\n" % (R1.hex(), R2.hex()))
    # Option lists git refuses, and a skip list.
    put("opt-unknown", [blob], "--strict=noSuchId=warn")
    put("opt-no-equal", [blob], "--strict=hasDotgit")
    put("opt-bad-value", [blob], "--strict=hasDotgit=maybe")
    put("opt-fatal", [blob], "--strict=nulInHeader=warn")
    put("opt-skiplist-missing", [blob], "--strict=skiplist=" + os.path.join(out, "nonexistent"))
    dg = obj(OBJ_TREE, ent(b"100644", b".git", B))
    with open(os.path.join(out, "skip.txt"), "w") as f:
        f.write("# skipped\n%s  \n" % oid(OBJ_TREE, dg["data"]).hex())
    put("opt-skiplist", [blob, dg], "--strict=skiplist=" + os.path.join(out, "skip.txt"))
    with open(os.path.join(out, "cases.txt"), "w") as f:
        f.write("\n".join(cases) + "\n")


if __name__ == "__main__":
    main()
