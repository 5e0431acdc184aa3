/*
 * fsck_object_fuzz.c - libFuzzer target: git fsck's object checks and the link parsers
 * (src/git/fsck_object.h) on arbitrary object contents.
 *
 * Input: byte 0 = options (bits 0-1 the object type: commit, tree, blob, tag; bit 2 --strict;
 * bit 3 every message that git lets go to "warn" set to warn, bit 4 to ignore, so that the checks
 * go on where git goes on after a finding; bit 5 the content is also a .gitmodules/.gitattributes
 * blob: checked as both, then as a .gitmodules blob alone; bit 6 Git 2.55's further checks, bit 7
 * with a largePathname limit of 8 bytes), the rest = the object's content. The
 * content is copied to a buffer of its exact size, so that a read past its end is caught. Every
 * input is checked twice: as an object of a SHA-1 repository (20-byte IDs, 40 hex digits) and as
 * one of a SHA-256 repository (32 bytes, 64 digits; skg_fsck_options.rawsz).
 * Invariants: every finding has a known ID and a printable severity, its line (skg_fsck_format) is
 * as long as reported and names the object; the name or value of a .gitmodules finding is one git
 * would report (a name with "..", a path starting with '-', ...); -1 only after an error finding;
 * tree entries lie inside the object; the parsers agree with the decoder; the one-pass tree check
 * (skg_fsck_tree) agrees with skg_fsck_object and skg_tree_links.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsck_object.h"
#include "object.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "fsck_object_fuzz: invariant failed: %s\n", what);
		abort();
	}
}

struct run {
	const uint8_t *obj;
	size_t len;
	size_t rawsz;
	bool all_ignored; /* every message that can be ignored is */
	unsigned errors, findings;
};

static bool has_dotdot(const char *s, size_t len)
{
	for (size_t i = 0; i + 1 < len; i++) {
		if (s[i] == '.' && s[i + 1] == '.')
			return true;
	}
	return false;
}

static void on_finding(void *ctx, const struct skg_fsck_finding *f)
{
	struct run *r = ctx;
	char line[512];
	char hex[SKG_MAX_HEXSZ + 1];
	check((unsigned)f->msg < SKG_FSCK_MSG_COUNT, "finding ID in range");
	check(f->rawsz == r->rawsz, "finding in the object format of the check");
	check(f->severity == SKG_FSCK_ERROR || f->severity == SKG_FSCK_WARN ||
	          (f->severity == SKG_FSCK_IGNORE && f->cause != NULL),
	      "finding severity");
	check(f->detail != NULL, "finding detail");
	if (f->arg != NULL) {
		check(memchr(f->arg, 0, f->arg_len) == NULL, "no NUL in the argument");
		switch (f->msg) {
		case SKG_FSCK_GITMODULES_NAME: /* empty, or ".." as a component */
			check(f->arg_len == 0 || has_dotdot(f->arg, f->arg_len), "bad name");
			break;
		case SKG_FSCK_GITMODULES_URL: /* the empty URL is fine */
			check(f->arg_len > 0, "bad url");
			break;
		case SKG_FSCK_GITMODULES_PATH:
			check(f->arg_len > 0 && f->arg[0] == '-', "bad path");
			break;
		case SKG_FSCK_GITMODULES_UPDATE:
			check(f->arg_len > 0 && f->arg[0] == '!', "bad update");
			break;
		default: /* a tag name: inside the object */
			check(f->arg >= (const char *)r->obj &&
			          f->arg + f->arg_len <= (const char *)r->obj + r->len,
			      "finding argument inside the object");
		}
	}
	size_t need = skg_fsck_format(line, sizeof(line), f);
	check(need >= strlen(line), "format length");
	if (need < sizeof(line))
		check(need == strlen(line), "format length when it fits");
	skg_to_hex_len(f->id, r->rawsz, hex);
	check(strstr(line, hex) != NULL, "line names the object");
	if (r->all_ignored)
		check(f->severity == SKG_FSCK_IGNORE ||
		          skg_fsck_msg_default_severity(f->msg) == SKG_FSCK_FATAL,
		      "only fatal messages when the others are ignored");
	if (f->severity == SKG_FSCK_ERROR)
		r->errors++;
	r->findings++;
}

static void on_found(void *ctx, enum skg_fsck_special kind, const uint8_t *id)
{
	struct run *r = ctx;
	check(kind == SKG_FSCK_GITMODULES || kind == SKG_FSCK_GITATTRIBUTES, "found kind");
	check(id >= r->obj && id + r->rawsz <= r->obj + r->len, "found ID inside the object");
}

struct links {
	const uint8_t *obj;
	size_t len;
	size_t rawsz;
	size_t n;
};

static void on_entry(void *ctx, uint32_t mode, const char *name, size_t name_len, const uint8_t *id)
{
	struct links *l = ctx;
	check(mode == 0100644 || mode == 0100755 || mode == 0120000 || mode == 040000 || mode == 0160000,
	      "canonical mode");
	check(name_len > 0 && strlen(name) == name_len, "entry name");
	check((const uint8_t *)name > l->obj && id + l->rawsz <= l->obj + l->len, "entry inside the tree");
	check(id == (const uint8_t *)name + name_len + 1, "ID after the name");
	l->n++;
}

static void on_parent(void *ctx, const uint8_t *id)
{
	struct links *l = ctx;
	(void)id;
	l->n++;
}

