/*
 * util.c - the Git layer's small helpers: growable strings, errors and reports, reading a file,
 * paths (util.h).
 *
 * The code is this project's own.
 */
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif
#include <unistd.h>
#include <zlib.h>

/* ---- Small helpers -------------------------------------------------------------------------- */

static bool buf_grow(struct skg_buf *b, size_t extra)
{
	if (b->failed) {
		return false;
	}
	if (extra >= SIZE_MAX - b->len - 1) {
		b->failed = true;
		return false;
	}
	size_t need = b->len + extra + 1;
	if (need <= b->cap) {
		return true;
	}
	size_t cap = b->cap ? b->cap : 64;
	while (cap < need) {
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	}
	char *p = realloc(b->p, cap);
	if (p == NULL) {
		b->failed = true;
		return false;
	}
	b->p = p;
	b->cap = cap;
	return true;
}

void skg_buf_add(struct skg_buf *b, const void *data, size_t len)
{
	if (!buf_grow(b, len)) {
		return;
	}
	if (len) {
		memcpy(b->p + b->len, data, len);
	}
	b->len += len;
	b->p[b->len] = '\0';
}

void skg_buf_adds(struct skg_buf *b, const char *s)
{
	skg_buf_add(b, s, strlen(s));
}

void skg_buf_addc(struct skg_buf *b, char c)
{
	skg_buf_add(b, &c, 1);
}

void skg_buf_vaddf(struct skg_buf *b, const char *fmt, va_list ap)
{
	va_list again;
	va_copy(again, ap);
	char small[256];
	int n = vsnprintf(small, sizeof(small), fmt, ap);
	if (n < 0) {
		b->failed = true;
	} else if ((size_t)n < sizeof(small)) {
		skg_buf_add(b, small, (size_t)n);
	} else if (buf_grow(b, (size_t)n)) {
		vsnprintf(b->p + b->len, (size_t)n + 1, fmt, again);
		b->len += (size_t)n;
	}
	va_end(again);
}

void skg_buf_addf(struct skg_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	skg_buf_vaddf(b, fmt, ap);
	va_end(ap);
}

void skg_buf_setlen(struct skg_buf *b, size_t len)
{
	if (b->p != NULL && len <= b->len) {
		b->len = len;
		b->p[len] = '\0';
	}
}

const char *skg_buf_str(const struct skg_buf *b)
{
	return b->p ? b->p : "";
}

void skg_buf_release(struct skg_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
	b->failed = false;
}

/*
 * What git's error(), warning() and die() do to a message (usage.c vreportf): the line, prefix
 * included, is at most 4095 bytes, and control characters other than TAB and LF become '?'.
 */
void skg_git_control_chars(char *p, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)p[i];
		if ((c < 0x20 || c == 0x7f) && c != '\t' && c != '\n') {
			p[i] = '?';
		}
	}
}

void skg_git_reportf_style(char *msg, size_t prefix_len)
{
	size_t max = 4095 - prefix_len;
	size_t len = strnlen(msg, max);
	skg_git_control_chars(msg, len);
	msg[len] = '\0';
}

static int cmp_id20(const void *a, const void *b)
{
	return memcmp(a, b, SKG_RAWSZ);
}

static int cmp_id32(const void *a, const void *b)
{
	return memcmp(a, b, SKG_MAX_RAWSZ);
}

int (*skg_id_cmp(size_t rawsz))(const void *, const void *)
{
	return rawsz == SKG_MAX_RAWSZ ? cmp_id32 : cmp_id20;
}

int skg_fail(struct skg_error *err, const char *fmt, ...)
{
	if (err != NULL) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
		skg_git_reportf_style(err->msg, strlen("fatal: "));
		err->code = SKG_E_GIT;
		err->sys_errno = 0;
		err->has_offset = false;
		err->offset = 0;
	}
	return -1;
}

int skg_fail_sys(struct skg_error *err, enum skg_errc code, int sys_errno, const char *fmt, ...)
{
	if (err != NULL) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
		err->code = code;
		err->sys_errno = sys_errno;
		err->has_offset = false;
		err->offset = 0;
	}
	return -1;
}

