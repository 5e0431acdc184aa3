/*
 * sha1kit/git_pack.h - Git packs: index a pack (held in memory, or arriving in pieces as
 * `git index-pack --stdin` receives a push), write its idx byte for byte as git does, verify a
 * pack against its idx.
 *
 * Formats: Git's Documentation/gitformat-pack.txt (pack v2/v3: 12-byte header, entries with a
 * variable-length type+size header, zlib data, OFS_DELTA/REF_DELTA, a trailer that is the SHA-1 of
 * everything before it; idx v1 and v2: fan-out, sorted names, CRC-32s, 31-bit offsets and a table
 * of 64-bit ones, the pack checksum, the idx checksum). Object IDs are SHA-1DC of
 * "<type> <size>\0<content>" (an object that carries a known collision attack is an error); the
 * pack and idx checksums are plain SHA-1. Behaviour follows git's builtin/index-pack.c.
 * Conventions of <sha1kit/git.h>: nothing prints or exits; errors come back in struct skg_error.
 */
#ifndef SHA1KIT_GIT_PACK_API_H
#define SHA1KIT_GIT_PACK_API_H

#include <sha1kit/git.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Options of indexing (skg_index_options_default gives git index-pack's defaults). */
struct skg_index_options {
	/* Delta resolution threads (default 1; 0: one per CPU online, as git's pack.threads=0, which
	 * skg_index_read_config gives so). With more threads than CPUs online, at most one
	 * per CPU resolves at a time (the others wait their turn, taken between two delta families),
	 * and the first pass through the idx (see idx) runs on one thread per CPU at most, so that the
	 * memory held grows with the CPUs, not with the threads. */
	unsigned threads;
	uint64_t cache_limit; /* bytes of delta bases kept in memory, all threads (96 MiB) */
	/*
	 * `--strict[=ARGS]`, as git 2.39's index-pack (builtin/index-pack.c sha1_object,
	 * check_objects; fsck.c): a duplicate object is an error, and every object gets git's fsck
	 * checks with --strict severities (sha1kit fsck's: message IDs as in git-fsck(1)) as it is
	 * indexed, with the lines git prints going to `sink`: "warning: object ID: msgId: text"
	 * (info-level messages such as badFilemode, badTagName, missingTaggerEntry, and any set to
	 * "warn"), "error: object ID: msgId: text", the tree decoder's and the parsers' own error
	 * lines, "error: object ID is a blob, not a tree" for an ID used with two types. Links
	 * (tree entries, a commit's tree and parents, a tag's target) must be in the pack or, when
	 * objects_dir is set, in that object directory (loose or packed) or, with repo set, in the
	 * repository's object store with its alternates (git's check_objects reads every source);
	 * with repo set, a commit the repository grafts (info/grafts, or a shallow commit) links to
	 * its graft's parents, none for a shallow commit, as git's commit parsing gives them.
	 * Where git dies skg_pack_index fails with SKG_E_GIT and git's message: "fsck error in
	 * packed object", "invalid commit" (and tree, tag), "invalid blob object ID", "Not all child
	 * objects of ID are reachable", "did not receive expected object ID", "object ID: expected
	 * type T, found U". The .gitmodules / .gitattributes blobs a tree names are checked when
	 * they come after the tree; the others by skg_pack_strict_finish once the idx is written.
	 */
	bool strict;
	/*
	 * `--fsck-objects[=ARGS]` (git's do_fsck_object without its strict), used when strict is
	 * false: the object checks of strict (their lines, strict_args, "fsck error in packed object",
	 * the .gitmodules / .gitattributes checks of skg_pack_strict_finish) without its links: no
	 * walk ("Not all child objects of ID are reachable"), no look for a link outside the pack, and
	 * an object twice in the pack is no error.
	 */
	bool fsck_objects;
	/*
	 * `--check-self-contained-and-connected` (git's strict without do_fsck_object), used when
	 * strict is false: the links of strict (the walk, each link's object in the pack or, with
	 * objects_dir, in the repository, else "did not receive expected object ID") and its error for
	 * an object twice in the pack, without the object checks. skg_pack_foreign_links (and
	 * skg_indexer_foreign_links) then count the links found outside the pack: git's exit status 1
	 * when there is one, once everything is written.
	 */
	bool check_connected;
	/* `--strict=ARGS`: git's list "<msg-id>=<severity>" (error, warn, ignore) and
	 * "skiplist=<file>", separated by ' ', ',' or '|' (fsck_set_msg_types); NULL or "": none.
	 * A bad list fails skg_pack_index with SKG_E_GIT and git's message ("Unhandled message id:
	 * X", "Missing '=': 'X'", ...) before the pack is read. Must stay valid while in use. */
	const char *strict_args;
	/* strict: the repository's object directory; NULL: repo's (skg_repo_objects_dir), or none
	 * without repo (outside a repository) */
	const char *objects_dir;
	/*
	 * The repository the pack is indexed in (git's have_repository; skg_repo_open), or NULL
	 * outside one. As git's index-pack (builtin/index-pack.c sha1_object, 2.39.5 and 2.55.0),
	 * every object of the pack whose ID the repository already has (loose, in a pack, in an
	 * alternate; git's has_object_file) is compared with that stored copy, whatever `strict`
	 * says: another type, size or content fails skg_pack_index with SKG_E_GIT "SHA1 COLLISION
	 * FOUND WITH ID !"; a stored copy that does not read fails it with "cannot read existing
	 * object info ID" (after git's lines for it, to `sink`: "error: unable to unpack ID header",
	 * zlib's "error: inflate: ..."), or with git's own die, e.g. "loose object ID (stored in
	 * PATH) is corrupt" (after "error: corrupt loose object 'ID'"). The check comes before the
	 * strict checks of each object. The alternates' error lines go to `sink` when the indexing
	 * starts. Must stay valid during skg_pack_index (and the indexer's commit).
	 */
	const struct skg_repo *repo;
	struct skg_sink sink; /* strict and repo: git's lines, from one thread at a time */
	/*
	 * `--fix-thin` (the indexer only, with repo set): a thin pack's REF_DELTA bases that are
	 * not in it are read from the repository's objects (loose or packed, its alternates' too) and
	 * appended as whole objects, the header's count and the trailer fixed, before the pack is indexed and
	 * named (git v2.39.5 builtin/index-pack.c fix_unresolved_deltas, pack-write.c
	 * fixup_pack_header_footer); bases still missing fail the commit with SKG_E_GIT "pack has N
	 * unresolved deltas". fix_thin_level: the zlib level of the appended objects, git's
	 * zlib_compression_level (1, Z_BEST_SPEED, by default; skg_index_read_config sets it from
	 * core.loosecompression, else core.compression).
	 */
	bool fix_thin;
	int fix_thin_level;
	/*
	 * Write the pack's reverse index (.rev, skg_pack_write_rev) beside the idx: `git index-pack
	 * --rev-index`, git's pack.writeReverseIndex, on by default since git 2.41 (a8dd7e05b1;
	 * builtin/index-pack.c sets WRITE_REV before it reads the config), and so here (default
	 * true). Used by skg_indexer_commit; a program that writes the idx itself reads it too.
	 */
	bool rev_index;
	/* `--keep[=MSG]` and `--promisor[=MSG]` (NULL: none, the default; "": an empty file): the
	 * .keep / .promisor file skg_indexer_commit makes beside the pack before it names the pack
	 * (skg_pack_write_special), as git's final() does. */
	const char *keep_msg;
	const char *promisor_msg;
	unsigned idx_version;         /* idx version written: 1 or 2 (default 2) */
	uint64_t off32_limit;         /* v2: offsets above it go to the 64-bit table (0x7fffffff) */
	struct skg_progress progress; /* "Indexing objects", "Resolving deltas" (fn may be NULL) */
	/*
	 * The Git followed where index-pack's behaviour changed (<sha1kit/git.h> SKG_GIT_2_39 or
	 * SKG_GIT_2_55, skg_git_version_parse; default SKG_GIT_2_55). So far one place: with 2.55
	 * (git 2.53+, 8dc22e87f0), a strict index outside a repository (objects_dir NULL) whose
	 * .gitmodules / .gitattributes blobs are still to check when the idx is written fails
	 * skg_pack_strict_finish with SKG_E_GIT "cannot perform queued object checks outside of a
	 * repository" (the pack and idx stay, as git leaves them); 2.39.5 reads them and goes on.
	 */
	unsigned git_version;
	/*
	 * Inside a repository whose objects are of another format than the pack's (repo and
	 * objects_dir are then NULL): git has a repository there, so a strict index's queued
	 * .gitmodules / .gitattributes checks run (reading the blobs from the pack, as git_version's
	 * die outside a repository does not happen), and finds none of the pack's IDs in it.
	 * Default false.
	 */
	bool in_repository;
	/*
	 * Optional: copy pack bytes [offset, offset + n) into buf (e.g. with pread); returns 0 or -1.
	 * When set, delta resolution reads entries through it instead of the buffer (a mapped pack's
	 * pages then need not stay resident). May be called from several threads at once. Where it
	 * fails, skg_pack_index fails with SKG_E_IO "cannot read the pack" (err->offset: the entry).
	 */
	int (*read)(void *ctx, uint64_t offset, uint8_t *buf, size_t n);
	void *read_ctx;
	/* Optional: pack bytes [0, upto) will not be read again by the first pass (may be dropped;
	 * `upto` grows, but may go back once when the first pass starts over: see idx). Never
	 * called from two threads at once, but maybe from any of the first pass's (see idx). */
	void (*release)(void *ctx, uint64_t upto);
	void *release_ctx;
	/*
	 * Optional: the pack's existing idx (verify-pack, index-pack --verify), idx[0..idx_len), which
	 * must stay valid during skg_pack_index. With threads > 1, and neither strict nor repo, the
	 * entries are then inflated and hashed on all the threads from the offsets it gives, each
	 * checked to end where the next starts; on any disagreement or error the pack is read again
	 * in order on one thread, so that the result and the error are those without it.
	 */
	const uint8_t *idx;
	uint64_t idx_len;
	/*
	 * The object format of the pack (enum skg_object_format; default SKG_FORMAT_SHA1): git's
	 * `index-pack --object-format=`, else the repository's extensions.objectFormat
	 * (skg_repo_object_format), else SHA-1 (a pack does not say; builtin/index-pack.c). With
	 * SKG_FORMAT_SHA256 (Git's Documentation/technical/hash-function-transition.txt) object IDs,
	 * REF_DELTA base names and the pack's trailer are 32-byte SHA-256 digests, and so are the
	 * idx's names and checksums and the .rev's checksums (its hash id 2); strict, fix_thin and the
	 * collision check work in either format. With repo, the repository's format must be the
	 * pack's (else SKG_E_USAGE).
	 */
	unsigned object_format;
	/*
	 * Optional: told of every pack and idx of the repository (repo, objects_dir and their
	 * alternates) mapped while indexing, to read what the checks need (the collision check's
	 * stored copies, strict's links and special blobs, fix_thin's bases): right after the mmap
	 * (mapped = true) and before the munmap (false), from the thread that maps, as
	 * skg_file_map's on_map (a program's SIGBUS guard). The pack being indexed is the caller's
	 * own mapping. NULL: none (skg_index_options_default).
	 */
	void (*on_map)(void *ctx, const void *addr, uint64_t len, const char *path, bool mapped);
	void *map_ctx;
};

