/*
 * fsck_run.h - the state of one repository check (skg_check_repo, <sha1kit/git_fsck.h>) and the
 * functions its parts share. Internal to the Git layer.
 *
 * The parts, in git fsck's order of work (builtin/fsck.c, v2.39.5):
 *   fsck_run.c      skg_check_repo: setup, config, the passes of the object check, roots, walk,
 *                   commit-graph / multi-pack-index / .rev checks
 *   fsck_config.c   fsck.<msg-id>, fsck.skipList, advice.graftFileDeprecated
 *   fsck_out.c      the records (struct skg_report) of the check, their buffering in git's order,
 *                   the progress meter, exit bits, failures of the machine
 *   fsck_check.c    one object: git's fsck_obj (syntax checks, links into the graph, --root/--tags)
 *   fsck_loose.c    the loose objects of an object directory, on several threads
 *   fsck_file.c     files mapped for the pack check
 *   fsck_pack.c     packs: their order (get_all_packs), verify_pack, verify_packfile's object by
 *                   object read of a corrupt pack, packs git cannot open
 *   fsck_read.c     git's object store reads outside the check: a blob, a loose object again
 *   fsck_special.c  the .gitmodules / .gitattributes blobs (fsck_finish)
 *   fsck_refs.c     the roots: refs, worktrees' HEADs and reflogs, the index
 *   fsck_walk.c     the connectivity walk's lines (broken links, missing, dangling, unreachable)
 *   fsck_lost.c     --lost-found
 * Nothing here prints or exits: every line is a record for the caller's sink.
 */
#ifndef SHA1KIT_GIT_FSCK_RUN_H
#define SHA1KIT_GIT_FSCK_RUN_H

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sha1kit/git_fsck.h>

#include "fsck_object.h"
#include "grafts.h"
#include "graph.h"
#include "loose.h"
#include "typeorder.h"
#include "util.h"

struct skg_pk_pack;
struct skg_refdb;
struct skg_repo;

/* git's core.bigFileThreshold default: a blob above it is not loaded by fsck ("too large") */
#define SKG_FSCK_BIG_FILE ((uint64_t)512 << 20)

/* A pack git reads objects from (its idx passed git's checks), in check order. */
struct skg_fsck_pack_paths {
	char *idx, *pack;
};

/* An object of a pack that cannot be read (git marks it bad when it tries), or that reads back
 * with another ID (mismatch), and its pack. */
struct skg_fsck_bad_packed {
	uint8_t id[SKG_MAX_RAWSZ];
	bool mismatch;
	bool marked;     /* a delta base git marked bad: it never reads it again */
	bool reread;     /* git read it again after its check, with its lines (skg_fsck_falls_back) */
	uint64_t offset; /* where it is in the pack */
	char *pack, *idx;
};

/* A pack git cannot read objects from, and git's line for it, which git prints again each time it
 * looks for an object there (skg_fsck_lookup_lines). */
struct skg_fsck_unusable {
	char *line;
	uint8_t *idx; /* NULL: the idx does not open (every lookup); else a copy of the idx (a lookup
	               * of an object it lists opens the pack) */
	size_t idx_len;
	int dir_errno; /* not 0: a pack directory that does not open (opendir's errno): its line
	                * comes at each re-reading of the pack directories, not at each look-up */
	char *pack;    /* an idx that does not open: its pack's path (git 2.55's rev-index check) */
	/* a pack of the multi-pack-index whose idx does not open (git finds its objects through the
	 * multi-pack-index, midx.c fill_midx_entry, is_pack_valid): the IDs placed in it, sorted;
	 * a lookup of one prints `line` (the idx's, NULL when the idx is missing) and "error:
	 * packfile P index unavailable" (packfile.c open_packed_git_1), of any other ID nothing */
	bool midx;
	uint8_t *mids;
	size_t n_mids;
	int open_errno; /* an idx git's open() fails on: its errno (git 2.39's read of an object it
	                 * does not find dies on it, as on dir_errno); with `idx`, a pack whose
	                 * trailer's read fails (EINVAL): for the IDs that idx lists */
};

/* An entry of a sparse index, held (fsck_refs.c). */
struct skg_fsck_sparse_entry {
	char *path;
	uint32_t mode, flags;
	uint8_t id[SKG_MAX_RAWSZ];
	bool sparse_directory;
};

/* A blob that trees name .gitmodules / .gitattributes: checked at the end. */
struct skg_fsck_special_blob_ref {
	uint8_t id[SKG_MAX_RAWSZ];
	unsigned kinds;    /* enum skg_fsck_special, ORed */
	uint32_t pack_seq; /* the first tree naming it in git's order (struct skg_fsck_dest) */
	uint64_t offset;
	uint64_t order; /* that tree's skg_graph_order (a loose one's directory and place too) */
};

/* A tree that does not decode to its end, with git's words for why (printed again by the walk). */
struct skg_fsck_bad_tree {
	uint8_t id[SKG_MAX_RAWSZ];
	char why[96]; /* the walk's line, after "error: " (or "fatal: ") */
	bool fatal;   /* git dies there (a commit-graph parse, skg_fsck_graph_commit) */
};

/* The lines of one object of the pack being checked (records in pack_text). */
struct skg_fsck_pack_line {
	uint64_t offset;
	size_t at, len;
};

/* git's progress line ("Checking objects: 42% (159622/380053)"), under the lock: progress.c's
 * display() as fsck drives it. n counts what was done; base is the count at the start of the
 * current pack (git's base_count); shown is the last value drawn (-1: none yet, and then
 * stop_progress draws nothing); every: draw after each `every`-th unit (pack-check.c: 1024), 0 never
 * (the object directories: git's callback holds a NULL meter, only 256 is drawn, at the end). */
