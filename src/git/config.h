/*
 * config.h - git's config files: the syntax, values, includes, and the files git reads in its order.
 *
 * Part of the Git layer (src/git/, library sha1kit_git). Sources: Git's Documentation/config.txt
 * ("CONFIGURATION FILE": syntax, sections, subsections, quoting and escapes, includes) and
 * Documentation/git.txt ("ENVIRONMENT VARIABLES": GIT_CONFIG_NOSYSTEM, GIT_CONFIG_SYSTEM,
 * GIT_CONFIG_GLOBAL, GIT_CONFIG_COUNT). Behaviour checked against git 2.39.5.
 *
 * File I/O, no printing, no exit, no global state (errors come back in a struct skg_error).
 */
#ifndef SHA1KIT_GIT_CONFIG_H
#define SHA1KIT_GIT_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "object.h"
#include "util.h"

/*
 * A config entry: key is "section.name" or "section.subsection.name" with section and name in
 * lower case and the subsection as written ("[Section \"Sub\"]" gives "section.Sub.name"; the old
 * form "[section.sub]" gives "section.sub.name"). value is NULL for a key without "=" (a boolean
 * true), else the value with quotes and escapes (\\ \" \n \t \b, backslash-newline) resolved,
 * comments (# ;) dropped and runs of outer whitespace collapsed as git does. A positive return
 * stops the parse and is returned by the reader; a negative one fails the parse at this line as in
 * git (-1, "bad config line N in file NAME"; SKG_CONFIG_BAD_UNIT and SKG_CONFIG_BAD_RANGE below:
 * git's "bad numeric config value" line).
 */
typedef int (*skg_config_fn)(void *ctx, const char *key, const char *value);

/*
 * Parse config text buf[0..len) and call fn per entry in file order. name is used in the error
 * message: on a syntax error -1 is returned with err = "bad config line N in file NAME" (git's
 * words and line number). A UTF-8 byte order mark at the start is skipped.
 * Entries after a NUL byte in a value are kept; the value passed is cut at the NUL (as git's).
 */
int skg_config_parse(const char *buf, size_t len, const char *name, skg_config_fn fn, void *ctx,
                     struct skg_error *err);

/*
 * Parse buf[0..len) as git parses a config blob (git_config_from_mem, as for a .gitmodules blob):
 * as skg_config_parse, except that git reads the bytes of a buffer as `char` values where it
 * reads a file's with fgetc. Where char is signed (x86-64; arm64 Linux has it unsigned), that makes
 * git's own blob parser, and this one: refuse a UTF-8 byte order mark (0xEF is not the 239 git
 * compares with: a syntax error at line 1), take a byte 0xFF for the end of input (eof is set, the
 * current line ends there; a line break right after it ends the parse without error, as does 0xFF
 * outside an entry; reading goes on otherwise, with eof set, which fails the next section
 * header and ends the next key name at once), drop a 0xFF right after a CR, and see bytes
 * 0x80..0xFE as the negative values they are (no key or section character, as in files).
 * The error is "bad config line N in blob NAME" (git's wording for blobs).
 */
int skg_config_parse_blob(const char *buf, size_t len, const char *name, skg_config_fn fn, void *ctx,
                          struct skg_error *err);

/* Read and parse the file at path (a missing file is empty: returns 0). name as above. */
int skg_config_read_file(const char *path, const char *name, skg_config_fn fn, void *ctx,
                         struct skg_error *err);

/*
 * git's boolean values: NULL (no "="), "true", "yes", "on" -> 1; "false", "no", "off", "" -> 0
 * (case-insensitive); an integer (with an optional k, m, g unit) -> non-zero or 0; else -1.
 */
int skg_config_bool(const char *value);

/* git's integer values (strtoimax base 0, optional k/m/g unit, int range): true and *out, or false. */
bool skg_config_int(const char *value, int *out);

/*
 * The same, saying why a value is refused, as git's git_parse_int does with errno: 0 (and *out),
 * SKG_CONFIG_BAD_UNIT (not a number, an unknown unit, or no value) or SKG_CONFIG_BAD_RANGE (beyond
 * an int). A config callback may return either: the parse then fails with git's die_bad_number
 * text, "bad numeric config value 'VALUE' for 'KEY' in file NAME: invalid unit" (or "out of
 * range"; "in blob NAME" for a blob).
 */
