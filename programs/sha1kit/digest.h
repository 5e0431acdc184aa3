/* digest.h - hash a file or a file descriptor with SHA-1DC, plain SHA-1 or SHA-256, in constant memory. */
#ifndef SHA1KIT_CLI_DIGEST_H
#define SHA1KIT_CLI_DIGEST_H

#include <stdbool.h>
#include <stdint.h>

#include "sha1kit.h"

/* How to hash. */
struct sk_hash_opts {
	bool sha256;           /* SHA-256 (sha1kit_sha256_*); `fast` and `dc` are then not used */
	bool fast;             /* plain SHA-1 (sha1kit_fast_*): no collision detection */
	sha1kit_dc_options dc; /* SHA-1DC options, used when !fast */
};

struct sk_hash_result {
	uint8_t digest[SHA1KIT_SHA256_DIGEST_SIZE]; /* digest_len bytes are valid */
	size_t digest_len;          /* SHA1KIT_DIGEST_SIZE, or SHA1KIT_SHA256_DIGEST_SIZE with sha256 */
	bool collision;             /* SHA-1DC flagged a collision attack (never with fast or sha256) */
	sha1kit_dc_detection where; /* first detection, when collision */
	uint64_t length;            /* bytes hashed */
};

/* Read `fd` to end of file and hash everything read. Returns 0, or the errno of a failed read. */
int sk_hash_fd(const struct sk_hash_opts *opts, int fd, struct sk_hash_result *res);

/*
 * Hash the file `name`, or standard input when `name` is "-". Returns 0, or an errno value; then
 * *open_failed tells whether the file could not be opened at all (as opposed to a read error).
 */
int sk_hash_file(const struct sk_hash_opts *opts, const char *name, struct sk_hash_result *res,
                 bool *open_failed);

/* Lower-case hexadecimal form of the `len` bytes of a digest into out[0 .. 2 * len], NUL-terminated. */
void sk_hex(const uint8_t *digest, size_t len, char *out);

#endif /* SHA1KIT_CLI_DIGEST_H */
