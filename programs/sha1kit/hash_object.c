/*
 * hash_object.c - `sha1kit hash-object`: the Git object ID of files, like `git hash-object`.
 *
 * A Git object ID is the SHA-1 of "<type> <size in decimal>\0" followed by the content (Git's
 * Documentation/gitformat-*: the loose-object header). We hash it with SHA-1DC, so an object that
 * carries a known collision attack is refused, as Git (built with SHA-1DC) refuses it.
 *
 * Behaviour follows `git hash-object` (checked against Git 2.39 by tests/compat/test_hash_object.sh):
 *  - standard input (--stdin) is hashed first, then each FILE, one ID per line; "-" is a file name;
 *  - the type must be blob, tree, commit or tag, with --literally too, as git 2.50 and later
 *    require (commit 65a6a79b42 "hash-object: stop allowing unknown types"; builtin/hash-object.c
 *    hash_fd: type_from_string dies with 'fatal: invalid object type "TYPE"', exit 128, at the
 *    first object, after it was opened; Git 2.39 hashed any type string with --literally);
 *  - without --literally tree, commit and tag content must pass git's fsck checks with strict severities, as
 * git 2.40 and later check it (commit 69bbbe484b "hash-object: use fsck for object checks"; object-file.c
 * index_mem: "error: object fails fsck: <msgId>: <text>" per finding, warnings too, then "fatal: refusing to
 * create malformed object", exit 128), through the Git layer's skg_object_check; Git 2.39 made weaker checks
 * of its own, and where the two differ sha1kit follows 2.40+; with
 *    --literally nothing is checked;
 *  - no filters: the content is hashed as is (= `git hash-object --no-filters`);
 *  - the first failure ends the command (Git dies there too).
 *  - --stdin-paths reads the FILE names from standard input, one per line (a CR before the LF is
 *    dropped; a line that starts with '"' is C-unquoted, skg_unquote_c), as builtin/hash-object.c
 *    hash_stdin_paths does;
 *  - a FILE that does not open is git's xopen line, 'fatal: could not open 'NAME' for reading:
 *    REASON', and a directory git's hash_fd line 'fatal: Unable to hash NAME' (a regular file that
 *    ends before its fstat size, e.g. standard input read from an offset: 'error: short read while
 *    indexing NAME' first; no NAME for standard input: '<unknown>', '(null)'), exit 128; a usage
 *    error (parse-options, and git's "Can't use --stdin-paths with --stdin", ...) exits 129.
 * Not modelled: -w, --path.
 *
 * Blobs (and --literally objects) in regular files are streamed: the size comes from fstat and
 * exactly that many bytes are read. Other input (a pipe on standard input) must be read before the
 * header can be formed: it is kept in memory, spilled to a temporary file past SPILL_SIZE bytes.
 * Tree, commit and tag objects are checked in memory, as Git does.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sha1kit/git_object.h>

#include "cli.h"
#include "object.h"
#include "digest.h"
#include "pack_io.h"

#define HO_CMD     "hash-object"
#define READ_SIZE  (256 * 1024)
#define SPILL_SIZE ((size_t)64 << 20) /* input of unknown size kept in memory up to this */

enum {
	OPT_STDIN = 256,
	OPT_STDIN_PATHS,
	OPT_LITERALLY,
	OPT_NO_FILTERS,
	OPT_HELP,
	OPT_VERSION,
	/* the negations git's parse-options gives each option (--no-X; --filters for --no-filters) */
	OPT_NO_STDIN,
	OPT_NO_STDIN_PATHS,
	OPT_NO_LITERALLY,
	OPT_FILTERS,
	OPT_PATH,
	OPT_NO_PATH
};

#define USAGE_STATUS 129 /* git's exit status for a usage error (parse-options) */

