/*
 * fsck_walk.c - the connectivity walk of a repository check (fsck_run.h): the object graph's walk
 * (graph.h) from the roots, with git 2.39.5's lines (builtin/fsck.c: mark_object's "broken link
 * from", check_unreachable_object's "missing", "dangling", "unreachable"; the lookup lines of packs
 * git cannot open), the objects in them described with their names for --name-objects (the trees
 * on a name's way read again for their entry names), the links of loose trees read again (they
 * are not kept in the graph), and --lost-found (fsck_lost.c).
 */
#include <stdlib.h>
#include <string.h>

#include "fsck_run.h"
#include "fsck_object.h"
#include "trailer.h"

/* skg_graph_entry_fn: entry k of a tree (gitlinks not counted), read again */
struct entry_find {
	uint32_t k, at;
	struct skg_buf *name;
	bool *is_dir;
	bool found;
};

static void entry_at(void *ctx, uint32_t mode, const char *name, size_t name_len, const uint8_t *id)
{
	struct entry_find *e = ctx;
	(void)id;
	if (mode != 0160000 && e->at++ == e->k) { /* the walk's links: tree_link of fsck_check.c */
		skg_buf_add(e->name, name, name_len);
		*e->is_dir = mode == 040000;
		e->found = true;
	}
}

static int tree_entry_name(void *ctx, const uint8_t *tree, uint32_t k, struct skg_buf *name, bool *is_dir)
{
	struct skg_fsck_run *f = ctx;
	uint8_t *data = NULL;
	size_t len = 0;
	uint32_t seq;
	uint64_t where;
	if (skg_fsck_read_object(f, tree, SKG_TREE, UINT64_MAX, &data, &len, &seq, &where) != 0) {
		return -1;
	}
	struct entry_find e = {k, 0, name, is_dir, false};
	(void)skg_tree_links(data, len, f->rawsz, entry_at, &e);
	free(data);
	return e.found ? 0 : -1;
}

/* git's describe_object: "ID", or with --name-objects "ID (NAME)" when the object has a name now */
static const char *describe(struct skg_fsck_run *f, const uint8_t *id, struct skg_buf *b)
{
	char h[SKG_MAX_HEXSZ + 1];
	skg_to_hex_len(id, f->rawsz, h);
	skg_buf_adds(b, h);
	if (f->name_objects) {
		struct skg_buf name = {0};
		int r = skg_graph_name(f->graph, id, tree_entry_name, f, &name);
		if (r > 0) {
			skg_buf_addf(b, " (%s)", skg_buf_str(&name));
		}
		if (r < 0 || name.failed) {
			skg_fsck_nomem(f);
		}
		skg_buf_release(&name);
	}
	if (b->failed) {
		skg_fsck_nomem(f);
	}
	return skg_buf_str(b);
}

static void on_broken(void *ctx, unsigned ft, const uint8_t *from, unsigned tt, const uint8_t *to)
{
	struct skg_fsck_run *f = ctx;
	if (f->died) {
		return; /* git died in the walk */
	}
	/* git's mark_object prints the link broken only when no object file of that name is there
	 * (a corrupt one is "missing" at the end, as all objects it could not read) */
	bool loose = skg_fsck_loose_file_exists(f, to);
	skg_fsck_lookup_lines(f, to, loose ? 1 : 2); /* has_object, not quick */
	if (loose) {
		return;
	}
	struct skg_buf a = {0}, b = {0};
	struct skg_fsck_meta meta = {SKG_R_FSCK, NULL, tt, to, SKG_CHECK_ERROR_REACHABLE};
	skg_fsck_out_line(f, &meta, "broken link from %7s %s\n              to %7s %s", skg_fsck_tname(ft),
	                  describe(f, from, &a), skg_fsck_tname(tt), describe(f, to, &b));
	skg_buf_release(&a);
	skg_buf_release(&b);
	f->errors |= SKG_CHECK_ERROR_REACHABLE;
}

static void on_wrong_type(void *ctx, unsigned ft, const uint8_t *from)
{
	struct skg_fsck_run *f = ctx;
	if (f->died) {
		return; /* git died in the walk */
	}
	struct skg_buf a = {0};
	struct skg_fsck_meta meta = {SKG_R_FSCK, NULL, ft, from, SKG_CHECK_ERROR_OBJECT};
	skg_fsck_err_line(f, &meta, "error in %s %s: wrong object type in link", skg_fsck_tname(ft),
	                  describe(f, from, &a));
	skg_buf_release(&a);
	f->errors |= SKG_CHECK_ERROR_OBJECT;
}

