/*
 * pack_strict.c - `git index-pack --strict`'s object checks (pack_strict.h). Sources, git v2.39.5
 * (facts, not code): builtin/index-pack.c sha1_object (blob: lookup_blob, else "invalid blob
 * object X"; other types: parse_object_buffer, else "invalid TYPE"; fsck_object, else "fsck error
 * in packed object"; fsck_walk with mark_link, else "Not all child objects of X are reachable"),
 * check_object / check_objects (the object hash table in its order: "did not receive expected
 * object X", "object X: expected type T, found U"), the --strict option (fsck_set_msg_types) and
 * fsck_finish after the pack is written ("fsck error in pack objects"); fsck.c fsck_walk_tree,
 * _commit, _tag, fsck_blobs, fsck_error_function ("object X: msgId: text", a warning or an error)
 * and fsck_error_cb_print_missing_gitmodules (an unreadable .gitmodules blob: its ID on stdout);
 * object.c create_object / lookup_object / grow_object_hash / object_as_type ("object X is a T, not
 * a U"); commit.c parse_commit_buffer ("bad tree pointer X in commit C"); tag.c parse_tag_buffer
 * ("bad tag pointer to X in T").
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "fsck_object.h"
#include "grafts.h"
#include "loose.h"
#include "objtab.h"
#include "odb.h"
#include "oidset_order.h"
#include "pack_strict.h"
#include "repo.h"
#include "util.h"

enum { F_LINK = 1, F_CHECKED = 2, F_PARSED = 4 };

/* One object as git's object table knows it, created by a lookup of a type, is rawsz + 2 bytes of
 * skg_strict.objs (the pack's ID size, so that a SHA-1 pack's table stays as small as before
 * SHA-256): its ID, then its type, then its F_* flags (obj_id, obj_type, obj_flags below). */

/* A blob a tree names .gitmodules / .gitattributes (git's gitmodules_found, ..._done oidsets). */
struct special {
	uint8_t id[SKG_MAX_RAWSZ];
	uint8_t kinds; /* enum skg_fsck_special found */
	uint8_t done;  /* kinds checked as a blob */
};

struct link {
	uint32_t mode;
	uint8_t id[SKG_MAX_RAWSZ];
};

struct skg_strict {
	pthread_mutex_t lock;
	const struct skg_pk_pack *pack;
	const char *objects_dir;
	/* told of the repository's packs and idx files mapped (skg_strict_on_map), or NULL */
	void (*on_map)(void *ctx, const void *addr, uint64_t len, const char *path, bool mapped);
	void *map_ctx;
	bool in_repo; /* git has a repository (objects_dir, or one of another object format) */
	unsigned git_version;
	struct skg_sink sink;
	struct skg_fsck_options fopt;
	size_t rawsz;  /* bytes of an object ID: the pack's (20, or 32 for SHA-256) */
	uint8_t *skip; /* skiplist: sorted IDs, rawsz bytes each */
	size_t nskip;
	/* git's object table: objs in creation order (ostride bytes each, see F_*), table
	 * their slots (objtab.h) */
	uint8_t *objs;
	size_t ostride;
	uint32_t nobjs, capobjs;
	struct skg_objtab table;
	/* the special blobs found, in the order found */
	struct special *special;
	uint32_t nspecial, capspecial;
	/* scratch of one check */
	struct link *links;
	size_t nlinks, caplinks;
	const uint8_t *cur_id;
	bool cur_skipped;
	bool nomem;
	bool fsck, walk;  /* git's do_fsck_object, strict (skg_strict_parts) */
	uint64_t foreign; /* links found in the repository (skg_strict_links) */
	/* the repository's grafts (skg_strict_grafts), read at the first commit parsed, as git reads
	 * them there (its lines: the graft file's hint and errors); graft_repo NULL once read */
	const struct skg_repo *graft_repo;
	/* the repository (skg_strict_grafts) and, opened at the first read, its object store with
	 * the alternates (odb.h), where git's check_objects and fsck_finish read links and blobs */
	const struct skg_repo *repo;
	struct skg_odb *odb;
	bool odb_failed;
	struct skg_lines *odb_lines;
	unsigned hint_git; /* the hint's words (0: none) */
	struct skg_grafts grafts;
	enum skg_errc code;
	char msg[SKG_ERROR_MAX];
};

/* ---- Records and failures ------------------------------------------------------------------ */

