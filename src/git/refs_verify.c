/*
 * refs_verify.c - `git refs verify` (<sha1kit/git_refs.h>): the consistency checks of the files
 * ref backend, as Git 2.55.0 makes them. Sources (facts, not code): refs/files-backend.c
 * (files_fsck, files_fsck_refs_dir, files_fsck_root_ref, files_fsck_ref, files_fsck_refs_name,
 * files_fsck_refs_content, files_fsck_symref_target, parse_loose_ref_contents), refs/packed-backend.c
 * (packed_fsck and its packed_fsck_ref_* helpers, cmp_packed_refname), refs.c (refs_fsck_ref,
 * refs_fsck_symref, is_root_ref, is_pseudo_ref), dir-iterator.c (the unsorted depth-first walk and
 * its warnings), fsck.c / fsck.h (fsck_vreport, fsck_refs_error_function, the message IDs and
 * their default severities, git_fsck_config), builtin/refs.c (cmd_refs_verify), and for reftable
 * repositories refs/reftable-backend.c reftable_be_fsck and reftable/fsck.c (table names).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sha1kit/git_refs.h>

#include "config.h"
#include "fsck_object.h"
#include "refname.h"
#include "refs_verify.h"
#include "reftable.h"
#include "repo.h"
#include "util.h"
#include "worktree.h"

#ifndef O_NOFOLLOW
#define O_NOFOLLOW 0 /* Windows: no symbolic links to refuse */
#endif

/* The ref messages of Git 2.55's fsck.h, with their default severities. */
enum ref_msg {
	M_BAD_HEAD_TARGET,
	M_BAD_PACKED_REF_ENTRY,
	M_BAD_PACKED_REF_HEADER,
	M_BAD_REFERENT_NAME,
	M_BAD_REF_CONTENT,
	M_BAD_REF_FILETYPE,
	M_BAD_REF_NAME,
	M_BAD_REF_OID,
	M_PACKED_REF_ENTRY_NOT_TERMINATED,
	M_PACKED_REF_UNSORTED,
	M_BAD_REFTABLE_TABLE_NAME,
	M_EMPTY_PACKED_REFS_FILE,
	M_REF_MISSING_NEWLINE,
	M_SYMLINK_REF,
	M_SYMREF_TARGET_IS_NOT_A_REF,
	M_TRAILING_REF_CONTENT,
	M_COUNT
};

static const struct {
	const char *name;
	enum skg_fsck_severity severity;
} ref_msgs[M_COUNT] = {
    {"badHeadTarget", SKG_FSCK_ERROR},
    {"badPackedRefEntry", SKG_FSCK_ERROR},
    {"badPackedRefHeader", SKG_FSCK_ERROR},
    {"badReferentName", SKG_FSCK_ERROR},
    {"badRefContent", SKG_FSCK_ERROR},
    {"badRefFiletype", SKG_FSCK_ERROR},
    {"badRefName", SKG_FSCK_ERROR},
    {"badRefOid", SKG_FSCK_ERROR},
    {"packedRefEntryNotTerminated", SKG_FSCK_ERROR},
    {"packedRefUnsorted", SKG_FSCK_ERROR},
    {"badReftableTableName", SKG_FSCK_WARN},
    {"emptyPackedRefsFile", SKG_FSCK_INFO},
    {"refMissingNewline", SKG_FSCK_INFO},
    {"symlinkRef", SKG_FSCK_INFO},
    {"symrefTargetIsNotARef", SKG_FSCK_INFO},
    {"trailingRefContent", SKG_FSCK_INFO},
};

/* Message IDs Git 2.55 knows beyond 2.39's (fsck_object.h) and the ref ones: fsck.<id> of these
 * is accepted and means nothing to the ref checks. */
static const char *const other_new_msgs[] = {"badGpgsig", "badHeaderContinuation", "largePathname"};

const char *skg_refs_msg_at(size_t i, enum skg_fsck_severity *severity)
{
	if (i >= M_COUNT) {
		return NULL;
	}
	*severity = ref_msgs[i].severity;
	return ref_msgs[i].name;
}

bool skg_refs_msg_newer_id(const char *id)
{
	for (int i = 0; i < M_COUNT; i++) {
		if (strcasecmp(id, ref_msgs[i].name) == 0) {
			return true;
		}
	}
	for (size_t i = 0; i < sizeof(other_new_msgs) / sizeof(other_new_msgs[0]); i++) {
		if (strcasecmp(id, other_new_msgs[i]) == 0) {
			return true;
		}
	}
	return false;
}

struct rv {
	struct skg_repo *repo;
	const struct skg_sink *sink;
	struct skg_error *err;
	size_t rawsz; /* bytes of an object ID: the repository's format (20, or 32 for SHA-256) */
	bool verbose;
	uint8_t severity[M_COUNT];
	const struct skg_worktree *wt; /* the worktree being checked */
	struct skg_buf line;           /* scratch for "packed-refs line N" */
	int errors;                    /* an error was reported */
	/* run in a linked worktree whose reftable stack does not open: git's store fails from its
	 * set-up, and the main worktree's refs are not read (check_reftable) */
	bool store_broken;
};

#define EXIT_REFS 010 /* git fsck's ERROR_REFS, the bit of a failed `git refs verify` */

/* Hand r to the sink with its text formatted (git's vreportf form for errors and warnings). */
static void emit(const struct rv *v, const struct skg_report *r, const char *fmt, ...) SKG_PRINTF(3, 4);

static int nomem(struct rv *v)
{
	return skg_fail_sys(v->err, SKG_E_NOMEM, ENOMEM, "out of memory");
}

/* fsck_report_ref: "PATH: msgId: TEXT", an error or a warning (info), or nothing (ignore).
 * Returns -1 for an error (git's error() value), else 0. */
