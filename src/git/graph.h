/*
 * graph.h - the object graph of a repository for `fsck`: which objects exist, what each links to,
 * and the connectivity walk from the roots (refs, reflogs, the index) with git fsck's findings.
 *
 * Part of the Git layer (src/git/). Semantics follow Git's builtin/fsck.c (v2.39.5): an object is
 * REACHABLE when a root or a reachable object links to it; a link to an object that is not in the
 * repository is a "broken link" (and the object "missing"); an object that exists, is not
 * reachable and that no existing object links to is "dangling".
 *
 * Links that disagree on an object's type: git keeps one type per object, that of the first event
 * in its order of reading (the object's own parse, or a link to it from an object read before it),
 * and every later lookup as another type fails. The graph notes such objects
 * (skg_graph_conflicts); the caller works out git's type for each and sets it before a second
 * build of the graph (skg_graph_force_type), in which a link of another type to such an object
 * marks nothing and the walk reports it as git's traversal does (skg_graph_report.failed_link).
 *
 * Memory: 56 bytes per object (present or only linked to), 4 per link, a hash table of 4 to 8
 * bytes per object, and with names (skg_graph_enable_names) 8 more per object from the walk on;
 * nothing is allocated per object. One mutex makes skg_graph_add and skg_graph_root safe to call
 * from several threads (an add that finds another thread inside is queued for that thread to
 * insert, and returns at once); the walk runs on one, after every add has returned.
 */
#ifndef SHA1KIT_GIT_GRAPH_H
#define SHA1KIT_GIT_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "object.h"

struct skg_buf;

struct skg_graph;

/* A link from an object: the target's ID (the graph's rawsz bytes) and the type the link says it
 * has (1..4). */
struct skg_link {
	uint8_t id[SKG_MAX_RAWSZ];
	uint8_t type;
};

/* A new, empty graph of objects whose IDs are `rawsz` bytes (SKG_RAWSZ, 20, for SHA-1, or
 * SKG_MAX_RAWSZ, 32, for SHA-256; every ID below is that long); NULL when out of memory. */
struct skg_graph *skg_graph_new(size_t rawsz);
void skg_graph_free(struct skg_graph *g);

/*
 * Record that object `id` of `type` (1..4) exists, with its links[0..n) (tree entries that are not
 * gitlinks, a commit's tree and parents, a tag's object). `walk_error`: following its links fails
 * part way (a tree that does not decode to its end; git prints the decode error each time it walks
 * it): the walk reports it through skg_graph_report.walk_error. An object added twice (two packs, a pack
 * and a loose copy) keeps its first record, with the earlier `order` of the two (the other is kept
 * for the order of the walk's last lines: git looks the object up again). `order`: where the add comes in
 * git's order of checks (skg_graph_order); the order of the walk's last lines (dangling, unreachable,
 * missing) follows it, not the order in which threads happen to add. Returns 0, or -1 when out of memory.
 */
int skg_graph_add(struct skg_graph *g, const uint8_t *id, unsigned type, const struct skg_link *links,
                  size_t n, bool walk_error, uint64_t order);

/*
 * The `order` of an add: a loose object of object directory `odb` (0: the repository's, then the
 * alternates), read nth in its xx/ directory `dir`; or the object at `offset` in the pack_seq-th
 * pack git checks (pack_seq > 0; then odb, dir and nth are not used). Loose objects come first,
 * as git checks them first.
 */
static inline uint64_t skg_graph_order(uint32_t pack_seq, uint64_t offset, uint32_t odb, uint32_t dir,
                                       uint32_t nth)
{
	const uint64_t low40 = ((uint64_t)1 << 40) - 1, top23 = ((uint64_t)1 << 23) - 1;
	if (pack_seq > 0) {
		return (uint64_t)1 << 63 | (pack_seq < top23 ? pack_seq : top23) << 40 |
		       (offset < low40 ? offset : low40);
	}
	return (odb < top23 ? odb : top23) << 40 | (uint64_t)(dir & 0xff) << 32 | nth;
}

/* The pack (pack_seq) and offset of an `order` skg_graph_order made for a packed object: true,
 * or false for a loose one's (or UINT64_MAX, none). */
