//! Accounts and sessions: register, login, logout, refresh, current account, guest sessions,
//! password change. Every successful login-like call sets the `siguo_access` cookie (path `/`)
//! and the `siguo_refresh` cookie (path `/api/auth`), both HttpOnly and SameSite=Lax. The body
//! carries the access token (for Bearer clients) but never the refresh token: that one lives only
//! in its HttpOnly cookie, out of reach of scripts, and refresh and logout read it only there.
use crate::app::AppState;
use crate::auth::{self, password, refresh, AccountOnly, Identity};
use crate::db::accounts::{self as repo, Account};
use crate::error::ErrorCode;
use crate::error::{AppError, AppResult};
use crate::http::client::Client;
use crate::http::{client_bucket, parse_optional_json};
use actix_web::cookie::{time::Duration as CookieDuration, Cookie, SameSite};
use actix_web::{get, post, web, HttpRequest, HttpResponse, HttpResponseBuilder};
use chrono::NaiveDateTime;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(register)
        .service(login)
        .service(logout)
        .service(refresh_session)
        .service(me)
        .service(guest)
        .service(change_password);
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Credentials {
    /// 3–20 characters: letters (CJK included), digits, underscore; unique regardless of case
    #[schema(example = "张三_2026")]
    pub username: String,
    /// 8–128 characters, not a common password
    #[schema(example = "a long and unusual passphrase")]
    pub password: String,
}

/// The body refresh and logout accept: none, or `{}` (the refresh token comes only from the
/// `siguo_refresh` cookie; a `refresh_token` field is refused as an unknown field).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EmptyBody {}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ChangePassword {
    pub current_password: String,
    pub new_password: String,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct AccountView {
    pub id: i64,
    pub username: String,
    /// true for a guest identity (casual and practice games only)
    pub guest: bool,
    pub created_at: NaiveDateTime,
}

impl From<&Account> for AccountView {
    fn from(a: &Account) -> Self {
        AccountView {
            id: a.id,
            username: a.username.clone(),
            guest: a.is_guest,
            created_at: a.created_at,
        }
    }
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct Session {
    pub account: AccountView,
    /// JWT (HS256), also set as the `siguo_access` cookie; send as `Authorization: Bearer`
    pub access_token: String,
    /// seconds until the access token expires (at most 900); the refresh token is only in
    /// the HttpOnly `siguo_refresh` cookie
    pub expires_in: u64,
}

/// Was the request made over HTTPS (as the client sees it: through a proxy of
/// `server.trusted_proxies`, its `X-Forwarded-Proto`)? Cookies are then `Secure` whatever the
/// config.
fn is_https(state: &AppState, req: &HttpRequest) -> bool {
    Client::of(req, &state.config.server.trusted_proxies).https()
}

fn cookie<'c>(
    name: &'c str,
    value: String,
    path: &'c str,
    max_age_secs: i64,
    secure: bool,
) -> Cookie<'c> {
    Cookie::build(name, value)
        .path(path)
        .http_only(true)
        .same_site(SameSite::Lax)
        .secure(secure)
        .max_age(CookieDuration::seconds(max_age_secs))
        .finish()
}

/// Issue an access token and a refresh token (in `family`, or a new one) and build the response.
async fn start_session(
    state: &AppState,
    account: Account,
    family: Option<String>,
    existing_refresh: Option<String>,
    (mut resp, https): (HttpResponseBuilder, bool),
) -> AppResult<HttpResponse> {
    let (access_token, expires_in) =
        state.auth.issue_access(&account.identity(), account.token_generation)?;
    let refresh_token = match existing_refresh {
        Some(t) => t,
        None => {
            let ttl = state.config.auth.refresh_ttl_days;
            let id = account.id;
            let family = family.unwrap_or_else(refresh::new_family);
            // a login's only write goes through the group-commit writer: on SQLite a second
            // writer connection would contend with live play's writes for the database lock
            let token = refresh::new_token();
            let t = token.clone();
            state
                .db
                .write_grouped(move |conn| refresh::insert_token(conn, id, &family, &t, ttl))
                .await?;
            token
        }
    };
    let secure = state.config.auth.cookie_secure || https;
    let refresh_age = (state.config.auth.refresh_ttl_days * 86_400) as i64;
    resp.cookie(cookie(auth::ACCESS_COOKIE, access_token.clone(), "/", expires_in as i64, secure));
    resp.cookie(cookie(
        auth::REFRESH_COOKIE,
        refresh_token,
        auth::REFRESH_COOKIE_PATH,
        refresh_age,
        secure,
    ));
    resp.insert_header(("Cache-Control", "no-store"));
    Ok(resp.json(Session { account: AccountView::from(&account), access_token, expires_in }))
}

