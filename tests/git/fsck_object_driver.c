/*
 * fsck_object_driver.c - test driver of src/git/fsck_object.h: what `git fsck --full` prints for
 * one loose object.
 *
 * Usage: fsck_object_driver [--strict] [-c fsck.<msg-id>=<value>]... [--special KIND] TYPE FILE
 *        fsck_object_driver --list
 *
 * Reads the raw content of an object of TYPE (commit, tree, blob, tag) from FILE ("-": stdin),
 * computes its ID as git does (SHA-1 of "<type> <size>\0" + content) and goes through the steps
 * git 2.39's builtin/fsck.c takes for a loose object that reads back fine (fsck_loose, fsck_obj):
 *   1. parse (commits, tags): on failure the parser's message, if any, then
 *      "error: <id>: object could not be parsed: .git/objects/xx/yyyy", and stop;
 *   2. walk the links (trees): a decode error is printed ("error: too-short tree object"), and when
 *      it is on the first entry the walk fails: "error in tree <id>: broken links";
 *   3. the checks (skg_fsck_object), each finding as git's line.
 * --special gitmodules|gitattributes (blobs, repeatable): the blob is named .gitmodules /
 * .gitattributes by a tree, so git checks its content (skg_fsck_special_blob).
 * --finish (trees): then what git's fsck_finish says of the blobs the tree named .gitmodules /
 * .gitattributes (first the .gitmodules ones, then the others, each in the order found): missing,
 * unless --have HEX:TYPE (repeatable) says the repository has that object with that type; a blob
 * that is there is left alone (its content check is --special on the blob).
 * Everything goes to stderr, as git prints it. Exit status: 1 when git would count the object as an
 * error (ERROR_OBJECT), else 0; 128 (after "fatal: ...") for a bad -c option, as git dies; 2 usage.
 * --list prints every message ID with its default severity (name and fatal/error/warn/info/ignore).
 */
#include <ctype.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver_env.h"
#include "fsck_object.h"
#include "object.h"
#include "refs_verify.h"
#include "sha1kit.h"

static int usage(void)
{
	fprintf(stderr, "usage: fsck_object_driver [--strict] [-c fsck.<msg-id>=<value>]... "
	                "[--special gitmodules|gitattributes] [--finish [--have HEX:TYPE]...] TYPE FILE\n"
	                "       fsck_object_driver --list\n");
	return 2;
}

/* The blobs a tree named .gitmodules / .gitattributes, each once per kind, in the order found. */
#define MAX_FOUND 256
struct found_set {
	uint8_t id[2][MAX_FOUND][SKG_RAWSZ];
	size_t n[2];
};

static void on_found(void *ctx, enum skg_fsck_special kind, const uint8_t id[SKG_RAWSZ])
{
	struct found_set *fs = ctx;
	int k = kind == SKG_FSCK_GITMODULES ? 0 : 1;
	for (size_t i = 0; i < fs->n[k]; i++) {
		if (memcmp(fs->id[k][i], id, SKG_RAWSZ) == 0)
			return;
	}
	if (fs->n[k] < MAX_FOUND)
		memcpy(fs->id[k][fs->n[k]++], id, SKG_RAWSZ);
}

static unsigned char *read_all(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	if (f == NULL)
		return NULL;
	size_t cap = 4096, n = 0;
	unsigned char *buf = malloc(cap);
	while (buf != NULL) {
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (n < cap)
			break;
		unsigned char *bigger = realloc(buf, cap * 2);
		if (bigger == NULL) {
			free(buf);
			buf = NULL;
			break;
		}
		buf = bigger;
		cap *= 2;
	}
	int failed = ferror(f);
	if (f != stdin)
		fclose(f);
	if (failed) {
		free(buf);
		return NULL;
	}
	*len = n;
	if (buf != NULL && n < cap) {
		/* exactly n bytes, so that a read past the end is caught under ASan */
		unsigned char *exact = realloc(buf, n > 0 ? n : 1);
		if (exact != NULL)
			buf = exact;
	}
	return buf;
}

static void print_finding(void *ctx, const struct skg_fsck_finding *f)
{
	(void)ctx;
	size_t need = skg_fsck_format(NULL, 0, f);
	char *line = malloc(need + 1);
	if (line == NULL)
		abort();
	skg_fsck_format(line, need + 1, f);
	if (f->cause != NULL)
		fprintf(stderr, "error: %s\n", f->cause);
	if (f->severity != SKG_FSCK_IGNORE)
		fprintf(stderr, "%s\n", line);
	free(line);
}

