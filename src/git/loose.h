/*
 * loose.h - Git loose objects: the files objects/xx/<38 hex digits>, zlib streams of
 * "<type> <size>\0<content>" whose SHA-1 is the object ID named by the path.
 *
 * Part of the Git layer (src/git/, library sha1kit_git). Sources: Git's
 * Documentation/gitformat-loose.txt ("Loose objects", "Object format"), RFC 1950 (the zlib stream),
 * and git 2.39.5 itself: every diagnostic below is worded as `git fsck --full` prints it, which was
 * established by running git 2.39.5 on corrupted repositories (tests/git/test_loose.sh compares).
 *
 * What git 2.39.5 `git fsck --full` does with a loose object, and what this module reproduces:
 *  - The walk visits objects/00 ... objects/ff (lowercase), in that order, each in readdir order. A
 *    name of 38 hex digits (either case) is an object; a name starting "tmp_obj_" is skipped
 *    silently; anything else (files, directories, 37 or 39 digits, "G" among digits) gives the line
 *    "bad sha1 file: PATH" on stderr, without "error: " and without changing the exit status. A
 *    subdirectory that exists but cannot be opened (e.g. objects/13 is a file) gives "error: unable
 *    to open PATH: STRERROR" and ends the walk there (git does not look at the later
 *    subdirectories); this does not change git's exit status either.
 *  - An object is inflated with zlib: first into a 32-byte header buffer in one inflate call; the
 *    header must end (NUL byte) in the bytes that call produced, else "unable to unpack header".
 *    The header is "<type> <size>\0": the type is every byte up to the first space (any bytes; a
 *    name other than commit/tree/blob/tag is an "unknown type", which git reads, hashes and
 *    reports), the size is canonical decimal (no leading zero, no sign, no blank), overflowing
 *    64 bits is fatal ("size_t overflow: A * 10" / "size_t overflow: A + D").
 *  - Blobs larger than core.bigFileThreshold (512 MiB by default) are streamed: hashed while
 *    inflated, never held in memory. Everything else is inflated into a buffer of the header's
 *    size: content beyond it that was already inflated with the header (within the first 32
 *    bytes) is dropped silently, content beyond it after that is "corrupt"; content shorter than
 *    the header says is not an inflate error: git hashes its buffer of the header's size, whose
 *    tail it never wrote (heap garbage, zeros for a fresh allocation), and reports a hash-path
 *    mismatch with that ID. This module hashes zeros there (git's ID for a large size, where the
 *    allocation is fresh; for small sizes git's ID is unpredictable).
 *  - The ID is SHA-1 of header and content with collision detection (SHA-1DC). Git dies when it
 *    detects a collision attack ("fatal: SHA-1 appears to be part of a collision attack: HEX");
 *    this module reports it as an error of its own (SKG_LOOSE_COLLISION) and goes on.
 *
 * Diagnostics come back as text lines (struct skg_lines) exactly as git prints them on stderr,
 * with their "error: " / "fatal: " prefix, so that a command prints them unchanged. This module
 * never prints and never exits; it keeps no global mutable state. Each reader is used by one
 * thread at a time.
 */
#ifndef SHA1KIT_GIT_LOOSE_H
#define SHA1KIT_GIT_LOOSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "object.h"
#include "sha1kit.h"

/* ---- Diagnostic lines ------------------------------------------------------------------------ */

/* Room for the lines of one object or one file: a few lines of up to 4096 bytes each. */
#define SKG_LINES_SIZE 16384

/*
 * Lines as git writes them to stderr: each ends with '\n', the whole is NUL-terminated. Lines
 * git writes through error()/warning()/die() carry its prefix ("error: ", "warning: ", "fatal: "),
 * have control characters other than tab and newline replaced by '?', and are cut to 4095 bytes,
 * as git does; lines git writes with fprintf (e.g. "bad sha1 file: PATH", the commit-graph and
 * multi-pack-index verify reports) are unprefixed and unchanged. When a line does not fit,
 * `truncated` is set and the line is dropped.
 */
