/* os_win.c - the POSIX calls of os_win.h on the Windows API (MinGW-w64). See os_win.h. */
#include "os_win.h"

#include <windows.h>

#include <limits.h>
#include <stdarg.h>

void skg_os_init(void)
{
	_fmode = _O_BINARY;
	_setmode(0, _O_BINARY);
	_setmode(1, _O_BINARY);
	_setmode(2, _O_BINARY);
}

#undef open
int skg_os_open(const char *path, int flags, ...)
{
	int mode = 0;
	if (flags & O_CREAT) {
		va_list ap;
		va_start(ap, flags);
		mode = va_arg(ap, int);
		va_end(ap);
	}
	int fd = _open(path, flags | _O_BINARY, mode);
	if (fd < 0 && errno == EACCES) {
		DWORD attr = GetFileAttributesA(path);
		if (attr != INVALID_FILE_ATTRIBUTES && (attr & FILE_ATTRIBUTE_DIRECTORY))
			errno = EISDIR;
	}
	return fd;
}

/* ---- stat ---------------------------------------------------------------------------------- */

static void from_stat64(const struct _stat64 *s, struct skg_os_stat *st)
{
	st->st_dev = (skg_os_dev_t)s->st_dev;
	st->st_ino = 0;
	st->st_mode = s->st_mode;
	st->st_size = s->st_size;
	st->st_mtime = s->st_mtime;
}

/* The volume and file index of an open handle: the identity of a file on Windows. */
static void identity(HANDLE h, struct skg_os_stat *st)
{
	BY_HANDLE_FILE_INFORMATION info;
	if (h != INVALID_HANDLE_VALUE && GetFileInformationByHandle(h, &info)) {
		st->st_dev = info.dwVolumeSerialNumber;
		st->st_ino = (uint64_t)info.nFileIndexHigh << 32 | info.nFileIndexLow;
	}
}

int skg_os_stat(const char *path, struct skg_os_stat *st)
{
	struct _stat64 s;
	if (_stat64(path, &s) != 0)
		return -1;
	from_stat64(&s, st);
	/* no access rights asked: works on files others have open; BACKUP_SEMANTICS: directories too */
	HANDLE h = CreateFileA(path, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
	                       OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
	if (h != INVALID_HANDLE_VALUE) {
		identity(h, st);
		CloseHandle(h);
	}
	return 0;
}

int skg_os_fstat(int fd, struct skg_os_stat *st)
{
	struct _stat64 s;
	if (_fstat64(fd, &s) != 0)
		return -1;
	from_stat64(&s, st);
	identity((HANDLE)_get_osfhandle(fd), st);
	return 0;
}

ssize_t skg_os_readlink(const char *path, char *buf, size_t size)
{
	(void)path;
	(void)buf;
	(void)size;
	errno = EINVAL; /* not a symbolic link, as POSIX says of any other file */
	return -1;
}

/* ---- memory maps ------------------------------------------------------------------------------ */

void *skg_os_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t offset)
{
	HANDLE h = (HANDLE)_get_osfhandle(fd), m;
	void *view;
	/* the one use: a whole file (or a part from an offset) read-only */
	if (addr != NULL || prot != PROT_READ || flags != MAP_PRIVATE || offset < 0 || len == 0 ||
	    h == INVALID_HANDLE_VALUE) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	m = CreateFileMappingA(h, NULL, PAGE_READONLY, 0, 0, NULL);
	if (m == NULL) {
		errno = GetLastError() == ERROR_NOT_ENOUGH_MEMORY ? ENOMEM : EACCES;
		return MAP_FAILED;
	}
	view = MapViewOfFile(m, FILE_MAP_READ, (DWORD)((uint64_t)offset >> 32), (DWORD)offset, len);
	CloseHandle(m); /* the view keeps the mapping */
	if (view == NULL) {
		errno = ENOMEM;
		return MAP_FAILED;
	}
	return view;
}

