//! Rooms over HTTP (`GET/POST /api/rooms`) and the WebSocket endpoint `GET /api/ws`.
use crate::app::AppState;
use crate::auth::Identity;
use crate::error::ErrorCode;
use crate::error::{AppError, AppResult};
use crate::live::{socket, tickets, Who};
use actix_web::{get, post, web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(list_rooms)
        .service(create_room)
        .service(room_node)
        .service(ws_ticket)
        .service(ws)
        .service(ws_node);
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateRoom {
    /// listed in the lobby (default true); private rooms are joined by invite code
    pub public: Option<bool>,
    /// any subset of the room options (rules.md §10); missing ones take the defaults of the
    /// room's game
    #[schema(value_type = Object)]
    pub options: Option<serde_json::Value>,
    /// `four_player` (default) or `hidden_front`
    #[schema(value_type = Option<String>)]
    pub variant: Option<siguo_rules::Variant>,
}

/// Open public rooms waiting for players (in cluster mode: of every node, the same list on each).
#[utoipa::path(get, path = "/api/rooms", tag = "live", responses(
    (status = 200, description = "`[{room, variant, host, options, seats, spectators}]` oldest first", body = Object)))]
#[get("/api/rooms")]
pub async fn list_rooms(state: web::Data<AppState>) -> AppResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(state.live.listed_rooms().await?))
}

/// Which node runs a room (a room id, or `g<id>` for a game): its socket goes to `path`
/// (`/ws/n/{node}`, routed by the load balancer). A single node answers `"local"`.
#[utoipa::path(get, path = "/api/rooms/{room}/node", tag = "live", responses(
    (status = 200, description = "`{node, path}`", body = Object),
    (status = 404, description = "`not_found`: no node runs that room, or it is the game of a private room or a practice game and you do not play in it", body = crate::http::openapi::ErrorResponse)))]
#[get("/api/rooms/{room}/node")]
pub async fn room_node(
    state: web::Data<AppState>,
    who: Option<Identity>,
    path: web::Path<String>,
) -> AppResult<HttpResponse> {
    let room = path.into_inner();
    if room.len() > 64 {
        return Err(AppError::NotFound { what: "room" });
    }
    let viewer = who.map(|w| w.account_id);
    let node = state.live.room_node(&room, viewer).await?;
    let node = node.ok_or(AppError::NotFound { what: "room" })?;
    Ok(super::games::node_answer(node))
}

/// Open a casual room (you become its host); then `join_room` over the WebSocket.
#[utoipa::path(post, path = "/api/rooms", tag = "live", request_body = CreateRoom, responses(
    (status = 201, description = "`{room, invite}`", body = Object),
    (status = 400, description = "`invalid_options`, `invalid_body`", body = crate::http::openapi::ErrorResponse),
    (status = 401, description = "`unauthorized`", body = crate::http::openapi::ErrorResponse),
    (status = 409, description = "`too_many_rooms`", body = crate::http::openapi::ErrorResponse)))]
#[post("/api/rooms")]
pub async fn create_room(
    state: web::Data<AppState>,
    req: HttpRequest,
    who: Identity,
    body: web::Json<CreateRoom>,
) -> AppResult<HttpResponse> {
    let b = body.into_inner();
    let ip = crate::http::client_bucket(&req, &state.config.server.trusted_proxies);
    let variant = b.variant.unwrap_or_default();
    let options = crate::live::options_from_json(variant, b.options)
        .map_err(|e| AppError::bad_request(e.code, e.message))?;
    let who = Who { account_id: who.account_id, name: who.name, guest: who.guest };
    let (room, invite) =
        state.live.create_room((&who, ip), b.public.unwrap_or(true), variant, options).await?;
    Ok(HttpResponse::Created().json(CreatedRoom { room, invite }))
}

/// `POST /api/rooms`: the new room and its invite code.
#[derive(Serialize)]
struct CreatedRoom {
    room: String,
    invite: String,
}