/* git's traversal of a tree whose entry's lookup fails: mark_object of no object */
static void on_failed_link(void *ctx, unsigned ft, const uint8_t *from, unsigned tau, unsigned lt,
                           const uint8_t *to)
{
	struct skg_fsck_run *f = ctx;
	if (f->died) {
		return; /* git died in the walk */
	}
	struct skg_buf a = {0};
	skg_fsck_lookup_fails(f, to, tau, lt);
	struct skg_fsck_meta meta = {SKG_R_FSCK, NULL, ft, from, SKG_CHECK_ERROR_REACHABLE};
	skg_fsck_out_line(f, &meta, "broken link from %7s %s\nbroken link from %7s unknown",
	                  skg_fsck_tname(ft), describe(f, from, &a), skg_fsck_tname(lt));
	skg_buf_release(&a);
	f->errors |= SKG_CHECK_ERROR_REACHABLE;
}

/* --connectivity-only: git's walk reads an object it has as `as` and finds another type (git
 * 2.55 tree.c parse_tree_gently, commit.c repo_parse_commit_internal, tag.c parse_tag): its line;
 * fsck's exit status does not say it (builtin/fsck.c traverse_reachable's result is dropped). A
 * commit git has in its commit-graph is parsed from there without a read (not modelled: nothing
 * of it is followed). */
static void on_not_a(void *ctx, unsigned type, unsigned as, const uint8_t *id)
{
	struct skg_fsck_run *f = ctx;
	if (f->died || (as == SKG_COMMIT && skg_fsck_graph_has(f, id)) ||
	    skg_fsck_walk_read_dies(f, id, type)) {
		return; /* (git dies where its read fails) */
	}
	char h[SKG_MAX_HEXSZ + 1];
	skg_to_hex_len(id, f->rawsz, h);
	skg_fsck_err_line(f, NULL, "error: Object %s not a %s", h, skg_fsck_tname(as));
}

/* --connectivity-only: the walk's parse of a commit or tag fails at a link's lookup (git's lines
 * for such a parse, typeorder.h); nothing in the exit status, as for on_not_a */
static void on_failed_parse(void *ctx, unsigned ft, const uint8_t *from, uint32_t k, unsigned tau,
                            unsigned lt, const uint8_t *to)
{
	struct skg_fsck_run *f = ctx;
	if (f->died) {
		return;
	}
	struct skg_typeorder_fate fate = {.rawsz = (uint8_t)f->rawsz,
	                                  .kind = ft == SKG_TAG ? SKG_TO_TAG_PTR
	                                          : k == 0      ? SKG_TO_TREE_PTR
	                                                        : SKG_TO_PARENT,
	                                  .type = (uint8_t)ft,
	                                  .tau = (uint8_t)tau,
	                                  .link_type = (uint8_t)lt};
	memcpy(fate.id, from, f->rawsz);
	memcpy(fate.target, to, f->rawsz);
	skg_fsck_fate_lines(f, NULL, &fate);
}

/* --connectivity-only: an index entry's lookup_blob fails (object.c object_as_type's line) */
static void on_failed_root(void *ctx, unsigned tau, unsigned type, const uint8_t *id)
{
	struct skg_fsck_run *f = ctx;
	if (!f->died) {
		skg_fsck_lookup_fails(f, id, tau, type);
	}
}

/* --connectivity-only: fsck_walk's parse_object of an object of no type yet; where the hash does
 * not match, its line and fsck_walk's (git 2.55 fsck.c); nothing in the exit status */
static bool on_parse_typeless(void *ctx, bool quiet, unsigned type, const uint8_t *id)
{
	struct skg_fsck_run *f = ctx;
	if (f->died || type < SKG_COMMIT || type > SKG_TAG ||
	    !skg_fsck_conn_hash_mismatch(f, id, type, quiet)) {
		return true;
	}
	if (!quiet) {
		struct skg_buf a = {0}; /* fsck_describe_object: the name too, with --name-objects */
		skg_fsck_err_line(f, NULL, "error: Unknown object type for %s", describe(f, id, &a));
		skg_buf_release(&a);
	}
	return false;
}

