/*
 * sum.c - `sha1kit sum`: print or check SHA-1 checksums, like GNU sha1sum, with collision detection;
 * with --sha256, SHA-256 checksums like GNU sha256sum.
 *
 * Output, diagnostics and exit status 1 follow GNU coreutils sha1sum (9.1) byte for byte, and with
 * --sha256 sha256sum (9.1): the same code with the digest length, the tag ("SHA1" / "SHA256") and
 * the name in the messages chosen by the option. The behaviour was established by running sha1sum
 * and sha256sum, not by reading their source. On top of that every SHA-1 input is hashed with
 * SHA-1DC (unless --fast): an input in which a collision attack is detected is reported on stderr
 * and sets bit 2 of the exit status (see cli.h and the --help text). SHA-256 has no such check.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>

#include "cli.h"
#include "digest.h"

#define SUM_CMD     "sum"
#define HEX_LEN_MAX (2 * SHA1KIT_SHA256_DIGEST_SIZE)

enum {
	OPT_IGNORE_MISSING = 256,
	OPT_QUIET,
	OPT_STATUS,
	OPT_STRICT,
	OPT_TAG,
	OPT_HELP,
	OPT_VERSION,
	OPT_SAFE_HASH,
	OPT_FAST,
	OPT_REDUCED_ROUND,
	OPT_SHA256,
};

/* The sha1sum options first, in an order that gives the same "ambiguous option" messages. */
static const struct option sum_options[] = {
    {"binary", no_argument, NULL, 'b'},
    {"check", no_argument, NULL, 'c'},
    {"ignore-missing", no_argument, NULL, OPT_IGNORE_MISSING},
    {"quiet", no_argument, NULL, OPT_QUIET},
    {"status", no_argument, NULL, OPT_STATUS},
    {"strict", no_argument, NULL, OPT_STRICT},
    {"tag", no_argument, NULL, OPT_TAG},
    {"text", no_argument, NULL, 't'},
    {"warn", no_argument, NULL, 'w'},
    {"zero", no_argument, NULL, 'z'},
    {"help", no_argument, NULL, OPT_HELP},
    {"version", no_argument, NULL, OPT_VERSION},
    {"safe-hash", no_argument, NULL, OPT_SAFE_HASH},
    {"fast", no_argument, NULL, OPT_FAST},
    {"reduced-round", no_argument, NULL, OPT_REDUCED_ROUND},
    {"sha256", no_argument, NULL, OPT_SHA256},
    {NULL, 0, NULL, 0},
};
/* The options of GNU sha1sum alone (run as a link named sha1sum or sha256sum), so that
 * abbreviations are taken and refused as there */
#define GNU_OPTIONS 12

struct sum_state {
	struct sk_hash_opts hash;
	size_t hex_len;       /* hexadecimal digits of a digest: 40 (SHA-1), 64 (--sha256) */
	const char *tag_name; /* "SHA1" or "SHA256": the --tag lines and the check messages */
	bool check, tag, zero, quiet, status_only, warn, strict, ignore_missing;
	int binary;      /* -1 not given, 0 --text, 1 --binary (or --tag) */
	bool read_stdin; /* "-" was read: close stdin at the end */
	int status;      /* exit status bits so far */
	/*
	 * Layout of the untagged lines seen so far, in all checksum files (as sha1sum): -1 none yet,
	 * 0 "HASH  NAME"/"HASH *NAME", 1 "HASH NAME" (one space). A line that only fits the other
	 * layout is improperly formatted.
	 */
	int layout;
};

