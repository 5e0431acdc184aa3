/*
 * hash_object.c - `sha1kit hash-object`: the Git object ID of files, like `git hash-object`.
 *
 * A Git object ID is the SHA-1 of "<type> <size in decimal>\0" followed by the content (Git's
 * Documentation/gitformat-*: the loose-object header). We hash it with SHA-1DC, so an object that
 * carries a known collision attack is refused, as Git (built with SHA-1DC) refuses it.
 *
 * Behaviour follows `git hash-object` (checked against Git 2.39 by tests/compat/test_hash_object.sh):
 *  - standard input (--stdin) is hashed first, then each FILE, one ID per line; "-" is a file name;
 *  - without --literally the type must be blob, tree, commit or tag, and tree, commit and tag
 *    content must pass Git 2.39's format check (index_mem -> check_tree/check_commit/check_tag:
 *    tree-walk.c decode_tree_entry, commit.c parse_commit_buffer, tag.c parse_tag_buffer), re-stated
 *    below from the behaviour; with --literally any type string is accepted and nothing is checked;
 *  - no filters: the content is hashed as is (= `git hash-object --no-filters`);
 *  - the first failure ends the command (Git dies there too).
 * Not modelled: Git's object table across the objects of one run (Git rejects a commit or tag that
 * names an ID an earlier object of the run named as another type), and -w, --path, --stdin-paths.
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
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "digest.h"

#define HO_CMD     "hash-object"
#define READ_SIZE  (256 * 1024)
#define SPILL_SIZE ((size_t)64 << 20) /* input of unknown size kept in memory up to this */
#define HEXSZ      40                 /* hexadecimal digits of a SHA-1 object ID */
#define RAWSZ      20

enum { OPT_STDIN = 256, OPT_LITERALLY, OPT_NO_FILTERS, OPT_HELP, OPT_VERSION };

static const struct option ho_options[] = {
    {"stdin", no_argument, NULL, OPT_STDIN},           {"literally", no_argument, NULL, OPT_LITERALLY},
    {"no-filters", no_argument, NULL, OPT_NO_FILTERS}, {"help", no_argument, NULL, OPT_HELP},
    {"version", no_argument, NULL, OPT_VERSION},       {NULL, 0, NULL, 0},
};

struct ho_state {
	const char *type; /* object type string */
	bool literally;   /* no type restriction, no format check */
	bool check;       /* the content must be in memory for a format check */
	unsigned char *buf;
};

static void ho_usage(void)
{
	fputs("Usage: sha1kit hash-object [-t TYPE] [--literally] [--stdin] [--] [FILE]...\n"
	      "Print the Git object ID of each FILE, as 'git hash-object' does: the SHA-1 of\n"
	      "\"TYPE SIZE\\0\" followed by the content. Every object is hashed with SHA-1DC;\n"
	      "an object in which a SHA-1 collision attack is detected is an error, as in Git.\n"
	      "\n"
	      "  -t TYPE           object type: blob (default), tree, commit or tag\n"
	      "      --stdin       read an object from standard input (before the FILEs)\n"
	      "      --literally   accept any TYPE and skip the format check (for making\n"
	      "                      corrupt objects, as in Git)\n"
	      "      --no-filters  accepted for compatibility: the content is always hashed\n"
	      "                      as is, without Git's filters (end-of-line conversion,\n"
	      "                      clean filters of .gitattributes)\n"
	      "      --help        display this help and exit\n"
	      "      --version     output version information and exit\n"
	      "\n"
	      "One ID per line: standard input first, then the FILEs in order. A FILE named\n"
	      "'-' is a file of that name, as in Git; use --stdin for standard input.\n"
	      "Without --literally, tree, commit and tag content must pass Git's format check\n"
	      "(as Git 2.39): a tree is a sequence of entries 'MODE NAME\\0' + 20-byte ID, a\n"
	      "commit starts with a 'tree ID' line and well-formed 'parent ID' lines, a tag\n"
	      "starts with 'object ID', 'type TYPE' and 'tag NAME' lines. The result equals\n"
	      "'git hash-object --no-filters'. Nothing is written to a repository (no -w).\n"
	      "\n"
	      "Exit status:\n"
	      "  0  success\n"
	      "  1  a FILE could not be read, an object failed the format check, a usage\n"
	      "     error, a write error\n"
	      "  2  a SHA-1 collision attack was detected in an object\n"
	      "Processing stops at the first error, as in Git; the IDs printed before stand.\n"
	      "\n"
	      "Examples:\n"
	      "  sha1kit hash-object README.md           ID of the file as a blob\n"
	      "  git cat-file tree HEAD^{tree} | sha1kit hash-object -t tree --stdin\n"
	      "                                          the ID of HEAD's tree again\n",
	      stdout);
}

/* ------------------------------------------------------------------------------------------------ */
/* Git 2.39's format checks                                                                         */
/* ------------------------------------------------------------------------------------------------ */

