/*
 * fsck_pack.c - the packs of a repository check (fsck_run.h), as git 2.39.5 reads them: their order
 * (packfile.c get_all_packs, sort_pack; the multi-pack-index's first), git's verify_pack
 * (pack-check.c) of each with its idx (the pack indexed by the pack engine, pack.h, every object
 * checked as it is resolved, fsck_check.c; the idx rebuilt and compared byte for byte), and where
 * that stops, git's verify_packfile reading the pack object by object through its idx
 * (unpack_entry, with its lines; the bases it marks bad). Packs git cannot open (its checks in
 * open_packed_git_1 / load_idx) give git's lines wherever git looks for an object in them.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sha1kit/git_object.h>

#include "fsck_ahead.h"
#include "fsck_file.h"
#include "fsck_run.h"
#include "pack.h"
#include "pack_cache.h"
#include "pack_file.h"
#include "trailer.h"

/* skg_graph_forget_strays' question: whether the idx (ctx, a struct skg_file) has `id` at
 * `offset`. */
static bool idx_has_at(const void *ctx, const uint8_t *id, unsigned rawsz, uint64_t offset)
{
	const struct skg_file *idx = ctx;
	uint64_t at;
	return skg_pk_idx_find_as(idx->data, (size_t)idx->len, rawsz, id, &at) && at == offset;
}

static int pack_object(void *ctx, uint32_t i, unsigned type, const uint8_t *data, uint64_t len)
{
	struct skg_fsck_run *f = ctx;
	struct skg_buf lines = {0};
	uint64_t offset = f->pack->objs[i].offset;
	int errors = 0;
	struct skg_fsck_dest s = {f, &lines, -1, f->pack_seq, offset, 0, 0, &errors, 0};
	skg_fsck_check_object(&s, type, f->pack->objs[i].id, data, (size_t)len, NULL);
	bool failed = lines.failed;
	if ((lines.len > 0 || errors != 0) &&
	    !idx_has_at(f->pack_idx, f->pack->objs[i].id, (unsigned)f->rawsz, offset)) {
		/* not the object the idx has there (its entry header retyped, say): the pass fails at the
		 * idx's comparison, and check_rest reads the object through the idx as git does, under
		 * the idx's ID; none of this check's records or bits (a new user's trial: exit bit 1
		 * and a "dangling blob" of an ID the repository does not have; what it added to the
		 * graph goes with skg_graph_forget_strays). Only a check that found something asks the
		 * idx: a sound pack costs nothing more. */
		lines.len = 0;
		errors = 0;
	}
	if (errors != 0) {
		skg_fsck_add_errors(f, errors);
	}
	if (lines.len > 0 && !failed) {
		pthread_mutex_lock(&f->lock);
		if (f->n_pack_lines == f->cap_pack_lines) {
			size_t cap = f->cap_pack_lines ? 2 * f->cap_pack_lines : 64;
			struct skg_fsck_pack_line *v = realloc(f->pack_lines, cap * sizeof(*v));
			if (v != NULL) {
				f->pack_lines = v;
				f->cap_pack_lines = cap;
			}
		}
		if (f->n_pack_lines < f->cap_pack_lines) {
			f->pack_lines[f->n_pack_lines++] =
			    (struct skg_fsck_pack_line){offset, f->pack_text.len, lines.len};
			skg_buf_add(&f->pack_text, lines.p, lines.len);
		}
		failed = f->n_pack_lines == 0 || f->pack_lines[f->n_pack_lines - 1].offset != offset ||
		         f->pack_text.failed;
		pthread_mutex_unlock(&f->lock);
	}
	if (failed) {
		skg_fsck_nomem(f);
	}
	skg_buf_release(&lines);
	skg_fsck_meter_add(f, 1);
	return 0;
}

static int cmp_pack_line(const void *a, const void *b)
{
	const struct skg_fsck_pack_line *x = a, *y = b;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* The pack's object lines, out in offset order (git's verify_packfile order) when `keep`, then
 * forgotten. */
static void pack_lines_out(struct skg_fsck_run *f, bool keep)
{
	if (keep && f->n_pack_lines > 0 && !f->pack_text.failed) { /* failed: the run stopped */
		qsort(f->pack_lines, f->n_pack_lines, sizeof(*f->pack_lines), cmp_pack_line);
		for (size_t i = 0; i < f->n_pack_lines; i++) {
			skg_fsck_send(f, f->pack_text.p + f->pack_lines[i].at, f->pack_lines[i].len);
		}
	}
	f->n_pack_lines = 0;
	skg_buf_release(&f->pack_text);
}

/*
 * Room in the graph for the objects the idx lists (its fan-out's last entry), so that the table does
 * not grow while the threads add to it. A hint, bounded by what the idx and pack can hold: a corrupt
 * idx is found later by the check itself.
 */
static void reserve_graph(struct skg_fsck_run *f, const struct skg_file *idx, uint64_t pack_len)
{
	uint64_t n = skg_pk_idx_count(idx->data, (size_t)idx->len);
	if (n <= idx->len / 24 && n <= pack_len / 2) {
		(void)skg_graph_reserve(f->graph, skg_graph_count(f->graph) + n);
	}
}

/* An object of a pack that cannot be read (git's mark_bad_packed_object when its object store
 * tries), or that reads back with another ID (mismatch). */
static void push_bad_packed(struct skg_fsck_run *f, struct skg_fsck_bad_packed **list, size_t *n,
                            const uint8_t *id, bool mismatch, bool marked, uint64_t offset,
                            const char *pack_path, const char *idx_path)
{
	struct skg_fsck_bad_packed *v = realloc(*list, (*n + 1) * sizeof(*v));
	if (v == NULL) {
		skg_fsck_nomem(f);
		return;
	}
	*list = v;
	struct skg_fsck_bad_packed *b = &v[*n];
	memcpy(b->id, id, f->rawsz);
	b->mismatch = mismatch;
	b->marked = marked;
	b->reread = false;
	b->offset = offset;
	b->pack = strdup(pack_path);
	b->idx = strdup(idx_path);
	if (b->pack != NULL && b->idx != NULL) {
		(*n)++;
	} else {
		free(b->pack);
		free(b->idx);
		skg_fsck_nomem(f);
	}
}

/* An object of this pack that git's walk reads again with lines (struct skg_fsck_run.ext_base,
 * skg_graph_set_reread). False when memory ran out (the run's failure set). */
static bool reread_at_walk(struct skg_fsck_run *f, const uint8_t *id, uint64_t offset, const char *pack_path,
                           const char *idx_path)
{
	push_bad_packed(f, &f->ext_base, &f->n_ext_base, id, false, false, offset, pack_path, idx_path);
	if (skg_graph_set_reread(f->graph, id) < 0) {
		skg_fsck_nomem(f);
		return false;
	}
	return true;
}

static void remember_bad_packed(struct skg_fsck_run *f, const uint8_t *id, bool mismatch, bool marked,
                                uint64_t offset, const char *pack_path, const char *idx_path)
{
	push_bad_packed(f, &f->bad_packed, &f->n_bad_packed, id, mismatch, marked, offset, pack_path,
	                idx_path);
}

