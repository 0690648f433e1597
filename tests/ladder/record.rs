//! The points table, exactly-once recording and games that never count, against the real
//! database (SQLite and PostgreSQL). Games are written as live play writes them and finished
//! through the same transaction shape (final state + flags + `record_result`).

use crate::support::ladder::*;
use crate::support::{spawn_app, Backend};
use diesel::prelude::*;
use siguo::db::schema::games;
use siguo::ladder::{record_result, FinishedSeat, Outcome};
use siguo::live::finish::on_game_finished;
use siguo::live::protocol::SeatResult;
use siguo_rules::{DrawReason, Seat, Status};

/// Four fresh accounts.
fn four(c: &mut siguo::db::DbConn, tag: &str) -> [i64; 4] {
    [0, 1, 2, 3].map(|i| account(c, &format!("{tag}{i}"), false))
}

async fn every_row_of_the_points_table_in_ranked_games(backend: Backend) {
    let app = spawn_app(backend).await;
    with_db(&app.state().db, |c| {
        // plain win / loss: N,S (ids a0,a2) beat E,W
        let a = four(c, "plain");
        let (g, r) = play(c, "ranked", [seat(a[0]), seat(a[1]), seat(a[2]), seat(a[3])], NS_WINS);
        assert_eq!(r.applied.len(), 4);
        assert_eq!(result_of(c, g.game_id, a[0]), Some(("win".into(), 3)));
        assert_eq!(result_of(c, g.game_id, a[1]), Some(("loss".into(), 0)));
        assert_eq!(stats(c, a[0], "ranked"), Some((3, 1, 1, 0, 0, 0, 0)));
        assert_eq!(stats(c, a[2], "ranked"), Some((3, 1, 1, 0, 0, 0, 0)));
        assert_eq!(stats(c, a[1], "ranked"), Some((0, 1, 0, 0, 1, 0, 0)));
        assert_eq!(stats(c, a[3], "ranked"), Some((0, 1, 0, 0, 1, 0, 0)));

        // draw: +1 each
        let d = four(c, "draw");
        let (g, _) = play(
            c,
            "ranked",
            [seat(d[0]), seat(d[1]), seat(d[2]), seat(d[3])],
            Status::Draw { reason: DrawReason::Agreement },
        );
        for id in d {
            assert_eq!(result_of(c, g.game_id, id), Some(("draw".into(), 1)));
            assert_eq!(stats(c, id, "ranked"), Some((1, 1, 0, 1, 0, 0, 0)));
        }

        // surrender, then the partner wins: the surrenderer still gets surrender-loss (0)
        let s = four(c, "surr");
        let mut seats = [seat(s[0]), seat(s[1]), seat(s[2]), seat(s[3])];
        seats[Seat::N.index()].surrendered = true;
        let (g, _) = play(c, "ranked", seats, NS_WINS);
        assert_eq!(result_of(c, g.game_id, s[0]), Some(("surrender".into(), 0)));
        assert_eq!(result_of(c, g.game_id, s[2]), Some(("win".into(), 3)));
        assert_eq!(stats(c, s[0], "ranked"), Some((0, 1, 0, 0, 0, 1, 0)));
        assert_eq!(stats(c, s[2], "ranked"), Some((3, 1, 1, 0, 0, 0, 0)));

        // escape, then the partner wins: −2 and an escape-loss
        let e = four(c, "esc");
        let mut seats = [seat(e[0]), seat(e[1]), seat(e[2]), seat(e[3])];
        seats[Seat::W.index()].escaped = true;
        let (g, _) = play(c, "ranked", seats, EW_WINS);
        assert_eq!(result_of(c, g.game_id, e[3]), Some(("escape".into(), -2)));
        assert_eq!(result_of(c, g.game_id, e[1]), Some(("win".into(), 3)));
        assert_eq!(stats(c, e[3], "ranked"), Some((-2, 1, 0, 0, 0, 0, 1)));
        assert_eq!(stats(c, e[1], "ranked"), Some((3, 1, 1, 0, 0, 0, 0)));
        assert_eq!(stats(c, e[0], "ranked"), Some((0, 1, 0, 0, 1, 0, 0)));

        // both players of a team surrender
        let b = four(c, "both");
        let mut seats = [seat(b[0]), seat(b[1]), seat(b[2]), seat(b[3])];
        seats[Seat::E.index()].surrendered = true;
        seats[Seat::W.index()].surrendered = true;
        let (g, _) = play(c, "ranked", seats, NS_WINS);
        assert_eq!(result_of(c, g.game_id, b[1]), Some(("surrender".into(), 0)));
        assert_eq!(result_of(c, g.game_id, b[3]), Some(("surrender".into(), 0)));
        assert_eq!(result_of(c, g.game_id, b[0]), Some(("win".into(), 3)));
        assert_eq!(stats(c, b[1], "ranked"), Some((0, 1, 0, 0, 0, 1, 0)));

        // a second game accumulates: the escaper wins next time (−2 + 3 = 1)
        let (_, r) = play(c, "ranked", [seat(e[3]), seat(a[0]), seat(s[1]), seat(d[2])], NS_WINS);
        assert_eq!(r.applied.len(), 4);
        assert_eq!(stats(c, e[3], "ranked"), Some((1, 2, 1, 0, 0, 0, 1)));
        assert_eq!(stats(c, a[0], "ranked"), Some((3, 2, 1, 0, 1, 0, 0)));
        // nothing went to the other ladder
        assert_eq!(stats(c, a[0], "ranked_dual"), None);
        assert_buckets_consistent(c);
    })
    .await;
}

