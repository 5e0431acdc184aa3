/*
 * fsck_object.h - the per-object checks of `git fsck` (message IDs, severities, tree/commit/tag
 * syntax), and the link parsers that connectivity needs (tree entries, a commit's tree and parents,
 * a tag's target), sharing one tree decoder and one set of line/hex helpers.
 *
 * Part of the Git layer (src/git/, library sha1kit_git). Sources, Git v2.39.5 (facts, not code):
 *   - fsck.h: the list of message IDs and their default severities (FOREACH_FSCK_MSG_ID), the
 *     severity kinds (ignore, info, fatal, error, warn);
 *   - fsck.c: fsck_tree, fsck_commit, fsck_tag_standalone, fsck_ident, verify_headers,
 *     verify_ordered, fsck_blob, fsck_gitmodules_fn, check_submodule_url, fsck_set_msg_type,
 *     report();
 *   - submodule-config.c: check_submodule_name; submodule.c: parse_submodule_update_type; url.c:
 *     url_decode_mem; credential.c: credential_from_url_gently; config.c: git_config_from_mem,
 *     parse_config_key (the parser itself is skg_config_parse_blob, src/git/repo.h);
 *   - builtin/fsck.c: fsck_error_func ("error in %s %s: %s" / "warning in %s %s: %s"), fsck_obj,
 *     fsck_loose (parse, walk, check, in that order);
 *   - tree-walk.c: decode_tree_entry, tree_entry_gently; commit.c: parse_commit_buffer; tag.c:
 *     parse_tag_buffer; path.c: is_ntfs_dot*; utf8.c: is_hfs_dot*; refs.c: check_refname_format;
 *     date.c: date_overflows (timestamps are parsed as strtoumax does, in the C locale git uses).
 *
 * No I/O, no global mutable state. Nothing is allocated but the config parser's buffers for a
 * .gitmodules blob (skg_fsck_special_blob; should an allocation fail, the blob counts as one that
 * does not parse) and, with newer_checks, the normal form of a submodule URL (3 bytes per byte of
 * it; should that fail, the URL counts as disallowed). Object contents are (pointer, length) and need not be
 * NUL-terminated; every read is bounds-checked. Where git reads its buffers as C strings (it keeps a NUL byte
 * after every object), the code here behaves as if that NUL byte were there.
 *
 * What is left out, on purpose (the callers' job):
 *   - fsck.skipList: objects on it report nothing; the caller leaves them out;
 *   - the object-database steps of builtin/fsck.c (hash mismatch, unknown type, zlib errors,
 *     "is a blob, not a tree" type conflicts, grafts): they depend on the repository.
 */
#ifndef SHA1KIT_GIT_FSCK_OBJECT_H
#define SHA1KIT_GIT_FSCK_OBJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "object.h"

/*
 * Message IDs, in git's order, with their default severities. Source: Git fsck.h/fsck.c (v2.39.5),
 * FOREACH_FSCK_MSG_ID; the last three are Git 2.43+'s and 2.52+'s (v2.55.0 fsck.h), known only
 * with skg_fsck_options.newer_checks (skg_fsck_msg_is_newer). The printed name is camelCase:
 * skg_fsck_msg_name().
 */