struct skg_fsck_meter {
	const char *title;
	uint64_t total, n, base, every;
	int64_t shown;
	int pct; /* the percentage drawn last, -1 none */
	double last;
	bool on;
};

/* The state of one check. */
struct skg_midx_bad_id;

struct skg_fsck_run {
	struct skg_repo *repo;
	size_t rawsz;           /* bytes of the repository's object IDs: 20 (SHA-1) or 32 (SHA-256) */
	unsigned format;        /* the repository's object format: SKG_FORMAT_SHA1 or SKG_FORMAT_SHA256 */
	struct skg_refdb *refs; /* the refs, during skg_fsck_roots (fsck_refs.c) */
	struct skg_graph *graph;
	struct skg_fsck_options fopt;
	struct skg_sink rep; /* the repository readers' records: skg_fsck_on_report */
	const struct skg_sink *sink;
	struct skg_progress progress; /* fn NULL: no meter */
	const volatile int *cancel;
	void (*on_map)(void *ctx, const void *addr, uint64_t len, const char *path, bool mapped);
	void *map_ctx;
	/* the object directories (the repository's, then its alternates), and a loose reader per
	 * thread of the walk (reloading loose trees) */
	char **odb_dirs;
	size_t n_odb_dirs, cap_odb_dirs;
	struct skg_loose_reader **walk_readers;
	bool show_dangling, show_unreachable, show_root, show_tags, connectivity_only, include_reflogs,
	    keep_cache, name_objects;
	unsigned threads;
	pthread_mutex_t lock; /* records, errors and shared lists, from every thread */
	int errors;           /* git's exit bits */
	/* while a process git runs is modelled (`git commit-graph verify`, `git multi-pack-index
	 * verify`): its exit bit, else 0. Its lines but warnings, hints and notices carry it, and a
	 * "fatal: " line ends that process, not the check (skg_fsck_vline, skg_fsck_bit_lines) */
	unsigned child_bits;
	bool child_marked; /* a line of that process carried its bit (skg_fsck_child_failed) */
	unsigned default_refs;
	bool tips_done; /* the refs and HEADs were read before the objects' records (git 2.55) */
	bool snapshot;  /* skg_fsck_ref_tips is running */
	/* git 2.55 in a reftable repository: 1 + the place (main worktree 0) of the first linked
	 * worktree whose stack does not open, 0 for none (fsck_refs.c broken_worktree), -1 not known
	 * yet; wt_place counts the worktrees of the walk over them that is running */
	long wt_broken;
	size_t wt_place;
	/* git 2.55's snapshot order (skg_fsck_tip_order): the objects its refs and HEADs name, sorted
	 * by ID, each with its place (skg_read_pos.tip) */
	struct skg_fsck_tip *tips;
	size_t n_tips, cap_tips;
	/* skg_fsck_ref_tips: the objects parsed so far (their IDs in order), and the type git has in
	 * memory for the one being read, from a link of one read before (SKG_NONE: none) */
	uint8_t *snap_read;
	size_t n_snap_read, cap_snap_read;
	unsigned snap_known;
	uint8_t *skip; /* fsck.skipList: sorted object IDs whose findings are not reported */
	size_t nskip;
	bool incomplete;           /* a pack's check stopped part way: some objects' links are unknown */
	bool died;                 /* git dies at this point of the check (its fatal line is out) */
	bool config_died;          /* a config value git dies on (its fatal line is out) */
	bool lost_found;           /* --lost-found */
	bool check_refs;           /* --references (git 2.48+): skg_refs_verify first */
	unsigned git_version;      /* SKG_GIT_2_39 or SKG_GIT_2_55: whose lines where they differ */
	const char *index_display; /* the index file being read, as git names it (fsck_refs.c) */
	bool index_current;        /* ... and it is the index of the worktree the check runs in */
	/* a sparse index ("sdir" extension) being read: its entries, held until they are all in, then
	 * expanded as git's ensure_full_index does (fsck_refs.c) */
	bool index_sparse;
	struct skg_fsck_sparse_entry *sparse;
	size_t n_sparse, cap_sparse;
	bool sparse_hinted;   /* git's advice on the expansion was given (once a process) */
	bool no_sparse_hint;  /* advice.sparseIndexExpanded = false */
	bool refs_died;       /* the ref check died (its fatal line is f->fatal) */
	bool no_graft_hint;   /* advice.graftFileDeprecated = false */
	bool no_commit_graph; /* core.commitGraph = false: git loads and verifies none */
	uint64_t big_file;    /* core.bigFileThreshold (SKG_FSCK_BIG_FILE by default): a blob over it
	                       * is streamed by git's pass over the objects, not held */
	/* the lines of fsck's own load of the commit-graph: given at its first parse of a commit
	 * (skg_fsck_graph_lines, from graph_load: one struct skg_lines per object directory, NULL
	 * once given), not at the end (a load that dies: at the end) */
	bool graph_lines_early;
	struct skg_lines *graph_load;
	/* --connectivity-only: the commit-graph git's walk parses commits from (skg_fsck_graph_open;
	 * cg NULL: none), and with git 2.39 the objects its refs and HEADs name, which it parses from
	 * the object database (sorted, as f->tips) */
	struct skg_cgraph_open *cg;
	const struct skg_cgraph_layer *cg_layers;
	size_t cg_n;
	size_t cg_dir; /* the object directory (f->odb_dirs) it came from */
	struct skg_fsck_tip *cg_tips;
	size_t n_cg_tips;
	bool no_midx;          /* core.multiPackIndex = false: git loads and verifies none */
	bool midx_packs;       /* a pack the check read is in a multi-pack-index */
	bool promisor_remote;  /* the repository has a promisor remote (fsck_promisor.c) */
	bool promisor_stopped; /* git's collection of the promisor objects stopped at promisor_stop */
	uint8_t promisor_stop[SKG_MAX_RAWSZ];
	struct skg_buf alt_lines; /* what reading the alternates said (records), again at each
	                           * commit-graph verify */
	struct skg_grafts grafts; /* info/grafts and shallow: the parents git gives those commits */
	/* a failure of the machine (SKG_E_NOMEM, ...): the first one, under the lock; `failed` is
	 * read without it */
	atomic_int failed;
	struct skg_error fail;
	struct skg_buf fatal; /* the text of the last "fatal: " record sent (SKG_E_GIT's message) */
	/* the pack being checked (for the object callback) and its idx, and its place in git's
	 * order */
	const struct skg_pk_pack *pack;
	const struct skg_file *pack_idx;
	uint32_t pack_seq;
	struct skg_fsck_meter meter;
	struct skg_fsck_bad_tree *bad_trees;
	size_t n_bad_trees;
	struct skg_fsck_special_blob_ref *specials; /* under the lock: checked at the end */
	size_t n_specials, cap_specials;
	struct skg_fsck_bad_packed *bad_packed;
	size_t n_bad_packed;
	/* trees of a pack whose delta base failed there, read by the check (as git's verify_pack) from
	 * the base's other copy: git's walk reads each again, with the same lines (skg_graph_set_reread,
	 * skg_fsck_walk_reread) */
	struct skg_fsck_bad_packed *ext_base;
	size_t n_ext_base;
	/* --connectivity-only: the commits and tags of a pack that do not parse and are not what their
	 * ID says (an entry header retyped, say; connectivity_pack of fsck_pack.c), for
	 * skg_fsck_retyped_first */
	struct skg_fsck_bad_packed *conn_mismatch;
	size_t n_conn_mismatch;
	/* the objects whose copy git reads first reads back as another type (skg_fsck_retyped_first) */
	uint8_t *retyped;
	size_t n_retyped;
	struct skg_fsck_pack_paths *usable_packs;
	size_t n_usable_packs;
	/* the IDs git's lookups cannot read though the check may have read them (fsck_routed.c),
	 * sorted */
	uint8_t *routed;
	size_t n_routed;
	/* of those, the IDs whose lookup dies (a pack-int-id beyond its layer's packs), sorted */
	struct skg_midx_bad_id *midx_bad;
	size_t n_midx_bad;
	struct skg_fsck_unusable *unusable;
	size_t n_unusable;
	/* the records of the objects of the pack being checked, by offset: sent in git's order
	 * (offset order) once the pack is done, or dropped when git's reading of it through the idx
	 * replaces them */
	struct skg_fsck_pack_line *pack_lines;
	size_t n_pack_lines, cap_pack_lines;
	struct skg_buf pack_text;
	/*
	 * Links that disagree on an object's type (typeorder.h). The object check runs up to three
	 * times: the first pass's records are held (hold, held_out) until it is known that no two
	 * links disagree; if some do, a quiet pass (quiet, collect) gives `types` the events on those
	 * objects in git's order, it works out what git does with each, and the last pass sends git's
	 * lines.
	 */
	bool hold, quiet, collect;
	struct skg_buf held_out;
	struct skg_typeorder *types; /* NULL: no two links disagree */
	bool types_resolved;
};

