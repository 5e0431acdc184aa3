/*
 * sha1kit.h - public API of libsha1kit: plain ("fast") SHA-1, collision-detecting SHA-1 (SHA-1DC)
 * and SHA-256.
 *
 * SHA-1 is specified in FIPS 180-4 (Secure Hash Standard, NIST, 2015), section 6.1; SHA-256 in
 * section 6.2 of the same standard.
 * Collision detection follows M. Stevens, "Counter-cryptanalysis", CRYPTO 2013, and
 * M. Stevens and D. Shumow, "Speeding up detection of SHA-1 collision attacks using unavoidable
 * attack conditions", USENIX Security 2017. Digests and detection decisions are those of the
 * reference implementation (cr-marcstevens/sha1collisiondetection) on every input.
 *
 * Conventions for every function below:
 *  - Sizes are in bytes. `data` may be NULL only when its length is 0; it may have any alignment.
 *  - Contexts hold no pointers into themselves and no heap memory (only the caller's callback and
 *    its user pointer): a context may be copied with memcpy or plain assignment at any point, and
 *    the copy continues independently. Nothing here allocates; scratch space is on the stack (up
 *    to about 48 KiB in sha1kit_dc_update/final and the batch functions, for the queues of the
 *    vector recompression).
 *  - Functions are thread-safe as long as each context is used by one thread at a time.
 *  - The only global state is a CPU-feature probe run once per process (thread-safe), which also
 *    reads the environment variable SHA1KIT_CPU (see sha1kit_cpu_mask()).
 *  - Passing NULL where a pointer is required is undefined behaviour, like memcpy.
 */
#ifndef SHA1KIT_H
#define SHA1KIT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32) && defined(SHA1KIT_DLL)
#define SHA1KIT_API __declspec(dllexport)
#elif defined(__GNUC__)
#define SHA1KIT_API __attribute__((visibility("default")))
#else
#define SHA1KIT_API
#endif

#define SHA1KIT_VERSION_MAJOR  0
#define SHA1KIT_VERSION_MINOR  1
#define SHA1KIT_VERSION_PATCH  0
#define SHA1KIT_VERSION_STRING "0.1.0"

/** Size of a SHA-1 digest in bytes. */
#define SHA1KIT_DIGEST_SIZE 20
/** Size of a SHA-1 message block in bytes. */
#define SHA1KIT_BLOCK_SIZE 64
/** Number of disturbance vectors (DVs) checked by SHA-1DC (Stevens-Shumow 2017, table of the reference). */
#define SHA1KIT_DV_COUNT 32

/* ------------------------------------------------------------------------------------------------ */
/* Plain SHA-1 (FIPS 180-4), no collision detection. For checksums that guard against accidents.   */
/* ------------------------------------------------------------------------------------------------ */

/** Streaming state of plain SHA-1. Treat the fields as private; the layout may change. */
typedef struct sha1kit_fast_ctx {
	uint32_t ihv[5];    /* chaining value (intermediate hash value) */
	uint32_t kernel;    /* compression kernel chosen at init (index into the dispatch table) */
	uint64_t length;    /* message bytes absorbed so far, modulo 2^64 */
	uint8_t buffer[64]; /* a partial message block: length % 64 bytes are valid */
} sha1kit_fast_ctx;

/**
 * Start a plain SHA-1 computation and choose the compression kernel for this context.
 * ctx: the context to (re)initialise; any previous content is discarded. No errors.
 */
SHA1KIT_API void sha1kit_fast_init(sha1kit_fast_ctx *ctx);

/**
 * Absorb `len` bytes at `data` (any alignment; NULL allowed when len == 0). Any number of calls of
 * any sizes gives the same digest as one call with the concatenation. Messages up to 2^64-1 bytes.
 */
SHA1KIT_API void sha1kit_fast_update(sha1kit_fast_ctx *ctx, const void *data, size_t len);

/**
 * Finish: write the 20-byte SHA-1 digest of everything absorbed to `digest`.
 * The context is then reset to the empty message (as by sha1kit_fast_init) and may be reused.
 */
