/*
 * fsck_special.c - the blobs trees name .gitmodules or .gitattributes, in a repository check
 * (fsck_run.h): git 2.39.5's fsck_finish (fsck.c) and fsck_blob: each such blob is read once
 * (fsck_read.c) and checked by skg_fsck_special_blob (fsck_object.h), or reported as unreadable or
 * not a blob, with the exit bit of where git would have checked it.
 */
#include <stdlib.h>
#include <string.h>

#include "fsck_run.h"
#include "oidset_order.h"
#include "pack.h"
#include "pack_file.h"

void skg_fsck_on_found(void *ctx, enum skg_fsck_special kind, const uint8_t *id)
{
	struct skg_fsck_run *f = ((struct skg_fsck_dest *)ctx)->f;
	pthread_mutex_lock(&f->lock);
	if (f->n_specials == f->cap_specials) {
		size_t cap = f->cap_specials ? 2 * f->cap_specials : 64;
		struct skg_fsck_special_blob_ref *v = realloc(f->specials, cap * sizeof(*v));
		if (v == NULL) {
			pthread_mutex_unlock(&f->lock);
			skg_fsck_nomem(f);
			return;
		}
		f->specials = v;
		f->cap_specials = cap;
	}
	struct skg_fsck_special_blob_ref *sp = &f->specials[f->n_specials++];
	memset(sp->id, 0, sizeof(sp->id)); /* compared whole (cmp_special) */
	memcpy(sp->id, id, f->rawsz);
	sp->kinds = kind;
	const struct skg_fsck_dest *d = ctx;
	sp->pack_seq = d->pack_seq;
	sp->offset = d->offset;
	sp->order =
	    skg_graph_order(d->pack_seq, d->offset, d->odb >= 0 ? (uint32_t)d->odb : 0, d->dir, d->nth);
	pthread_mutex_unlock(&f->lock);
}

/* Whether position (seq, off) comes before (seq2, off2) in git's order of checks (struct skg_fsck_dest). */
static bool checked_before(uint32_t seq, uint64_t off, uint32_t seq2, uint64_t off2)
{
	return seq < seq2 || (seq == seq2 && off < off2);
}

/* The skg_graph_order of a pack's flag (pack_seq > 0): packed objects come after the loose ones. */
#define ORDER_PACKED ((uint64_t)1 << 63)

static int cmp_special(const void *a, const void *b)
{
	const struct skg_fsck_special_blob_ref *x = a, *y = b;
	int c = memcmp(x->id, y->id, sizeof(x->id));
	if (c != 0) {
		return c;
	}
	return checked_before(x->pack_seq, x->offset, y->pack_seq, y->offset)   ? -1
	       : checked_before(y->pack_seq, y->offset, x->pack_seq, x->offset) ? 1
	                                                                        : 0;
}

/*
 * fsck_blobs on a blob the object check could not read: git's odb_read_object() of it dies where a
 * copy is there but corrupt (a loose file that does not inflate, a packed copy the pass over the
 * pack found bad: git's lines, f->died), and checks what it reads from a loose file it hashes no
 * more (read_object_file); else nothing for a promisor object (is_promisor_object), else
 * gitmodulesMissing / gitattributesMissing.
 */
static int unreadable(struct skg_fsck_run *f, const uint8_t *id, unsigned kinds, struct skg_fsck_dest *s)
{
	bool modules = (kinds & SKG_FSCK_GITMODULES) != 0;
	unsigned type = SKG_NONE;
	uint8_t *content = NULL;
	size_t len = 0;
	int st = skg_fsck_read_loose_whole(f, id, &type, &content, &len);
	if (st < 0) {
		/* no loose file: git's read looked in the packs before it and again after re-reading
		 * the pack directories (odb.c do_oid_object_info_extended), with the lines of the packs
		 * it cannot open at each look */
		skg_fsck_lookup_lines(f, id, 2);
	}
	if (st == SKG_STORED_DIES || st == SKG_STORED_NOMEM || (st < 0 && skg_fsck_dies_bad_packed(f, id))) {
		free(content);
		return -1;
	}
	if (st == SKG_STORED_OK) {
		int r =
		    type == SKG_BLOB
		        ? skg_fsck_special_blob(kinds, id, content, len, &f->fopt, skg_fsck_on_finding, s)
		        : skg_fsck_special_unreadable(modules ? SKG_FSCK_GITMODULES : SKG_FSCK_GITATTRIBUTES,
		                                      type, id, &f->fopt, skg_fsck_on_finding, s);
		free(content);
		return r;
	}
	skg_graph_promisor_asked(f->graph); /* git's set of promisor objects is made here */
	if (skg_graph_is_promisor(f->graph, id)) {
		return 0;
	}
	return skg_fsck_special_unreadable(modules ? SKG_FSCK_GITMODULES : SKG_FSCK_GITATTRIBUTES, SKG_NONE,
	                                   id, &f->fopt, skg_fsck_on_finding, s);
}