/*
 * Where the records of one object check go: straight to the sink (buf == NULL), or, for the
 * threads that read loose objects and the pack resolver threads, into a buffer of records sent
 * later in git's order.
 */
struct skg_fsck_dest {
	struct skg_fsck_run *f;
	struct skg_buf *buf;
	int odb; /* the object directory (index in f->odb_dirs) of a loose object; -1 in a pack */
	/* where the object checked is in git's order of checks: 0 for a loose object (all come
	 * first), else 1 + its pack's index in f->usable_packs, and its offset in that pack */
	uint32_t pack_seq;
	uint64_t offset;
	/* a loose object: its xx/ directory and its place in the directory's reading order */
	uint32_t dir, nth;
	/* where the check's exit bits go (the caller adds them to the run's when it keeps the
	 * records), or NULL: to the run's (skg_fsck_add_errors) */
	int *errors;
	/* the exit bits a finding of error severity adds (skg_fsck_on_finding): 0 for the object
	 * check's own, SKG_CHECK_ERROR_PACK in a pack (verify_pack's callback), else
	 * SKG_CHECK_ERROR_OBJECT */
	unsigned finding_bits;
};

/* What a record is about, beyond its text (struct skg_report's fields; all may be 0 / NULL). */
struct skg_fsck_meta {
	int id;
	const char *msg_id;
	unsigned type;
	const uint8_t *oid;
	unsigned exit_bits;
};

/* ---- fsck_out.c: records ------------------------------------------------------------------------ */

/* A line (or several, separated by '\n') for stderr ('e') or stdout ('o'): into s->buf, or sent.
 * meta may be NULL. A buffer that cannot grow is a failure of the run (SKG_E_NOMEM). */
void skg_fsck_vline(struct skg_fsck_dest *s, const struct skg_fsck_meta *meta, char stream, const char *fmt,
                    va_list ap);
void skg_fsck_err(struct skg_fsck_dest *s, const char *fmt, ...) SKG_PRINTF(2, 3);
void skg_fsck_out(struct skg_fsck_dest *s, const char *fmt, ...) SKG_PRINTF(2, 3);
void skg_fsck_errm(struct skg_fsck_dest *s, const struct skg_fsck_meta *meta, const char *fmt, ...)
    SKG_PRINTF(3, 4);
