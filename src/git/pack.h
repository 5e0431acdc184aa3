/*
 * pack.h - Git pack parser and index (.idx) writer: the pack engine of the Git layer (src/git/),
 * which `sha1kit index-pack`, `verify-pack` and `fsck` run. Implemented in src/git/pack*.c, one
 * responsibility a file (listed in pack_internal.h, which they share).
 *
 * Works on a pack held in memory (a mapped file, or a fuzzer's buffer): no I/O, no printing, no
 * exit. Every malformed input gives an error with a message and, where it applies, the offset of
 * the object at fault; nothing reads outside the buffer, and nothing loops without consuming input.
 *
 * Formats: Git's Documentation/gitformat-pack.txt (pack v2/v3: 12-byte header, entries with a
 * variable-length type+size header, zlib data, OFS_DELTA/REF_DELTA, trailer = SHA-1 of everything
 * before it; idx v1 and v2). Object IDs are SHA-1DC of "<type> <size>\0<content>"; the pack and idx
 * checksums use the plain ("fast") SHA-1. In a SHA-256 pack (skg_pk_options.format; Git's
 * hash-function-transition.txt) IDs, REF_DELTA bases, the trailer and the idx's names and
 * checksums are SHA-256, 32 bytes.
 */
#ifndef SHA1KIT_GIT_PACK_H
#define SHA1KIT_GIT_PACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sha1kit/git.h>

/* Entry types of the pack format. */
enum skg_pk_type {
	SKG_PK_COMMIT = 1,
	SKG_PK_TREE = 2,
	SKG_PK_BLOB = 3,
	SKG_PK_TAG = 4,
	SKG_PK_OFS_DELTA = 6,
	SKG_PK_REF_DELTA = 7,
};

#define SKG_PK_NO_BASE UINT32_MAX

/* git's core.bigFileThreshold default (512 MiB, environment.c): larger blobs are streamed, and
 * index-pack's checks get them without their content. */
#define SKG_PK_BIG_FILE_THRESHOLD ((uint64_t)512 << 20)

/* One entry of the pack, in pack order. */
struct skg_pk_object {
	uint64_t offset;           /* of the entry's header in the pack */
	uint64_t size;             /* size from the entry header (for a delta: of the delta data) */
	uint32_t crc32;            /* CRC-32 of the whole entry as stored (header, base, zlib data) */
	uint32_t depth;            /* delta chain length: 0 for a whole object */
	uint32_t base;             /* index of the delta base; SKG_PK_NO_BASE for a whole object */
	uint8_t hdr_len;           /* bytes of entry header plus base reference */
	uint8_t type;              /* entry type (enum skg_pk_type) */
	uint8_t real_type;         /* type of the object: 1..4 (0 while an unresolved delta) */
	uint8_t id[SKG_MAX_RAWSZ]; /* object ID (skg_pk_pack.rawsz bytes) */
};

/* Progress phases reported through skg_pk_options.progress. */
enum skg_pk_phase { SKG_PK_PHASE_INDEXING = 0, SKG_PK_PHASE_RESOLVING = 1 };

