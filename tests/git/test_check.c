/*
 * test_check.c - skg_check_repo (<sha1kit/git_fsck.h>) on small repositories that git makes in a
 * temporary directory: a sound one (exit status 0, git's one dangling line as a record with its
 * type and ID), corrupt ones (a missing blob: the records of stdout with exit bit 2, git's two-line
 * "broken link" as two records; a commit with a
 * bad time zone: git's finding with its message ID), a directory that is no repository (SKG_E_GIT,
 * the fatal record), the cancel flag (SKG_E_CANCELLED), the progress callback; the records go to
 * the sink, nothing to stdout or stderr, and the working directory is the caller's again afterwards
 * (changed only while a check found from a subdirectory of the work tree runs, as git's, and not
 * at all when git_dir is given or the check starts in the top: the chdir calls are counted).
 * Failures of the machine (faults.h): every allocation of skg_repo_open and of a whole check (on
 * 1 and 2 threads), and every thread start, fails in turn; the check then fails with SKG_E_NOMEM or
 * SKG_E_THREAD and every record it sent before is one of a run without faults: a failure never
 * becomes a finding about the repository.
 * skg_refs_verify (<sha1kit/git_refs.h>): a sound repository (0, no record), damaged refs (1, git's
 * records with their message IDs and exit bit 8; --verbose's plain lines), a bad fsck.<msg-id>
 * (SKG_E_GIT), and every allocation failing in turn (SKG_E_NOMEM, no other record).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <sha1kit/git_fsck.h>
#include <sha1kit/git_pack.h>
#include <sha1kit/git_refs.h>

#include "faults.h"

/* The records a check sent, copied. */
struct rec {
	enum skg_level level;
	int id;
	char msg_id[64];
	unsigned type;
	bool has_oid;
	uint8_t oid[SKG_RAWSZ];
	char text[512];
	bool fatal;
	unsigned exit_bits;
};

struct recs {
	struct rec v[64];
	size_t n;
};

static void collect(void *ctx, const struct skg_report *r)
{
	struct recs *rs = ctx;
	if (rs->n == sizeof(rs->v) / sizeof(rs->v[0])) {
		return;
	}
	struct rec *c = &rs->v[rs->n++];
	memset(c, 0, sizeof(*c));
	c->level = r->level;
	c->id = r->id;
	snprintf(c->msg_id, sizeof(c->msg_id), "%s", r->msg_id != NULL ? r->msg_id : "");
	c->type = r->type;
	c->has_oid = r->oid != NULL;
	if (r->oid != NULL) {
		memcpy(c->oid, r->oid, SKG_RAWSZ);
	}
	snprintf(c->text, sizeof(c->text), "%s", r->text);
	c->fatal = r->fatal;
	c->exit_bits = r->exit_bits;
}

static char tmp[256];

/* Run a shell command in the temporary directory; its output is the test's business only. */
static void sh(const char *fmt, ...)
{
	char cmd[2048], full[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	snprintf(full, sizeof(full), "cd '%s' && (%s) >/dev/null 2>&1", tmp, cmd);
	assert_int_equal(system(full), 0);
}

/* The first line of a shell command's output, without its newline. */
static void sh_out(char *out, size_t n, const char *cmd)
{
	char full[4096];
	snprintf(full, sizeof(full), "cd '%s' && %s", tmp, cmd);
	FILE *p = popen(full, "r");
	assert_non_null(p);
	assert_non_null(fgets(out, (int)n, p));
	out[strcspn(out, "\n")] = '\0';
	pclose(p);
}

static int setup(void **state)
{
	(void)state;
	snprintf(tmp, sizeof(tmp), "%s/sha1kit-check.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(tmp) == NULL) {
		return -1;
	}
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	setenv("GIT_AUTHOR_NAME", "A", 1);
	setenv("GIT_AUTHOR_EMAIL", "a@example.com", 1);
	setenv("GIT_COMMITTER_NAME", "C", 1);
	setenv("GIT_COMMITTER_EMAIL", "c@example.com", 1);
	setenv("GIT_AUTHOR_DATE", "1700000000 +0000", 1);
	setenv("GIT_COMMITTER_DATE", "1700000000 +0000", 1);
	unsetenv("GIT_DIR");
	unsetenv("GIT_WORK_TREE");
	unsetenv("GIT_OBJECT_DIRECTORY");
	unsetenv("GIT_ALTERNATE_OBJECT_DIRECTORIES");
	unsetenv("GIT_INDEX_FILE");
	return 0;
}

static int teardown(void **state)
{
	char cmd[512];
	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	return system(cmd) == 0 ? 0 : -1;
}

/* A repository with two commits (a subdirectory, a packed part) and a dangling blob: its ID. */
static void make_repo(const char *name, char dangling[SKG_HEXSZ + 1])
{
	sh("git init -q %s && cd %s && echo 1 >a && mkdir d && echo 2 >d/b && git add . && "
	   "git commit -qm one && git repack -adq && echo 3 >c && git add c && git commit -qm two",
	   name, name);
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "cd %s && echo dangling | git hash-object -w --stdin", name);
	sh_out(dangling, SKG_HEXSZ + 1, cmd);
}

/* skg_check_repo on tmp/NAME/.git with stdout and stderr sent to a file that must stay empty. */
static int check(const char *name, const struct skg_check_options *opt, struct recs *rs,
                 struct skg_check_result *res, struct skg_error *err)
{
	char dir[512], cwd_before[1024], cwd_after[1024], outf[512];
	snprintf(dir, sizeof(dir), "%s/%s/.git", tmp, name);
	snprintf(outf, sizeof(outf), "%s/std.out", tmp);
	assert_non_null(getcwd(cwd_before, sizeof(cwd_before)));
	fflush(stdout);
	fflush(stderr);
	int saved_out = dup(1), saved_err = dup(2);
	int fd = open(outf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0 && saved_out >= 0 && saved_err >= 0);
	dup2(fd, 1);
	dup2(fd, 2);
	struct skg_sink sink = {collect, rs};
	rs->n = 0;
	long chdirs = fault_chdirs();
	int rc = skg_check_repo(dir, opt, &sink, res, err);
	chdirs = fault_chdirs() - chdirs;
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, 1);
	dup2(saved_err, 2);
	close(saved_out);
	close(saved_err);
	close(fd);
	struct stat st;
	assert_int_equal(stat(outf, &st), 0);
	assert_int_equal(st.st_size, 0); /* the records went to the sink, nothing was printed */
	assert_non_null(getcwd(cwd_after, sizeof(cwd_after)));
	assert_string_equal(cwd_before, cwd_after);
	/* a git_dir given from outside its work tree: git changes no directory, nor does the check */
	assert_int_equal(chdirs, 0);
	return rc;
}

