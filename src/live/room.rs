//! The room task: one tokio task per room owns its seats, subscribers, chat and, once started,
//! its game (`siguo_rules::Game`), deployment phase, clocks and bots. Commands arrive on an mpsc
//! channel; every accepted change is committed to the database, then broadcast with a fresh
//! per-receiver view.
use super::finish::{FinishedGame, FinishedSeat};
use super::protocol::{self, now_ms, ClientId, ClientMsg, ProtoError};
use super::store::{self, DeploySeat, StoredGame};
use super::{ClientTx, GameKind, Live, SeatOccupant, Who};
use crate::error::{AppError, AppResult};
use bytestring::ByteString;
use diesel::Connection;
use rand::SeedableRng;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use siguo_bots::{Bot, Level};
use siguo_rules::{
    Action, Deployment, Event, Formation, Game, GameRecord, Move, Options, Seat, SeatSet, Status,
    View, Viewer,
};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// Commands to a room task.
pub enum Cmd {
    /// Subscribe a socket (spectator unless the person holds a seat).
    /// `id: None` means no ack (the lobby already acknowledged, e.g. `create_room`).
    Join { conn: ClientTx, who: Who, id: Option<ClientId>, v: Option<u64> },
    /// A socket closed.
    Gone { conn_id: u64 },
    /// A client message addressed to this room.
    Msg { conn: ClientTx, who: Who, id: Option<ClientId>, msg: ClientMsg },
    /// A bot finished thinking.
    BotDone { seat: Seat, bot: Box<dyn Bot>, mv: Option<Move> },
}

/// Cloneable handle to a room task.
#[derive(Clone)]
pub struct RoomHandle {
    tx: mpsc::Sender<Cmd>,
}

impl RoomHandle {
    /// Send a command; false if the room is gone.
    pub async fn send(&self, cmd: Cmd) -> bool {
        self.tx.send(cmd).await.is_ok()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Waiting,
    Deploying,
    Battle,
    Finished,
}

impl Phase {
    fn as_str(self) -> &'static str {
        match self {
            Phase::Waiting => "waiting",
            Phase::Deploying => "deploying",
            Phase::Battle => "battle",
            Phase::Finished => "finished",
        }
    }
}

struct Slot {
    occ: SeatOccupant,
    ready: bool,
    offline_since: Option<i64>,
    escaped: bool,
}

struct Sub {
    who: Who,
    tx: ClientTx,
}

const CHAT_MAX: usize = 200;
const CHAT_WINDOW: Duration = Duration::from_secs(10);
const CHAT_PER_WINDOW: usize = 5;
const EMPTY_ROOM_MS: i64 = 60_000;

/// An `update` message (docs/protocol.md), serialized straight from borrowed parts.
#[derive(Serialize)]
struct UpdateMsg<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    room: &'a str,
    game: Option<i64>,
    v: u64,
    from_v: u64,
    events: &'a [Box<RawValue>],
    view: Option<&'a View>,
    clock: &'a RawValue,
    legal_moves: BTreeMap<String, Vec<String>>,
}

/// One public event (or another part of a message) as JSON text.
fn raw<T: Serialize + ?Sized>(v: &T) -> Box<RawValue> {
    serde_json::value::to_raw_value(v).expect("a message part serializes")
}

struct Room {
    live: Live,
    me: mpsc::Sender<Cmd>,
    id: String,
    kind: GameKind,
    public: bool,
    invite: Option<String>,
    host: Option<i64>,
    created: i64,
    options: Options,
    phase: Phase,
    seats: [Option<Slot>; 4],
    subs: HashMap<u64, Sub>,
    game_id: Option<i64>,
    v: u64,
    /// (version, events of that version as JSON text): kept as text, not `Value` trees, because
    /// every room holds up to `resync_log` of them
    log: VecDeque<(u64, Vec<Box<RawValue>>)>,
    deploying: Vec<DeploySeat>,
    deploy_deadline: i64,
    game: Option<Game>,
    actions: usize,
    turn_deadline: Option<i64>,
    /// (a Mutex only to make the room `Sync`; it is never contended)
    bots: [std::sync::Mutex<Option<Box<dyn Bot>>>; 4],
    bot_thinking: bool,
    chat_times: HashMap<i64, VecDeque<Instant>>,
    finished_at: Option<i64>,
    empty_since: Option<i64>,
    retry_at: Option<i64>,
    closed: bool,
}

fn random_code(len: usize) -> String {
    use rand::Rng;
    const ALPHABET: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
    let mut rng = rand::rngs::StdRng::from_os_rng();
    (0..len).map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())] as char).collect()
}

fn rng() -> rand::rngs::StdRng {
    rand::rngs::StdRng::from_os_rng()
}

fn level_str(l: Level) -> String {
    serde_json::to_value(l).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default()
}

fn seat_key(s: Seat) -> String {
    s.letter().to_string()
}

fn new_room(
    live: &Live,
    id: String,
    kind: GameKind,
    public: bool,
    options: Options,
) -> (Room, mpsc::Receiver<Cmd>) {
    let (tx, rx) = mpsc::channel(1024);
    let room = Room {
        live: live.clone(),
        me: tx,
        id,
        kind,
        public,
        invite: None,
        host: None,
        created: now_ms(),
        options,
        phase: Phase::Waiting,
        seats: [None, None, None, None],
        subs: HashMap::new(),
        game_id: None,
        v: 0,
        log: VecDeque::new(),
        deploying: vec![],
        deploy_deadline: 0,
        game: None,
        actions: 0,
        turn_deadline: None,
        bots: Default::default(),
        bot_thinking: false,
        chat_times: HashMap::new(),
        finished_at: None,
        empty_since: Some(now_ms()),
        retry_at: None,
        closed: false,
    };
    (room, rx)
}

/// Open a casual room (waiting phase). Returns (room id, invite code).
pub(crate) fn spawn_waiting(
    live: &Live,
    host: &Who,
    public: bool,
    options: Options,
) -> (String, String) {
    let id = random_code(8).to_lowercase();
    let invite = random_code(6);
    let (mut room, rx) = new_room(live, id.clone(), GameKind::Casual, public, options);
    room.invite = Some(invite.clone());
    room.host = Some(host.account_id);
    live.register(&id, Some(&invite), None, RoomHandle { tx: room.me.clone() });
    room.update_summary();
    live.spawn(room.run(rx));
    (id, invite)
}

fn make_bot(level: Level, budget: u64) -> Box<dyn Bot> {
    use rand::Rng;
    siguo_bots::make_bot(level, rng().random(), Duration::from_millis(budget))
}

/// Create a game in its deployment phase (ranked, practice).
pub(crate) async fn spawn_game(
    live: &Live,
    kind: GameKind,
    seats: [SeatOccupant; 4],
    options: Options,
) -> AppResult<(i64, String)> {
    let (mut room, rx) = new_room(live, String::new(), kind, false, options);
    for (i, occ) in seats.into_iter().enumerate() {
        room.seats[i] =
            Some(Slot { occ, ready: true, offline_since: Some(now_ms()), escaped: false });
    }
    room.host = room.seats.iter().flatten().find_map(|s| s.occ.account_id());
    room.begin_deployment().await?;
    let game_id = room.game_id.expect("game id");
    room.id = format!("g{game_id}");
    live.register(&room.id, None, Some(game_id), RoomHandle { tx: room.me.clone() });
    let room_id = room.id.clone();
    if kind.is_ranked() {
        for (i, s) in room.seats.iter().enumerate() {
            if let Some(SeatOccupant::Account { account_id, .. }) = s.as_ref().map(|s| &s.occ) {
                let mine: Vec<String> = room.seats_of_account(*account_id).map(seat_key).collect();
                if room.seats_of_account(*account_id).next() == Some(Seat::from_index(i)) {
                    live.notify_account(
                        *account_id,
                        &json!({"type": "match_found", "room": room_id, "game": game_id, "kind": kind, "seats": mine}),
                    );
                }
            }
        }
    }
    live.spawn(room.run(rx));
    Ok((game_id, room_id))
}

