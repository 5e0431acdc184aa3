/*
 * util.h - the Git layer's small helpers: growable strings, errors and reports, reading a file,
 * paths.
 *
 * Part of the Git layer (src/git/, library sha1kit_git). No printing, no exit, no global state.
 */
#ifndef SHA1KIT_GIT_UTIL_H
#define SHA1KIT_GIT_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "object.h"

/* ---- Errors and reports ------------------------------------------------------------------- */

/* struct skg_error, enum skg_level, skg_level_prefix, enum skg_report_id and struct skg_sink are
 * the public ones of <sha1kit/git.h> (through object.h). */

/* A growable NUL-terminated string. p is NULL until something is added (use skg_buf_str). */
struct skg_buf {
	char *p;
	size_t len, cap;
	bool failed; /* an allocation failed: contents are truncated */
};

void skg_buf_add(struct skg_buf *b, const void *data, size_t len);
void skg_buf_adds(struct skg_buf *b, const char *s);
void skg_buf_addc(struct skg_buf *b, char c);
void skg_buf_addf(struct skg_buf *b, const char *fmt, ...) SKG_PRINTF(2, 3);
void skg_buf_vaddf(struct skg_buf *b, const char *fmt, va_list ap) SKG_PRINTF(2, 0);
void skg_buf_setlen(struct skg_buf *b, size_t len);
const char *skg_buf_str(const struct skg_buf *b); /* "" when empty */
void skg_buf_release(struct skg_buf *b);

/* mkstemp with the descriptor closed on exec (as every file the layer opens: a program's hooks
 * started meanwhile do not inherit a temporary pack). */
int skg_mkstemp(char *tmpl);

/*
 * Read the whole file at path into a new heap buffer (*data, NUL-terminated; *len bytes without the
 * NUL). Returns 0, or -1 with errno set (ENOENT for a missing file, EFBIG beyond max bytes).
 */
int skg_read_file(const char *path, size_t max, char **data, size_t *len);

/*
 * A large array that is read and written all over (the object graph's tables): asks the kernel to
 * back p[0..len) with transparent huge pages where it can (Linux madvise MADV_HUGEPAGE on the
 * page-aligned part; nothing below 4 MiB, nothing on other systems). Fewer page faults and TLB
 * misses; the memory and its contents are unchanged. Call it again after a realloc.
 */
void skg_mem_hint_huge(void *p, size_t len);

/* git's name of a zlib status in its "inflate: NAME (MSG)" error lines (git-zlib.c zerr_to_string):
 * "out of memory", "wrong version", "needs dictionary", "data stream error", "stream consistency
 * error", else "unknown error". */
const char *skg_zerr_name(int status);

/* The CPUs online (sysconf), at least 1: what a thread count of 0 means in the layer's options. */
unsigned skg_online_cpus(void);

/* Write all n bytes of p to fd (short writes and EINTR retried, 1 GiB a call). 0, or -1 (errno). */
int skg_write_full(int fd, const void *p, size_t n);

/* The qsort / bsearch comparator of object IDs of rawsz bytes (20 or 32): memcmp order. */
int (*skg_id_cmp(size_t rawsz))(const void *, const void *);

/* The first statement of a public function of the layer, whose `err` may be NULL (git.h): err
 * then points to a local error that is dropped, so that the function's code can fill it. */
#define SKG_ERR_OR_LOCAL(err)                                                                                \
	struct skg_error skg_err_local_;                                                                     \
	if ((err) == NULL) {                                                                                 \
		(err) = &skg_err_local_;                                                                     \
	}                                                                                                    \
	(void)0

/* snprintf into err->msg; returns -1 (for `return skg_fail(err, ...)`). */
int skg_fail(struct skg_error *err, const char *fmt, ...) SKG_PRINTF(2, 3);

/* As skg_fail, with another code (SKG_E_NOMEM, SKG_E_IO, ...) and the errno of the failed call. */
int skg_fail_sys(struct skg_error *err, enum skg_errc code, int sys_errno, const char *fmt, ...)
    SKG_PRINTF(4, 5);