/*
 * One blob a tree names specially. first: only if git's pass over the objects checks it (a blob it
 * meets after a tree that names it: loose, by fsck_loose, or packed, by verify_pack's callback, a
 * failure there being SKG_CHECK_ERROR_PACK), and *in_pass is set; else as fsck_finish does. at:
 * where git's pass meets the blob, the graph's order of its add (loose: its directory and place
 * there; packed: its pack and offset; UINT64_MAX: not in the graph). -1 when memory ran out.
 */
static int check_special(struct skg_fsck_run *f, const struct skg_fsck_special_blob_ref *sp, bool first,
                         bool *in_pass, uint64_t at, struct skg_fsck_dest *s)
{
	bool modules = (sp->kinds & SKG_FSCK_GITMODULES) != 0;
	unsigned type = SKG_NONE;
	int r = 0;
	unsigned bits = s->finding_bits;
	s->finding_bits = SKG_CHECK_ERROR_OBJECT; /* fsck_finish's, or fsck_loose's */
	if (!skg_graph_has(f->graph, sp->id, &type) || type == SKG_NONE) {
		r = first ? 0 : unreadable(f, sp->id, sp->kinds, s);
	} else if (type != SKG_BLOB) {
		r = first
		        ? 0
		        : skg_fsck_special_unreadable(modules ? SKG_FSCK_GITMODULES : SKG_FSCK_GITATTRIBUTES,
		                                      type, sp->id, &f->fopt, skg_fsck_on_finding, s);
	} else {
		uint8_t *data = NULL;
		size_t len = 0;
		uint32_t seq;
		uint64_t off;
		/* whole: fsck_finish reads it so (repo_read_object_file); git's pass holds none over
		 * core.bigFileThreshold (below) */
		int got = skg_fsck_read_blob(f, sp->id, SIZE_MAX - 1, &data, &len, &seq, &off);
		if (got == -2) {
			skg_fsck_nomem(f);
			return -1;
		}
		uint32_t at_seq;
		uint64_t at_off;
		if (got == -1 && skg_graph_order_packed(at, &at_seq, &at_off) &&
		    checked_before(sp->pack_seq, sp->offset, at_seq, at_off)) {
			/* not found by its ID (an idx whose fan-out is damaged), but git's pass over that
			 * pack met it after its tree (through the idx in index order) and checked it
			 * there: read where the pass met it (met before its tree, git's read at the end
			 * fails as the lookup does) */
			got = skg_fsck_read_blob_at(f, at, &data, &len, &seq, &off);
			if (got == -2) {
				skg_fsck_nomem(f);
				return -1;
			}
		}
		/* the first copy git's pass meets: a loose one (met first, whatever copy the read
		 * found), else where the read found it */
		bool loose_first = at < ORDER_PACKED;
		bool pass =
		    got >= 0 && (loose_first ? sp->order < at
		                             : seq > 0 && checked_before(sp->pack_seq, sp->offset, seq, off));
		if (got < 0) {
			r = first ? 0 : unreadable(f, sp->id, sp->kinds, s);
		} else if (pass == first) {
			/* a blob named both ways is checked both ways, once (fsck_blob); git's pass streams
			 * one over core.bigFileThreshold and checks it without its content (a loose one
			 * above it, read_loose_object; a packed one from it up, verify_packfile) */
			bool streamed = pass && (loose_first ? len > f->big_file : len >= f->big_file);
			if (pass && !loose_first && seq > 0) {
				s->finding_bits = SKG_CHECK_ERROR_PACK;
			}
			r = skg_fsck_special_blob(sp->kinds, sp->id, got == 0 && !streamed ? data : NULL, len,
			                          &f->fopt, skg_fsck_on_finding, s);
			*in_pass = pass;
			if (r != 0 && pass && !loose_first && seq > 0) {
				skg_fsck_add_errors(f, SKG_CHECK_ERROR_PACK);
				r = 0;
			}
		}
		free(data);
	}
	if (r != 0 && !f->died) {
		skg_fsck_add_errors(f, SKG_CHECK_ERROR_OBJECT);
	}
	s->finding_bits = bits;
	return 0;
}

/*
 * The packed copies of a blob git's pass meets after its first copy (`met`, where the graph added
 * it) and after the first tree that names it: git's fsck_blob checks a blob whenever the pass meets
 * it with its ID among the found ones, once for each copy (a loose and a packed copy, or two packs
 * holding it): each check's lines at that copy's place, a finding exit bit 4 (the pack's). *in_pass
 * is set when one is checked (fsck_finish has nothing left of it). -1 when memory ran out.
 */
