/*
 * pack_file.h - the Git layer's side of the pack and idx files of <sha1kit/git_pack.h>
 * (struct skg_file, pack_file.c): an idx compared with the one the pack engine writes, piece by
 * piece, for skg_pack_compare_idx and the pack check of a repository (fsck_pack.c).
 * Internal to the Git layer.
 */
#ifndef SHA1KIT_GIT_PACK_FILE_H
#define SHA1KIT_GIT_PACK_FILE_H

#include <sha1kit/git_pack.h>

#include "pack.h"

/*
 * Write the idx of pack (skg_pk_idx_write with version, off32_limit, strict) and compare it with the
 * mapped idx *idx as it comes, dropping the pages of *idx compared. Returns 0 when equal; 1 when
 * not, with the offset of the first difference in *first_diff; -1 with err when skg_pk_idx_write
 * fails before a difference (*first_diff then says how far the comparison went).
 */
int skg_idx_compare(const struct skg_pk_pack *pack, unsigned version, uint64_t off32_limit, bool strict,
                    struct skg_file *idx, uint64_t *first_diff, struct skg_pk_error *err);
/* skg_idx_compare that runs to the end of the idx it writes, whose length goes to *want_len
 * (when it returns 0 or 1): git's --verify words a difference by where it lies in that length. */
int skg_idx_compare_len(const struct skg_pk_pack *pack, unsigned version, uint64_t off32_limit, bool strict,
                        struct skg_file *idx, uint64_t *first_diff, uint64_t *want_len,
                        struct skg_pk_error *err);

#endif /* SHA1KIT_GIT_PACK_FILE_H */
