/*
 * config.c - git's config files: values, the parser, includes, the files git reads in its order
 * (config.h).
 *
 * The rules follow git 2.39.5 (config.c), checked by running git; the code is this project's
 * own.
 */
#include "config.h"

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

#include "util.h"
#include "wildmatch.h"

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
	return skg_config_int_why(value, out) == 0;
}

/* git's get_unit_factor (config.c): "", k, m, g (any case) -> 1, 1024, 1024^2, 1024^3; else 0. */
static long long unit_factor(const char *end)
{
	return *end == '\0'            ? 1
	       : !strcasecmp(end, "k") ? 1024
	       : !strcasecmp(end, "m") ? 1024 * 1024
	       : !strcasecmp(end, "g") ? 1024 * 1024 * 1024
	                               : 0;
}

int skg_config_ulong_why(const char *value)
{
	/* git_parse_unsigned: no '-' anywhere */
	if (value == NULL || *value == '\0' || strchr(value, '-') != NULL) {
		return SKG_CONFIG_BAD_UNIT;
	}
	char *end;
	errno = 0;
	unsigned long long v = strtoull(value, &end, 0);
	if (errno == ERANGE) {
		return SKG_CONFIG_BAD_RANGE;
	}
	long long factor = unit_factor(end);
	if (factor == 0) {
		return SKG_CONFIG_BAD_UNIT;
	}
	return v > (unsigned long long)ULONG_MAX / (unsigned long long)factor ? SKG_CONFIG_BAD_RANGE : 0;
}

int skg_config_ulong(const char *value, uint64_t *out)
{
	int why = skg_config_ulong_why(value);
	if (why == 0) {
		char *end;
		unsigned long long v = strtoull(value, &end, 0);
		*out = (uint64_t)v * (uint64_t)unit_factor(end);
	}
	return why;
}

int skg_config_int_why(const char *value, int *out)
{
	if (value == NULL || *value == '\0') {
		return SKG_CONFIG_BAD_UNIT;
	}
	char *end;
	errno = 0;
	long long v = strtoll(value, &end, 0);
	if (errno == ERANGE) {
		return SKG_CONFIG_BAD_RANGE;
	}
	long long factor = unit_factor(end);
	if (factor == 0) {
		return SKG_CONFIG_BAD_UNIT;
	}
	if ((v < 0 && -(long long)INT_MAX / factor > v) || (v > 0 && (long long)INT_MAX / factor < v)) {
		return SKG_CONFIG_BAD_RANGE;
	}
	*out = (int)(v * factor);
	return 0;
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

const char *skg_config_canonical_key(const char *key, char *out, size_t out_size)
{
	const char *last = strrchr(key, '.');
	size_t n = strlen(key);
	if (last == NULL || last == key) {
		return "key does not contain a section: %s";
	}
	if (last[1] == '\0') {
		return "key does not contain variable name: %s";
	}
	if (n + 1 > out_size) {
		return "invalid key: %s";
	}
	size_t base = (size_t)(last - key); /* the section and subsection */
	const char *first = strchr(key, '.');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)key[i];
		if (key + i < first || i > base) {
			/* the section and the name: key characters, the name starting with a letter */
			if (!is_keychar(c) || (i == base + 1 && !is_alpha(c))) {
				return "invalid key: %s";
			}
			c = (unsigned char)to_lower(c);
		} else if (c == '\n') {
			return "invalid key (newline): %s";
		}
		out[i] = (char)c;
	}
	out[n] = '\0';
	return NULL;
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
	int cb_ret;       /* the callback's negative return that stopped the parse, or 0 */
	bool cb_no_value; /* ... for an entry without "=" */
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
		p->cb_ret = ret;
		p->cb_no_value = value == NULL;
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
	} else if (p.cb_ret == SKG_CONFIG_BAD_UNIT || p.cb_ret == SKG_CONFIG_BAD_RANGE) {
		/* git's die_bad_number (config.c) */
		ret = skg_fail(err, "bad numeric config value '%s' for '%s' in %s %s: %s",
		               p.cb_no_value ? "" : skg_buf_str(&p.value), skg_buf_str(&p.var),
		               as_char ? "blob" : "file", name,
		               p.cb_ret == SKG_CONFIG_BAD_RANGE ? "out of range" : "invalid unit");
	} else if (p.cb_ret == SKG_CONFIG_NONBOOL) {
		/* git's git_die_config_linenr */
		ret = skg_fail(err, "bad config variable '%s' in %s '%s' at line %d", skg_buf_str(&p.var),
		               as_char ? "blob" : "file", name, p.linenr);
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
		int e = errno;
		skg_fail(err, "unable to access '%s': %s", name, strerror(e));
		if (err != NULL) {
			err->sys_errno = e;
		}
		return -1;
	}
	int ret = skg_config_parse(data, len, name, fn, ctx, err);
	free(data);
	return ret;
}

