/*
 * object.h - Git objects: types, the "<type> <size>\0" header that object IDs hash, hex IDs.
 *
 * Part of the Git layer (src/git/, library sha1kit_git), on top of libsha1kit. Source: Git's
 * Documentation/gitformat-loose.txt ("Object format") and gitformat-pack.txt (object types 1-4).
 * No I/O, no allocation, no global state.
 */
#ifndef SHA1KIT_GIT_OBJECT_H
#define SHA1KIT_GIT_OBJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sha1kit/git.h> /* SKG_RAWSZ, enum skg_type, skg_type_name, hex IDs */

/* A printf-like function (its arguments checked). MinGW's "printf" archetype is msvcrt's, which has no
 * %zu; the Windows build uses MinGW's C99 printf (__USE_MINGW_ANSI_STDIO), hence gnu_printf there. */
#if defined(__MINGW32__)
#define SKG_PRINTF(f, a) __attribute__((format(gnu_printf, f, a)))
#else
#define SKG_PRINTF(f, a) __attribute__((format(printf, f, a)))
#endif

/* The type named by name[0..len) ("commit", "tree", "blob", "tag"), or SKG_NONE. */
enum skg_type skg_type_from_name(const char *name, size_t len);

/* Longest object header: "commit" + ' ' + 20 digits of a uint64_t + NUL byte. */
#define SKG_HEADER_MAX 32

/*
 * Write the header "<type> <size>\0" of an object of `type` (1..4) and `size` bytes of content into
 * buf; returns its length in bytes, the NUL byte included (the ID is SHA-1 of header + content).
 * Returns 0 for a type that is not 1..4.
 */
size_t skg_object_header(char buf[SKG_HEADER_MAX], unsigned type, uint64_t size);

/* The value of one hex digit (either case), or -1. */
int skg_hexval(char c);

/* Whether id (rawsz bytes: 20, or 32) is the empty tree's ID, which git always has
 * (object-file.c find_cached_object; hash.h EMPTY_TREE_SHA1_BIN_LITERAL / _SHA256_). */
bool skg_is_empty_tree(const uint8_t *id, size_t rawsz);

/* Whether data[0..len), as an object of `type` (1..4) in object format `format` (SKG_FORMAT_SHA1 or
 * SKG_FORMAT_SHA256, IDs of rawsz bytes), hashes to another ID than `id` or does not hash (SHA-1DC
 * finds a collision attack in it). */
bool skg_object_id_differs(unsigned format, size_t rawsz, unsigned type, const uint8_t *id,
                           const uint8_t *data, size_t len);

/* The checksum of a file's p[0..n) in an object format whose IDs are rawsz bytes: plain SHA-1
 * (20; a trailer, not an object ID: no collision detection) or SHA-256 (32), rawsz bytes into out.
 * The trailers of packs, idx, .rev, commit-graph, multi-pack-index and index files. */
void skg_checksum(unsigned rawsz, const void *p, size_t n, uint8_t *out);

#endif /* SHA1KIT_GIT_OBJECT_H */
