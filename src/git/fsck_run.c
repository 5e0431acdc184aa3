/*
 * fsck_run.c - skg_check_repo (<sha1kit/git_fsck.h>): a whole repository checked in git 2.39.5
 * fsck's order (builtin/fsck.c cmd_fsck): setup and config, the loose objects of every object
 * directory, every pack, the .gitmodules / .gitattributes blobs (fsck_finish), the roots (refs,
 * each worktree's HEAD and reflogs, the index), the connectivity walk, then the commit-graph,
 * multi-pack-index and .rev checks (git runs `git commit-graph verify` and `git multi-pack-index
 * verify` for each object directory). The parts are in the other fsck_*.c files (fsck_run.h).
 *
 * Where links disagree on an object's type, git's outcome depends on the order it reads objects
 * in: the object check then runs three times (wt_passes): the first pass's records are held; a
 * quiet second pass collects the events on the disputed objects with their places in git's order
 * (typeorder.h), which give the type git keeps for each and the parses that fail; a third pass
 * sends git's records with those types forced into a new graph.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sha1kit/git_refs.h>

#include "fsck_run.h"

#include "alternates.h"
#include "cgraph.h"
#include "midx.h"
#include "odb.h"
#include "repo.h"
#include "trailer.h"
#include "util.h"

void skg_check_options_default(struct skg_check_options *opt)
{
	memset(opt, 0, sizeof(*opt));
	opt->show_dangling = true;
	opt->include_reflogs = true;
	opt->keep_cache = true;
	opt->check_refs = true;
	opt->git_version = SKG_GIT_2_55;
}

/* skg_for_each_alternate's callback: one more object directory. */
static int add_odb(void *ctx, const char *dir)
{
	struct skg_fsck_run *f = ctx;
	if (f->n_odb_dirs == f->cap_odb_dirs) {
		size_t cap = f->cap_odb_dirs ? f->cap_odb_dirs * 2 : 8;
		char **v = realloc(f->odb_dirs, cap * sizeof(*v));
		if (v == NULL) {
			return -1;
		}
		f->odb_dirs = v;
		f->cap_odb_dirs = cap;
	}
	f->odb_dirs[f->n_odb_dirs] = strdup(dir);
	if (f->odb_dirs[f->n_odb_dirs] == NULL) {
		return -1;
	}
	f->n_odb_dirs++;
	return 0;
}

/* ---- the object check: every loose object, then every pack ------------------------------------ */

/*
 * git's first look at the packs loads the multi-pack-index of each object directory (trailer.h):
 * git 2.39.5 after the loose objects (packfile.c prepare_packed_git), where only a load that dies
 * shows (its other lines come with the checks at the end, check_trailers); git 2.55.0 before them,
 * twice (while it takes its snapshot of the refs, and again before the objects: its strace shows
 * both opens ahead of the first loose directory), each load printing its lines, a load that dies
 * once. True when git dies there (f->died), its line last.
 */
static bool midx_loads(struct skg_fsck_run *f)
{
	struct skg_lines *lines = malloc(sizeof(*lines)); /* 16 KiB */
	if (lines == NULL) {
		skg_fsck_nomem(f);
		return true;
	}
	bool dies = false;
	for (size_t i = 0; i < f->n_odb_dirs && !dies && !f->no_midx; i++) {
		bool loaded;
		int st =
		    skg_trailer_midx_load(f->odb_dirs[i], (unsigned)f->rawsz, f->git_version, lines, &loaded);
		if (st == SKG_TRAILER_FATAL && lines->nomem) {
			skg_fsck_nomem(f); /* the run stops: not git's death */
			dies = true;
		} else if (st == SKG_TRAILER_FATAL) {
			skg_fsck_lines(f, lines);
			f->died = true;
			dies = true;
		} else if (f->git_version >= SKG_GIT_2_55) {
			/* one that loaded (a chain with a layer missing: its warning) stays loaded */
			skg_fsck_lines(f, lines);
			if (!loaded) {
				skg_fsck_lines(f, lines);
			}
		}
	}
	free(lines);
	return dies;
}

/*
 * git fsck's own load of the commit-graph (trailer.h): at its first parse of a commit, git 2.55's
 * snapshot of the refs (fsck_refs.c, a ref's commit) or its object check, 2.39.5's object check;
 * before the lines of the refs (a new user's trial: the chain's "unable to find all commit-graph
 * files" of a `clone --shared` whose origin pruned a layer's commits). graph_loads decides whether
 * they come early: not when a load dies (its lines come at the end, check_graph).
 */
static void graph_loads(struct skg_fsck_run *f)
{
	if (f->no_commit_graph) {
		return;
	}
	/* each object directory's lines, kept until skg_fsck_graph_lines gives them */
	struct skg_lines *lines = malloc(f->n_odb_dirs * sizeof(*lines) + 1); /* 16 KiB each */
	if (lines == NULL) {
		skg_fsck_nomem(f);
		return;
	}
	bool early = true;
	for (size_t i = 0; i < f->n_odb_dirs && early; i++) {
		int st =
		    skg_trailer_commit_graph(f->odb_dirs[i], (const char *const *)f->odb_dirs, f->n_odb_dirs,
		                             SKG_TRAILER_LOAD, (unsigned)f->rawsz, f->git_version, &lines[i]);
		early = st != SKG_TRAILER_FATAL && !lines[i].nomem;
		if (lines[i].nomem) {
			skg_fsck_nomem(f);
		}
	}
	f->graph_lines_early = early;
	if (early) {
		f->graph_load = lines;
	} else {
		free(lines);
	}
}

void skg_fsck_graph_lines(struct skg_fsck_run *f)
{
	for (size_t i = 0; f->graph_load != NULL && i < f->n_odb_dirs; i++) {
		skg_fsck_lines(f, &f->graph_load[i]);
	}
	free(f->graph_load);
	f->graph_load = NULL;
}

