/*
 * sha1kit/git_object.h - Git object IDs as `git hash-object` computes them, with its checks.
 *
 * An object ID is the SHA-1 of "<type> <size in decimal>\0" followed by the content (Git's
 * Documentation/gitformat-loose.txt, "Object format"), computed with SHA-1DC (sha1kit.h): content
 * that carries a known collision attack is refused, as a Git built with SHA-1DC refuses it.
 * Conventions of <sha1kit/git.h>: nothing prints or exits; no allocation; contexts are copyable.
 */
#ifndef SHA1KIT_GIT_OBJECT_API_H
#define SHA1KIT_GIT_OBJECT_API_H

#include <sha1kit.h>
#include <sha1kit/git.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The format check `git hash-object` makes without --literally (git 2.39: index_mem ->
 * check_tree / check_commit / check_tag, i.e. tree-walk.c decode_tree_entry, commit.c
 * parse_commit_buffer, tag.c parse_tag_buffer): true when data[0..len) passes as an object of
 * `type` (SKG_TREE, SKG_COMMIT, SKG_TAG; a blob always passes; any other type does not).
 */
bool skg_object_format_ok(unsigned type, const uint8_t *data, size_t len);

/* An object ID being computed over content that arrives in pieces. */
struct skg_object_hasher {
	sha1kit_dc_ctx dc;
};

/*
 * Start the ID of an object of type name type_name (NUL-terminated: "blob", "tree", "commit",
 * "tag", or with --literally any string) and content of `size` bytes: the header is hashed.
 */
void skg_object_hash_begin(struct skg_object_hasher *h, const char *type_name, uint64_t size);

/* The next len bytes of the content. */
void skg_object_hash_update(struct skg_object_hasher *h, const void *data, size_t len);

/*
 * The ID into oid (always: the true SHA-1). Returns 0, or -1 with SKG_E_COLLISION when SHA-1DC
 * detected a collision attack: err->msg names the disturbance vector and the byte offset of the
 * block within the object (header included), err->offset is that offset.
 */
int skg_object_hash_final(struct skg_object_hasher *h, uint8_t oid[SKG_RAWSZ], struct skg_error *err);

/*
 * One-shot: check (unless `literally`) and hash data[0..len) as an object of type_name, as
 * `git hash-object [-t TYPE] [--literally]` does. Returns 0 with oid; -1 with err: SKG_E_USAGE
 * (without literally, a type other than blob, tree, commit, tag), SKG_E_CORRUPT ("corrupt tree
 * object": fails git's format check), SKG_E_COLLISION.
 */
int skg_hash_object(const char *type_name, const void *data, size_t len, bool literally,
                    uint8_t oid[SKG_RAWSZ], struct skg_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SHA1KIT_GIT_OBJECT_API_H */
