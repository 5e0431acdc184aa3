/*
 * fsck_object.c - git fsck's per-object checks and the link parsers (fsck_object.h).
 *
 * Behaviour follows Git v2.39.5 (fsck.h/fsck.c, builtin/fsck.c, tree-walk.c, commit.c, tag.c,
 * path.c, utf8.c, refs.c, date.c); the code is written from those facts, not taken from Git.
 * Conventions used throughout: an object is data[0..len); byte(d, len, i) reads it as git's
 * C-string functions see it, with a NUL byte at len and beyond (git keeps a NUL after every object
 * buffer), so scans stop where git's stop and never read out of bounds.
 */
#include "fsck_object.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h" /* skg_config_parse_blob: git's config parser, for .gitmodules blobs */
#include "util.h"   /* git's ctype, the null ID */

/* ---------------------------------------------------------------------------------------------
 * Message table */

struct msg_info {
	const char *name;
	uint8_t severity;
};

#define SKG_FSCK_MSG_INFO_(id, name, sev) {name, SKG_FSCK_##sev},
static const struct msg_info msg_table[SKG_FSCK_MSG_COUNT] = {SKG_FSCK_FOREACH_MSG(SKG_FSCK_MSG_INFO_)};
#undef SKG_FSCK_MSG_INFO_

const char *skg_fsck_msg_name(enum skg_fsck_msg msg)
{
	return (unsigned)msg < SKG_FSCK_MSG_COUNT ? msg_table[msg].name : NULL;
}

enum skg_fsck_severity skg_fsck_msg_default_severity(enum skg_fsck_msg msg)
{
	return (unsigned)msg < SKG_FSCK_MSG_COUNT ? (enum skg_fsck_severity)msg_table[msg].severity
	                                          : SKG_FSCK_IGNORE;
}

