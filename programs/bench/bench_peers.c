/*
 * bench_peers.c - other SHA-1 libraries that `sha1kit bench` measures when CMake found them at build
 * time (SK_BENCH_HAVE_OPENSSL, SK_BENCH_HAVE_NETTLE, SK_BENCH_HAVE_GCRYPT; see CMakeLists.txt). All are
 * plain SHA-1 ("fast" flavour), one-shot per message:
 *
 *   openssl-evp      EVP_Digest(..., EVP_sha1(), NULL): the EVP one-shot most callers write; it
 *                    creates and frees an EVP_MD_CTX and resolves the digest on every call.
 *   openssl-evp-ctx  one EVP_MD_CTX and one fetched EVP_MD reused: EVP_DigestInit_ex, Update,
 *                    Final_ex per message (the cheapest way through EVP).
 *   openssl-sha1     the SHA1() one-shot. In OpenSSL 3.x it is a wrapper of EVP_Q_digest(): it
 *                    looks the digest up and allocates a context on every call.
 *   openssl-sha1-ctx the low-level SHA1_Init, SHA1_Update, SHA1_Final on a SHA_CTX on the stack
 *                    (deprecated in 3.0, still built by Debian): no allocation, no lookup.
 *   nettle           sha1_init, sha1_update, sha1_digest.
 *   libgcrypt        gcry_md_hash_buffer(GCRY_MD_SHA1, ...).
 *   rust-sha1dc      the Rust sha1dc crate (SHA-1 with collision detection, "dc" flavour: the peer
 *                    of sha1kit's dc rows; the DC_SHA1_RS backend proposed for Git, used by
 *                    gitoxide): sha1dc::digest per message through sha1kit's C entry
 *                    (bench/rust-sha1dc/src/lib.rs), linked when scripts/rust-sha1dc.sh has built
 *                    it (SK_BENCH_HAVE_SHA1DC_RS). It picks its code (SHA-NI, AVX2, SSE2, scalar)
 *                    from its own CPU probe: SHA1KIT_CPU does not mask it.
 *   ipsec-mb         Intel's multi-buffer library (intel-ipsec-mb): plain SHA-1 jobs
 *                    (IMB_AUTH_SHA_1) submitted to one manager, then flushed: a "batch" row with
 *                    --batch messages per call, the peer of sha1kit's batch rows (its lanes are
 *                    filled and refilled as sha1kit's are).
 *
 * ipsec-mb picks its code from CPUID alone: init_mb_mgr_auto runs AVX code on a CPU that has AVX
 * but whose OS does not save the YMM state (SIGILL, e.g. under qemu-x86_64 -cpu Haswell,-xsave).
 * Its manager is therefore chosen from sha1kit's own probe (the public sha1kit_cpu_features_detected
 * less sha1kit_cpu_mask), which asks the OS (XGETBV): with AVX-512
 * enabled, init_mb_mgr_auto (anything it picks can run); with AVX2 only, init_mb_mgr_avx2; else
 * init_mb_mgr_sse. When that manager cannot be set up either (a CPU without the SSE4.2, AES-NI and
 * PCLMULQDQ ipsec-mb's SSE code needs), the row is listed as unavailable, with the reason, and not
 * measured. The other peers check the OS's AVX state themselves before using AVX.
 *
 * OpenSSL picks SHA-NI from its own CPUID probe, which runs when libcrypto is loaded; the environment
 * variable OPENSSL_ia32cap=":~0x20000000" masks it off (see `sha1kit bench --openssl-no-shani`).
 */
#if defined(SK_BENCH_HAVE_OPENSSL)
/* SHA1_Init/Update/Final are deprecated since OpenSSL 3.0: keep the declarations, drop the warning
 * (here only; the rest of the project does not use them). */
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#endif
#if defined(SK_BENCH_HAVE_NETTLE)
#include <nettle/sha1.h>
#include <nettle/version.h>
#endif
#if defined(SK_BENCH_HAVE_GCRYPT)
#include <gcrypt.h>
#endif
#if defined(SK_BENCH_HAVE_IPSECMB)
#define NO_COMPAT_IMB_API_053 1 /* its old names include SHA1, which OpenSSL's header declares */
#include <intel-ipsec-mb.h>
#endif

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_peers.h"
#include "sha1kit.h"

