/*
 * worktree.c - a repository's worktrees and git fsck's check of their HEADs (worktree.h).
 *
 * The rules follow git 2.39.5 (worktree.c get_worktrees, builtin/fsck.c fsck_head_link), checked
 * by running git; the code is this project's own.
 */
#include "worktree.h"

#include <errno.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "repo.h"
#include "util.h"

/* ---- Worktrees (worktree.c get_worktrees) ------------------------------------------------------ */

static bool same_dir(const char *a, const char *b)
{
	char *ra = skg_realpath(a), *rb = skg_realpath(b);
	bool same = ra != NULL && rb != NULL && strcmp(ra, rb) == 0;
	free(ra);
	free(rb);
	return same;
}

/* The common dir a worktree's ref store has: the real path its "commondir" file names, else itself. */
static char *worktree_common(const char *gitdir)
{
	struct skg_buf p = {0};
	skg_buf_addf(&p, "%s/commondir", gitdir);
	char *data;
	size_t len;
	char *out = NULL;
	if (!p.failed && skg_read_file(p.p, 1 << 20, &data, &len) == 0) {
		while (len && (data[len - 1] == '\n' || data[len - 1] == '\r')) {
			data[--len] = '\0';
		}
		if (len) {
			struct skg_buf j = {0};
			if (data[0] != '/') {
				skg_buf_addf(&j, "%s/", gitdir);
			}
			skg_buf_adds(&j, data);
			if (!j.failed) {
				out = skg_realpath(j.p);
			}
			skg_buf_release(&j);
		}
		free(data);
	}
	skg_buf_release(&p);
	return out ? out : strdup(gitdir);
}

int skg_for_each_worktree(struct skg_repo *repo, int (*fn)(void *ctx, const struct skg_worktree *wt),
                          void *ctx, const struct skg_sink *rep, struct skg_error *err)
{
	struct skg_worktree wt = {0};
	wt.git_dir = repo->common_dir;
	wt.is_current = same_dir(repo->git_dir, repo->common_dir);
	wt.head_ref = wt.is_current ? "HEAD" : "main-worktree/HEAD";
	if (wt.is_current) {
		wt.git_dir_display = repo->git_dir_display;
		wt.common_dir_display = repo->common_dir_display;
		wt.common_dir = repo->common_dir;
		wt.git_dir = repo->git_dir;
	} else {
		wt.git_dir_display = repo->common_dir_display;
		wt.common_dir_display = repo->common_dir_display;
		wt.common_dir = repo->common_dir;
	}
	int ret = fn(ctx, &wt);
	if (ret != 0) {
		return ret;
	}
	struct skg_buf dir = {0};
	skg_buf_addf(&dir, "%s/worktrees", repo->common_dir);
	DIR *d = dir.failed ? NULL : opendir(dir.p);
	if (d == NULL) {
		skg_buf_release(&dir);
		return dir.failed ? skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory") : 0;
	}
	size_t base = dir.len;
	struct skg_buf head = {0}, gd_display = {0};
	struct dirent *de;
	while (ret == 0 && (de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) {
			continue;
		}
		skg_buf_setlen(&dir, base);
		skg_buf_addf(&dir, "/%s/gitdir", de->d_name);
		char *data;
		size_t len;
		if (dir.failed) {
			ret = skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
			break;
		}
		if (skg_read_file(dir.p, 1 << 20, &data, &len) != 0 || len == 0) {
			free(data); /* NULL when the read failed */
			skg_report(rep, SKG_LEVEL_SILENT, SKG_R_WORKTREE_SKIPPED,
			           "skipping worktree %s: no gitdir file", de->d_name);
			continue;
		}
		free(data);
		skg_buf_setlen(&dir, base);
		skg_buf_addf(&dir, "/%s", de->d_name);
		char *common = worktree_common(dir.p);
		struct skg_worktree lw = {0};
		lw.id = de->d_name;
		lw.git_dir = dir.p;
		lw.is_current = same_dir(repo->git_dir, dir.p);
		head.len = 0;
		skg_buf_addf(&head, "worktrees/%s/HEAD", de->d_name);
		gd_display.len = 0;
		skg_buf_addf(&gd_display, "%s/worktrees/%s", repo->common_dir_display, de->d_name);
		if (common == NULL || head.failed || gd_display.failed) {
			free(common);
			ret = skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
			break;
		}
		if (lw.is_current) {
			lw.head_ref = "HEAD";
			lw.git_dir = repo->git_dir;
			lw.git_dir_display = repo->git_dir_display;
			lw.common_dir_display = repo->common_dir_display;
			lw.common_dir = repo->common_dir;
		} else {
			lw.head_ref = head.p;
			lw.git_dir_display = gd_display.p;
			lw.common_dir_display = common;
			lw.common_dir = common;
		}
		ret = fn(ctx, &lw);
		free(common);
	}
	closedir(d);
	skg_buf_release(&dir);
	skg_buf_release(&head);
	skg_buf_release(&gd_display);
	return ret;
}

int skg_check_head(struct skg_refdb *db, const char *head_ref, struct skg_head *out,
                   const struct skg_sink *rep, struct skg_error *err)
{
	struct skg_buf keep = out->target; /* zeroed by the caller, or from an earlier call */
	memset(out, 0, sizeof(*out));
	out->target = keep;
	out->target.len = 0;
	skg_buf_add(&out->target, "", 0);
	int r = skg_resolve_ref(db, head_ref, 0, out->id, &out->target, &out->flags, err);
	if (r < 0) {
		return -1;
	}
	if (r == 0) {
		out->state = SKG_HEAD_INVALID;
		memset(out->id, 0, sizeof(out->id));
		skg_report(rep, SKG_LEVEL_ERROR, SKG_R_HEAD_INVALID, "invalid %s", head_ref);
		return 0;
	}
	const char *target = skg_buf_str(&out->target);
	bool detached = strcmp(target, head_ref) == 0;
	out->is_root = !skg_is_null_id_len(out->id, db->rawsz);
	if (!detached && !skg_starts_with(target, "refs/heads/")) {
		out->state = SKG_HEAD_STRANGE;
		skg_report(rep, SKG_LEVEL_ERROR, SKG_R_HEAD_STRANGE, "%s points to something strange (%s)",
		           head_ref, target);
		return 0;
	}
	out->state = detached ? SKG_HEAD_DETACHED : SKG_HEAD_BRANCH;
	if (skg_is_null_id_len(out->id, db->rawsz)) {
		if (detached) {
			out->state = SKG_HEAD_DETACHED_NULL;
			skg_report(rep, SKG_LEVEL_ERROR, SKG_R_HEAD_DETACHED_NULL,
			           "%s: detached HEAD points at nothing", head_ref);
		} else {
			out->state = SKG_HEAD_UNBORN;
			skg_report(rep, SKG_LEVEL_NOTICE, SKG_R_HEAD_UNBORN,
			           "%s points to an unborn branch (%s)", head_ref, target + 11);
		}
	}
	return 0;
}
