/*
 * odb.c - an object of a repository by its ID: the loose file first, then the packs (odb.h).
 * Sources: git v2.39.5 object-file.c (loose paths objects/xx/<38 hex>), packfile.c
 * (find_pack_entry over the idx files in objects/pack, unpack_entry); gitformat-pack(5).
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sha1kit/git_pack.h>

#include "alternates.h"
#include "loose.h"
#include "odb.h"
#include "pack.h"
#include "pack_cache.h"
#include "repo.h"
#include "util.h"

static int read_loose(const char *objects_dir, size_t rawsz, const uint8_t *id, unsigned *type,
                      uint8_t **data, size_t *len)
{
	char hex[SKG_MAX_HEXSZ + 1];
	skg_to_hex_len(id, rawsz, hex);
	struct skg_buf path = {0};
	skg_buf_addf(&path, "%s/%.2s/%s", objects_dir, hex, hex + 2);
	if (path.failed) {
		skg_buf_release(&path);
		return -1;
	}
	int found = 0;
	struct skg_loose_options lopt;
	skg_loose_options_default(&lopt);
	lopt.rawsz = rawsz; /* the object's format: its file name's digits and its ID's hash */
	struct skg_loose_reader *r = skg_loose_reader_new(&lopt);
	if (r == NULL) {
		skg_buf_release(&path);
		return -1;
	}
	struct skg_loose_object o;
	struct skg_lines lines = {0};
	int st = skg_loose_read(r, skg_buf_str(&path), id, NULL, NULL, &o, &lines);
	if (st == SKG_LOOSE_OK && o.content != NULL) {
		*type = o.type;
		found = 1;
		if (data != NULL) {
			*data = malloc(o.size + 1);
			if (*data == NULL) {
				found = -1;
			} else {
				memcpy(*data, o.content, (size_t)o.size);
				*len = (size_t)o.size;
			}
		}
	}
	skg_lines_clear(&lines);
	skg_loose_reader_free(r);
	skg_buf_release(&path);
	return found;
}

/* Object id in the pack of the idx at idx_path (…/pack-X.idx, its pack …/pack-X.pack). */
static int read_packed(const char *idx_path, size_t rawsz, const uint8_t *id, unsigned *type, uint8_t **data,
                       size_t *len, void (*on_map)(void *, const void *, uint64_t, const char *, bool),
                       void *map_ctx)
{
	struct skg_file idx = {0}, pack = {0};
	struct skg_error e;
	int found = 0;
	size_t n = strlen(idx_path);
	char *pack_path = malloc(n + 2);
	if (pack_path == NULL) {
		return -1;
	}
	memcpy(pack_path, idx_path, n - 4);
	memcpy(pack_path + n - 4, ".pack", 6);
	uint64_t off;
	if (skg_file_map(&idx, idx_path, on_map, map_ctx, &e) == 0 &&
	    skg_pk_idx_find_as(idx.data, (size_t)idx.len, (unsigned)rawsz, id, &off) &&
	    skg_file_map(&pack, pack_path, on_map, map_ctx, &e) == 0 &&
	    skg_pk_git_usable_as(idx.data, (size_t)idx.len, pack.data, pack.len, (unsigned)rawsz)) {
		uint8_t *out = NULL;
		uint64_t out_len = 0;
		struct skg_pk_error pe;
		int rc =
		    skg_pk_read_object_cached(pack.data, pack.len, idx.data, (size_t)idx.len, (unsigned)rawsz,
		                              off, SIZE_MAX - 1, NULL, type, &out, &out_len, &pe);
		if (rc == 0) {
			found = 1;
			if (data != NULL) {
				*data = out;
				*len = (size_t)out_len;
			} else {
				free(out);
			}
		} else if (pe.code == SKG_E_NOMEM) {
			found = -1;
		}
	}
	skg_file_unmap(&pack);
	skg_file_unmap(&idx);
	free(pack_path);
	return found;
}

