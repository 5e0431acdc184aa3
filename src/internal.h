/* internal.h - declarations shared by the library's source files (not installed). */
#ifndef SHA1KIT_INTERNAL_H
#define SHA1KIT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sha1kit.h"

/* Byte order comes from the compiler (GCC/Clang predefine __BYTE_ORDER__); the test suite has a
 * canary that checks it against the bytes of an integer in memory. */
#if defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define SHA1KIT_BIG_ENDIAN 1
#elif defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SHA1KIT_BIG_ENDIAN 0
#elif defined(_WIN32)
#define SHA1KIT_BIG_ENDIAN 0
#else
#error "cannot tell the byte order: define __BYTE_ORDER__ (GCC/Clang do)"
#endif

static inline uint32_t sha1kit_rotl32(uint32_t x, unsigned n)
{
	return (x << n) | (x >> (32 - n));
}

static inline uint32_t sha1kit_rotr32(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

static inline uint32_t sha1kit_bswap32(uint32_t x)
{
#if defined(__GNUC__)
	return __builtin_bswap32(x);
#else
	return (x >> 24) | ((x >> 8) & 0xff00u) | ((x << 8) & 0xff0000u) | (x << 24);
#endif
}

/* Big-endian 32-bit load/store through memcpy: any alignment, no type punning. */
static inline uint32_t sha1kit_load_be32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
#if SHA1KIT_BIG_ENDIAN
	return v;
#else
	return sha1kit_bswap32(v);
#endif
}

static inline void sha1kit_store_be32(uint8_t *p, uint32_t v)
{
#if !SHA1KIT_BIG_ENDIAN
	v = sha1kit_bswap32(v);
#endif
	memcpy(p, &v, 4);
}

/* SHA-1 initial chaining value, FIPS 180-4 section 5.3.1. */
extern const uint32_t sha1kit_iv[5];

/*
 * The one kernel signature (DESIGN.md section 3): compress `nblocks` consecutive 64-byte blocks
 * at `blocks` (any alignment) into the chaining value `ihv`. Every ISA provides one, with a suffix.
 */
typedef void (*sha1kit_blocks_fn)(uint32_t ihv[5], const uint8_t *blocks, size_t nblocks);

void sha1kit_blocks_portable(uint32_t ihv[5], const uint8_t *blocks, size_t nblocks);
void sha1kit_blocks_shani(uint32_t ihv[5], const uint8_t *blocks, size_t nblocks);
/* SHA-NI with the expansion of groups 8..19 in SSE2 (src/x86/sha1_shani_steps.h) */
void sha1kit_blocks_shani_rol2(uint32_t ihv[5], const uint8_t *blocks, size_t nblocks);
void sha1kit_blocks_ssse3(uint32_t ihv[5], const uint8_t *blocks, size_t nblocks);
void sha1kit_blocks_avx2(uint32_t ihv[5], const uint8_t *blocks, size_t nblocks);
void sha1kit_blocks_armv8(uint32_t ihv[5], const uint8_t *blocks, size_t nblocks);

/* Architectures with accelerated kernels, and the compile-time opt-outs (-DSHA1KIT_NO_<ISA>). */
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define SHA1KIT_X86 1
#else
#define SHA1KIT_X86 0
#endif
#if defined(__aarch64__) && defined(__GNUC__) && defined(__linux__)
#define SHA1KIT_ARM64 1
#else
#define SHA1KIT_ARM64 0
#endif
#if SHA1KIT_X86 && !defined(SHA1KIT_NO_SHANI)
#define SHA1KIT_HAVE_SHANI 1
#else
#define SHA1KIT_HAVE_SHANI 0
#endif
#if SHA1KIT_X86 && !defined(SHA1KIT_NO_SSSE3)
#define SHA1KIT_HAVE_SSSE3 1
#else
#define SHA1KIT_HAVE_SSSE3 0
#endif
#if SHA1KIT_X86 && !defined(SHA1KIT_NO_AVX2)
#define SHA1KIT_HAVE_AVX2 1
#else
#define SHA1KIT_HAVE_AVX2 0
#endif
#if SHA1KIT_X86 && !defined(SHA1KIT_NO_SSE2)
#define SHA1KIT_HAVE_SSE2 1
#else
#define SHA1KIT_HAVE_SSE2 0
#endif
#if SHA1KIT_X86 && defined(__x86_64__) && !defined(SHA1KIT_NO_AVX512)
#define SHA1KIT_HAVE_AVX512 1
#else
#define SHA1KIT_HAVE_AVX512 0
#endif
#if SHA1KIT_ARM64 && !defined(SHA1KIT_NO_ARMV8)
#define SHA1KIT_HAVE_ARMV8 1
#else
#define SHA1KIT_HAVE_ARMV8 0
#endif

