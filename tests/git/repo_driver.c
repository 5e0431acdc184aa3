/*
 * repo_driver.c - command-line access to src/git/repo.h and refs.h for tests/git/test_repo.sh, which
 * compares the output with git's.
 *
 *   repo_driver discover [--git-dir D]      the repository's directories (one "name value" per line)
 *   repo_driver alternates                   alternate object directories, one per line
 *   repo_driver refs [--flags]               "<hex> <refname>[ <flags>]" per ref (for-each-ref order)
 *   repo_driver heads                        "<head_ref> <state> <hex> <target>" per worktree
 *   repo_driver reflogs                      "<refname> <path>" per reflog, every worktree
 *   repo_driver reflog PATH                  "<old> <new> <timestamp> <tz>\t<message>" per entry
 *   repo_driver resolve REF                  "<hex> <target> <flags>" or exit 1
 *   repo_driver index                        "<mode> <hex> <stage>\t<path>" (git ls-files -s)
 *   repo_driver index-info                   version, entry count, extensions
 *   repo_driver cache-tree                   "<hex>|invalid <entries> <subtrees> <path>" per node
 *   repo_driver resolve-undo                 "<mode> <hex> <stage>\t<path>" (git ls-files --resolve-undo)
 *   repo_driver config KEY                   the last value of KEY (exit 1 if unset)
 *   repo_driver config-list                  every entry "key=value" (git config --list)
 *   repo_driver config-file FILE             the entries of FILE (git config --file FILE --list)
 *   repo_driver check-ref-format [--allow-onelevel] [--refspec-pattern] NAME   exit 0 or 1
 *   repo_driver packed-refs FILE             "<hex> <refname> [^<peeled>] <flags>" per record
 *   repo_driver fsck-roots OBJECTS           what git fsck prints on stderr about refs, HEADs,
 *                                            reflogs and the index, given "<hex> <type>" lines of
 *                                            the objects that exist
 * Diagnostics go to stderr with git's prefixes; a fatal error prints "fatal: MSG", exit 128.
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "alternates.h"
#include "driver_env.h"
#include "index_file.h"
#include "reflog.h"
#include "refname.h"
#include "refs.h"
#include "repo.h"
#include "worktree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void report(void *ctx, const struct skg_report *r)
{
	enum skg_level level = r->level;
	int id = r->id;
	const char *msg = r->text;
	(void)ctx;
	(void)id;
	const char *prefix = skg_level_prefix(level);
	if (prefix != NULL) {
		fprintf(stderr, "%s%s\n", prefix, msg);
	}
}

static const struct skg_sink reporter = {report, NULL};

static int fatal(const struct skg_error *err)
{
	fflush(stdout);
	fprintf(stderr, "fatal: %s\n", err->msg);
	return 128;
}

/* the repository, with the format as the Git of SHA1KIT_GIT_VERSION checks it (driver_env.h) */
static struct skg_repo *open_repo(const char *git_dir, struct skg_error *err)
{
	struct skg_repo *repo;
	unsigned git_version;
	if (driver_git_version("repo_driver", &git_version) != 0) {
		exit(2);
	}
	if (skg_repo_open_as(&repo, git_dir, git_version, &reporter, err) != 0) {
		return NULL;
	}
	return repo;
}

static void hex(const uint8_t *id, char out[SKG_HEXSZ + 1])
{
	skg_to_hex(id, out);
}

/* ---- refs --------------------------------------------------------------------------------- */

static int print_ref(void *ctx, const char *refname, const uint8_t id[SKG_RAWSZ], unsigned flags)
{
	bool with_flags = *(bool *)ctx;
	char h[SKG_HEXSZ + 1];
	hex(id, h);
	if (with_flags) {
		printf("%s %s %s%s%s%s\n", h, refname, flags & SKG_REF_ISSYMREF ? "S" : "-",
		       flags & SKG_REF_ISPACKED ? "P" : "-", flags & SKG_REF_ISBROKEN ? "B" : "-",
		       flags & SKG_REF_BAD_NAME ? "N" : "-");
	} else {
		printf("%s %s\n", h, refname);
	}
	return 0;
}

static const char *head_state_name(enum skg_head_state s)
{
	switch (s) {
	case SKG_HEAD_BRANCH:
		return "branch";
	case SKG_HEAD_DETACHED:
		return "detached";
	case SKG_HEAD_UNBORN:
		return "unborn";
	case SKG_HEAD_INVALID:
		return "invalid";
	case SKG_HEAD_STRANGE:
		return "strange";
	case SKG_HEAD_DETACHED_NULL:
		return "detached-null";
	}
	return "?";
}

