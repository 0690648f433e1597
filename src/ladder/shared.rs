//! The ranked queues of a cluster (several nodes on one PostgreSQL, docs/deployment.md): the same
//! rules as the in-memory [`super::queue`] (the same grouping code), kept in rows so that every
//! node sees one queue.
//!
//! - `queue_entries`: who waits (`proposal_id` NULL) or is part of a proposed match, with the
//!   original waiting time; `queue_proposals`: the matches proposed (`open`) or accepted by all and
//!   being created (`starting`); `queue_matches`: each account's last match (game, owner node);
//!   `queue_no_shows` and `queue_cooldowns`: the no-show penalty.
//! - Presence: every node renews, each ladder tick, a `presence` row for every account that has a
//!   socket on it (and removes its rows of accounts that have none). An entry whose player has no
//!   fresh row on any node (younger than `presence_ms`) is offline: never matched, and dropped
//!   after `ladder.queue_disconnect_grace_ms` (`queue_left`), unless a socket of the player comes
//!   back, on any node, in time (the entry then keeps its place).
//! - One matcher at a time across the nodes: every node tries on its tick (and after a join or a
//!   decline) to take a transaction-scoped advisory lock (`pg_try_advisory_xact_lock`); who gets
//!   it sweeps, expires and proposes in that transaction, the others skip. Rows that a concurrent
//!   accept, decline, join or leave holds are skipped (`FOR UPDATE SKIP LOCKED`) until the next
//!   round.
//! - Accepting and declining lock the proposal's row (`FOR UPDATE`), so the last acceptance and a
//!   decline or the expiry cannot both win. The node that records the last acceptance creates the
//!   game: it owns it (its lease) and every player learns the game and its owner in `match_found`.
//! - Notices to players (`match_proposed`, `match_cancelled`, `queue_left`) are published with
//!   `pg_notify` inside the transaction that decided them ([`crate::cluster::notify`]): they reach
//!   the player's sockets on whichever node, if and when the change commits.
use super::glicko::Rating;
use super::queue::{
    already_queued, cooldown_error, find_group, group_size, match_pending, seat, CancelReason,
    LadderConfig, Match, QueueStatus, Waiting,
};
use super::LadderKind;
use crate::cluster::notify::{pg, publish};
use crate::db::schema::{
    presence, queue_cooldowns as qc, queue_entries as qe, queue_matches as qm,
    queue_no_shows as qn, queue_proposals as qp,
};
use crate::db::Db;
use crate::error::{AppError, AppResult};
use crate::live::protocol::{now_ms, QueueLeftReason, ServerMsg};
use chrono::{DateTime, NaiveDateTime, TimeDelta, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bool};
use diesel::PgConnection;
use std::collections::HashSet;

/// The advisory lock the matcher holds for its transaction (any constant every node agrees on).
const MATCHER_LOCK: i64 = 0x5369_6775_5175_6575; // "SiguQueu"

/// How long the node that recorded the last acceptance has to create the game before the
/// matcher gives up on it (the node died) and puts the players back in the queue.
const STARTING_MS: u64 = 60_000;

/// The shared queues, as one node sees them (cheap to clone).
#[derive(Clone)]
pub struct SharedQueues {
    config: LadderConfig,
    db: Db,
    node: String,
    /// a presence row older than this is a socket gone (its node stopped renewing it)
    presence_ms: u64,
}

#[derive(Queryable)]
struct EntryRow {
    account_id: i64,
    ladder: String,
    username: String,
    ip: Option<String>,
    rating: f64,
    rd: f64,
    volatility: f64,
    since: NaiveDateTime,
    offline_since: Option<NaiveDateTime>,
    proposal_id: Option<i64>,
    accepted: bool,
    last_opponent: Option<i64>,
}

impl EntryRow {
    fn waiting(self) -> Waiting {
        Waiting {
            account_id: self.account_id,
            username: self.username,
            ip: self.ip.and_then(|i| i.parse().ok()),
            rating: Rating { rating: self.rating, rd: self.rd, volatility: self.volatility },
            since: self.since.and_utc(),
            offline_since: self.offline_since.map(|t| t.and_utc()),
            last_opponent: self.last_opponent,
        }
    }
}

