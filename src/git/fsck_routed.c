/*
 * fsck_routed.c - the objects git's object store cannot read again though the check read them
 * (fsck_run.h). git's lookups ask the repository's multi-pack-index first and take the pack it
 * names for an object (packfile.c find_pack_entry, midx.c fill_midx_entry); the packs it lists are
 * never searched otherwise. When that pack does not open (deleted, cut short, not matching its idx),
 * the object does not read for git, though the check read a copy of it in another pack: two packs
 * under one multi-pack-index that hold the same objects, as `git repack -a` without -d or `git
 * maintenance run --task=incremental-repack` leave them. Found by a fresh user's trial: git said
 * `invalid sha1 pointer` and `Could not read` where sha1kit read the other copy.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fsck_run.h"
#include "pack.h"
#include "pack_file.h"
#include "trailer.h"

struct file_key {
	dev_t dev;
	ino_t ino;
};

static bool same_file(const struct file_key *a, const struct stat *st)
{
	return a->dev == st->st_dev && a->ino == st->st_ino;
}

/* The .pack of a name the multi-pack-index lists ("pack-X.idx") in OBJDIR/pack; NULL when out of
 * memory. */
static char *midx_pack_path(const char *objdir, const char *name)
{
	size_t n = strlen(name);
	size_t stem = n > 4 && strcmp(name + n - 4, ".idx") == 0 ? n - 4 : n;
	struct skg_buf b = {0};
	skg_buf_addf(&b, "%s/pack/%.*s.pack", objdir, (int)stem, name);
	if (b.failed) {
		skg_buf_release(&b);
		return NULL;
	}
	return b.p;
}

/* Whether git finds `id` outside the multi-pack-index: a loose file, or a usable pack it does not
 * list that has it (an alternate's, or one made after it). */
static bool found_elsewhere(struct skg_fsck_run *f, const uint8_t *id, const struct skg_file *others,
                            size_t n_others)
{
	for (size_t i = 0; i < n_others; i++) {
		uint64_t off;
		if (others[i].data != NULL &&
		    skg_pk_idx_find_as(others[i].data, (size_t)others[i].len, (unsigned)f->rawsz, id, &off)) {
			return true;
		}
	}
	return skg_fsck_loose_file_exists(f, id);
}

/* A pack a multi-pack-index lists: its object directory, its place there, the file (when there) and
 * whether git can read objects from it (the check read it). */
struct midx_pack {
	size_t dir;
	uint32_t place;
	struct file_key key;
	bool there, bad;
};

/* The packs every object directory's multi-pack-index lists (git loads each source's; alternates
 * too), into *out (*n); 0, or -1 when out of memory. */
static int list_midx_packs(struct skg_fsck_run *f, const struct stat *usable, const bool *usable_ok,
                           struct midx_pack **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	size_t cap = 0;
	for (size_t d = 0; d < f->n_odb_dirs; d++) {
		char **names = NULL;
		size_t nn = 0;
		if (skg_midx_pack_names(f->odb_dirs[d], (unsigned)f->rawsz, f->git_version, &names, &nn, NULL,
		                        0, NULL, NULL) != 0) {
			return -1;
		}
		int ret = 0;
		for (size_t p = 0; p < nn; p++) {
			char *path = ret == 0 ? midx_pack_path(f->odb_dirs[d], names[p]) : NULL;
			if (*n == cap) {
				struct midx_pack *v = realloc(*out, (cap ? 2 * cap : 16) * sizeof(*v));
				if (v != NULL) {
					*out = v;
					cap = cap ? 2 * cap : 16;
				}
			}
			if (path == NULL || *n == cap) {
				ret = -1;
			}
			if (ret == 0) {
				struct stat st;
				struct midx_pack m = {d, (uint32_t)p, {0, 0}, stat(path, &st) == 0, true};
				if (m.there) {
					m.key = (struct file_key){st.st_dev, st.st_ino};
				}
				for (size_t i = 0; i < f->n_usable_packs && m.there && m.bad; i++) {
					m.bad = !(usable_ok[i] && same_file(&m.key, &usable[i]));
				}
				(*out)[(*n)++] = m;
			}
			free(path);
			free(names[p]);
		}
		free(names);
		if (ret != 0) {
			return -1;
		}
	}
	return 0;
}