struct heads_ctx {
	struct skg_refdb *refs;
	struct skg_error *err;
	struct skg_head head;
};

static int print_head(void *vctx, const struct skg_worktree *wt)
{
	struct heads_ctx *c = vctx;
	if (skg_check_head(c->refs, wt->head_ref, &c->head, &reporter, c->err) != 0) {
		return -1;
	}
	char h[SKG_HEXSZ + 1];
	hex(c->head.id, h);
	printf("%s %s %s %s%s\n", wt->head_ref, head_state_name(c->head.state), h,
	       skg_buf_str(&c->head.target), c->head.is_root ? " root" : "");
	return 0;
}

static int print_reflog_name(void *ctx, const char *refname, const char *path)
{
	(void)ctx;
	printf("%s %s\n", refname, path != NULL ? path : "(reftable)");
	return 0;
}

struct reflogs_ctx {
	struct skg_refdb *refs;
	struct skg_error *err;
};

static int list_reflogs(void *vctx, const struct skg_worktree *wt)
{
	struct reflogs_ctx *c = vctx;
	return skg_for_each_reflog(c->refs, wt, print_reflog_name, NULL, &reporter, c->err);
}

static int print_reflog_entry(void *ctx, const struct skg_reflog_entry *e)
{
	(void)ctx;
	char o[SKG_HEXSZ + 1], n[SKG_HEXSZ + 1];
	hex(e->old_id, o);
	hex(e->new_id, n);
	printf("%s %s %llu %+05d\t%s\n", o, n, (unsigned long long)e->timestamp, e->tz, e->message);
	return 0;
}

/* ---- index -------------------------------------------------------------------------------- */

static int print_entry(void *ctx, const struct skg_index_entry *e)
{
	(void)ctx;
	char h[SKG_HEXSZ + 1];
	hex(e->id, h);
	printf("%06o %s %u\t%s\n", e->mode, h, e->stage, e->path);
	return 0;
}

static int print_tree(void *ctx, const char *path, int entries, int subtrees, const uint8_t *id,
                      bool *descend)
{
	(void)ctx;
	(void)descend;
	char h[SKG_HEXSZ + 1] = "invalid";
	if (id != NULL) {
		hex(id, h);
	}
	printf("%s %d %d %s\n", h, entries, subtrees, path);
	return 0;
}

static int print_reuc(void *ctx, const char *path, const uint32_t mode[3], const uint8_t *const id[3])
{
	(void)ctx;
	for (int i = 0; i < 3; i++) {
		if (mode[i]) {
			char h[SKG_HEXSZ + 1];
			hex(id[i], h);
			printf("%06o %s %d\t%s\n", mode[i], h, i + 1, path);
		}
	}
	return 0;
}

/* ---- config ------------------------------------------------------------------------------- */

struct get_ctx {
	const char *key;
	char *value;
	bool found, null_value;
};

static int get_cb(void *vctx, const char *key, const char *value)
{
	struct get_ctx *c = vctx;
	if (strcmp(key, c->key) == 0) {
		free(c->value);
		c->value = value ? strdup(value) : NULL;
		c->null_value = value == NULL;
		c->found = true;
	}
	return 0;
}

static int list_cb(void *ctx, const char *key, const char *value)
{
	(void)ctx;
	if (value == NULL) {
		printf("%s\n", key);
	} else {
		printf("%s=%s\n", key, value);
	}
	return 0;
}

/* ---- packed-refs -------------------------------------------------------------------------- */

static int print_packed(void *ctx, const char *refname, const uint8_t id[SKG_RAWSZ], const uint8_t *peeled,
                        unsigned flags)
{
	(void)ctx;
	char h[SKG_HEXSZ + 1], p[SKG_HEXSZ + 1] = "";
	hex(id, h);
	if (peeled != NULL) {
		hex(peeled, p);
	}
	printf("%s %s %s%s%s\n", h, refname, peeled ? "^" : "", p, flags & SKG_REF_ISBROKEN ? " broken" : "");
	return 0;
}

/* ---- fsck-roots: git fsck's stderr for refs, HEADs, reflogs and the index ------------------- */

struct obj {
	uint8_t id[SKG_RAWSZ];
	char type[8];
};

struct fsck_ctx {
	struct skg_refdb *refs;
	struct skg_error *err;
	struct obj *objs;
	size_t nobjs;
	int default_refs;
	const char *reflog_name;
	struct skg_head head;
};