static const struct option ho_options[] = {
    {"stdin", no_argument, NULL, OPT_STDIN},
    {"stdin-paths", no_argument, NULL, OPT_STDIN_PATHS},
    {"literally", no_argument, NULL, OPT_LITERALLY},
    {"no-filters", no_argument, NULL, OPT_NO_FILTERS},
    {"no-stdin", no_argument, NULL, OPT_NO_STDIN},
    {"no-stdin-paths", no_argument, NULL, OPT_NO_STDIN_PATHS},
    {"no-literally", no_argument, NULL, OPT_NO_LITERALLY},
    {"filters", no_argument, NULL, OPT_FILTERS},
    {"path", required_argument, NULL, OPT_PATH},
    {"no-path", no_argument, NULL, OPT_NO_PATH},
    {"help", no_argument, NULL, OPT_HELP},
    {"version", no_argument, NULL, OPT_VERSION},
    {NULL, 0, NULL, 0},
};

struct ho_state {
	const char *type;  /* object type string */
	bool bad_type;     /* not blob, tree, commit or tag: each object is refused */
	bool literally;    /* no format check */
	bool no_filters;   /* --no-filters: git has no path for the object (its messages say "(null)") */
	bool from_stdin;   /* reading --stdin: git has no path either */
	const char *vpath; /* --path=FILE: the path git has for every object (from the work tree's top) */
	bool check;        /* the content must be in memory for a format check */
	unsigned format;   /* the repository's object format (SKG_FORMAT_SHA1 outside one) */
	unsigned char *buf;
	struct skg_hash_options opt; /* the check's: repository, report sink */
};

