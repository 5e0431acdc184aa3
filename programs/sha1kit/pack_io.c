/* pack_io.c - the SIGBUS guard, progress lines and diagnostics of the pack commands (see pack_io.h). */
#include "pack_io.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

/* ------------------------------------------------------------------------------------------------ */
/* The SIGBUS guard of the mappings (see sk_guard_mapping)                                          */
/* ------------------------------------------------------------------------------------------------ */

/* A mapping and its line; at most a pack and an idx are mapped at once. */
#define N_GUARDS 4
static struct {
	uintptr_t lo, hi; /* [lo, hi): the mapping, rounded up to whole pages */
	const char *msg;
	size_t len;
} guards[N_GUARDS];
/* Set once the slot's fields are written, cleared before they change: what the handler reads. */
static volatile sig_atomic_t guard_used[N_GUARDS];
static int n_guarded;            /* slots in use (the handler is installed while > 0) */
static struct sigaction old_bus; /* SIGBUS's action before */
static void (*volatile shrink_cleanup)(void);
/* Set by the first fault handled: the pack engine's first pass reads a mapping on several threads
 * (given the idx), which may all fault at once; one line, one cleanup, one exit. */
static atomic_flag bus_taken = ATOMIC_FLAG_INIT;

static void on_sigbus(int sig, siginfo_t *si, void *uctx)
{
	(void)uctx;
	int saved = errno;
	/* si_code > 0: raised by the kernel for a fault (not sent by kill or sigqueue). */
	if (si != NULL && si->si_code > 0) {
		uintptr_t a = (uintptr_t)si->si_addr;
		for (int i = 0; i < N_GUARDS; i++) {
			if (guard_used[i] && a >= guards[i].lo && a < guards[i].hi) {
				if (atomic_flag_test_and_set(&bus_taken)) {
					for (;;) { /* another thread is exiting the process */
#if !defined(_WIN32)
						pause();
#endif
					}
				}
				void (*cleanup)(void) = shrink_cleanup;
				if (cleanup != NULL) {
					cleanup();
				}
				const char *p = guards[i].msg;
				size_t n = guards[i].len;
				while (n > 0) {
					ssize_t w = write(STDERR_FILENO, p, n);
					if (w < 0 && errno == EINTR) {
						continue;
					}
					if (w <= 0) {
						break;
					}
					p += w;
					n -= (size_t)w;
				}
				_exit(SK_EXIT_FAILURE);
			}
		}
	}
	/* Not a fault on a file of ours: SIGBUS as if no handler were installed. A fault happens again
	 * when the handler returns, and kills; a signal that was sent is raised again (it is blocked
	 * until the handler returns, and then kills). */
	sigaction(SIGBUS, &old_bus, NULL);
	if (si == NULL || si->si_code <= 0) {
		raise(sig);
	}
	errno = saved;
}

/* Guard [map, map + len) with the line `msg`; returns the slot, or -1 (no free slot, or the handler
 * could not be installed: a SIGBUS then kills as it would without this). */
static int guard_add(const void *map, size_t len, const char *msg, size_t msg_len)
{
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t lo = (uintptr_t)map;
	uintptr_t span = page > 0 ? (len + (size_t)page - 1) & ~((uintptr_t)page - 1) : len;
	for (int i = 0; i < N_GUARDS; i++) {
		if (guard_used[i]) {
			continue;
		}
		if (n_guarded == 0) {
			struct sigaction sa;
			memset(&sa, 0, sizeof(sa));
			sa.sa_sigaction = on_sigbus;
			sa.sa_flags = SA_SIGINFO;
			sigfillset(&sa.sa_mask); /* nothing else runs in between (index-pack's cleanup) */
			if (sigaction(SIGBUS, &sa, &old_bus) != 0) {
				return -1;
			}
		}
		guards[i].lo = lo;
		guards[i].hi = lo + span;
		guards[i].msg = msg;
		guards[i].len = msg_len;
		atomic_signal_fence(memory_order_seq_cst); /* the fields before the flag */
		guard_used[i] = 1;
		n_guarded++;
		return i;
	}
	return -1;
}

