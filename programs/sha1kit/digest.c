/* digest.c - hash a file or a file descriptor with SHA-1DC or plain SHA-1, in constant memory. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "digest.h"

/* One read buffer for the process: large reads keep the system-call cost far below the hashing. */
#define SK_READ_SIZE (256 * 1024)
static _Alignas(64) unsigned char read_buf[SK_READ_SIZE];

int sk_hash_fd(const struct sk_hash_opts *opts, int fd, struct sk_hash_result *res)
{
	sha1kit_fast_ctx fast;
	sha1kit_dc_ctx dc;
	int err = 0;

	if (opts->fast) {
		sha1kit_fast_init(&fast);
	} else {
		sha1kit_dc_init(&dc, &opts->dc);
	}
	res->length = 0;
	for (;;) {
		ssize_t n = read(fd, read_buf, sizeof(read_buf));
		if (n < 0) {
			if (errno == EINTR) {
				continue;
			}
			err = errno;
			break;
		}
		if (n == 0) {
			break;
		}
		if (opts->fast) {
			sha1kit_fast_update(&fast, read_buf, (size_t)n);
		} else {
			sha1kit_dc_update(&dc, read_buf, (size_t)n);
		}
		res->length += (uint64_t)n;
	}
	memset(&res->where, 0, sizeof(res->where));
	res->where.dv = -1;
	if (opts->fast) {
		sha1kit_fast_final(&fast, res->digest);
		res->collision = false;
	} else {
		res->collision = sha1kit_dc_final(&dc, res->digest, &res->where) == SHA1KIT_DC_COLLISION;
	}
	return err;
}

int sk_hash_file(const struct sk_hash_opts *opts, const char *name, struct sk_hash_result *res,
                 bool *open_failed)
{
	*open_failed = false;
	if (strcmp(name, "-") == 0) {
		return sk_hash_fd(opts, STDIN_FILENO, res);
	}
	int fd;
	do {
		fd = open(name, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	} while (fd < 0 && errno == EINTR);
	if (fd < 0) {
		*open_failed = true;
		return errno;
	}
#ifdef POSIX_FADV_SEQUENTIAL
	(void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
	int err = sk_hash_fd(opts, fd, res);
	if (close(fd) != 0 && err == 0 && errno != EINTR) {
		err = errno;
	}
	return err;
}

void sk_hex(const uint8_t digest[SHA1KIT_DIGEST_SIZE], char out[2 * SHA1KIT_DIGEST_SIZE + 1])
{
	static const char xd[] = "0123456789abcdef";
	for (int i = 0; i < SHA1KIT_DIGEST_SIZE; i++) {
		out[2 * i] = xd[digest[i] >> 4];
		out[2 * i + 1] = xd[digest[i] & 15];
	}
	out[2 * SHA1KIT_DIGEST_SIZE] = '\0';
}
