/*
 * fsck_check.c - one object of a repository check (fsck_run.h): git 2.39.5's fsck_obj
 * (builtin/fsck.c) over an object that exists: the syntax checks of fsck.c (fsck_object.h), its
 * links into the object graph (graph.h) as git's fsck_walk finds them (a commit's tree first, the
 * parents grafts and shallow give it), the --root and --tags lines, and what git does where links
 * disagree on the object's type (typeorder.h: the lookup of the object or of a link fails).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsck_run.h"
#include "cgraph.h"

/* ---- one object: checks, links, graph ---------------------------------------------------------- */

/* The links of one object, on the stack for small objects. */
struct links {
	struct skg_link *v;
	size_t n, cap;
	struct skg_link small[64];
	bool failed;
	size_t rawsz; /* bytes of an ID */
};

static void links_add(struct links *l, const uint8_t *id, unsigned type)
{
	if (l->n == l->cap) {
		size_t cap = l->cap * 2;
		struct skg_link *v =
		    l->v == l->small ? malloc(cap * sizeof(*v)) : realloc(l->v, cap * sizeof(*v));
		if (v == NULL) {
			l->failed = true;
			return;
		}
		if (l->v == l->small) {
			memcpy(v, l->small, sizeof(l->small));
		}
		l->v = v;
		l->cap = cap;
	}
	memcpy(l->v[l->n].id, id, l->rawsz);
	l->v[l->n].type = (uint8_t)type;
	l->n++;
}

static void tree_link(void *ctx, uint32_t mode, const char *name, size_t name_len, const uint8_t *id)
{
	(void)name;
	(void)name_len;
	if (mode == 0160000) {
		return; /* a gitlink: a commit of another repository */
	}
	links_add(ctx, id, mode == 040000 ? SKG_TREE : SKG_BLOB);
}

static void parent_link(void *ctx, const uint8_t *id)
{
	links_add(ctx, id, SKG_COMMIT);
}

/* ---- commits from the commit-graph (--connectivity-only) --------------------------------------- */

void skg_fsck_walk_line(struct skg_fsck_run *f, const uint8_t *id, const char *why, bool fatal)
{
	pthread_mutex_lock(&f->lock);
	struct skg_fsck_bad_tree *v = realloc(f->bad_trees, (f->n_bad_trees + 1) * sizeof(*v));
	if (v != NULL) {
		f->bad_trees = v;
		memcpy(v[f->n_bad_trees].id, id, f->rawsz);
		snprintf(v[f->n_bad_trees].why, sizeof(v->why), "%s", why);
		v[f->n_bad_trees++].fatal = fatal;
	}
	pthread_mutex_unlock(&f->lock);
	if (v == NULL) {
		skg_fsck_nomem(f);
	}
}

/* IDs of tips are zero-padded to SKG_MAX_RAWSZ, and so is the key */
static int cmp_tip_key(const void *key, const void *elem)
{
	return memcmp(key, ((const struct skg_fsck_tip *)elem)->id, SKG_MAX_RAWSZ);
}

/* Whether git parses `id` from the object store before its walk (a ref's or HEAD's tip). */
static bool is_tip(const struct skg_fsck_run *f, const uint8_t *id)
{
	if (f->cg_tips == NULL) {
		return skg_fsck_tip_place(f, id) != 0;
	}
	uint8_t key[SKG_MAX_RAWSZ] = {0};
	memcpy(key, id, f->rawsz);
	return bsearch(key, f->cg_tips, f->n_cg_tips, sizeof(*f->cg_tips), cmp_tip_key) != NULL;
}

/* The commit-graph's parse of commit `id` (skg_cgraph_parse, *why its line when it fails): 1 with
 * its links in l, the tree first as git's walk takes them; 0 not in the graph; 2 a parse that fails;
 * -1 one git dies at (no links kept for either). */
static int graph_parse(const struct skg_fsck_run *f, const uint8_t *id, struct links *l, char *why,
                       size_t whylen)
{
	uint8_t tree[SKG_MAX_RAWSZ];
	int r = skg_cgraph_parse(f->cg_layers, f->cg_n, id, f->git_version >= SKG_GIT_2_55, tree, parent_link,
	                         l, why, whylen);
	if (r != 1) {
		l->n = 0; /* the parents before a failure are dropped */
		return r;
	}
	size_t np = l->n;
	links_add(l, tree, SKG_TREE);
	if (np > 0 && !l->failed) {
		struct skg_link t = l->v[np];
		memmove(l->v + 1, l->v, np * sizeof(*l->v));
		l->v[0] = t;
	}
	return 1;
}