static unsigned ascii_lower(unsigned c)
{
	return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

int skg_fsck_msg_from_name(const char *name, size_t len)
{
	for (int m = 0; m < SKG_FSCK_MSG_COUNT; m++) {
		const char *n = msg_table[m].name;
		size_t i = 0;
		while (i < len && n[i] != '\0' &&
		       ascii_lower((unsigned char)name[i]) == ascii_lower((unsigned char)n[i]))
			i++;
		if (i == len && n[i] == '\0')
			return m;
	}
	return -1;
}

void skg_fsck_options_init(struct skg_fsck_options *opt, bool strict)
{
	for (int m = 0; m < SKG_FSCK_MSG_COUNT; m++) {
		uint8_t sev = msg_table[m].severity;
		opt->severity[m] = strict && sev == SKG_FSCK_WARN ? SKG_FSCK_ERROR : sev;
	}
	opt->strict = strict;
	opt->warnings_fail = false;
	opt->date_digits = false;
	opt->newer_checks = false;
	opt->max_tree_entry_len = 4096; /* fsck.c max_tree_entry_len */
	opt->rawsz = SKG_RAWSZ;
	opt->found = NULL;
}

bool skg_fsck_msg_is_newer(enum skg_fsck_msg msg)
{
	return msg == SKG_FSCK_BAD_GPGSIG || msg == SKG_FSCK_BAD_HEADER_CONTINUATION ||
	       msg == SKG_FSCK_LARGE_PATHNAME;
}

/* git_parse_ssize_t (config.c git_parse_signed): decimal with an optional k, m or g (any case),
 * the whole string; false when it does not parse or overflows. */
static bool parse_ssize(const char *s, int64_t *out)
{
	if (*s == '\0') {
		return false;
	}
	errno = 0;
	char *end;
	intmax_t v = strtoimax(s, &end, 0);
	if (errno == ERANGE) {
		return false;
	}
	int64_t factor = 1;
	if (*end == 'k' || *end == 'K') {
		factor = 1024;
	} else if (*end == 'm' || *end == 'M') {
		factor = 1024 * 1024;
	} else if (*end == 'g' || *end == 'G') {
		factor = 1024 * 1024 * 1024;
	}
	if (factor != 1) {
		end++;
	}
	if (*end != '\0' || v > INT64_MAX / factor || v < -INT64_MAX / factor) {
		return false;
	}
	*out = (int64_t)v * factor;
	return true;
}

bool skg_fsck_severity_from_name(const char *name, enum skg_fsck_severity *sev)
{
	if (strcmp(name, "error") == 0)
		*sev = SKG_FSCK_ERROR;
	else if (strcmp(name, "warn") == 0)
		*sev = SKG_FSCK_WARN;
	else if (strcmp(name, "ignore") == 0)
		*sev = SKG_FSCK_IGNORE;
	else
		return false;
	return true;
}

enum skg_fsck_set_result skg_fsck_set_severity(struct skg_fsck_options *opt, const char *id,
                                               const char *value)
{
	enum skg_fsck_severity sev;
	int m = id != NULL ? skg_fsck_msg_from_name(id, strlen(id)) : -1;
	if (m >= 0 && skg_fsck_msg_is_newer((enum skg_fsck_msg)m) && !opt->newer_checks) {
		m = -1; /* an ID of git 2.43+ / 2.52+ */
	}
	/* git 2.55's fsck_set_msg_type looks at the ID first (2.39.5: the value first) */
	if (m < 0 && opt->newer_checks)
		return SKG_FSCK_SET_UNKNOWN_ID;
	/* git 2.43+: "largePathname=TYPE:N" also sets the limit, before TYPE is read */
	char type[16];
	const char *colon = value != NULL ? strchr(value, ':') : NULL;
	bool type_part = false;
	if (m == SKG_FSCK_LARGE_PATHNAME && colon != NULL) {
		if (!parse_ssize(colon + 1, &opt->max_tree_entry_len))
			return SKG_FSCK_SET_BAD_LENGTH;
		size_t tl = (size_t)(colon - value);
		if (tl >= sizeof(type))
			return SKG_FSCK_SET_BAD_TYPE_PART;
		memcpy(type, value, tl);
		type[tl] = '\0';
		value = type;
		type_part = true;
	}
	if (value == NULL || !skg_fsck_severity_from_name(value, &sev))
		return type_part ? SKG_FSCK_SET_BAD_TYPE_PART : SKG_FSCK_SET_BAD_VALUE;
	if (m < 0)
		return SKG_FSCK_SET_UNKNOWN_ID;
	if (sev != SKG_FSCK_ERROR && msg_table[m].severity == SKG_FSCK_FATAL)
		return SKG_FSCK_SET_CANNOT_DEMOTE;
	opt->severity[m] = (uint8_t)sev;
	return SKG_FSCK_SET_OK;
}

static size_t fmt_result(int n)
{
	return n < 0 ? 0 : (size_t)n;
}

size_t skg_fsck_set_error_format(char *buf, size_t n, enum skg_fsck_set_result err, const char *id,
                                 const char *value)
{
	const char *v = value != NULL ? value : "(null)";
	const char *i = id != NULL ? id : "(null)";
	switch (err) {
	case SKG_FSCK_SET_BAD_VALUE:
		return fmt_result(snprintf(buf, n, "Unknown fsck message type: '%s'", v));
	case SKG_FSCK_SET_UNKNOWN_ID:
		return fmt_result(snprintf(buf, n, "Unhandled message id: %s", i));
	case SKG_FSCK_SET_CANNOT_DEMOTE:
		return fmt_result(snprintf(buf, n, "Cannot demote %s to %s", i, v));
	case SKG_FSCK_SET_BAD_TYPE_PART: {
		size_t tl = value != NULL ? strcspn(value, ":") : 6;
		return fmt_result(snprintf(buf, n, "Unknown fsck message type: '%.*s'", (int)tl, v));
	}
	case SKG_FSCK_SET_BAD_LENGTH: {
		const char *colon = value != NULL ? strchr(value, ':') : NULL;
		return fmt_result(snprintf(buf, n, "unable to parse max tree entry len: %s",
		                           colon != NULL ? colon + 1 : v));
	}
	case SKG_FSCK_SET_OK:
		break;
	}
	return fmt_result(snprintf(buf, n, "%s", ""));
}

size_t skg_fsck_format(char *buf, size_t n, const struct skg_fsck_finding *f)
{
	char hex[SKG_MAX_HEXSZ + 1];
	const char *type = skg_type_name(f->type);
	const char *name = skg_fsck_msg_name(f->msg);
	skg_to_hex_len(f->id, f->rawsz == SKG_MAX_RAWSZ ? SKG_MAX_RAWSZ : SKG_RAWSZ, hex);
	int len =
	    snprintf(buf, n, "%s in %s %s: %s: %s%.*s", f->severity == SKG_FSCK_WARN ? "warning" : "error",
	             type != NULL ? type : "unknown", hex, name != NULL ? name : "", f->detail,
	             f->arg != NULL ? (int)f->arg_len : 0, f->arg != NULL ? f->arg : "");
	return fmt_result(len);
}

/* ---------------------------------------------------------------------------------------------
 * Reporting: git's report() maps the configured severity to what it prints and counts errors. */

struct checker {
	const struct skg_fsck_options *opt;
	skg_fsck_report_fn report;
	void *ctx;
	unsigned type;
	const uint8_t *id;
	size_t rawsz; /* bytes of an object ID: opt's format */
};

/* Returns 1 for a finding that counts as an error, 0 for a warning or an ignored message. */
static int report_full(const struct checker *c, enum skg_fsck_msg msg, const char *detail, const char *arg,
                       size_t arg_len, const char *cause)
{
	unsigned sev = c->opt->severity[msg];
	if (sev == SKG_FSCK_IGNORE && cause == NULL)
		return 0;
	/* an ignored finding with a cause still goes out: git prints the cause regardless */
	if (sev != SKG_FSCK_IGNORE)
		sev = sev == SKG_FSCK_WARN || sev == SKG_FSCK_INFO ? SKG_FSCK_WARN : SKG_FSCK_ERROR;
	if (c->report != NULL) {
		struct skg_fsck_finding f = {
		    .type = c->type,
		    .id = c->id,
		    .rawsz = c->rawsz,
		    .msg = msg,
		    .severity = (enum skg_fsck_severity)sev,
		    .detail = detail,
		    .arg = arg,
		    .arg_len = arg_len,
		    .cause = cause,
		};
		c->report(c->ctx, &f);
	}
	return sev == SKG_FSCK_ERROR || (sev == SKG_FSCK_WARN && c->opt->warnings_fail);
}

static int report(const struct checker *c, enum skg_fsck_msg msg, const char *detail)
{
	return report_full(c, msg, detail, NULL, 0, NULL);
}

/* ---------------------------------------------------------------------------------------------
 * Byte-level helpers shared by the checks and the link parsers. */

static unsigned byte(const uint8_t *d, size_t len, size_t i)
{
	return i < len ? d[i] : 0;
}

/* git's skip_prefix on the object seen as a C string. */
static bool has_prefix(const uint8_t *d, size_t len, size_t pos, const char *lit)
{
	for (size_t i = 0; lit[i] != '\0'; i++) {
		if (byte(d, len, pos + i) != (unsigned char)lit[i])
			return false;
	}
	return true;
}

/* 2 * rawsz hex digits (either case) at pos, all inside the object (git's parse_oid_hex with the
 * repository's hash algorithm). */
static bool hex_at(const uint8_t *d, size_t len, size_t pos, size_t rawsz, uint8_t *out)
{
	if (pos > len || len - pos < 2 * rawsz)
		return false;
	return skg_from_hex_len((const char *)d + pos, rawsz, out);
}

/* Index of the first '\n' from pos, or of the first NUL byte (len if none): git's strchrnul. */
static size_t line_end(const uint8_t *d, size_t len, size_t pos)
{
	while (byte(d, len, pos) != 0 && byte(d, len, pos) != '\n')
		pos++;
	return pos;
}

/* isspace of the C locale, which git keeps for LC_CTYPE. */
static bool is_space(unsigned c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/*
 * strtoumax(p, &end, 10) of the C library: leading white space, an optional sign, decimal digits;
 * on overflow the maximum; a minus sign negates modulo 2^64; no digits: value 0 and end = p.
 */
static size_t parse_decimal(const uint8_t *d, size_t len, size_t p, uint64_t *value)
{
	size_t s = p;
	bool negative = false;
	while (is_space(byte(d, len, s)))
		s++;
	if (byte(d, len, s) == '+' || byte(d, len, s) == '-') {
		negative = byte(d, len, s) == '-';
		s++;
	}
	if (!skg_isdigit(byte(d, len, s))) {
		*value = 0;
		return p;
	}
	uint64_t v = 0;
	bool overflow = false;
	for (; skg_isdigit(byte(d, len, s)); s++) {
		unsigned digit = byte(d, len, s) - '0';
		if (v > (UINT64_MAX - digit) / 10)
			overflow = true;
		else
			v = v * 10 + digit;
	}
	*value = overflow ? UINT64_MAX : negative ? (uint64_t)0 - v : v;
	return s;
}

/*
 * git's date_overflows with a 64-bit signed time_t (x86-64, arm64 Linux): the timestamp does not
 * fit a positive time_t, i.e. it is 2^63 or more.
 */
static bool date_overflows(uint64_t t)
{
	return t >= (UINT64_C(1) << 63);
}

/* ---------------------------------------------------------------------------------------------
 * Headers of commits and tags */

static int verify_headers(const struct checker *c, const uint8_t *d, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (d[i] == 0) {
			char detail[64];
			snprintf(detail, sizeof(detail), "unterminated header: NUL at offset %zu", i);
			return report(c, SKG_FSCK_NUL_IN_HEADER, detail);
		}
		if (d[i] == '\n' && i + 1 < len && d[i + 1] == '\n')
			return 0;
	}
	if (len > 0 && d[len - 1] == '\n')
		return 0;
	return report(c, SKG_FSCK_UNTERMINATED_HEADER, "unterminated header");
}

/* Index of the first byte from p that is NUL, '<', '>' or '\n' (git's strcspn(p, "<>\n")). */
static size_t ident_span(const uint8_t *d, size_t len, size_t p)
{
	for (;;) {
		unsigned ch = byte(d, len, p);
		if (ch == 0 || ch == '<' || ch == '>' || ch == '\n')
			return p;
		p++;
	}
}

/*
 * An author/committer/tagger line "Name <email> <timestamp> <+-hhmm>" from *pos (after the
 * keyword); *pos moves to the next line whatever the outcome. The first problem is reported.
 */
static int check_ident(const struct checker *c, const uint8_t *d, size_t len, size_t *pos)
{
	size_t p = *pos;
	size_t eol = line_end(d, len, p);
	*pos = byte(d, len, eol) == '\n' ? eol + 1 : eol;

	if (byte(d, len, p) == '<')
		return report(c, SKG_FSCK_MISSING_NAME_BEFORE_EMAIL,
		              "invalid author/committer line - missing space before email");
	p = ident_span(d, len, p);
	if (byte(d, len, p) == '>')
		return report(c, SKG_FSCK_BAD_NAME, "invalid author/committer line - bad name");
	if (byte(d, len, p) != '<')
		return report(c, SKG_FSCK_MISSING_EMAIL, "invalid author/committer line - missing email");
	if (byte(d, len, p - 1) != ' ')
		return report(c, SKG_FSCK_MISSING_SPACE_BEFORE_EMAIL,
		              "invalid author/committer line - missing space before email");
	p = ident_span(d, len, p + 1);
	if (byte(d, len, p) != '>')
		return report(c, SKG_FSCK_BAD_EMAIL, "invalid author/committer line - bad email");
	p++;
	if (byte(d, len, p) != ' ')
		return report(c, SKG_FSCK_MISSING_SPACE_BEFORE_DATE,
		              "invalid author/committer line - missing space before date");
	p++;
	if (c->opt->date_digits) {
		/* git 2.40+: its own scan, blanks and tabs but not newlines, then a digit */
		while (byte(d, len, p) == ' ' || byte(d, len, p) == '\t')
			p++;
		if (!skg_isdigit(byte(d, len, p)))
			return report(c, SKG_FSCK_BAD_DATE, "invalid author/committer line - bad date");
	}
	if (byte(d, len, p) == '0' && byte(d, len, p + 1) != ' ')
		return report(c, SKG_FSCK_ZERO_PADDED_DATE,
		              "invalid author/committer line - zero-padded date");
	uint64_t when;
	size_t end = parse_decimal(d, len, p, &when);
	if (date_overflows(when))
		return report(c, SKG_FSCK_BAD_DATE_OVERFLOW,
		              "invalid author/committer line - date causes integer overflow");
	if (end == p || byte(d, len, end) != ' ')
		return report(c, SKG_FSCK_BAD_DATE, "invalid author/committer line - bad date");
	p = end + 1;
	unsigned sign = byte(d, len, p);
	if ((sign != '+' && sign != '-') || !skg_isdigit(byte(d, len, p + 1)) ||
	    !skg_isdigit(byte(d, len, p + 2)) || !skg_isdigit(byte(d, len, p + 3)) ||
	    !skg_isdigit(byte(d, len, p + 4)) || byte(d, len, p + 5) != '\n')
		return report(c, SKG_FSCK_BAD_TIMEZONE, "invalid author/committer line - bad time zone");
	return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Commits */

static int check_commit(const struct checker *c, const uint8_t *d, size_t len)
{
	uint8_t oid[SKG_MAX_RAWSZ];
	const size_t hexsz = 2 * c->rawsz;
	size_t p;
	int err;

	if (verify_headers(c, d, len))
		return -1;
	if (!has_prefix(d, len, 0, "tree "))
		return report(c, SKG_FSCK_MISSING_TREE, "invalid format - expected 'tree' line");
	p = 5;
	bool hex_ok = hex_at(d, len, p, c->rawsz, oid);
	if (!hex_ok || byte(d, len, p + hexsz) != '\n') {
		err = report(c, SKG_FSCK_BAD_TREE_SHA1, "invalid 'tree' line format - bad sha1");
		if (err || !hex_ok)
			return err;
	}
	p += hexsz + 1;
	while (has_prefix(d, len, p, "parent ")) {
		p += 7;
		hex_ok = hex_at(d, len, p, c->rawsz, oid);
		if (!hex_ok || byte(d, len, p + hexsz) != '\n') {
			err = report(c, SKG_FSCK_BAD_PARENT_SHA1, "invalid 'parent' line format - bad sha1");
			if (err || !hex_ok)
				return err;
		}
		p += hexsz + 1;
	}
	unsigned authors = 0;
	err = 0;
	while (has_prefix(d, len, p, "author ")) {
		p += 7;
		authors++;
		err = check_ident(c, d, len, &p);
		if (err)
			return err;
	}
	if (authors < 1)
		err = report(c, SKG_FSCK_MISSING_AUTHOR, "invalid format - expected 'author' line");
	else if (authors > 1)
		err = report(c, SKG_FSCK_MULTIPLE_AUTHORS, "invalid format - multiple 'author' lines");
	if (err)
		return err;
	if (!has_prefix(d, len, p, "committer "))
		return report(c, SKG_FSCK_MISSING_COMMITTER, "invalid format - expected 'committer' line");
	p += 10;
	err = check_ident(c, d, len, &p);
	if (err)
		return err;
	if (len > 0 && memchr(d, 0, len) != NULL) {
		err = report(c, SKG_FSCK_NUL_IN_COMMIT, "NUL byte in the commit object body");
		if (err)
			return err;
	}
	return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Tags */

/*
 * One component of a ref name, name[0..len) (no '/' inside): check_refname_component of refs.c
 * without a refspec pattern. Returns false for an empty component, one that starts with '.',
 * ends with ".lock", or contains "..", "@{", a control character or DEL, or one of " :?[\^~*".
 */
static bool refname_component_ok(const unsigned char *name, size_t len)
{
	unsigned last = 0;
	if (len == 0 || name[0] == '.')
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned ch = name[i];
		if (ch < 0x20 || ch == 0x7f || strchr(" :?[\\^~*", (int)ch) != NULL)
			return false;
		if ((ch == '.' && last == '.') || (ch == '{' && last == '@'))
			return false;
		last = ch;
	}
	return !(len >= 5 && memcmp(name + len - 5, ".lock", 5) == 0);
}

/* check_refname_format("refs/tags/" + name, 0) == 0; name[0..len) has no NUL byte. */
static bool tag_refname_ok(const unsigned char *name, size_t len)
{
	size_t start = 0;
	for (;;) {
		const unsigned char *slash = memchr(name + start, '/', len - start);
		size_t end = slash != NULL ? (size_t)(slash - name) : len;
		if (!refname_component_ok(name + start, end - start))
			return false;
		if (slash == NULL)
			break;
		start = end + 1;
	}
	return name[len - 1] != '.'; /* len >= 1 here: an empty name fails above */
}

/* The first '\n' from pos before any NUL byte (git's strchr(p, '\n')), or SIZE_MAX. */
static size_t find_newline(const uint8_t *d, size_t len, size_t pos)
{
	size_t e = line_end(d, len, pos);
	return byte(d, len, e) == '\n' ? e : SIZE_MAX;
}

static unsigned type_of_text(const uint8_t *s, size_t n)
{
	for (unsigned t = SKG_COMMIT; t <= SKG_TAG; t++) {
		const char *name = skg_type_name(t);
		if (strlen(name) == n && memcmp(name, s, n) == 0)
			return t;
	}
	return SKG_NONE;
}

static int check_tag(const struct checker *c, const uint8_t *d, size_t len)
{
	uint8_t oid[SKG_MAX_RAWSZ];
	const size_t hexsz = 2 * c->rawsz;
	size_t p, eol;
	int ret = verify_headers(c, d, len);
	if (ret)
		return ret;
	if (!has_prefix(d, len, 0, "object "))
		return report(c, SKG_FSCK_MISSING_OBJECT, "invalid format - expected 'object' line");
	p = 7;
	bool hex_ok = hex_at(d, len, p, c->rawsz, oid);
	if (!hex_ok || byte(d, len, p + hexsz) != '\n') {
		ret = report(c, SKG_FSCK_BAD_OBJECT_SHA1, "invalid 'object' line format - bad sha1");
		if (ret || !hex_ok)
			return ret;
	}
	p += hexsz + 1;

	if (!has_prefix(d, len, p, "type "))
		return report(c, SKG_FSCK_MISSING_TYPE_ENTRY, "invalid format - expected 'type' line");
	p += 5;
	eol = find_newline(d, len, p);
	if (eol == SIZE_MAX)
		return report(c, SKG_FSCK_MISSING_TYPE, "invalid format - unexpected end after 'type' line");
	if (type_of_text(d + p, eol - p) == SKG_NONE)
		ret = report(c, SKG_FSCK_BAD_TYPE, "invalid 'type' value");
	if (ret)
		return ret;
	p = eol + 1;

	if (!has_prefix(d, len, p, "tag "))
		return report(c, SKG_FSCK_MISSING_TAG_ENTRY, "invalid format - expected 'tag' line");
	p += 4;
	eol = find_newline(d, len, p);
	if (eol == SIZE_MAX) /* git words it so */
		return report(c, SKG_FSCK_MISSING_TAG, "invalid format - unexpected end after 'type' line");
	if (!tag_refname_ok(d + p, eol - p)) {
		ret = report_full(c, SKG_FSCK_BAD_TAG_NAME, "invalid 'tag' name: ", (const char *)d + p,
		                  eol - p, NULL);
		if (ret)
			return ret;
	}
	p = eol + 1;

	if (!has_prefix(d, len, p, "tagger ")) {
		/* old tags have no tagger */
		ret = report(c, SKG_FSCK_MISSING_TAGGER_ENTRY, "invalid format - expected 'tagger' line");
		if (ret)
			return ret;
	} else {
		p += 7;
		ret = check_ident(c, d, len, &p);
	}
	/* git 2.52+: a signature header after the tagger, and its continuation lines */
	bool gpgsig = has_prefix(d, len, p, "gpgsig ");
	if (c->opt->newer_checks && (gpgsig || has_prefix(d, len, p, "gpgsig-sha256 "))) {
		p += gpgsig ? 7 : 14;
		eol = find_newline(d, len, p);
		if (eol == SIZE_MAX)
			return report(
			    c, SKG_FSCK_BAD_GPGSIG,
			    "invalid format - unexpected end after 'gpgsig' or 'gpgsig-sha256' line");
		p = eol + 1;
		while (p < len && d[p] == ' ') {
			eol = find_newline(d, len, p);
			if (eol == SIZE_MAX)
				return report(
				    c, SKG_FSCK_BAD_HEADER_CONTINUATION,
				    "invalid format - unexpected end in 'gpgsig' or 'gpgsig-sha256' "
				    "continuation line");
			p = eol + 1;
		}
	}
	if (byte(d, len, p) == 0)
		return ret;
	if (byte(d, len, p) != '\n') {
		/* git replaces an error of the tagger line by this result */
		ret =
		    report(c, SKG_FSCK_EXTRA_HEADER_ENTRY, "invalid format - extra header(s) after 'tagger'");
	}
	return ret;
}

/* ---------------------------------------------------------------------------------------------
 * Names git protects: HFS+ (utf8.c) and NTFS (path.c) spellings of .git, .gitmodules, ... */

/*
 * Decode one UTF-8 character at *s (NUL-terminated; a NUL byte is the character 0 and is
 * consumed). Malformed, overlong, surrogate, U+FFFE/U+FFFF or above U+10FFFF: *s = NULL, 0.
 */
static uint32_t utf8_next(const char **sp)
{
	const unsigned char *s = (const unsigned char *)*sp;
	uint32_t ch;
	size_t n;
	if (s[0] < 0x80) {
		ch = s[0];
		n = 1;
	} else if ((s[0] & 0xe0) == 0xc0) {
		if ((s[1] & 0xc0) != 0x80 || (s[0] & 0xfe) == 0xc0)
			goto invalid;
		ch = (uint32_t)(s[0] & 0x1f) << 6 | (s[1] & 0x3f);
		n = 2;
	} else if ((s[0] & 0xf0) == 0xe0) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 ||
		    (s[0] == 0xe0 && (s[1] & 0xe0) == 0x80) || (s[0] == 0xed && (s[1] & 0xe0) == 0xa0) ||
		    (s[0] == 0xef && s[1] == 0xbf && (s[2] & 0xfe) == 0xbe))
			goto invalid;
		ch = (uint32_t)(s[0] & 0x0f) << 12 | (uint32_t)(s[1] & 0x3f) << 6 | (s[2] & 0x3f);
		n = 3;
	} else if ((s[0] & 0xf8) == 0xf0) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80 ||
		    (s[0] == 0xf0 && (s[1] & 0xf0) == 0x80) || (s[0] == 0xf4 && s[1] > 0x8f) || s[0] > 0xf4)
			goto invalid;
		ch = (uint32_t)(s[0] & 0x07) << 18 | (uint32_t)(s[1] & 0x3f) << 12 |
		     (uint32_t)(s[2] & 0x3f) << 6 | (s[3] & 0x3f);
		n = 4;
	} else {
		goto invalid;
	}
	*sp += n;
	return ch;
