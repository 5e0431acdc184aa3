#!/usr/bin/env python3
"""mkpacks.py - make the broken and hand-made Git packs for tests/pack/test_pack.sh.

Usage: mkpacks.py SEED_PACK OUTDIR

Writes into OUTDIR:
  bad-*.pack    packs every index-pack must reject (exit status 1..127, no idx left behind):
                truncations and byte flips of SEED_PACK (trailer left as is, so the SHA-1 no longer
                matches), and hand-made packs with one defect each (name says which)
  fix-*.pack    byte flips of SEED_PACK with the trailer recomputed: they reach the deeper checks
                (zlib, sizes, deltas); any of them may still be a valid pack (a flipped type bit
                can turn a blob into a commit), so the test only requires no crash and agreement
                with git when both accept it
  good-*.pack   hand-made valid packs (REF_DELTA base after the delta, mixed chains, empty
                objects, version 3, duplicates) to compare with git index-pack
  expect.txt    "NAME<TAB>substring of the expected error message" for the hand-made bad packs
The pack format is Git's Documentation/gitformat-pack.txt.
"""
import hashlib
import os
import random
import sys
import zlib

OBJ_COMMIT, OBJ_TREE, OBJ_BLOB, OBJ_TAG, OBJ_OFS, OBJ_REF = 1, 2, 3, 4, 6, 7
TYPE_NAMES = {1: b"commit", 2: b"tree", 3: b"blob", 4: b"tag"}


def entry_header(t, size):
    out = bytearray()
    c = (t << 4) | (size & 15)
    size >>= 4
    while size:
        out.append(c | 0x80)
        c = size & 0x7F
        size >>= 7
    out.append(c)
    return bytes(out)


def ofs_encode(rel):
    out = [rel & 0x7F]
    rel >>= 7
    while rel:
        rel -= 1
        out.append(0x80 | (rel & 0x7F))
        rel >>= 7
    return bytes(reversed(out))


def varint(n):
    out = bytearray()
    while True:
        c = n & 0x7F
        n >>= 7
        if n:
            out.append(c | 0x80)
        else:
            out.append(c)
            return bytes(out)


# The object format of oid() and build()'s trailer: hashlib.sha1, or hashlib.sha256 for the
# packs of a SHA-256 repository (mkstrict.py --sha256).
HASH = hashlib.sha1


def oid(t, data):
    return HASH(TYPE_NAMES[t] + b" %d\0" % len(data) + data).digest()


def insert_ops(data):
    out = bytearray()
    for i in range(0, len(data), 127):
        chunk = data[i:i + 127]
        out.append(len(chunk))
        out += chunk
    return bytes(out)


def copy_op(off, size):
    cmd, args = 0x80, bytearray()
    for b in range(4):
        if (off >> (8 * b)) & 0xFF:
            cmd |= 1 << b
            args.append((off >> (8 * b)) & 0xFF)
    for b in range(3):
        if (size >> (8 * b)) & 0xFF:
            cmd |= 0x10 << b
            args.append((size >> (8 * b)) & 0xFF)
    return bytes([cmd]) + bytes(args)


def delta(base_len, result_len, ops):
    return varint(base_len) + varint(result_len) + ops


def build(entries, version=2, count=None, fix=True, raw_zlib=None):
    """entries: list of dicts: type, data, and for deltas 'ofs' (index of the base entry) or 'ref'
    (base ID of 20 bytes, 32 with HASH sha256); optional 'size' overrides the header size, 'z' the compressed bytes."""
    out = bytearray(b"PACK" + version.to_bytes(4, "big") + (count if count is not None else len(entries)).to_bytes(4, "big"))
    offsets = []
    for e in entries:
        off = len(out)
        offsets.append(off)
        size = e.get("size", len(e["data"]))
        out += entry_header(e["type"], size)
        if e["type"] == OBJ_OFS:
            out += ofs_encode(e.get("rel", off - offsets[e["ofs"]] if "ofs" in e else 0))
        elif e["type"] == OBJ_REF:
            out += e["ref"]
        out += e.get("z", zlib.compress(e["data"]))
    out += HASH(out).digest() if fix else b"\0" * HASH().digest_size
    return bytes(out)


