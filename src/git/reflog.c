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
#include "reftable.h"
#include "repo.h"
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
	if (w->db->sorted_reflogs) {
		/* git 2.45+ (files_reflog_iterator_advance): every regular file whose name is a valid
		 * one-level refname is a reflog; its ref is not resolved (a ref that cannot be read, or is
		 * gone, keeps its reflog's objects reachable) */
		if (!skg_refname_ok(basename, SKG_REFNAME_ALLOW_ONELEVEL)) {
			return 0;
		}
	} else {
		uint8_t id[SKG_MAX_RAWSZ];
		unsigned flags;
		int r = skg_resolve_ref_in(w->db, &w->st, rel, 0, id, &flags, w->err);
		if (r < 0) {
			return -1;
		}
		if (r == 0) {
			skg_report(w->rep, SKG_LEVEL_ERROR, SKG_R_REFLOG_BAD_REF, "bad ref for %s/%s",
			           w->display, rel);
			return 0;
		}
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

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries of d but "." and "..", sorted by name (git's DIR_ITERATOR_SORTED); *out NULL-ended,
 * free each and the array. -1 when out of memory. */
static int sorted_entries(DIR *d, char ***out)
{
	char **v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) {
			continue;
		}
		if (n + 2 > cap) {
			cap = cap ? cap * 2 : 16;
			char **nv = realloc(v, cap * sizeof(*v));
			if (nv == NULL) {
				goto nomem;
			}
			v = nv;
		}
		if ((v[n] = strdup(de->d_name)) == NULL) {
			goto nomem;
		}
		n++;
	}
	if (v == NULL && (v = malloc(sizeof(*v))) == NULL) {
		return -1;
	}
	v[n] = NULL;
	qsort(v, n, sizeof(*v), name_cmp);
	*out = v;
	return 0;
nomem:
	for (size_t i = 0; i < n; i++) {
		free(v[i]);
	}
	free(v);
	return -1;
}

/* Depth first in readdir order, as git's dir_iterator, or each directory sorted by name when the
 * refdb says so (symbolic links are not followed). */
