//! WebSocket test client for the live-play tests (tokio-tungstenite against the real server),
//! and the hidden-information scanner applied to every frame a client receives.
#![allow(dead_code)]

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use std::collections::{BTreeSet, VecDeque};
use std::time::Duration;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use super::TestApp;

pub const WAIT: Duration = Duration::from_secs(60);

enum Incoming {
    Text(String),
    Closed(Option<(u16, String)>),
}

pub struct Client {
    pub name: String,
    pub account_id: i64,
    pub token: String,
    ws: futures_util::stream::SplitSink<WebSocketStream<MaybeTlsStream<TcpStream>>, Message>,
    incoming: tokio::sync::mpsc::UnboundedReceiver<Incoming>,
    queue: VecDeque<Value>,
    /// every frame received, in order
    pub frames: Vec<Value>,
    next_id: u64,
    /// seats this client controls in the game under test (for the hidden-rank scan)
    pub seats: BTreeSet<char>,
    /// the game under test is Hidden Front (stations `A1`…`E12`, seats S and N)
    pub hidden_front: bool,
    pub closed: Option<(u16, String)>,
}

/// A fresh registered account: (name, account id, access token).
pub async fn account(app: &TestApp, prefix: &str) -> (String, i64, String) {
    let (_c, s) = app.new_account(prefix).await;
    (
        s["account"]["username"].as_str().unwrap().to_string(),
        s["account"]["id"].as_i64().unwrap(),
        s["access_token"].as_str().unwrap().to_string(),
    )
}

pub async fn guest(app: &TestApp) -> (String, i64, String) {
    let (_c, s) = app.new_guest().await;
    (
        s["account"]["username"].as_str().unwrap().to_string(),
        s["account"]["id"].as_i64().unwrap(),
        s["access_token"].as_str().unwrap().to_string(),
    )
}

/// A WebSocket ticket of the access token `token` (`POST /api/ws/ticket` at `http_base`, e.g.
/// `http://127.0.0.1:1234`).
pub async fn ticket(http_base: &str, token: &str) -> String {
    let resp = reqwest::Client::new()
        .post(format!("{http_base}/api/ws/ticket"))
        .bearer_auth(token)
        .send()
        .await
        .expect("ticket request");
    assert_eq!(resp.status(), 200, "a ticket for the socket");
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["expires_in"], 30, "{body}");
    body["ticket"].as_str().expect("a ticket").to_string()
}

/// The WebSocket URL `url` (`ws://host/path`) with a fresh ticket of `token` in it, asked of
/// the same host (in a cluster, any node accepts it).
pub async fn ticket_url(url: &str, token: &str) -> String {
    match try_ticket_url(url, token).await {
        Ok(u) => u,
        Err(status) => panic!("a ticket for the socket: HTTP {status}"),
    }
}

/// As [`ticket_url`], or the HTTP status the ticket was refused with.
pub async fn try_ticket_url(url: &str, token: &str) -> Result<String, u16> {
    let rest = url.strip_prefix("ws://").expect("a ws:// URL");
    let host = rest.split('/').next().unwrap();
    let resp = reqwest::Client::new()
        .post(format!("http://{host}/api/ws/ticket"))
        .bearer_auth(token)
        .send()
        .await
        .expect("ticket request");
    if resp.status() != 200 {
        return Err(resp.status().as_u16());
    }
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["expires_in"], 30, "{body}");
    let t = body["ticket"].as_str().expect("a ticket");
    let sep = if url.contains('?') { '&' } else { '?' };
    Ok(format!("{url}{sep}ticket={t}"))
}

/// An upgrade request for `url` with `token` as `Authorization: Bearer`.
pub fn bearer_request(
    url: &str,
    token: &str,
) -> tokio_tungstenite::tungstenite::handshake::client::Request {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut req = url.into_client_request().unwrap();
    req.headers_mut().insert("Authorization", format!("Bearer {token}").parse().unwrap());
    req
}

impl Client {
    pub async fn connect(app: &TestApp, who: &(String, i64, String)) -> Client {
        Client::connect_url(app.ws_url("/api/ws"), who).await
    }