/// Resume a game loaded from the database.
pub(crate) fn spawn_restored(live: &Live, g: StoredGame) -> AppResult<()> {
    let id = format!("g{}", g.id);
    let (mut room, rx) = new_room(live, id.clone(), g.kind, false, g.options);
    let now = now_ms();
    let grace = live.config().restore_grace_seconds as i64 * 1000;
    room.game_id = Some(g.id);
    room.v = now as u64; // never equal to a version a client saw before the restart
    for (i, occ) in g.seats.into_iter().enumerate() {
        let bot = matches!(occ, SeatOccupant::Bot { .. });
        if let SeatOccupant::Bot { level } = &occ {
            *room.bots[i].get_mut().unwrap() = Some(make_bot(*level, live.config().bot_budget_ms));
        }
        room.seats[i] = Some(Slot {
            occ,
            ready: true,
            offline_since: if bot { None } else { Some(now) },
            escaped: g.escaped[i],
        });
    }
    room.host = room.seats.iter().flatten().find_map(|s| s.occ.account_id());
    match g.state.as_str() {
        "deploying" => {
            let mut deps = g.deploying.unwrap_or_default();
            if deps.len() != 4 {
                deps = Seat::ALL
                    .iter()
                    .map(|s| DeploySeat {
                        deployment: Deployment::random(*s, &g.options, &mut rng()),
                        confirmed: false,
                        surrendered: false,
                    })
                    .collect();
            }
            for (i, d) in deps.iter_mut().enumerate() {
                if let Some(b) = room.bots[i].get_mut().unwrap().as_mut() {
                    if !d.confirmed {
                        d.deployment = b.deploy(Seat::from_index(i), &g.options);
                        d.confirmed = true;
                    }
                }
            }
            room.deploying = deps;
            room.phase = Phase::Deploying;
            room.deploy_deadline = now + g.options.deploy_seconds as i64 * 1000 + grace;
        }
        "battle" => {
            let deployments =
                g.deployments.ok_or_else(|| AppError::internal("battle without deployments"))?;
            let record = GameRecord { options: g.options, deployments, actions: g.actions };
            let (game, events) = record.replay_with_events().map_err(AppError::internal)?;
            for b in room.bots.iter_mut().filter_map(|m| m.get_mut().unwrap().as_mut()) {
                for e in &events {
                    b.observe(e);
                }
            }
            room.actions = record.actions.len();
            room.phase = Phase::Battle;
            room.turn_deadline =
                game.turn().map(|_| now + g.options.move_seconds as i64 * 1000 + grace);
            room.game = Some(game);
        }
        other => return Err(AppError::internal(format!("cannot restore a game in state {other}"))),
    }
    live.register(&id, None, Some(g.id), RoomHandle { tx: room.me.clone() });
    live.spawn(async move {
        let mut room = room;
        // A game restored as over (crash between the last action and the final write) is finished now.
        if room.game.as_ref().is_some_and(|g| g.is_over()) {
            let status = room.game.as_ref().unwrap().status();
            let f = room.finished_game(status);
            let gid = g.id;
            match room.live.db().run(move |c| store::append_actions(c, gid, 0, &[], Some(&f))).await
            {
                Ok(()) => room.enter_finished(),
                Err(e) => tracing::error!(game = gid, error = %e, "finishing restored game"),
            }
        }
        room.run(rx).await
    });
    Ok(())
}

impl Room {
    async fn run(mut self, mut rx: mpsc::Receiver<Cmd>) {
        let mut shutdown = self.live.shutdown_signal();
        if *shutdown.borrow() {
            return;
        }
        self.update_summary();
        self.after_change().await;
        while !self.closed {
            let wake = self.next_wakeup();
            let sleep = tokio::time::sleep(Duration::from_millis(
                wake.map(|w| (w - now_ms()).max(0) as u64).unwrap_or(3_600_000),
            ));
            tokio::select! {
                _ = shutdown.changed() => break,
                cmd = rx.recv() => match cmd {
                    None => break,
                    Some(cmd) => self.handle(cmd).await,
                },
                _ = sleep => self.on_timer().await,
            }
        }
        if self.closed {
            for s in self.subs.values() {
                s.tx.send(&json!({"type": "room_closed", "room": self.id}));
            }
            self.live.unregister(&self.id, self.invite.as_deref(), self.game_id);
        }
    }

    fn next_wakeup(&self) -> Option<i64> {
        let mut w: Vec<i64> = vec![];
        if let Some(r) = self.retry_at {
            w.push(r);
        }
        match self.phase {
            Phase::Waiting => {
                if let Some(e) = self.empty_since {
                    w.push(e + EMPTY_ROOM_MS);
                }
            }
            Phase::Deploying | Phase::Battle => {
                if self.phase == Phase::Deploying {
                    w.push(self.deploy_deadline);
                }
                if self.phase == Phase::Battle && self.retry_at.is_none() {
                    if let Some(t) = self.turn_deadline {
                        w.push(t);
                    }
                }
                if self.kind.is_ranked() {
                    let grace = self.options.reconnect_seconds as i64 * 1000;
                    for s in self.seats.iter().flatten() {
                        if let (Some(off), false) = (s.offline_since, s.escaped) {
                            w.push(off + grace);
                        }
                    }
                }
            }
            Phase::Finished => {
                if let Some(f) = self.finished_at {
                    w.push(f + self.live.config().finished_room_seconds as i64 * 1000);
                }
            }
        }
        w.into_iter().min()
    }

    async fn on_timer(&mut self) {
        let now = now_ms();
        if self.retry_at.is_some_and(|r| r <= now) {
            self.retry_at = None;
        }
        match self.phase {
            Phase::Waiting => {
                if self.empty_since.is_some_and(|e| e + EMPTY_ROOM_MS <= now) && self.no_people() {
                    self.closed = true;
                }
            }
            Phase::Deploying | Phase::Battle => {
                if self.kind.is_ranked() {
                    let grace = self.options.reconnect_seconds as i64 * 1000;
                    let late: Vec<Seat> = Seat::ALL
                        .into_iter()
                        .filter(|s| {
                            self.seats[s.index()].as_ref().is_some_and(|sl| {
                                !sl.escaped && sl.offline_since.is_some_and(|o| o + grace <= now)
                            })
                        })
                        .collect();
                    if !late.is_empty() {
                        if let Err(e) = self.escape(&late).await {
                            tracing::error!(room = %self.id, error = ?e, "escape");
                            self.retry_at = Some(now + 1000);
                            return;
                        }
                    }
                }
                if self.phase == Phase::Deploying && self.deploy_deadline <= now {
                    for d in self.deploying.iter_mut() {
                        d.confirmed = true;
                    }
                    if let Err(e) = self.start_battle().await {
                        tracing::error!(room = %self.id, error = ?e, "start battle");
                        self.retry_at = Some(now + 1000);
                    }
                } else if self.phase == Phase::Battle
                    && self.turn_deadline.is_some_and(|t| t <= now)
                {
                    if let Err(e) = self.commit(vec![Action::Timeout]).await {
                        tracing::error!(room = %self.id, error = ?e, "timeout");
                        self.retry_at = Some(now + 1000);
                    }
                }
            }
            Phase::Finished => {
                if self.finished_at.is_some_and(|f| {
                    f + self.live.config().finished_room_seconds as i64 * 1000 <= now
                }) {
                    self.closed = true;
                }
            }
        }
        self.after_change().await;
    }

