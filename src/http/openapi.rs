//! The OpenAPI description at `/api/openapi.json`. To document a new endpoint: annotate the
//! handler with `#[utoipa::path(...)]` and add it to the `paths(...)` list of [`ApiDoc`]
//! (schemas referenced by paths are collected automatically).
use crate::http::{accounts, formations, games, health, ladder, profiles, rooms};
use actix_web::{get, web, HttpResponse};
use serde::Serialize;
use std::sync::LazyLock;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi, ToSchema};

/// Every error response: `{"error": {"code": "...", "message": "..."}}`.
#[derive(Serialize, ToSchema)]
pub struct ErrorResponse {
    pub error: ErrorDetailDoc,
}

#[derive(Serialize, ToSchema)]
pub struct ErrorDetailDoc {
    /// stable snake_case code, e.g. `invalid_json`, `unauthorized`, `rate_limited`
    pub code: String,
    /// human-readable explanation
    pub message: String,
}

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Siguo API",
        description = "HTTP API of Siguo, the four-player military chess (四国军棋) server. Errors are JSON `{\"error\": {\"code\", \"message\"}}` with stable codes. Authenticate with the `siguo_access` cookie or `Authorization: Bearer <access_token>`."
    ),
    paths(
        health::healthz,
        health::readyz,
        health::metrics,
        accounts::register,
        accounts::login,
        accounts::logout,
        accounts::refresh_session,
        accounts::me,
        accounts::guest,
        accounts::change_password,
        openapi_json,
        ladder::leaderboard_page,
        ladder::leaderboard_me,
        ladder::titles,
        ladder::queue_join,
        ladder::queue_leave,
        ladder::queue_status,
        ladder::queue_status_any,
        profiles::get_profile,
        rooms::list_rooms,
        rooms::create_room,
        rooms::room_node,
        rooms::ws_ticket,
        rooms::ws,
        rooms::ws_node,
        games::live_games,
        games::game,
        games::game_node,
        games::my_games,
        games::account_games,
        formations::list,
        formations::create,
        formations::get_one,
        formations::replace,
        formations::remove,
    ),
    components(schemas(ErrorResponse)),
    modifiers(&SecuritySchemes),
    tags(
        (name = "live", description = "rooms and the live-play WebSocket (docs/protocol.md)"),
        (name = "games", description = "replays and game history"),
        (name = "formations", description = "saved deployment formations"),
        (name = "accounts", description = "registration, login, sessions, guests"),
        (name = "ladder", description = "ranked queues, leaderboards, profiles"),
        (name = "operations", description = "health, readiness, metrics, API description"),
    )
)]
pub struct ApiDoc;

struct SecuritySchemes;

impl Modify for SecuritySchemes {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new().scheme(HttpAuthScheme::Bearer).bearer_format("JWT").build(),
            ),
        );
        components.add_security_scheme(
            "cookie",
            SecurityScheme::ApiKey(ApiKey::Cookie(ApiKeyValue::new(crate::auth::ACCESS_COOKIE))),
        );
    }
}

static SPEC: LazyLock<String> =
    LazyLock::new(|| ApiDoc::openapi().to_json().expect("OpenAPI serializes"));

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(openapi_json);
}

/// This document.
#[utoipa::path(get, path = "/api/openapi.json", tag = "operations", responses((status = 200, description = "OpenAPI 3.1 document", content_type = "application/json")))]
#[get("/api/openapi.json")]
pub async fn openapi_json() -> HttpResponse {
    HttpResponse::Ok().content_type("application/json").body(SPEC.as_str())
}
