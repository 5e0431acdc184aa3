/*
 * fsck_out.c - the records of a repository check (fsck_run.h): every line git fsck prints becomes
 * one struct skg_report for the caller's sink, sent in git's order. Lines made on several threads
 * (loose directories, pack resolver threads) wait in buffers of records until the ones before them
 * are out; the first pass of the object check holds its records until it is known that they stand.
 * Also: exit bits, failures of the machine, cancellation, git's progress meter (progress.c), and
 * the object checks' findings as git's fsck_error_func prints them (builtin/fsck.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fsck_run.h"

/*
 * A record in a buffer: this header (copied in and out with memcpy: a buffer has no alignment),
 * `len` bytes of text (one line, no newline) and a NUL.
 */
struct rec_hdr {
	uint32_t len;
	char stream; /* 'e' stderr, 'o' stdout */
	uint8_t type;
	bool has_oid;
	/* a line of a process git runs (skg_fsck_bit_lines): its "fatal: " ends that process only */
	bool child;
	bool silent; /* a record git does not print (skg_fsck_child_failed) */
	int id;
	unsigned exit_bits;
	const char *msg_id;
	/* 1 + the skg_graph_order of the object whose check made the record (its dest's place), or 0
	 * (skg_fsck_insert_held places records among the held ones by it) */
	uint64_t order;
	uint8_t oid[SKG_MAX_RAWSZ];
};

void skg_fsck_fail(struct skg_fsck_run *f, enum skg_errc code, int sys_errno, const char *what)
{
	pthread_mutex_lock(&f->lock);
	if (atomic_load(&f->failed) == 0) {
		(void)skg_fail_sys(&f->fail, code, sys_errno, "%s", what);
		atomic_store(&f->failed, 1);
	}
	pthread_mutex_unlock(&f->lock);
}

void skg_fsck_nomem(struct skg_fsck_run *f)
{
	skg_fsck_fail(f, SKG_E_NOMEM, ENOMEM, "out of memory");
}

void skg_fsck_reader_error(struct skg_fsck_run *f, const struct skg_error *err)
{
	if (err->code == SKG_E_GIT || err->code == SKG_E_UNSUPPORTED || err->code == 0) {
		/* a reftable table the ref check could not read stops the check where it is read again:
		 * its line once (git 2.55 crashes there) */
		if (!f->refs_died || f->fatal.len == 0 || strcmp(skg_buf_str(&f->fatal), err->msg) != 0) {
			skg_fsck_err_line(f, NULL, "fatal: %s", err->msg);
		}
		f->died = true;
	} else {
		skg_fsck_fail(f, err->code, err->sys_errno, err->msg);
	}
}

bool skg_fsck_stopped(struct skg_fsck_run *f)
{
	if (atomic_load(&f->failed) != 0) {
		return true;
	}
	/* the flag the caller sets from another thread: an atomic load (git_fsck.h) */
	if (f->cancel != NULL && __atomic_load_n(f->cancel, __ATOMIC_RELAXED) != 0) {
		skg_fsck_fail(f, SKG_E_CANCELLED, 0, "cancelled");
		return true;
	}
	return false;
}

/* One record to the sink (under f->lock): its level from git's prefix. */
static void emit(struct skg_fsck_run *f, const struct rec_hdr *h, const char *text)
{
	static const struct {
		const char *prefix;
		size_t len;
		enum skg_level level;
	} prefixes[] = {
	    {"error: ", 7, SKG_LEVEL_ERROR},
	    {"warning: ", 9, SKG_LEVEL_WARNING},
	    {"notice: ", 8, SKG_LEVEL_NOTICE},
	};
	struct skg_report r = {SKG_LEVEL_PLAIN,
	                       h->id != 0 ? h->id : SKG_R_FSCK,
	                       h->msg_id,
	                       h->type,
	                       h->has_oid ? h->oid : NULL,
	                       text,
	                       false,
	                       h->exit_bits};
	if (h->silent) {
		r.level = SKG_LEVEL_SILENT;
	} else if (h->stream == 'o') {
		r.level = SKG_LEVEL_OUTPUT;
	} else if (strncmp(text, "fatal: ", 7) == 0) {
		r.fatal = !h->child;
		if (h->child) {
			skg_sink_emit(f->sink, &r);
			return;
		}
		skg_buf_setlen(&f->fatal, 0);
		skg_buf_adds(&f->fatal, text + 7);
	} else {
		for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
			if (strncmp(text, prefixes[i].prefix, prefixes[i].len) == 0) {
				r.level = prefixes[i].level;
				r.text = text + prefixes[i].len;
				break;
			}
		}
	}
	skg_sink_emit(f->sink, &r);
}

