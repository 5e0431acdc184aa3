/*
 * midx.h - the contents of a multi-pack-index compared with the packs it names, as git 2.39.5's
 * `git multi-pack-index verify` does after the load and the checksum (midx.c verify_midx_file,
 * prepare_midx_pack, fill_midx_entry, nth_midxed_offset; packfile.c add_packed_git,
 * is_pack_valid, open_packed_git_1, find_pack_entry_one, nth_packed_object_offset;
 * hash-lookup.c bsearch_hash). Internal to the Git layer; trailer.c loads the file and calls it.
 * Git 2.55.0's verify (m->git_version) is the same after its load, which refuses a fanout that
 * decreases before verify runs (trailer.h), except that it dies on a LOFF index beyond the chunk
 * ("multi-pack-index large offset out of bounds", 2abd56e9b2, 2.43).
 * Git 2.55.0 also verifies an incremental chain (midx.c, 2.47+: the layers of
 * OBJDIR/pack/multi-pack-index.d, m the top one, m->base down to the base): "failed to load pack
 * in position N" for every pack of the chain (pack-int-ids count from the base layer's first
 * pack); the top layer's fanout and count alone; its OID order checked once per layer (each line
 * that many times, git's loop over the layers reading the top one each time); pairs for every
 * object of the chain (positions from the base layer's first object), of which only the first
 * (the top layer's count) are sorted; each ID looked up in the layers from the top down.
 *
 * Sources: Git's Documentation/gitformat-pack.txt, "multi-pack-index (MIDX) files": chunks PNAM
 * (the pack names "pack-X.idx", NUL-terminated, one after the other), OIDF (256 4-byte cumulative
 * counts; the last is the number of objects), OIDL (the object IDs in order), OOFF (per object a
 * 4-byte pack-int-id, the pack's place in PNAM, and a 4-byte offset; its high bit set: an index
 * into LOFF when that chunk exists), LOFF (8-byte offsets). What git 2.39.5 checks, in order, each
 * finding an unprefixed line (midx_report) and exit status 1:
 *  1. each pack of PNAM can be added ("failed to load pack in position N": the name does not end
 *     in .idx or OBJDIR/pack/X.pack is not a regular file);
 *  2. the fanout never decreases ("oid fanout out of order: ..."); no objects at all: "the midx
 *     contains no oid", and nothing more;
 *  3. the OID lookup order ("oid lookup out of order: ...");
 *  4. the objects grouped by pack-int-id (git's qsort of (position, pack-int-id) pairs with a
 *     comparator b - a: glibc's merge sort, reproduced here step for step), each looked up again by
 *     its ID (binary search within the fanout: "failed to load pack entry for oid[N] = ID" when it
 *     is not found, its pack cannot be added or opened), then its offset, from OOFF or LOFF,
 *     compared with the offset its pack's idx gives (0 when the idx does not list it): "incorrect
 *     object offset for oid[N] = ID: MIDX != IDX" (hexadecimal). Opening a pack (is_pack_valid)
 *     prints git's own lines when it fails, each time it is tried: the idx's load error and
 *     "error: packfile P index unavailable", or the pack's (skg_pk_git_open_check); P names the
 *     pack by the objects directory as given.
 * git dies (exit 128, the "fatal: " line last) on a pack-int-id beyond the pack count ("bad
 * pack-int-id: N (M total packs)") and on a 64-bit idx offset past the idx's end. LOFF indices are
 * not bounds-checked by 2.39.5 (git 2.55 dies: "multi-pack-index large offset out of bounds");
 * reads past the end of the file give zeros, as the zero fill of git's mapping.
 * "failed to load pack-index for packfile P" is not produced: in 2.39.5 the idx was loaded by
 * is_pack_valid just before, and nothing closes it in between.
 * Not modelled: where git's verify reads outside its memory (a fanout or pack-int-id that sends it
 * beyond the last page of its mapping of the file, or beyond its array of packs), git crashes or
 * reads garbage; here one line of sha1kit's own ends the check ("sha1kit: ..."). Progress lines
 * (only on a terminal), packs that vanish between the checks, and a pack directory entry that is
 * a directory (git dies in mmap) are not followed.
 */
#ifndef SHA1KIT_GIT_MIDX_H
#define SHA1KIT_GIT_MIDX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "loose.h"

/* A loaded multi-pack-index: its bytes and where its chunks start (offsets in data). */
struct skg_midx {
	const uint8_t *data;
	size_t len;
	uint32_t num_packs; /* from the header */
	uint64_t names, fanout, lookup, offsets, large;
	bool has_large;       /* a LOFF chunk */
	uint64_t large_size;  /* its size in bytes */
	unsigned git_version; /* the Git whose verify this is (SKG_GIT_2_39 or SKG_GIT_2_55) */
	unsigned rawsz;       /* bytes of an object ID and checksum: 20 (SHA-1) or 32 (SHA-256) */
	/* An incremental chain (git 2.47+, OBJDIR/pack/multi-pack-index.d, 2.55 only): the layer
	 * below this one (NULL: none), and the packs and objects of all the layers below, which come
	 * first in the chain's numbering of packs (pack-int-ids) and objects (midx.c
	 * num_packs_in_base, num_objects_in_base). */
	const struct skg_midx *base;
	uint32_t packs_in_base, objects_in_base;
	uint32_t num_objects; /* OIDF's last count (bytes past the file read as zeros) */
};

/*
 * What the check does with its lines and files: flush(ctx, lines) sends the lines so far and
 * clears them (NULL: they stay, and those that do not fit are dropped); on_map, map_ctx: as for
 * skg_file_map (<sha1kit/git_pack.h>), told of each idx and pack mapped (may be NULL).
 */
struct skg_midx_io {
	void (*flush)(void *ctx, struct skg_lines *lines);
	void *ctx;
	void (*on_map)(void *ctx, const void *addr, uint64_t len, const char *path, bool mapped);
	void *map_ctx;
	/* git 2.55's meters of verify_midx_file (its fsck runs the verify with --progress when it
	 * shows progress itself: "Verifying OID order in multi-pack-index", "Sorting objects by
	 * packfile", "Verifying object offsets"), with ctx; NULL: none */
	skg_meter_fn meter;
};

enum skg_midx_status {
	SKG_MIDX_OK = 0,    /* nothing reported */
	SKG_MIDX_BAD = 1,   /* lines: verify exits 1 */
	SKG_MIDX_FATAL = 2, /* the last line is git's "fatal: ": verify exits 128 */
};

/*
 * The checks above of m, whose packs are in OBJDIR/pack (objdir as git's verify was given it: the
 * paths of the lines are built from it), lines appended. Returns an enum skg_midx_status, or -1
 * when memory ran out (lines->nomem).
 */
int skg_midx_verify(const struct skg_midx *m, const char *objdir, const struct skg_midx_io *io,
                    struct skg_lines *lines);

#endif /* SHA1KIT_GIT_MIDX_H */
