/*
 * trailer.h - the header and trailing checksum of Git's commit-graph, multi-pack-index and
 * pack reverse-index (.rev) files, checked and reported as git 2.39.5 `git fsck --full` does.
 *
 * Part of the Git layer (src/git/, library sha1kit_git). Sources: Git's
 * Documentation/gitformat-commit-graph.txt (header "CGPH", version 1, hash version 1 = SHA-1,
 * number of chunks, number of base graphs; chunk table; the split chain
 * info/commit-graphs/commit-graph-chain of graph-<hash>.graph files, BASE chunk),
 * gitformat-chunk.txt (the table of contents: 12-byte entries id + offset, ended by id 0),
 * gitformat-pack.txt ("multi-pack-index (MIDX) files": "MIDX", version 1, OID version, chunks,
 * base files, pack count; "pack-*.rev files": "RIDX", version 1, hash id 1 or 2, one 4-byte
 * position per object, pack checksum, own checksum). Every file ends in the checksum of all bytes
 * before it, in the repository's object format (plain SHA-1, 20 bytes: these are checksums, not
 * object IDs; or SHA-256, 32); each function takes `rawsz`, the size of the repository's object
 * IDs (20 or 32), and git's hash version in the headers is 1 or 2 to match. The
 * wording of every line was established by running git 2.39.5 on corrupted files.
 *
 * What git 2.39.5 `git fsck --full` does with these files:
 *  - commit-graph: fsck runs `git commit-graph verify --object-dir OBJDIR` (exit status 1 sets
 *    bit 16 of fsck's); before that, fsck itself loads the graph at its first parse of a commit
 *    and prints the same load errors once more. The verify names the files by the object
 *    directory's own path (graph_verify's find_odb), with 2.39.5 too. Verify uses
 *    objects/info/commit-graph when it exists (nothing else), otherwise the chain. A single file
 *    that fails to load: exit 1. A chain whose layer fails to load: the chain ends before it
 *    ("warning: unable to find all commit-graph files") and, if no layer is left, exit 0. A
 *    loaded file with a wrong checksum: "the commit-graph file has incorrect checksum and is likely corrupt"
 * (no prefix), exit 1, after which verify compares the graph with the object database (cgraph.h, through
 *    skg_trailer_commit_graph_verify).
 *  - multi-pack-index: fsck runs `git multi-pack-index verify --object-dir OBJDIR` (bit 32); fsck
 *    itself loads the file first, and dies (exit 128) on a bad signature or version, a missing
 *    required chunk or unordered pack names (2.55.0: also chunks of the wrong size, a decreasing
 *    fanout, pack names past their chunk; see skg_trailer_midx_file). A file that fails to load otherwise:
 * its error, then "error: multi-pack-index file exists, but failed to parse", exit 1. A wrong checksum:
 *    "incorrect checksum" (no prefix), exit 1, then the packs are checked (midx.h, through
 *    skg_trailer_midx_verify).
 *  - .rev files: git 2.39.5 fsck does not look at them at all (exit 0, nothing printed, whatever
 *    the damage); git prints the load errors below only when another command needs the reverse
 *    index, and never checks its checksum. Git 2.41 and later fsck check them and print
 *    "error: invalid checksum" and/or, for each entry that is not the idx position of the
 *    object at that place in pack order, "error: invalid rev-index position at I: WANT != GOT"
 *    (verify_pack_revindex), then "error: invalid rev-index for pack 'P'", or a load error +
 *    "error: unable to load rev-index for pack 'P'" (exit bit 64). skg_trailer_rev_file() reports
 *    in that later wording; a command that wants 2.39.5's behaviour does not print it.
 *
 * Lines come back in a struct skg_lines (loose.h), as git prints them on stderr. Paths in the
 * messages are built from the objects directory as given (git fsck itself spells it as in its
 * own messages, e.g. ".git/objects"; the verify processes it starts print the midx path
 * absolute). No printing, no exit, no global mutable state.
 */
