/*
 * flipsweep.c - the loop of the byte-flip sweeps of tests/git/test_fsck.sh (flip_sweep) in one
 * process: for each chosen offset of a file, change that byte, run the reference git and sha1kit
 * on the repository, compare what they print, and put the byte back.
 *
 *   flipsweep FILE HOW FIRST STEP LAST PART PARTS OUTDIR GIT-COMMAND... -- SHA1KIT-COMMAND...
 *
 * The offsets are FIRST, FIRST + STEP, ... up to LAST (inclusive); of those, the k-th (from 1) is
 * used when (k - PART) is a multiple of PARTS. HOW is 0x5a (the byte is set to 0x5a) or xor1 (its
 * lowest bit is flipped). Both commands run in the working directory, their standard output and
 * error in OUTDIR/{git,sk}.{out,err}. A change is as git when both exit with the same status, print
 * the same standard output lines in any order (same_lines of tests/testlib.sh) and the same
 * standard error byte for byte (same_file). The last line of the output is
 * "flips N differ D gitfails G"; for the first three changes that differ, the offset, both exit
 * statuses and the first lines where they part come before it. Exit status 0 once the sweep ran
 * (the script judges the counts), 2 when it could not (usage, a file, a command that cannot start).
 *
 * Why a program: in bash each change cost two dd processes and a subshell's fork besides git and
 * sha1kit (about 55 ms a change against 20 here), and the sweeps run thousands of changes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

struct text {
	char *p;
	size_t n;
};

static void die(const char *what)
{
	fprintf(stderr, "flipsweep: %s: %s\n", what, strerror(errno));
	exit(2);
}

static struct text slurp(const char *path)
{
	struct text t = {NULL, 0};
	FILE *f = fopen(path, "rb");
	if (f == NULL) {
		die(path);
	}
	size_t cap = 0;
	for (;;) {
		if (t.n == cap) {
			cap = cap ? 2 * cap : 4096;
			t.p = realloc(t.p, cap + 1);
			if (t.p == NULL) {
				die("out of memory");
			}
		}
		size_t got = fread(t.p + t.n, 1, cap - t.n, f);
		t.n += got;
		if (got == 0) {
			break;
		}
	}
	if (ferror(f)) {
		die(path);
	}
	fclose(f);
	t.p[t.n] = '\0';
	return t;
}

/* Runs argv with standard output and error in the files out and err; its exit status as bash
 * gives it (128 + the signal when a signal ended it). */
static int run(char *const argv[], const char *out, const char *err)
{
	posix_spawn_file_actions_t fa;
	if (posix_spawn_file_actions_init(&fa) != 0 ||
	    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0) != 0 ||
	    posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0644) != 0 ||
	    posix_spawn_file_actions_addopen(&fa, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0644) != 0) {
		die("posix_spawn_file_actions");
	}
	pid_t pid;
	int e = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (e != 0) {
		errno = e;
		die(argv[0]);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR) {
			die("waitpid");
		}
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int cmp_line(const void *a, const void *b)
{
	const struct text *x = a, *y = b;
	size_t n = x->n < y->n ? x->n : y->n;
	int c = memcmp(x->p, y->p, n);
	return c != 0 ? c : (x->n > y->n) - (x->n < y->n);
}

/* The lines of t (a last one without its newline counts), sorted. */
static struct text *sorted_lines(const struct text *t, size_t *count)
{
	size_t n = 0, cap = 16;
	struct text *v = malloc(cap * sizeof *v);
	if (v == NULL) {
		die("out of memory");
	}
	for (size_t at = 0; at < t->n;) {
		const char *nl = memchr(t->p + at, '\n', t->n - at);
		size_t end = nl != NULL ? (size_t)(nl - t->p) : t->n;
		if (n == cap) {
			cap *= 2;
			v = realloc(v, cap * sizeof *v);
			if (v == NULL) {
				die("out of memory");
			}
		}
		v[n++] = (struct text){t->p + at, end - at};
		at = end + 1;
	}
	qsort(v, n, sizeof *v, cmp_line);
	*count = n;
	return v;
}

static bool same_lines(const struct text *a, const struct text *b)
{
	size_t na, nb;
	struct text *la = sorted_lines(a, &na), *lb = sorted_lines(b, &nb);
	bool same = na == nb;
	for (size_t i = 0; same && i < na; i++) {
		same = cmp_line(&la[i], &lb[i]) == 0;
	}
	free(la);
	free(lb);
	return same;
}

