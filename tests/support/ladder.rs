//! Helpers for the ladder tests: accounts and finished games written straight into the real
//! database of a running test server, then handed to `record_result` as live play does.
#![allow(dead_code)]
use diesel::prelude::*;
use siguo::db::schema::{
    game_players, games, ladder_point_counts, ladder_rating_counts, ladder_results, ladder_stats,
};
use siguo::db::DbConn;
use siguo::error::AppResult;
use siguo::ladder::record::Recorded;
use siguo::ladder::{record_result, FinishedGame, FinishedSeat};
use siguo::live::GameKind;
pub use siguo_bots::Level;
use siguo_rules::{DrawReason, Seat, Status, Team, WinReason};
use std::collections::BTreeMap;

pub const NS_WINS: Status = Status::Won { winner: Team::NS, reason: WinReason::Elimination };
pub const EW_WINS: Status = Status::Won { winner: Team::EW, reason: WinReason::Elimination };
pub const DRAW: Status = Status::Draw { reason: DrawReason::StepLimit };

pub fn account(conn: &mut DbConn, name: &str, guest: bool) -> i64 {
    let hash = if guest { None } else { Some("$argon2id$not-a-real-hash") };
    siguo::db::accounts::insert(conn, name, &name.to_lowercase(), hash, guest)
        .expect("insert account")
        .id
}

/// An account's seat (the seat letter is set from the position in the array by `insert_game`).
pub fn seat(id: i64) -> FinishedSeat {
    FinishedSeat {
        seat: Seat::N,
        account_id: Some(id),
        guest: false,
        bot: None,
        escaped: false,
        surrendered: false,
    }
}

/// A bot's seat.
pub fn bot(level: Level) -> FinishedSeat {
    FinishedSeat { account_id: None, bot: Some(level), ..seat(0) }
}

/// `kind` as live play's enum.
pub fn kind_of(kind: &str) -> GameKind {
    GameKind::parse(kind).expect("game kind")
}

/// Insert the game row (still `battle`) and its seats, as live play does when a game starts.
pub fn insert_game(conn: &mut DbConn, kind: &str, seats: &mut [FinishedSeat; 4]) -> i64 {
    for (i, s) in seats.iter_mut().enumerate() {
        s.seat = Seat::from_index(i);
    }
    let now = chrono::Utc::now().naive_utc();
    diesel::insert_into(games::table)
        .values((
            games::kind.eq(kind),
            // as a public room's game (a practice game is private)
            games::public.eq(kind_of(kind).open_to_all(true)),
            games::options.eq("{}"),
            games::state.eq("battle"),
            games::created_at.eq(now),
            games::started_at.eq(Some(now)),
        ))
        .execute(conn)
        .unwrap();
    let id: i64 = games::table
        .select(diesel::dsl::max(games::id))
        .first::<Option<i64>>(conn)
        .unwrap()
        .unwrap();
    for s in Seat::ALL {
        let r = &seats[s.index()];
        diesel::insert_into(game_players::table)
            .values((
                game_players::game_id.eq(id),
                game_players::seat.eq(s.letter().to_string()),
                game_players::account_id.eq(r.account_id),
                game_players::bot.eq(r.bot.map(|l| l.name())),
            ))
            .execute(conn)
            .unwrap();
    }
    id
}

/// The game-finish transaction of live play: final state + flags + the ladder, all or nothing.
pub fn finish(conn: &mut DbConn, g: &FinishedGame) -> AppResult<Recorded> {
    conn.transaction(|c| {
        diesel::update(games::table.find(g.game_id))
            .set((
                games::state.eq("finished"),
                games::result.eq(Some(serde_json::to_string(&g.status).unwrap())),
                games::finished_at.eq(Some(chrono::Utc::now().naive_utc())),
            ))
            .execute(c)?;
        for s in Seat::ALL {
            let r = &g.seats[s];
            diesel::update(game_players::table.find((g.game_id, s.letter().to_string())))
                .set((
                    game_players::surrendered.eq(r.surrendered),
                    game_players::escaped.eq(r.escaped),
                ))
                .execute(c)?;
        }
        record_result(c, g)
    })
}

/// Insert the game (as [`insert_game`]) and describe how it is to finish.
pub fn start(
    conn: &mut DbConn,
    kind: &str,
    mut seats: [FinishedSeat; 4],
    status: Status,
    reached_battle: bool,
) -> FinishedGame {
    let game_id = insert_game(conn, kind, &mut seats);
    FinishedGame { game_id, kind: kind_of(kind), seats: seats.into(), status, reached_battle }
}

/// Insert and finish a game in one go.
pub fn play(
    conn: &mut DbConn,
    kind: &str,
    seats: [FinishedSeat; 4],
    status: Status,
) -> (FinishedGame, Recorded) {
    let g = start(conn, kind, seats, status, true);
    let r = finish(conn, &g).expect("finish");
    (g, r)
}

