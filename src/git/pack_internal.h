/*
 * pack_internal.h - what the files of the pack engine (pack.h) share, and nothing else includes:
 * error setters, byte helpers, the object header, CRC-32, the inflater, entry headers, the
 * first pass's table of REF_DELTA bases, batched object IDs, and delta application.
 *
 * The engine's files (docs/ARCHITECTURE.md, "The Git layer"):
 *   pack.c            these shared helpers, skg_pk_type_name, skg_pk_options_default
 *   pack_inflate.c    zlib (and libdeflate) inflating of an entry's data to its exact size
 *   pack_pass1.c      the first pass: entry headers, CRC-32, whole objects' IDs in batches, trailer;
 *                     on threads when the idx is given (checked against the pack)
 *   pack_delta.c      delta instructions: sizes, scan, application
 *   pack_resolve.c    skg_pk_index_pack: the header, the first pass, then delta resolution on threads
 *   pack_idx_write.c  the idx written from the table (skg_pk_idx_write, _build, _params)
 *   pack_idx_git.c    git's checks when it opens an idx beside its pack (skg_pk_git_*)
 *   pack_idx_read.c   one entry of an idx (skg_pk_idx_count, _entry, _find, _crc_differs)
 *   pack_read.c       one object of a pack through its idx (skg_pk_read_object*, skg_pk_entry_base)
 *   pack_unpack.c     git's unpack_entry with its error lines (skg_pk_git_unpack, _entry_header,
 *                     _info_type)
 *   pack_thin.c       --fix-thin: a thin pack completed with its bases (pack_thin.h, skg_thin_fix)
 *
 * Part of the Git layer (src/git/): no I/O, no printing, no global state.
 */
#ifndef SHA1KIT_GIT_PACK_INTERNAL_H
#define SHA1KIT_GIT_PACK_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <zlib.h>
#if defined(SK_HAVE_LIBDEFLATE)
#include <libdeflate.h>
#endif

#include "object.h"
#include "pack.h"
#include "sha1kit.h"

/* ---- Errors, bytes, object headers (pack.c) ------------------------------------------------ */

/* A malformed pack (SKG_E_CORRUPT). */
void skg_pk_set_error(struct skg_pk_error *err, bool has_offset, uint64_t offset, const char *fmt, ...)
    SKG_PRINTF(4, 5);

/* A failure of the machine (SKG_E_NOMEM, SKG_E_THREAD). */
void skg_pk_set_failure(struct skg_pk_error *err, enum skg_errc code, bool has_offset, uint64_t offset,
                        const char *fmt, ...) SKG_PRINTF(5, 6);

/* The object callback asked to stop (its owner keeps the reason). */
void skg_pk_stopped_error(struct skg_pk_error *err, uint64_t offset);

/* n, or the number of CPUs online when that is fewer (and known): how many threads of n may work at
 * once (the first pass's workers, delta resolution's turns), so that memory grows with the CPUs. */
unsigned skg_pk_cpu_clamp(unsigned n);

/* CRC-32 (zlib's; libdeflate computes the same, faster) of any length, from crc == 0. */
uint32_t skg_pk_crc32(uint32_t crc, const uint8_t *p, uint64_t n);

static inline uint32_t skg_pk_get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* ---- The object format's hashes (pack.c) ---------------------------------------------------- */

/*
 * A pack's hashes follow its object format (skg_pk_options.format; Git's
 * Documentation/technical/hash-function-transition.txt, gitformat-pack(5)): object IDs are
 * SHA-1DC with Git's settings (detection on, the true SHA-1) or SHA-256; the pack's trailer and
 * the checksums of its idx and .rev are the plain SHA-1 or SHA-256. One context of either kind
 * (copyable, nothing allocated).
 */
enum skg_pk_hash_kind { SKG_PK_HASH_DC, SKG_PK_HASH_FAST, SKG_PK_HASH_SHA256 };

struct skg_pk_hash {
	union {
		sha1kit_dc_ctx dc;
		sha1kit_fast_ctx fast;
		sha1kit_sha256_ctx sha256;
	} u;
	enum skg_pk_hash_kind kind;
};

/* Bytes of an object ID in the format the options ask for (20, or 32 for SKG_FORMAT_SHA256). */
static inline unsigned skg_pk_opt_rawsz(const struct skg_pk_options *opt)
{
	return opt->format == SKG_FORMAT_SHA256 ? SKG_MAX_RAWSZ : SKG_RAWSZ;
}

