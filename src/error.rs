//! One error type for the whole server. Every error has a stable code ([`ErrorCode`], the one
//! vocabulary of HTTP and WebSocket answers) and becomes
//! JSON `{"error": {"code": "...", "message": "..."}}` with the right HTTP status. Internal
//! details are logged, never sent.
use actix_web::{http::StatusCode, HttpResponse, ResponseError};
use serde::Serialize;

mod codes;
pub use codes::ErrorCode;

#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// 400: the request is malformed or breaks a rule. `code` is stable (e.g. `invalid_json`).
    #[error("{message}")]
    BadRequest { code: ErrorCode, message: String },
    /// 401: not logged in, or the token is bad/expired (`code` says which).
    #[error("{message}")]
    Unauthorized { code: ErrorCode, message: String },
    /// 403: logged in but not allowed (e.g. `guest_not_allowed`, `not_host`).
    #[error("{message}")]
    Forbidden { code: ErrorCode, message: String },
    /// 404
    #[error("{what} not found")]
    NotFound { what: &'static str },
    /// 409: conflicts with the current state (e.g. `username_taken`, `seat_taken`).
    #[error("{message}")]
    Conflict { code: ErrorCode, message: String },
    /// 409 `moved` (cluster mode): another node owns game `game` now; the answer names it.
    #[error("game {game} is now played on node {node}")]
    Moved { game: i64, node: String },
    /// 413
    #[error("request body too large")]
    PayloadTooLarge,
    /// 429 with `Retry-After`.
    #[error("too many requests")]
    RateLimited { retry_after_secs: u64 },
    /// 429 for a count that is full (e.g. `too_many_sockets`), not a rate.
    #[error("{message}")]
    TooMany { code: ErrorCode, message: String },
    /// 429 with `Retry-After` and a code of its own (e.g. `queue_cooldown`).
    #[error("{message}")]
    Wait { code: ErrorCode, message: String, retry_after_secs: u64 },
    /// 503: e.g. the database is not reachable.
    #[error("service unavailable")]
    Unavailable,
    /// 503 with `Retry-After`: too many password checks are waiting already (the hashing queue,
    /// `auth.hash_queue`, is full); nothing was done, the same request may be sent again.
    #[error("the server is busy; try again shortly")]
    Busy { retry_after_secs: u64 },
    /// 500: logged with context; the client sees only `internal`.
    #[error("internal error")]
    Internal(String),
}

impl AppError {
    pub fn bad_request(code: ErrorCode, message: impl Into<String>) -> Self {
        AppError::BadRequest { code, message: message.into() }
    }
    pub fn unauthorized(code: ErrorCode, message: impl Into<String>) -> Self {
        AppError::Unauthorized { code, message: message.into() }
    }
    pub fn forbidden(code: ErrorCode, message: impl Into<String>) -> Self {
        AppError::Forbidden { code, message: message.into() }
    }
    pub fn conflict(code: ErrorCode, message: impl Into<String>) -> Self {
        AppError::Conflict { code, message: message.into() }
    }
    pub fn internal(context: impl std::fmt::Display) -> Self {
        AppError::Internal(context.to_string())
    }

    /// The stable, machine-readable code.
    pub fn code(&self) -> ErrorCode {
        match self {
            AppError::BadRequest { code, .. }
            | AppError::Unauthorized { code, .. }
            | AppError::Forbidden { code, .. }
            | AppError::Conflict { code, .. }
            | AppError::TooMany { code, .. }
            | AppError::Wait { code, .. } => *code,
            AppError::NotFound { .. } => ErrorCode::NotFound,
            AppError::Moved { .. } => ErrorCode::Moved,
            AppError::PayloadTooLarge => ErrorCode::PayloadTooLarge,
            AppError::RateLimited { .. } => ErrorCode::RateLimited,
            AppError::Unavailable => ErrorCode::Unavailable,
            AppError::Busy { .. } => ErrorCode::ServerBusy,
            AppError::Internal(_) => ErrorCode::Internal,
        }
    }

    /// The message a client may see.
    pub fn public_message(&self) -> String {
        match self {
            AppError::Internal(_) => "internal error".into(),
            other => other.to_string(),
        }
    }
}

#[derive(Serialize)]
pub struct ErrorBody {
    pub error: ErrorDetail,
}

#[derive(Serialize)]
pub struct ErrorDetail {
    pub code: ErrorCode,
    pub message: String,
}

