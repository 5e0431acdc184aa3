/*
 * repo.c - repository discovery, repository format, alternates and config (repo.h).
 *
 * The rules follow git 2.39.5 (setup.c, path.c, object-file.c, config.c), checked by running git;
 * the code is this project's own.
 */
#include "repo.h"

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
#include <unistd.h>

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

void skg_buf_addf(struct skg_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char small[256];
	int n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->failed = true;
		return;
	}
	if ((size_t)n < sizeof(small)) {
		skg_buf_add(b, small, (size_t)n);
		return;
	}
	if (!buf_grow(b, (size_t)n)) {
		return;
	}
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
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
static void git_reportf_style(char *msg, size_t prefix_len)
{
	size_t max = 4095 - prefix_len;
	size_t i = 0;
	for (; msg[i] && i < max; i++) {
		unsigned char c = (unsigned char)msg[i];
		if ((c < 0x20 || c == 0x7f) && c != '\t' && c != '\n') {
			msg[i] = '?';
		}
	}
	msg[i] = '\0';
}

int skg_fail(struct skg_error *err, const char *fmt, ...)
{
	if (err != NULL) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
		git_reportf_style(err->msg, strlen("fatal: "));
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
	}
	return "unknown error";
}

void skg_sink_emit(const struct skg_sink *sink, const struct skg_report *r)
{
	if (sink != NULL && sink->report != NULL) {
		sink->report(sink->ctx, r);
	}
}