void skg_fsck_outm(struct skg_fsck_dest *s, const struct skg_fsck_meta *meta, const char *fmt, ...)
    SKG_PRINTF(3, 4);
/* The same, sent at once (or held, in the first pass of the object check). */
void skg_fsck_err_line(struct skg_fsck_run *f, const struct skg_fsck_meta *meta, const char *fmt, ...)
    SKG_PRINTF(3, 4);
void skg_fsck_out_line(struct skg_fsck_run *f, const struct skg_fsck_meta *meta, const char *fmt, ...)
    SKG_PRINTF(3, 4);
/* Lines for stderr, sent at once (or held), each "error: " and "fatal: " one carrying `bits`. child:
 * the lines of a process git runs (`git commit-graph verify`, `git multi-pack-index verify`; `bits`
 * its exit bit, which the caller adds when it fails): every line but a warning, hint or notice
 * carries `bits` (its reports have no prefix), and a "fatal: " line ends that process, not the
 * check (struct skg_report.fatal false). */
void skg_fsck_bit_lines(struct skg_fsck_run *f, const struct skg_lines *lines, unsigned bits, bool child);
/* The end of a process git runs that failed (`bits` its exit bit, added to the run's): where none
 * of its lines carried the bit (its only line a warning, or none), a record git does not print
 * (SKG_LEVEL_SILENT, text `what`) carries it. */
void skg_fsck_child_failed(struct skg_fsck_run *f, unsigned bits, const char *what);
/* A line for stderr that adds `bits` to the exit status (its record carries them), sent at once
 * (or held), and the bits added to the run's. */
void skg_fsck_err_bits(struct skg_fsck_run *f, unsigned bits, const char *fmt, ...) SKG_PRINTF(3, 4);
/* A Git-layer reader's lines (each ends with a newline), for stderr: to s, or sent at once. */
void skg_fsck_dest_lines(struct skg_fsck_dest *s, const struct skg_lines *lines);
void skg_fsck_lines(struct skg_fsck_run *f, const struct skg_lines *lines);
/* Records kept in another buffer (rec[0..len)), on to s: appended, or sent. */
void skg_fsck_add(struct skg_fsck_dest *s, const char *rec, size_t len);
/* Records made later for the object at `order` (skg_graph_order) in git's order of checks, put
 * among the held ones (f->hold) where git prints them: after the records of the objects checked
 * at or before it; sent at once when nothing is held. */
void skg_fsck_insert_held(struct skg_fsck_run *f, const struct skg_buf *recs, uint64_t order);
/* Records rec[0..len) to the sink in their order (held or dropped in the first or quiet pass). */
void skg_fsck_send(struct skg_fsck_run *f, const char *rec, size_t len);
/* Exit bits, from any thread. */
void skg_fsck_add_errors(struct skg_fsck_run *f, int bits);
/* A failure of the machine: the first one is kept (err of skg_check_repo); the check stops. */
void skg_fsck_fail(struct skg_fsck_run *f, enum skg_errc code, int sys_errno, const char *what);
void skg_fsck_nomem(struct skg_fsck_run *f);
/* A repository reader's failure: git's "fatal: MSG" line (SKG_E_GIT: git dies there, f->died), else
 * the run's failure. */
void skg_fsck_reader_error(struct skg_fsck_run *f, const struct skg_error *err);
/* Whether the check must stop: a failure of the machine, or the caller's cancel flag (which then
 * becomes the run's failure, SKG_E_CANCELLED). */
bool skg_fsck_stopped(struct skg_fsck_run *f);
/* git's progress meter as fsck drives it: start_progress (draws nothing), one unit done (drawn when
 * the count before it is a multiple of `every`, see struct skg_fsck_meter), display_progress(v),
 * the end of a pack of `count` objects (display_progress(base_count + count)), and stop_progress
 * (the last value drawn with ", done."; nothing when none was drawn). */
void skg_fsck_meter_start(struct skg_fsck_run *f, const char *title, uint64_t total, uint64_t every);
void skg_fsck_meter_add(struct skg_fsck_run *f, uint64_t k);
void skg_fsck_meter_display(struct skg_fsck_run *f, uint64_t v);
void skg_fsck_meter_pack_start(struct skg_fsck_run *f);
void skg_fsck_meter_pack_end(struct skg_fsck_run *f, uint64_t count, bool drawn);
void skg_fsck_meter_stop(struct skg_fsck_run *f);
/* git's printable_type(): the type's name, "unknown" for none. */
const char *skg_fsck_tname(unsigned type);
/* The repository readers' records (f->rep): on to the sink, with their exit bits. */
void skg_fsck_on_report(void *ctx, const struct skg_report *r);
/* Whether fsck.skipList names id. */
bool skg_fsck_skipped(const struct skg_fsck_run *f, const uint8_t *id);
/* skg_fsck_report_fn of the object checks (ctx: struct skg_fsck_dest *). */
void skg_fsck_on_finding(void *ctx, const struct skg_fsck_finding *fd);

/* ---- fsck_config.c ------------------------------------------------------------------------------ */

/* skg_config_fn: fsck.<msg-id>, fsck.skipList, advice.graftFileDeprecated (ctx: the run). */
int skg_fsck_on_config(void *ctx, const char *key, const char *value);

/* ---- fsck_check.c: one object ------------------------------------------------------------------- */

/* git's fsck_obj over one object that exists (`where`: its loose path for messages, NULL in a
 * pack); data NULL for a blob not read (streamed). Called from several threads at once. */
