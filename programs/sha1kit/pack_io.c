/* pack_io.c - file mapping, progress lines and diagnostics for the pack commands (see pack_io.h). */
#include "pack_io.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

/* ------------------------------------------------------------------------------------------------ */
/* The SIGBUS guard of the mappings (see pk_file_map)                                               */
/* ------------------------------------------------------------------------------------------------ */

/* A mapping and its line; at most a pack and an idx are mapped at once. */
#define N_GUARDS 4
static struct {
	uintptr_t lo, hi; /* [lo, hi): the mapping, rounded up to whole pages */
	const char *msg;
	size_t len;
} guards[N_GUARDS];
/* Set once the slot's fields are written, cleared before they change: what the handler reads. */
static volatile sig_atomic_t guard_used[N_GUARDS];
static int n_guarded;            /* slots in use (the handler is installed while > 0) */
static struct sigaction old_bus; /* SIGBUS's action before */
static void (*volatile shrink_cleanup)(void);

static void on_sigbus(int sig, siginfo_t *si, void *uctx)
{
	(void)uctx;
	int saved = errno;
	/* si_code > 0: raised by the kernel for a fault (not sent by kill or sigqueue). */
	if (si != NULL && si->si_code > 0) {
		uintptr_t a = (uintptr_t)si->si_addr;
		for (int i = 0; i < N_GUARDS; i++) {
			if (guard_used[i] && a >= guards[i].lo && a < guards[i].hi) {
				void (*cleanup)(void) = shrink_cleanup;
				if (cleanup != NULL) {
					cleanup();
				}
				const char *p = guards[i].msg;
				size_t n = guards[i].len;
				while (n > 0) {
					ssize_t w = write(STDERR_FILENO, p, n);
					if (w < 0 && errno == EINTR) {
						continue;
					}
					if (w <= 0) {
						break;
					}
					p += w;
					n -= (size_t)w;
				}
				_exit(SK_EXIT_FAILURE);
			}
		}
	}
	/* Not a fault on a file of ours: SIGBUS as if no handler were installed. A fault happens again
	 * when the handler returns, and kills; a signal that was sent is raised again (it is blocked
	 * until the handler returns, and then kills). */
	sigaction(SIGBUS, &old_bus, NULL);
	if (si == NULL || si->si_code <= 0) {
		raise(sig);
	}
	errno = saved;
}

/* Guard [map, map + len) with the line `msg`; returns the slot, or -1 (no free slot, or the handler
 * could not be installed: a SIGBUS then kills as it would without this). */
static int guard_add(const void *map, size_t len, const char *msg, size_t msg_len)
{
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t lo = (uintptr_t)map;
	uintptr_t span = page > 0 ? (len + (size_t)page - 1) & ~((uintptr_t)page - 1) : len;
	for (int i = 0; i < N_GUARDS; i++) {
		if (guard_used[i]) {
			continue;
		}
		if (n_guarded == 0) {
			struct sigaction sa;
			memset(&sa, 0, sizeof(sa));
			sa.sa_sigaction = on_sigbus;
			sa.sa_flags = SA_SIGINFO;
			sigfillset(&sa.sa_mask); /* nothing else runs in between (index-pack's cleanup) */
			if (sigaction(SIGBUS, &sa, &old_bus) != 0) {
				return -1;
			}
		}
		guards[i].lo = lo;
		guards[i].hi = lo + span;
		guards[i].msg = msg;
		guards[i].len = msg_len;
		atomic_signal_fence(memory_order_seq_cst); /* the fields before the flag */
		guard_used[i] = 1;
		n_guarded++;
		return i;
	}
	return -1;
}

static void guard_remove(int i)
{
	if (i < 0 || !guard_used[i]) {
		return;
	}
	guard_used[i] = 0;
	atomic_signal_fence(memory_order_seq_cst);
	if (--n_guarded == 0) {
		sigaction(SIGBUS, &old_bus, NULL);
	}
}

void pk_file_on_shrink(void (*cleanup)(void))
{
	shrink_cleanup = cleanup;
}

bool pk_file_report_shrank(const struct pk_file *f)
{
	struct stat st;
	if (f->map == NULL || fstat(f->fd, &st) != 0 || (uint64_t)st.st_size >= f->len) {
		return false;
	}
	fflush(stdout); /* as sk_error: both streams in order */
	fputs(f->shrank_msg, stderr);
	return true;
}

/* The mappings of the Git layer (struct skg_check_options.on_map): their lines, owned here. */
static char *guard_owned[N_GUARDS];