/* ---- Config with includes, in git's order of files -------------------------------------------- */

struct include_ctx {
	skg_config_fn fn;
	void *ctx;
	const char *cond_git_dir, *cond_git_dir_shown, *cond_git_cwd, *head_branch; /* skg_config_files' */
	const struct skg_config_files *files; /* NULL: the outer files alone (no hasconfig: pass) */
	/* hasconfig:remote.*.url: git's two passes: the first one (unconditional_url) collects every
	 * remote.<name>.url of the whole config with such conditions held true, and fails on a URL in a
	 * file an includeIf brought in (forbid_url > 0 while one is read) */
	bool unconditional_url;
	int forbid_url;
	struct skg_buf *urls; /* the URLs, each NUL-terminated; NULL until collected */
	const char *path;     /* the file being read, to open it (relative includes start from it) */
	const char *name;     /* the same as git spells it (messages) */
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

/* "~" or "~/..." at the start of a condition's pattern: $HOME (git's interpolate_path; left as it is
 * when HOME is not set). */
static void expand_home(const char *pat, size_t len, struct skg_buf *out)
{
	const char *home = getenv("HOME");
	if (len > 0 && pat[0] == '~' && (len == 1 || pat[1] == '/') && home != NULL) {
		skg_buf_adds(out, home);
		pat++;
		len--;
	}
	skg_buf_add(out, pat, len);
}

/* git's add_trailing_starstar_for_dir: a pattern ending in '/' matches everything below. */
static void starstar_for_dir(struct skg_buf *pat)
{
	if (pat->len > 0 && pat->p[pat->len - 1] == '/') {
		skg_buf_adds(pat, "**");
	}
}

/* The directory a relative path is taken from in git's directory cwd, with a '/' after it, as git's
 * strbuf_add_absolute_path: $PWD when it names that directory (so a path through a symbolic link the
 * shell followed stays as the user typed it), else cwd. 0, or -1 out of memory. */
static int absolute_base(const char *git_cwd, struct skg_buf *out)
{
	char *cwd = git_cwd != NULL ? strdup(git_cwd) : getcwd(NULL, 0);
	const char *pwd = getenv("PWD");
	struct stat cs, ps;
	if (cwd == NULL) {
		return -1;
	}
	if (pwd != NULL && *pwd == '/' && strcmp(pwd, cwd) != 0 && stat(cwd, &cs) == 0 &&
	    (cs.st_dev != 0 || cs.st_ino != 0) && stat(pwd, &ps) == 0 && ps.st_dev == cs.st_dev &&
	    ps.st_ino == cs.st_ino) {
		skg_buf_adds(out, pwd);
	} else {
		skg_buf_adds(out, cwd);
	}
	free(cwd);
	if (out->len > 0 && out->p[out->len - 1] != '/') {
		skg_buf_adds(out, "/");
	}
	return 0;
}

/* `gitdir:` / `gitdir/i:` (git config.c include_by_gitdir, prepare_include_condition_pattern): -1 out
 * of memory. */
static int include_by_gitdir(const struct include_ctx *inc, const char *cond, size_t len, bool icase)
{
	if (inc->cond_git_dir == NULL) {
		return 0;
	}
	struct skg_buf pat = {0}, text = {0};
	size_t prefix = 0;
	int ret = 0;
	expand_home(cond, len, &pat);
	if (pat.len >= 2 && pat.p[0] == '.' && pat.p[1] == '/') {
		/* relative to the directory of the file the condition is in (its real path) */
		char *file = skg_realpath(inc->path);
		const char *slash = file != NULL ? strrchr(file, '/') : NULL;
		if (slash == NULL) {
			free(file);
			skg_buf_release(&pat);
			return file == NULL && errno == ENOMEM ? -1 : 0;
		}
		struct skg_buf whole = {0};
		skg_buf_add(&whole, file, (size_t)(slash - file));
		skg_buf_add(&whole, pat.p + 1, pat.len - 1);
		prefix = (size_t)(slash - file) + 1;
		free(file);
		skg_buf_release(&pat);
		pat = whole;
	} else if (pat.len == 0 || pat.p[0] != '/') {
		struct skg_buf whole = {0};
		skg_buf_adds(&whole, "**/");
		skg_buf_add(&whole, pat.p, pat.len);
		skg_buf_release(&pat);
		pat = whole;
	}
	starstar_for_dir(&pat);
	skg_buf_add(&pat, "", 0);
	unsigned flags = SKG_WM_PATHNAME | (icase ? SKG_WM_CASEFOLD : 0);
	/* the git dir's real path first, then its absolute path (symbolic links kept) */
	for (int attempt = 0; attempt < 2 && ret == 0 && !pat.failed; attempt++) {
		skg_buf_release(&text);
		if (attempt == 0) {
			char *real = skg_realpath(inc->cond_git_dir);
			if (real == NULL) {
				continue;
			}
			skg_buf_adds(&text, real);
			free(real);
		} else {
			const char *shown =
			    inc->cond_git_dir_shown ? inc->cond_git_dir_shown : inc->cond_git_dir;
			if (shown[0] != '/' && absolute_base(inc->cond_git_cwd, &text) != 0) {
				break;
			}
			skg_buf_adds(&text, shown);
		}
		skg_buf_add(&text, "", 0);
		if (text.failed) {
			break;
		}
		if (prefix > 0 && (text.len < prefix || (icase ? strncasecmp(pat.p, text.p, prefix)
		                                               : strncmp(pat.p, text.p, prefix)) != 0)) {
			continue;
		}
		ret = skg_wildmatch(pat.p + prefix, text.p + prefix, flags);
	}
	if (pat.failed || text.failed) {
		ret = -1;
	}
	skg_buf_release(&pat);
	skg_buf_release(&text);
	return ret;
}

/* `onbranch:` (git config.c include_by_branch): the branch HEAD is on. */
static int include_by_branch(const struct include_ctx *inc, const char *cond, size_t len)
{
	if (inc->head_branch == NULL) {
		return 0;
	}
	struct skg_buf pat = {0};
	skg_buf_add(&pat, cond, len);
	starstar_for_dir(&pat);
	skg_buf_add(&pat, "", 0);
	int ret = pat.failed ? -1 : skg_wildmatch(pat.p, inc->head_branch, SKG_WM_PATHNAME);
	skg_buf_release(&pat);
	return ret;
}

/* remote.<name>.url with a name (git's parse_config_key(var, "remote", &name, ..., "url")). */
static bool is_remote_url(const char *key)
{
	size_t len = strlen(key);
	return strncmp(key, "remote.", 7) == 0 && len > 11 && strcmp(key + len - 4, ".url") == 0;
}

static int collect_url(void *ctx, const char *key, const char *value)
{
	struct skg_buf *urls = ctx;
	if (is_remote_url(key) && value != NULL) {
		skg_buf_add(urls, value, strlen(value) + 1);
	}
	return 0;
}

static int read_sequence(struct include_ctx *inc);

/* `hasconfig:remote.*.url:` (git config.c include_by_remote_url): a remote URL of the whole config
 * matches the pattern. 1, 0, -1 out of memory, -2 when the first pass failed (err says why). */
static int include_by_remote_url(struct include_ctx *inc, const char *cond, size_t len)
{
	if (inc->unconditional_url) {
		return 1;
	}
	if (inc->files == NULL) {
		return 0;
	}
	if (inc->urls == NULL) {
		struct skg_buf *urls = calloc(1, sizeof(*urls));
		if (urls == NULL) {
			return -1;
		}
		struct include_ctx first = *inc;
		first.fn = collect_url;
		first.ctx = urls;
		first.unconditional_url = true;
		first.forbid_url = 0;
		first.urls = NULL;
		int ret = read_sequence(&first);
		if (ret != 0 || urls->failed) {
			bool nomem = urls->failed;
			skg_buf_release(urls);
			free(urls);
			return nomem ? -1 : -2;
		}
		inc->urls = urls;
	}
	struct skg_buf pat = {0};
	skg_buf_add(&pat, cond, len);
	if (pat.failed) {
		return -1;
	}
	int found = 0;
	for (size_t at = 0; at < inc->urls->len && !found; at += strlen(inc->urls->p + at) + 1) {
		found = skg_wildmatch(pat.p, inc->urls->p + at, SKG_WM_PATHNAME);
	}
	skg_buf_release(&pat);
	return found;
}

/* Whether includeIf.<cond>.path applies (git config.c include_condition_is_true); -1 out of memory. */
static int include_condition(struct include_ctx *inc, const char *cond, size_t len)
{
	static const struct {
		const char *prefix;
		int kind;
	} forms[] = {{"gitdir:", 0}, {"gitdir/i:", 1}, {"onbranch:", 2}, {"hasconfig:remote.*.url:", 3}};
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		size_t n = strlen(forms[i].prefix);
		if (len >= n && memcmp(cond, forms[i].prefix, n) == 0) {
			switch (forms[i].kind) {
			case 2:
				return include_by_branch(inc, cond + n, len - n);
			case 3:
				return include_by_remote_url(inc, cond + n, len - n);
			default:
				return include_by_gitdir(inc, cond + n, len - n, forms[i].kind == 1);
			}
		}
	}
	return 0; /* unknown conditions never hold */
}

