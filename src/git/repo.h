/*
 * repo.h - finding a Git repository as git does: its directories, its format, its config files.
 *
 * Part of the Git layer (src/git/, library sha1kit_git). Sources: Git's
 * Documentation/gitrepository-layout.txt (the files of $GIT_DIR: HEAD, objects/, refs/, commondir,
 * worktrees/, objects/info/alternates, config, config.worktree), Documentation/git.txt
 * ("ENVIRONMENT VARIABLES": GIT_DIR, GIT_WORK_TREE, GIT_COMMON_DIR, GIT_OBJECT_DIRECTORY,
 * GIT_INDEX_FILE, GIT_CEILING_DIRECTORIES, GIT_DISCOVERY_ACROSS_FILESYSTEM),
 * Documentation/technical/repository-version.txt and Documentation/config/extensions.txt
 * (core.repositoryformatversion, extensions.*). The config language is config.h's, alternates are
 * alternates.h's, grafts grafts.h's.
 * Behaviour checked against git 2.39.5.
 *
 * This module does file I/O (stat, open, read, opendir, realpath, getcwd) but never prints, never
 * exits and keeps no global state: a failure that git treats as fatal (git prints "fatal: MSG" and
 * exits 128) comes back as a negative return value with MSG in a struct skg_error; diagnostics git
 * prints and goes on after ("error: ...", "warning: ...", "notice: ...") go to a reporter callback
 * with git's exact words, so that a command can print them as git does.
 */
#ifndef SHA1KIT_GIT_REPO_H
#define SHA1KIT_GIT_REPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "object.h"

/* ---- The repository ------------------------------------------------------------------------- */

/*
 * A repository as git finds it. Every path is a NUL-terminated heap string owned by the struct.
 * The *_dir, work_tree and index_file fields are absolute and free of symbolic links, "." and
 * ".." (what `git rev-parse --absolute-git-dir` etc. print). The *_display fields are the same
 * paths as git itself spells them in its messages after its setup (it changes into the top of the
 * work tree first), e.g. ".git" for a repository found from inside its work tree, "." inside a
 * bare repository, the GIT_DIR value as given: git fsck prints "bad ref for .git/logs/x..y" and
 * "unexpected line in .git/packed-refs: ...".
 */
struct skg_repo {
	char *git_dir;     /* $GIT_DIR: HEAD, index, logs/HEAD, per-worktree refs */
	char *common_dir;  /* $GIT_COMMON_DIR: refs/, packed-refs, logs/refs/, config, worktrees/ */
	char *objects_dir; /* GIT_OBJECT_DIRECTORY or <common>/objects */
	char *work_tree;   /* NULL without a work tree */
	char *index_file;  /* GIT_INDEX_FILE or <git_dir>/index */
	char *git_dir_display;
	char *common_dir_display;
	char *objects_dir_display;
	char *index_file_display;
	char *cwd;              /* the directory the search started from (getcwd) */
	char *git_cwd;          /* where git runs after its setup (the top of the work tree when cwd is
	                         * inside it, else cwd): relative *_display paths are relative to it */
	bool bare;              /* what `git rev-parse --is-bare-repository` prints */
	bool worktree_config;   /* extensions.worktreeConfig: <git_dir>/config.worktree is read */
	bool reftable;          /* extensions.refStorage = reftable: refs and reflogs in reftables
	                         * (<common>/reftable, <git_dir>/reftable of a linked worktree) */
	int format_version;     /* core.repositoryformatversion, -1 when not set */
	unsigned object_format; /* SKG_FORMAT_SHA1, or SKG_FORMAT_SHA256 (skg_repo_open_formats only) */
};

/*
 * Find and open the repository as git does (git 2.39.5 setup.c), without changing the process's
 * working directory:
 *  - git_dir_arg (as `git --git-dir=D`) if not NULL, else the GIT_DIR environment variable: that
 *    directory (or the repository a ".git" file there names) must be a repository;
 *  - else discovery upwards from the current directory: in each directory first ".git" (a
 *    directory that is a repository, or a file "gitdir: PATH", PATH relative to the file's
 *    directory), then the directory itself as a bare repository (HEAD that is "ref: refs/..." or
 *    a hex object ID or a symbolic link into refs/, plus objects/ and refs/), then the parent, up
 *    to the root, a GIT_CEILING_DIRECTORIES entry, or (unless GIT_DISCOVERY_ACROSS_FILESYSTEM is
 *    true) a change of file system.
 * A directory is a repository by the test above, with objects/ and refs/ looked up in its common
 * directory (the "commondir" file of a linked worktree, or GIT_COMMON_DIR).
 * Then the repository format is checked as git does (<common>/config: core.repositoryformatversion
 * at most 1, no unknown extension with version 1, no v1-only extension with version 0) and, beyond
 * git 2.39.5, extensions.objectFormat=sha256 is refused (this library handles SHA-1 only).
 * extensions.refStorage (a v1-only extension since git 2.45) is read as git 2.55.0's setup.c reads
 * it: "files" or "reftable" (repo->reftable), any other format "error: invalid value for
 * 'extensions.refstorage': 'VALUE'" and git's "bad config line" fatal error; a ref store in another
 * place ("reftable://PATH", "files://PATH", git 2.55) is refused with one line. The work
 * tree follows GIT_WORK_TREE, core.bare, core.worktree and the discovery as git's does.
 * On success *out is a new repository (free with skg_repo_free) and 0 is returned; on failure -1
 * with git's fatal message in err ("not a git repository (or any of the parent directories): .git"
 * etc.). Warnings git prints during setup go to rep.
 * A repository found upwards must belong to the current user unless safe.directory allows it (git
 * 2.39.5's ownership check). Left out: safe.bareRepository, GIT_DIR spellings past git's PATH_MAX
 * check.
 */
int skg_repo_open(struct skg_repo **out, const char *git_dir_arg, const struct skg_sink *rep,
                  struct skg_error *err);

void skg_repo_free(struct skg_repo *repo);

/*
 * Every config entry git sees in this repository, in git's order (skg_config_read_all, config.h):
 * the system and global files, the repository's <common>/config, <git_dir>/config.worktree with
 * extensions.worktreeConfig, then GIT_CONFIG_COUNT/GIT_CONFIG_KEY_<n>/GIT_CONFIG_VALUE_<n>.
 */
int skg_repo_config(const struct skg_repo *repo, skg_config_fn fn, void *ctx, struct skg_error *err);

#endif /* SHA1KIT_GIT_REPO_H */