#[derive(Debug, Default, Deserialize)]
pub struct WsQuery {
    /// refused (`token_in_url`): an access token does not belong in a URL
    pub token: Option<String>,
    /// a ticket from `POST /api/ws/ticket`
    pub ticket: Option<String>,
    /// the protocol version the client speaks (docs/protocol.md §1; default 1)
    pub protocol: Option<String>,
    /// `1`: a logged-out visitor's socket, which only watches public games (used only when the
    /// request carries no credentials)
    pub visitor: Option<String>,
}

/// The query of a socket's URL, read once (an unreadable one counts as empty).
fn ws_query(req: &HttpRequest) -> WsQuery {
    web::Query::<WsQuery>::from_query(req.query_string())
        .map(|q| q.into_inner())
        .unwrap_or_default()
}

/// The protocol version a socket asks for (`?protocol=`, default 1), or `400
/// unsupported_protocol`. Read before the ticket is used up.
fn socket_protocol(asked: Option<&str>) -> AppResult<u8> {
    let Some(asked) = asked else {
        return Ok(crate::live::protocol::PROTOCOL_DEFAULT);
    };
    match asked.parse::<u8>() {
        Ok(p) if crate::live::protocol::PROTOCOLS.contains(&p) => Ok(p),
        _ => Err(AppError::bad_request(
            ErrorCode::UnsupportedProtocol,
            format!("protocol {asked:?} is not spoken here: 1 (full views) or 2 (deltas)"),
        )),
    }
}

/// `POST /api/ws/ticket`: a ticket and how many seconds it may be used.
#[derive(Serialize)]
struct TicketAnswer {
    ticket: String,
    expires_in: u64,
}

/// A single-use ticket that opens one WebSocket within 30 s (`/api/ws?ticket=...`, or
/// `/ws/n/{node}?ticket=...` on any node): for clients that cannot send the access cookie or
/// an `Authorization` header on the upgrade. Auth: `Authorization: Bearer` (or the cookie).
#[utoipa::path(post, path = "/api/ws/ticket", tag = "live", responses(
    (status = 200, description = "`{ticket, expires_in}`", body = Object),
    (status = 401, description = "`unauthorized`, `token_expired`, `invalid_token`, `token_revoked`", body = crate::http::openapi::ErrorResponse),
    (status = 429, description = "`rate_limited` (`limits.ticket_per_account`, `limits.ticket_per_ip`), with `Retry-After`", body = crate::http::openapi::ErrorResponse)))]
#[post("/api/ws/ticket")]
pub async fn ws_ticket(state: web::Data<AppState>, req: HttpRequest) -> AppResult<HttpResponse> {
    let token = crate::auth::access_token_of(&req)
        .ok_or_else(|| AppError::unauthorized(ErrorCode::Unauthorized, "log in first"))?;
    let v = state.auth.verify_access(&state.db, &token).await?;
    // each ticket is a database row: a few a second per account and per address (cluster-wide)
    let ip = crate::http::client_bucket(&req, &state.config.server.trusted_proxies);
    state.auth.limits.ticket_account.take(&v.identity.account_id).await?;
    state.auth.limits.ticket_ip.take(&ip).await?;
    let ticket = state.db.run(move |c| tickets::issue(c, &v)).await?;
    Ok(HttpResponse::Ok().json(TicketAnswer { ticket, expires_in: tickets::TICKET_SECONDS }))
}

/// The live-play WebSocket (docs/protocol.md). Auth: `siguo_access` cookie, bearer token, or
/// `?ticket=` (`POST /api/ws/ticket`); `?token=` is refused (`400 token_in_url`).
#[utoipa::path(get, path = "/api/ws", tag = "live", responses(
    (status = 101, description = "switching protocols"),
    (status = 400, description = "`token_in_url`, `unsupported_protocol`", body = crate::http::openapi::ErrorResponse),
    (status = 401, description = "`unauthorized`, `token_expired`, `invalid_token`, `token_revoked`, `invalid_ticket`", body = crate::http::openapi::ErrorResponse),
    (status = 403, description = "`origin_not_allowed`", body = crate::http::openapi::ErrorResponse),
    (status = 429, description = "`too_many_sockets`", body = crate::http::openapi::ErrorResponse)))]