#define SKG_FSCK_FOREACH_MSG(X)                                                                              \
	X(NUL_IN_HEADER, "nulInHeader", FATAL)                                                               \
	X(UNTERMINATED_HEADER, "unterminatedHeader", FATAL)                                                  \
	X(BAD_DATE, "badDate", ERROR)                                                                        \
	X(BAD_DATE_OVERFLOW, "badDateOverflow", ERROR)                                                       \
	X(BAD_EMAIL, "badEmail", ERROR)                                                                      \
	X(BAD_NAME, "badName", ERROR)                                                                        \
	X(BAD_OBJECT_SHA1, "badObjectSha1", ERROR)                                                           \
	X(BAD_PARENT_SHA1, "badParentSha1", ERROR)                                                           \
	X(BAD_TIMEZONE, "badTimezone", ERROR)                                                                \
	X(BAD_TREE, "badTree", ERROR)                                                                        \
	X(BAD_TREE_SHA1, "badTreeSha1", ERROR)                                                               \
	X(BAD_TYPE, "badType", ERROR)                                                                        \
	X(DUPLICATE_ENTRIES, "duplicateEntries", ERROR)                                                      \
	X(MISSING_AUTHOR, "missingAuthor", ERROR)                                                            \
	X(MISSING_COMMITTER, "missingCommitter", ERROR)                                                      \
	X(MISSING_EMAIL, "missingEmail", ERROR)                                                              \
	X(MISSING_NAME_BEFORE_EMAIL, "missingNameBeforeEmail", ERROR)                                        \
	X(MISSING_OBJECT, "missingObject", ERROR)                                                            \
	X(MISSING_SPACE_BEFORE_DATE, "missingSpaceBeforeDate", ERROR)                                        \
	X(MISSING_SPACE_BEFORE_EMAIL, "missingSpaceBeforeEmail", ERROR)                                      \
	X(MISSING_TAG, "missingTag", ERROR)                                                                  \
	X(MISSING_TAG_ENTRY, "missingTagEntry", ERROR)                                                       \
	X(MISSING_TREE, "missingTree", ERROR)                                                                \
	X(MISSING_TYPE, "missingType", ERROR)                                                                \
	X(MISSING_TYPE_ENTRY, "missingTypeEntry", ERROR)                                                     \
	X(MULTIPLE_AUTHORS, "multipleAuthors", ERROR)                                                        \
	X(TREE_NOT_SORTED, "treeNotSorted", ERROR)                                                           \
	X(UNKNOWN_TYPE, "unknownType", ERROR)                                                                \
	X(ZERO_PADDED_DATE, "zeroPaddedDate", ERROR)                                                         \
	X(GITMODULES_MISSING, "gitmodulesMissing", ERROR)                                                    \
	X(GITMODULES_BLOB, "gitmodulesBlob", ERROR)                                                          \
	X(GITMODULES_LARGE, "gitmodulesLarge", ERROR)                                                        \
	X(GITMODULES_NAME, "gitmodulesName", ERROR)                                                          \
	X(GITMODULES_SYMLINK, "gitmodulesSymlink", ERROR)                                                    \
	X(GITMODULES_URL, "gitmodulesUrl", ERROR)                                                            \
	X(GITMODULES_PATH, "gitmodulesPath", ERROR)                                                          \
	X(GITMODULES_UPDATE, "gitmodulesUpdate", ERROR)                                                      \
	X(GITATTRIBUTES_MISSING, "gitattributesMissing", ERROR)                                              \
	X(GITATTRIBUTES_LARGE, "gitattributesLarge", ERROR)                                                  \
	X(GITATTRIBUTES_LINE_LENGTH, "gitattributesLineLength", ERROR)                                       \
	X(GITATTRIBUTES_BLOB, "gitattributesBlob", ERROR)                                                    \
	X(EMPTY_NAME, "emptyName", WARN)                                                                     \
	X(FULL_PATHNAME, "fullPathname", WARN)                                                               \
	X(HAS_DOT, "hasDot", WARN)                                                                           \
	X(HAS_DOTDOT, "hasDotdot", WARN)                                                                     \
	X(HAS_DOTGIT, "hasDotgit", WARN)                                                                     \
	X(NULL_SHA1, "nullSha1", WARN)                                                                       \
	X(ZERO_PADDED_FILEMODE, "zeroPaddedFilemode", WARN)                                                  \
	X(NUL_IN_COMMIT, "nulInCommit", WARN)                                                                \
	X(BAD_FILEMODE, "badFilemode", INFO)                                                                 \
	X(GITMODULES_PARSE, "gitmodulesParse", INFO)                                                         \
	X(GITIGNORE_SYMLINK, "gitignoreSymlink", INFO)                                                       \
	X(GITATTRIBUTES_SYMLINK, "gitattributesSymlink", INFO)                                               \
	X(MAILMAP_SYMLINK, "mailmapSymlink", INFO)                                                           \
	X(BAD_TAG_NAME, "badTagName", INFO)                                                                  \
	X(MISSING_TAGGER_ENTRY, "missingTaggerEntry", INFO)                                                  \
	X(EXTRA_HEADER_ENTRY, "extraHeaderEntry", IGNORE)                                                    \
	X(BAD_GPGSIG, "badGpgsig", ERROR)                                                                    \
	X(BAD_HEADER_CONTINUATION, "badHeaderContinuation", ERROR)                                           \
	X(LARGE_PATHNAME, "largePathname", WARN)