SHA1KIT_API void sha1kit_fast_final(sha1kit_fast_ctx *ctx, uint8_t digest[SHA1KIT_DIGEST_SIZE]);

/** One-shot plain SHA-1 of `len` bytes at `data` into the 20-byte `digest`. */
SHA1KIT_API void sha1kit_fast(const void *data, size_t len, uint8_t digest[SHA1KIT_DIGEST_SIZE]);

/** One message of a batch: `len` bytes at `data` (NULL allowed when len == 0). */
typedef struct sha1kit_msg {
	const void *data;
	size_t len;
} sha1kit_msg;

/**
 * Plain SHA-1 of `n` independent messages (multi-buffer hashing): the digest of msgs[i] goes to the
 * 20 bytes at digests + 20 * i (`digests` holds 20 * n bytes). Messages may have any lengths, 0
 * included; the result equals n calls of sha1kit_fast(). Several messages are hashed at once where
 * the CPU allows: 16 per AVX-512 register, two interleaved SHA-NI streams, or 8 per AVX2 register
 * (sha1kit_fast_batch_kernel_name() says which). Most gain comes with at least 16 messages of
 * similar lengths. n == 0 does nothing. No allocation.
 */
SHA1KIT_API void sha1kit_fast_batch(const sha1kit_msg *msgs, size_t n, uint8_t *digests);

/* ------------------------------------------------------------------------------------------------ */
/* SHA-1DC: SHA-1 with collision detection (Stevens 2013; Stevens-Shumow 2017).                     */
/* ------------------------------------------------------------------------------------------------ */

/**
 * Options of a SHA-1DC context. Fill it with sha1kit_dc_options_default() first, then change the
 * fields you care about: fields added in later versions then get their defaults. `size` must be
 * sizeof(sha1kit_dc_options) as the caller was compiled with (set by sha1kit_dc_options_default).
 */
typedef struct sha1kit_dc_options {
	uint32_t size;
	/** Default 0. Non-zero: a block in which a collision attack is detected is compressed three
	 * times in a chain (each with its own feed-forward), so that colliding inputs get different
	 * digests ("safe hash"). 0: the digest is always the true SHA-1 and only the result flags it.
	 * The reference library's SHA1DCInit turns it on; Git turns it off. */
	uint8_t safe_hash;
	/** Default 1. Non-zero: use the unavoidable bit conditions (UBC) to skip disturbance vectors
	 * that cannot apply (Stevens-Shumow 2017). 0: check all 32 DVs on every block (slow; the
	 * result is the same by construction). */
	uint8_t use_ubc;
	/** Default 1. 0 turns collision detection off: the result is plain SHA-1, never flagged. */
	uint8_t detect;
	/** Default 0. Non-zero: also flag a block whose reconstructed partner input chaining value
	 * equals ours (catches collisions of reduced-round SHA-1; used to test the detector). */
	uint8_t reduced_round;
} sha1kit_dc_options;

/** Outcome of a SHA-1DC computation. */
typedef enum sha1kit_dc_result {
	SHA1KIT_DC_NO_COLLISION = 0, /* no collision attack detected */
	SHA1KIT_DC_COLLISION = 1     /* a collision attack was detected in at least one block */
} sha1kit_dc_result;

/** Where the first collision attack was detected (valid when the result is SHA1KIT_DC_COLLISION). */
typedef struct sha1kit_dc_detection {
	/** Byte offset, in the message, of the first flagged 64-byte block (a multiple of 64; may be
	 * at or past the message length when the flagged block is a padding block). */
	uint64_t offset;
	/** Index 0..31 of the disturbance vector whose check succeeded (order of the reference
	 * table, = its UBC mask bit); -1 when there was no detection. See sha1kit_dv_name(). */
	int dv;
	/** 1 when the hit came from the reduced-round test (partner input chaining value equal to
	 * ours), 0 when the partner's output chaining value equalled ours (a full collision). */
	int reduced_round;
} sha1kit_dc_detection;

