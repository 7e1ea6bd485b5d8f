//! The OS keyring: [`get`], [`set`] and [`delete`] a secret by name, each on a thread of its own
//! with a time limit, and keyring's errors as [`SecretError`]s.

use super::{ApiKey, SecretError, MAX_NAME_CHARS, SERVICE};
use std::time::Duration;

/// How long one keyring call may take. A keyring that asks the user to unlock it waits for them; a
/// keyring that never answers must not hang a CLI command or a start-up for ever.
const KEYRING_TIMEOUT: Duration = Duration::from_secs(60);

/// The secret `name` from the OS keyring.
///
/// Errors: [`SecretError::NotFound`] if there is none, [`SecretError::Unavailable`] without a
/// keyring (no D-Bus session, no Secret Service on it), [`SecretError::Locked`] if the keyring
/// stays locked. Blocks a separate thread, never the async runtime, for at most 60 s.
pub async fn get(name: &str) -> Result<ApiKey, SecretError> {
    on_keyring(name, |entry| entry.get_password().map(ApiKey::new)).await
}

/// Stores `value` as the secret `name`, replacing any value it had. An empty value is refused.
pub async fn set(name: &str, value: &ApiKey) -> Result<(), SecretError> {
    let name = checked_name(name)?;
    if value.expose().is_empty() {
        return Err(SecretError::EmptyValue { name: name.to_owned() });
    }
    let value = value.clone();
    on_keyring(name, move |entry| entry.set_password(value.expose())).await
}

/// Removes the secret `name`; [`SecretError::NotFound`] if there is none.
pub async fn delete(name: &str) -> Result<(), SecretError> {
    on_keyring(name, |entry| entry.delete_credential()).await
}

/// Runs `call` on the keyring entry for `name` on a thread of its own.
///
/// keyring's Secret Service calls are blocking and drive zbus on zbus's own tokio runtime: called from
/// inside a runtime they panic ("Cannot start a runtime from within a runtime"), so they must leave
/// the async context. A plain thread rather than `spawn_blocking`: if the keyring never answers, the
/// timeout below gives the caller an error, and a detached thread — unlike a blocking-pool task,
/// which the runtime waits for when it shuts down — does not then hold the process open.
async fn on_keyring<T, F>(name: &str, call: F) -> Result<T, SecretError>
where
    T: Send + 'static,
    F: FnOnce(&keyring::Entry) -> keyring::Result<T> + Send + 'static,
{
    let name = checked_name(name)?.to_owned();
    let (tx, rx) = tokio::sync::oneshot::channel();
    let thread_name = name.clone();
    std::thread::Builder::new()
        .name("keyring".into())
        .spawn(move || {
            let result = keyring::Entry::new(SERVICE, &thread_name).and_then(|entry| call(&entry));
            let _ = tx.send(result.map_err(|e| classify(&thread_name, e)));
        })
        .map_err(|e| SecretError::Other { name: name.clone(), detail: format!("cannot start a thread for the keyring call: {e}") })?;
    match tokio::time::timeout(KEYRING_TIMEOUT, rx).await {
        Ok(Ok(result)) => result,
        Ok(Err(_)) => Err(SecretError::Other { name, detail: "the keyring call panicked".into() }),
        Err(_) => Err(SecretError::Unavailable {
            detail: format!("no answer within {} s (is it waiting for an unlock prompt?)", KEYRING_TIMEOUT.as_secs()),
        }),
    }
}

/// A secret name: not empty, at most [`MAX_NAME_CHARS`] characters, no control characters, no
/// leading or trailing whitespace (it would make `openai` and `openai ` two different secrets).
fn checked_name(name: &str) -> Result<&str, SecretError> {
    let invalid = |reason| {
        let mut shown: String = name.chars().take(40).collect::<String>();
        if name.chars().count() > 40 {
            shown.push('…');
        }
        // `{:?}` escapes control characters, so the message cannot drive the terminal.
        Err(SecretError::InvalidName { shown: format!("{shown:?}"), reason })
    };
    if name.is_empty() {
        invalid("it is empty")
    } else if name.chars().count() > MAX_NAME_CHARS {
        invalid("it is longer than 100 characters")
    } else if name.chars().any(char::is_control) {
        invalid("it contains control characters")
    } else if name.trim() != name {
        invalid("it starts or ends with whitespace")
    } else {
        Ok(name)
    }
}