def parse(pack):
    """The entries of a valid pack, for build(): OFS bases as entry indices."""
    n, p, entries, at = int.from_bytes(pack[8:12], "big"), 12, [], {}
    for i in range(n):
        at[p] = i
        start = p
        c = pack[p]
        p += 1
        t = (c >> 4) & 7
        while c & 0x80:
            c = pack[p]
            p += 1
        e = {"type": t}
        if t == OBJ_OFS:
            c = pack[p]
            p += 1
            rel = c & 0x7F
            while c & 0x80:
                c = pack[p]
                p += 1
                rel = ((rel + 1) << 7) | (c & 0x7F)
            e["ofs"] = at[start - rel]
        elif t == OBJ_REF:
            e["ref"] = pack[p:p + 20]
            p += 20
        z = zlib.decompressobj()
        e["data"] = z.decompress(pack[p:])
        p = len(pack) - len(z.unused_data)
        entries.append(e)
    return entries


def fix_trailer(pack):
    return pack[:-20] + hashlib.sha1(pack[:-20]).digest()


def main():
    seed_path, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    seed = open(seed_path, "rb").read()
    rnd = random.Random(20240521)
    n = len(seed)

    def put(name, data):
        with open(os.path.join(outdir, name + ".pack"), "wb") as f:
            f.write(data)

    # Truncations: every length up to 64, then about 150 points spread over the file, the ends.
    cuts = set(range(0, 65)) | {n - 1, n - 19, n - 20, n - 21, n - 22}
    cuts |= {rnd.randrange(64, n - 20) for _ in range(100)}
    for c in sorted(cuts):
        if 0 <= c < n:
            put("bad-trunc-%d" % c, seed[:c])
    # Flips with the old trailer: always a checksum mismatch at least.
    for i in range(80):
        pos = rnd.randrange(0, n)
        bit = 1 << rnd.randrange(8)
        put("bad-flip-%d-%d" % (pos, bit), seed[:pos] + bytes([seed[pos] ^ bit]) + seed[pos + 1:])
    # Flips with a recomputed trailer: the parser's deeper checks.
    for i in range(150):
        pos = rnd.randrange(0, n - 20)
        x = rnd.choice([1, 2, 4, 8, 16, 32, 64, 128, 0xFF])
        put("fix-flip-%d-%d" % (pos, x), fix_trailer(seed[:pos] + bytes([seed[pos] ^ x]) + seed[pos + 1:]))

    # Mutations of the inflated delta data (recompressed, so zlib is valid and the delta code
    # itself is exercised), the pack rebuilt with consistent offsets and trailer.
    entries = parse(seed)
    deltas = [i for i, e in enumerate(entries) if e["type"] in (OBJ_OFS, OBJ_REF)]
    for k in range(120 if deltas else 0):
        i = rnd.choice(deltas)
        d = bytearray(entries[i]["data"])
        how = rnd.randrange(4)
        if how == 0 and d:
            d[rnd.randrange(len(d))] ^= 1 << rnd.randrange(8)
        elif how == 1 and d:
            d[rnd.randrange(len(d))] = rnd.randrange(256)
        elif how == 2:
            del d[rnd.randrange(len(d) + 1):]
        else:
            d += bytes([rnd.randrange(256) for _ in range(rnd.randrange(1, 4))])
        mutated = [dict(e) for e in entries]
        mutated[i]["data"] = bytes(d)
        put("fix-delta-%d-%d-%d" % (k, i, how), build(mutated))

    expect = []

    def bad(name, data, msg):
        put("bad-" + name, data)
        expect.append("bad-%s\t%s" % (name, msg))

    base = b"hello, world\n" * 5
    blob = {"type": OBJ_BLOB, "data": base}
    bad("empty", b"", "not a pack file")
    bad("short", b"PACK\0\0\0\2", "truncated")
    bad("signature", b"KCAP" + seed[4:], "not a pack file")
    bad("version4", fix_trailer(seed[:7] + b"\4" + seed[8:]), "unsupported pack version 4")
    bad("count-plus1", fix_trailer(seed[:8] + (int.from_bytes(seed[8:12], "big") + 1).to_bytes(4, "big") + seed[12:]),
        "object count")
    bad("count-minus1", fix_trailer(seed[:8] + (int.from_bytes(seed[8:12], "big") - 1).to_bytes(4, "big") + seed[12:]),
        "after its")
    bad("junk-after-trailer", seed + b"junk", "after its")
    bad("trailer", seed[:-1] + bytes([seed[-1] ^ 1]), "trailer mismatch")
    bad("type0", build([{"type": 0, "data": b"x"}]), "invalid object type 0")
    bad("type5", build([{"type": 5, "data": b"x"}]), "invalid object type 5")
    bad("size-short", build([{"type": OBJ_BLOB, "data": base, "size": len(base) + 1}]), "inflates to")
    bad("size-long", build([{"type": OBJ_BLOB, "data": base, "size": len(base) - 1}]), "inflates to more")
    bad("zlib-corrupt", build([{"type": OBJ_BLOB, "data": base, "z": b"\x78\x9c\xff\xff\xff\xff" + b"\0" * 8}]),
        "corrupt zlib")
    z = zlib.compress(base)
    bad("zlib-adler", build([{"type": OBJ_BLOB, "data": base, "z": z[:-1] + bytes([z[-1] ^ 1])}]), "corrupt zlib")
    bad("size-overflow", fix_trailer(b"PACK\0\0\0\2\0\0\0\1" + b"\xbf" + b"\xff" * 10 + b"\x01" + b"\0" * 40),
        "overflows")
    h = b"PACK\0\0\0\2\0\0\0\1\xbf\xff\xff"
    bad("header-trunc", h + hashlib.sha1(h).digest(), "truncated")
    d_ok = delta(len(base), 5, copy_op(0, 5))
    bad("delta-copy-range", build([blob, {"type": OBJ_OFS, "ofs": 0, "data": delta(len(base), 5, copy_op(len(base) - 2, 5))}]),
        "copies from outside")
    bad("delta-copy-size0", build([blob, {"type": OBJ_OFS, "ofs": 0, "data": delta(len(base), 0x10000, b"\x80")}]),
        "copies from outside")
    bad("delta-result-short", build([blob, {"type": OBJ_OFS, "ofs": 0, "data": delta(len(base), 10, insert_ops(b"abcde"))}]),
        "its header says")
    bad("delta-result-long", build([blob, {"type": OBJ_OFS, "ofs": 0, "data": delta(len(base), 3, insert_ops(b"abcde"))}]),
        "its header says")
    bad("delta-base-size", build([blob, {"type": OBJ_OFS, "ofs": 0, "data": delta(len(base) + 1, 5, copy_op(0, 5))}]),
        "base of")
    bad("delta-op0", build([blob, {"type": OBJ_OFS, "ofs": 0, "data": delta(len(base), 5, b"\0" + copy_op(0, 5))}]),
        "reserved instruction")
    bad("delta-copy-trunc", build([blob, {"type": OBJ_OFS, "ofs": 0, "data": delta(len(base), 5, b"\x91\x00")}]),
        "truncated")
    bad("delta-insert-trunc", build([blob, {"type": OBJ_OFS, "ofs": 0, "data": delta(len(base), 5, b"\x05ab")}]),
        "past the end")
    bad("delta-header", build([blob, {"type": OBJ_OFS, "ofs": 0, "data": b"\x80\x80\x80\x80"}]), "delta header")
    bad("ofs-not-object", build([blob, {"type": OBJ_OFS, "rel": 3, "data": d_ok}]), "not the start of an object")
    bad("ofs-out-of-bounds", build([blob, {"type": OBJ_OFS, "rel": 1000, "data": d_ok}]), "out of bounds")
    bad("ofs-self", build([blob, {"type": OBJ_OFS, "rel": 0, "data": d_ok}]), "out of bounds")
    missing = hashlib.sha1(b"missing").digest()
    bad("ref-missing", build([blob, {"type": OBJ_REF, "ref": missing, "data": d_ok}]), "not in the pack")
    # Two deltas whose bases are each other's (unknowable) IDs: a cycle can only look like this.
    a = {"type": OBJ_REF, "ref": hashlib.sha1(b"a").digest(), "data": delta(5, 5, insert_ops(b"aaaaa"))}
    b = {"type": OBJ_REF, "ref": hashlib.sha1(b"b").digest(), "data": delta(5, 5, insert_ops(b"bbbbb"))}
    bad("ref-cycle", build([blob, a, b]), "unresolved delta")
    bad("ofs-chain-missing", build([blob, {"type": OBJ_REF, "ref": missing, "data": d_ok},
                                    {"type": OBJ_OFS, "ofs": 1, "data": delta(5, 3, copy_op(0, 3))}]), "not in the pack")
    # git's patch_delta (patch-delta.c) and get_delta_hdr_size (delta.h), in their order: a copy
    # past the result's size goes wild before a later opcode 0; a first size field that takes the
    # whole delta (git reads the 0 after it as the second); a size field past 64 bits (git's
    # st_left_shift dies); a delta that does not apply wins over an OFS_DELTA whose base offset
    # is no entry (git leaves that one unresolved), and such a delta and the one on it are two
    # unresolved deltas
    bad("delta-wild-then-op0", build([blob, {"type": OBJ_OFS, "ofs": 0, "data": delta(len(base), 5, copy_op(0, 10) + b"\0")}]),
        "reserved instruction")
    blob5 = {"type": OBJ_BLOB, "data": b"abcde"}
    bad("delta-hdr-takes-all", build([blob5, {"type": OBJ_OFS, "ofs": 0, "data": b"\x85\x80\x80\x80"}]), "delta header")
    bad("delta-size-overflow", build([blob5, {"type": OBJ_OFS, "ofs": 0, "data": b"\x80" * 9 + b"\x02" + varint(5) + insert_ops(b"abcde")}]),
        "delta header")
    bad("ofs-not-object-bad-delta", build([blob, {"type": OBJ_OFS, "rel": 3, "data": d_ok},
                                           {"type": OBJ_OFS, "ofs": 0, "data": delta(len(base) + 1, 5, copy_op(0, 5))}]),
        "not the start of an object")
    bad("ofs-not-object-chain", build([blob, {"type": OBJ_OFS, "rel": 3, "data": d_ok},
                                       {"type": OBJ_OFS, "ofs": 1, "data": delta(5, 3, copy_op(0, 3))}]), "not the start of an object")

    # Valid hand-made packs.
    base_id = oid(OBJ_BLOB, base)
    d1 = base[:20] + b"changed\n" + base[20:]
    d1_id = oid(OBJ_BLOB, d1)
    put("good-ref-after", build([{"type": OBJ_REF, "ref": base_id, "data": delta(len(base), len(d1),
                                                                                 copy_op(0, 20) + insert_ops(b"changed\n") + copy_op(20, len(base) - 20))},
                                 blob]))
    d2 = d1 + b"tail\n"
    put("good-mixed-chain", build([blob,
                                   {"type": OBJ_OFS, "ofs": 0, "data": delta(len(base), len(d1), copy_op(0, 20) + insert_ops(b"changed\n") + copy_op(20, len(base) - 20))},
                                   {"type": OBJ_REF, "ref": d1_id, "data": delta(len(d1), len(d2), copy_op(0, len(d1)) + insert_ops(b"tail\n"))},
                                   {"type": OBJ_OFS, "ofs": 2, "data": delta(len(d2), 4, copy_op(1, 4))}]))
    put("good-empty", build([{"type": OBJ_BLOB, "data": b""}, {"type": OBJ_TREE, "data": b""},
                             {"type": OBJ_OFS, "ofs": 0, "data": delta(0, 2, insert_ops(b"ab"))}]))
    bad("delta-too-short", build([{"type": OBJ_BLOB, "data": b""}, {"type": OBJ_OFS, "ofs": 0, "data": delta(0, 0, b"")}]),
        "too short")
    put("good-zero-objects", build([]))
    put("good-v3", fix_trailer(seed[:7] + b"\3" + seed[8:]))
    put("good-dup", build([blob, blob, {"type": OBJ_OFS, "ofs": 1, "data": d_ok}]))
    put("good-bigcopy", build([{"type": OBJ_BLOB, "data": bytes(range(256)) * 1024},
                               {"type": OBJ_OFS, "ofs": 0, "data": delta(262144, 0x30000, b"\x80" + copy_op(0x10000, 0x10000) + b"\x80")}]))
    # --strict only: a tree with unsorted entries (a valid pack otherwise).
    t = b"100644 b\0" + base_id + b"100644 a\0" + base_id
    put("strict-tree", build([blob, {"type": OBJ_TREE, "data": t}]))
    expect.append("strict-tree\ttreeNotSorted: not properly sorted")
    put("strict-dup", build([blob, blob]))
    expect.append("strict-dup\tappears twice")
    with open(os.path.join(outdir, "expect.txt"), "w") as f:
        f.write("\n".join(expect) + "\n")


if __name__ == "__main__":
    main()
