//! Database side of live play. Every accepted change is committed here before it is broadcast.
//!
//! `games.deployments` holds, while the game is `deploying`, the JSON of
//! `[{"deployment": Deployment, "confirmed": bool}, ...]` (so a restart keeps confirmed set-ups);
//! from the battle on, the JSON of `[Deployment, ...]` (the record's deployments). Both lists
//! have one entry per seat of the game's variant, in its order (`Variant::seats`: N E S W for
//! the four-player game, S N for Hidden Front); `games.variant` names the game.
use super::directory::Guard;
use super::finish::{self, FinishedGame};
use super::protocol::GameResults;
use super::{GameKind, SeatOccupant};
use crate::db::schema::{accounts, game_actions, game_players, games};
use crate::db::DbConn;
use crate::error::{AppError, AppResult};
use chrono::{NaiveDateTime, Utc};
use diesel::prelude::*;
use serde::{Deserialize, Serialize};
use siguo_rules::{Action, BySeat, Deployment, Options, Seat, Status, Variant};

fn now() -> NaiveDateTime {
    Utc::now().naive_utc()
}

fn to_json<T: Serialize + ?Sized>(v: &T) -> AppResult<String> {
    serde_json::to_string(v).map_err(AppError::internal)
}

fn from_json<T: for<'a> Deserialize<'a>>(s: &str, what: &str) -> AppResult<T> {
    serde_json::from_str(s).map_err(|e| AppError::internal(format!("stored {what}: {e}")))
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct DeploySeat {
    pub deployment: Deployment,
    pub confirmed: bool,
    /// surrendered during deployment: applied as soon as the battle starts
    #[serde(default)]
    pub surrendered: bool,
}

impl DeploySeat {
    /// The stand-in for a seat that does not play in the game's variant (Hidden Front's E and
    /// W): no pieces, confirmed; never stored nor sent.
    pub fn unused(seat: Seat) -> DeploySeat {
        DeploySeat {
            deployment: Deployment { seat, pieces: Default::default() },
            confirmed: true,
            surrendered: false,
        }
    }
}

/// The variant a stored name stands for (`games.variant`, `formations.variant`).
pub fn parse_variant(s: &str) -> AppResult<Variant> {
    serde_json::from_value(serde_json::Value::String(s.to_string()))
        .map_err(|_| AppError::internal(format!("bad variant {s:?}")))
}

/// The seats of `variant` and their values, in the variant's order.
pub fn in_variant_order<T: Clone>(variant: Variant, by: &BySeat<T>) -> Vec<T> {
    variant.seats().iter().map(|s| by[*s].clone()).collect()
}

/// Insert a new game in its deployment phase with its seats (those of `variant`); returns the id.
/// `public`: anyone may watch it and read its record ([`GameKind::open_to_all`]).
pub fn create_game(
    conn: &mut DbConn,
    (kind, public): (GameKind, bool),
    variant: Variant,
    options: &Options,
    seats: &BySeat<Option<SeatOccupant>>,
    deploying: &BySeat<DeploySeat>,
) -> AppResult<i64> {
    let options = to_json(options)?;
    let deps = deploying_json(variant, deploying)?;
    conn.transaction(|conn| {
        let id: i64 = diesel::insert_into(games::table)
            .values((
                games::kind.eq(kind.as_str()),
                games::public.eq(public),
                games::variant.eq(variant.name()),
                games::options.eq(&options),
                games::state.eq("deploying"),
                games::deployments.eq(Some(&deps)),
                games::created_at.eq(now()),
            ))
            .returning(games::id)
            .get_result(conn)?;
        for (seat, occ) in seats.iter() {
            let Some(occ) = occ else { continue };
            let (account, bot) = match occ {
                SeatOccupant::Account { account_id, .. } => (Some(*account_id), None),
                SeatOccupant::Bot { level } => (None, Some(level.name().to_string())),
            };
            diesel::insert_into(game_players::table)
                .values((
                    game_players::game_id.eq(id),
                    game_players::seat.eq(seat.letter().to_string()),
                    game_players::account_id.eq(account),
                    game_players::bot.eq(bot),
                    game_players::escaped.eq(false),
                    game_players::surrendered.eq(false),
                ))
                .execute(conn)?;
        }
        Ok(id)
    })
}

/// The stored form of the deployment phase: a JSON array in the variant's seat order.
fn deploying_json(variant: Variant, deploying: &BySeat<DeploySeat>) -> AppResult<String> {
    to_json(&in_variant_order(variant, deploying))
}

/// Save the deployment phase state (after a swap, a confirm, ...).
pub fn save_deploying(
    conn: &mut DbConn,
    game_id: i64,
    variant: Variant,
    deploying: &BySeat<DeploySeat>,
) -> AppResult<()> {
    let deps = deploying_json(variant, deploying)?;
    diesel::update(games::table.find(game_id))
        .set(games::deployments.eq(Some(deps)))
        .execute(conn)?;
    Ok(())
}

/// The battle starts with these deployments (the variant's seats, in its order).
pub fn start_battle(conn: &mut DbConn, game_id: i64, deployments: &[Deployment]) -> AppResult<()> {
    let deps = to_json(&deployments)?;
    diesel::update(games::table.find(game_id))
        .set((
            games::state.eq("battle"),
            games::deployments.eq(Some(deps)),
            games::started_at.eq(Some(now())),
        ))
        .execute(conn)?;
    Ok(())
}

/// A Hidden Front game that ended in its deployment phase (a player left without confirming;
/// the room waits for a new opponent): no result, nobody's record.
pub fn abort_game(conn: &mut DbConn, game_id: i64) -> AppResult<()> {
    diesel::update(games::table.find(game_id))
        .set((games::state.eq("aborted"), games::finished_at.eq(Some(now()))))
        .execute(conn)?;
    Ok(())
}

/// Mark a seat escaped.
pub fn mark_escaped(conn: &mut DbConn, game_id: i64, seat: Seat) -> AppResult<()> {
    diesel::update(game_players::table.find((game_id, seat.letter().to_string())))
        .set(game_players::escaped.eq(true))
        .execute(conn)?;
    Ok(())
}

/// Append battle actions (`first_seq`, `first_seq + 1`, ...) in one transaction; when the game is
/// over, also write its final state and call the finish hook in the same transaction, and
/// answer with the results it applied (a ranked game's; see [`finish::on_game_finished`]).
pub fn append_actions(
    conn: &mut DbConn,
    game_id: i64,
    first_seq: usize,
    actions: &[Action],
    finished: Option<&FinishedGame>,
) -> AppResult<Option<GameResults>> {
    conn.transaction(|conn| append_actions_in_tx(conn, game_id, first_seq, actions, finished))
}

/// [`append_actions`] for a caller that already holds a transaction (the group-commit writer):
/// no savepoint of its own.
pub fn append_actions_in_tx(
    conn: &mut DbConn,
    game_id: i64,
    first_seq: usize,
    actions: &[Action],
    finished: Option<&FinishedGame>,
) -> AppResult<Option<GameResults>> {
    for (i, a) in actions.iter().enumerate() {
        insert_action(conn, game_id, first_seq + i, a)?;
    }
    match finished {
        Some(f) => write_finished(conn, f),
        None => Ok(None),
    }
}

/// [`append_actions_in_tx`] behind a room's lease check ([`Guard`]). In a cluster (PostgreSQL)
/// the first action's insert carries the check: it inserts only if this node owns the game and
/// locks the game's row until the commit, as [`Guard::check`] does, in one round trip instead of
/// two. Nothing inserted: [`Guard::check`] names the owner (`moved`). On one node, no check.
pub fn append_actions_guarded(
    conn: &mut DbConn,
    guard: &Guard,
    (game_id, first_seq): (i64, usize),
    actions: &[Action],
    finished: Option<&FinishedGame>,
) -> AppResult<Option<GameResults>> {
    let (Some(node), Some(first), DbConn::Pg(pg)) = (guard.node(), actions.first(), &mut *conn)
    else {
        guard.check(conn, game_id)?;
        return append_actions_in_tx(conn, game_id, first_seq, actions, finished);
    };
    use diesel::sql_types::{BigInt, Integer, Text, Timestamp};
    let inserted = diesel::sql_query(
        "INSERT INTO game_actions (game_id, seq, action, created_at) \
         SELECT $1, $2, $3, $4 FROM games WHERE id = $1 AND node_id = $5 FOR UPDATE",
    )
    .bind::<BigInt, _>(game_id)
    .bind::<Integer, _>(first_seq as i32)
    .bind::<Text, _>(to_json(first)?)
    .bind::<Timestamp, _>(now())
    .bind::<Text, _>(node)
    .execute(pg)?;
    if inserted == 0 {
        guard.check(conn, game_id)?;
        return Err(AppError::internal(format!("game {game_id}: the action was not written")));
    }
    surrendered(conn, game_id, first)?;
    append_actions_in_tx(conn, game_id, first_seq + 1, &actions[1..], finished)
}

/// One action's row (and a surrender's mark on its seat).
fn insert_action(conn: &mut DbConn, game_id: i64, seq: usize, a: &Action) -> AppResult<()> {
    diesel::insert_into(game_actions::table)
        .values((
            game_actions::game_id.eq(game_id),
            game_actions::seq.eq(seq as i32),
            game_actions::action.eq(to_json(a)?),
            game_actions::created_at.eq(now()),
        ))
        .execute(conn)?;
    surrendered(conn, game_id, a)
}

/// A surrender marks its seat in `game_players`.
fn surrendered(conn: &mut DbConn, game_id: i64, a: &Action) -> AppResult<()> {
    if let Action::Surrender { seat } = a {
        diesel::update(game_players::table.find((game_id, seat.letter().to_string())))
            .set(game_players::surrendered.eq(true))
            .execute(conn)?;
    }
    Ok(())
}

fn write_finished(conn: &mut DbConn, f: &FinishedGame) -> AppResult<Option<GameResults>> {
    let result = to_json(&f.status)?;
    let state = if f.reached_battle { "finished" } else { "aborted" };
    diesel::update(games::table.find(f.game_id))
        .set((
            games::state.eq(state),
            games::result.eq(Some(result)),
            games::finished_at.eq(Some(now())),
        ))
        .execute(conn)?;
    for s in f.seats.values().filter(|s| s.account_id.is_some() || s.bot.is_some()) {
        diesel::update(game_players::table.find((f.game_id, s.seat.letter().to_string())))
            .set((game_players::escaped.eq(s.escaped), game_players::surrendered.eq(s.surrendered)))
            .execute(conn)?;
    }
    finish::on_game_finished(conn, f)
}

/// An unfinished game as stored.
#[derive(Clone, Debug)]
pub struct StoredGame {
    pub id: i64,
    pub kind: GameKind,
    pub variant: Variant,
    pub options: Options,
    /// anyone may watch it ([`GameKind::open_to_all`] of its room when it was made)
    pub public: bool,
    /// the variant's seats are filled, the others `None`
    pub seats: BySeat<Option<SeatOccupant>>,
    pub escaped: BySeat<bool>,
    pub stage: StoredStage,
}

/// Where an unfinished game stands.
#[derive(Clone, Debug)]
pub enum StoredStage {
    /// the deployment phase (the stored set-ups, if readable; unused seats as
    /// [`DeploySeat::unused`])
    Deploying(Option<BySeat<DeploySeat>>),
    Battle {
        /// the variant's seats, in its order
        deployments: Vec<Deployment>,
        actions: Vec<Action>,
    },
}

/// A `games` row as the room reads it ([`GAME_COLUMNS`], in that order; the cluster's
/// ownership columns are read by `crate::cluster` only).
const GAME_COLUMNS: (
    games::id,
    games::kind,
    games::options,
    games::state,
    games::deployments,
    games::result,
    games::created_at,
    games::started_at,
    games::finished_at,
    games::variant,
    games::public,
) = (
    games::id,
    games::kind,
    games::options,
    games::state,
    games::deployments,
    games::result,
    games::created_at,
    games::started_at,
    games::finished_at,
    games::variant,
    games::public,
);

type GameRow = (
    i64,
    String,
    String,
    String,
    Option<String>,
    Option<String>,
    NaiveDateTime,
    Option<NaiveDateTime>,
    Option<NaiveDateTime>,
    String,
    bool,
);

type PlayerRow = (String, Option<i64>, Option<String>, bool, bool, Option<String>, Option<bool>);

fn load_players(conn: &mut DbConn, game_id: i64) -> AppResult<Vec<PlayerRow>> {
    Ok(game_players::table
        .left_join(accounts::table.on(accounts::id.nullable().eq(game_players::account_id)))
        .filter(game_players::game_id.eq(game_id))
        .select((
            game_players::seat,
            game_players::account_id,
            game_players::bot,
            game_players::escaped,
            game_players::surrendered,
            accounts::username.nullable(),
            accounts::is_guest.nullable(),
        ))
        .load(conn)?)
}

fn load_actions(conn: &mut DbConn, game_id: i64) -> AppResult<Vec<Action>> {
    let rows: Vec<(i32, String)> = game_actions::table
        .filter(game_actions::game_id.eq(game_id))
        .order(game_actions::seq.asc())
        .select((game_actions::seq, game_actions::action))
        .load(conn)?;
    rows.iter()
        .enumerate()
        .map(|(i, (seq, a))| {
            if *seq as usize != i {
                return Err(AppError::internal(format!(
                    "game {game_id}: action log has a gap at {i}"
                )));
            }
            from_json(a, "action")
        })
        .collect()
}

fn seat_of(s: &str) -> AppResult<Seat> {
    s.chars()
        .next()
        .and_then(Seat::from_letter)
        .ok_or_else(|| AppError::internal(format!("bad seat {s:?}")))
}

/// Every game in `deploying` or `battle`.
pub fn load_unfinished(conn: &mut DbConn) -> AppResult<Vec<StoredGame>> {
    let rows: Vec<GameRow> = games::table
        .filter(games::state.eq_any(["deploying", "battle"]))
        .order(games::id.asc())
        .select(GAME_COLUMNS)
        .load(conn)?;
    let mut out = vec![];
    for row in rows {
        out.extend(stored_game(conn, row)?);
    }
    Ok(out)
}

/// Game `id` if it is in `deploying` or `battle` (cluster mode restores games one by one).
pub fn load_unfinished_game(conn: &mut DbConn, id: i64) -> AppResult<Option<StoredGame>> {
    let row: Option<GameRow> = games::table
        .find(id)
        .filter(games::state.eq_any(["deploying", "battle"]))
        .select(GAME_COLUMNS)
        .first(conn)
        .optional()?;
    Ok(match row {
        Some(row) => stored_game(conn, row)?,
        None => None,
    })
}

/// An unfinished game's row with its seats and log (`None`: it cannot be restored).
fn stored_game(conn: &mut DbConn, row: GameRow) -> AppResult<Option<StoredGame>> {
    let (id, kind, options, state, deps, _, _, _, _, variant, public) = row;
    let variant = parse_variant(&variant)?;
    let players = load_players(conn, id)?;
    let mut seats: BySeat<Option<SeatOccupant>> = BySeat::default();
    let mut escaped: BySeat<bool> = BySeat::default();
    for (seat, account, bot, esc, _, name, guest) in players {
        let s = seat_of(&seat)?;
        escaped[s] = esc;
        seats[s] = Some(match (account, bot) {
            (Some(account_id), _) => SeatOccupant::Account {
                account_id,
                name: name.unwrap_or_default(),
                guest: guest.unwrap_or(false),
            },
            (None, Some(b)) => SeatOccupant::Bot { level: b.parse().map_err(AppError::internal)? },
            (None, None) => return Err(AppError::internal(format!("game {id}: empty seat"))),
        });
    }
    if variant.seats().iter().any(|s| seats[*s].is_none()) {
        return Err(AppError::internal(format!("game {id}: missing seat")));
    }
    let stage = match (state.as_str(), deps) {
        ("deploying", d) => {
            let stored: Option<Vec<DeploySeat>> =
                d.map(|d| from_json(&d, "deploying")).transpose()?;
            let all = stored
                .filter(|v| v.len() == variant.seats().len())
                .map(|v| by_variant_seat(variant, v, DeploySeat::unused));
            StoredStage::Deploying(all)
        }
        (_, Some(d)) => StoredStage::Battle {
            deployments: from_json(&d, "deployments")?,
            actions: load_actions(conn, id)?,
        },
        (_, None) => {
            tracing::error!(game = id, "cannot restore: battle without deployments");
            return Ok(None);
        }
    };
    Ok(Some(StoredGame {
        id,
        variant,
        kind: GameKind::parse(&kind)
            .ok_or_else(|| AppError::internal(format!("bad kind {kind}")))?,
        options: from_json(&options, "options")?,
        public,
        seats,
        escaped,
        stage,
    }))
}

/// A list in the variant's seat order as a `BySeat`, `unused` for the other seats.
fn by_variant_seat<T>(variant: Variant, v: Vec<T>, unused: impl Fn(Seat) -> T) -> BySeat<T> {
    let mut slots: BySeat<Option<T>> = BySeat::default();
    for (s, x) in variant.seats().iter().zip(v) {
        slots[*s] = Some(x);
    }
    BySeat::from_fn(|s| slots[s].take().unwrap_or_else(|| unused(s)))
}

// ---- replays and history ----

mod reads;
pub use reads::*;
