/*
 * bench_git.c - the Git workloads of `sha1kit bench` (--git=PACK, --git-repo=DIR): whole processes of
 * sha1kit and of one or more git binaries doing the same work, timed from outside.
 *
 *  - index-pack: `TOOL index-pack -o OUT.idx PACK` (each tool's default thread count); every idx a
 *    run writes must be byte for byte the idx that the git on PATH wrote in its warm-up run, else
 *    nothing is reported;
 *  - verify-pack: `TOOL verify-pack P.idx`, in a directory holding a link to PACK and that idx;
 *  - fsck: `sha1kit fsck --no-dangling --no-progress` and `git fsck --full --no-dangling --no-progress`,
 *    both run in DIR; every run must succeed and print what git's warm-up run printed.
 * Every command first runs once untimed (a warm-up that also loads the pack into the page cache),
 * then the timed rounds run every command once, odd rounds in one order, even rounds in the
 * reverse. Each run is a child process: wall time from CLOCK_MONOTONIC around fork and wait4, user
 * and system time and peak RSS from wait4's rusage. git runs outside any repository
 * (GIT_CEILING_DIRECTORIES) with neither system nor global configuration.
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
	char vp_idx[PATH_MAX + 16];  /* verify-pack: the idx it checks (git's, beside a link to PACK) */
	const char *cwd;             /* where it runs */
};

static const char *const workload_names[] = {"index-pack", "verify-pack", "fsck"};

/* ---- child processes --------------------------------------------------------------------------- */

