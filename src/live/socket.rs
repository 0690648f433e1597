//! One WebSocket session (actix-ws): frame cap, message-rate limit, ping/silence, a bounded
//! outbound queue, and routing of parsed messages to the lobby or to room tasks.
use super::protocol::{
    self, now_ms, Account, AckBody, ClientId, ClientMsg, ErrorCode, ProtoError, ServerMsg,
};
use super::room::Cmd;
use super::{client_channel, GameKind, Live, SeatOccupant, Who};
use actix_web::{web, HttpRequest, HttpResponse};
use actix_ws::{AggregatedMessage, CloseCode, CloseReason};
use siguo_bots::Level;
use siguo_rules::{BySeat, Seat};
use std::collections::{HashSet, VecDeque};
use std::net::IpAddr;
use std::time::{Duration, Instant};

pub const MAX_FRAME: usize = 8 * 1024;
pub const RATE_MESSAGES: usize = 100;
pub const RATE_WINDOW: Duration = Duration::from_secs(20);
pub const PING_EVERY: Duration = Duration::from_secs(5);
pub const SILENCE: Duration = Duration::from_secs(30);

/// Is this request's `Origin` (if any) allowed? The server's own origin always is.
pub fn origin_allowed(req: &HttpRequest, allowed: &[String]) -> bool {
    let Some(origin) = req.headers().get("origin").and_then(|o| o.to_str().ok()) else {
        return true;
    };
    if allowed.iter().any(|a| a == "*" || a.eq_ignore_ascii_case(origin)) {
        return true;
    }
    let host = req.connection_info().host().to_string();
    let bare = origin.split("://").nth(1).unwrap_or("");
    bare.eq_ignore_ascii_case(&host)
}

/// Upgrade an authenticated request and run the session.
pub fn start(
    req: &HttpRequest,
    body: web::Payload,
    live: Live,
    who: Who,
    expires: u64,
    ip: IpAddr,
) -> Result<HttpResponse, actix_web::Error> {
    let (resp, session, stream) = actix_ws::handle(req, body)?;
    let stream =
        stream.max_frame_size(MAX_FRAME).aggregate_continuations().max_continuation_size(MAX_FRAME);
    actix_web::rt::spawn(run(live, Peer { who, ip }, expires, session, stream));
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
}