static void ho_usage(void)
{
	fputs("Usage: sha1kit hash-object [-t TYPE] [--literally] [--path=FILE] [--stdin]\n"
	      "                           [--] [FILE]...\n"
	      "  or:  sha1kit hash-object [-t TYPE] [--literally] --stdin-paths\n"
	      "Print the Git object ID of each FILE, as 'git hash-object' does: the SHA-1 of\n"
	      "\"TYPE SIZE\\0\" followed by the content. Every object is hashed with SHA-1DC;\n"
	      "an object in which a SHA-1 collision attack is detected is an error, as in Git.\n"
	      "\n"
	      "  -t TYPE           object type: blob (default), tree, commit or tag\n"
	      "      --stdin       read an object from standard input (before the FILEs)\n"
	      "      --stdin-paths read the FILE names from standard input, one per line, as\n"
	      "                      git does: a CR before the newline is dropped, a line that\n"
	      "                      starts with '\"' is C-unquoted (git's quoting of paths;\n"
	      "                      'fatal: line is badly quoted' where it is not well\n"
	      "                      quoted); in a work tree each name is read from its top,\n"
	      "                      as in git; no FILE operand and no --stdin with it\n"
	      "      --literally   skip the format check (for making corrupt objects, as in\n"
	      "                      Git; TYPE must still be one of the four, as Git 2.50+)\n"
	      "      --no-filters  accepted for compatibility: the content is always hashed\n"
	      "                      as is, without Git's filters (end-of-line conversion,\n"
	      "                      clean filters of .gitattributes)\n"
	      "      --path=FILE   the path git would choose the filters by (.gitattributes),\n"
	      "                      and names in its messages: accepted for compatibility;\n"
	      "                      no filter runs (not with --no-filters or --stdin-paths,\n"
	      "                      as in git)\n"
	      "      --no-stdin, --no-stdin-paths, --no-literally, --filters, --no-path\n"
	      "                    undo the option before, as git's negations do (--filters:\n"
	      "                      messages name the FILE again; no filter runs either way)\n"
	      "  -h, --help        display this help and exit (-h: with git's status for it,\n"
	      "                      129)\n"
	      "      --version     output version information and exit\n"
	      "\n"
	      "One ID per line: standard input first, then the FILEs in order. A FILE named\n"
	      "'-' is a file of that name, as in Git; use --stdin for standard input.\n"
	      "Without --literally, tree, commit and tag content must pass Git's fsck checks\n"
	      "with --strict severities, as Git 2.40 and later check it (Git commit 69bbbe484b,\n"
	      "'hash-object: use fsck for object checks'; Git 2.39 and earlier checked less:\n"
	      "sha1kit follows 2.40+). Each finding, warnings included, is printed as\n"
	      "'error: object fails fsck: MSG-ID: TEXT' and the object is refused with\n"
	      "'fatal: refusing to create malformed object' (exit status 128), as Git does.\n"
	      "Inside a repository, the .gitmodules/.gitattributes blobs a tree names are read\n"
	      "from it and checked too (their findings are printed, not fatal; one that is not\n"
	      "there gives 'gitmodulesMissing'). The result equals 'git hash-object\n"
	      "--no-filters'. Nothing is written to a repository (no -w).\n"
	      "\n"
	      "Inside a SHA-256 repository (git init --object-format=sha256; Git's\n"
	      "extensions.objectFormat) the IDs are SHA-256 (64 hex digits), as git gives\n"
	      "them there, and the checks read the objects' IDs as SHA-256 ones: 64 hex\n"
	      "digits in a commit's tree and parent lines and a tag's object line, 32 bytes\n"
	      "after each tree entry's name.\n"
	      "\n"
	      "A repository whose format git refuses (core.repositoryformatversion above 1,\n"
	      "an unknown extension) is none, as in git: its 'warning: ...' line, then the\n"
	      "object is hashed as outside a repository. $SHA1KIT_GIT_VERSION=2.39 takes\n"
	      "the extensions as git 2.39.5 knows them (extensions.refStorage unknown).\n"
	      "\n"
	      "Errors as git gives them: a FILE that cannot be opened is 'fatal: could not\n"
	      "open 'FILE' for reading: REASON', a directory 'fatal: Unable to hash FILE', a\n"
	      "file shorter than its size (standard input read from an offset) 'error: short\n"
	      "read while indexing FILE' then the same fatal line (standard input has no\n"
	      "name: '<unknown>', '(null)', as in git).\n"
	      "\n"
	      "Exit status:\n"
	      "  0    success\n"
	      "  1    a FILE that opened could not be read\n"
	      "  2    a SHA-1 collision attack was detected in an object\n"
	      "  128  as git: an object failed the fsck checks, a FILE could not be\n"
	      "       opened, is a directory or is shorter than its size, a badly\n"
	      "       quoted --stdin-paths line, an ID that could not be written\n"
	      "       ('fatal: write failure on ...')\n"
	      "  129  a usage error, as git's\n"
	      "Processing stops at the first error, as in Git; the IDs printed before stand.\n"
	      "\n"
	      "Examples:\n"
	      "  sha1kit hash-object README.md           ID of the file as a blob\n"
	      "  git cat-file tree HEAD^{tree} | sha1kit hash-object -t tree --stdin\n"
	      "                                          the ID of HEAD's tree again\n",
	      stdout);
}

/* ------------------------------------------------------------------------------------------------ */
/* Reading and hashing                                                                              */
/* ------------------------------------------------------------------------------------------------ */

/* read(2) that retries on EINTR; returns the count or -1. */
static ssize_t read_some(int fd, void *buf, size_t n)
{
	ssize_t got;
	do {
		got = read(fd, buf, n);
	} while (got < 0 && errno == EINTR);
	return got;
}

/* Start an object: its ID over the header (the Git layer: SHA-1DC with git's settings, or SHA-256
 * in a SHA-256 repository). */
static void object_begin(struct skg_object_hasher *h, unsigned format, const char *type, uint64_t size)
{
	skg_object_hash_begin_as(h, format, type, size);
}

/* GIT_FLUSH as git_env_bool reads a boolean: true, yes, on or a non-zero number; false otherwise. */
static int flush_env(const char *v)
{
	return strcasecmp(v, "true") == 0 || strcasecmp(v, "yes") == 0 || strcasecmp(v, "on") == 0 ||
	       strtol(v, NULL, 10) != 0;
}

