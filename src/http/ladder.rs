//! Ranked ladder over HTTP: leaderboards (anyone), "around me" (logged in), the matchmaking
//! queues (accounts only; guests get 403 `guest_not_allowed`).
use crate::app::AppState;
use crate::auth::{AccountOnly, Identity};
use crate::error::ErrorCode;
use crate::error::{AppError, AppResult};
use crate::http::client_ip;
use crate::ladder::leaderboard::{self, Row};
use crate::ladder::{LadderKind, QueueStatus};
use actix_web::{delete, get, post, web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

pub fn configure(cfg: &mut web::ServiceConfig) {
    // `/me` before `/{ladder}` pages is not needed (different segment counts), but keep order clear.
    cfg.service(leaderboard_me)
        .service(leaderboard_page)
        .service(queue_join)
        .service(queue_leave)
        .service(queue_status)
        .service(queue_status_any)
        .service(titles);
}

pub const DEFAULT_PER_PAGE: i64 = 50;
pub const MAX_PER_PAGE: i64 = 100;

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct PageQuery {
    /// 1-based page number (default 1)
    pub page: Option<i64>,
    /// rows per page, 1–100 (default 50)
    pub per_page: Option<i64>,
}

impl PageQuery {
    fn per_page(&self) -> AppResult<i64> {
        let n = self.per_page.unwrap_or(DEFAULT_PER_PAGE);
        if !(1..=MAX_PER_PAGE).contains(&n) {
            return Err(AppError::bad_request(
                ErrorCode::InvalidPaging,
                format!("per_page must be between 1 and {MAX_PER_PAGE}"),
            ));
        }
        Ok(n)
    }
    fn page(&self) -> AppResult<i64> {
        let p = self.page.unwrap_or(1);
        if !(1..=1_000_000_000).contains(&p) {
            return Err(AppError::bad_request(ErrorCode::InvalidPaging, "page must be at least 1"));
        }
        Ok(p)
    }
}

/// One page of a leaderboard.
#[derive(Debug, Serialize, ToSchema)]
pub struct LeaderboardPage {
    pub ladder: LadderKind,
    pub page: i64,
    pub per_page: i64,
    /// players on this ladder
    pub total: i64,
    /// ordered by points desc, wins desc, escapes asc, account id asc (`hf_ranked`: by rating
    /// desc, account id asc, players with at least 10 games and RD at most 110)
    pub rows: Vec<Row>,
    /// the caller's own row (only on `/me`; `null` before its first counted game; on `hf_ranked`
    /// with rank 0 until the caller is on the leaderboard)
    #[serde(skip_serializing_if = "Option::is_none")]
    pub me: Option<Option<Row>>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct TitlesQuery {
    /// ranked | ranked_dual | hf_ranked
    pub ladder: String,
    /// account ids, comma-separated (at most 100)
    pub accounts: String,
}

/// The titles (军衔) of some accounts on one ladder.
#[derive(Debug, Serialize, ToSchema)]
pub struct Titles {
    pub ladder: LadderKind,
    /// by account id; `null`: no title (a provisional Hidden Front rating)
    #[schema(value_type = Object)]
    pub titles: std::collections::BTreeMap<i64, Option<crate::ladder::title::Title>>,
}

/// The titles of the accounts a page shows beside their names (lobby, rooms). Readable without
/// login; an account without a standing on the ladder has a newcomer's title.
#[utoipa::path(get, path = "/api/titles", tag = "ladder", params(TitlesQuery),
    responses((status = 200, body = Titles), (status = 400, description = "unknown_ladder, invalid_query", body = crate::http::openapi::ErrorResponse)))]
#[get("/api/titles")]
pub async fn titles(
    state: web::Data<AppState>,
    q: web::Query<TitlesQuery>,
) -> AppResult<HttpResponse> {
    let ladder = LadderKind::from_path(&q.ladder)?;
    let ids: Vec<i64> = q
        .accounts
        .split(',')
        .filter(|s| !s.is_empty())
        .map(str::parse)
        .collect::<Result<_, _>>()
        .map_err(|_| {
            AppError::bad_request(ErrorCode::InvalidQuery, "accounts: ids separated by commas")
        })?;
    if ids.len() > MAX_PER_PAGE as usize {
        return Err(AppError::bad_request(ErrorCode::InvalidQuery, "at most 100 accounts"));
    }
    let rows = state.db.run(move |c| leaderboard::titles(c, ladder, &ids)).await?;
    Ok(HttpResponse::Ok().json(Titles { ladder, titles: rows.into_iter().collect() }))
}

/// A page of a ladder's leaderboard. Readable without login.
#[utoipa::path(get, path = "/api/leaderboard/{ladder}", tag = "ladder",
    params(("ladder" = String, Path, description = "ranked | ranked_dual | hf_ranked"), PageQuery),
    responses((status = 200, body = LeaderboardPage), (status = 400, description = "unknown_ladder, invalid_paging, invalid_query", body = crate::http::openapi::ErrorResponse)))]
#[get("/api/leaderboard/{ladder}")]
pub async fn leaderboard_page(
    state: web::Data<AppState>,
    path: web::Path<String>,
    q: web::Query<PageQuery>,
) -> AppResult<HttpResponse> {
    let ladder = LadderKind::from_path(&path)?;
    let (page, per_page) = (q.page()?, q.per_page()?);
    let (total, rows) = state
        .db
        .run(move |c| {
            let total = leaderboard::total(c, ladder)?;
            Ok((total, leaderboard::rows_at(c, ladder, (page - 1) * per_page, per_page)?))
        })
        .await?;
    Ok(HttpResponse::Ok().json(LeaderboardPage { ladder, page, per_page, total, rows, me: None }))
}