static int later_copies(struct skg_fsck_run *f, const struct skg_fsck_special_blob_ref *sp, uint64_t met,
                        bool *in_pass, struct skg_buf *at_blob, struct skg_fsck_dest *s0)
{
	unsigned type;
	if (!skg_graph_has(f->graph, sp->id, &type) || type != SKG_BLOB) {
		return 0;
	}
	uint8_t *data = NULL;
	size_t len = 0;
	bool read = false;
	int ret = 0;
	for (size_t k = 0; k < f->n_usable_packs && ret == 0 && !f->died; k++) {
		struct skg_file idx = {0};
		uint64_t off = 0;
		bool has = skg_file_map(&idx, f->usable_packs[k].idx, f->on_map, f->map_ctx, NULL) == 0 &&
		           skg_pk_idx_find_as(idx.data, (size_t)idx.len, (unsigned)f->rawsz, sp->id, &off) &&
		           off != 0;
		skg_file_unmap(&idx);
		uint32_t seq = (uint32_t)k + 1;
		uint64_t order = skg_graph_order(seq, off, 0, 0, 0);
		if (!has || order <= met || !checked_before(sp->pack_seq, sp->offset, seq, off)) {
			continue; /* no copy here, the first copy itself (or one before it), or before the
			             tree */
		}
		if (!read) {
			uint32_t rs;
			uint64_t ro;
			int got = skg_fsck_read_blob(f, sp->id, SIZE_MAX - 1, &data, &len, &rs, &ro);
			if (got == -2) {
				ret = -1;
				break;
			}
			if (got == -1) {
				break; /* no copy reads: fsck_finish's case, as before */
			}
			read = true;
		}
		skg_buf_setlen(at_blob, 0);
		/* verify_packfile streams a blob from core.bigFileThreshold up: checked without it */
		unsigned bits = s0->finding_bits;
		s0->finding_bits = SKG_CHECK_ERROR_PACK;
		int r = skg_fsck_special_blob(sp->kinds, sp->id, len >= f->big_file ? NULL : data, len,
		                              &f->fopt, skg_fsck_on_finding, s0);
		s0->finding_bits = bits;
		*in_pass = true;
		if (at_blob->failed) {
			ret = -1;
			break;
		}
		skg_fsck_insert_held(f, at_blob, order);
		if (r != 0) {
			skg_fsck_add_errors(f, SKG_CHECK_ERROR_PACK);
		}
	}
	free(data);
	if (ret != 0) {
		skg_fsck_nomem(f);
	}
	return ret;
}

/* A record's place in git's order of checks, ties in the order of the records (a tree's entries). */
struct seen {
	uint64_t order;
	uint32_t index;
};

static int cmp_seen(const void *a, const void *b)
{
	const struct seen *x = a, *y = b;
	if (x->order != y->order) {
		return x->order < y->order ? -1 : 1;
	}
	return x->index < y->index ? -1 : x->index > y->index;
}

/*
 * The IDs of the records of `kind` in fsck_finish's order (git's oidset iteration): *out (malloc'd,
 * *nout IDs of SKG_MAX_RAWSZ bytes, zero-padded as the records'). 0, or -1 when out of memory.
 */
static int finish_order(const struct skg_fsck_run *f, unsigned kind, uint8_t **out, size_t *nout)
{
	size_t n = f->n_specials, k = 0;
	struct seen *seen = malloc((n ? n : 1) * sizeof(*seen));
	const uint8_t **ids = malloc((n ? n : 1) * sizeof(*ids));
	uint32_t *order = NULL;
	*out = NULL;
	*nout = 0;
	if (seen == NULL || ids == NULL) {
		goto fail;
	}
	for (uint32_t i = 0; i < n; i++) {
		if (f->specials[i].kinds & kind) {
			seen[k++] = (struct seen){f->specials[i].order, i};
		}
	}
	qsort(seen, k, sizeof(*seen), cmp_seen);
	for (size_t i = 0; i < k; i++) {
		ids[i] = f->specials[seen[i].index].id;
	}
	size_t m = 0;
	if (skg_oidset_order(ids, k, f->rawsz, &order, &m) != 0) {
		goto fail;
	}
	uint8_t *v = malloc((m ? m : 1) * SKG_MAX_RAWSZ);
	if (v == NULL) {
		goto fail;
	}
	for (size_t i = 0; i < m; i++) {
		memcpy(v + i * SKG_MAX_RAWSZ, ids[order[i]], SKG_MAX_RAWSZ);
	}
	*out = v;
	*nout = m;
	free(seen);
	free(ids);
	free(order);
	return 0;
fail:
	free(seen);
	free(ids);
	free(order);
	return -1;
}

static int cmp_id_key(const void *key, const void *elem)
{
	return memcmp(key, ((const struct skg_fsck_special_blob_ref *)elem)->id, SKG_MAX_RAWSZ);
}

