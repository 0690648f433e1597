//! Authentication: passwords (Argon2id on a small low-priority pool, [`hasher`]), access tokens (JWT, HS256
//! pinned, `exp` ≤ 15 min, issuer and audience checked), opaque rotating refresh tokens, rate
//! limits, and the request extractors [`Identity`] and [`AccountOnly`].
//!
//! The access token travels in the HttpOnly cookie `siguo_access` or as `Authorization: Bearer`.
mod generations;
pub mod hasher;
pub mod limits;
pub mod password;
pub mod refresh;

use crate::app::AppState;
use crate::config::AuthConfig;
use crate::db::schema::server_settings;
use crate::db::{Db, DbConn};
use crate::error::ErrorCode;
use crate::error::{AppError, AppResult};
use actix_web::{dev::Payload, web, FromRequest, HttpRequest};
use base64::Engine;
use diesel::prelude::*;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};
use std::future::Future;
use std::pin::Pin;

/// The extractors' future (they may read the token generation from the database).
type LocalBoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;

/// Cookie holding the access token (path `/`).
pub const ACCESS_COOKIE: &str = "siguo_access";
/// Cookie holding the refresh token (path [`REFRESH_COOKIE_PATH`]).
pub const REFRESH_COOKIE: &str = "siguo_refresh";
pub const REFRESH_COOKIE_PATH: &str = "/api/auth";
/// The one algorithm access tokens are signed and checked with.
pub const JWT_ALGORITHM: Algorithm = Algorithm::HS256;
/// The longest access-token lifetime, seconds.
pub const MAX_ACCESS_TTL: u64 = 900;
/// Settings row holding a generated JWT secret.
const JWT_SECRET_SETTING: &str = "jwt_secret";

/// Who is making the request, from a valid access token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Identity {
    pub account_id: i64,
    pub name: String,
    pub guest: bool,
}

/// An [`Identity`] that is a registered account (guests get 403 `guest_not_allowed`).
#[derive(Debug, Clone)]
pub struct AccountOnly(pub Identity);

/// Access token claims.
#[derive(Debug, Serialize, Deserialize)]
pub struct Claims {
    /// account id
    pub sub: String,
    pub name: String,
    pub guest: bool,
    pub iss: String,
    pub aud: String,
    pub iat: u64,
    pub exp: u64,
    /// the account's token generation when issued; older generations are refused
    #[serde(default)]
    pub gen: i64,
}

/// A checked access token: who, until when (Unix seconds), and its generation.
#[derive(Debug, Clone)]
pub struct Verified {
    pub identity: Identity,
    pub exp: u64,
    pub gen: i64,
}

/// Token signing and checking, password hashing, rate limits.
pub struct Auth {
    pub config: AuthConfig,
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
    /// Argon2 computations: a few nice-10 threads with a bounded queue (see [`hasher`])
    hashing: hasher::Hasher,
    pub limits: limits::RateLimits,
    /// account → token generation, as last read or told ([`generations::Generations`])
    generations: generations::Generations,
}

impl Auth {
    pub fn new(config: &crate::config::Config, secret: &[u8]) -> Result<Auth, String> {
        let mut validation = Validation::new(JWT_ALGORITHM);
        validation.leeway = 30;
        validation.set_issuer(&[&config.auth.issuer]);
        validation.set_audience(&[&config.auth.audience]);
        validation.set_required_spec_claims(&["exp", "iat", "iss", "aud", "sub"]);
        validation.validate_exp = true;
        validation.validate_nbf = true;
        let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
        Ok(Auth {
            config: config.auth.clone(),
            encoding: EncodingKey::from_secret(secret).map_err(|e| format!("JWT secret: {e}"))?,
            decoding: DecodingKey::from_secret(secret).map_err(|e| format!("JWT secret: {e}"))?,
            validation,
            hashing: hasher::Hasher::start(
                if config.auth.hash_threads == 0 {
                    hasher::default_threads(cores)
                } else {
                    config.auth.hash_threads
                },
                config.auth.hash_queue,
            )?,
            limits: limits::RateLimits::new(&config.limits),
            generations: generations::Generations::new(
                config.cluster.enabled.then(|| {
                    std::time::Duration::from_millis(config.cluster.session_trust_ms.max(1))
                }),
            ),
        })
    }