impl ResponseError for AppError {
    fn status_code(&self) -> StatusCode {
        match self {
            AppError::BadRequest { .. } => StatusCode::BAD_REQUEST,
            AppError::Unauthorized { .. } => StatusCode::UNAUTHORIZED,
            AppError::Forbidden { .. } => StatusCode::FORBIDDEN,
            AppError::NotFound { .. } => StatusCode::NOT_FOUND,
            AppError::Conflict { .. } | AppError::Moved { .. } => StatusCode::CONFLICT,
            AppError::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            AppError::RateLimited { .. } | AppError::TooMany { .. } | AppError::Wait { .. } => {
                StatusCode::TOO_MANY_REQUESTS
            }
            AppError::Unavailable | AppError::Busy { .. } => StatusCode::SERVICE_UNAVAILABLE,
            AppError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        if let AppError::Internal(ctx) = self {
            tracing::error!(context = %ctx, "internal error");
        }
        let mut resp = HttpResponse::build(self.status_code());
        if let AppError::RateLimited { retry_after_secs }
        | AppError::Busy { retry_after_secs }
        | AppError::Wait { retry_after_secs, .. } = self
        {
            resp.insert_header(("Retry-After", retry_after_secs.max(&1).to_string()));
        }
        resp.json(ErrorBody {
            error: ErrorDetail { code: self.code(), message: self.public_message() },
        })
    }
}

impl From<diesel::result::Error> for AppError {
    fn from(e: diesel::result::Error) -> Self {
        match e {
            diesel::result::Error::NotFound => AppError::NotFound { what: "record" },
            other => AppError::Internal(format!("database: {other}")),
        }
    }
}

impl From<diesel::r2d2::PoolError> for AppError {
    fn from(e: diesel::r2d2::PoolError) -> Self {
        tracing::error!(error = %e, "database pool");
        AppError::Unavailable
    }
}

pub type AppResult<T> = Result<T, AppError>;

/// A serde error message without the server's Rust type names (`expected struct Credentials` →
/// `expected an object`), fit for a client.
pub fn plain_serde_message(message: &str) -> String {
    plain_number_types(&plain_type_names(message))
}

/// Rust's number types in a parser's message (`expected u32`, `to a i64`) said in words.
fn plain_number_types(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut words = message.split(' ').peekable();
    while let Some(w) = words.next() {
        // "a i64" / "an u8": the article goes with the word that replaces the type
        if (w == "a" || w == "an") && words.peek().is_some_and(|n| number_words(n).is_some()) {
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        match number_words(w) {
            Some((words, rest)) => {
                out.push_str(words);
                out.push_str(rest);
            }
            None => out.push_str(w),
        }
    }
    out
}

/// `u32` → "a whole number, 0 or more", with any punctuation after the type kept.
fn number_words(word: &str) -> Option<(&'static str, &str)> {
    let end = word.find(|c: char| !c.is_ascii_alphanumeric()).unwrap_or(word.len());
    let (ty, rest) = word.split_at(end);
    let words = match ty {
        "u8" | "u16" | "u32" | "u64" | "u128" | "usize" => "a whole number, 0 or more",
        "i8" | "i16" | "i32" | "i64" | "i128" | "isize" => "a whole number",
        "f32" | "f64" => "a number",
        _ => return None,
    };
    Some((words, rest))
}

fn plain_type_names(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    loop {
        let next = ["tuple struct ", "struct ", "enum ", "variant of enum "]
            .iter()
            .filter_map(|w| rest.find(w).map(|i| (i, *w)))
            .min_by_key(|(i, w)| (*i, usize::MAX - w.len()));
        let Some((i, word)) = next else {
            out.push_str(rest);
            return out;
        };
        let after = &rest[i + word.len()..];
        let name_len = after
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':' || c == '<' || c == '>'))
            .unwrap_or(after.len());
        let named = after[..name_len].starts_with(|c: char| c.is_ascii_uppercase());
        out.push_str(&rest[..i]);
        if named {
            out.push_str(if word.contains("enum") {
                "one of the allowed values"
            } else {
                "an object"
            });
            rest = &after[name_len..];
        } else {
            out.push_str(word);
            rest = after;
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn serde_messages_lose_type_names() {
        let m = super::plain_serde_message(
            "invalid type: sequence, expected struct Credentials at line 1",
        );
        assert_eq!(m, "invalid type: sequence, expected an object at line 1");
        let m = super::plain_serde_message("unknown variant `x`, expected enum Level");
        assert_eq!(m, "unknown variant `x`, expected one of the allowed values");
        assert_eq!(super::plain_serde_message("a struct field"), "a struct field");
        let m = super::plain_serde_message("invalid type: string \"x\", expected u32 at line 1");
        assert_eq!(m, "invalid type: string \"x\", expected a whole number, 0 or more at line 1");
        let m = super::plain_serde_message("can not parse \"abc\" to a i64");
        assert_eq!(m, "can not parse \"abc\" to a whole number");
        let m = super::plain_serde_message("invalid value: integer `-1`, expected usize.");
        assert_eq!(m, "invalid value: integer `-1`, expected a whole number, 0 or more.");
        assert_eq!(
            super::plain_serde_message("a u32, i64 or f64"),
            "a whole number, 0 or more, a whole number or a number"
        );
    }
}