#define SKG_FSCK_MSG_ENUM_(id, name, sev) SKG_FSCK_##id,
enum skg_fsck_msg { SKG_FSCK_FOREACH_MSG(SKG_FSCK_MSG_ENUM_) SKG_FSCK_MSG_COUNT };
#undef SKG_FSCK_MSG_ENUM_

/*
 * Severities (git's enum fsck_msg_type, same order). IGNORE: not reported. INFO: reported as a
 * warning (e.g. badFilemode). FATAL: reported as an error, and cannot be configured to anything but
 * "error". A finding handed to the report callback is SKG_FSCK_ERROR or SKG_FSCK_WARN, as git
 * prints it (one exception, an ignored badTree: struct skg_fsck_finding, `cause`).
 */
enum skg_fsck_severity {
	SKG_FSCK_IGNORE = 0,
	SKG_FSCK_INFO = 1,
	SKG_FSCK_FATAL = 2,
	SKG_FSCK_ERROR = 3,
	SKG_FSCK_WARN = 4,
};

/* The camelCase name git prints ("zeroPaddedFilemode"); NULL for an ID out of range. */
const char *skg_fsck_msg_name(enum skg_fsck_msg msg);

/* Default severity (fsck.h); SKG_FSCK_IGNORE for an ID out of range. */
enum skg_fsck_severity skg_fsck_msg_default_severity(enum skg_fsck_msg msg);

/*
 * The ID named by name[0..len), compared without regard to ASCII case, as `fsck.<msg-id>` keys are
 * (git lowercases config keys and compares them with lowercased IDs); -1 if none. Underscores are
 * not accepted ("zero_padded_filemode" is unknown to git too).
 */
int skg_fsck_msg_from_name(const char *name, size_t len);

/* Callers' kinds of special blobs: tree entries named .gitmodules or .gitattributes (and aliases). */
enum skg_fsck_special {
	SKG_FSCK_GITMODULES = 1,
	SKG_FSCK_GITATTRIBUTES = 2,
};

/* Options: the severity of every message (as configured with fsck.<msg-id>), and strictness. */
struct skg_fsck_options {
	uint8_t severity[SKG_FSCK_MSG_COUNT]; /* enum skg_fsck_severity */
	bool strict;                          /* `git fsck --strict`: mode 100664 is a bad mode */
	/*
	 * Git's report callback returns 1 for a warning too (git >= 2.40 hash-object's
	 * hash_format_check_report, object-file.c): a warning then fails the object, and the checks
	 * that stop at a failed report (a tag's badTagName, missingTaggerEntry) stop there. False for
	 * fsck and index-pack (fsck_error_function returns 0 for a warning). Default false.
	 */
	bool warnings_fail;
	/*
	 * The date of an ident line as Git 2.40 and later read it (8e4309038f, "fsck: do not assume
	 * NUL-termination of buffers"): blanks and tabs skipped, then a digit or badDate (a sign, a
	 * newline), zero-padding looked for after the blanks. False: Git 2.39.5's strtoumax reading
	 * (a sign accepted, "-1" badDateOverflow, whitespace and newlines skipped). Default false.
	 */
	bool date_digits;
	/*
	 * Git 2.55.0's checks beyond 2.39.5's (default false): largePathname (2.43, 0fbcaef6b4 "fsck:
	 * warn about symlink pointing inside a gitdir" series; fsck.c fsck_tree: an entry name longer
	 * than max_tree_entry_len bytes, "contains excessively large pathname", WARN), and a tag's
	 * gpgsig / gpgsig-sha256 header and its continuation lines after the tagger, skipped rather
	 * than extraHeaderEntry (2.52, fsck_tag_standalone: badGpgsig "invalid format - unexpected
	 * end after 'gpgsig' or 'gpgsig-sha256' line", badHeaderContinuation "invalid format -
	 * unexpected end in 'gpgsig' or 'gpgsig-sha256' continuation line"). Without it those three
	 * IDs are unknown to skg_fsck_set_severity, as to 2.39.5.
	 */
	bool newer_checks;
	/* largePathname's limit in bytes (default 4096; `fsck.largePathname=warn:N` sets it) */
	int64_t max_tree_entry_len;
	/*
	 * Bytes of an object ID in the objects checked: SKG_RAWSZ (20, SHA-1; the default) or
	 * SKG_MAX_RAWSZ (32, SHA-256, gitformat-signature / hash-function-transition: commits and tags
	 * name objects by 64 hex digits, tree entries end in 32 bytes). Any other value reads as 20.
	 */
	size_t rawsz;
	/*
	 * Optional (NULL: not called): skg_fsck_object calls it, with the ctx given to the check, for
	 * each tree entry that makes git remember a blob for a later .gitmodules / .gitattributes
	 * check (the entry is not a symlink; names as git matches them, HFS+ and NTFS aliases
	 * included). Git then checks that blob when it is met, or at the end (skg_fsck_special_blob,
	 * skg_fsck_special_unreadable). The same id may be reported several times.
	 */
	void (*found)(void *ctx, enum skg_fsck_special kind, const uint8_t *id);
};

