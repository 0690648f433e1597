//! Hidden Front (两人军棋) over real WebSockets: two people to the end, one person against a bot,
//! a restart in the middle of a battle, the third timeout, the deployment clock's lost seat,
//! seats other than S and N refused, the clocks of a public and a private room, the deployment
//! clock running out, a player away past the grace losing; every frame scanned for hidden ranks.
//! Over HTTP: the game, the lists and the profile name the variant, formations per game, and the
//! ladders stay untouched.

use crate::support;
use crate::support::live::*;
use crate::support::{Backend, TestApp};
use serde_json::{json, Value};
use siguo_rules::{Deployment, Options, Seat, Variant};

/// A client of a Hidden Front game on `seat`.
fn hf(mut c: Client, seat: char) -> Client {
    c.hidden_front = true;
    c.seats.insert(seat);
    c
}

fn seat_keys(m: &Value) -> Vec<String> {
    m["seats"].as_object().expect("seats").keys().cloned().collect()
}

fn over(u: &Value) -> bool {
    u["view"].is_object() && u["view"]["status"]["state"] != "ongoing"
}

/// South (cs[0]) hosts a Hidden Front room with `options`, North (cs[1]) joins; both seated and
/// ready: the game is deploying when this returns.
async fn hf_room(app: &TestApp, public: bool, options: Value) -> (String, Vec<Client>) {
    let mut s = hf(Client::new(app, "hfs").await, 'S');
    let mut n = hf(Client::new(app, "hfn").await, 'N');
    let ack = s
        .act(json!({"type": "create_room", "public": public, "variant": "hidden_front",
                    "options": options}))
        .await
        .expect("create_room");
    let room = ack["room"].as_str().unwrap().to_string();
    let invite = ack["invite"].as_str().unwrap().to_string();
    let r = s.next_of("room").await;
    assert_eq!(r["variant"], "hidden_front");
    assert_eq!(seat_keys(&r), ["N", "S"], "a Hidden Front room has the seats S and N only");
    assert_eq!(r["options"]["mines"], "mutual", "Hidden Front's default mine rule");
    n.act(json!({"type": "join_room", "invite": invite})).await.expect("join by invite");
    s.act(json!({"type": "take_seat", "room": room, "seat": "S"})).await.expect("take S");
    n.act(json!({"type": "take_seat", "room": room, "seat": "N"})).await.expect("take N");
    for c in [&mut s, &mut n] {
        c.act(json!({"type": "ready", "room": room, "ready": true})).await.expect("ready");
    }
    for c in [&mut s, &mut n] {
        let snap = c.wait_for(|m| m["type"] == "snapshot" && m["phase"] == "deploying").await;
        assert_eq!(seat_keys(&snap), ["N", "S"]);
        assert_eq!(my_seats(&snap), c.seats);
        let mine = snap["deployments"].as_object().unwrap();
        assert_eq!(mine.len(), 1, "only one's own deployment");
    }
    (room, vec![s, n])
}

/// Both confirm; returns the first battle update of each.
async fn hf_battle(room: &str, cs: &mut [Client]) -> Vec<Value> {
    for c in cs.iter_mut() {
        c.act(json!({"type": "confirm", "room": room})).await.expect("confirm");
    }
    let mut ups = vec![];
    for c in cs.iter_mut() {
        wait_battle(c).await;
        let u = c.last_state();
        assert_eq!(u["view"]["variant"], "hidden_front");
        assert_eq!(u["view"]["turn"], "S", "South moves first");
        ups.push(u);
    }
    ups
}

/// Messages a test client sends on one socket before it reconnects (the server allows 100 per
/// 20 s on a socket; a long game at test speed sends more).
const PER_SOCKET: usize = 80;