/* git's maybe_flush_or_die(stdout, "hash to stdout") after each ID (write-or-die.c): flushed
 * when GIT_FLUSH says so or, unset, when standard output is not a regular file, or after an error;
 * a failure is git's death (128; a broken pipe its SIGPIPE). Returns an exit status. */
static int flush_hash(void)
{
	static int force = -1;
	if (force < 0) {
		const char *env = getenv("GIT_FLUSH");
		struct stat st;
		force =
		    env != NULL ? flush_env(env) : fstat(fileno(stdout), &st) != 0 || !S_ISREG(st.st_mode);
	}
	if (!force && !ferror(stdout)) {
		return SK_EXIT_OK;
	}
	if (fflush(stdout) != 0) {
		int e = errno;
		sk_check_pipe(e);
		sk_git_line("fatal: write failure on 'hash to stdout': %s\n", strerror(e));
		exit(128); /* git's die: what is still buffered goes nowhere, and is not reported again */
	}
	return SK_EXIT_OK;
}

/* Finish an object: print its ID, or report the collision. Returns an exit status. */
static int object_end(struct skg_object_hasher *h, const char *name)
{
	uint8_t digest[SKG_MAX_RAWSZ];
	char hex[SKG_MAX_HEXSZ + 1];
	struct skg_error err;
	int rc = skg_object_hash_final_as(h, digest, &err);
	if (rc != 0 && err.code != SKG_E_COLLISION) {
		sk_error(0, "%s: %s", sk_quote(name), err.msg); /* (not as many bytes as fstat said) */
		return SK_EXIT_FAILURE;
	}
	skg_to_hex_len(digest, skg_format_rawsz(h->format), hex);
	if (rc != 0) {
		sk_error(0, "%s: %s; its SHA-1 would be %s", sk_quote(name), err.msg, hex);
		return SK_EXIT_COLLISION;
	}
	puts(hex);
	return flush_hash();
}

/* The path git's hash_fd has for the object (its filters' path): --path's, else none for
 * standard input or with --no-filters, which glibc prints as "(null)". */
static const char *git_path(const struct ho_state *st, const char *name)
{
	if (st->no_filters) {
		return NULL;
	}
	return st->vpath != NULL ? st->vpath : st->from_stdin ? NULL : name;
}

/* hash_fd's death, naming the path git has for the object (none: "(null)", as glibc prints it). */
static void unable_to_hash(const struct ho_state *st, const char *name)
{
	const char *path = git_path(st, name);
	sk_git_line("fatal: Unable to hash %s\n", path != NULL ? path : "(null)");
}

/* A regular file that ends before the size fstat gave: git's index_core fails ("short read while
 * indexing"), and hash_fd dies. */
static int short_read(const struct ho_state *st, const char *name)
{
	const char *path = git_path(st, name);
	fflush(stdout);
	sk_git_line("error: short read while indexing %s\n", path != NULL ? path : "<unknown>");
	unable_to_hash(st, name);
	return 128;
}

/* Hash `size` bytes from fd as the content of an object. Returns an exit status. */
static int hash_stream(struct ho_state *st, int fd, uint64_t size, const char *name)
{
	struct skg_object_hasher ctx;
	object_begin(&ctx, st->format, st->type, size);
	uint64_t left = size;
	while (left > 0) {
		size_t want = left < READ_SIZE ? (size_t)left : READ_SIZE;
		ssize_t got = read_some(fd, st->buf, want);
		if (got < 0) {
			sk_error(errno, "%s: read error", sk_quote(name));
			return SK_EXIT_FAILURE;
		}
		if (got == 0) {
			return short_read(st, name);
		}
		skg_object_hash_update(&ctx, st->buf, (size_t)got);
		left -= (uint64_t)got;
	}
	return object_end(&ctx, name);
}