static const struct rec *find(const struct recs *rs, const char *prefix)
{
	for (size_t i = 0; i < rs->n; i++) {
		if (strncmp(rs->v[i].text, prefix, strlen(prefix)) == 0) {
			return &rs->v[i];
		}
	}
	return NULL;
}

static void test_sound(void **state)
{
	(void)state;
	char dangling[SKG_HEXSZ + 1], line[128];
	make_repo("sound", dangling);
	struct recs *rs = calloc(1, sizeof(*rs));
	struct skg_check_result res = {-1};
	struct skg_error err;
	assert_non_null(rs);
	assert_int_equal(check("sound", NULL, rs, &res, &err), 0);
	assert_int_equal(res.exit_status, 0);
	assert_int_equal(rs->n, 1);
	snprintf(line, sizeof(line), "dangling blob %s", dangling);
	assert_string_equal(rs->v[0].text, line);
	assert_int_equal(rs->v[0].level, SKG_LEVEL_OUTPUT);
	assert_int_equal(rs->v[0].type, SKG_BLOB);
	assert_int_equal(rs->v[0].id, SKG_R_FSCK);
	assert_int_equal(rs->v[0].exit_bits, 0);
	assert_false(rs->v[0].fatal);
	uint8_t id[SKG_RAWSZ];
	assert_true(skg_from_hex(dangling, id));
	assert_true(rs->v[0].has_oid);
	assert_memory_equal(rs->v[0].oid, id, SKG_RAWSZ);

	/* --no-dangling --root: the root commit instead, on one thread */
	struct skg_check_options opt;
	skg_check_options_default(&opt);
	opt.show_dangling = false;
	opt.show_root = true;
	opt.threads = 1;
	assert_int_equal(check("sound", &opt, rs, &res, &err), 0);
	assert_int_equal(res.exit_status, 0);
	assert_int_equal(rs->n, 1);
	assert_non_null(find(rs, "root "));
	assert_int_equal(rs->v[0].type, SKG_COMMIT);
	free(rs);
}

/* The records of a check and the working directory at the first one. */
struct cwd_recs {
	struct recs rs;
	char cwd[1024];
};

static void collect_cwd(void *ctx, const struct skg_report *r)
{
	struct cwd_recs *c = ctx;
	if (c->rs.n == 0 && getcwd(c->cwd, sizeof(c->cwd)) == NULL) {
		c->cwd[0] = '\0';
	}
	collect(&c->rs, r);
}

/* skg_check_repo(NULL) from a directory of tmp: 0, and the chdir calls it made in *chdirs. */
static int check_from(const char *sub, struct cwd_recs *c, struct skg_check_result *res, long *chdirs)
{
	char dir[512], back[1024], after[1024];
	snprintf(dir, sizeof(dir), "%s/%s", tmp, sub);
	assert_non_null(getcwd(back, sizeof(back)));
	assert_int_equal(chdir(dir), 0);
	struct skg_sink sink = {collect_cwd, c};
	struct skg_error err;
	memset(c, 0, sizeof(*c));
	long before = fault_chdirs();
	int rc = skg_check_repo(NULL, NULL, &sink, res, &err);
	*chdirs = fault_chdirs() - before;
	assert_non_null(getcwd(after, sizeof(after)));
	assert_string_equal(after, dir); /* the caller's directory again */
	assert_int_equal(chdir(back), 0);
	return rc;
}

/* As git after its setup, a check found from a subdirectory of the work tree runs in its top (and
 * changes back); from the top the working directory is not touched. */
static void test_working_directory(void **state)
{
	(void)state;
	char dangling[SKG_HEXSZ + 1], line[128], top[1024];
	make_repo("wd", dangling);
	snprintf(line, sizeof(line), "dangling blob %s", dangling);
	snprintf(top, sizeof(top), "%s/wd", tmp);
	struct cwd_recs *c = calloc(1, sizeof(*c));
	assert_non_null(c);
	struct skg_check_result res = {-1};
	long chdirs;
	assert_int_equal(check_from("wd/d", c, &res, &chdirs), 0);
	assert_int_equal(res.exit_status, 0);
	assert_int_equal(c->rs.n, 1);
	assert_string_equal(c->rs.v[0].text, line);
	assert_string_equal(c->cwd, top); /* in the top of the work tree while it ran */
	assert_int_equal(chdirs, 2);      /* there and back */

	res.exit_status = -1;
	assert_int_equal(check_from("wd", c, &res, &chdirs), 0);
	assert_int_equal(res.exit_status, 0);
	assert_int_equal(c->rs.n, 1);
	assert_string_equal(c->rs.v[0].text, line);
	assert_string_equal(c->cwd, top);
	assert_int_equal(chdirs, 0);
	free(c);
}

/* A subdirectory whose path is longer than PATH_MAX: the check changes back to it all the same
 * (by a descriptor: by its path, chdir failed with ENAMETOOLONG; found by an embedder's trial). */