/// Close `c`'s socket and come back on a new one at the version it holds (a resync with
/// nothing missed); every frame of the old socket is scanned first.
async fn reconnect(app: &TestApp, c: Client, room: &str) -> Client {
    c.assert_no_hidden_ranks();
    let v = c.last_state()["v"].clone();
    let (who, seats) = ((c.name.clone(), c.account_id, c.token.clone()), c.seats.clone());
    c.close().await;
    let mut c = Client::connect(app, &who).await;
    (c.hidden_front, c.seats) = (true, seats);
    let ack = c.act(json!({"type": "join_room", "room": room, "v": v})).await.expect("rejoin");
    assert_eq!(ack["v"], v, "nothing missed");
    c
}

/// The seat to move makes the `k`-th legal move; returns every client's next update.
async fn hf_move(room: &str, cs: &mut [Client], ups: &[Value], k: usize) -> Vec<Value> {
    let turn = ups[0]["view"]["turn"].as_str().unwrap().chars().next().unwrap();
    let i = cs.iter().position(|c| c.seats.contains(&turn)).unwrap();
    let other = 1 - i;
    assert!(
        ups[other]["legal_moves"].as_object().is_none_or(|m| m.is_empty()),
        "legal moves only to the seat to move"
    );
    let (from, to) = pick_move(&ups[i]["legal_moves"], k).expect("a legal move");
    assert!(from.len() <= 3 && from.starts_with(|c: char| ('A'..='E').contains(&c)), "{from}");
    if k.is_multiple_of(4) {
        let mv = json!({"type": "move", "room": room, "from": from, "to": to});
        cs[other].expect_err(mv, "not_your_turn").await;
    }
    let ack = cs[i]
        .act(json!({"type": "move", "room": room, "from": from, "to": to}))
        .await
        .expect("a legal move");
    let v = ack["v"].as_u64().unwrap();
    let mut next = vec![];
    for c in cs.iter_mut() {
        next.push(c.wait_for(move |m| m["type"] == "update" && m["v"].as_u64() == Some(v)).await);
    }
    next
}