/// Register an account and log it in.
#[utoipa::path(post, path = "/api/auth/register", tag = "accounts", request_body = Credentials, responses(
    (status = 201, description = "registered and logged in; cookies set", body = Session),
    (status = 400, description = "`invalid_username`, `password_too_short`, `password_too_long`, `password_too_common`, `password_is_username`, `password_invalid`, `invalid_json`, `invalid_body`", body = crate::http::openapi::ErrorResponse),
    (status = 409, description = "`username_taken`, `username_confusable`", body = crate::http::openapi::ErrorResponse),
    (status = 413, description = "`payload_too_large`", body = crate::http::openapi::ErrorResponse),
    (status = 429, description = "`rate_limited` (see Retry-After)", body = crate::http::openapi::ErrorResponse),
    (status = 503, description = "`server_busy`: the password-hashing queue is full (see Retry-After)", body = crate::http::openapi::ErrorResponse)))]
#[post("/api/auth/register")]
pub async fn register(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: web::Json<Credentials>,
) -> AppResult<HttpResponse> {
    let Credentials { username, password } = body.into_inner();
    let key = password::check_username(&username)?;
    password::check_password(&password, &username)?;
    let ip = client_bucket(&req, &state.config.server.trusted_proxies);
    state.auth.limits.register_ip.take(&ip).await?;
    let (taken, alike) = {
        let (key, name) = (key.clone(), username.clone());
        state
            .db
            .run(move |conn| {
                Ok((repo::by_key(conn, &key)?.is_some(), repo::skeleton_taken(conn, &name)?))
            })
            .await?
    };
    if taken {
        return Err(AppError::conflict(ErrorCode::UsernameTaken, "this username is already taken"));
    }
    if alike {
        return Err(AppError::conflict(
            ErrorCode::UsernameConfusable,
            "this username looks like one that is already taken",
        ));
    }
    let hash = state.auth.hash_password(password).await?;
    let account = state
        .db
        .run(move |conn| {
            repo::insert(conn, &username, &key, Some(&hash), false).map_err(|e| {
                if crate::db::is_unique_violation(&e) {
                    AppError::conflict(ErrorCode::UsernameTaken, "this username is already taken")
                } else {
                    e.into()
                }
            })
        })
        .await?;
    tracing::info!(account_id = account.id, "account registered");
    start_session(&state, account, None, None, (HttpResponse::Created(), is_https(&state, &req)))
        .await
}

/// Log in with username and password.
#[utoipa::path(post, path = "/api/auth/login", tag = "accounts", request_body = Credentials, responses(
    (status = 200, description = "logged in; cookies set", body = Session),
    (status = 400, description = "`invalid_json`, `invalid_body`", body = crate::http::openapi::ErrorResponse),
    (status = 401, description = "`invalid_credentials`", body = crate::http::openapi::ErrorResponse),
    (status = 429, description = "`rate_limited`: more than 10 failures per (account, IP), 100 per account, or 200 attempts per IP in 10 minutes", body = crate::http::openapi::ErrorResponse),
    (status = 503, description = "`server_busy`: the password-hashing queue is full (see Retry-After)", body = crate::http::openapi::ErrorResponse)))]
#[post("/api/auth/login")]
pub async fn login(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: web::Json<Credentials>,
) -> AppResult<HttpResponse> {
    let Credentials { username, password } = body.into_inner();
    let limits = &state.auth.limits;
    let ip = client_bucket(&req, &state.config.server.trusted_proxies);
    limits.login_ip.take(&ip).await?;
    let key: String =
        password::username_key(&username).chars().take(password::USERNAME_MAX + 1).collect();
    let pair = (key.clone(), ip);
    limits.login_failures.check(&pair).await?;
    limits.login_failures_total.check(&key).await?;
    // only failures count against the account
    let bad = || async {
        limits.login_failures.fail(&pair).await?;
        limits.login_failures_total.fail(&key).await?;
        Err(AppError::unauthorized(ErrorCode::InvalidCredentials, "wrong username or password"))
    };
    if password.chars().count() > password::PASSWORD_MAX {
        return bad().await;
    }
    let account = {
        let key = key.clone();
        state.db.run(move |conn| repo::by_key(conn, &key)).await?
    };
    let phc = account.as_ref().and_then(|a| a.password_hash.clone());
    let ok = state.auth.verify_password(password, phc).await?;
    match account {
        Some(a) if ok && !a.is_guest => {
            start_session(&state, a, None, None, (HttpResponse::Ok(), is_https(&state, &req))).await
        }
        _ => bad().await,
    }
}

