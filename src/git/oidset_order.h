/*
 * oidset_order.h - the order in which git iterates an oidset.
 *
 * Part of the Git layer (src/git/). git's oidset (oidset.h) is a khash set of object IDs (khash.h
 * kh_oid_set; git v2.39.5 and v2.55.0 alike), and two outputs iterate one bucket by bucket:
 * fsck_finish's checks of the .gitmodules / .gitattributes blobs still to check (fsck.c
 * fsck_blobs), in fsck and in index-pack --strict / --fsck-objects. The facts this models, from
 * git's khash.h and hash.h (facts, not code):
 *  - hash (oidhash): the first 4 bytes of the ID copied into an unsigned int, so read in the
 *    machine's byte order (as objtab.h); the first bucket is that & (buckets - 1);
 *  - collisions: triangular probing, bucket i, i + 1, i + 3, i + 6, ... (step 1, 2, 3, ...);
 *  - size: 0 buckets until the first insert, then 4; a table with as many entries as 77% of its
 *    buckets (rounded) doubles before the next insert, re-hashed in place: each old entry in bucket
 *    order is placed in the new table, and one it lands on that is still to be moved is kicked out
 *    and placed in turn (khash's resize);
 *  - an ID inserted again changes nothing; nothing is deleted.
 */
#ifndef SHA1KIT_GIT_OIDSET_ORDER_H
#define SHA1KIT_GIT_OIDSET_ORDER_H

#include <stddef.h>
#include <stdint.h>

/*
 * ids[0..n): the IDs (rawsz bytes each) in the order git inserted them, duplicates allowed. Gives
 * in *order (malloc'd; free it) the index in ids of each distinct ID, in the order git's iteration
 * meets them, and their number in *norder. 0, or -1 when out of memory (*order NULL).
 */
int skg_oidset_order(const uint8_t *const *ids, size_t n, size_t rawsz, uint32_t **order, size_t *norder);

#endif