/*
 * Defaults of `git fsck` (strict = false) or `git fsck --strict` (strict = true: every message of
 * default severity WARN becomes ERROR, as git does). found = NULL, warnings_fail = false.
 */
void skg_fsck_options_init(struct skg_fsck_options *opt, bool strict);

/* A severity as git's fsck_set_msg_type spells it ("error", "warn", "ignore", exactly): true with
 * *sev, false for any other text (git: "Unknown fsck message type"). */
bool skg_fsck_severity_from_name(const char *name, enum skg_fsck_severity *sev);

/* Results of skg_fsck_set_severity. */
enum skg_fsck_set_result {
	SKG_FSCK_SET_OK = 0,
	SKG_FSCK_SET_BAD_VALUE = -1,     /* git: "Unknown fsck message type: '%s'" (value) */
	SKG_FSCK_SET_UNKNOWN_ID = -2,    /* git: "Unhandled message id: %s" (id) */
	SKG_FSCK_SET_CANNOT_DEMOTE = -3, /* git: "Cannot demote %s to %s" (id, value) */
	SKG_FSCK_SET_BAD_LENGTH = -4,    /* git: "unable to parse max tree entry len: %s" (after ':') */
	SKG_FSCK_SET_BAD_TYPE_PART = -5, /* git: "Unknown fsck message type: '%s'" (before ':') */
};

/*
 * Set the severity of message `id` (any ASCII case) to `value`: exactly "error", "warn" or "ignore"
 * (case-sensitive, as git compares it; NULL is a bad value). The checks run in git's order: the
 * value first, then the ID, then the rule that a FATAL message can only be set to "error"; with
 * newer_checks as Git 2.55 does: the ID first, and largePathname's "TYPE:N" (N as
 * git_parse_ssize_t reads it, with k, m, g) sets max_tree_entry_len before TYPE is read.
 * Returns SKG_FSCK_SET_OK, or an error (opt unchanged but for a largePathname limit that
 * parsed), after which git dies.
 */
enum skg_fsck_set_result skg_fsck_set_severity(struct skg_fsck_options *opt, const char *id,
                                               const char *value);

/* Whether msg is one of Git 2.55's IDs that 2.39.5 lacks (skg_fsck_options.newer_checks). */
bool skg_fsck_msg_is_newer(enum skg_fsck_msg msg);

/*
 * Git's message for a failed skg_fsck_set_severity (without "fatal: "), into buf (always
 * NUL-terminated when n > 0); returns the length it needs, as snprintf. `id` as git has it: from a
 * config key, lowercased.
 */
size_t skg_fsck_set_error_format(char *buf, size_t n, enum skg_fsck_set_result err, const char *id,
                                 const char *value);

/* One finding of a check, as git reports it. */
struct skg_fsck_finding {
	unsigned type;                   /* object type of the line: the checked object's (or, see below) */
	const uint8_t *id;               /* the object's ID (rawsz bytes) */
	size_t rawsz;                    /* 20 (SHA-1) or 32 (SHA-256): skg_fsck_options.rawsz */
	enum skg_fsck_msg msg;           /* message ID */
	enum skg_fsck_severity severity; /* SKG_FSCK_ERROR or SKG_FSCK_WARN (IGNORE: see cause) */
	const char *detail;              /* git's text after "msgId: ", NUL-terminated ... */
	const char *arg; /* ... followed by arg[0..arg_len) when arg != NULL (the tag name of */
	size_t arg_len;  /*     badTagName, the name or value of gitmodules*: bytes without NUL) */
	/*
	 * For badTree: git's tree decoder prints "error: <cause>" on a line of its own just before
	 * the finding (skg_tree_error_text); NULL otherwise. The decoder prints it whatever the
	 * severity, so a badTree configured to "ignore" still comes to the report callback, with
	 * severity SKG_FSCK_IGNORE: print the cause line only.
	 */
	const char *cause;
};

