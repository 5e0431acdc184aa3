/*
 * pack_file.c - pack and idx files mapped read-only (struct skg_file of <sha1kit/git_pack.h>):
 * the mapping, the reads and page drops the pack engine asks for (skg_index_options.read and
 * .release), and an idx compared with the one the engine writes (pack_file.h). Used by the pack
 * check of a repository (fsck_pack.c, fsck_read.c) and by programs (sha1kit index-pack,
 * verify-pack). No signal handler: a program guards the mappings through on_map.
 */
#include "pack_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif
#ifndef O_NOCTTY
#define O_NOCTTY 0
#endif
#ifndef O_NONBLOCK
#define O_NONBLOCK 0
#endif

/* The failure of step `step` with errno e (0 for the steps that have none). */
static int map_fail(struct skg_file *f, enum skg_file_step step, int e, const char *path,
                    struct skg_error *err)
{
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->failed = step;
	switch (step) {
	case SKG_FILE_NOT_REGULAR:
		return skg_fail_sys(err, SKG_E_USAGE, 0, "%s: not a regular file", path);
	case SKG_FILE_SIZE_UNKNOWN:
		return skg_fail_sys(err, SKG_E_USAGE, 0,
		                    "cannot map %s: not a regular file (its size is unknown)", path);
	default:
		return skg_fail_sys(err, e == ENOMEM ? SKG_E_NOMEM : SKG_E_IO, e, "cannot %s %s: %s",
		                    step == SKG_FILE_MAP ? "map" : "open", path, strerror(e));
	}
}

int skg_file_map(struct skg_file *f, const char *path,
                 void (*on_map)(void *ctx, const void *addr, uint64_t len, const char *path, bool mapped),
                 void *map_ctx, struct skg_error *err)
{
	SKG_ERR_OR_LOCAL(err);
	static const uint8_t empty[1];
	/* look before opening: opening a FIFO waits for a writer, and a device may act on an open */
	struct stat st;
	if (stat(path, &st) != 0) {
		return map_fail(f, SKG_FILE_OPEN, errno, path, err);
	}
	if (S_ISDIR(st.st_mode)) {
		return map_fail(f, SKG_FILE_OPEN, EISDIR, path, err);
	}
	if (!S_ISREG(st.st_mode)) {
		return map_fail(f, SKG_FILE_NOT_REGULAR, 0, path, err);
	}
	/* O_NONBLOCK: should the name be replaced by a FIFO meanwhile, the open does not wait */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		return map_fail(f, SKG_FILE_OPEN, errno, path, err);
	}
	int e = 0;
	enum skg_file_step step = SKG_FILE_OPEN;
	if (fstat(fd, &st) != 0) {
		e = errno;
	} else if (S_ISDIR(st.st_mode)) {
		e = EISDIR;
	} else if (!S_ISREG(st.st_mode)) {
		step = SKG_FILE_NOT_REGULAR;
	} else if ((uint64_t)st.st_size > SIZE_MAX / 2) {
		e = EFBIG;
	}
	if (e != 0 || step != SKG_FILE_OPEN) {
		close(fd);
		return map_fail(f, step, e, path, err);
	}
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->len = (uint64_t)st.st_size;
	f->data = empty;
	f->dev = (uint64_t)st.st_dev;
	f->ino = (uint64_t)st.st_ino;
	f->path = path;
	if (f->len == 0) {
		/* a /proc file reports 0 bytes whatever it holds: an empty file must read as empty */
		uint8_t byte;
		ssize_t n;
		do {
			n = pread(fd, &byte, 1, 0);
		} while (n < 0 && errno == EINTR);
		close(fd);
		return n != 0 ? map_fail(f, SKG_FILE_SIZE_UNKNOWN, 0, path, err) : 0;
	}
	void *m = mmap(NULL, (size_t)f->len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED) {
		e = errno;
		close(fd);
		return map_fail(f, SKG_FILE_MAP, e, path, err);
	}
	f->map = m;
	f->map_len = (size_t)f->len;
	f->data = m;
	f->fd = fd;
	if (on_map != NULL) {
		f->on_map = on_map;
		f->map_ctx = map_ctx;
		on_map(map_ctx, m, f->len, path, true);
	}
	return 0;
}

void skg_file_unmap(struct skg_file *f)
{
	if (f->map != NULL) {
		if (f->on_map != NULL) {
			f->on_map(f->map_ctx, f->map, f->len, f->path,
			          false); /* before the range is reused */
		}
		munmap(f->map, f->map_len);
		close(f->fd);
	}
	memset(f, 0, sizeof(*f));
	f->fd = -1;
}

bool skg_file_shrank(const struct skg_file *f)
{
	struct stat st;
	return f->map != NULL && fstat(f->fd, &st) == 0 && (uint64_t)st.st_size < f->len;
}

