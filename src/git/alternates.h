/*
 * alternates.h - a repository's alternate object directories, in git's order.
 *
 * Part of the Git layer (src/git/, library sha1kit_git). Sources: Git's
 * Documentation/gitrepository-layout.txt (objects/info/alternates) and Documentation/git.txt
 * (GIT_ALTERNATE_OBJECT_DIRECTORIES). Behaviour checked against git 2.39.5.
 */
#ifndef SHA1KIT_GIT_ALTERNATES_H
#define SHA1KIT_GIT_ALTERNATES_H

#include "object.h"

struct skg_repo;

/*
 * Call fn(ctx, dir) for each alternate object directory, in git's order: the entries of
 * GIT_ALTERNATE_OBJECT_DIRECTORIES (separated by ':', relative to repo->git_cwd), then the
 * lines of <objects>/info/alternates (relative to that objects directory), each followed at once
 * by its own alternates, recursively to git's depth limit (an alternates file read at depth 6 is
 * ignored with an error). Lines starting with '#' are comments; an entry in double quotes is
 * C-unquoted. dir is absolute and without symbolic links; the repository's own objects directory
 * and entries already listed are skipped silently, missing directories with git's error. A
 * non-zero return of fn stops the walk and is returned; -1 is returned with err set on a fatal
 * error (out of memory).
 */
int skg_for_each_alternate(const struct skg_repo *repo, int (*fn)(void *ctx, const char *dir), void *ctx,
                           const struct skg_sink *rep, struct skg_error *err);

#endif /* SHA1KIT_GIT_ALTERNATES_H */