    /// Connect to any server at `url` (e.g. one node of a cluster, or the load balancer) as
    /// `who`, with a ticket asked of that server (access tokens do not go in URLs).
    pub async fn connect_url(url: String, who: &(String, i64, String)) -> Client {
        match Client::try_connect_url(url, who).await {
            Ok(c) => c,
            Err(status) => panic!("websocket connect: refused with HTTP {status}"),
        }
    }

    /// Connect to `app` from the local address `from` (e.g. 127.0.0.2: another client address
    /// on the loopback network).
    pub async fn connect_from(
        app: &TestApp,
        who: &(String, i64, String),
        from: std::net::IpAddr,
    ) -> Client {
        match Client::try_connect_from(app.ws_url("/api/ws"), who, Some(from)).await {
            Ok(c) => c,
            Err(status) => panic!("websocket connect: refused with HTTP {status}"),
        }
    }

    /// As [`Client::connect_url`], or the HTTP status the ticket or the upgrade was refused with.
    pub async fn try_connect_url(url: String, who: &(String, i64, String)) -> Result<Client, u16> {
        Client::try_connect_from(url, who, None).await
    }

    async fn try_connect_from(
        url: String,
        who: &(String, i64, String),
        from: Option<std::net::IpAddr>,
    ) -> Result<Client, u16> {
        let url = try_ticket_url(&url, &who.2).await?;
        let connected = match from {
            None => tokio_tungstenite::connect_async(url).await.map(|(ws, _)| ws),
            Some(ip) => {
                let u = url::Url::parse(&url).expect("a ws:// url");
                let to = format!("{}:{}", u.host_str().unwrap(), u.port().unwrap());
                let socket = tokio::net::TcpSocket::new_v4().unwrap();
                socket.bind(std::net::SocketAddr::new(ip, 0)).expect("bind the local address");
                let tcp = socket.connect(to.parse().unwrap()).await.expect("tcp connect");
                let stream = MaybeTlsStream::Plain(tcp);
                tokio_tungstenite::client_async(url, stream).await.map(|(ws, _)| ws)
            }
        };
        let c = Client::over(connected, who).await?;
        assert_eq!(c.account_id, who.1);
        Ok(c)
    }

    /// A logged-out visitor's socket at `url` (`?visitor=1`, no credentials), or the HTTP status
    /// its upgrade was refused with.
    pub async fn visitor(url: &str) -> Result<Client, u16> {
        let sep = if url.contains('?') { '&' } else { '?' };
        let connected = tokio_tungstenite::connect_async(format!("{url}{sep}visitor=1"))
            .await
            .map(|(ws, _)| ws);
        Client::over(connected, &("visitor".into(), 0, String::new())).await
    }

    /// A client on an opened socket, once its `hello` came (its account id is the hello's).
    async fn over(
        connected: Result<
            tokio_tungstenite::WebSocketStream<MaybeTlsStream<tokio::net::TcpStream>>,
            tokio_tungstenite::tungstenite::Error,
        >,
        who: &(String, i64, String),
    ) -> Result<Client, u16> {
        let ws = match connected {
            Ok(ws) => ws,
            Err(tokio_tungstenite::tungstenite::Error::Http(r)) => return Err(r.status().as_u16()),
            Err(e) => panic!("websocket connect: {e}"),
        };
        let (ws, mut read) = ws.split();
        let (tx, incoming) = tokio::sync::mpsc::unbounded_channel();
        // a reader task, so pings are answered even while the test waits on another client
        tokio::spawn(async move {
            loop {
                match read.next().await {
                    Some(Ok(Message::Text(t))) => {
                        if tx.send(Incoming::Text(t.as_str().to_string())).is_err() {
                            return;
                        }
                    }
                    Some(Ok(Message::Close(f))) => {
                        let _ = tx.send(Incoming::Closed(
                            f.map(|f| (u16::from(f.code), f.reason.to_string())),
                        ));
                        return;
                    }
                    Some(Ok(_)) => {}
                    Some(Err(_)) | None => {
                        let _ = tx.send(Incoming::Closed(None));
                        return;
                    }
                }
            }
        });
        let mut c = Client {
            incoming,
            name: who.0.clone(),
            account_id: who.1,
            token: who.2.clone(),
            ws,
            queue: VecDeque::new(),
            frames: vec![],
            next_id: (rand::random::<u32>() as u64) << 16,
            seats: BTreeSet::new(),
            hidden_front: false,
            closed: None,
        };
        let hello = c.next_of("hello").await;
        c.account_id = hello["account"]["id"].as_i64().expect("hello names the account");
        Ok(c)
    }

