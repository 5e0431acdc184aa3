/*
 * sha1dc/sha1.h - the API of the reference SHA-1DC library ("libsha1detectcoll",
 * cr-marcstevens/sha1collisiondetection), provided by sha1kit as a drop-in replacement.
 *
 * Programs written against the reference library (Git built with DC_SHA1_EXTERNAL, libgit2, ...)
 * compile against this header and link -lsha1detectcoll unchanged. They get the same functions,
 * semantics and defaults, and the same size and alignment of SHA1_CTX, so the shared library
 * (SONAME libsha1detectcoll.so.1) can also replace the reference's under programs already built.
 * The work is done by sha1kit's SHA-1DC (include <sha1kit.h> for the native API, which also offers
 * plain SHA-1 and reports where a collision was detected).
 *
 * SHA-1 is FIPS 180-4. Collision detection: M. Stevens, "Counter-cryptanalysis", CRYPTO 2013;
 * M. Stevens and D. Shumow, "Speeding up detection of SHA-1 collision attacks using unavoidable
 * attack conditions", USENIX Security 2017.
 *
 * Rules (as for the reference):
 *  - Call SHA1DCInit first; the SHA1DCSet* functions may then be called at any time and apply to
 *    the blocks processed after the call (normally right after SHA1DCInit).
 *  - A SHA1_CTX holds no pointer into itself: a copy made with memcpy or by assignment at any point
 *    continues independently (Git clones contexts this way). It may live anywhere malloc puts it.
 *  - Thread-safe as long as each context is used by one thread at a time.
 *  - Differences from the reference, none of which a conforming caller can observe:
 *    the callback of SHA1DCSetCallback is really called (the reference stores it and never calls
 *    it); SHA1DCFinal leaves the context ready for a new message with the same settings (the
 *    reference leaves it unusable until SHA1DCInit); the reference's internal functions
 *    (sha1_compression_states, ubc_check, the DV table) are not provided.
 */
#ifndef SHA1DC_SHA1_H
#define SHA1DC_SHA1_H

#if defined(__cplusplus)
extern "C" {
#endif

/* Like the reference: define SHA1DC_NO_STANDARD_INCLUDES when the includer already has uint32_t,
 * uint64_t and size_t. */
#ifndef SHA1DC_NO_STANDARD_INCLUDES
#include <stddef.h>
#include <stdint.h>
#endif

/*
 * Called for every 64-byte block in which a collision attack is detected (sha1kit calls it; the
 * reference library never did):
 *   void callback(uint64_t byteoffset, const uint32_t ihvin1[5], const uint32_t ihvin2[5],
 *                 const uint32_t m1[80], const uint32_t m2[80]);
 * byteoffset: offset of the block in the message (a multiple of 64; a padding block added by
 *   SHA1DCFinal has an offset at or past the message length);
 * ihvin1: the chaining value before the block, as five 32-bit words (h0..h4);
 * ihvin2: the chaining value the colliding partner block would need (reconstructed by running the
 *   steps backwards with the partner's message); equal to ihvin1 for a reduced-round collision;
 * m1: the block's expanded message W[0..79] (words read big-endian from the block, then expanded);
 * m2: the partner block's expanded message, m1[t] ^ dm[t] for the disturbance vector that matched.
 * The pointers are valid during the call only. It is called before the safe hash recompresses the
 * block, and must not use the context.
 */
typedef void (*collision_block_callback)(uint64_t, const uint32_t *, const uint32_t *, const uint32_t *,
                                         const uint32_t *);

/*
 * The SHA-1 context. Opaque: callers must not read or write its members. Its members mirror the
 * types of the reference's fields so that sizeof and alignment equal the reference's on every ABI
 * (2400 bytes aligned to 8 on x86-64 and other LP64 targets; 2396 aligned to 4 on i386); sha1kit
 * keeps its own state inside.
 */
typedef struct {
	uint64_t sha1dc_opaque_total;
	uint32_t sha1dc_opaque_state[26]; /* the reference's ihv[5], buffer[64] and five int flags */
	collision_block_callback sha1dc_opaque_callback;
	uint32_t sha1dc_opaque_scratch[570]; /* the reference's ihv1, ihv2, m1, m2 and states */
} SHA1_CTX;

/* Initialise (or restart) a context: empty message, safe hash ON, UBC ON, collision detection ON,
 * reduced-round detection OFF, no callback. */
void SHA1DCInit(SHA1_CTX *ctx);

/*
 * Safe hash (default ON): a block in which a collision attack is detected is compressed three
 * times in a chain instead of once (as if SHA-1 had 240 steps for that block), so the two colliding
 * inputs get different digests and signature forgeries based on them fail. Inputs without a
 * detection keep their true SHA-1. OFF: the digest is always the true SHA-1 and only the return
 * value of SHA1DCFinal reports the attack (what Git uses). Non-zero = ON.
 */
void SHA1DCSetSafeHash(SHA1_CTX *ctx, int safehash);

/* Use the unavoidable bit conditions to skip the disturbance vectors that cannot apply (default ON;
 * OFF checks all 32 on every block: the same results, slower). Non-zero = ON. */
void SHA1DCSetUseUBC(SHA1_CTX *ctx, int ubc_check);

/* Collision detection (default ON). OFF: plain SHA-1, SHA1DCFinal returns 0. Non-zero = ON. */
void SHA1DCSetUseDetectColl(SHA1_CTX *ctx, int detect_coll);

/* Also flag collisions of reduced-round SHA-1 (default OFF; a test of the detector, may flag inputs
 * that are no attack on full SHA-1). Non-zero = ON. */
void SHA1DCSetDetectReducedRoundCollision(SHA1_CTX *ctx, int reduced_round_coll);

/* Set the function called on every block in which an attack is detected; NULL (the default)
 * disables it. Copied with the context. */
void SHA1DCSetCallback(SHA1_CTX *ctx, collision_block_callback callback);

/* Absorb `len` bytes at `buf` (any alignment; NULL allowed when len is 0; any size_t length). */
void SHA1DCUpdate(SHA1_CTX *ctx, const char *buf, size_t len);

/*
 * Pad the message (the padding blocks are checked too), write the 20-byte digest to `output` and
 * return 1 if a collision attack was detected in any block since SHA1DCInit (the flag is sticky),
 * else 0. With the safe hash ON and an attack detected, `output` is the safe hash. The context is
 * then reset to the empty message, keeping its settings and callback.
 */
int SHA1DCFinal(unsigned char output[20], SHA1_CTX *ctx);

#if defined(__cplusplus)
}
#endif

#ifdef SHA1DC_CUSTOM_TRAILING_INCLUDE_SHA1_H
#include SHA1DC_CUSTOM_TRAILING_INCLUDE_SHA1_H
#endif

#endif /* SHA1DC_SHA1_H */