static void guard_remove(int i)
{
	if (i < 0 || !guard_used[i]) {
		return;
	}
	guard_used[i] = 0;
	atomic_signal_fence(memory_order_seq_cst);
	if (--n_guarded == 0) {
		sigaction(SIGBUS, &old_bus, NULL);
	}
}

void sk_file_on_shrink(void (*cleanup)(void))
{
	shrink_cleanup = cleanup;
}

/* The lines of the guarded mappings, owned here. */
static char *guard_owned[N_GUARDS];

int sk_guard_mapping(const char *cmd, const void *map, uint64_t len, const char *path)
{
	static const char fmt[] = SK_PROGRAM ": %s: %s: the file shrank while it was read\n";
	const char *q = sk_quote(path);
	int n = snprintf(NULL, 0, fmt, cmd, q);
	char *msg = n < 0 ? NULL : malloc((size_t)n + 1);
	if (msg == NULL || len > SIZE_MAX) {
		free(msg);
		return -1;
	}
	snprintf(msg, (size_t)n + 1, fmt, cmd, q);
	int i = guard_add(map, (size_t)len, msg, (size_t)n);
	if (i < 0) {
		free(msg);
		return -1;
	}
	guard_owned[i] = msg;
	return 0;
}

void sk_unguard_mapping(const void *map)
{
	for (int i = 0; i < N_GUARDS; i++) {
		if (guard_used[i] && guard_owned[i] != NULL && guards[i].lo == (uintptr_t)map) {
			guard_remove(i);
			free(guard_owned[i]);
			guard_owned[i] = NULL;
			return;
		}
	}
}

/* ------------------------------------------------------------------------------------------------ */
/* Files                                                                                            */
/* ------------------------------------------------------------------------------------------------ */

void sk_guard_map(void *ctx, const void *addr, uint64_t len, const char *path, bool mapped)
{
	if (mapped) {
		(void)sk_guard_mapping(ctx, addr, len, path);
	} else {
		sk_unguard_mapping(addr);
	}
}

/* sha1kit's line for a failed skg_file_map of path. */
static void map_failed(const struct skg_file *f, const char *cmd, const char *path,
                       const struct skg_error *err)
{
	char line[4096];
	if (f->failed == SKG_FILE_NOT_REGULAR) {
		snprintf(line, sizeof(line), "%s: %s: not a regular file", cmd, sk_quote(path));
	} else if (f->failed == SKG_FILE_SIZE_UNKNOWN) {
		snprintf(line, sizeof(line), "%s: cannot map %s: not a regular file (its size is unknown)",
		         cmd, sk_quote(path));
	} else {
		snprintf(line, sizeof(line), "%s: cannot %s %s: %s", cmd,
		         f->failed == SKG_FILE_MAP ? "map" : "open", sk_quote(path),
		         strerror(err->sys_errno));
	}
	sk_error(0, "%s", line);
}

int sk_file_map(struct skg_file *f, const char *cmd, const char *path)
{
	struct skg_error err;
	if (skg_file_map(f, path, sk_guard_map, (void *)cmd, &err) == 0) {
		return 0;
	}
	map_failed(f, cmd, path, &err);
	return -1;
}

int sk_pack_map_as_git(struct skg_file *f, const char *cmd, const char *path)
{
	struct skg_error err;
	if (skg_file_map(f, path, sk_guard_map, (void *)cmd, &err) == 0) {
		return 0;
	}
	if (f->failed == SKG_FILE_OPEN && err.sys_errno != 0 && err.sys_errno != EFBIG) {
		sk_flush_stdout();
		if (err.sys_errno == EISDIR) {
			fputs("fatal: read error on input: Is a directory\n", stderr);
		} else {
			sk_git_line("fatal: could not open '%s' for reading: %s\n", path,
			            strerror(err.sys_errno));
		}
		return 128;
	}
	map_failed(f, cmd, path, &err);
	return SK_EXIT_FAILURE;
}

