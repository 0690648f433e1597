//! Fair ranked queues (issue 19, finding 9), black-box through the real server on both
//! backends: an entry lives only while its player has a socket (dropped after the grace, kept
//! if a socket comes back in time); a match is proposed and must be accepted by all; a decline
//! or a timeout sends the others back to the front of the queue and removes the no-show;
//! repeated no-shows get a cooldown; acceptance by all creates exactly one game.

use crate::e2e::{accept_proposal, enter_match, get_json, http_from, join_queue};
use crate::support::live::*;
use crate::support::{error_code, spawn_app_with, Backend, TestApp};
use serde_json::{json, Value};
use std::time::Duration;

/// Poll `GET /api/queue` with `token` until `done` holds (the server decides when; this only
/// waits).
async fn queue_until(app: &TestApp, token: &str, done: impl Fn(&Value) -> bool) -> Value {
    let wait = async {
        loop {
            let st = get_json(app, "/api/queue", Some(token)).await;
            if done(&st) {
                return st;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(60), wait).await.expect("queue status never came")
}

async fn an_entry_lives_only_while_a_socket_is_connected(backend: Backend) {
    let app = spawn_app_with(backend, |c| {
        c.ladder.tick_ms = 50;
        c.ladder.queue_disconnect_grace_ms = 1500;
    })
    .await;
    let a = Client::new(&app, "fa").await;
    let b = Client::new(&app, "fb").await;
    let stays = Client::new(&app, "fw").await;
    // ranked needs four: nobody is matched here
    let a_since = join_queue(&app, &a, "ranked", [127, 0, 0, 71]).await["since"].clone();
    join_queue(&app, &b, "ranked", [127, 0, 0, 72]).await;
    join_queue(&app, &stays, "ranked", [127, 0, 0, 73]).await;
    // a's socket closes and a new one connects at once: a keeps its place
    let who_a = (a.name.clone(), a.account_id, a.token.clone());
    a.close().await;
    let a = Client::connect(&app, &who_a).await;
    // b's only socket closes for good: b's entry is dropped after the grace
    let b_token = b.token.clone();
    b.close().await;
    queue_until(&app, &b_token, |s| s["state"] == "idle").await;
    // a, whose socket came back within the grace, still waits with its original time
    let st = get_json(&app, "/api/queue", Some(&a.token)).await;
    assert_eq!((st["state"].as_str(), &st["since"]), (Some("waiting"), &a_since), "{st}");
    assert_eq!(st["waiting"], 2, "a and the one who never left");
    assert_eq!(get_json(&app, "/api/queue", Some(&stays.token)).await["state"], "waiting");
}

/// Two accounts from different addresses queue for `ranked_dual` (`first` has waited longer);
/// both get the proposal. Returns it and when `first` started waiting.
async fn proposed_pair(
    app: &TestApp,
    first: &mut Client,
    second: &mut Client,
    ips: [u8; 2],
) -> (Value, Value) {
    let since = join_queue(app, first, "ranked_dual", [127, 0, 0, ips[0]]).await["since"].clone();
    let st = join_queue(app, second, "ranked_dual", [127, 0, 0, ips[1]]).await;
    assert_eq!(st["state"], "proposed", "{st}");
    let p = first.next_of("match_proposed").await;
    assert_eq!(second.next_of("match_proposed").await["match_id"], p["match_id"]);
    assert_eq!((p["ladder"].as_str(), p["players"].as_i64()), (Some("ranked_dual"), Some(2)));
    (p, since)
}

async fn a_decline_requeues_the_others_in_front_and_all_accepting_makes_one_game(backend: Backend) {
    let app = spawn_app_with(backend, |c| c.ladder.tick_ms = 50).await;
    let mut a = Client::new(&app, "da").await;
    let mut b = Client::new(&app, "db").await;
    let (p, a_since) = proposed_pair(&app, &mut a, &mut b, [81, 82]).await;
    let id = p["match_id"].clone();
    let st = get_json(&app, "/api/queue", Some(&a.token)).await;
    assert_eq!((st["state"].as_str(), &st["match_id"]), (Some("proposed"), &id));
    a.act(json!({"type": "accept_match", "match_id": id})).await.expect("accept");
    // accepting twice is harmless; a match one is not part of, or that does not exist: not_found
    a.act(json!({"type": "accept_match", "match_id": id})).await.expect("accept again");
    let mut stranger = Client::new(&app, "ds").await;
    stranger.expect_err(json!({"type": "accept_match", "match_id": id}), "not_found").await;
    stranger.expect_err(json!({"type": "decline_match", "match_id": 999_999}), "not_found").await;
    // joining again while a match is proposed is refused and changes nothing
    let r = http_from([127, 0, 0, 82])
        .post(app.url("/api/queue/ranked_dual"))
        .bearer_auth(&b.token)
        .send()
        .await
        .unwrap();
    assert_eq!(error_code(r).await, (409, "match_pending".into()));

    b.act(json!({"type": "decline_match", "match_id": id})).await.expect("decline");
    let ca = a.next_of("match_cancelled").await;
    assert_eq!((ca["reason"].as_str(), ca["requeued"].as_bool()), (Some("declined"), Some(true)));
    let cb = b.next_of("match_cancelled").await;
    assert_eq!(cb["requeued"], false);
    assert_eq!(get_json(&app, "/api/queue", Some(&b.token)).await["state"], "idle");
    let st = get_json(&app, "/api/queue", Some(&a.token)).await;
    assert_eq!((st["state"].as_str(), &st["since"]), (Some("waiting"), &a_since), "its wait kept");
    // the proposal is gone
    a.expect_err(json!({"type": "accept_match", "match_id": id}), "not_found").await;

    // a is matched again with the next one to come
    let mut c = Client::new(&app, "dc").await;
    let mut d = Client::new(&app, "dd").await;
    let st = join_queue(&app, &c, "ranked_dual", [127, 0, 0, 83]).await;
    assert_eq!(st["state"], "proposed", "a and c: {st}");
    join_queue(&app, &d, "ranked_dual", [127, 0, 0, 84]).await;
    let pa = accept_proposal(&mut a, "ranked_dual").await;
    let pc = accept_proposal(&mut c, "ranked_dual").await;
    assert_eq!(pa["match_id"], pc["match_id"]);
    assert_ne!(pa["match_id"], id);
    let (room_a, game_a) = enter_match(&mut a, "ranked_dual", 2).await;
    let (room_c, game_c) = enter_match(&mut c, "ranked_dual", 2).await;
    assert_eq!((&room_a, game_a), (&room_c, game_c));
    // exactly one game, and one match_found each
    for who in [&a, &c] {
        let games = get_json(&app, "/api/me/games", Some(&who.token)).await;
        let games = games.as_array().or(games["games"].as_array()).cloned().unwrap_or_default();
        assert_eq!(games.len(), 1, "{games:?}");
        assert_eq!(who.frames.iter().filter(|f| f["type"] == "match_found").count(), 1);
    }
    let st = get_json(&app, "/api/queue", Some(&d.token)).await;
    assert_eq!((st["state"].as_str(), st["waiting"].as_i64()), (Some("waiting"), Some(1)));
    // leaving the queue during a proposal declines it
    let mut e = Client::new(&app, "de").await;
    join_queue(&app, &e, "ranked_dual", [127, 0, 0, 85]).await;
    d.next_of("match_proposed").await;
    e.next_of("match_proposed").await;
    let r = http_from([127, 0, 0, 85])
        .delete(app.url("/api/queue/ranked_dual"))
        .bearer_auth(&e.token)
        .send()
        .await
        .unwrap();
    assert_eq!(r.json::<Value>().await.unwrap()["state"], "idle");
    let cd = d.next_of("match_cancelled").await;
    assert_eq!((cd["reason"].as_str(), cd["requeued"].as_bool()), (Some("declined"), Some(true)));
}

async fn no_shows_time_out_and_a_repeated_one_gets_a_cooldown(backend: Backend) {
    let app = spawn_app_with(backend, |c| {
        c.ladder.tick_ms = 50;
        c.ladder.accept_ms = 2000;
        c.ladder.no_show_limit = 2;
        c.ladder.no_show_cooldown_secs = 600;
    })
    .await;
    let mut a = Client::new(&app, "ta").await;
    let mut b = Client::new(&app, "tb").await;
    for round in 0..2 {
        let p = if round == 0 {
            proposed_pair(&app, &mut a, &mut b, [91, 92]).await.0
        } else {
            // a still waits (requeued); b comes back
            let st = join_queue(&app, &b, "ranked_dual", [127, 0, 0, 92]).await;
            assert_eq!(st["state"], "proposed", "{st}");
            let p = a.next_of("match_proposed").await;
            b.next_of("match_proposed").await;
            p
        };
        // a accepts, b never answers
        a.act(json!({"type": "accept_match", "match_id": p["match_id"]})).await.expect("accept");
        let ca = a.next_of("match_cancelled").await;
        assert_eq!(
            (ca["match_id"].clone(), ca["reason"].as_str(), ca["requeued"].as_bool()),
            (p["match_id"].clone(), Some("timed_out"), Some(true))
        );
        let cb = b.next_of("match_cancelled").await;
        assert_eq!(
            (cb["reason"].as_str(), cb["requeued"].as_bool()),
            (Some("timed_out"), Some(false))
        );
        assert_eq!(get_json(&app, "/api/queue", Some(&b.token)).await["state"], "idle");
        assert_eq!(get_json(&app, "/api/queue", Some(&a.token)).await["state"], "waiting");
    }
    // the second no-show: b may not queue for a while (either ladder), a is untouched
    for ladder in ["ranked_dual", "ranked"] {
        let r = http_from([127, 0, 0, 92])
            .post(app.url(&format!("/api/queue/{ladder}")))
            .bearer_auth(&b.token)
            .send()
            .await
            .unwrap();
        let retry: u64 = r.headers()["retry-after"].to_str().unwrap().parse().unwrap();
        assert!((1..=600).contains(&retry), "{retry}");
        assert_eq!(error_code(r).await, (429, "queue_cooldown".into()));
    }
    assert_eq!(get_json(&app, "/api/queue", Some(&b.token)).await["state"], "idle");
    let st = get_json(&app, "/api/queue", Some(&a.token)).await;
    assert_eq!((st["state"].as_str(), st["waiting"].as_i64()), (Some("waiting"), Some(1)));
}

both_backends!(
    an_entry_lives_only_while_a_socket_is_connected,
    a_decline_requeues_the_others_in_front_and_all_accepting_makes_one_game,
    no_shows_time_out_and_a_repeated_one_gets_a_cooldown,
);