int skg_odb_read(const char *objects_dir, size_t rawsz, const uint8_t *id, unsigned *type, uint8_t **data,
                 size_t *len,
                 void (*on_map)(void *ctx, const void *addr, uint64_t len, const char *path, bool mapped),
                 void *map_ctx)
{
	if (rawsz != SKG_MAX_RAWSZ) {
		rawsz = SKG_RAWSZ;
	}
	if (skg_is_empty_tree(id, rawsz)) {
		*type = SKG_TREE;
		if (data != NULL) {
			*data = malloc(1);
			*len = 0;
			return *data != NULL ? 1 : -1;
		}
		return 1;
	}
	if (objects_dir == NULL) {
		return 0;
	}
	int found = read_loose(objects_dir, rawsz, id, type, data, len);
	if (found != 0) {
		return found;
	}
	char *dir = skg_path_join(objects_dir, "pack");
	if (dir == NULL) {
		return -1;
	}
	DIR *d = opendir(dir);
	struct dirent *de;
	while (d != NULL && found == 0 && (de = readdir(d)) != NULL) {
		if (!skg_ends_with(de->d_name, ".idx")) { /* git: any *.idx, not only pack-*.idx */
			continue;
		}
		char *p = skg_path_join(dir, de->d_name);
		found = p == NULL ? -1 : read_packed(p, rawsz, id, type, data, len, on_map, map_ctx);
		free(p);
	}
	if (d != NULL) {
		closedir(d);
	}
	free(dir);
	return found;
}

/* ---- An open object store (struct skg_odb) ----------------------------------------------------- */

/* Sources: git v2.39.5 object-file.c (do_oid_object_info_extended: the packs first, then the
 * loose files; quick_has_loose and odb_loose_cache: a listing of each objects/xx directory read
 * once; open_loose_object: the first object directory whose file opens), packfile.c
 * (prepare_packed_git over the object directory and its alternates, sort_pack: local packs first,
 * then the younger first; is_pack_valid; mark_bad_packed_object: a copy that fails to read is
 * passed over; the delta base cache of core.deltaBaseCacheLimit, 96 MiB). */

struct odb_pack {
	struct skg_file idx, pack;
	char *idx_path, *pack_path;
	char *display; /* the pack as git names it: its object directory's display, /pack/NAME */
	int64_t mtime;
	bool local;
};

struct loose_dir {
	bool loaded;
	uint8_t *ids; /* n IDs of the store's rawsz bytes, sorted */
	size_t n;
};

struct odb_dir {
	char *path;    /* absolute, to open files */
	char *display; /* as git spells it in "stored in PATH" */
	struct loose_dir loose[256];
};

#define BASE_LIMIT ((uint64_t)96 << 20)

struct skg_odb {
	unsigned rawsz; /* bytes of an object ID: 20, or 32 in a SHA-256 repository */
	struct odb_dir *dirs;
	size_t ndirs;
	struct odb_pack *packs;
	size_t npacks;
	struct skg_loose_reader *reader;
	/* the delta base cache of the pack reads (its pack: the one being read) */
	struct skg_pk_cache cache;
	/* the copy skg_odb_info found, for skg_odb_content */
	uint8_t last_id[SKG_MAX_RAWSZ];
	bool have_last;
	uint8_t *last_data; /* packed: the content; loose: the file */
	size_t last_len;
	bool last_loose;
	char *last_path;
	/* told of each pack and idx mapped (skg_file_map's on_map; NULL: none) */
	void (*on_map)(void *ctx, const void *addr, uint64_t len, const char *path, bool mapped);
	void *map_ctx;
};

static int cmp_pack(const void *a_, const void *b_)
{
	const struct odb_pack *a = a_, *b = b_;
	if (a->local != b->local) {
		return a->local ? -1 : 1;
	}
	return a->mtime < b->mtime ? 1 : a->mtime > b->mtime ? -1 : 0;
}

static int add_dir(struct skg_odb *odb, const char *path, const char *display)
{
	struct odb_dir *d = realloc(odb->dirs, (odb->ndirs + 1) * sizeof(*d));
	if (d == NULL) {
		return -1;
	}
	odb->dirs = d;
	d = &odb->dirs[odb->ndirs];
	memset(d, 0, sizeof(*d));
	d->path = strdup(path);
	d->display = strdup(display);
	if (d->path == NULL || d->display == NULL) {
		free(d->path);
		free(d->display);
		return -1;
	}
	odb->ndirs++;
	return 0;
}

static int on_alternate(void *ctx, const char *dir)
{
	return add_dir(ctx, dir, dir) != 0 ? 1 : 0;
}

