/*
 * fsck.c - `sha1kit fsck`: verify a whole repository as `git fsck --full` does, with SHA-1DC on
 * every object, and print what git prints (stdout: broken links, missing, dangling, unreachable,
 * root and tagged lines; stderr: errors, warnings, notices) with git's exit status bits.
 *
 * The order of work is git's (builtin/fsck.c, v2.39.5): the config (fsck.<msg-id>, fsck.skipList);
 * the loose objects of every object directory (the repository's, then its alternates); every pack
 * (indexed with the Git layer's pack engine, its idx rebuilt and compared byte for byte, every
 * object checked as it is resolved); the roots: refs, each worktree's HEAD and reflogs, the index
 * (entries, cache-tree, resolve-undo); the connectivity walk (src/git/graph.c); the commit-graph,
 * multi-pack-index and .rev files. All the formats and checks are the Git layer's (src/git/); this
 * file holds the options, the file handling and the printing.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "fsck_object.h"
#include "graph.h"
#include "loose.h"
#include "object.h"
#include "pack.h"
#include "pack_io.h"
#include "refs.h"
#include "repo.h"
#include "trailer.h"
#include "typeorder.h"

#define CMD          "fsck"
#define USAGE_STATUS 129 /* git's exit status for a usage error (parse-options) */
/* git's core.bigFileThreshold default: a blob above it is not loaded by fsck ("too large") */
#define BIG_FILE_THRESHOLD ((uint64_t)512 << 20)

/* git fsck's exit status bits (builtin/fsck.c). */
enum {
	ERROR_OBJECT = 01,
	ERROR_REACHABLE = 02,
	ERROR_PACK = 04,
	ERROR_REFS = 010,
	ERROR_COMMIT_GRAPH = 020,
	ERROR_MULTI_PACK_INDEX = 040,
	ERROR_PACK_REV_INDEX = 0100,
	ERROR_COLLISION = 0200, /* beyond git: a collision attack was detected in some object */
};

struct fsck {
	struct skg_repo *repo;
	struct skg_graph *graph;
	struct skg_fsck_options fopt;
	struct skg_sink rep;
	/* the object directories, and a reader for the walk's loose trees (reload_tree) */
	char **odb_dirs;
	size_t n_odb_dirs;
	struct skg_loose_reader **walk_readers; /* one per thread of the walk */
	bool show_dangling, show_unreachable, show_root, show_tags, connectivity_only, include_reflogs,
	    keep_cache;
	int progress; /* --progress 1, --no-progress 0, else (-1) when stderr is a terminal, as git */
	unsigned threads;
	pthread_mutex_t lock; /* printing and errors, from the pack resolver threads */
	int errors;
	unsigned default_refs;
	uint8_t *skip; /* fsck.skipList: sorted object IDs whose findings are not reported */
	size_t nskip;
	bool incomplete;          /* a pack's check stopped part way: some objects' links are unknown */
	bool died;                /* git dies at this point of the check (its fatal line is out) */
	bool config_died;         /* a config value git dies on (its fatal line is out) */
	bool lost_found;          /* --lost-found: dangling objects are written to <git_dir>/lost-found */
	bool no_graft_hint;       /* advice.graftFileDeprecated = false */
	struct skg_buf alt_lines; /* what reading the alternates printed, again at each commit-graph verify */
	struct skg_grafts grafts; /* info/grafts and shallow: the parents git gives those commits */
	/* the pack being checked (for the object callback), and its sink.pack_seq */
	struct pk_pack *pack;
	uint32_t pack_seq;
	/* git's progress line on stderr ("Checking objects: 42% (159622/380053)"), under lock */
	struct meter {
		const char *title;
		uint64_t total, n;
		unsigned pct;
		double last;
		bool on;
	} meter;
	/* trees that do not decode to their end, with git's words for why (printed again by the walk) */
	struct bad_tree {
		uint8_t id[SKG_RAWSZ];
		const char *why;
	} * bad_trees;
	size_t n_bad_trees;
	/* blobs trees name .gitmodules / .gitattributes (fopt.found), under lock: checked at the end */
	struct special {
		uint8_t id[SKG_RAWSZ];
		unsigned kinds;    /* enum skg_fsck_special, ORed */
		uint32_t pack_seq; /* the first tree naming it in git's order (struct sink) */
		uint64_t offset;
	} * specials;
	size_t n_specials, cap_specials;
	/* objects of those packs that cannot be read (git marks them bad when it tries), or that read
	 * back with another ID (mismatch), and their pack */
	struct bad_packed {
		uint8_t id[SKG_RAWSZ];
		bool mismatch;
		bool marked;     /* a delta base git marked bad: it never reads it again */
		uint64_t offset; /* where it is in the pack */
		char *pack, *idx;
	} * bad_packed;
	size_t n_bad_packed;
	/* the packs git reads objects from (their idx passed pk_git_usable), in check order */
	struct pack_paths {
		char *idx, *pack;
	} * usable_packs;
	size_t n_usable_packs;
	/* packs git cannot read objects from, and git's line for each, which git prints again each
	 * time it looks for an object there (lookup_lines) */
	struct unusable {
		char *line;
		uint8_t *idx; /* NULL: the idx does not open (every lookup); else a copy of the idx (a
		               * lookup of an object it lists opens the pack) */
		size_t idx_len;
	} * unusable;
	size_t n_unusable;
	/*
	 * Links that disagree on an object's type (typeorder.h). The object check runs up to three
	 * times: the first pass's lines are held (hold, held_out) until it is known that no two links
	 * disagree; if some do, a quiet pass (quiet, collect) gives `types` the events on those objects
	 * in git's order, it works out what git does with each, and the last pass prints git's lines.
	 */
	/* the lines of the objects of the pack being checked, by offset: written out in git's order
	 * (offset order) once the pack is done, or dropped when git's reading of it through the idx
	 * replaces them (pack_lines_out) */
	struct pack_line {
		uint64_t offset;
		size_t at, len; /* in pack_text */
	} * pack_lines;
	size_t n_pack_lines, cap_pack_lines;
	struct skg_buf pack_text;
	bool hold, quiet, collect;
	struct skg_buf held_out;
	struct skg_typeorder *types; /* NULL: no two links disagree */
	bool types_resolved;
};

/* ---- printing ---------------------------------------------------------------------------------- */

/*
 * Where the lines of one object check go: straight out (buf == NULL), or, for the threads that read
 * loose objects, into the buffer of the xx/ directory being read, written out in directory order
 * (git's) once the directories before it are out. A record is 'o' or 'e' (stdout, stderr), the
 * line, '\n'.
 */
struct sink {
	struct fsck *f;
	struct skg_buf *buf;
	int odb; /* the object directory (index in f->odb_dirs) of a loose object; -1 in a pack */
	/* where the object checked is in git's order of checks: 0 for a loose object (all come
	 * first), else 1 + its pack's index in f->usable_packs, and its offset in that pack */
	uint32_t pack_seq;
	uint64_t offset;
	/* a loose object: its xx/ directory and its place in the directory's reading order */
	uint32_t dir, nth;
};

static void sink_vline(struct sink *s, char stream, const char *fmt, va_list ap)
{
	if (s->buf == NULL && (s->f->quiet || s->f->hold)) {
		if (s->f->quiet) {
			return;
		}
		/* the first pass: into the held lines */
		pthread_mutex_lock(&s->f->lock);
		struct sink h = *s;
		h.buf = &s->f->held_out;
		sink_vline(&h, stream, fmt, ap);
		pthread_mutex_unlock(&s->f->lock);
		return;
	}
	if (s->buf == NULL) {
		pthread_mutex_lock(&s->f->lock);
		if (stream == 'e') {
			fflush(stdout);
			vfprintf(stderr, fmt, ap);
			putc('\n', stderr);
		} else {
			vprintf(fmt, ap);
			putchar('\n');
		}
		pthread_mutex_unlock(&s->f->lock);
		return;
	}
	char line[4096], *text = line;
	va_list aq;
	va_copy(aq, ap);
	int n = vsnprintf(line, sizeof(line), fmt, ap);
	if (n >= 0 && (size_t)n >= sizeof(line)) {
		text = malloc((size_t)n + 1);
		if (text != NULL) {
			vsnprintf(text, (size_t)n + 1, fmt, aq);
		}
	}
	va_end(aq);
	if (n < 0 || text == NULL) {
		s->buf->failed = true;
		return;
	}
	/* one record per line: the text may hold several (a reader's lines) */
	for (const char *p = text;;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl != NULL ? (size_t)(nl - p) : strlen(p);
		skg_buf_addf(s->buf, "%c%.*s\n", stream, (int)len, p);
		if (nl == NULL) {
			break;
		}
		p = nl + 1;
	}
	if (text != line) {
		free(text);
	}
}

static void s_err(struct sink *s, const char *fmt, ...) SK_PRINTF(2, 3);
static void s_err(struct sink *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sink_vline(s, 'e', fmt, ap);
	va_end(ap);
}

static void s_out(struct sink *s, const char *fmt, ...) SK_PRINTF(2, 3);
static void s_out(struct sink *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sink_vline(s, 'o', fmt, ap);
	va_end(ap);
}

static void sink_write(struct fsck *f, const char *text, size_t len);

/* Records kept in another buffer, on to this sink: appended, or written out. */
static void sink_add(struct sink *s, const char *text, size_t len)
{
	if (s->buf != NULL) {
		skg_buf_addf(s->buf, "%.*s", (int)len, text);
	} else {
		sink_write(s->f, text, len);
	}
}

/* The records of a sink's buffer, out to stdout and stderr in their order (under f->lock). */
static void sink_write(struct fsck *f, const char *text, size_t len)
{
	pthread_mutex_lock(&f->lock);
	if (f->quiet || f->hold) {
		if (f->hold) {
			skg_buf_add(&f->held_out, text, len);
		}
		pthread_mutex_unlock(&f->lock);
		return;
	}
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(text + i + 1, '\n', len - i - 1);
		size_t end = nl != NULL ? (size_t)(nl - text) + 1 : len;
		if (text[i] == 'e') {
			fflush(stdout);
			fwrite(text + i + 1, 1, end - i - 1, stderr);
		} else {
			fwrite(text + i + 1, 1, end - i - 1, stdout);
		}
		i = end;
	}
	pthread_mutex_unlock(&f->lock);
}

/* A line for stderr (git's error, warning and fatal lines) or stdout, printed at once. */
static void err_line(struct fsck *f, const char *fmt, ...) SK_PRINTF(2, 3);
static void err_line(struct fsck *f, const char *fmt, ...)
{
	struct sink s = {f, NULL, -1, 0, 0, 0, 0};
	va_list ap;
	va_start(ap, fmt);
	sink_vline(&s, 'e', fmt, ap);
	va_end(ap);
}

static void out_line(struct fsck *f, const char *fmt, ...) SK_PRINTF(2, 3);
static void out_line(struct fsck *f, const char *fmt, ...)
{
	struct sink s = {f, NULL, -1, 0, 0, 0, 0};
	va_list ap;
	va_start(ap, fmt);
	sink_vline(&s, 'o', fmt, ap);
	va_end(ap);
}

static double seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * git's progress.c as fsck uses it: "TITLE:  P% (N/TOTAL)\r", written again when the percentage
 * changes or a second has passed, and "TITLE: 100% (N/TOTAL), done.\n" at the end.
 */
static void meter_show(struct meter *m, const char *end)
{
	unsigned pct = m->total ? (unsigned)(m->n * 100 / m->total) : 100;
	fprintf(stderr, "%s: %3u%% (%" PRIu64 "/%" PRIu64 ")%s", m->title, pct, m->n, m->total, end);
	fflush(stderr);
	m->pct = pct;
	m->last = seconds();
}

static void meter_start(struct fsck *f, const char *title, uint64_t total)
{
	if (f->progress == 1) {
		pthread_mutex_lock(&f->lock);
		f->meter = (struct meter){title, total, 0, 0, 0, true};
		meter_show(&f->meter, "\r");
		pthread_mutex_unlock(&f->lock);
	}
}

static void meter_add(struct fsck *f, uint64_t k)
{
	if (!f->meter.on) {
		return;
	}
	pthread_mutex_lock(&f->lock);
	struct meter *m = &f->meter;
	m->n += k;
	unsigned pct = m->total ? (unsigned)(m->n * 100 / m->total) : 100;
	if (pct != m->pct || seconds() - m->last >= 1.0) {
		meter_show(m, "\r");
	}
	pthread_mutex_unlock(&f->lock);
}

static void meter_stop(struct fsck *f, uint64_t n)
{
	pthread_mutex_lock(&f->lock);
	if (f->meter.on) {
		f->meter.n = n;
		meter_show(&f->meter, ", done.\n");
		f->meter.on = false;
	}
	pthread_mutex_unlock(&f->lock);
}

static void add_errors(struct fsck *f, int bits)
{
	pthread_mutex_lock(&f->lock);
	f->errors |= bits;
	pthread_mutex_unlock(&f->lock);
}

/* git's printable_type(): the type's name, "unknown" for none. */
static const char *tname(unsigned type)
{
	const char *n = skg_type_name(type);
	return n != NULL ? n : "unknown";
}

static void hex(const uint8_t *id, char out[SKG_HEXSZ + 1])
{
	skg_to_hex(id, out);
}

/* Diagnostics of the repository, ref and index readers: git's prefix and words. */
static void on_report(void *ctx, const struct skg_report *r)
{
	enum skg_level level = r->level;
	int id = r->id;
	const char *msg = r->text;
	struct fsck *f = ctx;
	const char *prefix = skg_level_prefix(level);
	if (prefix == NULL) {
		return;
	}
	err_line(f, "%s%s", prefix, msg);
	switch (id) {
	case SKG_R_ALT_MISSING:
	case SKG_R_ALT_NORMALIZE:
	case SKG_R_ALT_TOO_DEEP:
	case SKG_R_ALT_UNREADABLE:
		/* every `git commit-graph verify` git runs reads the alternates again, and says so
		 * (records as struct sink's: 'e', the line, '\n') */
		skg_buf_addf(&f->alt_lines, "e%s%s\n", prefix, msg);
		break;
	case SKG_R_HEAD_INVALID:
	case SKG_R_HEAD_STRANGE:
	case SKG_R_HEAD_DETACHED_NULL:
		add_errors(f, ERROR_REFS);
		break;
	default:
		break;
	}
}

static bool skipped(const struct fsck *f, const uint8_t *id)
{
	size_t lo = 0, hi = f->nskip;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = memcmp(f->skip + mid * SKG_RAWSZ, id, SKG_RAWSZ);
		if (c == 0) {
			return true;
		}
		if (c < 0) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return false;
}