async fn dual_control_surrender_and_escape(backend: Backend) {
    let app = spawn_app(backend).await;
    with_db(&app.state().db, |c| {
        let x = account(c, "dualx", false);
        let y = account(c, "dualy", false);
        // plain dual win: one result row per account, not per seat
        let (g, r) = play(c, "ranked_dual", [seat(x), seat(y), seat(x), seat(y)], NS_WINS);
        assert_eq!(r.applied, vec![(x, Outcome::Win), (y, Outcome::Loss)]);
        assert_eq!(result_of(c, g.game_id, x), Some(("win".into(), 3)));
        assert_eq!(stats(c, x, "ranked_dual"), Some((3, 1, 1, 0, 0, 0, 0)));
        assert_eq!(stats(c, x, "ranked"), None);

        // x surrenders one of its seats (S), its other seat goes on and the team wins: surrender
        let mut seats = [seat(x), seat(y), seat(x), seat(y)];
        seats[Seat::S.index()].surrendered = true;
        let (g, _) = play(c, "ranked_dual", seats, NS_WINS);
        assert_eq!(result_of(c, g.game_id, x), Some(("surrender".into(), 0)));
        assert_eq!(result_of(c, g.game_id, y), Some(("loss".into(), 0)));
        assert_eq!(stats(c, x, "ranked_dual"), Some((3, 2, 1, 0, 0, 1, 0)));

        // y escapes with E while W plays on and wins: escape (−2)
        let mut seats = [seat(x), seat(y), seat(x), seat(y)];
        seats[Seat::E.index()].escaped = true;
        let (g, _) = play(c, "ranked_dual", seats, EW_WINS);
        assert_eq!(result_of(c, g.game_id, y), Some(("escape".into(), -2)));
        assert_eq!(result_of(c, g.game_id, x), Some(("loss".into(), 0)));
        assert_eq!(stats(c, y, "ranked_dual"), Some((-2, 3, 0, 0, 2, 0, 1)));

        // dual draw
        let (g, _) = play(c, "ranked_dual", [seat(x), seat(y), seat(x), seat(y)], DRAW);
        assert_eq!(result_of(c, g.game_id, x), Some(("draw".into(), 1)));
        assert_eq!(stats(c, y, "ranked_dual"), Some((-1, 4, 0, 1, 2, 0, 1)));
        assert_buckets_consistent(c);
    })
    .await;
}