/*
 * Called once per finding, in git's order. What git fsck prints for f: "error: <f->cause>" if
 * f->cause != NULL, then the line skg_fsck_format makes unless f->severity == SKG_FSCK_IGNORE.
 */
typedef void (*skg_fsck_report_fn)(void *ctx, const struct skg_fsck_finding *f);

/*
 * Run git's checks of one object: `type` 1..4 (enum skg_type), `id` its object ID, data[0..len)
 * its content. Commits, trees and tags get fsck_commit / fsck_tree / fsck_tag_standalone; blobs
 * nothing (their checks depend on the trees that name them: skg_fsck_special_blob); any other
 * type gets unknownType ("unknown type '<n>' (internal fsck error)"). Each finding
 * of severity other than IGNORE (and an ignored badTree, for its cause) goes to report (may be
 * NULL), with the ID and the wording of git, in git's order; checks stop where git's stop.
 * Returns 0, or -1 when git's fsck_object returns non-zero (the object counts as an error; git
 * exits with bit 0 set). This is git's count, quirks included: a tag whose tagger line has an
 * error and that has an extra header line after it returns 0 while extraHeaderEntry is ignored
 * (git overwrites its result there).
 * Where git has no defined behaviour, the check stops after the finding: badTreeSha1,
 * badParentSha1 or badObjectSha1 set to warn or ignore on a line without 40 hex digits (git goes on
 * from an uninitialised position for the tree and object lines, and from the end of the previous
 * line for a parent line, which makes git 2.39.5 loop for ever: "parent xyz" as the last line that
 * git's parser does not read, e.g. "tree <hex>\nparent d9288\n", with fsck.badParentSha1=warn).
 */
int skg_fsck_object(unsigned type, const uint8_t id[SKG_RAWSZ], const uint8_t *data, size_t len,
                    const struct skg_fsck_options *opt, skg_fsck_report_fn report, void *ctx);

/*
 * Git's checks of a blob that a tree named .gitmodules and/or .gitattributes (kinds: a bitwise OR of
 * enum skg_fsck_special), as fsck_blob: data == NULL means the caller could not load it (too large):
 * gitmodulesLarge / gitattributesLarge; a .gitattributes blob over 100 MiB is too large too, and
 * one with a line of 2048 bytes or more (up to the first NUL byte) gives gitattributesLineLength.
 * A .gitmodules blob is parsed as git parses a config blob (skg_config_parse_blob, errors silent)
 * and each entry submodule.<name>.<key> (a subsection is needed; [submodule.x] is the old form of
 * [submodule "x"]) is checked, in file order, as fsck_gitmodules_fn does:
 *   - gitmodulesName "disallowed submodule name: <name>" for an empty name or one with ".." as a
 *     component ('/' and '\' separate them), for every entry of that name;
 *   - gitmodulesUrl "disallowed submodule url: <value>" for key url: a value that starts with '-';
 *     a relative one ("./", "../", ".\", "..\") or git:// one with a line feed after %-decoding or
 *     whose leading "../" are followed by ':' or '/'; an http, https, ftp or ftps one (or
 *     "<that>::<url>") that git's credential parser refuses (no scheme, a line feed in a
 *     %-decoded part) or that has an empty host. Git 2.39.5's rules; later versions differ;
 *   - gitmodulesPath "disallowed submodule path: <value>" for key path with a value starting '-';
 *   - gitmodulesUpdate "disallowed submodule update setting: <value>" for key update with a value
 *     starting with '!' (the command form);
 *   - gitmodulesParse "could not parse gitmodules blob" after them if the parse fails (the entries
 *     before the bad line have been checked).
 * The value printed is the value as git's parser leaves it (escapes resolved, cut at a NUL byte):
 * finding.arg points into the parser's buffer, valid during the report callback only. The checks
 * for .gitmodules come before those for .gitattributes. Returns 0 or -1 as skg_fsck_object.
 */
