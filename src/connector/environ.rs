//! What a connector hides of its own environment from the processes beside it.

/// Zeroes the values of `names` where the environment block holds them, and makes the process
/// non-dumpable (Linux); elsewhere, nothing.
pub(super) fn hide_from_proc(names: &[String]) {
    #[cfg(target_os = "linux")]
    {
        for name in names {
            let Ok(name) = std::ffi::CString::new(name.as_str()) else { continue };
            // SAFETY: `getenv` answers a pointer to the value's NUL-terminated bytes in the environment
            // block (for a variable the process inherited: the block the kernel shows as
            // /proc/<pid>/environ), which is writable; zeroing `strlen` bytes stays inside that value
            // and leaves the terminator. The caller guarantees no other thread reads the environment.
            unsafe {
                let value = libc::getenv(name.as_ptr());
                if !value.is_null() {
                    std::ptr::write_bytes(value, 0, libc::strlen(value));
                }
            }
        }
        // SAFETY: a flag of this process; no memory is involved.
        unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 0) };
    }
    #[cfg(not(target_os = "linux"))]
    let _ = names;
}