struct skg_lines {
	size_t len;     /* bytes of text, without the final NUL */
	unsigned count; /* number of lines as printed: newline characters in text (a message can
	                 * hold one, e.g. an unknown type name, which git prints as it is) */
	bool truncated; /* some line did not fit and was left out */
	bool nomem;     /* memory ran out while they were made (skg_lines_nomem): an error of the
	                 * run, not a finding; the lines before stand, nothing after follows */
	char text[SKG_LINES_SIZE];
};

/*
 * A progress meter a check drives from inside, as git's progress.c calls (start_progress,
 * display_progress, stop_progress): what SKG_METER_START with the meter's title and total,
 * SKG_METER_SHOW with the count done, SKG_METER_STOP. `lines` holds the check's lines so far: the
 * callee sends them before it draws, so that both come out in git's order.
 */
enum skg_meter_event { SKG_METER_START, SKG_METER_SHOW, SKG_METER_STOP };
typedef void (*skg_meter_fn)(void *ctx, struct skg_lines *lines, enum skg_meter_event what, const char *title,
                             uint64_t value);

/* Empty `lines`. */
void skg_lines_clear(struct skg_lines *lines);

/* Memory ran out: the lines end here, with no line of their own (lines->nomem). */
void skg_lines_nomem(struct skg_lines *lines);

/*
 * Append one line: `prefix` (e.g. "error: "; NULL for an unprefixed fprintf-style line) and the
 * printf-formatted message, with git's treatment of either kind (above), and a newline.
 */
void skg_lines_add(struct skg_lines *lines, const char *prefix, const char *fmt, ...) SKG_PRINTF(3, 4);

/* ---- The walk over an objects directory -------------------------------------------------------- */

/*
 * Called for every loose object file: its ID (from the path) and its path, OBJDIR/xx/NAME with
 * NAME as found (upper-case digits stay upper case). Non-zero stops the walk with that value.
 */
typedef int (*skg_loose_object_fn)(void *ctx, const uint8_t *id, const char *path);

/*
 * Called for what the walk reports besides objects, with git's line: "bad sha1 file: PATH"
 * (is_error false) or "error: unable to open PATH: STRERROR" (is_error true; the walk then stops,
 * as git's does). Neither changes git fsck's exit status. Non-zero stops the walk with that value.
 * The line has no final newline.
 */
typedef int (*skg_loose_report_fn)(void *ctx, const char *line, bool is_error);

/*
 * Walk the loose objects of `objdir` as git does (objects/00..ff, readdir order; see above), with
 * IDs of rawsz bytes (20; or 32 in a SHA-256 repository: names of 62 hex digits, others are
 * "bad sha1 file" as in git).
 * Paths are objdir + "/" + "xx/NAME" ("/" left out when objdir ends with one), as git forms them.
 * `on_report` may be NULL. Returns 0 when every subdirectory was visited, a callback's non-zero
 * value when one stopped the walk, SKG_LOOSE_WALK_STOPPED when a subdirectory could not be opened
 * (reported; git fsck stops its walk there too, then goes on with the packs and the rest, its exit
 * status unchanged), SKG_LOOSE_WALK_NOMEM when memory ran out (reported as "fatal: Out of memory,
 * malloc failed ..." with is_error true).
 */
#define SKG_LOOSE_WALK_STOPPED (-1)
#define SKG_LOOSE_WALK_NOMEM   (-2)
int skg_loose_for_each(const char *objdir, size_t rawsz, skg_loose_object_fn on_object,
                       skg_loose_report_fn on_report, void *ctx);

/* ---- Reading objects ----------------------------------------------------------------------------- */

