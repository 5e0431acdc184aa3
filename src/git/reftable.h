/*
 * reftable.h - reading a reftable stack (`git init --ref-format=reftable`, extensions.refStorage =
 * reftable): the refs and reflog entries it holds, as a reader of the whole stack sees them.
 *
 * Part of the Git layer (src/git/, library sha1kit_git). Sources: Git's
 * Documentation/technical/reftable.adoc (v2.55.0): the file header (version 1: 24 bytes, version 2:
 * 28 with the hash ID "sha1" / "s256"), ref blocks ('r'), index ('i') and obj ('o') blocks, log
 * blocks ('g', zlib deflated), prefix-compressed records with restart points, the footer with its
 * CRC-32, the stack file tables.list (oldest table first) and how later tables override earlier
 * ones; and where the document is silent, what git's reader (reftable/block.c, table.c, record.c,
 * merged.c of v2.55.0) does: the block after an unpadded one, the end of a section at a block of
 * another type, which records are malformed. refs.c and reflog.c put the stack behind the ref
 * database of refs.h and reflog.h.
 *
 * The reader scans every table sequentially (no index, no binary search: fsck reads every record
 * anyway) and merges the stack in memory. No printing, no exit, no global state. A table git's
 * reader would refuse (bad magic, version, header/footer mismatch, CRC-32, a block or record that
 * does not parse, a table of the other hash ID than the repository's) gives -1 with SKG_E_GIT
 * and one line naming the file; object IDs are 20 bytes ("sha1", version 1 or 2) or 32 ("s256",
 * version 2: a SHA-256 repository's); a table
 * listed in tables.list that cannot be opened, SKG_E_GIT too (git: "file does not exist");
 * memory: SKG_E_NOMEM.
 */
#ifndef SHA1KIT_GIT_REFTABLE_H
#define SHA1KIT_GIT_REFTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "object.h"
#include "util.h"

/* Value types of a ref record (reftable.adoc "ref record"). */
enum skg_reftable_ref_type {
	SKG_REFTABLE_DELETION = 0, /* never seen by users of a stack: deletions hide */
	SKG_REFTABLE_VAL1 = 1,     /* one object ID */
	SKG_REFTABLE_VAL2 = 2,     /* an object ID and its peeled target */
	SKG_REFTABLE_SYMREF = 3,   /* a symbolic ref */
};

/* One ref of the stack. Strings are NUL-terminated and owned by the stack. */
struct skg_reftable_ref {
	const char *name;
	enum skg_reftable_ref_type type;
	uint8_t id[SKG_MAX_RAWSZ];     /* VAL1, VAL2: rawsz bytes */
	uint8_t peeled[SKG_MAX_RAWSZ]; /* VAL2 */
	size_t rawsz;                  /* the table's hash size: 20 ("sha1"), 32 ("s256") */
	const char *target;            /* SYMREF: the ref it points to; else NULL */
	uint64_t update_index;
};

/* One reflog entry of the stack (a log record of type 0x1). */
struct skg_reftable_log {
	const char *refname;
	uint64_t update_index;
	uint8_t old_id[SKG_MAX_RAWSZ], new_id[SKG_MAX_RAWSZ]; /* rawsz bytes each */
	size_t rawsz;                                         /* the table's hash size, 20 or 32 */
	const char *name, *email;                             /* the committer; email without < > */
	uint64_t time;                                        /* seconds since the epoch */
	int tz_minutes;                                       /* offset from GMT in minutes: -480 for -0800 */
	const char *message; /* may be empty; as stored (git's usually end in LF) */
};

struct skg_reftable_stack;

/*
 * Read the stack in directory dir (<git dir>/reftable): dir/tables.list, then each table it names
 * (oldest first). display is dir as git spells it in messages (".git/reftable"). A missing
 * tables.list is an empty stack (git's reader does the same). rawsz: the repository's object ID
 * size (20, or 32 for SHA-256): a table of the other hash ID ("sha1" / "s256") fails as corrupt;
 * 0: any, the tables' own. On success *out is a new stack (free with skg_reftable_free) and 0 is
 * returned; -1 with err otherwise (see above).
 */