int sk_idx_open_as_git(struct skg_file *idx, const char *cmd, const char *idx_name, unsigned object_format)
{
	/* builtin/index-pack.c read_idx_option: add_packed_git (the name must end in .idx, and the
	 * .pack of the same stem must be a regular file), open_pack_index (packfile.c
	 * check_packed_git_idx: an idx that does not open says nothing, one that fails a check says
	 * why on an error line), then read_v2_anomalous_offsets (check_pack_index_ptr dies) */
	size_t n = strlen(idx_name);
	bool named = n >= 4 && strcmp(idx_name + n - 4, ".idx") == 0;
	char *pack_name = named ? malloc(n + 2) : NULL;
	if (named && pack_name == NULL) {
		sk_error(ENOMEM, "%s", cmd);
		return SK_EXIT_FAILURE;
	}
	struct stat st;
	if (named) {
		memcpy(pack_name, idx_name, n - 4);
		memcpy(pack_name + n - 4, ".pack", 6);
	}
	if (!named || stat(pack_name, &st) != 0 || !S_ISREG(st.st_mode)) {
		sk_flush_stdout();
		sk_git_line("fatal: Cannot open existing pack file '%s'\n", idx_name);
		free(pack_name);
		return 128;
	}
	struct skg_error err;
	int status = 128;
	if (skg_file_map(idx, idx_name, sk_guard_map, (void *)cmd, &err) != 0) {
		struct stat ist;
		if (idx->failed == SKG_FILE_OPEN && stat(idx_name, &ist) == 0 && S_ISDIR(ist.st_mode)) {
			/* git opens a directory, takes its size from fstat and refuses it as too small,
			 * or maps it and dies (packfile.c check_packed_git_idx, xmmap) */
			sk_flush_stdout();
			if ((uint64_t)ist.st_size >=
			    4 * 256 + 2 * (uint64_t)skg_format_rawsz(object_format)) {
				sk_git_line("fatal: mmap failed: %s\n", strerror(ENODEV));
			} else {
				sk_git_line(
				    "error: index file %s is too small\nfatal: Cannot open existing pack idx "
				    "file for '%s'\n",
				    idx_name, idx_name);
			}
		} else if (idx->failed == SKG_FILE_OPEN) {
			sk_flush_stdout();
			sk_git_line("fatal: Cannot open existing pack idx file for '%s'\n", idx_name);
		} else {
			map_failed(idx, cmd, idx_name, &err); /* sha1kit's words: a FIFO is never opened */
			status = SK_EXIT_FAILURE;
		}
	} else if (skg_idx_check_as(idx->data, idx->len, object_format, idx_name, pack_name, &err) == 0) {
		status = 0;
	} else if (sk_file_report_shrank(idx, cmd)) {
		/* a file cut within its last page reads as zeros there, without SIGBUS: the truth is
		 * then that it shrank */
		status = SK_EXIT_FAILURE;
	} else {
		sk_flush_stdout();
		if (strncmp(err.msg, SKG_IDX_OFFSET_BEYOND, strlen(SKG_IDX_OFFSET_BEYOND)) == 0) {
			sk_git_line("fatal: %s\n", err.msg);
		} else {
			sk_git_line("error: %s\nfatal: Cannot open existing pack idx file for '%s'\n",
			            err.msg, idx_name);
		}
	}
	free(pack_name);
	return status;
}

/*
 * --verify with the reverse index on: git's write_rev_file with WRITE_REV_VERIFY (pack-write.c
 * write_rev_file_order, git v2.39.5 and v2.55.0): a .rev that is not there is fine ("optional":
 * stat fails with ENOENT, a dangling symbolic link too), another failure of stat dies ("could not
 * stat: NAME: REASON"); one that is there is opened (csum-file.c hashfd_check, wrapper.c xopen:
 * "could not open 'NAME' for reading: REASON"; a directory opens, and its first read dies: "NAME:
 * sha1 file read error: Is a directory") and must hold every byte git would write, no more
 * (skg_pack_verify_rev_as_git: "sha1 file 'NAME' validation error", "NAME: sha1 file truncated",
 * "NAME: sha1 file has trailing garbage"). Git's lines and 128 for all of these; a FIFO or device
 * is refused with sha1kit's line, never opened (git would wait on it, or read it). Returns an exit
 * status, after the diagnostic.
 */