static void sum_usage(void)
{
	char inv[64];
	sk_invocation(SUM_CMD, inv, sizeof(inv));
	printf("Usage: %s [OPTION]... [FILE]...\n"
	       "  or:  %s -c [OPTION]... [FILE]...\n",
	       inv, inv);
	bool sha256_link;
	bool link = sk_alias(&sha256_link);
	if (link) {
		/* run through a link named sha1sum or sha256sum: GNU's options only */
		printf("Print or check %s checksums (sha1kit).\n"
		       "\n"
		       "With no FILE, or when FILE is -, read standard input.\n",
		       sha256_link ? "SHA256 (256-bit)" : "SHA1 (160-bit)");
	} else {
		fputs("Print or check SHA-1 (160-bit) checksums, and detect SHA-1 collision attacks;\n"
		      "with --sha256, print or check SHA-256 (256-bit) checksums.\n"
		      "\n"
		      "With no FILE, or when FILE is -, read standard input.\n"
		      "Output and options are those of GNU sha1sum (with --sha256: GNU sha256sum).\n"
		      "In addition every SHA-1 input is hashed with SHA-1DC, which detects the known\n"
		      "cryptanalytic collision attacks on SHA-1 (SHAttered, \"SHA-1 is a Shambles\",\n"
		      "and any attack that uses one of the 32 disturbance vectors of Stevens and\n"
		      "Shumow).\n"
		      "\n",
		      stdout);
	}
	fputs(
#ifdef _WIN32
	    "  -b, --binary          read in binary mode (default unless reading a terminal\n"
	    "                          on standard input; the line gets '*' before the name)\n"
#else
	    "  -b, --binary          read in binary mode (the line gets '*' before the name)\n"
#endif
	    "  -c, --check           read checksums from the FILEs and check them\n"
	    "      --tag             create a BSD-style checksum line: SHA1 (FILE) = HASH\n"
	    "                          (SHA256 (FILE) = HASH for SHA-256)\n"
#ifdef _WIN32
	    "  -t, --text            text mode: a space before the name (the bytes are hashed\n"
	    "                          as they are, as in binary mode)\n"
#else
	    "  -t, --text            read in text mode (default)\n"
#endif
	    "  -z, --zero            end each output line with NUL, not newline,\n"
	    "                          and disable file name escaping\n"
	    "\n"
	    "The following five options are useful only when verifying checksums:\n"
	    "      --ignore-missing  don't fail or report status for missing files\n"
	    "      --quiet           don't print OK for each successfully verified file\n"
	    "      --status          don't output anything, status code shows success\n"
	    "                          (a collision attack is still named on standard\n"
	    "                          error: sha1kit's warning is not sha1sum's output)\n"
	    "      --strict          exit non-zero for improperly formatted checksum lines\n"
	    "  -w, --warn            warn about improperly formatted checksum lines\n"
	    "\n",
	    stdout);
	if (!link) {
		fputs("Choice of hash (sha1kit only):\n"
		      "      --fast            plain SHA-1 without collision detection; for checksums\n"
		      "                          that guard against accidents only\n"
		      "      --safe-hash       print the \"safe hash\": a block in which an attack is\n"
		      "                          detected is compressed three times, so that colliding\n"
		      "                          files get different digests (those sha1cdsum prints);\n"
		      "                          a file without an attack keeps its true SHA-1\n"
		      "      --reduced-round   also flag collisions of reduced-round SHA-1 (a test of\n"
		      "                          the detector; may flag files that are no attack)\n"
		      "      --sha256          SHA-256 instead of SHA-1: the output, checks, messages\n"
		      "                          and exit statuses of GNU sha256sum; no collision\n"
		      "                          detection (not with --fast, --safe-hash or\n"
		      "                          --reduced-round)\n"
		      "\n",
		      stdout);
	}
	fputs("      --help            display this help and exit\n"
	      "      --version         output version information and exit\n"
	      "\n",
	      stdout);
	if (link) {
		if (sha256_link) {
			printf("This is 'sha1kit sum --sha256' run through a link named %s: GNU\n"
			       "sha256sum's options, output, messages and exit statuses. 'sha1kit sum\n"
			       "--help' has the details.\n",
			       inv);
		} else {
			printf("This is 'sha1kit sum' run through a link named %s: GNU sha1sum's\n"
			       "options, output, messages and exit statuses, and every input is checked\n"
			       "for SHA-1 collision attacks: a file that contains one gets its line and a\n"
			       "warning on standard error, and the exit status is 2 (3 with another\n"
			       "failure). 'sha1kit sum --help' has the details.\n",
			       inv);
		}
		return;
	}
	fputs("Output: one line per FILE: the 40 hexadecimal digits of the digest (64 with\n"
	      "--sha256), a space, '*' with --binary or a space otherwise, and the name.\n"
	      "When a name contains a backslash, newline or carriage return, these are\n"
	      "written as \\\\, \\n and \\r and the line starts with a backslash (not with\n"
	      "-z). When a collision attack is\n"
	      "detected in a FILE, its line is printed as usual (the true SHA-1 unless\n"
	      "--safe-hash) and a warning naming the disturbance vector and the byte offset\n"
	      "of the first flagged 64-byte block goes to standard error.\n"
	      "\n"
	      "Regular files of 8 MiB or more are read by a second thread, which also runs the\n"
	      "first stage of the detection (the unavoidable-bit-condition filter), while the\n"
	      "first thread compresses: more CPU time, less wall time, the same results.\n"
	      "\n"
	      "Checking: each line of a checksum FILE is 'HASH  NAME', 'HASH *NAME' or\n"
	      "'SHA1 (NAME) = HASH' ('SHA256 (NAME) = HASH' with --sha256), as written\n"
	      "above; hexadecimal digits may be in either case, CRLF line ends are accepted,\n"
	      "and empty lines and lines starting with '#' are skipped. Each listed file is\n"
	      "reported as 'NAME: OK', 'NAME: FAILED' (the digest differs), 'NAME: FAILED\n"
	      "open or read', or\n"
	      "'NAME: FAILED (SHA-1 collision attack detected)': a file that contains a\n"
	      "collision attack fails the check even when its digest matches (one whose\n"
	      "digest differs is 'NAME: FAILED', as in sha1sum; its attack is still named).\n"
	      "After sha1sum's summary warnings, sha1kit adds its own: 'WARNING: 1 listed\n"
	      "file contains a SHA-1 collision attack' ('N listed files contain ...'). A\n"
	      "file that fails is not verified: with --ignore-missing, a list whose files\n"
	      "all fail (attacks too) ends with 'LIST: no file was verified', as sha1sum's.\n"
	      "\n"
	      "Run through a link named sha1sum (or sha256sum, which implies --sha256), it is\n"
	      "this command under that name: 'ln -s $(command -v sha1kit) ~/bin/sha1sum'.\n"
	      "Messages then start with the link's name, as GNU's.\n"
	      "\n"
	      "Exit status:\n"
	      "  0  success\n"
	      "  1  as sha1sum: a FILE could not be read, a checksum did not match or no file\n"
	      "     could be verified, no properly formatted checksum line was found (or, with\n"
	      "     --strict, a line was improperly formatted), a usage error, a write error\n"
	      "  2  a collision attack was detected in at least one FILE, nothing else failed\n"
	      "  3  both of the above (1 + 2). With --check a file that contains an attack is\n"
	      "     also a failed check, so a detection there always gives 3.\n"
	      "\n"
	      "Examples:\n"
	      "  sha1kit sum *.iso > SHA1SUMS        write checksums\n"
	      "  sha1kit sum -c SHA1SUMS             verify them\n"
	      "  sha1kit sum -c --quiet --ignore-missing SHA1SUMS\n"
	      "                                      report only failures of files present\n"
	      "  sha1kit sum shattered-1.pdf         SHA-1 and a warning, exit status 2\n"
	      "  sha1kit sum --safe-hash *.pdf       digests that differ for colliding files\n"
	      "  sha1kit sum --fast disk.img         plain SHA-1, no detection\n"
	      "  sha1kit sum --sha256 -c SHA256SUMS  verify SHA-256 checksums\n",
	      stdout);
}