/* 0, or -1 where git dies (its lines are out) or the run stops. */
static int scan(struct skg_fsck_run *f)
{
	bool v255 = f->git_version >= SKG_GIT_2_55;
	if (v255 && midx_loads(f)) {
		return -1;
	}
	if (!v255) {
		skg_fsck_graph_lines(f); /* the object check's first commit */
	}
	/* git's --connectivity-only lists the objects without its object check's meters */
	bool meters = !f->connectivity_only;
	for (size_t i = 0; i < f->n_odb_dirs; i++) {
		if (meters) {
			skg_fsck_meter_start(f, "Checking object directories", 256, 0);
		}
		if (skg_fsck_check_loose(f, f->odb_dirs[i], i < UINT16_MAX ? (int)i : -1) != 0) {
			return -1;
		}
		skg_fsck_meter_display(f, 256);
		skg_fsck_meter_stop(f);
	}
	if (!v255 && midx_loads(f)) {
		return -1;
	}
	size_t n;
	struct skg_fsck_pack_ref *packs;
	if (skg_fsck_list_packs(f, true, &packs, &n) != 0) {
		return -1;
	}
	if (f->progress.fn != NULL && meters) {
		uint64_t total = 0;
		for (size_t i = 0; i < n; i++) {
			total += skg_fsck_progress_count(f, packs[i].idx);
		}
		skg_fsck_meter_start(f, "Checking objects", total, 1024);
	}
	for (size_t i = 0; i < n && !f->died && !skg_fsck_stopped(f); i++) {
		skg_fsck_check_pack(f, packs[i].pack, packs[i].idx, (uint32_t)packs[i].odb, packs[i].midx,
		                    packs[i].mtime);
	}
	skg_fsck_free_packs(packs, n);
	if (skg_fsck_stopped(f)) {
		return -1;
	}
	skg_fsck_meter_stop(f);
	return f->died ? -1 : 0; /* git died reading a pack through its idx */
}

/* git's set-up looks the shallow file's IDs up as commits (shallow.c register_shallow): g has
 * them as commits before any object is added, so that another object of such an ID is disputed
 * (typeorder.h). 0, or -1 when out of memory. */
static int shallow_commits(struct skg_graph *g, const struct skg_grafts *grafts)
{
	for (size_t i = 0; i < grafts->n; i++) {
		if (grafts->v[i].shallow && skg_graph_note_type(g, grafts->v[i].id, SKG_COMMIT) != 0) {
			return -1;
		}
	}
	/* and the graft file's commits, which git looks up where it reads the file */
	return skg_graph_set_graft_lookups(g, grafts->file_ids, grafts->n_file);
}

/* A new graph of the check's objects (NULL when out of memory), with names on for --name-objects
 * and the shallow commits (when the grafts are read). */
static struct skg_graph *new_graph(const struct skg_fsck_run *f)
{
	struct skg_graph *g = skg_graph_new(f->rawsz);
	if (g != NULL &&
	    ((f->name_objects && skg_graph_enable_names(g) != 0) || shallow_commits(g, &f->grafts) != 0)) {
		skg_graph_free(g);
		g = NULL;
	}
	return g;
}

/* The paths of the n entries of a list of packed copies freed; *n set to 0 (the array is kept). */
static void release_bad_packed(struct skg_fsck_bad_packed *v, size_t *n)
{
	for (size_t i = 0; i < *n; i++) {
		free(v[i].pack);
		free(v[i].idx);
	}
	*n = 0;
}

/* Before another pass of the object check: what the last one found is forgotten (errors: the
 * status bits from before the first). 0, or -1 when out of memory. */
static int scan_reset(struct skg_fsck_run *f, int errors)
{
	skg_graph_free(f->graph);
	f->graph = new_graph(f);
	f->errors = errors;
	free(f->bad_trees);
	f->bad_trees = NULL;
	f->n_bad_trees = 0;
	f->n_specials = 0;
	free(f->retyped);
	f->retyped = NULL;
	f->n_retyped = 0;
	release_bad_packed(f->bad_packed, &f->n_bad_packed);
	release_bad_packed(f->ext_base, &f->n_ext_base);
	release_bad_packed(f->conn_mismatch, &f->n_conn_mismatch);
	for (size_t i = 0; i < f->n_usable_packs; i++) {
		free(f->usable_packs[i].idx);
		free(f->usable_packs[i].pack);
	}
	f->n_usable_packs = 0;
	f->pack_seq = 0;
	f->incomplete = false;
	f->died = false;
	for (size_t i = 0; i < f->n_unusable; i++) {
		free(f->unusable[i].line);
		free(f->unusable[i].idx);
		free(f->unusable[i].pack);
		free(f->unusable[i].mids);
	}
	f->n_unusable = 0;
	return f->graph != NULL ? 0 : -1;
}

/* git's set-up's lookups of the shallow commits (shallow_commits), as events that typeorder.h
 * places at git's first parse of a commit: each one's link from no object. 0, or -1 when out of
 * memory. */
static int setup_events(struct skg_fsck_run *f)
{
	static const uint8_t none[SKG_MAX_RAWSZ];
	uint32_t k = 0;
	for (size_t i = 0; i < f->grafts.n; i++) {
		const struct skg_graft *g = &f->grafts.v[i];
		if (!g->shallow || !skg_typeorder_disputed(f->types, g->id)) {
			continue;
		}
		struct skg_link link = {.type = SKG_COMMIT};
		memcpy(link.id, g->id, sizeof(link.id));
		struct skg_read_pos pos = {.setup = ++k};
		if (skg_typeorder_event(f->types, &pos, none, SKG_COMMIT, &link, 1, false) != 0) {
			return -1;
		}
	}
	return 0;
}

/*
 * --connectivity-only: git parses each ref's object before any other (2.55's snapshot, 2.39's
 * fsck_handle_ref: every ref by name, then each worktree's HEAD), looking up the links of a commit
 * or tag with the types they name; where a parse before gave such a target another type, the
 * lookup fails and so does the parse: the ref is invalid and the object unreachable. Those parses'
 * fates (typeorder.h, the tips' events alone), where links disagree on a type. 0, or -1 when out of
 * memory.
 */
static int conn_tip_fates(struct skg_fsck_run *f)
{
	uint8_t *ids = NULL;
	size_t n = 0;
	if (skg_graph_conflicts(f->graph, &ids, &n) != 0) {
		free(ids);
		return -1;
	}
	if (n == 0) {
		free(ids);
		return 0;
	}
	f->types = skg_typeorder_new(ids, n, f->rawsz);
	free(ids);
	if (f->types == NULL) {
		return -1;
	}
	/* the order of the tips (2.55 has it from its snapshot; 2.39 parses in the same order) */
	const bool own = f->n_tips == 0;
	if (own && skg_fsck_tip_order(f) != 0) {
		return -1;
	}
	int ret = 0;
	struct skg_link links[64]; /* (an octopus of more parents: the links after these are not
	                            * looked at) */
	for (size_t i = 0; i < f->n_tips && ret == 0; i++) {
		unsigned type;
		size_t nl = 0;
		if (!skg_graph_has(f->graph, f->tips[i].id, &type)) {
			continue;
		}
		if (type == SKG_COMMIT || type == SKG_TAG) {
			(void)skg_graph_links(f->graph, f->tips[i].id, links,
			                      sizeof(links) / sizeof(links[0]), &nl);
		}
		struct skg_read_pos pos = {.tip = f->tips[i].place};
		ret = skg_typeorder_event(f->types, &pos, f->tips[i].id, type, links, nl, false);
	}
	if (own) {
		f->n_tips = 0; /* 2.39 has no snapshot */
	}
	if (ret != 0 || skg_typeorder_resolve(f->types) != 0) {
		return -1;
	}
	f->types_resolved = true;
	return 0;
}