int sk_verify_rev(const char *cmd, const struct skg_pack *pack, const char *rev_name)
{
	struct stat st;
	if (stat(rev_name, &st) != 0) {
		if (errno == ENOENT) {
			return SK_EXIT_OK;
		}
		int e = errno;
		sk_flush_stdout();
		sk_git_line("fatal: could not stat: %s: %s\n", rev_name, strerror(e));
		return 128;
	}
	struct skg_file rev = {0};
	struct skg_error err;
	if (skg_file_map(&rev, rev_name, sk_guard_map, (void *)cmd, &err) != 0) {
		int e = err.sys_errno;
		if (rev.failed != SKG_FILE_OPEN || e == 0 || e == EFBIG || e == ENOMEM) {
			/* a FIFO or a device (refused, never opened), a file too large to map: sha1kit's
			 * limits, in its words */
			sk_error(0, "%s: %s", cmd, err.msg);
			return SK_EXIT_FAILURE;
		}
		sk_flush_stdout();
		if (e == EISDIR) {
			sk_git_line("fatal: %s: sha1 file read error: %s\n", rev_name, strerror(e));
		} else {
			sk_git_line("fatal: could not open '%s' for reading: %s\n", rev_name, strerror(e));
		}
		return 128;
	}
	int status = SK_EXIT_OK;
	if (skg_pack_verify_rev_as_git(pack, rev.data, rev.len, rev_name, &err) != 0) {
		if (sk_file_report_shrank(&rev, cmd)) {
			status = SK_EXIT_FAILURE;
		} else if (err.code == SKG_E_GIT) {
			sk_flush_stdout();
			sk_git_line("fatal: %s\n", err.msg);
			status = 128;
		} else {
			sk_error(0, "%s: %s", cmd, err.msg);
			status = SK_EXIT_FAILURE;
		}
	}
	skg_file_unmap(&rev);
	return status;
}

