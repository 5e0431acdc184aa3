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

/* A printf-like function (its arguments checked). MinGW's "printf" archetype is msvcrt's, which has no
 * %zu; the Windows build uses MinGW's C99 printf (__USE_MINGW_ANSI_STDIO), hence gnu_printf there. */
#if defined(__MINGW32__)
#define SKG_PRINTF(f, a) __attribute__((format(gnu_printf, f, a)))
#else
#define SKG_PRINTF(f, a) __attribute__((format(printf, f, a)))
#endif

#define SKG_RAWSZ 20 /* bytes of a SHA-1 object ID */
#define SKG_HEXSZ 40 /* hex digits of one */

/* Object types, with the numbers the pack format gives them. */
enum skg_type {
	SKG_NONE = 0,
	SKG_COMMIT = 1,
	SKG_TREE = 2,
	SKG_BLOB = 3,
	SKG_TAG = 4,
};

/* "commit", "tree", "blob", "tag" for 1..4; NULL for anything else. */
const char *skg_type_name(unsigned type);

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

/* Write the 40 lowercase hex digits of id and a NUL byte into out. */
void skg_to_hex(const uint8_t id[SKG_RAWSZ], char out[SKG_HEXSZ + 1]);

/* The value of one hex digit (either case), or -1. */
int skg_hexval(char c);

/* Parse exactly 40 hex digits (either case) at p into id; false if any is not a hex digit. */
bool skg_from_hex(const char *p, uint8_t id[SKG_RAWSZ]);

#endif /* SHA1KIT_GIT_OBJECT_H */