async fn run(
    live: Live,
    peer: Peer,
    expires: u64,
    mut session: actix_ws::Session,
    mut stream: actix_ws::AggregatedMessageStream,
) {
    let who = &peer.who;
    let conn_id = live.next_conn_id();
    let (tx, mut rx, kill) = client_channel(conn_id, who.account_id, live.config().outbound_queue);
    live.add_socket(tx.clone(), peer.ip);
    live.socket_gauge(1);
    let mut joined: HashSet<String> = HashSet::new();
    let mut times: VecDeque<Instant> = VecDeque::new();
    let mut last_seen = Instant::now();
    let mut ping = tokio::time::interval(PING_EVERY);
    ping.tick().await;
    // the session lives as long as the access token it was opened with
    let expiry = tokio::time::sleep(until(expires));
    tokio::pin!(expiry);

    tx.send(&ServerMsg::Hello {
        account: Account { id: who.account_id, name: who.name.clone(), guest: who.guest },
        server_time: now_ms(),
        rooms: live.rooms_of(who.account_id),
    });

    let close: Option<CloseReason> = loop {
        tokio::select! {
            biased;
            _ = kill.notify.notified() => break Some(killed(&kill)),
            _ = &mut expiry => break Some(session_ended("access token expired")),
            out = rx.recv() => match out {
                Some(text) => {
                    // a client that stops reading blocks this send; its queue overflow must still end it
                    tokio::select! {
                        biased;
                        _ = kill.notify.notified() => break Some(killed(&kill)),
                        r = session.text(text) => if r.is_err() { break None; },
                    }
                }
                None => break None,
            },
            _ = ping.tick() => {
                if last_seen.elapsed() > SILENCE {
                    break Some(CloseReason { code: CloseCode::Policy, description: Some("silent for too long".into()) });
                }
                tokio::select! {
                    biased;
                    _ = kill.notify.notified() => break Some(killed(&kill)),
                    r = session.ping(b"") => if r.is_err() { break None; },
                }
            }
            msg = stream.recv() => {
                let Some(msg) = msg else { break None };
                last_seen = Instant::now();
                match msg {
                    Err(actix_ws::ProtocolError::Overflow) => {
                        break Some(CloseReason { code: CloseCode::Size, description: Some("frame larger than 8 KiB".into()) });
                    }
                    Err(_) => break Some(CloseReason { code: CloseCode::Protocol, description: None }),
                    Ok(AggregatedMessage::Ping(b)) => { let _ = session.pong(&b).await; }
                    Ok(AggregatedMessage::Pong(_)) => {}
                    Ok(AggregatedMessage::Close(_)) => break None,
                    Ok(m @ (AggregatedMessage::Text(_) | AggregatedMessage::Binary(_))) => {
                        let now = Instant::now();
                        while times.front().is_some_and(|t| now.duration_since(*t) > RATE_WINDOW) {
                            times.pop_front();
                        }
                        times.push_back(now);
                        if times.len() > RATE_MESSAGES {
                            break Some(CloseReason { code: CloseCode::Policy, description: Some("rate limit".into()) });
                        }
                        match m {
                            AggregatedMessage::Text(text) => {
                                if text.len() > MAX_FRAME {
                                    break Some(CloseReason { code: CloseCode::Size, description: Some("message larger than 8 KiB".into()) });
                                }
                                handle_text(&live, &peer, &tx, &mut joined, &text).await;
                            }
                            _ => {
                                let e = ProtoError::new(ErrorCode::BinaryNotSupported, "send JSON text frames");
                                tx.send(&ServerMsg::error(&None, &e));
                            }
                        }
                    }
                }
            }
        }
    };
    live.remove_socket(who.account_id, conn_id);
    live.remove_ip(peer.ip);
    live.socket_gauge(-1);
    for r in joined {
        if let Some(h) = live.room(&r) {
            h.send(Cmd::Gone { conn_id }).await;
        }
    }
    // a client that does not read may never take the close frame: do not wait for it forever
    let _ = tokio::time::timeout(Duration::from_secs(5), session.close(close)).await;
}

/// The close a [`super::Kill`] asks for: session ended, or the outbound queue overflowed.
fn killed(kill: &super::Kill) -> CloseReason {
    match kill.code.load(std::sync::atomic::Ordering::Relaxed) {
        0 => {
            CloseReason { code: CloseCode::Again, description: Some("outbound queue full".into()) }
        }
        _ => session_ended("session ended"),
    }
}

fn session_ended(why: &str) -> CloseReason {
    CloseReason {
        code: CloseCode::Other(super::CLOSE_SESSION_ENDED),
        description: Some(why.into()),
    }
}

async fn handle_text(
    live: &Live,
    peer: &Peer,
    tx: &super::ClientTx,
    joined: &mut HashSet<String>,
    text: &str,
) {
    let (id, msg) = match protocol::parse(text) {
        Ok(x) => x,
        Err((id, e)) => {
            tx.send(&ServerMsg::error(&id, &e));
            return;
        }
    };
    if let Err(e) = route(live, peer, tx, joined, &id, msg).await {
        tx.send(&ServerMsg::error(&id, &e));
    }
}

async fn join(
    live: &Live,
    who: &Who,
    tx: &super::ClientTx,
    joined: &mut HashSet<String>,
    id: &Option<ClientId>,
    room: &str,
    (v, by_invite): (Option<u64>, bool),
) -> Result<(), ProtoError> {
    let h = live.room(room).ok_or_else(no_room)?;
    let cmd = Cmd::Join { conn: tx.clone(), who: who.clone(), id: id.clone(), v, by_invite };
    if !h.send(cmd).await {
        return Err(no_room());
    }
    joined.insert(room.to_string());
    Ok(())
}