bool sk_file_report_shrank(const struct skg_file *f, const char *cmd)
{
	if (!skg_file_shrank(f)) {
		return false;
	}
	sk_flush_stdout(); /* as sk_error: both streams in order */
	fprintf(stderr, SK_PROGRAM ": %s: %s: the file shrank while it was read\n", cmd, sk_quote(f->path));
	return true;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The process's CPU time, every thread (seconds). */
static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void sk_stats_init(struct sk_stats *s, bool on)
{
	memset(s, 0, sizeof(*s));
	s->on = on;
	if (on) {
		s->wall0 = s->mark_wall = now();
		s->cpu0 = s->mark_cpu = cpu_now();
		snprintf(s->cur, sizeof(s->cur), "setup");
	}
}

void sk_progress_init_stats(struct sk_progress *p, bool enabled, bool stats)
{
	p->enabled = enabled;
	p->title = NULL;
	p->left = NULL;
	p->percent = UINT_MAX;
	p->shown = 0;
	p->indexing = "Indexing objects";
	p->bytes_in = NULL;
	p->bytes_quiet = 0;
	p->t0 = now();
	sk_stats_init(&p->stats, stats);
}

void sk_progress_init(struct sk_progress *p, bool enabled)
{
	sk_progress_init_stats(p, enabled, false);
}

/* End the current segment now and start the one named `next` (a name seen again adds to its line). */
static void stats_switch(struct sk_stats *s, const char *next)
{
	double w = now(), c = cpu_now();
	unsigned k = 0;
	while (k < s->n && strcmp(s->ph[k].title, s->cur) != 0) {
		k++;
	}
	if (k == s->n && s->n < SK_STATS_PHASES) {
		snprintf(s->ph[k].title, sizeof(s->ph[k].title), "%s", s->cur);
		s->ph[k].wall = s->ph[k].cpu = 0;
		s->n++;
	}
	if (k < s->n) {
		s->ph[k].wall += w - s->mark_wall;
		s->ph[k].cpu += c - s->mark_cpu;
	}
	s->mark_wall = w;
	s->mark_cpu = c;
	snprintf(s->cur, sizeof(s->cur), "%s", next);
}

static void stats_line(const char *cmd, const char *title, double wall, double cpu)
{
	fprintf(stderr, "sha1kit: %s: stats: %s: wall %.3f s, CPU %.3f s (%.2f threads busy)\n", cmd, title,
	        wall, cpu, wall > 0 ? cpu / wall : 0.0);
}

void sk_progress_stats(struct sk_progress *p, const char *cmd)
{
	sk_stats_print(&p->stats, cmd);
}

void sk_stats_phase(struct sk_stats *s, const char *title)
{
	if (s->on && strcmp(s->cur, title) != 0) {
		stats_switch(s, title);
	}
}

void sk_stats_phase_end(struct sk_stats *s, const char *title)
{
	if (s->on) {
		char after[sizeof(s->cur)];
		sk_stats_phase(s, title);
		snprintf(after, sizeof(after), "after %s", title);
		stats_switch(s, after);
	}
}

void sk_stats_print(struct sk_stats *s, const char *cmd)
{
	if (!s->on) {
		return;
	}
	stats_switch(s, "");
	for (unsigned k = 0; k < s->n; k++) {
		stats_line(cmd, s->ph[k].title, s->ph[k].wall, s->ph[k].cpu);
	}
	stats_line(cmd, "total", s->mark_wall - s->wall0, s->mark_cpu - s->cpu0);
	fflush(stderr);
}

void sk_humanise(int64_t bytes, bool rate, char *buf, size_t n)
{
	const char *per = rate ? "/s" : "";
	if (bytes > 1u << 30) {
		snprintf(buf, n, "%u.%2.2u GiB%s", (unsigned)(bytes >> 30),
		         (unsigned)(bytes & ((1u << 30) - 1)) / 10737419u, per);
	} else if (bytes > 1u << 20) {
		unsigned x = (unsigned)bytes + 5243u; /* git's rounding */
		snprintf(buf, n, "%u.%2.2u MiB%s", x >> 20, ((x & ((1u << 20) - 1)) * 100u) >> 20, per);
	} else if (bytes > 1u << 10) {
		unsigned x = (unsigned)bytes + 5u;
		snprintf(buf, n, "%u.%2.2u KiB%s", x >> 10, ((x & ((1u << 10) - 1)) * 100u) >> 10, per);
	} else {
		snprintf(buf, n, "%u %s%s", (unsigned)(uint64_t)bytes, bytes == 1 ? "byte" : "bytes", per);
	}
}

/* One of git's meter lines (progress.c display): TITLE: PCT% (N/TOTAL), ended by "\r". */
static void progress_line(struct sk_progress *p, uint64_t n, uint64_t total)
{
	unsigned pct = total ? (unsigned)(n * 100 / total) : 100;
	fprintf(stderr, "%s: %3u%% (%" PRIu64 "/%" PRIu64 ")\r", p->title, pct, n, total);
	p->percent = pct;
}

/*
 * git's meters of index-pack (builtin/index-pack.c, progress.c): the engine reports counts now and
 * then; each count git would display in between is drawn as git draws it, once per object: a line
 * whenever the percentage changes (the first count included, and "Resolving deltas" from 0), then
 * the last one again with ", done.". Git also redraws once a second (its timer), which cannot be
 * matched; runs of more than a second may show fewer lines than git's.
 */
void sk_progress_cb(void *ctx, const char *title, uint64_t done, uint64_t total)
{
	struct sk_progress *p = ctx;
	if (done >= total) {
		sk_stats_phase_end(&p->stats, title);
	} else {
		sk_stats_phase(&p->stats, title);
	}
	if (!p->enabled) {
		return;
	}
	bool resolving = strcmp(title, "Indexing objects") != 0;
	const char *shown_title = resolving ? title : p->indexing;
	if (p->title == NULL || strcmp(p->title, shown_title) != 0) {
		if (p->title != NULL) {
			fputc('\n', stderr); /* the previous phase did not print its final line */
		}
		p->title = shown_title;
		p->percent = UINT_MAX;
		p->shown = 0;
		if (resolving) {
			progress_line(p, 0, total); /* git's display_progress(progress, 0) */
		}
	}
	for (uint64_t i = p->shown + 1; i <= done && total > 0;) {
		unsigned pct = (unsigned)(i * 100 / total);
		if (pct != p->percent) {
			progress_line(p, i, total);
		}
		/* the first count of the next percentage */
		uint64_t next = ((uint64_t)(pct + 1) * total + 99) / 100;
		i = next > i ? next : i + 1;
	}
	p->shown = done > p->shown ? done : p->shown;
	if (done >= total) {
		if (p->percent != UINT_MAX) { /* git's stop_progress: only after a line was drawn */
			char tp[96] = "";
			if (p->bytes_in != NULL && !resolving && *p->bytes_in > p->bytes_quiet) {
				/* git's throughput (progress.c stop_progress): the bytes read, and their rate
				 * over the time in units of 1/1024 s ("misecs"), as bytes a second */
				char size[40], rate[40];
				uint64_t ns = (uint64_t)((now() - p->t0) * 1e9);
				uint64_t misecs = (ns * 4398) >> 32; /* no overflow below 48 days */
				uint64_t r = *p->bytes_in / (misecs ? misecs : 1);
				sk_humanise((int64_t)*p->bytes_in, false, size, sizeof(size));
				sk_humanise((int64_t)(r * 1024), true, rate, sizeof(rate));
				snprintf(tp, sizeof(tp), ", %s | %s", size, rate);
			}
			fprintf(stderr, "%s: %3u%% (%" PRIu64 "/%" PRIu64 ")%s, done.\n", p->title, 100u,
			        done, total, tp);
		}
		p->title = NULL;
	}
	fflush(stderr);
}

void sk_progress_stop_msg(struct sk_progress *p, const char *title, uint64_t done, uint64_t total,
                          const char *msg)
{
	if (!p->enabled) {
		return;
	}
	if (done >= total && total > 0) {
		/* the lines up to the count before the last, then the last as git's display draws it */
		sk_progress_cb(p, title, total - 1, total);
		if (p->percent != 100) {
			progress_line(p, total, total);
		}
	} else {
		sk_progress_cb(p, title, done, total);
	}
	if (p->title == NULL) {
		return;
	}
	unsigned pct = total ? (unsigned)(done * 100 / total) : 100;
	fprintf(stderr, "%s: %3u%% (%" PRIu64 "/%" PRIu64 "), %s.\n", p->title, pct, done, total, msg);
	p->title = NULL;
	fflush(stderr);
}

void sk_progress_abort(struct sk_progress *p)
{
	/* git's die leaves its meter's line as it is ("...\r"): the fatal line is written over it */
	p->left = p->title;
	p->title = NULL;
}

void sk_git_version_env(const char *cmd, int status, unsigned *version)
{
	const char *env = getenv(SK_GIT_VERSION_ENV);
	if (env != NULL && *env != '\0' && skg_git_version_parse(env, version) != 0) {
		sk_usage_exit(status, cmd, "%s: " SK_GIT_VERSION_ENV "=%s: " SK_GIT_VERSION_INVALID, cmd,
		              env);
	}
}

void sk_git_version_arg(const char *cmd, int status, const char *arg, unsigned *version)
{
	if (skg_git_version_parse(arg, version) != 0) {
		sk_usage_exit(status, cmd, "%s: --git-version=%s: " SK_GIT_VERSION_INVALID, cmd, arg);
	}
}

void sk_object_format_arg(const char *arg, unsigned *format)
{
	if ((*format = skg_format_from_name(arg)) == 0) {
		/* builtin/index-pack.c, as it parses its options */
		sk_git_line("fatal: unknown hash algorithm '%s'\n", arg);
		exit(sk_finish(128, false));
	}
}

bool sk_parse_threads(const char *arg, unsigned *out)
{
	char *end;
	errno = 0;
	if (arg[0] < '0' || arg[0] > '9') {
		return false; /* strtol would take " 3" and "+3" */
	}
	long v = strtol(arg, &end, 10);
	if (errno != 0 || end == arg || *end != '\0' || v < 0 || v > SK_THREADS_MAX) {
		return false;
	}
	*out = (unsigned)v;
	return true;
}

void sk_git_command_config(void)
{
	struct skg_error err;
	if (skg_config_check_command_line(&err) != 0) {
		sk_flush_stdout();
		sk_git_line("error: %s\nfatal: unable to parse command-line config\n", err.msg);
		exit(sk_finish(128, false));
	}
}

const char *sk_index_pack_usage(unsigned git_version)
{
	/* builtin/index-pack.c index_pack_usage of git v2.39.5 and of v2.55.0 */
	if (git_version == SKG_GIT_2_39) {
		return "git index-pack [-v] [-o <index-file>] [--keep | --keep=<msg>] [--[no-]rev-index] "
		       "[--verify] [--strict] (<pack-file> | --stdin [--fix-thin] [<pack-file>])";
	}
	return "git index-pack [-v] [-o <index-file>] [--keep | --keep=<msg>] [--[no-]rev-index] [--verify] "
	       "[--strict[=<msg-id>=<severity>...]] [--fsck-objects[=<msg-id>=<severity>...]] (<pack-file> | "
	       "--stdin [--fix-thin] [<pack-file>])";
}

bool sk_parse_git_threads(const char *arg, unsigned *out)
{
	/* builtin/index-pack.c: nr_threads = strtoul(arg, &end, 0), an int; "", a trailing character
	 * or a negative int is usage(index_pack_usage) */
	char *end;
	unsigned long v = strtoul(arg, &end, 0);
	if (arg[0] == '\0' || *end != '\0' || (int)v < 0) {
		return false;
	}
	*out = v > SK_THREADS_MAX ? SK_THREADS_MAX : (unsigned)v;
	return true;
}

unsigned sk_online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}