invalid:
	*sp = NULL;
	return 0;
}

/* The next character HFS+ does not ignore; 0 at the end or on malformed UTF-8. */
static uint32_t hfs_next(const char **sp)
{
	for (;;) {
		uint32_t ch = utf8_next(sp);
		if (*sp == NULL)
			return 0;
		bool ignorable = (ch >= 0x200c && ch <= 0x200f) || (ch >= 0x202a && ch <= 0x202e) ||
		                 (ch >= 0x206a && ch <= 0x206f) || ch == 0xfeff;
		if (!ignorable)
			return ch;
	}
}

/* HFS+ would open name as "." + needle (ASCII, lowercase), maybe followed by "/". */
static bool is_hfs_dot(const char *name, const char *needle)
{
	uint32_t ch = hfs_next(&name);
	if (ch != '.')
		return false;
	for (; *needle != '\0'; needle++) {
		ch = hfs_next(&name);
		if (ch > 127 || ascii_lower(ch) != (unsigned char)*needle)
			return false;
	}
	ch = hfs_next(&name);
	return ch == 0 || ch == '/';
}

/* strncasecmp(a, b, n) == 0 in the C locale. */
static bool ascii_prefix_eq(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned ca = ascii_lower((unsigned char)a[i]), cb = ascii_lower((unsigned char)b[i]);
		if (ca != cb)
			return false;
		if (ca == 0)
			return true;
	}
	return true;
}

