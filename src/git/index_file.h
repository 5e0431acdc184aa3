/*
 * index_file.h - the index file (entries, cache tree, resolve-undo) as git fsck reads it.
 *
 * Part of the Git layer (src/git/, library sha1kit_git). Sources: Git's
 * Documentation/gitformat-index.txt (DIRC versions 2, 3, 4 with path prefix compression, the TREE
 * and REUC extensions, the trailing checksum). Order of use by fsck: refs.h.
 */
#ifndef SHA1KIT_GIT_INDEX_FILE_H
#define SHA1KIT_GIT_INDEX_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "object.h"

struct skg_repo;

/* ---- The index ------------------------------------------------------------------------------ */

#define SKG_CE_STAGEMASK     0x3000u
#define SKG_CE_EXTENDED      0x4000u
#define SKG_CE_VALID         0x8000u
#define SKG_CE_INTENT_TO_ADD (1u << 29)
#define SKG_CE_SKIP_WORKTREE (1u << 30)

struct skg_index_entry {
	const char *path; /* NUL-terminated, valid during the callback */
	size_t path_len;
	uint32_t mode; /* 0100644, 0100755, 0120000, 0160000 (gitlink), 040000 (sparse directory) */
	uint8_t id[SKG_MAX_RAWSZ]; /* rawsz bytes */
	unsigned stage;            /* 0..3 */
	uint32_t flags;            /* the 16-bit flags | extended flags << 16 (SKG_CE_*) */
	uint32_t size;             /* the stat size field */
	bool sparse_directory; /* mode 040000 in a sparse index (git expands these into the tree's files) */
};

struct skg_index_info {
	unsigned version; /* 2, 3 or 4 */
	uint32_t entries;
	uint8_t checksum[SKG_MAX_RAWSZ];               /* rawsz bytes */
	bool has_cache_tree, has_resolve_undo, sparse; /* "sdir" extension */
};

struct skg_index_callbacks {
	/* each entry in index order */
	int (*entry)(void *ctx, const struct skg_index_entry *e);
	/*
	 * each cache-tree node in git fsck's order (the root, then subtrees depth first, siblings by
	 * name length, then bytes); entry_count < 0 is an invalidated node (no ID: id is NULL). path is
	 * "" for the root, else "dir/sub". *descend is true on entry; set it to false to skip this
	 * node's subtrees (git fsck does not look below a node whose tree is no object).
	 */
	int (*cache_tree)(void *ctx, const char *path, int entry_count, int subtrees, const uint8_t *id,
	                  bool *descend);
	/* each resolve-undo path in strcmp order (the last record of a path wins); id[i] NULL if no mode */
	int (*resolve_undo)(void *ctx, const char *path, const uint32_t mode[3], const uint8_t *const id[3]);
	void *ctx;
	/* before the first entry, with what the file holds (info->sparse: the "sdir" extension); may
	 * be NULL */
	int (*begin)(void *ctx, const struct skg_index_info *info);
};

/*
 * Parse an index file in memory whose object IDs (and checksum) are rawsz bytes (20: SHA-1, 32:
 * SHA-256) as git fsck reads it (verified checksum and entry order): every
 * problem git dies on returns -1 with its message ("<name>: index file smaller than expected",
 * "index file corrupt" after an "error: bad signature 0x...", "error: bad index version N" or
 * "error: bad index file sha1 signature" report, "unknown index entry format 0x...",
 * "unordered stage entries in index", "multiple stage entries for merged file 'P'",
 * "unordered stage entries for 'P'", "malformed name field in the index, near path 'P'",
 * "cache-tree: internal error", and "index file corrupt" after "error: index uses xxxx extension,
 * which we do not understand" for an unknown extension whose name does not start with A-Z).
 * Diagnostics: plain "ignoring XXXX extension", errors "Index records invalid resolve-undo
 * information", "corrupt fsmonitor extension (too short)", "bad fsmonitor version N". The file is
 * checked completely before the first callback. Entries that run past the end of buf, which git
 * reads from whatever memory follows its mapping, give "index file corrupt". A split index ("link"
 * extension) needs its shared index file: here refused with a fatal error (skg_index_parse_file
 * reads it). Left out: the EWAH bitmap of the FSMN extension, the expansion of sparse directory
 * entries (passed as they are).
 */
int skg_index_parse(const uint8_t *buf, size_t len, const char *name, size_t rawsz,
                    const struct skg_index_callbacks *cb, struct skg_index_info *info,
                    const struct skg_sink *rep, struct skg_error *err);

/*
 * Read the index file at `path` as git's fsck does (read-cache.c read_index_from; `display`
 * names it in messages) and parse it as above, as git_version's Git (SKG_GIT_2_39 or SKG_GIT_2_55
 * of <sha1kit/git_fsck.h>: 2.40+ does not check a null trailing checksum, index.skipHash). A
 * missing file is an empty index (0 without callbacks); one that does not open or map gives git's
 * fatal message ("P: index file open failed: E", "P: unable to map index file: E" for a
 * directory). A split index ("link" extension, gitformat-index(5)) is merged with its shared index
 * DIR/sharedindex.<ID> beside it, as git merges them (split-index.c): the entries passed are the
 * merged ones, in order; git's fatal messages for a shared index that is missing, corrupt or not
 * the one named, or bitmaps that do not fit. Zeros past the end, as for skg_read_index().
 */
int skg_index_parse_file(const char *path, const char *display, size_t rawsz, unsigned git_version,
                         const struct skg_index_callbacks *cb, struct skg_index_info *info,
                         const struct skg_sink *rep, struct skg_error *err);

/*
 * Read repo->index_file and parse it as above (name in messages: repo->index_file_display). A
 * missing index is an empty one: returns 0 without callbacks, info->entries 0, version 0. As git
 * maps the file, a corrupt entry may read on into the zeros that fill the file's last page; they
 * are read here too, so that such a file gives git's message.
 */
int skg_read_index(const struct skg_repo *repo, const struct skg_index_callbacks *cb,
                   struct skg_index_info *info, const struct skg_sink *rep, struct skg_error *err);

#endif /* SHA1KIT_GIT_INDEX_FILE_H */