void sk_pack_report(const char *cmd, const char *name, const struct skg_error *err)
{
	char where[48] = "";
	if (err->has_offset && err->code != SKG_E_COLLISION) { /* the collision message names the offset */
		snprintf(where, sizeof(where), " (at offset %" PRIu64 ")", err->offset);
	}
	/* the pack engine's messages are at most 319 bytes; the line at most 4095 */
	char line[4096];
	if (name != NULL) {
		snprintf(line, sizeof(line), "%s: %s: %.319s%s", cmd, sk_quote(name), err->msg, where);
	} else {
		snprintf(line, sizeof(line), "%s: %.319s%s", cmd, err->msg, where);
	}
	sk_error(0, "%s", line);
}

bool sk_pack_git_refused(const uint8_t *data, uint64_t len, bool regular, unsigned git_version,
                         unsigned object_format, const struct skg_error *err, struct sk_progress *meter)
{
	struct skg_pack_refusal r;
	if (err->code != SKG_E_CORRUPT ||
	    !skg_pack_git_refusal(data, len, regular, git_version, object_format, &r)) {
		return false;
	}
	sk_flush_stdout();
	if (meter != NULL && r.counted && r.count > 0) {
		/* git's meter up to the objects it read before it died (and its ", done." when that was
		 * all of them), on from where the work's meter stopped; the lines below go over its
		 * last "\r" */
		if (meter->title == NULL && meter->left != NULL &&
		    strcmp(meter->left, meter->indexing) == 0) {
			meter->title = meter->left;
		}
		sk_progress_cb(meter, "Indexing objects", r.read, r.count);
	}
	if (r.error[0] != '\0') {
		sk_git_line("error: %s\n", r.error);
	}
	sk_git_line("fatal: %s\n", r.fatal);
	return true;
}

void sk_pack_print_record(void *ctx, const struct skg_report *r)
{
	(void)ctx;
	const char *prefix = skg_level_prefix(r->level);
	if (prefix == NULL) {
		return;
	}
	FILE *out = r->level == SKG_LEVEL_OUTPUT ? stdout : stderr;
	fprintf(out, "%s%s\n", prefix, r->text);
	if (out == stdout) {
		sk_flush_stdout();
	}
}
