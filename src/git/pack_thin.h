/*
 * pack_thin.h - `git index-pack --stdin --fix-thin`, what `git receive-pack` runs on a push: a thin
 * pack (REF_DELTA entries whose bases are not in the pack but in the repository) completed with
 * those bases, read from the repository and appended as whole objects. Source (facts, not code):
 * git v2.39.5 builtin/index-pack.c (conclude_pack, fix_unresolved_deltas, append_obj_to_pack,
 * write_compressed), pack-write.c (fixup_pack_header_footer), environment.c and config.c
 * (zlib_compression_level: Z_BEST_SPEED unless core.loosecompression or core.compression).
 *
 * The completed pack is the received one with its header's object count raised, the appended
 * objects after its last entry (in the pack order of the first REF_DELTA that needs each, each an
 * entry header and its content deflated at `level`), and a new trailer: the SHA-1 of all of it.
 * Internal to the Git layer; no printing, no exit.
 */
#ifndef SHA1KIT_GIT_PACK_THIN_H
#define SHA1KIT_GIT_PACK_THIN_H

#include <stdint.h>

#include <sha1kit/git.h>

#include "pack.h"

struct skg_collide;

/*
 * Complete the pack indexed in *pack (skg_pk_index_pack with allow_unresolved; pack->data its
 * bytes, the file open for reading and writing on fd) when deltas are left unresolved: each base
 * its REF_DELTA entries miss, read from the repository's store (its objects directory and its
 * alternates, skg_collide_read_base), is appended to the file, and the deltas on it are resolved
 * in the table and handed to object(object_ctx, ...) (the engine's object callback; may be
 * NULL), as git's second pass does. The table then holds the completed pack as if indexed whole:
 * the appended entries after the received ones, pack->nr, len, checksum and max_depth updated;
 * pack->data still maps the received bytes only (the caller maps the completed file again). A
 * pack with nothing unresolved is left as it is: its first indexing is final.
 * progress (its fn may be NULL): "Resolving deltas" after each base appended, at the deltas
 * resolved so far, never complete (git's meter ends with "completed with N local objects", the
 * caller's line: counts). counts: whether there were deltas to complete (ran), the bases appended
 * and the deltas resolved at the end, of total.
 * Returns 0; 1 where git dies in the store's read of a base or the object callback stopped (their
 * owners keep why); -1 with err: SKG_E_GIT "pack has N unresolved delta(s)" (git's message, when
 * bases are still missing) or, for a delta that does not apply on its base, git's "pack has bad
 * object at offset N: failed to apply delta" (its "error:" line before it to sink: "delta replay
 * has gone wild", ...), SKG_E_CORRUPT (where git's patch_delta would build it: the engine's words
 * and offset), SKG_E_COLLISION, SKG_E_IO, SKG_E_NOMEM.
 */
struct skg_thin_counts {
	bool ran;
	uint32_t appended;
	uint64_t resolved, total;
};
struct skg_progress;
int skg_thin_fix(struct skg_pk_pack *pack, int fd, struct skg_collide *store, int level,
                 int (*object)(void *ctx, uint32_t i, unsigned type, const uint8_t *data, uint64_t len),
                 void *object_ctx, const struct skg_sink *sink, const struct skg_progress *progress,
                 struct skg_thin_counts *counts, struct skg_error *err);

#endif /* SHA1KIT_GIT_PACK_THIN_H */