#if defined(SK_BENCH_HAVE_SHA1DC_RS)
/* bench/rust-sha1dc/src/lib.rs */
int sha1kit_rs_sha1dc(const uint8_t *data, size_t len, uint8_t out[20]);
const char *sha1kit_rs_sha1dc_version(void);
#endif

#if defined(SK_BENCH_HAVE_OPENSSL) || defined(SK_BENCH_HAVE_NETTLE) || defined(SK_BENCH_HAVE_GCRYPT) ||      \
    defined(SK_BENCH_HAVE_IPSECMB) || defined(SK_BENCH_HAVE_SHA1DC_RS)
static uint32_t first_word(const unsigned char *d)
{
	uint32_t w;
	memcpy(&w, d, sizeof(w));
	return w;
}
#endif

/* A single-stream plain SHA-1 peer, state `state` (NULL: none) freed by free_state. */
static struct bench_impl *new_impl(struct bench_impl *out, size_t *n, size_t max, const char *id,
                                   const char *library, const char *note, bench_run_fn run)
{
	if (*n >= max)
		return NULL;
	struct bench_impl *b = &out[(*n)++];
	memset(b, 0, sizeof(*b));
	snprintf(b->id, sizeof(b->id), "%s", id);
	b->library = library;
	b->flavour = "fast";
	b->kernel = NULL;
	b->shape = "single";
	b->note = note;
	b->per_call = 1;
	b->run = run;
	return b;
}

#if defined(SK_BENCH_HAVE_IPSECMB)
/* Whether sha1kit's CPU probe (less SHA1KIT_CPU) finds the feature of that name: "avx2", "avx512". */
static bool cpu_has(const char *feature)
{
	uint32_t off = 0;
	const char *name;
	sha1kit_cpu_mask(&off);
	for (int bit = 0; (name = sha1kit_cpu_feature_name(bit)) != NULL; bit++)
		if (strcmp(name, feature) == 0)
			return ((sha1kit_cpu_features_detected() & ~off) >> bit & 1u) != 0;
	return false;
}
#endif

#if defined(SK_BENCH_HAVE_OPENSSL)
static uint32_t run_openssl_evp(void *state, const struct bench_msgs *m, size_t count)
{
	unsigned char md[SHA_DIGEST_LENGTH];
	uint32_t acc = 0;
	(void)state;
	const uint8_t *msg = m->base;
	const size_t len = m->len;
	for (size_t i = 0; i < count; i++, msg = bench_next(m, msg)) {
		if (!EVP_Digest(msg, len, md, NULL, EVP_sha1(), NULL))
			abort();
		acc = bench_fold(acc, first_word(md));
	}
	return acc;
}

/* openssl-evp-ctx: one context and one fetched digest, reused. */
struct evp_state {
	EVP_MD_CTX *ctx;
	EVP_MD *md;
};

static void evp_state_free(void *p)
{
	struct evp_state *st = p;
	if (st != NULL) {
		EVP_MD_CTX_free(st->ctx);
		EVP_MD_free(st->md);
		free(st);
	}
}

static uint32_t run_openssl_evp_ctx(void *state, const struct bench_msgs *m, size_t count)
{
	const struct evp_state *st = state;
	unsigned char md[EVP_MAX_MD_SIZE];
	uint32_t acc = 0;
	const uint8_t *msg = m->base;
	const size_t len = m->len;
	for (size_t i = 0; i < count; i++, msg = bench_next(m, msg)) {
		if (!EVP_DigestInit_ex(st->ctx, st->md, NULL) || !EVP_DigestUpdate(st->ctx, msg, len) ||
		    !EVP_DigestFinal_ex(st->ctx, md, NULL))
			abort();
		acc = bench_fold(acc, first_word(md));
	}
	return acc;
}