/* From name[i] on, only spaces and periods up to the end or a ':'. */
static bool ntfs_trailer_ok(const char *name, size_t i)
{
	for (;; i++) {
		char ch = name[i];
		if (ch == '\0' || ch == ':')
			return true;
		if (ch != ' ' && ch != '.')
			return false;
	}
}

/* NTFS would open name as .git (also "git~1"), with the trailers NTFS drops or a directory after. */
static bool is_ntfs_dotgit(const char *name)
{
	size_t i;
	if (name[0] == '.') {
		if (ascii_lower((unsigned char)name[1]) != 'g' ||
		    ascii_lower((unsigned char)name[2]) != 'i' || ascii_lower((unsigned char)name[3]) != 't')
			return false;
		i = 4;
	} else if (ascii_lower((unsigned char)name[0]) == 'g') {
		if (ascii_lower((unsigned char)name[1]) != 'i' ||
		    ascii_lower((unsigned char)name[2]) != 't' || name[3] != '~' || name[4] != '1')
			return false;
		i = 5;
	} else {
		return false;
	}
	for (;; i++) {
		char ch = name[i];
		if (ch == '\0' || ch == '/' || ch == '\\' || ch == ':')
			return true;
		if (ch != '.' && ch != ' ')
			return false;
	}
}

/*
 * NTFS would open name as "." + base, by its long name, its 8.3 short name (first six characters
 * of base + "~1".."~4") or the fall-back short name (`shortname`, six characters, + "~<digits>").
 */
static bool is_ntfs_dot(const char *name, const char *base, const char *shortname)
{
	size_t len = strlen(base);
	if (name[0] == '.' && ascii_prefix_eq(name + 1, base, len))
		return ntfs_trailer_ok(name, len + 1);
	if (ascii_prefix_eq(name, base, 6) && name[6] == '~' && name[7] >= '1' && name[7] <= '4')
		return ntfs_trailer_ok(name, 8);
	bool tilde = false;
	size_t i;
	for (i = 0; i < 8; i++) {
		unsigned char ch = (unsigned char)name[i];
		if (ch == '\0')
			return false;
		if (tilde) {
			if (!skg_isdigit(ch))
				return false;
		} else if (ch == '~') {
			i++;
			if (name[i] < '1' || name[i] > '9')
				return false;
			tilde = true;
		} else if (i >= 6 || (ch & 0x80) != 0 || ascii_lower(ch) != (unsigned char)shortname[i]) {
			return false;
		}
	}
	return ntfs_trailer_ok(name, i);
}

static bool is_dotgitmodules(const char *name)
{
	return is_hfs_dot(name, "gitmodules") || is_ntfs_dot(name, "gitmodules", "gi7eba");
}

static bool is_dotgitattributes(const char *name)
{
	return is_hfs_dot(name, "gitattributes") || is_ntfs_dot(name, "gitattributes", "gi7d29");
}

static bool is_dotgitignore(const char *name)
{
	return is_hfs_dot(name, "gitignore") || is_ntfs_dot(name, "gitignore", "gi250a");
}

static bool is_dotmailmap(const char *name)
{
	return is_hfs_dot(name, "mailmap") || is_ntfs_dot(name, "mailmap", "maba30");
}

/* ---------------------------------------------------------------------------------------------
 * Tree decoding */

#define MODE_FMT     0170000u
#define MODE_REG     0100000u
#define MODE_LNK     0120000u
#define MODE_DIR     0040000u
#define MODE_GITLINK 0160000u

static bool mode_is(uint32_t mode, uint32_t kind)
{
	return (mode & MODE_FMT) == kind;
}

const char *skg_tree_error_text(enum skg_tree_error err)
{
	switch (err) {
	case SKG_TREE_TOO_SHORT:
		return "too-short tree object";
	case SKG_TREE_BAD_MODE:
		return "malformed mode in tree entry";
	case SKG_TREE_EMPTY_NAME:
		return "empty filename in tree entry";
	case SKG_TREE_OK:
		break;
	}
	return NULL;
}

uint32_t skg_tree_canon_mode(uint32_t mode)
{
	if (mode_is(mode, MODE_REG))
		return MODE_REG | ((mode & 0100) ? 0755 : 0644);
	if (mode_is(mode, MODE_LNK))
		return MODE_LNK;
	if (mode_is(mode, MODE_DIR))
		return MODE_DIR;
	return MODE_GITLINK;
}

/* 0x80 in each byte of w that equals the byte in c (all bytes alike), 0 elsewhere: exact per byte,
 * as no carry crosses a byte (the high bit is kept out of the addition). */
static inline uint64_t bytes_equal(uint64_t w, uint64_t c)
{
	const uint64_t low7 = 0x7f7f7f7f7f7f7f7fULL;
	uint64_t x = w ^ c;
	return ~(((x & low7) + low7) | x | low7);
}

/* The bytes of a 64-bit word in memory order, whatever the machine's: a mask of the first n
 * (0..8), and the place of the first non-zero byte of x (x != 0). */
static inline uint64_t first_bytes(unsigned n)
{
	if (n == 0)
		return 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return ~0ULL << (8 * (8 - n)); /* the first bytes are the high ones */
#else
	return ~0ULL >> (8 * (8 - n));
#endif
}

static inline unsigned first_set_byte(uint64_t x)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return (unsigned)__builtin_clzll(x) / 8;
#else
	return (unsigned)__builtin_ctzll(x) / 8;
#endif
}

/*
 * The length of the NUL-terminated name at `name`, and which of '/' and '\\' it holds (SKG_TREE_SEP_*
 * in *seps), eight bytes at a time: strlen and then a byte loop over the name took 7% of a
 * one-thread fsck of git.git's pack. The word that holds the NUL may reach up to 7 bytes past it:
 * the caller has found a NUL followed by an ID of at least 20 bytes inside the tree, and the first
 * NUL of a name comes no later than that one.
 */
static size_t name_scan(const char *name, unsigned *seps)
{
	uint64_t slash = 0, backslash = 0;
	for (size_t k = 0;; k += 8) {
		uint64_t w;
		memcpy(&w, name + k, 8);
		uint64_t nul = bytes_equal(w, 0);
		uint64_t s = bytes_equal(w, 0x2f2f2f2f2f2f2f2fULL),
		         bs = bytes_equal(w, 0x5c5c5c5c5c5c5c5cULL);
		if (nul != 0) {
			/* the name's bytes in this word: those before the first NUL */
			unsigned j = first_set_byte(nul);
			uint64_t keep = first_bytes(j);
			slash |= s & keep;
			backslash |= bs & keep;
			*seps = (slash != 0 ? SKG_TREE_SEP_SLASH : 0) |
			        (backslash != 0 ? SKG_TREE_SEP_BACKSLASH : 0);
			return k + j;
		}
		slash |= s;
		backslash |= bs;
	}
}

/* Decode the entry at it->buf (it->size > 0 bytes to the end of the tree). */
static enum skg_tree_error tree_decode(struct skg_tree_iter *it)
{
	const uint8_t *b = it->buf;
	size_t size = it->size;
	/* The NUL of the last entry's name must be where its ID leaves it: this bounds every scan. */
	if (size < it->rawsz + 3 || b[size - (it->rawsz + 1)] != 0)
		return SKG_TREE_TOO_SHORT;
	if (b[0] == ' ')
		return SKG_TREE_BAD_MODE;
	uint32_t mode = 0;
	size_t i = 0;
	/* the modes of nearly every entry first (the loop's exit after 5 or 6 digits mispredicts) */
	if (memcmp(b, "100644 ", 7) == 0) {
		mode = 0100644;
		i = 7;
	} else if (memcmp(b, "40000 ", 6) == 0) {
		mode = 040000;
		i = 6;
	} else {
		for (;;) {
			uint8_t ch = b[i++];
			if (ch == ' ')
				break;
			if (ch < '0' || ch > '7')
				return SKG_TREE_BAD_MODE;
			mode = (mode << 3) + (uint32_t)(ch - '0');
		}
	}
	if (b[i] == 0)
		return SKG_TREE_EMPTY_NAME;
	const char *name = (const char *)b + i;
	size_t name_len = name_scan(name, &it->entry.seps);
	it->entry.mode = mode;
	it->entry.name = name;
	it->entry.name_len = name_len;
	it->entry.id = b + i + name_len + 1;
	it->entry.start = b;
	return SKG_TREE_OK;
}