/* A finding of the object checks: "error in tree ID: msgId: detail" (stderr), as git prints it. */
static void on_finding(void *ctx, const struct skg_fsck_finding *fd)
{
	struct sink *s = ctx;
	char line[4096];
	if (skipped(s->f, fd->id)) {
		return;
	}
	if (fd->cause != NULL) {
		s_err(s, "error: %s", fd->cause);
	}
	if (fd->severity == SKG_FSCK_IGNORE) {
		return;
	}
	skg_fsck_format(line, sizeof(line), fd);
	s_err(s, "%s", line);
}

/* ---- one object: checks, links, graph ---------------------------------------------------------- */

/* The links of one object, on the stack for small objects. */
struct links {
	struct skg_link *v;
	size_t n, cap;
	struct skg_link small[64];
	bool failed;
};

static void links_add(struct links *l, const uint8_t *id, unsigned type)
{
	if (l->n == l->cap) {
		size_t cap = l->cap * 2;
		struct skg_link *v =
		    l->v == l->small ? malloc(cap * sizeof(*v)) : realloc(l->v, cap * sizeof(*v));
		if (v == NULL) {
			l->failed = true;
			return;
		}
		if (l->v == l->small) {
			memcpy(v, l->small, sizeof(l->small));
		}
		l->v = v;
		l->cap = cap;
	}
	memcpy(l->v[l->n].id, id, SKG_RAWSZ);
	l->v[l->n].type = (uint8_t)type;
	l->n++;
}

static void tree_link(void *ctx, uint32_t mode, const char *name, size_t name_len,
                      const uint8_t id[SKG_RAWSZ])
{
	(void)name;
	(void)name_len;
	if (mode == 0160000) {
		return; /* a gitlink: a commit of another repository */
	}
	links_add(ctx, id, mode == 040000 ? SKG_TREE : SKG_BLOB);
}

static void parent_link(void *ctx, const uint8_t id[SKG_RAWSZ])
{
	links_add(ctx, id, SKG_COMMIT);
}

/* ---- links of another type (typeorder.h) ------------------------------------------------------ */

/* What goes wrong when git parses `id` (the last pass only), or NULL. */
static const struct skg_typeorder_fate *type_fate(const struct fsck *f, const uint8_t *id)
{
	return f->types_resolved ? skg_typeorder_fate(f->types, id) : NULL;
}

/* The quiet pass: an object read at the place of sink s, with its links in git's lookup order. */
static void collect_event(struct sink *s, unsigned type, const uint8_t *id, const struct skg_link *links,
                          size_t n, bool graft)
{
	struct fsck *f = s->f;
	struct skg_read_pos pos = {s->pack_seq, s->odb >= 0 ? (uint32_t)s->odb : 0,
	                           s->pack_seq > 0 ? s->offset : (uint64_t)s->dir << 32 | s->nth};
	if (skg_typeorder_event(f->types, &pos, id, type, links, n, graft) != 0) {
		s_err(s, "fatal: out of memory");
	}
}

/* git's lines where its lookup fails in parsing an object (sink s, or straight out when NULL). */
static void fate_lines(struct fsck *f, struct sink *s, const struct skg_typeorder_fate *fate)
{
	char lines[512];
	skg_typeorder_fate_lines(fate, lines, sizeof(lines));
	if (s != NULL) {
		s_err(s, "%s", lines);
	} else {
		err_line(f, "%s", lines);
	}
}

/* A tree's entries whose lookup fails (git's fsck_walk_tree, before the tree's checks): their
 * lines; true when there are any. */
static bool tree_fate_lines(struct sink *s, const struct skg_link *links, size_t n)
{
	struct fsck *f = s->f;
	bool any = false;
	for (size_t k = 0; k < n && f->types_resolved; k++) {
		unsigned tau = skg_typeorder_type(f->types, links[k].id);
		if (tau != 0 && tau != links[k].type) {
			char h[SKG_HEXSZ + 1];
			hex(links[k].id, h);
			s_err(s, "error: object %s is a %s, not a %s", h, tname(tau), tname(links[k].type));
			any = true;
		}
	}
	return any;
}

/*
 * git's fsck_obj over one object that exists: its checks (unless --connectivity-only), its links
 * into the graph, the --root and --tags lines. `where` names it for messages of objects that do
 * not parse (a loose path, or NULL in a pack). Called from several threads at once.
 */
static void check_object(struct sink *s, unsigned type, const uint8_t *id, const uint8_t *data, size_t len,
                         const char *where)
{
	struct fsck *f = s->f;
	char h[SKG_HEXSZ + 1], msg[512];
	bool walk_error = false;
	struct links l = {.v = NULL, .n = 0, .cap = 64, .failed = false};
	l.v = l.small;
	bool parsed = true, tree_checked = false;
	int tree_result = 0;
	struct skg_buf held = {0};
	hex(id, h);
	if (data == NULL && type != SKG_BLOB) {
		data = (const uint8_t *)"";
		len = 0;
	}
	/* links of another type: git's lookup of this object or of one of its links fails */
	const struct skg_typeorder_fate *fate = type_fate(f, id);
	bool graft = false, tree_broken = false;
	if (fate != NULL && fate->kind == SKG_TO_PARSE) {
		fate_lines(f, s, fate);
		parsed = false;
	} else if (type == SKG_COMMIT) {
		uint8_t tree[SKG_RAWSZ];
		enum skg_parse_result pr = skg_commit_links(data, len, tree, parent_link, &l);
		if (pr != SKG_PARSE_OK) {
			if (skg_parse_error_format(msg, sizeof(msg), pr, id, NULL) > 0) {
				s_err(s, "error: %s", msg);
			}
			parsed = false;
		} else {
			/* a grafted or shallow commit: the parents git gives it instead (commit.c) */
			const struct skg_graft *gr = skg_graft_find(&f->grafts, id);
			graft = gr != NULL;
			if (gr != NULL) {
				l.n = 0;
				for (size_t k = 0; k < gr->nparents; k++) {
					links_add(&l, gr->parents + k * SKG_RAWSZ, SKG_COMMIT);
				}
			}
			/* the tree comes first in git's walk */
			links_add(&l, tree, SKG_TREE);
			if (l.n > 1) {
				struct skg_link t = l.v[l.n - 1];
				memmove(l.v + 1, l.v, (l.n - 1) * sizeof(*l.v));
				l.v[0] = t;
			}
		}
	} else if (type == SKG_TAG) {
		struct skg_tag_links tl;
		enum skg_parse_result pr = skg_tag_links(data, len, &tl);
		if (pr != SKG_PARSE_OK) {
			if (skg_parse_error_format(msg, sizeof(msg), pr, id, &tl) > 0) {
				s_err(s, "error: %s", msg);
			}
			parsed = false;
		} else {
			links_add(&l, tl.object, tl.type);
		}
	} else if (type == SKG_TREE) {
		enum skg_tree_error te;
		if (f->connectivity_only) {
			te = skg_tree_links(data, len, tree_link, &l);
		} else {
			/*
			 * Checks and links in one decode. git prints the walk's decode error (below)
			 * before the findings: they wait in `held` until then (nearly always empty).
			 */
			struct sink hs = {f, &held, s->odb, s->pack_seq, s->offset, 0, 0};
			tree_result =
			    skg_fsck_tree(id, data, len, &f->fopt, on_finding, &hs, tree_link, &l, &te);
			tree_checked = true;
		}
		tree_broken = tree_fate_lines(s, l.v, l.n);
		if (te != SKG_TREE_OK) {
			struct skg_tree_iter it;
			walk_error = true;
			pthread_mutex_lock(&f->lock);
			struct bad_tree *v = realloc(f->bad_trees, (f->n_bad_trees + 1) * sizeof(*v));
			if (v != NULL) {
				f->bad_trees = v;
				memcpy(v[f->n_bad_trees].id, id, SKG_RAWSZ);
				v[f->n_bad_trees++].why = skg_tree_error_text(te);
			}
			pthread_mutex_unlock(&f->lock);
			if (!f->connectivity_only) {
				/* git's fsck_walk prints the decode error; it fails ("broken links") when
				 * the tree does not even start */
				s_err(s, "error: %s", skg_tree_error_text(te));
				if (skg_tree_iter_init(&it, data, len) != SKG_TREE_OK) {
					tree_broken = true;
				}
			}
		}
		if (tree_broken) {
			s_err(s, "error in tree %s: broken links", h);
			add_errors(f, ERROR_OBJECT);
		}
	}
	if (parsed && fate != NULL) {
		fate_lines(f, s, fate); /* a commit or tag: its parse stops at a link of another type */
		parsed = false;
	}
	if (parsed && f->collect) {
		collect_event(s, type, id, l.v, l.n, graft);
	}
	if (!parsed) {
		if (where != NULL) {
			s_err(s, "error: %s: object could not be parsed: %s", h, where);
		} else {
			s_err(s, "error: %s: object corrupt or missing", h);
		}
		/* in a pack, git's verify_pack fails too: its callback returned an error */
		add_errors(f, ERROR_OBJECT | (s->pack_seq > 0 ? ERROR_PACK : 0));
		/* git's lookup made the commit or tag before its parse failed: it has one of that type */
		if ((type == SKG_COMMIT || type == SKG_TAG) && (fate == NULL || fate->kind != SKG_TO_PARSE) &&
		    skg_graph_note_type(f->graph, id, type) != 0) {
			s_err(s, "fatal: out of memory");
		}
		/* no object to git, but in a pack (has_object_pack) */
		if (fate != NULL && s->pack_seq > 0 && skg_graph_add_unread(f->graph, id, false) != 0) {
			s_err(s, "fatal: out of memory");
		}
		goto out;
	}
	if (held.len > 0) {
		sink_add(s, held.p, held.len);
	}
	if (!f->connectivity_only) {
		/* an object in fsck.skipList is not reported and does not count (git's report()) */
		int r = tree_checked ? tree_result
		                     : skg_fsck_object(type, id, data, len, &f->fopt, on_finding, s);
		if (r != 0 && !skipped(f, id)) {
			/* git's fsck_loose counts a failed check as ERROR_OBJECT; in a pack, the check
			 * is verify_pack's callback, whose failure is ERROR_PACK */
			add_errors(f, s->pack_seq > 0 ? ERROR_PACK : ERROR_OBJECT);
			goto graph;
		}
	}
	/* git prints these in its object check, which --connectivity-only leaves out */
	if (type == SKG_COMMIT && f->show_root && l.n == 1 && !f->connectivity_only) {
		s_out(s, "root %s", h);
	}
	if (type == SKG_TAG && f->show_tags && !f->connectivity_only) {
		struct skg_tag_links tl;
		if (skg_tag_links(data, len, &tl) == SKG_PARSE_OK) {
			char th[SKG_HEXSZ + 1];
			hex(tl.object, th);
			s_out(s, "tagged %s %s (%.*s) in %s", tname(tl.type), th, (int)tl.tag_len, tl.tag, h);
		}
	}
graph:
	/*
	 * A loose tree's links are read again by the walk (reload_tree) instead of kept: loose trees
	 * cost little to read again, and the links are most of the graph's memory (git keeps none).
	 */
	if (l.failed ||
	    (type == SKG_TREE && s->odb >= 0
	         ? skg_graph_add_reload(f->graph, id, type, l.v, l.n, walk_error, (uint16_t)s->odb)
	         : skg_graph_add(f->graph, id, type, l.v, l.n, walk_error)) != 0) {
		s_err(s, "fatal: out of memory");
		add_errors(f, ERROR_OBJECT);
	}
out:
	skg_buf_release(&held);
	if (l.v != l.small) {
		free(l.v);
	}
}

/* ---- loose objects ------------------------------------------------------------------------------ */

static int loose_report(void *ctx, const char *line, bool is_error)
{
	struct sink *s = ctx;
	/* "bad sha1 file: P", "error: unable to open OBJDIR/xx: ...": git's status is unchanged */
	(void)is_error;
	s_err(s, "%s", line);
	return 0;
}

static void sink_lines(struct sink *s, const struct skg_lines *lines)
{
	if (lines->len > 0) {
		size_t n = lines->text[lines->len - 1] == '\n' ? lines->len - 1 : lines->len;
		s_err(s, "%.*s", (int)n, lines->text);
	}
}

/* The lines a Git-layer reader made (each ends with a newline), on standard error. */
static void print_lines(struct fsck *f, const struct skg_lines *lines)
{
	struct sink s = {f, NULL, -1, 0, 0, 0, 0};
	sink_lines(&s, lines);
}

/* A commit-graph, multi-pack-index or .rev check: its lines, and `bit` when git's check fails. */
static void trailer_result(struct fsck *f, int st, const struct skg_lines *lines, int bit)
{
	print_lines(f, lines);
	if (st == SKG_TRAILER_BAD || st == SKG_TRAILER_FATAL) {
		f->errors |= bit;
	}
}

static int loose_checked(void *ctx, const uint8_t id[SKG_RAWSZ], const char *path, int status,
                         const struct skg_loose_object *obj, const struct skg_lines *lines)
{
	struct sink *s = ctx;
	struct fsck *f = s->f;
	sink_lines(s, lines);
	if (status == SKG_LOOSE_FATAL) {
		return 1; /* git dies here: stops the walk */
	}
	s->nth++; /* its place in the directory, in git's order */
	if (status != SKG_LOOSE_OK) {
		add_errors(f, ERROR_OBJECT | (status == SKG_LOOSE_COLLISION ? ERROR_COLLISION : 0));
		return 0;
	}
	check_object(s, obj->type, id, obj->streamed ? NULL : obj->content, (size_t)obj->size, path);
	return 0;
}

/*
 * The loose objects of one object directory, its 256 xx/ directories shared out among f->threads
 * threads, each with its own reader. Each directory's lines are kept until those of the
 * directories before it are out, so the output is git's, in git's order; when git would die on an
 * object (SKG_LOOSE_FATAL), nothing after that object's lines is printed.
 */
struct loose_walk {
	struct fsck *f;
	const char *objdir;
	int odb; /* its index in f->odb_dirs */
	pthread_mutex_t lock;
	unsigned next;    /* the next directory to take */
	unsigned emitted; /* directories written out */
	unsigned limit;   /* directories to read: git's walk stops after one it cannot open */
	bool stop;        /* a directory stopped the walk (git dies): take no more */
	bool fatal;       /* ... and it has been written out */
	struct skg_buf out[256];
	int rc[256];
	bool done[256];
};