async fn two_people_to_the_end(backend: Backend) {
    let app = support::spawn_app(backend).await;
    let (room, mut cs) = hf_room(&app, true, json!({})).await;
    // a spectator of the public room
    let mut spec = Client::new(&app, "hfw").await;
    spec.hidden_front = true;
    spec.act(json!({"type": "join_room", "room": room})).await.expect("watch");
    assert_eq!(spec.next_of("snapshot").await["deployments"], json!({}));
    // a Hidden Front deployment: stations of South's half, a swap that breaks a rule is refused
    let dep =
        cs[0].frames.iter().find(|m| m["type"] == "snapshot").unwrap()["deployments"]["S"].clone();
    let pieces = dep["pieces"].as_object().unwrap();
    assert_eq!(pieces.len(), 25);
    assert!(pieces.keys().all(|k| k[1..].parse::<u32>().unwrap() >= 7), "{pieces:?}");
    let flag = pieces.iter().find(|(_, r)| *r == "F").unwrap().0.clone();
    let front = pieces.iter().find(|(s, r)| s.ends_with('7') && *r != "B").unwrap().0.clone();
    cs[0]
        .expect_err(
            json!({"type": "swap", "room": room, "a": flag, "b": front}),
            "flag_not_in_headquarters",
        )
        .await;
    cs[0].expect_err(json!({"type": "confirm", "room": room, "seat": "E"}), "not_your_seat").await;
    hf_battle(&room, &mut cs).await;
    // team chat has no meaning here; room chat works
    cs[1]
        .expect_err(
            json!({"type": "chat", "room": room, "text": "hi", "team": true}),
            "bad_message",
        )
        .await;
    cs[1].act(json!({"type": "chat", "room": room, "text": "gl"})).await.expect("chat");
    // a draw offer, declined
    cs[1].act(json!({"type": "offer_draw", "room": room})).await.expect("offer");
    cs[0].act(json!({"type": "decline_draw", "room": room})).await.expect("decline");
    for c in cs.iter_mut() {
        wait_event(c, |e| e["type"] == "draw_declined").await;
    }
    let mut ups: Vec<Value> = cs.iter().map(Client::last_state).collect();
    let mut k = 3usize;
    let mut surrendered = false;
    for n in 0usize.. {
        if over(&ups[0]) {
            break;
        }
        if n > 0 && n.is_multiple_of(PER_SOCKET) {
            for i in 0..2 {
                let c = cs.remove(i);
                cs.insert(i, reconnect(&app, c, &room).await);
            }
        }
        if n == 1000 {
            // a very long random game: South gives up
            cs[0].act(json!({"type": "surrender", "room": room})).await.expect("surrender");
            surrendered = true;
            for c in cs.iter_mut() {
                c.wait_for(|m| m["type"] == "update" && over(m)).await;
            }
            ups = cs.iter().map(Client::last_state).collect();
            break;
        }
        ups = hf_move(&room, &mut cs, &ups, k).await;
        assert!(ups[0]["view"]["quiet_steps"].is_u64(), "Hidden Front views count quiet steps");
        assert_eq!(ups[0]["view"]["timeouts"], json!({"N": 0, "S": 0}));
        assert!(ups[0]["view"].get("skips").is_none(), "Hidden Front counts timeouts");
        k = k.wrapping_mul(31).wrapping_add(17);
    }
    let status = ups[0]["view"]["status"].clone();
    if surrendered {
        let won = json!({"state": "won", "winner": "N", "reason": "surrender"});
        assert_ended(&cs[0], &ups[0], won, &[]);
    } else {
        // random play: an ending of hidden-front.md §5 for the final position
        assert_rule_ending(&cs[0], &ups[0]);
    }
    assert_escaped(&cs[1], &[]);
    let game = ups[0]["game"].as_i64().unwrap();
    spec.wait_for(|m| m["type"] == "update" && over(m)).await;
    let r = cs[0].wait_for(|m| m["type"] == "room" && m["phase"] == "finished").await;
    assert_eq!(r["variant"], "hidden_front");
    for c in cs.iter().chain([&spec]) {
        c.assert_no_hidden_ranks();
    }
    // the replay, the lists and the profiles name the game; the ladders are untouched
    let g: Value = app.get(&format!("/api/games/{game}")).await.json().await.unwrap();
    assert_eq!(g["variant"], "hidden_front");
    assert_eq!(g["kind"], "casual");
    assert_eq!(g["record"]["variant"], "hidden_front");
    let seats: Vec<&str> =
        g["players"].as_array().unwrap().iter().map(|p| p["seat"].as_str().unwrap()).collect();
    assert_eq!(seats.len(), 2);
    assert!(seats.contains(&"S") && seats.contains(&"N"));
    let deps = g["record"]["deployments"].as_array().unwrap();
    assert_eq!((deps.len(), &deps[0]["seat"], &deps[1]["seat"]), (2, &json!("S"), &json!("N")));
    let list: Value =
        app.get(&format!("/api/accounts/{}/games", cs[1].name)).await.json().await.unwrap();
    assert_eq!(list[0]["id"].as_i64(), Some(game));
    assert_eq!(list[0]["variant"], "hidden_front");
    assert_eq!(list[0]["players"].as_array().unwrap().len(), 2);
    let p: Value = app.get(&format!("/api/profiles/{}", cs[0].name)).await.json().await.unwrap();
    assert_eq!(p["games"]["hidden_front"]["played"], 1, "{p}");
    assert_eq!(p["games"]["four_player"]["played"], 0);
    assert_eq!(p["recent_games"][0]["variant"], "hidden_front");
    assert!(p["recent_games"][0]["points"].is_null(), "no ladder points");
    assert!(p["ranked"].is_null() && p["ranked_dual"].is_null(), "no ladder standing: {p}");
    if status["winner"] == "S" {
        assert_eq!(p["games"]["hidden_front"]["won"], 1);
        assert_eq!(p["recent_games"][0]["outcome"], "win");
    }
    for ladder in ["ranked", "ranked_dual"] {
        let board: Value =
            app.get(&format!("/api/leaderboard/{ladder}")).await.json().await.unwrap();
        assert!(!board.to_string().contains(&cs[0].name), "{ladder}: {board}");
    }
}