static int report(struct rv *v, const char *path, enum ref_msg m, const char *fmt, ...) SKG_PRINTF(4, 5);
static int report(struct rv *v, const char *path, enum ref_msg m, const char *fmt, ...)
{
	enum skg_fsck_severity sev = (enum skg_fsck_severity)v->severity[m];
	if (sev == SKG_FSCK_IGNORE) {
		return 0;
	}
	bool is_error = sev == SKG_FSCK_ERROR || sev == SKG_FSCK_FATAL;
	char msg[SKG_ERROR_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	struct skg_report r = {is_error ? SKG_LEVEL_ERROR : SKG_LEVEL_WARNING,
	                       SKG_R_FSCK,
	                       ref_msgs[m].name,
	                       SKG_NONE,
	                       NULL,
	                       NULL,
	                       false,
	                       is_error ? EXIT_REFS : 0};
	emit(v, &r, "%s: %s: %s", path, ref_msgs[m].name, msg);
	if (is_error) {
		v->errors = 1;
		return -1;
	}
	return 0;
}

/* error_errno() / warning_errno(): git's own lines, outside the message IDs. */
static int sys_line(struct rv *v, enum skg_level level, int errnum, const char *fmt, const char *path)
{
	struct skg_report r = {level, SKG_R_FSCK, NULL,  SKG_NONE,
	                       NULL,  NULL,       false, level == SKG_LEVEL_ERROR ? EXIT_REFS : 0};
	char what[SKG_ERROR_MAX];
	snprintf(what, sizeof(what), fmt, path);
	emit(v, &r, "%s: %s", what, strerror(errnum));
	if (level == SKG_LEVEL_ERROR) {
		v->errors = 1;
		return -1;
	}
	return 0;
}

static void verbose_line(struct rv *v, const char *fmt, const char *arg)
{
	if (v->verbose) {
		struct skg_report r = {SKG_LEVEL_PLAIN, 0, NULL, SKG_NONE, NULL, NULL, false, 0};
		emit(v, &r, fmt, arg);
	}
}

static void emit(const struct rv *v, const struct skg_report *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	skg_vreport(v->sink, r, fmt, ap);
	va_end(ap);
}

/* ---- names ---------------------------------------------------------------------------------- */

/* refs.c is_root_ref_syntax, is_pseudo_ref, is_root_ref. */
static bool is_root_ref(const char *name)
{
	for (const char *c = name; *c != '\0'; c++) {
		if (!skg_isupper((unsigned char)*c) && *c != '-' && *c != '_') {
			return false;
		}
	}
	if (strcmp(name, "FETCH_HEAD") == 0 || strcmp(name, "MERGE_HEAD") == 0) {
		return false;
	}
	if (skg_ends_with(name, "_HEAD")) {
		return true;
	}
	static const char *const irregular[] = {
	    "HEAD",           "AUTO_MERGE", "BISECT_EXPECTED_REV", "NOTES_MERGE_PARTIAL", "NOTES_MERGE_REF",
	    "MERGE_AUTOSTASH"};
	for (size_t i = 0; i < sizeof(irregular) / sizeof(irregular[0]); i++) {
		if (strcmp(name, irregular[i]) == 0) {
			return true;
		}
	}
	return false;
}

/* git's parse_oid_hex: 40 hex digits (either case) at p, 64 in a SHA-256 repository (the
 * repository's hash algorithm); *end after them. */
static bool parse_hex(const struct rv *v, const char *p, uint8_t *id, const char **end)
{
	if (!skg_from_hex_len(p, v->rawsz, id)) {
		return false;
	}
	*end = p + 2 * v->rawsz;
	return true;
}

/* refs_fsck_ref */
static int check_oid(struct rv *v, const char *path, const uint8_t *id)
{
	if (skg_is_null_id_len(id, v->rawsz)) {
		char hex[SKG_MAX_HEXSZ + 1];
		skg_to_hex_len(id, v->rawsz, hex);
		return report(v, path, M_BAD_REF_OID, "points to invalid object ID '%s'", hex);
	}
	return 0;
}

/* refs_fsck_symref */
static int check_symref(struct rv *v, const char *path, const char *refname, const char *target)
{
	const char *bare, *wt;
	size_t wt_len;
	skg_parse_worktree_ref(refname, &wt, &wt_len, &bare);
	if (strcmp(bare, "HEAD") == 0 && !skg_starts_with(target, "refs/heads/") &&
	    report(v, path, M_BAD_HEAD_TARGET, "HEAD points to non-branch '%s'", target)) {
		return -1;
	}
	if (is_root_ref(target)) {
		return 0;
	}
	if (!skg_refname_ok(target, 0) &&
	    report(v, path, M_BAD_REFERENT_NAME, "points to invalid refname '%s'", target)) {
		return -1;
	}
	if (!skg_starts_with(target, "refs/") && !skg_starts_with(target, "worktrees/") &&
	    report(v, path, M_SYMREF_TARGET_IS_NOT_A_REF, "points to non-ref target '%s'", target)) {
		return -1;
	}
	return 0;
}

/* files_fsck_symref_target: referent is the text after "ref:" and its blanks (a regular file) or
 * the path a symbolic link resolves to. */
static int check_symref_target(struct rv *v, const char *refname, char *referent, bool symbolic_link)
{
	int ret = 0;
	size_t orig_len = strlen(referent);
	if (!symbolic_link) {
		/* git reads the byte before an empty referent; its test below passes all the same */
		char orig_last = orig_len > 0 ? referent[orig_len - 1] : '\0';
		size_t len = orig_len;
		while (len > 0 && skg_isspace((unsigned char)referent[len - 1])) {
			len--;
		}
		referent[len] = '\0';
		if (len == orig_len || (len < orig_len && orig_last != '\n')) {
			ret |= report(v, refname, M_REF_MISSING_NEWLINE, "misses LF at the end");
		}
		if (len != orig_len && len != orig_len - 1) {
			ret |= report(v, refname, M_TRAILING_REF_CONTENT,
			              "has trailing whitespaces or newlines");
		}
	}
	ret |= check_symref(v, refname, refname, referent);
	return ret ? -1 : 0;
}

/* ---- one loose ref ---------------------------------------------------------------------------- */

/* abspath.c MAXSYMLINKS where the system does not define it (git's Linux builds: 32). */
#define GIT_MAXSYMLINKS 32

/* The last component of the path in r (git's strip_last_component): r keeps its root "/". */
static void strip_last(struct skg_buf *r)
{
	size_t n = r->len;
	while (n > 1 && r->p[n - 1] == '/') {
		n--;
	}
	while (n > 1 && r->p[n - 1] != '/') {
		n--;
	}
	while (n > 1 && r->p[n - 1] == '/') {
		n--;
	}
	skg_buf_setlen(r, n);
}

/*
 * git's strbuf_realpath with REALPATH_DIE_ON_ERROR (abspath.c strbuf_realpath_1) of the absolute
 * path abs, shown as git names it: component by component with lstat, symbolic links spliced in
 * (more than GIT_MAXSYMLINKS + 1 is "More than 32 nested symlinks on path 'SHOWN'"), the last
 * component allowed to be missing; any other failure "Invalid path 'PATH': REASON" with the path
 * resolved so far. 0 with the result in *out, or -2 with v->err.
 */
static int git_realpath(struct rv *v, const char *abs, const char *shown, struct skg_buf *out)
{
	struct skg_buf remaining = {0}, link = {0};
	int num_symlinks = 0, ret = 0;
	skg_buf_setlen(out, 0);
	skg_buf_adds(out, "/");
	skg_buf_adds(&remaining, abs);
	size_t pos = 0; /* remaining.p[pos..] is still to resolve */
	while (!remaining.failed && !out->failed && pos < remaining.len) {
		while (pos < remaining.len && remaining.p[pos] == '/') {
			pos++;
		}
		size_t start = pos;
		while (pos < remaining.len && remaining.p[pos] != '/') {
			pos++;
		}
		size_t n = pos - start;
		if (n == 0 || (n == 1 && remaining.p[start] == '.')) {
			continue;
		}
		if (n == 2 && remaining.p[start] == '.' && remaining.p[start + 1] == '.') {
			strip_last(out);
			continue;
		}
		if (out->p[out->len - 1] != '/') {
			skg_buf_addc(out, '/');
		}
		skg_buf_add(out, remaining.p + start, n);
		if (out->failed) {
			break;
		}
		bool more = false; /* components left after this one */
		for (size_t i = pos; i < remaining.len; i++) {
			more = more || remaining.p[i] != '/';
		}
		struct stat st;
		if (lstat(out->p, &st) != 0) {
			if (errno != ENOENT || more) {
				skg_fail(v->err, "Invalid path '%s': %s", out->p, strerror(errno));
				ret = -2;
				break;
			}
		} else if (S_ISLNK(st.st_mode)) {
			if (num_symlinks++ > GIT_MAXSYMLINKS) {
				skg_fail(v->err, "More than %d nested symlinks on path '%s'", GIT_MAXSYMLINKS,
				         shown);
				ret = -2;
				break;
			}
			char target[4096];
			ssize_t len = readlink(out->p, target, sizeof(target) - 1);
			if (len < 0) {
				skg_fail(v->err, "Invalid symlink '%s': %s", out->p, strerror(errno));
				ret = -2;
				break;
			}
			target[len] = '\0';
			if (target[0] == '/') {
				skg_buf_setlen(out, 1); /* absolute: from the root */
			} else {
				strip_last(out);
			}
			skg_buf_setlen(&link, 0);
			skg_buf_adds(&link, target);
			if (pos < remaining.len) {
				skg_buf_addc(&link, '/');
				skg_buf_add(&link, remaining.p + pos, remaining.len - pos);
			}
			struct skg_buf t = remaining;
			remaining = link;
			link = t;
			pos = 0;
		}
	}
	if (ret == 0 && (remaining.failed || out->failed || link.failed)) {
		nomem(v);
		ret = -2;
	}
	skg_buf_release(&remaining);
	skg_buf_release(&link);
	return ret;
}

/* files_fsck_refs_content for a symbolic link: the target's real path, relative to the git
 * directory when it is inside it. */
static int check_symlink(struct rv *v, const char *refname, const char *path, const char *shown)
{
	int ret = report(v, refname, M_SYMLINK_REF, "use deprecated symbolic link for symref");
	struct skg_buf real = {0};
	if (git_realpath(v, path, shown, &real) != 0) {
		skg_buf_release(&real);
		return -2;
	}
	const char *gd = v->repo->git_dir;
	size_t gl = strlen(gd);
	while (gl > 1 && gd[gl - 1] == '/') {
		gl--;
	}
	const char *rel = NULL;
	if (strncmp(real.p, gd, gl) == 0 && (gl == 1 || real.p[gl] == '/')) {
		rel = real.p + gl + (gl == 1 ? 0 : 1);
	}
	char *referent = strdup(rel != NULL ? rel : real.p);
	skg_buf_release(&real);
	if (referent == NULL) {
		nomem(v);
		return -2;
	}
	ret |= check_symref_target(v, refname, referent, true);
	free(referent);
	return ret ? -1 : 0;
}

/* files_fsck_refs_content for a regular file. Returns 0, -1 (a finding) or -2 (run failure). */
static int check_content(struct rv *v, const char *refname, const char *path, const char *shown)
{
	char *data = NULL;
	size_t len = 0;
	if (skg_read_file(path, SIZE_MAX, &data, &len) != 0) {
		int e = errno;
		if (e == ENOENT) {
			return 0; /* removed meanwhile: git goes on */
		}
		if (e == ENOMEM) {
			nomem(v);
			return -2;
		}
		return sys_line(v, SKG_LEVEL_ERROR, e, "cannot read ref file '%s'", shown);
	}
	int ret = 0;
	/* parse_loose_ref_contents reads the content as a C string */
	const char *buf = data;
	if (skg_starts_with(buf, "ref:")) {
		buf += 4;
		while (skg_isspace((unsigned char)*buf)) {
			buf++;
		}
		char *referent = strdup(buf);
		if (referent == NULL) {
			free(data);
			nomem(v);
			return -2;
		}
		ret = check_symref_target(v, refname, referent, false);
		free(referent);
		free(data);
		return ret;
	}
	uint8_t id[SKG_MAX_RAWSZ];
	const char *p;
	if (!parse_hex(v, buf, id, &p) || (*p != '\0' && !skg_isspace((unsigned char)*p))) {
		size_t n = len; /* strbuf_rtrim of the whole file, printed as a C string */
		while (n > 0 && skg_isspace((unsigned char)data[n - 1])) {
			n--;
		}
		data[n] = '\0';
		ret = report(v, refname, M_BAD_REF_CONTENT, "%s", data);
	} else if (*p == '\0') {
		ret = report(v, refname, M_REF_MISSING_NEWLINE, "misses LF at the end");
	} else if (*p != '\n' || p[1] != '\0') {
		ret = report(v, refname, M_TRAILING_REF_CONTENT, "has trailing garbage: '%s'", p);
	} else {
		ret = check_oid(v, refname, id);
	}
	free(data);
	return ret;
}

/* files_fsck_ref: the name, then the content. Returns 0, -1 (a finding) or -2 (run failure). */
static int check_ref(struct rv *v, const char *refname, const char *path, const char *shown, mode_t mode)
{
	verbose_line(v, "Checking %s", refname);
	if (!S_ISREG(mode) && !S_ISLNK(mode)) {
		return report(v, refname, M_BAD_REF_FILETYPE, "unexpected file type") ? -1 : 0;
	}
	int ret = 0;
	if (!is_root_ref(refname) && !skg_refname_ok(refname, 0) &&
	    report(v, refname, M_BAD_REF_NAME, "invalid refname format")) {
		ret = -1;
	}
	int r =
	    S_ISLNK(mode) ? check_symlink(v, refname, path, shown) : check_content(v, refname, path, shown);
	if (r == -2) {
		return -2;
	}
	return r != 0 ? -1 : ret;
}

/* ---- the walk of refs/ ---------------------------------------------------------------------- */

/* dir-iterator.c without DIR_ITERATOR_SORTED or PEDANTIC: entries in readdir order, a directory's
 * contents right after it; lstat, so symbolic links are not followed. path ends in '/'. */
static int walk(struct rv *v, struct skg_buf *path, struct skg_buf *shown, struct skg_buf *refname)
{
	DIR *d = opendir(path->p);
	if (d == NULL) {
		int e = errno;
		if (e == ENOMEM) {
			return nomem(v);
		}
		if (e != ENOENT) {
			sys_line(v, SKG_LEVEL_WARNING, e, "error opening directory '%s'", shown->p);
		}
		return 1; /* the caller decides (the top level: "failed to iterate") */
	}
	size_t plen = path->len, slen = shown->len, rlen = refname->len;
	int ret = 0;
	for (;;) {
		errno = 0;
		struct dirent *de = readdir(d);
		if (de == NULL) {
			if (errno != 0) {
				sys_line(v, SKG_LEVEL_WARNING, errno, "error reading directory '%s'",
				         shown->p);
				/* git's iterator reads on, and loops for ever where the error stays */
			}
			break;
		}
		const char *name = de->d_name;
		if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
			continue;
		}
		skg_buf_setlen(path, plen);
		skg_buf_adds(path, name);
		skg_buf_setlen(shown, slen);
		skg_buf_adds(shown, name);
		skg_buf_setlen(refname, rlen);
		skg_buf_adds(refname, name);
		if (path->failed || shown->failed || refname->failed) {
			ret = nomem(v);
			break;
		}
		struct stat st;
		if (lstat(path->p, &st) != 0) {
			if (errno != ENOENT) {
				sys_line(v, SKG_LEVEL_WARNING, errno, "failed to stat '%s'", shown->p);
			}
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			skg_buf_addc(path, '/');
			skg_buf_addc(shown, '/');
			skg_buf_addc(refname, '/');
			if (path->failed || shown->failed || refname->failed) {
				ret = nomem(v);
				break;
			}
			int r = walk(v, path, shown, refname);
			if (r < 0) {
				ret = r;
				break;
			}
			continue;
		}
		/* lock files are skipped, but not names like ".lock" that are bad ref names */
		if (name[0] != '.' && skg_ends_with(name, ".lock")) {
			continue;
		}
		int r = check_ref(v, refname->p, path->p, shown->p, st.st_mode);
		if (r == -2) {
			ret = -1;
			break;
		}
	}
	closedir(d);
	skg_buf_setlen(path, plen);
	skg_buf_setlen(shown, slen);
	skg_buf_setlen(refname, rlen);
	return ret;
}