static inline bool skg_graph_order_packed(uint64_t order, uint32_t *pack_seq, uint64_t *offset)
{
	const uint64_t low40 = ((uint64_t)1 << 40) - 1, top23 = ((uint64_t)1 << 23) - 1;
	if (!(order >> 63) || order == UINT64_MAX) {
		return false;
	}
	*pack_seq = (uint32_t)((order >> 40) & top23);
	*offset = order & low40;
	return true;
}

/*
 * As skg_graph_add, but the links are not kept: they count (the targets are entered and are "used",
 * never dangling) and the walk asks for them again through skg_graph_report.reload, with `source`,
 * when it reaches the object. For objects that are cheap to read again (loose trees): memory then
 * grows with the objects, not with their links, as git's does.
 */
int skg_graph_add_reload(struct skg_graph *g, const uint8_t *id, unsigned type, const struct skg_link *links,
                         size_t n, bool walk_error, uint16_t source, uint64_t order);

/*
 * Record that `id` is in the object store but was not read (an object an idx lists, in a pack
 * whose check stopped before the object): as git, which finds such objects through the idx, the
 * walk counts it as present (no broken link to it, never missing), follows no links from it and
 * checks no link type against it; it is never reported dangling or unreachable. `readable` false
 * (the object the check stopped on): skg_graph_has says it does not exist, as git's parse of it
 * fails for a ref or reflog entry. An object already added is left as it is. `order`: as
 * skg_graph_add's. 0, or -1 when out of memory.
 */
int skg_graph_add_unread(struct skg_graph *g, const uint8_t *id, bool readable, uint64_t order);

/*
 * skg_graph_add_unread(g, id, false, order) of an object git's walk reads where it reaches it and
 * cannot (an idx lists it, its pack does not open: git fsck --connectivity-only lists it present
 * all the same, skg_graph_listed, but cannot parse it, skg_graph_has): the walk reports it
 * through skg_graph_report.walk_error, with the type of the first link git looks it up by (0 for a
 * root reached before any), and follows nothing from it.
 */
int skg_graph_add_unread_walked(struct skg_graph *g, const uint8_t *id, uint64_t order);
/* For an object added by skg_graph_add_unread_walked: the links git's walk takes from the
 * commit-graph (the tree, then the parents) when it reaches the object as a commit, which it then
 * parses from the graph without reading it (reached as another type, or with none: its error, and
 * no link followed). They mark nothing used and type nothing until then. 0, or -1 when out of
 * memory. */
int skg_graph_set_graph_links(struct skg_graph *g, const uint8_t *id, const struct skg_link *links, size_t n);
/*
 * After a pass over the pack git checks pack_seq-th (skg_graph_order) that failed: forget each
 * object that pass added whose ID `has` (ctx, id, rawsz, offset) says is not at its offset in the
 * pack's idx (one that read back as another object), as if never added. Not while adds run.
 */
void skg_graph_forget_strays(struct skg_graph *g, uint32_t pack_seq,
                             bool (*has)(const void *ctx, const uint8_t *id, unsigned rawsz, uint64_t offset),
                             const void *ctx);

/* Whether `id` was added by skg_graph_add_unread_walked (git's HAS_OBJ without a readable copy). */
bool skg_graph_listed(const struct skg_graph *g, const uint8_t *id);

/*
 * Make room for `objects` objects in all (existing ones included) before they are added, so that the
 * table does not grow while the checks run (fsck knows the count from the idx files). A hint only:
 * the graph still grows past it. 0, or -1 when out of memory (or more than 2^29 - 1 objects).
 */
int skg_graph_reserve(struct skg_graph *g, uint64_t objects);

/* Mark `id` as a root of the walk (a ref, a reflog entry, an index entry); `type` (0: unknown) is
 * what the root says it is, used in the "missing" line when the object does not exist (git: an
 * index entry names a blob). 0, or -1 out of memory. */
int skg_graph_root(struct skg_graph *g, const uint8_t *id, unsigned type);

