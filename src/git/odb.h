/*
 * odb.h - look an object up in a repository's object directory by its ID, as git's
 * oid_object_info / read_object_file find it (object-file.c, packfile.c, v2.39.5): the loose file
 * objects/xx/yyyy..., then every pack objects/pack/pack-*.pack through its idx. Alternates and
 * promisor remotes are not consulted (index-pack's and hash-object's checks use it for the links
 * of a pack and a .gitmodules blob; see docs/git.md).
 */
#ifndef SHA1KIT_GIT_ODB_H
#define SHA1KIT_GIT_ODB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sha1kit/git.h>

/*
 * Find object `id` in objects_dir (NULL: no repository), or the empty tree, which git always has
 * (object-file.c find_cached_object). Returns 1 with its type (1..4) in *type and, when data is not
 * NULL, a malloc'd copy of its content in *data (*len bytes; free it); 0 when it is not there or
 * cannot be read (a corrupt or unreadable copy counts as absent, as git goes on to the next
 * source and then finds none); -1 when memory ran out.
 */
int skg_odb_read(const char *objects_dir, const uint8_t id[SKG_RAWSZ], unsigned *type, uint8_t **data,
                 size_t *len);

#endif /* SHA1KIT_GIT_ODB_H */