/* What became of one loose object (the lines say it in git's words). */
enum skg_loose_status {
	SKG_LOOSE_OK = 0,           /* known type, ID equals the path's */
	SKG_LOOSE_UNKNOWN_TYPE = 1, /* read and hashed, ID equals the path's, type not one of the four:
	                             * "error: ID: object is of unknown type 'T': PATH" */
	SKG_LOOSE_CORRUPT = 2,      /* git's read_loose_object failed: the lines end with
	                             * "error: ID: object corrupt or missing: PATH" (then, for an
	                             * unknown type, the unknown-type line with the null ID) */
	SKG_LOOSE_MISMATCH = 3,     /* inflated fine but hashes to another ID:
	                             * "error: REAL: hash-path mismatch, found at: PATH" */
	SKG_LOOSE_COLLISION = 4,    /* SHA-1DC detected a collision attack in header + content:
	                             * "error: ID: SHA-1 collision attack detected (disturbance vector
	                             * II(52,0), block at byte offset N): PATH" (git would die) */
	SKG_LOOSE_FATAL = 5,        /* git 2.39.5 dies here: one line "fatal: ..." (mmap of a
	                             * non-regular file, a size overflowing 64 bits, an allocation git
	                             * cannot make: a header size at or above max_size) */
	SKG_LOOSE_NOMEM = 6,        /* memory ran out in this reader (its buffers, zlib's): an error of
	                             * the run, not a finding about the object; no lines */
};

/* Options of a reader. Fill with skg_loose_options_default() first. */
struct skg_loose_options {
	/* core.bigFileThreshold: blobs whose size is above it are streamed (not held in memory).
	 * Default 512 MiB, git's. */
	uint64_t big_file_threshold;
	/* Model of git's allocation of a non-streamed object's buffer (size + 1 bytes): a header size
	 * at or above this limit is reported as git reports a failed allocation ("fatal: Out of
	 * memory, malloc failed (tried to allocate SIZE+1 bytes)"); smaller sizes are read (memory
	 * grows only with the content actually inflated, zeros are hashed for what is missing).
	 * Default 8 GiB; 0 = no limit. */
	uint64_t max_size;
	/* Read again an object already checked (fsck's walk re-reading loose trees): skip the SHA-1DC
	 * of a complete object; it comes back SKG_LOOSE_OK with have_id false. Default false. */
	bool no_hash;
	/* A header whose type git does not know fails the read there, as in git 2.50 and later
	 * (4ae0e9423c, "fsck: stop using object_info->type_name strbuf"): "error: unable to parse
	 * type from header 'HEADER' of PATH", "error: ID: object corrupt or missing: PATH" (ID the
	 * path's), the content not read, no "hash-path mismatch" nor "object is of unknown type"
	 * line. False (default): git 2.39.5's lines. */
	bool unknown_type_corrupt;
	/* skg_loose_reparse of an empty file: git 2.40 and later (9e59b38c88, "object-file: emit
	 * corruption errors when detected") take it for an object that is not there ("object file
	 * PATH is empty", then SKG_REPARSE_MISMATCH), where git 2.39.5 dies because the file exists
	 * ("fatal: loose object ID (stored in PATH) is corrupt"). False (default): 2.39.5's. */
	bool empty_not_found;
	/* Bytes of an object ID: SKG_RAWSZ (20, the default: SHA-1DC, file names of 38 hex digits)
	 * or SKG_MAX_RAWSZ (32: a SHA-256 repository, gitformat-loose / hash-function-transition:
	 * names of 62 hex digits, IDs the SHA-256 of header and content, no collision detection).
	 * The IDs this reader takes and gives (expect_id, id, callbacks) are that many bytes. */
	size_t rawsz;
};

/* Fill `opt` with the defaults above. */
void skg_loose_options_default(struct skg_loose_options *opt);

/*
 * One object as read. `content` (when not NULL) points into the reader's memory and stays valid
 * until the next call on the reader (or, in a skg_loose_check_all() callback, until it returns).
 */
struct skg_loose_object {
	bool have_type;                 /* the header had a type word (the bytes before its first
	                                 * space); set even when the size after it is bad */
	bool have_header;               /* the whole header parsed (type and size are set) */
	enum skg_type type;             /* SKG_NONE for an unknown type name (or no type word) */
	char type_name[SKG_HEADER_MAX]; /* the header's type as in the file, NUL-terminated */
	size_t type_len;                /* its length (it may contain any byte but NUL and space) */
	uint64_t size;                  /* the header's size */
	bool streamed;                  /* a blob above big_file_threshold: content was not kept */
	const uint8_t *content;         /* OK / UNKNOWN_TYPE, not streamed: `size` bytes and a NUL */
	bool have_id;                   /* header and content were hashed: id and where are valid */
	uint8_t id[SKG_MAX_RAWSZ];      /* SHA-1 (or SHA-256: rawsz) of header + content (git's
	                                 * "real" ID) */
	sha1kit_dc_detection where;     /* dv >= 0: a collision attack was detected; offset counts
	                                 * the hashed bytes, the header included */
};