static int obj_cmp(const void *a, const void *b)
{
	return memcmp(((const struct obj *)a)->id, ((const struct obj *)b)->id, SKG_RAWSZ);
}

static const struct obj *find_obj(const struct fsck_ctx *c, const uint8_t id[SKG_RAWSZ])
{
	struct obj key;
	memcpy(key.id, id, SKG_RAWSZ);
	return bsearch(&key, c->objs, c->nobjs, sizeof(key), obj_cmp);
}

static bool is_null(const uint8_t id[SKG_RAWSZ])
{
	static const uint8_t z[SKG_RAWSZ];
	return memcmp(id, z, SKG_RAWSZ) == 0;
}

/* builtin/fsck.c fsck_handle_ref */
static int fsck_ref(void *vctx, const char *refname, const uint8_t id[SKG_RAWSZ], unsigned flags)
{
	(void)flags;
	struct fsck_ctx *c = vctx;
	const struct obj *o = find_obj(c, id);
	char h[SKG_HEXSZ + 1];
	hex(id, h);
	if (o == NULL) {
		fprintf(stderr, "error: %s: invalid sha1 pointer %s\n", refname, h);
		return 0;
	}
	bool is_branch = strcmp(refname, "HEAD") == 0 || strncmp(refname, "refs/heads/", 11) == 0;
	if (strcmp(o->type, "commit") != 0 && is_branch) {
		fprintf(stderr, "error: %s: not a commit\n", refname);
	}
	c->default_refs++;
	return 0;
}

static void fsck_reflog_id(struct fsck_ctx *c, const uint8_t id[SKG_RAWSZ])
{
	if (!is_null(id) && find_obj(c, id) == NULL) {
		char h[SKG_HEXSZ + 1];
		hex(id, h);
		fprintf(stderr, "error: %s: invalid reflog entry %s\n", c->reflog_name, h);
	}
}

static int fsck_reflog_entry(void *vctx, const struct skg_reflog_entry *e)
{
	struct fsck_ctx *c = vctx;
	fsck_reflog_id(c, e->old_id);
	fsck_reflog_id(c, e->new_id);
	return 0;
}

static int fsck_reflog(void *vctx, const char *refname, const char *path)
{
	struct fsck_ctx *c = vctx;
	c->reflog_name = refname;
	return skg_reflog_entries(c->refs, refname, path, fsck_reflog_entry, c, &reporter, c->err);
}

static int fsck_worktree(void *vctx, const struct skg_worktree *wt)
{
	struct fsck_ctx *c = vctx;
	if (skg_check_head(c->refs, wt->head_ref, &c->head, &reporter, c->err) != 0) {
		return -1;
	}
	if (c->head.is_root) {
		fsck_ref(c, wt->head_ref, c->head.id, c->head.flags);
	}
	return skg_for_each_reflog(c->refs, wt, fsck_reflog, c, &reporter, c->err);
}

static int fsck_tree(void *vctx, const char *path, int entries, int subtrees, const uint8_t *id,
                     bool *descend)
{
	(void)path;
	(void)subtrees;
	struct fsck_ctx *c = vctx;
	if (entries < 0) {
		return 0;
	}
	const struct obj *o = find_obj(c, id);
	char h[SKG_HEXSZ + 1];
	hex(id, h);
	if (o == NULL) {
		fprintf(stderr, "error: %s: invalid sha1 pointer in cache-tree\n", h);
		*descend = false;
		return 0;
	}
	if (strcmp(o->type, "tree") != 0) {
		fprintf(stderr, "error in %s %s: non-tree in cache-tree\n", o->type, h);
	}
	return 0;
}

static int fsck_reuc(void *vctx, const char *path, const uint32_t mode[3], const uint8_t *const id[3])
{
	(void)path;
	struct fsck_ctx *c = vctx;
	for (int i = 0; i < 3; i++) {
		if (!mode[i] || (mode[i] & 0170000) != 0100000) {
			continue;
		}
		if (find_obj(c, id[i]) == NULL) {
			char h[SKG_HEXSZ + 1];
			hex(id[i], h);
			fprintf(stderr, "error: %s: invalid sha1 pointer in resolve-undo\n", h);
		}
	}
	return 0;
}