int skg_fsck_special_blob(unsigned kinds, const uint8_t id[SKG_RAWSZ], const uint8_t *data, size_t len,
                          const struct skg_fsck_options *opt, skg_fsck_report_fn report, void *ctx);

/*
 * What git's fsck_finish reports for a remembered .gitmodules / .gitattributes blob that was not
 * checked as a blob: found_type 0 (SKG_NONE) = it cannot be read (gitmodulesMissing "unable to read
 * .gitmodules blob", reported as a blob), else the type it has (gitmodulesBlob "non-blob found at
 * .gitmodules", reported with that type). Returns 0 or -1 as skg_fsck_object.
 */
int skg_fsck_special_unreadable(enum skg_fsck_special kind, unsigned found_type, const uint8_t id[SKG_RAWSZ],
                                const struct skg_fsck_options *opt, skg_fsck_report_fn report, void *ctx);

/*
 * git fsck's line for a finding, without the newline: "error in tree <hex>: duplicateEntries:
 * contains duplicate file entries" ("warning in ..." for SKG_FSCK_WARN). Written into buf (always
 * NUL-terminated when n > 0); returns the length of the whole line, as snprintf (a longer line is
 * cut). The line may contain any byte but NUL.
 */
size_t skg_fsck_format(char *buf, size_t n, const struct skg_fsck_finding *f);

/* ----------------------------------------------------------------------------------------------
 * Tree entries (git's tree decoder: "<octal mode> <name>\0<id>" repeated, the ID 20 bytes, or 32 in
 * a SHA-256 repository).
 */

enum skg_tree_error {
	SKG_TREE_OK = 0,
	SKG_TREE_TOO_SHORT,  /* "too-short tree object" */
	SKG_TREE_BAD_MODE,   /* "malformed mode in tree entry" */
	SKG_TREE_EMPTY_NAME, /* "empty filename in tree entry" */
};

/* Git's wording of a decode error (printed by git as "error: <text>"); NULL for SKG_TREE_OK. */
const char *skg_tree_error_text(enum skg_tree_error err);

struct skg_tree_entry {
	uint32_t mode;        /* the octal digits as git reads them (32-bit, wrapping) */
	const char *name;     /* NUL-terminated inside the object; no '\0', may contain '/' */
	size_t name_len;      /* >= 1 */
	const uint8_t *id;    /* rawsz bytes inside the object */
	const uint8_t *start; /* first byte of the entry (its first mode digit) */
	unsigned seps;        /* SKG_TREE_SEP_SLASH and SKG_TREE_SEP_BACKSLASH: the name holds '/', '\\' */
};

enum { SKG_TREE_SEP_SLASH = 1, SKG_TREE_SEP_BACKSLASH = 2 };

/*
 * Decoder state: the current entry (when `size` > 0) and what is left. Like git, the decoder
 * checks every entry against the end of the whole tree (the byte 21 before the end must be NUL).
 */
struct skg_tree_iter {
	const uint8_t *buf; /* the current entry */
	size_t size;        /* bytes from buf to the end of the tree; 0 = no current entry */
	struct skg_tree_entry entry;
	enum skg_tree_error error;
	size_t rawsz; /* bytes of an entry's ID: 20 (SHA-1) or 32 (SHA-256) */
};

/* Start at the first entry of a tree whose entries end in IDs of rawsz bytes (20 or 32): returns
 * SKG_TREE_OK (entry valid if it->size > 0) or a decode error. */
enum skg_tree_error skg_tree_iter_init(struct skg_tree_iter *it, const uint8_t *data, size_t len,
                                       size_t rawsz);

/*
 * Move past the current entry and decode the next: SKG_TREE_OK (it->size == 0 at the end) or an
 * error (then it->size = 0, as git stops there).
 */
enum skg_tree_error skg_tree_iter_advance(struct skg_tree_iter *it);

/* git's canon_mode: 100644 or 100755 for files (by the owner-execute bit), 120000, 040000, 160000. */
uint32_t skg_tree_canon_mode(uint32_t mode);

/* A tree entry handed out by skg_tree_links and skg_fsck_tree: canonical mode, name, ID. */
typedef void (*skg_tree_link_fn)(void *ctx, uint32_t mode, const char *name, size_t name_len,
                                 const uint8_t *id);