static void *loose_thread(void *arg)
{
	struct loose_walk *w = arg;
	struct skg_loose_reader *reader = skg_loose_reader_new(NULL);
	for (;;) {
		pthread_mutex_lock(&w->lock);
		unsigned k = w->stop || w->next >= w->limit ? 256 : w->next++;
		pthread_mutex_unlock(&w->lock);
		if (k >= 256) {
			break;
		}
		struct skg_buf buf = {0};
		struct sink s = {w->f, &buf, w->odb, 0, 0, k, 0};
		/* SKG_LOOSE_WALK_STOPPED: an xx/ directory could not be opened; git says so and goes on */
		int rc = reader == NULL
		             ? SKG_LOOSE_WALK_NOMEM
		             : skg_loose_check_dirs(reader, w->objdir, k, 1, loose_checked, loose_report, &s);
		if (buf.failed) {
			rc = SKG_LOOSE_WALK_NOMEM;
		}
		pthread_mutex_lock(&w->lock);
		w->out[k] = buf;
		w->rc[k] = rc;
		w->done[k] = true;
		if (rc != 0) {
			w->stop = true;
		}
		while (w->emitted < w->limit && w->done[w->emitted] && !w->fatal) {
			struct skg_buf *b = &w->out[w->emitted];
			int r = w->rc[w->emitted];
			if (r == SKG_LOOSE_WALK_NOMEM) {
				skg_buf_addf(b, "efatal: out of memory\n");
			}
			sink_write(w->f, b->p != NULL ? b->p : "", b->len);
			skg_buf_release(b);
			w->fatal = r > 0 || r == SKG_LOOSE_WALK_NOMEM;
			w->emitted++;
			if (r == SKG_LOOSE_WALK_STOPPED) {
				w->limit = w->emitted; /* as git: the directories after it are not read */
			}
			meter_add(w->f, 1);
		}
		pthread_mutex_unlock(&w->lock);
	}
	skg_loose_reader_free(reader);
	return NULL;
}

/* 0, or -1 when the walk stopped where git dies (its lines are out). */
static int check_loose(struct fsck *f, const char *objdir, int odb)
{
	struct loose_walk *w = calloc(1, sizeof(*w));
	if (w == NULL) {
		err_line(f, "fatal: out of memory");
		return -1;
	}
	w->f = f;
	w->objdir = objdir;
	w->odb = odb;
	pthread_mutex_init(&w->lock, NULL);
	/*
	 * git's walk stops after the first xx/ it cannot open (other than a missing one): the objects
	 * after it are never seen. Found first, so that no thread reads past it.
	 */
	w->limit = 256;
	for (unsigned k = 0; k < 256; k++) {
		struct skg_buf path = {0};
		skg_buf_addf(&path, "%s/%02x", objdir, k);
		DIR *d = path.failed ? NULL : opendir(skg_buf_str(&path));
		int e = path.failed ? ENOMEM : errno;
		skg_buf_release(&path);
		if (d != NULL) {
			closedir(d);
		} else if (e != ENOENT) {
			w->limit = k + 1;
			break;
		}
	}
	unsigned n = f->threads < 256 ? f->threads : 256;
	pthread_t *t = calloc(n, sizeof(*t));
	unsigned started = 0;
	while (t != NULL && started + 1 < n && pthread_create(&t[started], NULL, loose_thread, w) == 0) {
		started++;
	}
	loose_thread(w); /* this thread takes its share too (all of it with one thread) */
	for (unsigned i = 0; i < started; i++) {
		pthread_join(t[i], NULL);
	}
	free(t);
	bool fatal = w->fatal;
	for (unsigned k = 0; k < 256; k++) {
		skg_buf_release(&w->out[k]);
	}
	pthread_mutex_destroy(&w->lock);
	free(w);
	return fatal ? -1 : 0;
}

/* ---- packs -------------------------------------------------------------------------------------- */

static void pack_object(void *ctx, uint32_t i, unsigned type, const uint8_t *data, uint64_t len)
{
	struct fsck *f = ctx;
	struct skg_buf lines = {0};
	uint64_t offset = f->pack->objs[i].offset;
	struct sink s = {f, &lines, -1, f->pack_seq, offset, 0, 0};
	check_object(&s, type, f->pack->objs[i].id, data, (size_t)len, NULL);
	if (lines.len > 0 || lines.failed) {
		pthread_mutex_lock(&f->lock);
		if (lines.failed) {
			skg_buf_adds(&lines, "efatal: out of memory\n");
		}
		if (f->n_pack_lines == f->cap_pack_lines) {
			size_t cap = f->cap_pack_lines ? 2 * f->cap_pack_lines : 64;
			struct pack_line *v = realloc(f->pack_lines, cap * sizeof(*v));
			if (v != NULL) {
				f->pack_lines = v;
				f->cap_pack_lines = cap;
			}
		}
		if (f->n_pack_lines < f->cap_pack_lines) {
			f->pack_lines[f->n_pack_lines++] =
			    (struct pack_line){offset, f->pack_text.len, lines.len};
			skg_buf_add(&f->pack_text, lines.p, lines.len);
		}
		pthread_mutex_unlock(&f->lock);
	}
	skg_buf_release(&lines);
	meter_add(f, 1);
}

static int cmp_pack_line(const void *a, const void *b)
{
	const struct pack_line *x = a, *y = b;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* The pack's object lines, out in offset order (git's verify_packfile order) when `keep`, then
 * forgotten. */