/* files_fsck_refs_dir */
static int check_refs_dir(struct rv *v, const char *store_dir, const char *store_display)
{
	const struct skg_worktree *wt = v->wt;
	struct skg_buf path = {0}, shown = {0}, refname = {0};
	skg_buf_addf(&path, "%s/refs", store_dir);
	skg_buf_addf(&shown, "%s/refs", store_display);
	if (wt->id != NULL) {
		skg_buf_addf(&refname, "worktrees/%s/", wt->id);
	}
	skg_buf_adds(&refname, "refs/");
	int ret = 0;
	struct stat st;
	int e = 0;
	if (!path.failed && lstat(path.p, &st) != 0) {
		e = errno;
	} else if (!path.failed && !S_ISDIR(st.st_mode)) {
		e = ENOTDIR;
	}
	if (path.failed || shown.failed || refname.failed) {
		ret = nomem(v);
	} else if (e != 0) {
		if (!(e == ENOENT && wt->id != NULL)) {
			sys_line(v, SKG_LEVEL_ERROR, e, "cannot open directory %s", shown.p);
		}
	} else {
		size_t top = shown.len;
		skg_buf_addc(&path, '/');
		skg_buf_addc(&shown, '/'); /* git's iterator names directories with their '/' */
		if (path.failed || shown.failed) {
			ret = nomem(v);
		} else {
			int r = walk(v, &path, &shown, &refname);
			skg_buf_setlen(&shown, top);
			if (r < 0) {
				ret = r;
			} else if (r > 0) {
				/* the top directory did not open: git's iterator ends in error */
				struct skg_report rep = {SKG_LEVEL_ERROR, SKG_R_FSCK, NULL,
				                         SKG_NONE,        NULL,       NULL,
				                         false,           EXIT_REFS};
				emit(v, &rep, "failed to iterate over '%s'", shown.p);
				v->errors = 1;
			}
		}
	}
	skg_buf_release(&path);
	skg_buf_release(&shown);
	skg_buf_release(&refname);
	return ret;
}