struct skg_pk_options {
	unsigned format;          /* enum skg_object_format: SKG_FORMAT_SHA1 (0 too) or SKG_FORMAT_SHA256 */
	unsigned threads;         /* delta resolution threads, >= 1 */
	uint64_t cache_limit;     /* bytes of delta base data kept in memory (all threads together) */
	uint64_t max_object_size; /* 0: no limit; otherwise larger objects are an error (fuzzing) */
	bool strict;              /* duplicates are an error; whole objects are not batched, so the
	                           * object callback sees them in pack order (git's first pass) */
	bool in_order;            /* the object callback sees the whole objects in pack order (a batch
	                           * is handed out before an object that is not batched), and an
	                           * object of a batch that stops the callback before an entry that is
	                           * corrupt wins over it, as in git's first pass */
	bool whole_blobs;         /* the object callback also gets blobs of up to
	                           * SKG_PK_BIG_FILE_THRESHOLD bytes whole (data not NULL) */
	bool allow_unresolved;    /* deltas whose base is not in the pack are not an error: they stay
	                           * unresolved (real_type 0, no ID), for --fix-thin (pack_thin.h) */
	bool ofs_unresolved;      /* an OFS_DELTA whose base offset is not where an entry starts is
	                           * no error of the first pass: it stays unresolved (base
	                           * SKG_PK_NO_BASE), as in git, which never finds its base
	                           * (builtin/index-pack.c find_ofs_delta_children) and counts it in
	                           * "pack has N unresolved deltas" */
	/* Called from one thread now and then, and once at the end of each phase with done == total. */
	void (*progress)(void *ctx, enum skg_pk_phase phase, uint64_t done, uint64_t total);
	void *progress_ctx;
	/* Optional: told now and then, while the first pass reads the pack in order, that the pages
	 * of pack bytes [0, upto) need not stay resident (the caller may drop them, e.g. with
	 * madvise(MADV_DONTNEED) on a read-only file mapping; they are read again on the next
	 * access). `upto` grows from one call to the next (but see idx); never called from two
	 * threads at once (from the first pass's threads when it runs on them, see idx). */
	void (*release)(void *ctx, uint64_t upto);
	void *release_ctx;
	/* Optional: copy pack bytes [offset, offset + n) of the same pack into buf (e.g. with pread);
	 * returns 0 or -1. When set, delta resolution reads each entry's data through it and nothing
	 * of `data` (the base IDs of REF_DELTA entries are copied in the first pass): its reads jump
	 * about the pack, and each page fault on a mapping maps more than the bytes read
	 * (fault-around, large folios), which would pile up resident pack pages. May be called from
	 * several resolver threads at once. */
	int (*read)(void *ctx, uint64_t offset, uint8_t *buf, size_t n);
	void *read_ctx;
	/* Optional: told of every object once its ID is in pack->objs[i].id, with its type (1..4)
	 * and, for commits, trees and tags, its whole content data[0..len) (valid during the call
	 * only; NULL when len is 0); for blobs data may be NULL (a large blob is streamed, never whole in
	 * memory; see whole_blobs). Called from any resolver thread, several at once. With it set,
	 * non-blob objects that are not batched are inflated whole (they are small in practice).
	 * `sha1kit fsck` checks and links the objects here, index-pack --strict runs git's checks.
	 * Returns 0, or non-zero to stop the indexing: skg_pk_index_pack then fails with SKG_E_GIT
	 * (the callback's owner keeps the reason). */
	int (*object)(void *ctx, uint32_t i, unsigned type, const uint8_t *data, uint64_t len);
	void *object_ctx;
	/*
	 * Optional: the pack's idx as found beside it (verify-pack, index-pack --verify, fsck), in
	 * either version. With threads > 1 and neither strict nor in_order, the first pass uses its
	 * offsets to inflate and hash the entries on all the threads (pack_pass1.c). The idx is not
	 * trusted: every entry must end where the next one it lists starts; on any disagreement or
	 * error the pass starts over in pack order, on one thread, and its result (the error first
	 * found included) is that of a pass without the idx. Then `release` may be told a smaller
	 * `upto` once, at the restart. On that parallel pass, the object callback gets the whole
	 * objects after every entry and the trailer were found sound, blobs without their data
	 * (unless whole_blobs), in no set order.
	 */
	const uint8_t *idx;
	uint64_t idx_len;
};

/* An error: what it is (SKG_E_CORRUPT: the pack is malformed; SKG_E_COLLISION: SHA-1DC detected a
 * collision attack; SKG_E_NOMEM, SKG_E_THREAD: a failure of the machine; SKG_E_IO: an idx sink's
 * write failed), its message (no trailing period) and the offset of the object at fault, if any. */
struct skg_pk_error {
	enum skg_errc code;
	bool has_offset;
	uint64_t offset;
	char msg[320];
	/* Where git's index-pack dies on the same fault after its first pass (the deltas), for a caller
	 * that wants git's words: git_fatal, when not empty, what git prints after "fatal: " ("pack
	 * has bad object at offset N: failed to apply delta", "pack has N unresolved deltas", ...)
	 * and git_error, when not NULL, the line it prints before it after "error: " (a static
	 * string). Set by the delta resolution (pack_resolve.c, pack_thin.c); empty otherwise. */
	const char *git_error;
	char git_fatal[96];
};

struct skg_pk_pack {
	const uint8_t *data;             /* the pack (not owned) */
	uint64_t len;                    /* its length, trailer included */
	uint32_t version;                /* 2 or 3 */
	uint32_t nr;                     /* number of objects */
	unsigned rawsz;                  /* bytes of an object ID and of the trailer: 20 (SHA-1) or 32 */
	struct skg_pk_object *objs;      /* nr entries in pack order (owned) */
	uint8_t checksum[SKG_MAX_RAWSZ]; /* the trailer (rawsz bytes) */
	uint32_t max_depth;              /* longest delta chain */
	uint64_t n_deltas;               /* OFS_DELTA + REF_DELTA entries */
};

