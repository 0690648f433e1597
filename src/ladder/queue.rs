//! Matchmaking queues (排位匹配): `ranked` (four accounts → two teams), `ranked_dual` (two
//! accounts, each commands both seats of one team) and `hf_ranked` (快速匹配: two accounts play
//! Hidden Front, South and North drawn at random).
//!
//! The queues live in memory (a restart empties them; players simply join again). One mutex
//! guards them and is never held across an await. Matching runs when someone joins and on a
//! periodic tick (so rating windows that widen with waiting time are honoured):
//! - candidates are considered oldest first; the oldest waiting player anchors a group;
//! - a group member must be a different account, from a different client address when the
//!   same-IP rule is on (default; IPv6 by its /64, [`ip_bucket`], as the rate limits count it),
//!   and within the anchor's rating window, which starts at `rating_window` and widens by
//!   `window_growth_per_sec` for every second the anchor waited (`hf_ranked`, ladder.md: ±100,
//!   +50 every 5 s, `hf_rating_window` / `hf_window_step` / `hf_window_step_secs`);
//! - `hf_ranked` does not pair an account with its last rated opponent while another compatible
//!   player waits;
//! - four players are split into the two teams of closest strength (hidden Glicko-2 ratings,
//!   [`glicko::balance_four`]); which team sits N+S and who takes which seat is random.
//!
//! Fairness to the people who wait (issue 19, finding 9):
//! - an entry lives only while its player has a connected socket: [`Queues::sweep`] marks an
//!   entry offline when the player has none and drops it after `queue_disconnect_grace_ms`;
//!   an offline entry is never matched;
//! - a group is first *proposed* ([`Proposal`]): every player must accept within `accept_ms`.
//!   When all accept the game is created; when one declines or the window passes, the others go
//!   back to the queue with their original waiting time (so ahead of everyone who came later),
//!   the decliners and no-shows leave it, and `no_show_limit` no-shows within
//!   `no_show_window_secs` earn a `no_show_cooldown_secs` queue cooldown (`queue_cooldown`).
use super::glicko::{self, Rating};
use super::LadderKind;
use crate::auth::limits::ip_bucket;
use crate::error::ErrorCode;
use crate::error::{AppError, AppResult};
use chrono::{DateTime, Duration, Utc};
use rand::seq::SliceRandom;
use serde::{Deserialize, Serialize};
use siguo_rules::Seat;
use std::collections::{HashMap, HashSet};
use std::net::IpAddr;
use std::sync::Mutex;

/// Section `[ladder]` of the configuration.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct LadderConfig {
    /// Never put two accounts from the same IP address into one ranked game.
    pub same_ip_rule: bool,
    /// Initial rating window around the longest-waiting player (Glicko points).
    pub rating_window: f64,
    /// The window grows by this much per second the anchor has waited.
    pub window_growth_per_sec: f64,
    /// How often the matcher re-runs, milliseconds.
    pub tick_ms: u64,
    /// A queued player without any open WebSocket leaves the queue after this many ms (unless
    /// a socket of theirs reconnects in time).
    pub queue_disconnect_grace_ms: u64,
    /// Matched players must accept the proposed match within this many ms.
    pub accept_ms: u64,
    /// This many no-shows (declined or unanswered proposals) within `no_show_window_secs`...
    pub no_show_limit: usize,
    pub no_show_window_secs: u64,
    /// ...keep the player out of the queues for this many seconds (`queue_cooldown`).
    pub no_show_cooldown_secs: u64,
    /// `hf_ranked`: the initial rating window (± Glicko points)...
    pub hf_rating_window: f64,
    /// ...widened by `hf_window_step` every `hf_window_step_secs` the anchor waited.
    pub hf_window_step: f64,
    pub hf_window_step_secs: u64,
}

impl LadderConfig {
    /// The rating window of an anchor of `ladder` that has waited `waited_ms`.
    pub fn window(&self, ladder: LadderKind, waited_ms: i64) -> f64 {
        let waited_ms = waited_ms.max(0) as f64;
        match ladder {
            LadderKind::HfRanked => {
                let steps = (waited_ms / (self.hf_window_step_secs.max(1) as f64 * 1000.0)).floor();
                self.hf_rating_window + self.hf_window_step * steps
            }
            LadderKind::Ranked | LadderKind::RankedDual => {
                self.rating_window + self.window_growth_per_sec * waited_ms / 1000.0
            }
        }
    }
}

impl Default for LadderConfig {
    fn default() -> Self {
        LadderConfig {
            same_ip_rule: true,
            rating_window: 200.0,
            window_growth_per_sec: 25.0,
            tick_ms: 1000,
            queue_disconnect_grace_ms: 5000,
            accept_ms: 15_000,
            no_show_limit: 2,
            no_show_window_secs: 600,
            no_show_cooldown_secs: 120,
            hf_rating_window: 100.0,
            hf_window_step: 50.0,
            hf_window_step_secs: 5,
        }
    }
}

