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
 * Find object `id` (rawsz bytes: 20, or 32 in a SHA-256 repository) in objects_dir (NULL: no
 * repository), or the empty tree, which git always has
 * (object-file.c find_cached_object). Returns 1 with its type (1..4) in *type and, when data is not
 * NULL, a malloc'd copy of its content in *data (*len bytes; free it); 0 when it is not there or
 * cannot be read (a corrupt or unreadable copy counts as absent, as git goes on to the next
 * source and then finds none); -1 when memory ran out. on_map (may be NULL) is told of each pack and
 * idx mapped for the read, as skg_file_map tells it.
 */
int skg_odb_read(const char *objects_dir, size_t rawsz, const uint8_t *id, unsigned *type, uint8_t **data,
                 size_t *len,
                 void (*on_map)(void *ctx, const void *addr, uint64_t len, const char *path, bool mapped),
                 void *map_ctx);

/*
 * An open object store: the repository's object directories as git 2.39.5 reads them for
 * index-pack's collision check (builtin/index-pack.c sha1_object; object-file.c, packfile.c):
 * its own, then its alternates in git's order (skg_for_each_alternate; their error lines go to
 * the sink), each with its packs (those git can open: skg_pk_git_usable) and loose files. Not
 * thread-safe: one caller at a time (index-pack holds a lock, as git's read_lock). Left out:
 * multi-pack-index files (their packs are read through their own idx files), the reordering of
 * packs by use (git's MRU list) and promisor fetches, which change nothing unless two stored
 * copies of one ID differ. The store reads the IDs of the repository's object format
 * (skg_repo_object_format): every `id` below is 20 bytes, or 32 in a SHA-256 repository.
 */
struct skg_odb;
struct skg_repo;
struct skg_lines;

/* Open repo's store into *out. Returns 0, or -1 with err (SKG_E_NOMEM). */
int skg_odb_open(struct skg_odb **out, const struct skg_repo *repo, const struct skg_sink *sink,
                 struct skg_error *err);
/* The same, on_map (may be NULL) told of each pack and idx it maps and unmaps, as skg_file_map
 * tells it (struct skg_check_options.on_map: a program's SIGBUS guard). */
int skg_odb_open_mapped(struct skg_odb **out, const struct skg_repo *repo, const struct skg_sink *sink,
                        void (*on_map)(void *ctx, const void *addr, uint64_t len, const char *path,
                                       bool mapped),
                        void *map_ctx, struct skg_error *err);
void skg_odb_free(struct skg_odb *odb);

/* git's has_object_file(.., OBJECT_INFO_QUICK): an idx of a pack lists it, else a file of its
 * name is in the listing of its objects/xx directory (read once per directory). 1, 0, or -1 when
 * memory ran out. */
int skg_odb_has(struct skg_odb *odb, const uint8_t *id);

/* git's oid_object_info (type and size) of an object skg_odb_has found: the packs in git's
 * order (a copy that does not read is passed over), then the first loose file that opens
 * (skg_loose_stored_info, with git's lines). An enum skg_stored_result (loose.h):
 * SKG_STORED_FAILED when git finds none ("cannot read existing object info"). */
int skg_odb_info(struct skg_odb *odb, const uint8_t *id, unsigned *type, uint64_t *size,
                 struct skg_lines *lines);

/* git's read_object_file of the copy the last skg_odb_info found (same id): a malloc'd *data of
 * *len bytes (free it). An enum skg_stored_result: SKG_STORED_DIES with git's lines for a loose
 * file whose content does not read ("loose object ID (stored in PATH) is corrupt"). */
int skg_odb_content(struct skg_odb *odb, const uint8_t *id, uint8_t **data, size_t *len,
                    struct skg_lines *lines);

/* The loose file of `id` as git names it in "loose object ID (stored in PATH) is corrupt": the
 * first object directory (its own, then the alternates) where the file exists (object-file.c
 * stat_loose_object). A malloc'd path; NULL when there is none (errno 0) or memory ran out
 * (errno ENOMEM). */
char *skg_odb_loose_path(const struct skg_odb *odb, const uint8_t *id);

/* The first pack (git's order) whose idx lists `id`, as git names it in "packed object ID (stored
 * in PATH) is corrupt" (packfile.c has_packed_and_bad: the pack whose copy did not read); NULL
 * when none does. Owned by odb. */
const char *skg_odb_packed_path(const struct skg_odb *odb, const uint8_t *id);

#endif /* SHA1KIT_GIT_ODB_H */