/* openssl-evp-sha256: the EVP one-shot of SHA-256 (`sha1kit bench --sha256`). */
static uint32_t run_openssl_evp_sha256(void *state, const struct bench_msgs *m, size_t count)
{
	unsigned char md[SHA256_DIGEST_LENGTH];
	uint32_t acc = 0;
	(void)state;
	const uint8_t *msg = m->base;
	const size_t len = m->len;
	for (size_t i = 0; i < count; i++, msg = bench_next(m, msg)) {
		if (!EVP_Digest(msg, len, md, NULL, EVP_sha256(), NULL))
			abort();
		acc = bench_fold(acc, first_word(md));
	}
	return acc;
}

static uint32_t run_openssl_sha1(void *state, const struct bench_msgs *m, size_t count)
{
	unsigned char md[SHA_DIGEST_LENGTH];
	uint32_t acc = 0;
	(void)state;
	const uint8_t *msg = m->base;
	const size_t len = m->len;
	for (size_t i = 0; i < count; i++, msg = bench_next(m, msg)) {
		SHA1(msg, len, md);
		acc = bench_fold(acc, first_word(md));
	}
	return acc;
}

#if !defined(OPENSSL_NO_DEPRECATED_3_0)
static uint32_t run_openssl_sha1_ctx(void *state, const struct bench_msgs *m, size_t count)
{
	unsigned char md[SHA_DIGEST_LENGTH];
	uint32_t acc = 0;
	(void)state;
	const uint8_t *msg = m->base;
	const size_t len = m->len;
	for (size_t i = 0; i < count; i++, msg = bench_next(m, msg)) {
		SHA_CTX ctx;
		SHA1_Init(&ctx);
		SHA1_Update(&ctx, msg, len);
		SHA1_Final(md, &ctx);
		acc = bench_fold(acc, first_word(md));
	}
	return acc;
}
#endif

/* openssl-evp-ctx or openssl-evp-ctx-sha256: a reused context and digest `name` fetched once. */
static void add_openssl_ctx(struct bench_impl *out, size_t *n, size_t max, const char *id, const char *name,
                            const char *flavour)
{
	struct evp_state *st = calloc(1, sizeof(*st));
	if (st != NULL) {
		st->ctx = EVP_MD_CTX_new();
		st->md = EVP_MD_fetch(NULL, name, NULL);
	}
	if (st != NULL && st->ctx != NULL && st->md != NULL) {
		struct bench_impl *b =
		    new_impl(out, n, max, id, "openssl",
		             "EVP_DigestInit_ex/Update/Final_ex, context and fetched EVP_MD reused",
		             run_openssl_evp_ctx);
		if (b != NULL) {
			b->flavour = flavour;
			b->state = st;
			b->free_state = evp_state_free;
			st = NULL;
		}
	}
	evp_state_free(st);
}

static void add_openssl(struct bench_impl *out, size_t *n, size_t max)
{
	new_impl(out, n, max, "openssl-evp", "openssl", "EVP_Digest(EVP_sha1()) per message",
	         run_openssl_evp);
	add_openssl_ctx(out, n, max, "openssl-evp-ctx", "SHA1", "fast");
	new_impl(out, n, max, "openssl-sha1", "openssl", "SHA1() one-shot (OpenSSL 3: EVP_Q_digest inside)",
	         run_openssl_sha1);
#if !defined(OPENSSL_NO_DEPRECATED_3_0)
	new_impl(out, n, max, "openssl-sha1-ctx", "openssl",
	         "low-level SHA1_Init/Update/Final, SHA_CTX on the stack", run_openssl_sha1_ctx);
#endif
	/* SHA-256 (flavour "sha256", `sha1kit bench --sha256`) */
	struct bench_impl *b = new_impl(out, n, max, "openssl-evp-sha256", "openssl",
	                                "EVP_Digest(EVP_sha256()) per message", run_openssl_evp_sha256);
	if (b != NULL)
		b->flavour = "sha256";
	add_openssl_ctx(out, n, max, "openssl-evp-ctx-sha256", "SHA256", "sha256");
}
#endif