bool skg_file_grew(const struct skg_file *f)
{
	struct stat st;
	return f->map != NULL && fstat(f->fd, &st) == 0 && (uint64_t)st.st_size > f->len;
}

void skg_file_release(void *file, uint64_t upto)
{
	struct skg_file *f = file;
	long page = sysconf(_SC_PAGESIZE);
	if (f->map == NULL || page <= 0) {
		return;
	}
	if (upto > f->map_len) {
		upto = f->map_len;
	}
	if (upto < f->released) {
		f->released = 0; /* the first pass started over (pack.h, skg_pk_options.idx) */
	}
	uint64_t from = f->released; /* a page boundary */
	/* whole pages, and the last one however short */
	uint64_t to = upto == f->map_len ? upto : upto & ~(uint64_t)(page - 1);
	if (to > from) {
		/* a hint: a failure changes nothing */
		madvise((uint8_t *)f->map + from, (size_t)(to - from), MADV_DONTNEED);
		f->released = to;
	}
}

int skg_file_read(void *file, uint64_t offset, uint8_t *buf, size_t n)
{
	struct skg_file *f = file;
	if (offset > f->len || n > f->len - offset) {
		return -1;
	}
	if (f->map == NULL) {
		memcpy(buf, f->data + offset, n);
		return 0;
	}
	while (n > 0) {
		ssize_t r = pread(f->fd, buf, n > (1u << 30) ? (1u << 30) : n, (off_t)offset);
		if (r < 0 && errno == EINTR) {
			continue;
		}
		if (r <= 0) {
			return -1;
		}
		buf += r;
		offset += (uint64_t)r;
		n -= (size_t)r;
	}
	return 0;
}

/* The comparison of skg_idx_compare. */
struct idx_compare {
	struct skg_file *old;
	uint64_t at;       /* bytes compared (after a difference with count_all: written) so far */
	uint64_t released; /* pages of the old idx dropped up to here */
	bool differs;
	bool count_all;      /* after a difference, count the bytes written on to the end */
	uint64_t first_diff; /* when it differs: the offset of the first difference */
};

/* skg_pk_idx_sink comparing each piece; stops (-1, err untouched) at the first difference, or
 * with count_all counts the rest. */
static int compare_sink(void *ctx, const uint8_t *p, size_t n, struct skg_pk_error *err)
{
	struct idx_compare *c = ctx;
	(void)err;
	if (c->differs) {
		c->at += n;
		return 0;
	}
	uint64_t avail = c->old->len - c->at;
	size_t k = avail < n ? (size_t)avail : n;
	const uint8_t *q = c->old->data + c->at;
	if (memcmp(q, p, k) != 0 || k < n) {
		size_t i = 0;
		while (i < k && q[i] == p[i]) {
			i++;
		}
		c->differs = true;
		c->first_diff = c->at + i;
		if (c->count_all) {
			c->at += n;
			return 0;
		}
		return -1;
	}
	c->at += n;
	if (c->at - c->released >= ((uint64_t)1 << 20)) {
		skg_file_release(c->old, c->at);
		c->released = c->at;
	}
	return 0;
}

/* skg_idx_compare; want_len: NULL, or where the length of the whole idx written goes (the
 * comparison then runs to its end). */
static int idx_compare(const struct skg_pk_pack *pack, unsigned version, uint64_t off32_limit, bool strict,
                       struct skg_file *idx, uint64_t *first_diff, uint64_t *want_len,
                       struct skg_pk_error *err)
{
	struct idx_compare c = {idx, 0, 0, false, want_len != NULL, 0};
	*first_diff = 0;
	if (skg_pk_idx_write(pack, version, off32_limit, strict, compare_sink, &c, err) != 0 && !c.differs) {
		*first_diff = c.at;
		return -1;
	}
	if (want_len != NULL) {
		*want_len = c.at;
	}
	if (!c.differs && c.at != idx->len) {
		c.differs = true;
		c.first_diff = c.at < idx->len ? c.at : idx->len;
	}
	*first_diff = c.first_diff;
	return c.differs ? 1 : 0;
}

int skg_idx_compare(const struct skg_pk_pack *pack, unsigned version, uint64_t off32_limit, bool strict,
                    struct skg_file *idx, uint64_t *first_diff, struct skg_pk_error *err)
{
	return idx_compare(pack, version, off32_limit, strict, idx, first_diff, NULL, err);
}

int skg_idx_compare_len(const struct skg_pk_pack *pack, unsigned version, uint64_t off32_limit, bool strict,
                        struct skg_file *idx, uint64_t *first_diff, uint64_t *want_len,
                        struct skg_pk_error *err)
{
	return idx_compare(pack, version, off32_limit, strict, idx, first_diff, want_len, err);
}
