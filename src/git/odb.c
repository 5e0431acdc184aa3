/*
 * odb.c - an object of a repository by its ID: the loose file first, then the packs (odb.h).
 * Sources: git v2.39.5 object-file.c (loose paths objects/xx/<38 hex>), packfile.c
 * (find_pack_entry over the idx files in objects/pack, unpack_entry); gitformat-pack(5).
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sha1kit/git_pack.h>

#include "loose.h"
#include "odb.h"
#include "pack.h"
#include "util.h"

static int read_loose(const char *objects_dir, const uint8_t id[SKG_RAWSZ], unsigned *type, uint8_t **data,
                      size_t *len)
{
	char hex[SKG_HEXSZ + 1];
	skg_to_hex(id, hex);
	struct skg_buf path = {0};
	skg_buf_addf(&path, "%s/%.2s/%s", objects_dir, hex, hex + 2);
	if (path.failed) {
		skg_buf_release(&path);
		return -1;
	}
	int found = 0;
	struct skg_loose_reader *r = skg_loose_reader_new(NULL);
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
static int read_packed(const char *idx_path, const uint8_t id[SKG_RAWSZ], unsigned *type, uint8_t **data,
                       size_t *len)
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
	if (skg_file_map(&idx, idx_path, NULL, NULL, &e) == 0 &&
	    skg_pk_idx_find(idx.data, (size_t)idx.len, id, &off) &&
	    skg_file_map(&pack, pack_path, NULL, NULL, &e) == 0 &&
	    skg_pk_git_usable(idx.data, (size_t)idx.len, pack.data, pack.len)) {
		uint8_t *out = NULL;
		uint64_t out_len = 0;
		struct skg_pk_error pe;
		int rc = skg_pk_read_object(pack.data, pack.len, idx.data, (size_t)idx.len, off, SIZE_MAX - 1,
		                            type, &out, &out_len, &pe);
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

int skg_odb_read(const char *objects_dir, const uint8_t id[SKG_RAWSZ], unsigned *type, uint8_t **data,
                 size_t *len)
{
	static const uint8_t empty_tree[SKG_RAWSZ] = {0x4b, 0x82, 0x5d, 0xc6, 0x42, 0xcb, 0x6e,
	                                              0xb9, 0xa0, 0x60, 0xe5, 0x4b, 0xf8, 0xd6,
	                                              0x92, 0x88, 0xfb, 0xee, 0x49, 0x04};
	if (memcmp(id, empty_tree, SKG_RAWSZ) == 0) {
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
	int found = read_loose(objects_dir, id, type, data, len);
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
		if (!skg_starts_with(de->d_name, "pack-") || !skg_ends_with(de->d_name, ".idx")) {
			continue;
		}
		char *p = skg_path_join(dir, de->d_name);
		found = p == NULL ? -1 : read_packed(p, id, type, data, len);
		free(p);
	}
	if (d != NULL) {
		closedir(d);
	}
	free(dir);
	return found;
}