/* CPU features, one bit each; bit i is named sha1kit_cpu_feature_name(i) (public API: keep the order). */
#define SHA1KIT_CPU_SSE2     (1u << 0)
#define SHA1KIT_CPU_SSSE3    (1u << 1)
#define SHA1KIT_CPU_SSE41    (1u << 2)
#define SHA1KIT_CPU_AVX2     (1u << 3)
#define SHA1KIT_CPU_BMI2     (1u << 4) /* BMI1 and BMI2 */
#define SHA1KIT_CPU_AVX512   (1u << 5) /* AVX-512 F and BW, with the OS saving the ZMM state */
#define SHA1KIT_CPU_SHA      (1u << 6) /* x86 SHA-NI (with SSSE3 and SSE4.1) */
#define SHA1KIT_CPU_ARM_SHA1 (1u << 7) /* ARMv8 SHA1 instructions */
#define SHA1KIT_CPU_ARM_SHA2 (1u << 8) /* ARMv8 SHA256 instructions */
#define SHA1KIT_CPU_COUNT    9
#define SHA1KIT_CPU_ALL      ((1u << SHA1KIT_CPU_COUNT) - 1)

uint32_t sha1kit_x86_probe(void);
uint32_t sha1kit_arm_probe(void);

/* Vendor, family and model, for the kernel preferences (src/dispatch.c); on x86 from CPUID
 * (src/x86/cpu_features.c), as Linux shows them in /proc/cpuinfo ("cpu family", "model"). */
#define SHA1KIT_VENDOR_OTHER 0
#define SHA1KIT_VENDOR_INTEL 1
#define SHA1KIT_VENDOR_AMD   2
typedef struct sha1kit_cpu_id {
	uint32_t vendor; /* SHA1KIT_VENDOR_* */
	uint32_t family, model;
} sha1kit_cpu_id;
void sha1kit_x86_cpu_id(sha1kit_cpu_id *id);

/* The features of this CPU, probed once per process and cached, less those SHA1KIT_CPU turns off. */
uint32_t sha1kit_cpu_features(void);

/* The kernel table (src/dispatch.c), fastest first; the last entry is "portable". */
/* Two independent streams at once (same block count for both); NULL where a kernel has none. */
typedef void (*sha1kit_blocks_x2_fn)(uint32_t ihv0[5], const uint8_t *p0, uint32_t ihv1[5], const uint8_t *p1,
                                     size_t nblocks);
void sha1kit_blocks_shani_x2(uint32_t ihv0[5], const uint8_t *p0, uint32_t ihv1[5], const uint8_t *p1,
                             size_t nblocks);

typedef struct sha1kit_kernel {
	const char *name;
	sha1kit_blocks_fn blocks;
	sha1kit_blocks_x2_fn blocks_x2;
	uint32_t needs; /* SHA1KIT_CPU_* bits that must all be present */
} sha1kit_kernel;

extern const sha1kit_kernel sha1kit_kernels[];
extern const uint32_t sha1kit_kernel_count;

/* Whether kernel i can run on this CPU. */
int sha1kit_kernel_supported(uint32_t i);

/* The kernel chosen for new contexts: the first supported entry. */
uint32_t sha1kit_select_fast_kernel(void);

/* The block function of kernel index `kernel` (an index a context recorded at init). */
static inline sha1kit_blocks_fn sha1kit_fast_kernel_fn(uint32_t kernel)
{
	return sha1kit_kernels[kernel < sha1kit_kernel_count ? kernel : sha1kit_kernel_count - 1].blocks;
}

/*
 * SHA-256 (src/sha256.c streaming, src/sha256_portable.c constants and portable kernel): the same
 * kernel signature with the eight-word chaining value H0..H7.
 */
extern const uint32_t sha1kit_sha256_iv[8]; /* FIPS 180-4 section 5.3.3 */
extern const uint32_t sha1kit_sha256_k[64]; /* FIPS 180-4 section 4.2.2 */