#ifndef SHA1KIT_GIT_TRAILER_H
#define SHA1KIT_GIT_TRAILER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "loose.h"

/* The .rev header (gitformat-pack.txt "pack-*.rev files"; git's pack-revindex.h RIDX_SIGNATURE,
 * RIDX_VERSION): signature "RIDX", version, hash id (git's oid_version: 1 SHA-1, 2 SHA-256), each
 * a big-endian 32-bit word. Read here, written by pack_rev.c. */
#define SKG_RIDX_SIGNATURE   0x52494458u /* "RIDX" */
#define SKG_RIDX_VERSION     1u
#define SKG_RIDX_HASH_SHA1   1u
#define SKG_RIDX_HASH_SHA256 2u
#define SKG_RIDX_HEADER      12u /* bytes */

/* Outcome of a check. */
enum skg_trailer_status {
	SKG_TRAILER_OK = 0,     /* the file is there and sound as far as checked; no lines */
	SKG_TRAILER_ABSENT = 1, /* no such file (git says nothing) */
	SKG_TRAILER_WARNED = 2, /* lines, but git's verify command exits 0 (a broken chain layer) */
	SKG_TRAILER_BAD = 3,    /* lines; git's verify command exits 1 (git fsck: exit |= 16 for
	                         * the commit-graph, 32 for the multi-pack-index, 64 for .rev in
	                         * git 2.41+) */
	SKG_TRAILER_FATAL = 4,  /* the last line is "fatal: ...": git dies there (exit 128) */
};

/* What to report: what the verify command prints, or what any git process that opens the file
 * prints (git fsck itself, before it runs the verify command). */
enum skg_trailer_mode {
	SKG_TRAILER_VERIFY = 0,
	SKG_TRAILER_LOAD = 1,
};

/* True when the last rawsz of the `len` bytes at data are the checksum of the bytes before them
 * (skg_checksum: SHA-1 for 20, SHA-256 for 32). */
bool skg_trailer_checksum_ok(const uint8_t *data, size_t len, unsigned rawsz);

/*
 * The commit-graph readers take `git_version` (SKG_GIT_2_39 or SKG_GIT_2_55 of <sha1kit/git.h>):
 * with 2.55 the chunks are read as Git 2.43+ reads them (sizes, the fan-out's order, "commit-graph
 * required ... chunk missing or corrupted"), and a chain that does not load whole fails verify
 * ("error: one or more commit-graph chain files could not be loaded", as 2.55.0; not 2.39.5).
 *
 * One commit-graph file (objects/info/commit-graph or a chain's graph-<hash>.graph): git's load
 * checks (size, signature, version, hash version, chunk table, required chunks OIDF, OIDL,
 * CDAT) and, in VERIFY mode, the checksum. Lines are replaced. Returns an enum
 * skg_trailer_status (BAD for a file that does not load, as verify of a single file exits 1).
 */
int skg_trailer_graph_file(const char *path, enum skg_trailer_mode mode, unsigned rawsz, unsigned git_version,
                           struct skg_lines *lines);

/* skg_trailer_graph_file() of a file already in memory (`len` bytes at data, only read). */
int skg_trailer_graph_buf(const uint8_t *data, size_t len, enum skg_trailer_mode mode, unsigned rawsz,
                          unsigned git_version, struct skg_lines *lines);

/*
 * The commit-graph of objects directory `objdir` as `git commit-graph verify --object-dir
 * OBJDIR` checks it (VERIFY: info/commit-graph alone when it exists, else the chain, checksums
 * from the tip down) or as a git process loads it (LOAD: info/commit-graph, and the chain when
 * that does not load). Lines are replaced. sources[0..nsources): the object directories git looks
 * in for each layer a chain names, in its order (the repository's, then its alternates: git's
 * load_commit_graph_chain_fd_st; the first where the layer loads is taken); NULL: objdir alone.
 */
int skg_trailer_commit_graph(const char *objdir, const char *const *sources, size_t nsources,
                             enum skg_trailer_mode mode, unsigned rawsz, unsigned git_version,
                             struct skg_lines *lines);

