//! Saved deployment formations (布阵) of an account: `/api/formations` CRUD. A formation is
//! seat-independent (`siguo_rules::Formation`: local station `a1`…`e6` → piece code), belongs to
//! one game (`variant`: the four-player game or Hidden Front) and is validated with that game's
//! deployment rules and default options before it is saved.
use crate::app::AppState;
use crate::auth::AccountOnly;
use crate::db::schema::formations;
use crate::db::DbConn;
use crate::error::ErrorCode;
use crate::error::{AppError, AppResult};
use actix_web::{delete, get, post, put, web, HttpResponse};
use chrono::{NaiveDateTime, Utc};
use diesel::prelude::*;
use serde::{Deserialize, Serialize};
use siguo_rules::{Deployment, Formation, Options, Seat, Variant};
use utoipa::{IntoParams, ToSchema};

pub const MAX_FORMATIONS: i64 = 50;
pub const MAX_NAME: usize = 40;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(list).service(create).service(get_one).service(replace).service(remove);
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct FormationInput {
    /// 1–40 characters, unique per account
    #[schema(example = "rush")]
    pub name: String,
    /// local station (`a1`…`e6`) → piece code (`9`…`1`, `B`, `M`, `F`); 25 entries, camps empty,
    /// e.g. `{"a1": "3", "b6": "F", …}`
    #[schema(value_type = Object)]
    pub formation: Formation,
    /// the game: `four_player` (default when saving) or `hidden_front`; a `PUT` without it
    /// keeps the formation's game
    #[schema(value_type = Option<String>)]
    pub variant: Option<Variant>,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct FormationView {
    pub id: i64,
    pub name: String,
    #[schema(value_type = String)]
    pub variant: Variant,
    #[schema(value_type = Object)]
    pub formation: Formation,
    pub created_at: NaiveDateTime,
}

/// `?variant=`: the game whose formations are listed (default `four_player`).
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    /// `four_player` (default) or `hidden_front`
    #[param(value_type = Option<String>)]
    pub variant: Option<Variant>,
}

/// The name, and the formation under `variant`'s deployment rules (hidden-front.md §3 for Hidden
/// Front).
fn check(input: &FormationInput, variant: Variant) -> AppResult<()> {
    let n = input.name.trim();
    if n.is_empty() || n.chars().count() > MAX_NAME {
        return Err(AppError::bad_request(
            ErrorCode::InvalidName,
            format!("a formation name has 1 to {MAX_NAME} characters"),
        ));
    }
    let options = Options::for_variant(variant);
    Deployment::from_formation_for(variant, Seat::S, &input.formation, &options)
        .map_err(|e| AppError::bad_request(ErrorCode::from(&e), e.to_string()))?;
    Ok(())
}

type Row = (i64, String, String, NaiveDateTime, String);

fn row_to_view((id, name, data, created_at, variant): Row) -> AppResult<FormationView> {
    let formation = serde_json::from_str(&data)
        .map_err(|e| AppError::internal(format!("stored formation: {e}")))?;
    let variant = crate::live::store::parse_variant(&variant)?;
    Ok(FormationView { id, name, variant, formation, created_at })
}

const COLUMNS: (
    formations::id,
    formations::name,
    formations::data,
    formations::created_at,
    formations::variant,
) = (
    formations::id,
    formations::name,
    formations::data,
    formations::created_at,
    formations::variant,
);

fn one(conn: &mut DbConn, account: i64, id: i64) -> AppResult<FormationView> {
    let row: Option<Row> = formations::table
        .filter(formations::id.eq(id).and(formations::account_id.eq(account)))
        .select(COLUMNS)
        .first(conn)
        .optional()?;
    row_to_view(row.ok_or(AppError::NotFound { what: "formation" })?)
}

fn name_taken(e: diesel::result::Error) -> AppError {
    if let diesel::result::Error::DatabaseError(
        diesel::result::DatabaseErrorKind::UniqueViolation,
        _,
    ) = e
    {
        AppError::conflict(
            ErrorCode::FormationNameTaken,
            "you already have a formation with this name",
        )
    } else {
        e.into()
    }
}

/// Your saved formations of one game.
#[utoipa::path(get, path = "/api/formations", tag = "formations", params(ListQuery), responses(
    (status = 200, description = "your formations of the game, oldest first", body = [FormationView]),
    (status = 401, description = "`unauthorized`", body = crate::http::openapi::ErrorResponse),
    (status = 403, description = "`guest_not_allowed`", body = crate::http::openapi::ErrorResponse)))]
#[get("/api/formations")]
pub async fn list(
    state: web::Data<AppState>,
    who: AccountOnly,
    q: web::Query<ListQuery>,
) -> AppResult<HttpResponse> {
    let account = who.0.account_id;
    let variant = q.variant.unwrap_or_default();
    let v = state
        .db
        .run(move |c| {
            let rows: Vec<Row> = formations::table
                .filter(formations::account_id.eq(account))
                .filter(formations::variant.eq(variant.name()))
                .order(formations::id.asc())
                .select(COLUMNS)
                .load(c)?;
            rows.into_iter().map(row_to_view).collect::<AppResult<Vec<_>>>()
        })
        .await?;
    Ok(HttpResponse::Ok().json(v))
}