static int cmp_idx_ent(const void *a, const void *b)
{
	const struct skg_fsck_ent *x = a, *y = b;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* What check_rest found of each object of the pack: read, unreadable, read with another ID, or a
 * delta base git marks bad (no object at all). */
enum rest_state { READ_OK, UNREADABLE, MISMATCH, BAD };

/* skg_pk_git_unpack's callbacks in check_rest: git's lines out; the base git fails to read at an
 * offset is marked bad (mark_bad_packed_object), and its ID is the idx's. */
struct unpack_ctx {
	struct skg_fsck_run *f;
	const struct skg_fsck_ent *e; /* sorted by offset */
	size_t n;
	uint8_t *state;
	bool other;   /* a delta base was read from another copy (unpack_other_base) */
	uint32_t seq; /* the pack_seq of the pack read (0: not known): a base that failed there is
	               * looked for elsewhere only */
	/* the exit bits of its error lines: SKG_CHECK_ERROR_PACK in git's verify_pack, else 0 (the
	 * lines of a read at the walk, which a fatal or a line with its bits follows) */
	unsigned bits;
};

/* After a read as git makes it (skg_pk_git_unpack, skg_pk_git_stream_blob): true where the pass
 * stops, at git's death there (-2; when `dies`: f->died) or the machine's lack of memory (-3). */
static bool git_read_stops(struct skg_fsck_run *f, int rc, bool dies)
{
	if (rc == -2 && dies) {
		f->died = true;
		return true;
	}
	if (rc == -3) {
		skg_fsck_nomem(f);
		return true;
	}
	return false;
}

static void unpack_line(void *ctx, const char *text)
{
	const struct unpack_ctx *uc = ctx;
	skg_fsck_err_bits(uc->f, strncmp(text, "error: ", 7) == 0 ? uc->bits : 0, "%s", text);
}

static bool unpack_base_id(void *ctx, uint64_t offset, uint8_t *id)
{
	struct unpack_ctx *uc = ctx;
	struct skg_fsck_ent key = {offset, NULL, 0};
	const struct skg_fsck_ent *b = bsearch(&key, uc->e, uc->n, sizeof(*uc->e), cmp_idx_ent);
	if (b == NULL) {
		return false;
	}
	memcpy(id, b->id, uc->f->rawsz);
	if (uc->state != NULL) {
		uc->state[b - uc->e] = BAD;
	}
	return true;
}

/* skg_pk_git_unpack's other_base: git's read of a delta base whose copy in this pack failed
 * (unpack_entry marks it bad there and reads it again): the first other copy, in another pack the
 * check uses or a loose file (skg_fsck_read_object_except; where this pack is not known, its copy
 * fails again and is passed over). */
static int unpack_other_base(void *ctx, const uint8_t *id, unsigned *type, uint8_t **data, uint64_t *len)
{
	struct unpack_ctx *uc = ctx;
	for (unsigned t = *type != 0 ? *type : SKG_COMMIT; t <= (*type != 0 ? *type : SKG_TAG); t++) {
		size_t n = 0;
		uint32_t seq;
		uint64_t where;
		int rc =
		    skg_fsck_read_object_except(uc->f, uc->seq, id, t, SIZE_MAX - 1, data, &n, &seq, &where);
		if (rc == -2) {
			return -3;
		}
		if (rc == 0) {
			*type = t;
			*len = n;
			uc->other = true;
			return 1;
		}
	}
	return 0;
}

/* The idx's entries sorted by offset (a malloc'd array of *n; fewer than the idx's count when an
 * entry's offset cannot be read), or NULL. */
static struct skg_fsck_ent *idx_by_offset(const struct skg_file *idx, size_t rawsz, size_t *n)
{
	uint64_t nr = skg_pk_idx_count(idx->data, (size_t)idx->len);
	struct skg_fsck_ent *e = malloc((nr > 0 ? nr : 1) * sizeof(*e));
	*n = 0;
	if (e == NULL) {
		return NULL;
	}
	for (uint64_t k = 0; k < nr && skg_pk_idx_entry_as(idx->data, (size_t)idx->len, (unsigned)rawsz, k,
	                                                   &e[*n].id, &e[*n].off);
	     k++) {
		e[(*n)++].k = k;
	}
	if (*n > 0) {
		qsort(e, *n, sizeof(*e), cmp_idx_ent);
	}
	return e;
}

/* git's read of a packed object it could not read before, for a ref (read_object_file): the
 * lines of its unpack_entry again. */
static void reread_lines(struct skg_fsck_run *f, const struct skg_fsck_bad_packed *b, bool info_first)
{
	struct skg_file file = {0}, idx = {0};
	if (skg_file_map(&idx, b->idx, f->on_map, f->map_ctx, NULL) == 0 &&
	    skg_file_map(&file, b->pack, f->on_map, f->map_ctx, NULL) == 0) {
		size_t n;
		struct skg_fsck_ent *e = idx_by_offset(&idx, f->rawsz, &n);
		struct unpack_ctx uc = {f, e, n, NULL, false, 0, 0};
		/* parse_object's look at the type first: where it fails, git marks the copy bad and its
		 * read finds nothing to unpack */
		if (e != NULL && info_first &&
		    skg_pk_git_info_type(file.data, file.len, idx.data, (size_t)idx.len, f->rawsz, b->offset,
		                         b->pack, unpack_line, &uc) < 1) {
			free(e);
			e = NULL;
		}
		if (e != NULL) {
			unsigned type;
			uint8_t *data = NULL;
			uint64_t len;
			if (skg_pk_git_unpack(file.data, file.len, idx.data, (size_t)idx.len, f->rawsz,
			                      b->offset, false, UINT64_MAX, NULL, b->pack, unpack_base_id,
			                      unpack_line, unpack_other_base, &uc, &type, &data,
			                      &len) == -3) {
				skg_fsck_nomem(f);
			}
			free(data);
			free(e);
		}
	}
	skg_file_unmap(&file);
	skg_file_unmap(&idx);
}

int skg_fsck_promisor_pack(const char *pack_path)
{
	const size_t len = strlen(pack_path);
	struct skg_buf pr = {0};
	struct stat st;
	skg_buf_addf(&pr, "%.*s.promisor", (int)(len > 5 ? len - 5 : len), pack_path);
	const int yes = pr.failed ? -1 : stat(skg_buf_str(&pr), &st) == 0;
	skg_buf_release(&pr);
	return yes;
}

/*
 * A pack whose check stopped at a corrupt object: as git's verify_packfile, every object its idx
 * lists is read on its own through the idx, in pack order, and checked like the others (those the
 * check had reached are in the graph already). An object that cannot be read is present to git but
 * unreadable (its idx lists it), unless it is the delta base whose failure stopped the read of
 * another object: git marks such a base bad (unpack_entry), and then it is no object at all (links
 * to it are broken). A ref naming either makes git die (dies_bad_packed). One that reads back with
 * another ID is present but unreadable ("hash mismatch" for a ref). Findings are git's; the pack's own error
 * was printed by the caller, in sha1kit's words. promisor_hash: a promisor pack whose objects git
 * 2.39's collection of the promisor objects hashes (skg_fsck_check_pack's hash_all), hashed here
 * with --connectivity-only too.
 */
static void check_rest(struct skg_fsck_run *f, const struct skg_file *file, const struct skg_file *idx,
                       const char *pack_path, const char *idx_path, bool verify, bool promisor_hash)
{
	uint64_t nr = skg_pk_idx_count(idx->data, (size_t)idx->len);
	size_t n = 0;
	struct skg_fsck_ent *e = idx_by_offset(idx, f->rawsz, &n);
	uint8_t *state = calloc(nr > 0 ? nr : 1, 1);
	/* git's delta base cache (core.deltaBaseCacheLimit's default): with bases read whole kept, a
	 * delta's read inflates and applies its chain once, not down to its base each time */
	struct skg_pk_cache cache = {0};
	if (e == NULL || state == NULL || skg_pk_cache_init(&cache, (uint64_t)96 << 20) != 0) {
		free(e);
		free(state);
		skg_pk_cache_release(&cache);
		skg_fsck_nomem(f);
		return;
	}
	const struct skg_pk_base_cache bases = skg_pk_cache_iface(&cache);
	uint64_t sig_at = file->len - f->rawsz; /* a usable pack has its trailer */
	struct skg_fsck_ahead *ahead = NULL;    /* the other threads' reads ahead of this pass */
	const bool hash_promisor = f->connectivity_only && promisor_hash;
	skg_fsck_meter_pack_start(f); /* the objects are counted again, in git's one pass */
	if (verify && n < nr) {
		/* git's verify_packfile takes every offset first: nth_packed_object_offset dies */
		skg_fsck_err_line(f, NULL, "fatal: offset beyond end of pack index for %s (truncated index?)",
		                  pack_path);
		f->died = true;
		skg_pk_cache_release(&cache);
		free(state);
		free(e);
		return;
	}
	if (verify) {
		/* git's verify_packfile: the pack's checksum first */
		uint8_t sum[SKG_MAX_RAWSZ];
		skg_checksum((unsigned)f->rawsz, file->data, (size_t)sig_at, sum);
		if (memcmp(sum, file->data + sig_at, f->rawsz) != 0) {
			skg_fsck_err_bits(f, SKG_CHECK_ERROR_PACK, "error: %s pack checksum mismatch",
			                  pack_path);
		}
	}
	if (verify) {
		/* no more threads than CPUs: more would split the bases among more caches, and each
		 * thread would read more of its deltas' chains again */
		const unsigned cpus = skg_online_cpus();
		ahead = skg_fsck_ahead_start(file, idx, e, n, sig_at, f->format, f->rawsz, f->big_file,
		                             f->threads < cpus ? f->threads : cpus);
	}
	for (uint64_t k = 0; k < n; k++) {
		char h[SKG_MAX_HEXSZ + 1];
		unsigned known = SKG_NONE;
		if (skg_fsck_stopped(f)) {
			break; /* between objects */
		}
		skg_to_hex_len(e[k].id, f->rawsz, h);
		if (verify && e[k].off > sig_at) {
			/* git's use_pack dies on the entry's first byte */
			skg_fsck_err_line(f, NULL, "fatal: offset beyond end of packfile (truncated pack?)");
			f->died = true;
			break;
		}
		/* pre.whole: read whole and hashed to its ID ahead of this pass, as git reads it, with no
		 * line */
		struct skg_fsck_ahead_obj pre = {false, 0, NULL, 0, -1};
		(void)skg_fsck_ahead_take(ahead, (size_t)k, &bases, &pre);
		if (verify) {
			/* the CRC-32 of the bytes up to the next entry: git's read of them dies past the
			 * end of the pack */
			uint64_t next = k + 1 < n ? e[k + 1].off : sig_at;
			if (next > file->len) {
				skg_fsck_err_line(f, NULL,
				                  "fatal: offset beyond end of packfile (truncated pack?)");
				f->died = true;
				free(pre.data);
				break;
			}
			if (pre.crc >= 0
			        ? pre.crc == 1
			        : skg_pk_idx_crc_differs(idx->data, (size_t)idx->len, f->rawsz, e[k].k,
			                                 file->data, e[k].off, next - e[k].off)) {
				skg_fsck_err_bits(
				    f, SKG_CHECK_ERROR_PACK,
				    "error: index CRC mismatch for object %s from %s at offset %" PRIu64, h,
				    pack_path, e[k].off);
			}
		} else if (skg_graph_has(f->graph, e[k].id, &known)) {
			/* checked before the check stopped; but with --connectivity-only a commit, tree or
			 * tag that has a loose copy too (a loose file `git maintenance` packed and left) is
			 * read here: where this copy fails, git's walk reads it first, with its lines, then
			 * the loose one */
			uint8_t *tmp = NULL;
			uint64_t tlen = 0;
			struct skg_pk_error terr;
			if (!f->connectivity_only || known < SKG_COMMIT || known > SKG_TAG ||
			    !skg_fsck_loose_file_exists(f, e[k].id) ||
			    skg_pk_read_object_cached(file->data, file->len, idx->data, (size_t)idx->len,
			                              (unsigned)f->rawsz, e[k].off, SIZE_MAX - 1, &bases,
			                              &known, &tmp, &tlen, &terr) == 0) {
				free(tmp);
				continue;
			}
			state[k] = UNREADABLE; /* (its graph record is the loose copy's) */
			continue;
		}
		unsigned type;
		uint8_t *data = NULL;
		uint64_t len = 0;
		struct skg_pk_error err;
		int rc = 0;
		uint64_t hsize = 0;
		if (pre.whole) {
			rc = 0; /* (no blob git streams) */
		} else if (verify) {
			/* git streams a blob at or over core.bigFileThreshold instead of reading it */
			rc = skg_pk_git_entry_header(file->data, file->len, f->rawsz, e[k].off, &hsize) ==
			                 SKG_BLOB &&
			             hsize >= f->big_file
			         ? 1
			         : 0;
		} else {
			rc = skg_pk_read_object_cached(file->data, file->len, idx->data, (size_t)idx->len,
			                               (unsigned)f->rawsz, e[k].off, f->big_file, &bases,
			                               &type, &data, &len, &err);
		}
		if (rc == 1 && (verify || hash_promisor)) {
			/* a blob git streams: hashed as it inflates (stream_object_signature; with
			 * --connectivity-only only git 2.39's collection of the promisor objects does, and
			 * its lines come where that stops) */
			struct unpack_ctx uc = {
			    f, e, (size_t)n, state, false, f->pack_seq, verify ? SKG_CHECK_ERROR_PACK : 0};
			rc = skg_pk_git_stream_blob(file->data, file->len, f->rawsz, e[k].off, e[k].id,
			                            pack_path, verify ? unpack_line : skg_pk_no_line, &uc);
			if (git_read_stops(f, rc, verify)) {
				break;
			}
			if (rc != 0) {
				if (verify) {
					skg_fsck_err_bits(f, SKG_CHECK_ERROR_PACK,
					                  "error: packed %s from %s is corrupt", h,
					                  pack_path);
				}
				state[k] = rc == 1 ? MISMATCH : UNREADABLE;
				continue;
			}
			rc = 1;
		}
		if (rc == 1) {
			/* a blob git streams: present, not read again here */
			(void)skg_graph_add_unread(f->graph, e[k].id, true,
			                           skg_graph_order(f->pack_seq, e[k].off, 0, 0, 0));
			continue;
		}
		bool other_base = false; /* its delta base was read from another copy */
		if (pre.whole) {
			type = pre.type;
			data = pre.data;
			len = pre.len;
		} else if (verify) {
			/* as git's unpack_entry reads it, with its lines; the bases it marks bad are BAD */
			struct unpack_ctx uc = {
			    f, e, (size_t)n, state, false, f->pack_seq, verify ? SKG_CHECK_ERROR_PACK : 0};
			rc = skg_pk_git_unpack(file->data, file->len, idx->data, (size_t)idx->len, f->rawsz,
			                       e[k].off, true, UINT64_MAX, &bases, pack_path, unpack_base_id,
			                       unpack_line, unpack_other_base, &uc, &type, &data, &len);
			other_base = uc.other;
			if (git_read_stops(f, rc, true)) {
				break;
			}
			if (rc != 0) {
				skg_fsck_err_bits(f, SKG_CHECK_ERROR_PACK,
				                  "error: cannot unpack %s from %s at offset %" PRIu64, h,
				                  pack_path, e[k].off);
				if (state[k] == READ_OK) {
					state[k] = UNREADABLE;
				}
				continue;
			}
		}
		if (rc != 0 && err.code == SKG_E_NOMEM) {
			skg_fsck_nomem(f);
			break;
		}
		if (rc != 0) {
			if (state[k] == READ_OK) {
				state[k] = UNREADABLE;
			}
			if (err.has_offset && err.offset != e[k].off) {
				/* the read failed below this object's delta: git's unpack_entry marks every
				 * base on the chain bad, from this object's base down to where it failed */
				uint64_t at = e[k].off, base;
				for (uint64_t steps = 0;
				     steps <= n && at != err.offset &&
				     skg_pk_entry_base(file->data, file->len, idx->data, (size_t)idx->len,
				                       f->rawsz, at, &base) == 1;
				     steps++) {
					struct skg_fsck_ent key = {base, NULL, 0};
					struct skg_fsck_ent *b =
					    bsearch(&key, e, (size_t)n, sizeof(*e), cmp_idx_ent);
					if (b == NULL) {
						break;
					}
					state[b - e] = BAD;
					at = base;
				}
			}
			continue;
		}
		/* --connectivity-only: git's walk reads an object without hashing it, but for one of a
		 * promisor pack, which its collection of the promisor objects parses */
		if (!pre.whole && (!f->connectivity_only || hash_promisor) &&
		    skg_fsck_hash_differs(f, type, e[k].id, data, (size_t)len)) {
			if (verify) {
				skg_fsck_err_bits(f, SKG_CHECK_ERROR_PACK,
				                  "error: packed %s from %s is corrupt", h, pack_path);
			} else if (hash_promisor) {
				/* git's listing has it, of the type its entry headers give; unreached, its
				 * parse without a hash marks what it links to used */
				struct skg_fsck_dest s = {f, NULL, -1, f->pack_seq, e[k].off, 0, 0, NULL, 0};
				skg_fsck_check_object(&s, type, e[k].id, data, (size_t)len, NULL);
			}
			state[k] = MISMATCH;
		} else {
			struct skg_fsck_dest s = {f, NULL, -1, f->pack_seq, e[k].off, 0, 0, NULL, 0};
			skg_fsck_check_object(&s, type, e[k].id, data, (size_t)len, NULL);
			if (other_base && type == SKG_TREE) {
				/* git's walk reads the tree again (its buffer freed after the check), and its
				 * delta base fails again there, with its lines */
				(void)reread_at_walk(f, e[k].id, e[k].off, pack_path, idx_path);
			}
		}
		free(data);
		skg_fsck_meter_add(f, 1);
	}
	skg_fsck_ahead_stop(ahead);
	for (uint64_t k = 0; k < n; k++) {
		uint64_t found;
		unsigned type = SKG_NONE;
		if (state[k] != READ_OK &&
		    (!skg_pk_idx_find_as(idx->data, (size_t)idx->len, f->rawsz, e[k].id, &found) ||
		     found == 0)) {
			/* git's lookups do not find it (find_pack_entry_one: not in the fan-out range the
			 * search looks in, or offset 0, which means none): no object to git at all */
			continue;
		}
		if (f->connectivity_only && state[k] == MISMATCH && hash_promisor) {
			/* (added, of its type, above: only the collection of the promisor objects hashes
			 * it) */
		} else if (f->connectivity_only && state[k] != READ_OK &&
		           skg_graph_has(f->graph, e[k].id, &type) && type >= SKG_COMMIT && type <= SKG_TAG) {
			/* a commit, tree or tag with a readable copy the check read before (a loose file
			 * `git maintenance` packed and left): git's walk reads this copy first, with its
			 * lines (a delta's base fails, and is read elsewhere), then the other */
			if (!reread_at_walk(f, e[k].id, e[k].off, pack_path, idx_path)) {
				break;
			}
		} else if (f->connectivity_only && state[k] != READ_OK) {
			/* git's listing took it as present; its walk's read of it dies
			 * (skg_fsck_dies_conn_read), but for a commit it parses from the commit-graph,
			 * which it never reads (a new user's trial: a retyped entry header) */
			if (skg_graph_add_unread_walked(
			        f->graph, e[k].id, skg_graph_order(f->pack_seq, e[k].off, 0, 0, 0)) != 0) {
				skg_fsck_nomem(f);
				break;
			}
			skg_fsck_unread_graph_links(f, e[k].id);
		} else if (state[k] == UNREADABLE && skg_graph_has(f->graph, e[k].id, &type) &&
		           type == SKG_TREE) {
			/* a tree read from another copy before (a loose file git maintenance packed and
			 * left): git's walk reads the tree again, this copy first (not marked bad), with
			 * its lines, then the other */
			if (!reread_at_walk(f, e[k].id, e[k].off, pack_path, idx_path)) {
				break;
			}
		} else if (state[k] == UNREADABLE || state[k] == MISMATCH) {
			(void)skg_graph_add_unread(f->graph, e[k].id, false,
			                           skg_graph_order(f->pack_seq, e[k].off, 0, 0, 0));
		}
		if (state[k] != READ_OK) {
			/* marked: git's own pass read it as a delta base and marked it bad, so its later
			 * read has no lines; --connectivity-only read nothing before its walk */
			remember_bad_packed(f, e[k].id, state[k] == MISMATCH,
			                    state[k] == BAD && !f->connectivity_only, e[k].off, pack_path,
			                    idx_path);
		}
	}
	skg_pk_cache_release(&cache);
	free(state);
	free(e);
}

/*
 * git's verify_packfile over a pack the pass read but git reads otherwise (the pass stopped at a
 * corrupt entry, or the idx is not the pass's): check_rest reads every object through the idx, with
 * git's lines, in place of the pass, whose lines go (the objects it read are read again, and their
 * lines printed then). An object the pass read that is not what the idx has at its offset (its
 * entry header retyped, say) is no object of the repository: check_rest reads it through the idx,
 * as git, under the idx's ID (a new user's trial: a "dangling blob" of the pass's ID).
 */
static void verify_through_idx(struct skg_fsck_run *f, const struct skg_file *file,
                               const struct skg_file *idx, const char *pack_path, const char *idx_path,
                               bool hash_all)
{
	pack_lines_out(f, false);
	skg_graph_forget_strays(f->graph, f->pack_seq, idx_has_at, idx);
	check_rest(f, file, idx, pack_path, idx_path, true, hash_all);
}

/*
 * The types of the entries e[0..n) (sorted by offset) from their headers, a delta taking its base's
 * (types[k]: 1..4). False when one does not resolve (a header that does not parse, a REF_DELTA base
 * the idx does not list, a base where no entry starts, a chain that loops).
 */
static bool entry_types(const struct skg_file *file, const struct skg_file *idx, size_t rawsz,
                        const struct skg_fsck_ent *e, size_t n, uint8_t *types)
{
	size_t *chain = malloc((n > 0 ? n : 1) * sizeof(*chain));
	bool ok = chain != NULL;
	memset(types, 0, n);
	for (size_t k = 0; k < n && ok; k++) {
		size_t len = 0, at = k;
		int t = 0;
		/* down the chain to an entry whose type is known or whole */
		while (ok && types[at] == 0) {
			uint64_t size, base;
			t = skg_pk_git_entry_header(file->data, file->len, (unsigned)rawsz, e[at].off, &size);
			if (t >= SKG_COMMIT && t <= SKG_TAG) {
				break;
			}
			int b = skg_pk_entry_base(file->data, file->len, idx->data, (size_t)idx->len,
			                          (unsigned)rawsz, e[at].off, &base);
			struct skg_fsck_ent key = {base, NULL, 0};
			const struct skg_fsck_ent *be =
			    b == 1 ? bsearch(&key, e, n, sizeof(*e), cmp_idx_ent) : NULL;
			ok = be != NULL && len < n;
			if (ok) {
				chain[len++] = at;
				at = (size_t)(be - e);
			}
		}
		if (ok) {
			uint8_t type = types[at] != 0 ? types[at] : (uint8_t)t;
			types[at] = type;
			while (len > 0) {
				types[chain[--len]] = type;
			}
		}
	}
	free(chain);
	return ok;
}

/*
 * git's --connectivity-only over a pack whose objects' types resolve: git lists the idx's objects
 * and reads only those its walk parses (builtin/fsck.c mark_packed_for_connectivity; commits,
 * trees and tags), so no blob is read, no object hashed, no checksum or CRC compared. The
 * commits, trees and tags are read here through a delta base cache, in pack order. False when a
 * type does not resolve or one of them does not read: the full check then reads the pack (the
 * objects this pass added are added again, the same; its records were held and are dropped).
 * hash_all (a promisor pack, which git's collection of the promisor objects parses whole): every
 * object read and hashed too, and false also when one hashes to another ID.
 */
static bool connectivity_pack(struct skg_fsck_run *f, struct skg_file *file, const struct skg_file *idx,
                              const char *pack_path, const char *idx_path, bool hash_all)
{
	size_t n = 0;
	struct skg_fsck_ent *e = idx_by_offset(idx, f->rawsz, &n);
	uint8_t *types = e != NULL ? malloc(n > 0 ? n : 1) : NULL;
	struct skg_pk_cache cache = {0};
	if (types == NULL || skg_pk_cache_init(&cache, (uint64_t)96 << 20) != 0) {
		free(e);
		free(types);
		skg_fsck_nomem(f);
		return true;
	}
	bool ok = entry_types(file, idx, f->rawsz, e, n, types);
	const struct skg_pk_base_cache iface = skg_pk_cache_iface(&cache);
	/* the records wait until the pack is through: a read that fails sends the pack to the full
	 * check, which gives them again */
	struct skg_buf out = {0};
	for (size_t k = 0; k < n && ok && !skg_fsck_stopped(f); k++) {
		struct skg_fsck_dest s = {f, &out, -1, f->pack_seq, e[k].off, 0, 0, NULL, 0};
		if (e[k].off > file->released + ((uint64_t)64 << 20)) {
			/* the mapped pages read long ago go (a base there is read again if need be) */
			skg_file_release(file, e[k].off - ((uint64_t)16 << 20));
		}
		/* not read: a blob, or a commit git's walk parses from the commit-graph (with hash_all
		 * read and hashed only) */
		const bool unread =
		    types[k] == SKG_BLOB || (types[k] == SKG_COMMIT && skg_fsck_graph_has(f, e[k].id));
		if (unread && !hash_all) {
			skg_fsck_check_object(&s, types[k], e[k].id, NULL, 0, NULL);
			continue;
		}
		unsigned type;
		uint8_t *data = NULL;
		uint64_t len = 0;
		struct skg_pk_error err;
		int rc = skg_pk_read_object_cached(
		    file->data, file->len, idx->data, (size_t)idx->len, (unsigned)f->rawsz, e[k].off,
		    types[k] == SKG_BLOB ? f->big_file : SIZE_MAX - 1, &iface, &type, &data, &len, &err);
		if (rc == 1 && hash_all &&
		    skg_pk_git_stream_blob(file->data, file->len, f->rawsz, e[k].off, e[k].id, pack_path,
		                           skg_pk_no_line, NULL) != 0) {
			ok = false; /* a blob git streams (hash_all) that does not hash: check_rest has it */
			break;
		}
		if (rc == 1) {
			/* a blob git streams (hash_all): present, hashed but not read here */
			skg_fsck_check_object(&s, types[k], e[k].id, NULL, 0, NULL);
			continue;
		}
		if (rc != 0 && err.code == SKG_E_NOMEM) {
			skg_fsck_nomem(f);
			break;
		}
		if (rc == 0 && hash_all && skg_fsck_hash_differs(f, type, e[k].id, data, (size_t)len)) {
			rc = -1; /* what git's parse calls a hash mismatch: check_rest records it */
			free(data);
		}
		if (rc == 0 && unread) {
			skg_fsck_check_object(&s, types[k], e[k].id, NULL, 0, NULL);
			free(data);
			continue;
		}
		if (rc != 0) {
			/* a commit, tree or tag that does not read: git's walk dies or reports where it
			 * reads it, which the full check of the pack follows (its lines and deaths) */
			ok = false;
			break;
		}
		if (!skg_fsck_parses(f, type, e[k].id, data, (size_t)len, true) &&
		    skg_fsck_hash_differs(f, type, e[k].id, data, (size_t)len)) {
			/* a commit or tag whose parse fails and that is not what its ID says (its entry
			 * header retyped, say): git never parses it as the check would (its walk reads it
			 * where a link or a ref names it, and finds another type or hashes it), so none of
			 * the check's lines; it stays, of its entry's type, with no links */
			if (skg_graph_add(f->graph, e[k].id, type, NULL, 0, false,
			                  skg_graph_order(f->pack_seq, e[k].off, 0, 0, 0)) != 0) {
				skg_fsck_nomem(f);
			}
			push_bad_packed(f, &f->conn_mismatch, &f->n_conn_mismatch, e[k].id, true, false,
			                e[k].off, pack_path, idx_path);
		} else {
			skg_fsck_check_object(&s, type, e[k].id, data, (size_t)len, NULL);
		}
		free(data);
	}
	if (out.failed) {
		skg_fsck_nomem(f);
	} else if (ok && out.len > 0) {
		skg_fsck_send(f, out.p, out.len);
	}
	skg_buf_release(&out);
	skg_pk_cache_release(&cache);
	free(types);
	free(e);
	return ok;
}

/*
 * --connectivity-only over a pack whose idx opens and whose pack does not: git's listing
 * (mark_packed_for_connectivity) takes every object the idx names as present, and its walk reads
 * those it reaches and cannot (the pack's line at each look, then "Could not read" or "Unknown
 * object type": fsck_walk.c on_walk_error); a commit the commit-graph holds that its walk reaches
 * as a commit (a parent link, a tag's target) it parses from the graph instead
 * (skg_fsck_unread_graph_links).
 */
static void unopened_pack_listed(struct skg_fsck_run *f, const struct skg_file *idx)
{
	/* in the idx's order, as git lists a pack's objects (for_each_object_in_pack without
	 * ODB_FOR_EACH_OBJECT_PACK_ORDER) */
	uint64_t nr = skg_pk_idx_count(idx->data, (size_t)idx->len);
	const uint8_t *id;
	uint64_t off;
	for (uint64_t k = 0;
	     k < nr && !skg_fsck_stopped(f) &&
	     skg_pk_idx_entry_as(idx->data, (size_t)idx->len, (unsigned)f->rawsz, k, &id, &off);
	     k++) {
		if (skg_graph_add_unread_walked(f->graph, id, skg_graph_order(0, 0, 0, 0, 0)) != 0) {
			skg_fsck_nomem(f);
		}
		skg_fsck_unread_graph_links(f, id);
	}
}

/* A pack git reads objects from: where the end's checks (check_specials) look for blobs. */
static void remember_pack(struct skg_fsck_run *f, const char *idx_path, const char *pack_path)
{
	struct skg_fsck_pack_paths *v = realloc(f->usable_packs, (f->n_usable_packs + 1) * sizeof(*v));
	if (v == NULL) {
		skg_fsck_nomem(f);
		return;
	}
	f->usable_packs = v;
	v[f->n_usable_packs].idx = strdup(idx_path);
	v[f->n_usable_packs].pack = strdup(pack_path);
	if (v[f->n_usable_packs].idx != NULL && v[f->n_usable_packs].pack != NULL) {
		f->n_usable_packs++;
	} else {
		free(v[f->n_usable_packs].idx);
		free(v[f->n_usable_packs].pack);
		skg_fsck_nomem(f);
	}
}

/* git's line for a pack it cannot open (skg_pk_git_open_check), naming `path` (the idx or the pack); a
 * malloc'd string, or NULL when out of memory */
static char *git_open_line(enum skg_pk_git_open go, const char *path, uint32_t a, uint32_t b)
{
	static const char prefix[] = "error: ";
	int n = skg_pk_git_open_text(go, path, a, b, NULL, 0);
	char *line = n < 0 ? NULL : malloc(sizeof(prefix) + (size_t)n);
	if (line != NULL) {
		memcpy(line, prefix, sizeof(prefix) - 1);
		skg_pk_git_open_text(go, path, a, b, line + sizeof(prefix) - 1, (size_t)n + 1);
	}
	return line;
}

/* A copy of a mapped idx (NULL when out of memory), for a pack git cannot read objects from: which
 * IDs its lookups open that pack for. */
static uint8_t *idx_copy(const struct skg_file *idx)
{
	uint8_t *copy = malloc(idx->len > 0 ? (size_t)idx->len : 1);
	if (copy != NULL && idx->len > 0) {
		memcpy(copy, idx->data, (size_t)idx->len);
	}
	return copy;
}

/* Appends u to the packs git cannot read objects from, its strings and arrays the list's now; when
 * that fails (`ok` false: one of them could not be made), frees them: out of memory. */
static void push_unusable(struct skg_fsck_run *f, struct skg_fsck_unusable u, bool ok)
{
	struct skg_fsck_unusable *v = ok ? realloc(f->unusable, (f->n_unusable + 1) * sizeof(*v)) : NULL;
	if (v == NULL) {
		free(u.line);
		free(u.idx);
		free(u.pack);
		free(u.mids);
		skg_fsck_nomem(f);
		return;
	}
	f->unusable = v;
	v[f->n_unusable++] = u;
}

/* A pack git cannot read objects from (takes `line` and `idx`, which may be NULL; `pack`: the pack
 * of an idx that does not open, copied). */
static void remember_unusable(struct skg_fsck_run *f, char *line, uint8_t *idx, size_t idx_len,
                              const char *pack)
{
	char *pack_copy = pack != NULL ? strdup(pack) : NULL;
	push_unusable(f, (struct skg_fsck_unusable){line, idx, idx_len, 0, pack_copy, false, NULL, 0, 0},
	              line != NULL && (pack == NULL || pack_copy != NULL));
}

/* A pack whose idx git cannot open (open_pack_index fails without a word, at each lookup too):
 * only the rev-index check's line names it; `e`: open's errno. */
static void remember_silent(struct skg_fsck_run *f, const char *pack, int e)
{
	char *pack_copy = strdup(pack);
	push_unusable(f, (struct skg_fsck_unusable){NULL, NULL, 0, 0, pack_copy, false, NULL, 0, e},
	              pack_copy != NULL);
}

/* Whether a file that did not map is one git's open() fails on (git_open: no permission, gone, a
 * loop of links), which git passes over without a word; not a directory (git's mmap dies on it),
 * a file too large or memory. */
static bool git_open_fails(const struct skg_file *file, const struct skg_error *err)
{
	return file->failed == SKG_FILE_OPEN && err->code != SKG_E_NOMEM && err->sys_errno != EISDIR &&
	       err->sys_errno != EFBIG && err->sys_errno != 0;
}

/*
 * An idx that is a directory: git opens it (packfile.c check_packed_git_idx), takes its size from
 * fstat, and refuses it as too small, or maps it and dies ("mmap failed", ENODEV). True when that is
 * handled (the line out, the check stopped or the pack remembered as one git cannot read).
 */
static bool idx_dir(struct skg_fsck_run *f, const char *idx_path, const char *pack_path)
{
	struct stat st;
	if (stat(idx_path, &st) != 0 || !S_ISDIR(st.st_mode)) {
		return false;
	}
	if ((uint64_t)st.st_size >= 4 * 256 + 2 * (uint64_t)f->rawsz) {
		skg_fsck_err_line(f, NULL, "fatal: mmap failed: %s", strerror(ENODEV));
		f->died = true;
		return true;
	}
	char *line = git_open_line(SKG_PK_GIT_IDX_SMALL, idx_path, 0, 0);
	remember_unusable(f, line, NULL, 0, pack_path);
	if (line != NULL && !skg_fsck_stopped(f)) {
		skg_fsck_err_line(f, NULL, "%s", line);
		if (!f->connectivity_only) {
			skg_fsck_err_bits(f, SKG_CHECK_ERROR_PACK, "error: packfile %s index not opened",
			                  pack_path);
		}
	}
	return true;
}

/*
 * A pack of the repository's multi-pack-index (`midx`: 1 + its place there) whose idx does not
 * open: `line` is the idx's (taken; NULL: the idx is missing, which git's open_pack_index passes
 * over silently). Git's lookups of the IDs the multi-pack-index places in it print its lines.
 */
static void remember_midx_unusable(struct skg_fsck_run *f, char *line, const char *pack, uint32_t odb,
                                   size_t midx)
{
	uint8_t *ids = NULL;
	size_t n = 0;
	char *pack_copy = strdup(pack);
	bool ok = pack_copy != NULL && skg_midx_pack_ids(f->odb_dirs[odb], (unsigned)f->rawsz, f->git_version,
	                                                 (uint32_t)(midx - 1), &ids, &n) == 0;
	push_unusable(f, (struct skg_fsck_unusable){line, NULL, 0, 0, pack_copy, true, ids, n, 0}, ok);
}

/* Whether u, a pack of the multi-pack-index, holds `id` to git's lookups through it. */
static bool midx_places(const struct skg_fsck_unusable *u, const uint8_t *id, size_t rawsz)
{
	return u->n_mids > 0 && bsearch(id, u->mids, u->n_mids, rawsz, skg_id_cmp(rawsz)) != NULL;
}

void skg_fsck_pack_dir_lines(struct skg_fsck_run *f)
{
	for (size_t i = 0; i < f->n_unusable; i++) {
		if (f->unusable[i].dir_errno != 0) {
			skg_fsck_err_line(f, NULL, "%s", f->unusable[i].line);
		}
	}
}

/*
 * git looks for `id` in its packs `times` times (find_pack_entry; twice in a lookup that is not
 * quick, which looks again after re-reading the pack directory): each time, the line of each pack
 * whose idx does not open, and of each pack that does not open whose idx lists `id`.
 */
void skg_fsck_lookup_lines(struct skg_fsck_run *f, const uint8_t *id, unsigned times)
{
	for (unsigned t = 0; t < times; t++) {
		/* the second look of a lookup comes after git re-read the pack directories
		 * (reprepare_packed_git): the line of each that does not open (prepare_packed_git_one) */
		if (t % 2 == 1) {
			skg_fsck_pack_dir_lines(f);
		}
		/* packfile.c find_pack_entry: the multi-pack-index first, then the other packs */
		for (size_t i = 0; i < f->n_unusable; i++) {
			const struct skg_fsck_unusable *u = &f->unusable[i];
			if ((u->midx || u->mids != NULL) && midx_places(u, id, f->rawsz)) {
				if (u->line != NULL) {
					skg_fsck_err_line(f, NULL, "%s", u->line);
				}
				if (u->midx) {
					skg_fsck_err_line(f, NULL, "error: packfile %s index unavailable",
					                  u->pack);
				}
			}
		}
		for (size_t i = 0; i < f->n_unusable; i++) {
			uint64_t off;
			const struct skg_fsck_unusable *u = &f->unusable[i];
			if (u->dir_errno == 0 && !u->midx && u->mids == NULL && u->line != NULL &&
			    (u->idx == NULL || skg_pk_idx_find_as(u->idx, u->idx_len, f->rawsz, id, &off))) {
				skg_fsck_err_line(f, NULL, "%s", u->line);
			}
		}
	}
}

/*
 * A pack directory that does not open for another reason than its absence: git's line (packfile.c
 * prepare_packed_git_one, error_errno: git 2.39.5 and 2.55.0), now and at each re-reading of the
 * pack directories (skg_fsck_lookup_lines). Git 2.55 with refs first reads the pack directories at
 * its snapshot's first object read, and again after the refs' lines (skg_fsck_pack_dir_lines),
 * not at the object check.
 */
static void pack_dir_error(struct skg_fsck_run *f, const char *dir, int e)
{
	struct skg_buf line = {0};
	skg_buf_addf(&line, "error: unable to open object pack directory: %s: %s", dir, strerror(e));
	if (line.failed) {
		skg_buf_release(&line);
		skg_fsck_nomem(f);
		return;
	}
	if (f->git_version < SKG_GIT_2_55 || f->n_tips == 0) {
		skg_fsck_err_line(f, NULL, "%s", line.p);
	}
	remember_unusable(f, line.p, NULL, 0, NULL);
	if (!skg_fsck_stopped(f)) {
		f->unusable[f->n_unusable - 1].dir_errno = e;
	}
}

/* A pack or idx that cannot be mapped: sha1kit's line (git has none: it would die), in order with
 * the other lines of the check; a mapping that does not fit in memory is a failure of the run. */
static void pack_file_error(struct skg_fsck_run *f, const struct skg_file *file, const char *path,
                            const struct skg_error *err)
{
	char line[4096];
	if (err->code == SKG_E_NOMEM) {
		skg_fsck_nomem(f);
		return;
	}
	skg_fsck_file_error(line, sizeof(line), file, path, err);
	struct skg_fsck_meta meta = {SKG_R_FSCK, NULL, SKG_NONE, NULL, SKG_CHECK_ERROR_PACK};
	skg_fsck_err_line(f, &meta, "sha1kit: %s", line);
}

/* Whether the pack engine's failure is one of the machine: then it is the run's failure. */
static bool machine_failure(struct skg_fsck_run *f, const struct skg_pk_error *err)
{
	if (err->code == SKG_E_NOMEM) {
		skg_fsck_nomem(f);
		return true;
	}
	if (err->code == SKG_E_THREAD) {
		skg_fsck_fail(f, SKG_E_THREAD, EAGAIN, "unable to create thread");
		return true;
	}
	if (err->code == SKG_E_IO) {
		skg_fsck_fail(f, SKG_E_IO, EIO, err->msg); /* the pack's file did not read */
		return true;
	}
	return false;
}

/* git's verify_pack of one pack and its idx: every object, both trailers, the idx byte for byte. */
void skg_fsck_check_pack(struct skg_fsck_run *f, const char *pack_path, const char *idx_path, uint32_t odb,
                         size_t midx, int64_t mtime)
{
	struct skg_file file = {0}, idx = {0};
	struct skg_pk_pack pack = {0};
	struct skg_pk_error err;
	struct skg_error ferr;
	uint64_t count = 0; /* git's p->num_objects: what the idx says, once it opens */
	bool drawn = false; /* whether git's verify_packfile got to its loop (and its last display) */
	f->midx_packs = f->midx_packs || midx != 0;
	skg_fsck_meter_pack_start(f);
	if (skg_file_map(&idx, idx_path, f->on_map, f->map_ctx, &ferr) != 0) {
		if (git_open_fails(&idx, &ferr)) {
			/* an idx git cannot open (no permission; a pack of the multi-pack-index without
			 * its idx, which git's list has through the multi-pack-index, midx.c
			 * prepare_midx_pack): git's open_pack_index fails silently, verify_pack_index */
			if (midx != 0) {
				remember_midx_unusable(f, NULL, pack_path, odb, midx);
			} else {
				remember_silent(f, pack_path, ferr.sys_errno);
			}
			if (!f->connectivity_only) {
				skg_fsck_err_bits(f, SKG_CHECK_ERROR_PACK,
				                  "error: packfile %s index not opened", pack_path);
			}
			skg_fsck_meter_pack_end(f, 0, false);
			return;
		}
		if (ferr.sys_errno == EISDIR && idx_dir(f, idx_path, pack_path)) {
			skg_fsck_meter_pack_end(f, 0, false);
			return;
		}
		pack_file_error(f, &idx, idx_path, &ferr);
		skg_fsck_add_errors(f, SKG_CHECK_ERROR_PACK);
		skg_fsck_meter_pack_end(f, 0, false);
		return;
	}
	if (skg_file_map(&file, pack_path, f->on_map, f->map_ctx, &ferr) != 0) {
		if (git_open_fails(&file, &ferr)) {
			/* packfile.c open_packed_git_1 fails silently (each lookup too): verify_packfile;
			 * the errno of each lookup that opens it, which git 2.39's read of an object it
			 * does not find dies on (a pack that is a link to itself: ELOOP) */
			uint8_t *copy = idx_copy(&idx);
			push_unusable(f,
			              (struct skg_fsck_unusable){NULL, copy, (size_t)idx.len, 0, NULL, false,
			                                         NULL, 0, ferr.sys_errno},
			              copy != NULL);
			struct stat pst;
			if (!f->connectivity_only) {
				skg_fsck_err_bits(f, SKG_CHECK_ERROR_PACK,
				                  "error: packfile %s cannot be accessed", pack_path);
			} else if (stat(pack_path, &pst) == 0 && S_ISREG(pst.st_mode)) {
				/* in git's list of packs (a regular .pack it cannot open, e.g. no
				 * permission): its listing takes the idx's objects as present */
				unopened_pack_listed(f, &idx);
			}
			skg_fsck_meter_pack_end(f, skg_pk_idx_count(idx.data, (size_t)idx.len), false);
			skg_file_unmap(&idx);
			return;
		}
		pack_file_error(f, &file, pack_path, &ferr);
		skg_fsck_add_errors(f, SKG_CHECK_ERROR_PACK);
		skg_fsck_meter_pack_end(f, skg_pk_idx_count(idx.data, (size_t)idx.len), false);
		skg_file_unmap(&idx);
		return;
	}
	uint32_t ga, gb;
	enum skg_pk_git_open go =
	    skg_pk_git_open_check_as(idx.data, (size_t)idx.len, file.data, file.len, f->rawsz, &ga, &gb);
	if (go != SKG_PK_GIT_OK && go < SKG_PK_GIT_PACK_SHORT) {
		/* git's verify_pack_index: the idx does not open; its objects are missing to git */
		char *line = git_open_line(go, idx_path, ga, gb);
		if (midx != 0 && line != NULL) {
			remember_midx_unusable(f, line, pack_path, odb, midx);
		} else {
			remember_unusable(f, line, NULL, 0, pack_path);
		}
		if (line == NULL || skg_fsck_stopped(f)) {
			goto out; /* out of memory: remember_unusable freed it */
		}
		skg_fsck_err_line(f, NULL, "%s", line);
		if (!f->connectivity_only) { /* git's --connectivity-only lists the objects, no check */
			skg_fsck_err_bits(f, SKG_CHECK_ERROR_PACK, "error: packfile %s index not opened",
			                  pack_path);
		}
		goto out;
	}
	count = skg_pk_idx_count(idx.data, (size_t)idx.len);
	uint8_t sum[SKG_MAX_RAWSZ];
	skg_checksum((unsigned)f->rawsz, idx.data, (size_t)idx.len - f->rawsz, sum);
	bool idx_sum_ok = memcmp(sum, idx.data + idx.len - f->rawsz, f->rawsz) == 0;
	if (!idx_sum_ok && !f->connectivity_only) {
		skg_fsck_err_bits(f, SKG_CHECK_ERROR_PACK, "error: Packfile index for %s hash mismatch",
		                  pack_path);
	}
	if (go != SKG_PK_GIT_OK) {
		/* verify_packfile: the pack does not open (open_packed_git_1) */
		char *line = git_open_line(go, pack_path, ga, gb);
		uint8_t *copy = idx_copy(&idx);
		if (copy == NULL) {
			free(line);
			skg_fsck_nomem(f);
			goto out;
		}
		remember_unusable(f, line, copy, (size_t)idx.len, NULL);
		if (line == NULL || skg_fsck_stopped(f)) {
			goto out; /* out of memory: remember_unusable freed it */
		}
		if (midx != 0) {
			/* a pack of the multi-pack-index: git's lookups open it only for the IDs the
			 * multi-pack-index places in it (midx.c fill_midx_entry), never by its idx */
			struct skg_fsck_unusable *u = &f->unusable[f->n_unusable - 1];
			if (skg_midx_pack_ids(f->odb_dirs[odb], (unsigned)f->rawsz, f->git_version,
			                      (uint32_t)(midx - 1), &u->mids, &u->n_mids) != 0) {
				skg_fsck_nomem(f);
				goto out;
			}
		}
		if (go == SKG_PK_GIT_PACK_SIGNATURE) {
			/* git's pread of the trailer failed (EINVAL): errno at each lookup it opens this
			 * pack for, which git 2.39's read of an object it does not find dies on */
			f->unusable[f->n_unusable - 1].open_errno = EINVAL;
		}
		if (f->connectivity_only) {
			/* git lists the idx's objects without opening the pack: all present to its walk */
			unopened_pack_listed(f, &idx);
			goto out;
		}
		skg_fsck_err_line(f, NULL, "%s", line);
		skg_fsck_err_bits(f, SKG_CHECK_ERROR_PACK, "error: packfile %s cannot be accessed",
		                  pack_path);
		goto out;
	}
	remember_pack(f, idx_path, pack_path);
	drawn = true;
	f->pack_seq = (uint32_t)f->n_usable_packs;
	const bool promisor = skg_fsck_promisor_pack(pack_path) == 1;
	if (skg_graph_pack_source(f->graph, f->pack_seq, odb, midx != 0, promisor, mtime) != 0) {
		skg_fsck_nomem(f);
		goto out;
	}
	reserve_graph(f, &idx, file.len);
	/* with a promisor remote, git 2.39's collection of the promisor objects parses every object of
	 * a promisor pack, hashing it (fsck_promisor.c): read and hashed here, a failure kept (git
	 * 2.53+ reads no blob there and hashes nothing: what the pass reads anyway serves) */
	const bool hash_all = f->promisor_remote && f->git_version < SKG_GIT_2_55 && promisor;
	if (f->connectivity_only && connectivity_pack(f, &file, &idx, pack_path, idx_path, hash_all)) {
		goto out;
	}
	if (f->connectivity_only) {
		/* a commit, tree or tag of it does not read: git's --connectivity-only checks no pack
		 * (no checksum, CRC or unpack lines); its listing takes every object of the idx as
		 * present, and its walk dies at the first read of one that does not read
		 * (skg_fsck_dies_conn_read): each object read here without lines, the failures kept */
		check_rest(f, &file, &idx, pack_path, idx_path, false, hash_all);
		goto out;
	}
	if (!idx_sum_ok) {
		/* an idx that opens but is not what it was written as: git reads every object through it
		 * (its IDs, offsets and CRC-32s), as the rest of the check will */
		check_rest(f, &file, &idx, pack_path, idx_path, true, hash_all);
		goto out;
	}
	struct skg_pk_options opt;
	skg_pk_options_default(&opt);
	opt.format = f->format;
	opt.threads = f->threads;
	opt.cache_limit = ((uint64_t)96 << 20) * f->threads;
	opt.release = skg_file_release;
	opt.release_ctx = &file;
	opt.read = skg_file_read;
	opt.read_ctx = &file;
	opt.object = pack_object;
	opt.object_ctx = f;
	opt.idx = idx.data; /* the first pass on all the threads (checked against the pack) */
	opt.idx_len = idx.len;
	f->pack = &pack;
	f->pack_idx = &idx;
	int indexed = skg_pk_index_pack(&pack, file.data, file.len, &opt, &err);
	if (indexed != 0 && err.code != SKG_E_COLLISION && machine_failure(f, &err)) {
		pack_lines_out(f, false);
		goto out;
	}
	if (indexed != 0 && err.code != SKG_E_COLLISION) {
		/* a corrupt pack: git reads it object by object through the idx, with its lines */
		skg_fsck_add_errors(f, SKG_CHECK_ERROR_PACK);
		verify_through_idx(f, &file, &idx, pack_path, idx_path, hash_all);
		goto out;
	}
	if (indexed != 0) {
		/* a collision attack (beyond git, which dies there): sha1kit's line, then the rest */
		pack_lines_out(f, true);
		char name[4096];
		skg_fsck_quote(name, sizeof(name), pack_path);
		struct skg_fsck_meta meta = {SKG_R_FSCK, NULL, SKG_NONE, NULL,
		                             SKG_CHECK_ERROR_PACK | SKG_CHECK_ERROR_COLLISION};
		skg_fsck_err_line(f, &meta, "sha1kit: fsck: %s: %s", name, err.msg);
		skg_fsck_add_errors(f, SKG_CHECK_ERROR_PACK | SKG_CHECK_ERROR_COLLISION);
		check_rest(f, &file, &idx, pack_path, idx_path, false, hash_all);
		goto out;
	}
	unsigned version;
	uint64_t limit, first_diff;
	skg_pk_idx_params(idx.data, (size_t)idx.len, &version, &limit);
	int crc = skg_idx_compare(&pack, version, limit, false, &idx, &first_diff, &err);
	if (crc < 0 && err.code == SKG_E_NOMEM) {
		pack_lines_out(f, false);
		skg_fsck_nomem(f); /* not the idx's fault: the run stops */
	} else if (crc != 0) {
		/* an idx whose checksum is right but which is not the pack's (a CRC-32, an offset, a
		 * name; or a pack whose trailer was made again over a changed entry): git trusts it and
		 * reads every object through it (verify_packfile), with its lines */
		verify_through_idx(f, &file, &idx, pack_path, idx_path, hash_all);
	} else {
		pack_lines_out(f, true);
	}
out:
	skg_fsck_meter_pack_end(f, count, drawn);
	f->pack = NULL;
	f->pack_idx = NULL;
	skg_pk_pack_free(&pack);
	skg_file_unmap(&file);
	skg_file_unmap(&idx);
}

uint64_t skg_fsck_progress_count(struct skg_fsck_run *f, const char *idx_path)
{
	/* git's fsck, for its meter's total: open_pack_index() of every pack; one that does not open
	 * adds nothing and prints its line (again when the pack is checked); one that cannot be read
	 * adds nothing, silently */
	struct skg_file idx = {0};
	struct skg_error ferr;
	if (skg_file_map(&idx, idx_path, f->on_map, f->map_ctx, &ferr) != 0) {
		return 0;
	}
	uint32_t a = 0;
	uint64_t n = 0;
	enum skg_pk_git_open go = skg_pk_git_idx_check_as(idx.data, (size_t)idx.len, f->rawsz, &a);
	if (go == SKG_PK_GIT_OK) {
		n = skg_pk_idx_count(idx.data, (size_t)idx.len);
	} else {
		char *line = git_open_line(go, idx_path, a, 0);
		if (line != NULL) {
			skg_fsck_err_line(f, NULL, "%s", line);
		} else {
			skg_fsck_nomem(f);
		}
		free(line);
	}
	skg_file_unmap(&idx);
	return n;
}

uint64_t skg_fsck_idx_count(const char *path)
{
	uint8_t h[8 + 256 * 4];
	FILE *fp = fopen(path, "rb");
	if (fp == NULL) {
		return 0;
	}
	size_t n = fread(h, 1, sizeof(h), fp);
	fclose(fp);
	return skg_pk_idx_count(h, n);
}

static int cmp_tip_place(const void *a, const void *b)
{
	const struct skg_fsck_tip *x = a, *y = b;
	return x->place < y->place ? -1 : x->place > y->place;
}

/* Whether git's read of the entry at `off` dies in use_pack: its header (type and size, a byte
 * while the high bit is set) read, the data after it starts past the pack's last byte before the
 * trailer (which an offset at or past the trailer always does). */
static bool past_end(const uint8_t *d, uint64_t len, uint64_t off, size_t rawsz)
{
	uint64_t end = len - rawsz, at = off;
	if (off >= end) {
		return true;
	}
	while (at < len && (d[at] & 0x80) != 0) {
		at++;
	}
	return at + 1 > end;
}

/* A pack's idx and pack mapped into *idx and *pack when git opens them (git's load_idx and
 * open_packed_git: the idx, then the pack's header, object count and the trailer the idx names):
 * true; else false with both unmapped and zeroed (git does not read from the pack). */
static bool map_as_git(struct skg_fsck_run *f, const struct skg_fsck_pack_ref *p, struct skg_file *idx,
                       struct skg_file *pack)
{
	if (skg_file_map(idx, p->idx, f->on_map, f->map_ctx, NULL) == 0 &&
	    skg_file_map(pack, p->pack, f->on_map, f->map_ctx, NULL) == 0 &&
	    skg_pk_git_usable_as(idx->data, (size_t)idx->len, pack->data, pack->len, f->rawsz)) {
		return true;
	}
	skg_file_unmap(idx);
	skg_file_unmap(pack);
	*idx = *pack = (struct skg_file){0};
	return false;
}

/*
 * Git 2.55's snapshot reads the objects the refs name, in its order, before the object check, each
 * from the first pack that opens and whose idx lists it (packs before loose objects): an idx entry whose
 * offset is past the pack's end (before its trailer) makes use_pack die there, "fatal: offset beyond end of
 * packfile (truncated pack?)", before any line of the check. Only when every object read before it
 * was found sound in this way (packed at an offset inside its pack, or a loose file): else the
 * lines of those reads would come first, and the check gives them as it does without the snapshot.
 * An object a multi-pack-index lists is looked up through it first, at the offset it gives.
 * True when git dies so (the line is out, f->died set).
 */
bool skg_fsck_snapshot_dies(struct skg_fsck_run *f)
{
	struct skg_fsck_pack_ref *packs = NULL;
	size_t n = 0, ntips = f->n_tips;
	bool dies = false;
	if (ntips == 0 || skg_fsck_list_packs(f, false, &packs, &n) != 0 || n == 0) {
		skg_fsck_free_packs(packs, n);
		return false;
	}
	struct skg_file *idx = calloc(n, sizeof(*idx));
	struct skg_file *pack = calloc(n, sizeof(*pack));
	struct skg_fsck_tip *by_place = malloc(ntips * sizeof(*by_place));
	uint8_t *tip_ids = malloc(ntips * f->rawsz);
	uint32_t *mx_pack = malloc(ntips * sizeof(*mx_pack));
	uint64_t *mx_off = malloc(ntips * sizeof(*mx_off));
	char **mnames = NULL;
	size_t nm = 0;
	if (idx == NULL || pack == NULL || by_place == NULL || tip_ids == NULL || mx_pack == NULL ||
	    mx_off == NULL) {
		skg_fsck_nomem(f);
		goto out;
	}
	for (size_t p = 0; p < n; p++) {
		(void)map_as_git(f, &packs[p], &idx[p], &pack[p]);
	}
	memcpy(by_place, f->tips, ntips * sizeof(*by_place));
	qsort(by_place, ntips, sizeof(*by_place), cmp_tip_place);
	for (size_t k = 0; k < ntips; k++) {
		memcpy(tip_ids + k * f->rawsz, by_place[k].id, f->rawsz);
		mx_pack[k] = UINT32_MAX;
	}
	if (f->n_odb_dirs > 0 && !f->no_midx &&
	    skg_midx_pack_names(f->odb_dirs[0], (unsigned)f->rawsz, f->git_version, &mnames, &nm, tip_ids,
	                        ntips, mx_pack, mx_off) != 0) {
		skg_fsck_nomem(f);
		goto out;
	}
	for (size_t k = 0; k < ntips && !dies; k++) {
		bool found = false;
		/* through the multi-pack-index first: the offset it gives, in its pack, if that opens */
		for (size_t p = 0; p < n && !found && mx_pack[k] != UINT32_MAX; p++) {
			if (packs[p].midx != (size_t)mx_pack[k] + 1 || pack[p].data == NULL) {
				continue;
			}
			found = true;
			if (mx_off[k] != UINT64_MAX &&
			    past_end(pack[p].data, pack[p].len, mx_off[k], f->rawsz)) {
				skg_fsck_err_line(f, NULL,
				                  "fatal: offset beyond end of packfile (truncated pack?)");
				f->died = dies = true;
			}
		}
		for (size_t p = 0; p < n && !found; p++) {
			uint64_t off = 0;
			int at = idx[p].data != NULL && packs[p].midx == 0
			             ? skg_pk_idx_lookup(idx[p].data, (size_t)idx[p].len, f->rawsz,
			                                 by_place[k].id, &off)
			             : 0;
			if (at == 0) {
				continue;
			}
			found = true;
			if (at < 0) {
				skg_fsck_err_line(
				    f, NULL,
				    "fatal: offset beyond end of pack index for %s (truncated index?)",
				    packs[p].pack);
				f->died = dies = true;
			} else if (past_end(pack[p].data, pack[p].len, off, f->rawsz)) {
				skg_fsck_err_line(f, NULL,
				                  "fatal: offset beyond end of packfile (truncated pack?)");
				f->died = dies = true;
			}
		}
		if (!found && !skg_fsck_loose_file_exists(f, by_place[k].id)) {
			break; /* its lines would come first */
		}
	}
out:
	for (size_t p = 0; idx != NULL && pack != NULL && p < n; p++) {
		skg_file_unmap(&idx[p]);
		skg_file_unmap(&pack[p]);
	}
	free(idx);
	free(pack);
	free(tip_ids);
	free(mx_pack);
	free(mx_off);
	for (size_t i = 0; i < nm; i++) {
		free(mnames[i]);
	}
	free(mnames);
	free(by_place);
	skg_fsck_free_packs(packs, n);
	return dies;
}

/* The object directories: the repository's, then its alternates. */
/*
 * git 2.39.5's order of packs (packfile.c get_all_packs, prepare_packed_git, sort_pack): the packs
 * of the repository's multi-pack-index first, the last it names first (each is put at the head of
 * the list after the others were sorted); then the repository's own packs before those of
 * alternates, the newest .pack first; packs of the same second in the order git's list has them,
 * which is the reverse of reading: the later object directory, and the later in its listing, first.
 *
 * git 2.55.0's (packfile.c repo_for_each_pack, packfile_store_prepare, packfile_store_get_packs,
 * prepare_pack, packfile_store_load_pack; builtin/fsck.c odb_reprepare after snapshot_refs): each
 * object directory in turn, its packs in one list: those its multi-pack-index does not name, in
 * listing order (stably sorted newest first), each that the snapshot's reads of the ref tips find
 * a tip in moved to the front (find_pack_entry's most-recently-used order, mru_ranks), then those
 * the snapshot's reads loaded through the multi-pack-index, in the order of loading, all sorted
 * (stably) newest .pack first when fsck reprepares; then the packs of the multi-pack-index nothing
 * loaded, in its order, as git's walk of them appends each.
 */
static int cmp_pack_ref_255(const struct skg_fsck_pack_ref *x, const struct skg_fsck_pack_ref *y)
{
	if (x->odb != y->odb) {
		return x->odb < y->odb ? -1 : 1;
	}
	bool xb = x->midx != 0 && x->touch == 0, yb = y->midx != 0 && y->touch == 0;
	if (xb != yb) {
		return xb ? 1 : -1;
	}
	if (xb) {
		return x->midx < y->midx ? -1 : x->midx > y->midx;
	}
	if (x->mtime != y->mtime) {
		return x->mtime > y->mtime ? -1 : 1;
	}
	if ((x->touch != 0) != (y->touch != 0)) {
		return x->touch != 0 ? 1 : -1;
	}
	if (x->touch != y->touch) {
		return x->touch < y->touch ? -1 : 1;
	}
	if (x->mru != y->mru) {
		return x->mru < y->mru ? -1 : 1;
	}
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * git 2.55's list of the packs no multi-pack-index lists, after the snapshot's reads of the ref
 * tips (packfile.c find_pack_entry: a tip found through the multi-pack-index moves nothing; else
 * the first pack of the list that has it, and opens, goes to the front, packfile_list_prepend):
 * v[i].mru for each, from the listing's order stably sorted newest first (packfile_store_prepare).
 * A tip in no pack of an object directory is looked for in the next one. A pack whose idx or pack
 * does not open holds nothing to git's lookups. The order only decides between packs of the same
 * second (fsck sorts by mtime again): without two such, no tip is looked up. 0, or -1 when out of
 * memory.
 */
static int mru_ranks(struct skg_fsck_run *f, struct skg_fsck_pack_ref *v, size_t n, const uint8_t *tips,
                     const uint32_t *tip_pack, size_t ntips)
{
	/* list: the packs in git's list order (by object directory, as v is) */
	struct skg_fsck_pack_ref **list = malloc((n > 0 ? n : 1) * sizeof(*list));
	if (list == NULL) {
		return -1;
	}
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		v[i].mru = 0;
		if (v[i].midx == 0) {
			list[m++] = &v[i];
		}
	}
	/* the listing's order, newest first (a stable insertion sort within each directory) */
	bool same_second = false;
	for (size_t a = 1; a < m; a++) {
		for (size_t b = a;
		     b > 0 && list[b - 1]->odb == list[b]->odb &&
		     (list[b - 1]->mtime < list[b]->mtime ||
		      (list[b - 1]->mtime == list[b]->mtime && list[b - 1]->seq > list[b]->seq));
		     b--) {
			struct skg_fsck_pack_ref *t = list[b - 1];
			list[b - 1] = list[b];
			list[b] = t;
		}
	}
	for (size_t a = 0; a < m; a++) {
		list[a]->mru = (int64_t)a;
		same_second = same_second || (a > 0 && list[a - 1]->odb == list[a]->odb &&
		                              list[a - 1]->mtime == list[a]->mtime);
	}
	if (!same_second || ntips == 0) {
		free(list);
		return 0;
	}
	struct skg_file *idx = calloc(m, sizeof(*idx));
	bool *usable = calloc(m, sizeof(*usable));
	if (idx == NULL || usable == NULL) {
		free(idx);
		free(usable);
		free(list);
		return -1;
	}
	for (size_t a = 0; a < m; a++) {
		struct skg_file pk = {0};
		usable[a] = map_as_git(f, list[a], &idx[a], &pk);
		skg_file_unmap(&pk);
	}
	/* the list as git keeps it: a tip is found in the first pack from the front that has it (most
	 * often the first), which moves to the front of its object directory's packs */
	size_t *ord = malloc(m * sizeof(*ord));
	if (ord == NULL) {
		for (size_t a = 0; a < m; a++) {
			skg_file_unmap(&idx[a]);
		}
		free(idx);
		free(usable);
		free(list);
		return -1;
	}
	for (size_t a = 0; a < m; a++) {
		ord[a] = a;
	}
	for (size_t k = 0; k < ntips; k++) {
		if (tip_pack[k] != UINT32_MAX) {
			continue; /* found through the multi-pack-index */
		}
		for (size_t p = 0; p < m; p++) {
			size_t a = ord[p];
			uint64_t off;
			if (!usable[a] || skg_pk_idx_lookup(idx[a].data, (size_t)idx[a].len, f->rawsz,
			                                    tips + k * f->rawsz, &off) <= 0) {
				continue;
			}
			size_t s0 = p;
			while (s0 > 0 && list[ord[s0 - 1]]->odb == list[a]->odb) {
				s0--;
			}
			memmove(ord + s0 + 1, ord + s0, (p - s0) * sizeof(*ord));
			ord[s0] = a;
			break;
		}
	}
	for (size_t p = 0; p < m; p++) {
		list[ord[p]]->mru = (int64_t)p;
	}
	for (size_t a = 0; a < m; a++) {
		skg_file_unmap(&idx[a]);
	}
	free(ord);
	free(idx);
	free(usable);
	free(list);
	return 0;
}

static int cmp_pack_ref(const void *a, const void *b)
{
	const struct skg_fsck_pack_ref *x = a, *y = b;
	if (x->v255) {
		return cmp_pack_ref_255(x, y);
	}
	if (x->midx != y->midx) {
		return x->midx > y->midx ? -1 : 1;
	}
	if ((x->odb == 0) != (y->odb == 0)) {
		return x->odb == 0 ? -1 : 1;
	}
	if (x->mtime != y->mtime) {
		return x->mtime > y->mtime ? -1 : 1;
	}
	if (x->odb != y->odb) {
		return x->odb > y->odb ? -1 : 1;
	}
	return x->seq > y->seq ? -1 : x->seq < y->seq;
}

/*
 * Every pack-*.idx of the object directories' pack/ with its .pack (a .pack that is not a regular
 * file is no pack to git's add_packed_git, silently), in git's order.
 */
/* The list skg_fsck_list_packs builds, and what it places each pack by. */
struct pack_list {
	struct skg_fsck_pack_ref *v;
	size_t n, cap;
	char **midx; /* the multi-pack-index's pack names */
	size_t nmidx;
	const uint32_t *tip_pack; /* the place there of the pack each ref tip is found in */
	size_t ntips;
	bool v255;
	int stat_errno; /* the last .pack whose stat failed but for its absence (ELOOP, EACCES) */
};

/* DIR/NAME (an idx) and its .pack in the list when the .pack is a regular file (packfile.c
 * add_packed_git), `o`: the object directory's place, `seq`: the idx's in the listing. 0, or -1
 * when out of memory. */
static int add_pack_ref(struct pack_list *l, const char *dir, const char *name, size_t o, size_t seq)
{
	const size_t len = strlen(name);
	struct skg_buf idx = {0}, pack = {0};
	skg_buf_addf(&idx, "%s/%s", dir, name);
	skg_buf_addf(&pack, "%s/%.*s.pack", dir, (int)(len - 4), name);
	struct stat st;
	int ret = idx.failed || pack.failed ? -1 : 0;
	const int stat_rc = ret == 0 ? stat(skg_buf_str(&pack), &st) : 0;
	const int stat_errno = errno;
	if (ret == 0 && stat_rc == 0 && S_ISREG(st.st_mode)) {
		if (l->n == l->cap) {
			size_t cap = l->cap ? 2 * l->cap : 16;
			struct skg_fsck_pack_ref *w = realloc(l->v, cap * sizeof(*w));
			if (w == NULL) {
				skg_buf_release(&idx);
				skg_buf_release(&pack);
				return -1;
			}
			l->v = w;
			l->cap = cap;
		}
		size_t in_midx = 0, touch = 0;
		for (size_t m = 0; o == 0 && m < l->nmidx && in_midx == 0; m++) {
			in_midx = strcmp(l->midx[m], name) == 0 ? m + 1 : 0;
		}
		for (size_t k = 0; in_midx != 0 && k < l->ntips && touch == 0; k++) {
			touch = l->tip_pack[k] == in_midx - 1 ? k + 1 : 0;
		}
		l->v[l->n++] = (struct skg_fsck_pack_ref){idx.p,   pack.p, o,       seq, (int64_t)st.st_mtime,
		                                          in_midx, touch,  l->v255, 0};
		return 0; /* the strings are the list's now */
	}
	if (ret == 0 && stat_rc != 0 && stat_errno != ENOENT) {
		l->stat_errno = stat_errno;
	}
	skg_buf_release(&idx);
	skg_buf_release(&pack);
	return ret;
}

int skg_fsck_list_packs(struct skg_fsck_run *f, bool dir_errors, struct skg_fsck_pack_ref **out, size_t *n)
{
	struct pack_list l = {0};
	bool failed = false;
	*n = 0;
	/* git 2.55: the ref tips in the snapshot's order, and the pack each is found in through the
	 * repository's multi-pack-index */
	bool v255 = f->git_version >= SKG_GIT_2_55;
	size_t ntips = v255 ? f->n_tips : 0;
	uint8_t *tips = malloc(ntips > 0 ? ntips * f->rawsz : 1);
	uint32_t *tip_pack = malloc((ntips > 0 ? ntips : 1) * sizeof(*tip_pack));
	/* f->tips is by ID, each with its place (places of repeated IDs left out): here by place */
	struct skg_fsck_tip *by_place = malloc((ntips > 0 ? ntips : 1) * sizeof(*by_place));
	if (tips == NULL || tip_pack == NULL || by_place == NULL) {
		free(tips);
		free(tip_pack);
		free(by_place);
		skg_fsck_nomem(f);
		return -1;
	}
	if (ntips > 0) {
		memcpy(by_place, f->tips, ntips * sizeof(*by_place));
		qsort(by_place, ntips, sizeof(*by_place), cmp_tip_place);
	}
	for (size_t k = 0; k < ntips; k++) {
		memcpy(tips + k * f->rawsz, by_place[k].id, f->rawsz);
		tip_pack[k] = UINT32_MAX; /* none found through a multi-pack-index */
	}
	free(by_place);
	if (f->n_odb_dirs > 0 && !f->no_midx) {
		(void)skg_midx_pack_names(f->odb_dirs[0], (unsigned)f->rawsz, f->git_version, &l.midx,
		                          &l.nmidx, tips, ntips, tip_pack, NULL);
	}
	l.tip_pack = tip_pack;
	l.ntips = ntips;
	l.v255 = v255;
	for (size_t o = 0; o < f->n_odb_dirs && !failed; o++) {
		struct skg_buf dir = {0};
		skg_buf_addf(&dir, "%s/pack", f->odb_dirs[o]);
		failed = dir.failed;
		DIR *d = opendir(skg_buf_str(&dir));
		if (d == NULL && errno != ENOENT && !failed && dir_errors) {
			pack_dir_error(f, skg_buf_str(&dir), errno);
			failed = skg_fsck_stopped(f);
		}
		struct dirent *de;
		size_t seq = 0;
		while (d != NULL && !failed && (de = readdir(d)) != NULL) {
			if (skg_ends_with(de->d_name, ".idx")) { /* git: any *.idx, not only pack-*.idx */
				failed = add_pack_ref(&l, skg_buf_str(&dir), de->d_name, o, seq++) != 0;
			}
		}
		/* a pack the multi-pack-index names whose idx is missing: in git's list all the same
		 * (midx.c prepare_midx_pack, add_packed_git looks for the .pack only) */
		for (size_t m = 0; o == 0 && d != NULL && !failed && m < l.nmidx; m++) {
			bool listed = false;
			for (size_t k = 0; k < l.n && !listed; k++) {
				listed = l.v[k].odb == 0 && l.v[k].midx == m + 1;
			}
			struct skg_buf idx = {0};
			struct stat st;
			skg_buf_addf(&idx, "%s/%s", skg_buf_str(&dir), l.midx[m]);
			failed = idx.failed;
			if (!listed && !failed && skg_ends_with(l.midx[m], ".idx") &&
			    lstat(skg_buf_str(&idx), &st) != 0 && errno == ENOENT) {
				failed = add_pack_ref(&l, skg_buf_str(&dir), l.midx[m], o, seq++) != 0;
			}
			skg_buf_release(&idx);
		}
		if (d != NULL) {
			closedir(d);
		}
		skg_buf_release(&dir);
	}
	if (l.stat_errno != 0 && dir_errors && !failed) {
		/* git's add_packed_git leaves the pack out without a word, at each re-reading of the
		 * pack directories too: git 2.39's read of an object it does not find dies on that
		 * errno (a .pack that is a link to itself: ELOOP) */
		push_unusable(
		    f, (struct skg_fsck_unusable){NULL, NULL, 0, 0, NULL, false, NULL, 0, l.stat_errno},
		    true);
		failed = skg_fsck_stopped(f);
	}
	for (size_t m = 0; m < l.nmidx; m++) {
		free(l.midx[m]);
	}
	free(l.midx);
	struct skg_fsck_pack_ref *v = l.v;
	*n = l.n;
	failed = failed || (*n > 0 && v255 && mru_ranks(f, v, *n, tips, tip_pack, ntips) != 0);
	free(tips);
	free(tip_pack);
	if (failed) {
		skg_fsck_free_packs(v, *n);
		*out = NULL;
		*n = 0;
		skg_fsck_nomem(f);
		return -1;
	}
	if (*n > 0) {
		qsort(v, *n, sizeof(*v), cmp_pack_ref);
	}
	*out = v;
	return 0;
}

static int cmp_pack_sort(const void *a, const void *b)
{
	const struct skg_fsck_pack_ref *x = a, *y = b;
	if ((x->odb == 0) != (y->odb == 0)) {
		return x->odb == 0 ? -1 : 1;
	}
	if (x->mtime != y->mtime) {
		return x->mtime > y->mtime ? -1 : 1;
	}
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int skg_fsck_packs_sorted(struct skg_fsck_run *f, struct skg_fsck_pack_ref **out, size_t *n)
{
	if (skg_fsck_list_packs(f, false, out, n) != 0) {
		return -1;
	}
	/* git's list after its last re-reading (odb_reprepare, before the object check), sorted as
	 * packfile.c sort_pack sorts it: local packs first, then the newer .pack first (a stable
	 * sort: ties keep the listing's order) */
	for (size_t i = 0; i < *n; i++) {
		(*out)[i].seq = i;
	}
	if (*n > 1) {
		qsort(*out, *n, sizeof(**out), cmp_pack_sort);
	}
	return 0;
}

void skg_fsck_free_packs(struct skg_fsck_pack_ref *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].idx);
		free(v[i].pack);
	}
	free(v);
}