/// Start a guest session: a new guest identity with a generated name (casual and practice only).
#[utoipa::path(post, path = "/api/auth/guest", tag = "accounts", responses(
    (status = 201, description = "guest created and logged in; cookies set", body = Session),
    (status = 429, description = "`rate_limited`", body = crate::http::openapi::ErrorResponse)))]
#[post("/api/auth/guest")]
pub async fn guest(state: web::Data<AppState>, req: HttpRequest) -> AppResult<HttpResponse> {
    let ip = client_bucket(&req, &state.config.server.trusted_proxies);
    state.auth.limits.guest_ip.take(&ip).await?;
    let account = state
        .db
        .run(|conn| {
            // "Guest-" + 8 hex digits: the hyphen cannot appear in registered names
            let mut last = None;
            for _ in 0..8 {
                let n: u32 = rand::random();
                let name = format!("Guest-{n:08x}");
                let key = password::username_key(&name);
                match repo::insert(conn, &name, &key, None, true) {
                    Ok(a) => return Ok(a),
                    Err(e) if crate::db::is_unique_violation(&e) => last = Some(e),
                    Err(e) => return Err(e.into()),
                }
            }
            Err(AppError::internal(format!("no free guest name: {last:?}")))
        })
        .await?;
    start_session(&state, account, None, None, (HttpResponse::Created(), is_https(&state, &req)))
        .await
}

/// Exchange the refresh token of the `siguo_refresh` cookie for a new access token and a new
/// refresh token (both as cookies). Reusing a refresh token ends the whole session family
/// (`refresh_reused`).
#[utoipa::path(post, path = "/api/auth/refresh", tag = "accounts", request_body(content = Option<EmptyBody>, description = "none or `{}`; the token comes from the cookie"), responses(
    (status = 200, description = "rotated; cookies set", body = Session),
    (status = 400, description = "`invalid_json`, `invalid_body`", body = crate::http::openapi::ErrorResponse),
    (status = 401, description = "`unauthorized` (no token), `invalid_token`, `token_expired`, `refresh_reused`", body = crate::http::openapi::ErrorResponse)))]
#[post("/api/auth/refresh")]
pub async fn refresh_session(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: web::Bytes,
) -> AppResult<HttpResponse> {
    let token = refresh_token_of(&req, &body)?
        .ok_or_else(|| AppError::unauthorized(ErrorCode::Unauthorized, "no refresh token"))?;
    let ttl = state.config.auth.refresh_ttl_days;
    let used = token.clone();
    let rotated = state
        .db
        .run(move |conn| {
            let (account_id, fresh) = refresh::rotate(conn, &used, ttl)?;
            let account = repo::by_id(conn, account_id)?.ok_or_else(|| {
                AppError::unauthorized(ErrorCode::InvalidToken, "the account no longer exists")
            })?;
            Ok((account, fresh))
        })
        .await;
    let (account, fresh) = match rotated {
        Err(e) if e.code() == ErrorCode::RefreshReused => {
            // a refresh token used twice was stolen: its family is revoked, and so is every
            // access token of the account, on every node, with its sockets
            let owner = state.db.run(move |conn| refresh::revoke_by_token(conn, &token)).await?;
            if let Some(a) = owner {
                let generation = state.auth.revoke_tokens(&state.db, a).await?;
                state.live.close_older_sessions(a, generation);
            }
            return Err(e);
        }
        other => other?,
    };
    start_session(&state, account, None, Some(fresh), (HttpResponse::Ok(), is_https(&state, &req)))
        .await
}

/// The refresh token of the `siguo_refresh` cookie (never from the body, which may only be
/// empty or `{}`).
fn refresh_token_of(req: &HttpRequest, body: &[u8]) -> AppResult<Option<String>> {
    parse_optional_json::<EmptyBody>(body)?;
    Ok(req.cookie(auth::REFRESH_COOKIE).map(|c| c.value().to_string()).filter(|t| !t.is_empty()))
}

/// Log out: revoke the refresh-token family of the cookie and clear the cookies. Always 204.
#[utoipa::path(post, path = "/api/auth/logout", tag = "accounts", request_body(content = Option<EmptyBody>, description = "none or `{}`"), responses(
    (status = 204, description = "logged out; cookies cleared"),
    (status = 400, description = "`invalid_json`", body = crate::http::openapi::ErrorResponse)))]
