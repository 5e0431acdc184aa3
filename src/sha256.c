/*
 * sha256.c - streaming SHA-256 (FIPS 180-4, section 6.2): buffering, padding (section 5.1.1, the
 * same as SHA-1's) and the 64-bit message length, over whichever block kernel dispatch chose for
 * the context; the one-shot call. The batch call (many messages in the lanes of a vector) is in
 * batch.c.
 */
#include "internal.h"
#include "md_buffer.h"

/* sha1kit_sha256_init on kernel index `kernel`. */
static void sha256_init_kernel(sha1kit_sha256_ctx *ctx, uint32_t kernel)
{
	memcpy(ctx->h, sha1kit_sha256_iv, sizeof(ctx->h));
	ctx->kernel = kernel;
	ctx->length = 0;
}

void sha1kit_sha256_init(sha1kit_sha256_ctx *ctx)
{
	sha256_init_kernel(ctx, sha1kit_select_sha256_kernel());
}

int sha1kit_sha256_init_on(sha1kit_sha256_ctx *ctx, uint32_t kernel)
{
	int ok = sha1kit_sha256_kernel_supported(kernel);
	sha256_init_kernel(ctx, ok ? kernel : sha1kit_select_sha256_kernel());
	return ok ? 0 : -1;
}

void sha1kit_sha256_update(sha1kit_sha256_ctx *ctx, const void *data, size_t len)
{
	sha1kit_md_update(ctx->h, ctx->buffer, &ctx->length, sha1kit_sha256_kernel_fn(ctx->kernel), data,
	                  len);
}

void sha1kit_sha256_final(sha1kit_sha256_ctx *ctx, uint8_t digest[SHA1KIT_SHA256_DIGEST_SIZE])
{
	sha1kit_md_pad(ctx->h, ctx->buffer, ctx->length, sha1kit_sha256_kernel_fn(ctx->kernel));
	for (int i = 0; i < 8; i++)
		sha1kit_store_be32(digest + 4 * i, ctx->h[i]);
	sha256_init_kernel(ctx, ctx->kernel);
}

void sha1kit_sha256(const void *data, size_t len, uint8_t digest[SHA1KIT_SHA256_DIGEST_SIZE])
{
	uint32_t h[8];
	memcpy(h, sha1kit_sha256_iv, sizeof(h));
	sha1kit_md_oneshot(h, sha1kit_sha256_kernel_fn(sha1kit_select_sha256_kernel()), data, len);
	for (int i = 0; i < 8; i++)
		sha1kit_store_be32(digest + 4 * i, h[i]);
}