/// A player waiting in a queue.
#[derive(Clone, Debug, PartialEq)]
pub struct Waiting {
    pub account_id: i64,
    pub username: String,
    pub ip: Option<IpAddr>,
    pub rating: Rating,
    pub since: DateTime<Utc>,
    /// When the player was first seen without a socket (`None`: connected).
    pub offline_since: Option<DateTime<Utc>>,
    /// `hf_ranked`: the account's last rated opponent (not paired again while others wait).
    pub last_opponent: Option<i64>,
}

/// A match found: who sits where. Under `ranked_dual` one account holds both seats of a team;
/// `hf_ranked` fills S and N only.
#[derive(Clone, Debug, PartialEq)]
pub struct Match {
    pub ladder: LadderKind,
    /// Index = `Seat::index()` (N, E, S, W); `None`: a seat the game does not play.
    pub seats: [Option<(i64, String)>; 4],
    /// The players as they waited (to put them back if the game cannot be created).
    pub players: Vec<Waiting>,
}

impl Match {
    /// The distinct accounts of the match.
    pub fn accounts(&self) -> Vec<i64> {
        self.players.iter().map(|w| w.account_id).collect()
    }
    /// Seats held by `account_id`.
    pub fn seats_of(&self, account_id: i64) -> Vec<Seat> {
        Seat::ALL
            .into_iter()
            .filter(|s| self.seats[s.index()].as_ref().is_some_and(|x| x.0 == account_id))
            .collect()
    }
}

/// A match proposed to its players, waiting for each to accept.
#[derive(Clone, Debug, PartialEq)]
pub struct Proposal {
    pub id: u64,
    pub m: Match,
    pub deadline: DateTime<Utc>,
    accepted: HashSet<i64>,
}

/// Why a proposed match was called off.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CancelReason {
    /// a player declined (or left the queue)
    Declined,
    /// a player did not accept in time
    TimedOut,
}

/// A proposal called off: who went back to the queue and who left it.
#[derive(Clone, Debug, PartialEq)]
pub struct Cancelled {
    pub id: u64,
    pub ladder: LadderKind,
    pub reason: CancelReason,
    pub requeued: Vec<i64>,
    pub removed: Vec<i64>,
}

/// Where an account stands with the queues (`GET /api/queue/{ladder}`).
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum QueueStatus {
    /// Not queued.
    Idle,
    /// Waiting since `since`, for `waited_seconds`; `waiting` players are in this queue.
    Waiting { ladder: LadderKind, since: DateTime<Utc>, waited_seconds: i64, waiting: usize },
    /// A match is proposed: accept it (`accept_match`) before `deadline`; `accepted` once done.
    Proposed { ladder: LadderKind, match_id: u64, deadline: DateTime<Utc>, accepted: bool },
    /// Every player accepted and the game is being created.
    Matching { ladder: LadderKind },
    /// The match's game: join its room (`join_room`) to deploy.
    Matched {
        ladder: LadderKind,
        game_id: i64,
        room: String,
        seats: Vec<String>,
        at: DateTime<Utc>,
    },
}

#[derive(Default)]
struct State {
    waiting: HashMap<LadderKind, Vec<Waiting>>,
    /// Last match of each account (game created, or still being created with game_id None).
    matched: HashMap<i64, LastMatch>,
    /// Matches waiting for their players to accept, by id.
    proposals: HashMap<u64, Proposal>,
    next_proposal: u64,
    /// Recent no-shows of each account, and the accounts in cooldown (until when).
    no_shows: HashMap<i64, Vec<DateTime<Utc>>>,
    cooldown: HashMap<i64, DateTime<Utc>>,
}

impl State {
    fn proposal_of(&self, account_id: i64) -> Option<&Proposal> {
        self.proposals.values().find(|p| p.m.players.iter().any(|w| w.account_id == account_id))
    }
}

/// (ladder, (game id, room id) once created, the account's seats, when)
type LastMatch = (LadderKind, Option<(i64, String)>, Vec<Seat>, DateTime<Utc>);

/// The queues of both ladders.
pub struct Queues {
    config: LadderConfig,
    state: Mutex<State>,
}

impl Queues {
    pub fn new(config: LadderConfig) -> Queues {
        Queues { config, state: Mutex::new(State::default()) }
    }

    pub fn config(&self) -> &LadderConfig {
        &self.config
    }