static void test_working_directory_long(void **state)
{
	(void)state;
	if (getenv("SHA1KIT_TEST_EMULATED") != NULL) {
		/* qemu-user's getcwd fails there (tests/git/api.cmake): checked on the native builds */
		skip();
	}
	char dangling[SKG_HEXSZ + 1], back[1024], top[512], git_dir[600];
	make_repo("wdlong", dangling);
	snprintf(top, sizeof(top), "%s/wdlong", tmp);
	snprintf(git_dir, sizeof(git_dir), "%s/.git", top);
	/* git_dir given with core.worktree: git's discovery from that deep directory is not needed
	 * (git's own fails to stat its path there), its top is the worktree's */
	sh("cd wdlong && git config core.worktree \"$PWD\"");
	assert_non_null(getcwd(back, sizeof(back)));
	assert_int_equal(chdir(top), 0);
	char name[201];
	memset(name, 'd', 200);
	name[200] = '\0';
	for (int i = 0; i < 24; i++) { /* 24 x 201 bytes */
		assert_int_equal(mkdir(name, 0777), 0);
		assert_int_equal(chdir(name), 0);
	}
	struct stat here, after;
	assert_int_equal(stat(".", &here), 0);
	struct recs *rs = calloc(1, sizeof(*rs));
	assert_non_null(rs);
	struct skg_sink sink = {collect, rs};
	struct skg_check_result res = {-1};
	struct skg_error err;
	int rc = skg_check_repo(git_dir, NULL, &sink, &res, &err);
	assert_int_equal(stat(".", &after), 0);
	assert_int_equal(chdir(back), 0);
	assert_int_equal(rc, 0);
	assert_int_equal(res.exit_status, 0);
	assert_true(here.st_dev == after.st_dev && here.st_ino == after.st_ino);
	free(rs);
}

static void test_missing_blob(void **state)
{
	(void)state;
	char dangling[SKG_HEXSZ + 1], blob[SKG_HEXSZ + 1], path[512];
	make_repo("missing", dangling);
	sh("cd missing && echo gone >e && git add e && git commit -qm three");
	sh_out(blob, sizeof(blob), "cd missing && git rev-parse HEAD:e");
	snprintf(path, sizeof(path), "%s/missing/.git/objects/%.2s/%s", tmp, blob, blob + 2);
	assert_int_equal(unlink(path), 0);
	/* without the index, which names the blob too, the tree's link to it is broken */
	snprintf(path, sizeof(path), "%s/missing/.git/index", tmp);
	assert_int_equal(unlink(path), 0);
	struct recs *rs = calloc(1, sizeof(*rs));
	struct skg_check_result res = {-1};
	struct skg_error err;
	assert_non_null(rs);
	assert_int_equal(check("missing", NULL, rs, &res, &err), 0);
	assert_int_equal(res.exit_status, SKG_CHECK_ERROR_REACHABLE);
	char line[128];
	snprintf(line, sizeof(line), "missing blob %s", blob);
	const struct rec *m = find(rs, line);
	assert_non_null(m);
	assert_int_equal(m->level, SKG_LEVEL_OUTPUT);
	assert_int_equal(m->exit_bits, SKG_CHECK_ERROR_REACHABLE);
	assert_int_equal(m->type, SKG_BLOB);
	const struct rec *b = find(rs, "broken link from    tree ");
	assert_non_null(b);
	assert_int_equal(b->level, SKG_LEVEL_OUTPUT);
	snprintf(line, sizeof(line), "              to    blob %s", blob);
	assert_non_null(find(rs, line)); /* the second line of git's broken link, a record of its own */
	free(rs);
}

static void test_bad_timezone(void **state)
{
	(void)state;
	char dangling[SKG_HEXSZ + 1], commit[SKG_HEXSZ + 1];
	make_repo("badtz", dangling);
	sh_out(commit, sizeof(commit),
	       "cd badtz && printf 'tree %s\\nauthor A <a@b> 1 +99999\\ncommitter C <c@d> 1 +0000\\n\\nm\\n' "
	       "$(git rev-parse HEAD^{tree}) | git hash-object -t commit --literally -w --stdin");
	struct recs *rs = calloc(1, sizeof(*rs));
	struct skg_check_result res = {-1};
	struct skg_error err;
	assert_non_null(rs);
	assert_int_equal(check("badtz", NULL, rs, &res, &err), 0);
	assert_int_equal(res.exit_status & SKG_CHECK_ERROR_OBJECT, SKG_CHECK_ERROR_OBJECT);
	char line[128];
	snprintf(line, sizeof(line), "error in commit %s: badTimezone: ", commit);
	const struct rec *r = find(rs, line);
	assert_non_null(r);
	assert_int_equal(r->level, SKG_LEVEL_PLAIN); /* git's own prefix, in the text */
	assert_string_equal(r->msg_id, "badTimezone");
	assert_int_equal(r->type, SKG_COMMIT);
	snprintf(line, sizeof(line), "dangling commit %s", commit);
	assert_non_null(find(rs, line));
	free(rs);
}

static void test_not_a_repository(void **state)
{
	(void)state;
	sh("mkdir -p empty/.git");
	struct recs *rs = calloc(1, sizeof(*rs));
	struct skg_check_result res = {-1};
	struct skg_error err;
	assert_non_null(rs);
	assert_int_equal(check("empty", NULL, rs, &res, &err), -1);
	assert_int_equal(err.code, SKG_E_GIT);
	assert_true(rs->n >= 1);
	const struct rec *last = &rs->v[rs->n - 1];
	assert_true(last->fatal);
	assert_int_equal(last->level, SKG_LEVEL_PLAIN);
	assert_true(strncmp(last->text, "fatal: ", 7) == 0);
	assert_string_equal(last->text + 7, err.msg);
	free(rs);
}

/* git's die() with a message of several lines (an unknown repository extension: its name on a line
 * of its own) is one fatal record, the last one, and err->msg is the whole message (found by an
 * embedder's trial: the name came as a later record). */
static void test_fatal_lines(void **state)
{
	(void)state;
	char dangling[SKG_HEXSZ + 1];
	make_repo("ext", dangling);
	sh("cd ext && git config core.repositoryformatversion 1 && git config extensions.fooBar true");
	struct recs *rs = calloc(1, sizeof(*rs));
	struct skg_check_result res = {-1};
	struct skg_error err;
	assert_non_null(rs);
	assert_int_equal(check("ext", NULL, rs, &res, &err), -1);
	assert_int_equal(err.code, SKG_E_GIT);
	assert_string_equal(err.msg, "unknown repository extension found:\n\tfoobar");
	assert_int_equal(rs->n, 1);
	assert_true(rs->v[0].fatal);
	assert_string_equal(rs->v[0].text, "fatal: unknown repository extension found:\n\tfoobar");
	free(rs);
}