void skg_index_options_default(struct skg_index_options *opt);

/*
 * The config git's index-pack reads (git 2.39.5 and 2.55.0 builtin/index-pack.c
 * git_index_pack_config; config.c): the system and global config files, with `repo` the
 * repository's config (and config.worktree), then GIT_CONFIG_COUNT's and GIT_CONFIG_PARAMETERS'
 * (inside a repository or not), in git's order. pack.indexVersion
 * sets opt->idx_version (0 is 1, as git writes it); pack.threads sets *threads (0: as many as the machine
 * has; threads may be NULL); pack.writeReverseIndex sets opt->rev_index (a git boolean; the last one
 * wins); core.bigFileThreshold is checked as git checks it. A command line's options then
 * override them, as in git. Returns 0, or -1 with err set to git's fatal text: "bad pack.indexVersion=N"
 * (above 2; -1 is 4294967295), "invalid number of threads specified (N)" (below 0), "bad boolean
 * config value 'V' for 'pack.writereverseindex'", "bad numeric
 * config value 'V' for 'KEY' in file NAME: invalid unit" (or "out of range"), "bad config line N in
 * file NAME" (SKG_E_GIT), or SKG_E_NOMEM / SKG_E_IO when a file cannot be read.
 */
int skg_index_read_config(const struct skg_repo *repo, struct skg_index_options *opt, unsigned *threads,
                          struct skg_error *err);

