//! One simulated table driven over its four sockets: four guests log in and connect, fill a
//! private casual room, ready, confirm their random deployments and play random legal moves at
//! the configured rate, game after game, until the measurement window ends.
use super::games::Ctx;
use super::messages::{Ack, Action, Outgoing, RoomOptions};
use super::stats::bump;
use super::table::{PlayedGame, Table, SEATS};
use super::ws::{self, Incoming, WsSink};
use futures_util::StreamExt;
use rand::Rng;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio::time::Instant as TokioInstant;

const STEP_TIMEOUT: Duration = Duration::from_secs(30);
/// How long moves in flight at the end of the window may take to arrive.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(10);

enum Outcome {
    /// the game ended (game over); play another one
    Over,
    /// the measurement ended
    Stop,
}

/// The table with its sockets.
struct Driver {
    table: Table,
    sinks: Vec<WsSink>,
    rx: mpsc::UnboundedReceiver<Incoming>,
}

/// One table: four guests, games one after another until the window ends. Returns the games it
/// played for the record check.
pub async fn run_table(ctx: Arc<Ctx>, gi: usize) -> Vec<PlayedGame> {
    let (sinks, rx, token) = match connect_four(&ctx, gi).await {
        Ok(c) => c,
        Err(e) => {
            bump(&ctx.stats.setups_failed);
            ctx.stats.error("connect", format!("game {gi}: {e}"));
            return vec![];
        }
    };
    let mut table = Table::new(gi, ctx.clone());
    // a player reads the records back (a private room's games are shown to their players only)
    table.player_token = token;
    for seat in &mut table.seats {
        seat.open = true;
    }
    let mut d = Driver { table, sinks, rx };
    if let Err(e) = d.play_games().await {
        ctx.stats.error("table", format!("game {gi}: {e}"));
        d.table.keep_record();
    }
    d.close().await;
    d.table.played
}

/// Log in four guests and open their sockets (a set-up permit limits how many tables do this at
/// once); their messages arrive on one channel.
async fn connect_four(
    ctx: &Ctx,
    gi: usize,
) -> Result<(Vec<WsSink>, mpsc::UnboundedReceiver<Incoming>, String), String> {
    let _permit = ctx.setup.acquire().await;
    let (tx, rx) = mpsc::unbounded_channel();
    let mut sinks = vec![];
    let mut first = String::new();
    for p in 0..4 {
        let ws = match connect_guest(ctx, gi).await {
            Ok((ws, token)) => {
                if p == 0 {
                    first = token;
                }
                ws
            }
            Err(e) => {
                for mut sink in sinks {
                    ws::close(&mut sink).await;
                    ctx.stats.socket_closed();
                }
                return Err(e);
            }
        };
        ctx.stats.socket_opened();
        let (sink, stream) = ws.split();
        tokio::spawn(ws::reader(p, stream, tx.clone()));
        sinks.push(sink);
    }
    Ok((sinks, rx, first))
}

/// A new guest's socket, and its access token.
async fn connect_guest(ctx: &Ctx, gi: usize) -> Result<(ws::Ws, String), String> {
    let token = ctx.api.guest_token().await?;
    Ok((ws::connect(ctx.addr, &ctx.ws_path(gi), &token).await?, token))
}

impl Driver {
    fn ctx(&self) -> &Ctx {
        self.table.ctx()
    }

    /// Games one after another until the window ends.
    async fn play_games(&mut self) -> Result<(), String> {
        self.until("hello", STEP_TIMEOUT, Table::all_hello).await?;
        loop {
            if self.ctx().stats.stopping() || Instant::now() >= self.ctx().window.end {
                return Ok(());
            }
            if let Err(e) = self.setup_game().await {
                bump(&self.ctx().stats.setups_failed);
                return Err(format!("set-up: {e}"));
            }
            bump(&self.ctx().stats.games_started);
            self.ctx().stats.games_playing.fetch_add(1, Ordering::Relaxed);
            let outcome = self.play().await;
            self.ctx().stats.games_playing.fetch_sub(1, Ordering::Relaxed);
            match outcome? {
                Outcome::Over => {
                    bump(&self.ctx().stats.games_finished);
                    self.table.keep_record();
                    let room = self.room();
                    self.everyone("leave_room", |_| Action::LeaveRoom { room: &room }).await?;
                }
                Outcome::Stop => {
                    self.drain().await;
                    self.table.keep_record();
                    return Ok(());
                }
            }
        }
    }

    fn room(&self) -> String {
        self.table.room.clone().unwrap_or_default()
    }

    async fn send(&mut self, p: usize, id: u64, action: Action<'_>) -> Result<(), String> {
        ws::send(&mut self.sinks[p], &Outgoing { id, action }).await
    }

    /// Send a set-up action whose reply will be awaited; returns its id.
    async fn act(&mut self, p: usize, action: Action<'_>) -> Result<u64, String> {
        let id = self.table.awaited_id();
        self.send(p, id, action).await?;
        Ok(id)
    }