/* The usable packs of object directory k into odb->packs. -1: out of memory. */
static int add_packs(struct skg_odb *odb, size_t k, const char *objects_dir)
{
	char *dir = skg_path_join(objects_dir, "pack");
	if (dir == NULL) {
		return -1;
	}
	DIR *d = opendir(dir);
	int rc = 0;
	struct dirent *de;
	while (rc == 0 && d != NULL && (de = readdir(d)) != NULL) {
		if (!skg_ends_with(de->d_name, ".idx")) { /* git: any *.idx, not only pack-*.idx */
			continue;
		}
		struct odb_pack p = {0};
		p.local = k == 0;
		p.idx_path = skg_path_join(dir, de->d_name);
		size_t n = p.idx_path != NULL ? strlen(p.idx_path) : 0;
		p.pack_path = n > 0 ? malloc(n + 2) : NULL;
		if (p.pack_path == NULL) {
			free(p.idx_path);
			rc = -1;
			break;
		}
		memcpy(p.pack_path, p.idx_path, n - 4);
		memcpy(p.pack_path + n - 4, ".pack", 6);
		struct skg_buf shown = {0};
		skg_buf_addf(&shown, "%s/pack/%.*s.pack", odb->dirs[k].display, (int)(strlen(de->d_name) - 4),
		             de->d_name);
		p.display = shown.failed ? NULL : strdup(skg_buf_str(&shown));
		skg_buf_release(&shown);
		if (p.display == NULL) {
			free(p.idx_path);
			free(p.pack_path);
			rc = -1;
			break;
		}
		struct skg_error e = {0};
		struct stat st;
		bool ok = skg_file_map(&p.idx, p.idx_path, odb->on_map, odb->map_ctx, &e) == 0 &&
		          skg_file_map(&p.pack, p.pack_path, odb->on_map, odb->map_ctx, &e) == 0 &&
		          skg_pk_git_usable_as(p.idx.data, (size_t)p.idx.len, p.pack.data, p.pack.len,
		                               odb->rawsz) &&
		          stat(p.pack_path, &st) == 0;
		if (!ok && e.code == SKG_E_NOMEM) {
			rc = -1; /* a pack git opens must not go missing for want of memory */
		} else if (ok) {
			p.mtime = (int64_t)st.st_mtime;
			struct odb_pack *np = realloc(odb->packs, (odb->npacks + 1) * sizeof(*np));
			if (np == NULL) {
				rc = -1;
			} else {
				odb->packs = np;
				odb->packs[odb->npacks++] = p;
				continue;
			}
		}
		skg_file_unmap(&p.pack);
		skg_file_unmap(&p.idx);
		free(p.idx_path);
		free(p.pack_path);
		free(p.display);
	}
	if (d != NULL) {
		closedir(d);
	}
	free(dir);
	return rc;
}

void skg_odb_free(struct skg_odb *odb)
{
	if (odb == NULL) {
		return;
	}
	for (size_t i = 0; i < odb->ndirs; i++) {
		for (unsigned k = 0; k < 256; k++) {
			free(odb->dirs[i].loose[k].ids);
		}
		free(odb->dirs[i].path);
		free(odb->dirs[i].display);
	}
	free(odb->dirs);
	for (size_t i = 0; i < odb->npacks; i++) {
		skg_file_unmap(&odb->packs[i].pack);
		skg_file_unmap(&odb->packs[i].idx);
		free(odb->packs[i].idx_path);
		free(odb->packs[i].pack_path);
		free(odb->packs[i].display);
	}
	free(odb->packs);
	skg_pk_cache_release(&odb->cache);
	free(odb->last_data);
	free(odb->last_path);
	skg_loose_reader_free(odb->reader);
	free(odb);
}

int skg_odb_open(struct skg_odb **out, const struct skg_repo *repo, const struct skg_sink *sink,
                 struct skg_error *err)
{
	return skg_odb_open_mapped(out, repo, sink, NULL, NULL, err);
}

