/*
 * fsck_read.c - git's object store reads outside the object check of a repository check
 * (fsck_run.h): a blob read whole (git's read_object_file: its packs first, then the loose
 * objects of each object directory), an object read again from its loose file as git's
 * parse_object() reads it (object-file.c, with git's lines, dying where git dies), and git's
 * has_object() of a loose file.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sha1kit/git_object.h>

#include "fsck_file.h"
#include "fsck_run.h"
#include "pack.h"
#include "pack_file.h"

/*
 * The content of blob `id` as git's object store reads it: from the packs git uses, else a loose
 * object in one of the object directories. 0 and a malloc'd *data, 1 when it is larger than `max`
 * bytes, -1 when it cannot be read as a blob, -2 when out of memory. *seq and *off get where it
 * is (as in struct skg_fsck_dest: seq 0 for a loose object).
 */
int skg_fsck_read_blob(struct skg_fsck_run *f, const uint8_t *id, uint64_t max, uint8_t **data, size_t *len,
                       uint32_t *seq, uint64_t *where)
{
	return skg_fsck_read_object(f, id, SKG_BLOB, max, data, len, seq, where);
}

/* The object at `off` of usable pack i (its idx mapped), read through the delta base chain: 0 with
 * a malloc'd *data (*len bytes) when it is of type `want`; 1 when it is larger than max bytes
 * (nothing read); -1 when it does not read or is of another type; -2 when memory ran out. */
static int read_in_pack(struct skg_fsck_run *f, size_t i, const struct skg_file *idx, uint64_t off,
                        unsigned want, uint64_t max, uint8_t **data, size_t *len)
{
	struct skg_file pack = {0};
	if (skg_file_map(&pack, f->usable_packs[i].pack, f->on_map, f->map_ctx, NULL) != 0) {
		return -1;
	}
	unsigned type = 0;
	uint64_t n = 0;
	struct skg_pk_error err;
	int rc = skg_pk_read_object_cached(pack.data, pack.len, idx->data, (size_t)idx->len,
	                                   (unsigned)f->rawsz, off, max, NULL, &type, data, &n, &err);
	if (rc < 0) {
		rc = err.code == SKG_E_NOMEM ? -2 : -1;
	} else if (rc == 0 && type != want) {
		free(*data);
		*data = NULL;
		rc = -1;
	} else if (rc == 0) {
		*len = (size_t)n;
	}
	skg_file_unmap(&pack);
	return rc;
}

int skg_fsck_read_object(struct skg_fsck_run *f, const uint8_t *id, unsigned want, uint64_t max,
                         uint8_t **data, size_t *len, uint32_t *seq, uint64_t *where)
{
	return skg_fsck_read_object_except(f, 0, id, want, max, data, len, seq, where);
}

int skg_fsck_read_object_except(struct skg_fsck_run *f, uint32_t skip_seq, const uint8_t *id, unsigned want,
                                uint64_t max, uint8_t **data, size_t *len, uint32_t *seq, uint64_t *where)
{
	*seq = 0;
	*where = 0;
	/* git's lookup goes where the multi-pack-index sends it, not to the copy the check read */
	for (size_t i = 0; i < f->n_usable_packs && !skg_fsck_routed(f, id); i++) {
		struct skg_file idx = {0};
		uint64_t off = 0;
		int rc = -1;
		if ((uint32_t)i + 1 == skip_seq) {
			continue; /* git's lookups pass over a pack where the object is marked bad */
		}
		if (skg_file_map(&idx, f->usable_packs[i].idx, f->on_map, f->map_ctx, NULL) != 0) {
			continue;
		}
		if (skg_pk_idx_find_as(idx.data, (size_t)idx.len, (unsigned)f->rawsz, id, &off)) {
			rc = read_in_pack(f, i, &idx, off, want, max, data, len);
		}
		skg_file_unmap(&idx);
		if (rc >= 0) {
			*seq = (uint32_t)i + 1;
			*where = off;
			return rc;
		}
	}
	struct skg_loose_options lopt;
	skg_loose_options_default(&lopt);
	lopt.rawsz = f->rawsz;
	lopt.big_file_threshold = max; /* larger blobs are streamed: not kept, "too large" */
	if (max < lopt.max_size) {
		lopt.max_size = max + 1;
	}
	struct skg_loose_reader *r = skg_loose_reader_new(&lopt);
	struct skg_lines *lines = malloc(sizeof(*lines));
	int rc = r == NULL || lines == NULL ? -2 : -1;
	char h[SKG_MAX_HEXSZ + 1];
	skg_to_hex_len(id, f->rawsz, h);
	for (size_t i = 0; rc == -1 && i < f->n_odb_dirs; i++) {
		struct skg_buf path = {0};
		struct skg_loose_object obj;
		skg_buf_addf(&path, "%s/%.2s/%s", f->odb_dirs[i], h, h + 2);
		skg_lines_clear(lines);
		int st = -1; /* not there */
		if (path.failed) {
			st = SKG_LOOSE_NOMEM;
		} else if (access(skg_buf_str(&path), F_OK) == 0) {
			st = skg_loose_read(r, skg_buf_str(&path), id, NULL, NULL, &obj, lines);
		}
		if (st == SKG_LOOSE_NOMEM) {
			rc = -2;
		} else if (st == SKG_LOOSE_OK && obj.type == want) {
			if (obj.streamed) {
				rc = 1;
			} else if ((*data = malloc(obj.size > 0 ? (size_t)obj.size : 1)) != NULL) {
				memcpy(*data, obj.content, (size_t)obj.size);
				*len = (size_t)obj.size;
				rc = 0;
			} else {
				rc = -2;
			}
		}
		skg_buf_release(&path);
	}
	free(lines);
	skg_loose_reader_free(r);
	return rc;
}