/* Fill `opt` with the defaults: 1 thread, 96 MiB cache, no size limit, not strict. */
void skg_pk_options_default(struct skg_pk_options *opt);

/*
 * Parse and check the pack data[0..len): header, every entry (inflated and checked against its
 * size), delta resolution, object IDs with SHA-1DC, the trailer. On success returns 0 and fills
 * `pack` (free with skg_pk_pack_free); on failure returns -1, fills `err` and leaves nothing to free.
 */
int skg_pk_index_pack(struct skg_pk_pack *pack, const uint8_t *data, uint64_t len,
                      const struct skg_pk_options *opt, struct skg_pk_error *err);

void skg_pk_pack_free(struct skg_pk_pack *pack);

/* Default 31-bit offset limit of idx v2: offsets above it go to the 64-bit table. */
#define SKG_PK_IDX_OFF32_LIMIT 0x7fffffffu

/*
 * Build the idx file of an indexed pack: `version` 1 or 2; in v2 objects whose offset is above
 * `off32_limit` go to the 64-bit offset table. Version 1 becomes 2 when the last object's offset
 * is above off32_limit or past 31 bits, as git's write_idx_file does (need_large_offset).
 * `strict`: a duplicate object is an error. Returns 0 and a malloc'd buffer in *out and *out_len,
 * or -1 with `err` filled.
 */
int skg_pk_idx_build(const struct skg_pk_pack *pack, unsigned version, uint64_t off32_limit, bool strict,
                     uint8_t **out, size_t *out_len, struct skg_pk_error *err);

/* Receives the idx in order, in pieces; returns 0, or -1 (with `err` filled) to stop. */
typedef int (*skg_pk_idx_sink)(void *ctx, const uint8_t *p, size_t n, struct skg_pk_error *err);

/*
 * As skg_pk_idx_build, but the idx goes to `sink` in pieces of at most 64 KiB as it is made (never
 * whole in memory). The check that can fail (duplicates) is made before the first
 * piece. Returns 0, or -1 with `err` filled (by the sink, when it stopped the writing).
 */
int skg_pk_idx_write(const struct skg_pk_pack *pack, unsigned version, uint64_t off32_limit, bool strict,
                     skg_pk_idx_sink sink, void *ctx, struct skg_pk_error *err);

/*
 * Guess the parameters an existing idx was written with (so that --verify can rebuild it the same
 * way): version 1 or 2 and the 64-bit offset limit. Never fails: a file that is not an idx gives
 * version 2 with the default limit (and then does not match).
 */
void skg_pk_idx_params(const uint8_t *idx, size_t len, unsigned *version, uint64_t *off32_limit);
/* skg_pk_idx_params of an idx whose names are rawsz bytes (20 or 32). */
void skg_pk_idx_params_as(const uint8_t *idx, size_t len, unsigned rawsz, unsigned *version,
                          uint64_t *off32_limit);

/*
 * Whether git would read objects from this pack through this idx at all: the idx passes git's
 * check_packed_git_idx (size at least 4 * 256 + 40 bytes, version 1 or 2, a non-decreasing
 * fan-out, a size that fits its object count) and the pack open_packed_git_1 (signature, version 2
 * or 3, the idx's object count, and a trailer equal to the idx's copy of it) (Git's packfile.c;
 * gitformat-pack(5)). When not, git fsck reports the pack and every object in it is missing to
 * the rest of the check. The data is not hashed: the trailers are compared as stored.
 */
bool skg_pk_git_usable(const uint8_t *idx, size_t idx_len, const uint8_t *pack, uint64_t pack_len);
/* skg_pk_git_usable of a pack whose IDs and trailer are rawsz bytes (20 or 32). */
bool skg_pk_git_usable_as(const uint8_t *idx, size_t idx_len, const uint8_t *pack, uint64_t pack_len,
                          unsigned rawsz);

/*
 * Which of git's checks in skg_pk_git_usable fails first, with the numbers git's message gives:
 * SKG_PK_GIT_OK; for the idx (check_packed_git_idx, load_idx: git says so each time it looks for an
 * object in the pack) too small, an unsupported version (*a), a fan-out that decreases, a size
 * that does not fit a v1 or v2 idx of its count; for the pack (open_packed_git_1: git says so each
 * time it would read an object the idx lists) too short for a header, no "PACK" signature, an
 * unsupported version (*a), *a objects where the idx lists *b, a trailer unlike the idx's copy.
 */