/// Save a formation.
#[utoipa::path(post, path = "/api/formations", tag = "formations", request_body = FormationInput, responses(
    (status = 201, description = "saved", body = FormationView),
    (status = 400, description = "`invalid_name`, a deployment error code (`flag_not_in_headquarters`, `wrong_count`, ...), `invalid_body`", body = crate::http::openapi::ErrorResponse),
    (status = 409, description = "`formation_name_taken`, `too_many_formations`", body = crate::http::openapi::ErrorResponse)))]
#[post("/api/formations")]
pub async fn create(
    state: web::Data<AppState>,
    who: AccountOnly,
    body: web::Json<FormationInput>,
) -> AppResult<HttpResponse> {
    let input = body.into_inner();
    let variant = input.variant.unwrap_or_default();
    check(&input, variant)?;
    let account = who.0.account_id;
    let data = serde_json::to_string(&input.formation).map_err(AppError::internal)?;
    let name = input.name.trim().to_string();
    let v = state
        .db
        .run(move |c| {
            let n: i64 = formations::table
                .filter(formations::account_id.eq(account))
                .filter(formations::variant.eq(variant.name()))
                .count()
                .get_result(c)?;
            if n >= MAX_FORMATIONS {
                return Err(AppError::conflict(
                    ErrorCode::TooManyFormations,
                    format!("at most {MAX_FORMATIONS} formations"),
                ));
            }
            let id: i64 = diesel::insert_into(formations::table)
                .values((
                    formations::account_id.eq(account),
                    formations::name.eq(&name),
                    formations::data.eq(&data),
                    formations::created_at.eq(Utc::now().naive_utc()),
                    formations::variant.eq(variant.name()),
                ))
                .returning(formations::id)
                .get_result(c)
                .map_err(name_taken)?;
            one(c, account, id)
        })
        .await?;
    Ok(HttpResponse::Created().json(v))
}

/// One formation.
#[utoipa::path(get, path = "/api/formations/{id}", tag = "formations", responses(
    (status = 200, body = FormationView),
    (status = 404, description = "`not_found`", body = crate::http::openapi::ErrorResponse)))]
#[get("/api/formations/{id}")]
pub async fn get_one(
    state: web::Data<AppState>,
    who: AccountOnly,
    path: web::Path<i64>,
) -> AppResult<HttpResponse> {
    let (account, id) = (who.0.account_id, path.into_inner());
    let v = state.db.run(move |c| one(c, account, id)).await?;
    Ok(HttpResponse::Ok().json(v))
}

/// Replace a formation's name and pieces.
#[utoipa::path(put, path = "/api/formations/{id}", tag = "formations", request_body = FormationInput, responses(
    (status = 200, body = FormationView),
    (status = 400, description = "`invalid_name`, a deployment error code", body = crate::http::openapi::ErrorResponse),
    (status = 404, description = "`not_found`", body = crate::http::openapi::ErrorResponse),
    (status = 409, description = "`formation_name_taken`", body = crate::http::openapi::ErrorResponse)))]
#[put("/api/formations/{id}")]
pub async fn replace(
    state: web::Data<AppState>,
    who: AccountOnly,
    path: web::Path<i64>,
    body: web::Json<FormationInput>,
) -> AppResult<HttpResponse> {
    let input = body.into_inner();
    let (account, id) = (who.0.account_id, path.into_inner());
    let data = serde_json::to_string(&input.formation).map_err(AppError::internal)?;
    let name = input.name.trim().to_string();
    let v = state
        .db
        .run(move |c| {
            let variant = match input.variant {
                Some(v) => v,
                None => one(c, account, id)?.variant,
            };
            check(&input, variant)?;
            let n = diesel::update(
                formations::table
                    .filter(formations::id.eq(id).and(formations::account_id.eq(account))),
            )
            .set((
                formations::name.eq(&name),
                formations::data.eq(&data),
                formations::variant.eq(variant.name()),
            ))
            .execute(c)
            .map_err(name_taken)?;
            if n == 0 {
                return Err(AppError::NotFound { what: "formation" });
            }
            one(c, account, id)
        })
        .await?;
    Ok(HttpResponse::Ok().json(v))
}

/// Delete a formation.
#[utoipa::path(delete, path = "/api/formations/{id}", tag = "formations", responses(
    (status = 204, description = "deleted"),
    (status = 404, description = "`not_found`", body = crate::http::openapi::ErrorResponse)))]
#[delete("/api/formations/{id}")]
pub async fn remove(
    state: web::Data<AppState>,
    who: AccountOnly,
    path: web::Path<i64>,
) -> AppResult<HttpResponse> {
    let (account, id) = (who.0.account_id, path.into_inner());
    let n = state
        .db
        .run(move |c| {
            Ok(diesel::delete(
                formations::table
                    .filter(formations::id.eq(id).and(formations::account_id.eq(account))),
            )
            .execute(c)?)
        })
        .await?;
    if n == 0 {
        return Err(AppError::NotFound { what: "formation" });
    }
    Ok(HttpResponse::NoContent().finish())
}