enum skg_tree_error skg_tree_iter_init(struct skg_tree_iter *it, const uint8_t *data, size_t len,
                                       size_t rawsz)
{
	it->rawsz = rawsz;
	it->buf = data;
	it->size = len;
	it->error = SKG_TREE_OK;
	if (len > 0)
		it->error = tree_decode(it);
	if (it->error != SKG_TREE_OK)
		it->size = 0;
	return it->error;
}

enum skg_tree_error skg_tree_iter_advance(struct skg_tree_iter *it)
{
	if (it->size == 0)
		return it->error;
	const uint8_t *next = it->entry.id + it->rawsz;
	it->size -= (size_t)(next - it->buf);
	it->buf = next;
	if (it->size > 0)
		it->error = tree_decode(it);
	if (it->error != SKG_TREE_OK)
		it->size = 0;
	return it->error;
}

enum skg_tree_error skg_tree_links(const uint8_t *data, size_t len, size_t rawsz, skg_tree_link_fn cb,
                                   void *ctx)
{
	struct skg_tree_iter it;
	enum skg_tree_error err = skg_tree_iter_init(&it, data, len, rawsz);
	while (err == SKG_TREE_OK && it.size > 0) {
		struct skg_tree_entry cur = it.entry;
		err = skg_tree_iter_advance(&it);
		if (err == SKG_TREE_OK && cb != NULL)
			cb(ctx, skg_tree_canon_mode(cur.mode), cur.name, cur.name_len, cur.id);
	}
	return err;
}

/* ---------------------------------------------------------------------------------------------
 * Trees */

/*
 * Candidates for duplicates hidden by the implied '/' after directory names (git's
 * verify_ordered): file names that are a prefix of the next name, which goes on with a byte
 * below '/'. A fixed stack: past its capacity, new candidates are not kept (possible only in a
 * tree with more than DF_MAX such names pending at once).
 */
#define DF_MAX 1024

struct df_stack {
	const char *names[DF_MAX];
	size_t n;
};

static void df_push(struct df_stack *st, const char *name)
{
	if (st->n < DF_MAX)
		st->names[st->n++] = name;
}

static bool below_slash(unsigned c)
{
	return c != 0 && c < '/';
}

enum { ORDER_OK = 0, ORDER_UNSORTED = -1, ORDER_DUPLICATE = -2 };

static int verify_order(uint32_t mode1, const char *name1, size_t len1, uint32_t mode2, const char *name2,
                        size_t len2, struct df_stack *st)
{
	size_t len = len1 < len2 ? len1 : len2;
	/* Eight bytes at a time without a call to memcmp (names in a tree are short). The last word
	 * may reach up to 7 bytes past the shorter name, into its NUL and ID: masked off. */
	for (size_t k = 0; k < len; k += 8) {
		uint64_t w1, w2;
		memcpy(&w1, name1 + k, 8);
		memcpy(&w2, name2 + k, 8);
		uint64_t diff = w1 ^ w2;
		if (len - k < 8)
			diff &= first_bytes((unsigned)(len - k));
		if (diff != 0) {
			size_t j = k + first_set_byte(diff);
			return (unsigned char)name1[j] < (unsigned char)name2[j] ? ORDER_OK : ORDER_UNSORTED;
		}
	}
	unsigned c1 = (unsigned char)name1[len], c2 = (unsigned char)name2[len];
	if (c1 == 0 && c2 == 0)
		return ORDER_DUPLICATE;
	if (c1 == 0 && mode_is(mode1, MODE_DIR))
		c1 = '/';
	if (c2 == 0 && mode_is(mode2, MODE_DIR))
		c2 = '/';
	if (c1 == 0 && below_slash(c2)) {
		df_push(st, name1);
	} else if (c2 == '/' && below_slash(c1)) {
		while (st->n > 0) {
			const char *f = st->names[--st->n];
			size_t flen = strlen(f);
			if (strncmp(name2, f, flen) != 0)
				continue;
			unsigned next = (unsigned char)name2[flen];
			if (next == 0)
				return ORDER_DUPLICATE;
			if (below_slash(next)) {
				df_push(st, f);
				break;
			}
		}
	}
	return c1 < c2 ? ORDER_OK : ORDER_UNSORTED;
}

static void found(const struct checker *c, enum skg_fsck_special kind, const uint8_t *id)
{
	if (c->opt->found != NULL)
		c->opt->found(c->ctx, kind, id);
}

static int check_tree(const struct checker *c, const uint8_t *d, size_t len, skg_tree_link_fn link,
                      void *link_ctx, enum skg_tree_error *walk_error)
{
	int retval = 0;
	bool null_sha1 = false, full_path = false, empty_name = false, dot = false, dotdot = false;
	bool dotgit = false, zero_pad = false, bad_modes = false, dups = false, unsorted = false;
	bool large_name = false;
	struct skg_tree_iter it;
	struct df_stack st;
	st.n = 0;

	enum skg_tree_error err = skg_tree_iter_init(&it, d, len, c->rawsz);
	*walk_error = err;
	if (err != SKG_TREE_OK)
		return report_full(c, SKG_FSCK_BAD_TREE, "cannot be parsed as a tree", NULL, 0,
		                   skg_tree_error_text(err));

	uint32_t o_mode = 0;
	const char *o_name = NULL;
	size_t o_len = 0;
	while (it.size > 0) {
		const struct skg_tree_entry e = it.entry;
		uint32_t mode = (uint16_t)e.mode; /* git keeps 16 bits of the mode here */
		const char *name = e.name;
		const size_t name_len = e.name_len;
		/* git 2.43+: tree_entry_len(&desc.entry) > max_tree_entry_len */
		large_name |= c->opt->newer_checks && (int64_t)name_len > c->opt->max_tree_entry_len;
		/*
		 * Only a name that starts with '.', 'g', 'm' (either case), '~' or a non-ASCII byte (an
		 * HFS+ ignorable code point) can be one of the protected names below: the HFS+ forms
		 * start with '.' after ignorables, the NTFS long forms with '.', the 8.3 forms with the
		 * first letter of the name ("git~1", "gitmod~1", "gi7eba~1", "maba30~1") or, as git's
		 * is_ntfs_dot_generic accepts, a '~' right away.
		 */
		const unsigned first = (unsigned char)name[0];
		const bool special = first == '.' || first == '~' || first >= 0x80 ||
		                     ascii_lower(first) == 'g' || ascii_lower(first) == 'm';

		null_sha1 |= skg_is_null_id_len(e.id, c->rawsz);
		const bool backslash = (e.seps & SKG_TREE_SEP_BACKSLASH) != 0;
		full_path |= (e.seps & SKG_TREE_SEP_SLASH) != 0;
		empty_name |= name_len == 0;
		if (first == '.') {
			dot |= name_len == 1;
			dotdot |= name_len == 2 && name[1] == '.';
		}
		zero_pad |= e.start[0] == '0';

		if (special) {
			dotgit |= is_hfs_dot(name, "git") || is_ntfs_dotgit(name);
		}
		if (special && is_dotgitmodules(name)) {
			if (!mode_is(mode, MODE_LNK))
				found(c, SKG_FSCK_GITMODULES, e.id);
			else
				retval +=
				    report(c, SKG_FSCK_GITMODULES_SYMLINK, ".gitmodules is a symbolic link");
		}
		if (special && is_dotgitattributes(name)) {
			if (!mode_is(mode, MODE_LNK))
				found(c, SKG_FSCK_GITATTRIBUTES, e.id);
			else
				retval +=
				    report(c, SKG_FSCK_GITATTRIBUTES_SYMLINK, ".gitattributes is a symlink");
		}
		if (special && mode_is(mode, MODE_LNK)) {
			if (is_dotgitignore(name))
				retval += report(c, SKG_FSCK_GITIGNORE_SYMLINK, ".gitignore is a symlink");
			if (is_dotmailmap(name))
				retval += report(c, SKG_FSCK_MAILMAP_SYMLINK, ".mailmap is a symlink");
		}
		/* Backslashes separate directories on NTFS: check what follows each one. */
		for (const char *bs = backslash ? memchr(name, '\\', name_len) : NULL; bs != NULL;
		     bs = strchr(bs, '\\')) {
			bs++;
			dotgit |= is_ntfs_dotgit(bs);
			if (is_ntfs_dot(bs, "gitmodules", "gi7eba")) {
				if (!mode_is(mode, MODE_LNK))
					found(c, SKG_FSCK_GITMODULES, e.id);
				else
					retval += report(c, SKG_FSCK_GITMODULES_SYMLINK,
					                 ".gitmodules is a symbolic link");
			}
		}

		err = skg_tree_iter_advance(&it);
		if (err != SKG_TREE_OK) {
			*walk_error = err;
			retval += report_full(c, SKG_FSCK_BAD_TREE, "cannot be parsed as a tree", NULL, 0,
			                      skg_tree_error_text(err));
			break;
		}
		/* as skg_tree_links: an entry is a link once the one after it decodes */
		if (link != NULL)
			link(link_ctx, skg_tree_canon_mode(e.mode), name, name_len, e.id);

		switch (mode) {
		case MODE_REG | 0755:
		case MODE_REG | 0644:
		case MODE_LNK:
		case MODE_DIR:
		case MODE_GITLINK:
			break;
		case MODE_REG | 0664: /* early git wrote these: accepted unless strict */
			if (!c->opt->strict)
				break;
			/* fall through */
		default:
			bad_modes = true;
		}

		if (o_name != NULL) {
			int order = verify_order(o_mode, o_name, o_len, mode, name, name_len, &st);
			if (order == ORDER_UNSORTED)
				unsorted = true;
			else if (order == ORDER_DUPLICATE)
				dups = true;
		}
		o_mode = mode;
		o_name = name;
		o_len = name_len;
	}

	if (null_sha1)
		retval += report(c, SKG_FSCK_NULL_SHA1, "contains entries pointing to null sha1");
	if (full_path)
		retval += report(c, SKG_FSCK_FULL_PATHNAME, "contains full pathnames");
	if (empty_name)
		retval += report(c, SKG_FSCK_EMPTY_NAME, "contains empty pathname");
	if (dot)
		retval += report(c, SKG_FSCK_HAS_DOT, "contains '.'");
	if (dotdot)
		retval += report(c, SKG_FSCK_HAS_DOTDOT, "contains '..'");
	if (dotgit)
		retval += report(c, SKG_FSCK_HAS_DOTGIT, "contains '.git'");
	if (zero_pad)
		retval += report(c, SKG_FSCK_ZERO_PADDED_FILEMODE, "contains zero-padded file modes");
	if (bad_modes)
		retval += report(c, SKG_FSCK_BAD_FILEMODE, "contains bad file modes");
	if (dups)
		retval += report(c, SKG_FSCK_DUPLICATE_ENTRIES, "contains duplicate file entries");
	if (unsorted)
		retval += report(c, SKG_FSCK_TREE_NOT_SORTED, "not properly sorted");
	if (large_name)
		retval += report(c, SKG_FSCK_LARGE_PATHNAME, "contains excessively large pathname");
	return retval;
}

