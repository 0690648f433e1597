//! Reading games for the HTTP API: one game (record or public view), the lists of an account's
//! games, and a saved formation.
use super::*;

/// A game as `GET /api/games/{id}` shows it (before redaction by the caller).
pub struct LoadedGame {
    pub id: i64,
    pub kind: String,
    /// anyone may watch it and read its record; else only its players
    pub public: bool,
    pub variant: Variant,
    pub state: String,
    pub options: Options,
    /// the variant's seats, in its order
    pub deployments: Option<Vec<Deployment>>,
    pub result: Option<Status>,
    pub created_at: NaiveDateTime,
    pub started_at: Option<NaiveDateTime>,
    pub finished_at: Option<NaiveDateTime>,
    pub players: Vec<GamePlayer>,
    pub actions: Vec<Action>,
}

/// One seat of a game as `GET /api/games/{id}` shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GamePlayer {
    /// the seat letter
    pub seat: String,
    pub account_id: Option<i64>,
    /// the account's name (`None` for a bot)
    pub name: Option<String>,
    pub guest: bool,
    /// the bot's level
    pub bot: Option<String>,
    pub escaped: bool,
    pub surrendered: bool,
}

/// May `viewer` (an account, or anyone without one) see game `id` — watch it, read its record,
/// learn where it is played? Anyone a public game; only its players a private one. `false` for a
/// game that does not exist, so that both get the same answer.
pub fn may_view_game(conn: &mut DbConn, id: i64, viewer: Option<i64>) -> AppResult<bool> {
    let public: Option<bool> =
        games::table.find(id).select(games::public).first(conn).optional()?;
    match (public, viewer) {
        (None, _) | (Some(false), None) => Ok(false),
        (Some(true), _) => Ok(true),
        (Some(false), Some(a)) => plays_in(conn, id, a),
    }
}

/// Does account `account` hold a seat in game `id`?
fn plays_in(conn: &mut DbConn, id: i64, account: i64) -> AppResult<bool> {
    let n: i64 = game_players::table
        .filter(game_players::game_id.eq(id).and(game_players::account_id.eq(account)))
        .count()
        .get_result(conn)?;
    Ok(n > 0)
}

/// Game `id` as `viewer` may see it: `not_found` for a private game of others, exactly as for a
/// game that does not exist.
pub fn load_game_for(conn: &mut DbConn, id: i64, viewer: Option<i64>) -> AppResult<LoadedGame> {
    let g = load_game(conn, id)?;
    let player = |a| g.players.iter().any(|p| p.account_id == Some(a));
    if g.public || viewer.is_some_and(player) {
        Ok(g)
    } else {
        Err(AppError::NotFound { what: "game" })
    }
}

pub fn load_game(conn: &mut DbConn, id: i64) -> AppResult<LoadedGame> {
    let row: Option<GameRow> = games::table.find(id).select(GAME_COLUMNS).first(conn).optional()?;
    let Some((
        id,
        kind,
        options,
        state,
        deps,
        result,
        created_at,
        started_at,
        finished_at,
        variant,
        public,
    )) = row
    else {
        return Err(AppError::NotFound { what: "game" });
    };
    let players = load_players(conn, id)?
        .into_iter()
        .map(|(seat, account_id, bot, escaped, surrendered, name, guest)| GamePlayer {
            seat,
            account_id,
            name,
            guest: guest.unwrap_or(false),
            bot,
            escaped,
            surrendered,
        })
        .collect();
    let deployments = match (state.as_str(), deps) {
        ("battle" | "finished", Some(d)) => Some(from_json(&d, "deployments")?),
        _ => None,
    };
    Ok(LoadedGame {
        id,
        kind,
        public,
        variant: parse_variant(&variant)?,
        options: from_json(&options, "options")?,
        deployments,
        result: result.map(|r| from_json(&r, "result")).transpose()?,
        created_at,
        started_at,
        finished_at,
        players,
        actions: if deployments_present(&state) { load_actions(conn, id)? } else { vec![] },
        state,
    })
}

fn deployments_present(state: &str) -> bool {
    matches!(state, "battle" | "finished")
}

/// (id, kind, state, result, seat, created, finished, escaped, surrendered, variant)
type ListRow = (
    i64,
    String,
    String,
    Option<String>,
    String,
    NaiveDateTime,
    Option<NaiveDateTime>,
    bool,
    bool,
    String,
);

