/*
 * reflog.c - reflogs: the logs of a worktree's ref store and their entries (reflog.h).
 *
 * The rules follow git 2.39.5 (refs/files-backend.c files_reflog_iterator, show_one_reflog_ent),
 * checked by running git; the code is this project's own.
 */
#include "reflog.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "refname.h"
#include "refs.h"
#include "util.h"

/* ---- Reflogs -------------------------------------------------------------------------------- */

struct log_walk {
	struct skg_refdb *db;
	const struct skg_worktree *wt;
	struct skg_ref_store st;   /* the worktree's ref store */
	struct skg_ref_store main; /* the current worktree's (where fsck reads the entries from) */
	int (*fn)(void *ctx, const char *refname, const char *path);
	void *ctx;
	const struct skg_sink *rep;
	struct skg_error *err;
	bool shared_only;
	const char *display; /* <dir>/logs as git spells it */
	struct skg_buf path, rel, qualified, display_path, file;
};

static int log_file(struct log_walk *w, const char *basename)
{
	if (basename[0] == '.' || skg_ends_with(basename, ".lock")) {
		return 0;
	}
	const char *rel = skg_buf_str(&w->rel);
	uint8_t id[SKG_RAWSZ];
	unsigned flags;
	int r = skg_resolve_ref_in(w->db, &w->st, rel, 0, id, &flags, w->err);
	if (r < 0) {
		return -1;
	}
	if (r == 0) {
		skg_report(w->rep, SKG_LEVEL_ERROR, SKG_R_REFLOG_BAD_REF, "bad ref for %s/%s", w->display,
		           rel);
		return 0;
	}
	const char *wtname, *bare;
	size_t wtlen;
	enum skg_wt_type type = skg_parse_worktree_ref(rel, &wtname, &wtlen, &bare);
	if (w->shared_only && type != SKG_WT_SHARED) {
		return 0;
	}
	w->qualified.len = 0;
	skg_buf_add(&w->qualified, "", 0);
	if (type == SKG_WT_CURRENT && !w->wt->is_current) {
		if (w->wt->id == NULL) {
			skg_buf_adds(&w->qualified, "main-worktree/");
		} else {
			skg_buf_addf(&w->qualified, "worktrees/%s/", w->wt->id);
		}
	}
	skg_buf_adds(&w->qualified, rel);
	skg_ref_path(&w->main, skg_buf_str(&w->qualified), true, &w->file);
	if (w->qualified.failed || w->file.failed) {
		return skg_fail_sys(w->err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	return w->fn(w->ctx, skg_buf_str(&w->qualified), skg_buf_str(&w->file));
}

/* Depth first in readdir order, as git's dir_iterator (symbolic links are not followed). */
static int log_dir(struct log_walk *w, int depth)
{
	if (depth > 256) {
		return 0;
	}
	DIR *d = opendir(skg_buf_str(&w->path));
	if (d == NULL) {
		return 0;
	}
	size_t plen = w->path.len, rlen = w->rel.len;
	int ret = 0;
	struct dirent *de;
	while (ret == 0 && (de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) {
			continue;
		}
		skg_buf_setlen(&w->path, plen);
		skg_buf_addc(&w->path, '/');
		skg_buf_adds(&w->path, de->d_name);
		skg_buf_setlen(&w->rel, rlen);
		if (rlen) {
			skg_buf_addc(&w->rel, '/');
		}
		skg_buf_adds(&w->rel, de->d_name);
		if (w->path.failed || w->rel.failed) {
			ret = skg_fail_sys(w->err, SKG_E_NOMEM, ENOMEM, "out of memory");
			break;
		}
		struct stat sb;
		if (lstat(skg_buf_str(&w->path), &sb) != 0) {
			continue;
		}
		if (S_ISDIR(sb.st_mode)) {
			ret = log_dir(w, depth + 1);
		} else if (S_ISREG(sb.st_mode)) {
			ret = log_file(w, de->d_name);
		}
	}
	closedir(d);
	skg_buf_setlen(&w->path, plen);
	skg_buf_setlen(&w->rel, rlen);
	return ret;
}

static int log_walk_dir(struct log_walk *w, const char *dir, const char *display, bool shared_only)
{
	w->path.len = 0;
	skg_buf_addf(&w->path, "%s/logs", dir);
	w->rel.len = 0;
	skg_buf_add(&w->rel, "", 0);
	w->display_path.len = 0;
	skg_buf_addf(&w->display_path, "%s/logs", display);
	if (w->path.failed || w->rel.failed || w->display_path.failed) {
		return skg_fail_sys(w->err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	w->display = w->display_path.p;
	w->shared_only = shared_only;
	return log_dir(w, 0);
}

int skg_for_each_reflog(struct skg_refdb *db, const struct skg_worktree *wt,
                        int (*fn)(void *ctx, const char *refname, const char *path), void *ctx,
                        const struct skg_sink *rep, struct skg_error *err)
{
	struct log_walk w = {.db = db, .wt = wt, .fn = fn, .ctx = ctx, .rep = rep, .err = err};
	w.st.git_dir = wt->git_dir;
	w.st.common_dir = wt->common_dir;
	w.st.git_dir_display = wt->git_dir_display;
	w.st.common_dir_display = wt->common_dir_display;
	skg_ref_store_main(db->repo, &w.main);
	int ret;
	if (strcmp(wt->git_dir_display, wt->common_dir_display) == 0) {
		ret = log_walk_dir(&w, wt->common_dir, wt->common_dir_display, false);
	} else {
		ret = log_walk_dir(&w, wt->git_dir, wt->git_dir_display, false);
		if (ret == 0) {
			ret = log_walk_dir(&w, wt->common_dir, wt->common_dir_display, true);
		}
	}
	skg_buf_release(&w.path);
	skg_buf_release(&w.rel);
	skg_buf_release(&w.qualified);
	skg_buf_release(&w.display_path);
	skg_buf_release(&w.file);
	return ret;
}

/* One reflog line (NUL-terminated copy, n bytes including its LF if any). 1 parsed, 0 skipped. */
static int reflog_line(char *line, size_t n, size_t lineno, skg_reflog_entry_fn fn, void *ctx, int *ret,
                       const struct skg_sink *rep)
{
	struct skg_reflog_entry e = {.line = lineno};
	char *p = line;
	char *email_end, *msg;
	if (n == 0 || line[n - 1] != '\n' || n < 2 * SKG_HEXSZ + 2 || !skg_from_hex(p, e.old_id) ||
	    p[SKG_HEXSZ] != ' ' || !skg_from_hex(p + SKG_HEXSZ + 1, e.new_id) ||
	    p[2 * SKG_HEXSZ + 1] != ' ') {
		goto corrupt;
	}
	p += 2 * SKG_HEXSZ + 2;
	email_end = strchr(p, '>');
	if (email_end == NULL || email_end[1] != ' ') {
		goto corrupt;
	}
	uintmax_t ts = strtoumax(email_end + 2, &msg, 10);
	if (ts == 0 || msg[0] != ' ' || (msg[1] != '+' && msg[1] != '-') ||
	    !skg_isdigit((unsigned char)msg[2]) || !skg_isdigit((unsigned char)msg[3]) ||
	    !skg_isdigit((unsigned char)msg[4]) || !skg_isdigit((unsigned char)msg[5])) {
		goto corrupt;
	}
	e.timestamp = (uint64_t)ts;
	long tz = strtol(msg + 1, NULL, 10);
	e.tz = tz > INT_MAX ? INT_MAX : tz < INT_MIN ? INT_MIN : (int)tz;
	email_end[1] = '\0';
	e.ident = p;
	msg += msg[6] == '\t' ? 7 : 6;
	line[n - 1] = '\0'; /* the LF */
	e.message = msg;    /* at most at line[n], the NUL after the LF */
	*ret = fn(ctx, &e);
	return 1;
corrupt:
	skg_report(rep, SKG_LEVEL_SILENT, SKG_R_REFLOG_CORRUPT_LINE,
	           "reflog line %zu does not parse (git skips it)", lineno);
	return 0;
}

int skg_reflog_parse(const char *buf, size_t len, skg_reflog_entry_fn fn, void *ctx,
                     const struct skg_sink *rep, struct skg_error *err)
{
	struct skg_buf line = {0};
	size_t lineno = 0;
	int ret = 0;
	const char *p = buf, *end = buf + len;
	while (ret == 0 && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		line.len = 0;
		skg_buf_add(&line, p, n);
		if (line.failed) {
			ret = skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
			break;
		}
		reflog_line(line.p, n, ++lineno, fn, ctx, &ret, rep);
		p += n;
	}
	skg_buf_release(&line);
	return ret;
}

int skg_for_each_reflog_entry(const char *path, skg_reflog_entry_fn fn, void *ctx, const struct skg_sink *rep,
                              struct skg_error *err)
{
	FILE *f = fopen(path, "re");
	if (f == NULL) {
		return 0; /* git: no reflog, nothing to check */
	}
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	ssize_t n;
	int ret = 0;
	errno = 0;
	while (ret == 0 && (n = getline(&line, &cap, f)) > 0) {
		reflog_line(line, (size_t)n, ++lineno, fn, ctx, &ret, rep);
	}
	if (ret == 0 && ferror(f)) {
		ret = skg_fail(err, "could not read %s: %s", path, strerror(errno));
	}
	free(line);
	fclose(f);
	return ret;
}
