/*
 * pack_collide.h - the check `git index-pack` makes inside a repository on every object of the
 * pack it indexes: an object whose ID is already in the repository's object store (loose, in a
 * pack, in an alternate) must have the same type, size and bytes there, else git dies with
 * "SHA1 COLLISION FOUND WITH <ID> !". It is what catches a pushed object that collides with a
 * stored one. Source: git v2.39.5 builtin/index-pack.c (sha1_object, check_collison,
 * compare_objects; unchanged in v2.55.0 but for names), object-file.c (has_object_file with
 * OBJECT_INFO_QUICK, oid_object_info, read_object_file_extended).
 *
 * Runs as (part of) the pack engine's object callback (pack.h), before the --strict checks of
 * the same object, as in git. Where git dies the callback stops the indexing and
 * skg_collide_error gives SKG_E_GIT with git's message without "fatal: " (no record for it); the
 * error lines git prints before (a stored copy that does not read) go to the sink as records.
 * Out of memory is SKG_E_NOMEM, never a finding. Thread-safe: calls are serialised under a
 * lock, as git's read_lock.
 */
#ifndef SHA1KIT_GIT_PACK_COLLIDE_H
#define SHA1KIT_GIT_PACK_COLLIDE_H

#include <sha1kit/git.h>

#include "pack.h"

struct skg_collide;

/* A check for `pack` (filled by the engine meanwhile; entries are re-read from pack->data when
 * the engine passes no content) against repo's objects. Returns 0 with *out, or -1 with err
 * (SKG_E_NOMEM). The alternates' error lines go to sink now. on_map (may be NULL) is told of each
 * pack and idx of the repository mapped (struct skg_index_options.on_map). */
int skg_collide_new(struct skg_collide **out, const struct skg_pk_pack *pack, const struct skg_repo *repo,
                    unsigned git_version, const struct skg_sink *sink,
                    void (*on_map)(void *ctx, const void *addr, uint64_t len, const char *path, bool mapped),
                    void *map_ctx, struct skg_error *err);

/* The engine's object callback (ctx: the check) for object i. Non-zero: git dies here. */
int skg_collide_object(void *ctx, uint32_t i, unsigned type, const uint8_t *data, uint64_t len);

/*
 * --fix-thin's read of a base the pack lacks (id: the pack's rawsz bytes) from the same store (git's
 * read_object_file in fix_unresolved_deltas, builtin/index-pack.c; object-file.c read_object_file_extended),
 * then its check_object_signature. Returns 1 with its type and a malloc'd data[0..*len) (free it), 0 when the
 * store has no copy (git passes it over), or -1 where git dies (its lines before go to the sink; the reason
 * through skg_collide_error): "loose object ID (stored in PATH) is corrupt" for a loose file that does not
 * read, "packed object ID (stored in PATH) is corrupt" for a packed copy that does not read (without git's
 * lines before it: the pack reader reports none), "local object ID is corrupt" for content that does not hash
 * to ID, or out of memory. An empty loose file: git 2.39.5 dies there as for a corrupt one; with
 * git_version 2.55 (git 2.40+, 9e59b38c88 "object-file: emit corruption errors when detected") it
 * is "object file PATH is empty" and the object missing (0).
 */
int skg_collide_read_base(struct skg_collide *c, const uint8_t *id, unsigned *type, uint8_t **data,
                          size_t *len);

/* Whether a call failed; why, into err: SKG_E_GIT with git's message, or SKG_E_NOMEM. */
bool skg_collide_failed(const struct skg_collide *c);
void skg_collide_error(const struct skg_collide *c, struct skg_error *err);

void skg_collide_free(struct skg_collide *c);

#endif /* SHA1KIT_GIT_PACK_COLLIDE_H */
