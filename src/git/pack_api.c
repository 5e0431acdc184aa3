/*
 * pack_api.c - the public pack API of <sha1kit/git_pack.h> over the pack engine (pack.h):
 * indexing a pack held in memory, writing, verifying and comparing its idx and its reverse index (.rev,
 * pack_rev.c), and the streaming indexer that receives a pack in pieces (git's builtin/index-pack.c
 * --stdin: the pack written to objects/pack/tmp_pack_XXXXXX, then renamed to pack-<checksum>.pack
 * with its .rev and .idx).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include <sha1kit.h>
#include <sha1kit/git_pack.h>

#include "config.h"
#include "pack.h"
#include "pack_collide.h"
#include "pack_file.h"
#include "pack_rev.h"
#include "pack_strict.h"
#include "pack_thin.h"
#include "repo.h"
#include "util.h"

struct skg_pack {
	struct skg_pk_pack p;
	struct skg_collide *collide; /* inside a repository: its copies of the pack's objects */
	struct skg_strict *strict;   /* the checks of a strict index, for skg_pack_strict_finish */
};

/* git's `strict` (WRITE_IDX_STRICT): --strict and --check-self-contained-and-connected. */
static bool idx_strict(const struct skg_index_options *opt)
{
	return opt->strict || opt->check_connected;
}

/* The engine's object callback: git's sha1_object, the collision check first, then --strict's. */
static int pack_object(void *ctx, uint32_t i, unsigned type, const uint8_t *data, uint64_t len)
{
	struct skg_pack *pack = ctx;
	if (pack->collide != NULL && skg_collide_object(pack->collide, i, type, data, len) != 0) {
		return 1;
	}
	return pack->strict != NULL ? skg_strict_object(pack->strict, i, type, data, len) : 0;
}

void skg_index_options_default(struct skg_index_options *opt)
{
	struct skg_pk_options po;
	skg_pk_options_default(&po);
	memset(opt, 0, sizeof(*opt));
	opt->threads = po.threads;
	opt->cache_limit = po.cache_limit;
	opt->idx_version = 2;
	opt->off32_limit = SKG_PK_IDX_OFF32_LIMIT;
	opt->fix_thin_level = 1; /* environment.c zlib_compression_level = Z_BEST_SPEED */
	opt->rev_index = true;   /* git 2.41+: WRITE_REV before the config (a8dd7e05b1) */
	opt->git_version = SKG_GIT_2_55;
	opt->object_format = SKG_FORMAT_SHA1;
}

/* ---- The config of git's index-pack --------------------------------------------------------- */

struct index_config {
	unsigned version, threads;
	bool has_version, has_threads;
	int zlevel; /* zlib_compression_level (--fix-thin's appended objects) */
	bool has_zlevel, loose_seen;
	int rev;        /* pack.writeReverseIndex: -1 not set, else 0 or 1 (the last one) */
	int stop;       /* 1: pack.indexVersion above 2, 2: pack.threads below 0, 3: a bad boolean,
	                 * 4: out of memory, 5: a bad zlib level */
	int bad;        /* the value that stopped it */
	char *bad_bool; /* stop 3: the value (owned) */
};

/* builtin/index-pack.c git_index_pack_config, and the one key of git_default_config (config.c)
 * whose value index-pack uses. */
static int index_config_cb(void *ctx, const char *key, const char *value)
{
	struct index_config *c = ctx;
	int v, why;
	if (strcmp(key, "pack.indexversion") == 0) {
		if ((why = skg_config_int_why(value, &v)) != 0) {
			return why;
		}
		c->version = (unsigned)v; /* git keeps it in a uint32_t: -1 is 4294967295 */
		c->has_version = true;
		if (c->version > 2) {
			c->stop = 1;
			return 1;
		}
	} else if (strcmp(key, "pack.threads") == 0) {
		if ((why = skg_config_int_why(value, &v)) != 0) {
			return why;
		}
		if (v < 0) {
			c->stop = 2;
			c->bad = v;
			return 1;
		}
		c->threads = (unsigned)v;
		c->has_threads = true;
	} else if (strcmp(key, "core.compression") == 0 || strcmp(key, "core.loosecompression") == 0) {
		/* config.c git_default_core_config: -1 is zlib's default; core.loosecompression sets
		 * zlib_compression_level, core.compression too unless core.loosecompression came first */
		bool loose = key[5] == 'l';
		if ((why = skg_config_int_why(value, &v)) != 0) {
			return why;
		}
		if (v == -1) {
			v = Z_DEFAULT_COMPRESSION;
		} else if (v < 0 || v > Z_BEST_COMPRESSION) {
			c->stop = 5;
			c->bad = v;
			return 1;
		}
		if (loose || !c->loose_seen) {
			c->zlevel = v;
			c->has_zlevel = true;
		}
		c->loose_seen = c->loose_seen || loose;
	} else if (strcmp(key, "pack.writereverseindex") == 0) {
		/* git_config_bool: a value that is no boolean is fatal */
		int b = skg_config_bool(value);
		if (b < 0) {
			c->bad_bool = strdup(value);
			c->stop = c->bad_bool != NULL ? 3 : 4;
			return 1;
		}
		c->rev = b;
	} else if (strcmp(key, "core.bigfilethreshold") == 0) {
		return skg_config_ulong_why(value);
	}
	return 0;
}