async fn route(
    live: &Live,
    peer: &Peer,
    tx: &super::ClientTx,
    joined: &mut HashSet<String>,
    id: &Option<ClientId>,
    msg: ClientMsg,
) -> Result<(), ProtoError> {
    let who = &peer.who;
    match msg {
        ClientMsg::Ping {} => {
            tx.send(&ServerMsg::Pong { id: id.clone(), server_time: now_ms() });
            Ok(())
        }
        ClientMsg::ListRooms {} => {
            tx.send(&ServerMsg::Rooms { id: id.clone(), rooms: live.open_rooms() });
            Ok(())
        }
        ClientMsg::CreateRoom { public, options } => {
            if let Some(ack) = live.seen_id(who.account_id, id) {
                tx.send(&ServerMsg::Ack(ack));
                return Ok(());
            }
            let options = super::parse_options(options)?;
            let (room, invite) = live.create_room(who, public.unwrap_or(true), options)?;
            acknowledge(live, who, tx, id, AckBody::Created { room: room.clone(), invite });
            // the creator joins its room at once
            join(live, who, tx, joined, &None, &room, (None, false)).await
        }
        ClientMsg::StartPractice { options, level, seat } => {
            if let Some(ack) = live.seen_id(who.account_id, id) {
                tx.send(&ServerMsg::Ack(ack));
                return Ok(());
            }
            let options = super::parse_options(options)?;
            // checked before the game row is written (claimed when the room is made)
            live.room_available(who.account_id)?;
            let seat = seat.unwrap_or(Seat::S);
            let level = level.unwrap_or(Level::Standard);
            let seats = BySeat::from_fn(|s| {
                if s == seat {
                    SeatOccupant::Account {
                        account_id: who.account_id,
                        name: who.name.clone(),
                        guest: who.guest,
                    }
                } else {
                    SeatOccupant::Bot { level }
                }
            });
            let (game, room) = live.create_game(GameKind::Practice, seats, options).await?;
            acknowledge(live, who, tx, id, AckBody::Practice { room: room.clone(), game });
            join(live, who, tx, joined, &None, &room, (None, false)).await
        }
        ClientMsg::JoinRoom { room, invite, game, v } => {
            let by_invite = room.is_none() && invite.is_some();
            let room = match (room, invite, game) {
                (Some(r), _, _) => r,
                (None, Some(i), _) => live.lookup_invite(who.account_id, peer.ip, &i)?,
                (None, None, Some(g)) => live.room_by_game(g).ok_or_else(|| {
                    ProtoError::new(ErrorCode::NotFound, "that game is not being played")
                })?,
                (None, None, None) => {
                    return Err(ProtoError::new(
                        ErrorCode::BadMessage,
                        "join_room needs \"room\", \"invite\" or \"game\"",
                    ))
                }
            };
            join(live, who, tx, joined, id, &room, (v, by_invite)).await
        }
        other => {
            let room = other.room().unwrap_or_default().to_string();
            let h = live.room(&room).ok_or_else(no_room)?;
            let leaving = matches!(other, ClientMsg::LeaveRoom { .. });
            if !h
                .send(Cmd::Msg { conn: tx.clone(), who: who.clone(), id: id.clone(), msg: other })
                .await
            {
                return Err(no_room());
            }
            if leaving {
                joined.remove(&room);
            }
            Ok(())
        }
    }
}

fn no_room() -> ProtoError {
    ProtoError::new(ErrorCode::NotFound, "no such room")
}

/// Ack a lobby action and remember it (idempotency).
fn acknowledge(live: &Live, who: &Who, tx: &super::ClientTx, id: &Option<ClientId>, body: AckBody) {
    let ack = ServerMsg::ack(id, body);
    live.remember_id(who.account_id, id, &ack);
    tx.send(&ServerMsg::Ack(ack));
}
