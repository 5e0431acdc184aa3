/*
 * refs_verify.h - what the repository check (fsck_config.c) shares with refs_verify.c, the Git
 * layer's `git refs verify` (<sha1kit/git_refs.h>).
 *
 * Part of the Git layer (src/git/, library sha1kit_git). Source: Git 2.55.0's fsck.h
 * (FOREACH_FSCK_MSG_ID).
 */
#ifndef SHA1KIT_GIT_REFS_VERIFY_H
#define SHA1KIT_GIT_REFS_VERIFY_H

#include <stdbool.h>
#include <stddef.h>

#include "fsck_object.h"

/* Is id (any ASCII case, as a config key has it) a message ID of Git 2.55's fsck.h that Git
 * 2.39.5's lacks: the ref messages (badRefName, refMissingNewline, ...) and badGpgsig,
 * badHeaderContinuation, largePathname? `fsck.<id>` of these is known to git 2.55's fsck. */
bool skg_refs_msg_newer_id(const char *id);
/* The i-th of the ref check's message IDs (Git 2.55.0's fsck.h, refs), with its default
 * severity; NULL past the last. */
const char *skg_refs_msg_at(size_t i, enum skg_fsck_severity *severity);

#endif /* SHA1KIT_GIT_REFS_VERIFY_H */