#if defined(SK_BENCH_HAVE_NETTLE)
static uint32_t run_nettle(void *state, const struct bench_msgs *m, size_t count)
{
	uint8_t md[SHA1_DIGEST_SIZE];
	uint32_t acc = 0;
	(void)state;
	const uint8_t *msg = m->base;
	const size_t len = m->len;
	for (size_t i = 0; i < count; i++, msg = bench_next(m, msg)) {
		struct sha1_ctx ctx;
		sha1_init(&ctx);
		sha1_update(&ctx, len, msg);
		sha1_digest(&ctx, SHA1_DIGEST_SIZE, md);
		acc = bench_fold(acc, first_word(md));
	}
	return acc;
}
#endif

#if defined(SK_BENCH_HAVE_SHA1DC_RS)
/* The crate's standard digest: plain SHA-1 where no attack is found; a detection (none on the
 * bench's random messages) gives zeros, which the digest check refuses. */
static uint32_t run_sha1dc_rs(void *state, const struct bench_msgs *m, size_t count)
{
	uint8_t md[20];
	uint32_t acc = 0;
	(void)state;
	const uint8_t *msg = m->base;
	const size_t len = m->len;
	for (size_t i = 0; i < count; i++, msg = bench_next(m, msg)) {
		uint32_t flagged = (uint32_t)sha1kit_rs_sha1dc(msg, len, md);
		acc = bench_fold(acc, first_word(md) ^ flagged);
	}
	return acc;
}
#endif

#if defined(SK_BENCH_HAVE_GCRYPT)
static uint32_t run_gcrypt(void *state, const struct bench_msgs *m, size_t count)
{
	unsigned char md[20];
	uint32_t acc = 0;
	(void)state;
	const uint8_t *msg = m->base;
	const size_t len = m->len;
	for (size_t i = 0; i < count; i++, msg = bench_next(m, msg)) {
		gcry_md_hash_buffer(GCRY_MD_SHA1, md, msg, len);
		acc = bench_fold(acc, first_word(md));
	}
	return acc;
}

/* libgcrypt's own one-time initialisation (its state, not ours); returns its version. */
static const char *gcrypt_init(void)
{
	const char *version = gcry_check_version(NULL);
	if (!gcry_control(GCRYCTL_INITIALIZATION_FINISHED_P)) {
		gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
		gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
	}
	return version;
}
#endif

#if defined(SK_BENCH_HAVE_IPSECMB)
/* The ipsec-mb row: its manager, the digests of one call, and its note. */
struct imb_state {
	IMB_MGR *mgr; /* NULL: no manager could be set up (unavailable says why) */
	size_t per_call;
	uint8_t (*digests)[20];
	char note[160];
	char unavailable[160];
};

static const char *imb_arch_name(IMB_ARCH arch)
{
	switch (arch) {
	case IMB_ARCH_NOAESNI:
		return "SSE without AES-NI";
	case IMB_ARCH_SSE:
		return "SSE";
	case IMB_ARCH_AVX:
		return "AVX";
	case IMB_ARCH_AVX2:
		return "AVX2";
	case IMB_ARCH_AVX512:
		return "AVX-512";
	default:
		return "unknown";
	}
}

/* Set up st->mgr with the manager sha1kit's CPU probe allows (see the top of this file), and its
 * note. On failure st->mgr is NULL and st->unavailable says why. */
