/*
 * md_last.c - the last block or two of a message (FIPS 180-4, section 5.1.1: its last length % 64
 * bytes, a 1 bit, zeros, the length in bits as a 64-bit big-endian number) for SHA-1, SHA-1DC and
 * SHA-256, written so that the block kernel's 16-byte loads of them are forwarded from the stores.
 *
 * Built byte by byte (a copy of the tail, a byte 0x80, a memset, two 4-byte stores of the length),
 * the block is read back at once by the kernel in 16-byte loads, each spanning several of those
 * stores: no CPU forwards such a load, which waits until the stores reach the cache. With SSSE3
 * each 16-byte part of the block is formed in a register and stored once: on AMD family 25 model 1
 * a one-shot SHA-1 of 64 bytes takes 11% less time, SHA-256 7% (docs/PERFORMANCE.md, "The last
 * block of a message").
 */
#include "internal.h"

#if SHA1KIT_X86
#include <immintrin.h>

/* byte i of a 16-byte load at offset 16 - n: take_[..] i + 16 - n for i < n, else 0x80 (PSHUFB
 * zeroes that byte); keep_[..] 0xff for i < n; mark_[..] 0x80 at i == n */
static const uint8_t take_[32] = {0,    1,    2,    3,    4,    5,    6,    7,    8,    9,    10,
                                  11,   12,   13,   14,   15,   0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                  0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80};
static const uint8_t keep_[32] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
static const uint8_t mark_[32] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80};

/* Bytes 16k..16k+15 of the first last block. */
__attribute__((target("ssse3"))) static inline __m128i part(const uint8_t *tail, size_t r, size_t k,
                                                            size_t before, int in_block)
{
	size_t lo = 16 * k, n;
	__m128i c;
	if (lo + 16 <= r)
		return _mm_loadu_si128((const __m128i *)(tail + lo));
	if (lo > r)
		return _mm_setzero_si128();
	n = r - lo; /* 0..15 bytes of the message, then the 0x80 */
	if (n == 0) {
		c = _mm_setzero_si128();
	} else if (in_block) {
		c = _mm_and_si128(_mm_loadu_si128((const __m128i *)(tail + lo)),
		                  _mm_loadu_si128((const __m128i *)(keep_ + 16 - n)));
	} else if (before + r >= 16) {
		/* the 16 bytes that end the message, moved down to the start */
		c = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(tail + r - 16)),
		                     _mm_loadu_si128((const __m128i *)(take_ + 16 - n)));
	} else {
		uint8_t b[16] = {0}; /* a message of fewer than 16 bytes */
		memcpy(b, tail + lo, n);
		c = _mm_loadu_si128((const __m128i *)b);
	}
	return _mm_or_si128(c, _mm_loadu_si128((const __m128i *)(mark_ + 16 - n)));
}

__attribute__((target("ssse3"))) static size_t last_ssse3(uint8_t out[128], const uint8_t *tail,
                                                          uint64_t length, size_t before, int in_block)
{
	size_t r = (size_t)(length & 63), blocks = r < 56 ? 1 : 2;
	/* the length in bits, big-endian, in bytes 8..15 of the last part */
	const __m128i bits = _mm_set_epi64x((long long)__builtin_bswap64(length << 3), 0);
	__m128i p3 = part(tail, r, 3, before, in_block);

	_mm_storeu_si128((__m128i *)out, part(tail, r, 0, before, in_block));
	_mm_storeu_si128((__m128i *)(out + 16), part(tail, r, 1, before, in_block));
	_mm_storeu_si128((__m128i *)(out + 32), part(tail, r, 2, before, in_block));
	if (blocks == 1) {
		_mm_storeu_si128((__m128i *)(out + 48), _mm_or_si128(p3, bits));
		return 1;
	}
	_mm_storeu_si128((__m128i *)(out + 48), p3);
	for (int k = 4; k < 7; k++)
		_mm_storeu_si128((__m128i *)(out + 16 * k), _mm_setzero_si128());
	_mm_storeu_si128((__m128i *)(out + 112), bits);
	return 2;
}
#endif

size_t sha1kit_md_last(uint8_t out[128], const uint8_t *tail, uint64_t length, size_t before, int in_block)
{
	size_t used = (size_t)(length & 63), blocks = 1;
	uint64_t bits = length << 3;

#if SHA1KIT_X86
	if (sha1kit_cpu_features() & SHA1KIT_CPU_SSSE3)
		return last_ssse3(out, tail, length, before, in_block);
#endif
	(void)before;
	(void)in_block;
	if (used)
		memcpy(out, tail, used);
	out[used++] = 0x80;
	if (used > 56) {
		memset(out + used, 0, 64 - used);
		out += 64;
		used = 0;
		blocks = 2;
	}
	memset(out + used, 0, 56 - used);
	sha1kit_store_be32(out + 56, (uint32_t)(bits >> 32));
	sha1kit_store_be32(out + 60, (uint32_t)bits);
	return blocks;
}
