/*
 * fsck_promisor.c - promisor objects in a repository check (fsck_run.h), as git 2.39.5 knows them:
 * whether the repository has a promisor remote (promisor-remote.c promisor_remote_config,
 * promisor_remote_init, repo_has_promisor_remote; setup.c handle_extension_v0 for
 * extensions.partialClone) and, if it has, which objects are promisor objects (packfile.c
 * is_promisor_object, add_promisor_object): every object of a pack with a .promisor file beside it,
 * and every object such an object links to (a commit's tree and parents, a tree's entries, a tag's
 * object). The walk does not go on from them and never reports them missing (graph.h); a ref or
 * reflog entry naming one that is not there is no error (fsck_refs.c).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "fsck_run.h"
#include "pack.h"
#include "pack_file.h"
#include "repo.h"

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

/* The objects of one promisor pack's idx, and what they link to. */
static void mark_pack(struct skg_fsck_run *f, const struct skg_fsck_pack_paths *p,
                      struct skg_loose_reader *reader)
{
	struct skg_file idx = {0};
	if (skg_file_map(&idx, p->idx, f->on_map, f->map_ctx, NULL) != 0) {
		return;
	}
	uint64_t n = skg_pk_idx_count(idx.data, (size_t)idx.len);
	for (uint64_t k = 0; k < n; k++) {
		const uint8_t *id;
		uint64_t off;
		if (!skg_pk_idx_entry_as(idx.data, (size_t)idx.len, (unsigned)f->rawsz, k, &id, &off)) {
			break;
		}
		uint8_t oid[SKG_MAX_RAWSZ];
		memcpy(oid, id, f->rawsz);
		unsigned source;
		if (skg_graph_set_promisor(f->graph, oid, true, &source) == 1) {
			/* a loose copy of it was checked first: its links are read again */
			skg_fsck_tree_links(f, reader, source, oid, mark_link, f);
		}
	}
	skg_file_unmap(&idx);
}

int skg_fsck_promisor(struct skg_fsck_run *f)
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
	if (!f->promisor_remote) {
		return 0;
	}
	struct skg_loose_options lopt;
	skg_loose_options_default(&lopt);
	lopt.rawsz = f->rawsz;
	lopt.no_hash = true; /* every loose object was hashed already */
	struct skg_loose_reader *reader = skg_loose_reader_new(&lopt);
	if (reader == NULL) {
		skg_fsck_nomem(f);
		return -1;
	}
	/* for_each_packed_object(..., FOR_EACH_OBJECT_PROMISOR_ONLY): the packs git opened the idx of,
	 * with a .promisor file (add_packed_git: access(F_OK)) */
	for (size_t i = 0; i < f->n_usable_packs && !skg_fsck_stopped(f); i++) {
		const char *pack = f->usable_packs[i].pack;
		size_t len = strlen(pack);
		struct skg_buf pr = {0};
		skg_buf_addf(&pr, "%.*s.promisor", (int)(len > 5 ? len - 5 : len), pack);
		if (pr.failed) {
			skg_fsck_nomem(f);
			break;
		}
		if (access(skg_buf_str(&pr), F_OK) == 0) {
			mark_pack(f, &f->usable_packs[i], reader);
		}
		skg_buf_release(&pr);
	}
	skg_loose_reader_free(reader);
	return skg_fsck_stopped(f) ? -1 : 0;
}