static const char *severity_name(enum skg_fsck_severity s)
{
	switch (s) {
	case SKG_FSCK_IGNORE:
		return "ignore";
	case SKG_FSCK_INFO:
		return "info";
	case SKG_FSCK_FATAL:
		return "fatal";
	case SKG_FSCK_ERROR:
		return "error";
	case SKG_FSCK_WARN:
		return "warn";
	}
	return "?";
}

/* git 2.55's ref check message IDs are accepted too (set by main from the Git followed) */
static bool refs_ids;

/* -c fsck.<id>=<value>: git lowercases the key (section and name) and keeps the value. */
static int apply_config(struct skg_fsck_options *opt, const char *arg)
{
	const char *eq = strchr(arg, '=');
	size_t keylen = eq != NULL ? (size_t)(eq - arg) : strlen(arg);
	bool section_ok = keylen >= 6;
	for (size_t i = 0; section_ok && i < 5; i++)
		section_ok = tolower((unsigned char)arg[i]) == "fsck."[i];
	if (!section_ok) {
		fprintf(stderr, "fsck_object_driver: only fsck.<msg-id>=<value> is supported: %s\n", arg);
		return 2;
	}
	char id[256];
	if (keylen - 5 >= sizeof(id))
		return usage();
	for (size_t i = 5; i < keylen; i++)
		id[i - 5] = (char)tolower((unsigned char)arg[i]);
	id[keylen - 5] = '\0';
	if (strcmp(id, "skiplist") == 0) {
		fprintf(stderr, "fsck_object_driver: fsck.skipList is not supported\n");
		return 2;
	}
	const char *value = eq != NULL ? eq + 1 : NULL;
	enum skg_fsck_set_result r = skg_fsck_set_severity(opt, id, value);
	if (r == SKG_FSCK_SET_UNKNOWN_ID && refs_ids && skg_refs_msg_newer_id(id))
		return 0; /* one of the ref check's IDs (git 2.48+): nothing to the object checks */
	if (r != SKG_FSCK_SET_OK) {
		char msg[600];
		skg_fsck_set_error_format(msg, sizeof(msg), r, id, value);
		fprintf(stderr, "fatal: %s\n", msg);
		return 128;
	}
	return 0;
}