    /// Sign an access token for `who` at token generation `gen`; returns the token and its
    /// lifetime in seconds.
    pub fn issue_access(&self, who: &Identity, gen: i64) -> AppResult<(String, u64)> {
        let now = jsonwebtoken::get_current_timestamp();
        let ttl = self.config.access_ttl_secs.min(MAX_ACCESS_TTL);
        let claims = Claims {
            sub: who.account_id.to_string(),
            name: who.name.clone(),
            guest: who.guest,
            iss: self.config.issuer.clone(),
            aud: self.config.audience.clone(),
            iat: now,
            exp: now + ttl,
            gen,
        };
        let token = jsonwebtoken::encode(&Header::new(JWT_ALGORITHM), &claims, &self.encoding)
            .map_err(|e| AppError::internal(format!("jwt encode: {e}")))?;
        Ok((token, ttl))
    }

    /// Check an access token (signature, algorithm, exp, nbf, iat, iss, aud) and its account's
    /// token generation. Used by the extractors and by the WebSocket upgrade.
    pub async fn verify_access(&self, db: &Db, token: &str) -> AppResult<Verified> {
        let v = self.verify_signed(token)?;
        if v.gen < self.generation(db, v.identity.account_id).await? {
            return Err(AppError::unauthorized(
                ErrorCode::TokenRevoked,
                "this session ended (logout or password change); log in again",
            ));
        }
        Ok(v)
    }

    /// The account's current token generation (cached: [`generations::Generations`]).
    async fn generation(&self, db: &Db, account_id: i64) -> AppResult<i64> {
        if let Some(g) = self.generations.trusted(account_id) {
            return Ok(g);
        }
        let g = db
            .run(move |c| crate::db::accounts::token_generation(c, account_id))
            .await?
            .ok_or_else(|| {
                AppError::unauthorized(ErrorCode::InvalidToken, "the account no longer exists")
            })?;
        Ok(self.generations.learn(account_id, g))
    }

    /// Refuse every access token of the account issued so far; returns the new generation.
    /// (In a cluster the database announces the change to every node.)
    pub async fn revoke_tokens(&self, db: &Db, account_id: i64) -> AppResult<i64> {
        let g = db.run(move |c| crate::db::accounts::bump_token_generation(c, account_id)).await?;
        Ok(self.generations.learn(account_id, g))
    }

    /// Another node changed the account's generation to `generation` (a notice, or a check
    /// while the notices were down): older access tokens are refused from now on.
    pub fn generation_changed(&self, account_id: i64, generation: i64) {
        self.generations.learn(account_id, generation);
    }

    /// The cluster's notice connection is up (a new session: what was cached before it may
    /// have missed notices) or down (cached generations are trusted for a short while only).
    pub fn notices_up(&self, up: bool) {
        self.generations.notices_up(up);
    }

    /// Forget cached generations not used for a while (bounded memory per account).
    pub fn prune_generations(&self) {
        self.generations.prune();
    }

    /// The signature and claims of an access token, without the generation check.
    fn verify_signed(&self, token: &str) -> AppResult<Verified> {
        use jsonwebtoken::errors::ErrorKind;
        let data = jsonwebtoken::decode::<Claims>(token, &self.decoding, &self.validation)
            .map_err(|e| match e.kind() {
                ErrorKind::ExpiredSignature => {
                    AppError::unauthorized(ErrorCode::TokenExpired, "the access token has expired")
                }
                _ => {
                    AppError::unauthorized(ErrorCode::InvalidToken, "the access token is not valid")
                }
            })?;
        let c = data.claims;
        let invalid =
            || AppError::unauthorized(ErrorCode::InvalidToken, "the access token is not valid");
        let account_id = c.sub.parse::<i64>().map_err(|_| invalid())?;
        // issued in the future, or living longer than any token we issue: not ours
        let now = jsonwebtoken::get_current_timestamp();
        let leeway = self.validation.leeway;
        if c.iat > now + leeway || c.exp.saturating_sub(c.iat) > MAX_ACCESS_TTL + leeway {
            return Err(invalid());
        }
        Ok(Verified {
            identity: Identity { account_id, name: c.name, guest: c.guest },
            exp: c.exp,
            gen: c.gen,
        })
    }