static bool same_bytes(const struct text *a, const struct text *b)
{
	return a->n == b->n && memcmp(a->p, b->p, a->n) == 0;
}

/* The first line where a and b part, each side, for the report of a change that differs. */
static void show_parting(const char *what, const struct text *a, const struct text *b)
{
	size_t i = 0, line = 0;
	while (i < a->n && i < b->n && a->p[i] == b->p[i]) {
		if (a->p[i++] == '\n') {
			line = i;
		}
	}
	const struct text *side[2] = {a, b};
	const char *who[2] = {"git", "sha1kit"};
	for (int s = 0; s < 2; s++) {
		const char *p = side[s]->p + line, *e = side[s]->p + side[s]->n;
		const char *nl = memchr(p, '\n', (size_t)(e - p));
		int len = (int)((nl != NULL ? nl : e) - p);
		printf("      %s %-7s: %s%.*s\n", what, who[s], p < e ? "" : "(nothing)",
		       len > 200 ? 200 : len, p);
	}
}

static long number(const char *s, const char *what)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 0);
	if (errno != 0 || end == s || *end != '\0') {
		fprintf(stderr, "flipsweep: %s: not a number: '%s'\n", what, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	if (argc < 12) {
		fprintf(stderr,
		        "usage: flipsweep FILE HOW FIRST STEP LAST PART PARTS OUTDIR GIT... -- SHA1KIT...\n");
		return 2;
	}
	const char *file = argv[1], *how = argv[2], *dir = argv[8];
	long first = number(argv[3], "FIRST"), step = number(argv[4], "STEP"), last = number(argv[5], "LAST");
	long part = number(argv[6], "PART"), parts = number(argv[7], "PARTS");
	bool xor1 = strcmp(how, "xor1") == 0;
	if ((!xor1 && strcmp(how, "0x5a") != 0) || step <= 0 || parts <= 0 || first < 0) {
		fprintf(stderr, "flipsweep: HOW is 0x5a or xor1, STEP and PARTS above 0, FIRST 0 or more\n");
		return 2;
	}
	char **git = argv + 9, **sk = NULL;
	for (int i = 9; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			argv[i] = NULL;
			sk = argv + i + 1;
			break;
		}
	}
	if (sk == NULL || sk[0] == NULL || git[0] == NULL) {
		fprintf(stderr, "flipsweep: two commands, separated by --\n");
		return 2;
	}
	char out[4][4096];
	const char *names[4] = {"git.out", "git.err", "sk.out", "sk.err"};
	for (int i = 0; i < 4; i++) {
		if ((size_t)snprintf(out[i], sizeof out[i], "%s/%s", dir, names[i]) >= sizeof out[i]) {
			fprintf(stderr, "flipsweep: OUTDIR too long\n");
			return 2;
		}
	}
	int fd = open(file, O_RDWR);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		die(file);
	}
	long nflip = 0, ndiff = 0, gitfails = 0, k = 0;
	for (long at = first; at <= last && at < st.st_size; at += step) {
		k++;
		if ((k - part) % parts != 0) {
			continue;
		}
		uint8_t orig, v;
		if (pread(fd, &orig, 1, at) != 1) {
			die(file);
		}
		v = xor1 ? orig ^ 1 : 0x5a;
		if (pwrite(fd, &v, 1, at) != 1) {
			die(file);
		}
		int grc = run(git, out[0], out[1]);
		int src = run(sk, out[2], out[3]);
		if (pwrite(fd, &orig, 1, at) != 1) {
			die(file);
		}
		nflip++;
		gitfails += grc != 0;
		struct text t[4];
		for (int i = 0; i < 4; i++) {
			t[i] = slurp(out[i]);
		}
		bool out_same = same_lines(&t[0], &t[2]), err_same = same_bytes(&t[1], &t[3]);
		if (grc != src || !out_same || !err_same) {
			if (++ndiff <= 3) {
				printf("    byte %ld of %lld: git exits %d, sha1kit %d\n", at,
				       (long long)st.st_size, grc, src);
				if (!out_same) {
					show_parting("stdout", &t[0], &t[2]);
				}
				if (!err_same) {
					show_parting("stderr", &t[1], &t[3]);
				}
			}
		}
		for (int i = 0; i < 4; i++) {
			free(t[i].p);
		}
	}
	if (close(fd) != 0) {
		die(file);
	}
	printf("flips %ld differ %ld gitfails %ld\n", nflip, ndiff, gitfails);
	return fflush(stdout) == 0 ? 0 : 2;
}
