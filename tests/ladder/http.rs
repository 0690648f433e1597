//! Leaderboards and profiles over HTTP (real server, real database, both backends): order,
//! ties, paging, "around me", profiles, and every bad input's error code.

use crate::support::ladder::*;
use crate::support::{error_code, spawn_app, Backend};
use serde_json::Value;
use siguo_rules::Seat;

async fn json(resp: reqwest::Response) -> Value {
    let (status, url) = (resp.status(), resp.url().clone());
    let body: Value = resp.json().await.unwrap_or(Value::Null);
    assert_eq!(status, 200, "{url}: {body}");
    body
}

fn names(v: &Value) -> Vec<String> {
    v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["username"].as_str().unwrap().to_string())
        .collect()
}

async fn leaderboard_order_ties_paging_me_and_profiles(backend: Backend) {
    let app = spawn_app(backend).await;
    // Accounts A..G registered in this order (ids ascending), each with its own logged-in client.
    let mut clients = vec![];
    let mut ids = vec![];
    let mut usernames = vec![];
    for p in ["la", "lb", "lc", "ld", "le", "lf", "lg"] {
        let (client, session) = app.new_account(p).await;
        ids.push(session["account"]["id"].as_i64().unwrap());
        usernames.push(session["account"]["username"].as_str().unwrap().to_string());
        clients.push(client);
    }
    let [a, b, c, d, e, f, g]: [i64; 7] = ids.clone().try_into().unwrap();
    with_db(&app.state().db, move |conn| {
        let duel = |x: i64, y: i64| [seat(x), seat(y), seat(x), seat(y)];
        play(conn, "ranked_dual", duel(a, e), NS_WINS); // A win, E loss
        let mut s = duel(d, f);
        s[Seat::E.index()].escaped = true;
        play(conn, "ranked_dual", s, NS_WINS); // D win, F escape
        play(conn, "ranked_dual", duel(b, c), DRAW);
        play(conn, "ranked_dual", duel(b, c), DRAW);
        play(conn, "ranked_dual", duel(b, g), DRAW);
        play(conn, "ranked_dual", duel(c, g), NS_WINS); // C win, G loss
        let mut s = duel(c, g);
        s[Seat::S.index()].escaped = true;
        play(conn, "ranked_dual", s, EW_WINS); // C escape, G win
        assert_buckets_consistent(conn);
    })
    .await;
    let n = |i: usize| usernames[i].clone();
    // G 4 pts; A, D 3 pts 1 win 0 esc (tie → account id); C 3 pts 1 win 1 esc; B 3 pts 0 wins; E 0; F −2
    let expected = vec![n(6), n(0), n(3), n(2), n(1), n(4), n(5)];

    // logged out, default paging
    let all = json(app.get("/api/leaderboard/ranked_dual").await).await;
    assert_eq!(names(&all), expected);
    assert_eq!(all["total"], 7);
    assert_eq!(all["page"], 1);
    assert_eq!(all["per_page"], 50);
    let ranks: Vec<i64> =
        all["rows"].as_array().unwrap().iter().map(|r| r["rank"].as_i64().unwrap()).collect();
    assert_eq!(ranks, vec![1, 2, 3, 4, 5, 6, 7]);
    let c_row = &all["rows"][3];
    assert_eq!(
        (
            c_row["points"].as_i64(),
            c_row["games"].as_i64(),
            c_row["wins"].as_i64(),
            c_row["draws"].as_i64(),
            c_row["losses"].as_i64(),
            c_row["surrenders"].as_i64(),
            c_row["escapes"].as_i64()
        ),
        (Some(3), Some(4), Some(1), Some(2), Some(0), Some(0), Some(1))
    );
    assert!(c_row.get("rating").is_none(), "the hidden rating is never shown");
    assert_eq!(all["rows"][6]["points"], -2);

    // paging
    let client = reqwest::Client::new();
    let page = |p: i64| {
        client.get(app.url(&format!("/api/leaderboard/ranked_dual?page={p}&per_page=3"))).send()
    };
    assert_eq!(names(&json(page(1).await.unwrap()).await), expected[0..3].to_vec());
    let p2 = json(page(2).await.unwrap()).await;
    assert_eq!(names(&p2), expected[3..6].to_vec());
    assert_eq!(p2["rows"][0]["rank"], 4);
    assert_eq!(names(&json(page(3).await.unwrap()).await), expected[6..7].to_vec());
    assert!(names(&json(page(4).await.unwrap()).await).is_empty());
    // the other ladder is empty
    let ranked = json(app.get("/api/leaderboard/ranked").await).await;
    assert_eq!(ranked["total"], 0);

    // around me: C is 4th → page 2 of 3-row pages
    let me = json(
        clients[2].get(app.url("/api/leaderboard/ranked_dual/me?per_page=3")).send().await.unwrap(),
    )
    .await;
    assert_eq!(me["me"]["rank"], 4);
    assert_eq!(me["me"]["username"], n(2));
    assert_eq!(me["page"], 2);
    assert_eq!(names(&me), expected[3..6].to_vec());
    // D (tied with A on everything) is 3rd, A 2nd
    let me = json(clients[3].get(app.url("/api/leaderboard/ranked_dual/me")).send().await.unwrap())
        .await;
    assert_eq!(me["me"]["rank"], 3);
    let me = json(clients[0].get(app.url("/api/leaderboard/ranked_dual/me")).send().await.unwrap())
        .await;
    assert_eq!(me["me"]["rank"], 2);
    // no ranked game yet: me is null, first page
    let me =
        json(clients[0].get(app.url("/api/leaderboard/ranked/me")).send().await.unwrap()).await;
    assert!(me["me"].is_null());
    assert_eq!(me["page"], 1);

    // profiles
    let prof = json(app.get(&format!("/api/profiles/{}", n(2).to_uppercase())).await).await;
    assert_eq!(prof["username"], n(2));
    assert!(prof["ranked"].is_null());
    assert_eq!(prof["ranked_dual"]["rank"], 4);
    assert_eq!(prof["ranked_dual"]["escapes"], 1);
    let recent = prof["recent_games"].as_array().unwrap();
    assert_eq!(recent.len(), 4);
    // most recent first: the escape, then the win, then two draws
    let outcomes: Vec<&str> = recent.iter().map(|r| r["outcome"].as_str().unwrap()).collect();
    assert_eq!(outcomes, vec!["escape", "win", "draw", "draw"]);
    let pts: Vec<i64> = recent.iter().map(|r| r["points"].as_i64().unwrap()).collect();
    assert_eq!(pts, vec![-2, 3, 1, 1]);
    assert_eq!(recent[0]["seats"], serde_json::json!(["N", "S"]));
    assert_eq!(recent[0]["kind"], "ranked_dual");
    let id = recent[0]["game_id"].as_i64().unwrap();
    assert_eq!(recent[0]["replay"], format!("/api/games/{id}"));

    // bad inputs
    for (path, status, code) in [
        ("/api/leaderboard/chess", 400, "unknown_ladder"),
        ("/api/leaderboard/ranked?per_page=0", 400, "invalid_paging"),
        ("/api/leaderboard/ranked?per_page=101", 400, "invalid_paging"),
        ("/api/leaderboard/ranked?page=0", 400, "invalid_paging"),
        ("/api/leaderboard/ranked?page=abc", 400, "invalid_query"),
        ("/api/leaderboard/ranked?sort=name", 400, "invalid_query"),
        ("/api/leaderboard/ranked/me", 401, "unauthorized"),
        ("/api/profiles/nobody_here", 404, "not_found"),
    ] {
        assert_eq!(
            error_code(client.get(app.url(path)).send().await.unwrap()).await,
            (status, code.to_string()),
            "{path}"
        );
    }
    // guests have no profile
    let (_, guest) = app.new_guest().await;
    let gname = guest["account"]["username"].as_str().unwrap();
    assert_eq!(
        error_code(app.get(&format!("/api/profiles/{gname}")).await).await,
        (404, "not_found".into())
    );
}