static void pack_lines_out(struct fsck *f, bool keep)
{
	if (keep && f->n_pack_lines > 0) {
		qsort(f->pack_lines, f->n_pack_lines, sizeof(*f->pack_lines), cmp_pack_line);
		for (size_t i = 0; i < f->n_pack_lines; i++) {
			sink_write(f, f->pack_text.p + f->pack_lines[i].at, f->pack_lines[i].len);
		}
	}
	f->n_pack_lines = 0;
	skg_buf_release(&f->pack_text);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

/*
 * Room in the graph for the objects the idx lists (its fan-out's last entry), so that the table does
 * not grow while the threads add to it. A hint, bounded by what the idx and pack can hold: a corrupt
 * idx is found later by the check itself.
 */
static void reserve_graph(struct fsck *f, const struct pk_file *idx, uint64_t pack_len)
{
	uint64_t n = pk_idx_count(idx->data, (size_t)idx->len);
	if (n <= idx->len / 24 && n <= pack_len / 2) {
		(void)skg_graph_reserve(f->graph, skg_graph_count(f->graph) + n);
	}
}

/* An object of a pack that cannot be read (git's mark_bad_packed_object when its object store
 * tries), or that reads back with another ID (mismatch). */
static void remember_bad_packed(struct fsck *f, const uint8_t *id, bool mismatch, bool marked,
                                uint64_t offset, const char *pack_path, const char *idx_path)
{
	struct bad_packed *v = realloc(f->bad_packed, (f->n_bad_packed + 1) * sizeof(*v));
	if (v == NULL) {
		return;
	}
	f->bad_packed = v;
	struct bad_packed *b = &v[f->n_bad_packed];
	memcpy(b->id, id, SKG_RAWSZ);
	b->mismatch = mismatch;
	b->marked = marked;
	b->offset = offset;
	b->pack = strdup(pack_path);
	b->idx = strdup(idx_path);
	if (b->pack != NULL && b->idx != NULL) {
		f->n_bad_packed++;
	} else {
		free(b->pack);
		free(b->idx);
	}
}

/* An idx entry: its pack offset and ID (in the idx). */
struct idx_ent {
	uint64_t off;
	const uint8_t *id;
	uint64_t k; /* its place in the idx */
};

static int cmp_idx_ent(const void *a, const void *b)
{
	const struct idx_ent *x = a, *y = b;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* What check_rest found of each object of the pack: read, unreadable, read with another ID, or a
 * delta base git marks bad (no object at all). */
enum rest_state { READ_OK, UNREADABLE, MISMATCH, BAD };

/* pk_git_unpack's callbacks in check_rest: git's lines out; the base git fails to read at an
 * offset is marked bad (mark_bad_packed_object), and its ID is the idx's. */
struct unpack_ctx {
	struct fsck *f;
	const struct idx_ent *e; /* sorted by offset */
	size_t n;
	uint8_t *state;
};

static void unpack_line(void *ctx, const char *text)
{
	err_line(((struct unpack_ctx *)ctx)->f, "%s", text);
}

static bool unpack_base_id(void *ctx, uint64_t offset, uint8_t *id)
{
	struct unpack_ctx *uc = ctx;
	struct idx_ent key = {offset, NULL, 0};
	const struct idx_ent *b = bsearch(&key, uc->e, uc->n, sizeof(*uc->e), cmp_idx_ent);
	if (b == NULL) {
		return false;
	}
	memcpy(id, b->id, SKG_RAWSZ);
	if (uc->state != NULL) {
		uc->state[b - uc->e] = BAD;
	}
	return true;
}

/* The idx's entries sorted by offset (a malloc'd array of *n; fewer than the idx's count when an
 * entry's offset cannot be read), or NULL. */
static struct idx_ent *idx_by_offset(const struct pk_file *idx, size_t *n)
{
	uint64_t nr = pk_idx_count(idx->data, (size_t)idx->len);
	struct idx_ent *e = malloc((nr > 0 ? nr : 1) * sizeof(*e));
	*n = 0;
	if (e == NULL) {
		return NULL;
	}
	for (uint64_t k = 0; k < nr && pk_idx_entry(idx->data, (size_t)idx->len, k, &e[*n].id, &e[*n].off);
	     k++) {
		e[(*n)++].k = k;
	}
	if (*n > 0) {
		qsort(e, *n, sizeof(*e), cmp_idx_ent);
	}
	return e;
}

/* git's read of a packed object it could not read before, for a ref (read_object_file): the
 * lines of its unpack_entry again. */
static void reread_lines(struct fsck *f, const struct bad_packed *b)
{
	struct pk_file file = {0}, idx = {0};
	if (pk_file_map(&idx, CMD, b->idx) == 0 && pk_file_map(&file, CMD, b->pack) == 0) {
		size_t n;
		struct idx_ent *e = idx_by_offset(&idx, &n);
		if (e != NULL) {
			struct unpack_ctx uc = {f, e, n, NULL};
			unsigned type;
			uint8_t *data = NULL;
			uint64_t len;
			(void)pk_git_unpack(file.data, file.len, idx.data, (size_t)idx.len, b->offset, false,
			                    UINT64_MAX, b->pack, unpack_base_id, unpack_line, &uc, &type,
			                    &data, &len);
			free(data);
			free(e);
		}
	}
	pk_file_unmap(&file);
	pk_file_unmap(&idx);
}

/*
 * A pack whose check stopped at a corrupt object: as git's verify_packfile, every object its idx
 * lists is read on its own through the idx, in pack order, and checked like the others (those the
 * check had reached are in the graph already). An object that cannot be read is present to git but
 * unreadable (its idx lists it), unless it is the delta base whose failure stopped the read of
 * another object: git marks such a base bad (unpack_entry), and then it is no object at all (links
 * to it are broken). A ref naming either makes git die (dies_bad_packed). One that reads back with
 * another ID is present but unreadable ("hash mismatch" for a ref). Findings are git's; the pack's own error
 * was printed by the caller, in sha1kit's words.
 */
static void check_rest(struct fsck *f, const struct pk_file *file, const struct pk_file *idx,
                       const char *pack_path, const char *idx_path, bool verify)
{
	uint64_t nr = pk_idx_count(idx->data, (size_t)idx->len);
	size_t n = 0;
	struct idx_ent *e = idx_by_offset(idx, &n);
	uint8_t *state = calloc(nr > 0 ? nr : 1, 1);
	if (e == NULL || state == NULL) {
		free(e);
		free(state);
		f->incomplete = true;
		return;
	}
	uint64_t sig_at = file->len - PK_HASH_LEN; /* a usable pack has its trailer */
	if (verify && n < nr) {
		/* git's verify_packfile takes every offset first: nth_packed_object_offset dies */
		err_line(f, "fatal: offset beyond end of pack index for %s (truncated index?)", pack_path);
		f->died = true;
		free(state);
		free(e);
		return;
	}
	if (verify) {
		/* git's verify_packfile: the pack's checksum first */
		uint8_t sum[SKG_RAWSZ];
		sha1kit_fast(file->data, (size_t)sig_at, sum);
		if (memcmp(sum, file->data + sig_at, SKG_RAWSZ) != 0) {
			err_line(f, "error: %s pack checksum mismatch", pack_path);
		}
	}
	for (uint64_t k = 0; k < n; k++) {
		char h[SKG_HEXSZ + 1];
		hex(e[k].id, h);
		if (verify && e[k].off > sig_at) {
			/* git's use_pack dies on the entry's first byte */
			err_line(f, "fatal: offset beyond end of packfile (truncated pack?)");
			f->died = true;
			break;
		}
		if (verify) {
			/* the CRC-32 of the bytes up to the next entry: git's read of them dies past the
			 * end of the pack */
			uint64_t next = k + 1 < n ? e[k + 1].off : sig_at;
			if (next > file->len) {
				err_line(f, "fatal: offset beyond end of packfile (truncated pack?)");
				f->died = true;
				break;
			}
			if (pk_idx_crc_differs(idx->data, (size_t)idx->len, e[k].k, file->data, e[k].off,
			                       next - e[k].off)) {
				err_line(f,
				         "error: index CRC mismatch for object %s from %s at offset %" PRIu64,
				         h, pack_path, e[k].off);
			}
		} else if (skg_graph_has(f->graph, e[k].id, NULL)) {
			continue; /* checked before the check stopped */
		}
		unsigned type;
		uint8_t *data = NULL;
		uint64_t len = 0;
		struct pk_error err;
		int rc = 0;
		uint64_t hsize = 0;
		if (verify) {
			/* git streams a blob at or over core.bigFileThreshold instead of reading it */
			rc = pk_git_entry_header(file->data, file->len, e[k].off, &hsize) == SKG_BLOB &&
			             hsize >= BIG_FILE_THRESHOLD
			         ? 1
			         : 0;
		} else {
			rc = pk_read_object(file->data, file->len, idx->data, (size_t)idx->len, e[k].off,
			                    BIG_FILE_THRESHOLD, &type, &data, &len, &err);
		}
		if (rc == 1) {
			/* a blob git streams: present, not read again here */
			(void)skg_graph_add_unread(f->graph, e[k].id, true);
			continue;
		}
		if (verify) {
			/* as git's unpack_entry reads it, with its lines; the bases it marks bad are BAD */
			struct unpack_ctx uc = {f, e, (size_t)n, state};
			rc = pk_git_unpack(file->data, file->len, idx->data, (size_t)idx->len, e[k].off, true,
			                   UINT64_MAX, pack_path, unpack_base_id, unpack_line, &uc, &type,
			                   &data, &len);
			if (rc == -2) {
				f->died = true;
				break;
			}
			if (rc != 0) {
				err_line(f, "error: cannot unpack %s from %s at offset %" PRIu64, h,
				         pack_path, e[k].off);
				if (state[k] == READ_OK) {
					state[k] = UNREADABLE;
				}
				continue;
			}
		}
		if (rc != 0) {
			if (state[k] == READ_OK) {
				state[k] = UNREADABLE;
			}
			if (err.has_offset && err.offset != e[k].off) {
				/* the read failed below this object's delta: git's unpack_entry marks every
				 * base on the chain bad, from this object's base down to where it failed */
				uint64_t at = e[k].off, base;
				for (uint64_t steps = 0; steps <= n && at != err.offset &&
				                         pk_entry_base(file->data, file->len, idx->data,
				                                       (size_t)idx->len, at, &base) == 1;
				     steps++) {
					struct idx_ent key = {base, NULL, 0};
					struct idx_ent *b =
					    bsearch(&key, e, (size_t)n, sizeof(*e), cmp_idx_ent);
					if (b == NULL) {
						break;
					}
					state[b - e] = BAD;
					at = base;
				}
			}
			continue;
		}
		char hdr[SKG_HEADER_MAX];
		size_t hl = skg_object_header(hdr, type, len);
		sha1kit_dc_ctx c;
		uint8_t got[SKG_RAWSZ];
		sha1kit_dc_init(&c, NULL);
		sha1kit_dc_update(&c, hdr, hl);
		sha1kit_dc_update(&c, data, (size_t)len);
		if (sha1kit_dc_final(&c, got, NULL) == SHA1KIT_DC_COLLISION ||
		    memcmp(got, e[k].id, SKG_RAWSZ) != 0) {
			if (verify) {
				err_line(f, "error: packed %s from %s is corrupt", h, pack_path);
			}
			state[k] = MISMATCH;
		} else {
			struct sink s = {f, NULL, -1, f->pack_seq, e[k].off, 0, 0};
			check_object(&s, type, e[k].id, data, (size_t)len, NULL);
		}
		free(data);
		meter_add(f, 1);
	}
	for (uint64_t k = 0; k < n; k++) {
		uint64_t found;
		if (state[k] != READ_OK &&
		    (!pk_idx_find(idx->data, (size_t)idx->len, e[k].id, &found) || found == 0)) {
			/* git's lookups do not find it (find_pack_entry_one: not in the fan-out range the
			 * search looks in, or offset 0, which means none): no object to git at all */
			continue;
		}
		if (state[k] == UNREADABLE || state[k] == MISMATCH) {
			(void)skg_graph_add_unread(f->graph, e[k].id, false);
		}
		if (state[k] != READ_OK) {
			remember_bad_packed(f, e[k].id, state[k] == MISMATCH, state[k] == BAD, e[k].off,
			                    pack_path, idx_path);
		}
	}
	free(state);
	free(e);
}

/* A pack git reads objects from: where the end's checks (check_specials) look for blobs. */
static void remember_pack(struct fsck *f, const char *idx_path, const char *pack_path)
{
	struct pack_paths *v = realloc(f->usable_packs, (f->n_usable_packs + 1) * sizeof(*v));
	if (v == NULL) {
		return;
	}
	f->usable_packs = v;
	v[f->n_usable_packs].idx = strdup(idx_path);
	v[f->n_usable_packs].pack = strdup(pack_path);
	if (v[f->n_usable_packs].idx != NULL && v[f->n_usable_packs].pack != NULL) {
		f->n_usable_packs++;
	} else {
		free(v[f->n_usable_packs].idx);
		free(v[f->n_usable_packs].pack);
	}
}

/* git's line for a pack it cannot open (pk_git_open_check), naming `path` (the idx or the pack); a
 * malloc'd string, or NULL when out of memory */
static char *git_open_line(enum pk_git_open go, const char *path, uint32_t a, uint32_t b)
{
	struct skg_buf line = {0};
	switch (go) {
	case PK_GIT_IDX_SMALL:
		skg_buf_addf(&line, "error: index file %s is too small", path);
		break;
	case PK_GIT_IDX_VERSION:
		skg_buf_addf(&line,
		             "error: index file %s is version %" PRIu32
		             " and is not supported by this binary (try upgrading GIT to a newer version)",
		             path, a);
		break;
	case PK_GIT_IDX_FANOUT:
		skg_buf_addf(&line, "error: non-monotonic index %s", path);
		break;
	case PK_GIT_IDX_V1_SIZE:
	case PK_GIT_IDX_V2_SIZE:
		skg_buf_addf(&line, "error: wrong index v%d file size in %s",
		             go == PK_GIT_IDX_V1_SIZE ? 1 : 2, path);
		break;
	case PK_GIT_PACK_SHORT:
		skg_buf_addf(&line, "error: file %s is far too short to be a packfile", path);
		break;
	case PK_GIT_PACK_MAGIC:
		skg_buf_addf(&line, "error: file %s is not a GIT packfile", path);
		break;
	case PK_GIT_PACK_VERSION:
		skg_buf_addf(&line,
		             "error: packfile %s is version %" PRIu32
		             " and not supported (try upgrading GIT to a newer version)",
		             path, a);
		break;
	case PK_GIT_PACK_COUNT:
		skg_buf_addf(&line,
		             "error: packfile %s claims to have %" PRIu32
		             " objects while index indicates %" PRIu32 " objects",
		             path, a, b);
		break;
	case PK_GIT_PACK_SIGNATURE:
		skg_buf_addf(&line, "error: packfile %s signature is unavailable", path);
		break;
	case PK_GIT_PACK_MISMATCH:
		skg_buf_addf(&line, "error: packfile %s does not match index", path);
		break;
	case PK_GIT_OK:
		break;
	}
	if (line.failed) {
		skg_buf_release(&line);
		return NULL;
	}
	return line.p;
}

/* A pack git cannot read objects from (takes `line` and `idx`, which may be NULL). */
static void remember_unusable(struct fsck *f, char *line, uint8_t *idx, size_t idx_len)
{
	struct unusable *v = line != NULL ? realloc(f->unusable, (f->n_unusable + 1) * sizeof(*v)) : NULL;
	if (v == NULL) {
		free(line);
		free(idx);
		return;
	}
	f->unusable = v;
	v[f->n_unusable++] = (struct unusable){line, idx, idx_len};
}

/*
 * git looks for `id` in its packs `times` times (find_pack_entry; twice in a lookup that is not
 * quick, which looks again after re-reading the pack directory): each time, the line of each pack
 * whose idx does not open, and of each pack that does not open whose idx lists `id`.
 */
static void lookup_lines(struct fsck *f, const uint8_t *id, unsigned times)
{
	for (unsigned t = 0; t < times; t++) {
		for (size_t i = 0; i < f->n_unusable; i++) {
			uint64_t off;
			const struct unusable *u = &f->unusable[i];
			if (u->idx == NULL || pk_idx_find(u->idx, u->idx_len, id, &off)) {
				err_line(f, "%s", u->line);
			}
		}
	}
}

/* pk_file_error's line, in order with the other lines of the check (held in its first pass) */
static void pack_file_error(struct fsck *f, const struct pk_file *file, const char *path, int e)
{
	char line[4096];
	pk_file_error_format(line, sizeof(line), CMD, file, path, e);
	err_line(f, SK_PROGRAM ": %s", line);
}

/* git's verify_pack of one pack and its idx: every object, both trailers, the idx byte for byte. */
static void check_pack(struct fsck *f, const char *pack_path, const char *idx_path)
{
	struct pk_file file = {0}, idx = {0};
	struct pk_pack pack = {0};
	struct pk_error err;
	int e = pk_file_map(&idx, CMD, idx_path);
	if (e != 0) {
		pack_file_error(f, &idx, idx_path, e);
		add_errors(f, ERROR_PACK);
		return;
	}
	e = pk_file_map(&file, CMD, pack_path);
	if (e != 0) {
		pack_file_error(f, &file, pack_path, e);
		add_errors(f, ERROR_PACK);
		pk_file_unmap(&idx);
		return;
	}
	uint32_t ga, gb;
	enum pk_git_open go = pk_git_open_check(idx.data, (size_t)idx.len, file.data, file.len, &ga, &gb);
	if (go != PK_GIT_OK && go < PK_GIT_PACK_SHORT) {
		/* git's verify_pack_index: the idx does not open; its objects are missing to git */
		char *line = git_open_line(go, idx_path, ga, gb);
		remember_unusable(f, line, NULL, 0);
		err_line(f, "%s", line != NULL ? line : "fatal: out of memory");
		err_line(f, "error: packfile %s index not opened", pack_path);
		add_errors(f, ERROR_PACK);
		goto out;
	}
	uint8_t sum[SKG_RAWSZ];
	sha1kit_fast(idx.data, (size_t)idx.len - SKG_RAWSZ, sum);
	bool idx_sum_ok = memcmp(sum, idx.data + idx.len - SKG_RAWSZ, SKG_RAWSZ) == 0;
	if (!idx_sum_ok) {
		err_line(f, "error: Packfile index for %s hash mismatch", pack_path);
		add_errors(f, ERROR_PACK);
	}
	if (go != PK_GIT_OK) {
		/* verify_packfile: the pack does not open (open_packed_git_1) */
		char *line = git_open_line(go, pack_path, ga, gb);
		uint8_t *copy = malloc((size_t)idx.len);
		if (copy != NULL) {
			memcpy(copy, idx.data, (size_t)idx.len);
		}
		remember_unusable(f, line, copy, (size_t)idx.len);
		err_line(f, "%s", line != NULL ? line : "fatal: out of memory");
		err_line(f, "error: packfile %s cannot be accessed", pack_path);
		add_errors(f, ERROR_PACK);
		goto out;
	}
	remember_pack(f, idx_path, pack_path);
	f->pack_seq = (uint32_t)f->n_usable_packs;
	reserve_graph(f, &idx, file.len);
	if (!idx_sum_ok) {
		/* an idx that opens but is not what it was written as: git reads every object through it
		 * (its IDs, offsets and CRC-32s), as the rest of the check will */
		check_rest(f, &file, &idx, pack_path, idx_path, true);
		goto out;
	}
	struct pk_options opt;
	pk_options_default(&opt);
	opt.threads = f->threads;
	opt.cache_limit = ((uint64_t)96 << 20) * f->threads;
	opt.release = pk_file_release;
	opt.release_ctx = &file;
	opt.read = pk_file_read;
	opt.read_ctx = &file;
	opt.object = pack_object;
	opt.object_ctx = f;
	f->pack = &pack;
	int indexed = pk_index_pack(&pack, file.data, file.len, &opt, &err);
	if (indexed != 0 && !err.collision) {
		/* a corrupt pack: git reads it object by object through the idx, with its lines (the
		 * objects read so far are read again, and their lines printed then) */
		pack_lines_out(f, false);
		add_errors(f, ERROR_PACK);
		check_rest(f, &file, &idx, pack_path, idx_path, true);
		goto out;
	}
	pack_lines_out(f, true);
	if (indexed != 0) {
		/* a collision attack (beyond git, which dies there): sha1kit's line, then the rest */
		char line[4096];
		pk_report_format(line, sizeof(line), CMD, pack_path, &err);
		err_line(f, SK_PROGRAM ": %s", line);
		add_errors(f, ERROR_PACK | ERROR_COLLISION);
		check_rest(f, &file, &idx, pack_path, idx_path, false);
		goto out;
	}
	unsigned version;
	uint64_t limit;
	pk_idx_params(idx.data, (size_t)idx.len, &version, &limit);
	struct pk_idx_compare cmp = {&idx, 0, 0, false, 0};
	if ((pk_idx_write(&pack, version, limit, false, pk_idx_compare_sink, &cmp, &err) != 0 &&
	     !cmp.differs) ||
	    !pk_idx_compare_end(&cmp)) {
		err_line(f,
		         "error: packfile %s does not match index %s (first difference at byte %" PRIu64 ")",
		         pack_path, idx_path, cmp.first_diff);
		add_errors(f, ERROR_PACK);
	}
out:
	f->pack = NULL;
	pk_pack_free(&pack);
	pk_file_unmap(&file);
	pk_file_unmap(&idx);
}

/* The number of objects an idx file says it lists (0 when it cannot be read as one). */
static uint64_t idx_count(const char *path)
{
	uint8_t h[8 + 256 * 4];
	FILE *fp = fopen(path, "rb");
	if (fp == NULL) {
		return 0;
	}
	size_t n = fread(h, 1, sizeof(h), fp);
	fclose(fp);
	return pk_idx_count(h, n);
}

/* The object directories: the repository's, then its alternates. */
struct odbs {
	char **dirs;
	size_t n, cap;
};

/* A pack of one of the object directories, where git puts it in its order of reading. */
struct pack_ref {
	char *idx, *pack;
	size_t odb;    /* the object directory's place (0: the repository's own) */
	size_t seq;    /* its place in the directory listing */
	int64_t mtime; /* of the .pack, in seconds */
	size_t midx;   /* 1 + its place in the repository's multi-pack-index, 0 when not there */
};

/*
 * git's order of packs (packfile.c get_all_packs, prepare_packed_git, sort_pack): the packs of the
 * repository's multi-pack-index first, the last it names first (each is put at the head of the
 * list after the others were sorted); then the repository's own packs before those of alternates,
 * the newest .pack first; packs of the same second in the order git's list has them, which is the
 * reverse of reading: the later object directory, and the later in its listing, first.
 */
static int cmp_pack_ref(const void *a, const void *b)
{
	const struct pack_ref *x = a, *y = b;
	if (x->midx != y->midx) {
		return x->midx > y->midx ? -1 : 1;
	}
	if ((x->odb == 0) != (y->odb == 0)) {
		return x->odb == 0 ? -1 : 1;
	}
	if (x->mtime != y->mtime) {
		return x->mtime > y->mtime ? -1 : 1;
	}
	if (x->odb != y->odb) {
		return x->odb > y->odb ? -1 : 1;
	}
	return x->seq > y->seq ? -1 : x->seq < y->seq;
}

/*
 * Every pack-*.idx of the object directories' pack/ with its .pack (a .pack that is not a regular
 * file is no pack to git's add_packed_git, silently), in git's order: a malloc'd array of *n.
 */
static struct pack_ref *list_packs(const struct odbs *odbs, size_t *n)
{
	struct pack_ref *v = NULL;
	size_t cap = 0, nmidx = 0;
	char **midx = NULL;
	*n = 0;
	if (odbs->n > 0) {
		(void)skg_midx_pack_names(odbs->dirs[0], &midx, &nmidx);
	}
	for (size_t o = 0; o < odbs->n; o++) {
		struct skg_buf dir = {0};
		skg_buf_addf(&dir, "%s/pack", odbs->dirs[o]);
		DIR *d = opendir(skg_buf_str(&dir));
		struct dirent *de;
		size_t seq = 0;
		while (d != NULL && (de = readdir(d)) != NULL) {
			size_t len = strlen(de->d_name);
			if (!ends_with(de->d_name, ".idx") || strncmp(de->d_name, "pack-", 5) != 0) {
				continue;
			}
			struct skg_buf idx = {0}, pack = {0};
			skg_buf_addf(&idx, "%s/%s", skg_buf_str(&dir), de->d_name);
			skg_buf_addf(&pack, "%s/%.*s.pack", skg_buf_str(&dir), (int)(len - 4), de->d_name);
			struct stat st;
			if (!idx.failed && !pack.failed && stat(skg_buf_str(&pack), &st) == 0 &&
			    S_ISREG(st.st_mode)) {
				if (*n == cap) {
					cap = cap ? 2 * cap : 16;
					struct pack_ref *w = realloc(v, cap * sizeof(*w));
					if (w == NULL) {
						skg_buf_release(&idx);
						skg_buf_release(&pack);
						break;
					}
					v = w;
				}
				size_t in_midx = 0;
				for (size_t m = 0; o == 0 && m < nmidx && in_midx == 0; m++) {
					in_midx = strcmp(midx[m], de->d_name) == 0 ? m + 1 : 0;
				}
				v[(*n)++] =
				    (struct pack_ref){idx.p, pack.p, o, seq++, (int64_t)st.st_mtime, in_midx};
				continue; /* the strings are the list's now */
			}
			skg_buf_release(&idx);
			skg_buf_release(&pack);
		}
		if (d != NULL) {
			closedir(d);
		}
		skg_buf_release(&dir);
	}
	for (size_t m = 0; m < nmidx; m++) {
		free(midx[m]);
	}
	free(midx);
	if (*n > 0) {
		qsort(v, *n, sizeof(*v), cmp_pack_ref);
	}
	return v;
}

static void free_packs(struct pack_ref *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].idx);
		free(v[i].pack);
	}
	free(v);
}

