/*
 * fsck_refs.c - the roots of a repository check (fsck_run.h), as git 2.39.5's fsck takes them
 * (builtin/fsck.c: fsck_handle_ref, fsck_handle_reflog, get_default_heads, keep_cache_objects,
 * fsck_cache_tree, fsck_resolve_undo): every ref, each worktree's HEAD and reflogs, the index's
 * entries, cache-tree and resolve-undo. A ref or reflog entry naming a promisor object that is not
 * there is no error (is_promisor_object); the cache-tree and resolve-undo do not ask. An object they name
 * that the check could not read is read as git's parse_object reads it (fsck_read.c), with git's lines, dying
 * where git dies.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <sha1kit/git_object.h>

#include "fsck_run.h"
#include "fsck_object.h"
#include "index_file.h"
#include "odb.h"
#include "reflog.h"
#include "refs.h"
#include "reftable.h"
#include "repo.h"
#include "worktree.h"

/* A root, with its name for --name-objects (NULL: none): builtin/fsck.c's fsck_put_object_name
 * of fsck_handle_ref, fsck_handle_reflog_oid, fsck_index, fsck_cache_tree, fsck_resolve_undo. */
static void root(struct skg_fsck_run *f, const uint8_t *id, unsigned type, const char *name)
{
	if (skg_graph_root_named(f->graph, id, type, name) != 0) {
		skg_fsck_nomem(f);
	}
}

/* root() with a name made by a format (only when names are on: it costs an allocation). */
static void root_f(struct skg_fsck_run *f, const uint8_t *id, unsigned type, const char *fmt, ...)
    SKG_PRINTF(4, 5);
static void root_f(struct skg_fsck_run *f, const uint8_t *id, unsigned type, const char *fmt, ...)
{
	struct skg_buf name = {0};
	if (f->name_objects) {
		va_list ap;
		va_start(ap, fmt);
		skg_buf_vaddf(&name, fmt, ap);
		va_end(ap);
		if (name.failed) {
			skg_buf_release(&name);
			skg_fsck_nomem(f);
			return;
		}
	}
	root(f, id, type, f->name_objects ? skg_buf_str(&name) : NULL);
	skg_buf_release(&name);
}

void skg_fsck_parse_lookup_lines(struct skg_fsck_run *f, const uint8_t *id, unsigned known)
{
	if (f->n_unusable == 0) {
		return;
	}
	unsigned each = skg_fsck_loose_file_exists(f, id) ? 1 : 2;
	if (f->git_version < SKG_GIT_2_55 && skg_graph_listed(f->graph, id)) {
		/* 2.39.5's parse_object of an object its listing made (--connectivity-only): the
		 * object read alone, its type is looked up only for a blob it knows */
		skg_fsck_lookup_lines(f, id, each);
		return;
	}
	skg_fsck_lookup_lines(f, id, (known == SKG_NONE || known == SKG_BLOB ? each : 0) + each);
}

static void parse_lookup_lines(struct skg_fsck_run *f, const uint8_t *id)
{
	skg_fsck_parse_lookup_lines(f, id, skg_fsck_in_memory_type(f, id));
}

struct link_find {
	const uint8_t *id;
	size_t rawsz;
	bool found;
};

static void on_parent_find(void *ctx, const uint8_t *id)
{
	struct link_find *lf = ctx;
	lf->found |= memcmp(id, lf->id, lf->rawsz) == 0;
}

/*
 * git 2.55's snapshot: the type git has `id` in memory as when a ref names it, from the links the
 * objects of the refs read before looked up (parse_commit_buffer: the tree and the parents;
 * parse_tag_buffer: the tagged object, as the tag's type), the first such link; SKG_NONE.
 */
static unsigned snapshot_known(struct skg_fsck_run *f, const uint8_t *id)
{
	for (size_t k = 0; k < f->n_snap_read; k++) {
		const uint8_t *t = f->snap_read + k * f->rawsz;
		unsigned type = SKG_NONE;
		if (!skg_graph_has(f->graph, t, &type) || (type != SKG_COMMIT && type != SKG_TAG)) {
			continue; /* not parsed: it looked nothing up */
		}
		uint8_t *data = NULL;
		size_t len = 0;
		int got = 0;
		for (size_t o = 0; o < f->n_odb_dirs && got == 0; o++) {
			got = skg_odb_read(f->odb_dirs[o], f->rawsz, t, &type, &data, &len, f->on_map,
			                   f->map_ctx);
		}
		unsigned known = SKG_NONE;
		if (got > 0 && type == SKG_COMMIT) {
			uint8_t tree[SKG_MAX_RAWSZ];
			struct link_find lf = {id, f->rawsz, false};
			if (skg_commit_links(data, len, f->rawsz, tree, on_parent_find, &lf) ==
			    SKG_PARSE_OK) {
				known = memcmp(tree, id, f->rawsz) == 0 ? SKG_TREE
				        : lf.found                      ? SKG_COMMIT
				                                        : SKG_NONE;
			}
		} else if (got > 0 && type == SKG_TAG) {
			struct skg_tag_links tl;
			if (skg_tag_links(data, len, f->rawsz, &tl) == SKG_PARSE_OK &&
			    memcmp(tl.object, id, f->rawsz) == 0) {
				known = tl.type;
			}
		}
		free(data);
		if (got < 0) {
			skg_fsck_nomem(f);
		}
		if (known != SKG_NONE) {
			return known;
		}
	}
	return SKG_NONE;
}

