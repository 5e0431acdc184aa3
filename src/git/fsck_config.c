/*
 * fsck_config.c - the config of a repository check (fsck_run.h), as git 2.39.5's fsck reads it
 * (builtin/fsck.c fsck_config, fsck.c fsck_set_msg_types, oidset_parse_file): fsck.<msg-id>
 * severities, fsck.skipList files, advice.graftFileDeprecated. A value git dies on gives git's
 * fatal line. With --references (git 2.48+'s ref check), the message IDs git 2.55 added are known.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "fsck_run.h"
#include "refs_verify.h"

/* On the list sorted by read_skiplist: the C library's binary search with the sort's comparison. */
bool skg_fsck_skipped(const struct skg_fsck_run *f, const uint8_t *id)
{
	return f->nskip > 0 && bsearch(id, f->skip, f->nskip, f->rawsz, skg_id_cmp(f->rawsz)) != NULL;
}

/* fsck.skipList: one object ID a line; '#' comments and blank lines are skipped (git's
 * oidset_parse_file). A line that is not an ID is fatal, as in git. */
static int read_skiplist(struct skg_fsck_run *f, const char *path)
{
	char *data = NULL;
	size_t len = 0;
	if (skg_read_file(path, SIZE_MAX, &data, &len) != 0) {
		if (errno == ENOMEM) {
			skg_fsck_nomem(f);
			return -1;
		}
		skg_fsck_err_line(f, NULL, "fatal: could not open object name list: %s", path);
		return -1;
	}
	size_t cap = len / 41 + 1;
	uint8_t *v = realloc(f->skip, (f->nskip + cap) * f->rawsz);
	if (v == NULL) {
		free(data);
		skg_fsck_nomem(f);
		return -1;
	}
	f->skip = v;
	const char *line;
	size_t n, pos = 0;
	while (skg_next_list_line(data, len, &pos, &line, &n)) {
		if (n != (2 * f->rawsz) || !skg_from_hex_len(line, f->rawsz, f->skip + f->nskip * f->rawsz)) {
			skg_fsck_err_line(f, NULL, "fatal: invalid object name: %.*s", (int)n, line);
			free(data);
			return -1;
		}
		f->nskip++;
	}
	free(data);
	qsort(f->skip, f->nskip, f->rawsz, skg_id_cmp(f->rawsz));
	return 0;
}

int skg_fsck_on_config(void *ctx, const char *key, const char *value)
{
	struct skg_fsck_run *f = ctx;
	skg_fsck_promisor_config(f, key, value);
	if (strcmp(key, "fsck.skiplist") == 0) {
		if (value == NULL) {
			return 0;
		}
		struct skg_buf path = {0};
		skg_config_path(value, &path);
		if (path.failed) {
			skg_fsck_nomem(f);
			f->config_died = true;
			return -1;
		}
		int r = read_skiplist(f, skg_buf_str(&path));
		skg_buf_release(&path);
		if (r < 0) {
			f->config_died = true;
		}
		return r;
	}
	/* advice.* as git_default_advice_config reads them, core.commitGraph and core.multiPackIndex
	 * as repo-settings.c does (repo_cfg_bool): a bad boolean is git's fatal error */
	bool *no_hint = strcmp(key, "advice.graftfiledeprecated") == 0   ? &f->no_graft_hint
	                : strcmp(key, "advice.sparseindexexpanded") == 0 ? &f->no_sparse_hint
	                : strcmp(key, "core.commitgraph") == 0           ? &f->no_commit_graph
	                : strcmp(key, "core.multipackindex") == 0        ? &f->no_midx
	                                                                 : NULL;
	if (no_hint != NULL) {
		int b = skg_config_bool(value);
		if (b < 0) {
			skg_fsck_err_line(f, NULL, "fatal: bad boolean config value '%s' for '%s'", value,
			                  key);
			f->config_died = true;
			return -1;
		}
		*no_hint = b == 0;
		return 0;
	}
	if (strcmp(key, "core.bigfilethreshold") == 0) {
		/* git_default_core_config: git_config_ulong, fatal when it is no number (2.42+ name
		 * the file: the config reader's line; 2.39 does not) */
		int why = skg_config_ulong(value, &f->big_file);
		if (why != 0 && f->git_version < SKG_GIT_2_55) {
			skg_fsck_err_line(f, NULL, "fatal: bad numeric config value '%s' for '%s': %s",
			                  value != NULL ? value : "", key,
			                  why == SKG_CONFIG_BAD_RANGE ? "out of range" : "invalid unit");
			f->config_died = true;
			return -1;
		}
		return why;
	}
	if (strncmp(key, "fsck.", 5) == 0) {
		if (value == NULL) {
			/* git 2.55's config_error_nonbool, then its die over the config set (2.39 crashes
			 * here: fsck_set_msg_type reads the NULL value) */
			skg_fsck_err_line(f, NULL, "error: missing value for '%s'", key);
			return SKG_CONFIG_NONBOOL;
		}
		enum skg_fsck_set_result r = skg_fsck_set_severity(&f->fopt, key + 5, value);
		if (r == SKG_FSCK_SET_UNKNOWN_ID && (f->check_refs || f->git_version >= SKG_GIT_2_55) &&
		    skg_refs_msg_newer_id(key + 5)) {
			/* an ID of git 2.55's ref checks: fsck's own fsck_set_msg_type still reads the
			 * severity (and dies on a bad one before the ref check runs) */
			enum skg_fsck_severity sev;
			if (!skg_fsck_severity_from_name(value, &sev)) {
				skg_fsck_err_line(f, NULL, "fatal: Unknown fsck message type: '%s'", value);
				f->config_died = true;
				return -1;
			}
			return 0;
		}
		if (r != SKG_FSCK_SET_OK) {
			char msg[512];
			skg_fsck_set_error_format(msg, sizeof(msg), r, key + 5, value);
			skg_fsck_err_line(f, NULL, "fatal: %s", msg);
			f->config_died = true;
			return -1;
		}
	}
	return 0;
}
