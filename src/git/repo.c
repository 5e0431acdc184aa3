/*
 * repo.c - repository discovery and the repository format (repo.h).
 *
 * The rules follow git 2.39.5 (setup.c, path.c), checked by running git; the code is this
 * project's own.
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

#include "config.h"
#include "reftable.h"
#include "util.h"

const char *skg_repo_git_dir(const struct skg_repo *repo)
{
	return repo->git_dir;
}

const char *skg_repo_objects_dir(const struct skg_repo *repo)
{
	return repo->objects_dir;
}

const char *skg_repo_work_tree(const struct skg_repo *repo)
{
	return repo->work_tree;
}

/* The target of the loose symbolic ref in file `path` ("ref: X", or a symbolic link into refs/ as
 * HEAD may be), a new string; NULL when it is not one. */
static char *loose_symref(const char *path)
{
	struct stat st;
	char buf[512];
	if (lstat(path, &st) != 0) {
		return NULL;
	}
	if (S_ISLNK(st.st_mode)) {
		ssize_t n = readlink(path, buf, sizeof(buf) - 1);
		if (n < 5) {
			return NULL;
		}
		buf[n] = '\0';
		return strncmp(buf, "refs/", 5) == 0 ? strdup(buf) : NULL;
	}
	char *data = NULL;
	size_t len = 0;
	if (skg_read_file(path, 4096, &data, &len) != 0) {
		return NULL;
	}
	char *target = NULL;
	if (len > 5 && memcmp(data, "ref:", 4) == 0) {
		size_t at = 4;
		while (at < len && (data[at] == ' ' || data[at] == '\t')) {
			at++;
		}
		size_t end = at;
		while (end < len && data[end] != '\n' && data[end] != '\r' && data[end] != '\0') {
			end++;
		}
		target = end > at ? strndup(data + at, end - at) : NULL;
	}
	free(data);
	return target;
}

/* The branch this worktree's HEAD is on, without "refs/heads/" (git resolves HEAD through symbolic
 * refs, then strips the prefix: config.c include_by_branch), for the config's includeIf onbranch:; a
 * new string, NULL when HEAD is detached, unreadable or names no branch. */
static char *head_branch(const struct skg_repo *repo)
{
	char *target = NULL;
	if (repo->reftable) {
		char *dir = skg_path_join(repo->git_dir, "reftable");
		struct skg_reftable_stack *st = NULL;
		struct skg_error err;
		if (dir != NULL &&
		    skg_reftable_open(&st, dir, dir, skg_format_rawsz(repo->object_format), &err) == 0) {
			const struct skg_reftable_ref *r = skg_reftable_find(st, "HEAD");
			if (r != NULL && r->type == SKG_REFTABLE_SYMREF && r->target != NULL) {
				target = strdup(r->target);
			}
			skg_reftable_free(st);
		}
		free(dir);
	} else {
		char *path = skg_path_join(repo->git_dir, "HEAD");
		target = path != NULL ? loose_symref(path) : NULL;
		free(path);
		/* a branch that is itself a symbolic ref: its target (git's resolve_ref_unsafe, which
		 * gives up after 5 levels) */
		for (int depth = 0; target != NULL && depth < 5; depth++) {
			char *next_path = skg_path_join(repo->common_dir, target);
			char *next = next_path != NULL ? loose_symref(next_path) : NULL;
			free(next_path);
			if (next == NULL) {
				break;
			}
			free(target);
			target = next;
		}
	}
	char *branch = NULL;
	if (target != NULL && strncmp(target, "refs/heads/", 11) == 0) {
		branch = strdup(target + 11);
	}
	free(target);
	return branch;
}