/*
 * After the first pass of the object check (`first`: what scan() returned): when no two links
 * disagree on an object's type, its records stand. Else git's handling of those links is worked
 * out (typeorder.h): a quiet pass collects the events on the disputed objects, they are ordered as
 * git reads them, and the check runs again with git's types set, making git's records. Returns
 * what the last scan() returned, or -1 when the run failed. The records of a check that did not
 * stop stay held (f->hold, f->held_out) for the caller to send; those of one that stopped go out.
 */
static int wt_passes(struct skg_fsck_run *f, int errors, int first)
{
	uint8_t *ids = NULL;
	size_t n = 0;
	f->hold = false;
	if (skg_fsck_stopped(f)) {
		skg_buf_release(&f->held_out); /* nothing more after a failure of the run */
		return -1;
	}
	if (first == 0 && f->connectivity_only && conn_tip_fates(f) != 0) {
		skg_fsck_nomem(f);
		return -1;
	}
	if (first != 0 || f->connectivity_only || skg_graph_conflicts(f->graph, &ids, &n) != 0 || n == 0) {
		free(ids);
		if (first == 0) {
			f->hold = true;
			return 0;
		}
		if (f->held_out.len > 0) {
			skg_fsck_send(f, f->held_out.p, f->held_out.len);
		}
		skg_buf_release(&f->held_out);
		return first;
	}
	skg_buf_release(&f->held_out);
	f->types = skg_typeorder_new(ids, n, f->rawsz);
	free(ids);
	struct skg_progress progress = f->progress;
	if (f->types == NULL || scan_reset(f, errors) != 0 || setup_events(f) != 0) {
		goto nomem;
	}
	f->quiet = f->collect = true;
	f->progress.fn = NULL;
	(void)scan(f); /* it stops where the first did not: nowhere */
	f->quiet = f->collect = false;
	f->progress = progress;
	if (skg_fsck_stopped(f)) {
		return -1;
	}
	if (skg_typeorder_resolve(f->types) != 0 || scan_reset(f, errors) != 0) {
		goto nomem;
	}
	f->types_resolved = true;
	for (size_t i = 0; i < skg_typeorder_count(f->types); i++) {
		unsigned tau;
		const uint8_t *id = skg_typeorder_id(f->types, i, &tau);
		if (tau != 0 && skg_graph_force_type(f->graph, id, tau) != 0) {
			goto nomem;
		}
	}
	f->hold = true;
	int last = scan(f);
	if (last != 0) {
		/* it stopped: what it held goes out now */
		f->hold = false;
		if (f->held_out.len > 0) {
			skg_fsck_send(f, f->held_out.p, f->held_out.len);
		}
		skg_buf_release(&f->held_out);
	}
	return last;
nomem:
	f->quiet = f->collect = false;
	skg_fsck_nomem(f);
	return -1;
}

/* ---- commit-graph, multi-pack-index, .rev ------------------------------------------------------ */

/* A commit-graph, multi-pack-index (child: git runs them as processes) or .rev check: its lines,
 * and `bit` when git's check fails. */
static void trailer_result(struct skg_fsck_run *f, int st, const struct skg_lines *lines, int bit, bool child)
{
	const bool failed = st == SKG_TRAILER_BAD || st == SKG_TRAILER_FATAL;
	skg_fsck_bit_lines(f, lines, failed ? (unsigned)bit : 0, child);
	if (failed && child) {
		skg_fsck_child_failed(f, (unsigned)bit,
		                      bit == SKG_CHECK_ERROR_COMMIT_GRAPH
		                          ? "git commit-graph verify failed"
		                          : "git multi-pack-index verify failed");
	} else if (failed) {
		skg_fsck_add_errors(f, bit);
	}
}

/* The object store as `git commit-graph verify` reads commits (struct skg_cgraph_odb). */
struct verify_odb {
	struct skg_fsck_run *f;
	struct skg_odb *odb; /* opened at the first read */
	bool open_failed;
	/* the child process's first read prepares its packs and loads the multi-pack-index: the
	 * lines of that load (NULL: none), sent once per child (shown) */
	const struct skg_lines *midx_lines;
	bool midx_shown;
	bool grafts_read; /* the child's first parse of a commit read the graft file (its lines) */
};

static void ignore_report(void *ctx, const struct skg_report *r)
{
	(void)ctx;
	(void)r; /* the alternates' lines: fsck sends alt_lines before each verify */
}