/** What a detection callback receives about a flagged block (all pointers valid during the call). */
typedef struct sha1kit_dc_block_info {
	uint64_t offset;             /* byte offset of the block in the message (multiple of 64) */
	int dv;                      /* disturbance vector index 0..31 (sha1kit_dv_name) */
	int reduced_round;           /* 1: the reduced-round test matched, 0: a full collision */
	const uint32_t *ihv;         /* 5 words: our input chaining value of this block */
	const uint32_t *ihv_partner; /* 5 words: the reconstructed partner's input chaining value */
	const uint32_t *W;           /* 80 words: our expanded message W[0..79] */
	const uint32_t *W_partner;   /* 80 words: the partner's expanded message W[t] ^ dm[t] */
} sha1kit_dc_block_info;

/** Called for every block in which a collision attack is detected, before the safe hash (if on). */
typedef void (*sha1kit_dc_callback)(void *user, const sha1kit_dc_block_info *info);

/** Streaming state of SHA-1DC. Treat the fields as private; the layout may change. */
typedef struct sha1kit_dc_ctx {
	uint32_t ihv[5];    /* chaining value */
	uint32_t kernel;    /* kernel chosen at init */
	uint64_t length;    /* message bytes absorbed so far */
	uint8_t buffer[64]; /* partial block */
	sha1kit_dc_options options;
	sha1kit_dc_detection first;   /* first detection, dv == -1 while none */
	uint32_t found;               /* sticky collision flag */
	sha1kit_dc_callback callback; /* NULL: none */
	void *callback_user;
} sha1kit_dc_ctx;

/** Fill `opt` with the defaults: safe_hash 0, use_ubc 1, detect 1, reduced_round 0. */
SHA1KIT_API void sha1kit_dc_options_default(sha1kit_dc_options *opt);

/**
 * Start a SHA-1DC computation with options `opt` (NULL = sha1kit_dc_options_default()). The
 * options are copied into the context. No errors.
 */
SHA1KIT_API void sha1kit_dc_init(sha1kit_dc_ctx *ctx, const sha1kit_dc_options *opt);

/**
 * Set (or with NULL clear) a function called with the details of every flagged block; `user` is
 * passed through. Kept across sha1kit_dc_reset and final; copied with the context. The callback
 * must not use `ctx`.
 */
SHA1KIT_API void sha1kit_dc_set_callback(sha1kit_dc_ctx *ctx, sha1kit_dc_callback callback, void *user);

/** Start over with the empty message, keeping the context's options and callback. */
SHA1KIT_API void sha1kit_dc_reset(sha1kit_dc_ctx *ctx);

/**
 * Absorb `len` bytes at `data` (any alignment; NULL allowed when len == 0). Each complete block is
 * compressed and checked for the 32 disturbance vectors as it arrives.
 */
SHA1KIT_API void sha1kit_dc_update(sha1kit_dc_ctx *ctx, const void *data, size_t len);

/**
 * The UBC masks of `nblocks` whole 64-byte blocks at `blocks` (any alignment), one 32-bit mask per
 * block written to masks[0..nblocks-1]: bit k set when the unavoidable bit conditions of
 * disturbance vector k hold on the block's expanded message (Stevens-Shumow 2017). Neither the
 * message expansion nor the filter depends on the chaining value, so the masks of a later part of
 * a message can be computed ahead, for example on another thread while an earlier part is hashed,
 * and handed to sha1kit_dc_update_masked(). No errors, no allocation; safe to call from any thread.
 */
SHA1KIT_API void sha1kit_dc_masks(const void *blocks, size_t nblocks, uint32_t *masks);

/**
 * sha1kit_dc_update() of the 64 * nblocks bytes at `blocks`, with masks[i] =
 * sha1kit_dc_masks() of block i of exactly these bytes: blocks whose mask is zero are then
 * compressed by the plain kernel, and only the others take the detection path. Same digest and
 * detection as sha1kit_dc_update(). The masks are only trusted, never checked: wrong masks can hide
 * a collision attack. When the context is not at a 64-byte boundary, or detection or the UBC filter
 * is off, the masks are not used (plain sha1kit_dc_update()).
 */