#[post("/api/auth/logout")]
pub async fn logout(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: web::Bytes,
) -> AppResult<HttpResponse> {
    let mut account = match auth::access_token_of(&req) {
        Some(t) => {
            state.auth.verify_access(&state.db, &t).await.ok().map(|v| v.identity.account_id)
        }
        None => None,
    };
    if let Some(token) = refresh_token_of(&req, &body)? {
        let owner = state.db.run(move |conn| refresh::revoke_by_token(conn, &token)).await?;
        account = account.or(owner);
    }
    // every access token of the account so far is refused from now on, and its sockets close
    if let Some(a) = account {
        let generation = state.auth.revoke_tokens(&state.db, a).await?;
        state.live.close_older_sessions(a, generation);
    }
    let secure = state.config.auth.cookie_secure;
    let mut resp = HttpResponse::NoContent();
    resp.cookie(cookie(auth::ACCESS_COOKIE, String::new(), "/", 0, secure));
    resp.cookie(cookie(auth::REFRESH_COOKIE, String::new(), auth::REFRESH_COOKIE_PATH, 0, secure));
    Ok(resp.finish())
}

/// The current account (guests included).
#[utoipa::path(get, path = "/api/auth/me", tag = "accounts", security(("bearer" = []), ("cookie" = [])), responses(
    (status = 200, body = AccountView),
    (status = 401, description = "`unauthorized`, `invalid_token`, `token_expired`", body = crate::http::openapi::ErrorResponse)))]
#[get("/api/auth/me")]
pub async fn me(state: web::Data<AppState>, who: Identity) -> AppResult<web::Json<AccountView>> {
    let account =
        state.db.run(move |conn| repo::by_id(conn, who.account_id)).await?.ok_or_else(|| {
            AppError::unauthorized(ErrorCode::InvalidToken, "the account no longer exists")
        })?;
    Ok(web::Json(AccountView::from(&account)))
}

/// Change the password (registered accounts only). Ends every other session: all refresh tokens
/// are revoked and a new session is returned.
#[utoipa::path(post, path = "/api/auth/password", tag = "accounts", request_body = ChangePassword, security(("bearer" = []), ("cookie" = [])), responses(
    (status = 200, description = "changed; new session", body = Session),
    (status = 400, description = "password rule codes, `invalid_json`", body = crate::http::openapi::ErrorResponse),
    (status = 401, description = "`invalid_credentials` (wrong current password), `unauthorized`", body = crate::http::openapi::ErrorResponse),
    (status = 403, description = "`guest_not_allowed`", body = crate::http::openapi::ErrorResponse),
    (status = 429, description = "`rate_limited`", body = crate::http::openapi::ErrorResponse),
    (status = 503, description = "`server_busy`: the password-hashing queue is full (see Retry-After)", body = crate::http::openapi::ErrorResponse)))]
#[post("/api/auth/password")]
pub async fn change_password(
    state: web::Data<AppState>,
    req: HttpRequest,
    AccountOnly(who): AccountOnly,
    body: web::Json<ChangePassword>,
) -> AppResult<HttpResponse> {
    let ChangePassword { current_password, new_password } = body.into_inner();
    let account =
        state.db.run(move |conn| repo::by_id(conn, who.account_id)).await?.ok_or_else(|| {
            AppError::unauthorized(ErrorCode::InvalidToken, "the account no longer exists")
        })?;
    let failures = &state.auth.limits.password_failures;
    failures.check(&account.id).await?;
    if !state.auth.verify_password(current_password, account.password_hash.clone()).await? {
        failures.fail(&account.id).await?;
        return Err(AppError::unauthorized(
            ErrorCode::InvalidCredentials,
            "the current password is wrong",
        ));
    }
    password::check_password(&new_password, &account.username)?;
    let hash = state.auth.hash_password(new_password).await?;
    let id = account.id;
    state
        .db
        .run(move |conn| {
            use diesel::Connection;
            conn.transaction(|conn| {
                repo::set_password_hash(conn, id, &hash)?;
                refresh::revoke_account(conn, id)
            })
        })
        .await?;
    let token_generation = state.auth.revoke_tokens(&state.db, id).await?;
    state.live.close_older_sessions(id, token_generation);
    let account = Account { token_generation, ..account };
    start_session(&state, account, None, None, (HttpResponse::Ok(), is_https(&state, &req))).await
}
