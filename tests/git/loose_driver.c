/*
 * loose_driver.c - test driver of src/git/loose.{h,c} and trailer.{h,c}.
 *
 * Diagnostics go to stderr exactly as the module words them (= as git fsck prints them), results
 * to stdout:
 *   list OBJDIR                    the walk: "HEX PATH" per object (stdout), reports (stderr)
 *   read [-t N] PATH [HEX]         one object (ID from the path's xx/NAME, or HEX): stdout
 *                                  "STATUS TYPE SIZE REAL-ID" ("-" for what is unknown), then
 *                                  "collision OFFSET DV" when one was detected
 *   cat [-t N] PATH                the content (streamed when a blob is above N) to stdout
 *   scan [-t N] OBJDIR             skg_loose_check_all: "STATUS HEX PATH NLINES" per object, and
 *                                  "report - - 1" per report of the walk (stdout), in order
 *   mem [-t N] FILE PATH           skg_loose_parse of FILE's bytes, messages naming PATH
 *   trailer [--load] [--mem] FILE  one commit-graph (commit-graph, *.graph), multi-pack-index or
 *                                  *.rev file: stdout "STATUS"; --mem: read it first and use the
 *                                  in-memory functions (a .rev without the size check)
 *   commit-graph|midx [--load] OBJDIR, revs OBJDIR    the objects directory's files
 *   dc FILE                        SHA-1DC of FILE's bytes; the collision line the module words
 *                                  (HEX = the digest, PATH = FILE) or "no collision HEX"
 * -t N is core.bigFileThreshold. With SK_LOOSE_FORMAT=sha256 in the environment the objects are
 * a SHA-256 repository's (names of 62 hex digits, SHA-256 IDs: skg_loose_options.rawsz 32). Exit status: 0
 * when every object is OK, 1 when one is not (or a trailer check is BAD), 2 a collision, 128 a fatal status,
 * 64 usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver_env.h"
#include "loose.h"
#include "sha1kit.h"
#include "trailer.h"

static const char *status_name(int st)
{
	switch (st) {
	case SKG_LOOSE_OK:
		return "ok";
	case SKG_LOOSE_UNKNOWN_TYPE:
		return "unknown-type";
	case SKG_LOOSE_CORRUPT:
		return "corrupt";
	case SKG_LOOSE_MISMATCH:
		return "mismatch";
	case SKG_LOOSE_COLLISION:
		return "collision";
	case SKG_LOOSE_FATAL:
		return "fatal";
	case SKG_LOOSE_NOMEM:
		return "out-of-memory";
	default:
		return "?";
	}
}

static int exit_of(int st)
{
	switch (st) {
	case SKG_LOOSE_OK:
		return 0;
	case SKG_LOOSE_COLLISION:
		return 2;
	case SKG_LOOSE_FATAL:
	case SKG_LOOSE_NOMEM:
		return 128;
	default:
		return 1;
	}
}

/* Bytes of an object ID: 20, or 32 with SK_LOOSE_FORMAT=sha256 in the environment (a SHA-256
 * repository's objects; set once in main). */
static size_t rawsz = SKG_RAWSZ;

static void print_result(int st, const struct skg_loose_object *obj, const char *hex, const char *path,
                         unsigned nlines)
{
	char real[SKG_MAX_HEXSZ + 1] = "-";
	if (obj->have_id) {
		skg_to_hex_len(obj->id, rawsz, real);
	}
	if (hex != NULL) {
		printf("%s %s %s %u\n", status_name(st), hex, path, nlines);
		return;
	}
	if (obj->have_header) {
		printf("%s %s %llu %s\n", status_name(st), obj->type_name, (unsigned long long)obj->size,
		       real);
	} else {
		printf("%s - - %s\n", status_name(st), real);
	}
	if (obj->have_id && obj->where.dv >= 0) {
		printf("collision %llu %s\n", (unsigned long long)obj->where.offset,
		       sha1kit_dv_name(obj->where.dv));
	}
}

/* The ID a path names: its last two components xx/NAME (38 hex digits, 62 for SHA-256). */
static bool id_of_path(const char *path, uint8_t *id)
{
	size_t n = strlen(path), name = 2 * rawsz - 2;
	if (n < name + 3 || path[n - name - 1] != '/') {
		return false;
	}
	char hex[SKG_MAX_HEXSZ + 1];
	memcpy(hex, path + n - name - 3, 2);
	memcpy(hex + 2, path + n - name, name);
	hex[2 * rawsz] = '\0';
	return skg_from_hex_len(hex, rawsz, id);
}