async fn one_person_against_a_bot(backend: Backend) {
    let app = support::spawn_app(backend).await;
    let mut me = hf(Client::new(&app, "hfp").await, 'N');
    me.expect_err(
        json!({"type": "start_practice", "variant": "hidden_front", "seat": "E"}),
        "bad_seat",
    )
    .await;
    me.expect_err(
        json!({"type": "start_practice", "variant": "hidden_front", "options": {"move_seconds": 15}}),
        "invalid_options",
    )
    .await;
    let ack = me
        .act(json!({"type": "start_practice", "variant": "hidden_front", "seat": "N",
                    "level": "greedy", "options": {"move_seconds": 60}}))
        .await
        .expect("practice");
    let room = ack["room"].as_str().unwrap().to_string();
    let r = me.next_of("room").await;
    assert_eq!((&r["variant"], &r["kind"]), (&json!("hidden_front"), &json!("practice")));
    assert_eq!(seat_keys(&r), ["N", "S"]);
    assert_eq!(r["seats"]["S"]["bot"], "greedy");
    assert_eq!(r["options"]["move_seconds"], 60);
    let snap = me.next_of("snapshot").await;
    assert_eq!(snap["confirmed"], json!(["S"]), "the bot deploys at once");
    me.act(json!({"type": "confirm", "room": room})).await.expect("confirm");
    let mut k = 5usize;
    let mut moves = 0usize;
    let mut surrendered = false;
    let end = loop {
        let u = me.wait_for(|m| m["type"] == "update" && m["view"].is_object()).await;
        if over(&u) {
            break u;
        }
        if u["view"]["turn"] != "N" {
            continue;
        }
        if moves == 1000 {
            me.act(json!({"type": "surrender", "room": room})).await.expect("surrender");
            surrendered = true;
            continue;
        }
        if moves > 0 && moves.is_multiple_of(PER_SOCKET) {
            me = reconnect(&app, me, &room).await;
        }
        let (from, to) = pick_move(&u["legal_moves"], k).expect("North has a move");
        k = k.wrapping_mul(31).wrapping_add(17);
        me.act(json!({"type": "move", "room": room, "from": from, "to": to})).await.expect("move");
        moves += 1;
    };
    assert!(moves > 0);
    if surrendered {
        let won = json!({"state": "won", "winner": "S", "reason": "surrender"});
        assert_ended(&me, &end, won, &[]);
    } else {
        assert_rule_ending(&me, &end);
    }
    me.assert_no_hidden_ranks();
}