/* The check's lines, as git prints them ("error: object fails fsck: ..."). */
static void print_report(void *ctx, const struct skg_report *r)
{
	(void)ctx;
	const char *prefix = skg_level_prefix(r->level);
	if (prefix != NULL) {
		fflush(stdout);
		fprintf(r->level == SKG_LEVEL_OUTPUT ? stdout : stderr, "%s%s\n", prefix, r->text);
	}
}

/* The gentle set-up's warnings that git hash-object prints (no early config: not the "ignoring
 * git dir" line). */
static void setup_report(void *ctx, const struct skg_report *r)
{
	if (r->id != SKG_R_SETUP_IGNORED) {
		print_report(ctx, r);
	}
}

/* Check (unless --literally) and hash an object held in memory. */
static int hash_memory(struct ho_state *st, const unsigned char *data, size_t size, const char *name)
{
	if (st->check) {
		struct skg_error err;
		if (skg_object_check(skg_type_from_name(st->type, strlen(st->type)), data, size, &st->opt,
		                     &err) != 0) {
			if (err.code == SKG_E_GIT) {
				/* git >= 2.40 dies so (object-file.c index_mem) */
				fflush(stdout);
				sk_git_line("fatal: %s\n", err.msg);
				return 128;
			}
			sk_error(err.sys_errno, "%s: %s", sk_quote(name), err.msg);
			return SK_EXIT_FAILURE;
		}
	}
	struct skg_object_hasher ctx;
	object_begin(&ctx, st->format, st->type, size);
	skg_object_hash_update(&ctx, data, size);
	return object_end(&ctx, name);
}

/* Copy the rest of fd into the temporary file `spill` after `data`, then hash the whole file. */
static int hash_spilled(struct ho_state *st, int fd, const unsigned char *data, size_t len, const char *name)
{
	FILE *spill = tmpfile();
	int status = SK_EXIT_FAILURE;
	if (spill == NULL) {
		sk_error(errno, "%s: cannot create a temporary file", sk_quote(name));
		return status;
	}
	int tfd = fileno(spill);
	uint64_t total = 0;
	const unsigned char *chunk = data;
	size_t n = len;
	for (;;) {
		while (n > 0) {
			ssize_t w = write(tfd, chunk, n);
			if (w < 0 && errno == EINTR) {
				continue;
			}
			if (w <= 0) {
				sk_error(errno, "%s: cannot write the temporary file", sk_quote(name));
				goto out;
			}
			chunk += w;
			n -= (size_t)w;
			total += (uint64_t)w;
		}
		ssize_t got = read_some(fd, st->buf, READ_SIZE);
		if (got < 0) {
			sk_error(errno, "%s: read error", sk_quote(name));
			goto out;
		}
		if (got == 0) {
			break;
		}
		chunk = st->buf;
		n = (size_t)got;
	}
	if (lseek(tfd, 0, SEEK_SET) != 0) {
		sk_error(errno, "%s: cannot read the temporary file back", sk_quote(name));
		goto out;
	}
	status = hash_stream(st, tfd, total, name);
out:
	fclose(spill);
	return status;
}

/*
 * Read fd to its end (a pipe, or a file whose size must be checked in memory) and hash it. For a
 * regular file exactly `known` bytes are read (Git reads st_size bytes); -1 = read to EOF.
 */