static int fsck_roots(struct skg_repo *repo, struct skg_refdb *refs, const char *objects,
                      struct skg_error *err)
{
	struct fsck_ctx c = {.refs = refs, .err = err};
	FILE *f = fopen(objects, "r");
	if (f == NULL) {
		perror(objects);
		return 1;
	}
	char line[256];
	size_t cap = 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		uint8_t id[SKG_RAWSZ];
		if (strlen(line) < SKG_HEXSZ + 2 || !skg_from_hex(line, id)) {
			continue;
		}
		if (c.nobjs == cap) {
			cap = cap ? cap * 2 : 256;
			c.objs = realloc(c.objs, cap * sizeof(*c.objs));
			if (c.objs == NULL) {
				return 1;
			}
		}
		memcpy(c.objs[c.nobjs].id, id, SKG_RAWSZ);
		snprintf(c.objs[c.nobjs].type, sizeof(c.objs[c.nobjs].type), "%.*s",
		         (int)strcspn(line + SKG_HEXSZ + 1, " \n"), line + SKG_HEXSZ + 1);
		c.nobjs++;
	}
	fclose(f);
	qsort(c.objs, c.nobjs, sizeof(*c.objs), obj_cmp);
	int ret = skg_for_each_ref(refs, fsck_ref, &c, err);
	if (ret == 0) {
		ret = skg_for_each_worktree(repo, fsck_worktree, &c, &reporter, err);
	}
	if (ret == 0 && !c.default_refs) {
		fprintf(stderr, "notice: No default references\n");
	}
	if (ret == 0) {
		struct skg_index_callbacks cb = {
		    .cache_tree = fsck_tree, .resolve_undo = fsck_reuc, .ctx = &c};
		ret = skg_read_index(repo, &cb, NULL, &reporter, err);
	}
	skg_buf_release(&c.head.target);
	free(c.objs);
	return ret < 0 ? fatal(err) : 0;
}

/* ---- main --------------------------------------------------------------------------------- */

static int usage(void)
{
	fprintf(stderr,
	        "usage: repo_driver discover|alternates|refs|heads|reflogs|reflog|resolve|index|index-info|"
	        "cache-tree|resolve-undo|config|config-list|check-ref-format|packed-refs|fsck-roots ...\n");
	return 2;
}

static int alt_cb(void *ctx, const char *dir)
{
	(void)ctx;
	printf("%s\n", dir);
	return 0;
}

