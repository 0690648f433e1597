//! One WebSocket session (actix-ws): frame cap, message-rate limit, ping/silence, a bounded
//! outbound queue, and routing of parsed messages to the lobby or to room tasks.
use super::protocol::{
    self, now_ms, Account, AckBody, ClientId, ClientMsg, ErrorCode, LobbyRequest, ProtoError,
    RoomRequest, ServerMsg,
};
use super::room::Cmd;
use super::{client_channel, Live, Who};
use crate::ladder::Ladder;
use actix_web::{web, HttpRequest, HttpResponse};
use actix_ws::{AggregatedMessage, CloseCode, CloseReason};
use siguo_bots::Level;
use siguo_rules::{OptionChanges, Seat, Variant};
use std::collections::{HashSet, VecDeque};
use std::net::IpAddr;
use std::time::{Duration, Instant};

pub const MAX_FRAME: usize = 8 * 1024;
pub const RATE_MESSAGES: usize = 100;
pub const RATE_WINDOW: Duration = Duration::from_secs(20);
pub const PING_EVERY: Duration = Duration::from_secs(5);
pub const SILENCE: Duration = Duration::from_secs(30);

/// Upgrade an authenticated request and run the session.
pub fn start(
    req: &HttpRequest,
    body: web::Payload,
    (live, ladder): (Live, Ladder),
    (who, conn_id, protocol): (Who, u64, u8),
    token: (u64, i64),
    ip: IpAddr,
) -> Result<HttpResponse, actix_web::Error> {
    let (resp, session, stream) = match actix_ws::handle(req, body) {
        Ok(x) => x,
        Err(e) => {
            live.socket_closed(conn_id);
            return Err(e);
        }
    };
    let stream =
        stream.max_frame_size(MAX_FRAME).aggregate_continuations().max_continuation_size(MAX_FRAME);
    let peer = Peer { who, ip, conn_id, protocol };
    actix_web::rt::spawn(run((live, ladder), peer, token, session, stream));
    Ok(resp)
}

/// How long until `exp` (Unix seconds) passes.
fn until(exp: u64) -> Duration {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs();
    Duration::from_secs(exp.saturating_sub(now))
}

/// Who is on the other end of a socket: the account, and its client IP (bucketed for limits).
struct Peer {
    who: Who,
    ip: IpAddr,
    /// the connection id its place was taken with ([`Live::socket_place`])
    conn_id: u64,
    /// the protocol version it asked for (2: updates carry deltas)
    protocol: u8,
}

/// What the session loop does after a frame.
enum Next {
    Go,
    Close(Option<CloseReason>),
}

/// One socket's state: who, its outbound queue, the rooms it joined, its message rate.
struct Conn {
    live: Live,
    /// the ranked queues (`accept_match`, `decline_match`)
    ladder: Ladder,
    peer: Peer,
    conn_id: u64,
    tx: super::ClientTx,
    joined: HashSet<String>,
    times: VecDeque<Instant>,
    last_seen: Instant,
}