#[derive(Queryable)]
struct ProposalRow {
    id: i64,
    ladder: String,
    seats: String,
    state: String,
    deadline: NaiveDateTime,
}

#[derive(QueryableByName)]
struct Locked {
    #[diesel(sql_type = Bool)]
    got: bool,
}

fn now() -> NaiveDateTime {
    Utc::now().naive_utc()
}

fn ms(n: u64) -> TimeDelta {
    TimeDelta::milliseconds(n.min(i64::MAX as u64 / 2) as i64)
}

fn ladder_of(s: &str) -> AppResult<LadderKind> {
    LadderKind::parse(s).ok_or_else(|| AppError::internal(format!("unknown ladder {s:?}")))
}

fn tell(c: &mut PgConnection, account_id: i64, msg: &ServerMsg) -> QueryResult<()> {
    publish(c, account_id, &msg.to_text())
}

fn proposal_not_found() -> AppError {
    AppError::NotFound { what: "match proposal" }
}

impl SharedQueues {
    pub fn new(config: LadderConfig, db: Db, node: String, presence_ms: u64) -> SharedQueues {
        SharedQueues { config, db, node, presence_ms }
    }

    /// Run `f` on a PostgreSQL connection in one transaction.
    async fn txn<R, F>(&self, f: F) -> AppResult<R>
    where
        F: FnOnce(&mut PgConnection, &SharedQueues) -> AppResult<R> + Send + 'static,
        R: Send + 'static,
    {
        let me = self.clone();
        self.db.run(move |c| pg(c)?.transaction(|c| f(c, &me))).await
    }

    /// The account's socket on this node opened: it is present at once (before the next tick).
    pub async fn socket_opened(&self, account_id: i64) -> AppResult<()> {
        let node = self.node.clone();
        self.txn(move |c, _| {
            stamp(c, &node, &[account_id], None)?;
            Ok(())
        })
        .await
    }

    /// Has the account a socket on some node?
    pub async fn present(&self, account_id: i64) -> AppResult<bool> {
        let since = now() - ms(self.presence_ms);
        self.txn(move |c, _| {
            let n: i64 = presence::table
                .filter(presence::account_id.eq(account_id))
                .filter(presence::seen_at.ge(since))
                .count()
                .get_result(c)?;
            Ok(n > 0)
        })
        .await
    }

    /// This node's tick: renew the presence of its sockets' accounts (`online()` lists them),
    /// then run the matcher if no other node runs it now.
    pub async fn tick(&self, online: impl FnOnce() -> Vec<i64>) -> AppResult<bool> {
        let node = self.node.clone();
        // a row written after this instant is a socket opened since the list was taken: kept
        let listed = now();
        let online = online();
        self.txn(move |c, _| Ok(stamp(c, &node, &online, Some(listed))?)).await?;
        self.run_matcher().await
    }

    /// One round of the matcher, unless another node holds the lock (`false`).
    pub async fn run_matcher(&self) -> AppResult<bool> {
        self.txn(|c, me| {
            let got = diesel::sql_query("SELECT pg_try_advisory_xact_lock($1) AS got")
                .bind::<BigInt, _>(MATCHER_LOCK)
                .get_result::<Locked>(c)?
                .got;
            if !got {
                return Ok(false);
            }
            let at = now();
            me.sweep(c, at)?;
            me.expire(c, at)?;
            for ladder in LadderKind::ALL {
                me.propose(c, ladder, at)?;
            }
            Ok(true)
        })
        .await
    }