typedef void (*sha1kit_sha256_blocks_fn)(uint32_t h[8], const uint8_t *blocks, size_t nblocks);

void sha1kit_sha256_blocks_portable(uint32_t h[8], const uint8_t *blocks, size_t nblocks);
void sha1kit_sha256_blocks_shani(uint32_t h[8], const uint8_t *blocks, size_t nblocks);
void sha1kit_sha256_blocks_armv8(uint32_t h[8], const uint8_t *blocks, size_t nblocks);

typedef struct sha1kit_sha256_kernel {
	const char *name;
	sha1kit_sha256_blocks_fn blocks;
	uint32_t needs; /* SHA1KIT_CPU_* bits that must all be present */
} sha1kit_sha256_kernel;

/* The SHA-256 kernel table (src/dispatch.c), fastest first; the last entry is "portable". */
extern const sha1kit_sha256_kernel sha1kit_sha256_kernels[];
extern const uint32_t sha1kit_sha256_kernel_count;
int sha1kit_sha256_kernel_supported(uint32_t i);
uint32_t sha1kit_select_sha256_kernel(void);

static inline sha1kit_sha256_blocks_fn sha1kit_sha256_kernel_fn(uint32_t kernel)
{
	return sha1kit_sha256_kernels[kernel < sha1kit_sha256_kernel_count ? kernel
	                                                                   : sha1kit_sha256_kernel_count - 1]
	    .blocks;
}

/* SHA-1DC tables (src/dc_tables.c, generated by tools/gen_dc_tables.py). */
typedef struct sha1kit_dv {
	char name[10];   /* e.g. "II(52,0)" */
	uint8_t type;    /* 1 or 2 */
	uint8_t k;       /* K */
	uint8_t b;       /* b */
	uint8_t testt;   /* 58 or 65: step before which the recompression state is taken */
	uint32_t dm[80]; /* expanded-message XOR difference of the partner message */
} sha1kit_dv;

extern const sha1kit_dv sha1kit_dvs[SHA1KIT_DV_COUNT];

/* The working state (A,B,C,D,E) before a step, in FIPS 180-4 naming. */
typedef struct sha1kit_dc_state {
	uint32_t s[5];
} sha1kit_dc_state;

/* Steps t0 .. t1-1 of FIPS 180-4 (6.1.2 step 3) forward on the state st, with the block's own words W
 * (the kernels' states at 56 and 64 to the recompression's at 58 and 65, and a kernel's own group
 * boundaries to 56 and 64). */
static inline void sha1kit_dc_advance(sha1kit_dc_state *st, const uint32_t W[80], int t0, int t1)
{
	uint32_t a = st->s[0], b = st->s[1], c = st->s[2], d = st->s[3], e = st->s[4];
	for (int t = t0; t < t1; t++) {
		uint32_t f;
		if (t < 20)
			f = (d ^ (b & (c ^ d))) + 0x5a827999u;
		else if (t < 40)
			f = (b ^ c ^ d) + 0x6ed9eba1u;
		else if (t < 60)
			f = ((b & c) | (d & (b | c))) + 0x8f1bbcdcu;
		else
			f = (b ^ c ^ d) + 0xca62c1d6u;
		uint32_t T = sha1kit_rotl32(a, 5) + f + e + W[t];
		e = d;
		d = c;
		c = sha1kit_rotl32(b, 30);
		b = a;
		a = T;
	}
	st->s[0] = a;
	st->s[1] = b;
	st->s[2] = c;
	st->s[3] = d;
	st->s[4] = e;
}

/* Recompression for one DV from the state `st` before step dv->testt of the block with expanded
 * message W: the partner block W ^ dv->dm's input (ihv_in) and output (ihv_out) chaining values. */
void sha1kit_dc_recompress(const sha1kit_dv *dv, const uint32_t W[80], const sha1kit_dc_state *st,
                           uint32_t ihv_in[5], uint32_t ihv_out[5]);
/* The same from the partner's words Wp[t] = W[t] ^ dm[t], already formed, and the state st[5] before
 * step testt (58 or 65). */
void sha1kit_dc_recompress_words(int testt, const uint32_t Wp[80], const uint32_t st[5], uint32_t ihv_in[5],
                                 uint32_t ihv_out[5]);