static void report_collision(const char *name, const struct sk_hash_result *r)
{
	const char *dv = sha1kit_dv_name(r->where.dv);
	const char *how = r->where.reduced_round ? "reduced-round test, " : "";
	sk_error(0, "%s: SHA-1 collision attack detected (%sdisturbance vector %s, block at byte offset %ju)",
	         sk_quote(name), how, dv != NULL ? dv : "?", (uintmax_t)r->where.offset);
}

/* Hash `name` ("-" = stdin). Returns 0 or an errno value; *missing is set for ENOENT at open. */
static int hash_name(struct sum_state *st, const char *name, struct sk_hash_result *r, bool *missing)
{
	bool open_failed;
	if (strcmp(name, "-") == 0) {
		st->read_stdin = true;
	}
	int err = sk_hash_file(&st->hash, name, r, &open_failed);
	*missing = err == ENOENT && open_failed;
	return err;
}

/* ------------------------------------------------------------------------------------------------ */
/* Printing checksums                                                                               */
/* ------------------------------------------------------------------------------------------------ */

/* Whether NAME's line gets '*'. GNU sha1sum on systems with O_BINARY (Windows) reads in binary mode
 * unless told otherwise or reading a terminal on standard input, and marks it; elsewhere only
 * --binary does. (sha1kit hashes the bytes as they are in every mode.) */