/* Every pack and idx the check maps is told to on_map (a program's SIGBUS guard), the commit-graph
 * verify's maps too (found by an embedder's trial: they were not): at each meter, each mapping of
 * a .pack or .idx in the process lies in a range on_map was told of and not yet told gone. */
struct maps {
	struct {
		uintptr_t addr;
		uint64_t len;
		bool live;
	} v[256];
	int n, unreported, scans;
};

static void note_map(void *ctx, const void *addr, uint64_t len, const char *path, bool mapped)
{
	(void)path;
	struct maps *m = ctx;
	if (mapped && m->n < 256) {
		m->v[m->n].addr = (uintptr_t)addr;
		m->v[m->n].len = len;
		m->v[m->n].live = true;
		m->n++;
	}
	for (int i = 0; !mapped && i < m->n; i++) {
		if (m->v[i].live && m->v[i].addr == (uintptr_t)addr) {
			m->v[i].live = false;
			break;
		}
	}
}

static void scan_maps(void *ctx, const char *title, uint64_t done, uint64_t total)
{
	(void)title;
	(void)done;
	(void)total;
	struct maps *m = ctx;
	FILE *f = fopen("/proc/self/maps", "r");
	if (f == NULL) {
		return;
	}
	m->scans++;
	char line[1024];
	while (fgets(line, sizeof(line), f) != NULL) {
		size_t n = strcspn(line, "\n");
		line[n] = '\0';
		if (n < 5 || (strcmp(line + n - 5, ".pack") != 0 && strcmp(line + n - 4, ".idx") != 0)) {
			continue;
		}
		uintptr_t lo = (uintptr_t)strtoull(line, NULL, 16);
		bool told = false;
		for (int i = 0; i < m->n; i++) {
			told |= m->v[i].live && lo >= m->v[i].addr && lo < m->v[i].addr + m->v[i].len + 4096;
		}
		m->unreported += !told;
	}
	fclose(f);
}

static void test_on_map(void **state)
{
	(void)state;
#if defined(__linux__)
	char dangling[SKG_HEXSZ + 1];
	make_repo("onmap", dangling);
	sh("cd onmap && git gc -q && git commit-graph write --reachable");
	struct maps *m = calloc(1, sizeof(*m));
	assert_non_null(m);
	struct skg_check_options o;
	skg_check_options_default(&o);
	o.on_map = note_map;
	o.map_ctx = m;
	o.progress.fn = scan_maps;
	o.progress.ctx = m;
	o.threads = 1;
	struct skg_check_result res = {-1};
	struct skg_error err;
	char dir[600];
	snprintf(dir, sizeof(dir), "%s/onmap/.git", tmp);
	assert_int_equal(skg_check_repo(dir, &o, NULL, &res, &err), 0);
	assert_true(m->scans > 0);
	assert_true(m->n > 0);
	assert_int_equal(m->unreported, 0);
	free(m);
#endif
}

/* The same for indexing inside a repository (struct skg_index_options.on_map): the repository's
 * packs and idx files that the collision check and strict's links read are told to on_map (they
 * were mapped unreported: found by an embedder's trial), the pack being indexed being the
 * caller's own map (told to the same list here). */
static void test_index_on_map(void **state)
{
	(void)state;
#if defined(__linux__)
	char dangling[SKG_HEXSZ + 1];
	make_repo("ixmap", dangling);
	/* the repository's objects packed, and a pack of them all to index there */
	sh("cd ixmap && git gc -q && git rev-list --objects --all | git pack-objects -q --stdout "
	   ">../ixmap.pack");
	struct maps *m = calloc(1, sizeof(*m));
	assert_non_null(m);
	struct skg_error err;
	char path[600];
	snprintf(path, sizeof(path), "%s/ixmap.pack", tmp);
	struct skg_file file = {0};
	assert_int_equal(skg_file_map(&file, path, note_map, m, &err), 0);
	snprintf(path, sizeof(path), "%s/ixmap/.git", tmp);
	struct skg_repo *repo;
	assert_int_equal(skg_repo_open(&repo, path, NULL, &err), 0);
	struct skg_index_options opt;
	skg_index_options_default(&opt);
	opt.repo = repo;
	opt.strict = true;
	opt.threads = 1;
	opt.on_map = note_map;
	opt.map_ctx = m;
	opt.progress.fn = scan_maps;
	opt.progress.ctx = m;
	struct skg_pack *pack;
	assert_int_equal(skg_pack_index(&pack, file.data, file.len, &opt, &err), 0);
	skg_pack_free(pack);
	skg_repo_free(repo);
	skg_file_unmap(&file);
	assert_true(m->scans > 0);
	assert_true(m->n >= 3); /* the pack, and the repository's idx and pack */
	assert_int_equal(m->unreported, 0);
	free(m);
#endif
}

/* The OR of the records' exit_bits of a run, and whether one record is at `level` with `bits`
 * and the text `text` (NULL: any). */
static unsigned bits_of(const struct recs *rs, enum skg_level level, unsigned bits, const char *text,
                        bool *found)
{
	unsigned or = 0;
	*found = false;
	for (size_t i = 0; i < rs->n; i++) {
		or |= rs->v[i].exit_bits;
		*found = *found || (rs->v[i].level == level && rs->v[i].exit_bits == bits &&
		                    (text == NULL || strcmp(rs->v[i].text, text) == 0));
	}
	return or ;
}

/* Each line that adds to git fsck's exit status carries its bits (struct skg_report.exit_bits), so
 * that the records' bits OR to the status (an embedder's trial: a loose commit's badTimezone and the
 * index's cache-tree line carried none); a `git commit-graph verify` that fails with a warning only
 * (a chain whose older layer is gone: git 2.55) is a silent record with bit 16. */
