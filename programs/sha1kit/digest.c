/*
 * digest.c - hash a file or a file descriptor with SHA-1DC, plain SHA-1 or SHA-256, in constant
 * memory.
 *
 * Large regular files under SHA-1DC are hashed by two threads: a reader that fills 1 MiB slots and
 * computes their blocks' UBC masks (sha1kit_dc_masks: they do not depend on the chaining value),
 * and the calling thread, which compresses each slot with sha1kit_dc_update_masked. The digest and
 * the detection are those of one sha1kit_dc_update over the whole input.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "digest.h"

/* One read buffer for the process: large reads keep the system-call cost far below the hashing. */
#define SK_READ_SIZE (256 * 1024)
static _Alignas(64) unsigned char read_buf[SK_READ_SIZE];

/* The two-thread path: slots of whole blocks, used for regular files of at least SK_PIPE_MIN bytes. */
#define SK_PIPE_SLOTS 4
#define SK_PIPE_SLOT  (1024 * 1024) /* a multiple of 64 */
#define SK_PIPE_MIN   (8 * 1024 * 1024)

struct pipe_slot {
	unsigned char *data;
	size_t len;      /* bytes read into the slot */
	uint32_t *masks; /* UBC masks of its len / 64 whole blocks */
};

struct pipe {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct pipe_slot slot[SK_PIPE_SLOTS];
	size_t produced, consumed; /* slots filled by the reader, hashed by the caller */
	bool done;                 /* the reader has filled its last slot */
	int err;                   /* errno of a failed read (the reader stops there) */
	int fd;
};

/* Reader thread: fill slots to end of file (or a read error), masks included. */
static void *pipe_reader(void *arg)
{
	struct pipe *p = arg;
	for (;;) {
		pthread_mutex_lock(&p->mu);
		while (p->produced - p->consumed == SK_PIPE_SLOTS) {
			pthread_cond_wait(&p->cv, &p->mu);
		}
		struct pipe_slot *s = &p->slot[p->produced % SK_PIPE_SLOTS];
		pthread_mutex_unlock(&p->mu);

		bool last = false;
		int err = 0;
		s->len = 0;
		while (s->len < SK_PIPE_SLOT) {
			ssize_t n = read(p->fd, s->data + s->len, SK_PIPE_SLOT - s->len);
			if (n < 0 && errno == EINTR) {
				continue;
			}
			if (n <= 0) {
				err = n < 0 ? errno : 0;
				last = true;
				break;
			}
			s->len += (size_t)n;
		}
		sha1kit_dc_masks(s->data, s->len / 64, s->masks);

		pthread_mutex_lock(&p->mu);
		p->produced++;
		p->done = last;
		p->err = err;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
		if (last) {
			return NULL;
		}
	}
}

/* Whether `fd` is worth the two-thread path: a large regular file, SHA-1DC with the filter on. */
static bool pipe_wanted(const struct sk_hash_opts *opts, int fd)
{
	struct stat st;
	if (opts->sha256 || opts->fast || !opts->dc.detect || !opts->dc.use_ubc) {
		return false;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < SK_PIPE_MIN) {
		return false;
	}
	return sysconf(_SC_NPROCESSORS_ONLN) >= 2;
}

/* Hash all of `fd` into `dc` with the reader thread. Returns 0, the errno of a failed read, or -1
 * when the path could not start (then nothing was read: the caller hashes the ordinary way). */
static int pipe_hash(int fd, sha1kit_dc_ctx *dc, uint64_t *length)
{
	struct pipe p;
	pthread_t reader;
	int ret = -1;

	memset(&p, 0, sizeof(p));
	p.fd = fd;
	for (int i = 0; i < SK_PIPE_SLOTS; i++) {
		p.slot[i].data = aligned_alloc(64, SK_PIPE_SLOT);
		p.slot[i].masks = malloc(SK_PIPE_SLOT / 64 * sizeof(uint32_t));
		if (p.slot[i].data == NULL || p.slot[i].masks == NULL) {
			goto out;
		}
	}
	if (pthread_mutex_init(&p.mu, NULL) != 0) {
		goto out;
	}
	if (pthread_cond_init(&p.cv, NULL) != 0) {
		pthread_mutex_destroy(&p.mu);
		goto out;
	}
	if (pthread_create(&reader, NULL, pipe_reader, &p) != 0) {
		pthread_cond_destroy(&p.cv);
		pthread_mutex_destroy(&p.mu);
		goto out;
	}
	for (;;) {
		pthread_mutex_lock(&p.mu);
		while (p.consumed == p.produced && !p.done) {
			pthread_cond_wait(&p.cv, &p.mu);
		}
		bool finished = p.consumed == p.produced;
		struct pipe_slot *s = &p.slot[p.consumed % SK_PIPE_SLOTS];
		pthread_mutex_unlock(&p.mu);
		if (finished) {
			break;
		}

		size_t whole = s->len / 64;
		/* every slot but the last is full, so the context stays at a block boundary */
		sha1kit_dc_update_masked(dc, s->data, whole, s->masks);
		sha1kit_dc_update(dc, s->data + 64 * whole, s->len - 64 * whole);
		*length += s->len;

		pthread_mutex_lock(&p.mu);
		p.consumed++;
		pthread_cond_broadcast(&p.cv);
		pthread_mutex_unlock(&p.mu);
	}
	pthread_join(reader, NULL);
	pthread_cond_destroy(&p.cv);
	pthread_mutex_destroy(&p.mu);
	ret = p.err;
out:
	for (int i = 0; i < SK_PIPE_SLOTS; i++) {
#ifdef _WIN32
		_aligned_free(p.slot[i].data); /* aligned_alloc is _aligned_malloc there (os_win.h) */
#else
		free(p.slot[i].data);
#endif
		free(p.slot[i].masks);
	}
	return ret;
}

int sk_hash_fd(const struct sk_hash_opts *opts, int fd, struct sk_hash_result *res)
{
	sha1kit_fast_ctx fast;
	sha1kit_dc_ctx dc;
	sha1kit_sha256_ctx s256;
	int err = 0;

	if (opts->sha256) {
		sha1kit_sha256_init(&s256);
	} else if (opts->fast) {
		sha1kit_fast_init(&fast);
	} else {
		sha1kit_dc_init(&dc, &opts->dc);
	}
	res->length = 0;
	if (pipe_wanted(opts, fd)) {
		err = pipe_hash(fd, &dc, &res->length);
		if (err >= 0) {
			goto finish;
		}
		err = 0;
	}
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
		if (opts->sha256) {
			sha1kit_sha256_update(&s256, read_buf, (size_t)n);
		} else if (opts->fast) {
			sha1kit_fast_update(&fast, read_buf, (size_t)n);
		} else {
			sha1kit_dc_update(&dc, read_buf, (size_t)n);
		}
		res->length += (uint64_t)n;
	}
finish:
	memset(&res->where, 0, sizeof(res->where));
	res->where.dv = -1;
	res->digest_len = opts->sha256 ? SHA1KIT_SHA256_DIGEST_SIZE : SHA1KIT_DIGEST_SIZE;
	if (opts->sha256) {
		sha1kit_sha256_final(&s256, res->digest);
		res->collision = false;
	} else if (opts->fast) {
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

void sk_hex(const uint8_t *digest, size_t len, char *out)
{
	static const char xd[] = "0123456789abcdef";
	for (size_t i = 0; i < len; i++) {
		out[2 * i] = xd[digest[i] >> 4];
		out[2 * i + 1] = xd[digest[i] & 15];
	}
	out[2 * len] = '\0';
}
