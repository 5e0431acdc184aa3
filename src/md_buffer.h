/*
 * md_buffer.h - the Merkle-Damgard framing that SHA-1 and SHA-256 share (FIPS 180-4): 64-byte
 * message blocks, the tail of a message kept in a 64-byte buffer until the next call, and the
 * padding of section 5.1.1 (a 1 bit, zeros, the message length in bits as a 64-bit big-endian
 * number, built by sha1kit_md_last in src/md_last.c). Used by the streaming contexts and one-shot
 * calls of sha1_fast.c and sha256.c; inline, as it is on the path of every call.
 */
#ifndef SHA1KIT_MD_BUFFER_H
#define SHA1KIT_MD_BUFFER_H

#include "internal.h"

/* A block kernel of either hash: compress nblocks blocks at `blocks` into the chaining value. */
typedef void (*sha1kit_md_blocks_fn)(uint32_t *state, const uint8_t *blocks, size_t nblocks);

/* Add data[0..len) to a message of *length bytes so far whose last *length % 64 bytes wait in
 * buffer: whole blocks go to `blocks`, the rest stays in buffer. */
static inline void sha1kit_md_update(uint32_t *state, uint8_t buffer[64], uint64_t *length,
                                     sha1kit_md_blocks_fn blocks, const void *data, size_t len)
{
	const uint8_t *p = data;
	size_t used = (size_t)(*length & 63);

	if (len == 0)
		return;
	*length += (uint64_t)len;
	if (used) {
		size_t take = 64 - used;
		if (take > len) {
			memcpy(buffer + used, p, len);
			return;
		}
		memcpy(buffer + used, p, take);
		blocks(state, buffer, 1);
		p += take;
		len -= take;
	}
	if (len >= 64) {
		blocks(state, p, len / 64);
		p += len & ~(size_t)63;
		len &= 63;
	}
	if (len)
		memcpy(buffer, p, len);
}

/* The padding of a message of `length` bytes whose last length % 64 bytes wait in buffer,
 * compressed into state (one or two blocks); the caller stores the digest from state. */
static inline void sha1kit_md_pad(uint32_t *state, const uint8_t buffer[64], uint64_t length,
                                  sha1kit_md_blocks_fn blocks)
{
	uint8_t last[128] __attribute__((aligned(16)));
	blocks(state, last, sha1kit_md_last(last, buffer, length, 0, 1));
}

/* A whole message data[0..len) into state (the one-shot calls): its whole blocks straight from
 * data, the last one or two built by sha1kit_md_last from its tail. */
static inline void sha1kit_md_oneshot(uint32_t *state, sha1kit_md_blocks_fn blocks, const void *data,
                                      size_t len)
{
	const uint8_t *p = data;
	uint8_t last[128] __attribute__((aligned(16)));
	size_t full = len / 64;

	if (full)
		blocks(state, p, full);
	blocks(state, last, sha1kit_md_last(last, full ? p + 64 * full : p, len, 64 * full, 0));
}

#endif /* SHA1KIT_MD_BUFFER_H */