    /// Join `ladder`'s queue. Joining the queue one already waits in keeps the original time;
    /// waiting in the other ladder's queue is a conflict (`already_queued`); a player in
    /// cooldown gets `queue_cooldown`. Returns the matches this join proposed.
    pub fn join(&self, ladder: LadderKind, w: Waiting) -> AppResult<Vec<Proposal>> {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let now = Utc::now();
        if let Some(until) = st.cooldown.get(&w.account_id).filter(|u| **u > now) {
            return Err(cooldown_error(*until, now));
        }
        if st.proposal_of(w.account_id).is_some() {
            return Err(match_pending(false));
        }
        for (l, list) in &st.waiting {
            if list.iter().any(|x| x.account_id == w.account_id) {
                if *l == ladder {
                    return Ok(vec![]);
                }
                return Err(already_queued(*l));
            }
        }
        if let Some((_, None, _, _)) = st.matched.get(&w.account_id) {
            return Err(match_pending(true));
        }
        st.matched.remove(&w.account_id);
        st.waiting.entry(ladder).or_default().push(w);
        Ok(self.find_matches(&mut st, ladder, now))
    }

    /// Leave `ladder`'s queue; `true` if the account was waiting there.
    pub fn leave(&self, ladder: LadderKind, account_id: i64) -> bool {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let list = st.waiting.entry(ladder).or_default();
        let before = list.len();
        list.retain(|w| w.account_id != account_id);
        before != list.len()
    }

    pub fn status(&self, account_id: i64) -> QueueStatus {
        let st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let now = Utc::now();
        for (l, list) in &st.waiting {
            if let Some(w) = list.iter().find(|w| w.account_id == account_id) {
                return QueueStatus::Waiting {
                    ladder: *l,
                    since: w.since,
                    waited_seconds: (now - w.since).num_seconds().max(0),
                    waiting: list.len(),
                };
            }
        }
        if let Some(p) = st.proposal_of(account_id) {
            return QueueStatus::Proposed {
                ladder: p.m.ladder,
                match_id: p.id,
                deadline: p.deadline,
                accepted: p.accepted.contains(&account_id),
            };
        }
        match st.matched.get(&account_id) {
            Some((l, None, _, _)) => QueueStatus::Matching { ladder: *l },
            Some((l, Some((game_id, room)), seats, at)) => QueueStatus::Matched {
                ladder: *l,
                game_id: *game_id,
                room: room.clone(),
                seats: seats.iter().map(|s| s.letter().to_string()).collect(),
                at: *at,
            },
            None => QueueStatus::Idle,
        }
    }

    /// Run the matcher on both queues (the periodic tick).
    pub fn tick(&self) -> Vec<Proposal> {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let now = Utc::now();
        LadderKind::ALL.into_iter().flat_map(|l| self.find_matches(&mut st, l, now)).collect()
    }

    /// `account_id` accepts proposal `id` (again: harmless). When every player has, the
    /// proposal ends and its match is returned, its game to be created (status `matching`).
    /// An unknown or expired proposal, or one the account is not part of: `not_found`.
    pub fn accept(&self, account_id: i64, id: u64) -> AppResult<Option<Match>> {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let p = proposal_for(&mut st, account_id, id)?;
        p.accepted.insert(account_id);
        if p.accepted.len() < p.m.players.len() {
            return Ok(None);
        }
        let p = st.proposals.remove(&id).expect("the proposal is there");
        let now = Utc::now();
        for acc in p.m.accounts() {
            st.matched.insert(acc, (p.m.ladder, None, p.m.seats_of(acc), now));
        }
        Ok(Some(p.m))
    }

    /// `account_id` declines proposal `id`: it is called off, the others go back to the queue,
    /// the decliner leaves it (a no-show).
    pub fn decline(&self, account_id: i64, id: u64) -> AppResult<Cancelled> {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        proposal_for(&mut st, account_id, id)?;
        let p = st.proposals.remove(&id).expect("the proposal is there");
        Ok(self.cancel(&mut st, p, &[account_id], CancelReason::Declined))
    }

    /// Leave `ladder`'s queue, declining the proposal of that ladder one is part of, if any.
    /// Returns the proposal so called off.
    pub fn leave_or_decline(&self, ladder: LadderKind, account_id: i64) -> Option<Cancelled> {
        let proposal = {
            let st = self.state.lock().unwrap_or_else(|e| e.into_inner());
            st.proposal_of(account_id).filter(|p| p.m.ladder == ladder).map(|p| p.id)
        };
        match proposal {
            Some(id) => self.decline(account_id, id).ok(),
            None => {
                self.leave(ladder, account_id);
                None
            }
        }
    }

    /// Call off every proposal whose acceptance window has passed: who did not accept is a
    /// no-show and leaves the queue; who did goes back to it.
    pub fn expire(&self) -> Vec<Cancelled> {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let now = Utc::now();
        let due: Vec<u64> =
            st.proposals.values().filter(|p| p.deadline <= now).map(|p| p.id).collect();
        let mut out = vec![];
        for id in due {
            let p = st.proposals.remove(&id).expect("the proposal is there");
            let absent: Vec<i64> =
                p.m.accounts().into_iter().filter(|a| !p.accepted.contains(a)).collect();
            out.push(self.cancel(&mut st, p, &absent, CancelReason::TimedOut));
        }
        out
    }

