/*
 * sha1_fast.c - streaming plain SHA-1 (FIPS 180-4): buffering, padding (section 5.1.1) and the
 * 64-bit message length, over whichever block kernel dispatch chose for the context.
 */
#include "internal.h"

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
	const uint8_t *p = data;
	sha1kit_blocks_fn blocks = sha1kit_fast_kernel_fn(ctx->kernel);
	size_t used = (size_t)(ctx->length & 63);

	if (len == 0)
		return;
	ctx->length += (uint64_t)len;
	if (used) {
		size_t take = 64 - used;
		if (take > len) {
			memcpy(ctx->buffer + used, p, len);
			return;
		}
		memcpy(ctx->buffer + used, p, take);
		blocks(ctx->ihv, ctx->buffer, 1);
		p += take;
		len -= take;
	}
	if (len >= 64) {
		blocks(ctx->ihv, p, len / 64);
		p += len & ~(size_t)63;
		len &= 63;
	}
	if (len)
		memcpy(ctx->buffer, p, len);
}

void sha1kit_fast_final(sha1kit_fast_ctx *ctx, uint8_t digest[SHA1KIT_DIGEST_SIZE])
{
	sha1kit_blocks_fn blocks = sha1kit_fast_kernel_fn(ctx->kernel);
	size_t used = (size_t)(ctx->length & 63);
	uint64_t bits = ctx->length << 3;
	uint8_t *buf = ctx->buffer;

	buf[used++] = 0x80;
	if (used > 56) {
		memset(buf + used, 0, 64 - used);
		blocks(ctx->ihv, buf, 1);
		used = 0;
	}
	memset(buf + used, 0, 56 - used);
	sha1kit_store_be32(buf + 56, (uint32_t)(bits >> 32));
	sha1kit_store_be32(buf + 60, (uint32_t)bits);
	blocks(ctx->ihv, buf, 1);
	for (int i = 0; i < 5; i++)
		sha1kit_store_be32(digest + 4 * i, ctx->ihv[i]);
	sha1kit_fast_init(ctx);
}

void sha1kit_fast(const void *data, size_t len, uint8_t digest[SHA1KIT_DIGEST_SIZE])
{
	sha1kit_fast_ctx ctx;
	sha1kit_fast_init(&ctx);
	sha1kit_fast_update(&ctx, data, len);
	sha1kit_fast_final(&ctx, digest);
}