/* files_fsck_root_ref over for_each_root_ref: the regular files (symbolic links followed) of the
 * worktree's git directory whose names are root refs, in readdir order, up to the first whose check
 * reports an error (git's iteration stops there). */
static int check_root_refs(struct rv *v, const char *store_dir)
{
	struct skg_buf shown = {0};
	const struct skg_worktree *wt = v->wt;
	DIR *d = opendir(store_dir);
	if (d == NULL) {
		return errno == ENOMEM ? nomem(v) : 0;
	}
	struct skg_buf path = {0}, refname = {0};
	int ret = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		const char *name = de->d_name;
		if (name[0] == '.' || skg_ends_with(name, ".lock")) {
			continue;
		}
		skg_buf_setlen(&path, 0);
		skg_buf_addf(&path, "%s/%s", store_dir, name);
		struct stat st;
		if (path.failed) {
			ret = nomem(v);
			break;
		}
		if (stat(path.p, &st) != 0 || !S_ISREG(st.st_mode) || !is_root_ref(name)) {
			continue;
		}
		skg_buf_setlen(&refname, 0);
		if (wt->id != NULL) {
			skg_buf_addf(&refname, "worktrees/%s/", wt->id);
		}
		skg_buf_adds(&refname, name);
		if (refname.failed) {
			ret = nomem(v);
			break;
		}
		skg_buf_setlen(&shown, 0);
		skg_buf_addf(&shown, "%s/%s", v->repo->common_dir_display, refname.p);
		if (shown.failed) {
			ret = nomem(v);
			break;
		}
		int r = check_ref(v, refname.p, path.p, shown.p, st.st_mode);
		if (r == -2) {
			ret = -1;
			break;
		}
		if (r != 0) {
			break; /* for_each_root_ref stops at a callback that fails */
		}
	}
	closedir(d);
	skg_buf_release(&path);
	skg_buf_release(&shown);
	skg_buf_release(&refname);
	return ret;
}