/* The lines of git's load of the commit-graph its walk parses commits from (a chain's warnings),
 * where the walk dies at a commit of it: the end's check_graph, which gives them otherwise, does
 * not come. */
static void graph_load_lines(struct skg_fsck_run *f)
{
	if (f->graph_lines_early) {
		return; /* out already, at git's first parse of a commit (skg_fsck_graph_lines) */
	}
	struct skg_lines *lines = malloc(sizeof(*lines));
	if (lines == NULL || f->cg == NULL) {
		free(lines);
		return;
	}
	(void)skg_trailer_commit_graph(f->odb_dirs[f->cg_dir], (const char *const *)f->odb_dirs,
	                               f->n_odb_dirs, SKG_TRAILER_LOAD, (unsigned)f->rawsz, f->git_version,
	                               lines);
	skg_fsck_lines(f, lines);
	free(lines);
}

static void on_walk_error(void *ctx, unsigned type, const uint8_t *id)
{
	struct skg_fsck_run *f = ctx;
	if (f->died) {
		return;
	}
	for (size_t i = 0; i < f->n_bad_trees; i++) {
		if (memcmp(f->bad_trees[i].id, id, f->rawsz) == 0) {
			if (f->bad_trees[i].fatal) {
				graph_load_lines(f); /* git loaded the graph there first */
			}
			skg_fsck_err_line(f, NULL, "%s%s",
			                  f->bad_trees[i].fatal ? "fatal: " : "error: ", f->bad_trees[i].why);
			/* a commit-graph parse git dies at: nothing of the walk after it */
			f->died = f->died || f->bad_trees[i].fatal;
			return;
		}
	}
	if (skg_fsck_midx_dies(f, id, false)) {
		return; /* its lookup in the multi-pack-index dies */
	}
	unsigned known;
	if (type != SKG_BLOB && skg_fsck_falls_back(f, id, false, &known)) {
		return; /* its first copy does not read: git reads the next (its lines once) */
	}
	if (skg_fsck_routed(f, id) && skg_fsck_dies_bad_copy(f, id)) {
		return; /* its read of the copy the multi-pack-index finds dies */
	}
	if (type != SKG_BLOB && skg_fsck_dies_conn_read(f, id)) {
		return; /* --connectivity-only: the walk's read of a corrupt packed copy dies */
	}
	if (f->git_version < SKG_GIT_2_55 && type != SKG_BLOB && skg_graph_listed(f->graph, id) &&
	    skg_fsck_dies_bad_packed(f, id)) {
		return; /* 2.39.5: the errno a pack that did not open left (no permission): it dies */
	}
	/* else an object of a pack that does not open (skg_graph_add_unread_walked): git's walk
	 * parses a tree, commit or tag there (tree.c, commit.c, tag.c: two looks in the packs, then
	 * "Could not read"); a blob it does not read; one of no type yet (a root: a reflog's entry)
	 * goes through parse_object (its type, then the object: four looks) and fsck_walk's
	 * "Unknown object type" */
	char h[SKG_MAX_HEXSZ + 1];
	skg_to_hex_len(id, f->rawsz, h);
	if (type == SKG_TREE || type == SKG_COMMIT || type == SKG_TAG) {
		skg_fsck_lookup_lines(f, id, 2);
		skg_fsck_err_line(f, NULL, "error: Could not read %s", h);
	} else if (type == SKG_NONE) {
		/* (2.39.5's parse_object of an object in memory reads it without its type first) */
		struct skg_buf a = {0}; /* fsck_describe_object: a reflog entry's name with --name-objects */
		skg_fsck_lookup_lines(f, id, f->git_version >= SKG_GIT_2_55 ? 4 : 2);
		skg_fsck_err_line(f, NULL, "error: Unknown object type for %s", describe(f, id, &a));
		skg_buf_release(&a);
	}
}

/* The walk follows an object through its copy read after one that could not be: git's walk reads a
 * tree again (its buffer was freed after the check), fails at the first copy (its unpack lines,
 * once) and reads the next. */
static void on_reread(void *ctx, unsigned type, const uint8_t *id)
{
	struct skg_fsck_run *f = ctx;
	unsigned known;
	if (!f->died && type == SKG_TREE && !skg_fsck_walk_reread(f, id)) {
		(void)skg_fsck_falls_back(f, id, false, &known);
	}
}