SHA1KIT_API void sha1kit_dc_update_masked(sha1kit_dc_ctx *ctx, const void *blocks, size_t nblocks,
                                          const uint32_t *masks);

/**
 * Finish: pad the message (the padding blocks are checked too), write the 20-byte digest to
 * `digest` (the true SHA-1, or the safe hash when safe_hash is on and a block was flagged), and if
 * `where` is not NULL, fill it with the first detection. Returns SHA1KIT_DC_COLLISION if any block
 * was flagged. The context is then reset to the empty message with the same options.
 */
SHA1KIT_API sha1kit_dc_result sha1kit_dc_final(sha1kit_dc_ctx *ctx, uint8_t digest[SHA1KIT_DIGEST_SIZE],
                                               sha1kit_dc_detection *where);

/** One-shot SHA-1DC of `len` bytes at `data`; arguments as for sha1kit_dc_init and _final. */
SHA1KIT_API sha1kit_dc_result sha1kit_dc(const void *data, size_t len, const sha1kit_dc_options *opt,
                                         uint8_t digest[SHA1KIT_DIGEST_SIZE], sha1kit_dc_detection *where);

/**
 * SHA-1DC of `n` independent messages (multi-buffer hashing, Stevens 2013 / Stevens-Shumow 2017
 * detection on every block of every message): the digest of msgs[i] goes to digests + 20 * i
 * (`digests` holds 20 * n bytes), and, when `where` is not NULL, its first detection to where[i]
 * (`where` holds n entries; dv == -1 when message i was not flagged). `opt` as for sha1kit_dc_init
 * (NULL: defaults). Results equal n calls of sha1kit_dc() with the same options. Returns
 * SHA1KIT_DC_COLLISION if any message was flagged. No detection callback; no allocation.
 */
SHA1KIT_API sha1kit_dc_result sha1kit_dc_batch(const sha1kit_msg *msgs, size_t n,
                                               const sha1kit_dc_options *opt, uint8_t *digests,
                                               sha1kit_dc_detection *where);

/**
 * Name of disturbance vector `dv` (0..31) in the notation of the literature, e.g. "I(43,0)" or
 * "II(52,0)"; NULL when dv is out of range. The string is static.
 */
SHA1KIT_API const char *sha1kit_dv_name(int dv);

/* ------------------------------------------------------------------------------------------------ */
/* SHA-256 (FIPS 180-4, section 6.2). No collision detection: none is known or needed.              */
/* ------------------------------------------------------------------------------------------------ */

/** Size of a SHA-256 digest in bytes. */
#define SHA1KIT_SHA256_DIGEST_SIZE 32
/** Size of a SHA-256 message block in bytes. */
#define SHA1KIT_SHA256_BLOCK_SIZE 64

/** Streaming state of SHA-256. Treat the fields as private; the layout may change. */
typedef struct sha1kit_sha256_ctx {
	uint32_t h[8];      /* chaining value H0..H7 */
	uint32_t kernel;    /* compression kernel chosen at init (index into the SHA-256 table) */
	uint64_t length;    /* message bytes absorbed so far, modulo 2^64 */
	uint8_t buffer[64]; /* a partial message block: length % 64 bytes are valid */
} sha1kit_sha256_ctx;

/**
 * Start a SHA-256 computation and choose the compression kernel for this context.
 * ctx: the context to (re)initialise; any previous content is discarded. No errors.
 */
SHA1KIT_API void sha1kit_sha256_init(sha1kit_sha256_ctx *ctx);

/**
 * Absorb `len` bytes at `data` (any alignment; NULL allowed when len == 0). Any number of calls of
 * any sizes gives the same digest as one call with the concatenation. Messages up to 2^64-1 bytes
 * (FIPS 180-4 allows 2^64-1 bits; the length field is taken modulo 2^64 bits, as SHA-1's here).
 */
SHA1KIT_API void sha1kit_sha256_update(sha1kit_sha256_ctx *ctx, const void *data, size_t len);