void skg_fsck_check_object(struct skg_fsck_dest *s, unsigned type, const uint8_t *id, const uint8_t *data,
                           size_t len, const char *where);
/* What goes wrong when git parses `id` (the last pass only), or NULL. */
const struct skg_typeorder_fate *skg_fsck_type_fate(const struct skg_fsck_run *f, const uint8_t *id);
/* git's lines for such a fate: to s, or sent at once when s is NULL. */
void skg_fsck_fate_lines(struct skg_fsck_run *f, struct skg_fsck_dest *s,
                         const struct skg_typeorder_fate *fate);
/* git's lookup of `id` as `type` where it has the object as `tau` (object.c object_as_type):
 * "error: object ID is a TAU, not a TYPE", sent at once. */
void skg_fsck_lookup_fails(struct skg_fsck_run *f, const uint8_t *id, unsigned tau, unsigned type);
/* git's parse_object_buffer of a commit or tag read for a ref: false after the parser's error
 * (none when `quiet`); any other type: true. */
bool skg_fsck_parses(struct skg_fsck_run *f, unsigned type, const uint8_t *id, const uint8_t *data,
                     size_t len, bool quiet);

/* Records `why` as what git's walk says at object `id` (on_walk_error of fsck_walk.c): a tree that
 * does not decode, a commit-graph parse that fails or dies (fatal), a read that finds another type
 * (skg_fsck_retyped_first). fsck_check.c. */
void skg_fsck_walk_line(struct skg_fsck_run *f, const uint8_t *id, const char *why, bool fatal);

/* ---- fsck_loose.c ------------------------------------------------------------------------------- */

/* The loose objects of object directory number odb: 0, or -1 when the check stops there (git dies:
 * its lines are out; or a failure of the run). */
int skg_fsck_check_loose(struct skg_fsck_run *f, const char *objdir, int odb);

/* ---- fsck_pack.c -------------------------------------------------------------------------------- */

/* A pack of one of the object directories, where git puts it in its order of reading. */
struct skg_fsck_pack_ref {
	char *idx, *pack;
	size_t odb;    /* the object directory's place (0: the repository's own) */
	size_t seq;    /* its place in the directory listing */
	int64_t mtime; /* of the .pack, in seconds */
	size_t midx;   /* 1 + its place in the repository's multi-pack-index, 0 when not there */
	size_t touch;  /* git 2.55: 1 + the place of the first ref tip found in it through the
	                  multi-pack-index (the snapshot loaded it), 0 when none is */
	bool v255;     /* ordered as git 2.55 */
	int64_t mru;   /* git 2.55, a pack no multi-pack-index lists: its place in git's list after
	                  the snapshot's reads of the ref tips (each moves the pack it is found in to
	                  the front: most recently used first), the listing's order before them */
};

/* Every pack of the object directories in git's order: a malloc'd array of *n (NULL and 0 also
 * when there is none); -1 when out of memory. dir_errors: a pack directory that does not open is
 * reported and remembered (the object check's listing; not a second listing). */
int skg_fsck_list_packs(struct skg_fsck_run *f, bool dir_errors, struct skg_fsck_pack_ref **out, size_t *n);
/* The same list (no dir_errors) as git has it after its last re-reading of the pack directories
 * (before the object check), sorted as packfile.c sort_pack sorts it: local packs first, then the
 * newer .pack first, ties in the listing's order. 0, or -1 when out of memory. */
int skg_fsck_packs_sorted(struct skg_fsck_run *f, struct skg_fsck_pack_ref **out, size_t *n);
/* Whether a .promisor file is beside the pack (packfile.c add_packed_git: pack_promisor): 1 or 0;
 * -1 when out of memory. */
int skg_fsck_promisor_pack(const char *pack_path);
/* The line of each pack directory that does not open (git's re-reading of the pack directories). */
void skg_fsck_pack_dir_lines(struct skg_fsck_run *f);
/* Git 2.55's snapshot dies reading a ref's packed object at an offset past its pack's end, before
 * the object check: its fatal line, f->died; true then. */
bool skg_fsck_snapshot_dies(struct skg_fsck_run *f);
void skg_fsck_free_packs(struct skg_fsck_pack_ref *v, size_t n);
/* The number of objects an idx file says it lists (0 when it cannot be read as one). */
uint64_t skg_fsck_idx_count(const char *path);
/* git's fsck with its meter on: the objects of the pack of this idx in the meter's total, and the
 * line of an idx that does not open (git's open_pack_index, fsck.c). */
uint64_t skg_fsck_progress_count(struct skg_fsck_run *f, const char *idx_path);
/* git's verify_pack of one pack and its idx; `odb`: its object directory (0: the repository's),
 * `midx`: 1 + its place in the multi-pack-index (0: not there), `mtime`: the .pack's time (seconds). */
void skg_fsck_check_pack(struct skg_fsck_run *f, const char *pack_path, const char *idx_path, uint32_t odb,
                         size_t midx, int64_t mtime);
/*
 * After the object check: the objects git's lookups through a multi-pack-index (every object
 * directory's) cannot read, into f->routed: those it places in a pack git cannot read objects from
 * (a pack that is gone or did not open) and that git finds nowhere else (no loose file, no other
 * pack outside the multi-pack-indexes), those of its packs its lookup does not find (not listed,
 * or out of order), and those whose entry names a pack-int-id beyond its layer's packs
 * (f->midx_bad: git dies at their lookup); the trees among them the check read are marked for the
 * walk (skg_graph_set_noread: git reads them again there). 0, or -1 when out of memory
 * (fsck_routed.c).
 */
