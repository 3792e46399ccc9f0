//! The scoring threads' CPU priority. Linux keeps a nice value per thread and a new thread
//! starts with its creator's, so lowering the engine thread before it builds the ONNX Runtime
//! sessions lowers their intra-op pool too, and nothing else in the process.
use anyhow::bail;

/// Highest nice value Linux accepts.
pub const MAX_NICE: i32 = 19;

/// Raises the calling thread's nice value to `nice` (0..=19). A thread already at or above it
/// is left as it is (going back up in priority would need a privilege).
pub fn lower_this_thread(nice: i32) -> anyhow::Result<()> {
    if !(0..=MAX_NICE).contains(&nice) {
        bail!("a nice value must be between 0 and {MAX_NICE}, not {nice}");
    }
    if this_thread_nice()? >= nice {
        return Ok(());
    }
    #[cfg(target_os = "linux")]
    {
        // SAFETY: gettid and setpriority only read their arguments.
        let tid = unsafe { libc::gettid() };
        let rc = unsafe { libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, nice) };
        if rc != 0 {
            bail!("setpriority failed: {}", std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// The calling thread's nice value.
pub fn this_thread_nice() -> anyhow::Result<i32> {
    #[cfg(target_os = "linux")]
    {
        // getpriority may return -1 legitimately; errno tells the two apart.
        // SAFETY: as above; errno is thread-local.
        unsafe {
            *libc::__errno_location() = 0;
            let value = libc::getpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t);
            if value == -1 && *libc::__errno_location() != 0 {
                bail!("getpriority failed: {}", std::io::Error::last_os_error());
            }
            Ok(value)
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        Ok(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lowering_a_thread_leaves_the_others_and_passes_to_its_children() {
        let before = this_thread_nice().unwrap();
        let (own, child) = std::thread::spawn(|| {
            lower_this_thread(7).unwrap();
            let child = std::thread::spawn(|| this_thread_nice().unwrap())
                .join()
                .unwrap();
            (this_thread_nice().unwrap(), child)
        })
        .join()
        .unwrap();
        assert_eq!(own, before.max(7));
        assert_eq!(child, own, "a thread starts with its creator's nice value");
        assert_eq!(
            this_thread_nice().unwrap(),
            before,
            "other threads keep theirs"
        );
    }

    #[test]
    fn out_of_range_values_are_refused() {
        assert!(lower_this_thread(-1).is_err());
        assert!(lower_this_thread(20).is_err());
        assert!(lower_this_thread(0).is_ok());
    }
}
