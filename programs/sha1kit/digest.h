/* digest.h - hash a file or a file descriptor with SHA-1DC or plain SHA-1, in constant memory. */
#ifndef SHA1KIT_CLI_DIGEST_H
#define SHA1KIT_CLI_DIGEST_H

#include <stdbool.h>
#include <stdint.h>

#include "sha1kit.h"

/* How to hash. */
struct sk_hash_opts {
	bool fast;             /* plain SHA-1 (sha1kit_fast_*): no collision detection */
	sha1kit_dc_options dc; /* SHA-1DC options, used when !fast */
};

struct sk_hash_result {
	uint8_t digest[SHA1KIT_DIGEST_SIZE];
	bool collision;             /* SHA-1DC flagged a collision attack (never with fast) */
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

/* Lower-case hexadecimal form of a digest, NUL-terminated. */
void sk_hex(const uint8_t digest[SHA1KIT_DIGEST_SIZE], char out[2 * SHA1KIT_DIGEST_SIZE + 1]);

#endif /* SHA1KIT_CLI_DIGEST_H */