async fn run(
    (live, ladder): (Live, Ladder),
    peer: Peer,
    (expires, generation): (u64, i64),
    mut session: actix_ws::Session,
    mut stream: actix_ws::AggregatedMessageStream,
) {
    let conn_id = peer.conn_id;
    let account_id = peer.who.account_id;
    let (tx, mut rx, kill) = client_channel(
        conn_id,
        (account_id, generation, peer.ip, peer.protocol),
        live.config().outbound_queue,
    );
    live.add_socket(tx.clone(), peer.ip);
    live.socket_gauge(1);
    // cluster mode: present on this node before the client can queue (a visitor cannot)
    if !peer.who.is_visitor() {
        ladder.socket_opened(account_id).await;
    }
    let mut ping = tokio::time::interval(PING_EVERY);
    ping.tick().await;
    // the session lives as long as the access token it was opened with
    let expiry = tokio::time::sleep(until(expires));
    tokio::pin!(expiry);
    let (joined, times, last_seen) = (HashSet::new(), VecDeque::new(), Instant::now());
    let mut conn = Conn { live, ladder, peer, conn_id, tx, joined, times, last_seen };
    conn.hello();

    let close: Option<CloseReason> = loop {
        tokio::select! {
            biased;
            _ = kill.notify.notified() => break Some(killed(&kill)),
            _ = &mut expiry => break Some(session_ended("access token expired")),
            out = rx.recv() => {
                let Some(text) = out else { break None };
                // a client that stops reading blocks this send; its queue overflow must still end it
                tokio::select! {
                    biased;
                    _ = kill.notify.notified() => break Some(killed(&kill)),
                    r = session.text(text) => if r.is_err() { break None; },
                }
            }
            _ = ping.tick() => {
                if conn.last_seen.elapsed() > SILENCE {
                    break Some(policy("silent for too long"));
                }
                tokio::select! {
                    biased;
                    _ = kill.notify.notified() => break Some(killed(&kill)),
                    r = session.ping(b"") => if r.is_err() { break None; },
                }
            }
            msg = stream.recv() => {
                // boxed: the handling of a message (up to `start_practice`'s database work) is
                // allocated while it runs instead of sizing every idle socket's task for it
                if let Next::Close(c) = Box::pin(conn.on_frame(&mut session, msg)).await {
                    break c;
                }
            }
        }
    };
    if close.as_ref().is_some_and(|c| c.code == CloseCode::Other(super::CLOSE_MOVED)) {
        // what the room queued before it moved (the `moved` answer to an action among it) still
        // goes out before the close, for a bounded time
        let _ = tokio::time::timeout(Duration::from_secs(2), async {
            while let Ok(text) = rx.try_recv() {
                if session.text(text).await.is_err() {
                    break;
                }
            }
        })
        .await;
    }
    Box::pin(conn.gone()).await;
    // a client that does not read may never take the close frame: do not wait for it forever
    let _ = tokio::time::timeout(Duration::from_secs(5), session.close(close)).await;
}

/// What a logged-out visitor's socket may send: ping, the lobby's lists, joining a room or a game
/// by its id (a public one: a private room refuses it as a stranger), resync and leaving.
fn visitor_may(msg: &ClientMsg) -> bool {
    match msg {
        ClientMsg::Lobby(m) => matches!(
            m,
            LobbyRequest::Ping {}
                | LobbyRequest::ListRooms {}
                | LobbyRequest::JoinRoom { invite: None, .. }
        ),
        ClientMsg::Room { msg, .. } => {
            matches!(msg, RoomRequest::LeaveRoom {} | RoomRequest::Resync { .. })
        }
    }
}

fn policy(why: &str) -> CloseReason {
    CloseReason { code: CloseCode::Policy, description: Some(why.into()) }
}

fn too_big(why: &str) -> CloseReason {
    CloseReason { code: CloseCode::Size, description: Some(why.into()) }
}

impl Conn {
    fn hello(&self) {
        let who = &self.peer.who;
        self.tx.send(&ServerMsg::Hello {
            account: Account { id: who.account_id, name: who.name.clone(), guest: who.guest },
            server_time: now_ms(),
            protocol: self.peer.protocol,
            rooms: self.live.rooms_of(who.account_id),
        });
    }

    /// The socket closed: forget it, and tell the rooms it joined.
    async fn gone(self) {
        self.live.remove_socket(self.peer.who.account_id, self.conn_id);
        self.live.remove_ip(self.peer.ip);
        self.live.socket_closed(self.conn_id);
        self.live.socket_gauge(-1);
        for r in self.joined {
            if let Some(h) = self.live.room(&r) {
                h.send(Cmd::Gone { conn_id: self.conn_id }).await;
            }
        }
    }

    /// One frame from the client (`None`: the stream ended).
    async fn on_frame(
        &mut self,
        session: &mut actix_ws::Session,
        msg: Option<Result<AggregatedMessage, actix_ws::ProtocolError>>,
    ) -> Next {
        let Some(msg) = msg else { return Next::Close(None) };
        self.last_seen = Instant::now();
        match msg {
            Err(actix_ws::ProtocolError::Overflow) => {
                Next::Close(Some(too_big("frame larger than 8 KiB")))
            }
            Err(_) => {
                Next::Close(Some(CloseReason { code: CloseCode::Protocol, description: None }))
            }
            Ok(AggregatedMessage::Ping(b)) => {
                let _ = session.pong(&b).await;
                Next::Go
            }
            Ok(AggregatedMessage::Pong(_)) => Next::Go,
            Ok(AggregatedMessage::Close(_)) => Next::Close(None),
            Ok(_) if self.over_rate() => Next::Close(Some(policy("rate limit"))),
            Ok(AggregatedMessage::Text(text)) if text.len() > MAX_FRAME => {
                Next::Close(Some(too_big("message larger than 8 KiB")))
            }
            Ok(AggregatedMessage::Text(text)) => {
                self.on_text(&text).await;
                Next::Go
            }
            Ok(AggregatedMessage::Binary(_)) => {
                let e = ProtoError::new(ErrorCode::BinaryNotSupported, "send JSON text frames");
                self.tx.send(&ServerMsg::error(&None, &e));
                Next::Go
            }
        }
    }