static bool binary_mode(const struct sum_state *st, const char *name)
{
#ifdef _WIN32
	if (st->binary < 0) {
		return !(strcmp(name, "-") == 0 && isatty(0));
	}
#else
	(void)name;
#endif
	return st->binary == 1;
}

static void sum_one(struct sum_state *st, const char *name)
{
	struct sk_hash_result r;
	bool missing;
	int err = hash_name(st, name, &r, &missing);
	if (err != 0) {
		sk_error(err, "%s", sk_quote(name));
		st->status |= SK_EXIT_FAILURE;
		return;
	}

	char hex[HEX_LEN_MAX + 1];
	sk_hex(r.digest, r.digest_len, hex);
	bool escape = !st->zero && sk_name_needs_escape(name);
	if (escape) {
		putchar('\\');
	}
	if (st->tag) {
		fputs(st->tag_name, stdout);
		fputs(" (", stdout);
		sk_put_name(stdout, name, escape);
		fputs(") = ", stdout);
		fputs(hex, stdout);
	} else {
		fputs(hex, stdout);
		putchar(' ');
		putchar(binary_mode(st, name) ? '*' : ' ');
		sk_put_name(stdout, name, escape);
	}
	putchar(st->zero ? '\0' : '\n');

	if (r.collision) {
		report_collision(name, &r);
		st->status |= SK_EXIT_COLLISION;
	}
}

/* ------------------------------------------------------------------------------------------------ */
/* Checking                                                                                         */
/* ------------------------------------------------------------------------------------------------ */

struct check_line {
	const char *hex; /* hex_len hexadecimal digits (not NUL-terminated in the untagged form) */
	char *name;
};

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool all_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!isxdigit((unsigned char)s[i])) {
			return false;
		}
	}
	return true;
}

/*
 * Undo the name escaping of s[0..n) in place and NUL-terminate the result: "\\\\" is a backslash,
 * "\\n" a newline, "\\r" a carriage return. Any other escape, a final lone backslash or a NUL byte
 * makes the line improperly formatted (false).
 */
static bool unescape_name(char *s, size_t n)
{
	char *d = s;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '\0') {
			return false;
		}
		if (c == '\\') {
			if (++i == n) {
				return false;
			}
			switch (s[i]) {
			case '\\':
				c = '\\';
				break;
			case 'n':
				c = '\n';
				break;
			case 'r':
				c = '\r';
				break;
			default:
				return false;
			}
		}
		*d++ = c;
	}
	*d = '\0';
	return true;
}

/* "NAME) = HASH" of a tagged line "SHA1 (NAME) = HASH": s[0..n), NUL at s[n]; hex_len digits. */
static bool parse_tagged(char *s, size_t n, bool escaped, size_t hex_len, struct check_line *out)
{
	if (n == 0) {
		return false;
	}
	size_t k = n - 1; /* the name ends at the last ')' of the line */
	while (k > 0 && s[k] != ')') {
		k--;
	}
	if (s[k] != ')') {
		return false;
	}
	if (escaped && !unescape_name(s, k)) {
		return false;
	}
	s[k++] = '\0';
	while (is_blank(s[k])) {
		k++;
	}
	if (s[k] != '=') {
		return false;
	}
	k++;
	while (is_blank(s[k])) {
		k++;
	}
	if (strlen(s + k) != hex_len || !all_hex(s + k, hex_len)) {
		return false;
	}
	out->name = s;
	out->hex = s + k;
	return true;
}