static bool earlier_copy(struct skg_fsck_run *f, const struct skg_fsck_bad_packed *b);

bool skg_fsck_child_dies_bad_packed(struct skg_fsck_run *f, const uint8_t *id)
{
	if (skg_fsck_midx_dies(f, id, true)) {
		return true; /* its lookup in the multi-pack-index */
	}
	unsigned type;
	if (skg_fsck_falls_back(f, id, true, &type)) {
		return false; /* it reads the next copy */
	}
	for (size_t i = 0; i < f->n_bad_packed; i++) {
		const struct skg_fsck_bad_packed *b = &f->bad_packed[i];
		/* (a copy in a pack before it is the one the child reads) */
		if (memcmp(b->id, id, f->rawsz) == 0 && !b->mismatch && !earlier_copy(f, b)) {
			char h[SKG_MAX_HEXSZ + 1];
			skg_to_hex_len(id, f->rawsz, h);
			/* nothing is marked bad in a new process: unpack_entry's lines */
			reread_lines(f, b, false);
			skg_fsck_err_line(f, NULL, "fatal: packed object %s (stored in %s) is corrupt", h,
			                  b->pack);
			return true;
		}
	}
	return false;
}

/* skg_fsck_child_dies_unread_packed, or in fsck's own walk (not `child`: f->died) */
static bool dies_unread_packed(struct skg_fsck_run *f, const uint8_t *id, bool child)
{
	if (!f->connectivity_only) {
		return false; /* the object check read every packed object */
	}
	for (size_t i = 0; i < f->n_usable_packs; i++) {
		struct skg_file idx = {0};
		uint64_t off = 0;
		bool found = skg_file_map(&idx, f->usable_packs[i].idx, f->on_map, f->map_ctx, NULL) == 0 &&
		             skg_pk_idx_find_as(idx.data, (size_t)idx.len, (unsigned)f->rawsz, id, &off);
		skg_file_unmap(&idx);
		if (found) {
			/* the first pack that has it, as the child's lookup (a copy elsewhere: not modelled)
			 */
			remember_bad_packed(f, id, false, false, off, f->usable_packs[i].pack,
			                    f->usable_packs[i].idx);
			return child ? skg_fsck_child_dies_bad_packed(f, id) : skg_fsck_dies_conn_read(f, id);
		}
	}
	return false;
}

