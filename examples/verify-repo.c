/*
 * verify-repo.c - an example of the Git layer's public API (<sha1kit/git.h>, <sha1kit/git_pack.h>,
 * <sha1kit/git_fsck.h>), using only the installed headers and libraries:
 *
 *   cc verify-repo.c $(pkg-config --cflags --libs sha1kit-git) -o verify-repo
 *   ./verify-repo [GIT_DIR]
 *
 * It opens the repository (GIT_DIR, else $GIT_DIR, else the one around the current directory, as
 * git finds it), indexes every pack of its object directory again from memory and verifies the
 * pack's idx against it (`git index-pack --verify`), then checks the whole repository as
 * `git fsck --full` does, printing each finding as git prints it: result lines ("dangling blob
 * ID", "missing tree ID") on standard output, the others on standard error with git's prefix.
 * Exit status: git fsck's (0 for a sound repository), with 4 (a corrupt pack) added when a pack or
 * idx does not verify; 128 with one "fatal:" line when the run cannot be done; 2 and a usage line
 * with more than one operand.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sha1kit/git_fsck.h>
#include <sha1kit/git_pack.h>

/* The report sink: each record as git prints it. */
static void print_record(void *ctx, const struct skg_report *r)
{
	(void)ctx;
	const char *prefix = skg_level_prefix(r->level);
	if (prefix != NULL) {
		fprintf(r->level == SKG_LEVEL_OUTPUT ? stdout : stderr, "%s%s\n", prefix, r->text);
	}
}

/* The whole of a file in memory (NULL on failure). */
static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	unsigned char *buf = NULL;
	if (fp != NULL && fseek(fp, 0, SEEK_END) == 0) {
		long n = ftell(fp);
		if (n >= 0 && fseek(fp, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)) != NULL &&
		    fread(buf, 1, (size_t)n, fp) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		*len = (size_t)n;
	}
	if (fp != NULL) {
		fclose(fp);
	}
	return buf;
}

/* Index PACK_DIR/NAME.pack from memory and compare its NAME.idx with the idx made: 0 or 1. */
static int verify_pack(const char *pack_dir, const char *name)
{
	char path[4096];
	size_t pack_len = 0, idx_len = 0, stem = strlen(name) - strlen(".idx");
	int n = snprintf(path, sizeof(path), "%s/%.*s.pack", pack_dir, (int)stem, name);
	unsigned char *pack_data = n >= 0 && (size_t)n < sizeof(path) ? slurp(path, &pack_len) : NULL;
	n = snprintf(path, sizeof(path), "%s/%s", pack_dir, name);
	unsigned char *idx_data = n >= 0 && (size_t)n < sizeof(path) ? slurp(path, &idx_len) : NULL;
	struct skg_index_options opt;
	skg_index_options_default(&opt);
	opt.threads = 2;
	struct skg_pack *pack = NULL;
	struct skg_error err;
	int bad = 1;
	if (pack_data == NULL || idx_data == NULL) {
		fprintf(stderr, "verify-repo: %.*s: cannot read the pack or its idx\n", (int)stem, name);
	} else if (skg_pack_index(&pack, pack_data, pack_len, &opt, &err) != 0 ||
	           skg_pack_verify_idx(pack, idx_data, idx_len, false, &err) != 0) {
		fprintf(stderr, "verify-repo: %.*s: %s (%s)\n", (int)stem, name, err.msg,
		        skg_errc_name(err.code));
	} else {
		fprintf(stderr, "verify-repo: %.*s: %u objects, idx verified\n", (int)stem, name,
		        skg_pack_count(pack));
		bad = 0;
	}
	skg_pack_free(pack);
	free(pack_data);
	free(idx_data);
	return bad;
}

int main(int argc, char **argv)
{
	if (argc > 2) {
		fprintf(stderr, "usage: verify-repo [GIT_DIR]\n");
		return 2;
	}
	struct skg_sink sink = {print_record, NULL};
	struct skg_error err;
	struct skg_repo *repo;
	if (skg_repo_open(&repo, argc == 2 ? argv[1] : NULL, &sink, &err) != 0) {
		fprintf(stderr, "fatal: %s\n", err.msg);
		return 128;
	}

	/* 1. Every pack of the object directory, indexed again and compared with its idx. */
	char pack_dir[4096];
	snprintf(pack_dir, sizeof(pack_dir), "%s/pack", skg_repo_objects_dir(repo));
	int bad_packs = 0;
	DIR *d = opendir(pack_dir);
	for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;) {
		size_t n = strlen(e->d_name);
		if (n > 4 && strcmp(e->d_name + n - 4, ".idx") == 0) {
			bad_packs |= verify_pack(pack_dir, e->d_name);
		}
	}
	if (d != NULL) {
		closedir(d);
	}

	/* 2. The whole repository, as `git fsck --full`. */
	struct skg_check_options opt;
	skg_check_options_default(&opt);
	struct skg_check_result res;
	int rc = skg_check_repo(argc == 2 ? argv[1] : NULL, &opt, &sink, &res, &err); /* git's paths */
	skg_repo_free(repo);
	if (rc != 0) {
		if (err.code != SKG_E_GIT) { /* SKG_E_GIT: its "fatal:" line was the last record */
			fprintf(stderr, "fatal: %s (%s)\n", err.msg, skg_errc_name(err.code));
		}
		return 128;
	}
	return res.exit_status | (bad_packs ? SKG_CHECK_ERROR_PACK : 0);
}
