//! Player profiles: `GET /api/profiles/{username}` (anyone).
use crate::app::AppState;
use crate::error::AppResult;
use crate::ladder::profile::{self, Profile};
use actix_web::{get, web, HttpResponse};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(get_profile);
}

/// Per-ladder standing (rank, points, W/D/L, surrenders, escapes) and the 20 most recent finished
/// games with the player's result and a replay link (`/api/games/{id}`).
#[utoipa::path(get, path = "/api/profiles/{username}", tag = "ladder",
    params(("username" = String, Path, description = "case-insensitive")),
    responses((status = 200, body = Profile), (status = 404, description = "no such player (guests have no profile)", body = crate::http::openapi::ErrorResponse)))]
#[get("/api/profiles/{username}")]
pub async fn get_profile(
    state: web::Data<AppState>,
    path: web::Path<String>,
) -> AppResult<HttpResponse> {
    let name = path.into_inner();
    let p: Profile = state.db.run(move |c| profile::profile(c, &name)).await?;
    Ok(HttpResponse::Ok().json(p))
}