static void hdr_init(struct rec_hdr *h, char stream, const struct skg_fsck_meta *meta, size_t len,
                     size_t rawsz)
{
	memset(h, 0, sizeof(*h));
	h->len = (uint32_t)len;
	h->stream = stream;
	if (meta != NULL) {
		h->type = (uint8_t)meta->type;
		h->id = meta->id;
		h->exit_bits = meta->exit_bits;
		h->msg_id = meta->msg_id;
		if (meta->oid != NULL) {
			h->has_oid = true;
			memcpy(h->oid, meta->oid, rawsz);
		}
	}
}

static void rec_append(struct skg_buf *b, const struct rec_hdr *h, const char *text)
{
	skg_buf_add(b, h, sizeof(*h));
	skg_buf_add(b, text, h->len);
	skg_buf_addc(b, '\0');
}

/* Records to the sink, or into the held records (under f->lock). */
static void send_locked(struct skg_fsck_run *f, const char *rec, size_t len)
{
	if (f->quiet) {
		return;
	}
	if (f->hold) {
		skg_buf_add(&f->held_out, rec, len);
		return;
	}
	for (size_t i = 0; i + sizeof(struct rec_hdr) <= len;) {
		struct rec_hdr h;
		memcpy(&h, rec + i, sizeof(h));
		emit(f, &h, rec + i + sizeof(h));
		i += sizeof(h) + h.len + 1;
	}
}

void skg_fsck_send(struct skg_fsck_run *f, const char *rec, size_t len)
{
	pthread_mutex_lock(&f->lock);
	send_locked(f, rec, len);
	bool failed = f->held_out.failed;
	pthread_mutex_unlock(&f->lock);
	if (failed) {
		skg_fsck_nomem(f);
	}
}

void skg_fsck_insert_held(struct skg_fsck_run *f, const struct skg_buf *recs, uint64_t order)
{
	pthread_mutex_lock(&f->lock);
	if (recs->len == 0 || f->quiet) {
		pthread_mutex_unlock(&f->lock);
		return;
	}
	if (!f->hold) {
		send_locked(f, recs->p, recs->len);
		pthread_mutex_unlock(&f->lock);
		return;
	}
	/* after the last held record of an object checked at or before `order`; else before the
	 * first of one checked after it; else at the end */
	uint64_t key = order == UINT64_MAX ? UINT64_MAX : order + 1;
	size_t after_last = SIZE_MAX, first_later = SIZE_MAX;
	for (size_t i = 0; i + sizeof(struct rec_hdr) <= f->held_out.len;) {
		struct rec_hdr h;
		memcpy(&h, f->held_out.p + i, sizeof(h));
		size_t next = i + sizeof(h) + h.len + 1;
		if (h.order != 0 && h.order <= key) {
			after_last = next;
		} else if (h.order > key && first_later == SIZE_MAX) {
			first_later = i;
		}
		i = next;
	}
	size_t at = after_last != SIZE_MAX    ? after_last
	            : first_later != SIZE_MAX ? first_later
	                                      : f->held_out.len;
	struct skg_buf b = {0};
	skg_buf_add(&b, f->held_out.p, at);
	size_t from = b.len;
	skg_buf_add(&b, recs->p, recs->len);
	/* the records put in are the object's at `order` now, for those put in after them */
	for (size_t i = from; !b.failed && i + sizeof(struct rec_hdr) <= b.len;) {
		struct rec_hdr h;
		memcpy(&h, b.p + i, sizeof(h));
		h.order = key;
		memcpy(b.p + i, &h, sizeof(h));
		i += sizeof(h) + h.len + 1;
	}
	if (at < f->held_out.len) {
		skg_buf_add(&b, f->held_out.p + at, f->held_out.len - at);
	}
	bool failed = b.failed;
	if (!failed) {
		skg_buf_release(&f->held_out);
		f->held_out = b;
	} else {
		skg_buf_release(&b);
	}
	pthread_mutex_unlock(&f->lock);
	if (failed) {
		skg_fsck_nomem(f);
	}
}