static int verify_read(void *ctx, const uint8_t *id, unsigned *type, uint8_t **data, size_t *len,
                       struct skg_lines *lines)
{
	struct verify_odb *v = ctx;
	if (!v->midx_shown) {
		/* the child's first read prepares its packs: the multi-pack-index's load, then the pack
		 * directories' (the line of each that does not open) */
		v->midx_shown = true;
		if (v->midx_lines != NULL && v->midx_lines->count > 0) {
			skg_fsck_bit_lines(v->f, lines, SKG_CHECK_ERROR_COMMIT_GRAPH, true);
			skg_lines_clear(lines);
			skg_fsck_bit_lines(v->f, v->midx_lines, 0, true);
		}
		skg_fsck_bit_lines(v->f, lines, SKG_CHECK_ERROR_COMMIT_GRAPH, true);
		skg_lines_clear(lines);
		skg_fsck_pack_dir_lines(v->f);
	}
	if (v->odb == NULL) {
		static const struct skg_sink quiet = {ignore_report, NULL};
		struct skg_error err;
		if (v->open_failed || skg_odb_open_mapped(&v->odb, v->f->repo, &quiet, v->f->on_map,
		                                          v->f->map_ctx, &err) != 0) {
			v->open_failed = true;
			return -1;
		}
	}
	/* the child's lookups go through the multi-pack-index as the check's do (fsck_routed.c),
	 * and die where they do */
	if (skg_fsck_routed(v->f, id)) {
		skg_fsck_bit_lines(v->f, lines, SKG_CHECK_ERROR_COMMIT_GRAPH, true);
		skg_lines_clear(lines);
		if (skg_fsck_midx_dies(v->f, id, true) || skg_fsck_child_dies_bad_packed(v->f, id)) {
			return 2;
		}
	}
	int has = skg_fsck_routed(v->f, id) ? 0 : skg_odb_has(v->odb, id);
	if (has == 0) {
		/* the child's lookup finds it nowhere: the lines of the packs it cannot open, in its two
		 * looks (before and after reprepare_packed_git), as the check's own lookups; 2.39.5 then
		 * dies on the errno a pack that did not open left */
		skg_fsck_bit_lines(v->f, lines, SKG_CHECK_ERROR_COMMIT_GRAPH, true);
		skg_lines_clear(lines);
		skg_fsck_lookup_lines(v->f, id, 2);
		if (skg_fsck_child_dies_errno(v->f, id)) {
			return 2;
		}
	}
	if (has <= 0) {
		return has;
	}
	/* the readers replace the lines: send those so far first */
	skg_fsck_bit_lines(v->f, lines, SKG_CHECK_ERROR_COMMIT_GRAPH, true);
	skg_lines_clear(lines);
	/* a packed copy the pack check found corrupt: the child process reads it afresh and dies */
	if (skg_fsck_child_dies_bad_packed(v->f, id)) {
		return 2;
	}
	uint64_t size = 0;
	int st = skg_odb_info(v->odb, id, type, &size, lines);
	if (st == SKG_STORED_OK) {
		st = skg_odb_content(v->odb, id, data, len, lines);
	}
	switch (st) {
	case SKG_STORED_OK:
		if (*type == SKG_COMMIT && !v->grafts_read) {
			/* the child's first parse of a commit reads the graft file (commit.c
			 * prepare_commit_graft): its deprecation hint and its bad lines once more */
			struct skg_grafts again;
			struct skg_error err;
			v->grafts_read = true;
			skg_fsck_bit_lines(v->f, lines, SKG_CHECK_ERROR_COMMIT_GRAPH, true);
			skg_lines_clear(lines);
			if (skg_repo_grafts(v->f->repo, v->f->no_graft_hint ? 0 : v->f->git_version, &again,
			                    &v->f->rep, &err) == 0) {
				skg_grafts_free(&again);
			}
		}
		return 1;
	case SKG_STORED_FAILED: {
		/* read_object_file: no copy read, but a loose file is there (its header did not
		 * read): git dies naming it (object-file.c), where a missing one is "Could not read" */
		char *path = skg_odb_loose_path(v->odb, id);
		if (path == NULL && errno != ENOMEM && skg_fsck_child_dies_unread_packed(v->f, id)) {
			return 2; /* a packed copy --connectivity-only did not read: git dies reading it */
		}
		if (path == NULL) {
			return errno == ENOMEM ? -1 : 0;
		}
		struct stat lst;
		if (v->f->git_version >= SKG_GIT_2_55 && stat(path, &lst) == 0 && S_ISREG(lst.st_mode) &&
		    lst.st_size == 0) {
			free(
			    path); /* git 2.40+: an empty file is no object ("object file P is empty", a20) */
			return 0;
		}
		char hex[SKG_MAX_HEXSZ + 1];
		skg_to_hex_len(id, v->f->rawsz, hex);
		skg_lines_add(lines, "fatal: ", "loose object %s (stored in %s) is corrupt", hex, path);
		free(path);
		return 2;
	}
	case SKG_STORED_DIES:
		return 2;
	default:
		return -1;
	}
}

static void verify_flush(void *ctx, struct skg_lines *lines)
{
	struct verify_odb *v = ctx;
	skg_fsck_bit_lines(v->f, lines, SKG_CHECK_ERROR_COMMIT_GRAPH, true);
	skg_lines_clear(lines);
}

/* The lines of `git multi-pack-index verify` so far (struct skg_midx_io). */
static void midx_flush(void *ctx, struct skg_lines *lines)
{
	skg_fsck_bit_lines(ctx, lines, SKG_CHECK_ERROR_MULTI_PACK_INDEX, true);
	skg_lines_clear(lines);
}

/* A meter of git 2.55's verify processes (run with --progress when fsck shows progress): the
 * lines so far, then the meter's line where git draws it. */
static void trailer_meter(struct skg_fsck_run *f, unsigned bit, struct skg_lines *lines,
                          enum skg_meter_event what, const char *title, uint64_t value)
{
	skg_fsck_bit_lines(f, lines, bit, true);
	skg_lines_clear(lines);
	switch (what) {
	case SKG_METER_START:
		skg_fsck_meter_start(f, title, value, 0);
		break;
	case SKG_METER_SHOW:
		skg_fsck_meter_display(f, value);
		break;
	case SKG_METER_STOP:
		skg_fsck_meter_stop(f);
		break;
	}
}

static void verify_meter(void *ctx, struct skg_lines *lines, enum skg_meter_event what, const char *title,
                         uint64_t value)
{
	trailer_meter(((struct verify_odb *)ctx)->f, SKG_CHECK_ERROR_COMMIT_GRAPH, lines, what, title, value);
}

static void midx_meter(void *ctx, struct skg_lines *lines, enum skg_meter_event what, const char *title,
                       uint64_t value)
{
	trailer_meter(ctx, SKG_CHECK_ERROR_MULTI_PACK_INDEX, lines, what, title, value);
}

/* The commit-graph of object directory i: fsck's own load, then `git commit-graph verify
 * --object-dir vdir`. 0, or -1 where git dies or the run stops. */
static int check_graph(struct skg_fsck_run *f, size_t i, const char *vdir,
                       const struct skg_cgraph_odb *cg_odb, struct skg_lines *lines)
{
	if (!f->graph_lines_early) {
		/* its lines (those of a load that dies: here, as git's death ends the run) */
		int st =
		    skg_trailer_commit_graph(f->odb_dirs[i], (const char *const *)f->odb_dirs, f->n_odb_dirs,
		                             SKG_TRAILER_LOAD, (unsigned)f->rawsz, f->git_version, lines);
		skg_fsck_lines(f, lines);
		skg_lines_clear(lines);
		if (st == SKG_TRAILER_FATAL) {
			return -1;
		}
	}
	if (f->alt_lines.len > 0) {
		skg_fsck_send(f, f->alt_lines.p, f->alt_lines.len);
	}
	/* the verify process looks for a chain's layers in every object directory (its own
	 * spelling of this one) */
	const char **sources = malloc(f->n_odb_dirs * sizeof(*sources));
	if (sources == NULL) {
		skg_fsck_nomem(f);
		return -1;
	}
	for (size_t d = 0; d < f->n_odb_dirs; d++) {
		sources[d] = d == i ? vdir : f->odb_dirs[d];
	}
	f->child_bits = SKG_CHECK_ERROR_COMMIT_GRAPH;
	f->child_marked = false;
	int vst = skg_trailer_commit_graph_verify(vdir, sources, f->n_odb_dirs, cg_odb, (unsigned)f->rawsz,
	                                          f->git_version, lines);
	f->child_bits = 0;
	free((void *)sources);
	trailer_result(f, vst, lines, SKG_CHECK_ERROR_COMMIT_GRAPH, true);
	return 0;
}

