//! Hidden Front's rated ladder (`hf_ranked`) through real sockets: two accounts queue (HTTP),
//! are proposed a match, accept, deploy and play Hidden Front with its standard clocks to an
//! ending of each kind the ladder knows (a captured flag, no legal move, a draw by 100 quiet
//! steps, an agreed draw, a surrender, an escape, the third timeout); the ratings move as Glicko-2 says (computed
//! here from Glickman's formulas, apart from the server's code) and are applied once; the
//! leaderboard, the profile (titles, the rating history). The queue's own rules: guests refused,
//! no queueing twice or while seated, an unanswered proposal returns the other player to the
//! queue.

use crate::e2e::{accept_proposal, get_json, http_from, join_queue};
use crate::support;
use crate::support::ladder::with_db;
use crate::support::live::*;
use crate::support::{Backend, TestApp};
use serde_json::{json, Value};
use siguo_rules::{Formation, Rank};
use std::collections::BTreeMap;

// ---------- Glicko-2 from the paper (Glickman, "Example of the Glicko-2 system", steps 1–8)

/// One rating period for a player `(r, rd, σ)` who played `games` (opponent `(r_j, rd_j)`, score
/// `s_j`); τ = 0.5, ε = 1e-6. Returns the new `(r, rd, σ)`.
fn glicko2(me: (f64, f64, f64), games: &[((f64, f64), f64)]) -> (f64, f64, f64) {
    const Q: f64 = 173.7178;
    const TAU: f64 = 0.5;
    let (mu, phi, sigma) = ((me.0 - 1500.0) / Q, me.1 / Q, me.2);
    // steps 3 and 4: v and Δ over the games
    let (mut v_inv, mut improvement) = (0.0, 0.0);
    for &((r_j, rd_j), s) in games {
        let (mu_j, phi_j) = ((r_j - 1500.0) / Q, rd_j / Q);
        let g = (1.0 + 3.0 * phi_j.powi(2) / std::f64::consts::PI.powi(2)).powf(-0.5);
        let e = (1.0 + (-g * (mu - mu_j)).exp()).recip();
        v_inv += g.powi(2) * e * (1.0 - e);
        improvement += g * (s - e);
    }
    let v = v_inv.recip();
    let delta = v * improvement;
    // step 5: the new volatility (the Illinois algorithm)
    let a = sigma.powi(2).ln();
    let f = |x: f64| {
        let d = phi.powi(2) + v + x.exp();
        x.exp() * (delta.powi(2) - phi.powi(2) - v - x.exp()) / (2.0 * d.powi(2))
            - (x - a) / TAU.powi(2)
    };
    let mut lo = a;
    let mut hi = if delta.powi(2) > phi.powi(2) + v {
        (delta.powi(2) - phi.powi(2) - v).ln()
    } else {
        let mut k = 1.0;
        while f(a - k * TAU) < 0.0 {
            k += 1.0;
        }
        a - k * TAU
    };
    let (mut f_lo, mut f_hi) = (f(lo), f(hi));
    while (hi - lo).abs() > 1e-6 {
        let c = lo + (lo - hi) * f_lo / (f_hi - f_lo);
        let f_c = f(c);
        if f_c * f_hi <= 0.0 {
            (lo, f_lo) = (hi, f_hi);
        } else {
            f_lo /= 2.0;
        }
        (hi, f_hi) = (c, f_c);
    }
    // steps 6–8
    let sigma2 = (lo / 2.0).exp();
    let phi_star = (phi.powi(2) + sigma2.powi(2)).sqrt();
    let phi2 = (phi_star.powi(-2) + v.recip()).powf(-0.5);
    let mu2 = mu + phi2.powi(2) * improvement;
    (mu2 * Q + 1500.0, phi2 * Q, sigma2)
}

#[test]
fn the_reference_reproduces_the_papers_example() {
    let games = [((1400.0, 30.0), 1.0), ((1550.0, 100.0), 0.0), ((1700.0, 300.0), 0.0)];
    let (r, rd, sigma) = glicko2((1500.0, 200.0, 0.06), &games);
    assert!((r - 1464.06).abs() < 0.01 && (rd - 151.52).abs() < 0.01, "{r} {rd}");
    assert!((sigma - 0.05999).abs() < 0.00001, "{sigma}");
}

/// A player's rating as the server shows it in a game's `results`.
fn shown(r: &Value) -> (f64, f64) {
    (r["rating"]["rating"].as_f64().unwrap(), r["rating"]["rd"].as_f64().unwrap())
}

// ---------- two accounts through the queue

/// The two players of one `hf_ranked` game: `s` plays South, `n` North.
struct Pair {
    room: String,
    game: i64,
    s: Client,
    n: Client,
}

impl Pair {
    fn both(&mut self) -> [&mut Client; 2] {
        [&mut self.s, &mut self.n]
    }
}

/// A new account's client of a Hidden Front game (its frames are scanned for hidden ranks).
async fn hf_client(app: &TestApp, prefix: &str) -> Client {
    let mut c = Client::new(app, prefix).await;
    c.hidden_front = true;
    c
}