/*
 * Object names, as `git fsck --name-objects` gives them (fsck.c: fsck_put_object_name,
 * fsck_describe_object and the walk's fsck_walk_tree, fsck_walk_commit, fsck_walk_tag; v2.39.5
 * and v2.55.0 alike). skg_graph_enable_names, before the first root, turns them on; then
 * skg_graph_root_named gives a root its name (builtin/fsck.c: "REFNAME" for a ref or HEAD,
 * "REFNAME@{TIMESTAMP}" for the new side of a reflog entry, ":PATH" or "INDEX:PATH" for an index
 * entry, ":" for the cache-tree, ":(STAGE):PATH" for resolve-undo), in git's order of the roots,
 * and the walk passes names on as git does: an object keeps the first name it is given; a named
 * commit names its tree "NAME:" and its parents "NAME^" (or "PREFIX~N+1" when NAME ends in "~N",
 * "PREFIX~2" when it ends in "^"), "NAME^2", "NAME^3", ...; a named tree names each entry
 * "NAMEPATH" ("NAMEPATH/" for a subtree); a named tag gives its object its own name. Names are
 * put while the walk goes, so a line of the walk describes an object by the name it has then,
 * as git's does. 0, or -1 when out of memory.
 */
int skg_graph_enable_names(struct skg_graph *g);

/* skg_graph_root, and with names on (skg_graph_enable_names) the root's name (NULL: none, as git's
 * reflog entries without a timestamp). 0, or -1 when out of memory. */
int skg_graph_root_named(struct skg_graph *g, const uint8_t *id, unsigned type, const char *name);

/*
 * git looked `id` up among its roots without taking it as one (fsck_handle_reflog_oid's
 * lookup_object of a reflog entry's object that is not there, then is_promisor_object): nothing
 * when the graph does not know `id`. For the order of the walk's last lines: lookup_object moves
 * the object it finds to its first slot. 0, or -1 when out of memory.
 */
int skg_graph_root_lookup(struct skg_graph *g, const uint8_t *id);

/* skg_graph_root_named of a ref or HEAD, or of a cache-tree's tree, whose object git parses there
 * (process_refs', fsck_cache_tree's parse_object: with --connectivity-only, a commit's or tag's
 * links are looked up then, and git 2.55 reads the object, which reorders its packs). */
int skg_graph_root_ref(struct skg_graph *g, const uint8_t *id, unsigned type, const char *name);

/*
 * The name of entry `k` (0-based, gitlinks not counted: the order of the tree's links) of the tree
 * `tree`: appended to `name`; *is_dir true for a subtree. Returns 0, or -1 when the tree cannot be
 * read or has no such entry (the object is then described without a name).
 */
typedef int (*skg_graph_entry_fn)(void *ctx, const uint8_t *tree, uint32_t k, struct skg_buf *name,
                                  bool *is_dir);

/*
 * The name `id` has at this point of the walk (or after it), appended to `out`: 1 when it has one,
 * 0 when not (names off, never named), -1 when out of memory. `entry` reads the entry names of
 * the trees on the way (see skg_graph_entry_fn).
 */
int skg_graph_name(const struct skg_graph *g, const uint8_t *id, skg_graph_entry_fn entry, void *ctx,
                   struct skg_buf *out);

/*
 * The pack git checks pack_seq-th (skg_graph_order) belongs to object directory `odb` (0: the
 * repository's, then its alternates), a multi-pack-index lists it (`in_midx`), it is a promisor
 * pack (`promisor`: a .promisor file beside it), and its .pack has modification time `mtime`
 * (seconds): for the order of the walk's last lines. 0, or -1 when out of memory.
 */
int skg_graph_pack_source(struct skg_graph *g, uint32_t pack_seq, uint32_t odb, bool in_midx, bool promisor,
                          int64_t mtime);

/*
 * git 2.53+'s snapshot of the refs (builtin/fsck.c snapshot_ref) parsed `id`, before its object
 * check: called for each ref and HEAD whose object parses, in git's order. It changes only the
 * order of the walk's last lines (git's table then begins with those objects and the links their
 * parse looks up, and their later parse looks nothing up again). 0, or -1 when out of memory.
 */
int skg_graph_snapshot_parse(struct skg_graph *g, const uint8_t *id);

