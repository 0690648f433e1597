//! One client cannot starve the bots of everyone else (issue 27 §4): a four-player game whose
//! person gave up ends instead of leaving three bots to play on; one client address holds at most
//! `live.max_rooms_per_ip` rooms and practice games, whatever its accounts; and a game's bot
//! answers in about its budget while one client keeps many bot games busy (the bot threads take
//! client addresses in turn, src/live/bots.rs).
use crate::support;
use crate::support::live::*;
use crate::support::Backend;
use serde_json::{json, Value};
use std::net::{IpAddr, Ipv4Addr};
use std::time::{Duration, Instant};

/// Start a practice game of `variant` on `c` (South) with bots of `level`; returns the room.
async fn practice(c: &mut Client, variant: &str, level: &str) -> Result<String, Value> {
    c.seats.insert('S');
    c.hidden_front = variant == "hidden_front";
    let ack = c.act(json!({"type": "start_practice", "variant": variant, "level": level})).await?;
    Ok(ack["room"].as_str().unwrap().to_string())
}

/// A person who surrenders — during the deployment, or in the battle — and stays in the room
/// watches the bots play on (issue 38 §12: a surrendered seat leaves its partner fighting);
/// once the person leaves, the bots give up for the person's team at once and the game ends
/// (East–West win), nobody escaped.
async fn bots_give_up_when_their_people_are_gone(backend: Backend) {
    let app = support::spawn_app_with(backend, |c| c.live.bot_move_delay_ms = 0).await;
    for in_battle in [false, true] {
        let mut c = Client::new(&app, "bg").await;
        let room = practice(&mut c, "four_player", "greedy").await.unwrap();
        if in_battle {
            c.act(json!({"type": "confirm", "room": room})).await.unwrap();
            wait_battle(&mut c).await;
        }
        c.act(json!({"type": "surrender", "room": room})).await.unwrap();
        // still watching: North (our partner's bot) and the others play on
        let mut north = 0;
        let mut moves = 0;
        while north < 3 {
            let u = c.next_of("update").await;
            assert!(
                !is_over(&u),
                "the game ended while its person watched (in battle: {in_battle}): {u}"
            );
            for e in u["events"].as_array().into_iter().flatten() {
                moves += usize::from(e["type"] == "moved");
                north += usize::from(e["type"] == "moved" && e["seat"] == "N");
                assert!(
                    !(e["type"] == "moved" && e["seat"] == "S"),
                    "South moved after its surrender"
                );
            }
        }
        assert!(moves >= 3 + 2 * 2, "East and West moved between North's moves: {moves}");
        c.assert_no_hidden_ranks();
        let since = Instant::now();
        let g = leave_until_finished(&app, &mut c, &room).await;
        assert_eq!(g["result"], json!({"state": "won", "winner": "EW", "reason": "elimination"}));
        assert!(since.elapsed() < Duration::from_secs(20));
        assert_escaped(&c, &[]);
    }
}

/// Guests of one address may hold `max_rooms_per_ip` rooms and practice games together, no
/// more (each account alone stays under its own cap); another address is not counted with them.
async fn rooms_per_address(backend: Backend) {
    let app = support::spawn_app_with(backend, |c| {
        c.live.max_rooms_per_ip = 4;
        c.live.max_rooms_per_account = 3;
    })
    .await;
    let mut held = vec![];
    for _ in 0..3 {
        let mut c = Client::connect(&app, &guest(&app).await).await;
        let first = practice(&mut c, "hidden_front", "random").await;
        let second = c.act(json!({"type": "create_room", "public": false})).await;
        held.push((first.is_ok(), second.map(|_| ()).map_err(|e| e["code"].clone())));
    }
    let refused = Err(json!("too_many_rooms"));
    assert_eq!(held, [(true, Ok(())), (true, Ok(())), (false, refused.clone())], "one address");
    let e =
        Client::connect(&app, &guest(&app).await).await.act(json!({"type": "create_room"})).await;
    assert_eq!(e.err().map(|e| e["code"].clone()), Some(json!("too_many_rooms")));
    // another address
    let other = guest(&app).await;
    let mut c = Client::connect_from(&app, &other, IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2))).await;
    practice(&mut c, "hidden_front", "random").await.expect("another address has its own count");
}