/// One game in an account's list (`GET /api/me/games`, `/api/accounts/{name}/games`).
#[derive(Clone, Debug, Serialize)]
pub struct GameListItem {
    pub id: i64,
    pub kind: String,
    /// `four_player` or `hidden_front`
    pub variant: Variant,
    pub state: String,
    /// the account's first seat, and all of its seats (two under dual control)
    pub seat: String,
    pub seats: Vec<String>,
    pub result: Option<Status>,
    /// `win`, `loss`, `draw` or `ongoing` for the account's team
    pub team_result: Option<&'static str>,
    pub escaped: bool,
    pub surrendered: bool,
    pub created_at: NaiveDateTime,
    pub finished_at: Option<NaiveDateTime>,
    /// everyone at the table, by seat (names of bots are null)
    pub players: Vec<ListedPlayer>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ListedPlayer {
    pub seat: String,
    pub name: Option<String>,
    pub bot: Option<String>,
}

/// Games of an account, newest first (`before`: only ids below it), as `viewer` may see them:
/// the account itself all of them, anyone else the public ones and the private ones they played
/// in too.
pub fn list_games(
    conn: &mut DbConn,
    (account_id, viewer): (i64, Option<i64>),
    limit: i64,
    before: Option<i64>,
) -> AppResult<Vec<GameListItem>> {
    let mut q = game_players::table
        .inner_join(games::table)
        .filter(game_players::account_id.eq(account_id))
        .into_boxed();
    if let Some(b) = before {
        q = q.filter(games::id.lt(b));
    }
    if viewer != Some(account_id) {
        let theirs = diesel::alias!(game_players as viewer_seats);
        let shared = theirs
            .filter(theirs.field(game_players::account_id).eq(viewer))
            .select(theirs.field(game_players::game_id));
        q = q.filter(games::public.eq(true).or(games::id.eq_any(shared)));
    }
    let rows: Vec<ListRow> = q
        .order(games::id.desc())
        .limit(limit.clamp(1, 100) * 2)
        .select((
            games::id,
            games::kind,
            games::state,
            games::result,
            game_players::seat,
            games::created_at,
            games::finished_at,
            game_players::escaped,
            game_players::surrendered,
            games::variant,
        ))
        .load(conn)?;
    // group dual-control rows (two seats, one game)
    let mut out: Vec<GameListItem> = vec![];
    for (id, kind, state, result, seat, created_at, finished_at, escaped, surrendered, variant) in
        rows
    {
        if let Some(last) = out.last_mut().filter(|l| l.id == id) {
            last.seats.push(seat);
            continue;
        }
        if out.len() as i64 >= limit.clamp(1, 100) {
            break;
        }
        let result: Option<Status> = result.and_then(|r| serde_json::from_str(&r).ok());
        let s = seat_of(&seat)?;
        let team_result = result.map(|r| match r {
            Status::Won { winner, .. } if winner == s.team() => "win",
            Status::Won { .. } => "loss",
            Status::SeatWon { winner, .. } if winner == s => "win",
            Status::SeatWon { .. } => "loss",
            Status::Draw { .. } => "draw",
            Status::Ongoing => "ongoing",
        });
        let seats = vec![seat.clone()];
        out.push(GameListItem {
            id,
            kind,
            variant: parse_variant(&variant)?,
            state,
            seat,
            seats,
            result,
            team_result,
            escaped,
            surrendered,
            created_at,
            finished_at,
            players: vec![],
        });
    }
    add_players(conn, &mut out)?;
    Ok(out)
}

/// Fill in the players of each listed game (one query for the whole page), in seat order.
fn add_players(conn: &mut DbConn, out: &mut [GameListItem]) -> AppResult<()> {
    let ids: Vec<i64> = out.iter().map(|g| g.id).collect();
    let players: Vec<(i64, String, Option<String>, Option<String>)> = game_players::table
        .left_join(accounts::table.on(accounts::id.nullable().eq(game_players::account_id)))
        .filter(game_players::game_id.eq_any(&ids))
        .order((game_players::game_id, game_players::seat))
        .select((
            game_players::game_id,
            game_players::seat,
            accounts::username.nullable(),
            game_players::bot,
        ))
        .load(conn)?;
    for (game_id, seat, name, bot) in players {
        if let Some(g) = out.iter_mut().find(|g| g.id == game_id) {
            g.players.push(ListedPlayer { seat, name, bot });
        }
    }
    for g in out.iter_mut() {
        g.players.sort_by_key(|p| p.seat.chars().next().and_then(Seat::from_letter));
    }
    Ok(())
}

pub fn account_id_by_name(conn: &mut DbConn, name: &str) -> AppResult<i64> {
    accounts::table
        .filter(accounts::username_key.eq(crate::auth::password::username_key(name)))
        .select(accounts::id)
        .first(conn)
        .optional()?
        .ok_or(AppError::NotFound { what: "account" })
}

/// A saved formation of `account` for `variant`'s game (for `load_formation`); one saved for
/// the other game is `not_found`.
pub fn load_formation(
    conn: &mut DbConn,
    account: i64,
    variant: Variant,
    id: i64,
) -> AppResult<siguo_rules::Formation> {
    use crate::db::schema::formations;
    let data: Option<String> = formations::table
        .filter(formations::id.eq(id).and(formations::account_id.eq(account)))
        .filter(formations::variant.eq(variant.name()))
        .select(formations::data)
        .first(conn)
        .optional()?;
    from_json(&data.ok_or(AppError::NotFound { what: "formation" })?, "formation")
}