/*
 * skg_trailer_commit_graph(objdir, sources, nsources, SKG_TRAILER_VERIFY, lines) with all of git's
 * verify_commit_graph(): the contents of the graph and of each layer compared with the object
 * database `odb` reads (cgraph.h), lines flushed through odb->flush as they grow. FATAL also when
 * memory ran out (lines->nomem).
 */
struct skg_cgraph_odb;
int skg_trailer_commit_graph_verify(const char *objdir, const char *const *sources, size_t nsources,
                                    const struct skg_cgraph_odb *odb, unsigned rawsz, unsigned git_version,
                                    struct skg_lines *lines);

/*
 * The commit-graph a git process parses commits from (commit-graph.c prepare_commit_graph and
 * read_commit_graph_one): that of the first of dirs[0 .. ndirs) (the repository's objects
 * directory, then its alternates) where one loads, info/commit-graph or else the chain (its layers
 * looked for in each of dirs), its checksum not checked; the load's lines are not given (the
 * caller reports them where git does), and a load git dies on gives none. *layers (tip first,
 * *nlayers of them, as cgraph.h reads them) stay valid until skg_trailer_graph_close(*out).
 * None: *out NULL, *nlayers 0. *dir: the index in dirs of the one it came from. 0, or -1 when out
 * of memory.
 */
struct skg_cgraph_open;
struct skg_cgraph_layer;
int skg_trailer_graph_open(const char *const *dirs, size_t ndirs, unsigned rawsz, unsigned git_version,
                           struct skg_cgraph_open **out, const struct skg_cgraph_layer **layers,
                           size_t *nlayers, size_t *dir);
void skg_trailer_graph_close(struct skg_cgraph_open *h);

/*
 * One multi-pack-index file: git's load checks (size, signature, version, hash version, chunk
 * table, chunks PNAM, OIDF (and its size), OIDL, OOFF, pack name order) and, in VERIFY mode,
 * "multi-pack-index file exists, but failed to parse" or the checksum. Lines are replaced.
 * git_version (SKG_GIT_2_39 or SKG_GIT_2_55): the load of that Git's midx.c. 2.55.0
 * (load_multi_pack_index_one, from 2.43's 72a9a08283 series and 2.44's 9d78fb0eb6) also reads
 * version 2 files; checks that chunk offsets are 4-byte aligned ("chunk id X not 4-byte
 * aligned"); dies with "multi-pack-index required CHUNK chunk missing or corrupted" where 2.39.5
 * says "missing required CHUNK chunk", after "multi-pack-index OID fanout is of the wrong size",
 * "oid fanout out of order: fanout[I] = X > Y = fanout[I+1]", "multi-pack-index OID lookup chunk
 * is the wrong size" or "multi-pack-index object offset chunk is the wrong size"; and reads the
 * pack names within their chunk ("multi-pack-index pack-name chunk is too short"), in order in
 * version 1 only.
 */
int skg_trailer_midx_file(const char *path, enum skg_trailer_mode mode, unsigned rawsz, unsigned git_version,
                          struct skg_lines *lines);

/* skg_trailer_midx_file() of a file already in memory; `path` is used in the messages only. */
int skg_trailer_midx_buf(const uint8_t *data, size_t len, const char *path, enum skg_trailer_mode mode,
                         unsigned rawsz, unsigned git_version, struct skg_lines *lines);

/* skg_trailer_midx_file() of OBJDIR/pack/multi-pack-index. */
int skg_trailer_midx(const char *objdir, enum skg_trailer_mode mode, unsigned rawsz, unsigned git_version,
                     struct skg_lines *lines);

/*
 * skg_trailer_midx(objdir, SKG_TRAILER_VERIFY, lines) with all of git 2.39.5's verify_midx_file():
 * after the load and the checksum line, the contents against the packs (midx.h), lines flushed
 * through io->flush as they grow. FATAL also when memory ran out (lines->nomem). With git 2.55,
 * what skg_trailer_midx_load() loads: a chain's lines, its top layer's checksum, then the whole
 * chain's contents (midx.h).
 */