/*
 * Whether the partner block of a DV ends on the chaining value `target` (the full-collision test of
 * the recompression, without the reduced-round one), asked forwards only, as SHA-1 instructions can
 * run: from the state st[5] before step testt (58 or 65), which the partner shares, a scalar step
 * or two give the partner's state S at the group boundary t0 (60 or 64); steps t0..79 with the
 * partner's words give its state at 80, so the only input chaining value that ends on target is
 * X = target - that state; the partner really starts from X exactly when steps 0..t0-1 take X to S
 * (SHA-1's steps are a bijection of the state). Both runs are SHA-1 instructions: 20 groups of 4
 * steps, one compression, against the 80 scalar steps of sha1kit_dc_recompress. dm: the DV's
 * difference (partner words W[t] ^ dm[t]), or NULL when W already holds the partner's words.
 * Returns 1 when the partner ends on target, else 0; the same answer as comparing the ihv_out of
 * sha1kit_dc_recompress with target.
 */
typedef int (*sha1kit_dc_collides_fn)(int testt, const uint32_t W[80], const uint32_t *dm,
                                      const uint32_t st[5], const uint32_t target[5]);
int sha1kit_dc_collides_shani(int testt, const uint32_t W[80], const uint32_t *dm, const uint32_t st[5],
                              const uint32_t target[5]);
int sha1kit_dc_collides_armv8(int testt, const uint32_t W[80], const uint32_t *dm, const uint32_t st[5],
                              const uint32_t target[5]);

/* For the collides functions: the partner's state s[5] (A..E) at the group boundary returned (60 or
 * 64), from the state st[5] before step testt: steps 58 and 59 forwards (Maj, K3) or step 64
 * backwards (Parity, K4), with the partner's words W[t] ^ dm[t] (dm NULL: W[t]). */
static inline int sha1kit_dc_partner_boundary(int testt, const uint32_t W[80], const uint32_t *dm,
                                              const uint32_t st[5], uint32_t s[5])
{
	uint32_t a = st[0], b = st[1], c = st[2], d = st[3], e = st[4];
	if (testt == 58) {
		for (int t = 58; t < 60; t++) {
			uint32_t T = sha1kit_rotl32(a, 5) + (((b & c) | (d & (b | c))) + 0x8f1bbcdcu) + e +
			             (W[t] ^ (dm ? dm[t] : 0));
			e = d;
			d = c;
			c = sha1kit_rotl32(b, 30);
			b = a;
			a = T;
		}
	} else {
		uint32_t A = b, B = sha1kit_rotr32(c, 30), C = d, D = e;
		e = a - sha1kit_rotl32(A, 5) - ((B ^ C ^ D) + 0xca62c1d6u) - (W[64] ^ (dm ? dm[64] : 0));
		a = A;
		b = B;
		c = C;
		d = D;
	}
	s[0] = a;
	s[1] = b;
	s[2] = c;
	s[3] = d;
	s[4] = e;
	return testt == 58 ? 60 : 64;
}

static inline int sha1kit_ctz32(uint32_t x)
{
#if defined(__GNUC__)
	return __builtin_ctz(x);
#else
	int n = 0;
	while (!(x & 1)) {
		x >>= 1;
		n++;
	}
	return n;
#endif
}

/*
 * A SHA-1DC compression kernel: compress the 64-byte `block` (any alignment) into ihv, write the
 * expanded message W[0..79], and the working states before steps 56 (st[0]) and 64 (st[1]).
 */
typedef void (*sha1kit_dc_compress_fn)(uint32_t ihv[5], const uint8_t block[64], uint32_t W[80],
                                       sha1kit_dc_state st[2]);
/* Two blocks at once: as two calls of a sha1kit_dc_compress_fn on blocks[0..63] and blocks[64..127],
 * W[0..79] and st[0..1] those of the first, W[80..159] and st[2..3] those of the second, mid[5] the
 * chaining value between them. */
typedef void (*sha1kit_dc_compress2_fn)(uint32_t ihv[5], const uint8_t blocks[128], uint32_t W[160],
                                        sha1kit_dc_state st[4], uint32_t mid[5]);
typedef uint32_t (*sha1kit_ubc_fn)(const uint32_t W[80]);

void sha1kit_dc_compress_portable(uint32_t ihv[5], const uint8_t block[64], uint32_t W[80],
                                  sha1kit_dc_state st[2]);
void sha1kit_dc_compress_shani(uint32_t ihv[5], const uint8_t block[64], uint32_t W[80],
                               sha1kit_dc_state st[2]);