/* Those of every object directory: 0, or -1 where git dies. */
static int check_trailers(struct skg_fsck_run *f)
{
	struct skg_lines *lines = malloc(sizeof(*lines));  /* 16 KiB */
	struct skg_lines *mlines = malloc(sizeof(*lines)); /* a multi-pack-index's load */
	if (lines == NULL || mlines == NULL) {
		free(lines);
		free(mlines);
		skg_fsck_nomem(f);
		return -1;
	}
	int ret = 0;
	struct verify_odb vo = {f, NULL, false, mlines, false, false};
	/* 2.39.5 runs the two verify processes without --progress (they show none on a file) */
	bool meters = f->progress.fn != NULL && f->git_version >= SKG_GIT_2_55;
	const struct skg_cgraph_odb cg_odb = {verify_read, verify_flush, &vo, &f->grafts,
	                                      meters ? verify_meter : NULL};
	const struct skg_midx_io midx_io = {midx_flush, f, f->on_map, f->map_ctx, meters ? midx_meter : NULL};
	/* git fsck loads the commit-graph and multi-pack-index itself (its load errors, paths as it
	 * spells them; a fatal one ends it), then runs `git commit-graph verify --object-dir DIR` for
	 * every object directory, then `git multi-pack-index verify --object-dir DIR` for every one
	 * (builtin/fsck.c: two loops over the sources, 2.39.5 and 2.55.0 alike). They give DIR as the
	 * repository names it (source->path) with 2.55.0, the main directory absolute with 2.39.5.
	 * The multi-pack-index verify names the files and packs by DIR as given; the commit-graph
	 * verify finds the object directory by it and names its files as the repository does
	 * (builtin/commit-graph.c graph_verify: find_odb, then odb->path; a new user's trial, 2.39.5:
	 * `Could not open commit-graph '.git/objects/info/commit-graph'`). */
	for (size_t i = 0; i < f->n_odb_dirs && !skg_fsck_stopped(f) && ret == 0; i++) {
		/* the multi-pack-index's load, as git's processes print it each time they load it: the
		 * commit-graph verify (at its first read of an object) and, with 2.39.5, fsck itself;
		 * core.multiPackIndex / core.commitGraph false: git loads neither, nor runs its verify */
		bool loaded;
		int mst = f->no_midx ? SKG_TRAILER_ABSENT
		                     : skg_trailer_midx_load(f->odb_dirs[i], (unsigned)f->rawsz,
		                                             f->git_version, mlines, &loaded);
		vo.midx_shown = false;
		vo.grafts_read = false;
		vo.midx_lines = mst == SKG_TRAILER_FATAL || f->no_midx ? NULL : mlines;
		if (!f->no_commit_graph) {
			ret = check_graph(f, i, f->odb_dirs[i], &cg_odb, lines);
		}
		if (ret == 0 && mst == SKG_TRAILER_FATAL) {
			skg_fsck_lines(f, mlines);
			ret = -1; /* git died at the first load */
		}
	}
	for (size_t i = 0; i < f->n_odb_dirs && !skg_fsck_stopped(f) && ret == 0 && !f->no_midx; i++) {
		const char *abs = i == 0 ? f->repo->objects_dir : f->odb_dirs[i];
		const char *vdir = f->git_version >= SKG_GIT_2_55 ? f->odb_dirs[i] : abs;
		bool loaded;
		/* its load did not die: the first loop stopped */
		(void)skg_trailer_midx_load(f->odb_dirs[i], (unsigned)f->rawsz, f->git_version, mlines,
		                            &loaded);
		if (f->git_version < SKG_GIT_2_55) {
			/* git 2.39.5's fsck's own load (after the loose objects; its lines come here);
			 * 2.55.0's two came before the objects (midx_loads) */
			skg_fsck_lines(f, mlines);
		} else if (f->alt_lines.len > 0) {
			/* 2.55's `git multi-pack-index verify` reads the alternates too */
			skg_fsck_send(f, f->alt_lines.p, f->alt_lines.len);
		}
		f->child_bits = SKG_CHECK_ERROR_MULTI_PACK_INDEX;
		f->child_marked = false;
		int vst = skg_trailer_midx_verify(vdir, &midx_io, (unsigned)f->rawsz, f->git_version, lines);
		f->child_bits = 0;
		trailer_result(f, vst, lines, SKG_CHECK_ERROR_MULTI_PACK_INDEX, true);
	}
	skg_odb_free(vo.odb);
	free(lines);
	free(mlines);
	return ret;
}

/* ---- the check ----------------------------------------------------------------------------------- */

/* git 2.48+'s fsck_refs (on by default there, --references): `git refs verify` as a child, first,
 * its lines on stderr and ERROR_REFS when it fails (also when it dies: its fatal line, then the
 * check goes on). 0, or -1 when the run stops (out of memory). */
static int check_refs(struct skg_fsck_run *f)
{
	struct skg_refs_verify_options o = {f->fopt.strict, false};
	struct skg_error err;
	skg_fsck_meter_start(f, "Checking ref database", 1, 0);
	int r = skg_refs_verify(f->repo, &o, &f->rep, &err);
	if (r < 0 && err.code != SKG_E_GIT) {
		skg_fsck_reader_error(f, &err);
		return -1;
	}
	if (r < 0) {
		struct skg_fsck_meta meta = {SKG_R_FSCK, NULL, SKG_NONE, NULL, SKG_CHECK_ERROR_REFS};
		skg_fsck_err_line(f, &meta, "fatal: %s", err.msg);
		f->refs_died = true;
	}
	if (r != 0) {
		skg_fsck_add_errors(f, SKG_CHECK_ERROR_REFS);
	}
	skg_fsck_meter_display(f, 1);
	skg_fsck_meter_stop(f);
	return skg_fsck_stopped(f) ? -1 : 0;
}