int skg_fsck_midx_routed(struct skg_fsck_run *f);
/*
 * After the object check: the objects whose first copy in git's order of reading (its packs in
 * order, then the loose files) is a pack entry that reads back as another type than the object the
 * check read (a retyped entry header: "packed X is corrupt" in the check): git's walk, which reads
 * a tree again (and with --connectivity-only a commit or tag), says "error: Object X not a T" there
 * and follows none of its links (tree.c parse_tree_gently, commit.c, tag.c). Recorded as the walk's
 * line (skg_fsck_walk_line) and marked for the walk (skg_graph_set_noread). Not done where a
 * multi-pack-index sends git's lookups (skg_fsck_midx_routed). fsck_pack.c.
 */
void skg_fsck_retyped_first(struct skg_fsck_run *f);
/*
 * git's read of `id` after its check, where the copy it finds first is one the check could not
 * read (not one that reads back as another object) and another copy follows in its order (a later
 * pack that has it readable, or a loose file): the read fails there, git marks that copy bad and
 * reads the next (packfile.c mark_bad_packed_object, then the lookup again). True in that case,
 * with *type the object's (the graph's, from the readable copy); the failed read's lines are out
 * once (every time for a process git starts: `child`). False otherwise, nothing printed.
 */
bool skg_fsck_falls_back(struct skg_fsck_run *f, const uint8_t *id, bool child, unsigned *type);
/* Whether `id` is one of skg_fsck_retyped_first's objects: git's parse_object of it reads the
 * other type and hashes that ("hash mismatch"). */
bool skg_fsck_retyped(const struct skg_fsck_run *f, const uint8_t *id);
/* Whether git's object store cannot read `id` though the check may have (skg_fsck_midx_routed). */
bool skg_fsck_routed(const struct skg_fsck_run *f, const uint8_t *id);
/* Whether git's lookup of `id` dies in the multi-pack-index (f->midx_bad): its "fatal: bad
 * pack-int-id" line out; with `child` false git fsck itself dies (f->died), else the process it
 * started (`git commit-graph verify`). */
bool skg_fsck_midx_dies(struct skg_fsck_run *f, const uint8_t *id, bool child);
/* git looks for id in its packs `times` times: the lines of the packs it cannot open. */
void skg_fsck_lookup_lines(struct skg_fsck_run *f, const uint8_t *id, unsigned times);
/* git's parse_object of a packed object the check could not read, or of a missing object after a
 * pack directory did not open (git dies on the errno that opendir left): true when git dies (its
 * lines are out, f->died set). */
bool skg_fsck_dies_bad_packed(struct skg_fsck_run *f, const uint8_t *id);
/* Whether the check found a copy of `id` in a pack that does not read or reads back as another
 * object (skg_fsck_ref_dies_bad_packed then gives git's parse of it). */
bool skg_fsck_has_bad_copy(struct skg_fsck_run *f, const uint8_t *id);
/* That copy as git 2.53+'s collection of the promisor objects parses it (parse_object_with_flags
 * with PARSE_OBJECT_SKIP_HASH_CHECK, packfile.c add_promisor_object since 3f5d1749e7): true where
 * the parse gives an object (a copy that reads back as another object, which is not hashed; a blob
 * git has not marked bad, which is not read: its type from the entry headers, unless git has it in
 * memory as a commit, tree or tag), false where it reads the copy and fails. */
bool skg_fsck_bad_copy_parses_unhashed(struct skg_fsck_run *f, const uint8_t *id);
/* The same read where git parses a ref's object (parse_object: the object's type first, packfile.c
 * packed_to_object_type, and where that fails no read of its data; skg_pk_git_info_type), and, in
 * 2.55's snapshot of the refs, before git's pass over the packs: no delta base is marked bad yet,
 * so a base's read has its lines again. */
bool skg_fsck_ref_dies_bad_packed(struct skg_fsck_run *f, const uint8_t *id);
/* --connectivity-only: git's walk reading `id`, a corrupt copy in a pack (check_rest found it
 * unreadable): git's lines for the read, then "fatal: packed object ID (stored in PACK) is corrupt"
 * (f->died, true); false for any other object. */
bool skg_fsck_dies_conn_read(struct skg_fsck_run *f, const uint8_t *id);
/* --connectivity-only's second listing (mark_unreachable_referents) at an unreachable object with a
 * corrupt copy in a pack that opens: git's fsck_walk parses it unless it is a blob (its type from
 * the entry headers), and dies as skg_fsck_dies_conn_read (true); false for any other object. */
bool skg_fsck_referent_dies(struct skg_fsck_run *f, const uint8_t *id);
/* The walk's read of a tree the check read with its delta base from another copy (struct
 * skg_fsck_run.ext_base): git's unpack lines again (the base fails, and is read elsewhere). False
 * for any other object. */
bool skg_fsck_walk_reread(struct skg_fsck_run *f, const uint8_t *id);
/* The walk's read of an object a multi-pack-index sends to a copy the check found corrupt (another
 * pack's good copy is not tried: f->routed): git dies there (its lines are out, f->died); false
 * when no such copy is known. */
bool skg_fsck_dies_bad_copy(struct skg_fsck_run *f, const uint8_t *id);
/* The same object read by a process git starts (`git commit-graph verify`), where nothing is marked
 * bad yet: unpack_entry's lines and read_object_file_extended's fatal line; true when it dies so. */
bool skg_fsck_child_dies_bad_packed(struct skg_fsck_run *f, const uint8_t *id);
/* git 2.39.5's `git commit-graph verify` reading an object it does not find, after a pack directory
 * or pack did not open: it dies on that errno (as skg_fsck_dies_bad_packed's fsck itself); true
 * when it dies (its line is out). */
