/*
 * object_hash.c - object IDs as `git hash-object` computes them (<sha1kit/git_object.h>): the
 * header and SHA-1DC (or SHA-256 in a SHA-256 repository) over header and content; the check
 * before it is object_check.c's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <sha1kit/git_object.h>

#include "object.h"
#include "util.h"

void skg_object_hash_begin_as(struct skg_object_hasher *h, unsigned format, const char *type_name,
                              uint64_t size)
{
	char header[32];
	h->state = format == SKG_FORMAT_SHA1 || format == SKG_FORMAT_SHA256 || format == 0 ? 1 : 3;
	h->format = format == SKG_FORMAT_SHA256 ? SKG_FORMAT_SHA256 : SKG_FORMAT_SHA1;
	if (h->format == SKG_FORMAT_SHA256) {
		sha1kit_sha256_init(&h->sha256);
	} else {
		sha1kit_dc_init(&h->dc, NULL);
	}
	skg_object_hash_update(h, type_name, strlen(type_name));
	int n = snprintf(header, sizeof(header), " %" PRIu64, size);
	skg_object_hash_update(h, header, (size_t)n + 1); /* with the terminating NUL */
	h->size = size;
	h->hashed = 0;
}

bool skg_object_id_differs(unsigned format, size_t rawsz, unsigned type, const uint8_t *id,
                           const uint8_t *data, size_t len)
{
	struct skg_object_hasher h;
	uint8_t got[SKG_MAX_RAWSZ];
	skg_object_hash_begin_as(&h, format, skg_type_name(type), len);
	skg_object_hash_update(&h, data, len);
	return skg_object_hash_final_as(&h, got, NULL) != 0 || memcmp(got, id, rawsz) != 0;
}

void skg_object_hash_begin(struct skg_object_hasher *h, const char *type_name, uint64_t size)
{
	skg_object_hash_begin_as(h, SKG_FORMAT_SHA1, type_name, size);
}

void skg_object_hash_update(struct skg_object_hasher *h, const void *data, size_t len)
{
	h->hashed += len;
	if (h->format == SKG_FORMAT_SHA256) {
		sha1kit_sha256_update(&h->sha256, data, len);
	} else {
		sha1kit_dc_update(&h->dc, data, len);
	}
}

/* The errors of use of the final calls: 0, or -1 with err. */
static int final_checks(struct skg_object_hasher *h, struct skg_error *err)
{
	unsigned state = h->state;
	h->state = 2;
	if (state == 3) {
		return skg_fail_sys(err, SKG_E_USAGE, 0, "unknown object format");
	}
	if (state != 1) {
		return skg_fail_sys(err, SKG_E_USAGE, 0, "the object's hash was not begun, or is finished");
	}
	if (h->hashed != h->size) {
		return skg_fail_sys(err, SKG_E_USAGE, 0,
		                    "%" PRIu64 " bytes of content where the header says %" PRIu64, h->hashed,
		                    h->size);
	}
	return 0;
}

int skg_object_hash_final_as(struct skg_object_hasher *h, uint8_t oid[SKG_MAX_RAWSZ], struct skg_error *err)
{
	SKG_ERR_OR_LOCAL(err);
	if (h->format == SKG_FORMAT_SHA256) {
		if (final_checks(h, err) != 0) {
			return -1;
		}
		sha1kit_sha256_final(&h->sha256, oid);
		return 0;
	}
	return skg_object_hash_final(h, oid, err);
}

int skg_object_hash_final(struct skg_object_hasher *h, uint8_t oid[SKG_RAWSZ], struct skg_error *err)
{
	SKG_ERR_OR_LOCAL(err);
	if (h->format == SKG_FORMAT_SHA256) {
		h->state = 2;
		return skg_fail_sys(err, SKG_E_USAGE, 0,
		                    "a SHA-256 object ID is 32 bytes: skg_object_hash_final_as gives it");
	}
	if (final_checks(h, err) != 0) {
		return -1;
	}
	sha1kit_dc_detection where;
	if (sha1kit_dc_final(&h->dc, oid, &where) == SHA1KIT_DC_COLLISION) {
		const char *dv = sha1kit_dv_name(where.dv);
		skg_fail_sys(
		    err, SKG_E_COLLISION, 0,
		    "SHA-1 collision attack detected in the Git object (disturbance vector %s, block at "
		    "byte offset %" PRIu64 " of the object, header included)",
		    dv != NULL ? dv : "?", (uint64_t)where.offset);
		if (err != NULL) {
			err->has_offset = true;
			err->offset = (uint64_t)where.offset;
		}
		return -1;
	}
	return 0;
}

int skg_hash_object(const char *type_name, const void *data, size_t len, const struct skg_hash_options *opt,
                    uint8_t *oid, struct skg_error *err)
{
	SKG_ERR_OR_LOCAL(err);
	if (type_name == NULL || (data == NULL && len > 0)) {
		return skg_fail_sys(err, SKG_E_USAGE, 0, "no type name, or no data for %zu bytes", len);
	}
	if (opt != NULL && opt->object_format != 0 && opt->object_format != SKG_FORMAT_SHA1 &&
	    opt->object_format != SKG_FORMAT_SHA256) {
		return skg_fail_sys(err, SKG_E_USAGE, 0, "unknown object format %u", opt->object_format);
	}
	if (opt == NULL || !opt->literally) {
		enum skg_type t = skg_type_from_name(type_name, strlen(type_name));
		if (t == SKG_NONE) {
			return skg_fail_sys(err, SKG_E_USAGE, 0, "invalid object type \"%s\"", type_name);
		}
		if (skg_object_check(t, data, len, opt, err) != 0) {
			return -1;
		}
	}
	struct skg_object_hasher h;
	unsigned format = opt != NULL ? opt->object_format : SKG_FORMAT_SHA1;
	skg_object_hash_begin_as(&h, format == SKG_FORMAT_SHA256 ? format : SKG_FORMAT_SHA1, type_name, len);
	skg_object_hash_update(&h, data, len);
	uint8_t id[SKG_MAX_RAWSZ];
	int rc = skg_object_hash_final_as(&h, id, err);
	memcpy(oid, id, skg_format_rawsz(h.format));
	return rc;
}
