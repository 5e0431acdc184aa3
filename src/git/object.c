/* object.c - Git object types, headers and hex IDs (object.h). */
#include "object.h"

#include <stdio.h>
#include <string.h>

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
	return strcmp(name, "sha1") == 0     ? SKG_FORMAT_SHA1
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