int skg_repo_config(const struct skg_repo *repo, skg_config_fn fn, void *ctx, struct skg_error *err)
{
	struct skg_config_files files = {repo->common_dir, repo->common_dir_display, NULL,          NULL,
	                                 repo->git_dir,    repo->git_dir_display,    repo->git_cwd, NULL};
	if (repo->worktree_config) {
		files.git_dir = repo->git_dir;
		files.git_dir_display = repo->git_dir_display;
	}
	char *branch = head_branch(repo);
	files.head_branch = branch;
	int ret = skg_config_read_all(&files, fn, ctx, err);
	free(branch);
	return ret;
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
		char *copy = strdup(env);
		if (copy == NULL) {
			skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
		}
		return copy;
	}
	char *path = skg_path_join(gitdir, "commondir");
	if (path == NULL) {
		skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
		return NULL;
	}
	struct stat st;
	if (stat(path, &st) != 0) {
		free(path);
		char *copy = strdup(gitdir);
		if (copy == NULL) {
			skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
		}
		return copy;
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
	char *joined = data[0] == '/' ? strdup(data) : skg_path_join(gitdir, data);
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
	char *head = skg_path_join(suspect, "HEAD");
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
	char *objects = objenv ? strdup(objenv) : skg_path_join(common, "objects");
	char *refs = skg_path_join(common, "refs");
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
	bool allow_sha256;         /* the caller handles SHA-256 repositories (skg_repo_open_formats) */
	bool compat_object_format; /* extensions.compatObjectFormat (2.55 only) */
	bool reftable;
	char *refstorage_payload;       /* the PATH of "FORMAT://PATH" */
	struct skg_buf unknown, v1only; /* "\n\t<ext>" per extension */
	struct skg_error *err;
	bool failed;
	bool refused; /* the format check failed (setup.c verify_repository_format) */
	const struct skg_sink *rep;
	unsigned git_version; /* SKG_GIT_2_39: the extensions 2.39.5 knows only */
};

/*
 * extensions.refStorage as git 2.55.0's setup.c handle_extension reads it: a v1-only extension,
 * "FORMAT" or "FORMAT://PAYLOAD" (parse_reference_uri), FORMAT one of refs.c's backends ("files",
 * "reftable"; case matters), else git's error for the whole value.
 */
static int refstorage(struct format_ctx *f, const char *key, const char *value)
{
	if (value == NULL) {
		skg_report(f->rep, SKG_LEVEL_ERROR, SKG_R_SETUP, "missing value for '%s'", key);
		return -1;
	}
	const char *schema_end = strstr(value, "://");
	size_t flen = schema_end != NULL ? (size_t)(schema_end - value) : strlen(value);
	if (flen == 5 && strncmp(value, "files", 5) == 0) {
		f->reftable = false;
	} else if (flen == 8 && strncmp(value, "reftable", 8) == 0) {
		f->reftable = true;
	} else {
		skg_report(f->rep, SKG_LEVEL_ERROR, SKG_R_SETUP, "invalid value for '%s': '%s'",
		           "extensions.refstorage", value);
		return -1;
	}
	free(f->refstorage_payload);
	f->refstorage_payload = schema_end != NULL ? strdup(schema_end + 3) : NULL;
	if (schema_end != NULL && f->refstorage_payload == NULL) {
		skg_fail_sys(f->err, SKG_E_NOMEM, ENOMEM, "out of memory");
		f->failed = true;
		return 1;
	}
	skg_buf_addf(&f->v1only, "\n\t%s", "refstorage");
	return 0;
}

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
		/* the v1 extensions git 2.39.5 does not know (setup.c handle_extension: refstorage
		 * 2.44, compatobjectformat 2.45, relativeworktrees 2.48, submodulepathconfig 2.54) */
		bool current = f->git_version >= SKG_GIT_2_55;
		if (current && !strcmp(ext, "refstorage")) {
			return refstorage(f, key, value);
		}
		if (current && (!strcmp(ext, "relativeworktrees") || !strcmp(ext, "submodulepathconfig"))) {
			/* booleans that change how worktrees and submodules are named, not what fsck
			 * reads: absolute and relative worktree links are followed alike */
			if (skg_config_bool(value) < 0) {
				skg_fail(f->err, "bad boolean config value '%s' for '%s'", value ? value : "",
				         key);
				f->failed = true;
				return 1;
			}
			skg_buf_addf(&f->v1only, "\n\t%s", ext);
			return 0;
		}
		if (current && !strcmp(ext, "compatobjectformat")) {
			if (value == NULL) {
				skg_report(f->rep, SKG_LEVEL_ERROR, SKG_R_SETUP, "missing value for '%s'",
				           key);
				return -1;
			}
			if (strcmp(value, "sha1") != 0 && strcmp(value, "sha256") != 0) {
				skg_report(f->rep, SKG_LEVEL_ERROR, SKG_R_SETUP,
				           "invalid value for '%s': '%s'", "extensions.compatobjectformat",
				           value);
				return -1;
			}
			f->compat_object_format = true;
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
	f->reftable = false;
	f->compat_object_format = false;
	free(f->refstorage_payload);
	f->refstorage_payload = NULL;
	int ret = skg_config_read_file(config_path, f->name, format_cb, f, err);
	if (ret != 0 && err != NULL && err->code == SKG_E_GIT && err->sys_errno != 0) {
		/* git's fopen_or_warn warns at each of its reads of the file before one dies: a directory
		 * is opened, read by none, and read three times (the format, the early config, the config)
		 * before git_config's "unknown error"; a file it may not read stops the first read */
		int reads = err->sys_errno == EISDIR ? 3 : 1;
		for (int i = 0; i < reads; i++) {
			/* the reads after setup name it in the git dir git set: "." (a bare repository) is
			 * left out ("./config" at discovery, "config" after) */
			const char *name = i > 0 && strncmp(f->name, "./", 2) == 0 ? f->name + 2 : f->name;
			skg_report(f->rep, SKG_LEVEL_WARNING, SKG_R_SETUP, "unable to access '%s': %s", name,
			           strerror(err->sys_errno));
		}
		if (err->sys_errno == EISDIR) {
			skg_fail(err, "unknown error occurred while reading the configuration files");
		}
		return -1;
	}
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
		f->compat_object_format = false;
		f->reftable = false;
		free(f->refstorage_payload);
		f->refstorage_payload = NULL;
		return 0;
	}
	f->refused = true; /* until the checks below pass */
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
	f->refused = false;
	if (f->objectformat_sha256 && !f->allow_sha256) {
		return skg_fail_sys(err, SKG_E_UNSUPPORTED, 0,
		                    "unsupported repository: extensions.objectFormat is sha256 in %s "
		                    "(this caller reads SHA-1 repositories only)",
		                    f->name);
	}
	if (f->compat_object_format) {
		return skg_fail_sys(err, SKG_E_UNSUPPORTED, 0,
		                    "unsupported repository: extensions.compatObjectFormat is set in %s "
		                    "(sha1kit reads no object ID translation)",
		                    f->name);
	}
	if (f->refstorage_payload != NULL) {
		return skg_fail_sys(
		    err, SKG_E_UNSUPPORTED, 0,
		    "unsupported repository: extensions.refStorage names a ref store in another "
		    "place (%s) in %s (sha1kit reads refs from the repository itself only)",
		    f->refstorage_payload, f->name);
	}
	return 0;
}