/* --connectivity-only's second listing at an object git lists and cannot read (an idx lists it, its
 * pack does not open): its type read (two looks in the packs), then fsck_walk's parse_object of it
 * (git 2.55: the type, then the object; 2.39.5: the object) and "Unknown object type". One in a
 * pack that opens whose entry does not read (a corrupt unreachable tree of a cruft pack, a new
 * user's trial): git's fsck_walk parses a commit, tree or tag and dies there, as its walk would
 * (skg_fsck_referent_dies); `linked` (an unreachable object links to it): nothing else. */
static void on_referent_error(void *ctx, const uint8_t *id, bool linked)
{
	struct skg_fsck_run *f = ctx;
	if (f->died || skg_fsck_referent_dies(f, id) || linked) {
		return;
	}
	if (skg_fsck_midx_dies(f, id, false)) {
		return;
	}
	char h[SKG_MAX_HEXSZ + 1];
	skg_to_hex_len(id, f->rawsz, h);
	skg_fsck_lookup_lines(f, id, 2 + (f->git_version >= SKG_GIT_2_55 ? 4 : 2));
	skg_fsck_err_line(f, NULL, "error: Unknown object type for %s", h);
}

/* "WHAT TYPE ID" on standard output */
static void obj_line(struct skg_fsck_run *f, const char *what, unsigned type, const uint8_t *id,
                     unsigned bits)
{
	char a[SKG_MAX_HEXSZ + 1];
	struct skg_fsck_meta meta = {SKG_R_FSCK, NULL, type, id, bits};
	skg_to_hex_len(id, f->rawsz, a);
	skg_fsck_out_line(f, &meta, "%s %s %s", what, skg_fsck_tname(type), a);
}

static void on_missing(void *ctx, unsigned type, const uint8_t *id)
{
	struct skg_fsck_run *f = ctx;
	if (f->died) {
		return; /* git died in the walk */
	}
	struct skg_buf a = {0};
	skg_fsck_lookup_lines(f, id, 1); /* git's has_object_pack */
	struct skg_fsck_meta meta = {SKG_R_FSCK, NULL, type, id, SKG_CHECK_ERROR_REACHABLE};
	skg_fsck_out_line(f, &meta, "missing %s %s", skg_fsck_tname(type), describe(f, id, &a));
	skg_buf_release(&a);
	f->errors |= SKG_CHECK_ERROR_REACHABLE;
}

/* --connectivity-only: a ref's commit or tag whose parse failed there (conn_tip_fates) is parsed
 * again by git's listing of what unreachable objects use (mark_unreachable_referents, run with the
 * dangling lines or --lost-found): the same lines again. */
static void referent_fate(struct skg_fsck_run *f, const uint8_t *id)
{
	const struct skg_typeorder_fate *fate = f->connectivity_only ? skg_fsck_type_fate(f, id) : NULL;
	if (fate != NULL && (f->show_dangling || f->lost_found)) {
		skg_fsck_fate_lines(f, NULL, fate);
	}
}

/* mkdir that accepts an existing directory */
static void on_dangling(void *ctx, unsigned type, const uint8_t *id)
{
	struct skg_fsck_run *f = ctx;
	if (f->died || skg_fsck_stopped(f)) {
		return; /* git died at an earlier one, or the run stopped */
	}
	referent_fate(f, id);
	if (f->show_dangling) {
		if (type == SKG_NONE) {
			skg_fsck_lookup_lines(f, id, 2); /* printable_type reads the type it lacks */
		}
		obj_line(f, "dangling", type, id, 0);
	}
	if (f->lost_found && !skg_fsck_write_lost_found(f, type, id)) {
		f->died = true;
	}
}

static void on_unreachable(void *ctx, unsigned type, const uint8_t *id)
{
	if (((struct skg_fsck_run *)ctx)->died) {
		return; /* git died in the walk */
	}
	referent_fate(ctx, id);
	if (type == SKG_NONE) {
		skg_fsck_lookup_lines(ctx, id, 2); /* printable_type reads the type it lacks */
	}
	obj_line(ctx, "unreachable", type, id, 0);
}

/* The walk's reload: the links of a loose tree, read again from its object directory. */
struct relink {
	void (*link)(void *ctx, const uint8_t *id, unsigned type);
	void *ctx;
};