static void imb_setup(struct imb_state *st)
{
	const uint64_t sse =
	    IMB_FEATURE_SSE4_2 | IMB_FEATURE_CMOV | IMB_FEATURE_AESNI | IMB_FEATURE_PCLMULQDQ;
	const uint64_t avx2 = sse | IMB_FEATURE_AVX | IMB_FEATURE_AVX2 | IMB_FEATURE_BMI2;
	IMB_ARCH arch = IMB_ARCH_NONE;
	const char *why = "";
	bool have_avx2 = cpu_has("avx2");
	const char *no_avx2 =
	    have_avx2 ? "the CPU lacks features of its AVX2 code" : "no usable AVX2 (CPU, OS or SHA1KIT_CPU)";

	st->unavailable[0] = '\0';
	st->mgr = alloc_mb_mgr(0); /* detects the CPU's features (CPUID only); runs no AVX code */
	if (st->mgr == NULL) {
		snprintf(st->unavailable, sizeof(st->unavailable), "alloc_mb_mgr failed");
		return;
	}
	if (cpu_has("avx512")) {
		init_mb_mgr_auto(st->mgr, &arch);
		why = "chosen by init_mb_mgr_auto";
	} else if (have_avx2 && (st->mgr->features & avx2) == avx2) {
		init_mb_mgr_avx2(st->mgr);
		arch = IMB_ARCH_AVX2;
		why = "no usable AVX-512 (CPU, OS or SHA1KIT_CPU)";
	} else if ((st->mgr->features & sse) == sse) {
		init_mb_mgr_sse(st->mgr);
		arch = IMB_ARCH_SSE;
		why = no_avx2;
	} else {
		snprintf(st->unavailable, sizeof(st->unavailable),
		         "%s; its SSE code needs SSE4.2, AES-NI and PCLMULQDQ, which the CPU lacks", no_avx2);
	}
	int err = imb_get_errno(st->mgr);
	if (st->unavailable[0] == '\0' && err != 0)
		snprintf(st->unavailable, sizeof(st->unavailable), "setting up its %s manager failed: %s",
		         imb_arch_name(arch), imb_get_strerror(err));
	if (st->unavailable[0] != '\0') {
		free_mb_mgr(st->mgr);
		st->mgr = NULL;
		return;
	}
	snprintf(st->note, sizeof(st->note), "IMB_AUTH_SHA_1 jobs, submit then flush; %s manager: %s",
	         imb_arch_name(arch), why);
}

static void imb_state_free(void *p)
{
	struct imb_state *st = p;
	if (st != NULL) {
		if (st->mgr != NULL)
			free_mb_mgr(st->mgr);
		free(st->digests);
		free(st);
	}
}

/* A job back from the manager (in any order: the digests are folded in message order after). */
static void imb_done(const IMB_JOB *job)
{
	if (job->status != IMB_STATUS_COMPLETED) {
		fprintf(stderr, "sha1kit bench: ipsec-mb: a job did not complete\n");
		exit(1);
	}
}

/* per_call plain SHA-1 jobs submitted, then flushed; count is a multiple of per_call. */
static uint32_t run_ipsecmb(void *state, const struct bench_msgs *m, size_t count)
{
	struct imb_state *st = state;
	IMB_MGR *mgr = st->mgr;
	const uint8_t *msg = m->base;
	uint32_t acc = 0;
	for (size_t done = 0; done < count; done += st->per_call) {
		IMB_JOB *job;
		for (size_t i = 0; i < st->per_call; i++, msg = bench_next(m, msg)) {
			job = IMB_GET_NEXT_JOB(mgr);
			job->cipher_mode = IMB_CIPHER_NULL;
			job->cipher_direction = IMB_DIR_ENCRYPT;
			job->chain_order = IMB_ORDER_HASH_CIPHER;
			job->hash_alg = IMB_AUTH_SHA_1;
			job->src = msg;
			job->dst = NULL;
			job->cipher_start_src_offset_in_bytes = 0;
			job->msg_len_to_cipher_in_bytes = 0;
			job->hash_start_src_offset_in_bytes = 0;
			job->msg_len_to_hash_in_bytes = m->len;
			job->auth_tag_output = st->digests[i];
			job->auth_tag_output_len_in_bytes = 20;
			for (job = IMB_SUBMIT_JOB(mgr); job != NULL; job = IMB_GET_COMPLETED_JOB(mgr))
				imb_done(job);
		}
		while ((job = IMB_FLUSH_JOB(mgr)) != NULL)
			imb_done(job);
		for (size_t i = 0; i < st->per_call; i++)
			acc = bench_fold(acc, first_word(st->digests[i]));
	}
	return acc;
}