int skg_index_read_config(const struct skg_repo *repo, struct skg_index_options *opt, unsigned *threads,
                          struct skg_error *err)
{
	SKG_ERR_OR_LOCAL(err);
	struct index_config c = {0};
	c.rev = -1;
	/* outside a repository git reads the system and global files and GIT_CONFIG_COUNT's */
	static const struct skg_config_files none = {0};
	int rc = repo != NULL ? skg_repo_config(repo, index_config_cb, &c, err)
	                      : skg_config_read_all(&none, index_config_cb, &c, err);
	if (c.stop == 3) {
		skg_fail(err, "bad boolean config value '%s' for 'pack.writereverseindex'", c.bad_bool);
		free(c.bad_bool);
		return -1;
	}
	if (c.stop == 4) {
		return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	if (rc < 0) {
		return -1;
	}
	if (c.stop == 1) {
		return skg_fail(err, "bad pack.indexVersion=%u", c.version);
	}
	if (c.stop == 2) {
		return skg_fail(err, "invalid number of threads specified (%d)", c.bad);
	}
	if (c.stop == 5) {
		return skg_fail(err, "bad zlib compression level %d", c.bad);
	}
	if (c.has_zlevel) {
		opt->fix_thin_level = c.zlevel;
	}
	if (c.has_version) {
		/* pack-write.c write_idx_file: a version below 2 has no header, i.e. version 1 */
		opt->idx_version = c.version < 2 ? 1 : c.version;
	}
	if (c.has_threads && threads != NULL) {
		*threads = c.threads;
	}
	if (c.rev >= 0) {
		opt->rev_index = c.rev != 0;
	}
	return 0;
}

/* The pack engine's error as the layer's. */
static int from_pk(struct skg_error *err, const struct skg_pk_error *pe)
{
	skg_fail_sys(err, pe->code, 0, "%s", pe->msg);
	if (err != NULL) {
		err->has_offset = pe->has_offset;
		err->offset = pe->offset;
	}
	return -1;
}

/* Progress of the engine's two phases under git's titles. */
static void on_progress(void *ctx, enum skg_pk_phase phase, uint64_t done, uint64_t total)
{
	const struct skg_progress *p = ctx;
	p->fn(p->ctx, phase == SKG_PK_PHASE_INDEXING ? "Indexing objects" : "Resolving deltas", done, total);
}

/* After the indexing: the repository's store is not read again; the strict links. 0, or -1 with
 * err (the pack freed, *out cleared by the caller). */
static int index_finish(struct skg_pack *pack, struct skg_error *err)
{
	skg_collide_free(pack->collide);
	pack->collide = NULL;
	if (pack->strict != NULL && skg_strict_links(pack->strict, err) != 0) {
		return -1;
	}
	return 0;
}

/* The engine's error pe where git's index-pack dies on the same fault in its second pass (a delta
 * that does not apply, deltas left unresolved: pe->git_fatal): git's "error:" line to the sink,
 * then SKG_E_GIT with git's message; else the engine's error. */
static int engine_error(const struct skg_sink *sink, const struct skg_pk_error *pe, struct skg_error *err)
{
	if (pe->code != SKG_E_CORRUPT || pe->git_fatal[0] == '\0') {
		return from_pk(err, pe);
	}
	if (pe->git_error != NULL) {
		skg_report(sink, SKG_LEVEL_ERROR, 0, "%s", pe->git_error);
	}
	return skg_fail(err, "%s", pe->git_fatal);
}

/* Why the indexing stopped with pe: the collision check's or the strict checks' message (the
 * object callback stopped it), else the engine's (engine_error). */
static int stopped_error(const struct skg_pack *pack, const struct skg_sink *sink,
                         const struct skg_pk_error *pe, struct skg_error *err)
{
	if (pe->code == SKG_E_GIT && skg_collide_failed(pack->collide)) {
		skg_collide_error(pack->collide, err); /* git's message */
		return -1;
	}
	if (pe->code == SKG_E_GIT && pack->strict != NULL) {
		skg_strict_error(pack->strict, err); /* the checks stopped it: git's message */
		return -1;
	}
	return engine_error(sink, pe, err);
}

/* The options skg_pack_index and skg_indexer_new refuse (SKG_E_USAGE): 0, or -1 with err. */
static int check_index_options(const struct skg_index_options *opt, struct skg_error *err)
{
	if (opt->idx_version != 1 && opt->idx_version != 2) {
		return skg_fail_sys(err, SKG_E_USAGE, 0, "the idx version is %u, not 1 or 2",
		                    opt->idx_version);
	}
	if (opt->object_format != SKG_FORMAT_SHA1 && opt->object_format != SKG_FORMAT_SHA256) {
		return skg_fail_sys(err, SKG_E_USAGE, 0, "unknown object format %u", opt->object_format);
	}
	if (opt->repo != NULL && skg_repo_object_format(opt->repo) != opt->object_format) {
		return skg_fail_sys(err, SKG_E_USAGE, 0, "the repository's object format is not the pack's");
	}
	return 0;
}

/* skg_pack_index; thin (--fix-thin): deltas whose base is not in the pack stay unresolved and the
 * repository's store stays open, for skg_thin_fix, and the strict links wait for the caller
 * (index_finish). */
static int pack_index(struct skg_pack **out, const uint8_t *data, uint64_t len,
                      const struct skg_index_options *opt, bool thin, struct skg_error *err)
{
	*out = NULL;
	if (check_index_options(opt, err) != 0) {
		return -1;
	}
	struct skg_pack *pack = calloc(1, sizeof(*pack));
	if (pack == NULL) {
		return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	struct skg_pk_options po;
	skg_pk_options_default(&po);
	po.format = opt->object_format;
	/* 0: as many as the machine has (git's pack.threads=0) */
	po.threads = opt->threads != 0 ? opt->threads : skg_online_cpus();
	po.cache_limit = opt->cache_limit;
	/* git's strict (--strict, --check-self-contained-and-connected): an object twice is an error */
	po.strict = idx_strict(opt);
	po.allow_unresolved = thin;
	po.ofs_unresolved = true; /* as git: an OFS_DELTA on no entry is one more unresolved delta */
	if (opt->progress.fn != NULL) {
		po.progress = on_progress;
		po.progress_ctx = (void *)&opt->progress;
	}
	po.read = opt->read;
	po.read_ctx = opt->read_ctx;
	po.release = opt->release;
	po.release_ctx = opt->release_ctx;
	po.idx = opt->idx;
	po.idx_len = opt->idx_len;
	if (opt->strict || opt->fsck_objects || opt->check_connected) {
		/* git parses --strict=ARGS (--fsck-objects=ARGS) before it reads the pack */
		/* with repo alone, its object directory (an embedder's trial: strict with repo and no
		 * objects_dir took itself for outside a repository) */
		const char *objects_dir = opt->objects_dir != NULL ? opt->objects_dir
		                          : opt->repo != NULL      ? skg_repo_objects_dir(opt->repo)
		                                                   : NULL;
		if (skg_strict_new(&pack->strict, &pack->p, (unsigned)skg_format_rawsz(po.format),
		                   opt->strict_args, objects_dir, objects_dir != NULL || opt->in_repository,
		                   opt->git_version, &opt->sink, err) != 0) {
			free(pack);
			return -1;
		}
		skg_strict_parts(pack->strict, opt->strict || opt->fsck_objects,
		                 opt->strict || opt->check_connected);
		skg_strict_grafts(pack->strict, opt->repo);
		skg_strict_on_map(pack->strict, opt->on_map, opt->map_ctx);
		po.whole_blobs = true;
	}
	if (opt->repo != NULL && skg_collide_new(&pack->collide, &pack->p, opt->repo, opt->git_version,
	                                         &opt->sink, opt->on_map, opt->map_ctx, err) != 0) {
		skg_strict_free(pack->strict);
		free(pack);
		return -1;
	}
	if (pack->strict != NULL || pack->collide != NULL) {
		po.object = pack_object;
		po.object_ctx = pack;
		po.in_order = true; /* git checks each whole object before it reads the next */
	}
	struct skg_pk_error pe;
	if (skg_pk_index_pack(&pack->p, data, len, &po, &pe) != 0) {
		stopped_error(pack, &opt->sink, &pe, err);
		skg_collide_free(pack->collide);
		skg_strict_free(pack->strict);
		free(pack);
		return -1;
	}
	if (!thin && index_finish(pack, err) != 0) {
		skg_pack_free(pack);
		return -1;
	}
	*out = pack;
	return 0;
}

int skg_pack_index(struct skg_pack **out, const uint8_t *data, uint64_t len,
                   const struct skg_index_options *opt, struct skg_error *err)
{
	SKG_ERR_OR_LOCAL(err);
	struct skg_index_options defaults;
	if (opt == NULL) {
		skg_index_options_default(&defaults);
		opt = &defaults;
	}
	return pack_index(out, data, len, opt, false, err);
}

bool skg_pack_beside_idx(const char *idx_path)
{
	size_t n = strlen(idx_path);
	if (n < 4 || strcmp(idx_path + n - 4, ".idx") != 0) {
		return false;
	}
	char *p = malloc(n + 2);
	if (p == NULL) {
		return false;
	}
	memcpy(p, idx_path, n - 4);
	memcpy(p + n - 4, ".pack", 6);
	struct stat st;
	bool there = stat(p, &st) == 0;
	free(p);
	return there;
}

uint64_t skg_pack_foreign_links(const struct skg_pack *pack)
{
	return pack->strict != NULL ? skg_strict_foreign(pack->strict) : 0;
}

int skg_pack_strict_finish(struct skg_pack *pack, bool installed, struct skg_error *err)
{
	SKG_ERR_OR_LOCAL(err);
	return pack->strict != NULL ? skg_strict_finish(pack->strict, installed, err) : 0;
}

uint32_t skg_pack_count(const struct skg_pack *pack)
{
	return pack->p.nr;
}

const uint8_t *skg_pack_checksum(const struct skg_pack *pack)
{
	return pack->p.checksum;
}

unsigned skg_pack_rawsz(const struct skg_pack *pack)
{
	return pack->p.rawsz;
}

uint32_t skg_pack_max_depth(const struct skg_pack *pack)
{
	return pack->p.max_depth;
}

bool skg_pack_object(const struct skg_pack *pack, uint32_t i, struct skg_pack_object *o)
{
	if (i >= pack->p.nr) {
		return false;
	}
	const struct skg_pk_object *e = &pack->p.objs[i];
	memset(o, 0, sizeof(*o));
	memcpy(o->id, e->id, pack->p.rawsz);
	o->type = e->real_type;
	o->pack_type = e->type;
	o->offset = e->offset;
	o->size = e->size;
	/* Entries are in pack order: one ends where the next starts, the last at the trailer. */
	uint64_t end = i + 1 < pack->p.nr ? pack->p.objs[i + 1].offset : pack->p.len - pack->p.rawsz;
	o->stored = end - e->offset;
	o->crc32 = e->crc32;
	o->depth = e->depth;
	if (e->base != SKG_PK_NO_BASE) {
		memcpy(o->base_id, pack->p.objs[e->base].id, pack->p.rawsz);
	}
	return true;
}

/* The caller's writer behind the engine's idx sink; its errno is kept for the error. */
struct writer {
	int (*write)(void *ctx, const uint8_t *p, size_t n);
	void *ctx;
	int sys_errno;
	bool failed;
};

static int writer_sink(void *ctx, const uint8_t *p, size_t n, struct skg_pk_error *pe)
{
	struct writer *w = ctx;
	errno = 0; /* a writer that fails without saying why: "the writer failed" */
	if (w->write(w->ctx, p, n) != 0) {
		w->failed = true;
		w->sys_errno = errno;
		snprintf(pe->msg, sizeof(pe->msg), "cannot write the index");
		pe->code = SKG_E_IO;
		pe->has_offset = false;
		return -1;
	}
	return 0;
}

int skg_pack_write_idx(const struct skg_pack *pack, const struct skg_index_options *opt,
                       int (*write)(void *ctx, const uint8_t *p, size_t n), void *ctx, struct skg_error *err)
{
	SKG_ERR_OR_LOCAL(err);
	struct skg_index_options defaults;
	if (opt == NULL) {
		skg_index_options_default(&defaults);
		opt = &defaults;
	}
	if (opt->idx_version != 1 && opt->idx_version != 2) {
		return skg_fail_sys(err, SKG_E_USAGE, 0, "the idx version must be 1 or 2");
	}
	struct writer w = {write, ctx, 0, false};
	struct skg_pk_error pe;
	if (skg_pk_idx_write(&pack->p, opt->idx_version, opt->off32_limit, idx_strict(opt), writer_sink, &w,
	                     &pe) != 0) {
		if (w.failed) {
			return skg_fail_sys(err, SKG_E_IO, w.sys_errno, "cannot write the index: %s",
			                    w.sys_errno != 0 ? strerror(w.sys_errno) : "the writer failed");
		}
		return from_pk(err, &pe);
	}
	return 0;
}

int skg_pack_write_rev(const struct skg_pack *pack, int (*write)(void *ctx, const uint8_t *p, size_t n),
                       void *ctx, struct skg_error *err)
{
	SKG_ERR_OR_LOCAL(err);
	uint8_t *rev;
	size_t len;
	struct skg_pk_error pe;
	if (skg_pk_rev_build(&pack->p, &rev, &len, &pe) != 0) {
		return from_pk(err, &pe);
	}
	int rc = 0;
	errno = 0;
	if (write(ctx, rev, len) != 0) {
		int e = errno;
		rc = skg_fail_sys(err, SKG_E_IO, e, "cannot write the reverse index: %s",
		                  e != 0 ? strerror(e) : "the writer failed");
	}
	free(rev);
	return rc;
}

int skg_pack_compare_rev(const struct skg_pack *pack, const uint8_t *rev, uint64_t len, uint64_t *first_diff,
                         struct skg_error *err)
{
	SKG_ERR_OR_LOCAL(err);
	uint8_t *want;
	size_t want_len;
	struct skg_pk_error pe;
	*first_diff = 0;
	if (skg_pk_rev_build(&pack->p, &want, &want_len, &pe) != 0) {
		return from_pk(err, &pe);
	}
	size_t n = len < want_len ? (size_t)len : want_len, i = 0;
	while (i < n && rev[i] == want[i]) {
		i++;
	}
	free(want);
	*first_diff = i;
	return i == n && len == want_len ? 0 : 1;
}

/* Comparison of the rebuilt idx with the existing one, piece by piece. */
struct compare {
	const uint8_t *idx;
	size_t len;
	size_t at;
	bool differs;
};

static int compare_piece(void *ctx, const uint8_t *p, size_t n)
{
	struct compare *c = ctx;
	if (c->len - c->at < n || memcmp(c->idx + c->at, p, n) != 0) {
		c->differs = true;
		errno = 0;
		return -1;
	}
	c->at += n;
	return 0;
}

int skg_pack_verify_idx(const struct skg_pack *pack, const uint8_t *idx, size_t idx_len, bool strict,
                        struct skg_error *err)
{
	SKG_ERR_OR_LOCAL(err);
	struct skg_index_options opt;
	skg_index_options_default(&opt);
	uint64_t limit;
	skg_pk_idx_params_as(idx, idx_len, pack->p.rawsz, &opt.idx_version, &limit);
	opt.off32_limit = limit;
	opt.strict = strict;
	struct compare c = {idx, idx_len, 0, false};
	int rc = skg_pack_write_idx(pack, &opt, compare_piece, &c, err);
	if (c.differs || (rc == 0 && c.at != idx_len)) {
		return skg_fail_sys(err, SKG_E_CORRUPT, 0, "the index does not match the pack");
	}
	return rc;
}

void skg_idx_layout(const uint8_t *idx, uint64_t len, struct skg_index_options *opt)
{
	uint64_t limit;
	skg_pk_idx_params_as(idx, len > SIZE_MAX ? SIZE_MAX : (size_t)len,
	                     (unsigned)skg_format_rawsz(opt->object_format), &opt->idx_version, &limit);
	opt->off32_limit = limit;
}

int skg_idx_check_as(const uint8_t *idx, uint64_t len, unsigned object_format, const char *idx_name,
                     const char *pack_name, struct skg_error *err)
{
	SKG_ERR_OR_LOCAL(err);
	size_t n = len > SIZE_MAX ? SIZE_MAX : (size_t)len;
	const unsigned rawsz = (unsigned)skg_format_rawsz(object_format);
	uint32_t a;
	enum skg_pk_git_open go = skg_pk_git_idx_check_as(idx, n, rawsz, &a);
	if (go != SKG_PK_GIT_OK) {
		char text[SKG_ERROR_MAX];
		skg_pk_git_open_text(go, idx_name, a, 0, text, sizeof(text));
		return skg_fail_sys(err, SKG_E_CORRUPT, 0, "%s", text);
	}
	if (memcmp(idx, "\377tOc", 4) != 0) {
		return 0; /* version 1: no 64-bit offsets */
	}
	/* index-pack.c read_v2_anomalous_offsets: each 31-bit index into the 64-bit offset table,
	 * checked by packfile.c check_pack_index_ptr against the end of the file less 8 bytes */
	uint64_t nr = skg_pk_idx_count(idx, n);
	uint64_t large = 8 + 4 * 256 + nr * (rawsz + 4 + 4);
	const uint8_t *offs = idx + 8 + 4 * 256 + nr * (rawsz + 4);
	for (uint64_t i = 0; i < nr; i++) {
		uint32_t v = (uint32_t)offs[4 * i] << 24 | (uint32_t)offs[4 * i + 1] << 16 |
		             (uint32_t)offs[4 * i + 2] << 8 | offs[4 * i + 3];
		if ((v & 0x80000000u) != 0 && large + (uint64_t)(v & 0x7fffffffu) * 8 >= len - 8) {
			return skg_fail_sys(err, SKG_E_CORRUPT, 0,
			                    "offset beyond end of pack index for %s (truncated index?)",
			                    pack_name);
		}
	}
	return 0;
}

int skg_idx_check(const uint8_t *idx, uint64_t len, const char *idx_name, const char *pack_name,
                  struct skg_error *err)
{
	SKG_ERR_OR_LOCAL(err);
	return skg_idx_check_as(idx, len, SKG_FORMAT_SHA1, idx_name, pack_name, err);
}

int skg_pack_compare_idx(const struct skg_pack *pack, const struct skg_index_options *opt,
                         struct skg_file *idx, uint64_t *first_diff, struct skg_error *err)
{
	SKG_ERR_OR_LOCAL(err);
	*first_diff = 0;
	if (opt->idx_version != 1 && opt->idx_version != 2) {
		return skg_fail_sys(err, SKG_E_USAGE, 0, "the idx version must be 1 or 2");
	}
	struct skg_pk_error pe;
	int rc = skg_idx_compare(&pack->p, opt->idx_version, opt->off32_limit, idx_strict(opt), idx,
	                         first_diff, &pe);
	return rc < 0 ? from_pk(err, &pe) : rc;
}

/*
 * How git's --verify ends on a file that differs from the bytes it would write, want_len bytes
 * whose last rawsz are the checksum, the file have_len bytes, first_diff the first byte that
 * differs (want_len when the file is longer and holds them all). Facts from git v2.39.5 and
 * v2.55.0 csum-file.c, the same in both: hashfd_check() makes a hashfile with a buffer of
 * 128 KiB (hashfd: 128 * 1024; 2.55's DEFAULT_IO_BUFFER_SIZE) that compares each piece it
 * flushes with the next bytes of the file (flush -> verify_buffer_or_die): hashwrite() flushes
 * the buffer whenever it is full, finalize_hashfile() the rest of it, then the checksum alone
 * (CSUM_HASH_IN_STREAM); a read that comes short is "NAME: sha1 file truncated", a piece read
 * whole that differs "sha1 file 'NAME' validation error", and after the last piece one more
 * byte in the file "NAME: sha1 file has trailing garbage" (all die(), exit status 128). The first
 * piece that fails decides: the one that holds first_diff.
 */
#define GIT_HASHFILE_BUFFER ((uint64_t)128 << 10)

static int git_verify_fails(struct skg_error *err, const char *name, uint64_t want_len, unsigned rawsz,
                            uint64_t have_len, uint64_t first_diff)
{
	if (first_diff >= want_len) {
		skg_fail(err, "%s: sha1 file has trailing garbage", name);
	} else {
		uint64_t data = want_len - rawsz; /* the pieces before the checksum */
		uint64_t end = want_len;
		if (first_diff < data) {
			end = (first_diff / GIT_HASHFILE_BUFFER + 1) * GIT_HASHFILE_BUFFER;
			end = end < data ? end : data;
		}
		if (have_len < end) {
			skg_fail(err, "%s: sha1 file truncated", name);
		} else {
			skg_fail(err, "sha1 file '%s' validation error", name);
		}
	}
	return -1;
}

int skg_pack_verify_idx_as_git(const struct skg_pack *pack, const struct skg_index_options *opt,
                               struct skg_file *idx, const char *name, struct skg_error *err)
{
	SKG_ERR_OR_LOCAL(err);
	if (opt->idx_version != 1 && opt->idx_version != 2) {
		return skg_fail_sys(err, SKG_E_USAGE, 0, "the idx version must be 1 or 2");
	}
	struct skg_pk_error pe;
	uint64_t first_diff, want_len;
	int rc = skg_idx_compare_len(&pack->p, opt->idx_version, opt->off32_limit, idx_strict(opt), idx,
	                             &first_diff, &want_len, &pe);
	if (rc < 0) {
		return from_pk(err, &pe);
	}
	return rc == 0 ? 0 : git_verify_fails(err, name, want_len, pack->p.rawsz, idx->len, first_diff);
}

int skg_pack_verify_rev_as_git(const struct skg_pack *pack, const uint8_t *rev, uint64_t len,
                               const char *name, struct skg_error *err)
{
	SKG_ERR_OR_LOCAL(err);
	uint64_t first_diff;
	int rc = skg_pack_compare_rev(pack, rev, len, &first_diff, err);
	if (rc <= 0) {
		return rc;
	}
	return git_verify_fails(err, name, skg_pk_rev_size(pack->p.nr, pack->p.rawsz), pack->p.rawsz, len,
	                        first_diff);
}

void skg_pack_free(struct skg_pack *pack)
{
	if (pack != NULL) {
		skg_collide_free(pack->collide);
		skg_strict_free(pack->strict);
		skg_pk_pack_free(&pack->p);
		free(pack);
	}
}

/* ---- The streaming indexer ------------------------------------------------------------------ */

struct skg_indexer {
	struct skg_index_options opt; /* its strings the copies below */
	char *own_strings[4];         /* keep_msg, promisor_msg, strict_args, objects_dir copied */
	char *dir;
	char *tmp_pack; /* dir/tmp_pack_XXXXXX */
	char *tmp_idx;  /* dir/tmp_idx_XXXXXX, while the idx is written */
	char *tmp_rev;  /* dir/tmp_rev_XXXXXX, while the .rev is written (opt.rev_index) */
	int fd;         /* of tmp_pack, -1 once closed */
	uint64_t len;
	bool done;                   /* committed or failed: only skg_indexer_free is left */
	bool written;                /* the pack and idx files were named */
	bool kept;                   /* the .keep file was made (opt.keep_msg) */
	uint64_t foreign;            /* skg_pack_foreign_links of the pack committed */
	struct skg_thin_counts thin; /* skg_indexer_thin_counts */
};

uint64_t skg_indexer_foreign_links(const struct skg_indexer *ix)
{
	return ix->foreign;
}

bool skg_indexer_thin_counts(const struct skg_indexer *ix, uint32_t *appended, uint64_t *resolved,
                             uint64_t *total)
{
	*appended = ix->thin.appended;
	*resolved = ix->thin.resolved;
	*total = ix->thin.total;
	return ix->thin.ran;
}

bool skg_indexer_written(const struct skg_indexer *ix)
{
	return ix->written;
}

bool skg_indexer_kept(const struct skg_indexer *ix)
{
	return ix->kept;
}

/* Remove the special files (suffixes a and b, NULL: none) made beside pack_path (".pack"). */
static void special_unlink(const char *pack_path, const char *a, const char *b)
{
	size_t n = strlen(pack_path);
	char *name = malloc(n + 16);
	if (name == NULL || n < 5) {
		free(name);
		return;
	}
	const char *sfx[2] = {a, b};
	for (int i = 0; i < 2; i++) {
		if (sfx[i] != NULL) {
			memcpy(name, pack_path, n - 4);
			strcpy(name + n - 4, sfx[i]);
			unlink(name);
		}
	}
	free(name);
}

int skg_pack_write_special(const char *pack_path, const char *suffix, const char *msg, bool *made,
                           struct skg_error *err)
{
	SKG_ERR_OR_LOCAL(err);
	if (made != NULL) {
		*made = false;
	}
	size_t n = strlen(pack_path);
	if (n < 5 || strcmp(pack_path + n - 5, ".pack") != 0) {
		return skg_fail(err, "packfile name '%s' does not end with '.pack'",
		                pack_path); /* derive_filename */
	}
	size_t sn = strlen(suffix);
	char *name = malloc(n - 4 + sn + 1);
	if (name == NULL) {
		return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	memcpy(name, pack_path, n - 4);
	memcpy(name + n - 4, suffix, sn + 1);
	int rc = 0;
	/* git's safe_create_file_with_leading_directories: O_EXCL, mode 0600; EEXIST is no error */
	int fd = open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		if (errno != EEXIST) {
			rc = skg_fail(err, "cannot write %s file '%s': %s", suffix, name, strerror(errno));
		}
		free(name);
		return rc;
	}
	size_t len = strlen(msg);
	int e = 0;
	if (len > 0 && (skg_write_full(fd, msg, len) != 0 || skg_write_full(fd, "\n", 1) != 0)) {
		e = errno != 0 ? errno : EIO;
	}
	if (close(fd) != 0 && e == 0) {
		rc = skg_fail(err, "cannot close written %s file '%s': %s", suffix, name, strerror(errno));
	} else if (e != 0) {
		/* git's write_or_die: its message is the write's */
		rc = skg_fail(err, "write error: %s", strerror(e));
	}
	if (rc == 0 && made != NULL) {
		*made = true;
	}
	free(name);
	return rc;
}

static char *path_join(const char *dir, const char *name)
{
	size_t a = strlen(dir), b = strlen(name);
	char *s = malloc(a + b + 2);
	if (s != NULL) {
		memcpy(s, dir, a);
		s[a] = '/';
		memcpy(s + a + 1, name, b + 1);
	}
	return s;
}

int skg_indexer_new(struct skg_indexer **out, const char *dir, const struct skg_index_options *opt,
                    struct skg_error *err)
{
	SKG_ERR_OR_LOCAL(err);
	*out = NULL;
	struct skg_indexer *ix = calloc(1, sizeof(*ix));
	if (ix != NULL) {
		ix->fd = -1; /* nothing to close (nor a temporary file to remove) until mkstemp */
	}
	if (ix == NULL || (ix->dir = strdup(dir)) == NULL) {
		skg_indexer_free(ix);
		return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	struct skg_index_options defaults;
	if (opt == NULL) {
		skg_index_options_default(&defaults);
		opt = &defaults;
	}
	if (check_index_options(opt, err) != 0) {
		skg_indexer_free(ix);
		return -1;
	}
	ix->opt = *opt;
	/* the indexer reads its own temporary file: a buffer's read, release and idx are not its */
	ix->opt.read = NULL;
	ix->opt.read_ctx = NULL;
	ix->opt.release = NULL;
	ix->opt.release_ctx = NULL;
	ix->opt.idx = NULL;
	ix->opt.idx_len = 0;
	/* opt is copied, its strings too: the caller may free them at once */
	const char **strings[4] = {&ix->opt.keep_msg, &ix->opt.promisor_msg, &ix->opt.strict_args,
	                           &ix->opt.objects_dir};
	for (int k = 0; k < 4; k++) {
		if (*strings[k] != NULL && (*strings[k] = ix->own_strings[k] = strdup(*strings[k])) == NULL) {
			skg_indexer_free(ix);
			return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
		}
	}
	if ((ix->tmp_pack = path_join(dir, "tmp_pack_XXXXXX")) == NULL) {
		skg_indexer_free(ix);
		return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	ix->fd = skg_mkstemp(ix->tmp_pack);
	if (ix->fd < 0) {
		int e = errno;
		free(ix->tmp_pack);
		ix->tmp_pack = NULL;
		skg_indexer_free(ix);
		return skg_fail_sys(err, SKG_E_IO, e, "unable to create temporary file in '%s': %s", dir,
		                    strerror(e));
	}
	*out = ix;
	return 0;
}

const char *skg_indexer_temp_path(const struct skg_indexer *ix)
{
	return ix->tmp_pack;
}

int skg_indexer_append(struct skg_indexer *ix, const void *data, size_t len, struct skg_error *err)
{
	SKG_ERR_OR_LOCAL(err);
	if (ix->done || ix->fd < 0) {
		return skg_fail_sys(err, SKG_E_USAGE, 0, "the indexer was already committed");
	}
	if (skg_write_full(ix->fd, data, len) != 0) {
		int e = errno;
		return skg_fail_sys(err, SKG_E_IO, e, "cannot write '%s': %s", ix->tmp_pack, strerror(e));
	}
	ix->len += len;
	return 0;
}

static int fd_writer(void *ctx, const uint8_t *p, size_t n)
{
	return skg_write_full(*(int *)ctx, p, n);
}

/*
 * The .rev's name for the idx at idx_path: git's derive_filename(index_name, "idx", "rev")
 * (builtin/index-pack.c): ".idx" replaced by ".rev"; NULL with errno EINVAL when idx_path does not
 * end in ".idx" (git dies there, before it reads the pack), ENOMEM.
 */
static char *rev_name(const char *idx_path)
{
	size_t n = strlen(idx_path);
	if (n < 4 || strcmp(idx_path + n - 4, ".idx") != 0) {
		errno = EINVAL;
		return NULL;
	}
	char *s = strdup(idx_path);
	if (s == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	memcpy(s + n - 3, "rev", 3);
	return s;
}

/* A new temporary file dir/tmp_<what>_XXXXXX: its descriptor and *path, or -1 with err. */
static int make_temp(const char *dir, const char *what, char **path, struct skg_error *err)
{
	char name[32];
	snprintf(name, sizeof(name), "tmp_%s_XXXXXX", what);
	*path = path_join(dir, name);
	if (*path == NULL) {
		return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	int fd = skg_mkstemp(*path);
	if (fd < 0) {
		int e = errno;
		free(*path);
		*path = NULL;
		return skg_fail_sys(err, SKG_E_IO, e, "unable to create temporary file in '%s': %s", dir,
		                    strerror(e));
	}
	return fd;
}

/* The directory part of `path` (malloc'd; "." when it has none), or NULL when out of memory. */
static char *dir_of(const char *path)
{
	const char *sep = strrchr(path, '/');
#ifdef _WIN32
	const char *bs = strrchr(path, '\\');
	if (bs != NULL && (sep == NULL || bs > sep)) {
		sep = bs;
	}
#endif
	if (sep == NULL) {
		return strdup(".");
	}
	size_t n = sep == path ? 1 : (size_t)(sep - path);
	char *s = malloc(n + 1);
	if (s != NULL) {
		memcpy(s, path, n);
		s[n] = '\0';
	}
	return s;
}

/* git's words where it cannot create `target` (builtin/index-pack.c, xopen: "unable to create
 * 'TARGET': REASON"; SKG_E_GIT). */
static int cannot_create(const char *target, int e, struct skg_error *err)
{
	return skg_fail_sys(err, SKG_E_GIT, e, "unable to create '%s': %s", target, strerror(e));
}

/*
 * A temporary file for the idx or .rev that will be named `target`, in target's own directory (a
 * rename from the pack directory would fail across file systems: `-o /elsewhere/NAME.idx`, which
 * git writes in place). Where it cannot be made, git's words for the file it cannot create
 * (cannot_create).
 */
static int make_temp_for(const char *target, const char *what, char **path, struct skg_error *err)
{
	char *dir = dir_of(target);
	if (dir == NULL) {
		return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	int fd = make_temp(dir, what, path, err);
	free(dir);
	if (fd < 0 && err->code == SKG_E_IO) {
		return cannot_create(target, err->sys_errno, err);
	}
	return fd;
}

/* git's line where the file `target` cannot be created in place of what is there (it opens it
 * with O_EXCL after unlinking it: a directory there stays, "File exists"). */
static int rename_failed(const char *target, int e, struct skg_error *err)
{
	struct stat st;
	if (e == EISDIR || e == ENOTEMPTY || e == EEXIST || (stat(target, &st) == 0 && S_ISDIR(st.st_mode))) {
		e = EEXIST; /* (Windows says EACCES for a directory there) */
	}
	return cannot_create(target, e, err);
}

/* fd's first len bytes mapped to read (the file named path), or NULL with err. */
static uint8_t *map_file(int fd, uint64_t len, const char *path, struct skg_error *err)
{
	void *m = mmap(NULL, (size_t)len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED) {
		int e = errno;
		skg_fail_sys(err, e == ENOMEM ? SKG_E_NOMEM : SKG_E_IO, e, "cannot map '%s': %s", path,
		             strerror(e));
		return NULL;
	}
	return m;
}

/* Sync and close fd, mode 0444 first; 0 or an errno. */
static int finish_file(int fd)
{
	int e = 0;
	if (fsync(fd) != 0 || fchmod(fd, 0444) != 0) {
		e = errno;
	}
	if (close(fd) != 0 && e == 0) {
		e = errno;
	}
	return e;
}

static void remove_temps(struct skg_indexer *ix, bool pack_too);

int skg_indexer_commit(struct skg_indexer *ix, const char *pack_path, const char *idx_path, uint8_t *checksum,
                       struct skg_error *err)
{
	SKG_ERR_OR_LOCAL(err);
	if (ix->done || ix->fd < 0) {
		return skg_fail_sys(err, SKG_E_USAGE, 0, "the indexer was already committed");
	}
	ix->done = true;
	int rc = -1, idx_fd = -1, rev_fd = -1;
	char *own_pack = NULL, *own_idx = NULL, *rev_path = NULL;
	if (pack_path != NULL && idx_path == NULL) {
		/* git's index-pack --stdin PACK: the idx's name from the pack's (derive_filename), which
		 * dies before the pack is read where it does not end in ".pack" */
		size_t n = strlen(pack_path);
		if (n < 5 || strcmp(pack_path + n - 5, ".pack") != 0) {
			close(ix->fd);
			ix->fd = -1;
			return skg_fail_sys(err, SKG_E_GIT, 0, "packfile name '%s' does not end with '.pack'",
			                    pack_path);
		}
		if ((own_idx = malloc(n)) == NULL) {
			close(ix->fd);
			ix->fd = -1;
			return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
		}
		memcpy(own_idx, pack_path, n - 5);
		memcpy(own_idx + n - 5, ".idx", 5);
		idx_path = own_idx;
	}
	bool pack_renamed = false, rev_renamed = false, promised = false;
	struct skg_pack *pack = NULL;
	uint8_t *map = NULL;
	uint64_t map_len = 0;
	static const uint8_t empty[1] = {0};
	if (ix->opt.rev_index && idx_path != NULL && (rev_path = rev_name(idx_path)) == NULL) {
		/* git: derive_filename dies before the pack is read */
		close(ix->fd);
		ix->fd = -1;
		if (errno == ENOMEM) {
			skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
		} else {
			skg_fail_sys(err, SKG_E_GIT, 0, "packfile name '%s' does not end with '.idx'",
			             idx_path);
		}
		free(own_idx);
		return -1;
	}
	/* --fix-thin (git's conclude_pack): one indexing of the received pack, in place, that leaves
	 * the deltas on bases it lacks for skg_thin_fix; a pack that is not thin is done then */
	bool thin = ix->opt.fix_thin && ix->opt.repo != NULL;
	if (thin) {
		if (ix->len > 0 && (map = map_file(ix->fd, ix->len, ix->tmp_pack, err)) == NULL) {
			goto out;
		}
		map_len = ix->len;
		if (pack_index(&pack, map != NULL ? map : empty, ix->len, &ix->opt, true, err) != 0) {
			goto out;
		}
		int t = skg_thin_fix(&pack->p, ix->fd, pack->collide, ix->opt.fix_thin_level,
		                     pack->strict != NULL || pack->collide != NULL ? pack_object : NULL, pack,
		                     &ix->opt.sink, &ix->opt.progress, &ix->thin, err);
		if (t > 0) {
			struct skg_pk_error pe = {SKG_E_GIT, false, 0, "stopped", NULL, ""};
			stopped_error(pack, &ix->opt.sink, &pe, err);
			goto out;
		}
		if (t < 0 || index_finish(pack, err) != 0) {
			goto out;
		}
		if (pack->p.len != ix->len) {
			/* bases appended: the table is the completed pack's; its bytes are mapped anew */
			munmap(map, (size_t)map_len);
			map = NULL;
			ix->len = pack->p.len;
		}
	}
	int e = finish_file(ix->fd);
	ix->fd = -1;
	if (e != 0) {
		skg_fail_sys(err, SKG_E_IO, e, "cannot write '%s': %s", ix->tmp_pack, strerror(e));
		goto out;
	}
	if (ix->len > 0 && map == NULL) {
		int fd = open(ix->tmp_pack, O_RDONLY);
		if (fd < 0) {
			e = errno;
			skg_fail_sys(err, SKG_E_IO, e, "cannot read '%s': %s", ix->tmp_pack, strerror(e));
			goto out;
		}
		map = map_file(fd, ix->len, ix->tmp_pack, err);
		close(fd);
		if (map == NULL) {
			goto out;
		}
		map_len = ix->len;
	}
	if (pack != NULL) {
		pack->p.data = map;
	} else if (skg_pack_index(&pack, map != NULL ? map : empty, ix->len, &ix->opt, err) != 0) {
		goto out;
	}
	char hex[SKG_MAX_HEXSZ + 1];
	skg_to_hex_len(skg_pack_checksum(pack), pack->p.rawsz, hex);
	if (pack_path == NULL || idx_path == NULL) {
		char name[96];
		snprintf(name, sizeof(name), "pack-%s.pack", hex);
		own_pack = path_join(ix->dir, name);
		snprintf(name, sizeof(name), "pack-%s.idx", hex);
		own_idx = path_join(ix->dir, name);
		if (own_pack == NULL || own_idx == NULL) {
			skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
			goto out;
		}
		pack_path = pack_path != NULL ? pack_path : own_pack;
		idx_path = idx_path != NULL ? idx_path : own_idx;
	}
	if (ix->opt.rev_index && rev_path == NULL) {
		char name[96];
		snprintf(name, sizeof(name), "pack-%s.rev", hex);
		if ((rev_path = path_join(ix->dir, name)) == NULL) {
			skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
			goto out;
		}
	}
	if ((idx_fd = make_temp_for(idx_path, "idx", &ix->tmp_idx, err)) < 0) {
		if (pack_path != own_pack && idx_path == own_idx && err->code == SKG_E_GIT) {
			/* the pack's own directory: git creates the pack there first, and names it */
			cannot_create(pack_path, err->sys_errno, err);
		}
		goto out;
	}
	if (skg_pack_write_idx(pack, &ix->opt, fd_writer, &idx_fd, err) != 0) {
		goto out;
	}
	e = finish_file(idx_fd);
	idx_fd = -1;
	if (e != 0) {
		skg_fail_sys(err, SKG_E_IO, e, "cannot write '%s': %s", ix->tmp_idx, strerror(e));
		goto out;
	}
	/* builtin/index-pack.c: write_rev_file after write_idx_file (pack-write.c) */
	if (rev_path != NULL) {
		if ((rev_fd = make_temp_for(rev_path, "rev", &ix->tmp_rev, err)) < 0) {
			goto out;
		}
		if (skg_pack_write_rev(pack, fd_writer, &rev_fd, err) != 0) {
			goto out;
		}
		e = finish_file(rev_fd);
		rev_fd = -1;
		if (e != 0) {
			skg_fail_sys(err, SKG_E_IO, e, "cannot write '%s': %s", ix->tmp_rev, strerror(e));
			goto out;
		}
	}
	struct stat st_caller;
	if (pack_path != own_pack && lstat(pack_path, &st_caller) == 0) {
		/* a file of the caller's name (another pack, say): git creates it with O_EXCL before it
		 * reads a byte (open_pack_file), and it stays as it is */
		cannot_create(pack_path, EEXIST, err);
		goto out;
	}
	if (checksum != NULL) {
		memcpy(checksum, skg_pack_checksum(pack), pack->p.rawsz);
	}
	/* git's final(): the .keep and .promisor files before the pack is named (a .keep protects the
	 * pack from a concurrent gc until the caller's refs point into it) */
	if (ix->opt.keep_msg != NULL &&
	    skg_pack_write_special(pack_path, "keep", ix->opt.keep_msg, &ix->kept, err) != 0) {
		goto out;
	}
	if (ix->opt.promisor_msg != NULL &&
	    skg_pack_write_special(pack_path, "promisor", ix->opt.promisor_msg, &promised, err) != 0) {
		goto out;
	}
	/* The pack first, the idx last: a reader that finds the idx finds its whole pack. A pack of
	 * its checksum's name already there has the same content: it is kept, as git's
	 * finalize_object_file keeps an existing file. */
	struct stat st;
	if (stat(pack_path, &st) == 0 && S_ISREG(st.st_mode)) {
		unlink(ix->tmp_pack);
	} else if (rename(ix->tmp_pack, pack_path) != 0) {
		e = errno;
		skg_fail_sys(err, SKG_E_IO, e, "unable to rename temporary pack file to '%s': %s", pack_path,
		             strerror(e));
		goto out;
	} else {
		pack_renamed = true;
	}
	/* git's final(): the pack, the .rev, then the idx */
	if (rev_path != NULL) {
		if (rename(ix->tmp_rev, rev_path) != 0) {
			rename_failed(rev_path, errno, err);
			goto out;
		}
		rev_renamed = true;
		free(ix->tmp_rev);
		ix->tmp_rev = NULL;
	}
	if (rename(ix->tmp_idx, idx_path) != 0) {
		rename_failed(idx_path, errno, err);
		goto out;
	}
	free(ix->tmp_idx);
	ix->tmp_idx = NULL;
	free(ix->tmp_pack);
	ix->tmp_pack = NULL;
	ix->written = true;
	pack_renamed = rev_renamed = false; /* from here on the files stay, as git leaves them */
	/* git's fsck_finish comes after its final(): a failure leaves both files */
	rc = skg_pack_strict_finish(pack, skg_pack_beside_idx(idx_path), err);
	ix->foreign = skg_pack_foreign_links(pack);
out:
	if (idx_fd >= 0) {
		close(idx_fd);
	}
	if (rev_fd >= 0) {
		close(rev_fd);
	}
	if (rc != 0 && rev_renamed) {
		unlink(rev_path);
	}
	if (rc != 0 && pack_renamed && (ix->tmp_pack == NULL || rename(pack_path, ix->tmp_pack) != 0)) {
		unlink(pack_path); /* back to its temporary name, for the caller until the free */
	}
	if (rc != 0 && !ix->written && (ix->kept || promised)) {
		/* nothing is left in dir on a failure: the .keep / .promisor made here go too */
		special_unlink(pack_path, ix->kept ? "keep" : NULL, promised ? "promisor" : NULL);
		ix->kept = false;
	}
	if (map != NULL) {
		munmap(map, (size_t)map_len);
	}
	if (rc != 0 && !ix->written) {
		/* the temporary idx and .rev go at once; the received pack stays for the caller to
		 * read (skg_indexer_temp_path) until skg_indexer_free (git_pack.h) */
		remove_temps(ix, false);
	}
	skg_pack_free(pack);
	free(own_pack);
	free(own_idx);
	free(rev_path);
	return rc;
}

void skg_indexer_free(struct skg_indexer *ix)
{
	if (ix == NULL) {
		return;
	}
	if (ix->fd >= 0) {
		close(ix->fd);
	}
	remove_temps(ix, true);
	for (int k = 0; k < 4; k++) {
		free(ix->own_strings[k]);
	}
	free(ix->dir);
	free(ix);
}

/* The temporary files that are there (the pack's with pack_too), removed. */
static void remove_temps(struct skg_indexer *ix, bool pack_too)
{
	if (ix->tmp_pack != NULL && pack_too) {
		unlink(ix->tmp_pack);
		free(ix->tmp_pack);
		ix->tmp_pack = NULL;
	}
	if (ix->tmp_idx != NULL) {
		unlink(ix->tmp_idx);
		free(ix->tmp_idx);
	}
	if (ix->tmp_rev != NULL) {
		unlink(ix->tmp_rev);
		free(ix->tmp_rev);
	}
	ix->tmp_idx = ix->tmp_rev = NULL;
}