void skg_fsck_add(struct skg_fsck_dest *s, const char *rec, size_t len)
{
	if (s->buf != NULL) {
		skg_buf_add(s->buf, rec, len);
		if (s->buf->failed) {
			skg_fsck_nomem(s->f);
		}
	} else {
		skg_fsck_send(s->f, rec, len);
	}
}

/* Whether a line of a process git runs is one of its failures: its reports (graph_report and
 * midx_report print them without a prefix), errors and death, not its warnings and hints. */
static bool child_line_fails(const char *p)
{
	return strncmp(p, "warning: ", 9) != 0 && strncmp(p, "hint: ", 6) != 0 &&
	       strncmp(p, "notice: ", 8) != 0;
}

void skg_fsck_vline(struct skg_fsck_dest *s, const struct skg_fsck_meta *meta, char stream, const char *fmt,
                    va_list ap)
{
	struct skg_fsck_run *f = s->f;
	if (s->buf == NULL && f->quiet) {
		return;
	}
	char line[4096], *text = line;
	va_list aq;
	va_copy(aq, ap);
	int n = vsnprintf(line, sizeof(line), fmt, ap);
	if (n >= 0 && (size_t)n >= sizeof(line)) {
		text = malloc((size_t)n + 1);
		if (text != NULL) {
			vsnprintf(text, (size_t)n + 1, fmt, aq);
		}
	}
	va_end(aq);
	if (n < 0 || text == NULL) {
		skg_fsck_nomem(f);
		return;
	}
	/* one record per line: the text may hold several (a reader's lines) */
	struct skg_buf *out = s->buf;
	if (out == NULL) {
		pthread_mutex_lock(&f->lock);
		if (f->hold) {
			out = &f->held_out;
		}
	}
	bool first = true;
	/* a fatal text is one record, whatever its lines (the last record: its text is err->msg, git's
	 * die() message, control characters other than TAB and LF made '?' in each line) */
	bool whole = stream == 'e' && strncmp(text, "fatal: ", 7) == 0;
	for (char *p = text; whole;) {
		char *nl = strchr(p, '\n');
		skg_git_control_chars(p, nl != NULL ? (size_t)(nl - p) : strlen(p));
		if (nl == NULL) {
			break;
		}
		p = nl + 1;
	}
	for (char *p = text;;) {
		char *nl = whole ? NULL : strchr(p, '\n');
		size_t len = nl != NULL ? (size_t)(nl - p) : strlen(p);
		if (!whole && stream == 'e' &&
		    (strncmp(p, "error: ", 7) == 0 || strncmp(p, "warning: ", 9) == 0 ||
		     strncmp(p, "fatal: ", 7) == 0)) {
			/* git's error(), warning() and die() (usage.c vreportf): a control character
			 * other than TAB becomes '?' (a refname read from packed-refs, say) */
			skg_git_control_chars(p, len);
		}
		struct rec_hdr h;
		hdr_init(&h, stream, meta, len, f->rawsz);
		if (s->odb >= 0 || s->pack_seq > 0) {
			h.order = 1 + skg_graph_order(s->pack_seq, s->offset,
			                              s->odb >= 0 ? (uint32_t)s->odb : 0, s->dir, s->nth);
		}
		if (!first) {
			h.exit_bits = 0;
		}
		first = false;
		if (f->child_bits != 0 && stream == 'e' && child_line_fails(p)) {
			/* a line of the process git runs (the main thread's, while no other runs) */
			h.child = true;
			h.exit_bits |= f->child_bits;
			f->child_marked = true;
		}
		if (out != NULL) {
			rec_append(out, &h, p);
		} else {
			if (nl != NULL) {
				*nl = '\0';
			}
			emit(f, &h, p);
		}
		if (nl == NULL) {
			break;
		}
		p = nl + 1;
	}
	bool failed = out != NULL && out->failed;
	if (s->buf == NULL) {
		pthread_mutex_unlock(&f->lock);
	}
	if (text != line) {
		free(text);
	}
	if (failed) {
		skg_fsck_nomem(f);
	}
}