/* Whether `id` was added (exists) and, if so, its type in *type (may be NULL). */
bool skg_graph_has(const struct skg_graph *g, const uint8_t *id, unsigned *type);

/* The links kept for an object the graph has (skg_graph_has; none for one added by
 * skg_graph_add_reload): the first `max` of them in out[], their count in *n. */
bool skg_graph_links(const struct skg_graph *g, const uint8_t *id, struct skg_link *out, size_t max,
                     size_t *n);
/* Whether the object check read a copy of `id`: git's HAS_OBJ, which fsck_obj gives. As
 * skg_graph_has, and also where the first copy could not be read and a later copy was. */
bool skg_graph_checked(const struct skg_graph *g, const uint8_t *id);
/* The `order` of the (first) add of an object the graph has (skg_graph_has), in *order. */
bool skg_graph_add_order(const struct skg_graph *g, const uint8_t *id, uint64_t *order);

/*
 * Whether the graph has any record of `id`: added, or only linked to or named as a root (git has
 * an object of that ID in memory, from parsing the objects that link to it). *type (if not NULL)
 * gets its type: the real one when added, else the type of the first link to it (0: none).
 */
bool skg_graph_known(const struct skg_graph *g, const uint8_t *id, unsigned *type);

/*
 * The objects that two events disagree on the type of: added with one type and linked to as
 * another, or linked to as two types (events on F_UNREAD objects and roots do not count). A
 * malloc'd array of *n IDs (rawsz bytes each) in *ids, in no order; 0, or -1 when out of memory.
 */
int skg_graph_conflicts(const struct skg_graph *g, uint8_t **ids, size_t *n);

/*
 * Give `id` git's type for it, `type` (1..4), before anything is added: links to it of another
 * type mark it neither used nor reachable, and the walk reports them (failed_link). Adding the
 * object later keeps the mark. 0, or -1 when out of memory.
 */
int skg_graph_force_type(struct skg_graph *g, const uint8_t *id, unsigned type);

/*
 * Note that git has `id` in memory as `type` (1..4) without the object: one whose parse failed
 * after git's lookup of it made it (a commit or tag that does not parse). Its type is then what
 * skg_graph_known gives, unless it had one. 0, or -1 when out of memory.
 */
int skg_graph_note_type(struct skg_graph *g, const uint8_t *id, unsigned type);

/*
 * Mark `id` a promisor object (git's is_promisor_object, packfile.c): the walk reaches it but does
 * not follow its links, and never reports it missing. Nothing is done when the graph does not
 * know `id` (git's set may hold it; no object of the graph is made for it). `links`: its links'
 * targets become promisor objects too (git's add_promisor_object for an object of a promisor pack);
 * returns 1 when those links are not kept (skg_graph_add_reload; *source: its `source`): the caller
 * reads them and marks each target, else 0. After the objects are added, on one thread.
 */
int skg_graph_set_promisor(struct skg_graph *g, const uint8_t *id, bool links, unsigned *source);

/* Whether `id` was marked a promisor object. */
bool skg_graph_is_promisor(const struct skg_graph *g, const uint8_t *id);

/*
 * Mark `id`, an object that was added and read, as one git's walk reads again where it reaches it
 * and cannot (a tree, or with --connectivity-only a commit or tag, that git's object store finds
 * through a multi-pack-index in a pack it cannot read, though the check read a copy elsewhere): the
 * walk reports it through skg_graph_report.walk_error, with its type, and follows none of its links
 * (they still count as used). Nothing for an object not added or not read, but a tree whose
 * record is of a copy that could not be read with a readable copy added after it: the walk reports
 * it the same way. After the objects are added, on one thread. True when it marked the object.
 */
bool skg_graph_set_noread(struct skg_graph *g, const uint8_t *id);

/*
 * Mark `id`, an object that was added and read, as one whose read by git's walk gives lines (a
 * tree in a pack whose delta base fails there: git reads the base from another copy, after its
 * lines): the walk reports it through skg_graph_report.reread where it reaches it. Meant for a few
 * objects (a linear search per object walked while any is marked). After the objects are added,
 * on one thread. 1 when it marked the object, 0 when there is no such object, -1 out of memory.
 */