async fn restart_in_the_battle(backend: Backend) {
    let mut app = support::spawn_app(backend).await;
    let (room, mut cs) = hf_room(&app, false, json!({})).await;
    let mut ups = hf_battle(&room, &mut cs).await;
    for k in 0..6 {
        ups = hf_move(&room, &mut cs, &ups, k).await;
    }
    assert!(!over(&ups[0]), "six moves do not end a game");
    let game = ups[0]["game"].as_i64().unwrap();
    let whos: Vec<_> = cs.iter().map(|c| (c.name.clone(), c.account_id, c.token.clone())).collect();
    let seats: Vec<char> = cs.iter().map(|c| *c.seats.iter().next().unwrap()).collect();
    for c in cs.drain(..) {
        c.assert_no_hidden_ranks();
        c.close().await;
    }
    app.restart().await;
    let mut ups2 = vec![];
    for (i, w) in whos.iter().enumerate() {
        let mut c = hf(Client::connect(&app, w).await, seats[i]);
        let rooms = c.frames[0]["rooms"].as_array().unwrap().clone();
        let listed =
            rooms.iter().find(|r| r["game"].as_i64() == Some(game)).expect("hello lists it");
        assert_eq!(listed["variant"], "hidden_front");
        c.act(json!({"type": "join_room", "game": game, "v": ups[i]["v"]})).await.unwrap();
        let r = c.next_of("room").await;
        assert_eq!(
            (&r["variant"], seat_keys(&r)),
            (&json!("hidden_front"), vec!["N".into(), "S".into()])
        );
        let snap = c.next_of("snapshot").await;
        assert_eq!(snap["view"], ups[i]["view"], "the same position after the restart");
        assert_eq!(seat_keys(&snap), ["N", "S"]);
        ups2.push(snap);
        cs.push(c);
    }
    let room2 = format!("g{game}");
    let mut ups = ups2;
    for k in 0..4 {
        ups = hf_move(&room2, &mut cs, &ups, k + 10).await;
    }
    let g: Value =
        app.get_as(&format!("/api/games/{game}"), &cs[0].token).await.json().await.unwrap();
    assert_eq!(g["variant"], "hidden_front");
    assert_eq!(g["public"]["actions"].as_array().unwrap().len(), 10, "nothing lost or doubled");
    for c in &cs {
        c.assert_no_hidden_ranks();
    }
}

async fn third_timeout_loses(backend: Backend) {
    let app = support::spawn_app_with(backend, |c| c.live.hidden_front_short_clocks = true).await;
    let mut me = hf(Client::new(&app, "hft").await, 'S');
    let ack = me
        .act(json!({"type": "start_practice", "variant": "hidden_front", "level": "random",
                    "options": {"move_seconds": 10}}))
        .await
        .expect("practice");
    let room = ack["room"].as_str().unwrap().to_string();
    me.act(json!({"type": "confirm", "room": room})).await.expect("confirm");
    // South never moves: three timeouts, the bot moving in between
    let end = me.wait_for(|m| m["type"] == "update" && over(m)).await;
    let lost = json!({"state": "won", "winner": "N", "reason": "timeouts"});
    assert_ended(&me, &end, lost, &[]);
    assert_eq!(end["view"]["timeouts"]["S"], 3);
    let skipped: Vec<&Value> = me
        .frames
        .iter()
        .filter(|m| m["type"] == "update")
        .flat_map(|m| m["events"].as_array().unwrap())
        .filter(|e| e["type"] == "skipped")
        .collect();
    assert_eq!(skipped.len(), 3);
    me.assert_no_hidden_ranks();
}

async fn unconfirmed_leaver_loses_the_seat(backend: Backend) {
    let app = support::spawn_app(backend).await;
    let (room, mut cs) = hf_room(&app, true, json!({})).await;
    let game = cs[0].frames.iter().rev().find(|m| m["type"] == "snapshot").unwrap()["game"]
        .as_i64()
        .unwrap();
    cs[0].act(json!({"type": "confirm", "room": room})).await.expect("South confirms");
    // North leaves without confirming: its seat is lost, the game ends unplayed, South waits
    cs[1].act(json!({"type": "leave_room", "room": room})).await.expect("leave");
    let r = cs[0].wait_for(|m| m["type"] == "room" && m["phase"] == "waiting").await;
    assert!(r["seats"]["N"].is_null());
    assert_eq!(r["seats"]["S"]["name"], cs[0].name.as_str());
    assert_eq!(r["seats"]["S"]["ready"], false);
    assert!(r["game"].is_null());
    let g: Value = app.get(&format!("/api/games/{game}")).await.json().await.unwrap();
    assert_eq!(g["state"], "aborted");
    let listed: Value = app.get("/api/rooms").await.json().await.unwrap();
    let mine = listed.as_array().unwrap().iter().find(|x| x["room"] == room.as_str()).unwrap();
    assert_eq!(mine["variant"], "hidden_front");
    assert_eq!(seat_keys(mine), ["N", "S"]);
    // a new opponent takes the seat; seats that do not play are refused
    let mut n2 = hf(Client::new(&app, "hfn2").await, 'N');
    n2.act(json!({"type": "join_room", "room": room})).await.expect("join");
    for seat in ["E", "W"] {
        n2.expect_err(json!({"type": "take_seat", "room": room, "seat": seat}), "bad_seat").await;
        cs[0].expect_err(json!({"type": "add_bot", "room": room, "seat": seat}), "bad_seat").await;
    }
    n2.act(json!({"type": "take_seat", "room": room, "seat": "N"})).await.expect("take N");
    // taking the other seat switches (one seat each)
    cs[0].act(json!({"type": "take_seat", "room": room, "seat": "N"})).await.unwrap_err();
    for c in [&mut cs[0], &mut n2] {
        c.act(json!({"type": "ready", "room": room, "ready": true})).await.expect("ready");
    }
    for c in [&mut cs[0], &mut n2] {
        let snap = c.wait_for(|m| m["type"] == "snapshot" && m["phase"] == "deploying").await;
        assert_ne!(snap["game"].as_i64(), Some(game), "a new game");
    }
    for c in [&cs[0], &cs[1], &n2] {
        c.assert_no_hidden_ranks();
    }
}