/* The snapshot: one more object read. */
static void snapshot_read(struct skg_fsck_run *f, const uint8_t *id)
{
	if (f->n_snap_read == f->cap_snap_read) {
		size_t cap = f->cap_snap_read ? 2 * f->cap_snap_read : 16;
		uint8_t *v = realloc(f->snap_read, cap * f->rawsz);
		if (v == NULL) {
			skg_fsck_nomem(f);
			return;
		}
		f->snap_read = v;
		f->cap_snap_read = cap;
	}
	memcpy(f->snap_read + f->n_snap_read++ * f->rawsz, id, f->rawsz);
	if (skg_graph_snapshot_parse(f->graph, id) != 0) { /* the order of the walk's last lines */
		skg_fsck_nomem(f);
	}
}

/* git's fsck_handle_ref; false when git dies there */
static bool handle_ref(struct skg_fsck_run *f, const char *refname, const uint8_t *id)
{
	const struct skg_fsck_meta reach = {SKG_R_FSCK, NULL, SKG_NONE, id, SKG_CHECK_ERROR_REACHABLE};
	unsigned type;
	char h[SKG_MAX_HEXSZ + 1];
	const struct skg_typeorder_fate *fate = skg_fsck_type_fate(f, id);
	if (fate != NULL) {
		/* git's parse_object reads it again and its parse fails as before */
		skg_fsck_fate_lines(f, NULL, fate);
		if (f->snapshot) {
			skg_graph_snapshot_promisor(f->graph); /* snapshot_ref's is_promisor_object */
		}
		if (skg_graph_is_promisor(f->graph, id)) {
			f->default_refs++; /* a valid ref to git, which goes on to the next */
			return true;
		}
		skg_to_hex_len(id, f->rawsz, h);
		skg_fsck_err_line(f, &reach, "error: %s: invalid sha1 pointer %s", refname, h);
		skg_fsck_add_errors(f, SKG_CHECK_ERROR_REACHABLE);
		return true;
	}
	/* --connectivity-only read no blob, and took its type from the entry headers: git's parse of
	 * a ref's blob reads it (a blob's stream, whole), and dies where that read fails (a tag whose
	 * entry header became a blob's; a new user's trial) */
	const bool has = skg_graph_has(f->graph, id, &type);
	if (f->connectivity_only && has && type == SKG_BLOB && skg_fsck_walk_read_dies(f, id, type)) {
		return false;
	}
	/* git's parse_object reads it (2.55's snapshot: before the object check; --connectivity-only:
	 * nothing was parsed; a tree: again) and cannot where the multi-pack-index sends it to a pack
	 * that does not open */
	if (!has || ((f->snapshot || f->connectivity_only || type == SKG_TREE) && skg_fsck_routed(f, id)) ||
	    skg_fsck_conn_hash_mismatch(f, id, type, false)) {
		if (skg_fsck_falls_back(f, id, false, &type)) {
			goto valid; /* its first copy does not read: git reads the next */
		}
		f->snap_known = f->snapshot ? snapshot_known(f, id) : SKG_NONE;
		parse_lookup_lines(f, id);
		/* 2.55 reads the type, then the object; only the object when a link of a ref before put
		 * it in memory with a type */
		int st = skg_fsck_reparse_loose(f, id, f->snap_known != SKG_NONE ? 1 : 2, &type);
		if (st == SKG_REPARSE_DIES || (st < 0 && skg_fsck_ref_dies_bad_packed(f, id))) {
			return false;
		}
		if (st == SKG_REPARSE_OK) {
			goto valid; /* readable as git reads it (a blob's stream), though not by fsck's check
			             */
		}
		if (st < 0) {
			skg_fsck_reparse_packed_lines(f, id); /* a packed commit or tag that does not parse */
		}
		if (f->snapshot) {
			skg_graph_snapshot_promisor(f->graph); /* snapshot_ref's is_promisor_object */
		}
		if (skg_graph_is_promisor(f->graph, id)) {
			f->default_refs++; /* a valid ref to git, which goes on to the next */
			return true;
		}
		skg_to_hex_len(id, f->rawsz, h);
		skg_fsck_err_line(f, &reach, "error: %s: invalid sha1 pointer %s", refname, h);
		skg_fsck_add_errors(f, SKG_CHECK_ERROR_REACHABLE);
		return true;
	}
valid:
	if (f->snapshot) {
		if (type == SKG_COMMIT) {
			skg_fsck_graph_lines(f); /* its parse loads the commit-graph */
		}
		snapshot_read(f, id); /* parsed: its links are in memory for the refs after it */
	}
	/* git's is_branch(): HEAD or a branch */
	if (type != SKG_COMMIT && type != SKG_NONE && /* unknown: in a pack whose check stopped */
	    (strcmp(refname, "HEAD") == 0 || strncmp(refname, "refs/heads/", 11) == 0)) {
		struct skg_fsck_meta meta = {SKG_R_FSCK, NULL, type, id, SKG_CHECK_ERROR_REFS};
		skg_fsck_err_line(f, &meta, "error: %s: not a commit", refname);
		skg_fsck_add_errors(f, SKG_CHECK_ERROR_REFS);
	}
	f->default_refs++;
	if (skg_graph_root_ref(f->graph, id, type, refname) != 0) { /* git's parse_object of it */
		skg_fsck_nomem(f);
	}
	return true;
}