/* ---- .gitmodules and .gitattributes blobs (git's fsck_finish) --------------------------------- */

/* fopt.found: a tree names the blob `id` .gitmodules or .gitattributes (ctx: the check's sink). */
static void on_found(void *ctx, enum skg_fsck_special kind, const uint8_t id[SKG_RAWSZ])
{
	struct fsck *f = ((struct sink *)ctx)->f;
	pthread_mutex_lock(&f->lock);
	if (f->n_specials == f->cap_specials) {
		size_t cap = f->cap_specials ? 2 * f->cap_specials : 64;
		struct special *v = realloc(f->specials, cap * sizeof(*v));
		if (v == NULL) {
			pthread_mutex_unlock(&f->lock);
			return;
		}
		f->specials = v;
		f->cap_specials = cap;
	}
	struct special *sp = &f->specials[f->n_specials++];
	memcpy(sp->id, id, SKG_RAWSZ);
	sp->kinds = kind;
	sp->pack_seq = ((struct sink *)ctx)->pack_seq;
	sp->offset = ((struct sink *)ctx)->offset;
	pthread_mutex_unlock(&f->lock);
}

/* Whether position (seq, off) comes before (seq2, off2) in git's order of checks (struct sink). */
static bool checked_before(uint32_t seq, uint64_t off, uint32_t seq2, uint64_t off2)
{
	return seq < seq2 || (seq == seq2 && off < off2);
}

static int cmp_special(const void *a, const void *b)
{
	const struct special *x = a, *y = b;
	int c = memcmp(x->id, y->id, SKG_RAWSZ);
	if (c != 0) {
		return c;
	}
	return checked_before(x->pack_seq, x->offset, y->pack_seq, y->offset)   ? -1
	       : checked_before(y->pack_seq, y->offset, x->pack_seq, x->offset) ? 1
	                                                                        : 0;
}

/*
 * The content of blob `id` as git's object store reads it: from the packs git uses, else a loose
 * object in one of the object directories. 0 and a malloc'd *data, 1 when it is larger than `max`
 * bytes, -1 when it cannot be read as a blob. *seq and *off get where it is (as in
 * struct sink: seq 0 for a loose object).
 */
static int read_blob(struct fsck *f, const uint8_t *id, uint64_t max, uint8_t **data, size_t *len,
                     uint32_t *seq, uint64_t *where)
{
	*seq = 0;
	*where = 0;
	for (size_t i = 0; i < f->n_usable_packs; i++) {
		struct pk_file idx = {0}, pack = {0};
		uint64_t off, n = 0;
		unsigned type = 0;
		struct pk_error err;
		int rc = -1;
		if (pk_file_map(&idx, CMD, f->usable_packs[i].idx) != 0) {
			continue;
		}
		if (pk_idx_find(idx.data, (size_t)idx.len, id, &off) &&
		    pk_file_map(&pack, CMD, f->usable_packs[i].pack) == 0) {
			rc = pk_read_object(pack.data, pack.len, idx.data, (size_t)idx.len, off,
			                    BIG_FILE_THRESHOLD, &type, data, &n, &err);
			if (rc == 0 && type != SKG_BLOB) {
				free(*data);
				*data = NULL;
				rc = -1;
			} else if (rc == 0) {
				*len = (size_t)n;
			}
			pk_file_unmap(&pack);
		}
		pk_file_unmap(&idx);
		if (rc >= 0) {
			*seq = (uint32_t)i + 1;
			*where = off;
			return rc;
		}
	}
	struct skg_loose_options lopt;
	skg_loose_options_default(&lopt);
	lopt.big_file_threshold = max; /* larger blobs are streamed: not kept, "too large" */
	if (max < lopt.max_size) {
		lopt.max_size = max + 1;
	}
	struct skg_loose_reader *r = skg_loose_reader_new(&lopt);
	struct skg_lines *lines = malloc(sizeof(*lines));
	int rc = -1;
	char h[SKG_HEXSZ + 1];
	hex(id, h);
	for (size_t i = 0; r != NULL && lines != NULL && i < f->n_odb_dirs && rc < 0; i++) {
		struct skg_buf path = {0};
		struct skg_loose_object obj;
		skg_buf_addf(&path, "%s/%.2s/%s", f->odb_dirs[i], h, h + 2);
		skg_lines_clear(lines);
		if (access(skg_buf_str(&path), F_OK) == 0 &&
		    skg_loose_read(r, skg_buf_str(&path), id, NULL, NULL, &obj, lines) == SKG_LOOSE_OK &&
		    obj.type == SKG_BLOB) {
			if (obj.streamed) {
				rc = 1;
			} else if ((*data = malloc(obj.size > 0 ? (size_t)obj.size : 1)) != NULL) {
				memcpy(*data, obj.content, (size_t)obj.size);
				*len = (size_t)obj.size;
				rc = 0;
			}
		}
		skg_buf_release(&path);
	}
	free(lines);
	skg_loose_reader_free(r);
	return rc;
}

/*
 * The checks of the blobs trees named .gitmodules / .gitattributes: each is checked once
 * (skg_fsck_special_blob, for every name it was given), or reported as unreadable or not a blob.
 * Git checks a blob when its pass over the objects meets it after a tree that names it, and the
 * rest at the end (fsck_finish); here all are checked at the end, .gitmodules ones first (as
 * fsck_finish), each group in object ID order (git's follows its hash table), with git's exit
 * bit for where git would have checked it.
 */
static void check_specials(struct fsck *f)
{
	if (f->n_specials == 0) {
		return;
	}
	qsort(f->specials, f->n_specials, sizeof(*f->specials), cmp_special);
	size_t n = 0;
	for (size_t i = 0; i < f->n_specials; i++) {
		if (n > 0 && memcmp(f->specials[n - 1].id, f->specials[i].id, SKG_RAWSZ) == 0) {
			/* sorted: the first one kept is the first tree in git's order */
			f->specials[n - 1].kinds |= f->specials[i].kinds;
		} else {
			f->specials[n++] = f->specials[i];
		}
	}
	f->n_specials = n;
	struct sink s = {f, NULL, -1, 0, 0, 0, 0};
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < n; i++) {
			const struct special *sp = &f->specials[i];
			bool modules = (sp->kinds & SKG_FSCK_GITMODULES) != 0;
			if (modules != (pass == 0) || skipped(f, sp->id)) {
				continue; /* fsck_blob leaves a blob in fsck.skipList alone */
			}
			unsigned type = SKG_NONE;
			int r = 0;
			if (!skg_graph_has(f->graph, sp->id, &type) || type == SKG_NONE) {
				r = skg_fsck_special_unreadable(modules ? SKG_FSCK_GITMODULES
				                                        : SKG_FSCK_GITATTRIBUTES,
				                                SKG_NONE, sp->id, &f->fopt, on_finding, &s);
			} else if (type != SKG_BLOB) {
				r = skg_fsck_special_unreadable(modules ? SKG_FSCK_GITMODULES
				                                        : SKG_FSCK_GITATTRIBUTES,
				                                type, sp->id, &f->fopt, on_finding, &s);
			} else {
				uint8_t *data = NULL;
				size_t len = 0;
				uint32_t seq;
				uint64_t off;
				int got = read_blob(f, sp->id, BIG_FILE_THRESHOLD, &data, &len, &seq, &off);
				if (got < 0) {
					r = skg_fsck_special_unreadable(
					    modules ? SKG_FSCK_GITMODULES : SKG_FSCK_GITATTRIBUTES, SKG_NONE,
					    sp->id, &f->fopt, on_finding, &s);
				} else {
					/* a blob named both ways is checked both ways, once (fsck_blob) */
					r = skg_fsck_special_blob(sp->kinds, sp->id, got == 0 ? data : NULL,
					                          len, &f->fopt, on_finding, &s);
					/* a packed blob git's pass meets after a tree that names it is
					 * checked there, by verify_pack's callback: its failure is ERROR_PACK
					 */
					if (r != 0 && seq > 0 &&
					    checked_before(sp->pack_seq, sp->offset, seq, off)) {
						add_errors(f, ERROR_PACK);
						r = 0;
					}
				}
				free(data);
			}
			if (r != 0) {
				add_errors(f, ERROR_OBJECT);
			}
		}
	}
}

/* ---- object directories ------------------------------------------------------------------------- */

static int add_odb(void *ctx, const char *dir)
{
	struct odbs *o = ctx;
	if (o->n == o->cap) {
		o->cap = o->cap ? o->cap * 2 : 8;
		char **v = realloc(o->dirs, o->cap * sizeof(*v));
		if (v == NULL) {
			return -1;
		}
		o->dirs = v;
	}
	o->dirs[o->n] = strdup(dir);
	if (o->dirs[o->n] == NULL) {
		return -1;
	}
	o->n++;
	return 0;
}

/* ---- roots -------------------------------------------------------------------------------------- */

/* ---- the object check: every loose object, then every pack ---------------------------------- */

/* 0, or -1 where git dies (its lines are out). */
static int scan(struct fsck *f, const struct odbs *odbs)
{
	for (size_t i = 0; i < odbs->n; i++) {
		meter_start(f, "Checking object directories", 256);
		if (check_loose(f, odbs->dirs[i], i < UINT16_MAX ? (int)i : -1) != 0) {
			return -1;
		}
		meter_stop(f, 256);
	}
	size_t n;
	struct pack_ref *packs = list_packs(odbs, &n);
	if (f->progress == 1) {
		uint64_t total = 0;
		for (size_t i = 0; i < n; i++) {
			total += idx_count(packs[i].idx);
		}
		meter_start(f, "Checking objects", total);
	}
	for (size_t i = 0; i < n && !f->died; i++) {
		check_pack(f, packs[i].pack, packs[i].idx);
	}
	free_packs(packs, n);
	meter_stop(f, f->meter.n);
	return f->died ? -1 : 0; /* git died reading a pack through its idx */
}

/* Before another pass of the object check: what the last one found is forgotten (errors: the
 * status bits from before the first). 0, or -1 when out of memory. */
static int scan_reset(struct fsck *f, int errors)
{
	skg_graph_free(f->graph);
	f->graph = skg_graph_new();
	f->errors = errors;
	free(f->bad_trees);
	f->bad_trees = NULL;
	f->n_bad_trees = 0;
	f->n_specials = 0;
	for (size_t i = 0; i < f->n_bad_packed; i++) {
		free(f->bad_packed[i].pack);
		free(f->bad_packed[i].idx);
	}
	f->n_bad_packed = 0;
	for (size_t i = 0; i < f->n_usable_packs; i++) {
		free(f->usable_packs[i].idx);
		free(f->usable_packs[i].pack);
	}
	f->n_usable_packs = 0;
	f->pack_seq = 0;
	f->incomplete = false;
	f->died = false;
	for (size_t i = 0; i < f->n_unusable; i++) {
		free(f->unusable[i].line);
		free(f->unusable[i].idx);
	}
	f->n_unusable = 0;
	return f->graph != NULL ? 0 : -1;
}

/*
 * After the first pass of the object check (`first`: what scan() returned): when no two links
 * disagree on an object's type, its held lines go out. Else git's handling of those links is worked
 * out (typeorder.h): a quiet pass collects the events on the disputed objects, they are ordered as
 * git reads them, and the check runs again with git's types set, printing git's lines. Returns
 * what the last scan() returned, or -1 when out of memory.
 */
static int wt_passes(struct fsck *f, const struct odbs *odbs, int errors, int first)
{
	uint8_t *ids = NULL;
	size_t n = 0;
	f->hold = false;
	if (first != 0 || f->connectivity_only || skg_graph_conflicts(f->graph, &ids, &n) != 0 || n == 0) {
		free(ids);
		if (f->held_out.len > 0) {
			sink_write(f, f->held_out.p, f->held_out.len);
		}
		skg_buf_release(&f->held_out);
		return first;
	}
	skg_buf_release(&f->held_out);
	f->types = skg_typeorder_new(ids, n);
	free(ids);
	int progress = f->progress;
	if (f->types == NULL || scan_reset(f, errors) != 0) {
		goto nomem;
	}
	f->quiet = f->collect = true;
	f->progress = 0;
	(void)scan(f, odbs); /* it stops where the first did not: nowhere */
	f->quiet = f->collect = false;
	f->progress = progress;
	if (skg_typeorder_resolve(f->types) != 0 || scan_reset(f, errors) != 0) {
		goto nomem;
	}
	f->types_resolved = true;
	for (size_t i = 0; i < skg_typeorder_count(f->types); i++) {
		unsigned tau;
		const uint8_t *id = skg_typeorder_id(f->types, i, &tau);
		if (tau != 0 && skg_graph_force_type(f->graph, id, tau) != 0) {
			goto nomem;
		}
	}
	return scan(f, odbs);
nomem:
	f->quiet = f->collect = false;
	err_line(f, "fatal: out of memory");
	return -1;
}

static void root(struct fsck *f, const uint8_t *id, unsigned type)
{
	if (skg_graph_root(f->graph, id, type) != 0) {
		err_line(f, "fatal: out of memory");
		add_errors(f, ERROR_OBJECT);
	}
}