async fn formations_per_game(backend: Backend) {
    let app = support::spawn_app(backend).await;
    let (client, _) = app.new_account("hff").await;
    let hfo = Options::for_variant(Variant::HiddenFront);
    let d = Deployment::random_for(Variant::HiddenFront, Seat::S, &hfo, &mut rand::rng());
    let f = serde_json::to_value(d.to_formation()).unwrap();
    let post = |body: Value| client.post(app.url("/api/formations")).json(&body).send();
    let r = post(json!({"name": "wall", "variant": "hidden_front", "formation": f})).await.unwrap();
    assert_eq!(r.status(), 201);
    let saved: Value = r.json().await.unwrap();
    assert_eq!(saved["variant"], "hidden_front");
    // the same name for the other game is another formation
    let four = Deployment::random(Seat::S, &Options::default(), &mut rand::rng()).to_formation();
    let r = post(json!({"name": "wall", "formation": four})).await.unwrap();
    assert_eq!(r.status(), 201);
    // a mine in a headquarters: fine for the four-player game, not for Hidden Front
    let mut bad = f.as_object().unwrap().clone();
    let hq = ["b6", "d6"].into_iter().find(|s| bad[*s] != "F").unwrap();
    let mine = bad.iter().find(|(_, r)| *r == "M").unwrap().0.clone();
    let (a, b) = (bad[hq].clone(), bad[&mine].clone());
    bad.insert(hq.into(), b);
    bad.insert(mine, a);
    let r =
        post(json!({"name": "bad", "variant": "hidden_front", "formation": bad})).await.unwrap();
    assert_eq!(support::error_code(r).await, (400, "mine_in_headquarters".to_string()));
    let list = |q: &'static str| client.get(app.url(&format!("/api/formations{q}"))).send();
    let hf_list: Value = list("?variant=hidden_front").await.unwrap().json().await.unwrap();
    assert_eq!(hf_list.as_array().unwrap().len(), 1);
    assert_eq!(hf_list[0]["id"], saved["id"]);
    let four_list: Value = list("").await.unwrap().json().await.unwrap();
    assert_eq!(four_list.as_array().unwrap().len(), 1);
    assert_eq!(four_list[0]["variant"], "four_player");
}