static int on_ref(void *ctx, const char *refname, const uint8_t *id, unsigned flags)
{
	(void)flags;
	return handle_ref(ctx, refname, id) && !skg_fsck_stopped(ctx) ? 0 : 1;
}

struct reflog_ctx {
	struct skg_fsck_run *f;
	const char *refname;
};

/* git's fsck_handle_reflog_oid: the entry's new side is named "REFNAME@{TIMESTAMP}" (not with
 * timestamp 0, which the old side is given) */
static void reflog_id(struct skg_fsck_run *f, const char *refname, const uint8_t *id, uint64_t timestamp)
{
	char h[SKG_MAX_HEXSZ + 1];
	if (skg_is_null_id_len(id, f->rawsz)) {
		return;
	}
	/* lookup_object and HAS_OBJ (the check of any copy gives it): also an object git lists and
	 * cannot read (--connectivity-only) */
	if (skg_graph_checked(f->graph, id) || skg_graph_listed(f->graph, id)) {
		if (timestamp != 0) {
			root_f(f, id, 0, "%s@{%" PRIu64 "}", refname, timestamp);
		} else {
			root(f, id, 0, NULL);
		}
	} else if (skg_graph_root_lookup(f->graph, id) != 0) { /* git's lookup_object of it */
		skg_fsck_nomem(f);
	} else if (!skg_graph_is_promisor(f->graph, id)) {
		struct skg_fsck_meta meta = {SKG_R_FSCK, NULL, SKG_NONE, id, SKG_CHECK_ERROR_REACHABLE};
		skg_to_hex_len(id, f->rawsz, h);
		skg_fsck_err_line(f, &meta, "error: %s: invalid reflog entry %s", refname, h);
		skg_fsck_add_errors(f, SKG_CHECK_ERROR_REACHABLE);
	}
}

static int on_reflog_entry(void *ctx, const struct skg_reflog_entry *e)
{
	struct reflog_ctx *rc = ctx;
	reflog_id(rc->f, rc->refname, e->old_id, 0);
	reflog_id(rc->f, rc->refname, e->new_id, e->timestamp);
	return 0;
}

static int on_reflog(void *ctx, const char *refname, const char *path)
{
	struct skg_fsck_run *f = ctx;
	struct reflog_ctx rc = {f, refname};
	struct skg_error err;
	if (skg_reflog_entries(f->refs, refname, path, on_reflog_entry, &rc, &f->rep, &err) < 0) {
		skg_fsck_reader_error(f, &err);
		return 1; /* reported: stops the walk */
	}
	return skg_fsck_stopped(f) ? 1 : 0;
}

/*
 * git 2.55's reftable store (refs/reftable-backend.c backend_for_worktree) opens a linked
 * worktree's stack at the first read of one of its refs through the store, and when the stack does
 * not open it keeps that error in the store (store->err), which every later read returns: fsck's
 * snapshot of the refs resolves each worktree's HEAD in turn through the main store, so that
 * worktree's HEAD and those of the worktrees after it are not read, and no reflog entry is (fsck
 * reads every worktree's entries through the main store after the snapshot). Its refs verify says
 * "reftable stack for worktree 'ID' is broken" (refs_verify.c). f->wt_broken: 1 + the place of
 * the first such worktree in git's order (the main worktree is place 0), found once; STORE_BROKEN
 * when it is the current worktree, run in: git's store then fails from its set-up (reftable_be_init)
 * and reads no ref, HEAD or reflog at all. A main stack that does not open stops the run, as before.
 */
#define STORE_BROKEN 1
struct broken_ctx {
	struct skg_fsck_run *f;
	size_t place;
	bool nomem;
};

static int on_broken_worktree(void *ctx, const struct skg_worktree *wt)
{
	struct broken_ctx *c = ctx;
	size_t place = c->place++;
	if (wt->id == NULL) {
		return 0;
	}
	int opens = skg_reftable_opens(wt->git_dir, c->f->rawsz);
	c->nomem = opens < 0;
	if (opens == 0) {
		/* the current worktree's stack broken is the store's from the start, wherever it
		 * comes; else the first one in git's order counts */
		if (wt->is_current) {
			c->f->wt_broken = STORE_BROKEN;
		} else if (c->f->wt_broken == 0) {
			c->f->wt_broken = (long)place + 1;
		}
	}
	/* on to the end: the current worktree may come after a broken one */
	return c->nomem || c->f->wt_broken == STORE_BROKEN ? 1 : 0;
}

/* f->wt_broken found (0 or more), or -1 when out of memory. */
static int broken_worktree(struct skg_fsck_run *f)
{
	if (f->wt_broken >= 0) {
		return 0;
	}
	f->wt_broken = 0;
	if (!f->repo->reftable || f->git_version < SKG_GIT_2_55) {
		return 0;
	}
	struct broken_ctx c = {f, 0, false};
	struct skg_error err;
	const struct skg_sink quiet = {NULL, NULL};
	(void)skg_for_each_worktree(f->repo, on_broken_worktree, &c, &quiet, &err);
	if (c.nomem) {
		skg_fsck_nomem(f);
		return -1;
	}
	return 0;
}

/* Whether git reads the HEAD of the worktree at `place` (broken_worktree). */
static bool head_read(const struct skg_fsck_run *f, size_t place)
{
	return f->wt_broken <= 0 || place + 1 < (size_t)f->wt_broken;
}