const char *skg_errc_name(enum skg_errc code)
{
	switch (code) {
	case SKG_E_GIT:
		return "fatal";
	case SKG_E_NOMEM:
		return "out of memory";
	case SKG_E_THREAD:
		return "cannot start a thread";
	case SKG_E_IO:
		return "input/output error";
	case SKG_E_USAGE:
		return "invalid argument";
	case SKG_E_CANCELLED:
		return "cancelled";
	case SKG_E_COLLISION:
		return "collision attack detected";
	case SKG_E_CORRUPT:
		return "corrupt input";
	case SKG_E_UNSUPPORTED:
		return "unsupported repository";
	}
	return "unknown error";
}

void skg_sink_emit(const struct skg_sink *sink, const struct skg_report *r)
{
	if (sink != NULL && sink->report != NULL) {
		sink->report(sink->ctx, r);
	}
}

void skg_vreport(const struct skg_sink *rep, const struct skg_report *r, const char *fmt, va_list ap)
{
	if (rep == NULL || rep->report == NULL) {
		return;
	}
	char msg[SKG_ERROR_MAX];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (r->level == SKG_LEVEL_ERROR || r->level == SKG_LEVEL_WARNING) {
		skg_git_reportf_style(msg, strlen(skg_level_prefix(r->level)));
	}
	struct skg_report out = *r;
	out.text = msg;
	rep->report(rep->ctx, &out);
}

void skg_report(const struct skg_sink *rep, enum skg_level level, enum skg_report_id id, const char *fmt, ...)
{
	struct skg_report r = {level, (int)id, NULL, SKG_NONE, NULL, NULL, false, 0};
	va_list ap;
	va_start(ap, fmt);
	skg_vreport(rep, &r, fmt, ap);
	va_end(ap);
}

const char *skg_level_prefix(enum skg_level level)
{
	switch (level) {
	case SKG_LEVEL_OUTPUT:
		return "";
	case SKG_LEVEL_ERROR:
		return "error: ";
	case SKG_LEVEL_WARNING:
		return "warning: ";
	case SKG_LEVEL_NOTICE:
		return "notice: ";
	case SKG_LEVEL_PLAIN:
		return "";
	case SKG_LEVEL_SILENT:
		break;
	}
	return NULL;
}

int skg_write_full(int fd, const void *p, size_t n)
{
	const uint8_t *b = p;
	while (n > 0) {
		ssize_t w = write(fd, b, n > (1u << 30) ? (1u << 30) : n);
		if (w < 0) {
			if (errno == EINTR) {
				continue;
			}
			return -1;
		}
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

int skg_mkstemp(char *tmpl)
{
#if defined(_WIN32)
	return mkstemp(tmpl); /* (no exec to inherit it there) */
#else
	return mkostemp(tmpl, O_CLOEXEC);
#endif
}

int skg_read_file(const char *path, size_t max, char **data, size_t *len)
{
	*data = NULL;
	*len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) != 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		errno = EISDIR;
		return -1;
	}
	size_t cap = S_ISREG(st.st_mode) && st.st_size > 0 && (uint64_t)st.st_size < max
	                 ? (size_t)st.st_size + 1
	                 : 4096;
	char *p = malloc(cap + 1);
	size_t n = 0;
	if (p == NULL) {
		close(fd);
		errno = ENOMEM;
		return -1;
	}
	for (;;) {
		if (n == cap) {
			if (cap >= max) {
				free(p);
				close(fd);
				errno = EFBIG;
				return -1;
			}
			size_t ncap = cap * 2 > max ? max : cap * 2;
			char *q = realloc(p, ncap + 1);
			if (q == NULL) {
				free(p);
				close(fd);
				errno = ENOMEM;
				return -1;
			}
			p = q;
			cap = ncap;
		}
		ssize_t r = read(fd, p + n, cap - n);
		if (r < 0) {
			if (errno == EINTR) {
				continue;
			}
			int e = errno;
			free(p);
			close(fd);
			errno = e;
			return -1;
		}
		if (r == 0) {
			break;
		}
		n += (size_t)r;
	}
	close(fd);
	if (n > max) {
		free(p);
		errno = EFBIG;
		return -1;
	}
	p[n] = '\0';
	*data = p;
	*len = n;
	return 0;
}

char *skg_path_join(const char *a, const char *b)
{
	struct skg_buf buf = {0};
	skg_buf_adds(&buf, a);
	if (buf.len && buf.p[buf.len - 1] != '/') {
		skg_buf_addc(&buf, '/');
	}
	skg_buf_adds(&buf, b);
	if (buf.failed) {
		skg_buf_release(&buf);
		return NULL;
	}
	if (buf.p == NULL) {
		return strdup("");
	}
	return buf.p;
}