/* The IDs every multi-pack-index places in a pack git can read, sorted, into *ids (*n); 0, or -1
 * when out of memory. */
static int readable_ids(struct skg_fsck_run *f, const struct midx_pack *mp, size_t nmp, uint8_t **ids,
                        size_t *n)
{
	*ids = NULL;
	*n = 0;
	for (size_t k = 0; k < nmp; k++) {
		uint8_t *v = NULL;
		size_t m = 0;
		if (mp[k].bad) {
			continue;
		}
		if (skg_midx_pack_ids(f->odb_dirs[mp[k].dir], (unsigned)f->rawsz, f->git_version, mp[k].place,
		                      &v, &m) != 0) {
			return -1;
		}
		uint8_t *w = m > 0 ? realloc(*ids, (*n + m) * f->rawsz) : *ids;
		if (m > 0 && w == NULL) {
			free(v);
			return -1;
		}
		*ids = w;
		if (m > 0) {
			memcpy(*ids + *n * f->rawsz, v, m * f->rawsz);
		}
		*n += m;
		free(v);
	}
	if (*n > 1) {
		qsort(*ids, *n, f->rawsz, skg_id_cmp(f->rawsz));
	}
	return 0;
}

/*
 * The IDs of the readable packs the multi-pack-index of object directory `dir` lists (usable
 * packs whose in_dir[] is true) that its lookup does not find (not listed, or out of order there):
 * git looks for such a pack's objects through the multi-pack-index alone (packfile.c
 * prepare_packed_git_one leaves the pack out of its own list), so it cannot read them. One lookup
 * of all of them; appended to *lost (*n). 0, or -1 when out of memory.
 */
static int add_unlisted(struct skg_fsck_run *f, size_t dir, const bool *in_dir, uint8_t **lost, size_t *n)
{
	uint8_t *ids = NULL;
	size_t nids = 0, cap = 0;
	int ret = 0;
	for (size_t i = 0; i < f->n_usable_packs && ret == 0; i++) {
		struct skg_file idx = {0};
		if (!in_dir[i] ||
		    skg_file_map(&idx, f->usable_packs[i].idx, f->on_map, f->map_ctx, NULL) != 0) {
			continue; /* (one the check read that went away since: none) */
		}
		uint64_t count = skg_pk_idx_count(idx.data, (size_t)idx.len);
		if (nids + count > cap) {
			size_t want = nids + (size_t)count;
			uint8_t *v =
			    count < SIZE_MAX / f->rawsz / 2 ? realloc(ids, want * f->rawsz + 1) : NULL;
			ret = v == NULL ? -1 : 0;
			ids = v != NULL ? v : ids;
			cap = v != NULL ? want : cap;
		}
		for (uint64_t k = 0; k < count && ret == 0; k++) {
			const uint8_t *id;
			uint64_t off;
			if (skg_pk_idx_entry_as(idx.data, (size_t)idx.len, (unsigned)f->rawsz, k, &id,
			                        &off)) {
				memcpy(ids + nids++ * f->rawsz, id, f->rawsz);
			}
		}
		skg_file_unmap(&idx);
	}
	uint32_t *pack_of = ret == 0 && nids > 0 ? malloc(nids * sizeof(*pack_of)) : NULL;
	char **names = NULL;
	size_t nn = 0, nlost = 0;
	if (nids > 0 &&
	    (pack_of == NULL || skg_midx_pack_names(f->odb_dirs[dir], (unsigned)f->rawsz, f->git_version,
	                                            &names, &nn, ids, nids, pack_of, NULL) != 0)) {
		ret = -1;
	}
	for (size_t k = 0; k < nn; k++) {
		free(names[k]);
	}
	free(names);
	for (size_t k = 0; k < nids && ret == 0; k++) {
		nlost += pack_of[k] == UINT32_MAX;
	}
	uint8_t *v = ret == 0 && nlost > 0 ? realloc(*lost, (*n + nlost) * f->rawsz) : NULL;
	if (ret == 0 && nlost > 0 && v == NULL) {
		ret = -1;
	}
	for (size_t k = 0; k < nids && ret == 0 && nlost > 0; k++) {
		if (pack_of[k] == UINT32_MAX) {
			*lost = v;
			memcpy(*lost + (*n)++ * f->rawsz, ids + k * f->rawsz, f->rawsz);
		}
	}
	free(pack_of);
	free(ids);
	return ret;
}