    /// Count a message; true when more than `RATE_MESSAGES` came within `RATE_WINDOW`.
    fn over_rate(&mut self) -> bool {
        let now = Instant::now();
        while self.times.front().is_some_and(|t| now.duration_since(*t) > RATE_WINDOW) {
            self.times.pop_front();
        }
        self.times.push_back(now);
        self.times.len() > RATE_MESSAGES
    }

    /// Parse a text frame and route it; a refusal is answered with an `error`.
    async fn on_text(&mut self, text: &str) {
        let (id, msg) = match protocol::parse(text) {
            Ok(x) => x,
            Err((id, e)) => {
                self.tx.send(&ServerMsg::error(&id, &e));
                return;
            }
        };
        if let Err(e) = self.route(&id, msg).await {
            self.tx.send(&ServerMsg::error(&id, &e));
        }
    }

    /// Lobby messages are handled here; room messages go to their room's task.
    async fn route(&mut self, id: &Option<ClientId>, msg: ClientMsg) -> Result<(), ProtoError> {
        if self.peer.who.is_visitor() && !visitor_may(&msg) {
            return Err(ProtoError::new(
                ErrorCode::LoginRequired,
                "a visitor only watches public games: log in or play as a guest",
            ));
        }
        match msg {
            ClientMsg::Lobby(msg) => self.lobby(id, msg).await,
            ClientMsg::Room { room, msg } => self.forward(id, room, msg).await,
        }
    }

    async fn lobby(&mut self, id: &Option<ClientId>, msg: LobbyRequest) -> Result<(), ProtoError> {
        match msg {
            LobbyRequest::Ping {} => {
                self.tx.send(&ServerMsg::Pong { id: id.clone(), server_time: now_ms() });
                Ok(())
            }
            LobbyRequest::ListRooms {} => {
                let rooms = self.live.listed_rooms().await?;
                let games = self.live.listed_games().await?;
                self.tx.send(&ServerMsg::Rooms { id: id.clone(), rooms, games });
                Ok(())
            }
            LobbyRequest::CreateRoom { public, options, variant } => {
                self.create_room(id, public.unwrap_or(true), variant.unwrap_or_default(), options)
                    .await
            }
            LobbyRequest::StartPractice { options, level, seat, variant } => {
                self.start_practice(id, options, level, seat, variant.unwrap_or_default()).await
            }
            LobbyRequest::JoinRoom { room, invite, game, v } => {
                self.join_room(id, room, invite, game, v).await
            }
            LobbyRequest::AcceptMatch { match_id } => {
                self.ladder.accept(self.peer.who.account_id, match_id).await?;
                self.tx.send(&ServerMsg::Ack(ServerMsg::ack(id, AckBody::Empty {})));
                Ok(())
            }
            LobbyRequest::DeclineMatch { match_id } => {
                self.ladder.decline(self.peer.who.account_id, match_id).await?;
                self.tx.send(&ServerMsg::Ack(ServerMsg::ack(id, AckBody::Empty {})));
                Ok(())
            }
        }
    }

    /// The ack already sent for this id, sent again (idempotency); true if there was one.
    fn resent(&self, id: &Option<ClientId>) -> bool {
        let ack = self.live.seen_id(self.peer.who.account_id, id);
        ack.map(|ack| self.tx.send(&ServerMsg::Ack(ack))).is_some()
    }

    /// Ack a lobby action and remember it (idempotency).
    fn acknowledge(&self, id: &Option<ClientId>, body: AckBody) {
        let ack = ServerMsg::ack(id, body);
        self.live.remember_id(self.peer.who.account_id, id, &ack);
        self.tx.send(&ServerMsg::Ack(ack));
    }