    pub async fn new(app: &TestApp, prefix: &str) -> Client {
        let who = account(app, prefix).await;
        Client::connect(app, &who).await
    }

    pub async fn send_raw(&mut self, m: Message) {
        self.ws.send(m).await.expect("send");
    }

    /// Send, reporting a closed socket instead of panicking.
    pub async fn send_checked(&mut self, v: &Value) -> Result<(), ()> {
        self.ws.send(Message::text(v.to_string())).await.map_err(|_| ())
    }

    pub async fn send(&mut self, v: &Value) {
        self.send_raw(Message::text(v.to_string())).await;
    }

    /// Read one frame from the socket (None when closed).
    async fn read(&mut self) -> Option<Value> {
        if self.closed.is_some() {
            return None;
        }
        let m = tokio::time::timeout(WAIT, self.incoming.recv())
            .await
            .expect("timed out waiting for a frame");
        match m {
            Some(Incoming::Text(t)) => {
                let v: Value = serde_json::from_str(&t).expect("server sent JSON");
                self.frames.push(v.clone());
                Some(v)
            }
            Some(Incoming::Closed(f)) => {
                self.closed = Some(f.unwrap_or((1006, String::new())));
                None
            }
            None => {
                self.closed = Some((1006, String::new()));
                None
            }
        }
    }

    /// Next message (queued first).
    pub async fn next(&mut self) -> Value {
        if let Some(v) = self.queue.pop_front() {
            return v;
        }
        match self.read().await {
            Some(v) => v,
            None => panic!("{}: socket closed: {:?}", self.name, self.closed),
        }
    }

    /// Wait for a message matching `pred`; others stay queued in order.
    pub async fn wait_for(&mut self, pred: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.queue.iter().position(&pred) {
            return self.queue.remove(i).unwrap();
        }
        loop {
            let v = self.read().await.expect("socket closed while waiting");
            if pred(&v) {
                return v;
            }
            self.queue.push_back(v);
        }
    }

    pub async fn next_of(&mut self, ty: &str) -> Value {
        let ty = ty.to_string();
        self.wait_for(move |v| v["type"] == ty.as_str()).await
    }

    /// Drop queued messages.
    pub fn clear(&mut self) {
        self.queue.clear();
    }

    /// Send an action with a fresh id; Ok(ack) or Err(error message).
    pub async fn act(&mut self, mut v: Value) -> Result<Value, Value> {
        let id = self.next_id;
        self.next_id += 1;
        v["id"] = json!(id);
        self.send(&v).await;
        let r = self
            .wait_for(move |m| (m["type"] == "ack" || m["type"] == "error") && m["id"] == json!(id))
            .await;
        if r["type"] == "ack" {
            Ok(r)
        } else {
            Err(r)
        }
    }

    /// Like `act` but with a given id (for idempotency tests).
    pub async fn act_with_id(&mut self, mut v: Value, id: Value) -> Result<Value, Value> {
        v["id"] = id.clone();
        self.send(&v).await;
        let r = self
            .wait_for(move |m| (m["type"] == "ack" || m["type"] == "error") && m["id"] == id)
            .await;
        if r["type"] == "ack" {
            Ok(r)
        } else {
            Err(r)
        }
    }

    pub async fn expect_err(&mut self, v: Value, code: &str) -> Value {
        match self.act(v.clone()).await {
            Ok(a) => panic!("{v} was accepted ({a}), expected {code}"),
            Err(e) => {
                assert_eq!(e["code"], code, "{v} → {e}");
                e
            }
        }
    }

    /// Wait until the socket is closed by the server; returns the close code.
    /// The last state received: the latest `update` or `snapshot` frame.
    pub fn last_state(&self) -> Value {
        self.frames
            .iter()
            .rev()
            .find(|m| m["type"] == "update" || m["type"] == "snapshot")
            .expect("a state was received")
            .clone()
    }

    pub async fn wait_closed(&mut self) -> u16 {
        while self.read().await.is_some() {}
        self.closed.as_ref().map(|c| c.0).unwrap_or(1006)
    }

    pub async fn close(mut self) {
        let _ = self.ws.send(Message::Close(None)).await;
        let _ = self.ws.close().await;
    }