void skg_report(const struct skg_sink *rep, enum skg_level level, enum skg_report_id id, const char *fmt, ...)
{
	if (rep == NULL || rep->report == NULL) {
		return;
	}
	char msg[SKG_ERROR_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (level == SKG_LEVEL_ERROR || level == SKG_LEVEL_WARNING) {
		git_reportf_style(msg, strlen(skg_level_prefix(level)));
	}
	struct skg_report r = {level, (int)id, NULL, SKG_NONE, NULL, msg, false, 0};
	rep->report(rep->ctx, &r);
}

const char *skg_repo_git_dir(const struct skg_repo *repo)
{
	return repo->git_dir;
}

const char *skg_repo_objects_dir(const struct skg_repo *repo)
{
	return repo->objects_dir;
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

static char *path_join(const char *a, const char *b)
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
	char *out = path_join(d, base);
	free(d);
	free(copy);
	return out;
}

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* git_env_bool(): unset -> dflt, else a config boolean (invalid counts as true, as git dies). */
static bool env_bool(const char *name, bool dflt)
{
	const char *v = getenv(name);
	if (v == NULL) {
		return dflt;
	}
	return skg_config_bool(v) != 0;
}

/* ---- Config values -------------------------------------------------------------------------- */

static int parse_bool_text(const char *value)
{
	if (value == NULL) {
		return 1;
	}
	if (*value == '\0') {
		return 0;
	}
	if (!strcasecmp(value, "true") || !strcasecmp(value, "yes") || !strcasecmp(value, "on")) {
		return 1;
	}
	if (!strcasecmp(value, "false") || !strcasecmp(value, "no") || !strcasecmp(value, "off")) {
		return 0;
	}
	return -1;
}

bool skg_config_int(const char *value, int *out)
{
	if (value == NULL || *value == '\0') {
		return false;
	}
	char *end;
	errno = 0;
	long long v = strtoll(value, &end, 0);
	if (errno == ERANGE || end == value) {
		return false;
	}
	long long factor;
	if (*end == '\0') {
		factor = 1;
	} else if (!strcasecmp(end, "k")) {
		factor = 1024;
	} else if (!strcasecmp(end, "m")) {
		factor = 1024 * 1024;
	} else if (!strcasecmp(end, "g")) {
		factor = 1024 * 1024 * 1024;
	} else {
		return false;
	}
	if ((v < 0 && -(long long)INT_MAX / factor > v) || (v > 0 && (long long)INT_MAX / factor < v)) {
		return false;
	}
	*out = (int)(v * factor);
	return true;
}

int skg_config_bool(const char *value)
{
	int v = parse_bool_text(value);
	if (v >= 0) {
		return v;
	}
	int i;
	if (skg_config_int(value, &i)) {
		return i != 0;
	}
	return -1;
}

static bool is_alpha(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_keychar(int c)
{
	return is_alpha(c) || (c >= '0' && c <= '9') || c == '-';
}

static int to_lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

bool skg_config_canonical_key(const char *key, char *out, size_t out_size)
{
	const char *first = strchr(key, '.');
	const char *last = strrchr(key, '.');
	size_t n = strlen(key);
	if (first == NULL || first == key || last[1] == '\0' || n + 1 > out_size) {
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		const char *p = key + i;
		out[i] = (char)(p < first || p > last ? to_lower((unsigned char)*p) : *p);
	}
	out[n] = '\0';
	return true;
}

/* ---- Config parser (Documentation/config.txt, "Syntax") ------------------------------------- */

struct cfg_parser {
	const unsigned char *buf;
	size_t len, pos;
	size_t total; /* characters read so far (git's total_len) */
	int linenr;
	bool eof;
	bool as_char; /* bytes read as `char` (git's buffer source), not as unsigned char (fgetc) */
	struct skg_buf var, value;
};

/*
 * The next byte as git's do_fgetc returns it, or -1 (EOF) at the end. A file is read with fgetc
 * (0..255); a buffer (a blob) as the `char` values of its bytes, so that where char is signed
 * (x86-64, as git is built there) bytes 0x80..0xFF are negative and 0xFF reads as EOF.
 */
static int cfg_read(struct cfg_parser *p)
{
	if (p->pos >= p->len) {
		return -1;
	}
	unsigned char b = p->buf[p->pos++];
	return p->as_char ? (int)(char)b : (int)b;
}

/*
 * One character as git's get_next_char returns it: CR LF reads as LF (a CR before an EOF value
 * drops that value, as git does not push EOF back), EOF as LF with eof set (it stays set: after a
 * 0xFF byte in a blob, git reads on with eof set), and past INT_MAX characters a 0 with eof set.
 */
static int cfg_getc(struct cfg_parser *p)
{
	int c = cfg_read(p);
	if (c == '\r') {
		c = cfg_read(p);
		if (c != '\n') {
			if (c != -1) {
				p->pos--;
			}
			c = '\r';
		}
	}
	if (c != -1 && ++p->total > (size_t)INT_MAX) {
		p->eof = true;
		return 0;
	}
	if (c == '\n') {
		p->linenr++;
	}
	if (c == -1) {
		p->eof = true;
		p->linenr++;
		c = '\n';
	}
	return c;
}

/* The value after '=': NULL on a syntax error (open quote at end of line, unknown escape). */
static const char *cfg_value(struct cfg_parser *p)
{
	bool quote = false, comment = false;
	size_t space = 0;
	p->value.len = 0;
	skg_buf_add(&p->value, "", 0);
	for (;;) {
		int c = cfg_getc(p);
		if (c == '\n') {
			if (quote) {
				p->linenr--;
				return NULL;
			}
			return skg_buf_str(&p->value);
		}
		if (comment) {
			continue;
		}
		if (skg_isspace(c) && !quote) {
			if (p->value.len) {
				space++;
			}
			continue;
		}
		if (!quote && (c == ';' || c == '#')) {
			comment = true;
			continue;
		}
		for (; space; space--) {
			skg_buf_addc(&p->value, ' ');
		}
		if (c == '\\') {
			c = cfg_getc(p);
			switch (c) {
			case '\n':
				continue;
			case 't':
				c = '\t';
				break;
			case 'b':
				c = '\b';
				break;
			case 'n':
				c = '\n';
				break;
			case '\\':
			case '"':
				break;
			default:
				return NULL;
			}
			skg_buf_addc(&p->value, (char)c);
			continue;
		}
		if (c == '"') {
			quote = !quote;
			continue;
		}
		skg_buf_addc(&p->value, (char)c);
	}
}

/* The rest of a key whose first character is in var already, then its value; calls fn. */
static int cfg_entry(struct cfg_parser *p, skg_config_fn fn, void *ctx, int *stop)
{
	int c;
	for (;;) {
		c = cfg_getc(p);
		if (p->eof || !is_keychar(c)) {
			break;
		}
		skg_buf_addc(&p->var, (char)to_lower(c));
	}
	while (c == ' ' || c == '\t') {
		c = cfg_getc(p);
	}
	const char *value = NULL;
	if (c != '\n') {
		if (c != '=') {
			return -1;
		}
		value = cfg_value(p);
		if (value == NULL) {
			return -1;
		}
	}
	if (p->var.failed || p->value.failed) {
		return -1;
	}
	p->linenr--;
	int ret = fn(ctx, skg_buf_str(&p->var), value);
	if (ret < 0) {
		return -1;
	}
	p->linenr++;
	*stop = ret;
	return 0;
}

/* '[' seen: "[section]", "[section.sub]" or "[section "subsection"]". */
static int cfg_section(struct cfg_parser *p)
{
	for (;;) {
		int c = cfg_getc(p);
		if (p->eof) {
			return -1;
		}
		if (c == ']') {
			return 0;
		}
		if (skg_isspace(c)) {
			/* the extended form: whitespace, then a quoted subsection, then ']' */
			do {
				if (c == '\n') {
					p->linenr--;
					return -1;
				}
				c = cfg_getc(p);
			} while (skg_isspace(c));
			if (c != '"') {
				return -1;
			}
			skg_buf_addc(&p->var, '.');
			for (;;) {
				c = cfg_getc(p);
				if (c == '\n') {
					p->linenr--;
					return -1;
				}
				if (c == '"') {
					break;
				}
				if (c == '\\') {
					c = cfg_getc(p);
					if (c == '\n') {
						p->linenr--;
						return -1;
					}
				}
				skg_buf_addc(&p->var, (char)c);
			}
			return cfg_getc(p) == ']' ? 0 : -1;
		}
		if (!is_keychar(c) && c != '.') {
			return -1;
		}
		skg_buf_addc(&p->var, (char)to_lower(c));
	}
}

static int config_parse(const char *buf, size_t len, bool as_char, const char *name, skg_config_fn fn,
                        void *ctx, struct skg_error *err)
{
	static const unsigned char bom[] = {0xef, 0xbb, 0xbf};
	struct cfg_parser p = {
	    .buf = (const unsigned char *)buf, .len = len, .linenr = 1, .as_char = as_char};
	size_t bom_pos = 0;
	bool bom_done = false, comment = false;
	size_t baselen = 0;
	int ret = 0;
	for (;;) {
		int c = cfg_getc(&p);
		if (!bom_done) {
			if (bom_pos < sizeof(bom) && c == bom[bom_pos]) {
				bom_pos++;
				continue;
			}
			if (bom_pos != 0 && bom_pos < sizeof(bom)) {
				break; /* a partial byte order mark */
			}
			bom_done = true;
		}
		if (c == '\n') {
			if (p.eof) {
				goto done;
			}
			comment = false;
			continue;
		}
		if (comment || skg_isspace(c)) {
			continue;
		}
		if (c == '#' || c == ';') {
			comment = true;
			continue;
		}
		if (c == '[') {
			p.var.len = 0;
			skg_buf_add(&p.var, "", 0);
			if (cfg_section(&p) < 0 || p.var.len < 1) {
				break;
			}
			skg_buf_addc(&p.var, '.');
			baselen = p.var.len;
			continue;
		}
		if (!is_alpha(c)) {
			break;
		}
		skg_buf_setlen(&p.var, baselen);
		if (p.var.p == NULL) {
			skg_buf_add(&p.var, "", 0);
		}
		skg_buf_addc(&p.var, (char)to_lower(c));
		int stop = 0;
		if (cfg_entry(&p, fn, ctx, &stop) < 0) {
			break;
		}
		if (stop) {
			ret = stop;
			goto done;
		}
	}
	if (p.var.failed || p.value.failed) { /* not the line: memory ran out */
		ret = skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
	} else {
		ret = skg_fail(err, "bad config line %d in %s %s", p.linenr, as_char ? "blob" : "file", name);
	}
done:
	skg_buf_release(&p.var);
	skg_buf_release(&p.value);
	return ret;
}

int skg_config_parse(const char *buf, size_t len, const char *name, skg_config_fn fn, void *ctx,
                     struct skg_error *err)
{
	return config_parse(buf, len, false, name, fn, ctx, err);
}

int skg_config_parse_blob(const char *buf, size_t len, const char *name, skg_config_fn fn, void *ctx,
                          struct skg_error *err)
{
	return config_parse(buf, len, true, name, fn, ctx, err);
}

int skg_config_read_file(const char *path, const char *name, skg_config_fn fn, void *ctx,
                         struct skg_error *err)
{
	char *data;
	size_t len;
	if (skg_read_file(path, (size_t)INT_MAX, &data, &len) != 0) {
		if (errno == ENOENT || errno == ENOTDIR) {
			return 0;
		}
		if (errno == ENOMEM) {
			return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
		}
		return skg_fail(err, "unable to access '%s': %s", name, strerror(errno));
	}
	int ret = skg_config_parse(data, len, name, fn, ctx, err);
	free(data);
	return ret;
}

/* ---- Config with includes, in git's order of files -------------------------------------------- */

struct include_ctx {
	skg_config_fn fn;
	void *ctx;
	const char *path; /* the file being read, to open it (relative includes start from it) */
	const char *name; /* the same as git spells it (messages) */
	int depth;
	struct skg_error *err;
	bool failed;
};

static int read_with_includes(struct include_ctx *inc, const char *path, const char *name);

/* An include.path value relative to the directory of file (or "~/..." or absolute) into out. */
static bool include_target(const char *file, const char *value, struct skg_buf *out)
{
	if (value[0] == '~' && (value[1] == '/' || value[1] == '\0')) {
		const char *home = getenv("HOME");
		if (home == NULL) {
			return false;
		}
		skg_buf_adds(out, home);
		skg_buf_adds(out, value + 1);
	} else if (value[0] != '/') {
		const char *slash = strrchr(file, '/');
		if (slash != NULL) {
			skg_buf_add(out, file, (size_t)(slash - file) + 1);
		}
		skg_buf_adds(out, value);
	} else {
		skg_buf_adds(out, value);
	}
	skg_buf_add(out, "", 0);
	return !out->failed;
}

static int include_cb(void *vctx, const char *key, const char *value)
{
	struct include_ctx *inc = vctx;
	int ret = inc->fn(inc->ctx, key, value);
	if (ret != 0) {
		return ret;
	}
	if (strcmp(key, "include.path") != 0) {
		return 0;
	}
	if (value == NULL) {
		inc->failed = true;
		skg_fail(inc->err, "missing value for '%s'", key);
		return 1;
	}
	struct skg_buf path = {0}, name = {0};
	if (!include_target(inc->path, value, &path) || !include_target(inc->name, value, &name)) {
		skg_buf_release(&path);
		skg_buf_release(&name);
		inc->failed = true;
		skg_fail(inc->err, "could not expand include path '%s'", value);
		return 1;
	}
	ret = 0;
	if (access(path.p, R_OK) == 0) {
		if (++inc->depth > 10) {
			inc->failed = true;
			skg_fail(inc->err,
			         "exceeded maximum include depth (%d) while including\n\t%s\nfrom\n\t%s\n"
			         "This might be due to circular includes.",
			         10, name.p, inc->name);
			ret = 1;
		} else {
			const char *saved_path = inc->path, *saved_name = inc->name;
			ret = read_with_includes(inc, path.p, name.p);
			inc->path = saved_path;
			inc->name = saved_name;
			inc->depth--;
		}
	}
	skg_buf_release(&path);
	skg_buf_release(&name);
	return ret;
}

static int read_with_includes(struct include_ctx *inc, const char *path, const char *name)
{
	inc->path = path;
	inc->name = name;
	int ret = skg_config_read_file(path, name, include_cb, inc, inc->err);
	if (ret > 0 && inc->failed) {
		return -1;
	}
	return ret;
}

static int read_config_file_top(struct include_ctx *inc, const char *path, const char *name)
{
	inc->depth = 0;
	inc->failed = false;
	return read_with_includes(inc, path, name);
}

/*
 * The system, global and XDG files: git reads them only when access(2) allows, and one it may not
 * read (EACCES) is passed over silently (config.c do_git_config_sequence, ACCESS_EACCES_OK).
 */
static int read_outer_file(struct include_ctx *inc, const char *path)
{
	if (access(path, R_OK) != 0 && errno == EACCES) {
		return 0;
	}
	return read_config_file_top(inc, path, path);
}

/* dir/file for reading and as git names it (display/file). */
static int read_repo_file(struct include_ctx *inc, const char *dir, const char *display, const char *file)
{
	char *p = path_join(dir, file), *n = path_join(display, file);
	int ret = p && n ? read_config_file_top(inc, p, n)
	                 : skg_fail_sys(inc->err, SKG_E_NOMEM, ENOMEM, "out of memory");
	free(p);
	free(n);
	return ret;
}

/* The system, XDG and global files, in git's order. */
static int read_outer_config(struct include_ctx *inc)
{
	int ret = 0;
	char *p = NULL;
	if (!env_bool("GIT_CONFIG_NOSYSTEM", false)) {
		const char *sys = getenv("GIT_CONFIG_SYSTEM");
		ret = read_outer_file(inc, sys ? sys : "/etc/gitconfig");
		if (ret != 0) {
			return ret;
		}
	}
	const char *global = getenv("GIT_CONFIG_GLOBAL");
	if (global != NULL) {
		return read_outer_file(inc, global);
	} else {
		const char *home = getenv("HOME");
		const char *xdg = getenv("XDG_CONFIG_HOME");
		if (xdg != NULL && *xdg) {
			p = path_join(xdg, "git/config");
		} else if (home != NULL) {
			p = path_join(home, ".config/git/config");
		}
		if (p != NULL) {
			ret = read_outer_file(inc, p);
			free(p);
			p = NULL;
			if (ret != 0) {
				return ret;
			}
		}
		if (home != NULL) {
			p = path_join(home, ".gitconfig");
			if (p != NULL) {
				ret = read_outer_file(inc, p);
				free(p);
			}
		}
	}
	return ret;
}

int skg_repo_config(const struct skg_repo *repo, skg_config_fn fn, void *ctx, struct skg_error *err)
{
	struct include_ctx inc = {.fn = fn, .ctx = ctx, .err = err};
	int ret = read_outer_config(&inc);
	if (ret != 0) {
		return ret;
	}
	ret = read_repo_file(&inc, repo->common_dir, repo->common_dir_display, "config");
	if (ret != 0) {
		return ret;
	}
	if (repo->worktree_config) {
		ret = read_repo_file(&inc, repo->git_dir, repo->git_dir_display, "config.worktree");
		if (ret != 0) {
			return ret;
		}
	}
	const char *count_env = getenv("GIT_CONFIG_COUNT");
	if (count_env != NULL && *count_env) {
		char *end;
		errno = 0;
		unsigned long count = strtoul(count_env, &end, 10);
		if (errno != 0 || *end != '\0' || count > INT_MAX) {
			return skg_fail(err, "bogus count in %s", "GIT_CONFIG_COUNT");
		}
		for (unsigned long i = 0; i < count; i++) {
			char kname[64], vname[64], key[1024];
			snprintf(kname, sizeof(kname), "GIT_CONFIG_KEY_%lu", i);
			snprintf(vname, sizeof(vname), "GIT_CONFIG_VALUE_%lu", i);
			const char *k = getenv(kname), *v = getenv(vname);
			if (k == NULL || *k == '\0') {
				return skg_fail(err, "missing config key %s", kname);
			}
			if (v == NULL) {
				return skg_fail(err, "missing config value %s", vname);
			}
			if (!skg_config_canonical_key(k, key, sizeof(key))) {
				return skg_fail(err, "invalid key: %s", k);
			}
			ret = fn(ctx, key, v);
			if (ret != 0) {
				return ret;
			}
		}
	}
	return 0;
}

/* ---- Is this a repository? (setup.c is_git_directory, path.c validate_headref) --------------- */

/* HEAD is a symbolic link into refs/, or "ref: refs/...", or starts with a hex object ID. */
static bool validate_headref(const char *path)
{
	struct stat st;
	char buf[256];
	if (lstat(path, &st) != 0) {
		return false;
	}
	if (S_ISLNK(st.st_mode)) {
		ssize_t n = readlink(path, buf, sizeof(buf) - 1);
		return n >= 5 && memcmp(buf, "refs/", 5) == 0;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		return false;
	}
	size_t n = 0;
	while (n < sizeof(buf) - 1) {
		ssize_t r = read(fd, buf + n, sizeof(buf) - 1 - n);
		if (r < 0 && errno == EINTR) {
			continue;
		}
		if (r <= 0) {
			if (r < 0) {
				close(fd);
				return false;
			}
			break;
		}
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	if (strncmp(buf, "ref:", 4) == 0) {
		const char *r = buf + 4;
		while (skg_isspace((unsigned char)*r)) {
			r++;
		}
		if (strncmp(r, "refs/", 5) == 0) {
			return true;
		}
	}
	uint8_t id[SKG_RAWSZ];
	return n >= SKG_HEXSZ && skg_from_hex(buf, id);
}

/*
 * The common directory of gitdir as git spells it: GIT_COMMON_DIR, else the real path named by
 * gitdir/commondir (relative to gitdir), else gitdir itself. *from_file: the commondir file was used.
 */
static char *common_dir_of(const char *gitdir, bool use_env, bool *has_common, struct skg_error *err)
{
	*has_common = false;
	const char *env = use_env ? getenv("GIT_COMMON_DIR") : NULL;
	if (env != NULL) {
		*has_common = true;
		return strdup(env);
	}
	char *path = path_join(gitdir, "commondir");
	if (path == NULL) {
		skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
		return NULL;
	}
	struct stat st;
	if (stat(path, &st) != 0) {
		free(path);
		return strdup(gitdir);
	}
	char *data;
	size_t len;
	if (skg_read_file(path, 1 << 20, &data, &len) != 0) {
		skg_fail(err, "failed to read %s: %s", path, strerror(errno));
		free(path);
		return NULL;
	}
	if (len == 0) {
		skg_fail(err, "failed to read %s", path);
		free(data);
		free(path);
		return NULL;
	}
	free(path);
	while (len && (data[len - 1] == '\n' || data[len - 1] == '\r')) {
		len--;
	}
	data[len] = '\0';
	char *joined = data[0] == '/' ? strdup(data) : path_join(gitdir, data);
	free(data);
	if (joined == NULL) {
		skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
		return NULL;
	}
	char *real = skg_realpath(joined);
	if (real == NULL) {
		skg_fail(err, "Invalid path '%s': %s", joined, strerror(errno));
	}
	*has_common = true;
	free(joined);
	return real;
}

/* 1: suspect is a repository; 0: it is not; -1: memory ran out while looking (errno ENOMEM). */
static int is_git_directory(const char *suspect)
{
	char *head = path_join(suspect, "HEAD");
	if (head == NULL) {
		return -1;
	}
	bool valid = validate_headref(head);
	free(head);
	if (!valid) {
		return 0;
	}
	bool has_common;
	errno = 0;
	char *common = common_dir_of(suspect, true, &has_common, NULL);
	if (common == NULL) {
		return errno == ENOMEM ? -1 : 0;
	}
	const char *objenv = getenv("GIT_OBJECT_DIRECTORY");
	char *objects = objenv ? strdup(objenv) : path_join(common, "objects");
	char *refs = path_join(common, "refs");
	int ok = objects == NULL || refs == NULL                         ? -1
	         : access(objects, X_OK) == 0 && access(refs, X_OK) == 0 ? 1
	                                                                 : 0;
	free(objects);
	free(refs);
	free(common);
	return ok;
}

/*
 * A ".git" file (setup.c read_gitfile_gently): returns 1 with *target (the real path of the
 * repository it names), 0 if path does not exist (*not_a_file false) or is not a regular file
 * (*not_a_file true), -1 with git's fatal message otherwise.
 */
static int read_gitfile(const char *path, char **target, bool *not_a_file, struct skg_error *err)
{
	*target = NULL;
	*not_a_file = false;
	struct stat st;
	if (stat(path, &st) != 0) {
		return 0;
	}
	if (!S_ISREG(st.st_mode)) {
		*not_a_file = true;
		return 0;
	}
	if (st.st_size > (1 << 20)) {
		return skg_fail(err, "too large to be a .git file: '%s'", path);
	}
	char *buf;
	size_t len;
	if (skg_read_file(path, (size_t)1 << 20, &buf, &len) != 0) {
		if (errno == ENOENT || errno == EACCES || errno == EISDIR) {
			return skg_fail(err, "error opening '%s': %s", path, strerror(errno));
		}
		return skg_fail(err, "error reading %s", path);
	}
	if (len < 8 || memcmp(buf, "gitdir: ", 8) != 0) {
		free(buf);
		return skg_fail(err, "invalid gitfile format: %s", path);
	}
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r')) {
		len--;
	}
	if (len < 9) {
		free(buf);
		return skg_fail(err, "no path in gitfile: %s", path);
	}
	buf[len] = '\0';
	char *dir;
	const char *slash = strrchr(path, '/');
	if (buf[8] != '/' && slash != NULL) {
		struct skg_buf b = {0};
		skg_buf_add(&b, path, (size_t)(slash - path) + 1);
		skg_buf_adds(&b, buf + 8);
		dir = b.failed ? NULL : b.p;
		if (dir == NULL) {
			skg_buf_release(&b);
		}
	} else {
		dir = strdup(buf + 8);
	}
	free(buf);
	if (dir == NULL) {
		return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	int is_repo = is_git_directory(dir);
	if (is_repo <= 0) {
		if (is_repo < 0) {
			skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
		} else {
			skg_fail(err, "not a git repository: %s", dir);
		}
		free(dir);
		return -1;
	}
	*target = skg_realpath(dir);
	free(dir);
	if (*target == NULL) {
		return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	return 1;
}

/* ---- Repository format (setup.c check_repository_format_gently) ------------------------------ */

struct format_ctx {
	const char *name; /* config file name for messages */
	int version;
	int is_bare; /* -1 unset */
	char *work_tree;
	bool worktree_config;
	bool objectformat_sha256;
	struct skg_buf unknown, v1only; /* "\n\t<ext>" per extension */
	struct skg_error *err;
	bool failed;
	const struct skg_sink *rep;
};

static int format_cb(void *vctx, const char *key, const char *value)
{
	struct format_ctx *f = vctx;
	if (strcmp(key, "core.repositoryformatversion") == 0) {
		int v;
		if (!skg_config_int(value, &v)) {
			skg_fail(f->err, "bad numeric config value '%s' for '%s' in file %s: %s",
			         value ? value : "", key, f->name, "invalid unit");
			f->failed = true;
			return 1;
		}
		f->version = v;
		return 0;
	}
	if (strncmp(key, "extensions.", 11) == 0) {
		const char *ext = key + 11;
		if (!strcmp(ext, "noop") || !strcmp(ext, "partialclone")) {
			return 0;
		}
		if (!strcmp(ext, "preciousobjects") || !strcmp(ext, "worktreeconfig")) {
			int b = skg_config_bool(value);
			if (b < 0) {
				skg_fail(f->err, "bad boolean config value '%s' for '%s'", value, key);
				f->failed = true;
				return 1;
			}
			if (!strcmp(ext, "worktreeconfig")) {
				f->worktree_config = b;
			}
			return 0;
		}
		if (!strcmp(ext, "noop-v1")) {
			skg_buf_addf(&f->v1only, "\n\t%s", ext);
			return 0;
		}
		if (!strcmp(ext, "objectformat")) {
			if (value == NULL) {
				skg_report(f->rep, SKG_LEVEL_ERROR, SKG_R_SETUP, "missing value for '%s'",
				           key);
				return -1;
			}
			if (strcmp(value, "sha1") == 0) {
				f->objectformat_sha256 = false;
			} else if (strcmp(value, "sha256") == 0) {
				f->objectformat_sha256 = true;
			} else {
				skg_report(f->rep, SKG_LEVEL_ERROR, SKG_R_SETUP,
				           "invalid value for '%s': '%s'", "extensions.objectformat", value);
				return -1;
			}
			skg_buf_addf(&f->v1only, "\n\t%s", ext);
			return 0;
		}
		skg_buf_addf(&f->unknown, "\n\t%s", ext);
		return 0;
	}
	if (strcmp(key, "core.bare") == 0) {
		int b = skg_config_bool(value);
		if (b < 0) {
			skg_fail(f->err, "bad boolean config value '%s' for '%s'", value, key);
			f->failed = true;
			return 1;
		}
		f->is_bare = b;
		return 0;
	}
	if (strcmp(key, "core.worktree") == 0) {
		if (value == NULL) {
			skg_report(f->rep, SKG_LEVEL_ERROR, SKG_R_SETUP, "missing value for '%s'", key);
			return -1;
		}
		free(f->work_tree);
		f->work_tree = strdup(value);
		return 0;
	}
	return 0;
}

static size_t count_lines(const struct skg_buf *b)
{
	size_t n = 0;
	for (size_t i = 0; i < b->len; i++) {
		n += b->p[i] == '\n';
	}
	return n;
}

/* Read <common>/config for the format; checks it as git does. */
static int check_format(struct format_ctx *f, const char *config_path, struct skg_error *err)
{
	f->version = -1;
	f->is_bare = -1;
	int ret = skg_config_read_file(config_path, f->name, format_cb, f, err);
	if (ret != 0 || f->failed) {
		return -1;
	}
	if (f->version < 0) {
		/* no version: git ignores the whole file for the format (and core.bare/worktree) */
		f->is_bare = -1;
		free(f->work_tree);
		f->work_tree = NULL;
		f->worktree_config = false;
		f->objectformat_sha256 = false;
		return 0;
	}
	if (f->version > 1) {
		return skg_fail(err, "Expected git repo version <= %d, found %d", 1, f->version);
	}
	if (f->version >= 1 && f->unknown.len) {
		return skg_fail(err, "%s%s",
		                count_lines(&f->unknown) == 1 ? "unknown repository extension found:"
		                                              : "unknown repository extensions found:",
		                skg_buf_str(&f->unknown));
	}
	if (f->version == 0 && f->v1only.len) {
		return skg_fail(err, "%s%s",
		                count_lines(&f->v1only) == 1
		                    ? "repo version is 0, but v1-only extension found:"
		                    : "repo version is 0, but v1-only extensions found:",
		                skg_buf_str(&f->v1only));
	}
	if (f->objectformat_sha256) {
		return skg_fail(err,
		                "unsupported repository: extensions.objectFormat is sha256 in %s "
		                "(sha1kit handles SHA-1 repositories only)",
		                f->name);
	}
	return 0;
}

static void format_release(struct format_ctx *f)
{
	free(f->work_tree);
	skg_buf_release(&f->unknown);
	skg_buf_release(&f->v1only);
}

/* ---- Opening ------------------------------------------------------------------------------- */

void skg_repo_free(struct skg_repo *repo)
{
	if (repo == NULL) {
		return;
	}
	skg_packed_refs_free(repo->packed);
	free(repo->git_dir);
	free(repo->common_dir);
	free(repo->objects_dir);
	free(repo->work_tree);
	free(repo->index_file);
	free(repo->git_dir_display);
	free(repo->common_dir_display);
	free(repo->objects_dir_display);
	free(repo->index_file_display);
	free(repo->cwd);
	free(repo->git_cwd);
	free(repo);
}

/* Is dir (absolute) strictly inside tree (absolute)? */
static bool strictly_inside(const char *dir, const char *tree)
{
	size_t n = strlen(tree);
	if (strcmp(tree, "/") == 0) {
		return dir[0] == '/' && dir[1] != '\0';
	}
	return strncmp(dir, tree, n) == 0 && dir[n] == '/' && dir[n + 1] != '\0';
}

/* A path relative to base (absolute), made absolute and real. */
static char *real_relative_to(const char *base, const char *path)
{
	if (path[0] == '/') {
		return skg_realpath(path);
	}
	char *j = path_join(base, path);
	if (j == NULL) {
		return NULL;
	}
	char *r = skg_realpath(j);
	free(j);
	return r;
}

struct open_state {
	struct skg_repo *repo;
	const struct skg_sink *rep;
	struct skg_error *err;
	struct format_ctx fmt;
	bool has_common;
};

/* Fill common/objects/index fields from repo->git_dir and the display spelling. */
static int fill_dirs(struct open_state *s, const char *display)
{
	struct skg_repo *r = s->repo;
	r->git_dir_display = strdup(display);
	if (r->git_dir_display == NULL) {
		return skg_fail_sys(s->err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	bool has_common;
	char *common_display = common_dir_of(r->git_dir, true, &has_common, s->err);
	if (common_display == NULL) {
		return -1;
	}
	if (has_common) {
		r->common_dir_display = common_display;
		if (getenv("GIT_COMMON_DIR") != NULL) {
			r->common_dir = real_relative_to(r->git_cwd, common_display);
		} else {
			r->common_dir = strdup(common_display);
		}
	} else {
		free(common_display);
		r->common_dir_display = strdup(r->git_dir_display);
		r->common_dir = strdup(r->git_dir);
	}
	const char *objenv = getenv("GIT_OBJECT_DIRECTORY");
	if (objenv != NULL) {
		r->objects_dir_display = strdup(objenv);
		r->objects_dir = real_relative_to(r->git_cwd, objenv);
	} else {
		r->objects_dir_display =
		    path_join(r->common_dir_display ? r->common_dir_display : "", "objects");
		r->objects_dir = path_join(r->common_dir ? r->common_dir : "", "objects");
	}
	const char *idxenv = getenv("GIT_INDEX_FILE");
	if (idxenv != NULL) {
		r->index_file_display = strdup(idxenv);
		r->index_file = real_relative_to(r->git_cwd, idxenv);
	} else {
		r->index_file_display = path_join(r->git_dir_display, "index");
		r->index_file = path_join(r->git_dir, "index");
	}
	if (r->common_dir == NULL || r->common_dir_display == NULL || r->objects_dir == NULL ||
	    r->objects_dir_display == NULL || r->index_file == NULL || r->index_file_display == NULL) {
		return skg_fail_sys(s->err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	return 0;
}

/*
 * Read the repository format of gitdir (a path relative to the current directory or absolute);
 * spelled is how git spells gitdir at that point, for the file name in messages.
 */
static int read_format(struct open_state *s, const char *gitdir, const char *spelled)
{
	bool has_common;
	char *common = common_dir_of(gitdir, true, &has_common, s->err);
	if (common == NULL) {
		return -1;
	}
	/* read <common>/config; name it as git does (a relative spelling is relative to git's cwd) */
	char *cfg = path_join(common, "config");
	char *cfg_name = path_join(has_common ? common : spelled, "config");
	free(common);
	if (cfg == NULL || cfg_name == NULL) {
		free(cfg);
		free(cfg_name);
		return skg_fail_sys(s->err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	s->fmt.name = cfg_name;
	s->fmt.err = s->err;
	s->fmt.rep = s->rep;
	int ret = check_format(&s->fmt, cfg, s->err);
	s->has_common = has_common;
	if (ret == 0 && s->fmt.worktree_config) {
		/* core.bare and core.worktree from the worktree's own config.worktree */
		char *wcfg = path_join(gitdir, "config.worktree");
		struct format_ctx w = {
		    .name = wcfg, .version = -1, .is_bare = -1, .err = s->err, .rep = s->rep};
		if (wcfg == NULL) {
			ret = skg_fail_sys(s->err, SKG_E_NOMEM, ENOMEM, "out of memory");
		} else if (skg_config_read_file(wcfg, wcfg, format_cb, &w, s->err) != 0 || w.failed) {
			ret = -1;
		} else {
			if (w.is_bare != -1) {
				s->fmt.is_bare = w.is_bare;
			}
			if (w.work_tree != NULL) {
				free(s->fmt.work_tree);
				s->fmt.work_tree = w.work_tree;
				w.work_tree = NULL;
			}
			s->has_common = false;
		}
		format_release(&w);
		free(wcfg);
	}
	s->fmt.name = NULL;
	free(cfg);
	free(cfg_name);
	s->repo->format_version = s->fmt.version;
	s->repo->worktree_config = s->fmt.worktree_config;
	return ret;
}

/* core.bare from the config git applies (not a linked worktree's common config). */
static int cfg_bare(const struct open_state *s)
{
	return s->has_common ? -1 : s->fmt.is_bare;
}

static const char *cfg_work_tree(const struct open_state *s)
{
	return s->has_common ? NULL : s->fmt.work_tree;
}

/*
 * GIT_DIR / --git-dir, or a discovered repository with a configured work tree (setup.c
 * setup_explicit_git_dir). gitdir is as git holds it, relative to cwd or absolute.
 */
static int open_explicit(struct open_state *s, const char *gitdir_in, bool check_format_now)
{
	struct skg_repo *r = s->repo;
	char *from_file = NULL;
	bool not_a_file;
	const char *gitdir = gitdir_in;
	int g = read_gitfile(gitdir, &from_file, &not_a_file, s->err);
	if (g < 0) {
		return -1;
	}
	if (g > 0) {
		gitdir = from_file;
	}
	int is_repo = is_git_directory(gitdir);
	if (is_repo <= 0) {
		if (is_repo < 0) {
			skg_fail_sys(s->err, SKG_E_NOMEM, ENOMEM, "out of memory");
		} else {
			skg_fail(s->err, "not a git repository: '%s'", gitdir);
		}
		free(from_file);
		return -1;
	}
	if (check_format_now && read_format(s, gitdir, gitdir) != 0) {
		free(from_file);
		return -1;
	}
	r->git_dir = real_relative_to(r->cwd, gitdir);
	if (r->git_dir == NULL) {
		free(from_file);
		return skg_fail_sys(s->err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	const char *wt_env = getenv("GIT_WORK_TREE");
	const char *wt_cfg = cfg_work_tree(s);
	if (wt_env != NULL) {
		r->work_tree = real_relative_to(r->cwd, wt_env);
	} else if (cfg_bare(s) > 0) {
		if (wt_cfg != NULL) {
			skg_report(s->rep, SKG_LEVEL_WARNING, SKG_R_SETUP,
			           "core.bare and core.worktree do not make sense");
		}
	} else if (wt_cfg != NULL) {
		r->work_tree = real_relative_to(r->git_dir, wt_cfg);
	} else if (!env_bool("GIT_IMPLICIT_WORK_TREE", true)) {
		/* no work tree */
	} else {
		r->work_tree = strdup(r->cwd);
	}
	int ret;
	bool in_tree = r->work_tree != NULL &&
	               (strcmp(r->cwd, r->work_tree) == 0 || strictly_inside(r->cwd, r->work_tree));
	r->git_cwd = strdup(in_tree ? r->work_tree : r->cwd);
	if (r->git_cwd == NULL) {
		free(from_file);
		return skg_fail_sys(s->err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	if (r->work_tree != NULL && strictly_inside(r->cwd, r->work_tree)) {
		ret =
		    fill_dirs(s, r->git_dir); /* git changes into the work tree and makes GIT_DIR absolute */
	} else {
		ret = fill_dirs(s, gitdir);
	}
	free(from_file);
	return ret;
}

/* ---- Ownership (setup.c ensure_valid_ownership, git-compat-util.h is_path_owned_by_current_uid) --- */

#if !defined(_WIN32)
/* Whether the current user owns `path` (lstat): root may act for SUDO_UID's user. */
static bool owned_by_me(const char *path)
{
	struct stat st;
	if (lstat(path, &st) != 0) {
		return false;
	}
	uid_t euid = geteuid();
	if (euid == 0 && st.st_uid != 0) {
		const char *sudo = getenv("SUDO_UID");
		if (sudo != NULL && *sudo) {
			char *end = NULL;
			errno = 0;
			unsigned long id = strtoul(sudo, &end, 10);
			if (*end == '\0' && errno == 0) {
				euid = (uid_t)id;
			}
		}
	}
	return st.st_uid == euid;
}

struct safe_dir {
	const char *path;
	bool safe;
};

/* safe.directory entries, in order: "*" allows any, an empty value forgets those before. */
static int safe_dir_cb(void *vctx, const char *key, const char *value)
{
	struct safe_dir *sd = vctx;
	if (strcmp(key, "safe.directory") != 0) {
		return 0;
	}
	if (value == NULL || *value == '\0') {
		sd->safe = false;
	} else if (strcmp(value, "*") == 0) {
		sd->safe = true;
	} else {
		struct skg_buf v = {0};
		const char *home = getenv("HOME");
		if (value[0] == '~' && value[1] == '/' && home != NULL) {
			skg_buf_adds(&v, home);
			skg_buf_adds(&v, value + 1);
		} else {
			skg_buf_adds(&v, value);
		}
		if (strcmp(sd->path, skg_buf_str(&v)) == 0) {
			sd->safe = true;
		}
		skg_buf_release(&v);
	}
	return 0;
}

/* A path as git's sq_quote_buf_pretty spells it for a shell. */
static void sq_pretty(struct skg_buf *out, const char *src)
{
	bool plain = *src != '\0';
	for (const char *p = src; *p && plain; p++) {
		plain = isalnum((unsigned char)*p) || strchr("+,-./:=@_^", *p) != NULL;
	}
	if (plain) {
		skg_buf_adds(out, src);
		return;
	}
	skg_buf_addc(out, '\'');
	for (const char *p = src; *p; p++) {
		if (*p == '\'' || *p == '!') {
			skg_buf_addf(out, "'\\%c'", *p);
		} else {
			skg_buf_addc(out, *p);
		}
	}
	skg_buf_addc(out, '\'');
}
#endif

/*
 * git's check of a repository it discovered (not one named by GIT_DIR or --git-dir): the .git
 * file, the work tree and the git directory must belong to the current user, unless safe.directory
 * in the system or global config (or the environment's settings) names `top` or is "*". 0, or -1
 * with git's fatal message.
 */
static int check_ownership(struct open_state *s, const char *gitfile, const char *worktree,
                           const char *gitdir, const char *top)
{
#if defined(_WIN32)
	(void)s;
	(void)gitfile;
	(void)worktree;
	(void)gitdir;
	(void)top;
	return 0;
#else
	if (!env_bool("GIT_TEST_ASSUME_DIFFERENT_OWNER", false) &&
	    (gitfile == NULL || owned_by_me(gitfile)) && (worktree == NULL || owned_by_me(worktree)) &&
	    (gitdir == NULL || owned_by_me(gitdir))) {
		return 0;
	}
	struct safe_dir sd = {top, false};
	struct skg_error cerr;
	struct include_ctx inc = {.fn = safe_dir_cb, .ctx = &sd, .err = &cerr};
	if (read_outer_config(&inc) == 0 && sd.safe) {
		return 0;
	}
	struct skg_buf q = {0};
	sq_pretty(&q, top);
	skg_fail(s->err,
	         "detected dubious ownership in repository at '%s'\n"
	         "To add an exception for this directory, call:\n"
	         "\n"
	         "\tgit config --global --add safe.directory %s",
	         top, skg_buf_str(&q));
	skg_buf_release(&q);
	return -1;
#endif
}

/* GIT_CEILING_DIRECTORIES: the length of the longest entry that is a proper ancestor of dir. */
static int ceiling_offset(const char *dir)
{
	const char *env = getenv("GIT_CEILING_DIRECTORIES");
	if (env == NULL || strcmp(dir, "/") == 0) {
		return -1;
	}
	int best = -1;
	bool empty_seen = false;
	const char *p = env;
	for (;;) {
		const char *colon = strchr(p, ':');
		size_t n = colon ? (size_t)(colon - p) : strlen(p);
		char *entry = strndup(p, n);
		if (entry != NULL) {
			char *ceil = NULL;
			if (n == 0) {
				empty_seen = true;
			} else if (entry[0] == '/') {
				ceil = empty_seen ? strdup(entry) : realpath(entry, NULL);
			}
			if (ceil != NULL) {
				size_t len = strlen(ceil);
				if (len > 0 && ceil[len - 1] == '/') {
					len--;
				}
				if (strncmp(dir, ceil, len) == 0 && dir[len] == '/' && dir[len + 1] != '\0' &&
				    (int)len > best) {
					best = (int)len;
				}
				free(ceil);
			}
			free(entry);
		}
		if (colon == NULL) {
			break;
		}
		p = colon + 1;
	}
	return best;
}

static int open_discovered(struct open_state *s)
{
	struct skg_repo *r = s->repo;
	struct skg_buf dir = {0};
	skg_buf_adds(&dir, r->cwd);
	int ceil = ceiling_offset(r->cwd);
	const int min_offset = 1; /* after the root's '/' */
	if (ceil < 0) {
		ceil = min_offset - 2;
	}
	bool one_fs = !env_bool("GIT_DISCOVERY_ACROSS_FILESYSTEM", false);
	struct stat st;
	dev_t dev = 0;
	if (one_fs) {
		if (stat(skg_buf_str(&dir), &st) != 0) {
			skg_fail(s->err, "failed to stat '%s': %s", skg_buf_str(&dir), strerror(errno));
			skg_buf_release(&dir);
			return -1;
		}
		dev = st.st_dev;
	}
	int ret = -1;
	for (;;) {
		size_t offset = dir.len;
		if ((int)offset > min_offset) {
			skg_buf_addc(&dir, '/');
		}
		skg_buf_adds(&dir, ".git");
		if (dir.failed) {
			ret = skg_fail_sys(s->err, SKG_E_NOMEM, ENOMEM, "out of memory");
			break;
		}
		char *target = NULL;
		bool not_a_file;
		int g = read_gitfile(skg_buf_str(&dir), &target, &not_a_file, s->err);
		if (g < 0) {
			break;
		}
		int dotgit = g == 0 ? is_git_directory(skg_buf_str(&dir)) : 0;
		if (dotgit < 0) {
			free(target);
			ret = skg_fail_sys(s->err, SKG_E_NOMEM, ENOMEM, "out of memory");
			break;
		}
		bool dotgit_dir = dotgit > 0;
		char *gitfile = g > 0 ? strdup(skg_buf_str(&dir)) : NULL;
		skg_buf_setlen(&dir, offset);
		const char *top = skg_buf_str(&dir);
		if (g > 0 || dotgit_dir) {
			/* setup_discovered_git_dir */
			char *gd = g > 0 ? target : path_join(top, ".git");
			if (gd == NULL || (g > 0 && gitfile == NULL)) {
				free(gd);
				free(gitfile);
				ret = skg_fail_sys(s->err, SKG_E_NOMEM, ENOMEM, "out of memory");
				break;
			}
			int own = check_ownership(s, gitfile, top, gd, top);
			free(gitfile);
			if (own != 0) {
				free(gd);
				break;
			}
			if (read_format(s, gd, g > 0 ? gd : ".git") != 0) {
				free(gd);
				break;
			}
			bool in_cwd = strcmp(top, r->cwd) == 0;
			if (getenv("GIT_WORK_TREE") != NULL || cfg_work_tree(s) != NULL) {
				/* as an explicit GIT_DIR: ".git" (when in cwd) or absolute */
				const char *spelled = g > 0 ? gd : in_cwd ? ".git" : gd;
				ret = open_explicit(s, spelled, false);
				free(gd);
				break;
			}
			r->git_dir = skg_realpath(gd);
			if (r->git_dir == NULL) {
				free(gd);
				ret = skg_fail_sys(s->err, SKG_E_NOMEM, ENOMEM, "out of memory");
				break;
			}
			if (cfg_bare(s) > 0) {
				r->git_cwd = strdup(r->cwd);
				ret = r->git_cwd ? fill_dirs(s, g > 0    ? gd
				                                : in_cwd ? ".git"
				                                         : r->git_dir)
				                 : skg_fail_sys(s->err, SKG_E_NOMEM, ENOMEM, "out of memory");
			} else {
				r->work_tree = strdup(top);
				r->git_cwd = strdup(top);
				ret = r->work_tree && r->git_cwd
				          ? fill_dirs(s, g > 0 ? gd : ".git")
				          : skg_fail_sys(s->err, SKG_E_NOMEM, ENOMEM, "out of memory");
			}
			free(gd);
			break;
		}
		free(gitfile);
		int bare = is_git_directory(top);
		if (bare < 0) {
			ret = skg_fail_sys(s->err, SKG_E_NOMEM, ENOMEM, "out of memory");
			break;
		}
		if (bare > 0) {
			/* setup_bare_git_dir */
			if (check_ownership(s, NULL, NULL, top, top) != 0 || read_format(s, top, ".") != 0) {
				break;
			}
			bool in_cwd = strcmp(top, r->cwd) == 0;
			if (getenv("GIT_WORK_TREE") != NULL || cfg_work_tree(s) != NULL) {
				ret = open_explicit(s, in_cwd ? "." : top, false);
				break;
			}
			r->git_dir = strdup(top);
			r->git_cwd = strdup(r->cwd);
			if (r->git_dir == NULL || r->git_cwd == NULL) {
				ret = skg_fail_sys(s->err, SKG_E_NOMEM, ENOMEM, "out of memory");
				break;
			}
			ret = fill_dirs(s, in_cwd ? "." : top);
			break;
		}
		/* up one level, unless at the root or a ceiling */
		int off = (int)offset;
		if (off <= min_offset) {
			ret = skg_fail(s->err, "not a git repository (or any of the parent directories): %s",
			               ".git");
			break;
		}
		while (--off > ceil && dir.p[off] != '/') {
		}
		if (off <= ceil) {
			ret = skg_fail(s->err, "not a git repository (or any of the parent directories): %s",
			               ".git");
			break;
		}
		skg_buf_setlen(&dir, (size_t)(off > min_offset ? off : min_offset));
		if (one_fs) {
			if (stat(skg_buf_str(&dir), &st) != 0) {
				ret = skg_fail(s->err, "failed to stat '%s': %s", skg_buf_str(&dir),
				               strerror(errno));
				break;
			}
			if (st.st_dev != dev) {
				ret = skg_fail(s->err,
				               "not a git repository (or any parent up to mount point %s)\n"
				               "Stopping at filesystem boundary "
				               "(GIT_DISCOVERY_ACROSS_FILESYSTEM not set).",
				               skg_buf_str(&dir));
				break;
			}
		}
	}
	skg_buf_release(&dir);
	return ret;
}

int skg_repo_open(struct skg_repo **out, const char *git_dir_arg, const struct skg_sink *rep,
                  struct skg_error *err)
{
	*out = NULL;
	struct skg_repo *r = calloc(1, sizeof(*r));
	if (r == NULL) {
		return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	r->format_version = -1;
	r->cwd = getcwd(NULL, 0);
	if (r->cwd == NULL) {
		free(r);
		return skg_fail(err, "Unable to read current working directory: %s", strerror(errno));
	}
	struct open_state s = {.repo = r, .rep = rep, .err = err};
	const char *gitdir = git_dir_arg ? git_dir_arg : getenv("GIT_DIR");
	int ret = gitdir != NULL ? open_explicit(&s, gitdir, true) : open_discovered(&s);
	if (ret == 0) {
		/* rev-parse --is-bare-repository: no work tree, and core.bare is not false */
		r->bare = r->work_tree == NULL && cfg_bare(&s) != 0;
	}
	format_release(&s.fmt);
	if (ret != 0) {
		skg_repo_free(r);
		return -1;
	}
	*out = r;
	return 0;
}

/* ---- Alternates (object-file.c prepare_alt_odb) --------------------------------------------- */

struct alt_walk {
	const struct skg_repo *repo;
	int (*fn)(void *ctx, const char *dir);
	void *ctx;
	const struct skg_sink *rep;
	struct skg_error *err;
	char *own;           /* the repository's objects directory, real path */
	struct skg_buf seen; /* NUL-separated list of the directories listed */
};

static bool alt_seen(const struct alt_walk *w, const char *dir)
{
	size_t n = strlen(dir);
	for (size_t i = 0; i < w->seen.len;) {
		size_t m = strlen(w->seen.p + i);
		if (m == n && memcmp(w->seen.p + i, dir, n) == 0) {
			return true;
		}
		i += m + 1;
	}
	return false;
}

static int alt_read_file(struct alt_walk *w, const char *objdir, int depth);

/* C-style unquoting of a "..." entry (quote.c unquote_c_style); false on broken quoting. */
static bool unquote_c(const char *s, const char *end, struct skg_buf *out, const char **next)
{
	size_t keep = out->len;
	if (s >= end || *s != '"') {
		return false;
	}
	s++;
	while (s < end) {
		char c = *s++;
		if (c == '"') {
			*next = s;
			return true;
		}
		if (c != '\\') {
			skg_buf_addc(out, c);
			continue;
		}
		if (s >= end) {
			break;
		}
		c = *s++;
		switch (c) {
		case 'a':
			c = '\a';
			break;
		case 'b':
			c = '\b';
			break;
		case 'f':
			c = '\f';
			break;
		case 'n':
			c = '\n';
			break;
		case 'r':
			c = '\r';
			break;
		case 't':
			c = '\t';
			break;
		case 'v':
			c = '\v';
			break;
		case '\\':
		case '"':
			break;
		case '0':
		case '1':
		case '2':
		case '3':
			if (end - s < 2 || s[0] < '0' || s[0] > '7' || s[1] < '0' || s[1] > '7') {
				skg_buf_setlen(out, keep);
				return false;
			}
			c = (char)(((c - '0') << 6) | ((s[0] - '0') << 3) | (s[1] - '0'));
			s += 2;
			break;
		default:
			skg_buf_setlen(out, keep);
			return false;
		}
		skg_buf_addc(out, c);
	}
	skg_buf_setlen(out, keep);
	return false;
}

static int alt_entry(struct alt_walk *w, const char *entry, const char *relative_base, int depth)
{
	struct skg_buf path = {0};
	bool from_env = relative_base == NULL;
	if (from_env) {
		relative_base = w->repo->git_cwd; /* GIT_ALTERNATE_OBJECT_DIRECTORIES: where git runs */
	}
	if (entry[0] != '/') {
		char *base = skg_realpath(relative_base);
		if (base == NULL) {
			return skg_fail(w->err, "Invalid path '%s': %s", relative_base, strerror(errno));
		}
		skg_buf_adds(&path, base);
		skg_buf_addc(&path, '/');
		free(base);
	}
	skg_buf_adds(&path, entry);
	if (path.failed) {
		skg_buf_release(&path);
		return skg_fail_sys(w->err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	char *norm = skg_realpath(path.p);
	if (norm == NULL) {
		skg_report(w->rep, SKG_LEVEL_ERROR, SKG_R_ALT_NORMALIZE,
		           "unable to normalize alternate object path: %s", from_env ? entry : path.p);
		skg_buf_release(&path);
		return 0;
	}
	skg_buf_release(&path);
	size_t n = strlen(norm);
	while (n > 1 && norm[n - 1] == '/') {
		norm[--n] = '\0';
	}
	int ret = 0;
	if (!is_dir(norm)) {
		skg_report(w->rep, SKG_LEVEL_ERROR, SKG_R_ALT_MISSING,
		           "object directory %s does not exist; check .git/objects/info/alternates", norm);
	} else if (strcmp(norm, w->own) != 0 && !alt_seen(w, norm)) {
		skg_buf_add(&w->seen, norm, n + 1);
		if (w->seen.failed) {
			ret = skg_fail_sys(w->err, SKG_E_NOMEM, ENOMEM, "out of memory");
		} else {
			ret = w->fn(w->ctx, norm);
			if (ret == 0) {
				ret = alt_read_file(w, norm, depth + 1);
			}
		}
	}
	free(norm);
	return ret;
}

/* The entries of alt[0..len) separated by sep (object-file.c link_alt_odb_entries). */
static int alt_entries(struct alt_walk *w, const char *alt, size_t len, char sep, const char *relative_base,
                       int depth)
{
	if (len == 0) {
		return 0;
	}
	if (depth > 5) {
		skg_report(w->rep, SKG_LEVEL_ERROR, SKG_R_ALT_TOO_DEEP,
		           "%s: ignoring alternate object stores, nesting too deep", relative_base);
		return 0;
	}
	const char *p = alt, *end = alt + len;
	struct skg_buf entry = {0};
	int ret = 0;
	while (p < end && ret == 0) {
		entry.len = 0;
		skg_buf_add(&entry, "", 0);
		const char *stop = memchr(p, sep, (size_t)(end - p));
		if (stop == NULL) {
			stop = end;
		}
		const char *next;
		if (*p == '#') {
			next = stop;
		} else if (*p == '"' && unquote_c(p, end, &entry, &next)) {
			/* next is after the closing quote */
		} else {
			skg_buf_add(&entry, p, (size_t)(stop - p));
			next = stop;
		}
		if (next < end) {
			next++;
		}
		p = next;
		if (entry.failed) {
			ret = skg_fail_sys(w->err, SKG_E_NOMEM, ENOMEM, "out of memory");
			break;
		}
		/* an entry is a C string: an embedded NUL ends it */
		if (entry.len == 0 || entry.p[0] == '\0') {
			continue;
		}
		ret = alt_entry(w, entry.p, relative_base, depth);
	}
	skg_buf_release(&entry);
	return ret;
}

static int alt_read_file(struct alt_walk *w, const char *objdir, int depth)
{
	char *path = path_join(objdir, "info/alternates");
	if (path == NULL) {
		return skg_fail_sys(w->err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	char *data;
	size_t len;
	if (skg_read_file(path, (size_t)1 << 30, &data, &len) != 0) {
		if (errno != ENOENT && errno != ENOTDIR) {
			skg_report(w->rep, SKG_LEVEL_WARNING, SKG_R_ALT_UNREADABLE,
			           "unable to access '%s': %s", path, strerror(errno));
		}
		free(path);
		return 0;
	}
	free(path);
	/* git reads the file as a C string: a NUL byte ends it */
	size_t clen = strlen(data);
	int ret = alt_entries(w, data, clen < len ? clen : len, '\n', objdir, depth);
	free(data);
	return ret;
}

int skg_for_each_alternate(const struct skg_repo *repo, int (*fn)(void *ctx, const char *dir), void *ctx,
                           const struct skg_sink *rep, struct skg_error *err)
{
	struct alt_walk w = {.repo = repo, .fn = fn, .ctx = ctx, .rep = rep, .err = err};
	w.own = skg_realpath(repo->objects_dir);
	if (w.own == NULL) {
		w.own = strdup(repo->objects_dir);
		if (w.own == NULL) {
			return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
		}
	}
	int ret = 0;
	const char *env = getenv("GIT_ALTERNATE_OBJECT_DIRECTORIES");
	if (env != NULL) {
		ret = alt_entries(&w, env, strlen(env), ':', NULL, 0);
	}
	if (ret == 0) {
		ret = alt_read_file(&w, repo->objects_dir, 0);
	}
	free(w.own);
	skg_buf_release(&w.seen);
	return ret;
}

/* ---- Grafts and shallow commits ---------------------------------------------------------------- */

static int cmp_graft_id(const void *key, const void *elem)
{
	return memcmp(key, ((const struct skg_graft *)elem)->id, SKG_RAWSZ);
}

const struct skg_graft *skg_graft_find(const struct skg_grafts *g, const uint8_t id[SKG_RAWSZ])
{
	return g->n > 0 ? bsearch(id, g->v, g->n, sizeof(*g->v), cmp_graft_id) : NULL;
}

void skg_grafts_free(struct skg_grafts *g)
{
	for (size_t i = 0; i < g->n; i++) {
		free(g->v[i].parents);
	}
	free(g->v);
	g->v = NULL;
	g->n = 0;
}

/* git's register_commit_graft: insert in order; an existing one is kept (replace false: "duplicate
 * graft data") or replaced. Takes `parents`. Returns 1 for a kept duplicate, 0, -1 out of memory. */
static int graft_add(struct skg_grafts *g, size_t *cap, const uint8_t id[SKG_RAWSZ], uint8_t *parents,
                     size_t nparents, bool replace)
{
	size_t lo = 0, hi = g->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = memcmp(g->v[mid].id, id, SKG_RAWSZ);
		if (c == 0) {
			if (!replace) {
				free(parents);
				return 1;
			}
			free(g->v[mid].parents);
			g->v[mid].parents = parents;
			g->v[mid].nparents = nparents;
			return 0;
		}
		if (c < 0) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	if (g->n == *cap) {
		size_t ncap = *cap ? 2 * *cap : 16;
		struct skg_graft *v = realloc(g->v, ncap * sizeof(*v));
		if (v == NULL) {
			free(parents);
			return -1;
		}
		g->v = v;
		*cap = ncap;
	}
	memmove(g->v + lo + 1, g->v + lo, (g->n - lo) * sizeof(*g->v));
	memcpy(g->v[lo].id, id, SKG_RAWSZ);
	g->v[lo].parents = parents;
	g->v[lo].nparents = nparents;
	g->n++;
	return 0;
}

/* git's read_graft_line on one line (without its end of line): 0 and a graft, 1 to skip it, -1 bad. */
static int graft_line(const char *line, uint8_t id[SKG_RAWSZ], uint8_t **parents, size_t *nparents)
{
	size_t len = strlen(line);
	if (len == 0 || line[0] == '#') {
		return 1;
	}
	/* "COMMIT" then (blank "PARENT")...: 40 + k * 41 bytes */
	if (len < SKG_HEXSZ || (len - SKG_HEXSZ) % (SKG_HEXSZ + 1) != 0 || !skg_from_hex(line, id)) {
		return -1;
	}
	size_t n = (len - SKG_HEXSZ) / (SKG_HEXSZ + 1);
	uint8_t *p = n > 0 ? malloc(n * SKG_RAWSZ) : NULL;
	if (n > 0 && p == NULL) {
		return -2;
	}
	for (size_t k = 0; k < n; k++) {
		const char *q = line + SKG_HEXSZ + k * (SKG_HEXSZ + 1);
		if (!skg_isspace((unsigned char)q[0]) || !skg_from_hex(q + 1, p + k * SKG_RAWSZ)) {
			free(p);
			return -1;
		}
	}
	*parents = p;
	*nparents = n;
	return 0;
}

int skg_repo_grafts(const struct skg_repo *repo, bool hint, struct skg_grafts *out,
                    const struct skg_sink *rep, struct skg_error *err)
{
	static const char *const hint_lines[] = {
	    /* advice.graftFileDeprecated (commit.c read_graft_file, git 2.39) */
	    "hint: Support for <GIT_DIR>/info/grafts is deprecated",
	    "hint: and will be removed in a future Git version.",
	    "hint: ",
	    "hint: Please use \"git replace --convert-graft-file\"",
	    "hint: to convert the grafts into replace refs.",
	    "hint: ",
	    "hint: Turn this message off by running",
	    "hint: \"git config advice.graftFileDeprecated false\"",
	};
	size_t cap = 0;
	struct skg_buf path = {0};
	char *data = NULL;
	size_t len = 0;
	int rc = -1;
	out->v = NULL;
	out->n = 0;
	const char *env = getenv("GIT_GRAFT_FILE");
	if (env != NULL && *env != '\0') {
		skg_buf_adds(&path, env);
	} else {
		skg_buf_addf(&path, "%s/info/grafts", repo->common_dir);
	}
	if (skg_read_file(skg_buf_str(&path), (size_t)1 << 30, &data, &len) == 0) {
		if (hint) {
			for (size_t i = 0; i < sizeof(hint_lines) / sizeof(hint_lines[0]); i++) {
				skg_report(rep, SKG_LEVEL_PLAIN, SKG_R_GRAFT_DEPRECATED, "%s", hint_lines[i]);
			}
		}
		for (char *line = data; line < data + len;) {
			char *eol = memchr(line, '\n', (size_t)(data + len - line));
			char *next = eol != NULL ? eol + 1 : data + len;
			if (eol == NULL) {
				eol = data + len;
			}
			*eol = '\0';
			/* strbuf_getline drops a CR before the LF, strbuf_rtrim trailing blanks */
			char *end = eol;
			while (end > line && skg_isspace((unsigned char)end[-1])) {
				*--end = '\0';
			}
			uint8_t id[SKG_RAWSZ], *parents = NULL;
			size_t n = 0;
			int st = graft_line(line, id, &parents, &n);
			if (st == -2) {
				skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
				goto out;
			}
			if (st < 0) {
				skg_report(rep, SKG_LEVEL_ERROR, SKG_R_GRAFT_BAD, "bad graft data: %s", line);
			} else if (st == 0) {
				int a = graft_add(out, &cap, id, parents, n, false);
				if (a < 0) {
					skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
					goto out;
				}
				if (a > 0) {
					skg_report(rep, SKG_LEVEL_ERROR, SKG_R_GRAFT_BAD,
					           "duplicate graft data: %s", line);
				}
			}
			line = next;
		}
	}
	free(data);
	data = NULL;
	skg_buf_setlen(&path, 0);
	skg_buf_addf(&path, "%s/shallow", repo->common_dir);
	if (skg_read_file(skg_buf_str(&path), (size_t)1 << 30, &data, &len) == 0) {
		for (char *line = data; line < data + len;) {
			char *eol = memchr(line, '\n', (size_t)(data + len - line));
			char *next = eol != NULL ? eol + 1 : data + len;
			uint8_t id[SKG_RAWSZ];
			/* get_oid_hex: the first 40 characters are hex digits, whatever follows */
			if ((size_t)(data + len - line) < SKG_HEXSZ || !skg_from_hex(line, id)) {
				/* git's message keeps the line's newline (fgets), before die's own */
				skg_fail(err, "bad shallow line: %.*s", (int)(next - line), line);
				goto out;
			}
			if (graft_add(out, &cap, id, NULL, 0, true) < 0) {
				skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
				goto out;
			}
			line = next;
		}
	}
	rc = 0;
out:
	free(data);
	skg_buf_release(&path);
	if (rc != 0) {
		skg_grafts_free(out);
	}
	return rc;
}