/* skg_lines_flush.fn of the .rev checks, whose lines can outgrow struct skg_lines: out (their errors
 * with exit bit 64: each makes git's check fail), then cleared */
static void lines_out(void *ctx, struct skg_lines *lines)
{
	skg_fsck_bit_lines(ctx, lines, SKG_CHECK_ERROR_PACK_REV_INDEX, false);
	skg_lines_clear(lines);
}

/*
 * The reverse indexes, as git 2.41+'s fsck checks them (builtin/fsck.c check_pack_rev_indexes,
 * 0d30feef3c, 5a6072f631; git 2.39 does not look at them), after the index and before the
 * connectivity: each pack whose idx does not open, its line again (open_pack_index) and "unable to
 * load rev-index for pack 'P'", then each pack's .rev in git's list of packs (repo_for_each_pack,
 * sorted at git's last re-reading: skg_fsck_packs_sorted; skg_trailer_pack_rev); exit bit 64. 0,
 * or -1 when the run stops.
 */
static int check_revs(struct skg_fsck_run *f)
{
	for (size_t i = 0; i < f->n_unusable; i++) {
		const struct skg_fsck_unusable *u = &f->unusable[i];
		if (u->pack != NULL) {
			if (u->line != NULL) {
				skg_fsck_err_line(f, NULL, "%s", u->line);
			}
			skg_fsck_err_bits(f, SKG_CHECK_ERROR_PACK_REV_INDEX,
			                  "error: unable to load rev-index for pack '%s'", u->pack);
		}
	}
	struct skg_lines *lines = malloc(sizeof(*lines)); /* 16 KiB */
	if (lines == NULL) {
		skg_fsck_nomem(f);
		return -1;
	}
	const struct skg_lines_flush flush = {lines_out, f};
	size_t n = 0;
	struct skg_fsck_pack_ref *packs = NULL;
	if (skg_fsck_packs_sorted(f, &packs, &n) != 0) {
		free(lines);
		return -1;
	}
	skg_lines_clear(lines);
	int worst = SKG_TRAILER_ABSENT;
	for (size_t i = 0; i < n && !skg_fsck_stopped(f); i++) {
		int st = skg_trailer_pack_rev(packs[i].idx, (unsigned)f->rawsz, lines, &flush);
		worst = st != SKG_TRAILER_ABSENT && (worst == SKG_TRAILER_ABSENT || st > worst) ? st : worst;
	}
	skg_fsck_free_packs(packs, n);
	trailer_result(f, worst, lines, SKG_CHECK_ERROR_PACK_REV_INDEX, false);
	free(lines);
	return skg_fsck_stopped(f) ? -1 : 0;
}

/* git's hashfile_checksum_valid() of the file at path, when it opens (git_open; else true). */
static bool bitmap_sum_ok(struct skg_fsck_run *f, const char *path)
{
	char *data = NULL;
	size_t len = 0;
	if (skg_read_file(path, SIZE_MAX / 2, &data, &len) != 0) {
		if (errno == ENOMEM) {
			skg_fsck_nomem(f);
		}
		return true; /* "It is OK to not have the file." */
	}
	bool ok = skg_trailer_checksum_ok((const uint8_t *)data, len, (unsigned)f->rawsz);
	free(data);
	return ok;
}

static void bitmap_check(struct skg_fsck_run *f, const char *path)
{
	if (path == NULL) {
		skg_fsck_nomem(f);
	} else if (!bitmap_sum_ok(f, path)) {
		struct skg_fsck_meta meta = {SKG_R_FSCK, NULL, SKG_NONE, NULL, SKG_CHECK_ERROR_BITMAP};
		skg_fsck_err_line(f, &meta, "error: bitmap file '%s' has invalid checksum", path);
		skg_fsck_add_errors(f, SKG_CHECK_ERROR_BITMAP);
	}
}

/*
 * The reachability bitmaps, as git 2.41+'s fsck checks them (756f1bcd29; verify_bitmap_files,
 * after the reverse indexes): the multi-pack-index's of each object directory whose
 * multi-pack-index loads (skg_midx_bitmap_path), then each pack's
 * (PACK.bitmap) in git's pack order; a file that is there and whose trailing SHA-1 is not that of
 * the rest is "error: bitmap file 'P' has invalid checksum" (exit bit 0200). 0, or -1 when the run
 * stops.
 */
static int check_bitmaps(struct skg_fsck_run *f)
{
	struct skg_lines *lines = malloc(sizeof(*lines)); /* 16 KiB */
	if (lines == NULL) {
		skg_fsck_nomem(f);
		return -1;
	}
	for (size_t i = 0; i < f->n_odb_dirs && !skg_fsck_stopped(f); i++) {
		/* as git loads it (none, or one that does not load: no bitmap; its lines came with the
		 * loads): its checksum names the bitmap (a chain: its top layer's) */
		char *path = NULL;
		if (skg_midx_bitmap_path(f->odb_dirs[i], (unsigned)f->rawsz, f->git_version, &path) != 0) {
			skg_fsck_nomem(f);
		} else if (path != NULL) {
			bitmap_check(f, path);
		}
		free(path);
	}
	free(lines);
	size_t n;
	struct skg_fsck_pack_ref *packs;
	if (skg_fsck_list_packs(f, false, &packs, &n) != 0) {
		return -1;
	}
	for (size_t i = 0; i < n && !skg_fsck_stopped(f); i++) {
		size_t len = strlen(packs[i].pack);
		struct skg_buf path = {0};
		skg_buf_addf(&path, "%.*s.bitmap", (int)(len > 5 ? len - 5 : len), packs[i].pack);
		bitmap_check(f, path.failed ? NULL : path.p);
		skg_buf_release(&path);
	}
	skg_fsck_free_packs(packs, n);
	return skg_fsck_stopped(f) ? -1 : 0;
}

/* The working directory as a descriptor to come back to (fchdir: a path may be too long for chdir,
 * or renamed meanwhile); -1 where there is none (Windows, or it cannot be opened: then its path). */
static int open_cwd(void)
{
#if defined(_WIN32)
	return -1;
#elif defined(O_PATH)
	return open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
#else
	return open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
#endif
}

static int back_to(int fd, const char *path)
{
#if !defined(_WIN32)
	if (fd >= 0) {
		return fchdir(fd);
	}
#endif
	(void)fd;
	return path != NULL ? chdir(path) : 0;
}

/* The check after the repository is open, in the top of its work tree: 0, or -1 where git dies or
 * the run stops. */