    /// Scan every frame received so far for a rank this client may not see.
    pub fn assert_no_hidden_ranks(&self) {
        for f in &self.frames {
            if let Some(bad) = hidden_rank_in_game(f, &self.seats, self.hidden_front) {
                panic!(
                    "{} (seats {:?}) received a hidden rank {bad} in {f}",
                    self.name, self.seats
                );
            }
        }
    }
}

/// A rank in `frame` that a viewer controlling `seats` must not see (four_dark), if any.
/// Allowed: own pieces; a flag whose seat's flag is revealed in the same frame's view; anything
/// in a frame whose view says the game is over (full reveal).
pub fn hidden_rank_in(frame: &Value, seats: &BTreeSet<char>) -> Option<String> {
    hidden_rank_in_game(frame, seats, false)
}

/// The owner of a deployment's station: the seat letter of a four-player station (`"Na1"`), the
/// half of a Hidden Front one (`"A1"`…`"E6"` North, `"A7"`…`"E12"` South).
fn station_owner(k: &str, hidden_front: bool) -> Option<char> {
    if hidden_front {
        let row: u32 = k.get(1..)?.parse().ok()?;
        return Some(if row <= 6 { 'N' } else { 'S' });
    }
    k.chars().next()
}

/// [`hidden_rank_in`] for either game (in Hidden Front the seats are S and N, and `"E7"` is a
/// station, not a piece).
pub fn hidden_rank_in_game(
    frame: &Value,
    seats: &BTreeSet<char>,
    hidden_front: bool,
) -> Option<String> {
    let owners = if hidden_front { "NS" } else { "NESW" };
    let view = &frame["view"];
    // protocol 2: a `delta` instead of the view, with the fields that changed
    let delta = &frame["delta"];
    let over = (view.is_object() && view["status"]["state"] != "ongoing")
        || delta["status"]["state"].as_str().is_some_and(|s| s != "ongoing");
    let flags = if delta.is_object() { &delta["flags_revealed"] } else { &view["flags_revealed"] };
    let revealed: BTreeSet<char> = flags
        .as_array()
        .map(|a| a.iter().filter_map(|s| s.as_str()?.chars().next()).collect())
        .unwrap_or_default();
    let mut bad = None;
    walk(frame, &mut |key, v| {
        // a piece with a rank: "S9", "EF", ...
        if let Some(s) = v.as_str() {
            let c: Vec<char> = s.chars().collect();
            if c.len() == 2
                && owners.contains(c[0])
                && "123456789BMF".contains(c[1])
                && !seats.contains(&c[0])
            {
                let ok = over || (c[1] == 'F' && revealed.contains(&c[0]));
                if !ok && key != Some("seat") {
                    bad = Some(s.to_string());
                }
            }
        }
        // a deployment map "pieces": {"Na1": "3", ...} outside a view: stations must be mine
        let in_view = std::ptr::eq(v, &view["pieces"]) || std::ptr::eq(v, &delta["pieces"]);
        if key == Some("pieces") && !in_view {
            if let Some(m) = v.as_object() {
                for (k, r) in m {
                    if r.as_str().is_some_and(|r| r.len() == 1)
                        && !station_owner(k, hidden_front).is_some_and(|c| seats.contains(&c))
                        && !over
                    {
                        bad = Some(format!("{k}={r}"));
                    }
                }
            }
        }
    });
    bad
}

fn walk<'a>(v: &'a Value, f: &mut impl FnMut(Option<&str>, &'a Value)) {
    fn go<'a>(key: Option<&str>, v: &'a Value, f: &mut impl FnMut(Option<&str>, &'a Value)) {
        f(key, v);
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    go(Some(k), x, f);
                }
            }
            Value::Array(a) => {
                for x in a {
                    go(None, x, f);
                }
            }
            _ => {}
        }
    }
    go(None, v, f)
}

/// Seats listed in a `room` / `snapshot` message's `you.seats`.
pub fn my_seats(msg: &Value) -> BTreeSet<char> {
    msg["you"]["seats"]
        .as_array()
        .map(|a| a.iter().filter_map(|s| s.as_str()?.chars().next()).collect())
        .unwrap_or_default()
}