/* The kind of the object IDs / of the checksums of a format whose IDs are rawsz bytes. */
static inline enum skg_pk_hash_kind skg_pk_id_kind(unsigned rawsz)
{
	return rawsz == SKG_MAX_RAWSZ ? SKG_PK_HASH_SHA256 : SKG_PK_HASH_DC;
}
static inline enum skg_pk_hash_kind skg_pk_sum_kind(unsigned rawsz)
{
	return rawsz == SKG_MAX_RAWSZ ? SKG_PK_HASH_SHA256 : SKG_PK_HASH_FAST;
}

void skg_pk_hash_init(struct skg_pk_hash *h, enum skg_pk_hash_kind kind);
void skg_pk_hash_update(struct skg_pk_hash *h, const void *p, size_t n);
/* The digest (20 or 32 bytes) into out; the context is then reset for the next message. False
 * when SHA-1DC detected a collision attack (out still gets the true SHA-1). */
bool skg_pk_hash_final(struct skg_pk_hash *h, uint8_t *out);
/* Longest object header: "unknown " (the longest type name), 20 digits, the NUL. */
#define SKG_PK_HEADER_MAX 29

/* Object header "<type> <size>\0" for the object ID into buf (SKG_PK_HEADER_MAX bytes at least); returns
 * its length (NUL included). */
static inline size_t skg_pk_object_header(char *buf, unsigned type, uint64_t size)
{
	const char *name = skg_pk_type_name(type);
	size_t n = strlen(name);
	char digits[20];
	size_t k = 0;
	do {
		digits[k++] = (char)('0' + size % 10);
		size /= 10;
	} while (size != 0);
	memcpy(buf, name, n);
	buf[n++] = ' ';
	while (k > 0) {
		buf[n++] = digits[--k];
	}
	buf[n++] = '\0';
	return n;
}

/* ---- Inflate (pack_inflate.c) ------------------------------------------------------------- */

enum skg_pk_inf_status {
	SKG_PK_INF_OK = 0,
	SKG_PK_INF_TRUNCATED,
	SKG_PK_INF_CORRUPT,
	SKG_PK_INF_TOO_LONG,
	SKG_PK_INF_TOO_SHORT,
	SKG_PK_INF_NOMEM
};

struct skg_pk_inflater {
	z_stream zs;
#if defined(SK_HAVE_LIBDEFLATE)
	struct libdeflate_decompressor *ld; /* NULL: zlib only */
#endif
	bool ready;
	const char *zmsg; /* zlib's message for SKG_PK_INF_CORRUPT, if any */
	uint64_t produced;
};

typedef void (*skg_pk_inflate_sink)(void *ctx, const uint8_t *p, size_t n);

/* false: zlib cannot start (no memory). */
bool skg_pk_inflater_init(struct skg_pk_inflater *f);
void skg_pk_inflater_end(struct skg_pk_inflater *f);

/*
 * Inflate the zlib stream starting at in[0], of which `avail` bytes may be read, expecting exactly
 * `size` bytes of output. Output goes to `out` (size bytes) or, when out is NULL, through `sink` in
 * pieces of at most chunk_len bytes staged in `chunk`. *consumed gets the length of the stream.
 */
enum skg_pk_inf_status skg_pk_inflate_exact(struct skg_pk_inflater *f, const uint8_t *in, uint64_t avail,
                                            uint8_t *out, uint64_t size, skg_pk_inflate_sink sink,
                                            void *sink_ctx, uint8_t *chunk, size_t chunk_len,
                                            uint64_t *consumed);

/* Describe a failed skg_pk_inflate_exact in `err` (`what`: "object", ...). */
void skg_pk_inflate_error(struct skg_pk_error *err, const struct skg_pk_inflater *f,
                          enum skg_pk_inf_status st, uint64_t offset, uint64_t size, const char *what);

/* ---- Entries and the first pass (pack_pass1.c) -------------------------------------------- */

/* The header of the entry at `pos` (gitformat-pack(5), "Object entries"). */
struct skg_pk_entry_hdr {
	unsigned type;          /* 1..4, 6, 7 */
	uint64_t size;          /* inflated size of the entry's data */
	uint64_t base_offset;   /* OFS_DELTA: the base entry's offset (below pos) */
	const uint8_t *base_id; /* REF_DELTA: the base's ID, in the pack */
	unsigned len;           /* bytes of header and base reference */
	char why[80];           /* the error, when skg_pk_entry_header returns non-NULL */
};

/*
 * Parse the entry header at data[pos], reading nothing at or past `end`: type and size
 * (little-endian base-128 with 4 bits in the first byte), then an OFS_DELTA's negative offset
 * (big-endian base-128, 1 added per continuation byte) or a REF_DELTA's base ID (rawsz bytes). Returns NULL,
 * or h->why (the error).
 */