static int run(struct skg_fsck_run *f)
{
	struct skg_error err;
	f->fopt.rawsz = f->rawsz;
	f->graph = new_graph(f);
	if (f->graph == NULL) {
		skg_fsck_nomem(f);
		return -1;
	}
	f->big_file = SKG_FSCK_BIG_FILE;
	if (skg_repo_config(f->repo, skg_fsck_on_config, f, &err) != 0) {
		if (!f->config_died && !skg_fsck_stopped(f)) { /* else on_config sent git's line */
			skg_fsck_reader_error(f, &err);
		}
		return -1;
	}
	if (skg_fsck_promisor_remote(f) != 0 || (f->check_refs && check_refs(f) != 0)) {
		return -1;
	}
	if (skg_repo_grafts(f->repo, f->no_graft_hint ? 0 : f->git_version, &f->grafts, &f->rep, &err) != 0) {
		skg_fsck_reader_error(f, &err);
		return -1;
	}
	if (shallow_commits(f->graph, &f->grafts) != 0) {
		skg_fsck_nomem(f);
		return -1;
	}
	/* the object directories: the repository's, then its alternates */
	if (add_odb(f, f->repo->objects_dir_display) != 0 ||
	    skg_for_each_alternate(f->repo, add_odb, f, &f->rep, &err) < 0) {
		skg_fsck_nomem(f);
		return -1;
	}
	int errors = f->errors;
	/* git 2.55 reads the objects its refs and each worktree's HEAD name before the objects (its
	 * snapshot of the refs, builtin/fsck.c snapshot_refs); what that finds is worked out here
	 * after the object check, whose records (and those of the .gitmodules pass) wait until then */
	bool v255 = f->git_version >= SKG_GIT_2_55;
	if (v255 && skg_fsck_tip_order(f) != 0) {
		return -1; /* reported */
	}
	if (skg_fsck_graph_open(f) != 0) {
		return -1;
	}
	graph_loads(f);
	if (v255 && skg_fsck_snapshot_dies(f)) {
		return -1; /* git 2.55 died reading what a ref names, before the objects */
	}
	/* held until it is known whether the first pass's records stand (wt_passes), then until the
	 * checks of the .gitmodules / .gitattributes blobs git's pass makes are put among them
	 * (skg_fsck_check_specials) */
	f->hold = true;
	if (wt_passes(f, errors, scan(f)) != 0 || skg_fsck_midx_routed(f) != 0) {
		return -1;
	}
	skg_fsck_retyped_first(f);
	/* the promisor objects first: fsck_finish leaves a .gitmodules / .gitattributes blob it cannot
	 * read alone when it is one (fsck.c fsck_blobs, is_promisor_object) */
	if (skg_fsck_stopped(f) || skg_fsck_promisor(f) != 0) {
		f->hold = false;
		skg_buf_release(&f->held_out);
		return -1;
	}
	if (!f->connectivity_only) {
		skg_fsck_check_specials(f);
	}
	/* git's first ref (mark_object) asks is_promisor_object, which collects the promisor objects:
	 * where that stops at an object it cannot parse, its lines (or its death) come here */
	skg_fsck_promisor_lines(f);
	if (skg_fsck_stopped(f)) {
		f->hold = false;
		skg_buf_release(&f->held_out);
		return -1;
	}
	/* git's fsck_finish died reading a .gitmodules / .gitattributes blob: its lines, held after the
	 * object check's, go out after what git 2.55's snapshot of the refs printed before them */
	bool finish_died = f->died;
	f->died = false;
	f->hold = false;
	struct skg_buf held = f->held_out;
	f->held_out = (struct skg_buf){0};
	if (!v255) {
		if (held.len > 0) {
			skg_fsck_send(f, held.p, held.len);
		}
		skg_buf_release(&held);
	} else {
		if (f->n_tips > 0) {
			skg_fsck_pack_dir_lines(f); /* the snapshot's first read of an object */
		}
		int r = skg_fsck_ref_tips(f);
		if (r == 0) {
			skg_fsck_graph_lines(f); /* no ref's commit parsed: the object check's first */
		}
		if (r == 0 && f->n_tips > 0) {
			/* git 2.55 read the alternates and the pack directories at the snapshot's first
			 * read of an object, and reads them again after it (builtin/fsck.c
			 * odb_reprepare), before the objects */
			if (f->alt_lines.len > 0) {
				skg_fsck_send(f, f->alt_lines.p, f->alt_lines.len);
			}
			skg_fsck_pack_dir_lines(f);
		}
		if (r == 0 && held.len > 0) {
			skg_fsck_send(f, held.p, held.len);
		}
		skg_buf_release(&held);
		if (r != 0) {
			return -1; /* git died reading what a ref names, before the objects */
		}
	}
	if (finish_died) {
		f->died = true;
		return -1;
	}
	if (skg_fsck_roots(f) != 0 || (v255 && (check_revs(f) != 0 || check_bitmaps(f) != 0)) ||
	    skg_fsck_walk(f) != 0) {
		return -1;
	}
	return check_trailers(f);
}

int skg_fsck_graph_compatible(struct skg_fsck_run *f)
{
	/* commit-graph.c prepare_commit_graph, commit_graph_compatible: none with core.commitGraph
	 * false, grafts or shallow commits (fsck turns replace refs off) */
	if (f->no_commit_graph || f->grafts.n > 0) {
		return 0;
	}
	/* is_repository_shallow: a shallow file that opens, empty or not */
	char *shallow = skg_concat3(f->repo->common_dir, "/shallow", "");
	if (shallow == NULL) {
		skg_fsck_nomem(f);
		return -1;
	}
	int fd = open(shallow, O_RDONLY);
	free(shallow);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	return 1;
}

int skg_fsck_graph_open(struct skg_fsck_run *f)
{
	int compatible = f->connectivity_only ? skg_fsck_graph_compatible(f) : 0;
	if (compatible <= 0) {
		return compatible;
	}
	if (f->git_version < SKG_GIT_2_55) {
		/* git 2.39 parses the objects its refs name at process_refs, from the object database */
		if (skg_fsck_tip_order(f) != 0) {
			return -1;
		}
		f->cg_tips = f->tips;
		f->n_cg_tips = f->n_tips;
		f->tips = NULL;
		f->n_tips = f->cap_tips = 0;
	}
	if (skg_trailer_graph_open((const char *const *)f->odb_dirs, f->n_odb_dirs, (unsigned)f->rawsz,
	                           f->git_version, &f->cg, &f->cg_layers, &f->cg_n, &f->cg_dir) != 0) {
		skg_fsck_nomem(f);
		return -1;
	}
	return 0;
}

