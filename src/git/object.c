/* object.c - Git object types, headers and hex IDs (object.h). */
#include "object.h"

#include <stdio.h>
#include <string.h>

#include <sha1kit.h>

static const char *const type_names[] = {NULL, "commit", "tree", "blob", "tag"};

const char *skg_type_name(unsigned type)
{
	return type >= 1 && type <= 4 ? type_names[type] : NULL;
}

enum skg_type skg_type_from_name(const char *name, size_t len)
{
	for (unsigned t = 1; t <= 4; t++) {
		if (strlen(type_names[t]) == len && memcmp(type_names[t], name, len) == 0) {
			return (enum skg_type)t;
		}
	}
	return SKG_NONE;
}

size_t skg_object_header(char buf[SKG_HEADER_MAX], unsigned type, uint64_t size)
{
	const char *name = skg_type_name(type);
	if (name == NULL) {
		return 0;
	}
	int n = snprintf(buf, SKG_HEADER_MAX, "%s %llu", name, (unsigned long long)size);
	return (size_t)n + 1; /* the NUL byte snprintf wrote is part of the header */
}

size_t skg_format_rawsz(unsigned format)
{
	return format == SKG_FORMAT_SHA1 ? SKG_RAWSZ : format == SKG_FORMAT_SHA256 ? 32 : 0;
}

unsigned skg_format_from_name(const char *name)
{
	return name == NULL                  ? 0
	       : strcmp(name, "sha1") == 0   ? SKG_FORMAT_SHA1
	       : strcmp(name, "sha256") == 0 ? SKG_FORMAT_SHA256
	                                     : 0;
}

void skg_to_hex_len(const uint8_t *id, size_t rawsz, char *out)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < rawsz; i++) {
		out[2 * i] = digits[id[i] >> 4];
		out[2 * i + 1] = digits[id[i] & 15];
	}
	out[2 * rawsz] = '\0';
}

void skg_to_hex(const uint8_t id[SKG_RAWSZ], char out[SKG_HEXSZ + 1])
{
	skg_to_hex_len(id, SKG_RAWSZ, out);
}

void skg_checksum(unsigned rawsz, const void *p, size_t n, uint8_t *out)
{
	if (rawsz == SKG_MAX_RAWSZ) {
		sha1kit_sha256(p, n, out);
	} else {
		sha1kit_fast(p, n, out);
	}
}

bool skg_is_empty_tree(const uint8_t *id, size_t rawsz)
{
	static const uint8_t sha1[SKG_RAWSZ] = {0x4b, 0x82, 0x5d, 0xc6, 0x42, 0xcb, 0x6e, 0xb9, 0xa0, 0x60,
	                                        0xe5, 0x4b, 0xf8, 0xd6, 0x92, 0x88, 0xfb, 0xee, 0x49, 0x04};
	static const uint8_t sha256[SKG_MAX_RAWSZ] = {
	    0x6e, 0xf1, 0x9b, 0x41, 0x22, 0x5c, 0x53, 0x69, 0xf1, 0xc1, 0x04, 0xd4, 0x5d, 0x8d, 0x85, 0xef,
	    0xa9, 0xb0, 0x57, 0xb5, 0x3b, 0x14, 0xb4, 0xb9, 0xb9, 0x39, 0xdd, 0x74, 0xde, 0xcc, 0x53, 0x21};
	return rawsz == SKG_MAX_RAWSZ ? memcmp(id, sha256, SKG_MAX_RAWSZ) == 0
	                              : memcmp(id, sha1, SKG_RAWSZ) == 0;
}

int skg_hexval(char c)
{
	if (c >= '0' && c <= '9') {
		return c - '0';
	}
	if (c >= 'a' && c <= 'f') {
		return c - 'a' + 10;
	}
	if (c >= 'A' && c <= 'F') {
		return c - 'A' + 10;
	}
	return -1;
}

bool skg_from_hex(const char *p, uint8_t id[SKG_RAWSZ])
{
	return skg_from_hex_len(p, SKG_RAWSZ, id);
}

bool skg_from_hex_len(const char *p, size_t rawsz, uint8_t *id)
{
	for (size_t i = 0; i < rawsz; i++) {
		int hi = skg_hexval(p[2 * i]);
		if (hi < 0) {
			return false; /* a NUL byte among them too: nothing past it is read */
		}
		int lo = skg_hexval(p[2 * i + 1]);
		if (lo < 0) {
			return false;
		}
		id[i] = (uint8_t)(hi << 4 | lo);
	}
	return true;
}