/* includeIf.<cond>.path (the key as canonical: "includeif." and ".path" lower case): 1 when its
 * condition holds, 0 when it does not or the key is another, -1 out of memory. */
static int include_if(struct include_ctx *inc, const char *key)
{
	size_t len = strlen(key);
	if (strncmp(key, "includeif.", 10) != 0 || len < 15 || strcmp(key + len - 5, ".path") != 0) {
		return 0;
	}
	return include_condition(inc, key + 10, len - 15);
}

static int include_cb(void *vctx, const char *key, const char *value)
{
	struct include_ctx *inc = vctx;
	if (inc->forbid_url > 0 && is_remote_url(key)) {
		/* git's forbid_remote_url: it dies */
		inc->failed = true;
		skg_fail(inc->err, "remote URLs cannot be configured in file directly or indirectly included "
		                   "by includeIf.hasconfig:remote.*.url");
		return 1;
	}
	int ret = inc->fn(inc->ctx, key, value);
	if (ret != 0) {
		return ret;
	}
	bool conditional = false;
	if (strcmp(key, "include.path") != 0) {
		int cond = include_if(inc, key);
		if (cond < 0) {
			inc->failed = true;
			if (cond == -1) {
				skg_fail_sys(inc->err, SKG_E_NOMEM, ENOMEM, "out of memory");
			}
			return 1;
		}
		if (cond == 0) {
			return 0;
		}
		conditional = true;
	}
	if (value == NULL) {
		/* git: config_error_nonbool("include.path"), for includeIf too (git then dies with "bad
		 * config line N in file NAME" after that error line; here the one line) */
		inc->failed = true;
		skg_fail(inc->err, "missing value for '%s'", "include.path");
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
			int forbid = conditional && inc->unconditional_url;
			inc->forbid_url += forbid;
			ret = read_with_includes(inc, path.p, name.p);
			if (ret < 0 && inc->failed) {
				ret = 1; /* err says why: stop the including file's parse as it is */
			}
			inc->forbid_url -= forbid;
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
	char *p = skg_path_join(dir, file), *n = skg_path_join(display, file);
	/* git names it by git_path, whose cleanup_path drops a leading "./" (a bare repository's
	 * "config" when it runs in it) */
	const char *shown = n != NULL && strncmp(n, "./", 2) == 0 ? n + 2 : n;
	int ret = p && n ? read_config_file_top(inc, p, shown)
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
	if (!skg_env_bool("GIT_CONFIG_NOSYSTEM", false)) {
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
			p = skg_path_join(xdg, "git/config");
		} else if (home != NULL) {
			p = skg_path_join(home, ".config/git/config");
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
			p = skg_path_join(home, ".gitconfig");
			if (p != NULL) {
				ret = read_outer_file(inc, p);
				free(p);
			}
		}
	}
	return ret;
}