static int on_worktree(void *ctx, const struct skg_worktree *wt)
{
	struct skg_fsck_run *f = ctx;
	struct skg_head head = {0};
	struct skg_error err;
	int ret = 0;
	if (!head_read(f, f->wt_place++)) {
		return 0; /* nor its reflogs (none is read) */
	}
	if (skg_check_head(f->refs, wt->head_ref, &head, &f->rep, &err) < 0) {
		skg_fsck_reader_error(f, &err);
		ret = 1; /* reported: stops the walk */
		goto out;
	}
	if (!f->tips_done && head.is_root && !handle_ref(f, wt->head_ref, head.id)) {
		ret = 1;
		goto out;
	}
	if (f->snapshot) {
		goto out; /* the HEADs of the snapshot only */
	}
	int r = f->include_reflogs && f->wt_broken <= 0
	            ? skg_for_each_reflog(f->refs, wt, on_reflog, f, &f->rep, &err)
	            : 0;
	if (r < 0) {
		skg_fsck_reader_error(f, &err);
	}
	ret = r != 0 ? 1 : 0;
out:
	skg_buf_release(&head.target);
	return ret;
}

/* The index (git's keep_cache_objects part). */
static void sparse_flush(struct skg_fsck_run *f);

/* e appended to the list *v of *n entries (room for *cap), its path the list's; false when out of
 * memory (e's path freed; a NULL path: its copy failed). */
static bool sparse_push(struct skg_fsck_sparse_entry **v, size_t *n, size_t *cap,
                        struct skg_fsck_sparse_entry e)
{
	if (e.path == NULL) {
		return false; /* its copy failed */
	}
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 64;
		struct skg_fsck_sparse_entry *w = realloc(*v, c * sizeof(*w));
		if (w == NULL) {
			free(e.path);
			return false;
		}
		*v = w;
		*cap = c;
	}
	(*v)[(*n)++] = e;
	return true;
}

static int on_index_entry(void *ctx, const struct skg_index_entry *e)
{
	struct skg_fsck_run *f = ctx;
	unsigned type = SKG_NONE;
	if (f->index_sparse) {
		/* held: git expands the whole index before it looks at an entry */
		struct skg_fsck_sparse_entry t = {
		    strdup(e->path), e->mode, e->flags, {0}, e->sparse_directory};
		memcpy(t.id, e->id, sizeof(t.id));
		if (!sparse_push(&f->sparse, &f->n_sparse, &f->cap_sparse, t)) {
			skg_fsck_nomem(f);
			return -1;
		}
		return 0;
	}
	if (e->mode == 0160000) {
		return 0;
	}
	if (!f->connectivity_only && skg_graph_known(f->graph, e->id, &type) && type != SKG_NONE &&
	    type != SKG_BLOB) {
		/* git's lookup_blob of an object it has as another type fails, and git goes on (with
		 * --connectivity-only git has parsed only what its refs name: the walk's
		 * skg_graph_report.failed_root) */
		skg_fsck_lookup_fails(f, e->id, type, SKG_BLOB);
		return 0;
	}
	/* git 2.39: ":PATH"; 2.40+ "INDEX:PATH" for the index of another worktree */
	root_f(f, e->id, SKG_BLOB, "%s:%s", f->index_current ? "" : f->index_display, e->path);
	return 0;
}

/* git 2.41+ names the index file in its lines (592ec63b38, "fsck: mention file path for index
 * errors"): " of .git/index", the path as git spells it; 2.39 nothing. */
/* fsck_cache_tree's and fsck_resolve_undo's line about object `id`, ERROR_REFS */
static void index_line(struct skg_fsck_run *f, const uint8_t *id, const char *what)
{
	struct skg_fsck_meta meta = {SKG_R_FSCK, NULL, SKG_NONE, id, SKG_CHECK_ERROR_REFS};
	char hex[SKG_MAX_HEXSZ + 1];
	skg_to_hex_len(id, f->rawsz, hex);
	if (f->git_version >= SKG_GIT_2_55) {
		skg_fsck_err_line(f, &meta, "error: %s: invalid sha1 pointer in %s of %s", hex, what,
		                  f->index_display);
	} else {
		skg_fsck_err_line(f, &meta, "error: %s: invalid sha1 pointer in %s", hex, what);
	}
	skg_fsck_add_errors(f, SKG_CHECK_ERROR_REFS);
}

enum index_parsed { INDEX_PARSED, INDEX_INVALID, INDEX_DIES };

/*
 * git's parse_object() of an object an index names (fsck_cache_tree, fsck_resolve_undo): one the
 * check has (*type), one whose type git settled otherwise in the object check (its lines again:
 * no object), else its loose file read again (skg_fsck_reparse_loose) or the packed object git
 * dies on.
 */