enum skg_pk_git_open {
	SKG_PK_GIT_OK,
	SKG_PK_GIT_IDX_SMALL,
	SKG_PK_GIT_IDX_VERSION,
	SKG_PK_GIT_IDX_FANOUT,
	SKG_PK_GIT_IDX_V1_SIZE,
	SKG_PK_GIT_IDX_V2_SIZE,
	SKG_PK_GIT_PACK_SHORT,
	SKG_PK_GIT_PACK_MAGIC,
	SKG_PK_GIT_PACK_VERSION,
	SKG_PK_GIT_PACK_COUNT,
	SKG_PK_GIT_PACK_SIGNATURE,
	SKG_PK_GIT_PACK_MISMATCH,
};
enum skg_pk_git_open skg_pk_git_open_check(const uint8_t *idx, size_t idx_len, const uint8_t *pack,
                                           uint64_t pack_len, uint32_t *a, uint32_t *b);
enum skg_pk_git_open skg_pk_git_open_check_as(const uint8_t *idx, size_t idx_len, const uint8_t *pack,
                                              uint64_t pack_len, unsigned rawsz, uint32_t *a, uint32_t *b);
/* The idx part of skg_pk_git_open_check alone: SKG_PK_GIT_OK or one of SKG_PK_GIT_IDX_* (*a: the
 * version of SKG_PK_GIT_IDX_VERSION). */
enum skg_pk_git_open skg_pk_git_idx_check(const uint8_t *idx, size_t idx_len, uint32_t *a);
/* skg_pk_git_idx_check of an idx whose names and checksums are rawsz bytes (20 or 32). */
enum skg_pk_git_open skg_pk_git_idx_check_as(const uint8_t *idx, size_t idx_len, unsigned rawsz, uint32_t *a);
/* git's text for go (without "error: "), naming path, with the numbers a and b of
 * skg_pk_git_open_check, into buf[0..n) as snprintf does (returns the length it needs); "" for
 * SKG_PK_GIT_OK. */
int skg_pk_git_open_text(enum skg_pk_git_open go, const char *path, uint32_t a, uint32_t b, char *buf,
                         size_t n);

/*
 * Reading objects through an idx, as git's object store does (packfile.c: find_pack_entry_one,
 * unpack_entry). The idx is idx[0..len) in either version (gitformat-pack(5), "pack-*.idx files");
 * call these on an idx that passed skg_pk_git_usable. Nothing reads outside the buffers.
 */

/* The number of objects the idx lists: the last fan-out entry; 0 when it is too short for one. */
uint64_t skg_pk_idx_count(const uint8_t *idx, size_t len);

/*
 * Entry k (0 <= k < skg_pk_idx_count) in ID order: *id points to its 20-byte ID inside the idx,
 * *offset gets its pack offset (from the 64-bit table in v2 when the 31-bit one says so). False
 * when k is out of range or the entry lies past the end of the idx (a 64-bit entry that does not
 * start before its last 8 bytes, where git's nth_packed_object_offset dies).
 */
bool skg_pk_idx_entry(const uint8_t *idx, size_t len, uint64_t k, const uint8_t **id, uint64_t *offset);
/* skg_pk_idx_entry of an idx whose names are rawsz bytes (20 or 32; idx v2 only for 32). */
bool skg_pk_idx_entry_as(const uint8_t *idx, size_t len, unsigned rawsz, uint64_t k, const uint8_t **id,
                         uint64_t *offset);

/*
 * Git's check of entry k's CRC-32 (pack-check.c check_pack_crc): the CRC-32 of the `len` bytes of
 * the pack at `offset` against the v2 idx's. True when they differ; false when they agree or
 * the idx is version 1 (it has none). The bytes must lie inside pack[0..pack_len).
 */
bool skg_pk_idx_crc_differs(const uint8_t *idx, size_t idx_len, unsigned rawsz, uint64_t k,
                            const uint8_t *pack, uint64_t offset, uint64_t len);

