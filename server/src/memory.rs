//! How the process gives memory back.
//!
//! glibc's allocator serves a block above its mmap threshold (128 KiB) with its own mapping,
//! returned to the system on free, but it raises that threshold to the size of every such block
//! freed, up to 32 MiB. After the first password hash (argon2 takes a 19 MiB block) every later
//! one comes from the heaps of the allocator's arenas, one per thread that hashed, and stays
//! there: a flood of failed logins took the server from 0.3 GB to 9.5 GB resident. Fixing the
//! threshold turns that adjustment off, so large blocks always go back.

/// The mmap threshold fixed at glibc's default; `MALLOC_MMAP_THRESHOLD_` in the environment
/// still overrides it. No effect with another C library.
pub fn return_large_blocks() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if std::env::var_os("MALLOC_MMAP_THRESHOLD_").is_none() {
        // SAFETY: mallopt only sets the allocator's global parameters, under its own lock.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, 128 * 1024);
        }
    }
}