static int hash_unknown_size(struct ho_state *st, int fd, int64_t known, const char *name)
{
	unsigned char *data = NULL;
	size_t len = 0, cap = 0;
	int status;

	for (;;) {
		if (known >= 0 && len == (uint64_t)known) {
			break;
		}
		if (!st->check && len >= SPILL_SIZE) {
			status = hash_spilled(st, fd, data, len, name);
			free(data);
			return status;
		}
		if (cap - len < READ_SIZE) {
			size_t ncap = cap ? 2 * cap : READ_SIZE;
			if (known >= 0 && ncap > (uint64_t)known) {
				ncap = (size_t)known;
			}
			unsigned char *nd = ncap > cap ? realloc(data, ncap) : data;
			if (nd == NULL) {
				free(data);
				sk_error(ENOMEM, "%s", sk_quote(name));
				return SK_EXIT_FAILURE;
			}
			data = nd;
			cap = ncap;
		}
		size_t want = cap - len;
		if (known >= 0 && want > (uint64_t)known - len) {
			want = (size_t)((uint64_t)known - len);
		}
		ssize_t got = read_some(fd, data + len, want);
		if (got < 0) {
			free(data);
			sk_error(errno, "%s: read error", sk_quote(name));
			return SK_EXIT_FAILURE;
		}
		if (got == 0) {
			if (known >= 0) {
				free(data);
				return short_read(st, name);
			}
			break;
		}
		len += (size_t)got;
	}
	status = hash_memory(st, data != NULL ? data : (const unsigned char *)"", len, name);
	free(data);
	return status;
}

