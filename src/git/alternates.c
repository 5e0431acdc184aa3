/*
 * alternates.c - a repository's alternate object directories in git's order (alternates.h).
 *
 * The rules follow git 2.39.5 (object-file.c prepare_alt_odb), checked by running git; the code
 * is this project's own.
 */
#include "alternates.h"

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

#include "repo.h"
#include "util.h"

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
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

static int alt_read_file(struct alt_walk *w, const char *objdir, const char *display, int depth);

/* C-style unquoting of a "..." entry (skg_unquote_c); false on broken quoting. *next is after the
 * closing quote. */
static bool unquote_c(const char *s, const char *end, struct skg_buf *out, const char **next)
{
	size_t len = (size_t)(end - s), n, used;
	char *tmp = malloc(len + 1);
	if (tmp == NULL) {
		out->failed = true;
		return false;
	}
	bool ok = skg_unquote_c(s, len, tmp, &n, &used) == 0;
	if (ok) {
		skg_buf_add(out, tmp, n);
		*next = s + used;
	}
	free(tmp);
	return ok;
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
				ret = alt_read_file(w, norm, norm, depth + 1);
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

/* OBJDIR/info/alternates (`display`: OBJDIR as git names it in its warning: the repository's
 * object directory as git spells it, an alternate's as normalized) */
static int alt_read_file(struct alt_walk *w, const char *objdir, const char *display, int depth)
{
	char *path = skg_path_join(objdir, "info/alternates");
	char *shown = skg_path_join(display, "info/alternates");
	if (path == NULL || shown == NULL) {
		free(path);
		free(shown);
		return skg_fail_sys(w->err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	char *data;
	size_t len;
	if (skg_read_file(path, (size_t)1 << 30, &data, &len) != 0) {
		if (errno != ENOENT && errno != ENOTDIR) {
			skg_report(w->rep, SKG_LEVEL_WARNING, SKG_R_ALT_UNREADABLE,
			           "unable to access '%s': %s", shown, strerror(errno));
		}
		free(path);
		free(shown);
		return 0;
	}
	free(path);
	free(shown);
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
		ret = alt_read_file(&w, repo->objects_dir, repo->objects_dir_display, 0);
	}
	free(w.own);
	skg_buf_release(&w.seen);
	return ret;
}
