//! Replays and history: `GET /api/games/{id}`, `GET /api/me/games`, `GET /api/accounts/{name}/games`.
//! A finished game shows its whole record (every piece); a game in progress only public
//! information (the spectator view and the rank-free action list).
use crate::app::AppState;
use crate::auth::Identity;
use crate::error::{AppError, AppResult};
use crate::live::store::{self, GamePlayer};
use actix_web::{get, web, HttpResponse};
use chrono::NaiveDateTime;
use serde::{Deserialize, Serialize};
use siguo_rules::{Action, GameRecord, ShownOptions, Status, Variant, View, Viewer};
use utoipa::{IntoParams, ToSchema};

pub fn configure(cfg: &mut web::ServiceConfig) {
    // the fixed path before `/api/games/{id}`
    cfg.service(live_games)
        .service(game)
        .service(game_node)
        .service(my_games)
        .service(account_games);
}

/// The games in progress anyone may watch (in cluster mode: of every node, the same list on
/// each), oldest first — what `list_rooms` answers as `games` over the socket, for anyone,
/// logged in or not (a visitor watches with `/api/ws?visitor=1`).
#[utoipa::path(get, path = "/api/games/live", tag = "games", responses(
    (status = 200, description = "`[{room, game, variant, kind, phase, steps, seats, spectators, created}]`", body = Object)))]
#[get("/api/games/live")]
pub async fn live_games(state: web::Data<AppState>) -> AppResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(state.live.listed_games().await?))
}

#[derive(Debug, Deserialize, IntoParams, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Page {
    /// 1–100, default 20
    pub limit: Option<i64>,
    /// only games with an id below this one (for paging)
    pub before: Option<i64>,
}

/// `GET /api/games/{id}`: a finished game's whole `record`, or the `public` information of a
/// game in progress (the other one `null`).
#[derive(Serialize)]
struct GameAnswer {
    id: i64,
    kind: String,
    variant: Variant,
    state: String,
    options: ShownOptions,
    created_at: NaiveDateTime,
    started_at: Option<NaiveDateTime>,
    finished_at: Option<NaiveDateTime>,
    players: Vec<GamePlayer>,
    result: Option<Status>,
    record: Option<GameRecord>,
    public: Option<PublicGame>,
}

/// What anyone may see of a game that is not finished.
#[derive(Serialize)]
struct PublicGame {
    /// the spectator's view (`None` before the battle)
    view: Option<View>,
    /// the actions so far (they carry no rank)
    actions: Vec<Action>,
    /// its live version, as in the WebSocket protocol (`None` when not in memory)
    v: Option<u64>,
}

/// A game: the whole record when finished, public information while in progress. A private
/// game (private room, practice) only to its players; anyone else gets `not_found`, as for a
/// game that does not exist.
#[utoipa::path(get, path = "/api/games/{id}", tag = "games", responses(
    (status = 200, description = "`{id, kind, variant, state, options, players, result, record, public, ...}` (docs/protocol.md §10)", body = Object),
    (status = 404, description = "`not_found`: no such game, or a private game of others", body = crate::http::openapi::ErrorResponse)))]
#[get("/api/games/{id}")]
pub async fn game(
    state: web::Data<AppState>,
    who: Option<Identity>,
    path: web::Path<i64>,
) -> AppResult<HttpResponse> {
    let (id, viewer) = (path.into_inner(), who.map(|w| w.account_id));
    let g = state.db.run(move |c| store::load_game_for(c, id, viewer)).await?;
    let finished = g.state == "finished";
    let record_of = |d: &Vec<siguo_rules::Deployment>| GameRecord {
        variant: g.variant,
        options: g.options,
        deployments: d.clone(),
        actions: g.actions.clone(),
    };
    let (record, public) = match (&g.deployments, finished) {
        (Some(d), true) => (Some(record_of(d)), None),
        (Some(d), false) => {
            let view = record_of(d).replay().ok().map(|game| game.view(Viewer::Spectator));
            (None, Some((view, g.actions.clone())))
        }
        (None, _) => (None, Some((None, vec![]))),
    };
    let public = match public {
        Some((view, actions)) => {
            Some(PublicGame { view, actions, v: state.live.game_version(id).await })
        }
        None => None,
    };
    Ok(HttpResponse::Ok().json(GameAnswer {
        id: g.id,
        kind: g.kind,
        variant: g.variant,
        state: g.state,
        options: g.options.shown(g.variant),
        created_at: g.created_at,
        started_at: g.started_at,
        finished_at: g.finished_at,
        players: g.players,
        result: g.result,
        record,
        public,
    }))
}

