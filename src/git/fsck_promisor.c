/*
 * fsck_promisor.c - promisor objects in a repository check (fsck_run.h), as git 2.39.5 knows them:
 * whether the repository has a promisor remote (promisor-remote.c promisor_remote_config,
 * promisor_remote_init, repo_has_promisor_remote; setup.c handle_extension_v0 for
 * extensions.partialClone) and, if it has, which objects are promisor objects (packfile.c
 * is_promisor_object, add_promisor_object): every object of a pack with a .promisor file beside it,
 * and every object such an object links to (a commit's tree and parents, a tree's entries, a tag's
 * object). The walk does not go on from them and never reports them missing (graph.h); a ref or
 * reflog entry naming one that is not there is no error (fsck_refs.c). git collects them by parsing
 * each object of those packs, and its collection ends at the first it cannot parse: a pack that does
 * not open, a copy that does not read (git dies there: "packed object ... is corrupt"), one that
 * hashes to another ID; the objects from there on are no promisor objects (a partial clone whose
 * pack is damaged gets its missing objects reported; a new user's trial, 2026-12-07).
 */
#include <stdlib.h>
#include <string.h>

#include "cgraph.h"
#include "config.h"
#include "fsck_run.h"
#include "pack.h"
#include "pack_file.h"
#include "repo.h"
#include "trailer.h"

/* A remote name git takes as a promisor remote: promisor_remote_new refuses one starting with '/'
 * (with a warning, left out here). */
static bool remote_name_ok(const char *name, size_t len)
{
	return len == 0 || name[0] != '/';
}

void skg_fsck_promisor_config(struct skg_fsck_run *f, const char *key, const char *value)
{
	/* promisor_remote_config: remote.<name>.promisor true, or any remote.<name>.partialclonefilter
	 * (parse_config_key: the name is what lies between the first and the last dot, maybe empty) */
	if (strncmp(key, "remote.", 7) != 0) {
		return;
	}
	const char *name = key + 7, *last = strrchr(name, '.');
	const char *sub = last != NULL ? last + 1 : name;
	size_t len = last != NULL ? (size_t)(last - name) : 0;
	if (strcmp(sub, "promisor") == 0) {
		/* git_config_bool dies on a value that is no boolean: taken as false here */
		if (skg_config_bool(value) > 0 && remote_name_ok(name, len)) {
			f->promisor_remote = true;
		}
	} else if (strcmp(sub, "partialclonefilter") == 0 && remote_name_ok(name, len)) {
		f->promisor_remote = true;
	}
}

/* extensions.partialClone, which git reads with the repository's format from <common>/config only */
static int partial_clone_cb(void *ctx, const char *key, const char *value)
{
	struct skg_fsck_run *f = ctx;
	if (strcmp(key, "extensions.partialclone") == 0 && value != NULL &&
	    remote_name_ok(value, strlen(value))) {
		f->promisor_remote = true;
	}
	return 0;
}

/* The links of a loose tree (not kept in the graph), made promisor objects. */
static void mark_link(void *ctx, const uint8_t *id, unsigned type)
{
	struct skg_fsck_run *f = ctx;
	(void)type;
	(void)skg_graph_set_promisor(f->graph, id, false, NULL);
}

/* The commit-graph git 2.53+'s parse there takes a commit from (lookup_commit_in_graph), opened
 * at the first object the check found no sound copy of. */
struct collect_graph {
	bool tried;
	struct skg_cgraph_open *cg;
	const struct skg_cgraph_layer *layers;
	size_t n;
};

static void no_parent(void *ctx, const uint8_t *id)
{
	(void)ctx;
	(void)id;
}

static bool in_graph(struct skg_fsck_run *f, struct collect_graph *g, const uint8_t *id)
{
	if (!g->tried) {
		g->tried = true;
		size_t dir;
		if (skg_fsck_graph_compatible(f) == 1 &&
		    skg_trailer_graph_open((const char *const *)f->odb_dirs, f->n_odb_dirs,
		                           (unsigned)f->rawsz, f->git_version, &g->cg, &g->layers, &g->n,
		                           &dir) != 0) {
			skg_fsck_nomem(f);
		}
	}
	uint8_t tree[SKG_MAX_RAWSZ];
	char why[96];
	return g->n > 0 &&
	       skg_cgraph_parse(g->layers, g->n, id, true, tree, no_parent, NULL, why, sizeof(why)) == 1;
}

/* Whether git's parse in add_promisor_object gives `id`: one the check read a sound copy of (git
 * parsed it, or reads it again without fault); one whose copy the check found bad as git 2.53+
 * parses it (no hash, no read of a blob, a commit from the commit-graph); not one whose pack does
 * not open (git finds no copy). */
static bool collect_parses(struct skg_fsck_run *f, struct collect_graph *g, const uint8_t *id)
{
	if (f->connectivity_only && f->git_version < SKG_GIT_2_55 && skg_fsck_has_bad_copy(f, id)) {
		return false; /* git parsed nothing before: it reads and hashes this copy */
	}
	if (skg_graph_checked(f->graph, id)) {
		return true;
	}
	return f->git_version >= SKG_GIT_2_55 &&
	       (skg_fsck_bad_copy_parses_unhashed(f, id) || in_graph(f, g, id));
}

struct at_offset {
	uint64_t off;
	uint64_t k;
};

static int cmp_at_offset(const void *a, const void *b)
{
	const struct at_offset *x = a, *y = b;
	return x->off < y->off ? -1 : x->off > y->off;
}