#[get("/api/ws")]
pub async fn ws(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: web::Payload,
) -> Result<HttpResponse, actix_web::Error> {
    open_socket(state, req, body).await
}

/// The same WebSocket on node `node` (cluster mode: the load balancer routes `/ws/n/{node}` to
/// that node; a single node is `local`). A node that is not `node` answers 409 `wrong_node`.
#[utoipa::path(get, path = "/ws/n/{node}", tag = "live", responses(
    (status = 101, description = "switching protocols"),
    (status = 409, description = "`wrong_node`: this is another node; ask `GET /api/games/{id}/node` again", body = crate::http::openapi::ErrorResponse),
    (status = 400, description = "`token_in_url`, `unsupported_protocol`", body = crate::http::openapi::ErrorResponse),
    (status = 401, description = "`unauthorized`, `token_expired`, `invalid_token`, `token_revoked`, `invalid_ticket`", body = crate::http::openapi::ErrorResponse)))]
#[get("/ws/n/{node}")]
pub async fn ws_node(
    state: web::Data<AppState>,
    path: web::Path<String>,
    req: HttpRequest,
    body: web::Payload,
) -> Result<HttpResponse, actix_web::Error> {
    let node = path.into_inner();
    let me = state.live.node_id();
    if node != me {
        let m = format!("this is node {me}, not {node}; ask GET /api/games/{{id}}/node again");
        return Err(AppError::conflict(ErrorCode::WrongNode, m).into());
    }
    open_socket(state, req, body).await
}

async fn open_socket(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: web::Payload,
) -> Result<HttpResponse, actix_web::Error> {
    let q = ws_query(&req);
    let protocol = socket_protocol(q.protocol.as_deref())?;
    let (who, token) = socket_identity(&state, &req, q).await?;
    let trusted = &state.config.server.trusted_proxies;
    if !crate::http::client::origin_allowed(&req, &state.live.config().allowed_origins, trusted) {
        return Err(AppError::forbidden(
            ErrorCode::OriginNotAllowed,
            "this origin may not open a WebSocket",
        )
        .into());
    }
    let ip = crate::http::client_bucket(&req, trusted);
    let conn_id = state.live.socket_place(who.account_id, ip).await?;
    let peer = (who, conn_id, protocol);
    socket::start(&req, body, (state.live.clone(), state.ladder.clone()), peer, token, ip)
}

/// Who opens a socket, and until when (Unix seconds) it may live: a ticket (`?ticket=`, used
/// up now), else the access token of the `Authorization` header or the cookie. An access token
/// in the URL is refused (`400 token_in_url`), even a valid one. With the token's expiry (Unix
/// seconds) and generation.
async fn socket_identity(
    state: &AppState,
    req: &HttpRequest,
    q: WsQuery,
) -> AppResult<(Who, (u64, i64))> {
    if q.token.is_some() {
        return Err(AppError::bad_request(
            ErrorCode::TokenInUrl,
            "access tokens do not go in URLs: use the cookie, the Authorization header or \
             a ticket (POST /api/ws/ticket, then ?ticket=)",
        ));
    }
    if let Some(ticket) = q.ticket {
        return state.db.run(move |c| tickets::redeem(c, &ticket)).await;
    }
    let token = match crate::auth::access_token_of(req) {
        Some(t) => t,
        None if q.visitor.as_deref() == Some("1") => {
            // a visitor: no account and nothing written; counted against its address's sockets
            let who = Who::visitor(state.live.next_conn_id());
            let until = chrono::Utc::now().timestamp().max(0) as u64 + crate::live::VISITOR_SECONDS;
            return Ok((who, (until, 0)));
        }
        None => return Err(AppError::unauthorized(ErrorCode::Unauthorized, "log in first")),
    };
    let v = state.auth.verify_access(&state.db, &token).await?;
    let id = v.identity;
    Ok((Who { account_id: id.account_id, name: id.name, guest: id.guest }, (v.exp, v.gen)))
}