int skg_config_read_outer(skg_config_fn fn, void *ctx, struct skg_error *err)
{
	struct include_ctx inc = {.fn = fn, .ctx = ctx, .err = err};
	return read_outer_config(&inc);
}

/* One key and value from the command line's config (GIT_CONFIG_COUNT's, GIT_CONFIG_PARAMETERS'):
 * value NULL is an implicit true ('key' alone). Git's config_parse_pair. */
static int command_pair(struct include_ctx *inc, const char *k, const char *v)
{
	char key[1024];
	if (*k == '\0') {
		return skg_fail(inc->err, "empty config key");
	}
	const char *bad = skg_config_canonical_key(k, key, sizeof(key));
	if (bad != NULL) {
		return skg_fail(inc->err, bad, k);
	}
	int ret = inc->fn(inc->ctx, key, v);
	if (ret == SKG_CONFIG_BAD_UNIT || ret == SKG_CONFIG_BAD_RANGE) {
		/* git's die_bad_number with no file to name */
		return skg_fail(inc->err, "bad numeric config value '%s' for '%s': %s", v != NULL ? v : "",
		                key, ret == SKG_CONFIG_BAD_RANGE ? "out of range" : "invalid unit");
	}
	return ret;
}

/*
 * One single-quoted word at *p, dequoted in place as git's sq_dequote_step (quote.c) does: '...'
 * with '\'' and '\!' between quoted parts standing for ' and !. Returns the word (NUL-terminated
 * in place) and sets *p just after it (NULL at the end of the string), or NULL when *p does not
 * hold one.
 */