    /// Hash a password with Argon2id (PHC string) on a hashing thread (`server_busy` when the
    /// hashing queue is full).
    pub async fn hash_password(&self, password: String) -> AppResult<String> {
        self.hashing.run(move || password::hash(&password)).await
    }

    /// Verify a password against a PHC string (or burn the same time against a dummy hash when
    /// there is no account, so timing does not reveal which names exist); `server_busy` when the
    /// hashing queue is full.
    pub async fn verify_password(&self, password: String, phc: Option<String>) -> AppResult<bool> {
        self.hashing.run(move || password::verify(&password, phc.as_deref())).await
    }
}

/// The JWT secret: from `auth.jwt_secret`, or generated once and kept in the database.
pub async fn load_or_create_secret(
    config: &crate::config::Config,
    db: &Db,
) -> Result<Vec<u8>, String> {
    if !config.auth.jwt_secret.is_empty() {
        return Ok(config.auth.jwt_secret.as_bytes().to_vec());
    }
    let fresh = {
        let mut bytes = [0u8; 48];
        rand::Rng::fill(&mut rand::rng(), &mut bytes[..]);
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
    };
    let secret = db
        .run(move |conn: &mut DbConn| {
            let stored = |conn: &mut DbConn| {
                server_settings::table
                    .find(JWT_SECRET_SETTING)
                    .select(server_settings::value)
                    .first::<String>(conn)
                    .optional()
            };
            if let Some(s) = stored(conn)? {
                return Ok(s);
            }
            let insert = diesel::insert_into(server_settings::table)
                .values((
                    server_settings::name.eq(JWT_SECRET_SETTING),
                    server_settings::value.eq(&fresh),
                ))
                .execute(conn);
            match insert {
                Ok(_) => Ok(fresh),
                // another node starting on the same new database stored its secret first: the
                // cluster shares that one
                Err(diesel::result::Error::DatabaseError(
                    diesel::result::DatabaseErrorKind::UniqueViolation,
                    _,
                )) => stored(conn)?.ok_or_else(|| AppError::Internal("JWT secret vanished".into())),
                Err(e) => Err(e.into()),
            }
        })
        .await
        .map_err(|e| format!("cannot load the JWT secret: {e:?}"))?;
    Ok(secret.into_bytes())
}

/// The raw access token of a request: Bearer header first, then the cookie.
pub fn access_token_of(req: &HttpRequest) -> Option<String> {
    if let Some(h) = req.headers().get(actix_web::http::header::AUTHORIZATION) {
        if let Ok(s) = h.to_str() {
            if let Some(t) = s.strip_prefix("Bearer ").or_else(|| s.strip_prefix("bearer ")) {
                let t = t.trim();
                if !t.is_empty() {
                    return Some(t.to_string());
                }
            }
        }
    }
    req.cookie(ACCESS_COOKIE).map(|c| c.value().to_string()).filter(|v| !v.is_empty())
}

fn identity_of(req: &HttpRequest) -> LocalBoxFuture<'static, AppResult<Identity>> {
    let state = req.app_data::<web::Data<AppState>>().cloned();
    let token = access_token_of(req);
    Box::pin(async move {
        let state = state.ok_or_else(|| AppError::internal("AppState missing"))?;
        let token =
            token.ok_or_else(|| AppError::unauthorized(ErrorCode::Unauthorized, "log in first"))?;
        Ok(state.auth.verify_access(&state.db, &token).await?.identity)
    })
}

impl FromRequest for Identity {
    type Error = AppError;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;
    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        identity_of(req)
    }
}

impl FromRequest for AccountOnly {
    type Error = AppError;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;
    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let id = identity_of(req);
        Box::pin(async move {
            let id = id.await?;
            if id.guest {
                Err(AppError::forbidden(
                    ErrorCode::GuestNotAllowed,
                    "guests cannot do this; register an account",
                ))
            } else {
                Ok(AccountOnly(id))
            }
        })
    }
}
