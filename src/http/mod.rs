//! HTTP API: one module per resource, each with `pub fn configure(cfg: &mut web::ServiceConfig)`
//! (registered in `app.rs`), plus the shared pieces: JSON/path/query error handling, request
//! logging and metrics, security headers, the client (`client`), the static files and the JSON 404.
pub mod accounts;
pub mod client;
pub mod formations;
pub mod games;
pub mod health;
pub mod ladder;
pub mod openapi;
pub mod profiles;
pub mod rooms;

use crate::app::AppState;
use crate::error::AppError;
use crate::error::ErrorCode;
use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::error::{JsonPayloadError, PathError, QueryPayloadError};
use actix_web::middleware::{DefaultHeaders, Next};
use actix_web::{web, HttpResponse};
pub use client::{client_bucket, client_ip};
use std::time::Instant;

/// JSON bodies: size limit, and errors as `AppError` (400 `invalid_json` / `invalid_body`,
/// 413 `payload_too_large`, 400 `unsupported_content_type`).
pub fn json_config(limit: usize) -> web::JsonConfig {
    web::JsonConfig::default().limit(limit).error_handler(|err, _req| json_error(err).into())
}

/// Map a JSON extraction error to our error codes.
pub fn json_error(err: JsonPayloadError) -> AppError {
    match err {
        JsonPayloadError::OverflowKnownLength { .. } | JsonPayloadError::Overflow { .. } => {
            AppError::PayloadTooLarge
        }
        JsonPayloadError::ContentType => AppError::bad_request(
            ErrorCode::UnsupportedContentType,
            "the body must be JSON (Content-Type: application/json)",
        ),
        JsonPayloadError::Deserialize(e) if e.is_data() => AppError::bad_request(
            ErrorCode::InvalidBody,
            crate::error::plain_serde_message(&e.to_string()),
        ),
        JsonPayloadError::Deserialize(e) => AppError::bad_request(
            ErrorCode::InvalidJson,
            format!("malformed JSON: {}", crate::error::plain_serde_message(&e.to_string())),
        ),
        JsonPayloadError::Payload(actix_web::error::PayloadError::Overflow) => {
            AppError::PayloadTooLarge
        }
        _ => AppError::bad_request(ErrorCode::InvalidJson, "the body could not be read as JSON"),
    }
}

/// Parse an optional JSON body read as bytes (empty = `None`), with the same error codes.
pub fn parse_optional_json<T: serde::de::DeserializeOwned>(
    body: &[u8],
) -> Result<Option<T>, AppError> {
    if body.iter().all(|b| b.is_ascii_whitespace()) {
        return Ok(None);
    }
    serde_json::from_slice(body).map(Some).map_err(|e| json_error(JsonPayloadError::Deserialize(e)))
}

pub fn path_config() -> web::PathConfig {
    web::PathConfig::default().error_handler(|err: PathError, _req| {
        let m = crate::error::plain_serde_message(&err.to_string());
        AppError::bad_request(ErrorCode::InvalidPath, format!("invalid path parameter: {m}")).into()
    })
}

pub fn query_config() -> web::QueryConfig {
    web::QueryConfig::default().error_handler(|err: QueryPayloadError, _req| {
        let m = crate::error::plain_serde_message(&err.to_string());
        AppError::bad_request(ErrorCode::InvalidQuery, format!("invalid query string: {m}")).into()
    })
}

pub fn security_headers() -> DefaultHeaders {
    DefaultHeaders::new()
        .add(("X-Content-Type-Options", "nosniff"))
        .add(("X-Frame-Options", "DENY"))
        .add(("Referrer-Policy", "same-origin"))
        .add(("Content-Security-Policy", CONTENT_SECURITY_POLICY))
}

/// The web client's Content-Security-Policy: scripts only from this origin (no inline script,
/// no eval), no plugins, not framed; styles may be set inline by the client's views.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; \
     style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; \
     object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// Refuse cross-site state-changing requests (a login CSRF such as another site posting to