/**
 * Finish: write the 32-byte SHA-256 digest of everything absorbed to `digest`.
 * The context is then reset to the empty message, on the same kernel, and may be reused.
 */
SHA1KIT_API void sha1kit_sha256_final(sha1kit_sha256_ctx *ctx, uint8_t digest[SHA1KIT_SHA256_DIGEST_SIZE]);

/** One-shot SHA-256 of `len` bytes at `data` into the 32-byte `digest`. */
SHA1KIT_API void sha1kit_sha256(const void *data, size_t len, uint8_t digest[SHA1KIT_SHA256_DIGEST_SIZE]);

/**
 * SHA-256 of `n` independent messages: the digest of msgs[i] goes to the 32 bytes at
 * digests + 32 * i (`digests` holds 32 * n bytes). Messages may have any lengths, 0 included; the
 * result equals n calls of sha1kit_sha256(). The messages share the lanes of a vector unit
 * (sha1kit_sha256_batch_kernel_name(): 16 at a time with AVX-512; 8 with AVX2 where there is no
 * SHA-NI), each lane taking
 * the next message when its own ends; the last few are finished on the single-stream kernel. Most
 * gain comes with at least 16 messages of similar lengths. n == 0 does nothing. No allocation.
 * Thread-safe (no shared state).
 */
SHA1KIT_API void sha1kit_sha256_batch(const sha1kit_msg *msgs, size_t n, uint8_t *digests);

/* ------------------------------------------------------------------------------------------------ */
/* Queries                                                                                          */
/* ------------------------------------------------------------------------------------------------ */

/** The library version, e.g. "0.1.0" (static string). */
SHA1KIT_API const char *sha1kit_version(void);

/**
 * Name of the kernel that new plain-SHA-1 contexts use in this process: "shani", "avx2", "ssse3",
 * "armv8" or "portable" (the fastest this CPU runs, probed once, without the features SHA1KIT_CPU
 * turns off). Static string.
 */
SHA1KIT_API const char *sha1kit_kernel_name(void);

/**
 * Name of the kernel that new SHA-1DC contexts use in this process: compression + UBC filter,
 * e.g. "shani+avx512" (SHA-NI compression, UBC filter of 16 blocks at once with AVX-512),
 * "shani+avx2", "avx2+avx512" (AVX2 compression, the same filter), "avx2" (AVX2 compression, the
 * per-block AVX2 filter), "portable+avx2", "portable+sse2", "armv8" or "portable". Static string.
 */
SHA1KIT_API const char *sha1kit_dc_kernel_name(void);

/** Name of the way sha1kit_fast_batch hashes in this process: "avx512x16", "shani-x2", "avx2x8" or
 * "single" (one message after the other). Static string. */
SHA1KIT_API const char *sha1kit_fast_batch_kernel_name(void);

/** Name of the way sha1kit_dc_batch hashes in this process: "avx512x16", "avx2x8" or "single". */
SHA1KIT_API const char *sha1kit_dc_batch_kernel_name(void);

/** Name of the way sha1kit_sha256_batch hashes in this process: "avx512x16", "shani" (one message
 * after the other on SHA-NI, faster than AVX2 lanes), "avx2x8" or "single" (one after the other on
 * the single-stream kernel). Static string. */
SHA1KIT_API const char *sha1kit_sha256_batch_kernel_name(void);

/**
 * Name of the kernel that new SHA-256 contexts (and sha1kit_sha256_batch) use in this process:
 * "shani" (x86 SHA extensions), "armv8" (the arm64 SHA256 instructions) or "portable". Static string.
 */
SHA1KIT_API const char *sha1kit_sha256_kernel_name(void);

/* ------------------------------------------------------------------------------------------------ */
/* Kernel choice: one given kernel, for benchmarks and tests                                        */
/* ------------------------------------------------------------------------------------------------ */
/*
 * The library picks its kernels itself (the names above). A benchmark or a test can list the
 * kernels compiled in, of each kind below, and run a given one. A kernel's index is its place in
 * its kind's list (0, 1, ...), which is in the library's order of preference; the lists are fixed in
 * a process and may differ between builds and versions. Kernels the process cannot run (the CPU
 * lacks a feature, or SHA1KIT_CPU turns it off) are listed, and never run. Digests and detection
 * decisions are the same on every kernel.
 */