/* ---------------------------------------------------------------------------------------------
 * Entry points */

static size_t opt_rawsz(const struct skg_fsck_options *opt)
{
	return opt->rawsz == SKG_MAX_RAWSZ ? SKG_MAX_RAWSZ : SKG_RAWSZ;
}

int skg_fsck_object(unsigned type, const uint8_t id[SKG_RAWSZ], const uint8_t *data, size_t len,
                    const struct skg_fsck_options *opt, skg_fsck_report_fn report_fn, void *ctx)
{
	struct checker c = {
	    .opt = opt, .report = report_fn, .ctx = ctx, .type = type, .id = id, .rawsz = opt_rawsz(opt)};
	static const uint8_t empty[1] = {0};
	int ret;
	if (data == NULL) {
		data = empty;
		len = 0;
	}
	switch (type) {
	case SKG_BLOB:
		ret = 0;
		break;
	case SKG_TREE: {
		enum skg_tree_error walk_error;
		ret = check_tree(&c, data, len, NULL, NULL, &walk_error);
		break;
	}
	case SKG_COMMIT:
		ret = check_commit(&c, data, len);
		break;
	case SKG_TAG:
		ret = check_tag(&c, data, len);
		break;
	default: {
		char detail[64];
		snprintf(detail, sizeof(detail), "unknown type '%d' (internal fsck error)", (int)type);
		ret = report(&c, SKG_FSCK_UNKNOWN_TYPE, detail);
		break;
	}
	}
	return ret != 0 ? -1 : 0;
}

int skg_fsck_tree(const uint8_t id[SKG_RAWSZ], const uint8_t *data, size_t len,
                  const struct skg_fsck_options *opt, skg_fsck_report_fn report_fn, void *ctx,
                  skg_tree_link_fn link, void *link_ctx, enum skg_tree_error *walk_error)
{
	struct checker c = {
	    .opt = opt, .report = report_fn, .ctx = ctx, .type = SKG_TREE, .id = id, .rawsz = opt_rawsz(opt)};
	static const uint8_t empty[1] = {0};
	if (data == NULL) {
		data = empty;
		len = 0;
	}
	return check_tree(&c, data, len, link, link_ctx, walk_error) != 0 ? -1 : 0;
}

/* ---------------------------------------------------------------------------------------------
 * .gitmodules content (git 2.39.5 fsck.c fsck_gitmodules_fn, check_submodule_url; submodule-config.c
 * check_submodule_name; submodule.c parse_submodule_update_type; url.c url_decode_mem; credential.c
 * credential_from_url_gently; path.c looks_like_command_line_option, path_match_flags). */

static bool is_xplatform_dir_sep(unsigned c)
{
	return c == '/' || c == '\\';
}

/* check_submodule_name: empty, or ".." as a component (separated by '/' or '\\'). */
static bool submodule_name_ok(const char *name, size_t len)
{
	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (i > 0 && !is_xplatform_dir_sep((unsigned char)name[i - 1]))
			continue;
		if (len - i >= 2 && name[i] == '.' && name[i + 1] == '.' &&
		    (len - i == 2 || is_xplatform_dir_sep((unsigned char)name[i + 2])))
			return false;
	}
	return true;
}

/*
 * Whether url_decode_mem(s, len) contains a line feed: the part before the first ':' (if not at
 * the start) is copied as it is, the rest %-decoded (a "%XY" of two hex digits with a non-zero
 * value becomes that byte; anything else stays), up to a NUL byte.
 */
static bool url_decode_has_lf(const char *s, size_t len)
{
	const char *colon = memchr(s, ':', len);
	size_t i = 0;
	if (colon != NULL && colon > s) {
		i = (size_t)(colon - s);
		if (memchr(s, '\n', i) != NULL)
			return true;
	}
	while (i < len && s[i] != '\0') {
		if (s[i] == '%' && len - i >= 3) {
			int hi = skg_hexval(s[i + 1]), lo = skg_hexval(s[i + 2]); /* git's hexval */
			if (hi >= 0 && lo >= 0 && (hi << 4 | lo) != 0) {
				if ((hi << 4 | lo) == '\n')
					return true;
				i += 3;
				continue;
			}
		}
		if (s[i] == '\n')
			return true;
		i++;
	}
	return false;
}

/* path_match_flags(url, STARTS_WITH_DOT_SLASH or _DOT_DOT_SLASH | XPLATFORM): "./", "../", "\\". */
static size_t dot_slash_len(const char *url)
{
	if (url[0] != '.')
		return 0;
	if (is_xplatform_dir_sep((unsigned char)url[1]))
		return 2;
	if (url[1] == '.' && is_xplatform_dir_sep((unsigned char)url[2]))
		return 3;
	return 0;
}

/*
 * credential_from_url_gently(url, quiet) == 0 && *host (fsck's test of a URL git-remote-curl would
 * get): a "://" not at the start; after it [user[:password]@]host up to the first '/', '?' or '#';
 * no line feed in the protocol, or after url_decode_mem in user, password, host or path; a
 * non-empty host.
 */
static bool curl_url_ok(const char *url)
{
	const char *proto_end = strstr(url, "://");
	if (proto_end == NULL || proto_end == url)
		return false;
	const char *cp = proto_end + 3;
	const char *at = strchr(cp, '@');
	const char *colon = strchr(cp, ':');
	const char *slash = cp + strcspn(cp, "/?#");
	const char *host = cp;
	if (at != NULL && at < slash) {
		if (colon == NULL || at <= colon) {
			if (url_decode_has_lf(cp, (size_t)(at - cp)))
				return false; /* user name */
		} else {
			if (url_decode_has_lf(cp, (size_t)(colon - cp)) ||
			    url_decode_has_lf(colon + 1, (size_t)(at - (colon + 1))))
				return false; /* user name, password */
		}
		host = at + 1;
	}
	if (memchr(url, '\n', (size_t)(proto_end - url)) != NULL)
		return false; /* protocol */
	if (url_decode_has_lf(host, (size_t)(slash - host)))
		return false;
	const char *path = slash;
	while (*path == '/')
		path++;
	if (*path != '\0' && url_decode_has_lf(path, strlen(path)))
		return false;
	return slash > host;
}

/* ---- git 2.44+'s url_normalize (urlmatch.c url_normalize_1, without globs), RFC 3986 ---------- */

#define URL_ALPHA        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
#define URL_DIGIT        "0123456789"
#define URL_SCHEME_CHARS URL_ALPHA URL_DIGIT "+.-"
#define URL_HOST_CHARS   URL_ALPHA URL_DIGIT ".-_[:]" /* IPv6 literals need [:] */
#define URL_UNSAFE_CHARS " <>\"%{}|\\^`"              /* plus 0x00-0x1F, 0x7F-0xFF */
#define URL_RESERVED     ":/?#[]@!$&'()*+,;="         /* the delimiters, kept escaped */

/* The normal form being built: at most 3 bytes per byte of the URL, and one '/' added. */
struct url_norm {
	char *p;
	size_t len;
};