static void relink_entry(void *ctx, uint32_t mode, const char *name, size_t name_len, const uint8_t *id)
{
	struct relink *r = ctx;
	(void)name;
	(void)name_len;
	if (mode != 0160000) { /* as tree_link: a gitlink is no link */
		r->link(r->ctx, id, mode == 040000 ? SKG_TREE : SKG_BLOB);
	}
}

void skg_fsck_tree_links(struct skg_fsck_run *f, struct skg_loose_reader *reader, unsigned source,
                         const uint8_t *id, void (*link)(void *link_ctx, const uint8_t *id, unsigned type),
                         void *link_ctx)
{
	char h[SKG_MAX_HEXSZ + 1];
	struct skg_loose_object obj;
	struct skg_lines lines = {0};
	struct skg_buf path = {0};
	if (reader == NULL || skg_fsck_stopped(f)) {
		return;
	}
	skg_to_hex_len(id, f->rawsz, h);
	skg_buf_addf(&path, "%s/%.2s/%s", f->odb_dirs[source], h, h + 2);
	int st = path.failed ? SKG_LOOSE_NOMEM
	                     : skg_loose_read(reader, skg_buf_str(&path), id, NULL, NULL, &obj, &lines);
	if (st == SKG_LOOSE_NOMEM) {
		skg_fsck_nomem(f); /* its links are not known: the run stops */
	} else if (st == SKG_LOOSE_OK && obj.type == SKG_TREE && !obj.streamed) {
		struct relink r = {link, link_ctx};
		(void)skg_tree_links(obj.content, (size_t)obj.size, f->rawsz, relink_entry, &r);
	}
	skg_lines_clear(&lines);
	skg_buf_release(&path);
}

static void reload_tree(void *ctx, unsigned thread, unsigned source, const uint8_t *id, unsigned type,
                        void (*link)(void *link_ctx, const uint8_t *id, unsigned type), void *link_ctx)
{
	struct skg_fsck_run *f = ctx;
	(void)type;
	skg_fsck_tree_links(f, f->walk_readers != NULL ? f->walk_readers[thread] : NULL, source, id, link,
	                    link_ctx);
}

int skg_fsck_walk(struct skg_fsck_run *f)
{
	struct skg_graph_report rep = {f,
	                               on_broken,
	                               on_wrong_type,
	                               on_missing,
	                               on_dangling,
	                               on_unreachable,
	                               on_walk_error,
	                               f->show_unreachable,
	                               reload_tree,
	                               0,
	                               on_failed_link,
	                               f->connectivity_only && f->promisor_remote,
	                               f->connectivity_only,
	                               f->connectivity_only && (f->show_dangling || f->lost_found),
	                               f->git_version >= SKG_GIT_2_55,
	                               on_referent_error,
	                               on_not_a,
	                               on_failed_parse,
	                               on_failed_root,
	                               on_parse_typeless,
	                               on_reread};
	struct skg_loose_options wopt;
	skg_loose_options_default(&wopt);
	wopt.rawsz = f->rawsz;
	wopt.no_hash = true; /* every loose object was hashed already */
	f->walk_readers = calloc(f->threads, sizeof(*f->walk_readers));
	for (unsigned t = 0; f->walk_readers != NULL && t < f->threads; t++) {
		f->walk_readers[t] = skg_loose_reader_new(&wopt);
		if (f->walk_readers[t] == NULL) {
			break;
		}
		rep.reload_threads = t + 1; /* the threads with a reader */
	}
	if (rep.reload_threads < f->threads) {
		skg_fsck_nomem(f);
	}
	if (f->incomplete) {
		rep.dangling = NULL;
		rep.unreachable = NULL;
	}
	int walked = skg_fsck_stopped(f) ? 0 : skg_graph_walk(f->graph, &rep);
	for (unsigned t = 0; f->walk_readers != NULL && t < f->threads; t++) {
		skg_loose_reader_free(f->walk_readers[t]);
	}
	free(f->walk_readers);
	f->walk_readers = NULL;
	if (walked != 0) {
		skg_fsck_nomem(f);
	}
	/* git died writing lost-found (its line is out), or the run failed */
	return f->died || skg_fsck_stopped(f) ? -1 : 0;
}