int skg_reftable_open(struct skg_reftable_stack **out, const char *dir, const char *display, size_t rawsz,
                      struct skg_error *err);

/* A stack of one table in memory (data[0..len), named "t.ref"), as skg_reftable_open reads each
 * table: for the fuzzer and the tests. */
int skg_reftable_open_mem(struct skg_reftable_stack **out, const uint8_t *data, size_t len, size_t rawsz,
                          struct skg_error *err);

/* Whether the stack of <git_dir>/reftable opens (skg_reftable_open, read and freed): 1, 0 when it
 * does not (git's store keeps that error: a linked worktree's stack), -1 when memory ran out. */
int skg_reftable_opens(const char *git_dir, size_t rawsz);

void skg_reftable_free(struct skg_reftable_stack *s);

/*
 * The refs of the stack, merged: for each name the record of the newest table that has it, names
 * whose newest record is a deletion left out; sorted by name (bytewise), i = 0 .. count - 1. In a
 * stack git reads otherwise (skg_reftable_read), what git's iteration yields, in its order, up to
 * its error (skg_reftable_iter_failed).
 */
size_t skg_reftable_ref_count(const struct skg_reftable_stack *s);
const struct skg_reftable_ref *skg_reftable_ref_at(const struct skg_reftable_stack *s, size_t i);

/* The tables of the stack, as tables.list names them, oldest first, i = 0 .. count - 1. */
size_t skg_reftable_table_count(const struct skg_reftable_stack *s);
const char *skg_reftable_table_name(const struct skg_reftable_stack *s, size_t i);

/* The ref named name, or NULL when the stack has none (or its newest record is a deletion). */
const struct skg_reftable_ref *skg_reftable_find(const struct skg_reftable_stack *s, const char *name);

/*
 * The ref named name as git 2.55.0 reads it (reftable_stack_read_ref), or NULL: none, or, with
 * *failed set (failed may be NULL), git's read fails. It differs from skg_reftable_find only in a
 * stack with a table whose one ref block git reads otherwise than this reader (a record that does
 * not decode, or keys out of order: git's reader is then followed, its seeks, its merged
 * iterator, the error where it meets it). Keeps what it finds in the stack (not thread-safe).
 */
const struct skg_reftable_ref *skg_reftable_read(const struct skg_reftable_stack *s, const char *name,
                                                 bool *failed);

/* Whether git's iteration of the stack's refs (skg_reftable_ref_at) ends in an error after the
 * skg_reftable_ref_count refs (git's "could not read record"). */
bool skg_reftable_iter_failed(const struct skg_reftable_stack *s);

/*
 * The reflog entries of the stack, merged: for each (refname, update index) the record of the newest
 * table, deletions left out; sorted by refname, then by update index descending (newest first, the
 * order of the format's keys), i = 0 .. count - 1.
 */
size_t skg_reftable_log_count(const struct skg_reftable_stack *s);
const struct skg_reftable_log *skg_reftable_log_at(const struct skg_reftable_stack *s, size_t i);

/*
 * Parse one table in memory (data[0..len), name for messages) and pass each ref record (deletions
 * included, with their type) and log record (deletions as a record with message NULL) to the
 * callbacks (either may be NULL), in file order. For the fuzzer and the tests; 0 or -1 with err.
 */
int skg_reftable_parse(const uint8_t *data, size_t len, const char *name,
                       int (*on_ref)(void *ctx, const struct skg_reftable_ref *r),
                       int (*on_log)(void *ctx, const struct skg_reftable_log *l), void *ctx,
                       struct skg_error *err);

#endif /* SHA1KIT_GIT_REFTABLE_H */