static int hexval(unsigned char c)
{
	if (c >= '0' && c <= '9') {
		return c - '0';
	}
	if (c >= 'a' && c <= 'f') {
		return c - 'a' + 10;
	}
	if (c >= 'A' && c <= 'F') {
		return c - 'A' + 10;
	}
	return -1;
}

/* 40 hexadecimal digits of either case at p (Git's get_oid_hex), decoded into id. */
static bool parse_hex_id(const unsigned char *p, unsigned char id[RAWSZ])
{
	for (int i = 0; i < RAWSZ; i++) {
		int hi = hexval(p[2 * i]), lo = hexval(p[2 * i + 1]);
		if (hi < 0 || lo < 0) {
			return false;
		}
		id[i] = (unsigned char)(hi << 4 | lo);
	}
	return true;
}

/* Tree: entries "MODE NAME\0" + 20 bytes; MODE non-empty octal digits, NAME non-empty. Each entry
 * is decoded only where the byte 21 from the end of what is left is a NUL (Git's sanity check). */
static bool check_tree(const unsigned char *p, size_t size)
{
	while (size > 0) {
		if (size < RAWSZ + 3 || p[size - (RAWSZ + 1)] != 0 || p[0] == ' ') {
			return false;
		}
		size_t i = 0;
		for (; p[i] != ' '; i++) { /* stops at the NUL at size - 21 at the latest */
			if (p[i] < '0' || p[i] > '7') {
				return false;
			}
		}
		i++;
		if (p[i] == 0) {
			return false; /* empty file name */
		}
		const unsigned char *nul = memchr(p + i, 0, size - i);
		size_t len = (size_t)(nul - p) + 1 + RAWSZ;
		if (size < len) {
			return false; /* too-short tree file */
		}
		p += len;
		size -= len;
	}
	return true;
}

/*
 * Commit: "tree ID\n" and at least one byte more, then "parent ID\n" lines (a "parent " that starts
 * within the last 48 bytes ends the list, and one that starts with exactly 48 left is an error). Git
 * also looks the IDs up in its object table: a parent equal to the tree is "a tree, not a commit".
 */
static bool check_commit(const unsigned char *p, size_t size)
{
	const size_t tree_len = HEXSZ + 5, parent_len = HEXSZ + 7;
	unsigned char tree[RAWSZ], parent[RAWSZ];
	if (size <= tree_len + 1 || memcmp(p, "tree ", 5) != 0 || p[tree_len] != '\n' ||
	    !parse_hex_id(p + 5, tree)) {
		return false;
	}
	size_t i = tree_len + 1;
	while (i + parent_len < size && memcmp(p + i, "parent ", 7) == 0) {
		if (size <= i + parent_len + 1 || !parse_hex_id(p + i + 7, parent) ||
		    p[i + parent_len] != '\n' || memcmp(parent, tree, RAWSZ) == 0) {
			return false;
		}
		i += parent_len + 1;
	}
	return true;
}

/* Tag: at least 64 bytes; "object ID\n", "type T\n" with T (up to its first NUL) one of the four
 * types and the line under 20 bytes, then "tag " with at least one more byte and a newline after. */
static bool check_tag(const unsigned char *p, size_t size)
{
	static const char *const types[] = {"blob", "tree", "commit", "tag"};
	const unsigned char *end = p + size;

	unsigned char id[RAWSZ];
	if (size < HEXSZ + 24 || memcmp(p, "object ", 7) != 0 || !parse_hex_id(p + 7, id) ||
	    p[7 + HEXSZ] != '\n') {
		return false;
	}
	p += 8 + HEXSZ;
	if (memcmp(p, "type ", 5) != 0) { /* 16 bytes are left here */
		return false;
	}
	p += 5;
	const unsigned char *nl = memchr(p, '\n', (size_t)(end - p));
	if (nl == NULL || nl - p >= 20) {
		return false;
	}
	char type[20];
	memcpy(type, p, (size_t)(nl - p));
	type[nl - p] = '\0';
	bool known = false;
	for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); k++) {
		known = known || strcmp(type, types[k]) == 0;
	}
	if (!known) {
		return false;
	}
	p = nl + 1;
	if (!(end - p > 4 && memcmp(p, "tag ", 4) == 0)) {
		return false;
	}
	p += 4;
	return memchr(p, '\n', (size_t)(end - p)) != NULL;
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

/* Start an object: SHA-1DC (Git's settings: detection on, true digest) over the header. */
static void object_begin(sha1kit_dc_ctx *ctx, const char *type, uint64_t size)
{
	char header[64];
	sha1kit_dc_init(ctx, NULL);
	sha1kit_dc_update(ctx, type, strlen(type));
	int n = snprintf(header, sizeof(header), " %" PRIu64, size);
	sha1kit_dc_update(ctx, header, (size_t)n + 1); /* with the terminating NUL */
}