/* Parse one checksum line s[0..n) (n > 0, NUL at s[n]; the line end is already removed). */
static bool parse_line(struct sum_state *st, char *s, size_t n, struct check_line *out)
{
	size_t i = 0;
	while (is_blank(s[i])) {
		i++;
	}
	bool escaped = s[i] == '\\';
	if (escaped) {
		i++;
	}

	const size_t tag_len = strlen(st->tag_name), hex_len = st->hex_len;
	if (strncmp(s + i, st->tag_name, tag_len) == 0) {
		i += tag_len;
		if (s[i] == ' ') {
			i++;
		}
		if (s[i] != '(') {
			return false;
		}
		i++;
		return parse_tagged(s + i, n - i, escaped, hex_len, out);
	}

	/* HASH, a blank, a mode character and at least... nothing: the shortest line has hex_len + 2
	 * bytes. */
	if (n - i < hex_len + 2) {
		return false;
	}
	if (!is_blank(s[i + hex_len]) || !all_hex(s + i, hex_len)) {
		return false;
	}
	out->hex = s + i;
	size_t j = i + hex_len + 1;
	if (n - j == 1 || (s[j] != ' ' && s[j] != '*')) {
		if (st->layout == 0) {
			return false;
		}
		st->layout = 1;
	} else if (st->layout != 1) {
		st->layout = 0;
		j++; /* ' ' (text) or '*' (binary): nothing to do with it on this system */
	}
	out->name = s + j;
	return !escaped || unescape_name(s + j, n - j);
}

/* "NAME" in a check report: escaped (with a leading backslash) only when it has a newline. */
static void put_check_name(const char *name)
{
	bool escape = strchr(name, '\n') != NULL;
	if (escape) {
		putchar('\\');
	}
	sk_put_name(stdout, name, escape);
}

static void warn_count(uintmax_t n, const char *one, const char *many)
{
	sk_error(0, "WARNING: %ju %s", n, n == 1 ? one : many);
}