int pk_guard_mapping(const char *cmd, const void *map, uint64_t len, const char *path)
{
	static const char fmt[] = SK_PROGRAM ": %s: %s: the file shrank while it was read\n";
	const char *q = sk_quote(path);
	int n = snprintf(NULL, 0, fmt, cmd, q);
	char *msg = n < 0 ? NULL : malloc((size_t)n + 1);
	if (msg == NULL || len > SIZE_MAX) {
		free(msg);
		return -1;
	}
	snprintf(msg, (size_t)n + 1, fmt, cmd, q);
	int i = guard_add(map, (size_t)len, msg, (size_t)n);
	if (i < 0) {
		free(msg);
		return -1;
	}
	guard_owned[i] = msg;
	return 0;
}

void pk_unguard_mapping(const void *map)
{
	for (int i = 0; i < N_GUARDS; i++) {
		if (guard_used[i] && guard_owned[i] != NULL && guards[i].lo == (uintptr_t)map) {
			guard_remove(i);
			free(guard_owned[i]);
			guard_owned[i] = NULL;
			return;
		}
	}
}

/* ------------------------------------------------------------------------------------------------ */
/* Files                                                                                            */
/* ------------------------------------------------------------------------------------------------ */

/* "sha1kit: CMD: NAME: the file shrank while it was read\n" in f->shrank_msg, or ENOMEM. */
static int make_shrank_msg(struct pk_file *f, const char *cmd, const char *path)
{
	static const char fmt[] = SK_PROGRAM ": %s: %s: the file shrank while it was read\n";
	const char *q = sk_quote(path);
	int n = snprintf(NULL, 0, fmt, cmd, q);
	if (n < 0 || (f->shrank_msg = malloc((size_t)n + 1)) == NULL) {
		return ENOMEM;
	}
	snprintf(f->shrank_msg, (size_t)n + 1, fmt, cmd, q);
	f->shrank_len = (size_t)n;
	return 0;
}

int pk_file_map(struct pk_file *f, const char *cmd, const char *path)
{
	static const uint8_t empty[1];
	memset(f, 0, sizeof(*f));
	f->guard = -1;
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
		/* The line of a shrinking file, ready before the mapping is. */
		e = make_shrank_msg(f, cmd, path);
		void *m = e != 0 ? MAP_FAILED : mmap(NULL, (size_t)f->len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m == MAP_FAILED) {
			e = e != 0 ? e : errno;
			close(fd);
			free(f->shrank_msg);
			f->shrank_msg = NULL;
			f->failed = "map";
			f->len = 0;
			f->data = NULL;
			return e;
		}
		f->map = m;
		f->map_len = (size_t)f->len;
		f->data = m;
		f->fd = fd; /* kept for pk_file_read */
		f->guard = guard_add(m, f->map_len, f->shrank_msg, f->shrank_len);
	}
	if (f->map == NULL) {
		close(fd);
	}
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	f->failed = NULL;
	return 0;
}

void pk_file_error_format(char *buf, size_t n, const char *cmd, const struct pk_file *f, const char *path,
                          int e)
{
	if (e == PK_ENOTREG) {
		snprintf(buf, n, "%s: %s: not a regular file", cmd, sk_quote(path));
	} else if (e == PK_ENOSIZE) {
		snprintf(buf, n, "%s: cannot map %s: not a regular file (its size is unknown)", cmd,
		         sk_quote(path));
	} else {
		snprintf(buf, n, "%s: cannot %s %s: %s", cmd, f->failed != NULL ? f->failed : "open",
		         sk_quote(path), strerror(e));
	}
}

void pk_file_error(const char *cmd, const struct pk_file *f, const char *path, int e)
{
	char line[4096];
	pk_file_error_format(line, sizeof(line), cmd, f, path, e);
	sk_error(0, "%s", line);
}

void pk_file_unmap(struct pk_file *f)
{
	if (f->map != NULL) {
		guard_remove(f->guard); /* before the address range can be reused */
		munmap(f->map, f->map_len);
		close(f->fd);
		free(f->shrank_msg);
	}
	memset(f, 0, sizeof(*f));
	f->guard = -1;
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
	if (arg[0] < '0' || arg[0] > '9') {
		return false; /* strtol would take " 3" and "+3" */
	}
	long v = strtol(arg, &end, 10);
	if (errno != 0 || end == arg || *end != '\0' || v < 0 || v > PK_THREADS_MAX) {
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

void pk_report_format(char *buf, size_t n, const char *cmd, const char *name, const struct pk_error *err)
{
	char where[48] = "";
	if (err->has_offset && !err->collision) { /* the collision message names the offset */
		snprintf(where, sizeof(where), " (at offset %" PRIu64 ")", err->offset);
	}
	if (name != NULL) {
		snprintf(buf, n, "%s: %s: %s%s", cmd, sk_quote(name), err->msg, where);
	} else {
		snprintf(buf, n, "%s: %s%s", cmd, err->msg, where);
	}
}

void pk_report(const char *cmd, const char *name, const struct pk_error *err)
{
	char line[4096];
	pk_report_format(line, sizeof(line), cmd, name, err);
	sk_error(0, "%s", line);
}