/* An indexed pack: every object's ID, type, offset and CRC-32 (opaque). */
struct skg_pack;

/* One object of an indexed pack, in pack order (skg_pack_object). */
struct skg_pack_object {
	uint8_t id[SKG_MAX_RAWSZ];      /* skg_pack_rawsz bytes */
	unsigned type;                  /* 1..4: the object's type (enum skg_type) */
	unsigned pack_type;             /* the entry's type in the pack: 1..4, 6 (OFS_DELTA), 7 (REF_DELTA) */
	uint64_t offset;                /* of the entry in the pack */
	uint64_t size;                  /* size of the entry's data (for a delta: of the delta) */
	uint64_t stored;                /* bytes the entry takes in the pack, header included */
	uint32_t crc32;                 /* CRC-32 of those bytes */
	uint32_t depth;                 /* delta chain length, 0 for a whole object */
	uint8_t base_id[SKG_MAX_RAWSZ]; /* ID of the delta base (zeros for a whole object) */
};

/*
 * Index the pack data[0..len): header, every entry inflated and checked against its size, deltas
 * resolved, every object ID computed with SHA-1DC, the trailer checked. data must stay valid and
 * unchanged until skg_pack_free. Returns 0 with *out; -1 with err: SKG_E_CORRUPT (err->msg says
 * what, err->offset where: "not a pack file", "truncated pack", "corrupt zlib stream", "pack
 * trailer does not match its content"), SKG_E_GIT where git's index-pack dies after its first
 * pass, with git's message (builtin/index-pack.c, git v2.39.5 and v2.55.0): a delta that does not
 * apply, "pack has bad object at offset N: failed to apply delta" (patch_delta's line before it,
 * "delta replay has gone wild" or "unexpected delta opcode 0", to opt->sink as an error record),
 * or "size_t overflow: A << S" (a delta size field past 64 bits); deltas left unresolved, "pack
 * has N unresolved deltas" (or "1 unresolved delta"; an OFS_DELTA whose base offset is where no
 * entry starts is one, as in git, whose first pass takes it), SKG_E_GIT also with `strict`, or
 * `repo` for the collision check: where git dies, git's message, see skg_index_options.strict and
 * .repo; the lines before went to opt->sink),
 * SKG_E_COLLISION (an object carries a collision attack), SKG_E_NOMEM, SKG_E_THREAD, SKG_E_USAGE
 * (an idx_version other than 1 and 2, an unknown object_format, a repo of another format). opt
 * NULL: skg_index_options_default's. Thread-safe; starts opt->threads - 1 threads (with threads 0
 * one per CPU online, less one). With `strict`, a duplicate object
 * is found by skg_pack_write_idx, as git finds it writing the idx (SKG_E_GIT, git's "The same
 * object X appears twice in the pack").
 */