    /// Entries whose player has no socket (`online` says) are marked offline; those offline
    /// for `queue_disconnect_grace_ms` are dropped and returned. Also forgets old no-shows.
    pub fn sweep(&self, online: impl Fn(i64) -> bool) -> Vec<(i64, LadderKind)> {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let now = Utc::now();
        let grace = Duration::milliseconds(self.config.queue_disconnect_grace_ms as i64);
        let mut dropped = vec![];
        for (ladder, list) in st.waiting.iter_mut() {
            list.retain_mut(|w| {
                if online(w.account_id) {
                    w.offline_since = None;
                    return true;
                }
                let since = *w.offline_since.get_or_insert(now);
                let keep = now - since < grace;
                if !keep {
                    dropped.push((w.account_id, *ladder));
                }
                keep
            });
        }
        let window = Duration::seconds(self.config.no_show_window_secs as i64);
        st.cooldown.retain(|_, until| *until > now);
        st.no_shows.retain(|_, times| times.iter().any(|t| now - *t < window));
        dropped
    }

    /// End proposal `p`: `absent` accounts are no-shows, the others go back to the queue with
    /// their original waiting time.
    fn cancel(&self, st: &mut State, p: Proposal, absent: &[i64], why: CancelReason) -> Cancelled {
        let now = Utc::now();
        let ladder = p.m.ladder;
        let (mut requeued, mut removed) = (vec![], vec![]);
        for mut w in p.m.players {
            if absent.contains(&w.account_id) {
                self.no_show(st, w.account_id, now);
                removed.push(w.account_id);
            } else {
                w.offline_since = None;
                requeued.push(w.account_id);
                st.waiting.entry(ladder).or_default().push(w);
            }
        }
        Cancelled { id: p.id, ladder, reason: why, requeued, removed }
    }

    /// Count a no-show; `no_show_limit` of them within the window start a cooldown.
    fn no_show(&self, st: &mut State, account_id: i64, now: DateTime<Utc>) {
        let window = Duration::seconds(self.config.no_show_window_secs as i64);
        let times = st.no_shows.entry(account_id).or_default();
        times.retain(|t| now - *t < window);
        times.push(now);
        if times.len() >= self.config.no_show_limit.max(1) {
            times.clear();
            let until = now + Duration::seconds(self.config.no_show_cooldown_secs as i64);
            st.cooldown.insert(account_id, until);
        }
    }

    /// The match's game exists: remember it for the players' status.
    pub fn matched(&self, m: &Match, game_id: i64, room: &str) {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let now = Utc::now();
        for id in m.accounts() {
            st.matched
                .insert(id, (m.ladder, Some((game_id, room.to_string())), m.seats_of(id), now));
        }
    }

    /// The match's game could not be created: its players go back to the front of the queue.
    pub fn requeue(&self, m: Match) {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        for id in m.accounts() {
            st.matched.remove(&id);
        }
        let list = st.waiting.entry(m.ladder).or_default();
        let mut players = m.players;
        players.append(list);
        players.sort_by_key(|w| w.since);
        *list = players;
    }

    fn find_matches(
        &self,
        st: &mut State,
        ladder: LadderKind,
        now: DateTime<Utc>,
    ) -> Vec<Proposal> {
        let size = group_size(ladder);
        let mut found = vec![];
        loop {
            let list = st.waiting.entry(ladder).or_default();
            list.sort_by_key(|w| w.since);
            let Some(group) = find_group(&self.config, ladder, list, size, now) else { break };
            let mut players = vec![];
            for &i in group.iter().rev() {
                players.push(list.remove(i));
            }
            players.reverse();
            for w in &players {
                st.matched.remove(&w.account_id);
            }
            st.next_proposal += 1;
            let accept = Duration::milliseconds(self.config.accept_ms as i64);
            let p = Proposal {
                id: st.next_proposal,
                m: seat(ladder, players),
                deadline: now + accept,
                accepted: HashSet::new(),
            };
            st.proposals.insert(p.id, p.clone());
            found.push(p);
        }
        found
    }
}

