//! sha1kit-bench's C entry to the Rust `sha1dc` crate (https://crates.io/crates/sha1dc), a peer that
//! `sha1kit bench` measures when scripts/rust-sha1dc.sh has built this wrapper against the crate's
//! Debian package (librust-sha1dc-dev). Built as a static library; nothing else of sha1kit uses it.

/// SHA-1 with collision detection of the `len` bytes at `data`, one-shot (`sha1dc::digest`, the
/// crate's standard digest: equal to plain SHA-1 where no attack is found). Writes the 20-byte
/// digest to `out` and returns 0; on a detected collision attack writes 20 zero bytes and returns 1.
///
/// # Safety
/// `data` points to `len` readable bytes (any pointer when `len` is 0) and `out` to 20 writable ones.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sha1kit_rs_sha1dc(data: *const u8, len: usize, out: *mut u8) -> i32 {
    let input: &[u8] = if len == 0 {
        &[]
    } else {
        // SAFETY: the caller promises `len` readable bytes at `data`.
        unsafe { core::slice::from_raw_parts(data, len) }
    };
    let (digest, status) = match sha1dc::digest(input) {
        Ok(d) => (*d.as_bytes(), 0),
        Err(_) => ([0u8; 20], 1),
    };
    // SAFETY: the caller promises 20 writable bytes at `out`.
    unsafe { core::ptr::copy_nonoverlapping(digest.as_ptr(), out, 20) };
    status
}

/// The crate version this wrapper was built against (a NUL-terminated string).
#[unsafe(no_mangle)]
pub extern "C" fn sha1kit_rs_sha1dc_version() -> *const u8 {
    concat!(env!("SHA1KIT_SHA1DC_VERSION"), "\0").as_ptr()
}