/* Hand the record r to sink (which may be NULL, or have no report function). */
void skg_sink_emit(const struct skg_sink *sink, const struct skg_report *r);

/* In place, as git's vreportf prints a message after a prefix of prefix_len bytes: control
 * characters other than TAB and LF become '?', and the message is cut at 4095 - prefix_len bytes. */
void skg_git_reportf_style(char *msg, size_t prefix_len);

/* The same replacement alone, on the len bytes at p (a line; no NUL needed, LF left as it is). */
void skg_git_control_chars(char *p, size_t len);

/* Send a formatted diagnostic to rep (which may be NULL): a record with text, level and id. */
void skg_report(const struct skg_sink *rep, enum skg_level level, enum skg_report_id id, const char *fmt, ...)
    SKG_PRINTF(4, 5);

/* The same with every field of the record from *r but its text (r->text unused): the text
 * formatted from fmt (at most SKG_ERROR_MAX - 1 bytes), in git's vreportf form for an error or a
 * warning (skg_git_reportf_style). */
void skg_vreport(const struct skg_sink *rep, const struct skg_report *r, const char *fmt, va_list ap)
    SKG_PRINTF(3, 0);

/*
 * The absolute path of path (relative to the current directory) without symbolic links, "." and
 * "..", into a new heap string; like git's strbuf_realpath(), the last component need not exist.
 * NULL (errno set) if another component is missing or not a directory.
 */
char *skg_realpath(const char *path);

/*
 * The lines of an object-name list as git's oidset_parse_file reads them (fsck.skipList): the next
 * line of data[*pos..len) that is not empty once a '#' comment and the blanks around it are cut,
 * in *line[0..*n); *pos moves past it. False at the end.
 */
bool skg_next_list_line(const char *data, size_t len, size_t *pos, const char **line, size_t *n);

/* git's isspace(): space, \t, \n, \r only (git's ctype, not the C locale's). */
static inline bool skg_isspace(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* ASCII digits and capitals (git's ctype, not the C locale's). */
static inline bool skg_isdigit(int c)
{
	return c >= '0' && c <= '9';
}

static inline bool skg_isupper(int c)
{
	return c >= 'A' && c <= 'Z';
}

static inline bool skg_starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static inline bool skg_ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

/*
 * A file's byte or big-endian 32-bit word at `off` with the bytes past its end (len) read as zeros:
 * where git reads a field of a damaged file beyond its end, it reads the zero bytes that fill the
 * last page of its mapping (commit-graph, multi-pack-index: trailer.c, cgraph.c).
 */
static inline uint8_t skg_byte_padded(const uint8_t *data, size_t len, uint64_t off)
{
	return off < len ? data[off] : 0;
}

static inline uint32_t skg_be32_padded(const uint8_t *data, size_t len, uint64_t off)
{
	uint32_t v = 0;
	for (int i = 0; i < 4; i++) {
		v = v << 8 | skg_byte_padded(data, len, off + (uint64_t)i);
	}
	return v;
}

/* Is id all zeros (git's null object ID)? */
static inline bool skg_is_null_id(const uint8_t id[SKG_RAWSZ])
{
	static const uint8_t null_id[SKG_RAWSZ];
	return memcmp(id, null_id, SKG_RAWSZ) == 0;
}

/* The same for an ID of rawsz bytes (20 or 32). */
static inline bool skg_is_null_id_len(const uint8_t *id, size_t rawsz)
{
	static const uint8_t null_id[SKG_MAX_RAWSZ];
	/* two constant sizes: each compare inlined (it runs for every tree entry fsck checks) */
	return rawsz == SKG_MAX_RAWSZ ? memcmp(id, null_id, SKG_MAX_RAWSZ) == 0
	                              : memcmp(id, null_id, SKG_RAWSZ) == 0;
}

/* a and b joined with one '/' between them, into a new heap string (NULL: out of memory). */
char *skg_path_join(const char *a, const char *b);

/* a, b and c one after the other, into a new heap string (NULL: out of memory). */
char *skg_concat3(const char *a, const char *b, const char *c);

#endif /* SHA1KIT_GIT_UTIL_H */