static enum index_parsed index_parse_object(struct skg_fsck_run *f, const uint8_t *id, unsigned *type)
{
	const struct skg_typeorder_fate *fate = skg_fsck_type_fate(f, id);
	if (fate != NULL) {
		skg_fsck_fate_lines(f, NULL, fate); /* git's parse_object fails as in the object check */
		return INDEX_INVALID;
	}
	if (skg_fsck_retyped(f, id)) {
		/* its read finds the copy of another type, and hashes that (parse_object) */
		char h[SKG_MAX_HEXSZ + 1];
		skg_to_hex_len(id, f->rawsz, h);
		skg_fsck_err_line(f, NULL, "error: hash mismatch %s", h);
		return INDEX_INVALID;
	}
	if (skg_graph_has(f->graph, id, type) && !(*type == SKG_TREE && skg_fsck_routed(f, id))) {
		/* a tree is read again (its buffer was freed after the check); --connectivity-only
		 * hashes what it reads, as for a ref; where the copy git finds first does not read, its
		 * lines (once) before the next copy */
		unsigned known;
		if (*type == SKG_TREE) {
			(void)skg_fsck_falls_back(f, id, false, &known);
		}
		return skg_fsck_conn_hash_mismatch(f, id, *type, false) ? INDEX_INVALID : INDEX_PARSED;
	}
	if (skg_fsck_falls_back(f, id, false, type)) {
		return INDEX_PARSED; /* its first copy does not read: git reads the next */
	}
	if (f->connectivity_only) {
		/* git parsed nothing but the refs' objects (2.55's snapshot: their links are what it
		 * has in memory with a type; not followed for 2.39.5) */
		skg_fsck_parse_lookup_lines(
		    f, id, f->git_version >= SKG_GIT_2_55 ? snapshot_known(f, id) : SKG_NONE);
	} else {
		parse_lookup_lines(f, id);
	}
	int st = skg_fsck_reparse_loose(f, id, 1, type);
	if (st == SKG_REPARSE_DIES || (st < 0 && skg_fsck_dies_bad_packed(f, id))) {
		return INDEX_DIES;
	}
	return st == SKG_REPARSE_OK ? INDEX_PARSED : INDEX_INVALID;
}

static int on_cache_tree(void *ctx, const char *path, int entry_count, int subtrees, const uint8_t *id,
                         bool *descend)
{
	struct skg_fsck_run *f = ctx;
	unsigned type;
	char h[SKG_MAX_HEXSZ + 1];
	(void)path;
	(void)subtrees;
	if (entry_count < 0 || id == NULL) {
		return 0;
	}
	skg_to_hex_len(id, f->rawsz, h);
	enum index_parsed p = index_parse_object(f, id, &type); /* fsck_cache_tree's parse_object */
	if (p == INDEX_DIES) {
		return 1;
	}
	if (p == INDEX_INVALID) {
		index_line(f, id, "cache-tree");
		*descend = false;
		return 0;
	}
	if (skg_graph_root_ref(f->graph, id, type, ":") != 0) { /* fsck_cache_tree's parse_object */
		skg_fsck_nomem(f);
	}
	if (type != SKG_TREE && type != SKG_NONE) { /* unknown: in a pack whose check stopped */
		struct skg_fsck_meta meta = {SKG_R_FSCK, NULL, type, id, SKG_CHECK_ERROR_OBJECT};
		skg_fsck_err_line(f, &meta, "error in %s %s: non-tree in cache-tree", skg_fsck_tname(type),
		                  h);
		skg_fsck_add_errors(f, SKG_CHECK_ERROR_OBJECT);
	}
	return 0;
}

static int on_resolve_undo(void *ctx, const char *path, const uint32_t mode[3], const uint8_t *const id[3])
{
	struct skg_fsck_run *f = ctx;
	for (int i = 0; i < 3; i++) {
		if (mode[i] == 0 || (mode[i] & 0170000) != 0100000 || id[i] == NULL) {
			continue;
		}
		unsigned type;
		enum index_parsed p = index_parse_object(f, id[i], &type); /* fsck_resolve_undo's */
		if (p == INDEX_DIES) {
			return 1;
		}
		if (p == INDEX_INVALID) {
			index_line(f, id[i], "resolve-undo");
			continue;
		}
		root_f(f, id[i], SKG_BLOB, ":(%d):%s", i, path);
	}
	return 0;
}

static int on_index_begin(void *ctx, const struct skg_index_info *info)
{
	struct skg_fsck_run *f = ctx;
	f->index_sparse = info->sparse;
	f->n_sparse = 0;
	return 0;
}

static int on_cache_tree_sparse(void *ctx, const char *path, int entry_count, int subtrees, const uint8_t *id,
                                bool *descend)
{
	sparse_flush(ctx);
	if (((struct skg_fsck_run *)ctx)->died) {
		return 1; /* git died expanding the index */
	}
	return on_cache_tree(ctx, path, entry_count, subtrees, id, descend);
}

static int on_resolve_undo_sparse(void *ctx, const char *path, const uint32_t mode[3],
                                  const uint8_t *const id[3])
{
	sparse_flush(ctx);
	if (((struct skg_fsck_run *)ctx)->died) {
		return 1;
	}
	return on_resolve_undo(ctx, path, mode, id);
}

/* git's odb_has_object() for an index entry's object */
static bool has_object(struct skg_fsck_run *f, const uint8_t *id)
{
	return skg_graph_has(f->graph, id, NULL) || skg_fsck_loose_file_exists(f, id);
}

/*
 * cache-tree.c update_one's check of every entry (cache_tree_update, which git's expand_index runs
 * before and after the expansion): the first entry, in index order, whose object is not there,
 * other than a gitlink or an intent-to-add entry: "invalid object MODE ID for 'PATH'" (a sparse
 * directory's path without its slash), and git stops there.
 */
