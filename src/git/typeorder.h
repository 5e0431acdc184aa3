/*
 * typeorder.h - git's one type per object, where links disagree on it: which type git keeps for
 * each disputed object and which parses fail, from the order in which git reads objects.
 *
 * Part of the Git layer (src/git/). Semantics of Git v2.39.5: git keeps one object in memory per
 * ID, with one type, that of the first event on the ID (object.c lookup_object / object_as_type).
 * An event is the object's own parse (parse_object_buffer's lookup_<type>), or a lookup of it
 * through a link of an object read before it: a commit's tree and parents and a tag's object
 * (commit.c parse_commit_buffer, tag.c parse_tag_buffer), a tree's entries (fsck.c
 * fsck_walk_tree). Every later lookup as another type fails with "object X is a T, not a U":
 *  - the object's own: it is no object to git (SKG_TO_PARSE);
 *  - a commit's or tag's link: its parse stops there ("bad tree pointer", "bad parent", "bad
 *    graft parent", "bad tag pointer to"), the links after it are never looked up, and the
 *    object is no object to git (SKG_TO_TREE_PTR .. SKG_TO_TAG_PTR);
 *  - a tree's entry: the entry is a broken link (skg_typeorder_type tells which entries).
 * git fsck reads the loose objects of each object directory in turn (xx/ by xx/, each in
 * directory order), then each pack in offset order (builtin/fsck.c, pack-check.c).
 *
 * Use: make it with the disputed IDs (skg_graph_conflicts), feed it every object read that is
 * disputed or links to a disputed one with its place in git's order (skg_typeorder_event, from
 * any thread), then skg_typeorder_resolve, then ask. Memory grows with the events kept only.
 */
#ifndef SHA1KIT_GIT_TYPEORDER_H
#define SHA1KIT_GIT_TYPEORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "graph.h"
#include "object.h"

struct skg_typeorder;

/* Where git reads an object: loose ones (seq 0) by object directory, directory xx and place in
 * it; then packs (seq 1, 2, ... in git's order) by offset. Compared field by field, after `tip`:
 * git 2.53+ parses the object of each ref, then of each worktree's HEAD, before the object check
 * (builtin/fsck.c snapshot_refs; f6b262581a "fsck: snapshot default refs before object walk"),
 * so those parses come first, in that order. Such a parse of a tree looks up none of its entries
 * (parse_tree_buffer): give it no links; they are looked up when the object check reads it.
 * git's set-up looks the shallow file's commits up (`setup` k > 0: the k-th; where is ignored) at
 * its first parse of a commit (commit.c parse_commit_buffer's lookup_commit_graft, then
 * prepare_commit_graft, shallow.c register_shallow's lookup_commit): those events come just
 * before the first commit skg_typeorder_commit was told of, or never when there is none. */
struct skg_read_pos {
	uint32_t seq;   /* 0: loose; else the pack's place among the packs git reads */
	uint32_t odb;   /* loose: the object directory's place (the repository's first) */
	uint64_t where; /* loose: xx << 32 | its place in the directory; packed: its offset */
	uint32_t tip;   /* 0: read by the object check; k > 0: the k-th parse of the ref snapshot */
	uint32_t setup; /* 0, or k > 0: the k-th lookup of git's set-up, before everything else */
};

/* What goes wrong when git parses an object (skg_typeorder_fate). */
enum skg_typeorder_kind {
	SKG_TO_PARSE,        /* its own lookup fails: git has it as `tau` */
	SKG_TO_TREE_PTR,     /* a commit whose tree git has as `tau` */
	SKG_TO_PARENT,       /* a commit with a parent git has as `tau` */
	SKG_TO_GRAFT_PARENT, /* ... a parent its graft gives */
	SKG_TO_TAG_PTR,      /* a tag whose object git has as `tau`, not as the tag's type */
};

struct skg_typeorder_fate {
	uint8_t id[SKG_MAX_RAWSZ]; /* rawsz bytes, then zeros (as target) */
	uint8_t rawsz;             /* bytes of an ID: 20 (SHA-1) or 32 (SHA-256) */
	uint8_t kind;              /* enum skg_typeorder_kind */
	uint8_t type;              /* the object's own type */
	uint8_t tau;               /* git's type of the target (SKG_TO_PARSE: of the object) */
	uint8_t link_type;         /* the type the link says the target has */
	uint8_t target[SKG_MAX_RAWSZ];
};

/* A new order for the n disputed IDs ids[0 .. n * rawsz) (copied; any order, no repeats), of
 * rawsz bytes each (20 for SHA-1, 32 for SHA-256; so is every ID below); NULL when out of memory. */
struct skg_typeorder *skg_typeorder_new(const uint8_t *ids, size_t n, size_t rawsz);
void skg_typeorder_free(struct skg_typeorder *t);

/* Whether `id` is one of the disputed IDs. */
bool skg_typeorder_disputed(const struct skg_typeorder *t, const uint8_t *id);

/*
 * An object read at `pos`: `id` of `type` (1..4) with its links[0 .. n) in git's lookup order (a
 * commit's tree first, then its parents, the graft's when `graft`; a tag's object; a tree's
 * entries, gitlinks left out). Kept when the object or a link target is disputed. Safe from
 * several threads. 0, or -1 when out of memory.
 */
int skg_typeorder_event(struct skg_typeorder *t, const struct skg_read_pos *pos, const uint8_t *id,
                        unsigned type, const struct skg_link *links, size_t n, bool graft);

/* A commit git parses at `pos` (every one, disputed or not; any thread): the first decides where
 * the set-up's lookups happen. */
void skg_typeorder_commit(struct skg_typeorder *t, const struct skg_read_pos *pos);

/* The events in git's order: git's type for each disputed object, and the fates. An object read
 * twice (two copies) counts at its first place; a tree the snapshot parsed also where the object
 * check first reads it (its entries' lookups). 0, or -1 when out of memory. */
int skg_typeorder_resolve(struct skg_typeorder *t);

/* After resolve: the number of disputed IDs, the k-th and git's type for it (0: no event). */
size_t skg_typeorder_count(const struct skg_typeorder *t);
const uint8_t *skg_typeorder_id(const struct skg_typeorder *t, size_t k, unsigned *type);

/* After resolve: git's type for `id` if it is disputed, else 0. */
unsigned skg_typeorder_type(const struct skg_typeorder *t, const uint8_t *id);

/* After resolve: what goes wrong when git parses `id`, or NULL (nothing). */
const struct skg_typeorder_fate *skg_typeorder_fate(const struct skg_typeorder *t, const uint8_t *id);

/*
 * git's error lines for a fate: one for SKG_TO_PARSE ("error: object X is a T, not a U"), two for
 * the others (that, then "error: bad tree pointer X in commit Y" etc.), separated by '\n' (none at
 * the end), into buf[0..n) (truncated to fit, always terminated).
 */
void skg_typeorder_fate_lines(const struct skg_typeorder_fate *fate, char *buf, size_t n);

#endif /* SHA1KIT_GIT_TYPEORDER_H */