struct skg_midx_io;
int skg_trailer_midx_verify(const char *objdir, const struct skg_midx_io *io, unsigned rawsz,
                            unsigned git_version, struct skg_lines *lines);

/*
 * skg_trailer_midx_verify() as git 2.55.0, of an incremental chain whose n layers are in memory
 * (data[i], len[i] bytes, only read; the base first), its packs in OBJDIR/pack: each layer loaded
 * in turn (a layer that does not load ends the chain with git's warning), then the verify of the
 * layers that loaded. For the fuzzer.
 */
int skg_trailer_midx_chain_buf_verify(const uint8_t *const *data, const size_t *len, size_t n,
                                      const char *objdir, const struct skg_midx_io *io, unsigned rawsz,
                                      struct skg_lines *lines);

/*
 * The lines git_version's git prints when it loads OBJDIR's multi-pack-index: OBJDIR/pack/
 * multi-pack-index, and with git 2.55, when that does not load, the incremental chain of
 * OBJDIR/pack/multi-pack-index.d (git 2.47+; its warnings: "multi-pack-index chain file too small",
 * "invalid multi-pack-index chain: line 'L' not a hash", "unable to find all multi-pack index
 * files"); lines are replaced. A status as skg_trailer_midx's in LOAD mode (FATAL when git dies
 * there), and *loaded: whether a multi-pack-index (the file or one layer or more) loaded. git keeps
 * one that loaded for the life of the process; one that did not is loaded again, with its lines,
 * each time git reads its pack directories again.
 */
int skg_trailer_midx_load(const char *objdir, unsigned rawsz, unsigned git_version, struct skg_lines *lines,
                          bool *loaded);

/* skg_trailer_midx_verify() of a file already in memory (`len` bytes at data, only read), its
 * packs in OBJDIR/pack. */
int skg_trailer_midx_buf_verify(const uint8_t *data, size_t len, const char *objdir,
                                const struct skg_midx_io *io, unsigned rawsz, unsigned git_version,
                                struct skg_lines *lines);

/*
 * The pack names ("pack-X.idx") OBJDIR's multi-pack-index lists (skg_trailer_midx_load: with git
 * 2.55 a chain's, the base layer's first: in the order of pack-int-ids), in its order, when git loads it
 * (gitformat-pack(5), "multi-pack-index files", chunk PNAM): a malloc'd array of *n malloc'd
 * strings in *names (none when there is no multi-pack-index or git_version's git would not load it);
 * and the pack each of ids[0 .. nids) is found in through it (a place in *names, in pack_of[0 ..
 * nids); UINT32_MAX when it does not list the ID: chunks OIDF, OIDL, OOFF) and, when off_of is not
 * NULL, its offset in that pack (off_of[0 .. nids): OOFF, or LOFF for a large one; UINT64_MAX when
 * not listed or not readable). 0, or -1 when out of memory.
 */
int skg_midx_pack_names(const char *objdir, unsigned rawsz, unsigned git_version, char ***names, size_t *n,
                        const uint8_t *ids, size_t nids, uint32_t *pack_of, uint64_t *off_of);

/*
 * The IDs OBJDIR's multi-pack-index places in its pack-int-id `place` (chunks OIDL and OOFF; of a
 * chain, each ID by the highest layer that lists it),
 * sorted: git's lookups of those go to that pack (midx.c fill_midx_entry). A malloc'd array of *n
 * IDs of rawsz bytes in *ids (NULL when there is no multi-pack-index git_version's git loads, an
 * array that is not NULL when it loads, even of no ID). 0, or
 * -1 when out of memory.
 */
int skg_midx_pack_ids(const char *objdir, unsigned rawsz, unsigned git_version, uint32_t place, uint8_t **ids,
                      size_t *n);