bool skg_fsck_child_dies_unread_packed(struct skg_fsck_run *f, const uint8_t *id)
{
	return dies_unread_packed(f, id, true);
}

bool skg_fsck_walk_read_dies(struct skg_fsck_run *f, const uint8_t *id, unsigned type)
{
	if (!f->connectivity_only || type < SKG_COMMIT || type > SKG_TAG) {
		return false;
	}
	uint8_t *data = NULL;
	size_t len = 0;
	uint32_t seq = 0;
	uint64_t where;
	int rc;
	if (type == SKG_BLOB) {
		rc = skg_fsck_read_blob(f, id, f->big_file, &data, &len, &seq, &where);
	} else {
		rc = skg_fsck_read_object(f, id, type, f->big_file, &data, &len, &seq, &where);
	}
	free(data);
	if (rc == -2) {
		skg_fsck_nomem(f);
	}
	/* a blob over the threshold (1) is streamed by the check; the walk's parse reads it whole */
	return (rc == -1 || rc == 1) && dies_unread_packed(f, id, false);
}

/* git 2.39's read of an object it does not find: errno is still that of the last pack directory
 * that did not open in the re-reading, or of the last pack whose open failed on a lookup of it, and
 * read_object_file_extended dies on it (in fsck itself: f->died; or in the `git commit-graph
 * verify` it started, `child`); 2.55 finds no object and goes on (c2b). True when git dies (its
 * line is out). */