/*
 * A packed copy the check found corrupt (not one that reads back with another ID), in a pack a
 * multi-pack-index lists: when that multi-pack-index's lookup of its ID lands in that pack, git
 * reads that copy and no other, so the ID goes to *ids (*n). 0, or -1 when out of memory.
 */
static int add_bad_copy(struct skg_fsck_run *f, const struct skg_fsck_bad_packed *b,
                        const struct midx_pack *mp, size_t nmp, uint8_t **ids, size_t *n)
{
	struct stat st;
	if (b->mismatch || stat(b->pack, &st) != 0) {
		return 0;
	}
	for (size_t k = 0; k < nmp; k++) {
		if (mp[k].bad || !mp[k].there || !same_file(&mp[k].key, &st)) {
			continue;
		}
		char **names = NULL;
		size_t nn = 0;
		uint32_t place = UINT32_MAX;
		int ret = skg_midx_pack_names(f->odb_dirs[mp[k].dir], (unsigned)f->rawsz, f->git_version,
		                              &names, &nn, b->id, 1, &place, NULL);
		for (size_t j = 0; j < nn; j++) {
			free(names[j]);
		}
		free(names);
		if (ret != 0) {
			return -1;
		}
		if (place != mp[k].place) {
			continue;
		}
		uint8_t *v = realloc(*ids, (*n + 1) * f->rawsz);
		if (v == NULL) {
			return -1;
		}
		*ids = v;
		memcpy(*ids + (*n)++ * f->rawsz, b->id, f->rawsz);
		return 0;
	}
	return 0;
}