static void sparse_check(struct skg_fsck_run *f, const struct skg_fsck_sparse_entry *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (v[i].mode == 0160000 || (v[i].flags & SKG_CE_INTENT_TO_ADD) || has_object(f, v[i].id)) {
			continue;
		}
		char h[SKG_MAX_HEXSZ + 1];
		skg_to_hex_len(v[i].id, f->rawsz, h);
		size_t len = strlen(v[i].path);
		len -= len > 0 && v[i].path[len - 1] == '/';
		skg_fsck_err_line(f, NULL, "error: invalid object %06o %s for '%.*s'", (unsigned)v[i].mode, h,
		                  (int)len, v[i].path);
		return;
	}
}

/* The files of tree `id` under `prefix` (read_tree_at, add_path_to_index), appended to *out;
 * git's "Could not read ID" for a tree it cannot read; where git dies reading it (a corrupt loose
 * tree), its lines and f->died. false when out of memory or git died. */
static bool sparse_expand(struct skg_fsck_run *f, const uint8_t *id, const char *prefix,
                          struct skg_fsck_sparse_entry **out, size_t *n, size_t *cap, unsigned depth)
{
	uint8_t *data = NULL;
	size_t len = 0;
	uint32_t seq;
	uint64_t where;
	unsigned type;
	if (!skg_graph_has(f->graph, id, &type)) {
		/* not a tree the check read: git's parse_tree reads it from its loose file, and dies on
		 * a corrupt one */
		int st = skg_fsck_reparse_loose(f, id, 1, &type);
		if (st == SKG_REPARSE_DIES || (st < 0 && skg_fsck_dies_bad_packed(f, id))) {
			return false;
		}
	}
	int r =
	    depth < 4096 ? skg_fsck_read_object(f, id, SKG_TREE, UINT64_MAX, &data, &len, &seq, &where) : -1;
	if (r == -2) {
		return false;
	}
	if (r != 0) {
		char h[SKG_MAX_HEXSZ + 1];
		skg_to_hex_len(id, f->rawsz, h);
		skg_fsck_err_line(f, NULL, "error: Could not read %s", h);
		free(data);
		return true;
	}
	bool ok = true;
	struct skg_tree_iter it;
	skg_tree_iter_init(&it, data, len, f->rawsz);
	for (; ok && it.size > 0; skg_tree_iter_advance(&it)) {
		uint32_t mode = skg_tree_canon_mode(it.entry.mode);
		struct skg_buf path = {0};
		skg_buf_addf(&path, "%s%.*s", prefix, (int)it.entry.name_len, it.entry.name);
		if (path.failed) {
			ok = false;
		} else if (mode == 040000) {
			skg_buf_adds(&path, "/");
			ok = !path.failed && sparse_expand(f, it.entry.id, path.p, out, n, cap, depth + 1);
		} else {
			struct skg_fsck_sparse_entry t = {path.p, mode, 0, {0}, false};
			memcpy(t.id, it.entry.id, f->rawsz);
			path.p = NULL; /* the list's now */
			ok = sparse_push(out, n, cap, t);
		}
		skg_buf_release(&path);
	}
	free(data);
	return ok;
}

/*
 * The held entries of a sparse index, as git's fsck_index takes them (sparse-index.c
 * ensure_full_index): the check of the sparse index, git 2.46+'s advice (once a process, unless
 * advice.sparseIndexExpanded is false), each sparse directory replaced by the files of its tree,
 * the check of the full index, then each entry as from a full index. Not followed: git then writes
 * the trees of the cache tree it computes again and checks that one (fsck writes nothing).
 */
static void sparse_flush(struct skg_fsck_run *f)
{
	if (!f->index_sparse) {
		return;
	}
	f->index_sparse = false;
	struct skg_fsck_sparse_entry *full = NULL;
	size_t n = 0, cap = 0;
	bool ok = true;
	sparse_check(f, f->sparse, f->n_sparse);
	if (f->git_version >= SKG_GIT_2_55 && !f->sparse_hinted && !f->no_sparse_hint) {
		static const char *const hint[] = {
		    "The sparse index is expanding to a full index, a slow operation.",
		    "Your working directory likely has contents that are outside of",
		    "your sparse-checkout patterns. Use 'git sparse-checkout list' to",
		    "see your sparse-checkout definition and compare it to your working",
		    "directory contents. Cleaning up any merge conflicts or staged",
		    "changes before running 'git sparse-checkout clean' or 'git",
		    "sparse-checkout reapply' may assist in this cleanup.",
		    "Disable this message with \"git config set advice.sparseIndexExpanded false\""};
		for (size_t i = 0; i < sizeof(hint) / sizeof(hint[0]); i++) {
			skg_fsck_err_line(f, NULL, "hint: %s", hint[i]);
		}
		f->sparse_hinted = true;
	}
	for (size_t i = 0; ok && i < f->n_sparse; i++) {
		struct skg_fsck_sparse_entry *e = &f->sparse[i];
		if (e->sparse_directory) {
			ok = sparse_expand(f, e->id, e->path, &full, &n, &cap, 0);
			continue;
		}
		ok = sparse_push(&full, &n, &cap, *e);
		e->path = NULL; /* full's now (or freed) */
	}
	const bool died = f->died; /* git died expanding it: nothing more from this index */
	if (ok && !died) {
		sparse_check(f, full, n);
	}
	for (size_t i = 0; ok && !died && i < n; i++) {
		struct skg_index_entry e = {
		    full[i].path, strlen(full[i].path), full[i].mode, {0}, 0, full[i].flags, 0, false};
		memcpy(e.id, full[i].id, sizeof(e.id));
		(void)on_index_entry(f, &e);
	}
	if (!ok && !died) {
		skg_fsck_nomem(f);
	}
	for (size_t i = 0; i < n; i++) {
		free(full[i].path);
	}
	free(full);
	for (size_t i = 0; i < f->n_sparse; i++) {
		free(f->sparse[i].path);
	}
	f->n_sparse = 0;
}

