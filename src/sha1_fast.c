/*
 * sha1_fast.c - streaming plain SHA-1 (FIPS 180-4): buffering, padding (section 5.1.1) and the
 * 64-bit message length, over whichever block kernel dispatch chose for the context.
 */
#include "internal.h"
#include "md_buffer.h"

/* sha1kit_fast_init on kernel index `kernel`. */
static void fast_init_kernel(sha1kit_fast_ctx *ctx, uint32_t kernel)
{
	memcpy(ctx->ihv, sha1kit_iv, sizeof(ctx->ihv));
	ctx->kernel = kernel;
	ctx->length = 0;
}

void sha1kit_fast_init(sha1kit_fast_ctx *ctx)
{
	fast_init_kernel(ctx, sha1kit_select_fast_kernel());
}

/* As sha1kit_fast_init, with the check in place of the choice: a benchmark times it per message. */
int sha1kit_fast_init_on(sha1kit_fast_ctx *ctx, uint32_t kernel)
{
	int ok = sha1kit_kernel_supported(kernel);
	fast_init_kernel(ctx, ok ? kernel : sha1kit_select_fast_kernel());
	return ok ? 0 : -1;
}

void sha1kit_fast_update(sha1kit_fast_ctx *ctx, const void *data, size_t len)
{
	sha1kit_md_update(ctx->ihv, ctx->buffer, &ctx->length, sha1kit_fast_kernel_fn(ctx->kernel), data,
	                  len);
}

void sha1kit_fast_final(sha1kit_fast_ctx *ctx, uint8_t digest[SHA1KIT_DIGEST_SIZE])
{
	sha1kit_md_pad(ctx->ihv, ctx->buffer, ctx->length, sha1kit_fast_kernel_fn(ctx->kernel));
	for (int i = 0; i < 5; i++)
		sha1kit_store_be32(digest + 4 * i, ctx->ihv[i]);
	sha1kit_fast_init(ctx);
}

void sha1kit_fast(const void *data, size_t len, uint8_t digest[SHA1KIT_DIGEST_SIZE])
{
	uint32_t ihv[5];
	memcpy(ihv, sha1kit_iv, sizeof(ihv));
	sha1kit_md_oneshot(ihv, sha1kit_fast_kernel_fn(sha1kit_select_fast_kernel()), data, len);
	for (int i = 0; i < 5; i++)
		sha1kit_store_be32(digest + 4 * i, ihv[i]);
}