int skg_pack_index(struct skg_pack **out, const uint8_t *data, uint64_t len,
                   const struct skg_index_options *opt, struct skg_error *err);

/*
 * Why git's index-pack refuses a pack in its first pass (git v2.39.5 and v2.55.0
 * builtin/index-pack.c parse_pack_header, unpack_raw_entry, unpack_entry_data,
 * parse_pack_objects; git-zlib.c git_inflate), for a caller that wants git's words where
 * skg_pack_index() failed with SKG_E_CORRUPT. pack[0..len) is read as git reads it, one object
 * after the other with the trailer's bytes as input like any other, up to the first point where
 * git dies. regular: the pack is a regular file (only then does git look for junk after the
 * trailer; not for a pipe). git_version: SKG_GIT_2_55 or SKG_GIT_2_39 (enum skg_git_version); they
 * differ in one place, an entry size whose varint runs past 57 bits (2.55: "object size too large
 * for this platform"; 2.39.5 reads on). object_format: as skg_index_options.object_format (the
 * length of REF_DELTA base names and of the trailer, SHA-1 or SHA-256).
 * Returns true when git dies there: r->fatal is what git prints after "fatal: " ("early EOF",
 * "pack signature mismatch", "pack version 9 unsupported", "pack has bad object at offset 12:
 * inflate returned -3", "pack is corrupted (SHA1 mismatch)", "pack has junk at the end", ...) and
 * r->error, when not empty, a line git prints before it after "error: " ("inflate: data stream
 * error (incorrect header check)"). Returns false when git's first pass takes the pack (the
 * fault, if any, is in what comes after: the deltas, the object checks). Reads pack[0..len) only;
 * allocates only zlib's state; no error of its own.
 */
struct skg_pack_refusal {
	char error[256];
	char fatal[512];
	/* where git's meter ("Indexing objects", index-pack -v) stood when it died: counted is true
	 * once the header was read (count its object count), read the objects read whole before the
	 * death (count: all of them, so git's meter ended with ", done." before the trailer's check) */
	bool counted;
	uint32_t count, read;
};
bool skg_pack_git_refusal(const uint8_t *pack, uint64_t len, bool regular, unsigned git_version,
                          unsigned object_format, struct skg_pack_refusal *r);

/* The number of objects; the pack's trailer (its SHA-1 or SHA-256, the name git gives it); the
 * longest delta chain; the bytes of its IDs and trailer (20, or 32 for SHA-256). */
uint32_t skg_pack_count(const struct skg_pack *pack);
const uint8_t *skg_pack_checksum(const struct skg_pack *pack);
unsigned skg_pack_rawsz(const struct skg_pack *pack);
uint32_t skg_pack_max_depth(const struct skg_pack *pack);

/* Object i (0 <= i < skg_pack_count) in pack order into *o; false when i is out of range. */
bool skg_pack_object(const struct skg_pack *pack, uint32_t i, struct skg_pack_object *o);

/*
 * Write the idx of an indexed pack with opt's idx_version and off32_limit (those of
 * skg_pack_index's options): the bytes go to write(ctx, p, n) in order, in pieces of at most
 * 64 KiB, never whole in memory; write returns 0, or non-zero to stop (then -1 and SKG_E_IO with
 * the errno it set, or 0 and "the writer failed" where it set none). The checks that can fail
 * (duplicates with strict, offsets past 4 GiB in v1: SKG_E_CORRUPT) are made before the first
 * piece. opt NULL: skg_index_options_default's. Returns 0 or -1 with err.
 */