/// keyring's error as ours. Built from the error's kind and the platform's description, never from
/// `BadEncoding`'s bytes (that is the stored value).
fn classify(name: &str, error: keyring::Error) -> SecretError {
    let name = name.to_owned();
    match error {
        keyring::Error::NoEntry => SecretError::NotFound { name },
        keyring::Error::NoStorageAccess(e) => {
            let detail = chain(&*e);
            // secret-service's `NoResult`: the service has no default collection (no login keyring yet).
            let detail =
                if detail.contains("result not returned") { format!("it has no default keyring to use ({detail})") } else { detail };
            SecretError::Locked { detail }
        }
        keyring::Error::PlatformFailure(e) => {
            let detail = chain(&*e);
            if means_no_keyring(&detail) {
                SecretError::Unavailable { detail }
            } else {
                SecretError::Other { name, detail }
            }
        }
        keyring::Error::BadEncoding(_) => SecretError::Other { name, detail: "the stored value is not UTF-8 text".into() },
        keyring::Error::Ambiguous(items) => SecretError::Other {
            detail: format!(
                "{} entries match it; remove the extra ones (e.g. `secret-tool clear service {SERVICE} username {name}`) and set it again",
                items.len()
            ),
            name,
        },
        keyring::Error::TooLong(attribute, limit) => {
            SecretError::Other { name, detail: format!("{attribute} is longer than the keyring's limit of {limit}") }
        }
        keyring::Error::Invalid(attribute, reason) => SecretError::Other { name, detail: format!("{attribute} is invalid: {reason}") },
        other => SecretError::Other { name, detail: other.to_string() },
    }
}

/// Platform failures that mean "there is no keyring to talk to": no session bus
/// (`DBUS_SESSION_BUS_ADDRESS` unset or pointing nowhere), or a bus on which nobody owns
/// `org.freedesktop.secrets` and nothing can be activated.
fn means_no_keyring(detail: &str) -> bool {
    [
        "no secret service provider or dbus session found", // secret-service's `Unavailable`
        "ServiceUnknown",
        "org.freedesktop.secrets",
        "Connection refused",
        "No such file or directory",
    ]
    .iter()
    .any(|needle| detail.contains(needle))
}

/// `error: source: source…`, each level once (wrappers often repeat their source's text).
fn chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(e) = source {
        let s = e.to_string();
        if !text.contains(&s) {
            text.push_str(": ");
            text.push_str(&s);
        }
        source = e.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked_before_the_keyring_is_asked() {
        assert!(checked_name("openai").is_ok());
        assert!(checked_name("ollama local").is_ok());
        assert!(checked_name(&"x".repeat(100)).is_ok());
        for (bad, reason) in [
            ("", "empty"),
            (&*"x".repeat(101), "longer than 100"),
            ("open\u{1b}[2Jai", "control characters"),
            ("line\nbreak", "control characters"),
            (" openai", "whitespace"),
        ] {
            let e = checked_name(bad).unwrap_err();
            assert!(e.to_string().contains(reason), "{bad:?}: {e}");
            assert!(!e.to_string().contains('\u{1b}'), "control character printed: {e:?}");
            assert_eq!(e.code(), "invalid_request");
        }
    }

    #[test]
    fn keyring_errors_become_messages_that_say_what_to_do_and_never_the_value() {
        let not_found = classify("openai", keyring::Error::NoEntry);
        assert_eq!(not_found.to_string(), "no secret named openai in the OS keyring: store it with `approval-console secret set openai`");
        let bad = classify("openai", keyring::Error::BadEncoding(b"sk-\xff-very-secret".to_vec()));
        assert!(!format!("{bad} {bad:?}").contains("very-secret"));
        let io = std::io::Error::other("no secret service provider or dbus session found");
        let unavailable = classify("openai", keyring::Error::PlatformFailure(Box::new(io)));
        assert!(matches!(unavailable, SecretError::Unavailable { .. }));
        assert!(unavailable.to_string().starts_with("the OS keyring (Secret Service) is not available"));
        let locked = classify("openai", keyring::Error::NoStorageAccess(Box::new(std::io::Error::other("object locked"))));
        assert_eq!(locked.code(), "keyring_locked");
    }

    #[tokio::test]
    async fn an_empty_value_is_refused_without_asking_the_keyring() {
        let e = set("openai", &ApiKey::new("")).await.unwrap_err();
        assert!(matches!(e, SecretError::EmptyValue { .. }), "{e}");
    }
}