void sha1kit_dc_compress_shani_rol2(uint32_t ihv[5], const uint8_t block[64], uint32_t W[80],
                                    sha1kit_dc_state st[2]);
void sha1kit_dc_compress_armv8(uint32_t ihv[5], const uint8_t block[64], uint32_t W[80],
                               sha1kit_dc_state st[2]);
/* x86-64 with AVX2, BMI1 and BMI2 (src/x86/sha1_avx2.c); elsewhere the portable kernel. */
#if SHA1KIT_HAVE_AVX2 && defined(__x86_64__)
#define SHA1KIT_HAVE_DC_AVX2 1
void sha1kit_dc_compress_avx2(uint32_t ihv[5], const uint8_t block[64], uint32_t W[80],
                              sha1kit_dc_state st[2]);
void sha1kit_dc_compress2_avx2(uint32_t ihv[5], const uint8_t blocks[128], uint32_t W[160],
                               sha1kit_dc_state st[4], uint32_t mid[5]);
#else
#define SHA1KIT_HAVE_DC_AVX2 0
#endif

/* Recompress L candidates with the same testt (see src/sha1_lanes.h): Wl lane-major (80 words per
 * candidate), the other arrays word-major. */
typedef void (*sha1kit_lanes_recompress_fn)(int testt, const uint32_t *Wl, const uint32_t *st,
                                            uint32_t *ihv_in, uint32_t *ihv_out);

/* UBC masks of up to `lanes` consecutive blocks at once (see SK_LANES_AHEAD in src/sha1_lanes.h). */
typedef void (*sha1kit_ubc_ahead_fn)(const uint8_t *blocks, size_t nblocks, uint32_t *mask);
void sha1kit_ubc_ahead16_avx512(const uint8_t *blocks, size_t nblocks, uint32_t *mask);
void sha1kit_ubc_ahead8_avx2(const uint8_t *blocks, size_t nblocks, uint32_t *mask);
/* sha1kit_dc_masks with a given filter: `ahead_fn`, `ahead` blocks a call, or when it is NULL the
 * per-block `ubc` after the message expansion (src/sha1dc.c). */
void sha1kit_dc_masks_with(sha1kit_ubc_ahead_fn ahead_fn, size_t ahead, sha1kit_ubc_fn ubc,
                           const void *blocks, size_t nblocks, uint32_t *masks);
/* The same in SHA1KIT_UBC_PIPE_STEPS steps, one after each block the caller compresses
 * (SK_LANES_PIPE in src/sha1_lanes.h); `state`: SHA1KIT_UBC_PIPE_WORDS words, 64-byte aligned. */
#define SHA1KIT_UBC_PIPE_STEPS 16
#define SHA1KIT_UBC_PIPE_ACC   72 /* vector index of the accumulators in the state (after W[0..64]) */
#define SHA1KIT_UBC_PIPE_WORDS (16 * (SHA1KIT_UBC_PIPE_ACC + 4))
typedef void (*sha1kit_ubc_pipe_fn)(uint32_t *state, const uint8_t *blocks, size_t nblocks, unsigned step,
                                    uint32_t *mask);
void sha1kit_ubc_pipe16_avx512(uint32_t *state, const uint8_t *blocks, size_t nblocks, unsigned step,
                               uint32_t *mask);
/*
 * The blocks start .. n-1 (n <= 16) at `blocks`, whose UBC masks are mask[0 .. n-1]: compress them
 * into ihv with the plain kernel's steps while their mask is zero, and after block b run step b of
 * the pipelined look-ahead (ubc_pipe) of the `nnext` blocks at `next` (NULL: none). Stops at the
 * first block whose mask is non-zero, neither compressed nor its step run, and returns its index
 * (n: all done); ihv is in memory again on return.
 */
typedef unsigned (*sha1kit_dc_run16_fn)(uint32_t ihv[5], const uint8_t *blocks, unsigned start, unsigned n,
                                        const uint32_t *mask, uint32_t *state, const uint8_t *next,
                                        size_t nnext, uint32_t *next_mask);
unsigned sha1kit_dc_run16_shani_avx512(uint32_t ihv[5], const uint8_t *blocks, unsigned start, unsigned n,
                                       const uint32_t *mask, uint32_t *state, const uint8_t *next,
                                       size_t nnext, uint32_t *next_mask);