/// The page of the leaderboard that holds the caller's own row (`page` is ignored), and the row.
/// Before its first counted game the caller gets page 1 and `me: null`.
#[utoipa::path(get, path = "/api/leaderboard/{ladder}/me", tag = "ladder",
    params(("ladder" = String, Path, description = "ranked | ranked_dual | hf_ranked"), PageQuery),
    security(("bearer" = []), ("cookie" = [])),
    responses((status = 200, body = LeaderboardPage), (status = 401, description = "not logged in", body = crate::http::openapi::ErrorResponse)))]
#[get("/api/leaderboard/{ladder}/me")]
pub async fn leaderboard_me(
    state: web::Data<AppState>,
    who: Identity,
    path: web::Path<String>,
    q: web::Query<PageQuery>,
) -> AppResult<HttpResponse> {
    let ladder = LadderKind::from_path(&path)?;
    let per_page = q.per_page()?;
    let account_id = who.account_id;
    let (total, me, page, rows) = state
        .db
        .run(move |c| {
            let total = leaderboard::total(c, ladder)?;
            let me = leaderboard::row_of(c, ladder, account_id)?;
            let rank = me.as_ref().map(|r| r.rank).filter(|&rank| rank > 0);
            let page = rank.map(|rank| (rank - 1) / per_page + 1).unwrap_or(1);
            let rows = leaderboard::rows_at(c, ladder, (page - 1) * per_page, per_page)?;
            Ok((total, me, page, rows))
        })
        .await?;
    Ok(HttpResponse::Ok().json(LeaderboardPage {
        ladder,
        page,
        per_page,
        total,
        rows,
        me: Some(me),
    }))
}

/// Join a ladder's matchmaking queue; a socket of the account must be connected (the entry is
/// dropped when the last one has been closed for `ladder.queue_disconnect_grace_ms`). A match
/// found is first proposed (`match_proposed`, status `proposed`); when every player accepted
/// it (`accept_match`), the game is created in its deployment phase, every player's sockets get
/// `match_found` and the status becomes `matched`.
#[utoipa::path(post, path = "/api/queue/{ladder}", tag = "ladder",
    params(("ladder" = String, Path, description = "ranked | ranked_dual | hf_ranked")),
    security(("bearer" = []), ("cookie" = [])),
    responses((status = 200, body = QueueStatus),
        (status = 403, description = "guest_not_allowed", body = crate::http::openapi::ErrorResponse),
        (status = 409, description = "already_queued (in the other queue), match_pending, in_ranked_game, not_connected (no socket open)", body = crate::http::openapi::ErrorResponse),
        (status = 429, description = "queue_cooldown (too many matches missed; see Retry-After)", body = crate::http::openapi::ErrorResponse)))]
#[post("/api/queue/{ladder}")]
pub async fn queue_join(
    state: web::Data<AppState>,
    req: HttpRequest,
    AccountOnly(who): AccountOnly,
    path: web::Path<String>,
) -> AppResult<HttpResponse> {
    let ladder = LadderKind::from_path(&path)?;
    let ip = client_ip(&req, &state.config.server.trusted_proxies);
    let status = state.ladder.join(ladder, who.account_id, who.name, ip).await?;
    Ok(HttpResponse::Ok().json(status))
}

/// Leave a ladder's queue (idempotent); a match proposed to the caller on that ladder is
/// declined. Returns the status afterwards.
#[utoipa::path(delete, path = "/api/queue/{ladder}", tag = "ladder",
    params(("ladder" = String, Path, description = "ranked | ranked_dual | hf_ranked")),
    security(("bearer" = []), ("cookie" = [])),
    responses((status = 200, body = QueueStatus), (status = 403, description = "guest_not_allowed", body = crate::http::openapi::ErrorResponse)))]
#[delete("/api/queue/{ladder}")]
pub async fn queue_leave(
    state: web::Data<AppState>,
    AccountOnly(who): AccountOnly,
    path: web::Path<String>,
) -> AppResult<HttpResponse> {
    let ladder = LadderKind::from_path(&path)?;
    Ok(HttpResponse::Ok().json(state.ladder.leave(ladder, who.account_id).await?))
}

/// The caller's queue status: `idle`, `waiting` (since when, for how long), `proposed` (a
/// match to accept before `deadline`), `matching`, or `matched` (game id and room to join).
#[utoipa::path(get, path = "/api/queue/{ladder}", tag = "ladder",
    params(("ladder" = String, Path, description = "ranked | ranked_dual | hf_ranked")),
    security(("bearer" = []), ("cookie" = [])),
    responses((status = 200, body = QueueStatus), (status = 403, description = "guest_not_allowed", body = crate::http::openapi::ErrorResponse)))]
#[get("/api/queue/{ladder}")]
pub async fn queue_status(
    state: web::Data<AppState>,
    AccountOnly(who): AccountOnly,
    path: web::Path<String>,
) -> AppResult<HttpResponse> {
    LadderKind::from_path(&path)?;
    Ok(HttpResponse::Ok().json(state.ladder.status(who.account_id).await?))
}

/// The caller's queue status, whichever queue.
#[utoipa::path(get, path = "/api/queue", tag = "ladder",
    security(("bearer" = []), ("cookie" = [])),
    responses((status = 200, body = QueueStatus), (status = 403, description = "guest_not_allowed", body = crate::http::openapi::ErrorResponse)))]
#[get("/api/queue")]
pub async fn queue_status_any(
    state: web::Data<AppState>,
    AccountOnly(who): AccountOnly,
) -> AppResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(state.ladder.status(who.account_id).await?))
}