int skg_pack_write_idx(const struct skg_pack *pack, const struct skg_index_options *opt,
                       int (*write)(void *ctx, const uint8_t *p, size_t n), void *ctx, struct skg_error *err);

/*
 * Write the reverse index (.rev) of an indexed pack, byte for byte as git's index-pack writes it
 * with --rev-index (pack-write.c write_rev_file; Documentation/gitformat-pack.txt "pack-*.rev
 * files"): "RIDX", version 1, hash id 1 (SHA-1), then for each object in pack order its position
 * in the idx (big-endian 32-bit words), the pack checksum, and the SHA-1 of all that. The
 * positions are those of the idx skg_pack_write_idx writes (an object ID found twice in a pack
 * indexed without strict: in pack order). 12 + 4 * skg_pack_count + 40 bytes, built in memory and
 * given to write(ctx, p, n) in one piece; write returns 0, or non-zero to stop (then -1 and
 * SKG_E_IO with the errno it left). Returns 0 or -1 with err (SKG_E_NOMEM, SKG_E_IO).
 */
int skg_pack_write_rev(const struct skg_pack *pack, int (*write)(void *ctx, const uint8_t *p, size_t n),
                       void *ctx, struct skg_error *err);

/*
 * Compare the reverse index of an indexed pack (skg_pack_write_rev's bytes) with an existing one,
 * rev[0..len), as `git index-pack --verify` does with the .rev when the reverse index is on
 * (builtin/index-pack.c: WRITE_REV_VERIFY; pack-write.c write_rev_file_order over csum-file.c's
 * hashfd_check: every byte, a shorter or longer file differs). Returns 0 when they are equal; 1
 * when not, with the offset of the first byte that differs in *first_diff (the shorter one's length
 * when one is a prefix of the other); -1 with err (SKG_E_NOMEM).
 */
int skg_pack_compare_rev(const struct skg_pack *pack, const uint8_t *rev, uint64_t len, uint64_t *first_diff,
                         struct skg_error *err);

/*
 * Verify a pack against its idx idx[0..idx_len): the idx is rebuilt with the version and 64-bit
 * layout found in it and compared byte for byte (as `git index-pack --verify`). Returns 0 when
 * they are equal; -1 with SKG_E_CORRUPT ("the index does not match the pack") when not, or the
 * other errors of skg_pack_write_idx.
 */
int skg_pack_verify_idx(const struct skg_pack *pack, const uint8_t *idx, size_t idx_len, bool strict,
                        struct skg_error *err);

/*
 * After a strict index (skg_index_options.strict) whose idx is written: git's fsck_finish, the
 * .gitmodules and .gitattributes blobs that a tree named but that came before it in the pack (or
 * are not in it), read from the pack when `installed`, else from objects_dir only. installed:
 * git finds the pack to read them from, which it looks for beside the idx it wrote (the idx's
 * name with ".idx" replaced by ".pack" is a file; never with --verify, where git installs
 * nothing; builtin/index-pack.c final, packfile.c add_packed_git); the pack is then taken to be
 * the one indexed. Findings go to the options' sink; a .gitmodules blob found nowhere is a record
 * of level SKG_LEVEL_OUTPUT, its ID (git prints it on stdout and goes on). Returns 0 (also for a
 * pack indexed without strict), or -1 with SKG_E_GIT "fsck error in pack objects" (git dies so
 * after writing the pack and idx, which it leaves in place), SKG_E_NOMEM. Call it once.
 */
int skg_pack_strict_finish(struct skg_pack *pack, bool installed, struct skg_error *err);

/* After skg_pack_index with check_connected (or strict): the links of the pack's objects that were
 * found outside it, in the repository (git's foreign_nr: check_objects' count). */
uint64_t skg_pack_foreign_links(const struct skg_pack *pack);

/* The `installed` of skg_pack_strict_finish for an idx written at idx_path: it ends in ".idx"
 * and a file of that name with ".pack" instead exists (git's add_packed_git: access(F_OK)). */
bool skg_pack_beside_idx(const char *idx_path);

void skg_pack_free(struct skg_pack *pack);

/* ---- Pack and idx files ---------------------------------------------------------------------- */

/* The step of skg_file_map that failed (struct skg_file.failed). */
enum skg_file_step {
	SKG_FILE_OK = 0,
	SKG_FILE_OPEN,         /* stat, open or fstat (EISDIR: a directory; EFBIG: larger than half
	                        * the address space) */
	SKG_FILE_MAP,          /* mmap (ENOMEM: it does not fit) */
	SKG_FILE_NOT_REGULAR,  /* a FIFO, device or socket: refused without being opened */
	SKG_FILE_SIZE_UNKNOWN, /* says 0 bytes but does not read as empty (a /proc file) */
};

