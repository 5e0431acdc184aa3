/*
 * pack.c - the pack engine's shared pieces (pack.h, pack_internal.h): error setters, type
 * names, default options, the thread count clamped to the CPUs online, CRC-32. The engine's files
 * are listed in pack_internal.h.
 *
 * Written from Git's format documentation (Documentation/gitformat-pack.txt) and by comparing
 * results with `git index-pack` and `git verify-pack` (Git 2.39); no code was taken from Git.
 */
#include "pack_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>
#if defined(SK_HAVE_LIBDEFLATE)
#include <libdeflate.h>
#endif

static void set_error_v(struct skg_pk_error *err, enum skg_errc code, bool has_offset, uint64_t offset,
                        const char *fmt, va_list ap)
{
	err->code = code;
	err->has_offset = has_offset;
	err->offset = offset;
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	err->git_error = NULL;
	err->git_fatal[0] = '\0';
}

/* A malformed pack (SKG_E_CORRUPT). */
void skg_pk_set_error(struct skg_pk_error *err, bool has_offset, uint64_t offset, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	set_error_v(err, SKG_E_CORRUPT, has_offset, offset, fmt, ap);
	va_end(ap);
}

/* A failure of the machine (SKG_E_NOMEM, SKG_E_THREAD). */
void skg_pk_set_failure(struct skg_pk_error *err, enum skg_errc code, bool has_offset, uint64_t offset,
                        const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	set_error_v(err, code, has_offset, offset, fmt, ap);
	va_end(ap);
}

/* The object callback asked to stop (its owner keeps the reason). */
void skg_pk_stopped_error(struct skg_pk_error *err, uint64_t offset)
{
	skg_pk_set_failure(err, SKG_E_GIT, true, offset, "stopped by the object callback");
}

const char *skg_pk_type_name(unsigned type)
{
	switch (type) {
	case SKG_PK_COMMIT:
		return "commit";
	case SKG_PK_TREE:
		return "tree";
	case SKG_PK_BLOB:
		return "blob";
	case SKG_PK_TAG:
		return "tag";
	case SKG_PK_OFS_DELTA:
		return "ofs-delta";
	case SKG_PK_REF_DELTA:
		return "ref-delta";
	default:
		return "unknown";
	}
}

void skg_pk_options_default(struct skg_pk_options *opt)
{
	memset(opt, 0, sizeof(*opt));
	opt->threads = 1;
	opt->cache_limit = (uint64_t)96 << 20;
}

/* n, or the number of CPUs online when fewer (and known). */
unsigned skg_pk_cpu_clamp(unsigned n)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	return cpus > 0 && (unsigned long)cpus < n ? (unsigned)cpus : n;
}

/* CRC-32 (zlib's; libdeflate computes the same, faster) of any length, from crc == 0. */
uint32_t skg_pk_crc32(uint32_t crc, const uint8_t *p, uint64_t n)
{
	while (n > 0) {
		size_t step = n > ((size_t)1 << 30) ? ((size_t)1 << 30) : (size_t)n;
#if defined(SK_HAVE_LIBDEFLATE)
		crc = libdeflate_crc32(crc, p, step);
#else
		crc = (uint32_t)crc32_z(crc, p, step);
#endif
		p += step;
		n -= step;
	}
	return crc;
}

void skg_pk_hash_init(struct skg_pk_hash *h, enum skg_pk_hash_kind kind)
{
	h->kind = kind;
	if (kind == SKG_PK_HASH_DC) {
		sha1kit_dc_init(&h->u.dc, NULL); /* Git's settings: true digest, detection on */
	} else if (kind == SKG_PK_HASH_FAST) {
		sha1kit_fast_init(&h->u.fast);
	} else {
		sha1kit_sha256_init(&h->u.sha256);
	}
}

void skg_pk_hash_update(struct skg_pk_hash *h, const void *p, size_t n)
{
	if (h->kind == SKG_PK_HASH_DC) {
		sha1kit_dc_update(&h->u.dc, p, n);
	} else if (h->kind == SKG_PK_HASH_FAST) {
		sha1kit_fast_update(&h->u.fast, p, n);
	} else {
		sha1kit_sha256_update(&h->u.sha256, p, n);
	}
}

bool skg_pk_hash_final(struct skg_pk_hash *h, uint8_t *out)
{
	if (h->kind == SKG_PK_HASH_DC) {
		return sha1kit_dc_final(&h->u.dc, out, NULL) != SHA1KIT_DC_COLLISION;
	}
	if (h->kind == SKG_PK_HASH_FAST) {
		sha1kit_fast_final(&h->u.fast, out);
	} else {
		sha1kit_sha256_final(&h->u.sha256, out);
	}
	return true;
}
