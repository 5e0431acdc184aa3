/*
 * bench_git.c - the Git workloads of `sha1kit bench` (--git=PACK, --git-repo=DIR, --git-loose=DIR,
 * --git-workloads=LIST): whole processes of sha1kit and of one or more git binaries doing the same
 * work, timed from outside. bench/pack-bench.sh runs them on Git's own history (`--git-only`).
 *
 *  - index-pack, index-pack-1: `TOOL index-pack [--threads=1] -o OUT.idx --no-rev-index PACK` (each
 *    tool's default thread count, or one); every idx a run writes must be byte for byte the idx that
 *    the git on PATH wrote before the measurement (the reference idx), else nothing is reported;
 *  - index-verify, index-verify-1: `TOOL index-pack --no-rev-index --verify [--threads=1] P.pack`, in a
 *    directory holding a link to PACK and the reference idx (git's `--verify` does all the work of an
 *    index-pack, then compares instead of writing);
 *  - verify-pack: `TOOL verify-pack P.idx` there;
 *  - fsck, fsck-1, fsck-loose: `sha1kit fsck [--threads=1] --no-dangling --no-progress` and
 *    `git fsck --full --no-dangling --no-progress`, both run in DIR (--git-repo; fsck-loose: --git-loose,
 *    the same history as loose objects); every run must succeed and print what git's warm-up run printed.
 * Every command first runs once untimed (a warm-up that also loads the files into the page cache),
 * then the timed rounds run every command of a workload once, odd rounds in one order, even rounds in
 * the reverse. Each run is a child process: wall time from CLOCK_MONOTONIC around fork and wait4, user
 * and system time, peak RSS and minor page faults from wait4's rusage. git runs outside any repository
 * (GIT_CEILING_DIRECTORIES) with neither system nor global configuration. The idx alone is written
 * (--no-rev-index): git 2.41+ and sha1kit also write a .rev by default, git 2.39 does not, and every
 * one of them takes the option.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(SK_BENCH_HAVE_JANSSON)
#include <jansson.h>
#endif

#include "bench_git.h"
#include "cli.h"

#define MAX_ARGS 10

struct git_cmd {
	char *argv[MAX_ARGS];
	char out_idx[PATH_MAX + 64]; /* index-pack: the idx this command writes */
	char vp_pack[PATH_MAX + 16]; /* index-verify: the link to PACK, with git's idx beside it */
	char vp_idx[PATH_MAX + 16];  /* verify-pack: the idx it checks (git's, beside a link to PACK) */
	const char *cwd;             /* where it runs */
};

const char *const bench_git_workload_names[BENCH_GIT_N_WORKLOADS] = {
    "index-pack",  "index-pack-1", "index-verify", "index-verify-1",
    "verify-pack", "fsck",         "fsck-1",       "fsck-loose"};

static bool is_index(enum bench_git_workload w)
{
	return w == BENCH_GIT_INDEX_PACK || w == BENCH_GIT_INDEX_PACK_1;
}

static bool needs_pack(enum bench_git_workload w)
{
	return w <= BENCH_GIT_VERIFY_PACK;
}

static bool is_fsck(enum bench_git_workload w)
{
	return w >= BENCH_GIT_FSCK;
}

/* ---- child processes --------------------------------------------------------------------------- */

struct child_result {
	int status; /* wait status */
	double wall, user, sys;
	long rss_kib, minor_faults;
};

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Run argv in `dir` with stdin from /dev/null and stdout/stderr into the given files (fds; -1:
 * /dev/null). Returns 0, or -1 after a diagnostic when it could not be run at all. */
static int run_child(char *const argv[], const char *dir, const char *ceiling, int out_fd, int err_fd,
                     struct child_result *res)
{
	struct rusage ru;
	int st;
	fflush(NULL);
	double t0 = mono_s();
	pid_t pid = fork();
	if (pid < 0) {
		sk_error(errno, "bench: --git: cannot run %s", sk_quote(argv[0]));
		return -1;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		if (null < 0 || dup2(null, STDIN_FILENO) < 0 ||
		    dup2(out_fd >= 0 ? out_fd : null, STDOUT_FILENO) < 0 ||
		    dup2(err_fd >= 0 ? err_fd : null, STDERR_FILENO) < 0 || chdir(dir) != 0)
			_exit(126);
		/* git's defaults: no system or global configuration, no repository around the work
		 * directory. */
		setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
		setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
		setenv("GIT_CEILING_DIRECTORIES", ceiling, 1);
		unsetenv("GIT_DIR");
		unsetenv("GIT_WORK_TREE");
		unsetenv("GIT_OBJECT_DIRECTORY");
		unsetenv("GIT_ALTERNATE_OBJECT_DIRECTORIES");
		execv(argv[0], argv);
		_exit(127);
	}
	while (wait4(pid, &st, 0, &ru) < 0)
		if (errno != EINTR) {
			sk_error(errno, "bench: --git: waiting for %s", sk_quote(argv[0]));
			return -1;
		}
	res->wall = mono_s() - t0;
	res->status = st;
	res->user = tv_s(ru.ru_utime);
	res->sys = tv_s(ru.ru_stime);
	res->rss_kib = ru.ru_maxrss;
	res->minor_faults = ru.ru_minflt;
	return 0;
}