/// Indexes (ascending) of a compatible group of `size` in `list` (oldest first), anchored at the
/// oldest connected player that has one. Shared by the in-memory queues and the cluster's
/// ([`super::shared`]). A pair of last opponents is formed only when no other pair can be.
pub(crate) fn find_group(
    config: &LadderConfig,
    ladder: LadderKind,
    list: &[Waiting],
    size: usize,
    now: DateTime<Utc>,
) -> Option<Vec<usize>> {
    let same_address = |a: &Waiting, b: &Waiting| match (a.ip, b.ip) {
        (Some(x), Some(y)) => config.same_ip_rule && ip_bucket(x) == ip_bucket(y),
        _ => false,
    };
    let rematch = |a: &Waiting, b: &Waiting| {
        a.last_opponent == Some(b.account_id) || b.last_opponent == Some(a.account_id)
    };
    for allow_rematch in [false, true] {
        let compatible = |a: &Waiting, b: &Waiting| {
            a.account_id != b.account_id && !same_address(a, b) && (allow_rematch || !rematch(a, b))
        };
        for (a, anchor) in list.iter().enumerate() {
            if anchor.offline_since.is_some() {
                continue;
            }
            let window = config.window(ladder, (now - anchor.since).num_milliseconds());
            let mut group = vec![a];
            for (j, cand) in list.iter().enumerate().skip(a + 1) {
                if cand.offline_since.is_none()
                    && (cand.rating.rating - anchor.rating.rating).abs() <= window
                    && group.iter().all(|&g| compatible(&list[g], cand))
                {
                    group.push(j);
                    if group.len() == size {
                        return Some(group);
                    }
                }
            }
        }
    }
    None
}

/// How many accounts a match of `ladder` takes.
pub(crate) fn group_size(ladder: LadderKind) -> usize {
    match ladder {
        LadderKind::Ranked => 4,
        LadderKind::RankedDual | LadderKind::HfRanked => 2,
    }
}

/// `queue_cooldown`: the account may queue again at `until`.
pub(crate) fn cooldown_error(until: DateTime<Utc>, now: DateTime<Utc>) -> AppError {
    let secs = ((until - now).num_milliseconds().max(0) as u64).div_ceil(1000);
    AppError::Wait {
        code: ErrorCode::QueueCooldown,
        message: format!("you missed too many matches; queue again in {secs} s"),
        retry_after_secs: secs,
    }
}

/// `match_pending`: a match of the account is proposed, or (`creating`) its game is being made.
pub(crate) fn match_pending(creating: bool) -> AppError {
    match creating {
        false => AppError::conflict(ErrorCode::MatchPending, "accept or decline your match first"),
        true => AppError::conflict(ErrorCode::MatchPending, "your match is being created"),
    }
}

/// `already_queued`: the account waits in `other`'s queue.
pub(crate) fn already_queued(other: LadderKind) -> AppError {
    AppError::conflict(
        ErrorCode::AlreadyQueued,
        format!("you are already waiting in the {} queue; leave it first", other.as_str()),
    )
}

/// Proposal `id`, if `account_id` is one of its players and it is still open (`not_found`).
fn proposal_for(st: &mut State, account_id: i64, id: u64) -> AppResult<&mut Proposal> {
    let now = Utc::now();
    st.proposals
        .get_mut(&id)
        .filter(|p| p.deadline > now && p.m.players.iter().any(|w| w.account_id == account_id))
        .ok_or(AppError::NotFound { what: "match proposal" })
}

