/*
 * object_check.c - the format check of `git hash-object` without --literally, as git 2.40 and
 * later make it (<sha1kit/git_object.h> skg_object_check): git's fsck checks of the object
 * (fsck_object.h) with strict severities. Sources (facts, not code): git commit 69bbbe484b
 * ("hash-object: use fsck for object checks", Jeff King, in v2.40.0), v2.55.0 object-file.c
 * index_mem (FSCK_OPTIONS_DEFAULT, strict = 1, error_func hash_format_check_report: "object fails
 * fsck: %s" as an error for every finding, returning 1, warnings included; fsck_buffer non-zero:
 * die "refusing to create malformed object"; then fsck_finish, whose result is not looked at),
 * fsck.c fsck_blobs (a .gitmodules / .gitattributes blob a tree names, read from the repository:
 * "unable to read .gitmodules blob" when it is not there). Git 2.39 and earlier made weaker checks
 * of their own (check_tree, check_commit, check_tag); sha1kit follows 2.40+.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sha1kit/git_object.h>

#include "fsck_object.h"
#include "odb.h"
#include "util.h"

struct found_blob {
	uint8_t id[SKG_MAX_RAWSZ];
	unsigned kinds;
};

struct hcheck {
	const struct skg_sink *sink;
	struct found_blob *found;
	size_t n, cap;
	size_t rawsz; /* bytes of an object ID */
	bool nomem;
	/* the object checked: its ID, worked out at the first finding, for the records */
	unsigned type, format;
	const uint8_t *data;
	size_t len;
	int id_state; /* 0: not yet, 1: id holds it, -1: none (SHA-1DC refused the content) */
	uint8_t id[SKG_MAX_RAWSZ];
};

/* The checked object's ID (what skg_hash_object returns), or NULL when it has none. */
static const uint8_t *checked_id(struct hcheck *c)
{
	if (c->id_state == 0) {
		struct skg_object_hasher h;
		struct skg_error err;
		skg_object_hash_begin_as(&h, c->format, skg_type_name(c->type), c->len);
		skg_object_hash_update(&h, c->data, c->len);
		c->id_state = skg_object_hash_final_as(&h, c->id, &err) == 0 ? 1 : -1;
	}
	return c->id_state > 0 ? c->id : NULL;
}

/* hash_format_check_report: every finding is an error line (and the tree decoder's cause before). */
static void on_finding(void *ctx, const struct skg_fsck_finding *f)
{
	struct hcheck *c = ctx;
	if (c->sink == NULL || c->sink->report == NULL) {
		return;
	}
	char text[SKG_ERROR_MAX];
	if (f->cause != NULL) {
		snprintf(text, sizeof(text), "%s", f->cause);
		skg_git_reportf_style(text, strlen("error: "));
		struct skg_report r = {SKG_LEVEL_ERROR, SKG_R_FSCK, NULL, SKG_NONE, NULL, text, false, 0};
		c->sink->report(c->sink->ctx, &r);
	}
	if (f->severity == SKG_FSCK_IGNORE) {
		return;
	}
	const char *name = skg_fsck_msg_name(f->msg);
	snprintf(text, sizeof(text), "object fails fsck: %s: %s%.*s", name, f->detail,
	         f->arg != NULL ? (int)f->arg_len : 0, f->arg != NULL ? f->arg : "");
	skg_git_reportf_style(text, strlen("error: "));
	/* the checks of the object run before it has its ID (git's null ID): the record gets the ID;
	 * a .gitmodules / .gitattributes blob's findings keep the blob's */
	static const uint8_t null_id[SKG_MAX_RAWSZ];
	const uint8_t *id = f->id != NULL && memcmp(f->id, null_id, c->rawsz) != 0 ? f->id : checked_id(c);
	struct skg_report r = {SKG_LEVEL_ERROR, SKG_R_FSCK, name, id != NULL ? f->type : SKG_NONE, id, text,
	                       false,           0};
	c->sink->report(c->sink->ctx, &r);
}