static int log_dir(struct log_walk *w, int depth)
{
	if (depth > 256) {
		return 0;
	}
	DIR *d = opendir(skg_buf_str(&w->path));
	if (d == NULL) {
		return 0;
	}
	char **names = NULL;
	if (w->db->sorted_reflogs && sorted_entries(d, &names) != 0) {
		closedir(d);
		return skg_fail_sys(w->err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	size_t plen = w->path.len, rlen = w->rel.len;
	int ret = 0;
	struct dirent *de;
	for (size_t k = 0; ret == 0; k++) {
		const char *name;
		if (names != NULL) {
			if ((name = names[k]) == NULL) {
				break;
			}
		} else {
			if ((de = readdir(d)) == NULL) {
				break;
			}
			name = de->d_name;
		}
		if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
			continue;
		}
		skg_buf_setlen(&w->path, plen);
		skg_buf_addc(&w->path, '/');
		skg_buf_adds(&w->path, name);
		skg_buf_setlen(&w->rel, rlen);
		if (rlen) {
			skg_buf_addc(&w->rel, '/');
		}
		skg_buf_adds(&w->rel, name);
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
			ret = log_file(w, name);
		}
	}
	for (size_t k = 0; names != NULL && names[k] != NULL; k++) {
		free(names[k]);
	}
	free(names);
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

/* ---- Reflogs in reftables (git 2.55.0 refs/reftable-backend.c) ----------------------------- */

static enum skg_wt_type wt_type(const char *name)
{
	const char *wt, *bare;
	size_t len;
	return skg_parse_worktree_ref(name, &wt, &len, &bare);
}

/* One reflog name of worktree wt's stack, qualified as the files walk qualifies it (log_file). */
static int reftable_log_name(struct log_walk *w, const char *name)
{
	w->qualified.len = 0;
	skg_buf_add(&w->qualified, "", 0);
	if (wt_type(name) == SKG_WT_CURRENT && !w->wt->is_current) {
		if (w->wt->id == NULL) {
			skg_buf_adds(&w->qualified, "main-worktree/");
		} else {
			skg_buf_addf(&w->qualified, "worktrees/%s/", w->wt->id);
		}
	}
	skg_buf_adds(&w->qualified, name);
	if (w->qualified.failed) {
		return skg_fail_sys(w->err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	return w->fn(w->ctx, skg_buf_str(&w->qualified), NULL);
}

/*
 * The reflogs of worktree wt in a reftable repository: each refname that has log records, once, in
 * name order, names that fail the ref name check left out (git's reftable_reflog_iterator_advance;
 * no "bad ref for" check, unlike the files backend). A linked worktree's own (per-worktree) logs come
 * from its stack, merged with the shared ones of the common stack.
 */
static int reftable_for_each_reflog(struct log_walk *w)
{
	const struct skg_worktree *wt = w->wt;
	const struct skg_reftable_stack *common, *own = NULL;
	if (skg_refdb_reftable_at(w->db, wt->common_dir, wt->common_dir_display, &common, w->err) != 0) {
		return -1;
	}
	bool linked = strcmp(wt->git_dir, wt->common_dir) != 0;
	if (linked && skg_refdb_reftable_at(w->db, wt->git_dir, wt->git_dir_display, &own, w->err) != 0) {
		return -1;
	}
	size_t i = 0, j = 0, ni = skg_reftable_log_count(common), nj = own ? skg_reftable_log_count(own) : 0;
	const char *last = NULL;
	int ret = 0;
	while (ret == 0 && (i < ni || j < nj)) {
		const struct skg_reftable_log *a = i < ni ? skg_reftable_log_at(common, i) : NULL;
		const struct skg_reftable_log *b = j < nj ? skg_reftable_log_at(own, j) : NULL;
		const char *name;
		if (b == NULL || (a != NULL && strcmp(a->refname, b->refname) <= 0)) {
			name = a->refname;
			i++;
			if (linked && wt_type(name) == SKG_WT_CURRENT) {
				continue; /* the main worktree's own log */
			}
		} else {
			name = b->refname;
			j++;
			if (wt_type(name) != SKG_WT_CURRENT) {
				continue;
			}
		}
		if ((last != NULL && strcmp(last, name) == 0) ||
		    !skg_refname_ok(name, SKG_REFNAME_ALLOW_ONELEVEL)) {
			continue;
		}
		last = name;
		ret = reftable_log_name(w, name);
	}
	return ret;
}

int skg_for_each_reflog(struct skg_refdb *db, const struct skg_worktree *wt,
                        int (*fn)(void *ctx, const char *refname, const char *path), void *ctx,
                        const struct skg_sink *rep, struct skg_error *err)
{
	if (db->repo->reftable) {
		struct log_walk w = {.db = db, .wt = wt, .fn = fn, .ctx = ctx, .rep = rep, .err = err};
		int ret = reftable_for_each_reflog(&w);
		skg_buf_release(&w.qualified);
		return ret;
	}
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
static int reflog_line(char *line, size_t n, size_t lineno, size_t rawsz, skg_reflog_entry_fn fn, void *ctx,
                       int *ret, const struct skg_sink *rep)
{
	struct skg_reflog_entry e = {.line = lineno};
	char *p = line;
	char *email_end, *msg;
	size_t hexsz = 2 * rawsz;
	if (n == 0 || line[n - 1] != '\n' || n < 2 * hexsz + 2 || !skg_from_hex_len(p, rawsz, e.old_id) ||
	    p[hexsz] != ' ' || !skg_from_hex_len(p + hexsz + 1, rawsz, e.new_id) || p[2 * hexsz + 1] != ' ') {
		goto corrupt;
	}
	p += 2 * hexsz + 2;
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

int skg_reflog_parse(const char *buf, size_t len, size_t rawsz, skg_reflog_entry_fn fn, void *ctx,
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
		reflog_line(line.p, n, ++lineno, rawsz, fn, ctx, &ret, rep);
		p += n;
	}
	skg_buf_release(&line);
	return ret;
}

/*
 * The entries of refname's reflog in a reftable stack, oldest first (git's
 * reftable_be_for_each_reflog_ent reads them newest first and hands them on in reverse), as
 * reflog lines: ident "name <email>", the time zone as +hhmm, the message without its final LF.
 */
static int reftable_entries(struct skg_refdb *db, const char *refname, skg_reflog_entry_fn fn, void *ctx,
                            struct skg_error *err)
{
	struct skg_ref_store st;
	skg_ref_store_main(db->repo, &st);
	const struct skg_reftable_stack *stack;
	const char *name;
	if (skg_refdb_reftable(db, &st, refname, &stack, &name, err) != 0) {
		return -1;
	}
	/* the first entry of name (entries are sorted by refname) */
	size_t lo = 0, hi = skg_reftable_log_count(stack);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(skg_reftable_log_at(stack, mid)->refname, name) < 0) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	size_t end = lo;
	while (end < skg_reftable_log_count(stack) &&
	       strcmp(skg_reftable_log_at(stack, end)->refname, name) == 0) {
		end++;
	}
	struct skg_buf ident = {0}, msg = {0};
	int ret = 0;
	for (size_t k = end; ret == 0 && k > lo; k--) {
		const struct skg_reftable_log *l = skg_reftable_log_at(stack, k - 1);
		struct skg_reflog_entry e = {.timestamp = l->time, .line = end - k + 1};
		memcpy(e.old_id, l->old_id, db->rawsz);
		memcpy(e.new_id, l->new_id, db->rawsz);
		int tz = l->tz_minutes < 0 ? -l->tz_minutes : l->tz_minutes;
		e.tz = (l->tz_minutes < 0 ? -1 : 1) * (tz / 60 * 100 + tz % 60);
		ident.len = 0;
		skg_buf_addf(&ident, "%s <%s>", l->name, l->email);
		size_t mlen = strlen(l->message);
		msg.len = 0;
		skg_buf_add(&msg, l->message, mlen > 0 && l->message[mlen - 1] == '\n' ? mlen - 1 : mlen);
		if (ident.failed || msg.failed) {
			ret = skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
			break;
		}
		e.ident = ident.p;
		e.message = msg.p;
		ret = fn(ctx, &e);
	}
	skg_buf_release(&ident);
	skg_buf_release(&msg);
	return ret;
}

int skg_reflog_entries(struct skg_refdb *db, const char *refname, const char *path, skg_reflog_entry_fn fn,
                       void *ctx, const struct skg_sink *rep, struct skg_error *err)
{
	if (path == NULL) {
		return reftable_entries(db, refname, fn, ctx, err);
	}
	return skg_for_each_reflog_entry(path, db->rawsz, fn, ctx, rep, err);
}

int skg_for_each_reflog_entry(const char *path, size_t rawsz, skg_reflog_entry_fn fn, void *ctx,
                              const struct skg_sink *rep, struct skg_error *err)
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
		reflog_line(line, (size_t)n, ++lineno, rawsz, fn, ctx, &ret, rep);
	}
	if (ret == 0 && ferror(f)) {
		ret = skg_fail(err, "could not read %s: %s", path, strerror(errno));
	}
	free(line);
	fclose(f);
	return ret;
}
