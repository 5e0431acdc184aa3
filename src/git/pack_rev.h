/*
 * pack_rev.h - the pack reverse index (.rev) of an indexed pack, byte for byte as git writes it
 * (pack_rev.c). Internal to the Git layer; the public calls are skg_pack_write_rev and
 * skg_pack_compare_rev of <sha1kit/git_pack.h> (pack_api.c).
 *
 * Format (git's Documentation/gitformat-pack.txt, "pack-*.rev files have the format"; the
 * constants are trailer.h's, whose reader checks them): the 4-byte signature "RIDX", the version
 * (1) and the hash id (1: SHA-1, 2: SHA-256), all big-endian 32-bit; then, for each object in pack
 * order (by offset), its position in the idx (the idx's order, by object ID), a big-endian 32-bit
 * word; then the pack's checksum and the checksum (SHA-1 or SHA-256) of all the bytes before it.
 * Size: 12 + 4 * N + 2 * rawsz bytes (rawsz 20 or 32).
 */
#ifndef SHA1KIT_GIT_PACK_REV_H
#define SHA1KIT_GIT_PACK_REV_H

#include <stddef.h>
#include <stdint.h>

#include "pack.h"

/* The size in bytes of the .rev of a pack of nr objects whose IDs are rawsz bytes. */
uint64_t skg_pk_rev_size(uint32_t nr, unsigned rawsz);

/*
 * The idx order of `pack`'s objects (indexed by skg_pk_index_pack: objs in pack order): *out (free()
 * it) gets nr pack-order indexes sorted by object ID, an ID found twice kept in pack order, which
 * is the order skg_pk_idx_write writes the idx in (it calls this; a counting sort by the first 16
 * bits then a per-bucket sort, a fraction of the time of a qsort of the whole table). Returns 0,
 * or -1 with err: SKG_E_NOMEM.
 */
int skg_pk_idx_order(const struct skg_pk_pack *pack, uint32_t **out, struct skg_pk_error *err);

/*
 * Build the .rev of `pack` (indexed by skg_pk_index_pack: objs in pack order) in a new buffer,
 * *out (free() it) of *out_len bytes. The idx positions are those skg_pk_idx_write gives: objects
 * sorted by ID, an ID found twice (a pack indexed without strict) kept in pack order. Returns 0,
 * or -1 with err: SKG_E_NOMEM.
 */
int skg_pk_rev_build(const struct skg_pk_pack *pack, uint8_t **out, size_t *out_len,
                     struct skg_pk_error *err);

#endif /* SHA1KIT_GIT_PACK_REV_H */