    /// Join `ladder`'s queue: the same answers as the in-memory queue.
    pub async fn join(&self, ladder: LadderKind, w: Waiting) -> AppResult<()> {
        self.txn(move |c, _| {
            let at = now();
            let until: Option<NaiveDateTime> = qc::table
                .find(w.account_id)
                .filter(qc::until.gt(at))
                .select(qc::until)
                .first(c)
                .optional()?;
            if let Some(until) = until {
                return Err(cooldown_error(until.and_utc(), at.and_utc()));
            }
            let mine: Option<(String, Option<i64>)> = qe::table
                .find(w.account_id)
                .select((qe::ladder, qe::proposal_id))
                .first(c)
                .optional()?;
            match mine {
                Some((_, Some(p))) => {
                    let state: Option<String> =
                        qp::table.find(p).select(qp::state).first(c).optional()?;
                    return Err(match_pending(state.as_deref() == Some("starting")));
                }
                Some((l, None)) if l == ladder.as_str() => return Ok(()),
                Some((l, None)) => return Err(already_queued(ladder_of(&l)?)),
                None => {}
            }
            diesel::delete(qm::table.find(w.account_id)).execute(c)?;
            diesel::insert_into(qe::table)
                .values((
                    qe::account_id.eq(w.account_id),
                    qe::ladder.eq(ladder.as_str()),
                    qe::username.eq(&w.username),
                    qe::ip.eq(w.ip.map(|i| i.to_string())),
                    qe::rating.eq(w.rating.rating),
                    qe::rd.eq(w.rating.rd),
                    qe::volatility.eq(w.rating.volatility),
                    qe::since.eq(w.since.naive_utc()),
                    qe::last_opponent.eq(w.last_opponent),
                ))
                .on_conflict_do_nothing()
                .execute(c)?;
            Ok(())
        })
        .await
    }

    /// Leave `ladder`'s queue, declining the open proposal of that ladder one is part of.
    /// Returns whether a proposal was so called off.
    pub async fn leave(&self, ladder: LadderKind, account_id: i64) -> AppResult<bool> {
        self.txn(move |c, me| {
            let mine: Option<(String, Option<i64>)> = qe::table
                .find(account_id)
                .filter(qe::ladder.eq(ladder.as_str()))
                .select((qe::ladder, qe::proposal_id))
                .first(c)
                .optional()?;
            match mine {
                Some((_, None)) => {
                    diesel::delete(qe::table.find(account_id)).execute(c)?;
                    Ok(false)
                }
                Some((_, Some(id))) => match me.decline_in(c, account_id, id) {
                    Ok(()) => Ok(true),
                    Err(AppError::NotFound { .. }) => Ok(false),
                    Err(e) => Err(e),
                },
                None => Ok(false),
            }
        })
        .await
    }

    /// `account_id` accepts proposal `id`. When it is the last to, the proposal is `starting`
    /// and its match is returned: this node creates the game, then calls [`Self::matched`] (or
    /// [`Self::requeue`]).
    pub async fn accept(&self, account_id: i64, id: i64) -> AppResult<Option<Match>> {
        self.txn(move |c, _| {
            let at = now();
            let p = open_proposal(c, id, at)?;
            let mine = diesel::update(qe::table.find(account_id).filter(qe::proposal_id.eq(id)))
                .set(qe::accepted.eq(true))
                .execute(c)?;
            if mine == 0 {
                return Err(proposal_not_found());
            }
            let left: i64 = qe::table
                .filter(qe::proposal_id.eq(id))
                .filter(qe::accepted.eq(false))
                .count()
                .get_result(c)?;
            if left > 0 {
                return Ok(None);
            }
            diesel::update(qp::table.find(id))
                .set((qp::state.eq("starting"), qp::deadline.eq(at + ms(STARTING_MS))))
                .execute(c)?;
            let players: Vec<EntryRow> =
                qe::table.filter(qe::proposal_id.eq(id)).order(qe::since).load(c)?;
            let seats = serde_json::from_str(&p.seats).map_err(AppError::internal)?;
            let players = players.into_iter().map(EntryRow::waiting).collect();
            Ok(Some(Match { ladder: ladder_of(&p.ladder)?, seats, players }))
        })
        .await
    }

    /// `account_id` declines proposal `id`: the others go back to the queue, it leaves (a
    /// no-show).
    pub async fn decline(&self, account_id: i64, id: i64) -> AppResult<()> {
        self.txn(move |c, me| me.decline_in(c, account_id, id)).await
    }

    fn decline_in(&self, c: &mut PgConnection, account_id: i64, id: i64) -> AppResult<()> {
        let at = now();
        let p = open_proposal(c, id, at)?;
        let member: i64 =
            qe::table.find(account_id).filter(qe::proposal_id.eq(id)).count().get_result(c)?;
        if member == 0 {
            return Err(proposal_not_found());
        }
        self.cancel(c, &p, &[account_id], CancelReason::Declined, at)
    }