static void norm_add(struct url_norm *n, char ch)
{
	n->p[n->len++] = ch;
}

/* git's hex2chr: the byte of two hex digits, or -1. */
static int hex_pair(const char *s)
{
	int hi = skg_hexval(s[0]);
	int lo = hi >= 0 ? skg_hexval(s[1]) : -1;
	return hi >= 0 && lo >= 0 ? hi << 4 | lo : -1;
}

/* append_normalized_escapes(buf, from, len, "", URL_RESERVED): %XX decoded unless the byte must
 * stay escaped (unsafe, or a delimiter that was escaped), unsafe bytes escaped, escapes in upper
 * case; false for a '%' without two hex digits. */
static bool norm_escapes(struct url_norm *n, const char *from, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";
	while (len > 0) {
		int ch = (unsigned char)*from++;
		bool was_esc = false;
		len--;
		if (ch == '%') {
			if (len < 2 || (ch = hex_pair(from)) < 0)
				return false;
			from += 2;
			len -= 2;
			was_esc = true;
		}
		if (ch <= 0x1f || ch >= 0x7f || strchr(URL_UNSAFE_CHARS, ch) != NULL ||
		    (was_esc && strchr(URL_RESERVED, ch) != NULL)) {
			norm_add(n, '%');
			norm_add(n, hex[ch >> 4]);
			norm_add(n, hex[ch & 15]);
		} else {
			norm_add(n, (char)ch);
		}
	}
	return true;
}

/*
 * url_normalize(url) into n (n->p has room for 3 * strlen(url) + 2 bytes): false where git's
 * returns NULL (a bad scheme or no "://", a bad %-escape, no host for a scheme other than file:,
 * a port on a file: URL, a host with other characters than URL_HOST_CHARS, a port that is not a
 * number in 1..65535, a ".." above the root of the path).
 */
static bool url_normalize_ok(const char *url, struct url_norm *n)
{
	size_t url_len = strlen(url);
	size_t spanned = strspn(url, URL_SCHEME_CHARS);
	if (spanned == 0 ||
	    !(ascii_lower((unsigned char)url[0]) >= 'a' && ascii_lower((unsigned char)url[0]) <= 'z') ||
	    spanned + 3 > url_len || url[spanned] != ':' || url[spanned + 1] != '/' ||
	    url[spanned + 2] != '/')
		return false;
	for (size_t i = 0; i < spanned + 3; i++)
		norm_add(n, (char)ascii_lower((unsigned char)url[i]));
	url += spanned + 3;
	/* user[:password]@ */
	const char *at = strchr(url, '@');
	const char *slash = url + strcspn(url, "/?#");
	if (at != NULL && at < slash) {
		if (at > url && !norm_escapes(n, url, (size_t)(at - url)))
			return false;
		norm_add(n, '@');
		url = at + 1;
	}
	/* the host, without %-escapes; file: may have none */
	bool has_host = false;
	if (*url == '\0' || strchr(":/?#", *url) != NULL) {
		if (n->len < 5 || memcmp(n->p, "file:", 5) != 0)
			return false;
	} else {
		has_host = true;
	}
	const char *colon = slash - 1;
	while (colon > url && *colon != ':' && *colon != ']')
		colon--;
	if (*colon != ':')
		colon = slash;
	else if (!has_host && colon < slash && colon + 1 != slash)
		return false; /* a file: URL with a port */
	if ((ptrdiff_t)strspn(url, URL_HOST_CHARS) < colon - url)
		return false;
	while (url < colon)
		norm_add(n, (char)ascii_lower((unsigned char)*url++));
	/* the port: leading zeros and the scheme's default dropped */
	if (colon < slash) {
		url++;
		url += strspn(url, "0");
		if (url == slash && url[-1] == '0')
			url--;
		bool http80 = slash - url == 2 && n->len >= 5 && memcmp(n->p, "http:", 5) == 0 &&
		              strncmp(url, "80", 2) == 0;
		bool https443 = slash - url == 3 && n->len >= 6 && memcmp(n->p, "https:", 6) == 0 &&
		                strncmp(url, "443", 3) == 0;
		if (url != slash && !http80 && !https443) {
			if ((ptrdiff_t)strspn(url, URL_DIGIT) < slash - url)
				return false;
			unsigned long port = slash - url <= 5 ? strtoul(url, NULL, 10) : 0;
			if (port == 0 || port > 65535)
				return false;
			norm_add(n, ':');
			while (url < slash)
				norm_add(n, *url++);
		}
		url = slash;
	}
	/* the path: '/' first, "." and ".." segments resolved, escapes normalized */
	size_t path_start = n->len;
	norm_add(n, '/');
	if (*url == '/')
		url++;
	for (;;) {
		size_t seg = n->len;
		const char *next = url + strcspn(url, "/?#");
		bool skip_slash = false;
		if (!norm_escapes(n, url, (size_t)(next - url)))
			return false;
		size_t seg_len = n->len - seg;
		if (seg_len == 1 && n->p[seg] == '.') {
			if (seg == path_start + 1) {
				n->len -= 1;
				skip_slash = true;
			} else {
				n->len -= 2;
			}
		} else if (seg_len == 2 && n->p[seg] == '.' && n->p[seg + 1] == '.') {
			size_t prev = n->len - 3;
			if (prev == path_start)
				return false; /* no segment to remove */
			while (n->p[--prev] != '/') {
			}
			if (prev == path_start) {
				n->len = prev + 1;
				skip_slash = true;
			} else {
				n->len = prev;
			}
		}
		url = next;
		if (*url != '/')
			break;
		url++;
		if (!skip_slash)
			norm_add(n, '/');
	}
	/* the query and fragment: escapes normalized */
	return *url == '\0' || norm_escapes(n, url, strlen(url));
}

/*
 * Git 2.44+'s test of a URL git-remote-curl would get (submodule-config.c check_submodule_url,
 * 8430b438f6 "submodule-config.c: strengthen URL fsck check"): url_normalize accepts it and its
 * normal form, %-decoded, has no line feed. A URL too long to hold in memory counts as refused.
 */
static bool curl_url_ok_244(const char *url)
{
	size_t len = strlen(url);
	struct url_norm n = {len < (SIZE_MAX - 3) / 3 ? malloc(3 * len + 3) : NULL, 0};
	if (n.p == NULL)
		return false;
	bool ok = url_normalize_ok(url, &n) && !url_decode_has_lf(n.p, n.len);
	free(n.p);
	return ok;
}

/*
 * check_submodule_url of git 2.39.5, and of 2.44+ with `newer` (curl_url_ok_244 for a
 * git-remote-curl URL instead of the credential parser's test). So 2.44 refuses
 * "http://example.com:test/foo.git" (bad port) and "https://ex%0aample.com:80/" (url_decode_mem
 * leaves the host's part before a ':' as it is, but the host may have no '%'), which 2.39 accepts.
 */
static bool submodule_url_ok(const char *url, bool newer)
{
	static const char *const curl_schemes[] = {"http", "https", "ftp", "ftps"};
	if (url[0] == '-')
		return false; /* looks_like_command_line_option */
	if (dot_slash_len(url) > 0 || strncmp(url, "git://", 6) == 0) {
		/* might be appended to an http URL and %-decoded */
		if (url_decode_has_lf(url, strlen(url)))
			return false;
		/* leading "../" that escape to the host part (CVE-2020-11008) */
		unsigned dotdots = 0;
		const char *next = url;
		for (size_t n; (n = dot_slash_len(next)) > 0; next += n)
			dotdots += n == 3;
		return !(dotdots > 0 && (*next == ':' || *next == '/'));
	}
	for (size_t i = 0; i < sizeof(curl_schemes) / sizeof(curl_schemes[0]); i++) {
		size_t n = strlen(curl_schemes[i]);
		if (strncmp(url, curl_schemes[i], n) != 0)
			continue;
		if (strncmp(url + n, "::", 2) == 0)
			return newer ? curl_url_ok_244(url + n + 2) : curl_url_ok(url + n + 2);
	}
	for (size_t i = 0; i < sizeof(curl_schemes) / sizeof(curl_schemes[0]); i++) {
		size_t n = strlen(curl_schemes[i]);
		if (strncmp(url, curl_schemes[i], n) == 0 && strncmp(url + n, "://", 3) == 0)
			return newer ? curl_url_ok_244(url) : curl_url_ok(url);
	}
	return true;
}

struct gitmodules_check {
	const struct checker *c;
	int ret;
};

static int report_arg(const struct checker *c, enum skg_fsck_msg msg, const char *detail, const char *arg,
                      size_t arg_len)
{
	return report_full(c, msg, detail, arg, arg_len, NULL);
}