/*
 * A regular file mapped read-only (a pack or an idx, for the functions above). Read data and len
 * (and dev, ino); the other fields are the layer's. A struct zeroed ({0}) is unmapped: it may be
 * given to skg_file_unmap and skg_file_shrank.
 */
struct skg_file {
	const uint8_t *data;       /* its len bytes (an empty file: a valid pointer to no bytes) */
	uint64_t len;              /* its size when it was mapped */
	uint64_t dev, ino;         /* its identity (st_dev, st_ino), to tell another name of the same file */
	enum skg_file_step failed; /* after a failure of skg_file_map: the step that failed */
	/* the layer's */
	void *map; /* NULL when nothing is mapped (an empty file) */
	size_t map_len;
	int fd;            /* open while mapped, for skg_file_read */
	uint64_t released; /* pages before this offset were dropped (skg_file_release) */
	const char *path;
	void (*on_map)(void *ctx, const void *addr, uint64_t len, const char *path, bool mapped);
	void *map_ctx;
};

/*
 * Map the regular file at path into *f, whole (as git's packfile.c maps a pack and its idx). Its
 * type is looked at before it is opened: a FIFO or device is refused and never opened (an open
 * could block or act). on_map (optional) is told of the mapping right after the mmap
 * (mapped = true) and before the munmap (mapped = false), with its address and size: a program
 * may guard it against a file that shrinks meanwhile (reading a page past the new end raises
 * SIGBUS; the layer installs no signal handler), as struct skg_check_options.on_map. path must
 * stay valid until skg_file_unmap. Returns 0; or -1 with f->failed and err: SKG_E_IO (sys_errno),
 * SKG_E_NOMEM (sys_errno ENOMEM), SKG_E_USAGE (not a regular file, or its size unknown); nothing
 * is left to free. err->msg: "cannot open PATH: REASON", "cannot map PATH: REASON",
 * "PATH: not a regular file" or "cannot map PATH: not a regular file (its size is unknown)".
 */
int skg_file_map(struct skg_file *f, const char *path,
                 void (*on_map)(void *ctx, const void *addr, uint64_t len, const char *path, bool mapped),
                 void *map_ctx, struct skg_error *err);
void skg_file_unmap(struct skg_file *f);

/* Whether the mapped file is now shorter than when it was mapped (fstat): after a failure, to
 * tell a file truncated meanwhile from a corrupt one. False when nothing is mapped. */
bool skg_file_shrank(const struct skg_file *f);

/* Whether the mapped file is now longer than when it was mapped (fstat): a pack read whole by git
 * (index-pack PACK) would have had bytes after its trailer, git's "pack has junk at the end".
 * False when nothing is mapped. */
bool skg_file_grew(const struct skg_file *f);

/* For skg_index_options.release (file: a struct skg_file *): drop the mapped pages before upto
 * (madvise, a hint; only those not dropped by an earlier call). Not thread-safe. */
void skg_file_release(void *file, uint64_t upto);
/* For skg_index_options.read (file: a struct skg_file *): bytes [offset, offset + n) with pread,
 * not through the mapping. Returns 0, or -1 (out of range, a failed or short read). May be called
 * from several threads at once. */
int skg_file_read(void *file, uint64_t offset, uint8_t *buf, size_t n);

/*
 * The layout of the existing idx idx[0..len) into opt->idx_version and opt->off32_limit, so that
 * skg_pack_write_idx rebuilds it the same way (as `git index-pack --verify` does, for idx files
 * written with --index-version). Never fails: what is not an idx gives version 2 and the default
 * limit (and then does not match).
 */
void skg_idx_layout(const uint8_t *idx, uint64_t len, struct skg_index_options *opt);

/*
 * Whether git opens the idx idx[0..len) as `git index-pack --verify` (and so `git verify-pack`)
 * does before it reads the pack: the checks of git's packfile.c (check_packed_git_idx, load_idx:
 * the size, the version, a fan-out table that never decreases, the size its object count implies)
 * and of builtin/index-pack.c (read_v2_anomalous_offsets: an index into the 64-bit offset table
 * that points past the end of the file). idx_name and pack_name are the names git's messages give
 * (the .idx and the .pack file). Returns 0 when git opens it; -1 with SKG_E_CORRUPT and git's
 * reason in err->msg: "index file IDX is too small", "index file IDX is version N and is not
 * supported by this binary (try upgrading GIT to a newer version)", "non-monotonic index IDX",
 * "wrong index v1 file size in IDX", "wrong index v2 file size in IDX", "offset beyond end of pack
 * index for PACK (truncated index?)". Git 2.39.5 and 2.55.0 agree on all of these. Thread-safe.
 */