async fn casual_games_show_in_profiles_without_points(backend: Backend) {
    let app = spawn_app(backend).await;
    let mut names_ = vec![];
    let mut ids = vec![];
    for p in ["ca", "cb", "cc", "cd"] {
        let (_, s) = app.new_account(p).await;
        ids.push(s["account"]["id"].as_i64().unwrap());
        names_.push(s["account"]["username"].as_str().unwrap().to_string());
    }
    with_db(&app.state().db, move |conn| {
        let mut seats = [seat(ids[0]), seat(ids[1]), seat(ids[2]), seat(ids[3])];
        seats[Seat::S.index()].surrendered = true;
        play(conn, "casual", seats, NS_WINS);
    })
    .await;
    let prof = json(app.get(&format!("/api/profiles/{}", names_[2])).await).await;
    let g = &prof["recent_games"][0];
    assert_eq!(g["kind"], "casual");
    assert_eq!(g["outcome"], "surrender");
    assert!(g["points"].is_null());
    let prof = json(app.get(&format!("/api/profiles/{}", names_[0])).await).await;
    assert_eq!(prof["recent_games"][0]["outcome"], "win");
    assert!(prof["ranked"].is_null() && prof["ranked_dual"].is_null());
    assert_eq!(json(app.get("/api/leaderboard/ranked").await).await["total"], 0);
}

both_backends!(
    leaderboard_order_ties_paging_me_and_profiles,
    casual_games_show_in_profiles_without_points
);
