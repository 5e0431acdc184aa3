/*
 * fsck_lost.c - git's --lost-found in a repository check (fsck_run.h; git 2.39.5 builtin/fsck.c
 * check_unreachable_object): each dangling object written into <common dir>/lost-found/, with git's
 * lines where that fails (and its death where git dies).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsck_run.h"
#include "repo.h"

/* mkdir that accepts an existing directory */
static int make_dir(const char *path)
{
#if defined(_WIN32)
	int r = mkdir(path);
#else
	int r = mkdir(path, 0777);
#endif
	return r == 0 || errno == EEXIST ? 0 : -1;
}

/* A directory of lost-found: made, or there already (a file in its place is a failure). */
static bool lost_found_dir(const char *path)
{
	struct stat st;
	return make_dir(path) == 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Write data[0..len) to fp; false with errno set. */
static bool write_all(FILE *fp, const uint8_t *data, size_t len)
{
	return fwrite(data, 1, len, fp) == len;
}

/*
 * git's --lost-found: a dangling commit goes to <git_dir>/lost-found/commit/ID and anything else
 * to lost-found/other/ID, holding the blob's content or "ID\n" (builtin/fsck.c
 * check_unreachable_object). Where the directories cannot be made git says "could not create
 * lost-found" and goes on. A file that is already there is opened and overwritten as git does (a
 * symbolic link is followed; one that cannot be opened makes git die); a new one is written under
 * a temporary name and renamed, so that no partial file is left. Returns false when git dies.
 */
bool skg_fsck_write_lost_found(struct skg_fsck_run *f, unsigned type, const uint8_t *id)
{
	char h[SKG_MAX_HEXSZ + 1];
	skg_to_hex_len(id, f->rawsz, h);
	struct skg_buf dir = {0}, path = {0}, tmp = {0};
	uint8_t *data = NULL;
	size_t len = 0;
	bool ok = true;
	/* git_path(): the git directory, a '/', the name, without a leading "./" (strbuf_cleanup_path);
	 * lost-found is one of the paths of the common directory (path.c common_list): from a linked
	 * worktree, the main repository's */
	const char *gd = f->repo->common_dir_display;
	size_t gl = strlen(gd);
	skg_buf_addf(&dir, "%s%slost-found", gd, gl > 0 && gd[gl - 1] == '/' ? "" : "/");
	if (strncmp(skg_buf_str(&dir), "./", 2) == 0) {
		const char *rest = skg_buf_str(&dir) + 2;
		struct skg_buf d2 = {0};
		skg_buf_adds(&d2, rest);
		skg_buf_release(&dir);
		dir = d2;
	}
	bool made = lost_found_dir(skg_buf_str(&dir));
	skg_buf_addf(&dir, "/%s", type == SKG_COMMIT ? "commit" : "other");
	if (!made || !lost_found_dir(skg_buf_str(&dir))) {
		skg_fsck_err_line(f, NULL, "error: could not create lost-found");
		goto out;
	}
	skg_buf_addf(&path, "%s/%s", skg_buf_str(&dir), h);
	if (type == SKG_BLOB) {
		uint32_t seq;
		uint64_t where;
		int got = skg_fsck_read_blob(f, id, UINT64_MAX / 2, &data, &len, &seq, &where);
		if (got == -2) {
			skg_fsck_nomem(f);
			ok = false;
			goto out;
		}
		if (got != 0) {
			/* git's stream of the blob fails: it dies */
			skg_fsck_err_line(f, NULL, "fatal: could not write '%s': %s", skg_buf_str(&path),
			                  strerror(EIO));
			ok = false;
			goto out;
		}
	}
	struct stat st;
	bool exists = lstat(skg_buf_str(&path), &st) == 0;
	if (!exists) {
		skg_buf_addf(&tmp, "%s/.tmp-%s-%ld", skg_buf_str(&dir), h, (long)getpid());
	}
	const char *open_path = exists ? skg_buf_str(&path) : skg_buf_str(&tmp);
	FILE *fp = fopen(open_path, "wb");
	if (fp == NULL) {
		skg_fsck_err_line(f, NULL, "fatal: could not open '%s' for writing: %s", skg_buf_str(&path),
		                  strerror(errno));
		ok = false;
		goto out;
	}
	char line[SKG_MAX_HEXSZ + 2];
	snprintf(line, sizeof(line), "%s\n", h);
	bool written = type == SKG_BLOB ? write_all(fp, data, len)
	                                : write_all(fp, (const uint8_t *)line, (2 * f->rawsz) + 1);
	int e = written ? 0 : errno;
	if (!written) {
		(void)fclose(fp);
		skg_fsck_err_line(f, NULL, "fatal: could not write '%s': %s", skg_buf_str(&path),
		                  strerror(e != 0 ? e : EIO));
		ok = false;
	} else if (fclose(fp) != 0) {
		skg_fsck_err_line(f, NULL, "fatal: could not finish '%s': %s", skg_buf_str(&path),
		                  strerror(errno));
		ok = false;
	} else if (!exists && rename(skg_buf_str(&tmp), skg_buf_str(&path)) != 0) {
		skg_fsck_err_line(f, NULL, "fatal: could not finish '%s': %s", skg_buf_str(&path),
		                  strerror(errno));
		ok = false;
	}
	if (!ok && !exists) {
		(void)remove(skg_buf_str(&tmp));
	}
out:
	free(data);
	skg_buf_release(&dir);
	skg_buf_release(&path);
	skg_buf_release(&tmp);
	return ok;
}
