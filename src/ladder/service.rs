//! [`Ladder`]: the queues plus the link to live play that turns a match into a game.
//!
//! The queues are the in-memory [`Queues`] of one node, or, in cluster mode, the rows every node
//! shares ([`SharedQueues`], chosen at start with [`Ladder::share`]).
use super::glicko::Rating;
use super::queue::{Cancelled, LadderConfig, Match, Proposal, QueueStatus, Queues, Waiting};
use super::shared::SharedQueues;
use super::LadderKind;
use crate::db::schema::ladder_stats as ls;
use crate::db::Db;
use crate::error::ErrorCode;
use crate::error::{AppError, AppResult};
use crate::live::protocol::{now_ms, QueueLeftReason, ServerMsg};
use diesel::prelude::*;
use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock};

/// What the ladder needs from live play: create the game of a match (and tell its players;
/// returns (game id, room id)), know who has a socket open, and send a player a message.
pub trait MatchStarter: Send + Sync + 'static {
    fn start(&self, m: Match) -> Starting;
    /// Has the account at least one connected socket (on this node)?
    fn online(&self, account_id: i64) -> bool;
    /// The accounts with a socket on this node.
    fn online_accounts(&self) -> Vec<i64>;
    /// Send a message to every socket of the account (none: nobody to tell).
    fn tell(&self, account_id: i64, msg: &ServerMsg);
}

/// A game being created: its (game id, room id) when done.
pub type Starting = Pin<Box<dyn Future<Output = AppResult<(i64, String)>> + Send + 'static>>;

/// The ladder service in `AppState` (cheap to clone).
#[derive(Clone)]
pub struct Ladder {
    pub queues: Arc<Queues>,
    db: Db,
    starter: Arc<OnceLock<Arc<dyn MatchStarter>>>,
    /// cluster mode: the queues shared by every node (instead of `queues`)
    shared: Arc<OnceLock<SharedQueues>>,
    ticker: Arc<Mutex<Option<tokio::task::JoinHandle<()>>>>,
}

impl Ladder {
    pub fn new(config: LadderConfig, db: Db) -> Ladder {
        Ladder {
            queues: Arc::new(Queues::new(config)),
            db,
            starter: Arc::new(OnceLock::new()),
            shared: Arc::new(OnceLock::new()),
            ticker: Arc::new(Mutex::new(None)),
        }
    }

    /// Install live play's game creation (once, at start-up).
    pub fn set_starter(&self, starter: Arc<dyn MatchStarter>) {
        let _ = self.starter.set(starter);
    }

    /// Cluster mode: use the queues shared by every node (once, at start-up, before the ticker).
    pub fn share(&self, shared: SharedQueues) {
        let _ = self.shared.set(shared);
    }

    /// Start the periodic matcher (must run inside a tokio runtime).
    pub fn spawn_ticker(&self) {
        let me = self.clone();
        let period = std::time::Duration::from_millis(self.queues.config().tick_ms.max(50));
        let handle = tokio::spawn(async move {
            let mut tick = tokio::time::interval(period);
            loop {
                tick.tick().await;
                me.tick().await;
            }
        });
        if let Some(old) = self.ticker.lock().unwrap_or_else(|e| e.into_inner()).replace(handle) {
            old.abort();
        }
    }

    /// Stop the periodic matcher.
    pub fn shutdown(&self) {
        if let Some(h) = self.ticker.lock().unwrap_or_else(|e| e.into_inner()).take() {
            h.abort();
        }
    }

    /// One round of the periodic matcher: drop the entries of players gone for the grace,
    /// call off the proposals nobody accepted in time, propose the matches now possible.
    async fn tick(&self) {
        let Some(live) = self.starter.get().cloned() else { return };
        if let Some(shared) = self.shared.get() {
            if let Err(e) = shared.tick(|| live.online_accounts()).await {
                tracing::warn!(error = %e, "cluster: queue tick failed");
            }
            return;
        }
        for (account_id, ladder) in self.queues.sweep(|a| live.online(a)) {
            tracing::info!(account_id, ladder = ladder.as_str(), "queue entry dropped: no socket");
            live.tell(
                account_id,
                &ServerMsg::QueueLeft { ladder, reason: QueueLeftReason::Disconnected },
            );
        }
        for c in self.queues.expire() {
            self.cancelled(&c);
        }
        self.propose(self.queues.tick());
    }

    /// Tell each player of each proposal (`match_proposed`).
    fn propose(&self, proposals: Vec<Proposal>) {
        let Some(live) = self.starter.get() else { return };
        for p in proposals {
            tracing::info!(match_id = p.id, ladder = p.m.ladder.as_str(), accounts = ?p.m.accounts(), "match proposed");
            let msg = ServerMsg::MatchProposed {
                match_id: p.id,
                ladder: p.m.ladder,
                deadline: p.deadline.timestamp_millis(),
                server_time: now_ms(),
                players: p.m.players.len(),
            };
            for a in p.m.accounts() {
                live.tell(a, &msg);
            }
        }
    }