/// `match_found`, then the room: a Hidden Front game on the standard clocks, deploying.
async fn enter(c: &mut Client) -> (String, i64) {
    let m = c.next_of("match_found").await;
    assert_eq!(m["kind"], "hf_ranked");
    let seats = m["seats"].as_array().unwrap();
    assert_eq!(seats.len(), 1, "one seat each: {m}");
    c.seats = seats.iter().map(|s| s.as_str().unwrap().chars().next().unwrap()).collect();
    let room = m["room"].as_str().unwrap().to_string();
    c.act(json!({"type": "join_room", "room": room})).await.expect("join the rated room");
    let info = c.wait_for(|v| v["type"] == "room").await;
    assert_eq!(
        (info["kind"].as_str(), info["variant"].as_str()),
        (Some("hf_ranked"), Some("hidden_front"))
    );
    let o = &info["options"];
    let clocks =
        (o["deploy_seconds"].as_u64(), o["move_seconds"].as_u64(), o["reconnect_seconds"].as_u64());
    assert_eq!(clocks, (Some(90), Some(30), Some(60)), "the standard clocks, never shortened");
    let snap = c.wait_for(|v| v["type"] == "snapshot").await;
    assert_eq!(snap["phase"], "deploying");
    assert_eq!(my_seats(&snap), c.seats);
    (room, m["game"].as_i64().unwrap())
}

/// `a` and `b` queue from two addresses, are proposed one match, accept and enter its room.
async fn pair(app: &TestApp, mut a: Client, mut b: Client, ips: [[u8; 4]; 2]) -> Pair {
    // a rematch may seat them the other way round: the earlier game's frames are scanned now
    for c in [&mut a, &mut b] {
        c.assert_no_hidden_ranks();
        c.frames.clear();
    }
    assert_eq!(join_queue(app, &a, "hf_ranked", ips[0]).await["state"], "waiting");
    let st = join_queue(app, &b, "hf_ranked", ips[1]).await;
    assert_eq!(st["state"], "proposed", "{st}");
    assert_eq!(accept_proposal(&mut a, "hf_ranked").await["players"], 2);
    assert_eq!(accept_proposal(&mut b, "hf_ranked").await["players"], 2);
    let (room, game) = enter(&mut a).await;
    assert_eq!(enter(&mut b).await, (room.clone(), game));
    let (s, n) = if a.seats.contains(&'S') { (a, b) } else { (b, a) };
    assert_eq!((s.seats.len(), n.seats.iter().next()), (1, Some(&'N')));
    Pair { room, game, s, n }
}

/// Both confirm their deployments (`formations`: S's and N's, else the dealt ones); the battle
/// has begun on both when this returns.
async fn battle(p: &mut Pair, formations: Option<[&Formation; 2]>) {
    let room = p.room.clone();
    for (i, c) in p.both().into_iter().enumerate() {
        if let Some(f) = formations {
            let f = serde_json::to_value(f[i]).unwrap();
            c.act(json!({"type": "set_deployment", "room": room, "formation_data": f}))
                .await
                .expect("set_deployment");
        }
        c.act(json!({"type": "confirm", "room": room})).await.expect("confirm");
    }
    for c in p.both() {
        wait_battle(c).await;
    }
}

/// The update that showed game `game` over to `c` (it may have been read already, by `play`).
async fn over_of(c: &mut Client, game: i64) -> Value {
    let this = move |f: &Value| is_over(f) && f["game"].as_i64() == Some(game);
    match c.frames.iter().rev().find(|f| this(f)) {
        Some(f) => f.clone(),
        None => c.wait_for(this).await,
    }
}

/// The game's end as both players saw it: `status` on both, nobody escaped but `escaped`;
/// returns the `results` of the update that ended it (the same on both).
async fn ended(p: &mut Pair, status: Value, escaped: &[&str]) -> Value {
    let mut results = vec![];
    let game = p.game;
    for c in p.both() {
        let end = over_of(c, game).await;
        assert_ended(c, &end, status.clone(), escaped);
        c.assert_no_hidden_ranks();
        results.push(end["results"].clone());
    }
    assert!(results.windows(2).all(|w| w[0] == w[1]), "{results:?}");
    results.remove(0)
}

/// Every rating of `results` is Glicko-2's from `before` (S's and N's) with S's `score_s`, and
/// the outcomes are `outcomes` (S's, N's). Returns the new (rating, rd) of S and N.
fn check_ratings(
    results: &Value,
    before: [(f64, f64, f64); 2],
    score_s: f64,
    outcomes: [&str; 2],
) -> [(f64, f64, f64); 2] {
    let want_s = glicko2(before[0], &[((before[1].0, before[1].1), score_s)]);
    let want_n = glicko2(before[1], &[((before[0].0, before[0].1), 1.0 - score_s)]);
    for (seat, want, outcome) in [("S", want_s, outcomes[0]), ("N", want_n, outcomes[1])] {
        let r = &results[seat];
        assert_eq!(
            (r["outcome"].as_str(), r["points"].as_i64()),
            (Some(outcome), Some(0)),
            "{results}"
        );
        let (rating, rd) = shown(r);
        assert!(
            (rating - want.0).abs() < 1e-6 && (rd - want.1).abs() < 1e-6,
            "{seat}: {r} vs {want:?}"
        );
        assert_eq!(r["rating"]["provisional"], want.1 > 110.0);
    }
    [want_s, want_n]
}

