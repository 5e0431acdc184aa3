/*
 * grafts.c - the graft file and the shallow file: the commits whose parents git replaces
 * (grafts.h).
 *
 * The rules follow git 2.39.5 (commit.c, shallow.c), checked by running git; the code is this
 * project's own.
 */
#include "grafts.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "repo.h"
#include "util.h"

/* ---- Grafts and shallow commits ---------------------------------------------------------------- */

static int cmp_graft_id(const void *key, const void *elem)
{
	return memcmp(key, ((const struct skg_graft *)elem)->id, SKG_MAX_RAWSZ);
}

const struct skg_graft *skg_graft_find(const struct skg_grafts *g, const uint8_t *id)
{
	if (g->n == 0) {
		return NULL;
	}
	uint8_t key[SKG_MAX_RAWSZ] = {0};
	memcpy(key, id, g->rawsz);
	return bsearch(key, g->v, g->n, sizeof(*g->v), cmp_graft_id);
}

void skg_grafts_free(struct skg_grafts *g)
{
	for (size_t i = 0; i < g->n; i++) {
		free(g->v[i].parents);
	}
	free(g->v);
	g->v = NULL;
	g->n = 0;
	free(g->file_ids);
	g->file_ids = NULL;
	g->n_file = 0;
}

/* git's register_commit_graft: insert in order; an existing one is kept (replace false: "duplicate
 * graft data") or replaced. Takes `parents`. Returns 1 for a kept duplicate, 0, -1 out of memory. */
static int graft_add(struct skg_grafts *g, size_t *cap, const uint8_t *id, uint8_t *parents, size_t nparents,
                     bool replace)
{
	size_t lo = 0, hi = g->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = memcmp(g->v[mid].id, id, g->rawsz);
		if (c == 0) {
			if (!replace) {
				free(parents);
				return 1;
			}
			free(g->v[mid].parents);
			g->v[mid].parents = parents;
			g->v[mid].nparents = nparents;
			g->v[mid].shallow = true; /* only the shallow file replaces */
			return 0;
		}
		if (c < 0) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	if (g->n == *cap) {
		size_t ncap = *cap ? 2 * *cap : 16;
		struct skg_graft *v = realloc(g->v, ncap * sizeof(*v));
		if (v == NULL) {
			free(parents);
			return -1;
		}
		g->v = v;
		*cap = ncap;
	}
	memmove(g->v + lo + 1, g->v + lo, (g->n - lo) * sizeof(*g->v));
	memset(g->v[lo].id, 0, sizeof(g->v[lo].id));
	memcpy(g->v[lo].id, id, g->rawsz);
	g->v[lo].parents = parents;
	g->v[lo].nparents = nparents;
	g->v[lo].shallow = replace;
	g->n++;
	return 0;
}

/* git's read_graft_line on one line (without its end of line): 0 and a graft, 1 to skip it, -1 bad. */
static int graft_line(const char *line, size_t rawsz, uint8_t *id, uint8_t **parents, size_t *nparents)
{
	size_t len = strlen(line);
	if (len == 0 || line[0] == '#') {
		return 1;
	}
	/* "COMMIT" then (blank "PARENT")...: hexsz + k * (hexsz + 1) bytes (40 and 41 for SHA-1) */
	size_t hexsz = 2 * rawsz;
	if (len < hexsz || (len - hexsz) % (hexsz + 1) != 0 || !skg_from_hex_len(line, rawsz, id)) {
		return -1;
	}
	size_t n = (len - hexsz) / (hexsz + 1);
	uint8_t *p = n > 0 ? malloc(n * rawsz) : NULL;
	if (n > 0 && p == NULL) {
		return -2;
	}
	for (size_t k = 0; k < n; k++) {
		const char *q = line + hexsz + k * (hexsz + 1);
		if (!skg_isspace((unsigned char)q[0]) || !skg_from_hex_len(q + 1, rawsz, p + k * rawsz)) {
			free(p);
			return -1;
		}
	}
	*parents = p;
	*nparents = n;
	return 0;
}