/* git's parse_object_buffer of a commit or tag read for a ref: false after the parser's error. */
static bool parses(struct fsck *f, unsigned type, const uint8_t *id, const uint8_t *data, size_t len)
{
	char msg[512];
	enum skg_parse_result pr = SKG_PARSE_OK;
	struct skg_tag_links tl;
	if (type == SKG_COMMIT) {
		uint8_t tree[SKG_RAWSZ];
		struct links l = {.v = NULL, .n = 0, .cap = 64, .failed = false};
		l.v = l.small;
		pr = skg_commit_links(data != NULL ? data : (const uint8_t *)"", len, tree, parent_link, &l);
		if (l.v != l.small) {
			free(l.v);
		}
	} else if (type == SKG_TAG) {
		pr = skg_tag_links(data != NULL ? data : (const uint8_t *)"", len, &tl);
	}
	if (pr == SKG_PARSE_OK) {
		return true;
	}
	if (skg_parse_error_format(msg, sizeof(msg), pr, id, type == SKG_TAG ? &tl : NULL) > 0) {
		err_line(f, "error: %s", msg);
	}
	return false;
}

/*
 * git's parse_object() of an object that is no object to the rest of the check: when a loose file
 * of that name exists, git reads it. Returns SKG_REPARSE_DIES (git dies there: f->died is set, git's
 * lines are out), SKG_REPARSE_OK (git reads it after all: *type), SKG_REPARSE_MISMATCH (not an
 * object to git), or -1 when there is no such file.
 */
static int reparse_loose(struct fsck *f, const uint8_t *id, unsigned *type)
{
	char h[SKG_HEXSZ + 1];
	hex(id, h);
	for (size_t i = 0; i < f->n_odb_dirs; i++) {
		struct skg_buf path = {0};
		skg_buf_addf(&path, "%s/%.2s/%s", f->odb_dirs[i], h, h + 2);
		char *data = NULL;
		size_t len = 0;
		if (access(skg_buf_str(&path), F_OK) != 0) {
			skg_buf_release(&path);
			continue;
		}
		if (skg_read_file(skg_buf_str(&path), SIZE_MAX / 2, &data, &len) != 0) {
			/* there but unreadable (permissions): git's read fails quietly, and as the file
			 * exists it dies (read_object_file_extended) */
			err_line(f, "fatal: loose object %s (stored in %s) is corrupt", h,
			         skg_buf_str(&path));
			skg_buf_release(&path);
			f->died = true;
			return SKG_REPARSE_DIES;
		}
		struct skg_loose_reader *r = skg_loose_reader_new(NULL);
		struct skg_lines *lines = malloc(sizeof(*lines));
		int st = SKG_REPARSE_MISMATCH;
		unsigned known = SKG_NONE; /* git has the object in memory from a link to it */
		(void)skg_graph_known(f->graph, id, &known);
		uint8_t *content = NULL;
		size_t clen = 0;
		if (r != NULL && lines != NULL) {
			st = skg_loose_reparse(r, (const uint8_t *)data, len, skg_buf_str(&path), id, known,
			                       type, &content, &clen, lines);
			print_lines(f, lines);
		}
		if (st == SKG_REPARSE_OK && !parses(f, *type, id, content, clen)) {
			st = SKG_REPARSE_MISMATCH; /* parse_object_buffer fails: no object to git */
		}
		free(content);
		free(lines);
		skg_loose_reader_free(r);
		free(data);
		skg_buf_release(&path);
		if (st == SKG_REPARSE_DIES) {
			f->died = true;
		}
		return st; /* git reads the first loose file it finds */
	}
	return -1;
}

/*
 * git's parse_object of a packed object the check could not read: the read fails, git marks the
 * object bad and dies ("packed object ... is corrupt", read_object_file_extended); one that reads
 * with another ID gives "hash mismatch" and is no object. True when git dies.
 */
static bool dies_bad_packed(struct fsck *f, const uint8_t *id)
{
	for (size_t i = 0; i < f->n_bad_packed; i++) {
		if (memcmp(f->bad_packed[i].id, id, SKG_RAWSZ) == 0) {
			char h[SKG_HEXSZ + 1];
			hex(id, h);
			if (f->bad_packed[i].mismatch) {
				err_line(f, "error: hash mismatch %s", h);
				return false;
			}
			if (!f->bad_packed[i].marked) {
				reread_lines(f, &f->bad_packed[i]);
			}
			err_line(f, "fatal: packed object %s (stored in %s) is corrupt", h,
			         f->bad_packed[i].pack);
			f->died = true;
			return true;
		}
	}
	return false;
}

static bool loose_file_exists(const struct fsck *f, const uint8_t *id);

/*
 * Where git's parse_object of an object it has not read looks in the packs (lookup_lines): for its
 * type (oid_object_info) unless git has it in memory as a commit, tree or tag, then to read it. A
 * lookup that finds a loose file looks once, else twice.
 */
static void parse_lookup_lines(struct fsck *f, const uint8_t *id)
{
	if (f->n_unusable == 0) {
		return;
	}
	unsigned known = SKG_NONE;
	(void)skg_graph_known(f->graph, id, &known);
	unsigned each = loose_file_exists(f, id) ? 1 : 2;
	lookup_lines(f, id, (known == SKG_NONE || known == SKG_BLOB ? each : 0) + each);
}

/* git's fsck_handle_ref; false when git dies there */
static bool handle_ref(struct fsck *f, const char *refname, const uint8_t *id)
{
	unsigned type;
	char h[SKG_HEXSZ + 1];
	const struct skg_typeorder_fate *fate = type_fate(f, id);
	if (fate != NULL) {
		/* git's parse_object reads it again and its parse fails as before */
		fate_lines(f, NULL, fate);
		hex(id, h);
		err_line(f, "error: %s: invalid sha1 pointer %s", refname, h);
		add_errors(f, ERROR_REACHABLE);
		return true;
	}
	if (!skg_graph_has(f->graph, id, &type)) {
		parse_lookup_lines(f, id);
		int st = reparse_loose(f, id, &type);
		if (st == SKG_REPARSE_DIES || (st < 0 && dies_bad_packed(f, id))) {
			return false;
		}
		if (st == SKG_REPARSE_OK) {
			goto valid; /* readable as git reads it (a blob's stream), though not by fsck's check
			             */
		}
		hex(id, h);
		err_line(f, "error: %s: invalid sha1 pointer %s", refname, h);
		add_errors(f, ERROR_REACHABLE);
		return true;
	}
valid:
	/* git's is_branch(): HEAD or a branch */
	if (type != SKG_COMMIT && type != SKG_NONE && /* unknown: in a pack whose check stopped */
	    (strcmp(refname, "HEAD") == 0 || strncmp(refname, "refs/heads/", 11) == 0)) {
		err_line(f, "error: %s: not a commit", refname);
		add_errors(f, ERROR_REFS);
	}
	f->default_refs++;
	root(f, id, type);
	return true;
}

static int on_ref(void *ctx, const char *refname, const uint8_t id[SKG_RAWSZ], unsigned flags)
{
	(void)flags;
	return handle_ref(ctx, refname, id) ? 0 : 1;
}

static const uint8_t null_id[SKG_RAWSZ];

struct reflog_ctx {
	struct fsck *f;
	const char *refname;
};

/* git's fsck_handle_reflog_oid */
static void reflog_id(struct fsck *f, const char *refname, const uint8_t *id)
{
	char h[SKG_HEXSZ + 1];
	if (memcmp(id, null_id, SKG_RAWSZ) == 0) {
		return;
	}
	if (skg_graph_has(f->graph, id, NULL)) {
		root(f, id, 0);
	} else {
		hex(id, h);
		err_line(f, "error: %s: invalid reflog entry %s", refname, h);
		add_errors(f, ERROR_REACHABLE);
	}
}

static int on_reflog_entry(void *ctx, const struct skg_reflog_entry *e)
{
	struct reflog_ctx *rc = ctx;
	reflog_id(rc->f, rc->refname, e->old_id);
	reflog_id(rc->f, rc->refname, e->new_id);
	return 0;
}

static int on_reflog(void *ctx, const char *refname, const char *path)
{
	struct fsck *f = ctx;
	struct reflog_ctx rc = {f, refname};
	struct skg_error err;
	if (skg_for_each_reflog_entry(path, on_reflog_entry, &rc, &f->rep, &err) < 0) {
		err_line(f, "fatal: %s", err.msg);
		return -1;
	}
	return 0;
}

static int on_worktree(void *ctx, const struct skg_worktree *wt)
{
	struct fsck *f = ctx;
	struct skg_head head = {0};
	struct skg_error err;
	int ret = 0;
	if (skg_check_head(f->repo, wt->head_ref, &head, &f->rep, &err) < 0) {
		err_line(f, "fatal: %s", err.msg);
		ret = -1;
		goto out;
	}
	if (head.is_root && !handle_ref(f, wt->head_ref, head.id)) {
		ret = 1;
		goto out;
	}
	if (f->include_reflogs && skg_for_each_reflog(f->repo, wt, on_reflog, f, &f->rep, &err) < 0) {
		err_line(f, "fatal: %s", err.msg);
		ret = -1;
	}
out:
	skg_buf_release(&head.target);
	return ret;
}

/* The index (git's keep_cache_objects part). */
static int on_index_entry(void *ctx, const struct skg_index_entry *e)
{
	struct fsck *f = ctx;
	unsigned type = SKG_NONE;
	if (e->mode == 0160000) {
		return 0;
	}
	if (skg_graph_known(f->graph, e->id, &type) && type != SKG_NONE && type != SKG_BLOB) {
		/* git's lookup_blob of an object it has as another type fails, and git goes on */
		char h[SKG_HEXSZ + 1];
		hex(e->id, h);
		err_line(f, "error: object %s is a %s, not a blob", h, tname(type));
		return 0;
	}
	root(f, e->id, SKG_BLOB);
	return 0;
}

static int on_cache_tree(void *ctx, const char *path, int entry_count, int subtrees, const uint8_t *id,
                         bool *descend)
{
	struct fsck *f = ctx;
	unsigned type;
	char h[SKG_HEXSZ + 1];
	(void)path;
	(void)subtrees;
	if (entry_count < 0 || id == NULL) {
		return 0;
	}
	hex(id, h);
	const struct skg_typeorder_fate *fate = type_fate(f, id);
	if (fate != NULL) {
		fate_lines(f, NULL, fate); /* git's parse_object fails as it did in the object check */
		err_line(f, "error: %s: invalid sha1 pointer in cache-tree", h);
		add_errors(f, ERROR_REFS);
		*descend = false;
		return 0;
	}
	if (!skg_graph_has(f->graph, id, &type)) {
		parse_lookup_lines(f, id);
		/* git's fsck_cache_tree parses the tree: from its loose file, if there is one */
		int st = reparse_loose(f, id, &type);
		if (st == SKG_REPARSE_DIES || (st < 0 && dies_bad_packed(f, id))) {
			return 1;
		}
		if (st == SKG_REPARSE_OK) {
			goto valid;
		}
		err_line(f, "error: %s: invalid sha1 pointer in cache-tree", h);
		add_errors(f, ERROR_REFS);
		*descend = false;
		return 0;
	}
valid:
	root(f, id, type);
	if (type != SKG_TREE && type != SKG_NONE) { /* unknown: in a pack whose check stopped */
		err_line(f, "error in %s %s: non-tree in cache-tree", tname(type), h);
		add_errors(f, ERROR_OBJECT);
	}
	return 0;
}

static int on_resolve_undo(void *ctx, const char *path, const uint32_t mode[3], const uint8_t *const id[3])
{
	struct fsck *f = ctx;
	char h[SKG_HEXSZ + 1];
	(void)path;
	for (int i = 0; i < 3; i++) {
		if (mode[i] == 0 || (mode[i] & 0170000) != 0100000 || id[i] == NULL) {
			continue;
		}
		if (!skg_graph_has(f->graph, id[i], NULL)) {
			hex(id[i], h);
			err_line(f, "error: %s: invalid sha1 pointer in resolve-undo", h);
			add_errors(f, ERROR_REFS);
			continue;
		}
		root(f, id[i], SKG_BLOB);
	}
	return 0;
}

static int check_index(struct fsck *f)
{
	char *data = NULL;
	size_t len = 0;
	struct skg_error err;
	int e = skg_read_file(f->repo->index_file, SIZE_MAX, &data, &len);
	if (e != 0) {
		return 0; /* no index: nothing to add */
	}
	struct skg_index_callbacks cb = {on_index_entry, on_cache_tree, on_resolve_undo, f};
	struct skg_index_info info;
	int ret = skg_index_parse((const uint8_t *)data, len, f->repo->index_file_display, &cb, &info,
	                          &f->rep, &err);
	free(data);
	if (ret < 0) {
		err_line(f, "fatal: %s", err.msg);
		return -1;
	}
	return 0;
}

/* ---- connectivity -------------------------------------------------------------------------------- */

/* git's has_object() for an object that is no object to the check: a loose file of that name. */
static bool loose_file_exists(const struct fsck *f, const uint8_t *id)
{
	char h[SKG_HEXSZ + 1];
	hex(id, h);
	bool found = false;
	for (size_t i = 0; i < f->n_odb_dirs && !found; i++) {
		struct skg_buf path = {0};
		skg_buf_addf(&path, "%s/%.2s/%s", f->odb_dirs[i], h, h + 2);
		found = access(skg_buf_str(&path), F_OK) == 0;
		skg_buf_release(&path);
	}
	return found;
}

static void on_broken(void *ctx, unsigned ft, const uint8_t *from, unsigned tt, const uint8_t *to)
{
	struct fsck *f = ctx;
	char a[SKG_HEXSZ + 1], b[SKG_HEXSZ + 1];
	/* git's mark_object prints the link broken only when no object file of that name is there
	 * (a corrupt one is "missing" at the end, as all objects it could not read) */
	bool loose = loose_file_exists(f, to);
	lookup_lines(f, to, loose ? 1 : 2); /* has_object, not quick */
	if (loose) {
		return;
	}
	hex(from, a);
	hex(to, b);
	out_line(f, "broken link from %7s %s\n              to %7s %s", tname(ft), a, tname(tt), b);
	f->errors |= ERROR_REACHABLE;
}

static void on_wrong_type(void *ctx, unsigned ft, const uint8_t *from)
{
	struct fsck *f = ctx;
	char a[SKG_HEXSZ + 1];
	hex(from, a);
	err_line(f, "error in %s %s: wrong object type in link", tname(ft), a);
	f->errors |= ERROR_OBJECT;
}

/* git's traversal of a tree whose entry's lookup fails: mark_object of no object */
static void on_failed_link(void *ctx, unsigned ft, const uint8_t *from, unsigned tau, unsigned lt,
                           const uint8_t *to)
{
	struct fsck *f = ctx;
	char a[SKG_HEXSZ + 1], b[SKG_HEXSZ + 1];
	hex(from, a);
	hex(to, b);
	err_line(f, "error: object %s is a %s, not a %s", b, tname(tau), tname(lt));
	out_line(f, "broken link from %7s %s\nbroken link from %7s unknown", tname(ft), a, tname(lt));
	f->errors |= ERROR_REACHABLE;
}

