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

/*
 * Complete the pack of *len bytes in the file open for reading and writing on fd, in place, with
 * the bases its REF_DELTA entries miss from objects_dir (loose or packed; skg_odb_read). A pack
 * that does not index (even with unresolved deltas allowed) is left as it is, for the indexing
 * that follows to report. threads: for the engine's passes. Returns 0 (*len: the completed
 * pack's length), or -1 with err: SKG_E_GIT "pack has N unresolved delta(s)" (git's message, when
 * bases are still missing), SKG_E_IO, SKG_E_NOMEM.
 */
int skg_thin_fix(int fd, uint64_t *len, const char *objects_dir, int level, unsigned threads,
                 struct skg_error *err);

#endif /* SHA1KIT_GIT_PACK_THIN_H */
