/*
 * sha1kit/git_object.h - Git object IDs as `git hash-object` computes them, with its checks.
 *
 * An object ID is the SHA-1 of "<type> <size in decimal>\0" followed by the content (Git's
 * Documentation/gitformat-loose.txt, "Object format"), computed with SHA-1DC (sha1kit.h): content
 * that carries a known collision attack is refused, as a Git built with SHA-1DC refuses it.
 * Conventions of <sha1kit/git.h>: nothing prints or exits; contexts are copyable; nothing is
 * allocated on the hash path (the check allocates: a tree's .gitmodules blobs).
 */
#ifndef SHA1KIT_GIT_OBJECT_API_H
#define SHA1KIT_GIT_OBJECT_API_H

#include <sha1kit.h>
#include <sha1kit/git.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Options of the check `git hash-object` makes without --literally (skg_hash_options_default:
 * all zero).
 *   literally    skg_hash_object: no check, and any type name (git's --literally)
 *   objects_dir  the repository's object directory, where the .gitmodules / .gitattributes blobs
 *                a tree names are read for their own checks (NULL: outside a repository, none
 *                is found, as in a repository that lacks them)
 *   sink         git's lines: "object fails fsck: <msgId>: <text>" (level ERROR, msg_id set) and
 *                the tree decoder's own "error: ..." line before a badTree
 *   object_format  SKG_FORMAT_SHA1 (or 0, the default) or SKG_FORMAT_SHA256: the repository's
 *                (extensions.objectFormat). It sets the ID that skg_hash_object computes (20 or 32
 *                bytes) and the IDs the checks read in commits, tags and trees (40 or 64 hex
 *                digits; tree entries end in 20 or 32 bytes), as git's hash algorithm does.
 */
struct skg_hash_options {
	bool literally;
	const char *objects_dir;
	struct skg_sink sink;
	unsigned object_format;
};

void skg_hash_options_default(struct skg_hash_options *opt);

/*
 * The check of data[0..len) as an object of `type` (SKG_COMMIT, SKG_TREE, SKG_BLOB, SKG_TAG)
 * that `git hash-object` makes without --literally, as git 2.40 and later make it (commit
 * 69bbbe484b, "hash-object: use fsck for object checks"; object-file.c index_mem): git's fsck
 * checks of the object (those of `sha1kit fsck`, fsck.c of git 2.39.5) with --strict severities,
 * where every finding that is not ignored, a warning too, is printed as an error and fails the
 * object (hash_format_check_report). Blobs pass. Then, as git's fsck_finish, the .gitmodules and
 * .gitattributes blobs a tree names are read from opt->objects_dir and checked: their findings
 * are printed ("object fails fsck: gitmodulesMissing: unable to read .gitmodules blob" for one
 * not there) but do not fail the object. Git 2.39 and earlier made weaker checks of their own;
 * where the two differ (e.g. a tree with mode 100664 or an entry ".git", a commit without an
 * author, a tag without a tagger), sha1kit follows 2.40+.
 * Returns 0; -1 with err: SKG_E_GIT "refusing to create malformed object" (git dies with it,
 * exit 128, after the findings' lines), SKG_E_USAGE (type out of range), SKG_E_NOMEM.
 */
int skg_object_check(unsigned type, const uint8_t *data, size_t len, const struct skg_hash_options *opt,
                     struct skg_error *err);

/* An object ID being computed over content that arrives in pieces (copyable; its fields are the
 * functions' below). */
struct skg_object_hasher {
	sha1kit_dc_ctx dc;         /* SKG_FORMAT_SHA1 */
	sha1kit_sha256_ctx sha256; /* SKG_FORMAT_SHA256 */
	unsigned format;
	uint64_t size;   /* the content's size the header gave */
	uint64_t hashed; /* content bytes hashed so far */
	unsigned state;  /* 1 begun, 2 finished, 3 begun with an unknown format; 0 before */
};

/*
 * Start the ID of an object of type name type_name (NUL-terminated: "blob", "tree", "commit",
 * "tag", or with --literally any string) and content of `size` bytes: the header is hashed. The
 * final call checks that exactly `size` bytes came.
 */
void skg_object_hash_begin(struct skg_object_hasher *h, const char *type_name, uint64_t size);

/* skg_object_hash_begin in object format `format` (enum skg_object_format): SHA-1 (SHA-1DC) or
 * SHA-256 (FIPS 180-4, no collision detection to make); another value makes the final call fail. */
void skg_object_hash_begin_as(struct skg_object_hasher *h, unsigned format, const char *type_name,
                              uint64_t size);

/* The next len bytes of the content. */
void skg_object_hash_update(struct skg_object_hasher *h, const void *data, size_t len);

/*
 * The ID into oid (the true SHA-1, also with a collision attack). Returns 0, or -1 with
 * SKG_E_COLLISION when SHA-1DC detected a collision attack: err->msg names the disturbance vector
 * and the byte offset of the block within the object (header included), err->offset is that
 * offset; or -1 with SKG_E_USAGE and nothing in oid: not as many content bytes as the header said
 * ("N bytes of content where the header says M": the ID of no object), a hasher not begun or
 * already finished, an unknown format (skg_object_hash_begin_as), a SHA-256 hasher (its ID is 32
 * bytes: skg_object_hash_final_as).
 */
int skg_object_hash_final(struct skg_object_hasher *h, uint8_t oid[SKG_RAWSZ], struct skg_error *err);

/* skg_object_hash_final for either format: skg_format_rawsz(h->format) bytes into oid (SHA-1: 20,
 * and the same collision report; SHA-256: 32), with the same errors of use. */
int skg_object_hash_final_as(struct skg_object_hasher *h, uint8_t oid[SKG_MAX_RAWSZ], struct skg_error *err);

/*
 * One-shot: check (skg_object_check, unless opt->literally) and hash data[0..len) as an object of
 * type_name, as `git hash-object [-t TYPE] [--literally]` does. opt NULL: the defaults (checked,
 * no repository, findings dropped). Returns 0 with oid; -1 with err: SKG_E_USAGE (type_name
 * NULL, data NULL with len > 0, an object_format other than 0, SKG_FORMAT_SHA1 or
 * SKG_FORMAT_SHA256; without literally, a type other than blob, tree, commit, tag), SKG_E_GIT "refusing to
 * create malformed object" (fails the check; the findings went to opt->sink), SKG_E_COLLISION, SKG_E_NOMEM.
 * oid receives skg_format_rawsz(opt->object_format) bytes: 20 (SHA-1DC), or 32 (SHA-256) when
 * opt->object_format is SKG_FORMAT_SHA256.
 */
int skg_hash_object(const char *type_name, const void *data, size_t len, const struct skg_hash_options *opt,
                    uint8_t *oid, struct skg_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SHA1KIT_GIT_OBJECT_API_H */
