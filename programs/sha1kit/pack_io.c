/* pack_io.c - file mapping, progress lines and diagnostics for the pack commands (see pack_io.h). */
#include "pack_io.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

int pk_file_map(struct pk_file *f, const char *path)
{
	static const uint8_t empty[1];
	memset(f, 0, sizeof(*f));
	f->failed = "open";
	/* Look before opening: opening a FIFO waits for a writer, and a device may act on an open. */
	struct stat st;
	if (stat(path, &st) != 0) {
		return errno;
	}
	if (S_ISDIR(st.st_mode)) {
		return EISDIR;
	}
	if (!S_ISREG(st.st_mode)) {
		return PK_ENOTREG;
	}
	/* O_NONBLOCK: should the name be replaced by a FIFO meanwhile, the open does not wait. */
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
		e = PK_ENOTREG;
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
		/* A /proc file reports 0 bytes whatever it holds: an empty file must read as empty. */
		uint8_t byte;
		ssize_t n;
		do {
			n = pread(fd, &byte, 1, 0);
		} while (n < 0 && errno == EINTR);
		if (n != 0) {
			close(fd);
			return PK_ENOSIZE;
		}
	} else {
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
		f->fd = fd; /* kept for pk_file_read */
	}
	if (f->map == NULL) {
		close(fd);
	}
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	f->failed = NULL;
	return 0;
}

void pk_file_error(const char *cmd, const struct pk_file *f, const char *path, int e)
{
	if (e == PK_ENOTREG) {
		sk_error(0, "%s: %s: not a regular file", cmd, sk_quote(path));
	} else if (e == PK_ENOSIZE) {
		sk_error(0, "%s: cannot map %s: not a regular file (its size is unknown)", cmd,
		         sk_quote(path));
	} else {
		sk_error(e, "%s: cannot %s %s", cmd, f->failed != NULL ? f->failed : "open", sk_quote(path));
	}
}

void pk_file_unmap(struct pk_file *f)
{
	if (f->map != NULL) {
		munmap(f->map, f->map_len);
		close(f->fd);
	}
	memset(f, 0, sizeof(*f));
}

void pk_file_release(void *file, uint64_t upto)
{
	struct pk_file *f = file;
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

int pk_file_read(void *file, uint64_t offset, uint8_t *buf, size_t n)
{
	struct pk_file *f = file;
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

int pk_idx_compare_sink(void *ctx, const uint8_t *p, size_t n, struct pk_error *err)
{
	struct pk_idx_compare *c = ctx;
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
		pk_file_release(c->old, c->at);
		c->released = c->at;
	}
	return 0;
}

bool pk_idx_compare_end(struct pk_idx_compare *c)
{
	if (!c->differs && c->at != c->old->len) {
		c->differs = true;
		c->first_diff = c->at;
	}
	return !c->differs;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void pk_progress_init(struct pk_progress *p, bool enabled)
{
	p->enabled = enabled;
	p->phase = -1;
	p->percent = 0;
	p->last = 0;
}

void pk_progress_cb(void *ctx, enum pk_phase phase, uint64_t done, uint64_t total)
{
	struct pk_progress *p = ctx;
	static const char *const labels[] = {"Indexing objects", "Resolving deltas"};
	if (!p->enabled) {
		return;
	}
	unsigned pct = total ? (unsigned)(done * 100 / total) : 100;
	bool finished = done >= total;
	double t = now();
	if (p->phase == (int)phase && !finished && pct == p->percent && t - p->last < 0.5) {
		return;
	}
	if (p->phase != -1 && p->phase != (int)phase) {
		/* the previous phase did not print its final line */
		fputc('\n', stderr);
	}
	p->phase = finished ? -1 : (int)phase;
	p->percent = pct;
	p->last = t;
	fprintf(stderr, "%s: %3u%% (%" PRIu64 "/%" PRIu64 ")%s", labels[phase], pct, done, total,
	        finished ? ", done.\n" : "\r");
	fflush(stderr);
}

void pk_progress_abort(struct pk_progress *p)
{
	if (p->enabled && p->phase != -1) {
		fputc('\n', stderr);
		p->phase = -1;
	}
}

bool pk_parse_threads(const char *arg, unsigned *out)
{
	char *end;
	errno = 0;
	long v = strtol(arg, &end, 10);
	if (errno != 0 || end == arg || *end != '\0' || v < 0 || v > 1024) {
		return false;
	}
	*out = (unsigned)v;
	return true;
}

unsigned pk_online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}

void pk_report(const char *cmd, const char *name, const struct pk_error *err)
{
	char where[48] = "";
	if (err->has_offset && !err->collision) { /* the collision message names the offset */
		snprintf(where, sizeof(where), " (at offset %" PRIu64 ")", err->offset);
	}
	if (name != NULL) {
		sk_error(0, "%s: %s: %s%s", cmd, sk_quote(name), err->msg, where);
	} else {
		sk_error(0, "%s: %s%s", cmd, err->msg, where);
	}
}