static int hash_fd(struct ho_state *st, int fd, const char *name)
{
	if (st->bad_type) { /* git 2.50+ hash_fd: type_from_string, once the object is open */
		sk_git_line("fatal: invalid object type \"%s\"\n", st->type);
		return 128;
	}
	struct stat sb;
	if (fstat(fd, &sb) != 0) {
		sk_error(errno, "%s", sk_quote(name));
		return SK_EXIT_FAILURE;
	}
	if (S_ISDIR(sb.st_mode)) {
		/* git's index_fd fails on it (read: EISDIR) and hash_fd dies, naming the path it has for
		 * the filters: none with --no-filters, which glibc prints as "(null)" */
		fflush(stdout);
		unable_to_hash(st, name);
		return 128;
	}
	if (S_ISREG(sb.st_mode)) {
		if (!st->check) {
#ifdef POSIX_FADV_SEQUENTIAL
			(void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
			return hash_stream(st, fd, (uint64_t)sb.st_size, name);
		}
		if ((uint64_t)sb.st_size > SIZE_MAX) {
			sk_error(EFBIG, "%s", sk_quote(name));
			return SK_EXIT_FAILURE;
		}
		return hash_unknown_size(st, fd, (int64_t)sb.st_size, name);
	}
	return hash_unknown_size(st, fd, -1, name);
}

static int hash_file(struct ho_state *st, const char *name)
{
	int fd;
	do {
		fd = open(name, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	} while (fd < 0 && errno == EINTR);
	int open_errno = errno;
	struct stat sb;
	if (fd < 0 && stat(name, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		/* a directory that does not open (Windows): git's line for one that does */
		fflush(stdout);
		unable_to_hash(st, name);
		return 128;
	}
	if (fd < 0) {
		/* git's xopen (wrapper.c) dies */
		fflush(stdout);
		sk_git_line("fatal: could not open '%s' for reading: %s\n", name, strerror(open_errno));
		return 128;
	}
	int status = hash_fd(st, fd, name);
	close(fd);
	return status;
}

/* --stdin-paths: the FILE names on standard input, one per line (builtin/hash-object.c
 * hash_stdin_paths: strbuf_getline drops the LF and a CR before it; a line that starts with '"' is
 * C-unquoted, or git dies "line is badly quoted"). Stops at the first failure, as git. */
static int hash_stdin_paths(struct ho_state *st)
{
	char *line = NULL, *name = NULL;
	size_t cap = 0, name_cap = 0;
	ssize_t n;
	int status = SK_EXIT_OK;
	while (status == SK_EXIT_OK && (n = getline(&line, &cap, stdin)) >= 0) {
		size_t len = (size_t)n;
		if (len > 0 && line[len - 1] == '\n') {
			len--;
			if (len > 0 && line[len - 1] == '\r') {
				len--;
			}
		}
		line[len] = '\0';
		const char *path = line;
		if (line[0] == '"') {
			if (name_cap < len + 1) {
				free(name);
				name_cap = len + 1;
				name = malloc(name_cap);
				if (name == NULL) {
					sk_error(ENOMEM, "standard input");
					status = SK_EXIT_FAILURE;
					break;
				}
			}
			size_t name_len;
			if (skg_unquote_c(line, len, name, &name_len, NULL) != 0) {
				fflush(stdout);
				fputs("fatal: line is badly quoted\n", stderr);
				status = 128;
				break;
			}
			name[name_len] = '\0'; /* a \000 in it ends the name, as in git's C string */
			path = name;
		}
		status = hash_file(st, path);
	}
	if (status == SK_EXIT_OK && ferror(stdin)) {
		sk_error(errno, "standard input: read error");
		status = SK_EXIT_FAILURE;
	}
	free(line);
	free(name);
	return status;
}

/* git's prefix_filename: `name` from the current directory as a path from the top of the work
 * tree, `prefix` the directory's path from the top with its slash; an absolute name as it is.
 * NULL (with the error printed) when out of memory. */
static char *with_prefix(const char *prefix, const char *name)
{
	size_t pl = name[0] == '/' ? 0 : strlen(prefix), nl = strlen(name);
	char *s = malloc(pl + nl + 2);
	if (s == NULL) {
		sk_error(ENOMEM, HO_CMD);
		return NULL;
	}
	memcpy(s, prefix, pl);
	memcpy(s + pl, name, nl + 1);
	return s;
}

int sk_cmd_hash_object(int argc, char **argv)
{
	struct ho_state st = {.type = "blob"};
	int c, stdin_count = 0;
	bool stdin_paths = false;

	optind = 0; /* full re-initialisation of getopt (GNU) */
	while ((c = getopt_long(argc, argv, "t:h", ho_options, NULL)) != -1) {
		switch (c) {
		case 't':
			st.type = optarg;
			break;
		case OPT_STDIN:
			stdin_count++;
			break;
		case OPT_STDIN_PATHS:
			stdin_paths = true;
			break;
		case OPT_LITERALLY:
			st.literally = true;
			break;
		case OPT_NO_FILTERS:
			st.no_filters = true;
			break;
		case OPT_NO_STDIN:
			stdin_count = 0;
			break;
		case OPT_NO_STDIN_PATHS:
			stdin_paths = false;
			break;
		case OPT_NO_LITERALLY:
			st.literally = false;
			break;
		case OPT_FILTERS: /* no filters run here either way (no attributes are read): the path */
			st.no_filters = false;
			break;
		case OPT_PATH: /* the filters' path: none runs here; git's messages name it */
			st.vpath = optarg;
			break;
		case OPT_NO_PATH:
			st.vpath = NULL;
			break;
		case OPT_HELP:
			ho_usage();
			return sk_finish_git(SK_EXIT_OK, 128);
		case 'h':
			ho_usage(); /* git's -h: the usage on standard output, status 129 */
			return sk_finish_git(129, 128);
		case OPT_VERSION:
			sk_print_version();
			return sk_finish_git(SK_EXIT_OK, 128);
		default:
			sk_usage_exit(USAGE_STATUS, HO_CMD, NULL);
		}
	}
	sk_git_command_config(); /* git -c KEY=VALUE that does not parse: git dies at its config read */
	/* builtin/hash-object.c's checks, in its order and words (the last one found wins) */
	const char *errstr = NULL;
	if (stdin_paths) {
		errstr = stdin_count > 0    ? "Can't use --stdin-paths with --stdin"
		         : optind < argc    ? "Can't specify files with --stdin-paths"
		         : st.vpath != NULL ? "Can't use --stdin-paths with --path"
		                            : NULL;
	} else {
		errstr = stdin_count > 1 ? "Multiple --stdin arguments are not supported" : NULL;
		if (st.vpath != NULL && st.no_filters) {
			errstr = "Can't use --path with --no-filters";
		}
	}
	if (errstr != NULL) {
		sk_usage_exit(USAGE_STATUS, HO_CMD, "%s", errstr);
	}
	st.bad_type = strcmp(st.type, "blob") != 0 && strcmp(st.type, "tree") != 0 &&
	              strcmp(st.type, "commit") != 0 && strcmp(st.type, "tag") != 0;
	st.check = !st.literally && !st.bad_type && strcmp(st.type, "blob") != 0;

	/* the repository the check reads .gitmodules blobs from, when there is one (git's gentle
	 * setup: outside one, none) */
	struct skg_repo *repo = NULL;
	struct skg_error err;
	skg_hash_options_default(&st.opt);
	st.opt.sink.report = print_report;
	st.format = SKG_FORMAT_SHA1;
	const struct skg_sink setup = {setup_report, NULL};
	unsigned git_version = SKG_GIT_2_55;
	sk_git_version_env(HO_CMD, USAGE_STATUS, &git_version);
	int opened = skg_repo_open_gently(&repo, git_version, &setup, &err);
	if (opened == 0 && repo != NULL) {
		st.format = skg_repo_object_format(repo);
		st.opt.object_format = st.format; /* the checks read IDs of the repository's format */
		if (st.check) {
			st.opt.objects_dir = skg_repo_objects_dir(repo);
		}
	} else if (opened != 0 && err.code == SKG_E_UNSUPPORTED) {
		/* git hashes with SHA-256 there: a SHA-1 ID would be wrong, so none is printed */
		sk_git_line("fatal: %s\n", err.msg);
		return sk_finish_git(128, 128);
	} else {
		repo = NULL;
	}
	static _Alignas(64) unsigned char read_buf[READ_SIZE];
	st.buf = read_buf;
	int status = SK_EXIT_OK;
	/* git's set-up moves to the top of the work tree when started inside it: the operands and
	 * --path get the current directory's path from the top put before them (prefix_filename:
	 * git's messages name them so), the --stdin-paths names are read from the top as they are */
	char *prefix = NULL, *vpath_free = NULL;
	const char *wt = repo != NULL ? skg_repo_work_tree(repo) : NULL;
	if (wt != NULL) {
		char *cwd = getcwd(NULL, 0);
		size_t tl = strlen(wt);
		if (cwd != NULL && strncmp(cwd, wt, tl) == 0 && (cwd[tl] == '/' || cwd[tl] == '\0')) {
			if (cwd[tl] == '/' && (prefix = malloc(strlen(cwd + tl + 1) + 2)) == NULL) {
				sk_error(ENOMEM, HO_CMD);
				status = SK_EXIT_FAILURE;
			} else if (cwd[tl] == '/') {
				sprintf(prefix, "%s/", cwd + tl + 1);
			}
			if (status == SK_EXIT_OK && chdir(wt) != 0) {
				sk_error(errno, "%s", sk_quote(wt));
				status = SK_EXIT_FAILURE;
			}
		}
		free(cwd);
	}
	if (status == SK_EXIT_OK && st.vpath != NULL && prefix != NULL) {
		if ((vpath_free = with_prefix(prefix, st.vpath)) == NULL) {
			status = SK_EXIT_FAILURE;
		}
		st.vpath = vpath_free;
	}
	if (status != SK_EXIT_OK) {
		free(prefix);
		skg_repo_free(repo);
		return sk_finish_git(status, 128);
	}
	if (stdin_count) {
		st.from_stdin = true;
		status = hash_fd(&st, STDIN_FILENO, "standard input");
		st.from_stdin = false;
	}
	for (int i = optind; i < argc && status == SK_EXIT_OK; i++) {
		char *name = prefix != NULL ? with_prefix(prefix, argv[i]) : NULL;
		status = prefix != NULL && name == NULL ? SK_EXIT_FAILURE
		                                        : hash_file(&st, name != NULL ? name : argv[i]);
		free(name);
	}
	if (stdin_paths && status == SK_EXIT_OK) {
		status = hash_stdin_paths(&st);
	}
	free(vpath_free);
	free(prefix);
	skg_repo_free(repo);
	return sk_finish_git(status, 128);
}