/*
 * The objects of one promisor pack's idx in pack order (is_promisor_object asks
 * for_each_packed_object for FOR_EACH_OBJECT_PACK_ORDER), and what they link to, as
 * add_promisor_object adds them: each one git parses (object.c parse_object: an object its check
 * parsed is not read again; one it did not is read, and hashed by git 2.39: collect_parses) until
 * the first it cannot, which ends the whole collection (the callback's non-zero return). False
 * where the collection stops (f->promisor_stop); a pack whose idx does not open, or that git's
 * check_packed_git_idx refuses (size, version, fan-out), is passed over (open_pack_index:
 * pack_errors).
 */
static bool mark_pack(struct skg_fsck_run *f, const char *idx_path, struct skg_loose_reader *reader,
                      struct collect_graph *g)
{
	struct skg_file idx = {0};
	uint32_t version;
	if (skg_file_map(&idx, idx_path, f->on_map, f->map_ctx, NULL) != 0) {
		return true;
	}
	if (skg_pk_git_idx_check_as(idx.data, (size_t)idx.len, (unsigned)f->rawsz, &version) !=
	    SKG_PK_GIT_OK) {
		skg_file_unmap(&idx); /* check_packed_git_idx refuses it */
		return true;
	}
	bool go_on = true;
	uint64_t n = skg_pk_idx_count(idx.data, (size_t)idx.len), m = 0;
	struct at_offset *order = malloc((n > 0 ? n : 1) * sizeof(*order));
	if (order == NULL) {
		skg_file_unmap(&idx);
		skg_fsck_nomem(f);
		return false;
	}
	for (uint64_t k = 0; k < n; k++) {
		const uint8_t *id;
		uint64_t off;
		if (!skg_pk_idx_entry_as(idx.data, (size_t)idx.len, (unsigned)f->rawsz, k, &id, &off)) {
			break;
		}
		order[m++] = (struct at_offset){off, k};
	}
	qsort(order, m, sizeof(*order), cmp_at_offset);
	for (uint64_t i = 0; i < m && go_on; i++) {
		const uint8_t *id;
		uint64_t off;
		(void)skg_pk_idx_entry_as(idx.data, (size_t)idx.len, (unsigned)f->rawsz, order[i].k, &id,
		                          &off);
		uint8_t oid[SKG_MAX_RAWSZ];
		memcpy(oid, id, f->rawsz);
		if (!collect_parses(f, g, oid)) {
			memcpy(f->promisor_stop, oid, f->rawsz);
			f->promisor_stopped = true;
			go_on = false;
			break;
		}
		unsigned source;
		if (skg_graph_set_promisor(f->graph, oid, true, &source) == 1) {
			/* a loose copy of it was checked first: its links are read again */
			skg_fsck_tree_links(f, reader, source, oid, mark_link, f);
		}
	}
	free(order);
	skg_file_unmap(&idx);
	return go_on;
}

int skg_fsck_promisor_remote(struct skg_fsck_run *f)
{
	struct skg_error err;
	struct skg_buf path = {0};
	skg_buf_addf(&path, "%s/config", f->repo->common_dir);
	if (path.failed) {
		skg_fsck_nomem(f);
		return -1;
	}
	/* a config that does not parse stopped git's setup (and the repository's open) already */
	int r = skg_config_read_file(skg_buf_str(&path), skg_buf_str(&path), partial_clone_cb, f, &err);
	skg_buf_release(&path);
	if (r < 0 && err.code == SKG_E_NOMEM) {
		skg_fsck_nomem(f);
		return -1;
	}
	return 0;
}

int skg_fsck_promisor(struct skg_fsck_run *f)
{
	f->promisor_stopped = false;
	if (!f->promisor_remote) {
		return 0;
	}
	struct skg_loose_options lopt;
	skg_loose_options_default(&lopt);
	lopt.rawsz = f->rawsz;
	lopt.no_hash = true; /* every loose object was hashed already */
	struct skg_loose_reader *reader = skg_loose_reader_new(&lopt);
	struct skg_fsck_pack_ref *packs = NULL;
	size_t n = 0;
	if (reader == NULL || skg_fsck_packs_sorted(f, &packs, &n) != 0) {
		skg_loose_reader_free(reader);
		skg_fsck_nomem(f);
		return -1;
	}
	/* for_each_packed_object(..., FOR_EACH_OBJECT_PROMISOR_ONLY): git's list of packs (those whose
	 * .pack does not open too: only their idx is read first), each with a .promisor file */
	bool go_on = true;
	struct collect_graph g = {false, NULL, NULL, 0};
	for (size_t i = 0; i < n && go_on && !skg_fsck_stopped(f); i++) {
		const int promisor = skg_fsck_promisor_pack(packs[i].pack);
		if (promisor < 0) {
			skg_fsck_nomem(f);
			break;
		}
		if (promisor == 1) {
			go_on = mark_pack(f, packs[i].idx, reader, &g);
		}
	}
	skg_trailer_graph_close(g.cg);
	skg_fsck_free_packs(packs, n);
	skg_loose_reader_free(reader);
	return skg_fsck_stopped(f) ? -1 : 0;
}

void skg_fsck_promisor_lines(struct skg_fsck_run *f)
{
	if (!f->promisor_stopped || f->died || skg_fsck_stopped(f)) {
		return;
	}
	const uint8_t *id = f->promisor_stop;
	if (!skg_fsck_has_bad_copy(f, id)) {
		/* a pack that does not open lists it: the lines of each look there */
		skg_fsck_parse_lookup_lines(f, id, skg_fsck_in_memory_type(f, id));
	}
	/* a copy that does not read (git dies) or hashes to another ID ("hash mismatch") */
	(void)skg_fsck_ref_dies_bad_packed(f, id);
}