/// Pick a legal move from an update/snapshot's `legal_moves` ({from: [to]}), deterministic by `k`.
pub fn pick_move(legal: &Value, k: usize) -> Option<(String, String)> {
    let m = legal.as_object()?;
    let all: Vec<(String, String)> = m
        .iter()
        .flat_map(|(f, tos)| {
            tos.as_array()
                .into_iter()
                .flatten()
                .map(move |t| (f.clone(), t.as_str().unwrap().to_string()))
        })
        .collect();
    if all.is_empty() {
        return None;
    }
    Some(all[k % all.len()].clone())
}

/// Four clients seated N, E, S, W in one casual room with `options`, all ready; returns
/// (room id, clients in seat order). The game is in its deployment phase when this returns.
pub async fn four_player_room(app: &TestApp, options: Value) -> (String, Vec<Client>) {
    let mut cs = vec![];
    for p in ["n", "e", "s", "w"] {
        cs.push(Client::new(app, &format!("lp{p}")).await);
    }
    let ack = cs[0]
        .act(json!({"type": "create_room", "public": true, "options": options}))
        .await
        .expect("create_room");
    let room = ack["room"].as_str().unwrap().to_string();
    for (i, seat) in ["N", "E", "S", "W"].iter().enumerate() {
        if i > 0 {
            cs[i].act(json!({"type": "join_room", "room": room})).await.expect("join");
        }
        cs[i]
            .act(json!({"type": "take_seat", "room": room, "seat": seat}))
            .await
            .expect("take_seat");
        cs[i].seats.insert(seat.chars().next().unwrap());
    }
    for c in cs.iter_mut() {
        c.act(json!({"type": "ready", "room": room, "ready": true})).await.expect("ready");
    }
    for c in cs.iter_mut() {
        let snap = c.wait_for(|m| m["type"] == "snapshot" && m["phase"] == "deploying").await;
        assert_eq!(my_seats(&snap), c.seats);
    }
    (room, cs)
}

/// Confirm every deployment and wait for the battle to start on every client.
pub async fn confirm_all(room: &str, cs: &mut [Client]) {
    for c in cs.iter_mut() {
        c.act(json!({"type": "confirm", "room": room})).await.expect("confirm");
    }
    for c in cs.iter_mut() {
        wait_battle(c).await;
    }
}

/// Wait for the next update with an event matching `pred`; returns that update.
pub async fn wait_event(c: &mut Client, pred: impl Fn(&Value) -> bool) -> Value {
    c.wait_for(|m| {
        m["type"] == "update" && m["events"].as_array().is_some_and(|es| es.iter().any(&pred))
    })
    .await
}

/// Wait for the update that starts the battle.
pub async fn wait_battle(c: &mut Client) {
    wait_event(c, |e| e["type"] == "battle_started").await;
}

/// The latest update/snapshot state a client has seen: returns (v, turn, legal_moves, status state).
pub async fn latest(c: &mut Client) -> Value {
    c.wait_for(|m| m["type"] == "update" || m["type"] == "snapshot").await
}

// ---------- how a game ended

/// Whether `m` is an update or snapshot whose view says the game is over.
pub fn is_over(m: &Value) -> bool {
    (m["type"] == "update" || m["type"] == "snapshot")
        && m["view"].is_object()
        && m["view"]["status"]["state"] != "ongoing"
}

/// Wait for the update (or snapshot) that shows the game over; returns it.
pub async fn wait_over(c: &mut Client) -> Value {
    c.wait_for(is_over).await
}

/// The seats `c` saw escape: `escaped` events, and seats a `room`/`snapshot`/`presence` frame
/// marks `"escaped": true`.
pub fn escaped_seats(c: &Client) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for f in &c.frames {
        for e in f["events"].as_array().into_iter().flatten() {
            if e["type"] == "escaped" {
                out.insert(e["seat"].as_str().unwrap_or("?").to_string());
            }
        }
        if let Some(seats) = f["seats"].as_object() {
            for (seat, info) in seats {
                if info["escaped"] == true {
                    out.insert(seat.clone());
                }
            }
        }
    }
    out
}

/// The game `c` follows has ended, and as expected: `end` (the frame showing it over) has the
/// status `expected` (`{"state", "winner", "reason"}`), and no seat escaped but `escaped` (the
/// seats the test itself made escape).
pub fn assert_ended(c: &Client, end: &Value, expected: Value, escaped: &[&str]) {
    assert!(is_over(end), "{}: the game is not over in {end}", c.name);
    assert_eq!(end["view"]["status"], expected, "{}: how the game ended", c.name);
    assert_escaped(c, escaped);
}

