/*
 * cli.h - helpers shared by the sha1kit commands: diagnostics, file-name quoting and escaping,
 * exit codes, the closing of standard output, and the command entry points.
 */
#ifndef SHA1KIT_CLI_H
#define SHA1KIT_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Name used in every diagnostic ("sha1kit: ..."), whatever argv[0] is. */
#define SK_PROGRAM "sha1kit"

/*
 * Exit status. The low bit has the meaning of sha1sum's exit status 1 (an input could not be read,
 * a checksum did not match, a usage error, ...); the next bit reports a detected SHA-1 collision
 * attack. Both can be set: the status is then 3.
 */
#define SK_EXIT_OK        0
#define SK_EXIT_FAILURE   1
#define SK_EXIT_COLLISION 2

#if defined(__MINGW32__) /* MinGW's C99 printf (__USE_MINGW_ANSI_STDIO), not msvcrt's */
#define SK_PRINTF(f, a) __attribute__((format(gnu_printf, f, a)))
#define SK_NORETURN     __attribute__((noreturn))
#elif defined(__GNUC__)
#define SK_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define SK_NORETURN     __attribute__((noreturn))
#else
#define SK_PRINTF(f, a)
#define SK_NORETURN
#endif

/* Print "sha1kit: MESSAGE" to stderr, then ": strerror(errnum)" when errnum is not 0, and a newline.
 * Standard output is flushed first so that both streams stay in order when they share a file. */
void sk_error(int errnum, const char *fmt, ...) SK_PRINTF(2, 3);
/* A git-style line ("fatal: ...\n", "error: ...\n": fmt has the prefix and the newline) on
 * stderr as git's vreportf prints it: control characters other than TAB and LF as '?' (so that a
 * file name cannot move the terminal), cut at 4095 bytes. */
void sk_git_line(const char *fmt, ...) SK_PRINTF(1, 2);
/* Run as `name` (argv[0] of a link named sha1sum or sha256sum to the program: `sum` alone, with
 * GNU's options only; `sha256`: sha256sum): messages start "NAME: " and point to 'NAME --help',
 * as GNU's. Set once, before any message. */
void sk_set_alias(const char *name, bool sha256);
/* Whether the program runs as such a link, and as sha256sum. */
bool sk_alias(bool *sha256);
/* How the program was run for messages and usage lines: "sha1kit COMMAND" ("sha1kit" for NULL),
 * or the alias. */
const char *sk_invocation(const char *cmd, char *buf, size_t n);

/* Usage error of command `cmd` (NULL for the top level): print the message as sk_error does
 * (unless fmt is NULL, e.g. when getopt_long already printed it), then the "Try ... --help" line,
 * and exit with SK_EXIT_FAILURE. */
SK_NORETURN void sk_usage_error(const char *cmd, const char *fmt, ...) SK_PRINTF(2, 3);
/* sk_usage_error with the exit status `status` (fsck: 129, git's status for a usage error). */
SK_NORETURN void sk_usage_exit(int status, const char *cmd, const char *fmt, ...) SK_PRINTF(3, 4);

/* Flush and check standard output (and close standard input when `closed_stdin` is set, as it was
 * read). On a failure print "sha1kit: write error: REASON" and add SK_EXIT_FAILURE to `status`.
 * Returns the status. sk_finish_sha1sum words the error exactly as GNU sha1sum does (`sum`). */
int sk_finish(int status, bool closed_stdin);
/* The end of a Git command (hash-object, index-pack, verify-pack): standard output flushed and
 * closed as git's run_builtin checks it; where that fails, git's "fatal: write failure on
 * standard output: REASON" and fail_status (git's: 128, or 1 for verify-pack, whose check
 * process died), else status. */
int sk_finish_git(int status, int fail_status);
/* git's check_pipe: a write that failed with EPIPE ends the process by SIGPIPE, as a write
 * without a handler would. */
void sk_check_pipe(int e);
/* fflush(stdout), the errno of the first failure kept for sk_finish_git's line. */
int sk_flush_stdout(void);
/* A line the command's success depends on could not be written: sk_finish_git reports it even
 * though the status is a failure already. */
void sk_stdout_line_failed(void);
int sk_finish_sha1sum(int status, bool closed_stdin);

/* Print the version lines shared by every command to stdout. */
/* The compiler that built the program, e.g. "gcc 12.2.0" (static string). */
const char *sk_compiler_name(void);
void sk_print_version(void);

/* The SHA1KIT_CPU mask in effect, one line: "SHA1KIT_CPU=-shani,-avx512 (off: avx512 shani)" or
 * "none (SHA1KIT_CPU unset)". The result lives in a buffer that the next call overwrites. */
const char *sk_cpu_mask_text(void);

/* When SHA1KIT_CPU is invalid, print "sha1kit: SHA1KIT_CPU: MESSAGE" and return -1; else 0. */
int sk_check_cpu_mask(void);

/*
 * Quote a file name for a diagnostic the way GNU tools do (shell-style quoting, only when needed;
 * ':' also forces quotes): "a b" -> 'a b', "it's" -> "it's", a tab -> ''$'\t'. The result lives
 * in a buffer that the next call overwrites.
 */
const char *sk_quote(const char *name);

/* True when `name` contains a byte that the checksum line formats escape: '\\', '\n' or '\r'. */
bool sk_name_needs_escape(const char *name);

/* Write `name` to `out`, escaping '\\' as "\\\\", '\n' as "\\n" and '\r' as "\\r" when `escape`. */
void sk_put_name(FILE *out, const char *name, bool escape);

/* Commands: each gets argc/argv with argv[0] = SK_PROGRAM and returns the exit status. */
int sk_cmd_sum(int argc, char **argv);
int sk_cmd_hash_object(int argc, char **argv);
int sk_cmd_bench(int argc, char **argv);
int sk_cmd_report(int argc, char **argv); /* runs sha1kit-bench report (bench_exec.c) */
#ifdef _WIN32
/* Windows: binary files and standard streams, getopt's program name (os_win.c); first in main. */
void sk_win_init(void);
#endif
int sk_cmd_index_pack(int argc, char **argv);
int sk_cmd_verify_pack(int argc, char **argv);
int sk_cmd_fsck(int argc, char **argv);
int sk_cmd_refs(int argc, char **argv);

#endif /* SHA1KIT_CLI_H */