int skg_odb_open_mapped(struct skg_odb **out, const struct skg_repo *repo, const struct skg_sink *sink,
                        void (*on_map)(void *ctx, const void *addr, uint64_t len, const char *path,
                                       bool mapped),
                        void *map_ctx, struct skg_error *err)
{
	*out = NULL;
	struct skg_odb *odb = calloc(1, sizeof(*odb));
	if (odb != NULL) {
		odb->rawsz = (unsigned)skg_format_rawsz(skg_repo_object_format(repo));
		odb->on_map = on_map;
		odb->map_ctx = map_ctx;
	}
	if (odb == NULL || (odb->reader = skg_loose_reader_new(NULL)) == NULL ||
	    skg_pk_cache_init(&odb->cache, BASE_LIMIT) != 0 ||
	    add_dir(odb, repo->objects_dir, repo->objects_dir_display) != 0) {
		skg_odb_free(odb);
		return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	int rc = skg_for_each_alternate(repo, on_alternate, odb, sink, err);
	if (rc != 0) {
		skg_odb_free(odb);
		return rc > 0 ? skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory") : -1;
	}
	for (size_t k = 0; k < odb->ndirs; k++) {
		if (add_packs(odb, k, odb->dirs[k].path) != 0) {
			skg_odb_free(odb);
			return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
		}
	}
	if (odb->npacks > 1) {
		qsort(odb->packs, odb->npacks, sizeof(*odb->packs), cmp_pack);
	}
	*out = odb;
	return 0;
}

/* The listing of <dir>/xx (git's odb_loose_cache): names of 2 * rawsz - 2 hex digits (38 or 62).
 * -1: out of memory. */
static int load_loose(struct odb_dir *d, unsigned k, unsigned rawsz)
{
	struct loose_dir *l = &d->loose[k];
	l->loaded = true;
	struct skg_buf path = {0};
	skg_buf_addf(&path, "%s/%02x", d->path, k);
	if (path.failed) {
		skg_buf_release(&path);
		return -1;
	}
	DIR *dir = opendir(skg_buf_str(&path));
	skg_buf_release(&path);
	if (dir == NULL) {
		return 0;
	}
	size_t cap = 0;
	int rc = 0;
	struct dirent *de;
	while ((de = readdir(dir)) != NULL) {
		const char *n = de->d_name;
		uint8_t id[SKG_MAX_RAWSZ];
		id[0] = (uint8_t)k;
		bool hex = strlen(n) == 2 * (size_t)rawsz - 2;
		for (size_t i = 0; hex && i < rawsz - 1; i++) {
			int hi = skg_hexval(n[2 * i]), lo = skg_hexval(n[2 * i + 1]);
			hex = hi >= 0 && lo >= 0;
			id[i + 1] = (uint8_t)(hi << 4 | (lo & 15));
		}
		if (!hex) {
			continue;
		}
		if (l->n == cap) {
			cap = cap ? 2 * cap : 16;
			uint8_t *ids = realloc(l->ids, cap * rawsz);
			if (ids == NULL) {
				rc = -1;
				break;
			}
			l->ids = ids;
		}
		memcpy(l->ids + l->n++ * rawsz, id, rawsz);
	}
	closedir(dir);
	if (l->n > 1) {
		qsort(l->ids, l->n, rawsz, skg_id_cmp(rawsz));
	}
	return rc;
}

int skg_odb_has(struct skg_odb *odb, const uint8_t *id)
{
	uint64_t off;
	for (size_t i = 0; i < odb->npacks; i++) {
		if (skg_pk_idx_find_as(odb->packs[i].idx.data, (size_t)odb->packs[i].idx.len, odb->rawsz, id,
		                       &off)) {
			return 1;
		}
	}
	for (size_t i = 0; i < odb->ndirs; i++) {
		struct loose_dir *l = &odb->dirs[i].loose[id[0]];
		if (!l->loaded && load_loose(&odb->dirs[i], id[0], odb->rawsz) != 0) {
			return -1;
		}
		if (l->n > 0 && bsearch(id, l->ids, l->n, odb->rawsz, skg_id_cmp(odb->rawsz)) != NULL) {
			return 1;
		}
	}
	return 0;
}

static void forget_last(struct skg_odb *odb)
{
	free(odb->last_data);
	free(odb->last_path);
	odb->last_data = NULL;
	odb->last_path = NULL;
	odb->have_last = false;
}

/* The loose file of hex in object directory i: its path to open and its path as git shows it.
 * 0, or -1 out of memory (both released). */
static int loose_paths(const struct skg_odb *odb, size_t i, const char *hex, struct skg_buf *path,
                       struct skg_buf *shown)
{
	skg_buf_addf(path, "%s/%.2s/%s", odb->dirs[i].path, hex, hex + 2);
	skg_buf_addf(shown, "%s/%.2s/%s", odb->dirs[i].display, hex, hex + 2);
	if (path->failed || shown->failed) {
		skg_buf_release(path);
		skg_buf_release(shown);
		return -1;
	}
	return 0;
}

int skg_odb_info(struct skg_odb *odb, const uint8_t *id, unsigned *type, uint64_t *size,
                 struct skg_lines *lines)
{
	forget_last(odb);
	skg_lines_clear(lines);
	const struct skg_pk_base_cache cache = skg_pk_cache_iface(&odb->cache);
	uint64_t off;
	for (size_t i = 0; i < odb->npacks; i++) {
		const struct odb_pack *p = &odb->packs[i];
		if (!skg_pk_idx_find_as(p->idx.data, (size_t)p->idx.len, odb->rawsz, id, &off)) {
			continue;
		}
		uint8_t *out = NULL;
		uint64_t out_len = 0;
		struct skg_pk_error pe;
		odb->cache.pack = (uint32_t)i;
		int rc = skg_pk_read_object_cached(p->pack.data, p->pack.len, p->idx.data, (size_t)p->idx.len,
		                                   odb->rawsz, off, SIZE_MAX - 1, &cache, type, &out,
		                                   &out_len, &pe);
		if (rc == 0) {
			memcpy(odb->last_id, id, odb->rawsz);
			odb->have_last = true;
			odb->last_data = out;
			odb->last_len = (size_t)out_len;
			odb->last_loose = false;
			*size = out_len;
			return SKG_STORED_OK;
		}
		if (rc < 0 && pe.code == SKG_E_NOMEM) {
			return SKG_STORED_NOMEM;
		}
		/* a copy that does not read is passed over, as git marks it bad */
	}
	char hex[SKG_MAX_HEXSZ + 1];
	skg_to_hex_len(id, odb->rawsz, hex);
	for (size_t i = 0; i < odb->ndirs; i++) {
		struct skg_buf path = {0}, shown = {0};
		if (loose_paths(odb, i, hex, &path, &shown) != 0) {
			return SKG_STORED_NOMEM;
		}
		char *data = NULL;
		size_t len = 0;
		if (skg_read_file(skg_buf_str(&path), SIZE_MAX - 1, &data, &len) != 0) {
			int e = errno;
			skg_buf_release(&path);
			skg_buf_release(&shown);
			if (e == ENOMEM) {
				return SKG_STORED_NOMEM;
			}
			continue; /* git opens the first one that opens */
		}
		skg_buf_release(&path);
		int st = skg_loose_stored_info(odb->reader, (const uint8_t *)data, len, skg_buf_str(&shown),
		                               hex, type, size, lines);
		if (st != SKG_STORED_OK) {
			free(data);
			skg_buf_release(&shown);
			return st;
		}
		memcpy(odb->last_id, id, odb->rawsz);
		odb->have_last = true;
		odb->last_data = (uint8_t *)data;
		odb->last_len = len;
		odb->last_loose = true;
		odb->last_path = strdup(skg_buf_str(&shown));
		skg_buf_release(&shown);
		if (odb->last_path == NULL) {
			forget_last(odb);
			return SKG_STORED_NOMEM;
		}
		return SKG_STORED_OK;
	}
	return SKG_STORED_FAILED;
}

int skg_odb_content(struct skg_odb *odb, const uint8_t *id, uint8_t **data, size_t *len,
                    struct skg_lines *lines)
{
	skg_lines_clear(lines);
	*data = NULL;
	*len = 0;
	if (!odb->have_last || memcmp(odb->last_id, id, odb->rawsz) != 0) {
		return SKG_STORED_FAILED;
	}
	if (!odb->last_loose) {
		*data = odb->last_data;
		*len = odb->last_len;
		odb->last_data = NULL;
		forget_last(odb);
		return SKG_STORED_OK;
	}
	char hex[SKG_MAX_HEXSZ + 1];
	skg_to_hex_len(id, odb->rawsz, hex);
	int st = skg_loose_stored_read(odb->reader, odb->last_data, odb->last_len, odb->last_path, hex, data,
	                               len, NULL, lines);
	forget_last(odb);
	return st;
}

char *skg_odb_loose_path(const struct skg_odb *odb, const uint8_t *id)
{
	char hex[SKG_MAX_HEXSZ + 1];
	skg_to_hex_len(id, odb->rawsz, hex);
	for (size_t i = 0; i < odb->ndirs; i++) {
		struct skg_buf path = {0}, shown = {0};
		if (loose_paths(odb, i, hex, &path, &shown) != 0) {
			errno = ENOMEM;
			return NULL;
		}
		struct stat st;
		bool there = lstat(skg_buf_str(&path), &st) == 0;
		skg_buf_release(&path);
		if (there) {
			char *s = strdup(skg_buf_str(&shown));
			skg_buf_release(&shown);
			errno = s == NULL ? ENOMEM : 0;
			return s;
		}
		skg_buf_release(&shown);
	}
	errno = 0;
	return NULL;
}

const char *skg_odb_packed_path(const struct skg_odb *odb, const uint8_t *id)
{
	uint64_t off;
	for (size_t i = 0; i < odb->npacks; i++) {
		if (skg_pk_idx_find_as(odb->packs[i].idx.data, (size_t)odb->packs[i].idx.len, odb->rawsz, id,
		                       &off)) {
			return odb->packs[i].display;
		}
	}
	return NULL;
}