/* Finish an object: print its ID, or report the collision. Returns an exit status. */
static int object_end(sha1kit_dc_ctx *ctx, const char *name)
{
	uint8_t digest[SHA1KIT_DIGEST_SIZE];
	sha1kit_dc_detection where;
	char hex[2 * SHA1KIT_DIGEST_SIZE + 1];

	sha1kit_dc_result r = sha1kit_dc_final(ctx, digest, &where);
	sk_hex(digest, hex);
	if (r == SHA1KIT_DC_COLLISION) {
		const char *dv = sha1kit_dv_name(where.dv);
		sk_error(0,
		         "%s: SHA-1 collision attack detected in the Git object (disturbance vector %s, "
		         "block at byte offset %ju of the object, header included); its SHA-1 would be %s",
		         sk_quote(name), dv != NULL ? dv : "?", (uintmax_t)where.offset, hex);
		return SK_EXIT_COLLISION;
	}
	puts(hex);
	return SK_EXIT_OK;
}

/* Hash `size` bytes from fd as the content of an object. Returns an exit status. */
static int hash_stream(struct ho_state *st, int fd, uint64_t size, const char *name)
{
	sha1kit_dc_ctx ctx;
	object_begin(&ctx, st->type, size);
	uint64_t left = size;
	while (left > 0) {
		size_t want = left < READ_SIZE ? (size_t)left : READ_SIZE;
		ssize_t got = read_some(fd, st->buf, want);
		if (got < 0) {
			sk_error(errno, "%s: read error", sk_quote(name));
			return SK_EXIT_FAILURE;
		}
		if (got == 0) {
			sk_error(0, "%s: short read (the file shrank while it was read)", sk_quote(name));
			return SK_EXIT_FAILURE;
		}
		sha1kit_dc_update(&ctx, st->buf, (size_t)got);
		left -= (uint64_t)got;
	}
	return object_end(&ctx, name);
}

/* Check (unless --literally) and hash an object held in memory. */
static int hash_memory(struct ho_state *st, const unsigned char *data, size_t size, const char *name)
{
	if (st->check) {
		bool ok = strcmp(st->type, "tree") == 0     ? check_tree(data, size)
		          : strcmp(st->type, "commit") == 0 ? check_commit(data, size)
		                                            : check_tag(data, size);
		if (!ok) {
			sk_error(0, "%s: corrupt %s object (fails Git's format check; see --literally)",
			         sk_quote(name), st->type);
			return SK_EXIT_FAILURE;
		}
	}
	sha1kit_dc_ctx ctx;
	object_begin(&ctx, st->type, size);
	sha1kit_dc_update(&ctx, data, size);
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
				sk_error(0, "%s: short read (the file shrank while it was read)",
				         sk_quote(name));
				return SK_EXIT_FAILURE;
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
	struct stat sb;
	if (fstat(fd, &sb) != 0) {
		sk_error(errno, "%s", sk_quote(name));
		return SK_EXIT_FAILURE;
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
	if (fd < 0) {
		sk_error(errno, "%s", sk_quote(name));
		return SK_EXIT_FAILURE;
	}
	int status = hash_fd(st, fd, name);
	close(fd);
	return status;
}

int sk_cmd_hash_object(int argc, char **argv)
{
	struct ho_state st = {.type = "blob"};
	int c, stdin_count = 0;

	optind = 0; /* full re-initialisation of getopt (GNU) */
	while ((c = getopt_long(argc, argv, "t:", ho_options, NULL)) != -1) {
		switch (c) {
		case 't':
			st.type = optarg;
			break;
		case OPT_STDIN:
			stdin_count++;
			break;
		case OPT_LITERALLY:
			st.literally = true;
			break;
		case OPT_NO_FILTERS:
			break;
		case OPT_HELP:
			ho_usage();
			return sk_finish(SK_EXIT_OK, false);
		case OPT_VERSION:
			sk_print_version();
			return sk_finish(SK_EXIT_OK, false);
		default:
			sk_usage_error(HO_CMD, NULL);
		}
	}
	if (stdin_count > 1) {
		sk_usage_error(HO_CMD, "multiple --stdin options are not supported");
	}
	if (!st.literally) {
		if (strcmp(st.type, "blob") != 0 && strcmp(st.type, "tree") != 0 &&
		    strcmp(st.type, "commit") != 0 && strcmp(st.type, "tag") != 0) {
			sk_usage_error(
			    HO_CMD,
			    "invalid object type '%s' (blob, tree, commit or tag; any with --literally)",
			    st.type);
		}
		st.check = strcmp(st.type, "blob") != 0;
	}

	static _Alignas(64) unsigned char read_buf[READ_SIZE];
	st.buf = read_buf;
	int status = SK_EXIT_OK;
	if (stdin_count) {
		status = hash_fd(&st, STDIN_FILENO, "standard input");
	}
	for (int i = optind; i < argc && status == SK_EXIT_OK; i++) {
		status = hash_file(&st, argv[i]);
	}
	return sk_finish(status, stdin_count > 0);
}