static void test_exit_bits(void **state)
{
	(void)state;
	char dangling[SKG_HEXSZ + 1], h[SKG_HEXSZ + 1];
	make_repo("bits-tz", dangling);
	sh("cd bits-tz && c=$(printf 'tree %%s\nauthor A <a@x> 1700000000 +00000\ncommitter A <a@x> "
	   "1700000000 "
	   "+0000\n\nx\n' \"$(git rev-parse HEAD^{tree})\" | git hash-object -t commit -w --stdin "
	   "--literally) && git update-ref refs/heads/badtz $c");
	make_repo("bits-ct", dangling);
	sh_out(h, sizeof(h), "cd bits-ct && mkdir e && echo n >e/n && git add e && git write-tree");
	sh("cd bits-ct && rm -f .git/objects/%.2s/%s", h, h + 2);
	make_repo("bits-cg", dangling);
	sh("cd bits-cg && git commit-graph write --reachable --split && echo 4 >f && git add f && "
	   "git commit -qm three && git commit-graph write --reachable --split=no-merge && "
	   "rm -f $(sed -n 1p .git/objects/info/commit-graphs/commit-graph-chain | "
	   "sed 's|^|.git/objects/info/commit-graphs/graph-|; s|$|.graph|')");
	static const struct {
		const char *name;
		int status;
		enum skg_level level;
		unsigned bits;
		const char *text;
	} cases[] = {
	    {"bits-tz", 1, SKG_LEVEL_PLAIN, 1, NULL}, /* "error in commit ID: badTimezone: ..." */
	    {"bits-ct", 8, SKG_LEVEL_ERROR, 8, NULL},
	    {"bits-cg", 16, SKG_LEVEL_SILENT, 16, "git commit-graph verify failed"},
	};
	struct recs *rs = calloc(1, sizeof(*rs));
	assert_non_null(rs);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct skg_check_result res = {-1};
		struct skg_error err;
		bool found;
		assert_int_equal(check(cases[i].name, NULL, rs, &res, &err), 0);
		assert_int_equal(res.exit_status, cases[i].status);
		assert_int_equal(bits_of(rs, cases[i].level, cases[i].bits, cases[i].text, &found),
		                 (unsigned)res.exit_status);
		if (!found) {
			for (size_t k = 0; k < rs->n; k++) {
				print_error("%s: level %d bits %u: %s\n", cases[i].name, (int)rs->v[k].level,
				            rs->v[k].exit_bits, rs->v[k].text);
			}
		}
		assert_true(found);
	}
	free(rs);
}

static void test_cancel(void **state)
{
	(void)state;
	char dangling[SKG_HEXSZ + 1];
	make_repo("cancel", dangling);
	volatile int cancel = 1;
	struct skg_check_options opt;
	skg_check_options_default(&opt);
	opt.cancel = &cancel;
	struct recs *rs = calloc(1, sizeof(*rs));
	struct skg_check_result res = {-1};
	struct skg_error err;
	assert_non_null(rs);
	assert_int_equal(check("cancel", &opt, rs, &res, &err), -1);
	assert_int_equal(err.code, SKG_E_CANCELLED);
	assert_int_equal(rs->n, 0); /* no finding: the check stopped before the first object */
	free(rs);
}

/* The progress of a check: titles in order, done never above total, each phase ended. */
struct prog {
	char titles[512], last[64], started[512];
	uint64_t last_done, ends, starts;
	bool bad;
	uint64_t full_ends; /* phases whose last fn call had done == total (counted at the next start) */
	bool full;          /* the last fn call of the current phase had done == total */
};

static void on_progress(void *ctx, const char *title, uint64_t done, uint64_t total)
{
	struct prog *p = ctx;
	if (strcmp(title, p->last) != 0) {
		size_t n = strlen(p->titles);
		snprintf(p->titles + n, sizeof(p->titles) - n, "%s|", title);
		snprintf(p->last, sizeof(p->last), "%s", title);
		p->last_done = 0;
	}
	if ((total != 0 && done > total) || done < p->last_done) {
		p->bad = true;
	}
	p->last_done = done;
	p->full = done == total;
}

static void on_stop(void *ctx, const char *title, uint64_t done, uint64_t total)
{
	struct prog *p = ctx;
	(void)title;
	/* git's ", done." count, or UINT64_MAX: a meter that never moved draws no line */
	if (done != UINT64_MAX && total != 0 && done > total) {
		p->bad = true;
	}
	p->ends++;
}

static void on_start(void *ctx, const char *title, uint64_t total)
{
	struct prog *p = ctx;
	(void)total;
	size_t n = strlen(p->started);
	snprintf(p->started + n, sizeof(p->started) - n, "%s|", title);
	p->full_ends += p->starts > 0 && p->full;
	p->full = false;
	p->starts++;
}

static void test_progress(void **state)
{
	(void)state;
	char dangling[SKG_HEXSZ + 1];
	make_repo("progress", dangling);
	struct prog p = {{0}, {0}, {0}, 0, 0, 0, false, 0, false};
	struct skg_check_options opt;
	skg_check_options_default(&opt);
	opt.progress = (struct skg_progress){on_progress, &p, on_stop, on_start};
	struct recs *rs = calloc(1, sizeof(*rs));
	struct skg_check_result res = {-1};
	struct skg_error err;
	assert_non_null(rs);
	assert_int_equal(check("progress", &opt, rs, &res, &err), 0);
	assert_int_equal(res.exit_status, 0);
	assert_false(p.bad);
	/* git fsck --progress: the loose objects, then the pack's */
	assert_non_null(strstr(p.titles, "Checking object directories|"));
	assert_non_null(strstr(p.titles, "Checking objects|"));
	assert_true(p.ends >= 2);
	/* every phase begins (start, where git draws nothing) and ends (stop), in git's order; by
	 * default (git 2.55) the ref check comes first */
	assert_string_equal(p.started, "Checking ref database|Checking object directories|Checking objects|");
	assert_int_equal(p.starts, p.ends);

	/* as git 2.39.5: no ref check */
	struct prog p39 = {{0}, {0}, {0}, 0, 0, 0, false, 0, false};
	opt.git_version = SKG_GIT_2_39;
	opt.check_refs = false;
	opt.progress = (struct skg_progress){on_progress, &p39, on_stop, on_start};
	memset(rs, 0, sizeof(*rs));
	assert_int_equal(check("progress", &opt, rs, &res, &err), 0);
	assert_int_equal(res.exit_status, 0);
	assert_false(p39.bad);
	assert_string_equal(p39.started, "Checking object directories|Checking objects|");
	assert_int_equal(p39.starts, p39.ends);

	/* without stop, every phase ends with fn(total, total), a pack check that stops part way (the
	 * pack cut short) and a phase whose meter never moves included (found by an
	 * embedder's trial: 117/126, or no call) */
	sh("cd progress && git repack -adq && p=$(ls .git/objects/pack/*.pack) && chmod u+w \"$p\" && "
	   "truncate -s -30 \"$p\"");
	struct prog pn = {{0}, {0}, {0}, 0, 0, 0, false, 0, false};
	opt.git_version = SKG_GIT_2_55;
	opt.progress = (struct skg_progress){on_progress, &pn, NULL, on_start};
	memset(rs, 0, sizeof(*rs));
	assert_int_equal(check("progress", &opt, rs, &res, &err), 0);
	assert_true(res.exit_status != 0);
	assert_true(pn.starts > 0);
	assert_int_equal(pn.full_ends + pn.full, pn.starts);
	free(rs);
}