struct scan_state {
	int worst;
	bool count; /* scan: print the number of lines of each object and report */
};

static int on_list_object(void *ctx, const uint8_t *id, const char *path)
{
	(void)ctx;
	char hex[SKG_MAX_HEXSZ + 1];
	skg_to_hex_len(id, rawsz, hex);
	printf("%s %s\n", hex, path);
	return 0;
}

static int on_report(void *ctx, const char *line, bool is_error)
{
	(void)is_error;
	const struct scan_state *s = ctx;
	if (s != NULL && s->count) {
		printf("report - - 1\n");
	}
	fflush(stdout);
	fprintf(stderr, "%s\n", line);
	return 0;
}

static int on_checked(void *vctx, const uint8_t *id, const char *path, int status,
                      const struct skg_loose_object *obj, const struct skg_lines *lines)
{
	struct scan_state *s = vctx;
	char hex[SKG_MAX_HEXSZ + 1];
	skg_to_hex_len(id, rawsz, hex);
	fputs(lines->text, stderr);
	print_result(status, obj, hex, path, lines->count);
	int e = exit_of(status);
	if (e > s->worst) {
		s->worst = e;
	}
	return 0;
}

static void on_stream(void *ctx, const uint8_t *data, size_t len)
{
	(void)ctx;
	fwrite(data, 1, len, stdout);
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL) {
		return NULL;
	}
	size_t cap = 1 << 16, n = 0;
	uint8_t *buf = malloc(cap);
	while (buf != NULL) {
		size_t k = fread(buf + n, 1, cap - n, f);
		n += k;
		if (n < cap) {
			break;
		}
		uint8_t *nb = realloc(buf, cap * 2);
		if (nb == NULL) {
			free(buf);
			buf = NULL;
			break;
		}
		buf = nb;
		cap *= 2;
	}
	fclose(f);
	*len = n;
	return buf;
}