/*
 * The SHA-1DC kernel table (src/dispatch.c): a compression kernel and a UBC filter; optionally a
 * look-ahead filter of `ahead` blocks at once with the plain kernel `blocks` for the blocks whose
 * mask is zero (then the DC compression runs only on the others).
 */
typedef struct sha1kit_dc_kernel {
	const char *name;
	sha1kit_dc_compress_fn compress;
	sha1kit_ubc_fn ubc;
	uint32_t needs;
	sha1kit_ubc_ahead_fn ubc_ahead; /* NULL: none */
	unsigned ahead;                 /* blocks per look-ahead call */
	unsigned ahead_min;             /* fewest blocks in an update worth a look-ahead call */
	sha1kit_blocks_fn blocks;
	/* 16-lane recompression for candidates deferred within an update (safe hash off, no callback) */
	sha1kit_lanes_recompress_fn recompress16;
	/* the look-ahead in steps, run between the blocks of the previous group (ahead == 16); NULL: none */
	sha1kit_ubc_pipe_fn ubc_pipe;
	/* with ubc_pipe: the mask-zero blocks of a group and the steps between them in one call */
	sha1kit_dc_run16_fn run16;
	/* the full-collision test of a candidate with SHA-1 instructions; NULL: sha1kit_dc_recompress */
	sha1kit_dc_collides_fn collides;
	/* two blocks at once (the per-block path, safe hash off); NULL: none */
	sha1kit_dc_compress2_fn compress2;
} sha1kit_dc_kernel;

extern const sha1kit_dc_kernel sha1kit_dc_kernels[];
extern const uint32_t sha1kit_dc_kernel_count;
int sha1kit_dc_kernel_supported(uint32_t i);
uint32_t sha1kit_select_dc_kernel(void);

static inline const sha1kit_dc_kernel *sha1kit_dc_kernel_get(uint32_t i)
{
	return &sha1kit_dc_kernels[i < sha1kit_dc_kernel_count ? i : sha1kit_dc_kernel_count - 1];
}

/*
 * The last block(s) of a message of `length` bytes (FIPS 180-4, 5.1.1: its last length % 64 bytes,
 * 0x80, zeros, the length in bits big-endian) into out[0..127], in 16-byte stores where the CPU has
 * SSSE3 (the kernels' 16-byte loads of them are then forwarded; src/md_last.c). tail[0..length % 64)
 * are those bytes; `before` bytes before tail are readable too (the message's earlier bytes; with 16
 * or more a part block is read in one load ending at the message's end); in_block nonzero: tail is a
 * 64-byte buffer, all readable. Returns the number of blocks, 1 or 2.
 */
size_t sha1kit_md_last(uint8_t out[128], const uint8_t *tail, uint64_t length, size_t before, int in_block);

/* UBC filter: the mask of DVs whose unavoidable bit conditions all hold on W[0..79]. */
uint32_t sha1kit_ubc_mask(const uint32_t W[80]);
/* The same filter with SSE2 / AVX2 (src/x86/ubc_simd.c, generated); identical results. */
uint32_t sha1kit_ubc_mask_sse2(const uint32_t W[80]);
uint32_t sha1kit_ubc_mask_avx2(const uint32_t W[80]);
/* The AVX2 form with fewer vector windows (80% of random blocks ruled out there, not 90%) and more
 * left to its scalar tail: the faster of the two right after the SHA-NI kernel on AMD family 25
 * model 1 (src/dispatch.c, kernel shani+avx2-short); identical results. */
uint32_t sha1kit_ubc_mask_avx2_short(const uint32_t W[80]);
/* The filter lane-wise on 16 messages (W[t * 16 + l] = word t of message l) with AVX-512 opmasks,
 * for the 16-lane kernel; mask[l] = sha1kit_ubc_mask of message l (src/x86/ubc_simd.c, generated). */
void sha1kit_ubc_lanes16_avx512(const uint32_t *W, uint32_t mask[16]);
/* The same conditions in SHA1KIT_UBC_PARTS parts: sha1kit_ubc_part16 of src/x86/ubc_part16.h
 * (generated, inline). */

/*
 * Multi-buffer kernels (src/sha1_lanes.h): L lanes (8 or 16), one message per 32-bit vector lane.
 * `state` holds the L chaining values word-major: state[w * L + l] is word w of lane l. blocks[l]
 * points at lane l's next block (any alignment).
 */
#define SHA1KIT_MAX_LANES 16

