/*
 * fsck_loose.c - the loose objects of one object directory in a repository check (fsck_run.h), as
 * git 2.39.5's fsck_object_dir / for_each_loose_file_in_objdir (builtin/fsck.c, object-file.c)
 * reads them: the 256 xx/ directories in order, each object read, hashed with SHA-1DC and checked
 * (fsck_check.c). The directories are shared out among the check's threads, one loose reader
 * (loose.h) each; each directory's records wait until those of the directories before it are
 * sent, so that the records are git's, in git's order; nothing after an object where git dies.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>

#include "fsck_run.h"

static int loose_report(void *ctx, const char *line, bool is_error)
{
	struct skg_fsck_dest *s = ctx;
	/* "bad sha1 file: P", "error: unable to open OBJDIR/xx: ...": git's status is unchanged */
	(void)is_error;
	skg_fsck_err(s, "%s", line);
	return 0;
}

static int loose_checked(void *ctx, const uint8_t *id, const char *path, int status,
                         const struct skg_loose_object *obj, const struct skg_lines *lines)
{
	struct skg_fsck_dest *s = ctx;
	struct skg_fsck_run *f = s->f;
	if (status == SKG_LOOSE_NOMEM) {
		skg_fsck_nomem(f); /* the run stops: no finding */
		return 1;
	}
	int bits =
	    status == SKG_LOOSE_OK || status == SKG_LOOSE_FATAL
	        ? 0
	        : SKG_CHECK_ERROR_OBJECT | (status == SKG_LOOSE_COLLISION ? SKG_CHECK_ERROR_COLLISION : 0);
	if (lines->len > 0) {
		struct skg_fsck_meta meta = {SKG_R_FSCK, NULL, SKG_NONE, id, (unsigned)bits};
		size_t n = lines->text[lines->len - 1] == '\n' ? lines->len - 1 : lines->len;
		skg_fsck_errm(s, &meta, "%.*s", (int)n, lines->text);
	}
	if (status == SKG_LOOSE_FATAL || skg_fsck_stopped(f)) {
		return 1; /* git dies here, or the run stops: stops the walk */
	}
	s->nth++; /* its place in the directory, in git's order */
	if (status != SKG_LOOSE_OK) {
		skg_fsck_add_errors(f, bits);
		return 0;
	}
	skg_fsck_check_object(s, obj->type, id, obj->streamed ? NULL : obj->content, (size_t)obj->size, path);
	return 0;
}

/*
 * The loose objects of one object directory, its 256 xx/ directories shared out among f->threads
 * threads, each with its own reader. Each directory's lines are kept until those of the
 * directories before it are out, so the output is git's, in git's order; when git would die on an
 * object (SKG_LOOSE_FATAL), nothing after that object's lines is printed.
 */
struct loose_walk {
	struct skg_fsck_run *f;
	const char *objdir;
	int odb; /* its index in f->odb_dirs */
	pthread_mutex_t lock;
	unsigned next;    /* the next directory to take */
	unsigned emitted; /* directories written out */
	unsigned limit;   /* directories to read: git's walk stops after one it cannot open */
	bool stop;        /* a directory stopped the walk (git dies): take no more */
	bool fatal;       /* ... and it has been written out */
	struct skg_buf out[256];
	int rc[256];
	bool done[256];
	bool present[256]; /* xx/ is listed in the object directory (all of them if it cannot be read) */
};

/*
 * Which xx/ directories the object directory lists: only those are opened (git opens all 256; the
 * 512 failed opens of a small repository's missing ones were a quarter of its check). Either case
 * (a name in upper case is opened as before, and is there on a case-insensitive file system). When
 * the directory cannot be listed, every one is opened, as before.
 */
static void list_present(const char *objdir, bool present[256])
{
	DIR *d = opendir(objdir);
	for (unsigned k = 0; k < 256; k++) {
		present[k] = d == NULL;
	}
	if (d == NULL) {
		return;
	}
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		const char *n = e->d_name;
		int hi = skg_hexval(n[0]);
		int lo = hi >= 0 ? skg_hexval(n[1]) : -1;
		if (lo >= 0 && n[2] == '\0') {
			present[hi * 16 + lo] = true;
		}
	}
	closedir(d);
}

