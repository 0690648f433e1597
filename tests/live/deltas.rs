//! Protocol 2 (docs/protocol.md §1, §5): updates carry a delta of the receiver's view instead of
//! the whole view. A socket that applies them to its snapshot holds exactly the view a fresh
//! snapshot gives, midway and at the end of whole games of both variants; a resync from an old
//! version brings it to the current one; protocol 1 sockets in the same game keep whole views;
//! an unknown protocol is refused.
use crate::support;
use crate::support::live::*;
use crate::support::Backend;
use serde_json::{json, Value};

/// A socket's view as a protocol-2 client builds it: the snapshot, then each update's delta
/// (or whole view) applied, checking the versions chain.
#[derive(Default)]
struct Held {
    v: Option<u64>,
    view: Value,
    /// the legal moves of the last versioned frame
    legal: Value,
    deltas: usize,
    full: usize,
}

impl Held {
    /// Take one frame; returns whether it was a versioned one.
    fn take(&mut self, m: &Value) -> bool {
        if m["type"] == "snapshot" || m["type"] == "update" {
            self.legal = m["legal_moves"].clone();
        }
        match m["type"].as_str() {
            Some("snapshot") => {
                self.v = m["v"].as_u64();
                self.view = m["view"].clone();
            }
            Some("update") => {
                let from_v = m["from_v"].as_u64();
                if let Some(delta) = m.get("delta") {
                    assert_eq!(from_v, self.v, "a delta follows the version held: {m}");
                    assert!(m.get("view").is_none(), "a delta comes without the view: {m}");
                    apply(&mut self.view, delta);
                    self.deltas += 1;
                } else {
                    assert!(from_v <= self.v || self.v.is_none(), "{m}");
                    self.view = m["view"].clone();
                    self.full += 1;
                }
                self.v = m["v"].as_u64();
            }
            _ => return false,
        }
        true
    }

    /// The frame `is_over` and `assert_rule_ending` read: the view held, as an update.
    fn as_frame(&self) -> Value {
        json!({"type": "update", "v": self.v, "view": self.view})
    }
}

/// A delta applied to a view, as a client does: changed stations (null: emptied), then fields.
fn apply(view: &mut Value, delta: &Value) {
    let pieces = view["pieces"].as_object_mut().expect("a view to apply the delta to");
    for (st, code) in delta["pieces"].as_object().expect("delta.pieces") {
        match code {
            Value::Null => pieces.remove(st),
            c => pieces.insert(st.clone(), c.clone()),
        };
    }
    for (k, x) in delta.as_object().unwrap() {
        if k != "pieces" {
            view[k] = x.clone();
        }
    }
}

/// Read `c`'s frames into `held` until `stop` says so (checked after each versioned frame).
async fn follow(c: &mut Client, held: &mut Held, stop: impl Fn(&Held, &Value) -> bool) -> Value {
    loop {
        let m = c.next().await;
        if held.take(&m) && stop(held, &m) {
            return m;
        }
    }
}

/// Ask for a snapshot and check that it shows exactly the view built from the deltas (the
/// updates sent before it are applied first, in order).
async fn compare_with_snapshot(c: &mut Client, held: &mut Held, room: &str) {
    c.send(&json!({"type": "resync", "room": room})).await;
    loop {
        let m = c.next().await;
        if m["type"] == "snapshot" {
            assert_eq!(m["v"].as_u64(), held.v, "{}: the snapshot's version", c.name);
            assert_eq!(m["view"], held.view, "{}: deltas vs snapshot at v {:?}", c.name, held.v);
            held.take(&m);
            return;
        }
        held.take(&m);
    }
}