    /// Tell the players of a called-off proposal whether they are back in the queue.
    fn cancelled(&self, c: &Cancelled) {
        tracing::info!(match_id = c.id, reason = ?c.reason, removed = ?c.removed, "match called off");
        let Some(live) = self.starter.get() else { return };
        for (accounts, requeued) in [(&c.requeued, true), (&c.removed, false)] {
            let msg = ServerMsg::MatchCancelled {
                match_id: c.id,
                ladder: c.ladder,
                reason: c.reason,
                requeued,
            };
            for a in accounts {
                live.tell(*a, &msg);
            }
        }
    }

    /// `account_id` accepts proposal `match_id`; the last acceptance creates the game.
    pub async fn accept(&self, account_id: i64, match_id: u64) -> AppResult<()> {
        if let Some(shared) = self.shared.get() {
            let id = shared_id(match_id)?;
            if let Some(m) = shared.accept(account_id, id).await? {
                self.start_shared(shared, id, m).await;
            }
            return Ok(());
        }
        if let Some(m) = self.queues.accept(account_id, match_id)? {
            self.start_matches(vec![m]).await;
        }
        Ok(())
    }

    /// `account_id` declines proposal `match_id`: the others go back to the queue.
    pub async fn decline(&self, account_id: i64, match_id: u64) -> AppResult<()> {
        if let Some(shared) = self.shared.get() {
            shared.decline(account_id, shared_id(match_id)?).await?;
            self.match_shared(shared).await;
            return Ok(());
        }
        let c = self.queues.decline(account_id, match_id)?;
        self.cancelled(&c);
        self.propose(self.queues.tick());
        Ok(())
    }

    /// Leave `ladder`'s queue (declining a proposed match of that ladder); the status after.
    pub async fn leave(&self, ladder: LadderKind, account_id: i64) -> AppResult<QueueStatus> {
        if let Some(shared) = self.shared.get() {
            if shared.leave(ladder, account_id).await? {
                self.match_shared(shared).await;
            }
            return shared.status(account_id).await;
        }
        if let Some(c) = self.queues.leave_or_decline(ladder, account_id) {
            self.cancelled(&c);
            self.propose(self.queues.tick());
        }
        Ok(self.queues.status(account_id))
    }

    /// The account's queue status.
    pub async fn status(&self, account_id: i64) -> AppResult<QueueStatus> {
        match self.shared.get() {
            Some(shared) => shared.status(account_id).await,
            None => Ok(self.queues.status(account_id)),
        }
    }

    /// A socket of the account opened on this node (cluster mode: it is present at once).
    pub async fn socket_opened(&self, account_id: i64) {
        let Some(shared) = self.shared.get() else { return };
        if let Err(e) = shared.socket_opened(account_id).await {
            tracing::warn!(account_id, error = %e, "cluster: presence not recorded");
        }
    }

    /// Cluster mode: run the matcher now (if no other node does), e.g. after a join.
    async fn match_shared(&self, shared: &SharedQueues) {
        if let Err(e) = shared.run_matcher().await {
            tracing::warn!(error = %e, "cluster: matcher failed");
        }
    }

    /// Cluster mode: every player accepted proposal `id`: create its game here (this node owns
    /// it; `match_found` names it), or put the players back in the queue.
    async fn start_shared(&self, shared: &SharedQueues, id: i64, m: Match) {
        let created = match self.starter.get() {
            Some(starter) => starter.start(m.clone()).await,
            None => Err(AppError::internal("live play is not attached")),
        };
        let done = match created {
            Ok(game) => {
                tracing::info!(game_id = game.0, ladder = m.ladder.as_str(), accounts = ?m.accounts(), "ranked match started");
                shared.matched(id, m, game).await
            }
            Err(e) => {
                tracing::error!(error = %e, "could not create a ranked game; requeueing its players");
                shared.requeue(id).await
            }
        };
        if let Err(e) = done {
            tracing::error!(match_id = id, error = %e, "cluster: the queue could not record the match");
        }
    }

    /// Put an account into `ladder`'s queue; proposes any match this completes. The account
    /// must have a socket open (`not_connected`): the queue entry lives only as long as one
    /// does. Returns the account's status afterwards.
    pub async fn join(
        &self,
        ladder: LadderKind,
        account_id: i64,
        username: String,
        ip: IpAddr,
    ) -> AppResult<QueueStatus> {
        let here = self.starter.get().is_some_and(|live| live.online(account_id));
        let present = match (here, self.shared.get()) {
            (false, Some(shared)) => shared.present(account_id).await?,
            _ => here,
        };
        if !present {
            return Err(AppError::conflict(
                ErrorCode::NotConnected,
                "connect to live play (the WebSocket) before queueing",
            ));
        }
        let (rating, last_opponent) = self.db.run(move |c| standing(c, ladder, account_id)).await?;
        tracing::debug!(account_id, ladder = ladder.as_str(), %ip, rating = rating.rating, "queue join");
        let since = chrono::Utc::now();
        let w = Waiting {
            account_id,
            username,
            ip: Some(ip),
            rating,
            since,
            offline_since: None,
            last_opponent,
        };
        if let Some(shared) = self.shared.get() {
            shared.join(ladder, w).await?;
            self.match_shared(shared).await;
            return shared.status(account_id).await;
        }
        let found = self.queues.join(ladder, w)?;
        self.propose(found);
        Ok(self.queues.status(account_id))
    }

