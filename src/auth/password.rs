//! Usernames and passwords: the rules, Argon2id hashing (PHC strings) and verification.
//!
//! The common-password list (`common-passwords.txt`, 20,000 entries, lower-cased) is the list
//! Django ships (BSD-3-Clause), created by Royce Williams from breach corpora.
use crate::error::{AppError, AppResult};
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use std::collections::HashSet;
use std::sync::LazyLock;

pub const USERNAME_MIN: usize = 3;
pub const USERNAME_MAX: usize = 20;
pub const PASSWORD_MIN: usize = 8;
pub const PASSWORD_MAX: usize = 128;

static COMMON_LIST: &str = include_str!("common-passwords.txt");
static COMMON: LazyLock<HashSet<&'static str>> =
    LazyLock::new(|| COMMON_LIST.lines().map(str::trim).filter(|l| !l.is_empty()).collect());

/// How many common passwords are refused.
pub fn common_password_count() -> usize {
    COMMON.len()
}

/// Is this (case-insensitively) one of the shipped common passwords?
pub fn is_common(password: &str) -> bool {
    COMMON.contains(password.to_lowercase().as_str())
}

/// Username rules: 3–20 characters, letters (any script, CJK included), ASCII digits, `_`.
/// Returns the lookup key (lower case): names are unique regardless of case.
pub fn check_username(name: &str) -> AppResult<String> {
    let n = name.chars().count();
    if !(USERNAME_MIN..=USERNAME_MAX).contains(&n) {
        return Err(AppError::bad_request(
            "invalid_username",
            format!("the username must be {USERNAME_MIN} to {USERNAME_MAX} characters long"),
        ));
    }
    if !name.chars().all(|c| c.is_alphabetic() || c.is_ascii_digit() || c == '_') {
        return Err(AppError::bad_request(
            "invalid_username",
            "the username may contain only letters, digits and underscores",
        ));
    }
    Ok(username_key(name))
}

/// The case-insensitive key of a name.
pub fn username_key(name: &str) -> String {
    name.to_lowercase()
}

/// Password rules: 8–128 characters, not a common password, not the username.
pub fn check_password(password: &str, username: &str) -> AppResult<()> {
    let n = password.chars().count();
    if n < PASSWORD_MIN {
        return Err(AppError::bad_request(
            "password_too_short",
            format!("the password must be at least {PASSWORD_MIN} characters long"),
        ));
    }
    if n > PASSWORD_MAX {
        return Err(AppError::bad_request(
            "password_too_long",
            format!("the password must be at most {PASSWORD_MAX} characters long"),
        ));
    }
    if is_common(password) {
        return Err(AppError::bad_request("password_too_common", "this password is too common; choose another"));
    }
    if password.to_lowercase() == username.to_lowercase() {
        return Err(AppError::bad_request("password_is_username", "the password must not be the username"));
    }
    Ok(())
}

/// Argon2id (argon2 crate defaults: 19 MiB, t=2, p=1) PHC string. Blocking: call through
/// [`super::Auth::hash_password`].
pub fn hash(password: &str) -> AppResult<String> {
    let mut salt = [0u8; 16];
    rand::Rng::fill(&mut rand::rng(), &mut salt[..]);
    let salt = SaltString::encode_b64(&salt).map_err(|e| AppError::internal(format!("salt: {e}")))?;
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| AppError::internal(format!("argon2: {e}")))
}

/// A fixed hash to verify against when there is no account (same cost as a real check).
static DUMMY_HASH: LazyLock<String> = LazyLock::new(|| hash("dummy password for timing").expect("argon2 works"));

/// Blocking verification; `None` burns the same time and returns false.
pub fn verify(password: &str, phc: Option<&str>) -> AppResult<bool> {
    let target = phc.unwrap_or(DUMMY_HASH.as_str());
    let parsed = PasswordHash::new(target).map_err(|e| AppError::internal(format!("stored hash: {e}")))?;
    let ok = Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok();
    Ok(ok && phc.is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_is_large_and_lowercase() {
        assert!(common_password_count() >= 10_000);
        assert!(is_common("PassWord"));
        assert!(is_common("qwertyuiop"));
        assert!(!is_common("correct horse battery staple 42"));
    }

    #[test]
    fn usernames() {
        assert_eq!(check_username("Alice_1").unwrap(), "alice_1");
        assert!(check_username("四国军棋").is_ok());
        assert!(check_username("ab").is_err());
        assert!(check_username("a b c").is_err());
        assert!(check_username("abc-def").is_err());
        assert!(check_username(&"x".repeat(21)).is_err());
    }

    #[test]
    fn hash_roundtrip() {
        let h = hash("a fine long passphrase").unwrap();
        assert!(h.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"));
        assert!(verify("a fine long passphrase", Some(&h)).unwrap());
        assert!(!verify("wrong", Some(&h)).unwrap());
        assert!(!verify("a fine long passphrase", None).unwrap());
    }
}
