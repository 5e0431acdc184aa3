/*
 * sha256.c - streaming SHA-256 (FIPS 180-4, section 6.2): buffering, padding (section 5.1.1, the
 * same as SHA-1's) and the 64-bit message length, over whichever block kernel dispatch chose for
 * the context; the one-shot call and the batch call (one message after another for now).
 */
#include "internal.h"

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
	const uint8_t *p = data;
	sha1kit_sha256_blocks_fn blocks = sha1kit_sha256_kernel_fn(ctx->kernel);
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
		blocks(ctx->h, ctx->buffer, 1);
		p += take;
		len -= take;
	}
	if (len >= 64) {
		blocks(ctx->h, p, len / 64);
		p += len & ~(size_t)63;
		len &= 63;
	}
	if (len)
		memcpy(ctx->buffer, p, len);
}

void sha1kit_sha256_final(sha1kit_sha256_ctx *ctx, uint8_t digest[SHA1KIT_SHA256_DIGEST_SIZE])
{
	sha1kit_sha256_blocks_fn blocks = sha1kit_sha256_kernel_fn(ctx->kernel);
	size_t used = (size_t)(ctx->length & 63);
	uint64_t bits = ctx->length << 3;
	uint8_t *buf = ctx->buffer;

	buf[used++] = 0x80;
	if (used > 56) {
		memset(buf + used, 0, 64 - used);
		blocks(ctx->h, buf, 1);
		used = 0;
	}
	memset(buf + used, 0, 56 - used);
	sha1kit_store_be32(buf + 56, (uint32_t)(bits >> 32));
	sha1kit_store_be32(buf + 60, (uint32_t)bits);
	blocks(ctx->h, buf, 1);
	for (int i = 0; i < 8; i++)
		sha1kit_store_be32(digest + 4 * i, ctx->h[i]);
	sha256_init_kernel(ctx, ctx->kernel);
}

void sha1kit_sha256(const void *data, size_t len, uint8_t digest[SHA1KIT_SHA256_DIGEST_SIZE])
{
	sha1kit_sha256_ctx ctx;
	sha1kit_sha256_init(&ctx);
	sha1kit_sha256_update(&ctx, data, len);
	sha1kit_sha256_final(&ctx, digest);
}

void sha1kit_sha256_batch(const sha1kit_msg *msgs, size_t n, uint8_t *digests)
{
	sha1kit_sha256_ctx ctx;
	for (size_t i = 0; i < n; i++) {
		sha1kit_sha256_init(&ctx);
		sha1kit_sha256_update(&ctx, msgs[i].data, msgs[i].len);
		sha1kit_sha256_final(&ctx, digests + SHA1KIT_SHA256_DIGEST_SIZE * i);
	}
}
