//! [`Ladder`]: the queues plus the link to live play that turns a match into a game.
use super::glicko::Rating;
use super::queue::{LadderConfig, Match, QueueStatus, Queues, Waiting};
use super::LadderKind;
use crate::db::schema::ladder_stats as ls;
use crate::db::Db;
use crate::error::AppResult;
use diesel::prelude::*;
use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock};

/// Creates the game of a match (live play) and tells its players. Returns (game id, room id).
pub trait MatchStarter: Send + Sync + 'static {
    fn start(&self, m: Match) -> Starting;
}

/// A game being created: its (game id, room id) when done.
pub type Starting = Pin<Box<dyn Future<Output = AppResult<(i64, String)>> + Send + 'static>>;

/// The ladder service in `AppState` (cheap to clone).
#[derive(Clone)]
pub struct Ladder {
    pub queues: Arc<Queues>,
    db: Db,
    starter: Arc<OnceLock<Arc<dyn MatchStarter>>>,
    ticker: Arc<Mutex<Option<tokio::task::JoinHandle<()>>>>,
}

impl Ladder {
    pub fn new(config: LadderConfig, db: Db) -> Ladder {
        Ladder {
            queues: Arc::new(Queues::new(config)),
            db,
            starter: Arc::new(OnceLock::new()),
            ticker: Arc::new(Mutex::new(None)),
        }
    }

    /// Install live play's game creation (once, at start-up).
    pub fn set_starter(&self, starter: Arc<dyn MatchStarter>) {
        let _ = self.starter.set(starter);
    }

    /// Start the periodic matcher (must run inside a tokio runtime).
    pub fn spawn_ticker(&self) {
        let me = self.clone();
        let period = std::time::Duration::from_millis(self.queues.config().tick_ms.max(50));
        let handle = tokio::spawn(async move {
            let mut tick = tokio::time::interval(period);
            loop {
                tick.tick().await;
                let found = me.queues.tick();
                me.start_matches(found).await;
            }
        });
        if let Some(old) = self.ticker.lock().unwrap().replace(handle) {
            old.abort();
        }
    }

    /// Stop the periodic matcher.
    pub fn shutdown(&self) {
        if let Some(h) = self.ticker.lock().unwrap().take() {
            h.abort();
        }
    }

    /// Put an account into `ladder`'s queue; starts any match this completes. Returns the
    /// account's status afterwards.
    pub async fn join(
        &self,
        ladder: LadderKind,
        account_id: i64,
        username: String,
        ip: IpAddr,
    ) -> AppResult<QueueStatus> {
        let (rating, playing) = self
            .db
            .run(move |c| {
                use crate::db::schema::{game_players as gp, games};
                let playing: Option<i64> = gp::table
                    .inner_join(games::table)
                    .filter(gp::account_id.eq(account_id))
                    .filter(games::kind.eq_any(["ranked", "ranked_dual"]))
                    .filter(games::state.eq_any(["deploying", "battle"]))
                    .select(games::id)
                    .first(c)
                    .optional()?;
                let r: Option<(f64, f64, f64)> = ls::table
                    .filter(ls::account_id.eq(account_id))
                    .filter(ls::ladder.eq(ladder.as_str()))
                    .select((ls::rating, ls::rd, ls::volatility))
                    .first(c)
                    .optional()?;
                Ok((
                    r.map(|(rating, rd, volatility)| Rating { rating, rd, volatility })
                        .unwrap_or_default(),
                    playing,
                ))
            })
            .await?;
        if let Some(game) = playing {
            return Err(crate::error::AppError::conflict(
                "in_ranked_game",
                format!("finish your ranked game {game} before queueing again"),
            ));
        }
        tracing::debug!(account_id, ladder = ladder.as_str(), %ip, rating = rating.rating, "queue join");
        let w = Waiting { account_id, username, ip: Some(ip), rating, since: chrono::Utc::now() };
        let found = self.queues.join(ladder, w)?;
        self.start_matches(found).await;
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

/// Live play creates ranked games: default options (always `four_dark`), no bots, every seat an
/// account. Live play itself sends each player's sockets `match_found` (docs/protocol.md).
impl MatchStarter for crate::live::Live {
    fn start(&self, m: Match) -> Starting {
        let live = self.clone();
        Box::pin(async move {
            use crate::live::{GameKind, SeatOccupant};
            let kind = match m.ladder {
                LadderKind::Ranked => GameKind::Ranked,
                LadderKind::RankedDual => GameKind::RankedDual,
            };
            let seats = m.seats.clone().map(|(account_id, name)| SeatOccupant::Account {
                account_id,
                name,
                guest: false,
            });
            live.create_game(kind, seats, siguo_rules::Options::default()).await
        })
    }
}