/* One index file: its entries, cache tree and resolve-undo records. 0, or -1 when git dies. */
static int check_index_file(struct skg_fsck_run *f, const char *path, const char *display)
{
	struct skg_error err;
	struct skg_index_callbacks cb = {on_index_entry, on_cache_tree_sparse, on_resolve_undo_sparse, f,
	                                 on_index_begin};
	struct skg_index_info info;
	f->index_display = display;
	f->index_sparse = false;
	int ret = skg_index_parse_file(path, display, f->rawsz, f->git_version, &cb, &info, &f->rep, &err);
	if (ret == 0) {
		sparse_flush(f);
	}
	f->index_sparse = false;
	for (size_t i = 0; i < f->n_sparse; i++) { /* held when the parse stopped */
		free(f->sparse[i].path);
	}
	f->n_sparse = 0;
	if (ret < 0 && err.code == SKG_E_NOMEM) {
		skg_fsck_nomem(f);
		return -1;
	}
	if (ret < 0) {
		skg_fsck_reader_error(f, &err);
		return -1;
	}
	return 0;
}

/*
 * Git 2.40+ (8d3e7eac52, "fsck: check index files in all worktrees") reads the index of every
 * worktree, at worktree_git_path(wt, "index"): <common>/index for the main worktree,
 * <common>/worktrees/<id>/index for the others, the common dir as git spells it, and
 * GIT_INDEX_FILE not consulted.
 */
static int on_worktree_index(void *ctx, const struct skg_worktree *wt)
{
	struct skg_fsck_run *f = ctx;
	struct skg_buf path = {0}, display = {0};
	skg_buf_addf(&path, "%s/index", wt->git_dir);
	/* git's strbuf_worktree_gitdir: the common directory as given, or "%s/worktrees/%s" of it;
	 * then a '/' unless it ends in one ("r/.git/" gives "r/.git/index") */
	if (wt->id == NULL) {
		skg_buf_adds(&display, f->repo->common_dir_display);
	} else {
		skg_buf_addf(&display, "%s/worktrees/%s", f->repo->common_dir_display, wt->id);
	}
	if (display.len > 0 && display.p[display.len - 1] != '/') {
		skg_buf_addc(&display, '/');
	}
	skg_buf_adds(&display, "index");
	int ret;
	if (path.failed || display.failed) {
		skg_fsck_nomem(f);
		ret = -1;
	} else {
		/* git's strbuf_cleanup_path: a leading "./" (and the slashes after it) dropped, so
		 * that from inside .git the file is "index" */
		const char *shown = display.p;
		if (strncmp(shown, "./", 2) == 0) {
			shown += 2;
			while (*shown == '/') {
				shown++;
			}
		}
		f->index_current = wt->is_current;
		ret = check_index_file(f, path.p, shown);
		if (ret == 0 && (f->died || skg_fsck_stopped(f))) {
			ret = -1;
		}
	}
	f->index_display = NULL;
	skg_buf_release(&path);
	skg_buf_release(&display);
	return ret;
}

static int check_index(struct skg_fsck_run *f)
{
	if (f->git_version < SKG_GIT_2_55) {
		/* git 2.39: the_index, GIT_INDEX_FILE or <git dir>/index */
		f->index_current = true;
		int r = check_index_file(f, f->repo->index_file, f->repo->index_file_display);
		f->index_display = NULL;
		return r;
	}
	struct skg_error err = {0};
	int r = skg_for_each_worktree(f->repo, on_worktree_index, f, &f->rep, &err);
	if (r < 0 && !f->died && !skg_fsck_stopped(f) && atomic_load(&f->failed) == 0) {
		skg_fsck_reader_error(f, &err);
	}
	return r < 0 ? -1 : 0;
}

static int roots(struct skg_fsck_run *f)
{
	struct skg_error err;
	if (broken_worktree(f) != 0) {
		return -1;
	}
	/* refs, then each worktree's HEAD and reflogs */
	int r = f->tips_done || f->wt_broken == STORE_BROKEN ? 0 : skg_for_each_ref(f->refs, on_ref, f, &err);
	if (r < 0) {
		skg_fsck_reader_error(f, &err);
		return -1;
	}
	f->wt_place = 0;
	if (r == 0 && !f->died && !skg_fsck_stopped(f) &&
	    skg_for_each_worktree(f->repo, on_worktree, f, &f->rep, &err) < 0) {
		skg_fsck_reader_error(f, &err);
		return -1;
	}
	if (r != 0 || f->died || skg_fsck_stopped(f)) {
		return -1; /* git died reading a ref's object (its line is out) */
	}
	if (f->snapshot) {
		return 0;
	}
	if (f->default_refs == 0) {
		skg_fsck_err_line(f, NULL, "notice: No default references");
		f->show_unreachable = false;
	}
	if (f->keep_cache && (check_index(f) < 0 || f->died || skg_fsck_stopped(f))) {
		return -1; /* the index cannot be read, or git died reading what it names */
	}
	return 0;
}

