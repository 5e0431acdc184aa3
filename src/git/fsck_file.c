/*
 * fsck_file.c - files of the pack check (fsck_file.h): as the CLI's mapping of `index-pack` and
 * `verify-pack` (programs/sha1kit/pack_io.c), without its SIGBUS guard (a process-wide signal
 * handler is no library's to install).
 */
#include "fsck_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif
#ifndef O_NOCTTY
#define O_NOCTTY 0
#endif
#ifndef O_NONBLOCK
#define O_NONBLOCK 0
#endif

int skg_fsck_file_map(struct skg_fsck_file *f, const char *path,
                      void (*on_map)(void *ctx, const void *addr, uint64_t len, const char *path,
                                     bool mapped),
                      void *map_ctx)
{
	static const uint8_t empty[1];
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->failed = "open";
	/* look before opening: opening a FIFO waits for a writer, and a device may act on an open */
	struct stat st;
	if (stat(path, &st) != 0) {
		return errno;
	}
	if (S_ISDIR(st.st_mode)) {
		return EISDIR;
	}
	if (!S_ISREG(st.st_mode)) {
		return SKG_FSCK_ENOTREG;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		return errno;
	}
	int e = 0;
	if (fstat(fd, &st) != 0) {
		e = errno;
	} else if (S_ISDIR(st.st_mode)) {
		e = EISDIR;
	} else if (!S_ISREG(st.st_mode)) {
		e = SKG_FSCK_ENOTREG;
	} else if ((uint64_t)st.st_size > SIZE_MAX / 2) {
		e = EFBIG;
	}
	if (e != 0) {
		close(fd);
		return e;
	}
	f->len = (uint64_t)st.st_size;
	f->data = empty;
	if (f->len == 0) {
		/* a /proc file reports 0 bytes whatever it holds: an empty file must read as empty */
		uint8_t byte;
		ssize_t n;
		do {
			n = pread(fd, &byte, 1, 0);
		} while (n < 0 && errno == EINTR);
		close(fd);
		if (n != 0) {
			return SKG_FSCK_ENOSIZE;
		}
		f->failed = NULL;
		return 0;
	}
	void *m = mmap(NULL, (size_t)f->len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED) {
		e = errno;
		close(fd);
		f->failed = "map";
		f->len = 0;
		f->data = NULL;
		return e;
	}
	f->map = m;
	f->map_len = (size_t)f->len;
	f->data = m;
	f->fd = fd;
	f->failed = NULL;
	if (on_map != NULL) {
		f->on_map = on_map;
		f->map_ctx = map_ctx;
		f->path = path;
		on_map(map_ctx, m, f->len, path, true);
	}
	return 0;
}

void skg_fsck_file_unmap(struct skg_fsck_file *f)
{
	if (f->map != NULL) {
		if (f->on_map != NULL) {
			f->on_map(f->map_ctx, f->map, f->len, f->path, false);
		}
		munmap(f->map, f->map_len);
		close(f->fd);
	}
	memset(f, 0, sizeof(*f));
	f->fd = -1;
}

void skg_fsck_quote(char *out, size_t n, const char *name)
{
	static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	                           "_-./+,@%";
	bool plain = name[0] != '\0' && name[strspn(name, safe)] == '\0';
	size_t k = 0;
	if (n == 0) {
		return;
	}
	if (!plain && k + 1 < n) {
		out[k++] = '\'';
	}
	for (const char *p = name; *p != '\0' && k + 1 < n; p++) {
		if (!plain && *p == '\'') {
			for (const char *q = "'\\''"; *q != '\0' && k + 1 < n; q++) {
				out[k++] = *q;
			}
		} else {
			out[k++] = *p;
		}
	}
	if (!plain && k + 1 < n) {
		out[k++] = '\'';
	}
	out[k] = '\0';
}

void skg_fsck_file_error(char *buf, size_t n, const struct skg_fsck_file *f, const char *path, int e)
{
	char q[4096];
	skg_fsck_quote(q, sizeof(q), path);
	if (e == SKG_FSCK_ENOTREG) {
		snprintf(buf, n, "fsck: %s: not a regular file", q);
	} else if (e == SKG_FSCK_ENOSIZE) {
		snprintf(buf, n, "fsck: cannot map %s: not a regular file (its size is unknown)", q);
	} else {
		snprintf(buf, n, "fsck: cannot %s %s: %s", f->failed != NULL ? f->failed : "open", q,
		         strerror(e));
	}
}

void skg_fsck_file_release(void *file, uint64_t upto)
{
	struct skg_fsck_file *f = file;
	long page = sysconf(_SC_PAGESIZE);
	if (f->map == NULL || page <= 0) {
		return;
	}
	if (upto > f->map_len) {
		upto = f->map_len;
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

int skg_fsck_file_read(void *file, uint64_t offset, uint8_t *buf, size_t n)
{
	struct skg_fsck_file *f = file;
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

int skg_fsck_idx_compare_sink(void *ctx, const uint8_t *p, size_t n, struct pk_error *err)
{
	struct skg_fsck_idx_compare *c = ctx;
	(void)err;
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
		return -1;
	}
	c->at += n;
	if (c->at - c->released >= ((uint64_t)1 << 20)) {
		skg_fsck_file_release(c->old, c->at);
		c->released = c->at;
	}
	return 0;
}

bool skg_fsck_idx_compare_end(struct skg_fsck_idx_compare *c)
{
	if (!c->differs && c->at != c->old->len) {
		c->differs = true;
		c->first_diff = c->at;
	}
	return !c->differs;
}