static void on_found(void *ctx, enum skg_fsck_special kind, const uint8_t *id)
{
	struct hcheck *c = ctx;
	for (size_t i = 0; i < c->n; i++) {
		if (memcmp(c->found[i].id, id, c->rawsz) == 0) {
			c->found[i].kinds |= (unsigned)kind;
			return;
		}
	}
	if (c->n == c->cap) {
		size_t cap = c->cap < 8 ? 8 : 2 * c->cap;
		struct found_blob *v = realloc(c->found, cap * sizeof(*v));
		if (v == NULL) {
			c->nomem = true;
			return;
		}
		c->found = v;
		c->cap = cap;
	}
	memcpy(c->found[c->n].id, id, c->rawsz);
	c->found[c->n].kinds = (unsigned)kind;
	c->n++;
}

void skg_hash_options_default(struct skg_hash_options *opt)
{
	memset(opt, 0, sizeof(*opt));
}

int skg_object_check(unsigned type, const uint8_t *data, size_t len, const struct skg_hash_options *opt,
                     struct skg_error *err)
{
	SKG_ERR_OR_LOCAL(err);
	static const uint8_t null_id[SKG_MAX_RAWSZ];
	struct skg_hash_options def;
	if (opt == NULL) {
		skg_hash_options_default(&def);
		opt = &def;
	}
	if (type < SKG_COMMIT || type > SKG_TAG) {
		return skg_fail_sys(err, SKG_E_USAGE, 0, "not an object type: %u", type);
	}
	if (type == SKG_BLOB) {
		return 0; /* fsck_blob of a blob no tree named: nothing */
	}
	const size_t rawsz = opt->object_format == SKG_FORMAT_SHA256 ? SKG_MAX_RAWSZ : SKG_RAWSZ;
	struct hcheck c = {&opt->sink, NULL, 0, 0, rawsz, false, type, opt->object_format, data, len, 0, {0}};
	struct skg_fsck_options fo;
	skg_fsck_options_init(&fo, true);
	fo.rawsz = rawsz;
	fo.warnings_fail = true;
	fo.date_digits = true;  /* hash-object's check exists since 2.40, which reads dates so */
	fo.newer_checks = true; /* and follows the current Git's checks (2.55) */
	fo.found = on_found;
	int rc =
	    skg_fsck_object(type, null_id, len > 0 ? data : (const uint8_t *)"", len, &fo, on_finding, &c);
	if (rc != 0) {
		free(c.found);
		return skg_fail_sys(err, SKG_E_GIT, 0, "refusing to create malformed object");
	}
	/* fsck_finish: the .gitmodules blobs, then the .gitattributes ones, from the repository */
	for (unsigned kind = SKG_FSCK_GITMODULES; kind <= SKG_FSCK_GITATTRIBUTES && !c.nomem; kind++) {
		for (size_t i = 0; i < c.n && !c.nomem; i++) {
			if (!(c.found[i].kinds & kind)) {
				continue;
			}
			unsigned t = SKG_NONE;
			uint8_t *blob = NULL;
			size_t blen = 0;
			int found = skg_odb_read(opt->objects_dir, rawsz, c.found[i].id, &t, &blob, &blen,
			                         NULL, NULL);
			if (found < 0) {
				c.nomem = true;
			} else if (found > 0 && t == SKG_BLOB) {
				/* fsck_blob checks it for every kind it was found as, once */
				skg_fsck_special_blob(c.found[i].kinds, c.found[i].id, blob, blen, &fo,
				                      on_finding, &c);
				c.found[i].kinds = 0;
			} else {
				skg_fsck_special_unreadable((enum skg_fsck_special)kind,
				                            found > 0 ? t : SKG_NONE, c.found[i].id, &fo,
				                            on_finding, &c);
			}
			free(blob);
		}
	}
	free(c.found);
	if (c.nomem) {
		return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	return 0;
}