/* The pack offset of object `id` (binary search inside its fan-out range); false when not listed. */
bool skg_pk_idx_find(const uint8_t *idx, size_t len, const uint8_t id[SKG_RAWSZ], uint64_t *offset);
/* skg_pk_idx_find of an ID of rawsz bytes (20 or 32) in an idx of such names. */
bool skg_pk_idx_find_as(const uint8_t *idx, size_t len, unsigned rawsz, const uint8_t *id, uint64_t *offset);

/*
 * As git's find_pack_entry_one reads an idx that opens: the binary search compares IDs only
 * (bsearch_pack), then the offset of the entry found (nth_packed_object_offset). 1 and *offset;
 * 0 when `id` is not listed; -1 when it is, but its 64-bit offset lies past the idx's table, where
 * git dies ("offset beyond end of pack index"). (skg_pk_idx_find also gives up at a probed entry
 * whose offset does not read.) IDs of rawsz bytes (20 or 32) in an idx of such names.
 */
int skg_pk_idx_lookup(const uint8_t *idx, size_t len, unsigned rawsz, const uint8_t *id, uint64_t *offset);

/*
 * Read the object whose entry starts at `offset` in pack[0..pack_len) (idx: the pack's idx, for
 * REF_DELTA bases): the delta chain is followed to its whole base and the deltas applied. On
 * success returns 0 with the object's type (1..4) in *type and a malloc'd copy of its content
 * in *out (*out_len bytes; free it). Returns 1 (err filled, nothing allocated) when the object,
 * or a delta or base on its chain, is larger than max_size bytes; fails (-1, err filled) on a
 * corrupt entry or delta, a REF_DELTA base the idx does not list, or a chain that loops. The
 * object's ID is not computed.
 */
int skg_pk_read_object(const uint8_t *pack, uint64_t pack_len, const uint8_t *idx, size_t idx_len,
                       uint64_t offset, uint64_t max_size, unsigned *type, uint8_t **out, uint64_t *out_len,
                       struct skg_pk_error *err);

/*
 * A cache of delta bases for skg_pk_read_object_cached (git's delta base cache, packfile.c): get
 * gives a malloc'd copy of the whole object whose entry starts at `offset` (true), or false when
 * it is not kept; put offers one (the callee copies what it keeps, within its own budget).
 * Neither may fail the read.
 */
struct skg_pk_base_cache {
	bool (*get)(void *ctx, uint64_t offset, unsigned *type, uint8_t **buf, uint64_t *len);
	void (*put)(void *ctx, uint64_t offset, unsigned type, const uint8_t *buf, uint64_t len);
	void *ctx;
};

/* skg_pk_read_object, with the bases on the chain taken from and offered to cache (NULL: none),
 * so that reading many objects of a pack in a row applies few deltas each, in a pack whose IDs
 * (REF_DELTA bases, idx names) and trailer are rawsz bytes (20, or 32 for SHA-256). */
int skg_pk_read_object_cached(const uint8_t *pack, uint64_t pack_len, const uint8_t *idx, size_t idx_len,
                              unsigned rawsz, uint64_t offset, uint64_t max_size,
                              const struct skg_pk_base_cache *cache, unsigned *type, uint8_t **out,
                              uint64_t *out_len, struct skg_pk_error *err);

/*
 * git's unpack_entry (packfile.c, v2.39.5) of the entry at `offset` of pack[0..pack_len), as git's
 * verify_packfile reads a pack through its idx, with the error lines git prints on the way, each
 * handed to line(ctx, text) ("error: ..." or "fatal: ...", no newline): the delta chain walked down
 * to its base ("failed to validate delta base reference" for a base reference out of range or not
 * in the idx), the base inflated with zlib ("inflate: ..." with zlib's words; "unknown object type"
 * for a type that is none), then the deltas applied from the innermost out ("failed to read delta
 * base object" or "bad offset for revindex" where the base failed, "failed to unpack compressed
 * delta", "failed to apply delta" after patch_delta's own line). `header_first`: git's caller read
 * the entry's header once before ("bad object header" twice). base_id(ctx, offset, id): the ID the
 * idx gives the entry at `offset` (false when none starts there). rawsz: bytes of the pack's IDs
 * (REF_DELTA bases, idx names) and trailer, 20 (SHA-1) or 32 (SHA-256). pack_name: the pack's path as git
 * spells it. Returns 0 with *type, a malloc'd *out and *out_len; -1 when git gets no object; -2
 * when git dies there (its "fatal:" line given); -3 when this machine ran out of memory (malloc or
 * zlib's allocations: an error of the run, SKG_E_NOMEM, no line). Where a delta's base failed, git
 * fetches it from elsewhere (another pack, a loose copy; unpack_entry's "let's try to fetch the
 * required base anyway"): other_base(ctx, id, &type, &data, &len) (NULL: none; *type comes in as
 * the type the pack's entries give, 0 when unknown) returns 1 with that copy (*type 1..4, a
 * malloc'd data), 0 where there is none, -2 where git dies reading it (its lines
 * given), -3 out of memory; the delta is then applied to it. An entry git allocates size + 1 bytes
 * for, beyond alloc_limit bytes or beyond what the rest of the pack could inflate to, gets git's
 * "Out of memory, malloc failed" line. cache (NULL: none): git's delta base cache, which changes
 * no line (it holds only bases read whole): each step of the chain looks there first, and each
 * base read from this pack is offered to it after its delta (git's add_delta_base_cache).
 */