/* fsck_gitmodules_fn: one entry of the blob; only submodule.<name>.<key> entries are looked at. */
static int gitmodules_entry(void *ctx, const char *key, const char *value)
{
	struct gitmodules_check *g = ctx;
	/* parse_config_key(key, "submodule", &name, &name_len, &item), with a subsection */
	if (strncmp(key, "submodule.", 10) != 0)
		return 0;
	const char *name = key + 10;
	const char *dot = strrchr(key, '.');
	if (dot < name)
		return 0;
	const char *item = dot + 1;
	size_t name_len = (size_t)(dot - name);

	if (!submodule_name_ok(name, name_len))
		g->ret |=
		    report_arg(g->c, SKG_FSCK_GITMODULES_NAME, "disallowed submodule name: ", name, name_len);
	if (strcmp(item, "url") == 0 && value != NULL && !submodule_url_ok(value, g->c->opt->newer_checks))
		g->ret |= report_arg(g->c, SKG_FSCK_GITMODULES_URL, "disallowed submodule url: ", value,
		                     strlen(value));
	if (strcmp(item, "path") == 0 && value != NULL && value[0] == '-')
		g->ret |= report_arg(g->c, SKG_FSCK_GITMODULES_PATH, "disallowed submodule path: ", value,
		                     strlen(value));
	/* parse_submodule_update_type == SM_UPDATE_COMMAND ("none" etc. do not start with '!') */
	if (strcmp(item, "update") == 0 && value != NULL && value[0] == '!')
		g->ret |= report_arg(g->c, SKG_FSCK_GITMODULES_UPDATE,
		                     "disallowed submodule update setting: ", value, strlen(value));
	return 0;
}

#define ATTR_MAX_FILE_SIZE   (100u * 1024 * 1024)
#define ATTR_MAX_LINE_LENGTH 2048

int skg_fsck_special_blob(unsigned kinds, const uint8_t id[SKG_RAWSZ], const uint8_t *data, size_t len,
                          const struct skg_fsck_options *opt, skg_fsck_report_fn report_fn, void *ctx)
{
	struct checker c = {
	    .opt = opt, .report = report_fn, .ctx = ctx, .type = SKG_BLOB, .id = id, .rawsz = opt_rawsz(opt)};
	int ret = 0;
	if (kinds & SKG_FSCK_GITMODULES) {
		if (data == NULL)
			return report(&c, SKG_FSCK_GITMODULES_LARGE, ".gitmodules too large to parse") ? -1
			                                                                               : 0;
		/* git_config_from_mem with errors silent: the entries before a bad line are checked */
		struct gitmodules_check g = {.c = &c, .ret = 0};
		struct skg_error err;
		if (skg_config_parse_blob((const char *)data, len, ".gitmodules", gitmodules_entry, &g,
		                          &err) != 0)
			g.ret |= report(&c, SKG_FSCK_GITMODULES_PARSE, "could not parse gitmodules blob");
		ret |= g.ret;
	}
	if (kinds & SKG_FSCK_GITATTRIBUTES) {
		if (data == NULL || len > ATTR_MAX_FILE_SIZE)
			return report(&c, SKG_FSCK_GITATTRIBUTES_LARGE, ".gitattributes too large to parse")
			           ? -1
			           : 0;
		size_t p = 0;
		while (byte(data, len, p) != 0) {
			size_t eol = line_end(data, len, p);
			if (eol - p >= ATTR_MAX_LINE_LENGTH) {
				ret |= report(&c, SKG_FSCK_GITATTRIBUTES_LINE_LENGTH,
				              ".gitattributes has too long lines to parse");
				break;
			}
			p = byte(data, len, eol) != 0 ? eol + 1 : eol;
		}
	}
	return ret ? -1 : 0;
}

int skg_fsck_special_unreadable(enum skg_fsck_special kind, unsigned found_type, const uint8_t id[SKG_RAWSZ],
                                const struct skg_fsck_options *opt, skg_fsck_report_fn report_fn, void *ctx)
{
	bool modules = kind == SKG_FSCK_GITMODULES;
	struct checker c = {.opt = opt,
	                    .report = report_fn,
	                    .ctx = ctx,
	                    .type = found_type,
	                    .id = id,
	                    .rawsz = opt_rawsz(opt)};
	if (found_type == SKG_BLOB)
		return 0;
	if (found_type == SKG_NONE) {
		c.type = SKG_BLOB;
		return report(&c, modules ? SKG_FSCK_GITMODULES_MISSING : SKG_FSCK_GITATTRIBUTES_MISSING,
		              modules ? "unable to read .gitmodules blob"
		                      : "unable to read .gitattributes blob")
		           ? -1
		           : 0;
	}
	return report(&c, modules ? SKG_FSCK_GITMODULES_BLOB : SKG_FSCK_GITATTRIBUTES_BLOB,
	              modules ? "non-blob found at .gitmodules" : "non-blob found at .gitattributes")
	           ? -1
	           : 0;
}

/* ---------------------------------------------------------------------------------------------
 * Commit and tag links (git's object parsers, which run before any check) */

enum skg_parse_result skg_commit_links(const uint8_t *data, size_t len, size_t rawsz, uint8_t *tree,
                                       void (*parent)(void *ctx, const uint8_t *id), void *ctx)
{
	const size_t tree_line = 5 + 2 * rawsz;   /* "tree " + hex, then '\n' */
	const size_t parent_line = 7 + 2 * rawsz; /* "parent " + hex, then '\n' */
	uint8_t id[SKG_MAX_RAWSZ];

	if (len <= tree_line + 1 || memcmp(data, "tree ", 5) != 0 || data[tree_line] != '\n')
		return SKG_PARSE_BOGUS_COMMIT;
	if (!hex_at(data, len, 5, rawsz, tree))
		return SKG_PARSE_BAD_TREE_POINTER;
	/* First pass: git fails the whole parse on a bad parent line. */
	size_t p = tree_line + 1;
	while (p + parent_line < len && memcmp(data + p, "parent ", 7) == 0) {
		if (len <= p + parent_line + 1 || !hex_at(data, len, p + 7, rawsz, id) ||
		    data[p + parent_line] != '\n')
			return SKG_PARSE_BAD_PARENTS;
		p += parent_line + 1;
	}
	if (parent != NULL) {
		for (size_t q = tree_line + 1; q < p; q += parent_line + 1) {
			hex_at(data, len, q + 7, rawsz, id);
			parent(ctx, id);
		}
	}
	return SKG_PARSE_OK;
}

enum skg_parse_result skg_tag_links(const uint8_t *data, size_t len, size_t rawsz, struct skg_tag_links *out)
{
	const size_t hexsz = 2 * rawsz;
	size_t p, eol;
	const uint8_t *nl;
	memset(out, 0, sizeof(*out));

	if (len < hexsz + 24)
		return SKG_PARSE_FAILED;
	if (memcmp(data, "object ", 7) != 0 || !hex_at(data, len, 7, rawsz, out->object) ||
	    data[7 + hexsz] != '\n')
		return SKG_PARSE_FAILED;
	p = 7 + hexsz + 1;
	if (!has_prefix(data, len, p, "type "))
		return SKG_PARSE_FAILED;
	p += 5;
	nl = memchr(data + p, '\n', len - p);
	if (nl == NULL || (size_t)(nl - (data + p)) >= 20)
		return SKG_PARSE_FAILED;
	eol = (size_t)(nl - data);
	/* git copies the text and compares it as a C string */
	const uint8_t *zero = memchr(data + p, 0, eol - p);
	out->type_name = (const char *)data + p;
	out->type_len = zero != NULL ? (size_t)(zero - (data + p)) : eol - p;
	out->type = type_of_text(data + p, out->type_len);
	if (out->type == SKG_NONE)
		return SKG_PARSE_UNKNOWN_TAG_TYPE;
	p = eol + 1;
	if (!(p + 4 < len && has_prefix(data, len, p, "tag ")))
		return SKG_PARSE_FAILED;
	p += 4;
	nl = memchr(data + p, '\n', len - p);
	if (nl == NULL)
		return SKG_PARSE_FAILED;
	out->tag = (const char *)data + p;
	out->tag_len = (size_t)(nl - (data + p));
	return SKG_PARSE_OK;
}

size_t skg_parse_error_format(char *buf, size_t n, enum skg_parse_result err, const uint8_t *id, size_t rawsz,
                              const struct skg_tag_links *tl)
{
	char hex[SKG_MAX_HEXSZ + 1];
	skg_to_hex_len(id, rawsz, hex);
	switch (err) {
	case SKG_PARSE_BOGUS_COMMIT:
		return fmt_result(snprintf(buf, n, "bogus commit object %s", hex));
	case SKG_PARSE_BAD_TREE_POINTER:
		return fmt_result(snprintf(buf, n, "bad tree pointer in commit %s", hex));
	case SKG_PARSE_BAD_PARENTS:
		return fmt_result(snprintf(buf, n, "bad parents in commit %s", hex));
	case SKG_PARSE_UNKNOWN_TAG_TYPE: {
		/* git's error() shows control characters other than tab and newline as '?' */
		char type[20];
		size_t tlen =
		    tl != NULL && tl->type_name != NULL && tl->type_len < sizeof(type) ? tl->type_len : 0;
		for (size_t i = 0; i < tlen; i++) {
			unsigned char ch = (unsigned char)tl->type_name[i];
			type[i] = (ch < 0x20 && ch != '\t' && ch != '\n') || ch == 0x7f ? '?' : (char)ch;
		}
		type[tlen] = '\0';
		return fmt_result(snprintf(buf, n, "unknown tag type '%s' in %s", type, hex));
	}
	case SKG_PARSE_OK:
	case SKG_PARSE_FAILED:
		break;
	}
	return fmt_result(snprintf(buf, n, "%s", ""));
}
