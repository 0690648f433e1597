//! Operations endpoints: `/healthz` (the process is up), `/readyz` (the database answers),
//! `/metrics` (Prometheus text format).
use crate::app::AppState;
use crate::error::{AppError, AppResult};
use actix_web::{get, web, HttpRequest, HttpResponse};
use diesel::connection::SimpleConnection;
use serde::Serialize;
use utoipa::ToSchema;

#[derive(Serialize, ToSchema)]
pub struct HealthStatus {
    /// `ok` or `ready`
    pub status: String,
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(healthz).service(readyz).service(metrics);
}

/// Liveness: the process answers.
#[utoipa::path(get, path = "/healthz", tag = "operations", responses((status = 200, body = HealthStatus)))]
#[get("/healthz")]
pub async fn healthz() -> web::Json<HealthStatus> {
    web::Json(HealthStatus { status: "ok".into() })
}

/// Readiness: the database answers a query.
#[utoipa::path(get, path = "/readyz", tag = "operations", responses(
    (status = 200, body = HealthStatus),
    (status = 503, description = "database unreachable", body = crate::http::openapi::ErrorResponse)))]
#[get("/readyz")]
pub async fn readyz(state: web::Data<AppState>) -> AppResult<web::Json<HealthStatus>> {
    state
        .db
        .run(|conn| {
            conn.batch_execute("SELECT 1").map_err(|e| {
                tracing::error!(error = %e, "readiness check");
                AppError::Unavailable
            })
        })
        .await?;
    Ok(web::Json(HealthStatus { status: "ready".into() }))
}

/// Prometheus metrics (text exposition format).
#[utoipa::path(get, path = "/metrics", tag = "operations", responses((status = 200, description = "Prometheus text format", content_type = "text/plain")))]
#[get("/metrics")]
pub async fn metrics(state: web::Data<AppState>, req: HttpRequest) -> AppResult<HttpResponse> {
    let ip = crate::http::client_ip(&req, &state.config.server.trusted_proxies);
    if !state.config.server.metrics || !state.config.server.metrics_allow.contains(&ip) {
        return Err(AppError::NotFound { what: "endpoint" });
    }
    Ok(HttpResponse::Ok().content_type("text/plain; version=0.0.4").body(state.metrics.render()))
}