/* ---- packed-refs ---------------------------------------------------------------------------- */

static const char *line_path(struct rv *v, unsigned long n)
{
	skg_buf_setlen(&v->line, 0);
	skg_buf_addf(&v->line, "packed-refs line %lu", n);
	return v->line.failed ? "packed-refs line" : v->line.p;
}

/* packed_fsck_ref_next_line: the line at start ends at '\n' or, unterminated, at eof. */
static int next_line(struct rv *v, unsigned long n, const char *start, const char *eof, const char **eol)
{
	*eol = memchr(start, '\n', (size_t)(eof - start));
	if (*eol == NULL) {
		*eol = eof;
		return report(v, line_path(v, n), M_PACKED_REF_ENTRY_NOT_TERMINATED,
		              "'%.*s' is not terminated with a newline", (int)(eof - start), start);
	}
	return 0;
}

static int main_line(struct rv *v, unsigned long n, const char *start, const char *eol)
{
	uint8_t id[SKG_MAX_RAWSZ];
	const char *p;
	if (!parse_hex(v, start, id, &p)) {
		return report(v, line_path(v, n), M_BAD_PACKED_REF_ENTRY, "'%.*s' has invalid oid",
		              (int)(eol - start), start);
	}
	if (p == eol || !skg_isspace((unsigned char)*p)) {
		char hex[SKG_MAX_HEXSZ + 1];
		skg_to_hex_len(id, v->rawsz, hex);
		return report(v, line_path(v, n), M_BAD_PACKED_REF_ENTRY,
		              "has no space after oid '%s' but with '%.*s'", hex, (int)(eol - p), p);
	}
	p++;
	int ret = 0;
	size_t len = (size_t)(eol - p);
	char *name = malloc(len + 1);
	if (name == NULL) {
		nomem(v);
		return -2;
	}
	memcpy(name, p, len);
	name[len] = '\0';
	if (strlen(name) != len) {
		ret = report(v, line_path(v, n), M_BAD_PACKED_REF_ENTRY,
		             "refname '%s' contains NULL binaries", name);
	}
	if (!skg_refname_ok(name, 0)) {
		ret = report(v, line_path(v, n), M_BAD_REF_NAME, "has bad refname '%s'", name);
	}
	free(name);
	return ret;
}