/// One practice game of `variant` played to its end by a protocol-2 person (South) against
/// bots, watched by a protocol-2 spectator and a protocol-1 one: both protocol-2 sockets rebuild
/// their views from deltas, equal to fresh snapshots midway and at the end; midway the person
/// also resyncs from an old version. The game ends as the rules allow.
async fn practice_game(app: &support::TestApp, variant: &str, options: Value) {
    let who = guest(app).await;
    let mut c = Client::connect_url(app.ws_url("/api/ws?protocol=2"), &who).await;
    assert_eq!(c.frames.iter().find(|f| f["type"] == "hello").unwrap()["protocol"], 2);
    c.seats.insert('S');
    c.hidden_front = variant == "hidden_front";
    let start = json!({"type": "start_practice", "variant": variant, "level": "random",
                       "options": options});
    let room = c.act(start).await.unwrap()["room"].as_str().unwrap().to_string();
    let invite = c.wait_for(|m| m["type"] == "room" && m["invite"].is_string()).await["invite"]
        .as_str()
        .unwrap()
        .to_string();
    let mut watchers = vec![];
    for p in [2, 1] {
        let w = guest(app).await;
        let mut w = Client::connect_url(app.ws_url(&format!("/api/ws?protocol={p}")), &w).await;
        w.hidden_front = c.hidden_front;
        w.act(json!({"type": "join_room", "invite": invite})).await.unwrap();
        watchers.push(w);
    }
    let mut held = Held::default();
    c.act(json!({"type": "confirm", "room": room})).await.unwrap();
    let mut k = 7usize;
    let (mut resynced, mut auto) = (false, false);
    let end = loop {
        follow(&mut c, &mut held, |_, m| m["type"] == "update").await;
        if held.view.is_object() && held.view["status"]["state"] != "ongoing" {
            break held.as_frame();
        }
        let steps = held.view["steps"].as_u64().unwrap_or(0);
        if steps >= 20 && !resynced {
            resynced = true;
            compare_with_snapshot(&mut c, &mut held, &room).await;
            // a resync from an old version: the missed events and the whole view
            let old = held.v.unwrap() - 3;
            c.send(&json!({"type": "resync", "room": room, "v": old})).await;
            let caught = follow(&mut c, &mut held, |_, m| m["from_v"] == old).await;
            assert!(caught["view"]["pieces"].is_object(), "{caught}");
            assert!(caught["events"].as_array().unwrap().len() >= 3, "{caught}");
        }
        if steps >= 40 && !auto {
            // the computer plays on for the person (托管): the game ends sooner, and the socket
            // stays under its message rate
            auto = true;
            c.send(&json!({"type": "auto_play", "room": room, "on": true})).await;
        }
        if held.view["turn"] == "S" && !auto {
            if let Some((from, to)) = pick_move(&held.legal, k) {
                k = k.wrapping_mul(31).wrapping_add(11);
                c.send(&json!({"type": "move", "room": room, "from": from, "to": to})).await;
            }
        }
    };
    assert!(
        held.deltas > 10,
        "{variant}: most updates were deltas ({}, {})",
        held.deltas,
        held.full
    );
    assert_rule_ending(&c, &end);
    compare_with_snapshot(&mut c, &mut held, &room).await;
    c.assert_no_hidden_ranks();
    // the watchers: protocol 2 rebuilds the same ending from deltas, protocol 1 gets whole views
    let over = |h: &Held, _: &Value| h.view.is_object() && h.view["status"]["state"] != "ongoing";
    let mut w1 = watchers.pop().unwrap();
    let mut w2 = watchers.pop().unwrap();
    let mut seen = Held::default();
    let last = follow(&mut w2, &mut seen, over).await;
    assert!(last.get("delta").is_some() && seen.deltas > 10, "{last}");
    assert_eq!(seen.view, held.view, "the spectator's rebuilt ending");
    compare_with_snapshot(&mut w2, &mut seen, &room).await;
    w2.assert_no_hidden_ranks();
    let mut plain = Held::default();
    follow(&mut w1, &mut plain, over).await;
    assert_eq!(plain.deltas, 0, "protocol 1 has no deltas");
    assert_eq!(plain.view, held.view);
    assert!(w1.frames.iter().all(|f| f["type"] != "update" || f.get("view").is_some()));
    w1.assert_no_hidden_ranks();
}

async fn deltas_rebuild_the_view(backend: Backend) {
    let app = support::spawn_app_with(backend, |c| c.live.bot_move_delay_ms = 0).await;
    practice_game(&app, "four_player", json!({"max_steps": 80})).await;
    practice_game(&app, "hidden_front", json!({})).await;
}

/// `?protocol=` other than 1 or 2 is refused before the socket opens; `hello` says which one a
/// socket speaks (1 when it did not ask).
async fn unknown_protocol_is_refused(backend: Backend) {
    let app = support::spawn_app(backend).await;
    let who = guest(&app).await;
    for bad in ["3", "0", "two", ""] {
        let url = app.ws_url(&format!("/api/ws?protocol={bad}"));
        let refused = Client::try_connect_url(url.clone(), &who).await.err();
        assert_eq!(refused, Some(400), "protocol={bad}");
        let resp = reqwest::get(url.replacen("ws://", "http://", 1)).await.unwrap();
        let body: Value = resp.json().await.unwrap();
        assert_eq!(body["error"]["code"], "unsupported_protocol", "{body}");
    }
    let c = Client::connect(&app, &who).await;
    assert_eq!(c.frames.iter().find(|f| f["type"] == "hello").unwrap()["protocol"], 1);
}

both_backends!(deltas_rebuild_the_view, unknown_protocol_is_refused);