int skg_repo_grafts(const struct skg_repo *repo, unsigned hint_git, struct skg_grafts *out,
                    const struct skg_sink *rep, struct skg_error *err)
{
	/*
	 * advice.graftFileDeprecated (commit.c read_graft_file). Git 2.45 stopped writing a blank
	 * after an empty "hint:" (2d8cf94b28, advice.c), git 2.48 names `git config set`
	 * (6c397d0104); the rest is alike in 2.39.5 and 2.55.0.
	 */
	const bool new_hint = hint_git >= SKG_GIT_2_55;
	const char *const hint_lines[] = {
	    "hint: Support for <GIT_DIR>/info/grafts is deprecated",
	    "hint: and will be removed in a future Git version.",
	    new_hint ? "hint:" : "hint: ",
	    "hint: Please use \"git replace --convert-graft-file\"",
	    "hint: to convert the grafts into replace refs.",
	    new_hint ? "hint:" : "hint: ",
	    "hint: Turn this message off by running",
	    new_hint ? "hint: \"git config set advice.graftFileDeprecated false\""
	             : "hint: \"git config advice.graftFileDeprecated false\"",
	};
	size_t cap = 0;
	struct skg_buf path = {0};
	char *data = NULL;
	size_t len = 0;
	int rc = -1;
	out->v = NULL;
	out->n = 0;
	out->file_ids = NULL;
	out->n_file = 0;
	out->rawsz = skg_format_rawsz(repo->object_format);
	const char *env = getenv("GIT_GRAFT_FILE");
	if (env != NULL && *env != '\0') {
		skg_buf_adds(&path, env);
	} else {
		skg_buf_addf(&path, "%s/info/grafts", repo->common_dir);
	}
	if (skg_read_file(skg_buf_str(&path), (size_t)1 << 30, &data, &len) == 0) {
		if (hint_git != 0) {
			for (size_t i = 0; i < sizeof(hint_lines) / sizeof(hint_lines[0]); i++) {
				skg_report(rep, SKG_LEVEL_PLAIN, SKG_R_GRAFT_DEPRECATED, "%s", hint_lines[i]);
			}
		}
		for (char *line = data; line < data + len;) {
			char *eol = memchr(line, '\n', (size_t)(data + len - line));
			char *next = eol != NULL ? eol + 1 : data + len;
			if (eol == NULL) {
				eol = data + len;
			}
			*eol = '\0';
			/* strbuf_getline drops a CR before the LF, strbuf_rtrim trailing blanks */
			char *end = eol;
			while (end > line && skg_isspace((unsigned char)end[-1])) {
				*--end = '\0';
			}
			uint8_t id[SKG_MAX_RAWSZ], *parents = NULL;
			size_t n = 0;
			int st = graft_line(line, out->rawsz, id, &parents, &n);
			if (st == -2) {
				skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
				goto out;
			}
			if (st < 0) {
				skg_report(rep, SKG_LEVEL_ERROR, SKG_R_GRAFT_BAD, "bad graft data: %s", line);
			} else if (st == 0) {
				int a = graft_add(out, &cap, id, parents, n, false);
				uint8_t *ids =
				    a == 0 ? realloc(out->file_ids, (out->n_file + 1) * out->rawsz) : NULL;
				if (a < 0 || (a == 0 && ids == NULL)) {
					skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
					goto out;
				}
				if (a == 0) {
					out->file_ids = ids;
					memcpy(ids + out->n_file++ * out->rawsz, id, out->rawsz);
				}
				if (a > 0) {
					skg_report(rep, SKG_LEVEL_ERROR, SKG_R_GRAFT_BAD,
					           "duplicate graft data: %s", line);
				}
			}
			line = next;
		}
	}
	free(data);
	data = NULL;
	skg_buf_setlen(&path, 0);
	skg_buf_addf(&path, "%s/shallow", repo->common_dir);
	if (skg_read_file(skg_buf_str(&path), (size_t)1 << 30, &data, &len) == 0) {
		for (char *line = data; line < data + len;) {
			char *eol = memchr(line, '\n', (size_t)(data + len - line));
			char *next = eol != NULL ? eol + 1 : data + len;
			uint8_t id[SKG_MAX_RAWSZ];
			/* get_oid_hex: the first 40 (SHA-256: 64) characters are hex digits, whatever
			 * follows */
			if ((size_t)(data + len - line) < 2 * out->rawsz ||
			    !skg_from_hex_len(line, out->rawsz, id)) {
				/* git's message keeps the line's newline (fgets), before die's own */
				skg_fail(err, "bad shallow line: %.*s", (int)(next - line), line);
				goto out;
			}
			if (graft_add(out, &cap, id, NULL, 0, true) < 0) {
				skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
				goto out;
			}
			line = next;
		}
	}
	rc = 0;
out:
	free(data);
	skg_buf_release(&path);
	if (rc != 0) {
		skg_grafts_free(out);
	}
	return rc;
}