static int peeled_line(struct rv *v, unsigned long n, const char *start, const char *eol)
{
	uint8_t id[SKG_MAX_RAWSZ];
	const char *p;
	start++;
	if (!parse_hex(v, start, id, &p)) {
		return report(v, line_path(v, n), M_BAD_PACKED_REF_ENTRY, "'%.*s' has invalid peeled oid",
		              (int)(eol - start), start);
	}
	if (p != eol) {
		return report(v, line_path(v, n), M_BAD_PACKED_REF_ENTRY,
		              "has trailing garbage after peeled oid '%.*s'", (int)(eol - p), p);
	}
	return 0;
}

/* cmp_packed_refname: names end at '\n' (or, here, at eof). */
static int cmp_names(const char *a, const char *b, const char *eof)
{
	for (;; a++, b++) {
		int ca = a < eof ? (unsigned char)*a : '\n', cb = b < eof ? (unsigned char)*b : '\n';
		if (ca == '\n') {
			return cb == '\n' ? 0 : -1;
		}
		if (ca != cb) {
			return cb == '\n' ? 1 : (ca < cb ? -1 : 1);
		}
	}
}

static size_t name_len(const char *p, const char *eof)
{
	const char *e = p < eof ? memchr(p, '\n', (size_t)(eof - p)) : NULL;
	return p < eof ? (size_t)((e != NULL ? e : eof) - p) : 0;
}

/* packed_fsck_ref_sorted: the first name out of order, if any. */
static int check_sorted(struct rv *v, const char *start, const char *eof)
{
	unsigned long n = 1;
	if (*start == '#') {
		const char *eol = memchr(start, '\n', (size_t)(eof - start));
		start = eol != NULL ? eol + 1 : eof;
		n++;
	}
	const char *former = NULL;
	for (; start < eof; n++) {
		const char *eol = memchr(start, '\n', (size_t)(eof - start));
		if (eol == NULL) {
			eol = eof;
		}
		if (*start != '^') {
			const char *current = start + 2 * v->rawsz + 1;
			if (former != NULL && cmp_names(former, current, eof) >= 0) {
				return report(v, line_path(v, n), M_PACKED_REF_UNSORTED,
				              "refname '%.*s' is less than previous refname '%.*s'",
				              (int)name_len(current, eof), current,
				              (int)name_len(former, eof), former);
			}
			former = current;
		}
		start = eol + 1;
	}
	return 0;
}

/* packed_fsck_ref_content */
static int check_packed_content(struct rv *v, const char *start, const char *eof, bool *sorted)
{
	unsigned long n = 1;
	const char *eol;
	int ret = next_line(v, n, start, eof, &eol);
	if (*start == '#') {
		size_t hl = (size_t)(eol - start);
		static const char prefix[] = "# pack-refs with: ";
		if (hl < sizeof(prefix) - 1 || memcmp(start, prefix, sizeof(prefix) - 1) != 0) {
			ret |= report(v, "packed-refs.header", M_BAD_PACKED_REF_HEADER,
			              "'%.*s' does not start with '# pack-refs with: '", (int)hl, start);
		} else {
			/* the traits, split at single spaces */
			const char *t = start + sizeof(prefix) - 1;
			while (t <= eol) {
				const char *e = t;
				while (e < eol && *e != ' ') {
					e++;
				}
				if (e - t == 6 && memcmp(t, "sorted", 6) == 0) {
					*sorted = true;
				}
				t = e + 1;
			}
		}
		start = eol + 1;
		n++;
	}
	while (start < eof) {
		ret |= next_line(v, n, start, eof, &eol);
		int r = main_line(v, n, start, eol);
		if (r == -2) {
			return -2;
		}
		ret |= r;
		start = eol + 1;
		n++;
		if (start < eof && *start == '^') {
			ret |= next_line(v, n, start, eof, &eol);
			ret |= peeled_line(v, n, start, eol);
			start = eol + 1;
			n++;
		}
	}
	return ret;
}

/* packed_fsck: the main worktree's packed-refs only. */
static int check_packed(struct rv *v)
{
	struct skg_buf path = {0}, shown = {0};
	skg_buf_addf(&path, "%s/packed-refs", v->repo->common_dir);
	skg_buf_addf(&shown, "%s/packed-refs", v->repo->common_dir_display);
	if (path.failed || shown.failed) {
		skg_buf_release(&path);
		skg_buf_release(&shown);
		return nomem(v);
	}
	verbose_line(v, "Checking packed-refs file %s", shown.p);
	int ret = 0;
	int fd = open(path.p, O_RDONLY | O_NOFOLLOW);
	struct stat st;
	char *data = NULL;
	size_t len = 0;
	if (fd < 0) {
		if (errno == ELOOP) {
			report(v, "packed-refs", M_BAD_REF_FILETYPE, "not a regular file but a symlink");
		} else if (errno == EISDIR) {
			/* Windows does not open a directory; git on POSIX does, and its fstat says this */
			report(v, "packed-refs", M_BAD_REF_FILETYPE, "not a regular file");
		} else if (errno != ENOENT) {
			sys_line(v, SKG_LEVEL_ERROR, errno, "unable to open '%s'", shown.p);
		}
	} else if (fstat(fd, &st) != 0) {
		sys_line(v, SKG_LEVEL_ERROR, errno, "unable to stat '%s'", shown.p);
	} else if (!S_ISREG(st.st_mode)) {
		report(v, "packed-refs", M_BAD_REF_FILETYPE, "not a regular file");
	} else if (st.st_size == 0) {
		report(v, "packed-refs", M_EMPTY_PACKED_REFS_FILE, "file is empty");
	} else if (skg_read_file(path.p, SIZE_MAX, &data, &len) != 0) {
		if (errno == ENOMEM) {
			ret = nomem(v);
		} else {
			sys_line(v, SKG_LEVEL_ERROR, errno, "unable to open '%s'", shown.p);
		}
	} else if (len > 0) {
		bool sorted = false;
		int r = check_packed_content(v, data, data + len, &sorted);
		if (r == -2) {
			ret = -1;
		} else if (r == 0 && sorted) {
			check_sorted(v, data, data + len);
		}
	}
	if (fd >= 0) {
		close(fd);
	}
	free(data);
	skg_buf_release(&path);
	skg_buf_release(&shown);
	return ret;
}