const char *skg_pk_entry_header(const uint8_t *data, uint64_t end, uint64_t pos, unsigned rawsz,
                                struct skg_pk_entry_hdr *h);

/* A REF_DELTA entry: the ID of its base, copied from the pack in pass 1 (so that pass 2 finds the
 * children of a base in this compact table, never in the pack's pages), and the entry's index. */
struct skg_pk_ref_entry {
	uint8_t id[SKG_MAX_RAWSZ];
	uint32_t obj;
};

struct skg_pk_ref_table {
	struct skg_pk_ref_entry *e;
	uint32_t n, cap;
};

/* Objects of more than this many bytes are hashed alone, not in a batch (both passes). */
#define SKG_PK_HB_MAX_OBJ ((size_t)256 << 10)

/* Finish an object ID (SKG_PK_HASH_DC or SKG_PK_HASH_SHA256); false (and `err` set) when a
 * collision attack was detected. */
bool skg_pk_finish_id(struct skg_pk_hash *h, uint8_t *id, uint64_t offset, struct skg_pk_error *err);

/* The IDs of objects obj[0..n), whose headers and contents are msgs[0..n), into objs[].id, with
 * sha1kit_dc_batch or, for SHA-256 (rawsz 32), sha1kit_sha256_batch (digests and where: room for n
 * results of rawsz bytes), and each handed to opt->object; false
 * (and `err` set) on a collision attack, reported for the first flagged object in pack order, or
 * when the object callback stops. */
bool skg_pk_batch_ids(unsigned rawsz, const sha1kit_msg *msgs, const uint32_t *obj, size_t n,
                      uint8_t *digests, sha1kit_dc_detection *where, struct skg_pk_object *objs,
                      const struct skg_pk_options *opt, struct skg_pk_error *err);

/* The first pass over pack->data (header already checked; pack->nr entries): fills pack->objs
 * (offsets, sizes, CRC-32s, bases of OFS_DELTA entries, IDs of whole objects), refs with the
 * REF_DELTA entries (in pack order) and checks the trailer; on opt->threads threads through
 * opt->idx when given (see skg_pk_options.idx), with the same result. Returns 0, or -1 with err. */
int skg_pk_pass1(struct skg_pk_pack *pack, const struct skg_pk_options *opt, struct skg_pk_inflater *inf,
                 struct skg_pk_ref_table *refs, struct skg_pk_error *err);

/* ---- Deltas (pack_delta.c) ---------------------------------------------------------------- */

/* Size field of a delta: little-endian base-128; *p moves past it. false: truncated or over 64 bits. */
bool skg_pk_delta_size(const uint8_t **p, const uint8_t *end, uint64_t *v);

/* Check the delta instructions d[0..dend) against a base of base_len bytes without applying them:
 * NULL and the exact result length in *total, or the reason of the failure. Run before the result
 * is allocated, so a false size in a delta header cannot make us allocate anything. */
const char *skg_pk_scan_delta(uint64_t base_len, const uint8_t *d, const uint8_t *dend, uint64_t *total);

/* Apply the delta instructions d[0..dend) to `base`, producing exactly out_len bytes in `out`.
 * Returns NULL or the reason of the failure. */
const char *skg_pk_apply_delta(const uint8_t *base, uint64_t base_len, const uint8_t *d, const uint8_t *dend,
                               uint8_t *out, uint64_t out_len);

/*
 * What git's patch_delta does with a delta of delta_len bytes on a base of base_len bytes (git
 * v2.39.5 and v2.55.0 patch-delta.c, delta.h get_delta_hdr_size; the same in both): 0 when it
 * builds the result, else 1 and git's words in *err's git fields (the offset of the delta's entry:
 * offset): git_error the line patch_delta prints ("delta replay has gone wild", "unexpected
 * delta opcode 0"; NULL for a delta under 4 bytes or for another base size), git_fatal index-pack's
 * die after it ("pack has bad object at offset N: failed to apply delta"), or git_fatal alone
 * where git dies in the header ("size_t overflow: A << S", st_left_shift of a size field past 64
 * bits). Reads delta[0..delta_len) only (git reads the 0 it allocates after the delta when the first
 * size field takes it all: so here). Nothing else of *err is set.
 */
int skg_pk_git_patch_check(uint64_t base_len, const uint8_t *delta, uint64_t delta_len, uint64_t offset,
                           struct skg_pk_error *err);

#endif /* SHA1KIT_GIT_PACK_INTERNAL_H */