static int trailer_result(int st, const struct skg_lines *lines)
{
	static const char *const names[] = {"ok", "absent", "warned", "bad", "fatal"};
	fputs(lines->text, stderr);
	printf("%s\n", st >= 0 && st <= 4 ? names[st] : "?");
	return st == SKG_TRAILER_BAD ? 1 : st == SKG_TRAILER_FATAL ? 128 : 0;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

static int usage(void)
{
	fprintf(stderr,
	        "usage: loose_driver list|read|cat|scan|mem|trailer|commit-graph|midx|revs|dc ARGS\n");
	return 64;
}

int main(int argc, char **argv)
{
#ifdef _WIN32
	skg_os_init(); /* binary standard streams and files (src/git/os_win.h) */
#endif
	if (argc < 3) {
		return usage();
	}
	const char *cmd = argv[1];
	int i = 2;
	struct skg_loose_options opt;
	skg_loose_options_default(&opt);
	/* the Git whose lines sha1kit fsck gives (tests/testlib.sh sets it from the reference git):
	 * with 2.55, an unknown type fails the read as in git 2.50+, as fsck's loose walk reads then */
	unsigned git_version;
	if (driver_git_version("loose_driver", &git_version) != 0) {
		return 2;
	}
	opt.unknown_type_corrupt = git_version >= SKG_GIT_2_55;
	const char *format = getenv("SK_LOOSE_FORMAT");
	if (format != NULL && strcmp(format, "sha256") == 0) {
		rawsz = SKG_MAX_RAWSZ;
	}
	opt.rawsz = rawsz;
	enum skg_trailer_mode mode = SKG_TRAILER_VERIFY;
	bool mem = false;
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "-t") == 0 && i + 1 < argc) {
			opt.big_file_threshold = strtoull(argv[++i], NULL, 10);
		} else if (strcmp(argv[i], "--load") == 0) {
			mode = SKG_TRAILER_LOAD;
		} else if (strcmp(argv[i], "--mem") == 0) {
			mem = true;
		} else {
			return usage();
		}
	}
	if (i >= argc) {
		return usage();
	}
	const char *arg = argv[i];
	static struct skg_lines lines;

	if (strcmp(cmd, "list") == 0) {
		int rc = skg_loose_for_each(arg, rawsz, on_list_object, on_report, NULL);
		return rc == 0 ? 0 : 1;
	}
	if (strcmp(cmd, "dc") == 0) {
		size_t len;
		uint8_t *data = slurp(arg, &len);
		if (data == NULL) {
			perror(arg);
			return 1;
		}
		uint8_t digest[SHA1KIT_DIGEST_SIZE];
		sha1kit_dc_detection where;
		sha1kit_dc_result r = sha1kit_dc(data, len, NULL, digest, &where);
		free(data);
		char hex[SKG_HEXSZ + 1];
		skg_to_hex(digest, hex);
		if (r != SHA1KIT_DC_COLLISION) {
			printf("no collision %s\n", hex);
			return 0;
		}
		char msg[8192];
		skg_loose_collision_message(msg, sizeof(msg), hex, arg, &where);
		printf("%s\n", msg);
		return 2;
	}
	if (strcmp(cmd, "trailer") == 0 && mem) {
		size_t len;
		uint8_t *data = slurp(arg, &len);
		if (data == NULL) {
			perror(arg);
			return 1;
		}
		int st;
		if (ends_with(arg, ".rev")) {
			st = skg_trailer_rev_buf(data, len, arg, (unsigned)rawsz, -1, &lines);
		} else if (ends_with(arg, "multi-pack-index")) {
			st = skg_trailer_midx_buf(data, len, arg, mode, (unsigned)rawsz, git_version, &lines);
		} else {
			st = skg_trailer_graph_buf(data, len, mode, (unsigned)rawsz, git_version, &lines);
		}
		free(data);
		return trailer_result(st, &lines);
	}
	if (strcmp(cmd, "trailer") == 0) {
		int st;
		if (ends_with(arg, ".rev")) {
			st = skg_trailer_rev_file(arg, (unsigned)rawsz, -1, &lines);
		} else if (ends_with(arg, "multi-pack-index")) {
			st = skg_trailer_midx_file(arg, mode, (unsigned)rawsz, git_version, &lines);
		} else {
			st = skg_trailer_graph_file(arg, mode, (unsigned)rawsz, git_version, &lines);
		}
		return trailer_result(st, &lines);
	}
	if (strcmp(cmd, "commit-graph") == 0) {
		return trailer_result(
		    skg_trailer_commit_graph(arg, NULL, 0, mode, (unsigned)rawsz, git_version, &lines),
		    &lines);
	}
	if (strcmp(cmd, "midx") == 0) {
		return trailer_result(skg_trailer_midx(arg, mode, (unsigned)rawsz, git_version, &lines),
		                      &lines);
	}
	if (strcmp(cmd, "revs") == 0) {
		return trailer_result(skg_trailer_revs(arg, (unsigned)rawsz, &lines, NULL), &lines);
	}

	struct skg_loose_reader *r = skg_loose_reader_new(&opt);
	if (r == NULL) {
		fprintf(stderr, "loose_driver: out of memory\n");
		return 1;
	}
	int rc;
	struct skg_loose_object obj;
	uint8_t id[SKG_MAX_RAWSZ];
	if (strcmp(cmd, "scan") == 0) {
		struct scan_state s = {0, true};
		int wrc = skg_loose_check_all(r, arg, on_checked, on_report, &s);
		/* a subdirectory that cannot be opened does not count for git fsck */
		rc = s.worst != 0 ? s.worst : wrc == 0 || wrc == SKG_LOOSE_WALK_STOPPED ? 0 : 1;
	} else if (strcmp(cmd, "read") == 0 || strcmp(cmd, "cat") == 0) {
		bool cat = strcmp(cmd, "cat") == 0;
		if (i + 1 < argc ? !skg_from_hex_len(argv[i + 1], rawsz, id) : !id_of_path(arg, id)) {
			skg_loose_reader_free(r);
			return usage();
		}
		int st = skg_loose_read(r, arg, id, cat ? on_stream : NULL, NULL, &obj, &lines);
		if (cat) {
			if (obj.content != NULL) {
				fwrite(obj.content, 1, (size_t)obj.size, stdout);
			}
		} else {
			fputs(lines.text, stderr);
			print_result(st, &obj, NULL, arg, 0);
		}
		rc = exit_of(st);
	} else if (strcmp(cmd, "mem") == 0 && i + 1 < argc) {
		const char *path = argv[i + 1];
		size_t len;
		uint8_t *data = slurp(arg, &len);
		if (data == NULL || !id_of_path(path, id)) {
			free(data);
			skg_loose_reader_free(r);
			return usage();
		}
		int st = skg_loose_parse(r, data, len, path, id, NULL, NULL, &obj, &lines);
		fputs(lines.text, stderr);
		print_result(st, &obj, NULL, path, 0);
		free(data);
		rc = exit_of(st);
	} else {
		rc = usage();
	}
	skg_loose_reader_free(r);
	return rc;
}