#define SKG_CONFIG_BAD_UNIT  (-2)
#define SKG_CONFIG_BAD_RANGE (-3)
/* A callback's "this key needs a value" (git's config_error_nonbool, after the callback has
 * reported "missing value for 'KEY'" itself): the parse fails with git's die of a callback that
 * failed over the config set, "bad config variable 'KEY' in file 'NAME' at line N". */
#define SKG_CONFIG_NONBOOL (-4)
int skg_config_int_why(const char *value, int *out);
/* The same check for git's unsigned long values (git_config_ulong: no '-', unit, ULONG_MAX). */
int skg_config_ulong_why(const char *value);
/* git_config_ulong's value (units k, m, g) into *out: skg_config_ulong_why's result (0: *out set). */
int skg_config_ulong(const char *value, uint64_t *out);

/*
 * Canonical form of a config key as given on a command line ("Fsck.zeroPaddedFilemode" ->
 * "fsck.zeropaddedfilemode"; "a.B.c" -> "a.B.c" with the subsection kept) into out (out_size
 * bytes): lower-cases the section and the last part, as git's git_config_parse_key, which also
 * checks them (letters, digits and '-', the name starting with a letter; no newline in a
 * subsection). Returns NULL, or git's error for the key as a format with one %s (the key), out
 * then unspecified.
 */
const char *skg_config_canonical_key(const char *key, char *out, size_t out_size);

/*
 * The files git reads config from, in its order (config.c do_git_config_sequence): the system file
 * (GIT_CONFIG_SYSTEM, else /etc/gitconfig; none when GIT_CONFIG_NOSYSTEM is true), the global files
 * (GIT_CONFIG_GLOBAL, else $XDG_CONFIG_HOME/git/config or ~/.config/git/config, then ~/.gitconfig),
 * the repository's <common_dir>/config, <git_dir>/config.worktree unless git_dir is NULL, then
 * GIT_CONFIG_COUNT/GIT_CONFIG_KEY_<n>/GIT_CONFIG_VALUE_<n>. include.path is followed (relative to
 * the including file, "~/" expanded, at most 10 deep as git); includeIf is not (left out), nor
 * GIT_CONFIG_PARAMETERS (`git -c`). The *_display paths are the files' directories as git spells
 * them in messages. (skg_repo_config, repo.h, passes a repository's.) common_dir NULL: outside a
 * repository (the system and global files, then GIT_CONFIG_COUNT's, as git reads them there).
 */
struct skg_config_files {
	const char *common_dir, *common_dir_display;
	const char *git_dir, *git_dir_display; /* NULL: no config.worktree (extensions.worktreeConfig) */
	/* The conditions of includeIf.<condition>.path (git-config(1) "Conditional includes"): the
	 * repository's git dir that gitdir: and gitdir/i: patterns match (its real path, then its
	 * absolute path), and the branch HEAD is on (without refs/heads/) that onbranch: patterns
	 * match; NULL: no such condition holds. hasconfig:remote.*.url:PATTERN holds when a
	 * remote.<name>.url of the whole config matches (git's first pass over every file, with those
	 * conditions true, which fails when a file an includeIf brings in sets a remote URL); unknown
	 * conditions never hold. */
	const char *cond_git_dir;       /* usable from the current directory (for its real path) */
	const char *cond_git_dir_shown; /* as git spells it after its setup (its absolute path is */
	const char *cond_git_cwd;       /* made from this, git's directory, when it is relative) */
	const char *head_branch;
};

int skg_config_read_all(const struct skg_config_files *files, skg_config_fn fn, void *ctx,
                        struct skg_error *err);

/* Only the system, XDG and global files of the above (what git's safe.directory check reads). */
int skg_config_read_outer(skg_config_fn fn, void *ctx, struct skg_error *err);

/* A path value as git_config_pathname reads it, into out: "~/" at its start is $HOME (when set). */
void skg_config_path(const char *value, struct skg_buf *out);

/* git_env_bool(): unset -> dflt, else a config boolean (invalid counts as true, as git dies). */
bool skg_env_bool(const char *name, bool dflt);

#endif /* SHA1KIT_GIT_CONFIG_H */