bool skg_fsck_child_dies_errno(struct skg_fsck_run *f, const uint8_t *id);
/* skg_fsck_child_dies_bad_packed of a packed object --connectivity-only did not read (a commit of
 * the commit-graph) and the child process cannot read: its lines, true; false when no usable pack
 * has it, or the object check read every packed object. */
bool skg_fsck_child_dies_unread_packed(struct skg_fsck_run *f, const uint8_t *id);
/* --connectivity-only: the walk's read of `id`, whose entry says `type` and which the check did not
 * read (a blob, say, that git's walk reads as a tree): where it does not read, git's lines for the
 * read and "fatal: packed object ... is corrupt" (f->died), true; false when it reads. */
bool skg_fsck_walk_read_dies(struct skg_fsck_run *f, const uint8_t *id, unsigned type);

/* ---- fsck_read.c -------------------------------------------------------------------------------- */

/* Blob id as git's object store reads it: 0 and a malloc'd *data of *len bytes, 1 when larger than
 * max bytes, -1 when it cannot be read as a blob, -2 when out of memory; *seq / *where: where it is
 * (seq 0: loose). */
int skg_fsck_read_blob(struct skg_fsck_run *f, const uint8_t *id, uint64_t max, uint8_t **data, size_t *len,
                       uint32_t *seq, uint64_t *where);
/* The blob at graph order `at` of a pack (skg_graph_order: its pack_seq and offset; what the pass
 * over that pack met through the idx in index order), read there whatever its idx's lookup finds:
 * 0 with a malloc'd *data (*len bytes), -1 when it does not read as a blob, -2 out of memory. */
int skg_fsck_read_blob_at(struct skg_fsck_run *f, uint64_t at, uint8_t **data, size_t *len, uint32_t *seq,
                          uint64_t *where);
/* Whether `data` (len bytes), as an object of `type` (1..4) in the run's object format, hashes to
 * another ID than `id` (or does not hash). */
bool skg_fsck_hash_differs(const struct skg_fsck_run *f, unsigned type, const uint8_t *id,
                           const uint8_t *data, size_t len);
/* --connectivity-only: git's parse_object of an object hashes what it reads (object.c
 * parse_object: check_object_signature), which the check did not (connectivity_pack takes the type
 * from the pack's entry header), for a ref's object or one the walk meets with no type yet (a
 * reflog's entry): a packed copy of `type` that reads back as another object is "hash mismatch"
 * (its line here unless `quiet`) and no object to git. A commit the commit-graph has is parsed
 * from it, unread. 1 for a mismatch, 0 else. */
int skg_fsck_conn_hash_mismatch(struct skg_fsck_run *f, const uint8_t *id, unsigned type, bool quiet);
/* git's parse_object of a packed commit or tag the check read and could not parse (a ref names
 * it): its parse's line again ("bogus commit object ID"); nothing for any other object. */
void skg_fsck_reparse_packed_lines(struct skg_fsck_run *f, const uint8_t *id);
/* The same for an object of type `want` (1..4): -1 also when it is of another type. */
int skg_fsck_read_object(struct skg_fsck_run *f, const uint8_t *id, unsigned want, uint64_t max,
                         uint8_t **data, size_t *len, uint32_t *seq, uint64_t *where);
/* skg_fsck_read_object, not looking in the skip_seq-th usable pack (0: none), where git marked
 * the object bad (mark_bad_packed_object: its lookups pass over that pack for that ID). */
int skg_fsck_read_object_except(struct skg_fsck_run *f, uint32_t skip_seq, const uint8_t *id, unsigned want,
                                uint64_t max, uint8_t **data, size_t *len, uint32_t *seq, uint64_t *where);
/* git's parse_object() of an object that is no object to the check, from its loose file: an enum
 * skg_reparse_result (SKG_REPARSE_DIES sets f->died), or -1 when there is no such file. A file
 * that cannot be read: git 2.39 dies; 2.55 prints `reads` lines "unable to open loose object"
 * (one per read git makes there) and finds no object (SKG_REPARSE_MISMATCH). */
int skg_fsck_reparse_loose(struct skg_fsck_run *f, const uint8_t *id, unsigned reads, unsigned *type);
/* git's odb_read_object() of an object from its loose file (read_object_file: header and content
 * inflated whole, not hashed), as fsck_finish reads a .gitmodules / .gitattributes blob the object
 * check did not: SKG_STORED_OK with *type and a malloc'd *content (*len bytes), SKG_STORED_DIES
 * (git's lines out, f->died set), SKG_STORED_NOMEM (the run's error set), or -1 when there is no
 * such file. */
int skg_fsck_read_loose_whole(struct skg_fsck_run *f, const uint8_t *id, unsigned *type, uint8_t **content,
                              size_t *len);
/* The type git has `id` in memory as when a ref names it (SKG_NONE: not in memory): from a link
 * the object check read (skg_graph_known), or in git 2.55's snapshot, which comes before the
 * object check, from a link of a ref read before (f->snap_known). */
unsigned skg_fsck_in_memory_type(const struct skg_fsck_run *f, const uint8_t *id);
/* git's has_object() for an object that is no object to the check: a loose file of that name. */
bool skg_fsck_loose_file_exists(const struct skg_fsck_run *f, const uint8_t *id);

/* ---- fsck_special.c ----------------------------------------------------------------------------- */

/* fopt.found: a tree names blob id .gitmodules or .gitattributes (ctx: struct skg_fsck_dest *). */
void skg_fsck_on_found(void *ctx, enum skg_fsck_special kind, const uint8_t *id);
/* git's fsck_finish: the checks of those blobs. */
void skg_fsck_check_specials(struct skg_fsck_run *f);

