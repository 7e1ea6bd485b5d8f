//! Who the local admin is: the OS account this process runs as, by its user id — never an
//! environment variable (`USER=mallory-2` must not make a second person of the same account).

/// The login name of the account with this process's real user id, from the password database
/// (`getpwuid_r`); `uid-<n>` for an id without an entry there (a container's arbitrary uid).
pub fn os_account() -> String {
    // SAFETY: getuid has no preconditions and cannot fail.
    let uid = unsafe { libc::getuid() };
    login_name(uid).unwrap_or_else(|| format!("uid-{uid}"))
}

/// The password database's login name of `uid`, if it has one that is printable text.
fn login_name(uid: libc::uid_t) -> Option<String> {
    let mut buf = vec![0u8; 4096];
    loop {
        // SAFETY: an all-zero passwd is a valid value of the plain C struct; getpwuid_r writes only
        // into `entry` and `buf` (its length given), and sets `found` to `entry` or null.
        let mut entry: libc::passwd = unsafe { std::mem::zeroed() };
        let mut found: *mut libc::passwd = std::ptr::null_mut();
        let rc = unsafe { libc::getpwuid_r(uid, &mut entry, buf.as_mut_ptr().cast(), buf.len(), &mut found) };
        if rc == libc::ERANGE && buf.len() < 1 << 20 {
            buf.resize(buf.len() * 4, 0);
            continue;
        }
        if rc != 0 || found.is_null() || entry.pw_name.is_null() {
            return None;
        }
        // SAFETY: on success pw_name points to a NUL-terminated string inside `buf`, alive here.
        let name = unsafe { std::ffi::CStr::from_ptr(entry.pw_name) }.to_str().ok()?.to_owned();
        return (!name.is_empty() && !name.chars().any(char::is_control)).then_some(name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_account_follows_the_user_id_not_the_user_variable() {
        let before = os_account();
        // Read at call time: a changed USER must not change who the local admin is.
        std::env::set_var("USER", "mallory-2");
        assert_eq!(os_account(), before);
        // SAFETY: getuid cannot fail.
        let uid = unsafe { libc::getuid() };
        let expected = login_name(uid).unwrap_or_else(|| format!("uid-{uid}"));
        assert_eq!(before, expected);
        assert_ne!(before, "mallory-2");
    }

    #[test]
    fn root_has_a_name_in_the_password_database() {
        assert_eq!(login_name(0).as_deref(), Some("root"));
    }
}