/* ---- reftable ------------------------------------------------------------------------------- */

/* reftable/fsck.c table_has_valid_name: "HEX-HEX-HEX.ref" or ".log", each number as strtoull reads
 * it in base 16 (blanks, a sign and "0x" allowed; only an overflow fails). */
static bool table_name_ok(const char *name)
{
	const char *p = name;
	char *end;
	for (int i = 0; i < 3; i++) {
		errno = 0;
		(void)strtoull(p, &end, 16);
		if (errno != 0) {
			return false;
		}
		p = end;
		if (i < 2) {
			if (*p != '-') {
				return false;
			}
			p++;
		}
	}
	return strcmp(p, ".ref") == 0 || strcmp(p, ".log") == 0;
}

/* reftable_be_fsck for one worktree's stack: the names of its tables (tables.list), then each ref
 * record of the merged stack, in name order: an object ID must not be null, a symbolic ref's target
 * is checked as a loose symbolic ref's. 0, or -1 when the run stops (err). The names are those of
 * the stack as it was read (git's stack->tables). */
/* One of reftable_be_fsck's error() lines about a worktree's stack, what with the worktree's ID for
 * its %s (fsck's bit 8; refs verify exits 255). */
static void stack_error(struct rv *v, const char *what, const char *id)
{
	struct skg_report r = {SKG_LEVEL_ERROR, SKG_R_FSCK, NULL, SKG_NONE, NULL, NULL, false, EXIT_REFS};
	emit(v, &r, what, id);
	v->errors = 1;
}

static int check_reftable(struct rv *v, const char *store_dir, const char *store_display)
{
	const struct skg_worktree *wt = v->wt;
	struct skg_buf dir = {0}, shown = {0}, path = {0};
	skg_buf_addf(&dir, "%s/reftable", store_dir);
	skg_buf_addf(&shown, "%s/reftable", store_display);
	int ret = 0;
	struct skg_reftable_stack *st = NULL;
	if (dir.failed || shown.failed) {
		ret = nomem(v);
		goto out;
	}
	/* the stack first: git reads it when it sets up the ref store, before any check. A linked
	 * worktree's stack is opened by reftable_be_fsck itself (backend_for_worktree): one that does
	 * not open is an error line and the next worktree is checked (the main one's, opened with the
	 * store, stops the command: git 2.55 crashes there, docs/git.md section 7) */
	if (skg_reftable_open(&st, dir.p, shown.p, v->rawsz, v->err) != 0) {
		if (wt->id != NULL && v->err->code != SKG_E_NOMEM) {
			stack_error(v, "reftable stack for worktree '%s' is broken", wt->id);
			goto out;
		}
		ret = -1;
		goto out;
	}
	for (size_t i = 0; i < skg_reftable_table_count(st); i++) {
		const char *name = skg_reftable_table_name(st, i);
		verbose_line(v, "Checking table: %s", name);
		if (!table_name_ok(name)) {
			report(v, name, M_BAD_REFTABLE_TABLE_NAME, "invalid reftable table name");
		}
	}
	/* ref_iterator_for_stack: a store that failed at its set-up yields no record, quietly (a
	 * linked worktree's check opens its stack again first, which clears that failure) */
	bool reads = !(v->store_broken && wt->id == NULL);
	for (size_t i = 0; reads && i < skg_reftable_ref_count(st); i++) {
		const struct skg_reftable_ref *r = skg_reftable_ref_at(st, i);
		skg_buf_setlen(&path, 0);
		if (wt->id != NULL) {
			skg_buf_addf(&path, "worktrees/%s/", wt->id);
		}
		skg_buf_adds(&path, r->name);
		if (path.failed) {
			ret = nomem(v);
			goto out;
		}
		if (r->type == SKG_REFTABLE_SYMREF) {
			check_symref(v, path.p, r->name, r->target != NULL ? r->target : "");
		} else {
			check_oid(v, path.p, r->id);
		}
	}
	if (reads && skg_reftable_iter_failed(st)) {
		/* git's iteration met a record it cannot read: reftable_be_fsck's error names the
		 * worktree by its ID, the main one's NULL as glibc's printf spells it */
		stack_error(v, "could not read record for worktree '%s'", wt->id != NULL ? wt->id : "(null)");
	}
out:
	skg_reftable_free(st);
	skg_buf_release(&dir);
	skg_buf_release(&shown);
	skg_buf_release(&path);
	return ret;
}

/* ---- the command ---------------------------------------------------------------------------- */

/* v->store_broken: the current worktree is a linked one whose reftable stack does not open. */
static int on_current_worktree(void *ctx, const struct skg_worktree *wt)
{
	struct rv *v = ctx;
	if (!wt->is_current || wt->id == NULL) {
		return 0;
	}
	int opens = skg_reftable_opens(wt->git_dir, v->rawsz);
	v->store_broken = opens == 0;
	return opens < 0 ? nomem(v) : 0;
}

