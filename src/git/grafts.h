/*
 * grafts.h - the commits whose parents git replaces: the graft file and shallow commits.
 *
 * Part of the Git layer (src/git/, library sha1kit_git). Sources: Git's
 * Documentation/gitrepository-layout.txt (info/grafts, shallow). Behaviour checked against git
 * 2.39.5.
 */
#ifndef SHA1KIT_GIT_GRAFTS_H
#define SHA1KIT_GIT_GRAFTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "object.h"

struct skg_repo;

/* A commit whose parents git replaces: by the graft file's list, or by none (a shallow commit). */
struct skg_graft {
	uint8_t id[SKG_MAX_RAWSZ]; /* rawsz bytes, then zeros */
	size_t nparents;           /* parents[0 .. nparents) */
	uint8_t *parents;          /* nparents * rawsz bytes (NULL when none) */
	bool shallow;              /* from the shallow file (git has the ID in memory as a commit from
	                            * its set-up on: register_shallow's lookup_commit) */
};

struct skg_grafts {
	struct skg_graft *v; /* sorted by id, no duplicates */
	size_t n;
	size_t rawsz; /* bytes of an ID: the repository's (20, or 32 for SHA-256) */
	/* the graft file's commits in the order git registered them (not a bad or duplicate line):
	 * n_file IDs of rawsz bytes. register_commit_graft's unparse_commit looks each up (makes it
	 * in git's object table) where git reads the file, at its first parse of a commit */
	uint8_t *file_ids;
	size_t n_file;
};

/*
 * The grafts git applies when it parses commits (commit.c prepare_commit_graft, shallow.c
 * is_repository_shallow): the graft file (GIT_GRAFT_FILE, else <common>/info/grafts: per line
 * "COMMIT [PARENT]...", hex IDs separated by one blank; empty lines and '#' lines skipped; a bad
 * line is "error: bad graft data: LINE", a second graft of a commit "error: duplicate graft data:
 * LINE", both ignored), then <common>/shallow (one commit per line: its parents are cut, replacing
 * any graft). When the graft file exists git first prints its deprecation hint (reports
 * SKG_R_GRAFT_DEPRECATED, one per line) in the words of `hint_git` (SKG_GIT_2_39 or
 * SKG_GIT_2_55 of <sha1kit/git_fsck.h>), or none when it is 0 (advice.graftFileDeprecated false).
 * Returns 0 (out filled; free with skg_grafts_free), or -1 with err set: a shallow line that is
 * not an ID, where git dies ("bad shallow line: LINE"), or out of memory.
 */
int skg_repo_grafts(const struct skg_repo *repo, unsigned hint_git, struct skg_grafts *out,
                    const struct skg_sink *rep, struct skg_error *err);

/* The graft of commit `id`, or NULL. */
const struct skg_graft *skg_graft_find(const struct skg_grafts *g, const uint8_t *id);

void skg_grafts_free(struct skg_grafts *g);

#endif /* SHA1KIT_GIT_GRAFTS_H */