bool skg_fsck_graph_has(const struct skg_fsck_run *f, const uint8_t *id)
{
	if (f->cg == NULL || is_tip(f, id)) {
		return false;
	}
	char why[96];
	struct links l = {.v = NULL, .n = 0, .cap = 64, .failed = false, .rawsz = f->rawsz};
	l.v = l.small;
	int r = graph_parse(f, id, &l, why, sizeof(why));
	if (l.v != l.small) {
		free(l.v);
	}
	return r == 1 || r == -1;
}

/*
 * git fsck --connectivity-only parses a commit from the commit-graph where it has it (its walk's
 * repo_parse_commit), except the tips its refs name, parsed from the object before: the links
 * (tree first, then the parents) into l, and 1; a parse git dies at: no links, *walk_error, 1
 * (the walk's line, skg_fsck_bad_tree.fatal); 0 when the object gives them (not in the graph, a
 * tip, or a parse that fails with a line, recorded for the walk).
 */
static int graph_commit(struct skg_fsck_run *f, const uint8_t *id, struct links *l, bool *walk_error)
{
	if (f->cg == NULL || is_tip(f, id)) {
		return 0;
	}
	char why[96];
	int r = graph_parse(f, id, l, why, sizeof(why));
	if (r == 2 || r == -1) {
		skg_fsck_walk_line(f, id, why, r == -1);
		*walk_error = true;
	}
	return r == 1 || r == -1;
}

void skg_fsck_unread_graph_links(struct skg_fsck_run *f, const uint8_t *id)
{
	if (f->cg == NULL || is_tip(f, id)) {
		return;
	}
	char why[96];
	struct links l = {.v = NULL, .n = 0, .cap = 64, .failed = false, .rawsz = f->rawsz};
	l.v = l.small;
	if (graph_parse(f, id, &l, why, sizeof(why)) == 1 &&
	    (l.failed || skg_graph_set_graph_links(f->graph, id, l.v, l.n) != 0)) {
		skg_fsck_nomem(f);
	}
	if (l.v != l.small) {
		free(l.v);
	}
}

/* ---- links of another type (typeorder.h) ------------------------------------------------------ */

const struct skg_typeorder_fate *skg_fsck_type_fate(const struct skg_fsck_run *f, const uint8_t *id)
{
	return f->types_resolved ? skg_typeorder_fate(f->types, id) : NULL;
}

/* Where the object checked at the place of sink s comes in git's order of checks (graph.h). */
static uint64_t check_order(const struct skg_fsck_dest *s)
{
	return skg_graph_order(s->pack_seq, s->offset, s->odb >= 0 ? (uint32_t)s->odb : 0, s->dir, s->nth);
}

void skg_fsck_reparse_packed_lines(struct skg_fsck_run *f, const uint8_t *id)
{
	unsigned type = SKG_NONE;
	if (!skg_graph_known(f->graph, id, &type) || (type != SKG_COMMIT && type != SKG_TAG)) {
		return;
	}
	uint8_t *data = NULL;
	size_t len = 0;
	uint32_t seq = 0;
	uint64_t where;
	int rc = skg_fsck_read_object(f, id, type, f->big_file, &data, &len, &seq, &where);
	if (rc == -2) {
		skg_fsck_nomem(f);
	}
	if (rc == 0 && seq > 0) {
		(void)skg_fsck_parses(f, type, id, data, len, false);
	}
	free(data);
}

/* Exit bits of the object checked at the place of sink s: its own (s->errors) or the run's. */
static void dest_errors(struct skg_fsck_dest *s, int bits)
{
	if (s->errors != NULL) {
		*s->errors |= bits;
	} else {
		skg_fsck_add_errors(s->f, bits);
	}
}