int skg_fsck_midx_routed(struct skg_fsck_run *f)
{
	if (f->n_odb_dirs == 0 || f->no_midx) {
		return 0;
	}
	int ret = 0;
	struct skg_file *others = calloc(f->n_usable_packs > 0 ? f->n_usable_packs : 1, sizeof(*others));
	struct stat *usable = calloc(f->n_usable_packs > 0 ? f->n_usable_packs : 1, sizeof(*usable));
	bool *usable_ok = calloc(f->n_usable_packs > 0 ? f->n_usable_packs : 1, sizeof(*usable_ok));
	struct midx_pack *mp = NULL;
	size_t nmp = 0, n_others = 0, n_good = 0;
	uint8_t *good = NULL, *lost = NULL, *lost_copies = NULL;
	size_t n_lost = 0, n_lost_copies = 0;
	bool any_bad = false;
	if (others == NULL || usable == NULL || usable_ok == NULL) {
		ret = -1;
		goto out;
	}
	for (size_t i = 0; i < f->n_usable_packs; i++) {
		usable_ok[i] = stat(f->usable_packs[i].pack, &usable[i]) == 0;
	}
	/* the packs the multi-pack-indexes list that git cannot read objects from: not among the packs
	 * the check read */
	if (list_midx_packs(f, usable, usable_ok, &mp, &nmp) != 0) {
		ret = -1;
		goto out;
	}
	for (size_t k = 0; k < nmp; k++) {
		any_bad = any_bad || mp[k].bad;
	}
	/* and the objects of the packs a multi-pack-index lists that its own lookup does not find */
	bool *in_dir = calloc(f->n_usable_packs + 1, sizeof(*in_dir));
	ret = in_dir == NULL ? -1 : 0;
	for (size_t d = 0; d < f->n_odb_dirs && ret == 0 && nmp > 0; d++) {
		bool any = false;
		for (size_t i = 0; i < f->n_usable_packs; i++) {
			in_dir[i] = false;
			for (size_t k = 0; k < nmp && usable_ok[i] && !in_dir[i]; k++) {
				in_dir[i] = mp[k].dir == d && !mp[k].bad && same_file(&mp[k].key, &usable[i]);
			}
			any = any || in_dir[i];
		}
		if (any) {
			ret = add_unlisted(f, d, in_dir, &lost, &n_lost);
		}
	}
	free(in_dir);
	/* and the corrupt copies the multi-pack-index sends git's lookups to: git reads no other copy */
	for (size_t b = 0; b < f->n_bad_packed && ret == 0; b++) {
		ret = add_bad_copy(f, &f->bad_packed[b], mp, nmp, &lost_copies, &n_lost_copies);
	}
	/* and the IDs whose lookup dies: git dies there whatever other copy there is */
	for (size_t d = 0; d < f->n_odb_dirs && ret == 0; d++) {
		struct skg_midx_bad_id *v = NULL;
		size_t m = 0;
		if (skg_midx_bad_pack_ids(f->odb_dirs[d], (unsigned)f->rawsz, f->git_version, &v, &m) != 0) {
			ret = -1;
		}
		struct skg_midx_bad_id *w =
		    m > 0 ? realloc(f->midx_bad, (f->n_midx_bad + m) * sizeof(*w)) : NULL;
		f->midx_bad = w != NULL ? w : f->midx_bad;
		if (m > 0 && w == NULL) {
			ret = -1;
		}
		for (size_t k = 0; k < m && ret == 0; k++) {
			f->midx_bad[f->n_midx_bad++] = v[k];
		}
		free(v);
	}
	if (f->n_midx_bad > 1) {
		qsort(f->midx_bad, f->n_midx_bad, sizeof(*f->midx_bad), skg_midx_bad_id_cmp);
	}
	if (ret != 0 || (!any_bad && n_lost == 0 && f->n_midx_bad == 0 && n_lost_copies == 0)) {
		goto out;
	}
	/* the usable packs no multi-pack-index lists: git searches those after them */
	for (size_t i = 0; i < f->n_usable_packs; i++) {
		bool in_midx = false;
		for (size_t k = 0; k < nmp && !in_midx && usable_ok[i]; k++) {
			in_midx = !mp[k].bad && same_file(&mp[k].key, &usable[i]);
		}
		if (!in_midx && skg_file_map(&others[n_others], f->usable_packs[i].idx, f->on_map, f->map_ctx,
		                             NULL) == 0) {
			n_others++;
		}
	}
	/* what another multi-pack-index (an alternate's) finds in a pack git can read */
	if (readable_ids(f, mp, nmp, &good, &n_good) != 0) {
		ret = -1;
		goto out;
	}
	for (size_t k = 0; k <= nmp && ret == 0; k++) {
		uint8_t *ids = NULL;
		size_t n = 0;
		if (k == nmp) {
			/* the lost IDs last */
			ids = lost;
			n = n_lost;
			lost = NULL;
		} else if (!mp[k].bad) {
			continue;
		} else if (skg_midx_pack_ids(f->odb_dirs[mp[k].dir], (unsigned)f->rawsz, f->git_version,
		                             mp[k].place, &ids, &n) != 0) {
			ret = -1;
			break;
		}
		uint8_t *v = realloc(f->routed, (f->n_routed + n) * f->rawsz + 1);
		if (v == NULL) {
			free(ids);
			ret = -1;
			break;
		}
		f->routed = v;
		for (size_t j = 0; j < n; j++) {
			const uint8_t *id = ids + j * f->rawsz;
			if ((n_good == 0 ||
			     bsearch(id, good, n_good, f->rawsz, skg_id_cmp(f->rawsz)) == NULL) &&
			    !found_elsewhere(f, id, others, n_others)) {
				memcpy(f->routed + f->n_routed++ * f->rawsz, id, f->rawsz);
			}
		}
		free(ids);
	}
	size_t extra = f->n_midx_bad + n_lost_copies;
	uint8_t *v = ret == 0 && extra > 0 ? realloc(f->routed, (f->n_routed + extra) * f->rawsz) : NULL;
	if (ret == 0 && extra > 0 && v == NULL) {
		ret = -1;
	} else if (v != NULL) {
		f->routed = v;
		for (size_t k = 0; k < f->n_midx_bad; k++) {
			memcpy(f->routed + f->n_routed++ * f->rawsz, f->midx_bad[k].id, f->rawsz);
		}
		if (n_lost_copies > 0) {
			memcpy(f->routed + f->n_routed * f->rawsz, lost_copies, n_lost_copies * f->rawsz);
			f->n_routed += n_lost_copies;
		}
	}
	if (ret == 0 && f->n_routed > 0) {
		/* sorted, each ID once (a lost ID may sit in a pack git cannot read as well) */
		qsort(f->routed, f->n_routed, f->rawsz, skg_id_cmp(f->rawsz));
		size_t u = 0;
		for (size_t k = 0; k < f->n_routed; k++) {
			if (u == 0 ||
			    memcmp(f->routed + (u - 1) * f->rawsz, f->routed + k * f->rawsz, f->rawsz) != 0) {
				memmove(f->routed + u * f->rawsz, f->routed + k * f->rawsz, f->rawsz);
				u++;
			}
		}
		f->n_routed = u;
		for (size_t k = 0; k < f->n_routed; k++) {
			/* git's walk reads a tree again (its buffer was freed after the object check); with
			 * --connectivity-only it reads every commit and tag it reaches too, but for the
			 * commits it takes from the commit-graph */
			unsigned type;
			const uint8_t *id = f->routed + k * f->rawsz;
			if (!skg_graph_has(f->graph, id, &type) ||
			    (type == SKG_TREE ||
			     (f->connectivity_only &&
			      (type == SKG_TAG || (type == SKG_COMMIT && !skg_fsck_graph_has(f, id)))))) {
				skg_graph_set_noread(f->graph, id); /* (one not read: a tree's record of a
				                                     * corrupt copy only) */
			}
		}
	}
out:
	for (size_t i = 0; i < n_others; i++) {
		skg_file_unmap(&others[i]);
	}
	free(good);
	free(lost);
	free(lost_copies);
	free(mp);
	free(others);
	free(usable_ok);
	free(usable);
	if (ret != 0) {
		skg_fsck_nomem(f);
	}
	return ret;
}

bool skg_fsck_midx_dies(struct skg_fsck_run *f, const uint8_t *id, bool child)
{
	struct skg_midx_bad_id key = {{0}, 0, 0, false};
	memcpy(key.id, id, f->rawsz);
	const struct skg_midx_bad_id *b =
	    f->n_midx_bad > 0 ? bsearch(&key, f->midx_bad, f->n_midx_bad, sizeof(key), skg_midx_bad_id_cmp)
	                      : NULL;
	if (b == NULL) {
		return false;
	}
	if (b->past_end) {
		skg_fsck_err_line(f, NULL, "fatal: offset beyond end of packfile (truncated pack?)");
	} else {
		skg_fsck_err_line(f, NULL, "fatal: bad pack-int-id: %" PRIu32 " (%" PRIu32 " total packs)",
		                  b->pack_int_id, b->total);
	}
	if (!child) {
		f->died = true;
	}
	return true;
}

bool skg_fsck_routed(const struct skg_fsck_run *f, const uint8_t *id)
{
	return f->n_routed > 0 && bsearch(id, f->routed, f->n_routed, f->rawsz, skg_id_cmp(f->rawsz)) != NULL;
}