/// Assign seats: balanced teams, random sides and seats.
pub(crate) fn seat(ladder: LadderKind, mut players: Vec<Waiting>) -> Match {
    let mut rng = rand::rng();
    let who = |w: &Waiting| Some((w.account_id, w.username.clone()));
    let seats = match ladder {
        LadderKind::RankedDual => {
            players.shuffle(&mut rng);
            let (a, b) = (who(&players[0]), who(&players[1]));
            [a.clone(), b.clone(), a, b]
        }
        LadderKind::HfRanked => {
            // N, E, S, W: who plays South (moves first) is drawn
            let south = usize::from(rand::Rng::random_bool(&mut rng, 0.5));
            [who(&players[1 - south]), None, who(&players[south]), None]
        }
        LadderKind::Ranked => {
            let r = [players[0].rating, players[1].rating, players[2].rating, players[3].rating];
            let mut teams = glicko::balance_four(r);
            teams.shuffle(&mut rng);
            for t in &mut teams {
                t.shuffle(&mut rng);
            }
            // teams[0] sits N+S, teams[1] sits E+W.
            [
                who(&players[teams[0][0]]),
                who(&players[teams[1][0]]),
                who(&players[teams[0][1]]),
                who(&players[teams[1][1]]),
            ]
        }
    };
    Match { ladder, seats, players }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(id: i64, ip: u8, rating: f64, ago_secs: i64) -> Waiting {
        Waiting {
            account_id: id,
            username: format!("p{id}"),
            ip: Some(IpAddr::from([10, 0, 0, ip])),
            rating: Rating { rating, ..Rating::default() },
            since: Utc::now() - Duration::seconds(ago_secs),
            offline_since: None,
            last_opponent: None,
        }
    }

    /// Every player of the (only) proposal accepts; the match.
    fn accept_all(q: &Queues, p: &Proposal) -> Match {
        let ids = p.m.accounts();
        for id in &ids[..ids.len() - 1] {
            assert_eq!(q.accept(*id, p.id).unwrap(), None);
        }
        q.accept(ids[ids.len() - 1], p.id).unwrap().expect("all accepted")
    }

    #[test]
    fn four_join_ranked_and_are_matched_into_two_balanced_teams() {
        let q = Queues::new(LadderConfig::default());
        assert!(q.join(LadderKind::Ranked, w(1, 1, 1700.0, 0)).unwrap().is_empty());
        assert!(q.join(LadderKind::Ranked, w(2, 2, 1690.0, 0)).unwrap().is_empty());
        assert!(q.join(LadderKind::Ranked, w(3, 3, 1510.0, 0)).unwrap().is_empty());
        assert!(matches!(q.status(3), QueueStatus::Waiting { waiting: 3, .. }));
        let p = q.join(LadderKind::Ranked, w(4, 4, 1500.0, 0)).unwrap();
        assert_eq!(p.len(), 1);
        assert!(matches!(q.status(1), QueueStatus::Proposed { accepted: false, .. }));
        assert_eq!(q.accept(1, p[0].id).unwrap(), None);
        assert!(matches!(q.status(1), QueueStatus::Proposed { accepted: true, .. }));
        let m = &accept_all(&q, &p[0]);
        let mut ids: Vec<i64> = m.seats.iter().flatten().map(|s| s.0).collect();
        ids.sort();
        assert_eq!(ids, vec![1, 2, 3, 4]);
        // the two strong players are on different teams
        let team_of = |id: i64| m.seats_of(id)[0].team();
        assert_ne!(team_of(1), team_of(2));
        assert_ne!(team_of(3), team_of(4));
        assert!(matches!(q.status(1), QueueStatus::Matching { .. }));
        q.matched(m, 17, "g17");
        match q.status(4) {
            QueueStatus::Matched { game_id: 17, room, seats, .. } => {
                assert_eq!(room, "g17");
                assert_eq!(seats.len(), 1);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn dual_needs_two_and_gives_each_a_whole_team() {
        let q = Queues::new(LadderConfig::default());
        assert!(q.join(LadderKind::RankedDual, w(1, 1, 1500.0, 0)).unwrap().is_empty());
        let m = q.join(LadderKind::RankedDual, w(2, 2, 1500.0, 0)).unwrap().remove(0).m;
        assert_eq!(m.seats[0], m.seats[2]);
        assert_eq!(m.seats[1], m.seats[3]);
        assert_ne!(m.seats[0], m.seats[1]);
        assert_eq!(m.seats_of(1).len(), 2);
    }

    #[test]
    fn same_ip_players_are_never_matched_together_unless_the_rule_is_off() {
        let q = Queues::new(LadderConfig::default());
        q.join(LadderKind::RankedDual, w(1, 9, 1500.0, 0)).unwrap();
        assert!(q.join(LadderKind::RankedDual, w(2, 9, 1500.0, 0)).unwrap().is_empty());
        let m = q.join(LadderKind::RankedDual, w(3, 3, 1500.0, 0)).unwrap();
        assert_eq!(m.len(), 1);
        let mut ids = m[0].m.accounts();
        ids.sort();
        assert_eq!(ids, vec![1, 3]);
        assert!(matches!(q.status(2), QueueStatus::Waiting { .. }));

        let q = Queues::new(LadderConfig { same_ip_rule: false, ..LadderConfig::default() });
        q.join(LadderKind::RankedDual, w(1, 9, 1500.0, 0)).unwrap();
        assert_eq!(q.join(LadderKind::RankedDual, w(2, 9, 1500.0, 0)).unwrap().len(), 1);
    }

    /// One IPv6 /64 is one address for the rule, as for every per-address limit (issue 27).
    #[test]
    fn the_same_address_rule_counts_ipv6_by_its_64() {
        let v6 =
            |id: i64, ip: &str| Waiting { ip: Some(ip.parse().unwrap()), ..w(id, 0, 1500.0, 0) };
        let q = Queues::new(LadderConfig::default());
        q.join(LadderKind::RankedDual, v6(1, "2001:db8:0:7::1")).unwrap();
        let same_64 = q.join(LadderKind::RankedDual, v6(2, "2001:db8:0:7:ffff::2")).unwrap();
        assert!(same_64.is_empty(), "one /64: not matched together");
        let m = q.join(LadderKind::RankedDual, v6(3, "2001:db8:0:8::1")).unwrap();
        assert_eq!(m.len(), 1, "another /64");
        assert!(m[0].m.accounts().contains(&3));
    }

    #[test]
    fn leaving_and_double_joining() {
        let q = Queues::new(LadderConfig::default());
        q.join(LadderKind::Ranked, w(1, 1, 1500.0, 5)).unwrap();
        let since = match q.status(1) {
            QueueStatus::Waiting { since, waited_seconds, .. } => {
                assert!(waited_seconds >= 5);
                since
            }
            other => panic!("{other:?}"),
        };
        // joining again keeps the original time
        q.join(LadderKind::Ranked, w(1, 1, 1500.0, 0)).unwrap();
        assert!(
            matches!(q.status(1), QueueStatus::Waiting { since: s, waiting: 1, .. } if s == since)
        );
        let e = q.join(LadderKind::RankedDual, w(1, 1, 1500.0, 0)).unwrap_err();
        assert_eq!(e.code(), "already_queued");
        assert!(!q.leave(LadderKind::RankedDual, 1));
        assert!(q.leave(LadderKind::Ranked, 1));
        assert_eq!(q.status(1), QueueStatus::Idle);
        assert!(!q.leave(LadderKind::Ranked, 1));
    }

    #[test]
    fn rating_window_widens_with_waiting_time() {
        let q = Queues::new(LadderConfig::default());
        q.join(LadderKind::RankedDual, w(1, 1, 1500.0, 0)).unwrap();
        assert!(q.join(LadderKind::RankedDual, w(2, 2, 2000.0, 0)).unwrap().is_empty());
        assert!(q.tick().is_empty());
        let q = Queues::new(LadderConfig::default());
        // waited 20 s: window 200 + 25 * 20 = 700
        q.join(LadderKind::RankedDual, w(1, 1, 1500.0, 20)).unwrap();
        assert_eq!(q.join(LadderKind::RankedDual, w(2, 2, 2000.0, 0)).unwrap().len(), 1);
    }

    #[test]
    fn requeued_players_keep_their_place() {
        let q = Queues::new(LadderConfig::default());
        q.join(LadderKind::RankedDual, w(1, 1, 1500.0, 30)).unwrap();
        let p = q.join(LadderKind::RankedDual, w(2, 2, 1500.0, 10)).unwrap().remove(0);
        let m = accept_all(&q, &p);
        assert_eq!(
            q.join(LadderKind::RankedDual, w(1, 1, 1500.0, 0)).unwrap_err().code(),
            "match_pending"
        );
        q.requeue(m);
        assert!(
            matches!(q.status(1), QueueStatus::Waiting { waited_seconds, .. } if waited_seconds >= 30)
        );
        assert_eq!(q.tick().len(), 1);
    }

    #[test]
    fn a_decline_sends_the_others_back_in_front_and_the_decliner_out() {
        let q = Queues::new(LadderConfig::default());
        q.join(LadderKind::RankedDual, w(1, 1, 1500.0, 60)).unwrap();
        let p = q.join(LadderKind::RankedDual, w(2, 2, 1500.0, 30)).unwrap().remove(0);
        q.accept(1, p.id).unwrap();
        // someone else is not part of it
        assert_eq!(q.accept(3, p.id).unwrap_err().code(), "not_found");
        assert_eq!(q.decline(3, p.id).unwrap_err().code(), "not_found");
        let c = q.decline(2, p.id).unwrap();
        assert_eq!((c.reason, c.requeued, c.removed), (CancelReason::Declined, vec![1], vec![2]));
        assert_eq!(q.status(2), QueueStatus::Idle);
        assert!(
            matches!(q.status(1), QueueStatus::Waiting { waited_seconds, .. } if waited_seconds >= 60)
        );
        assert_eq!(q.accept(1, p.id).unwrap_err().code(), "not_found", "the proposal is gone");
        // 4 (same address as 1, so not matched with it) came after 1 but before 5: 5 is
        // matched with 1, whose place in front was kept
        assert!(q.join(LadderKind::RankedDual, w(4, 1, 1500.0, 10)).unwrap().is_empty());
        let p = q.join(LadderKind::RankedDual, w(5, 5, 1500.0, 0)).unwrap().remove(0);
        let mut ids = p.m.accounts();
        ids.sort();
        assert_eq!(ids, vec![1, 5], "the requeued player before the later one");
    }

    #[test]
    fn no_shows_time_out_and_a_repeated_one_gets_a_cooldown() {
        let q = Queues::new(LadderConfig { accept_ms: 0, ..LadderConfig::default() });
        for round in 0..2 {
            q.join(LadderKind::RankedDual, w(1, 1, 1500.0, 0)).unwrap();
            let p = q.join(LadderKind::RankedDual, w(2, 2, 1500.0, 0)).unwrap().remove(0);
            assert_eq!(q.accept(1, p.id).unwrap_err().code(), "not_found", "too late");
            let c = q.expire();
            assert_eq!(c.len(), 1);
            assert_eq!(c[0].reason, CancelReason::TimedOut);
            assert_eq!(c[0].removed.len(), 2, "nobody accepted");
            let again = q.join(LadderKind::RankedDual, w(1, 1, 1500.0, 0));
            if round == 0 {
                assert!(again.unwrap().is_empty(), "one no-show: no cooldown");
                q.leave(LadderKind::RankedDual, 1);
            } else {
                let e = again.unwrap_err();
                assert_eq!(e.code(), "queue_cooldown");
                assert!(matches!(e, AppError::Wait { retry_after_secs: 119..=120, .. }));
            }
        }
        assert!(q.expire().is_empty());
    }

    #[test]
    fn only_connected_players_are_matched_and_gone_ones_are_dropped_after_the_grace() {
        let q = Queues::new(LadderConfig { queue_disconnect_grace_ms: 0, ..Default::default() });
        q.join(LadderKind::Ranked, w(1, 1, 1500.0, 0)).unwrap();
        q.join(LadderKind::Ranked, w(2, 2, 1500.0, 0)).unwrap();
        assert_eq!(q.sweep(|a| a != 2), vec![(2, LadderKind::Ranked)]);
        assert_eq!(q.status(2), QueueStatus::Idle);
        assert!(matches!(q.status(1), QueueStatus::Waiting { .. }));

        let q = Queues::new(LadderConfig::default());
        q.join(LadderKind::RankedDual, w(1, 1, 1500.0, 0)).unwrap();
        assert!(q.sweep(|_| false).is_empty(), "within the grace");
        assert!(q.join(LadderKind::RankedDual, w(2, 2, 1500.0, 0)).unwrap().is_empty());
        assert!(q.tick().is_empty(), "an offline entry is not matched");
        assert!(q.sweep(|_| true).is_empty());
        assert_eq!(q.tick().len(), 1, "back online: matched");
    }

    #[test]
    fn hidden_front_pairs_two_on_south_and_north() {
        let q = Queues::new(LadderConfig::default());
        assert!(q.join(LadderKind::HfRanked, w(1, 1, 1500.0, 0)).unwrap().is_empty());
        let e = q.join(LadderKind::Ranked, w(1, 1, 1500.0, 0)).unwrap_err();
        assert_eq!(e.code(), "already_queued", "one queue at a time");
        let p = q.join(LadderKind::HfRanked, w(2, 2, 1500.0, 0)).unwrap().remove(0);
        let m = accept_all(&q, &p);
        assert!(m.seats[Seat::E.index()].is_none() && m.seats[Seat::W.index()].is_none());
        let (s, n) = (m.seats_of(1), m.seats_of(2));
        assert_eq!(s.len() + n.len(), 2);
        assert_ne!(s, n);
        assert!(s.iter().chain(&n).all(|x| matches!(x, Seat::S | Seat::N)));
    }

    #[test]
    fn hidden_front_window_is_100_then_50_more_every_5_seconds() {
        let c = LadderConfig::default();
        let win = |ms| c.window(LadderKind::HfRanked, ms);
        assert_eq!((win(0), win(4_999), win(5_000), win(12_000)), (100.0, 100.0, 150.0, 200.0));
        let q = Queues::new(LadderConfig::default());
        q.join(LadderKind::HfRanked, w(1, 1, 1500.0, 0)).unwrap();
        assert!(q.join(LadderKind::HfRanked, w(2, 2, 1620.0, 0)).unwrap().is_empty(), "120 apart");
        let q = Queues::new(LadderConfig::default());
        q.join(LadderKind::HfRanked, w(1, 1, 1500.0, 6)).unwrap();
        assert_eq!(q.join(LadderKind::HfRanked, w(2, 2, 1620.0, 0)).unwrap().len(), 1, "±150");
    }

    #[test]
    fn one_ipv6_network_is_one_address_and_last_opponents_wait_for_others() {
        let v6 = |id: i64, addr: &str| Waiting {
            ip: Some(addr.parse().unwrap()),
            ..w(id, 0, 1500.0, 9)
        };
        let q = Queues::new(LadderConfig::default());
        q.join(LadderKind::HfRanked, v6(1, "2001:db8:1:2::10")).unwrap();
        assert!(
            q.join(LadderKind::HfRanked, v6(2, "2001:db8:1:2::99")).unwrap().is_empty(),
            "same /64"
        );
        let p = q.join(LadderKind::HfRanked, v6(3, "2001:db8:1:3::10")).unwrap();
        assert_eq!(p[0].m.accounts(), vec![1, 3]);

        let q = Queues::new(LadderConfig::default());
        q.join(LadderKind::HfRanked, Waiting { last_opponent: Some(2), ..w(1, 1, 1500.0, 3) })
            .unwrap();
        q.join(LadderKind::HfRanked, Waiting { last_opponent: Some(1), ..w(2, 2, 1500.0, 2) })
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(matches!(q.status(1), QueueStatus::Proposed { .. }), "nobody else: a rematch");
        // 1, 2 (last opponents) and 3 wait before the matcher runs: 1 meets 3, not 2 again
        let q2 = Queues::new(LadderConfig::default());
        let entries = [(1, Some(2), 3), (2, Some(1), 2), (3, None, 1)];
        for (id, last, ago) in entries {
            let e = Waiting { last_opponent: last, ..w(id, id as u8, 1500.0, ago) };
            q2.state.lock().unwrap().waiting.entry(LadderKind::HfRanked).or_default().push(e);
        }
        let p = q2.tick();
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].m.accounts(), vec![1, 3]);
    }
}