static void add_ipsecmb(struct bench_impl *out, size_t *n, size_t max, size_t batch)
{
	if (batch == 0 || batch > BENCH_MAX_BATCH)
		return;
	struct bench_impl *b = new_impl(out, n, max, "ipsec-mb", "ipsec-mb", NULL, NULL);
	if (b == NULL)
		return;
	b->shape = "batch";
	b->per_call = batch;
	/* measured with ipsec-mb 1.3: a SHA-1 job of 65535 bytes or more completes with
	 * IMB_STATUS_INVALID_ARGS */
	b->max_len = 65534;
	b->note = "IMB_AUTH_SHA_1 jobs, submit then flush";
	struct imb_state *st = calloc(1, sizeof(*st));
	if (st == NULL || (st->digests = calloc(batch, sizeof(*st->digests))) == NULL) {
		imb_state_free(st);
		b->unavailable = "out of memory";
		return;
	}
	st->per_call = batch;
	b->state = st;
	b->free_state = imb_state_free;
	imb_setup(st);
	if (st->mgr == NULL) {
		b->unavailable = st->unavailable;
		return;
	}
	b->note = st->note;
	b->run = run_ipsecmb;
}
#endif

size_t bench_peers_add(struct bench_impl *out, size_t max, size_t batch)
{
	size_t n = 0;
	(void)out;
	(void)max;
	(void)batch;
	(void)new_impl;
#if defined(SK_BENCH_HAVE_OPENSSL)
	add_openssl(out, &n, max);
#endif
#if defined(SK_BENCH_HAVE_NETTLE)
	new_impl(out, &n, max, "nettle", "nettle", "sha1_init/update/digest", run_nettle);
#endif
#if defined(SK_BENCH_HAVE_GCRYPT)
	gcrypt_init();
	new_impl(out, &n, max, "libgcrypt", "libgcrypt", "gcry_md_hash_buffer(GCRY_MD_SHA1)", run_gcrypt);
#endif
#if defined(SK_BENCH_HAVE_IPSECMB)
	add_ipsecmb(out, &n, max, batch);
#endif
#if defined(SK_BENCH_HAVE_SHA1DC_RS)
	struct bench_impl *rs = new_impl(out, &n, max, "rust-sha1dc", "rust-sha1dc",
	                                 "sha1dc::digest per message (Rust crate)", run_sha1dc_rs);
	if (rs != NULL)
		rs->flavour = "dc";
#endif
	return n;
}

const char *bench_peers_not_linked(void)
{
#if defined(SK_BENCH_HAVE_SHA1DC_RS)
	return NULL;
#else
	return "rust-sha1dc (scripts/rust-sha1dc.sh builds it; then configure again)";
#endif
}

static void add_version(struct bench_peer_version *out, size_t *n, size_t max, const char *library,
                        const char *version)
{
	if (*n >= max)
		return;
	out[*n].library = library;
	snprintf(out[*n].version, sizeof(out[*n].version), "%s", version);
	(*n)++;
}

size_t bench_peers_versions(struct bench_peer_version *out, size_t max)
{
	size_t n = 0;
	(void)out;
	(void)max;
	(void)add_version;
#if defined(SK_BENCH_HAVE_OPENSSL)
	add_version(out, &n, max, "openssl", OpenSSL_version(OPENSSL_VERSION));
#endif
#if defined(SK_BENCH_HAVE_NETTLE)
	char v[32];
	snprintf(v, sizeof(v), "%d.%d", nettle_version_major(), nettle_version_minor());
	add_version(out, &n, max, "nettle", v);
#endif
#if defined(SK_BENCH_HAVE_GCRYPT)
	add_version(out, &n, max, "libgcrypt", gcrypt_init());
#endif
#if defined(SK_BENCH_HAVE_IPSECMB)
	/* Whether a manager can be set up here: one is set up and freed again. */
	struct imb_state st;
	memset(&st, 0, sizeof(st));
	imb_setup(&st);
	if (st.mgr == NULL) {
		char what[sizeof(out[0].version)];
		snprintf(what, sizeof(what), "%s (unavailable: %s)", imb_get_version_str(), st.unavailable);
		add_version(out, &n, max, "ipsec-mb", what);
	} else {
		free_mb_mgr(st.mgr);
		add_version(out, &n, max, "ipsec-mb", imb_get_version_str());
	}
#endif
#if defined(SK_BENCH_HAVE_SHA1DC_RS)
	add_version(out, &n, max, "rust-sha1dc", sha1kit_rs_sha1dc_version());
#endif
	return n;
}