void skg_mem_hint_huge(void *p, size_t len)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
	if (p == NULL || len < ((size_t)4 << 20)) {
		return;
	}
	long ps = sysconf(_SC_PAGESIZE);
	const uintptr_t page = ps > 0 ? (uintptr_t)ps : 4096;
	uintptr_t from = ((uintptr_t)p + page - 1) & ~(page - 1);
	uintptr_t to = ((uintptr_t)p + len) & ~(page - 1);
	if (to > from) {
		(void)madvise((void *)from, to - from, MADV_HUGEPAGE); /* only a hint: a refusal is fine */
	}
#else
	(void)p;
	(void)len;
#endif
}

char *skg_realpath(const char *path)
{
	if (path == NULL || *path == '\0') {
		errno = ENOENT;
		return NULL;
	}
	char *r = realpath(path, NULL);
	if (r != NULL || errno != ENOENT) {
		return r;
	}
	/* The last component may be missing (as git's strbuf_realpath allows): resolve its parent. */
	char *copy = strdup(path);
	if (copy == NULL) {
		return NULL;
	}
	size_t n = strlen(copy);
	while (n > 1 && copy[n - 1] == '/') {
		copy[--n] = '\0';
	}
	char *slash = strrchr(copy, '/');
	const char *dir, *base;
	if (slash == NULL) {
		dir = ".";
		base = copy;
	} else if (slash == copy) {
		dir = "/";
		base = copy + 1;
	} else {
		*slash = '\0';
		dir = copy;
		base = slash + 1;
	}
	if (*base == '\0' || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
		free(copy);
		errno = ENOENT;
		return NULL;
	}
	char *d = realpath(dir, NULL);
	if (d == NULL) {
		free(copy);
		return NULL;
	}
	char *out = skg_path_join(d, base);
	free(d);
	free(copy);
	return out;
}

char *skg_concat3(const char *a, const char *b, const char *c)
{
	size_t n = strlen(a) + strlen(b) + strlen(c) + 1;
	char *p = malloc(n);
	if (p != NULL) {
		snprintf(p, n, "%s%s%s", a, b, c);
	}
	return p;
}

bool skg_next_list_line(const char *data, size_t len, size_t *pos, const char **line, size_t *n)
{
	while (*pos < len) {
		size_t p = *pos, e = p;
		while (e < len && data[e] != '\n') {
			e++;
		}
		*pos = e + 1;
		size_t a = p, b = e;
		const char *hash = memchr(data + p, '#', e - p);
		if (hash != NULL) {
			b = (size_t)(hash - data);
		}
		while (a < b && skg_isspace((unsigned char)data[a])) {
			a++;
		}
		while (b > a && skg_isspace((unsigned char)data[b - 1])) {
			b--;
		}
		if (b > a) {
			*line = data + a;
			*n = b - a;
			return true;
		}
	}
	return false;
}

int skg_git_version_parse(const char *text, unsigned *out)
{
	/* "2.39" or "2.55", then optionally "." and a patch level of 1 to 3 digits (a maintenance
	 * release changes no message fsck prints) */
	unsigned v;
	if (text == NULL || strncmp(text, "2.", 2) != 0) {
		return -1;
	}
	if (strncmp(text + 2, "39", 2) == 0) {
		v = SKG_GIT_2_39;
	} else if (strncmp(text + 2, "55", 2) == 0) {
		v = SKG_GIT_2_55;
	} else {
		return -1;
	}
	const char *p = text + 4;
	if (*p == '.') {
		size_t n = 0;
		while (p[1 + n] >= '0' && p[1 + n] <= '9') {
			n++;
		}
		if (n == 0 || n > 3 || p[1 + n] != '\0') {
			return -1;
		}
	} else if (*p != '\0') {
		return -1;
	}
	*out = v;
	return 0;
}

unsigned skg_online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}

const char *skg_zerr_name(int status)
{
	switch (status) {
	case Z_MEM_ERROR:
		return "out of memory";
	case Z_VERSION_ERROR:
		return "wrong version";
	case Z_NEED_DICT:
		return "needs dictionary";
	case Z_DATA_ERROR:
		return "data stream error";
	case Z_STREAM_ERROR:
		return "stream consistency error";
	default:
		return "unknown error";
	}
}