const NEW: (f64, f64, f64) = (1500.0, 350.0, 0.06);

// ---------- moves

/// Stations holding a piece in `u`'s view.
fn occupied(u: &Value) -> Vec<String> {
    u["view"]["pieces"].as_object().map(|m| m.keys().cloned().collect()).unwrap_or_default()
}

/// Every legal move of the seat to move in `u` (`from`, `to`).
fn legal(u: &Value) -> Vec<(String, String)> {
    let mut out = vec![];
    for (from, tos) in u["legal_moves"].as_object().into_iter().flatten() {
        for to in tos.as_array().into_iter().flatten() {
            out.push((from.clone(), to.as_str().unwrap().to_string()));
        }
    }
    out
}

/// A quiet move (to an empty station) avoiding the stations of `avoid`, the `k`-th of them.
fn quiet(u: &Value, avoid: &[&str], k: usize) -> (String, String) {
    let full = occupied(u);
    let ok: Vec<(String, String)> = legal(u)
        .into_iter()
        .filter(|(f, t)| {
            !full.contains(t) && !avoid.contains(&f.as_str()) && !avoid.contains(&t.as_str())
        })
        .collect();
    assert!(!ok.is_empty(), "no quiet move in {u}");
    ok[k % ok.len()].clone()
}

/// The seat to move plays `mv`; returns when both have its update.
async fn play(p: &mut Pair, seat: char, mv: (String, String)) {
    let room = p.room.clone();
    let c = if seat == 'S' { &mut p.s } else { &mut p.n };
    let ack = c
        .act(json!({"type": "move", "room": room, "from": mv.0, "to": mv.1}))
        .await
        .unwrap_or_else(|e| panic!("{seat} {mv:?}: {e}"));
    let v = ack["v"].as_u64().unwrap();
    for c in p.both() {
        c.wait_for(move |m| m["type"] == "update" && m["v"].as_u64() == Some(v)).await;
    }
}

/// Whose turn it is and the state of that seat's client.
fn turn(p: &Pair) -> (char, Value) {
    let u = p.s.last_state();
    let t = u["view"]["turn"].as_str().and_then(|t| t.chars().next()).expect("a turn");
    let mine = if t == 'S' { p.s.last_state() } else { p.n.last_state() };
    (t, mine)
}

// ---------- the formations of the scripted games

/// A formation from (local station, rank) rows of hidden-front.md's notation (local row 1 the
/// front row; camps b2 d2 c3 b4 d4 stay empty).
fn formation(commander_at: &str, engineer_at: &str) -> Formation {
    use Rank::*;
    let mut f: BTreeMap<String, Rank> = [
        ("a1", Captain),
        ("b1", Captain),
        ("c1", Engineer),
        ("d1", Captain),
        ("e1", Lieutenant),
        ("a2", Major),
        ("c2", Engineer),
        ("e2", Major),
        ("a3", Colonel),
        ("b3", Colonel),
        ("d3", Brigadier),
        ("e3", Brigadier),
        ("a4", Division),
        ("c4", Engineer),
        ("e4", Division),
        ("a5", General),
        ("b5", Commander),
        ("c5", Lieutenant),
        ("d5", Lieutenant),
        ("e5", Mine),
        ("a6", Mine),
        ("b6", Bomb),
        ("c6", Bomb),
        ("d6", Flag),
        ("e6", Mine),
    ]
    .into_iter()
    .map(|(s, r)| (s.to_string(), r))
    .collect();
    f.insert(commander_at.into(), Commander);
    f.insert(engineer_at.into(), Engineer);
    Formation(f)
}

/// South's commander (local c1 = C7) walks up column C through North's engineers (C6, C5, C3),
/// the empty camp C4 and the lieutenants (C2, B2) to North's flag in B1.
const FLAG_RUN: [(&str, &str); 7] = [
    ("C7", "C6"),
    ("C6", "C5"),
    ("C5", "C4"),
    ("C4", "C3"),
    ("C3", "C2"),
    ("C2", "B2"),
    ("B2", "B1"),
];

/// South's formation of the no-legal-move game: its commander in a headquarters (it never
/// moves again), the flag in the other, the bombs in C12 and E12 walled in by the headquarters
/// and the mines of C11 and E11. Only the 18 other pieces (general to engineer) can move.
fn walled_in() -> Formation {
    use Rank::*;
    let rows = [
        ("a1", Engineer),
        ("b1", Lieutenant),
        ("c1", Captain),
        ("d1", Lieutenant),
        ("e1", Engineer),
        ("a2", Captain),
        ("c2", Major),
        ("e2", Captain),
        ("a3", Lieutenant),
        ("b3", Colonel),
        ("d3", Major),
        ("e3", Engineer),
        ("a4", Brigadier),
        ("c4", Colonel),
        ("e4", Brigadier),
        ("a5", Division),
        ("b5", General),
        ("c5", Mine),
        ("d5", Division),
        ("e5", Mine),
        ("a6", Mine),
        ("b6", Commander),
        ("c6", Bomb),
        ("d6", Flag),
        ("e6", Bomb),
    ];
    Formation(rows.into_iter().map(|(s, r)| (s.to_string(), r)).collect())
}