void skg_fsck_err(struct skg_fsck_dest *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	skg_fsck_vline(s, NULL, 'e', fmt, ap);
	va_end(ap);
}

void skg_fsck_out(struct skg_fsck_dest *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	skg_fsck_vline(s, NULL, 'o', fmt, ap);
	va_end(ap);
}

void skg_fsck_errm(struct skg_fsck_dest *s, const struct skg_fsck_meta *meta, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	skg_fsck_vline(s, meta, 'e', fmt, ap);
	va_end(ap);
}

void skg_fsck_outm(struct skg_fsck_dest *s, const struct skg_fsck_meta *meta, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	skg_fsck_vline(s, meta, 'o', fmt, ap);
	va_end(ap);
}

void skg_fsck_err_line(struct skg_fsck_run *f, const struct skg_fsck_meta *meta, const char *fmt, ...)
{
	struct skg_fsck_dest s = {f, NULL, -1, 0, 0, 0, 0, NULL, 0};
	va_list ap;
	va_start(ap, fmt);
	skg_fsck_vline(&s, meta, 'e', fmt, ap);
	va_end(ap);
}

void skg_fsck_out_line(struct skg_fsck_run *f, const struct skg_fsck_meta *meta, const char *fmt, ...)
{
	struct skg_fsck_dest s = {f, NULL, -1, 0, 0, 0, 0, NULL, 0};
	va_list ap;
	va_start(ap, fmt);
	skg_fsck_vline(&s, meta, 'o', fmt, ap);
	va_end(ap);
}

void skg_fsck_dest_lines(struct skg_fsck_dest *s, const struct skg_lines *lines)
{
	if (lines->len > 0) {
		size_t n = lines->text[lines->len - 1] == '\n' ? lines->len - 1 : lines->len;
		skg_fsck_err(s, "%.*s", (int)n, lines->text);
	}
	if (lines->nomem) {
		skg_fsck_nomem(s->f); /* the lines stop there, and so does the run */
	}
}

void skg_fsck_lines(struct skg_fsck_run *f, const struct skg_lines *lines)
{
	struct skg_fsck_dest s = {f, NULL, -1, 0, 0, 0, 0, NULL, 0};
	skg_fsck_dest_lines(&s, lines);
}

void skg_fsck_bit_lines(struct skg_fsck_run *f, const struct skg_lines *lines, unsigned bits, bool child)
{
	const char *p = lines->text, *end = lines->text + lines->len;
	pthread_mutex_lock(&f->lock);
	while (p < end && !f->quiet) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl != NULL ? (size_t)(nl - p) : (size_t)(end - p);
		bool failing = child ? child_line_fails(p)
		                     : strncmp(p, "error: ", 7) == 0 || strncmp(p, "fatal: ", 7) == 0;
		struct skg_fsck_meta meta = {SKG_R_FSCK, NULL, SKG_NONE, NULL, failing ? bits : 0};
		struct rec_hdr h;
		hdr_init(&h, 'e', &meta, len, f->rawsz);
		h.child = child;
		f->child_marked = f->child_marked || (child && h.exit_bits != 0);
		char line[4096];
		char *text = len < sizeof(line) ? line : malloc(len + 1);
		if (text == NULL) {
			f->held_out.failed = true; /* reported below */
			break;
		}
		memcpy(text, p, len);
		text[len] = '\0';
		if (strncmp(text, "error: ", 7) == 0 || strncmp(text, "warning: ", 9) == 0 ||
		    strncmp(text, "fatal: ", 7) == 0) {
			skg_git_control_chars(text, len); /* as skg_fsck_vline: git's vreportf */
		}
		if (f->hold) {
			rec_append(&f->held_out, &h, text);
		} else {
			emit(f, &h, text);
		}
		if (text != line) {
			free(text);
		}
		p = nl != NULL ? nl + 1 : end;
	}
	bool failed = f->held_out.failed;
	pthread_mutex_unlock(&f->lock);
	if (failed || lines->nomem) {
		skg_fsck_nomem(f);
	}
}

