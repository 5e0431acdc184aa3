/*
 * compat_sha1dc.c - the reference SHA-1DC API (include/sha1dc/sha1.h) over sha1kit's SHA-1DC:
 * the body of libsha1detectcoll, a drop-in for cr-marcstevens/sha1collisiondetection's library.
 *
 * SHA1_CTX is storage with the reference's size and alignment; a `compat_ctx` (sha1kit's
 * sha1kit_dc_ctx plus the reference-style callback) lives at its start. Neither holds a pointer
 * into the context, so callers may copy it with memcpy (Git does). The settings functions write the
 * context's option fields directly: the reference allows changing them after SHA1DCInit, and
 * sha1kit_dc_init would restart the message.
 *
 * Defaults are the reference's SHA1DCInit: safe hash ON, UBC ON, detection ON, reduced-round OFF.
 * The reference's collision_block_callback gets the offset, both input chaining values and both
 * expanded messages of each flagged block, from sha1kit's detection callback.
 *
 * This file is built with -fno-strict-aliasing: the caller's SHA1_CTX object is accessed through
 * the compat_ctx type.
 */
#include <assert.h>
#include <string.h>

#include "sha1kit.h"

/* The SHA1DC* functions are the library's exported API (everything else is hidden by default). */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif
#include "sha1dc/sha1.h"
#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

struct compat_ctx {
	sha1kit_dc_ctx dc;
	collision_block_callback callback; /* the reference-style callback, NULL: none */
};

static_assert(sizeof(struct compat_ctx) <= sizeof(SHA1_CTX), "sha1kit's state must fit in SHA1_CTX");
static_assert(_Alignof(struct compat_ctx) <= _Alignof(SHA1_CTX), "SHA1_CTX must be aligned for it");
#if defined(__x86_64__) && defined(__LP64__)
/* The reference's struct on x86-64: 8 + 20 + 64 + 5*4 (+0 padding) + 8 + 20 + 20 + 320 + 320 + 1600. */
static_assert(sizeof(SHA1_CTX) == 2400 && _Alignof(SHA1_CTX) == 8, "ABI of the reference SHA1_CTX");
#endif

static inline struct compat_ctx *compat(SHA1_CTX *ctx)
{
	return (struct compat_ctx *)(void *)ctx;
}

/* sha1kit's callback -> the reference's collision_block_callback. `user` is the compat_ctx of the
 * call in progress (set by prepare(), so that copies of a context call their own callback). */
static void forward_callback(void *user, const sha1kit_dc_block_info *info)
{
	const struct compat_ctx *c = user;
	if (c->callback != NULL) {
		c->callback(info->offset, info->ihv, info->ihv_partner, info->W, info->W_partner);
	}
}

/* Before processing blocks: point sha1kit's callback at this context (it may be a memcpy copy). */
static inline void prepare(struct compat_ctx *c)
{
	if (c->callback != NULL) {
		sha1kit_dc_set_callback(&c->dc, forward_callback, c);
	}
}

void SHA1DCInit(SHA1_CTX *ctx)
{
	struct compat_ctx *c = compat(ctx);
	sha1kit_dc_options opt;

	sha1kit_dc_options_default(&opt);
	opt.safe_hash = 1; /* the reference's default (sha1kit's own default is 0) */
	opt.use_ubc = 1;
	opt.detect = 1;
	opt.reduced_round = 0;
	sha1kit_dc_init(&c->dc, &opt);
	c->callback = NULL;
}

void SHA1DCSetSafeHash(SHA1_CTX *ctx, int safehash)
{
	compat(ctx)->dc.options.safe_hash = safehash != 0;
}

void SHA1DCSetUseUBC(SHA1_CTX *ctx, int ubc_check)
{
	compat(ctx)->dc.options.use_ubc = ubc_check != 0;
}

void SHA1DCSetUseDetectColl(SHA1_CTX *ctx, int detect_coll)
{
	compat(ctx)->dc.options.detect = detect_coll != 0;
}

void SHA1DCSetDetectReducedRoundCollision(SHA1_CTX *ctx, int reduced_round_coll)
{
	compat(ctx)->dc.options.reduced_round = reduced_round_coll != 0;
}

void SHA1DCSetCallback(SHA1_CTX *ctx, collision_block_callback callback)
{
	struct compat_ctx *c = compat(ctx);
	c->callback = callback;
	if (callback != NULL) {
		sha1kit_dc_set_callback(&c->dc, forward_callback, c);
	} else {
		sha1kit_dc_set_callback(&c->dc, NULL, NULL);
	}
}

void SHA1DCUpdate(SHA1_CTX *ctx, const char *buf, size_t len)
{
	struct compat_ctx *c = compat(ctx);
	prepare(c);
	sha1kit_dc_update(&c->dc, buf, len);
}

int SHA1DCFinal(unsigned char output[20], SHA1_CTX *ctx)
{
	struct compat_ctx *c = compat(ctx);
	prepare(c);
	return sha1kit_dc_final(&c->dc, output, NULL) == SHA1KIT_DC_COLLISION ? 1 : 0;
}