/* The quiet pass: an object read at the place of sink s, with its links in git's lookup order. */
static void collect_event(struct skg_fsck_dest *s, unsigned type, const uint8_t *id,
                          const struct skg_link *links, size_t n, bool graft)
{
	struct skg_fsck_run *f = s->f;
	struct skg_read_pos pos = {s->pack_seq, s->odb >= 0 ? (uint32_t)s->odb : 0,
	                           s->pack_seq > 0 ? s->offset : (uint64_t)s->dir << 32 | s->nth, 0, 0};
	if (skg_typeorder_event(f->types, &pos, id, type, links, n, graft) != 0) {
		skg_fsck_nomem(f);
	}
	if (type == SKG_COMMIT) {
		skg_typeorder_commit(f->types, &pos);
	}
	/* git 2.55 parsed it before, when a ref or HEAD named it (a tree without its entries) */
	struct skg_read_pos tip = {.tip = skg_fsck_tip_place(f, id)};
	if (tip.tip != 0 && type == SKG_COMMIT) {
		skg_typeorder_commit(f->types, &tip);
	}
	if (tip.tip != 0 &&
	    skg_typeorder_event(f->types, &tip, id, type, links, type == SKG_TREE ? 0 : n, graft) != 0) {
		skg_fsck_nomem(f);
	}
}

void skg_fsck_fate_lines(struct skg_fsck_run *f, struct skg_fsck_dest *s,
                         const struct skg_typeorder_fate *fate)
{
	char lines[512];
	skg_typeorder_fate_lines(fate, lines, sizeof(lines));
	if (s != NULL) {
		skg_fsck_err(s, "%s", lines);
	} else {
		skg_fsck_err_line(f, NULL, "%s", lines);
	}
}

void skg_fsck_lookup_fails(struct skg_fsck_run *f, const uint8_t *id, unsigned tau, unsigned type)
{
	struct skg_typeorder_fate fate = {
	    .rawsz = (uint8_t)f->rawsz, .kind = SKG_TO_PARSE, .type = (uint8_t)type, .tau = (uint8_t)tau};
	memcpy(fate.id, id, f->rawsz);
	skg_fsck_fate_lines(f, NULL, &fate);
}

/* A tree's entries whose lookup fails (git's fsck_walk_tree, before the tree's checks): their
 * lines; true when there are any. */
static bool tree_fate_lines(struct skg_fsck_dest *s, const struct skg_link *links, size_t n)
{
	struct skg_fsck_run *f = s->f;
	bool any = false;
	for (size_t k = 0; k < n && f->types_resolved; k++) {
		unsigned tau = skg_typeorder_type(f->types, links[k].id);
		if (tau != 0 && tau != links[k].type) {
			char h[SKG_MAX_HEXSZ + 1];
			skg_to_hex_len(links[k].id, f->rawsz, h);
			skg_fsck_err(s, "error: object %s is a %s, not a %s", h, skg_fsck_tname(tau),
			             skg_fsck_tname(links[k].type));
			any = true;
		}
	}
	return any;
}

/* git's fsck_obj: its checks (unless --connectivity-only), its links into the graph, the --root
 * and --tags lines. */