static bool dies_errno_239(struct skg_fsck_run *f, const uint8_t *id, bool child)
{
	if (f->git_version >= SKG_GIT_2_55) {
		return false;
	}
	int e = 0;
	for (size_t i = 0; i < f->n_unusable; i++) {
		const struct skg_fsck_unusable *u = &f->unusable[i];
		uint64_t off;
		/* a pack that does not open (its idx kept): only a lookup of an ID it lists opens it */
		bool opened = u->mids != NULL ? midx_places(u, id, f->rawsz)
		                              : u->idx == NULL || skg_pk_idx_find_as(u->idx, u->idx_len,
		                                                                     f->rawsz, id, &off);
		e = u->dir_errno != 0 ? u->dir_errno : u->open_errno != 0 && opened ? u->open_errno : e;
	}
	if (e == 0) {
		return false;
	}
	char h[SKG_MAX_HEXSZ + 1];
	skg_to_hex_len(id, f->rawsz, h);
	skg_fsck_err_line(f, NULL, "fatal: failed to read object %s: %s", h, strerror(e));
	f->died = f->died || !child;
	return true;
}

/* The first copy of `id` the check found corrupt or reading back as another object (NULL: none). */
static struct skg_fsck_bad_packed *bad_copy(struct skg_fsck_run *f, const uint8_t *id)
{
	for (size_t i = 0; i < f->n_bad_packed; i++) {
		if (memcmp(f->bad_packed[i].id, id, f->rawsz) == 0) {
			return &f->bad_packed[i];
		}
	}
	return NULL;
}