/*
 * git's parse_object() of an object that is no object to the rest of the check: when a loose file
 * of that name exists, git reads it. Returns SKG_REPARSE_DIES (git dies there: f->died is set, git's
 * lines are out), SKG_REPARSE_OK (git reads it after all: *type), SKG_REPARSE_MISMATCH (not an
 * object to git), or -1 when there is no such file.
 */
unsigned skg_fsck_in_memory_type(const struct skg_fsck_run *f, const uint8_t *id)
{
	unsigned known = SKG_NONE;
	if (f->snapshot) {
		/* git 2.55's snapshot reads the refs' objects before the object check: in memory only
		 * what the objects of the refs read before link to */
		known = f->snap_known;
	} else {
		(void)skg_graph_known(f->graph, id, &known);
	}
	return known;
}

/* The first loose file of the object (hex: its ID) in the object directories, as git looks for it:
 * 1 with its path in *path (to release), 0 when there is none, -1 when out of memory. */
static int first_loose_file(const struct skg_fsck_run *f, const char *hex, struct skg_buf *path)
{
	for (size_t i = 0; i < f->n_odb_dirs; i++) {
		*path = (struct skg_buf){0};
		skg_buf_addf(path, "%s/%.2s/%s", f->odb_dirs[i], hex, hex + 2);
		if (path->failed) {
			skg_buf_release(path);
			return -1;
		}
		if (access(skg_buf_str(path), F_OK) == 0) {
			return 1;
		}
		skg_buf_release(path);
	}
	return 0;
}

int skg_fsck_reparse_loose(struct skg_fsck_run *f, const uint8_t *id, unsigned reads, unsigned *type)
{
	char h[SKG_MAX_HEXSZ + 1];
	skg_to_hex_len(id, f->rawsz, h);
	struct skg_buf path;
	int found = first_loose_file(f, h, &path);
	if (found < 0) {
		skg_fsck_nomem(f);
		return SKG_REPARSE_DIES;
	}
	if (found > 0) {
		char *data = NULL;
		size_t len = 0;
		if (skg_read_file(skg_buf_str(&path), SIZE_MAX / 2, &data, &len) != 0) {
			int e = errno;
			if (f->git_version >= SKG_GIT_2_55) {
				/* there but unreadable (permissions): git 2.55 says so at each of its reads
				 * and finds no object: the caller's "invalid sha1 pointer" follows, and the
				 * check goes on */
				for (unsigned k = 0; k < reads; k++) {
					skg_fsck_err_line(f, NULL,
					                  "error: unable to open loose object %s: %s", h,
					                  strerror(e));
				}
				skg_buf_release(&path);
				return SKG_REPARSE_MISMATCH;
			}
			/* git 2.39's read fails quietly, and as the file exists it dies
			 * (read_object_file_extended) */
			skg_fsck_err_line(f, NULL, "fatal: loose object %s (stored in %s) is corrupt", h,
			                  skg_buf_str(&path));
			skg_buf_release(&path);
			f->died = true;
			return SKG_REPARSE_DIES;
		}
		struct skg_loose_options lopt;
		skg_loose_options_default(&lopt);
		lopt.rawsz = f->rawsz;
		lopt.empty_not_found = f->git_version >= SKG_GIT_2_55;
		struct skg_loose_reader *r = skg_loose_reader_new(&lopt);
		struct skg_lines *lines = malloc(sizeof(*lines));
		if (r == NULL || lines == NULL) {
			free(lines);
			skg_loose_reader_free(r);
			free(data);
			skg_buf_release(&path);
			skg_fsck_nomem(f);
			return SKG_REPARSE_DIES;
		}
		unsigned known = skg_fsck_in_memory_type(f, id);
		uint8_t *content = NULL;
		size_t clen = 0;
		int st = skg_loose_reparse(r, (const uint8_t *)data, len, skg_buf_str(&path), id, known, type,
		                           &content, &clen, lines);
		skg_fsck_lines(f, lines);
		if (st == SKG_REPARSE_OK && !skg_fsck_parses(f, *type, id, content, clen, false)) {
			st = SKG_REPARSE_MISMATCH; /* parse_object_buffer fails: no object to git */
		}
		free(content);
		free(lines);
		skg_loose_reader_free(r);
		free(data);
		skg_buf_release(&path);
		if (st == SKG_REPARSE_DIES) {
			f->died = true;
		}
		return st; /* git reads the first loose file it finds */
	}
	return -1;
}