/// (points, games, wins, draws, losses, surrenders, escapes) of an account, if it has a row.
pub type Stats = (i32, i32, i32, i32, i32, i32, i32);

pub fn stats(conn: &mut DbConn, id: i64, ladder: &str) -> Option<Stats> {
    ladder_stats::table
        .filter(ladder_stats::account_id.eq(id))
        .filter(ladder_stats::ladder.eq(ladder))
        .select((
            ladder_stats::points,
            ladder_stats::games,
            ladder_stats::wins,
            ladder_stats::draws,
            ladder_stats::losses,
            ladder_stats::surrenders,
            ladder_stats::escapes,
        ))
        .first(conn)
        .optional()
        .unwrap()
}

/// (outcome, points) recorded for (game, account).
pub fn result_of(conn: &mut DbConn, game_id: i64, id: i64) -> Option<(String, i32)> {
    ladder_results::table
        .find((game_id, id))
        .select((ladder_results::outcome, ladder_results::points))
        .first(conn)
        .optional()
        .unwrap()
}

/// Rows in the three ladder tables.
pub fn ladder_rows(conn: &mut DbConn) -> (i64, i64, i64) {
    (
        ladder_stats::table.count().get_result(conn).unwrap(),
        ladder_results::table.count().get_result(conn).unwrap(),
        ladder_point_counts::table
            .filter(ladder_point_counts::n.ne(0))
            .count()
            .get_result(conn)
            .unwrap(),
    )
}

/// The bucket table agrees with ladder_stats (the invariant the leaderboard relies on).
pub fn assert_buckets_consistent(conn: &mut DbConn) {
    for ladder in ["ranked", "ranked_dual"] {
        let mut from_stats: Vec<(i32, i64)> = ladder_stats::table
            .filter(ladder_stats::ladder.eq(ladder))
            .group_by(ladder_stats::points)
            .select((ladder_stats::points, diesel::dsl::count_star()))
            .load(conn)
            .unwrap();
        let mut buckets: Vec<(i32, i64)> = ladder_point_counts::table
            .filter(ladder_point_counts::ladder.eq(ladder))
            .filter(ladder_point_counts::n.ne(0))
            .select((ladder_point_counts::points, ladder_point_counts::n))
            .load(conn)
            .unwrap();
        from_stats.sort();
        buckets.sort();
        assert_eq!(from_stats, buckets, "ladder_point_counts out of step for {ladder}");
    }
}

/// Hidden Front's leaderboard buckets as `ladder_stats` says they should be: players with at
/// least 10 games and RD at most 110 (ladder.md) per floor of the rating, computed here.
pub fn hf_buckets_from_stats(conn: &mut DbConn) -> Vec<(i32, i64)> {
    let rows: Vec<(i32, f64, f64)> = ladder_stats::table
        .filter(ladder_stats::ladder.eq("hf_ranked"))
        .select((ladder_stats::games, ladder_stats::rating, ladder_stats::rd))
        .load(conn)
        .unwrap();
    let mut n: BTreeMap<i32, i64> = BTreeMap::new();
    for (games, rating, rd) in rows {
        if games >= 10 && rd <= 110.0 {
            *n.entry(rating.floor() as i32).or_default() += 1;
        }
    }
    n.into_iter().collect()
}

/// Hidden Front's buckets as stored (`ladder_rating_counts`, empty ones left out).
pub fn hf_buckets(conn: &mut DbConn) -> Vec<(i32, i64)> {
    ladder_rating_counts::table
        .filter(ladder_rating_counts::ladder.eq("hf_ranked"))
        .filter(ladder_rating_counts::n.ne(0))
        .order(ladder_rating_counts::bucket)
        .select((ladder_rating_counts::bucket, ladder_rating_counts::n))
        .load(conn)
        .unwrap()
}

/// Recount Hidden Front's buckets after rows were written straight into `ladder_stats`.
pub fn rebuild_hf_buckets(conn: &mut DbConn) {
    diesel::delete(
        ladder_rating_counts::table.filter(ladder_rating_counts::ladder.eq("hf_ranked")),
    )
    .execute(conn)
    .unwrap();
    for (bucket, n) in hf_buckets_from_stats(conn) {
        diesel::insert_into(ladder_rating_counts::table)
            .values((
                ladder_rating_counts::ladder.eq("hf_ranked"),
                ladder_rating_counts::bucket.eq(bucket),
                ladder_rating_counts::n.eq(n),
            ))
            .execute(conn)
            .unwrap();
    }
}

/// Run blocking database work on the test server's pool; panics inside propagate as-is.
pub async fn with_db<R: Send + 'static>(
    db: &siguo::db::Db,
    f: impl FnOnce(&mut DbConn) -> R + Send + 'static,
) -> R {
    let pool = db.pool.clone();
    tokio::task::spawn_blocking(move || {
        let mut c = pool.get().expect("db connection");
        f(&mut c)
    })
    .await
    .unwrap_or_else(|e| std::panic::resume_unwind(e.into_panic()))
}