int skg_os_munmap(void *addr, size_t len)
{
	(void)len;
	if (!UnmapViewOfFile(addr)) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/* ---- files ------------------------------------------------------------------------------------- */

ssize_t skg_os_pread(int fd, void *buf, size_t n, off_t offset)
{
	HANDLE h = (HANDLE)_get_osfhandle(fd);
	OVERLAPPED ov;
	DWORD got = 0;
	if (h == INVALID_HANDLE_VALUE || offset < 0) {
		errno = EBADF;
		return -1;
	}
	memset(&ov, 0, sizeof(ov));
	ov.Offset = (DWORD)offset;
	ov.OffsetHigh = (DWORD)((uint64_t)offset >> 32);
	if (n > 0x40000000u)
		n = 0x40000000u;
	if (!ReadFile(h, buf, (DWORD)n, &got, &ov)) {
		if (GetLastError() == ERROR_HANDLE_EOF)
			return 0;
		errno = EIO;
		return -1;
	}
	return (ssize_t)got;
}

ssize_t skg_os_getline(char **line, size_t *cap, FILE *fp)
{
	size_t n = 0;
	int c;
	if (*line == NULL || *cap == 0) {
		*cap = 128;
		if ((*line = malloc(*cap)) == NULL) {
			errno = ENOMEM;
			return -1;
		}
	}
	while ((c = getc(fp)) != EOF) {
		if (n + 2 > *cap) {
			size_t bigger = *cap * 2;
			char *p = bigger > *cap ? realloc(*line, bigger) : NULL;
			if (p == NULL) {
				errno = ENOMEM;
				return -1;
			}
			*line = p;
			*cap = bigger;
		}
		(*line)[n++] = (char)c;
		if (c == '\n')
			break;
	}
	(*line)[n] = 0;
	return n == 0 ? -1 : (ssize_t)n;
}

char *skg_os_strndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = malloc(len + 1);
	if (p == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	memcpy(p, s, len);
	p[len] = 0;
	return p;
}

char *skg_os_realpath(const char *path, char *resolved)
{
	struct _stat64 s;
	/* realpath names an existing file */
	if (_stat64(path, &s) != 0)
		return NULL;
	char *full = _fullpath(resolved, path, resolved != NULL ? PATH_MAX : 0);
	if (full == NULL) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	for (char *p = full; *p; p++)
		if (*p == '\\')
			*p = '/';
	return full;
}

char *skg_os_getcwd(char *buf, size_t size)
{
	char *cwd = _getcwd(buf, buf != NULL ? (int)(size > INT_MAX ? INT_MAX : size) : 0);
	if (cwd != NULL)
		for (char *p = cwd; *p; p++)
			if (*p == '\\')
				*p = '/';
	return cwd;
}

int skg_os_rename(const char *from, const char *to)
{
	if (MoveFileExA(from, to, MOVEFILE_REPLACE_EXISTING))
		return 0;
	DWORD e = GetLastError(), attr = GetFileAttributesA(to);
	/* a read-only target (an idx, 0444) is replaced too, as on POSIX */
	if (e == ERROR_ACCESS_DENIED && attr != INVALID_FILE_ATTRIBUTES && (attr & FILE_ATTRIBUTE_READONLY) &&
	    !(attr & FILE_ATTRIBUTE_DIRECTORY) && SetFileAttributesA(to, attr & ~FILE_ATTRIBUTE_READONLY)) {
		if (MoveFileExA(from, to, MOVEFILE_REPLACE_EXISTING))
			return 0;
		e = GetLastError();
		SetFileAttributesA(to, attr);
	}
	errno = e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND ? ENOENT
	        : e == ERROR_ACCESS_DENIED                             ? EACCES
	                                                               : EIO;
	return -1;
}

int skg_os_unlink(const char *path)
{
	if (_unlink(path) == 0)
		return 0;
	int e = errno;
	DWORD attr = GetFileAttributesA(path);
	/* Windows does not delete a read-only file (an idx, 0444); POSIX does */
	if (e == EACCES && attr != INVALID_FILE_ATTRIBUTES && (attr & FILE_ATTRIBUTE_READONLY) &&
	    !(attr & FILE_ATTRIBUTE_DIRECTORY) && SetFileAttributesA(path, attr & ~FILE_ATTRIBUTE_READONLY)) {
		if (_unlink(path) == 0)
			return 0;
		e = errno;
		SetFileAttributesA(path, attr);
	}
	errno = e;
	return -1;
}

int skg_os_fchmod(int fd, unsigned mode)
{
	HANDLE h = (HANDLE)_get_osfhandle(fd);
	FILE_BASIC_INFO info;
	if (h == INVALID_HANDLE_VALUE ||
	    !GetFileInformationByHandleEx(h, FileBasicInfo, &info, sizeof(info))) {
		errno = EBADF;
		return -1;
	}
	if (mode & 0222)
		info.FileAttributes &= ~(DWORD)FILE_ATTRIBUTE_READONLY;
	else
		info.FileAttributes |= FILE_ATTRIBUTE_READONLY;
	if (info.FileAttributes == 0)
		info.FileAttributes = FILE_ATTRIBUTE_NORMAL;
	if (!SetFileInformationByHandle(h, FileBasicInfo, &info, sizeof(info))) {
		errno = EACCES;
		return -1;
	}
	return 0;
}

/* ---- signals ----------------------------------------------------------------------------------- */

/* The SIGBUS handler (SA_SIGINFO), called from a vectored exception handler on a read fault. */
static void (*volatile bus_handler)(int, siginfo_t *, void *);
static struct sigaction bus_action; /* what sigaction(SIGBUS) reports as the old action */

static LONG CALLBACK on_fault(EXCEPTION_POINTERS *e)
{
	const EXCEPTION_RECORD *r = e->ExceptionRecord;
	void (*h)(int, siginfo_t *, void *) = bus_handler;
	if (h != NULL &&
	    (r->ExceptionCode == EXCEPTION_IN_PAGE_ERROR || r->ExceptionCode == EXCEPTION_ACCESS_VIOLATION) &&
	    r->NumberParameters >= 2 && r->ExceptionInformation[0] == 0) { /* 0: a read */
		siginfo_t si = {1, (void *)r->ExceptionInformation[1]};    /* si_code > 0: a fault */
		h(SIGBUS, &si, NULL);
	}
	/* the handler returned: not a fault of its mappings; the exception goes on as without it */
	return EXCEPTION_CONTINUE_SEARCH;
}

static int bus_sigaction(const struct sigaction *act, struct sigaction *old)
{
	static int installed;
	if (old != NULL)
		*old = bus_action;
	if (act == NULL)
		return 0;
	bus_action = *act;
	if ((act->sa_flags & SA_SIGINFO) && act->sa_sigaction != NULL) {
		if (!installed && AddVectoredExceptionHandler(1, on_fault) == NULL) {
			errno = ENOMEM;
			return -1;
		}
		installed = 1;
		bus_handler = act->sa_sigaction;
	} else {
		bus_handler = NULL; /* SIG_DFL or SIG_IGN: a fault ends the process, as it would */
	}
	return 0;
}

int skg_os_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (sig == SIGBUS)
		return bus_sigaction(act, old);
	/* the signals the CRT raises; the others (SIGHUP, SIGPIPE, SIGQUIT) never come */
	int crt = sig == SIGINT || sig == SIGTERM || sig == SIGABRT || sig == SIGSEGV || sig == SIGFPE ||
	          sig == SIGILL || sig == SIGBREAK;
	void (*prev)(int) = SIG_DFL;
	if (crt) {
		void (*h)(int) = act != NULL && !(act->sa_flags & SA_SIGINFO) ? act->sa_handler : NULL;
		if (act == NULL || h == NULL) { /* query: set and put back */
			prev = signal(sig, SIG_DFL);
			signal(sig, prev);
		}
		if (h != NULL)
			prev = signal(sig, h);
		if (prev == SIG_ERR) {
			errno = EINVAL;
			return -1;
		}
	}
	if (old != NULL) {
		memset(old, 0, sizeof(*old));
		old->sa_handler = prev;
	}
	return 0;
}

/* ---- system ------------------------------------------------------------------------------------ */

long skg_os_sysconf(int name)
{
	SYSTEM_INFO si;
	GetSystemInfo(&si);
	if (name == _SC_PAGESIZE)
		return (long)si.dwPageSize;
	if (name == _SC_NPROCESSORS_ONLN)
		return (long)si.dwNumberOfProcessors;
	errno = EINVAL;
	return -1;
}