    /// The game of proposal `id` exists (created by this node): the players leave the queue and
    /// their status says `matched` with the game and its owner.
    pub async fn matched(&self, id: i64, m: Match, (game, room): (i64, String)) -> AppResult<()> {
        let node = self.node.clone();
        self.txn(move |c, _| {
            diesel::delete(qe::table.filter(qe::proposal_id.eq(id))).execute(c)?;
            diesel::delete(qp::table.find(id)).execute(c)?;
            let at = now();
            for a in m.accounts() {
                let seats: Vec<String> =
                    m.seats_of(a).iter().map(|s| s.letter().to_string()).collect();
                diesel::delete(qm::table.find(a)).execute(c)?;
                diesel::insert_into(qm::table)
                    .values((
                        qm::account_id.eq(a),
                        qm::ladder.eq(m.ladder.as_str()),
                        qm::game_id.eq(game),
                        qm::room.eq(&room),
                        qm::node_id.eq(&node),
                        qm::seats.eq(seats.join(",")),
                        qm::at.eq(at),
                    ))
                    .execute(c)?;
            }
            Ok(())
        })
        .await
    }

    /// The game of proposal `id` could not be created: its players wait again, in their places.
    pub async fn requeue(&self, id: i64) -> AppResult<()> {
        self.txn(move |c, _| {
            diesel::update(qe::table.filter(qe::proposal_id.eq(id)))
                .set((qe::proposal_id.eq(None::<i64>), qe::accepted.eq(false)))
                .execute(c)?;
            diesel::delete(qp::table.find(id)).execute(c)?;
            Ok(())
        })
        .await
    }

    /// Where the account stands (`GET /api/queue`).
    pub async fn status(&self, account_id: i64) -> AppResult<QueueStatus> {
        self.txn(move |c, _| {
            let at = Utc::now();
            let mine: Option<EntryRow> = qe::table.find(account_id).first(c).optional()?;
            if let Some(e) = mine {
                let ladder = ladder_of(&e.ladder)?;
                let Some(id) = e.proposal_id else {
                    let waiting: i64 = qe::table
                        .filter(qe::ladder.eq(&e.ladder))
                        .filter(qe::proposal_id.is_null())
                        .count()
                        .get_result(c)?;
                    let since = e.since.and_utc();
                    return Ok(QueueStatus::Waiting {
                        ladder,
                        since,
                        waited_seconds: (at - since).num_seconds().max(0),
                        waiting: waiting as usize,
                    });
                };
                let p: ProposalRow = qp::table.find(id).first(c)?;
                return Ok(match p.state.as_str() {
                    "open" => QueueStatus::Proposed {
                        ladder,
                        match_id: id as u64,
                        deadline: p.deadline.and_utc(),
                        accepted: e.accepted,
                    },
                    _ => QueueStatus::Matching { ladder },
                });
            }
            type MatchRow = (String, i64, String, String, NaiveDateTime);
            let m: Option<MatchRow> = qm::table
                .find(account_id)
                .select((qm::ladder, qm::game_id, qm::room, qm::seats, qm::at))
                .first(c)
                .optional()?;
            Ok(match m {
                Some((ladder, game_id, room, seats, at)) => QueueStatus::Matched {
                    ladder: ladder_of(&ladder)?,
                    game_id,
                    room,
                    seats: seats.split(',').map(str::to_string).collect(),
                    at: at.and_utc(),
                },
                None => QueueStatus::Idle,
            })
        })
        .await
    }

