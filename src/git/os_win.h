/*
 * os_win.h - the POSIX calls of the Git layer and the sha1kit program, on Windows (MinGW-w64).
 *
 * The Windows build puts this header before every source file of sha1kit_git and sha1kit
 * (-include, src/git/CMakeLists.txt and programs/sha1kit/CMakeLists.txt), so that the sources keep
 * their POSIX calls and need no #ifdef; the functions are in os_win.c. It first includes every
 * system header those files use, then renames what Windows lacks or does differently:
 *  - open() flags Windows has not (O_CLOEXEC, O_NOCTTY, O_NONBLOCK) are 0; every file is binary
 *    (skg_os_open, and skg_os_init, called first by main: _fmode and the standard streams); opening a
 *    directory fails with EISDIR, not EACCES;
 *  - stat/fstat/lstat fill a struct with a 64-bit st_dev/st_ino (the volume serial number and the
 *    file index, so that "the same file" is decided as on POSIX; MinGW's st_ino is always 0); no
 *    symbolic links are followed or seen (lstat = stat, S_ISLNK is false, readlink fails);
 *  - mmap of a whole file read-only (a file mapping and a view; the only use), munmap; madvise
 *    and posix_fadvise are hints and do nothing;
 *  - pread on the file's handle with an offset (ReadFile with OVERLAPPED: the descriptor's offset
 *    moves, which no caller relies on); getline, strndup, realpath (_fullpath) and getcwd, both
 *    with '/' (the Git layer splits paths at '/', as Git for Windows does);
 *  - rename replaces an existing target (MoveFileEx), as POSIX rename does, a read-only one too (as
 *    Git for Windows's rename), and unlink removes a read-only file; fchmod without write permission
 *    sets the read-only attribute (what Windows has of a mode); fsync is _commit;
 *  - sigaction on the CRT's signal() for the signals Windows raises; SIGHUP, SIGPIPE and SIGQUIT
 *    never come. SIGBUS with SA_SIGINFO is a vectored exception handler: a read fault on a mapped
 *    view (EXCEPTION_IN_PAGE_ERROR: the file's storage failed; or an access violation: under Wine a
 *    Linux process can shorten a mapped file, which Windows itself refuses with
 *    ERROR_USER_MAPPED_FILE) calls the handler with si_addr, as a SIGBUS would;
 *  - sysconf(_SC_PAGESIZE, _SC_NPROCESSORS_ONLN) from GetSystemInfo.
 */
#ifndef SHA1KIT_GIT_OS_WIN_H
#define SHA1KIT_GIT_OS_WIN_H
#ifdef _WIN32

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

/* Called first by main(): binary mode for every file opened and for the standard streams. */
void skg_os_init(void);

#define O_CLOEXEC  0
#define O_NOCTTY   0
#define O_NONBLOCK 0
/* open(): binary, and EISDIR for a directory (Windows says EACCES), as POSIX reads report it */
int skg_os_open(const char *path, int flags, ...);
#define open skg_os_open

/* ---- stat ---------------------------------------------------------------------------------- */
typedef uint64_t skg_os_dev_t;
typedef uint64_t skg_os_ino_t;
#define dev_t skg_os_dev_t
#define ino_t skg_os_ino_t
struct skg_os_stat {
	skg_os_dev_t st_dev; /* volume serial number */
	skg_os_ino_t st_ino; /* file index on the volume */
	unsigned st_mode;
	int64_t st_size;
	int64_t st_mtime;
};
int skg_os_stat(const char *path, struct skg_os_stat *st);
int skg_os_fstat(int fd, struct skg_os_stat *st);
#ifdef stat
#undef stat
#endif
#ifdef fstat
#undef fstat
#endif
#define stat       skg_os_stat
#define fstat      skg_os_fstat
#define lstat      skg_os_stat
#define S_ISLNK(m) ((m)&0 ? 1 : 0)
ssize_t skg_os_readlink(const char *path, char *buf, size_t size);
#define readlink skg_os_readlink

/* ---- memory maps ------------------------------------------------------------------------------ */
#define PROT_READ     1
#define MAP_PRIVATE   2
#define MAP_FAILED    ((void *)-1)
#define MADV_DONTNEED 4
void *skg_os_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t offset);
int skg_os_munmap(void *addr, size_t len);
#define mmap(a, l, p, f, d, o) skg_os_mmap(a, l, p, f, d, o)
#define munmap(a, l)           skg_os_munmap(a, l)
#define POSIX_FADV_SEQUENTIAL  2
static inline int skg_os_hint(const void *a, size_t l, int adv)
{
	(void)a;
	(void)l;
	(void)adv;
	return 0;
}
#define madvise(a, l, adv)               skg_os_hint(a, l, adv)
#define posix_fadvise(fd, off, len, adv) skg_os_hint(NULL, (size_t)(off) + (size_t)(len) + (size_t)(fd), adv)
/* C11 aligned_alloc: msvcrt has only _aligned_malloc, whose blocks _aligned_free releases. */
#define aligned_alloc(a, n) _aligned_malloc(n, a)

/* ---- files ------------------------------------------------------------------------------------- */
ssize_t skg_os_pread(int fd, void *buf, size_t n, off_t offset);
#define pread skg_os_pread
ssize_t skg_os_getline(char **line, size_t *cap, FILE *fp);
#define getline skg_os_getline
char *skg_os_strndup(const char *s, size_t n);
#define strndup skg_os_strndup
char *skg_os_realpath(const char *path, char *resolved);
#define realpath skg_os_realpath
char *skg_os_getcwd(char *buf, size_t size);
#define getcwd skg_os_getcwd
int skg_os_rename(const char *from, const char *to);
#define rename skg_os_rename
int skg_os_unlink(const char *path);
#define unlink    skg_os_unlink
#define fsync(fd) _commit(fd)
int skg_os_fchmod(int fd, unsigned mode);
#define fchmod(fd, m) skg_os_fchmod(fd, m)

/* ---- signals ----------------------------------------------------------------------------------- */
#define SIGHUP  1
#define SIGQUIT 3
#define SIGBUS  10
#define SIGPIPE 13
typedef struct skg_os_siginfo {
	int si_code;
	void *si_addr;
} siginfo_t;
typedef unsigned long skg_os_sigset_t;
#define sigset_t skg_os_sigset_t
struct sigaction {
	void (*sa_handler)(int);
	void (*sa_sigaction)(int, siginfo_t *, void *);
	sigset_t sa_mask;
	int sa_flags;
};
#define SA_SIGINFO 4
int skg_os_sigaction(int sig, const struct sigaction *act, struct sigaction *old);
#define sigaction(s, a, o) skg_os_sigaction(s, a, o)
static inline int skg_os_sigset(sigset_t *s, sigset_t v)
{
	*s = v;
	return 0;
}
#define sigemptyset(s) skg_os_sigset(s, 0)
#define sigfillset(s)  skg_os_sigset(s, ~0ul)

/* ---- system ------------------------------------------------------------------------------------ */
#define _SC_PAGESIZE         1
#define _SC_NPROCESSORS_ONLN 2
long skg_os_sysconf(int name);
#define sysconf skg_os_sysconf

#endif /* _WIN32 */
#endif /* SHA1KIT_GIT_OS_WIN_H */