static void *loose_thread(void *arg)
{
	struct loose_walk *w = arg;
	struct skg_loose_options lopt;
	skg_loose_options_default(&lopt);
	lopt.rawsz = w->f->rawsz;
	lopt.unknown_type_corrupt = w->f->git_version >= SKG_GIT_2_55; /* git 2.50+ */
	lopt.big_file_threshold = w->f->big_file;
	struct skg_loose_reader *reader = skg_loose_reader_new(&lopt);
	if (reader == NULL) {
		skg_fsck_nomem(w->f);
	}
	for (;;) {
		pthread_mutex_lock(&w->lock);
		unsigned k = w->stop || w->next >= w->limit || skg_fsck_stopped(w->f) ? 256 : w->next++;
		pthread_mutex_unlock(&w->lock);
		if (k >= 256) {
			break;
		}
		struct skg_buf buf = {0};
		struct skg_fsck_dest s = {w->f, &buf, w->odb, 0, 0, k, 0, NULL, 0};
		/* SKG_LOOSE_WALK_STOPPED: an xx/ directory could not be opened; git says so and goes on */
		int rc = reader == NULL ? SKG_LOOSE_WALK_NOMEM
		         : !w->present[k]
		             ? 0 /* not there: as git's walk, which skips a missing one */
		             : skg_loose_check_dirs(reader, w->objdir, k, 1, loose_checked, loose_report, &s);
		if (buf.failed || skg_fsck_stopped(w->f)) {
			rc = SKG_LOOSE_WALK_NOMEM; /* the run stopped: nothing more is sent */
		}
		if (rc == SKG_LOOSE_WALK_NOMEM) {
			skg_fsck_nomem(w->f); /* kept only when it is the first failure */
		}
		pthread_mutex_lock(&w->lock);
		w->out[k] = buf;
		w->rc[k] = rc;
		w->done[k] = true;
		if (rc != 0) {
			w->stop = true;
		}
		while (w->emitted < w->limit && w->done[w->emitted] && !w->fatal) {
			struct skg_buf *b = &w->out[w->emitted];
			int r = w->rc[w->emitted];
			if (r != SKG_LOOSE_WALK_NOMEM) {
				skg_fsck_send(w->f, b->p != NULL ? b->p : "", b->len);
			}
			skg_buf_release(b);
			w->fatal = r > 0 || r == SKG_LOOSE_WALK_NOMEM;
			w->emitted++;
			if (r == SKG_LOOSE_WALK_STOPPED) {
				w->limit = w->emitted; /* as git: the directories after it are not read */
			}
			skg_fsck_meter_add(w->f, 1);
		}
		pthread_mutex_unlock(&w->lock);
	}
	skg_loose_reader_free(reader);
	return NULL;
}

int skg_fsck_check_loose(struct skg_fsck_run *f, const char *objdir, int odb)
{
	struct loose_walk *w = calloc(1, sizeof(*w));
	if (w == NULL) {
		skg_fsck_nomem(f);
		return -1;
	}
	w->f = f;
	w->objdir = objdir;
	w->odb = odb;
	pthread_mutex_init(&w->lock, NULL);
	/*
	 * git's walk stops after the first xx/ it cannot open (other than a missing one): the objects
	 * after it are never seen. Found first, so that no thread reads past it.
	 */
	w->limit = 256;
	list_present(objdir, w->present);
	for (unsigned k = 0; k < 256; k++) {
		if (!w->present[k]) {
			continue;
		}
		struct skg_buf path = {0};
		skg_buf_addf(&path, "%s/%02x", objdir, k);
		DIR *d = path.failed ? NULL : opendir(skg_buf_str(&path));
		int e = path.failed ? ENOMEM : errno;
		skg_buf_release(&path);
		if (e == ENOMEM && d == NULL) {
			skg_fsck_nomem(f);
			w->limit = 0;
			break;
		}
		if (d != NULL) {
			closedir(d);
		} else if (e != ENOENT) {
			w->limit = k + 1;
			break;
		}
	}
	unsigned n = f->threads < 256 ? f->threads : 256;
	pthread_t *t = calloc(n, sizeof(*t));
	unsigned started = 0;
	if (t == NULL) {
		skg_fsck_nomem(f);
	}
	while (t != NULL && started + 1 < n && !skg_fsck_stopped(f)) {
		int e = pthread_create(&t[started], NULL, loose_thread, w);
		if (e != 0) {
			/* git's "unable to create thread: REASON": the run stops */
			skg_fsck_fail(f, SKG_E_THREAD, e, "unable to create thread");
			break;
		}
		started++;
	}
	loose_thread(w); /* this thread takes its share too (all of it with one thread) */
	for (unsigned i = 0; i < started; i++) {
		pthread_join(t[i], NULL);
	}
	free(t);
	bool fatal = w->fatal;
	for (unsigned k = 0; k < 256; k++) {
		skg_buf_release(&w->out[k]);
	}
	pthread_mutex_destroy(&w->lock);
	free(w);
	return fatal || skg_fsck_stopped(f) ? -1 : 0;
}