int skg_pk_git_unpack(const uint8_t *pack, uint64_t pack_len, const uint8_t *idx, size_t idx_len,
                      unsigned rawsz, uint64_t offset, bool header_first, uint64_t alloc_limit,
                      const struct skg_pk_base_cache *cache, const char *pack_name,
                      bool (*base_id)(void *ctx, uint64_t offset, uint8_t *id),
                      void (*line)(void *ctx, const char *text),
                      int (*other_base)(void *ctx, const uint8_t *id, unsigned *type, uint8_t **data,
                                        uint64_t *len),
                      void *ctx, unsigned *type, uint8_t **out, uint64_t *out_len);

/* The line callback of skg_pk_git_unpack and its kin for a read whose lines are not wanted. */
void skg_pk_no_line(void *ctx, const char *text);

/*
 * git's look at the type of the entry at `offset` (packfile.c packed_object_info's
 * packed_to_object_type, git 2.55): the headers down its delta chain, no data inflated. Returns
 * the type (1..4); -1 for git's OBJ_BAD, with its line through line(ctx, text) where git prints one
 * ("bad object header", "unknown object type T at offset O in PACK"; a base reference that does
 * not resolve unwinds silently: no other copy is looked for here); -2 when git dies (its "fatal:"
 * line given). Arguments as skg_pk_git_unpack's.
 */
int skg_pk_git_info_type(const uint8_t *pack, uint64_t pack_len, const uint8_t *idx, size_t idx_len,
                         unsigned rawsz, uint64_t offset, const char *pack_name,
                         void (*line)(void *ctx, const char *text), void *ctx);

/*
 * git's stream_object_signature for the blob entry at `offset` (its check of a blob at or over
 * core.bigFileThreshold, which it never holds whole): the entry inflated 16 KiB at a time and
 * hashed after "blob SIZE\0" (SIZE from the entry header; the stream read to its end, whatever its
 * length). Returns 0 when that gives `id` (rawsz bytes); 1 when it gives another ID, or the entry
 * is no blob; 2 when the stream breaks (git's "inflate: ..." line through line(ctx, text) for a
 * zlib error); -2 when git dies (the stream runs past the last byte before the trailer: its "fatal:" line
 * given); -3 when zlib cannot allocate.
 */
int skg_pk_git_stream_blob(const uint8_t *pack, uint64_t pack_len, unsigned rawsz, uint64_t offset,
                           const uint8_t *id, const char *pack_name,
                           void (*line)(void *ctx, const char *text), void *ctx);

/* git's unpack_object_header at `offset` of a pack whose trailer is rawsz bytes (20 or 32): the
 * entry's type (-1 for git's OBJ_BAD) and *size. */
int skg_pk_git_entry_header(const uint8_t *pack, uint64_t pack_len, unsigned rawsz, uint64_t offset,
                            uint64_t *size);

/*
 * The delta base of the entry at `offset`: 1 and its offset in *base (an OFS_DELTA's, or a
 * REF_DELTA's through the idx), 0 for a whole object, -1 when the entry header does not parse or
 * a REF_DELTA's base is not in the idx. rawsz: bytes of the pack's IDs and trailer (20 or 32).
 */
int skg_pk_entry_base(const uint8_t *pack, uint64_t pack_len, const uint8_t *idx, size_t idx_len,
                      unsigned rawsz, uint64_t offset, uint64_t *base);

/* Name of a pack type (1..4: commit, tree, blob, tag; 6, 7: ofs-delta, ref-delta). */
const char *skg_pk_type_name(unsigned type);

#endif /* SHA1KIT_GIT_PACK_H */