typedef enum sha1kit_kernel_kind {
	SHA1KIT_KERNELS_FAST = 0,        /* sha1kit_fast_init contexts (sha1kit_kernel_name) */
	SHA1KIT_KERNELS_DC = 1,          /* sha1kit_dc_init contexts (sha1kit_dc_kernel_name) */
	SHA1KIT_KERNELS_FAST_BATCH = 2,  /* sha1kit_fast_batch (sha1kit_fast_batch_kernel_name) */
	SHA1KIT_KERNELS_DC_BATCH = 3,    /* sha1kit_dc_batch (sha1kit_dc_batch_kernel_name) */
	SHA1KIT_KERNELS_SHA256 = 4,      /* sha1kit_sha256_init contexts (sha1kit_sha256_kernel_name) */
	SHA1KIT_KERNELS_SHA256_BATCH = 5 /* sha1kit_sha256_batch (sha1kit_sha256_batch_kernel_name) */
} sha1kit_kernel_kind;

/**
 * Name of kernel `index` of `kind`, as the name queries above give it (e.g. "shani", "shani+avx2",
 * "avx512x16"); NULL when there is none (index past the last, or an unknown kind): list a kind by
 * counting up from 0 until NULL. `usable` (may be NULL) receives 1 when this process can run the
 * kernel, else 0. Static string.
 */
SHA1KIT_API const char *sha1kit_kernel_at(sha1kit_kernel_kind kind, uint32_t index, int *usable);

/**
 * sha1kit_fast_init() on SHA1KIT_KERNELS_FAST kernel `kernel` instead of the library's choice.
 * Returns 0; -1 when there is no such kernel or this process cannot run it: the context is then
 * initialised on the library's choice, as by sha1kit_fast_init().
 */
SHA1KIT_API int sha1kit_fast_init_on(sha1kit_fast_ctx *ctx, uint32_t kernel);

/** sha1kit_dc_init() on SHA1KIT_KERNELS_DC kernel `kernel`; returns as sha1kit_fast_init_on(). */
SHA1KIT_API int sha1kit_dc_init_on(sha1kit_dc_ctx *ctx, const sha1kit_dc_options *opt, uint32_t kernel);

/** sha1kit_sha256_init() on SHA1KIT_KERNELS_SHA256 kernel `kernel`; returns as sha1kit_fast_init_on(). */
SHA1KIT_API int sha1kit_sha256_init_on(sha1kit_sha256_ctx *ctx, uint32_t kernel);

/**
 * sha1kit_fast_batch() on SHA1KIT_KERNELS_FAST_BATCH kernel `kernel`. Returns 0; -1 when there is no
 * such kernel or this process cannot run it (then nothing is written).
 */
SHA1KIT_API int sha1kit_fast_batch_on(uint32_t kernel, const sha1kit_msg *msgs, size_t n, uint8_t *digests);

/**
 * sha1kit_dc_batch() on SHA1KIT_KERNELS_DC_BATCH kernel `kernel`: returns its result
 * (SHA1KIT_DC_NO_COLLISION or SHA1KIT_DC_COLLISION), or -1 when there is no such kernel or this
 * process cannot run it (then nothing is written).
 */
SHA1KIT_API int sha1kit_dc_batch_on(uint32_t kernel, const sha1kit_msg *msgs, size_t n,
                                    const sha1kit_dc_options *opt, uint8_t *digests,
                                    sha1kit_dc_detection *where);

/**
 * sha1kit_sha256_batch() on SHA1KIT_KERNELS_SHA256_BATCH kernel `kernel`. Returns 0; -1 when there
 * is no such kernel or this process cannot run it (then nothing is written).
 */
SHA1KIT_API int sha1kit_sha256_batch_on(uint32_t kernel, const sha1kit_msg *msgs, size_t n, uint8_t *digests);