void skg_fsck_child_failed(struct skg_fsck_run *f, unsigned bits, const char *what)
{
	pthread_mutex_lock(&f->lock);
	/* (not after a failure of the run: a verify that ran out of memory did not fail as git's) */
	if (!f->child_marked && !f->quiet && atomic_load(&f->failed) == 0) {
		struct skg_fsck_meta meta = {SKG_R_FSCK, NULL, SKG_NONE, NULL, bits};
		struct rec_hdr h;
		hdr_init(&h, 'e', &meta, strlen(what), f->rawsz);
		h.silent = true;
		if (f->hold) {
			rec_append(&f->held_out, &h, what);
		} else {
			emit(f, &h, what);
		}
	}
	f->errors |= (int)bits;
	bool failed = f->held_out.failed;
	pthread_mutex_unlock(&f->lock);
	if (failed) {
		skg_fsck_nomem(f);
	}
}

void skg_fsck_err_bits(struct skg_fsck_run *f, unsigned bits, const char *fmt, ...)
{
	struct skg_fsck_dest s = {f, NULL, -1, 0, 0, 0, 0, NULL, 0};
	struct skg_fsck_meta meta = {SKG_R_FSCK, NULL, SKG_NONE, NULL, bits};
	va_list ap;
	va_start(ap, fmt);
	skg_fsck_vline(&s, &meta, 'e', fmt, ap);
	va_end(ap);
	if (bits != 0) {
		skg_fsck_add_errors(f, (int)bits);
	}
}

void skg_fsck_add_errors(struct skg_fsck_run *f, int bits)
{
	pthread_mutex_lock(&f->lock);
	f->errors |= bits;
	pthread_mutex_unlock(&f->lock);
}

/* ---- progress ------------------------------------------------------------------------------------ */