int skg_idx_check(const uint8_t *idx, uint64_t len, const char *idx_name, const char *pack_name,
                  struct skg_error *err);
/* The start of skg_idx_check's message where git dies at once (check_pack_index_ptr), not after
 * its "Cannot open existing pack idx file" line. */
#define SKG_IDX_OFFSET_BEYOND "offset beyond end of pack index for "
/* skg_idx_check of the idx of a pack in object format object_format (SKG_FORMAT_SHA256: 32-byte
 * names and checksums). */
int skg_idx_check_as(const uint8_t *idx, uint64_t len, unsigned object_format, const char *idx_name,
                     const char *pack_name, struct skg_error *err);

/*
 * Compare the idx of an indexed pack, written with opt's idx_version, off32_limit and strict (see
 * skg_pack_write_idx), with the mapped idx file *idx, piece by piece as it is made (neither is ever
 * whole in memory; the pages of *idx compared are dropped as skg_file_release does). Returns 0 when
 * they are equal byte for byte; 1 when not, with the offset of the first byte that differs in
 * *first_diff (the shorter one's length when one is a prefix of the other); -1 with err for the
 * errors of skg_pack_write_idx other than SKG_E_IO. Not thread-safe on the same *idx.
 */
int skg_pack_compare_idx(const struct skg_pack *pack, const struct skg_index_options *opt,
                         struct skg_file *idx, uint64_t *first_diff, struct skg_error *err);

/*
 * --verify as git's index-pack runs it on an existing idx (builtin/index-pack.c write_idx_file
 * with WRITE_IDX_VERIFY, over csum-file.c's hashfd_check; git v2.39.5 and v2.55.0 alike): the
 * comparison of skg_pack_compare_idx, and where they differ git's words for it. name: the idx's
 * name as git gives it (index-pack's -o argument, or the pack's name with .pack replaced by .idx).
 * Returns 0 when they are equal; -1 with SKG_E_GIT where git dies, its message: "sha1 file 'NAME'
 * validation error", "NAME: sha1 file truncated" or "NAME: sha1 file has trailing garbage" (git
 * compares its writes with the file 128 KiB at a time, then the checksum alone: the first of these
 * pieces that differs, or that the file ends in, decides); -1 with the other errors of
 * skg_pack_compare_idx.
 */
int skg_pack_verify_idx_as_git(const struct skg_pack *pack, const struct skg_index_options *opt,
                               struct skg_file *idx, const char *name, struct skg_error *err);

/* The same for an existing reverse index rev[0..len) named `name` (write_rev_file with
 * WRITE_REV_VERIFY), against skg_pack_write_rev's bytes: 0, or -1 with SKG_E_GIT and git's
 * message as above, or SKG_E_NOMEM. */
int skg_pack_verify_rev_as_git(const struct skg_pack *pack, const uint8_t *rev, uint64_t len,
                               const char *name, struct skg_error *err);

/* ---- Indexing a pack that arrives in pieces (git index-pack --stdin) ----------------------- */

struct skg_indexer;

/*
 * Start receiving a pack: its bytes are written to a temporary file "tmp_pack_XXXXXX" in the
 * directory dir (as git's index-pack --stdin does in objects/pack), its SHA-1 computed as they
 * come. opt (NULL: skg_index_options_default's) is copied, its strings too (keep_msg,
 * promisor_msg, strict_args, objects_dir: the caller may free them at once); repo, the sink's and
 * progress's callbacks and contexts are used as they are and must stay valid until
 * skg_indexer_free. read, release and idx are not used: the indexer reads its own file. Returns 0
 * with *out, -1 with SKG_E_USAGE (the options skg_pack_index refuses, refused here before a byte
 * is received), SKG_E_IO (the file cannot be created), SKG_E_NOMEM.
 */
int skg_indexer_new(struct skg_indexer **out, const char *dir, const struct skg_index_options *opt,
                    struct skg_error *err);

/* The path of the temporary pack file (for a signal handler that removes it); valid until the
 * indexer is committed or freed. */
const char *skg_indexer_temp_path(const struct skg_indexer *ix);

/* The next len bytes of the pack. Returns 0, or -1 with SKG_E_IO (the write failed: EFBIG for a
 * file size limit where the caller ignores SIGXFSZ, git.h; ENOSPC for a full file system). Every
 * byte appended is the pack's: bytes after its trailer fail the commit (SKG_E_CORRUPT "pack has N
 * bytes of unexpected data after its M objects"), where git's `index-pack --stdin` reading a pipe
 * takes the pack and copies them to its standard output (a caller that reads a stream holding
 * more than the pack stops at the trailer itself). */
int skg_indexer_append(struct skg_indexer *ix, const void *data, size_t len, struct skg_error *err);