/* Check the checksum file `checkfile`. Returns true when everything in it verified. */
static bool check_file(struct sum_state *st, const char *checkfile)
{
	bool is_stdin = strcmp(checkfile, "-") == 0;
	const char *display = is_stdin ? "standard input" : checkfile;
	FILE *fp;

	if (is_stdin) {
		st->read_stdin = true;
		fp = stdin;
	} else {
		fp = fopen(checkfile, "r");
		if (fp == NULL) {
			sk_error(errno, "%s", sk_quote(checkfile));
			return false;
		}
	}

	uintmax_t line_no = 0, misformatted = 0, unreadable = 0, mismatched = 0, attacks = 0;
	bool properly_formatted = false, verified = false;
	char *line = NULL;
	size_t cap = 0;
	ssize_t got;

	while ((got = getline(&line, &cap, fp)) > 0) {
		size_t n = (size_t)got;
		line_no++;
		if (line[0] == '#') {
			continue;
		}
		if (line[n - 1] == '\n') {
			n--;
		}
		if (n > 0 && line[n - 1] == '\r') {
			n--;
		}
		if (n == 0) {
			continue;
		}
		line[n] = '\0';

		struct check_line cl;
		if (!parse_line(st, line, n, &cl) || (is_stdin && strcmp(cl.name, "-") == 0)) {
			misformatted++;
			if (st->warn) {
				sk_error(0, "%s: %ju: improperly formatted %s checksum line",
				         sk_quote(display), line_no, st->tag_name);
			}
			continue;
		}
		properly_formatted = true;

		struct sk_hash_result r;
		bool missing;
		int err = hash_name(st, cl.name, &r, &missing);
		if (err != 0) {
			if (missing && st->ignore_missing) {
				continue;
			}
			sk_error(err, "%s", sk_quote(cl.name));
			unreadable++;
			if (!st->status_only) {
				put_check_name(cl.name);
				fputs(": FAILED open or read\n", stdout);
			}
			continue;
		}

		char hex[HEX_LEN_MAX + 1];
		sk_hex(r.digest, r.digest_len, hex);
		bool match = strncasecmp(hex, cl.hex, st->hex_len) == 0;
		if (!match) {
			mismatched++;
		}
		if (r.collision) {
			report_collision(cl.name, &r);
			st->status |= SK_EXIT_COLLISION;
			attacks++;
		} else if (match) {
			verified = true;
		}
		if (!st->status_only && (r.collision || !match || !st->quiet)) {
			put_check_name(cl.name);
			/* a digest that differs is sha1sum's FAILED, attack or not (the attack is named
			 * on standard error and in the summary) */
			const char *verdict = ": OK\n";
			if (!match) {
				verdict = ": FAILED\n";
			} else if (r.collision) {
				verdict = ": FAILED (SHA-1 collision attack detected)\n";
			}
			fputs(verdict, stdout);
		}
	}
	free(line);

	bool read_error = ferror(fp) != 0;
	int close_errno = 0;
	if (is_stdin) {
		clearerr(fp);
	} else if (fclose(fp) != 0) {
		close_errno = errno;
	}
	if (read_error) {
		sk_error(0, "%s: read error", sk_quote(display));
		return false;
	}
	if (close_errno != 0) {
		sk_error(close_errno, "%s", sk_quote(display));
		return false;
	}

	if (!properly_formatted) {
		sk_error(0, "%s: no properly formatted checksum lines found", sk_quote(display));
	} else if (!st->status_only) {
		if (misformatted != 0) {
			warn_count(misformatted, "line is improperly formatted",
			           "lines are improperly formatted");
		}
		if (unreadable != 0) {
			warn_count(unreadable, "listed file could not be read",
			           "listed files could not be read");
		}
		if (mismatched != 0) {
			warn_count(mismatched, "computed checksum did NOT match",
			           "computed checksums did NOT match");
		}
		if (attacks != 0) {
			warn_count(attacks, "listed file contains a SHA-1 collision attack",
			           "listed files contain a SHA-1 collision attack");
		}
		if (st->ignore_missing && !verified) {
			sk_error(0, "%s: no file was verified", sk_quote(display));
		}
	}
	return properly_formatted && mismatched == 0 && unreadable == 0 && attacks == 0 &&
	       (!st->strict || misformatted == 0) && (!st->ignore_missing || verified);
}

/* ------------------------------------------------------------------------------------------------ */
/* Command line                                                                                     */
/* ------------------------------------------------------------------------------------------------ */