    fn no_people(&self) -> bool {
        self.subs.is_empty() && !self.seats.iter().flatten().any(|s| s.occ.account_id().is_some())
    }

    // ---- who controls what ----

    fn seats_of_account(&self, account_id: i64) -> impl Iterator<Item = Seat> + '_ {
        Seat::ALL.into_iter().filter(move |s| {
            self.seats[s.index()].as_ref().and_then(|sl| sl.occ.account_id()) == Some(account_id)
        })
    }

    fn seat_set(&self, account_id: i64) -> Option<SeatSet> {
        let mut set: Option<SeatSet> = None;
        for s in self.seats_of_account(account_id) {
            set = Some(set.map_or(SeatSet::one(s), |x| x.with(s)));
        }
        set
    }

    fn viewer(&self, account_id: i64) -> Viewer {
        match self.seat_set(account_id) {
            Some(s) => Viewer::Seats(s),
            None => Viewer::Spectator,
        }
    }

    /// The seat an action is for: the named one (must be yours), or your only seat.
    fn my_seat(&self, who: &Who, seat: Option<Seat>) -> Result<Seat, ProtoError> {
        let mine: Vec<Seat> = self.seats_of_account(who.account_id).collect();
        match seat {
            Some(s) if mine.contains(&s) => Ok(s),
            Some(s) => Err(ProtoError::new(
                "not_your_seat",
                format!("you do not control seat {}", s.letter()),
            )),
            None => match mine.as_slice() {
                [s] => Ok(*s),
                [] => Err(ProtoError::new("not_your_seat", "you do not hold a seat in this room")),
                _ => Err(ProtoError::new(
                    "bad_message",
                    "you control two seats: say which one (\"seat\")",
                )),
            },
        }
    }

    fn online(&self, seat: Seat) -> bool {
        match self.seats[seat.index()].as_ref() {
            None => false,
            Some(sl) => match sl.occ.account_id() {
                None => true,
                Some(a) => self.subs.values().any(|s| s.who.account_id == a),
            },
        }
    }

    // ---- messages ----

    fn seats_json(&self) -> Value {
        let mut m = serde_json::Map::new();
        for s in Seat::ALL {
            let v = match self.seats[s.index()].as_ref() {
                None => Value::Null,
                Some(sl) => {
                    let (account_id, name, guest, bot) = match &sl.occ {
                        SeatOccupant::Account { account_id, name, guest } => {
                            (json!(account_id), name.clone(), *guest, Value::Null)
                        }
                        SeatOccupant::Bot { level } => (
                            Value::Null,
                            format!("Bot ({})", level_str(*level)),
                            false,
                            json!(level),
                        ),
                    };
                    json!({"account_id": account_id, "name": name, "guest": guest, "bot": bot,
                           "ready": sl.ready, "online": self.online(s), "escaped": sl.escaped})
                }
            };
            m.insert(seat_key(s), v);
        }
        Value::Object(m)
    }

    fn room_msg(&self, account_id: i64) -> Value {
        let host_name = self.host_name();
        let seats: Vec<String> = self.seats_of_account(account_id).map(seat_key).collect();
        json!({
            "type": "room", "room": self.id, "kind": self.kind, "public": self.public,
            "invite": self.invite, "host": host_name, "options": self.options,
            "phase": self.phase.as_str(), "game": self.game_id, "seats": self.seats_json(),
            "spectators": self.spectator_count(),
            "you": {"seats": seats, "host": self.host == Some(account_id)},
        })
    }

    fn host_name(&self) -> Option<String> {
        let h = self.host?;
        self.subs.values().find(|s| s.who.account_id == h).map(|s| s.who.name.clone()).or_else(
            || {
                self.seats.iter().flatten().find_map(|sl| match &sl.occ {
                    SeatOccupant::Account { account_id, name, .. } if *account_id == h => {
                        Some(name.clone())
                    }
                    _ => None,
                })
            },
        )
    }

    fn spectator_count(&self) -> usize {
        let mut ids: Vec<i64> = self
            .subs
            .values()
            .map(|s| s.who.account_id)
            .filter(|a| self.seats_of_account(*a).next().is_none())
            .collect();
        ids.sort();
        ids.dedup();
        ids.len()
    }

    fn update_summary(&self) {
        let seated: Vec<(i64, Seat)> = Seat::ALL
            .into_iter()
            .filter_map(|s| Some((self.seats[s.index()].as_ref()?.occ.account_id()?, s)))
            .collect();
        self.live.set_seated(
            &self.id,
            (self.phase != Phase::Finished && !seated.is_empty()).then(|| {
                (
                    seated,
                    json!({"room": self.id, "game": self.game_id, "phase": self.phase.as_str()}),
                )
            }),
        );
        if self.phase == Phase::Waiting && self.public && self.kind == GameKind::Casual {
            let mut seats = serde_json::Map::new();
            for s in Seat::ALL {
                let v = match self.seats[s.index()].as_ref().map(|sl| &sl.occ) {
                    None => Value::Null,
                    Some(SeatOccupant::Account { name, .. }) => json!({"name": name}),
                    Some(SeatOccupant::Bot { level }) => json!({"bot": level}),
                };
                seats.insert(seat_key(s), v);
            }
            self.live.set_summary(
                &self.id,
                Some(json!({"room": self.id, "host": self.host_name(), "host_id": self.host, "options": self.options,
                            "seats": seats, "spectators": self.spectator_count(), "created": self.created})),
            );
        } else {
            self.live.set_summary(&self.id, None);
        }
    }

    fn broadcast_room(&self) {
        for s in self.subs.values() {
            s.tx.send(&self.room_msg(s.who.account_id));
        }
        self.update_summary();
    }

    fn broadcast_presence(&self) {
        let mut m = serde_json::Map::new();
        for s in Seat::ALL {
            m.insert(seat_key(s), json!(self.online(s)));
        }
        let msg = json!({"type": "presence", "room": self.id, "seats": m});
        for s in self.subs.values() {
            s.tx.send(&msg);
        }
    }

    fn clock_json(&self) -> Value {
        let now = now_ms();
        let (phase, seat, deadline) = match self.phase {
            Phase::Deploying => ("deploying", None, Some(self.deploy_deadline)),
            Phase::Battle => {
                ("battle", self.game.as_ref().and_then(|g| g.turn()), self.turn_deadline)
            }
            Phase::Finished => ("finished", None, None),
            Phase::Waiting => ("waiting", None, None),
        };
        json!({"phase": phase, "seat": seat, "deadline": deadline,
               "remaining_ms": deadline.map(|d| (d - now).max(0)), "server_time": now})
    }

    fn legal_moves_json(&self, viewer: Viewer) -> Value {
        json!(self.legal_moves_map(viewer))
    }

    /// The viewer's legal moves (from → destinations), empty unless it is the viewer's turn.
    fn legal_moves_map(&self, viewer: Viewer) -> BTreeMap<String, Vec<String>> {
        let mut m: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let Some(g) = self.game.as_ref() else { return m };
        let (Some(turn), Viewer::Seats(set)) = (g.turn(), viewer) else { return m };
        if !set.contains(turn) {
            return m;
        }
        for mv in g.legal_moves() {
            m.entry(mv.from.to_string()).or_default().push(mv.to.to_string());
        }
        m
    }

    fn view_json(&self, viewer: Viewer) -> Value {
        match self.game.as_ref() {
            Some(g) => serde_json::to_value(g.view(viewer)).unwrap_or(Value::Null),
            None => Value::Null,
        }
    }

    fn snapshot(&self, account_id: i64) -> Value {
        let viewer = self.viewer(account_id);
        let mine: Vec<Seat> = self.seats_of_account(account_id).collect();
        let deployments = if self.phase == Phase::Deploying {
            let mut m = serde_json::Map::new();
            for s in &mine {
                m.insert(seat_key(*s), json!(self.deploying[s.index()].deployment));
            }
            Value::Object(m)
        } else {
            Value::Null
        };
        let confirmed: Vec<Seat> = match self.phase {
            Phase::Deploying => {
                Seat::ALL.into_iter().filter(|s| self.deploying[s.index()].confirmed).collect()
            }
            Phase::Waiting => vec![],
            _ => Seat::ALL.to_vec(),
        };
        json!({
            "type": "snapshot", "room": self.id, "game": self.game_id, "v": self.v, "phase": self.phase.as_str(),
            "seats": self.seats_json(), "you": {"seats": mine},
            "view": self.view_json(viewer), "deployments": deployments, "confirmed": confirmed,
            "clock": self.clock_json(), "legal_moves": self.legal_moves_json(viewer),
            "last_events": self.log.back().map(|(_, e)| e.as_slice()).unwrap_or_default(),
        })
    }

    /// The `update` message for one viewer, as text. Built directly from the engine's `View`
    /// (serialized once, no intermediate `Value` tree); `cache` shares the text between the
    /// subscribers with the same viewer (the sockets of one seat, all spectators).
    fn update_text(
        &self,
        viewer: Viewer,
        from_v: u64,
        events: &[Box<RawValue>],
        clock: &RawValue,
        cache: &mut HashMap<u8, ByteString>,
    ) -> ByteString {
        let key = match viewer {
            Viewer::Seats(s) => s.0,
            Viewer::Spectator => 0,
        };
        cache
            .entry(key)
            .or_insert_with(|| {
                let view = self.game.as_ref().map(|g| g.view(viewer));
                let msg = UpdateMsg {
                    kind: "update",
                    room: &self.id,
                    game: self.game_id,
                    v: self.v,
                    from_v,
                    events,
                    view: view.as_ref(),
                    clock,
                    legal_moves: self.legal_moves_map(viewer),
                };
                ByteString::from(serde_json::to_string(&msg).expect("an update serializes"))
            })
            .clone()
    }

    /// A new version with these public events: log it, send every subscriber its update.
    fn publish(&mut self, events: Vec<Value>) {
        let events: Vec<Box<RawValue>> = events.iter().map(raw).collect();
        self.publish_raw(events)
    }

    fn publish_raw(&mut self, events: Vec<Box<RawValue>>) {
        let from_v = self.v;
        self.v += 1;
        let clock = raw(&self.clock_json());
        let mut cache = HashMap::new();
        for s in self.subs.values() {
            let viewer = self.viewer(s.who.account_id);
            s.tx.send_text(self.update_text(viewer, from_v, &events, &clock, &mut cache));
        }
        self.log.push_back((self.v, events));
        while self.log.len() > self.live.config().resync_log {
            self.log.pop_front();
        }
    }

    fn send_deployment(&self, seat: Seat) {
        let Some(a) = self.seats[seat.index()].as_ref().and_then(|s| s.occ.account_id()) else {
            return;
        };
        let d = &self.deploying[seat.index()];
        let msg = json!({"type": "deployment", "room": self.id, "game": self.game_id, "seat": seat,
                         "confirmed": d.confirmed, "pieces": d.deployment.pieces});
        for s in self.subs.values().filter(|s| s.who.account_id == a) {
            s.tx.send(&msg);
        }
    }

    // ---- command handling ----

    async fn handle(&mut self, cmd: Cmd) {
        match cmd {
            Cmd::Join { conn, who, id, v } => {
                let a = who.account_id;
                let first = !self.subs.values().any(|s| s.who.account_id == a);
                if id.is_some() {
                    conn.send(&protocol::ack(
                        &id,
                        json!({"room": self.id, "game": self.game_id, "v": self.v}),
                    ));
                }
                conn.send(&self.room_msg(a));
                if self.phase != Phase::Waiting {
                    match v {
                        Some(v) => self.resync_to(&conn, a, v),
                        None => conn.send(&self.snapshot(a)),
                    }
                }
                self.subs.insert(conn.conn_id, Sub { who, tx: conn });
                self.empty_since = None;
                if first {
                    self.presence_changed();
                }
                self.update_summary();
            }
            Cmd::Gone { conn_id } => {
                if let Some(s) = self.subs.remove(&conn_id) {
                    self.after_unsubscribe(&s.who);
                }
            }
            Cmd::Msg { conn, who, id, msg } => {
                let dedupe =
                    !matches!(msg, ClientMsg::Resync { .. } | ClientMsg::LegalMoves { .. });
                if dedupe {
                    if let Some(ack) = self.live.seen_id(who.account_id, &id) {
                        conn.send(&ack);
                        return;
                    }
                }
                if !self.subs.contains_key(&conn.conn_id) {
                    conn.send(&protocol::error(
                        &id,
                        &ProtoError::new("not_in_room", "join the room first (join_room)"),
                    ));
                    return;
                }
                match self.on_msg(&conn, &who, &id, msg).await {
                    Ok(Some(extra)) => {
                        let ack = protocol::ack(&id, extra);
                        if dedupe {
                            self.live.remember_id(who.account_id, &id, &ack);
                        }
                        conn.send(&ack);
                    }
                    Ok(None) => {}
                    Err(e) => conn.send(&protocol::error(&id, &e)),
                }
            }
            Cmd::BotDone { seat, bot, mv } => {
                self.bot_thinking = false;
                *self.bots[seat.index()].get_mut().unwrap() = Some(bot);
                let turn = self.game.as_ref().and_then(|g| g.turn());
                if self.phase == Phase::Battle && turn == Some(seat) {
                    if let Some(mv) = mv {
                        if let Err(e) =
                            self.commit(vec![Action::Move { from: mv.from, to: mv.to }]).await
                        {
                            tracing::warn!(room = %self.id, error = ?e, "bot move refused");
                            if e.code == "internal" {
                                self.retry_at = Some(now_ms() + 1000);
                            }
                        }
                    }
                }
            }
        }
        self.after_change().await;
    }

    /// Bring a client from version `v` to the current one: nothing, the missed events, or a snapshot.
    fn resync_to(&self, conn: &ClientTx, account_id: i64, v: u64) {
        let oldest = self.log.front().map(|(v, _)| v - 1);
        match oldest {
            _ if v == self.v => {}
            Some(oldest) if v >= oldest && v < self.v => {
                let events: Vec<Box<RawValue>> = self
                    .log
                    .iter()
                    .filter(|(x, _)| *x > v)
                    .flat_map(|(_, e)| e.iter().cloned())
                    .collect();
                conn.send_text(self.update_text(
                    self.viewer(account_id),
                    v,
                    &events,
                    &raw(&self.clock_json()),
                    &mut HashMap::new(),
                ));
            }
            _ => conn.send(&self.snapshot(account_id)),
        }
    }

    fn presence_changed(&mut self) {
        let now = now_ms();
        for s in Seat::ALL {
            let online = self.online(s);
            if let Some(sl) = self.seats[s.index()].as_mut() {
                if sl.occ.account_id().is_some() {
                    if online {
                        sl.offline_since = None;
                    } else if sl.offline_since.is_none() {
                        sl.offline_since = Some(now);
                    }
                }
            }
        }
        if self.phase == Phase::Waiting {
            self.broadcast_room();
        } else {
            self.broadcast_presence();
        }
    }

    fn after_unsubscribe(&mut self, who: &Who) {
        if !self.subs.values().any(|s| s.who.account_id == who.account_id) {
            self.presence_changed();
        }
        if self.subs.is_empty() {
            self.empty_since = Some(now_ms());
        }
        self.update_summary();
    }

    /// Things that happen by themselves after any change: bots think, escaped seats skip.
    async fn after_change(&mut self) {
        if self.phase != Phase::Battle || self.retry_at.is_some() {
            return;
        }
        // escaped seats skip at once
        for _ in 0..64 {
            let Some(turn) = self.game.as_ref().and_then(|g| g.turn()) else { return };
            let escaped = self.seats[turn.index()].as_ref().is_some_and(|s| s.escaped);
            if !escaped {
                break;
            }
            if let Err(e) = self.commit(vec![Action::Timeout]).await {
                tracing::error!(room = %self.id, error = ?e, "escaped skip");
                self.retry_at = Some(now_ms() + 1000);
                return;
            }
        }
        let Some(turn) = self.game.as_ref().and_then(|g| g.turn()) else { return };
        if self.bot_thinking {
            return;
        }
        if let Some(mut bot) = self.bots[turn.index()].get_mut().unwrap().take() {
            let g = self.game.as_ref().unwrap();
            let view = g.view(Viewer::Seats(SeatSet::one(turn)));
            let moves = g.legal_moves();
            let me = self.me.clone();
            self.bot_thinking = true;
            let rt = tokio::runtime::Handle::current();
            rt.spawn(async move {
                let res = tokio::task::spawn_blocking(move || {
                    let mv = if moves.is_empty() { None } else { Some(bot.choose(&view, &moves)) };
                    (bot, mv)
                })
                .await;
                if let Ok((bot, mv)) = res {
                    let _ = me.send(Cmd::BotDone { seat: turn, bot, mv }).await;
                }
            });
        }
    }

    async fn on_msg(
        &mut self,
        conn: &ClientTx,
        who: &Who,
        id: &Option<ClientId>,
        msg: ClientMsg,
    ) -> Result<Option<Value>, ProtoError> {
        use ClientMsg::*;
        match msg {
            LeaveRoom { .. } => {
                self.leave(conn.conn_id, who).await?;
                Ok(Some(json!({})))
            }
            TakeSeat { seat, .. } => self.take_seat(who, seat).map(|_| Some(json!({}))),
            LeaveSeat { seat, .. } => {
                self.need_phase(Phase::Waiting)?;
                if !self.seats_of_account(who.account_id).any(|s| s == seat) {
                    return Err(ProtoError::new("not_your_seat", "that is not your seat"));
                }
                self.seats[seat.index()] = None;
                self.clear_ready();
                self.broadcast_room();
                Ok(Some(json!({})))
            }
            AddBot { seat, level, .. } => {
                self.need_phase(Phase::Waiting)?;
                self.need_host(who)?;
                if self.seats[seat.index()].is_some() {
                    return Err(ProtoError::new("seat_taken", "that seat is taken"));
                }
                let level = level.unwrap_or(Level::Standard);
                self.seats[seat.index()] = Some(Slot {
                    occ: SeatOccupant::Bot { level },
                    ready: true,
                    offline_since: None,
                    escaped: false,
                });
                self.broadcast_room();
                self.maybe_start().await?;
                Ok(Some(json!({})))
            }
            RemoveBot { seat, .. } => {
                self.need_phase(Phase::Waiting)?;
                self.need_host(who)?;
                match self.seats[seat.index()].as_ref().map(|s| &s.occ) {
                    Some(SeatOccupant::Bot { .. }) => {}
                    _ => return Err(ProtoError::new("seat_empty", "there is no bot on that seat")),
                }
                self.seats[seat.index()] = None;
                self.broadcast_room();
                Ok(Some(json!({})))
            }
            Kick { seat, .. } => {
                self.need_phase(Phase::Waiting)?;
                self.need_host(who)?;
                let Some(slot) = self.seats[seat.index()].take() else {
                    return Err(ProtoError::new("seat_empty", "nobody sits there"));
                };
                if let Some(a) = slot.occ.account_id() {
                    let kicked: Vec<u64> = self
                        .subs
                        .iter()
                        .filter(|(_, s)| s.who.account_id == a)
                        .map(|(k, _)| *k)
                        .collect();
                    for k in kicked {
                        if let Some(s) = self.subs.remove(&k) {
                            s.tx.send(&json!({"type": "kicked", "room": self.id}));
                        }
                    }
                    for s in Seat::ALL {
                        if self.seats[s.index()].as_ref().and_then(|x| x.occ.account_id())
                            == Some(a)
                        {
                            self.seats[s.index()] = None;
                        }
                    }
                }
                self.clear_ready();
                self.broadcast_room();
                Ok(Some(json!({})))
            }
            Ready { ready, .. } => {
                self.need_phase(Phase::Waiting)?;
                let mine: Vec<Seat> = self.seats_of_account(who.account_id).collect();
                if mine.is_empty() {
                    return Err(ProtoError::new("not_your_seat", "take a seat first"));
                }
                for s in mine {
                    self.seats[s.index()].as_mut().unwrap().ready = ready;
                }
                self.broadcast_room();
                self.maybe_start().await?;
                Ok(Some(json!({})))
            }
            Resync { v, .. } => {
                if self.phase == Phase::Waiting {
                    conn.send(&self.room_msg(who.account_id));
                    return Ok(Some(json!({})));
                }
                match v {
                    Some(v) => self.resync_to(conn, who.account_id, v),
                    None => conn.send(&self.snapshot(who.account_id)),
                }
                Ok(Some(json!({"v": self.v})))
            }
            Swap { seat, a, b, .. } => {
                let seat = self.deploy_seat(who, seat)?;
                let mut d = self.deploying[seat.index()].deployment.clone();
                d.swap(a, b, &self.options)?;
                self.set_deployment(seat, d).await?;
                Ok(Some(json!({})))
            }
            Randomize { seat, .. } => {
                let seat = self.deploy_seat(who, seat)?;
                let d = Deployment::random(seat, &self.options, &mut rng());
                self.set_deployment(seat, d).await?;
                Ok(Some(json!({})))
            }
            LoadFormation { seat, formation, .. } => {
                let seat = self.deploy_seat(who, seat)?;
                if who.guest {
                    return Err(ProtoError::new(
                        "guest_not_allowed",
                        "guests have no saved formations",
                    ));
                }
                let account = who.account_id;
                let f: Formation = self
                    .live
                    .db()
                    .run(move |c| store::load_formation(c, account, formation))
                    .await?;
                let d = Deployment::from_formation(seat, &f, &self.options)?;
                self.set_deployment(seat, d).await?;
                Ok(Some(json!({})))
            }
            SetDeployment { seat, formation_data, .. } => {
                let seat = self.deploy_seat(who, seat)?;
                let d = Deployment::from_formation(seat, &formation_data, &self.options)?;
                self.set_deployment(seat, d).await?;
                Ok(Some(json!({})))
            }
            Confirm { seat, .. } => {
                let seat = self.deploy_seat(who, seat)?;
                self.deploying[seat.index()].confirmed = true;
                if let Err(e) = self.save_deploying().await {
                    self.deploying[seat.index()].confirmed = false;
                    return Err(e.into());
                }
                self.send_deployment(seat);
                self.publish(vec![json!({"type": "deploy_confirmed", "seat": seat})]);
                if self.deploying.iter().all(|d| d.confirmed) {
                    self.start_battle().await?;
                }
                Ok(Some(json!({})))
            }
            ClientMsg::Move { from, to, .. } => {
                self.need_phase(Phase::Battle)?;
                let turn = self
                    .game
                    .as_ref()
                    .and_then(|g| g.turn())
                    .ok_or_else(|| ProtoError::from(siguo_rules::RuleError::GameOver))?;
                let mine: Vec<Seat> = self.seats_of_account(who.account_id).collect();
                if mine.is_empty() {
                    return Err(ProtoError::new(
                        "not_your_seat",
                        "you do not hold a seat in this game",
                    ));
                }
                if !mine.contains(&turn) {
                    return Err(siguo_rules::RuleError::NotYourTurn.into());
                }
                self.need_not_escaped(turn)?;
                self.commit(vec![Action::Move { from, to }]).await?;
                Ok(Some(json!({"v": self.v})))
            }
            Surrender { seat, .. } if self.phase == Phase::Deploying => {
                // allowed at any time: recorded now, applied when the battle starts
                let seats: Vec<Seat> = match seat {
                    Some(s) => vec![self.my_seat(who, Some(s))?],
                    None => self.seats_of_account(who.account_id).collect(),
                };
                if seats.is_empty() {
                    return Err(ProtoError::new(
                        "not_your_seat",
                        "you do not hold a seat in this game",
                    ));
                }
                if seats.iter().any(|s| self.deploying[s.index()].surrendered) {
                    return Err(siguo_rules::RuleError::SeatEliminated.into());
                }
                let old = self.deploying.clone();
                for s in &seats {
                    self.deploying[s.index()].surrendered = true;
                    self.deploying[s.index()].confirmed = true;
                }
                if let Err(e) = self.save_deploying().await {
                    self.deploying = old;
                    return Err(e.into());
                }
                self.publish(
                    seats.iter().map(|s| json!({"type": "deploy_confirmed", "seat": s})).collect(),
                );
                if self.deploying.iter().all(|d| d.confirmed) {
                    self.start_battle().await?;
                }
                Ok(Some(json!({"v": self.v})))
            }
            Surrender { seat, .. } => {
                self.need_phase(Phase::Battle)?;
                let g = self.game.as_ref().unwrap();
                let seats: Vec<Seat> = match seat {
                    Some(s) => vec![self.my_seat(who, Some(s))?],
                    None => {
                        let mine: Vec<Seat> = self.seats_of_account(who.account_id).collect();
                        if mine.is_empty() {
                            return Err(ProtoError::new(
                                "not_your_seat",
                                "you do not hold a seat in this game",
                            ));
                        }
                        let live: Vec<Seat> =
                            mine.into_iter().filter(|s| !g.is_eliminated(*s)).collect();
                        if live.is_empty() {
                            return Err(siguo_rules::RuleError::SeatEliminated.into());
                        }
                        live
                    }
                };
                for s in &seats {
                    self.need_not_escaped(*s)?;
                }
                self.commit(seats.into_iter().map(|seat| Action::Surrender { seat }).collect())
                    .await?;
                Ok(Some(json!({"v": self.v})))
            }
            OfferDraw { seat, .. } => {
                self.need_phase(Phase::Battle)?;
                let g = self.game.as_ref().unwrap();
                let seat = match seat {
                    Some(s) => self.my_seat(who, Some(s))?,
                    None => {
                        let mine: Vec<Seat> = self.seats_of_account(who.account_id).collect();
                        if mine.is_empty() {
                            return Err(ProtoError::new(
                                "not_your_seat",
                                "you do not hold a seat in this game",
                            ));
                        }
                        mine.iter().copied().find(|s| !g.is_eliminated(*s)).unwrap_or(mine[0])
                    }
                };
                self.need_not_escaped(seat)?;
                let mut actions = vec![Action::OfferDraw { seat }];
                let p = seat.partner();
                if self.seats_of_account(who.account_id).any(|s| s == p) && !g.is_eliminated(p) {
                    actions.push(Action::AcceptDraw { seat: p });
                }
                self.commit(actions).await?;
                Ok(Some(json!({"v": self.v})))
            }
            AcceptDraw { .. } | DeclineDraw { .. } => {
                self.need_phase(Phase::Battle)?;
                let accept = matches!(msg, AcceptDraw { .. });
                let g = self.game.as_ref().unwrap();
                let mine: Vec<Seat> = self.seats_of_account(who.account_id).collect();
                if mine.is_empty() {
                    return Err(ProtoError::new(
                        "not_your_seat",
                        "you do not hold a seat in this game",
                    ));
                }
                let Some((offerer, accepted)) = g.draw_offer() else {
                    return Err(siguo_rules::RuleError::NoDrawOffer.into());
                };
                let answering: Vec<Seat> = mine
                    .into_iter()
                    .filter(|s| *s != offerer && !g.is_eliminated(*s) && !accepted.contains(s))
                    .collect();
                let Some(first) = answering.first().copied() else {
                    return Err(siguo_rules::RuleError::OwnDrawOffer.into());
                };
                let actions = if accept {
                    answering.into_iter().map(|seat| Action::AcceptDraw { seat }).collect()
                } else {
                    vec![Action::DeclineDraw { seat: first }]
                };
                self.commit(actions).await?;
                Ok(Some(json!({"v": self.v})))
            }
            LegalMoves { .. } => {
                let moves = self.legal_moves_json(self.viewer(who.account_id));
                conn.send(&json!({"type": "legal_moves", "id": id, "room": self.id, "game": self.game_id, "v": self.v, "moves": moves}));
                Ok(None)
            }
            Chat { text, team, .. } => {
                self.chat(who, text, team.unwrap_or(false))?;
                Ok(Some(json!({})))
            }
            Ping {} | ListRooms {} | CreateRoom { .. } | StartPractice { .. } | JoinRoom { .. } => {
                Err(ProtoError::new("bad_message", "not a room message"))
            }
        }
    }

    fn need_phase(&self, p: Phase) -> Result<(), ProtoError> {
        if self.phase == p {
            Ok(())
        } else if self.phase == Phase::Finished {
            Err(siguo_rules::RuleError::GameOver.into())
        } else {
            Err(ProtoError::new(
                "wrong_phase",
                format!("not possible while the room is {}", self.phase.as_str()),
            ))
        }
    }

    fn need_host(&self, who: &Who) -> Result<(), ProtoError> {
        if self.host == Some(who.account_id) {
            Ok(())
        } else {
            Err(ProtoError::new("not_host", "only the host may do that"))
        }
    }

    fn need_not_escaped(&self, seat: Seat) -> Result<(), ProtoError> {
        if self.seats[seat.index()].as_ref().is_some_and(|s| s.escaped) {
            Err(ProtoError::new("escaped", "this seat has escaped; its turns are skipped"))
        } else {
            Ok(())
        }
    }

    fn clear_ready(&mut self) {
        for s in self.seats.iter_mut().flatten() {
            if s.occ.account_id().is_some() {
                s.ready = false;
            }
        }
    }

    fn take_seat(&mut self, who: &Who, seat: Seat) -> Result<(), ProtoError> {
        self.need_phase(Phase::Waiting)?;
        match self.seats[seat.index()].as_ref() {
            Some(sl) if sl.occ.account_id() == Some(who.account_id) => return Ok(()),
            Some(_) => return Err(ProtoError::new("seat_taken", "that seat is taken")),
            None => {}
        }
        // holding a seat of the other team: switch
        for s in Seat::ALL {
            if s.team() != seat.team()
                && self.seats[s.index()].as_ref().and_then(|x| x.occ.account_id())
                    == Some(who.account_id)
            {
                self.seats[s.index()] = None;
            }
        }
        self.seats[seat.index()] = Some(Slot {
            occ: SeatOccupant::Account {
                account_id: who.account_id,
                name: who.name.clone(),
                guest: who.guest,
            },
            ready: false,
            offline_since: None,
            escaped: false,
        });
        self.clear_ready();
        self.broadcast_room();
        Ok(())
    }

    async fn leave(&mut self, conn_id: u64, who: &Who) -> Result<(), ProtoError> {
        match self.phase {
            Phase::Waiting => {
                for s in Seat::ALL {
                    if self.seats[s.index()].as_ref().and_then(|x| x.occ.account_id())
                        == Some(who.account_id)
                    {
                        self.seats[s.index()] = None;
                    }
                }
                self.clear_ready();
                if self.host == Some(who.account_id) {
                    self.host =
                        self.seats.iter().flatten().find_map(|s| s.occ.account_id()).or_else(
                            || {
                                self.subs
                                    .values()
                                    .map(|s| s.who.account_id)
                                    .find(|a| *a != who.account_id)
                            },
                        );
                }
            }
            Phase::Deploying | Phase::Battle if self.kind.is_ranked() => {
                let mine: Vec<Seat> = self
                    .seats_of_account(who.account_id)
                    .filter(|s| !self.seats[s.index()].as_ref().unwrap().escaped)
                    .collect();
                if !mine.is_empty() {
                    let eliminated =
                        |s: &Seat| self.game.as_ref().is_some_and(|g| g.is_eliminated(*s));
                    let mine: Vec<Seat> = mine.into_iter().filter(|s| !eliminated(s)).collect();
                    if !mine.is_empty() {
                        self.escape(&mine).await?;
                    }
                }
            }
            _ => {}
        }
        if let Some(s) = self.subs.remove(&conn_id) {
            self.after_unsubscribe(&s.who);
        }
        if self.phase == Phase::Waiting {
            self.broadcast_room();
            if self.no_people() {
                self.closed = true;
            }
        }
        Ok(())
    }

    fn chat(&mut self, who: &Who, text: String, team: bool) -> Result<(), ProtoError> {
        let text = text.trim().to_string();
        if text.is_empty() {
            return Err(ProtoError::new("chat_empty", "empty message"));
        }
        if text.chars().count() > CHAT_MAX {
            return Err(ProtoError::new("chat_too_long", format!("at most {CHAT_MAX} characters")));
        }
        let seat = self.seats_of_account(who.account_id).next();
        if team && seat.is_none() {
            return Err(ProtoError::new("not_your_seat", "team chat needs a seat"));
        }
        let times = self.chat_times.entry(who.account_id).or_default();
        let now = Instant::now();
        while times.front().is_some_and(|t| now.duration_since(*t) > CHAT_WINDOW) {
            times.pop_front();
        }
        if times.len() >= CHAT_PER_WINDOW {
            return Err(ProtoError::new(
                "chat_rate_limited",
                "too many chat messages; wait a few seconds",
            ));
        }
        times.push_back(now);
        let msg = json!({"type": "chat", "room": self.id, "from": who.name, "seat": seat, "team": team,
                         "text": text, "at": now_ms()});
        for s in self.subs.values() {
            if team {
                let t = seat.unwrap().team();
                if !self.seats_of_account(s.who.account_id).any(|x| x.team() == t) {
                    continue;
                }
            }
            s.tx.send(&msg);
        }
        Ok(())
    }

    // ---- game life ----

    async fn maybe_start(&mut self) -> Result<(), ProtoError> {
        if self.phase != Phase::Waiting || self.seats.iter().any(|s| s.is_none()) {
            return Ok(());
        }
        let people = self.seats.iter().flatten().filter(|s| s.occ.account_id().is_some()).count();
        if people == 0 || !self.seats.iter().flatten().all(|s| s.ready) {
            return Ok(());
        }
        self.begin_deployment().await?;
        self.live.set_game(&self.id, self.game_id.unwrap());
        self.update_summary();
        for s in self.subs.values() {
            s.tx.send(&self.room_msg(s.who.account_id));
            s.tx.send(&self.snapshot(s.who.account_id));
        }
        Ok(())
    }

    /// All seats filled: random deployments (bots deploy and confirm), game row, deploy clock.
    async fn begin_deployment(&mut self) -> AppResult<()> {
        let budget = self.live.config().bot_budget_ms;
        let mut deps = vec![];
        let mut occ = vec![];
        for s in Seat::ALL {
            let slot = self.seats[s.index()].as_ref().expect("filled");
            occ.push(slot.occ.clone());
            match &slot.occ {
                SeatOccupant::Bot { level } => {
                    let mut b = make_bot(*level, budget);
                    deps.push(DeploySeat {
                        deployment: b.deploy(s, &self.options),
                        confirmed: true,
                        surrendered: false,
                    });
                    *self.bots[s.index()].get_mut().unwrap() = Some(b);
                }
                SeatOccupant::Account { .. } => deps.push(DeploySeat {
                    deployment: Deployment::random(s, &self.options, &mut rng()),
                    confirmed: false,
                    surrendered: false,
                }),
            }
        }
        let occ: [SeatOccupant; 4] = occ.try_into().map_err(|_| AppError::internal("seats"))?;
        let (kind, options, d2) = (self.kind, self.options, deps.clone());
        let id =
            self.live.db().run(move |c| store::create_game(c, kind, &options, &occ, &d2)).await?;
        self.game_id = Some(id);
        self.deploying = deps;
        self.phase = Phase::Deploying;
        self.deploy_deadline = now_ms() + self.options.deploy_seconds as i64 * 1000;
        let now = now_ms();
        for s in Seat::ALL {
            let online = self.online(s);
            if let Some(sl) = self.seats[s.index()].as_mut() {
                if sl.occ.account_id().is_some() && !online {
                    sl.offline_since.get_or_insert(now);
                }
            }
        }
        Ok(())
    }

    fn deploy_seat(&self, who: &Who, seat: Option<Seat>) -> Result<Seat, ProtoError> {
        self.need_phase(Phase::Deploying)?;
        let seat = self.my_seat(who, seat)?;
        if self.deploying[seat.index()].confirmed {
            return Err(ProtoError::new(
                "already_confirmed",
                "this deployment is already confirmed",
            ));
        }
        Ok(seat)
    }

    async fn save_deploying(&self) -> AppResult<()> {
        let (id, d) = (self.game_id.unwrap(), self.deploying.clone());
        self.live.db().run(move |c| store::save_deploying(c, id, &d)).await
    }

    async fn set_deployment(&mut self, seat: Seat, d: Deployment) -> Result<(), ProtoError> {
        let old = std::mem::replace(&mut self.deploying[seat.index()].deployment, d);
        if let Err(e) = self.save_deploying().await {
            self.deploying[seat.index()].deployment = old;
            return Err(e.into());
        }
        self.send_deployment(seat);
        Ok(())
    }

    async fn start_battle(&mut self) -> AppResult<()> {
        let deps: Vec<Deployment> = self.deploying.iter().map(|d| d.deployment.clone()).collect();
        let deps: [Deployment; 4] =
            deps.try_into().map_err(|_| AppError::internal("deployments"))?;
        let game = Game::new(self.options, &deps)
            .map_err(|e| AppError::internal(format!("deployment: {e}")))?;
        let id = self.game_id.unwrap();
        let over = game.is_over();
        let finished = over.then(|| self.finished_game_reached(game.status(), true));
        let d2 = deps.clone();
        self.live
            .db()
            .run(move |c| {
                store::start_battle(c, id, &d2)?;
                if let Some(f) = finished {
                    store::append_actions(c, id, 0, &[], Some(&f))?;
                }
                Ok(())
            })
            .await?;
        let initial = game.initial_events();
        for b in self.bots.iter_mut().filter_map(|m| m.get_mut().unwrap().as_mut()) {
            for e in &initial {
                b.observe(e);
            }
        }
        self.phase = Phase::Battle;
        self.turn_deadline =
            game.turn().map(|_| now_ms() + self.options.move_seconds as i64 * 1000);
        self.game = Some(game);
        let mut events = vec![json!({"type": "battle_started"})];
        events.extend(initial.iter().map(|e| serde_json::to_value(e).unwrap()));
        if over {
            self.enter_finished();
        }
        self.publish(events);
        self.broadcast_room();
        let pending: Vec<Action> = Seat::ALL
            .into_iter()
            .filter(|s| {
                self.deploying[s.index()].surrendered
                    && self.game.as_ref().is_some_and(|g| !g.is_eliminated(*s))
            })
            .map(|seat| Action::Surrender { seat })
            .collect();
        for a in pending {
            if self.game.as_ref().is_some_and(|g| g.is_over()) {
                break;
            }
            if let Err(e) = self.commit(vec![a]).await {
                tracing::error!(room = %self.id, error = ?e, "surrender made during deployment");
            }
        }
        Ok(())
    }

    fn finished_game(&self, status: Status) -> FinishedGame {
        self.finished_game_reached(status, true)
    }

    fn finished_game_reached(&self, status: Status, reached_battle: bool) -> FinishedGame {
        let seats: Vec<FinishedSeat> = Seat::ALL
            .into_iter()
            .map(|s| {
                let sl = self.seats[s.index()].as_ref();
                let (account_id, guest, bot) = match sl.map(|x| &x.occ) {
                    Some(SeatOccupant::Account { account_id, guest, .. }) => {
                        (Some(*account_id), *guest, None)
                    }
                    Some(SeatOccupant::Bot { level }) => (None, false, Some(*level)),
                    None => (None, false, None),
                };
                FinishedSeat {
                    seat: s,
                    account_id,
                    guest,
                    bot,
                    escaped: sl.is_some_and(|x| x.escaped),
                    surrendered: self.game.as_ref().is_some_and(|g| {
                        g.elimination(s) == Some(siguo_rules::ElimReason::Surrendered)
                    }),
                }
            })
            .collect();
        FinishedGame {
            game_id: self.game_id.unwrap_or(0),
            kind: self.kind,
            status,
            reached_battle,
            seats: seats.try_into().unwrap_or_else(|_| unreachable!()),
        }
    }

    fn enter_finished(&mut self) {
        self.phase = Phase::Finished;
        self.turn_deadline = None;
        self.finished_at = Some(now_ms());
    }

    /// Apply battle actions: all-or-nothing in the engine, committed, then broadcast.
    async fn commit(&mut self, actions: Vec<Action>) -> Result<(), ProtoError> {
        let Some(game) = self.game.as_ref() else {
            return Err(ProtoError::new("wrong_phase", "the battle has not started"));
        };
        let mut g = game.clone();
        let before = (g.turn(), g.steps());
        let mut events: Vec<Event> = vec![];
        for a in &actions {
            events.extend(g.apply(a)?);
        }
        // the surrendered flag for FinishedGame must see the new state
        let finished = if g.is_over() {
            let old = self.game.replace(g.clone());
            let f = self.finished_game(g.status());
            self.game = old;
            Some(f)
        } else {
            None
        };
        let (id, seq, acts) = (self.game_id.unwrap(), self.actions, actions.clone());
        // group commit: committed (with the other games' actions of this instant) before the broadcast
        self.live
            .db()
            .write_grouped(move |c| {
                store::append_actions_in_tx(c, id, seq, &acts, finished.as_ref())
            })
            .await?;
        self.actions += actions.len();
        for b in self.bots.iter_mut().filter_map(|m| m.get_mut().unwrap().as_mut()) {
            for e in &events {
                b.observe(e);
            }
        }
        let after = (g.turn(), g.steps());
        let over = g.is_over();
        self.game = Some(g);
        if over {
            self.enter_finished();
        } else if before != after {
            self.turn_deadline = Some(now_ms() + self.options.move_seconds as i64 * 1000);
        }
        self.publish_raw(events.iter().map(raw).collect());
        if over {
            self.broadcast_room();
        }
        Ok(())
    }

    /// Ranked: these seats escaped (left, or away past the grace).
    async fn escape(&mut self, seats: &[Seat]) -> AppResult<()> {
        let id = self.game_id.unwrap();
        let list = seats.to_vec();
        let mut deploying = self.deploying.clone();
        if self.phase == Phase::Deploying {
            for s in seats {
                deploying[s.index()].confirmed = true;
            }
        }
        let save = (self.phase == Phase::Deploying).then(|| deploying.clone());
        self.live
            .db()
            .run(move |c| {
                c.transaction(|c| {
                    for s in &list {
                        store::mark_escaped(c, id, *s)?;
                    }
                    if let Some(d) = save {
                        store::save_deploying(c, id, &d)?;
                    }
                    Ok::<_, AppError>(())
                })
            })
            .await?;
        for s in seats {
            self.seats[s.index()].as_mut().unwrap().escaped = true;
        }
        if self.phase == Phase::Deploying {
            self.deploying = deploying;
        }
        self.publish(seats.iter().map(|s| json!({"type": "escaped", "seat": s})).collect());
        if self.phase == Phase::Deploying && self.deploying.iter().all(|d| d.confirmed) {
            self.start_battle().await?;
        }
        Ok(())
    }
}