/// The bot of a practice game answers a draw offer at once: greedy never accepts, so the offer
/// is declined (by the bot's seat) and the game goes on.
async fn a_bot_answers_a_draw_offer(backend: Backend) {
    let app = support::spawn_app(backend).await;
    let mut me = hf(Client::new(&app, "hfd").await, 'S');
    let ack = me
        .act(json!({"type": "start_practice", "variant": "hidden_front", "level": "greedy"}))
        .await
        .expect("practice");
    let room = ack["room"].as_str().unwrap().to_string();
    me.act(json!({"type": "confirm", "room": room})).await.expect("confirm");
    me.wait_for(|m| m["type"] == "update" && m["view"]["turn"] == "S").await;
    me.act(json!({"type": "offer_draw", "room": room})).await.expect("offer");
    let declined = wait_event(&mut me, |e| e["type"] == "draw_declined" && e["seat"] == "N").await;
    // the bot's answer comes in the same update as the offer (docs/protocol.md §8)
    let events: Vec<&Value> = declined["events"].as_array().unwrap().iter().collect();
    assert_eq!(events[0]["type"], "draw_offered", "{declined}");
    assert_eq!(events[0]["seat"], "S");
    assert_eq!(declined["view"]["draw_offer"], Value::Null);
    assert_eq!(declined["view"]["status"]["state"], "ongoing");
    me.assert_no_hidden_ranks();
}

/// `create_room` of a Hidden Front room.
fn create(public: bool, options: Value) -> Value {
    json!({"type": "create_room", "public": public, "variant": "hidden_front", "options": options})
}

/// hidden-front.md §6: a public room plays the standard clocks (30 s a move, 90 s to deploy, 60 s
/// to come back); a friends' room by invite may set more generous ones, never shorter ones.
async fn public_rooms_play_the_standard_clocks(backend: Backend) {
    let app = support::spawn_app(backend).await;
    let mut c = hf(Client::new(&app, "hfc").await, 'S');
    for o in [json!({"move_seconds": 60}), json!({"reconnect_seconds": 120})] {
        c.expect_err(create(true, o), "invalid_options").await;
    }
    for o in [json!({"move_seconds": 20}), json!({"deploy_seconds": 60})] {
        c.expect_err(create(false, o), "invalid_options").await;
    }
    let generous = json!({"move_seconds": 60, "deploy_seconds": 120, "reconnect_seconds": 120});
    let ack = c.act(create(false, generous)).await.expect("a private room with longer clocks");
    let r = c.wait_for(|m| m["type"] == "room" && m["room"] == ack["room"]).await;
    assert_eq!(
        (&r["options"]["move_seconds"], &r["options"]["deploy_seconds"]),
        (&json!(60), &json!(120))
    );
    assert_eq!(r["options"]["reconnect_seconds"], 120);
    c.act(json!({"type": "leave_room", "room": r["room"]})).await.expect("leave");
    let ack = c.act(create(true, json!({}))).await.expect("a public room");
    let r = c.wait_for(|m| m["type"] == "room" && m["room"] == ack["room"]).await;
    let o = &r["options"];
    assert_eq!((&o["move_seconds"], &o["deploy_seconds"]), (&json!(30), &json!(90)));
    assert_eq!(o["reconnect_seconds"], 60);
}