int main(int argc, char **argv)
{
#ifdef _WIN32
	skg_os_init(); /* binary standard streams and files (src/git/os_win.h) */
#endif
	static const struct option longopts[] = {
	    {"strict", no_argument, NULL, 's'},     {"special", required_argument, NULL, 'S'},
	    {"list", no_argument, NULL, 'l'},       {"finish", no_argument, NULL, 'f'},
	    {"have", required_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
	};
	const char *configs[64];
	int nconfigs = 0, strict = 0, list = 0, finish = 0;
	uint8_t have_id[64][SKG_RAWSZ];
	unsigned have_type[64];
	int nhave = 0;
	unsigned special = 0;
	int c;
	while ((c = getopt_long(argc, argv, "c:", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			if (nconfigs == 64)
				return usage();
			configs[nconfigs++] = optarg;
			break;
		case 's':
			strict = 1;
			break;
		case 'S':
			if (strcmp(optarg, "gitmodules") == 0)
				special |= SKG_FSCK_GITMODULES;
			else if (strcmp(optarg, "gitattributes") == 0)
				special |= SKG_FSCK_GITATTRIBUTES;
			else
				return usage();
			break;
		case 'l':
			list = 1;
			break;
		case 'f':
			finish = 1;
			break;
		case 'h':
			if (nhave == 64 || strlen(optarg) < SKG_HEXSZ + 2 || optarg[SKG_HEXSZ] != ':' ||
			    !skg_from_hex(optarg, have_id[nhave]))
				return usage();
			have_type[nhave] =
			    skg_type_from_name(optarg + SKG_HEXSZ + 1, strlen(optarg + SKG_HEXSZ + 1));
			if (have_type[nhave] == SKG_NONE)
				return usage();
			nhave++;
			break;
		default:
			return usage();
		}
	}
	/* the Git whose lines sha1kit fsck gives (tests/testlib.sh sets it from the reference git):
	 * 2.55 reads dates as git 2.40+ does and makes 2.55's further checks, as skg_check_repo does
	 * then, and knows 2.55's message IDs (those of the ref check too) */
	unsigned git_version;
	if (driver_git_version("fsck_object_driver", &git_version) != 0) {
		return 2;
	}
	bool v255 = git_version >= SKG_GIT_2_55;
	if (list) {
		for (int m = 0; m < SKG_FSCK_MSG_COUNT; m++)
			if (v255 || !skg_fsck_msg_is_newer((enum skg_fsck_msg)m))
				printf("%s %s\n", skg_fsck_msg_name((enum skg_fsck_msg)m),
				       severity_name(skg_fsck_msg_default_severity((enum skg_fsck_msg)m)));
		enum skg_fsck_severity sev;
		const char *name;
		for (size_t i = 0; v255 && (name = skg_refs_msg_at(i, &sev)) != NULL; i++)
			printf("%s %s\n", name, severity_name(sev));
		return 0;
	}
	if (argc - optind != 2)
		return usage();

	struct skg_fsck_options opt;
	skg_fsck_options_init(&opt, strict != 0);
	opt.date_digits = opt.newer_checks = v255;
	refs_ids = v255;
	for (int i = 0; i < nconfigs; i++) {
		int r = apply_config(&opt, configs[i]);
		if (r != 0)
			return r;
	}

	const char *tname = argv[optind];
	unsigned type = skg_type_from_name(tname, strlen(tname));
	if (type == SKG_NONE)
		return usage();
	size_t len = 0;
	unsigned char *data = read_all(argv[optind + 1], &len);
	if (data == NULL) {
		fprintf(stderr, "fsck_object_driver: cannot read %s\n", argv[optind + 1]);
		return 2;
	}

	char header[SKG_HEADER_MAX];
	size_t hlen = skg_object_header(header, type, len);
	uint8_t id[SKG_RAWSZ];
	char hex[SKG_HEXSZ + 1];
	sha1kit_fast_ctx sha;
	sha1kit_fast_init(&sha);
	sha1kit_fast_update(&sha, header, hlen);
	sha1kit_fast_update(&sha, data, len);
	sha1kit_fast_final(&sha, id);
	skg_to_hex(id, hex);

	int status = 0;
	char msg[256];
	/* 1. git's parser, before anything else */
	enum skg_parse_result pr = SKG_PARSE_OK;
	struct skg_tag_links tl;
	uint8_t tree[SKG_RAWSZ];
	if (type == SKG_COMMIT)
		pr = skg_commit_links(data, len, SKG_RAWSZ, tree, NULL, NULL);
	else if (type == SKG_TAG)
		pr = skg_tag_links(data, len, SKG_RAWSZ, &tl);
	if (pr != SKG_PARSE_OK) {
		if (skg_parse_error_format(msg, sizeof(msg), pr, id, SKG_RAWSZ, &tl) > 0)
			fprintf(stderr, "error: %s\n", msg);
		fprintf(stderr, "error: %s: object could not be parsed: .git/objects/%.2s/%s\n", hex, hex,
		        hex + 2);
		free(data);
		return 1;
	}
	/* 2. the walk over a tree's entries */
	if (type == SKG_TREE) {
		struct skg_tree_iter it;
		enum skg_tree_error te = skg_tree_iter_init(&it, data, len, SKG_RAWSZ);
		if (te != SKG_TREE_OK) {
			fprintf(stderr, "error: %s\n", skg_tree_error_text(te));
			fprintf(stderr, "error in tree %s: broken links\n", hex);
			status = 1;
		} else {
			te = skg_tree_links(data, len, SKG_RAWSZ, NULL, NULL);
			if (te != SKG_TREE_OK)
				fprintf(stderr, "error: %s\n", skg_tree_error_text(te));
		}
	}
	/* 3. the checks */
	static struct found_set fs;
	opt.found = on_found;
	if (skg_fsck_object(type, id, data, len, &opt, print_finding, &fs) != 0)
		status = 1;
	if (type == SKG_BLOB && special != 0 &&
	    skg_fsck_special_blob(special, id, data, len, &opt, print_finding, NULL) != 0)
		status = 1;
	/* 4. fsck_finish, for the blobs the tree named */
	for (int k = 0; finish && k < 2; k++) {
		for (size_t i = 0; i < fs.n[k]; i++) {
			unsigned found_type = SKG_NONE;
			for (int h = 0; h < nhave; h++) {
				if (memcmp(have_id[h], fs.id[k][i], SKG_RAWSZ) == 0)
					found_type = have_type[h];
			}
			if (skg_fsck_special_unreadable(k == 0 ? SKG_FSCK_GITMODULES : SKG_FSCK_GITATTRIBUTES,
			                                found_type, fs.id[k][i], &opt, print_finding,
			                                NULL) != 0)
				status = 1;
		}
	}
	free(data);
	return status;
}