/* The Git versions a check follows, as a user names them; the defaults. */
static void test_git_version(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		int rc;
		unsigned v;
	} cases[] = {{"2.39", 0, SKG_GIT_2_39},
	             {"2.39.5", 0, SKG_GIT_2_39},
	             {"2.55", 0, SKG_GIT_2_55},
	             {"2.55.0", 0, SKG_GIT_2_55},
	             {"2.55.1", 0, SKG_GIT_2_55},
	             {"2.39.10", 0, SKG_GIT_2_39},
	             {"2.55.1234", -1, 7},
	             {"2.55.1x", -1, 7},
	             {"2.550", -1, 7},
	             {"2.3", -1, 7},
	             {"2.4", -1, 7},
	             {"2.39.", -1, 7},
	             {"", -1, 7},
	             {"2.55 ", -1, 7},
	             {"3.0", -1, 7}};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned v = 7;
		assert_int_equal(skg_git_version_parse(cases[i].text, &v), cases[i].rc);
		assert_int_equal(v, cases[i].v);
	}
	unsigned v = 7;
	assert_int_equal(skg_git_version_parse(NULL, &v), -1);
	assert_int_equal(v, 7);
	struct skg_check_options opt;
	skg_check_options_default(&opt);
	assert_int_equal(opt.git_version, SKG_GIT_2_55);
	assert_true(opt.check_refs);
}

/* A check with faults: the records of a run without them, and what a run gives. */
struct fault_run {
	struct recs clean, got;
	int clean_exit;
	struct skg_check_options opt;
	enum skg_errc expect;
	struct skg_error err;
	struct skg_check_result res;
};

static int op_check(void *ctx)
{
	struct fault_run *r = ctx;
	return check("faults", &r->opt, &r->got, &r->res, &r->err);
}

static void check_check(void *ctx, int rc, bool injected)
{
	struct fault_run *r = ctx;
	for (size_t i = 0; i < r->got.n; i++) { /* every record is one of the clean run's */
		size_t j = 0;
		while (j < r->clean.n && strcmp(r->got.v[i].text, r->clean.v[j].text) != 0) {
			j++;
		}
		if (j == r->clean.n) {
			print_error("a record of a run with a fault that a sound run does not send: %s\n",
			            r->got.v[i].text);
		}
		assert_true(j < r->clean.n);
	}
	if (rc == 0) {
		/* the failure was absorbed (a cache that could not grow, say): the same result */
		assert_int_equal(r->res.exit_status, r->clean_exit);
		assert_int_equal(r->got.n, r->clean.n);
	} else {
		assert_true(injected);
		if (r->err.code != r->expect) {
			print_error("%s (%s)\n", r->err.msg, skg_errc_name(r->err.code));
		}
		assert_int_equal(r->err.code, r->expect);
	}
}

static void test_check_faults(void **state)
{
	(void)state;
	char dangling[SKG_HEXSZ + 1];
	make_repo("faults", dangling);
	/* loose objects beside the pack, and a tag, so that every phase has work */
	sh("cd faults && echo 4 >d/e && git add d/e && git commit -qm three && git tag -am t t1");
	struct fault_run *r = calloc(1, sizeof(*r));
	assert_non_null(r);
	for (unsigned threads = 1; threads <= 2; threads++) {
		skg_check_options_default(&r->opt);
		r->opt.threads = threads;
		r->opt.show_root = true;
		r->opt.show_tags = true;
		assert_int_equal(check("faults", &r->opt, &r->clean, &r->res, &r->err), 0);
		r->clean_exit = r->res.exit_status;
		assert_int_equal(r->clean_exit, 0);
		assert_true(r->clean.n >= 3); /* a dangling blob, a root, a tagged commit */
		r->expect = SKG_E_NOMEM;
		long n = fault_each(FAULT_ALLOC, op_check, check_check, r);
		print_message("check on %u thread(s): %ld allocations, each failed in turn\n", threads, n);
		assert_true(n > 50);
	}
	r->expect = SKG_E_THREAD;
	long n = fault_each(FAULT_THREAD, op_check, check_check, r);
	print_message("check on 2 threads: %ld thread starts, each failed in turn\n", n);
	assert_true(n >= 1);
	free(r);
}

struct open_run {
	char path[512];
	struct skg_error err;
};

static int op_open(void *ctx)
{
	struct open_run *r = ctx;
	struct skg_repo *repo = (struct skg_repo *)&repo;
	if (skg_repo_open(&repo, r->path, NULL, &r->err) != 0) {
		assert_null(repo);
		return -1;
	}
	char want[600];
	snprintf(want, sizeof(want), "%s/objects", skg_repo_git_dir(repo));
	assert_string_equal(skg_repo_objects_dir(repo), want);
	assert_non_null(strstr(skg_repo_git_dir(repo), "/faults-open/.git"));
	skg_repo_free(repo);
	return 0;
}

static void check_open(void *ctx, int rc, bool injected)
{
	struct open_run *r = ctx;
	if (rc != 0) {
		assert_true(injected);
		assert_int_equal(r->err.code, SKG_E_NOMEM);
	}
}