void skg_fsck_check_object(struct skg_fsck_dest *s, unsigned type, const uint8_t *id, const uint8_t *data,
                           size_t len, const char *where)
{
	struct skg_fsck_run *f = s->f;
	char h[SKG_MAX_HEXSZ + 1], msg[512];
	bool walk_error = false;
	struct links l = {.v = NULL, .n = 0, .cap = 64, .failed = false, .rawsz = f->rawsz};
	l.v = l.small;
	bool parsed = true, tree_checked = false;
	int tree_result = 0;
	struct skg_buf held = {0};
	if (skg_fsck_stopped(f)) {
		return; /* the check stops between objects */
	}
	skg_to_hex_len(id, f->rawsz, h);
	if (data == NULL && type != SKG_BLOB) {
		data = (const uint8_t *)"";
		len = 0;
	}
	/* links of another type: git's lookup of this object or of one of its links fails */
	const struct skg_typeorder_fate *fate = skg_fsck_type_fate(f, id);
	bool graft = false, tree_broken = false;
	if (fate != NULL && fate->kind == SKG_TO_PARSE) {
		skg_fsck_fate_lines(f, s, fate);
		parsed = false;
	} else if (type == SKG_COMMIT && graph_commit(f, id, &l, &walk_error) > 0) {
		/* the links git's walk takes from the commit-graph */
	} else if (type == SKG_COMMIT) {
		uint8_t tree[SKG_MAX_RAWSZ];
		enum skg_parse_result pr = skg_commit_links(data, len, f->rawsz, tree, parent_link, &l);
		if (pr != SKG_PARSE_OK) {
			if (skg_parse_error_format(msg, sizeof(msg), pr, id, f->rawsz, NULL) > 0) {
				skg_fsck_err(s, "error: %s", msg);
			}
			parsed = false;
		} else {
			/* a grafted or shallow commit: the parents git gives it instead (commit.c) */
			const struct skg_graft *gr = skg_graft_find(&f->grafts, id);
			graft = gr != NULL;
			if (gr != NULL) {
				l.n = 0;
				for (size_t k = 0; k < gr->nparents; k++) {
					links_add(&l, gr->parents + k * f->rawsz, SKG_COMMIT);
				}
			}
			/* the tree comes first in git's walk */
			links_add(&l, tree, SKG_TREE);
			if (l.n > 1) {
				struct skg_link t = l.v[l.n - 1];
				memmove(l.v + 1, l.v, (l.n - 1) * sizeof(*l.v));
				l.v[0] = t;
			}
		}
	} else if (type == SKG_TAG) {
		struct skg_tag_links tl;
		enum skg_parse_result pr = skg_tag_links(data, len, f->rawsz, &tl);
		if (pr != SKG_PARSE_OK) {
			if (skg_parse_error_format(msg, sizeof(msg), pr, id, f->rawsz, &tl) > 0) {
				skg_fsck_err(s, "error: %s", msg);
			}
			parsed = false;
		} else {
			links_add(&l, tl.object, tl.type);
		}
	} else if (type == SKG_TREE) {
		enum skg_tree_error te;
		if (f->connectivity_only) {
			te = skg_tree_links(data, len, f->rawsz, tree_link, &l);
		} else {
			/*
			 * Checks and links in one decode. git prints the walk's decode error (below)
			 * before the findings: they wait in `held` until then (nearly always empty).
			 */
			struct skg_fsck_dest hs = {f,      &held,  s->odb,    s->pack_seq,    s->offset,
			                           s->dir, s->nth, s->errors, s->finding_bits};
			tree_result = skg_fsck_tree(id, data, len, &f->fopt, skg_fsck_on_finding, &hs,
			                            tree_link, &l, &te);
			tree_checked = true;
		}
		tree_broken = tree_fate_lines(s, l.v, l.n);
		if (te != SKG_TREE_OK) {
			struct skg_tree_iter it;
			walk_error = true;
			skg_fsck_walk_line(f, id, skg_tree_error_text(te), false);
			if (!f->connectivity_only) {
				/* git's fsck_walk prints the decode error; it fails ("broken links") when
				 * the tree does not even start */
				skg_fsck_err(s, "error: %s", skg_tree_error_text(te));
				if (skg_tree_iter_init(&it, data, len, f->rawsz) != SKG_TREE_OK) {
					tree_broken = true;
				}
			}
		}
		if (tree_broken) {
			struct skg_fsck_meta meta = {SKG_R_FSCK, NULL, SKG_TREE, id, SKG_CHECK_ERROR_OBJECT};
			skg_fsck_errm(s, &meta, "error in tree %s: broken links", h);
			dest_errors(s, SKG_CHECK_ERROR_OBJECT);
		}
	}
	if (parsed && fate != NULL) {
		skg_fsck_fate_lines(f, s,
		                    fate); /* a commit or tag: its parse stops at a link of another type */
		parsed = false;
	}
	if (parsed && f->collect) {
		collect_event(s, type, id, l.v, l.n, graft);
	}
	if (!parsed) {
		/* in a pack, git's verify_pack fails too: its callback returned an error */
		int bits = SKG_CHECK_ERROR_OBJECT | (s->pack_seq > 0 ? SKG_CHECK_ERROR_PACK : 0);
		struct skg_fsck_meta meta = {SKG_R_FSCK, NULL, type, id, (unsigned)bits};
		if (where != NULL) {
			skg_fsck_errm(s, &meta, "error: %s: object could not be parsed: %s", h, where);
		} else {
			skg_fsck_errm(s, &meta, "error: %s: object corrupt or missing", h);
		}
		dest_errors(s, bits);
		/* git's lookup made the commit or tag before its parse failed: it has one of that type */
		if ((type == SKG_COMMIT || type == SKG_TAG) && (fate == NULL || fate->kind != SKG_TO_PARSE) &&
		    skg_graph_note_type(f->graph, id, type) != 0) {
			skg_fsck_nomem(f);
		}
		/* no object to git, but in a pack (has_object_pack) */
		if (s->pack_seq > 0 && skg_graph_add_unread(f->graph, id, false, check_order(s)) != 0) {
			skg_fsck_nomem(f);
		}
		goto out;
	}
	if (held.len > 0) {
		skg_fsck_add(s, held.p, held.len);
	}
	if (!f->connectivity_only) {
		/* an object in fsck.skipList is not reported and does not count (git's report()) */
		int r = tree_checked ? tree_result
		                     : skg_fsck_object(type, id, data, len, &f->fopt, skg_fsck_on_finding, s);
		if (r != 0 && !skg_fsck_skipped(f, id)) {
			/* git's fsck_loose counts a failed check as SKG_CHECK_ERROR_OBJECT; in a pack, the
			 * check is verify_pack's callback, whose failure is SKG_CHECK_ERROR_PACK */
			dest_errors(s, s->pack_seq > 0 ? SKG_CHECK_ERROR_PACK : SKG_CHECK_ERROR_OBJECT);
			goto graph;
		}
	}
	/* git prints these in its object check, which --connectivity-only leaves out */
	if (type == SKG_COMMIT && f->show_root && l.n == 1 && !f->connectivity_only) {
		struct skg_fsck_meta meta = {SKG_R_FSCK, NULL, SKG_COMMIT, id, 0};
		skg_fsck_outm(s, &meta, "root %s", h);
	}
	if (type == SKG_TAG && f->show_tags && !f->connectivity_only) {
		struct skg_tag_links tl;
		if (skg_tag_links(data, len, f->rawsz, &tl) == SKG_PARSE_OK) {
			char th[SKG_MAX_HEXSZ + 1];
			skg_to_hex_len(tl.object, f->rawsz, th);
			struct skg_fsck_meta meta = {SKG_R_FSCK, NULL, SKG_TAG, id, 0};
			skg_fsck_outm(s, &meta, "tagged %s %s (%.*s) in %s", skg_fsck_tname(tl.type), th,
			              (int)tl.tag_len, tl.tag, h);
		}
	}
graph:
	/*
	 * A loose tree's links are read again by the walk (reload_tree) instead of kept: loose trees
	 * cost little to read again, and the links are most of the graph's memory (git keeps none).
	 */
	if (l.failed ||
	    (type == SKG_TREE && s->odb >= 0
	         ? skg_graph_add_reload(f->graph, id, type, l.v, l.n, walk_error, (uint16_t)s->odb,
	                                check_order(s))
	         : skg_graph_add(f->graph, id, type, l.v, l.n, walk_error, check_order(s))) != 0) {
		skg_fsck_nomem(f);
	}
out:
	skg_buf_release(&held);
	if (l.v != l.small) {
		free(l.v);
	}
}

bool skg_fsck_parses(struct skg_fsck_run *f, unsigned type, const uint8_t *id, const uint8_t *data,
                     size_t len, bool quiet)
{
	char msg[512];
	enum skg_parse_result pr = SKG_PARSE_OK;
	struct skg_tag_links tl;
	if (type == SKG_COMMIT) {
		uint8_t tree[SKG_MAX_RAWSZ];
		struct links l = {.v = NULL, .n = 0, .cap = 64, .failed = false, .rawsz = f->rawsz};
		l.v = l.small;
		pr = skg_commit_links(data != NULL ? data : (const uint8_t *)"", len, f->rawsz, tree,
		                      parent_link, &l);
		if (l.v != l.small) {
			free(l.v);
		}
	} else if (type == SKG_TAG) {
		pr = skg_tag_links(data != NULL ? data : (const uint8_t *)"", len, f->rawsz, &tl);
	}
	if (pr == SKG_PARSE_OK) {
		return true;
	}
	if (!quiet &&
	    skg_parse_error_format(msg, sizeof(msg), pr, id, f->rawsz, type == SKG_TAG ? &tl : NULL) > 0) {
		skg_fsck_err_line(f, NULL, "error: %s", msg);
	}
	return false;
}