/* git's read of copy b of `id`: a corrupt one, its lines again unless git marked it bad, then it
 * dies (f->died, true); one that reads back with another ID: "hash mismatch" (with mismatch_line),
 * and git goes on (false). */
static bool bad_copy_dies(struct skg_fsck_run *f, const struct skg_fsck_bad_packed *b, const uint8_t *id,
                          bool mismatch_line, bool before_check, bool info_first)
{
	char h[SKG_MAX_HEXSZ + 1];
	skg_to_hex_len(id, f->rawsz, h);
	if (b->mismatch) {
		if (mismatch_line) {
			skg_fsck_err_line(f, NULL, "error: hash mismatch %s", h);
		}
		return false;
	}
	if (!b->marked || before_check) {
		reread_lines(f, b, info_first);
	}
	skg_fsck_err_line(f, NULL, "fatal: packed object %s (stored in %s) is corrupt", h, b->pack);
	f->died = true;
	return true;
}

/* git's look at the type of copy b (skg_pk_git_info_type, its lines not given): 1..4, or below 1
 * where that fails or the pack or idx does not map. */
static int copy_info_type(struct skg_fsck_run *f, const struct skg_fsck_bad_packed *b)
{
	struct skg_file file = {0}, idx = {0};
	int t = -1;
	if (skg_file_map(&idx, b->idx, f->on_map, f->map_ctx, NULL) == 0 &&
	    skg_file_map(&file, b->pack, f->on_map, f->map_ctx, NULL) == 0) {
		t = skg_pk_git_info_type(file.data, file.len, idx.data, (size_t)idx.len, f->rawsz, b->offset,
		                         b->pack, skg_pk_no_line, NULL);
	}
	skg_file_unmap(&file);
	skg_file_unmap(&idx);
	return t;
}