    /// Create the games of `found` through live play; players of a failed match are requeued.
    pub async fn start_matches(&self, found: Vec<Match>) {
        for m in found {
            let Some(starter) = self.starter.get().cloned() else {
                tracing::error!(
                    "a ranked match was found but live play is not attached; requeueing"
                );
                self.queues.requeue(m);
                continue;
            };
            match starter.start(m.clone()).await {
                Ok((game_id, room)) => {
                    tracing::info!(game_id, ladder = m.ladder.as_str(), accounts = ?m.accounts(), "ranked match started");
                    self.queues.matched(&m, game_id, &room);
                }
                Err(e) => {
                    tracing::error!(error = %e, "could not create a ranked game; requeueing its players");
                    self.queues.requeue(m);
                }
            }
        }
    }
}

/// Live play creates ranked games: the game's default options (always `four_dark` for the
/// four-player game; Hidden Front's standard clocks), no bots, every seat an account. Live play itself sends each player's sockets `match_found` (docs/protocol.md).
/// A player is online while it has a socket open.
impl MatchStarter for crate::live::Live {
    fn start(&self, m: Match) -> Starting {
        let live = self.clone();
        Box::pin(async move {
            use crate::live::SeatOccupant;
            use siguo_rules::{BySeat, Options, Variant};
            let variant = match m.ladder {
                LadderKind::HfRanked => Variant::HiddenFront,
                LadderKind::Ranked | LadderKind::RankedDual => Variant::FourPlayer,
            };
            let seats = BySeat::from(m.seats.clone().map(|seat| {
                seat.map(|(account_id, name)| SeatOccupant::Account {
                    account_id,
                    name,
                    guest: false,
                })
            }));
            // the standard options and clocks of the game, never shortened
            let options = Options::for_variant(variant);
            live.create_game_of(m.ladder.game_kind(), variant, seats, options).await
        })
    }

    fn online(&self, account_id: i64) -> bool {
        self.is_online(account_id)
    }

    fn online_accounts(&self) -> Vec<i64> {
        crate::live::Live::online_accounts(self)
    }

    fn tell(&self, account_id: i64, msg: &ServerMsg) {
        crate::live::Live::tell(self, account_id, msg);
    }
}

/// Where an account stands before it joins `ladder`'s queue: its rating there and (`hf_ranked`)
/// its last rated opponent. Refused while it plays a ranked game (`in_ranked_game`) or, for
/// `hf_ranked`, holds a seat in any game not over (`in_game`).
fn standing(
    c: &mut crate::db::DbConn,
    ladder: LadderKind,
    account_id: i64,
) -> AppResult<(Rating, Option<i64>)> {
    use crate::db::schema::{game_players as gp, games, ladder_results as lr};
    let playing: Option<(i64, String)> = gp::table
        .inner_join(games::table)
        .filter(gp::account_id.eq(account_id))
        .filter(games::state.eq_any(["deploying", "battle"]))
        .select((games::id, games::kind))
        .order(games::id.desc())
        .load::<(i64, String)>(c)?
        .into_iter()
        .find(|(_, kind)| LadderKind::parse(kind).is_some() || ladder == LadderKind::HfRanked);
    if let Some((game, kind)) = playing {
        return Err(match LadderKind::parse(&kind) {
            Some(_) => AppError::conflict(
                ErrorCode::InRankedGame,
                format!("finish your ranked game {game} before queueing again"),
            ),
            None => AppError::conflict(
                ErrorCode::InGame,
                format!("finish your game {game} before queueing for a rated game"),
            ),
        });
    }
    let r: Option<(f64, f64, f64)> = ls::table
        .filter(ls::account_id.eq(account_id))
        .filter(ls::ladder.eq(ladder.as_str()))
        .select((ls::rating, ls::rd, ls::volatility))
        .first(c)
        .optional()?;
    let rating =
        r.map(|(rating, rd, volatility)| Rating { rating, rd, volatility }).unwrap_or_default();
    let last_opponent = match ladder {
        LadderKind::HfRanked => {
            let last: Option<i64> = lr::table
                .filter(lr::account_id.eq(account_id))
                .filter(lr::ladder.eq(ladder.as_str()))
                .order(lr::created_at.desc())
                .select(lr::game_id)
                .first(c)
                .optional()?;
            match last {
                Some(game) => lr::table
                    .filter(lr::game_id.eq(game))
                    .filter(lr::account_id.ne(account_id))
                    .select(lr::account_id)
                    .first(c)
                    .optional()?,
                None => None,
            }
        }
        LadderKind::Ranked | LadderKind::RankedDual => None,
    };
    Ok((rating, last_opponent))
}

/// A proposal id of the shared queues (`not_found` if no row can have it).
fn shared_id(match_id: u64) -> AppResult<i64> {
    i64::try_from(match_id).map_err(|_| AppError::NotFound { what: "match proposal" })
}