static void format_release(struct format_ctx *f)
{
	free(f->work_tree);
	free(f->refstorage_payload);
	skg_buf_release(&f->unknown);
	skg_buf_release(&f->v1only);
}

/* ---- Opening ------------------------------------------------------------------------------- */

void skg_repo_free(struct skg_repo *repo)
{
	if (repo == NULL) {
		return;
	}
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
	char *j = skg_path_join(base, path);
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
	/* the repository being looked at, as git's later discovery spells it from the top of its work
	 * tree (".git", "." for a bare one, a .git file's target as read): "ignoring git dir" */
	char *discovered; /* owned (NULL when out of memory: no such line) */
	bool not_found;   /* the discovery found no repository */
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
		/* git's repo_set_gitdir: "%s/objects" of the common directory as given ("r/.git/" gives
		 * "r/.git//objects", the spelling of its lines) */
		struct skg_buf objs = {0};
		skg_buf_addf(&objs, "%s/objects", r->common_dir_display ? r->common_dir_display : "");
		if (objs.failed) {
			skg_buf_release(&objs);
		}
		r->objects_dir_display = objs.p;
		r->objects_dir = skg_path_join(r->common_dir ? r->common_dir : "", "objects");
	}
	const char *idxenv = getenv("GIT_INDEX_FILE");
	if (idxenv != NULL) {
		r->index_file_display = strdup(idxenv);
		r->index_file = real_relative_to(r->git_cwd, idxenv);
		if (r->index_file == NULL && (errno == ENOENT || errno == ENOTDIR)) {
			/* in a directory that does not exist: git reads no index there (fsck checks as
			 * without one); the path as given, from where git was started */
			r->index_file = idxenv[0] == '/' ? strdup(idxenv) : skg_path_join(r->git_cwd, idxenv);
		}
	} else {
		r->index_file_display = skg_path_join(r->git_dir_display, "index");
		r->index_file = skg_path_join(r->git_dir, "index");
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
	char *cfg = skg_path_join(common, "config");
	char *cfg_name = skg_path_join(has_common ? common : spelled, "config");
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
		char *wcfg = skg_path_join(gitdir, "config.worktree");
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
	s->repo->reftable = s->fmt.reftable;
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
	} else if (!skg_env_bool("GIT_IMPLICIT_WORK_TREE", true)) {
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
	if (!skg_env_bool("GIT_TEST_ASSUME_DIFFERENT_OWNER", false) &&
	    (gitfile == NULL || owned_by_me(gitfile)) && (worktree == NULL || owned_by_me(worktree)) &&
	    (gitdir == NULL || owned_by_me(gitdir))) {
		return 0;
	}
	struct safe_dir sd = {top, false};
	struct skg_error cerr;
	if (skg_config_read_outer(safe_dir_cb, &sd, &cerr) == 0 && sd.safe) {
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
	bool one_fs = !skg_env_bool("GIT_DISCOVERY_ACROSS_FILESYSTEM", false);
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
			char *gd = g > 0 ? target : skg_path_join(top, ".git");
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
			free(s->discovered);
			s->discovered = strdup(g > 0 ? gd : ".git");
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
			free(s->discovered);
			s->discovered = strdup(".");
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
			s->not_found = true;
			break;
		}
		while (--off > ceil && dir.p[off] != '/') {
		}
		if (off <= ceil) {
			ret = skg_fail(s->err, "not a git repository (or any of the parent directories): %s",
			               ".git");
			s->not_found = true;
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
				s->not_found = true;
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
	SKG_ERR_OR_LOCAL(err);
	return skg_repo_open_as(out, git_dir_arg, SKG_GIT_2_55, rep, err);
}

/* gently: git's gentle set-up (skg_repo_open_gently) */
static int repo_open(struct skg_repo **out, const char *git_dir_arg, unsigned git_version, bool allow_sha256,
                     bool gently, const struct skg_sink *rep, struct skg_error *err)
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
	struct open_state s = {.repo = r,
	                       .rep = rep,
	                       .err = err,
	                       .fmt.git_version = git_version,
	                       .fmt.allow_sha256 = allow_sha256};
	const char *gitdir = git_dir_arg ? git_dir_arg : getenv("GIT_DIR");
	int ret = gitdir != NULL ? open_explicit(&s, gitdir, true) : open_discovered(&s);
	if (ret == 0) {
		/* rev-parse --is-bare-repository: no work tree, and core.bare is not false */
		r->bare = r->work_tree == NULL && cfg_bare(&s) != 0;
		r->object_format = s.fmt.objectformat_sha256 ? SKG_FORMAT_SHA256 : SKG_FORMAT_SHA1;
	}
	if (ret != 0 && gently && s.fmt.refused && err != NULL && err->code == SKG_E_GIT) {
		/* setup.c check_repository_format_gently: a warning, then as outside a repository;
		 * a discovered one is looked at once more by read_early_config's discovery */
		skg_report(rep, SKG_LEVEL_WARNING, SKG_R_SETUP, "%s", err->msg);
		if (gitdir == NULL && s.discovered != NULL) {
			skg_report(rep, SKG_LEVEL_WARNING, SKG_R_SETUP_IGNORED, "ignoring git dir '%s': %s",
			           s.discovered, err->msg);
		}
		ret = 0;
		skg_repo_free(r);
		r = NULL;
	} else if (ret != 0 && gently && s.not_found) {
		ret = 0; /* outside a repository */
		skg_repo_free(r);
		r = NULL;
	}
	free(s.discovered);
	format_release(&s.fmt);
	if (ret != 0) {
		skg_repo_free(r);
		return -1;
	}
	*out = r;
	return 0;
}

int skg_repo_open_as(struct skg_repo **out, const char *git_dir_arg, unsigned git_version,
                     const struct skg_sink *rep, struct skg_error *err)
{
	SKG_ERR_OR_LOCAL(err);
	return repo_open(out, git_dir_arg, git_version, false, false, rep, err);
}

int skg_repo_open_formats(struct skg_repo **out, const char *git_dir_arg, unsigned git_version,
                          const struct skg_sink *rep, struct skg_error *err)
{
	SKG_ERR_OR_LOCAL(err);
	return repo_open(out, git_dir_arg, git_version, true, false, rep, err);
}

int skg_repo_open_gently(struct skg_repo **out, unsigned git_version, const struct skg_sink *sink,
                         struct skg_error *err)
{
	SKG_ERR_OR_LOCAL(err); /* (the refused format's message is needed for the warnings) */
	return repo_open(out, NULL, git_version, true, true, sink, err);
}

unsigned skg_repo_object_format(const struct skg_repo *repo)
{
	return repo->object_format;
}