static void run_free(struct skg_fsck_run *f)
{
	free(f->routed);
	free(f->midx_bad);
	free(f->graph_load);
	skg_trailer_graph_close(f->cg);
	free(f->cg_tips);
	for (size_t i = 0; i < f->n_odb_dirs; i++) {
		free(f->odb_dirs[i]);
	}
	free(f->odb_dirs);
	free(f->skip);
	free(f->tips);
	free(f->snap_read);
	free(f->bad_trees);
	free(f->retyped);
	free(f->specials);
	free(f->sparse);
	release_bad_packed(f->bad_packed, &f->n_bad_packed);
	free(f->bad_packed);
	release_bad_packed(f->ext_base, &f->n_ext_base);
	free(f->ext_base);
	release_bad_packed(f->conn_mismatch, &f->n_conn_mismatch);
	free(f->conn_mismatch);
	for (size_t i = 0; i < f->n_unusable; i++) {
		free(f->unusable[i].line);
		free(f->unusable[i].idx);
		free(f->unusable[i].pack);
		free(f->unusable[i].mids);
	}
	free(f->unusable);
	skg_typeorder_free(f->types);
	free(f->pack_lines);
	skg_buf_release(&f->pack_text);
	skg_buf_release(&f->held_out);
	skg_grafts_free(&f->grafts);
	skg_buf_release(&f->alt_lines);
	skg_buf_release(&f->fatal);
	for (size_t i = 0; i < f->n_usable_packs; i++) {
		free(f->usable_packs[i].idx);
		free(f->usable_packs[i].pack);
	}
	free(f->usable_packs);
	skg_graph_free(f->graph);
	skg_repo_free(f->repo);
	pthread_mutex_destroy(&f->lock);
	free(f);
}

int skg_check_repo(const char *git_dir, const struct skg_check_options *opt, const struct skg_sink *sink,
                   struct skg_check_result *res, struct skg_error *err)
{
	SKG_ERR_OR_LOCAL(err);
	struct skg_check_options defaults;
	if (opt == NULL) {
		skg_check_options_default(&defaults);
		opt = &defaults;
	}
	if (res != NULL) {
		res->exit_status = 0;
	}
	struct skg_fsck_run *f = calloc(1, sizeof(*f));
	if (f == NULL) {
		return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	if (pthread_mutex_init(&f->lock, NULL) != 0) {
		free(f);
		return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	atomic_init(&f->failed, 0);
	f->sink = sink;
	f->progress = opt->progress;
	f->cancel = opt->cancel;
	f->on_map = opt->on_map;
	f->map_ctx = opt->map_ctx;
	f->show_dangling = opt->show_dangling;
	f->show_unreachable = opt->show_unreachable;
	f->show_root = opt->show_root;
	f->show_tags = opt->show_tags;
	f->name_objects = opt->name_objects;
	f->connectivity_only = opt->connectivity_only;
	f->keep_cache = opt->keep_cache;
	f->lost_found = opt->lost_found;
	f->check_refs = opt->check_refs;
	f->wt_broken = -1;
	f->git_version = opt->git_version == SKG_GIT_2_39 ? SKG_GIT_2_39 : SKG_GIT_2_55;
	/* as git: with --lost-found, objects only the reflogs keep are lost too */
	f->include_reflogs = opt->include_reflogs && !opt->lost_found;
	f->threads = opt->threads;
	if (f->threads == 0) {
		f->threads = skg_online_cpus();
	}
	if (f->threads > SKG_CHECK_MAX_THREADS) {
		/* each thread holds a reader and its buffers: 50,000 took 3 GB (an embedder's trial) */
		f->threads = SKG_CHECK_MAX_THREADS;
	}
	f->rep.report = skg_fsck_on_report;
	f->rep.ctx = f;
	skg_fsck_options_init(&f->fopt, opt->strict);
	f->fopt.date_digits = f->git_version >= SKG_GIT_2_55;
	f->fopt.newer_checks = f->git_version >= SKG_GIT_2_55; /* largePathname, tag gpgsig */
	f->fopt.found = skg_fsck_on_found;

	char *old_cwd = NULL;
	int old_fd = -1;
	bool moved = false;
	int ret = 0;
	struct skg_error oerr;
	if (skg_repo_open_formats(&f->repo, git_dir, f->git_version, &f->rep, &oerr) != 0) {
		skg_fsck_reader_error(f, &oerr);
		ret = -1;
	} else if ((f->rawsz = skg_format_rawsz(f->format = f->repo->object_format)) == 0) {
		skg_fsck_fail(f, SKG_E_UNSUPPORTED, 0, "unknown object format");
		ret = -1;
	} else if (f->repo->git_cwd != NULL &&
	           (f->repo->cwd == NULL || strcmp(f->repo->git_cwd, f->repo->cwd) != 0)) {
		/* as git after its setup: in the top of the work tree (paths in messages are relative to
		 * it), for the duration of the check; the working directory is left alone where git's is
		 * already that (a git_dir given, a bare repository, the top of a work tree) */
		old_fd = open_cwd();
		old_cwd = old_fd >= 0 ? NULL : getcwd(NULL, 0);
		if (old_fd < 0 && old_cwd == NULL && errno == ENOMEM) {
			skg_fsck_nomem(f);
			ret = -1;
		} else if (chdir(f->repo->git_cwd) != 0) {
			skg_fsck_err_line(f, NULL, "fatal: cannot change to '%s': %s", f->repo->git_cwd,
			                  strerror(errno));
			ret = -1;
		} else {
			moved = true;
		}
	}
	if (ret == 0) {
		ret = run(f);
	}
	if (moved && back_to(old_fd, old_cwd) != 0 && ret == 0) {
		skg_fsck_fail(f, SKG_E_IO, errno, "cannot change back to the working directory");
		ret = -1;
	}
	if (old_fd >= 0) {
		close(old_fd);
	}
	free(old_cwd);
	if (atomic_load(&f->failed) != 0) {
		if (err != NULL) {
			*err = f->fail;
		}
		ret = -1;
	} else if (ret != 0) {
		(void)skg_fail_sys(err, SKG_E_GIT, 0, "%s",
		                   f->fatal.len > 0 ? skg_buf_str(&f->fatal) : "fsck died");
	} else if (res != NULL) {
		res->exit_status = f->errors;
	}
	run_free(f);
	return ret != 0 ? -1 : 0;
}