/*
 * The links git's walk of a tree (entries ending in IDs of rawsz bytes) follows (fsck_walk_tree
 * over tree_entry_gently): cb gets each
 * entry with its canonical mode (skg_tree_canon_mode), gitlinks (160000) included, in order.
 * Like git, an entry is only handed out once the entry after it decodes: a decode error drops the
 * entry before it. Returns SKG_TREE_OK or the decode error (on the first entry, git's walk fails:
 * "broken links"; later, git prints the error and keeps the entries it had).
 */
enum skg_tree_error skg_tree_links(const uint8_t *data, size_t len, size_t rawsz, skg_tree_link_fn cb,
                                   void *ctx);

/*
 * skg_fsck_object() of a tree and skg_tree_links() of it in one decode (fsck needs both for every
 * tree): the findings go to report as skg_fsck_object sends them, the links to link (may be NULL)
 * as skg_tree_links hands them out, and *walk_error (not NULL) is what skg_tree_links would
 * return. Git prints the walk's decode error before the findings: a caller that prints both keeps
 * the findings until it knows *walk_error. Returns as skg_fsck_object.
 */
int skg_fsck_tree(const uint8_t id[SKG_RAWSZ], const uint8_t *data, size_t len,
                  const struct skg_fsck_options *opt, skg_fsck_report_fn report, void *ctx,
                  skg_tree_link_fn link, void *link_ctx, enum skg_tree_error *walk_error);

/* ----------------------------------------------------------------------------------------------
 * Commit and tag links, parsed as git parses objects before any check (parse_commit_buffer,
 * parse_tag_buffer). An object these reject never reaches git's fsck checks: git prints the parse
 * message if there is one (skg_parse_error_format), then
 * "error: <hex>: object could not be parsed: <path>".
 */

enum skg_parse_result {
	SKG_PARSE_OK = 0,
	SKG_PARSE_FAILED,           /* rejected without a message of its own (tags) */
	SKG_PARSE_BOGUS_COMMIT,     /* "bogus commit object <hex>" */
	SKG_PARSE_BAD_TREE_POINTER, /* "bad tree pointer in commit <hex>" */
	SKG_PARSE_BAD_PARENTS,      /* "bad parents in commit <hex>" */
	SKG_PARSE_UNKNOWN_TAG_TYPE, /* "unknown tag type '<type>' in <hex>" */
};

/*
 * A commit's tree and parents, IDs of rawsz bytes (20 or 32; 2 * rawsz hex digits in the commit).
 * On SKG_PARSE_OK, tree is set and parent (may be NULL) has been called for each parent line git
 * reads, in order; on failure it has not been called at all. Grafts are not applied.
 */
enum skg_parse_result skg_commit_links(const uint8_t *data, size_t len, size_t rawsz, uint8_t *tree,
                                       void (*parent)(void *ctx, const uint8_t *id), void *ctx);

struct skg_tag_links {
	uint8_t object[SKG_MAX_RAWSZ]; /* the tagged object (rawsz bytes) */
	unsigned type;                 /* its type by the "type" line, 1..4; SKG_NONE if unknown */
	const char *type_name;         /* the type text as git keeps it: up to the first NUL byte, */
	size_t type_len;               /*   fewer than 20 bytes */
	const char *tag;               /* the tag name (the "tag" line), not NUL-terminated */
	size_t tag_len;
};

/* A tag's target; *out is filled as far as the parse went (type_name also for UNKNOWN_TAG_TYPE). */
enum skg_parse_result skg_tag_links(const uint8_t *data, size_t len, size_t rawsz, struct skg_tag_links *out);

/*
 * Git's message for a parse failure of object `id` (without "error: "), as snprintf; for
 * SKG_PARSE_UNKNOWN_TAG_TYPE, tl gives the type text, whose control characters other than tab and
 * newline come out as '?' (git's error() does that). Writes "" and returns 0 for SKG_PARSE_OK and
 * SKG_PARSE_FAILED (git prints nothing of its own then).
 */
size_t skg_parse_error_format(char *buf, size_t n, enum skg_parse_result err, const uint8_t *id, size_t rawsz,
                              const struct skg_tag_links *tl);

#endif /* SHA1KIT_GIT_FSCK_OBJECT_H */