/* Whether usable_packs[i]'s idx lists `id`. */
static bool pack_has(struct skg_fsck_run *f, const uint8_t *id, size_t i)
{
	struct skg_file idx = {0};
	uint64_t off;
	bool found = skg_file_map(&idx, f->usable_packs[i].idx, f->on_map, f->map_ctx, NULL) == 0 &&
	             skg_pk_idx_find_as(idx.data, (size_t)idx.len, (unsigned)f->rawsz, id, &off);
	skg_file_unmap(&idx);
	return found;
}

/* The place of pack `pack` among usable_packs (git's order of reading); n_usable_packs when none. */
static size_t pack_place(const struct skg_fsck_run *f, const char *pack)
{
	size_t at = 0;
	while (at < f->n_usable_packs && strcmp(f->usable_packs[at].pack, pack) != 0) {
		at++;
	}
	return at;
}

/* Whether a pack before usable_packs[upto] in git's order of reading has `id`. */
static bool earlier_pack_has(struct skg_fsck_run *f, const uint8_t *id, size_t upto)
{
	bool found = false;
	for (size_t i = 0; i < upto && !found; i++) {
		found = pack_has(f, id, i);
	}
	return found;
}

void skg_fsck_retyped_first(struct skg_fsck_run *f)
{
	for (size_t b = 0; b < f->n_bad_packed + f->n_conn_mismatch && !f->midx_packs; b++) {
		const struct skg_fsck_bad_packed *bp =
		    b < f->n_bad_packed ? &f->bad_packed[b] : &f->conn_mismatch[b - f->n_bad_packed];
		unsigned as = 0;
		if (!bp->mismatch || skg_fsck_routed(f, bp->id) || !skg_graph_known(f->graph, bp->id, &as)) {
			continue;
		}
		/* the walk reads a tree again; with --connectivity-only a commit (but one of the
		 * commit-graph) or tag too */
		if (!(as == SKG_TREE ||
		      (f->connectivity_only &&
		       (as == SKG_TAG || (as == SKG_COMMIT && !skg_fsck_graph_has(f, bp->id)))))) {
			continue;
		}
		const size_t at = pack_place(f, bp->pack);
		if (at == f->n_usable_packs || earlier_pack_has(f, bp->id, at)) {
			continue; /* git reads another copy first */
		}
		const int t = copy_info_type(f, bp);
		if (t < SKG_COMMIT || t > SKG_TAG || (unsigned)t == as ||
		    !skg_graph_set_noread(f->graph, bp->id)) {
			continue; /* (the same type with other contents: not modelled) */
		}
		uint8_t *v = realloc(f->retyped, (f->n_retyped + 1) * f->rawsz);
		if (v == NULL) {
			skg_fsck_nomem(f);
			return;
		}
		f->retyped = v;
		memcpy(v + f->n_retyped++ * f->rawsz, bp->id, f->rawsz);
		char h[SKG_MAX_HEXSZ + 1], why[SKG_MAX_HEXSZ + 32];
		skg_to_hex_len(bp->id, f->rawsz, h);
		snprintf(why, sizeof(why), "Object %s not a %s", h, skg_fsck_tname(as));
		skg_fsck_walk_line(f, bp->id, why, false);
	}
}