/* The whole content of the file open as `fd` (from its start), NUL-terminated; NULL on failure. */
static char *slurp_fd(int fd, size_t *len)
{
	struct stat st;
	if (fstat(fd, &st) != 0 || lseek(fd, 0, SEEK_SET) != 0)
		return NULL;
	char *buf = malloc((size_t)st.st_size + 1);
	size_t got = 0;
	while (buf != NULL && got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
		if (n <= 0) {
			free(buf);
			return NULL;
		}
		got += (size_t)n;
	}
	if (buf != NULL)
		buf[got] = '\0';
	if (len != NULL)
		*len = got;
	return buf;
}

static char *slurp_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return NULL;
	char *buf = slurp_fd(fd, len);
	close(fd);
	return buf;
}

static int temp_fd(void)
{
	FILE *f = tmpfile();
	if (f == NULL)
		return -1;
	int fd = dup(fileno(f));
	fclose(f);
	return fd;
}

static void truncate_fd(int fd)
{
	if (ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) != 0)
		return;
}

/* The first line of `text` that is not empty, with control characters as spaces. */
static void first_line(char *out, size_t n, const char *text)
{
	while (*text == '\n' || *text == '\r')
		text++;
	snprintf(out, n, "%.*s", (int)strcspn(text, "\r\n"), text);
	for (char *p = out; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = ' ';
}

/* ---- tools ------------------------------------------------------------------------------------- */

/* `name` as an absolute path: as given when it has a '/', else found on PATH. */
static bool resolve_program(const char *name, char *out, size_t n)
{
	if (strchr(name, '/') != NULL) {
		if (realpath(name, out) == NULL || access(out, X_OK) != 0)
			return false;
		return strlen(out) < n;
	}
	const char *path = getenv("PATH");
	char *copy = strdup(path != NULL && *path ? path : "/usr/bin:/bin"), *save = NULL;
	bool found = false;
	for (char *dir = copy ? strtok_r(copy, ":", &save) : NULL; dir != NULL && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		char file[PATH_MAX];
		snprintf(file, sizeof(file), "%s/%s", dir, name);
		found = access(file, X_OK) == 0 && realpath(file, out) != NULL;
	}
	free(copy);
	return found;
}

/* The sha1kit program to time: $SHA1KIT_BENCH_SHA1KIT (set by the sha1kit that runs this program),
 * else `sha1kit` next to this program. */
static bool find_sha1kit(char *out, size_t n)
{
	const char *env = getenv("SHA1KIT_BENCH_SHA1KIT");
	if (env != NULL && *env)
		return resolve_program(env, out, n);
	char self[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0)
		return false;
	self[len] = '\0';
	char *slash = strrchr(self, '/');
	if (slash == NULL || (size_t)(slash - self) + sizeof("/sha1kit") > sizeof(self))
		return false;
	strcpy(slash, "/sha1kit");
	return resolve_program(self, out, n);
}

/* Version and SHA-1 backend of a tool from `TOOL version --build-options` (git) or `TOOL --version`
 * (sha1kit). Git names its SHA-1 backend on a "SHA-1: " line (git 2.47 and later; "sha1: " in some
 * versions); older versions do not say (backend left empty). */
static int describe_tool(struct bench_git_tool *t, const char *ceiling)
{
	static char version_arg[] = "version", build_opt[] = "--build-options", dash_version[] = "--version";
	char *argv[4] = {t->path, NULL, NULL, NULL};
	if (t->is_sha1kit) {
		argv[1] = dash_version;
	} else {
		argv[1] = version_arg;
		argv[2] = build_opt;
	}
	int fd = temp_fd();
	struct child_result res;
	if (fd < 0) {
		sk_error(errno, "bench: --git: cannot create a temporary file");
		return -1;
	}
	if (run_child(argv, "/", ceiling, fd, -1, &res) != 0) {
		close(fd);
		return -1;
	}
	char *text = slurp_fd(fd, NULL);
	close(fd);
	if (!WIFEXITED(res.status) || WEXITSTATUS(res.status) != 0 || text == NULL || text[0] == '\0') {
		sk_error(0, "bench: --git: %s %s%s%s failed (%s)", sk_quote(t->path), argv[1],
		         argv[2] ? " " : "", argv[2] ? argv[2] : "",
		         WIFEXITED(res.status) && WEXITSTATUS(res.status) == 127 ? "cannot be run"
		                                                                 : "no version");
		free(text);
		return -1;
	}
	char line[256];
	first_line(line, sizeof(line), text);
	const char *v = line;
	if (t->is_sha1kit && strncmp(line, "sha1kit ", 8) == 0)
		v = line + 8;
	if (!t->is_sha1kit) {
		if (strncmp(line, "git version ", 12) != 0) {
			sk_error(0, "bench: --git-binary: %s is not git (its version line is %s)",
			         sk_quote(t->path), sk_quote(line));
			free(text);
			return -1;
		}
		v = line + 12;
	}
	snprintf(t->version, sizeof(t->version), "%s", v);
	t->sha1_backend[0] = '\0';
	t->n_build_options = 0;
	for (char *p = text, *next; *p; p = next) {
		size_t len = strcspn(p, "\n");
		next = p[len] ? p + len + 1 : p + len;
		p[len] = '\0';
		if (t->is_sha1kit)
			continue;
		if (strncmp(p, "SHA-1: ", 7) == 0 || strncmp(p, "sha1: ", 6) == 0)
			first_line(t->sha1_backend, sizeof(t->sha1_backend), strchr(p, ' ') + 1);
		if (t->n_build_options < BENCH_GIT_MAX_OPTIONS && *p)
			first_line(t->build_options[t->n_build_options++], sizeof(t->build_options[0]), p);
	}
	if (t->is_sha1kit)
		snprintf(t->sha1_backend, sizeof(t->sha1_backend), "sha1kit SHA-1DC");
	free(text);
	return 0;
}

/* ---- set-up ------------------------------------------------------------------------------------ */

static bool is_pack_file(const char *path, struct bench_git *g)
{
	unsigned char h[12];
	int fd = open(path, O_RDONLY);
	struct stat st;
	if (fd < 0)
		return false;
	bool ok =
	    fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && read(fd, h, 12) == 12 && memcmp(h, "PACK", 4) == 0;
	close(fd);
	if (ok) {
		/* The pack header: "PACK", version, object count (big-endian 32-bit words). */
		g->pack_bytes = (uint64_t)st.st_size;
		g->pack_objects = (uint32_t)h[8] << 24 | (uint32_t)h[9] << 16 | (uint32_t)h[10] << 8 | h[11];
	}
	return ok;
}

static void remove_work(struct bench_git *g)
{
	free(g->ref_idx);
	g->ref_idx = NULL;
	g->ref_idx_len = 0;
	if (g->work[0] == '\0')
		return;
	char path[PATH_MAX + 64];
	for (size_t i = 0; i < g->n_tools; i++) {
		snprintf(path, sizeof(path), "%s/out-%zu.idx", g->work, i);
		unlink(path);
		snprintf(path, sizeof(path), "%s/out-%zu.rev", g->work, i);
		unlink(path);
	}
	static const char *const vp_files[] = {"p.pack", "p.idx", "p.rev", "p.keep", "p.promisor"};
	for (size_t i = 0; i < sizeof(vp_files) / sizeof(vp_files[0]); i++) {
		snprintf(path, sizeof(path), "%s/vp/%s", g->work, vp_files[i]);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/vp", g->work);
	rmdir(path);
	rmdir(g->work);
	g->work[0] = '\0';
}

int bench_git_select(struct bench_git *g, const char *list, const char **bad)
{
	memset(g->want, 0, sizeof(g->want));
	g->workloads_given = true;
	for (const char *p = list;; p++) {
		size_t len = strcspn(p, ","), w;
		for (w = 0; w < BENCH_GIT_N_WORKLOADS; w++)
			if (strlen(bench_git_workload_names[w]) == len &&
			    strncmp(p, bench_git_workload_names[w], len) == 0)
				break;
		if (w == BENCH_GIT_N_WORKLOADS) {
			*bad = p;
			return -1;
		}
		g->want[w] = true;
		p += len;
		if (*p == '\0')
			return 0;
	}
}

bool bench_git_wanted(const struct bench_git *g)
{
	return g->pack_arg != NULL || g->repo_arg != NULL || g->loose_arg != NULL;
}

static int check_dir(const char *arg, char *out, const char *option)
{
	struct stat st;
	if (realpath(arg, out) == NULL || stat(out, &st) != 0) {
		sk_error(errno, "bench: %s: %s", option, sk_quote(arg));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		sk_error(ENOTDIR, "bench: %s: %s", option, sk_quote(arg));
		return -1;
	}
	return 0;
}

/* The workloads to run: those of --git-workloads, each with what it needs; else every workload the
 * inputs given allow, but for the one-thread variants and index-verify. */
static int choose_workloads(struct bench_git *g)
{
	for (size_t w = 0; w < BENCH_GIT_N_WORKLOADS; w++) {
		const char *need = NULL;
		bool have = true;
		if (needs_pack(w)) {
			have = g->pack[0] != '\0';
			need = "--git=PACK";
		} else if (w == BENCH_GIT_FSCK_LOOSE) {
			have = g->loose[0] != '\0';
			need = "--git-loose=DIR";
		} else {
			have = g->repo[0] != '\0';
			need = "--git-repo=DIR";
		}
		if (!g->workloads_given) {
			g->want[w] = have && (w == BENCH_GIT_INDEX_PACK || w == BENCH_GIT_VERIFY_PACK ||
			                      w == BENCH_GIT_FSCK || w == BENCH_GIT_FSCK_LOOSE);
		} else if (g->want[w] && !have) {
			sk_error(0, "bench: --git-workloads: %s needs %s", bench_git_workload_names[w], need);
			return -1;
		}
	}
	return 0;
}

/* The reference idx: the git on PATH indexes the pack (through a link in WORK/vp, where index-verify
 * and verify-pack then find it beside the pack). */
static int make_reference_idx(struct bench_git *g)
{
	static char s_index_pack[] = "index-pack", s_norev[] = "--no-rev-index", s_o[] = "-o";
	char dir[PATH_MAX + 8], pack[PATH_MAX + 16], idx[PATH_MAX + 16];
	snprintf(dir, sizeof(dir), "%s/vp", g->work);
	snprintf(pack, sizeof(pack), "%s/p.pack", dir);
	snprintf(idx, sizeof(idx), "%s/p.idx", dir);
	if (mkdir(dir, 0700) != 0 || symlink(g->pack, pack) != 0) {
		sk_error(errno, "bench: --git: cannot set up %s", sk_quote(dir));
		return -1;
	}
	static char s_sha256[] = "--object-format=sha256";
	char *argv[] = {g->tools[1].path, s_index_pack, s_norev, s_o, idx, pack, NULL, NULL};
	if (g->sha256) {
		argv[6] = pack;
		argv[5] = s_sha256;
	}
	int err_fd = temp_fd();
	struct child_result res;
	if (err_fd < 0) {
		sk_error(errno, "bench: --git: cannot create a temporary file");
		return -1;
	}
	int rc = run_child(argv, g->work, g->ceiling, -1, err_fd, &res);
	if (rc == 0 && (!WIFEXITED(res.status) || WEXITSTATUS(res.status) != 0)) {
		char *err = slurp_fd(err_fd, NULL), line[200] = "";
		if (err != NULL)
			first_line(line, sizeof(line), err);
		free(err);
		sk_error(0, "bench: --git: git index-pack of %s failed%s%s%s; nothing is measured",
		         sk_quote(g->pack), line[0] ? " (" : "", line, line[0] ? ")" : "");
		rc = -1;
	}
	close(err_fd);
	if (rc == 0 && (g->ref_idx = slurp_file(idx, &g->ref_idx_len)) == NULL) {
		sk_error(errno, "bench: --git: cannot read %s", sk_quote(idx));
		rc = -1;
	}
	return rc;
}

int bench_git_prepare(struct bench_git *g)
{
	if (g->pack_arg != NULL) {
		if (realpath(g->pack_arg, g->pack) == NULL) {
			sk_error(errno, "bench: --git: %s", sk_quote(g->pack_arg));
			return -1;
		}
		if (!is_pack_file(g->pack, g)) {
			sk_error(0, "bench: --git: %s is not a Git pack (no PACK header)",
			         sk_quote(g->pack_arg));
			return -1;
		}
	}
	if (g->repo_arg != NULL && check_dir(g->repo_arg, g->repo, "--git-repo") != 0)
		return -1;
	if (g->loose_arg != NULL && check_dir(g->loose_arg, g->loose, "--git-loose") != 0)
		return -1;
	if (choose_workloads(g) != 0)
		return -1;
	const char *tmp = getenv("TMPDIR");
	snprintf(g->work, sizeof(g->work), "%s/sha1kit-bench-git-XXXXXX", tmp != NULL && *tmp ? tmp : "/tmp");
	if (mkdtemp(g->work) == NULL) {
		sk_error(errno, "bench: --git: cannot create a work directory in %s",
		         sk_quote(tmp != NULL && *tmp ? tmp : "/tmp"));
		g->work[0] = '\0';
		return -1;
	}
	snprintf(g->ceiling, sizeof(g->ceiling), "%s", g->work);
	*strrchr(g->ceiling, '/') = '\0';
	if (g->ceiling[0] == '\0')
		snprintf(g->ceiling, sizeof(g->ceiling), "/");

	struct bench_git_tool *t = &g->tools[0];
	memset(g->tools, 0, sizeof(g->tools));
	snprintf(t->id, sizeof(t->id), "sha1kit");
	t->is_sha1kit = true;
	if (!find_sha1kit(t->path, sizeof(t->path))) {
		sk_error(0, "bench: --git: the sha1kit program is not found (next to sha1kit-bench, or "
		            "$SHA1KIT_BENCH_SHA1KIT)");
		goto fail;
	}
	g->n_tools = 1;
	for (size_t i = 0; i <= g->n_binaries; i++) {
		const char *name = i == 0 ? "git" : g->binaries[i - 1];
		t = &g->tools[g->n_tools];
		if (!resolve_program(name, t->path, sizeof(t->path))) {
			sk_error(0, "bench: %s: %s not found or not executable",
			         i == 0 ? "--git" : "--git-binary", sk_quote(name));
			goto fail;
		}
		if (i == 0)
			snprintf(t->id, sizeof(t->id), "git");
		else
			snprintf(t->id, sizeof(t->id), "git-%zu", i + 1);
		g->n_tools++;
	}
	for (size_t i = 0; i < g->n_tools; i++)
		if (describe_tool(&g->tools[i], g->ceiling) != 0)
			goto fail;
	bool pack_work = false;
	for (size_t w = 0; w <= BENCH_GIT_VERIFY_PACK; w++)
		pack_work |= g->want[w];
	if (pack_work && make_reference_idx(g) != 0)
		goto fail;
	return 0;
fail:
	remove_work(g);
	return -1;
}

/* ---- measuring --------------------------------------------------------------------------------- */

static void make_cmd(const struct bench_git *g, enum bench_git_workload w, size_t tool, struct git_cmd *c)
{
	const struct bench_git_tool *t = &g->tools[tool];
	static char s_index_pack[] = "index-pack", s_o[] = "-o", s_verify_pack[] = "verify-pack",
	            s_fsck[] = "fsck", s_full[] = "--full", s_nodangling[] = "--no-dangling",
	            s_noprogress[] = "--no-progress", s_norev[] = "--no-rev-index", s_verify[] = "--verify",
	            s_one[] = "--threads=1", s_sha256[] = "--object-format=sha256";
	bool one = w == BENCH_GIT_INDEX_PACK_1 || w == BENCH_GIT_INDEX_VERIFY_1 || w == BENCH_GIT_FSCK_1;
	size_t k = 0;
	memset(c, 0, sizeof(*c));
	c->argv[k++] = (char *)t->path;
	c->cwd = g->work;
	snprintf(c->vp_pack, sizeof(c->vp_pack), "%s/vp/p.pack", g->work);
	snprintf(c->vp_idx, sizeof(c->vp_idx), "%s/vp/p.idx", g->work);
	switch (w) {
	case BENCH_GIT_INDEX_PACK:
	case BENCH_GIT_INDEX_PACK_1:
		snprintf(c->out_idx, sizeof(c->out_idx), "%s/out-%zu.idx", g->work, tool);
		c->argv[k++] = s_index_pack;
		if (g->sha256)
			c->argv[k++] = s_sha256;
		if (one)
			c->argv[k++] = s_one;
		c->argv[k++] = s_o;
		c->argv[k++] = c->out_idx;
		c->argv[k++] = s_norev;
		c->argv[k++] = (char *)g->pack;
		break;
	case BENCH_GIT_INDEX_VERIFY:
	case BENCH_GIT_INDEX_VERIFY_1:
		c->argv[k++] = s_index_pack;
		if (g->sha256)
			c->argv[k++] = s_sha256;
		c->argv[k++] = s_norev;
		c->argv[k++] = s_verify;
		if (one)
			c->argv[k++] = s_one;
		c->argv[k++] = c->vp_pack;
		break;
	case BENCH_GIT_VERIFY_PACK:
		c->argv[k++] = s_verify_pack;
		if (g->sha256)
			c->argv[k++] = s_sha256;
		c->argv[k++] = c->vp_idx;
		break;
	default:
		/* Both in DIR, which they find the repository from as git does (a work tree or a
		 * git directory). git fsck checks packs on one thread: fsck-1 sets sha1kit's only. */
		c->cwd = w == BENCH_GIT_FSCK_LOOSE ? g->loose : g->repo;
		c->argv[k++] = s_fsck;
		if (!t->is_sha1kit)
			c->argv[k++] = s_full; /* sha1kit fsck always checks packs fully */
		else if (one)
			c->argv[k++] = s_one;
		c->argv[k++] = s_nodangling;
		c->argv[k++] = s_noprogress;
		break;
	}
}

static void copy_argv(struct bench_git_row *row, const struct git_cmd *c)
{
	row->n_argv = 0;
	for (size_t k = 0; c->argv[k] != NULL && row->n_argv < BENCH_GIT_MAX_ARGS; k++)
		snprintf(row->argv[row->n_argv++], sizeof(row->argv[0]), "%s", c->argv[k]);
}

static void progress(bool on, size_t done, size_t total, const char *what, const char *tool, int run,
                     int runs)
{
	if (!on)
		return;
	fprintf(stderr, "\r%-79.79s", "");
	if (run == 0)
		fprintf(stderr, "\r[%3u%%] git workloads: %s: %s (warm-up)",
		        (unsigned)(total ? 100 * done / total : 0), what, tool);
	else
		fprintf(stderr, "\r[%3u%%] git workloads: %s: %s (run %d of %d)",
		        (unsigned)(total ? 100 * done / total : 0), what, tool, run, runs);
	fflush(stderr);
}

/* One run of `c`; checks its result: an index-pack's idx against the reference idx, an fsck's output
 * against *ref (NULL when this run makes it: the git on PATH's warm-up). Returns 0, or -1 after a
 * diagnostic. */
static int one_run(struct bench_git *g, enum bench_git_workload w, size_t tool, const struct git_cmd *c,
                   int out_fd, int err_fd, char **ref, size_t *ref_len, struct child_result *res)
{
	const char *what = bench_git_workload_names[w];
	truncate_fd(out_fd);
	truncate_fd(err_fd);
	if (c->out_idx[0]) {
		unlink(c->out_idx);
		char rev[PATH_MAX + 64];
		snprintf(rev, sizeof(rev), "%.*s.rev", (int)strlen(c->out_idx) - 4, c->out_idx);
		unlink(rev);
	}
	if (run_child(c->argv, c->cwd, g->ceiling, out_fd, err_fd, res) != 0)
		return -1;
	if (!WIFEXITED(res->status) || WEXITSTATUS(res->status) != 0) {
		char *err = slurp_fd(err_fd, NULL), line[200] = "";
		if (err != NULL)
			first_line(line, sizeof(line), err);
		free(err);
		if (WIFSIGNALED(res->status))
			sk_error(0, "bench: --git: %s %s was killed by signal %d; nothing is reported",
			         g->tools[tool].id, what, WTERMSIG(res->status));
		else
			sk_error(0,
			         "bench: --git: %s %s failed with exit status %d%s%s%s; nothing is reported",
			         g->tools[tool].id, what, WEXITSTATUS(res->status), line[0] ? " (" : "", line,
			         line[0] ? ")" : "");
		return -1;
	}
	if (!is_index(w) && !is_fsck(w))
		return 0; /* index-verify, verify-pack: success is the check (they compare the idx) */
	size_t len = 0;
	char *got = is_index(w) ? slurp_file(c->out_idx, &len) : slurp_fd(out_fd, &len);
	if (got == NULL) {
		sk_error(errno, "bench: --git: %s %s: cannot read its output", g->tools[tool].id, what);
		return -1;
	}
	if (is_index(w)) {
		bool same = len == g->ref_idx_len && memcmp(got, g->ref_idx, len) == 0;
		free(got);
		if (!same) {
			sk_error(
			    0, "bench: --git: the idx of %s %s differs from git's (%s); nothing is reported",
			    g->tools[tool].id, what, g->tools[1].path);
			return -1;
		}
		return 0;
	}
	if (*ref == NULL) {
		*ref = got;
		*ref_len = len;
		return 0;
	}
	bool same = len == *ref_len && memcmp(got, *ref, len) == 0;
	free(got);
	if (!same) {
		sk_error(0, "bench: --git: %s %s prints other than git fsck (%s); nothing is reported",
		         g->tools[tool].id, what, g->tools[1].path);
		return -1;
	}
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void stats(struct bench_git_stat *s, const double *v, int n)
{
	double sorted[BENCH_GIT_MAX_REPS];
	memcpy(sorted, v, (size_t)n * sizeof(*sorted));
	qsort(sorted, (size_t)n, sizeof(*sorted), cmp_double);
	s->min = sorted[0];
	s->max = sorted[n - 1];
	s->median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

static void summarise(struct bench_git_row *row)
{
	double v[6][BENCH_GIT_MAX_REPS];
	int n = row->n_samples;
	for (int k = 0; k < n; k++) {
		const struct bench_git_sample *x = &row->samples[k];
		v[0][k] = x->wall;
		v[1][k] = x->user;
		v[2][k] = x->sys;
		v[3][k] = x->user + x->sys;
		v[4][k] = (double)x->rss_kib;
		v[5][k] = (double)x->minor_faults;
	}
	stats(&row->wall, v[0], n);
	stats(&row->user, v[1], n);
	stats(&row->sys, v[2], n);
	stats(&row->cpu, v[3], n);
	stats(&row->rss_kib, v[4], n);
	stats(&row->minor_faults, v[5], n);
}

static double ratio(double num, double den)
{
	return num > 0 && den > 0 ? num / den : -1;
}

int bench_git_measure(struct bench_git *g, bool show_progress)
{
	enum bench_git_workload workloads[BENCH_GIT_N_WORKLOADS];
	size_t n_work = 0;
	for (size_t w = 0; w < BENCH_GIT_N_WORKLOADS; w++)
		if (g->want[w])
			workloads[n_work++] = (enum bench_git_workload)w;
	int out_fd = temp_fd(), err_fd = temp_fd(), status = -1;
	char *ref[BENCH_GIT_N_WORKLOADS] = {NULL};
	size_t ref_len[BENCH_GIT_N_WORKLOADS] = {0};
	size_t total = n_work * g->n_tools * (size_t)(g->reps + 1), done = 0;
	struct git_cmd *cmds = calloc(BENCH_GIT_N_WORKLOADS * BENCH_GIT_MAX_TOOLS, sizeof(*cmds));
	if (out_fd < 0 || err_fd < 0 || cmds == NULL) {
		sk_error(errno, "bench: --git: cannot create a temporary file");
		goto out;
	}
	g->n_rows = 0;
	for (size_t w = 0; w < n_work; w++)
		for (size_t t = 0; t < g->n_tools; t++) {
			struct bench_git_row *row = &g->rows[g->n_rows++];
			memset(row, 0, sizeof(*row));
			row->workload = workloads[w];
			row->tool = t;
			make_cmd(g, workloads[w], t, &cmds[w * g->n_tools + t]);
			copy_argv(row, &cmds[w * g->n_tools + t]);
		}
	for (size_t w = 0; w < n_work; w++) {
		enum bench_git_workload wl = workloads[w];
		const char *what = bench_git_workload_names[wl];
		/* Warm-up: git on PATH first (its fsck output is the reference), then the others. */
		for (size_t k = 0; k < g->n_tools; k++) {
			size_t t = k == 0 ? 1 : k == 1 ? 0 : k;
			struct child_result res;
			progress(show_progress, done++, total, what, g->tools[t].id, 0, g->reps);
			if (one_run(g, wl, t, &cmds[w * g->n_tools + t], out_fd, err_fd, &ref[wl],
			            &ref_len[wl], &res) != 0)
				goto out;
		}
		for (int rep = 1; rep <= g->reps; rep++)
			for (size_t k = 0; k < g->n_tools; k++) {
				size_t t = rep % 2 ? k : g->n_tools - 1 - k; /* alternate the order */
				struct bench_git_row *row = &g->rows[w * g->n_tools + t];
				struct child_result res;
				progress(show_progress, done++, total, what, g->tools[t].id, rep, g->reps);
				if (one_run(g, wl, t, &cmds[w * g->n_tools + t], out_fd, err_fd, &ref[wl],
				            &ref_len[wl], &res) != 0)
					goto out;
				struct bench_git_sample *s = &row->samples[row->n_samples++];
				s->wall = res.wall;
				s->user = res.user;
				s->sys = res.sys;
				s->rss_kib = res.rss_kib;
				s->minor_faults = res.minor_faults;
			}
	}
	for (size_t i = 0; i < g->n_rows; i++)
		summarise(&g->rows[i]);
	for (size_t i = 0; i < g->n_rows; i++) {
		struct bench_git_row *row = &g->rows[i], *sk = &g->rows[i - row->tool], *git = sk + 1;
		row->ratio_wall = ratio(git->wall.median, row->wall.median);
		row->ratio_cpu = ratio(git->cpu.median, row->cpu.median);
		row->per_sk_wall = ratio(row->wall.median, sk->wall.median);
		row->per_sk_cpu = ratio(row->cpu.median, sk->cpu.median);
	}
	status = 0;
out:
	if (show_progress) {
		fprintf(stderr, "\r%-79.79s\r", "");
		fflush(stderr);
	}
	for (size_t i = 0; i < BENCH_GIT_N_WORKLOADS; i++)
		free(ref[i]);
	free(cmds);
	if (out_fd >= 0)
		close(out_fd);
	if (err_fd >= 0)
		close(err_fd);
	remove_work(g);
	return status;
}

void bench_git_cleanup(struct bench_git *g)
{
	remove_work(g);
}

/* ---- output ------------------------------------------------------------------------------------ */

static void tool_label(char *buf, size_t n, const struct bench_git_tool *t)
{
	snprintf(buf, n, "%s %s", t->is_sha1kit ? "sha1kit" : "git", t->version);
}

void bench_git_print(FILE *out, const struct bench_git *g, bool markdown)
{
	char label[160];
	fprintf(out,
	        "\n%sGit workloads: whole processes, median of %d alternating runs after a warm-up "
	        "[min - max]; vs git: git's median / this median (> 1: faster than git); vs sha1kit: "
	        "this median / sha1kit's\n",
	        markdown ? "#### " : "", g->reps);
	if (g->pack[0])
		fprintf(out, "%sPack: %s (%.1f MiB, %u objects)\n", markdown ? "- " : "", g->pack,
		        (double)g->pack_bytes / (1 << 20), (unsigned)g->pack_objects);
	if (g->repo[0])
		fprintf(out, "%sRepository: %s\n", markdown ? "- " : "", g->repo);
	if (g->loose[0])
		fprintf(out, "%sRepository of loose objects: %s\n", markdown ? "- " : "", g->loose);
	for (size_t i = 0; i < g->n_tools; i++) {
		const struct bench_git_tool *t = &g->tools[i];
		tool_label(label, sizeof(label), t);
		fprintf(out, "%s%s: %s (%s; SHA-1: %s)\n", markdown ? "- " : "", t->id, label, t->path,
		        t->sha1_backend[0] ? t->sha1_backend : "not reported by this git");
	}
	if (markdown)
		fputs("\n| workload | tool | wall s [min - max] | user s | sys s | max RSS MB | minor faults "
		      "| vs git (wall) | vs git (CPU) | vs sha1kit (wall) | vs sha1kit (CPU) |\n"
		      "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
		      out);
	else
		fprintf(out, "\n%-14s %-10s %-24s %8s %8s %10s %12s %9s %9s %9s %9s\n", "workload", "tool",
		        "wall s [min - max]", "user s", "sys s", "max RSS MB", "minor faults", "vs git",
		        "CPU", "vs sk", "CPU");
	for (size_t i = 0; i < g->n_rows; i++) {
		const struct bench_git_row *r = &g->rows[i];
		char wall[64];
		snprintf(wall, sizeof(wall), "%.3f [%.3f - %.3f]", r->wall.median, r->wall.min, r->wall.max);
		fprintf(out,
		        markdown
		            ? "| %s | %s | %s | %.3f | %.3f | %.1f | %.0f | %.2fx | %.2fx | %.2fx | %.2fx |\n"
		            : "%-14s %-10s %-24s %8.3f %8.3f %10.1f %12.0f %8.2fx %8.2fx %8.2fx %8.2fx\n",
		        bench_git_workload_names[r->workload], g->tools[r->tool].id, wall, r->user.median,
		        r->sys.median, r->rss_kib.median * 1024 / 1e6, r->minor_faults.median, r->ratio_wall,
		        r->ratio_cpu, r->per_sk_wall, r->per_sk_cpu);
	}
}

#if defined(SK_BENCH_HAVE_JANSSON)
static json_t *stat_json(const struct bench_git_stat *s)
{
	return json_pack("{s:f, s:f, s:f}", "median", s->median, "min", s->min, "max", s->max);
}

static json_t *ratio_json(double r)
{
	return r > 0 ? json_real(r) : json_null();
}

void *bench_git_json(const struct bench_git *g)
{
	json_t *tools = json_array(), *rows = json_array();
	for (size_t i = 0; i < g->n_tools; i++) {
		const struct bench_git_tool *t = &g->tools[i];
		json_t *opts = json_array();
		for (size_t k = 0; k < t->n_build_options; k++)
			json_array_append_new(opts, json_string(t->build_options[k]));
		json_array_append_new(
		    tools,
		    json_pack("{s:s, s:s, s:s, s:s, s:o, s:o}", "id", t->id, "kind",
		              t->is_sha1kit ? "sha1kit" : "git", "path", t->path, "version", t->version,
		              "sha1_backend", t->sha1_backend[0] ? json_string(t->sha1_backend) : json_null(),
		              "build_options", opts));
	}
	for (size_t i = 0; i < g->n_rows; i++) {
		const struct bench_git_row *r = &g->rows[i];
		json_t *argv = json_array(), *samples = json_array();
		for (size_t k = 0; k < r->n_argv; k++)
			json_array_append_new(argv, json_string(r->argv[k]));
		for (int k = 0; k < r->n_samples; k++)
			json_array_append_new(
			    samples, json_pack("{s:f, s:f, s:f, s:I, s:I}", "wall_s", r->samples[k].wall,
			                       "user_s", r->samples[k].user, "sys_s", r->samples[k].sys,
			                       "max_rss_kib", (json_int_t)r->samples[k].rss_kib,
			                       "minor_faults", (json_int_t)r->samples[k].minor_faults));
		json_array_append_new(
		    rows,
		    json_pack("{s:s, s:s, s:o, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:{s:o, s:o}}",
		              "workload", bench_git_workload_names[r->workload], "tool", g->tools[r->tool].id,
		              "command", argv, "runs", r->n_samples, "wall_s", stat_json(&r->wall), "user_s",
		              stat_json(&r->user), "sys_s", stat_json(&r->sys), "cpu_s", stat_json(&r->cpu),
		              "max_rss_kib", stat_json(&r->rss_kib), "minor_faults",
		              stat_json(&r->minor_faults), "samples", samples, "ratio_to_git", "wall",
		              ratio_json(r->ratio_wall), "cpu", ratio_json(r->ratio_cpu)));
	}
	json_t *o = json_object();
	json_object_set_new(o, "runs", json_integer(g->reps));
	json_object_set_new(o, "warmup", json_integer(1));
	json_object_set_new(o, "order",
	                    json_string("alternating: odd rounds in tool order, even rounds reversed"));
	json_object_set_new(
	    o, "clock", json_string("wall: CLOCK_MONOTONIC; user, sys, max RSS, minor faults: wait4 rusage"));
	json_object_set_new(o, "pack",
	                    g->pack[0]
	                        ? json_pack("{s:s, s:I, s:I}", "path", g->pack, "bytes",
	                                    (json_int_t)g->pack_bytes, "objects", (json_int_t)g->pack_objects)
	                        : json_null());
	json_object_set_new(o, "repository", g->repo[0] ? json_pack("{s:s}", "path", g->repo) : json_null());
	if (g->loose[0])
		json_object_set_new(o, "loose_repository", json_pack("{s:s}", "path", g->loose));
	json_object_set_new(o, "tools", tools);
	json_object_set_new(o, "workloads", rows);
	return o;
}
#else
void *bench_git_json(const struct bench_git *g)
{
	(void)g;
	return NULL;
}
#endif