static void test_repo_open_faults(void **state)
{
	(void)state;
	char dangling[SKG_HEXSZ + 1];
	make_repo("faults-open", dangling);
	struct open_run r;
	snprintf(r.path, sizeof(r.path), "%s/faults-open/.git", tmp);
	long n = fault_each(FAULT_ALLOC, op_open, check_open, &r);
	print_message("skg_repo_open: %ld allocations, each failed in turn\n", n);
	assert_true(n > 3);
	/* not a repository: git's fatal message */
	struct skg_repo *repo;
	snprintf(r.path, sizeof(r.path), "%s/nowhere", tmp);
	assert_int_equal(skg_repo_open(&repo, r.path, NULL, &r.err), -1);
	assert_int_equal(r.err.code, SKG_E_GIT);
	assert_non_null(strstr(r.err.msg, "not a git repository"));
}

/* GIT_DIR/config: a version 1 repository with a work tree, and `extra`. */
static void write_config(const char *git_dir, const char *extra)
{
	char path[600];
	snprintf(path, sizeof(path), "%s/config", git_dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "[core]\n\trepositoryformatversion = 1\n\tbare = false\n%s", extra);
	assert_int_equal(fclose(f), 0);
}

/* skg_repo_open_as: the extensions of later Gits, as each Git reads the format. */
static void test_repo_open_as(void **state)
{
	(void)state;
	char dangling[SKG_HEXSZ + 1], path[512];
	make_repo("open-as", dangling);
	snprintf(path, sizeof(path), "%s/open-as/.git", tmp);
	struct skg_repo *repo = NULL;
	struct skg_error err;
	static const struct {
		const char *config; /* lines appended to .git/config */
		int rc239, rc255;   /* skg_repo_open_as's result */
		const char *msg239; /* err.msg of 2.39's failure */
	} cases[] = {
	    {"[extensions]\n\trelativeWorktrees = true\n", -1, 0,
	     "unknown repository extension found:\n\trelativeworktrees"},
	    {"[extensions]\n\tsubmodulePathConfig = false\n\trefStorage = files\n", -1, 0,
	     "unknown repository extensions found:\n\tsubmodulepathconfig\n\trefstorage"},
	    {"[extensions]\n\tcompatObjectFormat = sha256\n", -1, -1,
	     "unknown repository extension found:\n\tcompatobjectformat"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		write_config(path, cases[i].config);
		assert_int_equal(skg_repo_open_as(&repo, path, SKG_GIT_2_39, NULL, &err), cases[i].rc239);
		assert_null(repo);
		assert_int_equal(err.code, SKG_E_GIT);
		assert_string_equal(err.msg, cases[i].msg239);
		int rc = skg_repo_open_as(&repo, path, SKG_GIT_2_55, NULL, &err);
		assert_int_equal(rc, cases[i].rc255);
		if (rc == 0) {
			assert_non_null(repo);
			skg_repo_free(repo);
			repo = NULL;
			/* skg_repo_open is 2.55's */
			assert_int_equal(skg_repo_open(&repo, path, NULL, &err), 0);
			skg_repo_free(repo);
			repo = NULL;
		} else {
			assert_int_equal(err.code, SKG_E_UNSUPPORTED);
			assert_non_null(strstr(err.msg, "extensions.compatObjectFormat"));
		}
	}
	/* a bad boolean fails with 2.55 as git's config reader does */
	write_config(path, "[extensions]\n\trelativeWorktrees = maybe\n");
	assert_int_equal(skg_repo_open_as(&repo, path, SKG_GIT_2_55, NULL, &err), -1);
	assert_string_equal(err.msg, "bad boolean config value 'maybe' for 'extensions.relativeworktrees'");
}

/* skg_refs_verify on tmp/NAME/.git, nothing printed. */
static int refs_verify(const char *name, const struct skg_refs_verify_options *opt, struct recs *rs,
                       struct skg_error *err)
{
	char dir[512];
	snprintf(dir, sizeof(dir), "%s/%s/.git", tmp, name);
	struct skg_repo *repo = NULL;
	struct skg_sink sink = {collect, rs};
	rs->n = 0;
	if (skg_repo_open(&repo, dir, &sink, err) != 0) {
		return -2;
	}
	int rc = skg_refs_verify(repo, opt, &sink, err);
	skg_repo_free(repo);
	return rc;
}

static void test_refs_verify(void **state)
{
	(void)state;
	char dangling[SKG_HEXSZ + 1];
	make_repo("refs", dangling);
	struct recs *rs = calloc(1, sizeof(*rs));
	struct skg_error err;
	assert_non_null(rs);
	struct skg_refs_verify_options opt = {false, false};
	assert_int_equal(refs_verify("refs", &opt, rs, &err), 0);
	assert_int_equal(rs->n, 0);
	sh("cd refs/.git && printf 'garbage\\n' >refs/heads/garb && printf %%s %s >refs/heads/nonl && "
	   "printf '#bad\\n' >packed-refs",
	   dangling);
	assert_int_equal(refs_verify("refs", &opt, rs, &err), 1);
	assert_int_equal(rs->n, 3);
	const struct rec *r = find(rs, "refs/heads/garb: ");
	assert_non_null(r);
	assert_int_equal(r->level, SKG_LEVEL_ERROR);
	assert_int_equal(r->id, SKG_R_FSCK);
	assert_string_equal(r->msg_id, "badRefContent");
	assert_string_equal(r->text, "refs/heads/garb: badRefContent: garbage");
	assert_int_equal(r->exit_bits, 8);
	r = find(rs, "refs/heads/nonl: ");
	assert_non_null(r);
	assert_int_equal(r->level, SKG_LEVEL_WARNING);
	assert_string_equal(r->text, "refs/heads/nonl: refMissingNewline: misses LF at the end");
	r = &rs->v[2]; /* packed-refs comes last */
	assert_string_equal(r->msg_id, "badPackedRefHeader");
	assert_string_equal(
	    r->text,
	    "packed-refs.header: badPackedRefHeader: '#bad' does not start with '# pack-refs with: '");
	/* --verbose: git's plain lines first */
	opt.verbose = true;
	assert_int_equal(refs_verify("refs", &opt, rs, &err), 1);
	assert_int_equal(rs->v[0].level, SKG_LEVEL_PLAIN);
	assert_string_equal(rs->v[0].text, "Checking references consistency");
	assert_non_null(find(rs, "Checking refs/heads/master"));
	assert_non_null(find(rs, "Checking HEAD"));
	opt.verbose = false;
	/* fsck.<msg-id>: a warning, then a message git does not know */
	sh("cd refs && git config fsck.badRefContent warn && git config fsck.badPackedRefHeader ignore");
	assert_int_equal(refs_verify("refs", &opt, rs, &err), 0);
	assert_int_equal(rs->n, 2);
	assert_int_equal(find(rs, "refs/heads/garb: ")->level, SKG_LEVEL_WARNING);
	sh("cd refs && git config fsck.noSuchThing error");
	assert_int_equal(refs_verify("refs", &opt, rs, &err), -1);
	assert_int_equal(err.code, SKG_E_GIT);
	assert_string_equal(err.msg, "Unhandled message id: nosuchthing");
	sh("cd refs && git config --unset fsck.noSuchThing");
	/* every allocation fails in turn: SKG_E_NOMEM, and no record but those of a sound run */
	struct recs *clean = calloc(1, sizeof(*clean));
	assert_non_null(clean);
	assert_int_equal(refs_verify("refs", &opt, clean, &err), 0);
	long n = 0;
	for (;; n++) {
		fault_arm(FAULT_ALLOC, n);
		int rc = refs_verify("refs", &opt, rs, &err);
		bool injected = fault_disarm();
		if (!injected) {
			assert_int_equal(rc, 0);
			break;
		}
		if (rc != 0) {
			assert_true(rc == -1 || rc == -2);
			assert_int_equal(err.code, SKG_E_NOMEM);
		}
		for (size_t i = 0; i < rs->n; i++) {
			assert_non_null(find(clean, rs->v[i].text));
		}
	}
	print_message("refs verify: %ld allocations, each failed in turn\n", n);
	assert_true(n > 5);
	free(clean);
	free(rs);
}

/* git's gentle set-up: a repository whose format git refuses is none, with git's two warnings
 * (the second only where it was discovered); outside one nothing; a sound one opens. */
static void test_repo_open_gently(void **state)
{
	(void)state;
	char dangling[SKG_HEXSZ + 1], path[600], back[1024], top[512];
	make_repo("gently", dangling);
	snprintf(top, sizeof(top), "%s/gently", tmp);
	snprintf(path, sizeof(path), "%s/.git", top);
	assert_non_null(getcwd(back, sizeof(back)));
	struct recs *rs = calloc(1, sizeof(*rs));
	assert_non_null(rs);
	struct skg_sink sink = {collect, rs};
	struct skg_repo *repo = NULL;
	struct skg_error err;
	assert_int_equal(chdir(top), 0);
	assert_int_equal(skg_repo_open_gently(&repo, SKG_GIT_2_55, &sink, &err), 0);
	assert_non_null(repo);
	assert_int_equal(rs->n, 0);
	skg_repo_free(repo);
	repo = NULL;
	write_config(path, "[core]\n\trepositoryformatversion = 2\n");
	assert_int_equal(skg_repo_open_gently(&repo, SKG_GIT_2_55, &sink, &err), 0);
	assert_null(repo);
	assert_int_equal(rs->n, 2);
	assert_int_equal(rs->v[0].level, SKG_LEVEL_WARNING);
	assert_int_equal(rs->v[0].id, SKG_R_SETUP);
	assert_string_equal(rs->v[0].text, "Expected git repo version <= 1, found 2");
	assert_int_equal(rs->v[1].id, SKG_R_SETUP_IGNORED);
	assert_string_equal(rs->v[1].text,
	                    "ignoring git dir '.git': Expected git repo version <= 1, found 2");
	/* named by $GIT_DIR: the first warning alone */
	rs->n = 0;
	setenv("GIT_DIR", path, 1);
	assert_int_equal(skg_repo_open_gently(&repo, SKG_GIT_2_55, &sink, &err), 0);
	unsetenv("GIT_DIR");
	assert_null(repo);
	assert_int_equal(rs->n, 1);
	assert_int_equal(rs->v[0].id, SKG_R_SETUP);
	/* a reftable repository is refused by 2.39 only */
	write_config(path, "[core]\n\trepositoryformatversion = 1\n[extensions]\n\trefStorage = files\n");
	rs->n = 0;
	assert_int_equal(skg_repo_open_gently(&repo, SKG_GIT_2_39, &sink, &err), 0);
	assert_null(repo);
	assert_int_equal(rs->n, 2);
	assert_string_equal(rs->v[0].text, "unknown repository extension found:\n\trefstorage");
	rs->n = 0;
	assert_int_equal(skg_repo_open_gently(&repo, SKG_GIT_2_55, &sink, &err), 0);
	assert_non_null(repo);
	assert_int_equal(rs->n, 0);
	skg_repo_free(repo);
	/* outside any repository: none, nothing said */
	repo = NULL;
	setenv("GIT_CEILING_DIRECTORIES", tmp, 1);
	assert_int_equal(chdir(tmp), 0);
	assert_int_equal(skg_repo_open_gently(&repo, SKG_GIT_2_55, &sink, &err), 0);
	unsetenv("GIT_CEILING_DIRECTORIES");
	assert_null(repo);
	assert_int_equal(rs->n, 0);
	assert_int_equal(chdir(back), 0);
	free(rs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sound),
	    cmocka_unit_test(test_missing_blob),
	    cmocka_unit_test(test_bad_timezone),
	    cmocka_unit_test(test_not_a_repository),
	    cmocka_unit_test(test_cancel),
	    cmocka_unit_test(test_progress),
	    cmocka_unit_test(test_check_faults),
	    cmocka_unit_test(test_repo_open_faults),
	    cmocka_unit_test(test_refs_verify),
	    cmocka_unit_test(test_git_version),
	    cmocka_unit_test(test_repo_open_as),
	    cmocka_unit_test(test_working_directory),
	    cmocka_unit_test(test_working_directory_long),
	    cmocka_unit_test(test_fatal_lines),
	    cmocka_unit_test(test_on_map),
	    cmocka_unit_test(test_index_on_map),
	    cmocka_unit_test(test_exit_bits),
	    cmocka_unit_test(test_repo_open_gently),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
