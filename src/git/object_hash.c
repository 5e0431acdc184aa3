/*
 * object_hash.c - object IDs as `git hash-object` computes them (<sha1kit/git_object.h>): the
 * header, SHA-1DC over header and content, and git 2.39's format checks of trees, commits and
 * tags (index_mem -> check_tree / check_commit / check_tag: tree-walk.c decode_tree_entry,
 * commit.c parse_commit_buffer, tag.c parse_tag_buffer), re-stated from git's behaviour.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <sha1kit/git_object.h>

#include "object.h"
#include "util.h"

/* Tree: entries "MODE NAME\0" + 20 bytes; MODE non-empty octal digits, NAME non-empty. Each entry
 * is decoded only where the byte 21 from the end of what is left is a NUL (Git's sanity check). */
static bool check_tree(const unsigned char *p, size_t size)
{
	while (size > 0) {
		if (size < SKG_RAWSZ + 3 || p[size - (SKG_RAWSZ + 1)] != 0 || p[0] == ' ') {
			return false;
		}
		size_t i = 0;
		for (; p[i] != ' '; i++) { /* stops at the NUL at size - 21 at the latest */
			if (p[i] < '0' || p[i] > '7') {
				return false;
			}
		}
		i++;
		if (p[i] == 0) {
			return false; /* empty file name */
		}
		const unsigned char *nul = memchr(p + i, 0, size - i);
		size_t len = (size_t)(nul - p) + 1 + SKG_RAWSZ;
		if (size < len) {
			return false; /* too-short tree file */
		}
		p += len;
		size -= len;
	}
	return true;
}

/*
 * Commit: "tree ID\n" and at least one byte more, then "parent ID\n" lines (a "parent " that starts
 * within the last 48 bytes ends the list, and one that starts with exactly 48 left is an error). Git
 * also looks the IDs up in its object table: a parent equal to the tree is "a tree, not a commit".
 */
static bool check_commit(const unsigned char *p, size_t size)
{
	const size_t tree_len = SKG_HEXSZ + 5, parent_len = SKG_HEXSZ + 7;
	unsigned char tree[SKG_RAWSZ], parent[SKG_RAWSZ];
	if (size <= tree_len + 1 || memcmp(p, "tree ", 5) != 0 || p[tree_len] != '\n' ||
	    !skg_from_hex((const char *)p + 5, tree)) {
		return false;
	}
	size_t i = tree_len + 1;
	while (i + parent_len < size && memcmp(p + i, "parent ", 7) == 0) {
		if (size <= i + parent_len + 1 || !skg_from_hex((const char *)p + i + 7, parent) ||
		    p[i + parent_len] != '\n' || memcmp(parent, tree, SKG_RAWSZ) == 0) {
			return false;
		}
		i += parent_len + 1;
	}
	return true;
}

/* Tag: at least 64 bytes; "object ID\n", "type T\n" with T (up to its first NUL) one of the four
 * types and the line under 20 bytes, then "tag " with at least one more byte and a newline after. */
static bool check_tag(const unsigned char *p, size_t size)
{
	static const char *const types[] = {"blob", "tree", "commit", "tag"};
	const unsigned char *end = p + size;

	unsigned char id[SKG_RAWSZ];
	if (size < SKG_HEXSZ + 24 || memcmp(p, "object ", 7) != 0 || !skg_from_hex((const char *)p + 7, id) ||
	    p[7 + SKG_HEXSZ] != '\n') {
		return false;
	}
	p += 8 + SKG_HEXSZ;
	if (memcmp(p, "type ", 5) != 0) { /* 16 bytes are left here */
		return false;
	}
	p += 5;
	const unsigned char *nl = memchr(p, '\n', (size_t)(end - p));
	if (nl == NULL || nl - p >= 20) {
		return false;
	}
	char type[20];
	memcpy(type, p, (size_t)(nl - p));
	type[nl - p] = '\0';
	bool known = false;
	for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); k++) {
		known = known || strcmp(type, types[k]) == 0;
	}
	if (!known) {
		return false;
	}
	p = nl + 1;
	if (!(end - p > 4 && memcmp(p, "tag ", 4) == 0)) {
		return false;
	}
	p += 4;
	return memchr(p, '\n', (size_t)(end - p)) != NULL;
}

bool skg_object_format_ok(unsigned type, const uint8_t *data, size_t len)
{
	switch (type) {
	case SKG_BLOB:
		return true;
	case SKG_TREE:
		return check_tree(data, len);
	case SKG_COMMIT:
		return check_commit(data, len);
	case SKG_TAG:
		return check_tag(data, len);
	default:
		return false;
	}
}

void skg_object_hash_begin(struct skg_object_hasher *h, const char *type_name, uint64_t size)
{
	char header[32];
	sha1kit_dc_init(&h->dc, NULL);
	sha1kit_dc_update(&h->dc, type_name, strlen(type_name));
	int n = snprintf(header, sizeof(header), " %" PRIu64, size);
	sha1kit_dc_update(&h->dc, header, (size_t)n + 1); /* with the terminating NUL */
}

void skg_object_hash_update(struct skg_object_hasher *h, const void *data, size_t len)
{
	sha1kit_dc_update(&h->dc, data, len);
}

int skg_object_hash_final(struct skg_object_hasher *h, uint8_t oid[SKG_RAWSZ], struct skg_error *err)
{
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

int skg_hash_object(const char *type_name, const void *data, size_t len, bool literally,
                    uint8_t oid[SKG_RAWSZ], struct skg_error *err)
{
	if (!literally) {
		enum skg_type t = skg_type_from_name(type_name, strlen(type_name));
		if (t == SKG_NONE) {
			return skg_fail_sys(err, SKG_E_USAGE, 0, "invalid object type \"%s\"", type_name);
		}
		if (!skg_object_format_ok(t, data, len)) {
			return skg_fail_sys(err, SKG_E_CORRUPT, 0, "corrupt %s object", type_name);
		}
	}
	struct skg_object_hasher h;
	skg_object_hash_begin(&h, type_name, len);
	skg_object_hash_update(&h, data, len);
	return skg_object_hash_final(&h, oid, err);
}
