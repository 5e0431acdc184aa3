/*
 * fsck_special.c - the blobs trees name .gitmodules or .gitattributes, in a repository check
 * (fsck_run.h): git 2.39.5's fsck_finish (fsck.c) and fsck_blob: each such blob is read once
 * (fsck_read.c) and checked by skg_fsck_special_blob (fsck_object.h), or reported as unreadable or
 * not a blob, with the exit bit of where git would have checked it.
 */
#include <stdlib.h>
#include <string.h>

#include "fsck_run.h"

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
	sp->pack_seq = ((struct skg_fsck_dest *)ctx)->pack_seq;
	sp->offset = ((struct skg_fsck_dest *)ctx)->offset;
	pthread_mutex_unlock(&f->lock);
}

/* Whether position (seq, off) comes before (seq2, off2) in git's order of checks (struct skg_fsck_dest). */
static bool checked_before(uint32_t seq, uint64_t off, uint32_t seq2, uint64_t off2)
{
	return seq < seq2 || (seq == seq2 && off < off2);
}

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

/* fsck_blobs on a blob it cannot read: nothing for a promisor object (is_promisor_object), else
 * gitmodulesMissing / gitattributesMissing. */
static int unreadable(struct skg_fsck_run *f, const uint8_t *id, bool modules, struct skg_fsck_dest *s)
{
	skg_graph_promisor_asked(f->graph); /* git's set of promisor objects is made here */
	if (skg_graph_is_promisor(f->graph, id)) {
		return 0;
	}
	return skg_fsck_special_unreadable(modules ? SKG_FSCK_GITMODULES : SKG_FSCK_GITATTRIBUTES, SKG_NONE,
	                                   id, &f->fopt, skg_fsck_on_finding, s);
}

/*
 * The checks of the blobs trees named .gitmodules / .gitattributes: each is checked once
 * (skg_fsck_special_blob, for every name it was given), or reported as unreadable or not a blob.
 * Git checks a blob when its pass over the objects meets it after a tree that names it, and the
 * rest at the end (fsck_finish); here all are checked at the end, .gitmodules ones first (as
 * fsck_finish), each group in object ID order (git's follows its hash table), with git's exit
 * bit for where git would have checked it.
 */
void skg_fsck_check_specials(struct skg_fsck_run *f)
{
	if (f->n_specials == 0) {
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
	struct skg_fsck_dest s = {f, NULL, -1, 0, 0, 0, 0};
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < n; i++) {
			const struct skg_fsck_special_blob_ref *sp = &f->specials[i];
			bool modules = (sp->kinds & SKG_FSCK_GITMODULES) != 0;
			if (modules != (pass == 0) || skg_fsck_skipped(f, sp->id)) {
				continue; /* fsck_blob leaves a blob in fsck.skipList alone */
			}
			unsigned type = SKG_NONE;
			int r = 0;
			if (!skg_graph_has(f->graph, sp->id, &type) || type == SKG_NONE) {
				r = unreadable(f, sp->id, modules, &s);
			} else if (type != SKG_BLOB) {
				r = skg_fsck_special_unreadable(
				    modules ? SKG_FSCK_GITMODULES : SKG_FSCK_GITATTRIBUTES, type, sp->id,
				    &f->fopt, skg_fsck_on_finding, &s);
			} else {
				uint8_t *data = NULL;
				size_t len = 0;
				uint32_t seq;
				uint64_t off;
				int got =
				    skg_fsck_read_blob(f, sp->id, SKG_FSCK_BIG_FILE, &data, &len, &seq, &off);
				if (got == -2) {
					skg_fsck_nomem(f);
					return;
				}
				if (got < 0) {
					r = unreadable(f, sp->id, modules, &s);
				} else {
					/* a blob named both ways is checked both ways, once (fsck_blob) */
					r = skg_fsck_special_blob(sp->kinds, sp->id, got == 0 ? data : NULL,
					                          len, &f->fopt, skg_fsck_on_finding, &s);
					/* a packed blob git's pass meets after a tree that names it is
					 * checked there, by verify_pack's callback: its failure is
					 * SKG_CHECK_ERROR_PACK
					 */
					if (r != 0 && seq > 0 &&
					    checked_before(sp->pack_seq, sp->offset, seq, off)) {
						skg_fsck_add_errors(f, SKG_CHECK_ERROR_PACK);
						r = 0;
					}
				}
				free(data);
			}
			if (r != 0) {
				skg_fsck_add_errors(f, SKG_CHECK_ERROR_OBJECT);
			}
		}
	}
}
