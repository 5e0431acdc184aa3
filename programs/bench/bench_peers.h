/*
 * bench_peers.h - the other libraries' SHA-1 that `sha1kit bench` measures (bench_peers.c): those
 * CMake found and linked into sha1kit-bench (OpenSSL, nettle, libgcrypt, ipsec-mb, the Rust sha1dc
 * crate built by scripts/rust-sha1dc.sh).
 */
#ifndef SHA1KIT_BENCH_PEERS_H
#define SHA1KIT_BENCH_PEERS_H

#include <stddef.h>

#include "bench_impl.h"

#define BENCH_MAX_PEERS 5

/* Append to out[0..max-1] the peers linked at build time, those that cannot run on this machine
 * with `unavailable` set; the batch peer (ipsec-mb) with `batch` messages per call (0: none).
 * Returns how many were added. */
size_t bench_peers_add(struct bench_impl *out, size_t max, size_t batch);

struct bench_peer_version {
	const char *library; /* "openssl", "nettle", "libgcrypt", "ipsec-mb", "rust-sha1dc" */
	char version[192];   /* with " (unavailable: REASON)" for a peer that cannot run here */
};

/* The peers not linked into this build that only a set-up script provides, with how to get them
 * (one line for the header), or NULL: none missing. */
const char *bench_peers_not_linked(void);

/* The version of every linked library into out[0..max-1]; returns how many. */
size_t bench_peers_versions(struct bench_peer_version *out, size_t max);

#endif /* SHA1KIT_BENCH_PEERS_H */