static double seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* git's progress.c display() (under f->lock): the line is drawn when the percentage changed since
 * the last one drawn, or when a second has passed (git's timer). */
static void meter_show(struct skg_fsck_run *f, uint64_t v)
{
	struct skg_fsck_meter *m = &f->meter;
	int pct = m->total ? (int)(v * 100 / m->total) : -1;
	double now = seconds();
	m->shown = (int64_t)v;
	if (m->total == 0 || (pct == m->pct && now - m->last < 1.0)) {
		return; /* git draws a meter without a total only on its timer */
	}
	m->pct = pct;
	m->last = now;
	f->progress.fn(f->progress.ctx, m->title, v, m->total);
}

void skg_fsck_meter_start(struct skg_fsck_run *f, const char *title, uint64_t total, uint64_t every)
{
	if (f->progress.fn != NULL) {
		pthread_mutex_lock(&f->lock);
		f->meter = (struct skg_fsck_meter){title, total, 0, 0, every, -1, -1, seconds(), true};
		if (f->progress.start != NULL) {
			f->progress.start(f->progress.ctx, title, total);
		}
		pthread_mutex_unlock(&f->lock);
	}
}

void skg_fsck_meter_add(struct skg_fsck_run *f, uint64_t k)
{
	if (!f->meter.on) {
		return;
	}
	pthread_mutex_lock(&f->lock);
	struct skg_fsck_meter *m = &f->meter;
	for (uint64_t i = 0; i < k; i++) {
		/* pack-check.c: display_progress(base_count + i) after object i when that is 0 mod 1024 */
		if (m->on && m->every != 0 && m->n % m->every == 0) {
			meter_show(f, m->n);
		}
		m->n++;
	}
	pthread_mutex_unlock(&f->lock);
}

void skg_fsck_meter_display(struct skg_fsck_run *f, uint64_t v)
{
	if (!f->meter.on) {
		return;
	}
	pthread_mutex_lock(&f->lock);
	if (f->meter.on) {
		meter_show(f, v);
	}
	pthread_mutex_unlock(&f->lock);
}

void skg_fsck_meter_pack_start(struct skg_fsck_run *f)
{
	pthread_mutex_lock(&f->lock);
	f->meter.n = f->meter.base;
	pthread_mutex_unlock(&f->lock);
}

void skg_fsck_meter_pack_end(struct skg_fsck_run *f, uint64_t count, bool drawn)
{
	pthread_mutex_lock(&f->lock);
	struct skg_fsck_meter *m = &f->meter;
	m->n = m->base + count;
	m->base = m->n;
	if (m->on && drawn) {
		meter_show(f, m->n);
	}
	pthread_mutex_unlock(&f->lock);
}

void skg_fsck_meter_stop(struct skg_fsck_run *f)
{
	pthread_mutex_lock(&f->lock);
	struct skg_fsck_meter *m = &f->meter;
	if (m->on) {
		m->on = false;
		/* git's force_last_update: the last value drawn, ", done."; none when nothing was */
		if (f->progress.stop != NULL) {
			f->progress.stop(f->progress.ctx, m->title,
			                 m->shown >= 0 ? (uint64_t)m->shown : UINT64_MAX, m->total);
		} else {
			/* without stop, the end of every phase is fn with done == total (git.h), whatever
			 * git's meter last showed (a phase that stopped part way, or never moved) */
			f->progress.fn(f->progress.ctx, m->title, m->total, m->total);
		}
	}
	pthread_mutex_unlock(&f->lock);
}

/* ---- findings ------------------------------------------------------------------------------------ */

const char *skg_fsck_tname(unsigned type)
{
	const char *n = skg_type_name(type);
	return n != NULL ? n : "unknown";
}

void skg_fsck_on_report(void *ctx, const struct skg_report *r)
{
	struct skg_fsck_run *f = ctx;
	const char *prefix = skg_level_prefix(r->level);
	if (prefix == NULL) {
		return;
	}
	struct skg_fsck_meta meta = {r->id, r->msg_id, r->type, r->oid, r->exit_bits};
	if (f->check_refs || f->git_version >= SKG_GIT_2_55) {
		switch (r->id) {
		case SKG_R_HEAD_INVALID:
		case SKG_R_HEAD_STRANGE:
		case SKG_R_HEAD_DETACHED_NULL:
		case SKG_R_HEAD_UNBORN:
		case SKG_R_REFLOG_BAD_REF:
			/* git 2.53+ checks HEADs in `git refs verify` only and prints none of these
			 * (its fsck_head_link is gone), nor, since 2.45, "bad ref for" a reflog */
			return;
		default:
			break;
		}
	}
	switch (r->id) {
	case SKG_R_HEAD_INVALID:
	case SKG_R_HEAD_STRANGE:
	case SKG_R_HEAD_DETACHED_NULL:
		meta.exit_bits |= SKG_CHECK_ERROR_REFS;
		skg_fsck_add_errors(f, SKG_CHECK_ERROR_REFS);
		break;
	default:
		break;
	}
	skg_fsck_err_line(f, &meta, "%s%s", prefix, r->text);
	switch (r->id) {
	case SKG_R_ALT_MISSING:
	case SKG_R_ALT_NORMALIZE:
	case SKG_R_ALT_TOO_DEEP:
	case SKG_R_ALT_UNREADABLE: {
		/* every `git commit-graph verify` git runs reads the alternates again, and says so */
		struct skg_fsck_dest s = {f, &f->alt_lines, -1, 0, 0, 0, 0, NULL, 0};
		skg_fsck_errm(&s, &meta, "%s%s", prefix, r->text);
		break;
	}
	default:
		break;
	}
}

void skg_fsck_on_finding(void *ctx, const struct skg_fsck_finding *fd)
{
	struct skg_fsck_dest *s = ctx;
	char line[4096];
	struct skg_fsck_meta meta = {SKG_R_FSCK, skg_fsck_msg_name(fd->msg), fd->type, fd->id, 0};
	if (fd->cause != NULL) {
		/* git's error() before its report (decode_tree_entry's "too-short tree object"): printed
		 * for an object on fsck.skipList too, which report() then leaves out */
		skg_fsck_errm(s, &meta, "error: %s", fd->cause);
	}
	if (fd->severity == SKG_FSCK_IGNORE || skg_fsck_skipped(s->f, fd->id)) {
		return;
	}
	if (fd->severity == SKG_FSCK_ERROR) {
		/* the check fails: the bit its caller adds (git's fsck_error_func returns 1) */
		meta.exit_bits = s->finding_bits != 0 ? s->finding_bits
		                 : s->pack_seq > 0    ? SKG_CHECK_ERROR_PACK
		                                      : SKG_CHECK_ERROR_OBJECT;
	}
	skg_fsck_format(line, sizeof(line), fd);
	skg_fsck_errm(s, &meta, "%s", line);
}