/* Whether git's lookup of b's object finds a copy in a pack before b's (so never reads b): not where
 * a multi-pack-index chooses the copy. */
static bool earlier_copy(struct skg_fsck_run *f, const struct skg_fsck_bad_packed *b)
{
	if (f->midx_packs || skg_fsck_routed(f, b->id)) {
		return false;
	}
	const size_t at = pack_place(f, b->pack);
	return at < f->n_usable_packs && earlier_pack_has(f, b->id, at);
}

bool skg_fsck_walk_reread(struct skg_fsck_run *f, const uint8_t *id)
{
	for (size_t i = 0; i < f->n_ext_base; i++) {
		const struct skg_fsck_bad_packed *x = &f->ext_base[i];
		if (memcmp(x->id, id, f->rawsz) != 0) {
			continue;
		}
		/* a copy that itself does not read: no lines where git marked it bad, or read it
		 * again already (skg_fsck_falls_back); else its lines once */
		for (size_t k = 0; k < f->n_bad_packed; k++) {
			struct skg_fsck_bad_packed *b = &f->bad_packed[k];
			if (memcmp(b->id, id, f->rawsz) == 0 && b->offset == x->offset &&
			    strcmp(b->pack, x->pack) == 0) {
				if (b->marked || b->reread) {
					return true;
				}
				b->reread = true;
			}
		}
		reread_lines(f, x, false);
		return true;
	}
	return false;
}

bool skg_fsck_falls_back(struct skg_fsck_run *f, const uint8_t *id, bool child, unsigned *type)
{
	struct skg_fsck_bad_packed *b = bad_copy(f, id);
	if (b == NULL || b->mismatch || !skg_graph_known(f->graph, id, type) || *type == SKG_NONE) {
		return false;
	}
	const bool midx = f->midx_packs || skg_fsck_routed(f, id);
	const size_t at = pack_place(f, b->pack);
	if (!midx && (at == f->n_usable_packs || earlier_pack_has(f, id, at))) {
		return false; /* (an earlier copy: not this case) */
	}
	/* a readable copy after it: a later pack that has it and where the check read it, or a loose
	 * file (through a multi-pack-index: its lookup passes a copy marked bad over, midx.c
	 * fill_midx_entry, and git's read goes on to the loose file; a copy in another pack is not
	 * modelled there) */
	bool other = skg_fsck_loose_file_exists(f, id);
	for (size_t i = at + 1; i < f->n_usable_packs && !other && !midx; i++) {
		bool bad_there = false;
		for (size_t k = 0; k < f->n_bad_packed && !bad_there; k++) {
			bad_there = memcmp(f->bad_packed[k].id, id, f->rawsz) == 0 &&
			            strcmp(f->bad_packed[k].pack, f->usable_packs[i].pack) == 0;
		}
		other = !bad_there && pack_has(f, id, i);
	}
	if (!other) {
		return false;
	}
	if (child || (!b->marked && !b->reread)) {
		reread_lines(f, b, false);
	}
	b->reread = b->reread || !child;
	return true;
}

bool skg_fsck_retyped(const struct skg_fsck_run *f, const uint8_t *id)
{
	for (size_t i = 0; i < f->n_retyped; i++) {
		if (memcmp(f->retyped + i * f->rawsz, id, f->rawsz) == 0) {
			return true;
		}
	}
	return false;
}

bool skg_fsck_dies_bad_copy(struct skg_fsck_run *f, const uint8_t *id)
{
	const struct skg_fsck_bad_packed *b = bad_copy(f, id);
	return b != NULL && bad_copy_dies(f, b, id, false, false, false);
}

bool skg_fsck_dies_conn_read(struct skg_fsck_run *f, const uint8_t *id)
{
	const struct skg_fsck_bad_packed *b = f->connectivity_only ? bad_copy(f, id) : NULL;
	return b != NULL && !b->mismatch && !earlier_copy(f, b) &&
	       bad_copy_dies(f, b, id, false, false, false);
}

bool skg_fsck_referent_dies(struct skg_fsck_run *f, const uint8_t *id)
{
	const struct skg_fsck_bad_packed *b = f->connectivity_only ? bad_copy(f, id) : NULL;
	if (b == NULL || b->mismatch || earlier_copy(f, b)) {
		return false;
	}
	/* git's type of it (oid_object_info: the entry headers); a blob's walk parses nothing */
	int type = copy_info_type(f, b);
	return type != SKG_BLOB && bad_copy_dies(f, b, id, false, false, false);
}

/* skg_fsck_dies_bad_packed; before_check: a read git makes before its own pass over the packs
 * (2.55's snapshot of the refs), which has marked no delta base bad yet; info_first: parse_object's
 * read, which looks at the type first */
static bool dies_bad_packed(struct skg_fsck_run *f, const uint8_t *id, bool before_check, bool info_first)
{
	if (skg_fsck_midx_dies(f, id, false)) {
		return true; /* its lookup in the multi-pack-index */
	}
	const struct skg_fsck_bad_packed *b = bad_copy(f, id);
	return b != NULL ? bad_copy_dies(f, b, id, true, before_check, info_first)
	                 : dies_errno_239(f, id, false);
}

bool skg_fsck_dies_bad_packed(struct skg_fsck_run *f, const uint8_t *id)
{
	return dies_bad_packed(f, id, false, false);
}

bool skg_fsck_has_bad_copy(struct skg_fsck_run *f, const uint8_t *id)
{
	return bad_copy(f, id) != NULL;
}

bool skg_fsck_bad_copy_parses_unhashed(struct skg_fsck_run *f, const uint8_t *id)
{
	const struct skg_fsck_bad_packed *b = bad_copy(f, id);
	if (b == NULL || b->mismatch || b->marked) {
		return b != NULL && b->mismatch;
	}
	/* a blob is not read: its type from the entry headers (object.c parse_object_with_flags), when
	 * git has it in memory as a blob or with no type; one it has as a commit, tree or tag (from a
	 * link it parsed) is read (a tree whose entry header became a blob's; a new user's trial) */
	unsigned known = skg_fsck_in_memory_type(f, id);
	return (known == SKG_NONE || known == SKG_BLOB) && copy_info_type(f, b) == SKG_BLOB;
}

bool skg_fsck_ref_dies_bad_packed(struct skg_fsck_run *f, const uint8_t *id)
{
	/* (--connectivity-only listed every object before its refs but in 2.55's snapshot: an object
	 * in memory is read without the look at its type) */
	return dies_bad_packed(f, id, f->snapshot, f->snapshot || !f->connectivity_only);
}

bool skg_fsck_child_dies_errno(struct skg_fsck_run *f, const uint8_t *id)
{
	return dies_errno_239(f, id, true);
}