/*
 * The pack is complete: index it (skg_pack_index), write its idx to a temporary file
 * ("tmp_idx_XXXXXX") in the idx's own directory (so that the rename never crosses file systems),
 * then give both their names with rename(2), the pack first, the idx last (so that a reader that
 * sees the idx finds a whole pack), both mode 0444. With opt->rev_index, the reverse index too
 * (skg_pack_write_rev; "tmp_rev_XXXXXX" in its own directory), renamed after the pack and before
 * the idx as git's index-pack final() does, mode 0444. Where the idx or .rev cannot be made (its
 * directory missing or closed, a directory of its name): SKG_E_GIT with git's "unable to create
 * 'NAME': REASON" ("File exists" for a directory). pack_path and idx_path: the names
 * (NULL: git's <dir>/pack-<checksum>.pack and .idx; idx_path NULL with a pack_path: pack_path with
 * ".pack" replaced by ".idx", as git's `index-pack --stdin PACK` derives it, a pack_path that does
 * not end in ".pack" failing with SKG_E_GIT and git's "packfile name 'NAME' does not end with
 * '.pack'" before anything is written; a pack_path given that exists already fails
 * with SKG_E_GIT and git's "unable to create 'NAME': File exists", and is left as it is); the
 * .rev's is idx_path with ".idx" replaced by
 * ".rev" (an idx_path that does not end in ".idx" fails with SKG_E_GIT and git's "packfile name
 * 'NAME' does not end with '.idx'" before anything is written). checksum gets the pack's trailer (20
 * bytes; 32 for SHA-256, skg_index_options.object_format; may be NULL). On any failure the temporary
 * idx and .rev are removed, and so are the final names if they were made by this call; the temporary pack
 * (the bytes received, skg_indexer_temp_path) stays for the caller to read until skg_indexer_free
 * removes it, after which nothing is left in dir. Returns 0,
 * or -1 with err (those of skg_pack_index, SKG_E_IO). With strict, skg_pack_strict_finish runs after the
 * renames, as in git: when it fails (SKG_E_GIT "fsck error in pack objects") both files stay, checksum is set
 * and skg_indexer_written tells so. After a call the indexer only accepts skg_indexer_written, the
 * other queries (skg_indexer_kept, skg_indexer_thin_counts, skg_indexer_temp_path, ...) and
 * skg_indexer_free.
 */
int skg_indexer_commit(struct skg_indexer *ix, const char *pack_path, const char *idx_path, uint8_t *checksum,
                       struct skg_error *err);

/*
 * After skg_indexer_commit with fix_thin (success or not): true when the pack had deltas whose
 * base it lacks, so that local bases were looked for (git's fix_unresolved_deltas, whose meter
 * ends "Resolving deltas: P% (RESOLVED/TOTAL), completed with N local object(s)." instead of ",
 * done."; the progress reports stop short of it); then *appended the bases appended (N),
 * *resolved the deltas resolved and *total their number. False otherwise (the outputs set all
 * the same).
 */
bool skg_indexer_thin_counts(const struct skg_indexer *ix, uint32_t *appended, uint64_t *resolved,
                             uint64_t *total);

/* Whether skg_indexer_commit named the pack and idx files (true after a success, and after a
 * failure of the strict checks that git makes once the files are written). */
bool skg_indexer_written(const struct skg_indexer *ix);

/* After a successful skg_indexer_commit with check_connected: the links found outside the pack. */
uint64_t skg_indexer_foreign_links(const struct skg_indexer *ix);

/* Whether skg_indexer_commit made the .keep file (opt->keep_msg; not when one was there): git's
 * index-pack then reports "keep\tCHECKSUM" instead of "pack\tCHECKSUM". */
bool skg_indexer_kept(const struct skg_indexer *ix);

/*
 * The .keep or .promisor file of `git index-pack --keep[=MSG]` / `--promisor[=MSG]`
 * (builtin/index-pack.c write_special_file, alike in 2.39.5 and 2.55.0): pack_path with its
 * ".pack" replaced by "." suffix, created with mode 0600 and never replaced (one that exists is
 * left as it is), holding msg and a newline when msg is not empty. Returns 0 with *made (may be
 * NULL) true when this call created the file; -1 with SKG_E_GIT and git's words (a pack_path that
 * does not end in ".pack": "packfile name 'P' does not end with '.pack'"; "cannot write SUFFIX file
 * 'NAME': REASON"; "cannot close written SUFFIX file 'NAME': REASON") or SKG_E_NOMEM.
 */
int skg_pack_write_special(const char *pack_path, const char *suffix, const char *msg, bool *made,
                           struct skg_error *err);

/* Free the indexer; removes its temporary files when it was not committed (NULL is fine). */
void skg_indexer_free(struct skg_indexer *ix);

#ifdef __cplusplus
}
#endif

#endif /* SHA1KIT_GIT_PACK_API_H */