static char *sq_word(char **p)
{
	char *src = *p, *dst = *p, *word = *p;
	if (*src != '\'') {
		return NULL;
	}
	for (;;) {
		char c = *++src;
		if (c == '\0') {
			return NULL;
		}
		if (c != '\'') {
			*dst++ = c;
			continue;
		}
		/* out of the quotes */
		char after = *++src;
		if (after == '\0') {
			*dst = '\0';
			*p = NULL;
			return word;
		}
		if (after == '\\' && (src[1] == '\'' || src[1] == '!') && src[2] == '\'') {
			*dst++ = src[1];
			src += 2;
			continue;
		}
		*dst = '\0';
		*p = src;
		return word;
	}
}

/* GIT_CONFIG_PARAMETERS (what `git -c KEY=VALUE` passes on), as git's parse_config_env_list: words
 * separated by white space, each 'KEY=VALUE' (the old form: split at the first '=', none: an
 * implicit true) or 'KEY'='VALUE' ('KEY'= alone: an implicit true). env is changed in place. */
static int read_parameters(struct include_ctx *inc, char *env)
{
	static const char bogus[] = "bogus format in GIT_CONFIG_PARAMETERS";
	char *cur = env;
	while (cur != NULL && *cur != '\0') {
		char *key = sq_word(&cur);
		if (key == NULL) {
			return skg_fail(inc->err, "%s", bogus);
		}
		int ret;
		if (cur == NULL || isspace((unsigned char)*cur)) {
			char *eq = strchr(key, '=');
			if (eq != NULL) {
				*eq = '\0';
			}
			if (*key == '\0') {
				if (eq != NULL) {
					*eq = '=';
				}
				return skg_fail(inc->err, "bogus config parameter: %s", key);
			}
			ret = command_pair(inc, key, eq != NULL ? eq + 1 : NULL);
		} else if (*cur == '=') {
			const char *value = NULL;
			cur++;
			if (*cur == '\'') {
				value = sq_word(&cur);
				if (value == NULL || (cur != NULL && !isspace((unsigned char)*cur))) {
					return skg_fail(inc->err, "%s", bogus);
				}
			} else if (*cur != '\0' && !isspace((unsigned char)*cur)) {
				return skg_fail(inc->err, "%s", bogus);
			}
			ret = command_pair(inc, key, value);
		} else {
			return skg_fail(inc->err, "%s", bogus);
		}
		if (ret != 0) {
			return ret;
		}
		while (cur != NULL && isspace((unsigned char)*cur)) {
			cur++;
		}
	}
	return 0;
}

static int read_command_line(struct include_ctx *inc);

