/*
 * pack_strict.h - `git index-pack --strict` (and --fsck-objects) over the pack engine: git's
 * object checks of fsck_object.h run on every object as the engine hands it out (its object
 * callback), git's links walked and checked against the pack and the repository, and fsck_finish's
 * deferred .gitmodules / .gitattributes blobs. Source: git v2.39.5 builtin/index-pack.c
 * (sha1_object, mark_link, check_object, check_objects, cmd_index_pack: --strict[=<msg-ids>]),
 * fsck.c (fsck_set_msg_types, fsck_walk_*, fsck_finish, fsck_error_function,
 * fsck_error_cb_print_missing_gitmodules), object.c (the object hash table, object_as_type),
 * commit.c parse_commit_buffer, tag.c parse_tag_buffer.
 *
 * Every line git prints goes to the sink as a record (error/warning; the .gitmodules blob git
 * cannot read is a stdout line, SKG_LEVEL_OUTPUT); where git dies the call fails with SKG_E_GIT and
 * git's message without "fatal: " (no record for it). Thread-safe: the object callback may come
 * from several threads at once (one check at a time, under a lock, as git's read_lock).
 */
#ifndef SHA1KIT_GIT_PACK_STRICT_H
#define SHA1KIT_GIT_PACK_STRICT_H

#include <sha1kit/git.h>

#include "pack.h"

struct skg_strict;

/*
 * A check for `pack` (filled by the engine meanwhile: objects are read from pack->objs), whose
 * object IDs are rawsz bytes (20, or 32 for SHA-256: the objects' links and the skip list too). args:
 * git's --strict=<args> ("<msg-id>=<severity>" and "skiplist=<path>" separated by ' ', ',' or '|';
 * NULL or "" for none), parsed now as git parses it before it reads the pack (SKG_E_GIT with git's
 * message: "Missing '=': 'X'", "skiplist requires a path", "could not open object name list: P",
 * "invalid object name: L", and those of skg_fsck_set_error_format). objects_dir: the repository's
 * object directory where links missing from the pack are looked up, NULL outside a repository;
 * in_repo: git has a repository (objects_dir, or one of another format, whose objects it cannot
 * find): its queued blob checks run (skg_strict_finish).
 * git_version: the Git followed where they differ (SKG_GIT_2_39 or SKG_GIT_2_55; skg_strict_finish).
 * Returns 0 with *out, or -1 with err (also SKG_E_NOMEM).
 */
int skg_strict_new(struct skg_strict **out, const struct skg_pk_pack *pack, unsigned rawsz, const char *args,
                   const char *objects_dir, bool in_repo, unsigned git_version, const struct skg_sink *sink,
                   struct skg_error *err);

/*
 * Inside repository `repo` (after skg_strict_parts, before the pack): the grafts git's commit
 * parsing applies there (grafts.h: the graft file and the shallow commits), so that the walk takes
 * a grafted commit's links as parse_commit_buffer gives them: its graft's parents, none for a
 * shallow commit, and not its own (a shallow clone's pack is sound without them). They are read
 * where git reads them, at the first commit the check parses: the graft file's deprecation hint
 * (not with advice.graftFileDeprecated false) and its error lines go to the sink then, and a bad
 * shallow line stops the check there with git's "bad shallow line: LINE".
 */
struct skg_repo;
/* (The repository is also where links outside the pack and the special blobs of
 * skg_strict_finish are read: its object directory and its alternates, as git's sources.) */
void skg_strict_grafts(struct skg_strict *s, const struct skg_repo *repo);

/* The hook told of every pack and idx of the repository the check maps to read an object (struct
 * skg_index_options.on_map; NULL: none), after skg_strict_new, before the pack. */
void skg_strict_on_map(struct skg_strict *s,
                       void (*on_map)(void *ctx, const void *addr, uint64_t len, const char *path,
                                      bool mapped),
                       void *map_ctx);

/* What the check does (after skg_strict_new, before the pack): fsck, git's do_fsck_object (the
 * object checks and the .gitmodules / .gitattributes ones); walk, git's strict (the walk of links
 * and skg_strict_links). Both by default (--strict). */
void skg_strict_parts(struct skg_strict *s, bool fsck, bool walk);

/* The links skg_strict_links found in the repository (git's foreign_nr). */
uint64_t skg_strict_foreign(const struct skg_strict *s);

/* The engine's object callback (ctx: the check): sha1_object's checks of object i. Non-zero: git
 * dies here (skg_strict_error says why). */
int skg_strict_object(void *ctx, uint32_t i, unsigned type, const uint8_t *data, uint64_t len);

/* Why the last call failed, into err: SKG_E_GIT with git's message or SKG_E_NOMEM. */
void skg_strict_error(const struct skg_strict *s, struct skg_error *err);

/* check_objects: every link neither in the pack nor in the repository, or of another type there,
 * is fatal ("did not receive expected object X", "object X: expected type T, found U"). Returns 0
 * or -1 with err. */
int skg_strict_links(struct skg_strict *s, struct skg_error *err);

/* fsck_finish, after the idx is written: the .gitmodules / .gitattributes blobs named by a tree
 * but not seen after it, read from the pack (when `installed`: git found the pack beside its idx;
 * pack with its objects and IDs complete) or the repository. Returns 0, or -1 with err: SKG_E_GIT
 * "fsck error in pack objects", SKG_E_NOMEM. */
int skg_strict_finish(struct skg_strict *s, bool installed, struct skg_error *err);

void skg_strict_free(struct skg_strict *s);

#endif /* SHA1KIT_GIT_PACK_STRICT_H */