static void emit(struct skg_strict *s, enum skg_level level, const char *msg_id, unsigned type,
                 const uint8_t *oid, const char *fmt, ...) SKG_PRINTF(6, 7);

static void emit(struct skg_strict *s, enum skg_level level, const char *msg_id, unsigned type,
                 const uint8_t *oid, const char *fmt, ...)
{
	struct skg_report r = {level, SKG_R_FSCK, msg_id, type, oid, NULL, false, 0};
	va_list ap;
	va_start(ap, fmt);
	skg_vreport(&s->sink, &r, fmt, ap);
	va_end(ap);
}

/* git dies: the message (without "fatal: ") for skg_strict_error. Returns 1 (stop). */
static int die(struct skg_strict *s, const char *fmt, ...) SKG_PRINTF(2, 3);

static int die(struct skg_strict *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->msg, sizeof(s->msg), fmt, ap);
	va_end(ap);
	s->code = SKG_E_GIT;
	return 1;
}

static int nomem(struct skg_strict *s)
{
	s->code = SKG_E_NOMEM;
	snprintf(s->msg, sizeof(s->msg), "out of memory");
	return 1;
}

void skg_strict_error(const struct skg_strict *s, struct skg_error *err)
{
	skg_fail_sys(err, s->code, s->code == SKG_E_NOMEM ? ENOMEM : 0, "%s", s->msg);
}

static const char *hex(const struct skg_strict *s, const uint8_t *id, char buf[SKG_MAX_HEXSZ + 1])
{
	skg_to_hex_len(id, s->rawsz, buf);
	return buf;
}

/* ---- Options: --strict=<args> --------------------------------------------------------------- */

static bool skipped(const struct skg_strict *s, const uint8_t *id)
{
	return s->nskip > 0 && bsearch(id, s->skip, s->nskip, s->rawsz, skg_id_cmp(s->rawsz)) != NULL;
}

/* git's oidset_parse_file: one ID a line, '#' comments, blanks trimmed; anything else is fatal. */
static int read_skiplist(struct skg_strict *s, const char *path)
{
	char *data = NULL;
	size_t len = 0;
	if (skg_read_file(path, SIZE_MAX, &data, &len) != 0) {
		return errno == ENOMEM ? nomem(s) : die(s, "could not open object name list: %s", path);
	}
	uint8_t *v = realloc(s->skip, (s->nskip + len / (2 * s->rawsz + 1) + 1) * s->rawsz);
	if (v == NULL) {
		free(data);
		return nomem(s);
	}
	s->skip = v;
	const char *line;
	size_t n, pos = 0;
	while (skg_next_list_line(data, len, &pos, &line, &n)) {
		if (n != 2 * s->rawsz || !skg_from_hex_len(line, s->rawsz, s->skip + s->nskip * s->rawsz)) {
			die(s, "invalid object name: %.*s", (int)n, line);
			free(data);
			return 1;
		}
		s->nskip++;
	}
	free(data);
	qsort(s->skip, s->nskip, s->rawsz, skg_id_cmp(s->rawsz));
	return 0;
}

/* fsck_set_msg_types: tokens between ' ', ',' and '|'; the name before '=' or ':' lowercased. */
static int parse_args(struct skg_strict *s, const char *args)
{
	char *buf = strdup(args), *p = buf;
	if (buf == NULL) {
		return nomem(s);
	}
	int rc = 0;
	bool done = false;
	while (!done && rc == 0) {
		size_t len = strcspn(p, " ,|"), eq;
		done = p[len] == '\0';
		if (len == 0) {
			p++;
			continue;
		}
		p[len] = '\0';
		for (eq = 0; eq < len && p[eq] != '=' && p[eq] != ':'; eq++) {
			p[eq] = (char)(skg_isupper((unsigned char)p[eq]) ? p[eq] - 'A' + 'a' : p[eq]);
		}
		p[eq] = '\0';
		if (strcmp(p, "skiplist") == 0) {
			rc = eq == len ? die(s, "skiplist requires a path") : read_skiplist(s, p + eq + 1);
		} else if (eq == len) {
			rc = die(s, "Missing '=': '%s'", p);
		} else {
			enum skg_fsck_set_result r = skg_fsck_set_severity(&s->fopt, p, p + eq + 1);
			if (r != SKG_FSCK_SET_OK) {
				char m[512];
				skg_fsck_set_error_format(m, sizeof(m), r, p, p + eq + 1);
				rc = die(s, "%s", m);
			}
		}
		p += len + 1;
	}
	free(buf);
	return rc;
}