/* ---- fsck_refs.c -------------------------------------------------------------------------------- */

/* Where git's parse_object of an object it has not read looks in the packs (skg_fsck_lookup_lines):
 * for its type (oid_object_info) unless git has it in memory (`known`, as skg_fsck_in_memory_type
 * gives it) as a commit, tree or tag, then to read it. A lookup that finds a loose file looks once,
 * else twice. */
void skg_fsck_parse_lookup_lines(struct skg_fsck_run *f, const uint8_t *id, unsigned known);

/* The roots: refs, each worktree's HEAD and reflogs, the index (the refs and HEADs left out when
 * skg_fsck_ref_tips read them). 0, or -1 when git dies there (its line is out) or the run failed. */
int skg_fsck_roots(struct skg_fsck_run *f);
/* git 2.55's snapshot of the refs (builtin/fsck.c snapshot_refs): every ref, then each worktree's
 * HEAD, the object each names read (skg_fsck_roots's lines for them, sent now; f->tips_done).
 * 0, or -1 as skg_fsck_roots. */
int skg_fsck_ref_tips(struct skg_fsck_run *f);

struct skg_fsck_tip {
	uint8_t id[SKG_MAX_RAWSZ];
	uint32_t place; /* 1: parsed first */
};
/* The order in which git 2.55's snapshot parses objects (every ref by name, then each worktree's
 * HEAD; an object named again is not parsed again) into f->tips, reporting nothing. 0, or -1 when
 * the run failed (out of memory: reported). */
int skg_fsck_tip_order(struct skg_fsck_run *f);
/* The snapshot's place of `id` (skg_read_pos.tip), 0 when it parses no such object. */
uint32_t skg_fsck_tip_place(const struct skg_fsck_run *f, const uint8_t *id);

/*
 * --connectivity-only: the commit-graph git's walk parses commits from (commit-graph.c
 * prepare_commit_graph: core.commitGraph, no grafts or shallow commits; the first object
 * directory with one) into f->cg, and with git 2.39 the ref tips into f->cg_tips. 0, or -1 when
 * out of memory (reported).
 */
int skg_fsck_graph_open(struct skg_fsck_run *f);
/* Whether git takes commits from a commit-graph here (commit_graph_compatible: core.commitGraph not
 * false, no grafts, no shallow file): 1 or 0; -1 when out of memory. */
int skg_fsck_graph_compatible(struct skg_fsck_run *f);
/*
 * Whether git's walk takes commit `id`'s links from the commit-graph, not from the object (it
 * parses the commit there, or dies there): the object need not be read. False for the objects
 * git parses from the object database first (the refs' and HEADs' tips).
 */
bool skg_fsck_graph_has(const struct skg_fsck_run *f, const uint8_t *id);
/* git fsck's own load of the commit-graph, at its first parse of a commit: its lines, once (every
 * object directory's, as check_graph gave them), unless a load dies (then at the end). */
void skg_fsck_graph_lines(struct skg_fsck_run *f);
/* --connectivity-only, an object git lists and cannot read (a pack that does not open): the links
 * git's walk takes from the commit-graph if it reaches it as a commit the graph holds (not a tip),
 * into the graph (skg_graph_set_graph_links). */
void skg_fsck_unread_graph_links(struct skg_fsck_run *f, const uint8_t *id);

/* ---- fsck_walk.c -------------------------------------------------------------------------------- */

/* The connectivity walk, with its lines. 0, or -1 when git dies (lost-found) or the run failed. */
int skg_fsck_walk(struct skg_fsck_run *f);
/* The links of loose tree `id` of object directory number `source`, read again with `reader`, each
 * to link(link_ctx, ...) (gitlinks left out, as the graph's links). */
void skg_fsck_tree_links(struct skg_fsck_run *f, struct skg_loose_reader *reader, unsigned source,
                         const uint8_t *id, void (*link)(void *link_ctx, const uint8_t *id, unsigned type),
                         void *link_ctx);

/* ---- fsck_promisor.c ---------------------------------------------------------------------------- */

/* A config entry: remote.<name>.promisor, remote.<name>.partialclonefilter (from skg_fsck_on_config). */
void skg_fsck_promisor_config(struct skg_fsck_run *f, const char *key, const char *value);
/* extensions.partialClone (read with the repository's format, before the object check: a
 * --connectivity-only check reads the promisor packs whole, as git's collection of the promisor
 * objects does). 0, or -1 when the run failed. */
int skg_fsck_promisor_remote(struct skg_fsck_run *f);
/* After the object check, with a promisor remote: the promisor objects marked in the graph, as
 * git's is_promisor_object collects them (packfile.c add_promisor_object: every object of the
 * packs with a .promisor file, in git's order of the packs and each idx's order, and what each
 * links to) up to the first object git cannot parse there, where its collection stops (a pack
 * that does not open, a copy that does not read or hashes to another ID). 0, or -1 when the run
 * failed. */
int skg_fsck_promisor(struct skg_fsck_run *f);
/* The lines of git's parse of the object the collection stopped at, where git collects (its first
 * ref): "hash mismatch", the lines of the packs it cannot open, or the lines of a read that fails
 * and "fatal: packed object ... is corrupt" (f->died). */
void skg_fsck_promisor_lines(struct skg_fsck_run *f);

/* ---- fsck_lost.c -------------------------------------------------------------------------------- */

/* git's --lost-found for one dangling object; false when git dies (its line is out). */
bool skg_fsck_write_lost_found(struct skg_fsck_run *f, unsigned type, const uint8_t *id);

#endif /* SHA1KIT_GIT_FSCK_RUN_H */