/// No seat escaped in what `c` saw, but `escaped`.
pub fn assert_escaped(c: &Client, escaped: &[&str]) {
    let want: BTreeSet<String> = escaped.iter().map(|s| s.to_string()).collect();
    assert_eq!(escaped_seats(c), want, "{}: seats that escaped", c.name);
}

/// For a game whose ending a test cannot know in advance (random play): `end` shows it over by
/// an ending the rules allow for its game (rules.md §7, hidden-front.md §5) and its position,
/// and no seat escaped in what `c` saw. Returns the status.
pub fn assert_rule_ending(c: &Client, end: &Value) -> Value {
    assert!(is_over(end), "{}: the game is not over in {end}", c.name);
    let view = &end["view"];
    let status = view["status"].clone();
    let (state, reason) = (status["state"].as_str().unwrap(), status["reason"].as_str().unwrap());
    let winner = status["winner"].as_str();
    let hidden_front = view["variant"] == "hidden_front";
    let eliminated: BTreeSet<&str> =
        view["eliminated"].as_array().unwrap().iter().filter_map(|s| s.as_str()).collect();
    match (hidden_front, state) {
        (false, "won") => {
            assert_eq!(reason, "elimination", "{status}");
            let losers: &[&str] = match winner {
                Some("NS") => &["E", "W"],
                Some("EW") => &["N", "S"],
                w => panic!("a four-player winner is a team, got {w:?}"),
            };
            assert!(losers.iter().all(|s| eliminated.contains(s)), "both losers out: {view}");
        }
        (false, "draw") => {
            assert!(winner.is_none());
            match reason {
                "step_limit" => {
                    let max = view["options"]["max_steps"].as_u64().unwrap();
                    assert!(view["steps"].as_u64().unwrap() >= max, "{view}");
                }
                "agreement" => {}
                r => panic!("not a four-player draw: {r}"),
            }
        }
        (true, "won") => {
            assert!(matches!(winner, Some("S") | Some("N")), "{status}");
            let loser = if winner == Some("S") { "N" } else { "S" };
            let flag = format!("{loser}F");
            let pieces = view["pieces"].as_object().unwrap();
            match reason {
                "flag_captured" => {
                    assert!(!pieces.values().any(|p| p == flag.as_str()), "the flag is gone")
                }
                "timeouts" => assert_eq!(view["timeouts"][loser], 3, "{view}"),
                "no_legal_move" | "surrender" => {}
                r => panic!("not a Hidden Front win: {r}"),
            }
        }
        (true, "draw") => {
            assert!(winner.is_none());
            match reason {
                "no_combat" => assert!(view["quiet_steps"].as_u64().unwrap() >= 100, "{view}"),
                "agreement" => {}
                r => panic!("not a Hidden Front draw: {r}"),
            }
        }
        (_, s) => panic!("not an ending: {s}"),
    }
    assert_escaped(c, &[]);
    status
}

/// `c` leaves `room`, a game whose people are all out (its bots play on while one of them
/// watches, and give up once they are gone: issue 38 §12); returns the game as stored once it
/// ended (`GET /api/games/{id}` as `c`: its `result`, its `record`).
pub async fn leave_until_finished(app: &TestApp, c: &mut Client, room: &str) -> Value {
    c.act(json!({"type": "leave_room", "room": room})).await.expect("leave_room");
    let game = game_of_room(c, room);
    let since = std::time::Instant::now();
    loop {
        let g: Value =
            app.get_as(&format!("/api/games/{game}"), &c.token).await.json().await.unwrap();
        if g["state"] == "finished" {
            return g;
        }
        assert!(
            since.elapsed() < Duration::from_secs(30),
            "the game went on after its person left: {g}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The game being played in `room`, from the last frame `c` got that names it.
pub fn game_of_room(c: &Client, room: &str) -> i64 {
    c.frames
        .iter()
        .rev()
        .filter(|f| f["room"] == room)
        .find_map(|f| f["game"].as_i64())
        .unwrap_or_else(|| panic!("{} got no frame naming the game of {room}", c.name))
}