    /// The same action from the four seats, and their acks.
    async fn everyone<'a>(
        &mut self,
        what: &str,
        action: impl Fn(usize) -> Action<'a>,
    ) -> Result<Vec<Ack>, String> {
        let mut ids = vec![];
        for p in 0..4 {
            ids.push(self.act(p, action(p)).await?);
        }
        self.acked(what, &ids).await
    }

    /// Process messages until `done(table)` or the timeout.
    async fn until(
        &mut self,
        what: &str,
        timeout: Duration,
        done: impl Fn(&Table) -> bool,
    ) -> Result<(), String> {
        let deadline = TokioInstant::now() + timeout;
        while !done(&self.table) {
            match tokio::time::timeout_at(deadline, self.rx.recv()).await {
                Ok(Some(incoming)) => self.table.observe(incoming),
                Ok(None) => return Err("all sockets gone".into()),
                Err(_) => return Err(format!("timed out waiting for {what}")),
            }
            if self.table.any_closed() && !self.table.closing {
                return Err(format!("a socket closed while waiting for {what}"));
            }
        }
        Ok(())
    }

    /// Wait for the replies to these ids; an error reply fails the step.
    async fn acked(&mut self, what: &str, ids: &[u64]) -> Result<Vec<Ack>, String> {
        self.until(what, STEP_TIMEOUT, |t| t.has_replies(ids)).await?;
        self.table.take_replies(what, ids)
    }

    /// Create a room, seat the four, ready, confirm the deployments; returns when the battle runs.
    async fn setup_game(&mut self) -> Result<(), String> {
        let new = self.create_room().await?;
        self.join_others(&new).await?;
        let room = new.room.as_str();
        self.everyone("take_seat", |p| Action::TakeSeat { room, seat: SEATS[p] }).await?;
        self.everyone("ready", |_| Action::Ready { room, ready: true }).await?;
        self.until("the deployment phase", STEP_TIMEOUT, Table::all_in_game).await?;
        self.everyone("confirm", |_| Action::Confirm { room }).await?;
        self.until("the battle", STEP_TIMEOUT, Table::battle_running).await
    }

    /// Seat 0 creates a private room (clocks long enough for the move rate).
    async fn create_room(&mut self) -> Result<NewRoom, String> {
        let move_seconds = ((8.0 / self.ctx().args.move_rate).ceil() as u64 + 10).clamp(10, 120);
        let options = RoomOptions { move_seconds, deploy_seconds: 300, max_steps: 2000 };
        let id = self.act(0, Action::CreateRoom { public: false, options }).await?;
        let ack = self.acked("create_room", &[id]).await?.remove(0);
        let room = ack.room.ok_or("create_room: no room in the ack")?;
        self.table.enter_room(room.clone());
        Ok(NewRoom { room, invite: ack.invite })
    }

    /// Seats 1–3 join by invite (or by room id when there is none).
    async fn join_others(&mut self, new: &NewRoom) -> Result<(), String> {
        let (room, invite) = match &new.invite {
            Some(i) => (None, Some(i.as_str())),
            None => (Some(new.room.as_str()), None),
        };
        let mut ids = vec![];
        for p in 1..4 {
            ids.push(self.act(p, Action::JoinRoom { room, invite }).await?);
        }
        self.acked("join_room", &ids).await.map(drop)
    }

    /// Play random legal moves at the configured rate until game over or the end of the window.
    async fn play(&mut self) -> Result<Outcome, String> {
        let interval = Duration::from_secs_f64(1.0 / self.ctx().args.move_rate);
        let room = self.room();
        let mut next_at = TokioInstant::now() + interval.mul_f64(rand::rng().random::<f64>());
        let end = TokioInstant::from_std(self.ctx().window.end);
        loop {
            if self.table.game_over() {
                return Ok(Outcome::Over);
            }
            if TokioInstant::now() >= end || self.ctx().stats.stopping() {
                return Ok(Outcome::Stop);
            }
            let mover = self.table.mover().filter(|_| !self.table.over_seen());
            let wake = if mover.is_some() { next_at.min(end) } else { end };
            tokio::select! {
                incoming = self.rx.recv() => match incoming {
                    Some(incoming) => self.table.observe(incoming),
                    None => return Err("all sockets gone".into()),
                },
                _ = tokio::time::sleep_until(wake) => {
                    let now = TokioInstant::now();
                    if let (Some(p), true) = (mover, now >= next_at && now < end) {
                        self.send_move(p, &room).await?;
                        next_at = (next_at + interval).max(TokioInstant::now());
                    }
                }
            }
            if self.table.any_closed() {
                return Err("a socket closed during the game".into());
            }
        }
    }

    /// Seat `p` plays one of its legal moves at random.
    async fn send_move(&mut self, p: usize, room: &str) -> Result<(), String> {
        let pick = rand::rng().random_range(0..self.table.seats[p].moves.len());
        let (id, (from, to)) = self.table.start_move(p, pick);
        self.send(p, id, Action::Move { room, from: &from, to: &to }).await
    }

    /// After the window: let moves in flight arrive, then count the missing ones.
    async fn drain(&mut self) {
        let _ = self.until("moves in flight", DRAIN_TIMEOUT, Table::nothing_in_flight).await;
        self.table.count_undelivered();
    }

    async fn close(&mut self) {
        self.table.closing = true;
        for sink in &mut self.sinks {
            ws::close(sink).await;
        }
        let ctx = self.table.ctx_arc();
        for seat in &mut self.table.seats {
            if seat.open {
                seat.open = false;
                ctx.stats.socket_closed();
            }
        }
    }
}

struct NewRoom {
    room: String,
    invite: Option<String>,
}