async fn exactly_once_when_retried_or_interrupted(backend: Backend) {
    let app = spawn_app(backend).await;
    with_db(&app.state().db, |c| {
        let a = four(c, "once");
        let seats = [seat(a[0]), seat(a[1]), seat(a[2]), seat(a[3])];
        let g = start(c, "ranked", seats, NS_WINS, true);
        let game_id = g.game_id;

        // 1. interrupted: the finishing transaction writes everything, then fails → all rolled back
        let interrupted: Result<(), diesel::result::Error> = c.transaction(|c| {
            diesel::update(games::table.find(game_id))
                .set(games::state.eq("finished"))
                .execute(c)?;
            let r = record_result(c, &g).expect("record");
            assert_eq!(r.applied.len(), 4);
            Err(diesel::result::Error::RollbackTransaction)
        });
        assert!(interrupted.is_err());
        assert_eq!(ladder_rows(c), (0, 0, 0), "a rolled-back finish leaves no trace");
        let state: String = games::table.find(game_id).select(games::state).first(c).unwrap();
        assert_eq!(state, "battle");

        // 2. the retry applies it, and says what it applied
        let r = finish(c, &g).unwrap();
        assert_eq!(r.applied.len(), 4);
        let told: Vec<(i64, Outcome, i32)> =
            r.results.iter().map(|x| (x.account_id, x.outcome, x.points)).collect();
        let mut want = vec![
            (a[0], Outcome::Win, 3),
            (a[1], Outcome::Loss, 0),
            (a[2], Outcome::Win, 3),
            (a[3], Outcome::Loss, 0),
        ];
        want.sort_by_key(|w| w.0);
        assert_eq!(told, want);
        let first = r.results;
        let after_first = [0, 1, 2, 3].map(|i| stats(c, a[i], "ranked"));
        assert_eq!(after_first[0], Some((3, 1, 1, 0, 0, 0, 0)));

        // 3. retried again (e.g. the server restarted and re-finished the game): nothing changes,
        // and the same results are reported (per seat, as live play sends them)
        let r = finish(c, &g).unwrap();
        assert!(r.applied.is_empty());
        assert_eq!(r.results, first);
        let r = record_result(c, &g).unwrap();
        assert!(r.applied.is_empty());
        assert_eq!(r.results, first);
        let per_seat = on_game_finished(c, &g).unwrap().expect("a ranked game has results");
        let win =
            SeatResult { outcome: Outcome::Win, points: 3, rating: None, rating_change: None };
        let loss =
            SeatResult { outcome: Outcome::Loss, points: 0, rating: None, rating_change: None };
        assert_eq!(
            per_seat.into_iter().collect::<Vec<_>>(),
            [(Seat::N, win), (Seat::E, loss), (Seat::S, win), (Seat::W, loss)]
        );
        assert_eq!([0, 1, 2, 3].map(|i| stats(c, a[i], "ranked")), after_first);
        assert_eq!(ladder_rows(c).1, 4);

        // 4. a retry with a different story (the result changed?) cannot rewrite what was applied
        let mut other = g.clone();
        other.status = EW_WINS;
        let r = record_result(c, &other).unwrap();
        assert!(r.applied.is_empty());
        assert_eq!(r.results, first, "what was applied is reported, not the new story");
        assert_eq!(result_of(c, game_id, a[0]), Some(("win".into(), 3)));
        assert_buckets_consistent(c);
    })
    .await;
}

async fn casual_practice_guest_bot_and_unfinished_games_never_touch_the_ladder(backend: Backend) {
    let app = spawn_app(backend).await;
    with_db(&app.state().db, |c| {
        let a = four(c, "nc");
        let guest = account(c, "guest_nc", true);
        let all = || [seat(a[0]), seat(a[1]), seat(a[2]), seat(a[3])];
        // casual and practice, even with four accounts
        for kind in ["casual", "practice"] {
            let (g, r) = play(c, kind, all(), NS_WINS);
            assert_eq!(r.ladder, None, "{kind}");
            assert!(r.results.is_empty());
            assert_eq!(on_game_finished(c, &g).unwrap(), None, "{kind}: no results to send");
        }
        // a guest in a ranked game
        let mut seats = all();
        seats[1] = FinishedSeat { guest: true, ..seat(guest) };
        assert_eq!(play(c, "ranked", seats, NS_WINS).1.ladder, None);
        // a bot in a ranked game
        let mut seats = all();
        seats[3] = bot(Level::Greedy);
        assert_eq!(play(c, "ranked", seats, EW_WINS).1.ladder, None);
        // a bot in practice with an escape flag
        let mut seats = all();
        seats[0].escaped = true;
        seats[2] = bot(Level::Random);
        assert_eq!(play(c, "practice", seats, EW_WINS).1.ladder, None);
        // aborted during deployment
        let g = start(c, "ranked", all(), NS_WINS, false);
        assert_eq!(finish(c, &g).unwrap().ladder, None);
        // a dual game seated like a casual one (four accounts)
        assert_eq!(play(c, "ranked_dual", all(), NS_WINS).1.ladder, None);
        assert_eq!(ladder_rows(c), (0, 0, 0));
    })
    .await;
}

both_backends!(
    every_row_of_the_points_table_in_ranked_games,
    dual_control_surrender_and_escape,
    exactly_once_when_retried_or_interrupted,
    casual_practice_guest_bot_and_unfinished_games_never_touch_the_ladder,
);