/// hidden-front.md §6 and §5 with short clocks: when the deployment clock runs out, a present
/// player who has not confirmed starts with the deployment it has (a swap included); in the
/// battle, a player away for the whole grace loses.
async fn deployment_clock_then_away_loses(backend: Backend) {
    let app = support::spawn_app_with(backend, |c| c.live.hidden_front_short_clocks = true).await;
    let clocks = json!({"deploy_seconds": 30, "reconnect_seconds": 15, "move_seconds": 120});
    let (room, mut cs) = hf_room(&app, false, clocks).await;
    let snap = cs[1].frames.iter().rev().find(|m| m["type"] == "snapshot").unwrap().clone();
    let mut mine = snap["deployments"]["N"]["pieces"].as_object().unwrap().clone();
    // two ranks without a placement rule, swapped
    let plain = |r: &Value| r.as_str().is_some_and(|r| r.chars().all(|c| c.is_ascii_digit()));
    let a = mine.iter().find(|(_, r)| plain(r)).unwrap().0.clone();
    let b = mine.iter().find(|(_, r)| plain(r) && **r != mine[&a]).unwrap().0.clone();
    cs[1].act(json!({"type": "swap", "room": room, "a": a, "b": b})).await.expect("swap");
    let (ra, rb) = (mine[&a].clone(), mine[&b].clone());
    mine.insert(a, rb);
    mine.insert(b, ra);
    cs[0].act(json!({"type": "confirm", "room": room})).await.expect("South confirms");
    // North stays and never confirms: the clock starts the battle with North's deployment
    for c in cs.iter_mut() {
        wait_battle(c).await;
    }
    let view = cs[1].last_state()["view"].clone();
    for (station, rank) in &mine {
        assert_eq!(view["pieces"][station], json!(format!("N{}", rank.as_str().unwrap())));
    }
    assert_eq!(view["turn"], "S");
    // North goes away; after 15 s it has lost (the turn clock of 120 s plays no part)
    let north = cs.pop().unwrap();
    north.assert_no_hidden_ranks();
    north.close().await;
    let end = cs[0].wait_for(|m| m["type"] == "update" && over(m)).await;
    // the away seat is announced (`escaped`), then loses as by a surrender
    let won = json!({"state": "won", "winner": "S", "reason": "surrender"});
    assert_ended(&cs[0], &end, won, &["N"]);
    let game = end["game"].as_i64().unwrap();
    let g: Value =
        app.get_as(&format!("/api/games/{game}"), &cs[0].token).await.json().await.unwrap();
    assert_eq!(g["state"], "finished", "{g}");
    cs[0].assert_no_hidden_ranks();
}

/// Issue 25 §4: with `live.hidden_front_short_clocks` on, a public room still takes only the
/// standard clocks (private and practice games may be shorter); a Hidden Front room shows only
/// the options that apply to it, with its fixed limits, and refuses the four-player ones.
async fn short_clocks_and_options_of_hidden_front(backend: Backend) {
    let app = support::spawn_app_with(backend, |c| c.live.hidden_front_short_clocks = true).await;
    let mut c = hf(Client::new(&app, "hfo").await, 'S');
    for o in [json!({"move_seconds": 20}), json!({"reconnect_seconds": 15})] {
        c.expect_err(create(true, o), "invalid_options").await;
    }
    for o in [json!({"max_steps": 300}), json!({"info_mode": "all_open"}), json!({"max_skips": 5})]
    {
        c.expect_err(create(false, o), "invalid_options").await;
    }
    c.expect_err(create(false, json!({"max_timeouts": 5})), "invalid_options").await;
    let ack = c.act(create(false, json!({"move_seconds": 20}))).await.expect("private, short");
    let r = c.wait_for(|m| m["type"] == "room" && m["room"] == ack["room"]).await;
    let mut shown: Vec<&String> = r["options"].as_object().unwrap().keys().collect();
    shown.sort();
    assert_eq!(
        shown,
        [
            "deploy_seconds",
            "flag_capture",
            "max_quiet_steps",
            "max_timeouts",
            "mines",
            "move_seconds",
            "reconnect_seconds"
        ],
        "{r}"
    );
    assert_eq!(
        (&r["options"]["max_timeouts"], &r["options"]["max_quiet_steps"]),
        (&json!(3), &json!(100))
    );
    assert_eq!(r["options"]["move_seconds"], 20);
    // the options as shown are taken back as they are
    c.act(json!({"type": "leave_room", "room": r["room"]})).await.expect("leave");
    let again = r["options"].clone();
    c.act(create(false, again)).await.expect("the shown options, sent back");
}

both_backends!(
    short_clocks_and_options_of_hidden_front,
    public_rooms_play_the_standard_clocks,
    deployment_clock_then_away_loses,
    a_bot_answers_a_draw_offer,
    two_people_to_the_end,
    one_person_against_a_bot,
    restart_in_the_battle,
    third_timeout_loses,
    unconfirmed_leaver_loses_the_seat,
    formations_per_game,
);