    /// Waiting entries of players present on no node are marked offline, and dropped after the
    /// grace (`queue_left`); those back are online again. Old presence rows, no-shows and
    /// cooldowns are forgotten.
    fn sweep(&self, c: &mut PgConnection, at: NaiveDateTime) -> AppResult<()> {
        let waiting: Vec<(i64, String, Option<NaiveDateTime>)> = qe::table
            .filter(qe::proposal_id.is_null())
            .select((qe::account_id, qe::ladder, qe::offline_since))
            .for_update()
            .skip_locked()
            .load(c)?;
        let ids: Vec<i64> = waiting.iter().map(|w| w.0).collect();
        let present: HashSet<i64> = presence::table
            .filter(presence::account_id.eq_any(&ids))
            .filter(presence::seen_at.ge(at - ms(self.presence_ms)))
            .select(presence::account_id)
            .load::<i64>(c)?
            .into_iter()
            .collect();
        let grace = ms(self.config.queue_disconnect_grace_ms);
        let (mut back, mut gone) = (vec![], vec![]);
        for (account_id, ladder, offline) in waiting {
            match (present.contains(&account_id), offline) {
                (true, Some(_)) => back.push(account_id),
                (true, None) => {}
                (false, offline) if at - offline.unwrap_or(at) >= grace => {
                    diesel::delete(qe::table.find(account_id)).execute(c)?;
                    let ladder = ladder_of(&ladder)?;
                    tracing::info!(
                        account_id,
                        ladder = ladder.as_str(),
                        "queue entry dropped: no socket"
                    );
                    let reason = QueueLeftReason::Disconnected;
                    tell(c, account_id, &ServerMsg::QueueLeft { ladder, reason })?;
                }
                (false, None) => gone.push(account_id),
                (false, Some(_)) => {}
            }
        }
        diesel::update(qe::table.filter(qe::account_id.eq_any(&back)))
            .set(qe::offline_since.eq(None::<NaiveDateTime>))
            .execute(c)?;
        diesel::update(qe::table.filter(qe::account_id.eq_any(&gone)))
            .set(qe::offline_since.eq(Some(at)))
            .execute(c)?;
        diesel::delete(
            presence::table.filter(presence::seen_at.lt(at - ms(self.presence_ms) * 10)),
        )
        .execute(c)?;
        let window = TimeDelta::seconds(self.config.no_show_window_secs as i64);
        diesel::delete(qn::table.filter(qn::at.le(at - window))).execute(c)?;
        diesel::delete(qc::table.filter(qc::until.le(at))).execute(c)?;
        Ok(())
    }

    /// Call off the proposals whose window has passed (those a concurrent accept or decline
    /// holds are left to it): who did not accept is a no-show. A `starting` one whose node never
    /// created the game sends everybody back to the queue.
    fn expire(&self, c: &mut PgConnection, at: NaiveDateTime) -> AppResult<()> {
        let due: Vec<ProposalRow> =
            qp::table.filter(qp::deadline.le(at)).for_update().skip_locked().load(c)?;
        for p in due {
            let absent: Vec<i64> = match p.state.as_str() {
                "open" => qe::table
                    .filter(qe::proposal_id.eq(p.id))
                    .filter(qe::accepted.eq(false))
                    .select(qe::account_id)
                    .load(c)?,
                _ => vec![],
            };
            self.cancel(c, &p, &absent, CancelReason::TimedOut, at)?;
        }
        Ok(())
    }

    /// End proposal `p`: `absent` accounts are no-shows and leave the queue, the others wait
    /// again with their original time. Each is told which (`match_cancelled`).
    fn cancel(
        &self,
        c: &mut PgConnection,
        p: &ProposalRow,
        absent: &[i64],
        reason: CancelReason,
        at: NaiveDateTime,
    ) -> AppResult<()> {
        let ladder = ladder_of(&p.ladder)?;
        let players: Vec<i64> =
            qe::table.filter(qe::proposal_id.eq(p.id)).select(qe::account_id).load(c)?;
        for a in &players {
            let requeued = !absent.contains(a);
            if requeued {
                diesel::update(qe::table.find(a))
                    .set((
                        qe::proposal_id.eq(None::<i64>),
                        qe::accepted.eq(false),
                        qe::offline_since.eq(None::<NaiveDateTime>),
                    ))
                    .execute(c)?;
            } else {
                diesel::delete(qe::table.find(a)).execute(c)?;
                self.no_show(c, *a, at)?;
            }
            let match_id = p.id as u64;
            tell(c, *a, &ServerMsg::MatchCancelled { match_id, ladder, reason, requeued })?;
        }
        diesel::delete(qp::table.find(p.id)).execute(c)?;
        tracing::info!(match_id = p.id, ?reason, removed = ?absent, "match called off");
        Ok(())
    }