static void on_walk_error(void *ctx, unsigned type, const uint8_t *id)
{
	struct fsck *f = ctx;
	(void)type;
	for (size_t i = 0; i < f->n_bad_trees; i++) {
		if (memcmp(f->bad_trees[i].id, id, SKG_RAWSZ) == 0) {
			err_line(f, "error: %s", f->bad_trees[i].why);
			return;
		}
	}
}

/* "WHAT TYPE ID" on standard output */
static void obj_line(struct fsck *f, const char *what, unsigned type, const uint8_t *id)
{
	char a[SKG_HEXSZ + 1];
	hex(id, a);
	out_line(f, "%s %s %s", what, tname(type), a);
}

static void on_missing(void *ctx, unsigned type, const uint8_t *id)
{
	struct fsck *f = ctx;
	lookup_lines(f, id, 1); /* git's has_object_pack */
	obj_line(f, "missing", type, id);
	f->errors |= ERROR_REACHABLE;
}

/* mkdir that accepts an existing directory */
static int make_dir(const char *path)
{
#if defined(_WIN32)
	int r = mkdir(path);
#else
	int r = mkdir(path, 0777);
#endif
	return r == 0 || errno == EEXIST ? 0 : -1;
}

/* A directory of lost-found: made, or there already (a file in its place is a failure). */
static bool lost_found_dir(const char *path)
{
	struct stat st;
	return make_dir(path) == 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Write data[0..len) to fp; false with errno set. */
static bool write_all(FILE *fp, const uint8_t *data, size_t len)
{
	return fwrite(data, 1, len, fp) == len;
}

/*
 * git's --lost-found: a dangling commit goes to <git_dir>/lost-found/commit/ID and anything else
 * to lost-found/other/ID, holding the blob's content or "ID\n" (builtin/fsck.c
 * check_unreachable_object). Where the directories cannot be made git says "could not create
 * lost-found" and goes on. A file that is already there is opened and overwritten as git does (a
 * symbolic link is followed; one that cannot be opened makes git die); a new one is written under
 * a temporary name and renamed, so that no partial file is left. Returns false when git dies.
 */
static bool write_lost_found(struct fsck *f, unsigned type, const uint8_t *id)
{
	char h[SKG_HEXSZ + 1];
	hex(id, h);
	struct skg_buf dir = {0}, path = {0}, tmp = {0};
	uint8_t *data = NULL;
	size_t len = 0;
	bool ok = true;
	/* git_path(): the git directory, a '/', the name, without a leading "./" (strbuf_cleanup_path) */
	const char *gd = f->repo->git_dir_display;
	size_t gl = strlen(gd);
	skg_buf_addf(&dir, "%s%slost-found", gd, gl > 0 && gd[gl - 1] == '/' ? "" : "/");
	if (strncmp(skg_buf_str(&dir), "./", 2) == 0) {
		const char *rest = skg_buf_str(&dir) + 2;
		struct skg_buf d2 = {0};
		skg_buf_adds(&d2, rest);
		skg_buf_release(&dir);
		dir = d2;
	}
	bool made = lost_found_dir(skg_buf_str(&dir));
	skg_buf_addf(&dir, "/%s", type == SKG_COMMIT ? "commit" : "other");
	if (!made || !lost_found_dir(skg_buf_str(&dir))) {
		err_line(f, "error: could not create lost-found");
		goto out;
	}
	skg_buf_addf(&path, "%s/%s", skg_buf_str(&dir), h);
	if (type == SKG_BLOB) {
		uint32_t seq;
		uint64_t where;
		if (read_blob(f, id, UINT64_MAX / 2, &data, &len, &seq, &where) != 0) {
			/* git's stream of the blob fails: it dies */
			err_line(f, "fatal: could not write '%s': %s", skg_buf_str(&path), strerror(EIO));
			ok = false;
			goto out;
		}
	}
	struct stat st;
	bool exists = lstat(skg_buf_str(&path), &st) == 0;
	if (!exists) {
		skg_buf_addf(&tmp, "%s/.tmp-%s-%ld", skg_buf_str(&dir), h, (long)getpid());
	}
	const char *open_path = exists ? skg_buf_str(&path) : skg_buf_str(&tmp);
	FILE *fp = fopen(open_path, "wb");
	if (fp == NULL) {
		err_line(f, "fatal: could not open '%s' for writing: %s", skg_buf_str(&path),
		         strerror(errno));
		ok = false;
		goto out;
	}
	char line[SKG_HEXSZ + 2];
	snprintf(line, sizeof(line), "%s\n", h);
	bool written =
	    type == SKG_BLOB ? write_all(fp, data, len) : write_all(fp, (const uint8_t *)line, SKG_HEXSZ + 1);
	int e = written ? 0 : errno;
	if (!written) {
		(void)fclose(fp);
		err_line(f, "fatal: could not write '%s': %s", skg_buf_str(&path),
		         strerror(e != 0 ? e : EIO));
		ok = false;
	} else if (fclose(fp) != 0) {
		err_line(f, "fatal: could not finish '%s': %s", skg_buf_str(&path), strerror(errno));
		ok = false;
	} else if (!exists && rename(skg_buf_str(&tmp), skg_buf_str(&path)) != 0) {
		err_line(f, "fatal: could not finish '%s': %s", skg_buf_str(&path), strerror(errno));
		ok = false;
	}
	if (!ok && !exists) {
		(void)remove(skg_buf_str(&tmp));
	}
out:
	free(data);
	skg_buf_release(&dir);
	skg_buf_release(&path);
	skg_buf_release(&tmp);
	return ok;
}

static void on_dangling(void *ctx, unsigned type, const uint8_t *id)
{
	struct fsck *f = ctx;
	if (f->died) {
		return; /* git died at an earlier one */
	}
	if (f->show_dangling) {
		obj_line(f, "dangling", type, id);
	}
	if (f->lost_found && !write_lost_found(f, type, id)) {
		f->died = true;
	}
}

static void on_unreachable(void *ctx, unsigned type, const uint8_t *id)
{
	obj_line(ctx, "unreachable", type, id);
}

/* ---- config --------------------------------------------------------------------------------------- */

/* The walk's reload: the links of a loose tree, read again from its object directory. */
struct relink {
	void (*link)(void *ctx, const uint8_t id[SKG_RAWSZ], unsigned type);
	void *ctx;
};

static void relink_entry(void *ctx, uint32_t mode, const char *name, size_t name_len,
                         const uint8_t id[SKG_RAWSZ])
{
	struct relink *r = ctx;
	(void)name;
	(void)name_len;
	if (mode != 0160000) { /* as tree_link: a gitlink is no link */
		r->link(r->ctx, id, mode == 040000 ? SKG_TREE : SKG_BLOB);
	}
}

static void reload_tree(void *ctx, unsigned thread, unsigned source, const uint8_t id[SKG_RAWSZ],
                        unsigned type,
                        void (*link)(void *link_ctx, const uint8_t id[SKG_RAWSZ], unsigned type),
                        void *link_ctx)
{
	struct fsck *f = ctx;
	char h[SKG_HEXSZ + 1];
	struct skg_loose_object obj;
	struct skg_lines lines = {0};
	struct skg_buf path = {0};
	(void)type;
	struct skg_loose_reader *reader = f->walk_readers != NULL ? f->walk_readers[thread] : NULL;
	if (reader == NULL) {
		return;
	}
	hex(id, h);
	skg_buf_addf(&path, "%s/%.2s/%s", f->odb_dirs[source], h, h + 2);
	int st = skg_loose_read(reader, skg_buf_str(&path), id, NULL, NULL, &obj, &lines);
	if (st == SKG_LOOSE_OK && obj.type == SKG_TREE && !obj.streamed) {
		struct relink r = {link, link_ctx};
		(void)skg_tree_links(obj.content, (size_t)obj.size, relink_entry, &r);
	}
	skg_lines_clear(&lines);
	skg_buf_release(&path);
}

static int cmp_id(const void *a, const void *b)
{
	return memcmp(a, b, SKG_RAWSZ);
}

/* fsck.skipList: one object ID a line; '#' comments and blank lines are skipped (git's
 * oidset_parse_file). A line that is not an ID is fatal, as in git. */
static int read_skiplist(struct fsck *f, const char *path)
{
	char *data = NULL;
	size_t len = 0;
	if (skg_read_file(path, SIZE_MAX, &data, &len) != 0) {
		err_line(f, "fatal: could not open object name list: %s", path);
		return -1;
	}
	size_t cap = len / 41 + 1;
	uint8_t *v = realloc(f->skip, (f->nskip + cap) * SKG_RAWSZ);
	if (v == NULL) {
		free(data);
		return -1;
	}
	f->skip = v;
	for (size_t p = 0; p < len;) {
		size_t e = p;
		while (e < len && data[e] != '\n') {
			e++;
		}
		size_t a = p, b = e;
		const char *hash = memchr(data + p, '#', e - p);
		if (hash != NULL) {
			b = (size_t)(hash - data);
		}
		while (a < b && skg_isspace((unsigned char)data[a])) {
			a++;
		}
		while (b > a && skg_isspace((unsigned char)data[b - 1])) {
			b--;
		}
		if (b > a) {
			if (b - a != SKG_HEXSZ || !skg_from_hex(data + a, f->skip + f->nskip * SKG_RAWSZ)) {
				err_line(f, "fatal: invalid object name: %.*s", (int)(b - a), data + a);
				free(data);
				return -1;
			}
			f->nskip++;
		}
		p = e + 1;
	}
	free(data);
	qsort(f->skip, f->nskip, SKG_RAWSZ, cmp_id);
	return 0;
}

static int on_config(void *ctx, const char *key, const char *value)
{
	struct fsck *f = ctx;
	if (strcmp(key, "fsck.skiplist") == 0) {
		if (value == NULL) {
			return 0;
		}
		/* a path value (git_config_pathname): "~/" is the home directory */
		struct skg_buf path = {0};
		const char *home = getenv("HOME");
		if (strncmp(value, "~/", 2) == 0 && home != NULL) {
			skg_buf_addf(&path, "%s/%s", home, value + 2);
		} else {
			skg_buf_adds(&path, value);
		}
		int r = read_skiplist(f, skg_buf_str(&path));
		skg_buf_release(&path);
		if (r < 0) {
			f->config_died = true;
		}
		return r;
	}
	if (strcmp(key, "advice.graftfiledeprecated") == 0) {
		int b = skg_config_bool(value);
		if (b < 0) {
			err_line(f, "fatal: bad boolean config value '%s' for '%s'", value, key);
			f->config_died = true;
			return -1;
		}
		f->no_graft_hint = b == 0;
		return 0;
	}
	if (strncmp(key, "fsck.", 5) == 0) {
		enum skg_fsck_set_result r = skg_fsck_set_severity(&f->fopt, key + 5, value);
		if (r != SKG_FSCK_SET_OK) {
			char msg[512];
			skg_fsck_set_error_format(msg, sizeof(msg), r, key + 5, value);
			err_line(f, "fatal: %s", msg);
			f->config_died = true;
			return -1;
		}
	}
	return 0;
}

/* ---- the command ---------------------------------------------------------------------------------- */

/*
 * git's run_builtin after the command: when it succeeded, standard output is flushed and closed,
 * and a failure there is fatal (128); when it failed, or standard output is a pipe or a socket,
 * git does not look.
 */
static int git_finish(int status)
{
	struct stat st;
	if (status != 0 || fstat(fileno(stdout), &st) != 0 || S_ISFIFO(st.st_mode)
#if defined(S_ISSOCK)
	    || S_ISSOCK(st.st_mode)
#endif
	) {
		return status;
	}
	if (fflush(stdout) != 0) {
		fprintf(stderr, "fatal: write failure on standard output: %s\n", strerror(errno));
		return 128;
	}
	if (ferror(stdout)) {
		fprintf(stderr, "fatal: unknown write failure on standard output\n");
		return 128;
	}
	if (fclose(stdout) != 0) {
		fprintf(stderr, "fatal: close failed on standard output: %s\n", strerror(errno));
		return 128;
	}
	return 0;
}

static void usage(void)
{
	printf("Usage: %s fsck [OPTION]... [GIT_DIR]\n"
	       "Verify the connectivity and validity of the objects of a Git repository, as\n"
	       "'git fsck --full' does, with SHA-1 collision detection (SHA-1DC) on every object.\n"
	       "\n"
	       "The repository is GIT_DIR, else --git-dir, else $GIT_DIR, else the one found\n"
	       "upwards from the current directory, as git finds it (bare or not, .git files,\n"
	       "alternates). Checked: every loose object and every pack with its idx (object IDs\n"
	       "recomputed with SHA-1DC, CRC-32s, trailers, the idx rebuilt and compared byte for\n"
	       "byte; a corrupt pack, or an idx whose checksum fails, is then read object by\n"
	       "object through the idx as git does, with git's lines), the syntax of commits,\n"
	       "trees and tags with git's message IDs and severities (fsck.<msg-id> and\n"
	       "fsck.skipList in the config), connectivity from every ref, HEAD, reflog and\n"
	       "index entry, and the commit-graph, multi-pack-index and .rev files.\n"
	       "\n"
	       "Options:\n"
	       "      --git-dir=DIR        the repository (as git --git-dir)\n"
	       "      --[no-]dangling      print dangling objects (default: on)\n"
	       "      --[no-]unreachable   print every unreachable object instead\n"
	       "      --[no-]root          print root commits\n"
	       "      --[no-]tags          print tags and what they tag\n"
	       "      --[no-]reflogs       take reflog entries as roots (default: on)\n"
	       "      --[no-]cache         take the index as roots (always so, as in git without\n"
	       "                             objects given)\n"
	       "      --[no-]connectivity-only\n"
	       "                           check only connectivity (objects are still hashed)\n"
	       "      --[no-]strict        stricter checks (git fsck --strict)\n"
	       "      --full               accepted: packs and alternates are always checked\n"
	       "      --[no-]lost-found    write each dangling object into GIT_DIR/lost-found/:\n"
	       "                             commit/ID holds \"ID\", other/ID a blob's content or\n"
	       "                             the ID of a tree or tag (implies --no-reflogs)\n"
	       "      --[no-]progress      progress lines on standard error (default: when it is a\n"
	       "                             terminal), as git's: \"Checking objects: 42%% (N/TOTAL)\"\n"
	       "      --threads=N          threads reading loose objects and resolving deltas, 0 to\n"
	       "                             1024 (0 or default: one per CPU)\n"
	       "      --help               display this help and exit\n"
	       "\n"
	       "Output as git fsck's: on standard output 'broken link from ...', 'missing TYPE ID',\n"
	       "'dangling TYPE ID', 'unreachable TYPE ID', 'root ID', 'tagged ...'; on standard\n"
	       "error 'error in TYPE ID: msgId: detail', 'warning in ...' and the errors of refs,\n"
	       "packs and loose objects. A collision attack is an error naming the object and its\n"
	       "place (loose path, or pack and offset).\n"
	       "\n"
	       "Not as in git: objects cannot be named as arguments (the operand is the git\n"
	       "directory); --verbose, --name-objects and GIT_CONFIG_PARAMETERS (git -c) are\n"
	       "not supported; where git reads a failed delta base from another copy (a loose\n"
	       "object, another pack), sha1kit takes it as missing; an idx whose checksum is\n"
	       "right but whose content is not is 'does not match index'; with\n"
	       "--connectivity-only, a link to an object of another type is 'wrong object type\n"
	       "in link' and corrupt loose objects are reported where git (which does not read\n"
	       "them then) dies when it reaches one. Links to an object of another type get\n"
	       "git's lines otherwise: git keeps the type of the first it reads of the object and\n"
	       "the links to it, and sha1kit works that order out (the objects are read again\n"
	       "when there are such links). Where git dies part way (status 128: a ref or the\n"
	       "index names an object it cannot read), sha1kit prints git's lines and dies there\n"
	       "too. A repository found upwards that another user owns is refused unless\n"
	       "safe.directory allows it, as git does.\n"
	       "\n"
	       "Exit status: the sum of git fsck's bits: 1 an object is corrupt, 2 an object is\n"
	       "missing (a broken link), 4 a pack is corrupt, 8 a ref is broken, 16 the\n"
	       "commit-graph, 32 the multi-pack-index, 64 a .rev file; 128 a SHA-1 collision\n"
	       "attack was detected (git dies there: 128) or a fatal error (git's 128 too);\n"
	       "129 a usage error, as git's. 0 when everything is sound.\n",
	       SK_PROGRAM);
}

int sk_cmd_fsck(int argc, char **argv)
{
	enum {
		OPT_GIT_DIR = 256,
		OPT_DANGLING,
		OPT_NO_DANGLING,
		OPT_UNREACHABLE,
		OPT_NO_UNREACHABLE,
		OPT_ROOT,
		OPT_NO_ROOT,
		OPT_TAGS,
		OPT_NO_TAGS,
		OPT_NO_CACHE,
		OPT_NO_CONN,
		OPT_NO_STRICT,
		OPT_REFLOGS,
		OPT_NO_REFLOGS,
		OPT_CACHE,
		OPT_CONN,
		OPT_STRICT,
		OPT_FULL,
		OPT_NO_FULL,
		OPT_PROGRESS,
		OPT_NO_PROGRESS,
		OPT_THREADS,
		OPT_HELP,
		OPT_LOST_FOUND,
		OPT_NO_LOST_FOUND,
	};
	static const struct option options[] = {
	    {"git-dir", required_argument, NULL, OPT_GIT_DIR},
	    {"dangling", no_argument, NULL, OPT_DANGLING},
	    {"no-dangling", no_argument, NULL, OPT_NO_DANGLING},
	    {"unreachable", no_argument, NULL, OPT_UNREACHABLE},
	    {"no-unreachable", no_argument, NULL, OPT_NO_UNREACHABLE},
	    {"root", no_argument, NULL, OPT_ROOT},
	    {"no-root", no_argument, NULL, OPT_NO_ROOT},
	    {"tags", no_argument, NULL, OPT_TAGS},
	    {"no-tags", no_argument, NULL, OPT_NO_TAGS},
	    {"no-cache", no_argument, NULL, OPT_NO_CACHE},
	    {"no-connectivity-only", no_argument, NULL, OPT_NO_CONN},
	    {"no-strict", no_argument, NULL, OPT_NO_STRICT},
	    {"reflogs", no_argument, NULL, OPT_REFLOGS},
	    {"no-reflogs", no_argument, NULL, OPT_NO_REFLOGS},
	    {"cache", no_argument, NULL, OPT_CACHE},
	    {"connectivity-only", no_argument, NULL, OPT_CONN},
	    {"strict", no_argument, NULL, OPT_STRICT},
	    {"full", no_argument, NULL, OPT_FULL},
	    {"no-full", no_argument, NULL, OPT_NO_FULL},
	    {"progress", no_argument, NULL, OPT_PROGRESS},
	    {"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
	    {"threads", required_argument, NULL, OPT_THREADS},
	    {"lost-found", no_argument, NULL, OPT_LOST_FOUND},
	    {"no-lost-found", no_argument, NULL, OPT_NO_LOST_FOUND},
	    {"help", no_argument, NULL, OPT_HELP},
	    {NULL, 0, NULL, 0},
	};
	struct fsck f = {0};
	const char *git_dir = NULL;
	bool strict = false;
	int c;
	f.show_dangling = true;
	f.include_reflogs = true;
	f.keep_cache = true;
	f.progress = -1;
	f.threads = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (c) {
		case OPT_GIT_DIR:
			git_dir = optarg;
			break;
		case OPT_DANGLING:
			f.show_dangling = true;
			break;
		case OPT_NO_DANGLING:
			f.show_dangling = false;
			break;
		case OPT_UNREACHABLE:
		case OPT_NO_UNREACHABLE:
			f.show_unreachable = c == OPT_UNREACHABLE;
			break;
		case OPT_ROOT:
		case OPT_NO_ROOT:
			f.show_root = c == OPT_ROOT;
			break;
		case OPT_TAGS:
		case OPT_NO_TAGS:
			f.show_tags = c == OPT_TAGS;
			break;
		case OPT_NO_CACHE:
			/* as in git: without objects named, the index is always read */
			break;
		case OPT_NO_CONN:
			f.connectivity_only = false;
			break;
		case OPT_NO_STRICT:
			strict = false;
			break;
		case OPT_REFLOGS:
			f.include_reflogs = true;
			break;
		case OPT_NO_REFLOGS:
			f.include_reflogs = false;
			break;
		case OPT_CACHE:
			f.keep_cache = true;
			break;
		case OPT_CONN:
			f.connectivity_only = true;
			break;
		case OPT_STRICT:
			strict = true;
			break;
		case OPT_FULL:
		case OPT_NO_FULL:
			break;
		case OPT_LOST_FOUND:
		case OPT_NO_LOST_FOUND:
			f.lost_found = c == OPT_LOST_FOUND;
			break;
		case OPT_PROGRESS:
			f.progress = 1;
			break;
		case OPT_NO_PROGRESS:
			f.progress = 0;
			break;
		case OPT_THREADS:
			if (!pk_parse_threads(optarg, &f.threads)) {
				sk_usage_exit(USAGE_STATUS, CMD, CMD ": " PK_THREADS_INVALID, optarg);
			}
			break;
		case OPT_HELP:
			usage();
			return sk_finish(SK_EXIT_OK, false);
		default:
			sk_usage_exit(USAGE_STATUS, CMD, NULL);
		}
	}
	if (argc - optind > 1) {
		sk_usage_exit(USAGE_STATUS, CMD, CMD ": extra operand '%s'", argv[optind + 1]);
	}
	if (optind < argc) {
		if (git_dir != NULL) {
			sk_usage_exit(USAGE_STATUS, CMD,
			              CMD ": --git-dir and the operand '%s' both name a repository",
			              argv[optind]);
		}
		git_dir = argv[optind];
	}
	if (f.lost_found) {
		f.include_reflogs = false; /* as git: objects only the reflogs keep are lost too */
	}
	if (f.threads == 0) {
		f.threads = pk_online_cpus();
	}
	if (f.progress < 0) {
		f.progress = isatty(STDERR_FILENO) ? 1 : 0;
	}
	pthread_mutex_init(&f.lock, NULL);
	f.rep.report = on_report;
	f.rep.ctx = &f;
	skg_fsck_options_init(&f.fopt, strict);
	f.fopt.found = on_found;

	struct skg_error err;
	struct odbs odbs = {0};
	int status = 0;
	if (skg_repo_open(&f.repo, git_dir, &f.rep, &err) != 0) {
		err_line(&f, "fatal: %s", err.msg);
		status = 128;
		goto done;
	}
	/* as git after its setup: in the top of the work tree (paths in messages are relative to it) */
	if (f.repo->git_cwd != NULL && chdir(f.repo->git_cwd) != 0) {
		err_line(&f, "fatal: cannot change to '%s': %s", f.repo->git_cwd, strerror(errno));
		status = 128;
		goto done;
	}
	f.graph = skg_graph_new();
	if (f.graph == NULL) {
		err_line(&f, "fatal: out of memory");
		status = 128;
		goto done;
	}
	if (skg_repo_config(f.repo, on_config, &f, &err) != 0) {
		if (!f.config_died) { /* else on_config printed git's line */
			err_line(&f, "fatal: %s", err.msg);
		}
		status = 128;
		goto done;
	}

	if (skg_repo_grafts(f.repo, !f.no_graft_hint, &f.grafts, &f.rep, &err) != 0) {
		err_line(&f, "fatal: %s", err.msg);
		status = 128;
		goto done;
	}

	/* the object directories: the repository's, then its alternates */
	if (add_odb(&odbs, f.repo->objects_dir_display) != 0 ||
	    skg_for_each_alternate(f.repo, add_odb, &odbs, &f.rep, &err) < 0) {
		err_line(&f, "fatal: out of memory");
		status = 128;
		goto done;
	}
	int errors = f.errors;
	f.hold = true; /* until it is known whether the first pass's lines stand (wt_passes) */
	if (wt_passes(&f, &odbs, errors, scan(&f, &odbs)) != 0) {
		status = 128;
		goto done;
	}
	f.odb_dirs = odbs.dirs;
	f.n_odb_dirs = odbs.n;
	if (!f.connectivity_only) {
		check_specials(&f);
	}

	/* the roots: refs, each worktree's HEAD and reflogs, the index */
	if (skg_for_each_ref(f.repo, on_ref, &f, &err) < 0 ||
	    (!f.died && skg_for_each_worktree(f.repo, on_worktree, &f, &f.rep, &err) < 0)) {
		err_line(&f, "fatal: %s", err.msg);
		status = 128;
		goto done;
	}
	if (f.died) {
		status = 128; /* git died reading a ref's object (its line is out) */
		goto done;
	}
	if (f.default_refs == 0) {
		err_line(&f, "notice: No default references");
		f.show_unreachable = false;
	}
	if (f.keep_cache && (check_index(&f) < 0 || f.died)) {
		status = 128; /* the index cannot be read, or git died reading what it names */
		goto done;
	}

	struct skg_graph_report rep = {&f,
	                               on_broken,
	                               on_wrong_type,
	                               on_missing,
	                               on_dangling,
	                               on_unreachable,
	                               on_walk_error,
	                               f.show_unreachable,
	                               reload_tree,
	                               0,
	                               on_failed_link};
	f.odb_dirs = odbs.dirs;
	struct skg_loose_options wopt;
	skg_loose_options_default(&wopt);
	wopt.no_hash = true; /* every loose object was hashed already */
	f.walk_readers = calloc(f.threads, sizeof(*f.walk_readers));
	for (unsigned t = 0; f.walk_readers != NULL && t < f.threads; t++) {
		f.walk_readers[t] = skg_loose_reader_new(&wopt);
		if (f.walk_readers[t] != NULL) {
			rep.reload_threads = t + 1; /* the threads with a reader */
		} else {
			break;
		}
	}
	if (f.incomplete) {
		rep.dangling = NULL;
		rep.unreachable = NULL;
	}
	int walked = skg_graph_walk(f.graph, &rep);
	for (unsigned t = 0; f.walk_readers != NULL && t < f.threads; t++) {
		skg_loose_reader_free(f.walk_readers[t]);
	}
	free(f.walk_readers);
	f.walk_readers = NULL;
	if (walked != 0) {
		err_line(&f, "fatal: out of memory");
		status = 128;
		goto done;
	}
	if (f.died) {
		status = 128; /* git died writing lost-found (its line is out) */
		goto done;
	}

	/* commit-graph, multi-pack-index, .rev files of every object directory */
	struct skg_lines *lines = malloc(sizeof(*lines)); /* 16 KiB */
	if (lines == NULL) {
		err_line(&f, "fatal: out of memory");
		status = 128;
		goto done;
	}
	fflush(stdout); /* git's start_command flushes before it runs `git commit-graph verify` */
	for (size_t i = 0; i < odbs.n; i++) {
		/* git fsck loads the commit-graph and multi-pack-index itself (its load errors, paths as
		 * it spells them; a fatal one ends it), then runs `git commit-graph verify` and `git
		 * multi-pack-index verify --object-dir DIR` (absolute paths) */
		const char *abs = i == 0 ? f.repo->objects_dir : odbs.dirs[i];
		int st = skg_trailer_commit_graph(odbs.dirs[i], SKG_TRAILER_LOAD, lines);
		print_lines(&f, lines);
		if (st == SKG_TRAILER_FATAL) {
			status = 128;
			free(lines);
			goto done;
		}
		if (f.alt_lines.len > 0) {
			sink_write(&f, f.alt_lines.p, f.alt_lines.len);
		}
		trailer_result(&f, skg_trailer_commit_graph(abs, SKG_TRAILER_VERIFY, lines), lines,
		               ERROR_COMMIT_GRAPH);
		st = skg_trailer_midx(odbs.dirs[i], SKG_TRAILER_LOAD, lines);
		print_lines(&f, lines);
		print_lines(&f, lines); /* git fsck loads it twice (its packs, then its objects) */
		if (st == SKG_TRAILER_FATAL) {
			status = 128;
			free(lines);
			goto done;
		}
		trailer_result(&f, skg_trailer_midx(abs, SKG_TRAILER_VERIFY, lines), lines,
		               ERROR_MULTI_PACK_INDEX);
		/* .rev files: as git 2.41's fsck (git 2.39 does not look at them) */
		skg_lines_clear(lines);
		trailer_result(&f, skg_trailer_revs(odbs.dirs[i], lines), lines, ERROR_PACK_REV_INDEX);
	}
	free(lines);
	status = f.errors;
done:
	for (size_t i = 0; i < odbs.n; i++) {
		free(odbs.dirs[i]);
	}
	free(odbs.dirs);
	free(f.skip);
	free(f.bad_trees);
	free(f.specials);
	for (size_t i = 0; i < f.n_bad_packed; i++) {
		free(f.bad_packed[i].pack);
		free(f.bad_packed[i].idx);
	}
	free(f.bad_packed);
	for (size_t i = 0; i < f.n_unusable; i++) {
		free(f.unusable[i].line);
		free(f.unusable[i].idx);
	}
	free(f.unusable);
	skg_typeorder_free(f.types);
	free(f.pack_lines);
	skg_buf_release(&f.pack_text);
	skg_buf_release(&f.held_out);
	skg_grafts_free(&f.grafts);
	skg_buf_release(&f.alt_lines);
	for (size_t i = 0; i < f.n_usable_packs; i++) {
		free(f.usable_packs[i].idx);
		free(f.usable_packs[i].pack);
	}
	free(f.usable_packs);
	skg_graph_free(f.graph);
	if (f.repo != NULL) {
		skg_repo_free(f.repo);
	}
	pthread_mutex_destroy(&f.lock);
	return git_finish(status);
}