/// The row of a Hidden Front station (`"C7"` → 7).
fn row(station: &str) -> u8 {
    station[1..].parse().unwrap()
}

/// Steps from each station of South's half to C7 (its front crossing to C6), over the links,
/// around the stations South's immovable pieces of [`walled_in`] hold.
fn steps_to_c7() -> BTreeMap<String, u32> {
    use siguo_rules::Station;
    let walled = ["A12", "B12", "C12", "D12", "E12", "C11", "E11"];
    let mut dist = BTreeMap::from([("C7".to_string(), 0)]);
    let mut frontier = vec![Station::parse("C7").unwrap()];
    while let Some(st) = (!frontier.is_empty()).then(|| frontier.remove(0)) {
        let d = dist[st.name()];
        for n in st.neighbours() {
            let name = n.name().to_string();
            if row(&name) >= 7 && !walled.contains(&name.as_str()) && !dist.contains_key(&name) {
                dist.insert(name, d + 1);
                frontier.push(*n);
            }
        }
    }
    dist
}

/// South's move in `u`: throw a piece at C6 (North's commander) if one can reach it, else the
/// quiet move inside South's half that brings a piece nearest to C7.
fn sacrifice_or_advance(u: &Value, dist: &BTreeMap<String, u32>) -> (String, String) {
    let moves = legal(u);
    if let Some(mv) = moves.iter().find(|m| m.1 == "C6") {
        return mv.clone();
    }
    let full = occupied(u);
    let best = moves
        .into_iter()
        .filter(|(_, t)| row(t) >= 7 && !full.contains(t))
        .filter(|(f, t)| dist[t] < dist[f])
        .min_by_key(|(f, t)| (dist[t], dist[f], f.clone(), t.clone()));
    best.unwrap_or_else(|| panic!("South cannot come nearer to C6: {u}"))
}

/// (account, games, rating, rd) on `hf_ranked` of `ids`, as stored.
async fn hf_stats(app: &TestApp, ids: [i64; 2]) -> Vec<(i64, i32, f64, f64)> {
    with_db(&app.state().db, move |c| {
        use diesel::prelude::*;
        use siguo::db::schema::ladder_stats as ls;
        ls::table
            .filter(ls::ladder.eq("hf_ranked"))
            .filter(ls::account_id.eq_any(ids))
            .order(ls::account_id)
            .select((ls::account_id, ls::games, ls::rating, ls::rd))
            .load::<(i64, i32, f64, f64)>(c)
            .unwrap()
    })
    .await
}

// ---------- the tests

/// A server whose Hidden Front window is wide enough for two players rated apart by one game to
/// meet again at once (the tests' rematches).
async fn wide_window(backend: Backend) -> TestApp {
    support::spawn_app_with(backend, |c| c.ladder.hf_rating_window = 1000.0).await
}