int skg_graph_set_reread(struct skg_graph *g, const uint8_t *id);

/*
 * The commits of the graft file in the order git registers them (struct skg_grafts.file_ids; n IDs
 * of the graph's rawsz bytes): git reads the file at its first parse of a commit, between that
 * commit's tree and its parents, and looks each up (register_commit_graft's unparse_commit), which
 * makes it in git's object table there (the order of the last lines; an ID the graph does not have
 * is left out). Copied. 0, or -1 out of memory.
 */
int skg_graph_set_graft_lookups(struct skg_graph *g, const uint8_t *ids, size_t n);

/*
 * Note that git asked is_promisor_object before its walk (fsck_finish's check of a .gitmodules or
 * .gitattributes blob it cannot read): git then made its set of promisor objects there, looking up
 * every object of the promisor packs, instead of at the walk's first root. For the order of the
 * walk's lines (skg_graph_walk). On one thread.
 */
void skg_graph_promisor_asked(struct skg_graph *g);

/*
 * Note that git 2.55's snapshot of the refs asked is_promisor_object (snapshot_ref, for a ref
 * whose object does not parse) after the snapshot entries given so far: git made its set of
 * promisor objects there, before its object check, making and parsing each object of the promisor
 * packs. For the order of the walk's lines. On one thread.
 */
void skg_graph_snapshot_promisor(struct skg_graph *g);

/* Number of objects the graph knows: added ones and those only linked to or named as roots. */
uint32_t skg_graph_count(const struct skg_graph *g);