/// Keep `c`'s Hidden Front practice game busy: move as soon as it is South's turn, until the
/// game ends or `stop` passes.
async fn keep_busy(mut c: Client, room: String, stop: Instant) {
    let mut k = 3usize;
    while Instant::now() < stop {
        let u = c
            .wait_for(|m| {
                (m["type"] == "update" || m["type"] == "snapshot") && m["view"].is_object()
            })
            .await;
        if is_over(&u) {
            return;
        }
        if u["view"]["turn"] != "S" {
            continue;
        }
        let Some((from, to)) = pick_move(&u["legal_moves"], k) else { continue };
        k = k.wrapping_mul(31).wrapping_add(7);
        c.send(&json!({"type": "move", "room": room, "from": from, "to": to})).await;
    }
}

/// With one bot thread, twelve Hidden Front practice games of one address keep their (standard)
/// bots searching without pause; a person from another address still gets each bot answer in
/// about one search or two, not after the twelve (first come, first served: ~12 searches).
async fn a_busy_client_does_not_starve_the_others(backend: Backend) {
    let budget = 250u64;
    let app = support::spawn_app_with(backend, |c| {
        c.live.bot_threads = 1;
        c.live.bot_budget_ms = budget;
        c.live.bot_move_delay_ms = 0;
        c.live.max_rooms_per_ip = 50;
    })
    .await;
    let stop = Instant::now() + Duration::from_secs(60);
    let mut busy = vec![];
    for _ in 0..4 {
        let who = account(&app, "bb").await;
        for _ in 0..3 {
            let mut c = Client::connect(&app, &who).await;
            let room = practice(&mut c, "hidden_front", "standard").await.unwrap();
            c.act(json!({"type": "confirm", "room": room})).await.unwrap();
            busy.push(tokio::spawn(keep_busy(c, room, stop)));
        }
    }
    let who = account(&app, "bv").await;
    let mut me = Client::connect_from(&app, &who, IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2))).await;
    let room = practice(&mut me, "hidden_front", "standard").await.unwrap();
    me.act(json!({"type": "confirm", "room": room})).await.unwrap();
    wait_battle(&mut me).await;
    // let the busy games fill the queue
    tokio::time::sleep(Duration::from_secs(2)).await;
    let mut answers = vec![];
    let mut k = 11usize;
    let mut u = me.wait_for(|m| m["type"] == "update" && m["view"]["turn"] == "S").await;
    while answers.len() < 6 {
        let (from, to) = pick_move(&u["legal_moves"], k).expect("a move");
        k = k.wrapping_mul(31).wrapping_add(5);
        let sent = Instant::now();
        me.act(json!({"type": "move", "room": room, "from": from, "to": to})).await.unwrap();
        u = me
            .wait_for(|m| (m["type"] == "update" && m["view"]["turn"] == "S") || is_over(m))
            .await;
        if is_over(&u) {
            break;
        }
        answers.push(sent.elapsed());
    }
    assert!(answers.len() >= 3, "too few answers: {answers:?}");
    answers.sort();
    let median = answers[answers.len() / 2];
    // first come, first served would be about 12 searches; taking addresses in turn, one or two
    let bound = Duration::from_millis(budget * 5);
    assert!(median < bound, "the bot answered in {answers:?} (bound {bound:?})");
    for b in busy {
        b.abort();
    }
}
both_backends!(bots_give_up_when_their_people_are_gone, rooms_per_address);

/// (The bot threads do not depend on the database: SQLite only.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_busy_client_does_not_starve_the_others_sqlite() {
    a_busy_client_does_not_starve_the_others(Backend::Sqlite).await
}