    async fn create_room(
        &mut self,
        id: &Option<ClientId>,
        public: bool,
        variant: Variant,
        options: Option<OptionChanges>,
    ) -> Result<(), ProtoError> {
        if self.resent(id) {
            return Ok(());
        }
        let options = super::parse_options(variant, options)?;
        let (room, invite) =
            self.live.create_room((&self.peer.who, self.peer.ip), public, variant, options).await?;
        self.acknowledge(id, AckBody::Created { room: room.clone(), invite });
        // the creator joins its room at once
        self.join(&None, &room, (None, false)).await
    }

    async fn start_practice(
        &mut self,
        id: &Option<ClientId>,
        options: Option<OptionChanges>,
        level: Option<Level>,
        seat: Option<Seat>,
        variant: Variant,
    ) -> Result<(), ProtoError> {
        if self.resent(id) {
            return Ok(());
        }
        let who = &self.peer.who;
        let at = (who, self.peer.ip);
        let (game, room) = self.live.start_practice(at, variant, options, level, seat).await?;
        self.acknowledge(id, AckBody::Practice { room: room.clone(), game });
        self.join(&None, &room, (None, false)).await
    }

    async fn join_room(
        &mut self,
        id: &Option<ClientId>,
        room: Option<String>,
        invite: Option<String>,
        game: Option<i64>,
        v: Option<u64>,
    ) -> Result<(), ProtoError> {
        let by_invite = room.is_none() && invite.is_some();
        let room = match (room, invite, game) {
            (Some(r), _, _) => r,
            (None, Some(i), _) => {
                self.live.lookup_invite(self.peer.who.account_id, self.peer.ip, &i).await?
            }
            (None, None, Some(g)) => match self.live.room_by_game(g) {
                Some(r) => r,
                None => {
                    // the answer of a room that refuses a stranger: existence is not confirmed
                    let me = self.peer.who.account_id;
                    self.live.room_or_moved(&format!("g{g}"), me, no_room()).await?;
                    format!("g{g}")
                }
            },
            (None, None, None) => {
                return Err(ProtoError::new(
                    ErrorCode::BadMessage,
                    "join_room needs \"room\", \"invite\" or \"game\"",
                ))
            }
        };
        self.join(id, &room, (v, by_invite)).await
    }

    async fn join(
        &mut self,
        id: &Option<ClientId>,
        room: &str,
        (v, by_invite): (Option<u64>, bool),
    ) -> Result<(), ProtoError> {
        let h = self.live.room_or_moved(room, self.peer.who.account_id, no_room()).await?;
        let who = self.peer.who.clone();
        let cmd = Cmd::Join { conn: self.tx.clone(), who, id: id.clone(), v, by_invite };
        if !h.send(cmd).await {
            return Err(no_room());
        }
        self.joined.insert(room.to_string());
        Ok(())
    }

    /// A room message: to its room's task.
    async fn forward(
        &mut self,
        id: &Option<ClientId>,
        room: String,
        msg: RoomRequest,
    ) -> Result<(), ProtoError> {
        let h = self.live.room_or_moved(&room, self.peer.who.account_id, no_room()).await?;
        let leaving = matches!(msg, RoomRequest::LeaveRoom { .. });
        let cmd =
            Cmd::Msg { conn: self.tx.clone(), who: self.peer.who.clone(), id: id.clone(), msg };
        if !h.send(cmd).await {
            return Err(no_room());
        }
        if leaving {
            self.joined.remove(&room);
        }
        Ok(())
    }
}

/// The close a [`super::Kill`] asks for: session ended, or the outbound queue overflowed.
fn killed(kill: &super::Kill) -> CloseReason {
    match kill.code.load(std::sync::atomic::Ordering::Relaxed) {
        0 => {
            CloseReason { code: CloseCode::Again, description: Some("outbound queue full".into()) }
        }
        super::CLOSE_MOVED => CloseReason {
            code: CloseCode::Other(super::CLOSE_MOVED),
            description: Some("moved".into()),
        },
        _ => session_ended("session ended"),
    }
}

fn session_ended(why: &str) -> CloseReason {
    CloseReason {
        code: CloseCode::Other(super::CLOSE_SESSION_ENDED),
        description: Some(why.into()),
    }
}

fn no_room() -> ProtoError {
    ProtoError::new(ErrorCode::NotFound, "no such room")
}