static void parse_options(struct sum_state *st, int argc, char **argv)
{
	bool safe_hash = false, reduced_round = false;
	int c;

	struct option gnu_options[GNU_OPTIONS + 1];
	const struct option *options = sum_options;
	bool sha256_link;
	if (sk_alias(&sha256_link)) {
		memcpy(gnu_options, sum_options, GNU_OPTIONS * sizeof(*gnu_options));
		memset(&gnu_options[GNU_OPTIONS], 0, sizeof(gnu_options[0]));
		options = gnu_options;
		st->hash.sha256 = sha256_link;
	}
	optind = 0; /* full re-initialisation of getopt (GNU) */
	while ((c = getopt_long(argc, argv, "bctwz", options, NULL)) != -1) {
		switch (c) {
		case 'b':
			st->binary = 1;
			break;
		case 'c':
			st->check = true;
			break;
		case 't':
			st->binary = 0;
			break;
		case 'z':
			st->zero = true;
			break;
		case 'w': /* --warn, --quiet and --status exclude each other: the last one counts */
			st->warn = true;
			st->quiet = st->status_only = false;
			break;
		case OPT_QUIET:
			st->quiet = true;
			st->warn = st->status_only = false;
			break;
		case OPT_STATUS:
			st->status_only = true;
			st->warn = st->quiet = false;
			break;
		case OPT_STRICT:
			st->strict = true;
			break;
		case OPT_IGNORE_MISSING:
			st->ignore_missing = true;
			break;
		case OPT_TAG:
			st->tag = true;
			st->binary = 1;
			break;
		case OPT_SAFE_HASH:
			safe_hash = true;
			break;
		case OPT_FAST:
			st->hash.fast = true;
			break;
		case OPT_REDUCED_ROUND:
			reduced_round = true;
			break;
		case OPT_SHA256:
			st->hash.sha256 = true;
			break;
		case OPT_HELP:
			sum_usage();
			exit(sk_finish_sha1sum(SK_EXIT_OK, false));
		case OPT_VERSION:
			sk_print_version();
			exit(sk_finish_sha1sum(SK_EXIT_OK, false));
		default:
			sk_usage_error(SUM_CMD, NULL);
		}
	}

	/* The checks and their order are sha1sum's, so the same first complaint is reported. */
	if (st->tag && st->binary == 0) {
		sk_usage_error(SUM_CMD, "--tag does not support --text mode");
	}
	if (st->zero && st->check) {
		sk_usage_error(SUM_CMD, "the --zero option is not supported when verifying checksums");
	}
	if (st->tag && st->check) {
		sk_usage_error(SUM_CMD, "the --tag option is meaningless when verifying checksums");
	}
	if (st->binary >= 0 && st->check) {
		sk_usage_error(SUM_CMD,
		               "the --binary and --text options are meaningless when verifying checksums");
	}
	const char *check_only = NULL;
	if (st->ignore_missing) {
		check_only = "--ignore-missing";
	} else if (st->status_only) {
		check_only = "--status";
	} else if (st->warn) {
		check_only = "--warn";
	} else if (st->quiet) {
		check_only = "--quiet";
	} else if (st->strict) {
		check_only = "--strict";
	}
	if (check_only != NULL && !st->check) {
		sk_usage_error(SUM_CMD, "the %s option is meaningful only when verifying checksums",
		               check_only);
	}
	if ((st->hash.fast || st->hash.sha256) && (safe_hash || reduced_round)) {
		sk_usage_error(SUM_CMD, "%s (no collision detection) cannot be combined with %s",
		               st->hash.sha256 ? "--sha256" : "--fast",
		               safe_hash ? "--safe-hash" : "--reduced-round");
	}
	if (st->hash.sha256 && st->hash.fast) {
		sk_usage_error(
		    SUM_CMD, "--sha256 cannot be combined with --fast (SHA-256 has no collision detection)");
	}
	st->hex_len = 2 * (st->hash.sha256 ? SHA1KIT_SHA256_DIGEST_SIZE : SHA1KIT_DIGEST_SIZE);
	st->tag_name = st->hash.sha256 ? "SHA256" : "SHA1";
	st->hash.dc.safe_hash = safe_hash;
	st->hash.dc.reduced_round = reduced_round;
}

int sk_cmd_sum(int argc, char **argv)
{
	struct sum_state st;
	memset(&st, 0, sizeof(st));
	sha1kit_dc_options_default(&st.hash.dc);
	st.binary = -1;
	st.layout = -1;

	/* GNU sha1sum writes each line as it ends (one write per "\n"; with -z one at the end), its
	 * --help and --version too: a failed write is then seen before the end, and its "write
	 * error" has no errno, as GNU's */
	setvbuf(stdout, NULL, _IOLBF, BUFSIZ);
	parse_options(&st, argc, argv);

	static char dash[] = "-";
	static char *stdin_only[] = {dash, NULL};
	char **files = optind < argc ? argv + optind : stdin_only;
	for (; *files != NULL; files++) {
		if (st.check) {
			if (!check_file(&st, *files)) {
				st.status |= SK_EXIT_FAILURE;
			}
		} else {
			sum_one(&st, *files);
		}
	}
	return sk_finish_sha1sum(st.status, st.read_stdin);
}