/* An ID whose entry git's lookup lands on names a pack-int-id its layer does not have. */
struct skg_midx_bad_id {
	uint8_t id[SKG_MAX_RAWSZ];
	uint32_t pack_int_id, total; /* git's "bad pack-int-id: N (M total packs)" */
	bool past_end; /* instead: the entry's offset is past the end of its pack, which is there (git's
	                * read of it dies: "offset beyond end of packfile (truncated pack?)") */
};

/*
 * The IDs of OBJDIR's multi-pack-index whose entry (where git's lookup lands: the top layer first)
 * names a pack beyond those of its layer and the layers below (midx.c midx_for_pack from the
 * entry's layer: git dies at every lookup of them, "bad pack-int-id: N (M total packs)", M the
 * packs up to that layer), or gives an offset at or past the last rawsz bytes of its pack
 * (past_end: packfile.c use_pack dies where git reads the entry), sorted by ID, a malloc'd array
 * of *n in *out (NULL when none). 0, or -1 when out of memory.
 */
int skg_midx_bad_pack_ids(const char *objdir, unsigned rawsz, unsigned git_version,
                          struct skg_midx_bad_id **out, size_t *n);
/* The order of struct skg_midx_bad_id by ID (qsort, bsearch). */
int skg_midx_bad_id_cmp(const void *a, const void *b);

/*
 * The path of the reachability bitmap of OBJDIR's multi-pack-index as git_version's git loads it
 * (pack-bitmap.c midx_bitmap_filename): OBJDIR/pack/multi-pack-index-<checksum>.bitmap, or for a
 * chain OBJDIR/pack/multi-pack-index.d/multi-pack-index-<its top layer's checksum>.bitmap, the
 * checksum in hexadecimal; a malloc'd string in *path, NULL when no multi-pack-index loads. 0, or
 * -1 when out of memory.
 */
int skg_midx_bitmap_path(const char *objdir, unsigned rawsz, unsigned git_version, char **path);

/*
 * One pack reverse index: git's load checks (size, size against `num_objects` when it is not
 * negative, signature, version, hash id), the checksum and the entries against the pack order of
 * the .idx beside it (when that idx loads as git loads it), in git 2.41's fsck wording (above)
 * with P the path ending in .pack instead of .rev. num_objects < 0: taken from the .idx next to
 * it (pack-X.idx), the size check skipped when that cannot be read. Lines are replaced.
 */
int skg_trailer_rev_file(const char *path, unsigned rawsz, int64_t num_objects, struct skg_lines *lines);

/* skg_trailer_rev_file() of a file already in memory; `path` is used in the messages and to find
 * the .idx for the entries' check, and num_objects < 0 skips the size check. */
int skg_trailer_rev_buf(const uint8_t *data, size_t len, const char *path, unsigned rawsz,
                        int64_t num_objects, struct skg_lines *lines);

/* Where lines go when there are more than struct skg_lines holds: fn(ctx, lines) sends them and
 * clears `lines`. */
struct skg_lines_flush {
	void (*fn)(void *ctx, struct skg_lines *lines);
	void *ctx;
};

/* skg_trailer_rev_file() of every OBJDIR/pack/X.rev but multi-pack-index-*.rev that has its X.idx
 * and X.pack (git loads a pack from any *.idx and checks the .rev of the packs it loaded), lines in
 * readdir order, replacing those in `lines`; with `flush` (may be NULL: lines past the buffer are
 * cut) any number of them (a line per entry out of place: one per object of a pack). Returns the
 * worst status (ABSENT when there is none). */
int skg_trailer_revs(const char *objdir, unsigned rawsz, struct skg_lines *lines,
                     const struct skg_lines_flush *flush);

/* The reverse index X.rev of the pack whose idx is `idx_path` (X.idx), as skg_trailer_revs checks
 * it (nothing, ABSENT, when X.idx or X.pack is not a regular file or X.rev is not there), its lines
 * appended to `lines`; flush as there. For git's own order of packs (fsck's check_revs). */
int skg_trailer_pack_rev(const char *idx_path, unsigned rawsz, struct skg_lines *lines,
                         const struct skg_lines_flush *flush);

#endif /* SHA1KIT_GIT_TRAILER_H */