/* What the DC lanes kernel leaves for the lanes the UBC filter flags, word-major as `state`. */
typedef struct sha1kit_lanes_dc {
	uint32_t W[80 * SHA1KIT_MAX_LANES] __attribute__((aligned(64))); /* W[t * L + l] */
	uint32_t s58[5 * SHA1KIT_MAX_LANES]; /* state before step 58, (A..E) word-major */
	uint32_t s65[5 * SHA1KIT_MAX_LANES]; /* state before step 65 */
	uint32_t mask[SHA1KIT_MAX_LANES];    /* UBC mask of each lane (all ones with the filter off) */
	uint32_t before[5 * SHA1KIT_MAX_LANES] __attribute__((aligned(64))); /* the state on entry */
} sha1kit_lanes_dc;

/* Compress `nblocks` consecutive blocks of every lane (lane l reads blocks[l] .. + 64 * nblocks). */
typedef void (*sha1kit_lanes_fast_fn)(uint32_t *state, const uint8_t *const *blocks, size_t nblocks);
/* Compress one block of every lane, fill `out`; returns the bitmap of lanes whose mask is non-zero. */
typedef uint32_t (*sha1kit_lanes_dc_fn)(uint32_t *state, const uint8_t *const *blocks, int use_ubc,
                                        sha1kit_lanes_dc *out);

void sha1kit_lanes8_avx2(uint32_t *state, const uint8_t *const *blocks, size_t nblocks);
uint32_t sha1kit_lanes8_dc_avx2(uint32_t *state, const uint8_t *const *blocks, int use_ubc,
                                sha1kit_lanes_dc *out);
void sha1kit_lanes16_avx512(uint32_t *state, const uint8_t *const *blocks, size_t nblocks);
uint32_t sha1kit_lanes16_dc_avx512(uint32_t *state, const uint8_t *const *blocks, int use_ubc,
                                   sha1kit_lanes_dc *out);
void sha1kit_lanes8_recompress_avx2(int testt, const uint32_t *Wl, const uint32_t *st, uint32_t *ihv_in,
                                    uint32_t *ihv_out);
void sha1kit_lanes16_recompress_avx512(int testt, const uint32_t *Wl, const uint32_t *st, uint32_t *ihv_in,
                                       uint32_t *ihv_out);

/*
 * Batch kernels (src/dispatch.c), one table per flavour, in order of preference. An entry with
 * lanes == 0 runs the messages on the single-stream kernel (two at a time where it has an x2 form).
 */
typedef struct sha1kit_batch_kernel {
	const char *name;
	unsigned lanes;             /* lanes of the lanes kernel; 0: single-stream kernel */
	unsigned min_active;        /* lanes kernel: below this many busy lanes, finish them one by one */
	int x2;                     /* lanes == 0: use the single-stream kernel's two-stream form */
	sha1kit_lanes_fast_fn fast; /* lanes kernels */
	sha1kit_lanes_dc_fn dc;
	sha1kit_lanes_recompress_fn recompress;
	uint32_t needs; /* SHA1KIT_CPU_* bits that must all be present */
} sha1kit_batch_kernel;

extern const sha1kit_batch_kernel sha1kit_fast_batch_kernels[];
extern const uint32_t sha1kit_fast_batch_kernel_count;
extern const sha1kit_batch_kernel sha1kit_dc_batch_kernels[];
extern const uint32_t sha1kit_dc_batch_kernel_count;
/* SHA-256 in lanes (src/sha256_lanes.h): the `fast` member is the SHA-256 lanes kernel, with the
 * same signature (eight chaining words per lane instead of five); dc and recompress are NULL. */
extern const sha1kit_batch_kernel sha1kit_sha256_batch_kernels[];
extern const uint32_t sha1kit_sha256_batch_kernel_count;
int sha1kit_batch_kernel_supported(const sha1kit_batch_kernel *k);
uint32_t sha1kit_select_fast_batch_kernel(void);
uint32_t sha1kit_select_dc_batch_kernel(void);
uint32_t sha1kit_select_sha256_batch_kernel(void);

void sha1kit_sha256_lanes8_avx2(uint32_t *state, const uint8_t *const *blocks, size_t nblocks);
void sha1kit_sha256_lanes16_avx512(uint32_t *state, const uint8_t *const *blocks, size_t nblocks);