/*
 * Receives the content of a streamed blob as it is inflated and hashed (the bytes git hashes
 * after the header, in order; possibly fewer or more than the header's size when the object is
 * corrupt). May be NULL.
 */
typedef void (*skg_loose_stream_fn)(void *ctx, const uint8_t *data, size_t len);

struct skg_loose_reader;

/* A reader (one reused zlib state and buffers); NULL when out of memory. opt NULL: defaults. */
struct skg_loose_reader *skg_loose_reader_new(const struct skg_loose_options *opt);

/* Free a reader (NULL allowed). */
void skg_loose_reader_free(struct skg_loose_reader *r);

/*
 * Read, inflate and check the loose object at `path`, which should have the ID `expect_id` (the
 * path's). Fills `out` and replaces `lines` with what git fsck prints for this object up to its
 * parse of the content (nothing for SKG_LOOSE_OK). Returns an enum skg_loose_status.
 * For an empty file, git's lines are "object file PATH is empty", "unable to mmap PATH: No such
 * file or directory" (git reports a stale errno there) and "object corrupt or missing".
 */
int skg_loose_read(struct skg_loose_reader *r, const char *path, const uint8_t *expect_id,
                   skg_loose_stream_fn stream, void *stream_ctx, struct skg_loose_object *out,
                   struct skg_lines *lines);

/*
 * skg_loose_read() of a loose object file already in memory: `data`, `len` bytes (len 0 is the
 * empty file); `path` is used in the messages only. The data is only read.
 */
int skg_loose_parse(struct skg_loose_reader *r, const uint8_t *data, size_t len, const char *path,
                    const uint8_t *expect_id, skg_loose_stream_fn stream, void *stream_ctx,
                    struct skg_loose_object *out, struct skg_lines *lines);

/*
 * Called by skg_loose_check_all() for every object, in the walk's order, with its ID (from the
 * path), path, status (enum skg_loose_status), what was read and the lines git prints for it.
 * All pointers are valid during the call only. Non-zero stops the walk with that value.
 */
typedef int (*skg_loose_checked_fn)(void *ctx, const uint8_t *id, const char *path, int status,
                                    const struct skg_loose_object *obj, const struct skg_lines *lines);

/*
 * The loose-object part of git fsck: skg_loose_for_each() over `objdir`, reading every object as
 * skg_loose_read() does. Small objects are inflated into one arena and their IDs computed
 * together with sha1kit_dc_batch(); callbacks still come one object at a time in the walk's order.
 * Streamed blobs are not passed to any stream function. Returns as skg_loose_for_each().
 */
int skg_loose_check_all(struct skg_loose_reader *r, const char *objdir, skg_loose_checked_fn on_object,
                        skg_loose_report_fn on_report, void *ctx);

/*
 * skg_loose_check_all() over the fan-out directories first .. first + count - 1 only (objdir/xx
 * with xx = first as two lowercase hex digits, and so on; none past ff). Readers are not shared:
 * several threads can each check their own directories with their own reader, as fsck does.
 */
int skg_loose_check_dirs(struct skg_loose_reader *r, const char *objdir, unsigned first, unsigned count,
                         skg_loose_checked_fn on_object, skg_loose_report_fn on_report, void *ctx);

/* Results of skg_loose_reparse. */
enum skg_reparse_result {
	SKG_REPARSE_OK = 0,       /* read back whole, with the ID asked for */
	SKG_REPARSE_MISMATCH = 1, /* read (or, a blob, streamed) but with another ID or not whole:
	                           * "error: hash mismatch ID"; git goes on, the object is absent */
	SKG_REPARSE_DIES = 2,     /* git dies: the lines end with its "fatal: ..." line */
};