/// `/api/auth/guest` or `/api/auth/logout`): any method but GET/HEAD/OPTIONS whose
/// `Sec-Fetch-Site` is neither `same-origin` nor `none`, or whose `Origin` is not the server's
/// own (scheme, host and port as [`client::Client::origin`] tells them: from forwarded headers
/// only of a trusted proxy) or in `server.allowed_origins`, gets 403 `cross_site_request`.
/// Clients that are not browsers send neither header and are not affected.
pub async fn same_site_only(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    use actix_web::http::Method;
    let safe = matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    if !safe {
        let fetch_site = req.headers().get("sec-fetch-site").and_then(|v| v.to_str().ok());
        let cross_fetch = fetch_site.is_some_and(|v| v != "same-origin" && v != "none");
        let origin_ok = match req.app_data::<web::Data<AppState>>() {
            Some(s) => {
                let server = &s.config.server;
                client::origin_allowed(
                    req.request(),
                    &server.allowed_origins,
                    &server.trusted_proxies,
                )
            }
            None => client::origin_allowed(req.request(), &[], &client::TrustedProxies::default()),
        };
        if cross_fetch || !origin_ok {
            let err = AppError::forbidden(
                ErrorCode::CrossSiteRequest,
                "state-changing requests must come from this site",
            );
            return Ok(req.error_response(err).map_into_right_body());
        }
    }
    Ok(next.call(req).await?.map_into_left_body())
}

/// Request log line and metrics for every request; error responses not made by [`AppError`]
/// (actix's own 404/405/413 and extractor errors) are rewritten into our JSON error shape.
pub async fn observe(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let start = Instant::now();
    let method = req.method().to_string();
    let path = req.path().to_string();
    let state = req.app_data::<web::Data<AppState>>().cloned();
    let res = json_errors(next.call(req).await?);
    let elapsed = start.elapsed();
    let status = res.status().as_u16();
    let route = res.request().match_pattern().unwrap_or_else(|| "unmatched".to_string());
    if let Some(state) = state {
        state.metrics.observe(&method, &route, status, elapsed.as_secs_f64());
    }
    let ms = elapsed.as_secs_f64() * 1000.0;
    if status >= 500 {
        tracing::error!(%method, %path, status, ms, "request");
    } else {
        tracing::info!(%method, %path, status, ms, "request");
    }
    Ok(res)
}

/// Give error responses that are not JSON our `{"error": {"code", "message"}}` shape.
fn json_errors<B: MessageBody + 'static>(
    res: ServiceResponse<B>,
) -> ServiceResponse<EitherBody<B>> {
    let status = res.status();
    let is_json = res
        .headers()
        .get(actix_web::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return res.map_into_left_body();
    }
    let (code, message) = match status.as_u16() {
        400 => (ErrorCode::BadRequest, "the request is malformed"),
        401 => (ErrorCode::Unauthorized, "log in first"),
        403 => (ErrorCode::Forbidden, "not allowed"),
        404 => (ErrorCode::NotFound, "not found"),
        405 => (ErrorCode::MethodNotAllowed, "method not allowed"),
        408 => (ErrorCode::Timeout, "the request took too long"),
        411 => (ErrorCode::LengthRequired, "a Content-Length is required"),
        413 => (ErrorCode::PayloadTooLarge, "request body too large"),
        415 => (ErrorCode::UnsupportedContentType, "unsupported content type"),
        429 => (ErrorCode::RateLimited, "too many requests"),
        s if s >= 500 => (ErrorCode::Internal, "internal error"),
        _ => (ErrorCode::BadRequest, "the request was refused"),
    };
    if status.is_server_error() {
        if let Some(err) = res.response().error() {
            tracing::error!(error = %err, "internal error");
        }
    }
    let (req, old) = res.into_parts();
    let mut new = HttpResponse::build(status);
    for (name, value) in old.headers() {
        if name != actix_web::http::header::CONTENT_TYPE
            && name != actix_web::http::header::CONTENT_LENGTH
        {
            new.append_header((name.clone(), value.clone()));
        }
    }
    let body = PlainError { error: PlainErrorDetail { code, message } };
    ServiceResponse::new(req, new.json(body)).map_into_right_body()
}

/// The `{"error": {"code", "message"}}` body given to an error answer that had none.
#[derive(serde::Serialize)]
struct PlainError {
    error: PlainErrorDetail,
}

#[derive(serde::Serialize)]
struct PlainErrorDetail {
    code: ErrorCode,
    message: &'static str,
}

async fn api_not_found() -> Result<HttpResponse, AppError> {
    Err(AppError::NotFound { what: "endpoint" })
}

async fn page_not_found() -> Result<HttpResponse, AppError> {
    Err(AppError::NotFound { what: "page" })
}

/// Registered last: JSON 404 for unknown `/api/*`, then the static web client at `/`.
pub fn fallback(cfg: &mut web::ServiceConfig, static_dir: &str) {
    cfg.service(web::scope("/api").default_service(web::to(api_not_found)));
    if std::path::Path::new(static_dir).is_dir() {
        cfg.service(
            actix_files::Files::new("/", static_dir)
                .index_file("index.html")
                .default_handler(web::to(page_not_found)),
        );
    } else {
        tracing::warn!(static_dir, "static directory not found; the web client is not served");
        cfg.default_service(web::to(page_not_found));
    }
}