async fn flag_capture_then_a_rematch_drawn_by_agreement(backend: Backend) {
    let app = wide_window(backend).await;
    let (a, b) = (hf_client(&app, "hfa").await, hf_client(&app, "hfb").await);
    let mut p = pair(&app, a, b, [[127, 0, 0, 61], [127, 0, 0, 62]]).await;
    // while the game is on, neither may queue again
    let r = http_from([127, 0, 0, 61])
        .post(app.url("/api/queue/hf_ranked"))
        .bearer_auth(&p.s.token)
        .send()
        .await
        .unwrap();
    assert_eq!(support::error_code(r).await, (409, "in_ranked_game".into()));
    let south = formation("c1", "b5");
    let north = formation("b5", "c1");
    battle(&mut p, Some([&south, &north])).await;
    let path: Vec<&str> = FLAG_RUN.iter().flat_map(|(a, b)| [*a, *b]).collect();
    for (k, (from, to)) in FLAG_RUN.iter().enumerate() {
        play(&mut p, 'S', (from.to_string(), to.to_string())).await;
        if k + 1 < FLAG_RUN.len() {
            let (t, u) = turn(&p);
            assert_eq!(t, 'N');
            play(&mut p, 'N', quiet(&u, &path, k)).await;
        }
    }
    let won = json!({"state": "won", "winner": "S", "reason": "flag_captured"});
    let results = ended(&mut p, won, &[]).await;
    let after = check_ratings(&results, [NEW, NEW], 1.0, ["win", "loss"]);
    let (s_id, n_id) = (p.s.account_id, p.n.account_id);

    // the profile: the rating, no title while provisional, the history's one point
    let prof = get_json(&app, &format!("/api/profiles/{}", p.s.name), None).await;
    let row = &prof["hf_ranked"];
    assert_eq!(
        (row["games"].as_i64(), row["wins"].as_i64(), row["rank"].as_i64()),
        (Some(1), Some(1), Some(0))
    );
    assert_eq!(
        (row["title"].clone(), row["rating"]["provisional"].clone()),
        (Value::Null, json!(true))
    );
    let hist = prof["rating_history"].as_array().unwrap();
    assert_eq!(hist.len(), 1);
    assert_eq!(
        (hist[0]["game_id"].as_i64(), hist[0]["outcome"].as_str()),
        (Some(p.game), Some("win"))
    );
    assert!((hist[0]["rating"].as_f64().unwrap() - after[0].0).abs() < 1e-6);
    assert_eq!(prof["recent_games"][0]["kind"], "hf_ranked");
    // not on the leaderboard before 10 games with a settled RD, but one's own row is there
    let board = get_json(&app, "/api/leaderboard/hf_ranked", None).await;
    assert_eq!(
        (board["total"].as_i64(), board["rows"].as_array().map(Vec::len)),
        (Some(0), Some(0))
    );
    let me = get_json(&app, "/api/leaderboard/hf_ranked/me", Some(&p.n.token)).await;
    assert_eq!(
        (me["me"]["account_id"].as_i64(), me["me"]["losses"].as_i64()),
        (Some(n_id), Some(1))
    );

    // the same two again (nobody else waits): a draw by agreement, rated from the new ratings
    let Pair { s, n, .. } = p;
    let mut q = pair(&app, s, n, [[127, 0, 0, 61], [127, 0, 0, 62]]).await;
    let before = after;
    let before = if q.s.account_id == s_id { before } else { [before[1], before[0]] };
    battle(&mut q, None).await;
    let room = q.room.clone();
    q.s.act(json!({"type": "offer_draw", "room": room})).await.expect("offer");
    q.n.wait_for(|m| {
        m["type"] == "update"
            && m["events"]
                .as_array()
                .is_some_and(|es| es.iter().any(|e| e["type"] == "draw_offered"))
    })
    .await;
    q.n.act(json!({"type": "accept_draw", "room": room})).await.expect("accept the draw");
    let results =
        ended(&mut q, json!({"state": "draw", "winner": null, "reason": "agreement"}), &[]).await;
    check_ratings(&results, before, 0.5, ["draw", "draw"]);
    // applied once: a restart changes nothing
    let first = hf_stats(&app, [s_id, n_id]).await;
    assert!(first.iter().all(|r| r.1 == 2), "{first:?}");
    let mut app = app;
    app.restart().await;
    assert_eq!(hf_stats(&app, [s_id, n_id]).await, first);
}