int skg_fsck_read_loose_whole(struct skg_fsck_run *f, const uint8_t *id, unsigned *type, uint8_t **content,
                              size_t *len)
{
	char h[SKG_MAX_HEXSZ + 1];
	skg_to_hex_len(id, f->rawsz, h);
	*content = NULL;
	*len = 0;
	struct skg_buf path;
	int found = first_loose_file(f, h, &path);
	if (found < 0) {
		skg_fsck_nomem(f);
		return SKG_STORED_NOMEM;
	}
	if (found > 0) {
		char *data = NULL;
		size_t dlen = 0;
		int st;
		if (skg_read_file(skg_buf_str(&path), SIZE_MAX / 2, &data, &dlen) != 0) {
			/* there but unreadable: git's read fails, and as the file exists it dies */
			skg_fsck_err_line(f, NULL, "fatal: loose object %s (stored in %s) is corrupt", h,
			                  skg_buf_str(&path));
			st = SKG_STORED_DIES;
		} else {
			struct skg_loose_options lopt;
			skg_loose_options_default(&lopt);
			lopt.rawsz = f->rawsz;
			struct skg_loose_reader *r = skg_loose_reader_new(&lopt);
			struct skg_lines *lines = malloc(sizeof(*lines));
			if (r == NULL || lines == NULL) {
				st = SKG_STORED_NOMEM;
			} else {
				memset(lines, 0, sizeof(*lines));
				st = skg_loose_stored_read(r, (const uint8_t *)data, dlen, skg_buf_str(&path),
				                           h, content, len, type, lines);
				skg_fsck_lines(f, lines);
			}
			free(lines);
			skg_loose_reader_free(r);
			free(data);
		}
		skg_buf_release(&path);
		if (st == SKG_STORED_DIES) {
			f->died = true;
		} else if (st == SKG_STORED_NOMEM) {
			skg_fsck_nomem(f);
		}
		return st; /* git reads the first loose file it finds */
	}
	return -1;
}

/* git's has_object() for an object that is no object to the check: a loose file of that name. */
bool skg_fsck_loose_file_exists(const struct skg_fsck_run *f, const uint8_t *id)
{
	char h[SKG_MAX_HEXSZ + 1];
	skg_to_hex_len(id, f->rawsz, h);
	struct skg_buf path;
	bool found = first_loose_file(f, h, &path) > 0;
	if (found) {
		skg_buf_release(&path);
	}
	return found;
}

int skg_fsck_read_blob_at(struct skg_fsck_run *f, uint64_t at, uint8_t **data, size_t *len, uint32_t *seq,
                          uint64_t *where)
{
	uint32_t ps;
	uint64_t off;
	if (!skg_graph_order_packed(at, &ps, &off) || ps == 0 || ps > f->n_usable_packs) {
		return -1;
	}
	struct skg_file idx = {0};
	int rc = -1;
	if (skg_file_map(&idx, f->usable_packs[ps - 1].idx, f->on_map, f->map_ctx, NULL) == 0) {
		rc = read_in_pack(f, ps - 1, &idx, off, SKG_BLOB, SIZE_MAX - 1, data, len);
	}
	skg_file_unmap(&idx);
	if (rc == 1) {
		rc = -1; /* (too large: as one that does not read) */
	}
	if (rc == 0) {
		*seq = ps;
		*where = off;
	}
	return rc;
}

bool skg_fsck_hash_differs(const struct skg_fsck_run *f, unsigned type, const uint8_t *id,
                           const uint8_t *data, size_t len)
{
	return skg_object_id_differs(f->format, f->rawsz, type, id, data, len);
}

int skg_fsck_conn_hash_mismatch(struct skg_fsck_run *f, const uint8_t *id, unsigned type, bool quiet)
{
	if (!f->connectivity_only || type == SKG_NONE || (type == SKG_COMMIT && skg_fsck_graph_has(f, id))) {
		return 0;
	}
	uint8_t *data = NULL;
	size_t len = 0;
	uint32_t seq;
	uint64_t where;
	int rc = skg_fsck_read_object(f, id, type, f->big_file, &data, &len, &seq, &where);
	if (rc == -2) {
		skg_fsck_nomem(f);
	}
	int bad = rc == 0 && seq > 0 && skg_fsck_hash_differs(f, type, id, data, len);
	free(data);
	if (bad && !quiet) {
		char h[SKG_MAX_HEXSZ + 1];
		skg_to_hex_len(id, f->rawsz, h);
		skg_fsck_err_line(f, NULL, "error: hash mismatch %s", h);
	}
	return bad;
}