/*
 * The checks of the blobs trees named .gitmodules / .gitattributes: each is checked once
 * (skg_fsck_special_blob, for every name it was given), or reported as unreadable or not a blob.
 * Git checks a blob when its pass over the objects meets it after a tree that names it, and the
 * rest at the end (fsck_finish): here those git's pass checks first, then fsck_finish's,
 * .gitmodules ones first, each group in the order of git's oidset (oidset_order.h), with git's exit
 * bit for where git would have checked it.
 */
void skg_fsck_check_specials(struct skg_fsck_run *f)
{
	if (f->n_specials == 0) {
		return;
	}
	/* fsck_finish's orders, from the records in the order they came (before they are merged):
	 * copies of the IDs, as the records are sorted next */
	uint8_t *fin_ids[2] = {NULL, NULL};
	size_t nfin[2] = {0, 0};
	if (finish_order(f, SKG_FSCK_GITMODULES, &fin_ids[0], &nfin[0]) != 0 ||
	    finish_order(f, SKG_FSCK_GITATTRIBUTES, &fin_ids[1], &nfin[1]) != 0) {
		free(fin_ids[0]);
		skg_fsck_nomem(f);
		return;
	}
	qsort(f->specials, f->n_specials, sizeof(*f->specials), cmp_special);
	size_t n = 0;
	for (size_t i = 0; i < f->n_specials; i++) {
		if (n > 0 && memcmp(f->specials[n - 1].id, f->specials[i].id, f->rawsz) == 0) {
			/* sorted: the first one kept is the first tree in git's order */
			f->specials[n - 1].kinds |= f->specials[i].kinds;
		} else {
			f->specials[n++] = f->specials[i];
		}
	}
	f->n_specials = n;
	bool *in_pass = calloc(n, sizeof(*in_pass));
	/* the pass's checks in the order the pass meets the blobs (the graph's order of their adds) */
	struct seen *pass = malloc(n * sizeof(*pass));
	uint64_t *met = malloc(n * sizeof(*met)); /* each blob's place: check_special's `at` */
	if (in_pass == NULL || pass == NULL || met == NULL) {
		free(in_pass);
		free(pass);
		free(met);
		free(fin_ids[0]);
		free(fin_ids[1]);
		skg_fsck_nomem(f);
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		met[i] = UINT64_MAX;
		(void)skg_graph_add_order(f->graph, f->specials[i].id, &met[i]);
		pass[i] = (struct seen){met[i], i};
	}
	qsort(pass, n, sizeof(*pass), cmp_seen);
	struct skg_fsck_dest s = {f, NULL, -1, 0, 0, 0, 0, NULL, 0};
	/* the pass's lines for a blob go where the pass met it, among the object check's held records */
	struct skg_buf at_blob = {0};
	struct skg_fsck_dest s0 = {f, &at_blob, -1, 0, 0, 0, 0, NULL, 0};
	/* the blobs git's pass checks first (a fsck_finish that dies has them out already), then
	 * fsck_finish's: .gitmodules, then .gitattributes */
	for (int phase = 0; phase < 3 && !f->died; phase++) {
		size_t count = phase == 0 ? n : nfin[phase - 1];
		for (size_t j = 0; j < count && !f->died; j++) {
			size_t i = pass[j].index;
			if (phase > 0) {
				const struct skg_fsck_special_blob_ref *at =
				    bsearch(fin_ids[phase - 1] + j * SKG_MAX_RAWSZ, f->specials, n,
				            sizeof(*f->specials), cmp_id_key);
				if (at == NULL) {
					continue; /* cannot be: every ID of the sets has its record */
				}
				i = (size_t)(at - f->specials);
			}
			const struct skg_fsck_special_blob_ref *sp = &f->specials[i];
			bool modules = (sp->kinds & SKG_FSCK_GITMODULES) != 0;
			if (in_pass[i] || (phase > 0 && modules != (phase == 1)) ||
			    skg_fsck_skipped(f, sp->id)) {
				continue; /* fsck_blob leaves a blob in fsck.skipList alone */
			}
			skg_buf_setlen(&at_blob, 0);
			if (check_special(f, sp, phase == 0, &in_pass[i], met[i], phase == 0 ? &s0 : &s) !=
			    0) {
				goto done; /* out of memory */
			}
			if (phase == 0 && at_blob.failed) {
				skg_fsck_nomem(f);
				goto done;
			}
			if (phase == 0 && at_blob.len > 0) {
				skg_fsck_insert_held(f, &at_blob, met[i]);
			}
			if (phase == 0 && later_copies(f, sp, met[i], &in_pass[i], &at_blob, &s0) != 0) {
				goto done;
			}
		}
	}
done:
	skg_buf_release(&at_blob);
	free(in_pass);
	free(pass);
	free(met);
	free(fin_ids[0]);
	free(fin_ids[1]);
}