/*
 * What git 2.39.5's parse_object() prints when it reads the loose object file data[0..len) (at
 * `path`, of object `id`) that it has not parsed, as `git fsck` does for the object of each ref.
 * known_type: the type git's memory has for the ID from a link to it (SKG_NONE: none). Unknown or
 * a blob, oid_object_info() reads the header first, and a blob is then streamed and hashed
 * (stream_object_signature: what follows the end of the zlib stream is not looked at); anything
 * else is read whole by read_object_file(), header and content (object-file.c:
 * loose_object_info, unpack_loose_header, unpack_loose_rest), and hashed. On SKG_REPARSE_OK,
 * *type gets the object's type and, when content is not NULL, *content a malloc'd copy of the
 * content read whole (*content_len bytes; NULL for a streamed blob): git parses it next. Lines (replaced) in
 * git's words: "object file PATH is empty", "unable to unpack ID header", "header for ID too long, exceeds 32
 * bytes", "unable to parse ID header", zlib's "inflate: ..." errors, "corrupt loose object 'ID'", "garbage at
 * end of loose object 'ID'", "hash mismatch ID", and where git dies "fatal: loose object ID (stored in PATH)
 * is corrupt" (or "fatal: invalid object type"). Returns an enum skg_reparse_result.
 */
int skg_loose_reparse(struct skg_loose_reader *r, const uint8_t *data, size_t len, const char *path,
                      const uint8_t *id, unsigned known_type, unsigned *type, uint8_t **content,
                      size_t *content_len, struct skg_lines *lines);

/* Results of skg_loose_stored_info and skg_loose_stored_read. */
enum skg_stored_result {
	SKG_STORED_OK = 0,     /* read */
	SKG_STORED_FAILED = 1, /* git's lookup fails there (its lines given) and goes on */
	SKG_STORED_DIES = 2,   /* git dies: the lines end with its "fatal: ..." line */
	SKG_STORED_NOMEM = 3,  /* malloc failed (no line): an error of the run */
};

/*
 * git 2.39.5's oid_object_info() (type and size) of the loose object file data[0..len) at `path`,
 * of the object whose ID is `hex` (either object format; the lines name it) (object-file.c loose_object_info:
 * the header step only; the content is neither read nor hashed), as index-pack's collision check asks it of
 * an object it found in the repository. Lines (replaced) in git's words: "object file PATH is empty", zlib's
 * "inflate: ...", "unable to unpack ID header", "header for ID too long, exceeds 32 bytes", "unable to parse
 * ID header"; where git dies "fatal: invalid object type" (a type name that is none of the four), a size
 * overflow. Returns SKG_STORED_OK with *type and *size, SKG_STORED_FAILED or SKG_STORED_DIES.
 */
int skg_loose_stored_info(struct skg_loose_reader *r, const uint8_t *data, size_t len, const char *path,
                          const char *hex, unsigned *type, uint64_t *size, struct skg_lines *lines);

/*
 * git 2.39.5's read_object_file() of the same file after skg_loose_stored_info: header and
 * content inflated whole (unpack_loose_rest), not hashed. SKG_STORED_OK with a malloc'd *content
 * (*content_len bytes and a NUL; free it); SKG_STORED_DIES with git's lines, "corrupt loose
 * object 'ID'" or "garbage at end of loose object 'ID'" (and zlib's line), then "fatal: loose
 * object ID (stored in PATH) is corrupt" (or git's out-of-memory line for a size at or above the
 * reader's max_size); SKG_STORED_NOMEM. *type (when not NULL) gets the type on SKG_STORED_OK.
 */
int skg_loose_stored_read(struct skg_loose_reader *r, const uint8_t *data, size_t len, const char *path,
                          const char *hex, uint8_t **content, size_t *content_len, unsigned *type,
                          struct skg_lines *lines);

/*
 * The line that reports a collision attack in the object named `hex` at `path` (without the
 * "error: " prefix and newline), e.g. "HEX: SHA-1 collision attack detected (disturbance vector
 * II(52,0), block at byte offset 256): PATH", written to buf (n bytes, truncated to fit, always
 * NUL-terminated when n > 0). The offset is `where->offset`. Returns the length it would have.
 */
size_t skg_loose_collision_message(char *buf, size_t n, const char *hex, const char *path,
                                   const sha1kit_dc_detection *where);

#endif /* SHA1KIT_GIT_LOOSE_H */
