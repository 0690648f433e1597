//! Usernames and passwords: the rules, Argon2id hashing (PHC strings) and verification.
//!
//! The common-password list (`common-passwords.txt`, 20,000 entries, lower-cased) is the list
//! Django ships (BSD-3-Clause), created by Royce Williams from breach corpora.
use crate::error::ErrorCode;
use crate::error::{AppError, AppResult};
use argon2::password_hash::{Output, ParamsString, PasswordHash, SaltString};
use argon2::{Argon2, Block, Params};
use std::cell::RefCell;
use std::collections::HashSet;
use std::sync::LazyLock;
use unicode_security::{GeneralSecurityProfile, RestrictionLevel, RestrictionLevelDetection};

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
            ErrorCode::InvalidUsername,
            format!("the username must be {USERNAME_MIN} to {USERNAME_MAX} characters long"),
        ));
    }
    if !name.chars().all(|c| c.is_alphabetic() || c.is_ascii_digit() || c == '_') {
        return Err(AppError::bad_request(
            ErrorCode::InvalidUsername,
            "the username may contain only letters, digits and underscores",
        ));
    }
    // UTS #39: only characters allowed in identifiers (no default-ignorables or fillers such as
    // U+3164, no full-width or mathematical letters), and one script (digits and `_` are common)
    if !name.chars().all(|c| c == '_' || c.identifier_allowed()) {
        return Err(AppError::bad_request(
            ErrorCode::InvalidUsername,
            "the username contains a character that is not allowed in names",
        ));
    }
    // UTS #39 "highly restrictive": one script, or Latin with Han and Japanese kana, with Han
    // and Bopomofo, or with Hangul and Han (so `张三abc` is fine, `аlice` with a Cyrillic а is not)
    if name.detect_restriction_level() > RestrictionLevel::HighlyRestrictive {
        return Err(AppError::bad_request(
            ErrorCode::InvalidUsername,
            "the username mixes letters of different scripts",
        ));
    }
    Ok(username_key(name))
}

/// The canonical key of a name: NFKC of the full case folding (Unicode's compatibility caseless
/// match), so `ΣΑΣ`/`σας`/`σασ`, precomposed and conjoining Hangul, and case variants are one
/// name.
pub fn username_key(name: &str) -> String {
    use caseless::Caseless;
    use unicode_normalization::UnicodeNormalization;
    name.nfd().default_case_fold().nfkd().default_case_fold().nfkc().collect()
}

/// The confusable skeleton (UTS #39) of a name's key: names that look alike share it.
pub fn username_skeleton(name: &str) -> String {
    unicode_security::skeleton(&username_key(name)).collect()
}

/// Password rules: 8–128 characters, not a common password, not the username.
pub fn check_password(password: &str, username: &str) -> AppResult<()> {
    let n = password.chars().count();
    if n < PASSWORD_MIN {
        return Err(AppError::bad_request(
            ErrorCode::PasswordTooShort,
            format!("the password must be at least {PASSWORD_MIN} characters long"),
        ));
    }
    if n > PASSWORD_MAX {
        return Err(AppError::bad_request(
            ErrorCode::PasswordTooLong,
            format!("the password must be at most {PASSWORD_MAX} characters long"),
        ));
    }
    if password.chars().any(char::is_control) || password.trim().is_empty() {
        return Err(AppError::bad_request(
            ErrorCode::PasswordInvalid,
            "the password may not contain control characters or be only spaces",
        ));
    }
    if is_common(password) {
        return Err(AppError::bad_request(
            ErrorCode::PasswordTooCommon,
            "this password is too common; choose another",
        ));
    }
    if password.to_lowercase() == username.to_lowercase() {
        return Err(AppError::bad_request(
            ErrorCode::PasswordIsUsername,
            "the password must not be the username",
        ));
    }
    Ok(())
}

thread_local! {
    /// The Argon2 work area of this thread (19 MiB for the default parameters), kept between hashes
    /// of a burst instead of being allocated, faulted in page by page (4,864 pages) and unmapped
    /// again for every hash. [`release_memory`] frees it (the hashing threads call it when they
    /// have been idle for a few seconds).
    static BLOCKS: RefCell<Vec<Block>> = const { RefCell::new(Vec::new()) };
}

/// Free this thread's Argon2 work area and hand it back to the OS. The server's allocator
/// (mimalloc) returns freed memory lazily, on later allocations of the same thread, which an idle
/// hashing thread does not make, so it is asked to collect now.
#[allow(unsafe_code)] // mimalloc's collect has no safe wrapper
pub fn release_memory() {
    let had = BLOCKS.with_borrow_mut(|b| std::mem::take(b).capacity() > 0);
    if had {
        // SAFETY: mi_collect only releases this thread's free memory; it is safe at any time,
        // and does nothing when mimalloc is not the allocator in use (the library's tests).
        unsafe { libmimalloc_sys::mi_collect(true) };
    }
}