    /// Count a no-show; `no_show_limit` of them within the window start a cooldown.
    fn no_show(&self, c: &mut PgConnection, account_id: i64, at: NaiveDateTime) -> AppResult<()> {
        diesel::insert_into(qn::table)
            .values((qn::account_id.eq(account_id), qn::at.eq(at)))
            .on_conflict_do_nothing()
            .execute(c)?;
        let window = TimeDelta::seconds(self.config.no_show_window_secs as i64);
        let n: i64 = qn::table
            .filter(qn::account_id.eq(account_id))
            .filter(qn::at.gt(at - window))
            .count()
            .get_result(c)?;
        if n as usize >= self.config.no_show_limit.max(1) {
            diesel::delete(qn::table.filter(qn::account_id.eq(account_id))).execute(c)?;
            let until = at + TimeDelta::seconds(self.config.no_show_cooldown_secs as i64);
            diesel::insert_into(qc::table)
                .values((qc::account_id.eq(account_id), qc::until.eq(until)))
                .on_conflict(qc::account_id)
                .do_update()
                .set(qc::until.eq(until))
                .execute(c)?;
        }
        Ok(())
    }

    /// Propose every match now possible in `ladder`'s queue (`match_proposed`).
    fn propose(
        &self,
        c: &mut PgConnection,
        ladder: LadderKind,
        at: NaiveDateTime,
    ) -> AppResult<()> {
        let rows: Vec<EntryRow> = qe::table
            .filter(qe::ladder.eq(ladder.as_str()))
            .filter(qe::proposal_id.is_null())
            .order(qe::since)
            .for_update()
            .skip_locked()
            .load(c)?;
        let mut list: Vec<Waiting> = rows.into_iter().map(EntryRow::waiting).collect();
        let now_utc: DateTime<Utc> = at.and_utc();
        while let Some(group) = find_group(&self.config, ladder, &list, group_size(ladder), now_utc)
        {
            let mut players = vec![];
            for &i in group.iter().rev() {
                players.push(list.remove(i));
            }
            players.reverse();
            let m = seat(ladder, players);
            let deadline = at + ms(self.config.accept_ms);
            let seats = serde_json::to_string(&m.seats).map_err(AppError::internal)?;
            let id: i64 = diesel::insert_into(qp::table)
                .values((
                    qp::ladder.eq(ladder.as_str()),
                    qp::seats.eq(seats),
                    qp::state.eq("open"),
                    qp::deadline.eq(deadline),
                ))
                .returning(qp::id)
                .get_result(c)?;
            diesel::update(qe::table.filter(qe::account_id.eq_any(m.accounts())))
                .set((qe::proposal_id.eq(Some(id)), qe::accepted.eq(false)))
                .execute(c)?;
            tracing::info!(match_id = id, ladder = ladder.as_str(), accounts = ?m.accounts(), "match proposed");
            let msg = ServerMsg::MatchProposed {
                match_id: id as u64,
                ladder,
                deadline: deadline.and_utc().timestamp_millis(),
                server_time: now_ms(),
                players: m.players.len(),
            };
            for a in m.accounts() {
                tell(c, a, &msg)?;
            }
        }
        Ok(())
    }
}

/// Proposal `id`, locked, if it is open and its window has not passed (`not_found`).
fn open_proposal(c: &mut PgConnection, id: i64, at: NaiveDateTime) -> AppResult<ProposalRow> {
    qp::table
        .find(id)
        .filter(qp::state.eq("open"))
        .filter(qp::deadline.gt(at))
        .for_update()
        .first(c)
        .optional()?
        .ok_or_else(proposal_not_found)
}

/// Renew `node`'s presence rows of `accounts`. With `listed`, `accounts` are all the accounts
/// that had a socket on `node` at that instant, and its other rows older than it go.
fn stamp(
    c: &mut PgConnection,
    node: &str,
    accounts: &[i64],
    listed: Option<NaiveDateTime>,
) -> QueryResult<()> {
    let at = now();
    for chunk in accounts.chunks(5000) {
        let rows: Vec<_> = chunk
            .iter()
            .map(|a| {
                (presence::account_id.eq(*a), presence::node_id.eq(node), presence::seen_at.eq(at))
            })
            .collect();
        diesel::insert_into(presence::table)
            .values(rows)
            .on_conflict((presence::account_id, presence::node_id))
            .do_update()
            .set(presence::seen_at.eq(at))
            .execute(c)?;
    }
    if let Some(listed) = listed {
        diesel::delete(
            presence::table
                .filter(presence::node_id.eq(node))
                .filter(presence::seen_at.lt(listed))
                .filter(presence::account_id.ne_all(accounts)),
        )
        .execute(c)?;
    }
    Ok(())
}