int main(int argc, char **argv)
{
#ifdef _WIN32
	skg_os_init(); /* binary standard streams and files (src/git/os_win.h) */
#endif
	struct skg_error err = {0};
	if (argc < 2) {
		return usage();
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "check-ref-format") == 0) {
		unsigned flags = 0;
		int i = 2;
		for (; i < argc - 1; i++) {
			if (strcmp(argv[i], "--allow-onelevel") == 0) {
				flags |= SKG_REFNAME_ALLOW_ONELEVEL;
			} else if (strcmp(argv[i], "--refspec-pattern") == 0) {
				flags |= SKG_REFNAME_REFSPEC_PATTERN;
			} else {
				return usage();
			}
		}
		return i < argc && skg_refname_ok(argv[i], flags) ? 0 : 1;
	}
	if (strcmp(cmd, "config-file") == 0) {
		if (argc != 3) {
			return usage();
		}
		return skg_config_read_file(argv[2], argv[2], list_cb, NULL, &err) ? fatal(&err) : 0;
	}
	if (strcmp(cmd, "packed-refs") == 0 || strcmp(cmd, "reflog") == 0) {
		if (argc != 3) {
			return usage();
		}
		if (strcmp(cmd, "reflog") == 0) {
			return skg_for_each_reflog_entry(argv[2], SKG_RAWSZ, print_reflog_entry, NULL,
			                                 &reporter, &err)
			           ? fatal(&err)
			           : 0;
		}
		char *data;
		size_t len;
		if (skg_read_file(argv[2], (size_t)1 << 30, &data, &len) != 0) {
			perror(argv[2]);
			return 1;
		}
		int r = skg_packed_refs_parse(data, len, argv[2], SKG_RAWSZ, print_packed, NULL, &err);
		free(data);
		return r ? fatal(&err) : 0;
	}

	const char *git_dir = NULL;
	int argi = 2;
	if (strcmp(cmd, "discover") == 0 && argc >= 4 && strcmp(argv[2], "--git-dir") == 0) {
		git_dir = argv[3];
		argi = 4;
	}
	struct skg_repo *repo = open_repo(git_dir, &err);
	if (repo == NULL) {
		return fatal(&err);
	}
	struct skg_refdb refs;
	skg_refdb_init(&refs, repo);
	int ret = 0;
	if (strcmp(cmd, "discover") == 0) {
		printf("git_dir %s\ncommon_dir %s\nobjects_dir %s\nbare %s\nwork_tree %s\nindex_file %s\n",
		       repo->git_dir, repo->common_dir, repo->objects_dir, repo->bare ? "true" : "false",
		       repo->work_tree ? repo->work_tree : "(none)", repo->index_file);
		printf(
		    "git_dir_display %s\ncommon_dir_display %s\nobjects_dir_display %s\nformat_version %d\n",
		    repo->git_dir_display, repo->common_dir_display, repo->objects_dir_display,
		    repo->format_version);
	} else if (strcmp(cmd, "alternates") == 0) {
		ret = skg_for_each_alternate(repo, alt_cb, NULL, &reporter, &err) ? fatal(&err) : 0;
	} else if (strcmp(cmd, "refs") == 0) {
		bool with_flags = argc > argi && strcmp(argv[argi], "--flags") == 0;
		ret = skg_for_each_ref(&refs, print_ref, &with_flags, &err) ? fatal(&err) : 0;
	} else if (strcmp(cmd, "heads") == 0) {
		struct heads_ctx c = {.refs = &refs, .err = &err};
		ret = skg_for_each_worktree(repo, print_head, &c, &reporter, &err) ? fatal(&err) : 0;
		skg_buf_release(&c.head.target);
	} else if (strcmp(cmd, "reflogs") == 0) {
		struct reflogs_ctx c = {.refs = &refs, .err = &err};
		ret = skg_for_each_worktree(repo, list_reflogs, &c, &reporter, &err) ? fatal(&err) : 0;
	} else if (strcmp(cmd, "resolve") == 0 && argc > argi) {
		uint8_t id[SKG_RAWSZ];
		struct skg_buf target = {0};
		unsigned flags;
		int r = skg_resolve_ref(&refs, argv[argi], SKG_RESOLVE_READING, id, &target, &flags, &err);
		if (r < 0) {
			ret = fatal(&err);
		} else if (r == 0) {
			ret = 1;
		} else {
			char h[SKG_HEXSZ + 1];
			hex(id, h);
			printf("%s %s %x\n", h, skg_buf_str(&target), flags);
		}
		skg_buf_release(&target);
	} else if (strcmp(cmd, "index") == 0 || strcmp(cmd, "cache-tree") == 0 ||
	           strcmp(cmd, "resolve-undo") == 0 || strcmp(cmd, "index-info") == 0) {
		struct skg_index_callbacks cb = {0};
		if (strcmp(cmd, "index") == 0) {
			cb.entry = print_entry;
		} else if (strcmp(cmd, "cache-tree") == 0) {
			cb.cache_tree = print_tree;
		} else if (strcmp(cmd, "resolve-undo") == 0) {
			cb.resolve_undo = print_reuc;
		}
		struct skg_index_info info;
		ret = skg_read_index(repo, &cb, &info, &reporter, &err) ? fatal(&err) : 0;
		if (ret == 0 && strcmp(cmd, "index-info") == 0) {
			char h[SKG_HEXSZ + 1];
			hex(info.checksum, h);
			printf("version %u\nentries %u\nchecksum %s\ncache_tree %d\nresolve_undo %d\nsparse "
			       "%d\n",
			       info.version, info.entries, h, info.has_cache_tree, info.has_resolve_undo,
			       info.sparse);
		}
	} else if (strcmp(cmd, "config") == 0 && argc > argi) {
		char key[1024];
		const char *bad = skg_config_canonical_key(argv[argi], key, sizeof(key));
		if (bad != NULL) {
			fputs("error: ", stderr);
			fprintf(stderr, bad, argv[argi]);
			fputc('\n', stderr);
			ret = 2;
		} else {
			struct get_ctx c = {.key = key};
			if (skg_repo_config(repo, get_cb, &c, &err) != 0) {
				ret = fatal(&err);
			} else if (!c.found) {
				ret = 1;
			} else {
				printf("%s\n", c.null_value ? "" : c.value);
			}
			free(c.value);
		}
	} else if (strcmp(cmd, "config-list") == 0) {
		ret = skg_repo_config(repo, list_cb, NULL, &err) ? fatal(&err) : 0;
	} else if (strcmp(cmd, "fsck-roots") == 0 && argc > argi) {
		ret = fsck_roots(repo, &refs, argv[argi], &err);
	} else {
		ret = usage();
	}
	skg_refdb_release(&refs);
	skg_repo_free(repo);
	return ret;
}
