/*
 * sha1kit/git_refs.h - check a repository's ref database as `git refs verify` does (Git 2.47 and
 * later; checks, wording, order and exit status of Git 2.55.0: refs/files-backend.c files_fsck,
 * refs/packed-backend.c packed_fsck, refs.c refs_fsck_ref / refs_fsck_symref, builtin/refs.c
 * cmd_refs_verify, fsck.c fsck_report_ref; message IDs in git-config(1), "fsck.<msg-id>").
 *
 * Git 2.55's `git fsck` runs this check first, as a child process (`git refs verify`), and sets its
 * exit bit 8 when it fails; Git 2.39 has no such check.
 */
#ifndef SHA1KIT_GIT_REFS_API_H
#define SHA1KIT_GIT_REFS_API_H

#include <sha1kit/git.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The options of `git refs verify`:
 *   strict   --strict: messages of default severity "warn" become errors (of the ref messages only
 *            badReftableTableName is one; the "info" ones, such as refMissingNewline, stay warnings)
 *   verbose  --verbose: git's progress lines ("Checking references consistency", "Checking REF",
 *            "Checking packed-refs file PATH"), as records of level SKG_LEVEL_PLAIN and id 0
 */
struct skg_refs_verify_options {
	bool strict;
	bool verbose;
};

/*
 * Check the refs of every worktree of repo (the main one first, then <common>/worktrees/<id> in
 * directory order, as git's get_worktrees): each loose ref below refs/ in directory order (a
 * depth-first walk that does not follow symbolic links; names ending in ".lock" are skipped), then
 * the root refs of the worktree's git directory (HEAD, ORIG_HEAD, ...: names of capitals, '-' and
 * '_' ending in "_HEAD", and HEAD, AUTO_MERGE, BISECT_EXPECTED_REV, NOTES_MERGE_PARTIAL,
 * NOTES_MERGE_REF, MERGE_AUTOSTASH), then, for the main worktree, packed-refs. The repository's
 * config gives fsck.<msg-id> severities (error, warn, ignore). In a reftable repository
 * (extensions.refStorage = reftable) each worktree's stack instead: the name of every table in its
 * tables.list (badReftableTableName), then every ref record of the merged stack in name order (a
 * null object ID, a symbolic ref's target).
 *
 * Findings come to sink in git's order as records of level SKG_LEVEL_ERROR or SKG_LEVEL_WARNING,
 * id SKG_R_FSCK, msg_id git's ID (badRefName, badRefContent, badRefFiletype, badRefOid,
 * badReferentName, badHeadTarget, symrefTargetIsNotARef, refMissingNewline, trailingRefContent,
 * symlinkRef, badPackedRefHeader, badPackedRefEntry, packedRefEntryNotTerminated,
 * packedRefUnsorted, emptyPackedRefsFile), text "PATH: msgId: MESSAGE" as git prints it after
 * "error: " or "warning: " (PATH a ref name, "packed-refs", "packed-refs.header" or "packed-refs
 * line N"), and exit_bits 8 for an error (git fsck's bit for refs; 0 for a warning). Files that cannot be
 * read give git's error lines ("cannot read ref file 'PATH': REASON", msg_id NULL) or warnings ("error
 * opening directory 'PATH/': REASON").
 *
 * Returns 0 when no error was reported (warnings may have been), 1 when one was (git's command
 * then exits with status 255), -1 on a failure of the run: err is SKG_E_NOMEM, SKG_E_IO (the
 * config cannot be read), SKG_E_GIT with git's fatal message (a bad fsck.<msg-id> setting:
 * "Unhandled message id: ID", "Unknown fsck message type: 'VALUE'"; a symbolic link under refs/
 * whose target path cannot be resolved: "Invalid path 'PATH': REASON"; a reftable table that does
 * not read: one line naming it, where git 2.55 crashes), SKG_E_USAGE (repo NULL).
 * opt may be NULL: the defaults (as skg_refs_verify_options zeroed). Thread-safe for distinct
 * sinks; repo is only read.
 */
int skg_refs_verify(struct skg_repo *repo, const struct skg_refs_verify_options *opt,
                    const struct skg_sink *sink, struct skg_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SHA1KIT_GIT_REFS_API_H */