int skg_fsck_ref_tips(struct skg_fsck_run *f)
{
	f->snapshot = true;
	int r = skg_fsck_roots(f);
	f->snapshot = false;
	f->tips_done = true;
	return r;
}

/* The ref store as the Git followed reads it (skg_refdb's version switches). */
static void fsck_refdb_init(struct skg_fsck_run *f, struct skg_refdb *refs)
{
	skg_refdb_init(refs, f->repo);
	refs->sorted_reflogs = f->git_version >= SKG_GIT_2_55; /* git 2.45+ */
	refs->files_current = f->git_version >= SKG_GIT_2_55;
}

int skg_fsck_roots(struct skg_fsck_run *f)
{
	struct skg_refdb refs;
	fsck_refdb_init(f, &refs);
	f->refs = &refs;
	int r = roots(f);
	f->refs = NULL;
	skg_refdb_release(&refs);
	return r;
}

/* ---- git 2.55's snapshot order (the type order's first events) --------------------------------- */

/* IDs of tips are zero-padded to SKG_MAX_RAWSZ (add_tip), and so is a key (skg_fsck_tip_place). */
static int cmp_tip_id(const void *key, const void *elem)
{
	return memcmp(key, ((const struct skg_fsck_tip *)elem)->id, SKG_MAX_RAWSZ);
}

static int cmp_tip(const void *a, const void *b)
{
	const struct skg_fsck_tip *x = a, *y = b;
	int c = memcmp(x->id, y->id, SKG_MAX_RAWSZ);
	return c != 0 ? c : x->place < y->place ? -1 : x->place > y->place;
}

static int add_tip(struct skg_fsck_run *f, const uint8_t *id)
{
	if (skg_is_null_id_len(id, f->rawsz)) {
		return 0;
	}
	if (f->n_tips == f->cap_tips) {
		size_t cap = f->cap_tips ? 2 * f->cap_tips : 16;
		struct skg_fsck_tip *v = realloc(f->tips, cap * sizeof(*v));
		if (v == NULL) {
			return -1;
		}
		f->tips = v;
		f->cap_tips = cap;
	}
	struct skg_fsck_tip *t = &f->tips[f->n_tips];
	memset(t->id, 0, sizeof(t->id));
	memcpy(t->id, id, f->rawsz);
	t->place = (uint32_t)++f->n_tips;
	return 0;
}

struct tip_ctx {
	struct skg_fsck_run *f;
	struct skg_refdb *refs;
	bool nomem;
};

static int on_tip_ref(void *ctx, const char *refname, const uint8_t *id, unsigned flags)
{
	struct tip_ctx *c = ctx;
	(void)refname;
	(void)flags; /* a broken one has the null ID: git parses nothing for it */
	c->nomem = add_tip(c->f, id) != 0;
	return c->nomem ? 1 : 0;
}

static int on_tip_worktree(void *ctx, const struct skg_worktree *wt)
{
	struct tip_ctx *c = ctx;
	uint8_t id[SKG_MAX_RAWSZ];
	unsigned flags = 0;
	struct skg_error err;
	if (!head_read(c->f, c->f->wt_place++)) {
		return 0;
	}
	/* refs_resolve_ref_unsafe(HEAD, 0): an unborn branch gives the null ID, parsed by no one */
	if (skg_resolve_ref(c->refs, wt->head_ref, 0, id, NULL, &flags, &err) == 1) {
		c->nomem = add_tip(c->f, id) != 0;
	}
	return c->nomem ? 1 : 0;
}

int skg_fsck_tip_order(struct skg_fsck_run *f)
{
	struct skg_refdb refs;
	struct skg_error err;
	const struct skg_sink quiet = {NULL, NULL};
	if (broken_worktree(f) != 0) {
		return -1;
	}
	fsck_refdb_init(f, &refs);
	struct tip_ctx c = {f, &refs, false};
	f->n_tips = 0;
	f->wt_place = 0;
	/* what cannot be read here is reported when the refs are read for their lines */
	if ((f->wt_broken == STORE_BROKEN || skg_for_each_ref(&refs, on_tip_ref, &c, &err) >= 0) &&
	    !c.nomem) {
		(void)skg_for_each_worktree(f->repo, on_tip_worktree, &c, &quiet, &err);
	}
	skg_refdb_release(&refs);
	if (c.nomem) {
		skg_fsck_nomem(f);
		return -1;
	}
	if (f->n_tips == 0) {
		return 0;
	}
	/* by ID, each with its first place */
	qsort(f->tips, f->n_tips, sizeof(*f->tips), cmp_tip);
	size_t n = 1;
	for (size_t i = 1; i < f->n_tips; i++) {
		if (memcmp(f->tips[i].id, f->tips[n - 1].id, f->rawsz) != 0) {
			f->tips[n++] = f->tips[i];
		}
	}
	f->n_tips = n;
	return 0;
}

uint32_t skg_fsck_tip_place(const struct skg_fsck_run *f, const uint8_t *id)
{
	if (f->n_tips == 0) {
		return 0;
	}
	uint8_t key[SKG_MAX_RAWSZ] = {0};
	memcpy(key, id, f->rawsz);
	const struct skg_fsck_tip *t = bsearch(key, f->tips, f->n_tips, sizeof(*f->tips), cmp_tip_id);
	return t != NULL ? t->place : 0;
}