/* ------------------------------------------------------------------------------------------------ */
/* CPU features and the SHA1KIT_CPU mask                                                            */
/* ------------------------------------------------------------------------------------------------ */
/*
 * Kernels are chosen from the CPU features probed once per process, less those that the
 * environment variable SHA1KIT_CPU turns off, e.g. SHA1KIT_CPU=-shani,-avx512: a comma-separated
 * list of "-NAME" entries (blanks around entries are ignored), NAME a feature name of
 * sha1kit_cpu_feature_name() or "all". A mask only removes features, so it can never select a kernel
 * the CPU cannot run. Turning a feature off also turns off those built on it: sse2 takes ssse3 with
 * it, ssse3 sse4.1, sse4.1 avx2 and shani, avx2 avx512. "shani" covers the SHA-1 and the SHA-256
 * kernels of the x86 SHA extensions (one CPUID bit), "armv8-sha1" and "armv8-sha2" the arm64 ones.
 * SHA1KIT_CPU is read once, at the probe (the first call that chooses a kernel or of a function
 * below); changing it later has no effect in the process.
 * An unset or blank SHA1KIT_CPU turns nothing off. The library never prints or exits: a program should
 * check sha1kit_cpu_mask() at start-up and report an invalid value (the sha1kit tool exits with 1).
 */

/**
 * Bit numbers of the feature masks below: the name of feature bit `bit`, NULL when `bit` is not
 * 0..8. Bits 0..8: "sse2", "ssse3", "sse4.1", "avx2", "bmi2" (BMI1 and BMI2), "avx512" (AVX-512 F
 * and BW, with the OS saving their state), "shani" (x86 SHA extensions), "armv8-sha1" (the arm64
 * SHA1 instructions) and "armv8-sha2" (the arm64 SHA256 instructions). Later versions may add bits
 * above 8. Static string.
 */
SHA1KIT_API const char *sha1kit_cpu_feature_name(int bit);

/**
 * The features the CPU probe found (bit i: sha1kit_cpu_feature_name(i)), before SHA1KIT_CPU. The
 * kernels use sha1kit_cpu_features_detected() & ~masked_off (sha1kit_cpu_mask()).
 */
SHA1KIT_API uint32_t sha1kit_cpu_features_detected(void);

/**
 * The SHA1KIT_CPU mask of this process, read at the probe. `masked_off` (may be NULL) receives the
 * features it turns off (bit i: sha1kit_cpu_feature_name(i)), with those they imply, whether the
 * CPU has them or not. Returns 0 when SHA1KIT_CPU is unset (*masked_off = 0), 1 when it is set and
 * valid (blank included), -1 when it is invalid: the valid entries are applied all the same, the
 * bad ones ignored; sha1kit_cpu_mask_parse() of getenv("SHA1KIT_CPU") gives the message.
 */
SHA1KIT_API int sha1kit_cpu_mask(uint32_t *masked_off);

/**
 * Parse `value` as a SHA1KIT_CPU value (NULL: as unset). `masked_off` (may be NULL) receives the
 * features it turns off, with those they imply, as in sha1kit_cpu_mask(); nothing is applied.
 * Returns 0 when the value is valid; -1 when an entry is not "-NAME" with a known NAME (unknown
 * name, "+NAME", a name without '-', an empty entry): *masked_off then has the valid entries only,
 * and a one-line message about the first bad entry is written to `msg` (`msg_size` bytes with the
 * terminating NUL, truncated to fit; nothing is written when msg_size is 0), e.g. "unknown feature
 * 'bogus' (known: sse2, ssse3, sse4.1, avx2, bmi2, avx512, shani, armv8-sha1, armv8-sha2, all)". Control
 * characters of the value are shown as '?'. No allocation; thread-safe.
 */
SHA1KIT_API int sha1kit_cpu_mask_parse(const char *value, uint32_t *masked_off, char *msg, size_t msg_size);

#ifdef __cplusplus
}
#endif

#endif /* SHA1KIT_H */