/* What the walk finds. Type 0 means unknown (a root that does not exist). */
struct skg_graph_report {
	void *ctx;
	/* A reachable object links to `to`, which does not exist (git: "broken link from ..."). */
	void (*broken_link)(void *ctx, unsigned from_type, const uint8_t *from, unsigned to_type,
	                    const uint8_t *to);
	/* `from` links to an existing object with a type other than the link's (no type was forced). */
	void (*wrong_type)(void *ctx, unsigned from_type, const uint8_t *from);
	/* Reachable and missing / unreachable and existing, nothing links to it / unreachable. */
	void (*missing)(void *ctx, unsigned type, const uint8_t *id);
	void (*dangling)(void *ctx, unsigned type, const uint8_t *id);
	void (*unreachable)(void *ctx, unsigned type, const uint8_t *id);
	/* The walk followed the links of an object added with walk_error (may be NULL). */
	void (*walk_error)(void *ctx, unsigned type, const uint8_t *id);
	bool show_unreachable; /* --unreachable: every unreachable object, instead of the dangling ones */
	/*
	 * The links of an object added with skg_graph_add_reload, now reachable: the caller reads it
	 * again and hands each link (the same ones, in the same order) to link(link_ctx, ...), from the
	 * thread numbered `thread` (see reload_threads). NULL:
	 * such objects are walked as if they had no links.
	 */
	void (*reload)(void *ctx, unsigned thread, unsigned source, const uint8_t *id, unsigned type,
	               void (*link)(void *link_ctx, const uint8_t *id, unsigned type), void *link_ctx);
	/*
	 * Threads that may call reload at once, `thread` 0 .. reload_threads - 1 (0 or 1: one). With
	 * more, the walk first finds what is reachable with reload on those threads and reports
	 * nothing; only when that walk met something to report (a broken link, a wrong type, a walk
	 * error) does it walk again on one thread, reporting, in git's order.
	 */
	unsigned reload_threads;
	/* A reachable `from` links as `link_type` to `to`, whose forced type (skg_graph_force_type) is
	 * `to_type`: git's lookup fails and its traversal says so (may be NULL). */
	void (*failed_link)(void *ctx, unsigned from_type, const uint8_t *from, unsigned to_type,
	                    unsigned link_type, const uint8_t *to);
	/*
	 * git fsck --connectivity-only: an object is "used" (never dangling) only when it is a root or an
	 * existing unreachable object links to it, not when only a reachable promisor object does.
	 */
	bool used_by_unreachable;
	/* --connectivity-only: git's object check only made each object (lookup_unknown_object, in
	 * the order of its object store's listing) and parsed none; for the order of the last lines */
	bool connectivity_only;
	/* with it, git lists the objects again to mark what unreachable ones use (dangling lines on,
	 * or --lost-found: check_connectivity's mark_unreachable_referents); for the same order */
	bool referents;
	/* git 2.55's listing goes by object directory (odb_for_each_object: each source's loose
	 * objects, then its packs; skg_graph_pack_source), 2.39's lists every directory's loose
	 * objects, then every pack (for_each_loose_object, for_each_packed_object) */
	bool listing_by_source;
	/*
	 * With `referents`: an object git lists and cannot read (skg_graph_add_unread_walked) that the
	 * walk did not reach and no unreachable object links to, which the second listing reads for its
	 * type and parses (mark_unreachable_referents: odb_read_object_info, fsck_walk's parse_object,
	 * "Unknown object type"), in the listing's order, after the walk (may be NULL). Such objects
	 * are then dangling ("unknown") or unreachable, as git's check_object makes them. `linked`:
	 * one that an unreachable object git reads links to (the call is for git's parse of it only:
	 * a corrupt packed commit, tree or tag it dies on; the type its link gave it stays).
	 */
	void (*referent_error)(void *ctx, const uint8_t *id, bool linked);
	/*
	 * --connectivity-only: git types an object only when it looks it up through a link (its
	 * first lookup gives the type; lookup_tree, lookup_blob, lookup_commit, lookup_tag) or parses
	 * it at a ref; an object's own type comes only from a read. The walk's parse of an object git
	 * has as `as` whose object is of `type`: its read fails (tree.c, commit.c, tag.c: "Object X
	 * not a tree"); none of its links is followed (may be NULL). A blob git has that is not one
	 * is not read, and not followed either.
	 */
	void (*not_a)(void *ctx, unsigned type, unsigned as, const uint8_t *id);
	/*
	 * --connectivity-only: the walk's parse of commit or tag `from` (not a ref's, parsed before)
	 * looks up its k-th link `to` as `link_type`, which git has as `tau` from an earlier lookup:
	 * the lookup fails, so does the parse (commit.c parse_commit_buffer "bad parent", tag.c
	 * parse_tag_buffer "bad tag pointer"), and none of its links is followed (may be NULL). A
	 * tree's entry that fails so goes to failed_link.
	 */
	void (*failed_parse)(void *ctx, unsigned from_type, const uint8_t *from, uint32_t k, unsigned tau,
	                     unsigned link_type, const uint8_t *to);
	/* --connectivity-only: a root given with a type (an index entry's blob) whose lookup fails, git
	 * having the object as `tau`: it is no root (may be NULL). */
	void (*failed_root)(void *ctx, unsigned tau, unsigned type, const uint8_t *id);
	/* --connectivity-only: the walk meets object `id` of `type` with no type in git's memory yet
	 * (a reflog's entry), which git parses for its own (fsck_walk's parse_object, which hashes
	 * it): false when that fails, its lines given unless `quiet` (the quiet pass asks too); then
	 * git has it with no type ("Unknown object type") and follows nothing (may be NULL). */
	bool (*parse_typeless)(void *ctx, bool quiet, unsigned type, const uint8_t *id);
	/* The walk follows an object whose first copy could not be read through the copy read after
	 * it (insert's record of both), or one skg_graph_set_reread marked: git's walk reads it there
	 * again (may be NULL). */
	void (*reread)(void *ctx, unsigned type, const uint8_t *id);
};

/*
 * Walk from the roots and report, in git fsck's order: broken links and wrong types during the
 * walk (depth first from each root in the order the roots were given), then missing, dangling
 * or unreachable objects in the order of git's object hash table (objtab.h: slots by the first 4
 * bytes of the ID read in the machine's byte order, as git's oidhash; git's creations and lookups
 * replayed, graph.c git_hash_order), so that the lines come out in the order git prints them in,
 * or close to it (what is not replayed: graph.c). A promisor object (skg_graph_set_promisor) is
 * reached but not followed, and not missing. Returns 0, or -1 when out of memory.
 */
int skg_graph_walk(struct skg_graph *g, const struct skg_graph_report *rep);

#endif /* SHA1KIT_GIT_GRAPH_H */