/*
 * Kernel preferences by CPU (src/dispatch.c): the tables above are in the order that is fastest on
 * most CPUs measured; an entry here names, for the CPUs it matches (vendor, family, model range),
 * kernels to try first, each list in order, before the table order, and a different ahead_min for
 * one look-ahead kernel. Each entry names the measurement it rests on (docs/PERFORMANCE.md). The
 * last entry matches every CPU and changes nothing. Features still decide what can run: a preferred
 * kernel the CPU (or SHA1KIT_CPU) rules out is passed over.
 */
#define SHA1KIT_PREF_MAX 3
typedef struct sha1kit_cpu_pref {
	uint32_t vendor;             /* SHA1KIT_VENDOR_*; SHA1KIT_VENDOR_OTHER: any vendor */
	uint32_t family;             /* 0: any */
	uint32_t model_lo, model_hi; /* inclusive */
	const char *fast[SHA1KIT_PREF_MAX], *dc[SHA1KIT_PREF_MAX];
	const char *fast_batch[SHA1KIT_PREF_MAX], *dc_batch[SHA1KIT_PREF_MAX];
	const char *sha256[SHA1KIT_PREF_MAX], *sha256_batch[SHA1KIT_PREF_MAX];
	const char *ahead_kernel; /* DC look-ahead kernel whose ahead_min changes here, or NULL */
	unsigned ahead_min;
	const char *basis; /* the measurement (CPU, command, figures) */
} sha1kit_cpu_pref;

extern const sha1kit_cpu_pref sha1kit_cpu_prefs[];
extern const uint32_t sha1kit_cpu_pref_count;

/* The first entry that matches `id` (never NULL: the last matches all). */
const sha1kit_cpu_pref *sha1kit_cpu_pref_find(const sha1kit_cpu_id *id);

/* The kernels a CPU with preference `p` and features `features` gets (indices into the tables). */
typedef struct sha1kit_kernel_choice {
	uint32_t fast, dc, fast_batch, dc_batch, sha256, sha256_batch;
	uint32_t
	    ahead_kernel; /* DC kernel index whose ahead_min is ahead_min; sha1kit_dc_kernel_count: none */
	unsigned ahead_min;
} sha1kit_kernel_choice;
void sha1kit_choose_kernels(const sha1kit_cpu_pref *p, uint32_t features, sha1kit_kernel_choice *out);

/* This CPU's id (cached with the probe) and the fewest blocks in an update for a look-ahead call of
 * DC kernel `kernel` on this CPU. */
sha1kit_cpu_id sha1kit_cpu_ident(void);
unsigned sha1kit_dc_ahead_min(uint32_t kernel);

/* The batch functions on a given kernel of the tables above (tests and bench force kernels so). */
void sha1kit_fast_batch_with(uint32_t kernel, const sha1kit_msg *msgs, size_t n, uint8_t *digests);
void sha1kit_sha256_batch_with(uint32_t kernel, const sha1kit_msg *msgs, size_t n, uint8_t *digests);
sha1kit_dc_result sha1kit_dc_batch_with(uint32_t kernel, const sha1kit_msg *msgs, size_t n,
                                        const sha1kit_dc_options *opt, uint8_t *digests,
                                        sha1kit_dc_detection *where);

/*
 * The detection step of SHA-1DC for one compressed block (src/sha1dc.c): `mask` is the UBC mask
 * (non-zero), W the block's expanded message, s58/s65 the states before steps 58 and 65, ihv_before
 * the chaining value the block started from; ctx->ihv is the chaining value after it (the safe hash
 * updates it). Records the first detection in ctx and calls its callback.
 */
void sha1kit_dc_check(sha1kit_dc_ctx *ctx, uint32_t mask, const uint32_t W[80], const sha1kit_dc_state *s58,
                      const sha1kit_dc_state *s65, const uint32_t ihv_before[5], uint64_t offset);

/* One block of a DC context at message offset `offset` (a multiple of 64), through its kernel. */
void sha1kit_dc_block(sha1kit_dc_ctx *ctx, const uint8_t block[64], uint64_t offset);
/* `nblocks` whole blocks, the first at message offset `offset`, as sha1kit_dc_update takes them
 * (through the kernel's look-ahead path when it has one). */
void sha1kit_dc_blocks(sha1kit_dc_ctx *ctx, const uint8_t *p, size_t nblocks, uint64_t offset);

#endif /* SHA1KIT_INTERNAL_H */