/* The whole sequence of skg_config_read_all through inc (whose files are set). */
static int read_sequence(struct include_ctx *inc)
{
	const struct skg_config_files *files = inc->files;
	int ret = read_outer_config(inc);
	if (ret != 0) {
		return ret;
	}
	if (files->common_dir != NULL) {
		ret = read_repo_file(inc, files->common_dir, files->common_dir_display, "config");
		if (ret != 0) {
			return ret;
		}
	}
	if (files->common_dir != NULL && files->git_dir != NULL) {
		ret = read_repo_file(inc, files->git_dir, files->git_dir_display, "config.worktree");
		if (ret != 0) {
			return ret;
		}
	}
	return read_command_line(inc);
}

/* The command line's config (git's git_config_from_parameters): GIT_CONFIG_COUNT's pairs, then
 * GIT_CONFIG_PARAMETERS. */
static int read_command_line(struct include_ctx *inc)
{
	int ret = 0;
	const char *count_env = getenv("GIT_CONFIG_COUNT");
	if (count_env != NULL && *count_env) {
		char *end;
		errno = 0;
		unsigned long count = strtoul(count_env, &end, 10);
		if (*end != '\0') {
			return skg_fail(inc->err, "bogus count in %s", "GIT_CONFIG_COUNT");
		}
		if (errno != 0 || count > INT_MAX) {
			return skg_fail(inc->err, "too many entries in %s", "GIT_CONFIG_COUNT");
		}
		for (unsigned long i = 0; i < count; i++) {
			char kname[64], vname[64];
			snprintf(kname, sizeof(kname), "GIT_CONFIG_KEY_%lu", i);
			snprintf(vname, sizeof(vname), "GIT_CONFIG_VALUE_%lu", i);
			const char *k = getenv(kname), *v = getenv(vname);
			if (k == NULL) {
				return skg_fail(inc->err, "missing config key %s", kname);
			}
			if (v == NULL) {
				return skg_fail(inc->err, "missing config value %s", vname);
			}
			if ((ret = command_pair(inc, k, v)) != 0) {
				return ret;
			}
		}
	}
	/* then GIT_CONFIG_PARAMETERS (git's git_config_from_parameters) */
	const char *params = getenv("GIT_CONFIG_PARAMETERS");
	if (params != NULL) {
		char *copy = strdup(params);
		if (copy == NULL) {
			return skg_fail_sys(inc->err, SKG_E_NOMEM, ENOMEM, "out of memory");
		}
		ret = read_parameters(inc, copy);
		free(copy);
	}
	return ret;
}

static int ignore_pair(void *ctx, const char *key, const char *value)
{
	(void)ctx;
	(void)key;
	(void)value;
	return 0;
}

int skg_config_check_command_line(struct skg_error *err)
{
	SKG_ERR_OR_LOCAL(err);
	struct include_ctx inc = {.fn = ignore_pair, .err = err};
	return read_command_line(&inc) != 0 ? -1 : 0;
}

int skg_config_read_all(const struct skg_config_files *files, skg_config_fn fn, void *ctx,
                        struct skg_error *err)
{
	struct include_ctx inc = {.fn = fn,
	                          .ctx = ctx,
	                          .err = err,
	                          .cond_git_dir = files->cond_git_dir,
	                          .cond_git_dir_shown = files->cond_git_dir_shown,
	                          .cond_git_cwd = files->cond_git_cwd,
	                          .head_branch = files->head_branch,
	                          .files = files};
	int ret = read_sequence(&inc);
	if (inc.urls != NULL) {
		skg_buf_release(inc.urls);
		free(inc.urls);
	}
	return ret;
}

/* git_env_bool(): unset -> dflt, else a config boolean (invalid counts as true, as git dies). */
bool skg_env_bool(const char *name, bool dflt)
{
	const char *v = getenv(name);
	if (v == NULL) {
		return dflt;
	}
	return skg_config_bool(v) != 0;
}

void skg_config_path(const char *value, struct skg_buf *out)
{
	const char *home = getenv("HOME");
	if (strncmp(value, "~/", 2) == 0 && home != NULL) {
		skg_buf_addf(out, "%s/%s", home, value + 2);
	} else {
		skg_buf_adds(out, value);
	}
}