async fn surrender_and_escape_are_losses(backend: Backend) {
    let app = wide_window(backend).await;
    let (a, b) = (hf_client(&app, "hfs").await, hf_client(&app, "hfe").await);
    let mut p = pair(&app, a, b, [[127, 0, 0, 63], [127, 0, 0, 64]]).await;
    battle(&mut p, None).await;
    let room = p.room.clone();
    p.s.act(json!({"type": "surrender", "room": room})).await.expect("surrender");
    let won = json!({"state": "won", "winner": "N", "reason": "surrender"});
    let results = ended(&mut p, won, &[]).await;
    let after = check_ratings(&results, [NEW, NEW], 0.0, ["surrender", "win"]);
    let (s_id, n_id) = (p.s.account_id, p.n.account_id);

    // again: this time North leaves the battle (an escape, a loss)
    let Pair { s, n, .. } = p;
    let mut q = pair(&app, s, n, [[127, 0, 0, 63], [127, 0, 0, 64]]).await;
    let before = if q.s.account_id == s_id { after } else { [after[1], after[0]] };
    battle(&mut q, None).await;
    let room = q.room.clone();
    q.n.act(json!({"type": "leave_room", "room": room})).await.expect("leave");
    let end = over_of(&mut q.s, q.game).await;
    assert_ended(&q.s, &end, json!({"state": "won", "winner": "S", "reason": "surrender"}), &["N"]);
    check_ratings(&end["results"], before, 1.0, ["win", "escape"]);
    let board = get_json(&app, "/api/leaderboard/hf_ranked/me", Some(&q.n.token)).await;
    assert_eq!(board["me"]["games"].as_i64(), Some(2));
    let prof = get_json(&app, &format!("/api/profiles/{}", q.n.name), None).await;
    let outcomes: Vec<&str> = prof["rating_history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["outcome"].as_str().unwrap())
        .collect();
    let first = if q.n.account_id == n_id { "win" } else { "surrender" };
    assert_eq!(outcomes, vec![first, "escape"]);
}

async fn quiet_steps_draw_and_the_third_timeout(backend: Backend) {
    let app = wide_window(backend).await;
    let (a, b) = (hf_client(&app, "hfq").await, hf_client(&app, "hfw").await);
    let mut p = pair(&app, a, b, [[127, 0, 0, 65], [127, 0, 0, 66]]).await;
    battle(&mut p, None).await;
    // 100 steps without combat: a draw
    for k in 0..100 {
        let (t, u) = turn(&p);
        play(&mut p, t, quiet(&u, &[], k * 7 + 3)).await;
        if p.s.last_state()["view"]["status"]["state"] != "ongoing" {
            assert_eq!(k, 99, "the draw comes at the 100th quiet step");
        }
    }
    let results =
        ended(&mut p, json!({"state": "draw", "winner": null, "reason": "no_combat"}), &[]).await;
    let after = check_ratings(&results, [NEW, NEW], 0.5, ["draw", "draw"]);
    let s_id = p.s.account_id;

    // again: South never moves; its third 30 s timeout loses
    let Pair { s, n, .. } = p;
    let mut q = pair(&app, s, n, [[127, 0, 0, 65], [127, 0, 0, 66]]).await;
    let before = if q.s.account_id == s_id { after } else { [after[1], after[0]] };
    battle(&mut q, None).await;
    let mut k = 0;
    loop {
        let game = q.game;
        let u =
            q.n.wait_for(move |m| {
                m["type"] == "update" && m["view"].is_object() && m["game"].as_i64() == Some(game)
            })
            .await;
        if is_over(&u) {
            break;
        }
        if u["view"]["turn"] == "N" {
            k += 1;
            let room = q.room.clone();
            let mv = quiet(&u, &[], k);
            q.n.act(json!({"type": "move", "room": room, "from": mv.0, "to": mv.1}))
                .await
                .expect("move");
        }
    }
    let end = over_of(&mut q.s, q.game).await;
    assert_ended(&q.s, &end, json!({"state": "won", "winner": "N", "reason": "timeouts"}), &[]);
    assert_eq!(end["view"]["timeouts"]["S"], 3);
    check_ratings(&end["results"], before, 0.0, ["loss", "win"]);
}

/// South throws every movable piece at North's commander; once the last has died and North
/// has moved, South (its commander and flag in the headquarters, bombs walled in, mines) has no
/// legal move at the start of its turn: North wins, reason `no_legal_move`.
async fn no_legal_move_loses(backend: Backend) {
    let app = wide_window(backend).await;
    let (a, b) = (hf_client(&app, "hfn").await, hf_client(&app, "hfm").await);
    let mut p = pair(&app, a, b, [[127, 0, 0, 69], [127, 0, 0, 70]]).await;
    let north = formation("c1", "b5"); // its commander in C6, facing C7
    battle(&mut p, Some([&walled_in(), &north])).await;
    let dist = steps_to_c7();
    // North's quiet moves stay in its half and leave its commander where it is
    let south_half: Vec<String> = dist.keys().cloned().chain(["C6".to_string()]).collect();
    let avoid: Vec<&str> = south_half.iter().map(String::as_str).collect();
    let (mut attacks, mut k) = (0, 0);
    while p.s.last_state()["view"]["status"]["state"] == "ongoing" {
        let (t, u) = turn(&p);
        if t == 'N' {
            k += 1;
            play(&mut p, 'N', quiet(&u, &avoid, k)).await;
            continue;
        }
        assert!(attacks < 18, "South still has a move after its 18 pieces fell: {u}");
        let mv = sacrifice_or_advance(&u, &dist);
        play(&mut p, 'S', mv.clone()).await;
        if mv.1 == "C6" {
            // the attacker died, the commander held
            attacks += 1;
            let pieces = occupied(&p.s.last_state());
            assert!(pieces.contains(&"C6".to_string()) && !pieces.contains(&mv.0), "{mv:?}");
        }
        assert!(k < 300, "no end after {k} moves of North");
    }
    assert_eq!(attacks, 18, "every movable piece of South fell on C6");
    let won = json!({"state": "won", "winner": "N", "reason": "no_legal_move"});
    let results = ended(&mut p, won, &[]).await;
    // it ended when North's quiet move handed South a turn without a legal move
    let over = over_of(&mut p.s, p.game).await;
    let events: Vec<(&str, &str)> = over["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["type"].as_str().unwrap(), e["seat"].as_str().unwrap_or("")))
        .collect();
    assert_eq!(events, vec![("moved", "N"), ("game_over", "")], "{over}");
    assert_eq!(over["legal_moves"], json!({}), "{over}");
    check_ratings(&results, [NEW, NEW], 0.0, ["loss", "win"]);
}

async fn the_queue_refuses_guests_doubles_and_the_seated(backend: Backend) {
    let app = support::spawn_app_with(backend, |c| c.ladder.accept_ms = 1500).await;
    // a guest is asked to register
    let (g, _) = app.new_guest().await;
    let r = g.post(app.url("/api/queue/hf_ranked")).send().await.unwrap();
    assert_eq!(support::error_code(r).await, (403, "guest_not_allowed".into()));
    let mut a = hf_client(&app, "hfx").await;
    let mut b = hf_client(&app, "hfy").await;
    // queueing twice keeps one entry; another queue meanwhile is refused
    assert_eq!(join_queue(&app, &a, "hf_ranked", [127, 0, 0, 67]).await["state"], "waiting");
    let again = join_queue(&app, &a, "hf_ranked", [127, 0, 0, 67]).await;
    assert_eq!((again["state"].as_str(), again["waiting"].as_i64()), (Some("waiting"), Some(1)));
    let r = http_from([127, 0, 0, 67])
        .post(app.url("/api/queue/ranked"))
        .bearer_auth(&a.token)
        .send()
        .await
        .unwrap();
    assert_eq!(support::error_code(r).await, (409, "already_queued".into()));
    // one client address (here one IPv4 address) is never paired with itself
    let c = hf_client(&app, "hfz").await;
    assert_eq!(join_queue(&app, &c, "hf_ranked", [127, 0, 0, 67]).await["state"], "waiting");
    let r = http_from([127, 0, 0, 67])
        .delete(app.url("/api/queue/hf_ranked"))
        .bearer_auth(&c.token)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    // b is proposed with a; a accepts, b never answers: a is back in the queue, b is out
    let st = join_queue(&app, &b, "hf_ranked", [127, 0, 0, 68]).await;
    assert_eq!(st["state"], "proposed");
    let proposal = accept_proposal(&mut a, "hf_ranked").await;
    let cancelled = a.next_of("match_cancelled").await;
    assert_eq!(
        (cancelled["match_id"].clone(), cancelled["requeued"].clone()),
        (proposal["match_id"].clone(), json!(true))
    );
    assert_eq!(b.next_of("match_cancelled").await["requeued"], false);
    assert_eq!(get_json(&app, "/api/queue", Some(&a.token)).await["state"], "waiting");
    assert_eq!(get_json(&app, "/api/queue", Some(&b.token)).await["state"], "idle");
    // seated in a practice game (any game not over): no rated queue
    let r = http_from([127, 0, 0, 68])
        .delete(app.url("/api/queue/hf_ranked"))
        .bearer_auth(&a.token)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    b.act(json!({"type": "start_practice", "variant": "hidden_front"})).await.expect("practice");
    let r = http_from([127, 0, 0, 68])
        .post(app.url("/api/queue/hf_ranked"))
        .bearer_auth(&b.token)
        .send()
        .await
        .unwrap();
    assert_eq!(support::error_code(r).await, (409, "in_game".into()));
}

async fn the_leaderboard_by_rating_with_settled_players(backend: Backend) {
    let app = support::spawn_app(backend).await;
    // (name, games, rating, rd): only ≥ 10 games and RD ≤ 110 are listed, by rating
    let players = [
        ("hfl_top", 30, 2260.0, 60.0),
        ("hfl_mid", 10, 1510.0, 110.0),
        ("hfl_few", 9, 2400.0, 50.0),
        ("hfl_new", 40, 1700.0, 111.0),
        ("hfl_low", 12, 1190.0, 80.0),
    ];
    let players = players.map(|(name, games, rating, rd)| (name, games, rating, rd, 0.06));
    let ids: Vec<i64> = seed_hf(&app, players.into()).await.into_iter().map(|p| p.0).collect();
    let board = get_json(&app, "/api/leaderboard/hf_ranked?per_page=2", None).await;
    assert_eq!(board["total"], 3);
    let rows = board["rows"].as_array().unwrap();
    let got: Vec<(i64, i64, String)> = rows
        .iter()
        .map(|r| {
            (
                r["rank"].as_i64().unwrap(),
                r["account_id"].as_i64().unwrap(),
                r["title"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![(1, ids[0], "commander".into()), (2, ids[1], "battalion_commander".into())]
    );
    assert_eq!(rows[0]["rating"]["provisional"], false);
    let page2 = get_json(&app, "/api/leaderboard/hf_ranked?page=2&per_page=2", None).await;
    assert_eq!(page2["rows"][0]["account_id"].as_i64(), Some(ids[4]));
    assert_eq!(page2["rows"][0]["title"], "engineer");
    // the four-player ladders show points titles
    let four = get_json(&app, "/api/leaderboard/ranked", None).await;
    assert_eq!(four["total"], 0);
}

/// Insert `players` (name, games, rating, rd, volatility) on `hf_ranked` straight into
/// `ladder_stats` (recounting the leaderboard's buckets); returns their account ids and names.
async fn seed_hf(
    app: &TestApp,
    players: Vec<(&'static str, i32, f64, f64, f64)>,
) -> Vec<(i64, String)> {
    with_db(&app.state().db, move |c| {
        use diesel::prelude::*;
        use siguo::db::schema::ladder_stats as ls;
        let mut out = vec![];
        for (name, games, rating, rd, volatility) in players {
            let name = support::unique_name(name);
            let id = crate::support::ladder::account(c, &name, false);
            if games > 0 {
                diesel::insert_into(ls::table)
                    .values((
                        ls::account_id.eq(id),
                        ls::ladder.eq("hf_ranked"),
                        ls::games.eq(games),
                        ls::wins.eq(games),
                        ls::rating.eq(rating),
                        ls::rd.eq(rd),
                        ls::volatility.eq(volatility),
                    ))
                    .execute(c)
                    .unwrap();
            }
            out.push((id, name));
        }
        crate::support::ladder::rebuild_hf_buckets(c);
        out
    })
    .await
}

/// A Hidden Front rated game between accounts `s` and `n` recorded as live play records it.
async fn record_hf(app: &TestApp, s: i64, n: i64, status: siguo_rules::Status) {
    with_db(&app.state().db, move |c| {
        use crate::support::ladder::{hf_buckets, hf_buckets_from_stats, play, seat};
        use siguo_rules::Seat;
        let mut seats = [seat(0), seat(0), seat(0), seat(0)];
        for (i, x) in seats.iter_mut().enumerate() {
            x.account_id = match Seat::from_index(i) {
                Seat::S => Some(s),
                Seat::N => Some(n),
                _ => None,
            };
        }
        let (_, recorded) = play(c, "hf_ranked", seats, status);
        assert_eq!(recorded.applied.len(), 2, "{recorded:?}");
        assert_eq!(hf_buckets(c), hf_buckets_from_stats(c), "the buckets after the game");
    })
    .await
}

/// Every rank the server shows on `hf_ranked` (the pages, each player's profile) is the rank
/// computed here from `ladder_stats`: ≥ 10 games and RD ≤ 110, by rating, ties by account id.
async fn assert_hf_ranks(app: &TestApp, players: &[(i64, String)]) {
    let rows = with_db(&app.state().db, |c| {
        use diesel::prelude::*;
        use siguo::db::schema::ladder_stats as ls;
        ls::table
            .filter(ls::ladder.eq("hf_ranked"))
            .select((ls::account_id, ls::games, ls::rating, ls::rd))
            .load::<(i64, i32, f64, f64)>(c)
            .unwrap()
    })
    .await;
    let mut listed: Vec<(i64, f64)> =
        rows.iter().filter(|r| r.1 >= 10 && r.3 <= 110.0).map(|r| (r.0, r.2)).collect();
    listed.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let want: Vec<i64> = listed.iter().map(|r| r.0).collect();
    let mut got = vec![];
    for page in 1..=(want.len() as i64 + 2) / 3 + 1 {
        let url = format!("/api/leaderboard/hf_ranked?page={page}&per_page=3");
        let board = get_json(app, &url, None).await;
        assert_eq!(board["total"].as_i64(), Some(want.len() as i64), "{board}");
        for (k, r) in board["rows"].as_array().unwrap().iter().enumerate() {
            assert_eq!(r["rank"].as_i64(), Some((page - 1) * 3 + k as i64 + 1), "{board}");
            got.push(r["account_id"].as_i64().unwrap());
        }
    }
    assert_eq!(got, want, "the pages");
    for (id, name) in players {
        let prof = get_json(app, &format!("/api/profiles/{name}"), None).await;
        let rank = want.iter().position(|w| w == id).map_or(0, |i| i as i64 + 1);
        let shown = prof["hf_ranked"]["rank"].as_i64();
        assert!(shown == Some(rank) || (shown.is_none() && rank == 0), "{name}: {prof}");
    }
}

async fn hf_ranks_stay_exact_through_recorded_games(backend: Backend) {
    use siguo_rules::{DrawReason, Seat, Status, WinReason};
    let app = support::spawn_app(backend).await;
    let won = |winner| Status::SeatWon { winner, reason: WinReason::FlagCaptured };
    // (name, games, rating, rd, volatility); 0 games: no row yet
    let p = seed_hf(
        &app,
        vec![
            ("hfr_a", 30, 1600.0, 60.0, 0.06),
            ("hfr_b", 30, 1600.0, 60.0, 0.06), // a tie with a, behind it (a larger id)
            ("hfr_c", 12, 1600.5, 110.0, 0.06), // RD exactly 110: listed, bucket 1600
            ("hfr_d", 9, 1650.0, 100.0, 0.06), // 9 games: not yet listed
            ("hfr_e", 40, 1599.9999, 80.0, 0.06), // bucket 1599
            ("hfr_f", 50, 1700.0, 110.0, 0.5), // listed; a volatile RD about to grow
            ("hfr_g", 0, 0.0, 0.0, 0.0),       // new: 1500, RD 350
            ("hfr_h", 20, 1500.0, 110.0001, 0.06), // RD just above 110: not listed
        ],
    )
    .await;
    let id = |k: usize| p[k].0;
    assert_hf_ranks(&app, &p).await;
    // d's 10th game lists it; e loses and falls to another bucket
    record_hf(&app, id(3), id(4), won(Seat::S)).await;
    assert_hf_ranks(&app, &p).await;
    // f draws a newcomer: its RD grows above 110 and it leaves the leaderboard
    record_hf(&app, id(5), id(6), Status::Draw { reason: DrawReason::NoCombat }).await;
    let f = hf_stats(&app, [id(5), id(6)]).await;
    assert!(f[0].3 > 110.0 && f[0].1 == 51, "{f:?}");
    assert_hf_ranks(&app, &p).await;
    // the tie is broken by a game; h's RD settles below 110 and lists it
    record_hf(&app, id(1), id(0), won(Seat::S)).await;
    record_hf(&app, id(7), id(2), won(Seat::N)).await;
    let h = hf_stats(&app, [id(7), id(2)]).await;
    assert!(h.iter().all(|r| r.3 <= 110.0), "{h:?}");
    assert_hf_ranks(&app, &p).await;
}

both_backends!(
    flag_capture_then_a_rematch_drawn_by_agreement,
    surrender_and_escape_are_losses,
    the_queue_refuses_guests_doubles_and_the_seated,
    the_leaderboard_by_rating_with_settled_players,
    hf_ranks_stay_exact_through_recorded_games,
    no_legal_move_loses,
);

mod quiet_steps_draw_and_the_third_timeout {
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn sqlite() {
        super::quiet_steps_draw_and_the_third_timeout(super::Backend::Sqlite).await
    }
}