int skg_strict_new(struct skg_strict **out, const struct skg_pk_pack *pack, unsigned rawsz, const char *args,
                   const char *objects_dir, bool in_repo, unsigned git_version, const struct skg_sink *sink,
                   struct skg_error *err)
{
	*out = NULL;
	struct skg_strict *s = calloc(1, sizeof(*s));
	if (s == NULL) {
		return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	if (pthread_mutex_init(&s->lock, NULL) != 0) {
		free(s);
		return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	s->pack = pack;
	s->rawsz = rawsz == SKG_MAX_RAWSZ ? SKG_MAX_RAWSZ : SKG_RAWSZ;
	s->ostride = s->rawsz + 2;
	s->table.rawsz = s->rawsz;
	s->objects_dir = objects_dir;
	s->in_repo = in_repo;
	s->git_version = git_version;
	s->fsck = s->walk = true;
	if (sink != NULL) {
		s->sink = *sink;
	}
	/* FSCK_OPTIONS_MISSING_GITMODULES: strict */
	skg_fsck_options_init(&s->fopt, true);
	s->fopt.rawsz = s->rawsz;
	/* git 2.55's index-pack runs 2.55's fsck checks: dates, largePathname, tag gpgsig */
	s->fopt.date_digits = s->fopt.newer_checks = git_version >= SKG_GIT_2_55;
	if (args != NULL && parse_args(s, args) != 0) {
		skg_strict_error(s, err);
		skg_strict_free(s);
		return -1;
	}
	*out = s;
	return 0;
}

void skg_strict_on_map(struct skg_strict *s,
                       void (*on_map)(void *ctx, const void *addr, uint64_t len, const char *path,
                                      bool mapped),
                       void *map_ctx)
{
	s->on_map = on_map;
	s->map_ctx = map_ctx;
}

void skg_strict_parts(struct skg_strict *s, bool fsck, bool walk)
{
	s->fsck = fsck;
	s->walk = walk;
}

uint64_t skg_strict_foreign(const struct skg_strict *s)
{
	return s->foreign;
}

void skg_strict_free(struct skg_strict *s)
{
	if (s == NULL) {
		return;
	}
	pthread_mutex_destroy(&s->lock);
	free(s->skip);
	free(s->objs);
	skg_objtab_free(&s->table);
	free(s->special);
	free(s->links);
	skg_grafts_free(&s->grafts);
	skg_odb_free(s->odb);
	free(s->odb_lines);
	free(s);
}

/* advice.graftFileDeprecated (git_default_advice_config): *(bool *)ctx false when it is false */
static int graft_advice_cb(void *ctx, const char *key, const char *value)
{
	if (strcmp(key, "advice.graftfiledeprecated") == 0) {
		*(bool *)ctx = skg_config_bool(value) != 0;
	}
	return 0;
}

void skg_strict_grafts(struct skg_strict *s, const struct skg_repo *repo)
{
	s->repo = repo;
	if (!s->walk || repo == NULL) {
		return;
	}
	bool hint = true;
	struct skg_error cerr;
	(void)skg_repo_config(repo, graft_advice_cb, &hint, &cerr); /* a bad file: the caller's error */
	s->graft_repo = repo;
	s->hint_git = hint ? s->git_version : 0;
}

/* The grafts, read where git's first commit parse reads them (commit.c prepare_commit_graft):
 * 0, or 1 where git dies (a bad shallow line) or memory ran out. */
static int read_grafts(struct skg_strict *s)
{
	const struct skg_repo *repo = s->graft_repo;
	s->graft_repo = NULL;
	struct skg_error err;
	if (skg_repo_grafts(repo, s->hint_git, &s->grafts, &s->sink, &err) == 0) {
		return 0;
	}
	return err.code == SKG_E_NOMEM ? nomem(s) : die(s, "%s", err.msg);
}

/* ---- git's object table -------------------------------------------------------------------- */

static uint8_t *obj_id(const struct skg_strict *s, int64_t k)
{
	return s->objs + (size_t)k * s->ostride;
}

static uint8_t *obj_type(const struct skg_strict *s, int64_t k)
{
	return obj_id(s, k) + s->rawsz;
}

static uint8_t *obj_flags(const struct skg_strict *s, int64_t k)
{
	return obj_id(s, k) + s->rawsz + 1;
}

/* lookup_object: the index of id's object or -1 (objtab.h). */
static int64_t lookup(struct skg_strict *s, const uint8_t *id)
{
	return s->nobjs == 0 ? -1 : skg_objtab_lookup(&s->table, s->objs, s->ostride, id);
}

/* create_object: a new object, into git's table (objtab.h). -2 when out of memory. */
static int64_t create(struct skg_strict *s, const uint8_t *id, unsigned type)
{
	if (s->nobjs == s->capobjs) {
		uint32_t cap = s->capobjs < 64 ? 64 : 2 * s->capobjs;
		uint8_t *v = realloc(s->objs, cap * s->ostride);
		if (v == NULL) {
			return -2;
		}
		s->objs = v;
		s->capobjs = cap;
	}
	memcpy(obj_id(s, s->nobjs), id, s->rawsz);
	*obj_type(s, s->nobjs) = (uint8_t)type;
	*obj_flags(s, s->nobjs) = 0;
	if (skg_objtab_add(&s->table, s->objs, s->ostride, s->nobjs) != 0) {
		return -2;
	}
	return s->nobjs++;
}

/* lookup_tree, lookup_blob, ...: the object of that type, created if new; -1 (git's error line
 * printed) when it exists with another type; -2 out of memory. */
static int64_t lookup_type(struct skg_strict *s, const uint8_t *id, unsigned type)
{
	int64_t k = lookup(s, id);
	if (k < 0) {
		return create(s, id, type);
	}
	if (*obj_type(s, k) != type) {
		char h[SKG_MAX_HEXSZ + 1];
		emit(s, SKG_LEVEL_ERROR, NULL, SKG_NONE, NULL, "object %s is a %s, not a %s", hex(s, id, h),
		     skg_type_name(*obj_type(s, k)), skg_type_name(type));
		return -1;
	}
	return k;
}

/* ---- The checks of one object ---------------------------------------------------------------- */

/* Without do_fsck_object (--check-self-contained-and-connected): fsck_tree runs for its links only. */
static void ignore_finding(void *ctx, const struct skg_fsck_finding *f)
{
	(void)ctx;
	(void)f;
}

/* fsck_error_function: "object X: msgId: text" as a warning or an error; the tree decoder's cause
 * line first. Findings about an object on the skip list are dropped (report()). */
static void on_finding(void *ctx, const struct skg_fsck_finding *f)
{
	struct skg_strict *s = ctx;
	if (f->cause != NULL) {
		emit(s, SKG_LEVEL_ERROR, NULL, SKG_NONE, NULL, "%s", f->cause);
	}
	if (f->severity == SKG_FSCK_IGNORE || s->cur_skipped) {
		return;
	}
	char h[SKG_MAX_HEXSZ + 1];
	const char *name = skg_fsck_msg_name(f->msg);
	enum skg_level level = f->severity == SKG_FSCK_WARN ? SKG_LEVEL_WARNING : SKG_LEVEL_ERROR;
	if (f->msg == SKG_FSCK_GITMODULES_MISSING) {
		/* fsck_error_cb_print_missing_gitmodules: the ID on stdout, not an error */
		emit(s, SKG_LEVEL_OUTPUT, name, f->type, f->id, "%s", hex(s, f->id, h));
		return;
	}
	emit(s, level, name, f->type, f->id, "object %s: %s: %s%.*s", hex(s, f->id, h), name, f->detail,
	     f->arg != NULL ? (int)f->arg_len : 0, f->arg != NULL ? f->arg : "");
}

static struct special *find_special(struct skg_strict *s, const uint8_t *id)
{
	for (uint32_t j = 0; j < s->nspecial; j++) {
		if (memcmp(s->special[j].id, id, s->rawsz) == 0) {
			return &s->special[j];
		}
	}
	return NULL;
}

/* fsck_tree's gitmodules_found / gitattributes_found. */
static void on_found(void *ctx, enum skg_fsck_special kind, const uint8_t *id)
{
	struct skg_strict *s = ctx;
	struct special *sp = find_special(s, id);
	if (sp == NULL) {
		if (s->nspecial == s->capspecial) {
			uint32_t cap = s->capspecial < 16 ? 16 : 2 * s->capspecial;
			struct special *v = realloc(s->special, cap * sizeof(*v));
			if (v == NULL) {
				s->nomem = true;
				return;
			}
			s->special = v;
			s->capspecial = cap;
		}
		sp = &s->special[s->nspecial++];
		memset(sp, 0, sizeof(*sp));
		memcpy(sp->id, id, s->rawsz);
	}
	sp->kinds |= (uint8_t)kind;
}

static void add_link(struct skg_strict *s, uint32_t mode, const uint8_t *id)
{
	if (s->nlinks == s->caplinks) {
		size_t cap = s->caplinks < 64 ? 64 : 2 * s->caplinks;
		struct link *v = realloc(s->links, cap * sizeof(*v));
		if (v == NULL) {
			s->nomem = true;
			return;
		}
		s->links = v;
		s->caplinks = cap;
	}
	s->links[s->nlinks].mode = mode;
	memcpy(s->links[s->nlinks].id, id, s->rawsz);
	s->nlinks++;
}

static void on_tree_link(void *ctx, uint32_t mode, const char *name, size_t name_len, const uint8_t *id)
{
	(void)name;
	(void)name_len;
	add_link(ctx, mode, id);
}

static void on_parent(void *ctx, const uint8_t *id)
{
	add_link(ctx, 0, id);
}

/* mark_link on an object the walk looked up: -1 when the lookup failed (git's walk stops). */
static int mark(struct skg_strict *s, const uint8_t *id, unsigned type)
{
	int64_t k = lookup_type(s, id, type);
	if (k == -2) {
		s->nomem = true;
		return 0;
	}
	if (k < 0) {
		return -1;
	}
	*obj_flags(s, k) |= F_LINK;
	return 0;
}

static int check_blob(struct skg_strict *s, const uint8_t *id, const uint8_t *data, uint64_t len)
{
	char h[SKG_MAX_HEXSZ + 1];
	int64_t k = lookup_type(s, id, SKG_BLOB);
	if (k == -2) {
		return nomem(s);
	}
	if (k < 0) {
		return die(s, "invalid blob object %s", hex(s, id, h));
	}
	*obj_flags(s, k) |= F_CHECKED;
	if (!s->fsck) {
		return 0;
	}
	/* fsck_blob: only a blob a tree named before; not for one on the skip list */
	struct special *sp = find_special(s, id);
	unsigned kinds = sp != NULL ? sp->kinds & (uint8_t)~sp->done : 0;
	if (kinds == 0 || skipped(s, id)) {
		return 0;
	}
	sp->done |= (uint8_t)kinds;
	s->cur_skipped = false;
	int rc =
	    skg_fsck_special_blob(kinds, id, data, data != NULL ? (size_t)len : 0, &s->fopt, on_finding, s);
	return rc != 0 ? die(s, "fsck error in packed object") : 0;
}

static int check_other(struct skg_strict *s, unsigned type, const uint8_t *id, const uint8_t *data,
                       uint64_t len)
{
	char h[SKG_MAX_HEXSZ + 1], h2[SKG_MAX_HEXSZ + 1];
	const char *tname = skg_type_name(type);
	int64_t k = lookup_type(s, id, type);
	if (k == -2) {
		return nomem(s);
	}
	if (k < 0) {
		return die(s, "invalid %s", tname);
	}
	s->nlinks = 0;
	s->cur_id = id;
	s->cur_skipped = skipped(s, id);
	struct skg_fsck_options fo = s->fopt;
	fo.found = s->fsck ? on_found : NULL; /* the special blobs: fsck_tree's, with do_fsck_object */
	int rc;
	uint8_t target[SKG_MAX_RAWSZ];
	unsigned target_type = SKG_NONE;
	bool walk_fails = false;
	bool grafted = false;
	if (type == SKG_TREE) {
		/* parse_tree_buffer cannot fail; fsck_tree, and the walk's links in the same decode */
		enum skg_tree_error walk_error;
		struct skg_tree_iter it;
		bool first_fails = skg_tree_iter_init(&it, data, (size_t)len, s->rawsz) != SKG_TREE_OK;
		/* without do_fsck_object, the decode for the walk's links only: no finding */
		rc = skg_fsck_tree(id, data, (size_t)len, &fo, s->fsck ? on_finding : ignore_finding, s,
		                   on_tree_link, s, &walk_error);
		if (s->nomem) {
			return nomem(s);
		}
		if (rc != 0 && !s->cur_skipped && s->fsck) {
			return die(s, "fsck error in packed object");
		}
		if (!s->walk) {
			s->nlinks = 0; /* fsck_walk is strict's */
		}
		if (walk_error != SKG_TREE_OK && s->walk) {
			/* the walk decodes the tree again and says so (init_tree_desc_gently,
			 * tree_entry_gently); a first entry that does not decode fails the walk */
			emit(s, SKG_LEVEL_ERROR, NULL, SKG_NONE, NULL, "%s", skg_tree_error_text(walk_error));
			walk_fails = first_fails;
		}
		for (size_t i = 0; i < s->nlinks && !walk_fails; i++) {
			uint32_t m = s->links[i].mode & 0170000;
			if (m == 0160000) {
				continue; /* gitlinks are not walked */
			}
			walk_fails = mark(s, s->links[i].id, m == 0040000 ? SKG_TREE : SKG_BLOB) < 0;
		}
	} else {
		if (type == SKG_COMMIT) {
			enum skg_parse_result pr =
			    skg_commit_links(data, (size_t)len, s->rawsz, target, on_parent, s);
			if (pr != SKG_PARSE_OK) {
				char m[256];
				if (skg_parse_error_format(m, sizeof(m), pr, id, s->rawsz, NULL) > 0) {
					emit(s, SKG_LEVEL_ERROR, NULL, SKG_NONE, NULL, "%s", m);
				}
				return die(s, "invalid %s", tname);
			}
			target_type = SKG_TREE;
			if (s->graft_repo != NULL && read_grafts(s) != 0) {
				return 1;
			}
			/* parse_commit_buffer: a grafted commit's parents are its graft's (none for a
			 * shallow one), its own are not looked up */
			const struct skg_graft *gr =
			    s->grafts.n > 0 && !s->nomem ? skg_graft_find(&s->grafts, id) : NULL;
			if (gr != NULL) {
				s->nlinks = 0;
				for (size_t i = 0; i < gr->nparents; i++) {
					add_link(s, 0, gr->parents + i * s->rawsz);
				}
				grafted = true;
			}
		} else if (type == SKG_TAG) {
			struct skg_tag_links tl;
			enum skg_parse_result pr = skg_tag_links(data, (size_t)len, s->rawsz, &tl);
			if (pr != SKG_PARSE_OK) {
				char m[256];
				if (skg_parse_error_format(m, sizeof(m), pr, id, s->rawsz, &tl) > 0) {
					emit(s, SKG_LEVEL_ERROR, NULL, SKG_NONE, NULL, "%s", m);
				}
				return die(s, "invalid %s", tname);
			}
			memcpy(target, tl.object, s->rawsz);
			target_type = tl.type;
		}
		if (s->nomem) {
			return nomem(s);
		}
		if (target_type != SKG_NONE && !(*obj_flags(s, k) & F_PARSED)) {
			/* the lookups of parse_commit_buffer / parse_tag_buffer */
			int64_t t = lookup_type(s, target, target_type);
			if (t == -2) {
				return nomem(s);
			}
			if (t < 0) {
				if (type == SKG_COMMIT) {
					emit(s, SKG_LEVEL_ERROR, NULL, SKG_NONE, NULL,
					     "bad tree pointer %s in commit %s", hex(s, target, h),
					     hex(s, id, h2));
				} else {
					emit(s, SKG_LEVEL_ERROR, NULL, SKG_NONE, NULL,
					     "bad tag pointer to %s in %s", hex(s, target, h),
					     hex(s, id, h2));
				}
				return die(s, "invalid %s", tname);
			}
			/* a parent of another type: "bad parent X in commit C" (a graft's parents are
			 * looked up without a word) */
			for (size_t i = 0; i < s->nlinks && !grafted; i++) {
				int64_t p = lookup_type(s, s->links[i].id, SKG_COMMIT);
				if (p == -2) {
					return nomem(s);
				}
				if (p < 0) {
					emit(s, SKG_LEVEL_ERROR, NULL, SKG_NONE, NULL,
					     "bad parent %s in commit %s", hex(s, s->links[i].id, h),
					     hex(s, id, h2));
					return die(s, "invalid %s", tname);
				}
			}
			*obj_flags(s, k) |= F_PARSED;
		}
		rc = s->fsck ? skg_fsck_object(type, id, data, (size_t)len, &fo, on_finding, s) : 0;
		if (rc != 0 && !s->cur_skipped) {
			return die(s, "fsck error in packed object");
		}
		if (target_type != SKG_NONE && s->walk) {
			walk_fails = mark(s, target, target_type) < 0;
			for (size_t i = 0; i < s->nlinks && !walk_fails; i++) {
				walk_fails = mark(s, s->links[i].id, SKG_COMMIT) < 0;
			}
		}
	}
	if (s->nomem) {
		return nomem(s);
	}
	if (walk_fails) {
		return die(s, "Not all child objects of %s are reachable", hex(s, id, h));
	}
	*obj_flags(s, k) |= F_CHECKED;
	return 0;
}

int skg_strict_object(void *ctx, uint32_t i, unsigned type, const uint8_t *data, uint64_t len)
{
	struct skg_strict *s = ctx;
	pthread_mutex_lock(&s->lock);
	const uint8_t *id = s->pack->objs[i].id;
	static const uint8_t empty[1] = {0};
	int rc;
	if (s->code != 0) {
		rc = 1; /* another thread stopped the run */
	} else if (type == SKG_BLOB) {
		rc = check_blob(s, id, data, len);
	} else {
		rc = check_other(s, type, id, data != NULL ? data : empty, data != NULL ? len : 0);
	}
	pthread_mutex_unlock(&s->lock);
	return rc;
}

/* ---- After the pack ---------------------------------------------------------------------------- */

/* An object of the repository as git's odb_read_object_info / odb_read_object reads it: its own
 * object directory and its alternates (git's sources), else objects_dir alone (and the empty
 * tree, skg_odb_read). 1 with *type (and *data, *len when data is not NULL), 0 not there or not
 * readable, -1 out of memory. */
static int repo_read(struct skg_strict *s, const uint8_t *id, unsigned *type, uint8_t **data, size_t *len)
{
	if (s->repo != NULL && s->odb == NULL && !s->odb_failed) {
		static const struct skg_sink quiet = {NULL, NULL}; /* the alternates' lines: git's earlier */
		struct skg_error err;
		s->odb_lines = malloc(sizeof(*s->odb_lines));
		s->odb_failed = s->odb_lines == NULL || skg_odb_open_mapped(&s->odb, s->repo, &quiet,
		                                                            s->on_map, s->map_ctx, &err) != 0;
	}
	if (s->odb != NULL) {
		int has = skg_odb_has(s->odb, id);
		if (has < 0) {
			return -1;
		}
		uint64_t size = 0;
		skg_lines_clear(s->odb_lines);
		if (has > 0 && skg_odb_info(s->odb, id, type, &size, s->odb_lines) == SKG_STORED_OK &&
		    (data == NULL || skg_odb_content(s->odb, id, data, len, s->odb_lines) == SKG_STORED_OK)) {
			return 1;
		}
		if (s->odb_lines->nomem) {
			return -1;
		}
	}
	return skg_odb_read(s->objects_dir, s->rawsz, id, type, data, len, s->on_map, s->map_ctx);
}

int skg_strict_links(struct skg_strict *s, struct skg_error *err)
{
	char h[SKG_MAX_HEXSZ + 1];
	if (!s->walk) {
		return 0; /* check_objects is strict's */
	}
	for (uint32_t i = 0; i < s->table.size; i++) {
		if (s->table.slot[i] == 0) {
			continue;
		}
		uint32_t k = s->table.slot[i] - 1;
		const uint8_t *oid = obj_id(s, k);
		if (!(*obj_flags(s, k) & F_LINK) || (*obj_flags(s, k) & F_CHECKED)) {
			continue;
		}
		unsigned type = SKG_NONE;
		int found = repo_read(s, oid, &type, NULL, NULL);
		if (found < 0) {
			nomem(s);
		} else if (found == 0) {
			die(s, "did not receive expected object %s", hex(s, oid, h));
		} else if (type != *obj_type(s, k)) {
			die(s, "object %s: expected type %s, found %s", hex(s, oid, h),
			    skg_type_name(*obj_type(s, k)), skg_type_name(type));
		} else {
			*obj_flags(s, k) |= F_CHECKED;
			s->foreign++;
			continue;
		}
		skg_strict_error(s, err);
		return -1;
	}
	return 0;
}

/* A special blob to check at the end: from the pack (installed by git before fsck_finish) or the
 * repository. 1 with *type and *data; 0 not found; -1 out of memory. */
static int read_special(struct skg_strict *s, bool installed, const uint8_t *id, uint8_t **idx,
                        size_t *idx_len, unsigned *type, uint8_t **data, size_t *len)
{
	const struct skg_pk_pack *pk = s->pack;
	for (uint32_t i = 0; installed && i < pk->nr; i++) {
		if (memcmp(pk->objs[i].id, id, s->rawsz) != 0) {
			continue;
		}
		struct skg_pk_error pe;
		if (*idx == NULL &&
		    skg_pk_idx_build(pk, 2, SKG_PK_IDX_OFF32_LIMIT, false, idx, idx_len, &pe) != 0) {
			return -1;
		}
		uint64_t n = 0;
		int rc =
		    skg_pk_read_object_cached(pk->data, pk->len, *idx, *idx_len, pk->rawsz,
		                              pk->objs[i].offset, SIZE_MAX - 1, NULL, type, data, &n, &pe);
		*len = (size_t)n;
		return rc == 0 ? 1 : pe.code == SKG_E_NOMEM ? -1 : 0;
	}
	return repo_read(s, id, type, data, len);
}

int skg_strict_finish(struct skg_strict *s, bool installed, struct skg_error *err)
{
	uint8_t *idx = NULL;
	size_t idx_len = 0;
	int ret = 0;
	if (!s->fsck) {
		return 0; /* fsck_finish is do_fsck_object's */
	}
	/* git 2.53+ (8dc22e87f0 "builtin/index-pack: fix deferred fsck outside repos"): outside a
	 * repository, a blob still to check (fsck_has_queued_checks) ends it before fsck_finish */
	for (uint32_t j = 0; s->git_version >= SKG_GIT_2_55 && !s->in_repo && j < s->nspecial; j++) {
		if ((s->special[j].kinds & (uint8_t)~s->special[j].done) != 0) {
			die(s, "cannot perform queued object checks outside of a repository");
			skg_strict_error(s, err);
			return -1;
		}
	}
	/* fsck_blobs for .gitmodules, then for .gitattributes, each in its oidset's order */
	const uint8_t **ids = malloc((s->nspecial ? s->nspecial : 1) * sizeof(*ids));
	uint32_t *at = malloc((s->nspecial ? s->nspecial : 1) * sizeof(*at));
	if (ids == NULL || at == NULL) {
		free(ids);
		free(at);
		nomem(s);
		skg_strict_error(s, err);
		return -1;
	}
	for (unsigned kind = SKG_FSCK_GITMODULES; kind <= SKG_FSCK_GITATTRIBUTES && s->code == 0; kind++) {
		size_t k = 0, m = 0;
		uint32_t *order = NULL;
		for (uint32_t j = 0; j < s->nspecial; j++) {
			if (s->special[j].kinds & kind) {
				at[k] = j;
				ids[k++] = s->special[j].id;
			}
		}
		if (skg_oidset_order(ids, k, s->rawsz, &order, &m) != 0) {
			nomem(s);
			break;
		}
		for (size_t q = 0; q < m && s->code == 0; q++) {
			struct special *o = &s->special[at[order[q]]];
			if (o->done & kind) {
				continue;
			}
			unsigned type = SKG_NONE;
			uint8_t *data = NULL;
			size_t len = 0;
			int found = read_special(s, installed, o->id, &idx, &idx_len, &type, &data, &len);
			s->cur_skipped = skipped(s, o->id);
			if (found < 0) {
				nomem(s);
			} else if (found > 0 && type == SKG_BLOB) {
				/* fsck_blob: both kinds it was found as, unless on the skip list */
				unsigned kinds = o->kinds & (uint8_t)~o->done;
				if (!s->cur_skipped) {
					o->done |= (uint8_t)kinds;
					ret |= skg_fsck_special_blob(kinds, o->id, data, len, &s->fopt,
					                             on_finding, s) != 0;
				}
			} else if (!s->cur_skipped) {
				int r = skg_fsck_special_unreadable((enum skg_fsck_special)kind,
				                                    found > 0 ? type : SKG_NONE, o->id,
				                                    &s->fopt, on_finding, s);
				/* an unreadable .gitmodules is printed, not counted (its callback returns 0)
				 */
				ret |= r != 0 && !(found == 0 && kind == SKG_FSCK_GITMODULES);
			}
			free(data);
		}
		free(order);
	}
	free(ids);
	free(at);
	free(idx);
	if (s->code == 0 && ret != 0) {
		die(s, "fsck error in pack objects");
	}
	if (s->code != 0) {
		skg_strict_error(s, err);
		return -1;
	}
	return 0;
}