static int on_worktree(void *ctx, const struct skg_worktree *wt)
{
	struct rv *v = ctx;
	v->wt = wt;
	verbose_line(v, "%s", "Checking references consistency");
	/* the worktree's own ref store: the common dir for the main one, else worktrees/<id> */
	struct skg_buf dir = {0}, shown = {0};
	if (wt->id == NULL) {
		skg_buf_adds(&dir, v->repo->common_dir);
		skg_buf_adds(&shown, v->repo->common_dir_display);
	} else {
		skg_buf_addf(&dir, "%s/worktrees/%s", v->repo->common_dir, wt->id);
		skg_buf_addf(&shown, "%s/worktrees/%s", v->repo->common_dir_display, wt->id);
	}
	int ret;
	if (dir.failed || shown.failed) {
		ret = nomem(v);
	} else if (v->repo->reftable) {
		ret = check_reftable(v, dir.p, shown.p);
	} else {
		ret = check_refs_dir(v, dir.p, shown.p);
		if (ret == 0) {
			ret = check_root_refs(v, dir.p);
		}
		if (ret == 0 && wt->id == NULL) {
			ret = check_packed(v);
		}
	}
	skg_buf_release(&dir);
	skg_buf_release(&shown);
	return ret;
}

/* fsck.skipList as git_fsck_config reads it (oidset_parse_file): the file must open and hold one
 * object ID a line ('#' comments, blank lines); the refs check makes no other use of it. */
static int read_skiplist(struct rv *v, const char *value)
{
	struct skg_buf path = {0};
	skg_config_path(value, &path);
	char *data = NULL;
	size_t len = 0;
	int ret = 0;
	if (path.failed) {
		ret = nomem(v);
	} else if (skg_read_file(path.p, SIZE_MAX, &data, &len) != 0) {
		if (errno == ENOMEM) {
			ret = nomem(v);
		} else {
			skg_fail(v->err, "could not open object name list: %s", path.p);
			ret = 1;
		}
	}
	const char *line;
	size_t n, pos = 0;
	while (ret == 0 && skg_next_list_line(data, len, &pos, &line, &n)) {
		uint8_t id[SKG_MAX_RAWSZ];
		if (n != 2 * v->rawsz || !skg_from_hex_len(line, v->rawsz, id)) {
			skg_fail(v->err, "invalid object name: %.*s", (int)n, line);
			ret = 1;
		}
	}
	free(data);
	skg_buf_release(&path);
	return ret;
}

/* git_fsck_config as `git refs verify` reads it: fsck.skipList, fsck.<msg-id> = error | warn |
 * ignore, each of them with a value (else git's config_error_nonbool). */
static int on_config(void *ctx, const char *key, const char *value)
{
	struct rv *v = ctx;
	if (!skg_starts_with(key, "fsck.")) {
		return 0;
	}
	if (value == NULL) {
		struct skg_report r = {SKG_LEVEL_ERROR, SKG_R_FSCK, NULL, SKG_NONE, NULL, NULL, false, 0};
		emit(v, &r, "missing value for '%s'", key);
		return SKG_CONFIG_NONBOOL;
	}
	if (strcmp(key, "fsck.skiplist") == 0) {
		return read_skiplist(v, value);
	}
	const char *id = key + 5;
	int m = -1;
	for (int i = 0; i < M_COUNT; i++) {
		if (strcasecmp(id, ref_msgs[i].name) == 0) {
			m = i;
		}
	}
	if (skg_fsck_msg_from_name(id, strlen(id)) < 0 && !skg_refs_msg_newer_id(id)) {
		skg_fail(v->err, "Unhandled message id: %s", id);
		v->err->code = SKG_E_GIT;
		return 1;
	}
	char type[16];
	size_t tl = strcspn(value, ":");
	if (strcasecmp(id, "largePathname") != 0) {
		tl = strlen(value);
	}
	snprintf(type, sizeof(type), "%.*s", (int)(tl < sizeof(type) ? tl : sizeof(type) - 1), value);
	enum skg_fsck_severity sev;
	if (tl >= sizeof(type) || !skg_fsck_severity_from_name(type, &sev)) {
		skg_fail(v->err, "Unknown fsck message type: '%.*s'", (int)tl, value);
		v->err->code = SKG_E_GIT;
		return 1;
	}
	int om = skg_fsck_msg_from_name(id, strlen(id));
	if (om >= 0 && sev != SKG_FSCK_ERROR && skg_fsck_msg_default_severity(om) == SKG_FSCK_FATAL) {
		skg_fail(v->err, "Cannot demote %s to %s", id, type);
		v->err->code = SKG_E_GIT;
		return 1;
	}
	if (m >= 0) {
		v->severity[m] = (uint8_t)sev;
	}
	return 0;
}

int skg_refs_verify(struct skg_repo *repo, const struct skg_refs_verify_options *opt,
                    const struct skg_sink *sink, struct skg_error *err)
{
	SKG_ERR_OR_LOCAL(err);
	if (repo == NULL) {
		return skg_fail_sys(err, SKG_E_USAGE, 0, "no repository");
	}
	struct rv v = {0};
	v.repo = repo;
	v.rawsz = skg_format_rawsz(skg_repo_object_format(repo));
	v.sink = sink;
	v.err = err;
	v.verbose = opt != NULL && opt->verbose;
	for (int i = 0; i < M_COUNT; i++) {
		enum skg_fsck_severity s = ref_msgs[i].severity;
		v.severity[i] =
		    (uint8_t)(opt != NULL && opt->strict && s == SKG_FSCK_WARN ? SKG_FSCK_ERROR : s);
	}
	int r = skg_repo_config(repo, on_config, &v, err);
	if (r != 0) {
		return -1; /* err: on_config's, or the reader's */
	}
	if (repo->reftable) {
		r = skg_for_each_worktree(repo, on_current_worktree, &v, sink, err);
		if (r != 0) {
			return -1;
		}
	}
	r = skg_for_each_worktree(repo, on_worktree, &v, sink, err);
	skg_buf_release(&v.line);
	if (r != 0) {
		return -1;
	}
	return v.errors;
}