/// Which node plays a game: its room's socket goes to `path` (`/ws/n/{node}`, routed by the load
/// balancer). A single node answers `"local"`.
#[utoipa::path(get, path = "/api/games/{id}/node", tag = "games", responses(
    (status = 200, description = "`{node, path}`", body = Object),
    (status = 404, description = "`not_found`: no such game, no node plays it, or a private game of others", body = crate::http::openapi::ErrorResponse)))]
#[get("/api/games/{id}/node")]
pub async fn game_node(
    state: web::Data<AppState>,
    who: Option<Identity>,
    path: web::Path<i64>,
) -> AppResult<HttpResponse> {
    let id = path.into_inner();
    // a private game of others: the same answer as for a game no node plays
    let node = match state.live.may_view_game(id, who.map(|w| w.account_id)).await? {
        true => state.live.owner_elsewhere_or_here(id).await?,
        false => None,
    };
    Ok(node_answer(node.ok_or(AppError::NotFound { what: "game" })?))
}

/// `{node, path}`: where a game's or a room's socket goes (`GET /api/games/{id}/node`,
/// `GET /api/rooms/{room}/node`).
pub(crate) fn node_answer(node: String) -> HttpResponse {
    HttpResponse::Ok().json(NodeAnswer { path: crate::live::protocol::node_path(&node), node })
}

/// `{node, path}`.
#[derive(Serialize)]
struct NodeAnswer {
    node: String,
    /// `/ws/n/{node}`
    path: String,
}

/// Your games, newest first.
#[utoipa::path(get, path = "/api/me/games", tag = "games", params(Page), responses(
    (status = 200, description = "list of `{id, kind, variant, state, seat, seats, result, team_result, escaped, surrendered, created_at, finished_at}`", body = Object),
    (status = 401, description = "`unauthorized`", body = crate::http::openapi::ErrorResponse)))]
#[get("/api/me/games")]
pub async fn my_games(
    state: web::Data<AppState>,
    who: Identity,
    q: web::Query<Page>,
) -> AppResult<HttpResponse> {
    let (account, limit, before) = (who.account_id, q.limit.unwrap_or(20), q.before);
    let v = state
        .db
        .run(move |c| store::list_games(c, (account, Some(account)), limit, before))
        .await?;
    Ok(HttpResponse::Ok().json(v))
}

/// An account's games, newest first: its public games, and its private ones only to their
/// players.
#[utoipa::path(get, path = "/api/accounts/{name}/games", tag = "games", params(Page), responses(
    (status = 200, description = "same items as /api/me/games", body = Object),
    (status = 404, description = "`not_found`", body = crate::http::openapi::ErrorResponse)))]
#[get("/api/accounts/{name}/games")]
pub async fn account_games(
    state: web::Data<AppState>,
    who: Option<Identity>,
    path: web::Path<String>,
    q: web::Query<Page>,
) -> AppResult<HttpResponse> {
    let (name, limit, before) = (path.into_inner(), q.limit.unwrap_or(20), q.before);
    let viewer = who.map(|w| w.account_id);
    if name.chars().count() > 64 {
        return Err(AppError::NotFound { what: "account" });
    }
    let v = state
        .db
        .run(move |c| {
            let id = store::account_id_by_name(c, &name)?;
            store::list_games(c, (id, viewer), limit, before)
        })
        .await?;
    Ok(HttpResponse::Ok().json(v))
}