struct child_result {
	int status; /* wait status */
	double wall, user, sys;
	long rss_kib;
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
	if (g->work[0] == '\0')
		return;
	char path[PATH_MAX + 64];
	for (size_t i = 0; i < g->n_tools; i++) {
		snprintf(path, sizeof(path), "%s/out-%zu.idx", g->work, i);
		unlink(path);
		snprintf(path, sizeof(path), "%s/out-%zu.rev", g->work, i);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/vp/p.pack", g->work);
	unlink(path);
	snprintf(path, sizeof(path), "%s/vp/p.idx", g->work);
	unlink(path);
	snprintf(path, sizeof(path), "%s/vp/p.rev", g->work);
	unlink(path);
	snprintf(path, sizeof(path), "%s/vp", g->work);
	rmdir(path);
	rmdir(g->work);
	g->work[0] = '\0';
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
	if (g->repo_arg != NULL) {
		struct stat st;
		if (realpath(g->repo_arg, g->repo) == NULL || stat(g->repo, &st) != 0) {
			sk_error(errno, "bench: --git-repo: %s", sk_quote(g->repo_arg));
			return -1;
		}
		if (!S_ISDIR(st.st_mode)) {
			sk_error(ENOTDIR, "bench: --git-repo: %s", sk_quote(g->repo_arg));
			return -1;
		}
	}
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
	return 0;
fail:
	remove_work(g);
	return -1;
}

/* ---- measuring --------------------------------------------------------------------------------- */

static void make_cmd(const struct bench_git *g, size_t workload, size_t tool, struct git_cmd *c)
{
	const struct bench_git_tool *t = &g->tools[tool];
	static char s_index_pack[] = "index-pack", s_o[] = "-o", s_verify_pack[] = "verify-pack",
	            s_fsck[] = "fsck", s_full[] = "--full", s_nodangling[] = "--no-dangling",
	            s_noprogress[] = "--no-progress", s_norev[] = "--no-rev-index";
	size_t k = 0;
	memset(c, 0, sizeof(*c));
	c->argv[k++] = (char *)t->path;
	c->cwd = g->work;
	switch (workload) {
	case 0:
		snprintf(c->out_idx, sizeof(c->out_idx), "%s/out-%zu.idx", g->work, tool);
		c->argv[k++] = s_index_pack;
		c->argv[k++] = s_o;
		c->argv[k++] = c->out_idx;
		/* the idx alone, as git 2.39 writes it (2.41+ and sha1kit add a .rev by default) */
		c->argv[k++] = s_norev;
		c->argv[k++] = (char *)g->pack;
		break;
	case 1:
		snprintf(c->vp_idx, sizeof(c->vp_idx), "%s/vp/p.idx", g->work);
		c->argv[k++] = s_verify_pack;
		c->argv[k++] = c->vp_idx;
		break;
	default:
		/* Both in DIR, which they find the repository from as git does (a work tree or a
		 * git directory). */
		c->cwd = g->repo;
		c->argv[k++] = s_fsck;
		if (!t->is_sha1kit)
			c->argv[k++] = s_full; /* sha1kit fsck always checks packs fully */
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

/* One run of `c`; checks its result. `ref` is the expected output (idx bytes, or fsck's stdout),
 * NULL when this run makes it (the git on PATH's warm-up). Returns 0, or -1 after a diagnostic. */
static int one_run(struct bench_git *g, size_t workload, size_t tool, const struct git_cmd *c, int out_fd,
                   int err_fd, char **ref, size_t *ref_len, struct child_result *res)
{
	const char *what = workload_names[workload];
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
	if (workload == 1)
		return 0; /* verify-pack: success is the check (it compares the idx itself) */
	size_t len = 0;
	char *got = workload == 0 ? slurp_file(c->out_idx, &len) : slurp_fd(out_fd, &len);
	if (got == NULL) {
		sk_error(errno, "bench: --git: %s %s: cannot read its output", g->tools[tool].id, what);
		return -1;
	}
	if (*ref == NULL) {
		*ref = got;
		*ref_len = len;
		return 0;
	}
	bool same = len == *ref_len && memcmp(got, *ref, len) == 0;
	free(got);
	if (!same) {
		if (workload == 0)
			sk_error(0,
			         "bench: --git: the idx of %s index-pack differs from git's (%s); nothing is "
			         "reported",
			         g->tools[tool].id, g->tools[1].path);
		else
			sk_error(0,
			         "bench: --git: %s fsck prints other than git fsck (%s); nothing is reported",
			         g->tools[tool].id, g->tools[1].path);
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
	double *sorted = malloc((size_t)n * sizeof(*sorted));
	if (sorted == NULL) {
		s->median = s->min = s->max = v[0];
		return;
	}
	memcpy(sorted, v, (size_t)n * sizeof(*sorted));
	qsort(sorted, (size_t)n, sizeof(*sorted), cmp_double);
	s->min = sorted[0];
	s->max = sorted[n - 1];
	s->median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	free(sorted);
}

int bench_git_measure(struct bench_git *g, bool show_progress)
{
	size_t workloads[3], n_work = 0;
	if (g->pack[0]) {
		workloads[n_work++] = 0;
		workloads[n_work++] = 1;
	}
	if (g->repo[0])
		workloads[n_work++] = 2;
	int out_fd = temp_fd(), err_fd = temp_fd(), status = -1;
	char *ref[3] = {NULL, NULL, NULL};
	size_t ref_len[3] = {0, 0, 0};
	size_t total = n_work * g->n_tools * (size_t)(g->reps + 1), done = 0;
	struct git_cmd cmds[3][BENCH_GIT_MAX_TOOLS];
	if (out_fd < 0 || err_fd < 0) {
		sk_error(errno, "bench: --git: cannot create a temporary file");
		goto out;
	}
	g->n_rows = 0;
	for (size_t w = 0; w < n_work; w++)
		for (size_t t = 0; t < g->n_tools; t++) {
			struct bench_git_row *row = &g->rows[g->n_rows++];
			memset(row, 0, sizeof(*row));
			row->workload = workload_names[workloads[w]];
			row->tool = t;
			make_cmd(g, workloads[w], t, &cmds[w][t]);
			copy_argv(row, &cmds[w][t]);
		}
	for (size_t w = 0; w < n_work; w++) {
		size_t wl = workloads[w];
		/* Warm-up: git on PATH first (its output is the reference), then the others. */
		for (size_t k = 0; k < g->n_tools; k++) {
			size_t t = k == 0 ? 1 : k == 1 ? 0 : k;
			struct child_result res;
			progress(show_progress, done++, total, workload_names[wl], g->tools[t].id, 0,
			         g->reps);
			if (one_run(g, wl, t, &cmds[w][t], out_fd, err_fd, &ref[wl], &ref_len[wl], &res) != 0)
				goto out;
			if (wl == 0 && t == 1) {
				/* verify-pack checks the pack with git's idx beside it. */
				char dir[PATH_MAX + 8], link_name[PATH_MAX + 16], idx[PATH_MAX + 16];
				snprintf(dir, sizeof(dir), "%s/vp", g->work);
				snprintf(link_name, sizeof(link_name), "%s/p.pack", dir);
				snprintf(idx, sizeof(idx), "%s/p.idx", dir);
				FILE *f = NULL;
				if ((mkdir(dir, 0700) != 0 && errno != EEXIST) ||
				    (unlink(link_name) != 0 && errno != ENOENT) ||
				    symlink(g->pack, link_name) != 0 || (f = fopen(idx, "wb")) == NULL ||
				    fwrite(ref[0], 1, ref_len[0], f) != ref_len[0] || fclose(f) != 0) {
					sk_error(errno, "bench: --git: cannot set up %s", sk_quote(dir));
					goto out;
				}
			}
		}
		for (int rep = 1; rep <= g->reps; rep++)
			for (size_t k = 0; k < g->n_tools; k++) {
				size_t t = rep % 2 ? k : g->n_tools - 1 - k; /* alternate the order */
				struct bench_git_row *row = &g->rows[w * g->n_tools + t];
				struct child_result res;
				progress(show_progress, done++, total, workload_names[wl], g->tools[t].id,
				         rep, g->reps);
				if (one_run(g, wl, t, &cmds[w][t], out_fd, err_fd, &ref[wl], &ref_len[wl],
				            &res) != 0)
					goto out;
				struct bench_git_sample *s = &row->samples[row->n_samples++];
				s->wall = res.wall;
				s->user = res.user;
				s->sys = res.sys;
				s->rss_kib = res.rss_kib;
			}
	}
	for (size_t i = 0; i < g->n_rows; i++) {
		struct bench_git_row *row = &g->rows[i];
		double v[4][BENCH_GIT_MAX_REPS];
		for (int k = 0; k < row->n_samples; k++) {
			v[0][k] = row->samples[k].wall;
			v[1][k] = row->samples[k].user;
			v[2][k] = row->samples[k].sys;
			v[3][k] = (double)row->samples[k].rss_kib;
		}
		stats(&row->wall, v[0], row->n_samples);
		stats(&row->user, v[1], row->n_samples);
		stats(&row->sys, v[2], row->n_samples);
		stats(&row->rss_kib, v[3], row->n_samples);
		for (int k = 0; k < row->n_samples; k++)
			v[0][k] = row->samples[k].user + row->samples[k].sys;
		stats(&row->cpu, v[0], row->n_samples);
	}
	for (size_t i = 0; i < g->n_rows; i++) {
		struct bench_git_row *row = &g->rows[i], *git = &g->rows[i - row->tool + 1];
		row->ratio_wall = row->wall.median > 0 ? git->wall.median / row->wall.median : -1;
		row->ratio_cpu = row->cpu.median > 0 ? git->cpu.median / row->cpu.median : -1;
	}
	status = 0;
out:
	if (show_progress) {
		fprintf(stderr, "\r%-79.79s\r", "");
		fflush(stderr);
	}
	for (size_t i = 0; i < 3; i++)
		free(ref[i]);
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
	        "[min - max]; ratio: git's median / this median (> 1: faster than git)\n",
	        markdown ? "#### " : "", g->reps);
	if (g->pack[0])
		fprintf(out, "%sPack: %s (%.1f MiB, %u objects)\n", markdown ? "- " : "", g->pack,
		        (double)g->pack_bytes / (1 << 20), (unsigned)g->pack_objects);
	if (g->repo[0])
		fprintf(out, "%sRepository: %s\n", markdown ? "- " : "", g->repo);
	for (size_t i = 0; i < g->n_tools; i++) {
		const struct bench_git_tool *t = &g->tools[i];
		tool_label(label, sizeof(label), t);
		fprintf(out, "%s%s: %s (%s; SHA-1: %s)\n", markdown ? "- " : "", t->id, label, t->path,
		        t->sha1_backend[0] ? t->sha1_backend : "not reported by this git");
	}
	if (markdown)
		fputs(
		    "\n| workload | tool | wall s | user s | sys s | max RSS MB | ratio (wall) | ratio (CPU) "
		    "|\n|---|---|---:|---:|---:|---:|---:|---:|\n",
		    out);
	else
		fprintf(out, "\n%-12s %-10s %-24s %8s %8s %10s %9s %9s\n", "workload", "tool",
		        "wall s [min - max]", "user s", "sys s", "max RSS MB", "ratio", "CPU ratio");
	for (size_t i = 0; i < g->n_rows; i++) {
		const struct bench_git_row *r = &g->rows[i];
		char wall[64];
		snprintf(wall, sizeof(wall), "%.3f [%.3f - %.3f]", r->wall.median, r->wall.min, r->wall.max);
		if (markdown)
			fprintf(out, "| %s | %s | %s | %.3f | %.3f | %.1f | %.2fx | %.2fx |\n", r->workload,
			        g->tools[r->tool].id, wall, r->user.median, r->sys.median,
			        r->rss_kib.median * 1024 / 1e6, r->ratio_wall, r->ratio_cpu);
		else
			fprintf(out, "%-12s %-10s %-24s %8.3f %8.3f %10.1f %8.2fx %8.2fx\n", r->workload,
			        g->tools[r->tool].id, wall, r->user.median, r->sys.median,
			        r->rss_kib.median * 1024 / 1e6, r->ratio_wall, r->ratio_cpu);
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
			    samples, json_pack("{s:f, s:f, s:f, s:I}", "wall_s", r->samples[k].wall, "user_s",
			                       r->samples[k].user, "sys_s", r->samples[k].sys, "max_rss_kib",
			                       (json_int_t)r->samples[k].rss_kib));
		json_array_append_new(
		    rows,
		    json_pack("{s:s, s:s, s:o, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:{s:o, s:o}}", "workload",
		              r->workload, "tool", g->tools[r->tool].id, "command", argv, "runs",
		              r->n_samples, "wall_s", stat_json(&r->wall), "user_s", stat_json(&r->user),
		              "sys_s", stat_json(&r->sys), "cpu_s", stat_json(&r->cpu), "max_rss_kib",
		              stat_json(&r->rss_kib), "samples", samples, "ratio_to_git", "wall",
		              ratio_json(r->ratio_wall), "cpu", ratio_json(r->ratio_cpu)));
	}
	json_t *o = json_object();
	json_object_set_new(o, "runs", json_integer(g->reps));
	json_object_set_new(o, "warmup", json_integer(1));
	json_object_set_new(o, "order",
	                    json_string("alternating: odd rounds in tool order, even rounds reversed"));
	json_object_set_new(o, "clock",
	                    json_string("wall: CLOCK_MONOTONIC; user, sys, max RSS: wait4 rusage"));
	json_object_set_new(o, "pack",
	                    g->pack[0]
	                        ? json_pack("{s:s, s:I, s:I}", "path", g->pack, "bytes",
	                                    (json_int_t)g->pack_bytes, "objects", (json_int_t)g->pack_objects)
	                        : json_null());
	json_object_set_new(o, "repository", g->repo[0] ? json_pack("{s:s}", "path", g->repo) : json_null());
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