/// Blocks in this thread's work area (0 once released).
#[cfg(test)]
pub(crate) fn work_area_blocks() -> usize {
    BLOCKS.with_borrow(Vec::len)
}

/// Argon2 into `out`, in this thread's reused work area. Argon2 writes every block before it
/// reads it, so what a previous hash left there does not matter.
fn argon2_into(
    argon: &Argon2,
    password: &[u8],
    salt: &[u8],
    out: &mut [u8],
) -> Result<(), argon2::Error> {
    let n = argon.params().block_count();
    BLOCKS.with_borrow_mut(|blocks| {
        if blocks.len() < n {
            blocks.resize(n, Block::default());
        }
        argon.hash_password_into_with_memory(password, salt, out, &mut blocks[..n])
    })
}

/// Argon2id (argon2 crate defaults: 19 MiB, t=2, p=1) PHC string. Blocking: call through
/// [`super::Auth::hash_password`].
pub fn hash(password: &str) -> AppResult<String> {
    let internal = |e: &dyn std::fmt::Display| AppError::internal(format!("argon2: {e}"));
    let mut salt_bytes = [0u8; 16];
    rand::Rng::fill(&mut rand::rng(), &mut salt_bytes[..]);
    let argon = Argon2::default();
    let mut out = [0u8; Params::DEFAULT_OUTPUT_LEN];
    argon2_into(&argon, password.as_bytes(), &salt_bytes, &mut out).map_err(|e| internal(&e))?;
    let salt = SaltString::encode_b64(&salt_bytes).map_err(|e| internal(&e))?;
    let phc = PasswordHash {
        algorithm: argon2::Algorithm::Argon2id.ident(),
        version: Some(argon2::Version::V0x13.into()),
        params: ParamsString::try_from(argon.params()).map_err(|e| internal(&e))?,
        salt: Some(salt.as_salt()),
        hash: Some(Output::new(&out).map_err(|e| internal(&e))?),
    };
    Ok(phc.to_string())
}

/// A fixed hash to verify against when there is no account (same cost as a real check).
static DUMMY_HASH: LazyLock<String> =
    LazyLock::new(|| hash("dummy password for timing").expect("argon2 works"));

/// Blocking verification; `None` burns the same time and returns false.
pub fn verify(password: &str, phc: Option<&str>) -> AppResult<bool> {
    let target = phc.unwrap_or(DUMMY_HASH.as_str());
    let stored = |e: &dyn std::fmt::Display| AppError::internal(format!("stored hash: {e}"));
    let parsed = PasswordHash::new(target).map_err(|e| stored(&e))?;
    let algorithm = argon2::Algorithm::try_from(parsed.algorithm).map_err(|e| stored(&e))?;
    let version = match parsed.version {
        Some(v) => argon2::Version::try_from(v).map_err(|e| stored(&e))?,
        None => argon2::Version::default(),
    };
    let params = Params::try_from(&parsed).map_err(|e| stored(&e))?;
    let (Some(salt), Some(expected)) = (parsed.salt, parsed.hash) else {
        return Err(AppError::internal("stored hash: no salt or no hash"));
    };
    let mut salt_buf = [0u8; 64];
    let salt = salt.decode_b64(&mut salt_buf).map_err(|e| stored(&e))?;
    let mut out = vec![0u8; expected.len()];
    argon2_into(&Argon2::new(algorithm, version, params), password.as_bytes(), salt, &mut out)
        .map_err(|e| stored(&e))?;
    // Output's equality is constant-time
    let ok = Output::new(&out).map_err(|e| stored(&e))? == expected;
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

    /// Our hashes are the argon2 crate's own (its verifier accepts them, ours accepts its hashes),
    /// also when this thread's work area was used before by other parameters or freed.
    #[test]
    fn same_as_the_argon2_crate() {
        use argon2::password_hash::{PasswordHasher, PasswordVerifier};
        let ours = hash("a fine long passphrase").unwrap();
        let parsed = PasswordHash::new(&ours).unwrap();
        assert!(Argon2::default().verify_password(b"a fine long passphrase", &parsed).is_ok());
        assert!(Argon2::default().verify_password(b"a fine long passphrasf", &parsed).is_err());
        // a smaller work area left over from other parameters, then a freed one
        let small = Argon2::new(
            argon2::Algorithm::Argon2id,
            argon2::Version::V0x13,
            Params::new(4096, 3, 1, None).unwrap(),
        );
        for _ in 0..2 {
            let salt = SaltString::encode_b64(b"sixteen byte slt").unwrap();
            let theirs = small.hash_password(b"another passphrase", &salt).unwrap().to_string();
            assert!(theirs.starts_with("$argon2id$v=19$m=4096,t=3,p=1$"));
            assert!(verify("another passphrase", Some(&theirs)).unwrap());
            assert!(!verify("another passphrasE", Some(&theirs)).unwrap());
            assert!(verify("a fine long passphrase", Some(&ours)).unwrap());
            release_memory();
        }
    }
}