/* The checks of obj[0..len) as an object of a repository whose IDs are rawsz bytes. */
static void check_as(const uint8_t *obj, size_t len, unsigned flags, size_t rawsz)
{
	static const unsigned types[4] = {SKG_COMMIT, SKG_TREE, SKG_BLOB, SKG_TAG};
	unsigned type = types[flags & 3];
	uint8_t id[SKG_MAX_RAWSZ];
	memset(id, 0x5a, sizeof(id));

	struct skg_fsck_options opt;
	skg_fsck_options_init(&opt, (flags & 4) != 0);
	opt.rawsz = rawsz;
	opt.found = on_found;
	/* git 2.55's checks (largePathname, a tag's gpgsig header), the limit small with bit 7 */
	opt.newer_checks = (flags & 64) != 0;
	if (flags & 128)
		opt.max_tree_entry_len = 8;
	if (flags & (8 | 16)) {
		const char *value = (flags & 16) ? "ignore" : "warn";
		for (int m = 0; m < SKG_FSCK_MSG_COUNT; m++) {
			enum skg_fsck_set_result r =
			    skg_fsck_set_severity(&opt, skg_fsck_msg_name((enum skg_fsck_msg)m), value);
			check(r == SKG_FSCK_SET_OK ||
			          (r == SKG_FSCK_SET_CANNOT_DEMOTE &&
			           skg_fsck_msg_default_severity((enum skg_fsck_msg)m) == SKG_FSCK_FATAL) ||
			          (r == SKG_FSCK_SET_UNKNOWN_ID && !opt.newer_checks &&
			           skg_fsck_msg_is_newer((enum skg_fsck_msg)m)),
			      "set severity");
		}
	}

	struct run r = {.obj = obj, .len = len, .rawsz = rawsz, .all_ignored = (flags & 16) != 0};
	int ret = skg_fsck_object(type, id, obj, len, &opt, on_finding, &r);
	check(ret == 0 || ret == -1, "result");
	if (ret != 0)
		check(r.errors > 0, "-1 only after an error finding");

	struct links l = {.obj = obj, .len = len, .rawsz = rawsz};
	if (type == SKG_TREE) {
		struct skg_tree_iter it;
		size_t decoded = 0;
		enum skg_tree_error e = skg_tree_iter_init(&it, obj, len, rawsz);
		while (e == SKG_TREE_OK && it.size > 0) {
			decoded++;
			e = skg_tree_iter_advance(&it);
		}
		enum skg_tree_error e2 = skg_tree_links(obj, len, rawsz, on_entry, &l);
		check(e == e2, "walk and decoder agree");
		check(l.n == decoded || (e != SKG_TREE_OK && l.n + 1 == decoded),
		      "walk drops one entry on error");
		if (e != SKG_TREE_OK)
			check(skg_tree_error_text(e) != NULL, "decode error text");
		/* the one-pass check gives the same result, findings, links and walk error */
		struct run r3 = {.obj = obj, .len = len, .rawsz = rawsz, .all_ignored = (flags & 16) != 0};
		struct links l3 = {.obj = obj, .len = len, .rawsz = rawsz};
		enum skg_tree_error e3 = SKG_TREE_TOO_SHORT;
		int ret3 = skg_fsck_tree(id, obj, len, &opt, on_finding, &r3, on_entry, &l3, &e3);
		check(ret3 == ret && r3.errors == r.errors && r3.findings == r.findings,
		      "skg_fsck_tree finds what skg_fsck_object finds");
		check(e3 == e2 && l3.n == l.n, "skg_fsck_tree links as skg_tree_links");
	} else if (type == SKG_COMMIT) {
		uint8_t tree[SKG_MAX_RAWSZ];
		enum skg_parse_result p = skg_commit_links(obj, len, rawsz, tree, on_parent, &l);
		char msg[128];
		check(skg_parse_error_format(msg, sizeof(msg), p, id, rawsz, NULL) < sizeof(msg),
		      "parse message");
		if (p != SKG_PARSE_OK)
			check(l.n == 0, "no parents on failure");
	} else if (type == SKG_TAG) {
		struct skg_tag_links tl;
		enum skg_parse_result p = skg_tag_links(obj, len, rawsz, &tl);
		char msg[128];
		check(skg_parse_error_format(msg, sizeof(msg), p, id, rawsz, &tl) < sizeof(msg),
		      "parse message");
		if (p == SKG_PARSE_OK) {
			check(tl.type >= SKG_COMMIT && tl.type <= SKG_TAG, "tag type");
			check(tl.tag >= (const char *)obj && tl.tag + tl.tag_len <= (const char *)obj + len,
			      "tag name");
		}
	} else if (flags & 32) {
		struct run rb = {.obj = obj, .len = len, .rawsz = rawsz, .all_ignored = (flags & 16) != 0};
		int rb_ret = skg_fsck_special_blob(SKG_FSCK_GITMODULES | SKG_FSCK_GITATTRIBUTES, id, obj, len,
		                                   &opt, on_finding, &rb);
		check(rb_ret == 0 || rb.errors > 0, "special blob result");
		/* .gitmodules alone: the same .gitmodules findings, without the .gitattributes ones */
		struct run rm = {.obj = obj, .len = len, .rawsz = rawsz, .all_ignored = (flags & 16) != 0};
		int rm_ret = skg_fsck_special_blob(SKG_FSCK_GITMODULES, id, obj, len, &opt, on_finding, &rm);
		check(rm_ret == 0 || rm.errors > 0, ".gitmodules blob result");
		check(rm.findings <= rb.findings && rm.findings + 1 >= rb.findings, ".gitmodules findings");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t len = size - 1;
	uint8_t *obj = malloc(len > 0 ? len : 1);
	if (obj == NULL)
		return 0;
	if (len > 0)
		memcpy(obj, data + 1, len);
	check_as(obj, len, data[0], SKG_RAWSZ);
	check_as(obj, len, data[0], SKG_MAX_RAWSZ);
	free(obj);
	return 0;
}
